"""A private copy of the Antigravity stores of a home, made without writing the source.

``copy_stores(home, dest)`` copies every store root discovery finds in ``<home>/.gemini``
(``antigravity``, ``antigravity-cli`` ...) to ``<dest>/.gemini/<name>``, file by file:

* a ``.db`` file is copied through SQLite's backup API from a read-only snapshot
  (``sweep.backup_database``): one consistent image holding the committed ``-wal`` pages, so its
  ``-wal``, ``-shm`` and ``-journal`` are not copied (a ``.db`` SQLite cannot open is copied as its
  bytes);
* any other regular file is read (never for writing) and written as a new file;
* a symbolic link is recreated when it is relative and stays inside its root (``cli.log``, which
  names the current log: docs/store-format.md#roots); any other link, FIFO, socket or device, and a file
  that cannot be read, is skipped and listed with the reason.

Every copied file and directory gets the modification time of its source (a reader that sorts
sessions by time sees the same order), private modes (0600 files, 0700 directories). Nothing is
fsynced: a copy is a scratch input, made again when lost.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from audit.actions.sweep import backup_database
from audit.errors import AuditError, InputError, NothingToCheck
from audit.safeio import read_bytes
from audit.safewrite import create_in_private_dir, make_private_dir
from audit.store import layout

SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
"""What a ``.db`` image holds already: never copied beside a ``.db``."""


@dataclass
class StoreCopy:
    """What ``copy_stores`` copied: the roots (their names under ``.gemini``), how many files and
    links, and what it left out (path relative to the home, why)."""

    roots: list[str] = field(default_factory=list)
    files: int = 0
    links: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)


def store_roots(home: str | os.PathLike[str]) -> list[layout.Root]:
    """The store roots discovery finds in ``<home>/.gemini`` (``$ANTIGRAVITY_CLI_ROOT`` ignored:
    what is copied is the home); none is ``NothingToCheck``."""
    roots = layout.resolve_roots(home=home, env={})
    if not roots:
        raise NothingToCheck(f"{Path(home) / '.gemini'}: no Antigravity store (antigravity*) found")
    return roots


def copy_stores(home: str | os.PathLike[str], dest: str | os.PathLike[str]) -> StoreCopy:
    """Copy the stores of *home* into the home *dest* (which must not exist; made 0700)."""
    home, dest = Path(home).absolute(), Path(dest)
    roots = store_roots(home)
    make_private_dir(dest / ".gemini")
    copied = StoreCopy()
    for root in roots:
        copied.roots.append(root.path.name)
        _copy_tree(root.path, dest / ".gemini" / root.path.name, home, copied)
    st = os.stat(home / ".gemini")
    os.utime(dest / ".gemini", ns=(st.st_mtime_ns, st.st_mtime_ns))
    return copied


def _copy_tree(source: Path, dest: Path, home: Path, copied: StoreCopy) -> None:
    """Copy the directory *source* to *dest*: files, then the directory times (deepest first,
    after everything in them is written)."""
    make_private_dir(dest)
    directories = [(source, dest)]
    stack = [(source, dest)]
    while stack:
        src_dir, dst_dir = stack.pop()
        try:
            entries = sorted(os.scandir(src_dir), key=lambda e: e.name)
        except OSError as exc:
            copied.skipped.append((_rel(Path(src_dir), home), f"cannot list ({exc.strerror or exc})"))
            continue
        names = {e.name for e in entries}
        for entry in entries:
            src, dst = Path(entry.path), dst_dir / entry.name
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError as exc:
                copied.skipped.append((_rel(src, home), f"cannot stat ({exc.strerror or exc})"))
                continue
            if stat.S_ISDIR(st.st_mode):
                make_private_dir(dst)
                directories.append((src, dst))
                stack.append((src, dst))
            elif stat.S_ISLNK(st.st_mode):
                _copy_link(src, dst, st, source, home, copied)
            elif not stat.S_ISREG(st.st_mode):
                copied.skipped.append((_rel(src, home), "not a regular file (a FIFO, socket or device)"))
            elif entry.name.endswith(SQLITE_SIDE_FILES) and _database_of(entry.name) in names:
                continue  # its pages are in the image of the .db
            else:
                _copy_file(src, dst, st, home, copied)
    for src, dst in reversed(directories):
        st = os.stat(src, follow_symlinks=False)
        os.utime(dst, ns=(st.st_mtime_ns, st.st_mtime_ns))


def _database_of(name: str) -> str:
    for suffix in SQLITE_SIDE_FILES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _copy_file(src: Path, dst: Path, st: os.stat_result, home: Path, copied: StoreCopy) -> None:
    try:
        data = _database_image(src) if src.name.endswith(".db") else None
        if data is None:
            data = read_bytes(src)
    except InputError as exc:
        copied.skipped.append((_rel(src, home), _reason(exc.message, src)))
        return
    create_in_private_dir(str(dst), data)
    os.utime(dst, ns=(st.st_mtime_ns, st.st_mtime_ns))
    copied.files += 1


def _database_image(path: Path) -> bytes | None:
    """The backup-API image of the database at *path*; None when SQLite cannot open it (a reader
    then meets its bytes as they are)."""
    try:
        return backup_database(path)
    except AuditError:
        return None


def _copy_link(src: Path, dst: Path, st: os.stat_result, top: Path, home: Path, copied: StoreCopy) -> None:
    try:
        target = os.readlink(src)
    except OSError as exc:
        copied.skipped.append((_rel(src, home), f"cannot read the link ({exc.strerror or exc})"))
        return
    resolved = os.path.normpath(os.path.join(src.parent, target))
    if os.path.isabs(target) or not (resolved + os.sep).startswith(str(top) + os.sep):
        copied.skipped.append((_rel(src, home), "a symbolic link out of its store root"))
        return
    os.symlink(target, dst)
    if os.utime in os.supports_follow_symlinks:
        os.utime(dst, ns=(st.st_mtime_ns, st.st_mtime_ns), follow_symlinks=False)
    copied.links += 1


def _rel(path: Path, home: Path) -> str:
    try:
        return path.relative_to(home).as_posix()
    except ValueError:
        return str(path)


def _reason(message: str, path: Path) -> str:
    """An ``InputError`` message without the path it starts with (the listing names it)."""
    return message.removeprefix(f"{path}: ")


def remove_tree(path: str | os.PathLike[str]) -> None:
    """Remove a copy and whatever a command left in it, even a directory it made unwritable; a
    missing one is fine."""

    def writable(function: object, name: str, *_: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), stat.S_IRWXU)
            if stat.S_ISDIR(os.lstat(name).st_mode):
                os.chmod(name, stat.S_IRWXU)
                shutil.rmtree(name, ignore_errors=True)
            else:
                os.unlink(name)

    if sys.version_info >= (3, 12):
        shutil.rmtree(path, onexc=writable)
    else:
        shutil.rmtree(path, onerror=writable)
