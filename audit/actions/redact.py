"""``agy-audit redact``: a content-free copy of a home, a store root or a sweep corpus that keeps
the format, and the proof that it does.

What is replaced (``Redactor``):

* text -- every string value of sidecars, transcripts, ``.db`` protobuf string fields, brain
  artifacts and SQLite text columns: each character by a random one of its class (lower case,
  upper case, digit; other letters by one of the same UTF-8 length), white space, punctuation,
  ``<truncated N bytes>`` markers and agy's upper-case tags (``<USER_REQUEST>``) kept, so lengths, line counts and byte sizes stay realistic. The
  same text always gets the same placeholder within one run, and texts sharing a prefix share
  its placeholder (a truncated transcript value still agrees with the ``.db`` value it was cut from);
* JSON text (``argumentsJson``, transcript tool arguments): redacted *inside* the JSON, so it
  stays valid JSON of the same shape;
* UUIDs -- each mapped to one new random UUID everywhere (values, file and directory names), so
  parent links, cascade ids and ``trajectory_meta`` still agree;
* timestamps -- RFC 3339 text and protobuf ``Timestamp`` fields shifted by one constant (whole
  days) per run: order and gaps kept;
* bytes fields (thinking signatures) -- random bytes of the same length.

What is kept, because it is format, not content: object keys, numbers (token counts, exit codes,
line numbers), booleans, enum names, tool names and argument names, ``type``/``status``/``source``
values of transcript records, the SQLite schema. Per-install files that hold identities (logs,
``history.jsonl``, ``conversation_summaries.db``, ``installation_id``, caches, images and encrypted
``.pb`` files) are left out and listed.

The proof (``redact``): the copy is fingerprinted on every surface but those of the per-install
files it leaves out (``PROVEN``) and must give the digests of the source; no replaced source string
of 6 or more characters may occur in any byte of the copy; with deepdiff, every redacted JSON
document differs from its source only by string values.

Protobuf fields our ``.proto`` does not name (``redact_unknown``), and blobs no schema describes: a
length-delimited value is redacted as a message when it parses as one (recursively), else as text
(a same-length placeholder) when it is printable UTF-8, else by random bytes of its length; keys
and lengths are kept, so the wire shape is the source's. What cannot be walked field by field (a
group) is named and the run refuses. On any refusal the copy is removed (exit 1).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import hmac
import json
import os
import re
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from audit.actions.sweep import backup_database
from audit.checks.fingerprint import SURFACES, Fingerprint, survey
from audit.checks.shape import digest_lines
from audit.checks.values import SURFACE as VALUES
from audit.errors import FindingsError, InputError, UsageError
from audit.safeio import JSONError, atomic_write, is_dir, is_file, loads, make_private_dir, read_bytes
from audit.store import trajectory
from audit.store.corpus import MANIFEST, is_corpus
from audit.store.ids import UUID_PATTERN
from audit.store.proto import cortex_pb2 as pb
from audit.store.transcript import FLAT_NAMES, tier_of
from audit.store.wire import I32, I64, LEN, MAX_DEPTH, VARINT, WireError, WireField, unknown_fields
from audit.store.wire import parse as parse_wire

if TYPE_CHECKING:
    from google.protobuf.timestamp_pb2 import Timestamp

    from audit.store.proto import AnyFieldDescriptor, MessageDescriptor

REPORT = "REDACTION.md"
MIN_SURVIVOR = 6
"""Replaced source strings at least this long must not occur anywhere in the copy."""

LEFT_OUT_NAMES = frozenset(
    {"history.jsonl", "installation_id", "user_settings.pb", "agyhub_summaries_proto.pb", "conversation_summaries.db"}
)
LEFT_OUT_SUFFIXES = (".log", ".pb", ".png", ".jpg", ".jpeg", ".webp", ".gif", ".mp4", ".webm", ".sqlite", ".bin")
LEFT_OUT_DIRS = frozenset({"log", "logs_daemon", "cache", "browser", "annotations"})
"""Per-install identities, caches, screenshots and encrypted files: not copied (listed)."""
LEFT_OUT_SURFACES = frozenset({"summaries", "history", "cache", "roots", "layout"})
"""The surfaces of the per-install files left out (``conversation_summaries.db``, ``history.jsonl``,
``cache/``), the ``roots`` that list them, and the ``layout`` (legacy ``.pb`` files are left out
and each ``.db`` is written whole, without its ``-wal``)."""
PROVEN = tuple(s for s in SURFACES if s not in LEFT_OUT_SURFACES)
"""The surfaces whose digests the copy must keep (of ``values``, the lines of those surfaces)."""

_UUID = re.compile(UUID_PATTERN)
_UUID_ONLY = re.compile(UUID_PATTERN + r"\Z")
_TIMESTAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)\Z")
_MARKUP = re.compile(r"<truncated \d+ bytes>|</?[A-Z][A-Z0-9_]*>")
"""Kept in text: truncation markers and agy's own upper-case tags (``<USER_REQUEST>``), which are format."""
_KEPT_VALUES_OF = frozenset({"type", "status", "source", "truncated_fields", "artifactType"})
"""Top-level keys whose values are names (transcript step types, statuses, field names; an
artifact's ``ARTIFACT_TYPE_*``): format, kept."""
_TOOL_CONTAINERS = frozenset({"toolCall", "toolCalls", "tool_calls", "tool_call"})
_JSON_TEXT_KEYS = frozenset({"argumentsJson"})
_SHIFT_DAYS = (-400, -30)  # the constant shift is drawn from this range of whole days
_ENUM_NAMES = frozenset(v.name for e in pb.DESCRIPTOR.enum_types_by_name.values() for v in e.values) | frozenset(
    v.name for m in pb.DESCRIPTOR.message_types_by_name.values() for e in m.enum_types for v in e.values
)


