"""Reliability against a hostile but realistic user: hangs, leaks, lost updates and
tracebacks a probe found. Each test reproduces one finding; the comment names its item.

Commands that could hang run in a child process with a hard timeout, so a regression fails the
test instead of stalling the suite. Root ignores permission bits: those tests run their commands
as uid 65534 (see ``unprivileged`` in test_reliability_faults).
"""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_capture import cli

from audit.cli import main
from audit.store.daemon import DaemonClient, DaemonError, DaemonTimeout
from audit.testing import StoreBuilder
from tests.reliability.test_reliability_faults import give_away, shared, unprivileged  # noqa: F401 - fixtures

REPO = Path(__file__).resolve().parents[2]


def run_cli(*argv: object, timeout: float = 15.0, env: dict | None = None) -> tuple[int, str, str, float]:
    """(exit code, stdout, stderr, seconds) of ``python -m audit ARGV`` in a child process; a
    child still running after *timeout* is killed and fails the test (a hang)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    start = time.monotonic()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "audit", *map(str, argv)],
            capture_output=True,
            timeout=timeout,
            env=full_env,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"agy-audit {' '.join(map(str, argv))} still running after {timeout}s (a hang)")
    return (
        done.returncode,
        done.stdout.decode("utf-8", "replace"),
        done.stderr.decode("utf-8", "replace"),
        time.monotonic() - start,
    )


# ----------------------------------------------------------------------------- item 1: a locked .db


def hold_exclusive(db, *, seconds):
    """Another process holding the rollback-journal *db* under BEGIN EXCLUSIVE for *seconds*."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA locking_mode=exclusive'); c.execute('BEGIN EXCLUSIVE')\n"
            "c.execute('UPDATE trajectory_meta SET cascade_id = cascade_id')\n"
            "print('locked', flush=True); time.sleep(float(sys.argv[2]))\n",
            str(db),
            str(seconds),
        ],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
    return holder


@pytest.fixture
def locked_db(tmp_path):
    """A rollback-journal conversation whose .db another process holds under BEGIN EXCLUSIVE."""
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo = root.conversation(turns=1, sidecar="missing")
    db = convo.paths["db"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    holder = hold_exclusive(db, seconds=120)
    yield root, convo
    holder.kill()
    holder.wait()


@pytest.mark.parametrize("command", ["sweep", "ci"])
def test_a_database_locked_by_another_process_fails_the_session_promptly(locked_db, tmp_path, command):
    # item 1: the backup-API copy retried SQLITE_BUSY inside C forever, deaf to Ctrl-C and SIGTERM
    root, convo = locked_db
    out = tmp_path / "out"
    if command == "sweep":
        code, stdout, err, seconds = run_cli("sweep", "--source", "native", "--root", root.path, "--out", out, "--format", "json")
    else:
        code, stdout, err, seconds = run_cli("ci", "--source", "native", "--root", root.path, "--out", out)
    assert seconds < 10 and code == 1, (code, err)
    manifest = json.loads((out / "manifest.json").read_bytes())
    assert manifest["complete"] is False
    assert [(f["id"], f["stage"]) for f in manifest["failures"]] == [(convo.id, "copy")]
    assert manifest["failures"][0]["message"] == f"{convo.paths['db']}: cannot copy the database (database is locked)"


def test_a_sweep_waiting_on_a_lock_stays_interruptible(locked_db, tmp_path, monkeypatch):
    # item 1: every long wait stays interruptible: with a long busy timeout, SIGTERM still ends it
    root, convo = locked_db
    script = (
        "import sys\n"
        "import audit.store.database as d\n"
        "d.BUSY_TIMEOUT = 600.0\n"
        "from audit.cli import main\n"
        "sys.exit(main(sys.argv[1:]))\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, "sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "out"],
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 20
    while not (tmp_path / "out" / "manifest.json").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.5)  # inside the busy wait now
    child.terminate()
    try:
        _, err = child.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        pytest.fail("a sweep waiting on a locked .db ignored SIGTERM")
    assert child.returncode == 143
    assert json.loads((tmp_path / "out" / "manifest.json").read_bytes())["complete"] is False


# ----------------------------------------------------------------------------- item 2: a trickling daemon


