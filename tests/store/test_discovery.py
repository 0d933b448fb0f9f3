"""Daemon discovery: processes first, the log second, a token only for a listener /proc shows to be
held by this user's agy or language-server process that serves the root (issue 21)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit import safeio
from audit.cli import main
from audit.store import discovery
from audit.store.daemon import Secret
from audit.store.discovery import LOG, NO_PROC, PINNED, PROCESS, procfs
from audit.store.layout import Root
from audit.testing import SimulatedDaemon, StoreBuilder
from tests.output_schema import ci_result, envelope

TOKEN = "disc-token-0123456789abcdef"
T1, T2, T3, T4 = (f"pair-token-{i}-0123456789abcdef" for i in range(1, 5))
NOTE_HEAD = "not used and no token sent"


class Recorder:
    """A plain loopback TCP server (not a daemon): it records every connection and what it received."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.inode = os.fstat(self.sock.fileno()).st_ino
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(0.5)
                data = b""
                try:
                    while b"\r\n\r\n" not in data:
                        chunk = conn.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                except OSError:
                    pass
                self.received.append(data)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()


@pytest.fixture
def recorder():
    r = Recorder()
    yield r
    r.close()


@pytest.fixture
def cli(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=41).root("cli")
    root.conversation(turns=1)
    return root


def _root(path: Path, explicit: bool = True) -> Root:
    return Root(path, "ide" if path.name in ("antigravity", "antigravity-ide") else "cli", explicit)


def _log(path: Path, *ports: int, mtime: int | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"I0101 server.go:1] listening on random port at {p} for HTTP\n" for p in ports))
    if mtime is not None:
        os.utime(path, ns=(mtime, mtime))
    return path


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----------------------------------------------------------------------------- no token to an unowned listener


@pytest.mark.parametrize("holder", ["nobody", "python"])
def test_a_foreign_listener_on_the_cli_log_port_gets_no_token_and_no_traffic(
    holder, cli, recorder, fake_proc, tmp_path, capsys, monkeypatch
):
    cli.cli_log(recorder.port)  # a stale port line; another program has since bound the port
    fake_proc.listen("127.0.0.1", recorder.port, recorder.inode)
    if holder == "python":
        pid = fake_proc.process(["/usr/bin/python3", "-m", "http.server"], sockets=[recorder.inode])
        reason = f"port {recorder.port} is held by process {pid} (python3), not agy or a language server"
    else:
        reason = f"port {recorder.port} is not held by a process of this user"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    url = f"http://127.0.0.1:{recorder.port}"
    found = discovery.discover(_root(cli.path))
    assert found.endpoints == ()
    assert found.withheld == (discovery.Withheld(url, str(cli.path / "cli.log"), reason),)
    note = f"{url} (found in {cli.path / 'cli.log'}) {NOTE_HEAD}: {reason}; set ANTIGRAVITY_DAEMON_URL={url} to use it anyway"
    assert found.notes == [note]

    code, stdout, stderr = _run(capsys, "sweep", "--root", cli.path, "--out", tmp_path / "auto")
    assert code == 0 and f"sweep: {cli.path}: {note}\n" in stderr
    assert json.loads((tmp_path / "auto" / "manifest.json").read_text())["roots"][0]["source"] == "native"
    code, _, stderr = _run(capsys, "sweep", "--root", cli.path, "--out", tmp_path / "daemon", "--source", "daemon")
    assert (
        code == 2
        and stderr == f"agy-audit: {cli.path}: no reachable daemon ({note}); use --source native to read the .db files\n"
    )
    code, stdout, _ = _run(capsys, "doctor", "--root", cli.path)
    assert code == 1 and f"  note: {note}\n" in stdout
    assert recorder.received == []  # not a probe, not a request, not a token
    assert TOKEN not in stdout + stderr


