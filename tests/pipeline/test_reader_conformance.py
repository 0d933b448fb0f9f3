"""``agy-audit conformance`` and ``agy-audit mutate``: a reader's own command run on a built store and on
every mutation of the catalogue (tests/data/readers/flat_reader.py), and the mutated copies themselves."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from audit.actions import mutate
from audit.pipeline import conformance
from audit.report import conformance_report
from audit.resources import data_path
from audit.testing.builder import StoreBuilder
from tests.cli_capture import cli

REPO = Path(__file__).resolve().parents[2]
READER = REPO / "tests" / "data" / "readers" / "flat_reader.py"
SCHEMA = json.loads((data_path("schemas") / "conformance-report.schema.json").read_text())


def build(home: Path, *, ide: bool = True) -> Path:
    """A CLI root (three conversations, one of them with chunks beside its flat files, the
    per-install files) and, unless not *ide*, an IDE root with its cache."""
    b = StoreBuilder(home, seed=34)
    cli_root = b.root("cli")
    convs = [cli_root.conversation(turns=2), cli_root.conversation(turns=1, transcript_chunks="both")]
    convs.append(cli_root.conversation(turns=1))
    cli_root.install_files(convs, cli=True)
    if ide:
        ide_root = b.root("ide")
        ide_root.install_files([ide_root.conversation(turns=1)])
    return home


def state(home: Path) -> dict[str, tuple]:
    """Every path below *home*: (kind, sha256 of a file or link target, mtime in ns, mode)."""
    found = {}
    for directory, dirs, files in os.walk(home):
        for name in dirs + files:
            path = Path(directory) / name
            st = path.lstat()
            data = os.readlink(path).encode() if path.is_symlink() else b"" if path.is_dir() else path.read_bytes()
            found[str(path.relative_to(home))] = (st.st_mode, hashlib.sha256(data).hexdigest(), st.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("conformance") / "home")


@pytest.fixture(scope="module")
def result(store) -> conformance.Conformance:
    before = state(store)
    found = conformance.check(store, [sys.executable, str(READER)], mutate.MUTATIONS, timeout=30)
    assert state(store) == before  # the store is only read: bytes, modes and times as they were
    return found


# The flat reader reads flat compact transcripts (type, source, created_at) and sidecars.
EXPECTED = {
    "rename-transcript-key": conformance.SILENT,  # its first/last times become null
    "step-index-as-string": conformance.UNCHANGED,
    "drop-output-tokens": conformance.UNCHANGED,
    "new-model": conformance.UNCHANGED,
    "new-step-type": conformance.SILENT,  # planner responses of the new type are not counted
    "new-source": conformance.SILENT,  # nor those of source MODEL_V2
    "drop-steps-metadata": conformance.UNCHANGED,
    "rename-cli-root": conformance.SILENT,  # antigravity-agent is still antigravity*: every key changes
    "rename-cache-key": conformance.UNCHANGED,
    "rename-history-key": conformance.UNCHANGED,
    "rename-summaries-column": conformance.UNCHANGED,
    "chunks-only": conformance.SILENT,  # it never reads chunks: every session is gone
    "new-status": conformance.UNCHANGED,
    "move-source": conformance.SILENT,  # no source: no planner response counts
    "add-transcript-key": conformance.UNCHANGED,
}


def test_the_reader_changes_its_output_on_exactly_the_mutations_of_what_it_reads(result):
    assert {o.mutation.name: o.result for o in result.outcomes} == EXPECTED
    assert result.output == "json" and result.volatile == () and result.exit_code == 1
    assert [o.mutation.name for o in result.failing] == [n for n, r in EXPECTED.items() if r == conformance.SILENT]
    assert all(o.changed > 0 for o in result.outcomes)


def _sessions(result) -> dict[str, dict]:
    """What the reader printed for each session of the unmutated store."""
    return json.loads(result.baseline.stdout)["sessions"]


def test_what_changed_is_named_by_path(result):
    by = {o.mutation.name: o for o in result.outcomes}
    sessions = _sessions(result)
    keys = sorted(sessions)
    assert len(keys) == 4 and all(s["responses"] for s in sessions.values())
    source = by["move-source"]
    assert [(d.kind, d.path, d.old, d.new) for d in source.differences] == [
        ("changed", f"sessions.{k}.responses", str(sessions[k]["responses"]), "0") for k in keys
    ]
    renamed = by["rename-transcript-key"]
    assert [(d.kind, d.path, d.old, d.new) for d in renamed.differences] == [
        ("type-changed", f"sessions.{k}.{end}", json.dumps(sessions[k][end]), "null") for k in keys for end in ("first", "last")
    ]
    assert (
        renamed.why
        == f'8 differences in its output, first: type-changed sessions.{keys[0]}.first: "{sessions[keys[0]]["first"]}" -> null'
    )
    chunks = by["chunks-only"]
    assert [(d.kind, d.path, d.new) for d in chunks.differences] == [("removed", f"sessions.{k}", None) for k in keys]
    assert chunks.changed == 8  # every flat compact and full file
    moved = by["rename-cli-root"]
    assert sorted((d.kind, d.path.split("/")[0]) for d in moved.differences) == sorted(
        [("added", "sessions.antigravity-agent"), ("removed", "sessions.antigravity-cli")] * 3
        + [("added", "sidecars.antigravity-agent"), ("removed", "sidecars.antigravity-cli")] * 3
    )


def test_the_json_report_follows_its_schema_and_says_everything(result, store):
    doc = conformance_report.to_json(result)
    assert list(Draft202012Validator(SCHEMA).iter_errors(doc)) == []
    assert doc["command"] == [sys.executable, str(READER)] and doc["home"] == str(store)
    assert doc["store"] == {
        "roots": ["antigravity", "antigravity-cli"],
        "files": doc["store"]["files"],
        "links": 1,
        "skipped": [],
    }
    assert doc["counts"] == {"crashed": 0, "failed-loudly": 0, "changed-silently": 6, "unchanged": 9, "not-applicable": 0}
    assert doc["exitCode"] == 1 and doc["failOn"] == "crash" and doc["timeout"] == 30
    assert doc["baseline"]["output"] == "json" and doc["baseline"]["volatile"] == []
    assert [(m["name"], m["outcome"], m["fails"], m["exitCode"]) for m in doc["mutations"]] == [
        (name, outcome, outcome == conformance.SILENT, 0) for name, outcome in EXPECTED.items()
    ]
    (moved,) = [m for m in doc["mutations"] if m["name"] == "move-source"]
    assert moved["title"] == "move a transcript field (source -> metadata.source)" and moved["newStderr"] == []
    first = min(_sessions(result))
    old = str(_sessions(result)[first]["responses"])
    assert moved["differences"][0] == {"kind": "changed", "path": f"sessions.{first}.responses", "old": old, "new": "0"}
    assert moved["moreDifferences"] == 0 and moved["changed"] > 0 and moved["timedOut"] is False and moved["signal"] is None


def test_the_text_report(result, store):
    text = conformance_report.text(result)
    sessions = _sessions(result)
    last = max(sessions)
    lines = text.splitlines()
    assert lines[:4] == [
        f"conformance of: {sys.executable} {READER}",
        f"store: {store} (antigravity, antigravity-cli; {result.copied.files} files copied)",
        "baseline: json output, exit 0",
        "",
    ]
    rows = [line for line in lines if re.match(r"(FAIL |     )[a-z]", line)]
    assert [(row[:5].strip(), row[5:].split()[0]) for row in rows] == [
        ("FAIL" if r == conformance.SILENT else "", n) for n, r in EXPECTED.items()
    ]
    assert f"FAIL {'move-source':<23}  changed silently: 4 differences in its output, first: changed " in text
    assert f"       ~ sessions.{last}.responses: {sessions[last]['responses']} -> 0\n" in text
    assert f"       - sessions.{last}: " in text.split("FAIL chunks-only")[1]
    assert f"     {'new-status':<23}  unchanged: the same output\n" in text
    assert text.endswith(
        "\n15 mutation(s): 0 crashed, 0 failed loudly, 6 changed silently, 9 unchanged, 0 not applicable\n"
        "fails on: crash (6 failing)\n"
    )
    after = lines[lines.index(f"     {'new-status':<23}  unchanged: the same output") + 1]
    assert after.startswith("FAIL move-source")  # only failing mutations list their differences
    assert f"       ~ sessions.{last}.responses" in conformance_report.text(result, verbose=True).split("new-source")[1]


def test_the_markdown_report(result):
    md = conformance_report.markdown(result)
    assert md.startswith(f"## agy-audit conformance\n\nCommand: `{sys.executable} {READER}` — baseline: json output, exit 0.\n\n")
    assert "| mutation | imitates | outcome | why |\n| --- | --- | --- | --- |\n" in md
    assert (
        "| `new-status` | a new CortexStepStatus for a command the agent did not run, as Windsurf has SKIPPING | unchanged | the same output |\n"
        in md
    )
    assert (
        "| `chunks-only` | a release that writes only the rolling chunks of each tier, as one real session already has | **changed silently** |"
        in md
    )
    assert (
        "\n15 mutation(s): 0 crashed, 0 failed loudly, 6 changed silently, 9 unchanged, 0 not applicable; fails on `crash`: 6 failing.\n"
        in md
    )
    assert md.count("### `") == 6 and "### `move-source`: what changed\n\n```\n~ sessions." in md


def test_the_junit_report_has_a_case_per_mutation(result):
    root = ET.fromstring(conformance_report.junit_xml(result))
    assert root.get("tests") == "15" and root.get("failures") == "6" and root.get("skipped") == "0"
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert list(cases) == list(EXPECTED)
    for name, outcome in EXPECTED.items():
        failure = cases[name].find("failure")
        assert (failure is not None) == (outcome == conformance.SILENT), name
    failure = cases["chunks-only"].find("failure")
    assert failure is not None and failure.get("message", "").startswith(
        "changed silently: 4 differences in its output, first: removed "
    )
    assert (failure.text or "").startswith("- sessions.antigravity-cli/")
    assert cases["new-model"].findtext("system-out") == "unchanged: the same output"


def test_a_draft_profile_names_what_the_reader_depends_on(result, tmp_path):
    draft = conformance.draft_profile(result)
    assert [(e["surface"], e["path"], e["mode"]) for e in draft["entries"]] == [
        ("transcript", "*.*.created_at", "requires"),
        ("sqlite", "table:steps.step_type", "requires"),
        ("transcript", "*.type", "requires"),
        ("transcript", "*.source", "requires"),
        ("roots", "antigravity-cli", "requires"),
        ("layout", "brain/*/.system_generated/logs/transcript.jsonl", "requires"),
        ("layout", "brain/*/.system_generated/logs/transcript_full.jsonl", "requires"),
        ("transcript", "*.*.source", "requires"),
    ]
    assert draft["entries"][0]["why"] == (
        "its output changed with rename-transcript-key (rename a transcript key (created_at -> createdAt)): changed-silently"
    )
    assert draft["describes"].endswith(
        "Unchanged by: step-index-as-string, drop-output-tokens, new-model, drop-steps-metadata, rename-cache-key, "
        "rename-history-key, rename-summaries-column, new-status, add-transcript-key."
    )
    # a draft is no profile until each entry cites the code that reads it
    (tmp_path / "draft.json").write_text(json.dumps(draft))
    code, out, _ = cli("verify-contract", "--kind", "profile", tmp_path / "draft.json")
    assert code == 1 and re.findall(r" \[([\w/-]+)\] /entries/(\d+)/\w+: ", out) == [
        ("consumer-profile/entry/cite", str(n)) for n in range(len(draft["entries"]))
    ]


# ----------------------------------------------------------------------------- the command line


def test_the_cli_runs_the_command_after_the_double_dash(store, tmp_path):
    before = state(store)
    argv = ("conformance", "--home", store, "--mutation", "chunks-only", "--mutation", "new-model", "--format", "json")
    code, out, err = cli(*argv, "--draft-profile", tmp_path / "draft.json", "--", sys.executable, READER)
    assert state(store) == before
    doc = json.loads(out)["result"]
    assert code == 1 and err == "" and list(Draft202012Validator(SCHEMA).iter_errors(doc)) == []
    assert [(m["name"], m["outcome"]) for m in doc["mutations"]] == [
        ("chunks-only", "changed-silently"),
        ("new-model", "unchanged"),
    ]
    assert [e["path"] for e in json.loads((tmp_path / "draft.json").read_text())["entries"]] == [
        "brain/*/.system_generated/logs/transcript.jsonl",
        "brain/*/.system_generated/logs/transcript_full.jsonl",
    ]
    code, out, _ = cli(*argv[:-2], "--fail-on", "never", "--", sys.executable, READER)
    assert code == 0 and "FAIL" not in out and "fails on: never (0 failing)" in out


def test_a_crash_and_a_loud_failure_are_told_apart(store):
    mutations = ("--mutation", "rename-transcript-key", "--mutation", "move-source", "--mutation", "new-source")
    code, out, _ = cli("conformance", "--home", store, *mutations, "--format", "json", "--", sys.executable, READER, "--strict")
    found = {m["name"]: (m["outcome"], m["why"], m["exitCode"]) for m in json.loads(out)["result"]["mutations"]}
    assert code == 1 and found == {
        "rename-transcript-key": ("crashed", "exit 1: KeyError: 'created_at'", 1),
        "move-source": ("crashed", "exit 1: KeyError: 'source'", 1),
        "new-source": ("changed-silently", found["new-source"][1], 0),
    }
    code, out, _ = cli(
        "conformance",
        "--home",
        store,
        *mutations,
        "--loud-exit",
        "1",
        "--format",
        "json",
        "--",
        sys.executable,
        READER,
        "--strict",
    )
    found = {m["name"]: m["outcome"] for m in json.loads(out)["result"]["mutations"]}
    assert code == 1 and found == {
        "rename-transcript-key": "failed-loudly",
        "move-source": "failed-loudly",
        "new-source": "changed-silently",
    }
    code, out, _ = cli(
        "conformance",
        "--home",
        store,
        *mutations,
        "--format",
        "json",
        "--fail-on",
        "silent",
        "--",
        sys.executable,
        READER,
        "--warn",
    )
    found = {m["name"]: (m["outcome"], m["newStderr"]) for m in json.loads(out)["result"]["mutations"]}
    warned = found["move-source"][1]
    assert found["move-source"][0] == "failed-loudly" and warned
    assert all(re.fullmatch(r"flat_reader: transcript\.jsonl:\d+: a record without type or source", line) for line in warned)
    assert found["rename-transcript-key"] == ("changed-silently", []) and code == 1
    code, out, _ = cli(
        "conformance", "--home", store, "--mutation", "move-source", "--fail-on", "silent", "--", sys.executable, READER, "--warn"
    )
    assert code == 0 and f"     move-source  failed loudly: warned on stderr: {warned[0]}\n" in out


def test_a_mutation_the_store_gives_nothing_is_not_applicable(tmp_path):
    home = build(tmp_path / "home", ide=False)
    code, out, _ = cli(
        "conformance", "--home", home, "--mutation", "rename-cache-key", "--format", "junit", "--", sys.executable, READER
    )
    root = ET.fromstring(out)
    (case,) = root.iter("testcase")
    assert code == 3 and root.get("skipped") == "1"
    assert case.find("skipped").get("message") == "the store holds nothing this mutation changes"  # type: ignore[union-attr]


# ----------------------------------------------------------------------------- mutate


def test_mutate_writes_one_copy_per_mutation_and_never_the_source(store, tmp_path):
    before = state(store)
    code, out, err = cli("mutate", "--home", store, "--out", tmp_path / "out", "--format", "json")
    assert code == 0 and err == "" and state(store) == before
    index = json.loads(out)["result"]
    assert index == json.loads((tmp_path / "out" / "index.json").read_text())
    assert [m["name"] for m in index["mutations"]] == list(mutate.CATALOGUE)
    assert all(m["home"] == f"{m['name']}/home" and m["changed"] > 0 for m in index["mutations"])
    assert sorted(os.listdir(tmp_path / "out")) == sorted([*mutate.CATALOGUE, "index.json", "original"])
    original = state(tmp_path / "out" / "original" / "home")
    source = {k: v for k, v in before.items() if not k.endswith(("-wal", "-shm"))}
    assert {k: v[2] for k, v in original.items()} == {k: v[2] for k, v in source.items()}  # every mtime kept
    moved = state(tmp_path / "out" / "rename-cli-root" / "home")
    assert sorted(os.listdir(tmp_path / "out" / "rename-cli-root" / "home" / ".gemini")) == ["antigravity", "antigravity-agent"]
    assert {k.replace("antigravity-agent", "antigravity-cli"): v for k, v in moved.items()} == original
    changed = state(tmp_path / "out" / "new-model" / "home")
    assert sorted(k for k in original if original[k][1] != changed[k][1]) == sorted(
        k for k in original if k.endswith(".db") and "/conversations/" in k
    )
    code, _, err = cli("mutate", "--home", store, "--out", tmp_path / "out")
    assert code == 2 and err == f"agy-audit: {tmp_path / 'out'}: already exists; give a directory that does not\n"


def test_mutate_lists_the_catalogue():
    code, out, _ = cli("mutate", "--list", "--format", "json")
    assert code == 0 and json.loads(out)["result"] == {"mutations": [mutate.describe(m) for m in mutate.MUTATIONS]}
    code, out, _ = cli("mutate", "--list", "--mutation", "chunks-only")
    assert code == 0 and out == (
        "chunks-only: write transcripts as chunks only (no transcript.jsonl, transcript_full.jsonl)\n"
        "  imitates: a release that writes only the rolling chunks of each tier, as one real session already has\n"
        "  rests on: docs/store-format.md#chunks (chunks byte-identical to the flat file; one session has chunks and no flat transcript)\n"
    )
    code, _, err = cli("mutate")
    assert code == 2 and err == "agy-audit: mutate: --out DIR is required (or --list)\n"


def _manual_catalogue() -> str:
    rows = ["| mutation | what changes | imitates | rests on |", "| --- | --- | --- | --- |"]
    rows += [f"| `{m.name}` | {m.title} | {m.imitates} | {m.rests_on} |" for m in mutate.MUTATIONS]
    return "\n".join(rows) + "\n"


def test_the_manual_shows_the_catalogue():
    assert _manual_catalogue() in (REPO / "docs" / "consumers.md").read_text(encoding="utf-8")
