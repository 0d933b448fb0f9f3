"""Formatters for ``agy-audit completeness``: each sidecar's verdict against its native source (and
its attestation), as text and JSON. Formatters only: the verdicts come decided
(``audit.checks.completeness``)."""

from __future__ import annotations

from typing import Any

from audit.checks import completeness
from audit.report.text import table


def text(report: completeness.Report, attested: bool) -> str:
    headers = ["ID", "VERDICT"] + (["ATTEST"] if attested else []) + ["SIDECAR", "SOURCE", "DETAIL"]
    rows: list[list[object]] = []
    for r in report.results:
        detail = r.detail
        if r.outside:
            detail = "; ".join(filter(None, (detail, f"{len(r.outside)} unknown(s) outside the projection (see --format json)")))
        if r.attestation_error:
            detail = "; ".join(filter(None, (detail, r.attestation_error)))
        rows.append(
            [r.id or r.sidecar.name, r.verdict]
            + ([r.attestation] if attested else [])
            + [r.sidecar_steps, r.source_steps, detail]
        )
    counts = report.counts()
    summary = f"completeness: {len(report.results)} sidecar(s): " + ", ".join(f"{n} {v}" for v, n in counts.items())
    if attested:
        summary += "; attestations: " + ", ".join(f"{n} {a}" for a, n in report.attestation_counts().items())
    lines = [table(headers, rows), summary]
    if counts[completeness.UNKNOWN]:
        lines.append("note: unknown sidecars have no readable native source to compare with; they do not fail the check")
    return "\n".join(lines)


def result_json(report: completeness.Report, attested: bool) -> dict[str, Any]:
    return {
        "profile": completeness.PROFILE,
        "summary": {
            "sidecars": len(report.results),
            **report.counts(),
            "attestations": report.attestation_counts() if attested else None,
        },
        "results": [
            {
                "id": r.id,
                "sidecar": str(r.sidecar),
                "source": None if r.source is None else str(r.source),
                "verdict": r.verdict,
                "detail": r.detail,
                "differences": r.differences,
                "sidecarSteps": r.sidecar_steps,
                "sourceSteps": r.source_steps,
                "evidence": None
                if r.evidence is None
                else {
                    "profile": r.evidence.profile,
                    "contentSha256": r.evidence.content_sha256,
                    "projectionSha256": r.evidence.projection_sha256,
                    "steps": r.evidence.steps,
                },
                "outsideProjection": r.outside,
                "recordedIn": r.recorded_in,
                "attestation": r.attestation,
                "attestationError": r.attestation_error,
            }
            for r in report.results
        ],
    }
