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
5. ``links`` -- the parent links of each ``corpus/<surface>/`` and of each live
   ``conversations/`` (``audit.checks.links``);
6. ``fingerprint`` -- every surface of the corpus, and the sidecar surface of the live sidecars
   (``audit.checks.drift.observe``);
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
decoded, and the session's completeness and consistency (corpus and live), contract check of its
sidecars and transcripts, links facts, corpus ``sqlite`` / ``wire`` / ``transcript`` and corpus and
live ``sidecar`` observations are made there (each sidecar read once, ``sidecar.read``, for
completeness, the contract check, links and the fingerprint; each transcript stream parsed once,
inside ``transcript.shared_reads``); each stage's listing then
takes those results and reads only what the sweep did not write. The live checks rest on the
sweep's snapshot of the live ``.db`` (the rows of its backup copy). Checks keep their first
``SHOWN`` findings and count the rest.

A check fails when its own command (``Check.command``, the one that lists every finding) reports
a failure: contract violations or unreadable files; incomplete, unsupported or unreadable
sidecars; disagreements between a ``.db`` and its transcripts, invariant breaches and unreadable
``.db`` or transcript files; parent cycles, conflicting evidence or invalid stamps; drift per ``fail_on``; and on
unreadable fingerprint inputs (which ``fingerprint`` only warns about and ``record`` refuses).
Whatever else those commands report (advisories, skipped files, other link diagnostics, sidecars
without a native source, lines dropped while fingerprinting, drift that ``fail_on`` tolerates) is
a warning.

The corpus goes to *out*, or to ``<new private temp dir>/sweep``; the temp dir is removed after a
passing run unless *keep*, and kept (and named in the report) otherwise. Nothing here prints;
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
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path

from audit.actions.record import record
from audit.actions.sweep import Decoded, RootSource, SweepResult, sweep
from audit.checks import baselines, completeness, consistency, consumers, contract, links
from audit.checks.baselines import Baseline
from audit.checks.completeness import Target as SidecarTarget
from audit.checks.consistency import Target as SessionTarget
from audit.checks.consumers import ConsumerResult, FailOn, Profile
from audit.checks.contract import FileResult
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
    observe,
)
from audit.checks.fingerprint import SURFACES, Reads
from audit.checks.schemas import ADVISORY, VIOLATION
from audit.errors import AuditError, FindingsError, NothingToCheck, UsageError
from audit.progress import Callback, Progress
from audit.safeio import DIRECTORY, gc_paused, is_dir, path_kind, read_json
from audit.store import sidecar, transcript
from audit.store.corpus import MANIFEST
from audit.store.layout import Root
from audit.store.trajectory import reconstruct

TOOL = "agy-audit"
STAGES = ("sweep", "verify-contract", "completeness", "consistency", "links", "fingerprint", "compare", "consumers", "record")
PASS, FAIL, SKIPPED, ERROR = "pass", "fail", "skipped", "error"
WARNING = "warning"
"""Level of a finding that does not fail its check (an ``ERROR`` finding does)."""
CORPUS, LIVE = "corpus", "live"
SHOWN = 5
"""Findings shown per check; the check's command lists all of them."""

ProgressFactory = Callable[[str, str], Progress]
"""Makes the progress line of one long step from (label, unit), e.g. ("sweep", "sessions")."""


@dataclass(frozen=True, slots=True)
class Finding:
    level: str  # ERROR (fails its check) or WARNING
    rule: str  # the check's own rule or class: a schema rule, a completeness verdict, a link diagnostic ...
    message: str
    file: str | None = None
    line: int | None = None


@dataclass
class Check:
    """One check's verdict. Of its findings only the ``SHOWN`` first (errors first) are kept, in
    ``findings``; ``errors`` and ``warnings`` count all of them (the check's command lists them)."""

    stage: str
    name: str
    target: str  # CORPUS or LIVE
    verdict: str
    summary: str
    command: str | None = None  # the command that shows every finding
    findings: list[Finding] = field(default_factory=list)  # given: all of them; kept: the first SHOWN, errors first
    counts: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0  # wall-clock time the check took
    errors: int = field(init=False, default=0)
    warnings: int = field(init=False, default=0)

    def __post_init__(self) -> None:
        ordered = sorted(self.findings, key=lambda f: f.level != ERROR)
        self.errors = sum(f.level == ERROR for f in ordered)
        self.warnings = len(ordered) - self.errors
        self.findings = ordered[:SHOWN]

    @property
    def more(self) -> int:
        """Findings not kept."""
        return self.errors + self.warnings - len(self.findings)


