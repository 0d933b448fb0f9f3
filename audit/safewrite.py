"""Safe I/O, writing: atomic, private writes; every file agy-audit writes goes through here.

Atomic writes (``atomic_write`` / ``create_durable_file`` / ``make_private_dir``):
  temp file in the target directory, mode 0600, fsync, optional mtime set before the rename,
  rename, fsync of the directory; on any failure the target keeps its old bytes and mtime and no
  temp file is left. Directories are created 0700. Writing to or through a symlink is refused.
  ``create_in_private_dir`` is for new names in a private directory this run made (a sweep's
  corpus): one exclusive open, no temp file, the partial file removed on failure; such files,
  written without an fsync each, are made durable together by ``sync_files`` (one ``syncfs(2)``
  on Linux 5.8+ and a ``SYNCFS_FILESYSTEMS`` filesystem, else an fsync of each file and directory).
  ``append`` adds to a file another program reads (never through a symlink either).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import re
import secrets
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from audit.errors import InputError
from audit.safeio import DIRECTORY, FILE, O_CLOEXEC, O_NOFOLLOW, O_NONBLOCK, as_path, open_nofollow, path_kind

DIRECTORY_HANDLES = os.name == "posix"
"""Whether a directory can be opened with ``os.open`` (to fsync it, or to hold it for ``syncfs``):
not on Windows, where NTFS journals directory entries itself; there they are not fsynced."""
FSYNC_NEEDS_WRITE = os.name == "nt"
"""Whether ``os.fsync`` needs a descriptor open for writing (Windows: ``FlushFileBuffers``)."""
PROCESS_PROBE = os.name == "posix"
"""Whether ``os.kill(pid, 0)`` only probes a process. On Windows it would end it: there a temp
file's writer is never presumed gone, so no temp file is removed as stale."""


def _refuse_symlink(path: str | Path) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        raise InputError(f"{path}: is a symbolic link; refusing to write through it")


def _check_target(path: Path) -> None:
    _refuse_symlink(path)
    _refuse_symlink(path.parent)
    if path_kind(path) not in (None, FILE):
        raise InputError(f"{path}: exists and is not a regular file")


def fsync_dir(directory: str | os.PathLike[str]) -> None:
    """Make *directory*'s entries durable (nothing where directories cannot be opened: Windows)."""
    if not DIRECTORY_HANDLES:
        return
    fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _set_mode(fd: int, path: str, mode: int) -> None:
    """*mode* on the file open as *fd* at *path*, whatever the umask (``fchmod``; where the platform
    has none, Windows, ``chmod`` of the path, which sets or clears only its read-only flag)."""
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)
    else:
        os.chmod(path, mode)


TEMP_PATTERN = re.compile(r"\.(?P<name>.+)\.agy(?P<pid>[0-9]+)-[A-Za-z0-9_]{8}\.tmp")
"""Our temp files: ``.<target name>.agy<pid>-<8 random>.tmp``, beside the target."""

REMOVED_TEMPS: list[Path] = []
"""Stale temp files removed by this process (the CLI reports them)."""

_CLEANED: set[str] = set()


def start_run() -> None:
    """Forget which directories were cleaned of stale temp files (the CLI calls it per command)."""
    _CLEANED.clear()
    REMOVED_TEMPS.clear()


def _pid_alive(pid: int) -> bool:
    """Whether process *pid* may be running. A pid no process can have (beyond what ``os.kill``
    takes) never came from our own naming: such a file is not ours, and is left alone."""
    if not PROCESS_PROBE:  # signal 0 would not probe it there: never presume it gone
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. EPERM: it exists, owned by someone else
        return True
    except OverflowError:
        return True
    return True


def remove_stale_temps(directory: str | os.PathLike[str]) -> list[Path]:
    """Remove our own temp files in *directory* whose writer is gone: names matching
    ``TEMP_PATTERN`` whose pid is not a running process (a SIGKILLed or crashed run). Nothing else
    is touched -- not another name, not a link, not a live writer's temp. Once per directory and
    process; what is removed is returned and added to ``REMOVED_TEMPS``."""
    key = os.path.abspath(directory)
    if key in _CLEANED:
        return []
    _CLEANED.add(key)
    removed = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    for entry in entries:
        match = TEMP_PATTERN.fullmatch(entry.name)
        if match is None or int(match["pid"]) == os.getpid() or _pid_alive(int(match["pid"])):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    REMOVED_TEMPS.extend(removed)
    return removed


