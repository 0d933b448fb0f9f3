"""Compare fingerprints with a baseline: a status per surface and a classified line diff.

Status per surface: ``NEW`` (the baseline does not record it), ``UNCHANGED`` (same digest),
``DRIFT`` (lines changed, or the digest did) or ``NOT COMPARABLE`` (with the reason: not computed
here, or a partial corpus whose every line is in the baseline). A digest that differs is DRIFT
always: when one side kept only the digest the changes cannot be classified
(``SurfaceResult.classified`` is False, the reason says so, and ``--fail-on breaking`` fails too,
since an unknown change may be a breaking one).

Each changed line (``path<TAB>value``; a value is a ``|``-joined set) is one of: ``added``,
``removed``, ``type-changed``, ``widened`` (a type joins the set, e.g. ``string`` ->
``null|string``), ``narrowed`` (a type leaves it). From a corpus that is not a complete sweep a
missing path or type is ``not-observed`` instead of ``removed``/``narrowed``: an unexercised
feature is not evidence of removal. The scope is per line: in a complete sweep whose sidecars were
(partly) reconstructed offline, a missing key our ``.proto`` decodes (``native_observable``) is
``removed``; only a key the offline decoder cannot produce (daemon-only) is ``not-observed``. So it is when fingerprints computed here meet baseline lines
imported from a published record: that record was taken from another corpus, so a path the
stores swept here never exercised says nothing about agy (``Comparison.partial`` says why).

Two classes are advisories, reported and never failing (``ADVISORY_CLASSES``): ``enum-number``,
a sidecar path that is an enum field of our ``.proto`` (``enum_at``) whose types differ only by
``string`` vs ``number`` -- one enum written by name on one side and by number on the other (our
export writes a number for a value ``cortex.proto`` cannot name); the change names the numbers
the ``values`` surface recorded there. And ``not-in-baseline``, an added sidecar path the baseline
could not have recorded: one at or below a path its ``beyondRecord`` lists (known from real
stores, absent from the published record), or -- against lines imported from another corpus --
one carried only by steps of a type that corpus never held (``Baseline.step_types``; the sidecars
are read again for this, only when they hold such steps and an added path lies below
``steps.[]``), or first contact: any other path added in the stores fingerprinted here against
lines imported from another corpus (that corpus did not hold it: no evidence the format changed;
record your own baseline to judge it), and a key only the daemon writes against a baseline whose
sidecars were all reconstructed offline. Against a baseline recorded from your own stores an added
path is ``added``. A third, ``transient``, is a ``layout`` change of a family whose presence is
the state of agy's open databases rather than format (``layout.TRANSIENT_FAMILIES``: a ``-wal``
is there while agy holds its ``.db`` open, gone once SQLite checkpoints it). A surface whose every
change is one of these (or ``not-observed``) is an advisory DRIFT.
"""

from __future__ import annotations

import functools
import os
import re
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from audit.checks import baselines
from audit.checks.baselines import Baseline
from audit.checks.fingerprint import SURFACES, VALUES, Fingerprint, Reads, Survey, fingerprint_paths
from audit.checks.shape import SidecarShape, digest_lines
from audit.checks.values import order
from audit.errors import AuditError, NothingToCheck, UsageError
from audit.progress import Callback
from audit.safeio import MAX_DOCUMENT_BYTES, is_file, read_bytes, read_own
from audit.store.layout import TRANSIENT_FAMILIES
from audit.store.proto import cortex_pb2 as pb
from audit.strictjson import JSONError, loads

_OPAQUE_MESSAGES = frozenset({"google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue"})
_TEXT_MESSAGES = frozenset(
    {"google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask", "google.protobuf.Any"}
)


def native_observable(path: str) -> bool:
    """Whether the offline reconstruction of a ``.db`` (``audit.store.trajectory``: proto3 JSON of
    our ``cortex.proto``'s ``Trajectory``) can produce the sidecar shape *path* (``steps.[].x``):
    every key must be the JSON name of a field the ``.proto`` declares (any key below a map or a
    ``Struct``). A key only the daemon writes (no public source gives its field number) is not."""
    return _resolve(path)[0]


