"""Writing parent stamps: a resolution's stamps and clears into the sidecars (``audit.checks.links``
resolves them, read-only)."""

from __future__ import annotations

import os
from pathlib import Path

from audit.checks.links import MAX_SIDECAR_BYTES, Link, Resolution, sha256_hex
from audit.errors import FindingsError
from audit.safeio import atomic_write, read_bytes
from audit.store.stamps import PARENT_KEY, set_reader_key


def store_busy(path: Path) -> FindingsError:
    return FindingsError(
        f"{path} changed during the run: a writer holds the store. Stop every agy-reader watcher "
        "(systemd agy-reader.path and agy-reader.service, launchd, terminal --watch) and retry"
    )


def apply(resolution: Resolution) -> list[Link]:
    """Write the resolution's stamps and clears; returns the links whose file changed.

    Each file must still have the bytes and mtime it had when resolved (else ``store_busy``);
    its new bytes are spliced, written atomically and keep the old mtime.
    """
    written = []
    for link in resolution.changes:
        state = resolution.files[link.name]
        data = read_bytes(link.path, limit=MAX_SIDECAR_BYTES)
        if sha256_hex(data) != state.sha256 or os.lstat(link.path).st_mtime_ns != state.mtime_ns:
            raise store_busy(link.path)
        value = None if link.action == "clear" else f'"{link.parent}"'
        new = set_reader_key(data, PARENT_KEY, value, source=str(link.path))
        if new != data:
            atomic_write(link.path, new, mtime_ns=state.mtime_ns)
            written.append(link)
    return written
