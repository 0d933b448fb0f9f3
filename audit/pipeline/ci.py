"""``agy-audit ci``: every check worth running after an agy upgrade, in one run, in one report.

Stages, in order; each is a list of checks, and each check's verdict is ``pass``, ``fail``,
``skipped`` or ``error`` (it could not run):

1. ``sweep`` -- every session of every root into a new private corpus (``audit.actions.sweep``, going on
   after a failing session: the corpus is then incomplete and the stage fails);
2. ``verify-contract`` -- the corpus's manifest, sidecars and brain transcripts, and the live
   sidecars, against the bundled schemas (``audit.checks.contract``);
3. ``completeness`` -- corpus sidecars against their ``.db`` copies, live sidecars against the
   live ``.db`` files (``audit.checks.completeness``);
4. ``consistency`` -- the corpus's ``.db`` copies against their brain copies, the live ``.db``
   files against the live brain transcripts, and each ``.db`` against its own invariants
   (``audit.checks.consistency``, ``audit.checks.invariants``);
5. ``links`` -- the parent links of each ``corpus/<product>/`` and of each live
   ``conversations/`` (``audit.checks.links``);
6. ``fingerprint`` -- every surface of the corpus, and the sidecar surface of the live sidecars
   (``audit.checks.drift.fingerprints_to_compare``);
7. ``compare`` -- each fingerprint against the baseline (``audit.checks.drift``), failing per ``fail_on``;
8. ``consumers`` -- each comparison read through each consumer profile (``audit.checks.consumers``):
   ok, at risk or breaks with the deciding lines; a consumer that breaks fails per ``fail_on``;
9. ``record`` -- only when asked: the baseline is recorded from the corpus (``audit.actions.record``)
   when every check of stages 1-8 passed or was skipped, and never otherwise. Its name is
   ``agy-<installed version>`` when none is given (``AUTO``); when no corpus surface drifted and
   none is new against the baseline, the record says the version is compatible with it
   (``Report.compatible``) and asks for nothing to review.

Corpus and live: the corpus is what agy produces now (from its daemon, or reconstructed offline
from the ``.db`` files); the live sidecars are what consumers read now. A natively swept corpus
holds only what ``cortex.proto`` decodes: none of the sidecar-only keys (``parentConversationId``,
``invokeSubagent.results``, ``stopReason``, see ``audit.store.proto``) and no field the daemon adds
beyond the ``.db``. Stale sidecars, wrong parent stamps and new fields in the daemon's JSON are
therefore only visible in the live sidecars; ``live=False`` leaves those checks out.

One pass: the sweep calls ``_Context.swept`` with each session it wrote, while its ``.db`` copy is
decoded, and the session's checks are made there (``audit.pipeline.sessions``: completeness and
consistency, corpus and live, the contract check of its sidecars and transcripts, links facts,
corpus ``sqlite`` / ``wire`` / ``transcript`` and corpus and live ``sidecar`` observations, each
file read once); each stage's listing then takes those results and reads only what the sweep did
not write. The live checks rest on the sweep's snapshot of the live ``.db`` (the rows of its
backup copy). With a worker process (``jobs``, ``audit.pipeline.worker``) the checks of the corpus
copies are made there, on another core, while this process sweeps the next sessions and checks
their live sidecars; the report is the same, and the worker's second decoding of each ``.db``
copy costs CPU time (about a third more in all) to save wall-clock time. Checks keep their first ``SHOWN`` findings and
count the rest.

A check fails when its own command (``Check.command``, the one that lists every finding) reports
a failure: contract violations or unreadable files; incomplete, unsupported or unreadable
sidecars; disagreements between a ``.db`` and its transcripts, invariant breaches and unreadable
``.db`` or transcript files; parent cycles, conflicting evidence or invalid stamps; drift per ``fail_on``; and on
unreadable fingerprint inputs (which ``fingerprint`` only warns about and ``record`` refuses).
Whatever else those commands report (advisories, skipped files, other link diagnostics, sidecars
without a native source, lines dropped while fingerprinting, drift that ``fail_on`` tolerates) is
a warning.

The corpus goes to *out*, or to ``<new private temp dir>/sweep``; the temp dir is removed when the
run ends -- passing, failing, interrupted or broken -- unless *keep* (``Report.kept`` says which). Nothing here prints;
progress goes to the injected factory.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shlex
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from audit.actions.record import record, verify_name
from audit.actions.sweep import Decoded, RootSource, SweepResult, sweep
from audit.checks import baselines, completeness, consistency, consumers, contract, links
from audit.checks.baselines import Baseline
from audit.checks.completeness import SidecarTarget
from audit.checks.consistency import SessionTarget
from audit.checks.consumers import ConsumerResult, FailOn, Profile
from audit.checks.drift import (
    ADVISORY_CLASSES,
    CLASSES,
    DRIFT,
    NEW,
    NOT_COMPARABLE,
    Comparison,
    Observed,
    SurfaceResult,
    compare,
    fingerprints_to_compare,
)
from audit.checks.fingerprint import SURFACES
from audit.errors import AuditError, FindingsError, NothingToCheck, UsageError
from audit.findings import UNREADABLE, Finding, Level, Verdict
from audit.pipeline.sessions import (
    CORPUS,
    LIVE,
    SHOWN,
    SessionChecks,
    Tally,
    completeness_part,
    consistency_part,
    key,
)
from audit.pipeline.worker import Worker
from audit.progress import Factory, step
from audit.safeio import DIRECTORY, is_dir, path_kind, read_json
from audit.store.corpus import MANIFEST
from audit.store.layout import Root
from audit.store.legacy_pb import ENV_KEY, Key
from audit.store.selection import READABLE_ONLY, Selection

TOOL = "agy-audit"
REMOVED_CORPUS = "NEW_DIR"
"""What the commands of a report name a removed temp corpus: the ``--out`` of the run to repeat."""
STAGES = ("sweep", "verify-contract", "completeness", "consistency", "links", "fingerprint", "compare", "consumers", "record")
PASS, FAIL, SKIPPED, ERROR = Verdict.PASS, Verdict.FAIL, Verdict.SKIPPED, Verdict.ERROR  # ERROR: a check that could not run
PARALLEL_FROM = 64
"""Sessions from which a worker process checks them, where a second CPU is free (``jobs=None``):
it starts in about a second, the checks of 64 sessions take longer."""


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


def run(
    roots: list[Root],
    *,
    out: str | os.PathLike[str] | None = None,
    keep: bool = False,
    source: str = "auto",
    timeout: float = 30.0,
    allow_remote: bool = False,
    include_implicit: bool = False,
    baseline: str | None = None,
    baseline_dir: str | os.PathLike[str] | None = None,
    fail_on: str | Sequence[str] = "drift",
    profiles: Sequence[str] | None = None,
    record_as: str | None = None,
    unverified_name: bool = False,
    compat_file: str | os.PathLike[str] = "COMPATIBILITY.md",
    project_dir: str | os.PathLike[str] = ".",
    live: bool = True,
    env: Mapping[str, str] | None = None,
    progress: Factory | None = None,
    jobs: int | None = None,
    selection: Selection | None = None,
    key: Key | None = None,
) -> Report:
    """Run every stage on *roots* (see the module docstring) and return the report.

    *fail_on* is one ``--fail-on`` value or several (``consumer:NAME`` among them, see
    ``audit.checks.consumers.parse_fail_on``); *selection* the sessions to sweep (as ``sweep``
    takes it, default every one); *profiles* the consumer profiles (names or files,
    default every bundled one); *jobs* the processes that check the swept sessions: 1 this one, 2
    this one and a worker (``audit.pipeline.worker``), None (default) 2 from ``PARALLEL_FROM``
    sessions where a second CPU is free, else 1; the report is the same either way. With the
    user's *key* a legacy ``.pb``-only session is swept and checked for completeness as a ``.db``
    is (``sweep``; the corpus and live sidecars against the ``.pb``). Raises before
    sweeping: ``UsageError`` for bad *jobs*, an unknown baseline, a bad ``fail_on`` or profile, a bad or existing ``record_as`` baseline, or one whose agy version ``agy --version``
    does not confirm unless *unverified_name* (``audit.actions.record.verify_name``); and whatever ``sweep`` raises before it creates anything
    (``UsageError``, ``InputError``, ``NothingToCheck`` when no session is selected). An
    interrupted sweep raises ``AuditError`` (exit 130, or 143 for SIGTERM) naming the corpus it
    leaves (*out*, or the temp corpus with *keep*) or saying the temp corpus was removed.
    """
    if jobs not in (None, 1, 2):
        raise UsageError("jobs must be 1 or 2")
    failing = consumers.parse_fail_on(fail_on)
    chosen_profiles = consumers.resolve(profiles)
    consumers.check_fail_on(failing, chosen_profiles)
    chosen, why = baselines.given(baseline, baseline_dir) if baseline else baselines.newest(baseline_dir)
    record_dir = Path(baseline_dir or "fingerprints")
    environ = os.environ if env is None else env
    if record_as not in (None, AUTO):
        if os.path.lexists(record_dir / baselines.check_name(record_as)):
            raise UsageError(f"{record_dir / record_as}: already exists; choose another --record name")
        verify_name(record_as, None, environ, unverified=unverified_name, flag="--record")  # as the sweep will record it
    started = time.time_ns()
    workdir: Path | None = None
    if out is not None:
        corpus = Path(out).absolute()
    else:
        workdir = Path(tempfile.mkdtemp(prefix="agy-audit-ci-"))
        corpus = workdir / "sweep"
    kept = workdir is None or keep
    ctx = _Context(roots, corpus, chosen, failing, live, progress, chosen_profiles, jobs, key)
    try:
        try:
            sweep_started = time.monotonic()
            with step(ctx.progress, "sweep", "sessions") as bar:
                result = sweep(
                    roots,
                    corpus,
                    source=source,
                    timeout=timeout,
                    keep_going=True,
                    include_implicit=include_implicit,
                    allow_remote=allow_remote,
                    env=env,
                    progress=bar,
                    on_swept=ctx.swept,
                    on_selected=ctx.selected,
                    selection=selection,
                    key=key,
                )
            sweep_seconds = time.monotonic() - sweep_started - sum(ctx.checks.spent.values())  # without the checks run meanwhile
            if result.interrupted:
                where = f"retained at {corpus}" if kept else "removed (--keep or --out keeps it)"
                raise AuditError(f"interrupted; incomplete corpus {where}", exit_code=result.interrupted)
            lost = ctx.collect()
        except BaseException:
            if ctx.worker is not None:
                ctx.worker.close()
            raise
        report = Report(started, corpus, kept, result.roots, chosen, why, failing.text, live, failing=failing)
        report.stages.append(Stage("sweep", [_sweep_check(result, sweep_seconds, lost)]))
        del result  # its sessions list every file of the corpus with its digest: not held through the other stages
        report.stages.append(Stage("verify-contract", ctx.contract()))
        report.stages.append(Stage("completeness", ctx.completeness()))
        report.stages.append(Stage("consistency", ctx.consistency()))
        report.stages.append(Stage("links", ctx.links()))
        report.stages.append(Stage("fingerprint", ctx.fingerprint(report.observed)))
        report.stages.append(Stage("compare", ctx.compare(report.observed, report.comparisons)))
        report.stages.append(Stage("consumers", ctx.consumers(report)))
        if record_as is not None:
            record_in = functools.partial(
                _record, report, record_as, record_dir, compat_file, project_dir, progress, unverified_name, environ
            )
            report.stages.append(Stage("record", [_timed(record_in)]))
    finally:
        if workdir is not None and not keep:  # passing or not, interrupted or failing: nothing left unless asked
            shutil.rmtree(workdir, ignore_errors=True)
    if not kept:
        _unname(report, corpus)
    report.finished_ns = time.time_ns()
    return report


# ----------------------------------------------------------------------------- helpers


def _tallied(
    tally: Tally, stage: str, target: str, verdict: Verdict, summary: str, command: str, counts: dict[str, Any]
) -> Check:
    """The check of *target* whose findings *tally* took."""
    check = Check(stage, target, target, verdict, summary, command, tally.errors + tally.warnings, counts)
    check.errors, check.warnings = tally.n_errors, tally.n_warnings
    return check


def _cpus() -> int:
    """CPUs this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _command(*words: object) -> str:
    return shlex.join([TOOL, *map(str, words)])