def test_a_pinned_url_stays_the_users_choice(cli, recorder, capsys, monkeypatch):
    """ANTIGRAVITY_DAEMON_URL is explicit: the user's token goes there, verified or not."""
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", f"http://127.0.0.1:{recorder.port}")
    [endpoint] = discovery.discover(_root(cli.path)).endpoints
    assert (endpoint.path, endpoint.token, endpoint.token_origin, endpoint.pid) == (
        PINNED,
        Secret(TOKEN),
        "ANTIGRAVITY_CSRF_TOKEN",
        None,
    )
    _run(capsys, "doctor", "--root", cli.path)
    header = f"x-codeium-csrf-token: {TOKEN}".encode()
    deadline = time.monotonic() + 5
    while header not in b"".join(recorder.received) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert header in b"".join(recorder.received)


# ----------------------------------------------------------------------------- order and pairing


def test_processes_first_then_the_log(cli, fake_proc):
    own = _log(cli.path / "log" / "cli-20260101_000000.log", 4101, mtime=10**18)
    newest = _log(cli.path / "log" / "cli-20260102_000000.log", 4202, mtime=2 * 10**18)
    os.symlink("log/cli-20260102_000000.log", cli.path / "cli.log")
    first = fake_proc.process(["/usr/local/bin/agy"], files=[own], sockets=[11])
    older = fake_proc.process(["/usr/local/bin/agy"], sockets=[22])  # an older build: no log open
    fake_proc.listen("127.0.0.1", 4101, 11)
    fake_proc.listen("::", 4202, 22)
    found = discovery.discover(_root(cli.path), env={})
    assert [(e.url, e.path, e.pid, e.origin) for e in found.endpoints] == [
        ("http://127.0.0.1:4101", PROCESS, first, f"process {first} (agy, its log {own})"),
        ("http://127.0.0.1:4202", LOG, older, str(newest)),  # cli.log followed to its target
    ]
    assert found.withheld == ()


def test_tokens_pair_only_with_the_listener_of_their_own_process(cli, fake_proc, tmp_path):
    a_log = _log(cli.path / "log" / "cli-a.log", 4301)
    b_log = _log(cli.path / "log" / "cli-b.log", 4302)
    a = fake_proc.process(["agy", "--csrf_token", T1], files=[a_log], sockets=[31])
    b = fake_proc.process(["agy"], files=[b_log], sockets=[32])
    fake_proc.listen("127.0.0.1", 4301, 31)
    fake_proc.listen("127.0.0.1", 4302, 32)
    address = {"ANTIGRAVITY_LS_ADDRESS": "127.0.0.1:4302"}
    shell = fake_proc.process(["bash"], ppid=b)
    tool = fake_proc.process(["make", "test"], ppid=shell, environ={**address, "ANTIGRAVITY_CSRF_TOKEN": T2})
    fake_proc.process(["python3"], ppid=a, environ={**address, "ANTIGRAVITY_CSRF_TOKEN": T3})  # a's tool, b's port
    fake_proc.process(["python3"], ppid=1, environ={**address, "ANTIGRAVITY_CSRF_TOKEN": T4})  # no one's tool
    root = _root(cli.path)
    found = discovery.discover(root, env={})
    assert [(e.url, e.token, e.token_origin) for e in found.endpoints] == [
        ("http://127.0.0.1:4301", Secret(T1), f"--csrf_token of process {a}"),
        ("http://127.0.0.1:4302", Secret(T2), f"ANTIGRAVITY_CSRF_TOKEN exported to process {tool}"),
    ]
    fake_proc.remove(tool)
    assert [e.token for e in discovery.discover(root, env={}).endpoints] == [Secret(T1), None]
    override = discovery.discover(root, env={"ANTIGRAVITY_CSRF_TOKEN": TOKEN}).endpoints
    assert [(e.token, e.token_origin) for e in override] == [(Secret(TOKEN), "ANTIGRAVITY_CSRF_TOKEN")] * 2

    def pinned(url: str) -> tuple:
        [e] = discovery.discover(root, env={"ANTIGRAVITY_DAEMON_URL": url}).endpoints
        return e.path, e.token, e.pid

    assert pinned("http://127.0.0.1:4301") == (PINNED, Secret(T1), a)  # the verified owner's own token
    assert pinned("http://127.0.0.1:4399") == (PINNED, None, None)
    assert pinned("http://192.0.2.1:4301") == (PINNED, None, None)  # never a local token to another host


