"""``.db`` <-> brain transcript consistency and the ``.db`` invariants: builder stores, planted
disagreements, each invariant breach, the tiers' encodings, the command and its formats."""

from __future__ import annotations

import copy
import json
import os
import sqlite3
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from cli_capture import cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from output_schema import envelope, matched

from audit.checks import consistency as C
from audit.checks import invariants
from audit.errors import NothingToCheck
from audit.store.layout import resolve_roots
from audit.store.proto import cortex_pb2 as pb
from audit.strictjson import dumps
from audit.testing import StoreBuilder
from audit.testing import trajectories as T
from audit.testing.dbwriter import write_conversation_db
from audit.testing.disagreements import KINDS, Planted


@pytest.fixture
def builder(tmp_path):
    return StoreBuilder(tmp_path / "home", seed=11)


def violations(report: C.Report) -> list[tuple[str, str, int | None, str]]:
    """(session id, rule, step, transcript file name) of every violation, sorted."""
    return sorted(
        (r.id, f.rule, f.details.get("step"), Path(f.file).name if f.file else "") for r in report.results for f in r.errors
    )


def advisories(report: C.Report) -> list[tuple[str, str, int | None]]:
    return sorted((r.id, f.rule, f.details.get("step")) for r in report.results for f in r.warnings)


def rich_steps(builder: StoreBuilder, turns: int = 8) -> list[dict]:
    """A conversation long enough for every kind of disagreement, ending in two errors."""
    steps = T.conversation_steps(builder.rng, builder.clock, turns)
    steps += [T.error_message(builder.clock, "Model overloaded"), T.error_message(builder.clock, "Quota exceeded")]
    return steps


# ----------------------------------------------------------------------------- consistent sessions


def test_consistent_sessions_pass_with_only_the_documented_advisories(builder):
    root = builder.root("cli")
    plain = root.conversation(turns=3)
    windowed = root.conversation(turns=4, transcript_anomalies={"late-start", "truncated", "repeated-step"})
    running = root.conversation(turns=6, transcript_anomalies={"running"})
    parent, children = root.family(children=1)
    report = C.check_roots(resolve_roots(roots=[root.path]))
    assert report.exit_code == 0 and violations(report) == []
    assert report.counts() == {C.CONSISTENT: 5, C.INCONSISTENT: 0, C.UNREADABLE: 0}
    full = (_logs(running) / "transcript_full.jsonl").read_text().splitlines()
    [lag] = [json.loads(line)["step_index"] for line in full if json.loads(line)["status"] == "RUNNING"]
    start = json.loads((_logs(windowed) / "transcript.jsonl").read_text().splitlines()[0])["step_index"]
    found = sorted((r.id, f.rule, f.message) for r in report.results for f in r.warnings)
    assert found == sorted(
        [
            (
                windowed.id,
                "transcript/window/late",
                f"compact transcript starts at step {start}: .db steps 0-{start - 1} not compared",
            ),
            *(
                (
                    running.id,
                    "consistency/status-lag",
                    f"step {lag} (RUN_COMMAND) status: .db DONE, {tier} transcript RUNNING; content not compared",
                )
                for tier in ("compact", "full")
            ),
        ]
    )
    by_id = {r.id: r for r in report.results}
    assert by_id[plain.id].joined == {"compact": len(plain.steps), "full": len(plain.steps)}
    assert {parent.id, children[0].id} <= set(by_id)


def test_planted_disagreements_are_reported_exactly(builder):
    root = builder.root("cli")
    clean = root.conversation(turns=2)
    planted = root.conversation(steps=rich_steps(builder), disagreements=set(KINDS))
    report = C.check([root.path])
    assert report.exit_code == 1
    assert {r.id: r.verdict for r in report.results} == {clean.id: C.CONSISTENT, planted.id: C.INCONSISTENT}
    expected = sorted(
        (planted.id, p.rule, p.step, name) for p in planted.planted for name in ("transcript.jsonl", "transcript_full.jsonl")
    )
    assert violations(report) == expected
    assert sorted({p.rule for p in planted.planted}) == sorted(f"consistency/{k}" for k in KINDS)
    assert planted.planted == [
        Planted(1, "consistency/tool-args"),
        Planted(2, "consistency/command-line"),
        Planted(3, "consistency/thinking"),
        Planted(15, "consistency/tool-name"),
        Planted(16, "consistency/exit-code"),
        Planted(19, "consistency/tool-args"),
        Planted(20, "consistency/source"),
        Planted(24, "consistency/status"),
        Planted(26, "consistency/type"),
        Planted(27, "consistency/created-at"),
        Planted(30, "consistency/prompt"),
        Planted(31, "consistency/tool-calls"),
        Planted(37, "consistency/response"),
        Planted(40, "consistency/error"),
        Planted(41, "consistency/error-code"),
    ]


