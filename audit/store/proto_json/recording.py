"""A render walk that records the fields of every message.

``render_recorded`` is ``_plain`` for a caller that also wants to know which fields the messages
held (the ``wire`` fingerprint, which would otherwise parse and walk every blob again): it adds
each message's set of fields (its ``ListFields`` descriptors, in order) and its unknown fields
(number, wire type) to the ``FieldSets`` of its field path, and says whether the tree held
something ``render`` counts (unknown fields, enum numbers the schema does not name: counting
them is then ``render``'s). On a map, a group or a value proto3 JSON cannot hold it takes back
what it added and raises ``Unrecorded``.
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from operator import itemgetter
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from audit.store.proto_json.rendering import _Counted, _enum_names, _plain_converter, _small_walk
from audit.store.proto_json.values import _DURATION, _TIMESTAMP, RenderError, _duration_of, _timestamp_of


class FieldSets:
    """What the messages at one field path held, as ``render_recorded`` saw them: ``held`` has
    each distinct set of fields (``ListFields`` descriptors, in field-number order) of a message
    there, ``unknown`` the (number, wire type) of their unknown fields, ``below`` the same for
    the messages of each of their message fields."""

    __slots__ = ("below", "held", "unknown")

    def __init__(self) -> None:
        self.held: set[tuple[FieldDescriptor, ...]] = set()
        self.unknown: set[tuple[int, int]] = set()
        self.below: dict[FieldDescriptor, FieldSets] = _Below()


class _Below(dict[FieldDescriptor, FieldSets]):
    """``FieldSets.below``: a field not seen yet gets new ``FieldSets`` (one subscript per field)."""

    __slots__ = ()

    def __missing__(self, fd: FieldDescriptor) -> FieldSets:
        sets = self[fd] = FieldSets()
        return sets


class Unrecorded(Exception):
    """``render_recorded`` met what it does not record: a group (known, or among the unknown
    fields), a map, or a value proto3 JSON cannot hold. Nothing it added is left."""


Added = list[tuple[set[Any], Any]]  # (a FieldSets.held or .unknown, what was added to it)
_COUNTED: tuple[set[Any], Any] = (set(), ())
"""Put in ``Added`` for an unknown field or an unnamed enum number (taking it back discards nothing)."""


def render_recorded(message: Message, sets: FieldSets) -> tuple[dict[str, Any], bool]:
    """``render(message)`` of a tree without maps and groups, with each message's set of fields and
    unknown fields added to *sets* (the root's) and the ``FieldSets`` below it, and whether the
    tree held unknown fields (in any message, Timestamps and Durations included) or enum numbers
    the schema does not name: then only ``render`` knows what it counts of them. ``Unrecorded`` (with *sets* as they were) for any
    other tree, so a caller records a message's tree entirely or not at all."""
    added: Added = []
    try:
        doc = _recording_walk(message.DESCRIPTOR)(message, sets, added)  # type: ignore[arg-type]  # upb's Descriptor at run time
        return doc, _COUNTED in added  # every other entry's set holds what was added to it: not equal
    except BaseException as exc:
        for held, fds in added:
            held.discard(fds)
        if isinstance(exc, (_Counted, KeyError, RenderError)):
            raise Unrecorded from None
        raise


def _record_unknown(fields: Any, sets: FieldSets, added: Added) -> None:
    """Add the (number, wire type) of the unknown *fields* of a message to *sets*; a group is not recorded."""
    unknown = sets.unknown
    for field in fields:
        key = (field.field_number, field.wire_type)
        if key[1] not in _UNKNOWN_WIRE_TYPES:
            raise _Counted  # a group
        if key not in unknown:
            unknown.add(key)
            added.append((unknown, key))
    added.append(_COUNTED)


_UNKNOWN_WIRE_TYPES = frozenset({0, 1, 2, 5})  # varint, i64, len, i32 (3 and 4 are a group)


def _hold(sets: FieldSets, fds: tuple[FieldDescriptor, ...], added: Added) -> None:
    """Add the set of fields *fds* a message held to *sets*, noting it in *added* when new."""
    held = sets.held
    if fds not in held:
        held.add(fds)
        added.append((held, fds))


def _recorded(message: Message, sets: FieldSets, added: Added) -> dict[str, Any]:
    unknown = UnknownFieldSet(message)
    if unknown:
        _record_unknown(unknown, sets, added)
    listed = message.ListFields()
    _hold(sets, tuple(map(_first, listed)), added)
    out = {}
    for fd, value in listed:
        try:
            name, convert, below = _RECORDING[fd]
        except KeyError:
            name, convert, below = _RECORDING[fd] = _recording_plan(fd)
        if below is _BELOW:
            out[name] = convert(value, sets.below[fd], added)
        elif below:  # _ENUM
            out[name] = convert(value, added)
        else:
            out[name] = value if convert is None else convert(value)
    return out


_first = itemgetter(0)
_VALUE, _BELOW, _ENUM = 0, 1, 2
_RECORDING: dict[FieldDescriptor, tuple[str, Any, int]] = {}
"""Per field descriptor: its JSON name, converter, and how it is called: ``_VALUE`` with the
value (None: the value as it is), ``_BELOW`` (it records below the field) with the value, the
field's ``FieldSets`` and the list of what was added, ``_ENUM`` with the value and that list."""
Recording = Callable[[Any, FieldSets, Added], Any]


def _recording_plan(fd: FieldDescriptor) -> tuple[str, Any, int]:
    if fd.type == FieldDescriptor.TYPE_GROUP or (fd.message_type is not None and fd.message_type.GetOptions().map_entry):
        return fd.json_name, _refuse, _BELOW
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return fd.json_name, _recorded_enum(fd), _ENUM
    if fd.type != FieldDescriptor.TYPE_MESSAGE:
        return fd.json_name, _plain_converter(fd), _VALUE
    assert fd.message_type is not None  # a message field has its message type
    one = _recording_walk(fd.message_type)
    if not fd.is_repeated:
        return fd.json_name, one, _BELOW
    return fd.json_name, lambda value, sets, added: [one(v, sets, added) for v in value], _BELOW


def _recorded_enum(fd: FieldDescriptor) -> Callable[[Any, Added], Any]:
    """An enum's name; a number the schema does not name is written as it is, and counted (``_COUNTED``)."""
    names = _enum_names(fd)

    def one(value: int, added: Added) -> str | int:
        name = names.get(value)
        if name is None:
            added.append(_COUNTED)
            return value
        return name

    if not fd.is_repeated:
        return one
    return lambda value, added: [one(v, added) for v in value]


def _refuse(value: Any, sets: FieldSets, added: Added) -> Any:
    raise _Counted  # a map or a group: not recorded


def _recording_walk(descriptor: Descriptor) -> Recording:
    """The recording walk of a message type: Timestamps and Durations as leaves, small types
    compiled (``_small_recorded``), the others ``_recorded``."""
    walk = _RECORDING_WALKS.get(descriptor.full_name)
    if walk is None:
        if descriptor.full_name == _TIMESTAMP:
            walk = _recorded_leaf(descriptor, _timestamp_of)
        elif descriptor.full_name == _DURATION:
            walk = _recorded_leaf(descriptor, _duration_of)
        else:
            _RECORDING_WALKS[descriptor.full_name] = _recorded  # a type that holds itself walks it with _recorded
            walk = _small_recorded(descriptor) or _recorded
        _RECORDING_WALKS[descriptor.full_name] = walk
    return walk


_RECORDING_WALKS: dict[str, Recording] = {}


def _two_ints(descriptor: Descriptor) -> tuple[tuple[FieldDescriptor, ...], ...]:
    """The sets of fields of a Timestamp or Duration, indexed by (seconds != 0) * 2 + (nanos != 0):
    those of its two implicit-presence integers that are not zero."""
    seconds, nanos = descriptor.fields_by_name["seconds"], descriptor.fields_by_name["nanos"]
    assert seconds.number < nanos.number
    return ((), (nanos,), (seconds,), (seconds, nanos))


def _record_two_ints(value: Any, sets_of: tuple[tuple[FieldDescriptor, ...], ...], sets: FieldSets, added: Added) -> None:
    """Record the fields a Timestamp or Duration *value* holds (``_two_ints``) and its unknown ones."""
    unknown = UnknownFieldSet(value)
    if unknown:
        _record_unknown(unknown, sets, added)
    _hold(sets, sets_of[(value.seconds != 0) * 2 + (value.nanos != 0)], added)


def _recorded_leaf(descriptor: Descriptor, render_leaf: Callable[[Any], str]) -> Recording:
    """The recording walk of a Timestamp or Duration type, which *render_leaf* writes."""
    sets_of = _two_ints(descriptor)

    def leaf(value: Any, sets: FieldSets, added: Added) -> str:
        _record_two_ints(value, sets_of, sets, added)
        return render_leaf(value)

    return leaf


def _small_recorded(descriptor: Descriptor) -> Recording | None:
    """``_recorded`` for the messages of a small type, compiled from its fields as ``_small_walk``
    compiles ``_plain`` (the same types): each field kept sets a bit, and the bits index the
    type's sets of fields, so no ``ListFields`` is called."""
    if _small_walk(descriptor) is None:
        return None
    fields = sorted(descriptor.fields, key=lambda fd: fd.number)
    names: dict[str, object] = {
        "unknown_fields": UnknownFieldSet,
        "record_unknown": _record_unknown,
        "hold": _hold,
        "SETS": tuple(tuple(fd for i, fd in enumerate(fields) if mask >> i & 1) for mask in range(1 << len(fields))),
    }
    lines = ["def walk(m, sets, added):", "    u = unknown_fields(m)", "    if u:", "        record_unknown(u, sets, added)"]
    lines += ["    out = {}", "    mask = 0"]
    for i, fd in enumerate(fields):
        get = f"getattr(m, {fd.name!r})" if keyword.iskeyword(fd.name) else f"m.{fd.name}"
        key = repr(fd.json_name)
        name, convert, below = _recording_plan(fd)
        if below == _BELOW:
            names[f"fd{i}"], names[f"c{i}"] = fd, convert
            value = f"c{i}(v, sets.below[fd{i}], added)"
        elif below == _ENUM and not fd.is_repeated:
            names[f"e{i}"], names[f"c{i}"] = _enum_names(fd), convert
            value = f"e{i}[v] if v in e{i} else c{i}(v, added)"
        elif below == _ENUM:
            names[f"c{i}"] = convert
            value = f"c{i}(v, added)"
        elif convert is None:
            value = "v"
        else:
            names[f"c{i}"] = convert
            value = f"c{i}(v)"
        if fd.has_presence and not fd.is_repeated:
            lines += [f"    if m.HasField({fd.name!r}):", f"        v = {get}"]
        else:
            lines += [f"    v = {get}", "    if v:"]
        lines += [f"        mask |= {1 << i}", f"        out[{key}] = {value}"]
    lines += ["    hold(sets, SETS[mask], added)", "    return out"]
    exec(compile("\n".join(lines), f"<recording walk of {descriptor.full_name}>", "exec"), names)  # noqa: S102 -- built from our descriptors
    return names["walk"]  # type: ignore[return-value]
