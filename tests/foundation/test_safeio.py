import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from audit import safeio, safewrite
from audit.errors import InputError

# ----------------------------------------------------------------------------- reading


def test_read_json_errors_name_the_file(tmp_path):
    with pytest.raises(InputError, match="missing.json: no such file"):
        safeio.read_json(tmp_path / "missing.json")
    with pytest.raises(InputError, match="is a directory"):
        safeio.read_json(tmp_path)
    big = tmp_path / "big.json"
    big.write_bytes(b"{}" + b" " * 100)
    with pytest.raises(InputError, match="larger than 10 bytes"):
        safeio.read_bytes(big, limit=10)


# ----------------------------------------------------------------------------- atomic writes


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_atomic_write_creates_private_file_with_mtime(tmp_path):
    target = tmp_path / "out.json"
    safewrite.atomic_write(target, b"{}\n", mtime_ns=1_700_000_000_123_456_789)
    assert target.read_bytes() == b"{}\n"
    assert _mode(target) == 0o600
    assert os.stat(target).st_mtime_ns == 1_700_000_000_123_456_789
    assert os.listdir(tmp_path) == ["out.json"]


@pytest.mark.parametrize("fail_at", ["write", "fsync", "utime", "replace"])
def test_failure_keeps_old_bytes_and_mtime_and_leaves_no_temp(tmp_path, monkeypatch, fail_at):
    target = tmp_path / "side.trajectory.json"
    target.write_bytes(b"old")
    os.utime(target, ns=(1_600_000_000_000_000_000, 1_600_000_000_000_000_000))

    def boom(*args, **kwargs):
        raise OSError(28, "No space left on device")

    if fail_at == "write":
        real_fdopen = os.fdopen

        class _Failing:
            def __init__(self, fh):
                self.fh = fh

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                self.fh.close()

            def fileno(self):
                return self.fh.fileno()

            def write(self, data):
                raise OSError(28, "No space left on device")

        monkeypatch.setattr(os, "fdopen", lambda fd, mode: _Failing(real_fdopen(fd, mode)))
    else:
        monkeypatch.setattr(os, {"fsync": "fsync", "utime": "utime", "replace": "replace"}[fail_at], boom)
    with pytest.raises(InputError, match="cannot write .*No space left on device"):
        safewrite.atomic_write(target, b"new", mtime_ns=1_700_000_000_000_000_000)
    monkeypatch.undo()
    assert target.read_bytes() == b"old"
    assert os.stat(target).st_mtime_ns == 1_600_000_000_000_000_000
    assert os.listdir(tmp_path) == ["side.trajectory.json"]


def test_symlinks_are_refused(tmp_path):
    real = tmp_path / "real.json"
    real.write_bytes(b"keep")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    with pytest.raises(InputError, match="symbolic link"):
        safewrite.atomic_write(link, b"x")
    with pytest.raises(InputError, match="already exists"):
        safewrite.create_durable_file(link, b"x")
    realdir = tmp_path / "d"
    realdir.mkdir()
    linkdir = tmp_path / "ld"
    linkdir.symlink_to(realdir)
    with pytest.raises(InputError, match="symbolic link"):
        safewrite.atomic_write(linkdir / "f.json", b"x")
    assert real.read_bytes() == b"keep"
    assert os.listdir(realdir) == []


def test_create_durable_file_refuses_existing_and_is_private(tmp_path):
    target = tmp_path / "new.json"
    safewrite.create_durable_file(target, b"1")
    assert _mode(target) == 0o600 and target.read_bytes() == b"1"
    with pytest.raises(InputError, match="already exists"):
        safewrite.create_durable_file(target, b"2")
    assert target.read_bytes() == b"1"
    assert sorted(os.listdir(tmp_path)) == ["new.json"]


def test_create_in_private_dir_writes_whole_private_files_in_one_open(tmp_path, monkeypatch):
    target = f"{tmp_path}/new.json"
    old = os.umask(0o277)  # a umask that would take the owner's write bit: the file is 0600 anyway
    try:
        safewrite.create_in_private_dir(target, b"1")
    finally:
        os.umask(old)
    assert _mode(target) == 0o600 and open(target, "rb").read() == b"1"
    with pytest.raises(InputError) as info:
        safewrite.create_in_private_dir(target, b"2")
    assert info.value.message == f"{target}: already exists; refusing to overwrite"
    assert open(target, "rb").read() == b"1" and sorted(os.listdir(tmp_path)) == ["new.json"]  # no temp file, ever