def _write_temp(path: Path, data: bytes, mtime_ns: int | None, mode: int = 0o600, *, sync: bool = True) -> str:
    """Write *data* to a fresh temp file (*mode*, 0600 by default) beside *path*; returns its name
    (fsynced unless not *sync*).

    The name is chosen before the file exists and the file is created inside the ``try`` that
    removes it, so an interruption at any point (Ctrl-C, SIGTERM, whichever thread the signal
    lands on) cannot leave it behind."""
    remove_stale_temps(path.parent)
    for _attempt in range(100):
        tmp = str(path.parent / f".{path.name}.agy{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            fd = open_nofollow(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_CLOEXEC, 0o600)
            with os.fdopen(fd, "wb") as fh:
                _set_mode(fh.fileno(), tmp, mode)
                fh.write(data)
                fh.flush()
                if sync:
                    os.fsync(fh.fileno())
            if mtime_ns is not None:
                os.utime(tmp, ns=(mtime_ns, mtime_ns))
        except FileExistsError:
            continue  # another writer's temp of the same name: draw another
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
        return tmp
    raise InputError(f"{path.parent}: cannot create a temp file (every name drawn exists)")


def atomic_write(
    path: str | os.PathLike[str], data: bytes, *, mtime_ns: int | None = None, mode: int | None = None, keep_mode: bool = False
) -> None:
    """Replace (or create) *path* with *data* atomically; mode 0600 unless *mode* is given.

    With *keep_mode* an existing file keeps its permission bits, and a write-protected one
    (no owner write bit) is refused: the rename would otherwise replace it regardless.
    ``mtime_ns`` is applied to the temp file before the rename, so the visible file never
    carries another timestamp. On failure the old file is untouched and no temp file remains.
    """
    path = as_path(path)
    _check_target(path)
    if keep_mode:
        mode = _kept_mode(path, mode)
    tmp = None
    try:
        tmp = _write_temp(path, data, mtime_ns, 0o600 if mode is None else mode)
        _refuse_symlink(path)  # re-check right before the rename
        os.replace(tmp, path)
        tmp = None
        fsync_dir(path.parent)
    except OSError as exc:
        raise InputError(f"{path}: cannot write ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _kept_mode(path: Path, default: int | None) -> int | None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return default
    except OSError as exc:
        raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None
    bits = stat.S_IMODE(st.st_mode) & 0o777
    if not bits & stat.S_IWUSR:
        raise InputError(f"{path}: write-protected (mode {bits:04o}); not changed (make it writable to allow it)")
    return bits


def create_durable_file(path: str | os.PathLike[str], data: bytes, *, sync: bool = True) -> None:
    """Create *path* with *data* (0600), refusing any existing path or symlink; all or nothing.

    With ``sync=False`` neither the file nor its directory is fsynced: a writer of many files
    makes them durable together (``sync_files``) before it writes what commits to them."""
    path = as_path(path)
    if os.path.lexists(path):
        raise InputError(f"{path}: already exists; refusing to overwrite")
    _refuse_symlink(path.parent)
    tmp = None
    try:
        tmp = _write_temp(path, data, None, sync=sync)
        os.link(tmp, path)  # fails if anything appeared at path meanwhile
        if sync:
            fsync_dir(path.parent)
    except FileExistsError:
        raise InputError(f"{path}: already exists; refusing to overwrite") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot create ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def create_in_private_dir(path: str, data: bytes | Iterable[bytes]) -> None:
    """Create *path* with *data* (0600; bytes, or pieces of them made while they are written) in
    one ``O_CREAT|O_EXCL|O_NOFOLLOW`` open: no temp file, no rename, no fsync (make it durable
    with ``sync_files`` before what commits to it).

    Only for a name nothing else can create: a new file in a private (0700) directory the caller
    made in this run, such as a sweep's corpus. An existing path or a symbolic link there is
    refused (``O_EXCL``) and left alone, and so is a parent directory that is a symbolic link;
    on any failure (a full disk, Ctrl-C) what this call created at *path* is removed, so only
    whole files are left. *path* is a string; errors are ``InputError`` naming it."""
    if "\0" in path:
        as_path(path)  # the InputError naming it
    _refuse_symlink(os.path.dirname(path))
    opened = False
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | O_CLOEXEC, 0o600)
        opened = True
        with os.fdopen(fd, "wb") as fh:
            _set_mode(fh.fileno(), path, 0o600)  # whatever the umask
            if isinstance(data, bytes):
                fh.write(data)
            else:  # an exception the pieces raise removes the file, as any other
                for piece in data:
                    fh.write(piece)
    except FileExistsError:
        raise InputError(f"{path}: already exists; refusing to overwrite") from None
    except BaseException as exc:
        # Removed when this call may have made it: the open succeeded, or an interruption (not an
        # OSError of the open, which creates nothing) arrived around it; the name is ours alone.
        if opened or not isinstance(exc, OSError):
            with contextlib.suppress(OSError):
                os.unlink(path)
        if isinstance(exc, OSError):
            raise InputError(f"{path}: cannot create ({exc.strerror or exc})") from None
        raise


def filesystem_handle(directory: str | os.PathLike[str]) -> int:
    """A descriptor on *directory* for ``sync_files(..., filesystem=fd)``: opened before the files
    are written, so that ``syncfs(2)`` on it reports every writeback error on that filesystem
    since (the caller closes it). ``OSError`` where directories cannot be opened (Windows)."""
    if not DIRECTORY_HANDLES:
        raise OSError(errno.ENOTSUP, "directories cannot be opened on this platform", str(directory))
    return os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | O_NOFOLLOW | O_CLOEXEC)


