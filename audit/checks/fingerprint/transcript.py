"""The surfaces of brain transcripts, read in one pass over their streams (``read_streams``).

* ``transcript`` -- the shape of brain transcript records per tier and ``type``
  (``audit.checks.shape.TranscriptShape``): each tier of a brain directory
  (``audit.store.transcript.locate``: compact, full, overview) is read as one stream, its chunk
  parts concatenated; chunks that are byte-identical to their flat file (or a prefix of it) are
  read once, differing ones both.
* ``conventions`` -- per transcript tier and step type, how often records carry each content
  convention readers parse (``audit.checks.conventions``: ``<USER_REQUEST>``, ``Created At:``,
  ``Task Description:``, ``File Path:``, the "changes were made ... to:" sentence, diff-block
  markers ...): ``none``, ``one`` or ``many``, never the text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from audit.checks.conventions import Conventions
from audit.checks.fingerprint.inputs import TRANSCRIPTS
from audit.checks.fingerprint.model import INPUT_KINDS, KEPT, Fingerprint, Surface
from audit.checks.fingerprint.reading import Reading
from audit.checks.shape import OTHER_TIER, TIER_NAMES, TranscriptShape
from audit.checks.values import Values
from audit.store.transcript import DROPPED, Anomaly, iter_transcript


@dataclass
class Streams:
    """What the transcript streams of a survey held: their shape and content conventions."""

    shape: TranscriptShape = field(default_factory=TranscriptShape)
    conventions: Conventions = field(default_factory=Conventions)


def read_streams(reading: Reading) -> Streams:
    """Read every transcript stream once (those the survey was given already read, ``Reads``,
    are taken from it): its shape, conventions and enum values (into ``reading.values``)."""
    read, result, values = reading.read, reading.result, reading.values
    found = Streams(read.transcripts) if read is not None else Streams()
    if read is not None:
        values.merge(read.transcript_values)
        found.conventions.merge(read.conventions)
    for tier, listed, product in reading.inputs.streams:  # the files of TRANSCRIPTS, stream by stream
        paths = tuple(reading.each(listed))
        result.counts.transcripts += len(paths)
        known = read.streams.get(tuple(map(str, paths))) if read is not None else None
        if known is not None:
            result.problems += known[0]
            result.skipped += known[1]
            continue
        stream_shape(found, values, tier, paths, result.problems, result.skipped, product)
    return found


def stream_shape(
    found: Streams,
    values: Values,
    tier: str | None,
    paths: tuple[Path, ...],
    problems: list[str],
    skipped: list[str],
    product: str | None,
) -> None:
    """Fold the records of one stream of *tier* (of *product*, when known) into *found* and
    *values*; its unreadable files into *problems*, the lines it dropped into *skipped*."""
    shape, conventions = found.shape, found.conventions
    name = tier if tier in TIER_NAMES else OTHER_TIER
    batch: list[object] = []  # records walked together (bounded: a stream may be larger than memory)
    for item in iter_transcript(paths, tier=tier):
        if isinstance(item, Anomaly):
            if item.kind == "unreadable":
                problems.append(f"{item.file}: {item.message}")
            elif item.kind in DROPPED:
                skipped.append(f"{item.file}:{item.line}: {item.message}")
        else:
            batch.append(item.raw)
            values.add_transcript(item.raw, name, product)
            conventions.add(name, item.type, item.content)
            if len(batch) == _BATCH:
                shape.add_all(batch, tier)
                batch = []
    if batch:
        shape.add_all(batch, tier)


_BATCH = 256
"""Transcript records folded into the shape at a time."""


def _transcript(reading: Reading) -> Fingerprint | None:
    shape = reading.shared(read_streams).shape
    return Fingerprint.of("transcript", shape.lines()) if shape.records else None


def _conventions(reading: Reading) -> Fingerprint | None:
    conventions = reading.shared(read_streams).conventions
    return Fingerprint.of("conventions", conventions.lines()) if conventions.forms else None


TRANSCRIPT = Surface(
    "transcript",
    describes="the shape of the brain transcript records",
    missing="no brain transcript record",
    found_in=INPUT_KINDS,
    reads=frozenset({TRANSCRIPTS}),
    fingerprint=_transcript,
    redact=KEPT,
    synthetic=True,
    sessions=True,
)
CONVENTIONS = Surface(
    "conventions",
    describes="which content conventions readers parse each transcript tier and step type carries "
    "(headers, markers, sentences; how often, never their text)",
    missing="no brain transcript record with a step type",
    found_in=INPUT_KINDS,
    reads=frozenset({TRANSCRIPTS}),
    fingerprint=_conventions,
    redact=KEPT,
    synthetic=True,
    sessions=True,
)