@pytest.mark.parametrize("kind", KINDS)
def test_each_planted_kind_alone(builder, kind):
    root = builder.root("cli")
    convo = root.conversation(steps=rich_steps(builder), disagreements={kind})
    report = C.check([root.path])
    expected = sorted(
        (convo.id, p.rule, p.step, name) for p in convo.planted for name in ("transcript.jsonl", "transcript_full.jsonl")
    )
    assert violations(report) == expected and report.exit_code == 1


def test_messages_name_both_values(builder):
    root = builder.root("cli")
    convo = root.conversation(steps=rich_steps(builder), disagreements={"exit-code", "status"})
    [result] = C.check([root.path]).results
    messages = {(f.rule, Path(f.file).name, f.line): f.message for f in result.errors}
    exit_step = next(p.step for p in convo.planted if p.rule == "consistency/exit-code")
    db_code = convo.steps[exit_step]["runCommand"]["exitCode"]
    assert messages[("consistency/exit-code", "transcript_full.jsonl", exit_step + 1)] == (
        f"step {exit_step} (RUN_COMMAND) exit code: .db {db_code}, full transcript {db_code + 1}"
    )
    status_step = next(p.step for p in convo.planted if p.rule == "consistency/status")
    kind = convo.steps[status_step]["type"].removeprefix(T.STEP)
    assert messages[("consistency/status", "transcript.jsonl", status_step + 1)] == (
        f"step {status_step} ({kind}) status: .db DONE, compact transcript ERROR"
    )


# ----------------------------------------------------------------------------- coverage advisories


def test_steps_beyond_a_db_without_its_wal_are_reported_not_failed(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=2, wal_steps=2)
    os.unlink(convo.paths["db_wal"])  # copied without its -wal; the -shm stays
    report = C.check([root.path])
    assert report.exit_code == 0 and violations(report) == []
    [result] = report.results
    assert result.db_steps == len(convo.steps) - 2
    beyond = [f for f in result.warnings if f.rule == "consistency/beyond"]
    assert [f.message for f in beyond] == [
        f"{tier} transcript has 2 step(s) beyond the last .db step {len(convo.steps) - 3} (from {len(convo.steps) - 2}); "
        "the .db has a -shm but no -wal: its newest commits are missing (copied without its -wal?)"
        for tier in ("compact", "full")
    ]


def test_gaps_are_advisories(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=2)
    for name in ("transcript.jsonl", "transcript_full.jsonl"):
        path = convo.paths["brain"] / ".system_generated" / "logs" / name
        lines = path.read_text().splitlines(keepends=True)
        path.write_text("".join(line for line in lines if json.loads(line)["step_index"] not in (2, 3)))
    report = C.check([root.path])
    assert report.exit_code == 0 and violations(report) == []
    [result] = report.results
    assert [(f.rule, f.message) for f in result.warnings] == [
        ("consistency/gap", f"{tier} transcript has no record of .db step(s) 2, 3") for tier in ("compact", "full")
    ]


def test_an_enum_number_cortex_proto_does_not_name_is_not_compared(builder, tmp_path):
    root = builder.root("cli")
    convo = root.conversation(turns=1)
    doc = copy.deepcopy(convo.trajectory)
    doc["steps"][0]["type"] = 250  # no name in the enum: the transcript's USER_INPUT cannot be compared
    _rewrite_db(convo, doc)
    report = C.check([root.path])
    assert report.exit_code == 0 and violations(report) == []
    unknown = [f.message for r in report.results for f in r.warnings if f.rule == "consistency/unknown-enum"]
    assert unknown == [".db type 250 has no name in cortex.proto; type not compared"]


# ----------------------------------------------------------------------------- tier encodings


def _logs(convo) -> Path:
    return convo.paths["brain"] / ".system_generated" / "logs"


def _rewrite(path: Path, change) -> None:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    for record in records:
        change(record)
    path.write_text("".join(dumps(r, indent=None) + "\n" for r in records))


