"""Transcript records from sidecar steps, for tests: ``records_from_steps`` derives them (the full
tier's form: tool-call arguments are native JSON values) from sidecar-shaped steps (proto3-JSON
dicts), so a session's transcript agrees with its sidecar: one record per step, same order, enum
names minus their prefixes, ``created_at`` = ``metadata.createdAt`` cut to seconds,
``error_code`` from ``errorMessage.error.errorCode``; each step type has its own body
(``content``, ``thinking``, ``tool_calls``, ``exit_code``, ``error``). ``audit.testing.transcripts``
writes them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from audit.strictjson import JSONError, loads

LOCAL_TIME = timezone(timedelta(hours=9))
"""The user's offset used in ``Created At:`` headers (the records' ``created_at`` is UTC)."""

EPHEMERAL_PREAMBLE = (
    "The following is an <EPHEMERAL_MESSAGE> not actually sent by the user. It is provided by the "
    "system as a set of reminders and general important information to pay attention to.\n"
)
_SYSTEM_TYPES = frozenset(
    {"SYSTEM_MESSAGE", "ERROR_MESSAGE", "CONVERSATION_HISTORY", "KNOWLEDGE_ARTIFACTS", "CHECKPOINT", "EPHEMERAL_MESSAGE"}
)
_TIMESTAMP = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)")


def records_from_steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One transcript record (full form) per sidecar step, in step order."""
    return [_record(index, step) for index, step in enumerate(steps)]


def _strip(value: object, prefix: str) -> str | None:
    return value.removeprefix(prefix) if isinstance(value, str) else None


def _record(index: int, step: dict[str, Any]) -> dict[str, Any]:
    kind = _strip(step.get("type"), "CORTEX_STEP_TYPE_") or "UNSPECIFIED"
    meta = step.get("metadata") or {}
    default_source = "USER_EXPLICIT" if kind == "USER_INPUT" else "SYSTEM" if kind in _SYSTEM_TYPES else "MODEL"
    record: dict[str, Any] = {
        "step_index": index,
        "source": _strip(meta.get("source"), "CORTEX_STEP_SOURCE_") or default_source,
        "type": kind,
        "status": _strip(step.get("status"), "CORTEX_STEP_STATUS_") or "DONE",
    }
    if "createdAt" in meta:
        record["created_at"] = _utc_seconds(meta["createdAt"])
    header = "".join(
        f"{label}: {_local(meta[key])}\n"
        for label, key in (("Created At", "createdAt"), ("Completed At", "completedAt"))
        if key in meta
    )
    body = _BODIES.get(kind, _tool_result)(step, header, record["status"])
    record.update({k: v for k, v in body.items() if v not in (None, "", [])})
    return record


def parse_time(text: str) -> datetime:
    m = _TIMESTAMP.match(text)
    if not m:
        raise ValueError(f"not an RFC 3339 timestamp: {text!r}")
    return datetime.fromisoformat(m.group(1) + m.group(2).replace("Z", "+00:00"))


def _utc_seconds(text: str) -> str:
    return parse_time(text).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _local(text: str) -> str:
    return parse_time(text).astimezone(LOCAL_TIME).isoformat()


