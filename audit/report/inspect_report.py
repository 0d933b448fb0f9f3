"""Formatters for ``agy-audit inspect``: what a session's ``.db`` and brain transcripts hold (row
counts, step types and statuses, unknown protobuf fields, transcript anomalies), as text and JSON.
Formatters only: the inspection comes decided (``audit.checks.inspection``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from audit.checks.completeness import in_projection
from audit.checks.inspection import Inspection
from audit.report.text import finding_line, table


def _counts(counter: Counter[str]) -> list[dict[str, Any]]:
    return [{"name": k, "count": v} for k, v in sorted(counter.items())]


def result_json(r: Inspection) -> dict[str, Any]:
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


def text(r: Inspection) -> str:
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
