"""The sweep: a fresh trajectory of every selected session, collected into a new private corpus.

Layout of ``OUT`` (created 0700; it must not exist, a symlink counts as existing; files 0600)::

    manifest.json                          schemas/manifest.schema.json; written first with
                                           complete=false, rewritten atomically at the end, once
                                           every file it lists (and its directories) is durable
    corpus/<product>/<id>.trajectory.json  the daemon's ``trajectory`` bytes unchanged, or the
                                           offline reconstruction of the .db (2-space JSON)
    native/<product>/<id>.db               consistent standalone copy (SQLite backup API from a
                                           read-only source; WAL content included; rollback mode)
    native/<product>/brain/<id>/...        byte copies of the session's brain files
    native/<product>/rpc/<id>.GetCascadeTrajectoryGeneratorMetadata.json
                                           a daemon sweep: the daemon's answer to that call, as
                                           sent (when it gives a JSON object; none otherwise)
    native/<product>/install/<root name>/  the root's per-install files (``audit.store.install``):
                                           history.jsonl and cache/<name> as byte copies,
                                           conversation_summaries.db as a backup-API copy; the
                                           manifest names the root (roots[].name) and lists them
                                           with their sha256 (roots[].files)

Selection per root: every ``conversations/<id>.db`` and legacy ``.pb``; a ``.pb`` beside a
``.db`` of the same id is skipped (the ``.db`` is the source); with ``include_implicit`` implicit
files are listed as skipped. A legacy ``.pb``-only session of a root swept natively without the
user's key is selected but *not covered* (it is encrypted: only the daemon reads it): its brain files are copied, and it
is listed in ``notCovered`` with the reason, never in ``sessions``; the manifest is then not
complete. A brain directory with a transcript but no ``.db`` or ``.pb`` (a headless ACP run) is
swept natively as its brain files alone: no trajectory is reconstructed, ``steps`` counts its
transcript's records. Other ids without a ``.db`` or ``.pb`` are skipped (a sidecar is never a
source), and so is every entry the store scan reports as foreign (symbolic links, names that are
not ``<uuid>.<ext>``). One id selected in several roots is one conversation: the root whose
artifacts are newest is swept (``layout.newest_first``, as ``stores show`` and ``export`` choose),
each other one is listed as skipped naming it. A ``selection`` (``audit.store.selection``: ids,
first step time, the newest N, only what this sweep can read) then chooses among those sessions;
the manifest states it and lists each session it left out (``excluded``), and ``selected`` and
``complete`` are for the sessions it chose. Corpus files are created under their names in one
exclusive open each (``safeio.create_in_private_dir``: the corpus is new and private), without an
fsync; a session's files are all written or, on a failure, all removed, and ``_make_durable``
syncs them before the final manifest (one ``syncfs(2)``, or an fsync of each file and directory).
Sources: ``native`` reconstructs offline; ``daemon`` needs a reachable daemon for every root;
``auto`` uses the daemon of a root when one is reachable, else native.

Daemon endpoints come from ``discovery.discover``: a token only goes to a pinned endpoint or to a
listener verified as the root's daemon; the others are noted in ``RootSource.notes``, never
contacted. Fail closed: a failing session stops the sweep unless ``keep_going``; either way the
manifest stays ``complete: false``. A daemon that refuses the token (401/403) stops the sweep of
its root with one failure, ``keep_going`` or not (every other session would be refused the same). Ctrl-C (or SIGTERM) ends the sweep cleanly with an incomplete
manifest. Live stores are only read: ``.db`` files are opened read-only in a way that creates no
file beside them (see ``sqlite_store.open_snapshot``), other files are read as bytes. Nothing is
printed here.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import os
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from audit import __version__
from audit.clock import now_rfc3339
from audit.csrf import scrub
from audit.errors import (
    EXIT_FINDINGS,
    EXIT_OK,
    AuditError,
    InputError,
    NothingToCheck,
    UsageError,
    interrupt_exit_code,
)
from audit.progress import Callback
from audit.safeio import (
    MAX_DOCUMENT_BYTES,
    atomic_write,
    create_in_private_dir,
    filesystem_handle,
    make_private_dir,
    read_bytes,
    sync_files,
)
from audit.store import database, legacy_pb
from audit.store.corpus import ANSWERS, MANIFEST
from audit.store.daemon import GENERATOR_METADATA, AuthError, DaemonClient, DaemonError
from audit.store.database import NativeConversation, open_snapshot, read_database
from audit.store.discovery import ENV_URL, discover
from audit.store.ids import canonical_id
from audit.store.install import INSTALL_DIR, root_name, swept_files
from audit.store.layout import Root, Session, layout_forms, newest_first, refuse_inside_store, scan_root
from audit.store.legacy_pb import Key
from audit.store.selection import Excluded, Selection, choose, excluded_json
from audit.store.trajectory import BlobFields, NativeTrajectory, reconstruct
from audit.store.transcript import Record, iter_transcript, locate
from audit.strictjson import JSONError, dumps, dumps_bytes, gc_paused, loads

SOURCES = ("auto", "daemon", "native")
MANIFEST_VERSION = 2
"""2 added ``selection`` (1: every session was selected)."""
AGY_VERSION_TIMEOUT = 3.0
NOT_COVERED_LEGACY = "legacy encrypted .pb: only the daemon can read it (its brain files were swept)"
SKIP_DUPLICATE_PB = "legacy .pb beside a .db with the same id: the .db is the source"
SKIP_IMPLICIT = "implicit trajectory: the daemon cannot load it and it is encrypted"
SKIP_NO_SOURCE = "no .db, .pb or brain transcript for this id: nothing to sweep (a sidecar alone is never a source)"
SKIP_REFUSED_SOURCE = "this id's conversation file was not read (listed as skipped); its other files are not swept alone"
SKIP_BACKUP = "brain_backup/ copy of a session: a copy, not a store; swept only from brain/"


@dataclass(frozen=True)
class RootSource:
    root: Root
    source: str  # "daemon" | "native"
    endpoint: str | None = None  # base URL, never a token
    origin: str | None = None  # where the endpoint was found
    notes: tuple[str, ...] = ()  # discovered daemons not used (unverified listeners, no /proc)


@dataclass(frozen=True)
class SweptSession:
    id: str
    cascade_id: str
    product: str
    source: str
    steps: int
    files: dict[str, str]  # path relative to OUT -> sha256 hex


@dataclass(frozen=True)
class NotCovered:
    """A selected session whose conversation the sweep could not read (a legacy ``.pb`` swept
    natively): *path* is that file, *files* its brain files that were copied (path relative to
    OUT -> sha256 hex)."""

    id: str
    product: str
    path: Path
    reason: str
    files: dict[str, str]


@dataclass(frozen=True)
class Decoded:
    """What the sweep read of one session it swept, for checks that would read it again: the
    live ``session``, its ``swept`` record, and the ``.db`` copy as read (``conv``) and, for a
    native sweep, reconstructed (``native``); both None without a ``.db``. ``fields`` is what the
    reconstruction recorded of the blobs (``trajectory.BlobFields``) when the sweep was asked to
    (``record_fields``), else None."""

    session: Session
    swept: SweptSession
    conv: NativeConversation | None
    native: NativeTrajectory | None
    fields: BlobFields | None = None


OnSwept = Callable[[Decoded], None]


@dataclass(frozen=True)
class SweptInstall:
    """The per-install files swept from one root: its ``name`` (the corpus directory
    ``native/<product>/install/<name>/``) and what was written (path relative to OUT -> sha256 hex)."""

    root: Path
    name: str
    files: dict[str, str]


@dataclass(frozen=True)
class Failure:
    id: str | None
    stage: str
    message: str


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


@dataclass
class SweepResult:
    out: Path
    started: str
    installed_agy_version: str | None
    roots: list[RootSource]
    selected: int
    finished: str | None = None
    interrupted: int | None = None  # the exit status of an interruption: 130 Ctrl-C, 143 SIGTERM
    sessions: list[SweptSession] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    not_covered: list[NotCovered] = field(default_factory=list)
    installs: list[SweptInstall] = field(default_factory=list)
    layouts: dict[Path, dict[str, str]] = field(default_factory=dict)  # root path -> its sessions' file families
    selection: Selection | None = None  # None: every session
    excluded: list[Excluded] = field(default_factory=list)  # what the selection left out, with why

    @property
    def complete(self) -> bool:
        """Finished, nothing failed, and every selected session covered (swept whole)."""
        return self.finished is not None and not self.failures and len(self.sessions) == self.selected

    @property
    def exit_code(self) -> int:
        """The interruption's exit status (130, 143), else 0 complete, 1 incomplete."""
        return self.interrupted or (EXIT_OK if self.complete else EXIT_FINDINGS)

    def manifest(self) -> dict[str, Any]:
        """The ``manifest.json`` document (schemas/manifest.schema.json)."""
        return {
            "manifestVersion": MANIFEST_VERSION,
            "toolVersion": __version__,
            "complete": self.complete,
            "started": self.started,
            "finished": self.finished,
            "installedAgyVersion": self.installed_agy_version,
            "roots": [self._root_entry(r) for r in self.roots],
            "selected": self.selected,
            "sessions": [
                {
                    "id": s.id,
                    "cascadeId": s.cascade_id,
                    "product": s.product,
                    "source": s.source,
                    "steps": s.steps,
                    "files": s.files,
                }
                for s in self.sessions
            ],
            "notCovered": [
                {"id": n.id, "product": n.product, "path": str(n.path), "reason": n.reason, "files": n.files}
                for n in self.not_covered
            ],
            "failures": [{"id": f.id, "stage": f.stage, "message": f.message} for f in self.failures],
            "skipped": [{"path": str(s.path), "reason": s.reason} for s in self.skipped],
            "selection": None
            if self.selection is None
            else self.selection.to_json() | {"excluded": excluded_json(self.excluded)},
        }

    def _root_entry(self, r: RootSource) -> dict[str, Any]:
        """A root of the manifest: where it is, how it was read, its name and its per-install files."""
        files = next((i.files for i in self.installs if i.root == r.root.path), {})
        return {
            "path": str(r.root.path),
            "product": r.root.product,
            "source": r.source,
            "endpoint": r.endpoint,
            "name": root_name(r.root.path),
            "files": files,
            "layout": self.layouts.get(r.root.path, {}),
        }


