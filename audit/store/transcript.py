"""Brain transcripts: ``transcript.jsonl``, ``transcript_full.jsonl`` and their rolling chunks.

Reading streams: a file is read line by line in binary, a line longer than ``max_line_bytes`` is
skipped without being held, so memory does not grow with the file (beyond the set of step indexes
seen, kept to report repeated ones). Damage never stops reading:
every problem becomes an ``Anomaly`` (file, 1-based line, kind, message) and the next line is read.
A line either becomes a ``Record`` or gets exactly one anomaly whose kind is in ``DROPPED``;
records may carry further anomalies (missing keys, unknown enum names, step order ...). The reader
only says what it met: the checks judge anomalies into findings (``audit.findings.Finding``; the
rule ids and levels are ``audit.checks.contract``'s, one table for every command).

``pair_records`` pairs the compact and full transcripts of one brain directory and reports where
they disagree beyond the documented truncation; ``read_brain`` does everything for a brain dir
(it holds both transcripts in memory to pair them). ``parse_content`` turns the metadata that
record texts carry (``<USER_REQUEST>`` blocks, ``Created At:`` headers, exit-code sentences, ...)
into typed fields; the raw text stays on the record.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import Path
from typing import Any, BinaryIO, TypeVar, overload

from audit.clock import is_rfc3339
from audit.safeio import open_regular_fd
from audit.strictjson import JSONError, dumps, json_type, loads, loads_text, pointer_escape

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest line (without its newline) that is parsed; longer lines are skipped with a finding."""

CHUNK_BYTES = 102_400
"""agy rolls a tier's chunk files at exactly this many bytes, mid-line (docs/store-format.md#chunks)."""

_SKIP_BYTES = 1 << 20

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
_TOOL_CALL_KEYS = frozenset({"name", "args"})
_FRACTION = re.compile(r"(\.\d{1,6})\d*")
_MARKER = re.compile(r"<truncated \d+ (?:bytes|lines)>")
_CUT = re.compile(r"\n?<truncated \d+ (?:bytes|lines)>\n?")
"""A marker with the line breaks agy puts around it (docs/store-format.md#argument-encoding)."""
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


# ----------------------------------------------------------------------------- reading


def iter_transcript(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    tier: str | None = None,
) -> Iterator[Record | Anomaly]:
    """Stream the records and findings of one logical transcript.

    *paths* is one file or the parts of one stream (chunk files in order): their bytes are read
    as one stream, so a record that crosses from one part into the next is one record, reported
    at the file and line where it starts. *tier* (default: ``tier_of`` the first path) decides
    how tool-call arguments are decoded. Never raises for file content or I/O errors. Inside
    ``shared_reads`` a stream read before is not read again (see there).
    """
    files = [str(paths)] if isinstance(paths, (str, os.PathLike)) else [str(p) for p in paths]
    if tier is None and files:
        tier = tier_of(files[0])
    if not _SHARED:
        return _read_stream(files, max_line_bytes, tier)
    key = (tuple(files), tier, max_line_bytes)
    stats = tuple(_identity(f) for f in files)
    known = _SHARED[-1].get(key)
    if known is None or known[0] != stats or None in stats:
        known = _SHARED[-1][key] = (stats, list(_read_stream(files, max_line_bytes, tier)))
    return iter(known[1])


def _read_stream(files: list[str], max_line_bytes: int, tier: str | None) -> Iterator[Record | Anomaly]:
    state = _Stream(tier)
    for item in _stream_lines(files, max_line_bytes):
        if isinstance(item, Anomaly):
            yield item
        else:
            yield from _line(*item, max_line_bytes, state)
    yield from state.finish()


_SHARED: list[
    dict[tuple[tuple[str, ...], str | None, int], tuple[tuple[tuple[int, int, int] | None, ...], list[Record | Anomaly]]]
] = []


@contextlib.contextmanager
def shared_reads() -> Iterator[None]:
    """Within it, ``iter_transcript`` gives the records of a stream it read before (same files,
    tier and line limit, each file still of the same size, mtime and inode) without reading them
    again, so that several checks of one session parse its transcripts once; the records are held
    until the block ends (one session's transcripts, in ``ci``)."""
    _SHARED.append({})
    try:
        yield
    finally:
        _SHARED.pop()


