"""``agy-audit doctor``: healthy stores, stale sidecars, daemons (pinned, rejected, accepted), agy
version skew, link and contract problems; the token never shows."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from audit.cli import main
from audit.pipeline import doctor
from audit.resources import data_path
from audit.testing import SimulatedDaemon, StoreBuilder
from audit.testing.builder import write_sidecar
from tests.fake_agy import agy_on_path

TOKEN = "doctor-token-9d2c4e6f8a1b3c5d"
WRONG = "doctor-wrong-0a1b2c3d4e5f6a7b"


@pytest.fixture(autouse=True)
def _no_agy_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "no-agy"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.chdir(tmp_path)  # no project here: the bundled compatibility record


@pytest.fixture
def home(tmp_path) -> Path:
    b = StoreBuilder(tmp_path / "home", seed=31)
    cli = b.root("cli")
    cli.family(children=1)
    cli.conversation(turns=2)
    return tmp_path / "home"


def cli_root(home: Path) -> Path:
    return home / ".gemini" / "antigravity-cli"


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main(["doctor", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def doctor_json(capsys, home: Path) -> tuple[int, dict]:
    code, stdout, stderr = run(capsys, "--home", home, "--format", "json")
    assert stderr == ""
    doc = json.loads(stdout)
    assert (doc["command"], doc["exitCode"]) == ("doctor", code)
    return code, doc["result"]


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_healthy(capsys, home):
    code, stdout, stderr = run(capsys, "--home", home)
    assert (code, stderr) == (0, "")
    root = cli_root(home)
    assert stdout.splitlines() == [
        "ROOT"
        + " " * (len(str(root)) - 4)
        + "  PRODUCT  SESSIONS  VERIFIED  INCOMPLETE  UNKNOWN  MISSING  LINK DIAGNOSTICS  FAILING  VIOLATIONS  DAEMON",
        f"{root}  cli             3         3           0        0        0                 0        0           0  waiting",
        "",
        "daemon antigravity-cli: waiting: no daemon answers (start agy to sweep from it; --source native needs none)",
        "csrf antigravity-cli: unknown (no daemon asked)",
        "watch antigravity-cli: no agy-reader --watch process covers this root",
        f"agy: unknown (agy --version did not answer); {data_path('COMPATIBILITY.md')} records 1.2.11",
        "",
        "doctor: healthy (1 root(s) waiting for their daemon)",
    ]


def test_sidecars_are_judged_by_content_and_each_remedy_names_the_session(capsys, home):
    b = StoreBuilder(home, seed=32).root("cli")
    stale = b.conversation(turns=2, sidecar="stale", stale_missing_steps=1)
    missing = b.conversation(turns=1, sidecar="missing")
    newer = b.conversation(turns=2, sidecar="stale", stale_missing_steps=1)  # content-stale, newer on disk
    os.utime(newer.paths["sidecar"], ns=(newer.end_ns + 10**12, newer.end_ns + 10**12))
    legacy = b.conversation(turns=1, db=False, legacy_pb=True)  # no .db: nothing to verify it against
    code, stdout, _ = run(capsys, "--home", home)
    root = cli_root(home)
    assert code == 1
    first, second = sorted([stale, newer], key=lambda c: c.id)
    assert stdout.endswith(
        "action needed:\n"
        + "".join(
            f"  {root}: session {c.id}: the sidecar is incomplete by content: sidecar lacks 1 step(s) from step "
            f"{len(c.steps) - 1} ({c.steps[-1]['type']}); source has {len(c.steps)}; its writer refreshes it: "
            f"agy-reader --root {root} --sync {c.id}\n"
            f"    run: agy-audit completeness --root {root} {c.id}\n"
            for c in (first, second)
        )
        + f"  {root}: session {legacy.id}: the sidecar is not verified by content (unknown): the source is a legacy "
        "encrypted .pb; only the user's own key reads it offline (set ANTIGRAVITY_KEY or give --key-file)\n"
        f"    run: agy-audit completeness --root {root} {legacy.id}\n"
        f"  {root}: session {missing.id}: its .db has no sidecar; its writer writes it: agy-reader --root {root} --sync "
        f"{missing.id}\n"
        f"    run: agy-audit export --root {root} {missing.id}\n"
        "\ndoctor: action needed (4)\n"
    )
    code, doc = doctor_json(capsys, home)
    assert code == 1
    assert doc["roots"][0]["sidecars"] == {"verified": 3, "incomplete": 2, "unknown": 1, "missing": 1}
    # the remedies run: completeness explains the session (exit 1: incomplete), export gives its content
    assert main(["completeness", "--root", str(root), stale.id]) == 1
    assert f"{stale.id}  incomplete" in capsys.readouterr().out
    assert main(["export", "--root", str(root), missing.id]) == 0
    assert json.loads(capsys.readouterr().out)["cascadeId"] == missing.id


def test_sessions_past_the_shown_ones_are_one_action(capsys, home):
    b = StoreBuilder(home, seed=33).root("cli")
    for _ in range(doctor.SHOWN_SESSIONS + 2):
        b.conversation(turns=1, sidecar="missing")
    code, doc = doctor_json(capsys, home)
    root = cli_root(home)
    assert code == 1 and doc["roots"][0]["sidecars"]["missing"] == doctor.SHOWN_SESSIONS + 2
    shown = [a["remedy"].rsplit(" ", 1) for a in doc["actions"][:-1]]
    assert [remedy for remedy, _ in shown] == [f"agy-audit export --root {root}"] * doctor.SHOWN_SESSIONS
    assert doc["actions"][-1] == {
        "subject": str(root),
        "problem": "2 more session(s) without a sidecar",
        "remedy": f"agy-audit stores --sessions --root {root}",
    }


def test_pinned_unreachable_daemon_url_needs_action(capsys, home, monkeypatch):
    url = f"http://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", url)
    code, doc = doctor_json(capsys, home)
    assert code == 1
    assert doc["roots"][0]["daemon"] == {
        "state": "unreachable",
        "url": url,
        "origin": "ANTIGRAVITY_DAEMON_URL",
        "path": "pinned",
        "detail": f"nothing answers at {url} (pinned by ANTIGRAVITY_DAEMON_URL)",
        "csrf": None,
        "tokenOrigin": None,
        "notes": [],
    }
    assert doc["actions"] == [
        {
            "subject": str(cli_root(home)),
            "problem": f"daemon unreachable: nothing answers at {url} (pinned by ANTIGRAVITY_DAEMON_URL)",
            "remedy": "fix or unset ANTIGRAVITY_DAEMON_URL",
        }
    ]


def test_a_pinned_remote_daemon_needs_the_flag(capsys, home, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_DAEMON_URL", "http://192.0.2.7:4242")
    code, doc = doctor_json(capsys, home)
    assert code == 1 and doc["roots"][0]["daemon"]["state"] == "invalid"
    assert "pass --allow-remote-daemon" in doc["roots"][0]["daemon"]["detail"]


def test_daemon_token_accepted_or_rejected_and_never_shown(capsys, home, monkeypatch):
    with SimulatedDaemon(cli_root(home), token=TOKEN) as sim:
        monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
        code, accepted, _ = run(capsys, "--home", home)
        monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", WRONG)
        rejected_code, rejected, _ = run(capsys, "--home", home, "--format", "json")
        url, pid, log = sim.url, sim.pid, sim.log_path
        calls = list(sim.calls)
    assert code == 0
    found = f"process: process {pid} (agy, its log {log})"
    assert f"daemon antigravity-cli: reachable at {url} (found by {found}): token accepted" in accepted
    assert "csrf antigravity-cli: found (ANTIGRAVITY_CSRF_TOKEN)\n" in accepted
    assert rejected_code == 1
    daemon = json.loads(rejected)["result"]["roots"][0]["daemon"]
    assert (daemon["state"], daemon["url"]) == ("rejected", url)
    assert daemon["detail"] == (
        "daemon authentication failed: HTTP 401 on GetAllCascadeTrajectories "
        "(check CSRF token discovery or ANTIGRAVITY_CSRF_TOKEN)"
    )
    assert calls == [("GetAllCascadeTrajectories", None)]  # the rejected call is refused before it is logged
    for text in (accepted, rejected):
        assert TOKEN not in text and WRONG not in text


def test_malformed_token_needs_action_without_echoing_it(capsys, home, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", "short secret")
    code, stdout, _ = run(capsys, "--home", home)
    assert code == 1 and "short secret" not in stdout
    assert "daemon invalid: ANTIGRAVITY_CSRF_TOKEN is not a CSRF token" in stdout


@pytest.mark.parametrize(
    ("version", "state", "code"), [("agy 1.2.12 (linux/amd64)", "different", 1), ("agy 1.2.11", "compatible", 0)]
)
def test_installed_agy_version_against_the_record(capsys, home, tmp_path, monkeypatch, version, state, code):
    agy_on_path(monkeypatch, tmp_path / "bin", version)
    found, doc = doctor_json(capsys, home)
    assert found == code
    assert doc["agy"] == {
        "installed": version,
        "recorded": "1.2.11",
        "compatFile": str(data_path("COMPATIBILITY.md")),
        "state": state,
    }
    if state == "different":
        assert doc["actions"] == [
            {
                "subject": "agy",
                "remedy": "agy-audit ci",
                "problem": f"installed '{version}' but COMPATIBILITY.md records agy 1.2.11; once ci passes, "
                "`agy-audit ci --record agy-X.Y.Z` records the new version",
            }
        ]


def test_own_compat_file(capsys, home, tmp_path, monkeypatch):
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 1.2.11")
    record = tmp_path / "COMPATIBILITY.md"
    record.write_text("# Compatibility\n\n- **agy version:** 1.2.11\n")
    code, stdout, _ = run(capsys, "--home", home, "--compat-file", record)
    assert code == 0 and f"agy: agy 1.2.11; {record} records 1.2.11 (compatible)" in stdout


def test_link_and_contract_problems_are_counted(capsys, home):
    conversations = cli_root(home) / "conversations"
    a, b = sorted(p for p in conversations.glob("*.trajectory.json"))[:2]
    ids = [p.name.split(".")[0] for p in (a, b)]
    for path, parent in ((a, ids[1]), (b, ids[0])):  # a two-member cycle of stamps
        doc = json.loads(path.read_text())
        doc["agyReader"] = {"parentCascadeId": parent, "agyAudit": {"completeness": "bogus"}}
        write_sidecar(path, doc, mtime_ns=path.stat().st_mtime_ns)
    code, doc = doctor_json(capsys, home)
    assert code == 1
    root = doc["roots"][0]
    assert root["links"]["failing"] == 2 and root["links"]["diagnostics"] >= 2
    assert root["contractViolations"] == 2
    assert [a["remedy"] for a in doc["actions"]] == [
        f"agy-audit links check --root {cli_root(home)}",
        f"agy-audit verify-contract {conversations}",
    ]


def test_no_store_exits_3(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    assert run(capsys, "--home", tmp_path / "empty")[0] == 3
