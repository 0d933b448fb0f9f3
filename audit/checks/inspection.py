"""What each native artifact of a session holds: tables, step types and statuses, unknown
protobuf fields, transcript anomalies. Read-only; every problem is a finding or a note, never an
exception.

Transcript anomalies take the contract's rule ids and levels (``audit.checks.contract``: one rule
table for ``verify-contract``, ``consistency`` and ``inspect``): a reader anomaly the contract
makes an error is an error here, one it makes a warning a warning; a record's own keys and values
are judged by the transcript-record schema, whose rules give each its level. What the contract
does not judge at all is a warning of rule ``transcript/<kind>`` (a step gap: agy never writes
some steps to transcripts; a compact window; a record one tier has and the other lacks), except a
file that cannot be read (``unreadable``) and a compact record whose content disagrees with its
full one (``DISAGREEMENTS``), which are errors. Every problem of a ``.db`` is an error, of rule
``unreadable`` when the file could not be read at all, ``db/<code>`` otherwise."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from audit.checks import contract
from audit.errors import EXIT_FINDINGS, EXIT_OK, InputError
from audit.findings import UNREADABLE, Finding, HasFindings, Level
from audit.safeio import is_dir, is_file
from audit.store import transcript
from audit.store.database import READ_FAILURES, Problem, read_database
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
    findings: list[Finding]
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
    findings: list[Finding] = field(default_factory=list)

    @property
    def anomalies(self) -> Counter[str]:
        """Findings per rule id (the reader's anomalies as the contract names them)."""
        return Counter(f.rule for f in self.findings)


@dataclass
class Inspection(HasFindings):
    id: str | None
    database: DatabaseInfo | None = None
    transcripts: TranscriptInfo | None = None
    undecoded: list[Finding] = field(default_factory=list)
    """Notes of the encrypted ``.pb`` files listed but never decoded (rule ``pb/not-decoded``)."""

    @property
    def findings(self) -> list[Finding]:  # type: ignore[override]
        """The database's findings, the transcripts', then the notes of the ``.pb`` files not
        decoded; an error makes ``inspect`` exit 1."""
        database = self.database.findings if self.database else []
        return [*database, *(self.transcripts.findings if self.transcripts else ()), *self.undecoded]

    @property
    def exit_code(self) -> int:
        return EXIT_FINDINGS if self.errors else EXIT_OK


def inspect_session(session: Session) -> Inspection:
    result = Inspection(session.id)
    if session.db is not None:
        result.database = inspect_database(session.db)
    if session.brain is not None:
        result.transcripts = inspect_brain(session.brain)
    for pb, what in ((session.legacy_pb, "legacy"), (session.implicit_pb, "implicit")):
        if pb is not None:
            result.undecoded.append(
                Finding("pb/not-decoded", Level.NOTE, f"{what} encrypted .pb, listed but never decoded", str(pb))
            )
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
        findings=[_db_finding(p, path) for p in [*conv.findings, *(p for p in native.findings if p not in conv.findings)]],
    )


def _db_finding(problem: Problem, path: Path) -> Finding:
    rule = UNREADABLE if problem.code in READ_FAILURES else f"db/{problem.code}"
    return Finding(rule, Level.ERROR, problem.message.removeprefix(f"{path}: "), str(path))


def inspect_brain(brain: Path) -> TranscriptInfo:
    read = transcript.read_brain(brain)
    every = (*read.compact, *read.full, *read.overview)
    return _info(brain, read.files.compact, read.files.full, read.full or read.compact, read.findings, every)


def _inspect_transcript_file(path: Path) -> TranscriptInfo:
    """One transcript file, streamed: records are counted and judged, never kept."""
    info = _info(path.parent, (), (path,), (), ())
    for item in transcript.iter_transcript(path):
        if isinstance(item, transcript.Anomaly):
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
    anomalies: Sequence[transcript.Anomaly],
    judged: Iterable[transcript.Record] = (),
) -> TranscriptInfo:
    info = TranscriptInfo(
        brain=brain,
        compact=list(compact),
        full=list(full),
        records=len(records),
        types=Counter(r.type or "?" for r in records),
        statuses=Counter(r.status or "?" for r in records),
    )
    for anomaly in anomalies:
        _judge(anomaly, info)
    for record in judged:
        _judge_record(record, info)
    return info


DISAGREEMENTS = frozenset({"mismatch", "truncation-mismatch"})
"""Reader kinds no contract rule covers that are findings: a compact record whose content
disagrees with its full one (beyond the documented truncation), as ``consistency`` fails a tier
that disagrees with the ``.db``."""


def _judge(a: transcript.Anomaly, info: TranscriptInfo) -> None:
    """The finding the contract makes of a reader anomaly, else ``unreadable`` or ``transcript/<kind>``."""
    judged = contract.stream_finding(a)
    if judged is None and a.kind in contract.SCHEMA_JUDGED:
        return  # the schema's findings of the record stand for it (``_judge_record``)
    if judged is None:
        rule = UNREADABLE if a.kind == "unreadable" else f"transcript/{a.kind}"
        level = Level.ERROR if a.kind == "unreadable" or a.kind in DISAGREEMENTS else Level.WARNING
        judged = Finding(rule, level, a.message, a.file, a.line or None, pointer=a.pointer)
    info.findings.append(judged)


def _judge_record(record: transcript.Record, info: TranscriptInfo) -> None:
    """The transcript-record schema's findings of one record, at its line."""
    for f in contract.validate_document(record.raw, "transcript", file=record.file).findings:
        info.findings.append(replace(f, line=record.line))
