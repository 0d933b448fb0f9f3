"""Formatters for ``agy-audit ci`` reports: text, JSON, JUnit XML, Markdown, GitHub annotations.

Nothing here computes: every function turns an ``audit.pipeline.ci.Report`` into text or a JSON-ready
dict. Each format shows, per check, the first ``ci.SHOWN`` findings and the command that lists
all of them. The JSON document is described by ``schemas/ci-report.schema.json``.
"""

from __future__ import annotations

from typing import Any

from audit import __version__
from audit.checks.consumers import AT_RISK, BREAKS, OK, UNKNOWN
from audit.pipeline.ci import (
    ERROR,
    FAIL,
    PASS,
    REMOVED_CORPUS,
    SKIPPED,
    WARNING,
    Check,
    Finding,
    Report,
)
from audit.report import junit
from audit.report.consumers_report import result_json
from audit.report.drift_report import comparison_markdown
from audit.report.markdown import table_cell as _md
from audit.report.text import rfc3339, table
from audit.safeio import shown

REPORT_VERSION = 2
_COLORS = {PASS: "32", FAIL: "31", ERROR: "31", SKIPPED: "33", WARNING: "33"}


def _paint(text: str, key: str, color: bool) -> str:
    return f"\x1b[{_COLORS[key]}m{text}\x1b[0m" if color and key in _COLORS else text


def _where(f: Finding) -> str:
    if f.file is None:
        return ""
    return f"{f.file}:{f.line}: " if f.line is not None else f"{f.file}: "


def _finding_lines(check: Check, *, color: bool = False) -> list[str]:
    lines = [f"{_paint(f.level, f.level, color)} [{f.rule}] {_where(f)}{f.message}" for f in check.findings]
    if check.more:
        lines.append(f"... and {check.more} more")
    if check.command:
        lines.append(f"all: {check.command}")
    return lines


def corpus_state(report: Report) -> str:
    if report.kept:
        return "kept"
    keep = f"the commands below name it {REMOVED_CORPUS}: to run them, run again with --out {REMOVED_CORPUS}"
    if report.verdict == PASS:
        return f"removed after the passing run; {keep}"
    return f"removed; {keep}"


def counted(check: Check) -> str:
    counts = ((check.errors, "error(s)"), (check.warnings, "warning(s)"))
    return ", ".join(f"{n} {what}" for n, what in counts if n)


def verdict_line(report: Report) -> str:
    failed = f" ({', '.join(report.not_passed)})" if report.not_passed else ""
    return f"ci: {report.verdict.upper()}{failed}; exit {report.exit_code}"


# ----------------------------------------------------------------------------- text


def text(report: Report, *, color: bool = False) -> str:
    b = report.baseline
    out = [
        f"agy-audit ci: baseline {b.name} ({report.baseline_reason}), fail on {report.fail_on}, "
        f"live sidecars {'checked' if report.live else 'not checked'}",
        *(f"root: {r.root.path} ({r.root.surface}, {r.source}{', ' + r.endpoint if r.endpoint else ''})" for r in report.roots),
        f"corpus: {report.out} ({corpus_state(report)})",
        "",
        table(
            ("STAGE", "CHECK", "VERDICT", "ERRORS", "WARNINGS", "SUMMARY"),
            [(c.stage, c.name, c.verdict, c.errors, c.warnings, c.summary) for s in report.stages for c in s.checks],
        ),
    ]
    for stage in report.stages:
        for check in stage.checks:
            if check.findings:
                out += ["", f"{check.stage} {check.name}: {counted(check)}"]
                out += ["  " + line for line in _finding_lines(check, color=color)]
    out += [
        "",
        table(
            ("STAGE", "VERDICT", "CHECKS", "ERRORS", "WARNINGS"),
            [(s.name, s.verdict, len(s.checks), s.errors, s.warnings) for s in report.stages],
        ),
        "",
        _paint(verdict_line(report), report.verdict, color),
    ]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- JSON


def _finding_json(f: Finding) -> dict[str, Any]:
    return {"level": f.level, "rule": f.rule, "message": f.message, "file": f.file, "line": f.line}


def _check_json(c: Check) -> dict[str, Any]:
    return {
        "name": c.name,
        "target": c.target,
        "verdict": c.verdict,
        "summary": c.summary,
        "command": c.command,
        "counts": c.counts,
        "errors": c.errors,
        "warnings": c.warnings,
        "findings": [_finding_json(f) for f in c.findings],
        "moreFindings": c.more,
        "seconds": round(c.seconds, 3),
    }


def to_json(report: Report) -> dict[str, Any]:
    b = report.baseline
    return {
        "reportVersion": REPORT_VERSION,
        "toolVersion": __version__,
        "verdict": report.verdict,
        "exitCode": report.exit_code,
        "started": rfc3339(report.started_ns),
        "finished": rfc3339(report.finished_ns),
        "corpus": {"path": str(report.out), "kept": report.kept},
        "roots": [
            {"path": str(r.root.path), "surface": r.root.surface, "source": r.source, "endpoint": r.endpoint}
            for r in report.roots
        ],
        "baseline": {
            "name": b.name,
            "agyVersion": b.agy_version,
            "bundled": b.bundled,
            "path": None if b.path is None else str(b.path),
            "reason": report.baseline_reason,
        },
        "failOn": report.fail_on,
        "live": report.live,
        "stages": [
            {
                "name": s.name,
                "verdict": s.verdict,
                "errors": s.errors,
                "warnings": s.warnings,
                "checks": [_check_json(c) for c in s.checks],
            }
            for s in report.stages
        ],
        "fingerprints": {
            target: {s: {"digest": fp.digest, "lines": len(fp.lines)} for s, fp in observed.fingerprints.items()}
            for target, observed in report.observed.items()
        },
        "consumers": [
            {"target": target} | result_json(r, report.failing) for target, results in report.consumers.items() for r in results
        ],
        "recorded": None if report.recorded is None else str(report.recorded),
        "compatible": report.compatible,
    }


