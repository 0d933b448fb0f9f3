"""Formatters for ``agy-audit verify-contract``: text, the JSON ``result``, JUnit XML."""

from __future__ import annotations

from typing import Any

from audit.checks.contract import Report
from audit.findings import Level
from audit.report import junit
from audit.report.text import finding_line, table


def text(report: Report) -> str:
    """Every finding (an unreadable file and what was skipped included) in the one line format,
    the rules by level, then a summary line."""
    out = [finding_line(f) for f in report.findings]
    for level, title in ((Level.ERROR, "ERRORS"), (Level.WARNING, "WARNINGS")):
        counts = report.counts(level)
        if counts:
            out += ["", table(("RULE", title), list(counts.items()))]
    total, bad, unreadable = len(report.files), len(report.invalid), len(report.unreadable)
    out += [
        "",
        f"{report.kind}: {total} file(s) checked, {total - bad - unreadable} valid, {bad} with errors, "
        f"{unreadable} unreadable; {sum(report.counts(Level.ERROR).values())} error(s), "
        f"{sum(report.counts(Level.WARNING).values())} warning(s)",
    ]
    return "\n".join(out).lstrip("\n")


def result_json(report: Report) -> dict[str, Any]:
    """The ``result`` of the JSON envelope (its ``findings`` are ``report.findings``)."""
    return {
        "kind": report.kind,
        "summary": {
            "files": len(report.files),
            "invalid": len(report.invalid),
            "unreadable": len(report.unreadable),
            "errors": report.counts(Level.ERROR),
            "warnings": report.counts(Level.WARNING),
        },
        "files": [{"file": r.file, "valid": r.valid, "records": r.records, "error": r.error} for r in report.files],
    }


def suite(report: Report) -> junit.Suite:
    """One test case per file: failing with its errors, its warnings as output."""
    cases = []
    for r in report.files:
        errors = r.errors
        cases.append(
            junit.Case(
                name=r.file,
                classname=f"verify-contract.{report.kind}",
                error=f"unreadable: {r.error}" if r.error is not None else None,
                failure=f"{len(errors)} error(s): {', '.join(sorted({f.rule for f in errors}))}" if errors else None,
                details="\n".join(map(finding_line, errors)),
                output="\n".join(map(finding_line, r.warnings)),
            )
        )
    return junit.Suite(f"verify-contract {report.kind}", cases)
