"""``fingerprint_paths``: the fingerprints of the requested surfaces of some inputs, each surface's
``fingerprint`` called in registry order on one shared ``Reading``."""

from __future__ import annotations

import os
from collections.abc import Iterable

from audit.checks.fingerprint.inputs import SIDECARS, collect
from audit.checks.fingerprint.model import Survey
from audit.checks.fingerprint.reading import Reading
from audit.checks.fingerprint.reads import Reads
from audit.checks.fingerprint.sidecar import read_sidecars
from audit.checks.fingerprint.surfaces import SURFACES
from audit.progress import Callback


def fingerprint_paths(
    paths: Iterable[str | os.PathLike[str]],
    surfaces: Iterable[str] | None = None,
    *,
    progress: Callback | None = None,
    read: Reads | None = None,
) -> Survey:
    """Fingerprint the requested *surfaces* (default: every one) of *paths*; unreadable files are reported in
    ``problems`` and skipped, a surface without input is listed in ``not_computed`` with its
    ``Surface.missing``. *progress* is called before each file read with (files done, files to
    read, file); databases, transcript streams and sidecars in *read* are taken from it (see
    ``Reads``)."""
    names = set(SURFACES if surfaces is None else surfaces)
    wanted = [surface for name, surface in SURFACES.items() if name in names]
    inputs, result = collect(paths, frozenset(s.swept for s in wanted if s.swept is not None))
    result.session_surfaces = tuple(name for name, surface in SURFACES.items() if surface.sessions)
    result.unsure = {s.name: why for s in wanted if s.partial is not None and (why := s.partial(result)) is not None}
    result.files = {
        "sidecars": inputs.sidecars,
        "databases": inputs.databases,
        "transcripts": inputs.transcripts,
        "install": [p for _, _, p in inputs.installs],
        "artifacts": inputs.artifacts,
    }
    needs = frozenset({SIDECARS}).union(*(surface.reads for surface in wanted))
    reading = Reading(inputs, result, needs, read, progress)
    reading.shared(read_sidecars)  # whatever is wanted: the sidecars give the corpus counts
    for surface in wanted:
        found = surface.fingerprint(reading)
        if found is not None:
            result.fingerprints[surface.name] = found
        else:
            result.not_computed[surface.name] = surface.missing
    result.counts.values = reading.values.counts
    result.counts.products = reading.values.products
    return result
