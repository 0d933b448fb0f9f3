from __future__ import annotations

import base64
import copy
import sqlite3
import tempfile
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from google.protobuf import duration_pb2, json_format
from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.internal import type_checkers
from hypothesis import given, settings
from hypothesis import strategies as st

import audit.store.proto
from audit.store.proto import cortex_pb2 as pb
from audit.store.proto import json_paths
from audit.store.trajectory import read_trajectory
from audit.testing.dbwriter import write_conversation_db
from tests.store.test_wire import CODEBURN_GEN_METADATA, CODEBURN_GEN_METADATA_JSON

# ------------------------------------------------------------------ sidecar-shaped strategies
# Canonical proto3 JSON for any message of the schema: only non-default values (proto3 JSON
# omits defaults), int64 as decimal strings, timestamps with nine fractional digits.

_INT_RANGES = {
    FieldDescriptor.TYPE_INT32: (-(2**31), 2**31 - 1),
    FieldDescriptor.TYPE_UINT32: (0, 2**32 - 1),
    FieldDescriptor.TYPE_INT64: (-(2**63), 2**63 - 1),
    FieldDescriptor.TYPE_UINT64: (0, 2**64 - 1),
}
_STRING_INTS = {FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64}

_timestamps = st.builds(
    lambda dt, nanos: f"{dt.year:04d}-{dt:%m-%dT%H:%M:%S}.{nanos:09d}Z",
    st.datetimes(),
    st.integers(0, 10**9 - 1),
)
_durations = st.builds(
    lambda s, n: duration_pb2.Duration(seconds=s, nanos=n).ToJsonString(),
    st.integers(0, 10**8),
    st.integers(0, 10**9 - 1),
)


def _scalar(fd: FieldDescriptor) -> st.SearchStrategy:
    if fd.message_type is not None:
        name = fd.message_type.full_name
        if name == "google.protobuf.Timestamp":
            return _timestamps
        if name == "google.protobuf.Duration":
            return _durations
        return st.deferred(lambda: _messages(fd.message_type))
    if fd.type == FieldDescriptor.TYPE_STRING:
        return st.text(min_size=1, max_size=12)
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return st.binary(min_size=1, max_size=12).map(lambda b: base64.b64encode(b).decode())
    if fd.type == FieldDescriptor.TYPE_BOOL:
        return st.just(True)
    if fd.enum_type is not None:
        return st.sampled_from([v.name for v in fd.enum_type.values if v.number])
    if fd.type == FieldDescriptor.TYPE_DOUBLE:  # finite, non-zero (proto3 JSON omits 0.0; -0.0 is not kept as such)
        return st.floats(allow_nan=False, allow_infinity=False).filter(bool)
    if fd.type == FieldDescriptor.TYPE_FLOAT:  # the same, 32-bit, as the shortest text that reads back as it (MessageToDict's)
        return st.floats(allow_nan=False, allow_infinity=False, width=32).filter(bool).map(type_checkers.ToShortestFloat)
    low, high = _INT_RANGES[fd.type]
    ints = st.integers(low, high)
    if not fd.has_presence:
        ints = ints.filter(bool)
    return ints.map(str) if fd.type in _STRING_INTS else ints


def _value(fd: FieldDescriptor) -> st.SearchStrategy:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        return st.dictionaries(st.text(max_size=6), st.text(max_size=6), min_size=1, max_size=2)
    if fd.is_repeated:
        return st.lists(_scalar(fd), min_size=1, max_size=2)
    return _scalar(fd)


def _messages(descriptor: Descriptor) -> st.SearchStrategy[dict]:
    real_oneofs = [o for o in descriptor.oneofs if o.name != "_" + o.fields[0].name]
    in_oneof = {fd.name for o in real_oneofs for fd in o.fields}
    plain = st.fixed_dictionaries(
        {},
        optional={
            fd.json_name: _value(fd)
            for fd in descriptor.fields
            if fd.name not in in_oneof and not (fd.enum_type and len(fd.enum_type.values) == 1)  # stopReason
        },
    )
    choices = [
        st.one_of(st.just({}), *(_value(fd).map(lambda v, k=fd.json_name: {k: v}) for fd in o.fields)) for o in real_oneofs
    ]
    return st.tuples(plain, *choices).map(lambda parts: {k: v for part in parts for k, v in part.items()})


_trajectories = st.one_of(  # whole trajectories, and step lists, where most of the keys are
    _messages(pb.Trajectory.DESCRIPTOR),
    st.lists(_messages(pb.Step.DESCRIPTOR), min_size=1, max_size=4).map(lambda steps: {"steps": steps}),
)