def test_full_tier_native_values_and_compact_truncated_args_agree(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=3)

    def truncate(record):
        for call in record.get("tool_calls", []):
            text = call["args"]["toolSummary"]
            call["args"]["toolSummary"] = text[:5] + "<truncated 12 bytes>" + text[-2:]

    assert not isinstance(
        json.loads((_logs(convo) / "transcript_full.jsonl").read_text().splitlines()[1])["tool_calls"][0]["args"].get(
            "WaitMsBeforeAsync", 0
        ),
        str,
    )
    _rewrite(_logs(convo) / "transcript.jsonl", truncate)
    report = C.check([root.path])
    assert violations(report) == [] and report.exit_code == 0


def test_a_truncated_arg_whose_head_differs_disagrees(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=1)
    planner = next(i for i, s in enumerate(convo.steps) if s.get("plannerResponse", {}).get("toolCalls"))

    def truncate(record):
        if record["step_index"] == planner:
            call = record["tool_calls"][0]
            call["args"]["toolSummary"] = '"other<truncated 12 bytes>'

    _rewrite(_logs(convo) / "transcript.jsonl", truncate)
    assert violations(C.check([root.path])) == [(convo.id, "consistency/tool-args", planner, "transcript.jsonl")]


def test_the_overview_tier_is_compared(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=2)
    compact = (_logs(convo) / "transcript.jsonl").read_text().splitlines()  # overview has the compact encoding
    overview = [json.loads(line) for line in compact if json.loads(line)["type"] in ("USER_INPUT", "PLANNER_RESPONSE")]
    overview[0]["content"] = overview[0]["content"].replace("</USER_REQUEST>", "and more</USER_REQUEST>")
    (_logs(convo) / "overview.txt").write_text("".join(dumps(r, indent=None) + "\n" for r in overview))
    report = C.check([root.path])
    assert violations(report) == [(convo.id, "consistency/prompt", 0, "overview.txt")]
    [result] = report.results
    assert result.joined["overview"] == len(overview)
    assert [f.rule for f in result.warnings] == ["consistency/gap"]


# ----------------------------------------------------------------------------- invariants


def _rewrite_db(convo, doc: dict) -> None:
    for key in ("db", "db_wal", "db_shm"):
        if key in convo.paths and convo.paths[key].exists():
            convo.paths[key].unlink()
    write_conversation_db(convo.paths["db"], doc)


def _breach(builder, change) -> tuple[object, list[tuple[str, str]]]:
    root = builder.root("cli")
    convo = root.conversation(turns=3, brain=False)
    doc = copy.deepcopy(convo.trajectory)
    change(doc)
    _rewrite_db(convo, doc)
    report = C.check([convo.paths["db"]])
    return report, [(f.rule, f.message) for r in report.results for f in r.findings]


def test_the_invariants_hold_on_builder_stores(builder):
    root = builder.root("cli")
    root.conversation(turns=4, brain=False)
    root.family(children=2, brain=False)
    report = C.check([root.path])
    assert report.exit_code == 0 and [f for r in report.results for f in r.findings] == []


def test_token_accounting_breach(builder):
    def change(doc):
        usage = doc["generatorMetadata"][1]["chatModel"]["usage"]
        usage["outputTokens"] = str(int(usage["outputTokens"]) + 7)

    report, found = _breach(builder, change)
    assert report.exit_code == 1 and [rule for rule, _ in found] == ["invariant/token-accounting"]
    assert found[0][1].startswith("gen_metadata[idx=1] usage: outputTokens ")


def test_token_accounting_without_a_split_is_an_advisory(builder):
    def change(doc):
        for key in ("thinkingOutputTokens", "responseOutputTokens"):
            doc["generatorMetadata"][0]["chatModel"]["usage"].pop(key)

    report, found = _breach(builder, change)
    assert report.exit_code == 0 and [rule for rule, _ in found] == ["invariant/token-split"]
    assert found[0][1].startswith("gen_metadata[idx=0] usage has ") and found[0][1].endswith("no thinking/response split")


def test_generation_id_not_a_uuid(builder):
    report, found = _breach(builder, lambda doc: doc["generatorMetadata"][0].update(executionId="exec-1"))
    assert report.exit_code == 1
    assert found == [("invariant/generation-id", "gen_metadata[idx=0] execution id 'exec-1' is not a UUID")]


