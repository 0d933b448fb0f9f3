"""What a scan of a root finds: its sessions (every artifact of one conversation id), the
per-install files and backups beside them, and the session a (prefix of an) id names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from audit.errors import InputError, UsageError
from audit.store.layout.roots import Root

BACKUP_DIR = "brain_backup"
INSTALL_FILES = {
    "antigravity_state.pbtxt": "state",
    "jetski_state.pbtxt": "state",
    "agyhub_summaries_proto.pb": "hub_index",
    "history.jsonl": "history",
    "conversation_summaries.db": "summaries",
    "cli.log": "cli_log",
}
"""Per-install files at the top of a root (name -> kind), never per session."""
INSTALL_DIRS = {"annotations": "annotation", "cache": "cache", "log": "log"}
"""Per-install directories at the top of a root (name -> kind of the files in them)."""
SIDECAR_SUFFIX = ".trajectory.json"
ARTIFACT_KINDS = ("db", "wal", "shm", "journal", "legacy_pb", "implicit_pb", "sidecar", "brain")
SidecarState = Literal["fresh", "stale", "missing"]
"""A session's sidecar against its conversation source: as new or newer, older, or none."""


@dataclass(frozen=True)
class Foreign:
    """A file or directory in a store that is not a session artifact (never used to build a path)."""

    path: Path
    reason: str


@dataclass(frozen=True)
class InstallFile:
    """A per-install file of a root (``kind`` from ``INSTALL_FILES`` / ``INSTALL_DIRS``).

    ``link`` is the target of a symbolic link as written (``cli.log`` -> ``log/cli-*.log``): read
    with ``os.readlink``, never followed here."""

    path: Path
    kind: str
    link: str | None = None


@dataclass(frozen=True)
class Backup:
    """A copy of a session's brain directory under ``brain_backup/`` (not a session)."""

    id: str
    path: Path
    mtime_ns: int


@dataclass
class Session:
    """Every artifact of one conversation id in one root."""

    id: str
    root: Path
    product: str
    db: Path | None = None
    wal: Path | None = None
    shm: Path | None = None
    journal: Path | None = None
    legacy_pb: Path | None = None
    implicit_pb: Path | None = None
    sidecar: Path | None = None
    brain: Path | None = None
    brain_files: dict[str, list[Path]] = field(default_factory=dict)
    mtimes_ns: dict[str, int] = field(default_factory=dict)
    sizes: dict[str, int] = field(default_factory=dict)
    backup: Path | None = None  # brain_backup/<id>/ of the same root (a copy: listed, never read as the session)
    annotation: Path | None = None  # annotations/<id>.pbtxt of the root (per-install: listed, never swept)
    unlisted: list[Foreign] = field(default_factory=list)  # parts of the session that could not be listed

    @property
    def source(self) -> Path | None:
        """The native conversation source: the ``.db`` when present, else the legacy ``.pb``."""
        return self.db or self.legacy_pb

    @property
    def source_mtime_ns(self) -> int | None:
        """Newest of the ``.db``, a non-empty ``-wal`` and a non-empty ``-journal`` (or the ``.pb``)."""
        if self.db is not None:
            times = [self.mtimes_ns["db"]]
            times += [self.mtimes_ns[k] for k in ("wal", "journal") if self.sizes.get(k, 0) > 0]
            return max(times)
        if self.legacy_pb is not None:
            return self.mtimes_ns["legacy_pb"]
        return None

    @property
    def sidecar_state(self) -> SidecarState | None:
        """``fresh``, ``stale`` or ``missing``; None when there is no conversation source."""
        source = self.source_mtime_ns
        if source is None:
            return None
        if self.sidecar is None:
            return "missing"
        return "fresh" if self.mtimes_ns["sidecar"] >= source else "stale"

    @property
    def artifacts(self) -> list[str]:
        return [kind for kind in ARTIFACT_KINDS if getattr(self, kind) is not None]

    @property
    def newest_mtime_ns(self) -> int:
        return max(self.mtimes_ns.values(), default=0)

    def paths(self) -> list[tuple[str, Path]]:
        """(kind, path) of every artifact, brain files included."""
        out: list[tuple[str, Path]] = [(k, getattr(self, k)) for k in self.artifacts]
        for kind in sorted(self.brain_files):
            out.extend((f"brain/{kind}", p) for p in self.brain_files[kind])
        if self.annotation is not None:
            out.append(("annotation", self.annotation))
        if self.backup is not None:
            out.append(("backup", self.backup))
        return out


@dataclass
class RootScan:
    root: Root
    sessions: list[Session]
    foreign: list[Foreign]
    install_files: list[InstallFile] = field(default_factory=list)
    backups: list[Backup] = field(default_factory=list)

    def install_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.install_files:
            counts[item.kind] = counts.get(item.kind, 0) + 1
        return dict(sorted(counts.items()))

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(ARTIFACT_KINDS, 0)
        for session in self.sessions:
            for kind in session.artifacts:
                counts[kind] += 1
        return counts

    def sidecar_states(self) -> dict[SidecarState, int]:
        states: dict[SidecarState, int] = {state: 0 for state in get_args(SidecarState)}
        for session in self.sessions:
            state = session.sidecar_state
            if state is not None:
                states[state] += 1
        return states


@dataclass(frozen=True)
class Located:
    """The session an id names, and the same id in other roots (older artifacts first out)."""

    session: Session
    elsewhere: tuple[Session, ...] = ()

    def notes(self) -> list[str]:
        """One line per other root holding the same id (for stderr)."""
        return [
            f"{self.session.id}: also in {other.root} (artifacts {'as new' if other.newest_mtime_ns == self.session.newest_mtime_ns else 'older'}); using {self.session.root}"
            for other in self.elsewhere
        ]


def locate_session(scans: Iterable[RootScan], query: str) -> Located:
    """The session whose id starts with *query* (8+ characters, any case) across roots.

    One full id held by several roots names one conversation: the root whose artifacts are
    newest wins (ties: the first root), the others are listed in ``elsewhere``. Only a prefix
    matching two different ids is ambiguous (a usage error listing the candidates)."""
    prefix = query.strip().lower()
    if len(prefix) < 8 or not re.fullmatch(r"[0-9a-f-]+", prefix):
        raise UsageError(f"{query!r}: give at least 8 characters of a conversation id (hex and '-')")
    scans = list(scans)
    matches = [s for scan_ in scans for s in scan_.sessions if s.id.startswith(prefix)]
    if not matches:
        copies = [b for scan_ in scans for b in scan_.backups if b.id.startswith(prefix)]
        held = f" (only a backup copy: {', '.join(str(b.path) for b in copies)})" if copies else ""
        raise InputError(f"{query}: no session matches this id{held}")
    ids = sorted({s.id for s in matches})
    if len(ids) > 1:
        listed = ", ".join(f"{s.id} ({s.root})" for s in sorted(matches, key=lambda s: (s.id, str(s.root))))
        raise UsageError(f"{query}: ambiguous id prefix; candidates: {listed}")
    newest, *others = newest_first(matches)
    return Located(newest, tuple(others))


def newest_first(sessions: Iterable[Session]) -> list[Session]:
    """Sessions of one id in several roots, the one whose artifacts are newest first (ties keep
    the roots' order): the rule by which every command (``stores show``, ``export``, ``inspect``,
    ``sweep``) takes one of them."""
    return sorted(sessions, key=lambda s: -s.newest_mtime_ns)


def find_session(scans: Iterable[RootScan], query: str) -> Session:
    """``locate_session(...).session``."""
    return locate_session(scans, query).session