class Trickle:
    """A loopback HTTP server that answers every request slowly: ``headers`` header lines (one
    every ``pause`` seconds), or, with ``bytes_only``, the whole answer one byte at a time."""

    def __init__(self, *, headers: int = 40, pause: float = 0.1, bytes_only: bool = False) -> None:
        self.headers, self.pause, self.bytes_only = headers, pause, bytes_only
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        body = b'{"trajectory": {}}'
        lines = [b"HTTP/1.1 200 OK\r\n"] + [b"X-Slow-%d: 1\r\n" % n for n in range(self.headers)]
        lines += [b"Content-Length: %d\r\n\r\n" % len(body), body]
        chunks = [bytes([b]) for line in lines for b in line] if self.bytes_only else lines
        try:
            conn.recv(65536)
            for chunk in chunks:
                if self.stop.is_set():
                    break
                conn.sendall(chunk)
                time.sleep(self.pause)
        except OSError:
            pass
        finally:
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join()
        self.sock.close()


@pytest.mark.parametrize("bytes_only", [False, True])
def test_the_timeout_bounds_status_line_headers_and_body_together(bytes_only):
    # item 2: a daemon sending one header line (or one byte) at a time outlived --timeout
    server = Trickle(headers=40, pause=0.1 if not bytes_only else 0.02, bytes_only=bytes_only)
    try:
        client = DaemonClient(f"http://127.0.0.1:{server.port}", timeout=1.0)
        start = time.monotonic()
        with pytest.raises(DaemonTimeout) as caught:
            client.call("GetCascadeTrajectory", {"cascadeId": "x"})
        assert time.monotonic() - start < 1.6
        assert caught.value.message == "GetCascadeTrajectory: no answer from the daemon within 1s"
    finally:
        server.close()


def test_a_trickling_daemon_cannot_stretch_a_sweep(tmp_path):
    # item 2: `sweep --source auto` took minutes against a daemon trickling its headers
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    root.conversation(turns=1)
    server = Trickle(headers=200, pause=0.1)
    try:
        env = {"ANTIGRAVITY_DAEMON_URL": f"http://127.0.0.1:{server.port}"}
        code, out, err, seconds = run_cli(
            "sweep", "--root", root.path, "--out", tmp_path / "out", "--timeout", "1", "--format", "json", env=env
        )
    finally:
        server.close()
    assert seconds < 6, seconds
    failures = json.loads(out)["result"]["manifest"]["failures"]
    assert code == 1 and [f["stage"] for f in failures] == ["fetch"]
    assert failures[0]["message"] == "LoadTrajectory: no answer from the daemon within 1s"


# ----------------------------------------------------------------------------- item 3: special side files


