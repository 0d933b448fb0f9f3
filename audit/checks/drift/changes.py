"""The classified changes of a drift comparison, and the results that carry them.

The classes of a changed line (``CLASSES``; ``BREAKING``, ``ADVISORY_CLASSES``), one ``Change``,
a surface's ``SurfaceResult`` and a whole ``Comparison`` with its ``--fail-on`` verdict;
``diff_lines`` classifies the changes between two fingerprints' lines (pairing renames),
``diff_values`` those of the ``values`` surface.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Final, Literal, get_args

from audit.checks.values import order

ChangeClass = Literal[
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
]
"""What a changed fingerprint line is (the package docstring says what each means)."""
CLASSES: tuple[ChangeClass, ...] = get_args(ChangeClass)
BREAKING: frozenset[ChangeClass] = frozenset({"removed", "renamed", "type-changed", "widened"})
ADVISORY_CLASSES: frozenset[ChangeClass] = frozenset({"enum-number", "not-in-baseline", "transient"})
"""Changes reported as advisories, never failing (see the package docstring)."""
FAIL_ON = ("drift", "breaking", "never")
Status = Literal["NEW", "UNCHANGED", "DRIFT", "NOT COMPARABLE"]
"""A surface compared: new (not in the baseline), unchanged, drifted, or not comparable."""
NEW: Final = "NEW"
UNCHANGED: Final = "UNCHANGED"
DRIFT: Final = "DRIFT"
NOT_COMPARABLE: Final = "NOT COMPARABLE"


@dataclass(frozen=True)
class Change:
    path: str
    kind: ChangeClass
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
        old, new = members(self.old), members(self.new)
        return new - old, old - new


def members(value: str | None) -> set[str]:
    """The values of a ``|``-joined set (none: empty)."""
    return set(value.split("|")) if value else set()


@dataclass(frozen=True)
class SurfaceResult:
    surface: str
    status: Status
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
        kind: ChangeClass
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
        more, fewer = members(b) - members(a), members(a) - members(b)
        if more:
            changes.append(Change(path, "value-added", a, b))
        if fewer:
            changes.append(Change(path, "value-removed" if complete(path) else "not-observed", a, b))
    return tuple(changes)
