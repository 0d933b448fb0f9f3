"""Reliability, security side: symbolic links, private outputs, hostile ids, the CSRF token and
remote daemon URLs.

* a symbolic link inside a store is never written through and is reported wherever it is skipped;
* every directory and file we create is private (0700 / 0600), whatever the umask;
* an id that is not a UUID (``../../etc/x``, ``..%2F``, NUL) never becomes part of a path;
* the CSRF token appears in no output, manifest, corpus file or error, even when the daemon
  echoes it back;
* a daemon URL that is not loopback is refused unless allowed, before any connection is made.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import stat
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from cli_capture import cli
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.actions import link_writer
from audit.actions.sweep import SKIP_REFUSED_SOURCE, sweep
from audit.checks import completeness, links
from audit.checks.fingerprint import fingerprint_paths
from audit.errors import AuditError, UsageError
from audit.store import database as sqlite_store
from audit.store.daemon import check_endpoint
from audit.store.database import read_database
from audit.store.layout import resolve_roots
from audit.testing import StoreBuilder
from audit.testing.daemon import SimulatedDaemon
from tests.reliability.test_reliability_hostile import ECHO_TOKEN, TokenEcho, token_echo  # noqa: F401 - a fixture

TOKEN = "reliability-csrf-9c4e1f7a2b6d8e0f"
HOSTILE_IDS = (
    "../../etc/x",
    "..%2F..%2Fetc%2Fx",
    "../../etc/x.db",
    "a\x00b",
    "/etc/passwd",
    "0d7c9f8e-5b1a-4c3d-9e2f-1a2b3c4d5e6f/../x",
)


def tree(top: Path) -> dict[str, tuple[bytes, int]]:
    """Every entry below *top*: file bytes and mtime, link targets, directories."""
    out = {}
    for p in sorted(top.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(top))] = (os.readlink(p).encode(), 0)
        elif p.is_file():
            out[str(p.relative_to(top))] = (p.read_bytes(), p.stat().st_mtime_ns)
        else:
            out[str(p.relative_to(top))] = (b"<dir>", 0)
    return out


# ----------------------------------------------------------------------------- symbolic links


@pytest.fixture
def linked(tmp_path):
    """A store whose child sidecar, one .db, one brain directory and one transcript are links to
    files outside it (copies of the real ones, so a followed link would look valid)."""
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    parent, (kid,) = root.family(children=1)
    other = root.conversation(turns=1)
    outside = tmp_path / "outside"
    outside.mkdir()
    links_made = {}
    transcript = next(other.paths["brain"].rglob("transcript.jsonl"))
    for name, path in (
        ("sidecar", kid.paths["sidecar"]),
        ("db", other.paths["db"]),
        ("transcript", transcript),
        ("brain", parent.paths["brain"]),
    ):
        target = outside / name
        path.rename(target)
        path.symlink_to(target)
        links_made[name] = path
    return root, parent, kid, other, outside, links_made


def test_symlinks_in_a_store_are_reported_and_never_followed(linked, tmp_path):
    root, parent, kid, other, outside, made = linked
    before = tree(outside)

    code, out, _ = cli("stores", "--root", root.path)
    assert code == 0
    for name in ("sidecar", "db", "brain", "transcript"):
        assert f"foreign: {made[name]}: symbolic link (not followed)" in out.splitlines()

    code, out, _ = cli("links", "backfill", "--root", root.path, "--format", "json")
    diagnostics = json.loads(out)["result"]["roots"][0]["diagnostics"]
    assert code == 0 and json.loads(out)["result"]["roots"][0]["changes"] == []
    assert [(d["id"], d["kind"]) for d in diagnostics] == [(kid.id, "unreadable-sidecar")]
    assert "symbolic link" in diagnostics[0]["message"]
    code, _, err = cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")
    assert code == 1 and "repair refused" in err and not (tmp_path / "backup").exists()

    code, out, _ = cli("verify-contract", root.path)
    assert code == 0 and f"{made['sidecar']}: note: [skipped] symbolic link" in out.splitlines()
    surveyed = fingerprint_paths([root.path])
    assert {f"{made[n]}: symbolic link (not followed)" for n in ("sidecar", "db", "brain", "transcript")} <= set(surveyed.skipped)
    assert made["sidecar"] not in surveyed.files["sidecars"] and made["db"] not in surveyed.files["databases"]

    result = {r.sidecar: r for r in completeness.check([root.path]).results}[made["sidecar"]]
    assert result.verdict == "unreadable" and "symbolic link" in result.detail

    code, out, _ = cli("inspect", other.paths["brain"], "--format", "json")
    findings = [(f["file"], f["line"], f["rule"], f["message"]) for f in json.loads(out)["findings"]]
    assert (
        code == 1 and (str(made["transcript"]), None, "unreadable", "cannot read: is a symbolic link; not followed") in findings
    )

    code, out, _ = cli("sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "out", "--format", "json")
    swept = json.loads(out)["result"]["manifest"]
    assert code == 0 and other.id not in {s["id"] for s in swept["sessions"]}  # its .db is a link: not a session source
    assert {"path": str(other.paths["sidecar"]), "reason": SKIP_REFUSED_SOURCE} in swept["skipped"]  # nor its other files alone
    assert not any(made["brain"].name in rel for s in swept["sessions"] for rel in s["files"] if "/brain/" in rel)
    assert tree(outside) == before


def test_a_link_swapped_in_after_resolution_is_never_written_through(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    _, (kid,) = root.family(children=1)
    resolution = links.resolve(root.path / "conversations")
    assert [link.id for link in resolution.changes] == [kid.id]
    outside = tmp_path / "outside.json"
    kid.paths["sidecar"].rename(outside)
    kid.paths["sidecar"].symlink_to(outside)
    before = outside.read_bytes(), outside.stat().st_mtime_ns
    with pytest.raises(AuditError):
        link_writer.apply(resolution)
    assert (outside.read_bytes(), outside.stat().st_mtime_ns) == before and kid.paths["sidecar"].is_symlink()


def test_rollback_refuses_a_sidecar_that_became_a_link(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    _, (kid,) = root.family(children=1)
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")[0] == 0
    outside = tmp_path / "outside.json"
    kid.paths["sidecar"].rename(outside)
    kid.paths["sidecar"].symlink_to(outside)
    before = outside.read_bytes()
    code, _, err = cli("links", "rollback", "--backup", tmp_path / "backup")
    assert code == 2 and err.startswith(f"agy-audit: {kid.paths['sidecar']}: not a regular file")
    assert outside.read_bytes() == before


@pytest.mark.parametrize("dangling", [False, True])
def test_output_paths_that_are_links_are_refused(tmp_path, dangling):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    convo = root.conversation(turns=1)
    target = tmp_path / "target"
    if not dangling:
        target.mkdir()
    for argv in (
        ("sweep", "--source", "native", "--root", root.path, "--out"),
        ("export", "--root", root.path, convo.id, "--out"),
        ("links", "repair", "--root", root.path, "--backup"),
    ):
        link = tmp_path / "link"
        link.symlink_to(target)
        code, _, err = cli(*argv, link)
        assert code == 2 and str(link) in err and "already exists" in err, (argv, err)
        assert link.is_symlink() and (not target.exists() if dangling else list(target.iterdir()) == [])
        link.unlink()


# ----------------------------------------------------------------------------- private outputs


def _modes(top: Path) -> set[tuple[str, int]]:
    return {("dir" if p.is_dir() else "file", stat.S_IMODE(p.lstat().st_mode)) for p in [top, *top.rglob("*")]}


def test_everything_written_is_private_whatever_the_umask(tmp_path, monkeypatch):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    _, (kid,) = root.family(children=1)
    live = root.conversation(turns=1, wal_steps=1)
    os.remove(f"{live.paths['db']}-shm")  # -wal content without -shm: read through a private copy
    copies = []
    real_connect = sqlite_store._connect

    def connect(uri: str):  # the private copy of a .db that cannot be read in place
        path = Path(unquote(uri.removeprefix("file:").split("?")[0]))
        if path.name == "conversation.db":
            copies.append((stat.S_IMODE(path.parent.stat().st_mode), stat.S_IMODE(path.stat().st_mode)))
        return real_connect(uri)

    monkeypatch.setattr(sqlite_store, "_connect", connect)
    kid_mode = stat.S_IMODE(kid.paths["sidecar"].stat().st_mode)
    old = os.umask(0)
    try:
        assert cli("sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "sweep")[0] == 0
        assert cli("export", "--root", root.path, live.id, "--out", tmp_path / "export.json")[0] == 0
        assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")[0] == 0
        assert read_database(live.paths["db"]).access == "copy"
    finally:
        os.umask(old)
    assert copies and set(copies) == {(0o700, 0o600)}
    assert _modes(tmp_path / "sweep") == {("dir", 0o700), ("file", 0o600)}
    assert _modes(tmp_path / "backup") == {("dir", 0o700), ("file", 0o600)}
    assert stat.S_IMODE((tmp_path / "export.json").stat().st_mode) == 0o600
    assert stat.S_IMODE(kid.paths["sidecar"].stat().st_mode) == kid_mode  # the stamped sidecar keeps its mode


# ----------------------------------------------------------------------------- hostile ids


@pytest.mark.parametrize("hostile", HOSTILE_IDS)
def test_ids_from_file_contents_never_reach_a_path(tmp_path, hostile):
    """cascadeId, parentConversationId, invokeSubagent results and the .db's internal id."""
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    parent, (kid,) = root.family(children=1)
    odd = root.conversation(turns=1, internal_cascade_id=hostile)
    for convo, edit in ((kid, "parent"), (parent, "results"), (odd, "cascade")):
        doc = json.loads(convo.paths["sidecar"].read_text())
        if edit == "parent":
            doc["metadata"]["parentConversationId"] = hostile
        elif edit == "results":
            doc["steps"][2]["invokeSubagent"]["results"].append({"conversationId": hostile})
        else:
            doc["cascadeId"] = hostile
        convo.paths["sidecar"].write_text(json.dumps(doc))
    before = tree(tmp_path)

    res = links.resolve(root.path / "conversations")
    assert {(d.id, d.kind) for d in res.diagnostics} >= {(odd.id, "invalid-cascade-id")}
    assert all(hostile not in (link.parent or "") for link in res.links)
    assert cli("links", "backfill", "--root", root.path)[0] == 0
    result = sweep(resolve_roots(home=tmp_path / "home", env={}), tmp_path / "out", source="native", keep_going=True)
    assert [(f.id, f.stage) for f in result.failures] == [(odd.id, "identity")]
    verdicts = {r.id: r.verdict for r in completeness.check([root.path]).results}
    assert verdicts[odd.id] == "incomplete"

    after = tree(tmp_path)
    created = sorted(set(after) - set(before))
    assert all(p.startswith("out") for p in created), created  # only the sweep's own directory
    assert all(hostile not in p for p in after)
    assert not any(Path(p).name in ("x", "x.db", "passwd") for p in after)


