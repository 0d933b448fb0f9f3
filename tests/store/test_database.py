from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.store import database as sqlite_store
from audit.store.database import TABLES, read_database, schema_fingerprint
from audit.testing.dbwriter import BASELINE_SCHEMA, write_conversation_db

BASELINE_FINGERPRINT = "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43"


def _trajectory(steps: int, cascade_id: str = "0d7c9f8e-5b1a-4c3d-9e2f-1a2b3c4d5e6f") -> dict:
    return {
        "trajectoryId": "7f6e5d4c-3b2a-4190-8a7b-6c5d4e3f2a1b",
        "cascadeId": cascade_id,
        "trajectoryType": "CORTEX_TRAJECTORY_TYPE_CASCADE",
        "source": "CORTEX_TRAJECTORY_SOURCE_CLI",
        "steps": [
            {
                "type": "CORTEX_STEP_TYPE_USER_INPUT" if i % 2 == 0 else "CORTEX_STEP_TYPE_PLANNER_RESPONSE",
                "status": "CORTEX_STEP_STATUS_DONE",
                "metadata": {"createdAt": f"2026-09-01T09:00:{i:02d}.123456789Z"},
                **(
                    {"userInput": {"userResponse": f"prompt {i}"}}
                    if i % 2 == 0
                    else {"plannerResponse": {"response": f"answer {i}"}}
                ),
            }
            for i in range(steps)
        ],
        "generatorMetadata": [{"stepIndices": [i], "executionId": f"e{i}"} for i in range(1, steps, 2)],
        "executorMetadatas": [{"numGeneratorInvocations": 1, "lastStepIdx": max(steps - 1, 1)}],
        "metadata": {"createdAt": "2026-09-01T08:59:59.000000001Z"},
    }


