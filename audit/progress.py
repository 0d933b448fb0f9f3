"""Progress on stderr for long work. On a terminal (``LINE``): one self-overwriting line, shown only
once the work has run for a while, redrawn at most a few times a second, ended with a newline.
Elsewhere -- a log, a CI job (``PLAIN``) -- a whole line after the first second, then one every
``PLAIN_EVERY`` seconds, so that a log is never silent for long. A line says what is being done,
how far it is and how fast (``sweep: 120/400 sessions, 9.8/s, now <id>``), never content; the
item is escaped (``display.escape_for_terminal``).

Commands decide whether and how to show it (``style``: ``--progress``, ``--quiet`` and
``$AGY_AUDIT_PROGRESS``); checks only call the callback they were given.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TextIO, TypeVar

from audit.display import escape_for_terminal
from audit.errors import UsageError

Callback = Callable[[int, int, str], None]
"""What long work calls before each item: (items done, items in all, the item about to be done)."""

T = TypeVar("T")

AFTER = 1.0  # seconds: short work shows no progress
EVERY = 0.25  # seconds between redraws
PLAIN_EVERY = 10.0  # seconds between the plain lines written where the stream is not a terminal

ENV = "AGY_AUDIT_PROGRESS"
"""The default of ``--progress``: ``auto``, ``on`` or ``off``."""
AUTO, ON, OFF = "auto", "on", "off"
MODES = (AUTO, ON, OFF)
LINE, PLAIN = "line", "plain"
"""How progress is shown: one self-overwriting line (a terminal), or whole lines (a log)."""


def style(mode: str | None, *, quiet: bool, stream: TextIO, output: TextIO | None = None, machine: bool = False) -> str | None:
    """How to show progress on *stream* (``LINE``, ``PLAIN``), or None for none.

    *mode* is ``--progress`` when given, else (without *quiet*) ``$AGY_AUDIT_PROGRESS``, else
    ``auto``: ``--progress`` wins over ``--quiet``, which wins over the variable. ``off``: none.
    ``on``: always, as ``LINE`` on a terminal, else ``PLAIN``. ``auto``: the same, except that
    plain lines are not written into a machine-readable *output* (*machine*: JSON, JUnit...)
    when *stream* is the very file or pipe *output* goes to (``2>&1``), where they would break
    it. Raises ``UsageError`` for a variable that names no mode."""
    if mode is None:
        if quiet:
            return None
        mode = os.environ.get(ENV, "").strip().lower() or AUTO
        if mode not in MODES:
            raise UsageError(f"{ENV}={os.environ[ENV]!r}: not one of {', '.join(MODES)}")
    if mode == OFF:
        return None
    if is_terminal(stream):
        return LINE
    if mode == AUTO and machine and output is not None and same_file(stream, output):
        return None
    return PLAIN


def is_terminal(stream: TextIO) -> bool:
    """Whether *stream* is a terminal (a closed or unusual stream is not)."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def same_file(a: TextIO, b: TextIO) -> bool:
    """Whether *a* and *b* write to the same file, pipe or device (``2>&1``)."""
    try:
        sa, sb = os.fstat(a.fileno()), os.fstat(b.fileno())
    except (AttributeError, ValueError, OSError):  # io.UnsupportedOperation is both
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def progress_line(label: str, unit: str, done: int, total: int, current: str, elapsed: float) -> str:
    rate = done / elapsed if elapsed > 0 else 0.0
    return f"{escape_for_terminal(label)}: {done}/{total} {unit}, {rate:.1f}/s, now {escape_for_terminal(current)}"


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


Factory = Callable[[str, str], Progress]
"""Makes the progress of one long step from (label, unit), e.g. ("sweep", "sessions")."""


def factory(how: str | None, stream: TextIO) -> Factory | None:
    """The factory of progress shown as *how* (``style``) on *stream*; None for none."""
    return None if how is None else functools.partial(Progress, stream, plain=how == PLAIN)


@contextlib.contextmanager
def step(make: Factory | None, label: str, unit: str) -> Iterator[Callback | None]:
    """The progress of one step made by *make* (None: none), closed when the step ends."""
    if make is None:
        yield None
        return
    bar = make(label, unit)
    try:
        yield bar
    finally:
        bar.close()


def tracked(items: Sequence[T], progress: Callback | None, name: Callable[[T], object] = str) -> Iterator[T]:
    """Each of *items* in turn, *progress* told before it: (items done, ``len(items)``, its *name*)."""
    for done, item in enumerate(items):
        if progress is not None:
            progress(done, len(items), str(name(item)))
        yield item
