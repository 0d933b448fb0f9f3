"""Value filters: what the values recorded now mean for an entry that acts only on some values
(``values``, ``range``) and does something else with the others (``other``).

An entry with ``values`` or ``range`` is also judged on the ``values`` fingerprint
(``judge_values``; the rules are in docs/consumers.md). A new step type of the ``.db`` that a ``skips``
filter does not take is judged by the payloads its steps carry (``_payloads_read``, ``_carried``), a fact of the
``wire`` fingerprint, where the filter's kinds each have one; a new value of a field whose records
per value the baseline and the corpus both counted is traced to the values whose share it took
(``_moved``): a filter breaks only when records it took moved.

A profile's value filters are judged on the records of the products of the roots its ``scope``
names (``_narrowed``: the records per value the baseline and the corpus counted per product,
``counts.valuesByProduct``). An entry's ``only`` or ``except`` names the record types its
transcript ``source`` or ``status`` filter is applied to, or is not (the consumer takes the others
by their type): it is judged on the records of those types (counted per type).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from audit.checks.baselines import Baseline
from audit.checks.consumers.entry_lines import Context, lost, pattern
from audit.checks.consumers.profiles import BREAKS_ON_OTHER, DROPS_OTHER, SKIPS_OTHER, Entry
from audit.checks.consumers.verdicts import AT_RISK, BREAKS, OK, UNKNOWN, Decision
from audit.checks.drift import Observed, SurfaceResult, enum_at, split_line
from audit.checks.fingerprint import BLOB_MESSAGES, VALUES
from audit.checks.values import MORE, OTHER, order
from audit.store.proto import cortex_pb2 as pb
from audit.store.trajectory import STEP_TYPE_NAMES

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


def judge_values(
    entry: Entry, result: SurfaceResult | None, baseline: Baseline, observed: Observed, ctx: Context
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
        moved = _moved(entry, new, *counted[key]) if recorded else None  # one failing on any other value was decided above
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
    entry: Entry, key: str, baseline: Baseline, observed: Observed, ctx: Context
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
    it (``lost``); against synthetic values only a risk."""
    field = key.partition(":")[2]
    effect, reason = lost(entry, f"{field} is in no record now: what it took by {entry.selects} went with it")
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
