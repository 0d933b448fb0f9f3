"""The bundled JSON Schemas: metaschema, rule bookkeeping, every rule both ways, and the fast
predicate agreeing with jsonschema."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from audit.checks import schemas
from audit.checks.schema_compiler import UnsupportedSchema, compile_predicate
from audit.checks.schema_keywords import distinct_pointers, resolve_pointer
from audit.checks.schema_runtime import FORMATS
from audit.findings import Level
from audit.resources import data_path

NAMES = ("manifest", "sidecar", "transcript-record", "consumer-profile")
PREFIX = {
    "sidecar": "sidecar/",
    "transcript-record": "transcript/",
    "manifest": "manifest/",
    "consumer-profile": "consumer-profile/",
}
ASSERTIONS = {
    "type",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "items",
    "minProperties",
    "minItems",
    "maxItems",
    "minLength",
    "minimum",
    "pattern",
    "format",
    "const",
    "enum",
    "anyOf",
    "not",
    "if",
    "x-distinctPointers",
}
UUID = "0b0c5a3e-7d4f-4a5b-9c6d-1e2f3a4b5c6d"
UUID2 = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
UUID3 = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"
TS = "2026-01-01T00:00:00.123456789Z"
SHA = "ab" * 32


def _jsonschema(name: str):
    cls = schemas._jsonschema_class()
    return cls(schemas.load(name).document, format_checker=cls.FORMAT_CHECKER)


def _rules(node, found=None, level=Level.ERROR, evidence="inferred"):
    """x-rule id -> level, walking the schema text: advisory under ``x-advisory`` or an ``inferred`` rule."""
    found = {} if found is None else found
    if isinstance(node, dict):
        evidence = node.get("x-evidence", evidence)
        if evidence == "inferred":
            level = Level.WARNING
        if "x-rule" in node:
            assert found.setdefault(node["x-rule"], level) == level
        for key, value in node.items():
            if key not in ("const", "enum", "required", "x-distinctPointers"):
                _rules(value, found, Level.WARNING if key == "x-advisory" else level, evidence)
    elif isinstance(node, list):
        for value in node:
            _rules(value, found, level, evidence)
    return found


# ----------------------------------------------------------------------------- the schema files


def test_bundled_names():
    # output and conformance-report describe what commands print with --format json (their tests validate against them)
    bundled = sorted([*NAMES, "output", "conformance-report"])
    assert schemas.names() == bundled
    assert {p.name for p in data_path("schemas").glob("*.json")} == {f"{n}.schema.json" for n in bundled}


@pytest.mark.parametrize("name", NAMES)
def test_schema_is_valid_draft_2020_12_with_id_and_descriptions(name):
    doc = json.loads((data_path("schemas") / f"{name}.schema.json").read_text())
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == f"urn:agy-audit:schema:{name}:1"
    assert doc["title"] and doc["description"]

    def walk(node, rule, under_applicator):
        if not isinstance(node, dict):
            return
        if "x-rule" in node:
            assert node["x-rule"].startswith(PREFIX[name]), node["x-rule"]
            assert len(node.get("description", "")) > 20, node["x-rule"]
            rule = node["x-rule"]
        assert rule is not None or not ASSERTIONS & set(node), f"assertion outside any rule: {node}"
        if "x-advisory" in node:
            assert not under_applicator, "an advisory under anyOf/not/if would change the verdict of its parent"
            Draft202012Validator.check_schema(node["x-advisory"])
        for key, value in node.items():
            inner = under_applicator or key in ("anyOf", "not", "if", "then", "else")
            if key in ("properties", "$defs"):
                for sub in value.values():
                    walk(sub, rule, inner)
            elif key in ("allOf", "anyOf"):
                for sub in value:
                    walk(sub, rule, inner)
            elif key in ("items", "additionalProperties", "propertyNames", "not", "if", "then", "else", "x-advisory"):
                walk(value, rule, inner)

    walk(doc, None, False)


@pytest.mark.parametrize("name", NAMES)
def test_no_pattern_ends_with_a_bare_dollar(name):
    """End anchors are ``$(?!\\n)``: Python's ``$`` alone also matches before a final newline."""
    text = (data_path("schemas") / f"{name}.schema.json").read_text()
    patterns = re.findall(r'"pattern": "((?:[^"\\]|\\.)*)"', text)
    assert patterns
    for pattern in (json.loads(f'"{p}"') for p in patterns):
        assert not pattern.endswith("$"), pattern


def test_text_is_the_shipped_file_and_unknown_names_are_usage_errors():
    for name in NAMES:
        assert schemas.text(name) == (data_path("schemas") / f"{name}.schema.json").read_text()
        assert schemas.text(name + ".schema.json") == schemas.text(name)
    with pytest.raises(
        schemas.UsageError,
        match="unknown schema 'nope'; bundled schemas: conformance-report, consumer-profile, manifest, output, sidecar, "
        "transcript-record",
    ):
        schemas.text("nope")


# ----------------------------------------------------------------------------- every rule both ways


_DELETE = object()


def _set(doc: dict, pointer: str, value: object) -> dict:
    """A copy of *doc* with *value* at *pointer* (``_DELETE`` removes the key)."""
    doc = copy.deepcopy(doc)
    *parents, last = pointer.split("/")[1:]
    node = doc
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    elif value is _DELETE:
        node.pop(last, None)
    else:
        node[last] = value
    return doc


SIDECAR = {
    "trajectoryId": UUID2,
    "cascadeId": UUID,
    "trajectoryType": "CORTEX_TRAJECTORY_TYPE_CASCADE",
    "source": "CORTEX_TRAJECTORY_SOURCE_CLI",
    "steps": [
        {
            "type": "CORTEX_STEP_TYPE_PLANNER_RESPONSE",
            "status": "CORTEX_STEP_STATUS_DONE",
            "metadata": {
                "createdAt": TS,
                "source": "CORTEX_STEP_SOURCE_MODEL",
                "stepGenerationVersion": 1,
                "modelUsage": {"model": "m", "inputTokens": "19733", "outputTokens": "0"},
                "internalMetadata": {"statusTransitions": [{"updatedStatus": "CORTEX_STEP_STATUS_DONE", "timestamp": TS}]},
            },
            "plannerResponse": {
                "response": "ok",
                "thinkingDuration": "1.5s",
                "stopReason": "CORTEX_STOP_REASON_END_TURN",
                "toolCalls": [{"id": "t1", "name": "run_command", "argumentsJson": "{}"}],
            },
            "invokeSubagent": {"results": [{"conversationId": UUID2}]},
            "codeAction": {
                "actionResult": {
                    "edit": {"diff": {"unifiedDiff": {"lines": [{"type": "UNIFIED_DIFF_LINE_TYPE_INSERT", "text": "x"}]}}}
                }
            },
            "systemMessage": {"agentMessage": {"priority": "MESSAGE_PRIORITY_HIGH", "timestamp": TS}},
            "listDirectory": {"results": [{"name": "a.py", "isDir": False, "sizeBytes": "1"}]},
            "runCommand": {"commandLine": "ls", "exitCode": 0, "waitMsBeforeAsync": "1", "combinedOutput": {"full": ""}},
            "completedInteractions": [],
        }
    ],
    "generatorMetadata": [{"chatModel": {"usage": {"inputTokens": "1"}, "chatStartMetadata": {"createdAt": TS}}}],
    "executorMetadatas": [{"terminationReason": "EXECUTOR_TERMINATION_REASON_NO_TOOL_CALL"}],
    "metadata": {
        "createdAt": TS,
        "parentConversationId": UUID2,
        "workspaceUris": [],
        "staticConfig": {"cascadeConfig": {"plannerConfig": {"retryConfig": {"apiRetry": {"maxSleepDurationMs": "30000"}}}}},
    },
    "agyReader": {
        "parentCascadeId": UUID2,
        "futureKey": [1],
        "completeness": {"anything": ["agy-reader's own evidence"], "steps": "x"},
        "agyAudit": {
            "futureKey": 1,
            "completeness": {
                "profile": "native/1",
                "contentSha256": SHA,
                "projectionSha256": SHA,
                "steps": 1,
                "checkedAt": "2026-01-01T00:00:00Z",
            },
        },
    },
}
STEP = "/steps/0"
PAYLOADS = (
    "askQuestion",
    "checkpoint",
    "codeAction",
    "commandStatus",
    "conversationHistory",
    "ephemeralMessage",
    "error",
    "errorMessage",
    "find",
    "generateImage",
    "generic",
    "grepSearch",
    "invokeSubagent",
    "listDirectory",
    "mcpTool",
    "permissions",
    "plannerResponse",
    "readUrlContent",
    "requestedInteraction",
    "runCommand",
    "searchWeb",
    "systemMessage",
    "taskDetails",
    "userInput",
    "viewFile",
)
ROOT_RULES = {"sidecar/document"}  # tested by test_root_must_be_an_object