# ----------------------------------------------------------------------------- the replacements


class Redactor:
    """Deterministic replacements for one run: the same input always maps to the same output.

    *key* seeds every choice (random per run unless given, so placeholders cannot be checked
    against guesses of the source text)."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._texts: dict[str, str] = {}
        self._ids: dict[str, str] = {}
        days = _SHIFT_DAYS[0] + int.from_bytes(self._digest("shift", b"")[:4], "big") % (_SHIFT_DAYS[1] - _SHIFT_DAYS[0])
        self.shift = _dt.timedelta(days=days)
        self.replaced: set[str] = set()  # source strings of >= MIN_SURVIVOR characters that were replaced
        self.kept: set[str] = set()  # keys and names left as they are (a replaced string inside one is no leak)
        self.counts: dict[str, int] = {"text": 0, "json-text": 0, "ids": 0, "timestamps": 0, "bytes": 0, "unknown": 0}

    def _digest(self, purpose: str, data: bytes) -> bytes:
        return hmac.new(self._key, purpose.encode() + b"\0" + data, hashlib.sha256).digest()

    def _stream(self, purpose: str, data: bytes) -> Iterator[int]:
        counter = 0
        while True:
            yield from self._digest(f"{purpose}/{counter}", data)
            counter += 1

    # -- ids and times

    def uuid(self, text: str) -> str:
        lower = text.lower()
        new = self._ids.get(lower)
        if new is None:
            raw = bytearray(self._digest("uuid", lower.encode())[:16])
            raw[6] = (raw[6] & 0x0F) | 0x40
            raw[8] = (raw[8] & 0x3F) | 0x80
            h = raw.hex()
            new = self._ids[lower] = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
            self.counts["ids"] += 1
            self.replaced.add(lower)
        return new.upper() if text.isupper() else new

    def key(self, key: str) -> str:
        """An object key: kept (keys are format), but a UUID key is mapped like every UUID."""
        return self.uuid(key) if _UUID_ONLY.match(key) else key

    def uuids_in(self, text: str) -> str:
        return _UUID.sub(lambda m: self.uuid(m.group(0)), text)

    def timestamp(self, text: str) -> str | None:
        """*text* shifted, when it is an RFC 3339 timestamp; else None."""
        m = _TIMESTAMP.match(text)
        if m is None:
            return None
        try:
            year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
            base = _dt.datetime(year, month, day, hour, minute, second)
        except ValueError:
            return None
        moved = base + self.shift
        self.counts["timestamps"] += 1
        return moved.strftime("%Y-%m-%dT%H:%M:%S") + (m.group(7) or "") + m.group(8)

    # -- text

    def text(self, text: str) -> str:
        """Same length, same class per character, white space, punctuation and markers kept."""
        if not text:
            return text
        if _UUID_ONLY.match(text):
            return self.uuid(text)
        moved = self.timestamp(text)
        if moved is not None:
            return moved
        new = self._texts.get(text)
        if new is None:
            new = self._texts[text] = self._placeholder(text)
            self.counts["text"] += 1
            if len(text) >= MIN_SURVIVOR and new != text:
                self.replaced.add(text)
        return new

    def _placeholder(self, text: str) -> str:
        """Each character is chosen by a keyed hash of the text up to and including it (since the
        last kept tag, white space left out), so texts that share a prefix share its placeholder: a
        transcript value cut at a ``<truncated ...>`` marker, or the ``<USER_REQUEST>`` text of a
        transcript, keeps agreeing with the ``.db`` value it came from (``agy-audit consistency``)."""
        kept = {m.start(): m.group(0) for m in _MARKUP.finditer(text)}
        ids = {m.start(): m.group(0) for m in _UUID.finditer(text)}
        start = hashlib.blake2b(key=hashlib.sha256(self._key).digest(), digest_size=8, person=b"text")
        chain = start.copy()
        out, i = [], 0
        while i < len(text):
            if i in kept:  # a tag starts a new chain: the text inside <USER_REQUEST> redacts as the text alone
                out.append(kept[i])
                chain = start.copy()
                i += len(kept[i])
                continue
            if i in ids:
                out.append(self.uuid(ids[i]))
                chain.update(ids[i].encode())
                i += len(ids[i])
                continue
            if not text[i].isspace():  # white space is kept and does not steer the chain (stripped texts agree)
                chain.update(text[i].encode("utf-8", "surrogatepass"))
            out.append(_like(text[i], chain.copy().digest()[0]))
            i += 1
        return "".join(out)

    def bytes_(self, data: bytes) -> bytes:
        if not data:
            return data
        self.counts["bytes"] += 1
        return self.noise(data)

    def noise(self, data: bytes) -> bytes:
        """Random bytes as many as *data* has (the same for the same *data*)."""
        rnd = self._stream("bytes", data)
        return bytes(next(rnd) for _ in data)


_NOT_UTF8 = bytes([0xC0, 0xC1, *range(0xF5, 0x100)])
"""The bytes that never occur in UTF-8."""


def _like(ch: str, r: int) -> str:
    """A character of *ch*'s class chosen by *r*: a letter by a letter of the same case and UTF-8
    length, a digit by a digit; white space, punctuation and other symbols kept. A byte that is not
    UTF-8 (decoded with ``surrogateescape``) by a byte that never is, so the text stays as long and
    as undecodable as it was."""
    if "\udc80" <= ch <= "\udcff":
        return chr(0xDC00 | _NOT_UTF8[r % len(_NOT_UTF8)])
    if "a" <= ch <= "z":
        return chr(ord("a") + r % 26)
    if "A" <= ch <= "Z":
        return chr(ord("A") + r % 26)
    if "0" <= ch <= "9":
        return chr(ord("0") + r % 10)
    code = ord(ch)
    if code < 0x80 or not ch.isalpha():
        return ch
    if code < 0x800:  # Latin-1 letters, two UTF-8 bytes: À-Ö upper, à-ö lower
        return chr((0xC0 if ch.isupper() else 0xE0) + r % 23)
    if code < 0x10000:
        return chr(0x4E00 + r % 0x5000)  # CJK ideographs: three UTF-8 bytes
    return chr(0x20000 + r % 0x1000)  # CJK extension B: four UTF-8 bytes


# ----------------------------------------------------------------------------- JSON documents


_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")


def redact_json(value: Any, r: Redactor, *, key: str | None = None, parent: str | None = None) -> Any:
    """A copy of the parsed JSON *value* with every string value replaced (keys kept)."""
    if isinstance(value, dict):
        r.kept.update(value)
        return {r.key(k): redact_json(v, r, key=k, parent=key) for k, v in value.items()}
    if isinstance(value, list):
        return [redact_json(v, r, key=key, parent=parent) for v in value]
    if not isinstance(value, str):
        return value
    if (
        value in _ENUM_NAMES
        or key in _KEPT_VALUES_OF
        and parent is None
        or key in ("name", "originalName")
        and parent in _TOOL_CONTAINERS
        or key == "key"
        and parent == "attributes"  # generation attribute names (model_enum, trajectory_id, ...)
    ):
        r.kept.add(value)
        return value
    if key in _JSON_TEXT_KEYS or parent == "args":
        if parent == "args" and (value in ("true", "false", "null") or _JSON_NUMBER.fullmatch(value)):
            return value  # a typed argument as JSON text (the compact tier): no content
        if parent == "args" and value.startswith('"') and "<truncated " in value:
            return '"' + r.text(value[1:])  # cut JSON text of a string: its text shares the .db value's placeholder
        inner = _json_text(value, r)
        if inner is not None:
            return inner
    return r.text(value)


def _json_text(value: str, r: Redactor) -> str | None:
    """*value* redacted inside, when it is JSON text (an object, array or string); else None."""
    stripped = value.lstrip()
    if not stripped or stripped[0] not in '{["':
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    r.counts["json-text"] += 1
    spaced = ", " in value or ": " in value
    return json.dumps(redact_json(parsed, r), ensure_ascii=False, separators=(", ", ": ") if spaced else (",", ":"))


def _dump_like(original: str, value: Any) -> str:
    """*value* as JSON in the layout of *original* (indented, spaced or compact)."""
    if "\n" in original.strip():
        indent = len(original.split("\n", 1)[1]) - len(original.split("\n", 1)[1].lstrip(" "))
        text = json.dumps(value, ensure_ascii=False, indent=indent or 2)
    elif ", " in original or ": " in original:
        text = json.dumps(value, ensure_ascii=False)
    else:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text + ("\n" if original.endswith("\n") else "")


# ----------------------------------------------------------------------------- protobuf messages


def redact_message(message: Message, r: Redactor) -> None:
    """Replace, in place, every string and bytes field of *message* (recursively); protobuf
    Timestamps are shifted. Unknown fields are left to ``redact_unknown``, on the serialized message."""
    if message.DESCRIPTOR.full_name == "google.protobuf.Timestamp":
        stamp = cast("Timestamp", message)  # what its descriptor names
        if stamp.seconds:
            stamp.seconds += int(r.shift.total_seconds())
            r.counts["timestamps"] += 1
        return
    for fd, value in message.ListFields():
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            assert fd.message_type is not None  # a message field has its message type
            if fd.message_type.GetOptions().map_entry:
                _redact_map(message, fd, r)
            elif fd.is_repeated:
                for item in value:
                    redact_message(item, r)
            else:
                redact_message(value, r)
        elif fd.type == FieldDescriptor.TYPE_STRING:
            if fd.is_repeated:
                texts = [r.text(v) for v in value]
                del getattr(message, fd.name)[:]
                getattr(message, fd.name).extend(texts)
            else:
                setattr(message, fd.name, _string_field(fd, value, r))
        elif fd.type == FieldDescriptor.TYPE_BYTES:
            if fd.is_repeated:
                blobs = [r.bytes_(v) for v in value]
                del getattr(message, fd.name)[:]
                getattr(message, fd.name).extend(blobs)
            else:
                setattr(message, fd.name, r.bytes_(value))


def _string_field(fd: FieldDescriptor, value: str, r: Redactor) -> str:
    if fd.name in ("arguments_json",):
        inner = _json_text(value, r)
        if inner is not None:
            return inner
    if (
        fd.name in ("name", "original_name")
        and fd.containing_type is not None
        and fd.containing_type.name == "ChatToolCall"
        or (fd.name == "key" and fd.containing_type is not None and fd.containing_type.name == "ModelAttribute")
        or value in _ENUM_NAMES  # an enum name as text (the model_enum attribute), as in JSON documents
    ):
        r.kept.add(value)
        return value  # the tool's name, the generation's attribute names and enum names are format
    return r.text(value)


def _redact_map(message: Message, fd: FieldDescriptor, r: Redactor) -> None:
    container = getattr(message, fd.name)
    assert fd.message_type is not None  # a map field has its entry type
    value_fd = fd.message_type.fields_by_name["value"]
    items = list(container.items())
    container.clear()
    for k, v in items:
        new_key = r.text(k) if isinstance(k, str) else k
        if value_fd.type == FieldDescriptor.TYPE_MESSAGE:
            container[new_key].CopyFrom(v)
            redact_message(container[new_key], r)
        elif value_fd.type == FieldDescriptor.TYPE_STRING:
            container[new_key] = r.text(v)
        elif value_fd.type == FieldDescriptor.TYPE_BYTES:
            container[new_key] = r.bytes_(v)
        else:
            container[new_key] = v


def has_unknown_fields(message: Message) -> bool:
    """Whether *message* or any message set in it holds a field ``cortex.proto`` does not name."""
    return any(not key.partition(":")[2].startswith("enum=") for key in unknown_fields(message))


def redact_unknown(data: bytes, descriptor: MessageDescriptor | None, r: Redactor, depth: int = 0, scrub: bool = False) -> bytes:
    """*data*, a serialized message of type *descriptor* (None: a message no schema describes),
    with the value of every field the schema does not name replaced; the fields it names are
    copied as they are (``redact_message`` redacted them). Raises ``WireError`` when *data* is not
    protobuf our wire walk can read field by field (a group, or a declared message that does not
    parse): such a blob cannot be shown to be content-free.

    An unknown length-delimited value is read as a message when it parses as one (and redacted
    the same way, recursively), else replaced as text when it is printable UTF-8 (a placeholder of
    the same length), else by random bytes of its length. The key and length of every field are
    kept, so the wire shape -- what the ``wire`` fingerprint and ``inspect`` see -- is the
    source's. Numbers are kept as they are (format), except inside a value that is also printable
    text (*scrub*): text that happens to parse as a message (``image/png`` reads as field 13, an
    8-byte number) keeps its keys and lengths but not one byte of its values."""
    out = bytearray()
    for f in parse_wire(data, max_depth=0):
        fd = descriptor.fields_by_number.get(f.number) if descriptor is not None else None
        out += _varint(f.number << 3 | f.wire_type)
        if fd is not None and _declared_wire_type(fd, f.wire_type):
            if fd.type == FieldDescriptor.TYPE_MESSAGE:
                assert isinstance(f.value, bytes)  # a message is length-delimited
                out += _length_delimited(redact_unknown(f.value, fd.message_type, r, depth + 1))
            else:
                out += _value(f)  # a named field: redact_message replaced it already
        elif f.wire_type == LEN:
            assert isinstance(f.value, bytes)  # a length-delimited value is its bytes
            r.counts["unknown"] += 1
            out += _length_delimited(_unknown_value(f.value, r, depth + 1, scrub))
        elif scrub:
            out += _noise_number(f, r)
        else:
            out += _value(f)
    return bytes(out)


def _unknown_value(data: bytes, r: Redactor, depth: int, scrub: bool) -> bytes:
    """A length-delimited value no schema describes, redacted (``redact_unknown``)."""
    if not data:
        return data
    text = _as_text(data)
    if depth <= MAX_DEPTH:  # as deep as the wire fingerprint looks for messages, and no deeper
        try:
            parse_wire(data, max_depth=0)
        except WireError:
            pass
        else:
            if text is not None and len(text) >= MIN_SURVIVOR:
                r.replaced.add(text)  # the proof looks for it in the copy
            return redact_unknown(data, None, r, depth, scrub or text is not None)
    if text is not None:
        return r.text(text).encode("utf-8")
    return r.bytes_(data)


_FIXED_WIRE_TYPES = {
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64, FieldDescriptor.TYPE_DOUBLE), I64),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_FLOAT), I32),
    **dict.fromkeys((FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE), LEN),
}


def _declared_wire_type(fd: AnyFieldDescriptor, wire_type: int) -> bool:
    """Whether a field *fd* declares arrives with *wire_type* as protobuf reads it (a repeated
    number may be packed); with any other wire type protobuf keeps it as an unknown field."""
    declared = _FIXED_WIRE_TYPES.get(fd.type, VARINT)
    return wire_type == declared or (wire_type == LEN and fd.is_repeated and declared != LEN)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _length_delimited(data: bytes) -> bytes:
    return _varint(len(data)) + data


def _value(f: WireField) -> bytes:
    """The encoded value of *f* (after its key), as it was."""
    if f.wire_type == LEN:
        assert isinstance(f.value, bytes)  # a length-delimited value is its bytes
        return _length_delimited(f.value)
    assert isinstance(f.value, int)  # varint and fixed-width values are numbers
    if f.wire_type == VARINT:
        return _varint(f.value)
    return f.value.to_bytes(8 if f.wire_type == I64 else 4, "little")


def _noise_number(f: WireField, r: Redactor) -> bytes:
    """A random value of *f*'s wire type and encoded length."""
    size = len(_value(f))
    noise = bytearray(r.noise(_value(f)))
    if f.wire_type == VARINT:  # continuation bits kept; the last byte non-zero (and 1 in a 10-byte varint)
        for i in range(size - 1):
            noise[i] |= 0x80
        noise[-1] = 1 if size == 10 else (noise[-1] & 0x7F or 1) if size > 1 else noise[-1] & 0x7F
    return bytes(noise)


