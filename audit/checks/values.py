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
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
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

_Plan = dict[str, tuple[str, bool, Any, "Descriptor | None"]]
"""json name -> (field name, repeated, enum type, message type) of the fields with an enum at or below."""


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


@cache
def _plan(descriptor: Descriptor) -> _Plan:
    plan: _Plan = {}
    for fd in descriptor.fields:
        if fd.type == FieldDescriptor.TYPE_ENUM:
            plan[fd.json_name] = (fd.name, fd.is_repeated, fd.enum_type, None)
        elif fd.message_type is not None and not fd.message_type.GetOptions().map_entry and _has_enum(fd.message_type):
            plan[fd.json_name] = (fd.name, fd.is_repeated, None, fd.message_type)
    return plan


_MAX_DEPTH = 32


def order(value: str) -> tuple[int, int, str]:
    """Sort key of recorded values: numbers by value, then names."""
    number = value.lstrip("-")
    return (0, int(value), "") if number.isdigit() else (1, 0, value)


def _number(enum: EnumDescriptor, value: object) -> object:
    """The wire value of an enum as proto3 JSON writes it: the number of a name, a number as is."""
    if type(value) is str:
        known = enum.values_by_name.get(value)
        return known.number if known is not None else value
    return value


class Values:
    """Observed values per ``<surface>:<path>``, folded in one document or row at a time."""

    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = {}
        self.more: set[str] = set()  # fields with more than MAX_VALUES values (no longer in seen)

    def add(self, key: str, value: object, pattern: re.Pattern[str] = _TOKEN) -> None:
        """Record *value* (an integer or a content-free token) for the field *key*."""
        found = self.seen.get(key)
        if found is None:
            if key in self.more:
                return
            found = self.seen[key] = set()
        if type(value) is int:
            text = str(value)
        elif type(value) is str and pattern.fullmatch(value):
            text = value
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

    def add_rows(self, rows: Iterable[dict[str, object]]) -> None:
        """The ``steps`` rows of a conversation database (``step_type`` and ``status`` columns)."""
        for row in rows:
            for column in ("step_type", "status"):
                value = row.get(column)
                if value is not None:
                    self.add(f"sqlite:table:steps.{column}", value)

    def add_record(self, surface: str, record: object, keys: Iterable[str]) -> None:
        """The *keys* of one JSON record of *surface* (``history``: ``type``), each an integer or an
        identifier of either case."""
        if type(record) is dict:
            for key in keys:
                if key in record:
                    self.add(f"{surface}:{key}", record[key], _WORD)

    def add_transcript(self, record: object, tier: str) -> None:
        """One transcript record of *tier*: its type, source and status, and its tool names."""
        if type(record) is not dict:
            return
        for key in TRANSCRIPT_KEYS:
            if key in record:
                self.add(f"transcript:{tier}.{key}", record[key])
        calls = record.get("tool_calls")
        if type(calls) is list:
            for call in calls:
                if type(call) is dict and "name" in call:
                    self.add(f"transcript:{tier}.tool_calls.[].name", call["name"], _TOOL)

    def add_sidecar(self, document: object) -> None:
        """One sidecar (envelope unwrapped, ``agyReader`` never read): every enum field of
        ``cortex.proto``'s messages, at its sidecar path."""
        self._trajectory(document, "sidecar")

    def add_native(self, trajectory: dict) -> None:
        """The offline reconstruction of a conversation ``.db`` (``trajectory.reconstruct``):
        every enum field of its blobs, at its wire path, as numbers."""
        self._trajectory(trajectory, "wire")

    def _trajectory(self, document: object, surface: str) -> None:
        if type(document) is dict and len(document) == 1 and "trajectory" in document:
            document = document["trajectory"]
        if type(document) is not dict:
            return
        if surface == "sidecar":
            for key in _HEADER:
                if key in document:
                    self.add(f"sidecar:{key}", document[key])
        for key, (scope, descriptor) in _TOP.items():
            value = document.get(key)
            items = value if type(value) is list else [value] if type(value) is dict else ()
            array = "[]." if type(value) is list else ""
            for item in items:
                if type(item) is not dict:
                    continue
                if key == "steps":
                    kind = item.get("type", 0)
                    number = _number(pb.CortexStepType.DESCRIPTOR, kind)
                    name = STEP_TYPE_NAMES.get(number, str(number)) if type(number) is int else str(kind)
                    self._walk(item, descriptor, f"{key}.{array}", f"{scope}[{name}].", surface, steps=True)
                else:
                    self._walk(item, descriptor, f"{key}.{array}", f"{scope}.", surface)

    def _walk(
        self, item: dict, descriptor: Descriptor, json_prefix: str, wire_prefix: str, surface: str, *, steps: bool = False
    ) -> None:
        """The enum fields below one message rendered as *item*, at their *surface* paths (``sidecar``
        or ``wire``); a Step's metadata, error, permissions and task details are at their steps
        column's wire path too."""
        sidecar = surface == "sidecar"
        stack: list[tuple[object, Descriptor, str, tuple[str, ...], int]] = [(item, descriptor, json_prefix, (wire_prefix,), 0)]
        while stack:
            node, message, jp, wps, depth = stack.pop()
            if type(node) is not dict:
                continue
            for json_name, (name, repeated, enum, child) in _plan(message).items():
                if json_name not in node:
                    continue
                value = node[json_name]
                values = value if repeated and type(value) is list else (value,)
                jpath = f"{jp}{json_name}" + (".[]" if repeated else "")
                wpaths = tuple(f"{wp}{name}" for wp in wps)
                if steps and depth == 0 and name in _STEP_COLUMN_OF:
                    wpaths += (f"steps.{_STEP_COLUMN_OF[name]}",)
                if enum is not None:
                    for v in values:
                        if sidecar:
                            self.add(f"sidecar:{jpath}", v)
                        else:
                            number = _number(enum, v)
                            for wpath in wpaths:
                                self.add(f"wire:{wpath}", number)
                elif child is not None and depth < _MAX_DEPTH:
                    below = tuple(f"{w}." for w in wpaths)
                    stack.extend((v, child, f"{jpath}.", below, depth + 1) for v in values)


class Unrecorded(Values):
    """Values nobody asked for: folds nothing in, so a survey of other surfaces walks no document
    for them."""

    def add(self, key: str, value: object, pattern: re.Pattern[str] = _TOKEN) -> None:
        pass

    def merge(self, other: Values) -> None:
        pass

    def add_rows(self, rows: Iterable[dict[str, object]]) -> None:
        pass

    def add_record(self, surface: str, record: object, keys: Iterable[str]) -> None:
        pass

    def add_transcript(self, record: object, tier: str) -> None:
        pass

    def _trajectory(self, document: object, surface: str) -> None:
        pass