_SYNCFS_SINCE = (5, 8)  # Linux reports writeback errors from syncfs(2) since 5.8; before, only EBADF
SYNCFS_FILESYSTEMS = {0xEF53: "ext2/3/4", 0x58465342: "xfs", 0x9123683E: "btrfs", 0xF2F52010: "f2fs", 0x01021994: "tmpfs"}
"""``statfs`` magic numbers of the local filesystems whose ``syncfs`` writes every dirty page and
inode and commits its journal (tmpfs: nothing is durable there, by fsync either). Elsewhere -- FUSE
(which sends no fsync to its server on syncfs unless it opts in), network and stacked filesystems
-- each file is fsynced."""


def _kernel_reports_syncfs_errors(release: str) -> bool:
    """Whether a Linux kernel release string (``os.uname().release``) is 5.8 or later."""
    match = re.match(r"([0-9]+)\.([0-9]+)", release)
    return match is not None and (int(match[1]), int(match[2])) >= _SYNCFS_SINCE


@functools.cache
def _libc(name: str, argtypes: tuple[type, ...]) -> Callable[..., int] | None:
    """A libc function through ctypes, on Linux 5.8+ only (looked up once); None when absent."""
    if not sys.platform.startswith("linux") or not _kernel_reports_syncfs_errors(os.uname().release):
        return None
    try:
        function = ctypes.CDLL(None, use_errno=True)[name]
    except (OSError, AttributeError):
        return None
    function.argtypes, function.restype = list(argtypes), ctypes.c_int
    return function


def _syncfs_function() -> Callable[[int], int] | None:
    return _libc("syncfs", (ctypes.c_int,))


def _filesystem_type(fd: int) -> int | None:
    """The ``f_type`` of ``fstatfs(2)`` on *fd* (the first member of ``struct statfs``), or None."""
    function = _libc("fstatfs", (ctypes.c_int, ctypes.c_void_p))
    if function is None:
        return None
    buffer = ctypes.create_string_buffer(512)  # larger than struct statfs on every Linux ABI
    if function(fd, buffer) != 0:
        return None
    return ctypes.c_long.from_buffer(buffer).value & 0xFFFFFFFF


