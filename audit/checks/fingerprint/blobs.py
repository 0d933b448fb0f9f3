"""The fields of conversation-database blobs, as the ``wire`` surface records them: per blob
column (``steps.step_payload`` per step type), field paths with wire types, named where
``audit/store/proto/cortex.proto`` knows the field, numbered where it does not; an unknown
length-delimited field is not guessed into (``wire_observations``, ``wire_fingerprint``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from google.protobuf.unknown_fields import UnknownFieldSet

from audit.checks.fingerprint.model import Fingerprint
from audit.store.database import NativeConversation
from audit.store.proto import cortex_pb2 as pb
from audit.store.proto_json import FieldSets
from audit.store.trajectory import STEP_TYPE_NAMES, BlobFields
from audit.store.wire import I32, I64, LEN, MAX_DEPTH, MAX_FIELDS, VARINT, WIRE_NAMES, WireError, WireField
from audit.store.wire import parse as parse_wire

if TYPE_CHECKING:
    from audit.store.proto import MessageDescriptor


# Blob columns and the message our .proto says they hold (None: no known message).
BLOB_MESSAGES: dict[tuple[str, str], MessageDescriptor | None] = {
    ("steps", "step_payload"): pb.Step.DESCRIPTOR,
    ("steps", "metadata"): pb.CortexStepMetadata.DESCRIPTOR,
    ("steps", "error_details"): pb.CortexErrorDetails.DESCRIPTOR,
    ("steps", "permissions"): pb.TrajectoryPermissions.DESCRIPTOR,
    ("steps", "task_details"): pb.TaskDetails.DESCRIPTOR,
    ("gen_metadata", "data"): pb.CortexStepGeneratorMetadata.DESCRIPTOR,
    ("executor_metadata", "data"): pb.ExecutorMetadata.DESCRIPTOR,
    ("parent_references", "data"): pb.CortexTrajectoryReference.DESCRIPTOR,
    ("trajectory_metadata_blob", "data"): pb.CortexTrajectoryMetadata.DESCRIPTOR,
}


def wire_observations(conv: NativeConversation, recorded: BlobFields | None = None) -> Iterator[tuple[str, str, str]]:
    """(scope, field path, wire type) of the fields in the blob cells of *conv*, each distinct one once.

    Scope is ``table.column`` (``steps.step_payload[<step type>]`` for payloads). Field paths
    are dotted names where the message is known, numbers where not; a length-delimited field
    our schema does not know (or knows as string/bytes) is not parsed further. The (path, wire
    type) set of each blob is merged into its scope's with one set union, so the triples are
    made once per conversation rather than once per field.

    *recorded*, what decoding *conv* recorded of its blobs (``reconstruct(conv, recorded)``),
    answers for the blobs it holds whole (``BlobFields.cells``): each set of fields recorded at a
    path is turned into its (path, wire type) pairs once (``_recorded_fields``), as
    ``_decoded_fields`` turns the same message's fields, and only the other blobs are parsed.
    """
    cells = recorded.cells if recorded is not None else frozenset()
    scopes: dict[str, set[tuple[str, str]]] = {}
    for table, rows in sorted(conv.tables.items()):
        for position, row in enumerate(rows):
            for column, value in row.items():
                if type(value) is not bytes:
                    continue
                scope = _scope(table, column, row.get("step_type"))
                found = scopes.get(scope)
                if found is None:
                    found = scopes[scope] = set()
                if (table, position, column) not in cells:
                    found |= _blob_fields(BLOB_MESSAGES.get((table, column)), value)
    if recorded is not None:
        for (table, column, step_type), roots in recorded.trees.items():
            scope = _scope(table, column, step_type)
            descriptor = BLOB_MESSAGES[(table, column)]
            assert descriptor is not None  # only blobs of known messages are recorded
            for sets in roots:
                _recorded_fields(sets, descriptor, scopes.setdefault(scope, set()))
    for scope, found in scopes.items():
        for path, kind in found:
            yield scope, path, kind


def _scope(table: str, column: str, step_type: object) -> str:
    """The wire scope of a blob column: ``table.column``, and a payload's step type."""
    if (table, column) == ("steps", "step_payload"):
        return f"{table}.{column}[{_step_type(step_type)}]"
    return f"{table}.{column}"


def _blob_fields(message: MessageDescriptor | None, data: bytes) -> set[tuple[str, str]]:
    """The distinct (field path, wire type) of one blob (``("", "invalid")`` when it is not protobuf)."""
    decoded = _decoded_fields(message, data) if message is not None else None
    if decoded is not None:
        return decoded
    try:
        fields = parse_wire(data, schema=message)
    except WireError:
        return {("", "invalid")}
    return {(path, kind) for _, path, kind in _fields("", fields, message, "")}