@settings(max_examples=50, deadline=None)
@given(_trajectories, st.data())
def test_any_sidecar_shaped_trajectory_survives_db_round_trip(doc, data):
    steps = len(doc.get("steps", []))
    wal = data.draw(st.booleans(), label="wal")
    pending = data.draw(st.integers(0, steps), label="uncheckpointed") if wal else 0
    unknown = data.draw(st.booleans(), label="unknown_fields")
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "1b7e3c2a-9f4d-4e8b-a6c5-0d1e2f3a4b5c.db"
        write_conversation_db(path, doc, wal=wal, uncheckpointed_steps=pending, unknown_fields=unknown)
        result = read_trajectory(path)
    assert result.findings == []
    assert result.trajectory == doc
    assert result.file_id == "1b7e3c2a-9f4d-4e8b-a6c5-0d1e2f3a4b5c"
    assert result.internal_cascade_id == doc.get("cascadeId", "")
    expected = (
        Counter(
            f"steps.step_payload/{step.get('type', 'CORTEX_STEP_TYPE_UNSPECIFIED')}: 999:varint" for step in doc.get("steps", [])
        )
        if unknown
        else Counter()
    )
    assert result.unknown_fields == expected


# ----------------------------------------------------------------------- a realistic sidecar

SIDECAR = {
    "trajectoryId": "11111111-1111-4111-8111-111111111111",
    "cascadeId": "22222222-2222-4222-8222-222222222222",
    "trajectoryType": "CORTEX_TRAJECTORY_TYPE_CASCADE",
    "source": "CORTEX_TRAJECTORY_SOURCE_CLI",
    "steps": [
        {
            "type": "CORTEX_STEP_TYPE_USER_INPUT",
            "status": "CORTEX_STEP_STATUS_DONE",
            "metadata": {"createdAt": "2026-01-01T00:00:00.000000000Z", "source": "CORTEX_STEP_SOURCE_USER_EXPLICIT"},
            "userInput": {"userResponse": "list the files", "items": [{"text": "list the files"}]},
        },
        {
            "type": "CORTEX_STEP_TYPE_PLANNER_RESPONSE",
            "status": "CORTEX_STEP_STATUS_DONE",
            "metadata": {
                "createdAt": "2026-01-01T00:00:01.100000000Z",
                "completedAt": "2026-01-01T00:00:02.000000001Z",
                "finishedGeneratingAt": "2026-01-01T00:00:01.900000000Z",
                "viewableAt": "2026-01-01T00:00:01.200000000Z",
                "source": "CORTEX_STEP_SOURCE_MODEL",
                "executionId": "33333333-3333-4333-8333-333333333333",
                "generatorModel": "MODEL_PLACEHOLDER_M16",
                "modelUsage": {
                    "model": "MODEL_PLACEHOLDER_M16",
                    "inputTokens": "30265",
                    "outputTokens": "730",
                    "thinkingOutputTokens": "659",
                    "responseOutputTokens": "71",
                    "cacheReadTokens": "1024",
                    "apiProvider": "API_PROVIDER_GOOGLE_GEMINI",
                    "responseId": "resp-1",
                },
                "sourceTrajectoryStepInfo": {
                    "trajectoryId": "11111111-1111-4111-8111-111111111111",
                    "stepIndex": 5,
                    "metadataIndex": 1,
                    "cascadeId": "22222222-2222-4222-8222-222222222222",
                },
                "internalMetadata": {
                    "statusTransitions": [
                        {"updatedStatus": "CORTEX_STEP_STATUS_RUNNING", "timestamp": "2026-01-01T00:00:01.100000000Z"},
                        {"updatedStatus": "CORTEX_STEP_STATUS_DONE", "timestamp": "2026-01-01T00:00:02.000000000Z"},
                    ]
                },
            },
            "plannerResponse": {
                "response": "Running ls.",
                "modifiedResponse": "Running ls.",
                "thinking": "Use ls.",
                "thinkingSignature": "c2lnbmF0dXJl",
                "messageId": "44444444-4444-4444-8444-444444444444",
                "stopReason": "CORTEX_STOP_REASON_TOOL_USE",
                "toolCalls": [{"id": "call-1", "name": "run_command", "argumentsJson": '{"CommandLine":"ls"}'}],
            },
        },
        {
            "type": "CORTEX_STEP_TYPE_RUN_COMMAND",
            "status": "CORTEX_STEP_STATUS_DONE",
            "metadata": {
                "createdAt": "2026-01-01T00:00:03.000000000Z",
                "executionId": "call-1",
                "toolCall": {"id": "call-1", "name": "run_command", "argumentsJson": '{"CommandLine":"ls"}'},
            },
            "runCommand": {
                "commandLine": "ls",
                "proposedCommandLine": "ls",
                "cwd": "/work",
                "exitCode": 0,
                "combinedOutput": {"full": "a\nb\n"},
                "waitMsBeforeAsync": "5000",
            },
        },
        {
            "type": "CORTEX_STEP_TYPE_INVOKE_SUBAGENT",
            "status": "CORTEX_STEP_STATUS_DONE",
            "metadata": {"createdAt": "2026-01-01T00:00:04.000000000Z"},
            "invokeSubagent": {
                "subagents": [{"typeName": "general", "role": "Researcher", "initialPrompt": "look"}],
                "results": [{"conversationId": "55555555-5555-4555-8555-555555555555", "workspaceUris": ["file:///w"]}],
            },
        },
        {
            "type": "CORTEX_STEP_TYPE_LIST_DIRECTORY",
            "status": "CORTEX_STEP_STATUS_ERROR",
            "metadata": {"createdAt": "2026-01-01T00:00:05.000000000Z"},
            "listDirectory": {"directoryPathUri": "file:///w", "results": [{"name": "a", "isDir": True, "sizeBytes": "12"}]},
        },
    ],
    "generatorMetadata": [
        {
            "stepIndices": [1],
            "executionId": "33333333-3333-4333-8333-333333333333",
            "chatModel": {
                "model": "MODEL_PLACEHOLDER_M16",
                "responseModel": "gemini-pro-default",
                "displayName": "Gemini 3.1 Pro (High)",
                "usage": {"inputTokens": "30265", "outputTokens": "730"},
                "chatStartMetadata": {"createdAt": "2026-01-01T00:00:01.000000000Z"},
            },
            "plannerConfig": {
                "customizationConfig": {"agentPath": "file:///home/u/.gemini/antigravity-cli/brain/x/.agents/agents/a"}
            },
        }
    ],
    "executorMetadatas": [
        {
            "terminationReason": "EXECUTOR_TERMINATION_REASON_NO_TOOL_CALL",
            "numGeneratorInvocations": 1,
            "lastStepIdx": 4,
            "executionId": "33333333-3333-4333-8333-333333333333",
            "cascadeConfig": {"plannerConfig": {"customizationConfig": {"agentPath": "file:///a"}}},
        }
    ],
    "metadata": {
        "createdAt": "2026-01-01T00:00:00.000000000Z",
        "workspaces": [{"workspaceFolderAbsoluteUri": "file:///w", "gitRootAbsoluteUri": "file:///w", "branchName": "main"}],
        "parentConversationId": "66666666-6666-4666-8666-666666666666",
    },
    "agyReader": {"parentCascadeId": "66666666-6666-4666-8666-666666666666"},
}


