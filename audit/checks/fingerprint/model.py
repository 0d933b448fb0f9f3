"""What a fingerprint survey gives (``Fingerprint``, ``Counts``, ``Survey``) and what a format
surface declares (``Surface``): the records every module of the package and every consumer of
surfaces share."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.checks.shape import digest_lines
from audit.checks.values import merge_counts
from audit.errors import EXIT_OK, EXIT_USAGE
from audit.store.selection import Selection

if TYPE_CHECKING:
    from audit.checks.fingerprint.reading import Reading

COMPLETE_SCOPE = "explicit-version-scoped"
"""Corpus scope of a complete sweep (agy-reader's label for a comparable corpus)."""
INPUT_KINDS = ("corpus", "store", "home", "files")
"""The kinds of input a survey reads: a sweep corpus, a store root, a home directory, plain files
(or a directory of them)."""
KEPT = "kept"
"""``Surface.redact`` of a surface whose digest a redacted copy keeps (``redact``'s proof)."""


@dataclass(frozen=True)
class Surface:
    """One format surface, as its module declares it and every consumer of surfaces reads it
    (``audit.checks.fingerprint.surfaces.SURFACES``): the survey calls ``fingerprint``; baselines,
    drift, the compatibility record, redact, ci, the manual's table (docs/reference/fingerprint.md) and the JSON Schemas' surface
    lists follow the other fields."""

    name: str
    describes: str
    """What its digest covers, as ``COMPATIBILITY.md`` says it."""
    missing: str
    """Why it is not computed when no input held it (``Survey.not_computed``)."""
    found_in: tuple[str, ...]
    """The kinds of input that can hold it (``INPUT_KINDS``)."""
    reads: frozenset[str]
    """What a survey must read for it (``audit.checks.fingerprint.inputs`` families, or ``BLOBS``
    and ``VALUES`` of ``audit.checks.fingerprint.reading``); each is read once for every surface."""
    fingerprint: Callable[[Reading], Fingerprint | None]
    """Its fingerprint from what the survey read, or None when the inputs held none of it."""
    redact: str
    """``KEPT`` when a redacted copy must keep its digest, else why the copy leaves it out."""
    synthetic: bool = False
    """The bundled baseline may hold its lines from the store builder's sample rather than from agy."""
    sessions: bool = False
    """Its lines come from the sessions swept, so a sweep's sample may lack what the sessions it
    left out hold (the others: each ``.db``'s whole schema, the per-install files, the layout)."""
    profiled: bool = True
    """A consumer profile entry may name its lines (the ``consumer-profile`` schema's surfaces)."""
    swept: str | None = None
    """The directory of ``native/<product>/`` in a sweep corpus whose files it reads, if any (the
    survey lists them as the family of that name)."""
    partial: Callable[[Survey], str | None] | None = None
    """Why, in a complete sweep, the lines it lacks may still be held by what it swept (the survey's
    ``sources`` tell how the sessions were swept), or None when they are evidence of absence."""


@dataclass(frozen=True)
class Fingerprint:
    surface: str
    lines: tuple[str, ...]
    digest: str
    note: str | None = None

    @classmethod
    def of(cls, surface: str, lines: Iterable[str], note: str | None = None) -> Fingerprint:
        lines = tuple(sorted(lines))
        return cls(surface, lines, digest_lines(lines), note)


@dataclass
class Counts:
    """What the corpus held: sidecar documents (``sessions``), their steps, step types and
    statuses, the database and transcript files read, and per field readers filter records by
    (``Values.counts``: transcript type, source and status, the steps columns) the records holding
    each value, in all and per product (``Values.products``)."""

    sessions: int = 0
    steps: int = 0
    step_types: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    databases: int = 0
    transcripts: int = 0
    values: dict[str, Counter[str]] = field(default_factory=dict)
    products: dict[str, dict[str, Counter[str]]] = field(default_factory=dict)

    def add_trajectory(self, doc: object) -> None:
        self.sessions += 1
        steps = doc.get("steps") if type(doc) is dict else None
        if type(steps) is not list:
            return
        self.steps += len(steps)
        try:  # C-level counting of the raw values; labels per distinct value
            types, statuses = (Counter(map(dict.get, steps, repeat(key))) for key in ("type", "status"))
        except TypeError:  # a step that is not an object, or a type/status that is (unhashable)
            self.step_types.update(_label(s.get("type")) if type(s) is dict else "(not an object)" for s in steps)
            self.statuses.update(_label(s.get("status")) for s in steps if type(s) is dict)
            return
        for counts, values in ((self.step_types, types), (self.statuses, statuses)):
            for value, n in values.items():
                counts[_label(value)] += n

    def merge(self, other: Counts) -> None:
        self.sessions += other.sessions
        self.steps += other.steps
        self.step_types.update(other.step_types)
        self.statuses.update(other.statuses)
        self.databases += other.databases
        self.transcripts += other.transcripts
        merge_counts(self.values, other.values)
        for product, counts in other.products.items():
            merge_counts(self.products.setdefault(product, {}), counts)

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "steps": self.steps,
            "stepTypes": dict(sorted(self.step_types.items())),
            "statuses": dict(sorted(self.statuses.items())),
            "databases": self.databases,
            "transcripts": self.transcripts,
            "values": _counts_json(self.values),
            "valuesByProduct": {product: _counts_json(counts) for product, counts in sorted(self.products.items())},
        }


