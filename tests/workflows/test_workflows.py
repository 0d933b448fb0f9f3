"""Journeys a user takes across commands, run end to end as the README tells them: each step is
the command the previous one named."""

from __future__ import annotations

import json
from pathlib import Path

from audit.testing import StoreBuilder
from tests.cli_capture import cli


def _home(home: Path) -> Path:
    """A CLI store with two conversations, a family and a legacy ``.pb``-only session, as real homes hold."""
    builder = StoreBuilder(home, seed=5)
    cli_root = builder.root("cli")
    convos = [cli_root.conversation(turns=2) for _ in range(2)]
    cli_root.family(children=1)
    cli_root.conversation(db=False, legacy_pb=True)
    cli_root.install_files(convos, cli=True)
    return home


def _compare(stdout: str) -> dict[str, str]:
    doc = json.loads(stdout)["result"]
    return {c["name"]: c["summary"] for s in doc["stages"] if s["name"] in ("compare", "consumers") for c in s["checks"]}


def test_after_recording_the_readable_sessions_ci_still_sees_a_removal(tmp_path, monkeypatch):
    """A home with a legacy .pb: `ci --record` refuses and names --readable-only, which records;
    the next plain `ci` (the sweep again lists the .pb as not covered) still judges the schema
    and per-install files as complete: a column the upgrade dropped is removed, and a consumer
    that reads it breaks. What only sessions hold is a sample's, 'not observed'."""
    home = _home(tmp_path / "home")
    monkeypatch.chdir(tmp_path)
    ci = ("ci", "--home", home, "--source", "native", "--no-live", "-q")
    code, stdout, _ = cli(*ci, "--record", "agy-9.9.9", "--unverified-name")
    assert code == 1 and "sweep again with --readable-only" in stdout
    assert cli(*ci, "--record", "agy-9.9.9", "--unverified-name", "--readable-only")[0] == 0
    assert cli(*ci)[0] == 0

    assert cli("mutate", "--home", home, "--mutation", "drop-steps-metadata", "--out", "M", "-q")[0] == 0
    code, stdout, _ = cli(*ci[:2], "M/drop-steps-metadata/home", *ci[3:], "--format", "json")
    summaries = _compare(stdout)
    assert code == 1 and summaries["corpus sqlite"] == "DRIFT: 1 removed"
    assert summaries["corpus wire"].startswith("NOT COMPARABLE; every observed line matches agy-9.9.9; ")
    assert summaries["corpus ferry-cli"].startswith("breaks (1 deciding line(s)); ")
    code, stdout, _ = cli("sweep", "--home", "M/drop-steps-metadata/home", "--source", "native", "--out", "C", "-q")
    assert code == 1 and "not-covered=1" in stdout
    code, stdout, _ = cli("compare", "C", "--surface", "sqlite", "--surface", "wire")
    lines = stdout.splitlines()
    assert code == 1 and lines[1] == (
        "observed: C; scope partial-unknown-scoped (a sweep of every session it could read, 1 only the daemon reads left out)"
    )
    assert (
        "wire: missing lines are only 'not observed': 1 session(s) only the daemon reads (legacy .pb) are not in the corpus: "
        "they may hold what it lacks"
    ) in lines
    assert "  - table:steps.metadata\tBLOB" in lines
