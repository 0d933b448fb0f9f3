"""The mutation catalogue: plausible agy format changes, each applied to a private copy of a home.

A ``Mutation`` names a change agy could make in a release (a renamed key, a dropped column, a
moved root, a new enum value, another file layout ...), says what it imitates and which fact of
the format references it rests on, and the paths a reader that reads them would depend on
(``reads``, in the notation of consumer profiles). ``apply(home)`` changes the copy of a home in
place and returns how many things it changed (records, rows, files, directories): 0 means the store
holds nothing the mutation can change, so a reader run on the copy proves nothing about it.

The copy is ours (``store_copy.copy_stores``): files are rewritten through ``safeio.atomic_write``
keeping their modification time, ``.db`` files are changed in memory (a deserialized image) and
written back whole, and every directory keeps its time. Changed lines, rows and blobs are the
only bytes that differ: an unchanged transcript line keeps its bytes, and a protobuf blob is
edited on the wire, field by field, so that fields a mutation does not touch keep their bytes
(real stores hold explicit default values a parse and re-serialisation would drop:
docs/store-format.md#explicit-defaults).

``CATALOGUE`` lists the mutations in the order reports show them; docs/consumers.md ("Conformance for any
reader") shows the same table (a test holds them equal).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.actions.store_copy import copy_stores, remove_tree
from audit.errors import InputError
from audit.progress import Callback, tracked
from audit.safeio import atomic_write, exists, is_dir, is_file, make_private_dir, path_kind, read_bytes
from audit.store import wire
from audit.store.proto import cortex_pb2 as pb
from audit.store.transcript import CHUNK_BYTES, CHUNK_DIRS, FLAT_NAMES
from audit.strictjson import dumps

Fields = list[wire.WireField]


@dataclass(frozen=True)
class Mutation:
    """One plausible format change. ``reads``: (surface, path) of what a reader that notices it
    reads, as a consumer profile names it (``surface`` of ``consumers/*.json``); empty for a
    mutation that only adds (a reader it changes reads what it did not know)."""

    name: str  # what --mutation takes
    title: str  # one line: what changes, and where
    imitates: str  # the agy release change it stands for
    rests_on: str  # the fact of the format references it rests on
    reads: tuple[tuple[str, str], ...]
    apply: Callable[[Path], int]


# ----------------------------------------------------------------------------- files of a copy


def _gemini(home: Path) -> Path:
    return home / ".gemini"


def _rewrite(path: Path, data: bytes) -> None:
    """Replace the file *path* of a copy with *data*, keeping its modification time."""
    atomic_write(path, data, mtime_ns=os.stat(path, follow_symlinks=False).st_mtime_ns)


@contextlib.contextmanager
def _directory_times(home: Path) -> Iterator[None]:
    """Give every directory of the copy its time from before back (a rename or a new file in it
    changes it): a reader that dates sessions by their directories sees what agy would leave."""
    before = {}
    for directory, _, _ in os.walk(_gemini(home)):
        before[directory] = os.stat(directory).st_mtime_ns
    yield
    for directory, mtime in sorted(before.items(), key=lambda item: -item[0].count(os.sep)):
        with contextlib.suppress(FileNotFoundError):
            os.utime(directory, ns=(mtime, mtime))


# ----------------------------------------------------------------------------- JSON lines


def _each_line(data: bytes, change: Callable[[dict[str, Any]], bool]) -> tuple[bytes, int]:
    """*data* (JSON lines) with *change* applied to every line holding a JSON object; a line it
    does not change, and one that is no JSON object (a torn line, a piece at a chunk boundary),
    keeps its bytes. Changed lines are written as agy writes them (compact, UTF-8)."""
    lines = data.split(b"\n")
    changed = 0
    for i, line in enumerate(lines):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and change(record):
            lines[i] = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
            changed += 1
    return b"\n".join(lines), changed


def _logs(home: Path) -> list[Path]:
    """Every brain's ``.system_generated/logs`` directory in the copy."""
    return sorted(p for p in _gemini(home).glob("*/brain/*/.system_generated/logs") if is_dir(p))


def _chunks(directory: Path) -> list[Path]:
    """The chunk files of a tier, in stream order (named by their number, docs/store-format.md#chunks)."""
    found = [p for p in directory.glob("*.jsonl") if p.stem.isdigit()]
    return sorted(found, key=lambda p: int(p.stem))


def _write_chunks(directory: Path, data: bytes, first: int, width: int, mtimes: list[int]) -> None:
    """*data* as the chunks of a tier: split every ``CHUNK_BYTES``, mid-line, as agy rolls them;
    part N gets the N-th time of *mtimes* (the last one when there are more parts)."""
    if not is_dir(directory):
        directory.mkdir(mode=0o700, parents=True)
    pieces = [data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)] or [b""]
    for n, piece in enumerate(pieces):
        atomic_write(directory / f"{first + n:0{width}d}.jsonl", piece, mtime_ns=mtimes[min(n, len(mtimes) - 1)])


def each_record(home: Path, change: Callable[[dict[str, Any]], bool]) -> int:
    """Apply *change* to every transcript record of the copy (flat files, ``overview.txt`` and
    chunks, each tier's chunks as one stream, re-split where agy splits); the records changed."""
    changed = 0
    for logs in _logs(home):
        for name in FLAT_NAMES.values():
            if is_file(logs / name):
                data, n = _each_line(read_bytes(logs / name), change)
                if n:
                    _rewrite(logs / name, data)
                changed += n
        for directory in CHUNK_DIRS.values():
            parts = _chunks(logs / "chunks" / directory)
            if not parts:
                continue
            data, n = _each_line(b"".join(read_bytes(p) for p in parts), change)
            if n:
                mtimes = [os.stat(p).st_mtime_ns for p in parts]
                for part in parts:
                    part.unlink()
                _write_chunks(parts[0].parent, data, int(parts[0].stem), len(parts[0].stem), mtimes)
            changed += n
    return changed


def _each_history(home: Path, change: Callable[[dict[str, Any]], bool]) -> int:
    changed = 0
    for path in sorted(_gemini(home).glob("*/history.jsonl")):
        data, n = _each_line(read_bytes(path), change)
        if n:
            _rewrite(path, data)
        changed += n
    return changed


# ----------------------------------------------------------------------------- SQLite and protobuf


def each_database(home: Path, pattern: str, change: Callable[[sqlite3.Connection], int]) -> int:
    """Apply *change* (returning what it changed) to every ``.db`` of the copy matching *pattern*
    (below ``.gemini``), in memory; a changed image replaces the file."""
    changed = 0
    for path in sorted(_gemini(home).glob(pattern)):
        if exists(f"{path}-wal"):
            raise InputError(f"{path}-wal: a copy holds no -wal (its pages are in the .db image); not changed")
        con = sqlite3.connect(":memory:")
        try:
            con.deserialize(read_bytes(path))
            n = change(con)
            if n:
                con.commit()
                _rewrite(path, con.serialize())
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{path}: cannot change the copy ({exc})") from None
        finally:
            con.close()
        changed += n
    return changed


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in con.execute(f"PRAGMA table_info({table})")}


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if not value:
            out.append(byte)
            return bytes(out)
        out.append(byte | 0x80)


