"""The consumer conformance suite: format mutations of a built store, and the verdict each bundled
consumer profile gives on each.

A store is built with the store builder, swept natively and recorded as a baseline; each mutation
of the product's catalogue (``audit.actions.mutate``) is applied to a copy of the store, which is swept again and compared with that
baseline; every bundled profile judges the comparison. The whole table is asserted: a change of a
profile, of the judging or of a fingerprint that moves a verdict shows here, and the README's
consumer section shows the same table (``test_the_readme_shows_the_table``).

``test_real_reader_agrees`` (opt-in: ``AGY_AUDIT_REAL_CONSUMERS=1`` and the consumer's package
installed) runs a consumer's own released reader on the store before and after a mutation and
checks that it lost records (or what it reports of them: tokens, messages, a session's workspace)
exactly where its profile's verdict is ``breaks``. ``READERS`` covers the fourteen consumers whose
release has a Python API: agent-session-reader, agents-tree, anysession, cli-sessions, converseek,
dhi-orbit, ferry-cli, interlatch, pentimento, search-clanker-history, session-compass, sessionfs,
tokstat and vibewatt (the releases their profiles cite); agentsview (a Go binary), codeburn (a Node
CLI), agy-reader and deja-vu (no release) have none. Each reader runs in its own interpreter with
HOME set to the store's home. To run it::

    pip install --no-deps agent-session-reader==0.4.2 agents-tree==1.2.0 anysession==1.0.1 \
        cli-sessions==0.1.0 converseek==1.0.4 dhi-orbit==0.3.17 ferry-cli==0.1.1 interlatch==0.29.1 \
        pentimento==0.1.23 search-clanker-history==0.3.0 session-compass==0.1.1 sessionfs==0.26.0 \
        tokstat==1.25.0 vibewatt==0.4.1 && pip install "pydantic>=2"   # ferry-cli imports pydantic
    apt-get install protobuf-compiler   # converseek decodes with protoc --decode_raw
    AGY_AUDIT_REAL_CONSUMERS=1 python -m pytest -p no:cacheprovider tests/consumers -k real

``DISAGREES`` lists where a real reader and its verdict differ though its profile is right, and why.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from audit.actions import baseline_writer, mutate
from audit.actions.sweep import sweep
from audit.checks import baselines, consumers
from audit.checks.drift import compare, observe
from audit.checks.fingerprint import survey
from audit.store import layout
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

# The product's catalogue (audit.actions.mutate), by the titles the README's table shows, after
# "none" (the store as built).
MUTATIONS: dict[str, Callable[[Path], object]] = {"none": lambda home: None}
MUTATIONS |= {m.title: functools.partial(mutate.apply_mutation, m) for m in mutate.MUTATIONS}


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
    for n, (name, change) in enumerate(MUTATIONS.items()):
        home = work / f"home-{n}"
        shutil.copytree(original, home, symlinks=True)
        change(home)
        observed = observe([_corpus(home, work / f"corpus-{n}")])
        comparison = compare(baseline, observed)
        out[name] = {p.name: consumers.judge(p, comparison, baseline, observed).verdict for p in profiles}
    return out


OK, RISK, BREAKS = consumers.OK, consumers.AT_RISK, consumers.BREAKS

COLUMNS = tuple(MUTATIONS)  # the order of the mutations above
ROWS = {  # consumer: its verdict on each mutation, in COLUMNS order
    "agent-session-reader": (OK, OK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, OK, RISK, OK, BREAKS, OK),
    "agents-tree": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, OK, BREAKS, BREAKS, OK, OK),
    "agentsview": (OK, RISK, RISK, BREAKS, BREAKS, BREAKS, BREAKS, OK, RISK, OK, RISK, OK, RISK, OK, BREAKS, OK),
    "agy-reader": (OK, OK, OK, OK, OK, RISK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK),
    "anysession": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK, OK, OK, OK, OK),
    "cli-sessions": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, RISK, BREAKS, OK, OK, OK, OK, OK),
    "codeburn": (OK, OK, OK, BREAKS, OK, OK, OK, OK, RISK, OK, OK, OK, OK, OK, OK, OK),
    "converseek": (OK, OK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, RISK, OK, OK, OK, OK, OK),
    "deja-vu": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK),
    "dhi-orbit": (OK, RISK, OK, OK, OK, BREAKS, BREAKS, OK, BREAKS, OK, RISK, RISK, RISK, OK, OK, OK),
    "ferry-cli": (OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK, OK, OK, OK, OK, OK, OK, OK),
    "interlatch": (OK, RISK, BREAKS, OK, OK, BREAKS, BREAKS, OK, OK, OK, OK, OK, RISK, BREAKS, OK, OK),
    "pentimento": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK, RISK, OK, OK, OK),
    "search-clanker-history": (OK, RISK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, RISK, BREAKS, OK, OK, OK),
    "session-compass": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, RISK, OK, OK, OK, OK),
    "sessionfs": (OK, RISK, RISK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, RISK, BREAKS, OK, RISK, OK),
    "tokstat": (OK, BREAKS, BREAKS, OK, OK, BREAKS, OK, BREAKS, BREAKS, OK, OK, RISK, RISK, BREAKS, OK, OK),
    "vibewatt": (OK, OK, OK, BREAKS, OK, OK, OK, BREAKS, BREAKS, OK, OK, OK, OK, OK, OK, OK),
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

# Each reader runs in its own interpreter with HOME set to the store's home: most of them bind their
# paths to Path.home() when imported, and none of them may see the real home. Variables that would
# point a reader elsewhere are removed. A script prints one JSON object: what the reader yields,
# counted per kind of record (and per piece of the store it carries).
_REDIRECTS = ("ANTIGRAVITY_DATA_DIR", "ANTIGRAVITY_HOME", "ANTIGRAVITY_BRAIN_DIR", "ANTIGRAVITY_CLI_ROOT", "AI_R_HOME")
_REDIRECTS += ("FERRY_ANTIGRAVITY_DIR", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME")


class ReaderRaised(Exception):
    """The consumer's reader raised (its own caller would not have caught it): it lost everything."""