def _as_text(data: bytes) -> str | None:
    """*data* as text, when it is UTF-8 and every character printable or white space."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return text if all(ch.isprintable() or ch in "\n\r\t" for ch in text) else None


# ----------------------------------------------------------------------------- files


@dataclass
class Result:
    source: Path
    out: Path
    files: int = 0  # files written
    left_out: list[str] = field(default_factory=list)  # relative paths not copied, with the reason
    digests: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # surface -> (source, copy)
    counts: dict[str, int] = field(default_factory=dict)
    shift_days: int = 0


def _left_out(rel: Path) -> str | None:
    if rel.name in LEFT_OUT_NAMES:
        return "per-install identity or history"
    if rel.name.endswith(".pb") and rel.parent.name in ("conversations", "implicit"):
        return "legacy encrypted trajectory: it cannot be redacted"
    if rel.suffix.lower() in LEFT_OUT_SUFFIXES:
        return "log, cache, image or encrypted file"
    if any(part in LEFT_OUT_DIRS for part in rel.parts[:-1]):
        return "logs, caches and browser recordings are content the format checks never read"
    if rel.name.startswith(".") and rel.name.endswith(".tmp"):
        return "a temporary file"
    return None


def _redact_text_file(data: bytes, r: Redactor) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return r.text(text).encode("utf-8", "surrogateescape")


def _redact_jsonl(data: bytes, r: Redactor, source: str, docs: list[tuple[Any, Any]]) -> bytes:
    out = []
    for line in data.decode("utf-8", "surrogateescape").split("\n"):
        try:
            value = loads(line, source=source) if line.strip() else None
        except JSONError:
            value = None
        if value is None:
            out.append(r.text(line))  # torn or blank: replaced as text, its length kept
            continue
        new = redact_json(value, r)
        docs.append((value, new))
        out.append(_dump_like(line, new))
    return "\n".join(out).encode("utf-8", "surrogateescape")


def _redact_json_file(data: bytes, r: Redactor, source: str, docs: list[tuple[Any, Any]]) -> bytes:
    value = loads(data, source=source, require_object=False)
    new = redact_json(value, r)
    docs.append((value, new))
    return _dump_like(data.decode("utf-8"), new).encode("utf-8")


def _redact_db(source: Path, target: Path, r: Redactor, problems: list[str]) -> None:
    """The database redacted in memory and vacuumed (no freed page keeps old content), then
    written atomically; a database SQLite cannot read is an ``InputError`` naming it (exit 2).

    Cells are read as bytes with their storage class (``_cells``), so a TEXT cell that is not
    UTF-8 -- SQLite stores what it is given -- is redacted like any text and stays TEXT."""
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(backup_database(source))
        utf8 = conn.execute("PRAGMA encoding").fetchone()[0] == "UTF-8"
        for table, column, message_class in _blob_columns():
            if not _has_column(conn, table, column):
                continue
            for row_id, blob, is_text in _cells(conn, table, column):
                if is_text:  # text where a message belongs: content all the same, redacted as text
                    new = _text_cell(blob, r)
                    _update(conn, (table, column, row_id), new, is_text, utf8=utf8, source=source)
                    continue
                message = message_class()
                try:
                    message.ParseFromString(blob)
                except DecodeError:  # not a message of its type: redacted as a blob no schema describes
                    new = _unknown_value(blob, r, 0, False)
                else:
                    redact_message(message, r)
                    new = message.SerializeToString()
                    if has_unknown_fields(message):
                        try:
                            new = redact_unknown(new, message.DESCRIPTOR, r)
                        except WireError as e:
                            problems.append(
                                f"{source.name}:{table}.{column}[{row_id}]: {e}; its unknown fields cannot be redacted"
                            )
                            continue
                _update(conn, (table, column, row_id), new, is_text, utf8=utf8, source=source)
        for table, column in _other_columns(conn):
            for row_id, value, is_text in _cells(conn, table, column):
                if is_text:
                    replaced = _text_cell(value, r, ids=(table, column) in _ID_COLUMNS)
                else:
                    replaced = _unknown_value(value, r, 0, False)  # a blob no schema describes
                _update(conn, (table, column, row_id), replaced, is_text, utf8=utf8, source=source)
        conn.commit()
        conn.execute("VACUUM")  # no freed page keeps the old content
        image = conn.serialize()
    except sqlite3.Error as exc:  # a schema that is not UTF-8, say: nothing of this database is written
        raise InputError(f"{source}: cannot redact the database ({exc})") from None
    finally:
        conn.close()
    atomic_write(target, image)


def _cells(conn: sqlite3.Connection, table: str, column: str) -> list[tuple[int, bytes, bool]]:
    """(rowid, value, whether it is TEXT) of every non-empty TEXT or BLOB cell of *column*, read
    as bytes: a TEXT cell need not be UTF-8."""
    conn.text_factory = bytes  # TEXT as SQLite's UTF-8 bytes, never decoded (for this query only)
    try:
        return conn.execute(
            f'SELECT rowid, "{column}", typeof("{column}") = \'text\' FROM "{table}"'
            f" WHERE typeof(\"{column}\") IN ('text', 'blob') AND length(CAST(\"{column}\" AS BLOB)) > 0"
        ).fetchall()
    finally:
        conn.text_factory = str


def _text_cell(raw: bytes, r: Redactor, *, ids: bool = False) -> str | bytes:
    """A TEXT cell redacted: *ids* (an id column) only its UUIDs mapped, else as text. Bytes that
    are not UTF-8 are redacted as text read with ``surrogateescape``: the valid characters by
    placeholders, each other byte by one that is never UTF-8 (``_like``), as many bytes as before."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return r.text(raw.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return r.uuids_in(text) if ids else r.text(text)