def test_generation_id_differs_from_its_first_step(builder):
    other = "0b5e1c2d-3f40-4a51-8b62-7c8d9e0f1a2b"
    holder = {}

    def change(doc):
        gen = doc["generatorMetadata"][0]
        holder["step"], holder["was"] = gen["stepIndices"][0], gen["executionId"]
        gen["executionId"] = other

    report, found = _breach(builder, change)
    step = holder["step"]
    assert found == [
        (
            "invariant/generation-id",
            f"gen_metadata[idx=0] execution id {other!r} differs from steps[idx={step}].metadata.executionId {holder['was']!r}",
        )
    ]


def test_a_shared_execution_id_is_no_breach(builder):
    """Real stores: an execution spans several generations (executor num_generator_invocations)."""

    def change(doc):
        shared = doc["generatorMetadata"][0]["executionId"]
        for gen in doc["generatorMetadata"]:
            gen["executionId"] = shared
            doc["steps"][gen["stepIndices"][0]]["metadata"]["executionId"] = shared

    report, found = _breach(builder, change)
    assert report.exit_code == 0 and found == []


def test_duplicate_response_id(builder):
    def change(doc):
        gens = doc["generatorMetadata"]
        gens[2]["chatModel"]["usage"]["responseId"] = gens[0]["chatModel"]["usage"]["responseId"]

    report, found = _breach(builder, change)
    assert report.exit_code == 1 and [rule for rule, _ in found] == ["invariant/response-id"]
    assert found[0][1].startswith("gen_metadata[idx=0], gen_metadata[idx=2] share responseId ")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        (
            "usage.model",
            "MODEL_PLACEHOLDER_M16",
            "usage.model MODEL_PLACEHOLDER_M16 (1016) differs from its chat model MODEL_PLACEHOLDER_M20 (1020)",
        ),
        (
            "attribute",
            "MODEL_PLACEHOLDER_M26",
            "model_enum attribute 'MODEL_PLACEHOLDER_M26' is not its chat model's name 'MODEL_PLACEHOLDER_M20'",
        ),
    ],
)
def test_the_usage_record_names_the_generators_model(builder, field, value, message):
    def change(doc):
        chat = doc["generatorMetadata"][1]["chatModel"]
        if field == "usage.model":
            chat["usage"]["model"] = value
        else:
            next(a for a in chat["attributes"] if a["key"] == "model_enum")["value"] = value

    report, found = _breach(builder, change)
    assert report.exit_code == 1 and found == [("invariant/usage-model", f"gen_metadata[idx=1] {message}")]


def test_a_placeholder_model_number_cortex_proto_does_not_name_is_still_checked(builder):
    def change(doc):  # 1187: a real model number past the last named placeholder (M150)
        chat = doc["generatorMetadata"][0]["chatModel"]
        chat["model"] = chat["usage"]["model"] = 1187
        next(a for a in chat["attributes"] if a["key"] == "model_enum")["value"] = "MODEL_PLACEHOLDER_M187"

    assert _breach(builder, change)[1] == []


def _tool_result(doc: dict) -> tuple[int, dict]:
    return next((i, s) for i, s in enumerate(doc["steps"]) if "toolCall" in s["metadata"])


def test_tool_result_naming_no_earlier_call(builder):
    holder = {}

    def change(doc):
        i, step = _tool_result(doc)
        holder["i"] = i
        step["metadata"]["toolCall"] = dict(step["metadata"]["toolCall"], id="zzzz_unknown")

    report, found = _breach(builder, change)
    i = holder["i"]
    assert report.exit_code == 1
    assert found[0][0] == "invariant/tool-result" and found[0][1].startswith(
        f"steps[idx={i}].metadata.toolCall id 'zzzz_unknown' ("
    )
    assert found[0][1].endswith(") is no call of an earlier planner step")


def test_tool_result_answering_a_later_call_breaches(builder):
    holder = {}

    def change(doc):
        i, step = _tool_result(doc)
        later = next(s for s in doc["steps"][i + 1 :] if s.get("plannerResponse", {}).get("toolCalls"))
        holder["i"] = i
        step["metadata"]["toolCall"] = later["plannerResponse"]["toolCalls"][0]

    report, found = _breach(builder, change)
    assert [rule for rule, _ in found] == ["invariant/tool-result"] and found[0][1].startswith(f"steps[idx={holder['i']}]")


def test_tool_result_copy_differs_from_the_call(builder):
    holder = {}

    def change(doc):
        i, step = _tool_result(doc)
        holder["i"], holder["id"] = i, step["metadata"]["toolCall"]["id"]
        step["metadata"]["toolCall"] = dict(step["metadata"]["toolCall"], argumentsJson="{}")

    report, found = _breach(builder, change)
    i = holder["i"]
    assert found == [
        (
            "invariant/tool-result",
            f"steps[idx={i}].metadata.toolCall differs in argumentsJson from call {holder['id']!r} of steps[idx={i - 1}]",
        )
    ]


