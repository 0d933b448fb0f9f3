"""Offline trajectories: one session's conversation from its ``.db``, else its brain transcript.

The ``.db`` route is the full reconstruction of ``audit.store.trajectory``. The transcript route keeps
what a transcript carries: per step ``type``, ``status``, ``metadata.createdAt``/``source`` and the
text payloads (prompt, response, thinking, tool calls with their JSON-text arguments, command
output and exit code). A legacy ``.pb`` without a ``.db`` is read as a ``.db`` is when the user
gives their own key (``audit.store.legacy_pb``); without one it is never decoded.

Every export declares what it is and what it left out, in our own key of the reader block,
``agyReader.agyAudit.provenance`` (excluded from the shape fingerprint with the block):
``exportFormat`` (``agy-audit-export/1``), ``decoderProfile`` (the digest of the compiled
``cortex.proto``, or the transcript reader), ``source`` (``{"kind": "db", "userVersion",
"contentSha256"}``: the logical content of the snapshot read, as ``completeness`` attests it; or
``{"kind": "pb", "contentSha256"}`` for a legacy ``.pb``, digest of the rows it splits into; or
``{"kind": "transcript", "file", "sha256"}``), ``undecoded``: every table, column, schema version
and protobuf field the reconstruction does not carry, or transcript line it dropped, with its
location (``[{"location", "kind", "rows"}]``), and ``transcriptOnly``: the steps a ``.db`` export
could not include because only the session's brain transcripts hold them (a ``.db`` that lags its
transcripts), ``[{"step", "type", "locations"}]`` with each record's ``file:line`` per tier (empty
for a transcript export, which takes every step its transcript holds).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks.consistency import read_tiers
from audit.errors import InputError
from audit.safeio import open_regular
from audit.store import transcript
from audit.store.database import NativeConversation, read_database
from audit.store.layout import Session
from audit.store.legacy_pb import KEY_HINT, Key, read_legacy
from audit.store.proto import cortex_pb2 as pb
from audit.store.trajectory import reconstruct
from audit.strictjson import dumps

EXPORT_FORMAT = "agy-audit-export/1"
DECODER_PROFILE = "cortex.proto sha256:" + hashlib.sha256(pb.DESCRIPTOR.serialized_pb).hexdigest()
"""Which decoder made a ``.db`` export: the digest of the compiled ``cortex.proto`` descriptor."""
TRANSCRIPT_PROFILE = "brain transcript reader (audit.store.transcript)"
LEFT_OUT_CODES = frozenset({"undecoded-table", "undecoded-column", "unknown-user-version"})
"""Findings about content the export leaves out and declares (``provenance.undecoded``): never a
reason to refuse it, even where a projection of the steps would read."""

# Transcript types whose ``content`` maps onto one text member of the sidecar payload.
_TEXT_PAYLOADS = {
    "VIEW_FILE": ("viewFile", "content"),
    "SYSTEM_MESSAGE": ("systemMessage", "message"),
    "EPHEMERAL_MESSAGE": ("ephemeralMessage", "content"),
    "CONVERSATION_HISTORY": ("conversationHistory", "content"),
}


@dataclass
class Export:
    id: str
    source: str  # "db" | "pb" | "transcript"
    path: Path
    trajectory: dict[str, Any]
    findings: list[str] = field(default_factory=list)  # one line each, naming the file
    blocking: list[str] = field(default_factory=list)
    """The findings that mean the steps could not be decoded as stored (a subset of ``findings``):
    the export is refused for these only; the others concern content outside the steps."""
    transcript_only: list[dict[str, Any]] = field(default_factory=list)
    """The steps only the brain transcripts hold (``provenance.transcriptOnly``), not exported."""


def export_session(session: Session, key: Key | None = None) -> Export:
    """The offline trajectory of *session* (a legacy ``.pb`` alone is read with the user's *key*);
    ``InputError`` when it has no readable native source."""
    if session.db is not None:
        conv = read_database(session.db)
        return _from_conversation(session, conv, "db", {"kind": "db", "userVersion": conv.user_version})
    if session.legacy_pb is not None and key is not None:
        return _from_conversation(session, read_legacy(session.legacy_pb, key), "pb", {"kind": "pb"})
    if session.brain is not None:
        files = transcript.locate(session.brain)
        stream = files.full or files.compact
        if stream:
            return _from_transcript(session.id, stream)
    what = (
        f"a legacy encrypted .pb (only the user's own key reads it: {KEY_HINT})"
        if session.legacy_pb
        else "no .db and no brain transcript"
    )
    raise InputError(f"{session.id}: nothing to export: {what}")


def _from_conversation(session: Session, conv: NativeConversation, kind: str, source: dict[str, Any]) -> Export:
    """The export of the conversation *conv* read from the session's ``.db`` or ``.pb`` (*kind*)."""
    native = reconstruct(conv)
    undecoded = [{"location": u.location, "kind": u.kind, "rows": u.rows} for u in native.undecoded()]
    missing = _transcript_only(conv, session.brain)
    return Export(
        session.id,
        kind,
        conv.path,
        _declared(native.trajectory, DECODER_PROFILE, {**source, "contentSha256": conv.content_sha256()}, undecoded, missing),
        [f.message for f in native.findings],
        [f.message for f in native.projection_findings if f.code not in LEFT_OUT_CODES],
        missing,
    )


def _transcript_only(conv: NativeConversation, brain: Path | None) -> list[dict[str, Any]]:
    """The steps of *brain*'s transcripts (every tier) that the ``.db`` snapshot *conv* does not
    hold, by step index: ``{"step", "type", "locations"}`` (``file:line`` of its last record in
    each tier that has it); none when the ``.db`` could not be read or there is no brain."""
    if brain is None or not conv.access:
        return []
    held = {row.get("idx") for row in conv.steps}
    found: dict[int, dict[str, Any]] = {}
    tiers, _ = read_tiers(brain)  # unreadable transcript files are consistency's and inspect's to report
    for records in tiers.values():
        for index, record in sorted(records.latest.items()):
            if index in held:
                continue
            entry = found.setdefault(index, {"step": index, "type": record.type, "locations": []})
            entry["locations"].append(f"{Path(record.file).name}:{record.line}")
    return [found[i] for i in sorted(found)]


def _from_transcript(cid: str, paths: tuple[Path, ...]) -> Export:
    steps: list[dict[str, Any]] = []
    findings: list[str] = []
    undecoded: list[dict[str, Any]] = []
    by_index: dict[int, int] = {}
    for item in transcript.iter_transcript(paths):
        if isinstance(item, transcript.Anomaly):
            findings.append(f"{item.file}:{item.line}: {item.kind}: {item.message}")
            undecoded.append({"location": f"{Path(item.file).name}:{item.line}", "kind": item.kind, "rows": 1})
            continue
        step = _step(item)
        if item.step_index is not None and item.step_index in by_index:  # a re-used index supersedes
            steps[by_index[item.step_index]] = step
            continue
        if item.step_index is not None:
            by_index[item.step_index] = len(steps)
        steps.append(step)
    doc = {"cascadeId": cid, "steps": steps}
    digest = hashlib.sha256()
    for path in paths:
        try:
            with open_regular(path) as fh:
                while chunk := fh.read(1 << 20):
                    digest.update(chunk)
        except OSError as exc:
            raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    source = {"kind": "transcript", "file": paths[-1].name, "sha256": digest.hexdigest()}
    return Export(cid, "transcript", paths[-1], _declared(doc, TRANSCRIPT_PROFILE, source, undecoded), findings)


def _declared(
    trajectory: dict[str, Any],
    profile: str,
    source: dict[str, Any],
    undecoded: list[dict[str, Any]],
    transcript_only: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """*trajectory* with ``agyReader.agyAudit.provenance`` (see the module docstring)."""
    provenance = {
        "exportFormat": EXPORT_FORMAT,
        "decoderProfile": profile,
        "source": source,
        "undecoded": undecoded,
        "transcriptOnly": list(transcript_only),
    }
    return {**trajectory, "agyReader": {"agyAudit": {"provenance": provenance}}}


def _step(record: transcript.Record) -> dict[str, Any]:
    step: dict[str, Any] = {}
    if record.type:
        step["type"] = "CORTEX_STEP_TYPE_" + record.type
    if record.status:
        step["status"] = "CORTEX_STEP_STATUS_" + record.status
    metadata: dict[str, Any] = {}
    if record.created_at:
        metadata["createdAt"] = record.created_at
    if record.source:
        metadata["source"] = "CORTEX_STEP_SOURCE_" + record.source
    step["metadata"] = metadata
    info = record.info
    if record.type == "USER_INPUT":
        text = info.user_request if info.user_request is not None else record.content
        step["userInput"] = {"userResponse": text or ""}
    elif record.type == "PLANNER_RESPONSE":
        payload: dict[str, Any] = {}
        if record.content:
            payload["response"] = record.content
        if record.thinking:
            payload["thinking"] = record.thinking
        if record.tool_calls:
            payload["toolCalls"] = [{"name": call.name, "argumentsJson": _arguments_json(call)} for call in record.tool_calls]
        step["plannerResponse"] = payload
    elif record.type == "RUN_COMMAND":
        run: dict[str, Any] = {"combinedOutput": {"full": record.content or ""}}
        code = record.exit_code if record.exit_code is not None else info.exit_code
        if code is not None:
            run["exitCode"] = code
        step["runCommand"] = run
    elif record.type == "ERROR_MESSAGE":
        step["errorMessage"] = {"error": {"shortError": record.error or record.content or ""}}
    elif record.type in _TEXT_PAYLOADS and record.content:
        key, member = _TEXT_PAYLOADS[record.type]
        step[key] = {member: record.content}
    return step


def _arguments_json(call: transcript.ToolCall) -> str:
    """Tool-call arguments as one JSON object text; values that did not decode stay raw strings."""
    return dumps({k: (a.value if a.decoded else a.raw) for k, a in call.args.items()}, indent=None)
