"""Progress on stderr for long work: one self-overwriting line, shown only once the work has run
for a while, redrawn at most a few times a second, ended with a newline. Commands decide whether
to show it (``wanted``); checks only call the callback they were given.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

Callback = Callable[[int, int, str], None]
"""What long work calls before each item: (items done, items in all, the item about to be done)."""

AFTER = 1.0  # seconds: short work shows no progress
EVERY = 0.25  # seconds between redraws


def wanted(stream: TextIO, *, quiet: bool, machine: bool = False) -> bool:
    """Progress only on a terminal, never with ``--quiet`` or a machine-readable format."""
    return not quiet and not machine and hasattr(stream, "isatty") and stream.isatty()


def progress_line(label: str, unit: str, done: int, total: int, current: str, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    return f"{label}: {done}/{total} {unit}, {rate:.1f}/s, now {current}"


class Progress:
    """Callable as ``(done, total, current)`` before each item; ``close`` ends the line."""

    def __init__(self, stream: TextIO, label: str, unit: str) -> None:
        self.stream = stream
        self.label = label
        self.unit = unit
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, done: int, total: int, current: str) -> None:
        now = time.monotonic()
        if now - self.start < AFTER or now - self.last < EVERY:
            return
        self.last = now
        line = progress_line(self.label, self.unit, done, total, current, now - self.start)
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