def syncfs(fd: int) -> bool:
    """Write every dirty page and inode of the filesystem holding *fd* to disk (Linux ``syncfs(2)``,
    through ctypes: ``os`` does not expose it). True when it ran and succeeded; False when it is
    unavailable (not Linux, a kernel before 5.8 whose syncfs reports no writeback error, no libc
    symbol, a filesystem not in ``SYNCFS_FILESYSTEMS``) or failed (an I/O error anywhere on that
    filesystem since *fd* was opened)."""
    function = _syncfs_function()
    return function is not None and _filesystem_type(fd) in SYNCFS_FILESYSTEMS and function(fd) == 0


def sync_files(paths: Iterable[str | os.PathLike[str]], top: str | os.PathLike[str], *, filesystem: int | None = None) -> None:
    """Make files written with ``sync=False`` (or by ``create_in_private_dir``) durable, with their
    directories from their parents up to *top* (inclusive).

    With *filesystem* (a ``filesystem_handle`` on *top*, opened before the files were written,
    all of them on its filesystem) one ``syncfs`` does it when it succeeds. Otherwise, or when it
    fails, each file is fsynced, then each of those directories once, children first, so that
    new directories' entries are durable too. Raises ``InputError`` naming the first file or
    directory that cannot be synced."""
    if filesystem is not None and syncfs(filesystem):
        return
    top = as_path(top)
    directories: dict[Path, None] = {}
    for name in paths:
        path = as_path(name)
        _fsync_path(path, os.O_RDWR if FSYNC_NEEDS_WRITE else os.O_RDONLY)
        parent = path.parent
        while parent not in directories and (parent == top or top in parent.parents):
            directories[parent] = None
            parent = parent.parent
    if not DIRECTORY_HANDLES:  # see DIRECTORY_HANDLES
        return
    for directory in sorted(directories, key=lambda d: len(d.parts), reverse=True):  # children before parents
        _fsync_path(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))


def _fsync_path(path: Path, flags: int) -> None:
    try:
        fd = open_nofollow(path, flags)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        raise InputError(f"{path}: cannot sync to disk ({exc.strerror or exc})") from None


def append(path: str | os.PathLike[str], data: bytes) -> None:
    """Append *data* to *path* (created 0600 when missing), e.g. a CI job summary file that its
    runner reads afterwards. A symbolic link at *path* is refused, and so is anything but a
    regular file -- a FIFO or a device -- without blocking: the open is non-blocking and checked
    (where the platform has no ``O_NONBLOCK`` the path is ``stat``-ed first). The data is fsynced."""
    path = as_path(path)
    not_regular = InputError(f"{path}: not a regular file; not written")
    if not O_NONBLOCK and path_kind(path) not in (None, FILE):
        raise not_regular
    try:
        fd = open_nofollow(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | O_CLOEXEC | O_NONBLOCK, 0o600)
    except OSError as exc:
        if os.path.islink(path):
            raise InputError(f"{path}: is a symbolic link; refusing to write through it") from None
        if exc.errno == errno.ENXIO:  # a FIFO nobody reads
            raise not_regular from None
        raise InputError(f"{path}: cannot append ({exc.strerror or exc})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise not_regular
        if O_NONBLOCK:
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    try:
        with os.fdopen(fd, "ab") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except OSError as exc:
        raise InputError(f"{path}: cannot append ({exc.strerror or exc})") from None


def make_private_dir(path: str | os.PathLike[str], *, exist_ok: bool = False) -> Path:
    """Create *path* (and missing parents) with mode 0700. A symlink counts as existing."""
    path = as_path(path)
    if os.path.lexists(path):
        if exist_ok and path_kind(path, follow_symlinks=False) == DIRECTORY:
            return path
        raise InputError(f"{path}: already exists")
    missing: list[Path] = []
    parent = path
    while not os.path.lexists(parent):
        missing.append(parent)
        parent = parent.parent
    try:
        for directory in reversed(missing):
            os.mkdir(directory, 0o700)
            os.chmod(directory, 0o700)
    except OSError as exc:
        raise InputError(f"{path}: cannot create directory ({exc.strerror or exc})") from None
    return path
