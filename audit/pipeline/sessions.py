"""The checks ``ci`` makes of each session while its sweep has it in hand (``SessionChecks``), and
their results, one ``Tally`` per session and check: ``audit.pipeline.ci`` runs them in its own
process or hands each swept session to a second one (``audit.pipeline.worker``), and each check's
listing takes the tallies instead of reading the session's files again.

From the one decoding of a session's ``.db`` copy (the sweep's snapshot of the live ``.db``: the
same rows): completeness and consistency, corpus and live, and live consistency from the corpus one
when the brain copies are the live transcripts'; the contract check of its sidecars and transcript
streams, its links facts and the fingerprint observations of its ``.db``, brain and sidecars (each
sidecar read once, ``sidecar.read``; each transcript stream parsed once, inside
``transcript.shared_reads``). Everything here is plain data: it pickles.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

from audit.actions.sweep import Decoded
from audit.checks import completeness, consistency, contract, links
from audit.checks.completeness import SidecarTarget
from audit.checks.consistency import SessionTarget
from audit.checks.contract import FileResult
from audit.checks.fingerprint import Reads
from audit.findings import Finding, Level
from audit.store import sidecar, transcript
from audit.store.trajectory import NativeTrajectory, reconstruct
from audit.strictjson import gc_paused

CORPUS, LIVE = "corpus", "live"
SHOWN = 5
"""Findings shown per check; the check's command lists all of them."""


