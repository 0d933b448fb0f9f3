"""Judging one sidecar against its native source (``check_target``), and every sidecar found.

``check_target`` reads the sidecar (and what it holds of ours), reads its source unless given it,
and compares their projections; ``check``, ``check_roots``, ``check_root`` and ``check_all``
check every sidecar ``targets`` finds.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Sequence
from typing import Any

from audit.checks.completeness.sidecar_targets import SidecarTarget, targets, targets_in, targets_in_roots
from audit.checks.completeness.source import Source, read_legacy_source, read_source
from audit.checks.completeness.step_projection import (
    PROFILE,
    explain_projection,
    first_difference,
    in_projection,
    projected_sha256,
    projection,
)
from audit.checks.completeness.verdicts import (
    ABSENT,
    ATTESTATION_KEY,
    COMPLETE,
    INCOMPLETE,
    LEGACY_KEY,
    READER_KEY,
    UNKNOWN,
    UNREADABLE,
    UNSUPPORTED,
    Evidence,
    Report,
    Result,
)
from audit.errors import InputError
from audit.progress import Callback, tracked
from audit.safeio import read_bytes
from audit.store.database import READ_FAILURES, affects_projection
from audit.store.ids import canonical_id
from audit.store.layout import Root
from audit.store.legacy_pb import KEY_HINT, Key
from audit.store.reader_block import READER_BLOCK
from audit.store.sidecar import MAX_SIDECAR_BYTES, FileState, Sidecar, sha256_hex
from audit.store.trajectory import NativeTrajectory
from audit.strictjson import loads

_LEGACY_FIELDS = frozenset({"profile", "sourceSha256", "projectionSha256", "steps", "checkedAt"})
_SHOWN = 3  # unknown fields / findings named in a detail


def _listed(items: Iterable[str], more: int) -> str:
    return "; ".join(items) + (f" (+{more} more)" if more > 0 else "")


def check_target(
    target: SidecarTarget,
    decoded: Source | None = None,
    *,
    details: bool = True,
    parsed: Sidecar | None = None,
    key: Key | None = None,
) -> Result:
    """The verdict on one sidecar; its ``.db`` (without one, its legacy ``.pb`` when given the
    user's *key*) is read here unless given *decoded*, the sidecar unless given *parsed*
    (``sidecar.read`` of it). Without *details*, an incomplete result's ``differences`` (every
    difference, by path) and a complete one's ``evidence`` are left unset (what ``ci`` never
    shows; verdicts and ``detail`` are the same)."""
    result = Result(target.sidecar, target.id, target.db or target.pb, UNREADABLE, _corpus=target.corpus)
    if parsed is not None:
        doc, result._state = parsed.document, parsed.state
    else:
        try:
            st = os.lstat(target.sidecar)
            if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
                result.detail = f"{target.sidecar}: not a regular file (symbolic link or special file); not read"
                return result
            data = read_bytes(target.sidecar, limit=MAX_SIDECAR_BYTES)
            doc = loads(data, source=str(target.sidecar))
        except InputError as exc:
            result.detail = exc.message
            return result
        except OSError as exc:
            result.detail = f"{target.sidecar}: {exc.strerror or exc}"
            return result
        result._state = FileState(len(data), st.st_mtime_ns, sha256_hex(data))
    reader = doc.get(READER_BLOCK)
    if isinstance(reader, dict):
        namespace = reader.get(READER_KEY)
        if isinstance(namespace, dict):
            result._namespace = namespace
            result._recorded = namespace.get(ATTESTATION_KEY, ABSENT)
        elif namespace is not None:
            result._recorded = namespace  # not an object: ours, and replaced by attest
        legacy = reader.get(LEGACY_KEY)
        result._legacy = (
            isinstance(legacy, dict)
            and legacy.keys() == _LEGACY_FIELDS
            and isinstance(legacy.get("profile"), str)
            and legacy["profile"].startswith("agy-audit-projection/")
        )
    # a native sweep's sidecar (sidecar.written) is the reconstruction itself: its projection is the source's
    side = decoded.steps if decoded is not None and doc is decoded.native.trajectory else projection(doc)[1]
    if not isinstance(side, list):
        result.detail = f"{target.sidecar}: steps is not an array"
        return result
    result.sidecar_steps = len(side)
    if target.db is None and (target.pb is None or key is None) and decoded is None:
        result.verdict = UNKNOWN
        if target.pb is not None:
            result.detail = f"the source is a legacy encrypted .pb; only the user's own key reads it offline ({KEY_HINT})"
        elif target.id is None:
            result.detail = "the file name is not <uuid>.trajectory.json; no source looked up"
        else:
            result.detail = "no native source (.db) for this sidecar"
        return result
    try:
        if decoded is not None:
            read = decoded
        elif target.db is not None:
            read = read_source(target.db)
        else:
            assert target.pb is not None and key is not None  # else unknown above
            read = read_legacy_source(target.pb, key)
    except InputError as exc:
        result.detail = exc.message
        return result
    native, result.stable = read.native, read.stable
    fatal = [f.message for f in native.findings if f.code in READ_FAILURES]
    if fatal:
        result.detail = _listed(fatal[:_SHOWN], len(fatal) - _SHOWN)
        return result
    source = read.steps
    result.source_steps = len(source)
    difference = _identity(doc, target, native) or first_difference(side, source)
    problems = [f"{key} x{n}" for key, n in sorted(native.unknown_fields.items()) if in_projection(key)]
    problems += [f.message for f in native.projection_findings]
    result.outside = [f"{key} x{n}" for key, n in sorted(native.unknown_fields.items()) if not in_projection(key)]
    result.outside += [f.message for f in native.findings if not affects_projection(f)]
    if problems:
        result.verdict = UNSUPPORTED
        result.detail = "the source holds content cortex.proto does not decode: " + _listed(
            problems[:_SHOWN], len(problems) - _SHOWN
        )
        if difference:
            result.detail += f"; also incomplete: {difference}"
    elif difference:
        result.verdict, result.detail = INCOMPLETE, difference
        result.differences = explain_projection(side, source) if details else None
    else:
        result.verdict = COMPLETE
        if details:
            result.evidence = Evidence(PROFILE, read.digest(), projected_sha256(source), len(source))
    if not result.stable:
        result.detail = f"{target.db}: the WAL index (-shm header) changed during each read: a commit in progress"
    return result


def _identity(doc: dict[str, Any], target: SidecarTarget, native: NativeTrajectory) -> str | None:
    """A sidecar must name its source's conversation: the file id or the internal cascade id."""
    cid = canonical_id(doc.get("cascadeId"))
    if cid is not None and cid in {target.id, canonical_id(native.internal_cascade_id)}:
        return None
    shown = repr(doc.get("cascadeId"))[:60]
    return f"cascadeId {shown} is neither the source's file id nor its internal cascade id"


def check_all(
    found: Sequence[SidecarTarget], key: Key | None = None, *, details: bool = True, progress: Callback | None = None
) -> Report:
    """Check every one of *found* (``check_target``); *progress* is told before each sidecar."""
    return Report([check_target(t, details=details, key=key) for t in tracked(found, progress, _name)])


def _name(target: SidecarTarget) -> str:
    return target.id or target.sidecar.name


def check_root(root: Root, key: Key | None = None, *, progress: Callback | None = None) -> Report:
    """Every sidecar in *root*'s ``conversations/`` (none: an empty report), checked without
    details (``doctor``: verdicts and details only)."""
    return check_all(targets_in(root.path / "conversations"), key, details=False, progress=progress)


def check(paths: Iterable[str | os.PathLike[str]], key: Key | None = None) -> Report:
    """Check every sidecar of ``targets(paths)``; a legacy ``.pb`` source is read with *key*."""
    return check_all(targets(paths), key)


def check_roots(roots: Iterable[Root], ids: Iterable[str] = (), key: Key | None = None) -> Report:
    """Check every sidecar of ``targets_in_roots(roots, ids)``; a legacy ``.pb`` source is read with *key*."""
    return check_all(targets_in_roots(roots, ids), key)
