"""One session swept (``sweep_one``): its ``.db`` (or ``.pb``) copied and read, its trajectory from
the daemon or reconstructed natively, its brain files copied, all or none; a session whose
conversation cannot be read (``sweep_uncovered``); and each root's per-install files
(``sweep_installs``)."""

from __future__ import annotations

import os
from pathlib import Path

from audit.actions.sweep.corpus_writer import Corpus, Failed, all_or_none, in_stage
from audit.actions.sweep.db_copy import backup_database
from audit.actions.sweep.manifest import Failure, NotCovered, Skipped, SweepResult, SweptInstall, SweptSession
from audit.actions.sweep.planning import Item
from audit.csrf import scrub
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.store import legacy_pb
from audit.store.corpus import ANSWERS
from audit.store.daemon import GENERATOR_METADATA, AuthError, DaemonClient, DaemonError
from audit.store.database import NativeConversation, read_database
from audit.store.ids import canonical_id
from audit.store.install import INSTALL_DIR, root_name, swept_files
from audit.store.layout import Session
from audit.store.legacy_pb import Key
from audit.store.trajectory import BlobFields, NativeTrajectory, reconstruct
from audit.store.transcript import Record, iter_transcript, locate
from audit.strictjson import JSONError, dumps_bytes, loads

# ----------------------------------------------------------------------------- one session


_Swept = tuple[SweptSession, NativeConversation | None, NativeTrajectory | None, BlobFields | None]


def sweep_one(item: Item, corpus: Corpus, record_fields: bool = False, key: Key | None = None) -> _Swept:
    """Write every file of one session, or none: on any failure what was written is removed.
    Returns what was written, with the ``.db`` (or ``.pb``) copy as read and reconstructed (see
    ``Decoded``); a legacy ``.pb`` is read with the user's *key*."""
    files: dict[str, str] = {}
    with all_or_none(corpus, files):
        return _sweep_files(item, corpus, files, record_fields, key)


def sweep_uncovered(item: Item, corpus: Corpus) -> NotCovered:
    """Copy the brain files of a session whose conversation cannot be read, all or none."""
    session, files = item.session, dict[str, str]()
    assert item.uncovered is not None and session.source is not None
    with all_or_none(corpus, files):
        _check_listed(session)
        _copy_brain(session, corpus, files)
    return NotCovered(session.id, session.product, session.source, item.uncovered, files)


def _check_listed(session: Session) -> None:
    if session.unlisted:  # a part of the session could not be listed: its copy would be incomplete
        first = session.unlisted[0]
        raise Failed("brain", f"{first.path}: {first.reason}; the session's files there were not swept")


def _sweep_files(
    item: Item, corpus: Corpus, files: dict[str, str], record_fields: bool = False, key: Key | None = None
) -> _Swept:
    session, product = item.session, item.session.product
    _check_listed(session)
    if session.source is None:  # brain transcripts alone (headless ACP runs): copied, nothing reconstructed
        _copy_brain(session, corpus, files)
        records = _transcript_steps(session, corpus.path)
        return SweptSession(session.id, session.id, product, "native", records, files), None, None, None
    internal = conv = native = fields = None
    if session.db is not None:
        copy = corpus.write(f"native/{product}/{session.id}.db", in_stage("copy", backup_database, session.db), files)
        conv = read_database(copy)
        if not conv.access:
            problems = "; ".join(f.message.removeprefix(f"{copy}: ") for f in conv.findings) or "unreadable"
            raise Failed("read", f"{session.db}: {problems}")  # name the store's file, not our copy
        internal = canonical_id(conv.internal_cascade_id)
    elif session.legacy_pb is not None and item.client is None and key is not None:
        data = in_stage("copy", read_bytes, session.legacy_pb, limit=legacy_pb.MAX_BYTES)
        copy = corpus.write(f"native/{product}/{session.id}.pb", data, files)  # as it is: encrypted
        conv = legacy_pb.read_legacy(copy, key)
        if not conv.access:
            problems = "; ".join(f.message.removeprefix(f"{copy}: ") for f in conv.findings)
            raise Failed("decrypt", f"{session.legacy_pb}: {problems}")  # the store's file, not our copy
        internal = canonical_id(conv.internal_cascade_id)
    if item.client is not None:
        fetched = in_stage("fetch", item.client.fetch_trajectory, session.id, internal)
        raw, trajectory = fetched.raw, fetched.trajectory
        generations = in_stage("fetch", _generator_metadata, item.client, fetched.requested_id)
        if generations is not None:
            corpus.write(f"native/{product}/{ANSWERS}/{session.id}.{GENERATOR_METADATA}.json", generations, files)
    else:
        assert conv is not None  # without a daemon only a .db is swept, or a legacy .pb read with the user's key
        fields = BlobFields() if record_fields else None
        native = reconstruct(conv, fields)
        trajectory = native.trajectory
        raw = dumps_bytes(trajectory) + b"\n"
    cascade_id = canonical_id(trajectory.get("cascadeId"))
    if cascade_id is None or cascade_id not in {session.id, internal or cascade_id}:
        raise Failed(
            "identity",
            f"{session.id}: trajectory cascadeId {_shown(item, trajectory.get('cascadeId'))!r} "
            f"is neither the file id nor the internal cascade id {internal}",
        )
    corpus.write(f"corpus/{product}/{session.id}.trajectory.json", raw, files)
    _copy_brain(session, corpus, files)
    steps = trajectory.get("steps")
    swept = SweptSession(session.id, cascade_id, product, item.origin.source, len(steps) if isinstance(steps, list) else 0, files)
    return swept, conv, native, fields


