"""proto3 JSON of our messages, written straight from their descriptors.

``render(message)`` gives what ``json_format.MessageToDict(message)`` gives, with every
``google.protobuf.Timestamp`` at nine fractional digits as sidecars carry them: camelCase keys in
field-number order, only the fields that are set, enum names (a number the schema does not name
stays a number), 64-bit integers as strings, bytes as base64, float specials as ``"NaN"`` /
``"Infinity"``, maps as objects with string keys, ``Duration`` as ``"1.500s"``. When given a
counter, it counts what ``audit.store.wire.unknown_fields`` counts (unknown fields as
``path:kind``, those inside a Timestamp or Duration too, unnamed enum numbers as
``path:enum=N``), so a decoder needs no separate walk for them. A test holds both to ``MessageToDict`` and ``unknown_fields`` on every message the store
builder writes.

Two walks give the same result. ``render`` first tries ``_plain``, which builds no field paths
and counts nothing: it refuses a message whose ``UnknownFieldSet`` is not empty (one C-level test
per message, a Timestamp's and a Duration's included) and an enum number the schema does not
name (an enum's converter is its names dict's ``__getitem__``, so the miss raises); a refused
tree is walked again by
``render_counting``, which builds the paths and counts. Real rows have nothing to count, so they
are walked once. Each field descriptor's converter is chosen once and cached (strings, bools and
32-bit integers need none), a message type of a few fields gets a walk compiled from them
(``_small_walk``: no ``ListFields``), a Timestamp's ``YYYY-MM-DDTHH:MM:SS.`` is formatted by
``datetime`` and kept per second, and a Duration in range is written without protobuf's float
arithmetic (``ToJsonString`` writes the others).
"""

from __future__ import annotations

import base64
import keyword
from collections import Counter
from collections.abc import Callable
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from audit.store.proto_json.values import _DURATION, _TIMESTAMP, _duration_of, _float, _timestamp_of
from audit.store.wire import unknown_kind

_INT64 = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED64,
    }
)


Unknown = Counter[str] | None
Convert = Callable[[Any, str, Unknown], Any]  # (value, path of the field, unknown counter) -> JSON value


def render(message: Message, unknown: Unknown = None, prefix: str = "") -> dict[str, Any]:
    """The proto3 JSON object of *message*; unknown fields and unnamed enum numbers are counted
    into *unknown* (when given) under paths starting with *prefix*.

    Tried first without bookkeeping (``_plain``); a tree in which that walk meets something to
    count is walked again by ``render_counting``, so both give the same object and counts."""
    try:
        return _plain(message)
    except (_Counted, KeyError):  # an unknown field, or an enum number the schema does not name
        return render_counting(message, unknown, prefix)


def render_counting(message: Message, unknown: Unknown = None, prefix: str = "") -> dict[str, Any]:
    """``render`` in one walk that keeps every field's path, for counting into *unknown*."""
    if unknown is not None:
        _count_unknown(message, unknown, prefix)
    out = {}
    for fd, value in message.ListFields():
        spec = _SPECS.get(fd)
        if spec is None:
            spec = _SPECS[fd] = (fd.json_name, _converter(fd), f"{fd.number}")
        name, convert, number = spec
        out[name] = convert(value, prefix + number, unknown)
    return out


class _Counted(Exception):
    """``_plain`` met an unknown field: the message needs ``render_counting``."""


def _plain(message: Message) -> dict[str, Any]:
    """``render`` of a tree holding nothing ``render_counting`` would count: no unknown field
    (``UnknownFieldSet`` is empty, one C-level test per message) and no unnamed enum number (an
    enum converter is the names dict's ``__getitem__``, so a miss raises ``KeyError``). Strings,
    bools and 32-bit integers are stored as they come, with no call per field."""
    if UnknownFieldSet(message):  # it has a length at run time
        raise _Counted
    out = {}
    for fd, value in message.ListFields():
        try:
            name, convert = _PLANS[fd]
        except KeyError:  # the first message of its type: plan its fields
            name, convert = _PLANS[fd] = (fd.json_name, _plain_converter(fd))
        out[name] = value if convert is None else convert(value)
    return out


_PLANS: dict[FieldDescriptor, tuple[str, Callable[[Any], Any] | None]] = {}
"""Per field descriptor: its JSON name and ``_plain``'s converter (None: the value as it is)."""


def _plain_converter(fd: FieldDescriptor) -> Callable[[Any], Any] | None:
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        convert_map = _converter(fd)  # maps are rare: the counting converter, without a counter
        value_fd = fd.message_type.fields_by_name["value"]
        if value_fd.message_type is None:
            return lambda value: convert_map(value, "", None)  # nothing in it is counted
        bool_keys = fd.message_type.fields_by_name["key"].type == FieldDescriptor.TYPE_BOOL
        one = _plain_single(value_fd)
        assert one is not None  # a message's converter
        plain_value: Callable[[Any], Any] = one
        return lambda value: {(("true" if k else "false") if bool_keys else str(k)): plain_value(v) for k, v in value.items()}
    one = _plain_single(fd)
    if not fd.is_repeated:
        return one
    if one is None:
        return list
    return lambda value: list(map(one, value))


def _plain_single(fd: FieldDescriptor) -> Callable[[Any], Any] | None:
    kind = fd.type
    if kind == FieldDescriptor.TYPE_MESSAGE:
        assert fd.message_type is not None  # a message field has its message type
        full = fd.message_type.full_name
        if full == _TIMESTAMP:
            return _plain_leaf(_timestamp_of)
        if full == _DURATION:
            return _plain_leaf(_duration_of)
        return _small_walk(fd.message_type) or _plain
    if kind == FieldDescriptor.TYPE_ENUM:
        return _enum_names(fd).__getitem__
    if kind in _INT64:
        return str
    convert = _single(fd)
    if kind in (FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE):
        return lambda value: convert(value, "", None)
    return None  # string, bool, 32-bit integers


