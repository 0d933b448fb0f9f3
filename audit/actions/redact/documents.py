"""JSON documents redacted: every string value replaced, keys, numbers and names kept, JSON text
inside a string redacted inside its JSON; the JSON, JSON-lines (streamed, chunked) and text files
of a copy written in the layout of their source; and the copy's own corpus manifest."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

from google.protobuf.descriptor import FieldDescriptor

from audit.actions.redact.replacements import UUID_ONLY, Redactor
from audit.actions.redact.run import Run
from audit.checks.values import OTHER, Values, add_trajectory
from audit.errors import InputError
from audit.safeio import is_file, open_regular
from audit.store.corpus import MANIFEST
from audit.store.proto import cortex_pb2 as pb
from audit.strictjson import JSONError, dumps, loads, loads_text

if TYPE_CHECKING:
    import io


_KEPT_VALUES_OF = frozenset({"type", "status", "source", "truncated_fields", "artifactType"})
"""Top-level keys whose values are names (transcript step types, statuses, field names; an
artifact's ``ARTIFACT_TYPE_*``): format, kept."""
_TOOL_CONTAINERS = frozenset({"toolCall", "toolCalls", "tool_calls", "tool_call"})
_JSON_TEXT_KEYS = frozenset({"argumentsJson"})

ENUM_NAMES = frozenset(v.name for e in pb.DESCRIPTOR.enum_types_by_name.values() for v in e.values) | frozenset(
    v.name for m in pb.DESCRIPTOR.message_types_by_name.values() for e in m.enum_types for v in e.values
)
_INT64_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)


def _int64_names() -> frozenset[str]:
    """The JSON names of every 64-bit integer field of ``cortex.proto``: proto3 JSON writes their
    values as strings of digits (token counts, sizes), which are numbers, kept like the ``.db``'s."""
    names: set[str] = set()
    stack = list(pb.DESCRIPTOR.message_types_by_name.values())
    while stack:
        message = stack.pop()
        names.update(f.json_name for f in message.fields if f.type in _INT64_TYPES)
        stack.extend(message.nested_types)
    return frozenset(names)


_INT64_KEYS = _int64_names()
_INT64_TEXT = re.compile(r"-?(?:0|[1-9][0-9]{0,19})")

# ----------------------------------------------------------------------------- JSON documents


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def redact_json(
    value: Any, r: Redactor, *, key: str | None = None, parent: str | None = None, tokens: frozenset[str] = frozenset()
) -> Any:
    """A copy of the parsed JSON *value* with every string value replaced (keys kept; *tokens*,
    the values its enum fields hold, kept too: ``enum_tokens``)."""
    if isinstance(value, dict):
        r.kept.update(value)
        return {r.key(k): redact_json(v, r, key=k, parent=key, tokens=tokens) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_json(v, r, key=key, parent=parent, tokens=tokens) for v in value]
    if not isinstance(value, str):
        return value
    if (
        value in ENUM_NAMES
        or value in tokens
        or key in _KEPT_VALUES_OF
        and parent is None
        or key in ("name", "originalName")
        and parent in _TOOL_CONTAINERS
        or key == "key"
        and parent == "attributes"  # generation attribute names (model_enum, trajectory_id, ...)
        or key in _INT64_KEYS
        and _INT64_TEXT.fullmatch(value)  # a 64-bit number in proto3 JSON
    ):
        r.kept.add(value)
        return value
    if key in _JSON_TEXT_KEYS or parent == "args":
        if parent == "args" and (value in ("true", "false", "null") or _JSON_NUMBER.fullmatch(value)):
            return value  # a typed argument as JSON text (the compact tier): no content
        if parent == "args" and value.startswith('"') and "<truncated " in value:
            return '"' + r.text(value[1:])  # cut JSON text of a string: its text shares the .db value's placeholder
        inner = json_text(value, r)
        if inner is not None:
            return inner
    return r.text(value)


class _Tokens(Values):
    """Every value the ``values`` fingerprint records of one document, however many a field holds."""

    def _overflow(self, key: str) -> None:
        pass  # keep collecting: the copy must hold each of them


def enum_tokens(document: Any) -> frozenset[str]:
    """The names a sidecar document's enum fields hold (``values``' ``sidecar:`` lines), known to
    ``cortex.proto`` or not: kept as they are, so the copy's ``values`` fingerprint is the source's."""
    found = _Tokens()
    add_trajectory(document, sidecar=found)
    return frozenset(v for values in found.seen.values() for v in values if v != OTHER and not v.lstrip("-").isdigit())


def json_text(value: str, r: Redactor) -> str | None:
    """*value* redacted inside, when it is JSON text (an object, array or string); else None."""
    stripped = value.lstrip()
    if not stripped or stripped[0] not in '{["':
        return None
    try:
        parsed = loads_text(value)
    except JSONError:
        return None
    if _deeper_than(parsed, _JSON_TEXT_DEPTH):
        return None  # not arguments: redacted as text
    spaced = _spaced(value)

    def written(exact: bool) -> str:
        r.counts["json-text"] += 1
        if not exact:
            new = redact_json(parsed, r)
            return json.dumps(new, ensure_ascii=False, allow_nan=False, separators=(", ", ": ") if spaced else (",", ":"))
        new = redact_json(loads(value, exact=True, require_object=False), r)
        return dumps(new, indent=None, separators=_SPACED if spaced else None)

    return _exactly(r, written)