# (rule, pointer, a value keeping the document valid, a value breaking the rule[, where it is reported]);
# _DELETE removes the key. Reported at *pointer* unless said otherwise (see _expected).
SIDECAR_RULES = [
    ("sidecar/cascadeId", "/cascadeId", UUID3, _DELETE),
    ("sidecar/cascadeId", "/cascadeId", UUID3, UUID + "\n"),
    ("sidecar/trajectoryId", "/trajectoryId", _DELETE, "traj-id"),
    ("sidecar/trajectoryType", "/trajectoryType", "CORTEX_TRAJECTORY_TYPE_FUTURE", 3.5),
    ("sidecar/source", "/source", "CORTEX_TRAJECTORY_SOURCE_SDK", None),
    ("sidecar/steps", "/steps", [], {}),
    (
        "sidecar/step",
        STEP,
        {"type": "CORTEX_STEP_TYPE_X", "status": "CORTEX_STEP_STATUS_X", "metadata": {"createdAt": TS}, "futurePayload": {}},
        {"type": "CORTEX_STEP_TYPE_X", "status": "CORTEX_STEP_STATUS_DONE"},
    ),
    (
        "sidecar/step",
        STEP,
        {"type": "CORTEX_STEP_TYPE_X", "status": "CORTEX_STEP_STATUS_X", "metadata": {"createdAt": TS}},
        "step",
    ),
    ("sidecar/step/type", STEP + "/type", "CORTEX_STEP_TYPE_FUTURE_STEP", True),
    ("sidecar/step/status", STEP + "/status", "CORTEX_STEP_STATUS_CANCELED", ["DONE"]),
    ("sidecar/step/metadata", STEP + "/metadata", {"createdAt": TS, "futureKey": 1}, {"source": "CORTEX_STEP_SOURCE_MODEL"}),
    ("sidecar/step/metadata", STEP + "/metadata/stepGenerationVersion", 2, "2"),
    ("sidecar/step/metadata/source", STEP + "/metadata/source", "CORTEX_STEP_SOURCE_SYSTEM", [2]),
    ("sidecar/step/invokeSubagent/conversationId", STEP + "/invokeSubagent/results/0/conversationId", UUID, "child"),
    ("sidecar/metadata", "/metadata", {}, []),
    ("sidecar/metadata", "/metadata/workspaceUris", ["file:///w"], "file:///w"),
    ("sidecar/metadata/parentConversationId", "/metadata/parentConversationId", UUID, ""),
    ("sidecar/generatorMetadata", "/generatorMetadata/0", {"futureKey": 1}, 1),
    ("sidecar/executorMetadatas", "/executorMetadatas/0/terminationReason", "EXECUTOR_TERMINATION_REASON_X", 1.5),
    ("sidecar/agyReader", "/agyReader", {}, None),
    ("sidecar/agyReader/parentCascadeId", "/agyReader/parentCascadeId", UUID3, ""),
    ("sidecar/agyReader/parentCascadeId", "/agyReader/parentCascadeId", UUID3, "antigravity-cli:" + UUID2),
    ("sidecar/agyReader/parentNotSelf", "/agyReader/parentCascadeId", UUID3, UUID),
    ("sidecar/agyReader/agyAudit", "/agyReader/agyAudit", {}, "ours"),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/steps", 0, -1),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/steps", 2.0, "1"),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/contentSha256", "0" * 64, "sha256:" + SHA),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/contentSha256", SHA, _DELETE),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/projectionSha256", SHA, SHA.upper()),
    (
        "sidecar/agyReader/agyAudit/completeness",
        "/agyReader/agyAudit/completeness/checkedAt",
        "2026-02-03T04:05:06.5Z",
        TS.replace("Z", "+00:00"),
    ),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/profile", "p", ""),
    ("sidecar/agyReader/agyAudit/completeness", "/agyReader/agyAudit/completeness/profile", "p", _DELETE),
    ("sidecar/timestamp", "/metadata/createdAt", "2026-05-20T22:40:00+09:00", "2026-05-20 22:40:00Z"),
    ("sidecar/timestamp", STEP + "/metadata/createdAt", "2026-05-20T22:40:00Z", "2026-05-20T22:40:00.1234567890Z"),
    ("sidecar/timestamp", STEP + "/systemMessage/agentMessage/timestamp", TS, "1716000000"),
    ("sidecar/timestamp", STEP + "/metadata/internalMetadata/statusTransitions/0/timestamp", TS, TS + "\n"),
    ("sidecar/timestamp", "/generatorMetadata/0/chatModel/chatStartMetadata/createdAt", TS, "2026-13-01T00:00:00Z"),
    ("sidecar/int64", STEP + "/metadata/modelUsage/inputTokens", "-12", 19733),
    ("sidecar/int64", STEP + "/metadata/modelUsage/outputTokens", "18446744073709551615", "007"),
    ("sidecar/int64", "/generatorMetadata/0/chatModel/usage/inputTokens", "2", "+2"),
    ("sidecar/int64", "/metadata/staticConfig/cascadeConfig/plannerConfig/retryConfig/apiRetry/maxSleepDurationMs", "1", "1e3"),
    ("sidecar/int64", STEP + "/listDirectory/results/0/sizeBytes", "4096", 4096),
    ("sidecar/int64", STEP + "/runCommand/waitMsBeforeAsync", "5000", "-0"),
    ("sidecar/duration", STEP + "/plannerResponse/thinkingDuration", "0.000000001s", "1.5"),
    ("sidecar/modelUsage", STEP + "/metadata/modelUsage", {"responseHeader": {"sessionID": "s"}}, "usage"),
    ("sidecar/modelUsage", STEP + "/metadata/modelUsage/model", "m2", False),
    ("sidecar/toolCall", STEP + "/plannerResponse/toolCalls/0", {"futureKey": 1}, ["run_command"]),
    ("sidecar/toolCall", STEP + "/plannerResponse/toolCalls/0/argumentsJson", '{"a":1}', {"a": 1}),
    ("sidecar/plannerConfig", "/metadata/staticConfig/cascadeConfig/plannerConfig", {}, "config"),
    ("sidecar/step/runCommand", STEP + "/runCommand/combinedOutput", "as a string", ["x"]),
    ("sidecar/step/runCommand", STEP + "/runCommand/exitCode", 7, "7"),
    ("sidecar/step/listDirectory", STEP + "/listDirectory/results/0/isDir", True, "false"),
    ("sidecar/step/completedInteractions", STEP + "/completedInteractions", [{"futureKey": {}}], {}),
] + [(f"sidecar/step/{key}", f"{STEP}/{key}", {"futureKey": 1}, "payload") for key in PAYLOADS]

