"""Formatters for ``agy-audit consistency``: text, the JSON ``result``, JUnit XML."""

from __future__ import annotations

from typing import Any

from audit.checks import consistency
from audit.checks.consistency import Report
from audit.findings import Level
from audit.report import junit
from audit.report.text import finding_line, table


def text(report: Report) -> str:
    """The sessions, every finding in the one line format, the rules by level, then a summary line."""
    rows = [
        [
            r.id,
            r.verdict,
            r.db_steps,
            ", ".join(f"{tier} {n}/{r.records[tier]}" for tier, n in r.joined.items()) or "-",
            len(r.errors),
            len(r.warnings),
        ]
        for r in report.results
    ]
    out = [table(["ID", "VERDICT", "DB STEPS", "JOINED (tier joined/records)", "ERRORS", "WARNINGS"], rows)]
    if report.findings:
        out += [""] + [finding_line(f) for f in report.findings]
    for level, title in ((Level.ERROR, "ERRORS"), (Level.WARNING, "WARNINGS")):
        counts = report.rule_counts(level)
        if counts:
            out += ["", table(("RULE", title), list(counts.items()))]
    errors = sum(report.rule_counts(Level.ERROR).values())
    warnings = sum(report.rule_counts(Level.WARNING).values())
    out += [
        "",
        f"consistency: {len(report.results)} session(s): "
        + ", ".join(f"{n} {v}" for v, n in report.counts().items())
        + f"; {errors} error(s), {warnings} warning(s)",
    ]
    return "\n".join(out)


def result_json(report: Report) -> dict[str, Any]:
    """The ``result`` of the JSON envelope (its ``findings`` are ``report.findings``)."""
    return {
        "summary": {
            "sessions": len(report.results),
            **report.counts(),
            "errors": report.rule_counts(Level.ERROR),
            "warnings": report.rule_counts(Level.WARNING),
        },
        "results": [
            {
                "id": r.id,
                "db": str(r.db),
                "brain": None if r.brain is None else str(r.brain),
                "verdict": r.verdict,
                "dbSteps": r.db_steps,
                "records": r.records,
                "joined": r.joined,
                "errors": len(r.errors),
                "warnings": len(r.warnings),
            }
            for r in report.results
        ],
    }


def suite(report: Report) -> junit.Suite:
    """One test case per session: failing with its errors (an error case when unreadable), its
    warnings as output."""
    cases = []
    for r in report.results:
        errors = r.errors
        unreadable = r.verdict == consistency.UNREADABLE
        cases.append(
            junit.Case(
                name=r.id,
                classname="consistency",
                error=f"unreadable: {errors[0].message}" if unreadable else None,
                failure=f"{len(errors)} error(s): {', '.join(sorted({f.rule for f in errors}))}"
                if errors and not unreadable
                else None,
                details="\n".join(map(finding_line, errors)),
                output="\n".join(map(finding_line, r.warnings)),
            )
        )
    return junit.Suite("consistency", cases)
