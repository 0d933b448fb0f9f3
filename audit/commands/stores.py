"""``agy-audit stores``: the roots, their sessions and every artifact of one session."""

from __future__ import annotations

import argparse

from audit.commands.common import add_format, print_json, roots_from, tell_located
from audit.errors import EXIT_OK
from audit.report import stores_report
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "stores",
        parents=[parents["store"]],
        help="list store roots and sessions",
        description="List Antigravity store roots (or their sessions) with artifact counts and sidecar freshness.",
    )
    p.add_argument("--sessions", action="store_true", help="one row per session, newest first")
    add_format(p)
    p.set_defaults(run=run)
    sub = p.add_subparsers(dest="stores_command", metavar="{show}")
    show = sub.add_parser(
        "show",
        parents=[parents["store_nested"]],
        help="every artifact path of one session",
        description="Resolve a unique id prefix (8+ characters) across roots and print every artifact path.",
    )
    show.add_argument("id", help="conversation id or unique prefix of at least 8 characters")
    add_format(show, nested=True)
    show.set_defaults(run=run_show)


def run(args: argparse.Namespace) -> int:
    scans = layout.scan(layout.require_roots(roots_from(args)), include_implicit=args.include_implicit)
    if args.sessions:
        sessions = sorted((s for sc in scans for s in sc.sessions), key=lambda s: (-s.newest_mtime_ns, s.id))
        if args.format == "json":
            return print_json("stores", EXIT_OK, {"sessions": [stores_report.session_json(s) for s in sessions]})
        print(stores_report.sessions_text(sessions, len(scans)))
        return 0
    if args.format == "json":
        return print_json("stores", EXIT_OK, {"roots": [stores_report.root_json(sc) for sc in scans]})
    print(stores_report.roots_text(scans))
    return 0


def run_show(args: argparse.Namespace) -> int:
    scans = layout.scan(layout.require_roots(roots_from(args)), include_implicit=args.include_implicit)
    located = layout.locate_session(scans, args.id)
    session = located.session
    tell_located(args, located)
    if args.format == "json":
        return print_json("stores show", EXIT_OK, stores_report.show_json(session))
    print(stores_report.show_text(session))
    return 0