@dataclass
class Stage:
    name: str
    checks: list[Check]

    @property
    def verdict(self) -> str:
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
    kept: bool  # False when a passing run removed it
    roots: list[RootSource]
    baseline: Baseline
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
    def verdict(self) -> str:
        """``error`` when a check could not run, else ``fail`` when one failed, else ``pass``."""
        verdicts = {s.verdict for s in self.stages}
        return ERROR if ERROR in verdicts else FAIL if FAIL in verdicts else PASS

    @property
    def exit_code(self) -> int:
        return {PASS: 0, FAIL: 1, ERROR: 2}[self.verdict]

    @property
    def not_passed(self) -> list[str]:
        """Names of the stages that failed or errored."""
        return [s.name for s in self.stages if s.verdict in (FAIL, ERROR)]


def newest_baseline(baseline_dir: str | os.PathLike | None = None) -> Baseline:
    """The newest baseline in *baseline_dir* when it holds any, else the newest bundled one."""
    found = baselines.listing(baseline_dir) if baseline_dir is not None else []
    found = found or baselines.listing(baselines.bundled_dir(), bundled=True)
    if not found:
        raise UsageError("no baseline found; give --baseline NAME|DIR")
    return max(found, key=lambda b: b.version_key)


def run(
    roots: list[Root],
    *,
    out: str | os.PathLike | None = None,
    keep: bool = False,
    source: str = "auto",
    timeout: float = 30.0,
    allow_remote: bool = False,
    include_implicit: bool = False,
    baseline: str | None = None,
    baseline_dir: str | os.PathLike | None = None,
    fail_on: str | Sequence[str] = "drift",
    profiles: Sequence[str] | None = None,
    record_as: str | None = None,
    compat_file: str | os.PathLike = "COMPATIBILITY.md",
    live: bool = True,
    env: Mapping[str, str] | None = None,
    progress: ProgressFactory | None = None,
) -> Report:
    """Run every stage on *roots* (see the module docstring) and return the report.

    *fail_on* is one ``--fail-on`` value or several (``consumer:NAME`` among them, see
    ``audit.checks.consumers.parse_fail_on``); *profiles* the consumer profiles (names or files,
    default every bundled one). Raises before sweeping: ``UsageError`` for an unknown baseline, a
    bad ``fail_on`` or profile, a bad or existing ``record_as`` baseline; and whatever ``sweep`` raises before it creates anything
    (``UsageError``, ``InputError``, ``NothingToCheck`` when no session is selected). An
    interrupted sweep raises ``AuditError`` (exit 130, or 143 for SIGTERM) naming the corpus it leaves.
    """
    failing = consumers.parse_fail_on(fail_on)
    chosen_profiles = consumers.resolve(profiles)
    consumers.check_fail_on(failing, chosen_profiles)
    chosen = baselines.resolve(baseline, baseline_dir) if baseline else newest_baseline(baseline_dir)
    record_dir = Path(baseline_dir or "fingerprints")
    if record_as not in (None, AUTO) and os.path.lexists(record_dir / baselines.check_name(record_as)):
        raise UsageError(f"{record_dir / record_as}: already exists; choose another --record name")
    started = time.time_ns()
    workdir: Path | None = None
    if out is not None:
        corpus = Path(out).absolute()
    else:
        workdir = Path(tempfile.mkdtemp(prefix="agy-audit-ci-"))
        corpus = workdir / "sweep"
    ctx = _Context(roots, corpus, chosen, failing, live, progress, chosen_profiles)
    try:
        sweep_started = time.monotonic()
        with ctx.bar("sweep", "sessions") as bar:
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
                record_fields=True,
            )
    except BaseException:
        if workdir is not None and not os.path.lexists(corpus):
            shutil.rmtree(workdir, ignore_errors=True)
        raise
    if result.interrupted:
        raise AuditError(f"interrupted; incomplete corpus retained at {corpus}", exit_code=result.interrupted)
    report = Report(started, corpus, True, result.roots, chosen, failing.text, live, failing=failing)
    sweep_seconds = time.monotonic() - sweep_started - sum(ctx.spent.values())  # without the checks run meanwhile
    report.stages.append(Stage("sweep", [_sweep_check(result, sweep_seconds)]))
    del result  # its sessions list every file of the corpus with its digest: not held through the other stages
    report.stages.append(Stage("verify-contract", ctx.contract()))
    report.stages.append(Stage("completeness", ctx.completeness()))
    report.stages.append(Stage("consistency", ctx.consistency()))
    report.stages.append(Stage("links", ctx.links()))
    report.stages.append(Stage("fingerprint", ctx.fingerprint(report.observed)))
    report.stages.append(Stage("compare", ctx.compare(report.observed, report.comparisons)))
    report.stages.append(Stage("consumers", ctx.consumers(report)))
    if record_as is not None:
        report.stages.append(Stage("record", [_timed(lambda: _record(report, record_as, record_dir, compat_file))]))
    if report.verdict == PASS and workdir is not None and not keep:
        shutil.rmtree(workdir)
        report.kept = False
    report.finished_ns = time.time_ns()
    return report


