"""The ``values`` fingerprint: which values each enum-like field holds, on every surface.

Readers select records by value (step type 15, transcript ``type``, a model-enum range), so a new
or vanished value is drift of its own even when no key or type changes. One line per field,
``<surface>:<path><TAB><value>|<value>...``, values sorted; the path is the one the field has on
its own surface, so a consumer profile entry (``audit.checks.consumers``) finds its values:

* ``sqlite:table:steps.step_type`` and ``sqlite:table:steps.status`` -- the integer columns;
* ``sidecar:<path>`` -- every field our ``cortex.proto`` declares as an enum, at its sidecar shape
  path (``steps.[].type``, ``steps.[].metadata.source``, ``generatorMetadata.[].chatModel.model``),
  as the document writes it (agy's enum name, or the number proto3 JSON writes for one it has no
  name for);
* ``wire:<path>`` -- the same fields of a conversation ``.db``'s blobs (read from its offline
  reconstruction, never from a sidecar, which may lag the ``.db``) at their ``wire`` fingerprint
  path, as numbers (``steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE].planner_response.stop_reason``,
  ``gen_metadata.data.chat_model.model``);
* ``transcript:<tier>.type``, ``.source``, ``.status`` and ``<tier>.tool_calls.[].name``;
* other surfaces' records through ``Values.add_record`` (``history:type``, ``artifacts:artifactType``).

Only content-free values are ever kept: integers and agy's own upper-case enum names (tool names
and the record kinds of ``history.jsonl`` are lower-case identifiers). Anything else at such a
path is recorded as ``(other)``, and a field with more than ``MAX_VALUES`` distinct values is
recorded as ``(more)`` alone (whatever the order the values came in): the sets stay small and
never hold text a user wrote.

How many records hold each value is counted too (``Values.counts``) for the fields readers filter
records by -- the transcript ``type``, ``source`` and ``status`` and the ``steps`` columns -- but
kept out of the lines and the digest: a baseline stores them beside (``counts.values``), so that a
new value's records can be traced to the values they left (``audit.checks.consumers``). A
transcript record's ``source`` and ``status`` are counted per record type too
(``transcript:<tier>.<TYPE>.source``: a reader may apply its filter to some types only), and every
count per product as well (``Values.products``: ``cli``, ``ide``, ``acp``, where the record's store
root is known), since a reader may read one product's roots only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor

from audit.store.proto import cortex_pb2 as pb
from audit.store.trajectory import STEP_COLUMNS, STEP_TYPE_NAMES

if TYPE_CHECKING:
    from audit.store.proto import MessageDescriptor as Descriptor

SURFACE = "values"
MAX_VALUES = 64
OTHER = "(other)"
"""Recorded for a value that is not content-free (free text where an enum was expected)."""
MORE = "(more)"
"""The whole record of a field with more than ``MAX_VALUES`` distinct values (which are not kept)."""

_TOKEN = re.compile(r"-?[0-9]{1,19}|[A-Z][A-Z0-9_]{0,127}")
_TOOL = re.compile(r"[a-z][a-z0-9_]{0,63}")
_WORD = re.compile(_TOKEN.pattern + "|" + _TOOL.pattern)
"""A record's kind as a product identifier of either case (``history.jsonl`` ``type``: ``slash_command``)."""
TRANSCRIPT_KEYS = ("type", "source", "status")

# Top-level sidecar arrays and objects and the blob column whose message they render.
_TOP: dict[str, tuple[str, Descriptor]] = {
    "steps": ("steps.step_payload", pb.Step.DESCRIPTOR),
    "generatorMetadata": ("gen_metadata.data", pb.CortexStepGeneratorMetadata.DESCRIPTOR),
    "executorMetadatas": ("executor_metadata.data", pb.ExecutorMetadata.DESCRIPTOR),
    "parentReferences": ("parent_references.data", pb.CortexTrajectoryReference.DESCRIPTOR),
    "metadata": ("trajectory_metadata_blob.data", pb.CortexTrajectoryMetadata.DESCRIPTOR),
}
_HEADER = ("trajectoryType", "source")  # enums of the sidecar root (trajectory_meta, not a blob)
_STEP_COLUMN_OF = {attr: column for column, (attr, _) in STEP_COLUMNS.items()}  # Step field -> steps column copying it


