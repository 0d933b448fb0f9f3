"""Brain directories for tests: the three transcript tiers, step outputs, messages, an artifact.

``write_brain`` writes transcript records (``audit.testing.transcript_records.records_from_steps``
derives them from a session's steps) the way agy does (docs/store-format.md#session-files,
#transcript-records, #chunks): ``transcript_full.jsonl`` with native argument values,
``transcript.jsonl`` with every argument as JSON text and long fields truncated, optionally
``overview.txt`` and the rolling chunks of both tiers (split every ``CHUNK_BYTES``, mid-line), and
on request the real-world anomalies of ``ANOMALIES``. Everything is deterministic for a given
``random.Random``.
"""

from __future__ import annotations

import copy
import random
import re
import uuid
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

from audit.safewrite import atomic_write, make_private_dir
from audit.store.transcript import CHUNK_BYTES, parse_content
from audit.strictjson import dumps
from audit.testing.transcript_records import parse_time

DISPLAY_HOME = "/home/agy"  # the home directory written into URIs inside generated content
ANOMALIES = frozenset(
    {
        "late-start",
        "late-full",
        "repeated-step",
        "inverted-step",
        "torn-line",
        "running",
        "truncated",
        "truncated-arg",
        "backward-time",
        "step-gap",
    }
)
"""``late-start``: the compact transcript is a window starting after step 0; ``late-full``: the
full transcript is a window too, starting later than the compact one; ``repeated-step``: a record
re-emitted with the same step_index right after itself; ``inverted-step``: two adjacent records
swapped; ``torn-line``: one full-transcript line lacks its JSON prefix; ``running``: a finished
RUN_COMMAND logged as a still-RUNNING background task; ``truncated``: compact fields truncated
from 64 characters on (instead of the normal 2,048) with ``<truncated N ...>`` markers;
``truncated-arg``: one compact argument cut by ``<truncated N bytes>`` on a line whose
``truncated_fields`` does not name ``tool_calls`` (188 real values are); ``backward-time``: one
record's ``created_at`` earlier than the line before (real files have 74); ``step-gap``: one step
written to neither tier (an errored step or error message where there is one: agy leaves some
steps out of its transcripts, and gaps are common in real files)."""
CHUNKS = ("none", "both", "only")
"""``chunks``: none; ``both``: the flat files and their chunks (byte-identical); ``only``: the chunks alone."""

_HEADER = re.compile(r"^(?:Created|Completed) At:.*\n", re.M)


@dataclass(frozen=True)
class BrainInfo:
    brain_dir: Path
    compact: Path  # the flat file (not written when chunks="only")
    full: Path
    compact_start: int  # index of the record the compact window starts at
    steps: tuple[int | None, ...]  # step_index of every full-transcript line, in file order (None: the line has none)
    injected: dict[str, int | None]  # anomaly -> 1-based full-transcript line it was injected at; a compact line
    # for truncated-arg, and for a record before the start of a late full window
    files: tuple[Path, ...]  # every file written
    full_start: int = 0  # index of the record the full window starts at
    overview: Path | None = None
    chunks: dict[str, tuple[Path, ...]] = field(default_factory=dict)  # tier -> chunk parts written


