"""The stages of ``agy-audit ci`` after the sweep (``audit.pipeline.ci`` runs them in order):
``verify-contract``, ``completeness``, ``consistency``, ``links``, ``fingerprint``, ``compare``
and ``consumers``, each a list of ``Check``, on the corpus and (unless ``live=False``) on the live
stores. Each stage's listing takes what the checks of the swept sessions found
(``audit.pipeline.sessions.SessionChecks``) and reads only what the sweep did not write.
"""

from __future__ import annotations

import functools
import os
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks import completeness, consistency, consumers, contract, links
from audit.checks.baselines import Baseline
from audit.checks.completeness import SidecarTarget
from audit.checks.consistency import SessionTarget
from audit.checks.consumers import ConsumerResult, FailOn, Profile
from audit.checks.drift import (
    ADVISORY_CLASSES,
    CLASSES,
    NOT_COMPARABLE,
    Comparison,
    Observed,
    SurfaceResult,
    compare,
    fingerprints_to_compare,
)
from audit.checks.fingerprint import SURFACES
from audit.errors import AuditError, NothingToCheck
from audit.findings import UNREADABLE, Finding, Level, Verdict
from audit.pipeline.ci_results import ERROR, FAIL, PASS, SKIPPED, Check, Report
from audit.pipeline.sessions import CORPUS, LIVE, SessionChecks, Tally, completeness_part, consistency_part, key
from audit.progress import Factory, step
from audit.safeio import DIRECTORY, is_dir, path_kind
from audit.store.corpus import MANIFEST
from audit.store.layout import Root
from audit.store.legacy_pb import ENV_KEY, Key

TOOL = "agy-audit"


def command_line(*words: object) -> str:
    """The ``agy-audit`` command of *words*, quoted for a shell."""
    return shlex.join([TOOL, *map(str, words)])


def timed(make: Callable[[], Check]) -> Check:
    """The check *make* returns, with the wall-clock time it took."""
    started = time.monotonic()
    check = make()
    check.seconds = time.monotonic() - started
    return check


def _tallied(
    tally: Tally, stage: str, target: str, verdict: Verdict, summary: str, command: str, counts: dict[str, Any]
) -> Check:
    """The check of *target* whose findings *tally* took."""
    check = Check(stage, target, target, verdict, summary, command, tally.errors + tally.warnings, counts)
    check.errors, check.warnings = tally.n_errors, tally.n_warnings
    return check


@dataclass
class Stages:
    """The checks of each stage after the sweep, on the corpus *out* and the live stores of *roots*."""

    roots: list[Root]
    out: Path
    baseline: Baseline
    fail_on: FailOn
    live: bool
    progress: Factory | None
    checks: SessionChecks
    """What the checks of the swept sessions found (made here, or by the worker and sent back)."""
    profiles: list[Profile] = field(default_factory=list)
    key: Key | None = None  # the user's key for legacy .pb sessions (never shown: its origin names it)

    def _live_dirs(self) -> list[tuple[Root, Path]]:
        return [(r, r.path / "conversations") for r in self.roots if is_dir(r.path / "conversations")]

    # -- verify-contract ------------------------------------------------------------------------

    def contract(self) -> list[Check]:
        out = self.out
        checks = [
            timed(lambda: self._contract("corpus manifest", CORPUS, [out / MANIFEST], "manifest")),
            timed(lambda: self._contract("corpus sidecars", CORPUS, [out / "corpus"], "sidecar")),
            timed(lambda: self._contract("corpus transcripts", CORPUS, [out / "native"], "transcript")),
        ]
        if self.live:
            checks.append(timed(lambda: self._contract("live sidecars", LIVE, [d for _, d in self._live_dirs()], "sidecar")))
        for check in checks:
            check.seconds += self.checks.spent.pop(("verify-contract", check.name), 0.0)
        self.checks.contract_checked.clear()
        return checks

    def _contract(self, name: str, target: str, paths: list[Path], kind: str) -> Check:
        command = command_line("verify-contract", *(("--kind", kind) if kind != "sidecar" else ()), *paths)
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
            self._completeness(CORPUS, lambda: completeness.targets([self.out]), command_line("completeness", *keyed, self.out))
        ]
        if self.live:
            roots = [r for r, _ in self._live_dirs()]
            command = command_line("completeness", *keyed, *(w for r in roots for w in ("--root", r.path)))
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
        checks = [self._consistency(CORPUS, lambda: consistency.targets([self.out]), command_line("consistency", self.out))]
        if self.live:
            roots = [r for r, _ in self._live_dirs()]
            command = command_line("consistency", *(w for r in roots for w in ("--root", r.path)))
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
                checks.append(timed(functools.partial(self._links, *spec)))
                checks[-1].seconds += self.checks.spent.pop(("links", str(spec[2])), 0.0)
        self.checks.links_known.clear()
        return checks or [Check("links", "sidecars", CORPUS, SKIPPED, "no sidecars to resolve")]

    def _links(self, name: str, target: str, directory: Path, root: Path) -> Check:
        command = command_line("links", "check", "--root", root)
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
        checks = [timed(functools.partial(self._fingerprint, observed, *spec)) for spec in self._fingerprint_inputs()]
        for check in checks:
            check.seconds += self.checks.spent.pop(("fingerprint", check.target), 0.0)
        return checks

    def _fingerprint(self, observed: dict[str, Observed], target: str, paths: list[Path], surfaces: tuple[str, ...]) -> Check:
        surface_flags = ("--surface", "sidecar") if target == LIVE else ()
        command = command_line("fingerprint", *surface_flags, *paths)
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
            command = command_line("compare", *spec, *fail_on, *surface_flags, *paths)
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
        counts: dict[str, int] = {kind: result.counts()[kind] for kind in CLASSES}
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
                command = command_line("compare", *spec, "--consumer", which, "--fail-on", fail_on, *surface_flags, *paths)
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
