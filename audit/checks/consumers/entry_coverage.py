"""Which entries of a profile a corpus exercises (``consumers check``): a fingerprint line matches
the entry's path, or a file of a store root its pattern."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from audit.checks.consumers.entry_lines import pattern, unfingerprinted
from audit.checks.consumers.profiles import Entry, Profile
from audit.checks.drift import Observed, split_line
from audit.safeio import FILE, is_dir, path_kind
from audit.store import layout

CoverageStatus = Literal["exercised", "not exercised", "not checkable"]
"""Whether a corpus exercises an entry: a line or file matches it, none does, or none could."""
EXERCISED: Final = "exercised"
NOT_EXERCISED: Final = "not exercised"
NOT_CHECKABLE: Final = "not checkable"


@dataclass(frozen=True)
class Coverage:
    entry: Entry
    status: CoverageStatus
    detail: str


def store_roots(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The store roots among or under *paths* (a store root, or a home directory's roots)."""
    roots: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if is_dir(path) and layout.is_store(path):
            roots.append(path)
        elif is_dir(path / ".gemini"):
            roots.extend(r.path for r in layout.resolve_roots(home=path, env={}))
    return list(dict.fromkeys(roots))


def coverage(profile: Profile, observed: Observed, roots: Sequence[Path]) -> list[Coverage]:
    """Which entries of *profile* the fingerprints in *observed* (and, for ``layout`` entries,
    the files of *roots*) exercise: a line matches the entry's path, or a file its pattern."""
    out = []
    for entry in profile.entries:
        if entry.surface == "layout":
            if not roots:
                out.append(Coverage(entry, NOT_CHECKABLE, "no store root among the paths (a sweep corpus has no store layout)"))
                continue
            found = sum(1 for root in roots for p in root.glob(entry.path) if path_kind(p, follow_symlinks=False) == FILE)
            status: CoverageStatus = EXERCISED if found else NOT_EXERCISED
            out.append(Coverage(entry, status, f"{found} file(s) in {len(roots)} store root(s)"))
            continue
        why = unfingerprinted(entry)
        if why is not None:
            out.append(Coverage(entry, NOT_CHECKABLE, why))
            continue
        fp = observed.fingerprints.get(entry.surface)
        if fp is None:
            reason = observed.not_computed.get(entry.surface, "not computed")
            out.append(Coverage(entry, NOT_CHECKABLE, f"no {entry.surface} fingerprint: {reason}"))
            continue
        match = pattern(entry.path, entry.surface).fullmatch
        lines = [line for line in fp.lines if match(split_line(line)[0])]
        if lines:
            out.append(Coverage(entry, EXERCISED, f"{len(lines)} line(s), e.g. {lines[0]}"))
        else:
            out.append(Coverage(entry, NOT_EXERCISED, f"no {entry.surface} line matches"))
    return out