def _counts_json(counts: dict[str, Counter[str]]) -> dict[str, dict[str, int]]:
    return {key: dict(sorted(counted.items())) for key, counted in sorted(counts.items())}


def _label(value: object) -> str:
    return value if type(value) is str else "(missing)" if value is None else "(not a string)"


@dataclass
class Survey:
    """Fingerprints of the requested surfaces of some inputs, and what was seen on the way."""

    kind: str  # "sweep" | "store" | "files"
    complete: bool  # a sweep corpus whose manifest says complete: true (all inputs)
    agy_version: str | None  # the manifest's installedAgyVersion, when one manifest says it
    readable: bool = False  # sweeps complete, or lacking only the sessions only the daemon reads (``uncovered``)
    fingerprints: dict[str, Fingerprint] = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)  # surface -> reason
    counts: Counts = field(default_factory=Counts)
    problems: list[str] = field(default_factory=list)  # unreadable/corrupt input files
    skipped: list[str] = field(default_factory=list)  # ignored entries and dropped lines
    manifests: list[Path] = field(default_factory=list)
    sources: Counter[str] = field(default_factory=Counter)  # swept sidecars per source (daemon/native)
    files: dict[str, list[Path]] = field(default_factory=dict)  # sidecars / databases / transcripts read
    selection: Selection | None = None  # what the sweep was asked to take (its manifest's), None: every session
    selected: int = 0  # sessions the sweeps selected (their manifests' ``selected``)
    excluded: int = 0  # sessions their selections left out

    unread: int = 0  # sessions of a store whose conversation no file read here holds (a legacy .pb only)
    uncovered: int = 0  # sessions the sweeps list as only the daemon reads (their manifests' ``notCovered``)
    session_surfaces: tuple[str, ...] = ()  # the surfaces whose lines come from the sessions (``Surface.sessions``)
    unsure: dict[str, str] = field(default_factory=dict)
    """Surface -> why, in a complete sweep, the lines it lacks are no evidence (``Surface.partial``)."""

    @property
    def without_daemon(self) -> int:
        """Sessions of the sweeps whose sidecar was reconstructed offline (every source but ``daemon``)."""
        return sum(n for source, n in self.sources.items() if source != "daemon")

    @property
    def whole(self) -> bool:
        """A store or home read whole, as a complete sweep reads it: every session's files read
        (its ``.db``, brain, the per-install files), none unreadable, none only the daemon reads."""
        return self.kind == "store" and not self.problems and not self.unread

    @property
    def exit_code(self) -> int:
        """2 when an input was unreadable: a fingerprint that skipped it is not the store's."""
        return EXIT_USAGE if self.problems else EXIT_OK

    def partial(self) -> dict[str, str]:
        """Surfaces of a complete sweep or a store read whole whose absent lines are no evidence,
        with why: a store's sidecars; in a complete sweep, those each surface names itself
        (``Surface.partial``: the sidecar surface of a native sweep, for keys our ``.proto`` cannot
        decode, ``drift.native_observable`` telling which), then those of a sample (``sampled``)."""
        if self.whole:
            return {
                "sidecar": "a store's sidecars are agy-reader's copies, fresh, stale or missing per session: "
                "a key they lack is no evidence (a sweep writes every session's)"
            }
        if not self.readable:
            return {}
        return self.unsure | self.unswept() | self.sampled()

    def unswept(self) -> dict[str, str]:
        """The surfaces of the sessions when the sweep could not read some (a legacy ``.pb`` swept
        natively): the rest is compared as a sample is, the schema and per-install files whole."""
        if not (self.readable and self.uncovered):
            return {}
        why = f"{self.uncovered} session(s) only the daemon reads (legacy .pb) are not in the corpus: they may hold what it lacks"
        return dict.fromkeys(self.session_surfaces, why)

    def sampled(self) -> dict[str, str]:
        """The surfaces of the sessions when the sweep's selection left out sessions it could
        read (by id, time or number): what the sessions taken lack, those left out may hold."""
        if not (self.readable and self.selection is not None and self.selection.samples and self.excluded):
            return {}
        why = (
            f"the corpus is a selection ({self.selection.describe(self.selected, self.excluded)}): "
            "the sessions it left out may hold what it lacks"
        )
        return dict.fromkeys(self.session_surfaces, why)

    @property
    def scope(self) -> str:
        """``explicit-version-scoped`` for a complete sweep, else ``partial-<version>-scoped``."""
        return COMPLETE_SCOPE if self.complete else f"partial-{self.agy_version or 'unknown'}-scoped"