@cache
def _has_enum(descriptor: Descriptor) -> bool:
    """Whether a message of this type can hold an enum value (transitively; a cycle counts once)."""
    seen: set[str] = set()
    stack = [descriptor]
    while stack:
        current = stack.pop()
        if current.full_name in seen or current.GetOptions().map_entry:
            continue
        seen.add(current.full_name)
        for fd in current.fields:
            if fd.type == FieldDescriptor.TYPE_ENUM:
                return True
            if fd.message_type is not None:
                stack.append(fd.message_type)
    return False


_MAX_DEPTH = 32


def order(value: str) -> tuple[int, int, str]:
    """Sort key of recorded values: numbers by value, then names."""
    number = value.lstrip("-")
    return (0, int(value), "") if number.isdigit() else (1, 0, value)


@cache
def _numbers(enum: EnumDescriptor) -> dict[str, int]:
    return {name: value.number for name, value in enum.values_by_name.items()}


def _number(enum: EnumDescriptor, value: object) -> object:
    """The wire value of an enum as proto3 JSON writes it: the number of a name, a number as is."""
    return _numbers(enum).get(value, value) if type(value) is str else value


class _Walk:
    """What a walk records below one message type at one place (its JSON path and wire paths, its
    depth): ``enums`` has, per enum field, its JSON name, whether it is repeated, its ``sidecar:``
    key, its ``wire:`` keys and its enum's numbers by name; ``messages``, per message field with
    an enum at or below it, its JSON name, whether it is repeated, and the arguments of its own
    walk (``_walk_of``), which takes their place when first used (a message type may hold itself).
    Made once per place, so a document's walk builds no path."""

    __slots__ = ("enums", "messages")

    def __init__(self, descriptor: Descriptor, json_prefix: str, wire_prefixes: tuple[str, ...], depth: int, step: bool) -> None:
        self.enums: list[tuple[str, bool, str, tuple[str, ...], dict[str, int]]] = []
        self.messages: list[list[Any]] = []
        for fd in descriptor.fields:
            enum = fd.type == FieldDescriptor.TYPE_ENUM
            message = fd.message_type
            below = message is not None and not message.GetOptions().map_entry and _has_enum(message)
            if not enum and not (below and depth < _MAX_DEPTH):
                continue
            json_path = f"{json_prefix}{fd.json_name}" + (".[]" if fd.is_repeated else "")
            wire_paths = tuple(f"{prefix}{fd.name}" for prefix in wire_prefixes)
            if step and depth == 0 and fd.name in _STEP_COLUMN_OF:  # a Step field a steps column copies
                wire_paths += (f"steps.{_STEP_COLUMN_OF[fd.name]}",)
            if enum:
                keys = tuple(f"wire:{path}" for path in wire_paths)
                self.enums.append((fd.json_name, fd.is_repeated, f"sidecar:{json_path}", keys, _numbers(fd.enum_type)))
            else:
                below_paths = tuple(f"{path}." for path in wire_paths)
                self.messages.append([fd.json_name, fd.is_repeated, (message, f"{json_path}.", below_paths, depth + 1, False)])


@lru_cache(maxsize=256)  # bounded: a corrupt .db may hold any number of step types
def _walk_of(descriptor: Descriptor, json_prefix: str, wire_prefixes: tuple[str, ...], depth: int, step: bool) -> _Walk:
    return _Walk(descriptor, json_prefix, wire_prefixes, depth, step)