@pytest.mark.parametrize("hostile", HOSTILE_IDS)
def test_ids_on_the_command_line_are_never_used_as_store_paths(tmp_path, hostile):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.conversation(turns=1)
    before = tree(tmp_path)
    for argv in (("export", "--root", root.path, hostile), ("stores", "--root", root.path, "show", hostile)):
        code, out, err = cli(*argv)
        assert (code, out) == (2, "") and err.startswith("agy-audit: "), (argv, err)
    assert tree(tmp_path) == before


@pytest.mark.parametrize("entry", ["../../evil.trajectory.json", "evil\x00.trajectory.json", "..%2Fevil.trajectory.json"])
def test_a_backup_manifest_cannot_name_files_outside_its_store(tmp_path, entry):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.family(children=1)
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")[0] == 0
    manifest = tmp_path / "backup" / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["files"][entry] = next(iter(doc["files"].values()))
    manifest.write_text(json.dumps(doc))
    before = tree(tmp_path / "home")
    for action in ("verify", "rollback"):
        code, _, err = cli("links", action, "--backup", tmp_path / "backup")
        assert code == 2 and "malformed entry" in err
    assert tree(tmp_path / "home") == before and not (tmp_path / "evil.trajectory.json").exists()


def test_a_backup_manifest_root_with_a_nul_is_refused(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.family(children=1)
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")[0] == 0
    manifest = tmp_path / "backup" / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["root"] = str(root.path / "conversations") + "\x00/../../elsewhere"
    manifest.write_text(json.dumps(doc))
    for action in ("verify", "rollback"):
        code, _, err = cli("links", action, "--backup", tmp_path / "backup")
        assert code == 2 and err.startswith("agy-audit: ")


# ----------------------------------------------------------------------------- the CSRF token


def _everything(out: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file())


@pytest.mark.parametrize("mode", ["ok", "unauthorized", "internal", "timeout", "malformed", "empty", "null"])
def test_the_token_is_in_no_output_whatever_the_daemon_does(tmp_path, monkeypatch, mode):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    convo = root.conversation(turns=1)
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    outputs = []
    with SimulatedDaemon(root.path, token=TOKEN, hang=1.0) as sim:
        if mode != "ok":
            sim.fail(convo.id, mode)
        for fmt in ("text", "json"):
            out = tmp_path / f"out-{fmt}"
            code, stdout, stderr = cli(
                "sweep", "--source", "daemon", "--timeout", "0.5", "--root", root.path, "--out", out, "--format", fmt
            )
            assert code == (0 if mode == "ok" else 1), stderr
            outputs += [stdout.encode(), stderr.encode(), _everything(out)]
        assert sim.calls  # the daemon was used
    assert not any(TOKEN.encode() in blob for blob in outputs)


class _Echo(BaseHTTPRequestHandler):
    """A daemon that puts the token into its answers: ``answers`` is an iterator of (status, body)."""

    protocol_version = "HTTP/1.1"
    answers = iter(())
    close = False

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        self.rfile.read(int(self.headers["Content-Length"]))
        status, body = next(self.answers, (500, TOKEN))
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if self.close:  # no length: the end of the answer is the end of the connection
            self.send_header("Connection", "close")
        else:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())
        self.close_connection = self.close

    def log_message(self, *args: object) -> None:
        pass


