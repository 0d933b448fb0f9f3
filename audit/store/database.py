"""Read a conversation ``.db`` as one consistent, read-only snapshot.

A store may belong to a live ``agy`` that keeps the database open (WAL mode) for weeks, so the
reader never writes, never takes a write lock and never blocks: every open is
``file:<path>?mode=ro`` with a short busy timeout, and all reads happen inside ONE read
transaction, so the rows of all tables (committed ``-wal`` content included) are one snapshot.

How a file is opened (``NativeConversation.access``):

* ``ro`` -- rollback-journal databases, and WAL databases whose ``-wal`` and ``-shm`` both exist
  (a live writer, or one that closed without a checkpoint): opened with
  ``readonly_shm=1``, so SQLite only reads the ``-shm`` (plain ``mode=ro``, as the first
  connection after the writer closed, would truncate and rebuild it: new bytes and mtime in a live
  store) and builds the WAL index in private memory when it cannot rely on it.
* ``immutable`` -- WAL databases without ``-wal`` content and without the pair of side files
  (no connection is open): every committed row is in the main file. ``mode=ro`` would create
  ``-wal``/``-shm`` beside the store (or fail in a read-only directory), so the file is opened
  with ``immutable=1``, which needs no side files. (A writer that opens the database after us
  appends to a fresh ``-wal``; the main file only changes at a checkpoint, after ~1000 new
  pages -- far longer than a read takes.)
* ``copy`` -- WAL databases whose ``-wal`` has content but no ``-shm`` (``mode=ro`` would create
  it beside the store, or fail in a read-only directory), or whose ``-shm`` cannot be used (e.g.
  not writable by us): ``.db`` and ``-wal`` are copied into a private (0700) temporary
  directory, re-copied until the source stats agree before and after, read there, and deleted.

Every problem -- missing, empty, truncated or non-SQLite file, corruption, a lock held by
another process, missing tables -- becomes a ``Problem`` on the result; nothing is raised.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sqlite3
import stat
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from audit.errors import InputError
from audit.safeio import open_regular, read_bytes
from audit.safewrite import create_durable_file, make_private_dir

BUSY_TIMEOUT = 0.25
"""Seconds to wait for a lock before reporting the database as locked."""

TABLES = (
    "trajectory_meta",
    "steps",
    "gen_metadata",
    "executor_metadata",
    "parent_references",
    "trajectory_metadata_blob",
    "battle_mode_infos",
)
"""Tables of the agy conversation schema (docs/store-format.md#database-schema)."""

COLUMNS: dict[str, tuple[str, ...]] = {
    "trajectory_meta": ("trajectory_id", "cascade_id", "trajectory_type", "source"),
    "steps": (
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
    ),
    "gen_metadata": ("idx", "data", "size"),
    "executor_metadata": ("idx", "data"),
    "parent_references": ("idx", "data"),
    "trajectory_metadata_blob": ("id", "data"),
    "battle_mode_infos": ("idx", "data"),
}
"""The columns of each table in the published DDL of agy 1.0.7-1.2.11 (a test checks them against
``tests/data/agentsview_agy-1.0.7-1.0.10_baseline_schema.sql``)."""
USER_VERSIONS = frozenset({1})
"""``PRAGMA user_version`` values of the known schema (the published DDL; 26/26 real stores)."""

_MAGIC = b"SQLite format 3\x00"
_COPY_ATTEMPTS = 3


@dataclass(frozen=True)
class Problem:
    """A problem the reader met in one store file; ``code`` is stable, ``message`` names the file
    (the checks judge problems into findings, ``audit.findings.Finding``).
    ``projected``: the problem touches what a projection of the steps reads (their type, status,
    metadata or payload), so nothing built from those steps can be trusted; every other finding
    concerns content outside it (see ``affects_projection``)."""

    code: str
    message: str
    projected: bool = False


READ_FAILURES = frozenset({"unreadable", "empty", "not-sqlite", "truncated", "corrupt", "locked"})
"""Problem codes meaning the file could not be read (as a whole) at all."""


def affects_projection(finding: Problem) -> bool:
    """True when *finding* means the steps could not be decoded as they are stored."""
    return finding.projected or finding.code in READ_FAILURES


@dataclass(frozen=True)
class SchemaObject:
    """One ``sqlite_master`` row; tables also carry ``PRAGMA table_info`` / ``index_list`` rows."""

    type: str
    name: str
    tbl_name: str
    sql: str | None
    columns: tuple[tuple[Any, ...], ...] = ()
    indexes: tuple[tuple[Any, ...], ...] = ()


@dataclass
class NativeConversation:
    """Everything read from one ``.db``: rows of every table (as column dicts), schema, findings."""

    path: Path
    access: str = ""  # "ro" | "immutable" | "copy"; "" when the file could not be read
    user_version: int | None = None
    schema: list[SchemaObject] = field(default_factory=list)
    tables: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    findings: list[Problem] = field(default_factory=list)
    wal_index_changed: bool = False
    """The ``-shm`` WAL-index header differed before and after the read transaction: a writer
    committed (or checkpointed) meanwhile, so the snapshot may already be older than the files."""

    def content_sha256(self) -> str:
        """SHA-256 (hex) of the snapshot's logical content: ``user_version``, every schema row and
        every row of every table read, in key order, each value tagged by its SQLite type and
        length-prefixed. Equal for two files holding the same rows whatever their bytes, pages or
        ``-wal`` (a checkpoint or ``VACUUM`` does not change it); never the raw file bytes."""
        digest = hashlib.sha256(b"agy-audit-rows/1\n")
        update = digest.update
        _value(update, self.user_version)
        for obj in self.schema:
            for part in (obj.type, obj.name, obj.tbl_name, obj.sql):
                _value(update, part)
        for name in sorted(self.tables):
            rows = self.tables[name]
            _value(update, name)
            _value(update, len(rows))
            for row in rows:
                _value(update, len(row))
                for column, value in row.items():
                    _value(update, column)
                    _value(update, value)
        return digest.hexdigest()

    @property
    def steps(self) -> list[dict[str, object]]:
        return self.tables.get("steps", [])

    @property
    def row_counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables.items()}

    @property
    def internal_cascade_id(self) -> str | None:
        """``trajectory_meta.cascade_id`` (may differ from the file-name id)."""
        rows = self.tables.get("trajectory_meta") or [{}]
        value = rows[0].get("cascade_id")
        return value if isinstance(value, str) else None