def _generator_metadata(client: DaemonClient, cascade_id: str) -> bytes | None:
    """The daemon's ``GetCascadeTrajectoryGeneratorMetadata`` answer for *cascade_id*, as sent (a
    CSRF token in it, or a piece of one, replaced by ``<redacted>``: only the corpus trajectory
    keeps daemon content unchanged), when it is a JSON object; None when the daemon does not give
    one (an older build, an error: codeburn reads it only as a fallback). A refused token is an
    ``AuthError``, as for every call."""
    try:
        body = client.call(GENERATOR_METADATA, {"cascadeId": cascade_id})
    except AuthError:
        raise
    except DaemonError:
        return None
    try:
        answer = loads(body, source=GENERATOR_METADATA)
    except JSONError:
        return None
    if not isinstance(answer, dict):
        return None
    text = body.decode("utf-8")  # strict JSON: valid UTF-8
    kept = scrub(text)  # never stored: a token (or a piece of one) the answer would hold
    return body if kept == text else kept.encode("utf-8")


def sweep_installs(result: SweepResult, corpus: Corpus, keep_going: bool) -> bool:
    """Copy each root's per-install files (``audit.store.install.swept_files``) into
    ``native/<product>/install/<root name>/``: all of a root's or, on a failure (a file that cannot
    be read, a locked or corrupt database), none of them and a failure (stage ``install``, no id).
    A root whose name an earlier root already has is listed as skipped. Returns False when a
    failure must stop the sweep (without *keep_going*)."""
    names: dict[str, Path] = {}
    for origin in result.roots:
        root = origin.root
        name = root_name(root.path)
        if name in names:
            skip = f"per-install files of a root named {name} already swept from {names[name]}"
            result.skipped.extend(Skipped(copy.path, skip) for copy in swept_files(root.path))
            continue
        names[name] = root.path
        files: dict[str, str] = {}
        try:
            for copy in swept_files(root.path):
                read = backup_database if copy.kind == "summaries" else _read_install
                data = in_stage("install", read, copy.path)
                corpus.write(f"native/{root.product}/{INSTALL_DIR}/{name}/{copy.rel}", data, files)
        except Failed as failed:
            corpus.remove(files)
            result.failures.append(Failure(None, failed.stage, failed.message))
            if not keep_going:
                return False
            continue
        except BaseException:
            corpus.remove(files)
            raise
        if files:
            result.installs.append(SweptInstall(root.path, name, files))
    return True


def _read_install(path: Path) -> bytes:
    return read_bytes(path, limit=MAX_DOCUMENT_BYTES)


def _shown(item: Item, value: object) -> str:
    """A value from the trajectory as message text (80 characters): from a daemon, scrubbed of
    its token before the cut."""
    if item.client is not None:
        return item.client.shown(value, 80)
    return " ".join(str(value).split())[:80]


def _brain_dir(session: Session) -> str:
    """Where the corpus keeps the copies of the session's brain files (relative to the corpus)."""
    return f"native/{session.product}/brain/{session.id}"


def _copy_brain(session: Session, corpus: Corpus, files: dict[str, str]) -> None:
    brain = session.brain
    if brain is None:  # no brain directory, so no brain files
        return
    base, where = os.path.join(brain, ""), _brain_dir(session)
    for path in sorted(p for paths in session.brain_files.values() for p in paths):
        name = os.fspath(path)
        rel = name[len(base) :] if os.sep == "/" and name.startswith(base) else path.relative_to(brain).as_posix()
        corpus.write(f"{where}/{rel}", in_stage("brain", read_bytes, path), files)


def _transcript_steps(session: Session, out: Path) -> int:
    """Records in the copied transcript (the compact tier, read from its chunks when it has only
    chunks, else the full tier, else overview): the live files may have grown since they were copied."""
    copied = locate(out / _brain_dir(session))
    tier = "compact" if copied.compact else "full" if copied.full else "overview"
    stream = copied.compact or copied.full or copied.overview
    return sum(isinstance(item, Record) for item in iter_transcript(stream, tier=tier))
