"""``agy-audit consistency``: each conversation ``.db`` against its brain transcripts and its own invariants."""

from __future__ import annotations

import argparse

from audit.checks import consistency
from audit.commands.common import add_format, add_progress, print_json, progress_of, roots_from
from audit.errors import UsageError
from audit.progress import step
from audit.report import consistency_report, junit, sarif
from audit.report.text import to_json
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "consistency",
        parents=[parents["store"]],
        help="check each .db against its brain transcripts and its own invariants",
        description="For every session with a conversation .db: the .db's invariants (token accounting, generation "
        "ids, unique responseIds, tool results answering earlier calls), and where the session has brain "
        "transcripts, every transcript record (compact, full and overview tiers) against the .db step of the same "
        "index: type, status, createdAt to the second, source, user prompt, response, thinking, tool-call names and "
        "arguments, run_command command line and exit code, error text and code. Status lag, transcript windows, "
        "gaps and steps beyond the .db are advisories. PATH: a store root, a sweep corpus, a directory of .db "
        "files or a <uuid>.db; without PATH the discovered (or --home/--root) stores. Exit 0 no disagreement, "
        "1 disagreements or invariant breaches, 2 unreadable input or usage, 3 no .db found.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH", help="store root, sweep corpus, directory of .db files or .db file")
    add_format(p, "text", "json", "junit", "sarif")
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.paths and (args.home is not None or args.root):
        raise UsageError("consistency: give PATHs or --home/--root, not both")
    roots = None if args.paths else layout.require_roots(roots_from(args))
    with step(progress_of(args), "consistency", "sessions") as bar:
        if roots is None:
            report = consistency.check(args.paths, progress=bar)
        else:
            report = consistency.check_roots(roots, progress=bar)
    if args.format == "json":
        print_json("consistency", report.exit_code, consistency_report.result_json(report), report.findings)
    elif args.format == "junit":
        print(junit.render([consistency_report.suite(report)]), end="")
    elif args.format == "sarif":
        print(to_json(sarif.log("consistency", report.exit_code, report.findings)), end="")
    else:
        print(consistency_report.text(report))
    return report.exit_code