def enum_at(path: str) -> EnumDescriptor | None:
    """The enum of our ``.proto`` whose values the sidecar shape *path* holds (a singular or
    repeated enum field, or a map's enum values), else None."""
    return _resolve(path)[1]


@functools.lru_cache(maxsize=65536)
def _resolve(path: str) -> tuple[bool, EnumDescriptor | None]:
    """(``native_observable(path)``, ``enum_at(path)``): one walk of the descriptor."""
    node: object = pb.Trajectory.DESCRIPTOR  # a message Descriptor, a pending FieldDescriptor, "any" or "leaf"
    value: FieldDescriptor | None = None  # the field whose value *node* is
    for part in path.split(".") if path else ():
        if node == "any":
            return True, None
        if node == "leaf":
            return False, None
        if isinstance(node, FieldDescriptor):  # a repeated field's "[]" or a map's key
            if node.message_type is not None and node.message_type.GetOptions().map_entry:
                value = node.message_type.fields_by_name["value"]
            elif part == "[]":
                value = node
            else:
                return False, None
            node = _value_node(value)
            continue
        assert isinstance(node, Descriptor)  # what is left: a message (upb's descriptors pass isinstance too)
        fd = next((f for f in node.fields if f.json_name == part), None)
        if fd is None:
            return False, None
        value = None if fd.is_repeated else fd
        node = fd if fd.is_repeated else _value_node(fd)
    return True, value.enum_type if value is not None and node == "leaf" else None


def _value_node(fd: FieldDescriptor) -> object:
    if fd.message_type is None:
        return "leaf"
    name = fd.message_type.full_name
    return "any" if name in _OPAQUE_MESSAGES else "leaf" if name in _TEXT_MESSAGES else fd.message_type


CLASSES = (
    "added",
    "removed",
    "renamed",
    "type-changed",
    "widened",
    "narrowed",
    "value-added",
    "value-removed",
    "not-observed",
    "enum-number",
    "not-in-baseline",
    "transient",
)
BREAKING = frozenset({"removed", "renamed", "type-changed", "widened"})
ADVISORY_CLASSES = frozenset({"enum-number", "not-in-baseline", "transient"})
"""Changes reported as advisories, never failing (see the module docstring)."""
FAIL_ON = ("drift", "breaking", "never")
NEW, UNCHANGED, DRIFT, NOT_COMPARABLE = "NEW", "UNCHANGED", "DRIFT", "NOT COMPARABLE"
UNPAIRED = frozenset({"layout"})
"""Surfaces whose paths are not keys: one gone and one added at the same place are two changes
(a session family that vanished and another that appeared), never a rename."""
WHOLE_PER_FILE = frozenset({"sqlite"})
"""Surfaces every input file shows whole (each ``.db`` carries its entire schema): lines imported
from another corpus are as observable here as there, so their absence is a removal."""
DIGEST_ONLY = "digest only"
"""``Fingerprint.note`` of a surface known only by its digest (from a baseline given as input)."""


@dataclass
class Observed:
    """The fingerprints to compare: computed from a corpus, or read from a baseline or TSV."""

    label: str  # what was observed, for reports
    fingerprints: dict[str, Fingerprint]
    complete: bool
    scope: str
    offered: tuple[str, ...] | None = None  # surfaces this kind of input can have (None: every one)
    not_computed: dict[str, str] = field(default_factory=dict)
    partial: dict[str, str] = field(default_factory=dict)  # surface -> why absent lines are no evidence
    survey: Survey | None = None  # when computed
    observable: dict[str, Callable[[str], bool]] = field(default_factory=dict)
    """surface in ``partial`` -> whether this corpus could show a line's path after all (its
    absence is then a removal)"""
    recorded_counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)  # a baseline's, when observed
    recorded_products: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)  # the same, per product

    @property
    def value_counts(self) -> Mapping[str, Mapping[str, int]]:
        """Records per value of the fields readers filter by (``Counts.values``), when known."""
        return self.survey.counts.values if self.survey is not None else self.recorded_counts

    @property
    def product_counts(self) -> Mapping[str, Mapping[str, Mapping[str, int]]]:
        """The same per product (``Counts.products``: ``cli``, ``ide``, ``acp``), when known."""
        return self.survey.counts.products if self.survey is not None else self.recorded_products


