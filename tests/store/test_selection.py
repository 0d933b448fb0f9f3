"""Choosing which sessions to sweep (``sweep``, ``ci``): ids or id prefixes, ``--since`` (the
first step's time, from the ``.db`` or the transcript), ``--newest N`` and ``--readable-only``.
The manifest states the selection and every session it left out, with why; the corpus is
complete for it; a selection that leaves out sessions the sweep could read is a sample, whose
missing lines are no evidence of removal."""

from __future__ import annotations

import json
import sqlite3
from datetime import datetime
from pathlib import Path

import pytest

from audit.cli import main
from audit.store.layout import Root, scan_root
from audit.store.selection import Selection, first_step_time
from audit.testing import StoreBuilder
from audit.testing import trajectories as T
from tests.cli_capture import cli
from tests.fake_agy import agy_on_path
from tests.output_schema import ci_result, envelope


class Home:
    """Two sessions from September (one a legacy .pb with its transcripts) and two from November."""

    def __init__(self, home: Path) -> None:
        builder = StoreBuilder(home, seed=3, start="2026-09-01T09:00:00Z")
        old = builder.root("cli")
        steps = T.conversation_steps(builder.rng, builder.clock, 1) + [T.error_message(builder.clock, "quota exceeded")]
        self.september = old.conversation(steps=steps)  # a step type the November sessions lack
        self.legacy = old.conversation(db=False, legacy_pb=True, sidecar="missing")
        new = StoreBuilder(home, seed=4, start="2026-11-05T09:00:00Z").root("cli")
        self.november = new.conversation(turns=1)
        self.latest = new.conversation(turns=2)
        self.home, self.root = home, old.path

    def path(self, convo, ext: str = "db") -> str:
        return str(self.root / "conversations" / f"{convo.id}.{ext}")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Home:
    return Home(tmp_path_factory.mktemp("selection") / "home")


def started(convo) -> datetime:
    return datetime.fromisoformat(convo.steps[0]["metadata"]["createdAt"][:26] + "+00:00")


def sweep(home: Home, out: Path, *argv: object) -> tuple[int, str, str, dict | None]:
    code, stdout, stderr = cli("sweep", "--home", home.home, "--source", "native", "--out", out, *argv)
    manifest = json.loads((out / "manifest.json").read_text()) if (out / "manifest.json").exists() else None
    return code, stdout, stderr, manifest


def test_the_first_step_time_comes_from_the_db_else_the_transcript(home, tmp_path):
    found = {s.id: first_step_time(s) for s in scan_root(Root(home.root, "cli", True)).sessions}
    assert found == {
        home.september.id: started(home.september),
        home.legacy.id: datetime.fromisoformat(home.legacy.steps[0]["metadata"]["createdAt"][:19] + "+00:00"),  # seconds
        home.november.id: started(home.november),
        home.latest.id: started(home.latest),
    }
    bare = StoreBuilder(tmp_path / "bare", seed=5).root("cli")
    damaged = bare.conversation(turns=1, brain=False)
    with sqlite3.connect(bare.path / "conversations" / f"{damaged.id}.db") as conn:
        conn.execute("DELETE FROM steps")
    conn.close()
    [session] = scan_root(Root(bare.path, "cli", True)).sessions
    assert first_step_time(session) is None


def test_since_sweeps_the_sessions_begun_since_and_lists_the_others(home, tmp_path):
    code, stdout, stderr, manifest = sweep(home, tmp_path / "c", "--since", "2026-11-01")
    assert (code, stderr) == (0, "")
    assert stdout.splitlines()[:2] == [
        "sweep: selected=2 swept=2 not-covered=0 failures=0 skipped=0 complete=yes",
        "selection: 2 session(s) since 2026-11-01 (2 left out)",
    ]
    assert sorted(line for line in stdout.splitlines() if line.startswith("excluded: ")) == sorted(
        [
            f"excluded: {home.september.id} {home.path(home.september)}: first step "
            f"{started(home.september):%Y-%m-%dT%H:%M:%SZ}: before --since 2026-11-01",
            f"excluded: {home.legacy.id} {home.path(home.legacy, 'pb')}: first step "
            f"{home.legacy.steps[0]['metadata']['createdAt'][:19]}Z: before --since 2026-11-01",
        ]
    )
    assert manifest is not None
    assert (manifest["manifestVersion"], manifest["complete"], manifest["selected"]) == (2, True, 2)
    assert sorted(s["id"] for s in manifest["sessions"]) == sorted([home.november.id, home.latest.id])
    assert manifest["selection"]["since"] == "2026-11-01"
    assert sorted((e["id"], e["path"]) for e in manifest["selection"]["excluded"]) == sorted(
        [(home.september.id, home.path(home.september)), (home.legacy.id, home.path(home.legacy, "pb"))]
    )
    assert cli("verify-contract", "--kind", "manifest", tmp_path / "c" / "manifest.json")[0] == 0


