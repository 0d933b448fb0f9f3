"""``--fail-on``: which drift and which consumers' ``breaks`` fail a compare run."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from audit.checks.consumers.profiles import Profile
from audit.checks.consumers.verdicts import BREAKS, ConsumerResult
from audit.checks.drift import FAIL_ON, Comparison
from audit.errors import UsageError

CONSUMER_PREFIX = "consumer:"


@dataclass(frozen=True)
class FailOn:
    """``--fail-on`` values: a drift rule (``drift``, ``breaking``, ``never``) and consumers
    whose ``breaks`` fails the run."""

    drift: str = "drift"
    consumers: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        parts = [] if self.consumers and self.drift == "never" else [self.drift]
        return ", ".join(parts + [CONSUMER_PREFIX + n for n in self.consumers])

    def can_fail(self, name: str) -> bool:
        """Whether consumer *name* breaking fails the run: under ``drift`` and ``breaking``, and when named."""
        return name in self.consumers or self.drift in ("drift", "breaking")

    def consumer_fails(self, result: ConsumerResult) -> bool:
        return result.verdict == BREAKS and self.can_fail(result.profile.name)


def is_fail_on(value: object) -> bool:
    """Whether *value* is one ``--fail-on`` value: a drift rule, or ``consumer:NAME``."""
    return value in FAIL_ON or (
        isinstance(value, str) and value.startswith(CONSUMER_PREFIX) and len(value) > len(CONSUMER_PREFIX)
    )


def parse_fail_on(values: str | Sequence[str] | None) -> FailOn:
    """``--fail-on`` values (repeatable); consumers named alone fail nothing else (drift ``never``)."""
    if values is None or isinstance(values, str):
        values = [values or "drift"]
    modes = [v for v in values if not v.startswith(CONSUMER_PREFIX)]
    names = tuple(dict.fromkeys(v[len(CONSUMER_PREFIX) :] for v in values if v.startswith(CONSUMER_PREFIX)))
    for mode in modes:
        if mode not in FAIL_ON:
            raise UsageError(f"--fail-on {mode}: must be one of {', '.join(FAIL_ON)} or consumer:NAME")
    if len(set(modes)) > 1:
        raise UsageError(f"--fail-on: {' and '.join(dict.fromkeys(modes))} contradict each other; give one")
    if any(not n for n in names):
        raise UsageError("--fail-on consumer:NAME needs a consumer name")
    return FailOn(modes[0] if modes else ("never" if names else "drift"), names)


def check_fail_on(fail_on: FailOn, profiles: Iterable[Profile]) -> None:
    """Every consumer named by ``--fail-on consumer:NAME`` is among *profiles*."""
    names = {p.name for p in profiles}
    for name in fail_on.consumers:
        if name not in names:
            raise UsageError(
                f"--fail-on consumer:{name}: not among the consumers compared ({', '.join(sorted(names)) or 'none'})"
            )


def run_fails(comparison: Comparison, results: Iterable[ConsumerResult], fail_on: FailOn) -> bool:
    """Whether a compare run fails: its drift under ``fail_on.drift``, or a consumer that breaks
    (see ``FailOn.consumer_fails``)."""
    return comparison.fails(fail_on.drift) or any(fail_on.consumer_fails(r) for r in results)