def fingerprints_to_compare(
    paths: Sequence[str | os.PathLike[str]],
    surfaces: tuple[str, ...] | None = None,
    *,
    progress: Callback | None = None,
    read: Reads | None = None,
) -> Observed:
    """Fingerprints of *surfaces* (default: every one) of *paths*: a sweep corpus, store or files
    (computed, *progress* and *read* as in ``fingerprint_paths``), or -- alone -- a baseline directory or an agy-reader ``*.tsv`` shape snapshot
    (read). Raises ``NothingToCheck`` when no surface could be fingerprinted."""
    surfaces = tuple(SURFACES) if surfaces is None else surfaces
    single = Path(paths[0]) if len(paths) == 1 else None
    if single is not None and is_file(single / baselines.BASELINE_FILE):
        b = baselines.load(single)
        fps = {
            s: Fingerprint(s, b.lines[s], d) if s in b.lines else Fingerprint(s, (), d, DIGEST_ONLY)
            for s, d in b.digests.items()
            if s in surfaces
        }
        observed = Observed(
            f"baseline {b.name} ({single})",
            fps,
            b.complete,
            b.scope or "unknown",
            tuple(fps),
            recorded_counts=b.value_counts,
            recorded_products=b.product_counts,
        )
    elif single is not None and single.suffix == ".tsv" and is_file(single):
        lines = baselines.parse_snapshot(read_own(single), str(single))
        fps = {"sidecar": Fingerprint.of("sidecar", lines)} if "sidecar" in surfaces else {}
        observed = Observed(f"shape snapshot {single}", fps, False, "unknown", ("sidecar",))
    else:
        if any(is_file(Path(p) / baselines.BASELINE_FILE) or str(p).endswith(".tsv") for p in paths):
            raise UsageError("a baseline directory or .tsv snapshot must be the only PATH")
        result = fingerprint_paths(paths, surfaces, progress=progress, read=read)
        partial = result.partial()
        observed = Observed(
            ", ".join(map(str, paths)),
            result.fingerprints,
            result.readable or result.whole,
            result.scope,
            surfaces,
            result.not_computed,
            partial,
            result,
            # a native sweep's sidecars: the keys the offline decoder produces are observable all the same
            {"sidecar": native_observable}
            if result.readable and "sidecar" in result.unsure and "sidecar" not in result.sampled() | result.unswept()
            else {},
        )
    if not observed.fingerprints:
        reasons = "; ".join(f"{s}: {why}" for s, why in observed.not_computed.items())
        raise NothingToCheck(f"nothing to fingerprint in {observed.label}" + (f" ({reasons})" if reasons else ""))
    return observed


@dataclass(frozen=True)
class Change:
    path: str
    kind: str
    old: str | None  # baseline value (types), None when added
    new: str | None  # current value, None when removed / not observed
    was: str | None = None  # renamed: the baseline path this one replaces
    note: str | None = None  # why an advisory class (ADVISORY_CLASSES) applies

    def text(self, sep: str = ": ") -> str:
        """The change in words: ``path: value``, ``path: old -> new``, ``old -> path: value``
        (renamed), ``path: +V (now A|V)`` (a value added; ``-V`` gone); *sep* after the path."""
        if self.kind == "renamed":
            return f"{self.was} -> {self.path}{sep}{self.new}"
        if self.kind in ("value-added", "value-removed"):
            more, fewer = self.values()
            shown = "|".join(sorted(more if self.kind == "value-added" else fewer, key=order))
            return f"{self.path}{sep}{'+' if self.kind == 'value-added' else '-'}{shown} (now {self.new or 'none'})"
        value = self.new if self.old is None else self.old if self.new is None else f"{self.old} -> {self.new}"
        return f"{self.path}{sep}{value}"

    def values(self) -> tuple[set[str], set[str]]:
        """A values-surface change: (values added, values gone)."""
        old, new = _members(self.old), _members(self.new)
        return new - old, old - new


