"""``agy-audit conformance``: run a reader's own command on a store and on every format mutation of it."""

from __future__ import annotations

import argparse
import sys

from audit.commands.common import add_progress, add_quiet, home_of, print_json, progress_of, seconds, user_path
from audit.commands.mutate import add_selection, selected
from audit.errors import UsageError
from audit.pipeline import command, conformance
from audit.progress import step
from audit.report import conformance_report
from audit.safewrite import atomic_write
from audit.strictjson import dumps


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "conformance",
        help="run your reader on a store and on every format mutation of it: crashed, failed loudly, changed silently?",
        description=(
            "Run CMD (your reader, directly, no shell) with HOME pointed at a private copy of the stores of --home, twice "
            "unmutated and once per format mutation of the catalogue (`agy-audit mutate --list`), and report per mutation "
            "whether it crashed, failed loudly, changed its output silently or left it unchanged. Its standard output is "
            "compared as JSON (value by value) when it is JSON, else line by line. The store is only read."
        ),
        epilog=(
            "Exit codes: 0 no mutation fails under --fail-on, 1 one does, 2 usage, unreadable input or a command that fails "
            "on the unmutated store, 3 no store found or no mutation applies to it."
        ),
    )
    add_selection(p)
    p.add_argument(
        "--timeout",
        type=seconds,
        default=conformance.DEFAULT_TIMEOUT,
        metavar="S",
        help=f"seconds per run before the command's process group is ended (default {conformance.DEFAULT_TIMEOUT:g})",
    )
    p.add_argument(
        "--fail-on",
        choices=tuple(conformance.FAIL_ON),
        default="crash",
        help="which outcomes exit 1: silent (changed silently), crash (and crashed; default), change (and failed loudly), never",
    )
    p.add_argument(
        "--loud-exit",
        type=_exit_code,
        action="append",
        default=[],
        metavar="CODE",
        help="an exit status your command gives on purpose for a store it refuses: failed loudly, not crashed (repeatable)",
    )
    p.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME",
        help=f"also pass this variable (repeatable; always passed: {', '.join(command.PASSED)}, LC_*)",
    )
    p.add_argument("--format", choices=("text", "json", "junit", "markdown"), default="text", help="output format (default text)")
    p.add_argument(
        "--draft-profile", type=user_path, metavar="FILE", help="write a draft consumer profile derived from the outcomes"
    )
    p.add_argument(
        "--verbose", "-v", action="store_true", help="text: the output differences of every mutation, not only failing ones"
    )
    add_quiet(p)
    add_progress(p)
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="-- CMD ARGS", help="the command to run (after --)")
    p.set_defaults(run=run)


def _exit_code(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 1 <= value <= 255:
        raise argparse.ArgumentTypeError(f"{text!r} is not an exit status from 1 to 255")
    return value


def run(args: argparse.Namespace) -> int:
    argv = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
    if not argv:
        raise UsageError("conformance: give the command to run after --, e.g. -- python3 my_reader.py --json")
    command.check_passed(args.env)
    mutations = selected(args)
    with step(progress_of(args), "conformance", "runs") as bar:
        result = conformance.check(
            home_of(args),
            argv,
            mutations,
            timeout=args.timeout,
            fail_on=args.fail_on,
            loud_exits=frozenset(args.loud_exit),
            passed=args.env,
            progress=bar,
        )
    if args.draft_profile:
        atomic_write(args.draft_profile, dumps(conformance.draft_profile(result)).encode() + b"\n")
    if args.format == "json":
        print_json("conformance", result.exit_code, conformance_report.to_json(result))
    elif args.format == "junit":
        sys.stdout.write(conformance_report.junit_xml(result))
    elif args.format == "markdown":
        sys.stdout.write(conformance_report.markdown(result))
    else:
        sys.stdout.write(conformance_report.text(result, verbose=args.verbose))
    return result.exit_code