def _sweeps_against(handler: type[_Echo], tmp_path: Path, monkeypatch, runs: int) -> list[str]:
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.conversation(turns=1)
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", f"http://127.0.0.1:{server.server_address[1]}")
    seen = []
    try:
        for i in range(runs):
            out = tmp_path / f"out-{i}"
            code, stdout, stderr = cli("sweep", "--source", "daemon", "--root", root.path, "--out", out, "--format", "json")
            assert code == 1
            seen += [stdout, stderr, _everything(out).decode()]
    finally:
        server.shutdown()
        server.server_close()
    return seen


def test_the_token_is_scrubbed_when_the_daemon_echoes_it(tmp_path, monkeypatch):
    class Echo(_Echo):
        answers = iter(
            [
                (500, json.dumps({"code": "internal", "message": f"bad token {TOKEN}"})),
                (200, f'{{"trajectory": {{"cascadeId": "{TOKEN}"'),
                (403, json.dumps({"message": TOKEN})),
            ]
        )

    seen = _sweeps_against(Echo, tmp_path, monkeypatch, 3)
    assert not any(TOKEN in text for text in seen)
    assert "<redacted>" in "".join(seen)


def test_an_answer_delimited_by_connection_close_is_read(tmp_path, monkeypatch):
    class Closing(_Echo):
        answers = iter([(500, json.dumps({"code": "internal", "message": "no"}))])
        close = True

    seen = _sweeps_against(Closing, tmp_path, monkeypatch, 1)
    assert "daemon error HTTP 500" in "".join(seen)


