"""``agy-audit sweep`` against the simulated daemon and natively, and the corpus it leaves."""

import hashlib
import io
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from audit import safeio, safewrite
from audit.actions.sweep import (
    NOT_COVERED_LEGACY,
    SKIP_DUPLICATE_PB,
    SKIP_IMPLICIT,
    SKIP_NO_SOURCE,
    backup_database,
    corpus_writer,
    sweep,
)
from audit.actions.sweep import run as sweep_run
from audit.actions.sweep import session as sweep_session
from audit.cli import main
from audit.progress import Progress, progress_line
from audit.resources import data_path
from audit.store.layout import resolve_roots
from audit.store.trajectory import read_trajectory
from audit.testing import StoreBuilder, sample
from audit.testing.daemon import SimulatedDaemon

TOKEN = "sweep-token-5e1f0c2a9b7d4e6f"
INTERNAL = "c0ffee00-2222-4000-8000-00000000000c"
SCHEMA = json.loads((data_path("schemas") / "manifest.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)


class Store:
    def __init__(self, home: Path) -> None:
        self.home = home
        b = StoreBuilder(home, seed=11)
        self.cli = b.root("cli")
        self.wal = self.cli.conversation(turns=2, wal_steps=2)
        self.renamed = self.cli.conversation(turns=1, internal_cascade_id=INTERNAL)
        self.legacy = self.cli.conversation(turns=1, db=False, legacy_pb=True, brain=False)
        self.dup = self.cli.conversation(turns=1, legacy_pb=True)
        self.implicit = self.cli.implicit()
        self.ide = b.root("ide").conversation(turns=1)
        self.acp = b.root("acp").conversation(turns=1, db=False, sidecar="missing")

    def daemon(self, **kwargs) -> SimulatedDaemon:
        return SimulatedDaemon(self.cli.path, token=TOKEN, trajectories={self.legacy.id: self.legacy.trajectory}, **kwargs)


@pytest.fixture
def store(tmp_path):
    return Store(tmp_path / "home")


@pytest.fixture
def native_store(store):
    """The store without its legacy .pb-only session: a native sweep covers every session."""
    store.legacy.paths["legacy_pb"].unlink()
    return store


def snapshot(home: Path) -> dict[str, tuple[bytes, int]]:
    files = {}
    for dirpath, _, names in os.walk(home):
        for name in names:
            path = Path(dirpath, name)
            data = os.readlink(path).encode() if path.is_symlink() else path.read_bytes()
            files[str(path)] = (data, path.lstat().st_mtime_ns)
    return files


def every_byte(out: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file())


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(["sweep", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def manifest(out: Path) -> dict:
    doc = json.loads((out / "manifest.json").read_text())
    assert sorted(e.message for e in VALIDATOR.iter_errors(doc)) == []
    return doc


def check_files(out: Path, doc: dict) -> None:
    """Every written file is listed with its sha256; nothing else is in the directory; modes are private."""
    listed = {rel: digest for s in doc["sessions"] + doc.get("notCovered", []) for rel, digest in s["files"].items()}
    listed |= {rel: digest for r in doc["roots"] for rel, digest in r["files"].items()}  # per-install files
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} - {"manifest.json"}
    assert on_disk == set(listed)
    for rel, digest in listed.items():
        assert hashlib.sha256((out / rel).read_bytes()).hexdigest() == digest
    for path in [out, *out.rglob("*")]:
        assert stat.S_IMODE(path.lstat().st_mode) == (0o700 if path.is_dir() else 0o600), path


# ----------------------------------------------------------------------------- daemon


def test_daemon_sweep_collects_everything(store, tmp_path, capsys, monkeypatch):
    out = tmp_path / "corpus"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    with store.daemon() as sim:
        before = snapshot(store.home)
        code, stdout, stderr = run(capsys, "--home", store.home, "--out", out, "--include-implicit")
        assert snapshot(store.home) == before  # live stores untouched (bytes and mtimes)
        served = {cid: sim.served(cid) for cid in (store.wal.id, INTERNAL, store.legacy.id, store.dup.id)}
        calls, url = list(sim.calls), sim.url
    assert code == 0, stderr
    doc = manifest(out)
    check_files(out, doc)
    assert doc["complete"] is True and doc["finished"] is not None and doc["failures"] == []
    assert doc["installedAgyVersion"] is None
    assert [(r["product"], r["source"], r["endpoint"]) for r in doc["roots"]] == [
        ("ide", "native", None),
        ("acp", "native", None),
        ("cli", "daemon", url),
    ]
    sessions = {s["id"]: s for s in doc["sessions"]}
    assert doc["selected"] == len(sessions) == 6
    assert sessions[store.ide.id]["source"] == "native"
    acp_transcript = f"native/acp/brain/{store.acp.id}/.system_generated/logs/transcript.jsonl"  # brain-only: copied
    assert {k: v for k, v in sessions[store.acp.id].items() if k != "files"} == {
        "id": store.acp.id,
        "cascadeId": store.acp.id,
        "product": "acp",
        "source": "native",
        "steps": len(store.acp.trajectory["steps"]),
    }
    assert acp_transcript in sessions[store.acp.id]["files"] and not any(
        k.startswith("corpus/") for k in sessions[store.acp.id]["files"]
    )
    assert sessions[store.renamed.id]["cascadeId"] == INTERNAL
    for convo, cid in (
        (store.wal, store.wal.id),
        (store.renamed, INTERNAL),
        (store.legacy, store.legacy.id),
        (store.dup, store.dup.id),
    ):
        entry = sessions[convo.id]
        assert entry["source"] == "daemon" and entry["product"] == "cli"
        assert (out / f"corpus/cli/{convo.id}.trajectory.json").read_bytes() == served[cid]  # bytes unchanged
        assert entry["steps"] == len(json.loads(served[cid])["steps"])
    assert f"native/cli/{store.legacy.id}.db" not in sessions[store.legacy.id]["files"]
    assert f"native/cli/brain/{store.wal.id}/.system_generated/logs/transcript.jsonl" in sessions[store.wal.id]["files"]
    assert ("GetCascadeTrajectory", store.renamed.id) in calls and ("GetCascadeTrajectory", INTERNAL) in calls
    assert {(s["path"], s["reason"]) for s in doc["skipped"]} == {
        (str(store.implicit), SKIP_IMPLICIT),
        (str(store.dup.paths["legacy_pb"]), SKIP_DUPLICATE_PB),
    }
    assert stdout.startswith("sweep: selected=6 swept=6 not-covered=0 failures=0 skipped=2 complete=yes\n")
    assert TOKEN.encode() not in every_byte(out) and TOKEN not in stdout + stderr


def test_native_copy_is_standalone_and_includes_wal_content(native_store, tmp_path, capsys):
    store = native_store
    out = tmp_path / "corpus"
    assert run(capsys, "--home", store.home, "--out", out, "--source", "native")[0] == 0
    copy = out / f"native/cli/{store.wal.id}.db"
    assert copy.read_bytes()[18:20] == b"\x01\x01"
    conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)
        assert conn.execute("SELECT count(*) FROM steps").fetchone()[0] == len(store.wal.steps)
    finally:
        conn.close()
    assert sorted(p.name for p in copy.parent.glob(f"{store.wal.id}.db*")) == [copy.name]


FAILURE_TEXT = {
    "unauthorized": "daemon authentication failed: HTTP 401 on GetCascadeTrajectory (check CSRF token discovery or ANTIGRAVITY_CSRF_TOKEN)",
    "internal": "daemon error HTTP 500 on GetCascadeTrajectory: simulated failure for {id} (internal)",
    "timeout": "GetCascadeTrajectory: no answer from the daemon within 0.3s",
    "malformed": "GetCascadeTrajectory: malformed response envelope: invalid JSON at line 1 column 80: Expecting value",
    "empty": "GetCascadeTrajectory: malformed response envelope: empty envelope: no trajectory member",
    "null": "GetCascadeTrajectory: malformed response envelope: trajectory is null, not an object",
}


@pytest.mark.parametrize("keep_going", [False, True])
@pytest.mark.parametrize("mode", sorted(FAILURE_TEXT))
def test_each_failure_mode_fails_closed(store, tmp_path, capsys, monkeypatch, mode, keep_going):
    out = tmp_path / "corpus"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    failing = store.dup.id
    with store.daemon(failures={failing: mode}, hang=2) as sim:
        before = snapshot(store.home)
        timeout = "0.3" if mode == "timeout" else "10"  # only the hang must outlast it; a busy machine answers late
        argv = ["--home", store.home, "--out", out, "--timeout", timeout, *(["--keep-going"] if keep_going else [])]
        code, stdout, stderr = run(capsys, *argv)
        assert snapshot(store.home) == before
        order = [cid for method, cid in sim.calls if method == "LoadTrajectory"]
    assert code == 1
    assert stderr.strip().endswith(f"incomplete corpus retained at {out}: do not record from it")
    assert "agy-audit: sweep incomplete (1 failure(s))" in stderr
    doc = manifest(out)
    check_files(out, doc)
    assert doc["complete"] is False and doc["finished"] is not None
    message = FAILURE_TEXT[mode].format(id=failing)
    swept = [s["id"] for s in doc["sessions"]]
    if mode == "unauthorized":  # a rejected token stops the sweep of that root, --keep-going or not
        left = 4 - 1 - order.index(failing)  # of the four daemon sessions of the cli root
        message += f"; sweep of {store.cli.path} stopped: {left} more session(s) of this root not tried"
        assert order[-1] == failing
    assert doc["failures"] == [{"id": failing, "stage": "fetch", "message": message}]
    assert failing not in swept
    assert not any(failing in p.name for p in out.rglob("*"))  # nothing of the failed session, no sidecar fallback
    if keep_going and mode == "unauthorized":
        assert len(swept) == 2 + order.index(failing)  # the ide and acp sessions, and the cli ones before it
    elif keep_going:
        assert len(swept) == doc["selected"] - 1 == 5
    else:
        assert order[-1] == failing and len(swept) == 2 + order.index(failing)  # the ide and acp sessions came first
    assert f"failed: {failing} [fetch] " in stdout
    assert TOKEN.encode() not in every_byte(out) and TOKEN not in stdout + stderr


def test_keep_going_collects_every_failure(store, tmp_path, capsys, monkeypatch):
    out = tmp_path / "corpus"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    with store.daemon(failures={store.wal.id: "internal", store.legacy.id: "empty"}):
        code, _, _ = run(capsys, "--home", store.home, "--out", out, "--keep-going")
    doc = manifest(out)
    assert code == 1 and doc["complete"] is False
    assert sorted(f["id"] for f in doc["failures"]) == sorted([store.wal.id, store.legacy.id])
    assert len(doc["sessions"]) == 4


def test_a_missing_token_stops_the_root_with_one_message(store, tmp_path, capsys):
    """Every session would get the same 401: one failure for the root, even with --keep-going."""
    out = tmp_path / "corpus"
    with store.daemon() as sim:
        code, stdout, stderr = run(capsys, "--home", store.home, "--out", out, "--keep-going")
        loads = [cid for method, cid in sim.calls if method == "LoadTrajectory"]
    doc = manifest(out)
    assert code == 1
    assert loads == []  # the simulator logs only accepted calls: the first was refused
    [failure] = doc["failures"]
    assert failure["stage"] == "fetch"
    assert failure["message"] == (
        "daemon authentication failed: HTTP 401 on LoadTrajectory (check CSRF token discovery or ANTIGRAVITY_CSRF_TOKEN); "
        f"sweep of {store.cli.path} stopped: 3 more session(s) of this root not tried"
    )
    assert sorted(s["product"] for s in doc["sessions"]) == ["acp", "ide"]  # the other roots were swept
    assert stdout.count("daemon authentication failed") == 1


def test_identity_is_checked(store, tmp_path, capsys, monkeypatch):
    out = tmp_path / "corpus"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    anonymous = {k: v for k, v in store.wal.trajectory.items() if k != "cascadeId"}
    supplied = {store.wal.id: anonymous, store.legacy.id: store.legacy.trajectory}
    with SimulatedDaemon(store.cli.path, token=TOKEN, trajectories=supplied):
        code, _, _ = run(capsys, "--root", store.cli.path, "--out", out)
    doc = manifest(out)
    assert code == 1
    assert doc["failures"] == [
        {
            "id": store.wal.id,
            "stage": "identity",
            "message": f"{store.wal.id}: trajectory cascadeId 'None' is neither the file id nor the internal cascade id {store.wal.id}",
        }
    ]


def test_a_daemon_sweep_keeps_each_conversations_generator_metadata_answer(store, tmp_path, capsys, monkeypatch):
    out = tmp_path / "corpus"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    with store.daemon() as sim:
        code, _, stderr = run(capsys, "--root", store.cli.path, "--out", out, "--source", "daemon")
        calls = [call for call in sim.calls if call[0] == "GetCascadeTrajectoryGeneratorMetadata"]
    assert code == 0, stderr
    assert sorted(cid for _, cid in calls) == sorted([store.wal.id, INTERNAL, store.legacy.id, store.dup.id])
    sessions = {s["id"]: s for s in manifest(out)["sessions"]}
    for convo in (store.wal, store.renamed, store.legacy, store.dup):
        rel = f"native/cli/rpc/{convo.id}.GetCascadeTrajectoryGeneratorMetadata.json"
        answer = json.loads((out / rel).read_text())
        assert answer == {"generatorMetadata": convo.trajectory["generatorMetadata"]} and rel in sessions[convo.id]["files"]
    native = tmp_path / "native"
    assert run(capsys, "--root", store.cli.path, "--out", native, "--source", "native")[0] == 1  # the .pb is not covered
    assert not (native / "native" / "cli" / "rpc").exists()  # no daemon, no answer


def test_a_daemon_without_the_generator_metadata_call_is_no_failure(store, tmp_path, capsys, monkeypatch):
    out = tmp_path / "corpus"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    with store.daemon() as sim:
        real = sim._answer  # an older daemon: the call is not implemented

        def answer(method: str, headers, body: bytes) -> tuple[int, bytes]:
            return (
                (404, b'{"code": "unimplemented"}')
                if method == "GetCascadeTrajectoryGeneratorMetadata"
                else real(method, headers, body)
            )

        monkeypatch.setattr(sim, "_answer", answer)
        code, _, stderr = run(capsys, "--root", store.cli.path, "--out", out, "--source", "daemon")
    assert code == 0, stderr
    assert manifest(out)["complete"] is True and not (out / "native" / "cli" / "rpc").exists()


def test_daemon_source_requires_a_daemon(store, tmp_path, capsys):
    out = tmp_path / "corpus"
    code, _, stderr = run(capsys, "--root", store.cli.path, "--out", out, "--source", "daemon")
    assert code == 2 and "no reachable daemon" in stderr
    assert not os.path.lexists(out)


def test_remote_daemon_is_refused_without_traffic(store, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", "http://10.0.0.1:9")
    code, _, stderr = run(capsys, "--root", store.cli.path, "--out", tmp_path / "corpus")
    assert code == 2
    assert stderr == "agy-audit: daemon host 10.0.0.1 is not a loopback address; pass --allow-remote-daemon to use it\n"
    assert not os.path.lexists(tmp_path / "corpus")


# ----------------------------------------------------------------------------- native


def test_native_sweep(store, tmp_path, capsys):
    out = tmp_path / "corpus"
    before = snapshot(store.home)
    code, stdout, stderr = run(capsys, "--home", store.home, "--out", out, "--source", "native")
    assert snapshot(store.home) == before
    assert code == 1  # the legacy .pb-only session is not covered
    assert stderr == (
        f"agy-audit: sweep incomplete (1 session(s) not covered: {NOT_COVERED_LEGACY}; --readable-only leaves them out); "
        f"incomplete corpus retained at {out}: do not record from it\n"
    )
    doc = manifest(out)
    check_files(out, doc)
    assert doc["complete"] is False and doc["failures"] == [] and {r["source"] for r in doc["roots"]} == {"native"}
    assert doc["selected"] == 6
    assert doc["notCovered"] == [
        {
            "id": store.legacy.id,
            "product": "cli",
            "path": str(store.legacy.paths["legacy_pb"]),
            "reason": NOT_COVERED_LEGACY,
            "files": {},
        }
    ]
    sessions = {s["id"]: s for s in doc["sessions"]}
    assert set(sessions) == {store.wal.id, store.renamed.id, store.dup.id, store.ide.id, store.acp.id}
    assert sessions[store.renamed.id]["cascadeId"] == INTERNAL
    assert not (out / "corpus" / "acp").exists()  # brain-only: transcripts copied, no trajectory made up
    brain = out / "native" / "acp" / "brain" / store.acp.id
    assert {p.relative_to(brain) for p in brain.rglob("*") if p.is_file()} == {
        p.relative_to(store.acp.paths["brain"]) for p in store.acp.paths["brain"].rglob("*") if p.is_file()
    }
    for convo in (store.wal, store.renamed, store.dup, store.ide):
        corpus = (out / f"corpus/{sessions[convo.id]['product']}/{convo.id}.trajectory.json").read_bytes()
        expected = read_trajectory(convo.paths["db"]).trajectory
        assert json.loads(corpus) == expected
        assert corpus == (json.dumps(expected, indent=2, ensure_ascii=False) + "\n").encode()
        assert sessions[convo.id]["steps"] == len(convo.steps)
    assert str(store.legacy.paths["legacy_pb"]) not in {s["path"] for s in doc["skipped"]}
    assert not any(s["reason"] == SKIP_IMPLICIT for s in doc["skipped"])  # only with --include-implicit
    assert f"not covered: {store.legacy.id} {store.legacy.paths['legacy_pb']}: {NOT_COVERED_LEGACY}\n" in stdout


def test_sample_home_sweeps_natively(tmp_path, capsys):
    """The sample store of the quick start (``examples/home`` is generated by ``audit.testing.sample``)."""
    home = tmp_path / "home"
    sample.build(home)
    before = snapshot(home)
    code, stdout, stderr = run(capsys, "--home", home, "--out", tmp_path / "corpus", "--source", "native", "--include-implicit")
    assert code == 0, stderr
    assert snapshot(home) == before
    doc = manifest(tmp_path / "corpus")
    check_files(tmp_path / "corpus", doc)
    databases = {p.stem for p in home.glob(".gemini/*/conversations/*.db")}
    brain_only = {p.name for p in home.glob(".gemini/*/brain/*")} - databases
    assert len(brain_only) == 2  # the headless ACP run, and the chunk-only one
    assert doc["complete"] is True and doc["selected"] == len(databases) + 2
    assert sorted(s["id"] for s in doc["sessions"]) == sorted(databases | brain_only)
    encrypted = {str(p) for p in home.glob(".gemini/*/*/*.pb")}  # legacy and implicit
    assert encrypted and encrypted <= {s["path"] for s in doc["skipped"]}


def test_backup_without_shm_or_wal_content_creates_nothing_beside_the_store(tmp_path):
    source = tmp_path / "source.db"
    writer = sqlite3.connect(source, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("CREATE TABLE t (v)")
    writer.execute("INSERT INTO t VALUES (1), (2)")
    live = tmp_path / "live"
    live.mkdir()
    (live / "crashed.db").write_bytes(source.read_bytes())  # a crashed writer: .db + -wal, no -shm
    (live / "crashed.db-wal").write_bytes(Path(f"{source}-wal").read_bytes())
    writer.close()  # checkpoints: source.db is now a WAL-mode database without -wal content
    (live / "idle.db").write_bytes(source.read_bytes())
    before = snapshot(live)
    images = {name: backup_database(live / name) for name in ("crashed.db", "idle.db")}
    assert snapshot(live) == before
    for name, image in images.items():
        copy = tmp_path / f"copy-{name}"
        copy.write_bytes(image)
        assert sqlite3.connect(copy).execute("SELECT count(*) FROM t").fetchone() == (2,), name


# ----------------------------------------------------------------------------- output directory


@pytest.mark.parametrize("kind", ["directory", "file", "symlink", "dangling-symlink", "parent-is-file", "inside-store"])
def test_out_dir_must_be_new_and_creatable(store, tmp_path, capsys, kind):
    out = tmp_path / "corpus"
    if kind == "directory":
        out.mkdir()
    elif kind == "file":
        out.write_text("x")
    elif kind == "symlink":
        (tmp_path / "target").mkdir()
        out.symlink_to(tmp_path / "target")
    elif kind == "dangling-symlink":
        out.symlink_to(tmp_path / "nowhere")
    elif kind == "parent-is-file":
        (tmp_path / "plain").write_text("x")
        out = tmp_path / "plain" / "corpus"
    else:
        out = store.cli.path / "corpus"
    before = snapshot(tmp_path)
    code, stdout, stderr = run(capsys, "--home", store.home, "--out", out, "--source", "native")
    assert code == 2 and stdout == ""
    assert snapshot(tmp_path) == before
    expected = {
        "parent-is-file": f"{out}: cannot create directory (Not a directory)",
        "inside-store": f"{out}: inside the store root {store.cli.path}; write the corpus elsewhere",
    }.get(kind, f"{out}: already exists; the sweep needs a new directory")
    assert stderr == f"agy-audit: {expected}\n"
    if kind == "symlink":
        assert list((tmp_path / "target").iterdir()) == []


def test_nothing_to_sweep_exits_3(tmp_path, capsys):
    b = StoreBuilder(tmp_path / "home", seed=1)
    b.root("cli").conversation(db=False, brain=False)  # a sidecar alone
    code, _, stderr = run(capsys, "--home", tmp_path / "home", "--out", tmp_path / "corpus", "--source", "native")
    assert code == 3
    assert stderr == "agy-audit: nothing to sweep: no .db, .pb or brain transcript selected (1 file(s) skipped)\n"
    assert not os.path.lexists(tmp_path / "corpus")


# ----------------------------------------------------------------------------- manifest, progress, interrupt


def test_manifest_is_written_first_incomplete_and_progress_is_reported(native_store, tmp_path):
    store = native_store
    out = tmp_path / "corpus"
    seen = []

    def progress(done, total, current):
        doc = manifest(out)
        seen.append((done, total, current, doc["complete"], doc["finished"], len(doc["sessions"])))

    result = sweep(resolve_roots(roots=[store.cli.path]), out, source="native", progress=progress)
    ids = [s.id for s in result.sessions]
    assert seen == [(i, 3, cid, False, None, 0) for i, cid in enumerate(ids)]
    assert result.complete and manifest(out) == result.manifest()
    assert progress_line("sweep", "sessions", 3, 10, store.wal.id, 2.0) == f"sweep: 3/10 sessions, 1.5/s, now {store.wal.id}"


def test_interrupt_leaves_an_incomplete_manifest(store, tmp_path, capsys, monkeypatch):
    out = tmp_path / "corpus"
    real, calls = sweep_run.sweep_one, []

    def interrupted(item, *args):
        calls.append(item.session.id)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(item, *args)

    monkeypatch.setattr(sweep_run, "sweep_one", interrupted)
    code, stdout, stderr = run(capsys, "--root", store.cli.path, "--out", out, "--source", "native")
    assert code == 130
    assert stderr == f"agy-audit: interrupted; incomplete corpus retained at {out}: do not record from it\n"
    doc = manifest(out)
    check_files(out, doc)
    assert doc["complete"] is False and doc["finished"] is not None and len(doc["sessions"]) == 1
    assert doc["failures"] == [
        {"id": calls[1], "stage": "interrupted", "message": "interrupted before every selected session was swept"}
    ]


def test_json_summary_and_installed_agy_version(store, tmp_path, capsys, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    agy = bin_dir / "agy"
    agy.write_text("#!/bin/sh\necho 'agy 1.2.11 (linux/amd64)'\necho extra\n")
    agy.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    out = tmp_path / "corpus"
    code, stdout, stderr = run(capsys, "--root", store.ide.root, "--out", out, "--format", "json")
    assert code == 0 and stderr == ""
    printed = json.loads(stdout)["result"]
    assert printed == {"out": str(out), "manifest": manifest(out)}
    assert printed["manifest"]["installedAgyVersion"] == "agy 1.2.11 (linux/amd64)"


@pytest.mark.parametrize("newest", ["first root", "second root"])
@pytest.mark.parametrize("products", [("ide", "ide"), ("cli", "ide")])
def test_one_id_in_two_roots_is_swept_once_from_the_newest(tmp_path, capsys, newest, products):
    """The rule ``stores show``, ``export`` and ``inspect`` apply: the root whose artifacts are newest,
    whatever the roots' names or products; the other is listed as skipped, naming it."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    names = ("antigravity", "antigravity-ide") if products == ("ide", "ide") else ("antigravity-cli", "antigravity-ide")
    first = b.root(products[0], name=names[0]).conversation(turns=1, brain=False)
    second = b.root(products[1], name=names[1]).conversation(first.id, turns=2, brain=False)  # the builder's clock moves forward
    if newest == "first root":
        for path in first.paths.values():
            os.utime(path, ns=(second.end_ns + 60 * 10**9,) * 2)  # after its sidecar too
    kept, other = (first, second) if newest == "first root" else (second, first)
    out = tmp_path / "corpus"
    assert run(capsys, "--home", tmp_path / "home", "--out", out, "--source", "native")[0] == 0
    doc = manifest(out)
    product = products[0] if kept is first else products[1]
    assert [(s["id"], s["product"], s["steps"]) for s in doc["sessions"]] == [(first.id, product, len(kept.steps))]
    assert doc["skipped"] == [
        {"path": str(other.paths["db"]), "reason": f"id also in {kept.root} (artifacts here older); swept from there"}
    ]
    assert main(["stores", "--home", str(tmp_path / "home"), "show", first.id, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["result"]["root"] == str(kept.root)  # the same choice


def test_progress_line_is_throttled_and_ended():
    stream = io.StringIO()
    reporter = Progress(stream, "sweep", "sessions")
    reporter(0, 4, "a")
    assert stream.getvalue() == ""  # short sweeps show nothing
    reporter.start -= 10
    reporter(2, 4, "b")
    reporter(3, 4, "c")  # within the throttle interval
    reporter.close()
    assert stream.getvalue().startswith("\rsweep: 2/4 sessions, 0.2/s, now b\x1b[K")
    assert stream.getvalue().endswith("\n") and "now c" not in stream.getvalue()


def test_symbolic_links_and_foreign_files_in_a_store_are_listed_as_skipped(tmp_path, capsys):
    b = StoreBuilder(tmp_path / "home", seed=6)
    root = b.root("cli")
    convo = root.conversation(turns=1, brain=False)
    conversations = root.path / "conversations"
    outside = tmp_path / "elsewhere.db"
    outside.write_bytes(convo.paths["db"].read_bytes())
    link = conversations / "0f8fad5b-d9cb-469f-a165-70867728950e.db"
    link.symlink_to(outside)
    stray = conversations / "notes.txt"
    stray.write_text("mine")
    out = tmp_path / "corpus"
    assert run(capsys, "--root", root.path, "--out", out, "--source", "native")[0] == 0
    doc = manifest(out)
    assert [s["id"] for s in doc["sessions"]] == [convo.id]
    assert doc["skipped"] == [
        {"path": str(link), "reason": "symbolic link (not followed)"},
        {"path": str(stray), "reason": "name is not <uuid>.<known extension>"},
    ]
    assert not any(p.name.startswith("0f8fad5b") for p in out.rglob("*"))


def test_sigterm_finalises_an_incomplete_manifest_and_exits_143(store, tmp_path):
    """A cancelled CI job sends SIGTERM: the sweep stops like Ctrl-C, in a real process."""
    out = tmp_path / "corpus"
    env = {**os.environ, "ANTIGRAVITY_CSRF_TOKEN": TOKEN, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    with store.daemon(failures={store.dup.id: "timeout"}, hang=30) as sim:
        env["ANTIGRAVITY_DAEMON_URL"] = sim.url  # another process sees the real /proc, where the simulator is no agy
        proc = subprocess.Popen(
            [sys.executable, "-m", "audit", "sweep", "--root", store.cli.path, "--out", out, "--timeout", "60"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        deadline = time.monotonic() + 30
        while ("LoadTrajectory", store.dup.id) not in sim.calls and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)  # the fetch of the hanging session is under way
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert stderr.splitlines()[-1] == f"agy-audit: interrupted; incomplete corpus retained at {out}: do not record from it"
    doc = manifest(out)
    check_files(out, doc)
    assert doc["complete"] is False and doc["finished"] is not None
    assert doc["failures"][-1] == {
        "id": store.dup.id,
        "stage": "interrupted",
        "message": "interrupted before every selected session was swept",
    }
    assert not any(p.name.startswith(".") for p in out.rglob("*"))  # no temp file left behind


def test_a_sidecar_alone_is_never_a_source(tmp_path, capsys):
    root = StoreBuilder(tmp_path / "home", seed=8).root("cli")
    kept = root.conversation(turns=1, brain=False)
    alone = root.conversation(turns=1, db=False, brain=False)
    out = tmp_path / "corpus"
    assert run(capsys, "--root", root.path, "--out", out, "--source", "native")[0] == 0
    doc = manifest(out)
    assert [s["id"] for s in doc["sessions"]] == [kept.id]
    assert doc["skipped"] == [{"path": str(alone.paths["sidecar"]), "reason": SKIP_NO_SOURCE}]


def test_brain_only_steps_count_the_copied_transcript_not_the_growing_one(tmp_path, capsys, monkeypatch):
    root = StoreBuilder(tmp_path / "home", seed=9).root("acp")
    convo = root.conversation(turns=2, db=False, sidecar="missing")
    live = convo.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl"
    records = len(live.read_bytes().splitlines())
    real = sweep_session.read_bytes

    def then_the_agent_writes_on(path, **kwargs):
        data = real(path, **kwargs)
        if path == live:
            with open(live, "ab") as fh:
                fh.write(data.splitlines(keepends=True)[-1])  # one more record after our copy
        return data

    monkeypatch.setattr(sweep_session, "read_bytes", then_the_agent_writes_on)
    out = tmp_path / "corpus"
    assert run(capsys, "--root", root.path, "--out", out, "--source", "native")[0] == 0
    (session,) = manifest(out)["sessions"]
    assert session["steps"] == records and len(live.read_bytes().splitlines()) == records + 1


def test_brain_only_steps_include_rolling_transcript_chunks(tmp_path, capsys):
    """Chunks are the flat file cut every 102,400 bytes, mid-line (docs/store-format.md#chunks): a
    session with both is counted once, a chunk-only session like a flat one."""
    root = StoreBuilder(tmp_path / "home", seed=10).root("acp")
    both = root.conversation(turns=2, db=False, sidecar="missing", transcript_chunks="both")
    only = root.conversation(turns=2, db=False, sidecar="missing", transcript_chunks="only")
    out = tmp_path / "corpus"
    assert run(capsys, "--root", root.path, "--out", out, "--source", "native")[0] == 0
    sessions = {s["id"]: s for s in manifest(out)["sessions"]}
    for convo in (both, only):
        logs = convo.paths["brain"] / ".system_generated" / "logs"
        parts = sorted((logs / "chunks" / "transcript").iterdir())
        lines = b"".join(p.read_bytes() for p in parts).splitlines()
        assert sessions[convo.id]["steps"] == len(lines)
        assert (
            f"native/acp/brain/{convo.id}/.system_generated/logs/chunks/transcript/00000000.jsonl" in sessions[convo.id]["files"]
        )
    assert not (only.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl").exists()


def _fsynced(monkeypatch) -> list[str]:
    """Records the path of every fsynced descriptor, in order (the manifest's temp file as MANIFEST)."""
    real, synced = os.fsync, []

    def fsync(fd):
        path = os.readlink(f"/proc/self/fd/{fd}")
        name = os.path.basename(path)
        synced.append("MANIFEST" if name.startswith(".manifest.json.agy") else path)
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    return synced


REAL_SYNCFS = safewrite._syncfs_function()


def _syncfs(monkeypatch, how: str, synced: list[str]) -> None:
    """syncfs(2) as *how*: "works" (the real one, recorded as "syncfs <path of its descriptor>"),
    "fails" (recorded, returns -1 like an I/O error) or "unavailable" (not looked up)."""

    def recorded(fd):
        synced.append(f"syncfs {os.readlink(f'/proc/self/fd/{fd}')}")
        return REAL_SYNCFS(fd) if how == "works" else -1

    monkeypatch.setattr(safewrite, "_syncfs_function", lambda: None if how == "unavailable" else recorded)
    monkeypatch.setattr(safewrite, "_filesystem_type", lambda fd: 0xEF53)  # ext4, wherever the test runs


needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc/self/fd to name descriptors")


@needs_proc
@pytest.mark.skipif(REAL_SYNCFS is None, reason="needs Linux 5.8+ syncfs(2)")
def test_one_syncfs_makes_the_corpus_durable_before_the_final_manifest(native_store, tmp_path, monkeypatch):
    store = native_store
    out = tmp_path / "corpus"
    synced = _fsynced(monkeypatch)
    _syncfs(monkeypatch, "works", synced)
    result = sweep(resolve_roots(roots=[store.cli.path]), out, source="native")
    assert result.complete and len(result.sessions) == 3
    # the first manifest (atomic_write: file, then directory), one syncfs of the corpus
    # filesystem through the descriptor held on the corpus, then the final manifest
    assert synced == ["MANIFEST", str(out), f"syncfs {out}", "MANIFEST", str(out)]
    check_files(out, manifest(out))


@needs_proc
@pytest.mark.parametrize("how", ["unavailable", "fails"])
def test_every_file_and_directory_the_manifest_lists_is_durable_before_it(native_store, tmp_path, monkeypatch, how):
    """Without a working syncfs(2) each file and directory is fsynced, once, before the final manifest."""
    store = native_store
    out = tmp_path / "corpus"
    synced = _fsynced(monkeypatch)
    _syncfs(monkeypatch, how, synced)
    result = sweep(resolve_roots(roots=[store.cli.path]), out, source="native")
    assert result.complete
    listed = [out / rel for s in result.sessions for rel in s.files]
    directories = {p for f in listed for p in f.parents if p == out or out in p.parents}
    final = len(synced) - 1 - synced[::-1].index("MANIFEST")  # the final manifest's own fsync
    before = synced[:final]
    assert synced.count("MANIFEST") == 2  # written first incomplete, then at the end
    assert {str(p) for p in listed} | {str(d) for d in directories} <= set(before)
    assert synced[:2] == ["MANIFEST", str(out)]  # the first manifest (atomic_write: file, then directory)
    tried = [f"syncfs {out}"] if how == "fails" else []
    assert synced[2 : 2 + len(tried)] == tried  # a failed syncfs is tried once, first
    assert len(before) - 2 - len(tried) == len(listed) + len(directories)  # then every file and directory once
    assert before[-1] == str(out)  # children before parents: the corpus directory last


@pytest.mark.parametrize("how", ["unavailable", "fails"])
def test_a_file_that_cannot_be_synced_leaves_the_corpus_incomplete(store, tmp_path, monkeypatch, how):
    out = tmp_path / "corpus"
    real = os.fsync
    _syncfs(monkeypatch, how, [])

    def fsync(fd):
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).endswith(".db"):
            raise OSError(5, "Input/output error")
        return real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    result = sweep(resolve_roots(roots=[store.cli.path]), out, source="native")
    doc = manifest(out)
    assert not result.complete and doc["complete"] is False
    [failure] = doc["failures"]
    assert failure["stage"] == "write" and failure["id"] is None
    assert failure["message"].endswith(".db: cannot sync to disk (Input/output error); the corpus is not durable")


def test_a_failed_session_leaves_none_of_its_files_and_the_next_recreates_the_directories(tmp_path, capsys, monkeypatch):
    """The first session fails on its second brain file, after its .db, trajectory and first brain
    file were written: they and the directories they emptied are removed (every one of them was
    made for it), and the next session creates them again."""
    root = StoreBuilder(tmp_path / "home", seed=12).root("cli")
    first, second = sorted((root.conversation(turns=2), root.conversation(turns=2)), key=lambda c: c.id)
    real, written = corpus_writer.create_in_private_dir, []

    def full_disk(path, data):
        written.append(path)
        if f"/brain/{first.id}/" in path and sum(f"/brain/{first.id}/" in p for p in written) == 2:
            raise safeio.InputError(f"{path}: cannot create (No space left on device)")
        real(path, data)

    monkeypatch.setattr(corpus_writer, "create_in_private_dir", full_disk)
    out = tmp_path / "corpus"
    code, _, stderr = run(capsys, "--root", root.path, "--out", out, "--source", "native", "--keep-going")
    assert code == 1, stderr
    doc = manifest(out)
    assert [s["id"] for s in doc["sessions"]] == [second.id]
    assert doc["failures"] == [
        {"id": first.id, "stage": "write", "message": f"{written[3]}: cannot create (No space left on device)"}
    ]
    brain = f"{out}/native/cli/brain/{first.id}/"
    assert written[:2] == [f"{out}/native/cli/{first.id}.db", f"{out}/corpus/cli/{first.id}.trajectory.json"]
    assert written[2].startswith(brain) and written[3].startswith(brain)
    check_files(out, doc)  # the second session's files alone, 0600 in 0700 directories
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_dir())
    assert not any(first.id in d for d in left)
    assert {"native/cli", "corpus/cli", f"native/cli/brain/{second.id}"} <= set(left)
