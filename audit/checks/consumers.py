"""Consumer profiles: what each downstream tool reads, and whether a comparison breaks it.

A profile (``consumers/<name>.json``, schema ``consumer-profile``) lists the entries one tool
reads -- fingerprint line paths per surface (``sidecar``, ``sqlite``, ``wire``, ``transcript``, ...),
file patterns relative to a store root (``layout``: matched against the ``layout`` fingerprint's
file families of every root) or daemon answer fields (``rpc``: ``<Method>.<path>``, the ``rpc``
fingerprint's lines) -- each ``requires`` or ``optional``, with the values it ``accepts`` and a
citation of the tool's source. A ``*`` in a path matches any run of characters within one
dot-separated segment.

``judge`` reads a ``drift.Comparison`` through a profile. Per matched line:

* unchanged, or ``added`` -> ok;
* ``renamed`` to a path the entry also matches (a record type renamed, read through a ``*``) -> ok;
* ``removed`` (or ``renamed`` away) -> ``breaks``: the path is in no record now, so a consumer
  that reads it loses all it read there, optional or not; only an optional entry whose profile
  cites a ``fallback`` it reads instead is ``at risk``, and breaks when every fallback breaks too
  (``_settle_fallbacks``). Except that a line matched through a ``*`` whose whole subtree is gone
  (a record type or step type that no longer occurs), or a ``layout`` line of a root that is gone
  altogether, is unknown: the instance is absent, not the field;
* a ``layout`` family that every session had and now only some have (``file`` -> ``file|none``)
  -> ``breaks`` a consumer that requires it (it loses those sessions), ``at risk`` an optional one;
* another value (type-changed, widened, narrowed) -> ok when every value now recorded is one the
  entry accepts (``accepts``, else the baseline's values); else, when none is, ``breaks`` for a
  required entry and ``at risk`` for an optional one; when some are, ``at risk``. A changed
  declared SQLite type is at most ``at risk``: SQLite column types are affinities, and what a
  reader gets back does not follow from them;
* ``not-observed`` -> unknown (an unexercised path is no evidence of removal).

An entry with ``values`` or ``range`` is also judged on the ``values`` fingerprint
(``_judge_values``; the rules are in docs/consumers.md). A new step type of the ``.db`` that a ``skips``
filter does not take is judged by the payloads its steps carry (``_payloads_read``, ``_carried``), a fact of the
``wire`` fingerprint, where the filter's kinds each have one; a new value of a field whose records
per value the baseline and the corpus both counted is traced to the values whose share it took
(``_moved``): a filter breaks only when records it took moved.

A profile's ``scope`` names the only roots the consumer reads: its ``layout`` entries match those
roots' lines, and its value filters are judged on the records of their products (``_narrowed``:
the records per value the baseline and the corpus counted per product, ``counts.valuesByProduct``).
An entry's ``only`` or ``except`` names the record types its transcript ``source`` or ``status``
filter is applied to, or is not (the consumer takes the others by their type): it is judged on the
records of those types (counted per type). A profile's ``prefers`` names a conversation file family
the consumer reads a session from in place of another where the session has it: when in every root
read every session with the other has it too (``layout`` ``file``), a loss on the other's surfaces
is only ``at risk`` (``_preferred``).

An entry no fingerprint can show is unknown too, with the reason: ``layout`` entries naming no
file family the ``layout`` fingerprint records (artifacts, per-install files), ``rpc`` entries of
a call no sweep keeps the answers of (``audit.store.daemon.KEPT_CALLS``), a sidecar path below an
opaque path (``audit.checks.shape.OPAQUE_PATHS``) or in the reader-owned ``agyReader`` block, a
transcript path below ``tool_calls.[].args``, a wire path below a field the .proto does not know
(not parsed into), a surface not compared or recorded by digest only.

The consumer's verdict is the worst of its entries: ``breaks`` > ``at risk`` > ``ok``; when no
entry could be judged, ``not comparable``. Unknown entries are counted and listed, never failing.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks import schemas
from audit.checks.baselines import Baseline
from audit.checks.drift import (
    FAIL_ON,
    NEW,
    NOT_COMPARABLE,
    UNCHANGED,
    Change,
    Comparison,
    Observed,
    SurfaceResult,
    enum_at,
    split_line,
)
from audit.checks.fingerprint import BLOB_MESSAGES, SURFACES, VALUES
from audit.checks.shape import OPAQUE_PATHS, READER_KEY, TRANSCRIPT_OPAQUE
from audit.checks.values import MORE, OTHER, order
from audit.errors import InputError, UsageError
from audit.findings import Level
from audit.resources import data_path
from audit.safeio import FILE, is_dir, path_kind, read_json
from audit.store import layout
from audit.store.daemon import KEPT_CALLS
from audit.store.proto import cortex_pb2 as pb
from audit.store.trajectory import STEP_TYPE_NAMES

SCHEMA = "consumer-profile"
REQUIRES, OPTIONAL = "requires", "optional"
BREAKS_ON_OTHER, DROPS_OTHER, SKIPS_OTHER = "breaks", "drops", "skips"
OK, AT_RISK, BREAKS, UNKNOWN = "ok", "at risk", "breaks", "unknown"
NOT_COMPARABLE_VERDICT = "not comparable"
VERDICTS = (OK, AT_RISK, BREAKS, NOT_COMPARABLE_VERDICT)
_RANK = {UNKNOWN: 0, OK: 1, AT_RISK: 2, BREAKS: 3}
CONSUMER_PREFIX = "consumer:"


@dataclass(frozen=True)
class Entry:
    surface: str
    path: str
    mode: str  # REQUIRES or OPTIONAL
    cite: str
    why: str
    accepts: tuple[str, ...] | None = None
    observed: bool = True
    values: tuple[str, ...] | None = None  # the values it acts on (or range)
    range: tuple[int, int] | None = None  # lo <= v < hi
    other: str | None = None  # what it does with any other value: breaks, drops, skips
    fallback: tuple[str, ...] = ()  # labels of the entries it reads instead when this path is gone everywhere
    only: tuple[str, ...] = ()  # the record types its filter is applied to (it takes no other type), or
    excepts: tuple[str, ...] = ()  # the record types its filter is not applied to (it takes them by type)

    @property
    def label(self) -> str:
        return f"{self.surface} {self.path or '(root)'}"

    @property
    def selects(self) -> str | None:
        """The values it acts on, in words (``type in {15}``, ``model in [1000, 5000)``), or None."""
        name = self.path.rsplit(".", 1)[-1] or self.path
        if self.values is not None:
            return f"{name} in {{{', '.join(self.values)}}}"
        if self.range is not None:
            return f"{name} in [{self.range[0]}, {self.range[1]})"
        return None

    @property
    def by_type(self) -> str | None:
        """The record types its filter is applied to, in words, when the profile names them (``only``,
        ``except``), else None."""
        if self.only:
            return f"of types {', '.join(self.only)} (the only types it takes)"
        return f"of types other than {', '.join(self.excepts)} (it takes those by type)" if self.excepts else None

    def filters(self, kind: str) -> bool:
        """Whether its filter is applied to the records of type *kind*."""
        return kind in self.only if self.only else kind not in self.excepts

    def takes(self, value: str) -> bool:
        """Whether *value* (as the values fingerprint records it) is one the entry acts on."""
        if self.values is not None:
            return value in self.values
        if self.range is not None:
            number = value.lstrip("-")
            return number.isdigit() and self.range[0] <= int(value) < self.range[1]
        return True


@dataclass(frozen=True)
class Scope:
    """The store roots a consumer reads (``scope``), and where its code says so."""

    roots: tuple[str, ...]
    cite: str
    why: str

    @property
    def products(self) -> frozenset[str]:
        """The products of its roots (``cli``, ``ide``, ``acp``): records are counted per product."""
        return frozenset(layout.ROOT_PRODUCTS[r] for r in self.roots)


@dataclass(frozen=True)
class Preference:
    """A file family a consumer reads a session from when the session has it (``family``), in
    place of another (``over``), read only for a session without it (``prefers``)."""

    family: str
    over: str
    cite: str
    why: str


@dataclass(frozen=True)
class Profile:
    name: str
    repository: str
    version: str
    describes: str
    entries: tuple[Entry, ...]
    path: Path | None = None
    bundled: bool = False
    scope: Scope | None = None
    prefers: tuple[Preference, ...] = ()


# ----------------------------------------------------------------------------- loading


def bundled_dir() -> Path:
    return data_path("consumers")


def from_document(doc: object, source: str) -> Profile:
    """A profile from its parsed JSON; ``InputError`` naming *source* and the first violation."""
    findings = [f for f in schemas.load(SCHEMA).check(doc) if f.level == Level.ERROR]
    if findings:
        first = findings[0]
        more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
        raise InputError(f"{source}: not a consumer profile: {first.pointer or '/'}: {first.message}{more}")
    assert isinstance(doc, dict)
    entries = tuple(
        Entry(
            e["surface"],
            e["path"],
            e["mode"],
            e["cite"],
            e["why"],
            tuple(e["accepts"]) if "accepts" in e else None,
            e.get("observed", True),
            tuple(e["values"]) if "values" in e else None,
            (e["range"][0], e["range"][1]) if "range" in e else None,
            e.get("other"),
            tuple(e.get("fallback", ())),
            tuple(e.get("only", ())),
            tuple(e.get("except", ())),
        )
        for e in doc["entries"]
    )
    labels = {e.label for e in entries}
    for i, entry in enumerate(entries):
        for label in entry.fallback:
            if label not in labels or label == entry.label:
                raise InputError(
                    f"{source}: not a consumer profile: /entries/{i}/fallback: {label!r} names no other entry of the profile"
                )
    scope = doc.get("scope")
    return Profile(
        doc["name"],
        doc["repository"],
        doc["version"],
        doc["describes"],
        entries,
        scope=None if scope is None else Scope(tuple(scope["roots"]), scope["cite"], scope["why"]),
        prefers=tuple(Preference(p["family"], p["over"], p["cite"], p["why"]) for p in doc.get("prefers", ())),
    )


def load(path: str | os.PathLike[str], *, bundled: bool = False) -> Profile:
    profile = from_document(read_json(path), str(path))
    return Profile(**{**profile.__dict__, "path": Path(path), "bundled": bundled})


def bundled() -> list[Profile]:
    """The bundled profiles, by name."""
    directory = bundled_dir()
    found = [load(p, bundled=True) for p in sorted(directory.glob("*.json"))] if is_dir(directory) else []
    return sorted(found, key=lambda p: p.name)


def resolve(specs: Sequence[str] | None) -> list[Profile]:
    """Profiles by bundled name or file path (default: every bundled one); a name given twice is
    used once; two profiles with one name are a usage error."""
    if not specs:
        return bundled()
    known = {p.name: p for p in bundled()}
    chosen: dict[str, Profile] = {}
    for spec in specs:
        if spec in known:
            profile = known[spec]
        elif os.path.isfile(spec):
            profile = load(spec)
        else:
            names = ", ".join(known) or "none"
            raise UsageError(f"{spec}: no such consumer profile (a file, or one of the bundled: {names})")
        other = chosen.get(profile.name)
        if other is not None and other.path != profile.path:
            raise UsageError(f"{spec}: a second profile named {profile.name!r} (the first is {other.path})")
        chosen[profile.name] = profile
    return list(chosen.values())


# ----------------------------------------------------------------------------- --fail-on


@dataclass(frozen=True)
class FailOn:
    """``--fail-on`` values: a drift rule (``drift``, ``breaking``, ``never``) and consumers
    whose ``breaks`` fails the run."""

    drift: str = "drift"
    consumers: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        parts = [] if self.consumers and self.drift == "never" else [self.drift]
        return ", ".join(parts + [CONSUMER_PREFIX + n for n in self.consumers])

    def can_fail(self, name: str) -> bool:
        """Whether consumer *name* breaking fails the run: under ``drift`` and ``breaking``, and when named."""
        return name in self.consumers or self.drift in ("drift", "breaking")

    def consumer_fails(self, result: ConsumerResult) -> bool:
        return result.verdict == BREAKS and self.can_fail(result.profile.name)


def is_fail_on(value: object) -> bool:
    """Whether *value* is one ``--fail-on`` value: a drift rule, or ``consumer:NAME``."""
    return value in FAIL_ON or (
        isinstance(value, str) and value.startswith(CONSUMER_PREFIX) and len(value) > len(CONSUMER_PREFIX)
    )


def parse_fail_on(values: str | Sequence[str] | None) -> FailOn:
    """``--fail-on`` values (repeatable); consumers named alone fail nothing else (drift ``never``)."""
    if values is None or isinstance(values, str):
        values = [values or "drift"]
    modes = [v for v in values if not v.startswith(CONSUMER_PREFIX)]
    names = tuple(dict.fromkeys(v[len(CONSUMER_PREFIX) :] for v in values if v.startswith(CONSUMER_PREFIX)))
    for mode in modes:
        if mode not in FAIL_ON:
            raise UsageError(f"--fail-on {mode}: must be one of {', '.join(FAIL_ON)} or consumer:NAME")
    if len(set(modes)) > 1:
        raise UsageError(f"--fail-on: {' and '.join(dict.fromkeys(modes))} contradict each other; give one")
    if any(not n for n in names):
        raise UsageError("--fail-on consumer:NAME needs a consumer name")
    return FailOn(modes[0] if modes else ("never" if names else "drift"), names)


def check_fail_on(fail_on: FailOn, profiles: Iterable[Profile]) -> None:
    """Every consumer named by ``--fail-on consumer:NAME`` is among *profiles*."""
    names = {p.name for p in profiles}
    for name in fail_on.consumers:
        if name not in names:
            raise UsageError(
                f"--fail-on consumer:{name}: not among the consumers compared ({', '.join(sorted(names)) or 'none'})"
            )


# ----------------------------------------------------------------------------- judging


@dataclass(frozen=True)
class Decision:
    entry: Entry
    effect: str  # OK, AT_RISK, BREAKS, UNKNOWN
    reason: str
    path: str | None = None  # the fingerprint line path matched
    change: Change | None = None  # the changed line that decided, if any


@dataclass(frozen=True)
class SurfaceVerdict:
    """One consumer on one surface it reads: the worst effect of its entries there (``unknown``
    when none could be judged), its entries per effect, and the decisions of that effect (for
    ``unknown``, the first reason of each entry, as ``ConsumerResult.unknown``)."""

    effect: str
    counts: Counter[str]
    why: tuple[Decision, ...]


@dataclass
class ConsumerResult:
    profile: Profile
    verdict: str
    decisions: list[Decision] = field(default_factory=list)

    @property
    def deciding(self) -> list[Decision]:
        """The decisions that make the verdict (breaks or at risk), in entry order."""
        if self.verdict not in (BREAKS, AT_RISK):
            return []
        return [d for d in self.decisions if d.effect == self.verdict]

    def entry_effects(self) -> dict[Entry, str]:
        """Each entry's effect: the worst of its decisions."""
        effects: dict[Entry, str] = {}
        for d in self.decisions:
            if _RANK[d.effect] >= _RANK[effects.get(d.entry, UNKNOWN)]:
                effects[d.entry] = d.effect
        return effects

    def counts(self) -> Counter[str]:
        """Entries per effect (ok, at risk, breaks, unknown)."""
        return Counter(self.entry_effects().values())

    @property
    def unknown(self) -> list[Decision]:
        """One decision per entry that could not be judged (the first reason)."""
        effects = self.entry_effects()
        seen: set[Entry] = set()
        out = []
        for d in self.decisions:
            if effects[d.entry] == UNKNOWN and d.entry not in seen:
                seen.add(d.entry)
                out.append(d)
        return out

    def by_surface(self) -> dict[str, SurfaceVerdict]:
        """The verdict on each surface the profile reads, in the order of its entries."""
        effects = self.entry_effects()
        out = {}
        for surface in dict.fromkeys(e.surface for e in self.profile.entries):
            counts = Counter(effects.get(e, UNKNOWN) for e in self.profile.entries if e.surface == surface)
            worst = max(counts, key=_RANK.__getitem__)
            pool = self.unknown if worst == UNKNOWN else self.decisions
            out[surface] = SurfaceVerdict(
                worst, counts, tuple(d for d in pool if d.entry.surface == surface and d.effect == worst)
            )
        return out