def test_a_tool_result_after_a_step_type_cortex_proto_does_not_name_is_an_advisory(builder, tmp_path):
    """After an upgrade that adds a planner step type (mutate's new-step-type: 999 for half the
    planner steps), the calls those steps made cannot be read: a tool result answering one is
    unknown, an advisory naming the type, not a breach that fails consistency (and ci)."""
    root = builder.root("cli")
    root.conversation(turns=3, brain=False)
    assert cli("mutate", "--home", root.path.parent.parent, "--mutation", "new-step-type", "--out", tmp_path / "M", "-q")[0] == 0
    report = C.check([tmp_path / "M" / "new-step-type" / "home" / ".gemini" / "antigravity-cli"])
    found = [f for r in report.results for f in r.findings if f.rule == "invariant/tool-result"]
    assert report.exit_code == 0 and found and {f.level for f in found} == {"warning"}
    assert found[0].message.endswith(
        ") is no call of an earlier planner step agy-audit can read "
        "(earlier steps of type 999, which cortex.proto does not name, may hold it)"
    )


def test_invariant_rules_are_documented():
    assert set(invariants.RULES) <= set(C.RULES)
    # besides their own, the reader's rule for a window and the common one for a file that cannot be read
    assert {rule for rule in C.RULES if not rule.startswith(("consistency/", "invariant/"))} == {
        "transcript/window/late",
        "unreadable",
    }


# ----------------------------------------------------------------------------- the command


def test_command_formats_and_exit_codes(builder, tmp_path):
    root = builder.root("cli")
    convo = root.conversation(steps=rich_steps(builder), disagreements={"thinking"})
    [step] = [p.step for p in convo.planted]
    code, out, err = cli("consistency", root.path)
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert lines[-1] == "consistency: 1 session(s): 0 consistent, 1 inconsistent, 0 unreadable; 2 error(s), 0 warning(s)"
    full = _logs(convo) / "transcript_full.jsonl"
    [line] = [line for line in lines if line.startswith(f"{full}:")]
    assert line.startswith(f"{full}:{step + 1}: error: [consistency/thinking] step {step} (PLANNER_RESPONSE) thinking ")
    assert matched(line)["file"] == str(full)

    code, out, _ = cli("consistency", "--format", "json", "--home", builder.home)
    doc = envelope(out, "consistency")
    assert (code, doc["verdict"], doc["exitCode"]) == (1, "fail", 1)
    assert doc["result"]["summary"] == {
        "sessions": 1,
        "consistent": 0,
        "inconsistent": 1,
        "unreadable": 0,
        "errors": {"consistency/thinking": 2},
        "warnings": {},
    }
    [result] = doc["result"]["results"]
    assert (result["verdict"], result["errors"], result["warnings"]) == ("inconsistent", 2, 0)
    assert [(f["rule"], f["level"], f["details"], f["line"]) for f in doc["findings"]] == [
        ("consistency/thinking", "error", {"step": step}, step + 1)
    ] * 2

    code, out, _ = cli("consistency", "--format", "junit", root.path)
    suite = ET.fromstring(out).find("testsuite")
    assert code == 1 and suite.get("name") == "consistency" and suite.get("failures") == "1"
    assert suite.find("testcase/failure").get("message") == "2 error(s): consistency/thinking"


def test_command_exit_2_on_an_unreadable_db_and_3_on_nothing(builder, tmp_path):
    root = builder.root("cli")
    convo = root.conversation(turns=1)
    convo.paths["db"].write_bytes(b"not a database" * 100)
    code, out, _ = cli("consistency", root.path)
    assert code == 2 and f"{convo.paths['db']}: error: [unreadable] " in out
    empty = tmp_path / "empty" / ".gemini" / "antigravity-cli"
    (empty / "conversations").mkdir(parents=True)
    code, out, err = cli("consistency", empty)
    assert (code, out) == (3, "") and err == "agy-audit: no conversation .db found\n"
    with pytest.raises(NothingToCheck):
        C.check([empty])
    code, _, err = cli("consistency", root.path, "--home", builder.home)
    assert code == 2 and "give PATHs or --home/--root, not both" in err


