"""Finding sidecars and their native sources: a ``SidecarTarget`` per sidecar.

In a store's ``conversations/`` a sidecar's source is the ``<id>.db`` (or legacy ``<id>.pb``)
beside it; in a sweep corpus, ``native/<product>/<id>.db`` for ``corpus/<product>/<id>.trajectory.json``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError, NothingToCheck, UsageError
from audit.safeio import is_dir
from audit.store.corpus import is_corpus
from audit.store.ids import UUID_PATTERN, canonical_id
from audit.store.layout import Root, is_store, list_dir

_UUID = UUID_PATTERN
_SIDECAR_NAME = re.compile(rf"({_UUID})\.trajectory\.json")
_SOURCE_NAME = re.compile(rf"({_UUID})\.(db|pb)")


@dataclass(frozen=True)
class SidecarTarget:
    """One sidecar and its source (``db`` or legacy ``pb``); ``corpus``: in a sweep corpus."""

    sidecar: Path
    id: str | None
    db: Path | None = None
    pb: Path | None = None
    corpus: bool = False


def _source_dir(directory: Path) -> Path:
    """Where the sources of the sidecars in *directory* are: ``native/<product>`` for a sweep
    corpus's ``corpus/<product>``, else *directory* itself."""
    if directory.parent.name == "corpus" and is_corpus(directory.parent.parent):
        return directory.parent.parent / "native" / directory.name
    return directory


def _sources(directory: Path) -> dict[tuple[str, str], Path]:
    """(lower-case id, ``db``|``pb``) -> path of every regular ``<uuid>.db`` / ``.pb`` file."""
    found: dict[tuple[str, str], Path] = {}
    for entry in list_dir(directory):
        match = _SOURCE_NAME.fullmatch(entry.name)
        if match and entry.is_file(follow_symlinks=False):
            found.setdefault((match[1].lower(), match[2]), Path(entry.path))
    return found


def target_of(sidecar: Path, db: Path | None, *, corpus: bool = False) -> SidecarTarget:
    """The target of *sidecar* whose source is *db* (as ``targets`` would list it)."""
    match = _SIDECAR_NAME.fullmatch(sidecar.name)
    return SidecarTarget(sidecar, match[1].lower() if match else None, db, None, corpus)


def targets_in(directory: Path, only: str | None = None) -> list[SidecarTarget]:
    """The sidecars in *directory* (just *only* when given) with their sources."""
    if only is not None:
        names = [only]
    else:
        names = [e.name for e in list_dir(directory) if _SIDECAR_NAME.fullmatch(e.name) and not e.is_dir(follow_symlinks=False)]
    source_dir = _source_dir(directory)
    sources = _sources(source_dir) if names else {}
    targets = []
    for name in names:
        match = _SIDECAR_NAME.fullmatch(name)
        cid = match[1].lower() if match else None
        db, pb = (sources.get((cid, "db")), sources.get((cid, "pb"))) if cid is not None else (None, None)
        targets.append(SidecarTarget(directory / name, cid, db, pb, source_dir != directory))
    return targets


def _targets_of(path: Path) -> list[SidecarTarget]:
    if not is_dir(path):
        if not os.path.lexists(path):
            raise InputError(f"{path}: no such file or directory")
        return targets_in(path.parent, path.name)
    if is_corpus(path):
        corpus = path / "corpus"
        return [t for e in list_dir(corpus) if e.is_dir(follow_symlinks=False) for t in targets_in(corpus / e.name)]
    if is_store(path):
        return targets_in(path / "conversations")
    return targets_in(path)


def _unique(found: Iterable[SidecarTarget], looked_in: str) -> list[SidecarTarget]:
    unique = {t.sidecar.absolute(): t for t in found}
    if not unique:
        raise NothingToCheck(f"no sidecars (<uuid>.trajectory.json) in {looked_in}")
    return list(unique.values())


def targets(paths: Iterable[str | os.PathLike[str]]) -> list[SidecarTarget]:
    """Every sidecar in *paths* (store roots, ``conversations`` directories, sweep corpora or their
    ``corpus/<product>``, sidecar files) with its source, once each. Raises ``InputError`` for a
    path that does not exist, ``NothingToCheck`` when no sidecar is found."""
    given = [Path(p) for p in paths]
    return _unique([t for p in given for t in _targets_of(p)], ", ".join(map(str, given)))


def targets_in_roots(roots: Iterable[Root], ids: Iterable[str] = ()) -> list[SidecarTarget]:
    """The sidecars in each root's ``conversations/`` (``stores.resolve_roots`` roots), as
    ``targets``; with *ids*, only those sessions' (an id with no sidecar in any root is an
    ``InputError``)."""
    directories = [root.path / "conversations" for root in roots]
    found = _unique([t for d in directories for t in targets_in(d)], ", ".join(map(str, directories)))
    wanted = [(text, canonical_id(text)) for text in ids]
    if not wanted:
        return found
    if bad := [text for text, cid in wanted if cid is None]:
        raise UsageError(f"completeness: with --home/--root, give session ids (UUIDs), not {bad[0]!r}")
    chosen = [t for t in found if t.id in {cid for _, cid in wanted}]
    if absent := [text for text, cid in wanted if cid not in {t.id for t in chosen}]:
        raise InputError(f"session {absent[0]}: no sidecar in {', '.join(map(str, directories))}")
    return chosen