def test_a_process_that_serves_another_store_is_not_this_roots_daemon(cli, fake_proc, tmp_path):
    ide_log = _log(tmp_path / "home" / ".gemini" / "antigravity-ide" / "log" / "cli-x.log", 4401)
    other = fake_proc.process(["agy"], files=[ide_log], sockets=[41])
    flagged = fake_proc.process(["agy", "--app_data_dir", "antigravity-ide"], sockets=[42])
    fake_proc.listen("127.0.0.1", 4401, 41)
    fake_proc.listen("127.0.0.1", 4402, 42)
    root = _root(cli.path)
    for port, pid in ((4401, other), (4402, flagged)):
        cli.cli_log(port)
        found = discovery.discover(root, env={})
        assert found.endpoints == ()
        assert [w.reason for w in found.withheld] == [f"port {port} is held by process {pid} (agy), which serves another store"]


def test_a_process_is_used_only_where_it_listens(cli, fake_proc):
    log = _log(cli.path / "log" / "cli-1.log", 4501)
    cli.cli_log(4501)
    fake_proc.process(["agy"], files=[log], sockets=[51])  # socket 51 listens nowhere: the agy died
    found = discovery.discover(_root(cli.path), env={})
    assert (found.endpoints, found.withheld) == ((), ())  # not running; nothing to report
    fake_proc.listen("127.0.0.1", 4599, 51)  # it listens, but not where its log says
    assert discovery.discover(_root(cli.path), env={}).endpoints == ()


def test_agy_hub_process_is_found_by_its_hub_port(cli, fake_proc):
    log = _log(cli.path / "log" / "cli-hub.log")  # no port line
    hub = fake_proc.process(["agy", "--hub", "--hub-port", "4601", "--csrf_token", T1], files=[log], sockets=[61, 62])
    fake_proc.listen("127.0.0.1", 4601, 61)
    fake_proc.listen("127.0.0.1", 4602, 62)
    [endpoint] = discovery.discover(_root(cli.path), env={}).endpoints
    assert (endpoint.url, endpoint.origin, endpoint.token) == (
        "http://127.0.0.1:4601",
        f"process {hub} (agy, --hub-port)",
        Secret(T1),
    )


def test_ide_port_from_language_server_log_and_token_from_the_newest_main_log_spawn(tmp_path, fake_proc, capsys):
    ide = StoreBuilder(tmp_path / "home", seed=42).root("ide")
    convo = ide.conversation(turns=1)
    logs = tmp_path / "home" / ".config" / "Antigravity" / "logs"
    old, new = "ide-old-token-0123456789abcd", "ide-new-token-0123456789abcd"
    spawn = "[info] Starting language server: /opt/antigravity/bin/language_server_linux_x64 --enable_lsp --csrf_token {} --app_data_dir antigravity\n"
    (logs / "20260101T000000").mkdir(parents=True)
    (logs / "20260101T000000" / "main.log").write_text(spawn.format(old) + "[info] other\n" + spawn.format(new))
    with SimulatedDaemon(ide.path, token=new, kind="language_server", write_log=False) as sim:
        ls_log = _log(logs / "20260101T000000" / "language_server.log", sim.port)
        [endpoint] = discovery.discover(_root(ide.path, explicit=False), env={}).endpoints
        assert (endpoint.url, endpoint.path, endpoint.origin, endpoint.pid) == (sim.url, LOG, str(ls_log), sim.pid)
        assert (endpoint.token, endpoint.token_origin) == (Secret(new), str(logs / "20260101T000000" / "main.log"))
        code, stdout, _ = _run(capsys, "doctor", "--root", ide.path)
        assert code == 0
        assert f"daemon antigravity: reachable at {sim.url} (found by log: {ls_log}): token accepted\n" in stdout
        assert f"csrf antigravity: found ({logs / '20260101T000000' / 'main.log'})\n" in stdout
        code, _, stderr = _run(capsys, "sweep", "--root", ide.path, "--out", tmp_path / "c", "--source", "daemon")
        assert code == 0, stderr and ("GetCascadeTrajectory", convo.id) in sim.calls
        assert new not in stdout + stderr