def test_a_realistic_sidecar_round_trips_except_its_sidecar_only_keys(tmp_path):
    path = tmp_path / "22222222-2222-4222-8222-222222222222.db"
    write_conversation_db(path, SIDECAR, internal_cascade_id="77777777-7777-4777-8777-777777777777")
    result = read_trajectory(path)
    expected = copy.deepcopy(SIDECAR)
    del expected["agyReader"]
    del expected["steps"][1]["plannerResponse"]["stopReason"]  # CORTEX_STOP_REASON_* names have no numbers
    expected["steps"][3]["invokeSubagent"] = {}  # subagents[]/results[]: field numbers unknown
    expected["cascadeId"] = "77777777-7777-4777-8777-777777777777"  # trajectory_meta wins
    assert result.trajectory == expected
    assert list(result.trajectory) == [
        "trajectoryId",
        "cascadeId",
        "trajectoryType",
        "source",
        "steps",
        "generatorMetadata",
        "executorMetadatas",
        "metadata",
    ]
    assert (result.file_id, result.internal_cascade_id) == (
        "22222222-2222-4222-8222-222222222222",
        "77777777-7777-4777-8777-777777777777",
    )
    assert (result.findings, result.unknown_fields) == ([], Counter())


def test_step_types_without_a_name_are_numbers_and_bad_writer_arguments_raise(tmp_path):
    doc = {"steps": [{"type": 250, "status": "CORTEX_STEP_STATUS_DONE", "generic": {"args": {"Message": "hi"}}}]}
    write_conversation_db(tmp_path / "a.db", doc)
    result = read_trajectory(tmp_path / "a.db")
    assert result.trajectory == doc
    assert result.unknown_fields == Counter({"steps.step_payload/250: 1:enum=250": 1})
    with pytest.raises(ValueError, match=r"steps\[0\].type: 'CORTEX_STEP_TYPE_HOLOGRAM' has no known number"):
        write_conversation_db(tmp_path / "b.db", {"steps": [{"type": "CORTEX_STEP_TYPE_HOLOGRAM"}]})
    with pytest.raises(ValueError, match="uncheckpointed_steps needs wal=True"):
        write_conversation_db(tmp_path / "c.db", doc, uncheckpointed_steps=1)
    with pytest.raises(ValueError, match=r"uncheckpointed_steps=2, but there are 1 steps"):
        write_conversation_db(tmp_path / "c.db", doc, wal=True, uncheckpointed_steps=2)
    (tmp_path / "d.db-wal").write_bytes(b"")
    with pytest.raises(ValueError, match=r"d.db: leftover -wal beside the new database"):
        write_conversation_db(tmp_path / "d.db", doc)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.db", "d.db-wal"]


