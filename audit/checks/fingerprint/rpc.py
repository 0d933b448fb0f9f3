"""The ``rpc`` surface: the JSON shape of the daemon's answers a daemon sweep keeps per conversation
(``native/<product>/rpc/<id>.<Method>.json``; ``GetCascadeTrajectoryGeneratorMetadata``, which
codeburn reads for usage, docs/store-format.md#daemon-rpc). One line per method and path, ``<Method>.<path>``, with
the JSON types found there (``shape.KeyShape``: ``[]`` for array elements, a key that is data --
an id, a number, a path -- is ``*``), as
``GetCascadeTrajectoryGeneratorMetadata.generatorMetadata.[].chatModel.usage.inputTokens`` ->
``string``: keys and types, never a value. Only a sweep corpus holds such answers; a session swept
without the daemon has none, so in a sweep that took some sessions with the daemon and some without
(``--source auto``), a key the answers lack is no evidence (``partial``).
"""

from __future__ import annotations

import re

from audit.checks.fingerprint.model import KEPT, Fingerprint, Surface, Survey
from audit.checks.fingerprint.reading import Reading
from audit.checks.shape import KeyShape
from audit.errors import InputError
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.store.corpus import ANSWERS
from audit.store.ids import UUID_PATTERN, canonical_id
from audit.strictjson import loads

_NAME = re.compile(rf"({UUID_PATTERN})\.([A-Z][A-Za-z0-9]{{0,79}})\.json")


def _rpc(reading: Reading) -> Fingerprint | None:
    result = reading.result
    shape = KeyShape()
    for path in reading.files(ANSWERS):
        named = _NAME.fullmatch(path.name)
        if named is None or canonical_id(named[1]) is None:
            result.skipped.append(f"{path}: name is not <uuid>.<Method>.json")
            continue
        try:
            answer = loads(read_bytes(path, limit=MAX_DOCUMENT_BYTES), source=str(path), require_object=False)
        except InputError as exc:
            result.problems.append(exc.message)
            continue
        shape.add(answer, named[2])
    return Fingerprint.of("rpc", shape.lines()) if shape.documents else None


def _partial(survey: Survey) -> str | None:
    """Why the answers of a complete sweep are no evidence of a key's absence: some of its sessions
    were swept with the daemon, which alone answers, and some without (a sweep without any has no
    answer: the surface is not computed)."""
    native = survey.without_daemon
    if not native or not survey.sources["daemon"]:
        return None
    return (
        f"{native} of {sum(survey.sources.values())} sessions were swept without the daemon (native sweep), "
        "which keeps no answer of theirs: what their answers would hold is unknown"
    )


RPC = Surface(
    "rpc",
    describes="the JSON shape of the daemon's answers a daemon sweep keeps (GetCascadeTrajectoryGeneratorMetadata; keys and types, never values)",
    missing="no daemon answer: a daemon sweep keeps each conversation's GetCascadeTrajectoryGeneratorMetadata "
    "(native/<product>/rpc/); a native sweep, a store or files hold none",
    found_in=("corpus",),
    reads=frozenset({ANSWERS}),
    fingerprint=_rpc,
    redact=KEPT,
    sessions=True,
    swept=ANSWERS,
    partial=_partial,
)