def _update(
    conn: sqlite3.Connection, cell: tuple[str, str, int], value: str | bytes, is_text: bool, *, utf8: bool, source: Path
) -> None:
    """Set one cell (table, column, rowid) to *value*; bytes of a TEXT cell are stored as TEXT
    again, byte for byte (``CAST``), which only a UTF-8 database does."""
    table, column, row_id = cell
    if is_text and isinstance(value, bytes) and not utf8:
        raise InputError(
            f"{source}: {table}.{column}[{row_id}]: text that is not UTF-8 in a UTF-16 database cannot be redacted byte for byte"
        )
    sql = "CAST(? AS TEXT)" if is_text and isinstance(value, bytes) else "?"
    conn.execute(f'UPDATE "{table}" SET "{column}" = {sql} WHERE rowid = ?', (value, row_id))


_ID_COLUMNS = frozenset(
    {("trajectory_meta", "trajectory_id"), ("trajectory_meta", "cascade_id"), ("trajectory_metadata_blob", "id")}
)
"""Text columns of the known schema that hold ids (UUIDs are mapped, ``main`` is kept); any other
text column is content and redacted as text."""


def _blob_columns() -> list[tuple[str, str, type[Message]]]:
    columns: list[tuple[str, str, type[Message]]] = [("steps", "step_payload", pb.Step)]
    columns += [("steps", column, cls) for column, (_attr, cls) in trajectory.STEP_COLUMNS.items()]
    columns.append(("steps", "render_info", pb.StepRenderInfo))
    columns += [(table, "data", cls) for table, _key, cls in trajectory.BLOB_TABLES]
    columns.append(("trajectory_metadata_blob", "data", pb.CortexTrajectoryMetadata))
    return columns


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f'PRAGMA table_info("{table}")'))


