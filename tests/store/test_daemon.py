"""Daemon client, envelope extraction, endpoint/token discovery and the simulated daemon."""

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.errors import UsageError
from audit.store import discovery
from audit.store.daemon import (
    AuthError,
    DaemonClient,
    DaemonError,
    DaemonTimeout,
    Secret,
    check_endpoint,
    member_bytes,
    trajectory_member,
)
from audit.store.trajectory import read_trajectory
from audit.strictjson import JSONError
from audit.testing import StoreBuilder
from audit.testing.daemon import SimulatedDaemon

TOKEN = "tok-0123456789abcdef-XYZ"
A = "0a1b2c3d-0000-4000-8000-00000000000a"
INTERNAL = "c0ffee00-2222-4000-8000-00000000000c"


# ----------------------------------------------------------------------------- secret, endpoints


def test_secret_is_redacted_and_validated():
    secret = Secret(TOKEN)
    assert secret.reveal() == TOKEN
    assert TOKEN not in repr(secret) and TOKEN not in str(secret) and TOKEN not in f"{secret}"
    assert TOKEN not in repr(discovery.Endpoint("http://127.0.0.1:1", secret, "x"))
    for bad in ("short", "has space in it 0123456789", "line\nbreak0123456789abc", ""):
        with pytest.raises(ValueError) as info:
            Secret(bad)
        assert bad not in str(info.value) or bad == ""


@pytest.mark.parametrize(
    "url, normal",
    [
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://127.9.0.1:8080/", "http://127.9.0.1:8080"),
        ("https://localhost:1/prefix/", "https://localhost:1/prefix"),
        ("http://[::1]:5", "http://[::1]:5"),
    ],
)
def test_loopback_endpoints_are_accepted(url, normal):
    assert check_endpoint(url) == normal


@pytest.mark.parametrize("url", ["http://10.0.0.1:80", "http://example.com:80", "http://192.168.1.2:9", "http://[2001:db8::1]:1"])
def test_remote_endpoints_are_refused_unless_allowed(url):
    with pytest.raises(UsageError, match="not a loopback address; pass --allow-remote-daemon"):
        check_endpoint(url)
    with pytest.raises(UsageError):
        DaemonClient(url)
    assert check_endpoint(url, allow_remote=True).startswith("http")  # no traffic: nothing is called


@pytest.mark.parametrize(
    "url, reason",
    [
        ("http://user:secretpw@127.0.0.1:1", "user info"),
        ("http://127.0.0.1:1/?csrf=secretpw", "user info"),
        ("ftp://127.0.0.1:1", "look like"),
        ("http://127.0.0.1", "look like"),
        ("http://127.0.0.1:99999", "valid"),
    ],
)
def test_malformed_endpoints_are_refused_without_echo(url, reason):
    with pytest.raises(UsageError, match=reason) as info:
        check_endpoint(url)
    assert "secretpw" not in str(info.value)


# ----------------------------------------------------------------------------- envelope


def test_trajectory_member_keeps_exact_bytes():
    raw = b'{ "cascadeId" : "x",\n "n": 1.50, "big": 123456789012345678901234567890, "s": "\\u00e9\xc3\xa9" }'
    body = b' {"status":"IDLE" , "trajectory":' + raw + b'\t, "numTotalSteps": 3}\n'
    got, value = trajectory_member(body)
    assert got == raw
    assert value["big"] == 123456789012345678901234567890 and value["n"].text == "1.50"


@pytest.mark.parametrize(
    "body, reason",
    [
        (b"{}", "empty envelope"),
        (b'{"trajectory": null}', "trajectory is null"),
        (b'{"trajectory": [1]}', "trajectory is array"),
        (b'{"trajectory": {"a": 1}', "invalid JSON"),
        (b"[]", "top level is array"),
        (b'{"trajectory": {}, "trajectory": {}}', "duplicate key"),
        (b'{"trajectory": {"x": NaN}}', "not valid JSON"),
    ],
)
def test_bad_envelopes_are_json_errors(body, reason):
    with pytest.raises(JSONError, match=reason):
        trajectory_member(body)


