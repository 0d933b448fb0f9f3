"""Formatters for fingerprints, comparisons and baselines: text, JSON documents, Markdown.

Nothing here computes; every function turns a result into text or a JSON-ready dict.
"""

from __future__ import annotations

import os
from typing import Any

from audit.checks.baselines import Baseline
from audit.checks.drift import CLASSES, Comparison, Observed
from audit.checks.fingerprint import SURFACES, Survey
from audit.report.text import table

_TITLES = {
    "added": "added",
    "removed": "removed",
    "type-changed": "type changed",
    "widened": "widened",
    "narrowed": "narrowed",
    "renamed": "renamed",
    "value-added": "value added",
    "value-removed": "value removed",
    "not-observed": "not observed",
    "enum-number": "enum written as a number (advisory)",
    "not-in-baseline": "not in baseline (advisory)",
    "transient": "transient state, not format (advisory)",
}
TAB = "\t"
FOLD_AFTER = 50
"""Markdown: a class with more changed lines than this is folded into ``<details>``."""
MARKS = {
    "added": "+",
    "removed": "-",
    "renamed": "=",
    "type-changed": "~",
    "widened": ">",
    "narrowed": "<",
    "value-added": "+",
    "value-removed": "-",
    "not-observed": "?",
    "enum-number": "=",
    "not-in-baseline": "*",
    "transient": "~",
}


# ----------------------------------------------------------------------------- fingerprint


def survey_json(result: Survey, *, paths: bool = False) -> dict[str, Any]:
    return {
        "kind": result.kind,
        "complete": result.complete,
        "scope": result.scope,
        "fingerprints": {
            s: {"digest": fp.digest, "lines": len(fp.lines), "note": fp.note} | ({"paths": list(fp.lines)} if paths else {})
            for s, fp in result.fingerprints.items()
        },
        "notComputed": result.not_computed,
        "counts": result.counts.to_json(),
        "problems": result.problems,
        "skipped": result.skipped,
    }


def survey_text(result: Survey) -> str:
    rows = [(s, fp.digest, len(fp.lines)) for s, fp in result.fingerprints.items()]
    return table(("SURFACE", "DIGEST", "LINES"), rows)


# ----------------------------------------------------------------------------- compare


def comparison_json(comparison: Comparison, observed: Observed, *, fail_on: str) -> dict[str, Any]:
    return {
        "baseline": comparison.baseline,
        "observed": observed.label,
        "complete": comparison.complete,
        "scope": comparison.scope,
        "failOn": fail_on,
        "counts": {kind: comparison.counts()[kind] for kind in CLASSES},
        "surfaces": [
            {
                "surface": r.surface,
                "status": r.status,
                "reason": r.reason,
                "baselineDigest": r.baseline_digest,
                "currentDigest": r.current_digest,
                "complete": r.complete,
                "classified": r.classified,
                "counts": {kind: r.counts()[kind] for kind in CLASSES},
                "changes": [
                    {"path": c.path, "class": c.kind, "baseline": c.old, "current": c.new}
                    | ({"was": c.was} if c.was else {})
                    | ({"note": c.note} if c.note else {})
                    for c in r.changes
                ],
            }
            for r in comparison.surfaces
        ],
    }


def corpus_line(comparison: Comparison, observed: Observed) -> str:
    if not comparison.complete:
        kind = "not a complete sweep: missing lines are only 'not observed'"
    elif observed.survey is not None and observed.survey.whole:
        kind = "a store read whole: a missing line is removed, as in a complete sweep"
    elif observed.survey is not None and observed.survey.uncovered:
        kind = f"a sweep of every session it could read, {observed.survey.uncovered} only the daemon reads left out"
    else:
        kind = "complete sweep"
    return f"{observed.label}; scope {comparison.scope} ({kind})"


def comparison_text(comparison: Comparison, observed: Observed, *, verbose: bool = False, reason: str | None = None) -> str:
    """*reason*: why this baseline (``baselines.given`` / ``newest``)."""
    chosen = f"{comparison.baseline} ({reason})" if reason else comparison.baseline
    out = [f"baseline: {chosen}", f"observed: {corpus_line(comparison, observed)}", ""]
    rows = [(r.surface, r.status, *(r.counts()[k] for k in CLASSES)) for r in comparison.surfaces]
    out.append(table(("SURFACE", "STATUS", *(k.upper() for k in CLASSES)), rows))
    notes = [f"{r.surface}: {r.reason}" for r in comparison.surfaces if r.reason]
    notes += [f"{s}: missing lines are only 'not observed': {why}" for s, why in comparison.partial.items()]
    out += [""] + notes if notes else []
    for r in comparison.surfaces:
        for kind in CLASSES:
            changes = [c for c in r.changes if c.kind == kind]
            if not changes or (kind == "not-observed" and not verbose):
                continue
            out += ["", f"{r.surface}: {_TITLES[kind]} ({len(changes)})"]
            out += [f"  {MARKS[kind]} {c.text(sep=TAB)}" + (f"{TAB}({c.note})" if c.note else "") for c in changes]
    return "\n".join(out) + "\n"


