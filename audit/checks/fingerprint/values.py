"""The ``values`` surface: the values each enum-like field holds on the other surfaces
(``audit.checks.values``): step types and statuses of the ``steps`` rows, every ``cortex.proto``
enum in the sidecars (at its sidecar and its wire path), transcript types, sources, statuses and
tool names, history ``type`` and artifact ``artifactType``, gathered while those are read."""

from __future__ import annotations

from audit.checks.fingerprint.databases import read_databases
from audit.checks.fingerprint.inputs import ARTIFACTS, DATABASES, HISTORY, SIDECARS, TRANSCRIPTS
from audit.checks.fingerprint.install import read_artifacts, read_history
from audit.checks.fingerprint.model import INPUT_KINDS, KEPT, Fingerprint, Surface
from audit.checks.fingerprint.reading import Reading
from audit.checks.fingerprint.sidecar import read_sidecars
from audit.checks.fingerprint.transcript import read_streams
from audit.checks.values import SURFACE as VALUES


def _values(reading: Reading) -> Fingerprint | None:
    for read in (read_sidecars, read_databases, read_streams, read_history, read_artifacts):
        reading.shared(read)  # each gathers its values into reading.values on the way
    values = reading.values
    return Fingerprint.of(VALUES, values.lines()) if values.seen or values.more else None


VALUES_SURFACE = Surface(
    VALUES,
    describes="the values each enum-like field holds (step types, statuses, sources, models, tool names)",
    missing="no sidecar, conversation .db or transcript record to take values from",
    found_in=INPUT_KINDS,
    reads=frozenset({SIDECARS, DATABASES, TRANSCRIPTS, HISTORY, ARTIFACTS, VALUES}),
    fingerprint=_values,
    redact=KEPT,
    synthetic=True,
    sessions=True,
    profiled=False,
)