def _members(value: str | None) -> set[str]:
    return set(value.split("|")) if value else set()


@dataclass(frozen=True)
class SurfaceResult:
    surface: str
    status: str
    reason: str | None = None
    baseline_digest: str | None = None
    current_digest: str | None = None
    changes: tuple[Change, ...] = ()
    complete: bool = False  # absent lines counted as removed (else "not observed")
    classified: bool = True  # False: the digest changed but one side has no lines to say how
    advisory: bool = False  # DRIFT against synthetic baseline lines, or only advisory changes: never failing

    def counts(self) -> Counter[str]:
        return Counter(c.kind for c in self.changes)


@dataclass
class Comparison:
    baseline: str
    complete: bool  # the current corpus is a complete sweep
    scope: str
    surfaces: list[SurfaceResult] = field(default_factory=list)
    partial: dict[str, str] = field(default_factory=dict)  # surface -> why its absent lines are no evidence of removal

    def counts(self) -> Counter[str]:
        total: Counter[str] = Counter()
        for result in self.surfaces:
            total.update(result.counts())
        return total

    def fails(self, fail_on: str) -> bool:
        """Whether the comparison fails under ``--fail-on`` *fail_on*."""
        if fail_on == "never":
            return False
        judged = [r for r in self.surfaces if not r.advisory]
        if fail_on == "breaking":  # a change whose classes are unknown may be breaking
            return any(c.kind in BREAKING for r in judged for c in r.changes) or any(
                r.status == DRIFT and not r.classified for r in judged
            )
        return any(r.status == DRIFT for r in judged)


def split_line(line: str) -> tuple[str, str]:
    """A fingerprint line's path and value (the text after its last tab)."""
    path, _, value = line.rpartition("\t")
    return path, value


def _differing(old: tuple[str, ...], new: tuple[str, ...]) -> Iterator[tuple[str, str | None, str | None]]:
    """(path, baseline value, current value) of each path whose line differs, sorted by path."""
    before = dict(map(split_line, old))
    after = dict(map(split_line, new))
    for path in sorted(before.keys() | after.keys()):
        a, b = before.get(path), after.get(path)
        if a != b:
            yield path, a, b


def diff_lines(
    old: tuple[str, ...],
    new: tuple[str, ...],
    *,
    complete: bool,
    observable: Callable[[str], bool] | None = None,
    enums: Callable[[str], object] | None = None,
    renames: bool = True,
) -> tuple[Change, ...]:
    """Classified changes from *old* (baseline) to *new* lines, sorted by path. From a corpus that
    is not *complete*, a missing path is ``not-observed`` unless *observable* says the corpus
    would have shown it (then it is ``removed``). Where *enums* gives a path's enum, ``string``
    and ``number`` are one type there (``enum-number`` when that is all that differs). Without
    *renames*, a gone path and an added one stay two changes."""
    changes = []
    for path, a, b in _differing(old, new):
        if b is None:
            kind = "removed" if complete or (observable is not None and observable(path)) else "not-observed"
        elif a is None:
            kind = "added"
        else:
            was, now = set(a.split("|")), set(b.split("|"))
            if enums is not None and (was ^ now) & _ENUM_TYPES and enums(path) is not None:
                was, now = _as_enum(was), _as_enum(now)
            if was == now:
                kind = "enum-number"
            elif now > was:
                kind = "widened"
            elif now < was:
                kind = "narrowed" if complete else "not-observed"
            elif now & was and not complete:
                kind = "widened"  # a new type joined; the missing ones were only not observed
            else:
                kind = "type-changed"
        changes.append(Change(path, kind, a, b))
    return _renamed(changes) if renames else tuple(changes)


_ENUM_TYPES = frozenset({"string", "number"})


def _as_enum(types: set[str]) -> set[str]:
    return {"enum" if t in _ENUM_TYPES else t for t in types}


def _parent(path: str) -> tuple[str, str]:
    parent, _, key = path.rpartition(".")
    return parent, key


