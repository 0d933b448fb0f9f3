"""Which sessions a sweep takes: a selection by id or id prefix, by the time of the first step
(``since``), the newest N by that time, and only the sessions the sweep can read.

A session's first step time is read cheaply: the ``created_at`` of the ``metadata`` of its
lowest-index ``steps`` row (``CortexStepMetadata.created_at``, equal to the transcript's to the
second on every real step measured), through a read-only snapshot of the ``.db``; without a
readable one (a legacy ``.pb``, a brain-only session, a damaged ``.db``), the first
``created_at`` of its transcript (compact tier, else full). Unknown when neither gives one: such
a session is left out by ``since`` and comes last for ``newest``, with that reason.

Filters apply in order -- readable only, ids, since, newest -- and each session left out is
``Excluded`` with the first reason that left it out: nothing is left out silently.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from google.protobuf.message import DecodeError

from audit.errors import AuditError, UsageError
from audit.store.database import open_snapshot
from audit.store.layout import Session
from audit.store.proto import cortex_pb2 as pb
from audit.store.transcript import Record, iter_transcript, locate

READABLE_ONLY = "--readable-only"
"""The option that leaves out the sessions a sweep cannot read."""
UNREADABLE = f"legacy encrypted .pb: only the daemon can read it ({READABLE_ONLY} leaves it out)"


@dataclass(frozen=True)
class Selection:
    """What ``sweep``, ``ci`` and ``record`` were asked to take (nothing given: every session)."""

    ids: tuple[str, ...] = ()  # ids or id prefixes, lower-case
    since: str | None = None  # YYYY-MM-DD (UTC midnight) or an RFC 3339 instant in UTC
    newest: int | None = None
    readable_only: bool = False

    @property
    def given(self) -> bool:
        return bool(self.ids or self.since or self.newest or self.readable_only)

    @property
    def samples(self) -> bool:
        """Whether it may leave out sessions the sweep could read (by id, time or number): the
        sessions it takes are then a sample, and what they lack is no evidence of absence."""
        return bool(self.ids or self.since or self.newest)

    def to_json(self) -> dict[str, Any]:
        return {"ids": list(self.ids), "since": self.since, "newest": self.newest, "readableOnly": self.readable_only}

    @classmethod
    def from_json(cls, doc: object) -> Selection | None:
        """The selection a manifest or a baseline states (None: none, or not one)."""
        if not isinstance(doc, dict):
            return None
        ids, since, newest = doc.get("ids") or [], doc.get("since"), doc.get("newest")
        return cls(
            tuple(str(i) for i in ids) if isinstance(ids, list) else (),
            since if isinstance(since, str) else None,
            newest if isinstance(newest, int) and not isinstance(newest, bool) else None,
            doc.get("readableOnly") is True,
        )

    def describe(self, sessions: int, excluded: int | None = None) -> str:
        """``12 session(s) since 2026-11-01 (readable only; 140 left out)``."""
        text = f"{'the newest ' if self.newest else ''}{sessions} session(s)"
        if self.since:
            text += f" since {self.since}"
        if self.ids:
            text += f" with id {' or '.join(f'{i}…' if len(i) < 36 else i for i in self.ids)}"
        notes = ["readable only"] if self.readable_only else []
        notes += [f"{excluded} left out"] if excluded is not None else []
        return text + (f" ({'; '.join(notes)})" if notes else "")


def parse_since(text: str) -> str:
    """A ``--since`` value: a date (``2026-11-01``, UTC midnight) or an RFC 3339 instant (a time
    without a zone is UTC), kept as ``YYYY-MM-DD`` or ``YYYY-MM-DDTHH:MM:SS[.ffffff]Z``. Raises
    ``ValueError`` saying what it must be."""
    try:
        if len(text) == 10:
            return date.fromisoformat(text).isoformat()
        moment = _instant(text).astimezone(UTC)
    except ValueError:
        raise ValueError(f"{text!r} is not a date (YYYY-MM-DD) or an RFC 3339 time") from None
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + (f".{moment.microsecond:06d}" if moment.microsecond else "") + "Z"


def parse_id_prefix(text: str) -> str:
    """A ``--session`` value: a session id or the start of one (hex digits and ``-``), lower-case.
    Raises ``ValueError`` saying what it must be."""
    value = text.strip().lower()
    if not value or value.strip("0123456789abcdef-"):
        raise ValueError(f"{text!r} is not a session id or the start of one (hex digits and '-')")
    return value


def _instant(text: str) -> datetime:
    """An RFC 3339 time (``Z`` or an offset; none: UTC)."""
    found = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    return found if found.tzinfo is not None else found.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Excluded:
    session: Session
    reason: str


@dataclass
class Chosen:
    """The sessions a selection keeps, in their order, and those it leaves out."""

    kept: list[Session]
    excluded: list[Excluded] = field(default_factory=list)


def choose(sessions: Sequence[Session], selection: Selection, readable: Callable[[Session], bool]) -> Chosen:
    """Apply *selection* to *sessions* (one per id); *readable* tells whether the sweep can read
    a session's conversation. Raises ``UsageError`` for an id prefix that matches no session."""
    chosen = Chosen(list(sessions))
    if selection.readable_only:
        _keep(chosen, readable, lambda s: UNREADABLE)
    for prefix in selection.ids:
        if not any(s.id.startswith(prefix) for s in sessions):
            raise UsageError(f"--session {prefix}: no session's id starts with it")
    if selection.ids:
        _keep(chosen, lambda s: s.id.startswith(selection.ids), lambda s: "not among the sessions --session names")
    if not (selection.since or selection.newest):
        return chosen
    started = {s.id: first_step_time(s) for s in chosen.kept}
    if selection.since:
        since = _instant(selection.since)

        def after(s: Session) -> bool:
            moment = started[s.id]
            return moment is not None and moment >= since

        _keep(chosen, after, lambda s: _before(started[s.id], f"--since {selection.since}"))
    if selection.newest:
        order = sorted(chosen.kept, key=lambda s: started[s.id] or datetime.min.replace(tzinfo=UTC), reverse=True)
        newest = {s.id for s in order[: selection.newest]}
        _keep(chosen, lambda s: s.id in newest, lambda s: _before(started[s.id], f"not among the newest {selection.newest}"))
    return chosen


