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

One pass: the sweep calls ``_SweptSessions.swept`` with each session it wrote, while its ``.db`` copy is
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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.actions.record import record, verify_name
from audit.actions.sweep import Decoded, SweepResult, sweep
from audit.checks import baselines, consumers
from audit.checks.drift import DRIFT, NEW
from audit.errors import AuditError, FindingsError, UsageError
from audit.findings import Finding, Level, Verdict
from audit.pipeline.ci_results import ERROR, FAIL, PASS, REMOVED_CORPUS, SKIPPED, Check, Report, Stage
from audit.pipeline.ci_stages import Stages, command_line, timed
from audit.pipeline.sessions import CORPUS, SessionChecks
from audit.pipeline.worker import Worker
from audit.progress import Factory, step
from audit.safeio import read_json
from audit.store.corpus import MANIFEST
from audit.store.layout import Root
from audit.store.legacy_pb import Key
from audit.store.selection import READABLE_ONLY, Selection

PARALLEL_FROM = 64
"""Sessions from which a worker process checks them, where a second CPU is free (``jobs=None``):
it starts in about a second, the checks of 64 sessions take longer."""


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
    checks = SessionChecks(corpus, live)
    stages = Stages(roots, corpus, chosen, failing, live, progress, checks, chosen_profiles, key)
    sessions = _SweptSessions(corpus, live, progress, checks, jobs)
    try:
        try:
            sweep_started = time.monotonic()
            with step(progress, "sweep", "sessions") as bar:
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
                    on_swept=sessions.swept,
                    on_selected=sessions.selected,
                    selection=selection,
                    key=key,
                )
            sweep_seconds = time.monotonic() - sweep_started - sum(checks.spent.values())  # without the checks run meanwhile
            if result.interrupted:
                where = f"retained at {corpus}" if kept else "removed (--keep or --out keeps it)"
                raise AuditError(f"interrupted; incomplete corpus {where}", exit_code=result.interrupted)
            lost = sessions.collect()
        except BaseException:
            if sessions.worker is not None:
                sessions.worker.close()
            raise
        report = Report(started, corpus, kept, result.roots, chosen, why, failing.text, live, failing=failing)
        report.stages.append(Stage("sweep", [_sweep_check(result, sweep_seconds, lost)]))
        del result  # its sessions list every file of the corpus with its digest: not held through the other stages
        report.stages.append(Stage("verify-contract", stages.contract()))
        report.stages.append(Stage("completeness", stages.completeness()))
        report.stages.append(Stage("consistency", stages.consistency()))
        report.stages.append(Stage("links", stages.links()))
        report.stages.append(Stage("fingerprint", stages.fingerprint(report.observed)))
        report.stages.append(Stage("compare", stages.compare(report.observed, report.comparisons)))
        report.stages.append(Stage("consumers", stages.consumers(report)))
        if record_as is not None:
            record_in = functools.partial(
                _record, report, record_as, record_dir, compat_file, project_dir, progress, unverified_name, environ
            )
            report.stages.append(Stage("record", [timed(record_in)]))
    finally:
        if workdir is not None and not keep:  # passing or not, interrupted or failing: nothing left unless asked
            shutil.rmtree(workdir, ignore_errors=True)
    if not kept:
        _unname(report, corpus)
    report.finished_ns = time.time_ns()
    return report


# ----------------------------------------------------------------------------- helpers


def _cpus() -> int:
    """CPUs this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


def _unname(report: Report, corpus: Path) -> None:
    """Name a removed temp *corpus* ``REMOVED_CORPUS`` in the commands of *report*'s checks: a suggested
    command never names a path that no longer exists (the report says to run again with ``--out``)."""
    for check in (c for s in report.stages for c in s.checks):
        if check.command:
            check.command = check.command.replace(str(corpus), REMOVED_CORPUS)


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


def _record_name(report: Report, baseline_dir: Path) -> str:
    """``agy-<installed version>``; ``FindingsError`` saying why there is none to record under."""
    try:
        installed = read_json(report.out / MANIFEST).get("installedAgyVersion")
    except AuditError as exc:
        raise FindingsError(exc.message) from None
    found = _VERSION.search(installed) if isinstance(installed, str) else None
    if found is None:
        raise FindingsError(
            "the sweep does not know the installed agy version (agy --version did not answer); give --record agy-X.Y.Z"
        )
    name = f"agy-{found[0]}"
    if os.path.lexists(baseline_dir / name):
        raise FindingsError(f"{baseline_dir / name}: already exists (agy {found[0]} is recorded); give another --record name")
    return name


def _to_review(report: Report) -> list[str]:
    """What a reviewer would look at before calling the new version compatible: every corpus
    surface that drifted or is new against the baseline (empty: nothing to review)."""
    corpus = report.comparisons.get(CORPUS)
    if corpus is None:
        return ["nothing was compared"]
    return [f"{r.surface} {r.status}" for r in corpus.surfaces if r.status in (DRIFT, NEW)]


def _refused(why: str) -> Finding:
    """Why ``ci --record`` did not record: the error its failing record row counts."""
    return Finding("record/refused", Level.ERROR, why)


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
        try:
            name = _record_name(report, baseline_dir)
        except FindingsError as exc:
            return Check(
                "record",
                "agy-<installed version>",
                CORPUS,
                FAIL,
                f"not recorded: {exc.message}",
                findings=[_refused(exc.message)],
            )

    def check(verdict: Verdict, summary: str) -> Check:
        return Check(
            "record",
            name,
            CORPUS,
            verdict,
            summary,
            command_line("record", report.out, "--name", name, "--baseline-dir", baseline_dir, "--compat-file", compat_file),
            [_refused(summary)] if verdict in (FAIL, ERROR) else [],
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
class _SweptSessions:
    """Where the checks of each session the sweep writes are made: in this process, or in a worker
    process (``jobs``); ``checks`` holds what they found."""

    out: Path
    live: bool
    progress: Factory | None
    checks: SessionChecks
    jobs: int | None = None  # 1: every check in this process; 2: a worker process; None: as pays
    worker: Worker | None = None

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
