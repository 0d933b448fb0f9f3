"""The command line: parse, call, format, exit. Exceptions carry their exit code."""

from __future__ import annotations

import argparse
import datetime as _dt
import importlib
import os
import platform
import re
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from audit import __version__, csrf, display, safewrite
from audit.commands.common import store_options
from audit.errors import EXIT_INTERNAL, EXIT_USAGE, AuditError, Terminated, interrupt_exit_code

# Command modules under audit/commands/ (command name with "-" for "_"), in the order `--help` lists them.
COMMANDS = (
    "ci",
    "doctor",
    "stores",
    "inspect",
    "export",
    "sweep",
    "verify_contract",
    "completeness",
    "consistency",
    "fingerprint",
    "compare",
    "record",
    "baselines",
    "consumers",
    "mutate",
    "conformance",
    "links",
    "diff",
    "redact",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # usage errors: one line, exit 2
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, or (``only``: a command module name) one with just that command, so a
    run imports only the modules its command needs."""
    parser = _Parser(
        prog="agy-audit",
        description="Format audit and contract verification for Google Antigravity session stores.",
        epilog="Exit codes: 0 ok, 1 findings, 2 usage or unreadable input, 3 nothing to check, 70 internal error "
        "(a bug), 130 interrupted, 143 terminated.",
    )
    parser.add_argument("--version", action="version", version=f"agy-audit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parents = {"store": store_options(), "store_nested": store_options(nested=True)}
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"audit.commands.{name}").register(subparsers, parents)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    stdout, stderr = sys.stdout, sys.stderr
    if stdout is None or stderr is None:  # a closed descriptor (`>&-`): Python leaves the stream None
        return _closed_output(stdout, stderr)
    previous = _on_sigterm(_terminate)
    sys.stdout, sys.stderr = _Output(stdout), _Output(stderr)
    code = EXIT_USAGE
    try:
        safewrite.start_run()
        csrf.start_run()
        code = _run(argv)
    except SystemExit:  # argparse: --help, --version and usage errors; their text is flushed first
        if not _flushed(stdout, stderr):
            raise SystemExit(EXIT_USAGE) from None
        raise
    except AuditError as exc:
        if isinstance(exc, OutputError):
            _silence(stdout)  # what is still buffered could not be written either
        print(f"agy-audit: {display.escape_for_terminal(exc.message)}", file=sys.stderr)  # one line, whatever a name holds
        code = exc.exit_code
    except KeyboardInterrupt as exc:
        print(f"agy-audit: {'terminated' if isinstance(exc, Terminated) else 'interrupted'}", file=sys.stderr)
        code = interrupt_exit_code(exc)
    except BrokenPipeError:
        _silence(stdout)
        code = 0
    except Exception as exc:  # anything else is a bug: one line and a report, never "findings"
        code = _crash(exc, argv)
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        _on_sigterm(previous)
        _report_removed_temps()
    return code if _flushed(stdout, stderr) else EXIT_USAGE


def _run(argv: list[str]) -> int:
    command = argv[0].replace("-", "_") if argv else None
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    run: Callable[[argparse.Namespace], int] = args.run
    return run(args)


def _closed_output(stdout: TextIO | None, stderr: TextIO | None) -> int:
    """Standard output or error closed: nothing is run (its output, or its errors, would be lost)."""
    if stderr is not None:
        print("agy-audit: standard output is closed; nothing was run (redirect it to a file or to /dev/null)", file=stderr)
    elif stdout is not None:
        print("agy-audit: standard error is closed; nothing was run (redirect it to a file or to /dev/null)", file=stdout)
    return EXIT_USAGE


def _flushed(stdout: TextIO, stderr: TextIO) -> bool:
    """Flush what is left of standard output; False (after one line on *stderr*) when it cannot be
    written. Either way the interpreter's own flush at exit then has nothing left to fail on."""
    try:
        stdout.flush()
    except BrokenPipeError:
        _silence(stdout)
    except OSError as exc:
        _silence(stdout)
        print(f"agy-audit: standard output: cannot write ({exc.strerror or exc})", file=stderr)
        return False
    return True


DEBUG = "AGY_AUDIT_DEBUG"
"""Set (to anything but empty or 0) to also print an internal error's traceback on stderr."""


def _crash(exc: Exception, argv: Sequence[str]) -> int:
    """An unexpected exception: one line naming it and the crash report, exit 70 (``EXIT_INTERNAL``)."""
    report = csrf.scrub(
        f"agy-audit {__version__} on Python {platform.python_version()} ({platform.platform()})\n"
        f"command: agy-audit {' '.join(argv)}\n\n" + "".join(traceback.format_exception(exc))
    )
    where = _write_crash_report(report)
    if os.environ.get(DEBUG, "") not in ("", "0"):
        print(report, file=sys.stderr, end="")
    try:
        what = f"{type(exc).__name__}: {exc}"
    except Exception:  # a message that cannot even be made into text
        what = type(exc).__name__
    told = f"the full report is in {where}" if where else f"no report could be written; run again with {DEBUG}=1 to see it"
    summary = display.escape_for_terminal(csrf.scrub(what))
    print(f"agy-audit: internal error: {summary[:300]}; this is a bug in agy-audit: {told}", file=sys.stderr)
    return EXIT_INTERNAL


def crash_report_dir() -> Path:
    """Where crash reports go: ``$XDG_CACHE_HOME/agy-audit`` (default ``~/.cache/agy-audit``), on
    Windows ``%LOCALAPPDATA%\\agy-audit``."""
    base = os.environ.get("LOCALAPPDATA") if os.name == "nt" else os.environ.get("XDG_CACHE_HOME")
    return Path(base or Path.home() / ".cache") / "agy-audit"


def _write_crash_report(text: str) -> Path | None:
    """The report written to a new private file in ``crash_report_dir()`` or, when that cannot be
    made, in the temp directory; None when neither can be written."""
    name = f"crash-{_dt.datetime.now(_dt.UTC):%Y%m%dT%H%M%S.%fZ}-{os.getpid()}.txt"
    for directory in (crash_report_dir, lambda: Path(tempfile.gettempdir())):
        try:
            path = safewrite.make_private_dir(directory(), exist_ok=True) / name
            safewrite.create_durable_file(path, text.encode("utf-8", "backslashreplace"))
        except (AuditError, OSError, RuntimeError):  # RuntimeError: Path.home() without a home
            continue
        return path
    return None


def _report_removed_temps() -> None:
    """Say which stale temp files of an earlier, interrupted run this run removed."""
    for path in safewrite.REMOVED_TEMPS:
        print(f"agy-audit: removed a stale temp file an interrupted run left: {path}", file=sys.stderr)
    safewrite.REMOVED_TEMPS.clear()


class OutputError(AuditError):
    """Standard output cannot be written (a full disk, /dev/full, an I/O error): exit 2."""


_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
_OWN_STYLE = re.compile("\x1b\\[(?:0|3[123])m|\r|\x1b\\[K")  # ci's verdict colours, the progress line


class _Output:
    """``sys.stdout`` / ``sys.stderr`` while a command runs.

    Text written is made terminal-safe: control characters other than newline and tab (ESC
    included), C1 controls, line separators, bidirectional overrides and the bytes of non-UTF-8
    file names are escaped (``display.escape_for_terminal``), so no name in any output can clear the screen,
    recolour it or hide text -- and a non-UTF-8 name never makes ``print`` fail. On a terminal
    the colour codes agy-audit itself writes (ci's verdicts, the progress line) pass. Every
    known CSRF token, and every piece of one, is scrubbed (``csrf.scrub``). A character the
    stream's encoding cannot hold (a non-UTF-8 locale) is written as a ``\\uXXXX``-style escape.
    A write or flush that fails is an ``OutputError`` (one line, exit 2) instead of a traceback;
    a closed pipe stays ``BrokenPipeError`` (exit 0, as ``head`` expects)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        try:
            self._styled = bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            self._styled = False

    def _safe(self, text: str) -> str:
        if csrf.known():
            text = csrf.scrub(text)
        if not _TERMINAL_UNSAFE.search(text):
            return text
        if not self._styled:
            return _TERMINAL_UNSAFE.sub(lambda m: display.escape_for_terminal(m.group()), text)
        parts = _OWN_STYLE.split(text)
        styles = _OWN_STYLE.findall(text)
        out = [_TERMINAL_UNSAFE.sub(lambda m: display.escape_for_terminal(m.group()), parts[0])]
        for style, part in zip(styles, parts[1:]):
            out += [style, _TERMINAL_UNSAFE.sub(lambda m: display.escape_for_terminal(m.group()), part)]
        return "".join(out)

    def _guard(self, action: Callable[..., object], *args: object) -> object:
        try:
            return action(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"standard output: cannot write ({exc.strerror or exc})") from None

    def write(self, text: str) -> int:
        safe = self._safe(text)
        try:
            self._guard(self._stream.write, safe)
        except UnicodeEncodeError:
            encoding = getattr(self._stream, "encoding", None) or "ascii"
            self._guard(self._stream.write, safe.encode(encoding, "backslashreplace").decode(encoding))
        return len(text)

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _silence(stream: object) -> None:
    """After a broken pipe or a failed write: point the real stdout at /dev/null so the
    interpreter's final flush cannot print an ignored-exception message (and exit 120)."""
    fileno = getattr(stream, "fileno", None)
    try:
        fd = fileno() if fileno else None
    except (OSError, ValueError):
        fd = None
    if fd is not None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, fd)
        os.close(devnull)


def _terminate(signum: int, frame: object) -> None:
    raise Terminated()


def _on_sigterm(handler: Any) -> Any:
    """Install *handler* for SIGTERM and return the previous one (outside the main thread, where
    Python cannot install handlers, nothing changes)."""
    if handler is None or threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, handler)