def _unname(report: Report, corpus: Path) -> None:
    """Name a removed temp *corpus* ``REMOVED_CORPUS`` in the commands of *report*'s checks: a suggested
    command never names a path that no longer exists (the report says to run again with ``--out``)."""
    for check in (c for s in report.stages for c in s.checks):
        if check.command:
            check.command = check.command.replace(str(corpus), REMOVED_CORPUS)


def _timed(make: Callable[[], Check]) -> Check:
    """The check *make* returns, with the wall-clock time it took."""
    started = time.monotonic()
    check = make()
    check.seconds = time.monotonic() - started
    return check


def _sweep_check(result: SweepResult, seconds: float, lost: str | None = None) -> Check:
    """The sweep stage's check; *lost*: why the worker's checks of the swept sessions were lost."""
    findings = [Finding(f"sweep/{f.stage}", Level.ERROR, f"{f.id or '-'}: {f.message}") for f in result.failures]
    findings += [Finding("ci/worker", Level.WARNING, lost)] if lost else []
    findings += [Finding("sweep/skipped", Level.WARNING, s.reason, str(s.path)) for s in result.skipped]
    findings += [
        Finding("sweep/daemon-not-used", Level.WARNING, note, str(r.root.path)) for r in result.roots for note in r.notes
    ]
    findings += [Finding("sweep/not-covered", Level.WARNING, f"{n.id}: {n.reason}", str(n.path)) for n in result.not_covered]
    summary = f"{len(result.sessions)} of {result.selected} session(s) swept; {len(result.failures)} failed, {len(result.skipped)} skipped"
    if result.not_covered:
        summary += (
            f", {len(result.not_covered)} not covered (the corpus is incomplete: not recordable; {READABLE_ONLY} leaves them out)"
        )
    if result.selection is not None:
        summary += f"; selection: {result.selection.describe(result.selected, len(result.excluded))}"
    # a session only the daemon can read (a legacy .pb) leaves the corpus incomplete, which
    # compare and record take into account; it is no failure of the sweep
    swept = result.complete or (not result.failures and bool(result.not_covered))
    counts = {
        "selected": result.selected,
        "swept": len(result.sessions),
        "failed": len(result.failures),
        "skipped": len(result.skipped),
        "notCovered": len(result.not_covered),
        "excluded": len(result.excluded),
    }
    return Check(
        "sweep",
        CORPUS,
        CORPUS,
        PASS if swept else FAIL,
        summary,
        f"python3 -m json.tool {shlex.quote(str(result.out / MANIFEST))}",
        findings,
        counts,
        seconds,
    )


