"""Reliability under faults: a full disk, permission denied, files vanishing mid-scan, read-only
stores. Each gives a clear one-line error naming the file and the documented exit code (0 ok,
1 findings, 2 unreadable or unwritable input), and leaves nothing partial: no temp file, no
half-written file, no output file that the failing command did not finish.

Root ignores permission bits, so the permission tests run their commands in a forked child that
has dropped to uid/gid 65534 (``nobody``) when the suite runs as root.
"""

from __future__ import annotations

import errno
import json
import os
import pickle
import shutil
import tempfile
import traceback
from pathlib import Path

import pytest
from cli_capture import cli

from audit.actions import link_writer
from audit.actions.sweep import planning
from audit.checks import contract, links, schemas
from audit.checks.fingerprint import dispatch
from audit.checks.links import evidence as link_evidence
from audit.cli import build_parser
from audit.errors import InputError, Terminated
from audit.resources import data_path
from audit.safewrite import atomic_write
from audit.store import layout
from audit.testing import StoreBuilder

NOBODY = 65534


def snapshot(top: Path) -> dict[str, tuple[bytes, int]]:
    """Every file below *top* with its bytes and mtime (directories by name)."""
    return {
        str(p.relative_to(top)): (b"" if p.is_dir() else p.read_bytes(), 0 if p.is_dir() else p.stat().st_mtime_ns)
        for p in sorted(top.rglob("*"))
    }


def files(top: Path) -> list[str]:
    return sorted(str(p.relative_to(top)) for p in top.rglob("*") if p.is_file())


# ----------------------------------------------------------------------------- disk full


class _FullDisk:
    """File objects from ``os.fdopen`` whose writes fail with ENOSPC once ``budget`` bytes are used."""

    def __init__(self, monkeypatch, budget: int) -> None:
        self.left = budget
        real = os.fdopen
        monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: _Limited(real(fd, *a, **k), self))


class _Limited:
    def __init__(self, fh, disk: _FullDisk) -> None:
        self._fh, self._disk = fh, disk

    def write(self, data: bytes) -> int:
        if len(data) > self._disk.left:
            self._fh.write(data[: self._disk.left])  # a real full disk takes what fits
            self._disk.left = 0
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._disk.left -= len(data)
        return self._fh.write(data)

    def __getattr__(self, name: str):
        return getattr(self._fh, name)

    def __enter__(self) -> _Limited:
        return self

    def __exit__(self, *exc: object) -> None:
        self._fh.__exit__(*exc)