def test_codeburn_gen_metadata_row_reconstructs(tmp_path):
    path = tmp_path / "fixture.db"
    write_conversation_db(path, {"trajectoryId": "t"})
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO gen_metadata (idx, data, size) VALUES (0, ?, ?)", (CODEBURN_GEN_METADATA, len(CODEBURN_GEN_METADATA))
        )
    conn.close()
    result = read_trajectory(path)
    assert result.trajectory["generatorMetadata"] == [CODEBURN_GEN_METADATA_JSON]
    assert result.unknown_fields == Counter()


def _steps(n: int) -> dict:
    return {
        "trajectoryId": "t1",
        "cascadeId": "c1",
        "steps": [
            {
                "type": "CORTEX_STEP_TYPE_SYSTEM_MESSAGE",
                "status": "CORTEX_STEP_STATUS_DONE",
                "metadata": {"createdAt": f"2026-01-01T00:00:{i:02d}.000000000Z"},
                "systemMessage": {"message": f"m{i}"},
            }
            for i in range(n)
        ],
        "generatorMetadata": [{"executionId": "g0"}, {"executionId": "g1"}, {"executionId": "g2"}],
    }


def test_damaged_rows_are_findings_and_columns_fill_gaps(tmp_path):
    path = tmp_path / "damaged.db"
    write_conversation_db(path, _steps(8))
    other_metadata = pb.CortexStepMetadata(execution_id="other").SerializeToString()
    bad_timestamp = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE, status=pb.CORTEX_STEP_STATUS_DONE)
    bad_timestamp.metadata.created_at.seconds = 10**12
    with sqlite3.connect(path) as conn:
        conn.executescript("""
            UPDATE steps SET step_payload = NULL WHERE idx = 0;
            UPDATE steps SET step_type = 99 WHERE idx = 1;
            UPDATE steps SET step_payload = x'ffff', metadata = NULL WHERE idx = 2;
            UPDATE steps SET step_format = 2, render_info = x'00' WHERE idx = 4;
            DELETE FROM steps WHERE idx = 6;
            UPDATE gen_metadata SET data = NULL WHERE idx = 1;
            UPDATE gen_metadata SET data = 'text' WHERE idx = 2;
            INSERT INTO battle_mode_infos VALUES (0, x'08');
            INSERT INTO trajectory_metadata_blob VALUES ('other', x'');
            INSERT INTO trajectory_meta VALUES ('t2', 'c2', 4, 17);
            CREATE TABLE extra (x);
        """)
        conn.execute("UPDATE steps SET metadata = ? WHERE idx = 3", (other_metadata,))
        conn.execute("UPDATE steps SET step_payload = ?, metadata = NULL WHERE idx = 5", (bad_timestamp.SerializeToString(),))
    conn.close()
    result = read_trajectory(path)
    expected = [  # (code, message start, projected?): protobuf's own error texts vary by version
        ("trajectory-meta", "trajectory_meta has 2 rows (expected 1)", False),
        ("step-index", "steps.idx is not 0..6 (row 6 has idx 7)", True),
        ("null-blob", "steps[idx=0].step_payload is NULL; the step is rebuilt from its columns", True),
        ("column-mismatch", "steps[idx=1].step_type = 99 but the payload says 101", True),
        ("undecodable", "steps[idx=2].step_payload is not a valid Step (", True),
        ("column-mismatch", "steps[idx=3].metadata differs from the payload's metadata", True),
        ("step-format", "steps[idx=4].step_format = 2 (only 0 is known)", True),
        ("undecodable", "steps[idx=4].render_info is not a valid StepRenderInfo (", False),
        ("unrenderable", "steps[idx=5] cannot be rendered as JSON (", True),
        ("null-blob", "gen_metadata[idx=1].data is NULL", False),
        ("not-a-blob", "gen_metadata[idx=2].data holds str, not a blob", False),
        ("undecoded-row", "trajectory_metadata_blob[id='other'].data: only id 'main' is known", False),
        ("undecoded-table", "battle_mode_infos: 1 rows not decoded (message unknown)", False),
        ("undecoded-table", "table extra is not part of the known schema", False),
    ]
    assert [(f.code, f.projected) for f in result.findings] == [(code, projected) for code, _, projected in expected]
    for finding, (_, start, _) in zip(result.findings, expected):
        assert finding.message.startswith(f"{path}: {start}"), finding.message
    assert result.projection_findings == [f for f in result.findings if f.projected]
    steps = result.trajectory["steps"]
    assert len(steps) == 7
    assert steps[0] == {  # from the step_type / status / metadata columns
        "type": "CORTEX_STEP_TYPE_SYSTEM_MESSAGE",
        "status": "CORTEX_STEP_STATUS_DONE",
        "metadata": {"createdAt": "2026-01-01T00:00:00.000000000Z"},
    }
    assert steps[1]["type"] == "CORTEX_STEP_TYPE_SYSTEM_MESSAGE"  # the payload wins
    assert steps[2] == {"type": "CORTEX_STEP_TYPE_SYSTEM_MESSAGE", "status": "CORTEX_STEP_STATUS_DONE"}
    assert steps[3]["metadata"] == {"createdAt": "2026-01-01T00:00:03.000000000Z"}
    assert steps[5] == {"type": "CORTEX_STEP_TYPE_SYSTEM_MESSAGE", "status": "CORTEX_STEP_STATUS_DONE"}
    assert result.trajectory["generatorMetadata"] == [{"executionId": "g0"}]
    assert (result.trajectory["trajectoryId"], result.internal_cascade_id) == ("t1", "c1")


