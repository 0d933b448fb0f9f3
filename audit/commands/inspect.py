"""``agy-audit inspect``: what each native artifact of a session (or a given file) holds."""

from __future__ import annotations

import argparse
from pathlib import Path

from audit.checks.inspection import inspect_path, inspect_session
from audit.commands.common import add_format, print_json, roots_from, tell_located
from audit.report import inspect_report
from audit.safeio import exists
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "inspect",
        parents=[parents["store"]],
        help="what a session's .db and transcripts hold",
        description=(
            "Row counts per table, step types and statuses, unknown protobuf fields (ranked by the rows "
            "carrying them, each marked where the completeness projection reads) and "
            "transcript anomalies of one session (by id) or of one .db, brain directory or .jsonl (by path). "
            "Exit 1 on errors (an unreadable, corrupt or undecodable database, a schema we do not know, "
            "transcript anomalies the contract calls errors, compact and full records that disagree); "
            "exit 0 with warnings and notes only (unknown protobuf fields, listed encrypted .pb files, transcript "
            "anomalies the contract calls warnings or does not judge: truncated arguments, step gaps, windows, "
            "time going backwards, repeated or inverted steps, torn lines)."
        ),
    )
    p.add_argument("target", metavar="ID|PATH", help="conversation id (8+ characters) or a path")
    add_format(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    path = Path(args.target)
    if exists(path) or "/" in args.target or args.target.endswith((".db", ".jsonl")):
        result = inspect_path(path)
    else:
        scans = layout.scan(layout.require_roots(roots_from(args)), include_implicit=args.include_implicit)
        located = layout.locate_session(scans, args.target)
        tell_located(args, located)
        result = inspect_session(located.session)
    if args.format == "json":
        print_json("inspect", result.exit_code, inspect_report.result_json(result), result.findings)
    else:
        print(inspect_report.text(result))
    return result.exit_code