AUTO = ""
"""``record_as`` for "name the baseline after the installed agy version" (``ci --record`` alone)."""
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)+")


def _record_name(report: Report, baseline_dir: Path) -> tuple[str | None, str | None]:
    """(``agy-<installed version>``, None), or (None, why not)."""
    try:
        installed = read_json(report.out / MANIFEST).get("installedAgyVersion")
    except AuditError as exc:
        return None, exc.message
    found = _VERSION.search(installed) if isinstance(installed, str) else None
    if found is None:
        return None, "the sweep does not know the installed agy version (agy --version did not answer); give --record agy-X.Y.Z"
    name = f"agy-{found[0]}"
    if os.path.lexists(baseline_dir / name):
        return None, f"{baseline_dir / name}: already exists (agy {found[0]} is recorded); give another --record name"
    return name, None


def _to_review(report: Report) -> list[str]:
    """What a reviewer would look at before calling the new version compatible: every corpus
    surface that drifted or is new against the baseline (empty: nothing to review)."""
    corpus = report.comparisons.get(CORPUS)
    if corpus is None:
        return ["nothing was compared"]
    return [f"{r.surface} {r.status}" for r in corpus.surfaces if r.status in (DRIFT, NEW)]


def _record(
    report: Report,
    name: str,
    baseline_dir: Path,
    compat_file: str | os.PathLike[str],
    project_dir: str | os.PathLike[str],
    progress: Factory | None,
    unverified_name: bool,
    env: Mapping[str, str],
) -> Check:
    if name == AUTO and not report.not_passed:
        found, why = _record_name(report, baseline_dir)
        if found is None:
            return Check("record", "agy-<installed version>", CORPUS, FAIL, f"not recorded: {why}")
        name = found

    def check(verdict: Verdict, summary: str) -> Check:
        return Check(
            "record",
            name,
            CORPUS,
            verdict,
            summary,
            _command("record", report.out, "--name", name, "--baseline-dir", baseline_dir, "--compat-file", compat_file),
        )

    if report.not_passed:
        return check(SKIPPED, f"not recorded: {', '.join(report.not_passed)} did not pass")
    review = _to_review(report)
    try:
        recorded, _ = record(
            report.out,
            name,
            baseline_dir=baseline_dir,
            compat_file=compat_file,
            project_dir=project_dir,
            progress=progress,
            unverified_name=unverified_name,
            env=env,
        )
    except FindingsError as exc:
        return check(FAIL, exc.message)
    except AuditError as exc:
        return check(ERROR, exc.message)
    report.recorded = recorded.path
    b = report.baseline.name
    if review:
        return check(PASS, f"recorded {recorded.path}; regenerated {compat_file}; against {b}, review: {', '.join(review)}")
    report.compatible = b
    return check(
        PASS, f"recorded {recorded.path} as compatible with {b} (no surface drifted or is new); regenerated {compat_file}"
    )


