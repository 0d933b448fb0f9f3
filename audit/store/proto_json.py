"""proto3 JSON of our messages, written straight from their descriptors in one walk.

``render(message)`` gives what ``json_format.MessageToDict(message)`` gives, with every
``google.protobuf.Timestamp`` at nine fractional digits as sidecars carry them: camelCase keys in
field-number order, only the fields that are set, enum names (a number the schema does not name
stays a number), 64-bit integers as strings, bytes as base64, float specials as ``"NaN"`` /
``"Infinity"``, maps as objects with string keys, ``Duration`` as ``"1.500s"``. The same walk
can count what ``audit.store.wire.unknown_fields`` counts (unknown fields as ``path:kind``,
unnamed enum numbers as ``path:enum=N``), so a decoder needs no second walk. A test holds both
to ``MessageToDict`` and ``unknown_fields`` on every message the store builder writes.

About four times faster than ``MessageToDict``, which decides each field's conversion anew for
every value; here each field descriptor's converter is chosen once and cached.
"""

from __future__ import annotations

import base64
import datetime as _dt
import math
from collections import Counter
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from audit.store.wire import WIRE_NAMES

_MIN_SECONDS, _MAX_SECONDS = -62135596800, 253402300799  # 0001-01-01 .. 9999-12-31 (proto3 JSON's range)
_EPOCH = _dt.datetime(1970, 1, 1)
_TIMESTAMP, _DURATION = "google.protobuf.Timestamp", "google.protobuf.Duration"
_INT64 = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)


class RenderError(ValueError):
    """A value proto3 JSON cannot represent (a Timestamp outside years 1..9999)."""


Unknown = Counter[str] | None
Convert = Callable[[Any, str, Unknown], Any]  # (value, path of the field, unknown counter) -> JSON value


def render(message: Message, unknown: Unknown = None, prefix: str = "") -> dict:
    """The proto3 JSON object of *message*; unknown fields and unnamed enum numbers are counted
    into *unknown* (when given) under paths starting with *prefix*."""
    if unknown is not None:
        for field in UnknownFieldSet(message):  # type: ignore[attr-defined]  # iterable at run time
            unknown[f"{prefix}{field.field_number}:{WIRE_NAMES.get(field.wire_type, field.wire_type)}"] += 1
    out = {}
    for fd, value in message.ListFields():
        spec = _SPECS.get(fd)
        if spec is None:
            spec = _SPECS[fd] = (fd.json_name, _converter(fd), f"{fd.number}")
        name, convert, number = spec
        out[name] = convert(value, prefix + number, unknown)
    return out


_SPECS: dict[FieldDescriptor, tuple[str, Convert, str]] = {}


def _converter(fd: FieldDescriptor) -> Convert:
    one = _single(fd)
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        key_fd, value_fd = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
        convert_value = _single(value_fd)
        bool_keys = key_fd.type == FieldDescriptor.TYPE_BOOL

        def convert_map(value: Any, path: str, unknown: Unknown) -> dict:
            return {
                (("true" if k else "false") if bool_keys else str(k)): convert_value(v, path, unknown) for k, v in value.items()
            }

        return convert_map if value_fd.message_type is not None else _no_unknown_map(convert_map)
    if fd.is_repeated:

        def convert_list(value: Any, path: str, unknown: Unknown) -> list:
            return [one(v, path, unknown) for v in value]

        return convert_list
    return one


def _no_unknown_map(convert: Convert) -> Convert:
    """Maps of scalars: ``unknown_fields`` does not descend into them."""
    return lambda value, path, unknown: convert(value, path, None)


def _single(fd: FieldDescriptor) -> Convert:
    kind = fd.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        assert fd.message_type is not None  # a message field has its message type
        full = fd.message_type.full_name
        if full == _TIMESTAMP:
            return lambda value, path, unknown: _timestamp(value.seconds, value.nanos)
        if full == _DURATION:
            return lambda value, path, unknown: value.ToJsonString()
        return lambda value, path, unknown: render(value, unknown, path + ".")
    if kind == FieldDescriptor.TYPE_ENUM:
        assert fd.enum_type is not None  # an enum field has its enum type
        names = {number: v.name for number, v in fd.enum_type.values_by_number.items()}

        def convert_enum(value: int, path: str, unknown: Unknown) -> str | int:
            name = names.get(value)
            if name is None:
                if unknown is not None:
                    unknown[f"{path}:enum={value}"] += 1
                return value
            return name

        return convert_enum
    if kind in _INT64:
        return lambda value, path, unknown: str(value)
    if kind == FieldDescriptor.TYPE_BYTES:
        return lambda value, path, unknown: base64.b64encode(value).decode("ascii")
    if kind in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        single = kind == FieldDescriptor.TYPE_FLOAT
        return lambda value, path, unknown: _float(value, single)
    return lambda value, path, unknown: value  # string, bool, 32-bit integers


def _float(value: float, single: bool) -> float | str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:  # the shortest text that reads back as the same 32-bit float, as MessageToDict does
        from google.protobuf.internal import type_checkers  # noqa: PLC0415 -- float fields are rare

        return type_checkers.ToShortestFloat(value)
    return value


def _timestamp(seconds: int, nanos: int) -> str:
    if not _MIN_SECONDS <= seconds <= _MAX_SECONDS:
        raise RenderError(f"Timestamp is not valid: seconds {seconds} outside [{_MIN_SECONDS}, {_MAX_SECONDS}]")
    if not 0 <= nanos <= 999_999_999:
        raise RenderError(f"Timestamp is not valid: nanos {nanos} outside [0, 999999999]")
    day_seconds = seconds % 86400
    moment = _EPOCH + _dt.timedelta((seconds - day_seconds) // 86400, day_seconds)
    return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T{moment.hour:02d}:{moment.minute:02d}:{moment.second:02d}.{nanos:09d}Z"
