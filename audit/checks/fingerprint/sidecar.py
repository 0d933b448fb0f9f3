"""The ``sidecar`` surface: agy-reader's shape fingerprint of trajectory sidecars
(``audit.checks.shape.SidecarShape``); the digest equals the one agy-reader publishes for the same
documents. The sidecars are read by every survey: they give the corpus counts (``Counts``)."""

from __future__ import annotations

import os

from audit.checks.fingerprint.inputs import SIDECARS
from audit.checks.fingerprint.model import INPUT_KINDS, KEPT, Fingerprint, Surface, Survey
from audit.checks.fingerprint.reading import Reading
from audit.checks.shape import SidecarShape
from audit.errors import InputError
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.strictjson import gc_paused


def read_sidecars(reading: Reading) -> Fingerprint | None:
    """The sidecar shape of the inputs' sidecars, folded into those the survey was given already
    read (``Reads``, whose sidecars are not read again when the inputs list them all); their counts
    into the survey's, their enum values into ``reading.values``."""
    read, result, values = reading.read, reading.result, reading.values
    if read is not None and not read.sidecar_paths <= {os.path.abspath(p) for p in reading.inputs.sidecars}:
        read = None  # sidecars the inputs do not list: every sidecar is read again, none counted twice
    shape = SidecarShape() if read is None else read.sidecars
    taken = set() if read is None else read.sidecar_paths
    if read is not None:
        result.counts.merge(read.sidecar_counts)
        values.merge(read.sidecar_values)
    for path in reading.files(SIDECARS):
        if taken and os.path.abspath(path) in taken:
            continue
        with gc_paused():  # until the document is freed: a GC pass in between would only rescan it
            try:
                doc = shape.add_json(read_bytes(path, limit=MAX_DOCUMENT_BYTES), str(path))
            except InputError as exc:
                result.problems.append(exc.message)
                continue
            result.counts.add_trajectory(doc)
            values.add_sidecar(doc)
            del doc
    return Fingerprint.of("sidecar", shape.lines()) if shape.documents else None


def _partial(survey: Survey) -> str | None:
    """A native sweep's sidecars are reconstructed offline: a key only the daemon writes is none of theirs."""
    native = survey.without_daemon
    if not native:
        return None
    return (
        "for keys audit/store/proto/cortex.proto does not decode (daemon-only keys): "
        f"{native} of {sum(survey.sources.values())} sidecars were reconstructed offline from .db files "
        "(native sweep); a missing key the .proto decodes is a removal"
    )


SIDECAR = Surface(
    "sidecar",
    describes="the JSON shape of the trajectory sidecars, by agy-reader's algorithm",
    missing="no readable *.trajectory.json sidecar",
    found_in=INPUT_KINDS,
    reads=frozenset({SIDECARS}),
    fingerprint=lambda reading: reading.shared(read_sidecars),
    redact=KEPT,
    sessions=True,
    partial=_partial,
)
