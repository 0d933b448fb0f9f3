"""The ``.db`` copies of a sweep (``backup_database``): a consistent standalone image of a live
database, read through SQLite's backup API from a read-only snapshot."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from audit.errors import InputError
from audit.store import database
from audit.store.database import open_snapshot

# ----------------------------------------------------------------------------- .db copies


_BACKUP_PAGES = 1024  # pages per backup step: Python regains control (signals, the deadline) between steps


def _backup_progress(path: Path) -> Callable[[int, int, int], None]:
    """A backup-API progress callback that turns SQLITE_BUSY/LOCKED lasting longer than the busy
    timeout into an error (the API itself retries forever); being Python code, it also lets
    Ctrl-C and SIGTERM through between steps."""
    deadline: list[float | None] = [None]

    def progress(status: int, remaining: int, total: int) -> None:
        if status not in (5, 6):  # SQLITE_BUSY, SQLITE_LOCKED
            deadline[0] = None
            return
        now = time.monotonic()
        if deadline[0] is None:
            deadline[0] = now + database.BUSY_TIMEOUT
        elif now > deadline[0]:
            raise sqlite3.OperationalError("database is locked")

    return progress


def backup_database(path: Path) -> bytes:
    """A consistent standalone image of the SQLite database at *path*, committed ``-wal`` pages included.

    SQLite's backup API copies from a read-only snapshot connection (``sqlite_store.open_snapshot``) into memory. The
    image is then marked as a rollback-journal database (header bytes 18-19 = 1; 2 means WAL): it
    holds every committed page, so opening the copy needs no ``-wal`` or ``-shm`` beside it.
    """
    try:
        with open_snapshot(path) as (source, _):
            # open_snapshot holds the read lock already (a writer holding the file under BEGIN
            # EXCLUSIVE is SQLITE_BUSY after the busy timeout, never an endless retry inside the
            # backup API); the copy runs inside that read transaction.
            memory = sqlite3.connect(":memory:")
            try:
                source.backup(memory, pages=_BACKUP_PAGES, progress=_backup_progress(path))
                image = memory.serialize()
            finally:
                memory.close()
    except sqlite3.Error as exc:
        raise InputError(f"{path}: cannot copy the database ({exc})") from None
    return image[:18] + b"\x01\x01" + image[20:] if len(image) >= 100 else image
