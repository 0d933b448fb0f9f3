"""Checking sessions: each ``.db`` read and its invariants checked, its transcripts compared with it.

``check_session`` reads a session's ``.db`` (unless given it) and checks its invariants; where the
session has a brain, ``read_tiers`` reads each transcript tier and every record is compared with
the ``.db`` step of its index (``_Session``, ``_Step``; the values with ``agreement``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks import invariants
from audit.checks.consistency.agreement import arg_agrees, excerpt, floor_second, shown_arg, text_agrees, text_difference
from audit.checks.consistency.session_targets import SessionTarget, targets, targets_in_roots
from audit.checks.consistency.verdicts import (
    INCONSISTENT,
    NO_DB,
    OVERVIEW,
    UNREADABLE,
    UNREADABLE_RULE,
    WINDOW_RULE,
    Report,
    SessionResult,
)
from audit.errors import NothingToCheck
from audit.findings import Finding, Level
from audit.progress import Callback, tracked
from audit.store import transcript as tr
from audit.store.database import NativeConversation, read_database
from audit.store.layout import Root
from audit.store.trajectory import NativeTrajectory, reconstruct
from audit.strictjson import JSONError, loads_text

_FATAL_DB = frozenset({"unreadable", "empty", "not-sqlite", "truncated", "corrupt", "locked"})
_OPEN = frozenset({"UNSPECIFIED", "PENDING", "GENERATING", "WAITING", "QUEUED", "RUNNING"})
"""Statuses a step leaves; any other is final."""
_SPELLING = {"CANCELLED": "CANCELED"}
_ERROR_TEXTS = ("modelErrorMessage", "shortError", "userErrorMessage", "fullError")


def check(paths: Iterable[str | os.PathLike[str]], *, progress: Callback | None = None) -> Report:
    """Check every session under *paths* (see ``targets``); raises ``NothingToCheck`` when there
    is no ``.db``. *progress* is told before each session."""
    return check_targets(targets(paths), progress=progress)


def check_roots(roots: Iterable[Root], *, progress: Callback | None = None) -> Report:
    return check_targets(targets_in_roots(roots), progress=progress)


def check_targets(found: list[SessionTarget], *, progress: Callback | None = None) -> Report:
    if not found:
        raise NothingToCheck(NO_DB)
    return Report([check_session(t) for t in tracked(found, progress, lambda t: t.id)])


def check_session(target: SessionTarget, decoded: tuple[NativeConversation, NativeTrajectory] | None = None) -> SessionResult:
    """The verdict on one session; its ``.db`` is read here unless given *decoded* (a snapshot of
    it as ``read_database`` and ``reconstruct`` give it)."""
    result = SessionResult(target.id, target.db, target.brain)
    conv = decoded[0] if decoded is not None else read_database(target.db)
    fatal = [f for f in conv.findings if f.code in _FATAL_DB]
    if fatal or not conv.access:
        for f in fatal or conv.findings:
            result.findings.append(Finding(UNREADABLE_RULE, Level.ERROR, f.message, str(target.db)))
        result.verdict = UNREADABLE
        return result
    native = decoded[1] if decoded is not None else reconstruct(conv)
    steps = native.trajectory.get("steps", [])
    idx = [row.get("idx") for row in conv.steps]
    result.db_steps = len(steps)
    codes: dict[str, list[str]] = {}
    for f in native.findings:
        codes.setdefault(f.code, []).append(f.message)
    for code, messages in sorted(codes.items()):
        more = f" (+{len(messages) - 1} more)" if len(messages) > 1 else ""
        result.findings.append(Finding("consistency/db-decode", Level.WARNING, f"{code}: {messages[0]}{more}", str(target.db)))
    result.findings += invariants.check(conv, steps, idx)
    if target.brain is not None:
        by_idx = {i: s for i, s in zip(idx, steps) if isinstance(i, int)}
        _Session(result, target, by_idx).compare()
    if any(f.rule == UNREADABLE_RULE for f in result.findings):
        result.verdict = UNREADABLE
    elif result.errors:
        result.verdict = INCONSISTENT
    return result


@dataclass
class TierRecords:
    """One tier of a brain: how many records were read, and the last record of each step index."""

    records: int = 0
    latest: dict[int, tr.Record] = field(default_factory=dict)


def read_tiers(brain: Path) -> tuple[dict[str, TierRecords], list[tr.Anomaly]]:
    """The tiers of *brain* that have files, and the reading findings. Records are streamed; only
    the last record of each step index is kept (a repeated index supersedes earlier ones)."""
    files = tr.locate(brain)
    tiers: dict[str, TierRecords] = {}
    findings: list[tr.Anomaly] = [tr.Anomaly(str(d), 0, "unreadable", f"cannot list: {why}") for d, why in files.unlisted]
    for tier in files.tiers:  # each tier's stream: its flat file, or its chunks read as one byte stream
        found = tiers[tier.name] = TierRecords()
        for item in tr.iter_transcript(tier.stream, tier=tier.name):
            if isinstance(item, tr.Anomaly):
                findings.append(item)
                continue
            found.records += 1
            if item.step_index is not None:
                found.latest[item.step_index] = item
    return tiers, findings


class _Session:
    def __init__(self, result: SessionResult, target: SessionTarget, steps: dict[int, dict[str, Any]]) -> None:
        self.result = result
        self.target = target
        self.steps = steps
        self.unknown: set[tuple[str, object]] = set()
        self.parsed: dict[str, dict[str, Any] | None] = {}  # argumentsJson -> its object (None: not one)
        self.seconds: dict[str, str | None] = {}  # timestamp -> floor_second of it
        self.calls: dict[str, tuple[int, int, int]] = {}  # call id -> (planner step, position, calls of the planner)
        for i, step in sorted(steps.items()):
            planned = (step.get("plannerResponse") or {}).get("toolCalls") or []
            for k, call in enumerate(planned):
                if isinstance(call, dict) and isinstance(call.get("id"), str) and call["id"]:
                    self.calls.setdefault(call["id"], (i, k, len(planned)))

    def arguments(self, arguments_json: object) -> dict[str, Any] | None:
        """A planner call's ``argumentsJson`` as an object (none or empty: ``{}``), None when it is
        not a JSON object; each text is parsed once per session (the tiers compare the same calls)."""
        text = arguments_json if isinstance(arguments_json, str) and arguments_json else "{}"
        if text not in self.parsed:
            try:
                value = loads_text(text)
            except JSONError:
                value = None
            self.parsed[text] = value if type(value) is dict else None
        return self.parsed[text]

    def second(self, text: object) -> str | None:
        """``floor_second(text)``, once per text and session (each tier meets a .db step's createdAt)."""
        if not isinstance(text, str):
            return None
        if (known := self.seconds.get(text, "")) == "":
            known = self.seconds[text] = floor_second(text)
        return known

    def same_second(self, second: str, text: str) -> bool:
        """``second == floor_second(text)`` for a *second* that ``floor_second`` gave: a text that is that
        second itself (``YYYY-MM-DDTHH:MM:SSZ``, a 4-digit year) is not parsed again."""
        if text == second and len(second) == 20 and second[0] != "0":
            return True
        return second == self.second(text)

    def add(self, level: Level, rule: str, message: str, step: int | None = None, record: tr.Record | None = None) -> None:
        file, line = (record.file, record.line) if record is not None else (None, None)
        self.result.findings.append(Finding(rule, level, message, file, line, details={} if step is None else {"step": step}))

    def compare(self) -> None:
        if self.target.brain is None:
            return
        records, findings = read_tiers(self.target.brain)
        for f in findings:
            if f.kind == "unreadable":
                self.result.findings.append(Finding(UNREADABLE_RULE, Level.ERROR, f.message, f.file, f.line or None))
        last_db = max(self.steps, default=-1)
        for tier, found in records.items():
            self.result.records[tier] = found.records
            joined = [(i, r) for i, r in sorted(found.latest.items()) if i in self.steps]
            self.result.joined[tier] = len(joined)
            self._coverage(tier, found.latest, last_db)
            for i, record in joined:
                _Step(self, tier, i, self.steps[i], record, found.latest).compare()

    def _coverage(self, tier: str, latest: dict[int, tr.Record], last_db: int) -> None:
        if not latest:
            return
        first_record = min(latest.values(), key=lambda r: (r.step_index, r.line))
        file = first_record.file
        first, last = min(latest), max(latest)
        if first > 0 and first <= last_db:
            self.add(
                Level.WARNING,
                WINDOW_RULE,
                f"{tier} transcript starts at step {first}: .db steps 0-{first - 1} not compared",
                record=first_record,
            )
        missing = [i for i in self.steps if first <= i <= min(last, last_db) and i not in latest]
        if missing:
            listed = ", ".join(map(str, missing[:8])) + (f" (+{len(missing) - 8} more)" if len(missing) > 8 else "")
            self.result.findings.append(
                Finding("consistency/gap", Level.WARNING, f"{tier} transcript has no record of .db step(s) {listed}", file)
            )
        beyond = sorted(i for i in latest if i > last_db)
        if beyond:
            wal, shm = (os.path.lexists(f"{self.target.db}{s}") for s in ("-wal", "-shm"))
            why = (
                "the .db has a -shm but no -wal: its newest commits are missing (copied without its -wal?)"
                if shm and not wal
                else "the .db lags its transcript (a session in progress, or a copy taken before the last commit)"
            )
            record = latest[beyond[0]]
            self.add(
                Level.WARNING,
                "consistency/beyond",
                f"{tier} transcript has {len(beyond)} step(s) beyond the last .db step {last_db} (from {beyond[0]}); {why}",
                beyond[0],
                record,
            )

    def unknown_enum(self, what: str, value: object, step: int) -> None:
        if (what, value) not in self.unknown:
            self.unknown.add((what, value))
            self.add(
                Level.WARNING,
                "consistency/unknown-enum",
                f".db {what} {value} has no name in cortex.proto; {what} not compared",
                step,
            )


_PREFIXES = {"type": "CORTEX_STEP_TYPE_", "status": "CORTEX_STEP_STATUS_", "source": "CORTEX_STEP_SOURCE_"}


class _Step:
    __slots__ = ("session", "tier", "index", "step", "record", "planners")  # one per joined record: made many times

    def __init__(
        self, session: _Session, tier: str, index: int, step: dict[str, Any], record: tr.Record, planners: dict[int, tr.Record]
    ) -> None:
        self.session = session
        self.tier = tier
        self.index = index
        self.step = step
        self.record = record
        self.planners = planners  # step index -> record of this tier (the last one of a repeated index)

    def add(self, rule: str, message: str, level: Level = Level.ERROR) -> None:
        kind = self._name("type", self.step.get("type")) or "?"
        self.session.add(level, rule, f"step {self.index} ({kind}) {message}", self.index, self.record)

    def _name(self, what: str, value: object) -> str | None:
        """The enum name without its prefix; None when absent or a number cortex.proto does not name."""
        if isinstance(value, str):
            name = value.removeprefix(_PREFIXES[what])
            return _SPELLING.get(name, name)
        if value is not None:
            self.session.unknown_enum(what, value, self.index)
        return None

    def compare(self) -> None:
        r, meta = self.record, self.step.get("metadata") or {}
        db_type = self._name("type", self.step.get("type"))
        if db_type is not None and r.type is not None and db_type != r.type:
            self.add("consistency/type", f"type: .db {db_type}, {self.tier} transcript {r.type}")
            return  # the rest would compare different kinds of steps
        db_source = self._name("source", meta.get("source"))
        if db_source is not None and r.source is not None and db_source != r.source:
            self.add("consistency/source", f"source: .db {db_source}, {self.tier} transcript {r.source}")
        created = self.session.second(meta.get("createdAt"))
        if created is not None and r.created_at is not None and not self.session.same_second(created, r.created_at):
            self.add("consistency/created-at", f"createdAt: .db {meta.get('createdAt')}, {self.tier} transcript {r.created_at}")
        # proto3 JSON drops a zero status on both sides: absent is UNSPECIFIED (a state a step leaves)
        raw = self.step.get("status")
        db_status = "UNSPECIFIED" if raw is None else self._name("status", raw)
        tr_status = "UNSPECIFIED" if r.status is None else _SPELLING.get(r.status, r.status)
        if db_status is None:
            return  # a number cortex.proto does not name: neither status nor content can be judged
        if db_status != tr_status:
            if db_status in _OPEN or tr_status in _OPEN:
                self.add(
                    "consistency/status-lag",
                    f"status: .db {db_status}, {self.tier} transcript {tr_status}; content not compared",
                    Level.WARNING,
                )
            else:
                self.add("consistency/status", f"status: .db {db_status}, {self.tier} transcript {tr_status}")
            return
        kind = db_type or r.type
        if kind == "USER_INPUT":
            self._prompt()
        elif kind == "PLANNER_RESPONSE":
            self._planner()
        elif kind == "RUN_COMMAND":
            self._run_command()
        self._error()

    # -- USER_INPUT ----------------------------------------------------------------------------

    def _prompt(self) -> None:
        payload = self.step.get("userInput") or {}
        text = payload.get("userResponse")
        if not isinstance(text, str) or not text:
            items = payload.get("items") or []
            text = "".join(i.get("text", "") for i in items if isinstance(i, dict) and isinstance(i.get("text"), str))
        request = tr.user_request(self.record.content or "")
        if request is None:
            return  # no <USER_REQUEST> block (or cut away by truncation): nothing to compare
        if not text_agrees(request, text.strip()):
            self.add("consistency/prompt", f"user prompt {text_difference(text.strip(), request, self.tier)}")

    # -- PLANNER_RESPONSE -------------------------------------------------------------------------

    def _planner(self) -> None:
        payload = self.step.get("plannerResponse") or {}
        content = self.record.content or ""
        responses = [v for v in (payload.get("modifiedResponse"), payload.get("response")) if isinstance(v, str)] or [""]
        if not any(text_agrees(content, v) for v in responses):
            self.add("consistency/response", f"response {text_difference(responses[0], content, self.tier)}")
        thinking = payload["thinking"] if isinstance(payload.get("thinking"), str) else ""
        if self.tier != OVERVIEW and not text_agrees(self.record.thinking or "", thinking):
            self.add("consistency/thinking", f"thinking {text_difference(thinking, self.record.thinking or '', self.tier)}")
        db_calls = [c for c in payload.get("toolCalls") or [] if isinstance(c, dict)]
        tr_calls = self.record.tool_calls
        if self.tier == OVERVIEW and "tool_calls" not in self.record.raw:
            return  # the overview need not carry tool calls
        if len(db_calls) != len(tr_calls):
            self.add("consistency/tool-calls", f"tool calls: .db {len(db_calls)}, {self.tier} transcript {len(tr_calls)}")
            return
        for k, (db_call, tr_call) in enumerate(zip(db_calls, tr_calls)):
            name = db_call.get("name") or ""
            if tr_call.name is not None and name != tr_call.name:
                self.add("consistency/tool-name", f"tool call {k}: .db {name!r}, {self.tier} transcript {tr_call.name!r}")
                continue
            self._arguments(k, name, db_call.get("argumentsJson"), tr_call)

    def _arguments(self, k: int, name: str, arguments_json: object, call: tr.ToolCall) -> None:
        db_args = self.session.arguments(arguments_json)
        if db_args is None:
            self.add(
                "consistency/tool-args",
                f"tool call {k} ({name}): .db argumentsJson is not a JSON object; not compared",
                Level.WARNING,
            )
            return
        args, only_db, differ = call.args, [], []
        for key, value in db_args.items():
            if key not in args:
                only_db.append(key)
            elif arg_agrees(args[key], value, self.tier) is False:
                differ.append(key)
        only_tr = [key for key in args if key not in db_args]
        parts = []
        if only_db:
            parts.append(f"only in the .db: {', '.join(only_db)}")
        if only_tr:
            parts.append(f"only in the {self.tier} transcript: {', '.join(only_tr)}")
        if differ:
            parts.append(f"values differ: {', '.join(differ)}")
        if parts:
            self.add("consistency/tool-args", f"tool call {k} ({name}) arguments: {'; '.join(parts)}")

    # -- RUN_COMMAND ----------------------------------------------------------------------------

    def _run_command(self) -> None:
        payload = self.step.get("runCommand") or {}
        code = self.record.exit_code if self.record.exit_code is not None else tr.command_exit_code(self.record.content or "")
        if code is not None:
            db_code = payload.get("exitCode")
            if db_code is None:
                self.add("consistency/exit-code", f"exit code: .db none, {self.tier} transcript {code}")
            elif db_code != code:
                self.add("consistency/exit-code", f"exit code: .db {db_code}, {self.tier} transcript {code}")
        command = payload.get("commandLine")
        given = self._called_command()
        if isinstance(command, str) and given is not None and arg_agrees(given, command, self.tier) is False:
            self.add("consistency/command-line", f"command line {text_difference(command, shown_arg(given), self.tier)}")

    def _called_command(self) -> tr.Arg | None:
        """The CommandLine argument the transcript's planner call gives for this step (the call
        is found by the id of the step's copied call among the ``.db``'s earlier planner calls)."""
        call_id = ((self.step.get("metadata") or {}).get("toolCall") or {}).get("id")
        planner, k, count = self.session.calls.get(call_id, (None, 0, 0)) if isinstance(call_id, str) else (None, 0, 0)
        if planner is None or planner >= self.index or planner not in self.planners:
            return None
        calls = self.planners[planner].tool_calls
        return calls[k].args.get("CommandLine") if len(calls) == count else None

    # -- errors -----------------------------------------------------------------------------------

    def _error(self) -> None:
        if self.record.error is None and self.record.error_code is None:
            return  # the transcript gives neither: nothing to compare
        details = [d for d in ((self.step.get("errorMessage") or {}).get("error"), self.step.get("error")) if isinstance(d, dict)]
        text = self.record.error
        if text is not None:
            texts = [d[key] for d in details for key in _ERROR_TEXTS if isinstance(d.get(key), str) and d.get(key)]
            if not texts:
                self.add("consistency/error", f"error: the .db records no error text, {self.tier} transcript {excerpt(text)}")
            elif not any(text_agrees(text, t) for t in texts):
                self.add("consistency/error", f"error {text_difference(texts[0], text, self.tier)}")
        code = self.record.error_code
        if code is not None:
            db_code = next((d["errorCode"] for d in details if isinstance(d.get("errorCode"), int)), 0)
            if db_code != code:
                self.add("consistency/error-code", f"error code: .db {db_code or 'none'}, {self.tier} transcript {code}")
