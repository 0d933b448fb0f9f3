"""Issue 28, done-when: no false failures on the shapes real stores hold that the bundled baselines
never saw. On a builder store with a browser sub-agent step and its sub-trajectory, an image on a
prompt, enum values our .proto cannot name (a prompt section's source type 4, in a generation
row: below the sidecar surface's opaque ``generatorMetadata``, so the values surface names it, not
an ``enum-number`` line; and a stop reason this test plants, which is one) and the transcript properties every real store shows
(a truncated compact argument, a step agy never wrote to its transcripts, a record written when
its step finished: inverted order, time going backwards), ``ci --source native`` passes with
advisories and ``inspect`` exits 0 with notes; a real type change (string -> object) still fails."""

from __future__ import annotations

import json

import pytest

from audit.actions import baseline_writer
from audit.actions.sweep import sweep
from audit.checks.drift import compare, fingerprints_to_compare
from audit.checks.fingerprint import Fingerprint, fingerprint_paths
from audit.cli import main
from audit.store.layout import Root
from audit.testing import StoreBuilder
from audit.testing import trajectories as T
from tests.output_schema import ci_result, envelope

PROVIDER = "steps.[].searchWeb.thirdPartyConfig.provider"
ANOMALIES = {"truncated-arg", "step-gap", "inverted-step"}


UNNAMED_STOP_REASON = 77
"""Planted by this test (no store is known to hold it): a stop reason newer than ``cortex.proto``,
on the sidecar surface, where the number and the names are one type (``enum-number``)."""


def _store(home, anomalies=frozenset()):
    b = StoreBuilder(home, seed=28)
    steps = T.every_shape_steps(b.rng, b.clock)
    planner = next(s for s in steps if s["type"] == f"{T.STEP}PLANNER_RESPONSE")
    planner["plannerResponse"]["stopReason"] = UNNAMED_STOP_REASON
    return b.root("ide").conversation(steps=steps, transcript_anomalies=anomalies)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    home = tmp_path_factory.mktemp("issue28")
    return home, _store(home, ANOMALIES)


def _ci(capsys, *args):
    code = main(["ci", "--source", "native", "--format", "json", *args])
    report = ci_result(envelope(capsys.readouterr().out, "ci"))
    return code, {c["name"]: c for stage in report["stages"] for c in stage["checks"] if stage["name"] == "compare"}, report


def test_a_first_ci_passes_with_advisories(store, tmp_path, capsys):
    home, _ = store
    code, compared, report = _ci(capsys, "--home", str(home), "--out", str(tmp_path / "corpus"), "--fail-on", "breaking")
    assert (code, report["verdict"]) == (0, "pass"), [
        (c["name"], c["verdict"]) for s in report["stages"] for c in s["checks"] if c["verdict"] == "fail"
    ]
    for target in ("corpus sidecar", "live sidecar"):
        check = compared[target]
        assert (check["verdict"], check["errors"], check["warnings"]) == ("pass", 0, 39)
        assert {k: n for k, n in check["counts"].items() if n and k != "not-observed"} == {
            "enum-number": 1,
            "not-in-baseline": 38,
        }
        assert check["summary"].startswith("DRIFT: 1 enum-number, 38 not-in-baseline; advisory, not a failure"), check["summary"]
    stages = {s["name"]: (s["verdict"], s["errors"]) for s in report["stages"]}
    assert all(verdict == "pass" and errors == 0 for verdict, errors in stages.values()), stages
    assert {s["name"]: s["warnings"] > 0 for s in report["stages"]}["consistency"]  # the step agy never wrote

    assert main(["compare", "--baseline", "agy-1.2.11", "--format", "json", str(tmp_path / "corpus")]) == 0
    surfaces = {s["surface"]: s for s in json.loads(capsys.readouterr().out)["result"]["surfaces"]}
    values = surfaces["values"]  # the unnamed number, beside the names, as an advisory value-added
    assert (values["status"], values["counts"]["value-added"]) == ("DRIFT", 19)
    reason = "sidecar:steps.[].plannerResponse.stopReason"
    assert {c["path"]: (c["class"], c["current"]) for c in values["changes"] if c["path"] == reason} == {
        reason: ("value-added", f"{UNNAMED_STOP_REASON}|STOP_REASON_CLIENT_STREAM_ERROR|STOP_REASON_STOP_PATTERN")
    }
    assert "advisory, not a failure: agy-1.2.11's values lines are synthetic" in values["reason"]
    sections = "sidecar:generatorMetadata.[].chatModel.promptSections.[]"
    assert {c["path"]: (c["class"], c["current"]) for c in values["changes"] if c["path"].startswith(sections)} == {
        f"{sections}.metadata.sourceType": ("value-added", "4|PROMPT_SECTION_SOURCE_TYPE_TEMPLATE"),
        f"{sections}.tokenSource": ("value-added", "TOKEN_SOURCE_SYSTEM"),
        f"{sections}.tokenType": ("value-added", "TOKEN_TYPE_SYSTEM_PROMPT"),
    }
    surface = surfaces["sidecar"]
    changes = [c for c in surface["changes"] if c["class"] != "not-observed"]
    assert {c["class"] for c in changes} == {"not-in-baseline", "enum-number"}
    assert [(c["path"], c["baseline"], c["current"], c["note"]) for c in changes if c["class"] == "enum-number"] == [
        (
            "steps.[].plannerResponse.stopReason",
            "string",
            "number|string",
            f"StopReason {UNNAMED_STOP_REASON}: cortex.proto names no such value, so it is written as its number; "
            "the other side writes the same enum by name",
        )
    ]
    beyond = {c["path"]: c["note"] for c in changes if c["class"] == "not-in-baseline"}
    browser = "only in CORTEX_STEP_TYPE_BROWSER_SUBAGENT steps, a type agy-1.2.11 never observed"
    assert sorted(p for p, note in beyond.items() if note == browser) == [
        *(f"steps.[].browserSubagent{k}" for k in ("", ".recordingName", ".result", ".task", ".taskName", ".taskSummary")),
        *(
            f"steps.[].subtrajectory{k}"
            for k in (
                "",
                ".cascadeId",
                ".parentReferences",
                ".parentReferences.[]",
                ".parentReferences.[].referenceType",
                ".parentReferences.[].stepType",
                ".parentReferences.[].trajectoryId",
                ".steps",
                ".steps.[]",
                ".steps.[].metadata",
                ".steps.[].metadata.createdAt",
                ".steps.[].metadata.source",
                ".steps.[].plannerResponse",
                ".steps.[].plannerResponse.messageId",
                ".steps.[].plannerResponse.response",
                ".steps.[].plannerResponse.stopReason",
                ".steps.[].status",
                ".steps.[].type",
                ".steps.[].userInput",
                ".steps.[].userInput.items",
                ".steps.[].userInput.items.[]",
                ".steps.[].userInput.items.[].text",
                ".steps.[].userInput.userResponse",
                ".trajectoryId",
                ".trajectoryType",
            )
        ),
    ]
    media = {p: note for p, note in beyond.items() if note != browser}
    assert list(media) == ["steps.[].userInput.media", "steps.[].userInput.media.[]"] + [
        f"steps.[].userInput.media.[].{key}" for key in ("description", "inlineData", "mimeType", "thumbnail", "uri")
    ]
    assert all(note.startswith("known beyond agy-1.2.11's record: media attached to a prompt") for note in media.values())


