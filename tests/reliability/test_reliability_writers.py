"""Our own writers (issue 38 items 1, 2 and 7; issue 39 item 5).

* the writer lock: ``completeness --attest`` and ``links backfill`` run at once on one store,
  20 times over, lose no attestation and no stamp; a second writer waits, or refuses naming the
  store and the holder's pid;
* a signal (SIGINT, SIGTERM) at any point of a repair -- resolving, backing up, stamping, after
  the last stamp, verifying, and a second one while the backup is restored -- leaves every
  sidecar exactly old or exactly new, never a mix;
* a repair that changes nothing makes no backup;
* a backup manifest is input too: a tampered ``root`` is not written to (``--force`` or not), an
  out-of-range ``mtimeNs`` is one line.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_capture import cli

from audit.actions import backup, link_writer, repair, writelock
from audit.errors import EXIT_INTERRUPTED, EXIT_TERMINATED
from audit.testing import StoreBuilder


def sidecars(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every entry of ``conversations/`` but the databases: bytes and mtime (temp files included)."""
    conversations = root / "conversations"
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(conversations.iterdir()) if not p.name.endswith(".db")}


# ----------------------------------------------------------------------------- the writer lock


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """A store whose 5 children need a parent stamp and whose 8 sidecars are complete, unattested."""
    top = tmp_path_factory.mktemp("writers")
    root = StoreBuilder(top / "home", seed=38).root("cli")
    root.family(children=5)
    root.conversation(turns=1)
    root.conversation(turns=1)
    return root.path


@contextlib.contextmanager
def held_by_another_thread(directory: Path) -> Iterator[None]:
    """The writer lock of *directory* held by another thread of this process while the block runs
    (the thread that holds a lock is let in again)."""
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with writelock.held([directory]):
            taken.set()
            done.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    taken.wait(30)
    try:
        yield
    finally:
        done.set()
        holder.join()