class _Failed(Exception):
    def __init__(self, stage: str, message: str, *, auth: bool = False) -> None:
        super().__init__(message)
        self.stage = stage
        self.message = " ".join(message.split())
        self.auth = auth  # the daemon refused the token (HTTP 401/403)


@dataclass(frozen=True)
class _Item:
    session: Session
    origin: RootSource
    client: DaemonClient | None
    uncovered: str | None = None  # why its conversation cannot be read (its brain files are still swept)


def sweep(
    roots: Iterable[Root],
    out: str | os.PathLike[str],
    *,
    source: str = "auto",
    timeout: float = 30.0,
    keep_going: bool = False,
    include_implicit: bool = False,
    allow_remote: bool = False,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike[str] | None = None,
    progress: Callback | None = None,
    on_swept: OnSwept | None = None,
    on_selected: Callable[[int], bool] | None = None,
    selection: Selection | None = None,
    key: Key | None = None,
) -> SweepResult:
    """Sweep *roots* into the new directory *out*; see the module docstring. *progress* is called
    before each session with (sessions done, sessions selected, id about to be swept); *on_swept*
    after each session whose files are all written, with what was read of it (``Decoded``), so
    that a caller can check the session while it is decoded; an exception it raises is not a
    session failure: it ends the sweep without the final manifest, except Ctrl-C and SIGTERM,
    which end it as they do between sessions. *on_selected* is called once, with the number of
    sessions selected, before the first is swept; when it returns True, each native reconstruction
    records which fields each blob held (``Decoded.fields``), for an *on_swept* that would
    otherwise parse the blobs again. *selection* chooses among the sessions found
    (``audit.store.selection``; None or one that gives nothing: every session); what it leaves out
    is ``SweepResult.excluded``, and the manifest states it. With the user's *key*, a legacy
    ``.pb``-only session of a root swept natively is read as a ``.db`` is (``audit.store.legacy_pb``):
    its ``.pb`` is copied as it is (encrypted) to ``native/<product>/<id>.pb`` and its
    reconstruction written to the corpus; a ``.pb`` the key does not authenticate is a failure.

    Raises before creating anything: ``UsageError`` (bad arguments, *out* inside a store, a
    non-loopback daemon without *allow_remote*), ``InputError`` (*out* exists or cannot be
    created; ``source="daemon"`` and a root without a reachable daemon), ``NothingToCheck`` (no
    session selected), ``UsageError`` (an id prefix of *selection* that matches no session). Session failures and Ctrl-C are recorded in the result, never raised.
    """
    env = os.environ if env is None else env
    if source not in SOURCES:
        raise UsageError(f"source must be one of {', '.join(SOURCES)}")
    if not timeout > 0:
        raise UsageError("timeout must be a positive number of seconds")
    roots = list(roots)
    out = Path(out).absolute()
    if os.path.lexists(out):
        raise InputError(f"{out}: already exists; the sweep needs a new directory")
    refuse_inside_store(out, roots, "corpus")
    started = now_rfc3339()
    chosen = [_choose_source(root, source, timeout, allow_remote, env, proc_root) for root in roots]
    items, skipped, layouts = _select(chosen, include_implicit, key)
    if not items:
        raise NothingToCheck(f"nothing to sweep: no .db, .pb or brain transcript selected ({len(skipped)} file(s) skipped)")
    selection = selection if selection is not None and selection.given else None
    excluded: list[Excluded] = []
    if selection is not None:
        by_id = {item.session.id: item for item in items}
        picked = choose([item.session for item in items], selection, lambda s: by_id[s.id].uncovered is None)
        items, excluded = [by_id[s.id] for s in picked.kept], picked.excluded
        if not items:
            first = excluded[0]
            raise NothingToCheck(
                f"nothing to sweep: the selection leaves out every session ({len(excluded)}; {first.session.id}: {first.reason})"
            )
    origins = [origin for origin, _ in chosen]
    result = SweepResult(out, started, installed_agy_version(env), origins, len(items), skipped=skipped, layouts=layouts)
    result.selection, result.excluded = selection, excluded
    make_private_dir(out)
    corpus = _Corpus(out)
    try:
        pending = collections.deque(items)  # each session's listing is let go once it is swept
        del items
        record_fields = on_selected is not None and on_selected(result.selected)
        return _sweep_items(result, corpus, pending, keep_going, progress, on_swept, record_fields, key)
    finally:
        corpus.close()


