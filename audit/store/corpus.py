"""A sweep corpus: the directory ``agy-audit sweep`` writes (layout in ``audit.actions.sweep``).

Readers use this to recognise a corpus and find its parts; only the sweep writes one.
"""

from __future__ import annotations

from pathlib import Path

from audit.safeio import is_dir, is_file

MANIFEST = "manifest.json"
CORPUS = "corpus"
"""``corpus/<product>/<id>.trajectory.json``: the swept trajectories."""
NATIVE = "native"
"""``native/<product>/<id>.db``, ``native/<product>/brain/<id>/`` and
``native/<product>/install/<root name>/`` (per-install files): copies of the sources."""
ANSWERS = "rpc"
"""``native/<product>/rpc/<id>.<Method>.json``: a daemon sweep's answers to the calls it keeps
(``audit.store.daemon.KEPT_CALLS``)."""


def is_corpus(path: Path) -> bool:
    """Whether *path* is a sweep corpus (its manifest and its ``corpus/`` directory)."""
    return is_file(path / MANIFEST) and is_dir(path / CORPUS)