def _reader(script: str) -> Callable[[Path], dict[str, int]]:
    def count(home: Path) -> dict[str, int]:
        env = {k: v for k, v in os.environ.items() if k not in _REDIRECTS} | {"HOME": str(home)}
        done = subprocess.run([sys.executable, "-c", script], env=env, cwd=home, capture_output=True, text=True, timeout=300)
        if done.returncode:
            raise ReaderRaised(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    return count


# tokstat 1.25.0: its token records (the .db) and its exchanges (the compact transcript joined to them)
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

# vibewatt 0.4.1: the turns (one per generation with usage) of every database discover() finds, as its
# sync reads them (vibewatt/store.py:955-963 catches only OSError); a turn whose time is the
# conversation's start instead of its step's is counted as drops["approximate_time"]
_VIBEWATT = """
import json
from collections import Counter
from vibewatt.ingest.antigravity import discover, parse
drops, turns = Counter(), []
for db in discover():
    try:
        turns += parse(db, drops)
    except OSError:
        pass
print(json.dumps({
    "turns": len(turns),
    "turns timed by their step": len(turns) - drops["approximate_time"],
    "input tokens": sum(t.input for t in turns),
    "output tokens": sum(t.output for t in turns),
    "turns with a project": sum(1 for t in turns if t.project != "antigravity"),
}))
"""

# sessionfs 0.26.0: the conversations discover_antigravity_sessions() finds and their messages (not
# counted per speaker: a step of a type it has no rule for is kept as a message, labelled "system"
# unless its source is exactly MODEL: sessionfs/converters/antigravity_to_sfs.py:1355-1363)
_SESSIONFS = """
import json
from pathlib import Path
from sessionfs.converters.antigravity_to_sfs import discover_antigravity_sessions, parse_antigravity_conversation
found = discover_antigravity_sessions(Path.home() / ".gemini")
parsed = [parse_antigravity_conversation(Path(s["path"])) for s in found]
print(json.dumps({
    "sessions": len(found),
    "titled sessions": sum(1 for s in found if s["title"]),
    "messages": sum(len(p.messages) for p in parsed),
    "user messages": sum(1 for p in parsed for m in p.messages if m.get("role") == "user"),
    "tool uses": sum(p.tool_use_count for p in parsed),
    "timed messages": sum(1 for p in parsed for m in p.messages if m.get("timestamp")),
    "subagents": sum(len(p.sub_agents) for p in parsed),
}))
"""

# interlatch 0.29.1: what its sync (interlatch/ingestion/service.py:426-448) parses from its one root
_INTERLATCH = """
import json
from collections import Counter
from interlatch.sources.antigravity import conversation_dirs, load_db_meta, load_title, parse_antigravity_conversation
from interlatch.sources.discovery import antigravity_home
root, sessions = antigravity_home(), []
for conv in conversation_dirs(root):
    try:
        ps = parse_antigravity_conversation(conv, title=load_title(root, conv.name),
                                            db_meta=load_db_meta(root / "conversations" / f"{conv.name}.db"))
    except Exception:  # the sync reports it and goes on (service.py:439-442)
        continue
    if ps is not None:
        sessions.append(ps)
kinds = Counter(e.kind for ps in sessions for e in ps.events)
print(json.dumps({
    "sessions": len(sessions),
    "prompts": kinds["prompt"],
    "assistant texts": kinds["text"],
    "thinking": kinds["thinking"],
    "tool calls": sum(len(ps.tool_calls) for ps in sessions),
    "tool results": sum(1 for ps in sessions for t in ps.tool_calls if t.result_chars),
    "sessions with a project": sum(1 for ps in sessions if ps.project_path),
}))
"""

# converseek 1.0.4: the sessions AntigravityAdapter lists (default directories) and their messages;
# it decodes payloads with protoc --decode_raw
_CONVERSEEK = """
import json
from collections import Counter
from converseek.adapters.antigravity import AntigravityAdapter
adapter = AntigravityAdapter()
sessions = adapter.list_sessions(limit=10**6)
roles = Counter(m.role for s in sessions for m in adapter.read_messages(s.session_id))
print(json.dumps({
    "sessions": len(sessions),
    "titled sessions": sum(1 for s in sessions if s.title),
    "sessions with a cwd": sum(1 for s in sessions if s.cwd),
    "user messages": roles["user"],
    "assistant messages": roles["assistant"],
}))
"""

# ferry-cli 0.1.1: read_conversation() on every conversation database of its root
_FERRY = """
import json
from ferry.adapters.antigravity import paths, reader
read = [reader.read_conversation(db) for db in sorted(paths.conversations_dir().glob("*.db"))]
conversations = [r.conversation for r in read if r.conversation is not None]
print(json.dumps({
    "conversations": len(conversations),
    "messages": sum(len(c.messages) for c in conversations),
    "timed messages": sum(1 for c in conversations for m in c.messages if m.timestamp),
}))
"""

# cli-sessions 0.1.0: collect_antigravity_sessions()
_CLI_SESSIONS = """
import json
from cli_sessions.cli import collect_antigravity_sessions
sessions = collect_antigravity_sessions()
print(json.dumps({
    "sessions": len(sessions),
    "sessions with a cwd": sum(1 for s in sessions if s["cwd"] != "(unknown)"),
    "sessions with a summary": sum(1 for s in sessions if s["summary"] != "(no summary available)"),
}))
"""

# session-compass 0.1.1: collect_sessions()
_SESSION_COMPASS = """
import json
from session_compass.agents.antigravity import collect_sessions
sessions = collect_sessions()
print(json.dumps({
    "sessions": len(sessions),
    "sessions with a summary": sum(1 for s in sessions if s["summary_source"] != "fallback"),
}))
"""

# anysession 1.0.1: its two Antigravity collectors, each wrapped as collect_all() wraps it
_ANYSESSION = """
import json
import anysession.__main__ as m
def collected(collector):
    try:
        return collector()
    except Exception:
        return []
cli, gui = collected(m.antigravity_cli_sessions), collected(m.antigravity_gui_sessions)
print(json.dumps({
    "CLI sessions": len(cli),
    "CLI sessions with a title": sum(1 for s in cli if s["title"]),
    "CLI sessions with a cwd": sum(1 for s in cli if s["cwd"]),
    "desktop sessions": len(gui),
}))
"""

# agent-session-reader 0.4.2 (ai_r): list_sessions() and read_messages() of each
_AGENT_SESSION_READER = """
import json
from collections import Counter
from ai_r.parsers import antigravity as a
sessions = a.list_sessions()
roles = Counter(m.role for s in sessions for m in a.read_messages(s.uuid))
print(json.dumps({"sessions": len(sessions), "user messages": roles["user"], "assistant messages": roles["assistant"]}))
"""

# dhi-orbit 0.3.17: chats() and the turns of each
_DHI_ORBIT = """
import json
from collections import Counter
from dhi_orbit.providers import antigravity as d
chats = d.chats(0.0, limit=10**6)
roles = Counter(t["role"] for c in chats for t in d.turns(c["id"], limit=10**6))
print(json.dumps({
    "chats": len(chats),
    "chats with a cwd": sum(1 for c in chats if c["cwd"]),
    "user turns": roles["user"],
    "assistant turns": roles["assistant"],
}))
"""

# search-clanker-history 0.3.0: every hit of a search for "." with tool and thinking hits included
# (a hit's project label, from conversation_summaries.db, is not counted: without it the hit is still
# found, unlabelled: search_clanker_history/cli.py:1586-1606)
_SEARCH_CLANKER_HISTORY = """
import json
from collections import Counter
from search_clanker_history.cli import antigravity_hits
hits = list(antigravity_hits(".", None, None, extra=frozenset({"tool", "thinking"})))
kinds = Counter(h.kind for h in hits)
print(json.dumps({"hits": len(hits), **{f"{k} hits": n for k, n in sorted(kinds.items())}}))
"""

# pentimento 0.1.23: the session it parses from a brain's compact transcript for a plan there (every
# brain of its root; the builder's only artifact, task.md, is not a plan to it: pentimento/sources.py:81-112).
# Its start and end are not counted: without them the plan's own file times stand in (plan.py:148, corpus.py:64)
_PENTIMENTO = """
import json
from pentimento import antigravity_sessions, sources
brains = [d for root in sources.antigravity_source().directories if root.is_dir() for d in sorted(root.iterdir())]
parsed = [antigravity_sessions._parse_transcript(d / antigravity_sessions.TRANSCRIPT) for d in brains]
print(json.dumps({
    "sessions with a prompt": sum(1 for p in parsed if p["prompt"]),
    "sessions with a launch folder": sum(1 for p in parsed if p["launch"]),
}))
"""

# agents-tree 1.2.0: the conversations it discovers in its root and what read_transcript() takes from each
_AGENTS_TREE = """
import json
from agents_tree.providers import antigravity as t
found = t._discover_sessions()
read = [t.read_transcript(meta.transcript_path) for meta in found.values()]
print(json.dumps({
    "conversations": len(found),
    "conversations with a cwd": sum(1 for meta in found.values() if meta.cwd),
    "prompts": sum(1 for r in read if r.first_prompt),
    "requests": sum(r.requests for r in read),
    "tool calls": sum(sum(r.tool_counts.values()) for r in read),
}))
"""


class Reader(NamedTuple):
    package: str  # the module to import
    count: Callable[[Path], dict[str, int]]
    needs: tuple[str, ...] = ()  # programs it runs


READERS: dict[str, Reader] = {
    "agent-session-reader": Reader("ai_r", _reader(_AGENT_SESSION_READER)),
    "agents-tree": Reader("agents_tree", _reader(_AGENTS_TREE)),
    "anysession": Reader("anysession", _reader(_ANYSESSION)),
    "cli-sessions": Reader("cli_sessions", _reader(_CLI_SESSIONS)),
    "converseek": Reader("converseek", _reader(_CONVERSEEK), needs=("protoc",)),
    "dhi-orbit": Reader("dhi_orbit", _reader(_DHI_ORBIT)),
    "ferry-cli": Reader("ferry", _reader(_FERRY)),
    "interlatch": Reader("interlatch", _reader(_INTERLATCH)),
    "pentimento": Reader("pentimento", _reader(_PENTIMENTO)),
    "search-clanker-history": Reader("search_clanker_history", _reader(_SEARCH_CLANKER_HISTORY)),
    "session-compass": Reader("session_compass", _reader(_SESSION_COMPASS)),
    "sessionfs": Reader("sessionfs", _reader(_SESSIONFS)),
    "tokstat": Reader("tokstat", _reader(_TOKSTAT)),
    "vibewatt": Reader("vibewatt", _reader(_VIBEWATT)),
}


_STEP_TYPE = "add a step type (999, PLANNER_RESPONSE_V2 in transcripts, for half the planner steps)"
_SKIPS_UNNAMED = (
    "judging: a new transcript type agy-audit cannot name outside a `skips` filter breaks ({filter}: records it read "
    "may have moved there; a transcript record has no payload to tell which); here they moved out of PLANNER_RESPONSE, "
    "{why}"
)
# (consumer, mutation): why its real reader and its verdict differ, though both its profile and its counting
# are right (xfail, strict: a change of the judging or the store that settles one shows here)
DISAGREES = {
    ("agent-session-reader", _STEP_TYPE): _SKIPS_UNNAMED.format(
        filter="*.type in {USER_INPUT}",
        why="and it takes records by source, MODEL* as the assistant's (ai_r/parsers/antigravity.py:325-336)",
    ),
    ("pentimento", _STEP_TYPE): _SKIPS_UNNAMED.format(
        filter="compact.type in {USER_INPUT}",
        why="and it reads only the first USER_INPUT (pentimento/antigravity_sessions.py:70-71)",
    ),
    ("interlatch", "add a source value (MODEL_V2 in transcripts)"): (
        "judging: values are pooled over every root; in the one root interlatch reads (antigravity) every MODEL_V2 record "
        "is a PLANNER_RESPONSE, which it takes by type (interlatch/sources/antigravity.py:268); the tool results it would "
        "skip (lines 296-303) became MODEL_V2 only in antigravity-cli"
    ),
    ("session-compass", "rename a history key (conversationId -> conversation_id)"): (
        "store: the built conversation_summaries.db lists every CLI session with its workspace and title, which come "
        "before history.jsonl; history stays required for a session the catalog does not list yet, which it drops "
        "without a workspace (session_compass/agents/antigravity.py:141-152)"
    ),
}


@pytest.mark.real_consumer
@pytest.mark.skipif(not REAL, reason="opt-in: set AGY_AUDIT_REAL_CONSUMERS=1 with the consumers' packages installed")
@pytest.mark.parametrize("consumer", sorted(READERS))
@pytest.mark.parametrize("mutation", [m for m in MUTATIONS if m != "none"])
def test_real_reader_agrees(consumer, mutation, table, tmp_path, request):
    package, count, needs = READERS[consumer]
    if importlib.util.find_spec(package) is None:
        pytest.skip(f"{package} is not installed")
    if missing := [program for program in needs if shutil.which(program) is None]:
        pytest.skip(f"{consumer} runs {', '.join(missing)}, which is not installed")
    if (consumer, mutation) in DISAGREES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=DISAGREES[consumer, mutation]))
    before = build(tmp_path / "before")
    after = build(tmp_path / "after")
    MUTATIONS[mutation](after)
    was = count(before)
    assert all(was.values()), (consumer, "reads nothing of the built store", was)
    try:
        now, raised = count(after), None
    except ReaderRaised as error:
        now, raised = {}, str(error)
    lost = {what: (was[what], now.get(what, 0)) for what in was if now.get(what, 0) < was[what]}
    assert bool(lost) == (table[mutation][consumer] == BREAKS), (consumer, mutation, table[mutation][consumer], lost, raised)