def test_create_in_private_dir_refuses_links_and_leaves_them(tmp_path):
    real = tmp_path / "real"
    real.write_bytes(b"keep")
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "dir").mkdir()
    (tmp_path / "linkdir").symlink_to(tmp_path / "dir")
    for name in ("link", "dangling"):
        with pytest.raises(InputError) as info:
            safewrite.create_in_private_dir(f"{tmp_path}/{name}", b"x")
        assert info.value.message == f"{tmp_path}/{name}: already exists; refusing to overwrite"
        assert os.path.islink(tmp_path / name)
    with pytest.raises(InputError) as info:
        safewrite.create_in_private_dir(f"{tmp_path}/linkdir/f", b"x")
    assert info.value.message == f"{tmp_path}/linkdir: is a symbolic link; refusing to write through it"
    assert real.read_bytes() == b"keep" and not (tmp_path / "nowhere").exists() and os.listdir(tmp_path / "dir") == []


class _FailingFile:
    """A file object whose write stores half of *data*, then raises *error*."""

    def __init__(self, fh, error: BaseException) -> None:
        self._fh, self._error = fh, error

    def write(self, data: bytes) -> int:
        self._fh.write(data[: len(data) // 2])
        raise self._error

    def __getattr__(self, name):
        return getattr(self._fh, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._fh.__exit__(*exc)


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()], ids=["ENOSPC", "Ctrl-C"])
def test_create_in_private_dir_leaves_nothing_when_the_write_fails(tmp_path, monkeypatch, error):
    real = os.fdopen
    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _FailingFile(real(fd, *a, **k), error))
    target = f"{tmp_path}/new.db"
    if isinstance(error, OSError):
        with pytest.raises(InputError) as info:
            safewrite.create_in_private_dir(target, b"x" * 4096)
        assert info.value.message == f"{target}: cannot create (No space left on device)"
    else:
        with pytest.raises(KeyboardInterrupt):
            safewrite.create_in_private_dir(target, b"x" * 4096)
    assert os.listdir(tmp_path) == []


def test_create_in_private_dir_removes_what_an_interrupted_open_created(tmp_path, monkeypatch):
    """Ctrl-C arriving as the open returns (the file exists, its descriptor is lost): removed."""
    real = os.open

    def interrupted(path, flags, mode=0o777):
        os.close(real(path, flags, mode))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", interrupted)
    with pytest.raises(KeyboardInterrupt):
        safewrite.create_in_private_dir(f"{tmp_path}/new", b"x")
    assert os.listdir(tmp_path) == []


def test_create_in_private_dir_keeps_what_a_failed_open_did_not_create(tmp_path, monkeypatch):
    """An open that fails with an OSError created nothing, so nothing is removed (here: the file
    at the path stays, whoever made it)."""
    target = tmp_path / "there"
    target.write_bytes(b"keep")

    def failing(path, flags, mode=0o777):
        raise OSError(24, "Too many open files", path)

    monkeypatch.setattr(os, "open", failing)
    with pytest.raises(InputError) as info:
        safewrite.create_in_private_dir(str(target), b"x")
    monkeypatch.undo()
    assert info.value.message == f"{target}: cannot create (Too many open files)"
    assert target.read_bytes() == b"keep"


@pytest.mark.parametrize(
    ("release", "reports"),
    [
        ("5.7.19", False),
        ("5.8.0", True),
        ("5.10.0-21-amd64", True),
        ("6.18.44-fc-v657", True),
        ("4.19.0", False),
        ("10.0", True),
        ("x", False),
        ("", False),
    ],
)
def test_syncfs_is_used_only_where_it_reports_writeback_errors(release, reports):
    assert safewrite._kernel_reports_syncfs_errors(release) is reports


def test_syncfs_without_the_function_is_false(tmp_path, monkeypatch):
    monkeypatch.setattr(safewrite, "_syncfs_function", lambda: None)
    fd = safewrite.filesystem_handle(tmp_path)
    try:
        assert safewrite.syncfs(fd) is False
    finally:
        os.close(fd)


@pytest.mark.parametrize(
    ("magic", "used"), [(0xEF53, True), (0x9123683E, True), (0x65735546, False), (0x6969, False), (None, False)]
)
def test_syncfs_only_on_filesystems_where_it_commits_everything(tmp_path, monkeypatch, magic, used):
    """ext4, btrfs: used; FUSE (0x65735546), NFS (0x6969) or an unknown type: each file is fsynced instead."""
    calls = []
    monkeypatch.setattr(safewrite, "_syncfs_function", lambda: lambda fd: calls.append(fd) or 0)
    monkeypatch.setattr(safewrite, "_filesystem_type", lambda fd: magic)
    assert safewrite.syncfs(7) is used and calls == ([7] if used else [])