def pattern(path: str, surface: str | None = None, roots: Iterable[str] | None = None) -> re.Pattern[str]:
    """A profile path as a regular expression: ``*`` matches within one ``.``-separated segment;
    a ``layout`` file pattern matches its family's line in any root (``<root>/<pattern>``), or in
    one of *roots* when given, ``*`` within one ``/``-separated segment."""
    if surface == "layout":
        root = "[^/]+" if roots is None else "(?:" + "|".join(map(re.escape, roots)) + ")"
        return re.compile(root + "/" + "[^/]*".join(map(re.escape, path.split("*"))))
    return re.compile("[^.]*".join(map(re.escape, path.split("*"))))


def unfingerprinted(entry: Entry) -> str | None:
    """Why no fingerprint line can show *entry*, or None when one can."""
    if entry.surface not in SURFACES or not SURFACES[entry.surface].profiled:
        return f"no fingerprint covers the {entry.surface} surface"
    path = entry.path
    if entry.surface == "layout":
        match = pattern(path, "layout").fullmatch
        if not any(match(f"root/{family}") for family in layout.LAYOUT_FAMILIES):
            return (
                "the layout fingerprint records conversation files and transcript families only "
                "(`consumers check` looks for the files)"
            )
    elif entry.surface == "sidecar":
        if path == READER_KEY or path.startswith(READER_KEY + "."):
            return f"the reader-owned {READER_KEY} block is left out of the sidecar fingerprint"
        for opaque in sorted(OPAQUE_PATHS):
            if path.startswith(opaque + "."):
                return f"below {opaque}, which the sidecar fingerprint records as opaque"
    elif entry.surface == "transcript":  # <tier>.<type>.<rest>
        rest = path.split(".", 2)[2] if path.count(".") >= 2 else ""
        for opaque in sorted(TRANSCRIPT_OPAQUE):
            if rest.startswith(opaque + "."):
                return f"below {opaque}, which the transcript fingerprint records as opaque"
    elif entry.surface == "rpc":
        method = path.split(".", 1)[0]
        if method not in KEPT_CALLS:
            return f"no sweep keeps the daemon's {method} answers (only {', '.join(KEPT_CALLS)})"
    elif entry.surface == "wire":
        segments = path.split(".")
        for i, segment in enumerate(segments[:-1]):
            if segment.isdigit():
                return f"below field {'.'.join(segments[: i + 1])}, which the .proto does not know (not parsed into)"
    return None