@dataclass
class _Context:
    roots: list[Root]
    out: Path
    baseline: Baseline
    fail_on: FailOn
    live: bool
    progress: Factory | None
    profiles: list[Profile] = field(default_factory=list)
    jobs: int | None = None  # 1: every check in this process; 2: a worker process; None: as pays
    key: Key | None = None  # the user's key for legacy .pb sessions (never shown: its origin names it)
    checks: SessionChecks = field(init=False)
    """What the checks of the swept sessions found (made here, or by the worker and sent back)."""
    worker: Worker | None = None

    def __post_init__(self) -> None:
        self.checks = SessionChecks(self.out, self.live)

    def _live_dirs(self) -> list[tuple[Root, Path]]:
        return [(r, r.path / "conversations") for r in self.roots if is_dir(r.path / "conversations")]

    # -- verify-contract ------------------------------------------------------------------------

    def contract(self) -> list[Check]:
        out = self.out
        checks = [
            _timed(lambda: self._contract("corpus manifest", CORPUS, [out / MANIFEST], "manifest")),
            _timed(lambda: self._contract("corpus sidecars", CORPUS, [out / "corpus"], "sidecar")),
            _timed(lambda: self._contract("corpus transcripts", CORPUS, [out / "native"], "transcript")),
        ]
        if self.live:
            checks.append(_timed(lambda: self._contract("live sidecars", LIVE, [d for _, d in self._live_dirs()], "sidecar")))
        for check in checks:
            check.seconds += self.checks.spent.pop(("verify-contract", check.name), 0.0)
        self.checks.contract_checked.clear()
        return checks

    def _contract(self, name: str, target: str, paths: list[Path], kind: str) -> Check:
        command = _command("verify-contract", *(("--kind", kind) if kind != "sidecar" else ()), *paths)
        present = [p for p in paths if os.path.lexists(p)]
        if not present:
            why = f"{', '.join(map(str, paths))}: absent" if paths else "no conversations/ directory in the stores"
            return Check("verify-contract", name, target, SKIPPED, why, command)
        try:
            with step(self.progress, f"verify-contract {name}", "files") as bar:
                report = contract.verify_paths(present, kind, progress=bar, checked=self.checks.contract_checked)
        except NothingToCheck as exc:
            return Check("verify-contract", name, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("verify-contract", name, target, ERROR, exc.message, command)
        findings = [f for f in report.findings if f.level != Level.NOTE]
        counts = {
            "files": len(report.files),
            "invalid": len(report.invalid),
            "unreadable": len(report.unreadable),
            "violations": sum(len(r.errors) for r in report.files),
            "advisories": sum(report.counts(Level.WARNING).values()),
        }
        valid = counts["files"] - counts["invalid"] - counts["unreadable"]
        summary = (
            f"{counts['files']} file(s): {valid} valid, {counts['invalid']} with violations, "
            f"{counts['unreadable']} unreadable; {counts['advisories']} advisory(ies)"
        )
        verdict = FAIL if report.invalid or report.unreadable else PASS
        return Check("verify-contract", name, target, verdict, summary, command, findings, counts)

    # -- completeness ----------------------------------------------------------------------------

    def completeness(self) -> list[Check]:
        keyed = () if self.key is None or self.key.origin == ENV_KEY else ("--key-file", self.key.origin)
        checks = [
            self._completeness(CORPUS, lambda: completeness.targets([self.out]), _command("completeness", *keyed, self.out))
        ]
        if self.live:
            roots = [r for r, _ in self._live_dirs()]
            command = _command("completeness", *keyed, *(w for r in roots for w in ("--root", r.path)))
            checks.append(self._completeness(LIVE, lambda: completeness.targets_in_roots(roots), command))
        return checks

    def _completeness(self, target: str, listing: Callable[[], list[SidecarTarget]], command: str) -> Check:
        started = time.monotonic()
        done = self.checks.done.pop(("completeness", target), {})
        try:
            found = listing()
        except NothingToCheck as exc:
            return Check("completeness", target, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("completeness", target, target, ERROR, exc.message, command)
        tally = Tally()
        for t in found:
            tally.merge(done.get(key(t)) or completeness_part(completeness.check_target(t, details=False, key=self.key)))
        counts: dict[str, int] = {v: tally.counts.get(v, 0) for v in completeness.VERDICTS}
        summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        verdict = {0: PASS, 3: SKIPPED}.get(completeness.exit_code({v for v, n in counts.items() if n}), FAIL)
        if verdict == SKIPPED:
            summary += ": nothing compared"
        check = _tallied(tally, "completeness", target, verdict, summary, command, counts)
        check.seconds = time.monotonic() - started + self.checks.spent.pop(("completeness", target), 0.0)
        return check

    # -- consistency ----------------------------------------------------------------------------

    def consistency(self) -> list[Check]:
        checks = [self._consistency(CORPUS, lambda: consistency.targets([self.out]), _command("consistency", self.out))]
        if self.live:
            roots = [r for r, _ in self._live_dirs()]
            command = _command("consistency", *(w for r in roots for w in ("--root", r.path)))
            checks.append(self._consistency(LIVE, lambda: consistency.targets_in_roots(roots), command))
        return checks

    def _consistency(self, target: str, listing: Callable[[], list[SessionTarget]], command: str) -> Check:
        started = time.monotonic()
        done = self.checks.done.pop(("consistency", target), {})
        try:
            found = listing()
            if not found:
                raise NothingToCheck(consistency.NO_DB)
        except NothingToCheck as exc:
            return Check("consistency", target, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("consistency", target, target, ERROR, exc.message, command)
        tally = Tally()
        for t in found:
            tally.merge(done.get(key(t)) or consistency_part(consistency.check_session(t)))
        counts = {
            "sessions": len(found),
            **{k: tally.counts.get(k, 0) for k in (*consistency.VERDICTS, "joined", "violations", "advisories")},
        }
        summary = (
            f"{counts['sessions']} session(s): {counts[consistency.CONSISTENT]} consistent, "
            f"{counts[consistency.INCONSISTENT]} inconsistent, {counts[consistency.UNREADABLE]} unreadable; "
            f"{counts['joined']} transcript record(s) joined; {counts['advisories']} advisory(ies)"
        )
        verdict = FAIL if tally.n_errors else PASS
        check = _tallied(tally, "consistency", target, verdict, summary, command, counts)
        check.seconds = time.monotonic() - started + self.checks.spent.pop(("consistency", target), 0.0)
        return check

    # -- one swept session, while it is decoded -------------------------------------------------

    def selected(self, n: int) -> bool:
        """The sweep selected *n* sessions: their checks go to a worker process when that pays.
        Whether the sweep's reconstructions record their blob fields (for checks made here)."""
        if self.jobs == 2 or (self.jobs is None and n >= PARALLEL_FROM and _cpus() >= 2):
            # No process to be had (OSError), or no semaphores on this platform (ImportError, as
            # multiprocessing raises it): every check is made here, as with jobs=1.
            with contextlib.suppress(OSError, ImportError):
                self.worker = Worker(self.out, self.live)
        return self.worker is None

    def swept(self, d: Decoded) -> None:
        """The checks of one session just swept (``SessionChecks.swept``), here or in the worker."""
        if self.worker is None:
            self.checks.swept(d)
        elif d.conv is not None and d.conv.access and d.session.db is not None:
            self.worker.submit(d)  # the corpus copies: decoded and checked again there, meanwhile
            self.checks.swept_live_sidecar(d)

    def collect(self) -> str | None:
        """The worker's checks, once it has made them (None: there was no worker), or why they are
        lost: then every check's listing checks every session itself."""
        if self.worker is None:
            return None
        try:
            with step(self.progress, "checks", "sessions") as bar:
                found, why = self.worker.finish(bar)
        finally:
            self.worker.close()
            self.worker = None
        if found is None:
            return f"the worker process that checks each swept session failed ({why}); every session was checked after the sweep instead"
        self.checks.take(found)
        return None

    # -- links ----------------------------------------------------------------------------------

    def links(self) -> list[Check]:
        corpus = self.out / "corpus"
        found = (
            [
                (f"corpus {d.name}", CORPUS, d, d)
                for d in sorted(corpus.iterdir())
                if path_kind(d, follow_symlinks=False) == DIRECTORY
            ]
            if is_dir(corpus)
            else []
        )
        if self.live:
            found += [(f"live {r.path.name}", LIVE, d, r.path) for r, d in self._live_dirs()]
        checks = []
        for spec in found:
            if links.list_sidecars(spec[2]):
                checks.append(_timed(functools.partial(self._links, *spec)))
                checks[-1].seconds += self.checks.spent.pop(("links", str(spec[2])), 0.0)
        self.checks.links_known.clear()
        return checks or [Check("links", "sidecars", CORPUS, SKIPPED, "no sidecars to resolve")]

    def _links(self, name: str, target: str, directory: Path, root: Path) -> Check:
        command = _command("links", "check", "--root", root)
        try:
            res = links.resolve(directory, known=self.checks.links_known.pop(str(directory), None))
        except AuditError as exc:
            return Check("links", name, target, ERROR, exc.message, command)
        paths = {link.id: str(link.path) for link in res.links}
        findings = [
            Finding(
                d.kind,
                Level.ERROR if d.kind in links.FAILING_KINDS else Level.WARNING,
                d.message if d.id in paths else f"{d.id}: {d.message}",
                paths.get(d.id),
            )
            for d in res.diagnostics
        ]
        linked = sum(link.parent is not None for link in res.links)
        counts = {"sidecars": res.scanned, "linked": linked, "diagnostics": len(res.diagnostics), "failing": len(res.failing)}
        summary = f"{res.scanned} sidecar(s), {linked} linked; {len(res.diagnostics)} diagnostic(s), {len(res.failing)} failing"
        return Check("links", name, target, FAIL if res.failing else PASS, summary, command, findings, counts)

    # -- fingerprint and compare ----------------------------------------------------------------

    def _fingerprint_inputs(self) -> list[tuple[str, list[Path], tuple[str, ...]]]:
        inputs: list[tuple[str, list[Path], tuple[str, ...]]] = [(CORPUS, [self.out], tuple(SURFACES))]
        if self.live:
            inputs.append((LIVE, [r.path for r, _ in self._live_dirs()], ("sidecar",)))
        return inputs

    def fingerprint(self, observed: dict[str, Observed]) -> list[Check]:
        checks = [_timed(functools.partial(self._fingerprint, observed, *spec)) for spec in self._fingerprint_inputs()]
        for check in checks:
            check.seconds += self.checks.spent.pop(("fingerprint", check.target), 0.0)
        return checks

    def _fingerprint(self, observed: dict[str, Observed], target: str, paths: list[Path], surfaces: tuple[str, ...]) -> Check:
        surface_flags = ("--surface", "sidecar") if target == LIVE else ()
        command = _command("fingerprint", *surface_flags, *paths)
        try:
            if not paths:
                raise NothingToCheck("no conversations/ directory in the stores")
            with step(self.progress, f"fingerprint {target}", "files") as bar:
                read = self.checks.reads if target == CORPUS else self.checks.live_reads
                observed[target] = found = fingerprints_to_compare(paths, surfaces, progress=bar, read=read)
        except NothingToCheck as exc:
            return Check("fingerprint", target, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("fingerprint", target, target, ERROR, exc.message, command)
        survey = found.survey
        assert (
            survey is not None
        )  # fingerprints_to_compare() computes for a corpus or conversations/ directory (it reads only a baseline dir or .tsv)
        findings = [Finding(UNREADABLE, Level.ERROR, p) for p in survey.problems]
        findings += [Finding("skipped", Level.WARNING, s) for s in survey.skipped]
        parts = [f"{s} {fp.digest[:19]} ({len(fp.lines)} lines)" for s, fp in survey.fingerprints.items()]
        parts += [f"{s} not computed ({why})" for s, why in survey.not_computed.items()]
        counts = {"surfaces": len(survey.fingerprints), "problems": len(survey.problems), "skipped": len(survey.skipped)}
        verdict = FAIL if survey.problems else PASS
        return Check("fingerprint", target, target, verdict, "; ".join(parts), command, findings, counts)

    def compare(self, observed: dict[str, Observed], comparisons: dict[str, Comparison]) -> list[Check]:
        b = self.baseline
        spec = ("--baseline", b.name) if b.bundled else ("--baseline", b.path)
        fail_on = self._fail_on_flags()
        checks = []
        for target, paths, surfaces in self._fingerprint_inputs():
            surface_flags = ("--surface", "sidecar") if target == LIVE else ()
            command = _command("compare", *spec, *fail_on, *surface_flags, *paths)
            if target not in observed:
                checks.append(Check("compare", target, target, SKIPPED, "nothing was fingerprinted", command))
                continue
            comparisons[target] = found = compare(b, observed[target], None if target == CORPUS else surfaces)
            checks += [self._surface(target, found, r, command) for r in found.surfaces]
        return checks

    def _surface(self, target: str, comparison: Comparison, result: SurfaceResult, command: str) -> Check:
        fails = Comparison(comparison.baseline, comparison.complete, comparison.scope, [result]).fails(self.fail_on.drift)
        level = Level.ERROR if fails else Level.WARNING
        findings = [
            Finding(c.kind, Level.WARNING if c.kind in ADVISORY_CLASSES else level, c.text() + (f" ({c.note})" if c.note else ""))
            for c in result.changes
            if c.kind != "not-observed"
        ]
        if not result.classified:
            findings.append(Finding("digest-changed", level, f"{result.baseline_digest} -> {result.current_digest}"))
        counts = {kind: result.counts()[kind] for kind in CLASSES}
        changed = ", ".join(f"{n} {kind}" for kind, n in counts.items() if n and kind != "not-observed")
        summary = result.status + (f": {changed}" if changed else "") + (f"; {result.reason}" if result.reason else "")
        verdict = FAIL if fails else SKIPPED if result.status == NOT_COMPARABLE else PASS
        return Check("compare", f"{target} {result.surface}", target, verdict, summary, command, findings, counts)

    def _fail_on_flags(self) -> tuple[str, ...]:
        fo = self.fail_on
        if fo == FailOn():
            return ()
        values = ([] if fo.consumers and fo.drift == "never" else [fo.drift]) + [f"consumer:{n}" for n in fo.consumers]
        return tuple(w for v in values for w in ("--fail-on", v))

    # -- consumers ------------------------------------------------------------------------------

    def consumers(self, report: Report) -> list[Check]:
        checks = []
        b = self.baseline
        spec = ("--baseline", b.name) if b.bundled else ("--baseline", b.path)
        for target, paths, _ in self._fingerprint_inputs():
            comparison = report.comparisons.get(target)
            if comparison is None:
                continue
            started = time.monotonic()
            results = consumers.judge_all(self.profiles, comparison, b, report.observed[target])
            report.consumers[target] = results
            seconds = (time.monotonic() - started) / max(len(results), 1)
            surface_flags = ("--surface", "sidecar") if target == LIVE else ()
            covered = {r.surface for r in comparison.surfaces}
            for r in results:
                if not any(e.surface in covered for e in r.profile.entries):
                    continue  # nothing of this consumer was compared here (the live sidecars for a .db reader)
                which = r.profile.name if r.profile.bundled else r.profile.path
                # the command fails exactly when this check does: on this consumer breaking, if that fails here
                fail_on = f"consumer:{r.profile.name}" if self.fail_on.can_fail(r.profile.name) else "never"
                command = _command("compare", *spec, "--consumer", which, "--fail-on", fail_on, *surface_flags, *paths)
                check = self._consumer(target, r, command)
                check.seconds = seconds
                checks.append(check)
        return checks or [Check("consumers", CORPUS, CORPUS, SKIPPED, "nothing was compared")]

    def _consumer(self, target: str, result: ConsumerResult, command: str) -> Check:
        fails = self.fail_on.consumer_fails(result)
        level = Level.ERROR if fails else Level.WARNING
        findings = []
        for d in result.deciding:
            c = d.change
            value = "" if c is None else f": {c.new if c.old is None else c.old if c.new is None else f'{c.old} -> {c.new}'}"
            rule = "consumer/" + d.effect.replace(" ", "-")
            findings.append(
                Finding(rule, level, f"{d.entry.surface} {d.path}{value} ({d.entry.mode}: {d.reason}; {d.entry.cite})")
            )
        effects = result.counts()
        counts = {
            "breaks": effects[consumers.BREAKS],
            "atRisk": effects[consumers.AT_RISK],
            "ok": effects[consumers.OK],
            "unknown": effects[consumers.UNKNOWN],
        }
        judged = len(result.profile.entries) - counts["unknown"]
        summary = f"{result.verdict}"
        if result.deciding:
            summary += f" ({len(result.deciding)} deciding line(s))"
        summary += f"; {judged} of {len(result.profile.entries)} entries judged; {result.profile.name} {result.profile.version}"
        verdict = FAIL if fails else SKIPPED if result.verdict == consumers.NOT_COMPARABLE_VERDICT else PASS
        return Check("consumers", f"{target} {result.profile.name}", target, verdict, summary, command, findings, counts)
