"""``agy-audit fingerprint``: one digest per format surface of a corpus, store or files."""

from __future__ import annotations

import argparse
import sys

from audit.checks.fingerprint import SURFACES, fingerprint_paths
from audit.checks.shape import snapshot_text
from audit.commands.common import add_progress, add_quiet, inform, print_json, progress_of
from audit.errors import NothingToCheck, UsageError
from audit.progress import step
from audit.report.drift_report import survey_json, survey_text

INPUTS = (
    "PATH is a sweep corpus (manifest.json, corpus/, native/), a store root, a home directory "
    "(.gemini/antigravity*), a directory of *.trajectory.json / *.db / *.jsonl files, or such files "
    "(history.jsonl, conversation_summaries.db and *.md.metadata.json by their names)."
)


def add_surfaces(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--surface",
        action="append",
        choices=SURFACES,
        metavar="NAME",
        help=f"surface to fingerprint (repeatable; default all: {', '.join(SURFACES)})",
    )


def warn(problems: list[str]) -> None:
    """The inputs a survey could not read, one warning each (never hidden: the fingerprints leave them out)."""
    for message in problems:
        print(f"agy-audit: warning: {message}", file=sys.stderr)


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "fingerprint",
        help=f"digest of each format surface ({', '.join(SURFACES)})",
        description="Print the sha256 fingerprint of each format surface. " + INPUTS,
        epilog="Exit codes: 0 ok, 2 usage or an unreadable input (the other inputs are still fingerprinted and "
        "printed), 3 nothing to fingerprint.",
    )
    p.add_argument("paths", nargs="+", metavar="PATH")
    add_surfaces(p)
    p.add_argument(
        "--paths",
        dest="show_paths",
        action="store_true",
        help="print the canonical lines of one surface (TSV, one final newline) instead of digests",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    surfaces = tuple(dict.fromkeys(args.surface or SURFACES))
    if args.show_paths and args.format == "text" and len(surfaces) != 1 and args.surface:
        raise UsageError("--paths prints one surface: give exactly one --surface")
    with step(progress_of(args, machine=args.format == "json" or args.show_paths), "fingerprint", "files") as bar:
        result = fingerprint_paths(args.paths, surfaces, progress=bar)
    warn(result.problems)
    if args.surface:  # asked for by name: say why it is missing
        for surface, why in result.not_computed.items():
            inform(args, f"agy-audit: {surface} not computed: {why}")
    if not result.fingerprints:
        raise NothingToCheck(f"nothing to fingerprint in {', '.join(args.paths)}")
    if args.format == "json":
        print_json("fingerprint", result.exit_code, survey_json(result, paths=args.show_paths))
    elif args.show_paths:
        if len(result.fingerprints) != 1:
            raise UsageError(f"--paths prints one surface; computed: {', '.join(result.fingerprints)} (choose with --surface)")
        sys.stdout.write(snapshot_text(next(iter(result.fingerprints.values())).lines))
    else:
        print(survey_text(result))
    if result.problems:  # as ci counts them: a fingerprint that skipped an unreadable input is not the store's
        print(
            f"agy-audit: {len(result.problems)} input(s) unreadable; the fingerprints above leave them out",
            file=sys.stderr,
        )
    return result.exit_code
