"""How one line's JSON object becomes a ``Record``: the documented record is built straight away,
any other is judged key by key into anomalies; tool-call arguments are decoded as their tier
stores them, and the stream they belong to (``_Stream``) notes step order and argument encodings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any, TypeVar

from audit.clock import is_rfc3339
from audit.store.transcript.model import (
    _MARKER,
    EXPECTED_KEYS,
    KNOWN_SOURCES,
    KNOWN_STATUSES,
    KNOWN_TYPES,
    RECORD_KEYS,
    TEXT_TIERS,
    Anomaly,
    Arg,
    Record,
    ToolCall,
)
from audit.strictjson import JSONError, json_type, loads, loads_text, pointer_escape

_TOOL_CALL_KEYS = frozenset({"name", "args"})


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


def _record(obj: dict[str, Any], path: str, line: int, out: list[Anomaly], state: _Stream | None = None) -> Record:
    """The record of one line's object; its findings are appended to *out*.

    A record every key and value of which is as documented (the common case) is built straight
    away; any other goes through ``_judged_record``, which says what is wrong. Both give equal
    records and findings (tests/store/test_transcript_fast.py)."""
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