def _fork(argv: list[object], go: tuple[int, int], out: Path) -> int:
    """A child process that waits for the pipe *go* to be closed, then runs ``agy-audit ARGV`` and
    leaves (exit code, stdout, stderr) as JSON in *out*."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(go[1])
            os.read(go[0], 1)
            out.write_text(json.dumps(cli(*argv)))
        finally:
            os._exit(0)
    return pid


def test_attest_and_backfill_at_once_lose_nothing(pristine, tmp_path):
    # issue 38 item 1: attest reported N attestations written and 6 to 40 fewer were on disk
    for run in range(20):
        root = tmp_path / f"run-{run}" / "antigravity-cli"
        shutil.copytree(pristine, root)
        go = os.pipe()
        results = {name: tmp_path / f"{name}-{run}.json" for name in ("attest", "backfill")}
        pids = [
            _fork(["completeness", "--root", root, "--attest", "--format", "json"], go, results["attest"]),
            _fork(["links", "backfill", "--root", root, "--format", "json"], go, results["backfill"]),
        ]
        os.close(go[0])
        os.close(go[1])  # both start now
        for pid in pids:
            os.waitpid(pid, 0)
        (a_code, a_out, a_err), (b_code, b_out, b_err) = (json.loads(results[n].read_text()) for n in ("attest", "backfill"))
        assert (a_code, b_code) == (0, 0), (run, a_err, b_err)
        attested = {r["id"] for r in json.loads(a_out)["result"]["results"] if r["attestation"] == "written"}
        stamped = {c["id"] for c in json.loads(b_out)["result"]["roots"][0]["changes"]}
        on_disk = {p.name.split(".")[0]: json.loads(p.read_bytes()) for p in (root / "conversations").glob("*.trajectory.json")}
        assert len(attested) == 8 and len(stamped) == 5
        assert {cid for cid, doc in on_disk.items() if "completeness" in doc.get("agyReader", {}).get("agyAudit", {})} == attested
        assert {cid for cid, doc in on_disk.items() if "parentCascadeId" in doc.get("agyReader", {})} == stamped


def test_a_second_writer_waits_then_refuses_naming_the_store_and_the_holder(pristine, tmp_path):
    root = tmp_path / "antigravity-cli"
    shutil.copytree(pristine, root)
    conversations = root / "conversations"
    before = sidecars(root)
    read, write = os.pipe()
    holder = os.fork()
    if holder == 0:  # pragma: no cover - the holder: takes the lock, says so, waits to be killed
        with writelock.held([conversations], timeout=0):
            os.write(write, b"x")
            time.sleep(60)
        os._exit(0)
    try:
        os.read(read, 1)
        start = time.monotonic()
        code, out, err = cli("links", "backfill", "--root", root, "--lock-timeout", "0.3")
        waited = time.monotonic() - start
        attest = cli("completeness", "--root", root, "--attest", "--lock-timeout", "0")
    finally:
        os.kill(holder, signal.SIGKILL)
        os.waitpid(holder, 0)
    assert (code, out) == (1, "") and 0.3 <= waited < 3
    assert err == (
        f"agy-audit: {conversations}: waiting for another agy-audit writer (pid {holder}) (at most 0.3s)\n"
        f"agy-audit: {conversations}: another agy-audit writer (pid {holder}) holds this store's writer lock; "
        "gave up after 0.3s (wait for it to finish, or give a longer --lock-timeout)\n"
    )
    assert attest[0] == 1 and attest[2].endswith("gave up after 0s (wait for it to finish, or give a longer --lock-timeout)\n")
    assert sidecars(root) == before
    assert cli("links", "backfill", "--root", root)[0] == 0  # the killed holder left no lock behind


def test_a_writer_waits_for_another_and_then_does_its_work(pristine, tmp_path):
    root = tmp_path / "antigravity-cli"
    shutil.copytree(pristine, root)
    held = threading.Event()

    def hold() -> None:
        with writelock.held([root / "conversations"]):
            held.set()
            time.sleep(0.4)

    other = threading.Thread(target=hold)
    other.start()
    held.wait()
    try:
        code, out, err = cli("links", "backfill", "--root", root, "--quiet")
    finally:
        other.join()
    assert (code, err) == (0, "") and "stamped=5" in out


def test_the_lock_is_reentrant_and_per_directory(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (tmp_path / "link").symlink_to(a)
    me = threading.get_ident()
    with writelock.held([a, b, tmp_path / "link"]), writelock.held([a], timeout=0):  # a and its link: one lock
        assert writelock._HELD == {(me, a.stat().st_dev, a.stat().st_ino): 2, (me, b.stat().st_dev, b.stat().st_ino): 1}
    assert writelock._HELD == {}


# ----------------------------------------------------------------------------- signals during a repair


@pytest.fixture(scope="module")
def repaired(tmp_path_factory):
    """A store a repair changes (stamps two children, clears a bogus stamp), and the same store repaired."""
    top = tmp_path_factory.mktemp("repair")
    root = StoreBuilder(top / "home", seed=7).root("cli")
    parent, kids = root.family(children=3)
    bogus = root.conversation(turns=1)
    path = bogus.paths["sidecar"]
    doc = json.loads(path.read_text())
    st = path.stat()
    path.write_text(json.dumps(dict(doc, agyReader={"parentCascadeId": kids[0].id}), indent=2) + "\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    new = top / "new"
    shutil.copytree(root.path, new)
    assert cli("links", "repair", "--root", new, "--backup", top / "new-backup")[0] == 0
    return root.path, sidecars(root.path), sidecars(new)


_TRACED = tuple(
    str(Path(m.__file__))
    for m in (
        repair,
        backup,
        link_writer,
        sys.modules["audit.safeio"],
        sys.modules["audit.safewrite"],
        sys.modules["audit.strictjson"],
        writelock,
    )
)
_ROLLBACK = backup.rollback.__code__


class _Signals:
    """A tracer over the repair's own modules: counts the lines they run inside ``repair.repair``
    and, at the lines in *at*, sends the process the signal given there (a real signal: its
    handler raises where it lands). ``phases`` records at which line each function of interest
    was entered."""

    WATCHED = ("create", "apply", "verify", "rollback")

    def __init__(self, at: dict[int, int]) -> None:
        self.at, self.lines, self.phases, self.inside = at, 0, {}, False

    def __call__(self, frame, event, arg):
        if not frame.f_code.co_filename.endswith(_TRACED):
            return None
        if event == "call" and frame.f_code is repair.repair.__code__:
            self.inside = True
        if event == "call" and self.inside and frame.f_code.co_name in self.WATCHED:
            self.phases.setdefault(frame.f_code.co_name, self.lines)
        return self._line

    def _line(self, frame, event, arg):
        if event == "return" and frame.f_code is repair.repair.__code__:
            self.inside = False
        if event == "return" and frame.f_code is _ROLLBACK:
            self.phases.setdefault("rolled back", self.lines)
        if event == "line" and self.inside:
            self.lines += 1
            if self.lines in self.at:
                os.kill(os.getpid(), self.at[self.lines])
        return self._line

    def run(self, root: Path, backup_dir: Path) -> tuple[int, str, str]:
        real = backup.rollback

        def rollback(*args, **kwargs):  # a signal raised in the tracer ends tracing: the restore is traced again
            sys.settrace(self)
            return real(*args, **kwargs)

        backup.rollback = rollback
        measuring = sys.gettrace()  # coverage's tracer, when the suite runs under it
        sys.settrace(self)
        try:
            return cli("links", "repair", "--root", root, "--backup", backup_dir)
        finally:
            sys.settrace(measuring)  # None here would stop coverage for every later test of this process
            backup.rollback = real


def test_a_signal_at_any_point_of_a_repair_leaves_every_sidecar_old_or_new(repaired, tmp_path):
    # issue 38 item 2: SIGTERM after the last stamp write, before verification ended, exited 143
    # with the sidecars left stamped and no backup named
    source, old, new = repaired
    dry = _Signals({})
    assert dry.run(_copy(source, tmp_path / "dry"), tmp_path / "dry-backup")[0] == 0
    phases = dry.phases  # the line at which each phase starts
    assert list(phases) == ["create", "apply", "verify"]
    points = {
        "resolving": range(1, phases["create"], max(1, phases["create"] // 4)),
        "backing up": range(phases["create"] + 1, phases["apply"], max(1, (phases["apply"] - phases["create"]) // 5)),
        "stamping": range(phases["apply"] + 1, phases["verify"] - 1, max(1, (phases["verify"] - phases["apply"]) // 6)),
        "after the last stamp write": [phases["verify"] - 1, phases["verify"]],
        "verifying": range(phases["verify"] + 1, dry.lines, max(1, (dry.lines - phases["verify"]) // 6)),
    }
    seen: dict[str, set[str]] = {}
    for n, (phase, line) in enumerate((p, line) for p, lines in points.items() for line in lines):
        number = (signal.SIGINT, signal.SIGTERM)[n % 2]
        root, backup_dir = _copy(source, tmp_path / f"r{n}"), tmp_path / f"b{n}"
        code, out, err = _Signals({line: number}).run(root, backup_dir)
        state = sidecars(root)
        assert state in (old, new), (phase, line, err)
        seen.setdefault(phase, set()).add("old" if state == old else "new")
        if state == old:
            assert code == (EXIT_INTERRUPTED if number == signal.SIGINT else EXIT_TERMINATED), (phase, err)
            if backup_dir.exists():  # taken: it restored every sidecar, and says so
                assert err.endswith(f": interrupted; every sidecar was restored from {backup_dir}\n"), (phase, err)
            else:
                assert err == f"agy-audit: {'interrupted' if number == signal.SIGINT else 'terminated'}\n", (phase, err)
    assert seen == {
        "resolving": {"old"},
        "backing up": {"old"},
        "stamping": {"old"},
        "after the last stamp write": {"old"},
        "verifying": {"old"},
    }


def test_a_second_signal_while_the_backup_is_restored_waits_for_the_restore(repaired, tmp_path):
    source, old, new = repaired
    dry = _Signals({})
    dry.run(_copy(source, tmp_path / "dry"), tmp_path / "dry-backup")
    first = dry.phases["apply"] + 30  # while stamping
    probe = _Signals({first: signal.SIGINT})
    probe.run(_copy(source, tmp_path / "probe"), tmp_path / "probe-backup")
    restoring, restored = probe.phases["rollback"], probe.phases["rolled back"]
    for n, second in enumerate(range(restoring + 1, restored, max(1, (restored - restoring) // 6))):
        root, backup_dir = _copy(source, tmp_path / f"r{n}"), tmp_path / f"b{n}"
        code, out, err = _Signals({first: signal.SIGINT, second: signal.SIGTERM}).run(root, backup_dir)
        assert sidecars(root) == old, (second, err)
        assert (code, err) == (
            EXIT_INTERRUPTED,
            f"agy-audit: {root / 'conversations'}: interrupted; every sidecar was restored from {backup_dir}\n",
        )


def _copy(source: Path, top: Path) -> Path:
    root = top / source.name
    shutil.copytree(source, root)
    return root


# ----------------------------------------------------------------------------- backups


def test_a_repair_that_changes_nothing_makes_no_backup(repaired, tmp_path):
    # issue 39 item 5: links repair wrote a backup of every root on every run
    source, old, new = repaired
    root = _copy(source, tmp_path / "store")
    assert cli("links", "repair", "--root", root)[0] == 0
    made = sorted(p.name for p in root.parent.iterdir() if p.name.startswith("agy-audit-links-backup-"))
    assert len(made) == 1
    code, out, err = cli("links", "repair", "--root", root, "--format", "json")
    assert (code, err) == (0, "")
    doc = json.loads(out)["result"]["roots"][0]
    assert (doc["changes"], doc["backup"], doc["verification"]) == ([], None, None)
    assert sorted(p.name for p in root.parent.iterdir() if p.name.startswith("agy-audit-links-backup-")) == made


@pytest.fixture
def repaired_with_backup(repaired, tmp_path):
    source, old, new = repaired
    root = _copy(source, tmp_path / "store")
    assert cli("links", "repair", "--root", root, "--backup", tmp_path / "bk")[0] == 0
    return root, tmp_path / "bk" / "manifest.json"


@pytest.mark.parametrize("force", [False, True])
def test_a_manifest_whose_root_was_changed_is_not_restored_there(repaired_with_backup, tmp_path, force):
    # issue 38 item 7: links rollback --force wrote wherever a tampered manifest's root pointed
    root, manifest = repaired_with_backup
    elsewhere = tmp_path / "elsewhere" / "conversations"
    elsewhere.mkdir(parents=True)
    (elsewhere / "keep.txt").write_text("mine")
    doc = json.loads(manifest.read_text())
    name = next(iter(doc["files"]))
    (elsewhere / name).write_text('{"not": "the backed-up sidecar"}')
    doc["root"] = str(elsewhere)
    manifest.write_text(json.dumps(doc))
    code, out, err = cli("links", "rollback", "--backup", tmp_path / "bk", *(["--force"] if force else []))
    assert (code, out) == (1, "")
    assert err == (
        f"agy-audit: {elsewhere}: not the directory {tmp_path / 'bk'} was taken from: it holds none of the backed-up "
        "sidecars with its backed-up or repaired bytes (a manifest whose root was changed?); nothing rolled back\n"
    )
    assert sorted(p.name for p in elsewhere.iterdir()) == sorted(["keep.txt", name])
    assert (elsewhere / name).read_text() == '{"not": "the backed-up sidecar"}'


@pytest.mark.parametrize(("field", "value"), [("mtimeNs", 10**30), ("mtimeNs", -(10**30)), ("size", -1), ("sha256", "x" * 64)])
def test_an_out_of_range_manifest_entry_is_one_line(repaired_with_backup, tmp_path, field, value):
    root, manifest = repaired_with_backup
    before = sidecars(root)
    doc = json.loads(manifest.read_text())
    name = next(iter(doc["files"]))
    doc["files"][name][field] = value
    manifest.write_text(json.dumps(doc))
    for action in ("rollback", "verify"):
        code, out, err = cli("links", action, "--backup", tmp_path / "bk", "--force" if action == "rollback" else "--unchanged")
        why = f": {field} out of range" if field != "sha256" else ""
        assert (code, out, err) == (2, "", f"agy-audit: {manifest}: malformed entry {name!r}{why}\n")
    assert sidecars(root) == before