def _normal(key: str) -> str:
    return key.replace("_", "").replace("-", "").lower()


def _renamed(changes: list[Change]) -> tuple[Change, ...]:
    """Pair each path that is gone (removed, or not observed) with one added at the same place
    holding the same types, as one ``renamed`` change at the new path (``was``: the old one).
    A pair is made where the two keys differ only in case, ``_`` and ``-`` (``created_at`` ->
    ``createdAt``), or, for a removal, where it is the only removed and the only added key of
    that type under the parent; everything below a renamed key pairs with its counterpart.
    A key that merely went unobserved pairs only by name: the corpus may not exercise it."""
    gone = {c.path: c for c in changes if c.kind in ("removed", "not-observed") and c.new is None}
    added = {c.path: c for c in changes if c.kind == "added"}
    if not gone or not added:
        return tuple(changes)
    pairs: dict[str, str] = {}  # new path -> old path
    moved: dict[str, str] = {}  # old key prefix + "." -> new prefix + "."
    for path in sorted(gone, key=lambda p: (p.count("."), p)):
        old = gone[path]
        parent, key = _parent(path)
        target = next((path.replace(o, n, 1) for o, n in moved.items() if path.startswith(o)), None)
        if target is None:
            candidates = [p for p in added if p not in pairs and _parent(p)[0] == parent and added[p].new == old.old]
            named = [p for p in candidates if _normal(_parent(p)[1]) == _normal(key)]
            if len(named) == 1:
                target = named[0]
            elif old.kind == "removed" and len(candidates) == 1:
                rivals = [p for p, c in gone.items() if _parent(p)[0] == parent and c.kind == "removed" and c.old == old.old]
                target = candidates[0] if len(rivals) == 1 else None
        if target is not None and target in added and target not in pairs and added[target].new == old.old:
            pairs[target] = path
            moved[path + "."] = target + "."
    if not pairs:
        return tuple(changes)
    old_paths = set(pairs.values())
    out = [c for c in changes if c.path not in old_paths and c.path not in pairs]
    out += [Change(new, "renamed", added[new].new, added[new].new, was) for new, was in pairs.items()]
    return tuple(sorted(out, key=lambda c: c.path))


def diff_values(old: tuple[str, ...], new: tuple[str, ...], *, complete: Callable[[str], bool]) -> tuple[Change, ...]:
    """Changes of the ``values`` surface: per field, ``value-added`` when it holds a value it did not
    (a new field too), ``value-removed`` when a value is gone (``not-observed`` where *complete*
    says the corpus could have missed it); a field may have both."""
    changes = []
    for path, a, b in _differing(old, new):
        more, fewer = _members(b) - _members(a), _members(a) - _members(b)
        if more:
            changes.append(Change(path, "value-added", a, b))
        if fewer:
            changes.append(Change(path, "value-removed" if complete(path) else "not-observed", a, b))
    return tuple(changes)


def compare_values(
    baseline: Baseline, current: Fingerprint, observed_surfaces: set[str], *, complete: Callable[[str], bool]
) -> SurfaceResult:
    """The ``values`` surface, compared for the surfaces both sides record (the values of a surface
    new on one side are part of that surface's NEW, never value drift)."""
    recorded, digest = baseline.digests[VALUES], current.digest
    shared = {s for s in SURFACES if s != VALUES and s in baseline.digests and s in observed_surfaces}
    before, after = _values_of(baseline.lines[VALUES], shared), _values_of(current.lines, shared)
    left = sorted({line.partition(":")[0] for line in baseline.lines[VALUES] + current.lines} - shared)
    aside = f"values of {', '.join(left)} not compared (that surface is not recorded on both sides)" if left else None
    if not before and not after:
        return SurfaceResult(VALUES, NOT_COMPARABLE, aside or "no value recorded on both sides", recorded, digest)
    if digest_lines(before) == digest_lines(after):
        return SurfaceResult(VALUES, UNCHANGED, aside, recorded, digest)
    changes = diff_values(before, after, complete=complete)
    if all(c.kind == "not-observed" for c in changes):
        why = f"every observed value is in {baseline.name}; {len(changes)} of its fields lack a value, which is no evidence of removal"
        return SurfaceResult(VALUES, NOT_COMPARABLE, "; ".join(filter(None, (why, aside))), recorded, digest, changes)
    return SurfaceResult(VALUES, DRIFT, aside, recorded, digest, changes)


