"""How a mutation changes a copy, every byte it does not change kept: files rewritten with their
modification time (``rewrite``) and directory times given back (``directory_times_kept``), each
transcript or history record (``each_record``, ``each_history``: unchanged lines keep their
bytes, chunks re-split where agy splits), each ``.db`` in memory (``each_database``) and each
protobuf blob on the wire (``edit_wire``, ``each_blob``)."""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from audit.errors import InputError
from audit.safeio import exists, is_dir, is_file, read_bytes
from audit.safewrite import atomic_write
from audit.store import wire
from audit.store.transcript import CHUNK_BYTES, CHUNK_DIRS, FLAT_NAMES

Fields = list[wire.WireField]

# ----------------------------------------------------------------------------- files of a copy


def gemini_dir(home: Path) -> Path:
    return home / ".gemini"


def rewrite(path: Path, data: bytes) -> None:
    """Replace the file *path* of a copy with *data*, keeping its modification time."""
    atomic_write(path, data, mtime_ns=os.stat(path, follow_symlinks=False).st_mtime_ns)


@contextlib.contextmanager
def directory_times_kept(home: Path) -> Iterator[None]:
    """Give every directory of the copy its time from before back (a rename or a new file in it
    changes it): a reader that dates sessions by their directories sees what agy would leave."""
    before = {}
    for directory, _, _ in os.walk(gemini_dir(home)):
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


def transcript_logs(home: Path) -> list[Path]:
    """Every brain's ``.system_generated/logs`` directory in the copy."""
    return sorted(p for p in gemini_dir(home).glob("*/brain/*/.system_generated/logs") if is_dir(p))


def chunk_files(directory: Path) -> list[Path]:
    """The chunk files of a tier, in stream order (named by their number, docs/store-format.md#chunks)."""
    found = [p for p in directory.glob("*.jsonl") if p.stem.isdigit()]
    return sorted(found, key=lambda p: int(p.stem))


def write_chunks(directory: Path, data: bytes, first: int, width: int, mtimes: list[int]) -> None:
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
    for logs in transcript_logs(home):
        for name in FLAT_NAMES.values():
            if is_file(logs / name):
                data, n = _each_line(read_bytes(logs / name), change)
                if n:
                    rewrite(logs / name, data)
                changed += n
        for directory in CHUNK_DIRS.values():
            parts = chunk_files(logs / "chunks" / directory)
            if not parts:
                continue
            data, n = _each_line(b"".join(read_bytes(p) for p in parts), change)
            if n:
                mtimes = [os.stat(p).st_mtime_ns for p in parts]
                for part in parts:
                    part.unlink()
                write_chunks(parts[0].parent, data, int(parts[0].stem), len(parts[0].stem), mtimes)
            changed += n
    return changed


def each_history(home: Path, change: Callable[[dict[str, Any]], bool]) -> int:
    changed = 0
    for path in sorted(gemini_dir(home).glob("*/history.jsonl")):
        data, n = _each_line(read_bytes(path), change)
        if n:
            rewrite(path, data)
        changed += n
    return changed


# ----------------------------------------------------------------------------- SQLite and protobuf


def each_database(home: Path, pattern: str, change: Callable[[sqlite3.Connection], int]) -> int:
    """Apply *change* (returning what it changed) to every ``.db`` of the copy matching *pattern*
    (below ``.gemini``), in memory; a changed image replaces the file."""
    changed = 0
    for path in sorted(gemini_dir(home).glob(pattern)):
        if exists(f"{path}-wal"):
            raise InputError(f"{path}-wal: a copy holds no -wal (its pages are in the .db image); not changed")
        con = sqlite3.connect(":memory:")
        try:
            con.deserialize(read_bytes(path))
            n = change(con)
            if n:
                con.commit()
                rewrite(path, con.serialize())
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{path}: cannot change the copy ({exc})") from None
        finally:
            con.close()
        changed += n
    return changed


def columns_of(con: sqlite3.Connection, table: str) -> set[str]:
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
        if column not in columns_of(con, table):
            return 0
        changed = 0
        for idx, data in con.execute(f"SELECT idx, {column} FROM {table}").fetchall():
            if isinstance(data, bytes) and (edited := edit_wire(data, path, change)) != data:
                con.execute(f"UPDATE {table} SET {column} = ? WHERE idx = ?", (edited, idx))
                changed += 1
        return changed

    return each_database(home, "*/conversations/*.db", rows)


def set_varint(number: int, value: int) -> Callable[[Fields], Fields]:
    """Give the varint field *number* the value *value* where it is set."""
    return lambda fields: [f._replace(value=value) if f.number == number and f.wire_type == wire.VARINT else f for f in fields]


def without_field(number: int) -> Callable[[Fields], Fields]:
    return lambda fields: [f for f in fields if f.number != number]