def _cell(text: str | None) -> str:
    return "" if text is None else "`" + text.replace("|", "\\|") + "`"


def comparison_markdown(
    comparison: Comparison, observed: Observed, *, not_observed: bool = True, reason: str | None = None
) -> str:
    """A pull-request comment: status table, then one table per surface and class (lines only
    "not observed" folded into a ``<details>`` block, or left out with ``not_observed=False``:
    the status table still counts them); *reason* as in ``comparison_text``."""
    out = [
        f"## agy-audit compare: baseline `{comparison.baseline}`" + (f" ({reason})" if reason else ""),
        "",
        f"Observed: {corpus_line(comparison, observed)}.",
        "",
        "| surface | status | " + " | ".join(_TITLES[k] for k in CLASSES) + " |",
        "| --- | --- | " + " | ".join("---:" for _ in CLASSES) + " |",
    ]
    for r in comparison.surfaces:
        out.append(f"| {r.surface} | {r.status} | " + " | ".join(str(r.counts()[k]) for k in CLASSES) + " |")
    reasons = [f"- **{r.surface}**: {r.reason}" for r in comparison.surfaces if r.reason]
    reasons += [f'- **{s}**: missing lines are only "not observed": {why}' for s, why in comparison.partial.items()]
    if reasons:
        out += [""] + reasons
    for r in comparison.surfaces:
        for kind in CLASSES:
            changes = [c for c in r.changes if c.kind == kind]
            if not changes or (kind == "not-observed" and not not_observed):
                continue
            heading = f"{r.surface}: {_TITLES[kind]} ({len(changes)})"
            noted = any(c.note for c in changes)
            rows = [
                "| path | baseline | observed |" + (" note |" if noted else ""),
                "| --- | --- | --- |" + (" --- |" if noted else ""),
            ]
            rows += [
                f"| {_cell(c.path if c.was is None else f'{c.was} -> {c.path}')} | {_cell(c.old)} | {_cell(c.new)} |"
                + (f" {(c.note or '').replace('|', chr(92) + '|')} |" if noted else "")
                for c in changes
            ]
            if kind == "not-observed" or len(changes) > FOLD_AFTER:
                out += ["", f"<details><summary>{heading}</summary>", ""] + rows + ["", "</details>"]
            else:
                out += ["", f"### {heading}", ""] + rows
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- baselines


def baselines_json(found: list[Baseline]) -> dict[str, Any]:
    return {
        "baselines": [
            b.to_json()
            | {"path": str(b.path) if b.path else None, "bundled": b.bundled, "lines": {s: len(v) for s, v in b.lines.items()}}
            for b in found
        ]
    }


def baselines_text(found: list[Baseline]) -> str:
    rows = []
    for b in found:
        recorded = ",".join(
            s + ("" if s in b.lines else "(digest)") if s in b.digests else s + "(absent)"
            for s in SURFACES
            if s in b.digests or s in b.absent
        )
        rows.append((b.name, b.agy_version, b.date, b.scope, recorded, "bundled" if b.bundled else str(b.path)))
    return table(("NAME", "AGY", "DATE", "SCOPE", "SURFACES", "WHERE"), rows)


def recorded_json(baseline: Baseline, compat_file: str | os.PathLike[str]) -> dict[str, Any]:
    """``agy-audit record``: the baseline written and the compatibility record regenerated."""
    return {"baseline": baseline.to_json() | {"path": str(baseline.path)}, "compatFile": str(compat_file)}


def recorded_text(baseline: Baseline, compat_file: str | os.PathLike[str]) -> str:
    out = [baselines_text([baseline]), f"recorded {baseline.path}; regenerated {compat_file}"]
    if baseline.unverified:
        out.append(f"name unverified: {baseline.unverified}")
    return "\n".join(out)


def imported_text(baseline: Baseline) -> str:
    """``agy-audit baselines import-shape``: the baseline written and its sidecar digest."""
    return f"imported {baseline.path} ({baseline.digests['sidecar']})"
