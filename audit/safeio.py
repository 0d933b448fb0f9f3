"""Safe I/O, reading: opening only regular files (never blocking on a FIFO or a device), what is at
a path, and reading a file whole within a size limit. Every module that reads a user file goes
through here; its JSON text through ``audit.strictjson``, every write through ``audit.safewrite``.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any, BinaryIO

from audit.errors import InputError, UsageError
from audit.strictjson import loads

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024
"""The one size limit for a JSON document read whole -- a sidecar (every command) or a daemon
answer: 256 MiB. Parsing holds about five times a document's size in Python objects, so this
keeps one document under about 1.5 GB of memory; larger ones are refused, naming the file."""
# What the platform offers, each checked where it is used (tests/reliability/test_portability.py
# runs the readers and the sweep with every one of them patched away). Open flags some platforms lack are
# 0 there: Windows has no O_NOFOLLOW, O_NONBLOCK or O_CLOEXEC, and needs O_BINARY, without which
# a descriptor reads and writes text (CRLF translated, Ctrl-Z read as the end of the file).
O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
O_BINARY = getattr(os, "O_BINARY", 0)


def open_nofollow(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
    """``os.open`` in binary mode that refuses a symbolic link at *path* (``O_NOFOLLOW``; where the
    platform has none, an ``lstat`` check first: best effort there)."""
    if not O_NOFOLLOW and os.path.islink(path):
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    return os.open(path, flags | O_NOFOLLOW | O_BINARY, mode)


class NotRegular(OSError):
    """A path that is not a regular file, refused before a byte is read (``directory``: it is one)."""

    def __init__(self, path: str | os.PathLike[str], directory: bool) -> None:
        super().__init__(errno.EINVAL, "not a regular file", str(path))
        self.directory = directory


def open_regular_fd(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> int:
    """A descriptor reading *path* (binary, close-on-exec), only when it is a regular file.

    The open never blocks: it is non-blocking (a FIFO or a device answers at once), then the
    descriptor is checked with ``fstat`` and made blocking again. Where the platform has no
    ``O_NONBLOCK`` the path is ``stat``-ed first, and a FIFO or device is refused without being
    opened. Raises ``NotRegular`` (an ``OSError``) for anything but a regular file, and whatever
    ``OSError`` the open raises (``ELOOP`` for a link when not *follow_symlinks*)."""
    if not O_NONBLOCK:
        st = os.stat(path, follow_symlinks=follow_symlinks)
        if stat.S_ISLNK(st.st_mode):  # not followed: refused as the open would refuse it
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotRegular(path, stat.S_ISDIR(st.st_mode))
    flags = os.O_RDONLY | O_NONBLOCK | O_CLOEXEC
    fd = os.open(path, flags | O_BINARY) if follow_symlinks else open_nofollow(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, stat.S_ISDIR(mode))
        if O_NONBLOCK:
            os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def as_path(path: str | os.PathLike[str]) -> Path:
    """*path* as a ``Path`` (itself when it is one); a NUL byte, which no file system accepts, is
    an ``InputError``."""
    text = os.fsdecode(path)
    if "\0" in text:
        shown = text.replace("\0", "\\0")
        raise InputError(f"{shown}: path contains a NUL byte")
    return path if isinstance(path, Path) else Path(text)


# ----------------------------------------------------------------------------- what is at a path

FILE, DIRECTORY, LINK, OTHER = "file", "directory", "link", "other"


def path_kind(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> str | None:
    """What is at *path*: ``"file"``, ``"directory"``, ``"other"`` (a FIFO, device, socket) or,
    without *follow_symlinks*, ``"link"``; None when nothing is (a missing entry, a parent that is
    not a directory, a dangling or looping link). Every other ``OSError`` -- permission denied, a
    name too long -- is an ``InputError`` naming the path and the reason (``Path.is_dir()`` and
    friends raise them on Python 3.11). The one helper every "is it there" question goes through."""
    path = as_path(path)
    try:
        st = os.stat(path) if follow_symlinks else os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if follow_symlinks and exc.errno == errno.ELOOP:
            return None
        raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None
    if stat.S_ISLNK(st.st_mode):
        return LINK
    if stat.S_ISDIR(st.st_mode):
        return DIRECTORY
    return FILE if stat.S_ISREG(st.st_mode) else OTHER


def is_dir(path: str | os.PathLike[str]) -> bool:
    """``path_kind(path) == "directory"`` (links followed)."""
    return path_kind(path) == DIRECTORY


def is_file(path: str | os.PathLike[str]) -> bool:
    """``path_kind(path) == "file"`` (a regular file; links followed)."""
    return path_kind(path) == FILE


def exists(path: str | os.PathLike[str]) -> bool:
    """Whether anything is at *path* (links followed)."""
    return path_kind(path) is not None


MAX_FILE_BYTES_VARIABLE = "AGY_AUDIT_MAX_FILE_BYTES"
DEFAULT_MAX_FILE_BYTES = 64 * 1024 * 1024
_SIZE = re.compile(r"([0-9]{1,15}) ?([KMG]?)(?:I?B)?")


def max_file_bytes() -> int:
    """The size limit of a file agy-audit reads back whole that is not a store's own -- a backup
    manifest, a sweep corpus manifest, a consumer profile, a baseline and its snapshots, a
    compatibility file: 64 MiB, or ``$AGY_AUDIT_MAX_FILE_BYTES`` (bytes, or with a K, M or G
    suffix: KiB, MiB, GiB). A larger file is refused before it is read, naming it."""
    text = os.environ.get(MAX_FILE_BYTES_VARIABLE, "").strip().upper()
    if not text:
        return DEFAULT_MAX_FILE_BYTES
    match = _SIZE.fullmatch(text)
    if match is None or int(match[1]) == 0:
        raise UsageError(f"{MAX_FILE_BYTES_VARIABLE}={text!r}: not a size in bytes (e.g. 67108864 or 64M)")
    return int(match[1]) << {"": 0, "K": 10, "M": 20, "G": 30}[match[2]]


def read_json(path: str | os.PathLike[str], *, exact: bool = False, require_object: bool = True) -> Any:
    """Read and strictly parse a JSON file of at most ``max_file_bytes()``; unreadable files raise
    ``InputError`` naming it."""
    return loads(read_own(path), source=str(path), exact=exact, require_object=require_object)


def read_own(path: str | os.PathLike[str]) -> bytes:
    """``read_bytes`` of a file of at most ``max_file_bytes()`` (see there): our own files read back."""
    return read_bytes(path, limit=max_file_bytes(), limit_name=MAX_FILE_BYTES_VARIABLE)


def open_regular(path: str | os.PathLike[str], *, follow_symlinks: bool = True) -> BinaryIO:
    """*path* opened for reading, only when it is a regular file (``open_regular_fd``: the open
    never blocks). Anything else is an ``InputError`` ("not a regular file; not read", or "is a
    directory"); ``OSError`` from the open propagates for the caller to word.
    """
    path = as_path(path)
    try:
        fd = open_regular_fd(path, follow_symlinks=follow_symlinks)
    except NotRegular as exc:
        raise InputError(f"{path}: is a directory" if exc.directory else f"{path}: not a regular file; not read") from None
    try:
        return open(fd, "rb", closefd=True)  # noqa: SIM115 - the caller closes it
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path: str | os.PathLike[str], *, limit: int | None = None, limit_name: str = "") -> bytes:
    """Read a regular file, refusing more than *limit* bytes (*limit_name*: the setting that
    raises it, named in the refusal); errors name the file. A FIFO, device or socket is refused
    without blocking (``open_regular``)."""
    path = as_path(path)
    too_large = f"{path}: larger than {limit} bytes" + (f" (the limit {limit_name} sets); not read" if limit_name else "")
    try:
        with open_regular(path) as fh:
            size = os.fstat(fh.fileno()).st_size
            if limit is not None and size > limit:
                raise InputError(too_large)
            # one byte more than the size shows growth; never a buffer of *limit* bytes
            data = fh.read() if limit is None else fh.read(min(size, limit) + 1)
            if limit is not None and len(data) > size:  # it grew meanwhile: the rest, up to the limit
                data += fh.read(limit + 1 - len(data))
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory") from None
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    if limit is not None and len(data) > limit:
        raise InputError(too_large)
    return data
