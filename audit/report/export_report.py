"""Formatters for ``agy-audit export``: the notes about an export that go to stderr (content left
out, enum values written as numbers). Formatters only: the export and its check come decided."""

from __future__ import annotations

from audit.actions.export import Export
from audit.checks.contract import FileResult
from audit.report.text import step_ranges


def notes(result: Export, check: FileResult) -> list[str]:
    """One line per note about *result* (its schema *check* gives the enum values written as
    numbers): findings about the export, never hidden."""
    out = []
    if result.transcript_only:
        steps = [entry["step"] for entry in result.transcript_only]
        out.append(
            f"export: note: {len(steps)} step(s) only in the brain transcript not exported (step {step_ranges(steps)}): "
            "the .db lags its transcript; see agyReader.agyAudit.provenance.transcriptOnly"
        )
    out += [f"export: note: {line}" for line in result.findings if line not in result.blocking]
    numbers = [f for f in check.warnings if f.rule == "sidecar/enum-number"]
    if numbers:
        out.append(
            f"export: note: {len(numbers)} enum value(s) unknown to agy-audit written as numbers (first {numbers[0].pointer})"
        )
    return out