@pytest.fixture
def family(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    parent, kids = root.family(children=3)
    return root, parent, kids


def test_disk_full_during_backfill_leaves_every_file_whole(family, tmp_path, monkeypatch):
    root, parent, kids = family
    before = snapshot(root.path)
    _FullDisk(monkeypatch, kids[0].paths["sidecar"].stat().st_size + 100)  # room for one stamped copy
    code, out, err = cli("links", "backfill", "--root", root.path)
    monkeypatch.undo()
    assert code == 2 and err.startswith("agy-audit: ") and err.endswith(": cannot write (No space left on device)\n")
    failed = Path(err.split(": ")[1])
    after = snapshot(root.path)
    assert sorted(after) == sorted(before)  # no temp file left
    changed = [name for name in before if after[name] != before[name]]
    assert failed.name not in changed and len(changed) == 1  # whole files only: the first stamped, the next untouched
    assert json.loads(after[changed[0]][0])["agyReader"]["parentCascadeId"] == parent.id
    assert cli("links", "backfill", "--root", root.path)[0] == 0  # a rerun finishes the job


def test_disk_full_during_repair_restores_or_says_how(family, tmp_path, monkeypatch):
    root, parent, kids = family
    sidecars = sorted((root.path / "conversations").glob("*.trajectory.json"))
    before = snapshot(root.path)
    _FullDisk(monkeypatch, sum(p.stat().st_size for p in sidecars) + 2 * kids[0].paths["sidecar"].stat().st_size)
    code, out, err = cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")
    monkeypatch.undo()
    assert code in (1, 2) and "No space left on device" in err
    assert snapshot(root.path) == before or f"links rollback --backup {tmp_path / 'backup'}" in err


@pytest.mark.parametrize(("signal_exc", "code"), [(KeyboardInterrupt, 130), (Terminated, 143)])
def test_an_interrupted_repair_restores_every_sidecar(family, tmp_path, monkeypatch, signal_exc, code):
    root, parent, kids = family
    before = snapshot(root.path)
    real, writes = link_writer.atomic_write, []

    def interrupted(path, data, **kwargs):
        writes.append(path)
        if len(writes) == 2:  # Ctrl-C or SIGTERM after the first stamp was written
            raise signal_exc()
        real(path, data, **kwargs)

    monkeypatch.setattr(link_writer, "atomic_write", interrupted)
    status, out, err = cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")
    monkeypatch.undo()
    assert status == code and len(writes) == 2
    assert (
        err == f"agy-audit: {root.path / 'conversations'}: interrupted; every sidecar was restored from {tmp_path / 'backup'}\n"
    )
    assert snapshot(root.path) == before


def test_disk_full_during_sweep_keeps_an_incomplete_manifest_and_no_partial_session(tmp_path, monkeypatch):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    root.conversation(turns=2)
    root.conversation(turns=2)
    _FullDisk(monkeypatch, 5000)  # the first manifest fits, the first .db copy does not
    code, out, err = cli("sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "out")
    monkeypatch.undo()
    assert (code, err) == (2, f"agy-audit: {tmp_path / 'out' / 'manifest.json'}: cannot write (No space left on device)\n")
    assert files(tmp_path / "out") == ["manifest.json"]
    manifest = json.loads((tmp_path / "out" / "manifest.json").read_text())
    assert manifest["complete"] is False and manifest["sessions"] == []


@pytest.mark.parametrize("command", ["export", "atomic"])
def test_disk_full_while_creating_an_output_file_leaves_nothing(tmp_path, monkeypatch, command):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    convo = root.conversation(turns=1)
    target = tmp_path / "out" / "file.json"
    target.parent.mkdir()
    if command == "atomic":
        target.write_bytes(b"old bytes")
        os.utime(target, ns=(10**18, 10**18))
    _FullDisk(monkeypatch, 100)
    if command == "export":
        code, out, err = cli("export", "--root", root.path, convo.id, "--out", target)
        assert (code, err) == (2, f"agy-audit: {target}: cannot create (No space left on device)\n")
        assert files(tmp_path / "out") == []
    else:
        with pytest.raises(InputError) as caught:
            atomic_write(target, b"new bytes" * 100)
        assert caught.value.message == f"{target}: cannot write (No space left on device)"
        assert files(tmp_path / "out") == ["file.json"]
        assert target.read_bytes() == b"old bytes" and target.stat().st_mtime_ns == 10**18


# ----------------------------------------------------------------------------- unprivileged


def unprivileged(function, *args):
    """``function(*args)``, as uid/gid 65534 when we are root (in a forked child; result pickled).

    What the commands import or load lazily is loaded first: the interpreter's own files may not
    be readable by that user.
    """
    if os.geteuid() != 0:
        return function(*args)
    build_parser()
    for name in schemas.names():
        schemas.load(name).findings({})
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(read)
            try:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            except OSError as exc:
                payload = pickle.dumps(("skip", f"cannot drop root privileges to test permission bits: {exc}"))
            else:
                try:
                    readable = os.access(data_path("consumers"), os.R_OK | os.X_OK)
                except OSError:
                    readable = False
                if not readable:
                    # a checkout under a private directory (a 0700 mktemp, /root): that user cannot
                    # read the bundled data that ci loads as it runs, so no verdict is about the store
                    payload = pickle.dumps(("skip", f"uid {NOBODY} cannot read the checkout's bundled data"))
                else:
                    payload = pickle.dumps(("ok", function(*args)))
        except BaseException:
            payload = pickle.dumps(("error", traceback.format_exc()))
        with os.fdopen(write, "wb") as fh:
            fh.write(payload)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        status, value = pickle.loads(fh.read())
    os.waitpid(pid, 0)
    if status == "skip":
        pytest.skip(value)
    if status == "error":
        pytest.fail(value)
    return value


@pytest.fixture
def shared():
    """A directory the unprivileged user can use (tmp_path is private to root)."""
    path = Path(tempfile.mkdtemp(prefix="agy-audit-faults-"))
    yield path
    for p in [path, *path.rglob("*")]:
        if not p.is_symlink():
            os.chmod(p, 0o700)
    shutil.rmtree(path)


def give_away(top: Path) -> None:
    if os.geteuid() == 0:
        for p in [top, *top.rglob("*")]:
            os.lchown(p, NOBODY, NOBODY)


@pytest.fixture
def store(shared):
    """A WAL store (live-writer leftovers included), a stale sidecar and a brain; owned by nobody."""
    root = StoreBuilder(shared / "home", seed=8).root("cli")
    wal = root.conversation(turns=2, wal_steps=2)
    plain = root.conversation(turns=2, sidecar="stale")
    give_away(shared)
    return root, wal, plain


def test_permission_denied_files_are_named_with_documented_exit_codes(store):
    root, wal, plain = store
    conversations = root.path / "conversations"
    sidecar, db = plain.paths["sidecar"], plain.paths["db"]
    transcript = plain.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl"
    for path in (sidecar, db, transcript):
        path.chmod(0)
    results = unprivileged(
        lambda: {
            "verify": cli("verify-contract", conversations),
            "fingerprint": cli("fingerprint", "--surface", "sidecar", conversations),
            "links": cli("links", "check", "--root", root.path, "--format", "json"),
            "inspect": cli("inspect", db, "--format", "json"),
            "brain": cli("inspect", plain.paths["brain"], "--format", "json"),
            "sweep": cli(
                "sweep",
                "--source",
                "native",
                "--keep-going",
                "--root",
                root.path,
                "--out",
                root.path.parent / "out",
                "--format",
                "json",
            ),
        }
    )
    code, out, _ = results["verify"]
    assert code == 2 and f"{sidecar}: error: [unreadable] permission denied" in out.splitlines()
    code, out, err = results["fingerprint"]
    assert code == 2 and f"agy-audit: warning: {sidecar}: permission denied" in err.splitlines()
    code, out, _ = results["links"]
    diagnostics = json.loads(out)["result"]["roots"][0]["diagnostics"]
    assert code == 0 and [(d["kind"], d["message"]) for d in diagnostics] == [
        ("unreadable-sidecar", f"{sidecar}: permission denied")
    ]
    code, out, _ = results["inspect"]
    assert code == 1 and [(f["rule"], f["file"], f["message"]) for f in json.loads(out)["findings"]] == [
        ("unreadable", str(db), "cannot read (Permission denied)")
    ]
    code, out, _ = results["brain"]
    assert code == 1 and ("unreadable", str(transcript), None, "cannot read: Permission denied") in [
        (f["rule"], f["file"], f["line"], f["message"]) for f in json.loads(out)["findings"]
    ]
    code, out, err = results["sweep"]
    failures = json.loads(out)["result"]["manifest"]["failures"]
    assert code == 1 and [(f["id"], f["stage"]) for f in failures] == [(plain.id, "copy")]
    assert failures[0]["message"] == f"{db}: cannot read (Permission denied)"


def test_an_unlistable_directory_is_a_usage_error_naming_it(store):
    root, _, _ = store
    (root.path / "conversations").chmod(0)
    code, out, err = unprivileged(cli, "stores", "--root", root.path)
    assert (code, out) == (2, "")
    assert err == f"agy-audit: {root.path / 'conversations'}: cannot list (Permission denied)\n"


def _every_command(root: Path, session: str, out: Path) -> dict[str, tuple[int, str, str]]:
    """What every command that reads a store does with it (run as the unprivileged user)."""
    commands = {
        "stores": ("stores", "--root", root),
        "sweep": ("sweep", "--source", "native", "--root", root, "--out", out / "sweep"),
        "export": ("export", "--root", root, session),
        "inspect": ("inspect", "--root", root, session),
        "links check": ("links", "check", "--root", root),
        "links backfill": ("links", "backfill", "--root", root),
        "links repair": ("links", "repair", "--root", root, "--backup", out / "backup"),
        "completeness": ("completeness", "--root", root, "--attest"),
        "fingerprint": ("fingerprint", root),
        "consistency": ("consistency", "--root", root),
        "ci": ("ci", "--source", "native", "--root", root, "--out", out / "ci"),
        "doctor": ("doctor", "--root", root),
    }
    return {name: cli(*argv) for name, argv in commands.items()}


@pytest.fixture
def no_proc(monkeypatch, shared):
    """No /proc for doctor's discovery (the per-test fake one is private to root); deepdiff,
    which completeness loads to explain a difference, loaded while we can read it."""
    import deepdiff  # noqa: F401

    from audit.store.discovery import procfs

    monkeypatch.setattr(procfs, "PROC_ROOT", str(shared / "no-proc"))


@pytest.mark.parametrize(
    ("directory", "unaffected"),
    [
        ("conversations", {}),
        # the commands that never read the brain give their result (1: the stale sidecar is incomplete)
        ("brain", {"links check": (0, ""), "links backfill": (0, ""), "links repair": (0, ""), "completeness": (1, "")}),
    ],
)
def test_a_directory_listed_but_not_entered_is_an_error_naming_it_in_every_command(store, shared, no_proc, directory, unaffected):
    # issue 38 item 3: conversations/ at 0444 read as an empty store -- 0 sidecars, "complete: true",
    # export falling back to the transcript
    root, wal, plain = store
    (root.path / directory).chmod(0o444)
    results = unprivileged(_every_command, root.path, plain.id, shared)
    error = f"agy-audit: {root.path / directory}: cannot enter (Permission denied): it can be listed but not searched\n"
    assert {name: (code, err) for name, (code, _, err) in results.items()} == {name: (2, error) for name in results} | unaffected
    assert not (shared / "sweep" / "manifest.json").exists()


def test_a_read_only_store_is_read_completely_and_never_written(store, shared):
    root, wal, plain = store
    for p in [root.path.parent, root.path, *root.path.rglob("*")]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    before = snapshot(root.path)
    results = unprivileged(
        lambda: {
            "stores": cli("stores", "--root", root.path),
            "inspect": cli("inspect", "--root", root.path, wal.id),
            "export": cli("export", "--root", root.path, wal.id),
            "fingerprint": cli("fingerprint", root.path),
            "verify": cli("verify-contract", root.path / "conversations"),
            "sweep": cli("sweep", "--source", "native", "--root", root.path, "--out", shared / "out"),
            "backfill": cli("links", "backfill", "--root", root.path),
            "repair": cli("links", "repair", "--root", root.path),
        }
    )
    assert snapshot(root.path) == before  # bytes, mtimes, no new file (not even -shm)
    for name in ("stores", "inspect", "export", "fingerprint", "verify", "sweep"):
        assert results[name][0] == 0, (name, results[name])
    assert json.loads(results["export"][1])["cascadeId"] == wal.id
    code, _, err = results["backfill"]
    assert code == 0 and err == ""  # nothing to stamp: nothing written
    code, out, err = results["repair"]
    assert (code, err) == (0, "") and "  backup: none (nothing to change)\n" in out  # nothing to change: no backup


def test_a_read_only_sidecar_is_not_stamped_and_says_why(store):
    root, wal, plain = store
    kid = root.family(children=1)[1][0]
    give_away(root.path)
    (root.path / "conversations").chmod(0o555)
    before = snapshot(root.path)
    code, out, err = unprivileged(cli, "links", "backfill", "--root", root.path)
    assert code == 2 and err == f"agy-audit: {kid.paths['sidecar']}: cannot write (Permission denied)\n"
    assert snapshot(root.path) == before


# ----------------------------------------------------------------------------- vanishing files


def vanish_after(monkeypatch, module, name: str, victim: Path) -> None:
    """Wrap ``module.name`` so that *victim* is deleted right after it returns (listed, then gone)."""
    real = getattr(module, name)

    def wrapper(*args, **kwargs):
        result = real(*args, **kwargs)
        victim.unlink(missing_ok=True)
        return result

    monkeypatch.setattr(module, name, wrapper)


@pytest.fixture
def three(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=6).root("cli")
    return root, [root.conversation(turns=1) for _ in range(3)]


@pytest.mark.parametrize("reader", ["links", "verify-contract", "fingerprint"])
def test_a_sidecar_vanishing_between_listing_and_reading_is_reported(three, monkeypatch, reader):
    root, convos = three
    victim = convos[1].paths["sidecar"]
    conversations = root.path / "conversations"
    if reader == "links":
        vanish_after(monkeypatch, link_evidence, "list_sidecars", victim)  # where resolve looks it up
        resolution = links.resolve(conversations)
        assert [(d.kind, d.message) for d in resolution.diagnostics] == [
            ("unreadable-sidecar", f"{victim.name}: No such file or directory")
        ]
        assert len(resolution.links) == 2
    elif reader == "verify-contract":
        vanish_after(monkeypatch, contract, "find_files", victim)
        code, out, _ = cli("verify-contract", conversations)
        assert code == 2 and f"{victim}: error: [unreadable] no such file" in out.splitlines()
    else:
        vanish_after(monkeypatch, dispatch, "collect", victim)
        code, out, err = cli("fingerprint", "--surface", "sidecar", conversations)
        assert code == 2 and err == (  # an unreadable input is exit 2, as documented
            f"agy-audit: warning: {victim}: no such file\n"
            "agy-audit: 1 input(s) unreadable; the fingerprints above leave them out\n"
        )


@pytest.mark.parametrize("kind", ["db", "brain"])
def test_a_session_file_vanishing_mid_sweep_fails_that_session_only(three, tmp_path, monkeypatch, kind):
    root, convos = three
    victim = convos[1].paths["db"] if kind == "db" else next(convos[1].paths["brain"].rglob("*.jsonl"))
    vanish_after(monkeypatch, planning, "scan_root", victim)
    code, out, err = cli(
        "sweep", "--source", "native", "--keep-going", "--root", root.path, "--out", tmp_path / "out", "--format", "json"
    )
    manifest = json.loads(out)["result"]["manifest"]
    assert code == 1 and err.startswith("agy-audit: sweep incomplete (1 failure(s))")
    assert [(f["id"], f["stage"]) for f in manifest["failures"]] == [(convos[1].id, "copy" if kind == "db" else "brain")]
    assert str(victim) in manifest["failures"][0]["message"]
    listed = {rel for s in manifest["sessions"] for rel in s["files"]}
    assert set(files(tmp_path / "out")) == listed | {"manifest.json"}  # the failed session left nothing
    assert not any(convos[1].id in rel for rel in listed)


def test_entries_vanishing_inside_a_directory_listing_are_skipped(three, tmp_path, monkeypatch):
    """``os.scandir`` lists a file that is gone by the time it is looked at: every command goes on."""
    root, convos = three
    victims = iter([convos[0].paths["sidecar"], convos[1].paths["db"], next(convos[2].paths["brain"].rglob("*.jsonl"))])
    real = os.scandir

    def scandir(path="."):
        entries = list(real(path))
        victim = next(victims, None)
        if victim is not None:
            victim.unlink()
        return _Listing(entries)

    monkeypatch.setattr(os, "scandir", scandir)
    for argv in (
        ("stores", "--root", root.path, "--sessions"),
        ("links", "check", "--root", root.path),
        ("verify-contract", root.path),
        ("fingerprint", root.path),
        ("sweep", "--source", "native", "--keep-going", "--root", root.path, "--out", tmp_path / "out"),
    ):
        code, out, err = cli(*argv)
        assert code in (0, 1, 2) and "Traceback" not in err, (argv, code, err)
        assert all(line.startswith("agy-audit: ") for line in err.splitlines()), (argv, err)


class _Listing:
    """What ``os.scandir`` returns: an iterator and a context manager."""

    def __init__(self, entries: list) -> None:
        self._it = iter(entries)

    def __iter__(self) -> _Listing:
        return self

    def __next__(self):
        return next(self._it)

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def close(self) -> None:
        pass


def test_a_db_vanishing_after_the_session_was_found_is_a_finding(three, monkeypatch):
    root, convos = three
    victim = convos[2].paths["db"]
    vanish_after(monkeypatch, layout, "locate_session", victim)
    code, out, _ = cli("inspect", "--root", root.path, convos[2].id, "--format", "json")
    assert code == 1 and [(f["rule"], f["file"], f["message"]) for f in json.loads(out)["findings"]] == [
        ("unreadable", str(victim), "cannot read (No such file or directory)")
    ]