def test_cli_log_is_followed_read_only_only_into_the_root(cli, tmp_path):
    target = _log(cli.path / "log" / "cli-20260101_000000.log", 4701)
    os.symlink("log/cli-20260101_000000.log", cli.path / "cli.log")
    before = (target.read_bytes(), target.stat().st_mtime_ns)
    assert discovery.port_from_logs(cli.path) == (4701, target)
    assert discovery.log_files(cli.path) == [target]  # one file, listed once
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before
    os.unlink(cli.path / "cli.log")
    outside = _log(tmp_path / "elsewhere.log", 4702)
    os.unlink(target)
    os.symlink(outside, cli.path / "cli.log")
    assert discovery.port_from_logs(cli.path) is None


# ----------------------------------------------------------------------------- the real /proc (Linux)


needs_proc = pytest.mark.skipif(
    not discovery.proc_available("/proc") or shutil.which("bash") is None, reason="no Linux /proc (or bash) here"
)


@needs_proc
def test_real_proc_our_own_listener_is_no_agy(cli, recorder):
    cli.cli_log(recorder.port)
    found = discovery.discover(_root(cli.path), env={"ANTIGRAVITY_CSRF_TOKEN": TOKEN}, proc_root="/proc")
    assert found.endpoints == () and recorder.received == []
    [withheld] = found.withheld
    assert withheld.reason.startswith(f"port {recorder.port} is held by process {os.getpid()} (")
    assert withheld.reason.endswith("), not agy or a language server")


_AGY = textwrap.dedent(
    """
    import socket, sys, time
    log = open(sys.argv[1], "a")
    s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
    log.write("listening on random port at %d for HTTP\\n" % s.getsockname()[1]); log.flush()
    print(s.getsockname()[1], flush=True)
    time.sleep(30)
    """
)


@needs_proc
def test_real_proc_finds_an_agy_process_by_its_open_log_and_socket(cli):
    log = cli.path / "log" / "cli-20260101_000000.log"
    log.parent.mkdir()
    argv = ["bash", "-c", 'exec -a agy "$0" "$@"', sys.executable, "-c", _AGY, str(log), "--csrf_token", T1]
    child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    try:
        port = int(child.stdout.readline())
        [endpoint] = discovery.discover(_root(cli.path), env={}, proc_root="/proc").endpoints
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    assert (endpoint.url, endpoint.path, endpoint.pid) == (f"http://127.0.0.1:{port}", PROCESS, child.pid)
    assert (endpoint.token, endpoint.token_origin) == (Secret(T1), f"--csrf_token of process {child.pid}")


# ----------------------------------------------------------------------------- no /proc (macOS, Windows)


