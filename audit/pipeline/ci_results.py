"""The results of ``agy-audit ci`` (``audit.pipeline.ci``): each check's verdict (``Check``), the checks
of a stage (``Stage``) and the whole run (``Report``), which ``audit.report.ci_report`` and
``audit.report.html_report`` format.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from audit.actions.sweep import RootSource
from audit.checks.baselines import Baseline
from audit.checks.consumers import ConsumerResult, FailOn
from audit.checks.drift import Comparison, Observed
from audit.findings import Finding, Level, Verdict
from audit.pipeline.sessions import SHOWN

REMOVED_CORPUS = "NEW_DIR"
"""What the commands of a report name a removed temp corpus: the ``--out`` of the run to repeat."""
STAGES = ("sweep", "verify-contract", "completeness", "consistency", "links", "fingerprint", "compare", "consumers", "record")
PASS, FAIL, SKIPPED, ERROR = Verdict.PASS, Verdict.FAIL, Verdict.SKIPPED, Verdict.ERROR  # ERROR: a check that could not run


@dataclass
class Check:
    """One check's verdict. Of its findings only the ``SHOWN`` first (errors first) are kept, in
    ``findings``; ``errors`` and ``warnings`` count all of them (the check's command lists them)."""

    stage: str
    name: str
    target: str  # CORPUS or LIVE
    verdict: Verdict
    summary: str
    command: str | None = None  # the command that shows every finding
    findings: list[Finding] = field(default_factory=list)  # given: all of them; kept: the first SHOWN, errors first
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0  # wall-clock time the check took
    errors: int = field(init=False, default=0)
    warnings: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        ordered = sorted(self.findings, key=lambda f: f.level != Level.ERROR)
        self.errors = sum(f.level == Level.ERROR for f in ordered)
        self.warnings = len(ordered) - self.errors
        self.findings = [replace(f, details={**f.details, "stage": self.stage, "check": self.name}) for f in ordered[:SHOWN]]

    @property
    def more(self) -> int:
        """Findings not kept."""
        return self.errors + self.warnings - len(self.findings)


@dataclass
class Stage:
    name: str
    checks: list[Check]

    @property
    def verdict(self) -> Verdict:
        verdicts = {c.verdict for c in self.checks}
        return next((v for v in (ERROR, FAIL, PASS) if v in verdicts), SKIPPED)

    @property
    def errors(self) -> int:
        return sum(c.errors for c in self.checks)

    @property
    def warnings(self) -> int:
        return sum(c.warnings for c in self.checks)


@dataclass
class Report:
    started_ns: int
    out: Path  # the sweep corpus
    kept: bool  # False: a temp corpus, removed when the run ended (kept only with keep or out)
    roots: list[RootSource]
    baseline: Baseline
    baseline_reason: str  # why this baseline: given, the newest recorded in the baseline directory, or bundled
    fail_on: str
    live: bool
    stages: list[Stage] = field(default_factory=list)
    observed: dict[str, Observed] = field(default_factory=dict)  # target -> fingerprints
    comparisons: dict[str, Comparison] = field(default_factory=dict)  # target -> comparison
    consumers: dict[str, list[ConsumerResult]] = field(default_factory=dict)  # target -> verdict per consumer
    recorded: Path | None = None
    compatible: str | None = None  # the baseline the recorded version is compatible with (nothing to review)
    finished_ns: int | None = None
    failing: FailOn = field(default_factory=FailOn)  # fail_on, parsed

    @property
    def verdict(self) -> Verdict:
        """``error`` when a check could not run, else ``fail`` when one failed, else ``pass``."""
        verdicts = {s.verdict for s in self.stages}
        return ERROR if ERROR in verdicts else FAIL if FAIL in verdicts else PASS

    @property
    def exit_code(self) -> int:
        return {PASS: 0, FAIL: 1, ERROR: 2}[self.verdict]

    @property
    def findings(self) -> list[Finding]:
        """The findings every check kept, stage by stage."""
        return [f for s in self.stages for c in s.checks for f in c.findings]

    @property
    def not_passed(self) -> list[str]:
        """Names of the stages that failed or errored."""
        return [s.name for s in self.stages if s.verdict in (FAIL, ERROR)]