def test_a_malformed_token_is_never_echoed(tmp_path, monkeypatch):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.conversation(turns=1)
    secret = "not a token but secret 1234567890"
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", secret)
    code, out, err = cli("sweep", "--source", "daemon", "--root", root.path, "--out", tmp_path / "out")
    assert code == 2 and secret not in out + err and "ANTIGRAVITY_CSRF_TOKEN" in err


def _pieces(text: bytes) -> list[str]:
    """The pieces of ``ECHO_TOKEN`` of 8 characters that *text* holds."""
    return sorted({ECHO_TOKEN[i : i + 8] for i in range(len(ECHO_TOKEN) - 7) if ECHO_TOKEN[i : i + 8].encode() in text})


def _planted_answers(convo) -> dict[str, tuple[int, str, str]]:
    """What ``TokenEcho`` answers GetCascadeTrajectory with: the token, a 12-character prefix, an
    infix and a suffix of it planted in every field an answer can carry -- the HTTP reason, the
    Connect message (in the middle of the text, as ``invalid csrf token <prefix>...`` does), code
    and details, the trajectory's ids, the envelope's keys, and the trajectory's content."""
    t = ECHO_TOKEN
    p, i, s = t[:12], t[9:19], t[-9:]
    reason = f"Bad {p} reason {i}"
    error = {"code": f"code_{i}", "message": f"invalid csrf token {p}... (was {i}; ends {s})"}
    steps = [dict(step) for step in convo.steps]
    steps[0]["type"] = f"CORTEX_STEP_TYPE_{p}"  # quoted by the contract's findings
    steps[0]["note"] = f"the model printed {t} and {i}"
    steps[-1]["status"] = f"CORTEX_STEP_STATUS_{s}"
    content = dict(convo.trajectory, steps=steps, trajectoryId=f"{i}-{s}")
    return {
        "internal": (500, reason, json.dumps(dict(error, details=[{"debug": f"{t}/{p}"}]))),
        "auth": (403, reason, json.dumps(error)),
        "identity": (200, reason, json.dumps({"trajectory": {"cascadeId": f"{convo.id}-{p}", "trajectoryId": i, "steps": []}})),
        "envelope": (200, reason, '{"trajectory": {}, "%s": 1, "%s": 2}' % (p, i)),
        "not-json": (200, reason, f"invalid csrf token {p}..."),
        "content": (200, reason, json.dumps({"trajectory": content})),
    }