def _field_bytes(f: wire.WireField) -> bytes:
    key = _varint(f.number << 3 | f.wire_type)
    if f.wire_type == wire.VARINT:
        return key + _varint(int(f.value))
    if f.wire_type in (wire.I64, wire.I32):
        return key + int(f.value).to_bytes(8 if f.wire_type == wire.I64 else 4, "little")
    return key + _varint(len(f.value)) + bytes(f.value)  # type: ignore[arg-type]  # a len value is bytes


def edit_wire(data: bytes, path: tuple[int, ...], change: Callable[[Fields], Fields]) -> bytes:
    """The protobuf message *data* with *change* applied to the fields of the sub-message at
    *path* (field numbers; each a length-delimited field, every occurrence). Every other field
    keeps its bytes; bytes that are no message at *path* are returned as they are."""
    try:
        fields = list(wire.parse(data, max_depth=0))
    except wire.WireError:
        return data
    if path:
        fields = [
            f._replace(value=edit_wire(f.value, path[1:], change))  # type: ignore[arg-type]  # a len value is bytes
            if f.number == path[0] and f.wire_type == wire.LEN
            else f
            for f in fields
        ]
    else:
        fields = change(fields)
    return b"".join(_field_bytes(f) for f in fields)


def each_blob(home: Path, table: str, column: str, path: tuple[int, ...], change: Callable[[Fields], Fields]) -> int:
    """Apply *change* at *path* to the blob in *column* of every row of *table* in every
    conversation ``.db`` of the copy; the rows changed."""

    def rows(con: sqlite3.Connection) -> int:
        if column not in _columns(con, table):
            return 0
        changed = 0
        for idx, data in con.execute(f"SELECT idx, {column} FROM {table}").fetchall():
            if isinstance(data, bytes) and (edited := edit_wire(data, path, change)) != data:
                con.execute(f"UPDATE {table} SET {column} = ? WHERE idx = ?", (edited, idx))
                changed += 1
        return changed

    return each_database(home, "*/conversations/*.db", rows)


