"""A verified backup of a sidecar directory, verification against it, and rollback from it.

Layout of a backup directory (0700, must not exist beforehand)::

    <backup>/sidecars/<uuid>.trajectory.json   byte copies, mtimes kept, 0600
    <backup>/manifest.json                     written last (exclusive create, 0600)

``manifest.json``: ``{"version": 1, "root": "<absolute sidecar directory>", "files": {"<name>":
{"sha256": "<hex>", "mtimeNs": <int>, "size": <int>, "mode": <int>, "repairedSha256": "<hex>"}}}``.
``mode`` (the permission bits, restored by a rollback) and ``repairedSha256`` (the bytes the
repair writes: what a rollback may replace besides the backup's own bytes) are absent from
backups made before they were recorded. A backup without a manifest was interrupted and is
unusable; one whose copies no longer match their hashes was tampered with.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.actions import writelock
from audit.actions.link_writer import check_writable, store_busy
from audit.checks import diff
from audit.checks.links import SIDECAR_NAME, find_cycles, list_sidecars
from audit.errors import EXIT_FINDINGS, EXIT_OK, AuditError, FindingsError, InputError, NothingToCheck, interrupt_exit_code
from audit.progress import Callback, tracked
from audit.safeio import FILE, exists, is_dir, is_file, path_kind, read_bytes, read_json
from audit.safewrite import atomic_write, create_durable_file, make_private_dir
from audit.store.ids import canonical_id
from audit.store.reader_block import PARENT_KEY, READER_BLOCK, json_equal, strip_reader_key
from audit.store.sidecar import MAX_SIDECAR_BYTES, FileState, sha256_hex
from audit.strictjson import dumps, loads

MANIFEST = "manifest.json"
FILES_DIR = "sidecars"  # not "conversations": a backup must never look like a store
VERSION = 1


@dataclass(frozen=True)
class Backup:
    path: Path
    root: Path  # the sidecar directory that was backed up
    files: Mapping[str, FileState]
    modes: Mapping[str, int] = field(default_factory=dict)  # permission bits at backup time
    repaired: Mapping[str, str] = field(default_factory=dict)  # sha256 of the bytes the repair writes


@dataclass(frozen=True)
class Verification:
    backup: Path
    root: Path
    verified: int  # files compared
    changed: tuple[str, ...]  # names whose bytes differ from the backup
    parent_links: int  # valid stamps in the current state
    cycles: int
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.ok else EXIT_FINDINGS


@dataclass(frozen=True)
class Rollback:
    backup: Path
    root: Path
    restored: tuple[str, ...]
    unchanged: int
    extra: tuple[str, ...]  # sidecars added after the backup (left alone)


def default_backup_dir(root: str | os.PathLike[str], *, now: _dt.datetime | None = None) -> Path:
    """A new directory next to *root*: ``agy-audit-links-backup-<root name>-<UTC stamp>[-N]``.

    The name does not start with ``antigravity`` so store discovery never mistakes it for a root.
    """
    root = Path(root).absolute()
    stamp = (now or _dt.datetime.now(_dt.UTC)).strftime("%Y%m%dT%H%M%SZ")
    base = root.parent / f"agy-audit-links-backup-{root.name}-{stamp}"
    candidate, n = base, 1
    while os.path.lexists(candidate):
        n += 1
        candidate = base.with_name(f"{base.name}-{n}")
    return candidate


def create(
    directory: str | os.PathLike[str],
    backup_dir: str | os.PathLike[str],
    *,
    expect: Mapping[str, FileState] | None = None,
    plan: Callable[[bytes, str], bytes] | None = None,
    progress: Callback | None = None,
) -> Backup:
    """Copy every sidecar of *directory* into the new *backup_dir*; the manifest comes last.

    Every sidecar must be a regular, non-symlink file. Each copy is checked against the source's
    sha256 and keeps its mtime. A source whose size, mtime or hash changes while it is copied, or
    that differs from *expect* (the states a resolution read), means a writer is active. Each
    file's permission bits are recorded; with *plan* (``plan(bytes, name)``: the bytes a repair
    will write) so is the sha256 of the repaired bytes. *progress* is told before each copy.
    """
    root = Path(directory).resolve()
    listing = list_sidecars(root)
    for name, regular in listing:
        if not regular:
            raise InputError(f"{root / name}: not a regular sidecar (symbolic link or special file); refusing to back up")
    if not listing:
        raise NothingToCheck(f"{root}: no sidecars to back up")
    names = [name for name, _ in listing]
    if expect is not None and set(names) != set(expect):
        raise store_busy(root)
    backup = Path(backup_dir).absolute()
    make_private_dir(backup)
    try:
        return _copy(root, names, backup, expect, plan, progress)
    except BaseException:  # a failed or interrupted backup is removed: no unusable leftover
        shutil.rmtree(backup, ignore_errors=True)
        raise


def _copy(
    root: Path,
    names: list[str],
    backup: Path,
    expect: Mapping[str, FileState] | None,
    plan: Callable[[bytes, str], bytes] | None,
    progress: Callback | None,
) -> Backup:
    copies = make_private_dir(backup / FILES_DIR)
    files: dict[str, FileState] = {}
    modes: dict[str, int] = {}
    repaired: dict[str, str] = {}
    for name in tracked(names, progress):
        source = root / name
        before = os.lstat(source)
        modes[name] = stat.S_IMODE(before.st_mode)
        data = read_bytes(source, limit=MAX_SIDECAR_BYTES)
        after = os.lstat(source)
        state = FileState(len(data), after.st_mtime_ns, sha256_hex(data))
        if (before.st_size, before.st_mtime_ns) != (after.st_size, state.mtime_ns) or after.st_size != state.size:
            raise store_busy(source)
        if expect is not None and expect[name] != state:
            raise store_busy(source)
        atomic_write(copies / name, data, mtime_ns=state.mtime_ns)
        if (
            sha256_hex(read_bytes(copies / name, limit=MAX_SIDECAR_BYTES)) != state.sha256
            or os.lstat(copies / name).st_mtime_ns != state.mtime_ns
        ):
            raise InputError(f"{copies / name}: the copy does not match its source; backup abandoned")
        files[name] = state
        if plan is not None:
            repaired[name] = sha256_hex(plan(data, name))
    if [name for name, _ in list_sidecars(root)] != names:
        raise store_busy(root)
    for name, state in files.items():
        st = os.lstat(root / name)
        if (st.st_size, st.st_mtime_ns) != (state.size, state.mtime_ns):
            raise store_busy(root / name)
    manifest = {
        "version": VERSION,
        "root": str(root),
        "files": {
            n: {"sha256": s.sha256, "mtimeNs": s.mtime_ns, "size": s.size, "mode": modes[n]}
            | ({"repairedSha256": repaired[n]} if n in repaired else {})
            for n, s in files.items()
        },
    }
    create_durable_file(backup / MANIFEST, (dumps(manifest) + "\n").encode("utf-8"))
    return Backup(backup, root, files, modes, repaired)


def load(backup_dir: str | os.PathLike[str]) -> Backup:
    """A complete, untampered backup: the manifest is valid and every copy matches its hash.

    No manifest (an interrupted backup) or a malformed one is an ``InputError``; a copy that is
    missing, extra or changed is a ``FindingsError`` ("backup content changed").
    """
    backup = Path(backup_dir).absolute()
    manifest_path = backup / MANIFEST
    if not is_dir(backup):
        raise InputError(f"{backup}: no such backup directory")
    if not is_file(manifest_path):
        raise InputError(f"{backup}: incomplete backup (no {MANIFEST}); it was interrupted and cannot be used")
    doc = read_json(manifest_path)
    root, entries = doc.get("root"), doc.get("files")
    if (
        doc.get("version") != VERSION
        or not isinstance(root, str)
        or "\x00" in root
        or not Path(root).is_absolute()
        or not isinstance(entries, dict)
    ):
        raise InputError(f"{manifest_path}: not a version {VERSION} links backup manifest")
    files: dict[str, FileState] = {}
    modes: dict[str, int] = {}
    repaired: dict[str, str] = {}
    for name, entry in entries.items():
        sha, mtime, size = (entry.get(k) if isinstance(entry, dict) else None for k in ("sha256", "mtimeNs", "size"))
        if not SIDECAR_NAME.fullmatch(name) or not _is_sha256(sha) or type(mtime) is not int or type(size) is not int:
            raise InputError(f"{manifest_path}: malformed entry {name!r}")
        if mtime not in _NANOSECONDS or not 0 <= size <= MAX_SIDECAR_BYTES:
            what = "mtimeNs" if mtime not in _NANOSECONDS else "size"
            raise InputError(f"{manifest_path}: malformed entry {name!r}: {what} out of range")
        files[name] = FileState(size, mtime, sha)
        mode, after = entry.get("mode"), entry.get("repairedSha256")
        if (mode is not None and (type(mode) is not int or not 0 <= mode <= 0o7777)) or (
            after is not None and not _is_sha256(after)
        ):
            raise InputError(f"{manifest_path}: malformed entry {name!r}")
        if mode is not None:
            modes[name] = mode
        if after is not None:
            repaired[name] = after
    copies = backup / FILES_DIR
    present = list_sidecars(copies)
    if sorted(files) != [name for name, _ in present] or not all(regular for _, regular in present):
        raise FindingsError(f"{backup}: backup content changed (its file set differs from {MANIFEST}); refusing to use it")
    for name, state in files.items():
        if sha256_hex(read_bytes(copies / name, limit=MAX_SIDECAR_BYTES)) != state.sha256:
            raise FindingsError(f"{copies / name}: backup content changed (sha256 differs from {MANIFEST}); refusing to use it")
    return Backup(backup, Path(root), files, modes, repaired)


_NANOSECONDS = range(-(2**63), 2**63)  # what a file's mtime can be set to (64-bit nanoseconds)
_SHA256 = re.compile("[0-9a-f]{64}")


def _is_sha256(value: object) -> bool:
    return isinstance(value, str) and _SHA256.fullmatch(value) is not None


def _payload(data: bytes, source: str) -> object:
    try:
        return strip_reader_key(loads(data, source=source, exact=True), PARENT_KEY)
    except InputError:
        return None


def verify(backup_dir: str | os.PathLike[str], *, unchanged: bool = False, progress: Callback | None = None) -> Verification:
    """Compare the backed-up directory with its backup.

    Problems: a changed file set, a non-regular sidecar, a changed mtime, any payload difference
    other than ``agyReader.parentCascadeId`` (type-strict, numbers by exact text; with *unchanged*
    any byte difference), an unreadable sidecar, an invalid or duplicate cascade id, an invalid
    stamp, a cycle of stamps. *progress* is told before each sidecar is compared.
    """
    bk = load(backup_dir)
    problems: list[str] = []
    listing = dict(list_sidecars(bk.root))
    added, removed = sorted(set(listing) - set(bk.files)), sorted(set(bk.files) - set(listing))
    if added or removed:
        problems.append(f"file set changed: added {', '.join(added) or 'none'}; removed {', '.join(removed) or 'none'}")
    changed: list[str] = []
    parents: dict[str, str | None] = {}
    owners: dict[str, str] = {}
    for name in tracked(sorted(set(listing) & set(bk.files)), progress):
        path, state = bk.root / name, bk.files[name]
        if not listing[name]:
            problems.append(f"{name}: not a regular sidecar (symbolic link or special file)")
            continue
        data = read_bytes(path, limit=MAX_SIDECAR_BYTES)
        st = os.lstat(path)
        if st.st_mtime_ns != state.mtime_ns:
            problems.append(f"{name}: timestamp changed (mtime_ns {state.mtime_ns} -> {st.st_mtime_ns})")
        if name in bk.modes and stat.S_IMODE(st.st_mode) != bk.modes[name]:
            problems.append(f"{name}: mode changed ({bk.modes[name]:04o} -> {stat.S_IMODE(st.st_mode):04o})")
        try:
            doc = loads(data, source=name, exact=True)
        except InputError as exc:
            problems.append(exc.message)
            doc = None
        if sha256_hex(data) != state.sha256:
            changed.append(name)
            old = _payload(read_bytes(bk.path / FILES_DIR / name, limit=MAX_SIDECAR_BYTES), name)
            if unchanged:
                problems.append(f"{name}: bytes changed")
            elif doc is None or old is None or not json_equal(strip_reader_key(doc, PARENT_KEY), old):
                what = (
                    "" if doc is None or old is None else f" ({diff.explain(old, strip_reader_key(doc, PARENT_KEY), ignore=())})"
                )
                problems.append(f"{name}: payload changed outside {READER_BLOCK}.{PARENT_KEY}{what}")
        if doc is not None:
            _graph_entry(name, doc, parents, owners, problems)
    cycles = find_cycles(parents)
    problems.extend("parent cycle: " + " -> ".join(c + [c[0]]) for c in cycles)
    links = sum(1 for p in parents.values() if p is not None)
    return Verification(bk.path, bk.root, len(set(listing) & set(bk.files)), tuple(changed), links, len(cycles), tuple(problems))


def _graph_entry(
    name: str, doc: dict[str, Any], parents: dict[str, str | None], owners: dict[str, str], problems: list[str]
) -> None:
    cid = canonical_id(doc.get("cascadeId"))
    if cid is None:
        problems.append(f"{name}: invalid cascadeId")
        return
    if cid in owners:
        problems.append(f"{name}: duplicate cascadeId {cid} (also in {owners[cid]})")
        return
    owners[cid] = name
    block = doc.get(READER_BLOCK)
    stamp = None
    if isinstance(block, dict) and PARENT_KEY in block:
        stamp = canonical_id(block[PARENT_KEY])
        if stamp is None:
            problems.append(f"{name}: invalid {READER_BLOCK}.{PARENT_KEY}")
    parents[cid] = stamp


def rollback(
    backup_dir: str | os.PathLike[str],
    *,
    force: bool = False,
    lock_timeout: float = writelock.DEFAULT_TIMEOUT,
    waiting: Callable[[str], None] | None = None,
    progress: Callback | None = None,
) -> Rollback:
    """Restore every backed-up sidecar's bytes, mtime and mode (atomic writes); files added later
    stay. Holds the backed-up directory's writer lock (``writelock.held``) throughout.

    Refuses an incomplete or tampered backup, and a target that is now a symlink or not a file.
    It writes only into the directory the backup was taken from, as the backup's copies show
    (not the manifest's word, which a tampered manifest could point anywhere): a
    ``conversations`` directory that still holds one of the backed-up sidecars with its
    backed-up or repaired bytes -- even with *force*. Unless *force*, it also refuses -- before
    writing anything -- a sidecar that changed after the repair (neither the backup's bytes nor
    the bytes the repair wrote; for a backup that did not record those, any change outside
    ``agyReader.parentCascadeId``) and a write-protected one: restoring would silently discard
    what a writer added since. Interrupted (Ctrl-C, SIGTERM) between two restores, it says how
    many were restored and that running it again finishes the job. *progress* is told before
    each sidecar is restored (or found as it was).
    """
    bk = load(backup_dir)
    if not is_dir(bk.root):
        raise InputError(f"{bk.root}: the backed-up directory no longer exists")
    with writelock.held([bk.root], timeout=lock_timeout, waiting=waiting):
        for name in bk.files:
            try:
                st_mode = os.lstat(bk.root / name).st_mode
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st_mode):
                raise InputError(f"{bk.root / name}: not a regular file (symbolic link?); remove it, then roll back again")
        _refuse_another_root(bk)
        copies: dict[str, bytes] = {}
        for name, state in bk.files.items():
            data = read_bytes(bk.path / FILES_DIR / name, limit=MAX_SIDECAR_BYTES)
            if sha256_hex(data) != state.sha256:
                raise FindingsError(f"{bk.path / FILES_DIR / name}: backup content changed; rollback stopped")
            copies[name] = data
        if not force:
            _refuse_later_changes(bk)
        restored: list[str] = []
        try:
            same = _restore(bk, copies, restored, progress)
        except KeyboardInterrupt as exc:
            raise AuditError(
                f"{bk.root}: interrupted after restoring {len(restored)} of {len(bk.files)} sidecar(s) from {bk.path}; "
                f"the others are as they were: run `agy-audit links rollback --backup {bk.path}` again to finish",
                exit_code=interrupt_exit_code(exc),
            ) from None
        extra = tuple(sorted(name for name, _ in list_sidecars(bk.root) if name not in bk.files))
    return Rollback(bk.path, bk.root, tuple(restored), same, extra)


def _restore(bk: Backup, copies: Mapping[str, bytes], restored: list[str], progress: Callback | None) -> int:
    """Write back every sidecar that differs from its copy (appended to *restored* as it is
    written); the number already equal to theirs."""
    same = 0
    for name in tracked(list(bk.files), progress):
        state = bk.files[name]
        target, data = bk.root / name, copies[name]
        mode = bk.modes.get(name)
        if exists(target):
            st = os.lstat(target)
            mode = stat.S_IMODE(st.st_mode) if mode is None else mode
            if (
                st.st_mtime_ns == state.mtime_ns
                and st.st_size == state.size
                and stat.S_IMODE(st.st_mode) == mode
                and read_bytes(target, limit=MAX_SIDECAR_BYTES) == data
            ):
                same += 1
                continue
        atomic_write(target, data, mtime_ns=state.mtime_ns, mode=0o600 if mode is None else mode)
        restored.append(name)
    return same


def _refuse_another_root(bk: Backup) -> None:
    """``FindingsError`` unless ``bk.root`` is where the backup was taken from (see ``rollback``)."""
    if bk.root.name == "conversations":
        for name, state in bk.files.items():
            target = bk.root / name
            if path_kind(target, follow_symlinks=False) != FILE:
                continue
            data = read_bytes(target, limit=MAX_SIDECAR_BYTES)
            if sha256_hex(data) in (state.sha256, bk.repaired.get(name)):
                return
            if name not in bk.repaired and _same_payload(bk, name, data):  # an older backup: no repaired digest
                return
    raise FindingsError(
        f"{bk.root}: not the directory {bk.path} was taken from: it holds none of the backed-up sidecars with its "
        "backed-up or repaired bytes (a manifest whose root was changed?); nothing rolled back"
    )


def _same_payload(bk: Backup, name: str, data: bytes) -> bool:
    """Whether *data* is the backed-up sidecar *name* but for ``agyReader.parentCascadeId``."""
    now = _payload(data, name)
    old = _payload(read_bytes(bk.path / FILES_DIR / name, limit=MAX_SIDECAR_BYTES), name)
    return now is not None and old is not None and json_equal(now, old)


def _refuse_later_changes(bk: Backup) -> None:
    changed = []
    for name, state in bk.files.items():
        target = bk.root / name
        if not exists(target):
            continue
        data = read_bytes(target, limit=MAX_SIDECAR_BYTES)
        digest = sha256_hex(data)
        if digest == state.sha256:
            continue
        check_writable(target)  # it is to be replaced: not against its owner's write protection
        if digest == bk.repaired.get(name):
            continue
        if name not in bk.repaired and _same_payload(bk, name, data):  # an older backup: only the stamp may differ
            continue
        changed.append(target)
    if changed:
        more = f" (and {len(changed) - 1} more)" if len(changed) > 1 else ""
        raise FindingsError(
            f"{changed[0]}{more}: changed after the repair (neither the backed-up nor the repaired bytes); "
            "nothing rolled back, since that would discard those changes. Pass --force to roll back anyway"
        )
