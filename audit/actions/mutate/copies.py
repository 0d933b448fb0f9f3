"""The mutated copies of a home (``write_copies``): the original copy, one copy per mutation that
changes something (``apply_mutation``), and ``index.json`` last."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from audit.actions.mutate.catalogue import Mutation, describe
from audit.actions.mutate.edits import directory_times_kept
from audit.actions.store_copy import copy_stores, remove_tree
from audit.errors import InputError
from audit.progress import Callback, tracked
from audit.safeio import path_kind
from audit.safewrite import atomic_write, make_private_dir
from audit.strictjson import dumps


def apply_mutation(mutation: Mutation, home: Path) -> int:
    """Apply *mutation* to the copy *home*, directory times kept; what it changed (0: nothing)."""
    with directory_times_kept(home):
        return mutation.apply(home)


INDEX = "index.json"
ORIGINAL = "original"
"""``<out>/original/home``: the copy every mutated copy starts from."""


def write_copies(
    home: str | os.PathLike[str], out: str | os.PathLike[str], mutations: Sequence[Mutation], *, progress: Callback | None = None
) -> dict[str, Any]:
    """Copy the stores of *home* to ``<out>/original/home`` and, per mutation that changes
    something, to ``<out>/<name>/home`` with it applied; then write ``<out>/index.json`` (last: a
    directory without it is incomplete) and return it. *out* must not exist. *progress* is told
    before each mutation."""
    out = Path(out)
    if path_kind(out, follow_symlinks=False) is not None:
        raise InputError(f"{out}: already exists; give a directory that does not")
    make_private_dir(out)
    original = out / ORIGINAL / "home"
    copied = copy_stores(home, original)
    entries = []
    for m in tracked(mutations, progress, lambda m: m.name):
        target = out / m.name / "home"
        copy_stores(original, target)
        changed = apply_mutation(m, target)
        if not changed:
            remove_tree(out / m.name)
        entries.append(describe(m) | {"changed": changed, "home": f"{m.name}/home" if changed else None})
    index = {
        "version": 1,
        "source": str(Path(home).absolute()),
        "original": f"{ORIGINAL}/home",
        "roots": copied.roots,
        "files": copied.files,
        "skipped": [{"path": p, "reason": r} for p, r in copied.skipped],
        "mutations": entries,
    }
    atomic_write(out / INDEX, dumps(index).encode() + b"\n")
    return index