SIDECAR_ADVISORIES = [
    ("sidecar/agyReader/completeness/object", "/agyReader/completeness", {"any": "object"}, "bogus"),
    ("sidecar/uuid/lowerCase", "/cascadeId", UUID3, UUID.upper()),
    ("sidecar/uuid/lowerCase", "/trajectoryId", UUID3, UUID2.upper()),
    ("sidecar/uuid/lowerCase", "/metadata/parentConversationId", UUID3, UUID2.upper()),
    ("sidecar/uuid/lowerCase", "/agyReader/parentCascadeId", UUID3, UUID2.upper()),
    ("sidecar/uuid/lowerCase", STEP + "/invokeSubagent/results/0/conversationId", UUID3, UUID2.upper()),
    # The enum-number rule: a value agy-audit cannot name is written (and accepted) as its number.
    ("sidecar/enum-number", STEP + "/type", "CORTEX_STEP_TYPE_GENERIC", 250),
    ("sidecar/enum-number", STEP + "/plannerResponse/stopReason", "STOP_REASON_STOP_PATTERN", 18),
    ("sidecar/enum-number", STEP + "/metadata/modelUsage/model", "MODEL_PLACEHOLDER_M298", 1500),
    ("sidecar/enum-number", "/executorMetadatas/0/terminationReason", "EXECUTOR_TERMINATION_REASON_ERROR", 11),
    ("sidecar/trajectoryType/family", "/trajectoryType", "CORTEX_TRAJECTORY_TYPE_X", "CASCADE"),
    ("sidecar/source/family", "/source", "CORTEX_TRAJECTORY_SOURCE_X", "cli"),
    ("sidecar/step/type/family", STEP + "/type", "CORTEX_STEP_TYPE_X", "FUTURE_STEP"),
    ("sidecar/step/status/family", STEP + "/status", "CORTEX_STEP_STATUS_X", "STATUS_COMPLETED"),
    ("sidecar/step/status/absent", STEP + "/status", "CORTEX_STEP_STATUS_DONE", _DELETE, STEP),
    ("sidecar/step/metadata/source/family", STEP + "/metadata/source", "CORTEX_STEP_SOURCE_X", "MODEL"),
    ("sidecar/step/plannerResponse/stopReason/family", STEP + "/plannerResponse/stopReason", "STOP_REASON_X", "stop"),
    (
        "sidecar/step/statusTransition/family",
        STEP + "/metadata/internalMetadata/statusTransitions/0/updatedStatus",
        "CORTEX_STEP_STATUS_X",
        "DONE",
    ),
    (
        "sidecar/step/codeAction/diffLineType/family",
        STEP + "/codeAction/actionResult/edit/diff/unifiedDiff/lines/0/type",
        "UNIFIED_DIFF_LINE_TYPE_X",
        "+",
    ),
    ("sidecar/step/systemMessage/priority/family", STEP + "/systemMessage/agentMessage/priority", "MESSAGE_PRIORITY_X", "high"),
    (
        "sidecar/executorMetadatas/terminationReason/family",
        "/executorMetadatas/0/terminationReason",
        "EXECUTOR_TERMINATION_REASON_X",
        "done",
    ),
]

TRANSCRIPT = {
    "step_index": 3,
    "source": "SYSTEM",
    "type": "ERROR_MESSAGE",
    "status": "DONE",
    "created_at": "2026-05-24T15:24:21Z",
    "content": "c",
    "thinking": "t",
    "tool_calls": [{"name": "run_command", "args": {"CommandLine": '"ls"', "Cwd": "/w", "Wait": 5, "Spec": {"a": [1]}}}],
    "truncated_fields": ["content"],
    "error": "e",
    "error_code": 429,
}


class On(dict):
    """A rule case's own base document (instead of the schema's)."""


RUN_COMMAND = On(TRANSCRIPT, type="RUN_COMMAND", source="MODEL", exit_code=0)
PLAIN = On(TRANSCRIPT, type="PLANNER_RESPONSE", source="MODEL")
for _key in ("error", "error_code"):
    del RUN_COMMAND[_key], PLAIN[_key]
TRANSCRIPT_RULES = [
    ("transcript/record", "/source", "MODEL", _DELETE, "", PLAIN),
    ("transcript/step_index", "/step_index", 1.0, -1),
    ("transcript/step_index", "/step_index", 7, "7"),
    ("transcript/source", "/source", "USER_EXPLICIT", 2),
    ("transcript/type", "/type", "GENERIC", None, PLAIN),
    ("transcript/status", "/status", "RUNNING", True),
    ("transcript/created_at", "/created_at", "2026-05-24T15:24:21.5+09:00", "2026-05-24T15:24:21"),
    ("transcript/content", "/content", None, 1),
    ("transcript/thinking", "/thinking", None, {}),
    ("transcript/tool_calls", "/tool_calls", [], {}),
    ("transcript/tool_calls", "/tool_calls/0", {"name": "x"}, {"args": {}}),
    ("transcript/tool_calls", "/tool_calls/0/args", {}, []),
    ("transcript/truncated_fields", "/truncated_fields/0", "thinking", 1),
    ("transcript/error", "/error", "boom", ["boom"]),
    ("transcript/error_code", "/error_code", 503, "503"),
    ("transcript/error_code", "/error_code", 2, 2.5),
    ("transcript/exit_code", "/exit_code", -1, "1", RUN_COMMAND),
]
TRANSCRIPT_ADVISORIES = [
    ("transcript/source/family", "/source", "SYSTEM_SDK", "model"),
    ("transcript/type/family", "/type", "ASK_QUESTION", "planner_response", PLAIN),
    ("transcript/status/family", "/status", "CANCELLED", "done"),
    ("transcript/status/absent", "/status", "UNSPECIFIED", _DELETE, ""),
    ("transcript/step_index/absent", "/step_index", 0, _DELETE, ""),
    ("transcript/type/absent", "/type", "GENERIC", _DELETE, "", PLAIN),
    ("transcript/created_at/absent", "/created_at", "2026-05-24T15:24:21Z", _DELETE, ""),
    ("transcript/error/placement", "/error", _DELETE, "e", "/type", RUN_COMMAND),
    ("transcript/error_code/placement", "/error_code", _DELETE, 500, "/type", RUN_COMMAND),
    ("transcript/exit_code/placement", "/exit_code", _DELETE, 1, "/type"),
]

