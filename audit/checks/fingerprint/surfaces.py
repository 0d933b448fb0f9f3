"""The registry of format surfaces: one ``Surface`` record each, in the order every report,
baseline and schema lists them. Everything that handles surfaces reads it: the survey's dispatch
(``fingerprint_paths``), baselines and drift, the compatibility record, redact's proof, ci, the CLI's
``--surface`` choices, the manual's table (docs/reference/fingerprint.md) and the JSON Schemas' surface lists (tests hold those
two equal to it).

Adding a surface: one module of this package declaring its ``Surface`` (its fingerprint function
reads through ``audit.checks.fingerprint.reading.Reading``) and one line below.
"""

from __future__ import annotations

from audit.checks.fingerprint import databases, install, rpc, sidecar, transcript, values
from audit.checks.fingerprint.model import KEPT, Surface

SURFACES: dict[str, Surface] = {
    surface.name: surface
    for surface in (
        sidecar.SIDECAR,
        databases.SQLITE,
        databases.WIRE,
        transcript.TRANSCRIPT,
        install.SUMMARIES_SURFACE,
        install.HISTORY_SURFACE,
        install.CACHE_SURFACE,
        install.ARTIFACTS_SURFACE,
        install.ROOTS_SURFACE,
        install.LAYOUT_SURFACE,
        transcript.CONVENTIONS,
        values.VALUES_SURFACE,
        rpc.RPC,
    )
}


def kept_by_redact() -> tuple[str, ...]:
    """The surfaces whose digests a redacted copy must keep (``Surface.redact``)."""
    return tuple(name for name, surface in SURFACES.items() if surface.redact == KEPT)
