"""What the transcript modules share: the tiers and their file names, the finding kinds
(``KINDS``, ``DROPPED``), the documented record keys and enum names, and the records the reader
yields (``Record``, ``ToolCall``, ``Arg``, ``Anomaly``), with ``Summary`` counting over them.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from audit.store.transcript.content import ContentInfo, parse_content

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest line (without its newline) that is parsed; longer lines are skipped with a finding."""

CHUNK_BYTES = 102_400
"""agy rolls a tier's chunk files at exactly this many bytes, mid-line (docs/store-format.md#chunks)."""

TIERS = ("compact", "full", "overview")
"""The three transcript tiers: ``transcript.jsonl`` and ``chunks/transcript/``, ``transcript_full.jsonl``
and ``chunks/transcript_full/``, and ``overview.txt`` (the compact format, docs/store-format.md#transcript-records)."""
TEXT_TIERS = frozenset({"compact", "overview"})
"""Tiers whose tool-call argument values are strings holding JSON text; the full tier holds native values."""
FLAT_NAMES = {"compact": "transcript.jsonl", "full": "transcript_full.jsonl", "overview": "overview.txt"}
CHUNK_DIRS = {"compact": "transcript", "full": "transcript_full"}

KINDS: dict[str, str] = {
    # whole files
    "unreadable": "a transcript file cannot be opened or read (missing, symlink, not a regular file, I/O error)",
    "foreign-file": "a file in a chunk directory whose name is not <number>.jsonl; not read",
    "chunks-differ": "a tier's flat file and its concatenated chunks hold different bytes",
    # one line, not turned into a record (see DROPPED)
    "line-too-long": "a line longer than the size cap; skipped",
    "blank-line": "an empty or whitespace-only line",
    "bad-utf8": "a line that is not valid UTF-8",
    "bad-json": "a line that is not strict JSON (torn line, syntax error, duplicate key, NaN ...)",
    "not-object": "a line holding JSON that is not an object",
    # one line, also yielded as a record
    "unterminated-line": "the last line of a stream does not end with a newline (torn write)",
    "missing-key": "a key every real line has (step_index, source, type, created_at) or a tool call name/args is absent",
    "no-status": "a record without status (proto3 JSON drops zero values: UNSPECIFIED)",
    "unknown-key": "a key outside the documented record / tool-call keys",
    "bad-value": "a value of the wrong JSON type or out of range (negative step_index, non-RFC 3339 created_at ...)",
    "truncated-arg": "a compact-tier or overview argument cut by a <truncated N bytes> marker (no longer JSON text)",
    "unknown-source": "a source outside the CortexStepSource names",
    "unknown-type": "a type outside the known CortexStepType names",
    "unknown-status": "a status outside the CortexStepStatus names",
    "repeated-step": "a step_index seen before in the same transcript (rewind/re-use; the later line supersedes)",
    "inverted-step": "a step_index lower than an earlier one that was not seen before",
    "step-gap": "a step_index more than one above the highest seen so far (steps skipped)",
    "backward-time": "a created_at earlier than the one of the line before",
    "truncated-full": "a full-tier or overview record carries truncated_fields (only the compact tier truncates)",
    # one stream
    "late-window": "the stream's first step_index is above 0 (a window that starts late)",
    "tier-encoding": "every tool-call argument of the stream has the other tier's encoding",
    "mixed-encoding": "the stream's tool-call arguments use both encodings (JSON text and native values)",
    # compact vs full
    "late-start": "the compact transcript starts at a later step than the full one (a window)",
    "unpaired": "a compact record with no full counterpart, or a full record inside the compact window with none",
    "mismatch": "a field that is not listed in truncated_fields differs between compact and full",
    "truncation-mismatch": "a truncated compact field whose text pieces do not occur in order in the full text",
}

DROPPED = frozenset({"line-too-long", "blank-line", "bad-utf8", "bad-json", "not-object"})
"""Kinds of line findings whose line yields no record."""

