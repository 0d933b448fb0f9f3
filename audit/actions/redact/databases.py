"""A ``.db`` redacted (``redact_db``): the database in memory, each blob column rewritten on the
wire, every other text and blob cell redacted, vacuumed and written whole."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from google.protobuf.message import DecodeError, Message

from audit.actions.redact.protobuf import redact_wire, unknown_value
from audit.actions.redact.replacements import Redactor
from audit.actions.redact.run import Run
from audit.actions.sweep import backup_database
from audit.errors import InputError
from audit.store import trajectory
from audit.store.proto import cortex_pb2 as pb
from audit.store.wire import WireError


def redact_db(run: Run, source: Path, size: int) -> None:
    """The database redacted in memory and vacuumed (no freed page keeps old content), then
    written atomically; a database SQLite cannot read is an ``InputError`` naming it (exit 2), and
    so is one that, with its ``-wal``, is larger than the limit (it is read whole).

    Cells are read as bytes with their storage class (``_cells``), so a TEXT cell that is not
    UTF-8 -- SQLite stores what it is given -- is redacted like any text and stays TEXT. A blob
    protobuf reads as a message of its column's type is rewritten on the wire (``redact_wire``);
    any other blob is a value no schema describes (``unknown_value``)."""
    try:
        size += os.lstat(f"{source}-wal").st_size  # its committed pages are read too
    except OSError:
        pass
    run.refuse_above_limit(source, size)
    r = run.r
    conn = sqlite3.connect(":memory:")
    try:
        conn.deserialize(backup_database(source))
        utf8 = conn.execute("PRAGMA encoding").fetchone()[0] == "UTF-8"
        for table, column, message_class in _blob_columns():
            if not _has_column(conn, table, column):
                continue
            for row_id, blob, is_text in _cells(conn, table, column):
                cell = (table, column, row_id)
                if is_text:  # text where a message belongs: content all the same, redacted as text
                    _update(conn, cell, _text_cell(blob, r), is_text, utf8=utf8, source=source)
                    continue
                try:
                    message_class.FromString(blob)  # protobuf's own parser decides what is a message of the type
                except DecodeError:  # not a message of its type: redacted as a blob no schema describes
                    new = unknown_value(blob, r, 0, False)
                else:
                    try:
                        new = redact_wire(blob, message_class.DESCRIPTOR, r)
                    except WireError as e:
                        run.problems.append(
                            f"{source.name}:{table}.{column}[{row_id}]: {e}; its unknown fields cannot be redacted"
                        )
                        continue
                _update(conn, cell, new, is_text, utf8=utf8, source=source)
                if table == "gen_metadata" and len(new) != len(blob):  # size is the blob's length in real stores
                    conn.execute("UPDATE gen_metadata SET size = ? WHERE rowid = ? AND size = ?", (len(new), row_id, len(blob)))
        for table, column in _other_columns(conn):
            for row_id, value, is_text in _cells(conn, table, column):
                if is_text:
                    replaced = _text_cell(value, r, ids=(table, column) in _ID_COLUMNS)
                else:
                    replaced = unknown_value(value, r, 0, False)  # a blob no schema describes
                _update(conn, (table, column, row_id), replaced, is_text, utf8=utf8, source=source)
        conn.commit()
        conn.execute("VACUUM")  # no freed page keeps the old content
        image = conn.serialize()
    except sqlite3.Error as exc:  # a schema that is not UTF-8, say: nothing of this database is written
        raise InputError(f"{source}: cannot redact the database ({exc})") from None
    finally:
        conn.close()
    run.write(source, image)
    if os.path.lexists(f"{source}-wal"):  # the layout keeps it: every frame is in the image, none is left
        run.write(Path(f"{source}-wal"), b"")


def _cells(conn: sqlite3.Connection, table: str, column: str) -> list[tuple[int, bytes, bool]]:
    """(rowid, value, whether it is TEXT) of every non-empty TEXT or BLOB cell of *column*, read
    as bytes: a TEXT cell need not be UTF-8."""
    conn.text_factory = bytes  # TEXT as SQLite's UTF-8 bytes, never decoded (for this query only)
    try:
        return conn.execute(
            f'SELECT rowid, "{column}", typeof("{column}") = \'text\' FROM "{table}"'
            f" WHERE typeof(\"{column}\") IN ('text', 'blob') AND length(CAST(\"{column}\" AS BLOB)) > 0"
        ).fetchall()
    finally:
        conn.text_factory = str


def _text_cell(raw: bytes, r: Redactor, *, ids: bool = False) -> str | bytes:
    """A TEXT cell redacted: *ids* (an id column) only its UUIDs mapped, else as text. Bytes that
    are not UTF-8 are redacted as text read with ``surrogateescape``: the valid characters by
    placeholders, each other byte by one that is never UTF-8 (``replacements._like``), as many
    bytes as before."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return r.text(raw.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return r.uuids_in(text) if ids else r.text(text)


def _update(
    conn: sqlite3.Connection, cell: tuple[str, str, int], value: str | bytes, is_text: bool, *, utf8: bool, source: Path
) -> None:
    """Set one cell (table, column, rowid) to *value*; bytes of a TEXT cell are stored as TEXT
    again, byte for byte (``CAST``), which only a UTF-8 database does."""
    table, column, row_id = cell
    if is_text and isinstance(value, bytes) and not utf8:
        raise InputError(
            f"{source}: {table}.{column}[{row_id}]: text that is not UTF-8 in a UTF-16 database cannot be redacted byte for byte"
        )
    sql = "CAST(? AS TEXT)" if is_text and isinstance(value, bytes) else "?"
    conn.execute(f'UPDATE "{table}" SET "{column}" = {sql} WHERE rowid = ?', (value, row_id))


_ID_COLUMNS = frozenset(
    {("trajectory_meta", "trajectory_id"), ("trajectory_meta", "cascade_id"), ("trajectory_metadata_blob", "id")}
)
"""Text columns of the known schema that hold ids (UUIDs are mapped, ``main`` is kept); any other
text column is content and redacted as text."""


def _blob_columns() -> list[tuple[str, str, type[Message]]]:
    columns: list[tuple[str, str, type[Message]]] = [("steps", "step_payload", pb.Step)]
    columns += [("steps", column, cls) for column, (_attr, cls) in trajectory.STEP_COLUMNS.items()]
    columns.append(("steps", "render_info", pb.StepRenderInfo))
    columns += [(table, "data", cls) for table, _key, cls in trajectory.BLOB_TABLES]
    columns.append(("trajectory_metadata_blob", "data", pb.CortexTrajectoryMetadata))
    return columns


def _has_column(conn: sqlite3.Connection, table: str, column: str) -> bool:
    return any(row[1] == column for row in conn.execute(f'PRAGMA table_info("{table}")'))


def _other_columns(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Every (table, column) not decoded as a message: text is redacted, blobs are checked."""
    decoded = {(t, c) for t, c, _ in _blob_columns()}
    tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return [(t, row[1]) for t in tables for row in conn.execute(f'PRAGMA table_info("{t}")') if (t, row[1]) not in decoded]
