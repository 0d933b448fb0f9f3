"""The verdicts of ``.db`` <-> transcript consistency, the rules of its findings, and the results.

The verdicts per session (``VERDICTS``), the transcript tiers, every rule a finding may carry
(``RULES``, the invariants' included), one session's ``SessionResult`` and the ``Report`` of
many with its exit code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal

from audit.checks import invariants
from audit.errors import EXIT_FINDINGS, EXIT_NOTHING, EXIT_OK, EXIT_USAGE
from audit.findings import UNREADABLE as UNREADABLE_RULE
from audit.findings import Finding, HasFindings, Level, rule_counts
from audit.store import transcript as tr

SessionVerdict = Literal["consistent", "inconsistent", "unreadable"]
CONSISTENT: Final = "consistent"
INCONSISTENT: Final = "inconsistent"
UNREADABLE: Final = "unreadable"
VERDICTS: tuple[SessionVerdict, ...] = (CONSISTENT, INCONSISTENT, UNREADABLE)
TIERS = tr.TIERS
COMPACT, FULL, OVERVIEW = TIERS
WINDOW_RULE = "transcript/window/late"

RULES = {
    "consistency/type": "the step type differs",
    "consistency/status": "two different final statuses (DONE, ERROR, CANCELED ...)",
    "consistency/status-lag": "one side is still in a state the other has left (advisory)",
    "consistency/created-at": "createdAt differs at the second",
    "consistency/source": "the step source differs",
    "consistency/prompt": "the <USER_REQUEST> text differs from userInput",
    "consistency/response": "the planner's content differs from its response",
    "consistency/thinking": "the planner's thinking differs",
    "consistency/tool-calls": "the planner's tool calls differ in number",
    "consistency/tool-name": "a tool call's name differs",
    "consistency/tool-args": "a tool call's argument keys or values differ",
    "consistency/command-line": "a RUN_COMMAND's command line differs from the CommandLine the transcript's call gives",
    "consistency/exit-code": "a RUN_COMMAND's exit code differs",
    "consistency/error": "the error text differs",
    "consistency/error-code": "the error code differs",
    WINDOW_RULE: "a transcript tier starts after step 0 (advisory)",
    "consistency/gap": ".db steps inside a tier's range without a transcript record (advisory)",
    "consistency/beyond": "transcript steps beyond the last .db step (advisory)",
    "consistency/unknown-enum": "a .db enum number cortex.proto does not name; not compared (advisory)",
    "consistency/db-decode": "the .db decoder reported a problem that leaves the steps readable (advisory)",
    UNREADABLE_RULE: "the .db or a transcript file cannot be read",
    **invariants.RULES,
}

NO_DB = "no conversation .db found"
"""Why there is nothing to check (``NothingToCheck``)."""


@dataclass
class SessionResult(HasFindings):
    id: str
    db: Path
    brain: Path | None
    verdict: SessionVerdict = CONSISTENT
    db_steps: int = 0
    records: dict[str, int] = field(default_factory=dict)  # tier -> records read
    joined: dict[str, int] = field(default_factory=dict)  # tier -> records joined to a .db step
    findings: list[Finding] = field(default_factory=list)  # each names its transcript file, or the .db


@dataclass
class Report:
    results: list[SessionResult]

    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.results) for v in VERDICTS}

    @property
    def findings(self) -> list[Finding]:
        return [f for r in self.results for f in r.findings]

    def rule_counts(self, level: Level = Level.ERROR) -> dict[str, int]:
        return rule_counts(self.findings, level)

    @property
    def exit_code(self) -> int:
        verdicts = {r.verdict for r in self.results}
        if not self.results:
            return EXIT_NOTHING
        if UNREADABLE in verdicts:
            return EXIT_USAGE
        return EXIT_FINDINGS if INCONSISTENT in verdicts else EXIT_OK