MANIFEST = {
    "manifestVersion": 1,
    "toolVersion": "0.1.0",
    "complete": False,
    "started": "2026-01-01T00:00:00.5Z",
    "finished": "2026-01-01T00:01:00Z",
    "installedAgyVersion": None,
    "roots": [
        {"path": "/home/u/.gemini/antigravity-cli", "product": "cli", "source": "daemon", "endpoint": "http://127.0.0.1:4242"}
    ],
    "selected": 1,
    "sessions": [
        {
            "id": UUID,
            "cascadeId": UUID2,
            "product": "cli",
            "source": "daemon",
            "steps": 3,
            "files": {
                f"corpus/cli/{UUID}.trajectory.json": SHA,
                f"native/cli/brain/{UUID}/.system_generated/logs/transcript.jsonl": SHA,
            },
        }
    ],
    "failures": [{"id": None, "stage": "discover", "message": "m"}],
    "skipped": [{"path": "/home/u/.gemini/antigravity-cli/implicit/x.pb", "reason": "implicit"}],
}
UNCOVERED = On(
    MANIFEST,
    failures=[],
    notCovered=[
        {"id": UUID2, "product": "cli", "path": "/home/u/.gemini/antigravity-cli/conversations/x.pb", "reason": "r", "files": {}}
    ],
)
SELECTED = On(
    MANIFEST,
    manifestVersion=2,
    selection={
        "ids": ["0f3a"],
        "since": "2026-11-01",
        "newest": 12,
        "readableOnly": True,
        "excluded": [
            {"id": UUID2, "product": "cli", "path": "/home/u/.gemini/antigravity-cli/conversations/x.pb", "reason": "r"}
        ],
    },
)
MANIFEST_RULES = [
    ("manifest/document", "/futureKey", _DELETE, 1),
    ("manifest/document", "/skipped", [], _DELETE),
    ("manifest/manifestVersion", "/manifestVersion", 2, 3),
    ("manifest/manifestVersion", "/manifestVersion", 1.0, True),
    ("manifest/toolVersion", "/toolVersion", "1.2.3.dev0", ""),
    ("manifest/complete", "/complete", False, "false"),
    ("manifest/started", "/started", "2026-01-01T00:00:00Z", "2026-01-01T00:00:00+00:00"),
    ("manifest/finished", "/finished", None, ""),
    ("manifest/installedAgyVersion", "/installedAgyVersion", "agy 1.2.11", ""),
    ("manifest/roots", "/roots", [{"path": "/r", "product": "ide", "source": "native", "endpoint": None}], []),
    ("manifest/roots", "/roots/0/path", "/x", "relative/x"),
    ("manifest/root/endpoint", "/roots/0/endpoint", "https://[::1]:8443/base", "http://127.0.0.1:1/?token=secret"),
    ("manifest/root/endpoint", "/roots/0/endpoint", None, "http://user:pw@127.0.0.1:1"),
    ("manifest/root/name", "/roots/0/name", "antigravity-cli", "a/b"),
    ("manifest/root/name", "/roots/0/name", "antigravity", ".."),
    (
        "manifest/root/files",
        "/roots/0/files",
        {"native/cli/install/antigravity-cli/history.jsonl": SHA},
        {"native/cli/x.db": SHA},
    ),
    ("manifest/root/files", "/roots/0/files", {}, {"native/cli/install/a/../x": SHA}),
    (
        "manifest/root/files",
        "/roots/0/files",
        {"native/ide/install/a/b": SHA},
        {"native/ide/install/a/b": "x"},
        "/roots/0/files/native~1ide~1install~1a~1b",
    ),
    (
        "manifest/root/layout",
        "/roots/0/layout",
        {"conversations/*.db": "file"},
        {"conversations/*.db": "some"},
        "/roots/0/layout/conversations~1*.db",
    ),
    (
        "manifest/root/layout",
        "/roots/0/layout",
        {"brain/*/.system_generated/logs/chunks/transcript/*.jsonl": "file|none"},
        {"brain/*/notes.md": "file"},
        "/roots/0/layout",
    ),
    ("manifest/selected", "/selected", 0, -1),
    ("manifest/sessions", "/sessions/0/steps", 0, "3"),
    ("manifest/sessions", "/sessions/0/files", {"native/cli/x.db": SHA}, {"other/x": SHA}),
    ("manifest/sessions", "/sessions/0/files", {"native/cli/x.db": SHA}, {"native/../x": SHA}),
    ("manifest/sessions", "/sessions/0/files", {"corpus/a/b": "0" * 64}, {"corpus/./x": SHA}),
    ("manifest/sessions", "/sessions/0/files", {"corpus/a": SHA}, {"corpus/a": "sha256:" + SHA}, "/sessions/0/files/corpus~1a"),
    ("manifest/sessions", "/sessions/0/futureKey", _DELETE, 1),
    ("manifest/failures", "/failures/0/stage", "fetch", "Fetch"),
    ("manifest/failures", "/failures/0/message", "x", ""),
    ("manifest/failures", "/failures/0/id", UUID, "x"),
    ("manifest/skipped", "/skipped/0/reason", "r", ""),
    ("manifest/skipped", "/skipped/0/path", "C:\\Users\\u\\x.pb", "relative/x.pb"),
    ("manifest/skipped", "/skipped/0/path", "\\\\server\\share\\x.pb", "C:x.pb"),
    ("manifest/notCovered", "/notCovered/0/reason", "r", "", UNCOVERED),
    ("manifest/notCovered", "/notCovered/0/path", "C:/Users/u/x.pb", "x.pb", UNCOVERED),
    ("manifest/notCovered", "/notCovered/0/files", {f"native/cli/brain/{UUID2}/a.md": SHA}, {"other/x": SHA}, UNCOVERED),
    ("manifest/notCovered", "/notCovered/0/futureKey", _DELETE, 1, UNCOVERED),
    ("manifest/selection", "/selection", None, "every", SELECTED),
    ("manifest/selection", "/selection/ids/0", UUID, "0F3A", SELECTED),
    ("manifest/selection", "/selection/since", "2026-11-01T10:00:00.250000Z", "2026-11-01T10:00:00+01:00", SELECTED),
    ("manifest/selection", "/selection/newest", None, 0, SELECTED),
    ("manifest/selection", "/selection/readableOnly", False, None, SELECTED),
    ("manifest/selection", "/selection/excluded/0/path", "C:/x.db", "x.db", SELECTED),
    ("manifest/selection", "/selection/excluded/0/reason", "r", "", SELECTED),
    ("manifest/selection", "/selection/futureKey", _DELETE, 1, SELECTED),
    ("manifest/completeConsistent", "/complete", False, True, "/notCovered", UNCOVERED),
    ("manifest/completeConsistent", "/complete", False, True, "/failures"),
    ("manifest/uuid", "/sessions/0/id", UUID2, UUID.upper()),
    ("manifest/uuid", "/sessions/0/cascadeId", UUID, None),
    ("manifest/product", "/sessions/0/product", "ide-2", "IDE"),
    ("manifest/source", "/roots/0/source", "native", "auto"),
]

