"""Formatters for consumer profiles and verdicts: text, JSON documents, Markdown. Never computes."""

from __future__ import annotations

from collections import Counter
from typing import Any

from audit.checks.consumers import (
    AT_RISK,
    BREAKS,
    EXERCISED,
    NOT_CHECKABLE,
    NOT_EXERCISED,
    OK,
    UNKNOWN,
    ConsumerResult,
    Coverage,
    CoverageStatus,
    Decision,
    Effect,
    FailOn,
    Profile,
)
from audit.checks.drift import Observed
from audit.report.text import table

_EFFECTS: tuple[Effect, ...] = (BREAKS, AT_RISK, OK, UNKNOWN)
COVERAGE: tuple[CoverageStatus, ...] = (EXERCISED, NOT_EXERCISED, NOT_CHECKABLE)


def _value(d: Decision) -> str:
    c = d.change
    if c is None:
        return ""
    if c.old is None or c.new is None or c.old == c.new:
        return c.new or c.old or ""
    return f"{c.old} -> {c.new}"


def decision_line(d: Decision, sep: str = "\t") -> str:
    """``surface path<sep>value  [mode: reason]``: one decision in words."""
    where = d.path if d.path is not None else d.entry.path
    value = _value(d)
    return f"{d.entry.surface} {where or '(root)'}" + (f"{sep}{value}" if value else "") + f"  [{d.entry.mode}: {d.reason}]"


def _profile_source(p: Profile) -> str:
    return "bundled" if p.bundled else str(p.path)


# ----------------------------------------------------------------------------- verdicts


def decision_json(d: Decision) -> dict[str, Any]:
    c = d.change
    return {
        "surface": d.entry.surface,
        "entry": d.entry.path,
        "mode": d.entry.mode,
        "effect": d.effect,
        "reason": d.reason,
        "path": d.path,
        "class": c.kind if c else None,
        "baseline": c.old if c else None,
        "current": c.new if c else None,
        "cite": d.entry.cite,
    }


def result_json(r: ConsumerResult, fail_on: FailOn, *, unknown: bool = True) -> dict[str, Any]:
    """One consumer's verdict; without *unknown*, the entries no fingerprint could judge are only
    counted, not listed (``ci``: most entries of most consumers, and the same in every run)."""
    counts = r.counts()
    doc = {
        "consumer": r.profile.name,
        "repository": r.profile.repository,
        "version": r.profile.version,
        "profile": _profile_source(r.profile),
        "verdict": r.verdict,
        "fails": fail_on.consumer_fails(r),
        "entries": {effect: counts[effect] for effect in _EFFECTS},
        "deciding": [decision_json(d) for d in r.deciding],
    }
    return doc | {"unknown": [decision_json(d) for d in r.unknown]} if unknown else doc


def results_json(results: list[ConsumerResult], fail_on: FailOn) -> list[dict[str, Any]]:
    return [result_json(r, fail_on) for r in results]


def results_text(results: list[ConsumerResult], *, verbose: bool = False) -> str:
    """The consumer x verdict table, then the deciding lines of each consumer at risk or broken
    (and, with *verbose*, the entries that could not be judged)."""
    if not results:
        return ""
    rows = []
    for r in results:
        counts = r.counts()
        rows.append((r.profile.name, r.verdict, *(counts[e] for e in _EFFECTS), r.profile.version))
    out = ["", table(("CONSUMER", "VERDICT", "BREAKS", "AT RISK", "OK", "UNKNOWN", "VERSION"), rows)]
    for r in results:
        if r.deciding:
            out += ["", f"{r.profile.name}: {r.verdict} ({len(r.deciding)} deciding line(s))"]
            out += [f"  {decision_line(d)}" for d in r.deciding]
        if verbose and r.unknown:
            out += ["", f"{r.profile.name}: not judged ({len(r.unknown)} entr{'y' if len(r.unknown) == 1 else 'ies'})"]
            out += [f"  {d.entry.label}: {d.reason}" for d in r.unknown]
    return "\n".join(out) + "\n"


def _cell(text: str | None) -> str:
    return "" if not text else "`" + text.replace("|", "\\|") + "`"


def results_markdown(results: list[ConsumerResult]) -> str:
    """The consumer x verdict table and, per consumer at risk or broken, its deciding lines."""
    if not results:
        return ""
    out = [
        "",
        "### Consumers",
        "",
        "| consumer | verdict | breaks | at risk | ok | unknown | version |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for r in results:
        counts = r.counts()
        out.append(
            f"| {r.profile.name} | {r.verdict} | "
            + " | ".join(str(counts[e]) for e in _EFFECTS)
            + f" | {r.profile.version.replace('|', '/')} |"
        )
    for r in results:
        if not r.deciding:
            continue
        out += [
            "",
            f"**{r.profile.name}** {r.verdict}:",
            "",
            "| line | baseline | observed | mode | why |",
            "| --- | --- | --- | --- | --- |",
        ]
        for d in r.deciding:
            c = d.change
            out.append(
                f"| {_cell(f'{d.entry.surface} {d.path}')} | {_cell(c.old if c else None)} | {_cell(c.new if c else None)} "
                f"| {d.entry.mode} | {d.reason.replace('|', '/')} |"
            )
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- profiles


def profile_json(p: Profile) -> dict[str, Any]:
    surfaces: dict[str, int] = {}
    for e in p.entries:
        surfaces[e.surface] = surfaces.get(e.surface, 0) + 1
    return {
        "name": p.name,
        "repository": p.repository,
        "version": p.version,
        "describes": p.describes,
        "profile": _profile_source(p),
        "entries": len(p.entries),
        "requires": sum(e.mode == "requires" for e in p.entries),
        "surfaces": surfaces,
    }


def profiles_text(profiles: list[Profile]) -> str:
    rows = []
    for p in profiles:
        surfaces = ",".join(dict.fromkeys(e.surface for e in p.entries))
        rows.append((p.name, len(p.entries), sum(e.mode == "requires" for e in p.entries), surfaces, p.version))
    return table(("CONSUMER", "ENTRIES", "REQUIRES", "SURFACES", "VERSION"), rows) + "\n"


# ----------------------------------------------------------------------------- coverage


def coverage_json(p: Profile, observed: Observed, found: list[Coverage]) -> dict[str, Any]:
    counts = Counter(c.status for c in found)
    return {
        "consumer": p.name,
        "version": p.version,
        "profile": _profile_source(p),
        "observed": observed.label,
        "counts": {s: counts[s] for s in COVERAGE},
        "entries": [
            {
                "surface": c.entry.surface,
                "path": c.entry.path,
                "mode": c.entry.mode,
                "markedObserved": c.entry.observed,
                "status": c.status,
                "detail": c.detail,
            }
            for c in found
        ],
    }


def coverage_text(p: Profile, observed: Observed, found: list[Coverage]) -> str:
    counts = Counter(c.status for c in found)
    out = [
        f"consumer: {p.name} {p.version} ({_profile_source(p)})",
        f"observed: {observed.label}",
        ", ".join(f"{counts[s]} {s}" for s in COVERAGE),
        "",
    ]
    rows = [
        (
            c.status + ("" if c.entry.observed else " (marked not yet observed)"),
            c.entry.mode,
            c.entry.surface,
            c.entry.path or "(root)",
            c.detail,
        )
        for c in found
    ]
    out.append(table(("STATUS", "MODE", "SURFACE", "PATH", "DETAIL"), rows))
    return "\n".join(out) + "\n"