def test_a_sweep_corpus_is_checked(builder, tmp_path):
    from audit.actions.sweep import sweep

    root = builder.root("cli")
    convo = root.conversation(steps=rich_steps(builder), disagreements={"response"})
    sweep(resolve_roots(roots=[root.path]), tmp_path / "corpus", source="native")
    report = C.check([tmp_path / "corpus"])
    assert [(v[0], v[1], v[2]) for v in violations(report)] == [(convo.id, p.rule, p.step) for p in convo.planted] * 2
    assert all(str(r.db).startswith(str(tmp_path / "corpus" / "native")) for r in report.results)


# ----------------------------------------------------------------------------- status lag, spelling, coverage


def _transcripts(convo) -> list[Path]:
    return [_logs(convo) / name for name in ("transcript.jsonl", "transcript_full.jsonl")]


def test_a_db_lagging_its_transcript_is_an_advisory_in_either_direction(builder):
    root = builder.root("cli")
    steps = T.conversation_steps(builder.rng, builder.clock, 2)
    last = len(steps) - 1
    steps[last]["status"] = T.STATUS + "PENDING"  # the .db has not seen the step finish
    convo = root.conversation(steps=steps)
    for path in _transcripts(convo):
        _rewrite(path, lambda r: r.update(status="DONE") if r["step_index"] == last else None)
    report = C.check([root.path])
    assert report.exit_code == 0 and violations(report) == []
    assert [f.message for r in report.results for f in r.warnings] == [
        f"step {last} (PLANNER_RESPONSE) status: .db PENDING, {tier} transcript DONE; content not compared"
        for tier in ("compact", "full")
    ]


def test_cancelled_is_the_transcripts_spelling_of_canceled(builder):
    root = builder.root("cli")
    steps = T.conversation_steps(builder.rng, builder.clock, 1)
    steps[-1]["status"] = T.STATUS + "CANCELED"
    convo = root.conversation(steps=steps)
    for path in _transcripts(convo):
        _rewrite(path, lambda r: r.update(status="CANCELLED") if r["step_index"] == len(steps) - 1 else None)
    report = C.check([root.path])
    assert report.exit_code == 0 and [f for r in report.results for f in r.findings] == []


def test_status_7_is_error_as_the_transcripts_of_real_stores_say(builder):
    """Status 7 is CORTEX_STEP_STATUS_ERROR (AGP 1.19.6 and MLV name it so; CANCELED is 6): every
    status-7 row of the 26 real stores joined to its transcript says ERROR (13 of 13,
    docs/store-format.md#enums). A .db ERROR beside a transcript ERROR agrees; beside a transcript
    CANCELLED (what a "user-cancelled" 7 would be) it is two different final states. codeburn, said
    to read 7 as user-cancelled, reads no step status at all (consumers/codeburn.json)."""
    assert (pb.CortexStepStatus.Name(7), pb.CortexStepStatus.Name(6)) == (
        "CORTEX_STEP_STATUS_ERROR",
        "CORTEX_STEP_STATUS_CANCELED",
    )
    root = builder.root("cli")
    steps = T.conversation_steps(builder.rng, builder.clock, 1)
    last = len(steps) - 1
    steps[last]["status"] = T.STATUS + "ERROR"
    convo = root.conversation(steps=steps)
    with sqlite3.connect(convo.paths["db"]) as conn:
        assert conn.execute("SELECT status FROM steps WHERE idx = ?", (last,)).fetchone() == (7,)
    conn.close()
    assert [json.loads(line)["status"] for line in _transcripts(convo)[1].read_text().splitlines()][last] == "ERROR"
    report = C.check([root.path])
    assert report.exit_code == 0 and violations(report) == []
    for path in _transcripts(convo):
        _rewrite(path, lambda r: r.update(status="CANCELLED") if r["step_index"] == last else None)
    assert violations(C.check([root.path])) == [
        (convo.id, "consistency/status", last, name) for name in ("transcript.jsonl", "transcript_full.jsonl")
    ]


def test_two_final_statuses_disagree(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=1)
    for path in _transcripts(convo):
        _rewrite(path, lambda r: r.update(status="CANCELLED") if r["step_index"] == 0 else None)
    assert violations(C.check([root.path])) == [
        (convo.id, "consistency/status", 0, name) for name in ("transcript.jsonl", "transcript_full.jsonl")
    ]


