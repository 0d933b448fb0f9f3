"""The command line: parse, call, format, exit. Exceptions carry their exit code."""

from __future__ import annotations

import argparse
import importlib
import re
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any, NoReturn, TextIO

from audit import __version__, safeio
from audit.commands.common import store_options
from audit.errors import EXIT_USAGE, AuditError, Terminated, interrupt_exit_code

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
        epilog="Exit codes: 0 ok, 1 findings, 2 usage or unreadable input, 3 nothing to check.",
    )
    parser.add_argument("--version", action="version", version=f"agy-audit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    parents = {"store": store_options(), "store_nested": store_options(nested=True)}
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"audit.commands.{name}").register(subparsers, parents)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    command = argv[0].replace("-", "_") if argv else None
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if getattr(args, "run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    safeio.start_run()
    previous = _on_sigterm(_terminate)
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Output(stdout), _Output(stderr)
    try:
        code = args.run(args)
        sys.stdout.flush()  # a full disk shows here, not as an ignored error at exit
        return code
    except AuditError as exc:
        print(f"agy-audit: {safeio.shown(exc.message)}", file=sys.stderr)  # one line, whatever a name holds
        return exc.exit_code
    except KeyboardInterrupt as exc:
        print(f"agy-audit: {'terminated' if isinstance(exc, Terminated) else 'interrupted'}", file=sys.stderr)
        return interrupt_exit_code(exc)
    except BrokenPipeError:
        _silence(stdout)
        return 0
    finally:
        sys.stdout, sys.stderr = stdout, stderr
        _on_sigterm(previous)
        _report_removed_temps()


def _report_removed_temps() -> None:
    """Say which stale temp files of an earlier, interrupted run this run removed."""
    for path in safeio.REMOVED_TEMPS:
        print(f"agy-audit: removed a stale temp file an interrupted run left: {path}", file=sys.stderr)
    safeio.REMOVED_TEMPS.clear()


class OutputError(AuditError):
    """Standard output cannot be written (a full disk, /dev/full, an I/O error): exit 2."""


_TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
_OWN_STYLE = re.compile("\x1b\\[(?:0|3[123])m|\r|\x1b\\[K")  # ci's verdict colours, the progress line


class _Output:
    """``sys.stdout`` / ``sys.stderr`` while a command runs.

    Text written is made terminal-safe: control characters other than newline and tab (ESC
    included), C1 controls, line separators, bidirectional overrides and the bytes of non-UTF-8
    file names are escaped (``safeio.shown``), so no name in any output can clear the screen,
    recolour it or hide text -- and a non-UTF-8 name never makes ``print`` fail. On a terminal
    the colour codes agy-audit itself writes (ci's verdicts, the progress line) pass.
    A write or flush that fails is an ``OutputError`` (one line, exit 2) instead of a traceback;
    a closed pipe stays ``BrokenPipeError`` (exit 0, as ``head`` expects)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        try:
            self._styled = bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            self._styled = False

    def _safe(self, text: str) -> str:
        if not _TERMINAL_UNSAFE.search(text):
            return text
        if not self._styled:
            return _TERMINAL_UNSAFE.sub(lambda m: safeio.shown(m.group()), text)
        parts = _OWN_STYLE.split(text)
        styles = _OWN_STYLE.findall(text)
        out = [_TERMINAL_UNSAFE.sub(lambda m: safeio.shown(m.group()), parts[0])]
        for style, part in zip(styles, parts[1:]):
            out += [style, _TERMINAL_UNSAFE.sub(lambda m: safeio.shown(m.group()), part)]
        return "".join(out)

    def _guard(self, action, *args):
        try:
            return action(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"standard output: cannot write ({exc.strerror or exc})") from None

    def write(self, text: str) -> int:
        self._guard(self._stream.write, self._safe(text))
        return len(text)

    def writelines(self, lines) -> None:
        self._guard(self._stream.writelines, [self._safe(line) for line in lines])

    def flush(self) -> None:
        self._guard(self._stream.flush)

    def __getattr__(self, name: str) -> object:
        return getattr(self._stream, name)


def _silence(stream: object) -> None:
    """After a broken pipe: point the real stdout at /dev/null so the interpreter's final flush
    cannot print an ignored-exception message."""
    import os

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