def _walk(item: dict[str, Any], walk: _Walk, sidecar: Values | None, wire: Values | None) -> None:
    """Record the enum values below one message rendered as *item*: as the document writes them
    into *sidecar*, as numbers into *wire* (each when given)."""
    stack = [(item, walk)]
    while stack:
        node, walk = stack.pop()
        for name, repeated, key, keys, numbers in walk.enums:
            if name in node:
                value = node[name]
                for v in value if repeated and type(value) is list else (value,):
                    if sidecar is not None:
                        sidecar.add(key, v)
                    if wire is not None:
                        number = numbers.get(v, v) if type(v) is str else v
                        for each in keys:
                            wire.add(each, number)
        for entry in walk.messages:
            name = entry[0]
            if name in node:
                value = node[name]
                child = entry[2]
                if type(child) is tuple:
                    child = entry[2] = _walk_of(*child)
                for v in value if entry[1] and type(value) is list else (value,):
                    if type(v) is dict:
                        stack.append((v, child))


def add_trajectory(document: object, *, sidecar: Values | None = None, wire: Values | None = None) -> None:
    """Walk a sidecar or an offline reconstruction (``trajectory.reconstruct``; envelope unwrapped,
    ``agyReader`` never read) once: every enum field of ``cortex.proto``'s messages, at its sidecar
    path into *sidecar* as the document writes it, and at its wire path into *wire* as numbers (a
    Step's metadata, error, permissions and task details at their steps column's wire path too).
    A sweep's native sidecar is the rendering of its reconstruction, so one walk gives both."""
    if sidecar is not None and not sidecar.recording:
        sidecar = None
    if wire is not None and not wire.recording:
        wire = None
    if sidecar is None and wire is None:
        return
    if type(document) is dict and len(document) == 1 and "trajectory" in document:
        document = document["trajectory"]
    if type(document) is not dict:
        return
    if sidecar is not None:
        for key in _HEADER:
            if key in document:
                sidecar.add(f"sidecar:{key}", document[key])
    for key, (scope, descriptor) in _TOP.items():
        value = document.get(key)
        items = value if type(value) is list else [value] if type(value) is dict else ()
        array = "[]." if type(value) is list else ""
        for item in items:
            if type(item) is not dict:
                continue
            if key == "steps" and wire is not None:  # a step's wire paths name its type
                kind = item.get("type", 0)
                number = _number(pb.CortexStepType.DESCRIPTOR, kind)
                name = STEP_TYPE_NAMES.get(number, str(number)) if type(number) is int else str(kind)
                walk = _walk_of(descriptor, f"{key}.{array}", (f"{scope}[{name}].",), 0, True)
            elif key == "steps":
                walk = _walk_of(descriptor, f"{key}.{array}", ("",), 0, True)
            else:
                walk = _walk_of(descriptor, f"{key}.{array}", (f"{scope}.",), 0, False)
            _walk(item, walk, sidecar, wire)


