"""``agy-audit completeness``: compare sidecars with their native ``.db`` sources; optionally attest."""

from __future__ import annotations

import argparse

from audit.actions import attest
from audit.checks import completeness
from audit.commands.common import (
    add_format,
    add_key_file,
    add_lock_timeout,
    add_progress,
    legacy_key,
    lock_waiting,
    print_json,
    progress_of,
    roots_from,
)
from audit.progress import step
from audit.report import completeness_report
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "completeness",
        parents=[parents["store"]],
        help="check that sidecars hold everything their native .db holds",
        description="Compare each sidecar with a read-only snapshot of its native source (the .db beside it, WAL "
        "included, or native/<product>/<id>.db in a sweep corpus): step count and order, type, status, createdAt, "
        f"prompt, planner and thinking text, tool calls, commands and exit codes (profile {completeness.PROFILE}). "
        "PATH: a store root, a conversations directory, a sweep corpus or sidecar files; without PATH the "
        "discovered (or --home/--root) stores; with --home/--root, the arguments are session ids. Verdicts: complete, incomplete, unsupported (source content "
        "cortex.proto does not decode), unknown (no .db, or a legacy .pb without your key), unreadable (a .pb your key "
        "does not authenticate too). Exit 0 every compared "
        "sidecar complete (unknown ones do not fail), 1 any incomplete or unsupported (or a refused "
        "attestation), 2 unreadable input or usage, 3 nothing found or nothing comparable.",
    )
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="store root, conversations directory, sweep corpus or sidecar file; with --home/--root, a session id",
    )
    p.add_argument(
        "--attest",
        action="store_true",
        help="record agyReader.agyAudit.completeness in complete sidecars and remove it from incomplete/unsupported ones "
        "(only that block changes; file mtime kept; unchanged evidence is not rewritten)",
    )
    add_key_file(p)
    add_lock_timeout(p)
    add_format(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    key = legacy_key(args)
    if args.paths and args.home is None and not args.root:
        targets = completeness.targets(args.paths)
    else:  # with --home/--root, the arguments are session ids
        targets = completeness.targets_in_roots(layout.require_roots(roots_from(args)), args.paths)
    with step(progress_of(args), "completeness", "sidecars") as bar:
        if args.attest:
            waiting = lock_waiting(args)
            report = attest.check_and_attest(targets, key, lock_timeout=args.lock_timeout, waiting=waiting, progress=bar)
        else:
            report = completeness.check_all(targets, key, progress=bar)
    if args.format == "json":
        print_json("completeness", report.exit_code, completeness_report.result_json(report, args.attest))
    else:
        print(completeness_report.text(report, args.attest))
    return report.exit_code