def test_no_piece_of_the_token_survives_in_any_output_but_the_corpus_file(tmp_path, monkeypatch, token_echo):  # noqa: F811 - the fixture imported above
    # issue 38 item 4: a prefix in the middle of a message reached manifest.json and the ci report;
    # daemon content holding the token was quoted in the ci report JSON
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    convo = root.conversation(turns=2)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    seen: dict[str, bytes] = {}
    corpus_file = f"corpus/cli/{convo.id}.trajectory.json"
    for name, answer in _planted_answers(convo).items():
        TokenEcho.answer = answer
        runs = {
            "sweep-text": ("sweep", "--format", "text"),
            "sweep-json": ("sweep", "--format", "json"),
            "ci-json": ("ci", "--format", "json", "--report", tmp_path / f"{name}.md", "--report", tmp_path / f"{name}.xml"),
            "ci-github": ("ci", "--format", "github"),
        }
        if name not in ("internal", "identity", "content"):  # what ci adds to a sweep: its reports
            runs = {run: argv for run, argv in runs.items() if argv[0] == "sweep"}
        for run, (command, *options) in runs.items():
            out = tmp_path / f"out-{name}-{run}"
            argv = [command, "--source", "daemon", "--root", root.path, "--out", out, *options]
            code, stdout, stderr = cli(*argv, *(["--keep", "--no-live"] if command == "ci" else []))
            assert code == (0 if (name, command) == ("content", "sweep") else 1), (name, run, stderr)
            seen[f"{name} {run} stdout"], seen[f"{name} {run} stderr"] = stdout.encode(), stderr.encode()
            for path in sorted(out.rglob("*")):
                if path.is_file() and str(path.relative_to(out)) != corpus_file:
                    seen[str(path)] = path.read_bytes()
                elif path.is_file():
                    assert ECHO_TOKEN.encode() in path.read_bytes()  # the daemon's content, stored unchanged
        if "ci-json" in runs:
            seen[f"{name} reports"] = b"".join((tmp_path / f"{name}.{ext}").read_bytes() for ext in ("md", "xml"))
        code, stdout, stderr = cli("doctor", "--root", root.path, "--format", "json")
        seen[f"{name} doctor"] = (stdout + stderr).encode()
    seen["step summary"] = summary.read_bytes()
    assert {where: _pieces(data) for where, data in seen.items() if _pieces(data)} == {}
    assert (
        b"<redacted>" in seen["content ci-json stdout"]
        and b"<redacted>" in seen["internal sweep-text stderr"] + seen["internal sweep-text stdout"]
    )