_WIRE_TYPE = {  # field type -> wire type of its (unpacked) value
    **dict.fromkeys(
        (
            FieldDescriptor.TYPE_INT32,
            FieldDescriptor.TYPE_INT64,
            FieldDescriptor.TYPE_UINT32,
            FieldDescriptor.TYPE_UINT64,
            FieldDescriptor.TYPE_SINT32,
            FieldDescriptor.TYPE_SINT64,
            FieldDescriptor.TYPE_BOOL,
            FieldDescriptor.TYPE_ENUM,
        ),
        WIRE_NAMES[VARINT],
    ),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64, FieldDescriptor.TYPE_DOUBLE), WIRE_NAMES[I64]),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_FLOAT), WIRE_NAMES[I32]),
    **dict.fromkeys((FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE), WIRE_NAMES[LEN]),
}
_CLASSES: dict[MessageDescriptor, type[Message]] = {}
_Shape = tuple[frozenset[tuple[str, str]], int, tuple[int, ...], tuple[tuple[int, bool, "_Node"], ...]]
"""What a set of fields contributes (see ``_Node``)."""


def _decoded_fields(descriptor: MessageDescriptor, data: bytes) -> set[tuple[str, str]] | None:
    """The distinct (path, wire type) of the fields ``_fields(parse_wire(data, schema=descriptor))`` walks,
    found by protobuf's own parser -- or None when that cannot be told from the parse: the bytes
    are not exactly what the parsed message serialises to (a field out of order, unpacked, repeated
    or at its default value, anything that does not parse), or hold a map or a group, or more
    fields than the wire walk's budget. Bytes that are their own serialisation hold just the
    message's set fields (with their types' wire types) and its unknown fields, in one C-level parse.

    What a message of a given type at a given path holds is looked up once per set of fields it
    has (``_Node.shape``): the (path, wire type) pairs are added with one set union, and only its
    sub-messages and repeated fields are visited in Python."""
    message_class = _CLASSES.get(descriptor)
    if message_class is None:
        message_class = _CLASSES[descriptor] = GetMessageClass(descriptor)  # type: ignore[arg-type]  # the stub wants the pure-Python Descriptor; upb's is accepted too
    message = message_class()
    try:
        message.ParseFromString(data)
    except DecodeError:
        return None
    if message.SerializeToString() != data:
        return None
    root = _root(descriptor)
    found: set[tuple[str, str]] = set()
    fields = 0  # the wire walk's budget counts every field ...
    counting = len(data) > 2 * MAX_FIELDS  # ... each of at least two bytes, so a smaller blob stays within it
    stack: list[tuple[Message, _Node]] = [(message, root)]
    while stack:
        current, node = stack.pop()
        listed = current.ListFields()
        fds = tuple(map(_first, listed))
        try:
            shape = node.shapes[fds]
        except KeyError:
            shape = node.shape(fds)
        if shape is None:
            return None  # a group, or a map (whose entries serialise their keys as upb chooses)
        pairs, singles, counted, walked = shape
        found |= pairs
        if counting:
            fields += singles
            for i in counted:
                fields += len(listed[i][1])
        for i, repeated, child in walked:
            if repeated:
                stack.extend(zip(listed[i][1], repeat(child)))
            else:
                stack.append((listed[i][1], child))
        unknown = UnknownFieldSet(current)
        if len(unknown):
            fields_by_number = current.DESCRIPTOR.fields_by_number
            for uf in unknown:  # type: ignore[attr-defined]  # iterable at run time; the stub lacks __iter__
                if uf.wire_type not in _UNKNOWN_KINDS:
                    return None  # a group: the wire walk reports the blob as invalid
                known = fields_by_number.get(uf.field_number)
                found.add(
                    (node.prefix + (known.name if known is not None else str(uf.field_number)), _UNKNOWN_KINDS[uf.wire_type])
                )
                fields += 1
        if counting and fields > MAX_FIELDS:
            return None
    return found


def _recorded_fields(sets: FieldSets, descriptor: MessageDescriptor, found: set[tuple[str, str]]) -> None:
    """Add to *found* the (path, wire type) pairs of the messages recorded in *sets*, each of the
    root message type *descriptor*: what ``_decoded_fields`` finds in each of them, one set union
    per distinct set of fields a message at a path held, and its unknown fields as named there.
    A recorded tree holds no map or group, and its blobs are their own serialisation within the
    field budget (``BlobFields``), which is where ``_decoded_fields`` answers."""
    stack: list[tuple[FieldSets, _Node, MessageDescriptor]] = [(sets, _root(descriptor), descriptor)]
    while stack:
        sets, node, message = stack.pop()
        for fds in sets.held:
            try:
                shape = node.shapes[fds]
            except KeyError:
                shape = node.shape(fds)
            assert shape is not None  # render_recorded records no map or group
            found |= shape[0]
        if sets.unknown:
            fields_by_number = message.fields_by_number
            for number, wire_type in sets.unknown:
                known = fields_by_number.get(number)
                found.add((node.prefix + (known.name if known is not None else str(number)), _UNKNOWN_KINDS[wire_type]))
        children = node.children
        for fd, below in sets.below.items():
            child = children.get(fd)  # None beyond MAX_DEPTH, and where no message held fd
            if child is not None:
                assert fd.message_type is not None  # a node's children are message fields
                stack.append((below, child, fd.message_type))


