"""Formatters for ``agy-audit stores``: the roots, their sessions and the artifacts of one session,
as text tables and JSON. Formatters only: the scans come decided."""

from __future__ import annotations

from typing import Any

from audit.display import escape_for_terminal
from audit.report.text import rfc3339, table
from audit.store import layout


def session_json(s: layout.Session) -> dict[str, Any]:
    return {
        "id": s.id,
        "root": str(s.root),
        "product": s.product,
        "artifacts": s.artifacts,
        "newestMtime": rfc3339(s.newest_mtime_ns),
        "sidecar": s.sidecar_state,
    }


def root_json(sc: layout.RootScan) -> dict[str, Any]:
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


def sessions_text(sessions: list[layout.Session], roots: int) -> str:
    """One row per session (in the order given), then how many sessions in how many *roots*."""
    rows = [(s.id, str(s.root), s.product, ",".join(s.artifacts), rfc3339(s.newest_mtime_ns), s.sidecar_state) for s in sessions]
    return (
        table(("ID", "ROOT", "PRODUCT", "ARTIFACTS", "NEWEST", "SIDECAR"), rows)
        + f"\n{len(sessions)} session(s) in {roots} root(s)"
    )


def roots_text(scans: list[layout.RootScan]) -> str:
    """One row per root, then its per-install files, backups and foreign files."""
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
    out = [
        table(
            ("ROOT", "PRODUCT", "SESSIONS", "DB", "PB", "IMPLICIT", "SIDECARS", "BRAIN", "FRESH", "STALE", "MISSING", "FOREIGN"),
            root_rows,
        )
    ]
    for sc in scans:
        if sc.install_files:
            kinds = ", ".join(f"{kind} {n}" for kind, n in sc.install_counts().items())
            out.append(f"per-install: {escape_for_terminal(sc.root.path)}: {kinds}")
        if sc.backups:
            out.append(f"backups: {sc.root.path}: {len(sc.backups)} copy(ies) in {layout.BACKUP_DIR}/ (listed, never swept)")
        for f in sc.foreign:
            out.append(f"foreign: {escape_for_terminal(f.path)}: {f.reason}")
    return "\n".join(out)


def show_json(session: layout.Session) -> dict[str, Any]:
    """:func:`session_json` with every artifact path (``stores show``)."""
    doc = session_json(session)
    doc["paths"] = [{"kind": kind, "path": str(path)} for kind, path in session.paths()]
    return doc


def show_text(session: layout.Session) -> str:
    return "\n".join(
        [
            f"id:       {session.id}",
            f"root:     {escape_for_terminal(session.root)}",
            f"product:  {session.product}",
            f"sidecar:  {session.sidecar_state or '-'}",
            table(("KIND", "PATH"), [(kind, str(path)) for kind, path in session.paths()]),
        ]
    )
