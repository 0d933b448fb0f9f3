"""Formatters for ``agy-audit redact``: the fingerprints the copy proved equal to the source's and
what it left out, as text and JSON. Formatters only: the copy comes made and proven
(``audit.actions.redact``)."""

from __future__ import annotations

from typing import Any

from audit.actions.redact import REPORT, Result
from audit.report.text import table


def result_json(result: Result) -> dict[str, Any]:
    return {
        "source": str(result.source),
        "out": str(result.out),
        "files": result.files,
        "replaced": result.counts,
        "shiftDays": result.shift_days,
        "leftOut": result.left_out,
        "digests": {s: a for s, (a, _b) in result.digests.items()},
    }


def text(result: Result) -> str:
    rows = [(s, a or "absent") for s, (a, _b) in result.digests.items()]
    out = [table(("SURFACE", "DIGEST (SOURCE = COPY)"), rows)]
    out += [f"left out: {item}" for item in result.left_out]
    out.append(f"redact: {result.files} file(s) written to {result.out}; every fingerprint matches; see {result.out / REPORT}")
    return "\n".join(out)