# ----------------------------------------------------------------------------- helpers


class _Tally:
    """Findings as they come, of one session or of a whole check: the first ``SHOWN`` of each
    level kept in order, all of them counted, with the check's other ``counts``. Small: ``ci``
    holds one per session and check until the check's listing takes it."""

    __slots__ = ("errors", "warnings", "n_errors", "n_warnings", "counts")

    def __init__(self) -> None:
        self.errors: list[Finding] = []
        self.warnings: list[Finding] = []
        self.n_errors = self.n_warnings = 0
        self.counts: dict[str, int] = {}

    def add(self, finding: Finding) -> None:
        if finding.level == ERROR:
            self.n_errors += 1
            kept = self.errors
        else:
            self.n_warnings += 1
            kept = self.warnings
        if len(kept) < SHOWN:
            kept.append(finding)

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def merge(self, other: _Tally) -> None:
        for key, n in other.counts.items():
            self.count(key, n)
        self.n_errors += other.n_errors
        self.n_warnings += other.n_warnings
        self.errors.extend(other.errors[: SHOWN - len(self.errors)])
        self.warnings.extend(other.warnings[: SHOWN - len(self.warnings)])

    def check(self, stage: str, name: str, target: str, verdict: str, summary: str, command: str, counts: dict) -> Check:
        check = Check(stage, name, target, verdict, summary, command, self.errors + self.warnings, counts)
        check.errors, check.warnings = self.n_errors, self.n_warnings
        return check


def _renamed(text: str, renames: Mapping[str, str] | None) -> str:
    """*text* with the first of *renames* (path of a copy -> path of its original) found in it replaced."""
    for old, new in (renames or {}).items():
        if old in text:
            return text.replace(old, new)
    return text


def _completeness_part(r: completeness.Result, renames: Mapping[str, str] | None = None) -> _Tally:
    """*r* as a share of its check (whose command shows every difference: ci checks with
    ``details=False``); with *renames*, as a result read from copies (see ``_consistency_part``)."""
    part = _Tally()
    part.count(r.verdict)
    if r.verdict != completeness.COMPLETE:
        level = WARNING if r.verdict == completeness.UNKNOWN else ERROR
        part.add(Finding(level, r.verdict, _renamed(r.detail, renames), str(r.sidecar)))
    return part


def _consistency_part(r: consistency.SessionResult, renames: Mapping[str, str] | None = None) -> _Tally:
    """*r* as a share of its check; with *renames* (path -> path), as a result read from copies of
    its files: the findings name the originals instead (the first of the *renames* found in a text)."""
    part = _Tally()
    part.count(r.verdict)
    part.count("joined", sum(r.joined.values()))
    for f in r.findings:
        part.count("violations" if f.level == consistency.VIOLATION else "advisories")
        # An unreadable .db or transcript is the sweep's failure (it reads every file it copies): a warning here.
        failing = f.level == consistency.VIOLATION and f.rule != consistency.UNREADABLE_RULE
        file = None if f.file is None else _renamed(f.file, renames)
        part.add(Finding(ERROR if failing else WARNING, f.rule, _renamed(f.message, renames), file, f.line))
    return part


