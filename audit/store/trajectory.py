"""Offline reconstruction of the trajectory a conversation ``.db`` holds, shaped like a sidecar.

The rows of ``audit.store.database`` are decoded with ``audit/store/proto/cortex.proto`` and reassembled
into the daemon's ``Trajectory``: ``trajectory_meta`` gives ``trajectoryId`` / ``cascadeId`` /
``trajectoryType`` / ``source``, ``steps.step_payload`` the steps (the ``step_type`` / ``status``
/ ``metadata`` / ``error_details`` / ``permissions`` / ``task_details`` columns, and
``render_info`` as ``generic.result.stepRenderInfo`` of a GENERIC step, fill what a payload lacks
and are checked against it; in real stores every one is a byte-identical copy), ``gen_metadata`` ``generatorMetadata``,
``executor_metadata`` ``executorMetadatas``, ``parent_references`` ``parentReferences`` and
``trajectory_metadata_blob`` (id ``main``) ``metadata``. The result is proto3 JSON as sidecars
write it: camelCase keys, enum names (the enum-number rule: a number the schema does not name
is written as that number), int64 as strings, timestamps with nine fractional digits.

Nothing is dropped silently: unknown protobuf fields are counted per table, column and step type
(``steps.step_payload/CORTEX_STEP_TYPE_PLANNER_RESPONSE: 20.99:varint``), and every row, blob or
column that cannot be used becomes a finding. A finding whose problem touches the steps' type,
status, metadata or payload is marked ``projected`` (``database.affects_projection``): the rest
(generator, executor and trajectory metadata, error/permission/task/render columns, unknown
tables) leave every step as stored.

``reconstruct(conv, fields)`` also records, into a ``BlobFields``, which fields the messages of
each blob held, as the walk that renders them sees them (``proto_json.render_recorded``), for a
reader that would otherwise parse every blob again (the ``wire`` fingerprint). It costs a plain
decoding nothing: without *fields* nothing is recorded.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf.message import DecodeError, Message

from audit.store import proto_json, wire
from audit.store.database import COLUMNS, TABLES, USER_VERSIONS, NativeConversation, Problem, affects_projection, read_database
from audit.store.proto import cortex_pb2 as pb
from audit.store.wire import unknown_fields

_M = TypeVar("_M", bound=Message)

_KEY_ORDER = (
    "trajectoryId",
    "cascadeId",
    "trajectoryType",
    "source",
    "steps",
    "generatorMetadata",
    "executorMetadatas",
    "parentReferences",
    "metadata",
)
STEP_COLUMNS: dict[str, tuple[str, type[Message]]] = {
    # steps column -> (Step field, message); byte-identical copies in real stores (docs/store-format.md#column-copies)
    "metadata": ("metadata", pb.CortexStepMetadata),
    "error_details": ("error", pb.CortexErrorDetails),
    "permissions": ("permissions", pb.TrajectoryPermissions),
    "task_details": ("task_details", pb.TaskDetails),
}
_PROJECTED_COLUMNS = frozenset({"step_payload", "metadata"})
"""Step columns whose content the steps' projection reads (a problem there is ``projected``)."""
_GENERIC = pb.CORTEX_STEP_TYPE_GENERIC
BLOB_TABLES = (  # table -> JSON key, message
    ("gen_metadata", "generatorMetadata", pb.CortexStepGeneratorMetadata),
    ("executor_metadata", "executorMetadatas", pb.ExecutorMetadata),
    ("parent_references", "parentReferences", pb.CortexTrajectoryReference),
)
STEP_TYPE_NAMES = {number: value.name for number, value in pb.CortexStepType.DESCRIPTOR.values_by_number.items()}
"""``CortexStepType`` number -> name, for every number ``cortex.proto`` names."""
_STEP_NUMBERS = {attr: pb.Step.DESCRIPTOR.fields_by_name[attr].number for attr, _ in STEP_COLUMNS.values()}
_STEP_FIELDS = {column: pb.Step.DESCRIPTOR.fields_by_name[attr] for column, (attr, _) in STEP_COLUMNS.items()}


