"""HTML pages for ``agy-audit ci`` and ``agy-audit compare``: one self-contained file each
(``html_page``: its frame, style sheet, script and escaping).

Nothing here computes: ``ci_page`` turns an ``audit.pipeline.ci_results.Report`` into a page,
``compare_page`` a comparison and its consumer verdicts.

The ci page, top to bottom: a sticky header with the verdict; the facts (baseline and why, roots,
corpus); the stages; the findings of each check, folded, with file:line and the command that lists
all; the drift of each surface as a tree of the changed paths coloured (and labelled) by class,
folded per prefix (``html_drift``); the consumers x surfaces matrix, the deciding lines on hover
and below it (``html_consumers``); every check with its verdict and summary. Folding is
``<details>``, which works without the script; the script adds "expand all" / "collapse all" and
marks the page ``data-script="ran"``.
"""

from __future__ import annotations

from audit.checks.consumers import ConsumerResult, FailOn
from audit.checks.drift import Comparison, Observed
from audit.findings import Finding
from audit.pipeline.ci_results import Check, Report
from audit.report.ci_report import corpus_state, counted, verdict_line
from audit.report.drift_report import corpus_line
from audit.report.html_consumers import consumers_section
from audit.report.html_drift import classes_legend, drift_section
from audit.report.html_page import badge, facts, page, section, slug
from audit.report.html_page import escaped as _t
from audit.report.text import finding_message, rfc3339

# ----------------------------------------------------------------------------- ci


def ci_page(report: Report) -> str:
    """The whole ci report as one page (the module docstring says what it holds)."""
    sections = [_ci_facts(report), _stages(report), _findings(report)]
    nav = [("stages", "stages"), ("findings", "findings")]
    if report.comparisons:
        drift = [drift_section(c, report.observed[t], heading=t) for t, c in report.comparisons.items()]
        sections.append(section("drift", "Drift against the baseline", [classes_legend(), *drift], fold=True))
        nav.append(("drift", "drift"))
    if report.consumers:
        groups = [(t, report.comparisons[t], results) for t, results in report.consumers.items()]
        sections.append(consumers_section(groups))
        nav.append(("consumers", "consumers"))
    sections.append(_checks(report))
    nav.append(("checks", "checks"))
    return page(f"agy-audit ci: {report.verdict.upper()}", report.verdict, verdict_line(report), nav, sections)


def _ci_facts(report: Report) -> str:
    b = report.baseline
    agy = f" (agy {_t(b.agy_version)})" if b.agy_version else ""
    roots = "".join(
        f'<li><code>{_t(r.root.path)}</code> <span class="muted">{_t(r.root.product)}, {_t(r.source)}'
        + (f", {_t(r.endpoint)}" if r.endpoint else "")
        + "</span></li>"
        for r in report.roots
    )
    rows = [
        ("baseline", f"<code>{_t(b.name)}</code>{agy}: {_t(report.baseline_reason)}"),
        ("fail on", f"<code>{_t(report.fail_on)}</code>"),
        ("live sidecars", "checked" if report.live else "not checked"),
        ("roots", f"<ul>{roots}</ul>" if roots else "none"),
        ("corpus", f'<code>{_t(report.out)}</code> <span class="muted">({_t(corpus_state(report))})</span>'),
        ("run", f"{_t(rfc3339(report.started_ns))} to {_t(rfc3339(report.finished_ns) or 'unfinished')}"),
    ]
    if report.recorded is not None:
        compatible = f" (compatible with <code>{_t(report.compatible)}</code>)" if report.compatible else ""
        rows.append(("recorded", f"<code>{_t(report.recorded)}</code>{compatible}"))
    return f'<section id="facts">{facts(rows)}</section>'


def _stages(report: Report) -> str:
    items = []
    for s in report.stages:
        counts = [f"{len(s.checks)} check(s)"]
        counts += [f"{n} {what}" for n, what in ((s.errors, "error(s)"), (s.warnings, "warning(s)")) if n]
        items.append(
            f'<li class="stage" id="stage-{slug(s.name)}" data-verdict="{_t(s.verdict)}">'
            f'<a href="#checks-{slug(s.name)}"><span class="name">{_t(s.name)}</span> {badge(s.verdict)} '
            + " ".join(f'<span class="n">{_t(n)}</span>' for n in counts)
            + "</a></li>"
        )
    return section("stages", "Stages", [f'<ol class="stages">{"".join(items)}</ol>'])


