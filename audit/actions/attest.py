"""Completeness attestations: the evidence of a ``complete`` verdict recorded in the sidecar.

Writes go through ``safewrite.atomic_write`` and splice only the reader block
(``store.reader_block.set_reader_key``), so every other byte and the file's mtime are kept.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable

from audit.actions import writelock
from audit.checks.completeness import (
    ABSENT,
    ATTESTATION_KEY,
    COMPLETE,
    FAILING,
    KEPT,
    LEGACY_KEY,
    READER_KEY,
    REFUSED,
    REMOVED,
    WRITTEN,
    Attestation,
    Evidence,
    Report,
    Result,
    SidecarTarget,
    check_all,
)
from audit.clock import now_rfc3339
from audit.errors import InputError
from audit.progress import Callback
from audit.safeio import read_bytes
from audit.safewrite import atomic_write
from audit.store.legacy_pb import Key
from audit.store.reader_block import set_reader_key
from audit.store.sidecar import MAX_SIDECAR_BYTES, sha256_hex
from audit.strictjson import dumps

_CHECKED_AT = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z")


def attest(report: Report, *, checked_at: str | None = None) -> None:
    """Record the evidence in the sidecars; sets each result's ``attestation``.

    Our attestation lives under our own key, ``agyReader.agyAudit.completeness``; agy-reader's
    ``agyReader.completeness`` is never written (an attestation agy-audit 0.1 left there, in its
    exact five-key layout, is moved or removed).

    * ``complete``: ``agyReader.agyAudit.completeness`` = {profile, contentSha256,
      projectionSha256, steps, checkedAt} (*checked_at* or now, RFC 3339 UTC). When the recorded
      block already has the same profile, digests and steps (and a valid ``checkedAt``) the file
      is left untouched: ``kept``. Otherwise ``written``. A result whose source's WAL index moved
      during the read (``Result.stable`` False) is ``refused``: the snapshot may not be the state
      the files now hold.
    * ``incomplete`` / ``unsupported``: an existing attestation of ours no longer holds and is
      removed (``removed``); nothing is ever attested for them.
    * ``unknown`` / ``unreadable``: left alone (nothing can be judged).

    Writes splice only the ``agyReader`` block (``reader_block.set_reader_key``: every other byte
    kept), go through ``safewrite.atomic_write`` (never through a symlink) and keep the file's
    mtime, so an attestation never makes a stale sidecar look fresh. A sidecar whose bytes or
    mtime changed since it was checked is not written: ``refused`` with ``attestation_error``;
    so is a sidecar in a sweep corpus, whose bytes ``manifest.json`` records by SHA-256. One
    that cannot be read or written (permission denied, a full disk) stops the run with an
    ``InputError`` naming it (exit 2), as a stamp does.
    """
    checked_at = checked_at or now_rfc3339()
    for r in report.results:
        legacy = [(LEGACY_KEY, None)] if r._legacy else []
        if r.verdict == COMPLETE:
            if _same(r._recorded, r.evidence) and not legacy:
                r.attestation = KEPT
                continue
            if not r.stable:
                r.attestation, r.attestation_error = REFUSED, f"{r.detail}; not attested"
                continue
            ev = r.evidence
            assert ev is not None  # completeness sets evidence on every complete result
            block = {
                "profile": ev.profile,
                "contentSha256": ev.content_sha256,
                "projectionSha256": ev.projection_sha256,
                "steps": ev.steps,
                "checkedAt": checked_at,
            }
            _write(r, [(READER_KEY, dumps({**r._namespace, ATTESTATION_KEY: block}, indent=None)), *legacy], WRITTEN)
        elif r.verdict in FAILING and (r._recorded is not ABSENT or legacy):
            rest = {k: v for k, v in r._namespace.items() if k != ATTESTATION_KEY}
            _write(r, [(READER_KEY, dumps(rest, indent=None) if rest else None), *legacy], REMOVED)


def _same(recorded: object, evidence: Evidence | None) -> bool:
    return (
        evidence is not None
        and isinstance(recorded, dict)
        and recorded.get("profile") == evidence.profile
        and recorded.get("contentSha256") == evidence.content_sha256
        and recorded.get("projectionSha256") == evidence.projection_sha256
        and type(recorded.get("steps")) is int
        and recorded["steps"] == evidence.steps
        and isinstance(recorded.get("checkedAt"), str)
        and _CHECKED_AT.fullmatch(recorded["checkedAt"]) is not None
    )


def _write(result: Result, edits: list[tuple[str, str | None]], action: Attestation) -> None:
    """Apply *edits* (``agyReader.<key>`` = JSON text, or removed when None) in one atomic write.

    A sidecar in a corpus, changed since it was checked or whose ``agyReader`` cannot be edited
    is ``refused`` (a finding); one that cannot be read or written (permission denied, a full
    disk) raises ``InputError`` naming it (exit 2), as every writer of sidecars does."""
    path, state = result.sidecar, result._state
    assert state is not None  # set once the sidecar is read, before any complete or failing verdict
    if result._corpus:
        result.attestation = REFUSED
        result.attestation_error = f"{path}: in a sweep corpus, whose manifest.json records its sha256; not written"
        return
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None
    data = read_bytes(path, limit=MAX_SIDECAR_BYTES) if st is not None and stat.S_ISREG(st.st_mode) else b""
    try:
        if st is None or not stat.S_ISREG(st.st_mode) or st.st_mtime_ns != state.mtime_ns or sha256_hex(data) != state.sha256:
            raise InputError(f"{path}: changed during the run; not written")
        for key, value_json in edits:
            data = set_reader_key(data, key, value_json, source=str(path))
    except InputError as exc:
        result.attestation, result.attestation_error = REFUSED, exc.message
        return
    assert st is not None  # a missing sidecar was refused above
    atomic_write(path, data, mtime_ns=st.st_mtime_ns, keep_mode=True)
    result.attestation = action


def check_and_attest(
    targets: list[SidecarTarget],
    key: Key | None = None,
    *,
    lock_timeout: float = writelock.DEFAULT_TIMEOUT,
    waiting: Callable[[str], None] | None = None,
    progress: Callback | None = None,
) -> Report:
    """Check every one of *targets* (a legacy ``.pb`` source read with *key*) and ``attest`` the
    verdicts, holding the writer lock of every directory it may write in (``writelock.held``)
    from before the first sidecar is read: another of our writers (``links backfill``) then
    waits, and no attestation or stamp is lost. *progress* is told before each sidecar is checked."""
    directories = sorted({t.sidecar.parent for t in targets if not t.corpus})
    with writelock.held(directories, timeout=lock_timeout, waiting=waiting):
        report = check_all(targets, key, progress=progress)
        attest(report)
    return report