# ----------------------------------------------------------------------------- remote daemons

REMOTE_URLS = (
    "http://10.1.2.3:8080",
    "http://example.com:80",
    "https://evil.example:443",
    "http://127.0.0.1.nip.io:80",
    "http://localhost.evil.example:80",
    "http://[::ffff:10.0.0.1]:80",
    "http://2130706433:80",
    "http://0x7f000001:80",
    "http://127.1:80",
    "http://user:pw@127.0.0.1:80",
    "http://127.0.0.1:80@evil.example:80",
    "http://[::1]:80/?x=1",
)


@pytest.fixture
def no_traffic(monkeypatch):
    """Record (and refuse) every outgoing connection attempt."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("connection attempt recorded by the test")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", lambda self, address: refuse(address))
    monkeypatch.setattr(socket.socket, "connect_ex", lambda self, address: refuse(address))
    return attempts


@pytest.mark.parametrize("url", REMOTE_URLS)
def test_a_remote_daemon_url_is_refused_before_any_connection(tmp_path, monkeypatch, no_traffic, url):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.conversation(turns=1)
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", url)
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    for source in ("daemon", "auto"):
        code, out, err = cli("sweep", "--source", source, "--root", root.path, "--out", tmp_path / f"out-{source}")
        assert (code, out) == (2, "") and err.startswith("agy-audit: daemon "), err
        assert TOKEN not in err and "pw" not in err
        assert not (tmp_path / f"out-{source}").exists()
    assert no_traffic == []


def test_remote_addresses_found_in_processes_are_skipped_without_traffic(tmp_path, no_traffic):
    root = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    root.conversation(turns=1)
    proc = tmp_path / "proc" / "4242"
    proc.mkdir(parents=True)
    (proc / "cmdline").write_bytes(b"\0".join([b"agy", b"--extension_server_port", b"1"]) + b"\0")
    (proc / "environ").write_bytes(f"ANTIGRAVITY_LS_ADDRESS=evil.example:443\0ANTIGRAVITY_CSRF_TOKEN={TOKEN}\0".encode())
    result = sweep(resolve_roots(roots=[root.path], env={}), tmp_path / "out", source="auto", env={}, proc_root=tmp_path / "proc")
    assert result.complete and [r.source for r in result.roots] == ["native"]
    assert no_traffic == []  # nothing listens there according to /proc: not even a probe
    assert TOKEN not in (tmp_path / "out" / "manifest.json").read_text()


HOSTS = st.one_of(
    st.ip_addresses().map(lambda ip: f"[{ip}]" if ip.version == 6 else str(ip)),
    st.sampled_from(["localhost", "LocalHost", "localhost.", "127.1", "2130706433", "0x7f.1", "[::ffff:127.0.0.1]", "[0::1]"]),
    st.text(alphabet="0123456789abcdefx.:[]@-localhost", min_size=1, max_size=30),
)


@settings(max_examples=300, deadline=None)
@given(HOSTS)
def test_only_loopback_hosts_pass_the_endpoint_check(host):
    """An accepted host is one the OS maps to a loopback address without asking DNS; every
    loopback IP literal is accepted."""
    try:
        url = check_endpoint(f"http://{host}:8080")
    except UsageError:
        literal = host.strip("[]")
        try:
            assert not ipaddress.ip_address(literal).is_loopback
        except ValueError:
            pass  # not an IP literal: refusing is always safe
        return
    accepted = urlsplit(url).hostname
    if accepted != "localhost":
        addresses = {info[4][0] for info in socket.getaddrinfo(accepted, 8080, flags=socket.AI_NUMERICHOST)}
        assert addresses and all(ipaddress.ip_address(a.split("%")[0]).is_loopback for a in addresses)
