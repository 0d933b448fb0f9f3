"""Planted disagreements between a ``.db`` and its brain transcript, for the consistency tests.

``plant`` edits transcript records (the full form ``records_from_steps`` makes, with native
argument values, before
``write_brain`` writes both tiers from them) so that each requested kind makes the transcript tell
a different story than the ``.db`` about one step, and returns what ``agy-audit consistency``
must report: one ``Planted`` (step index, rule) per disagreement. Each kind touches its own
step; ``command-line`` changes the ``CommandLine`` of a run_command call, which both the
planner step (its arguments) and the RUN_COMMAND step answering it (its command line) disagree
on. Deterministic for a given ``random.Random``.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

KINDS = (
    "type",
    "status",
    "created-at",
    "source",
    "prompt",
    "response",
    "thinking",
    "tool-calls",
    "tool-name",
    "tool-args",
    "command-line",
    "exit-code",
    "error",
    "error-code",
)
_EXIT = re.compile(r"(The command exited with code )(-?\d+)")


@dataclass(frozen=True, order=True)
class Planted:
    step: int
    rule: str  # the consistency rule that must report it, e.g. "consistency/thinking"


def plant(
    records: list[dict[str, Any]], kinds: list[str] | tuple[str, ...] | set[str] | frozenset[str], rng: random.Random
) -> list[Planted]:
    """Edit *records* in place with one disagreement of each kind in *kinds* (in ``KINDS``
    order); raises ValueError for an unknown kind or one the records leave no room for."""
    if unknown := set(kinds) - set(KINDS):
        raise ValueError(f"unknown disagreements: {', '.join(sorted(unknown))}")
    used: set[int] = set()
    planted: list[Planted] = []

    def pick(kind: str, ok: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
        candidates = [r for r in records if r["step_index"] not in used and ok(r)]
        if not candidates:
            raise ValueError(f"no room for the {kind!r} disagreement in {len(records)} records")
        record = rng.choice(candidates)
        used.add(record["step_index"])
        return record

    def mark(record: dict[str, Any], kind: str) -> None:
        planted.append(Planted(record["step_index"], f"consistency/{kind}"))

    for kind in (k for k in KINDS if k in kinds):
        if kind == "type":
            r = pick(kind, lambda r: r["type"] in ("VIEW_FILE", "CODE_ACTION", "LIST_DIRECTORY"))
            r["type"] = "GREP_SEARCH"
        elif kind == "status":
            r = pick(kind, lambda r: r["type"] not in ("PLANNER_RESPONSE", "RUN_COMMAND") and r["status"] == "DONE")
            r["status"] = "ERROR"
        elif kind == "created-at":
            r = pick(kind, lambda r: "created_at" in r)
            r["created_at"] = r["created_at"][:11] + f"{(int(r['created_at'][11:13]) + 1) % 24:02d}" + r["created_at"][13:]
        elif kind == "source":
            r = pick(kind, lambda r: r["source"] == "MODEL" and r["type"] != "PLANNER_RESPONSE")
            r["source"] = "SYSTEM"
        elif kind == "prompt":
            r = pick(kind, lambda r: r["type"] == "USER_INPUT" and "</USER_REQUEST>" in r.get("content", ""))
            r["content"] = r["content"].replace("\n</USER_REQUEST>", " Also delete the tests.\n</USER_REQUEST>", 1)
        elif kind == "response":
            r = pick(kind, lambda r: r["type"] == "PLANNER_RESPONSE" and r.get("content"))
            r["content"] = "I will not do that. " + r["content"]
        elif kind == "thinking":
            r = pick(kind, lambda r: r["type"] == "PLANNER_RESPONSE" and r.get("thinking"))
            r["thinking"] = r["thinking"][:-1] + " differently."
        elif kind == "tool-calls":
            r = pick(kind, _planner_with_calls)
            r["tool_calls"] = r["tool_calls"] + [{"name": "list_dir", "args": {"DirectoryPath": "/tmp"}}]
        elif kind == "tool-name":
            r = pick(kind, _planner_with_calls)
            r["tool_calls"][0]["name"] = r["tool_calls"][0]["name"] + "_v2"
        elif kind == "tool-args":
            r = pick(kind, lambda r: _planner_with_calls(r) and "toolSummary" in r["tool_calls"][0]["args"])
            r["tool_calls"][0]["args"]["toolSummary"] = "something else"
        elif kind == "command-line":
            r = pick(kind, lambda r: (a := _answered_command(records, r)) is not None and a["step_index"] not in used)
            answer = _answered_command(records, r)
            assert answer is not None  # pick chose a planner with one
            used.add(answer["step_index"])
            call = next(c for c in r["tool_calls"] if c["name"] == "run_command")
            call["args"]["CommandLine"] = "rm -rf build"
            planted.append(Planted(r["step_index"], "consistency/tool-args"))
            mark(answer, kind)
            continue
        elif kind == "exit-code":
            r = pick(kind, lambda r: r["type"] == "RUN_COMMAND" and isinstance(r.get("exit_code"), int))
            r["exit_code"] += 1
            r["content"] = _EXIT.sub(rf"\g<1>{r['exit_code']}", r.get("content", ""), count=1)
        elif kind == "error":
            r = pick(kind, lambda r: isinstance(r.get("error"), str))
            r["error"] = "Something else failed: " + r["error"]
        else:  # error-code
            r = pick(kind, lambda r: isinstance(r.get("error"), str))
            r["error_code"] = r.get("error_code", 0) + 503
        mark(r, kind)
    return sorted(planted)


def _planner_with_calls(record: dict[str, Any]) -> bool:
    return record["type"] == "PLANNER_RESPONSE" and bool(record.get("tool_calls"))


def _answered_command(records: list[dict[str, Any]], planner: dict[str, Any]) -> dict[str, Any] | None:
    """The RUN_COMMAND record right after *planner* when *planner* calls run_command only."""
    calls = planner.get("tool_calls") or []
    if planner["type"] != "PLANNER_RESPONSE" or [c["name"] for c in calls] != ["run_command"]:
        return None
    after = [r for r in records if r["step_index"] == planner["step_index"] + 1]
    return after[0] if after and after[0]["type"] == "RUN_COMMAND" else None
