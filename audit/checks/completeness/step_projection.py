"""The projection: what a sidecar and its native source both carry, compared per step.

``projection`` of a sidecar-shaped trajectory (profile ``PROFILE``: the values ``STEP_FIELDS``
names, read from a stored ``Step`` where ``READS`` says), its ``projectionSha256``, the first
difference between two projected step lists and every difference (``explain_projection``), and
whether an unknown field of the source sits where the projection reads (``in_projection``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from audit.checks import diff
from audit.store.proto import cortex_pb2 as pb
from audit.store.sidecar import sha256_hex
from audit.store.trajectory import STEP_TYPE_NAMES
from audit.store.wire import EMPTY
from audit.strictjson import dumps, json_key

PROFILE = "agy-audit-projection/2"

STEP_FIELDS = (
    "type",
    "status",
    "metadata.createdAt",
    "metadata.startedAt",
    "metadata.toolSummary",
    "metadata.toolAction",
    "userInput.userResponse",
    "userInput.query",
    "userInput.items[].text",
    "plannerResponse.response",
    "plannerResponse.modifiedResponse",
    "plannerResponse.thinking",
    "plannerResponse.toolCalls[]",
    "metadata.toolCall",
    "mcpTool.toolCall",
    "runCommand.commandLine",
    "runCommand.proposedCommandLine",
    "runCommand.exitCode",
    "askQuestion.questions[]",
)
"""Names of the values of one projected step, in order."""

READS = (
    # (STEP_FIELDS name, the Step field-number paths of the scalars it is made of)
    ("type", ("1",)),
    ("status", ("4",)),
    ("metadata.createdAt", ("5.1.1", "5.1.2")),
    ("metadata.startedAt", ("5.32.1", "5.32.2")),
    ("metadata.toolSummary", ("5.30",)),
    ("metadata.toolAction", ("5.31",)),
    ("userInput.userResponse", ("19.2",)),
    ("userInput.query", ("19.1",)),
    ("userInput.items[].text", ("19.3.1",)),
    ("plannerResponse.response", ("20.1",)),
    ("plannerResponse.modifiedResponse", ("20.8",)),
    ("plannerResponse.thinking", ("20.3",)),
    ("plannerResponse.toolCalls[]", ("20.7.1", "20.7.2", "20.7.3")),
    ("metadata.toolCall", ("5.4.1", "5.4.2", "5.4.3")),
    ("mcpTool.toolCall", ("47.2.1", "47.2.2", "47.2.3")),
    ("runCommand.commandLine", ("28.23",)),
    ("runCommand.proposedCommandLine", ("28.25",)),
    ("runCommand.exitCode", ("28.6",)),
    ("askQuestion.questions[]", ("154.1.1", "154.1.4", "154.1.5", "154.1.6")),
)
"""Where in a stored ``Step`` each projected value is read (cortex.proto field numbers)."""

_READ_MESSAGES = frozenset(
    ".".join(path.split(".")[:depth]) for _, paths in READS for path in paths for depth in range(len(path.split(".")))
)
"""Messages the projection reads from ("" = the Step): an unknown field directly in one of them
could hold a projected value."""
_PROJECTED_ENUMS = frozenset(path for name, paths in READS if name in ("type", "status") for path in paths)
_COLUMN_BASE = {
    "step_payload": "",
    "metadata": "5",
    "error_details": "31",
    "permissions": "133",
    "task_details": "148",
    "render_info": "140.2.3",
}
"""``steps`` column -> the Step field its blob is (``trajectory`` counts unknowns per column)."""


def in_projection(unknown: str) -> bool:
    """Whether an unknown-field key of ``NativeTrajectory.unknown_fields``
    (``steps.step_payload/<type>: 20.7.50:len``, ``steps.metadata/<type>: 34:varint``,
    ``gen_metadata.data: 1.99:len``) sits where the projection reads: an unknown field that holds
    bytes directly in a message a projected value is read from (an ``empty`` one holds none), or
    an enum number the projection keeps as a number."""
    table, _, rest = unknown.partition("/")
    if not table.startswith("steps."):
        return False
    base = _COLUMN_BASE.get(table.removeprefix("steps."))
    if base is None or ": " not in rest:
        return False
    numbers, _, kind = rest.split(": ", 1)[1].partition(":")
    if kind == EMPTY:
        return False
    path = f"{base}.{numbers}" if base else numbers
    if kind.startswith("enum="):
        return path in _PROJECTED_ENUMS
    return path.rpartition(".")[0] in _READ_MESSAGES


_TIMESTAMP = re.compile(r"(.+T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z")


def projection(trajectory: Mapping[str, Any]) -> list[Any]:
    """The projection of a sidecar-shaped trajectory dict (see the package docstring)."""
    return [PROFILE, _each(trajectory.get("steps"), _step)]


def canonical_json(value: object) -> bytes:
    """Compact JSON with sorted keys, UTF-8: the bytes ``projectionSha256`` is taken over."""
    return dumps(value, indent=None, sort_keys=True).encode()


def projection_sha256(trajectory: Mapping[str, Any]) -> str:
    return projected_sha256(projection(trajectory)[1])


def projected_sha256(steps: list[Any]) -> str:
    """``projectionSha256`` of a projection whose steps are *steps*."""
    return sha256_hex(canonical_json([PROFILE, steps]))


def _same_value(a: object, b: object) -> bool:
    """Equal canonical JSON (``canonical_json(a) == canonical_json(b)``), decided at C speed."""
    return a == b and json_key(a) == json_key(b)


def _or(value: object, default: object) -> object:
    return default if value is None else value


def _enum(value: object, names: Mapping[int, str]) -> object:
    """The name of an enum number in *names* (number -> name; None is 0), anything else as it is."""
    if value is None:
        return names[0]
    if type(value) is int:
        return names.get(value, value)
    return value


_STEP_STATUSES = {n: pb.CortexStepStatus.Name(n) for n in pb.CortexStepStatus.values()}


def _timestamp(value: object) -> object:
    if isinstance(value, str) and (match := _TIMESTAMP.fullmatch(value)):
        return f"{match[1]}.{(match[2] or '').ljust(9, '0')}Z"
    return _or(value, "")


def _call(value: object) -> object:
    if value is None:
        return ["", "", ""]
    if not isinstance(value, dict):
        return value
    return [_or(value.get("id"), ""), _or(value.get("name"), ""), _or(value.get("argumentsJson"), "")]


def _question(value: object) -> object:
    if not isinstance(value, dict):
        return value
    return [
        _or(value.get("question"), ""),
        _each(value.get("selectedOptionIds"), lambda item: item),
        _or(value.get("writeInResponse"), ""),
        _or(value.get("skipped"), False),
    ]


def _each(value: object, function: Callable[[object], object]) -> object:
    if value is None:
        return []
    return [function(item) for item in value] if isinstance(value, list) else value


def _item(item: object) -> object:
    return _or(item.get("text"), "") if isinstance(item, dict) else item


_NOTHING: Mapping[str, object] = MappingProxyType({})


def _step(step: object) -> object:
    if not isinstance(step, dict):
        return step
    # each object the projection reads into, or an empty one where it is absent or not an object
    meta, user, planner, command, mcp, ask = (
        value if isinstance(value, dict) else _NOTHING
        for value in map(step.get, ("metadata", "userInput", "plannerResponse", "runCommand", "mcpTool", "askQuestion"))
    )
    return [
        _enum(step.get("type"), STEP_TYPE_NAMES),
        _enum(step.get("status"), _STEP_STATUSES),
        _timestamp(meta.get("createdAt")),
        _timestamp(meta.get("startedAt")),
        _or(meta.get("toolSummary"), ""),
        _or(meta.get("toolAction"), ""),
        _or(user.get("userResponse"), ""),
        _or(user.get("query"), ""),
        _each(user.get("items"), _item),
        _or(planner.get("response"), ""),
        _or(planner.get("modifiedResponse"), ""),
        _or(planner.get("thinking"), ""),
        _each(planner.get("toolCalls"), _call),
        _call(meta.get("toolCall")),
        _call(mcp.get("toolCall")),
        _or(command.get("commandLine"), ""),
        _or(command.get("proposedCommandLine"), ""),
        _or(command.get("exitCode"), 0),
        _each(ask.get("questions"), _question),
    ]


def explain_projection(sidecar: list[Any], native: list[Any]) -> str:
    """Every difference between two projected step lists, as paths (``steps.[3].plannerResponse.response``)."""

    def named(steps: list[Any], other: list[Any]) -> dict[str, Any]:
        return {"steps": [_named(s, other[i] if i < len(other) else None) for i, s in enumerate(steps)]}

    return diff.explain(named(sidecar, native), named(native, sidecar), shown=5, ignore=())


_SAME_STEP: dict[str, Any] = {}
"""What a step that is the same on both sides is diffed as: deepdiff pairs list items by index,
and an equal pair yields nothing, so an equal pair of objects may as well be two empty ones (the
list still holds objects, so deepdiff takes the same path through it) -- a diff of every step's
fields costs seconds per long session."""


def _named(step: object, other: object) -> object:
    if not isinstance(step, list):
        return step
    if isinstance(other, list) and _same_value(step, other):
        return _SAME_STEP
    return dict(zip(STEP_FIELDS, step, strict=False))


def first_difference(sidecar: list[Any], native: list[Any]) -> str | None:
    """The first difference between two projected step lists, or None."""
    if sidecar is native:
        return None
    if len(sidecar) == len(native) and _same_value(sidecar, native):  # the common case, in one comparison
        return None
    for i, (a, b) in enumerate(zip(sidecar, native)):
        if _same_value(a, b):
            continue
        name = "the step"
        if isinstance(a, list) and isinstance(b, list):
            name = next(STEP_FIELDS[k] for k, (x, y) in enumerate(zip(a, b)) if not _same_value(x, y))
        kind = b[0] if isinstance(b, list) else "?"
        return f"step {i} ({kind}) differs in {name}"
    if len(native) > len(sidecar):
        missing = len(native) - len(sidecar)
        return f"sidecar lacks {missing} step(s) from step {len(sidecar)} ({native[len(sidecar)][0]}); source has {len(native)}"
    if len(sidecar) > len(native):
        return f"sidecar has {len(sidecar) - len(native)} step(s) the source lacks, from step {len(native)}"
    return None