def _sweep_items(
    result: SweepResult,
    corpus: _Corpus,
    pending: collections.deque[_Item],
    keep_going: bool,
    progress: Callback | None,
    on_swept: OnSwept | None,
    record_fields: bool = False,
    key: Key | None = None,
) -> SweepResult:
    _write_manifest(result)
    current = None
    rejected: set[Path] = set()  # roots whose daemon refused the token: the rest of them is not swept
    try:
        stopped = not _sweep_installs(result, corpus, keep_going)
        for done in range(0 if stopped else result.selected):
            item = pending.popleft()
            if item.origin.root.path in rejected:
                continue
            current = item.session.id
            if progress is not None:
                progress(done, result.selected, current)
            try:
                if item.uncovered is not None:
                    result.not_covered.append(_sweep_uncovered(item, corpus))
                    continue
                with gc_paused():  # the decoding makes only acyclic containers: a GC pass would rescan what ci holds
                    swept, conv, native, fields = _sweep_one(item, corpus, record_fields, key)
            except _Failed as failed:
                message = item.client.shown(failed.message, len(failed.message)) if item.client else failed.message
                if failed.auth:
                    rejected.add(item.origin.root.path)
                    left = sum(1 for later in pending if later.origin.root.path == item.origin.root.path)
                    message += f"; sweep of {item.origin.root.path} stopped: {left} more session(s) of this root not tried"
                result.failures.append(Failure(current, failed.stage, message))
                if not keep_going:
                    break
                continue
            result.sessions.append(swept)
            if on_swept is not None:
                on_swept(Decoded(item.session, swept, conv, native, fields))
        current = None
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (audit.errors.Terminated)
        result.interrupted = interrupt_exit_code(exc)
        result.failures.append(Failure(current, "interrupted", "interrupted before every selected session was swept"))
    try:
        _make_durable(result, corpus)
    except KeyboardInterrupt as exc:
        result.interrupted = result.interrupted or interrupt_exit_code(exc)
        result.failures.append(Failure(None, "interrupted", "interrupted while the corpus was being synced to disk"))
    result.finished = now_rfc3339()
    _write_manifest(result)
    return result