_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False)
)
_values = st.recursive(
    _scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=12
)
_ws = st.sampled_from(["", " ", "\n", "\t ", "\r\n  "])


@settings(max_examples=150, deadline=None)
@given(
    trajectory=st.dictionaries(st.text(max_size=6), _values, max_size=4),
    others=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "trajectory"), _values, max_size=3),
    position=st.integers(0, 3),
    spaces=st.lists(_ws, min_size=8, max_size=8),
    indent=st.sampled_from([None, 1, 2]),
)
def test_member_bytes_finds_the_member_in_any_layout(trajectory, others, position, spaces, indent):
    raw = json.dumps(trajectory, indent=indent, ensure_ascii=indent is None).encode()
    members = [
        json.dumps(k).encode() + spaces[0].encode() + b":" + spaces[1].encode() + json.dumps(v).encode()
        for k, v in others.items()
    ]
    members.insert(
        min(position, len(members)), b'"trajectory"' + spaces[2].encode() + b":" + spaces[3].encode() + raw + spaces[4].encode()
    )
    body = spaces[5].encode() + b"{" + spaces[6].encode() + b",".join(members) + b"}" + spaces[7].encode()
    assert member_bytes(body, "trajectory") == raw
    assert trajectory_member(body)[0] == raw


# ----------------------------------------------------------------------------- client vs simulator


@pytest.fixture
def store(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=3)
    cli = b.root("cli")
    plain = cli.conversation(turns=1, brain=False)
    renamed = cli.conversation(A, turns=1, internal_cascade_id=INTERNAL, brain=False)
    return cli, plain, renamed


def test_fetch_returns_the_served_bytes_and_sends_connect_headers(store):
    cli, plain, _ = store
    with SimulatedDaemon(cli.path, token=TOKEN) as sim:
        client = DaemonClient(sim.url, Secret(TOKEN), timeout=5)
        assert client.reachable()
        fetched = client.fetch_trajectory(plain.id)
        assert fetched.raw == sim.served(plain.id)
        assert json.loads(fetched.raw) == read_trajectory(plain.paths["db"]).trajectory
        assert fetched.requested_id == plain.id
        assert sim.calls == [("LoadTrajectory", plain.id), ("GetCascadeTrajectory", plain.id)]
        assert TOKEN not in repr(client)
    assert not client.reachable()


def test_get_requires_load_first(store):
    cli, plain, _ = store
    with SimulatedDaemon(cli.path, token=None) as sim:
        with pytest.raises(DaemonError, match=r"HTTP 404 on GetCascadeTrajectory: trajectory .* is not loaded \(not_found\)"):
            DaemonClient(sim.url).call("GetCascadeTrajectory", {"cascadeId": plain.id})


def test_internal_id_retry(store):
    cli, _, renamed = store
    with SimulatedDaemon(cli.path, token=TOKEN) as sim:
        client = DaemonClient(sim.url, Secret(TOKEN), timeout=5)
        with pytest.raises(DaemonError, match="not loaded"):
            client.fetch_trajectory(A)  # no internal id known: no retry
        fetched = client.fetch_trajectory(A, INTERNAL)
        assert fetched.requested_id == INTERNAL
        assert json.loads(fetched.raw)["cascadeId"] == INTERNAL
        assert sim.calls[-3:] == [("LoadTrajectory", A), ("GetCascadeTrajectory", A), ("GetCascadeTrajectory", INTERNAL)]


def test_failed_retry_reports_both_attempts(store):
    cli, _, _ = store
    with SimulatedDaemon(cli.path, token=None, failures={INTERNAL: "internal"}) as sim:
        with pytest.raises(DaemonError) as info:
            DaemonClient(sim.url).fetch_trajectory(A, INTERNAL)
    assert "is not loaded" in str(info.value)
    assert f"retry with internal cascade id {INTERNAL}: daemon error HTTP 500" in str(info.value)


