"""The writer lock: one agy-audit writer per sidecar directory at a time.

Every command that writes sidecars (``completeness --attest``, ``links backfill``, ``links
repair``, ``links rollback``) holds the lock of the directory it writes in -- a store's
``conversations/`` -- from before it reads what it will decide on until its last write (and a
repair's verification) is done, so two of our writers never interleave: the second one waits,
up to its timeout, then refuses (``StoreLocked``, exit 1: the store is busy) naming the
directory and, where the platform tells, the holder's pid.

Where the lock lives. On the directory itself: an exclusive ``flock(2)`` of a read-only
descriptor of it. Nothing is written into the store -- no lock file that agy-reader, agy or a
consumer listing ``conversations/`` could trip on -- and every path to the directory (a
symbolic link, a bind mount) and every user meets the same lock, released by the kernel when
the holder exits, however it exits (a SIGKILLed holder leaves no stale lock). agy-reader's own
writers take no lock at all (it writes sidecars with a temp file and a rename); they are told
apart by the busy-store checks instead (a sidecar that changed since it was read is never
written over). On Linux the holder's pid is read from ``/proc/locks``.

Where a directory cannot be locked (Windows has no ``flock``; NFS emulates it with byte-range
locks, which a directory's read-only descriptor cannot take) the lock is taken on a file in the
user's cache directory named after the directory's real path
(``<cache>/agy-audit/locks/<sha256>.lock``, holding the holder's pid): ``flock`` of it, or on
Windows a byte-range lock (``msvcrt.locking``). It serialises the writers of that user on that
path (a directory reached by two paths is then two locks); the kernel still releases it when
the holder exits.

The lock is re-entrant per thread: a writer holding a directory may take it again (a repair's
own rollback) without waiting for itself; another thread waits as another process does.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from audit import safeio, safewrite
from audit.errors import FindingsError, InputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

DEFAULT_TIMEOUT = 30.0
"""Seconds a writer waits for another one before it refuses (``--lock-timeout``)."""
POLL = 0.05  # seconds between two attempts: a wait that Ctrl-C and SIGTERM interrupt at once
PROC_LOCKS = "/proc/locks"

_HELD: dict[tuple[int, int, int], int] = {}  # (thread, st_dev, st_ino) of a directory a thread holds -> depth


class StoreLocked(FindingsError):
    """Another writer held the lock longer than the timeout (exit 1, like any busy store)."""


def _identity(directory: Path) -> tuple[int, int]:
    try:
        st = os.stat(directory)
    except OSError as exc:
        raise InputError(f"{directory}: cannot lock ({exc.strerror or exc})") from None
    return st.st_dev, st.st_ino


@contextlib.contextmanager
def held(
    directories: Iterable[str | os.PathLike[str]],
    *,
    timeout: float = DEFAULT_TIMEOUT,
    waiting: Callable[[str], None] | None = None,
) -> Iterator[None]:
    """Hold the writer lock of every one of *directories* (taken in one order, so two writers of
    several directories cannot deadlock). A held lock is waited for up to *timeout* seconds
    (``waiting(message)`` is called once when the wait starts), then ``StoreLocked``."""
    unique = {_identity(Path(d)): Path(d) for d in directories}
    with contextlib.ExitStack() as stack:
        for key in sorted(unique):
            stack.enter_context(_one(unique[key], key, timeout, waiting))
        yield


@contextlib.contextmanager
def _one(directory: Path, key: tuple[int, int], timeout: float, waiting: Callable[[str], None] | None) -> Iterator[None]:
    mine = (threading.get_ident(), *key)
    if mine in _HELD:  # this thread holds it already
        _HELD[mine] += 1
        try:
            yield
        finally:
            _HELD[mine] -= 1
        return
    fd = _lock(directory, key, timeout, waiting)
    _HELD[mine] = 1
    try:
        yield
    finally:
        del _HELD[mine]
        os.close(fd)  # releases the lock


def _lock(directory: Path, key: tuple[int, int], timeout: float, waiting: Callable[[str], None] | None) -> int:
    fd, on_directory = _descriptor(directory)
    try:
        deadline = time.monotonic() + timeout
        told = False
        while True:
            try:
                if _try_lock(fd):
                    break
            except OSError as exc:  # the filesystem cannot flock a directory (NFS): its lock file instead
                if not on_directory:
                    raise InputError(f"{directory}: cannot lock ({exc.strerror or exc})") from None
                os.close(fd)
                fd, on_directory = _descriptor(directory, on_directory=False)
                continue
            holder = _holder(key, None if on_directory else fd)
            if time.monotonic() >= deadline:
                raise StoreLocked(
                    f"{directory}: another agy-audit writer{holder} holds this store's writer lock; gave up after "
                    f"{timeout:g}s (wait for it to finish, or give a longer --lock-timeout)"
                )
            if not told and waiting is not None:
                waiting(f"{directory}: waiting for another agy-audit writer{holder} (at most {timeout:g}s)")
                told = True
            time.sleep(POLL)
        if not on_directory:
            os.lseek(fd, _PID_AT, os.SEEK_SET)
            os.write(fd, f"{os.getpid():<20}\n".encode())
        return fd
    except BaseException:
        os.close(fd)
        raise


_FLOCK = fcntl is not None and hasattr(fcntl, "flock")


def _descriptor(directory: Path, *, on_directory: bool | None = None) -> tuple[int, bool]:
    """A descriptor to lock and whether it is the directory's own (by default where ``flock``
    exists), else its lock file's."""
    on_directory = _FLOCK if on_directory is None else on_directory
    try:
        if on_directory:
            return os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | safeio.O_CLOEXEC), True
        return safeio.open_nofollow(_lock_file(directory), os.O_RDWR | os.O_CREAT | safeio.O_CLOEXEC, 0o600), False
    except OSError as exc:
        raise InputError(f"{directory}: cannot lock ({exc.strerror or exc})") from None


