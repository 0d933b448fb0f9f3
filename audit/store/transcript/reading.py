"""Reading transcript streams: ``transcript.jsonl``, ``transcript_full.jsonl`` and their rolling chunks.

A file is read line by line in binary, a line longer than ``max_line_bytes`` is skipped without
being held, so memory does not grow with the file (beyond the set of step indexes seen, kept to
report repeated ones). Damage never stops reading: every problem becomes an ``Anomaly`` (file,
1-based line, kind, message) and the next line is read. A line either becomes a ``Record`` or gets
exactly one anomaly whose kind is in ``DROPPED``; records may carry further anomalies (missing keys,
unknown enum names, step order ...). The reader only says what it met: the checks judge anomalies
into findings (``audit.findings.Finding``; the rule ids and levels are ``audit.checks.contract``'s,
one table for every command).
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any, BinaryIO

from audit.safeio import open_regular_fd
from audit.store.transcript.model import MAX_LINE_BYTES, Anomaly, Record, tier_of
from audit.store.transcript.records import _record, _Stream
from audit.strictjson import JSONError, json_type, loads

_SKIP_BYTES = 1 << 20
_FRACTION = re.compile(r"(\.\d{1,6})\d*")


def iter_transcript(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    tier: str | None = None,
) -> Iterator[Record | Anomaly]:
    """Stream the records and findings of one logical transcript.

    *paths* is one file or the parts of one stream (chunk files in order): their bytes are read
    as one stream, so a record that crosses from one part into the next is one record, reported
    at the file and line where it starts. *tier* (default: ``tier_of`` the first path) decides
    how tool-call arguments are decoded. Never raises for file content or I/O errors. Inside
    ``shared_reads`` a stream read before is not read again (see there).
    """
    files = [str(paths)] if isinstance(paths, (str, os.PathLike)) else [str(p) for p in paths]
    if tier is None and files:
        tier = tier_of(files[0])
    if not _SHARED:
        return _read_stream(files, max_line_bytes, tier)
    key = (tuple(files), tier, max_line_bytes)
    stats = tuple(_identity(f) for f in files)
    known = _SHARED[-1].get(key)
    if known is None or known[0] != stats or None in stats:
        known = _SHARED[-1][key] = (stats, list(_read_stream(files, max_line_bytes, tier)))
    return iter(known[1])


def _read_stream(files: list[str], max_line_bytes: int, tier: str | None) -> Iterator[Record | Anomaly]:
    state = _Stream(tier)
    for item in _stream_lines(files, max_line_bytes):
        if isinstance(item, Anomaly):
            yield item
        else:
            yield from _line(*item, max_line_bytes, state)
    yield from state.finish()


_SHARED: list[
    dict[tuple[tuple[str, ...], str | None, int], tuple[tuple[tuple[int, int, int] | None, ...], list[Record | Anomaly]]]
] = []


@contextlib.contextmanager
def shared_reads() -> Iterator[None]:
    """Within it, ``iter_transcript`` gives the records of a stream it read before (same files,
    tier and line limit, each file still of the same size, mtime and inode) without reading them
    again, so that several checks of one session parse its transcripts once; the records are held
    until the block ends (one session's transcripts, in ``ci``)."""
    _SHARED.append({})
    try:
        yield
    finally:
        _SHARED.pop()


def _identity(file: str) -> tuple[int, int, int] | None:
    try:
        st = os.stat(file)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns, st.st_ino


def iter_bytes(
    data: bytes, file: str, *, tier: str | None = None, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record | Anomaly]:
    """``iter_transcript`` over bytes already read (*file* names them in findings)."""
    state = _Stream(tier if tier is not None else tier_of(file))
    for item in _split(io.BytesIO(data), file, max_line_bytes):
        yield from _line(*item, max_line_bytes, state)
    yield from state.finish()


_READ_BUFFER = 256 * 1024
"""Bytes read at a time from a transcript (the default 8 KiB makes line reading cost twice as much)."""


def _open(path: str) -> BinaryIO:
    fd = open_regular_fd(path, follow_symlinks=False)  # never blocks; a link or a FIFO is an OSError
    try:
        return os.fdopen(fd, "rb", buffering=_READ_BUFFER)
    except BaseException:
        os.close(fd)
        raise


def _unreadable(path: str, line: int, exc: OSError) -> Anomaly:
    reason = "is a symbolic link; not followed" if exc.errno == errno.ELOOP else exc.strerror or str(exc)
    return Anomaly(path, line, "unreadable", f"cannot read: {reason}")


_Line = tuple[str, int, "bytes | None", bool]
"""(file and line where a line starts, its bytes without the newline or None when longer than
the cap, whether it ends with a newline)."""


def _stream_lines(paths: list[str], cap: int) -> Iterator[_Line | Anomaly]:
    """The lines of the concatenated *paths*. A line left open at the end of one part goes on in
    the next; an unreadable part ends it (it is then unterminated)."""
    pending: list[Any] | None = None  # [file, line, pieces or None once over the cap, size]
    for path in paths:
        line = 0
        at_start = True
        try:
            with _open(path) as fh:
                while piece := fh.readline(_SKIP_BYTES if pending is not None and pending[2] is None else cap + 1):
                    if at_start:
                        line += 1
                        if pending is None and piece[-1:] == b"\n":  # a whole line within the cap, in one piece
                            yield path, line, piece[:-1], True
                            continue
                    if pending is None:
                        pending = [path, line, [], 0]
                    terminated = piece.endswith(b"\n")
                    body = piece[:-1] if terminated else piece
                    if pending[2] is not None:
                        pending[3] += len(body)
                        if pending[3] > cap:
                            pending[2] = None
                        else:
                            pending[2].append(body)
                    at_start = terminated
                    if terminated:
                        yield pending[0], pending[1], _joined(pending), True
                        pending = None
        except OSError as exc:
            if pending is not None:
                yield pending[0], pending[1], _joined(pending), False
                pending = None
            yield _unreadable(path, 0 if line == 0 else line + 1, exc)
    if pending is not None:
        yield pending[0], pending[1], _joined(pending), False


def _joined(pending: list[Any]) -> bytes | None:
    return None if pending[2] is None else b"".join(pending[2])


def _split(fh: BinaryIO, file: str, cap: int) -> Iterator[_Line]:
    line = 0
    while chunk := fh.readline(cap + 1):
        line += 1
        if chunk.endswith(b"\n"):
            yield file, line, chunk[:-1], True
        elif len(chunk) <= cap:
            yield file, line, chunk, False
        else:
            while (rest := fh.readline(_SKIP_BYTES)) and not rest.endswith(b"\n"):
                pass
            yield file, line, None, bool(rest)


def _line(path: str, line: int, data: bytes | None, terminated: bool, cap: int, state: _Stream) -> list[Record | Anomaly]:
    """The findings and record of one line, in the order they are yielded."""
    items = _parsed(path, line, data, cap, state)
    if not terminated:
        items.append(_unterminated(path, line))
    return items


def _unterminated(path: str, line: int) -> Anomaly:
    return Anomaly(path, line, "unterminated-line", "last line does not end with a newline")


_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c")
"""The bytes ``bytes.strip()`` removes: a line starting with another byte is not blank."""


def _parsed(path: str, line: int, data: bytes | None, cap: int, state: _Stream) -> list[Record | Anomaly]:
    if data is None:
        return [Anomaly(path, line, "line-too-long", f"longer than {cap} bytes; skipped")]
    if (not data or data[0] in _ASCII_SPACE) and not data.strip():
        return [Anomaly(path, line, "blank-line", "empty line")]
    try:
        obj = loads(data, source=f"{path}:{line}", require_object=False)
    except JSONError as exc:
        # the parser refuses invalid UTF-8 (strictjson.loads), so a line it accepts needs no decoding
        # first; one it refuses is bad UTF-8 before it is bad JSON
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            return [Anomaly(path, line, "bad-utf8", f"invalid UTF-8 at byte {bad.start}")]
        at = f" at {exc.pointer or '/'}" if exc.pointer is not None else ""
        return [Anomaly(path, line, "bad-json", exc.reason + at, exc.pointer or "")]
    if not isinstance(obj, dict):
        return [Anomaly(path, line, "not-object", f"line holds a JSON {json_type(obj)}, not an object")]
    findings: list[Anomaly] = []
    record = _record(obj, path, line, findings, state)
    if record.step_index is not None:
        if state.first_step and record.step_index > 0:
            name = f"{state.tier} tier" if state.tier else "transcript"
            findings.append(Anomaly(path, line, "late-window", f"{name} starts at step {record.step_index}"))
        state.first_step = False
        if step := state.order.check(record.step_index):
            findings.append(Anomaly(path, line, *step))
    if record.created_at is not None and (moment := _moment(record.created_at)) is not None:
        before = state.previous_time
        if before is not None and moment < before[0]:
            findings.append(
                Anomaly(path, line, "backward-time", f"created_at {record.created_at} is before {before[1]} of the line before")
            )
        state.previous_time = (moment, record.created_at, line)
    return [*findings, record]


def _moment(text: str) -> datetime | None:
    """The instant an RFC 3339 timestamp names (fractions past microseconds dropped)."""
    try:
        if "." in text:  # a fraction, perhaps beyond microseconds
            text = _FRACTION.sub(r"\1", text, count=1)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None
