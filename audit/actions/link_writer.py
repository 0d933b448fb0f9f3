"""Writing parent stamps: a resolution's stamps and clears into the sidecars (``audit.checks.links``
resolves them, read-only)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from audit.actions import writelock
from audit.checks.links import Link, Resolution, resolve
from audit.errors import FindingsError, InputError
from audit.progress import Callback
from audit.safeio import read_bytes
from audit.safewrite import atomic_write
from audit.store.reader_block import PARENT_KEY, set_reader_key
from audit.store.sidecar import MAX_SIDECAR_BYTES, sha256_hex


def store_busy(path: Path) -> FindingsError:
    return FindingsError(
        f"{path} changed during the run: a writer holds the store. Stop every agy-reader watcher "
        "(systemd agy-reader.path and agy-reader.service, launchd, terminal --watch) and retry"
    )


def check_writable(path: Path) -> None:
    """``InputError`` when *path* is write-protected (no owner write bit): a stamp would replace
    it regardless of its mode, so it is refused instead."""
    try:
        bits = stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None
    if not bits & stat.S_IWUSR:
        raise InputError(f"{path}: write-protected (mode {bits:04o}); not changed (make it writable to allow it)")


def planned(resolution: Resolution, data: bytes, name: str) -> bytes:
    """The bytes *apply* writes for sidecar *name* whose current bytes are *data*."""
    link = next((link for link in resolution.changes if link.name == name), None)
    if link is None:
        return data
    value = None if link.action == "clear" else f'"{link.parent}"'
    return set_reader_key(data, PARENT_KEY, value, source=str(link.path))


def apply(resolution: Resolution) -> list[Link]:
    """Write the resolution's stamps and clears; returns the links whose file changed.

    Each file must still have the bytes and mtime it had when resolved (else ``store_busy``);
    its new bytes are spliced, written atomically and keep the old mtime.
    """
    for link in resolution.changes:  # refuse a write-protected sidecar before anything is written
        check_writable(link.path)
    written = []
    for link in resolution.changes:
        state = resolution.files[link.name]
        data = read_bytes(link.path, limit=MAX_SIDECAR_BYTES)
        if sha256_hex(data) != state.sha256 or os.lstat(link.path).st_mtime_ns != state.mtime_ns:
            raise store_busy(link.path)
        value = None if link.action == "clear" else f'"{link.parent}"'
        new = set_reader_key(data, PARENT_KEY, value, source=str(link.path))
        if new != data:
            atomic_write(link.path, new, mtime_ns=state.mtime_ns, keep_mode=True)  # mode kept; write-protected refused
            written.append(link)
    return written


def backfill(
    directory: str | os.PathLike[str],
    *,
    lock_timeout: float = writelock.DEFAULT_TIMEOUT,
    waiting: Callable[[str], None] | None = None,
    progress: Callback | None = None,
) -> Resolution:
    """Resolve *directory* and ``apply`` its stamps, holding the directory's writer lock
    (``writelock.held``) from before the sidecars are read until the last one is written.
    *progress* is told before each sidecar is read."""
    with writelock.held([directory], timeout=lock_timeout, waiting=waiting):
        resolution = resolve(directory, progress=progress)
        apply(resolution)
    return resolution