def write_brain(
    brain_dir: str | Path,
    records: list[dict[str, Any]],
    *,
    rng: random.Random,
    anomalies: frozenset[str] | set[str] = frozenset(),
    compact_window_start: int | None = None,
    chunks: str = "none",
    chunk_bytes: int = CHUNK_BYTES,
    overview: bool = False,
) -> BrainInfo:
    """Write ``brain_dir`` with *records* as its full transcript and the matching compact one.

    The compact transcript holds the records from ``compact_window_start`` (an index into
    *records*; default 0, or a random later one with ``late-start``) with every argument as JSON
    text and long fields truncated; the full one holds them all (from a later random index with
    ``late-full``) with native argument values. ``chunks`` (``CHUNKS``) adds or substitutes the
    rolling chunks of both tiers, split every *chunk_bytes* bytes; ``overview`` adds
    ``logs/overview.txt`` (the USER_INPUT and PLANNER_RESPONSE records of every step, compact
    encoding, no thinking, no ``truncated_fields``). Every RUNNING RUN_COMMAND record becomes a
    background task with a ``tasks/task-N.log``. Raises ValueError for an unknown anomaly or
    one the records leave no room for.
    """
    if unknown := set(anomalies) - ANOMALIES:
        raise ValueError(f"unknown anomalies: {', '.join(sorted(unknown))}")
    if chunks not in CHUNKS:
        raise ValueError(f"chunks must be one of {', '.join(CHUNKS)}, not {chunks!r}")
    brain_dir = Path(brain_dir)
    lines = copy.deepcopy(records)
    marked: dict[str, dict[str, Any]] = {}  # anomaly -> the record that shows it
    busy: list[dict[str, Any]] = []  # every record an anomaly touched (never the torn line)

    def pick(name: str, candidates: list[int]) -> int:
        if not candidates:
            raise ValueError(f"no room for the {name!r} anomaly in {len(lines)} records")
        return rng.choice(candidates)

    if "running" in anomalies:
        i = pick("running", [i for i, r in enumerate(lines) if r.get("type") == "RUN_COMMAND" and r.get("status") != "RUNNING"])
        lines[i]["status"] = "RUNNING"
        lines[i]["content"] = "".join(_HEADER.findall(lines[i].get("content", "")))
        lines[i].pop("exit_code", None)
        marked["running"] = lines[i]
        busy.append(lines[i])
    start = compact_window_start
    if start is None:
        start = pick("late-start", list(range(1, len(lines) // 2 + 1))) if "late-start" in anomalies else 0
    if not 0 <= start <= len(lines):
        raise ValueError(f"compact_window_start {start} outside 0..{len(lines)}")
    if "late-start" in anomalies and start == 0:
        raise ValueError("the 'late-start' anomaly needs compact_window_start > 0")
    if start < len(lines):
        marked["late-start"] = lines[start]
        busy.append(lines[start])
    full_start = 0
    if "late-full" in anomalies:
        full_start = pick("late-full", list(range(start + 1, start + 1 + max(0, (len(lines) - start) // 3))))
        marked["late-full"] = lines[full_start]
        busy.append(lines[full_start])
    window = max(start, full_start)  # what both tiers hold
    if "inverted-step" in anomalies:
        i = pick(
            "inverted-step",
            [
                i
                for i in range(window + 1, len(lines) - 1)
                if lines[i - 1].get("step_index", -9) + 1 == lines[i].get("step_index") == lines[i + 1].get("step_index", -9) - 1
            ],
        )
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        marked["inverted-step"] = lines[i + 1]
        busy += lines[i : i + 2]
    if "repeated-step" in anomalies:
        candidates = [i for i in range(window, len(lines)) if "step_index" in lines[i]]
        preferred = [i for i in candidates if lines[i].get("type") in ("USER_INPUT", "PLANNER_RESPONSE")]
        i = pick("repeated-step", preferred or candidates)
        lines.insert(i + 1, copy.deepcopy(lines[i]))
        marked["repeated-step"] = lines[i + 1]
        busy += lines[i : i + 2]
    if "backward-time" in anomalies:
        touched = {id(r) for r in busy}
        i = pick(
            "backward-time",
            [
                i
                for i in range(window + 1, len(lines))
                if "created_at" in lines[i] and "created_at" in lines[i - 1] and id(lines[i]) not in touched
            ],
        )
        earlier = parse_time(lines[i - 1]["created_at"]) - timedelta(seconds=rng.randrange(5, 90))
        lines[i]["created_at"] = earlier.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        marked["backward-time"] = lines[i]
        busy.append(lines[i])
    if "step-gap" in anomalies:
        touched = {id(r) for r in busy}
        inside = [
            i
            for i in range(window + 1, len(lines) - 1)
            if id(lines[i]) not in touched
            and lines[i - 1].get("step_index", -9) + 1 == lines[i].get("step_index") == lines[i + 1].get("step_index", -9) - 1
            and max(r.get("step_index", -1) for r in lines[:i]) == lines[i - 1]["step_index"]
        ]
        errors = [i for i in inside if lines[i].get("status") == "ERROR" or lines[i].get("type") == "ERROR_MESSAGE"]
        i = pick("step-gap", errors or inside)
        marked["step-gap"] = lines[i + 1]  # the record after the gap shows it
        busy.append(lines[i + 1])
        del lines[i]
    task_logs = _background_tasks(lines, brain_dir)

    full_lines = lines[full_start:]
    full_text = [dumps(r, indent=None) for r in full_lines]
    if "torn-line" in anomalies:
        touched = {id(r) for r in busy}
        i = pick("torn-line", [i for i, r in enumerate(full_lines) if len(r.get("content", "")) >= 12 and id(r) not in touched])
        cut = full_text[i].index('"content":"') + len('"content":"') + rng.randrange(3, 9)
        full_text[i] = full_text[i][cut:]
        marked["torn-line"] = full_lines[i]
        busy.append(full_lines[i])
    limit = 64 if "truncated" in anomalies else 2048
    compact = [_truncate_record(r, limit) for r in lines[start:]]
    if "truncated" in anomalies:
        cuts = [i for i, r in enumerate(compact) if "truncated_fields" in r]
        if not cuts:
            raise ValueError("no field long enough for the 'truncated' anomaly")
        marked["truncated"] = lines[start + cuts[0]]
    compact_line = {}
    if "truncated-arg" in anomalies:
        i = pick(
            "truncated-arg",
            [
                i
                for i, r in enumerate(compact)
                if "tool_calls" not in r.get("truncated_fields", ())
                and any(len(v) >= 14 for c in r.get("tool_calls", ()) for v in c.get("args", {}).values())
            ],
        )
        args = next(c["args"] for c in compact[i]["tool_calls"] if any(len(v) >= 14 for v in c["args"].values()))
        name = next(k for k, v in args.items() if len(v) >= 14)
        text = args[name]  # head and tail kept around the marker, as agy cuts
        args[name] = text[:6] + f"\n<truncated {len(text[6:-4].encode('utf-8'))} bytes>\n" + text[-4:]
        compact_line["truncated-arg"] = i + 1

    logs = brain_dir / ".system_generated" / "logs"
    compact_bytes = "".join(dumps(r, indent=None) + "\n" for r in compact).encode("utf-8")
    full_bytes = "".join(t + "\n" for t in full_text).encode("utf-8")
    written: list[Path] = []
    parts: dict[str, tuple[Path, ...]] = {}
    if chunks != "only":
        written += [_write(logs / "transcript.jsonl", compact_bytes), _write(logs / "transcript_full.jsonl", full_bytes)]
    if chunks != "none":
        for tier, directory, data in (("compact", "transcript", compact_bytes), ("full", "transcript_full", full_bytes)):
            pieces = [data[i : i + chunk_bytes] for i in range(0, len(data), chunk_bytes)] or [b""]
            parts[tier] = tuple(_write(logs / "chunks" / directory / f"{n:08d}.jsonl", piece) for n, piece in enumerate(pieces))
            written += parts[tier]
    overview_path = None
    if overview:
        kept = [_overview_record(r) for r in lines if r.get("type") in ("USER_INPUT", "PLANNER_RESPONSE")]
        overview_path = _write(logs / "overview.txt", "".join(dumps(r, indent=None) + "\n" for r in kept).encode("utf-8"))
        written.append(overview_path)
    written += [_write(path, text) for path, text in task_logs]
    written += _write_extras(brain_dir, lines, rng)
    position = {id(r): n for n, r in enumerate(full_lines, 1)}
    in_compact = {id(r): n for n, r in enumerate(lines[start:], 1)}
    injected = {  # the full-transcript line, or the compact one for a record before a late full window
        name: position.get(id(r), in_compact.get(id(r))) for name, r in marked.items() if name in anomalies
    }
    injected.update(compact_line)
    return BrainInfo(
        brain_dir=brain_dir,
        compact=logs / "transcript.jsonl",
        full=logs / "transcript_full.jsonl",
        compact_start=start,
        steps=tuple(r.get("step_index") for r in full_lines),
        injected=injected,
        files=tuple(written),
        full_start=full_start,
        overview=overview_path,
        chunks=parts,
    )


def _write(path: Path, text: str | bytes) -> Path:
    make_private_dir(path.parent, exist_ok=True)
    atomic_write(path, text.encode("utf-8") if isinstance(text, str) else text)
    return path


def _background_tasks(lines: list[dict[str, Any]], brain_dir: Path) -> list[tuple[Path, str]]:
    """Give every RUNNING RUN_COMMAND without a task id the background-task body agy logs;
    returns the task logs to write."""
    logs = []
    task = 0
    for i, record in enumerate(lines):
        if record.get("type") != "RUN_COMMAND" or record.get("status") != "RUNNING":
            continue
        if parse_content(record.get("content", "")).task_id:
            continue
        task += 1
        task_id = f"{brain_dir.name}/task-{task}"
        log = brain_dir / ".system_generated" / "tasks" / f"task-{task}.log"
        command = _last_command(lines[:i])
        record["content"] = record.get("content", "") + (
            f"Tool is running as a background task with task id: {task_id}\n"
            f"Task Description: {command}\nTask logs are available at: {_display_uri(log, brain_dir)}"
        )
        logs.append((log, f"$ {command}\n"))
    return logs


def _display_uri(path: Path, brain_dir: Path) -> str:
    """The URI agy would log for *path*, under a fixed home so that output never names this machine."""
    root = brain_dir.parent.parent.name
    root = root if brain_dir.parent.name == "brain" and root.startswith("antigravity") else "antigravity-cli"
    return Path(DISPLAY_HOME, ".gemini", root, "brain", brain_dir.name, path.relative_to(brain_dir)).as_uri()


def _last_command(previous: list[dict[str, Any]]) -> str:
    """The CommandLine of the latest run_command call before a result (how DJ pairs them)."""
    for record in reversed(previous):
        for call in reversed(record.get("tool_calls", [])):
            if call.get("name") == "run_command" and "CommandLine" in call.get("args", {}):
                return str(call["args"]["CommandLine"])
    return ""


def _truncate_record(record: dict[str, Any], limit: int) -> dict[str, Any]:
    """The compact tier's form of a record: every argument as JSON text, long fields truncated."""
    out = copy.deepcopy(record)
    cut = [key for key in ("content", "thinking") if len(out.get(key, "")) > limit]
    for key in cut:
        out[key] = _truncate(out[key], limit)
    for call in out.get("tool_calls", []):
        call["args"] = {name: dumps(value, indent=None) for name, value in call.get("args", {}).items()}
        for name, value in call["args"].items():
            if len(value) > limit:
                call["args"][name] = _truncate(value, limit)
                if "tool_calls" not in cut:
                    cut.append("tool_calls")
    if cut:
        out["truncated_fields"] = cut
    return out


def _overview_record(record: dict[str, Any], limit: int = 2048) -> dict[str, Any]:
    """A record as ``overview.txt`` holds it: the compact encoding, no thinking, no
    ``truncated_fields``, long values cut by ``<truncated N bytes>`` markers."""
    out = {k: v for k, v in _truncate_record(record, limit).items() if k not in ("thinking", "truncated_fields")}
    return out


def _truncate(text: str, limit: int) -> str:
    """Head and tail kept around a ``<truncated N lines>`` or ``<truncated N bytes>`` marker."""
    lines = text.split("\n")
    if len(lines) > 9:
        return "\n".join(lines[:3]) + f"\n<truncated {len(lines) - 5} lines>\n" + "\n".join(lines[-2:])
    head, tail = limit // 2, limit // 4
    return text[:head] + f"<truncated {len(text[head:-tail].encode('utf-8'))} bytes>" + text[-tail:]


def _write_extras(brain_dir: Path, lines: list[dict[str, Any]], rng: random.Random) -> list[Path]:
    """Step outputs, the message queue and one artifact with its metadata."""
    system = brain_dir / ".system_generated"
    outputs = {
        record["step_index"]: record["content"].split("Output:\n", 1)[-1]
        for record in lines
        if record.get("type") == "RUN_COMMAND"
        and "step_index" in record
        and parse_content(record.get("content", "")).exit_code is not None
    }
    written = [_write(system / "steps" / str(n) / "output.txt", text) for n, text in outputs.items()]
    last = next((r["created_at"] for r in reversed(lines) if "created_at" in r), "2026-09-01T09:00:00Z")
    stamp = parse_time(last)

    def nanos(seconds: int) -> str:
        moment = stamp + timedelta(seconds=seconds)
        return moment.strftime("%Y-%m-%dT%H:%M:%S") + f".{rng.randrange(1, 10**9):09d}Z"

    message_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    message = {
        "id": message_id,
        "recipient": brain_dir.name,
        "sender": "system",
        "priority": "MESSAGE_PRIORITY_NORMAL",
        "timestamp": nanos(1),
        "content": "Background task finished.",
    }
    messages = system / "messages"
    written.append(_write(messages / f"{message_id}.json", dumps(message) + "\n"))
    written.append(_write(messages / "cursor.json", dumps({"last_read_unix_nano": int(stamp.timestamp() + 2) * 10**9}) + "\n"))
    written.append(_write(messages / "read.json", dumps({message_id: True}) + "\n"))
    written.append(_write(brain_dir / "task.md", "# Task\n\n- [x] Read the code\n- [ ] Run the tests\n"))
    meta = {
        "artifactType": "ARTIFACT_TYPE_OTHER",
        "summary": "Task checklist for this conversation.",
        "updatedAt": nanos(3),
        "requestFeedback": False,
        "userFacing": True,
    }
    written.append(_write(brain_dir / "task.md.metadata.json", dumps(meta) + "\n"))
    return written