def _other_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every (table, column) not decoded as a message: text is redacted, blobs are checked."""
    decoded = {(t, c) for t, c, _ in _blob_columns()}
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return [(t, row[1]) for t in tables for row in conn.execute(f'PRAGMA table_info("{t}")') if (t, row[1]) not in decoded]


def _walk(root: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _copy(source: Path, out: Path, r: Redactor, result: Result, problems: list[str], docs: list[tuple[Any, Any]]) -> None:
    chunked: dict[Path, list[Path]] = {}  # chunk directory -> its parts, redacted as one stream
    for path in _walk(source):
        rel = path.relative_to(source)
        st = os.lstat(path)
        if not stat.S_ISREG(st.st_mode):
            result.left_out.append(f"{r.uuids_in(str(rel))}: not a regular file")
            continue
        reason = _left_out(rel)
        if reason is None and rel.name.endswith(("-wal", "-shm", "-journal")):
            reason = "SQLite side file: its content is in the redacted .db"
        if reason is not None:
            result.left_out.append(f"{r.uuids_in(str(rel))}: {reason}")
            continue
        r.kept.update(rel.parts)  # file and directory names are kept (the layout), their UUIDs mapped
        target = out / Path(*(r.uuids_in(part) for part in rel.parts))
        make_private_dir(target.parent, exist_ok=True)
        name = rel.name
        if name.endswith(".db"):
            _redact_db(path, target, r, problems)
        else:
            data = read_bytes(path)
            if tier_of(path) is not None and path.parent.parent.name == "chunks":
                chunked.setdefault(path.parent, []).append(path)  # a part ends mid-line: see below
                result.files += 1
                continue
            if name == MANIFEST and rel.parent == Path("."):
                new = data  # rewritten after every other file (its hashes)
            elif name.endswith(".jsonl") or name == FLAT_NAMES["overview"]:
                new = _redact_jsonl(data, r, str(path), docs)
            elif name.endswith(".json"):
                try:
                    new = _redact_json_file(data, r, str(path), docs)
                except JSONError:
                    new = _redact_text_file(data, r)
            else:
                new = _redact_text_file(data, r)
            atomic_write(target, new)
        result.files += 1
    for parts in chunked.values():
        _redact_chunks(sorted(parts, key=lambda p: int(p.stem)), source, out, r, docs)


def _redact_chunks(parts: list[Path], source: Path, out: Path, r: Redactor, docs: list[tuple[Any, Any]]) -> None:
    """The parts of one tier's chunk directory as one JSON-lines stream (agy cuts them
    mid-line), written back as as many parts, cut where the originals were (the last takes the rest)."""
    data = [read_bytes(p) for p in parts]
    new = _redact_jsonl(b"".join(data), r, str(parts[0].parent), docs)
    at = 0
    for i, (path, old) in enumerate(zip(parts, data)):
        piece = new[at:] if i == len(parts) - 1 else new[at : at + len(old)]
        at += len(piece)
        target = out / Path(*(r.uuids_in(part) for part in path.relative_to(source).parts))
        make_private_dir(target.parent, exist_ok=True)
        atomic_write(target, piece)


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
                    digest = hashlib.sha256(target.read_bytes()).hexdigest()
                    result[r.uuids_in(k)] = ("sha256:" if v.startswith("sha256:") else "") + digest
                continue
            r.kept.add(k)
            result[r.key(k)] = _redact_manifest_value(v, r, out)
        return result
    if isinstance(value, list):
        return [_redact_manifest_value(v, r, out) for v in value]
    if not isinstance(value, str):
        return value
    if _UUID_ONLY.match(value):
        return r.uuid(value)
    moved = r.timestamp(value)
    if moved is not None:
        return moved
    if value.startswith("/"):
        return r.text(value)
    kept = _PATH_IN_TEXT.sub(lambda m: r.text(m.group(0)), r.uuids_in(value))
    r.kept.add(kept)
    return kept


def _rewrite_manifest(out: Path, r: Redactor) -> None:
    """A corpus manifest rewritten for the copy (``_redact_manifest_value``); it is our own file,
    so it is not among the documents whose only changes must be string values."""
    path = out / MANIFEST
    manifest = loads(read_bytes(path), source=str(path))
    atomic_write(path, (json.dumps(_redact_manifest_value(manifest, r, out), ensure_ascii=False, indent=2) + "\n").encode())


# ----------------------------------------------------------------------------- the proof


def _survivors(out: Path, r: Redactor) -> list[str]:
    """Replaced source strings found in the copy, except those that are (part of) a kept key or name."""
    kept = "\0".join(sorted(r.kept))
    texts = {s for s in r.replaced if s not in kept}
    needles = sorted({_source_bytes(s) for s in texts}, key=len, reverse=True)
    ids = [_source_bytes(s) for s in texts if _UUID_ONLY.match(s)]
    found = []
    for path in _walk(out):
        data = path.read_bytes()
        # Our own report is template text: only the ids in the paths it lists could leak.
        for needle in ids if path == out / REPORT else needles:
            if needle in data:
                found.append(f"{path.relative_to(out)}: {len(needle)}-byte source string survives")
                break
    return found


def _source_bytes(text: str) -> bytes:
    """The bytes *text* was read from: bytes that are not UTF-8 (read with ``surrogateescape``) as
    they were, other lone surrogates (JSON ``\\ud800`` escapes) as ``surrogatepass`` writes them."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


