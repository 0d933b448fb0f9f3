"""HTML pages for ``agy-audit ci`` and ``agy-audit compare``: one self-contained file each.

Nothing here computes: ``ci_page`` turns an ``audit.pipeline.ci_results.Report`` into a page,
``compare_page`` a comparison and its consumer verdicts. A page loads nothing: its style sheet
and its one small script are inline, and its Content-Security-Policy allows those two by hash
and nothing else (no network, no other script, no style attribute). Every text a store, a
profile or a command line gave (paths, messages, rule names, summaries) is shown escaped for a
terminal first (``display.escape_for_terminal``: control characters, bidirectional overrides, the bytes of a
non-UTF-8 name), then escaped for HTML, so none of it can become markup.

The ci page, top to bottom: a sticky header with the verdict; the facts (baseline and why, roots,
corpus); the stages; the findings of each check, folded, with file:line and the command that lists
all; the drift of each surface as a tree of the changed paths coloured (and labelled) by class,
folded per prefix; the consumers x surfaces matrix, the deciding lines on hover and below it;
every check with its verdict and summary. Folding is ``<details>``, which works without the script;
the script adds "expand all" / "collapse all" and marks the page ``data-script="ran"``.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from audit import __version__
from audit.checks.consumers import AT_RISK, BREAKS, OK, UNKNOWN, ConsumerResult, FailOn, SurfaceVerdict
from audit.checks.drift import ADVISORY_CLASSES, CLASSES, Change, Comparison, Observed, SurfaceResult
from audit.display import escape_for_terminal
from audit.findings import Finding
from audit.pipeline.ci_results import Check, Report
from audit.report.ci_report import corpus_state, counted, verdict_line
from audit.report.consumers_report import decision_line
from audit.report.drift_report import FOLD_AFTER, MARKS, corpus_line
from audit.report.text import finding_message, rfc3339

EFFECTS = (BREAKS, AT_RISK, OK, UNKNOWN)
NOT_OBSERVED = "not-observed"
_SEP = "\x00"  # between a change's path and its value in Change.text (a path may hold it, a value never)

_STYLE = """
:root{--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--mono:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:var(--ink);background:#fff}
.top{position:sticky;top:0;z-index:2;background:#1f2328;color:#fff;box-shadow:0 1px 4px #0003}
.top .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem;padding:.6rem 1.5rem}
.top .tool{font-weight:600}
.top .line{font-family:var(--mono);font-size:.9rem;color:#d1d9e0}
.top nav{margin-left:auto;display:flex;gap:1rem;font-size:.9rem}
.top nav a{color:#9ecbff;text-decoration:none}
.top .verdict{font-size:1.05rem;padding:.1rem .7rem;border-radius:1rem;font-weight:700;letter-spacing:.04em}
main{max-width:1200px;margin:0 auto;padding:0 1.5rem 3rem}
section{scroll-margin-top:3.5rem}
h2{font-size:1.2rem;margin:2rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
code,.mono{font-family:var(--mono);font-size:.85em}
.muted{color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:1rem 0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
dl.facts ul{margin:0;padding:0;list-style:none}
ol.stages{display:grid;grid-template-columns:repeat(auto-fit,minmax(8rem,1fr));gap:.5rem;list-style:none;padding:0;margin:.5rem 0}
ol.stages li{border:1px solid var(--line);border-top-width:4px;border-radius:6px;padding:.4rem .6rem}
ol.stages a{color:inherit;text-decoration:none;display:block}
ol.stages .name{display:block;font-weight:600}
ol.stages .n{display:block;font-size:.8rem;color:var(--muted)}
table{border-collapse:collapse;width:100%;margin:.4rem 0;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid var(--line)}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.summary{overflow-wrap:anywhere;max-width:38rem}
tbody.stage tr:first-child td{border-top:2px solid var(--line)}
.badge{display:inline-block;padding:0 .45rem;border-radius:.8rem;border:1px solid;font-size:.8rem;font-weight:600;white-space:nowrap;line-height:1.45}
.pass,.ok{background:#ddf3ea;border-color:#009e73;color:#004d38}
.fail,.breaks,.lvl-error{background:#fbe1d2;border-color:#d55e00;color:#7a3300}
.error{background:#f5dfeb;border-color:#cc79a7;color:#6e2450}
.skipped,.unknown,.not-comparable{background:#eef0f2;border-color:#8c959f;color:#3d444d}
.unchanged{background:#ddf3ea;border-color:#009e73;color:#004d38}
.new{background:#d9ebf7;border-color:#0072b2;color:#00405f}
.drift{background:#fcefcf;border-color:#e69f00;color:#5c4000}
.at-risk,.lvl-warning{background:#fcefcf;border-color:#e69f00;color:#5c4000}
ol.stages [data-verdict=pass]{border-top-color:#009e73}ol.stages [data-verdict=fail]{border-top-color:#d55e00}
ol.stages [data-verdict=error]{border-top-color:#cc79a7}ol.stages [data-verdict=skipped]{border-top-color:#8c959f}
details{margin:.3rem 0}
summary{cursor:pointer}
details.check,details.surface,details.consumer{border:1px solid var(--line);border-radius:6px;padding:.3rem .7rem}
details.check>summary,details.surface>summary,details.consumer>summary{font-weight:600}
ul.findings{list-style:none;padding:0;margin:.4rem 0}
ul.findings li{padding:.35rem 0;border-top:1px solid #eaeef2}
.loc{display:block;font-family:var(--mono);font-size:.8rem;color:var(--muted);overflow-wrap:anywhere}
.rule{font-family:var(--mono);font-size:.8rem}
.msg{overflow-wrap:anywhere}
p.all{margin:.4rem 0;font-size:.85rem}
p.all code{overflow-wrap:anywhere}
.fold{margin:.2rem 0 .6rem}
.fold button{font:inherit;font-size:.8rem;margin-right:.4rem;padding:.1rem .6rem;border:1px solid var(--line);border-radius:4px;background:var(--soft);cursor:pointer}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:1.1rem}
ul.tree{padding-left:.2rem;font-family:var(--mono);font-size:.82rem}
ul.tree li{margin:.1rem 0}
ul.tree summary{color:var(--ink)}
ul.tree .val{color:var(--muted);overflow-wrap:anywhere}
.c{display:inline-block;min-width:1.2rem;text-align:center;border-radius:3px;font-weight:700;border:1px solid;font-family:var(--mono);font-size:.75rem;padding:0 .25rem;line-height:1.4}
.c-added{background:#d9ebf7;border-color:#0072b2;color:#00405f}
.c-removed{background:#fbe1d2;border-color:#d55e00;color:#7a3300}
.c-renamed{background:#f5dfeb;border-color:#cc79a7;color:#6e2450}
.c-type-changed{background:#fcefcf;border-color:#e69f00;color:#5c4000}
.c-widened{background:#e4f3fc;border-color:#56b4e9;color:#0b4a6e}
.c-narrowed{background:#fbf7cf;border-color:#b5a800;color:#4d4700}
.c-value-added{background:#ddf3ea;border-color:#009e73;color:#004d38}
.c-value-removed{background:#e9e9e9;border-color:#333;color:#222}
.c-not-observed{background:#fff;border-color:#8c959f;border-style:dashed;color:#59636e}
.c-advisory{background:#fff;border-color:#8c959f;border-style:dotted;color:#59636e;font-style:italic}
.counts .c{margin-right:.25rem;font-weight:600}
table.matrix{width:auto}
table.matrix{font-size:.82rem}
table.matrix td,table.matrix th{text-align:center;white-space:nowrap;padding:.25rem .35rem}
table.matrix th.consumer,table.matrix td.consumer{text-align:left}
table.matrix th.target{border-left:2px solid var(--line)}
table.matrix td.first,table.matrix th.first{border-left:2px solid var(--line)}
table.matrix td.cell span{cursor:help}
.none{color:#8c959f}
.scroll{overflow-x:auto}
details.notes{font-size:.85rem;color:var(--muted)}
.legend{font-size:.85rem;color:var(--muted);margin:.3rem 0}
.legend .c,.legend .badge{margin:0 .15rem 0 .6rem}
ul.deciding{margin:.3rem 0;padding-left:1.2rem;font-size:.85rem}
ul.deciding li{overflow-wrap:anywhere}
footer{max-width:1200px;margin:0 auto;padding:1rem 1.5rem 2rem;color:var(--muted);font-size:.8rem;border-top:1px solid var(--line)}
"""

_SCRIPT = """
for (const b of document.querySelectorAll("button[data-fold]")) {
  b.hidden = false;
  b.addEventListener("click", () => {
    for (const d of b.closest("section").querySelectorAll("details")) d.open = b.dataset.fold === "open";
  });
}
document.documentElement.dataset.script = "ran";
"""


def _source_hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


CSP = (
    f"default-src 'none'; style-src {_source_hash(_STYLE)}; script-src {_source_hash(_SCRIPT)}; "
    "img-src 'none'; base-uri 'none'; form-action 'none'"
)
"""The page's policy: its own style sheet and script (by hash), nothing else."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def _t(value: object) -> str:
    """*value* as HTML text or a quoted attribute value: terminal-safe first (``escape_for_terminal``; a lone
    surrogate it leaves, from JSON text, as ``\\udXXX``), then ``&``, ``<``, ``>`` and quotes."""
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", escape_for_terminal(value))
    return html.escape(text, quote=True)


def _slug(word: str) -> str:
    """A vocabulary word (a verdict, an effect, a class) as a CSS class or id part."""
    return re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")


def _badge(word: str, text: str | None = None) -> str:
    return f'<span class="badge {_slug(word)}">{_t(word if text is None else text)}</span>'


def _title(lines: Iterable[str]) -> str:
    """A ``title`` attribute of several lines (shown on hover)."""
    return "&#10;".join(_t(line) for line in lines)


def _page(title: str, verdict: str, line: str, nav: Sequence[tuple[str, str]], body: Sequence[str]) -> str:
    links = " ".join(f'<a href="#{anchor}">{_t(label)}</a>' for anchor, label in nav)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{_t(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            f'<header class="top" id="verdict" data-verdict="{_t(verdict)}"><div class="wrap">',
            f'<span class="tool">{_t(title.partition(":")[0])}</span>',
            f'<span class="verdict badge {_slug(verdict)}">{_t(verdict.upper())}</span>',
            f'<span class="line">{_t(line)}</span>',
            f"<nav>{links}</nav>",
            "</div></header>",
            "<main>",
            *body,
            "</main>",
            f"<footer>agy-audit {_t(__version__)}: one self-contained page (it loads nothing).</footer>",
            f"<script>{_SCRIPT}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _facts(rows: Sequence[tuple[str, str]]) -> str:
    """A definition list of (label, HTML already escaped)."""
    return '<dl class="facts">' + "".join(f"<dt>{_t(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"


def _fold_buttons() -> str:
    return (
        '<div class="fold"><button type="button" data-fold="open" hidden>expand all</button>'
        '<button type="button" data-fold="close" hidden>collapse all</button></div>'
    )


# ----------------------------------------------------------------------------- ci


def ci_page(report: Report) -> str:
    """The whole ci report as one page (the module docstring says what it holds)."""
    sections = [_ci_facts(report), _stages(report), _findings(report)]
    nav = [("stages", "stages"), ("findings", "findings")]
    if report.comparisons:
        drift = [_drift(c, report.observed[t], heading=t) for t, c in report.comparisons.items()]
        sections.append(_section("drift", "Drift against the baseline", [_classes_legend(), *drift], fold=True))
        nav.append(("drift", "drift"))
    if report.consumers:
        groups = [(t, report.comparisons[t], results) for t, results in report.consumers.items()]
        sections.append(_consumers(groups))
        nav.append(("consumers", "consumers"))
    sections.append(_checks(report))
    nav.append(("checks", "checks"))
    return _page(f"agy-audit ci: {report.verdict.upper()}", report.verdict, verdict_line(report), nav, sections)


def _section(anchor: str, heading: str, parts: Sequence[str], *, fold: bool = False) -> str:
    return "\n".join(
        [f'<section id="{anchor}">', f"<h2>{_t(heading)}</h2>", *([_fold_buttons()] if fold else []), *parts, "</section>"]
    )


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
    return f'<section id="facts">{_facts(rows)}</section>'


def _stages(report: Report) -> str:
    items = []
    for s in report.stages:
        counts = [f"{len(s.checks)} check(s)"]
        counts += [f"{n} {what}" for n, what in ((s.errors, "error(s)"), (s.warnings, "warning(s)")) if n]
        items.append(
            f'<li class="stage" id="stage-{_slug(s.name)}" data-verdict="{_t(s.verdict)}">'
            f'<a href="#checks-{_slug(s.name)}"><span class="name">{_t(s.name)}</span> {_badge(s.verdict)} '
            + " ".join(f'<span class="n">{_t(n)}</span>' for n in counts)
            + "</a></li>"
        )
    return _section("stages", "Stages", [f'<ol class="stages">{"".join(items)}</ol>'])


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
                f"<td>{_t(s.name) if n == 0 else ''}</td><td>{name}</td><td>{_badge(c.verdict)}</td>"
                f'<td class="num">{c.errors}</td><td class="num">{c.warnings}</td><td class="summary">{_t(c.summary)}</td></tr>'
            )
        bodies.append(f'<tbody class="stage" id="checks-{_slug(s.name)}">{"".join(rows)}</tbody>')
    return _section("checks", "Checks", [f"<table>{head}{''.join(bodies)}</table>"])


def _location(f: Finding) -> str:
    return f'<span class="loc">{_t(f.where())}</span> ' if f.file is not None else ""


def _finding(f: Finding) -> str:
    return (
        f'<li class="finding" data-level="{_t(f.level)}">{_location(f)}'
        f'{_badge("lvl-" + f.level, f.level)} <span class="rule">[{_t(f.rule)}]</span> '
        f'<span class="msg">{_t(finding_message(f))}</span></li>'
    )


def _check_findings(check: Check, anchor: str) -> str:
    items = [_finding(f) for f in check.findings]
    if check.more:
        items.append(f'<li class="more muted">... and {check.more} more</li>')
    command = f'<p class="all">All: <code>{_t(check.command)}</code></p>' if check.command else ""
    opened = " open" if check.errors else ""
    return (
        f'<details class="check" id="{anchor}"{opened}><summary>{_badge(check.verdict)} '
        f"{_t(check.stage)} {_t(check.name)}: {_t(counted(check))}</summary>"
        f'<ul class="findings">{"".join(items)}</ul>{command}</details>'
    )


def _findings(report: Report) -> str:
    anchors = _check_ids(report)
    parts = [_check_findings(c, anchors[id(c)]) for s in report.stages for c in s.checks if c.findings]
    return _section("findings", "Findings", parts or ['<p class="muted">No check reported a finding.</p>'], fold=bool(parts))


# ----------------------------------------------------------------------------- drift


@dataclass
class _Node:
    changes: list[Change] = field(default_factory=list)  # changes of this very path
    children: dict[str, _Node] = field(default_factory=dict)

    def leaves(self) -> Counter[str]:
        found = Counter(c.kind for c in self.changes)
        for child in self.children.values():
            found.update(child.leaves())
        return found


def _class_of(kind: str) -> str:
    return "c-advisory" if kind in ADVISORY_CLASSES else f"c-{_slug(kind)}"


def _mark(kind: str) -> str:
    return f'<span class="c {_class_of(kind)}">{_t(MARKS.get(kind, "?"))}</span>'


def _class_counts(counts: Counter[str]) -> str:
    return (
        '<span class="counts">'
        + " ".join(
            f'<span class="c {_class_of(k)}">{_t(MARKS.get(k, "?"))} {counts[k]} {_t(k)}</span>' for k in CLASSES if counts[k]
        )
        + "</span>"
    )


def _leaf(label: str, c: Change) -> str:
    value = c.text(sep=_SEP).rpartition(_SEP)[2]
    was = f' <span class="val">(was {_t(c.was)})</span>' if c.was else ""
    note = f' <span class="val">({_t(c.note)})</span>' if c.note else ""
    advisory = " advisory" if c.kind in ADVISORY_CLASSES else ""
    return (
        f'<li class="leaf" data-class="{_t(c.kind)}" data-path="{_t(c.path)}">{_mark(c.kind)} {_t(label)} '
        f'<span class="c {_class_of(c.kind)}">{_t(c.kind)}{advisory}</span> <span class="val">{_t(value)}</span>{was}{note}</li>'
    )


def _tree_items(node: _Node) -> list[str]:
    """The children of *node*: a chain of single children is one label (``a.b.c``); a prefix
    holding at most ``FOLD_AFTER`` changed lines is open."""
    items = []
    for segment, child in node.children.items():
        label = segment
        while not child.changes and len(child.children) == 1:
            ((more, child),) = child.children.items()
            label += "." + more
        items += [_leaf(label, c) for c in child.changes]
        if child.children:
            counts = child.leaves() - Counter(c.kind for c in child.changes)
            opened = " open" if sum(counts.values()) <= FOLD_AFTER else ""
            items.append(
                f"<li><details{opened}><summary>{_t(label)} {_class_counts(counts)}</summary>"
                f"<ul>{''.join(_tree_items(child))}</ul></details></li>"
            )
    return items


def _tree(changes: Iterable[Change]) -> str:
    root = _Node()
    for c in changes:
        node = root
        for segment in c.path.split(".") if c.path else ["(root)"]:
            node = node.children.setdefault(segment, _Node())
        node.changes.append(c)
    return f'<ul class="tree">{"".join(_tree_items(root))}</ul>'


def _status(r: SurfaceResult) -> str:
    return _badge(r.status) + (' <span class="c c-advisory">advisory</span>' if r.advisory else "")


def _surface_drift(r: SurfaceResult, anchor: str, not_observed: bool) -> str:
    changed = [c for c in r.changes if c.kind != NOT_OBSERVED]
    unseen = [c for c in r.changes if c.kind == NOT_OBSERVED]
    parts = []
    if not r.classified:
        parts.append(f'<p class="mono">{_t(r.baseline_digest)} &#8594; {_t(r.current_digest)}</p>')
    if changed:
        parts.append(_tree(changed))
    if unseen and not_observed:
        parts.append(
            f'<details class="unseen"><summary>{len(unseen)} line(s) not observed: no evidence of removal</summary>'
            f"{_tree(unseen)}</details>"
        )
    elif unseen:
        parts.append(
            f'<p class="muted">{len(unseen)} line(s) not observed (no evidence of removal), not listed here: '
            "<code>agy-audit compare -v</code> lists them.</p>"
        )
    if not parts:
        return ""
    opened = " open" if changed or not r.classified else ""  # only lines not observed: folded
    return (
        f'<details class="surface" id="{anchor}" data-surface="{_t(r.surface)}"{opened}>'
        f"<summary>{_t(r.surface)} {_status(r)} {_class_counts(r.counts())}</summary>{''.join(parts)}</details>"
    )


def _drift(comparison: Comparison, observed: Observed, *, heading: str | None = None, not_observed: bool = False) -> str:
    """A comparison: its table of surfaces, then a tree of each surface's changed lines (with
    *not_observed*, those only not observed too, folded; else only counted)."""
    rows = "".join(
        f"<tr><td><code>{_t(r.surface)}</code></td><td>{_status(r)}</td><td>{_class_counts(r.counts())}</td>"
        f'<td class="summary">{_t(r.reason or "")}</td></tr>'
        for r in comparison.surfaces
    )
    notes = "".join(
        f"<li><code>{_t(s)}</code>: missing lines are only &quot;not observed&quot;: {_t(why)}</li>"
        for s, why in comparison.partial.items()
    )
    return "\n".join(
        [
            f'<div class="comparison" data-target="{_t(heading or "")}">',
            f"<h3>{_t(heading)}</h3>" if heading else "",
            f'<p class="muted">baseline <code>{_t(comparison.baseline)}</code>; observed {_t(corpus_line(comparison, observed))}</p>',
            "<table><thead><tr><th>surface</th><th>status</th><th>changed lines</th><th>reason</th></tr></thead>",
            f"<tbody>{rows}</tbody></table>",
            f'<details class="notes"><summary>Why lines missing here are only "not observed" ({len(comparison.partial)} '
            f"surface(s))</summary><ul>{notes}</ul></details>"
            if notes
            else "",
            *(_surface_drift(r, _slug(f"drift {heading or ''} {r.surface}"), not_observed) for r in comparison.surfaces),
            "</div>",
        ]
    )


def _classes_legend() -> str:
    marks = "".join(f"{_mark(k)}{_t(k)}{' (advisory)' if k in ADVISORY_CLASSES else ''}" for k in CLASSES)
    return f'<p class="legend">Classes: {marks}</p>'


# ----------------------------------------------------------------------------- consumers


def _cell(v: SurfaceVerdict | None) -> str:
    if v is None:
        return '<td class="cell"><span class="none" title="reads nothing of this surface">-</span></td>'
    counts = ", ".join(f"{v.counts[e]} {e}" for e in EFFECTS if v.counts[e])
    why = [] if v.effect == OK else [decision_line(d, ": ") for d in v.why]
    n = sum(v.counts.values())
    title = _title([f"{n} entr{'y' if n == 1 else 'ies'}: {counts}", *why])
    return f'<td class="cell" data-effect="{_t(v.effect)}"><span class="badge {_slug(v.effect)}" title="{title}">{_t(v.effect)}</span></td>'


def _consumers(groups: Sequence[tuple[str | None, Comparison, list[ConsumerResult]]]) -> str:
    """The matrix: a row per consumer, per target (when there are several) its verdict and a
    column per compared surface some consumer reads; then the deciding lines of each consumer."""
    names = list(dict.fromkeys(r.profile.name for _, _, results in groups for r in results))
    columns = []
    for target, comparison, results in groups:
        verdicts = {r.profile.name: (r, r.by_surface()) for r in results}
        read = [s.surface for s in comparison.surfaces if any(s.surface in v for _, v in verdicts.values())]
        columns.append((target, read, verdicts))
    head_top = "".join(
        f'<th class="target" colspan="{len(read) + 1}">{_t(target)}</th>' for target, read, _ in columns if target is not None
    )
    head = "".join('<th class="first">verdict</th>' + "".join(f"<th>{_t(s)}</th>" for s in read) for _, read, _ in columns)
    rows = []
    for name in names:
        cells = []
        for _, read, verdicts in columns:
            result, by_surface = verdicts.get(name, (None, {}))
            if result is None or not any(s in by_surface for s in read):  # nothing of it compared here
                cells += ['<td class="first"><span class="none">-</span></td>', *(_cell(None) for _ in read)]
                continue
            cells.append(f'<td class="first" data-verdict="{_t(result.verdict)}">{_badge(result.verdict)}</td>')
            cells += [_cell(by_surface.get(s)) for s in read]
        rows.append(f'<tr data-consumer="{_t(name)}"><td class="consumer">{_t(name)}</td>{"".join(cells)}</tr>')
    table = (
        '<div class="scroll"><table class="matrix"><thead>'
        + (f'<tr><th class="consumer"></th>{head_top}</tr>' if head_top else "")
        + f'<tr><th class="consumer">consumer</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
    )
    legend = (
        '<p class="legend">Cells: '
        + "".join(_badge(e) for e in EFFECTS)
        + ' <span class="none">-</span> reads nothing there; hover a cell for its entries and deciding lines.</p>'
    )
    details = [_deciding(target, r) for target, _, results in groups for r in results if r.deciding]
    return _section("consumers", "Consumers", [legend, table, *details])


def _deciding(target: str | None, r: ConsumerResult) -> str:
    where = f" ({_t(target)})" if target else ""
    lines = "".join(
        f'<li><code>{_t(decision_line(d, ": "))}</code> <span class="muted">{_t(d.entry.cite)}</span></li>' for d in r.deciding
    )
    return (
        f'<details class="consumer" open><summary>{_t(r.profile.name)}{where} {_badge(r.verdict)} '
        f'<span class="muted">{_t(r.profile.version)}</span></summary><ul class="deciding">{lines}</ul></details>'
    )


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
        f'<section id="facts">{_facts(rows)}</section>',
        _section("drift", "Drift", [_classes_legend(), _drift(comparison, observed, not_observed=not_observed)], fold=True),
    ]
    nav = [("drift", "drift")]
    if results:
        sections.append(_consumers([(None, comparison, results)]))
        nav.append(("consumers", "consumers"))
    line = f"compare: {verdict.upper()} (fail on {fail_on.text})"
    return _page(f"agy-audit compare: {verdict.upper()}", verdict, line, nav, sections)