PROFILE = {
    "profile": 1,
    "name": "codeburn",
    "repository": "getagentseal/codeburn",
    "version": "@01d856cdd682",
    "describes": "its Antigravity provider",
    "entries": [
        {
            "surface": "wire",
            "path": "gen_metadata.data.chat_model.usage.response_output_tokens",
            "mode": "requires",
            "accepts": ["varint"],
            "cite": "getagentseal/codeburn:src/providers/antigravity.ts@01d856cdd682",
            "why": "reasoning tokens",
        }
    ],
}


def _entry_with(extra: dict) -> On:
    return On(PROFILE, entries=[PROFILE["entries"][0] | extra])


SCOPE = {"roots": ["antigravity"], "cite": "pypi:interlatch==0.29.1:interlatch/sources/discovery.py:39-40", "why": "its default"}
PREFERENCE = {
    "family": "conversations/*.trajectory.json",
    "over": "conversations/*.db",
    "cite": "kenn-io/agentsview:internal/parser/antigravity.go:134-160@538600744d1b",
    "why": "a sidecar that covers as many steps as the .db",
}
SOURCE_FILTER = {"surface": "transcript", "path": "full.source", "mode": "requires", "values": ["MODEL"], "other": "skips"}
FORMAT_3 = On(PROFILE, profile=3, scope=SCOPE, prefers=[PREFERENCE])
ONLY = On(PROFILE, profile=3, entries=[PROFILE["entries"][0] | SOURCE_FILTER | {"accepts": ["string"], "only": ["USER_INPUT"]}])
EXCEPTS = On(
    PROFILE, profile=3, entries=[PROFILE["entries"][0] | SOURCE_FILTER | {"accepts": ["string"], "except": ["USER_INPUT"]}]
)


PROFILE_RULES = [
    ("consumer-profile/document", "/futureKey", _DELETE, 1),
    ("consumer-profile/document", "/entries", [PROFILE["entries"][0]], _DELETE),
    ("consumer-profile/profile", "/profile", 3, 4),
    ("consumer-profile/name", "/name", "deja-vu", "no spaces"),
    ("consumer-profile/name", "/name", "a.b_c", "x\n"),
    ("consumer-profile/repository", "/repository", "kenn-io/agentsview", "agentsview"),
    ("consumer-profile/repository", "/repository", "pypi:tokstat", "pypi:"),
    ("consumer-profile/repository", "/repository", "npm:@scope/tool", "cargo:tool"),
    ("consumer-profile/version", "/version", "v1", ""),
    ("consumer-profile/describes", "/describes", "d", ""),
    ("consumer-profile/entries", "/entries", [PROFILE["entries"][0]], []),
    ("consumer-profile/entry", "/entries/0/futureKey", _DELETE, 1, "/entries/0"),
    ("consumer-profile/entry", "/entries/0/why", "w", _DELETE, "/entries/0"),
    ("consumer-profile/entry/surface", "/entries/0/surface", "layout", "blob"),
    ("consumer-profile/entry/path", "/entries/0/path", "", "a\tb"),
    ("consumer-profile/entry/mode", "/entries/0/mode", "optional", "needs"),
    ("consumer-profile/entry/accepts", "/entries/0/accepts", _DELETE, []),
    ("consumer-profile/entry/accepts/item", "/entries/0/accepts/0", "null", "len|varint"),
    ("consumer-profile/entry/cite", "/entries/0/cite", "mjacobs/agy-reader:README.md@cf3f4e5", "README.md@cf3f4e5"),
    ("consumer-profile/entry/cite", "/entries/0/cite", "a/b:c@" + "f" * 40, "a/b:c@main"),
    ("consumer-profile/entry/cite", "/entries/0/cite", "pypi:tokstat==1.25.0:tokstat/a.py:42-44", "pypi:tokstat:tokstat/a.py:42"),
    ("consumer-profile/entry/cite", "/entries/0/cite", "npm:codeburn@0.9.15:dist/cli.js:7", "npm:codeburn@0.9.15:dist/cli.js"),
    ("consumer-profile/entry/values", "/entries/0/values", ["15"], [], "/entries/0/values", _entry_with({"other": "skips"})),
    (
        "consumer-profile/entry/values/item",
        "/entries/0/values/0",
        "PLANNER_RESPONSE",
        "a|b",
        None,
        _entry_with({"values": ["15"], "other": "skips"}),
    ),
    (
        "consumer-profile/entry/range",
        "/entries/0/range",
        [1000, 5000],
        [1000],
        None,
        _entry_with({"range": [0, 1], "other": "drops"}),
    ),
    (
        "consumer-profile/entry/other",
        "/entries/0/other",
        "drops",
        "loses",
        None,
        _entry_with({"values": ["15"], "other": "skips"}),
    ),
    (
        "consumer-profile/entry/other/needs-values",
        "/entries/0/other",
        "skips",
        _DELETE,
        "/entries/0",
        _entry_with({"values": ["15"], "other": "skips"}),
    ),
    (
        "consumer-profile/entry/other/needs-values",
        "/entries/0/range",
        _DELETE,
        [1, 2],
        "/entries/0",
        _entry_with({"values": ["15"], "other": "skips"}),
    ),
    ("consumer-profile/entry/why", "/entries/0/why", "x", ""),
    ("consumer-profile/entry/observed", "/entries/0/observed", False, "no"),
    ("consumer-profile/entry/fallback", "/entries/0/fallback", ["sqlite table:steps.idx"], []),
    (
        "consumer-profile/entry/fallback/item",
        "/entries/0/fallback/0",
        "summaries table:conversation_summaries.last_modified_time",
        "table:steps.idx",
        None,
        _entry_with({"fallback": ["sqlite table:steps.idx"]}),
    ),
    ("consumer-profile/profile/format-3", "/profile", 3, 2, None, FORMAT_3),
    ("consumer-profile/profile/format-3", "/profile", 3, 1, None, EXCEPTS),
    ("consumer-profile/scope", "/scope", SCOPE, ["antigravity"], None, FORMAT_3),
    ("consumer-profile/scope", "/scope/futureKey", _DELETE, 1, "/scope", FORMAT_3),
    (
        "consumer-profile/scope/roots",
        "/scope/roots",
        ["antigravity-cli", "antigravity-ide"],
        ["antigravity-agent"],
        "/scope/roots/0",
        FORMAT_3,
    ),
    ("consumer-profile/scope/roots", "/scope/roots", ["antigravity-acp"], ["antigravity", "antigravity"], None, FORMAT_3),
    ("consumer-profile/scope/why", "/scope/why", "w", "", None, FORMAT_3),
    ("consumer-profile/entry/cite", "/scope/cite", "a/b:c@" + "f" * 40, "a/b:c@main", None, FORMAT_3),
    ("consumer-profile/prefers", "/prefers", [PREFERENCE], [], None, FORMAT_3),
    ("consumer-profile/preference", "/prefers/0/futureKey", _DELETE, 1, "/prefers/0", FORMAT_3),
    (
        "consumer-profile/preference/family",
        "/prefers/0/family",
        "conversations/*.trajectory.json",
        "conversations/*.pb",
        None,
        FORMAT_3,
    ),
    ("consumer-profile/preference/over", "/prefers/0/over", "conversations/*.db", "brain/*/*.md", None, FORMAT_3),
    (
        "consumer-profile/preference/distinct",
        "/prefers/0/over",
        "conversations/*.db",
        "conversations/*.trajectory.json",
        "/prefers/0",
        FORMAT_3,
    ),
    ("consumer-profile/preference/why", "/prefers/0/why", "w", "", None, FORMAT_3),
    (
        "consumer-profile/entry/except",
        "/entries/0/except",
        ["USER_INPUT", "PLANNER_RESPONSE"],
        ["user input"],
        "/entries/0/except/0",
        EXCEPTS,
    ),
    ("consumer-profile/entry/except", "/entries/0/except", ["ERROR_MESSAGE"], [], None, EXCEPTS),
    ("consumer-profile/entry/only", "/entries/0/only", ["USER_INPUT"], ["USER_INPUT", "USER_INPUT"], None, ONLY),
    ("consumer-profile/entry/by-type/needs-filter", "/entries/0/path", "compact.status", "full.type", None, EXCEPTS),
    ("consumer-profile/entry/by-type/needs-filter", "/entries/0/surface", "transcript", "sidecar", None, EXCEPTS),
    ("consumer-profile/entry/by-type/needs-filter", "/entries/0/only", _DELETE, ["USER_INPUT"], "/entries/0", EXCEPTS),
    ("consumer-profile/profile/format-3", "/profile", 3, 2, None, ONLY),
]