def test_newest_ids_and_readable_only_combine(home, tmp_path):
    code, stdout, _, manifest = sweep(home, tmp_path / "c", "--newest", "1", "--readable-only", "-q")
    assert code == 0 and manifest is not None
    assert [s["id"] for s in manifest["sessions"]] == [home.latest.id]
    excluded = [(e["id"], e["reason"]) for e in manifest["selection"]["excluded"]]
    assert excluded[0] == (home.legacy.id, "legacy encrypted .pb: only the daemon can read it (--readable-only leaves it out)")
    assert sorted(excluded[1:]) == sorted(
        [
            (home.september.id, f"first step {started(home.september):%Y-%m-%dT%H:%M:%SZ}: not among the newest 1"),
            (home.november.id, f"first step {started(home.november):%Y-%m-%dT%H:%M:%SZ}: not among the newest 1"),
        ]
    )
    assert stdout.splitlines()[1] == "selection: the newest 1 session(s) (readable only; 3 left out)"

    prefix = home.september.id[:6].upper()
    code, stdout, _, manifest = sweep(home, tmp_path / "d", "--session", prefix, "--session", home.november.id, "-q")
    assert code == 0 and manifest is not None
    assert sorted(s["id"] for s in manifest["sessions"]) == sorted([home.september.id, home.november.id])
    assert manifest["selection"]["ids"] == [prefix.lower(), home.november.id]
    assert stdout.splitlines()[1] == (f"selection: 2 session(s) with id {prefix.lower()}… or {home.november.id} (2 left out)")


@pytest.mark.parametrize(
    ("argv", "code", "line"),
    [
        (
            ("--since", "2026-13-01"),
            2,
            "agy-audit sweep: error: argument --since: '2026-13-01' is not a date (YYYY-MM-DD) or an RFC 3339 time",
        ),
        (("--newest", "0"), 2, "agy-audit sweep: error: argument --newest: '0' is not a whole number of sessions above 0"),
        (
            ("--session", "xyz"),
            2,
            "agy-audit sweep: error: argument --session: 'xyz' is not a session id or the start of one (hex digits and '-')",
        ),
        (("--session", "ffffffff"), 2, "agy-audit: --session ffffffff: no session's id starts with it"),
        (("--since", "2027-01-01"), 3, "agy-audit: nothing to sweep: the selection leaves out every session (4; "),
    ],
)
def test_a_selection_that_cannot_be_met_creates_nothing(home, tmp_path, capsys, argv, code, line):
    argv = ("sweep", "--home", str(home.home), "--source", "native", "--out", str(tmp_path / "c"), *argv)
    try:
        found = main(list(argv))
    except SystemExit as exc:  # argparse: its usage line, then the error
        found = exc.code
    out, err = capsys.readouterr()
    assert (found, out) == (code, "")
    assert err.splitlines()[-1].startswith(line)
    assert not (tmp_path / "c").exists()


def test_the_selection_is_described_as_record_writes_it():
    assert Selection(since="2026-11-01").describe(12, 140) == "12 session(s) since 2026-11-01 (140 left out)"
    assert Selection(newest=5, readable_only=True).describe(5) == "the newest 5 session(s) (readable only)"
    chosen = Selection(ids=("0f3a",), since="2026-11-01T10:00:00Z", readable_only=True)
    assert Selection.from_json(chosen.to_json()) == chosen
    assert Selection.from_json(None) is None and not Selection().given and Selection(readable_only=True).given
    assert not Selection(readable_only=True).samples and Selection(newest=1).samples


def test_a_sample_is_no_evidence_of_removal_but_its_schema_is(home, tmp_path, monkeypatch):
    """Recorded from every readable session, then checked on those since November: what only the
    September session held is 'not observed', not removed; the .db schema is whole in each file."""
    monkeypatch.chdir(tmp_path)
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")
    record = ("--source", "native", "--no-live", "--home", home.home, "-q")
    assert cli("ci", *record, "--readable-only", "--record", "agy-9.9.9")[0] == 0
    out = tmp_path / "sample"
    code, stdout, _ = cli("ci", *record, "--since", "2026-11-01", "--out", out, "--format", "json")
    doc = ci_result(envelope(stdout, "ci"))
    compare = {c["name"]: c for s in doc["stages"] if s["name"] == "compare" for c in s["checks"]}
    assert code == 0, {k: v["summary"] for k, v in compare.items()}
    unseen = "NOT COMPARABLE; every observed line matches agy-9.9.9; {} of its lines were not observed, which is no evidence of removal"
    assert {k: v["summary"] for k, v in compare.items() if "UNCHANGED" not in v["summary"] and "absent" not in v["summary"]} == {
        "corpus sidecar": unseen.format(3),
        "corpus wire": unseen.format(21),
        "corpus transcript": unseen.format(14),
        "corpus conventions": unseen.format(4),
        "corpus values": "NOT COMPARABLE; every observed value is in agy-9.9.9; 18 of its fields lack a value, which is no "
        "evidence of removal",
    }
    assert compare["corpus sqlite"]["summary"] == "UNCHANGED"  # every .db holds the whole schema
    code, stdout, _ = cli("compare", "--surface", "wire", out)
    sample = (
        "the corpus is a selection (2 session(s) since 2026-11-01 (2 left out)): the sessions it left out may hold what it lacks"
    )
    assert code == 0 and f"wire: missing lines are only 'not observed': {sample}" in stdout
