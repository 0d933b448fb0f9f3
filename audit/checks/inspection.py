"""What each native artifact of a session holds: tables, step types and statuses, unknown
protobuf fields, transcript anomalies. Read-only; every problem is a finding or a note, never an
exception.

Transcript anomalies take the contract's levels (``audit.checks.contract``: one rule table for
``verify-contract`` and ``inspect``): a reader finding the contract makes a violation is a finding,
one it makes an advisory is a note; a record's own keys and values are judged by the
transcript-record schema, whose rules give each its level. What the contract does not judge at
all is a note (a step gap: agy never writes some steps to transcripts; a window; a record one tier
has and the other lacks), except a file that cannot be read and a compact record whose content
disagrees with its full one (``DISAGREEMENTS``), which are findings."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audit.checks import contract
from audit.errors import InputError
from audit.findings import Level
from audit.safeio import is_dir, is_file
from audit.store import transcript
from audit.store.database import read_database
from audit.store.ids import canonical_id
from audit.store.layout import Session
from audit.store.trajectory import reconstruct


@dataclass
class DatabaseInfo:
    path: Path
    access: str
    user_version: int | None
    internal_cascade_id: str | None
    row_counts: dict[str, int]
    step_types: Counter[str]
    statuses: Counter[str]
    unknown_fields: Counter[str]
    findings: list[str]
    unknown_rows: Counter[str] = field(default_factory=Counter)
    """Per unknown field: how many rows (steps, blobs) carry it at least once."""

    def ranked_unknown(self) -> list[tuple[str, int, int]]:
        """(unknown field, rows carrying it, occurrences), the most widespread first."""
        return sorted(
            ((key, self.unknown_rows.get(key, 0), n) for key, n in self.unknown_fields.items()),
            key=lambda item: (-item[1], -item[2], item[0]),
        )


@dataclass
class TranscriptInfo:
    brain: Path
    compact: list[Path]
    full: list[Path]
    records: int
    types: Counter[str]
    statuses: Counter[str]
    anomalies: Counter[str]
    findings: list[str]  # "file:line: kind: message" (violations: exit 1)
    notes: list[str] = field(default_factory=list)  # the same form (advisories: exit 0)


@dataclass
class Inspection:
    id: str | None
    database: DatabaseInfo | None = None
    transcripts: TranscriptInfo | None = None
    notes: list[str] = field(default_factory=list)  # artifacts that are listed but not decoded

    @property
    def finding_count(self) -> int:
        return len(self.database.findings if self.database else []) + len(self.transcripts.findings if self.transcripts else [])


def inspect_session(session: Session) -> Inspection:
    result = Inspection(session.id)
    if session.db is not None:
        result.database = inspect_database(session.db)
    if session.brain is not None:
        result.transcripts = inspect_brain(session.brain)
    if session.legacy_pb is not None:
        result.notes.append(f"{session.legacy_pb}: legacy encrypted .pb, listed but never decoded")
    if session.implicit_pb is not None:
        result.notes.append(f"{session.implicit_pb}: implicit encrypted .pb, listed but never decoded")
    return result


def inspect_path(path: Path) -> Inspection:
    """Inspect a ``.db`` file, a brain directory or a transcript file given by path."""
    if is_dir(path):
        return Inspection(canonical_id(path.name), transcripts=inspect_brain(path))
    if path.name.endswith(".jsonl"):
        return Inspection(None, transcripts=_inspect_transcript_file(path))
    if is_file(path):
        stem = path.name.split(".", 1)[0]
        return Inspection(canonical_id(stem), database=inspect_database(path))
    raise InputError(f"{path}: {'not a regular file' if os.path.lexists(path) else 'no such file or directory'}")


def inspect_database(path: Path) -> DatabaseInfo:
    conv = read_database(path)
    native = reconstruct(conv)
    steps = native.trajectory.get("steps", [])
    return DatabaseInfo(
        path=path,
        access=conv.access,
        user_version=conv.user_version,
        internal_cascade_id=conv.internal_cascade_id,
        row_counts=conv.row_counts,
        step_types=Counter(str(s.get("type", "?")) for s in steps),
        statuses=Counter(str(s.get("status", "?")) for s in steps),
        unknown_fields=native.unknown_fields,
        unknown_rows=native.unknown_rows,
        findings=[f.message for f in conv.findings] + [f.message for f in native.findings if f not in conv.findings],
    )


def inspect_brain(brain: Path) -> TranscriptInfo:
    read = transcript.read_brain(brain)
    every = (*read.compact, *read.full, *read.overview)
    return _info(brain, read.files.compact, read.files.full, read.full or read.compact, read.findings, every)


def _inspect_transcript_file(path: Path) -> TranscriptInfo:
    """One transcript file, streamed: records are counted and judged, never kept."""
    info = _info(path.parent, (), (path,), (), ())
    for item in transcript.iter_transcript(path):
        if isinstance(item, transcript.Finding):
            info.anomalies[item.kind] += 1
            _judge(item, info)
        else:
            info.records += 1
            info.types[item.type or "?"] += 1
            info.statuses[item.status or "?"] += 1
            _judge_record(item, info)
    return info


def _info(
    brain: Path,
    compact: Iterable[Path],
    full: Iterable[Path],
    records: Sequence[transcript.Record],
    findings: Sequence[transcript.Finding],
    judged: Iterable[transcript.Record] = (),
) -> TranscriptInfo:
    info = TranscriptInfo(
        brain=brain,
        compact=list(compact),
        full=list(full),
        records=len(records),
        types=Counter(r.type or "?" for r in records),
        statuses=Counter(r.status or "?" for r in records),
        anomalies=Counter(f.kind for f in findings),
        findings=[],
    )
    for f in findings:
        _judge(f, info)
    for record in judged:
        _judge_record(record, info)
    return info


DISAGREEMENTS = frozenset({"mismatch", "truncation-mismatch"})
"""Reader kinds no contract rule covers that are findings: a compact record whose content
disagrees with its full one (beyond the documented truncation), as ``consistency`` fails a tier
that disagrees with the ``.db``."""


def _judge(f: transcript.Finding, info: TranscriptInfo) -> None:
    """File a reader finding under ``findings`` or ``notes`` by the contract's level."""
    judged = contract.stream_finding(f)
    if judged is not None:
        level = judged.level
    elif f.kind in contract.SCHEMA_JUDGED:
        return  # the schema's findings of the record stand for it (``_judge_record``)
    else:
        level = Level.ERROR if f.kind == "unreadable" or f.kind in DISAGREEMENTS else Level.WARNING
    (info.findings if level == Level.ERROR else info.notes).append(f"{f.file}:{f.line}: {f.kind}: {f.message}")


def _judge_record(record: transcript.Record, info: TranscriptInfo) -> None:
    """File the transcript-record schema's findings of one record by their rules' levels."""
    for f in contract.validate_document(record.raw, "transcript", file=record.file).findings:
        where = f" at {f.pointer}" if f.pointer else ""
        text = f"{record.file}:{record.line}: {f.rule}: {f.message}{where}"
        (info.findings if f.level == Level.ERROR else info.notes).append(text)