def _values(value: str | None) -> set[str]:
    return set(value.split("|")) if value else set()


def _gone(entry: Entry, path: str, current: dict[str, str]) -> str | None:
    """For a path matched through a ``*``: the bound prefix when nothing below it remains."""
    if "*" not in entry.path:
        return None
    segments = entry.path.split(".")
    first = next(i for i, s in enumerate(segments) if "*" in s)
    prefix = ".".join(path.split(".")[: first + 1])
    if prefix in current or any(p.startswith(prefix + ".") for p in current):
        return None
    return prefix


def _lost(entry: Entry, what: str) -> tuple[str, str]:
    """A path gone from every record (removed, renamed): a consumer that requires it breaks; one
    that reads it optionally loses all it read there and breaks too, unless the profile cites a
    fallback it reads instead (then at risk, until ``judge`` finds every fallback broken)."""
    if entry.mode == REQUIRES:
        return BREAKS, what
    if entry.fallback:
        return AT_RISK, f"{what}; it falls back to {', '.join(entry.fallback)}"
    return BREAKS, f"{what}: in no record now, so it loses what it read there (optional, and no fallback cited)"


def _root_gone(path: str, current: dict[str, str]) -> str | None:
    """For a ``layout`` line: its root when no family of it remains (a root that moved is the
    ``roots`` surface's to judge, not a family's absence)."""
    root = path.split("/", 1)[0]
    return None if any(p.startswith(root + "/") for p in current) else f"root {root}"