LINUX_58 = sys.platform.startswith("linux") and safewrite._kernel_reports_syncfs_errors(os.uname().release)


@pytest.mark.skipif(not LINUX_58 or not shutil.which("stat"), reason="Linux 5.8+ and stat(1)")
@pytest.mark.parametrize("where", ["tmp", "/proc", "/dev/shm"])
def test_the_filesystem_type_is_statfs_f_type(tmp_path, where):
    directory = tmp_path if where == "tmp" else Path(where)
    if not directory.is_dir():
        pytest.skip(f"no {where}")
    expected = int(subprocess.run(["stat", "-f", "-c", "%t", directory], capture_output=True, text=True, check=True).stdout, 16)
    fd = safewrite.filesystem_handle(directory)
    try:
        assert safewrite._filesystem_type(fd) == expected
    finally:
        os.close(fd)


@pytest.mark.skipif(not LINUX_58, reason="Linux 5.8+")
def test_syncfs_on_linux(tmp_path):
    fd = safewrite.filesystem_handle(tmp_path)
    try:
        assert safewrite.syncfs(fd) is (safewrite._filesystem_type(fd) in safewrite.SYNCFS_FILESYSTEMS)
        assert safewrite._syncfs_function()(fd) == 0  # the real call, whatever the filesystem
    finally:
        os.close(fd)
    closed = fd
    assert safewrite._syncfs_function()(closed) == -1  # EBADF: a failure, never an exception
    assert safewrite.syncfs(closed) is False


@pytest.mark.parametrize("how", ["works", "fails", "unavailable"])
def test_sync_files_uses_one_syncfs_or_fsyncs_everything(tmp_path, monkeypatch, how):
    top = tmp_path / "top"
    fd = None
    try:
        fd = safewrite.filesystem_handle(tmp_path) if how != "unavailable" else None
        safewrite.make_private_dir(top / "a")
        for name in ("top/a/1", "top/a/2", "top/3"):
            safewrite.create_in_private_dir(f"{tmp_path}/{name}", b"x")
        calls, fsynced = [], []
        monkeypatch.setattr(safewrite, "_syncfs_function", lambda: lambda fd: calls.append(fd) or (0 if how == "works" else -1))
        monkeypatch.setattr(safewrite, "_filesystem_type", lambda fd: 0xEF53)
        real = os.fsync
        monkeypatch.setattr(os, "fsync", lambda d: fsynced.append(os.fstat(d).st_ino) or real(d))
        safewrite.sync_files([top / "a" / "1", top / "a" / "2", top / "3"], top, filesystem=fd)
    finally:
        if fd is not None:
            os.close(fd)
    assert calls == ([] if how == "unavailable" else [fd])
    inodes = [os.stat(p).st_ino for p in (top / "a" / "1", top / "a" / "2", top / "3", top / "a", top)]
    assert fsynced == ([] if how == "works" else inodes)  # files in order, then directories, children first


def test_make_private_dir(tmp_path):
    made = safewrite.make_private_dir(tmp_path / "a" / "b")
    assert _mode(tmp_path / "a") == 0o700 and _mode(made) == 0o700
    with pytest.raises(InputError, match="already exists"):
        safewrite.make_private_dir(made)
    assert safewrite.make_private_dir(made, exist_ok=True) == made
    link = tmp_path / "link"
    link.symlink_to(made)
    with pytest.raises(InputError, match="already exists"):
        safewrite.make_private_dir(link, exist_ok=True)


@pytest.mark.parametrize(
    "call",
    [
        lambda p: safeio.read_bytes(p),
        lambda p: safewrite.atomic_write(p, b"x"),
        lambda p: safewrite.create_durable_file(p, b"x"),
        lambda p: safewrite.create_in_private_dir(p, b"x"),
        lambda p: safewrite.append(p, b"x"),
        lambda p: safewrite.make_private_dir(p),
    ],
    ids=["read_bytes", "atomic_write", "create_durable_file", "create_in_private_dir", "append", "make_private_dir"],
)
def test_a_nul_in_a_path_is_an_input_error_naming_it(tmp_path, call):
    with pytest.raises(InputError) as info:
        call(f"{tmp_path}/a\0b")
    assert info.value.message == f"{tmp_path}/a\\0b: path contains a NUL byte"
    assert info.value.exit_code == 2 and list(tmp_path.iterdir()) == []