def _before(moment: datetime | None, what: str) -> str:
    if moment is None:
        return f"first step time unknown (no readable step or transcript record): {what}"
    return f"first step {moment.strftime('%Y-%m-%dT%H:%M:%SZ')}: {'before ' if what.startswith('--') else ''}{what}"


def _keep(chosen: Chosen, keep: Callable[[Session], bool], why: Callable[[Session], str]) -> None:
    kept = []
    for s in chosen.kept:
        if keep(s):
            kept.append(s)
        else:
            chosen.excluded.append(Excluded(s, why(s)))
    chosen.kept = kept


def first_step_time(session: Session) -> datetime | None:
    """When the session's first step was created (see the module docstring), or None."""
    if session.db is not None:
        found = db_first_step(session.db)
        if found is not None:
            return found
    return _transcript_first_step(session.brain) if session.brain is not None else None


_FIRST_STEP = "SELECT metadata FROM steps WHERE metadata IS NOT NULL ORDER BY idx LIMIT 1"


def db_first_step(path: Path) -> datetime | None:
    """When the first step of the conversation ``.db`` at *path* was created, or None."""
    try:
        with open_snapshot(path) as (conn, _):
            row = conn.execute(_FIRST_STEP).fetchone()
        if row is None or not isinstance(row[0], bytes):
            return None
        meta = pb.CortexStepMetadata.FromString(row[0])
    except (sqlite3.Error, AuditError, OSError, DecodeError):
        return None
    if not meta.HasField("created_at"):
        return None
    try:
        return meta.created_at.ToDatetime(tzinfo=UTC)
    except (ValueError, OverflowError):
        return None


def _transcript_first_step(brain: Path) -> datetime | None:
    found = locate(brain)
    stream = next((t.stream for t in found.tiers if t.name in ("compact", "full")), ())
    for item in iter_transcript(stream) if stream else ():
        if isinstance(item, Record) and item.created_at:
            try:
                return _instant(item.created_at)
            except ValueError:
                return None
    return None


def excluded_json(excluded: Iterable[Excluded]) -> list[dict[str, Any]]:
    return [
        {"id": e.session.id, "product": e.session.product, "path": str(e.session.source or e.session.brain), "reason": e.reason}
        for e in excluded
    ]