_MAX_JSON_DEPTH = 256
"""A JSON document (or line) nested deeper is refused (recursion stays bounded)."""
_JSON_TEXT_DEPTH = 64
"""JSON text inside a string (tool arguments) is redacted inside its JSON up to this depth."""


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether *value* nests objects and arrays more than *limit* levels deep (iteratively)."""
    stack = [(value, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return False


_T = TypeVar("_T")


def _exactly(r: Redactor, redacted: Callable[[bool], _T]) -> _T:
    """``redacted(False)``: a JSON value read by ``loads`` redacted and written; or, when that
    raises ``ValueError`` -- a number ``json`` cannot write as it was read (``1e400``, which reads
    as infinity; an integer beyond the 4,300 digits of int/str conversion) -- ``redacted(True)``,
    the value read again with ``loads(exact=True)`` (every number keeps its text, ``strictjson.dumps``
    writes it back), its replacements counted once."""
    counts = dict(r.counts)
    try:
        return redacted(False)
    except ValueError:
        r.counts.update(counts)
        return redacted(True)


def _parsed(data: bytes | str, source: str, *, exact: bool, require_object: bool = False) -> Any:
    """``loads(data)``; JSON nested deeper than ``_MAX_JSON_DEPTH`` levels -- read, or too deep
    for the parser -- is an ``InputError`` naming *source* (not a ``JSONError``: it is JSON, and
    redacted as text its keys would be replaced)."""
    try:
        value = loads(data, source=source, exact=exact, require_object=require_object)
    except JSONError as exc:
        if not exc.reason.startswith("nesting deeper than"):
            raise
        value = None
    if value is None or _deeper_than(value, _MAX_JSON_DEPTH):
        raise InputError(f"{source}: JSON nested deeper than {_MAX_JSON_DEPTH} levels; not redacted")
    return value


def _dump_like(original: str, value: Any, *, line: bool = False, exact: bool = False) -> str:
    """*value* as JSON in the layout of *original* (indented, spaced or compact), a lone surrogate
    (a ``\\ud800`` escape in the source) escaped again. A JSON document is written by
    ``strictjson.dumps`` (orjson where it writes the same text); a JSON-lines *line* by ``json``, so
    that a byte that is not UTF-8 (read with ``surrogateescape``) stays one. An *exact* value
    (``loads(exact=True)``) is written by ``strictjson.dumps`` in every layout, numbers as they were
    read. ``ValueError`` when ``json`` cannot write a number of a value that is not *exact*."""
    indent, separators = None, (",", ":")
    if "\n" in original.strip():
        indent, separators = len(original.split("\n", 1)[1]) - len(original.split("\n", 1)[1].lstrip(" ")) or 2, (",", ": ")
    elif _spaced(original):
        separators = _SPACED
    if exact:
        text = dumps(value, indent=indent, separators=separators)
        if line:  # a byte that is not UTF-8, escaped by dumps, stays a byte
            text = _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)) if m.group(1) else m.group(), text)
    else:
        if line or separators == _SPACED:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators)
        else:
            text = dumps(value, indent=indent)
        text = (_LINE_SURROGATE if line else _SURROGATE).sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text + ("\n" if original.endswith("\n") else "")


_SPACED = (", ", ": ")
_FIRST_KEY = re.compile(r'"(?:[^"\\]|\\.)*"\s*:( ?)')


def _spaced(original: str) -> bool:
    """Whether the JSON text *original* puts a space after its colons (and commas), as its first
    key shows (a string holding ``", "`` does not make a compact line spaced)."""
    first = _FIRST_KEY.search(original)
    return bool(first.group(1)) if first else ", " in original


_SURROGATE = re.compile("[\ud800-\udfff]")
_LINE_SURROGATE = re.compile("[\ud800-\udc7f\udd00-\udfff]")
"""Surrogates that are not a byte read with ``surrogateescape``."""
_ESCAPED = re.compile(r"\\\\|\\u(dc[89a-f][0-9a-f])")
"""In JSON text: an escaped backslash, or the escape of a byte read with ``surrogateescape``."""

# ----------------------------------------------------------------------------- files


def redact_text_file(data: bytes, r: Redactor) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return r.text(text).encode("utf-8", "surrogateescape")


def redact_jsonl_file(run: Run, path: Path) -> Iterator[bytes]:
    """A JSON-lines file redacted line by line as it is read (a line longer than the limit is refused)."""
    try:
        with open_regular(path) as fh:
            number = 0
            while line := fh.readline(run.limit + 1):
                if len(line) > run.limit:
                    raise InputError(f"{path}: a line longer than the limit of {run.limit} bytes (--max-file-size)")
                number += 1
                yield _redact_jsonl_line(run, line.decode("utf-8", "surrogateescape"), f"{path}: line {number}").encode(
                    "utf-8", "surrogateescape"
                )
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _redact_jsonl_line(run: Run, line: str, source: str) -> str:
    """One line (its newline included, if any) of a JSON-lines stream, redacted; *source* names
    the line."""
    body, newline = (line[:-1], "\n") if line.endswith("\n") else (line, "")
    if not body.strip():
        return line  # blank: white space is format
    if not body.lstrip().startswith("{"):
        return run.r.text(body) + newline  # not a record, however deep: replaced as text, its length kept

    def redacted(exact: bool) -> tuple[Any, Any, str]:
        value = _parsed(body, source, exact=exact, require_object=True)
        new = redact_json(value, run.r)
        return value, new, _dump_like(body, new, line=True, exact=exact)

    try:
        value, new, text = _exactly(run.r, redacted)
    except JSONError:
        return run.r.text(body) + newline  # torn: replaced as text, its length kept
    run.document(value, new, source)
    return text + newline


def _lines(text: str) -> Iterator[str]:
    """The lines of *text*, each with its newline (the last may have none)."""
    lines = text.split("\n")
    for line in lines[:-1]:
        yield line + "\n"
    if lines[-1]:
        yield lines[-1]


def redact_json_file(run: Run, data: bytes, source: str) -> bytes:
    def redacted(exact: bool) -> tuple[Any, Any, str]:
        value = _parsed(data, source, exact=exact)
        new = redact_json(value, run.r, tokens=enum_tokens(value))
        return value, new, _dump_like(data.decode("utf-8"), new, exact=exact)

    value, new, text = _exactly(run.r, redacted)
    run.document(value, new, source)
    return text.encode("utf-8")


def redact_chunks(run: Run, parts: list[tuple[Path, int]]) -> None:
    """The parts of one tier's chunk directory as one JSON-lines stream (agy cuts them
    mid-line), written back as as many parts, cut where the originals were (the last takes the rest)."""
    total = sum(size for _, size in parts)
    run.refuse_above_limit(parts[0][0].parent, total)
    data = [run.read(path, size) for path, size in parts]
    text = b"".join(data).decode("utf-8", "surrogateescape")
    source = parts[0][0].parent
    new = "".join(_redact_jsonl_line(run, line, f"{source}: line {n}") for n, line in enumerate(_lines(text), 1))
    encoded = new.encode("utf-8", "surrogateescape")
    at = 0
    for i, ((path, _size), old) in enumerate(zip(parts, data)):
        piece = encoded[at:] if i == len(parts) - 1 else encoded[at : at + len(old)]
        at += len(piece)
        run.write(path, piece)


# ----------------------------------------------------------------------------- the manifest

_PATH_IN_TEXT = re.compile(r"/[^\s:'\"]+")
_HEX64 = re.compile(r"(sha256:)?[0-9a-f]{64}")


def _redact_manifest_value(value: Any, r: Redactor, out: Path) -> Any:
    """Our own manifest: its vocabulary (sources, surfaces, stages, reasons, versions) is kept,
    UUIDs mapped, timestamps shifted, paths redacted as text; each ``files`` map is keyed by the
    copy's relative paths with the copy's sha256 (files left out of the copy leave the map)."""
    if isinstance(value, dict):
        result: dict[str, Any] = {}
        for k, v in value.items():
            if isinstance(v, str) and _HEX64.fullmatch(v):  # a file's sha256, keyed by its relative path
                target = out / r.uuids_in(k)
                if is_file(target):
                    with open_regular(target) as fh:
                        digest = hashlib.file_digest(cast("io.BufferedReader", fh), "sha256").hexdigest()
                    result[r.uuids_in(k)] = ("sha256:" if v.startswith("sha256:") else "") + digest
                continue
            r.kept.add(k)
            result[r.key(k)] = _redact_manifest_value(v, r, out)
        return result
    if isinstance(value, list):
        return [_redact_manifest_value(v, r, out) for v in value]
    if not isinstance(value, str):
        return value
    if UUID_ONLY.match(value):
        return r.uuid(value)
    moved = r.timestamp(value)
    if moved is not None:
        return moved
    if value.startswith("/"):
        return r.text(value)
    kept = _PATH_IN_TEXT.sub(lambda m: r.text(m.group(0)), r.uuids_in(value))
    r.kept.add(kept)
    return kept


def redact_manifest(run: Run) -> None:
    """A corpus manifest written for the copy (``_redact_manifest_value``); it is our own file,
    so it is not among the documents whose only changes must be string values."""
    path = run.source / MANIFEST
    manifest = _parsed(run.read(path, os.lstat(path).st_size), str(path), exact=False, require_object=True)
    value = _redact_manifest_value(manifest, run.r, run.out)
    run.write(path, (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode())