def test_an_unreadable_file_gives_an_empty_trajectory_and_its_finding(tmp_path):
    (tmp_path / "x.db").write_bytes(b"not a database at all" * 10)
    result = read_trajectory(tmp_path / "x.db")
    assert (result.trajectory, result.internal_cascade_id, result.file_id) == ({}, None, "x")
    assert [f.code for f in result.findings] == ["not-sqlite"]


# ------------------------------------------------------------------------- the key catalogue


def _catalogue() -> str:
    """The key list of ``audit.store.proto``'s docstring, rebuilt from ``json_paths()``."""
    paths = dict(json_paths())
    groups: dict[str, list[str]] = {}
    for path, kind in paths.items():
        if path.endswith(".[]"):
            continue
        parent, _, key = path.rpartition(".")
        groups.setdefault(parent.replace(".[]", "[]"), []).append(key + {"array": "[]", "object": "{}"}.get(kind, ""))
    return "\n".join(
        textwrap.fill(f"{parent or '.'}: " + ", ".join(groups[parent]), 92, initial_indent="    ", subsequent_indent="        ")
        for parent in sorted(groups, key=lambda p: (p != "", p))
    )


def test_the_documented_key_list_is_the_schema():
    assert _catalogue() in audit.store.proto.__doc__


# Every key the store builder emits (with its JSON type in agy 1.2.10 sidecars) is carried.
BUILDER_KEYS = """
trajectoryId string|cascadeId string|trajectoryType string|source string
steps.[].type string|steps.[].status string|steps.[].metadata.createdAt string
steps.[].metadata.completedAt string|steps.[].metadata.finishedGeneratingAt string
steps.[].metadata.viewableAt string|steps.[].metadata.source string|steps.[].metadata.executionId string
steps.[].metadata.toolCall.id string|steps.[].metadata.toolCall.name string
steps.[].metadata.toolCall.argumentsJson string|steps.[].metadata.modelUsage.model string
steps.[].metadata.modelUsage.inputTokens string|steps.[].metadata.modelUsage.outputTokens string
steps.[].metadata.modelUsage.thinkingOutputTokens string
steps.[].metadata.modelUsage.responseOutputTokens string
steps.[].metadata.modelUsage.cacheReadTokens string|steps.[].metadata.modelUsage.apiProvider string
steps.[].metadata.modelUsage.responseId string|steps.[].metadata.generatorModel string
steps.[].metadata.sourceTrajectoryStepInfo.trajectoryId string
steps.[].metadata.sourceTrajectoryStepInfo.stepIndex number
steps.[].metadata.sourceTrajectoryStepInfo.metadataIndex number
steps.[].metadata.sourceTrajectoryStepInfo.cascadeId string
steps.[].metadata.internalMetadata.statusTransitions.[].updatedStatus string
steps.[].metadata.internalMetadata.statusTransitions.[].timestamp string
steps.[].userInput.userResponse string|steps.[].userInput.items.[].text string
steps.[].plannerResponse.response string|steps.[].plannerResponse.modifiedResponse string
steps.[].plannerResponse.thinking string|steps.[].plannerResponse.thinkingSignature string
steps.[].plannerResponse.messageId string|steps.[].plannerResponse.stopReason string
steps.[].plannerResponse.toolCalls.[].id string|steps.[].plannerResponse.toolCalls.[].name string
steps.[].plannerResponse.toolCalls.[].argumentsJson string
steps.[].runCommand.commandLine string|steps.[].runCommand.proposedCommandLine string
steps.[].runCommand.cwd string|steps.[].runCommand.exitCode number
steps.[].runCommand.combinedOutput.full string|steps.[].runCommand.waitMsBeforeAsync string
steps.[].viewFile.absolutePathUri string|steps.[].viewFile.startLine number
steps.[].viewFile.endLine number|steps.[].viewFile.content string|steps.[].viewFile.numLines number
steps.[].listDirectory.directoryPathUri string|steps.[].listDirectory.results.[].name string
steps.[].listDirectory.results.[].isDir boolean|steps.[].listDirectory.results.[].sizeBytes string
steps.[].codeAction.description string|steps.[].codeAction.actionResult.edit.absoluteUri string
steps.[].codeAction.actionResult.edit.createFile boolean
steps.[].codeAction.actionResult.edit.originalContent string
steps.[].grepSearch.query string|steps.[].grepSearch.results.[].absolutePath string
steps.[].grepSearch.results.[].lineNumber number
steps.[].errorMessage.error.userErrorMessage string|steps.[].errorMessage.error.shortError string
steps.[].errorMessage.error.fullError string|steps.[].errorMessage.error.errorCode number
steps.[].systemMessage.message string|steps.[].checkpoint.checkpointIndex number
steps.[].checkpoint.userIntent string|steps.[].checkpoint.sessionSummary string
steps.[].checkpoint.userRequests.[] string|steps.[].checkpoint.conversationLogUris.[] string
steps.[].ephemeralMessage.content string|steps.[].conversationHistory.content string
steps.[].generic object
generatorMetadata.[].stepIndices.[] number|generatorMetadata.[].chatModel.model string
generatorMetadata.[].chatModel.responseModel string|generatorMetadata.[].chatModel.displayName string
generatorMetadata.[].chatModel.usage.inputTokens string
generatorMetadata.[].chatModel.chatStartMetadata.createdAt string
generatorMetadata.[].executionId string
generatorMetadata.[].plannerConfig.customizationConfig.agentPath string
executorMetadatas.[].terminationReason string|executorMetadatas.[].numGeneratorInvocations number
executorMetadatas.[].lastStepIdx number|executorMetadatas.[].executionId string
executorMetadatas.[].cascadeConfig.plannerConfig.customizationConfig.agentPath string
metadata.createdAt string|metadata.workspaces.[].workspaceFolderAbsoluteUri string
metadata.workspaces.[].gitRootAbsoluteUri string|metadata.workspaces.[].branchName string
"""
SIDECAR_ONLY = (
    "metadata.projectId",
    "steps.[].invokeSubagent.subagents",
    "steps.[].invokeSubagent.results",
    "agyReader",
    "steps.[].taskDetails.requiresInputApproval",
    "steps.[].systemMessage.metadata",
)