def _values_of(lines: tuple[str, ...], surfaces: set[str]) -> tuple[str, ...]:
    return tuple(line for line in lines if line.partition(":")[0] in surfaces)


def compare_surface(
    surface: str,
    baseline: Baseline,
    current: Fingerprint | None,
    *,
    complete: bool,
    reason: str | None = None,
    observable: Callable[[str], bool] | None = None,
    observed: Observed | None = None,
) -> SurfaceResult:
    """*observed*, what *current* was computed from, lets the sidecar surface's advisory classes
    name what they know (``_advisories``)."""
    recorded = baseline.digests.get(surface)
    absent = baseline.absent.get(surface)
    if current is None:
        also = f"; {baseline.name} recorded it as absent too ({absent})" if absent is not None else ""
        return SurfaceResult(surface, NOT_COMPARABLE, f"not computed: {reason or 'no input'}{also}", recorded)
    if recorded is None:
        why = (
            f"{baseline.name} recorded it as absent ({absent})"
            if absent is not None
            else f"{baseline.name} does not record this surface"
        )
        return SurfaceResult(surface, NEW, why, None, current.digest)
    if recorded == current.digest:
        return SurfaceResult(surface, UNCHANGED, None, recorded, current.digest)
    unknown = "the changed lines and their classes are unknown"
    if current.note == DIGEST_ONLY:
        why = f"the digest differs and the input records only the digest: {unknown}"
        return SurfaceResult(surface, DRIFT, why, recorded, current.digest, classified=False)
    if surface not in baseline.lines:
        why = (
            f"the digest differs from {baseline.name}'s, which records only the digest "
            f"({baseline.provenance.get(surface, 'provenance unknown')}): {unknown}"
        )
        return SurfaceResult(surface, DRIFT, why, recorded, current.digest, classified=False)
    sidecar = surface == "sidecar"
    changes = diff_lines(
        baseline.lines[surface],
        current.lines,
        complete=complete,
        observable=observable,
        enums=enum_at if sidecar else None,
        renames=surface not in UNPAIRED,
    )
    by_type = False
    if sidecar:
        changes, by_type = _advisories(changes, baseline, observed)
    elif surface == "layout":
        changes = tuple(_transient(c) for c in changes)
    if not changes:
        why = "the digest differs but no canonical line does (e.g. the DDL text was reformatted)"
        return SurfaceResult(surface, DRIFT, why, recorded, current.digest)
    if all(c.kind == "not-observed" for c in changes):
        why = (
            f"every observed line matches {baseline.name}; {len(changes)} of its lines were not observed, "
            "which is no evidence of removal"
        )
        return SurfaceResult(surface, NOT_COMPARABLE, why, recorded, current.digest, changes)
    if all(c.kind in ADVISORY_CLASSES or c.kind == "not-observed" for c in changes):
        counts = Counter(c.kind for c in changes if c.kind in ADVISORY_CLASSES)
        why = (
            "advisory, not a failure: only "
            + " and ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
            + " (each line says why)"
            + (f"; {baseline.name}'s step types: {baseline.step_types_source}" if by_type else "")
        )
        return SurfaceResult(surface, DRIFT, why, recorded, current.digest, changes, advisory=True)
    return SurfaceResult(surface, DRIFT, None, recorded, current.digest, changes)


def _transient(change: Change) -> Change:
    """A ``layout`` change of a family whose presence is the state of agy's open databases, not
    format (``layout.TRANSIENT_FAMILIES``): ``transient``, an advisory."""
    family = change.path.split("/", 1)[-1]
    if family not in TRANSIENT_FAMILIES or change.kind == "not-observed":
        return change
    return replace(change, kind="transient", note=TRANSIENT_FAMILIES[family])


