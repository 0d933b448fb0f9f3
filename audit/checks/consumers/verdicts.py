"""What judging a profile gives: the effect of each entry (``ok``, ``at risk``, ``breaks``,
``unknown``), the decisions behind them, and a consumer's verdict with its views per entry and
per surface."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final, Literal

from audit.checks.consumers.profiles import Entry, Profile
from audit.checks.drift import Change

Effect = Literal["ok", "at risk", "breaks", "unknown"]
"""What a change means for one entry of a profile (``unknown``: it could not be judged)."""
OK: Final = "ok"
AT_RISK: Final = "at risk"
BREAKS: Final = "breaks"
UNKNOWN: Final = "unknown"
ConsumerVerdict = Literal["ok", "at risk", "breaks", "not comparable"]
"""A consumer's verdict: the worst effect of its entries, ``not comparable`` when none could be judged."""
NOT_COMPARABLE_VERDICT: Final = "not comparable"
RANK: dict[Effect, int] = {UNKNOWN: 0, OK: 1, AT_RISK: 2, BREAKS: 3}
VERDICT_OF_RANK: tuple[ConsumerVerdict, ...] = (NOT_COMPARABLE_VERDICT, OK, AT_RISK, BREAKS)
"""A consumer's verdict by the ``RANK`` of its worst effect (only unknowns: not comparable)."""


@dataclass(frozen=True)
class Decision:
    entry: Entry
    effect: Effect
    reason: str
    path: str | None = None  # the fingerprint line path matched
    change: Change | None = None  # the changed line that decided, if any


@dataclass(frozen=True)
class SurfaceVerdict:
    """One consumer on one surface it reads: the worst effect of its entries there (``unknown``
    when none could be judged), its entries per effect, and the decisions of that effect (for
    ``unknown``, the first reason of each entry, as ``ConsumerResult.unknown``)."""

    effect: Effect
    counts: Counter[Effect]
    why: tuple[Decision, ...]


@dataclass
class ConsumerResult:
    profile: Profile
    verdict: ConsumerVerdict
    decisions: list[Decision] = field(default_factory=list)

    @property
    def deciding(self) -> list[Decision]:
        """The decisions that make the verdict (breaks or at risk), in entry order."""
        if self.verdict not in (BREAKS, AT_RISK):
            return []
        return [d for d in self.decisions if d.effect == self.verdict]

    def entry_effects(self) -> dict[Entry, Effect]:
        """Each entry's effect: the worst of its decisions."""
        effects: dict[Entry, Effect] = {}
        for d in self.decisions:
            if RANK[d.effect] >= RANK[effects.get(d.entry, UNKNOWN)]:
                effects[d.entry] = d.effect
        return effects

    def counts(self) -> Counter[Effect]:
        """Entries per effect (ok, at risk, breaks, unknown)."""
        return Counter(self.entry_effects().values())

    @property
    def unknown(self) -> list[Decision]:
        """One decision per entry that could not be judged (the first reason)."""
        effects = self.entry_effects()
        seen: set[Entry] = set()
        out = []
        for d in self.decisions:
            if effects[d.entry] == UNKNOWN and d.entry not in seen:
                seen.add(d.entry)
                out.append(d)
        return out

    def by_surface(self) -> dict[str, SurfaceVerdict]:
        """The verdict on each surface the profile reads, in the order of its entries."""
        effects = self.entry_effects()
        out = {}
        for surface in dict.fromkeys(e.surface for e in self.profile.entries):
            counts = Counter(effects.get(e, UNKNOWN) for e in self.profile.entries if e.surface == surface)
            worst = max(counts, key=RANK.__getitem__)
            pool = self.unknown if worst == UNKNOWN else self.decisions
            out[surface] = SurfaceVerdict(
                worst, counts, tuple(d for d in pool if d.entry.surface == surface and d.effect == worst)
            )
        return out