def _listing(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def _step_count_in_main_file(path: Path) -> int:
    conn = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute("SELECT count(*) FROM steps").fetchone()[0]
    finally:
        conn.close()


def test_baseline_schema_has_the_published_fingerprint(tmp_path):
    write_conversation_db(tmp_path / "a.db", _trajectory(2))
    conv = read_database(tmp_path / "a.db")
    assert conv.user_version == 1
    assert schema_fingerprint(conv.schema, conv.user_version) == BASELINE_FINGERPRINT
    assert [(o.type, o.name) for o in conv.schema] == [
        ("index", "idx_steps_status"),
        ("index", "idx_steps_step_type"),
        ("index", "sqlite_autoindex_trajectory_meta_1"),
        ("index", "sqlite_autoindex_trajectory_metadata_blob_1"),
        ("table", "battle_mode_infos"),
        ("table", "executor_metadata"),
        ("table", "gen_metadata"),
        ("table", "parent_references"),
        ("table", "steps"),
        ("table", "trajectory_meta"),
        ("table", "trajectory_metadata_blob"),
    ]
    steps = next(o for o in conv.schema if o.name == "steps")
    assert [c[1] for c in steps.columns] == [
        "idx",
        "step_type",
        "status",
        "has_subtrajectory",
        "metadata",
        "error_details",
        "permissions",
        "task_details",
        "render_info",
        "step_payload",
        "step_format",
    ]
    assert sorted(i[1] for i in steps.indexes) == ["idx_steps_status", "idx_steps_step_type"]
    # A different user_version or DDL gives a different fingerprint.
    assert schema_fingerprint(conv.schema, 2) != BASELINE_FINGERPRINT
    assert schema_fingerprint(conv.schema[1:], 1) != BASELINE_FINGERPRINT


def test_the_ddl_constant_is_the_agy_schema_text():
    statements = [s for s in BASELINE_SCHEMA.split(";\n") if s.strip()]
    assert len(statements) == 10 and statements[-1] == "PRAGMA user_version = 1"
    assert all(s.startswith(("CREATE TABLE `", "CREATE INDEX `", "PRAGMA")) for s in statements)


def test_rows_columns_and_ids_are_read(tmp_path):
    write_conversation_db(tmp_path / "conv.db", _trajectory(5), internal_cascade_id="internal-id")
    conv = read_database(tmp_path / "conv.db")
    assert (conv.access, conv.findings) == ("ro", [])
    assert conv.row_counts == {
        "battle_mode_infos": 0,
        "executor_metadata": 1,
        "gen_metadata": 2,
        "parent_references": 0,
        "steps": 5,
        "trajectory_meta": 1,
        "trajectory_metadata_blob": 1,
    }
    assert conv.internal_cascade_id == "internal-id"
    assert conv.tables["trajectory_meta"] == [
        {
            "trajectory_id": "7f6e5d4c-3b2a-4190-8a7b-6c5d4e3f2a1b",
            "cascade_id": "internal-id",
            "trajectory_type": 4,
            "source": 17,
        }
    ]
    assert [(r["idx"], r["step_type"], r["status"], r["step_format"]) for r in conv.steps] == [
        (0, 14, 3, 0),
        (1, 15, 3, 0),
        (2, 14, 3, 0),
        (3, 15, 3, 0),
        (4, 14, 3, 0),
    ]
    assert all(isinstance(r["step_payload"], bytes) and isinstance(r["metadata"], bytes) for r in conv.steps)
    assert [r["size"] == len(r["data"]) for r in conv.tables["gen_metadata"]] == [True, True]


def test_writer_output_is_deterministic(tmp_path):
    for name, wal in (("a", False), ("b", False), ("c", True), ("d", True)):
        write_conversation_db(tmp_path / f"{name}.db", _trajectory(6), wal=wal, unknown_fields=True)
    read = lambda name: (tmp_path / f"{name}.db").read_bytes()  # noqa: E731
    assert read("a") == read("b") and read("c") == read("d") and read("a") != read("c")
    assert _listing(tmp_path) == ["a.db", "b.db", "c.db", "d.db"]


def test_wal_only_rows_are_seen_without_creating_files(tmp_path):
    path = tmp_path / "live.db"
    write_conversation_db(path, _trajectory(7), wal=True, uncheckpointed_steps=3)
    assert _listing(tmp_path) == ["live.db", "live.db-shm", "live.db-wal"]
    assert (tmp_path / "live.db-wal").stat().st_size > 0
    assert _step_count_in_main_file(path) == 4  # the last 3 steps live only in -wal
    conv = read_database(path)
    assert (conv.access, conv.findings, len(conv.steps)) == ("ro", [], 7)
    assert _listing(tmp_path) == ["live.db", "live.db-shm", "live.db-wal"]
    assert _step_count_in_main_file(path) == 4  # nothing was checkpointed


def test_wal_without_shm_is_read_from_a_private_copy(tmp_path, monkeypatch):
    path = tmp_path / "crashed.db"
    write_conversation_db(path, _trajectory(5), wal=True, uncheckpointed_steps=2)
    (tmp_path / "crashed.db-shm").unlink()
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    conv = read_database(path)
    assert (conv.access, conv.findings, len(conv.steps)) == ("copy", [], 5)
    assert _listing(tmp_path) == ["crashed.db", "crashed.db-wal", "tmp"]
    assert _listing(scratch) == []  # the copy is gone


def test_wal_mode_without_side_files_opens_immutable(tmp_path):
    path = tmp_path / "idle.db"
    write_conversation_db(path, _trajectory(4), wal=True)
    assert _listing(tmp_path) == ["idle.db"]
    conv = read_database(path)
    assert (conv.access, conv.findings, len(conv.steps)) == ("immutable", [], 4)
    assert _listing(tmp_path) == ["idle.db"]


def test_a_read_is_one_snapshot_while_another_connection_writes(tmp_path, monkeypatch):
    path = tmp_path / "busy.db"
    write_conversation_db(path, _trajectory(4), wal=True)
    writer = sqlite3.connect(path, isolation_level=None, timeout=0)  # a live agy
    writer.execute("INSERT INTO steps (idx, step_type, status) VALUES (4, 14, 3)")
    writes = []
    select = sqlite_store._select_rows

    def select_then_write(conn, table):
        rows = select(conn, table)
        if table.name == "executor_metadata":  # early in the (type, name) order
            n = 5 + len(writes)
            writer.execute("BEGIN IMMEDIATE")  # would fail at once if the reader held a lock
            writer.execute("INSERT INTO steps (idx, step_type, status) VALUES (?, 15, 3)", (n,))
            writer.execute("INSERT INTO gen_metadata (idx, data) VALUES (?, x'2205')", (n,))
            writer.execute("COMMIT")
            writes.append(n)
        return rows

    monkeypatch.setattr(sqlite_store, "_select_rows", select_then_write)
    try:
        first = read_database(path)
        second = read_database(path)
    finally:
        writer.close()
    assert writes == [5, 6]
    assert (first.access, first.findings) == ("ro", [])
    assert (first.row_counts["steps"], first.row_counts["gen_metadata"]) == (5, 2)
    assert (second.row_counts["steps"], second.row_counts["gen_metadata"]) == (6, 3)


def test_a_database_locked_by_another_process_is_a_finding(tmp_path):
    path = tmp_path / "locked.db"
    write_conversation_db(path, _trajectory(2))
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        conv = read_database(path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert conv.access == "" and conv.tables == {}
    assert [f.code for f in conv.findings] == ["locked"]
    assert conv.findings[0].message.startswith(f"{path}: database is locked")


def test_an_exclusive_writer_does_not_block_a_wal_reader(tmp_path):
    path = tmp_path / "wal.db"
    write_conversation_db(path, _trajectory(3), wal=True)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    holder.execute("INSERT INTO steps (idx, step_type, status) VALUES (3, 14, 3)")
    try:
        conv = read_database(path)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    # the writer's -wal is still empty: read from a private copy (SQLite would reset its mode)
    assert (conv.access, conv.findings, len(conv.steps)) == ("copy", [], 3)


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (b"", "empty"),
        (b"hello world\n" * 20, "not-sqlite"),
        (b"SQLite format 3\x00" + b"\x10\x00", "truncated"),
        (b"SQLite for", "truncated"),
    ],
)
def test_files_that_are_not_databases_are_findings(tmp_path, content, code):
    path = tmp_path / "x.db"
    path.write_bytes(content)
    conv = read_database(path)
    assert ([f.code for f in conv.findings], conv.access) == ([code], "")