def _advisories(changes: tuple[Change, ...], baseline: Baseline, observed: Observed | None) -> tuple[tuple[Change, ...], bool]:
    """The sidecar *changes* with their advisory classes settled, and whether a step type the
    baseline never observed made one of them so: each ``enum-number`` change noted with its enum
    (and the numbers *observed*'s ``values`` surface recorded there, when it has one), each added
    path the baseline could not have recorded made ``not-in-baseline`` -- known beyond its record,
    carried only by a step type it never observed, or first met: in the stores fingerprinted here
    against lines imported from another corpus, any added path (that corpus never held it, which
    says nothing of the format; two imported records compared are a diff between versions),
    against a baseline recorded from sidecars all reconstructed offline a key only the daemon
    writes (``native_observable``). Against your own stores' lines an added path stays ``added``."""
    beyond = baseline.beyond.get("sidecar", {})
    survey = observed.survey if observed is not None else None
    imported = baseline.provenance.get("sidecar", "").startswith("imported")
    offline = baseline.sources is not None and set(baseline.sources) == {"native"}
    unobserved: set[str] = set()
    if baseline.step_types is not None and survey is not None and imported:
        # lines from another corpus: a step type it never held says nothing of agy (in a baseline
        # recorded from these stores, a new step type is drift)
        unobserved = {t for t in survey.counts.step_types if t not in baseline.step_types}
    steps = {c.path for c in changes if c.kind == "added" and c.path.startswith("steps.[].")} if unobserved else set()
    evidence = _Evidence.read(survey.files.get("sidecars", ()), unobserved) if survey and steps else None
    values_fp = observed.fingerprints.get(VALUES) if observed is not None else None
    recorded = dict(map(split_line, values_fp.lines)) if values_fp is not None else {}
    out = []
    by_type = False
    for c in changes:
        if c.kind == "enum-number":
            enum = enum_at(c.path)
            assert enum is not None  # diff_lines classed it by its enum
            numbers = sorted((v for v in _members(recorded.get(f"sidecar:{c.path}")) if _NUMBER.fullmatch(v)), key=int)
            values = f"{enum.name} {', '.join(numbers)}" if numbers else f"a value of {enum.name}"
            c = replace(
                c,
                note=f"{values}: cortex.proto names no such value, so it is written as its number; "
                "the other side writes the same enum by name",
            )
        elif c.kind == "added":
            prefix = next((p for p in beyond if c.path == p or c.path.startswith(p + ".")), None)
            if prefix is not None:
                c = replace(c, kind="not-in-baseline", note=f"known beyond {baseline.name}'s record: {beyond[prefix]}")
            elif (
                evidence is not None
                and c.path in steps
                and c.path not in evidence.observed_paths
                and (types := ", ".join(sorted(t for t, paths in evidence.unobserved_paths.items() if c.path in paths)))
            ):
                c = replace(
                    c,
                    kind="not-in-baseline",
                    note=f"only in {types} steps, a type {baseline.name} never observed",
                )
                by_type = True
            elif imported and survey is not None:
                c = replace(c, kind="not-in-baseline", note=f"first contact: {FIRST_CONTACT.format(baseline.name)}")
            elif offline and not native_observable(c.path):
                c = replace(
                    c,
                    kind="not-in-baseline",
                    note=f"a key only the daemon writes: {baseline.name} was recorded from sidecars reconstructed "
                    "offline (a native sweep), which cannot hold it",
                )
        out.append(c)
    return tuple(out), by_type


_NUMBER = re.compile(r"-?[0-9]+")
FIRST_CONTACT = (
    "{0} was recorded from another corpus, which did not hold this path: no evidence that the format changed. "
    "To judge added paths, record your own baseline (agy-audit ci --record agy-X.Y.Z) and compare later runs with it"
)


