"""Formatters for ``agy-audit sweep``: what a sweep collected and what keeps it from being complete.
Formatters only: the sweep's result comes decided (``audit.actions.sweep``)."""

from __future__ import annotations

from audit.actions.sweep import SweepResult
from audit.report.text import table
from audit.store.selection import READABLE_ONLY


def incompleteness(result: SweepResult) -> str:
    """What keeps *result* from being complete: its failures and the sessions it did not cover."""
    parts = [f"{len(result.failures)} failure(s)"] if result.failures or not result.not_covered else []
    if result.not_covered:
        parts.append(
            f"{len(result.not_covered)} session(s) not covered: {result.not_covered[0].reason}; {READABLE_ONLY} leaves them out"
        )
    return ", ".join(parts)


def text(result: SweepResult) -> str:
    """The counts, the selection, the corpus, the roots swept and every session not covered,
    failed, skipped or excluded."""
    out = [
        f"sweep: selected={result.selected} swept={len(result.sessions)} not-covered={len(result.not_covered)} "
        f"failures={len(result.failures)} skipped={len(result.skipped)} complete={'yes' if result.complete else 'no'}"
    ]
    if result.selection is not None:
        out.append(f"selection: {result.selection.describe(result.selected, len(result.excluded))}")
    out.append(f"corpus: {result.out}")
    out.append(
        table(
            ("ROOT", "PRODUCT", "SOURCE", "ENDPOINT", "FOUND IN"),
            [(str(r.root.path), r.root.product, r.source, r.endpoint, r.origin) for r in result.roots],
        )
    )
    out += [f"not covered: {n.id} {n.path}: {n.reason}" for n in result.not_covered]
    out += [f"failed: {f.id or '-'} [{f.stage}] {f.message}" for f in result.failures]
    out += [f"skipped: {s.path}: {s.reason}" for s in result.skipped]
    out += [f"excluded: {e.session.id} {e.session.source or e.session.brain}: {e.reason}" for e in result.excluded]
    return "\n".join(out)