@pytest.mark.parametrize("suffix", ["-wal", "-shm", "-journal"])
def test_a_fifo_side_file_is_refused_by_every_reader(tmp_path, suffix):
    # item 3: completeness opened a FIFO named <id>.db-wal to hash it and blocked forever
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo = root.conversation(turns=1, wal_steps=1 if suffix != "-journal" else 0)
    side = convo.paths["db"].with_name(convo.paths["db"].name + suffix)
    side.unlink(missing_ok=True)
    os.mkfifo(side)
    refusal = f"{side}: not a regular file; not read"
    code, out, err, _ = run_cli("completeness", root.path, "--format", "json", timeout=30)
    assert code == 2, (code, out, err)
    assert [r["detail"] for r in json.loads(out)["result"]["results"]] == [refusal]
    code, out, err, _ = run_cli("inspect", convo.paths["db"], "--format", "json", timeout=30)
    assert code == 1 and [(f["rule"], f["file"], f["message"]) for f in json.loads(out)["findings"]] == [
        ("unreadable", str(convo.paths["db"]), refusal.removeprefix(f"{convo.paths['db']}: "))
    ]
    code, out, err, _ = run_cli("sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "out", "--format", "json")
    failures = json.loads(out)["result"]["manifest"]["failures"]
    assert code == 1 and [(f["stage"], f["message"]) for f in failures] == [("copy", refusal)]


def test_a_fifo_named_like_a_database_is_refused(tmp_path):
    # item 3: `inspect` of a FIFO .db opened it to read the header and blocked
    fifo = tmp_path / "00000000-0000-4000-8000-000000000000.db"
    os.mkfifo(fifo)
    code, out, err, _ = run_cli("inspect", fifo, "--format", "json", timeout=30)
    assert code in (1, 2) and f"{fifo}: not a regular file" in out + err, (code, out, err)


# ----------------------------------------------------------------------------- item 9: side-file metadata


def metadata(top: Path) -> dict[str, tuple[int, int, int, int]]:
    """(mode, size, mtime, ctime) of every entry below *top*."""
    out = {}
    for p in sorted(top.rglob("*")):
        st = os.lstat(p)
        out[str(p.relative_to(top))] = (st.st_mode, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    return out


@pytest.mark.parametrize("suffix", ["-wal", "-journal", "-shm"])
def test_read_only_commands_never_touch_an_empty_side_file(tmp_path, suffix):
    # item 9: SQLite reset a zero-length -wal/-journal to the .db's mode when opening it
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo = root.conversation(turns=2, wal_steps=1 if suffix != "-journal" else 0)  # WAL: a -wal and a -shm
    db = convo.paths["db"]
    side = db.with_name(db.name + suffix)
    side.write_bytes(b"")
    db.chmod(0o644)
    side.chmod(0o600)
    time.sleep(0.01)
    before = metadata(root.path)
    for argv in (
        ("inspect", db, "--format", "json"),
        ("completeness", root.path),
        ("fingerprint", root.path),
        ("sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "out"),
    ):
        code, out, err = cli(*argv)
        assert "Traceback" not in err, (argv, err)
        assert metadata(root.path) == before, argv  # modes and ctimes included


# ----------------------------------------------------------------------------- items 10, 14, 15: clear errors


@pytest.fixture
def user_store(shared):  # noqa: F811 - the fixture imported above
    """A store owned by uid 65534 in a directory that user can reach."""
    root = StoreBuilder(shared / "home", seed=8).root("cli")
    root.conversation(turns=1)
    give_away(shared)
    return root


def test_a_store_path_that_cannot_be_stated_is_named_not_a_traceback(user_store):
    # item 10: `chmod 000 $S; agy-audit stores` as a user: Path.is_dir() raised PermissionError
    root = user_store
    root.path.chmod(0)
    home = root.path.parent.parent
    code, out, err = unprivileged(cli, "stores", "--home", home)
    assert (code, out) == (2, "")
    assert err == f"agy-audit: {root.path / 'conversations'}: cannot stat (Permission denied)\n"


@pytest.mark.parametrize("command", ["stores", "fingerprint", "verify-contract", "completeness", "inspect"])
def test_a_name_too_long_is_named_not_a_traceback(tmp_path, command):
    # item 10: a 300-character name raised ENAMETOOLONG from Path.is_dir()
    long = tmp_path / ("x" * 300)
    argv = ("stores", "--root", long) if command == "stores" else (command, long)
    code, out, err = cli(*argv)
    assert code == 2 and err.count("\n") <= 1 and "Traceback" not in err, (code, out, err)
    assert any(
        line.startswith((f"{long}: ", f"agy-audit: {long}: ")) and "File name too long" in line
        for line in (err + out).splitlines()
    )


def test_an_unreadable_gemini_directory_is_exit_2_naming_it(user_store):
    # item 14: an unreadable ~/.gemini said "no Antigravity store found" (exit 3) naming ~/.gemini
    root = user_store
    gemini = root.path.parent
    gemini.chmod(0)
    code, out, err = unprivileged(cli, "stores", "--home", gemini.parent)
    assert (code, out) == (2, "")
    assert err == f"agy-audit: {gemini}: cannot list (Permission denied); no store could be discovered there\n"


def test_discovery_names_the_directory_it_tried(tmp_path):
    # item 14: the message always named ~/.gemini, even when --home named another directory
    code, _, err = cli("stores", "--home", tmp_path)
    assert (code, err) == (
        3,
        f"agy-audit: no Antigravity store found (looked for {tmp_path / '.gemini'}/antigravity*; use --home or --root)\n",
    )
    far = tmp_path / "/".join(["d" * 200] * 25)  # past PATH_MAX
    code, _, err = cli("stores", "--home", far)
    assert (
        code == 2
        and err == f"agy-audit: {far / '.gemini'}: cannot list (File name too long); no store could be discovered there\n"
    )


def test_an_unwritable_standard_output_is_one_line_exit_2():
    # item 15: `agy-audit stores > /dev/full` gave an OSError traceback
    sample = REPO / "examples" / "home"
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [sys.executable, "-m", "audit", "stores", "--home", str(sample)],
            stdout=full,
            stderr=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            timeout=60,
            check=False,
        )
    assert (done.returncode, done.stderr) == (2, b"agy-audit: standard output: cannot write (No space left on device)\n")


@pytest.mark.parametrize("value", ["1e12", "86401", "inf", "0", "-1", "nan"])
def test_a_timeout_beyond_one_day_is_a_usage_error(value, tmp_path, capsys):
    # item 15: `--timeout 1e12` gave an OverflowError traceback (argparse alone decides: in-process)
    for command in ("sweep", "ci", "doctor"):
        argv = [command, "--timeout", value, "--root", tmp_path] + (["--out", tmp_path / "o"] if command != "doctor" else [])
        with pytest.raises(SystemExit) as done:
            main([str(a) for a in argv])
        stderr = capsys.readouterr().err
        assert done.value.code == 2 and "Traceback" not in stderr
        assert stderr.endswith("is not a number of seconds above 0 and at most 86400 (one day)\n"), stderr


# ----------------------------------------------------------------------------- item 4: the token in daemon answers

ECHO_TOKEN = "tok_9c4e1f7a2b6d8e0f_0123456789abcdef_echo"  # a Python identifier: passes as a Connect code too


class TokenEcho(BaseHTTPRequestHandler):
    """A daemon that puts the CSRF token into every field it answers: ``answers`` maps a run's
    GetCascadeTrajectory to (status, reason, body); LoadTrajectory and Heartbeat get the same."""

    protocol_version = "HTTP/1.1"
    answer: tuple[int, str, str] = (200, "OK", "{}")

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        self.rfile.read(int(self.headers["Content-Length"]))
        method = self.path.rsplit("/", 1)[-1]
        status, reason, body = (200, "OK", "{}") if method == "LoadTrajectory" and self.answer[0] == 200 else self.answer
        data = body.encode()
        self.send_response(status, reason)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-Echo", ECHO_TOKEN)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def _token_answers(cid: str) -> dict[str, tuple[int, str, str]]:
    t = ECHO_TOKEN
    return {
        "identity": (200, "OK", json.dumps({"trajectory": {"cascadeId": f"{cid}-{t}", "trajectoryId": t, "steps": []}})),
        "identity-cut": (200, "OK", json.dumps({"trajectory": {"cascadeId": "x" * 60 + t}})),
        "error": (500, t, json.dumps({"code": t, "message": "m" * 280 + " " + t, "details": [{"debug": t}]})),
        "auth": (403, t, json.dumps({"code": t, "message": t})),
        "envelope": (200, "OK", '{"trajectory": {}, "%s": 1, "%s": 2}' % (t, t)),
        "not-json": (200, "OK", t),
        "type": (200, "OK", json.dumps({"trajectory": t})),
    }


@pytest.fixture
def token_echo(monkeypatch):
    """A ``TokenEcho`` daemon on loopback, pinned with ``ECHO_TOKEN`` as the user's token."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), TokenEcho)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", ECHO_TOKEN)
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", f"http://127.0.0.1:{server.server_address[1]}")
    yield server
    server.shutdown()
    server.server_close()


def test_the_token_is_scrubbed_from_every_message_built_from_daemon_bytes(tmp_path, token_echo):
    # item 4: the identity-check message quoted a trajectory id holding the token, into manifest.json
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo = root.conversation(turns=1)
    seen: list[tuple[str, bytes]] = []
    for name, answer in _token_answers(convo.id).items():
        TokenEcho.answer = answer
        for fmt in ("text", "json"):
            out = tmp_path / f"out-{name}-{fmt}"
            code, stdout, stderr = cli("sweep", "--source", "daemon", "--root", root.path, "--out", out, "--format", fmt)
            assert code == 1, (name, stderr)
            seen += [(f"{name} stdout", stdout.encode()), (f"{name} stderr", stderr.encode())]
            seen += [(str(p), p.read_bytes()) for p in sorted(out.rglob("*")) if p.is_file()]
        code, stdout, stderr = cli("doctor", "--root", root.path, "--format", "json")
        seen += [(f"{name} doctor", (stdout + stderr).encode())]
    token = ECHO_TOKEN.encode()
    assert [where for where, data in seen if token in data or token[:8] in data] == []
    assert any(b"<redacted>" in data for _, data in seen)


def test_daemon_content_is_stored_unchanged_even_when_it_holds_the_token(tmp_path, token_echo):
    # item 4, the honest part: a trajectory whose *content* holds the token is stored byte for byte
    # (the corpus is the daemon's answer); everything agy-audit writes about it is free of it
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo = root.conversation(turns=1)
    doc = dict(convo.trajectory, steps=[dict(convo.steps[0], note=f"the model printed {ECHO_TOKEN}")])
    TokenEcho.answer = (200, "OK", json.dumps({"trajectory": doc}))
    code, stdout, stderr = cli("sweep", "--source", "daemon", "--root", root.path, "--out", tmp_path / "out")
    assert code == 0, stderr
    holding = sorted(
        str(p.relative_to(tmp_path / "out"))
        for p in (tmp_path / "out").rglob("*")
        if p.is_file() and ECHO_TOKEN.encode() in p.read_bytes()
    )
    assert holding == [f"corpus/cli/{convo.id}.trajectory.json"]  # the generator metadata answer: scrubbed
    assert ECHO_TOKEN not in stdout + stderr


# ----------------------------------------------------------------------------- items 5, 6, 8: repair, backup, rollback


def _stamp_needed(tmp_path):
    """A family whose children need a parent stamp (nothing stamped yet), sidecars 0644."""
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    parent, kids = root.family(children=2)
    for p in (root.path / "conversations").glob("*.trajectory.json"):
        p.chmod(0o644)
    return root, parent, kids


def test_rollback_refuses_a_sidecar_changed_after_the_repair(tmp_path):
    # item 5: a writer appended a step to a stamped sidecar; rollback restored the old copy, exit 0
    root, parent, kids = _stamp_needed(tmp_path)
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "bk")[0] == 0
    sidecar = kids[0].paths["sidecar"]
    doc = json.loads(sidecar.read_bytes())
    doc["steps"].append(dict(doc["steps"][-1]))
    sidecar.write_text(json.dumps(doc))
    after = sidecar.read_bytes()
    code, out, err = cli("links", "rollback", "--backup", tmp_path / "bk")
    assert (code, out) == (1, "")
    assert err == (
        f"agy-audit: {sidecar}: changed after the repair (neither the backed-up nor the repaired bytes); nothing "
        "rolled back, since that would discard those changes. Pass --force to roll back anyway\n"
    )
    assert sidecar.read_bytes() == after
    assert "agyReader" in kids[1].paths["sidecar"].read_text()  # nothing rolled back
    code, out, err = cli("links", "rollback", "--backup", tmp_path / "bk", "--force")
    assert code == 0 and "agyReader" not in sidecar.read_text() and "agyReader" not in kids[1].paths["sidecar"].read_text()


def test_rollback_of_repaired_bytes_needs_no_force(tmp_path):
    # item 5: what the repair wrote is rolled back as before
    root, parent, kids = _stamp_needed(tmp_path)
    before = {p: p.read_bytes() for p in (root.path / "conversations").glob("*.trajectory.json")}
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "bk")[0] == 0
    code, out, err = cli("links", "rollback", "--backup", tmp_path / "bk")
    assert code == 0 and err == ""
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.parametrize("command", ["backfill", "repair"])
def test_stamping_keeps_permission_bits(tmp_path, command):
    # item 6: stamped 0644 sidecars became 0600
    root, parent, kids = _stamp_needed(tmp_path)
    kids[1].paths["sidecar"].chmod(0o640)
    argv = ["links", command, "--root", root.path] + (["--backup", tmp_path / "bk"] if command == "repair" else [])
    assert cli(*argv)[0] == 0
    assert "agyReader" in kids[0].paths["sidecar"].read_text()
    assert [oct(k.paths["sidecar"].stat().st_mode & 0o777) for k in kids] == ["0o644", "0o640"]


@pytest.mark.parametrize("command", ["backfill", "repair"])
def test_a_write_protected_sidecar_is_not_stamped(tmp_path, command):
    # item 6: a 0444 sidecar was replaced by the stamp's rename
    root, parent, kids = _stamp_needed(tmp_path)
    protected = kids[1].paths["sidecar"]
    protected.chmod(0o444)
    before = {p: (p.read_bytes(), p.stat().st_mode) for p in (root.path / "conversations").iterdir()}
    argv = ["links", command, "--root", root.path] + (["--backup", tmp_path / "bk"] if command == "repair" else [])
    code, out, err = cli(*argv)
    assert (
        code == 2 and err == f"agy-audit: {protected}: write-protected (mode 0444); not changed (make it writable to allow it)\n"
    )
    assert {p: (p.read_bytes(), p.stat().st_mode) for p in (root.path / "conversations").iterdir()} == before
    assert not (tmp_path / "bk").exists()


def test_backup_and_rollback_carry_modes(tmp_path):
    # item 6: rollback did not restore modes
    root, parent, kids = _stamp_needed(tmp_path)
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "bk")[0] == 0
    manifest = json.loads((tmp_path / "bk" / "manifest.json").read_bytes())
    assert {entry["mode"] for entry in manifest["files"].values()} == {0o644}
    kids[0].paths["sidecar"].chmod(0o600)
    code, out, _ = cli("links", "verify", "--backup", tmp_path / "bk")
    assert code == 1 and f"  problem: {kids[0].paths['sidecar'].name}: mode changed (0644 -> 0600)" in out.splitlines()
    assert cli("links", "rollback", "--backup", tmp_path / "bk")[0] == 0
    assert {oct(p.stat().st_mode & 0o777) for p in (root.path / "conversations").glob("*.trajectory.json")} == {"0o644"}


@pytest.mark.parametrize("inside", ["conversations/bk", "bk", "brain/x/bk"])
def test_a_repair_backup_inside_the_live_store_is_refused(tmp_path, inside):
    # item 8: `links repair --backup` accepted a directory inside the store (`sweep --out` refuses it)
    root, parent, kids = _stamp_needed(tmp_path)
    before = metadata(root.path)
    target = root.path / inside
    code, out, err = cli("links", "repair", "--root", root.path, "--backup", target)
    assert (code, out) == (2, "")
    assert err == f"agy-audit: {target}: inside the store root {root.path}; write the backup elsewhere\n"
    assert metadata(root.path) == before


# ----------------------------------------------------------------------------- item 16: stale temp files


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temp_files_of_an_interrupted_run_are_removed_and_reported(tmp_path):
    # item 16: a SIGKILLed repair left a temp file in conversations/ for good
    root, parent, kids = _stamp_needed(tmp_path)
    conversations = root.path / "conversations"
    name = kids[0].paths["sidecar"].name
    stale = conversations / f".{name}.agy{_dead_pid()}-abcd1234.tmp"
    alive = conversations / f".{name}.agy{os.getpid()}-abcd1234.tmp"  # a running writer's: kept
    strangers = [conversations / f".{name}.abcd1234.tmp", conversations / ".notes.tmp", conversations / "x.agy1-abcd1234.tmp"]
    for p in [stale, alive, *strangers]:
        p.write_bytes(b"{}")
    code, out, err = cli("links", "backfill", "--root", root.path)
    assert code == 0
    assert err == f"agy-audit: removed a stale temp file an interrupted run left: {stale}\n"
    assert not stale.exists() and alive.exists() and all(p.exists() for p in strangers)


@pytest.mark.parametrize("after", ["open", "fdopen"])
def test_an_interrupt_right_after_the_temp_file_is_created_leaves_nothing(tmp_path, monkeypatch, after):
    # item 16: the temp file was created before the `try` that removes it. The interrupt is raised
    # deterministically right after the file exists (a real signal may land on any thread).
    from audit import safeio, safewrite

    real = getattr(safeio.os, after)

    def interrupted(*args, **kwargs):
        made = real(*args, **kwargs)
        if after == "fdopen":
            made.close()
        raise KeyboardInterrupt

    target = tmp_path / "out" / "file.json"
    target.parent.mkdir()
    monkeypatch.setattr(safeio.os, after, interrupted)
    with pytest.raises(KeyboardInterrupt):
        safewrite.atomic_write(target, b"{}")
    monkeypatch.undo()
    assert sorted(p.name for p in target.parent.iterdir()) == []


# ----------------------------------------------------------------------------- item 7: unlistable brain directories


@pytest.mark.parametrize("part", ["", ".system_generated/logs"])
def test_an_unlistable_brain_directory_fails_its_session(shared, part):  # noqa: F811 - the fixture imported above
    # item 7: sweep said complete=yes with the transcripts missing; inspect reported 0 findings
    root = StoreBuilder(shared / "home", seed=16).root("cli")
    convo = root.conversation(turns=1)
    give_away(shared)
    hidden = convo.paths["brain"] / part if part else convo.paths["brain"]
    hidden.chmod(0)
    results = unprivileged(
        lambda: {
            "sweep": cli(
                "sweep", "--source", "native", "--root", root.path, "--out", shared / "out", "--format", "json", "--quiet"
            ),
            "inspect": cli("inspect", "--root", root.path, convo.id, "--format", "json"),
        }
    )
    code, out, err = results["sweep"]
    manifest = json.loads(out)["result"]["manifest"]
    assert code == 1 and manifest["complete"] is False, err
    assert [(f["id"], f["stage"], f["message"]) for f in manifest["failures"]] == [
        (convo.id, "brain", f"{hidden}: cannot list (Permission denied); the session's files there were not swept")
    ]
    code, out, err = results["inspect"]
    findings = [(f["file"], f["line"], f["rule"], f["message"]) for f in json.loads(out)["findings"]]
    assert code == 1, (out, err)
    assert (str(hidden), None, "unreadable", "cannot list: Permission denied; its transcripts were not read") in findings


# ----------------------------------------------------------------------------- item 13: fingerprint exit codes


@pytest.mark.parametrize("damage", ["empty", "locked", "denied"])
def test_fingerprint_of_an_unreadable_input_is_exit_2(shared, damage):  # noqa: F811 - the fixture imported above
    # item 13: fingerprint exited 0 when a .db was locked, empty or permission-denied (README: 2)
    root = StoreBuilder(shared / "home", seed=16).root("cli")
    convo = root.conversation(turns=1, sidecar="missing")
    root.conversation(turns=1)
    give_away(shared)
    db = convo.paths["db"]
    holder = None
    if damage == "empty":
        db.write_bytes(b"")
    elif damage == "denied":
        db.chmod(0)
    else:
        holder = hold_exclusive(db, seconds=60)
    try:
        code, out, err = unprivileged(cli, "fingerprint", root.path)
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
    assert code == 2, (code, err)
    assert any(line.startswith(f"agy-audit: warning: {db}: ") for line in err.splitlines()), err
    assert err.endswith("agy-audit: 1 input(s) unreadable; the fingerprints above leave them out\n")


# ----------------------------------------------------------------------------- item 17: sizes and ~


def test_one_size_limit_for_sidecars_and_daemon_answers():
    # item 17: verify-contract refused sidecars over 256 MiB, links 512 MiB, the daemon 1 GiB, the rest none
    from audit import safeio
    from audit.checks import contract
    from audit.checks.links import evidence as links
    from audit.store import daemon

    assert safeio.MAX_DOCUMENT_BYTES == 256 * 1024 * 1024
    assert links.MAX_SIDECAR_BYTES == contract.MAX_BYTES == daemon.MAX_RESPONSE == safeio.MAX_DOCUMENT_BYTES


def test_an_oversized_sidecar_is_refused_by_every_command_without_reading_it(tmp_path):
    # item 17: other commands read a 300 MB sidecar whole (1.2-1.7 GB of memory)
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo = root.conversation(turns=1)
    sidecar = convo.paths["sidecar"]
    with open(sidecar, "r+b") as fh:
        fh.truncate(300 * 1024 * 1024)  # sparse: no disk, no read
    limit = f"larger than {256 * 1024 * 1024} bytes"
    for argv in (
        ("verify-contract", sidecar),
        ("fingerprint", "--surface", "sidecar", root.path),
        ("links", "check", "--root", root.path, "--format", "json"),
        ("completeness", root.path, "--format", "json"),
    ):
        code, out, err, seconds = run_cli(*argv, timeout=60)
        named = [line for line in (out + err).splitlines() if str(sidecar) in line and limit in line]
        assert named, (argv, code, out[-500:], err[-500:])
        assert seconds < 20 and "Traceback" not in err


def test_an_oversized_daemon_answer_is_refused_before_it_is_read():
    # item 17: a 1 GB answer took peak RSS to 2-3 GB before the 1 GiB cap cut it
    sock = socket.create_server(("127.0.0.1", 0))
    port = sock.getsockname()[1]

    def serve() -> None:
        conn, _ = sock.accept()
        conn.recv(65536)
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n{" % (300 * 1024 * 1024))
        time.sleep(3)
        conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        start = time.monotonic()
        with pytest.raises(DaemonError) as caught:
            DaemonClient(f"http://127.0.0.1:{port}", timeout=10).call("GetCascadeTrajectory", {})
        assert time.monotonic() - start < 2
        assert caught.value.message.endswith(f"failed: answer larger than {256 * 1024 * 1024} bytes")
    finally:
        thread.join()
        sock.close()


def test_a_tilde_in_out_and_home_is_expanded(tmp_path):
    # item 17: `sweep --out '~/x'` created ./~/x
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    root.conversation(turns=1)
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO), "HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "audit", "sweep", "--source", "native", "--home", "~", "--out", "~/corpus", "-q"],
        cwd=work,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "home" / "corpus" / "manifest.json").is_file() and list(work.iterdir()) == []
    done = subprocess.run(
        [sys.executable, "-m", "audit", "sweep", "--root", root.path, "--out", "~no-such-user-x/corpus"],
        cwd=work,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2 and list(work.iterdir()) == []
    assert done.stderr.endswith(
        b"argument --out: '~no-such-user-x/corpus': cannot expand ~no-such-user-x (no such user, or no HOME); "
        b"give the directory itself, e.g. $HOME/...\n"
    )


# ----------------------------------------------------------------------------- items 11, 12: hostile names


def _hostile_names(root) -> tuple[object, bytes]:
    """A session whose brain holds a non-UTF-8 file name; conversations/ holds names with ESC
    sequences, a newline and invalid UTF-8."""
    convo = root.conversation(turns=1)
    brain_name = b"notes-\xff\xfe.md"
    with open(os.path.join(os.fsencode(convo.paths["brain"]), brain_name), "wb") as fh:
        fh.write(b"# notes\n")
    conversations = os.fsencode(root.path / "conversations")
    for name in (b"\x1b[2J\x1b[31mx.db", b"a\nb.db", b"\xff\xfe.db", b"\xe2\x80\xaeevil.db"):
        with open(os.path.join(conversations, name), "wb") as fh:
            fh.write(b"x")
    return convo, brain_name


@pytest.mark.parametrize("command", ["sweep", "ci"])
def test_non_utf8_names_are_carried_losslessly_and_the_manifest_is_written(tmp_path, command):
    # item 11: a non-UTF-8 file name crashed sweep and ci writing the manifest (surrogate escapes)
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    convo, brain_name = _hostile_names(root)
    out = tmp_path / "out"
    argv = ["sweep", "--source", "native", "--root", root.path, "--out", out]
    if command == "ci":
        argv = ["ci", "--source", "native", "--root", root.path, "--out", out, "--no-live"]
    code, stdout, stderr = cli(*argv)
    assert code in (0, 1) and "Traceback" not in stderr, stderr
    raw = (out / "manifest.json").read_bytes()
    raw.decode("utf-8")  # valid UTF-8
    manifest = json.loads(raw)
    files = [rel for s in manifest["sessions"] for rel in s["files"]]
    copied = [rel for rel in files if os.fsencode(rel).endswith(brain_name)]
    assert len(copied) == 1  # the name's bytes back, losslessly
    with open(os.path.join(os.fsencode(out), os.fsencode(copied[0])), "rb") as fh:
        assert fh.read() == b"# notes\n"
    skipped = {os.fsencode(s["path"]) for s in manifest["skipped"]}
    assert os.path.join(os.fsencode(root.path / "conversations"), b"\xff\xfe.db") in skipped


def test_every_printed_path_is_escaped_for_its_medium(tmp_path):
    # item 12: a name with ESC sequences cleared and coloured the screen, a newline split lines
    root = StoreBuilder(tmp_path / "home", seed=16).root("cli")
    _hostile_names(root)
    for argv in (("stores", "--root", root.path), ("stores", "--root", root.path, "--format", "json")):
        code, out, err = cli(*argv)
        assert code == 0 and "\x1b" not in out + err and "\u202e" not in out + err
        if "json" in argv:
            foreign = {f["path"] for r in json.loads(out)["result"]["roots"] for f in r.get("foreign", [])}
            assert str(root.path / "conversations" / "a\nb.db") in foreign or foreign == set()
        else:
            assert not any(line.startswith("b.db") for line in out.splitlines())
            assert "\\x1b[2J\\x1b[31mx.db" in out and "a\\nb.db" in out and "\\xff\\xfe.db" in out and "\\u202eevil.db" in out
    # the error path: a message naming such a file is one line
    code, out, err = cli("inspect", root.path / "conversations" / "a\nb.db", "--format", "json")
    assert err.count("\n") <= 1 and "\x1b" not in err


def test_annotations_and_markdown_escape_names():
    # item 12: GitHub annotations passed ESC through; a | or ` in a name broke the Markdown table
    from audit.findings import Finding, Level
    from audit.report import ci_report

    hostile = "/s/\x1b[2Jx|`y`<b>\nz.db"
    line = ci_report._annotation("error", f"{hostile}: unreadable", title="t", finding=Finding("r", Level.ERROR, "m", hostile, 3))
    assert "\x1b" not in line and "\n" not in line and "\\x1b[2J" in line
    assert line.startswith("::error file=/s/\\x1b[2Jx|`y`<b>%0Az.db,line=3,title=t::")
    cell = ci_report._md(f"{hostile}: unreadable")
    assert cell == "/s/\\x1b[2Jx\\|\\`y\\`&lt;b> z.db: unreadable"


def test_every_is_it_there_question_goes_through_one_helper():
    # item 10, so it cannot come back: Path.is_dir()/is_file()/exists() raise PermissionError and
    # ENAMETOOLONG on Python 3.11; audit.safeio.path_kind (is_dir, is_file, exists) names the path
    import re

    calls = re.compile(r"\.(?:is_dir|is_file|exists)\(\)")
    found = [
        f"{path.relative_to(REPO)}:{n}: {line.strip()}"
        for path in sorted((REPO / "audit").rglob("*.py"))
        if "testing" not in path.parts and path.name not in ("resources.py", "safeio.py")
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if calls.search(line)
    ]
    assert found == [], "use audit.safeio.is_dir / is_file / exists / path_kind instead:\n" + "\n".join(found)