EXPECTED_KEYS = ("step_index", "source", "type", "created_at")
RECORD_KEYS = frozenset(
    EXPECTED_KEYS + ("status", "content", "thinking", "tool_calls", "truncated_fields", "error", "error_code", "exit_code")
)
KNOWN_SOURCES = frozenset({"MODEL", "USER_IMPLICIT", "USER_EXPLICIT", "SYSTEM", "SYSTEM_SDK"})
# CortexStepStatus names; CANCELLED is DM's spelling of CANCELED.
KNOWN_STATUSES = frozenset(
    {
        "UNSPECIFIED",
        "PENDING",
        "RUNNING",
        "DONE",
        "INVALID",
        "CLEARED",
        "CANCELED",
        "CANCELLED",
        "ERROR",
        "GENERATING",
        "WAITING",
        "QUEUED",
        "INTERRUPTED",
    }
)
# CortexStepType names known by name (docs/store-format.md#enums) plus transcript-only GENERIC / ASK_QUESTION.
KNOWN_TYPES = frozenset(
    {
        "PLAN_INPUT",
        "CODE_ACTION",
        "GREP_SEARCH",
        "VIEW_FILE",
        "LIST_DIRECTORY",
        "USER_INPUT",
        "PLANNER_RESPONSE",
        "ERROR_MESSAGE",
        "RUN_COMMAND",
        "CHECKPOINT",
        "FIND",
        "SUGGESTED_RESPONSES",
        "COMMAND_STATUS",
        "MEMORY",
        "READ_URL_CONTENT",
        "VIEW_CONTENT_CHUNK",
        "SEARCH_WEB",
        "RETRIEVE_MEMORY",
        "MCP_TOOL",
        "CLIPBOARD",
        "VIEW_FILE_OUTLINE",
        "LINT_DIFF",
        "CODE_SEARCH",
        "TASK_BOUNDARY",
        "NOTIFY_USER",
        "CODE_ACKNOWLEDGEMENT",
        "INTERNAL_SEARCH",
        "BROWSER_SUBAGENT",
        "FILE_CHANGE",
        "MOVE",
        "KNOWLEDGE_GENERATION",
        "EPHEMERAL_MESSAGE",
        "GENERATE_IMAGE",
        "DELETE_DIRECTORY",
        "CONVERSATION_HISTORY",
        "KNOWLEDGE_ARTIFACTS",
        "SEND_COMMAND_INPUT",
        "SYSTEM_MESSAGE",
        "WAIT",
        "AGENCY_TOOL_CALL",
        "SHELL_EXEC",
        "KI_INSERTION",
        "WORKSPACE_API",
        "INVOKE_SUBAGENT",
        "WRITE_BLOB",
        "GENERIC",
        "ASK_QUESTION",
    }
)
_MARKER = re.compile(r"<truncated \d+ (?:bytes|lines)>")
_CHUNK_NAME = re.compile(r"\d{1,18}\.jsonl")


def tier_of(path: str | os.PathLike[str]) -> str | None:
    """The tier a transcript file belongs to, by its name and place; None for any other file."""
    p = Path(path)
    for tier, name in FLAT_NAMES.items():
        if p.name == name:
            return tier
    if _CHUNK_NAME.fullmatch(p.name) and p.parent.parent.name == "chunks":
        return next((tier for tier, name in CHUNK_DIRS.items() if p.parent.name == name), None)
    return None


@dataclass(frozen=True)
class Anomaly:
    """What the reader met at one line of one file; ``kind`` is a key of ``KINDS``."""

    file: str
    line: int  # 1-based; 0 = the whole file
    kind: str  # a key of KINDS
    message: str
    pointer: str = ""  # RFC 6901 pointer into the record, where one value is meant


@dataclass(frozen=True)
class Arg:
    """One tool-call argument: ``raw`` as stored, ``value`` decoded from it when ``decoded``
    (compact tier and overview: the JSON text parsed; full tier: the native value itself)."""

    raw: object
    value: object
    decoded: bool


@dataclass(frozen=True)
class ToolCall:
    name: str | None
    args: dict[str, Arg]


@dataclass(frozen=True)
class Record:
    file: str  # the file the record starts in (a chunk part for chunked streams)
    line: int  # its line in that file
    step_index: int | None
    source: str | None
    type: str | None
    status: str | None
    created_at: str | None
    content: str | None
    thinking: str | None
    tool_calls: tuple[ToolCall, ...]
    truncated_fields: tuple[str, ...]
    error: str | None
    exit_code: int | None
    raw: dict[str, Any]
    error_code: int | None = None
    tier: str | None = None

    @cached_property
    def info(self) -> ContentInfo:
        """The metadata carried by ``content``."""
        return parse_content(self.content or "")


# ----------------------------------------------------------------------------- summaries


@dataclass
class Summary:
    """Counts over a stream of records and findings (feed it with ``add`` or ``summarize``)."""

    records: int = 0
    types: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    sources: Counter[str] = field(default_factory=Counter)
    tools: Counter[str] = field(default_factory=Counter)
    keys: Counter[str] = field(default_factory=Counter)  # top-level record keys
    findings: Counter[str] = field(default_factory=Counter)  # per kind
    first_step: int | None = None
    last_step: int | None = None  # highest step_index

    def add(self, item: Record | Anomaly) -> None:
        if isinstance(item, Anomaly):
            self.findings[item.kind] += 1
            return
        self.records += 1
        for counter, value in ((self.types, item.type), (self.statuses, item.status), (self.sources, item.source)):
            if value is not None:
                counter[value] += 1
        self.tools.update(c.name for c in item.tool_calls if c.name is not None)
        self.keys.update(item.raw.keys())
        if item.step_index is not None:
            if self.first_step is None:
                self.first_step = item.step_index
            self.last_step = max(item.step_index, self.last_step if self.last_step is not None else -1)


def summarize(items: Iterable[Record | Anomaly]) -> Summary:
    summary = Summary()
    for item in items:
        summary.add(item)
    return summary
