"""Finding sessions: each conversation ``.db`` with the brain directory of the same id.

A store root's ``conversations/<id>.db`` with ``brain/<id>/``, a sweep corpus's
``native/<product>/<id>.db`` with ``native/<product>/brain/<id>/``, or ``.db`` files given.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError
from audit.safeio import DIRECTORY, is_dir, is_file, path_kind
from audit.store.corpus import is_corpus
from audit.store.ids import UUID_PATTERN
from audit.store.layout import Root, is_store, list_dir, scan_root

_DB_NAME = re.compile(rf"({UUID_PATTERN})\.db")


@dataclass(frozen=True)
class SessionTarget:
    """One ``.db`` and the brain directory of the same id (None when there is none)."""

    id: str
    db: Path
    brain: Path | None


def targets_in_roots(roots: Iterable[Root]) -> list[SessionTarget]:
    """Every session of *roots* with a ``.db``."""
    found = []
    for root in roots:
        for session in scan_root(root, brain_files=False).sessions:  # the brains' files are not needed here
            if session.db is not None:
                found.append(SessionTarget(session.id, session.db, session.brain))
    return sorted(found, key=lambda t: (str(t.db.parent), t.id))


def targets(paths: Iterable[str | os.PathLike[str]]) -> list[SessionTarget]:
    """Sessions under *paths*: store roots, sweep corpora (``native/<product>/<id>.db`` with
    ``native/<product>/brain/<id>/``), directories of ``.db`` files, or ``.db`` files (the brain
    of ``conversations/<id>.db`` is ``../brain/<id>/``). Raises ``InputError`` for a path that is
    none of these."""
    found: list[SessionTarget] = []
    for raw in paths:
        path = Path(raw)
        if is_file(path) and _DB_NAME.fullmatch(path.name):
            found.append(
                target_of(path, path.parent.parent / "brain" if path.parent.name == "conversations" else path.parent / "brain")
            )
        elif is_dir(path) and is_corpus(path):
            for surface in sorted(p for p in (path / "native").iterdir() if path_kind(p, follow_symlinks=False) == DIRECTORY):
                found += _targets_in(surface, surface / "brain")
        elif is_dir(path) and is_store(path):
            found += _targets_in(path / "conversations", path / "brain")
        elif is_dir(path):
            found += _targets_in(path, path.parent / "brain" if path.name == "conversations" else path / "brain")
        else:
            raise InputError(f"{path}: not a store root, sweep corpus, directory or <uuid>.db file")
    return found


def _targets_in(directory: Path, brains: Path) -> list[SessionTarget]:
    if not is_dir(directory):
        return []
    names = sorted(e.name for e in list_dir(directory) if _DB_NAME.fullmatch(e.name) and e.is_file(follow_symlinks=False))
    return [target_of(directory / name, brains) for name in names]


def target_of(db: Path, brains: Path) -> SessionTarget:
    """The session of *db* whose brain directory, if any, is ``brains/<id>/``."""
    cid = db.name[:-3].lower()
    brain = brains / cid
    return SessionTarget(cid, db, brain if path_kind(brain, follow_symlinks=False) == DIRECTORY else None)