# ----------------------------------------------------------------------------- what compare prints


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> tuple[Path, Path]:
    """A built store with one generation of model 342 (GPT-OSS, which cortex.proto names), swept
    and recorded as agy-9.9.9; returns (the store, the baseline directory)."""
    work = tmp_path_factory.mktemp("recorded")
    home = build(work / "home")
    first: list[bool] = []
    mutate.each_blob(home, "gen_metadata", "data", (1, 4), lambda fields: _gpt_oss_first(fields, first))
    corpus = _corpus(home, work / "corpus")
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", survey([corpus]), "2026-12-01"), work / "fp")
    return home, work / "fp" / "agy-9.9.9"


def _gpt_oss_first(usage: list, done: list[bool]) -> list:
    """The first generation's usage.model (field 1) becomes 342."""
    if done or not any(f.number == 1 for f in usage):
        return usage
    done.append(True)
    return [f._replace(value=342) if f.number == 1 else f for f in usage]


def test_compare_names_the_filter_a_new_step_type_falls_outside(recorded, tmp_path):
    home, baseline = recorded
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    mutate.apply_mutation(mutate.CATALOGUE["new-step-type"], copy)
    corpus = _corpus(copy, tmp_path / "corpus")
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", "tokstat", "--consumer", "sessionfs", corpus)
    assert code == 1
    assert "\ntokstat: breaks (" in out and "\nsessionfs: breaks (" in out
    assert (
        "  sqlite table:steps.step_type  [requires: new step type 999, which agy-audit cannot name, carries planner_response "
        "payloads, the kind its filter step_type in {15} reads: those records moved outside it, and it skips them silently "
        "(not in agy-9.9.9)]\n"
    ) in out
    # sessionfs reads the full tier only, where every planner record of this store is now the new type
    assert out.endswith(
        "\nsessionfs: breaks (1 deciding line(s))\n"
        "  transcript full.PLANNER_RESPONSE.type\tstring  [requires: renamed to full.PLANNER_RESPONSE_V2.type]\n"
    )


