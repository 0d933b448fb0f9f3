"""``agy-audit ci`` end to end on builder stores: verdicts, exit codes, every output format, the
commands it names, --record, the token, progress."""

from __future__ import annotations

import json
import multiprocessing
import os
import pickle
import queue
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from output_schema import SCHEMA, ci_result, envelope

from audit.actions.sweep import Decoded
from audit.actions.sweep import run as sweep_run
from audit.checks import links
from audit.checks.baselines import bundled_dir, load
from audit.checks.fingerprint import sidecar as fingerprint_sidecar
from audit.cli import main
from audit.errors import InputError, UsageError
from audit.findings import Finding, Level
from audit.pipeline import ci, ci_results, sessions, worker
from audit.pipeline.ci_results import ERROR, FAIL, PASS, SKIPPED, Check, Report, Stage
from audit.pipeline.sessions import SessionChecks
from audit.report import ci_report
from audit.resources import data_path
from audit.store.database import read_database
from audit.store.layout import resolve_roots, scan_root
from audit.testing import SimulatedDaemon, StoreBuilder
from audit.testing.builder import write_sidecar
from tests.fake_agy import agy_on_path

TOKEN = "ci-token-3b8f2e61c0d94a7f"
BUNDLED_CONSUMERS = sorted(p.stem for p in data_path("consumers").glob("*.json"))
STAGE_NAMES = list(ci_results.STAGES[:-1])  # without "record"
PASSING_STAGES = [
    "STAGE            VERDICT  CHECKS  ERRORS  WARNINGS",
    "sweep            pass          1       0         0",
    "verify-contract  pass          4       0         0",
    "completeness     pass          2       0         0",
    "consistency      pass          2       0         0",
    "links            pass          4       0         0",
    "fingerprint      pass          2       0         0",
    "compare          pass         13       0         0",
    "consumers        pass         20       0         0",
]


@pytest.fixture(autouse=True)
def _no_agy_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "no-agy"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no `agy --version`: the installed version is unknown


class Store:
    """A family and two plain conversations in a CLI root, one in an IDE root; all sidecars fresh."""

    def __init__(self, home: Path) -> None:
        b = StoreBuilder(home, seed=23)
        cli = b.root("cli")
        self.parent, self.children = cli.family(children=2)
        self.plain = cli.conversation(turns=2)
        self.other = cli.conversation(turns=3)
        b.root("ide").conversation(turns=1)
        self.home = home
        self.cli = cli.path


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Store:
    return Store(tmp_path_factory.mktemp("pristine") / "home")


@pytest.fixture
def store(pristine, tmp_path) -> Store:
    """A private copy of the module's store (mtimes kept) for one test to modify."""
    copy = Store.__new__(Store)
    copy.__dict__.update(pristine.__dict__)
    copy.home = tmp_path / "home"
    shutil.copytree(pristine.home, copy.home, copy_function=shutil.copy2)
    copy.cli = copy.home / pristine.cli.relative_to(pristine.home)
    return copy


def sidecar(store: Store, convo) -> Path:
    return store.cli / "conversations" / f"{convo.id}.trajectory.json"


