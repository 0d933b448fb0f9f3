"""What replaces the content of one run (``Redactor``): text by a placeholder of the same length
and character classes, UUIDs by one new UUID each, timestamps shifted by one constant, bytes by
random bytes; and the replaced source strings the proof searches the copy for (``Needles``)."""

from __future__ import annotations

import array
import datetime as _dt
import hashlib
import hmac
import math
import re
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from audit.checks.conventions import MARKERS
from audit.store.ids import UUID_PATTERN

MIN_SURVIVOR_BITS = 40
"""A replaced source string must not occur anywhere in the copy when its placeholder is one of at
least 2**40 (9 letters, 12 digits, 3 CJK characters): a shorter one (``2.167s``, a six-digit
number, a short word) is as likely to be another string's placeholder, or a random part of one,
as a leak."""

UUID_ANYWHERE = re.compile(UUID_PATTERN)
UUID_ONLY = re.compile(UUID_PATTERN + r"\Z")
_TIMESTAMP = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d{1,9})?(Z|[+-]\d\d:\d\d)\Z")
_MARKUP = rf"<truncated \d+ bytes>|</?[A-Z][A-Z0-9_]*>|{MARKERS}"
"""Kept in text: truncation markers, agy's own upper-case tags (``<USER_REQUEST>``) and the headers
and sentences of transcript content (``Created At:``, ``conventions.CONVENTIONS``), which are format."""
_SPECIAL = re.compile(f"(?P<tag>{_MARKUP})|(?P<id>{UUID_PATTERN})")

_MAYBE_CONTENT = re.compile(r"[A-Za-z0-9\x80-\U0010ffff]")
"""A text without any of these characters (no ASCII letter or digit, nothing beyond ASCII) is
its own placeholder: format, not content."""

_SHIFT_DAYS = (-400, -30)  # the constant shift is drawn from this range of whole days

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
        return self.uuid(key) if UUID_ONLY.match(key) else key

    def uuids_in(self, text: str) -> str:
        return UUID_ANYWHERE.sub(lambda m: self.uuid(m.group(0)), text)

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
        if UUID_ONLY.match(text):
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
        data = bytes_of(text)
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


def bytes_of(text: str) -> bytes:
    """The bytes of *text*, or that it was read from: bytes that are not UTF-8 (read with
    ``surrogateescape``) as they were, other lone surrogates (JSON ``\\ud800`` escapes) as
    ``surrogatepass`` writes them."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
