"""The catalogue (``MUTATIONS``, ``CATALOGUE``): each ``Mutation`` with what it imitates, the fact it
rests on, what a reader that notices it reads, and the change it makes; and a mutation as JSON
(``describe``)."""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.actions.mutate.edits import (
    chunk_files,
    columns_of,
    each_blob,
    each_database,
    each_history,
    each_record,
    edit_wire,
    gemini_dir,
    rewrite,
    set_varint,
    transcript_logs,
    without_field,
    write_chunks,
)
from audit.safeio import is_dir, is_file, path_kind, read_bytes
from audit.store.proto import cortex_pb2 as pb
from audit.store.transcript import CHUNK_DIRS, FLAT_NAMES


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
                payload = edit_wire(payload, (), set_varint(1, NEW_STEP_TYPE))
            con.execute("UPDATE steps SET step_type = ?, step_payload = ? WHERE idx = ?", (NEW_STEP_TYPE, payload, idx))
        return len(rows)

    return each_database(home, "*/conversations/*.db", steps) + each_record(home, _planner_v2)


def _drop_column(pattern: str, table: str, column: str) -> Callable[[Path], int]:
    def apply(home: Path) -> int:
        def drop(con: sqlite3.Connection) -> int:
            if column not in columns_of(con, table):
                return 0
            con.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
            return 1

        return each_database(home, pattern, drop)

    return apply


def _rename_column(pattern: str, table: str, old: str, new: str) -> Callable[[Path], int]:
    def apply(home: Path) -> int:
        def rename(con: sqlite3.Connection) -> int:
            if old not in columns_of(con, table):
                return 0
            con.execute(f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")
            return 1

        return each_database(home, pattern, rename)

    return apply


def _move_root(old: str, new: str) -> Callable[[Path], int]:
    def apply(home: Path) -> int:
        source, target = gemini_dir(home) / old, gemini_dir(home) / new
        if not is_dir(source) or path_kind(target, follow_symlinks=False) is not None:
            return 0
        source.rename(target)
        return 1

    return apply


def _cache_key(home: Path) -> int:
    changed = 0
    for path in sorted(gemini_dir(home).glob("*/cache/conversation_metadata.json")):
        data = read_bytes(path)
        if b'"WorkspaceURIs"' in data:
            rewrite(path, data.replace(b'"WorkspaceURIs"', b'"workspaceUris"'))
            changed += 1
    return changed


def _chunks_only(home: Path) -> int:
    """Every flat compact and full transcript becomes its chunks alone: the flat file is removed,
    and where the tier had no chunks its bytes are written as chunks (byte-identical to the flat
    file, as agy's are: docs/store-format.md#chunks). The files changed."""
    changed = 0
    for logs in transcript_logs(home):
        for tier, directory in CHUNK_DIRS.items():
            flat = logs / FLAT_NAMES[tier]
            if not is_file(flat):
                continue
            if not chunk_files(logs / "chunks" / directory):
                write_chunks(logs / "chunks" / directory, read_bytes(flat), 0, 8, [os.stat(flat).st_mtime_ns])
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
        lambda home: each_blob(home, "gen_metadata", "data", _USAGE, without_field(3)),
    ),
    Mutation(
        "new-model",
        "add an enum value (model 6001)",
        "a new model, whose number no reader's enum names",
        "docs/store-format.md#enums (model 1187, which no public enum names, in 24 real rows)",
        (("wire", "gen_metadata.data.chat_model.usage.model"),),
        lambda home: each_blob(home, "gen_metadata", "data", _USAGE, set_varint(1, NEW_MODEL)),
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
        lambda home: each_history(home, _rename_key("conversationId", "conversation_id")),
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


def describe(mutation: Mutation) -> dict[str, Any]:
    """A mutation as JSON (``mutate --list --format json``, ``index.json``)."""
    m = mutation
    return {"name": m.name, "title": m.title, "imitates": m.imitates, "restsOn": m.rests_on, "reads": [list(r) for r in m.reads]}