def test_every_builder_key_is_carried_with_its_sidecar_type():
    paths = dict(json_paths())
    expected = [tuple(entry.split(" ")) for entry in BUILDER_KEYS.replace("\n", "|").split("|") if entry]
    assert [(path, paths.get(path)) for path, _ in expected] == expected
    assert [path for path in SIDECAR_ONLY if path in paths] == []


def test_the_render_info_column_is_a_generic_steps_render_info(tmp_path):
    info = {"title": "Listed permissions", "markdown": "- command: ls"}
    generic = {"type": "CORTEX_STEP_TYPE_GENERIC", "status": "CORTEX_STEP_STATUS_DONE", "generic": {"args": {"a": "1"}}}
    doc = {"steps": [generic, copy.deepcopy(generic), copy.deepcopy(generic), _steps(1)["steps"][0]]}
    doc["steps"][1]["generic"]["result"] = {"result": "r", "stepRenderInfo": info}
    doc["steps"][2]["generic"]["result"] = {"stepRenderInfo": {"title": "other"}}
    path = tmp_path / "r.db"
    write_conversation_db(path, doc)
    column = json_format.ParseDict(info, pb.StepRenderInfo()).SerializeToString()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE steps SET render_info = ?", (column,))
    conn.close()
    result = read_trajectory(path)
    steps = result.trajectory["steps"]
    assert steps[0]["generic"] == {"args": {"a": "1"}, "result": {"stepRenderInfo": info}}  # filled from the column
    assert steps[1]["generic"]["result"] == {"result": "r", "stepRenderInfo": info}  # the same bytes
    assert [(f.code, f.projected, f.message.split(": ", 1)[1]) for f in result.findings] == [
        ("column-mismatch", False, "steps[idx=2].render_info differs from the payload's generic.result.stepRenderInfo"),
        (
            "undecoded-column",
            False,
            "steps[idx=3].render_info: only GENERIC steps are known to carry it (CORTEX_STEP_TYPE_SYSTEM_MESSAGE)",
        ),
    ]


