"""Brain transcripts: ``transcript.jsonl``, ``transcript_full.jsonl`` and their rolling chunks.

Reading streams: a file is read line by line in binary, a line longer than ``max_line_bytes`` is
skipped without being held, so memory does not grow with the file (beyond the set of step indexes
seen, kept to report repeated ones). Damage never stops reading:
every problem becomes a ``Finding`` (file, 1-based line, kind, message) and the next line is read.
A line either becomes a ``Record`` or gets exactly one finding whose kind is in ``DROPPED``;
records may carry further findings (missing keys, unknown enum names, step order ...).

``pair_records`` pairs the compact and full transcripts of one brain directory and reports where
they disagree beyond the documented truncation; ``read_brain`` does everything for a brain dir
(it holds both transcripts in memory to pair them). ``parse_content`` turns the metadata that
record texts carry (``<USER_REQUEST>`` blocks, ``Created At:`` headers, exit-code sentences, ...)
into typed fields; the raw text stays on the record.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import BinaryIO

from audit.clock import is_rfc3339
from audit.safeio import O_NONBLOCK, JSONError, dumps, json_type, loads, open_nofollow

MAX_LINE_BYTES = 16 * 1024 * 1024
"""Longest line (without its newline) that is parsed; longer lines are skipped with a finding."""

_SKIP_BYTES = 1 << 20

KINDS: dict[str, str] = {
    # whole files
    "unreadable": "a transcript file cannot be opened or read (missing, symlink, not a regular file, I/O error)",
    "foreign-file": "a file in a chunk directory whose name is not <number>.jsonl; not read",
    # one line, not turned into a record (see DROPPED)
    "line-too-long": "a line longer than the size cap; skipped",
    "blank-line": "an empty or whitespace-only line",
    "bad-utf8": "a line that is not valid UTF-8",
    "bad-json": "a line that is not strict JSON (torn line, syntax error, duplicate key, NaN ...)",
    "not-object": "a line holding JSON that is not an object",
    # one line, also yielded as a record
    "unterminated-line": "the last line of a file does not end with a newline (torn write)",
    "missing-key": "a required key (step_index, source, type, status, created_at) or a tool call name/args is absent",
    "unknown-key": "a key outside the documented record / tool-call keys",
    "bad-value": "a value of the wrong JSON type or out of range (negative step_index, non-RFC 3339 created_at ...)",
    "bad-arg": "a tool-call argument that is not JSON text, outside a truncated tool_calls field",
    "unknown-source": "a source outside the CortexStepSource names",
    "unknown-type": "a type outside the known CortexStepType names",
    "unknown-status": "a status outside the CortexStepStatus names",
    "repeated-step": "a step_index seen before in the same transcript (rewind/re-use; the later line supersedes)",
    "inverted-step": "a step_index lower than an earlier one that was not seen before",
    "step-gap": "a step_index more than one above the highest seen so far (steps skipped)",
    # compact vs full
    "late-start": "the compact transcript starts at a later step than the full one (a window)",
    "unpaired": "a compact record with no full counterpart, or a full record inside the compact window with none",
    "mismatch": "a field that is not listed in truncated_fields differs between compact and full",
    "truncation-mismatch": "a truncated compact field whose text pieces do not occur in order in the full text",
    "truncated-full": "a full-transcript record carries truncated_fields",
}

DROPPED = frozenset({"line-too-long", "blank-line", "bad-utf8", "bad-json", "not-object"})
"""Kinds of line findings whose line yields no record."""

REQUIRED_KEYS = ("step_index", "source", "type", "status", "created_at")
RECORD_KEYS = frozenset(REQUIRED_KEYS + ("content", "thinking", "tool_calls", "truncated_fields", "error", "exit_code"))
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
# CortexStepType names known by name (formats.md §3.7) plus transcript-only GENERIC / ASK_QUESTION.
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
_MARKER = re.compile(r"<truncated \d+ (?:bytes|lines)>")


@dataclass(frozen=True)
class Finding:
    file: str
    line: int  # 1-based; 0 = the whole file
    kind: str  # a key of KINDS
    message: str


@dataclass(frozen=True)
class Arg:
    """One tool-call argument: ``raw`` as stored, ``value`` decoded from it when ``decoded``."""

    raw: object
    value: object
    decoded: bool


@dataclass(frozen=True)
class ToolCall:
    name: str | None
    args: dict[str, Arg]


@dataclass(frozen=True)
class Record:
    file: str
    line: int
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
    raw: dict

    @cached_property
    def info(self) -> ContentInfo:
        """The metadata carried by ``content``."""
        return parse_content(self.content or "")


# ----------------------------------------------------------------------------- reading


def iter_transcript(
    paths: str | os.PathLike | Iterable[str | os.PathLike], *, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record | Finding]:
    """Stream the records and findings of one logical transcript.

    *paths* is one file or several read as one stream (chunks in order, then the main file);
    step order is tracked across them. Never raises for file content or I/O errors.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = (paths,)
    order = _StepOrder()
    for path in paths:
        yield from _read_file(str(path), max_line_bytes, order)


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