def test_steps_beyond_a_db_with_its_wal_say_the_db_lags(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=2)
    doc = copy.deepcopy(convo.trajectory)
    del doc["steps"][-1]
    _rewrite_db(convo, doc)
    [result] = C.check([root.path]).results
    assert result.verdict == C.CONSISTENT
    n = len(convo.steps)
    assert [f.message for f in result.warnings if f.rule == "consistency/beyond"] == [
        f"{tier} transcript has 1 step(s) beyond the last .db step {n - 2} (from {n - 1}); "
        "the .db lags its transcript (a session in progress, or a copy taken before the last commit)"
        for tier in ("compact", "full")
    ]


def test_an_unreadable_transcript_is_exit_2(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=1)
    full = _logs(convo) / "transcript_full.jsonl"
    elsewhere = full.with_name("elsewhere.jsonl")
    full.rename(elsewhere)
    full.symlink_to(elsewhere)
    report = C.check([root.path])
    [result] = report.results
    assert report.exit_code == 2 and result.verdict == C.UNREADABLE
    assert [(f.rule, f.file) for f in result.errors] == [("unreadable", str(full))]
    assert result.joined == {"compact": len(convo.steps), "full": 0}


def test_the_overview_carries_no_thinking_and_may_omit_tool_calls(builder):
    root = builder.root("cli")
    convo = root.conversation(turns=2)
    full = [json.loads(line) for line in (_logs(convo) / "transcript_full.jsonl").read_text().splitlines()]
    overview = [
        {k: v for k, v in r.items() if k not in ("thinking", "tool_calls")}
        for r in full
        if r["type"] in ("USER_INPUT", "PLANNER_RESPONSE")
    ]
    (_logs(convo) / "overview.txt").write_text("".join(dumps(r, indent=None) + "\n" for r in overview))
    report = C.check([root.path])
    assert report.exit_code == 0 and violations(report) == []
    assert report.results[0].joined["overview"] == len(overview)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kinds=st.sets(st.sampled_from(KINDS)), seed=st.integers(0, 2**16))
def test_any_set_of_planted_disagreements_is_reported_exactly(tmp_path_factory, kinds, seed):
    builder = StoreBuilder(tmp_path_factory.mktemp("planted") / "home", seed=seed)
    root = builder.root("cli")
    convo = root.conversation(
        steps=rich_steps(builder, turns=10),
        disagreements=kinds,
        transcript_anomalies={"truncated"} if seed % 2 else frozenset(),
    )
    report = C.check([root.path])
    found = violations(report)
    planted = sorted((convo.id, p.rule, p.step) for p in convo.planted)
    assert [v[:3] for v in found if v[3] == "transcript_full.jsonl"] == planted
    compact = [v[:3] for v in found if v[3] == "transcript.jsonl"]
    if seed % 2:  # compact values cut at 64 characters may hide what was planted behind the marker
        assert set(compact) <= set(planted)
    else:
        assert compact == planted
    assert report.exit_code == (1 if kinds else 0)


def test_an_absent_status_is_unspecified_on_both_sides(builder):
    root = builder.root("cli")
    steps = T.conversation_steps(builder.rng, builder.clock, 1)
    del steps[0]["status"]  # proto3 JSON drops UNSPECIFIED
    convo = root.conversation(steps=steps, disagreements={"prompt"})
    for path in _transcripts(convo):
        _rewrite(path, lambda r: r.pop("status") if r["step_index"] == 0 else None)
    report = C.check([root.path])
    assert violations(report) == [
        (convo.id, "consistency/prompt", 0, name) for name in ("transcript.jsonl", "transcript_full.jsonl")
    ]
    steps = T.conversation_steps(builder.rng, builder.clock, 1)
    convo = root.conversation(steps=steps)
    for path in _transcripts(convo):
        _rewrite(path, lambda r: r.pop("status") if r["step_index"] == 0 else None)
    lagging = [f.message for r in C.check([root.path]).results if r.id == convo.id for f in r.warnings]
    assert lagging == [
        f"step 0 (USER_INPUT) status: .db DONE, {tier} transcript UNSPECIFIED; content not compared"
        for tier in ("compact", "full")
    ]


@pytest.mark.parametrize("browser", [True, False])
@pytest.mark.parametrize("unnamed_enums", [True, False])
def test_every_real_shape_of_part_b_is_consistent_with_its_transcripts(builder, browser, unnamed_enums):
    root = builder.root("ide")
    steps = T.every_shape_steps(builder.rng, builder.clock, browser=browser, unnamed_enums=unnamed_enums)
    convo = root.conversation(steps=steps)
    report = C.check([root.path])
    [result] = report.results
    assert report.exit_code == 0 and result.findings == []
    assert result.joined == {"compact": len(convo.steps), "full": len(convo.steps)}