def _classify(entry: Entry, surface: str, change: Change, current: dict[str, str], path: str) -> tuple[str, str]:
    required = entry.mode == REQUIRES
    if change.kind == "not-observed":
        return UNKNOWN, "not observed in this corpus (no evidence of removal)"
    if change.kind in ("added", "not-in-baseline"):
        return OK, change.kind
    if change.kind == "renamed":
        if path == change.path:
            return OK, f"renamed from {change.was}"
        if pattern(entry.path, surface).fullmatch(change.path):  # a record type renamed under a "*" it reads
            return OK, f"renamed to {change.path}, which it reads too"
        return _lost(entry, f"renamed to {change.path}")
    if change.new is None:  # removed
        gone = _root_gone(change.path, current) if surface == "layout" else _gone(entry, change.path, current)
        if gone is not None:
            return UNKNOWN, f"nothing of {gone} remains (the instance is absent, not the field)"
        return _lost(entry, "removed")
    if surface == "layout" and _values(change.new) - _values(change.old) == {"none"}:
        lacking = "some sessions lack it now"
        return (BREAKS, f"{lacking}: it loses them") if required else (AT_RISK, f"{lacking} (it reads it where present)")
    accepted = set(entry.accepts) if entry.accepts is not None else _values(change.old)
    now = _values(change.new)
    unreadable, readable = now - accepted, now & accepted
    shown = "|".join(sorted(accepted))
    if not unreadable:
        return OK, f"{change.kind}; every value now recorded is one it accepts ({shown})"
    if surface == "sqlite":
        return AT_RISK, f"{change.kind}: the declared type changed (SQLite types are affinities: not proof of a break)"
    if not readable:
        return (BREAKS if required else AT_RISK), f"{change.kind}: no longer a value it accepts ({shown})"
    return AT_RISK, f"{change.kind}: also {'|'.join(sorted(unreadable))}, which it does not accept ({shown})"


def _judge_entry(
    entry: Entry, result: SurfaceResult | None, baseline: Baseline, observed: Observed, ctx: _Context
) -> list[Decision]:
    why = unfingerprinted(entry)
    if why is not None:
        return [Decision(entry, UNKNOWN, why)]
    surface = entry.surface
    if result is None:
        return [Decision(entry, UNKNOWN, f"the {surface} surface was not compared")]
    if result.status == NEW:
        return [Decision(entry, UNKNOWN, result.reason or f"the baseline does not record the {surface} surface")]
    fp = observed.fingerprints.get(surface)
    before = dict(map(split_line, baseline.lines.get(surface, ())))
    if result.status == UNCHANGED:
        if surface not in baseline.lines:
            return [Decision(entry, OK, "the surface is unchanged (same digest as the baseline)")]
        current = before
    elif not result.classified or fp is None or (result.status == NOT_COMPARABLE and not result.changes):
        return [Decision(entry, UNKNOWN, result.reason or "not comparable")]
    else:
        current = dict(map(split_line, fp.lines))
    match = pattern(entry.path, entry.surface, ctx.roots).fullmatch
    paths = sorted(p for p in before.keys() | current.keys() if match(p))
    if not paths:
        return [Decision(entry, UNKNOWN, "in neither the baseline nor the corpus")]
    changes = {c.path: c for c in result.changes} | {c.was: c for c in result.changes if c.was is not None}
    out = []
    for path in paths:
        change = changes.get(path)
        if change is None:
            out.append(Decision(entry, OK, "unchanged", path))
        else:
            effect, reason = _classify(entry, surface, change, current, path)
            out.append(Decision(entry, effect, reason, path, change))
    return out


