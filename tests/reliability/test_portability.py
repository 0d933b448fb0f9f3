"""The readers, the writers and the sweep without the platform facilities Linux offers (issue 27.5).

``without_facilities`` takes away what Windows lacks -- ``O_NONBLOCK``, ``O_NOFOLLOW``,
``O_CLOEXEC``, ``os.set_blocking``, ``os.fchmod``, opening a directory, ``syncfs``, ``/proc`` --
makes ``os.kill`` (which ends a process there) fail the test if called, and passes Windows'
``O_BINARY`` bit, which every descriptor the tool opens on a file must carry (without it Windows
reads and writes text: CRLF translated, Ctrl-Z taken for the end). Each test then shows the tool
reads, writes and sweeps exactly what it does with every facility.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path, PureWindowsPath

import pytest

from audit import safeio, safewrite
from audit.actions.sweep import sweep
from audit.cli import main
from audit.errors import InputError
from audit.store import transcript
from audit.store.database import read_database, uri_path
from audit.store.discovery import procfs
from audit.store.layout import resolve_roots
from audit.testing import StoreBuilder

O_BINARY = 0x8000  # Windows' value; on Linux the bit is O_LARGEFILE (a no-op on 64-bit systems)


class Platform:
    """What the tool asked of the platform while the facilities were away."""

    def __init__(self) -> None:
        self.file_opens: list[tuple[str, int]] = []  # (path, flags) of every os.open of a non-directory


@pytest.fixture
def without_facilities(monkeypatch, tmp_path) -> Platform:
    platform = Platform()
    real_open = os.open
    for name in ("O_NONBLOCK", "O_NOFOLLOW", "O_CLOEXEC"):
        for module in (safeio, safewrite):  # each holds the flags it opens with
            monkeypatch.setattr(module, name, 0)
        monkeypatch.delattr(os, name)
    monkeypatch.setattr(safeio, "O_BINARY", O_BINARY)
    monkeypatch.setattr(safewrite, "DIRECTORY_HANDLES", False)
    monkeypatch.setattr(safewrite, "FSYNC_NEEDS_WRITE", True)
    monkeypatch.setattr(safewrite, "PROCESS_PROBE", False)
    monkeypatch.setattr(safewrite, "_syncfs_function", lambda: None)
    monkeypatch.delattr(os, "set_blocking")
    monkeypatch.delattr(os, "fchmod")
    monkeypatch.setattr(procfs, "PROC_ROOT", str(tmp_path / "no-proc"))

    def kill(pid, signal):
        raise AssertionError(f"os.kill({pid}, {signal}) would end the process on Windows")

    def open_(path, flags, mode=0o777, *, dir_fd=None):
        if os.path.isdir(path):
            raise PermissionError(13, "Permission denied", str(path))  # what Windows answers
        platform.file_opens.append((os.fspath(path), flags))
        return real_open(path, flags, mode, dir_fd=dir_fd)

    monkeypatch.setattr(os, "kill", kill)
    monkeypatch.setattr(os, "open", open_)
    return platform


def _store(home: Path):
    b = StoreBuilder(home, seed=31)
    cli = b.root("cli")
    convo = cli.conversation(turns=2, wal_steps=1, transcript_chunks="both", transcript_overview=True)
    cli.conversation(turns=1, shm_without_wal=True, wal_steps=1)
    b.root("acp").conversation(turns=1, db=False, sidecar="missing")  # brain-only
    return convo


def _sweep(home: Path, out: Path, source: str = "native") -> dict:
    result = sweep(resolve_roots(home=home, env={}), out, source=source, env={})
    assert result.complete, result.failures
    return json.loads((out / "manifest.json").read_text())


def test_a_sweep_without_the_facilities_writes_the_same_corpus(tmp_path, monkeypatch, request):
    home = tmp_path / "home"
    _store(home)
    expected = _sweep(home, tmp_path / "with")
    platform = request.getfixturevalue("without_facilities")
    got = _sweep(home, tmp_path / "without", source="auto")  # auto: no /proc, so no daemon, so native
    assert [(s["id"], s["steps"], s["files"]) for s in got["sessions"]] == [
        (s["id"], s["steps"], s["files"]) for s in expected["sessions"]
    ]
    for session in got["sessions"]:
        for rel, digest in session["files"].items():
            path = tmp_path / "without" / rel
            assert hashlib.sha256(path.read_bytes()).hexdigest() == digest
            assert stat.S_IMODE(path.stat().st_mode) == 0o600  # chmod where there is no fchmod
    assert platform.file_opens and all(flags & O_BINARY for _, flags in platform.file_opens)
    monkeypatch.undo()
    assert main(["verify-contract", "--kind", "manifest", str(tmp_path / "without" / "manifest.json")]) == 0


def test_the_readers_without_the_facilities_read_the_same(tmp_path, capsys, request):
    home = tmp_path / "home"
    convo = _store(home)
    brain = convo.paths["brain"]
    logs = brain / ".system_generated" / "logs"
    expected = {
        "export": (main(["export", convo.id, "--home", str(home)]), capsys.readouterr().out),
        "inspect": (main(["inspect", convo.id, "--home", str(home), "--format", "json"]), capsys.readouterr().out),
        "consistency": (main(["consistency", "--home", str(home), "--format", "json"]), capsys.readouterr().out),
        "fingerprint": (main(["fingerprint", "--format", "json", str(home)]), capsys.readouterr().out),
    }
    records = list(transcript.iter_transcript(logs / "transcript.jsonl"))
    conv = read_database(convo.paths["db"])
    platform = request.getfixturevalue("without_facilities")
    for command, (code, out) in expected.items():
        argv = {
            "export": ["export", convo.id, "--home", str(home)],
            "inspect": ["inspect", convo.id, "--home", str(home), "--format", "json"],
            "consistency": ["consistency", "--home", str(home), "--format", "json"],
            "fingerprint": ["fingerprint", "--format", "json", str(home)],
        }[command]
        assert (main(argv), capsys.readouterr().out) == (code, out), command
    assert list(transcript.iter_transcript(logs / "transcript.jsonl")) == records
    again = read_database(convo.paths["db"])
    assert (again.access, again.content_sha256(), again.steps) == (conv.access, conv.content_sha256(), conv.steps)
    assert all(flags & O_BINARY for _, flags in platform.file_opens)


def test_a_fifo_or_a_link_is_refused_without_blocking_and_without_the_flags(tmp_path, without_facilities):
    fifo = tmp_path / "transcript.jsonl"
    os.mkfifo(fifo)  # opened without O_NONBLOCK, this would block forever
    with pytest.raises(InputError, match="not a regular file; not read"):
        safeio.read_bytes(fifo)
    [finding] = transcript.iter_transcript(fifo)
    assert (finding.kind, finding.message) == ("unreadable", "cannot read: not a regular file")
    with pytest.raises(InputError, match="is a directory"):
        safeio.read_bytes(tmp_path)
    (tmp_path / "real.jsonl").write_bytes(b"{}\r\n\x1a\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "real.jsonl")
    with pytest.raises(OSError, match="symbolic links"):
        safeio.open_regular(tmp_path / "link.jsonl", follow_symlinks=False)
    [finding] = transcript.iter_transcript(tmp_path / "link.jsonl")
    assert finding.message == "cannot read: is a symbolic link; not followed"
    assert safeio.read_bytes(tmp_path / "real.jsonl") == b"{}\r\n\x1a\n"  # bytes as they are: CR and Ctrl-Z kept


def test_the_writers_without_the_facilities(tmp_path, without_facilities):
    target = tmp_path / "out" / "doc.json"
    safewrite.make_private_dir(target.parent)
    safewrite.atomic_write(target, b"{}\r\n", mtime_ns=10**18)
    assert (target.read_bytes(), target.stat().st_mtime_ns, stat.S_IMODE(target.stat().st_mode)) == (b"{}\r\n", 10**18, 0o600)
    safewrite.create_durable_file(tmp_path / "out" / "new.md", b"x\n")
    safewrite.create_in_private_dir(str(tmp_path / "out" / "fresh.db"), b"\x1a\x00")
    safewrite.sync_files([tmp_path / "out" / "fresh.db"], tmp_path / "out")  # the file fsynced, directories left alone
    with pytest.raises(OSError, match="directories cannot be opened"):
        safewrite.filesystem_handle(tmp_path / "out")
    safewrite.append(tmp_path / "out" / "summary.md", b"a\r\n")
    assert (tmp_path / "out" / "summary.md").read_bytes() == b"a\r\n"
    assert all(flags & O_BINARY for _, flags in without_facilities.file_opens)


def test_a_temp_file_is_never_presumed_stale_where_a_process_cannot_be_probed(tmp_path, without_facilities):
    stale = tmp_path / ".doc.json.agy999999999-abcdef12.tmp"  # no such pid: stale on POSIX
    stale.write_bytes(b"partial")
    safewrite.start_run()
    safewrite.atomic_write(tmp_path / "doc.json", b"{}")  # os.kill would fail this test
    assert stale.read_bytes() == b"partial" and safewrite.REMOVED_TEMPS == []


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("/home/u/.gemini/antigravity-cli/conversations/a b.db", "/home/u/.gemini/antigravity-cli/conversations/a%20b.db"),
        (PureWindowsPath(r"C:\Users\u\.gemini\x?.db").as_posix(), "/C%3A/Users/u/.gemini/x%3F.db"),
        (PureWindowsPath(r"\\server\share\x#1.db").as_posix(), "////server/share/x%231.db"),
    ],
)
def test_sqlite_uris_name_posix_windows_and_unc_paths(name, uri):
    assert uri_path(name) == uri


def test_the_writer_lock_without_flock_is_a_lock_file_in_the_cache(tmp_path, without_facilities, monkeypatch):
    # Windows has no flock: the lock is a byte of a file in the user's cache directory, which
    # msvcrt.locking takes there; flock of that file stands in for it here
    import fcntl

    from audit.actions import writelock
    from tests.reliability.test_reliability_writers import held_by_another_thread

    def lock_byte(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    monkeypatch.setattr(writelock, "_FLOCK", False)
    monkeypatch.setattr(writelock, "_lock_byte", lock_byte)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    root = StoreBuilder(tmp_path / "home", seed=31).root("cli")
    root.family(children=1)
    conversations = root.path / "conversations"
    with held_by_another_thread(conversations), pytest.raises(writelock.StoreLocked) as refused:
        with writelock.held([conversations], timeout=0):
            pass
    [lock_file] = (tmp_path / "cache" / "agy-audit" / "locks").iterdir()
    assert lock_file.name == hashlib.sha256(os.fsencode(os.path.realpath(conversations))).hexdigest()[:32] + ".lock"
    assert lock_file.read_bytes()[64:].decode().split() == [str(os.getpid())]
    assert f"another agy-audit writer (pid {os.getpid()}) holds this store's writer lock" in refused.value.message
    assert main(["links", "backfill", "--root", str(root.path)]) == 0  # the lock is free again
    assert all(flags & O_BINARY for _, flags in without_facilities.file_opens)