def _uuid_keys(value: Any, r: Redactor) -> Any:
    if isinstance(value, dict):
        return {r.key(k): _uuid_keys(v, r) for k, v in value.items()}
    if isinstance(value, list):
        return [_uuid_keys(v, r) for v in value]
    return value


def _not_only_strings(docs: list[tuple[Any, Any]], r: Redactor) -> list[str]:
    """deepdiff of each source document (its UUID keys mapped) with its copy: string values only."""
    from deepdiff import DeepDiff  # noqa: PLC0415 -- only redact and diff load it

    problems = []
    for old, new in docs:
        d = DeepDiff(_uuid_keys(old, r), new, view="tree", ignore_order=False)
        for report in d:
            for level in d[report]:
                if report != "values_changed" or not (isinstance(level.t1, str) and isinstance(level.t2, str)):
                    problems.append(f"{level.path()}: {report} (only string values may change)")
    return problems


def redact(source: str | os.PathLike, out: str | os.PathLike, *, key: bytes | None = None) -> Result:
    """Write the redacted copy of *source* to the new directory *out* and prove it (module doc).

    Raises ``InputError`` when *source* is missing or *out* exists, ``FindingsError`` (after
    removing *out*) when the proof fails."""
    source, out = Path(source).expanduser(), Path(out).expanduser()
    if not is_dir(source):
        raise InputError(f"{source}: not a directory (a home, a store root or a sweep corpus)")
    if os.path.lexists(out):
        raise InputError(f"{out}: already exists; redact writes a new directory")
    if out.resolve().is_relative_to(source.resolve()):
        raise UsageError(f"{out}: inside the source {source}; choose a directory outside it")
    r = Redactor(key if key is not None else os.urandom(32))
    result = Result(source, out, shift_days=r.shift.days)
    problems: list[str] = []
    docs: list[tuple[Any, Any]] = []
    make_private_dir(out)
    try:
        _copy(source, out, r, result, problems, docs)
        if is_corpus(source):
            _rewrite_manifest(out, r)
        before, after = survey([source], PROVEN), survey([out], PROVEN)
        for surface in PROVEN:
            a, b = before.fingerprints.get(surface), after.fingerprints.get(surface)
            result.digests[surface] = (_proved(a), _proved(b))
            if result.digests[surface][0] != result.digests[surface][1]:
                problems.append(
                    f"{surface} fingerprint differs: source {result.digests[surface][0]}, copy {result.digests[surface][1]}"
                )
        result.counts = dict(r.counts)
        atomic_write(out / REPORT, report_text(result).encode("utf-8"))  # scanned with the rest
        problems += _survivors(out, r)
        problems += _not_only_strings(docs, r)
        if problems:
            shown = "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else "")
            raise FindingsError(f"{source}: redaction refused, the copy was removed: {shown}")
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    return result