def _identity(file: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(file)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def iter_bytes(
    data: bytes, file: str, *, tier: str | None = None, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record | Anomaly]:
    """``iter_transcript`` over bytes already read (*file* names them in findings)."""
    state = _Stream(tier if tier is not None else tier_of(file))
    for item in _split(io.BytesIO(data), file, max_line_bytes):
        yield from _line(*item, max_line_bytes, state)
    yield from state.finish()


class _StepOrder:
    def __init__(self) -> None:
        self.seen: set[int] = set()
        self.top: int | None = None

    def check(self, step: int) -> tuple[str, str] | None:
        top, self.top = self.top, step if self.top is None else max(self.top, step)
        if step in self.seen:
            return "repeated-step", f"step_index {step} seen before"
        self.seen.add(step)
        if top is None:
            return None
        if step < top:
            return "inverted-step", f"step_index {step} after {top}"
        if step > top + 1:
            return "step-gap", f"step_index {step} after {top}; {step - top - 1} skipped"
        return None


class _Stream:
    """What one stream's lines are judged against: step order, time order, argument encodings."""

    def __init__(self, tier: str | None) -> None:
        self.tier = tier
        self.order = _StepOrder()
        self.first_step = True
        self.previous_time: tuple[datetime, str, int] | None = None  # (created_at, file, line)
        self.encodings: dict[str, tuple[int, str, int, str]] = {}  # "text"/"native" -> first (seq, file, line, where)

    def encoding(self, kind: str, file: str, line: int, call: int, name: str) -> None:
        """Note the first argument (*name* of tool call number *call*) showing encoding *kind*."""
        if kind not in self.encodings:
            self.encodings[kind] = (len(self.encodings), file, line, _where(call, name))

    def finish(self) -> Iterator[Anomaly]:
        """The stream-level findings about argument encodings."""
        text, native = self.encodings.get("text"), self.encodings.get("native")
        name = f"{self.tier} tier" if self.tier else "transcript"
        if text and native:
            (_, file, line, where), other, what = (
                (native, text, "a native value") if native > text else (text, native, "JSON text")
            )
            yield Anomaly(
                file,
                line,
                "mixed-encoding",
                f"{name}: tool-call arguments in both encodings: {where} holds {what}, {other[3]} ({other[1]}:{other[2]}) the other",
                "/" + where,
            )
        elif self.tier in TEXT_TIERS and native:
            _, file, line, where = native
            message = f"{name} holds native argument values (the full tier's encoding), e.g. {where}"
            yield Anomaly(file, line, "tier-encoding", message, "/" + where)
        elif self.tier == "full" and text:
            _, file, line, where = text
            message = f"{name} holds JSON-text argument values (the compact tier's encoding), e.g. {where}"
            yield Anomaly(file, line, "tier-encoding", message, "/" + where)


_READ_BUFFER = 256 * 1024
"""Bytes read at a time from a transcript (the default 8 KiB makes line reading cost twice as much)."""


def _open(path: str) -> BinaryIO:
    fd = open_regular_fd(path, follow_symlinks=False)  # never blocks; a link or a FIFO is an OSError
    try:
        return os.fdopen(fd, "rb", buffering=_READ_BUFFER)
    except BaseException:
        os.close(fd)
        raise


def _unreadable(path: str, line: int, exc: OSError) -> Anomaly:
    reason = "is a symbolic link; not followed" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
    return Anomaly(path, line, "unreadable", f"cannot read: {reason}")


_Line = tuple[str, int, "bytes | None", bool]
"""(file and line where a line starts, its bytes without the newline or None when longer than
the cap, whether it ends with a newline)."""


def _stream_lines(paths: list[str], cap: int) -> Iterator[_Line | Anomaly]:
    """The lines of the concatenated *paths*. A line left open at the end of one part goes on in
    the next; an unreadable part ends it (it is then unterminated)."""
    pending: list[Any] | None = None  # [file, line, pieces or None once over the cap, size]
    for path in paths:
        line = 0
        at_start = True
        try:
            with _open(path) as fh:
                while piece := fh.readline(_SKIP_BYTES if pending is not None and pending[2] is None else cap + 1):
                    if at_start:
                        line += 1
                        if pending is None and piece[-1:] == b"\n":  # a whole line within the cap, in one piece
                            yield path, line, piece[:-1], True
                            continue
                    if pending is None:
                        pending = [path, line, [], 0]
                    terminated = piece.endswith(b"\n")
                    body = piece[:-1] if terminated else piece
                    if pending[2] is not None:
                        pending[3] += len(body)
                        if pending[3] > cap:
                            pending[2] = None
                        else:
                            pending[2].append(body)
                    at_start = terminated
                    if terminated:
                        yield pending[0], pending[1], _joined(pending), True
                        pending = None
        except OSError as exc:
            if pending is not None:
                yield pending[0], pending[1], _joined(pending), False
                pending = None
            yield _unreadable(path, 0 if line == 0 else line + 1, exc)
    if pending is not None:
        yield pending[0], pending[1], _joined(pending), False


def _joined(pending: list[Any]) -> bytes | None:
    return None if pending[2] is None else b"".join(pending[2])


def _split(fh: BinaryIO, file: str, cap: int) -> Iterator[_Line]:
    line = 0
    while chunk := fh.readline(cap + 1):
        line += 1
        if chunk.endswith(b"\n"):
            yield file, line, chunk[:-1], True
        elif len(chunk) <= cap:
            yield file, line, chunk, False
        else:
            while (rest := fh.readline(_SKIP_BYTES)) and not rest.endswith(b"\n"):
                pass
            yield file, line, None, bool(rest)


def _line(path: str, line: int, data: bytes | None, terminated: bool, cap: int, state: _Stream) -> list[Record | Anomaly]:
    """The findings and record of one line, in the order they are yielded."""
    items = _parsed(path, line, data, cap, state)
    if not terminated:
        items.append(_unterminated(path, line))
    return items


def _unterminated(path: str, line: int) -> Anomaly:
    return Anomaly(path, line, "unterminated-line", "last line does not end with a newline")


_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c")
"""The bytes ``bytes.strip()`` removes: a line starting with another byte is not blank."""


def _parsed(path: str, line: int, data: bytes | None, cap: int, state: _Stream) -> list[Record | Anomaly]:
    if data is None:
        return [Anomaly(path, line, "line-too-long", f"longer than {cap} bytes; skipped")]
    if (not data or data[0] in _ASCII_SPACE) and not data.strip():
        return [Anomaly(path, line, "blank-line", "empty line")]
    try:
        obj = loads(data, source=f"{path}:{line}", require_object=False)
    except JSONError as exc:
        # the parser refuses invalid UTF-8 (strictjson.loads), so a line it accepts needs no decoding
        # first; one it refuses is bad UTF-8 before it is bad JSON
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            return [Anomaly(path, line, "bad-utf8", f"invalid UTF-8 at byte {bad.start}")]
        at = f" at {exc.pointer or '/'}" if exc.pointer is not None else ""
        return [Anomaly(path, line, "bad-json", exc.reason + at, exc.pointer or "")]
    if not isinstance(obj, dict):
        return [Anomaly(path, line, "not-object", f"line holds a JSON {json_type(obj)}, not an object")]
    findings: list[Anomaly] = []
    record = _record(obj, path, line, findings, state)
    if record.step_index is not None:
        if state.first_step and record.step_index > 0:
            name = f"{state.tier} tier" if state.tier else "transcript"
            findings.append(Anomaly(path, line, "late-window", f"{name} starts at step {record.step_index}"))
        state.first_step = False
        if step := state.order.check(record.step_index):
            findings.append(Anomaly(path, line, *step))
    if record.created_at is not None and (moment := _moment(record.created_at)) is not None:
        before = state.previous_time
        if before is not None and moment < before[0]:
            findings.append(
                Anomaly(path, line, "backward-time", f"created_at {record.created_at} is before {before[1]} of the line before")
            )
        state.previous_time = (moment, record.created_at, line)
    return [*findings, record]


def _record(obj: dict[str, Any], path: str, line: int, out: list[Anomaly], state: _Stream | None = None) -> Record:
    """The record of one line's object; its findings are appended to *out*.

    A record every key and value of which is as documented (the common case) is built straight
    away; any other goes through ``_judged_record``, which says what is wrong. Both give equal
    records and findings (tests/test_transcript_fast.py)."""
    state = state if state is not None else _Stream(None)
    get = obj.get
    step, source, kind, status, created = get("step_index"), get("source"), get("type"), get("status"), get("created_at")
    truncated, calls = get("truncated_fields", _ABSENT), get("tool_calls", _ABSENT)
    content, thinking, error = get("content", _ABSENT), get("thinking", _ABSENT), get("error", _ABSENT)
    exit_code, error_code = get("exit_code", _ABSENT), get("error_code", _ABSENT)
    if not (
        type(step) is int
        and step >= 0
        and step in _INT64
        and type(source) is str
        and source in KNOWN_SOURCES
        and type(kind) is str
        and kind in KNOWN_TYPES
        and type(status) is str
        and status in KNOWN_STATUSES
        and type(created) is str
        and obj.keys() <= RECORD_KEYS
        and (content is _ABSENT or content is None or type(content) is str)
        and (thinking is _ABSENT or thinking is None or type(thinking) is str)
        and (error is _ABSENT or type(error) is str)
        and (exit_code is _ABSENT or (type(exit_code) is int and exit_code in _INT64))
        and (error_code is _ABSENT or (type(error_code) is int and error_code in _INT64))
        and (truncated is _ABSENT or (type(truncated) is list and (not truncated or _truncatable(truncated, state.tier))))
        and (calls is _ABSENT or (type(calls) is list and all(map(_plain_call, calls))))
        and is_rfc3339(created)
    ):
        return _judged_record(obj, path, line, out, state)
    return Record(
        file=path,
        line=line,
        step_index=step,
        source=source,
        type=kind,
        status=status,
        created_at=created,
        content=None if content is _ABSENT else content,  # null is no text (the schema allows it)
        thinking=None if thinking is _ABSENT else thinking,
        tool_calls=()
        if calls is _ABSENT
        else tuple(
            [
                ToolCall(call["name"], {arg: _arg(value, i, arg, state, path, line, out) for arg, value in call["args"].items()})
                for i, call in enumerate(calls)
            ]
        ),
        truncated_fields=() if truncated is _ABSENT else tuple(truncated),
        error=None if error is _ABSENT else error,
        exit_code=None if exit_code is _ABSENT else exit_code,
        raw=obj,
        error_code=None if error_code is _ABSENT else error_code,
        tier=state.tier,
    )


_ABSENT: Any = object()  # a key the line's object does not hold (typed Any: dict.get then gives its values' type)


def _truncatable(fields: list[Any], tier: str | None) -> bool:
    """*fields* (not empty) are strings, in a tier that truncates."""
    return tier not in ("full", "overview") and all(type(f) is str for f in fields)


def _plain_call(call: object) -> bool:
    """*call* is a tool call with exactly a string name and an object of arguments."""
    return type(call) is dict and call.keys() == _TOOL_CALL_KEYS and type(call["name"]) is str and type(call["args"]) is dict


def _judged_record(obj: dict[str, Any], path: str, line: int, out: list[Anomaly], state: _Stream) -> Record:
    """``_record`` for any object: every deviation from the documented record becomes a finding."""

    def emit(kind: str, message: str) -> None:
        out.append(Anomaly(path, line, kind, message))

    def get(key: str, want: type[_T], where: dict[str, Any] = obj, prefix: str = "", nullable: bool = False) -> _T | None:
        if key not in where or (nullable and where[key] is None):
            return None
        value = where[key]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            emit("bad-value", f"{prefix}{key} is {json_type(value)}, not {_JSON_NAME[want]}")
            return None
        if want is int and value not in _INT64:  # beyond any integer the format has (and past int-to-text limits)
            emit("bad-value", f"{prefix}{key} is out of range (not a 64-bit integer)")
            return None
        return value

    if missing := [k for k in EXPECTED_KEYS if k not in obj]:
        emit("missing-key", "missing " + ", ".join(missing))
    if "status" not in obj:
        emit("no-status", "no status: UNSPECIFIED (proto3 JSON drops zero values)")
    if unknown := sorted(obj.keys() - RECORD_KEYS):
        emit("unknown-key", "unknown " + ", ".join(unknown))
    step = get("step_index", int)
    if step is not None and step < 0:
        emit("bad-value", f"step_index {step} is negative")
        step = None
    enums: dict[str, str | None] = {}
    for key, known in (("source", KNOWN_SOURCES), ("type", KNOWN_TYPES), ("status", KNOWN_STATUSES)):
        enums[key] = value = get(key, str)
        if value is not None and value not in known:
            emit(f"unknown-{key}", f"{key} {value!r}")
    created = get("created_at", str)
    if created is not None and not is_rfc3339(created):
        emit("bad-value", f"created_at {created!r} is not an RFC 3339 timestamp")
    truncated = get("truncated_fields", list) or []
    if not all(isinstance(v, str) for v in truncated):
        emit("bad-value", "truncated_fields holds a non-string")
        truncated = [v for v in truncated if isinstance(v, str)]
    if truncated and state.tier in ("full", "overview"):
        emit("truncated-full", f"truncated_fields {', '.join(truncated)} in the {state.tier} tier")
    calls: list[ToolCall] = []
    for i, call in enumerate(get("tool_calls", list) or []):
        where = f"tool_calls/{i}/"
        if not isinstance(call, dict):
            emit("bad-value", f"{where[:-1]} is {json_type(call)}, not object")
            continue
        if missing := [k for k in ("name", "args") if k not in call]:
            emit("missing-key", f"{where[:-1]}: missing " + ", ".join(missing))
        if unknown := sorted(call.keys() - _TOOL_CALL_KEYS):
            emit("unknown-key", f"{where[:-1]}: unknown " + ", ".join(unknown))
        args = get("args", dict, call, where) or {}
        name = get("name", str, call, where)
        calls.append(ToolCall(name, {arg: _arg(value, i, arg, state, path, line, out) for arg, value in args.items()}))
    return Record(
        file=path,
        line=line,
        step_index=step,
        source=enums["source"],
        type=enums["type"],
        status=enums["status"],
        created_at=created,
        content=get("content", str, nullable=True),
        thinking=get("thinking", str, nullable=True),
        tool_calls=tuple(calls),
        truncated_fields=tuple(truncated),
        error=get("error", str),
        exit_code=get("exit_code", int),
        raw=obj,
        error_code=get("error_code", int),
        tier=state.tier,
    )


_T = TypeVar("_T")
_INT64 = range(-(2**63), 2**63)
"""The integers a record's numbers can hold (protobuf int64); one beyond is ``bad-value``."""
_JSON_NAME: dict[type, str] = {int: "integer", str: "string", list: "array", dict: "object"}


def _moment(text: str) -> datetime | None:
    """The instant an RFC 3339 timestamp names (fractions past microseconds dropped)."""
    try:
        if "." in text:  # a fraction, perhaps beyond microseconds
            text = _FRACTION.sub(r"\1", text, count=1)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


_TEXT_STARTS = ('"', "{", "[")
_JSON_START = re.compile(r'[ \t\n\r]*[-"{\[0-9tfn]')
"""What every JSON text the strict parser accepts starts with (JSON whitespace, then the first
character of a string, object, array, number, true, false or null): a string that does not
cannot be JSON text and is not given to the parser."""


def _arg(value: object, call: int, name: str, state: _Stream, path: str, line: int, out: list[Anomaly]) -> Arg:
    """Decode one argument (*name* of tool call number *call*) as its tier stores it and note
    which encoding it shows.

    JSON text is certain for a string holding a JSON string, object or array (in the full tier
    only a JSON string: a native string may hold a JSON document); a non-string, or a string
    that is not JSON text, is a native value; ``"5000"`` or ``"true"`` could be either."""
    if not isinstance(value, str):
        state.encoding("native", path, line, call, name)
        return Arg(value, value, True)
    start = _JSON_START.match(value)
    decoded: object = _ABSENT
    reason = None
    if start is not None:
        try:
            decoded = loads_text(value)
        except JSONError as exc:
            reason = exc.reason
    if decoded is _ABSENT:  # not JSON text
        if state.tier == "full":
            state.encoding("native", path, line, call, name)
            return Arg(value, value, True)
        if "<truncated " in value and (marker := _MARKER.search(value)) is not None:
            where = _where(call, name)
            if reason is None:  # not parsed (it cannot be JSON text): the parser says why
                reason = _refusal(value)
            message = f"{where} is cut by {marker.group(0)}; not JSON text ({reason})"
            out.append(Anomaly(path, line, "truncated-arg", message, "/" + where))
            state.encoding("text", path, line, call, name)
        else:
            state.encoding("native", path, line, call, name)
        return Arg(value, value, False)
    # JSON text: its first character after JSON whitespace is start's last (what lstrip() gives)
    first = value[start.end() - 1] if start is not None else ""
    if state.tier == "full":
        # a native string can be a JSON document (a written package.json): only a quoted string is
        # the compact tier's encoding for sure
        if first == '"':
            state.encoding("text", path, line, call, name)
        return Arg(value, value, True)
    if first in _TEXT_STARTS:
        state.encoding("text", path, line, call, name)
    return Arg(value, decoded, True)


def _where(call: int, name: str) -> str:
    """The pointer (without its leading slash) to argument *name* of tool call number *call*."""
    return f"tool_calls/{call}/args/{pointer_escape(name)}"


def _refusal(text: str) -> str:
    """Why the strict parser refuses *text*."""
    try:
        loads(text, require_object=False)
    except JSONError as exc:
        return exc.reason
    raise AssertionError("JSON text taken for not JSON text")  # pragma: no cover - _JSON_START is exact


# ----------------------------------------------------------------------------- brain directories


@dataclass(frozen=True)
class Tier:
    """One tier of a brain directory: its flat file and its chunk parts (in order), as found."""

    name: str
    flat: Path | None
    chunks: tuple[Path, ...]

    def agreement(self) -> str | None:
        """None unless both a flat file and chunks exist; then ``identical`` (the concatenated
        chunks are the flat file's bytes), ``chunks-prefix`` / ``flat-prefix`` (one holds the
        start of the other: written while agy was running), ``differ``, or ``unreadable``."""
        if self.flat is None or not self.chunks:
            return None
        return _compare_streams((self.flat,), self.chunks)

    @property
    def stream(self) -> tuple[Path, ...]:
        """The files to read as this tier: the flat file, or the chunks when there is no flat
        file or when the flat file holds only the start of the chunks."""
        if self.flat is None:
            return self.chunks
        if self.chunks and self.agreement() == "flat-prefix":
            return self.chunks
        return (self.flat,)


def _compare_streams(a: Sequence[Path], b: Sequence[Path]) -> str:
    """How two byte streams relate: identical, a is a prefix of b (``flat-prefix``), b of a
    (``chunks-prefix``), ``differ``, or ``unreadable``."""
    try:
        left, right = _Reader(a), _Reader(b)
        while True:
            x, y = left.read(1 << 16), right.read(1 << 16)
            n = min(len(x), len(y))
            if x[:n] != y[:n]:
                return "differ"
            left.unread(x[n:])
            right.unread(y[n:])
            if not x or not y:
                rest_x, rest_y = left.read(1), right.read(1)
                if not rest_x and not rest_y:
                    return "identical"
                return "flat-prefix" if not rest_x else "chunks-prefix"
    except OSError:
        return "unreadable"


class _Reader:
    """Reads several files as one byte stream (read-only, no symlinks)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.fh: BinaryIO | None = None
        self.back = b""

    def unread(self, data: bytes) -> None:
        self.back = data + self.back

    def read(self, n: int) -> bytes:
        if self.back:
            data, self.back = self.back[:n], self.back[n:]
            return data
        while True:
            if self.fh is None:
                if not self.paths:
                    return b""
                self.fh = _open(str(self.paths.pop(0)))
            data = self.fh.read(n)
            if data:
                return data
            self.fh.close()
            self.fh = None


@dataclass(frozen=True)
class TranscriptFiles:
    """Transcript files of one brain dir: each tier's stream in reading order (see ``Tier.stream``)."""

    compact: tuple[Path, ...]
    full: tuple[Path, ...]
    foreign: tuple[Path, ...]  # chunk-directory entries not named <number>.jsonl
    overview: tuple[Path, ...] = ()
    tiers: tuple[Tier, ...] = ()  # every tier with at least one file, in TIERS order
    unlisted: tuple[tuple[Path, str], ...] = ()  # (directory, reason): could not be listed, so not read

    def tier(self, name: str) -> Tier | None:
        return next((t for t in self.tiers if t.name == name), None)


def locate(brain_dir: str | os.PathLike[str]) -> TranscriptFiles:
    """Find the transcripts under ``<brain_dir>/.system_generated/logs``; never raises."""
    logs = Path(brain_dir) / ".system_generated" / "logs"
    foreign: list[Path] = []
    tiers: list[Tier] = []
    for name in TIERS:
        chunks: list[tuple[int, Path]] = []
        if name in CHUNK_DIRS:
            try:
                with os.scandir(logs / "chunks" / CHUNK_DIRS[name]) as entries:
                    for entry in entries:
                        if _CHUNK_NAME.fullmatch(entry.name):
                            chunks.append((int(entry.name[:-6]), Path(entry.path)))
                        else:
                            foreign.append(Path(entry.path))
            except OSError:
                pass
        flat = logs / FLAT_NAMES[name]
        tier = Tier(name, flat if os.path.lexists(flat) else None, tuple(p for _, p in sorted(chunks)))
        if tier.flat is not None or tier.chunks:
            tiers.append(tier)
    unlisted = []
    for directory in (Path(brain_dir), Path(brain_dir) / ".system_generated", logs, logs / "chunks"):
        reason = _unlistable(directory)
        if reason is not None:
            unlisted.append((directory, reason))
            break
    else:
        unlisted += [
            (d, r) for d in (logs / "chunks" / "transcript", logs / "chunks" / "transcript_full") if (r := _unlistable(d))
        ]
    streams = {t.name: t.stream for t in tiers}
    return TranscriptFiles(
        streams.get("compact", ()),
        streams.get("full", ()),
        tuple(sorted(foreign)),
        streams.get("overview", ()),
        tuple(tiers),
        tuple(unlisted),
    )


def _unlistable(directory: Path) -> str | None:
    """Why *directory* cannot be listed, or None (a missing directory holds nothing and is fine)."""
    try:
        with os.scandir(directory):
            return None
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return exc.strerror or str(exc)


@dataclass(frozen=True)
class Pairing:
    mode: str  # "position" (compact = a contiguous run of full) or "step_index"
    pairs: tuple[tuple[Record, Record], ...]  # (compact, full)
    findings: tuple[Anomaly, ...]


def pair_records(compact: Sequence[Record], full: Sequence[Record]) -> Pairing:
    """Pair compact with full records and report disagreements beyond the documented truncation.

    By position when the compact step_index sequence is the end (or the start) of the full one,
    else by step_index, where the last record of a repeated index supersedes earlier ones. Each
    transcript can be a window: records outside the other one's window are not unpaired.
    """
    findings: list[Anomaly] = []
    c_steps = [r.step_index for r in compact]
    f_steps = [r.step_index for r in full]
    c_first = next((r for r in compact if r.step_index is not None), None)
    f_first = next((s for s in f_steps if s is not None), None)
    if c_first is not None and c_first.step_index is not None and f_first is not None and c_first.step_index > f_first:
        findings.append(
            Anomaly(
                c_first.file, c_first.line, "late-start", f"compact starts at step {c_first.step_index}, full at step {f_first}"
            )
        )
    offset = _alignment(c_steps, f_steps)
    if offset is not None:
        pairs = list(zip(compact, full[offset : offset + len(compact)]))
        mode = "position"
    else:
        mode = "step_index"
        last_c = {r.step_index: r for r in compact}
        last_f = {r.step_index: r for r in full if r.step_index is not None}
        pairs = []
        full_window = [s for s in f_steps if s is not None]
        for r in compact:
            if r.step_index is not None and full_window and r.step_index < min(full_window):
                continue  # before a full window that starts later (docs/store-format.md#transcript-anomalies): nothing to pair with
            if r.step_index is None or r.step_index not in last_f:
                findings.append(Anomaly(r.file, r.line, "unpaired", "no full-transcript record for this step"))
            elif last_c[r.step_index] is r:
                pairs.append((r, last_f[r.step_index]))
        window = [s for s in c_steps if s is not None]
        findings.extend(
            Anomaly(r.file, r.line, "unpaired", "no compact-transcript record for this step")
            for r in full
            if window
            and r.step_index is not None  # last_f has no None key, so such a record never passed the next test
            and last_f.get(r.step_index) is r
            and r.step_index not in last_c
            and min(window) <= r.step_index <= max(window)
        )
    for c, f in pairs:
        findings.extend(_compare(c, f))
    return Pairing(mode, tuple(pairs), tuple(findings))


def _alignment(c_steps: list[int | None], f_steps: list[int | None]) -> int | None:
    n = len(c_steps)
    if n > len(f_steps):
        return None
    for offset in (len(f_steps) - n, 0):
        if f_steps[offset : offset + n] == c_steps:
            return offset
    return None


def _compare(c: Record, f: Record) -> list[Anomaly]:
    out: list[Anomaly] = []
    where = f"{f.file}:{f.line}"
    for key in sorted((c.raw.keys() | f.raw.keys()) - {"truncated_fields"}):
        if key not in c.raw or key not in f.raw:
            side = "compact" if key in c.raw else "full"
            out.append(Anomaly(c.file, c.line, "mismatch", f"{key} present only in {side} ({where})"))
        elif key == "tool_calls" and _calls_comparable(c) and _calls_comparable(f):
            if not _calls_fit(c, f):
                kind = "truncation-mismatch" if key in c.truncated_fields else "mismatch"
                out.append(
                    Anomaly(
                        c.file, c.line, kind, f"{key} {'does not match' if key in c.truncated_fields else 'differs from'} {where}"
                    )
                )
        elif key in c.truncated_fields:
            if not _fits(c.raw[key], f.raw[key]):
                out.append(Anomaly(c.file, c.line, "truncation-mismatch", f"{key} does not match {where}"))
        elif _canon(c.raw[key]) != _canon(f.raw[key]):
            out.append(Anomaly(c.file, c.line, "mismatch", f"{key} differs from {where}"))
    return out


def _calls_comparable(r: Record) -> bool:
    raw = r.raw.get("tool_calls")
    return isinstance(raw, list) and len(raw) == len(r.tool_calls)


def _calls_fit(c: Record, f: Record) -> bool:
    """Compact tool calls against full ones, across the tier encodings: each argument the same
    as stored, or the compact JSON text decoding to the full value (docs/store-format.md#argument-encoding), or the
    compact text fitting the full value's JSON text up to truncation markers."""
    if len(c.tool_calls) != len(f.tool_calls):
        return False
    for cc, fc in zip(c.tool_calls, f.tool_calls):
        if cc.name != fc.name or cc.args.keys() != fc.args.keys():
            return False
        for name, arg in cc.args.items():
            full = fc.args[name]
            if _canon(arg.raw) == _canon(full.raw) or (arg.decoded and _canon(arg.value) == _canon(full.value)):
                continue
            if not (isinstance(arg.raw, str) and _MARKER.search(arg.raw) and text_fits(arg.raw, dumps(full.value, indent=None))):
                return False
    return True


def _canon(value: object) -> str:
    return dumps(value, indent=None, sort_keys=True)


def _fits(compact: object, full: object) -> bool:
    """True when *compact* equals *full* up to ``<truncated N ...>`` markers in its strings."""
    if isinstance(compact, str) and isinstance(full, str):
        return text_fits(compact, full)
    if isinstance(compact, list) and isinstance(full, list):
        return len(compact) == len(full) and all(map(_fits, compact, full))
    if isinstance(compact, dict) and isinstance(full, dict):
        return compact.keys() == full.keys() and all(_fits(compact[k], full[k]) for k in compact)
    return _canon(compact) == _canon(full)


def text_fits(compact: str, full: str) -> bool:
    """True when the pieces of *compact* around its truncation markers occur in order in *full*,
    the first piece at its start and the last at its end (no marker: the texts are equal)."""
    pieces = _CUT.split(compact)
    first, last = pieces[0], pieces[-1]
    if len(pieces) == 1:
        return compact == full
    if not full.startswith(first):
        return False
    pos = len(first)
    for piece in pieces[1:-1]:
        found = full.find(piece, pos)
        if found < 0:
            return False
        pos = found + len(piece)
    return len(full) - len(last) >= pos and full.endswith(last)


@dataclass(frozen=True)
class BrainTranscripts:
    files: TranscriptFiles
    compact: tuple[Record, ...]
    full: tuple[Record, ...]
    pairing: Pairing | None  # None unless both transcripts have records
    findings: tuple[Anomaly, ...]  # reading findings of every stream, then the pairing's
    overview: tuple[Record, ...] = ()
    agreement: dict[str, str] = field(default_factory=dict)  # tier -> Tier.agreement() where flat and chunks both exist


def read_brain(brain_dir: str | os.PathLike[str], *, max_line_bytes: int = MAX_LINE_BYTES) -> BrainTranscripts:
    """Read, check and pair the transcripts of one brain directory; never raises for damage."""
    files = locate(brain_dir)
    findings = [Anomaly(str(p), 0, "foreign-file", "not a <number>.jsonl chunk; not read") for p in files.foreign]
    findings += [
        Anomaly(str(d), 0, "unreadable", f"cannot list: {reason}; its transcripts were not read") for d, reason in files.unlisted
    ]
    agreement = {}
    for tier in files.tiers:
        if (state := tier.agreement()) is not None:
            agreement[tier.name] = state
            if state != "identical":
                findings.append(Anomaly(str(tier.flat), 0, "chunks-differ", _agreement_text(tier, state)))
    streams: dict[str, list[Record]] = {"compact": [], "full": [], "overview": []}
    for name, paths in (("compact", files.compact), ("full", files.full), ("overview", files.overview)):
        for item in iter_transcript(paths, max_line_bytes=max_line_bytes, tier=name):
            if isinstance(item, Record):
                streams[name].append(item)
            else:
                findings.append(item)
    compact, full = streams["compact"], streams["full"]
    pairing = pair_records(compact, full) if compact and full else None
    if pairing:
        findings.extend(pairing.findings)
    return BrainTranscripts(files, tuple(compact), tuple(full), pairing, tuple(findings), tuple(streams["overview"]), agreement)


def _agreement_text(tier: Tier, state: str) -> str:
    where = f"{tier.chunks[0].parent.name}/ ({len(tier.chunks)} part(s))"
    return {
        "chunks-prefix": f"chunks {where} hold only the start of this file (written while agy was running?); the flat file is read",
        "flat-prefix": f"this file holds only the start of chunks {where} (written while agy was running?); the chunks are read",
        "differ": f"chunks {where} differ from this file; the flat file is read",
        "unreadable": f"chunks {where} could not be compared with this file",
    }.get(state, state)


# ----------------------------------------------------------------------------- content metadata


@dataclass(frozen=True)
class SettingChange:
    setting: str  # e.g. "Model Selection"
    old: str
    new: str


@dataclass(frozen=True)
class ArtifactComment:
    uri: str
    text: str  # the text after the URI up to the next comment or <USER_REQUEST>
    approved: bool


@dataclass(frozen=True)
class FileChange:
    path: str  # as written: a path for tool changes, a file:// URI for created files
    tool: str | None  # None for "Created file ..."
    created: bool


@dataclass(frozen=True)
class ContentInfo:
    user_request: str | None  # inner text, nested metadata blocks removed, stripped
    additional_metadata: tuple[str, ...]
    local_time: str | None  # from "The current local time is: ..."
    setting_changes: tuple[SettingChange, ...]
    artifact_comments: tuple[ArtifactComment, ...]
    created_at: str | None  # "Created At:" header (local offset)
    completed_at: str | None
    exit_code: int | None  # "The command exited with code N."
    task_id: str | None  # background task id "<conversation>/task-<N>"
    task_log_uri: str | None
    file_changes: tuple[FileChange, ...]
    diff_blocks: tuple[str, ...]
    file_path: str | None  # VIEW_FILE "File Path:"
    total_lines: int | None


def _block(name: str) -> re.Pattern[str]:
    return re.compile(rf"<{name}>(.*?)</{name}>", re.S)


_USER_REQUEST = _block("USER_REQUEST")
_ADDITIONAL = _block("ADDITIONAL_METADATA")
_SETTINGS = _block("USER_SETTINGS_CHANGE")
_LOCAL_TIME = re.compile(r"The current local time is:[ \t]*([^\n]*?)\.?[ \t]*(?:\n|$)")
_SETTING = re.compile(r"changed setting `([^`]*)` from (.+?) to (.+?)\.(?=\s|$)")
_COMMENT = re.compile(r"Comments on artifact URI: (\S+)")
_APPROVED = "The user has approved this document."
_CREATED_AT = re.compile(r"^Created At:[ \t]*(.*?)[ \t]*$", re.M)
_COMPLETED_AT = re.compile(r"^Completed At:[ \t]*(.*?)[ \t]*$", re.M)
_EXIT = re.compile(r"^[ \t]*The command exited with code (-?\d+)\.", re.M)
_TASK_ID = re.compile(r"Tool is running as a background task with task id: (\S+)")
_TASK_LOG = re.compile(r"Task logs are available at: (\S+)")
_CHANGED = re.compile(r"^The following changes were made by the (\S+) tool to: (.+?)\.?[ \t]*$", re.M)
_CREATED_FILE = re.compile(r"Created file (\S+)")
_DIFF = re.compile(r"\[diff_block_start\]\n?(.*?)\n?\[diff_block_end\]", re.S)
_FILE_PATH = re.compile(r"^File Path:[ \t]*`?([^`\n]*?)`?[ \t]*$", re.M)
_TOTAL_LINES = re.compile(r"^Total Lines:[ \t]*(\d+)", re.M)


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    m = pattern.search(text)
    return m.group(1) if m else None


@overload
def _uri(text: str) -> str: ...
@overload
def _uri(text: str | None) -> str | None: ...
def _uri(text: str | None) -> str | None:
    return text.rstrip(".,") if text is not None else None


def user_request(text: str) -> str | None:
    """``parse_content(text).user_request`` alone: the inner text of the first ``<USER_REQUEST>``
    block, nested metadata blocks removed, stripped (None without one)."""
    request = _first(_USER_REQUEST, text)
    if request is not None:
        request = _SETTINGS.sub("", _ADDITIONAL.sub("", request)).strip()
    return request


def command_exit_code(text: str) -> int | None:
    """``parse_content(text).exit_code`` alone: N of the first "The command exited with code N." line."""
    code = _first(_EXIT, text)
    return int(code) if code is not None else None


def parse_content(text: str) -> ContentInfo:
    """Typed view of the metadata a record's text carries; absent items are None / empty."""
    request = user_request(text)
    additional = tuple(m.strip() for m in _ADDITIONAL.findall(text))
    local_time = next((t for block in additional if (t := _first(_LOCAL_TIME, block))), None)
    changes = tuple(SettingChange(*m.groups()) for block in _SETTINGS.findall(text) for m in _SETTING.finditer(block))
    comments = []
    starts = list(_COMMENT.finditer(text))
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        request_at = text.find("<USER_REQUEST>", m.end(), end)
        body = text[m.end() : end if request_at < 0 else request_at].strip()
        comments.append(ArtifactComment(m.group(1), body, _APPROVED in body))
    total = _first(_TOTAL_LINES, text)
    files = [FileChange(m.group(2), m.group(1), False) for m in _CHANGED.finditer(text)]
    files += [FileChange(_uri(m.group(1)), None, True) for m in _CREATED_FILE.finditer(text)]
    return ContentInfo(
        user_request=request,
        additional_metadata=additional,
        local_time=local_time,
        setting_changes=changes,
        artifact_comments=tuple(comments),
        created_at=_first(_CREATED_AT, text),
        completed_at=_first(_COMPLETED_AT, text),
        exit_code=command_exit_code(text),
        task_id=_uri(_first(_TASK_ID, text)),
        task_log_uri=_uri(_first(_TASK_LOG, text)),
        file_changes=tuple(files),
        diff_blocks=tuple(_DIFF.findall(text)),
        file_path=_first(_FILE_PATH, text),
        total_lines=int(total) if total is not None else None,
    )


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