def read_database(path: str | os.PathLike[str]) -> NativeConversation:
    """Read every table of the conversation database at *path*; problems become findings."""
    conv = NativeConversation(Path(path))
    wal_mode, problem = _inspect(conv.path)
    if problem is not None:
        conv.findings.append(problem)
        return conv
    header = _wal_index_header(conv.path)  # before the snapshot is taken
    try:
        with open_snapshot(conv.path, wal_mode=wal_mode) as (conn, access):
            _read(conv, conn, access, header)
    except sqlite3.Error as exc:
        conv.findings.append(_error_finding(conv.path, exc))
    except UnicodeDecodeError:  # sqlite3 decodes schema text and column names strictly
        conv.findings.append(Problem("corrupt", f"{conv.path}: schema text is not valid UTF-8"))
    except InputError as exc:
        conv.findings.append(Problem("unreadable", str(exc)))
    conv.findings.extend(
        Problem("missing-table", f"{conv.path}: table {name} is missing", projected=name == "steps")
        for name in TABLES
        if conv.access and name not in conv.tables
    )
    return conv


@contextlib.contextmanager
def open_snapshot(path: str | os.PathLike[str], *, wal_mode: bool | None = None) -> Iterator[tuple[sqlite3.Connection, str]]:
    """A read-only connection to *path* that creates and changes no file beside it, and how it was
    opened (``ro``, ``immutable`` or ``copy``; see the module docstring). Raises ``sqlite3.Error``
    or ``InputError`` (without *wal_mode*, the file is inspected first and an unreadable, empty,
    truncated or non-SQLite file is an ``InputError`` saying so)."""
    path = Path(path)
    if wal_mode is None:
        wal_mode, problem = _inspect(path)
        if problem is not None:
            raise InputError(problem.message)
    sides = _side_files(path)
    wal = _side(path, "-wal")
    if any(size == 0 for size in sides.values()):
        mode = "copy"  # SQLite resets an empty -wal/-journal/-shm to the .db's mode when it opens it
    elif not wal_mode:
        mode = "ro"
    elif "-wal" in sides and "-shm" in sides:
        mode = "readonly_shm"
    elif "-wal" in sides:
        mode = "copy"
    else:
        mode = "immutable"
    if mode == "readonly_shm":
        conn = _connect(_uri(path) + "&readonly_shm=1")
        try:
            begin_read(conn)
        except sqlite3.Error as exc:
            conn.close()
            if not getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_CANTOPEN", "SQLITE_READONLY")):
                raise
            mode = "copy"  # the -shm cannot be used by us: read a private copy instead
        else:
            with contextlib.closing(conn):
                yield conn, "ro"
            return
    if mode == "copy":
        with _private_copy(path, wal if sides.get("-wal") else None) as copy:
            with contextlib.closing(_connect(_uri(copy))) as conn:
                begin_read(conn)
                yield conn, "copy"
        return
    with contextlib.closing(_connect(_uri(path, immutable=mode == "immutable"))) as conn:
        begin_read(conn)
        yield conn, mode