def _set(number: int, value: int) -> Callable[[Fields], Fields]:
    """Give the varint field *number* the value *value* where it is set."""
    return lambda fields: [f._replace(value=value) if f.number == number and f.wire_type == wire.VARINT else f for f in fields]


def _without(number: int) -> Callable[[Fields], Fields]:
    return lambda fields: [f for f in fields if f.number != number]


# ----------------------------------------------------------------------------- the mutations

_USAGE = (1, 4)  # CortexStepGeneratorMetadata.chat_model (1) .usage (4)
_PLANNER = pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE
NEW_STEP_TYPE = 999  # no CortexStepType number cortex.proto names
NEW_MODEL = 6001  # no Model number cortex.proto names, outside the [1000, 5000) range one reader keeps


def _rename_key(old: str, new: str) -> Callable[[dict[str, Any]], bool]:
    def change(record: dict[str, Any]) -> bool:
        if old not in record:
            return False
        items = list(record.items())  # the new name where the old one was
        record.clear()
        record.update((new if key == old else key, value) for key, value in items)
        return True

    return change


def _step_index_text(record: dict[str, Any]) -> bool:
    if not isinstance(record.get("step_index"), int):
        return False
    record["step_index"] = str(record["step_index"])
    return True


def _planner_v2(record: dict[str, Any]) -> bool:
    if record.get("type") != "PLANNER_RESPONSE" or not isinstance(record.get("step_index"), int) or record["step_index"] % 2 == 0:
        return False
    record["type"] = "PLANNER_RESPONSE_V2"
    return True


def _model_v2(record: dict[str, Any]) -> bool:
    if record.get("source") != "MODEL" or not isinstance(record.get("step_index"), int) or record["step_index"] % 3:
        return False
    record["source"] = "MODEL_V2"
    return True


def _new_step_type(home: Path) -> int:
    """Every other planner step (odd index) becomes type 999, in the ``steps`` column and the
    payload's own type field (Step.1, equal to the column in every real row: docs/store-format.md#column-copies),
    and ``PLANNER_RESPONSE_V2`` in the transcripts."""

    def steps(con: sqlite3.Connection) -> int:
        rows = con.execute("SELECT idx, step_payload FROM steps WHERE step_type = ? AND idx % 2 = 1", (_PLANNER,)).fetchall()
        for idx, payload in rows:
            if isinstance(payload, bytes):
                payload = edit_wire(payload, (), _set(1, NEW_STEP_TYPE))
            con.execute("UPDATE steps SET step_type = ?, step_payload = ? WHERE idx = ?", (NEW_STEP_TYPE, payload, idx))
        return len(rows)

    return each_database(home, "*/conversations/*.db", steps) + each_record(home, _planner_v2)