def _user_input(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    payload = step.get("userInput") or {}
    text = payload.get("userResponse") or "\n".join(i["text"] for i in payload.get("items", []) if "text" in i)
    created = (step.get("metadata") or {}).get("createdAt")
    extra = f"<ADDITIONAL_METADATA>\nThe current local time is: {_local(created)}.\n</ADDITIONAL_METADATA>" if created else ""
    return {"content": f"<USER_REQUEST>\n{text}\n</USER_REQUEST>\n{extra}"}


def _planner(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    payload = step.get("plannerResponse") or {}
    return {
        "content": payload.get("modifiedResponse") or payload.get("response"),
        "thinking": payload.get("thinking"),
        "tool_calls": [{"name": c.get("name", ""), "args": _args(c)} for c in payload.get("toolCalls", [])],
    }


def _args(call: dict[str, Any]) -> dict[str, object]:
    """Arguments as the full tier logs them: native JSON values; UX metadata args always present
    (the compact tier writes each value as JSON text, see ``write_brain``)."""
    try:
        decoded: dict[str, object] = loads(call.get("argumentsJson") or "{}")
    except JSONError:
        decoded = {}
    name = call.get("name", "")
    summary = next((v[:60] for v in decoded.values() if isinstance(v, str)), name)
    decoded.setdefault("toolAction", name.replace("_", " ").capitalize())
    decoded.setdefault("toolSummary", summary)
    return decoded


def _run_command(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    payload = step.get("runCommand") or {}
    if status == "RUNNING":  # write_brain turns it into a background task
        return {"content": header}
    output = payload.get("combinedOutput")
    output = output.get("full", "") if isinstance(output, dict) else output or ""
    code = int(payload.get("exitCode", 0))
    return {"content": f"{header}The command exited with code {code}.\nOutput:\n{output}", "exit_code": code}


def _view_file(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    payload = step.get("viewFile") or {}
    lines = (payload.get("content") or "").split("\n")
    first = int(payload.get("startLine", 1) or 1)
    numbered = "\n".join(f"{n}: {text}" for n, text in enumerate(lines, first))
    return {
        "content": (
            f"{header}File Path: `{payload.get('absolutePathUri', '')}`\nTotal Lines: {len(lines)}\n{numbered}\n"
            "The above content shows the entire, complete file contents of the requested file."
        )
    }


def _code_action(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    payload = step.get("codeAction") or {}
    edit = (payload.get("actionResult") or {}).get("edit") or {}
    uri = edit.get("absoluteUri", "")
    if edit.get("createFile") or "createFile" in (payload.get("actionSpec") or {}):
        return {"content": f"{header}Created file {uri}"}
    tool = ((step.get("metadata") or {}).get("toolCall") or {}).get("name") or "replace_file_content"
    sign = {"UNIFIED_DIFF_LINE_TYPE_INSERT": "+", "UNIFIED_DIFF_LINE_TYPE_DELETE": "-"}
    lines = ((edit.get("diff") or {}).get("unifiedDiff") or {}).get("lines", [])
    diff = "".join(f"{sign.get(line.get('type'), ' ')}{line.get('text', '')}\n" for line in lines)
    block = f"\n[diff_block_start]\n{diff}[diff_block_end]" if diff else ""
    return {"content": f"{header}The following changes were made by the {tool} tool to: {uri.removeprefix('file://')}.{block}"}


def _error_message(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    error = (step.get("errorMessage") or {}).get("error") or {}
    out: dict[str, Any] = {
        "error": error.get("shortError") or error.get("userErrorMessage") or error.get("modelErrorMessage") or "error"
    }
    if isinstance(error.get("errorCode"), int):
        out["error_code"] = error["errorCode"]  # newer builds (docs/store-format.md#transcript-records)
    return out


def _ephemeral(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    return {"content": EPHEMERAL_PREAMBLE + ((step.get("ephemeralMessage") or {}).get("content") or "")}


def _checkpoint(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    payload = step.get("checkpoint") or {}
    return {"content": payload.get("sessionSummary") or payload.get("userIntent")}


def _system_message(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    return {"content": (step.get("systemMessage") or {}).get("message")}


def _tool_result(step: dict[str, Any], header: str, status: str) -> dict[str, Any]:
    return {"content": header.rstrip("\n")}


_BODIES = {
    "USER_INPUT": _user_input,
    "PLANNER_RESPONSE": _planner,
    "RUN_COMMAND": _run_command,
    "VIEW_FILE": _view_file,
    "CODE_ACTION": _code_action,
    "ERROR_MESSAGE": _error_message,
    "EPHEMERAL_MESSAGE": _ephemeral,
    "CHECKPOINT": _checkpoint,
    "SYSTEM_MESSAGE": _system_message,
    "CONVERSATION_HISTORY": lambda step, header, status: {},
    "KNOWLEDGE_ARTIFACTS": lambda step, header, status: {},  # an empty payload: nothing to write
}