def _check_ids(report: Report) -> dict[int, str]:
    """An anchor per check, by ``id()``: stage and check names may repeat across targets."""
    return {id(c): f"check-{n}" for n, c in enumerate(c for s in report.stages for c in s.checks)}


def _checks(report: Report) -> str:
    anchors = _check_ids(report)
    head = (
        "<thead><tr><th>stage</th><th>check</th><th>verdict</th>"
        '<th class="num">errors</th><th class="num">warnings</th><th>summary</th></tr></thead>'
    )
    bodies = []
    for s in report.stages:
        rows = []
        for n, c in enumerate(s.checks):
            name = _t(c.name)
            if c.findings:
                name = f'<a href="#{anchors[id(c)]}">{name}</a>'
            rows.append(
                f'<tr data-check="{_t(c.stage + " " + c.name)}" data-verdict="{_t(c.verdict)}">'
                f"<td>{_t(s.name) if n == 0 else ''}</td><td>{name}</td><td>{badge(c.verdict)}</td>"
                f'<td class="num">{c.errors}</td><td class="num">{c.warnings}</td><td class="summary">{_t(c.summary)}</td></tr>'
            )
        bodies.append(f'<tbody class="stage" id="checks-{slug(s.name)}">{"".join(rows)}</tbody>')
    return section("checks", "Checks", [f"<table>{head}{''.join(bodies)}</table>"])


def _location(f: Finding) -> str:
    return f'<span class="loc">{_t(f.where())}</span> ' if f.file is not None else ""


def _finding(f: Finding) -> str:
    return (
        f'<li class="finding" data-level="{_t(f.level)}">{_location(f)}'
        f'{badge("lvl-" + f.level, f.level)} <span class="rule">[{_t(f.rule)}]</span> '
        f'<span class="msg">{_t(finding_message(f))}</span></li>'
    )


def _check_findings(check: Check, anchor: str) -> str:
    items = [_finding(f) for f in check.findings]
    if check.more:
        items.append(f'<li class="more muted">... and {check.more} more</li>')
    command = f'<p class="all">All: <code>{_t(check.command)}</code></p>' if check.command else ""
    opened = " open" if check.errors else ""
    return (
        f'<details class="check" id="{anchor}"{opened}><summary>{badge(check.verdict)} '
        f"{_t(check.stage)} {_t(check.name)}: {_t(counted(check))}</summary>"
        f'<ul class="findings">{"".join(items)}</ul>{command}</details>'
    )


def _findings(report: Report) -> str:
    anchors = _check_ids(report)
    parts = [_check_findings(c, anchors[id(c)]) for s in report.stages for c in s.checks if c.findings]
    return section("findings", "Findings", parts or ['<p class="muted">No check reported a finding.</p>'], fold=bool(parts))


# ----------------------------------------------------------------------------- compare


def compare_page(
    comparison: Comparison,
    observed: Observed,
    results: list[ConsumerResult],
    *,
    reason: str,
    fail_on: FailOn,
    fails: bool,
    not_observed: bool = False,
) -> str:
    """A compare run as one page: its verdict (*fails* under *fail_on*), the drift per surface
    (with *not_observed*, the lines only not observed too), the consumers x surfaces matrix.
    *reason*: why this baseline."""
    verdict = "fail" if fails else "pass"
    rows = [
        ("baseline", f"<code>{_t(comparison.baseline)}</code>: {_t(reason)}"),
        ("observed", _t(corpus_line(comparison, observed))),
        ("fail on", f"<code>{_t(fail_on.text)}</code>"),
    ]
    sections = [
        f'<section id="facts">{facts(rows)}</section>',
        section("drift", "Drift", [classes_legend(), drift_section(comparison, observed, not_observed=not_observed)], fold=True),
    ]
    nav = [("drift", "drift")]
    if results:
        sections.append(consumers_section([(None, comparison, results)]))
        nav.append(("consumers", "consumers"))
    line = f"compare: {verdict.upper()} (fail on {fail_on.text})"
    return page(f"agy-audit compare: {verdict.upper()}", verdict, line, nav, sections)
