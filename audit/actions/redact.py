"""``agy-audit redact``: a content-free copy of a home, a store root or a sweep corpus that keeps
the format, and the proof that it does.

What is replaced (``Redactor``):

* text -- every string value of sidecars, transcripts, ``.db`` protobuf string fields, brain
  artifacts and SQLite text columns: each character by a random one of its class (lower case,
  upper case, digit; other letters by one of the same UTF-8 length), white space, punctuation,
  ``<truncated N bytes>`` markers and agy's upper-case tags (``<USER_REQUEST>``) kept, so
  lengths, line counts and byte sizes stay realistic. A text without a letter or a digit (a run
  of spaces) is format, not content: it stays as it is. The same text always gets the same
  placeholder within one run, and texts sharing a prefix share its placeholder (a truncated
  transcript value still agrees with the ``.db`` value it was cut from);
* JSON text (``argumentsJson``, transcript tool arguments): redacted *inside* the JSON, so it
  stays valid JSON of the same shape;
* UUIDs -- each mapped to one new random UUID everywhere (values, file and directory names), so
  parent links, cascade ids and ``trajectory_meta`` still agree;
* timestamps -- RFC 3339 text and protobuf ``Timestamp`` fields shifted by one constant (whole
  days) per run: order and gaps kept;
* bytes fields (thinking signatures) -- random bytes of the same length.

What is kept, because it is format, not content: object keys, numbers (token counts, exit codes,
line numbers), booleans, enum names (and any other value the ``values`` fingerprint records of
a sidecar's enum fields), tool names and argument names, ``type``/``status``/``source`` values
of transcript records, the SQLite schema, the headers and sentences of transcript content
(``conventions.MARKERS``). The per-install files the fingerprints read (``history.jsonl``,
``conversation_summaries.db``, ``cache/*``) are redacted like any other; a legacy encrypted ``.pb``
becomes random bytes of its length and a ``.db`` that had a ``-wal`` gets an empty one, so the
copy keeps every surface, the layout of its files included. Identities (``installation_id``,
``user_settings.pb``, ``agyhub_summaries_proto.pb``), logs, annotations, browser recordings and
images are left out and listed: no fingerprint reads them.

Blobs are rewritten on the wire (``redact_wire``): only the bytes of text and bytes fields
change (and the lengths of the messages around a text whose length changed); every other byte
-- field order, fields encoded at their default value, packed numbers, unknown fields' keys --
is the source's, so the copy's ``wire`` fingerprint is the source's. Fields our ``.proto`` does
not name, and blobs no schema describes: a length-delimited value is redacted as a message when
it parses as one (recursively), else as text (a same-length placeholder) when it is printable
UTF-8, else by random bytes of its length. What cannot be walked field by field (a group) is
named and the run refuses.

Bounded work: every file read whole is at most *max_file_size* bytes (``MAX_FILE_SIZE`` unless
given; a larger one is an ``InputError`` naming it, before a byte is read); JSON-lines files are
streamed line by line (a line is read whole). Each step is linear in the bytes it reads: the
random filler is one keyed hash and one extendable-output hash per value, and the survivor
search below looks up each 8-byte window of the copy once in a hash table.

The proof (``redact``): the copy is fingerprinted on every surface but those of the per-install
files it leaves out (``Surface.redact``: ``kept_by_redact``) and must give the digests of the source; no replaced source string
whose placeholder is one of at least 2**40 (``MIN_SURVIVOR_BITS``) may occur in any byte of the copy; every
redacted JSON document differs from its source only by string values (deepdiff explains a
document that does not). On any refusal the copy is removed (exit 1).
"""

from __future__ import annotations

import array
import contextlib
import datetime as _dt
import hashlib
import hmac
import json
import math
import os
import re
import shutil
import sqlite3
import stat
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar, cast

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message

from audit.actions.sweep import backup_database
from audit.checks.conventions import MARKERS
from audit.checks.diff import CHANGED, changes
from audit.checks.fingerprint import fingerprint_paths
from audit.checks.fingerprint.surfaces import kept_by_redact
from audit.checks.values import OTHER, Values, add_trajectory
from audit.errors import FindingsError, InputError, UsageError
from audit.progress import Callback, Factory, step
from audit.safeio import (
    MAX_DOCUMENT_BYTES,
    atomic_write,
    create_in_private_dir,
    filesystem_handle,
    is_dir,
    is_file,
    make_private_dir,
    open_regular,
    read_bytes,
    sync_files,
)
from audit.store import install, layout, trajectory
from audit.store.corpus import MANIFEST, is_corpus
from audit.store.ids import UUID_PATTERN
from audit.store.layout import list_dir
from audit.store.proto import cortex_pb2 as pb
from audit.store.transcript import FLAT_NAMES, tier_of
from audit.store.wire import I32, I64, LEN, MAX_DEPTH, VARINT, WireError, encode_varint, read_varint
from audit.store.wire import parse as parse_wire
from audit.strictjson import JSONError, dumps, loads, loads_text

if TYPE_CHECKING:
    import io

    from audit.store.proto import AnyFieldDescriptor, MessageDescriptor