def test_a_missing_file_is_a_finding(tmp_path):
    conv = read_database(tmp_path / "gone.db")
    assert [f.code for f in conv.findings] == ["unreadable"]
    assert "gone.db: cannot read (No such file or directory)" in conv.findings[0].message


@functools.cache
def _valid_db() -> bytes:
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "v.db"
        write_conversation_db(path, _trajectory(40))
        return path.read_bytes()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cut=st.integers(0, 40 * 4096))
def test_any_truncation_is_reported_as_truncated(tmp_path, cut):
    valid_db = _valid_db()
    cut = min(cut, len(valid_db) - 1)
    path = tmp_path / "t.db"
    path.write_bytes(valid_db[:cut])
    assert [f.code for f in read_database(path).findings] == ["empty" if cut == 0 else "truncated"]


def test_damaged_pages_are_reported_as_corrupt(tmp_path):
    page = 4096
    damaged = bytearray(_valid_db())
    damaged[2 * page : 2 * page + 64] = b"\xa5" * 64
    (tmp_path / "c.db").write_bytes(bytes(damaged))
    conv = read_database(tmp_path / "c.db")
    assert [f.code for f in conv.findings] == ["corrupt"]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.integers(0, 40 * 4096), st.binary(min_size=1, max_size=32)), min_size=1, max_size=4))
def test_random_damage_never_raises(tmp_path, patches):
    damaged = bytearray(_valid_db())
    for offset, data in patches:
        offset = min(offset, len(damaged) - len(data))
        damaged[offset : offset + len(data)] = data
    (tmp_path / "d.db").write_bytes(bytes(damaged))
    conv = read_database(tmp_path / "d.db")
    assert conv.access in ("ro", "")
    assert all(f.code in {"corrupt", "not-sqlite", "truncated", "unreadable", "missing-table"} for f in conv.findings)


def test_an_empty_sqlite_database_lacks_every_table(tmp_path):
    conn = sqlite3.connect(tmp_path / "blank.db")
    conn.execute("CREATE TABLE other (x)")
    conn.close()
    conv = read_database(tmp_path / "blank.db")
    assert [f.code for f in conv.findings] == ["missing-table"] * len(TABLES)
    assert conv.tables == {"other": []}


