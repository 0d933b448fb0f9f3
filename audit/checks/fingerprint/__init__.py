"""Fingerprints of the format surfaces of a corpus, a store or plain files.

A fingerprint is a sorted tuple of canonical lines ``path<TAB>value`` and a ``sha256:`` digest.
The value is a ``|``-joined sorted union (of JSON types, wire types, or one schema definition).
Each surface is a ``Surface`` record in the registry (``surfaces.SURFACES``), declared by the
module that computes it:

* ``sidecar`` -- trajectory sidecars' JSON shape, agy-reader's algorithm (``sidecar``);
* ``sqlite``, ``wire`` -- the conversation databases' schema and blob fields (``databases``,
  ``blobs``);
* ``transcript``, ``conventions`` -- brain transcript records' shape and the content conventions
  readers parse (``transcript``);
* ``summaries``, ``history``, ``cache``, ``artifacts``, ``roots``, ``layout`` -- the per-install
  files, the brain artifact metadata, the store roots and their sessions' file families
  (``install``);
* ``values`` -- the values of the enum-like fields of the others (``values``).

``fingerprint_paths`` (``dispatch``) finds the inputs (``inputs``: a sweep corpus, a store root, a home
directory, a plain directory or files), then calls each requested surface's ``fingerprint`` on one
``reading.Reading``, which reads each family of files once for every surface that needs it.
Documents are read one at a time; memory does not grow with the corpus. What a sweep has read
already is handed over as ``reads.Reads``; ``model`` holds the records the modules share.
"""

from audit.checks.fingerprint.blobs import BLOB_MESSAGES, wire_fingerprint, wire_observations
from audit.checks.fingerprint.databases import schema_lines
from audit.checks.fingerprint.dispatch import fingerprint_paths
from audit.checks.fingerprint.install import summaries_lines
from audit.checks.fingerprint.model import COMPLETE_SCOPE, INPUT_KINDS, KEPT, Counts, Fingerprint, Surface, Survey
from audit.checks.fingerprint.reads import Reads
from audit.checks.fingerprint.surfaces import SURFACES
from audit.checks.values import SURFACE as VALUES

__all__ = [
    "BLOB_MESSAGES",
    "COMPLETE_SCOPE",
    "INPUT_KINDS",
    "KEPT",
    "SURFACES",
    "VALUES",
    "Counts",
    "Fingerprint",
    "Reads",
    "Surface",
    "Survey",
    "schema_lines",
    "summaries_lines",
    "fingerprint_paths",
    "wire_fingerprint",
    "wire_observations",
]
