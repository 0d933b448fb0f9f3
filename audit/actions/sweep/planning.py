"""What a sweep reads: the source of each root (its daemon, or native), the sessions selected and
the entries skipped with why (``select_sessions``), one root per id."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from audit.actions.sweep.manifest import RootSource, Skipped
from audit.errors import InputError, UsageError
from audit.store.daemon import DaemonClient
from audit.store.discovery import ENV_URL, discover
from audit.store.ids import canonical_id
from audit.store.layout import Root, Session, layout_forms, newest_first, scan_root
from audit.store.legacy_pb import Key
from audit.store.transcript import locate

NOT_COVERED_LEGACY = "legacy encrypted .pb: only the daemon can read it (its brain files were swept)"
SKIP_DUPLICATE_PB = "legacy .pb beside a .db with the same id: the .db is the source"
SKIP_IMPLICIT = "implicit trajectory: the daemon cannot load it and it is encrypted"
SKIP_NO_SOURCE = "no .db, .pb or brain transcript for this id: nothing to sweep (a sidecar alone is never a source)"
SKIP_REFUSED_SOURCE = "this id's conversation file was not read (listed as skipped); its other files are not swept alone"
SKIP_BACKUP = "brain_backup/ copy of a session: a copy, not a store; swept only from brain/"


@dataclass(frozen=True)
class Item:
    session: Session
    origin: RootSource
    client: DaemonClient | None
    uncovered: str | None = None  # why its conversation cannot be read (its brain files are still swept)


# ----------------------------------------------------------------------------- planning


def choose_source(
    root: Root,
    source: str,
    timeout: float,
    allow_remote: bool,
    env: Mapping[str, str],
    proc_root: str | os.PathLike[str] | None,
) -> tuple[RootSource, DaemonClient | None]:
    if source == "native":
        return RootSource(root, "native"), None
    found = discover(root, env, proc_root)
    for endpoint in found.endpoints:  # pinned, or listeners verified as this root's daemon
        try:
            client = DaemonClient(endpoint.url, endpoint.token, timeout=timeout, allow_remote=allow_remote)
        except UsageError:
            if endpoint.origin == ENV_URL:
                raise  # an explicit override is never ignored
            continue
        if client.reachable():
            return RootSource(root, "daemon", client.url, endpoint.origin), client
    notes = tuple(found.notes)
    if source == "daemon":
        why = "; ".join(notes) if notes else f"is agy running? or set {ENV_URL}"
        raise InputError(f"{root.path}: no reachable daemon ({why}); use --source native to read the .db files")
    return RootSource(root, "native", notes=notes), None


def select_sessions(
    chosen: list[tuple[RootSource, DaemonClient | None]],
    include_implicit: bool,
    key: Key | None = None,
) -> tuple[list[Item], list[Skipped], dict[Path, dict[str, str]]]:
    """The sessions to sweep, the entries skipped, and per root the file families of its sessions
    (``layout_forms``: the store's layout, which the corpus copies only in part)."""
    found: list[Item] = []
    skipped: list[Skipped] = []
    layouts: dict[Path, dict[str, str]] = {}
    for origin, client in chosen:
        scan = scan_root(origin.root, include_implicit=include_implicit)
        layouts[origin.root.path] = layout_forms(scan.sessions)
        skipped.extend(Skipped(f.path.absolute(), f.reason) for f in scan.foreign)  # symbolic links, strangers
        refused = {canonical_id(f.path.name.partition(".")[0]) for f in scan.foreign}  # e.g. a .db that is a link
        skipped.extend(Skipped(backup.path, SKIP_BACKUP) for backup in scan.backups)
        for session in scan.sessions:
            if session.implicit_pb is not None:
                skipped.append(Skipped(session.implicit_pb, SKIP_IMPLICIT))
            if session.db is not None and session.legacy_pb is not None:
                skipped.append(Skipped(session.legacy_pb, SKIP_DUPLICATE_PB))
            if session.db is None and session.legacy_pb is not None and client is None and key is None:
                found.append(Item(session, origin, client, NOT_COVERED_LEGACY))
                continue
            if session.source is None and (session.id in refused or not _has_transcript(session)):
                where = session.sidecar or session.brain
                if where is not None:
                    reason = SKIP_REFUSED_SOURCE if session.id in refused else SKIP_NO_SOURCE
                    skipped.append(Skipped(where, reason))
                continue
            found.append(Item(session, origin, client))
    return _one_per_id(found, skipped), skipped, layouts


def _one_per_id(found: list[Item], skipped: list[Skipped]) -> list[Item]:
    """*found* with one item per id: of one id selected in several roots, the one whose artifacts
    are newest (``layout.newest_first``); each other one is added to *skipped*, naming it."""
    by_id: dict[str, list[Session]] = {}
    for item in found:
        by_id.setdefault(item.session.id, []).append(item.session)
    chosen: dict[str, Session] = {}
    for cid, sessions in by_id.items():
        newest, *others = newest_first(sessions)
        chosen[cid] = newest
        for other in others:
            where = other.source or other.brain
            assert where is not None  # selected sessions have a source or a brain
            age = "as new" if other.newest_mtime_ns == newest.newest_mtime_ns else "older"
            skipped.append(Skipped(where, f"id also in {newest.root} (artifacts here {age}); swept from there"))
    return [item for item in found if chosen[item.session.id] is item.session]


def _has_transcript(session: Session) -> bool:
    """A transcript in any tier: flat files, chunks only, or ``logs/overview.txt``."""
    return session.brain is not None and bool(locate(session.brain).tiers)
