"""The per-install files of a store root that readers of the format use, and reading them.

A root (``~/.gemini/antigravity*``) holds, besides its sessions, files written once per install
(docs/store-format.md#roots). Consumers read three of them, which agy-audit fingerprints and sweeps
(``SWEPT``): ``history.jsonl`` (the CLI's prompt log: one JSON record per line),
``conversation_summaries.db`` (an SQLite index of the conversations: titles, workspace URIs,
status) and the files of ``cache/`` (``last_conversations.json``, ``conversation_metadata.json``,
``onboarding.json``, ``projects.json``, ``settings.json``, ``default_project_id.txt``, ...).
They are listed by ``layout.list_install_files`` (a symbolic link is reported, never followed).

A sweep corpus keeps its copies under ``native/<product>/install/<root name>/`` with the same
relative paths (``history.jsonl``, ``conversation_summaries.db``, ``cache/<name>``); the manifest
names each root (``roots[].name``) and lists the copies with their SHA-256 (``roots[].files``).

Reading: every file is read as a regular file of at most ``MAX_DOCUMENT_BYTES`` (a FIFO, a
device, a larger file are refused naming the file, ``InputError``); the database is read like a
conversation ``.db`` (``database.read_database``: read-only, one snapshot, a lock waited for
0.25 s), any finding that means it could not be read (or is corrupt) is an ``InputError``.
``history_records`` yields the records of the log; a line that is not a JSON value (a torn
last line, bad UTF-8) is yielded as a ``Dropped`` line, never an error: agy appends to the file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.store.database import READ_FAILURES, NativeConversation, read_database
from audit.store.layout import Foreign, InstallFile, list_install_files
from audit.strictjson import JSONError, loads

HISTORY = "history.jsonl"
SUMMARIES = "conversation_summaries.db"
CACHE = "cache"
SWEPT = {"history": HISTORY, "summaries": SUMMARIES, "cache": CACHE}
"""Kinds of ``layout.INSTALL_FILES`` / ``INSTALL_DIRS`` that are fingerprinted and swept (kind ->
the name at the top of a root)."""
INSTALL_DIR = "install"
"""``native/<product>/install/<root name>/``: a corpus's copies of a root's per-install files."""


def root_name(path: str | os.PathLike[str]) -> str:
    """The directory name of a store root (``antigravity-cli``), as the ``roots`` surface and the
    corpus layout name it."""
    return os.path.basename(os.path.normpath(os.fspath(path)))


@dataclass(frozen=True)
class InstallCopy:
    """A per-install file of a root: its path relative to the root (``history.jsonl``,
    ``cache/<name>``), its kind (``SWEPT``) and where it is."""

    rel: str
    kind: str
    path: Path


def swept_files(root: str | os.PathLike[str]) -> list[InstallCopy]:
    """The per-install files of the store root *root* that are fingerprinted and swept, by
    relative path; symbolic links and other entries are left out (``layout.scan_root`` reports
    them as foreign)."""
    root = Path(root)
    ignored: list[Foreign] = []
    return sorted(
        (_copy(root, item) for item in list_install_files(root, ignored) if item.kind in SWEPT),
        key=lambda c: c.rel,
    )


def _copy(root: Path, item: InstallFile) -> InstallCopy:
    rel = item.path.relative_to(root).as_posix()
    return InstallCopy(rel, item.kind, item.path)


def kind_of(rel: str) -> str | None:
    """The kind of a per-install file from its path relative to its root (None: not one of ``SWEPT``)."""
    if rel == HISTORY:
        return "history"
    if rel == SUMMARIES:
        return "summaries"
    head, _, name = rel.partition("/")
    if head == CACHE and name and "/" not in name:
        return "cache"
    return None


# ----------------------------------------------------------------------------- reading


@dataclass(frozen=True)
class Dropped:
    """A line of ``history.jsonl`` that holds no JSON value (skipped, never an error)."""

    file: str
    line: int
    reason: str


def history_records(path: str | os.PathLike[str]) -> Iterator[object | Dropped]:
    """The JSON value of each line of the ``history.jsonl`` at *path* (blank lines skipped), or a
    ``Dropped`` line. Raises ``InputError`` when the file cannot be read (not a regular file,
    larger than ``MAX_DOCUMENT_BYTES``, unreadable)."""
    name = os.fspath(path)
    data = read_bytes(path, limit=MAX_DOCUMENT_BYTES)
    lines = data.split(b"\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            value = loads(line, source=f"{name}:{number}", require_object=False)
        except JSONError as exc:
            torn = " (the last line, not terminated: torn)" if number == len(lines) else ""
            yield Dropped(name, number, f"{exc.reason}{torn}")
            continue
        yield value


TEXT, BINARY, EMPTY = "text", "binary", "empty"
"""What a cache file that is not ``*.json`` holds (one type each, never its content)."""


def read_cache(path: str | os.PathLike[str]) -> object:
    """A cache file: the parsed JSON value of a ``*.json`` file (invalid JSON is an ``InputError``
    naming the file), else its kind (``TEXT``: UTF-8, ``BINARY``, ``EMPTY``) as a ``Kind``."""
    data = read_bytes(path, limit=MAX_DOCUMENT_BYTES)
    if os.fspath(path).endswith(".json"):
        return loads(data, source=os.fspath(path), require_object=False)
    if not data:
        return Kind(EMPTY)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return Kind(BINARY)
    return Kind(TEXT)


@dataclass(frozen=True)
class Kind:
    """What a file that is not JSON holds (``TEXT``, ``BINARY`` or ``EMPTY``)."""

    name: str


def read_artifact_metadata(path: str | os.PathLike[str]) -> object:
    """A brain artifact's ``<name>.md.metadata.json``: its parsed JSON value (``InputError`` when
    it cannot be read or is not JSON)."""
    return loads(read_bytes(path, limit=MAX_DOCUMENT_BYTES), source=os.fspath(path), require_object=False)


def read_summaries(path: str | os.PathLike[str]) -> NativeConversation:
    """The ``conversation_summaries.db`` at *path*: every table read in one read-only snapshot
    (``database.read_database``). A file that cannot be read (missing, empty, truncated, not
    SQLite, corrupt, locked, a side file that is not a regular file) is an ``InputError`` naming
    it; the conversation tables it lacks are not a problem (it has its own)."""
    conv = read_database(path)
    problems = [f.message for f in conv.findings if f.code in READ_FAILURES or not conv.access]
    if problems:
        raise InputError("; ".join(problems))
    return conv
