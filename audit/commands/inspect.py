"""``agy-audit inspect``: what each native artifact of a session (or a given file) holds."""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path
from typing import Any

from audit.checks.completeness import in_projection
from audit.checks.inspection import Inspection, inspect_path, inspect_session
from audit.commands.common import add_format, print_json, roots_from, tell_located
from audit.errors import EXIT_FINDINGS, EXIT_OK
from audit.report.text import finding_line, table
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
    code = EXIT_FINDINGS if result.errors else EXIT_OK
    if args.format == "json":
        print_json("inspect", code, _json(result), result.findings)
    else:
        print(_text(result))
    return code


def _counts(counter: Counter[str]) -> list[dict[str, Any]]:
    return [{"name": k, "count": v} for k, v in sorted(counter.items())]


def _json(r: Inspection) -> dict[str, Any]:
    doc: dict[str, Any] = {"id": r.id}
    if r.database:
        d = r.database
        doc["database"] = {
            "path": str(d.path),
            "access": d.access or None,
            "userVersion": d.user_version,
            "internalCascadeId": d.internal_cascade_id,
            "rowCounts": d.row_counts,
            "stepTypes": _counts(d.step_types),
            "statuses": _counts(d.statuses),
            "unknownFields": [
                {"name": k, "rows": rows, "count": n, "inProjection": in_projection(k)} for k, rows, n in d.ranked_unknown()
            ],
        }
    if r.transcripts:
        t = r.transcripts
        doc["transcripts"] = {
            "brain": str(t.brain),
            "compact": [str(p) for p in t.compact],
            "full": [str(p) for p in t.full],
            "records": t.records,
            "types": _counts(t.types),
            "statuses": _counts(t.statuses),
            "anomalies": _counts(t.anomalies),
        }
    return doc


def _text(r: Inspection) -> str:
    out = [f"id: {r.id or '-'}"]
    if r.database:
        d = r.database
        out += [
            f"database: {d.path} (read {d.access or 'failed'}, user_version {d.user_version}, internal cascade id {d.internal_cascade_id or '-'})",
            table(("TABLE", "ROWS"), sorted(d.row_counts.items())),
            table(("STEP TYPE", "STEPS"), sorted(d.step_types.items())),
            table(("STATUS", "STEPS"), sorted(d.statuses.items())),
        ]
        if d.unknown_fields:
            out.append(
                table(
                    ("UNKNOWN PROTOBUF FIELD", "ROWS", "COUNT", "PROJECTED"),
                    [(k, rows, n, "yes" if in_projection(k) else "no") for k, rows, n in d.ranked_unknown()],
                )
            )
    if r.transcripts:
        t = r.transcripts
        out += [
            f"transcripts: {t.brain} ({len(t.compact)} compact file(s), {len(t.full)} full file(s), {t.records} records)",
            table(("TYPE", "RECORDS"), sorted(t.types.items())),
        ]
        if t.anomalies:
            out.append(table(("RULE", "FINDINGS"), sorted(t.anomalies.items())))
    out += [finding_line(f) for f in r.findings]
    notes = [f"{len(r.database.unknown_fields)} unknown protobuf field(s)"] if r.database and r.database.unknown_fields else []
    notes += [f"{len(r.notes)} encrypted .pb file(s) not decoded"] if r.notes else []
    counts = f"{len(r.errors)} error(s), {len(r.warnings)} warning(s)"
    out.append(counts + (f"; notes (do not fail): {', '.join(notes)}" if notes else ""))
    return "\n".join(out)