def test_a_step_type_is_judged_by_whose_corpus_the_baseline_came_from(store, tmp_path):
    """Against lines imported from another corpus, a path only steps of a type it never held carry
    is not-in-baseline; against a baseline recorded from these stores, a new step type is drift."""
    home, _ = store
    corpus = tmp_path / "corpus"
    assert sweep([Root(home / ".gemini" / "antigravity", "ide", True)], corpus, source="native", env={}).complete
    recorded = baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([corpus]), "2026-12-01")
    browser = "CORTEX_STEP_TYPE_BROWSER_SUBAGENT"
    del recorded.counts["stepTypes"][browser]  # as if recorded before the browser sub-agent was used
    kept = tuple(line for line in recorded.lines["sidecar"] if not line.startswith(("steps.[].browserSubagent", "steps.[].sub")))
    recorded.lines["sidecar"], recorded.digests["sidecar"] = kept, Fingerprint.of("sidecar", kept).digest
    assert browser not in recorded.step_types
    observed = fingerprints_to_compare([corpus], ("sidecar",))
    own = compare(recorded, observed).surfaces[0]
    assert {c.kind for c in own.changes} == {"added"} and len(own.changes) == 31 and not own.advisory
    recorded.provenance["sidecar"] = "imported from a published record (a test)"
    imported = compare(recorded, observed).surfaces[0]
    assert {c.kind for c in imported.changes if c.kind != "not-observed"} == {"not-in-baseline"} and imported.advisory


def test_inspect_exits_0_with_the_transcript_properties_as_warnings(store, capsys):
    home, convo = store
    assert main(["inspect", convo.id, "--home", str(home)]) == 0
    out = capsys.readouterr().out.replace(str(home), "<home>")
    logs = f"<home>/.gemini/antigravity/brain/{convo.id}/.system_generated/logs/"
    assert out == EXPECTED_INSPECT.format(id=convo.id, logs=logs)


