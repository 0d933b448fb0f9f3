"""Consumer profiles: what each downstream tool reads, and whether a comparison breaks it.

A profile (``profiles``) lists the entries one downstream tool reads, each cited to the tool's
source. ``judge`` (``judging``) reads a ``drift.Comparison`` through it: each entry on the lines of
its surface (``entry_lines``), an entry with a value filter on the values recorded
(``value_filters``). The effects and results are ``verdicts``; ``fail_on`` says which of them fail
a compare run; ``entry_coverage`` which entries a corpus exercises (``consumers check``).

The consumer's verdict is the worst of its entries: ``breaks`` > ``at risk`` > ``ok``; when no
entry could be judged, ``not comparable``. Unknown entries are counted and listed, never failing.
"""

from audit.checks.consumers.entry_coverage import (
    EXERCISED,
    NOT_CHECKABLE,
    NOT_EXERCISED,
    Coverage,
    CoverageStatus,
    coverage,
    store_roots,
)
from audit.checks.consumers.entry_lines import pattern, unfingerprinted
from audit.checks.consumers.fail_on import CONSUMER_PREFIX, FailOn, check_fail_on, is_fail_on, parse_fail_on, run_fails
from audit.checks.consumers.judging import PREFERABLE, judge, judge_all
from audit.checks.consumers.profiles import Entry, Profile, bundled, load, resolve
from audit.checks.consumers.value_filters import named
from audit.checks.consumers.verdicts import (
    AT_RISK,
    BREAKS,
    NOT_COMPARABLE_VERDICT,
    OK,
    UNKNOWN,
    ConsumerResult,
    Decision,
    Effect,
    SurfaceVerdict,
)

__all__ = [
    "AT_RISK",
    "BREAKS",
    "CONSUMER_PREFIX",
    "EXERCISED",
    "NOT_CHECKABLE",
    "NOT_COMPARABLE_VERDICT",
    "NOT_EXERCISED",
    "OK",
    "PREFERABLE",
    "UNKNOWN",
    "ConsumerResult",
    "Coverage",
    "CoverageStatus",
    "Decision",
    "Effect",
    "Entry",
    "FailOn",
    "Profile",
    "SurfaceVerdict",
    "bundled",
    "check_fail_on",
    "coverage",
    "is_fail_on",
    "judge",
    "judge_all",
    "load",
    "named",
    "parse_fail_on",
    "pattern",
    "resolve",
    "run_fails",
    "store_roots",
    "unfingerprinted",
]
