"""Completeness attestations: the evidence of a ``complete`` verdict recorded in the sidecar.

Writes go through ``safeio.atomic_write`` and splice only the reader block
(``store.stamps.set_reader_key``), so every other byte and the file's mtime are kept.
"""

from __future__ import annotations

import os
import re
import stat

from audit.checks.completeness import (
    ABSENT,
    COMPLETE,
    FAILING,
    KEPT,
    READER_KEY,
    REFUSED,
    REMOVED,
    WRITTEN,
    Evidence,
    Report,
    Result,
)
from audit.checks.links import MAX_SIDECAR_BYTES, sha256_hex
from audit.clock import now_rfc3339
from audit.errors import InputError
from audit.safeio import atomic_write, dumps, read_bytes
from audit.store.stamps import set_reader_key

_CHECKED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z")


def attest(report: Report, *, checked_at: str | None = None) -> None:
    """Record the evidence in the sidecars; sets each result's ``attestation``.

    * ``complete``: ``agyReader.completeness`` = {profile, sourceSha256, projectionSha256, steps,
      checkedAt} (*checked_at* or now, RFC 3339 UTC). When the recorded block already has the
      same profile, hashes and steps (and a valid ``checkedAt``) the file is left untouched:
      ``kept``. Otherwise ``written``.
    * ``incomplete`` / ``unsupported``: an existing ``agyReader.completeness`` no longer holds
      and is removed (``removed``); nothing is ever attested for them.
    * ``unknown`` / ``unreadable``: left alone (nothing can be judged).

    Writes splice only the ``agyReader`` block (``stamps.set_reader_key``: every other byte
    kept), go through ``safeio.atomic_write`` (never through a symlink) and keep the file's
    mtime, so an attestation never makes a stale sidecar look fresh. A sidecar whose bytes or
    mtime changed since it was checked is not written: ``refused`` with ``attestation_error``;
    so is a sidecar in a sweep corpus, whose bytes ``manifest.json`` records by SHA-256.
    """
    checked_at = checked_at or now_rfc3339()
    for r in report.results:
        if r.verdict == COMPLETE:
            if _same(r._recorded, r.evidence):
                r.attestation = KEPT
                continue
            ev = r.evidence
            block = {
                "profile": ev.profile,
                "sourceSha256": ev.source_sha256,
                "projectionSha256": ev.projection_sha256,
                "steps": ev.steps,
                "checkedAt": checked_at,
            }
            _write(r, dumps(block, indent=None), WRITTEN)
        elif r.verdict in FAILING and r._recorded is not ABSENT:
            _write(r, None, REMOVED)


def _same(recorded: object, evidence: Evidence) -> bool:
    return (
        isinstance(recorded, dict)
        and recorded.get("profile") == evidence.profile
        and recorded.get("sourceSha256") == evidence.source_sha256
        and recorded.get("projectionSha256") == evidence.projection_sha256
        and type(recorded.get("steps")) is int
        and recorded["steps"] == evidence.steps
        and isinstance(recorded.get("checkedAt"), str)
        and _CHECKED_AT.fullmatch(recorded["checkedAt"]) is not None
    )


def _write(result: Result, value_json: str | None, action: str) -> None:
    path, state = result.sidecar, result._state
    try:
        if result._corpus:
            raise InputError(f"{path}: in a sweep corpus, whose manifest.json records its sha256; not written")
        st = os.lstat(path)
        data = read_bytes(path, limit=MAX_SIDECAR_BYTES) if stat.S_ISREG(st.st_mode) else b""
        if not stat.S_ISREG(st.st_mode) or st.st_mtime_ns != state.mtime_ns or sha256_hex(data) != state.sha256:
            raise InputError(f"{path}: changed during the run; not written")
        atomic_write(path, set_reader_key(data, READER_KEY, value_json, source=str(path)), mtime_ns=st.st_mtime_ns)
    except InputError as exc:
        result.attestation, result.attestation_error = REFUSED, exc.message
    except OSError as exc:
        result.attestation, result.attestation_error = REFUSED, f"{path}: {exc.strerror or exc}"
    else:
        result.attestation = action
