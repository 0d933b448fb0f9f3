"""Running a maintainer's own command on a copy of a store: bounded, isolated, captured.

``run(argv, home, tmp, timeout=...)`` starts *argv* directly (no shell: a user who wants one
passes ``sh -c '...'``), in agy-audit's working directory (relative paths in *argv* work), with
HOME set to *home* and a clean environment (``environment``), in its own
process group (its own session on POSIX), stdin from ``/dev/null``, and captures its standard
output and error (each up to ``MAX_OUTPUT`` bytes; more is read and dropped, and said).

Every wait is bounded: at *timeout* the group gets SIGTERM, ``KILL_GRACE`` seconds later SIGKILL;
when the command exits by itself whatever it left running in its group is killed at once. A
Ctrl-C or SIGTERM of agy-audit (``KeyboardInterrupt``) ends the group the same way before it
propagates. On Windows the command is ended alone (``TerminateProcess``): Windows has no process
groups to signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from audit.errors import UsageError, interrupts_held

MAX_OUTPUT = 32 * 1024 * 1024
"""Bytes of standard output (and of standard error) kept per run."""
KILL_GRACE = 1.0
"""Seconds between SIGTERM and SIGKILL when a run is ended."""
_POLL = (0.002, 0.05)  # first and longest sleep between two looks at the child

PASSED = ("PATH", "LANG", "LANGUAGE", "TZ", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC", "PATHEXT")
"""Variables of agy-audit's environment a command gets (with every ``LC_*``); ``--env`` adds more."""
REFUSED_PREFIXES = ("ANTIGRAVITY_",)
"""Never passed: each would point a reader at a real store (``ANTIGRAVITY_CLI_ROOT`` ...)."""
SET = ("HOME", "USERPROFILE", "TMPDIR", "TMP", "TEMP")
"""Set for each run: the copy's home, and a private temp directory beside it."""


@dataclass(frozen=True)
class Run:
    """One run of the command. ``exit_code`` is None when it did not exit by itself (a signal,
    the timeout); ``signal`` names the signal that ended it."""

    exit_code: int | None
    signal: str | None
    timed_out: bool
    seconds: float
    stdout: bytes
    stderr: bytes
    truncated: bool  # more output than MAX_OUTPUT: the rest was dropped


def environment(home: Path, tmp: Path, *, passed: Iterable[str] = ()) -> dict[str, str]:
    """The environment of a run: ``PASSED``, every ``LC_*`` and the names in *passed* that are set
    here, then HOME (and USERPROFILE) = *home*, TMPDIR, TMP and TEMP = *tmp*. Nothing else: no
    ``ANTIGRAVITY_*``, no ``XDG_*`` directory of the real home."""
    wanted = set(PASSED) | set(passed)
    env = {k: v for k, v in os.environ.items() if k in wanted or k.startswith("LC_")}
    env |= {"HOME": str(home), "USERPROFILE": str(home), "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp)}
    return env


def check_passed(names: Sequence[str]) -> None:
    """Refuse a ``--env`` name that would undo the isolation."""
    for name in names:
        if name.startswith(REFUSED_PREFIXES) or name in SET:
            raise UsageError(f"--env {name}: not passed (it would point the command at a real store or home)")
        if not name or "=" in name:
            raise UsageError(f"--env {name!r}: give the name of a variable of this environment")


def run(argv: Sequence[str], home: Path, tmp: Path, *, timeout: float, passed: Iterable[str] = ()) -> Run:
    """Run *argv* with HOME *home* and TMPDIR *tmp*; see the module docstring."""
    started = time.monotonic()
    child: subprocess.Popen[bytes] | None = None
    timed_out = False
    try:
        # a Ctrl-C or SIGTERM while the command starts is raised once it is there to be ended (the
        # command may already run when Popen has not returned yet: it would be left running)
        with interrupts_held():
            try:
                child = subprocess.Popen(
                    list(argv),
                    env=environment(home, tmp, passed=passed),
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    start_new_session=os.name == "posix",
                    creationflags=getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0),
                )
            except OSError as exc:
                raise UsageError(f"{argv[0]}: cannot run ({exc.strerror or exc})") from None
            assert child.stdout is not None and child.stderr is not None
            out, err = _Drain(child.stdout), _Drain(child.stderr)
        timed_out = not _wait(child, started + timeout)
        if timed_out:
            _end(child, signal.SIGTERM)
            if not _wait(child, time.monotonic() + KILL_GRACE):
                _end(child, getattr(signal, "SIGKILL", signal.SIGTERM))
    except BaseException:  # Ctrl-C, SIGTERM: the group goes first
        if child is None:  # it could not be started
            raise
        _end(child, signal.SIGTERM)
        _wait(child, time.monotonic() + KILL_GRACE)
        _end(child, getattr(signal, "SIGKILL", signal.SIGTERM))
        child.wait()
        raise
    _end(child, getattr(signal, "SIGKILL", signal.SIGTERM))  # what it left running in its group
    code = child.wait()
    seconds = time.monotonic() - started
    out.join(KILL_GRACE)
    err.join(KILL_GRACE)
    name = signal.Signals(-code).name if code < 0 and -code in signal.valid_signals() else None
    return Run(
        exit_code=None if code < 0 or timed_out else code,
        signal=name,
        timed_out=timed_out,
        seconds=seconds,
        stdout=out.data(),
        stderr=err.data(),
        truncated=out.truncated or err.truncated,
    )


def _wait(child: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait until *child* has exited (leaving it unreaped on POSIX, so that its process group
    cannot be reused before it is signalled) or *deadline* passes; whether it exited."""
    pause = _POLL[0]
    while True:
        if _exited(child):
            return True
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(pause, left))
        pause = min(pause * 2, _POLL[1])


def _exited(child: subprocess.Popen[bytes]) -> bool:
    if child.returncode is not None:
        return True
    if os.name != "posix":
        return child.poll() is not None
    try:
        found = os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return found is not None


def _end(child: subprocess.Popen[bytes], sig: int) -> None:
    """Send *sig* to the child's process group (POSIX) or end the child (Windows)."""
    if os.name != "posix":
        if child.returncode is None:
            child.kill()
        return
    try:
        os.killpg(child.pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class _Drain:
    """Reads a pipe to its end in a thread, keeping the first ``MAX_OUTPUT`` bytes."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self._chunks: list[bytes] = []
        self._kept = 0
        self.truncated = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        with self._pipe:
            while chunk := self._pipe.read1(65536):  # type: ignore[attr-defined]  # a BufferedReader
                room = MAX_OUTPUT - self._kept
                if len(chunk) > room:
                    self.truncated = True
                    chunk = chunk[:room]
                if chunk:
                    self._chunks.append(chunk)
                    self._kept += len(chunk)

    def join(self, seconds: float) -> None:
        """Wait up to *seconds* for the end of the pipe (a process that left the group may hold
        it open: its output then ends where it is)."""
        self._thread.join(seconds)
        if self._thread.is_alive():
            self.truncated = True

    def data(self) -> bytes:
        return b"".join(self._chunks)