def test_a_new_step_type_carrying_payloads_a_filter_does_not_read_takes_nothing_from_it(recorded, tmp_path):
    """The steps of the new type 999 carry planner responses (their payload, a fact of the .db):
    a reader that selects user inputs by step type loses nothing, and is told why."""
    home, baseline = recorded
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    mutate.apply_mutation(mutate.CATALOGUE["new-step-type"], copy)
    corpus = _corpus(copy, tmp_path / "corpus")
    entry = {"surface": "sqlite", "path": "table:steps.step_type", "mode": "requires", "values": ["14"], "other": "skips"}
    entry |= {"cite": "pypi:example==1.0:example/reader.py:1", "why": "SELECT ... WHERE step_type = 14"}
    profile = {"profile": 2, "name": "prompts", "repository": "pypi:example", "version": "1.0", "describes": "user inputs"}
    (tmp_path / "prompts.json").write_text(json.dumps(profile | {"entries": [entry]}))
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", tmp_path / "prompts.json", "--format", "json", corpus)
    (result,) = json.loads(out)["consumers"]
    assert code == 1 and result["verdict"] == "ok" and result["deciding"] == [] and result["entries"]["ok"] == 1
    observed = observe([corpus])
    recorded_baseline = baselines.load(baseline)
    judged = consumers.judge(
        consumers.load(tmp_path / "prompts.json"), compare(recorded_baseline, observed), recorded_baseline, observed
    )
    assert [(d.effect, d.reason) for d in judged.decisions if d.path is None or "999" in d.reason] == [
        (
            "ok",
            "new step type 999, which agy-audit cannot name, carries planner_response payloads: not a kind its filter "
            "step_type in {14} reads",
        )
    ]


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
    mutate.apply_mutation(mutate.CATALOGUE["rename-transcript-key"], copy)
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", "tokstat", _corpus(copy, tmp_path / "corpus"))
    assert code == 1
    assert "transcript: renamed (" in out and "transcript: removed (" not in out and "transcript: added (" not in out
    assert "  = compact.USER_INPUT.created_at -> compact.USER_INPUT.createdAt\tstring\n" in out
    assert "  transcript compact.USER_INPUT.created_at\tstring  [requires: renamed to compact.USER_INPUT.createdAt]\n" in out
