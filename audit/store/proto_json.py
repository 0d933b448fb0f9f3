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

``render_recorded`` is ``_plain`` for a caller that also wants to know which fields the messages
held (the ``wire`` fingerprint, which would otherwise parse and walk every blob again): it adds
each message's set of fields (its ``ListFields`` descriptors, in order) and its unknown fields
(number, wire type) to the ``FieldSets`` of its field path, and says whether the tree held
something ``render`` counts (unknown fields, enum numbers the schema does not name: counting
them is then ``render``'s). On a map, a group or a value proto3 JSON cannot hold it takes back
what it added and raises ``Unrecorded``.
"""

from __future__ import annotations

import base64
import datetime as _dt
import keyword
import math
from collections import Counter
from collections.abc import Callable
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.unknown_fields import UnknownFieldSet

from audit.store.wire import unknown_kind

if TYPE_CHECKING:
    from google.protobuf.duration_pb2 import Duration

_MIN_SECONDS, _MAX_SECONDS = -62135596800, 253402300799  # 0001-01-01 .. 9999-12-31 (proto3 JSON's range)
_EPOCH = _dt.datetime(1970, 1, 1)
_DURATION_MAX_SECONDS = 315_576_000_000  # 10,000 years (proto3 JSON's range)
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
    """A value proto3 JSON cannot represent (a Timestamp outside years 1..9999, a Duration out of
    range or whose seconds and nanos differ in sign)."""


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


def _float(value: float, single: bool) -> float | str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:  # the shortest text that reads back as the same 32-bit float, as MessageToDict does
        from google.protobuf.internal import type_checkers  # noqa: PLC0415 -- float fields are rare

        return type_checkers.ToShortestFloat(value)
    return value


def _duration_of(value: Duration) -> str:
    """What ``Duration.ToJsonString`` writes; a duration that is not ``0 <= seconds <=
    315576000000``, ``0 <= nanos < 10**9`` is left to it (negative, or invalid: ``RenderError``
    with its message)."""
    seconds, nanos = value.seconds, value.nanos
    if not (0 <= seconds <= _DURATION_MAX_SECONDS and 0 <= nanos <= 999_999_999):
        try:
            return value.ToJsonString()
        except ValueError as exc:  # out of range, or seconds and nanos of opposite signs
            raise RenderError(str(exc)) from None
    if not nanos:
        return f"{seconds}s"
    if not nanos % 1_000_000:
        return f"{seconds}.{nanos // 1_000_000:03d}s"
    if not nanos % 1_000:
        return f"{seconds}.{nanos // 1_000:06d}s"
    return f"{seconds}.{nanos:09d}s"


def _timestamp_of(value: Any) -> str:
    seconds, nanos = value.seconds, value.nanos
    second = _SECONDS.get(seconds)
    if second is None or not 0 <= nanos <= 999_999_999:
        return _timestamp(seconds, nanos)  # a second not seen yet, or a value to refuse
    return second + "%09dZ" % nanos  # noqa: UP031 -- measured faster than an f-string here


def _timestamp(seconds: int, nanos: int) -> str:
    second = _SECONDS.get(seconds)
    if second is None:
        if not _MIN_SECONDS <= seconds <= _MAX_SECONDS:
            raise RenderError(f"Timestamp is not valid: seconds {seconds} outside [{_MIN_SECONDS}, {_MAX_SECONDS}]")
        if len(_SECONDS) >= _SECONDS_KEPT:
            _SECONDS.clear()
        second = _SECONDS[seconds] = (_EPOCH + _dt.timedelta(0, seconds)).isoformat() + "."  # formatted in C
    if not 0 <= nanos <= 999_999_999:
        raise RenderError(f"Timestamp is not valid: nanos {nanos} outside [0, 999999999]")
    return second + "%09dZ" % nanos  # noqa: UP031 -- measured faster than an f-string here


_SECONDS: dict[int, str] = {}
"""``YYYY-MM-DDTHH:MM:SS.`` per Unix second (the timestamps of a step mostly share a few seconds)."""
_SECONDS_KEPT = 4096


# -- a render walk that records the fields of every message -------------------------------------


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
