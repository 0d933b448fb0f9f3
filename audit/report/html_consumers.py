"""The consumers section of an HTML page (``audit.report.html_report``): the consumers x surfaces
matrix, the deciding lines on hover and below it.
"""

from __future__ import annotations

from collections.abc import Sequence

from audit.checks.consumers import AT_RISK, BREAKS, OK, UNKNOWN, ConsumerResult, Effect, SurfaceVerdict
from audit.checks.drift import Comparison
from audit.report.consumers_report import decision_line
from audit.report.html_page import badge, section, slug, title_attribute
from audit.report.html_page import escaped as _t

EFFECTS: tuple[Effect, ...] = (BREAKS, AT_RISK, OK, UNKNOWN)


def _cell(v: SurfaceVerdict | None) -> str:
    if v is None:
        return '<td class="cell"><span class="none" title="reads nothing of this surface">-</span></td>'
    counts = ", ".join(f"{v.counts[e]} {e}" for e in EFFECTS if v.counts[e])
    why = [] if v.effect == OK else [decision_line(d, ": ") for d in v.why]
    n = sum(v.counts.values())
    title = title_attribute([f"{n} entr{'y' if n == 1 else 'ies'}: {counts}", *why])
    return f'<td class="cell" data-effect="{_t(v.effect)}"><span class="badge {slug(v.effect)}" title="{title}">{_t(v.effect)}</span></td>'


def consumers_section(groups: Sequence[tuple[str | None, Comparison, list[ConsumerResult]]]) -> str:
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
            cells.append(f'<td class="first" data-verdict="{_t(result.verdict)}">{badge(result.verdict)}</td>')
            cells += [_cell(by_surface.get(s)) for s in read]
        rows.append(f'<tr data-consumer="{_t(name)}"><td class="consumer">{_t(name)}</td>{"".join(cells)}</tr>')
    table = (
        '<div class="scroll"><table class="matrix"><thead>'
        + (f'<tr><th class="consumer"></th>{head_top}</tr>' if head_top else "")
        + f'<tr><th class="consumer">consumer</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>'
    )
    legend = (
        '<p class="legend">Cells: '
        + "".join(badge(e) for e in EFFECTS)
        + ' <span class="none">-</span> reads nothing there; hover a cell for its entries and deciding lines.</p>'
    )
    details = [_deciding(target, r) for target, _, results in groups for r in results if r.deciding]
    return section("consumers", "Consumers", [legend, table, *details])


def _deciding(target: str | None, r: ConsumerResult) -> str:
    where = f" ({_t(target)})" if target else ""
    lines = "".join(
        f'<li><code>{_t(decision_line(d, ": "))}</code> <span class="muted">{_t(d.entry.cite)}</span></li>' for d in r.deciding
    )
    return (
        f'<details class="consumer" open><summary>{_t(r.profile.name)}{where} {badge(r.verdict)} '
        f'<span class="muted">{_t(r.profile.version)}</span></summary><ul class="deciding">{lines}</ul></details>'
    )
