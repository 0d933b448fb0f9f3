"""The source's tree: every entry listed, what is left out and why, and each file that is kept
redacted into the copy by its kind (``copy_files``)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from audit.actions.redact.databases import redact_db
from audit.actions.redact.documents import redact_chunks, redact_json_file, redact_jsonl_file, redact_text_file
from audit.actions.redact.replacements import UUID_ANYWHERE
from audit.actions.redact.run import Run
from audit.errors import InputError
from audit.progress import Callback
from audit.store import install, layout
from audit.store.corpus import MANIFEST
from audit.store.layout import list_dir
from audit.store.transcript import FLAT_NAMES, tier_of
from audit.strictjson import JSONError

LEFT_OUT_NAMES = frozenset({"installation_id", "user_settings.pb", "agyhub_summaries_proto.pb"})
LEFT_OUT_SUFFIXES = (".log", ".pb", ".png", ".jpg", ".jpeg", ".webp", ".gif", ".mp4", ".webm", ".sqlite", ".bin")
LEFT_OUT_DIRS = frozenset({"log", "logs_daemon", "cache", "browser", "annotations"})
"""Per-install identities, logs, deeper caches, screenshots: not copied (listed). The per-install
files the fingerprints read (``install.kind_of``) are redacted, not left out."""


def _per_install(rel: Path) -> bool:
    """Whether *rel* is a per-install file a fingerprint reads (``history.jsonl``,
    ``conversation_summaries.db``, ``cache/<name>``) at the top of a store root: the source itself,
    a root of a home, or a root's copy in a corpus -- never a ``cache`` directory elsewhere (a
    browser profile's, say), which stays left out."""
    root = rel.parent.parent if rel.parent.name == install.CACHE else rel.parent
    at_root = root == Path(".") or (root.name.startswith("antigravity") and root.name not in layout.NON_STORES)
    return at_root and install.kind_of(rel.relative_to(root).as_posix()) is not None


def _legacy_pb(rel: Path) -> bool:
    return rel.name.endswith(".pb") and rel.parent.name in ("conversations", "implicit")


def _left_out(rel: Path) -> str | None:
    if _per_install(rel) or _legacy_pb(rel):
        return None
    if rel.name in LEFT_OUT_NAMES:
        return "per-install identity"
    if rel.suffix.lower() in LEFT_OUT_SUFFIXES:
        return "log, cache, image or encrypted file"
    if any(part in LEFT_OUT_DIRS for part in rel.parts[:-1]):
        return "logs, caches and browser recordings are content the format checks never read"
    if rel.name.startswith(".") and rel.name.endswith(".tmp"):
        return "a temporary file"
    if rel.name.endswith("-wal"):
        return "SQLite side file: its content is in the redacted .db, an empty -wal in its place"
    if rel.name.endswith(("-shm", "-journal")):
        return "SQLite side file: its content is in the redacted .db"
    return None


def listing(root: Path) -> list[tuple[Path, os.stat_result]]:
    """Every entry below *root* that is not a directory, with its ``lstat``, in name order. A
    directory that cannot be listed, or only listed and not entered (``layout.list_dir``), or an
    entry that cannot be looked at, is an ``InputError`` naming it: unreadable never reads as
    empty. An entry gone since its directory was listed is skipped."""
    found: list[tuple[Path, os.stat_result]] = []
    stack = [root]
    while stack:
        directory = stack.pop()
        subdirectories = []
        for entry in list_dir(directory):
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise InputError(f"{entry.path}: cannot stat ({exc.strerror or exc})") from None
            if stat.S_ISDIR(st.st_mode):
                subdirectories.append(Path(entry.path))
            else:
                found.append((Path(entry.path), st))
        stack.extend(reversed(subdirectories))
    return found


def by_session(files: list[tuple[Path, os.stat_result]], root: Path) -> list[tuple[Path, os.stat_result]]:
    """*files* with those of each session together (the first UUID in a path names its session;
    the rest first): a session's texts recur in its sidecar, ``.db`` and transcripts, and are
    redacted once while they are remembered (``replacements._CACHED_CHARS``)."""

    def session(item: tuple[Path, os.stat_result]) -> str:
        found = UUID_ANYWHERE.search(str(item[0].relative_to(root)))
        return found.group(0).lower() if found else ""

    return sorted(files, key=session)  # stable: name order within a session


def copy_files(run: Run, files: list[tuple[Path, os.stat_result]], progress: Callback | None) -> None:
    r, result = run.r, run.result
    chunked: dict[Path, list[tuple[Path, int]]] = {}  # chunk directory -> its parts, redacted as one stream
    for done, (path, st) in enumerate(files):
        rel = path.relative_to(run.source)
        if progress is not None:
            progress(done, len(files), str(rel))
        if not stat.S_ISREG(st.st_mode):
            result.left_out.append(f"{r.uuids_in(str(rel))}: not a regular file")
            continue
        reason = _left_out(rel)
        if reason is not None:
            result.left_out.append(f"{r.uuids_in(str(rel))}: {reason}")
            continue
        r.kept.update(rel.parts)  # file and directory names are kept (the layout), their UUIDs mapped
        name = rel.name
        result.files += 1
        if name.endswith(".db"):
            redact_db(run, path, st.st_size)
        elif _legacy_pb(rel):  # encrypted with the user's key: nothing in it reads without it
            run.write(path, r.noise(run.read(path, st.st_size)))
            r.counts["legacy"] += 1
        elif tier_of(path) is not None and path.parent.parent.name == "chunks":
            chunked.setdefault(path.parent, []).append((path, st.st_size))  # a part ends mid-line: see below
        elif name == MANIFEST and rel.parent == Path(".") and run.corpus:
            continue  # written after every other file (their hashes): redact_manifest
        elif name.endswith(".jsonl") or name == FLAT_NAMES["overview"]:
            run.write(path, redact_jsonl_file(run, path))
        elif name.endswith(".json"):
            data = run.read(path, st.st_size)
            try:
                new = redact_json_file(run, data, str(path))
            except JSONError:
                new = redact_text_file(data, r)
            run.write(path, new)
        else:
            run.write(path, redact_text_file(run.read(path, st.st_size), r))
    for parts in chunked.values():
        redact_chunks(run, sorted(parts, key=lambda p: int(p[0].stem)))
