"""Formatters for ``agy-audit ci`` reports: text, JSON, JUnit XML, Markdown, GitHub annotations.

Nothing here computes: every function turns an ``audit.pipeline.ci_results.Report`` into text or a
JSON-ready dict. Each format shows, per check, the first ``sessions.SHOWN`` findings and the
command that lists all of them. The JSON ``result`` is described by ``schemas/output.schema.json`` (``$defs/ci``).
"""

from __future__ import annotations

from typing import Any

from audit.checks.consumers import AT_RISK, BREAKS, OK, UNKNOWN
from audit.display import escape_for_terminal
from audit.findings import Finding, Level, Verdict
from audit.pipeline.ci_results import ERROR, FAIL, PASS, REMOVED_CORPUS, SKIPPED, Check, Report
from audit.report import junit
from audit.report.consumers_report import result_json as consumer_json
from audit.report.drift_report import comparison_markdown
from audit.report.envelope import envelope
from audit.report.markdown import table_cell as _md
from audit.report.text import finding_line, finding_message, rfc3339, table

_COLORS = {PASS: "32", FAIL: "31", ERROR: "31", SKIPPED: "33"}


def _paint(text: str, key: Verdict, color: bool) -> str:
    return f"\x1b[{_COLORS[key]}m{text}\x1b[0m" if color and key in _COLORS else text


def _finding_lines(check: Check, *, color: bool = False, indent: str = "") -> list[str]:
    """The check's findings in the one line format (never indented: problem matchers read them
    from the start of the line), then how many more there are and the command listing them all."""
    lines = [finding_line(f, color=color) for f in check.findings]
    if check.more:
        lines.append(f"{indent}... and {check.more} more")
    if check.command:
        lines.append(f"{indent}all: {check.command}")
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
        *(f"root: {r.root.path} ({r.root.product}, {r.source}{', ' + r.endpoint if r.endpoint else ''})" for r in report.roots),
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
                out += _finding_lines(check, color=color, indent="  ")
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
        "moreFindings": c.more,
        "seconds": round(c.seconds, 3),
    }


def to_json(report: Report) -> dict[str, Any]:
    """The JSON envelope of the run: its findings, and the report as its ``result``."""
    return envelope("ci", report.exit_code, result_json(report), report.findings)


def result_json(report: Report) -> dict[str, Any]:
    b = report.baseline
    return {
        "started": rfc3339(report.started_ns),
        "finished": rfc3339(report.finished_ns),
        "corpus": {"path": str(report.out), "kept": report.kept},
        "roots": [
            {"path": str(r.root.path), "product": r.root.product, "source": r.source, "endpoint": r.endpoint}
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
            {"target": target} | consumer_json(r, report.failing, unknown=False)
            for target, results in report.consumers.items()
            for r in results
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
        out += [f"- {_md(finding_line(f))}" for f in c.findings]
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
    text = escape_for_terminal(text.replace("\r", "\ue000").replace("\n", "\ue001"))
    return text.replace("%", "%25").replace("\ue000", "%0D").replace("\ue001", "%0A")


def _property(text: str) -> str:
    """Escape a workflow command's property value (as data, plus ``:`` and ``,``)."""
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation(level: str, message: str, *, title: str, finding: Finding | None = None) -> str:
    props = []
    if finding is not None and finding.file is not None:
        props.append(f"file={_property(finding.file)}")
        props += [f"line={finding.line}"] if finding.line is not None else []
        props += [f"col={finding.column}"] if finding.line is not None and finding.column is not None else []
    props.append(f"title={_property(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}"


def _finding_annotation(f: Finding, title: str) -> str:
    return _annotation(_COMMANDS[f.level], f"[{f.rule}] {finding_message(f)}", title=title, finding=f)


_COMMANDS = {Level.ERROR: "error", Level.WARNING: "warning", Level.NOTE: "notice"}
"""The workflow command of each level."""


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
            out += [_finding_annotation(f, title) for f in c.findings]
    return "\n".join(out) + "\n"