def _key(target: SidecarTarget | SessionTarget) -> str:
    """*target* as a key of ``_Context.done``: equal for equal targets, and a few hundred bytes
    where the target's ``Path`` objects are a few kilobytes (``ci`` holds one per session and check)."""
    return "\0".join(str(getattr(target, f.name)) for f in fields(target))


def _same_transcripts(copy: Path | None, live: Path | None) -> bool:
    """Whether the brain directory *copy* (the sweep's) holds the transcript files of *live* under
    the same names: then reading it is reading *live* as the sweep did."""
    if copy is None or live is None:
        return copy is live

    def listing(brain: Path) -> tuple:
        found = transcript.locate(brain)
        if found.unlisted:
            return (None,)
        return tuple(
            (t.name, t.flat and t.flat.relative_to(brain), tuple(c.relative_to(brain) for c in t.chunks)) for t in found.tiers
        )

    mine = listing(copy)
    return mine != (None,) and mine == listing(live)


def _command(*words: object) -> str:
    return shlex.join([TOOL, *map(str, words)])


def _timed(make: Callable[[], Check]) -> Check:
    """The check *make* returns, with the wall-clock time it took."""
    started = time.monotonic()
    check = make()
    check.seconds = time.monotonic() - started
    return check


def _sweep_check(result: SweepResult, seconds: float) -> Check:
    findings = [Finding(ERROR, f"sweep/{f.stage}", f"{f.id or '-'}: {f.message}") for f in result.failures]
    findings += [Finding(WARNING, "sweep/skipped", s.reason, str(s.path)) for s in result.skipped]
    findings += [Finding(WARNING, "sweep/daemon-not-used", note, str(r.root.path)) for r in result.roots for note in r.notes]
    findings += [Finding(WARNING, "sweep/not-covered", f"{n.id}: {n.reason}", str(n.path)) for n in result.not_covered]
    summary = f"{len(result.sessions)} of {result.selected} session(s) swept; {len(result.failures)} failed, {len(result.skipped)} skipped"
    if result.not_covered:
        summary += f", {len(result.not_covered)} not covered (the corpus is incomplete: not recordable)"
    # a session only the daemon can read (a legacy .pb) leaves the corpus incomplete, which
    # compare and record take into account; it is no failure of the sweep
    swept = result.complete or (not result.failures and bool(result.not_covered))
    counts = {
        "selected": result.selected,
        "swept": len(result.sessions),
        "failed": len(result.failures),
        "skipped": len(result.skipped),
        "notCovered": len(result.not_covered),
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


def _record(report: Report, name: str, baseline_dir: Path, compat_file: str | os.PathLike) -> Check:
    if name == AUTO and not report.not_passed:
        found, why = _record_name(report, baseline_dir)
        if found is None:
            return Check("record", "agy-<installed version>", CORPUS, FAIL, f"not recorded: {why}")
        name = found

    def check(verdict: str, summary: str) -> Check:
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
        recorded, _ = record(report.out, name, baseline_dir=baseline_dir, compat_file=compat_file)
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


class _Spending:
    """Adds the seconds its block takes to ``spent[key]`` (a class: ``contextlib``'s generator
    cost ``ci`` about 1 % of its time, entered seven times per session)."""

    __slots__ = ("key", "spent", "started")

    def __init__(self, spent: defaultdict[tuple[str, str], float], key: tuple[str, str]) -> None:
        self.spent, self.key, self.started = spent, key, 0.0

    def __enter__(self) -> None:
        self.started = time.monotonic()

    def __exit__(self, *exc: object) -> None:
        self.spent[self.key] += time.monotonic() - self.started


@dataclass
class _Context:
    roots: list[Root]
    out: Path
    baseline: Baseline
    fail_on: FailOn
    live: bool
    progress: ProgressFactory | None
    profiles: list[Profile] = field(default_factory=list)
    done: dict[tuple[str, str], dict[str, _Tally]] = field(default_factory=dict)
    """(stage, target) -> the part of each session ``swept`` checked, by its check's target (``_key``)."""
    reads: Reads = field(default_factory=Reads)
    """The ``.db``, brain and sidecar copies ``swept`` saw, for the corpus fingerprint."""
    live_reads: Reads = field(
        default_factory=lambda: Reads(values=False)
    )  # the live target is fingerprinted on its sidecar surface only
    """The live sidecars ``swept`` read, for the live fingerprint."""
    contract_checked: dict[tuple[str, ...], list[FileResult]] = field(default_factory=dict)
    """The sidecars and corpus transcript streams ``swept`` checked against the contract, by their files' paths."""
    links_known: dict[str, dict[str, links.SidecarFacts]] = field(default_factory=dict)
    """directory -> the links facts of the sidecars ``swept`` read there, by file name."""
    spent: defaultdict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    """(stage, the check's target, or its name for verify-contract, its directory for links) -> seconds ``swept`` spent on it."""

    @contextlib.contextmanager
    def bar(self, label: str, unit: str) -> Iterator[Callback | None]:
        if self.progress is None:
            yield None
            return
        bar = self.progress(label, unit)
        try:
            yield bar
        finally:
            bar.close()

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
            check.seconds += self.spent.pop(("verify-contract", check.name), 0.0)
        self.contract_checked.clear()
        return checks

    def _contract(self, name: str, target: str, paths: list[Path], kind: str) -> Check:
        command = _command("verify-contract", *(("--kind", kind) if kind != "sidecar" else ()), *paths)
        present = [p for p in paths if os.path.lexists(p)]
        if not present:
            why = f"{', '.join(map(str, paths))}: absent" if paths else "no conversations/ directory in the stores"
            return Check("verify-contract", name, target, SKIPPED, why, command)
        try:
            with self.bar(f"verify-contract {name}", "files") as bar:
                report = contract.verify_paths(present, kind, progress=bar, checked=self.contract_checked)
        except NothingToCheck as exc:
            return Check("verify-contract", name, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("verify-contract", name, target, ERROR, exc.message, command)
        findings = []
        for r in report.files:
            if r.error is not None:
                findings.append(Finding(ERROR, "unreadable", r.error, r.file))
            findings += [
                Finding(
                    ERROR if f.level == VIOLATION else WARNING,
                    f.rule,
                    f"{f.pointer}: {f.message}" if f.pointer else f.message,
                    f.file,
                    f.line,
                )
                for f in r.findings
            ]
        counts = {
            "files": len(report.files),
            "invalid": len(report.invalid),
            "unreadable": len(report.unreadable),
            "violations": sum(report.counts().values()),
            "advisories": sum(report.counts(ADVISORY).values()),
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
        checks = [self._completeness(CORPUS, lambda: completeness.targets([self.out]), _command("completeness", self.out))]
        if self.live:
            roots = [r for r, _ in self._live_dirs()]
            command = _command("completeness", *(w for r in roots for w in ("--root", r.path)))
            checks.append(self._completeness(LIVE, lambda: completeness.targets_in_roots(roots), command))
        return checks

    def _completeness(self, target: str, listing: Callable[[], list[SidecarTarget]], command: str) -> Check:
        started = time.monotonic()
        done = self.done.pop(("completeness", target), {})
        try:
            found = listing()
        except NothingToCheck as exc:
            return Check("completeness", target, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("completeness", target, target, ERROR, exc.message, command)
        tally = _Tally()
        for t in found:
            tally.merge(done.get(_key(t)) or _completeness_part(completeness.check_target(t, details=False)))
        counts = {v: tally.counts.get(v, 0) for v in completeness.VERDICTS}
        summary = ", ".join(f"{n} {v}" for v, n in counts.items() if n)
        verdict = {0: PASS, 3: SKIPPED}.get(completeness.exit_code({v for v, n in counts.items() if n}), FAIL)
        if verdict == SKIPPED:
            summary += ": nothing compared"
        check = tally.check("completeness", target, target, verdict, summary, command, counts)
        check.seconds = time.monotonic() - started + self.spent.pop(("completeness", target), 0.0)
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
        done = self.done.pop(("consistency", target), {})
        try:
            found = listing()
            if not found:
                raise NothingToCheck(consistency.NO_DB)
        except NothingToCheck as exc:
            return Check("consistency", target, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("consistency", target, target, ERROR, exc.message, command)
        tally = _Tally()
        for t in found:
            tally.merge(done.get(_key(t)) or _consistency_part(consistency.check_session(t)))
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
        check = tally.check("consistency", target, target, verdict, summary, command, counts)
        check.seconds = time.monotonic() - started + self.spent.pop(("consistency", target), 0.0)
        return check

    # -- one swept session, while it is decoded -------------------------------------------------

    def swept(self, d: Decoded) -> None:
        """Completeness and consistency of one session just swept, corpus and live, from the one
        decoding of its ``.db`` copy (the sweep's snapshot of the live ``.db``: the same rows), and
        live consistency from the corpus one when the brain copies are the live transcripts'; each
        check's listing later takes these results instead of reading the files again."""
        with gc_paused():
            self._swept(d)

    def _swept(self, d: Decoded) -> None:
        conv, session = d.conv, d.session
        if conv is None or not conv.access or session.db is None:
            return
        copy, live_db = conv.path, session.db
        corpus_sidecar = self.out / "corpus" / d.swept.surface / f"{d.swept.id}.trajectory.json"
        with self._spending("completeness", CORPUS):
            native = d.native or reconstruct(conv)
            source = completeness.source_of(conv, native)
            # a native sweep wrote the sidecar as the rendering of this reconstruction: not parsed again
            read = sidecar.written(corpus_sidecar, native.trajectory) if d.native is not None else sidecar.read(corpus_sidecar)
            at = completeness.target_of(corpus_sidecar, copy, corpus=True)
            self._keep(
                "completeness", CORPUS, at, _completeness_part(completeness.check_target(at, source, details=False, parsed=read))
            )
        rendered = read is not None and d.native is not None  # the sweep wrote it from this reconstruction
        if read is not None:
            self._share(read, CORPUS, values=not rendered)
            del read
        own = consistency.target_of(copy, copy.parent / "brain")
        with transcript.shared_reads():  # the brain copies parsed once for the three checks that read them
            with self._spending("consistency", CORPUS):
                result = consistency.check_session(own, (conv, native))
                self._keep("consistency", CORPUS, own, _consistency_part(result))
            with self._spending("fingerprint", CORPUS):
                self.reads.add(conv, d.fields, native, rendered=rendered)
                if own.brain is not None:
                    self.reads.add_brain(own.brain)
            if own.brain is not None:
                with self._spending("verify-contract", "corpus transcripts"):
                    files, _, _ = contract.find_files([own.brain], "transcript")
                    for stream in contract.transcript_streams(files)[0]:
                        self.contract_checked[tuple(map(str, stream))] = contract.validate_stream(stream)
        if not self.live:
            return
        copied = {str(copy): str(live_db)}  # the findings of the copy's decoding name the live .db
        if session.sidecar is not None:
            with self._spending("completeness", LIVE):
                read = sidecar.read(session.sidecar)
                at = completeness.target_of(session.sidecar, live_db)
                part = _completeness_part(completeness.check_target(at, source, details=False, parsed=read), copied)
                self._keep("completeness", LIVE, at, part)
            if read is not None:
                self._share(read, LIVE)
                del read
        with self._spending("consistency", LIVE):
            there = consistency.Target(session.id, live_db, session.brain)
            if _same_transcripts(own.brain, there.brain):  # the copies the corpus check just read: the same bytes
                part = _consistency_part(result, {**copied, str(own.brain): str(there.brain)})
            else:
                part = _consistency_part(consistency.check_session(there, (conv, native)), copied)
            self._keep("consistency", LIVE, there, part)

    def _share(self, read: sidecar.Sidecar, target: str, *, values: bool = True) -> None:
        """The contract check, the links facts and the fingerprint observation of a sidecar
        completeness just read (its enum values only with *values*)."""
        with self._spending("fingerprint", target):
            (self.reads if target == CORPUS else self.live_reads).add_sidecar(read.path, read.document, values=values)
        with self._spending("verify-contract", f"{target} sidecars"):
            file = str(read.path)
            self.contract_checked[(file,)] = [contract.validate_document(read.document, "sidecar", file=file)]
        directory = str(read.path.parent)
        with self._spending("links", directory):
            self.links_known.setdefault(directory, {})[read.path.name] = links.facts_of(read)

    def _keep(self, stage: str, target: str, key: SidecarTarget | SessionTarget, part: _Tally) -> None:
        self.done.setdefault((stage, target), {})[_key(key)] = part

    def _spending(self, stage: str, target: str) -> _Spending:
        return _Spending(self.spent, (stage, target))

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
                checks[-1].seconds += self.spent.pop(("links", str(spec[2])), 0.0)
        self.links_known.clear()
        return checks or [Check("links", "sidecars", CORPUS, SKIPPED, "no sidecars to resolve")]

    def _links(self, name: str, target: str, directory: Path, root: Path) -> Check:
        command = _command("links", "check", "--root", root)
        try:
            res = links.resolve(directory, known=self.links_known.pop(str(directory), None))
        except AuditError as exc:
            return Check("links", name, target, ERROR, exc.message, command)
        paths = {link.id: str(link.path) for link in res.links}
        findings = [
            Finding(
                ERROR if d.kind in links.FAILING_KINDS else WARNING,
                d.kind,
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
        inputs: list[tuple[str, list[Path], tuple[str, ...]]] = [(CORPUS, [self.out], SURFACES)]
        if self.live:
            inputs.append((LIVE, [r.path for r, _ in self._live_dirs()], ("sidecar",)))
        return inputs

    def fingerprint(self, observed: dict[str, Observed]) -> list[Check]:
        checks = [_timed(functools.partial(self._fingerprint, observed, *spec)) for spec in self._fingerprint_inputs()]
        for check in checks:
            check.seconds += self.spent.pop(("fingerprint", check.target), 0.0)
        return checks

    def _fingerprint(self, observed: dict[str, Observed], target: str, paths: list[Path], surfaces: tuple[str, ...]) -> Check:
        surface_flags = ("--surface", "sidecar") if target == LIVE else ()
        command = _command("fingerprint", *surface_flags, *paths)
        try:
            if not paths:
                raise NothingToCheck("no conversations/ directory in the stores")
            with self.bar(f"fingerprint {target}", "files") as bar:
                read = self.reads if target == CORPUS else self.live_reads
                observed[target] = found = observe(paths, surfaces, progress=bar, read=read)
        except NothingToCheck as exc:
            return Check("fingerprint", target, target, SKIPPED, exc.message, command)
        except AuditError as exc:
            return Check("fingerprint", target, target, ERROR, exc.message, command)
        survey = found.survey
        assert (
            survey is not None
        )  # observe() computes for a corpus or conversations/ directory (it reads only a baseline dir or .tsv)
        findings = [Finding(ERROR, "unreadable", p) for p in survey.problems]
        findings += [Finding(WARNING, "skipped", s) for s in survey.skipped]
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
        level = ERROR if fails else WARNING
        findings = [
            Finding(WARNING if c.kind in ADVISORY_CLASSES else level, c.kind, c.text() + (f" ({c.note})" if c.note else ""))
            for c in result.changes
            if c.kind != "not-observed"
        ]
        if not result.classified:
            findings.append(Finding(level, "digest-changed", f"{result.baseline_digest} -> {result.current_digest}"))
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
        level = ERROR if fails else WARNING
        findings = []
        for d in result.deciding:
            c = d.change
            value = "" if c is None else f": {c.new if c.old is None else c.old if c.new is None else f'{c.old} -> {c.new}'}"
            rule = "consumer/" + d.effect.replace(" ", "-")
            findings.append(
                Finding(level, rule, f"{d.entry.surface} {d.path}{value} ({d.entry.mode}: {d.reason}; {d.entry.cite})")
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