_UNKNOWN = bytes([0xB8, 0x3E, 0x01])  # field 999, varint 1
_STEP_CELLS = {"metadata": pb.CortexStepMetadata, "error_details": pb.CortexErrorDetails, "render_info": pb.StepRenderInfo}


def _cell_by_cell(path: Path) -> Counter:
    """What the decoder counts, found by walking every cell on its own (``wire.unknown_fields``)."""
    from audit.store.wire import unknown_fields  # noqa: PLC0415

    found: Counter = Counter()

    def add(key: str, message) -> None:
        found.update({f"{key}: {p}": n for p, n in unknown_fields(message).items()})

    conn = sqlite3.connect(path)
    try:
        for row in conn.execute("SELECT step_type, step_payload, metadata, error_details, render_info FROM steps ORDER BY idx"):
            step = pb.Step.FromString(row[1])
            if step.type == 0:
                step.type = row[0]
            kind = pb.CortexStepType.Name(step.type)
            add(f"steps.step_payload/{kind}", step)
            for column, cell in zip(_STEP_CELLS, row[2:]):
                if cell is not None:
                    add(f"steps.{column}/{kind}", _STEP_CELLS[column].FromString(cell))
        for (data,) in conn.execute("SELECT data FROM gen_metadata ORDER BY idx"):
            add("gen_metadata.data", pb.CortexStepGeneratorMetadata.FromString(data))
        for (data,) in conn.execute("SELECT data FROM trajectory_metadata_blob"):
            add("trajectory_metadata_blob.data", pb.CortexTrajectoryMetadata.FromString(data))
    finally:
        conn.close()
    return found