def test_without_proc_nothing_discovered_is_used_and_discovery_says_so(cli, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(procfs, "PROC_ROOT", str(tmp_path / "no-proc"))
    monkeypatch.delattr(os, "getuid")
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    with SimulatedDaemon(cli.path, token=TOKEN) as sim:
        found = discovery.discover(_root(cli.path))
        assert found.endpoints == () and not found.proc
        reason = "/proc is not available to check who listens there"
        assert [w.reason for w in found.withheld] == [reason]
        assert found.notes[-1] == NO_PROC
        code, _, stderr = _run(capsys, "sweep", "--root", cli.path, "--out", tmp_path / "c")
        assert code == 0 and f"sweep: {cli.path}: {NO_PROC}\n" in stderr
        code, stdout, _ = _run(capsys, "doctor", "--home", tmp_path / "home")
        assert f"  note: {NO_PROC}\n" in stdout and "watch antigravity-cli: unknown (no /proc on this platform)\n" in stdout
        assert code == 0 and sim.calls == []
        monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", sim.url)  # what the note asks for
        code, stdout, _ = _run(capsys, "doctor", "--home", tmp_path / "home")
        assert code == 0 and f"daemon antigravity-cli: reachable at {sim.url} (found by pinned: ANTIGRAVITY_DAEMON_URL)" in stdout
    assert discovery.scan_processes(tmp_path / "no-proc") == [] and discovery.reader_watchers() is None


def test_open_nofollow_without_o_nofollow_still_refuses_a_link(tmp_path, monkeypatch):
    monkeypatch.setattr(safeio, "O_NOFOLLOW", 0)
    (tmp_path / "real").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    with pytest.raises(OSError, match="symbolic links"):
        safeio.open_nofollow(tmp_path / "link", os.O_RDONLY)
    os.close(safeio.open_nofollow(tmp_path / "real", os.O_RDONLY))


# ----------------------------------------------------------------------------- doctor


def _doctor(capsys, *argv: object) -> tuple[int, str, dict]:
    code, text, _ = _run(capsys, "doctor", *argv)
    _, doc, _ = _run(capsys, "doctor", *argv, "--format", "json")
    return code, text, json.loads(doc)["result"]


@pytest.mark.parametrize(
    ("expose", "token", "user", "state", "csrf", "code"),
    [
        ("flag", TOKEN, None, "reachable", "found", 0),
        ("tool", TOKEN, None, "reachable", "found", 0),
        (None, None, None, "reachable", "missing", 0),  # an older daemon that takes none
        (None, TOKEN, None, "rejected", "missing", 1),
        (None, TOKEN, T1, "rejected", "rejected", 1),
    ],
)
def test_doctor_daemon_path_and_csrf_states(cli, capsys, monkeypatch, expose, token, user, state, csrf, code):
    if user:
        monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", user)
    with SimulatedDaemon(cli.path, token=token, expose=expose) as sim:
        found, text, doc = _doctor(capsys, "--root", cli.path)
        pid = sim.pid
    daemon = doc["roots"][0]["daemon"]
    assert (found, daemon["state"], daemon["path"], daemon["csrf"]) == (code, state, "process", csrf)
    origin = {"flag": f"--csrf_token of process {pid}", "tool": f"ANTIGRAVITY_CSRF_TOKEN exported to process {pid + 1}"}
    expected_origin = "ANTIGRAVITY_CSRF_TOKEN" if user else origin.get(expose)
    assert daemon["tokenOrigin"] == expected_origin
    assert f"csrf antigravity-cli: {csrf}" + (f" ({expected_origin})" if expected_origin else "") + "\n" in text
    assert TOKEN not in text + json.dumps(doc) and T1 not in text


def test_doctor_found_by_log_for_an_older_build(cli, capsys):
    with SimulatedDaemon(cli.path, token=None, write_log=False) as sim:  # keeps no log open
        cli.cli_log(sim.port)
        _, text, doc = _doctor(capsys, "--home", cli.path.parent.parent)
        url = sim.url
    assert doc["roots"][0]["daemon"]["path"] == "log"
    assert f"reachable at {url} (found by log: {cli.path / 'cli.log'}): no token needed" in text


def test_doctor_explicit_roots_are_required_discovered_ones_wait(cli, capsys):
    code, text, doc = _doctor(capsys, "--root", cli.path)
    assert code == 1 and doc["roots"][0]["daemon"]["state"] == "not running" and doc["roots"][0]["explicit"] is True
    assert doc["actions"] == [
        {
            "subject": str(cli.path),
            "problem": "daemon not running: no daemon answers (start agy to sweep from it; --source native needs none); "
            "this root was named explicitly",
            "remedy": "start agy for this root, or set ANTIGRAVITY_DAEMON_URL; `--source native` needs no daemon",
        }
    ]
    code, text, doc = _doctor(capsys, "--home", cli.path.parent.parent)
    assert code == 0 and doc["roots"][0]["daemon"]["state"] == "waiting"
    assert text.endswith("doctor: healthy (1 root(s) waiting for their daemon)\n")


def test_doctor_an_ide_daemon_without_a_token_needs_action(tmp_path, capsys):
    ide = StoreBuilder(tmp_path / "home", seed=43).root("ide")
    ide.conversation(turns=1)
    with SimulatedDaemon(ide.path, token=None, kind="language_server", write_log=False) as sim:
        _log(tmp_path / "home" / ".config" / "Antigravity" / "logs" / "language_server.log", sim.port)
        code, text, doc = _doctor(capsys, "--home", tmp_path / "home")
    assert code == 1 and doc["roots"][0]["daemon"]["csrf"] == "missing"
    assert doc["actions"] == [
        {
            "subject": str(ide.path),
            "problem": "daemon reachable: the IDE daemon answers, but no CSRF token was found for it",
            "remedy": "set ANTIGRAVITY_CSRF_TOKEN, or restart the IDE so that its main.log records the token",
        }
    ]


def test_doctor_agy_reader_watcher_coverage(cli, fake_proc, capsys, tmp_path):
    home = cli.path.parent.parent
    assert _doctor(capsys, "--home", home)[2]["roots"][0]["watch"] == {"state": "not covered", "pid": None}
    fake_proc.process(["agy-reader", "--watch=false", "--root", str(cli.path)])
    fake_proc.process(["/usr/bin/agy-reader", "--root", str(cli.path), "x", "--watch"])  # --watch after a positional
    fake_proc.process(["agy-reader", "audit-sweep", "--watch"])
    assert _doctor(capsys, "--home", home)[2]["roots"][0]["watch"]["state"] == "not covered"
    pid = fake_proc.process(["agy-reader", "--format", "json", "-watch", "--watch-interval", "10s"], environ={"HOME": str(home)})
    _, text, doc = _doctor(capsys, "--home", home)
    assert doc["roots"][0]["watch"] == {"state": "covered", "pid": pid}
    assert f"watch antigravity-cli: covered by agy-reader --watch (pid {pid})\n" in text


@pytest.mark.parametrize(
    ("argv", "roots"),
    [
        (["agy-reader", "--watch"], []),
        (["agy-reader", "--watch=true", "--root", "/a", "--root=/b"], ["/a", "/b"]),
        (["agy-reader", "--watch=0"], None),
        (["agy-reader", "--watch=maybe"], None),
        (["agy-reader", "--unknown", "--watch"], None),
        (["agy-reader", "--", "--watch"], None),
        (["agy-reader", "--out", "--watch"], None),  # --watch is the value of --out
        (["agy-reader", "shape-fingerprint", "--watch"], None),
        (["agy", "--watch"], None),
    ],
)
def test_reader_watch_roots_parse_like_go_flags(argv, roots):
    assert discovery.reader_watch_roots(argv) == roots


def test_ci_reports_an_unverified_daemon_as_a_warning_of_the_sweep(cli, recorder, fake_proc, tmp_path, capsys, monkeypatch):
    cli.cli_log(recorder.port)
    fake_proc.listen("127.0.0.1", recorder.port, recorder.inode)
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    _, stdout, _ = _run(capsys, "ci", "--root", cli.path, "--out", tmp_path / "c", "--format", "json")
    [sweep] = [c for s in ci_result(envelope(stdout, "ci"))["stages"] if s["name"] == "sweep" for c in s["checks"]]
    [finding] = [f for f in sweep["findings"] if f["rule"] == "sweep/daemon-not-used"]
    assert finding["level"] == "warning" and finding["file"] == str(cli.path)
    assert finding["message"].startswith(f"http://127.0.0.1:{recorder.port} (found in {cli.path / 'cli.log'}) {NOTE_HEAD}")
    assert sweep["verdict"] == "pass" and recorder.received == [] and TOKEN not in stdout


def test_an_ide_language_server_is_found_by_its_app_data_dir_and_flag_ports(tmp_path, fake_proc):
    ide = tmp_path / "home" / ".gemini" / "antigravity"
    ide.mkdir(parents=True)
    argv = ["/opt/ag/language_server_linux_x64", "--https_server_port", "4801", "--extension_server_port", "4802"]
    argv += ["--csrf_token", T1, "--extension_server_csrf_token", T2, "--app_data_dir", "antigravity"]
    ls = fake_proc.process(argv, sockets=[81, 82])
    fake_proc.listen("127.0.0.1", 4802, 82)  # only the extension server port listens
    [endpoint] = discovery.discover(_root(ide), env={}).endpoints
    assert (endpoint.url, endpoint.token, endpoint.token_origin) == (
        "http://127.0.0.1:4802",
        Secret(T2),
        f"--extension_server_csrf_token of process {ls}",
    )
    fake_proc.listen("::1", 4801, 81)
    [endpoint] = discovery.discover(_root(ide), env={}).endpoints  # one endpoint per process: the first that listens
    assert endpoint.url == "http://127.0.0.1:4802"
    assert discovery.discover(_root(tmp_path / "home" / ".gemini" / "antigravity-cli"), env={}).endpoints == ()


def test_proc_net_tcp_addresses():
    assert procfs._address("0100007F:1F90") == ("127.0.0.1", 8080)
    assert procfs._address("00000000000000000000000001000000:0050") == ("::1", 80)
    assert procfs._address("0000000000000000FFFF00000100007F:0050") == ("127.0.0.1", 80)  # v4-mapped
    assert procfs._address("zz:1") is None and procfs._address("0100:1") is None


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=600))
def test_proc_parsers_never_raise_on_garbage(tmp_path_factory, blob):
    proc = tmp_path_factory.mktemp("garbage")
    (proc / "net").mkdir()
    (proc / "net" / "tcp").write_bytes(b"header\n" + blob)
    (proc / "net" / "tcp6").write_bytes(blob)
    (proc / "7" / "fd").mkdir(parents=True)
    for name in ("cmdline", "environ", "stat"):
        (proc / "7" / name).write_bytes(blob)
    discovery.listening_sockets(proc)
    discovery.scan_processes(proc)
    discovery.reader_watchers(proc)
    discovery.reader_watch_roots(discovery.parse_argv(blob))


