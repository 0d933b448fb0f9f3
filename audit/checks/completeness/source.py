"""A sidecar's native source read: one consistent, decoded snapshot of its ``.db`` (or legacy ``.pb``).

``Source`` holds the reconstruction, its projected steps and its ``contentSha256``; a ``.db`` is
read between two identical stats of ``.db`` and ``-wal`` (``read_source``, retried while it
changes), a legacy ``.pb`` with the user's key (``read_legacy_source``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.checks.completeness.step_projection import projection
from audit.errors import InputError
from audit.store.database import NativeConversation, read_database
from audit.store.legacy_pb import Key, read_legacy
from audit.store.trajectory import NativeTrajectory, reconstruct

_READ_PAUSES = (0.0, 0.02, 0.05, 0.1, 0.25)
"""Seconds to wait before each attempt at one consistent read of a source that keeps changing."""


def content_sha256(db: str | os.PathLike[str]) -> str:
    """``contentSha256`` of the database at *db*: the digest of one read-only snapshot's rows."""
    conv = read_database(db)
    if not conv.access:
        raise InputError("; ".join(f.message for f in conv.findings) or f"{db}: cannot read")
    return conv.content_sha256()


def _wal(db: Path) -> Path:
    return db.with_name(db.name + "-wal")


def _stats(db: Path) -> tuple[tuple[int, int, int] | None, ...]:
    out: list[tuple[int, int, int] | None] = []
    for path in (db, _wal(db)):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            out.append(None)
        except OSError as exc:
            raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None
        else:
            out.append((st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(out)


@dataclass(frozen=True)
class Source:
    """One decoded snapshot of a sidecar's ``.db``: the reconstruction, whether the WAL index
    stood still while it was read (``stable``), the projection of its steps, and its
    ``contentSha256`` (``digest()``: computed when an evidence needs it, i.e. a complete verdict
    with details)."""

    native: NativeTrajectory
    stable: bool
    steps: list[Any]  # ``projection(native.trajectory)[1]``
    digest: Callable[[], str]


def source_of(conv: NativeConversation, native: NativeTrajectory) -> Source:
    """The ``Source`` of a snapshot already read (``native = reconstruct(conv)``), e.g. a sweep's
    backup copy of the ``.db``: one read transaction, so as consistent as ``read_source``'s."""
    return Source(native, not conv.wal_index_changed, projection(native.trajectory)[1], conv.content_sha256)


def read_legacy_source(pb: Path, key: Key) -> Source:
    """The ``Source`` of a legacy ``.pb`` decrypted with the user's *key* (one authenticated read)."""
    conv = read_legacy(pb, key)
    return source_of(conv, reconstruct(conv))


def read_source(db: Path) -> Source:
    """The ``Source`` of one snapshot read between identical stats; ``stable`` is False when the
    WAL index moved during every such read."""
    moving = None
    for pause in _READ_PAUSES:
        time.sleep(pause)
        before = _stats(db)
        conv = read_database(db)
        if _stats(db) != before:
            continue
        found = source_of(conv, reconstruct(conv))
        if found.stable:
            return found
        moving = found
    if moving is not None:
        return moving
    raise InputError(
        f"{db}: kept changing while being read ({len(_READ_PAUSES)} attempts); "
        "a conversation in progress? check again when it is idle"
    )