_TRANSCRIPT_ENUMS = {  # transcript key -> (its enum, the prefix the transcript leaves out)
    "type": (pb.CortexStepType.DESCRIPTOR, "CORTEX_STEP_TYPE_"),
    "source": (pb.CortexStepSource.DESCRIPTOR, "CORTEX_STEP_SOURCE_"),
    "status": (pb.CortexStepStatus.DESCRIPTOR, "CORTEX_STEP_STATUS_"),
}
_COLUMN_ENUMS = {"table:steps.step_type": pb.CortexStepType.DESCRIPTOR, "table:steps.status": pb.CortexStepStatus.DESCRIPTOR}


def _wire_enum(path: str) -> Any:
    """The enum of a ``wire`` fingerprint path (``gen_metadata.data.chat_model.model``), walking the
    message ``BLOB_MESSAGES`` gives its blob column, or None."""
    table, column, *rest = path.split(".")
    message: Any = BLOB_MESSAGES.get((table, column.partition("[")[0]))
    fd = None
    for part in rest:
        fd = message.fields_by_name.get(part) if message is not None else None
        if fd is None:
            return None
        message = fd.message_type
    return fd.enum_type if fd is not None else None


def _enum_of(key: str) -> Any:
    """The enum of the field *key* (``<surface>:<path>`` of the values fingerprint), or None."""
    surface, _, path = key.partition(":")
    if surface == "sqlite":
        return _COLUMN_ENUMS.get(path)
    if surface == "transcript":
        known = _TRANSCRIPT_ENUMS.get(path.rsplit(".", 1)[-1])
        return None if known is None else known[0]
    return enum_at(path) if surface == "sidecar" else _wire_enum(path) if surface == "wire" else None


def named(key: str, value: str) -> bool | None:
    """Whether ``cortex.proto`` names *value* of the field *key* (``<surface>:<path>`` of the values
    fingerprint): True, False, or None when there is no enum to ask (a tool name, a field it does
    not declare)."""
    if value in (OTHER, MORE):
        return False
    enum = _enum_of(key)
    if enum is None:
        return None
    number = value.lstrip("-").isdigit()
    if key.startswith("sqlite:"):
        return number and int(value) in enum.values_by_number
    if key.startswith("transcript:"):
        return f"{_TRANSCRIPT_ENUMS[key.rsplit('.', 1)[-1]][1]}{value}" in enum.values_by_name
    return int(value) in enum.values_by_number if number else value in enum.values_by_name


_PAYLOADS = frozenset(fd.name for fd in pb.Step.DESCRIPTOR.oneofs_by_name["step"].fields)
"""The fields of a Step's payload (its oneof ``step``), each named as its step type is
(``planner_response`` for ``CORTEX_STEP_TYPE_PLANNER_RESPONSE``)."""
_STEP_TYPE_PREFIX = "CORTEX_STEP_TYPE_"


def _payload_of(value: str) -> str | None:
    """The payload field of the steps of type *value* (a number, or a name with or without its
    prefix, as a filter writes it), or None when ``cortex.proto`` has none for it."""
    if value.lstrip("-").isdigit():
        value = STEP_TYPE_NAMES.get(int(value), "")
    field = value.removeprefix(_STEP_TYPE_PREFIX).lower()
    return field if field in _PAYLOADS else None


def _carried(observed: Observed, value: str) -> set[str]:
    """The payload fields the steps of type *value* carry in the corpus's ``.db`` files (their
    ``wire`` fingerprint lines, scope ``steps.step_payload[<value>]``); empty when not observed."""
    fp = observed.fingerprints.get("wire")
    if fp is None:
        return set()
    prefix = f"steps.step_payload[{value}]."
    return {line[len(prefix) :].split(".", 1)[0].split("\t", 1)[0] for line in fp.lines if line.startswith(prefix)} & _PAYLOADS


def _value_sets(lines: Iterable[str], match: Callable[[str], object]) -> dict[str, set[str]]:
    return {key: set(values.split("|")) for key, values in map(split_line, lines) if match(key)}