# ----------------------------------------------------------------------------- JUnit


def junit_xml(report: Report) -> str:
    """One suite per stage, one case per check; failures and errors carry the findings."""
    suites = []
    for stage in report.stages:
        cases = []
        for c in stage.checks:
            lines = "\n".join(_finding_lines(c))
            bad = c.verdict in (FAIL, ERROR)
            cases.append(
                junit.Case(
                    name=c.name,
                    classname=f"agy-audit.ci.{stage.name}",
                    failure=c.summary if c.verdict == FAIL else None,
                    error=c.summary if c.verdict == ERROR else None,
                    skipped=c.summary if c.verdict == SKIPPED else None,
                    details=lines if bad else "",
                    output=c.summary + ("\n" + lines if lines and not bad else ""),
                    time=c.seconds,
                )
            )
        suites.append(junit.Suite(stage.name, cases))
    return junit.render(suites, name="agy-audit ci")


# ----------------------------------------------------------------------------- Markdown


def markdown(report: Report) -> str:
    """A pull-request comment or job summary: stages, checks, findings, drift tables."""
    b = report.baseline
    out = [
        f"## agy-audit ci: {report.verdict.upper()}",
        "",
        f"Baseline `{b.name}` ({_md(report.baseline_reason)}), fail on `{report.fail_on}`, live sidecars {'checked' if report.live else 'not checked'}; "
        f"corpus `{report.out}` ({corpus_state(report)}).",
        "",
        "| stage | verdict | checks | errors | warnings |",
        "| --- | --- | ---: | ---: | ---: |",
        *(f"| {s.name} | {s.verdict} | {len(s.checks)} | {s.errors} | {s.warnings} |" for s in report.stages),
        "",
        "### Checks",
        "",
        "| stage | check | verdict | errors | warnings | summary |",
        "| --- | --- | --- | ---: | ---: | --- |",
        *(
            f"| {c.stage} | {c.name} | {c.verdict} | {c.errors} | {c.warnings} | {_md(c.summary)} |"
            for s in report.stages
            for c in s.checks
        ),
    ]
    with_findings = [c for s in report.stages for c in s.checks if c.findings]
    if with_findings:
        out += ["", "### Findings"]
    for c in with_findings:
        out += ["", f"**{c.stage} {c.name}**: {counted(c)}", ""]
        out += [f"- {f.level} `{f.rule}` {_md(_where(f) + f.message)}" for f in c.findings]
        if c.more:
            out.append(f"- ... and {c.more} more")
        if c.command:
            out += ["", f"All: `{c.command}`"]
    if report.consumers:
        out += ["", "### Consumers", "", "| target | consumer | verdict | breaks | at risk | ok | unknown | version |"]
        out.append("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |")
        for target, results in report.consumers.items():
            for r in results:
                n = r.counts()
                out.append(
                    f"| {target} | {r.profile.name} | {r.verdict} | {n[BREAKS]} | {n[AT_RISK]} | {n[OK]} | {n[UNKNOWN]} "
                    f"| {_md(r.profile.version)} |"
                )
    for target, comparison in report.comparisons.items():
        drift = comparison_markdown(comparison, report.observed[target], not_observed=False)
        out += ["", f"### Drift: {target}", ""]
        out += ["##" + line if line.startswith("#") else line for line in drift.rstrip("\n").split("\n")]
    out += ["", f"`{verdict_line(report)}`"]
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------------- GitHub


def _data(text: str) -> str:
    """Escape a workflow command's message (GitHub: ``%``, CR and LF; control characters such
    as ESC, which the log would interpret, shown escaped first)."""
    text = shown(text.replace("\r", "\ue000").replace("\n", "\ue001"))
    return text.replace("%", "%25").replace("\ue000", "%0D").replace("\ue001", "%0A")


def _property(text: str) -> str:
    """Escape a workflow command's property value (as data, plus ``:`` and ``,``)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(level: str, message: str, *, title: str, file: str | None = None, line: int | None = None) -> str:
    props = [f"file={_property(file)}"] if file is not None else []
    props += [f"line={line}"] if file is not None and line is not None else []
    props.append(f"title={_property(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}"


def github_annotations(report: Report) -> str:
    """GitHub workflow commands: the overall verdict, then the first findings of every check
    (``::error`` for failing ones, ``::warning`` for the rest) and every failed or errored check."""
    level = "notice" if report.verdict == PASS else "error"
    out = [_annotation(level, verdict_line(report), title="agy-audit ci")]
    for stage in report.stages:
        for c in stage.checks:
            title = f"agy-audit ci: {c.stage} {c.name}"
            if c.verdict in (FAIL, ERROR) and not c.findings:
                out.append(_annotation("error", c.summary, title=title))
            out += [_annotation(f.level, f"[{f.rule}] {f.message}", title=title, file=f.file, line=f.line) for f in c.findings]
    return "\n".join(out) + "\n"