def edit(path: Path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    write_sidecar(path, doc, mtime_ns=path.stat().st_mtime_ns)


def run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main(["ci", *map(str, argv)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, store: Store, out: Path, *argv: object) -> tuple[int, dict]:
    code, stdout, stderr = run(capsys, "--home", store.home, "--source", "native", "--out", out, "--format", "json", *argv)
    assert stderr == ""
    doc = envelope(stdout, "ci")
    assert doc["exitCode"] == code
    return code, ci_result(doc)


def verdicts(doc: dict) -> dict[str, str]:
    return {s["name"]: s["verdict"] for s in doc["stages"]}


def checks(doc: dict) -> dict[tuple[str, str], dict]:
    return {(s["name"], c["name"]): c for s in doc["stages"] for c in s["checks"]}


def unreadable(doc: dict, command: str) -> bool:
    """Whether a check of *command* warns about an unreadable .db or transcript."""
    return any(f["rule"] == "unreadable" for c in checks(doc).values() if c["command"] == command for f in c["findings"])


def replay_commands(capsys, doc: dict) -> int:
    """Run every agy-audit command the report names; each exits as its checks' verdicts say.
    Returns how many ran."""
    by_command: dict[str, list[str]] = {}
    for c in checks(doc).values():
        by_command.setdefault(c["command"], []).append(c["verdict"])
    ran = 0
    for command, seen in by_command.items():
        words = shlex.split(command)
        if words[0] != "agy-audit":
            assert words[:3] == ["python3", "-m", "json.tool"] and Path(words[3]).is_file()
            continue
        code = main(words[1:])
        capsys.readouterr()
        if words[1] == "fingerprint":  # an unreadable input fails the check, and the command exits 2
            expected = {2} if FAIL in seen else {0}
        elif words[1] == "consistency" and unreadable(doc, command):  # ci leaves unreadable sources to the sweep
            expected = {2}
        else:
            expected = {1} if FAIL in seen else {0, 3} if set(seen) == {SKIPPED} else {0}
        assert code in expected, (command, seen, code)
        ran += 1
    return ran


# ----------------------------------------------------------------------------- all pass


def test_all_pass_removes_the_temp_corpus_and_every_named_command_agrees(capsys, store, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    code, stdout, stderr = run(capsys, "--home", store.home, "--source", "native")
    assert (code, stderr) == (0, "")
    lines = stdout.splitlines()
    assert lines[-len(PASSING_STAGES) - 2 :] == [*PASSING_STAGES, "", "ci: PASS; exit 0"]
    [corpus] = [line for line in lines if line.startswith("corpus: ")]
    assert corpus.endswith(
        " (removed after the passing run; the commands below name it NEW_DIR: to run them, run again with --out NEW_DIR)"
    )
    assert os.listdir(tmp_path / "tmp") == []
    assert run(capsys, "--home", store.home, "--source", "native", "--keep", "--format", "json")[0] == 0
    [kept] = os.listdir(tmp_path / "tmp")
    assert (tmp_path / "tmp" / kept / "sweep" / "manifest.json").is_file()

    code, doc = run_json(capsys, store, tmp_path / "corpus", "--include-implicit")
    assert code == 0 and doc["verdict"] == PASS and doc["corpus"] == {"path": str(tmp_path / "corpus"), "kept": True}
    assert verdicts(doc) == dict.fromkeys(STAGE_NAMES, PASS)
    found = checks(doc)
    assert list(found) == [
        ("sweep", "corpus"),
        ("verify-contract", "corpus manifest"),
        ("verify-contract", "corpus sidecars"),
        ("verify-contract", "corpus transcripts"),
        ("verify-contract", "live sidecars"),
        ("completeness", "corpus"),
        ("completeness", "live"),
        ("consistency", "corpus"),
        ("consistency", "live"),
        ("links", "corpus cli"),
        ("links", "corpus ide"),
        ("links", "live antigravity"),
        ("links", "live antigravity-cli"),
        ("fingerprint", "corpus"),
        ("fingerprint", "live"),
        ("compare", "corpus sidecar"),
        ("compare", "corpus sqlite"),
        ("compare", "corpus wire"),
        ("compare", "corpus transcript"),
        ("compare", "corpus summaries"),
        ("compare", "corpus history"),
        ("compare", "corpus cache"),
        ("compare", "corpus artifacts"),
        ("compare", "corpus roots"),
        ("compare", "corpus layout"),
        ("compare", "corpus conventions"),
        ("compare", "corpus values"),
        ("compare", "live sidecar"),
        *(("consumers", f"corpus {name}") for name in BUNDLED_CONSUMERS),
        *(("consumers", f"live {name}") for name in ("agentsview", "agy-reader")),
    ]  # every consumer reads a surface the corpus has (anysession: its roots); only two read sidecars
    assert found[("sweep", "corpus")]["summary"] == "6 of 6 session(s) swept; 0 failed, 0 skipped"
    assert found[("links", "live antigravity-cli")]["summary"] == "5 sidecar(s), 2 linked; 0 diagnostic(s), 0 failing"
    assert found[("compare", "corpus sidecar")]["verdict"] == SKIPPED  # a native corpus: absent lines are no evidence
    assert found[("compare", "corpus sqlite")]["summary"] == "UNCHANGED"
    assert set(doc["fingerprints"]) == {"corpus", "live"} and set(doc["fingerprints"]["live"]) == {"sidecar"}
    assert replay_commands(capsys, doc) == 36


def test_no_live_checks_only_the_corpus(capsys, store, tmp_path):
    edit(sidecar(store, store.plain), lambda d: d["steps"].pop())  # stale: only a live check sees it
    code, doc = run_json(capsys, store, tmp_path / "corpus", "--no-live")
    assert code == 0 and doc["live"] is False
    assert all(c["target"] == "corpus" for c in checks(doc).values())
    code, doc = run_json(capsys, store, tmp_path / "corpus2")
    assert code == 1 and verdicts(doc)["completeness"] == FAIL


def test_a_transcript_disagreeing_with_its_db_fails_the_consistency_stage(capsys, store, tmp_path):
    full = store.cli / "brain" / store.plain.id / ".system_generated" / "logs" / "transcript_full.jsonl"
    records = [json.loads(line) for line in full.read_text().splitlines()]
    step = next(r["step_index"] for r in records if r.get("thinking"))
    records[step]["thinking"] += " (edited)"
    full.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    code, doc = run_json(capsys, store, tmp_path / "corpus")
    assert code == 1 and verdicts(doc) == {name: FAIL if name == "consistency" else PASS for name in STAGE_NAMES}
    found = checks(doc)
    for target in ("corpus", "live"):
        check = found[("consistency", target)]
        assert check["verdict"] == FAIL and check["errors"] == 1 and check["counts"]["inconsistent"] == 1
        [finding] = check["findings"]
        assert (finding["level"], finding["rule"], finding["line"]) == (ERROR, "consistency/thinking", step + 1)
        assert finding["file"].endswith(f"brain/{store.plain.id}/.system_generated/logs/transcript_full.jsonl")
    assert found[("consistency", "live")]["findings"][0]["file"] == str(full)
    replay_commands(capsys, doc)


# ----------------------------------------------------------------------------- each stage failing alone


def _break_sweep(store, monkeypatch):
    (store.cli / "conversations" / "5e0c1a2b-3c4d-4e5f-8a6b-7c8d9e0f1a2b.db").write_bytes(b"not a database" * 100)


def _break_contract(store, monkeypatch):
    edit(sidecar(store, store.plain), lambda d: d.setdefault("agyReader", {}).update(agyAudit={"completeness": "bogus"}))


def _break_completeness(store, monkeypatch):
    edit(sidecar(store, store.plain), lambda d: d["steps"].pop())


def _break_links(store, monkeypatch):
    edit(sidecar(store, store.plain), lambda d: d.update(agyReader={"parentCascadeId": store.other.id}))
    edit(sidecar(store, store.other), lambda d: d.update(agyReader={"parentCascadeId": store.plain.id}))


def _break_fingerprint(store, monkeypatch):
    from audit.store import sidecar as sidecar_module

    unreadable, real, real_read = str(sidecar(store, store.plain)), fingerprint_sidecar.read_bytes, sidecar_module.read

    def read_bytes(path, **kwargs):
        if str(path) == unreadable:
            raise InputError(f"{path}: cannot read (Permission denied)")
        return real(path, **kwargs)

    monkeypatch.setattr(fingerprint_sidecar, "read_bytes", read_bytes)
    # not read once for every check (ci's shared read), so that each reads it: only the fingerprint fails
    monkeypatch.setattr(sidecar_module, "read", lambda path: None if str(path) == unreadable else real_read(path))


def _break_compare(store, monkeypatch):
    """A column added to every .db: the bundled baseline's schema lines are whole in every file (an
    added sidecar path would only be first contact against it:
    tests/workflows/test_first_contact.py)."""
    import sqlite3

    for db in store.home.rglob("*.db"):
        with sqlite3.connect(db) as conn:
            conn.execute("ALTER TABLE steps ADD COLUMN extra_col text")
        conn.close()


BREAKS = {
    "sweep": (_break_sweep, ("corpus", "sweep/copy")),
    "verify-contract": (_break_contract, ("live sidecars", "sidecar/agyReader/agyAudit/completeness")),
    "completeness": (_break_completeness, ("live", "incomplete")),
    "links": (_break_links, ("live antigravity-cli", "parent-cycle")),
    "fingerprint": (_break_fingerprint, ("live", "unreadable")),
    "compare": (_break_compare, ("corpus sqlite", "added")),
}


@pytest.mark.parametrize("stage", list(BREAKS))
def test_each_stage_failing_alone(capsys, store, tmp_path, monkeypatch, stage):
    breaker, (check_name, rule) = BREAKS[stage]
    breaker(store, monkeypatch)
    report = tmp_path / "report.xml"
    code, doc = run_json(capsys, store, tmp_path / "corpus", "--report", report)
    assert code == 1 and doc["verdict"] == FAIL
    assert verdicts(doc) == {name: FAIL if name == stage else PASS for name in STAGE_NAMES}
    failed = [c for c in checks(doc).values() if c["verdict"] == FAIL]
    assert [c["name"] for c in failed] == [check_name]
    assert failed[0]["findings"][0]["level"] == ERROR and failed[0]["findings"][0]["rule"] == rule
    assert doc["corpus"]["kept"] and Path(doc["corpus"]["path"]).is_dir()
    replay_commands(capsys, doc)

    suites = ET.fromstring(report.read_text()).findall("testsuite")
    assert [s.get("name") for s in suites] == STAGE_NAMES
    assert {s.get("name"): s.get("failures") for s in suites} == {name: "1" if name == stage else "0" for name in STAGE_NAMES}
    assert [len(s.findall("testcase")) for s in suites] == [len(s["checks"]) for s in doc["stages"]]
    case = next(c for s in suites for c in s.findall("testcase") if c.find("failure") is not None)
    assert case.get("name") == check_name and case.get("classname") == f"agy-audit.ci.{stage}"
    assert case.find("failure").get("message") == failed[0]["summary"]
    assert f"error: [{rule}] " in case.find("failure").text and f"\nall: {failed[0]['command']}" in case.find("failure").text
    # every check that does work is timed; JUnit carries the same seconds
    seconds = {(s["name"], c["name"]): c["seconds"] for s in doc["stages"] for c in s["checks"]}
    assert seconds[("sweep", "corpus")] > 0 and seconds[("completeness", "corpus")] > 0 and min(seconds.values()) >= 0
    assert all(v == 0 for (stage_name, _), v in seconds.items() if stage_name == "compare")
    timed = {(s.get("name"), c.get("name")): float(c.get("time")) for s in suites for c in s.findall("testcase")}
    assert timed == seconds


def test_drift_fails_per_fail_on_and_text_names_the_stage(capsys, store, tmp_path):
    _break_compare(store, None)
    code, stdout, _ = run(capsys, "--home", store.home, "--source", "native", "--out", tmp_path / "a")
    assert code == 1 and stdout.endswith("\nci: FAIL (compare); exit 1\n")
    assert (
        "\ncompare corpus sqlite: 1 error(s)\nagy-audit: error: [added] table:steps.extra_col: TEXT\n  all: agy-audit compare"
        in stdout
    )
    code, doc = run_json(capsys, store, tmp_path / "b", "--fail-on", "breaking")
    assert code == 0
    found = checks(doc)[("compare", "corpus sqlite")]
    assert (found["verdict"], found["summary"], found["findings"][0]["level"]) == (PASS, "DRIFT: 1 added", Level.WARNING)
    assert " --fail-on breaking " in found["command"]


def test_a_check_that_cannot_run_is_an_error_exit_2(capsys, store, tmp_path, monkeypatch):
    def broken(directory, **kwargs):
        raise InputError(f"{directory}: cannot list (Permission denied)")

    monkeypatch.setattr(links, "resolve", broken)
    code, doc = run_json(capsys, store, tmp_path / "corpus")
    assert code == 2 and doc["verdict"] == ERROR and verdicts(doc)["links"] == ERROR
    assert {c["verdict"] for s in doc["stages"] if s["name"] == "links" for c in s["checks"]} == {ERROR}


# ----------------------------------------------------------------------------- usage, nothing to check


def test_no_store_exits_3(capsys, tmp_path):
    (tmp_path / "empty").mkdir()
    code, stdout, stderr = run(capsys, "--home", tmp_path / "empty", "--out", tmp_path / "corpus")
    assert (code, stdout) == (3, "")
    assert stderr == (
        f"agy-audit: no Antigravity store found (looked for {tmp_path / 'empty' / '.gemini'}/antigravity*; use --home or --root)\n"
    )
    assert not (tmp_path / "corpus").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--report", "r.yaml"], "agy-audit: ci: cannot tell the format of r.yaml from its extension; give --report-format\n"),
        (["--report-format", "json"], "agy-audit: ci: --report-format needs --report FILE\n"),
        (["--baseline", "agy-0.0.0"], "agy-audit: agy-0.0.0: no such baseline (available: agy-1.2.5, agy-1.2.10, agy-1.2.11)\n"),
        (
            ["--record", "bad name"],
            "agy-audit: 'bad name': a baseline name is letters, digits, '.', '_' and '-' (e.g. agy-1.2.11)\n",
        ),
    ],
)
def test_bad_flags_exit_2_before_sweeping(capsys, store, tmp_path, argv, message):
    code, stdout, stderr = run(capsys, "--home", store.home, "--out", tmp_path / "corpus", *argv)
    assert (code, stdout, stderr) == (2, "", message)
    assert not (tmp_path / "corpus").exists()


@pytest.mark.parametrize("argv", [["--format", "yaml"], ["--fail-on", "always"], ["--timeout", "0"], ["--bogus"]])
def test_bad_options_are_usage_errors(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(["ci", *argv])
    assert info.value.code == 2
    assert "error: " in capsys.readouterr().err


# ----------------------------------------------------------------------------- --record


def snapshot(*paths: Path) -> dict[str, bytes]:
    found = {}
    for path in paths:
        for p in [path] if path.is_file() else sorted(path.rglob("*")):
            if p.is_file():
                found[str(p)] = p.read_bytes()
    return found


def test_record_only_when_every_check_passed(capsys, store, tmp_path, monkeypatch):
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")
    baselines, compat = tmp_path / "baselines", tmp_path / "COMPATIBILITY.md"
    shutil.copytree(bundled_dir() / "agy-1.2.10", baselines / "agy-1.2.10")
    compat.write_text("# previous record\n")
    record = ["--baseline-dir", baselines, "--compat-file", compat, "--record", "agy-9.9.9"]

    _break_completeness(store, None)
    before = snapshot(baselines, compat)
    code, doc = run_json(capsys, store, tmp_path / "failing", *record)
    assert code == 1 and doc["recorded"] is None
    assert checks(doc)[("record", "agy-9.9.9")]["summary"] == "not recorded: completeness did not pass"
    assert verdicts(doc)["record"] == SKIPPED and snapshot(baselines, compat) == before

    code, doc = run_json(capsys, store, tmp_path / "passing", "--no-live", *record)
    assert code == 0 and verdicts(doc)["record"] == PASS
    assert doc["recorded"] == str(baselines / "agy-9.9.9")
    assert json.loads((baselines / "agy-9.9.9" / "baseline.json").read_text())["name"] == "agy-9.9.9"
    assert "- **Baseline:** `agy-9.9.9`" in compat.read_text()

    code, stdout, stderr = run(capsys, "--home", store.home, "--out", tmp_path / "again", *record)
    assert (code, stdout) == (2, "")
    assert stderr == f"agy-audit: {baselines / 'agy-9.9.9'}: already exists; choose another --record name\n"


def test_record_names_an_agy_version_only_agy_confirms_else_it_is_recorded_unverified_and_ci_says_so(capsys, store, tmp_path):
    fp = tmp_path / "fp"
    record = ["--home", store.home, "--source", "native", "--no-live", "--baseline-dir", fp, "--compat-file", tmp_path / "C.md"]
    code, stdout, stderr = run(capsys, *record, "--out", tmp_path / "out", "--record", "agy-9.9.9")  # no agy on PATH
    unconfirmed = "nothing confirms agy 9.9.9: agy --version does not answer"
    assert (code, stdout, stderr) == (
        2,
        "",
        f"agy-audit: --record agy-9.9.9: {unconfirmed}; give the name of the agy that wrote the sessions, or "
        "--unverified-name to record it marked unverified\n",
    )
    assert not (tmp_path / "out").exists() and not fp.exists()  # refused before sweeping
    assert run(capsys, *record, "--record", "--unverified-name") == (
        2,
        "",
        "agy-audit: --unverified-name goes with --record agy-X.Y.Z (--record alone names the installed version)\n",
    )

    code, doc = run_json(capsys, store, tmp_path / "out", *record[4:], "--record", "agy-9.9.9", "--unverified-name")
    assert code == 0 and doc["recorded"] == str(fp / "agy-9.9.9")
    assert json.loads((fp / "agy-9.9.9" / "baseline.json").read_text())["nameUnverified"] == unconfirmed
    code, doc = run_json(capsys, store, tmp_path / "again", *record[4:])
    assert (code, doc["baseline"]["name"], doc["baseline"]["reason"]) == (
        0,
        "agy-9.9.9",
        f"recorded in {fp}, newest there; name unverified: {unconfirmed}",
    )


def test_record_alone_without_an_answering_agy_fails_its_row_with_the_error_that_says_why(capsys, store, tmp_path):
    """``--record`` alone names the baseline after the installed agy; when ``agy --version`` does not
    answer there is no name: the record row fails and counts that refusal as its one error, and
    the text report lists it with the other findings."""
    argv = ["--home", store.home, "--source", "native", "--no-live", "--baseline-dir", tmp_path / "fp", "--record"]
    code, doc = run_json(capsys, store, tmp_path / "out", *argv[4:])
    why = "the sweep does not know the installed agy version (agy --version did not answer); give --record agy-X.Y.Z"
    row = checks(doc)[("record", "agy-<installed version>")]
    assert (code, row["verdict"], row["summary"], row["errors"]) == (1, FAIL, f"not recorded: {why}", 1)
    assert [(f["rule"], f["level"], f["message"]) for f in row["findings"]] == [("record/refused", "error", why)]
    code, stdout, _ = run(capsys, *argv, "--out", tmp_path / "text")
    assert code == 1 and f"agy-audit: error: [record/refused] {why}\n" in stdout
    assert "record           fail          1       1         0\n" in stdout and not (tmp_path / "fp").exists()


# ----------------------------------------------------------------------------- the token, GitHub, Markdown


def test_the_token_never_appears_anywhere(capsys, store, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    with SimulatedDaemon(store.cli, token=TOKEN) as sim:
        sim.fail(store.plain.id, "unauthorized")  # the simulator's 401 body quotes the token
        sim.fail(store.other.id, "internal")
        code, stdout, stderr = run(
            capsys,
            "--home",
            store.home,
            "--out",
            tmp_path / "corpus",
            "--format",
            "github",
            "--report",
            tmp_path / "r.json",
        )
        url = sim.url
    assert code == 1
    report = ci_result(envelope((tmp_path / "r.json").read_text(), "ci"))
    assert verdicts(report)["sweep"] == FAIL
    cli_root = next(r for r in report["roots"] if r["product"] == "cli")
    assert (cli_root["source"], cli_root["endpoint"]) == ("daemon", url)
    rules = sorted(f["rule"] for f in checks(report)[("sweep", "corpus")]["findings"])
    assert rules == ["sweep/fetch", "sweep/fetch"]
    written = b"".join(p.read_bytes() for p in sorted((tmp_path / "corpus").rglob("*")) if p.is_file())
    for text in (stdout, stderr, (tmp_path / "r.json").read_text(), summary.read_text(), written.decode("utf-8", "replace")):
        assert TOKEN not in text


def test_a_complete_daemon_sweep_passes_against_the_imported_bundled_baseline(capsys, store, tmp_path, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    with SimulatedDaemon(store.cli, token=TOKEN):
        code, stdout, stderr = run(
            capsys, "--root", store.cli, "--source", "daemon", "--out", tmp_path / "c", "--format", "markdown"
        )
    assert (code, stderr) == (0, "")
    assert "| compare | corpus sidecar | skipped | 0 | 0 | NOT COMPARABLE; every observed line matches agy-1.2.11;" in stdout
    assert (
        '- **sidecar**: missing lines are only "not observed": agy-1.2.11 was imported from agy-reader\'s published record'
        in stdout
    )
    assert "from another corpus than the stores swept here" in stdout and "removed" not in stdout.split("### Drift")[0]


def test_github_annotations_escape_data_and_properties_and_text_colours_the_verdict():
    finding = Finding("rule", Level.ERROR, "100% done\r\nnext: a, b", "dir,x/a:b.json", 3)
    check = Check("links", "live a,b", "live", FAIL, "1 failing", "agy-audit links check --root x", [finding])
    quiet = Check("compare", "corpus wire", "corpus", ERROR, "cannot read: 50%", None)
    baseline = load(bundled_dir() / "agy-1.2.10", bundled=True)
    report = Report(
        0, Path("/c"), True, [], baseline, "bundled", "drift", True, [Stage("links", [check]), Stage("compare", [quiet])]
    )
    assert ci_report.github_annotations(report).splitlines() == [
        "::error title=agy-audit ci::ci: ERROR (links, compare); exit 2",
        "::error file=dir%2Cx/a%3Ab.json,line=3,title=agy-audit ci%3A links live a%2Cb::[rule] 100%25 done%0D%0Anext: a, b",
        "::error title=agy-audit ci%3A compare corpus wire::cannot read: 50%25",
    ]
    coloured = ci_report.text(report, color=True)
    assert coloured.endswith("\n\x1b[31mci: ERROR (links, compare); exit 2\x1b[0m\n")
    assert "\ndir,x/a:b.json:3: \x1b[31merror\x1b[0m: [rule] 100% done\\r\\nnext: a, b\n" in coloured
    assert "\x1b[" not in ci_report.text(report)


def test_the_step_summary_is_never_written_through_a_symlink(capsys, store, tmp_path, monkeypatch):
    target = tmp_path / "elsewhere.md"
    target.write_text("untouched\n")
    (tmp_path / "summary.md").symlink_to(target)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
    code, stdout, stderr = run(capsys, "--home", store.home, "--source", "native", "--out", tmp_path / "c", "--format", "github")
    assert code == 2 and stdout.startswith("::notice title=agy-audit ci::ci: PASS; exit 0\n")
    assert stderr == f"agy-audit: {tmp_path / 'summary.md'}: is a symbolic link; refusing to write through it\n"
    assert target.read_text() == "untouched\n"


def test_an_interrupted_sweep_names_the_corpus_it_leaves(capsys, store, tmp_path, monkeypatch):
    def interrupted(item, *args):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_run, "sweep_one", interrupted)
    code, stdout, stderr = run(capsys, "--home", store.home, "--source", "native", "--out", tmp_path / "c")
    assert (code, stdout) == (130, "")
    assert stderr == f"agy-audit: interrupted; incomplete corpus retained at {tmp_path / 'c'}\n"
    assert json.loads((tmp_path / "c" / "manifest.json").read_text())["complete"] is False
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    code, stdout, stderr = run(capsys, "--home", store.home, "--source", "native")
    assert (code, stdout) == (130, "")
    assert stderr == "agy-audit: interrupted; incomplete corpus removed (--keep or --out keeps it)\n"
    assert os.listdir(tmp_path / "tmp") == []


def test_a_failing_run_removes_its_temp_corpus_and_says_how_to_keep_it(capsys, store, tmp_path, monkeypatch):
    """A failing ci leaves no private copy of the conversations behind unless asked (--keep, --out)."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    _break_completeness(store, None)
    code, stdout, _ = run(capsys, "--home", store.home, "--source", "native")
    assert code == 1 and os.listdir(tmp_path / "tmp") == []
    [corpus] = [line for line in stdout.splitlines() if line.startswith("corpus: ")]
    assert corpus.endswith("/sweep (removed; the commands below name it NEW_DIR: to run them, run again with --out NEW_DIR)")
    code, stdout, _ = run(capsys, "--home", store.home, "--source", "native", "--keep", "--format", "json")
    doc = envelope(stdout, "ci")["result"]
    [kept] = os.listdir(tmp_path / "tmp")
    assert (code, doc["corpus"]) == (1, {"path": str(tmp_path / "tmp" / kept / "sweep"), "kept": True})
    assert (tmp_path / "tmp" / kept / "sweep" / "manifest.json").is_file()


def test_no_command_names_a_removed_corpus_and_rerun_with_out_they_run(capsys, store, tmp_path, monkeypatch):
    """A report whose temp corpus was removed names it NEW_DIR in its commands, never the removed path;
    run again with --out NEW_DIR, as its corpus line says, every command it named runs as its verdict says."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = run(capsys, "--home", store.home, "--source", "native", "--format", "json")
    doc = ci_result(envelope(stdout, "ci"))
    assert (code, stderr, doc["corpus"]["kept"], os.listdir(tmp_path / "tmp")) == (0, "", False, [])
    commands = {c["command"] for c in checks(doc).values()}
    assert [c for c in commands if doc["corpus"]["path"] in c or str(tmp_path / "tmp") in c] == []
    assert {
        "python3 -m json.tool NEW_DIR/manifest.json",
        "agy-audit compare --baseline agy-1.2.11 NEW_DIR",
        "agy-audit compare --baseline agy-1.2.11 --consumer codeburn --fail-on consumer:codeburn NEW_DIR",
    } < commands
    assert run(capsys, "--home", store.home, "--source", "native", "--out", "NEW_DIR", "--format", "json")[0] == 0
    assert replay_commands(capsys, doc) == 36


def test_the_schema_names_every_stage():
    assert SCHEMA["$defs"]["ci-stage"]["properties"]["name"]["enum"] == list(ci_results.STAGES)
    assert SCHEMA["$id"] == "urn:agy-audit:schema:output:1"
    Draft202012Validator.check_schema(SCHEMA)


def test_github_format_appends_the_markdown_summary(capsys, store, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    _break_compare(store, None)
    code, stdout, _ = run(
        capsys,
        "--home",
        store.home,
        "--source",
        "native",
        "--out",
        tmp_path / "c",
        "--format",
        "github",
        "--report",
        tmp_path / "report.md",
        "--report",
        tmp_path / "junit.xml",
    )
    assert code == 1
    annotations = [line for line in stdout.splitlines() if line.startswith("::error")]
    assert annotations == [
        "::error title=agy-audit ci::ci: FAIL (compare); exit 1",
        "::error title=agy-audit ci%3A compare corpus sqlite::[added] table:steps.extra_col: TEXT",
    ]
    warned = {line.partition("::[")[2].partition("]")[0] for line in stdout.splitlines() if line.startswith("::warning")}
    assert warned == {"consistency/db-decode"}  # each .db names the column it cannot decode
    assert stdout.endswith("\nci: FAIL (compare); exit 1\n")  # the text report follows the annotations
    assert ET.fromstring((tmp_path / "junit.xml").read_text()).get("failures") == "1"
    markdown = (tmp_path / "report.md").read_text()
    assert summary.read_text() == "earlier step\n" + markdown
    assert markdown.startswith("## agy-audit ci: FAIL\n")
    assert "| compare | fail | 13 | 1 | 0 |" in markdown
    assert "### Drift: corpus\n" in markdown and "| `table:steps.extra_col` |  | `TEXT` |" in markdown
    assert "not observed (" not in markdown  # the status table counts them; they are not listed


# ----------------------------------------------------------------------------- progress


class Recorder:
    def __init__(self, seen, label, unit):
        self.seen, self.label, self.unit = seen, label, unit

    def __call__(self, done, total, current):
        self.seen.append((self.label, self.unit, done, total))

    def close(self):
        self.seen.append((self.label, "closed"))


STEPS = [
    "sweep",
    "verify-contract corpus manifest",
    "verify-contract corpus sidecars",
    "verify-contract corpus transcripts",
    "verify-contract live sidecars",
    "fingerprint corpus",
    "fingerprint live",
]
"""The progress steps of a ``ci`` run, in order."""


def test_progress_for_sweep_verification_and_fingerprints(store, tmp_path):
    seen = []
    ci.run(
        resolve_roots(home=store.home),
        out=tmp_path / "c",
        source="native",
        progress=lambda label, unit: Recorder(seen, label, unit),
    )
    labels = list(dict.fromkeys(entry[0] for entry in seen))
    assert labels == STEPS
    assert ("sweep", "sessions", 0, 6) in seen and ("sweep", "closed") in seen
    assert ("verify-contract corpus sidecars", "files", 5, 6) in seen
    assert [e for e in seen if e[0] == "fingerprint live"][-2:] == [
        ("fingerprint live", "files", 5, 6),
        ("fingerprint live", "closed"),
    ]


def test_a_column_added_to_every_db_fails_ci_naming_it(capsys, store, tmp_path):
    import sqlite3

    for db in store.home.rglob("*.db"):
        with sqlite3.connect(db) as conn:
            conn.execute("ALTER TABLE steps ADD COLUMN extra_col text")
        conn.close()
    code, doc = run_json(capsys, store, tmp_path / "corpus", "--no-live")
    assert code == 1 and verdicts(doc)["compare"] == FAIL
    found = checks(doc)[("compare", "corpus sqlite")]
    assert (found["verdict"], found["summary"]) == (FAIL, "DRIFT: 1 added")
    assert [(f["rule"], f["message"]) for f in found["findings"]] == [("added", "table:steps.extra_col: TEXT")]


def test_each_db_is_decoded_once_and_the_live_checks_name_the_live_files(capsys, store, tmp_path, monkeypatch):
    import sqlite3

    from audit.checks import contract
    from audit.store import database, trajectory
    from audit.store.transcript import reading

    live_db = store.cli / "conversations" / f"{store.plain.id}.db"
    with sqlite3.connect(live_db) as conn:  # a column the schema does not know: a decode finding naming the .db
        conn.execute("ALTER TABLE steps ADD COLUMN extra_col text")
        [(rows,)] = conn.execute("SELECT count(*) FROM steps")
    conn.close()
    decoded: list[str] = []
    real = trajectory._Decoder.steps
    monkeypatch.setattr(trajectory._Decoder, "steps", lambda self: decoded.append(self.conv.path.name) or real(self))
    read: list[Path] = []
    real_read = database._read
    monkeypatch.setattr(database, "_read", lambda conv, *args: read.append(conv.path) or real_read(conv, *args))
    parsed: list[tuple[str, ...]] = []
    real_stream = reading._read_stream
    monkeypatch.setattr(reading, "_read_stream", lambda files, *args: parsed.append(tuple(files)) or real_stream(files, *args))
    code, doc = run_json(capsys, store, tmp_path / "corpus")
    dbs = sorted(p.name for p in store.home.rglob("*.db"))
    assert sorted(decoded) == dbs  # sweep, completeness, consistency and their live twins: one decoding each
    assert sorted(p.name for p in read) == dbs and all(p.is_relative_to(tmp_path / "corpus") for p in read)  # the copies, once
    # every transcript stream of the corpus parsed once (contract, consistency, fingerprint), the live ones never
    streams = {
        tuple(map(str, s)) for s in contract.transcript_streams(contract.find_files([tmp_path / "corpus"], "transcript")[0])[0]
    }
    assert len(parsed) == len(set(parsed)) and set(parsed) == streams and len(streams) > len(dbs)
    found = checks(doc)
    corpus_copy = tmp_path / "corpus" / "native" / "cli" / f"{store.plain.id}.db"
    decode = {
        target: [f["message"] for f in found[("consistency", target)]["findings"] if f["rule"] == "consistency/db-decode"]
        for target in ("corpus", "live")
    }
    message = f"column steps.extra_col is not part of the known schema (0 of {rows} rows hold data)"
    assert decode == {
        "corpus": [f"undecoded-column: {corpus_copy}: {message}"],
        "live": [f"undecoded-column: {live_db}: {message}"],
    }
    # the same verdicts and counts as the commands the report names, which read every file themselves
    for target, argv in (("corpus", [tmp_path / "corpus"]), ("live", ["--home", store.home])):
        main(["consistency", *map(str, argv), "--format", "json"])
        alone = json.loads(capsys.readouterr().out)
        [db_finding] = [f for f in alone["findings"] if f["rule"] == "consistency/db-decode"]
        assert db_finding["message"] == decode[target][0]
    assert code == 1


def test_live_consistency_read_again_or_taken_from_the_corpus_check_is_the_same(capsys, store, tmp_path, monkeypatch):
    import sqlite3

    live_db = store.cli / "conversations" / f"{store.plain.id}.db"
    with sqlite3.connect(live_db) as conn:  # a decode finding naming the .db, in both live checks
        conn.execute("ALTER TABLE steps ADD COLUMN extra_col text")
    conn.close()
    _, reused = run_json(capsys, store, tmp_path / "reused")
    monkeypatch.setattr(sessions, "_same_transcripts", lambda copy, live: False)  # read the live brain itself
    _, read = run_json(capsys, store, tmp_path / "read")

    def live(doc: dict) -> dict:
        return {k: v for k, v in checks(doc)[("consistency", "live")].items() if k != "seconds"}

    assert live(reused) == live(read)
    assert any(f["message"].startswith(f"undecoded-column: {live_db}: ") for f in live(read)["findings"])


def test_each_sidecar_is_parsed_once_for_completeness_contract_and_links(capsys, store, tmp_path, monkeypatch):
    from collections import Counter

    from audit.checks import contract
    from audit.checks.completeness import checking
    from audit.checks.links import evidence as link_evidence
    from audit.store import sidecar as sidecar_module

    parsed: Counter[str] = Counter()
    for module in (sidecar_module, checking, contract, link_evidence):

        def counting(data, *args, _real=module.loads, **kwargs):
            if kwargs.get("source", "").endswith(".trajectory.json"):
                parsed[Path(kwargs["source"]).name] += 1
            return _real(data, *args, **kwargs)

        monkeypatch.setattr(module, "loads", counting)
    orphan = store.cli / "conversations" / "0badc0de-0000-4000-8000-000000000001.trajectory.json"
    shutil.copy2(sidecar(store, store.plain), orphan)  # no .db: not swept, so each check reads it itself
    code, doc = run_json(capsys, store, tmp_path / "corpus")
    stores = list(store.home.glob(".gemini/*/conversations"))
    with_db = {p.name.removesuffix(".db") + ".trajectory.json" for d in stores for p in d.glob("*.db")}
    live = {p.name for d in stores for p in d.glob("*.trajectory.json")}
    corpus = {p.name for p in (tmp_path / "corpus" / "corpus").rglob("*.trajectory.json")}
    assert corpus == with_db and orphan.name in live - with_db
    # a swept session's sidecar: once live, never in the corpus (a native sweep wrote it from the
    # reconstruction the checks hold); the orphan by each of the three checks
    assert parsed == Counter({**{name: 1 for name in live & with_db}, orphan.name: 3})
    found = checks(doc)
    assert sum(
        c["counts"]["sidecars"] for (stage, name), c in found.items() if stage == "links" and name.startswith("live")
    ) == len(live)
    assert found[("verify-contract", "live sidecars")]["counts"]["files"] == len(live)
    assert code == 0


def test_a_legacy_pb_only_session_leaves_the_corpus_incomplete_and_readable_only_records_the_rest(capsys, tmp_path, monkeypatch):
    """Real stores hold legacy encrypted .pb sessions that only the daemon can read: a native
    ci names each as not covered (a warning), the manifest says incomplete, and record refuses,
    naming the option that leaves them out; with it, ci records the others and says so."""
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")
    store = Store(tmp_path / "home")
    legacy = StoreBuilder(tmp_path / "home", seed=27).root("cli").conversation(db=False, legacy_pb=True, sidecar="missing")
    record = ["--baseline-dir", tmp_path / "fp", "--compat-file", tmp_path / "C.md", "--record", "agy-9.9.9", "--no-live"]
    code, doc = run_json(capsys, store, tmp_path / "out", *record)
    sweep_check = checks(doc)[("sweep", "corpus")]
    assert sweep_check["verdict"] == PASS
    assert sweep_check["summary"] == (
        "6 of 7 session(s) swept; 0 failed, 0 skipped, 1 not covered "
        "(the corpus is incomplete: not recordable; --readable-only leaves them out)"
    )
    assert [(f["rule"], f["message"].split(": ")[0]) for f in sweep_check["findings"]] == [("sweep/not-covered", legacy.id)]
    assert json.loads((tmp_path / "out" / "manifest.json").read_text())["complete"] is False
    assert code == 1 and verdicts(doc)["record"] == FAIL and not (tmp_path / "fp" / "agy-9.9.9").exists()
    assert checks(doc)[("record", "agy-9.9.9")]["summary"] == (
        f"refusing to record: {tmp_path / 'out' / 'manifest.json'}: the sweep is not complete (manifest complete is not "
        f"true); left out: 1 session(s) not covered: {legacy.id} (legacy encrypted .pb: only the daemon can read it (its "
        "brain files were swept)) -- to record the sessions this sweep can read, sweep again with --readable-only "
        "(sweep, ci --record)"
    )
    refused = checks(doc)[("record", "agy-9.9.9")]
    assert (refused["errors"], [(f["rule"], f["level"]) for f in refused["findings"]]) == (1, [("record/refused", "error")])
    assert refused["findings"][0]["message"] == refused["summary"]  # a failing row counts the error that says why

    code, doc = run_json(capsys, store, tmp_path / "readable", *record, "--readable-only")
    sweep_check = checks(doc)[("sweep", "corpus")]
    assert sweep_check["summary"] == (
        "6 of 6 session(s) swept; 0 failed, 0 skipped; selection: 6 session(s) (readable only; 1 left out)"
    )
    assert sweep_check["counts"] == {"selected": 6, "swept": 6, "failed": 0, "skipped": 0, "notCovered": 0, "excluded": 1}
    assert code == 0 and verdicts(doc)["record"] == PASS and doc["recorded"] == str(tmp_path / "fp" / "agy-9.9.9")
    manifest = json.loads((tmp_path / "readable" / "manifest.json").read_text())
    assert (manifest["manifestVersion"], manifest["complete"], manifest["selected"]) == (2, True, 6)
    assert manifest["selection"] == {
        "ids": [],
        "since": None,
        "newest": None,
        "readableOnly": True,
        "excluded": [
            {
                "id": legacy.id,
                "product": "cli",
                "path": str(store.cli / "conversations" / f"{legacy.id}.pb"),
                "reason": "legacy encrypted .pb: only the daemon can read it (--readable-only leaves it out)",
            }
        ],
    }
    baseline = json.loads((tmp_path / "fp" / "agy-9.9.9" / "baseline.json").read_text())
    assert baseline["selection"] == {
        "ids": [],
        "since": None,
        "newest": None,
        "readableOnly": True,
        "sessions": 6,
        "excluded": 1,
    }
    assert "- **Selection:** recorded from 6 session(s) (readable only; 1 left out)\n" in (tmp_path / "C.md").read_text()


# ----------------------------------------------------------------------------- --jobs 2: a worker process
# The checks of the swept sessions' corpus copies made in a worker process give the report that
# checking them in ci's own process gives; a worker that fails costs time, never a finding; the
# worker ignores Ctrl-C and leaves with its parent.


def damage_every_session_check(store: Store) -> None:
    """Findings for every per-session check: an edited transcript (consistency, corpus and live),
    a live sidecar missing a step (completeness) and one breaking the contract, and a column the
    schema does not know in a live ``.db`` (a decode finding naming it)."""
    import sqlite3

    full = store.cli / "brain" / store.plain.id / ".system_generated" / "logs" / "transcript_full.jsonl"
    records = [json.loads(line) for line in full.read_text().splitlines()]
    step = next(r["step_index"] for r in records if r.get("thinking"))
    records[step]["thinking"] += " (edited)"
    full.write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    edit(sidecar(store, store.other), lambda d: d["steps"].pop())
    edit(sidecar(store, store.children[0]), lambda d: d.setdefault("agyReader", {}).update(agyAudit={"completeness": "x"}))
    with sqlite3.connect(store.cli / "conversations" / f"{store.children[1].id}.db") as conn:
        conn.execute("ALTER TABLE steps ADD COLUMN extra_col text")
    conn.close()


def normalized(stdout: str, out: Path) -> dict:
    """A ``ci`` JSON report without what differs between two runs: times and the corpus path."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k not in ("seconds", "started", "finished")}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value.replace(str(out), "<corpus>") if isinstance(value, str) else value

    return ci_result(strip(envelope(stdout, "ci")))  # type: ignore[arg-type]


def worker_report(capsys, out: Path, *argv: object) -> tuple[int, dict]:
    code, stdout, stderr = run(capsys, "--out", out, "--format", "json", *argv)
    assert stderr == ""
    return code, normalized(stdout, out)


def sweep_findings(doc: dict) -> list[dict]:
    [sweep_stage] = [s for s in doc["stages"] if s["name"] == "sweep"]
    return sweep_stage["checks"][0]["findings"]


@pytest.mark.parametrize("argv", [("--source", "native"), ("--source", "native", "--no-live"), ("--source", "daemon")])
def test_a_worker_gives_the_report_of_one_process(capsys, store, tmp_path, monkeypatch, argv):
    damage_every_session_check(store)
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    roots = ("--root", store.cli) if "daemon" in argv else ("--home", store.home)  # the daemon serves the CLI root
    with SimulatedDaemon(store.cli, token=TOKEN):
        one = worker_report(capsys, tmp_path / "one", *roots, *argv, "--jobs", "1")
        two = worker_report(capsys, tmp_path / "two", *roots, *argv, "--jobs", "2")
    assert one == two
    code, doc = one
    assert code == 1 and [s["name"] for s in doc["stages"] if s["verdict"] == "fail"] == (
        ["verify-contract", "completeness", "consistency", "compare"] if "--no-live" not in argv else ["consistency", "compare"]
    )
    assert sweep_findings(doc) == []


def test_a_worker_that_dies_costs_time_not_a_finding(capsys, store, tmp_path, monkeypatch):
    damage_every_session_check(store)
    _, alone = worker_report(capsys, tmp_path / "one", "--home", store.home, "--source", "native", "--jobs", "1")

    class Dying(worker.Worker):
        def __init__(self, out: Path, live: bool) -> None:
            super().__init__(out, live)
            os.kill(self.pid, signal.SIGKILL)

    monkeypatch.setattr(ci, "Worker", Dying)
    code, doc = worker_report(capsys, tmp_path / "two", "--home", store.home, "--source", "native", "--jobs", "2")
    lost = sweep_findings(doc)
    assert lost == [
        {
            "level": "warning",
            "rule": "ci/worker",
            "message": "the worker process that checks each swept session failed (it ended with exit code -9 before "
            "sending its results); every session was checked after the sweep instead",
            "file": None,
            "line": None,
            "column": None,
            "pointer": "",
            "details": {},
        }
    ]
    lost.clear()  # else the same report: the listings checked every session themselves
    doc["stages"][0]["warnings"] -= 1
    doc["stages"][0]["checks"][0]["warnings"] -= 1
    assert (code, doc) == (1, alone)


def test_an_error_in_the_worker_is_reported_not_printed(store, tmp_path, capfd):
    session = next(s for s in scan_root(resolve_roots(home=store.home)[0]).sessions if s.db is not None)
    conv = read_database(session.db)
    w = worker.Worker(tmp_path, True)
    try:
        w.submit(Decoded(session, None, conv, None))  # type: ignore[arg-type]  # no swept record: the checks fail
        assert w.finish() == (None, f"{session.id}: AttributeError: 'NoneType' object has no attribute 'product'")
    finally:
        w.close()
    assert capfd.readouterr() == ("", "")


def test_the_worker_ignores_ctrl_c(tmp_path):
    w = worker.Worker(tmp_path, True)
    try:
        os.kill(w.pid, signal.SIGINT)
        found, why = w.finish()
    finally:
        w.close()
    assert why is None and isinstance(found, SessionChecks) and found.done == {} and found.out == tmp_path


class _Unsendable:
    def __init__(self, out: Path, live: bool) -> None:
        self.out = out

    def __reduce__(self):
        raise TypeError("not for sending")


def test_results_the_worker_cannot_send_are_reported_as_why(tmp_path, monkeypatch):
    monkeypatch.setattr(worker, "SessionChecks", _Unsendable)  # a result pickle refuses
    monkeypatch.setattr(worker.signal, "signal", lambda *args: None)  # served here: this process's Ctrl-C stays
    jobs: queue.Queue = queue.Queue()
    jobs.put(None)
    receiving, sending = multiprocessing.Pipe(duplex=False)
    worker._serve(jobs, sending, multiprocessing.Value("q", 0), tmp_path, True)  # type: ignore[arg-type]
    assert pickle.loads(receiving.recv_bytes()) == ("error", "its results could not be sent (TypeError: not for sending)")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_worker_leaves_when_its_parent_is_gone(tmp_path):
    script = textwrap.dedent(
        f"""
        import os, sys
        from audit.pipeline.worker import Worker
        if __name__ == "__main__":
            w = Worker({str(tmp_path)!r}, True)
            print(w.pid, flush=True)
            os._exit(0)  # no close(): the worker must notice
        """
    )
    (tmp_path / "parent.py").write_text(script)
    done = subprocess.run([sys.executable, str(tmp_path / "parent.py")], capture_output=True, text=True, timeout=60, check=True)
    pid = int(done.stdout)

    def running() -> bool:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            return False
        return state != "Z"

    deadline = time.monotonic() + 30
    while running() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not running()


@pytest.mark.parametrize(("cpus", "jobs", "started"), [(2, None, True), (1, None, False), (2, 1, False), (1, 2, True)])
def test_a_worker_is_started_from_parallel_from_sessions_when_a_second_cpu_is_free(
    capsys, store, tmp_path, monkeypatch, cpus, jobs, started
):
    made = []

    class Counted(worker.Worker):
        def __init__(self, out: Path, live: bool) -> None:
            made.append(out)
            super().__init__(out, live)

    monkeypatch.setattr(ci, "Worker", Counted)
    monkeypatch.setattr(ci, "_cpus", lambda: cpus)
    monkeypatch.setattr(ci, "PARALLEL_FROM", 6)  # the store's six sessions
    done = ci.run(resolve_roots(home=store.home), out=tmp_path / "c", source="native", jobs=jobs)
    assert done.verdict == "pass" and made == ([tmp_path / "c"] if started else [])


@pytest.mark.parametrize(
    "missing",
    [
        ImportError(
            "This platform lacks a functioning sem_open implementation, therefore, the required synchronization primitives needed will not function, see issue 3770."
        ),
        OSError(38, "Function not implemented"),
    ],
)
def test_without_processes_to_be_had_every_check_is_made_in_one(capsys, store, tmp_path, monkeypatch, missing):
    damage_every_session_check(store)
    _, alone = worker_report(capsys, tmp_path / "one", "--home", store.home, "--source", "native", "--jobs", "1")

    class NoSemaphores:
        def Queue(self):  # noqa: N802  # multiprocessing's name
            raise missing

    monkeypatch.setattr(worker.multiprocessing, "get_context", lambda method: NoSemaphores())
    assert worker_report(capsys, tmp_path / "two", "--home", store.home, "--source", "native", "--jobs", "2") == (1, alone)


def test_jobs_are_1_or_2(capsys):
    with pytest.raises(SystemExit) as info:
        run(capsys, "--jobs", "3")
    assert info.value.code == 2 and "--jobs: invalid choice: 3 (choose from 1, 2)" in capsys.readouterr().err
    with pytest.raises(UsageError, match="jobs must be 1 or 2"):
        ci.run([], jobs=0)