class Values:
    """Observed values per ``<surface>:<path>``, folded in one document or row at a time."""

    recording = True

    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = {}
        self.more: set[str] = set()  # fields with more than MAX_VALUES values (no longer in seen)
        self.counts: dict[str, Counter[str]] = {}  # field -> records per value, for the fields readers filter by
        self.products: dict[str, dict[str, Counter[str]]] = {}  # product -> the counts of its records

    def _count(self, key: str, value: object, product: str | None = None) -> str:
        """One more record holding *value* at *key* (as ``add`` records it; content is ``(other)``),
        of *product* when known; the value as counted."""
        text = str(value) if type(value) is int else value if type(value) is str and _TOKEN.fullmatch(value) else OTHER
        self.counts.setdefault(key, Counter())[text] += 1
        if product is not None:
            self.products.setdefault(product, {}).setdefault(key, Counter())[text] += 1
        return text

    def add(self, key: str, value: object, pattern: re.Pattern[str] = _TOKEN) -> None:
        """Record *value* (an integer or a content-free token) for the field *key*."""
        found = self.seen.get(key)
        if found is None:
            if key in self.more:
                return
            found = self.seen[key] = set()
        if type(value) is int:
            text = str(value)
        elif type(value) is str:
            if value in found:  # what is kept is a token that matched, or OTHER, which matches no pattern
                return
            text = value if pattern.fullmatch(value) else OTHER
        else:
            text = OTHER
        if text not in found:
            found.add(text)
            if len(found) > MAX_VALUES:
                self._overflow(key)

    def _overflow(self, key: str) -> None:
        del self.seen[key]
        self.more.add(key)

    def merge(self, other: Values) -> None:
        merge_counts(self.counts, other.counts)
        for product, counts in other.products.items():
            merge_counts(self.products.setdefault(product, {}), counts)
        for key in other.more - self.more:
            self.seen.pop(key, None)
            self.more.add(key)
        for key, values in other.seen.items():
            if key not in self.more:
                found = self.seen.setdefault(key, set())
                found |= values
                if len(found) > MAX_VALUES:
                    self._overflow(key)

    def lines(self) -> tuple[str, ...]:
        """``<surface>:<path><TAB><values>`` per field, values in ``order``."""
        lines = [f"{key}\t{'|'.join(sorted(values, key=order))}" for key, values in self.seen.items()]
        return tuple(sorted(lines + [f"{key}\t{MORE}" for key in self.more]))

    # ------------------------------------------------------------------------- surfaces

    def add_rows(self, rows: Iterable[dict[str, object]], product: str | None = None) -> None:
        """The ``steps`` rows of a conversation database (``step_type`` and ``status`` columns) of
        *product* (when known)."""
        for row in rows:
            for column in ("step_type", "status"):
                value = row.get(column)
                if value is not None:
                    self.add(f"sqlite:table:steps.{column}", value)
                    self._count(f"sqlite:table:steps.{column}", value, product)

    def add_record(self, surface: str, record: object, keys: Iterable[str]) -> None:
        """The *keys* of one JSON record of *surface* (``history``: ``type``), each an integer or an
        identifier of either case."""
        if type(record) is dict:
            for key in keys:
                if key in record:
                    self.add(f"{surface}:{key}", record[key], _WORD)

    def add_transcript(self, record: object, tier: str, product: str | None = None) -> None:
        """One transcript record of *tier* (of *product*, when known): its type, source and status
        (source and status per type too, while the tier holds at most ``MAX_VALUES`` types), and
        its tool names."""
        if type(record) is not dict:
            return
        kind = None  # the record's type, as counted; the first of TRANSCRIPT_KEYS
        for key in TRANSCRIPT_KEYS:
            if key in record:
                self.add(f"transcript:{tier}.{key}", record[key])
                counted = self._count(f"transcript:{tier}.{key}", record[key], product)
                if kind is not None:
                    self._count(f"transcript:{tier}.{kind}.{key}", record[key], product)
                elif key == "type" and len(self.counts[f"transcript:{tier}.type"]) <= MAX_VALUES:
                    kind = counted
        calls = record.get("tool_calls")
        if type(calls) is list:
            for call in calls:
                if type(call) is dict and "name" in call:
                    self.add(f"transcript:{tier}.tool_calls.[].name", call["name"], _TOOL)

    def add_sidecar(self, document: object) -> None:
        """One sidecar: every enum field of ``cortex.proto``'s messages, at its sidecar path."""
        add_trajectory(document, sidecar=self)

    def add_native(self, trajectory: dict[str, Any]) -> None:
        """The offline reconstruction of a conversation ``.db`` (``trajectory.reconstruct``):
        every enum field of its blobs, at its wire path, as numbers."""
        add_trajectory(trajectory, wire=self)


def merge_counts(into: dict[str, Counter[str]], counts: Mapping[str, Mapping[str, int]]) -> None:
    """Add the records per value of *counts* to *into*."""
    for key, counted in counts.items():
        into.setdefault(key, Counter()).update(counted)


class Unrecorded(Values):
    """Values nobody asked for: folds nothing in, so a survey of other surfaces walks no document
    for them."""

    recording = False

    def add(self, key: str, value: object, pattern: re.Pattern[str] = _TOKEN) -> None:
        pass

    def merge(self, other: Values) -> None:
        pass

    def add_rows(self, rows: Iterable[dict[str, object]], product: str | None = None) -> None:
        pass

    def add_record(self, surface: str, record: object, keys: Iterable[str]) -> None:
        pass

    def add_transcript(self, record: object, tier: str, product: str | None = None) -> None:
        pass
