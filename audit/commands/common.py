"""Options shared by the commands that read stores, and their translation into roots."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from audit import progress
from audit.actions import writelock
from audit.errors import UsageError
from audit.findings import Finding
from audit.report.envelope import envelope
from audit.report.text import to_json
from audit.store import layout, legacy_pb, selection


def store_options(*, nested: bool = False) -> argparse.ArgumentParser:
    """Parent parser with ``--home``, ``--root``, ``--include-implicit`` and ``--quiet``.

    ``nested`` is for a sub-subcommand: its defaults are suppressed so that options given to the
    enclosing command (``stores --home X show ID``) are not reset by the inner parser.
    """
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS if nested else None)
    group = parent.add_argument_group("store selection")
    group.add_argument(
        "--home", type=user_path, metavar="DIR", help="home directory to discover ~/.gemini/antigravity* in (default $HOME)"
    )
    group.add_argument(
        "--root",
        type=user_path,
        metavar="PATH",
        action="append",
        help="explicit store root (repeatable); disables discovery, as does $ANTIGRAVITY_CLI_ROOT",
    )
    group.add_argument("--include-implicit", action="store_true", help="include implicit/<uuid>.pb background trajectories")
    add_quiet(parent)
    return parent


def add_quiet(parser: argparse.ArgumentParser, *, nested: bool = False) -> None:
    """``--quiet``: no progress and no informational lines on stderr. It never changes stdout and
    never hides a finding, a warning about the result, or an error. *nested*: as ``add_progress``."""
    parser.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        default=argparse.SUPPRESS if nested else False,
        help="no progress or informational lines on stderr",
    )


def add_progress(parser: argparse.ArgumentParser, *, nested: bool = False) -> None:
    """``--progress auto|on|off`` (default ``$AGY_AUDIT_PROGRESS``, else auto; see ``audit.progress``).
    *nested*: for a sub-subcommand, whose default must not reset the enclosing command's value."""
    parser.add_argument(
        "--progress",
        choices=progress.MODES,
        default=argparse.SUPPRESS if nested else None,
        help=f"progress on stderr (default ${progress.ENV}, else auto): auto: a self-overwriting line on a terminal, "
        "else a plain line every 10 s (none into a machine-readable format sharing stdout's file); on: always; "
        "off: never. Wins over --quiet",
    )


def progress_of(args: argparse.Namespace, *, machine: bool | None = None) -> progress.Factory | None:
    """The progress factory ``--progress``, ``--quiet`` and ``$AGY_AUDIT_PROGRESS`` ask for (None:
    no progress). *machine*: stdout is machine-readable (default: ``--format`` is not text)."""
    if machine is None:
        machine = getattr(args, "format", "text") not in ("text", "github")
    how = progress.style(
        getattr(args, "progress", None),
        quiet=getattr(args, "quiet", False),
        stream=sys.stderr,
        output=sys.stdout,
        machine=machine,
    )
    return progress.factory(how, sys.stderr)


def add_selection(parser: argparse.ArgumentParser) -> None:
    """``--session``, ``--since``, ``--newest`` and ``--readable-only`` (``sweep``, ``ci``)."""
    group = parser.add_argument_group(
        "session selection", "which sessions to sweep (default every one); what they leave out is counted and listed"
    )
    group.add_argument(
        "--session",
        type=_parsed(selection.parse_id_prefix),
        action="append",
        metavar="ID",
        help="a session id or the start of one (repeatable): only those sessions",
    )
    group.add_argument(
        "--since",
        type=_parsed(selection.parse_since),
        metavar="DATE",
        help="only sessions whose first step is at or after DATE (YYYY-MM-DD, UTC midnight, or an RFC 3339 time)",
    )
    group.add_argument("--newest", type=_positive, metavar="N", help="only the N sessions whose first step is newest")
    group.add_argument(
        "--readable-only",
        action="store_true",
        help="leave out the sessions this sweep cannot read (legacy .pb sessions of a root swept natively), so that "
        "the corpus can be complete and recorded",
    )


def selection_from(args: argparse.Namespace) -> selection.Selection:
    return selection.Selection(tuple(args.session or ()), args.since, args.newest, args.readable_only)


def _parsed(parse: Callable[[str], str]) -> Callable[[str], str]:
    """An argparse type from a parser raising ``ValueError`` with the message to show."""

    def convert(text: str) -> str:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = parse.__name__
    return convert


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of sessions above 0")
    return value


def print_json(command: str, exit_code: int, result: object, findings: Iterable[Finding] = ()) -> int:
    """Print the JSON envelope of one run of *command* (its words: ``stores show``) and return *exit_code*."""
    sys.stdout.write(to_json(envelope(command, exit_code, result, findings)))
    return exit_code


def add_format(parser: argparse.ArgumentParser, *choices: str, nested: bool = False) -> None:
    """``--format`` with *choices* (default: text, json); the first choice is the default."""
    choices = choices or ("text", "json")
    default = argparse.SUPPRESS if nested else choices[0]
    parser.add_argument("--format", choices=choices, default=default, help=f"output format (default {choices[0]})")


