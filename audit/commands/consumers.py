"""``agy-audit consumers``: list the consumer profiles; say which entries of one a corpus exercises."""

from __future__ import annotations

import argparse
import sys

from audit.checks import consumers
from audit.checks.drift import fingerprints_to_compare
from audit.commands.common import add_progress, add_quiet, print_json, progress_of
from audit.commands.fingerprint import INPUTS, warn
from audit.errors import EXIT_OK
from audit.progress import step
from audit.report.consumers_report import coverage_json, coverage_text, profile_json, profiles_text


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "consumers",
        help="list the consumer profiles `compare --consumer` judges drift for",
        description=(
            "List the bundled consumer profiles (what each downstream tool reads, and which version of it the "
            "profile describes) and any profile FILEs given with --consumer."
        ),
        epilog="Exit codes: 0 ok, 2 usage or an unreadable or invalid profile.",
    )
    p.add_argument("--consumer", action="append", metavar="NAME|FILE", help="list these profiles only (repeatable)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    p.set_defaults(run=run)
    sub = p.add_subparsers(dest="consumers_command", metavar="{check}")
    check = sub.add_parser(
        "check",
        help="say which entries of a profile a corpus exercises",
        description=(
            "Fingerprint PATH and say, for every entry of PROFILE (a bundled name or a file), whether the corpus "
            "exercises it (a fingerprint line matches its path; for layout entries, a file in a store root matches "
            "its pattern), does not, or cannot (rpc entries, paths the fingerprints leave out). An entry no real "
            "store exercises is worth a second look: profiles should only claim what is read. " + INPUTS
        ),
        epilog="Exit codes: 0 ok (also when entries are not exercised: that is reported, not failing), 2 usage or "
        "unreadable input, 3 nothing to fingerprint.",
    )
    check.add_argument("profile", metavar="PROFILE")
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--format", choices=("text", "json"), default=argparse.SUPPRESS, help="output format (default text)")
    add_quiet(check)
    add_progress(check)
    check.set_defaults(run=run_check)


def run(args: argparse.Namespace) -> int:
    profiles = consumers.resolve(args.consumer)
    if args.format == "json":
        print_json("consumers", EXIT_OK, {"consumers": [profile_json(p) for p in profiles]})
    else:
        sys.stdout.write(profiles_text(profiles))
    return 0


def run_check(args: argparse.Namespace) -> int:
    (profile,) = consumers.resolve([args.profile])
    machine = getattr(args, "format", "text") == "json"
    with step(progress_of(args, machine=machine), "consumers check: fingerprint", "files") as bar:
        observed = fingerprints_to_compare(args.paths, progress=bar)
    if observed.survey is not None:
        warn(observed.survey.problems)
    found = consumers.coverage(profile, observed, consumers.store_roots(args.paths))
    if getattr(args, "format", "text") == "json":
        print_json("consumers check", EXIT_OK, coverage_json(profile, observed, found))
    else:
        sys.stdout.write(coverage_text(profile, observed, found))
    return 0
