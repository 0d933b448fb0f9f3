"""What a comparison's lines mean for one entry of a profile: the lines it names (``pattern``),
why no fingerprint can show it (``unfingerprinted``), and the effect of each line it matches.

``judge`` reads a ``drift.Comparison`` through a profile. Per matched line:

* unchanged, or ``added`` -> ok;
* ``renamed`` to a path the entry also matches (a record type renamed, read through a ``*``) -> ok;
* ``removed`` (or ``renamed`` away) -> ``breaks``: the path is in no record now, so a consumer
  that reads it loses all it read there, optional or not; only an optional entry whose profile
  cites a ``fallback`` it reads instead is ``at risk``, and breaks when every fallback breaks too
  (``_settle_fallbacks``, in ``judging``). Except that a line matched through a ``*`` whose whole subtree is gone
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

An entry no fingerprint can show is unknown too, with the reason: ``layout`` entries naming no
file family the ``layout`` fingerprint records (artifacts, per-install files), ``rpc`` entries of
a call no sweep keeps the answers of (``audit.store.daemon.KEPT_CALLS``), a sidecar path below an
opaque path (``audit.checks.shape.OPAQUE_PATHS``) or in the reader-owned ``agyReader`` block, a
transcript path below ``tool_calls.[].args``, a wire path below a field the .proto does not know
(not parsed into), a surface not compared or recorded by digest only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from audit.checks.baselines import Baseline
from audit.checks.consumers.profiles import REQUIRES, Entry
from audit.checks.consumers.verdicts import AT_RISK, BREAKS, OK, UNKNOWN, Decision, Effect
from audit.checks.drift import NEW, NOT_COMPARABLE, UNCHANGED, Change, Observed, SurfaceResult, split_line
from audit.checks.fingerprint import SURFACES
from audit.checks.shape import OPAQUE_PATHS, READER_KEY, TRANSCRIPT_OPAQUE
from audit.store import layout
from audit.store.daemon import KEPT_CALLS


@dataclass(frozen=True)
class Context:
    """What judging one profile's entries takes besides the comparison: the roots it reads (None:
    every root) and their products, and per surface why a loss there is only a risk (its source
    is one the consumer reads only for a session without the source it prefers, and every session
    has that one: ``_preferred``)."""

    roots: frozenset[str] | None
    products: frozenset[str] | None
    preferred: dict[str, str]


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


def lost(entry: Entry, what: str) -> tuple[Effect, str]:
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


def _classify(entry: Entry, surface: str, change: Change, current: dict[str, str], path: str) -> tuple[Effect, str]:
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
        return lost(entry, f"renamed to {change.path}")
    if change.new is None:  # removed
        gone = _root_gone(change.path, current) if surface == "layout" else _gone(entry, change.path, current)
        if gone is not None:
            return UNKNOWN, f"nothing of {gone} remains (the instance is absent, not the field)"
        return lost(entry, "removed")
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


def judge_entry(
    entry: Entry, result: SurfaceResult | None, baseline: Baseline, observed: Observed, ctx: Context
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