def add_key_file(parser: argparse.ArgumentParser) -> None:
    """``--key-file``: the user's own key for legacy ``.pb`` files (``legacy_key``)."""
    parser.add_argument(
        "--key-file",
        type=user_path,
        metavar="FILE",
        help=f"your own key for legacy .pb files: base64 of 16, 24 or 32 bytes (default ${legacy_pb.ENV_KEY}); never printed",
    )


def legacy_key(args: argparse.Namespace) -> legacy_pb.Key | None:
    """The user's key from ``--key-file``, else ``$ANTIGRAVITY_KEY``; None without either."""
    return legacy_pb.load_key(getattr(args, "key_file", None))


def add_report_flags(parser: argparse.ArgumentParser, by_extension: dict[str, str]) -> None:
    """``--report FILE`` (repeatable) and ``--report-format``; *by_extension*: ``.json`` -> ``json``..."""
    parser.add_argument(
        "--report",
        type=user_path,
        metavar="FILE",
        action="append",
        help="also write the report to FILE (repeatable), in the format its extension names "
        f"({', '.join(f'{e} {f}' for e, f in by_extension.items())}) or --report-format",
    )
    parser.add_argument(
        "--report-format",
        choices=tuple(dict.fromkeys(by_extension.values())),
        help="format of every --report FILE (default: from each file's extension)",
    )


def report_formats(args: argparse.Namespace, command: str, by_extension: dict[str, str]) -> dict[str, str]:
    """``--report`` file -> format, checked before anything runs."""
    if args.report_format is not None and not args.report:
        raise UsageError(f"{command}: --report-format needs --report FILE")
    found: dict[str, str] = {}
    for path in args.report or ():
        fmt = args.report_format or by_extension.get(Path(path).suffix.lower())
        if fmt is None:
            raise UsageError(f"{command}: cannot tell the format of {path} from its extension; give --report-format")
        found[path] = fmt
    return found


def roots_from(args: argparse.Namespace) -> list[layout.Root]:
    return layout.resolve_roots(home=getattr(args, "home", None), roots=getattr(args, "root", None) or ())


def home_of(args: argparse.Namespace) -> str:
    """``--home``, else the home discovery looks in (``$HOME``)."""
    return getattr(args, "home", None) or os.environ.get("HOME") or os.path.expanduser("~")


def user_path(text: str) -> str:
    """argparse type for a path option: a leading ``~`` or ``~user`` is expanded (a quoted
    ``--out '~/x'`` would otherwise create ``./~/x``); one that cannot be is refused with a hint."""
    if not text.startswith("~"):
        return text
    expanded = os.path.expanduser(text)
    if expanded.startswith("~"):
        user = text[1:].split("/", 1)[0]
        raise argparse.ArgumentTypeError(
            f"{text!r}: cannot expand ~{user} (no such user, or no HOME); give the directory itself, e.g. $HOME/..."
        )
    return expanded


MAX_SECONDS = 86400.0
"""The longest timeout accepted (one day): beyond it socket and clock arithmetic overflows."""


def seconds(text: str) -> float:
    """argparse type: a positive number of seconds, at most ``MAX_SECONDS``."""
    return _seconds(text, zero=False)


def wait_seconds(text: str) -> float:
    """argparse type: a number of seconds from 0 (do not wait) to ``MAX_SECONDS``."""
    return _seconds(text, zero=True)


def _seconds(text: str, *, zero: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (0 <= value <= MAX_SECONDS and (zero or value > 0)):
        low = "from 0" if zero else "above 0 and"
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds {low} {'to' if zero else 'at most'} {MAX_SECONDS:g} (one day)"
        )
    return value


def add_lock_timeout(parser: argparse.ArgumentParser) -> None:
    """``--lock-timeout``: how long a writer waits for another one's writer lock."""
    parser.add_argument(
        "--lock-timeout",
        type=wait_seconds,
        default=writelock.DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"wait at most this long for another agy-audit writer of the same store (default {writelock.DEFAULT_TIMEOUT:g}; "
        "0: do not wait), then refuse (exit 1)",
    )


def lock_waiting(args: argparse.Namespace) -> Callable[[str], None] | None:
    """What a writer says on stderr when it starts waiting for another one (nothing with --quiet)."""
    if getattr(args, "quiet", False):
        return None
    return lambda message: print(f"agy-audit: {message}", file=sys.stderr)


def inform(args: argparse.Namespace, line: str) -> None:
    """An informational *line* on stderr: none with ``--quiet`` (findings, warnings about the
    result and errors are never printed through here)."""
    if not getattr(args, "quiet", False):
        print(line, file=sys.stderr)


def tell_located(args: argparse.Namespace, located: layout.Located) -> None:
    """The other roots that hold the session an id names, one informational line each."""
    for note in located.notes():
        inform(args, f"note: {note}")