@dataclass
class NativeTrajectory:
    """The trajectory of one ``.db``; ``file_id`` (file name) and the internal cascade id may differ."""

    file_id: str
    internal_cascade_id: str | None
    trajectory: dict[str, Any]
    unknown_fields: Counter[str] = field(default_factory=Counter)
    findings: list[Problem] = field(default_factory=list)
    unknown_rows: Counter[str] = field(default_factory=Counter)
    """Per ``unknown_fields`` key: how many rows (steps, blobs) carry it at least once."""
    left_out: list[LeftOut] = field(default_factory=list)
    """Tables, columns and a schema version the reconstruction does not carry (``_Decoder.undecoded_tables``)."""

    def undecoded(self) -> list[LeftOut]:
        """Everything left out: ``left_out``, then every unknown protobuf field, by location."""
        fields = [LeftOut(key, "protobuf-field", self.unknown_rows.get(key, n)) for key, n in sorted(self.unknown_fields.items())]
        return [*self.left_out, *fields]

    @property
    def projection_findings(self) -> list[Problem]:
        """The findings that mean the steps could not be decoded as stored (``affects_projection``)."""
        return [f for f in self.findings if affects_projection(f)]


class BlobFields:
    """Which fields the messages of a conversation's blob cells held, recorded by the walk that
    rendered them (``reconstruct(conv, fields)``).

    ``trees`` has, per (table, column, the row's ``step_type`` cell for ``steps``, else None), the
    ``FieldSets`` of each root message recorded there (a blob's message, from its root); ``cells``
    the (table, row position in ``conv.tables[table]``, column) of every blob recorded whole. A
    blob is recorded only when what was rendered is exactly what it holds: bytes that are their
    own serialisation (so the parsed message says which fields, and in which wire types, the
    bytes hold, its unknown fields included), of at most ``2 * wire.MAX_FIELDS`` bytes, rendered
    as parsed (nothing merged into it) by ``render_recorded``, in a row whose ``step_type`` is an
    int or NULL (as keys, ``1 == 1.0 == True``). A step column that is a byte-identical copy of
    the payload's field is recorded with the payload: the ``FieldSets`` below that field of the payload's root is the
    column's root, shared by every payload root of that step type."""

    def __init__(self) -> None:
        self.trees: dict[tuple[str, str, object], list[proto_json.FieldSets]] = {}
        self.cells: set[tuple[str, int, str]] = set()
        self._payloads: dict[tuple[object, tuple[str, ...]], proto_json.FieldSets] = {}

    def root(self, table: str, column: str) -> proto_json.FieldSets:
        """The one root of a blob column outside ``steps``."""
        trees = self.trees.setdefault((table, column, None), [])
        if not trees:
            trees.append(proto_json.FieldSets())
        return trees[0]

    def payload_root(self, step_type: object, copies: tuple[str, ...]) -> proto_json.FieldSets:
        """The root of the payloads of the rows whose ``step_type`` cell is *step_type* and whose
        step columns *copies* are copies of the payload's fields."""
        key = (step_type, copies)
        root = self._payloads.get(key)
        if root is None:
            root = self._payloads[key] = proto_json.FieldSets()
            self.trees.setdefault(("steps", "step_payload", step_type), []).append(root)
            for column in copies:
                trees = self.trees.setdefault(("steps", column, step_type), [])
                if not trees:
                    trees.append(proto_json.FieldSets())
                root.below[_STEP_FIELDS[column]] = trees[0]  # type: ignore[index]  # upb's descriptor is the one at run time
        return root


def _recordable(message: Message, value: bytes) -> bool:
    """Whether the message parsed from *value* says exactly what *value* holds (see ``BlobFields``)."""
    return len(value) <= 2 * wire.MAX_FIELDS and message.SerializeToString() == value


def read_trajectory(path: str | os.PathLike[str]) -> NativeTrajectory:
    """``reconstruct(read_database(path))``."""
    return reconstruct(read_database(path))


def reconstruct(conv: NativeConversation, fields: BlobFields | None = None) -> NativeTrajectory:
    """Decode the rows of *conv* into a sidecar-shaped trajectory dict; which fields its blobs
    held is recorded into *fields* when given."""
    decoder = _Decoder(conv, fields)
    parts: dict[str, object] = decoder.header()  # proto3 JSON: default values are absent
    parts["steps"] = decoder.steps()
    for table, key, message_class in BLOB_TABLES:
        parts[key] = decoder.blob_rows(table, message_class)
    parts["metadata"] = decoder.metadata()
    decoder.undecoded_tables()
    trajectory = {key: parts[key] for key in _KEY_ORDER if parts.get(key) not in (None, [])}
    return NativeTrajectory(
        conv.path.stem,
        conv.internal_cascade_id,
        trajectory,
        decoder.unknown,
        decoder.findings,
        decoder.unknown_rows,
        decoder.left_out,
    )