def _judge_values(
    entry: Entry, result: SurfaceResult | None, baseline: Baseline, observed: Observed, ctx: _Context
) -> list[Decision]:
    """What the values recorded now at the entry's path mean for a consumer that acts only on
    ``entry.values`` / ``entry.range`` and ``entry.other``s the rest (see the module docstring)."""
    fp = observed.fingerprints.get(VALUES)
    if fp is None:
        why = observed.not_computed.get(VALUES, "not computed")
        return [Decision(entry, UNKNOWN, f"no values recorded ({why})")]
    match = pattern(f"{entry.surface}:{entry.path}").fullmatch
    now = _value_sets(fp.lines, match)
    recorded = VALUES in baseline.lines and entry.surface in baseline.digests
    before = _value_sets(baseline.lines.get(VALUES, ()), match) if recorded else {}
    judged = recorded and VALUES not in baseline.synthetic and not (result is not None and result.surface in baseline.synthetic)
    # records per value, before and now, of each field both sides counted: those of the products and
    # record types the filter reads where both counted them so (then its values are those records')
    counted: dict[str, tuple[Mapping[str, int] | None, Mapping[str, int] | None]] = {}
    where: dict[str, str] = {}  # field -> the records it was judged on, when narrowed
    for key in sorted(now.keys() | before.keys()) if recorded else ():
        narrowed = _narrowed(entry, key, baseline, observed, ctx)
        if narrowed is None:
            counted[key] = (baseline.value_counts.get(key), observed.value_counts.get(key))
            continue
        counted[key], where[key.partition(":")[2]] = narrowed[:2], narrowed[2]
        for sets, records in zip((before, now), narrowed[:2]):
            sets.pop(key, None)
            if held := {v for v, n in records.items() if n}:
                sets[key] = held
    selects, other = entry.selects, entry.other
    # a field the baseline held values of and no record holds now (a complete corpus): the filter takes nothing
    out = [_vanished(entry, key, judged, baseline) for key in sorted(before.keys() - now.keys()) if result and result.complete]
    if not now and not out:
        return [Decision(entry, UNKNOWN, f"no value of {entry.path} recorded in this corpus")]
    for key in sorted(now):
        field = key.partition(":")[2]
        outside = sorted((v for v in now[key] if not entry.takes(v)), key=order)
        if not outside:
            out.append(Decision(entry, OK, f"every value now recorded is one it acts on ({selects})", field))
            continue
        if MORE in outside:
            out.append(
                Decision(entry, AT_RISK, f"more values than are recorded: cannot tell which fall outside {selects}", field)
            )
            continue
        new = [v for v in outside if v not in before.get(key, ())] if recorded else []
        standing = [v for v in outside if v not in new]
        shown = ", ".join(outside)
        if other == BREAKS_ON_OTHER:
            out.append(Decision(entry, BREAKS, f"holds {shown}, outside {selects}: it fails on any other value", field))
            continue
        if standing:
            also = f"also in {baseline.name}" if recorded else f"{baseline.name} records no values of {entry.surface}"
            if other == DROPS_OTHER:
                out.append(
                    Decision(
                        entry, AT_RISK, f"already drops the records with {', '.join(standing)} (outside {selects}; {also})", field
                    )
                )
            else:
                out.append(Decision(entry, OK, f"{', '.join(standing)} outside {selects}: kinds it never read ({also})", field))
        read = _payloads_read(entry, key) if other == SKIPS_OTHER else set()
        moved = _moved(entry, new, *counted[key]) if recorded and other != BREAKS_ON_OTHER else None
        for value in new:
            unnamed = named(key, value) is not True
            carried = _carried(observed, value) if read and unnamed else set()
            if carried:
                if not carried & read:
                    out.append(
                        Decision(
                            entry,
                            OK,
                            f"new step type {value}, which agy-audit cannot name, carries {', '.join(sorted(carried))} "
                            f"payloads: not a kind its filter {selects} reads",
                            field,
                        )
                    )
                    continue
                loss = (
                    f"new step type {value}, which agy-audit cannot name, carries {', '.join(sorted(carried & read))} "
                    f"payloads, the kind its filter {selects} reads: those records moved outside it, and it skips them silently"
                )
                out.append(_new_loss(entry, loss, field, judged, baseline))
                continue
            if moved is not None:
                inside, shown_moves = moved
                if not inside:
                    out.append(
                        Decision(
                            entry, OK, f"new value {value}: its records left {shown_moves}, outside its filter {selects}", field
                        )
                    )
                    continue
                loss = f"new value {value}: records it took left {shown_moves} for it, outside its filter {selects}"
                out.append(_new_loss(entry, loss, field, judged, baseline))
                continue
            if other == SKIPS_OTHER and not unnamed:
                out.append(
                    Decision(
                        entry,
                        OK,
                        f"new value {value}, a kind cortex.proto names, is outside {selects}: not read by design",
                        field,
                    )
                )
                continue
            if other == DROPS_OTHER:
                loss = f"new value {value} is outside {selects}: its records are dropped silently"
            else:
                loss = (
                    f"new value {value}, which agy-audit cannot name, is outside its filter {selects}: "
                    "records it read may have moved there, and it skips them silently"
                )
            out.append(_new_loss(entry, loss, field, judged, baseline))
    return [
        d if d.path not in where else Decision(d.entry, d.effect, f"{d.reason} ({where[d.path]})", d.path, d.change) for d in out
    ]


def _narrowed(
    entry: Entry, key: str, baseline: Baseline, observed: Observed, ctx: _Context
) -> tuple[Counter[str], Counter[str], str] | None:
    """The records per value of field *key* before and now that *entry*'s filter reads: those of
    the products of the roots the profile reads, of the record types the filter is applied to
    (``Entry.filters``), with what they are in words; where the baseline or the corpus did not
    count them so, the next narrowest both counted (by product, or by type); None when only all
    records were counted, or nothing narrows."""
    typed = entry if entry.by_type is not None else None
    for products, by_type in dict.fromkeys(((ctx.products, typed), (ctx.products, None), (None, typed))):
        if products is None and by_type is None:
            continue
        then = _records(key, baseline.value_counts, baseline.product_counts, products, by_type)
        current = _records(key, observed.value_counts, observed.product_counts, products, by_type)
        if then is not None and current is not None:
            whose = f"{'/'.join(sorted(products))}'s records" if products is not None else "the records"
            return then, current, f"judged on {whose}" + (f" {entry.by_type}" if by_type is not None else "")
    return None


def _records(
    key: str,
    counts: Mapping[str, Mapping[str, int]],
    by_product: Mapping[str, Mapping[str, Mapping[str, int]]],
    products: frozenset[str] | None,
    by_type: Entry | None,
) -> Counter[str] | None:
    """Records per value of field *key* in *counts*, or in the *products* of *by_product* when
    given, of the record types *by_type*'s filter is applied to, when given (transcript ``source``
    and ``status``, counted per type: ``transcript:<tier>.<TYPE>.<key>``); None when they were not
    counted so (no counts per product; a record not counted per type)."""
    if products is not None and not by_product:
        return None
    sources = [counts] if products is None else [by_product.get(p, {}) for p in sorted(products)]
    total: Counter[str] = Counter()
    if by_type is None:
        for each in sources:
            total.update(each.get(key, {}))
        return total
    tier, _, name = key.removeprefix("transcript:").rpartition(".")
    if not key.startswith("transcript:") or not tier or "." in tier:
        return None
    prefix, suffix = f"transcript:{tier}.", f".{name}"
    for each in sources:
        per_type = 0
        for counted_key, counted in each.items():
            kind = (
                counted_key[len(prefix) : -len(suffix)] if counted_key.startswith(prefix) and counted_key.endswith(suffix) else ""
            )
            if kind and "." not in kind:
                per_type += sum(counted.values())
                if by_type.filters(kind):
                    total.update(counted)
        if per_type != sum(each.get(key, {}).values()):  # some records were not counted per type
            return None
    return total