def test_planted_disagreements_in_every_real_shape(builder):
    root = builder.root("ide")
    steps = T.every_shape_steps(builder.rng, builder.clock, browser=False, unnamed_enums=False)
    steps += rich_steps(builder)
    convo = root.conversation(steps=steps, disagreements=set(KINDS))
    expected = sorted(
        (convo.id, p.rule, p.step, name) for p in convo.planted for name in ("transcript.jsonl", "transcript_full.jsonl")
    )
    assert violations(C.check([root.path])) == expected


def test_the_committed_sample_holds_one_disagreement_and_every_db_reads():
    """examples/home: the planted thinking disagreement (both tiers), the documented advisories,
    and no unreadable .db (a -wal and -shm from different generations would be)."""
    home = Path(__file__).resolve().parents[2] / "examples" / "home"
    report = C.check_roots(resolve_roots(home=home))
    assert report.counts()[C.UNREADABLE] == 0 and report.exit_code == 1
    assert [
        (r.id[:8], rule, step, name) for r_id, rule, step, name in violations(report) for r in report.results if r.id == r_id
    ] == [
        ("70b3e08a", "consistency/thinking", 1, "transcript.jsonl"),
        ("70b3e08a", "consistency/thinking", 1, "transcript_full.jsonl"),
    ]
    assert sorted({f.rule for r in report.results for f in r.warnings}) == [
        "consistency/beyond",
        "consistency/gap",  # overview.txt holds only prompts and answers (audit.testing.realworld)
        "consistency/status-lag",
        "transcript/window/late",
    ]


@pytest.mark.parametrize("keep_flat", [True, False])
def test_rolling_chunks_are_read_as_one_stream(builder, keep_flat):
    root = builder.root("cli")
    convo = root.conversation(steps=rich_steps(builder, turns=3), disagreements={"thinking"})
    for name, directory in (("transcript.jsonl", "transcript"), ("transcript_full.jsonl", "transcript_full")):
        flat = _logs(convo) / name
        data = flat.read_bytes()
        chunks = _logs(convo) / "chunks" / directory
        chunks.mkdir(parents=True)
        for n, start in enumerate(range(0, len(data), 700)):  # cut mid-line, as agy does at 102,400 bytes
            (chunks / f"{n:08d}.jsonl").write_bytes(data[start : start + 700])
        if not keep_flat:
            flat.unlink()
    report = C.check([root.path])
    [result] = report.results
    assert result.records == {"compact": len(convo.steps), "full": len(convo.steps)}
    [planted] = convo.planted
    assert sorted((f.rule, f.details.get("step")) for f in result.errors) == [(planted.rule, planted.step)] * 2
    assert all(Path(f.file).parent.name in ("logs", "transcript", "transcript_full") for f in result.errors)


def test_every_real_world_transcript_case_is_consistent_with_its_db(builder):
    """Part A's cases (chunks crossing a boundary, typed native arguments in the full tier, error
    codes, windows, an overview before them, a cut argument, a RUNNING line): advisories only."""
    from audit.testing.realworld import add_real_world

    convos = add_real_world(builder, long_answers=1)
    report = C.check_roots(resolve_roots(home=builder.home))
    assert report.exit_code == 0 and report.counts() == {C.CONSISTENT: 2, C.INCONSISTENT: 0, C.UNREADABLE: 0}
    names = {c.id: name for name, c in convos.items()}
    tiers, _ = C.read_tiers(convos["windows"].paths["brain"])
    running = {(t, i) for t, found in tiers.items() for i, r in found.latest.items() if r.status == "RUNNING"}
    assert len({i for _, i in running}) == 1  # the one RUNNING line, in the tiers whose window holds it
    found = sorted((names[r.id], f.rule, f.details.get("step")) for r in report.results for f in r.findings)
    assert found == sorted(
        [
            ("windows", "transcript/window/late", None),  # compact
            ("windows", "transcript/window/late", None),  # full, later still
            ("windows", "consistency/gap", None),  # the overview holds only prompts and answers
            *(("windows", "consistency/status-lag", i) for _, i in running),
        ]
    )
    chunked = next(r for r in report.results if names[r.id] == "chunked")
    assert chunked.joined == {"compact": chunked.db_steps, "full": chunked.db_steps}