_first = itemgetter(0)
_SHAPES_PER_NODE = 4096  # a bound on what a node remembers (the sets of fields seen at one path)


class _Node:
    """A message type at one field path (``prefix``, ``depth`` levels down) and, per set of fields
    a message there holds (its ``ListFields`` descriptors, in order), what that set contributes:
    the (path, wire type) pairs, how many wire fields its single fields are, the indexes of the
    repeated fields (each item is a wire field) and of the sub-messages to visit, with their node."""

    __slots__ = ("children", "depth", "prefix", "shapes")

    def __init__(self, prefix: str, depth: int) -> None:
        self.prefix, self.depth = prefix, depth
        self.shapes: dict[tuple[FieldDescriptor, ...], _Shape | None] = {}
        self.children: dict[FieldDescriptor, _Node] = {}

    def shape(self, fds: tuple[FieldDescriptor, ...]) -> _Shape | None:
        """What a message holding the fields *fds* contributes, or None when it holds a map or a group
        (remembered in ``shapes``, up to ``_SHAPES_PER_NODE`` sets of fields)."""
        pairs: list[tuple[str, str]] = []
        singles = 0
        counted: list[int] = []
        walked: list[tuple[int, bool, _Node]] = []
        result: _Shape | None = None
        for i, fd in enumerate(fds):
            spec = _SPECS.get(fd)
            if spec is None:
                spec = _SPECS[fd] = _spec(fd)
            if spec is _NO_SPEC:
                break
            kind, repeated, is_message = spec
            path = self.prefix + fd.name
            pairs.append((path, kind))
            if repeated:
                counted.append(i)
            else:
                singles += 1
            if is_message and self.depth < MAX_DEPTH:
                child = self.children.get(fd)
                if child is None:
                    child = self.children[fd] = _Node(path + ".", self.depth + 1)
                walked.append((i, repeated, child))
        else:
            result = (frozenset(pairs), singles, tuple(counted), tuple(walked))
        if len(self.shapes) < _SHAPES_PER_NODE:
            self.shapes[fds] = result
        return result


_ROOTS: dict[MessageDescriptor, _Node] = {}


def _root(descriptor: MessageDescriptor) -> _Node:
    """The node of the messages of type *descriptor* at the root of a blob."""
    root = _ROOTS.get(descriptor)
    if root is None:
        root = _ROOTS[descriptor] = _Node("", 0)
    return root


_NO_SPEC = ("", False, False)
_SPECS: dict[FieldDescriptor, tuple[str, bool, bool]] = {}


def _spec(fd: FieldDescriptor) -> tuple[str, bool, bool]:
    """(wire type, one wire field per item, a message to walk) of a field, or ``_NO_SPEC``."""
    kind = _WIRE_TYPE.get(fd.type)
    if kind is None or (fd.message_type is not None and fd.message_type.GetOptions().map_entry):
        return _NO_SPEC
    if fd.is_repeated and fd.is_packed:
        return WIRE_NAMES[LEN], False, False
    return kind, fd.is_repeated, fd.type == FieldDescriptor.TYPE_MESSAGE


_UNKNOWN_KINDS = {w: WIRE_NAMES[w] for w in (VARINT, I64, LEN, I32)}


def _step_type(value: object) -> str:
    if type(value) is int and value in STEP_TYPE_NAMES:
        return STEP_TYPE_NAMES[value]
    return str(value)


def _fields(
    scope: str, fields: tuple[WireField, ...], message: MessageDescriptor | None, prefix: str
) -> Iterator[tuple[str, str, str]]:
    stack = [(fields, message, prefix)]
    while stack:
        fields, message, prefix = stack.pop()
        for f in fields:
            fd = message.fields_by_number.get(f.number) if message is not None else None
            path = prefix + (fd.name if fd is not None else str(f.number))
            yield scope, path, WIRE_NAMES[f.wire_type]
            if fd is not None and fd.type == FieldDescriptor.TYPE_MESSAGE and f.children is not None:
                stack.append((f.children, fd.message_type, path + "."))


def wire_fingerprint(observations: Iterable[tuple[str, str, str]]) -> Fingerprint:
    """The ``wire`` fingerprint of (scope, field path, wire type) observations."""
    values: dict[str, set[str]] = {}
    for scope, path, wire_type in observations:
        values.setdefault(f"{scope}.{path}" if path else scope, set()).add(wire_type)
    return Fingerprint.of("wire", (f"{p}\t{'|'.join(sorted(v))}" for p, v in values.items()))