CASES = {
    "sidecar": (SIDECAR, SIDECAR_RULES, SIDECAR_ADVISORIES),
    "transcript-record": (TRANSCRIPT, TRANSCRIPT_RULES, TRANSCRIPT_ADVISORIES),
    "manifest": (MANIFEST, MANIFEST_RULES, []),
    "consumer-profile": (PROFILE, PROFILE_RULES, []),
}


def _expected(pointer: str, bad: object, where: str | None) -> str:
    """Where jsonschema reports: the object for a missing or unknown key, else the value."""
    if where is not None:
        return where
    return pointer.rsplit("/", 1)[0] if bad is _DELETE or pointer.endswith("futureKey") else pointer


@pytest.mark.parametrize("name", NAMES)
def test_base_documents_are_valid(name):
    base = CASES[name][0]
    assert schemas.load(name).check(base) == []
    assert _jsonschema(name).is_valid(base)


@pytest.mark.parametrize("name", NAMES)
def test_every_rule_has_cases(name):
    _, rules, advisories = CASES[name]
    declared = _rules(schemas.load(name).document)
    assert {r for r, *_ in rules} | (ROOT_RULES & set(declared)) == {r for r, level in declared.items() if level == Level.ERROR}
    assert {r for r, *_ in advisories} == {r for r, level in declared.items() if level == Level.WARNING}


def _cases(level):
    for name, (base, rules, advisories) in CASES.items():
        for rule, pointer, good, bad, *extra in rules if level == Level.ERROR else advisories:
            bad_id = "delete" if bad is _DELETE else repr(bad)[:30]
            where = next((e for e in extra if isinstance(e, str)), None)
            own = next((dict(e) for e in extra if isinstance(e, On)), base)
            yield pytest.param(name, own, rule, pointer, good, bad, where, id=f"{rule}:{pointer}:{bad_id}")


@pytest.mark.parametrize(("name", "base", "rule", "pointer", "good", "bad", "where"), list(_cases(Level.ERROR)))
def test_violation_rules_both_ways(name, base, rule, pointer, good, bad, where):
    schema = schemas.load(name)
    assert schema.check(_set(base, pointer, good)) == []
    findings = schema.check(_set(base, pointer, bad))
    assert [(f.rule, f.level, f.pointer) for f in findings] == [(rule, Level.ERROR, _expected(pointer, bad, where))], findings
    assert findings[0].message


@pytest.mark.parametrize(("name", "base", "rule", "pointer", "good", "bad", "where"), list(_cases(Level.WARNING)))
def test_advisory_rules_both_ways(name, base, rule, pointer, good, bad, where):
    schema = schemas.load(name)
    assert schema.check(_set(base, pointer, good)) == []
    doc = _set(base, pointer, bad)
    assert [(f.rule, f.level, f.pointer) for f in schema.check(doc)] == [
        (rule, Level.WARNING, pointer if where is None else where)
    ]
    assert Draft202012Validator(schema.document, format_checker=Draft202012Validator.FORMAT_CHECKER).is_valid(doc)


def test_root_must_be_an_object():
    for name, rule in (
        ("sidecar", "sidecar/document"),
        ("transcript-record", "transcript/record"),
        ("manifest", "manifest/document"),
    ):
        assert [(f.rule, f.pointer, f.message) for f in schemas.load(name).check([1])] == [(rule, "", "is array, not object")]


def test_parent_not_self_compares_ignoring_case():
    doc = _set(SIDECAR, "/agyReader/parentCascadeId", UUID)
    doc["cascadeId"] = UUID.upper()
    findings = schemas.load("sidecar").check(doc)
    assert [(f.rule, f.pointer, f.level) for f in findings] == [
        ("sidecar/agyReader/parentNotSelf", "/agyReader/parentCascadeId", Level.ERROR),
        ("sidecar/uuid/lowerCase", "/cascadeId", Level.WARNING),
    ]
    assert findings[0].message == f"'{UUID}' equals /cascadeId (the same id)"


def test_a_complete_manifest_has_finished():
    doc = _set(_set(MANIFEST, "/failures", []), "/complete", True)
    assert schemas.load("manifest").check(doc) == []
    findings = schemas.load("manifest").check(_set(doc, "/finished", None))
    assert [(f.rule, f.pointer) for f in findings] == [("manifest/completeConsistent", "/finished")]


def test_findings_are_sorted_by_position_and_messages_are_short():
    doc = copy.deepcopy(SIDECAR)
    doc["steps"] = [copy.deepcopy(doc["steps"][0]) for _ in range(12)]
    doc["steps"][10]["status"] = 1
    doc["steps"][2]["status"] = {"huge": "x" * 100_000}
    doc["steps"][2]["metadata"]["createdAt"] = "x" * 100_000
    findings = schemas.load("sidecar").check(doc)
    assert [f.pointer for f in findings] == ["/steps/2/metadata/createdAt", "/steps/2/status", "/steps/10/status"]
    assert all(len(f.message) < 300 for f in findings), findings


def _typed_leaves(name):
    """Paths (keys, 0 for array items) to every subschema typed only by a plain ``type``."""
    doc = schemas.load(name).document

    def walk(node, path, seen):
        while set(node) == {"$ref"}:
            if node["$ref"] in seen:
                return
            seen = seen | {node["$ref"]}
            node = resolve_pointer(doc, node["$ref"][1:])
        if (
            path
            and set(node) - {"x-rule", "x-evidence", "description"} == {"type"}
            and isinstance(node["type"], str)
            and node["type"] in _WRONG
        ):
            yield path, node["type"]
        for prop, sub in node.get("properties", {}).items():
            yield from walk(sub, [*path, prop], seen)
        if isinstance(node.get("items"), dict):
            yield from walk(node["items"], [*path, 0], seen)

    yield from walk(doc, [], frozenset())


def _put(doc, path, value):
    """Set *value* at *path*, creating (or replacing mistyped) containers on the way."""
    node = doc
    for part, following in zip(path, path[1:]):
        want = list if isinstance(following, int) else dict
        if isinstance(node, list):
            while len(node) <= part:
                node.append(want())
        elif not isinstance(node.get(part), want):
            node[part] = want()
        if not isinstance(node[part], want):
            node[part] = want()
        node = node[part]
    if isinstance(node, list) and not node:
        node.append(None)
    node[path[-1]] = value