def test_main_log_token_is_the_last_csrf_token_flag_of_the_newest_main_log(tmp_path):
    older, newer = tmp_path / "a" / "main.log", tmp_path / "b" / "main.log"
    for path in (older, newer):
        path.parent.mkdir()
    older.write_text(f"spawn language_server --csrf_token {T1}\n")
    newer.write_text(f"spawn --csrf_token={T2}\nspawn --csrf_token '{T3}' --extension_server_csrf_token {T4}\nother\n")
    assert discovery.token_from_main_log([newer, older]) == (Secret(T3), newer)
    newer.write_text(f"spawn --extension_server_csrf_token {T4}\nspawn --csrf_token short\n")  # neither is one
    assert discovery.token_from_main_log([newer, older]) == (Secret(T1), older)
    assert discovery.token_from_main_log([tmp_path / "missing.log"]) is None


def test_one_rejection_message_per_root_with_keep_going(tmp_path, capsys, monkeypatch):
    b = StoreBuilder(tmp_path / "home", seed=44)
    cli, ide = b.root("cli"), b.root("ide")
    for root in (cli, ide):
        root.conversation(turns=1)
        root.conversation(turns=1)
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", T1)  # neither daemon's token
    with (
        SimulatedDaemon(cli.path, token=T2) as one,
        SimulatedDaemon(ide.path, token=T3, kind="language_server", write_log=False) as two,
    ):
        _log(tmp_path / "home" / ".config" / "Antigravity" / "logs" / "language_server.log", two.port)
        code, stdout, stderr = _run(capsys, "sweep", "--home", tmp_path / "home", "--out", tmp_path / "c", "--keep-going")
        assert one.calls == two.calls == []  # refused calls are not logged: one refusal each
    doc = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert code == 1 and doc["sessions"] == []
    assert [f["message"].split("; ", 1)[1] for f in doc["failures"]] == [
        f"sweep of {root.path} stopped: 1 more session(s) of this root not tried"
        for root in sorted((cli, ide), key=lambda r: r.path.name)
    ]
    assert stdout.count("\nfailed: ") == 2 and T1 not in stdout + stderr