class Tally:
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
        if finding.level == Level.ERROR:
            self.n_errors += 1
            kept = self.errors
        else:
            self.n_warnings += 1
            kept = self.warnings
        if len(kept) < SHOWN:
            kept.append(finding)

    def count(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    def merge(self, other: Tally) -> None:
        for key, n in other.counts.items():
            self.count(key, n)
        self.n_errors += other.n_errors
        self.n_warnings += other.n_warnings
        self.errors.extend(other.errors[: SHOWN - len(self.errors)])
        self.warnings.extend(other.warnings[: SHOWN - len(self.warnings)])


def _renamed(text: str, renames: Mapping[str, str] | None) -> str:
    """*text* with the first of *renames* (path of a copy -> path of its original) found in it replaced."""
    for old, new in (renames or {}).items():
        if old in text:
            return text.replace(old, new)
    return text


def completeness_part(r: completeness.Result, renames: Mapping[str, str] | None = None) -> Tally:
    """*r* as a share of its check (whose command shows every difference: ci checks with
    ``details=False``); with *renames*, as a result read from copies (see ``consistency_part``)."""
    part = Tally()
    part.count(r.verdict)
    if r.verdict != completeness.COMPLETE:
        level = Level.WARNING if r.verdict == completeness.UNKNOWN else Level.ERROR
        part.add(Finding(r.verdict, level, _renamed(r.detail, renames), str(r.sidecar)))
    return part


def consistency_part(r: consistency.SessionResult, renames: Mapping[str, str] | None = None) -> Tally:
    """*r* as a share of its check; with *renames* (path -> path), as a result read from copies of
    its files: the findings name the originals instead (the first of the *renames* found in a text)."""
    part = Tally()
    part.count(r.verdict)
    part.count("joined", sum(r.joined.values()))
    for f in r.findings:
        part.count("violations" if f.level == Level.ERROR else "advisories")
        # An unreadable .db or transcript is the sweep's failure (it reads every file it copies): a warning here.
        failing = f.level == Level.ERROR and f.rule != consistency.UNREADABLE_RULE
        file = None if f.file is None else _renamed(f.file, renames)
        part.add(replace(f, level=Level.ERROR if failing else Level.WARNING, message=_renamed(f.message, renames), file=file))
    return part


def key(target: SidecarTarget | SessionTarget) -> str:
    """*target* as a key of ``SessionChecks.done``: equal for equal targets, and a few hundred bytes
    where the target's ``Path`` objects are a few kilobytes (``ci`` holds one per session and check)."""
    return "\0".join(str(getattr(target, f.name)) for f in fields(target))


def _same_transcripts(copy: Path | None, live: Path | None) -> bool:
    """Whether the brain directory *copy* (the sweep's) holds the transcript files of *live* under
    the same names: then reading it is reading *live* as the sweep did."""
    if copy is None or live is None:
        return copy is live

    def listing(brain: Path) -> tuple[object, ...]:
        found = transcript.locate(brain)
        if found.unlisted:
            return (None,)
        return tuple(
            (t.name, t.flat and t.flat.relative_to(brain), tuple(c.relative_to(brain) for c in t.chunks)) for t in found.tiers
        )

    mine = listing(copy)
    return mine != (None,) and mine == listing(live)


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
class SessionChecks:
    """What the checks of the swept sessions found so far, by stage and target."""

    out: Path  # the sweep's corpus
    live: bool  # the live sidecars and transcripts are checked too
    done: dict[tuple[str, str], dict[str, Tally]] = field(default_factory=dict)
    """(stage, target) -> the part of each session ``swept`` checked, by its check's target (``key``)."""
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

    def swept(self, d: Decoded) -> None:
        """Every check of one session just swept (see the module docstring), from what the sweep
        read of it."""
        with gc_paused():
            found = self._decoded(d)
            if found is not None:
                self._corpus(d, *found)
                self._live_sidecar(d, found[1])

    def swept_corpus(self, d: Decoded) -> None:
        """The checks of ``swept`` but those of the live sidecar: a worker's share."""
        with gc_paused():
            found = self._decoded(d)
            if found is not None:
                self._corpus(d, *found)

    def swept_live_sidecar(self, d: Decoded) -> None:
        """The checks of the live sidecar of ``swept``: what ``swept_corpus`` leaves out."""
        with gc_paused():
            found = self._decoded(d, LIVE)
            if found is not None:
                self._live_sidecar(d, found[1])

    def take(self, corpus: SessionChecks) -> None:
        """Join to these checks of live sidecars (``swept_live_sidecar``) the other checks of the
        same sessions (``swept_corpus``, by a worker)."""
        self.reads = corpus.reads
        for stage, parts in corpus.done.items():
            self.done.setdefault(stage, {}).update(parts)
        self.contract_checked.update(corpus.contract_checked)
        for directory, facts in corpus.links_known.items():
            self.links_known.setdefault(directory, {}).update(facts)
        for what, seconds in corpus.spent.items():
            self.spent[what] += seconds

    def _decoded(self, d: Decoded, target: str = CORPUS) -> tuple[NativeTrajectory, completeness.Source] | None:
        """The reconstruction of *d*'s ``.db`` copy (the sweep's, or made now from its rows) and
        its completeness source (time spent on *target*'s check); None for a session without a
        readable ``.db``."""
        conv = d.conv
        if conv is None or not conv.access or d.session.db is None:
            return None
        with self._spending("completeness", target):
            native = d.native or reconstruct(conv)
            return native, completeness.source_of(conv, native)

    def _corpus(self, d: Decoded, native: NativeTrajectory, source: completeness.Source) -> None:
        conv, session = d.conv, d.session
        assert conv is not None and session.db is not None
        copy, live_db = conv.path, session.db
        corpus_sidecar = self.out / "corpus" / d.swept.product / f"{d.swept.id}.trajectory.json"
        with self._spending("completeness", CORPUS):
            # a native sweep wrote the sidecar as the rendering of this reconstruction: not parsed again
            read = sidecar.written(corpus_sidecar, native.trajectory) if d.native is not None else sidecar.read(corpus_sidecar)
            at = completeness.target_of(corpus_sidecar, copy, corpus=True)
            self._keep(
                "completeness", CORPUS, at, completeness_part(completeness.check_target(at, source, details=False, parsed=read))
            )
        rendered = read is not None and d.native is not None  # the sweep wrote it from this reconstruction
        if read is not None:
            self._share(read, CORPUS, values=not rendered)
            del read
        own = consistency.target_of(copy, copy.parent / "brain")
        with transcript.shared_reads():  # the brain copies parsed once for the three checks that read them
            with self._spending("consistency", CORPUS):
                result = consistency.check_session(own, (conv, native))
                self._keep("consistency", CORPUS, own, consistency_part(result))
            with self._spending("fingerprint", CORPUS):
                self.reads.add(conv, d.fields, native, rendered=rendered, product=d.swept.product)
                if own.brain is not None:
                    self.reads.add_brain(own.brain, d.swept.product)
            if own.brain is not None:
                with self._spending("verify-contract", "corpus transcripts"):
                    files, _, _ = contract.find_files([own.brain], "transcript")
                    for stream in contract.transcript_streams(files)[0]:
                        self.contract_checked[tuple(map(str, stream))] = contract.validate_stream(stream)
        if not self.live:
            return
        copied = {str(copy): str(live_db)}  # the findings of the copy's decoding name the live .db
        with self._spending("consistency", LIVE):
            there = SessionTarget(session.id, live_db, session.brain)
            if _same_transcripts(own.brain, there.brain):  # the copies the corpus check just read: the same bytes
                part = consistency_part(result, {**copied, str(own.brain): str(there.brain)})
            else:
                part = consistency_part(consistency.check_session(there, (conv, native)), copied)
            self._keep("consistency", LIVE, there, part)

    def _live_sidecar(self, d: Decoded, source: completeness.Source) -> None:
        session = d.session
        if not self.live or session.sidecar is None:
            return
        assert d.conv is not None and session.db is not None
        with self._spending("completeness", LIVE):
            read = sidecar.read(session.sidecar)
            at = completeness.target_of(session.sidecar, session.db)
            copied = {str(d.conv.path): str(session.db)}  # the findings of the copy's decoding name the live .db
            part = completeness_part(completeness.check_target(at, source, details=False, parsed=read), copied)
            self._keep("completeness", LIVE, at, part)
        if read is not None:
            self._share(read, LIVE)

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

    def _keep(self, stage: str, target: str, of: SidecarTarget | SessionTarget, part: Tally) -> None:
        self.done.setdefault((stage, target), {})[key(of)] = part

    def _spending(self, stage: str, target: str) -> _Spending:
        return _Spending(self.spent, (stage, target))