def test_a_real_type_change_still_fails(tmp_path, capsys):
    home = tmp_path / "home"
    convo = _store(home)
    sidecar = convo.paths["sidecar"]
    doc = json.loads(sidecar.read_text())
    step = next(s for s in doc["steps"] if "searchWeb" in s)
    step["searchWeb"]["thirdPartyConfig"]["provider"] = {"id": 2}  # string (by name) -> object
    sidecar.write_text(json.dumps(doc, indent=2) + "\n")
    code, compared, _ = _ci(capsys, "--home", str(home), "--fail-on", "breaking")
    assert code == 1
    live = compared["live sidecar"]
    assert live["verdict"] == "fail" and live["counts"]["type-changed"] == 1
    assert {
        "level": "error",
        "rule": "type-changed",
        "message": f"{PROVIDER}: string -> object",
        "file": None,
        "line": None,
        "column": None,
        "pointer": "",
        "details": {},
    } in live["findings"]
    assert compared["corpus sidecar"]["verdict"] == "pass"  # the .db still holds the provider, exported by name


EXPECTED_INSPECT = """\
id: {id}
database: <home>/.gemini/antigravity/conversations/{id}.db (read ro, user_version 1, internal cascade id {id})
TABLE                     ROWS
battle_mode_infos            0
executor_metadata            2
gen_metadata                15
parent_references            0
steps                       35
trajectory_meta              1
trajectory_metadata_blob     1
STEP TYPE                              STEPS
CORTEX_STEP_TYPE_ASK_QUESTION              1
CORTEX_STEP_TYPE_BROWSER_SUBAGENT          1
CORTEX_STEP_TYPE_CHECKPOINT                1
CORTEX_STEP_TYPE_CODE_ACTION               1
CORTEX_STEP_TYPE_CONVERSATION_HISTORY      1
CORTEX_STEP_TYPE_EPHEMERAL_MESSAGE         1
CORTEX_STEP_TYPE_ERROR_MESSAGE             1
CORTEX_STEP_TYPE_GENERATE_IMAGE            1
CORTEX_STEP_TYPE_GENERIC                   1
CORTEX_STEP_TYPE_GREP_SEARCH               1
CORTEX_STEP_TYPE_LIST_DIRECTORY            1
CORTEX_STEP_TYPE_PLANNER_RESPONSE         15
CORTEX_STEP_TYPE_READ_URL_CONTENT          1
CORTEX_STEP_TYPE_RUN_COMMAND               2
CORTEX_STEP_TYPE_SEARCH_WEB                1
CORTEX_STEP_TYPE_SYSTEM_MESSAGE            1
CORTEX_STEP_TYPE_USER_INPUT                2
CORTEX_STEP_TYPE_VIEW_FILE                 2
STATUS                    STEPS
CORTEX_STEP_STATUS_DONE      34
CORTEX_STEP_STATUS_ERROR      1
UNKNOWN PROTOBUF FIELD                                               ROWS  COUNT  PROJECTED
gen_metadata.data: 1.16.4.1:enum=4                                      1      1  no
steps.step_payload/CORTEX_STEP_TYPE_PLANNER_RESPONSE: 20.12:enum=77     1      1  no
transcripts: <home>/.gemini/antigravity/brain/{id} (1 compact file(s), 1 full file(s), 34 records)
TYPE                  RECORDS
ASK_QUESTION                1
BROWSER_SUBAGENT            1
CHECKPOINT                  1
CODE_ACTION                 1
CONVERSATION_HISTORY        1
EPHEMERAL_MESSAGE           1
GENERATE_IMAGE              1
GENERIC                     1
GREP_SEARCH                 1
LIST_DIRECTORY              1
PLANNER_RESPONSE           15
READ_URL_CONTENT            1
RUN_COMMAND                 2
SEARCH_WEB                  1
SYSTEM_MESSAGE              1
USER_INPUT                  2
VIEW_FILE                   2
RULE                            FINDINGS
transcript/args/truncated              1
transcript/created_at/backward         2
transcript/step-gap                    4
transcript/step-order                  2
{logs}transcript.jsonl:6: warning: [transcript/step-gap] step_index 6 after 4; 1 skipped
{logs}transcript.jsonl:7: warning: [transcript/step-order] step_index 5 after 6
{logs}transcript.jsonl:7: warning: [transcript/created_at/backward] created_at 2026-09-01T09:00:45Z is before 2026-09-01T09:00:59Z of the line before
{logs}transcript.jsonl:26: warning: [transcript/args/truncated] /tool_calls/0/args/toolAction: tool_calls/0/args/toolAction is cut by <truncated 14 bytes>; not JSON text (invalid JSON at line 1 column 7: Invalid control character at)
{logs}transcript.jsonl:33: warning: [transcript/step-gap] step_index 33 after 31; 1 skipped
{logs}transcript_full.jsonl:6: warning: [transcript/step-gap] step_index 6 after 4; 1 skipped
{logs}transcript_full.jsonl:7: warning: [transcript/step-order] step_index 5 after 6
{logs}transcript_full.jsonl:7: warning: [transcript/created_at/backward] created_at 2026-09-01T09:00:45Z is before 2026-09-01T09:00:59Z of the line before
{logs}transcript_full.jsonl:33: warning: [transcript/step-gap] step_index 33 after 31; 1 skipped
0 error(s), 9 warning(s); notes (do not fail): 2 unknown protobuf field(s)
"""