def _proved(found: Fingerprint | None) -> str | None:
    """The digest the copy must keep: a surface's, or for ``values`` that of its lines but those
    of the left-out files (``history:type``)."""
    if found is None or found.surface != VALUES:
        return found.digest if found else None
    return digest_lines(line for line in found.lines if line.partition(":")[0] not in LEFT_OUT_SURFACES)


def report_text(result: Result) -> str:
    """REDACTION.md: what was replaced, what was kept, the digests that match."""
    c = result.counts
    lines = [
        "# Redacted copy (agy-audit redact)",
        "",
        f"Source: a copy of `{result.source.name}` with every piece of content replaced; the format is kept.",
        "",
        "## Replaced",
        "",
        f"- {c.get('text', 0)} distinct text values (same length and character classes; white space, punctuation and",
        "  `<truncated N bytes>` markers and agy's upper-case tags kept)",
        f"- {c.get('json-text', 0)} JSON-text values redacted inside their JSON (still valid JSON of the same shape)",
        f"- {c.get('ids', 0)} UUIDs, each mapped to one new UUID everywhere (values, file and directory names)",
        f"- {c.get('timestamps', 0)} timestamps, shifted by one constant ({result.shift_days} days): order and gaps kept",
        f"- {c.get('bytes', 0)} bytes values (signatures) by random bytes of the same length",
        f"- {c.get('unknown', 0)} values of protobuf fields cortex.proto does not name: as a message when they parse",
        "  as one, else as text or bytes (keys and lengths kept)",
        "",
        "## Kept (format, not content)",
        "",
        "Object keys, numbers (token counts, exit codes, line numbers), booleans, enum names, tool and argument",
        "names, transcript record types, statuses and sources, file and directory names (their UUIDs mapped),",
        "the SQLite schema.",
        "",
        "## Left out",
        "",
    ]
    lines += [f"- `{item}`" for item in result.left_out] or ["- nothing"]
    lines += ["", "## Fingerprints (source = copy)", "", "| surface | digest |", "| --- | --- |"]
    lines += [f"| {s} | `{a or 'absent'}` |" for s, (a, _b) in result.digests.items()]
    lines += ["", "No replaced source string of 6 or more characters occurs in the copy, and every JSON document",
              "differs from its source only by string values (checked with deepdiff).", ""]  # fmt: skip
    return "\n".join(lines)