def _make_durable(result: SweepResult, corpus: _Corpus) -> None:
    """Every file the final manifest lists, and its directories, made durable before the manifest
    is written: files are written without an fsync each, and the manifest is the commit point.
    One ``syncfs(2)`` of the corpus filesystem where Linux offers it (on the descriptor held since
    the corpus was created), else, or when it fails, an fsync of each file and directory."""
    written = [s.files for s in result.sessions] + [n.files for n in result.not_covered] + [i.files for i in result.installs]
    files = (f"{corpus.root}/{rel}" for listed in written for rel in listed)  # named only if fsynced one by one
    try:
        sync_files(files, result.out, filesystem=corpus.fd)
    except InputError as exc:
        result.failures.append(Failure(None, "write", f"{exc.message}; the corpus is not durable"))


def installed_agy_version(env: Mapping[str, str]) -> str | None:
    """First line of ``agy --version`` (short timeout), or None when it does not answer."""
    agy = shutil.which("agy", path=env.get("PATH"))
    if agy is None:
        return None
    try:
        done = subprocess.run(
            [agy, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=AGY_VERSION_TIMEOUT,
            env=dict(env),
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[0][:200] if done.returncode == 0 and lines else None


# ----------------------------------------------------------------------------- planning


def _choose_source(
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


def _select(
    chosen: list[tuple[RootSource, DaemonClient | None]],
    include_implicit: bool,
    key: Key | None = None,
) -> tuple[list[_Item], list[Skipped], dict[Path, dict[str, str]]]:
    """The sessions to sweep, the entries skipped, and per root the file families of its sessions
    (``layout_forms``: the store's layout, which the corpus copies only in part)."""
    found: list[_Item] = []
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
                found.append(_Item(session, origin, client, NOT_COVERED_LEGACY))
                continue
            if session.source is None and (session.id in refused or not _has_transcript(session)):
                where = session.sidecar or session.brain
                if where is not None:
                    reason = SKIP_REFUSED_SOURCE if session.id in refused else SKIP_NO_SOURCE
                    skipped.append(Skipped(where, reason))
                continue
            found.append(_Item(session, origin, client))
    return _one_per_id(found, skipped), skipped, layouts


def _one_per_id(found: list[_Item], skipped: list[Skipped]) -> list[_Item]:
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


# ----------------------------------------------------------------------------- one session


_Swept = tuple[SweptSession, NativeConversation | None, NativeTrajectory | None, BlobFields | None]


class _Corpus:
    """The corpus being written: its path, the directories this sweep made in it (each created,
    and checked to be a directory, once), and a descriptor on it opened right after it was
    created (None if that failed), for one ``syncfs`` at the end (see ``_make_durable``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.root = str(path)
        self.made: set[str] = {self.root}
        self.fd: int | None = None
        with contextlib.suppress(OSError):  # without it, each file is fsynced
            self.fd = filesystem_handle(path)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def write(self, rel: str, data: bytes, files: dict[str, str]) -> str:
        """Create ``<corpus>/<rel>`` with *data*, its missing directories 0700; *rel* is
        recorded in *files* with its sha256 once the whole file is written."""
        path = f"{self.root}/{rel}"
        parent = path.rpartition("/")[0]
        if parent not in self.made:
            _stage("write", make_private_dir, parent, exist_ok=True)
            while parent not in self.made:  # it and every directory above it, up to the corpus
                self.made.add(parent)
                parent = parent.rpartition("/")[0]
        # a new name in the private corpus: one exclusive open, no temp file; durable before the final manifest
        _stage("write", create_in_private_dir, path, data)
        files[rel] = hashlib.sha256(data).hexdigest()
        return path

    def remove(self, files: dict[str, str]) -> None:
        """Remove the files of *files* and the directories that are then empty."""
        for rel in files:
            path = f"{self.root}/{rel}"
            with contextlib.suppress(OSError):
                os.unlink(path)
            parent = path.rpartition("/")[0]
            while parent != self.root and _rmdir_if_empty(parent):
                self.made.discard(parent)
                parent = parent.rpartition("/")[0]


def _sweep_one(item: _Item, corpus: _Corpus, record_fields: bool = False, key: Key | None = None) -> _Swept:
    """Write every file of one session, or none: on any failure what was written is removed.
    Returns what was written, with the ``.db`` (or ``.pb``) copy as read and reconstructed (see
    ``Decoded``); a legacy ``.pb`` is read with the user's *key*."""
    files: dict[str, str] = {}
    with _all_or_none(corpus, files):
        return _sweep_files(item, corpus, files, record_fields, key)


@contextlib.contextmanager
def _all_or_none(corpus: _Corpus, files: dict[str, str]) -> Iterator[None]:
    """On any failure inside it (Ctrl-C included) the files of *files* written so far are removed."""
    try:
        yield
    except BaseException:
        corpus.remove(files)
        raise


def _sweep_uncovered(item: _Item, corpus: _Corpus) -> NotCovered:
    """Copy the brain files of a session whose conversation cannot be read, all or none."""
    session, files = item.session, dict[str, str]()
    assert item.uncovered is not None and session.source is not None
    with _all_or_none(corpus, files):
        _check_listed(session)
        _copy_brain(session, corpus, files)
    return NotCovered(session.id, session.product, session.source, item.uncovered, files)


def _check_listed(session: Session) -> None:
    if session.unlisted:  # a part of the session could not be listed: its copy would be incomplete
        first = session.unlisted[0]
        raise _Failed("brain", f"{first.path}: {first.reason}; the session's files there were not swept")


def _rmdir_if_empty(path: str) -> bool:
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


def _sweep_files(
    item: _Item, corpus: _Corpus, files: dict[str, str], record_fields: bool = False, key: Key | None = None
) -> _Swept:
    session, product = item.session, item.session.product
    _check_listed(session)
    if session.source is None:  # brain transcripts alone (headless ACP runs): copied, nothing reconstructed
        _copy_brain(session, corpus, files)
        records = _transcript_steps(session, corpus.path)
        return SweptSession(session.id, session.id, product, "native", records, files), None, None, None
    internal = conv = native = fields = None
    if session.db is not None:
        copy = corpus.write(f"native/{product}/{session.id}.db", _stage("copy", backup_database, session.db), files)
        conv = read_database(copy)
        if not conv.access:
            problems = "; ".join(f.message.removeprefix(f"{copy}: ") for f in conv.findings) or "unreadable"
            raise _Failed("read", f"{session.db}: {problems}")  # name the store's file, not our copy
        internal = canonical_id(conv.internal_cascade_id)
    elif session.legacy_pb is not None and item.client is None and key is not None:
        data = _stage("copy", read_bytes, session.legacy_pb, limit=legacy_pb.MAX_BYTES)
        copy = corpus.write(f"native/{product}/{session.id}.pb", data, files)  # as it is: encrypted
        conv = legacy_pb.read_legacy(copy, key)
        if not conv.access:
            problems = "; ".join(f.message.removeprefix(f"{copy}: ") for f in conv.findings)
            raise _Failed("decrypt", f"{session.legacy_pb}: {problems}")  # the store's file, not our copy
        internal = canonical_id(conv.internal_cascade_id)
    if item.client is not None:
        fetched = _stage("fetch", item.client.fetch_trajectory, session.id, internal)
        raw, trajectory = fetched.raw, fetched.trajectory
        generations = _stage("fetch", _generator_metadata, item.client, fetched.requested_id)
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
        raise _Failed(
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


def _sweep_installs(result: SweepResult, corpus: _Corpus, keep_going: bool) -> bool:
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
                data = _stage("install", read, copy.path)
                corpus.write(f"native/{root.product}/{INSTALL_DIR}/{name}/{copy.rel}", data, files)
        except _Failed as failed:
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


def _shown(item: _Item, value: object) -> str:
    """A value from the trajectory as message text (80 characters): from a daemon, scrubbed of
    its token before the cut."""
    if item.client is not None:
        return item.client.shown(value, 80)
    return " ".join(str(value).split())[:80]


def _brain_dir(session: Session) -> str:
    """Where the corpus keeps the copies of the session's brain files (relative to the corpus)."""
    return f"native/{session.product}/brain/{session.id}"


def _copy_brain(session: Session, corpus: _Corpus, files: dict[str, str]) -> None:
    brain = session.brain
    if brain is None:  # no brain directory, so no brain files
        return
    base, where = os.path.join(brain, ""), _brain_dir(session)
    for path in sorted(p for paths in session.brain_files.values() for p in paths):
        name = os.fspath(path)
        rel = name[len(base) :] if os.sep == "/" and name.startswith(base) else path.relative_to(brain).as_posix()
        corpus.write(f"{where}/{rel}", _stage("brain", read_bytes, path), files)


def _has_transcript(session: Session) -> bool:
    """A transcript in any tier: flat files, chunks only, or ``logs/overview.txt``."""
    return session.brain is not None and bool(locate(session.brain).tiers)


def _transcript_steps(session: Session, out: Path) -> int:
    """Records in the copied transcript (the compact tier, read from its chunks when it has only
    chunks, else the full tier, else overview): the live files may have grown since they were copied."""
    copied = locate(out / _brain_dir(session))
    tier = "compact" if copied.compact else "full" if copied.full else "overview"
    stream = copied.compact or copied.full or copied.overview
    return sum(isinstance(item, Record) for item in iter_transcript(stream, tier=tier))


_P = ParamSpec("_P")
_T = TypeVar("_T")


def _stage(stage: str, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    try:
        return function(*args, **kwargs)
    except AuthError as exc:
        raise _Failed(stage, exc.message, auth=True) from None
    except AuditError as exc:
        raise _Failed(stage, exc.message) from None
    except OSError as exc:
        raise _Failed(stage, f"{exc.filename or ''}: {exc.strerror or exc}") from None


def _write_manifest(result: SweepResult) -> None:
    atomic_write(result.out / MANIFEST, (dumps(result.manifest()) + "\n").encode())


# ----------------------------------------------------------------------------- .db copies


_BACKUP_PAGES = 1024  # pages per backup step: Python regains control (signals, the deadline) between steps


def _backup_progress(path: Path) -> Callable[[int, int, int], None]:
    """A backup-API progress callback that turns SQLITE_BUSY/LOCKED lasting longer than the busy
    timeout into an error (the API itself retries forever); being Python code, it also lets
    Ctrl-C and SIGTERM through between steps."""
    deadline: list[float | None] = [None]

    def progress(status: int, remaining: int, total: int) -> None:
        if status not in (5, 6):  # SQLITE_BUSY, SQLITE_LOCKED
            deadline[0] = None
            return
        now = time.monotonic()
        if deadline[0] is None:
            deadline[0] = now + database.BUSY_TIMEOUT
        elif now > deadline[0]:
            raise sqlite3.OperationalError("database is locked")

    return progress


def backup_database(path: Path) -> bytes:
    """A consistent standalone image of the SQLite database at *path*, committed ``-wal`` pages included.

    SQLite's backup API copies from a read-only snapshot connection (``sqlite_store.open_snapshot``) into memory. The
    image is then marked as a rollback-journal database (header bytes 18-19 = 1; 2 means WAL): it
    holds every committed page, so opening the copy needs no ``-wal`` or ``-shm`` beside it.
    """
    try:
        with open_snapshot(path) as (source, _):
            # open_snapshot holds the read lock already (a writer holding the file under BEGIN
            # EXCLUSIVE is SQLITE_BUSY after the busy timeout, never an endless retry inside the
            # backup API); the copy runs inside that read transaction.
            memory = sqlite3.connect(":memory:")
            try:
                source.backup(memory, pages=_BACKUP_PAGES, progress=_backup_progress(path))
                image = memory.serialize()
            finally:
                memory.close()
    except sqlite3.Error as exc:
        raise InputError(f"{path}: cannot copy the database ({exc})") from None
    return image[:18] + b"\x01\x01" + image[20:] if len(image) >= 100 else image