SIDE_SUFFIXES = ("-wal", "-shm", "-journal")


def _side_files(path: Path) -> dict[str, int]:
    """Size of each side file present beside *path* (by suffix). A side file that is not a
    regular file (a FIFO, a device, a symbolic link) is an ``InputError``: SQLite would open it."""
    sizes = {}
    for suffix in SIDE_SUFFIXES:
        side = _side(path, suffix)
        try:
            st = os.lstat(side)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise InputError(f"{side}: cannot stat ({exc.strerror or exc})") from None
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{side}: not a regular file; not read")
        sizes[suffix] = st.st_size
    return sizes


def _connect(uri: str) -> sqlite3.Connection:
    # no busy handler inside SQLite (its sleep cannot be interrupted): begin_read waits in Python
    return sqlite3.connect(uri, uri=True, timeout=0, isolation_level=None)


def begin_read(conn: sqlite3.Connection) -> None:
    """Start the read transaction every read of a snapshot happens in, waiting up to
    ``BUSY_TIMEOUT`` seconds for a lock another process holds. The wait is a Python loop, so
    Ctrl-C and SIGTERM interrupt it; after it the ``SQLITE_BUSY`` error is raised."""
    deadline = time.monotonic() + BUSY_TIMEOUT
    while True:
        try:
            conn.execute("BEGIN")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return
        except sqlite3.OperationalError as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            busy = getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
            if not busy or time.monotonic() >= deadline:
                raise
            time.sleep(0.005)


def schema_rows(conn: sqlite3.Connection) -> list[SchemaObject]:
    """``sqlite_master`` ordered by (type, name), with column and index lists for tables (each
    list read for every table in one query: the rows ``PRAGMA table_info`` / ``index_list`` give)."""
    columns: dict[str, list[tuple[Any, ...]]] = {}
    indexes: dict[str, list[tuple[Any, ...]]] = {}
    for found, query in ((columns, _TABLE_COLUMNS), (indexes, _TABLE_INDEXES)):
        for name, *row in conn.execute(query):
            found.setdefault(name, []).append(tuple(row))
    return [
        SchemaObject(type_, name, tbl_name, sql, tuple(columns.get(name, ())), tuple(indexes.get(name, ())))
        if type_ == "table"
        else SchemaObject(type_, name, tbl_name, sql)
        for type_, name, tbl_name, sql in conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name")
    ]