def _vanished(entry: Entry, key: str, judged: bool, baseline: Baseline) -> Decision:
    """A filtered field that no record holds now (moved or renamed): what the filter took went with
    it (``_lost``); against synthetic values only a risk."""
    field = key.partition(":")[2]
    effect, reason = _lost(entry, f"{field} is in no record now: what it took by {entry.selects} went with it")
    if effect == BREAKS and not judged:
        return Decision(entry, AT_RISK, f"{reason}; {baseline.name}'s values are synthetic: record your own baseline", field)
    return Decision(entry, effect, reason, field)


def _moved(
    entry: Entry, new: list[str], before: Mapping[str, int] | None, now: Mapping[str, int] | None
) -> tuple[bool, str] | None:
    """Where the records of the *new* values of a field came from, by the records per value
    the baseline and the corpus counted (*before*, *now*: ``counts.values``, or those the filter
    reads, ``_narrowed``): (whether a value the entry takes lost its share, the values that did,
    in words) -- when taken values lost share, or when values outside the entry's filter lost at
    least the share the new values hold; else None (the counts do not tell: none recorded, or
    records that are new rather than moved)."""
    if not before or not now:
        return None
    b, a = sum(before.values()), sum(now.values())
    fell = {v: n for v, n in before.items() if now.get(v, 0) * b < n * a}  # share now < share then

    def shown(values: list[str]) -> str:
        return ", ".join(f"{v} ({before[v] / b:.0%} of the records, now {now.get(v, 0) / a:.0%})" for v in values)

    taken = sorted((v for v in fell if entry.takes(v)), key=order)
    if taken:
        return True, shown(taken)
    left = sum(n * a - now.get(v, 0) * b for v, n in fell.items())  # the share they lost, times a * b
    if fell and left >= sum(now.get(v, 0) for v in new) * b:
        return False, shown(sorted(fell, key=order))
    return None


def _new_loss(entry: Entry, loss: str, field: str, judged: bool, baseline: Baseline) -> Decision:
    """A loss a new value brings: ``breaks`` against recorded values, ``at risk`` against synthetic ones."""
    if judged:
        return Decision(entry, BREAKS, f"{loss} (not in {baseline.name})", field)
    why = f"{baseline.name}'s values are synthetic: record your own baseline to tell new values from old"
    return Decision(entry, AT_RISK, f"{loss}; {why}", field)


def _payloads_read(entry: Entry, key: str) -> set[str]:
    """For a step-type field of the ``.db`` (the ``steps.step_type`` column, a sidecar's or a blob's
    step type) filtered by values that each have a payload, the payload fields of the filter's
    values; else empty (another field, a filter value without a payload). A new step type's
    records then went where its steps' payloads say (``_carried``): a fact, not a guess."""
    read = {_payload_of(v) for v in entry.values or ()}
    enum = None if key.startswith("transcript:") else _enum_of(key)  # a transcript's records have no payload
    if enum is None or enum.full_name != pb.CortexStepType.DESCRIPTOR.full_name or None in read:
        return set()
    return read  # type: ignore[return-value]  # None is not in it


@dataclass(frozen=True)
class _Context:
    """What judging one profile's entries takes besides the comparison: the roots it reads (None:
    every root) and their products, and per surface why a loss there is only a risk (its source
    is one the consumer reads only for a session without the source it prefers, and every session
    has that one: ``_preferred``)."""

    roots: frozenset[str] | None
    products: frozenset[str] | None
    preferred: dict[str, str]


PREFERABLE = {"conversations/*.db": ("sqlite", "wire"), "conversations/*.trajectory.json": ("sidecar",)}
"""The file families a ``prefers`` entry names, with the surfaces that fingerprint their content:
the conversation files, which the ``layout`` fingerprint counts among the same sessions."""


def _context(profile: Profile, observed: Observed) -> _Context:
    scope = profile.scope
    roots = None if scope is None else frozenset(scope.roots)
    return _Context(roots, None if scope is None else scope.products, _preferred(profile, observed, roots))


def _preferred(profile: Profile, observed: Observed, roots: frozenset[str] | None) -> dict[str, str]:
    """Per surface of a family *profile* prefers another to: why its losses are only a risk, when
    in every root read whose sessions have that family every session has the preferred one too
    (``layout``: ``file``); nothing when some lack it (those are read from it) or the layout is
    unknown."""
    fp = observed.fingerprints.get("layout")
    forms = dict(map(split_line, fp.lines)) if fp is not None else {}
    out: dict[str, str] = {}
    for preference in profile.prefers:
        holding = sorted(
            {
                root
                for root, _, family in (line.partition("/") for line in forms)
                if family == preference.over and (roots is None or root in roots)
            }
        )
        if holding and all(forms.get(f"{root}/{preference.family}") == "file" for root in holding):
            why = (
                f"it prefers {preference.family}, which every session of {', '.join(holding)} has (layout: file): "
                f"it reads {preference.over} only for a session whose {preference.family} it does not take"
            )
            out.update(dict.fromkeys(PREFERABLE[preference.over], why))
    return out


