"""``agy-audit stores``: the roots, their sessions and every artifact of one session."""

from __future__ import annotations

import argparse
from typing import Any

from audit.commands.common import add_format, print_json, roots_from, tell_located
from audit.display import escape_for_terminal
from audit.errors import EXIT_OK
from audit.report.text import rfc3339, table
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
            return print_json("stores", EXIT_OK, {"sessions": [_session_json(s) for s in sessions]})
        else:
            rows = [
                (s.id, str(s.root), s.product, ",".join(s.artifacts), rfc3339(s.newest_mtime_ns), s.sidecar_state)
                for s in sessions
            ]
            print(table(("ID", "ROOT", "PRODUCT", "ARTIFACTS", "NEWEST", "SIDECAR"), rows))
            print(f"{len(sessions)} session(s) in {len(scans)} root(s)")
        return 0
    if args.format == "json":
        return print_json("stores", EXIT_OK, {"roots": [_root_json(sc) for sc in scans]})
    root_rows = []
    for sc in scans:
        c, st = sc.counts(), sc.sidecar_states()
        root_rows.append(
            (
                str(sc.root.path),
                sc.root.product,
                len(sc.sessions),
                c["db"],
                c["legacy_pb"],
                c["implicit_pb"],
                c["sidecar"],
                c["brain"],
                st["fresh"],
                st["stale"],
                st["missing"],
                len(sc.foreign),
            )
        )
    print(
        table(
            ("ROOT", "PRODUCT", "SESSIONS", "DB", "PB", "IMPLICIT", "SIDECARS", "BRAIN", "FRESH", "STALE", "MISSING", "FOREIGN"),
            root_rows,
        )
    )
    for sc in scans:
        if sc.install_files:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sc.install_counts().items())
            print(f"per-install: {escape_for_terminal(sc.root.path)}: {kinds}")
        if sc.backups:
            print(f"backups: {sc.root.path}: {len(sc.backups)} copy(ies) in {layout.BACKUP_DIR}/ (listed, never swept)")
        for f in sc.foreign:
            print(f"foreign: {escape_for_terminal(f.path)}: {f.reason}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    scans = layout.scan(layout.require_roots(roots_from(args)), include_implicit=args.include_implicit)
    located = layout.locate_session(scans, args.id)
    session = located.session
    tell_located(args, located)
    if args.format == "json":
        doc = _session_json(session)
        doc["paths"] = [{"kind": kind, "path": str(path)} for kind, path in session.paths()]
        return print_json("stores show", EXIT_OK, doc)
    print(f"id:       {session.id}")
    print(f"root:     {escape_for_terminal(session.root)}")
    print(f"product:  {session.product}")
    print(f"sidecar:  {session.sidecar_state or '-'}")
    print(table(("KIND", "PATH"), [(kind, str(path)) for kind, path in session.paths()]))
    return 0


def _session_json(s: layout.Session) -> dict[str, Any]:
    return {
        "id": s.id,
        "root": str(s.root),
        "product": s.product,
        "artifacts": s.artifacts,
        "newestMtime": rfc3339(s.newest_mtime_ns),
        "sidecar": s.sidecar_state,
    }


def _root_json(sc: layout.RootScan) -> dict[str, Any]:
    return {
        "path": str(sc.root.path),
        "product": sc.root.product,
        "explicit": sc.root.explicit,
        "sessions": len(sc.sessions),
        "counts": sc.counts(),
        "sidecars": sc.sidecar_states(),
        "foreign": [{"path": str(f.path), "reason": f.reason} for f in sc.foreign],
        "installFiles": [
            {"kind": f.kind, "path": str(f.path), **({"link": f.link} if f.link is not None else {})} for f in sc.install_files
        ],
        "backups": [{"id": b.id, "path": str(b.path)} for b in sc.backups],
    }
