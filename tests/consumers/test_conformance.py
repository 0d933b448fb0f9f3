"""The consumer conformance suite: format mutations of a built store, and the verdict each bundled
consumer profile gives on each.

A store is built with the store builder, swept natively and recorded as a baseline; each mutation
of the catalogue is applied to a copy of the store, which is swept again and compared with that
baseline; every bundled profile judges the comparison. The whole table is asserted: a change of a
profile, of the judging or of a fingerprint that moves a verdict shows here, and the README's
consumer section shows the same table (``test_the_readme_shows_the_table``).

``test_real_reader_agrees`` (opt-in: ``AGY_AUDIT_REAL_CONSUMERS=1`` and the consumer's package
installed) runs a consumer's own released reader on the store before and after a mutation and
checks that what it lost is what its profile's verdict says.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from audit.actions import baseline_writer
from audit.actions.sweep import sweep
from audit.checks import baselines, consumers
from audit.checks.drift import compare, observe
from audit.checks.fingerprint import survey
from audit.store import layout
from audit.store.proto import cortex_pb2 as pb
from audit.testing.builder import StoreBuilder
from tests.cli_capture import cli

REPO = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- the store


def build(home: Path) -> Path:
    """A CLI root and an IDE root: conversations of several turns, a subagent family, transcripts
    of every tier, the per-install files."""
    b = StoreBuilder(home, seed=26)
    cli = b.root("cli")
    convs = [cli.conversation(turns=3, transcript_overview=True), cli.conversation(turns=2, transcript_chunks="both")]
    parent, children = cli.family(children=1)
    cli.install_files([*convs, parent, *children], cli=True)
    ide = b.root("ide")
    ide.install_files([ide.conversation(turns=2)])
    return home


def _roots(home: Path) -> list[layout.Root]:
    return layout.resolve_roots(home=home, env={})


def _corpus(home: Path, out: Path) -> Path:
    result = sweep(_roots(home), out, source="native", env={})
    assert result.complete, result.failures
    return out


# ----------------------------------------------------------------------------- mutations


def _transcripts(home: Path) -> list[Path]:
    return sorted(p for p in home.glob(".gemini/*/brain/*/.system_generated/logs/**/*") if p.is_file())


def _each_record(home: Path, change: Callable[[dict], None]) -> None:
    for path in _transcripts(home):
        lines = path.read_bytes().split(b"\n")
        out = []
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:  # a chunk boundary, or the final empty line
                out.append(line)
                continue
            change(record)
            out.append(json.dumps(record).encode())
        path.write_bytes(b"\n".join(out))


def _rename(record: dict) -> None:
    if "created_at" in record:
        record["createdAt"] = record.pop("created_at")


def _index_text(record: dict) -> None:
    if "step_index" in record:
        record["step_index"] = str(record["step_index"])


def _planner_v2(record: dict) -> None:
    if record.get("type") == "PLANNER_RESPONSE" and record.get("step_index", 0) % 2:
        record["type"] = "PLANNER_RESPONSE_V2"


def _model_v2(record: dict) -> None:
    if record.get("source") == "MODEL" and record.get("step_index", 0) % 3 == 0:
        record["source"] = "MODEL_V2"


def _new_step_type(home: Path) -> None:
    """What agy would write for a new kind of planner step: a step type number our .proto does not
    name in the .db, and a type name nobody knows in the transcripts, for every other planner step."""
    _sql(home, "UPDATE steps SET step_type = 999 WHERE step_type = 15 AND idx % 2 = 1")
    _each_record(home, _planner_v2)


def _move_root(home: Path) -> None:
    (home / ".gemini" / "antigravity-cli").rename(home / ".gemini" / "antigravity-agent")


def _cache_key(home: Path) -> None:
    for path in home.glob(".gemini/*/cache/conversation_metadata.json"):
        path.write_text(path.read_text().replace('"WorkspaceURIs"', '"workspaceUris"'))


def _history_key(home: Path) -> None:
    for path in home.glob(".gemini/*/history.jsonl"):
        records = [json.loads(line) for line in path.read_text().splitlines()]
        for record in records:
            record["conversation_id"] = record.pop("conversationId")
        path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _summaries_column(home: Path) -> None:
    for db in home.glob(".gemini/*/conversation_summaries.db"):
        with sqlite3.connect(db) as con:
            con.execute("ALTER TABLE conversation_summaries RENAME COLUMN workspace_uris TO workspace_folders")
        con.close()


def _databases(home: Path) -> list[Path]:
    return sorted(home.glob(".gemini/*/conversations/*.db"))


def _sql(home: Path, statement: str) -> None:
    for db in _databases(home):
        with sqlite3.connect(db) as con:
            con.execute(statement)
        con.close()


def _gen_metadata(home: Path, change: Callable[[pb.CortexStepGeneratorMetadata], None]) -> None:
    for db in _databases(home):
        with sqlite3.connect(db) as con:
            for idx, data in con.execute("SELECT idx, data FROM gen_metadata").fetchall():
                message = pb.CortexStepGeneratorMetadata.FromString(data)
                change(message)
                con.execute("UPDATE gen_metadata SET data = ? WHERE idx = ?", (message.SerializeToString(), idx))
        con.close()


def _no_output_tokens(message: pb.CortexStepGeneratorMetadata) -> None:
    message.chat_model.usage.ClearField("output_tokens")


def _new_model(message: pb.CortexStepGeneratorMetadata) -> None:
    message.chat_model.usage.model = 6001  # no Model our .proto names, outside [1000, 5000)


MUTATIONS: dict[str, Callable[[Path], None]] = {
    "none": lambda home: None,
    "rename a transcript key (created_at -> createdAt)": lambda home: _each_record(home, _rename),
    "change a type (step_index as a string)": lambda home: _each_record(home, _index_text),
    "drop a field (usage output tokens)": lambda home: _gen_metadata(home, _no_output_tokens),
    "add an enum value (model 6001)": lambda home: _gen_metadata(home, _new_model),
    "add a step type (999, PLANNER_RESPONSE_V2 in transcripts, for half the planner steps)": _new_step_type,
    "add a source value (MODEL_V2 in transcripts)": lambda home: _each_record(home, _model_v2),
    "drop a column (steps.metadata)": lambda home: _sql(home, "ALTER TABLE steps DROP COLUMN metadata"),
    "move a root (antigravity-cli -> antigravity-agent)": _move_root,
    "rename a cache key (conversation_metadata.json WorkspaceURIs -> workspaceUris)": _cache_key,
    "rename a history key (conversationId -> conversation_id)": _history_key,
    "rename a summaries column (workspace_uris -> workspace_folders)": _summaries_column,
}


# ----------------------------------------------------------------------------- the table


@pytest.fixture(scope="module")
def table(tmp_path_factory) -> dict[str, dict[str, str]]:
    work = tmp_path_factory.mktemp("conformance")
    original = build(work / "home")
    recorded = baseline_writer.from_survey("agy-9.9.9", survey([_corpus(original, work / "corpus")]), "2026-12-01")
    baseline_writer.write(recorded, work / "fp")
    baseline = baselines.load(work / "fp" / "agy-9.9.9")
    profiles = consumers.bundled()
    out: dict[str, dict[str, str]] = {}
    for n, (name, mutate) in enumerate(MUTATIONS.items()):
        home = work / f"home-{n}"
        shutil.copytree(original, home, symlinks=True)
        mutate(home)
        observed = observe([_corpus(home, work / f"corpus-{n}")])
        comparison = compare(baseline, observed)
        out[name] = {p.name: consumers.judge(p, comparison, baseline, observed).verdict for p in profiles}
    return out


OK, RISK, BREAKS = consumers.OK, consumers.AT_RISK, consumers.BREAKS

COLUMNS = tuple(MUTATIONS)  # the order of the mutations above
ROWS = {  # consumer: its verdict on each mutation, in COLUMNS order
    "agent-session-reader": (OK, OK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, OK),
    "agents-tree": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, OK),
    "agentsview": (OK, RISK, RISK, BREAKS, BREAKS, BREAKS, BREAKS, OK, RISK, OK, RISK, OK),
    "agy-reader": (OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK),
    "anysession": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK),
    "cli-sessions": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, RISK, BREAKS, OK),
    "codeburn": (OK, OK, OK, BREAKS, OK, OK, OK, OK, RISK, OK, OK, OK),
    "converseek": (OK, OK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, RISK, OK),
    "deja-vu": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK),
    "dhi-orbit": (OK, RISK, OK, OK, OK, BREAKS, BREAKS, OK, BREAKS, OK, RISK, RISK),
    "ferry-cli": (OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK, OK, OK, OK),
    "interlatch": (OK, RISK, BREAKS, OK, OK, BREAKS, BREAKS, OK, OK, OK, OK, OK),
    "pentimento": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK),
    "search-clanker-history": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, RISK),
    "session-compass": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, RISK),
    "sessionfs": (OK, RISK, RISK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, RISK),
    "tokstat": (OK, BREAKS, BREAKS, OK, OK, BREAKS, OK, BREAKS, BREAKS, OK, OK, RISK),
    "vibewatt": (OK, OK, OK, BREAKS, OK, OK, OK, BREAKS, BREAKS, OK, OK, OK),
}
EXPECTED: dict[str, dict[str, str]] = {m: {c: row[i] for c, row in ROWS.items() if i < len(row)} for i, m in enumerate(COLUMNS)}


def test_every_profile_gives_the_documented_verdict_on_every_mutation(table):
    assert table == EXPECTED


def render(table: dict[str, dict[str, str]]) -> str:
    """The table as the README shows it: a row per consumer, a column per mutation."""
    names = list(table)
    consumers_ = list(next(iter(table.values())))
    head = "| consumer | " + " | ".join(f"{i}" for i in range(len(names))) + " |"
    rows = [head, "| --- | " + " | ".join("---" for _ in names) + " |"]
    rows += [f"| `{c}` | " + " | ".join(table[m][c] for m in names) + " |" for c in consumers_]
    legend = [f"{i}. {name}" for i, name in enumerate(names)]
    return "\n".join(legend + [""] + rows) + "\n"


def test_the_readme_shows_the_table():
    assert render(EXPECTED) in (REPO / "README.md").read_text(encoding="utf-8")


# ----------------------------------------------------------------------------- real readers (opt-in)

REAL = os.environ.get("AGY_AUDIT_REAL_CONSUMERS") == "1"


_TOKSTAT = """
import json
from tokstat.antigravity_cli import _extract_exchanges_antigravity, scan_antigravity
exchanges = _extract_exchanges_antigravity()
print(json.dumps({
    "token records": len(scan_antigravity()),
    "exchanges": len(exchanges),
    "timed exchanges": sum(1 for e in exchanges if e.get("ts")),
    "turns": sum(e.get("num_turns") or 0 for e in exchanges),
    "exchange tokens": sum((e.get("tokens") or {}).get("input", 0) + (e.get("tokens") or {}).get("output", 0) for e in exchanges),
}))
"""


def _tokstat(home: Path) -> dict[str, int]:
    """What tokstat's own reader gets from *home*: its token records (the .db) and its exchanges
    (the compact transcript joined to them). tokstat reads HOME when it is imported."""
    env = {**os.environ, "HOME": str(home)}
    done = subprocess.run([sys.executable, "-c", _TOKSTAT], env=env, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


READERS: dict[str, tuple[str, Callable[[Path], dict[str, int]]]] = {"tokstat": ("tokstat", _tokstat)}


@pytest.mark.real_consumer
@pytest.mark.skipif(not REAL, reason="opt-in: set AGY_AUDIT_REAL_CONSUMERS=1 with the consumers' packages installed")
@pytest.mark.parametrize("consumer", sorted(READERS))
@pytest.mark.parametrize("mutation", [m for m in MUTATIONS if m != "none"])
def test_real_reader_agrees(consumer, mutation, table, tmp_path):
    package, count = READERS[consumer]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    before = build(tmp_path / "before")
    after = build(tmp_path / "after")
    MUTATIONS[mutation](after)
    was, now = count(before), count(after)
    lost = {what: (was[what], now[what]) for what in was if now[what] < was[what]}
    assert bool(lost) == (table[mutation][consumer] == BREAKS), (consumer, mutation, table[mutation][consumer], lost)


# ----------------------------------------------------------------------------- what compare prints


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, Path]:
    """A built store with one generation of model 342 (GPT-OSS, which cortex.proto names), swept
    and recorded as agy-9.9.9; returns (the store, the baseline directory)."""
    work = tmp_path_factory.mktemp("recorded")
    home = build(work / "home")
    _gen_metadata(home, _gpt_oss_first)
    corpus = _corpus(home, work / "corpus")
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", survey([corpus]), "2026-12-01"), work / "fp")
    return home, work / "fp" / "agy-9.9.9"


def _gpt_oss_first(message: pb.CortexStepGeneratorMetadata) -> None:
    if message.chat_model.usage.model and not getattr(_gpt_oss_first, "done", False):
        message.chat_model.usage.model = 342
        _gpt_oss_first.done = True  # type: ignore[attr-defined]


def test_compare_names_the_filter_a_new_step_type_falls_outside(recorded, tmp_path):
    home, baseline = recorded
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    _new_step_type(copy)
    corpus = _corpus(copy, tmp_path / "corpus")
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", "tokstat", "--consumer", "sessionfs", corpus)
    assert code == 1
    assert "\ntokstat: breaks (" in out and "\nsessionfs: breaks (" in out
    assert (
        "  sqlite table:steps.step_type  [requires: new value 999, which agy-audit cannot name, is outside its filter "
        "step_type in {15}: records it read may have moved there, and it skips them silently (not in agy-9.9.9)]\n"
    ) in out
    # sessionfs reads the full tier only, where every planner record of this store is now the new type
    assert out.endswith(
        "\nsessionfs: breaks (1 deciding line(s))\n"
        "  transcript full.PLANNER_RESPONSE.type\tstring  [requires: renamed to full.PLANNER_RESPONSE_V2.type]\n"
    )


def test_agentsview_flags_the_model_enums_outside_its_range(recorded):
    home, baseline = recorded
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", "agentsview", "--fail-on", "consumer:agentsview", home)
    assert code == 0  # at risk: a loss it has today, not a change
    assert "\nagentsview: at risk (" in out
    assert "already drops the records with 342 (outside model in [1000, 5000); also in agy-9.9.9)" in out


def test_compare_reports_a_renamed_key_as_renamed(recorded, tmp_path):
    home, baseline = recorded
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    _each_record(copy, _rename)
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", "tokstat", _corpus(copy, tmp_path / "corpus"))
    assert code == 1
    assert "transcript: renamed (" in out and "transcript: removed (" not in out and "transcript: added (" not in out
    assert "  = compact.USER_INPUT.created_at -> compact.USER_INPUT.createdAt\tstring\n" in out
    assert "  transcript compact.USER_INPUT.created_at\tstring  [requires: renamed to compact.USER_INPUT.createdAt]\n" in out