def _judge(
    entry: Entry, results: dict[str, SurfaceResult], baseline: Baseline, observed: Observed, ctx: _Context
) -> list[Decision]:
    decisions = _judge_entry(entry, results.get(entry.surface), baseline, observed, ctx)
    if entry.surface in baseline.synthetic:  # no fact says agy wrote those lines: a loss against them is only a risk
        decisions = _at_most_risk(
            decisions, f"{baseline.name}'s {entry.surface} lines are synthetic: record your own baseline to judge"
        )
    if entry.other is not None:
        paths = [d for d in decisions if d.path is not None]  # a value path (compact.type) need not be a line of its surface
        decisions = paths + _judge_values(entry, results.get(entry.surface), baseline, observed, ctx)
    if entry.surface in ctx.preferred:
        decisions = _at_most_risk(decisions, ctx.preferred[entry.surface])
    return decisions


def _at_most_risk(decisions: list[Decision], why: str) -> list[Decision]:
    """*decisions* with each ``breaks`` made ``at risk``, *why* added to its reason."""
    return [Decision(d.entry, AT_RISK, f"{d.reason}; {why}", d.path, d.change) if d.effect == BREAKS else d for d in decisions]


def _fallen_back(decision: Decision) -> bool:
    """Whether *decision* is an optional entry's loss that its fallbacks may still cover (``_lost``)."""
    change = decision.change
    return (
        decision.effect == AT_RISK
        and bool(decision.entry.fallback)
        and decision.entry.mode == OPTIONAL
        and change is not None
        and (change.new is None or (change.kind == "renamed" and decision.path != change.path))
    )


def _settle_fallbacks(decisions: list[Decision]) -> list[Decision]:
    """An optional entry gone everywhere stays ``at risk`` while one of its fallbacks holds; when
    every fallback broke too (or is gone the same way, fallen back in a circle), it breaks."""
    by_label: dict[str, list[Decision]] = {}
    for d in decisions:
        by_label.setdefault(d.entry.label, []).append(d)

    def broken(label: str, seen: frozenset[str]) -> bool:
        own = by_label.get(label, [])
        if any(d.effect == BREAKS for d in own):
            return True
        pending = [d for d in own if _fallen_back(d)]
        return bool(pending) and all(f in seen or broken(f, seen | {label}) for f in pending[0].entry.fallback)

    out = []
    for d in decisions:
        if _fallen_back(d) and all(broken(f, frozenset({d.entry.label})) for f in d.entry.fallback):
            d = Decision(d.entry, BREAKS, f"{d.reason}, which is lost too", d.path, d.change)
        out.append(d)
    return out


def judge(profile: Profile, comparison: Comparison, baseline: Baseline, observed: Observed) -> ConsumerResult:
    """The verdict of *profile* on *comparison* (of *observed* against *baseline*)."""
    results = {r.surface: r for r in comparison.surfaces}
    ctx = _context(profile, observed)
    decisions = _settle_fallbacks([d for e in profile.entries for d in _judge(e, results, baseline, observed, ctx)])
    worst = max((_RANK[d.effect] for d in decisions), default=0)
    verdict = {0: NOT_COMPARABLE_VERDICT, 1: OK, 2: AT_RISK, 3: BREAKS}[worst]
    return ConsumerResult(profile, verdict, decisions)


def judge_all(
    profiles: Iterable[Profile], comparison: Comparison, baseline: Baseline, observed: Observed
) -> list[ConsumerResult]:
    return [judge(p, comparison, baseline, observed) for p in profiles]


def run_fails(comparison: Comparison, results: Iterable[ConsumerResult], fail_on: FailOn) -> bool:
    """Whether a compare run fails: its drift under ``fail_on.drift``, or a consumer that breaks
    (see ``FailOn.consumer_fails``)."""
    return comparison.fails(fail_on.drift) or any(fail_on.consumer_fails(r) for r in results)


# ----------------------------------------------------------------------------- coverage

EXERCISED, NOT_EXERCISED, NOT_CHECKABLE = "exercised", "not exercised", "not checkable"


@dataclass(frozen=True)
class Coverage:
    entry: Entry
    status: str  # EXERCISED, NOT_EXERCISED or NOT_CHECKABLE
    detail: str


def store_roots(paths: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """The store roots among or under *paths* (a store root, or a home directory's roots)."""
    roots: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if is_dir(path) and layout.is_store(path):
            roots.append(path)
        elif is_dir(path / ".gemini"):
            roots.extend(r.path for r in layout.resolve_roots(home=path, env={}))
    return list(dict.fromkeys(roots))


def coverage(profile: Profile, observed: Observed, roots: Sequence[Path]) -> list[Coverage]:
    """Which entries of *profile* the fingerprints in *observed* (and, for ``layout`` entries,
    the files of *roots*) exercise: a line matches the entry's path, or a file its pattern."""
    out = []
    for entry in profile.entries:
        if entry.surface == "layout":
            if not roots:
                out.append(Coverage(entry, NOT_CHECKABLE, "no store root among the paths (a sweep corpus has no store layout)"))
                continue
            found = sum(1 for root in roots for p in root.glob(entry.path) if path_kind(p, follow_symlinks=False) == FILE)
            status = EXERCISED if found else NOT_EXERCISED
            out.append(Coverage(entry, status, f"{found} file(s) in {len(roots)} store root(s)"))
            continue
        why = unfingerprinted(entry)
        if why is not None:
            out.append(Coverage(entry, NOT_CHECKABLE, why))
            continue
        fp = observed.fingerprints.get(entry.surface)
        if fp is None:
            reason = observed.not_computed.get(entry.surface, "not computed")
            out.append(Coverage(entry, NOT_CHECKABLE, f"no {entry.surface} fingerprint: {reason}"))
            continue
        match = pattern(entry.path, entry.surface).fullmatch
        lines = [line for line in fp.lines if match(split_line(line)[0])]
        if lines:
            out.append(Coverage(entry, EXERCISED, f"{len(lines)} line(s), e.g. {lines[0]}"))
        else:
            out.append(Coverage(entry, NOT_EXERCISED, f"no {entry.surface} line matches"))
    return out