def _drop_column(pattern: str, table: str, column: str) -> Callable[[Path], int]:
    def apply(home: Path) -> int:
        def drop(con: sqlite3.Connection) -> int:
            if column not in _columns(con, table):
                return 0
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
            return 1

        return each_database(home, pattern, drop)

    return apply


def _rename_column(pattern: str, table: str, old: str, new: str) -> Callable[[Path], int]:
    def apply(home: Path) -> int:
        def rename(con: sqlite3.Connection) -> int:
            if old not in _columns(con, table):
                return 0
            con.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")
            return 1

        return each_database(home, pattern, rename)

    return apply


def _move_root(old: str, new: str) -> Callable[[Path], int]:
    def apply(home: Path) -> int:
        source, target = _gemini(home) / old, _gemini(home) / new
        if not is_dir(source) or path_kind(target, follow_symlinks=False) is not None:
            return 0
        source.rename(target)
        return 1

    return apply


def _cache_key(home: Path) -> int:
    changed = 0
    for path in sorted(_gemini(home).glob("*/cache/conversation_metadata.json")):
        data = read_bytes(path)
        if b'"WorkspaceURIs"' in data:
            _rewrite(path, data.replace(b'"WorkspaceURIs"', b'"workspaceUris"'))
            changed += 1
    return changed


def _chunks_only(home: Path) -> int:
    """Every flat compact and full transcript becomes its chunks alone: the flat file is removed,
    and where the tier had no chunks its bytes are written as chunks (byte-identical to the flat
    file, as agy's are: docs/store-format.md#chunks). The files changed."""
    changed = 0
    for logs in _logs(home):
        for tier, directory in CHUNK_DIRS.items():
            flat = logs / FLAT_NAMES[tier]
            if not is_file(flat):
                continue
            if not _chunks(logs / "chunks" / directory):
                _write_chunks(logs / "chunks" / directory, read_bytes(flat), 0, 8, [os.stat(flat).st_mtime_ns])
            flat.unlink()
            changed += 1
    return changed


def _skipped_status(record: dict[str, Any]) -> bool:
    """A RUN_COMMAND step that was DONE."""
    if record.get("status") != "DONE" or record.get("type") != "RUN_COMMAND":
        return False
    record["status"] = "SKIPPED"
    return True


def _source_in_metadata(record: dict[str, Any]) -> bool:
    """``source`` moves into a ``metadata`` object, where it was."""
    if "source" not in record or "metadata" in record:
        return False
    items = list(record.items())
    record.clear()
    record.update(("metadata", {"source": value}) if key == "source" else (key, value) for key, value in items)
    return True


def _execution_id(record: dict[str, Any]) -> bool:
    """Every record gains ``execution_id`` (a UUID of its step index: the value is ours, the key
    is the change), after its other keys."""
    if "execution_id" in record or not isinstance(record.get("step_index"), int):
        return False
    record["execution_id"] = str(uuid.uuid5(uuid.NAMESPACE_OID, str(record["step_index"])))
    return True


