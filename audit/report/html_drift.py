"""The drift section of an HTML page (``audit.report.html_report``): a comparison's table of
surfaces, then a tree of each surface's changed paths, coloured (and labelled) by class and folded
per prefix.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from audit.checks.drift import ADVISORY_CLASSES, CLASSES, Change, Comparison, Observed, SurfaceResult
from audit.report.drift_report import FOLD_AFTER, MARKS, corpus_line
from audit.report.html_page import badge, slug
from audit.report.html_page import escaped as _t

NOT_OBSERVED = "not-observed"
_SEP = "\x00"  # between a change's path and its value in Change.text (a path may hold it, a value never)


@dataclass
class _Node:
    changes: list[Change] = field(default_factory=list)  # changes of this very path
    children: dict[str, _Node] = field(default_factory=dict)

    def leaves(self) -> Counter[str]:
        found: Counter[str] = Counter(c.kind for c in self.changes)
        for child in self.children.values():
            found.update(child.leaves())
        return found


def _class_of(kind: str) -> str:
    return "c-advisory" if kind in ADVISORY_CLASSES else f"c-{slug(kind)}"


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
    return badge(r.status) + (' <span class="c c-advisory">advisory</span>' if r.advisory else "")


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


def drift_section(comparison: Comparison, observed: Observed, *, heading: str | None = None, not_observed: bool = False) -> str:
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
            *(_surface_drift(r, slug(f"drift {heading or ''} {r.surface}"), not_observed) for r in comparison.surfaces),
            "</div>",
        ]
    )


def classes_legend() -> str:
    marks = "".join(f"{_mark(k)}{_t(k)}{' (advisory)' if k in ADVISORY_CLASSES else ''}" for k in CLASSES)
    return f'<p class="legend">Classes: {marks}</p>'
