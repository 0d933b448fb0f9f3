"""Protobuf wire format without a schema, and accounting for fields a schema does not know.

``parse`` walks any bytes as a protobuf message: each field comes back as its number, wire type
and raw value; a length-delimited value is also offered as a nested message, but only when it
parses completely -- every such value is tried, or, given a ``schema`` (a message descriptor),
only those of fields the schema declares as messages (text is then never parsed as a guess). The walk is bounded (nesting depth, total field budget) and never raises
anything but ``WireError``. Groups (wire types 3/4) are not supported: proto3 never writes them.

``unknown_fields`` lists what a decoded message kept as unknown fields -- and enum numbers its
enum types do not name -- recursively through every set sub-message, as ``path:kind`` keys with
counts (``20.99:varint`` = unknown field 99 inside field 20), so nothing is silently dropped. The
kind is the wire type's name, except ``empty`` for a length-delimited value of zero bytes (an empty
message, string or bytes: it carries nothing), so ``112:empty`` and ``112:len`` are told apart.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

if TYPE_CHECKING:
    from audit.store.proto import MessageDescriptor

VARINT, I64, LEN, SGROUP, EGROUP, I32 = range(6)
WIRE_NAMES = {VARINT: "varint", I64: "i64", LEN: "len", SGROUP: "group", EGROUP: "group", I32: "i32"}
EMPTY = "empty"
"""The kind of an unknown length-delimited field of zero bytes (``unknown_kind``)."""
MAX_DEPTH = 32
MAX_FIELDS = 1 << 20
_MAX_FIELD_NUMBER = (1 << 29) - 1


class WireError(ValueError):
    """The bytes are not one complete protobuf message, or walking them exceeds a limit."""


class _BudgetExceeded(WireError):
    """Raised through speculative nested parses: running out of budget is never 'not a message'."""


class WireField(NamedTuple):
    """One field: varint/i64/i32 values are unsigned ints, a len value is its bytes. (A named
    tuple: walks build hundreds of thousands of them.)"""

    number: int
    wire_type: int
    value: int | bytes
    children: tuple[WireField, ...] | None = None  # the len value, when it parses as a message

    @property
    def kind(self) -> str:
        return WIRE_NAMES[self.wire_type]


def parse(
    data: bytes,
    *,
    schema: MessageDescriptor | None = None,
    max_depth: int = MAX_DEPTH,
    max_fields: int = MAX_FIELDS,
) -> tuple[WireField, ...]:
    """All fields of *data*; nested messages are tried down to *max_depth* levels (with *schema*,
    only in fields it declares as messages)."""
    budget = [max_fields]
    return _parse(memoryview(bytes(data)), 0, max_depth, budget, schema)


def read_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """The varint at *pos* of *data* and the position after it (``WireError`` when it is not one)."""
    value = shift = 0
    while pos < len(data):
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            if value >> 64:
                raise WireError("varint longer than 64 bits")
            return value, pos
        shift += 7
        if shift >= 70:
            raise WireError("varint longer than 10 bytes")
    raise WireError("truncated varint")


def encode_varint(value: int) -> bytes:
    """*value* (0 <= value < 2**64) as a varint."""
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _parse(
    data: memoryview, depth: int, max_depth: int, budget: list[int], schema: MessageDescriptor | None
) -> tuple[WireField, ...]:
    fields: list[WireField] = []
    pos = 0
    while pos < len(data):
        budget[0] -= 1
        if budget[0] < 0:
            raise _BudgetExceeded("more fields than the walk budget allows")
        key = data[pos]  # one-byte varints (most keys, sizes and small values) without a call
        key, pos = (key, pos + 1) if key < 0x80 else read_varint(data, pos)
        number, wire_type = key >> 3, key & 7
        if not 0 < number <= _MAX_FIELD_NUMBER:
            raise WireError(f"invalid field number {number}")
        children = None
        value: int | bytes
        if wire_type == VARINT:
            value, pos = (data[pos], pos + 1) if pos < len(data) and data[pos] < 0x80 else read_varint(data, pos)
        elif wire_type in (I64, I32):
            end = pos + (8 if wire_type == I64 else 4)
            if end > len(data):
                raise WireError(f"truncated fixed-width field {number}")
            value, pos = int.from_bytes(data[pos:end], "little"), end
        elif wire_type == LEN:
            size, pos = (data[pos], pos + 1) if pos < len(data) and data[pos] < 0x80 else read_varint(data, pos)
            if size > len(data) - pos:
                raise WireError(f"field {number} claims {size} bytes, {len(data) - pos} remain")
            chunk = data[pos : pos + size]
            value, pos = bytes(chunk), pos + size
            if size and depth < max_depth:
                if schema is None:
                    children = _try_nested(chunk, depth + 1, max_depth, budget, None)
                elif (fd := schema.fields_by_number.get(number)) is not None and fd.type == FieldDescriptor.TYPE_MESSAGE:
                    children = _try_nested(chunk, depth + 1, max_depth, budget, fd.message_type)
        else:
            raise WireError(f"unsupported wire type {wire_type} (field {number})")
        fields.append(WireField(number, wire_type, value, children))
    return tuple(fields)


def _try_nested(
    chunk: memoryview,
    depth: int,
    max_depth: int,
    budget: list[int],
    schema: MessageDescriptor | None,
) -> tuple[WireField, ...] | None:
    # Fields read by a failed guess stay spent: the budget bounds the work, not just the result.
    try:
        return _parse(chunk, depth, max_depth, budget, schema)
    except _BudgetExceeded:
        raise
    except WireError:
        return None


def unknown_kind(wire_type: int, data: object) -> str:
    """What an unknown field of *wire_type* holding *data* (``UnknownFieldSet`` item) is counted
    as: ``empty`` for a length-delimited value of no bytes, else its wire type's name."""
    if wire_type == LEN and not data:
        return EMPTY
    return WIRE_NAMES.get(wire_type, str(wire_type))


def unknown_fields(message: Message) -> Counter[str]:
    """Unknown fields (``path:kind``) and unnamed enum numbers (``path:enum=N``) with counts."""
    found: Counter[str] = Counter()
    _collect(message, "", found)
    return found


def _collect(message: Message, prefix: str, found: Counter[str]) -> None:
    for field in UnknownFieldSet(message):  # type: ignore[attr-defined]  # iterable at run time; the stub lacks __iter__
        found[f"{prefix}{field.field_number}:{unknown_kind(field.wire_type, field.data)}"] += 1
    for fd, value in message.ListFields():
        kind = _KINDS.get(fd)
        if kind is None:
            kind = _KINDS[fd] = _kind(fd)
        if kind is _SCALAR:
            continue
        path = f"{prefix}{fd.number}"
        if kind is _ENUM:
            assert fd.enum_type is not None  # an enum field has its enum type
            known = fd.enum_type.values_by_number
            for number in value if fd.is_repeated else (value,):
                if number not in known:
                    found[f"{path}:enum={number}"] += 1
            continue
        values = value.values() if kind is _MAP else value if fd.is_repeated else (value,)
        for item in values:
            _collect(item, path + ".", found)


_SCALAR, _ENUM, _MESSAGE, _MAP = "scalar", "enum", "message", "map"
_KINDS: dict[object, str] = {}  # field descriptor -> how _collect treats its values


def _kind(fd: FieldDescriptor) -> str:
    if fd.message_type is None:
        return _ENUM if fd.enum_type is not None else _SCALAR
    if not fd.message_type.GetOptions().map_entry:
        return _MESSAGE
    return _MAP if fd.message_type.fields_by_name["value"].message_type is not None else _SCALAR