MUTATIONS: tuple[Mutation, ...] = (
    Mutation(
        "rename-transcript-key",
        "rename a transcript key (created_at -> createdAt)",
        "transcripts written with the lowerCamelCase JSON names of proto3, as the trajectory JSON already is",
        "docs/store-format.md#transcript-records (snake_case record keys) and docs/store-format.md#sidecar (the trajectory's metadata.createdAt)",
        (("transcript", "*.*.created_at"),),
        lambda home: each_record(home, _rename_key("created_at", "createdAt")),
    ),
    Mutation(
        "step-index-as-string",
        "change a type (step_index as a string)",
        "a 64-bit step index written as proto3 JSON writes int64 values: as a string",
        "docs/store-format.md#transcript-records (step_index an int) and the proto3 JSON mapping of int64",
        (("transcript", "*.*.step_index"),),
        lambda home: each_record(home, _step_index_text),
    ),
    Mutation(
        "drop-output-tokens",
        "drop a field (usage output tokens)",
        "a release that stops writing the total output tokens, keeping the thinking and response counts",
        "cortex.proto ModelUsageStats: output_tokens (3) beside thinking_output_tokens (9) and response_output_tokens (10)",
        (("wire", "gen_metadata.data.chat_model.usage.output_tokens"),),
        lambda home: each_blob(home, "gen_metadata", "data", _USAGE, _without(3)),
    ),
    Mutation(
        "new-model",
        "add an enum value (model 6001)",
        "a new model, whose number no reader's enum names",
        "docs/store-format.md#enums (model 1187, which no public enum names, in 24 real rows)",
        (("wire", "gen_metadata.data.chat_model.usage.model"),),
        lambda home: each_blob(home, "gen_metadata", "data", _USAGE, _set(1, NEW_MODEL)),
    ),
    Mutation(
        "new-step-type",
        "add a step type (999, PLANNER_RESPONSE_V2 in transcripts, for half the planner steps)",
        "a new kind of planner step, as GENERIC (132) and ASK_QUESTION (138) came after the enum readers copied",
        "docs/store-format.md#enums (GENERIC and ASK_QUESTION, absent from the 1.19.6 descriptor)",
        (("sqlite", "table:steps.step_type"), ("transcript", "*.type")),
        _new_step_type,
    ),
    Mutation(
        "new-source",
        "add a source value (MODEL_V2 in transcripts)",
        "a new CortexStepSource, as SYSTEM_SDK (6) came after Windsurf's",
        "docs/store-format.md#enums (step sources) and docs/store-format.md#transcript-records (names written without their prefix)",
        (("transcript", "*.source"),),
        lambda home: each_record(home, _model_v2),
    ),
    Mutation(
        "drop-steps-metadata",
        "drop a column (steps.metadata)",
        "a schema that drops the metadata column, a byte copy of the payload's field 5",
        "docs/store-format.md#column-copies (steps.metadata == step_payload.5 in 2415/2415 rows)",
        (("sqlite", "table:steps.metadata"),),
        _drop_column("*/conversations/*.db", "steps", "metadata"),
    ),
    Mutation(
        "rename-cli-root",
        "move a root (antigravity-cli -> antigravity-agent)",
        "the CLI's store moving to a directory of another name, as the IDE's did (antigravity, antigravity-ide)",
        "docs/store-format.md#roots (root names seen)",
        (("roots", "antigravity-cli"),),
        _move_root("antigravity-cli", "antigravity-agent"),
    ),
    Mutation(
        "rename-cache-key",
        "rename a cache key (conversation_metadata.json WorkspaceURIs -> workspaceUris)",
        "the IDE cache written with lowerCamelCase JSON names instead of Go field names",
        "docs/store-format.md#roots (cache/conversation_metadata.json summary.WorkspaceURIs)",
        (("cache", "conversation_metadata.json.conversations.*.summary.WorkspaceURIs"),),
        _cache_key,
    ),
    Mutation(
        "rename-history-key",
        "rename a history key (conversationId -> conversation_id)",
        "history.jsonl written with the snake_case keys the transcripts use",
        "docs/store-format.md#roots (history.jsonl keys conversationId, display, timestamp, workspace, type)",
        (("history", "conversationId"),),
        lambda home: _each_history(home, _rename_key("conversationId", "conversation_id")),
    ),
    Mutation(
        "rename-summaries-column",
        "rename a summaries column (workspace_uris -> workspace_folders)",
        "a conversation index that names a session's workspaces as the IDE names them (folders)",
        "docs/store-format.md#roots and the bundled profiles' conversation_summaries columns",
        (("summaries", "table:conversation_summaries.workspace_uris"),),
        _rename_column("*/conversation_summaries.db", "conversation_summaries", "workspace_uris", "workspace_folders"),
    ),
    Mutation(
        "chunks-only",
        "write transcripts as chunks only (no transcript.jsonl, transcript_full.jsonl)",
        "a release that writes only the rolling chunks of each tier, as one real session already has",
        "docs/store-format.md#chunks (chunks byte-identical to the flat file; one session has chunks and no flat transcript)",
        (
            ("layout", "brain/*/.system_generated/logs/transcript.jsonl"),
            ("layout", "brain/*/.system_generated/logs/transcript_full.jsonl"),
        ),
        _chunks_only,
    ),
    Mutation(
        "new-status",
        "add a status value (SKIPPED in transcripts, for the RUN_COMMAND steps that were DONE)",
        "a new CortexStepStatus for a command the agent did not run, as Windsurf has SKIPPING",
        "docs/store-format.md#enums (step statuses: DONE, RUNNING, ERROR seen; Windsurf's 11 SKIPPING)",
        (("transcript", "*.*.status"),),
        lambda home: each_record(home, _skipped_status),
    ),
    Mutation(
        "move-source",
        "move a transcript field (source -> metadata.source)",
        "transcripts nesting a step's provenance as the trajectory JSON does, under metadata",
        "docs/store-format.md#transcript-records (source a top-level key) and docs/store-format.md#sidecar (the trajectory's step metadata.source)",
        (("transcript", "*.*.source"),),
        lambda home: each_record(home, _source_in_metadata),
    ),
    Mutation(
        "add-transcript-key",
        "add a transcript key (execution_id on every record)",
        "a release that adds a key to every record, as exit_code and error_code were added",
        "docs/store-format.md#transcript-records (exit_code and error_code: newer builds) and docs/store-format.md#step-metadata (the .db's execution_id, meta.12)",
        (),
        lambda home: each_record(home, _execution_id),
    ),
)
"""The catalogue, in the order reports show it."""

