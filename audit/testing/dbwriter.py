"""Write agy-shaped conversation ``.db`` files from sidecar-shaped trajectory dicts.

The schema is the exact DDL of agy 1.0.7 .. 1.2.11 (``BASELINE_SCHEMA``, ``user_version`` 1).
Rows are encoded with ``audit/store/proto/cortex.proto``: the dict is read with ``ParseDict``
(unknown keys ignored -- see ``audit.store.proto`` for the keys a ``.db`` can carry) and split per
table as real stores hold it (docs/store-format.md#column-copies): ``trajectory_meta`` (ids, type, source),
``steps`` (``idx``, ``step_type``, ``status``, ``has_subtrajectory``, ``step_payload`` = the whole
serialized ``Step``, and the column copies of its parts: ``metadata``, ``error_details``,
``permissions``, ``task_details`` and, for a GENERIC step, ``render_info`` =
``generic.result.step_render_info``; ``step_format`` 0), ``gen_metadata`` (``size`` = blob
length), ``executor_metadata``, ``parent_references`` and ``trajectory_metadata_blob`` (id
``main``).

Output is deterministic: the ``.db`` bytes depend only on the arguments (and the SQLite
version). The one exception is the ``-wal`` file of ``uncheckpointed_steps``, whose frame
salts SQLite draws at random; the rows it holds are deterministic.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from google.protobuf import json_format
from google.protobuf.message import Message

from audit.safewrite import create_durable_file
from audit.store.proto import cortex_pb2 as pb
from audit.store.wire import I64, LEN, VARINT, encode_varint
from audit.store.wire import parse as parse_wire

BASELINE_SCHEMA = """\
CREATE TABLE `trajectory_meta` (`trajectory_id` text,`cascade_id` text,`trajectory_type` integer,`source` integer,PRIMARY KEY (`trajectory_id`));
CREATE TABLE `steps` (`idx` integer,`step_type` integer NOT NULL DEFAULT 0,`status` integer NOT NULL DEFAULT 0,`has_subtrajectory` numeric NOT NULL DEFAULT false,`metadata` blob,`error_details` blob,`permissions` blob,`task_details` blob,`render_info` blob,`step_payload` blob,`step_format` integer NOT NULL DEFAULT 0,PRIMARY KEY (`idx`));
CREATE TABLE `gen_metadata` (`idx` integer,`data` blob,`size` integer NOT NULL DEFAULT 0,PRIMARY KEY (`idx`));
CREATE TABLE `executor_metadata` (`idx` integer,`data` blob,PRIMARY KEY (`idx`));
CREATE TABLE `parent_references` (`idx` integer,`data` blob,PRIMARY KEY (`idx`));
CREATE TABLE `trajectory_metadata_blob` (`id` text DEFAULT "main",`data` blob,PRIMARY KEY (`id`));
CREATE TABLE `battle_mode_infos` (`idx` integer,`data` blob,PRIMARY KEY (`idx`));
CREATE INDEX `idx_steps_status` ON `steps`(`status`);
CREATE INDEX `idx_steps_step_type` ON `steps`(`step_type`);
PRAGMA user_version = 1;
"""
"""The conversation schema of agy 1.0.7 .. 1.2.11 (docs/store-format.md#database-schema), byte for byte; its schema
fingerprint is sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43."""

UNKNOWN_FIELD = bytes([0xB8, 0x3E, 0x01])
"""Field 999, wire type varint, value 1: appended to step payloads by ``unknown_fields=True``."""
EXPLICIT_DEFAULTS = bytes([0x88, 0x02, 0x00, 0xA8, 0x02, 0x00])
"""``no_tool_summary`` (33) and ``no_wait_for_previous_tools`` (37) encoded as varint 0, which proto3
serialisation never writes: what real planner configs of ``gen_metadata`` and ``executor_metadata``
rows carry (docs/store-format.md#explicit-defaults), appended to theirs by ``explicit_defaults=True``."""
_PLANNER_CONFIG = {"gen_metadata": (3,), "executor_metadata": (10, 1)}
"""Where a row's planner config is: field numbers from the row's message down."""

_STEP_SQL = (
    "INSERT INTO steps (idx, step_type, status, has_subtrajectory, metadata, error_details, permissions, task_details,"
    " render_info, step_payload, step_format) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)"
)


def write_conversation_db(
    path: str | os.PathLike[str],
    trajectory: dict[str, Any],
    *,
    wal: bool = False,
    uncheckpointed_steps: int = 0,
    internal_cascade_id: str | None = None,
    unknown_fields: bool = False,
    shm_without_wal: bool = False,
    explicit_defaults: bool = False,
) -> None:
    """Create the ``.db`` at *path* (which must not exist, nor its side files) holding *trajectory*.

    ``wal``: leave the database in WAL journal mode. ``uncheckpointed_steps`` (needs ``wal``):
    the last N steps are committed to ``<path>-wal`` only -- every connection is closed, and the
    ``-wal`` and ``-shm`` files stay beside the database as a live or crashed ``agy`` leaves
    them, so the main file alone lacks those rows. ``internal_cascade_id``: the value of
    ``trajectory_meta.cascade_id`` (default: the dict's ``cascadeId``), to make it differ from
    the file name. ``unknown_fields``: append ``UNKNOWN_FIELD`` to every ``step_payload``.
    ``shm_without_wal`` (needs ``wal``): then delete the ``-wal``, leaving the ``-shm`` -- a store
    copied without its ``-wal`` (5 of 26 real ones): the ``uncheckpointed_steps`` are lost, so the
    database lags behind its transcript. ``explicit_defaults``: every planner config of the
    ``gen_metadata`` and ``executor_metadata`` rows ends in ``EXPLICIT_DEFAULTS``, as in real stores.

    Raises ``ValueError`` for arguments that cannot be honoured, including a step ``type`` or
    ``status`` name the schema has no number for (pass the integer instead), and
    ``json_format.ParseError`` for values of the wrong JSON type.
    """
    if (uncheckpointed_steps or shm_without_wal) and not wal:
        raise ValueError(f"{'uncheckpointed_steps' if uncheckpointed_steps else 'shm_without_wal'} needs wal=True")
    stale = [s for s in ("-wal", "-shm", "-journal") if os.path.lexists(f"{os.fspath(path)}{s}")]
    if stale:  # SQLite would replay them into the new database
        raise ValueError(f"{os.fspath(path)}: leftover {', '.join(stale)} beside the new database")
    message = json_format.ParseDict(trajectory, pb.Trajectory(), ignore_unknown_fields=True)
    _check_step_enums(trajectory, message)
    if not 0 <= uncheckpointed_steps <= len(message.steps):
        raise ValueError(f"uncheckpointed_steps={uncheckpointed_steps}, but there are {len(message.steps)} steps")
    steps = [_step_row(i, step, unknown_fields) for i, step in enumerate(message.steps)]
    split = len(steps) - uncheckpointed_steps

    memory = sqlite3.connect(":memory:")
    try:
        memory.executescript(BASELINE_SCHEMA)
        cascade_id = message.cascade_id if internal_cascade_id is None else internal_cascade_id
        memory.execute(
            "INSERT INTO trajectory_meta VALUES (?, ?, ?, ?)",
            (message.trajectory_id, cascade_id, message.trajectory_type, message.source),
        )
        memory.executemany(_STEP_SQL, steps[:split])
        generations, executions = _blobs(message.generator_metadata), _blobs(message.executor_metadatas)
        if explicit_defaults:
            generations = [_with_defaults(data, _PLANNER_CONFIG["gen_metadata"]) for data in generations]
            executions = [_with_defaults(data, _PLANNER_CONFIG["executor_metadata"]) for data in executions]
        memory.executemany(
            "INSERT INTO gen_metadata (idx, data, size) VALUES (?, ?, ?)",
            [(i, data, len(data)) for i, data in enumerate(generations)],
        )
        memory.executemany("INSERT INTO executor_metadata VALUES (?, ?)", enumerate(executions))
        memory.executemany("INSERT INTO parent_references VALUES (?, ?)", enumerate(_blobs(message.parent_references)))
        if message.HasField("metadata"):
            memory.execute("INSERT INTO trajectory_metadata_blob VALUES ('main', ?)", _blobs([message.metadata]))
        memory.commit()
        create_durable_file(path, memory.serialize())
    finally:
        memory.close()
    if wal:
        _to_wal(Path(path), steps[split:], keep_shm=shm_without_wal)
        if shm_without_wal:
            Path(f"{os.fspath(path)}-wal").unlink(missing_ok=True)


def _check_step_enums(trajectory: dict[str, Any], message: pb.Trajectory) -> None:
    """``ParseDict`` silently zeroes enum names it does not know; the step columns need numbers."""
    for i, (doc, step) in enumerate(zip(trajectory.get("steps", ()), message.steps)):
        for key, number in (("type", step.type), ("status", step.status)):
            name = doc.get(key)
            if isinstance(name, str) and number == 0 and not name.endswith("_UNSPECIFIED"):
                raise ValueError(f"steps[{i}].{key}: {name!r} has no known number; pass the integer instead")


def _step_row(idx: int, step: pb.Step, unknown_fields: bool) -> tuple[object, ...]:
    payload = step.SerializeToString(deterministic=True) + (UNKNOWN_FIELD if unknown_fields else b"")
    columns = [_part(step, name) for name in ("metadata", "error", "permissions", "task_details")]
    render_info = None
    if (
        step.type == pb.CORTEX_STEP_TYPE_GENERIC  # the only steps known to carry it (38/38 real rows)
        and step.WhichOneof("step") == "generic"
        and step.generic.result.HasField("step_render_info")
    ):
        render_info = step.generic.result.step_render_info.SerializeToString(deterministic=True)
    return idx, step.type, step.status, int(step.HasField("subtrajectory")), *columns, render_info, payload


def _part(step: pb.Step, name: str) -> bytes | None:
    """The byte-identical column copy of one part of the step (NULL when the step has none)."""
    return getattr(step, name).SerializeToString(deterministic=True) if step.HasField(name) else None


def _blobs(messages: Iterable[Message]) -> list[bytes]:
    return [m.SerializeToString(deterministic=True) for m in messages]


def _with_defaults(data: bytes, path: tuple[int, ...]) -> bytes:
    """*data* (a serialized message) with ``EXPLICIT_DEFAULTS`` at the end of the message at field
    *path*, where it is set; every other field encoded as it was, in its place."""
    if not path:
        return data + EXPLICIT_DEFAULTS
    out = bytearray()
    for f in parse_wire(data, max_depth=0):
        out += encode_varint(f.number << 3 | f.wire_type)
        if isinstance(f.value, bytes):
            value = _with_defaults(f.value, path[1:]) if f.number == path[0] and f.wire_type == LEN else f.value
            out += encode_varint(len(value)) + value
        else:
            out += encode_varint(f.value) if f.wire_type == VARINT else f.value.to_bytes(8 if f.wire_type == I64 else 4, "little")
    return bytes(out)


def _to_wal(path: Path, pending: list[tuple[object, ...]], *, keep_shm: bool = False) -> None:
    """Switch *path* to WAL mode and commit *pending* step rows to its ``-wal`` only (with
    *keep_shm*, the side files stay even when nothing is pending)."""
    writer = sqlite3.connect(path, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        if not pending and not keep_shm:
            return  # closing the last connection checkpoints and removes -wal/-shm
        writer.execute("PRAGMA wal_autocheckpoint=0")
        for row in pending:  # one commit per step, as agy appends them
            writer.execute(_STEP_SQL, row)
        # A read-only connection that outlives the writer keeps it from checkpointing on close,
        # and cannot checkpoint itself: the committed frames stay in -wal.
        reader = sqlite3.connect(f"file:{quote(str(path.absolute()))}?mode=ro", uri=True)
        try:
            reader.execute("SELECT count(*) FROM steps").fetchone()
            writer.close()
        finally:
            reader.close()
    finally:
        writer.close()