@pytest.mark.parametrize(
    "mode, error, text",
    [
        (
            "unauthorized",
            AuthError,
            "daemon authentication failed: HTTP 401 on GetCascadeTrajectory (check CSRF token discovery or ANTIGRAVITY_CSRF_TOKEN)",
        ),
        ("internal", DaemonError, "daemon error HTTP 500 on GetCascadeTrajectory: simulated failure for {id} (internal)"),
        (
            "malformed",
            DaemonError,
            "GetCascadeTrajectory: malformed response envelope: invalid JSON at line 1 column 80: Expecting value",
        ),
        ("empty", DaemonError, "GetCascadeTrajectory: malformed response envelope: empty envelope: no trajectory member"),
        ("null", DaemonError, "GetCascadeTrajectory: malformed response envelope: trajectory is null, not an object"),
        ("timeout", DaemonTimeout, "GetCascadeTrajectory: no answer from the daemon within 0.4s"),
    ],
)
def test_failure_modes(store, mode, error, text):
    cli, plain, _ = store
    with SimulatedDaemon(cli.path, token=TOKEN, failures={plain.id: mode}, hang=3) as sim:
        client = DaemonClient(sim.url, Secret(TOKEN), timeout=0.4)
        began = time.monotonic()
        with pytest.raises(error) as info:
            client.fetch_trajectory(plain.id)
        assert time.monotonic() - began < 2.5
    assert str(info.value) == text.format(id=plain.id)
    assert TOKEN not in str(info.value)


def test_wrong_or_missing_token_is_an_auth_error(store):
    cli, plain, _ = store
    with SimulatedDaemon(cli.path, token=TOKEN) as sim:
        for token in (None, Secret("another-token-0123456789")):
            with pytest.raises(AuthError, match="HTTP 401 on LoadTrajectory"):
                DaemonClient(sim.url, token, timeout=5).fetch_trajectory(plain.id)


def test_connection_refused():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    client = DaemonClient(f"http://127.0.0.1:{port}", timeout=2)
    assert not client.reachable()
    with pytest.raises(
        DaemonError, match=rf"LoadTrajectory: cannot connect to the daemon at http://127.0.0.1:{port} \(is agy running\?\)"
    ):
        client.fetch_trajectory(A)


def test_simulator_writes_port_line_and_stops_by_itself(store):
    cli, _, _ = store
    sim = SimulatedDaemon(cli.path, lifetime=0.3).start()
    port = sim.port
    log = cli.path / "log" / f"cli-sim-{port}.log"  # cli.log is a relative link to it, as agy makes it
    assert os.readlink(cli.path / "cli.log") == f"log/cli-sim-{port}.log"
    assert discovery.port_from_logs(cli.path) == (port, log)
    assert "for HTTPS (gRPC)" in (cli.path / "cli.log").read_text()
    deadline = time.monotonic() + 5
    while DaemonClient(f"http://127.0.0.1:{port}").reachable() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not DaemonClient(f"http://127.0.0.1:{port}").reachable()
    with pytest.raises(ValueError, match="failure mode must be one of"):
        sim.fail(A, "exploded")


# ----------------------------------------------------------------------------- discovery: logs


def test_port_from_log_takes_newest_http_line_and_ignores_https():
    lines = [
        b"I0101 listening on random port at 1111 for HTTP\n",
        b"I0101 listening on random port at 2222 for HTTPS (gRPC)\n",
        b"I0102 listening on random port at 3333 for HTTP\n",
        b"I0103 listening on random port at 4444 for HTTPS (gRPC)\n",
        b"I0104 listening on random port at 0 for HTTP\n",
        b"I0104 listening on random port at 70000 for HTTP\n",
        b"other line\n",
    ]
    assert discovery.port_from_log(lines) == 3333
    assert discovery.port_from_log(lines[1:2]) is None
    assert discovery.port_from_log([]) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["HTTP", "HTTPS (gRPC)", "HTTPX", "noise"]), st.integers(1, 65535)), max_size=8))