def test_unknown_fields_are_counted_cell_by_cell_though_a_step_is_walked_once(tmp_path):
    """The payload's unknown fields come from the walk that renders it, and a column cell that
    is the payload's field byte for byte from the same walk; the counts are still those of each
    cell walked on its own, per row, also where a column fills or contradicts the payload and
    where the step cannot be rendered."""
    generic = {"type": "CORTEX_STEP_TYPE_GENERIC", "status": "CORTEX_STEP_STATUS_DONE", "generic": {"args": {"a": "1"}}}
    doc = _steps(7)
    doc["steps"] += [copy.deepcopy(generic), copy.deepcopy(generic)]
    doc["steps"][8]["generic"]["result"] = {"stepRenderInfo": {"title": "t"}}
    path = tmp_path / "u.db"
    write_conversation_db(path, doc)

    def payload(idx: int, *, metadata: bytes = b"", tail: bytes = _UNKNOWN, seconds: int | None = None) -> bytes:
        step = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE, status=pb.CORTEX_STEP_STATUS_DONE)
        step.metadata.created_at.seconds = 1_767_225_600 + idx if seconds is None else seconds
        step.metadata.MergeFromString(metadata)
        return step.SerializeToString() + tail

    def metadata_of(data: bytes) -> bytes:
        return pb.Step.FromString(data).metadata.SerializeToString()

    with sqlite3.connect(path) as conn:
        rows = {
            0: payload(0, metadata=_UNKNOWN),  # unknown in the payload's metadata and in its byte-identical column
            1: payload(1, metadata=_UNKNOWN + _UNKNOWN),
            2: payload(2),  # the column adds an unknown field: it differs
            4: payload(4, metadata=_UNKNOWN, seconds=10**12),  # unrenderable
        }
        for idx, data in rows.items():
            conn.execute("UPDATE steps SET step_payload = ?, metadata = ? WHERE idx = ?", (data, metadata_of(data), idx))
        conn.execute("UPDATE steps SET metadata = ? WHERE idx = 2", (metadata_of(rows[2]) + _UNKNOWN,))
        no_metadata = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE, status=pb.CORTEX_STEP_STATUS_DONE)
        conn.execute(  # the payload lacks metadata: the column (with an unknown field) fills it
            "UPDATE steps SET step_payload = ?, metadata = ? WHERE idx = 3",
            (no_metadata.SerializeToString() + _UNKNOWN, pb.CortexStepMetadata(execution_id="e").SerializeToString() + _UNKNOWN),
        )
        conn.execute(  # no step type in the payload: the column gives it, the payload keeps its unknown field
            "UPDATE steps SET step_payload = ? WHERE idx = 5",
            (
                pb.Step(status=pb.CORTEX_STEP_STATUS_DONE, metadata=pb.CortexStepMetadata(execution_id="x")).SerializeToString()
                + _UNKNOWN,
            ),
        )
        conn.execute("UPDATE steps SET error_details = ? WHERE idx = 6", (_UNKNOWN,))
        generic_payload = pb.Step.FromString(conn.execute("SELECT step_payload FROM steps WHERE idx = 7").fetchone()[0])
        conn.execute(
            "UPDATE steps SET step_payload = ?, render_info = ? WHERE idx = 7",
            (generic_payload.SerializeToString() + _UNKNOWN, _UNKNOWN),
        )
        conn.execute("INSERT INTO trajectory_metadata_blob VALUES ('main', ?)", (_UNKNOWN,))
        for idx, extra in ((0, _UNKNOWN), (1, _UNKNOWN + _UNKNOWN)):
            (data,) = conn.execute("SELECT data FROM gen_metadata WHERE idx = ?", (idx,)).fetchone()
            conn.execute("UPDATE gen_metadata SET data = ? WHERE idx = ?", (data + extra, idx))
    conn.close()
    result = read_trajectory(path)
    expected = _cell_by_cell(path)
    assert expected["steps.step_payload/CORTEX_STEP_TYPE_SYSTEM_MESSAGE: 5.999:varint"] == 4  # rows 0, 1 (twice), 4
    assert expected["steps.metadata/CORTEX_STEP_TYPE_SYSTEM_MESSAGE: 999:varint"] == 6  # rows 0, 1 (twice), 2, 3, 4
    assert result.unknown_fields == expected
    rows_with = Counter(result.unknown_rows)
    assert rows_with["steps.metadata/CORTEX_STEP_TYPE_SYSTEM_MESSAGE: 999:varint"] == 5
    assert rows_with["gen_metadata.data: 999:varint"] == 2
    assert [(f.code, f.message.split(": ", 1)[1].split(" (")[0]) for f in result.findings] == [
        ("column-mismatch", "steps[idx=2].metadata differs from the payload's metadata"),
        ("unrenderable", "steps[idx=4] cannot be rendered as JSON"),
        ("column-mismatch", "steps[idx=5].metadata differs from the payload's metadata"),
    ]
    assert result.trajectory["steps"][3]["metadata"] == {"executionId": "e"}
    assert result.trajectory["steps"][7]["generic"]["result"] == {"stepRenderInfo": {}}


def test_a_duration_proto3_json_cannot_hold_is_a_finding_not_a_crash(tmp_path):
    """A Duration whose seconds and nanos disagree in sign has no proto3 JSON: the step is an
    ``unrenderable`` finding rebuilt from its type and status, like a Timestamp out of range."""
    path = tmp_path / "duration.db"
    write_conversation_db(path, _steps(2))
    bad = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE, status=pb.CORTEX_STEP_STATUS_DONE)
    bad.planner_response.thinking_duration.seconds, bad.planner_response.thinking_duration.nanos = 1, -1
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE steps SET step_type = ?, step_payload = ?, metadata = NULL WHERE idx = 1", (bad.type, bad.SerializeToString())
        )
    conn.close()
    result = read_trajectory(path)
    assert [(f.code, f.message, f.projected) for f in result.findings] == [
        ("unrenderable", f"{path}: steps[idx=1] cannot be rendered as JSON (Duration is not valid: Sign mismatch.)", True)
    ]
    assert result.trajectory["steps"][1] == {"type": "CORTEX_STEP_TYPE_PLANNER_RESPONSE", "status": "CORTEX_STEP_STATUS_DONE"}
    assert result.unknown_fields == Counter()
