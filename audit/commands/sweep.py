"""``agy-audit sweep``: fresh trajectories from every store into a new private corpus directory."""

from __future__ import annotations

import argparse
import sys

from audit.actions.sweep import SOURCES, sweep
from audit.commands.common import (
    add_format,
    add_key_file,
    add_progress,
    add_selection,
    legacy_key,
    print_json,
    progress_of,
    roots_from,
    seconds,
    selection_from,
    user_path,
)
from audit.errors import AuditError, FindingsError
from audit.progress import step
from audit.report import sweep_report
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "sweep",
        parents=[parents["store"]],
        help="collect fresh trajectories into a new private corpus",
        description=(
            "Fetch every conversation's trajectory from the agy daemon (or reconstruct it offline from the "
            ".db) into NEW_DIR: manifest.json, corpus/<product>/<id>.trajectory.json, native/<product>/<id>.db "
            "and native/<product>/brain/<id>/. Live stores are only read; existing sidecars are never used."
        ),
        epilog=(
            "Daemon discovery: $ANTIGRAVITY_DAEMON_URL (pinned), else this user's agy / language-server "
            "processes serving the root (Linux /proc), else the port in the root's cli.log when /proc shows "
            "that such a process holds it; a token (ANTIGRAVITY_CSRF_TOKEN, else the process's own) only "
            "goes to a pinned or verified listener. "
            "Exit codes: 0 complete, 1 incomplete (do not record from it), 2 usage or unreadable input, "
            "3 nothing to sweep, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM)."
        ),
    )
    p.add_argument("--out", required=True, type=user_path, metavar="NEW_DIR", help="corpus directory to create (must not exist)")
    p.add_argument(
        "--source",
        choices=SOURCES,
        default="auto",
        help="daemon: fetch from the daemon; native: reconstruct from .db files; auto (default): daemon where reachable",
    )
    p.add_argument("--timeout", type=seconds, default=30.0, metavar="SECONDS", help="per daemon call (default 30)")
    p.add_argument("--keep-going", action="store_true", help="sweep every session even after a failure (still incomplete)")
    p.add_argument("--allow-remote-daemon", action="store_true", help="accept a daemon endpoint that is not a loopback address")
    add_selection(p)
    add_key_file(p)
    add_format(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    roots = layout.require_roots(roots_from(args))
    key = legacy_key(args)
    with step(progress_of(args), "sweep", "sessions") as reporter:
        result = sweep(
            roots,
            args.out,
            source=args.source,
            timeout=args.timeout,
            keep_going=args.keep_going,
            include_implicit=args.include_implicit,
            allow_remote=args.allow_remote_daemon,
            progress=reporter,
            selection=selection_from(args),
            key=key,
        )
    for r in result.roots:
        for note in r.notes:
            print(f"sweep: {r.root.path}: {note}", file=sys.stderr)
    if args.format == "json":
        print_json("sweep", result.exit_code, {"out": str(result.out), "manifest": result.manifest()})
    else:
        print(sweep_report.text(result))
    retained = f"incomplete corpus retained at {result.out}: do not record from it"
    if result.interrupted:
        raise AuditError(f"interrupted; {retained}", exit_code=result.interrupted)
    if not result.complete:
        raise FindingsError(f"sweep incomplete ({sweep_report.incompleteness(result)}); {retained}")
    return 0
