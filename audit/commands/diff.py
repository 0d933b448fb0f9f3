"""``agy-audit diff``: value-level differences between two trajectories, files or corpora."""

from __future__ import annotations

import argparse
import sys

from audit.checks import diff
from audit.commands.common import add_progress, add_quiet, print_json, progress_of
from audit.progress import step
from audit.report import diff_report


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "diff",
        help="value-level differences between two trajectories (files, exports or corpora)",
        description=(
            "Compare two trajectories value by value: sidecar files, exports, or two directories (sweep corpora, "
            "store roots or directories of <uuid>.trajectory.json) whose trajectories are paired by id. Every change "
            "is named by its path (steps.[3].plannerResponse.toolCalls.[0].argumentsJson): changed, type-changed, "
            "added, removed. The reader-owned agyReader block, which fingerprints ignore, is left out unless --all."
        ),
        epilog="Exit codes: 0 the same, 1 different, 2 usage or unreadable input, 3 nothing to compare.",
    )
    p.add_argument("a", metavar="A", help="a trajectory file or a directory of them")
    p.add_argument("b", metavar="B", help="a trajectory file or a directory of them")
    p.add_argument("--id", metavar="ID", help="with directories: compare only this session id")
    p.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="PATH",
        help="leave out PATH and what is below it ([] matches any index; repeatable)",
    )
    p.add_argument("--all", action="store_true", help="also compare the paths left out by default (agyReader)")
    p.add_argument("--format", choices=("text", "json", "markdown"), default="text", help="output format (default text)")
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    ignore = tuple(args.ignore) + (() if args.all else diff.VOLATILE)
    with step(progress_of(args), "diff", "trajectories") as bar:
        report = diff.compare_paths(args.a, args.b, only=args.id, ignore=ignore, progress=bar)
    if args.format == "json":
        print_json("diff", report.exit_code, diff_report.to_json(report))
    elif args.format == "markdown":
        sys.stdout.write(diff_report.markdown(report))
    else:
        sys.stdout.write(diff_report.text(report))
    return report.exit_code
