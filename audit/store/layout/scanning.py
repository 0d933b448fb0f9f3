"""Scanning a root: its session artifacts (``conversations/``, ``implicit/``, ``brain/``), the
per-install files and ``brain_backup/`` copies, each listed and stat-ed, never opened.

A symbolic link inside a store is never followed (it is reported as a foreign entry), and a
directory that cannot be listed is an error naming it, never an empty one.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

from audit.errors import InputError
from audit.store.ids import UUID_PATTERN, canonical_id
from audit.store.layout.roots import Root
from audit.store.layout.sessions import (
    BACKUP_DIR,
    INSTALL_DIRS,
    INSTALL_FILES,
    Backup,
    Foreign,
    InstallFile,
    RootScan,
    Session,
)

_CONVERSATION_FILE = re.compile(
    rf"(?P<id>{UUID_PATTERN})"
    r"(?P<ext>\.db|\.db-wal|\.db-shm|\.db-journal|\.pb|\.trajectory\.json)"
)
_CONVERSATION_FIELDS = {
    ".db": "db",
    ".db-wal": "wal",
    ".db-shm": "shm",
    ".db-journal": "journal",
    ".pb": "legacy_pb",
    ".trajectory.json": "sidecar",
}


def _lstat(path: Path) -> os.stat_result | None:
    """``os.lstat``; None when nothing is there (it vanished while listing), and every other
    error (permission denied) an ``InputError`` naming it: unreadable never reads as absent."""
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None


class NotSearchable(PermissionError):
    """A directory that can be listed but not entered (read without execute permission, e.g.
    mode 0444): its names are known, but none of its entries can be looked at or opened."""


def _entries(directory: str | Path) -> list[os.DirEntry[str]]:
    """The entries of *directory*, sorted by name; ``NotSearchable`` when they cannot be entered."""
    with os.scandir(directory) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    try:
        os.lstat(os.path.join(directory, os.curdir))  # looking a name up in it needs search permission
    except PermissionError as exc:
        raise NotSearchable(exc.errno, exc.strerror, str(directory)) from None
    return entries


def list_dir(directory: Path) -> list[os.DirEntry[str]]:
    """Entries of *directory* sorted by name; a missing directory is empty, one that cannot be
    listed -- or only listed, not entered -- an ``InputError`` naming it."""
    try:
        return _entries(directory)
    except FileNotFoundError:
        return []
    except NotSearchable as exc:
        raise InputError(f"{directory}: cannot enter ({exc.strerror}): it can be listed but not searched") from None
    except OSError as exc:
        raise InputError(f"{directory}: cannot list ({exc.strerror or exc})") from None


def scan_root(root: Root, *, include_implicit: bool = False, brain_files: bool = True) -> RootScan:
    """Gather the sessions of one root: one ``Session`` per id, artifacts attached. Without
    *brain_files*, brain directories are not walked (each session's ``brain_files`` is empty, its
    brain time the directory's, and what the walk would report is not): for a caller that needs
    only which sessions have a brain."""
    sessions: dict[str, Session] = {}
    foreign: list[Foreign] = []

    def session(cid: str) -> Session:
        if cid not in sessions:
            sessions[cid] = Session(cid, root.path, root.product)
        return sessions[cid]

    def attach(cid: str, kind: str, entry: os.DirEntry[str], st: os.stat_result) -> None:
        s = session(cid)
        if getattr(s, kind) is not None:
            foreign.append(Foreign(Path(entry.path), f"duplicate {kind} for {cid} (differs only in case)"))
            return
        setattr(s, kind, Path(entry.path))
        s.mtimes_ns[kind] = st.st_mtime_ns
        s.sizes[kind] = st.st_size

    for entry in list_dir(root.path / "conversations"):
        st = _lstat(Path(entry.path))
        match = _CONVERSATION_FILE.fullmatch(entry.name)
        if st is None:
            continue  # vanished while listing
        if stat.S_ISLNK(st.st_mode):
            foreign.append(Foreign(Path(entry.path), "symbolic link (not followed)"))
        elif match is None:
            foreign.append(Foreign(Path(entry.path), "name is not <uuid>.<known extension>"))
        elif not stat.S_ISREG(st.st_mode):
            foreign.append(Foreign(Path(entry.path), "not a regular file"))
        else:
            attach(match["id"].lower(), _CONVERSATION_FIELDS[match["ext"]], entry, st)

    for entry in list_dir(root.path / "implicit"):
        st = _lstat(Path(entry.path))
        if st is None:
            continue
        cid = canonical_id(entry.name[:-3]) if entry.name.endswith(".pb") else None
        if stat.S_ISLNK(st.st_mode):
            foreign.append(Foreign(Path(entry.path), "symbolic link (not followed)"))
        elif cid is None or not stat.S_ISREG(st.st_mode):
            foreign.append(Foreign(Path(entry.path), "not an implicit <uuid>.pb file"))
        elif include_implicit:
            attach(cid, "implicit_pb", entry, st)

    for entry in list_dir(root.path / "brain"):
        st = _lstat(Path(entry.path))
        if st is None:
            continue
        cid = canonical_id(entry.name)
        if stat.S_ISLNK(st.st_mode):
            foreign.append(Foreign(Path(entry.path), "symbolic link (not followed)"))
        elif cid is None or not stat.S_ISDIR(st.st_mode):
            foreign.append(Foreign(Path(entry.path), "not a brain/<uuid>/ directory"))
        else:
            attach(cid, "brain", entry, st)
            if brain_files:
                s = sessions[cid]
                s.brain_files, newest = _brain_files(Path(entry.path), foreign, s.unlisted)
                s.mtimes_ns["brain"] = newest or st.st_mtime_ns  # newest file, not the directory

    install_files = list_install_files(root.path, foreign)
    backups = _backups(root.path / BACKUP_DIR, foreign)
    for backup in backups:
        if backup.id in sessions and sessions[backup.id].backup is None:
            sessions[backup.id].backup = backup.path
    for item in install_files:
        cid = canonical_id(item.path.name.removesuffix(".pbtxt")) if item.kind == "annotation" else None
        if cid in sessions and sessions[cid].annotation is None:
            sessions[cid].annotation = item.path
    ordered = sorted(sessions.values(), key=lambda s: (-s.newest_mtime_ns, s.id))
    return RootScan(root, ordered, foreign, install_files, backups)


def list_install_files(root: Path, foreign: list[Foreign]) -> list[InstallFile]:
    """The per-install files of *root*: ``INSTALL_FILES`` at the top (``cli.log`` may be a
    symbolic link: listed with its target, not followed) and the files in ``INSTALL_DIRS``. Other
    symbolic links and entries that are not regular files (a FIFO) go to *foreign*, never opened."""
    found: list[InstallFile] = []
    for name, kind in INSTALL_FILES.items():
        st = _lstat(root / name)
        if st is None:
            continue
        if stat.S_ISLNK(st.st_mode):
            if kind != "cli_log":
                foreign.append(Foreign(root / name, "symbolic link (not followed)"))
                continue
            try:
                target: str | None = os.readlink(root / name)
            except OSError:
                continue
            found.append(InstallFile(root / name, kind, target))
        elif stat.S_ISREG(st.st_mode):
            found.append(InstallFile(root / name, kind))
        else:  # a FIFO, a device, a directory: never opened
            foreign.append(Foreign(root / name, "not a regular file"))
    for name, kind in INSTALL_DIRS.items():
        st = _lstat(root / name)
        if st is None or not stat.S_ISDIR(st.st_mode):
            continue
        for entry in list_dir(root / name):
            est = _lstat(Path(entry.path))
            if est is None:
                continue
            if stat.S_ISLNK(est.st_mode):
                foreign.append(Foreign(Path(entry.path), "symbolic link (not followed)"))
            elif stat.S_ISREG(est.st_mode):
                found.append(InstallFile(Path(entry.path), kind))
            elif not stat.S_ISDIR(est.st_mode):
                foreign.append(Foreign(Path(entry.path), "not a regular file"))
    return sorted(found, key=lambda f: (f.kind, str(f.path)))


def _backups(directory: Path, foreign: list[Foreign]) -> list[Backup]:
    """``brain_backup/<uuid>/`` copies (newest file as their time); other entries are foreign."""
    st = _lstat(directory)
    if st is None or not stat.S_ISDIR(st.st_mode):
        return []
    found: list[Backup] = []
    for entry in list_dir(directory):
        est = _lstat(Path(entry.path))
        if est is None:
            continue
        cid = canonical_id(entry.name)
        if stat.S_ISLNK(est.st_mode):
            foreign.append(Foreign(Path(entry.path), "symbolic link (not followed)"))
        elif cid is None or not stat.S_ISDIR(est.st_mode):
            foreign.append(Foreign(Path(entry.path), "not a brain_backup/<uuid>/ directory"))
        elif not any(b.id == cid for b in found):
            _, newest = _brain_files(Path(entry.path), foreign)
            found.append(Backup(cid, Path(entry.path), newest or est.st_mtime_ns))
    return found


_TASK_DIR = re.compile(r"task-[0-9]+")
_REVISION = re.compile(r".+\.md\.resolved(\.[0-9]+)?")


def _brain_kind(rel: tuple[str, ...]) -> str:  # noqa: C901 - one branch per kind of file
    """The kind of a brain file from its path below ``brain/<uuid>/`` (docs/store-format.md#session-files)."""
    if len(rel) >= 3 and _TASK_DIR.fullmatch(rel[0]) and rel[1] == ".system_generated":
        return "task"  # a subagent task's own files (nested messages/, ...), never the session's transcript
    if rel[:2] == (".system_generated", "logs"):
        if rel[2:] == ("transcript.jsonl",):
            return "transcript"
        if rel[2:] == ("transcript_full.jsonl",):
            return "transcript_full"
        if len(rel) == 5 and rel[2] == "chunks" and rel[4].endswith(".jsonl"):
            return "chunk"
    if rel[:2] == (".system_generated", "steps") and len(rel) == 4 and rel[3] == "output.txt":
        return "step_output"
    if rel[:2] == (".system_generated", "steps") and len(rel) == 4 and rel[3] == "content.md":
        return "step_content"  # IDE sessions: where CLI sessions have output.txt
    if rel[:2] == (".system_generated", "messages") and len(rel) == 3 and rel[2].endswith(".json"):
        return "message"
    if rel[:3] == (".system_generated", "messages", "undelivered") and len(rel) == 4:
        return "message_undelivered"
    if rel[:2] == (".agents", "agents") and len(rel) == 4 and rel[3] == "agent.json":
        return "agent"
    if rel[0] == "browser" and len(rel) == 2:
        return "browser"
    if len(rel) == 1 and _REVISION.fullmatch(rel[0]):
        return "artifact_revision"
    if len(rel) == 1 and rel[0].endswith(".md.metadata.json"):
        return "artifact_metadata"
    if len(rel) == 1 and rel[0].endswith(".md"):
        return "artifact"
    return "other"


def _brain_files(brain: Path, foreign: list[Foreign], unlisted: list[Foreign] | None = None) -> tuple[dict[str, list[Path]], int]:
    """The regular files below *brain* by kind (directories and files in name order, depth
    first), and the newest mtime among them. Symbolic links and special files are reported in
    *foreign*, never entered or read; a directory that cannot be listed goes to *unlisted* (a
    part of the session that is missing: its readers fail it), or to *foreign* without one."""
    files: dict[str, list[Path]] = {}
    newest = 0
    stack: list[tuple[str, tuple[str, ...]]] = [(str(brain), ())]
    while stack:
        directory, rel = stack.pop()
        try:
            entries = _entries(directory)
        except NotSearchable as exc:
            why = f"cannot enter ({exc.strerror}): it can be listed but not searched"
            (foreign if unlisted is None else unlisted).append(Foreign(Path(directory), why))
            continue
        except OSError as exc:
            (foreign if unlisted is None else unlisted).append(Foreign(Path(directory), f"cannot list ({exc.strerror or exc})"))
            continue
        subdirectories = []
        for entry in entries:
            try:
                if entry.is_symlink():
                    foreign.append(Foreign(Path(entry.path), "symbolic link (not followed)"))
                elif entry.is_dir(follow_symlinks=False):
                    subdirectories.append((entry.path, (*rel, entry.name)))
                elif not entry.is_file(follow_symlinks=False):
                    foreign.append(Foreign(Path(entry.path), "not a regular file"))
                else:
                    mtime = entry.stat(follow_symlinks=False).st_mtime_ns
                    files.setdefault(_brain_kind((*rel, entry.name)), []).append(Path(entry.path))
                    newest = max(newest, mtime)
            except FileNotFoundError:
                continue  # vanished while listing
        stack.extend(reversed(subdirectories))
    return files, newest


def scan(roots: Iterable[Root], *, include_implicit: bool = False) -> list[RootScan]:
    return [scan_root(root, include_implicit=include_implicit) for root in roots]
