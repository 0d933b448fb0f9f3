"""A profile's verdict on a comparison (``judge``): each entry judged on its lines
(``entry_lines``) and, with a value filter, on its values (``value_filters``); the losses of an
optional entry settled against its fallbacks; the worst effect.

A profile's ``scope`` names the only roots the consumer reads: its ``layout`` entries match those
roots' lines, and its value filters are judged on the records of their products
(``value_filters``). A profile's ``prefers`` names a conversation file family the consumer reads a
session from in place of another where the session has it: when in every root read every session
with the other has it too (``layout`` ``file``), a loss on the other's surfaces is only ``at risk``
(``_preferred``).
"""

from __future__ import annotations

from collections.abc import Iterable

from audit.checks.baselines import Baseline
from audit.checks.consumers.entry_lines import Context, judge_entry
from audit.checks.consumers.profiles import OPTIONAL, Entry, Profile
from audit.checks.consumers.value_filters import judge_values
from audit.checks.consumers.verdicts import AT_RISK, BREAKS, RANK, VERDICT_OF_RANK, ConsumerResult, Decision
from audit.checks.drift import Comparison, Observed, SurfaceResult, split_line

PREFERABLE = {"conversations/*.db": ("sqlite", "wire"), "conversations/*.trajectory.json": ("sidecar",)}
"""The file families a ``prefers`` entry names, with the surfaces that fingerprint their content:
the conversation files, which the ``layout`` fingerprint counts among the same sessions."""


def _context(profile: Profile, observed: Observed) -> Context:
    scope = profile.scope
    roots = None if scope is None else frozenset(scope.roots)
    return Context(roots, None if scope is None else scope.products, _preferred(profile, observed, roots))


def _preferred(profile: Profile, observed: Observed, roots: frozenset[str] | None) -> dict[str, str]:
    """Per surface of a family *profile* prefers another to: why its losses are only a risk, when
    in every root read whose sessions have that family every session has the preferred one too
    (``layout``: ``file``); nothing when some lack it (those are read from it) or the layout is
    unknown."""
    fp = observed.fingerprints.get("layout")
    forms = dict(map(split_line, fp.lines)) if fp is not None else {}
    out: dict[str, str] = {}
    for preference in profile.prefers:
        holding = sorted(
            {
                root
                for root, _, family in (line.partition("/") for line in forms)
                if family == preference.over and (roots is None or root in roots)
            }
        )
        if holding and all(forms.get(f"{root}/{preference.family}") == "file" for root in holding):
            why = (
                f"it prefers {preference.family}, which every session of {', '.join(holding)} has (layout: file): "
                f"it reads {preference.over} only for a session whose {preference.family} it does not take"
            )
            out.update(dict.fromkeys(PREFERABLE[preference.over], why))
    return out


def _judge(
    entry: Entry, results: dict[str, SurfaceResult], baseline: Baseline, observed: Observed, ctx: Context
) -> list[Decision]:
    decisions = judge_entry(entry, results.get(entry.surface), baseline, observed, ctx)
    if entry.surface in baseline.synthetic:  # no fact says agy wrote those lines: a loss against them is only a risk
        decisions = _at_most_risk(
            decisions, f"{baseline.name}'s {entry.surface} lines are synthetic: record your own baseline to judge"
        )
    if entry.other is not None:
        paths = [d for d in decisions if d.path is not None]  # a value path (compact.type) need not be a line of its surface
        decisions = paths + judge_values(entry, results.get(entry.surface), baseline, observed, ctx)
    if entry.surface in ctx.preferred:
        decisions = _at_most_risk(decisions, ctx.preferred[entry.surface])
    return decisions


def _at_most_risk(decisions: list[Decision], why: str) -> list[Decision]:
    """*decisions* with each ``breaks`` made ``at risk``, *why* added to its reason."""
    return [Decision(d.entry, AT_RISK, f"{d.reason}; {why}", d.path, d.change) if d.effect == BREAKS else d for d in decisions]


def _fallen_back(decision: Decision) -> bool:
    """Whether *decision* is an optional entry's loss that its fallbacks may still cover (``lost``)."""
    change = decision.change
    return (
        decision.effect == AT_RISK
        and bool(decision.entry.fallback)
        and decision.entry.mode == OPTIONAL
        and change is not None
        and (change.new is None or (change.kind == "renamed" and decision.path != change.path))
    )


def _settle_fallbacks(decisions: list[Decision]) -> list[Decision]:
    """An optional entry gone everywhere stays ``at risk`` while one of its fallbacks holds; when
    every fallback broke too (or is gone the same way, fallen back in a circle), it breaks."""
    by_label: dict[str, list[Decision]] = {}
    for d in decisions:
        by_label.setdefault(d.entry.label, []).append(d)

    def broken(label: str, seen: frozenset[str]) -> bool:
        own = by_label.get(label, [])
        if any(d.effect == BREAKS for d in own):
            return True
        pending = [d for d in own if _fallen_back(d)]
        return bool(pending) and all(f in seen or broken(f, seen | {label}) for f in pending[0].entry.fallback)

    out = []
    for d in decisions:
        if _fallen_back(d) and all(broken(f, frozenset({d.entry.label})) for f in d.entry.fallback):
            d = Decision(d.entry, BREAKS, f"{d.reason}, which is lost too", d.path, d.change)
        out.append(d)
    return out


def judge(profile: Profile, comparison: Comparison, baseline: Baseline, observed: Observed) -> ConsumerResult:
    """The verdict of *profile* on *comparison* (of *observed* against *baseline*)."""
    results = {r.surface: r for r in comparison.surfaces}
    ctx = _context(profile, observed)
    decisions = _settle_fallbacks([d for e in profile.entries for d in _judge(e, results, baseline, observed, ctx)])
    worst = max((RANK[d.effect] for d in decisions), default=0)
    verdict = VERDICT_OF_RANK[worst]
    return ConsumerResult(profile, verdict, decisions)


def judge_all(
    profiles: Iterable[Profile], comparison: Comparison, baseline: Baseline, observed: Observed
) -> list[ConsumerResult]:
    return [judge(p, comparison, baseline, observed) for p in profiles]
