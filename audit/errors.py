"""Exceptions that carry the process exit code; the CLI maps them, checks raise them."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2  # usage error or unreadable input
EXIT_NOTHING = 3  # nothing to check
EXIT_INTERNAL = 70  # an unexpected exception: a bug in agy-audit (EX_SOFTWARE of sysexits.h)
EXIT_INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
EXIT_TERMINATED = 143  # SIGTERM (128 + SIGTERM), e.g. a cancelled CI job


class AuditError(Exception):
    """A user-facing failure: one line of message and the exit code it maps to."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str, *, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        if exit_code is not None:
            self.exit_code = exit_code

    def __str__(self) -> str:
        return self.message


class UsageError(AuditError):
    """Bad flags or arguments (exit 2)."""


class InputError(AuditError):
    """An input file or directory cannot be read or is not what it must be (exit 2)."""


class NothingToCheck(AuditError):
    """No store, session or file was found to work on (exit 3)."""

    exit_code = EXIT_NOTHING


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the signal arrives so that it unwinds like Ctrl-C: temp files are
    removed, a sweep finalises its manifest as incomplete, a repair rolls back."""

    exit_code = EXIT_TERMINATED


def interrupt_exit_code(exc: KeyboardInterrupt) -> int:
    """130 for Ctrl-C, 143 for SIGTERM."""
    return getattr(exc, "exit_code", EXIT_INTERRUPTED)


@contextlib.contextmanager
def interrupts_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM held while the block runs (a restore that must finish), then raised as
    they would have been (``KeyboardInterrupt`` / ``Terminated``) when the block completes. Only
    the main thread can hold them (Python runs signal handlers there); elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    arrived: list[int] = []
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    for number in kept:
        signal.signal(number, lambda signum, frame: arrived.append(signum))
    try:
        yield
    finally:
        for number, handler in kept.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
    if arrived:
        raise Terminated() if arrived[0] == signal.SIGTERM else KeyboardInterrupt()


class FindingsError(AuditError):
    """The command ran but refuses or fails because of findings (exit 1)."""

    exit_code = EXIT_FINDINGS