REPORT = "REDACTION.md"
MIN_SURVIVOR_BITS = 40
"""A replaced source string must not occur anywhere in the copy when its placeholder is one of at
least 2**40 (9 letters, 12 digits, 3 CJK characters): a shorter one (``2.167s``, a six-digit
number, a short word) is as likely to be another string's placeholder, or a random part of one,
as a leak."""
MAX_FILE_SIZE = MAX_DOCUMENT_BYTES
"""The default limit (256 MiB, the one size limit) of a file redact reads whole."""

LEFT_OUT_NAMES = frozenset({"installation_id", "user_settings.pb", "agyhub_summaries_proto.pb"})
LEFT_OUT_SUFFIXES = (".log", ".pb", ".png", ".jpg", ".jpeg", ".webp", ".gif", ".mp4", ".webm", ".sqlite", ".bin")
LEFT_OUT_DIRS = frozenset({"log", "logs_daemon", "cache", "browser", "annotations"})
"""Per-install identities, logs, deeper caches, screenshots: not copied (listed). The per-install
files the fingerprints read (``install.kind_of``) are redacted, not left out."""

_UUID = re.compile(UUID_PATTERN)
_UUID_ONLY = re.compile(UUID_PATTERN + r"\Z")
_TIMESTAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)\Z")
_MARKUP = rf"<truncated \d+ bytes>|</?[A-Z][A-Z0-9_]*>|{MARKERS}"
"""Kept in text: truncation markers, agy's own upper-case tags (``<USER_REQUEST>``) and the headers
and sentences of transcript content (``Created At:``, ``conventions.CONVENTIONS``), which are format."""
_SPECIAL = re.compile(f"(?P<tag>{_MARKUP})|(?P<id>{UUID_PATTERN})")
_CONTENT_CHAR = re.compile(r"[^\W_]|[\udc80-\udcff]")
"""A letter, a digit or a byte that is not UTF-8: what makes a text content."""
_MAYBE_CONTENT = re.compile(r"[A-Za-z0-9\x80-\U0010ffff]")
"""A text without any of these characters (no ASCII letter or digit, nothing beyond ASCII) is
its own placeholder: format, not content."""
_KEPT_VALUES_OF = frozenset({"type", "status", "source", "truncated_fields", "artifactType"})
"""Top-level keys whose values are names (transcript step types, statuses, field names; an
artifact's ``ARTIFACT_TYPE_*``): format, kept."""
_TOOL_CONTAINERS = frozenset({"toolCall", "toolCalls", "tool_calls", "tool_call"})
_JSON_TEXT_KEYS = frozenset({"argumentsJson"})
_SHIFT_DAYS = (-400, -30)  # the constant shift is drawn from this range of whole days
_ENUM_NAMES = frozenset(v.name for e in pb.DESCRIPTOR.enum_types_by_name.values() for v in e.values) | frozenset(
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
_CACHED_CHARS = 1 << 22
"""At most this many characters of texts and their placeholders are remembered (then forgotten
at once): a text repeated in one session's files is not redacted twice, and memory does not grow
with the home."""


# ----------------------------------------------------------------------------- the replacements


class Redactor:
    """Deterministic replacements for one run: the same input always maps to the same output.

    *key* seeds every choice (random per run unless given, so placeholders cannot be checked
    against guesses of the source text)."""

    def __init__(self, key: bytes) -> None:
        self._key = key
        self._chain = hashlib.blake2b(key=hashlib.sha256(key).digest(), digest_size=8, person=b"text")
        self._texts: dict[str, str] = {}
        self._cached = 0  # characters held by _texts
        self._ids: dict[str, str] = {}
        days = _SHIFT_DAYS[0] + int.from_bytes(self._digest("shift", b"")[:4], "big") % (_SHIFT_DAYS[1] - _SHIFT_DAYS[0])
        self.shift = _dt.timedelta(days=days)
        self.needles = Needles()  # the replaced source strings the proof searches for
        self.kept: set[str] = set()  # keys and names left as they are (a replaced string inside one is no leak)
        self.counts: dict[str, int] = {
            "text": 0,
            "json-text": 0,
            "ids": 0,
            "timestamps": 0,
            "bytes": 0,
            "unknown": 0,
            "legacy": 0,
        }

    def _digest(self, purpose: str, data: bytes) -> bytes:
        return hmac.new(self._key, purpose.encode() + b"\0" + data, hashlib.sha256).digest()

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
            self.needles.add(lower, uuid=True)
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

    def seconds(self, value: int) -> int:
        """A protobuf ``Timestamp``'s seconds (an int64 read as unsigned) shifted, as unsigned."""
        signed = value - (1 << 64) if value >> 63 else value
        self.counts["timestamps"] += 1
        return (signed + int(self.shift.total_seconds())) & ((1 << 64) - 1)

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
            new = self._placeholder(text)
            if self._cached + len(text) > _CACHED_CHARS:
                self._texts.clear()
                self._cached = 0
            self._texts[text] = new
            self._cached += len(text)
            if new != text:
                self.search_for(text)
        if new != text:
            self.counts["text"] += 1
        return new

    def search_for(self, text: str) -> None:
        """Make the proof search the copy for *text*, a replaced source string, when its placeholder
        has ``MIN_SURVIVOR_BITS`` of choice."""
        bits = 0.0
        for ch in text:
            bits += _CHOICE_BITS.get(ch, 0.0) if ch < "\x80" else _choice_bits(ch)
            if bits >= MIN_SURVIVOR_BITS:
                self.needles.add(text)
                return

    def _placeholder(self, text: str) -> str:
        """Each character is chosen by a keyed hash of the text up to and including it (since the
        last kept tag, white space left out), so texts that share a prefix share its placeholder: a
        transcript value cut at a ``<truncated ...>`` marker, or the ``<USER_REQUEST>`` text of a
        transcript, keeps agreeing with the ``.db`` value it came from (``agy-audit consistency``).
        A text without a letter or a digit is its own placeholder."""
        if not _MAYBE_CONTENT.search(text):
            return text
        out: list[str] = []
        chain = self._chain.copy()
        at = 0
        for m in _SPECIAL.finditer(text):
            self._run(text[at : m.start()], chain, out)
            if m.lastgroup == "tag":  # a tag starts a new chain: the text inside <USER_REQUEST> redacts as the text alone
                out.append(m.group(0))
                chain = self._chain.copy()
            else:
                out.append(self.uuid(m.group(0)))
                chain.update(m.group(0).encode())
            at = m.end()
        self._run(text[at:], chain, out)
        return "".join(out)

    @staticmethod
    def _run(text: str, chain: Any, out: list[str]) -> None:
        """Append the placeholder of *text* (no tag or UUID in it) to *out*, *chain* steered by it."""
        update, copy, append = chain.update, chain.copy, out.append
        for ch in text:
            if ch.isspace():  # white space is kept and does not steer the chain (stripped texts agree)
                append(ch)
                continue
            table = _ASCII_CLASSES.get(ch)
            if table is not None:  # an ASCII letter or digit
                update(_ASCII_BYTES[ch])
                append(table[copy().digest()[0]])
            elif ch < "\x80":  # ASCII punctuation: kept, but it steers the chain
                update(_ASCII_BYTES[ch])
                append(ch)
            else:
                update(ch.encode("utf-8", "surrogatepass"))
                append(_like(ch, copy().digest()[0]))

    def bytes_(self, data: bytes) -> bytes:
        if not data:
            return data
        self.counts["bytes"] += 1
        return self.noise(data)

    def noise(self, data: bytes) -> bytes:
        """Random bytes as many as *data* has (the same for the same *data*): the output of an
        extendable-output hash seeded by a keyed hash of *data* (linear in its length)."""
        return hashlib.shake_256(self._digest("bytes", data)).digest(len(data))


_NOT_UTF8 = bytes([0xC0, 0xC1, *range(0xF5, 0x100)])
"""The bytes that never occur in UTF-8."""
_ASCII_BYTES = {chr(i): bytes([i]) for i in range(0x80)}
_ASCII_CLASSES = {
    **{chr(c): "".join(chr(ord("a") + r % 26) for r in range(256)) for c in range(ord("a"), ord("z") + 1)},
    **{chr(c): "".join(chr(ord("A") + r % 26) for r in range(256)) for c in range(ord("A"), ord("Z") + 1)},
    **{chr(c): "".join(chr(ord("0") + r % 10) for r in range(256)) for c in range(ord("0"), ord("9") + 1)},
}
"""An ASCII letter or digit -> the replacement of its class for each digest byte (``_like``'s)."""


_CHOICE_BITS = {ch: math.log2(len(set(table))) for ch, table in _ASCII_CLASSES.items()}
"""Bits of choice ``_like`` has for an ASCII letter or digit (any other ASCII character is kept)."""


def _choice_bits(ch: str) -> float:
    """Bits of choice ``_like`` has for a character beyond ASCII."""
    if "\udc80" <= ch <= "\udcff":
        return math.log2(len(_NOT_UTF8))
    if not ch.isalpha():
        return 0.0
    code = ord(ch)
    return math.log2(23 if code < 0x800 else 0x5000 if code < 0x10000 else 0x1000)


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


# ----------------------------------------------------------------------------- the survivor search


_CONTENT_RUN = re.compile(rb"[A-Za-z0-9\x80-\xff]{8}")
_CONTENT_BYTE = re.compile(rb"[A-Za-z0-9\x80-\xff]")
_WORD = next(c for c in "BHILQ" if array.array(c).itemsize == 8)  # the array type code of 8-byte words
_SCAN_BLOCK = 1 << 20  # bytes of a file searched at a time
_KEY_SPAN = 512  # the window of a needle is chosen among its first bytes


class Needles:
    """The replaced source strings the proof looks for in the copy, without their text.

    Each (8 bytes or more: ``MIN_SURVIVOR_BITS`` asks for 9) is indexed by one 8-byte window of
    its bytes, letters and digits where it has them (the copy replaces those), and then by the up
    to 8 bytes that follow the window, as (the window's offset, the string's length, the hash of
    its bytes, whether it is a UUID). ``find`` reads a file once, a block at a time: every 8-byte
    window of the block, at each of the 8 offsets, is looked up in the table (as machine words,
    ``array``: one C-level intersection per offset); at each hit the bytes after it pick the
    strings that can be there (many share a window, ``Complete``, which the copy may hold), and
    each is compared with the hash of the bytes around the hit. Time is linear in the bytes
    searched plus the hits; memory holds the table and one block."""

    def __init__(self) -> None:
        self._windows: set[int] = set()
        self._entries: dict[tuple[int, bytes], list[tuple[int, int, int, bool]]] = {}  # (window, what follows)
        self._lengths: set[int] = set()  # of what follows a window (8, or less at a string's end)

    def add(self, text: str, *, uuid: bool = False) -> None:
        data = _encoded(text)
        if len(data) < 8:
            return
        head = data[:_KEY_SPAN]
        run = _CONTENT_RUN.search(head)
        if run is not None:
            at = run.start()
        else:
            byte = _CONTENT_BYTE.search(head)
            at = min(byte.start() if byte is not None else 0, len(data) - 8)
        window, after = int.from_bytes(data[at : at + 8], sys.byteorder), data[at + 8 : at + 16]
        self._windows.add(window)
        self._lengths.add(len(after))
        entries = self._entries.setdefault((window, after), [])
        entry = (at, len(data), hash(data), uuid)
        if entry not in entries:
            entries.append(entry)

    def find(self, fh: BinaryIO, *, ids_only: bool = False, block: int = _SCAN_BLOCK) -> Iterator[bytes]:
        """The bytes of each needle found in the file *fh* (only UUIDs with *ids_only*), read
        *block* bytes at a time."""
        if not self._windows:
            return
        tail, base = b"", 0  # the block's last 7 bytes start the next one: no window is missed or seen twice
        while chunk := fh.read(block):
            data = tail + chunk
            for window in self._windows_in(data):
                pattern = window.to_bytes(8, sys.byteorder)
                at = data.find(pattern)
                while at >= 0:
                    after = data[at + 8 : at + 16]
                    if len(after) < 8:
                        after = _read_at(fh, base + at + 8, 8)
                    for length in self._lengths:
                        for offset, size, digest, uuid in self._entries.get((window, after[:length]), ()):
                            start = at - offset
                            if base + start < 0 or (ids_only and not uuid):
                                continue
                            inside = start >= 0 and start + size <= len(data)
                            found = data[start : start + size] if inside else _read_at(fh, base + start, size)
                            if len(found) == size and hash(found) == digest:
                                yield found
                    at = data.find(pattern, at + 1)
            tail = data[-7:]  # a window that starts there ends in the next block: not seen yet
            base += len(data) - len(tail)

    def _windows_in(self, data: bytes) -> set[int]:
        """The windows of the table that occur in *data*, at any offset."""
        found: set[int] = set()
        for offset in range(8):
            usable = (len(data) - offset) // 8 * 8
            if usable > 0:
                words = array.array(_WORD)
                words.frombytes(data[offset : offset + usable])
                found |= self._windows.intersection(words)
        return found


def _read_at(fh: BinaryIO, offset: int, size: int) -> bytes:
    """*size* bytes of *fh* from *offset* (fewer at its end), its position left as it was."""
    here = fh.tell()
    try:
        fh.seek(offset)
        return fh.read(size)
    finally:
        fh.seek(here)


def _encoded(text: str) -> bytes:
    """The bytes of *text*, or that it was read from: bytes that are not UTF-8 (read with
    ``surrogateescape``) as they were, other lone surrogates (JSON ``\\ud800`` escapes) as
    ``surrogatepass`` writes them."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")


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
        value in _ENUM_NAMES
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
        inner = _json_text(value, r)
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


def _json_text(value: str, r: Redactor) -> str | None:
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


# ----------------------------------------------------------------------------- protobuf messages


_KEPT_STRINGS = frozenset(
    {
        pb.ChatToolCall.DESCRIPTOR.fields_by_name["name"],
        pb.ChatToolCall.DESCRIPTOR.fields_by_name["original_name"],
        pb.ModelAttribute.DESCRIPTOR.fields_by_name["key"],
    }
)
"""String fields that are format: a tool's name and the generation's attribute names (and any
string field holding an enum name)."""
_JSON_TEXT_FIELDS = frozenset({pb.ChatToolCall.DESCRIPTOR.fields_by_name["arguments_json"]})
_TIMESTAMP_TYPE = "google.protobuf.Timestamp"


def redact_wire(data: bytes, descriptor: MessageDescriptor | None, r: Redactor, depth: int = 0, scrub: bool = False) -> bytes:
    """*data*, a serialized message of type *descriptor* (None: a message no schema describes),
    rewritten on the wire: the bytes of every text and bytes field replaced, protobuf
    ``Timestamp`` seconds shifted, and every other byte kept as it is -- field order, keys, fields
    encoded at their default value, packed numbers, unknown fields' keys -- so the copy's ``wire``
    fingerprint is the source's. A length is written anew only where the value it counts changed
    length (JSON text re-serialised). Raises ``WireError`` when *data* is not protobuf our walk
    can read field by field (a group): such a blob cannot be shown to be content-free.

    A field the schema does not name (or that arrives with another wire type) is redacted by
    ``_unknown_value``: read as a message when it parses as one (recursively), else replaced as
    text when it is printable UTF-8 (a placeholder of the same length), else by random bytes of
    its length. Numbers are kept (format), except inside a value that is also printable text
    (*scrub*): text that happens to parse as a message (``image/png`` reads as field 13, an
    8-byte number) keeps its keys and lengths but not one byte of its values."""
    fields = descriptor.fields_by_number if descriptor is not None else {}
    timestamp = descriptor is not None and descriptor.full_name == _TIMESTAMP_TYPE
    out = bytearray()
    pos, end = 0, len(data)
    while pos < end:
        start = pos
        key, pos = read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if number == 0:
            raise WireError("invalid field number 0")
        fd = fields.get(number)
        declared = fd is not None and _declared_wire_type(fd, wire_type)
        out += data[start:pos]  # the key, as it was written
        if wire_type == VARINT:
            begin = pos
            value, pos = read_varint(data, pos)
            if timestamp and declared and number == 1 and value:  # seconds
                out += encode_varint(r.seconds(value))
            elif scrub and not declared:
                out += _noise_number(data[begin:pos], r, varint=True)
            else:
                out += data[begin:pos]
        elif wire_type in (I64, I32):
            size = 8 if wire_type == I64 else 4
            if pos + size > end:
                raise WireError(f"truncated fixed-width field {number}")
            raw = data[pos : pos + size]
            out += _noise_number(raw, r, varint=False) if scrub and not declared else raw
            pos += size
        elif wire_type == LEN:
            begin = pos
            size, pos = read_varint(data, pos)
            if size > end - pos:
                raise WireError(f"field {number} claims {size} bytes, {end - pos} remain")
            value_bytes = data[pos : pos + size]
            if not declared:
                r.counts["unknown"] += 1
                new = _unknown_value(value_bytes, r, depth + 1, scrub)
            else:
                assert fd is not None  # declared
                new = _declared_value(fd, value_bytes, r, depth)
            out += data[begin:pos] if len(new) == size else encode_varint(len(new))
            out += new
            pos += size
        else:
            raise WireError(f"unsupported wire type {wire_type} (field {number})")
    return bytes(out)


def _declared_value(fd: AnyFieldDescriptor, data: bytes, r: Redactor, depth: int) -> bytes:
    """The length-delimited value of a field the schema names, redacted by its type."""
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        return redact_wire(data, fd.message_type, r, depth + 1)
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return r.bytes_(data)
    if fd.type != FieldDescriptor.TYPE_STRING:
        return data  # packed numbers: format
    text = data.decode("utf-8", "surrogateescape")
    if fd in _KEPT_STRINGS or text in _ENUM_NAMES:  # an enum name as text (the model_enum attribute), as in JSON
        r.kept.add(text)
        return data
    if fd in _JSON_TEXT_FIELDS:
        inner = _json_text(text, r)
        if inner is not None:
            return _encoded(inner)
    return _encoded(r.text(text))


def _unknown_value(data: bytes, r: Redactor, depth: int, scrub: bool) -> bytes:
    """A length-delimited value no schema describes, redacted (``redact_wire``); printable text
    without a letter or a digit is format and kept as it is."""
    if not data:
        return data
    text = _as_text(data)
    if text is not None and not _CONTENT_CHAR.search(text):
        return data  # white space and punctuation: not content
    if depth <= MAX_DEPTH:  # as deep as the wire fingerprint looks for messages, and no deeper
        try:
            parse_wire(data, max_depth=0)
        except WireError:
            pass
        else:
            if text is not None:
                r.search_for(text)
            return redact_wire(data, None, r, depth, scrub or text is not None)
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


def _noise_number(raw: bytes, r: Redactor, *, varint: bool) -> bytes:
    """A random number of the encoded length of *raw* (a varint's continuation bits kept, its
    last byte non-zero, and 1 in a 10-byte varint)."""
    noise = bytearray(r.noise(raw))
    if varint:
        size = len(noise)
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


@dataclass
class _Run:
    """What one run carries from file to file."""

    source: Path
    out: Path
    r: Redactor
    result: Result
    limit: int
    problems: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    corpus: bool = False  # a sweep corpus: its manifest is rewritten for the copy

    def read(self, path: Path, size: int) -> bytes:
        """The bytes of *path* (*size* by its ``lstat``), refused above the limit before a byte is read."""
        self.refuse_above_limit(path, size)
        return read_bytes(path, limit=self.limit)

    def refuse_above_limit(self, path: Path, size: int) -> None:
        if size > self.limit:
            raise InputError(
                f"{path}: {size} bytes, larger than the limit of {self.limit} (--max-file-size); nothing was written"
            )

    def write(self, path: Path, data: bytes | Iterator[bytes]) -> None:
        """Create the copy of the source file *path* (its UUIDs mapped) with *data*: a new file in
        the new private directory, made durable with the others (``sync_files``)."""
        target = self.out / Path(*(self.r.uuids_in(part) for part in path.relative_to(self.source).parts))
        make_private_dir(target.parent, exist_ok=True)
        create_in_private_dir(str(target), data)
        self.written.append(target)

    def document(self, old: Any, new: Any, source: str) -> None:
        """A redacted JSON document must differ from its source only by string values."""
        if not _only_strings_differ(old, new, self.r.key):
            self.problems.extend(_explain(old, new, self.r, source))


def _per_install(rel: Path) -> bool:
    """Whether *rel* is a per-install file a fingerprint reads (``history.jsonl``,
    ``conversation_summaries.db``, ``cache/<name>``) at the top of a store root: the source itself,
    a root of a home, or a root's copy in a corpus -- never a ``cache`` directory elsewhere (a
    browser profile's, say), which stays left out."""
    root = rel.parent.parent if rel.parent.name == install.CACHE else rel.parent
    at_root = root == Path(".") or (root.name.startswith("antigravity") and root.name not in layout.NON_STORES)
    return at_root and install.kind_of(rel.relative_to(root).as_posix()) is not None


def _legacy_pb(rel: Path) -> bool:
    return rel.name.endswith(".pb") and rel.parent.name in ("conversations", "implicit")


def _left_out(rel: Path) -> str | None:
    if _per_install(rel) or _legacy_pb(rel):
        return None
    if rel.name in LEFT_OUT_NAMES:
        return "per-install identity"
    if rel.suffix.lower() in LEFT_OUT_SUFFIXES:
        return "log, cache, image or encrypted file"
    if any(part in LEFT_OUT_DIRS for part in rel.parts[:-1]):
        return "logs, caches and browser recordings are content the format checks never read"
    if rel.name.startswith(".") and rel.name.endswith(".tmp"):
        return "a temporary file"
    if rel.name.endswith("-wal"):
        return "SQLite side file: its content is in the redacted .db, an empty -wal in its place"
    if rel.name.endswith(("-shm", "-journal")):
        return "SQLite side file: its content is in the redacted .db"
    return None


def _listing(root: Path) -> list[tuple[Path, os.stat_result]]:
    """Every entry below *root* that is not a directory, with its ``lstat``, in name order. A
    directory that cannot be listed, or only listed and not entered (``layout.list_dir``), or an
    entry that cannot be looked at, is an ``InputError`` naming it: unreadable never reads as
    empty. An entry gone since its directory was listed is skipped."""
    found: list[tuple[Path, os.stat_result]] = []
    stack = [root]
    while stack:
        directory = stack.pop()
        subdirectories = []
        for entry in list_dir(directory):
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise InputError(f"{entry.path}: cannot stat ({exc.strerror or exc})") from None
            if stat.S_ISDIR(st.st_mode):
                subdirectories.append(Path(entry.path))
            else:
                found.append((Path(entry.path), st))
        stack.extend(reversed(subdirectories))
    return found


def _by_session(files: list[tuple[Path, os.stat_result]], root: Path) -> list[tuple[Path, os.stat_result]]:
    """*files* with those of each session together (the first UUID in a path names its session;
    the rest first): a session's texts recur in its sidecar, ``.db`` and transcripts, and are
    redacted once while they are remembered (``_CACHED_CHARS``)."""

    def session(item: tuple[Path, os.stat_result]) -> str:
        found = _UUID.search(str(item[0].relative_to(root)))
        return found.group(0).lower() if found else ""

    return sorted(files, key=session)  # stable: name order within a session


def _copy(run: _Run, files: list[tuple[Path, os.stat_result]], progress: Callback | None) -> None:
    r, result = run.r, run.result
    chunked: dict[Path, list[tuple[Path, int]]] = {}  # chunk directory -> its parts, redacted as one stream
    for done, (path, st) in enumerate(files):
        rel = path.relative_to(run.source)
        if progress is not None:
            progress(done, len(files), str(rel))
        if not stat.S_ISREG(st.st_mode):
            result.left_out.append(f"{r.uuids_in(str(rel))}: not a regular file")
            continue
        reason = _left_out(rel)
        if reason is not None:
            result.left_out.append(f"{r.uuids_in(str(rel))}: {reason}")
            continue
        r.kept.update(rel.parts)  # file and directory names are kept (the layout), their UUIDs mapped
        name = rel.name
        result.files += 1
        if name.endswith(".db"):
            _redact_db(run, path, st.st_size)
        elif _legacy_pb(rel):  # encrypted with the user's key: nothing in it reads without it
            run.write(path, r.noise(run.read(path, st.st_size)))
            r.counts["legacy"] += 1
        elif tier_of(path) is not None and path.parent.parent.name == "chunks":
            chunked.setdefault(path.parent, []).append((path, st.st_size))  # a part ends mid-line: see below
        elif name == MANIFEST and rel.parent == Path(".") and run.corpus:
            continue  # written after every other file (their hashes): _redact_manifest
        elif name.endswith(".jsonl") or name == FLAT_NAMES["overview"]:
            run.write(path, _redact_jsonl_file(run, path))
        elif name.endswith(".json"):
            data = run.read(path, st.st_size)
            try:
                new = _redact_json_file(run, data, str(path))
            except JSONError:
                new = _redact_text_file(data, r)
            run.write(path, new)
        else:
            run.write(path, _redact_text_file(run.read(path, st.st_size), r))
    for parts in chunked.values():
        _redact_chunks(run, sorted(parts, key=lambda p: int(p[0].stem)))


def _redact_text_file(data: bytes, r: Redactor) -> bytes:
    text = data.decode("utf-8", "surrogateescape")
    return r.text(text).encode("utf-8", "surrogateescape")


def _redact_jsonl_file(run: _Run, path: Path) -> Iterator[bytes]:
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


def _redact_jsonl_line(run: _Run, line: str, source: str) -> str:
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


def _redact_json_file(run: _Run, data: bytes, source: str) -> bytes:
    def redacted(exact: bool) -> tuple[Any, Any, str]:
        value = _parsed(data, source, exact=exact)
        new = redact_json(value, run.r, tokens=enum_tokens(value))
        return value, new, _dump_like(data.decode("utf-8"), new, exact=exact)

    value, new, text = _exactly(run.r, redacted)
    run.document(value, new, source)
    return text.encode("utf-8")


def _redact_chunks(run: _Run, parts: list[tuple[Path, int]]) -> None:
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


def _redact_db(run: _Run, source: Path, size: int) -> None:
    """The database redacted in memory and vacuumed (no freed page keeps old content), then
    written atomically; a database SQLite cannot read is an ``InputError`` naming it (exit 2), and
    so is one that, with its ``-wal``, is larger than the limit (it is read whole).

    Cells are read as bytes with their storage class (``_cells``), so a TEXT cell that is not
    UTF-8 -- SQLite stores what it is given -- is redacted like any text and stays TEXT. A blob
    protobuf reads as a message of its column's type is rewritten on the wire (``redact_wire``);
    any other blob is a value no schema describes (``_unknown_value``)."""
    try:
        size += os.lstat(f"{source}-wal").st_size  # its committed pages are read too
    except OSError:
        pass
    run.refuse_above_limit(source, size)
    r = run.r
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(backup_database(source))
        utf8 = conn.execute("PRAGMA encoding").fetchone()[0] == "UTF-8"
        for table, column, message_class in _blob_columns():
            if not _has_column(conn, table, column):
                continue
            for row_id, blob, is_text in _cells(conn, table, column):
                cell = (table, column, row_id)
                if is_text:  # text where a message belongs: content all the same, redacted as text
                    _update(conn, cell, _text_cell(blob, r), is_text, utf8=utf8, source=source)
                    continue
                try:
                    message_class.FromString(blob)  # protobuf's own parser decides what is a message of the type
                except DecodeError:  # not a message of its type: redacted as a blob no schema describes
                    new = _unknown_value(blob, r, 0, False)
                else:
                    try:
                        new = redact_wire(blob, message_class.DESCRIPTOR, r)
                    except WireError as e:
                        run.problems.append(
                            f"{source.name}:{table}.{column}[{row_id}]: {e}; its unknown fields cannot be redacted"
                        )
                        continue
                _update(conn, cell, new, is_text, utf8=utf8, source=source)
                if table == "gen_metadata" and len(new) != len(blob):  # size is the blob's length in real stores
                    conn.execute("UPDATE gen_metadata SET size = ? WHERE rowid = ? AND size = ?", (len(new), row_id, len(blob)))
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
    run.write(source, image)
    if os.path.lexists(f"{source}-wal"):  # the layout keeps it: every frame is in the image, none is left
        run.write(Path(f"{source}-wal"), b"")


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


def _redact_manifest(run: _Run) -> None:
    """A corpus manifest written for the copy (``_redact_manifest_value``); it is our own file,
    so it is not among the documents whose only changes must be string values."""
    path = run.source / MANIFEST
    manifest = _parsed(run.read(path, os.lstat(path).st_size), str(path), exact=False, require_object=True)
    value = _redact_manifest_value(manifest, run.r, run.out)
    run.write(path, (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode())


# ----------------------------------------------------------------------------- the proof


def _survivors(out: Path, r: Redactor, progress: Callback | None = None) -> list[str]:
    """Replaced source strings found in the copy (the first of each file), except those that are
    (part of) a kept key or name. Our own report is template text: only the ids in the paths it
    lists could leak."""
    excused: dict[bytes, bool] = {}
    found = []
    files = [path for path, st in _listing(out) if stat.S_ISREG(st.st_mode)]
    for done, path in enumerate(files):
        rel = path.relative_to(out)
        if progress is not None:
            progress(done, len(files), str(rel))
        with open_regular(path) as fh:
            for needle in r.needles.find(fh, ids_only=path == out / REPORT):
                if needle not in excused:
                    text = needle.decode("utf-8", "surrogateescape")
                    excused[needle] = any(text in name for name in r.kept)
                if not excused[needle]:
                    found.append(f"{rel}: {len(needle)}-byte source string survives")
                    break
    return found


def _only_strings_differ(old: Any, new: Any, key: Callable[[str], str]) -> bool:
    """Whether *new* is *old* (its keys mapped by *key*: ``Redactor.key``) with only string values
    changed: the same types, keys and list lengths, and equal numbers, booleans and nulls
    (iteratively)."""
    stack = [(old, new)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if type(a) is dict:
            if len(a) != len(b):
                return False
            for k, v in a.items():
                mapped = key(k)
                if mapped not in b:
                    return False
                stack.append((v, b[mapped]))
        elif type(a) is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif type(a) is not str and a != b:
            return False
    return True


def _uuid_keys(value: Any, r: Redactor) -> Any:
    if isinstance(value, dict):
        return {r.key(k): _uuid_keys(v, r) for k, v in value.items()}
    if isinstance(value, list):
        return [_uuid_keys(v, r) for v in value]
    return value


def _explain(old: Any, new: Any, r: Redactor, source: str) -> list[str]:
    """What ``diff`` finds between a source document (its UUID keys mapped) and its copy besides
    changed string values (on the failure path only: deepdiff is loaded there). Arrays and objects
    deeper than ``diff.DEEPEST`` are compared whole, so no depth makes it recurse too far: such a
    change is one only when more than its strings differ."""
    problems = [
        f"{source}: {change.path}: {change.kind} (only string values may change)"
        for change in changes(_uuid_keys(old, r), new, ignore=(), deepest=True)
        if not (change.kind == CHANGED and _only_strings_differ(change.old, change.new, str))
    ]
    return problems or [f"{source}: differs from its copy by more than string values"]


def redact(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    max_file_size: int = MAX_FILE_SIZE,
    progress: Factory | None = None,
) -> Result:
    """Write the redacted copy of *source* to the new directory *out* and prove it (module doc).
    *progress* makes the progress line of each step: the copy, the fingerprints of the source
    and of the copy, the search of the copy for source strings.

    Raises ``InputError`` when *source* is missing or cannot be read (before *out* is made when
    its listing fails), when a file is larger than *max_file_size*, or when *out* exists;
    ``FindingsError`` (after removing *out*) when the proof fails."""
    source, out = Path(source).expanduser(), Path(out).expanduser()
    if not is_dir(source):
        raise InputError(f"{source}: not a directory (a home, a store root or a sweep corpus)")
    if os.path.lexists(out):
        raise InputError(f"{out}: already exists; redact writes a new directory")
    if out.resolve().is_relative_to(source.resolve()):
        raise UsageError(f"{out}: inside the source {source}; choose a directory outside it")
    files = _listing(source)
    r = Redactor(key if key is not None else os.urandom(32))
    result = Result(source, out, shift_days=r.shift.days)
    run = _Run(source, out, r, result, max_file_size, corpus=is_corpus(source))
    make_private_dir(out)
    filesystem = None
    try:
        with contextlib.suppress(OSError):
            filesystem = filesystem_handle(out)
        with step(progress, "redact: copy", "files") as bar:
            _copy(run, _by_session(files, source), bar)
            if run.corpus:
                _redact_manifest(run)
            sync_files(run.written, out, filesystem=filesystem)
        problems = run.problems
        proven = kept_by_redact()
        with step(progress, "redact: proof, fingerprints of the source", "files") as bar:
            before = fingerprint_paths([source], proven, progress=bar)
        with step(progress, "redact: proof, fingerprints of the copy", "files") as bar:
            after = fingerprint_paths([out], proven, progress=bar)
        for surface in proven:
            a, b = before.fingerprints.get(surface), after.fingerprints.get(surface)
            result.digests[surface] = (a.digest if a else None, b.digest if b else None)
            if result.digests[surface][0] != result.digests[surface][1]:
                problems.append(
                    f"{surface} fingerprint differs: source {result.digests[surface][0]}, copy {result.digests[surface][1]}"
                )
        result.counts = dict(r.counts)
        atomic_write(out / REPORT, report_text(result).encode("utf-8"))  # searched with the rest
        with step(progress, "redact: proof, search of the copy for source strings", "files") as bar:
            problems += _survivors(out, r, bar)
        if problems:
            shown = "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else "")
            raise FindingsError(f"{source}: redaction refused, the copy was removed: {shown}")
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        if filesystem is not None:
            os.close(filesystem)
    return result


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
        f"- {c.get('text', 0)} text values (same length and character classes; white space, punctuation and",
        "  `<truncated N bytes>` markers, agy's upper-case tags and the headers of transcript content kept)",
        f"- {c.get('json-text', 0)} JSON-text values redacted inside their JSON (still valid JSON of the same shape)",
        f"- {c.get('ids', 0)} UUIDs, each mapped to one new UUID everywhere (values, file and directory names)",
        f"- {c.get('timestamps', 0)} timestamps, shifted by one constant ({result.shift_days} days): order and gaps kept",
        f"- {c.get('bytes', 0)} bytes values (signatures) by random bytes of the same length",
        f"- {c.get('unknown', 0)} values of protobuf fields cortex.proto does not name: as a message when they parse",
        "  as one, else as text or bytes (keys and lengths kept)",
        f"- {c.get('legacy', 0)} legacy encrypted .pb files by random bytes of the same length",
        "",
        "## Kept (format, not content)",
        "",
        "Object keys, numbers (token counts, exit codes, line numbers), booleans, enum names, tool and argument",
        "names, transcript record types, statuses and sources, file and directory names (their UUIDs mapped),",
        "the SQLite schema, text without a letter or a digit (runs of spaces), and every byte of a protobuf blob",
        "but those of its text and bytes fields (field order, fields encoded at their default value, packed numbers).",
        "",
        "## Left out",
        "",
    ]
    lines += [f"- `{item}`" for item in result.left_out] or ["- nothing"]
    lines += ["", "## Fingerprints (source = copy)", "", "| surface | digest |", "| --- | --- |"]
    lines += [f"| {s} | `{a or 'absent'}` |" for s, (a, _b) in result.digests.items()]
    lines += ["", "No replaced source string occurs in the copy (each whose placeholder is one of at least 2**40: about",
              "9 letters or 12 digits), and every JSON document differs from its source only by string values.", ""]  # fmt: skip
    return "\n".join(lines)
