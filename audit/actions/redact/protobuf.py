"""Protobuf blobs rewritten on the wire (``redact_wire``): only the bytes of text and bytes fields
change, every other byte is the source's; a value no schema describes is redacted as a message,
text or bytes (``unknown_value``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from google.protobuf.descriptor import FieldDescriptor

from audit.actions.redact.documents import ENUM_NAMES, json_text
from audit.actions.redact.replacements import Redactor, bytes_of
from audit.store.proto import cortex_pb2 as pb
from audit.store.wire import I32, I64, LEN, MAX_DEPTH, VARINT, WireError, encode_varint, read_varint
from audit.store.wire import parse as parse_wire

if TYPE_CHECKING:
    from audit.store.proto import AnyFieldDescriptor, MessageDescriptor

_CONTENT_CHAR = re.compile(r"[^\W_]|[\udc80-\udcff]")
"""A letter, a digit or a byte that is not UTF-8: what makes a text content."""

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
    ``unknown_value``: read as a message when it parses as one (recursively), else replaced as
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
                new = unknown_value(value_bytes, r, depth + 1, scrub)
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
    if fd in _KEPT_STRINGS or text in ENUM_NAMES:  # an enum name as text (the model_enum attribute), as in JSON
        r.kept.add(text)
        return data
    if fd in _JSON_TEXT_FIELDS:
        inner = json_text(text, r)
        if inner is not None:
            return bytes_of(inner)
    return bytes_of(r.text(text))


def unknown_value(data: bytes, r: Redactor, depth: int, scrub: bool) -> bytes:
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