CATALOGUE: dict[str, Mutation] = {m.name: m for m in MUTATIONS}


def apply_mutation(mutation: Mutation, home: Path) -> int:
    """Apply *mutation* to the copy *home*, directory times kept; what it changed (0: nothing)."""
    with _directory_times(home):
        return mutation.apply(home)


def describe(mutation: Mutation) -> dict[str, Any]:
    """A mutation as JSON (``mutate --list --format json``, ``index.json``)."""
    m = mutation
    return {"name": m.name, "title": m.title, "imitates": m.imitates, "restsOn": m.rests_on, "reads": [list(r) for r in m.reads]}


INDEX = "index.json"
ORIGINAL = "original"
"""``<out>/original/home``: the copy every mutated copy starts from."""


def write_copies(
    home: str | os.PathLike[str], out: str | os.PathLike[str], mutations: Sequence[Mutation], *, progress: Callback | None = None
) -> dict[str, Any]:
    """Copy the stores of *home* to ``<out>/original/home`` and, per mutation that changes
    something, to ``<out>/<name>/home`` with it applied; then write ``<out>/index.json`` (last: a
    directory without it is incomplete) and return it. *out* must not exist. *progress* is told
    before each mutation."""
    out = Path(out)
    if path_kind(out, follow_symlinks=False) is not None:
        raise InputError(f"{out}: already exists; give a directory that does not")
    make_private_dir(out)
    original = out / ORIGINAL / "home"
    copied = copy_stores(home, original)
    entries = []
    for m in tracked(mutations, progress, lambda m: m.name):
        target = out / m.name / "home"
        copy_stores(original, target)
        changed = apply_mutation(m, target)
        if not changed:
            remove_tree(out / m.name)
        entries.append(describe(m) | {"changed": changed, "home": f"{m.name}/home" if changed else None})
    index = {
        "version": 1,
        "source": str(Path(home).absolute()),
        "original": f"{ORIGINAL}/home",
        "roots": copied.roots,
        "files": copied.files,
        "skipped": [{"path": p, "reason": r} for p, r in copied.skipped],
        "mutations": entries,
    }
    atomic_write(out / INDEX, dumps(index).encode() + b"\n")
    return index
