"""One ``<uuid>.trajectory.json`` sidecar as the checks read it: a regular file (never through a
symbolic link) of at most ``MAX_SIDECAR_BYTES``, its state (size and mtime; no SHA-256, which
only a write compares, see ``FileState``) and its strict parse (``strictjson.loads``, an object at
the top level).

Completeness, the contract check and links each read a sidecar this way, so one read can serve
all three: ``ci`` reads each sidecar it checks once (``read``) and hands the result to each. A
sidecar that cannot be read so is left to each check, which reads it again and says why in its
own words.
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.errors import InputError
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.strictjson import gc_paused, loads

MAX_SIDECAR_BYTES = MAX_DOCUMENT_BYTES  # the one limit for sidecars (audit.safeio)


@dataclass(frozen=True)
class FileState:
    """A sidecar as read: its size, mtime and content hash (to detect concurrent writers).
    *sha256* is None when the read was for checking only (``read``): a write comparing it
    refuses, as it refuses a file that changed."""

    size: int
    mtime_ns: int
    sha256: str | None


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Sidecar:
    """A sidecar read and parsed: *document* is its top-level object."""

    path: Path
    state: FileState
    document: dict[str, Any]


def read(path: str | os.PathLike[str]) -> Sidecar | None:
    """*path* read and parsed as every check reads a sidecar, or None when it cannot be (not a
    regular file, unreadable, too large, not strict JSON with an object at the top level). Its
    ``state`` has no hash: what reads a sidecar this way checks it and writes nothing from it
    (hashing the bench's 290 MiB of sidecars took ``ci`` 0.3 s)."""
    path = Path(path)
    try:
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            return None
        data = read_bytes(path, limit=MAX_SIDECAR_BYTES)
        with gc_paused():
            document = loads(data, source=str(path))
    except (InputError, OSError):
        return None
    return Sidecar(path, FileState(len(data), st.st_mtime_ns, None), document)


def written(path: str | os.PathLike[str], document: dict[str, Any]) -> Sidecar | None:
    """The sidecar this run just wrote at *path* as the serialisation of *document* (a native
    sweep writes ``dumps_bytes`` of a ``.db``'s reconstruction, which ``loads`` reads back as an
    equal object): *document* itself with the file's state, so that it is not parsed again; None
    when *path* is not a regular file."""
    path = Path(path)
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return Sidecar(path, FileState(st.st_size, st.st_mtime_ns, None), document)