def test_odd_characters_in_the_path_are_quoted(tmp_path):
    directory = tmp_path / "we?ird #dir %20"
    directory.mkdir()
    write_conversation_db(directory / "a b?.db", _trajectory(2))
    conv = read_database(directory / "a b?.db")
    assert (conv.access, conv.findings, len(conv.steps)) == ("ro", [], 2)


def _read_in_readonly_directory(directory: Path, names: list[str]) -> list:
    """Read each database in a forked child for which *directory* is read-only.

    Root ignores directory permissions, so a root child first drops to uid/gid 65534. The first
    result says whether the child could write to the directory.
    """
    os.chmod(directory, 0o555)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child
        status = 1
        try:
            os.close(read_end)
            if os.geteuid() == 0:
                os.setgid(65534)
                os.setuid(65534)
            results = [os.access(directory, os.W_OK)]
            for name in names:
                conv = read_database(directory / name)
                results.append([conv.access, len(conv.steps), [f.code for f in conv.findings]])
            os.write(write_end, json.dumps(results).encode())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as fh:
        output = fh.read()
    _, status = os.waitpid(pid, 0)
    os.chmod(directory, 0o755)
    assert status == 0
    return json.loads(output)


def test_a_read_only_store_directory_is_read_without_new_files():
    directory = Path(tempfile.mkdtemp(prefix="agy-audit-ro-store-"))
    try:
        write_conversation_db(directory / "rollback.db", _trajectory(3))
        write_conversation_db(directory / "idle.db", _trajectory(4), wal=True)
        write_conversation_db(directory / "live.db", _trajectory(5), wal=True, uncheckpointed_steps=2)
        write_conversation_db(directory / "crashed.db", _trajectory(6), wal=True, uncheckpointed_steps=2)
        (directory / "crashed.db-shm").unlink()
        for path in directory.iterdir():
            os.chmod(path, 0o644)
        before = _listing(directory)
        results = _read_in_readonly_directory(directory, ["rollback.db", "idle.db", "live.db", "crashed.db"])
        assert _listing(directory) == before
    finally:
        os.chmod(directory, 0o755)
        shutil.rmtree(directory)
    writable, rollback, idle, live, crashed = results
    assert writable is False
    assert rollback == ["ro", 3, []]
    assert idle == ["immutable", 4, []]
    # Another user's -shm is read-only to us: SQLite may still use it, else we copy.
    assert live in (["ro", 5, []], ["copy", 5, []])
    assert crashed == ["copy", 6, []]


def test_schema_rows_hold_what_the_pragmas_of_each_table_say():
    """The column and index lists, read for all tables in one query each, are the rows
    ``pragma_table_info`` / ``pragma_index_list`` give table by table, in their order."""
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        BASELINE_SCHEMA
        + 'CREATE TABLE "we""ird" (b TEXT, a INTEGER PRIMARY KEY, c BLOB UNIQUE);'
        + 'CREATE INDEX i1 ON "we""ird"(b); CREATE INDEX i0 ON "we""ird"(c, b);'
        + "CREATE TABLE z (q INTEGER PRIMARY KEY AUTOINCREMENT, g AS (q + 1));"  # sqlite_sequence, a generated column
        + "CREATE TABLE k (x, y, PRIMARY KEY (y, x)) WITHOUT ROWID; CREATE VIEW v AS SELECT 1;"
    )
    expected = []
    for type_, name, tbl_name, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"):
        columns = indexes = ()
        if type_ == "table":
            columns = tuple(conn.execute("SELECT * FROM pragma_table_info(?)", (name,)))
            indexes = tuple(conn.execute("SELECT * FROM pragma_index_list(?)", (name,)))
        expected.append(sqlite_store.SchemaObject(type_, name, tbl_name, sql, columns, indexes))
    assert sqlite_store.schema_rows(conn) == expected
    weird = next(obj for obj in expected if obj.name == 'we"ird')
    assert [c[1] for c in weird.columns] == ["b", "a", "c"] and len(weird.indexes) == 3