def test_port_from_log_property(entries):
    lines = [
        (f"listening on random port at {port} for {kind}\n" if kind != "noise" else f"listening at {port}\n").encode()
        for kind, port in entries
    ]
    expected = [port for kind, port in entries if kind == "HTTP"]
    assert discovery.port_from_log(lines) == (expected[-1] if expected else None)


def _log(path: Path, port: int, mtime: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"listening on random port at {port} for HTTP\n")
    os.utime(path, ns=(mtime, mtime))


def test_port_from_logs_uses_the_newest_log_with_a_port_line(tmp_path):
    root = tmp_path / "antigravity-cli"
    _log(root / "cli.log", 1001, 10**18)
    _log(root / "log" / "cli-2.log", 1002, 3 * 10**18)
    (root / "log" / "cli-3.log").write_text("no port here\n")
    os.utime(root / "log" / "cli-3.log", ns=(4 * 10**18, 4 * 10**18))
    (root / "log" / "cli-9.log").symlink_to(root / "cli.log")
    assert [p.name for p in discovery.log_files(root)] == ["cli-3.log", "cli-2.log", "cli.log"]
    assert discovery.port_from_logs(root) == (1002, root / "log" / "cli-2.log")
    assert discovery.port_from_logs(tmp_path / "nothing") is None


# ----------------------------------------------------------------------------- discovery: processes


def test_parse_flags_both_spellings():
    argv = [
        "/opt/x/language_server_linux_x64",
        "--https_server_port",
        "4401",
        "--csrf_token=abcdefabcdefabcdef01",
        "-extension-server-port=4402",
        "--app_data_dir",
        "--enable",
        "--unrelated",
        "v",
        "--app_data_dir",
        "antigravity-cli",
        "--extension_server_csrf_token",
    ]
    assert discovery.parse_flags(argv) == {
        "https_server_port": "4401",
        "csrf_token": "abcdefabcdefabcdef01",
        "extension_server_port": "4402",
        "app_data_dir": "antigravity-cli",
    }


_flag_values = st.text(st.sampled_from("abcXYZ019._~:/+=-"), min_size=1, max_size=20).filter(lambda v: not v.startswith("-"))


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from(sorted(discovery.FLAGS)), st.tuples(_flag_values, st.booleans(), st.booleans()), max_size=5)
)
def test_parse_flags_property(flags):
    argv = ["language_server"]
    for name, (value, joined, dashed) in flags.items():
        spelled = "--" + (name.replace("_", "-") if dashed else name)
        argv += [f"{spelled}={value}"] if joined else [spelled, value]
    assert discovery.parse_flags(argv) == {name: value for name, (value, _, _) in flags.items()}


def test_hints_from_cmdline_and_environ():
    ls = discovery.hint_from_cmdline(
        7,
        [
            "/usr/lib/antigravity/language_server_linux_x64",
            "--https_server_port=4401",
            "--extension_server_port",
            "4402",
            "--csrf_token",
            TOKEN,
            "--extension_server_csrf_token",
            "ext-token-0123456789abcd",
            "--app_data_dir",
            "antigravity",
        ],
    )
    assert ls.app_data_dir == "antigravity" and ls.token == Secret(TOKEN)
    assert ls.endpoints == (
        ("https://127.0.0.1:4401", Secret(TOKEN)),
        ("http://127.0.0.1:4402", Secret("ext-token-0123456789abcd")),
    )
    agy = discovery.hint_from_cmdline(8, ["agy", f"--csrf_token={TOKEN}", "--https_server_port=0"])
    assert agy.endpoints == () and agy.token == Secret(TOKEN) and agy.app_data_dir is None
    assert discovery.hint_from_cmdline(9, ["/bin/bash", f"--csrf_token={TOKEN}"]) is None
    assert discovery.hint_from_cmdline(9, ["agy", "--csrf_token=short"]) is None
    assert discovery.hint_from_cmdline(9, []) is None
    env = discovery.hint_from_environ(10, {"ANTIGRAVITY_LS_ADDRESS": "127.0.0.1:4500", "ANTIGRAVITY_CSRF_TOKEN": TOKEN})
    assert env.endpoints == (("http://127.0.0.1:4500", Secret(TOKEN)),)
    url = discovery.hint_from_environ(11, {"ANTIGRAVITY_LS_ADDRESS": "http://[::1]:4501"})
    assert url.endpoints == (("http://[::1]:4501", None),) and url.token is None
    assert discovery.hint_from_environ(12, {"PATH": "/bin"}) is None
    assert discovery.parse_environ(b"A=1\0B=x=y\0junk\0\0") == {"A": "1", "B": "x=y"}