def lock_dir() -> Path:
    """Where lock files go (see the module's docstring): ``<user cache>/agy-audit/locks``."""
    base = os.environ.get("LOCALAPPDATA") if os.name == "nt" else os.environ.get("XDG_CACHE_HOME")
    return Path(base or Path.home() / ".cache") / "agy-audit" / "locks"


def _lock_file(directory: Path) -> Path:
    real = os.path.normcase(os.path.realpath(directory))
    return safewrite.make_private_dir(lock_dir(), exist_ok=True) / f"{hashlib.sha256(os.fsencode(real)).hexdigest()[:32]}.lock"


_PID_AT = 64  # a lock file holds its holder's pid past the locked byte, where others can read it


def _try_lock(fd: int) -> bool:
    """Lock *fd* without waiting: False when another holds it; ``OSError`` when it cannot be."""
    if _FLOCK:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    return _lock_byte(fd)


def _lock_byte(fd: int) -> bool:  # pragma: no cover - Windows; test_portability.py stands flock in
    try:
        msvcrt = importlib.import_module("msvcrt")  # Windows only lacks flock
    except ImportError:
        raise OSError(errno.ENOTSUP, "no file locking on this platform") from None
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except PermissionError:  # EACCES: another process holds the byte
        return False
    return True


def _holder(key: tuple[int, int], lock_file: int | None) -> str:
    """`` (pid N)`` of the process holding the lock (of the directory *key*, or in *lock_file*),
    when the platform tells; else empty."""
    pid = _flock_holder(key) if lock_file is None else _file_holder(lock_file)
    return f" (pid {pid})" if pid is not None else ""


def _flock_holder(key: tuple[int, int]) -> int | None:
    """The pid ``/proc/locks`` gives for a FLOCK WRITE lock on the inode *key* (Linux)."""
    device, inode = key
    wanted = f"{os.major(device):02x}:{os.minor(device):02x}:{inode}"
    try:
        with open(PROC_LOCKS, encoding="ascii", errors="replace") as fh:
            for line in fh:
                fields = line.split()
                # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:56789 0 EOF"; a waiter's line has "->" second
                if len(fields) >= 6 and fields[1] == "FLOCK" and fields[3] == "WRITE" and fields[5] == wanted:
                    return int(fields[4]) if fields[4].isdigit() else None
    except OSError:
        return None
    return None


def _file_holder(fd: int) -> int | None:
    try:
        os.lseek(fd, _PID_AT, os.SEEK_SET)
        text = os.read(fd, 21).decode("ascii", "replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None