_WRONG = {"string": 1, "number": "1", "boolean": 0, "array": {}, "object": []}
_RIGHT = {"string": "s", "number": 1.5, "boolean": False, "array": [], "object": {}}


@pytest.mark.parametrize(("name", "minimum"), [("sidecar", 378), ("transcript-record", 4), ("manifest", 1)])
def test_every_plainly_typed_property_rejects_another_type(name, minimum):
    base, schema, checked = CASES[name][0], schemas.load(name), 0
    for path, kind in _typed_leaves(name):
        pointer = "".join(f"/{p}" for p in path)
        doc = copy.deepcopy(base)
        _put(doc, path, _RIGHT[kind])
        assert not [f for f in schema.check(doc) if f.pointer == pointer], pointer
        _put(doc, path, _WRONG[kind])
        assert [(f.level, f.message) for f in schema.check(doc) if f.pointer == pointer] == [
            (Level.ERROR, f"is {_NAMES[kind]}, not {kind}")
        ], pointer
        checked += 1
    assert checked >= minimum


_NAMES = {"string": "number", "number": "string", "boolean": "number", "array": "object", "object": "array"}


# ----------------------------------------------------------------------------- the fast predicate == jsonschema


_TRICKY = [
    UUID,
    UUID.upper(),
    "{" + UUID + "}",
    "urn:uuid:" + UUID,
    UUID.replace("-", ""),
    UUID + "\n",
    TS,
    TS + "\n",
    "2026-02-30T00:00:00Z",
    "2026-01-01t00:00:00z",
    "0",
    "-0",
    "007",
    "12345678901234567890",
    "123456789012345678901",
    "CORTEX_STEP_STATUS_DONE",
    "STATUS_COMPLETED",
    "CORTEX_STEP_TYPE_",
    "1.5s",
    "daemon",
    "auto",
    "",
    "\x00",
    SHA,
    "http://127.0.0.1:1",
    "corpus/x",
    "corpus/../x",
    "/abs",
]
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(_TRICKY),
    st.text(max_size=12),
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "status", "x", "createdAt", "results"]) | st.text(max_size=4), inner, max_size=3
        ),
    ),
    max_leaves=6,
)


def _paths(node, path=()):
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*path, i))


def _mutate(data, base):
    doc = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(list(_paths(doc))))
        value = data.draw(st.sampled_from(_TRICKY) | _VALUES)
        if not path:
            doc = value
            continue
        parent = doc
        for part in path[:-1]:
            parent = parent[part]
        if isinstance(parent, dict) and data.draw(st.booleans()):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = value
    return doc


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_predicate_agrees_with_jsonschema(name, data):
    base = CASES[name][0]
    doc = _mutate(data, base)
    schema = schemas.load(name)
    extended = _jsonschema(name).is_valid(doc)
    assert schema.is_valid(doc) == extended
    findings = schema.check(doc)
    assert (findings == []) == extended
    standard = Draft202012Validator(schema.document, format_checker=Draft202012Validator.FORMAT_CHECKER).is_valid(doc)
    distinct = all(
        distinct_pointers(doc, p) for p in ([["/cascadeId", "/agyReader/parentCascadeId"]] if name == "sidecar" else [])
    )
    assert (not [f for f in findings if f.level == Level.ERROR]) == (standard and distinct)


KEYWORDS_SCHEMA = {
    "$defs": {"pos": {"type": "integer", "minimum": 1}},
    "type": ["object", "array", "string", "null"],
    "properties": {
        "a": {"type": "number", "minimum": -1.5},
        "b": {"const": True},
        "c": {"const": 0},
        "d": {"const": None},
        "e": {"enum": ["x", 1, False]},
        "f": {"$ref": "#/$defs/pos"},
        "g": {"anyOf": [{"type": "string"}, {"type": "boolean"}]},
        "h": {"not": {"type": "object"}},
        "i": {"format": "uuid"},
        "j": {"format": "date-time"},
        "k": {"minLength": 2, "pattern": "^a"},
        "l": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": {"pattern": "^[a-z]+$(?!\\n)"},
            "additionalProperties": {"type": "integer"},
        },
        "m": {"type": "object", "properties": {"n": {}}, "additionalProperties": False},
        "o": {"const": 2.5},
        "p": {"type": ["string", "null"]},
        "q": {"type": "boolean"},
        "r": {"type": "integer"},
    },
    "items": {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "integer"}},
    "required": ["a"],
    "if": {"properties": {"a": {"const": 1}}},
    "then": {"required": ["b"]},
    "else": {"properties": {"b": False}},
    "allOf": [{"x-advisory": {"properties": {"c": {"type": "integer"}}}}, {"x-distinctPointers": ["/k", "/i"]}],
}


KEYWORDS_VALID = [
    {
        "a": 0,
        "c": 0,
        "d": None,
        "e": "x",
        "f": 1,
        "g": "s",
        "h": 1,
        "i": UUID,
        "j": TS,
        "k": "ab",
        "l": {"x": 1},
        "m": {"n": 1},
        "o": 2.5,
        "p": None,
        "q": True,
        "r": 2.0,
    },
    [[1], [2, 3]],
]
_KEYWORDS_PREDICATE = compile_predicate(KEYWORDS_SCHEMA)
_KEYWORDS_VALIDATOR = schemas._jsonschema_class()(KEYWORDS_SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)


def test_keywords_base_documents_are_valid():
    assert all(_KEYWORDS_VALIDATOR.is_valid(doc) and _KEYWORDS_PREDICATE(doc) for doc in KEYWORDS_VALID)


@settings(max_examples=400, deadline=None)
@given(data=st.data())
def test_compiled_keywords_agree_with_jsonschema(data):
    doc = _mutate(data, data.draw(st.sampled_from(KEYWORDS_VALID)))
    assert _KEYWORDS_PREDICATE(doc) == _KEYWORDS_VALIDATOR.is_valid(doc)


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(max_size=40), st.sampled_from(_TRICKY)))
def test_formats_agree_with_jsonschemas_format_checker(text):
    checker = Draft202012Validator.FORMAT_CHECKER
    for name, check in FORMATS.items():
        assert (name in checker.checkers) == (check is not None)
        if check is not None:
            assert check(text) == checker.conforms(text, name)


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"unevaluatedProperties": False}, "/: keyword 'unevaluatedProperties' is not supported"),
        ({"$ref": "https://example.com/s"}, "/: $ref 'https://example.com/s' is not supported: it does not resolve"),
        ({"format": "email"}, "/: format 'email' is not supported"),
        ({"$defs": {"a": {"$dynamicAnchor": "x"}}}, "/$defs/a: keyword '$dynamicAnchor' is not supported"),
        ({"properties": {"a": {"typo": 1}}}, "/properties/a: keyword 'typo' is not supported"),
        ({"$schema": "http://json-schema.org/draft-07/schema#"}, "/: $schema 'http://json-schema.org/draft-07/schema#'"),
        ({"pattern": "\\p{L}"}, "/: pattern '\\\\p{L}' is not supported by Python's re"),
        ({"$ref": "#/$defs/a", "$defs": {"a": {"$ref": "#"}}}, "/: references and in-place applicators loop back here"),
        ({"$ref": "#missing"}, "/: $ref '#missing' is not supported"),
        ({"minLength": -1}, "/: minLength must be a non-negative integer"),
    ],
)
def test_unsupported_schemas_are_refused_when_compiling(schema, message):
    with pytest.raises(UnsupportedSchema) as raised:
        compile_predicate(schema)
    assert str(raised.value).startswith(message)


