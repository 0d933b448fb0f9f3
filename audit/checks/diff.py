"""Value-level differences between two trajectories, computed with deepdiff.

A trajectory is a sidecar, an export or a swept corpus file. A daemon envelope (a root object
whose only key is ``trajectory``) is unwrapped on both sides, as the shape fingerprint does. Each
difference is a ``Change`` at a path in our notation: object keys joined by ``.``, array indices
as ``[N]`` (``steps.[3].plannerResponse.toolCalls.[0].argumentsJson``). Kinds:

* ``changed`` -- the same JSON type, another value;
* ``type-changed`` -- another JSON type (``1`` and ``true``, ``1`` and ``1.0`` differ in type);
* ``added`` / ``removed`` -- a key or array item present on one side only (*new* / *old* is the
  value that is there).

Arrays and objects nested deeper than ``DEEPEST`` (64) levels are compared whole: a difference
inside one is reported at the path where it reaches that depth, with both whole values.

By default the paths the shape fingerprint ignores are left out (``VOLATILE``: the reader-owned
``agyReader`` block); *ignore* adds more, as paths or prefixes where ``[]`` stands for any index.

deepdiff is imported only here and only when a difference is computed, so commands that never
explain a difference never load it. Nothing here prints.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from audit.errors import EXIT_FINDINGS, EXIT_OK, InputError, NothingToCheck
from audit.progress import Callback, tracked
from audit.safeio import FILE, is_dir, path_kind, read_bytes
from audit.store.corpus import CORPUS, is_corpus
from audit.store.ids import canonical_id
from audit.store.layout import SIDECAR_SUFFIX
from audit.store.sidecar import MAX_SIDECAR_BYTES
from audit.strictjson import json_key, loads

ChangeKind = Literal["changed", "type-changed", "added", "removed"]
CHANGED: Final = "changed"
TYPE_CHANGED: Final = "type-changed"
ADDED: Final = "added"
REMOVED: Final = "removed"
KINDS: tuple[ChangeKind, ...] = (CHANGED, TYPE_CHANGED, ADDED, REMOVED)
VOLATILE = ("agyReader",)
"""Paths left out unless asked for: what the shape fingerprint skips (reader-owned metadata)."""
ENVELOPE_KEY = "trajectory"

_DEEPDIFF_KIND: dict[str, ChangeKind] = {
    "values_changed": CHANGED,
    "type_changes": TYPE_CHANGED,
    "dictionary_item_added": ADDED,
    "iterable_item_added": ADDED,
    "dictionary_item_removed": REMOVED,
    "iterable_item_removed": REMOVED,
}
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True)
class Change:
    kind: ChangeKind
    path: str  # our notation; "" is the document itself
    old: Any = None  # the value on side A (None for ``added``)
    new: Any = None  # the value on side B (None for ``removed``)


@dataclass
class Difference:
    """The differences of one pair of trajectories (A, B)."""

    a: str  # what side A is (a file, or "<corpus>: <id>")
    b: str
    changes: list[Change] = field(default_factory=list)
    ignored: tuple[str, ...] = ()  # the paths left out

    @property
    def same(self) -> bool:
        return not self.changes

    def counts(self) -> dict[str, int]:
        return {k: sum(c.kind == k for c in self.changes) for k in KINDS}


def path_text(segments: Sequence[object]) -> str:
    """Our notation for a deepdiff path list: ``['steps', 3, 'x']`` -> ``steps.[3].x``."""
    return ".".join(f"[{s}]" if isinstance(s, int) else str(s) for s in segments)


def matches(path: str, pattern: str) -> bool:
    """Whether *path* is *pattern* or lies below it; ``[]`` in *pattern* matches any index."""
    general = _INDEX.sub("[]", path)
    return any(p == pattern or p.startswith(pattern + ".") for p in (path, general))


def unwrap(document: object) -> object:
    """The trajectory inside a daemon envelope ``{"trajectory": ...}``; anything else as it is."""
    if isinstance(document, dict) and len(document) == 1 and ENVELOPE_KEY in document:
        return document[ENVELOPE_KEY]
    return document


def _json_type(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return "boolean" if isinstance(value, bool) else "null"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    names: dict[type, str] = {dict: "object", list: "array", str: "string"}
    return names.get(type(value), type(value).__name__)


def _same_float(a: object, b: object) -> bool:
    return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)


def changes(a: object, b: object, *, ignore: Iterable[str] = VOLATILE, deepest: bool = False) -> list[Change]:
    """Every value-level difference between the JSON values *a* and *b*, in path order. With
    *deepest*, an object that shares few keys with its counterpart is still compared key by key
    (by default deepdiff reports it replaced whole when under a third of its keys are shared)."""
    from deepdiff import DeepDiff  # noqa: PLC0415 -- loaded only when something is to be explained

    patterns = tuple(ignore)
    whole: dict[str, object] = {}  # placeholder -> the deep subtree it stands for
    deeper = 0.0 if deepest else 0.33  # deepdiff's default
    tree = DeepDiff(
        _bounded(unwrap(a), whole),
        _bounded(unwrap(b), whole),
        view="tree",
        verbose_level=2,
        ignore_order=False,
        threshold_to_diff_deeper=deeper,
    )
    found = []
    for report, kind in _DEEPDIFF_KIND.items():
        for level in tree.get(report, ()):
            path = path_text(level.path(output_format="list"))
            if any(matches(path, p) for p in patterns):
                continue
            old = None if kind == ADDED else _restored(level.t1, whole)
            new = None if kind == REMOVED else _restored(level.t2, whole)
            kind_here: ChangeKind = kind
            if kind == CHANGED and _json_type(old) != _json_type(new):
                kind_here = TYPE_CHANGED  # deepdiff reports int -> float of equal value as a value change
            elif kind == TYPE_CHANGED and _json_type(old) == _json_type(new):
                kind_here = CHANGED
            if kind_here == CHANGED and _same_float(old, new):
                continue
            found.append(Change(kind_here, path, old, new))
    return sorted(found, key=lambda c: (_sort_key(c.path), KINDS.index(c.kind)))


DEEPEST = 64
"""The nesting deepdiff is given (it recurses about six frames per level): an array or object
deeper than this is compared as one value, and a difference inside it is reported at its path."""
_WHOLE = "\0agy-audit whole value "  # no JSON text from a file starts with a NUL


def _bounded(value: object, whole: dict[str, object], depth: int = 0) -> object:
    """*value* with every array or object below ``DEEPEST`` levels replaced by a string that is
    equal for equal JSON values (types included) and recorded in *whole*."""
    if not isinstance(value, (dict, list)):
        return value
    if depth == DEEPEST:
        key = json_key(value)
        placeholder = _WHOLE + (hashlib.sha256(key).hexdigest() if key is not None else str(id(value)))
        whole[placeholder] = value
        return placeholder
    if isinstance(value, dict):
        return {k: _bounded(v, whole, depth + 1) for k, v in value.items()}
    return [_bounded(v, whole, depth + 1) for v in value]


def _restored(value: object, whole: dict[str, object]) -> object:
    return whole.get(value, value) if isinstance(value, str) and value.startswith(_WHOLE) else value


def _sort_key(path: str) -> tuple[tuple[int, int, str], ...]:
    return tuple((0, int(s[1:-1]), "") if _INDEX.fullmatch(s) else (1, 0, s) for s in path.split(".")) if path else ()


def difference(a: object, b: object, *, labels: tuple[str, str], ignore: Iterable[str] = VOLATILE) -> Difference:
    patterns = tuple(ignore)
    return Difference(labels[0], labels[1], changes(a, b, ignore=patterns), patterns)


def explain(a: object, b: object, *, shown: int = 3, ignore: Iterable[str] = VOLATILE) -> str:
    """One line naming the first *shown* differences (for failure details of other checks)."""
    found = changes(a, b, ignore=ignore)
    if not found:
        return "no value differs"
    parts = [f"{c.kind} {c.path or '(the document)'}" for c in found[:shown]]
    more = f" (+{len(found) - shown} more)" if len(found) > shown else ""
    return "; ".join(parts) + more


# ----------------------------------------------------------------------------- files and corpora


@dataclass
class Report:
    """``agy-audit diff A B``: every pair compared, and the trajectories only one side has."""

    pairs: list[Difference]
    only_a: list[str]  # ids (or files) only in A
    only_b: list[str]

    @property
    def same(self) -> bool:
        return all(p.same for p in self.pairs) and not self.only_a and not self.only_b

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.same else EXIT_FINDINGS


def _trajectories(path: Path) -> dict[str, Path]:
    """id -> file of the trajectories at *path*: a sweep corpus (``corpus/<product>/``), a store
    root (``conversations/``) or a directory of ``<uuid>.trajectory.json`` files."""
    if is_corpus(path):
        files = sorted((path / CORPUS).glob(f"*/*{SIDECAR_SUFFIX}"))
    elif is_dir(path / "conversations"):
        files = sorted((path / "conversations").glob(f"*{SIDECAR_SUFFIX}"))
    else:
        files = sorted(path.glob(f"*{SIDECAR_SUFFIX}"))
    found: dict[str, Path] = {}
    for file in files:
        cid = canonical_id(file.name.removesuffix(SIDECAR_SUFFIX))
        if cid is not None and path_kind(file, follow_symlinks=False) == FILE:
            found.setdefault(cid, file)
    return found


def _read(path: Path) -> object:
    return loads(read_bytes(path, limit=MAX_SIDECAR_BYTES), source=str(path), require_object=False)


def compare_paths(
    a: str | os.PathLike[str],
    b: str | os.PathLike[str],
    *,
    only: str | None = None,
    ignore: Iterable[str] = VOLATILE,
    progress: Callback | None = None,
) -> Report:
    """Compare two files, or the trajectories of two directories by id (*only*: that id alone);
    *progress* is told before each pair of trajectories of two directories is compared.

    Raises ``InputError`` for a path that does not exist or cannot be read, ``NothingToCheck``
    when two directories hold no trajectory to compare."""
    a, b = Path(a), Path(b)
    patterns = tuple(ignore)
    for p in (a, b):
        if not os.path.lexists(p):
            raise InputError(f"{p}: no such file or directory")
    if not is_dir(a) and not is_dir(b):
        return Report([difference(_read(a), _read(b), labels=(str(a), str(b)), ignore=patterns)], [], [])
    side_a = _trajectories(a) if is_dir(a) else {_file_id(a): a}
    side_b = _trajectories(b) if is_dir(b) else {_file_id(b): b}
    if only is not None:
        wanted = canonical_id(only) or only.lower()
        side_a = {k: v for k, v in side_a.items() if k == wanted}
        side_b = {k: v for k, v in side_b.items() if k == wanted}
    if not is_dir(a) or not is_dir(b):  # a file against a directory: the file's id only
        key = next(iter(side_a if not is_dir(a) else side_b))
        side_a, side_b = {k: v for k, v in side_a.items() if k == key}, {k: v for k, v in side_b.items() if k == key}
    if not side_a and not side_b:
        raise NothingToCheck(f"no trajectories (<uuid>{SIDECAR_SUFFIX}) to compare in {a} and {b}")
    both = sorted(side_a.keys() & side_b.keys())
    pairs = [
        difference(_read(side_a[i]), _read(side_b[i]), labels=(str(side_a[i]), str(side_b[i])), ignore=patterns)
        for i in tracked(both, progress)
    ]
    return Report(
        pairs,
        sorted(str(side_a[i]) for i in side_a.keys() - side_b.keys()),
        sorted(str(side_b[i]) for i in side_b.keys() - side_a.keys()),
    )


def _file_id(path: Path) -> str:
    """The id a single file stands for: its ``<uuid>`` name, else its ``cascadeId``, else its name."""
    cid = canonical_id(path.name.removesuffix(SIDECAR_SUFFIX))
    if cid is None:
        doc = unwrap(_read(path))
        cid = canonical_id(doc.get("cascadeId")) if isinstance(doc, dict) else None
    return cid or path.name