def _fake_proc(tmp_path: Path) -> Path:
    proc = tmp_path / "proc"

    def process(pid, argv, environ=b""):
        d = proc / str(pid)
        d.mkdir(parents=True)
        (d / "cmdline").write_bytes(b"\0".join(a.encode() for a in argv) + b"\0")
        (d / "environ").write_bytes(environ)

    process(100, ["/usr/bin/agy", f"--csrf_token={TOKEN}"])
    process(
        200,
        [
            "/opt/ag/language_server_linux_x64",
            "--https_server_port",
            "4401",
            "--csrf_token",
            "ide-token-0123456789abcd",
            "--app_data_dir",
            "antigravity",
        ],
    )
    process(
        300,
        ["python3", "tool.py"],
        b"HOME=/h\0ANTIGRAVITY_LS_ADDRESS=127.0.0.1:4600\0ANTIGRAVITY_CSRF_TOKEN=env-token-0123456789abcd\0",
    )
    process(400, ["sleep", "5"], b"PATH=/bin\0")
    (proc / "self").mkdir()
    (proc / "cpuinfo").write_text("x")
    return proc


def test_process_hints_from_a_fake_proc_tree(tmp_path):
    proc = _fake_proc(tmp_path)
    hints = discovery.process_hints(proc)
    assert [(h.pid, h.origin) for h in hints] == [(100, "cmdline"), (200, "cmdline"), (300, "environ")]
    assert discovery.process_hints(proc, uid=os.getuid() + 1) == []  # other users' processes are never read
    assert discovery.process_hints(tmp_path / "missing") == []


def test_bad_env_token_is_a_usage_error_without_echo(tmp_path):
    with pytest.raises(UsageError, match="ANTIGRAVITY_CSRF_TOKEN is not a CSRF token") as info:
        discovery.token_from_env({"ANTIGRAVITY_CSRF_TOKEN": "bad token with spaces"})
    assert "spaces" not in str(info.value)
    assert discovery.token_from_env({}) is None


def test_simulator_command_line(store):
    cli, plain, _ = store
    env = dict(os.environ, ANTIGRAVITY_CSRF_TOKEN=TOKEN)
    proc = subprocess.Popen(
        [sys.executable, "-m", "audit.testing.daemon", str(cli.path), "--seconds", "1.5"],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:")
        assert DaemonClient(url, Secret(TOKEN), timeout=5).fetch_trajectory(plain.id).trajectory["cascadeId"] == plain.id
        assert proc.wait(timeout=10) == 0
    finally:
        proc.kill()
        proc.stdout.close()


def test_simulator_serves_legacy_pb_from_its_sidecar_only(tmp_path):
    cli = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    stamped = cli.conversation(turns=1, db=False, legacy_pb=True, brain=False, reader_block={"parentCascadeId": A})
    bare = cli.conversation(turns=1, db=False, legacy_pb=True, brain=False, sidecar="missing")
    with SimulatedDaemon(cli.path, token=None) as sim:
        client = DaemonClient(sim.url, timeout=5)
        assert json.loads(client.fetch_trajectory(stamped.id).raw) == stamped.trajectory  # no agyReader
        with pytest.raises(DaemonError, match=rf"HTTP 500 on LoadTrajectory: cannot decrypt {bare.id}.pb in the simulator"):
            client.fetch_trajectory(bare.id)