@dataclass
class _Evidence:
    """What the sidecars a survey read hold, for ``_advisories``: the shape paths of the steps of
    the types the baseline observed and, per type it never observed, of the steps of that type."""

    observed_paths: frozenset[str] = frozenset()
    unobserved_paths: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def read(cls, files: Sequence[Path], unobserved: set[str]) -> _Evidence:
        """Read *files* again (an unreadable one is skipped: the survey reported it)."""
        found = cls()
        kept = SidecarShape()
        apart: dict[str, SidecarShape] = {}
        for path in files:
            try:
                doc = loads(read_bytes(path, limit=MAX_DOCUMENT_BYTES), source=str(path), require_object=False)
            except (AuditError, JSONError):
                continue
            if type(doc) is dict and len(doc) == 1 and "trajectory" in doc:
                doc = doc["trajectory"]
            steps = doc.get("steps") if type(doc) is dict else None
            if type(steps) is not list:
                continue
            kept.add({"steps": [s for s in steps if _step_type(unobserved, s) is None]})
            for s in steps:
                if (t := _step_type(unobserved, s)) is not None:
                    apart.setdefault(t, SidecarShape()).add({"steps": [s]})
        found.observed_paths = frozenset(line.split("\t", 1)[0] for line in kept.lines())
        found.unobserved_paths = {t: frozenset(line.split("\t", 1)[0] for line in shape.lines()) for t, shape in apart.items()}
        return found


def _step_type(unobserved: set[str], step: object) -> str | None:
    """The type of *step* when it is one of *unobserved* (as ``Counts`` labels it), else None."""
    kind = step.get("type") if type(step) is dict else None
    label = kind if type(kind) is str else "(missing)" if kind is None else "(not a string)"
    return label if label in unobserved else None


def _value_scope(observed: Observed, complete: bool) -> Callable[[str], bool]:
    """Whether a gone value of a field is a removal: the values surface is complete and so is the
    field's own surface (or, partial there, this corpus could show the field's path)."""

    def scope(line_path: str) -> bool:
        surface, _, path = line_path.partition(":")
        if not complete:
            return False
        if surface not in observed.partial:
            return True
        observable = observed.observable.get(surface)
        return observable is not None and observable(path)

    return scope


def compare(baseline: Baseline, observed: Observed, surfaces: tuple[str, ...] | None = None) -> Comparison:
    """Compare *observed* fingerprints with *baseline*. Surfaces neither side has are left out
    unless named in *surfaces*."""
    result = Comparison(baseline.name, observed.complete, observed.scope)
    current = observed.fingerprints
    for surface in SURFACES:
        if (observed.offered is not None and surface not in observed.offered) or (
            surfaces is not None and surface not in surfaces
        ):
            continue
        if surfaces is None and surface not in current and surface not in baseline.digests and surface not in baseline.absent:
            continue
        why = observed.partial.get(surface)
        # per line: in a complete sweep, a path this corpus can show is observable wherever it was
        observable = observed.observable.get(surface) if why is not None and observed.complete else None
        imported = baseline.provenance.get(surface, "")
        if (
            observed.survey is not None
            and surface in baseline.lines
            and imported.startswith("imported")
            and surface not in WHOLE_PER_FILE
        ):  # lines taken from another corpus: what the stores here never exercised says nothing
            why = f"{baseline.name} was {imported}, from another corpus than the stores swept here"
            observable = None
        if why is not None:
            result.partial[surface] = why
        complete = observed.complete and why is None
        reason = observed.not_computed.get(surface)
        if surface == VALUES and surface in current and surface in baseline.lines and current[surface].note != DIGEST_ONLY:
            found = compare_values(baseline, current[surface], set(current), complete=_value_scope(observed, complete))
        else:
            found = compare_surface(
                surface,
                baseline,
                current.get(surface),
                complete=complete,
                reason=reason,
                observable=observable,
                observed=observed,
            )
        if found.status == DRIFT and surface in baseline.synthetic:
            why = (
                f"advisory, not a failure: {baseline.name}'s {surface} lines are synthetic ({baseline.synthetic[surface]}); "
                "record a baseline from your own corpus to judge this surface"
            )
            found = replace(found, advisory=True, reason="; ".join(filter(None, (found.reason, why))))
        result.surfaces.append(replace(found, complete=complete))
    return result