def test_empty_enum_is_false_and_x_keywords_are_annotations():
    empty = compile_predicate({"enum": []})
    assert [empty(v) for v in ("a", 1, None, {}, [], True)] == [False] * 6
    annotated = compile_predicate({"type": "string", "x-evidence": "inferred", "x-anything": {"type": "integer"}})
    assert annotated("s") is True and annotated(1) is False


def test_anchor_and_relative_refs_resolve_without_hanging():
    anchor = compile_predicate({"$ref": "#foo", "$defs": {"A": {"$anchor": "foo", "type": "integer"}}})
    assert (anchor(1), anchor("a")) == (True, False)
    relative = compile_predicate(
        {
            "$id": "https://example.com/root.json",
            "$ref": "item.json",
            "$defs": {
                "item": {"$id": "item.json", "type": "array", "items": {"$ref": "#/$defs/n"}, "$defs": {"n": {"type": "number"}}}
            },
        }
    )
    assert (relative([1, 2.5]), relative(["a"])) == (True, False)


SUITE = Path(__file__).parents[1] / "data" / "json-schema-test-suite" / "draft2020-12"
SUITE_GROUPS = [
    pytest.param(group, id=f"{path.stem}:{n}")
    for path in sorted(SUITE.glob("*.json"))
    for n, group in enumerate(json.loads(path.read_text(encoding="utf-8")))
]


def _suite_outcome(group):
    """("refused", message) or ("compiled", [(case, agrees)]) for one suite group."""
    try:
        predicate = compile_predicate(group["schema"])
    except UnsupportedSchema as exc:
        return "refused", str(exc)
    formats = '"format"' in json.dumps(group["schema"])
    if formats:  # format assertion aside: our compiler asserts the formats it supports, as jsonschema's checker does
        checker = Draft202012Validator(group["schema"], format_checker=Draft202012Validator.FORMAT_CHECKER)
    cases = []
    for case in group["tests"]:
        expected = checker.is_valid(case["data"]) if formats else case["valid"]
        cases.append((case["description"], predicate(case["data"]) is expected, expected != case["valid"]))
    return "compiled", cases


@pytest.mark.parametrize("group", SUITE_GROUPS)
def test_json_schema_test_suite_draft_2020_12(group):
    outcome, detail = _suite_outcome(group)
    if outcome == "refused":
        assert re.match(r"^/\S*: ", detail) and "not supported" in detail, detail
    else:
        assert [case for case, agrees, _ in detail if not agrees] == []


def test_json_schema_test_suite_counts():
    answered = refused = format_asserted = refused_groups = 0
    for param in SUITE_GROUPS:
        group = param.values[0]
        outcome, detail = _suite_outcome(group)
        if outcome == "refused":
            refused += len(group["tests"])
            refused_groups += 1
        else:
            answered += sum(agrees for _, agrees, _ in detail)
            format_asserted += sum(differs for _, _, differs in detail)
    assert (len(SUITE_GROUPS), refused_groups, answered, format_asserted, refused) == (383, 134, 888, 1, 411)


# ----------------------------------------------------------------------------- evidence (x-evidence)


ALL_NAMES = tuple(schemas.names())


@pytest.mark.parametrize("name", ALL_NAMES)
def test_every_rule_carries_its_evidence(name):
    def walk(node):
        if isinstance(node, dict):
            if "x-rule" in node:
                assert node.get("x-evidence") in schemas.EVIDENCE, node["x-rule"]
            else:
                assert "x-evidence" not in node, node
            for key, value in node.items():
                if key not in ("const", "enum", "required", "x-distinctPointers"):
                    walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schemas.load(name).document)
    rules = schemas.catalog(name)
    assert len({r.rule for r in rules}) == len(rules) > 10 if name != "transcript-record" else len(rules) >= 15
    assert {r.rule: r.level for r in rules} == _rules(schemas.load(name).document)


def _inferred(node):
    """A copy of a schema in which every rule is ``inferred``."""
    if isinstance(node, dict):
        out = {k: (_inferred(v) if k not in ("const", "enum", "required", "x-distinctPointers") else v) for k, v in node.items()}
        if "x-evidence" in out:
            out["x-evidence"] = "inferred"
        return out
    if isinstance(node, list):
        return [_inferred(v) for v in node]
    return node


@pytest.mark.parametrize(("name", "base", "rule", "pointer", "good", "bad", "where"), list(_cases(Level.ERROR)))
def test_an_inferred_rule_never_makes_a_violation(name, base, rule, pointer, good, bad, where):
    """Each violation case again, against the schema with every rule marked ``inferred``: the
    same failure is found, as an advisory."""
    schema = schemas.Schema(_inferred(schemas.load(name).document))
    findings = schema.check(_set(base, pointer, bad))
    assert [(f.rule, f.level) for f in findings] == [(rule, Level.WARNING)]


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(["", "x", "DONE", UUID, TS, "12"]),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["type", "status", "a", "steps"]), inner, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_only_observed_or_documented_rules_make_violations(data):
    """Random damage to the base documents: every violation found comes from a rule whose
    evidence is ``observed`` or ``documented``."""
    name = data.draw(st.sampled_from(NAMES))
    evidence = {r.rule: r.evidence for r in schemas.catalog(name)}
    doc = copy.deepcopy(CASES[name][0])
    node = doc
    while isinstance(node, dict) and node and data.draw(st.booleans()):
        key = data.draw(st.sampled_from(sorted(node)))
        if isinstance(node[key], (dict, list)) and node[key] and data.draw(st.booleans()):
            node = node[key] if isinstance(node[key], dict) else node[key][0]
            continue
        node[key] = data.draw(_JSON)
        break
    for finding in schemas.load(name).check(doc):
        if finding.level == Level.ERROR:
            assert evidence[finding.rule] in ("observed", "documented"), finding


def test_evidence_must_be_one_of_the_three():
    with pytest.raises(ValueError, match="x-evidence of r must be one of observed, documented, inferred, not 'guessed'"):
        schemas.Schema({"x-rule": "r", "x-evidence": "guessed", "type": "object"})


def test_a_rule_without_evidence_counts_as_inferred():
    schema = schemas.Schema({"x-rule": "r", "type": "object"})
    assert [(f.rule, f.level) for f in schema.check([])] == [("r", Level.WARNING)]


def test_an_enum_number_is_one_advisory_saying_so():
    doc = _set(_set(SIDECAR, STEP + "/type", 250), STEP + "/status", 13)
    findings = schemas.load("sidecar").check(doc)
    assert [(f.pointer, f.rule, f.level, f.message) for f in findings] == [
        (STEP + "/status", "sidecar/enum-number", Level.WARNING, "is the number 13: an enum value unknown to agy-audit"),
        (STEP + "/type", "sidecar/enum-number", Level.WARNING, "is the number 250: an enum value unknown to agy-audit"),
    ]