_TABLE_COLUMNS = (
    "SELECT m.name, p.* FROM sqlite_master AS m JOIN pragma_table_info(m.name) AS p WHERE m.type = 'table' ORDER BY m.name, p.cid"
)
_TABLE_INDEXES = (
    "SELECT m.name, p.* FROM sqlite_master AS m JOIN pragma_index_list(m.name) AS p WHERE m.type = 'table' ORDER BY m.name, p.seq"
)


def schema_fingerprint(schema: list[SchemaObject], user_version: int | None) -> str:
    """sha256 over each non-null ``sql`` in (type, name) order plus ``\\n``, then the user_version."""
    digest = hashlib.sha256()
    for obj in schema:
        if obj.sql is not None:
            digest.update(obj.sql.encode() + b"\n")
    digest.update(f"{user_version}\n".encode())
    return "sha256:" + digest.hexdigest()


# ----------------------------------------------------------------------------- helpers


def _side(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def _has_content(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _uri(path: Path, *, immutable: bool = False) -> str:
    return f"file:{uri_path(path.absolute().as_posix())}?mode=ro" + ("&immutable=1" if immutable else "")


def uri_path(name: str) -> str:
    """The path part of a SQLite ``file:`` URI for the absolute, ``/``-separated path *name*,
    percent-encoded. It always starts with a ``/`` and has no authority: a Windows drive path
    ``C:/d/x.db`` becomes ``/C:/d/x.db`` (SQLite drops that ``/`` on Windows) and a path starting
    ``//`` (a Windows UNC path) ``////server/share/x.db``, where ``file://server`` would name an
    authority, which SQLite refuses."""
    if not name.startswith("/"):
        name = "/" + name
    elif name.startswith("//"):
        name = "//" + name
    return quote(name)


def _inspect(path: Path) -> tuple[bool, Problem | None]:
    """(WAL mode?, problem) from the 100-byte header and the file size."""
    try:
        with open_regular(path) as fh:
            header = fh.read(100)
            size = os.fstat(fh.fileno()).st_size
    except InputError as exc:
        return False, Problem("unreadable", exc.message)
    except OSError as exc:
        return False, Problem("unreadable", f"{path}: cannot read ({exc.strerror or exc})")
    if size == 0:
        return False, Problem("empty", f"{path}: empty file (0 bytes)")
    if not (header.startswith(_MAGIC) or _MAGIC.startswith(header)):
        return False, Problem("not-sqlite", f"{path}: not an SQLite database (bad header)")
    if len(header) < 100:
        return False, Problem("truncated", f"{path}: truncated inside the database header ({size} bytes)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    wal_mode = 2 in (header[18], header[19])
    if page_size < 512 or page_size & (page_size - 1):
        return wal_mode, Problem("corrupt", f"{path}: invalid page size {page_size} in the header")
    pages = int.from_bytes(header[28:32], "big")
    count_valid = pages and header[24:28] == header[92:96]
    if size % page_size or (count_valid and size < pages * page_size and not _has_content(_side(path, "-wal"))):
        return wal_mode, Problem("truncated", f"{path}: truncated ({size} bytes; header says {pages} pages of {page_size})")
    return wal_mode, None


def _text(raw: bytes) -> str | bytes:
    """SQLite TEXT as str; invalid UTF-8 stays bytes rather than aborting the read."""
    try:
        return raw.decode()
    except UnicodeDecodeError:
        return raw


def _value(update: Callable[[bytes], object], value: object) -> None:
    """Feed one SQLite value to a digest, unambiguously (type tag, length, bytes)."""
    if value is None:
        update(b"n")
        return
    if type(value) is int:
        raw, tag = str(value).encode(), b"i"
    elif type(value) is float:
        raw, tag = repr(value).encode(), b"f"
    elif type(value) is str:
        raw, tag = value.encode("utf-8", "surrogatepass"), b"s"
    else:
        assert isinstance(value, (bytes, bytearray, memoryview))  # SQLite has no other type: a blob (or text that is not UTF-8)
        raw, tag = bytes(value), b"b"
    update(tag + len(raw).to_bytes(8, "big") + raw)


WAL_INDEX_HEADER = 136
"""Bytes at the start of a ``-shm``: two copies of the 48-byte WAL-index header and the 40-byte
checkpoint information (SQLite file format, "WAL-index format"); every commit and checkpoint
changes them."""


def _wal_index_header(path: Path) -> bytes | None:
    """The WAL-index header of *path*'s ``-shm`` (read like any file: nothing is written), or None."""
    try:
        with open_regular(_side(path, "-shm"), follow_symlinks=False) as fh:  # a FIFO is never waited on
            return fh.read(WAL_INDEX_HEADER)
    except (OSError, InputError):
        return None


def _read(conv: NativeConversation, conn: sqlite3.Connection, access: str, header: bytes | None) -> None:
    """Read the snapshot; *header* is the ``-shm`` WAL-index header as it was before it was taken."""
    # open_snapshot began one read transaction: every SELECT below sees the same snapshot
    watch = access == "ro"  # a copy or an immutable open reads no -shm that a writer could move
    schema = schema_rows(conn)
    user_version = conn.execute("PRAGMA user_version").fetchone()[0]
    check = [row[0] for row in conn.execute("PRAGMA quick_check")]
    conn.text_factory = _text  # row values only; a non-UTF-8 schema is an unreadable file
    tables = {obj.name: _select_rows(conn, obj) for obj in schema if obj.type == "table" and not obj.name.startswith("sqlite_")}
    conn.execute("COMMIT")
    conv.wal_index_changed = watch and _wal_index_header(conv.path) != header
    conv.access, conv.schema, conv.user_version, conv.tables = access, schema, user_version, tables
    if check != ["ok"]:
        conv.findings.append(Problem("corrupt", f"{conv.path}: quick_check: {'; '.join(map(str, check[:3]))}"))


def _select_rows(conn: sqlite3.Connection, table: SchemaObject) -> list[dict[str, object]]:
    key = [col[1] for col in sorted(table.columns, key=lambda col: col[5]) if col[5]] or ["rowid"]
    cursor = conn.execute(f"SELECT * FROM {_ident(table.name)} ORDER BY {', '.join(map(_ident, key))}")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor]


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except FileNotFoundError:
        return None
    return st.st_size, st.st_mtime_ns


@contextlib.contextmanager
def _private_copy(path: Path, wal: Path | None) -> Iterator[Path]:
    """Copy ``.db`` (+ ``-wal`` when given) into a private temp dir (re-copied until the source stats agree
    before and after); yields the copy's path and deletes it afterwards."""
    for _ in range(_COPY_ATTEMPTS):
        before = (_stat(path), _stat(wal) if wal else None)
        database = read_bytes(path)
        journal = read_bytes(wal) if wal and before[1] is not None else None
        if (_stat(path), _stat(wal) if wal else None) == before:
            break
    else:
        raise InputError(f"{path}: kept changing while being copied")
    scratch = make_private_dir(Path(tempfile.gettempdir()) / f"agy-audit-{uuid.uuid4().hex}")
    try:
        copy = scratch / "conversation.db"
        create_durable_file(copy, database)
        if journal is not None:
            create_durable_file(_side(copy, "-wal"), journal)
        yield copy
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _error_finding(path: Path, exc: sqlite3.Error) -> Problem:
    name = getattr(exc, "sqlite_errorname", "") or type(exc).__name__
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")):
        code = "locked"
    elif name == "SQLITE_NOTADB":
        code = "not-sqlite"
    elif name.startswith("SQLITE_CORRUPT"):
        code = "corrupt"
    else:
        code = "unreadable"
    return Problem(code, f"{path}: {exc} ({name})")