def _plain_leaf(render_leaf: Callable[[Any], str]) -> Callable[[Any], str]:
    """``_plain`` of a Timestamp or Duration: its text, unless it holds unknown fields (``_Counted``:
    ``render_counting`` counts them, as ``unknown_fields`` does)."""

    def leaf(value: Any) -> str:
        if UnknownFieldSet(value):  # it has a length at run time
            raise _Counted
        return render_leaf(value)

    return leaf


def _counted_leaf(render_leaf: Callable[[Any], str]) -> Convert:
    """``render_counting``'s converter of a Timestamp or Duration: its text, its unknown fields
    counted under its path, as ``unknown_fields`` counts them."""

    def leaf(value: Any, path: str, unknown: Unknown) -> str:
        if unknown is not None:
            _count_unknown(value, unknown, path + ".")
        return render_leaf(value)

    return leaf


def _count_unknown(message: Message, unknown: Counter[str], prefix: str) -> None:
    for field in UnknownFieldSet(message):  # type: ignore[attr-defined]  # iterable at run time
        unknown[f"{prefix}{field.field_number}:{unknown_kind(field.wire_type, field.data)}"] += 1


def _enum_names(fd: FieldDescriptor) -> dict[int, str]:
    assert fd.enum_type is not None  # an enum field has its enum type
    return {number: v.name for number, v in fd.enum_type.values_by_number.items()}


_SMALL = 5
"""Message types of at most this many fields get a compiled walk (``_small_walk``)."""
_SMALL_WALKS: dict[str, Callable[[Message], dict[str, Any]] | None] = {}


def _small_walk(descriptor: Descriptor) -> Callable[[Message], dict[str, Any]] | None:
    """``_plain`` for the messages of a small type, compiled from its fields: each field is read
    by name and kept when ``ListFields`` would list it (an implicit-presence scalar when it is
    not its default, a field with presence when ``HasField`` says so, a repeated one when not
    empty), in field-number order, so the keys come out as ``ListFields`` orders them. On a
    two-field message this takes half the time of ``ListFields`` and its loop. None
    for a type it does not apply to (more fields, a oneof of several fields, floats, whose ``-0.0``
    is listed yet false, maps, extensions)."""
    if descriptor.full_name in _SMALL_WALKS:
        return _SMALL_WALKS[descriptor.full_name]
    fields = sorted(descriptor.fields, key=lambda fd: fd.number)
    if (
        len(fields) > _SMALL
        or descriptor.extension_ranges
        or any(
            (fd.containing_oneof is not None and len(fd.containing_oneof.fields) > 1)
            or fd.type in (FieldDescriptor.TYPE_FLOAT, FieldDescriptor.TYPE_DOUBLE)
            or (fd.message_type is not None and fd.message_type.GetOptions().map_entry)
            for fd in fields
        )
    ):
        _SMALL_WALKS[descriptor.full_name] = None
        return None
    _SMALL_WALKS[descriptor.full_name] = None  # a type that holds itself walks it with _plain
    names: dict[str, object] = {"unknown_fields": UnknownFieldSet, "Counted": _Counted}
    lines = ["def walk(m):", "    if unknown_fields(m):", "        raise Counted", "    out = {}"]
    for i, fd in enumerate(fields):
        get = f"getattr(m, {fd.name!r})" if keyword.iskeyword(fd.name) else f"m.{fd.name}"
        key = repr(fd.json_name)
        convert = _plain_converter(fd)
        if fd.type == FieldDescriptor.TYPE_ENUM and not fd.is_repeated:
            names[f"e{i}"] = _enum_names(fd)
            value = f"e{i}[v]"
        elif convert is None:
            value = "v"
        else:
            names[f"c{i}"] = convert
            value = f"c{i}(v)"
        if fd.has_presence and not fd.is_repeated:
            lines += [f"    if m.HasField({fd.name!r}):", f"        v = {get}", f"        out[{key}] = {value}"]
        else:
            lines += [f"    v = {get}", "    if v:", f"        out[{key}] = {value}"]
    lines.append("    return out")
    exec(compile("\n".join(lines), f"<walk of {descriptor.full_name}>", "exec"), names)  # noqa: S102 -- built from our descriptors
    walk = _SMALL_WALKS[descriptor.full_name] = names["walk"]  # type: ignore[assignment]
    return walk  # type: ignore[return-value]


_SPECS: dict[FieldDescriptor, tuple[str, Convert, str]] = {}


def _converter(fd: FieldDescriptor) -> Convert:
    one = _single(fd)
    if fd.message_type is not None and fd.message_type.GetOptions().map_entry:
        key_fd, value_fd = fd.message_type.fields_by_name["key"], fd.message_type.fields_by_name["value"]
        convert_value = _single(value_fd)
        bool_keys = key_fd.type == FieldDescriptor.TYPE_BOOL

        def convert_map(value: Any, path: str, unknown: Unknown) -> dict[str, Any]:
            return {
                (("true" if k else "false") if bool_keys else str(k)): convert_value(v, path, unknown) for k, v in value.items()
            }

        return convert_map if value_fd.message_type is not None else _no_unknown_map(convert_map)
    if fd.is_repeated:

        def convert_list(value: Any, path: str, unknown: Unknown) -> list[Any]:
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
            return _counted_leaf(_timestamp_of)
        if full == _DURATION:
            return _counted_leaf(_duration_of)
        return lambda value, path, unknown: render_counting(value, unknown, path + ".")
    if kind == FieldDescriptor.TYPE_ENUM:
        names = _enum_names(fd)

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