@dataclass(frozen=True)
class LeftOut:
    """Something of the ``.db`` the reconstruction does not carry: an unknown ``table``, a
    ``column`` of a known table (``rows``: rows holding data), an unknown ``schema-version``, or a
    ``protobuf-field`` (``location`` as in ``unknown_fields``; ``rows``: rows carrying it)."""

    location: str
    kind: str
    rows: int


class _Decoder:
    def __init__(self, conv: NativeConversation, fields: BlobFields | None = None) -> None:
        self.conv = conv
        self.fields = fields
        self.left_out: list[LeftOut] = []
        self.unknown: Counter[str] = Counter()
        self.unknown_rows: Counter[str] = Counter()
        self.findings: list[Problem] = list(conv.findings)
        self._found: Counter[str] = Counter()
        """What the walk rendering one row counts (emptied after each row; a Counter per row costs)."""

    def _finding(self, code: str, message: str, *, projected: bool = False) -> None:
        self.findings.append(Problem(code, f"{self.conv.path}: {message}", projected))

    def _decode(
        self, message_class: type[_M], value: object, where: str, part: str = "", *, projected: bool = False
    ) -> _M | None:
        """The message in a blob cell (at ``where + part``), or None (with a finding unless the cell is NULL)."""
        if value is None:
            return None
        if not isinstance(value, bytes):
            self._finding("not-a-blob", f"{where}{part} holds {type(value).__name__}, not a blob", projected=projected)
            return None
        message = message_class()
        try:
            message.ParseFromString(value)
        except DecodeError as exc:
            name = message_class.DESCRIPTOR.name
            self._finding("undecodable", f"{where}{part} is not a valid {name} ({exc})", projected=projected)
            return None
        return message

    def _count_unknown(self, message: Message, key: str) -> None:
        self._add_unknown(unknown_fields(message), key)

    def _add_unknown(self, found: Counter[str], key: str) -> None:
        for path, count in found.items():
            self.unknown[f"{key}: {path}"] += count
            self.unknown_rows[f"{key}: {path}"] += 1

    def _json(
        self, message: Message, where: str, *, projected: bool = False, unknown: Counter[str] | None = None
    ) -> dict[str, Any] | None:
        """The proto3 JSON of *message* (None, with a finding, when it has none); *unknown*, when
        given, gets its unknown fields (as ``unknown_fields`` counts them) from the same walk, and
        is emptied when rendering fails."""
        try:
            doc = proto_json.render(message, unknown)
        except proto_json.RenderError as exc:  # a Timestamp outside years 1..9999, an invalid Duration
            if unknown is not None:
                unknown.clear()
            self._finding("unrenderable", f"{where} cannot be rendered as JSON ({exc})", projected=projected)
            return None
        return doc

    def _rendered_row(self, message: Message, key: str, where: str, cell: tuple[str, int, object]) -> dict[str, Any] | None:
        """The proto3 JSON of one row's *message*, its unknown fields counted under *key* in the same
        walk; *cell* is (table, row position, the ``data`` bytes it was parsed from), for ``fields``."""
        if self.fields is not None:
            table, position, value = cell
            if _recordable(message, value):  # type: ignore[arg-type]  # a parsed cell is bytes
                recorded = self._recorded(message, self.fields.root(table, "data"), [(table, position, "data")])
                if recorded is not None:  # else rendered again below, which counts what it holds
                    return recorded
        found = self._found  # empty between rows
        doc = self._json(message, where, unknown=found)
        if doc is None:
            self._count_unknown(message, key)
        elif found:
            self._add_unknown(found, key)
            found.clear()
        return doc

    def header(self) -> dict[str, Any]:
        rows = self.conv.tables.get("trajectory_meta", [])
        if self.conv.access and len(rows) != 1:
            self._finding("trajectory-meta", f"trajectory_meta has {len(rows)} rows (expected 1)")
        header = pb.Trajectory()
        for column in ("trajectory_id", "cascade_id", "trajectory_type", "source"):
            value = rows[0].get(column) if rows else None
            if value is None:
                continue
            try:
                setattr(header, column, value)
            except (TypeError, ValueError):
                self._finding("bad-value", f"trajectory_meta.{column} = {value!r} does not fit the schema")
        return self._json(header, "trajectory_meta") or {}

    def steps(self) -> list[dict[str, Any]]:
        rows = self.conv.steps
        gap = next((i for i, row in enumerate(rows) if row.get("idx") != i), None)
        if gap is not None:  # sidecar steps are positional: step i is idx i
            self._finding(
                "step-index",
                f"steps.idx is not 0..{len(rows) - 1} (row {gap} has idx {rows[gap].get('idx')!r})",
                projected=True,
            )
        return [self._step(position, row) for position, row in enumerate(rows)]

    def _step(self, position: int, row: dict[str, object]) -> dict[str, Any]:
        where = f"steps[idx={row.get('idx')!r}]"
        payload = self._decode(pb.Step, row.get("step_payload"), where, ".step_payload", projected=True)
        if payload is None and row.get("step_payload") is None:
            self._finding("null-blob", f"{where}.step_payload is NULL; the step is rebuilt from its columns", projected=True)
        step = payload or pb.Step()
        # recorded (BlobFields) only when rendered as parsed from bytes that are its serialisation,
        # in a row whose step_type cell no cell of another type equals (1.0 == 1 == True as keys)
        recording = (
            self.fields is not None
            and payload is not None
            and (type(row.get("step_type")) is int or row.get("step_type") is None)
            and _recordable(payload, row["step_payload"])  # type: ignore[arg-type]  # a parsed payload's cell is bytes
        )
        for column, attr in (("step_type", "type"), ("status", "status")):
            value, stored = row.get(column), getattr(step, attr)
            if stored == 0 and isinstance(value, int) and value:
                recording = False  # the payload is changed
                try:
                    setattr(step, attr, value)
                except ValueError:
                    self._finding("bad-value", f"{where}.{column} = {value} does not fit the schema", projected=True)
            elif value != stored:
                self._finding("column-mismatch", f"{where}.{column} = {value!r} but the payload says {stored}", projected=True)
        if row.get("step_format") not in (0, None):
            self._finding("step-format", f"{where}.step_format = {row.get('step_format')!r} (only 0 is known)", projected=True)
        kind = STEP_TYPE_NAMES.get(step.type) or str(step.type)
        # The payload's unknown fields are counted as it was stored: in the walk that renders it
        # when nothing is merged into it (the rule in real stores), else before the first merge.
        pending = payload is not None
        copies: list[tuple[str, str]] = []  # (column, field) whose cell is the payload's field, byte for byte
        for column, (attr, message_class) in STEP_COLUMNS.items():
            value = row.get(column)
            if value is None:  # a NULL cell: nothing to decode, compare or merge
                continue
            projected = column in _PROJECTED_COLUMNS
            if isinstance(value, bytes) and step.HasField(attr) and getattr(step, attr).SerializeToString() == value:
                copies.append((column, attr))  # it decodes to the payload's field: nothing to compare or merge
                continue
            part = self._decode(message_class, value, where, f".{column}", projected=projected)
            if part is None:
                continue
            self._count_unknown(part, f"steps.{column}/{kind}")
            if not step.HasField(attr):
                if pending:
                    self._count_unknown(step, f"steps.step_payload/{kind}")
                    pending = False
                getattr(step, attr).CopyFrom(part)
            elif getattr(step, attr) != part:
                self._finding("column-mismatch", f"{where}.{column} differs from the payload's {attr}", projected=projected)
        info = self._render_info(step, row.get("render_info"), where, kind) if row.get("render_info") is not None else None
        if info is not None:
            if pending:
                self._count_unknown(step, f"steps.step_payload/{kind}")  # counted before the merge
                pending = False
            step.generic.result.step_render_info.CopyFrom(info)
        found = self._found if pending else None  # empty between rows
        doc = self._recorded_step(step, position, row, copies) if recording and pending else None
        if doc is None:
            doc = self._json(step, where, projected=True, unknown=found)
        if pending and doc is None:
            self._count_unknown(step, f"steps.step_payload/{kind}")
        elif found:
            self._add_unknown(found, f"steps.step_payload/{kind}")
        for column, attr in copies:  # a copy's unknown fields are those of the payload's field
            if found is None or doc is None:
                self._count_unknown(getattr(step, attr), f"steps.{column}/{kind}")
            elif found:
                below = f"{_STEP_NUMBERS[attr]}."
                self._add_unknown(
                    Counter({path[len(below) :]: n for path, n in found.items() if path.startswith(below)}),
                    f"steps.{column}/{kind}",
                )
        if found:
            found.clear()
        rendered = doc or self._json(pb.Step(type=step.type, status=step.status), where)
        assert rendered is not None  # a Step of just type and status has no Timestamp that could fail to render
        return rendered

    def _recorded_step(
        self, step: pb.Step, position: int, row: dict[str, object], copies: list[tuple[str, str]]
    ) -> dict[str, Any] | None:
        """The proto3 JSON of the payload *step* as parsed, its fields (and those of the columns that
        are *copies* of its fields) recorded into ``fields``; None when it is not recorded, or when
        it holds something ``render`` counts (the caller then renders it as without ``fields``)."""
        assert self.fields is not None
        columns = tuple(column for column, _ in copies)
        cells = [("steps", position, column) for column in ("step_payload", *columns)]
        return self._recorded(step, self.fields.payload_root(row.get("step_type"), columns), cells)

    def _recorded(self, message: Message, root: proto_json.FieldSets, cells: list[tuple[str, int, str]]) -> dict[str, Any] | None:
        """``render_recorded(message, root)``, its blob *cells* then recorded whole in ``fields``;
        None when it is not recorded, or holds something ``render`` counts (rendered again then)."""
        assert self.fields is not None
        try:
            doc, counted = proto_json.render_recorded(message, root)
        except proto_json.Unrecorded:
            return None
        self.fields.cells.update(cells)
        return None if counted else doc

    def _render_info(self, step: pb.Step, value: object, where: str, kind: str) -> pb.StepRenderInfo | None:
        """The ``render_info`` column: a copy of a GENERIC step's ``generic.result.step_render_info``
        (38/38 real rows); on any other step it has no known place and is reported. Returns it when
        the payload lacks it (the caller merges it), else None."""
        info = self._decode(pb.StepRenderInfo, value, f"{where}.render_info")
        if info is None:
            return None
        self._count_unknown(info, f"steps.render_info/{kind}")
        if step.type != _GENERIC or step.WhichOneof("step") not in (None, "generic"):
            self._finding("undecoded-column", f"{where}.render_info: only GENERIC steps are known to carry it ({kind})")
            return None
        result = step.generic.result
        if not result.HasField("step_render_info"):
            return info
        if result.step_render_info != info:
            self._finding("column-mismatch", f"{where}.render_info differs from the payload's generic.result.stepRenderInfo")
        return None

    def blob_rows(self, table: str, message_class: type[Message]) -> list[dict[str, Any]]:
        docs = []
        for position, row in enumerate(self.conv.tables.get(table, [])):
            where = f"{table}[idx={row.get('idx')!r}].data"
            message = self._decode(message_class, row.get("data"), where)
            if message is None:
                if row.get("data") is None:
                    self._finding("null-blob", f"{where} is NULL")
                continue
            doc = self._rendered_row(message, f"{table}.data", where, (table, position, row["data"]))
            if doc is not None:
                docs.append(doc)
        return docs

    def metadata(self) -> dict[str, Any] | None:
        doc = None
        for position, row in enumerate(self.conv.tables.get("trajectory_metadata_blob", [])):
            where = f"trajectory_metadata_blob[id={row.get('id')!r}].data"
            if row.get("id") != "main":
                self._finding("undecoded-row", f"{where}: only id 'main' is known")
                continue
            message = self._decode(pb.CortexTrajectoryMetadata, row.get("data"), where)
            if message is not None:
                cell = ("trajectory_metadata_blob", position, row["data"])
                doc = self._rendered_row(message, "trajectory_metadata_blob.data", where, cell)
        return doc

    def undecoded_tables(self) -> None:
        """Tables, columns and a ``user_version`` the known schema does not have: findings, and
        ``left_out`` entries (a column of ``steps`` holding data is ``projected``: it sits where a
        projection of the steps reads, and could be a projected value's new home)."""
        rows = len(self.conv.tables.get("battle_mode_infos", []))
        if rows:
            self._finding("undecoded-table", f"battle_mode_infos: {rows} rows not decoded (message unknown)")
            self.left_out.append(LeftOut("battle_mode_infos", "table", rows))
        for name, table in self.conv.tables.items():
            if name not in TABLES:
                self._finding("undecoded-table", f"table {name} is not part of the known schema")
                self.left_out.append(LeftOut(name, "table", len(table)))
                continue
            columns = dict.fromkeys(c for row in table[:1] for c in row)
            columns.update(dict.fromkeys(col[1] for o in self.conv.schema if o.name == name for col in o.columns))
            for column in columns:
                if column in COLUMNS[name]:
                    continue
                held = sum(row.get(column) is not None for row in table)
                self._finding(
                    "undecoded-column",
                    f"column {name}.{column} is not part of the known schema ({held} of {len(table)} rows hold data)",
                    projected=name == "steps" and held > 0,
                )
                self.left_out.append(LeftOut(f"{name}.{column}", "column", held))
        version = self.conv.user_version
        if version is not None and version not in USER_VERSIONS:
            known = ", ".join(map(str, sorted(USER_VERSIONS)))
            self._finding("unknown-user-version", f"user_version {version} is not a known schema version (known: {known})")
            self.left_out.append(LeftOut("user_version", "schema-version", 0))
