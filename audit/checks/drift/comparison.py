"""Comparing fingerprints with a baseline: a status per surface, its changes' advisories settled.

``compare`` compares each surface (``compare_surface``; the ``values`` surface with
``compare_values``) and gives the ``Comparison``; ``_advisories`` and ``_transient`` settle the
advisory classes (see the package docstring).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from audit.checks.baselines import Baseline
from audit.checks.drift.changes import (
    ADVISORY_CLASSES,
    DRIFT,
    NEW,
    NOT_COMPARABLE,
    UNCHANGED,
    Change,
    Comparison,
    SurfaceResult,
    diff_lines,
    diff_values,
    members,
    split_line,
)
from audit.checks.drift.observed import DIGEST_ONLY, Observed, enum_at, native_observable
from audit.checks.fingerprint import SURFACES, VALUES, Fingerprint
from audit.checks.shape import SidecarShape, digest_lines
from audit.errors import AuditError
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.store.layout import TRANSIENT_FAMILIES
from audit.strictjson import JSONError, loads

UNPAIRED = frozenset({"layout"})
"""Surfaces whose paths are not keys: one gone and one added at the same place are two changes
(a session family that vanished and another that appeared), never a rename."""
WHOLE_PER_FILE = frozenset({"sqlite"})
"""Surfaces every input file shows whole (each ``.db`` carries its entire schema): lines imported
from another corpus are as observable here as there, so their absence is a removal."""


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
            numbers = sorted((v for v in members(recorded.get(f"sidecar:{c.path}")) if _NUMBER.fullmatch(v)), key=int)
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
