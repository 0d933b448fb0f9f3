"""What a drift comparison compares: the fingerprints observed, and what a corpus can show.

``fingerprints_to_compare`` computes them from a corpus, store or files, or reads them from a
baseline directory or an agy-reader ``*.tsv`` shape snapshot (``Observed``). ``native_observable``
and ``enum_at`` walk our ``.proto``'s descriptor: whether the offline reconstruction of a ``.db``
can produce a sidecar path, and which enum a path holds.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor

from audit.checks import baselines
from audit.checks.fingerprint import SURFACES, Fingerprint, Reads, Survey, fingerprint_paths
from audit.errors import NothingToCheck, UsageError
from audit.progress import Callback
from audit.safeio import is_file, read_own
from audit.store.proto import cortex_pb2 as pb

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