def _open(path: str) -> BinaryIO:
    fd = open_nofollow(path, os.O_RDONLY | O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_file(path: str, cap: int, order: _StepOrder) -> Iterator[Record | Finding]:
    line = 0
    try:
        with _open(path) as fh:
            for data, terminated in _lines(fh, cap):
                line += 1
                yield from _line(path, line, data, cap, order)
                if not terminated:
                    yield Finding(path, line, "unterminated-line", "last line does not end with a newline")
    except OSError as exc:
        reason = "is a symbolic link; not followed" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
        yield Finding(path, 0 if line == 0 else line + 1, "unreadable", f"cannot read: {reason}")


def _lines(fh: BinaryIO, cap: int) -> Iterator[tuple[bytes | None, bool]]:
    """(line without its newline, or None when longer than *cap*; ends with a newline)."""
    while chunk := fh.readline(cap + 1):
        if chunk.endswith(b"\n"):
            yield chunk[:-1], True
        elif len(chunk) <= cap:
            yield chunk, False
        else:
            while (rest := fh.readline(_SKIP_BYTES)) and not rest.endswith(b"\n"):
                pass
            yield None, bool(rest)


def _line(path: str, line: int, data: bytes | None, cap: int, order: _StepOrder) -> Iterator[Record | Finding]:
    if data is None:
        yield Finding(path, line, "line-too-long", f"longer than {cap} bytes; skipped")
        return
    if not data.strip():
        yield Finding(path, line, "blank-line", "empty line")
        return
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        yield Finding(path, line, "bad-utf8", f"invalid UTF-8 at byte {exc.start}")
        return
    try:
        obj = loads(data, source=f"{path}:{line}", require_object=False)
    except JSONError as exc:
        yield Finding(path, line, "bad-json", exc.reason + (f" at {exc.pointer or '/'}" if exc.pointer is not None else ""))
        return
    if not isinstance(obj, dict):
        yield Finding(path, line, "not-object", f"line holds a JSON {json_type(obj)}, not an object")
        return
    findings: list[Finding] = []
    record = _record(obj, path, line, findings)
    if record.step_index is not None and (step := order.check(record.step_index)):
        findings.append(Finding(path, line, *step))
    yield from findings
    yield record


def _record(obj: dict, path: str, line: int, out: list[Finding]) -> Record:
    def emit(kind: str, message: str) -> None:
        out.append(Finding(path, line, kind, message))

    def get(key: str, want: type, where: dict = obj, prefix: str = "") -> object:
        if key not in where:
            return None
        value = where[key]
        ok = isinstance(value, want) and not (want is int and isinstance(value, bool))
        if not ok:
            emit("bad-value", f"{prefix}{key} is {json_type(value)}, not {_JSON_NAME[want]}")
            return None
        return value

    if missing := [k for k in REQUIRED_KEYS if k not in obj]:
        emit("missing-key", "missing " + ", ".join(missing))
    if unknown := sorted(obj.keys() - RECORD_KEYS):
        emit("unknown-key", "unknown " + ", ".join(unknown))
    step = get("step_index", int)
    if step is not None and step < 0:
        emit("bad-value", f"step_index {step} is negative")
        step = None
    enums = {}
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
    calls = []
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
        calls.append(
            ToolCall(
                get("name", str, call, where),
                {name: _arg(value, f"{where}args/{name}", "tool_calls" in truncated, emit) for name, value in args.items()},
            )
        )
    return Record(
        file=path,
        line=line,
        step_index=step,
        source=enums["source"],
        type=enums["type"],
        status=enums["status"],
        created_at=created,
        content=get("content", str),
        thinking=get("thinking", str),
        tool_calls=tuple(calls),
        truncated_fields=tuple(truncated),
        error=get("error", str),
        exit_code=get("exit_code", int),
        raw=obj,
    )


_JSON_NAME = {int: "integer", str: "string", list: "array", dict: "object"}


def _arg(value: object, where: str, truncated: bool, emit) -> Arg:
    if not isinstance(value, str):
        emit("bad-value", f"{where} is {json_type(value)}, not a string holding JSON")
        return Arg(value, value, False)
    try:
        return Arg(value, loads(value, require_object=False), True)
    except JSONError as exc:
        if not truncated:
            emit("bad-arg", f"{where} is not JSON text ({exc.reason})")
        return Arg(value, value, False)


# ----------------------------------------------------------------------------- brain directories


@dataclass(frozen=True)
class TranscriptFiles:
    """Transcript files of one brain dir, each stream in reading order (chunks, then main)."""

    compact: tuple[Path, ...]
    full: tuple[Path, ...]
    foreign: tuple[Path, ...]  # chunk-directory entries not named <number>.jsonl
    unlisted: tuple[tuple[Path, str], ...] = ()  # (directory, reason): could not be listed, so not read


_CHUNK_NAME = re.compile(r"\d{1,18}\.jsonl")


def locate(brain_dir: str | os.PathLike) -> TranscriptFiles:
    """Find the transcripts under ``<brain_dir>/.system_generated/logs``; never raises."""
    logs = Path(brain_dir) / ".system_generated" / "logs"
    foreign: list[Path] = []

    def stream(name: str) -> tuple[Path, ...]:
        chunks: list[tuple[int, Path]] = []
        try:
            with os.scandir(logs / "chunks" / name) as entries:
                for entry in entries:
                    if _CHUNK_NAME.fullmatch(entry.name):
                        chunks.append((int(entry.name[:-6]), Path(entry.path)))
                    else:
                        foreign.append(Path(entry.path))
        except OSError:
            pass
        main = logs / f"{name}.jsonl"
        return tuple(p for _, p in sorted(chunks)) + ((main,) if os.path.lexists(main) else ())

    compact, full = stream("transcript"), stream("transcript_full")
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
    return TranscriptFiles(compact, full, tuple(sorted(foreign)), tuple(unlisted))


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
    findings: tuple[Finding, ...]


def pair_records(compact: Sequence[Record], full: Sequence[Record]) -> Pairing:
    """Pair compact with full records and report disagreements beyond the documented truncation.

    By position when the compact step_index sequence is the end (or the start) of the full one,
    else by step_index, where the last record of a repeated index supersedes earlier ones.
    """
    findings: list[Finding] = []
    c_steps = [r.step_index for r in compact]
    f_steps = [r.step_index for r in full]
    c_first = next((r for r in compact if r.step_index is not None), None)
    f_first = next((s for s in f_steps if s is not None), None)
    if c_first is not None and f_first is not None and c_first.step_index > f_first:
        findings.append(
            Finding(
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
        for r in compact:
            if r.step_index is None or r.step_index not in last_f:
                findings.append(Finding(r.file, r.line, "unpaired", "no full-transcript record for this step"))
            elif last_c[r.step_index] is r:
                pairs.append((r, last_f[r.step_index]))
        window = [s for s in c_steps if s is not None]
        findings.extend(
            Finding(r.file, r.line, "unpaired", "no compact-transcript record for this step")
            for r in full
            if window
            and last_f.get(r.step_index) is r
            and r.step_index not in last_c
            and min(window) <= r.step_index <= max(window)
        )
    for c, f in pairs:
        findings.extend(_compare(c, f))
    return Pairing(mode, tuple(pairs), tuple(findings))


def _alignment(c_steps: list, f_steps: list) -> int | None:
    n = len(c_steps)
    if n > len(f_steps):
        return None
    for offset in (len(f_steps) - n, 0):
        if f_steps[offset : offset + n] == c_steps:
            return offset
    return None


def _compare(c: Record, f: Record) -> list[Finding]:
    out: list[Finding] = []
    if f.truncated_fields:
        out.append(Finding(f.file, f.line, "truncated-full", "truncated_fields " + ", ".join(f.truncated_fields)))
    where = f"{f.file}:{f.line}"
    for key in sorted((c.raw.keys() | f.raw.keys()) - {"truncated_fields"}):
        if key not in c.raw or key not in f.raw:
            side = "compact" if key in c.raw else "full"
            out.append(Finding(c.file, c.line, "mismatch", f"{key} present only in {side} ({where})"))
        elif key in c.truncated_fields:
            if not _fits(c.raw[key], f.raw[key]):
                out.append(Finding(c.file, c.line, "truncation-mismatch", f"{key} does not match {where}"))
        elif _canon(c.raw[key]) != _canon(f.raw[key]):
            out.append(Finding(c.file, c.line, "mismatch", f"{key} differs from {where}"))
    return out


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
    pieces = _MARKER.split(compact)
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
    findings: tuple[Finding, ...]  # reading findings of both streams, then the pairing's


def read_brain(brain_dir: str | os.PathLike, *, max_line_bytes: int = MAX_LINE_BYTES) -> BrainTranscripts:
    """Read, check and pair the transcripts of one brain directory; never raises for damage."""
    files = locate(brain_dir)
    findings = [Finding(str(p), 0, "foreign-file", "not a <number>.jsonl chunk; not read") for p in files.foreign]
    findings += [
        Finding(str(d), 0, "unreadable", f"cannot list: {reason}; its transcripts were not read") for d, reason in files.unlisted
    ]
    streams: list[list[Record]] = [[], []]
    for paths, records in zip((files.compact, files.full), streams):
        for item in iter_transcript(paths, max_line_bytes=max_line_bytes):
            (records if isinstance(item, Record) else findings).append(item)
    compact, full = streams
    pairing = pair_records(compact, full) if compact and full else None
    if pairing:
        findings.extend(pairing.findings)
    return BrainTranscripts(files, tuple(compact), tuple(full), pairing, tuple(findings))


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


def _uri(text: str | None) -> str | None:
    return text.rstrip(".,") if text is not None else None


def parse_content(text: str) -> ContentInfo:
    """Typed view of the metadata a record's text carries; absent items are None / empty."""
    request = _first(_USER_REQUEST, text)
    if request is not None:
        request = _SETTINGS.sub("", _ADDITIONAL.sub("", request)).strip()
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
    exit_code = _first(_EXIT, text)
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
        exit_code=int(exit_code) if exit_code is not None else None,
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

    def add(self, item: Record | Finding) -> None:
        if isinstance(item, Finding):
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


def summarize(items: Iterable[Record | Finding]) -> Summary:
    summary = Summary()
    for item in items:
        summary.add(item)
    return summary
