"""Progress on stderr for long work: one self-overwriting line, shown only once the work has run
for a while, redrawn at most a few times a second, ended with a newline -- or, for a stream that
is not a terminal (a log: ``plain``), a whole line every ``PLAIN_EVERY`` seconds. Commands decide
whether and how to show it (``wanted``, ``is_terminal``); checks only call the callback they were
given.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

Callback = Callable[[int, int, str], None]
"""What long work calls before each item: (items done, items in all, the item about to be done)."""

AFTER = 1.0  # seconds: short work shows no progress
EVERY = 0.25  # seconds between redraws
PLAIN_EVERY = 10.0  # seconds between the plain lines written where the stream is not a terminal


def wanted(stream: TextIO, *, quiet: bool, machine: bool = False) -> bool:
    """Progress only on a terminal, never with ``--quiet`` or a machine-readable format."""
    return not quiet and not machine and is_terminal(stream)


def is_terminal(stream: TextIO) -> bool:
    """Whether *stream* is a terminal (a closed or unusual stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def progress_line(label: str, unit: str, done: int, total: int, current: str, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    return f"{label}: {done}/{total} {unit}, {rate:.1f}/s, now {current}"


class Progress:
    """Callable as ``(done, total, current)`` before each item; ``close`` ends the line. *plain*:
    whole lines every ``PLAIN_EVERY`` seconds, for a stream that is not a terminal."""

    def __init__(self, stream: TextIO, label: str, unit: str, *, plain: bool = False) -> None:
        self.stream = stream
        self.label = label
        self.unit = unit
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.plain = plain

    def __call__(self, done: int, total: int, current: str) -> None:
        now = time.monotonic()
        if now - self.start < AFTER or now - self.last < (PLAIN_EVERY if self.plain else EVERY):
            return
        self.last = now
        line = progress_line(self.label, self.unit, done, total, current, now - self.start)
        if self.plain:  # a log: whole lines
            self.stream.write(line + "\n")
            self.stream.flush()
            return
        self.stream.write("\r" + line + "\x1b[K")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()
