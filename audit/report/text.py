"""Formatters shared by every command: aligned text tables, the one line of a finding, JSON,
timestamps. Never computes."""

from __future__ import annotations

import datetime as _dt
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from audit.display import escape_for_terminal
from audit.findings import Finding
from audit.strictjson import dumps

PROGRAM = "agy-audit"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """An aligned plain-text table; numbers are right-aligned. Every cell is one line of
    terminal-safe text (``display.escape_for_terminal``: a newline or ESC in a file name is shown escaped)."""
    cells = [[str(h) for h in headers]] + [["-" if v is None else escape_for_terminal(v) for v in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    numeric = [all(isinstance(row[i], int) for row in rows) and bool(rows) for i in range(len(headers))]
    lines = []
    for r in cells:
        parts = [c.rjust(w) if num else c.ljust(w) for c, w, num in zip(r, widths, numeric)]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def finding_line(f: Finding, *, color: bool = False) -> str:
    """*f* as one line of terminal-safe text, the format compilers use and editors and CI problem
    matchers parse (``.github/agy-audit-matcher.json``): ``FILE:LINE:COL: level: [rule] message``,
    with ``:LINE`` and ``:COL`` left out when unknown, ``agy-audit`` for FILE when the finding is
    about no one file, and the JSON pointer (when there is one) starting the message."""
    level = f"\x1b[{_LEVEL_COLORS[f.level]}m{f.level}\x1b[0m" if color else f.level
    return f"{escape_for_terminal(f.where() or PROGRAM)}: {level}: [{escape_for_terminal(f.rule)}] {escape_for_terminal(finding_message(f))}"


def finding_message(f: Finding) -> str:
    """*f*'s message, after its JSON pointer when it has one (``/steps/0/type: is integer, ...``)."""
    return f"{f.pointer}: {f.message}" if f.pointer else f.message


_LEVEL_COLORS = {"error": "31", "warning": "33", "note": "36"}


def to_json(value: object) -> str:
    """Stable JSON for machine-readable output (2-space indent, trailing newline)."""
    return dumps(value, indent=2) + "\n"


def rfc3339(ns: int | None) -> str | None:
    """A nanosecond UNIX time as RFC 3339 UTC with second precision (``...Z``)."""
    if ns is None:
        return None
    stamp = _dt.datetime.fromtimestamp(ns / 1e9, tz=_dt.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def use_color(stream: TextIO | None = None) -> bool:
    """Colour only on a terminal and never with ``NO_COLOR``."""
    stream = stream or sys.stdout
    return "NO_COLOR" not in os.environ and hasattr(stream, "isatty") and stream.isatty()


def step_ranges(steps: Sequence[int]) -> str:
    """Sorted step indexes as ranges: ``[3, 4, 5, 9]`` -> ``3-5, 9``."""
    parts: list[str] = []
    start = previous = None
    for step in [*steps, None]:
        if step is not None and previous is not None and step == previous + 1:
            previous = step
            continue
        if start is not None:
            parts.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = step
    return ", ".join(parts)
