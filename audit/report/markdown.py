"""A trajectory as readable Markdown (the ``export --format md`` formatter), and the escaping of a
table cell every Markdown report uses (``table_cell``). Never computes."""

from __future__ import annotations

import json
from typing import Any

from audit.display import escape_for_terminal
from audit.report.text import step_ranges

_FENCE = "````"


def table_cell(text: str) -> str:
    """One Markdown table cell or list item: one line, controls shown escaped, ``|``, backquotes
    and ``<`` (which would start HTML in a GitHub job summary) escaped."""
    cell = escape_for_terminal(" ".join(text.split()))
    return cell.replace("|", "\\|").replace("`", "\\`").replace("<", "&lt;")


def _strip(name: object, prefix: str) -> str:
    return str(name).removeprefix(prefix) if name is not None else "?"


def trajectory_markdown(doc: dict[str, Any], *, title: str | None = None) -> str:
    steps = doc.get("steps") or []
    out = [f"# {title or 'Conversation ' + str(doc.get('cascadeId', '?'))}", ""]
    meta = doc.get("metadata") or {}
    facts = [
        ("cascade id", doc.get("cascadeId")),
        ("trajectory id", doc.get("trajectoryId")),
        ("type", doc.get("trajectoryType")),
        ("source", doc.get("source")),
        ("created", meta.get("createdAt")),
        ("parent", meta.get("parentConversationId")),
        ("steps", len(steps)),
    ]
    out += [f"- **{k}:** {v}" for k, v in facts if v not in (None, "")]
    out += _provenance(doc)
    for i, step in enumerate(steps):
        out += ["", _step_heading(i, step), ""]
        out += _step_body(step)
    return "\n".join(out).rstrip() + "\n"


def _provenance(doc: dict[str, Any]) -> list[str]:
    """An export's ``agyReader.agyAudit.provenance`` as two facts: what made it, what it left out."""
    reader = doc.get("agyReader")
    ours = reader.get("agyAudit") if isinstance(reader, dict) else None
    found = ours.get("provenance") if isinstance(ours, dict) else None
    if not isinstance(found, dict):
        return []
    source = given if isinstance(given := found.get("source"), dict) else {}
    made = ", ".join(f"{k} {v}" for k, v in source.items())
    lines = [f"- **exported:** {found.get('exportFormat')} by {found.get('decoderProfile')} from {made}"]
    left = [u for u in found.get("undecoded") or () if isinstance(u, dict)]
    parts = [f"{u.get('kind')} `{u.get('location')}` ({u.get('rows')} rows)" for u in left[:5]]
    more = f"; +{len(left) - 5} more" if len(left) > 5 else ""
    only = [e["step"] for e in found.get("transcriptOnly") or () if isinstance(e, dict) and isinstance(e.get("step"), int)]
    if only:
        parts.insert(0, f"{len(only)} step(s) only in the brain transcript (step {step_ranges(only)})")
    lines.append(f"- **left out:** {'; '.join(parts)}{more}" if parts else "- **left out:** nothing")
    return lines


def _step_heading(i: int, step: dict[str, Any]) -> str:
    kind = _strip(step.get("type"), "CORTEX_STEP_TYPE_")
    status = _strip(step.get("status"), "CORTEX_STEP_STATUS_")
    created = (step.get("metadata") or {}).get("createdAt", "")
    return f"## {i}. {kind} ({status}) {created}".rstrip()


def _block(text: object, lang: str = "") -> list[str]:
    return [_FENCE + lang, str(text), _FENCE]


def _step_body(step: dict[str, Any]) -> list[str]:
    lines: list[str] = []
    if "userInput" in step:
        lines += _block(step["userInput"].get("userResponse", ""))
    if "plannerResponse" in step:
        planner = step["plannerResponse"]
        if planner.get("thinking"):
            lines += ["*thinking*", ""] + _block(planner["thinking"]) + [""]
        if planner.get("response"):
            lines += [str(planner["response"]), ""]
        for call in planner.get("toolCalls") or []:
            lines += [f"- tool call `{call.get('name', '?')}`: `{call.get('argumentsJson', '')}`"]
    if "runCommand" in step:
        run = step["runCommand"]
        if run.get("commandLine"):
            lines += _block("$ " + str(run["commandLine"]), "sh")
        output = run.get("combinedOutput")
        text = output.get("full", "") if isinstance(output, dict) else output
        if text:
            lines += _block(text)
        if "exitCode" in run:
            lines += [f"exit code {run['exitCode']}"]
    if "viewFile" in step:
        view = step["viewFile"]
        lines += [f"`{view.get('absolutePathUri', '')}`"] + _block(view.get("content", ""))
    if "errorMessage" in step:
        error = (step["errorMessage"] or {}).get("error") or {}
        lines += [f"**error:** {error.get('shortError') or error.get('userErrorMessage') or ''}"]
    shown = {"type", "status", "metadata", "userInput", "plannerResponse", "runCommand", "viewFile", "errorMessage"}
    for key in sorted(set(step) - shown):
        lines += [f"`{key}`:"] + _block(json.dumps(step[key], indent=2, ensure_ascii=False), "json")
    return lines
