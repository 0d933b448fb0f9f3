"""Where sessions are: store roots under ``~/.gemini/antigravity*`` and the artifacts of each session.

Discovery only lists and stats files; it never opens a store file for writing and never follows a
symbolic link inside a store (links are reported as foreign entries). The layout is the one real
installs have (docs/store-format.md#roots, #session-files): besides the store directories a root holds per-install
files (``antigravity_state.pbtxt``, ``agyhub_summaries_proto.pb``, ``history.jsonl``,
``conversation_summaries.db``, ``annotations/<uuid>.pbtxt``, the CLI's ``cache/``, ``log/cli-*.log`` and ``cli.log``, a symbolic
link to the current log on Linux and macOS), listed as ``InstallFile``s and never part of a
session; ``brain_backup/<uuid>/`` holds copies of sessions, listed as ``Backup``s, never as
sessions (so never swept twice and never a duplicate id).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from audit.errors import InputError, NothingToCheck, UsageError
from audit.safeio import DIRECTORY, exists, is_dir, path_kind
from audit.store.ids import UUID_PATTERN, canonical_id

ROOT_PRODUCTS = {
    "antigravity-cli": "cli",
    "antigravity": "ide",
    "antigravity-ide": "ide",
    "antigravity-acp": "acp",
}
NON_STORES = frozenset({"antigravity-backup", "antigravity-browser-profile"})
STORE_DIRS = ("conversations", "implicit", "brain")
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
ENV_ROOT = "ANTIGRAVITY_CLI_ROOT"

SIDECAR_SUFFIX = ".trajectory.json"
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
ARTIFACT_KINDS = ("db", "wal", "shm", "journal", "legacy_pb", "implicit_pb", "sidecar", "brain")


@dataclass(frozen=True)
class Root:
    path: Path
    product: str  # cli, ide, acp or unknown
    explicit: bool


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
    def sidecar_state(self) -> str | None:
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


_LOGS = "brain/*/.system_generated/logs/"
LAYOUT_FAMILIES = {
    "conversations/*.db": "conversation",
    "conversations/*.db-wal": "conversation",
    "conversations/*.pb": "conversation",
    "conversations/*.trajectory.json": "conversation",
    _LOGS + "transcript.jsonl": "compact",
    _LOGS + "chunks/transcript/*.jsonl": "compact",
    _LOGS + "transcript_full.jsonl": "full",
    _LOGS + "chunks/transcript_full/*.jsonl": "full",
    _LOGS + "overview.txt": "overview",
}
"""The file families of a session whose presence is format
(docs/store-format.md#session-files, #chunks), as patterns relative to a store root (the notation of a consumer profile's ``layout``
entries), each with its group: the sessions a family is counted among are those holding any
family of its group (a conversation file; a transcript tier, flat or in chunks)."""
TRANSIENT_FAMILIES = {
    "conversations/*.db-wal": (
        "a -wal is there while agy holds its .db open (the IDE and CLI keep them open for weeks; new rows "
        "land in the -wal) and gone once SQLite checkpoints it or a copy leaves it out (real stores hold "
        "both: .db with -wal, and .db with -shm but no -wal): the state of a running agy, not format"
    ),
}
"""``LAYOUT_FAMILIES`` whose presence changes with agy's open connections: a change of one is an
advisory (``drift``'s ``transient``), never drift of the format."""
_CONVERSATION_FAMILY = {
    "db": "conversations/*.db",
    "wal": "conversations/*.db-wal",
    "legacy_pb": "conversations/*.pb",
    "sidecar": "conversations/*.trajectory.json",
}
_BRAIN_FAMILY = {"transcript": _LOGS + "transcript.jsonl", "transcript_full": _LOGS + "transcript_full.jsonl"}
_CHUNK_FAMILY = {"transcript": _LOGS + "chunks/transcript/*.jsonl", "transcript_full": _LOGS + "chunks/transcript_full/*.jsonl"}


def families(session: Session) -> set[str]:
    """The ``LAYOUT_FAMILIES`` *session* has (its brain files as a scan with ``brain_files`` lists them)."""
    found = {family for kind, family in _CONVERSATION_FAMILY.items() if getattr(session, kind) is not None}
    found.update(family for kind, family in _BRAIN_FAMILY.items() if kind in session.brain_files)
    found.update(_CHUNK_FAMILY[p.parent.name] for p in session.brain_files.get("chunk", ()) if p.parent.name in _CHUNK_FAMILY)
    overview = session.brain / ".system_generated" / "logs" / "overview.txt" if session.brain is not None else None
    if overview is not None and overview in session.brain_files.get("other", ()):
        found.add(_LOGS + "overview.txt")
    return found


def layout_forms(sessions: Iterable[Session]) -> dict[str, str]:
    """Per family some of *sessions* have: ``file`` when every session of its group has it,
    ``file|none`` when only some do (``LAYOUT_FAMILIES``). Counts are not kept: which forms a
    store takes is format, how many sessions take each is not."""
    having: dict[str, int] = {}
    groups: dict[str, int] = {}
    for session in sessions:
        found = families(session)
        for family in found:
            having[family] = having.get(family, 0) + 1
        for group in {LAYOUT_FAMILIES[f] for f in found}:
            groups[group] = groups.get(group, 0) + 1
    return {f: "file" if n == groups[LAYOUT_FAMILIES[f]] else "file|none" for f, n in sorted(having.items())}


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

    def sidecar_states(self) -> dict[str, int]:
        states = {"fresh": 0, "stale": 0, "missing": 0}
        for session in self.sessions:
            state = session.sidecar_state
            if state is not None:
                states[state] += 1
        return states


# ----------------------------------------------------------------------------- roots


def product_of(path: Path) -> str:
    """The product (``cli``, ``ide``, ``acp``) whose root *path* is, from its directory name, else
    from its marker files."""
    product = ROOT_PRODUCTS.get(path.name)
    if product is not None:
        return product
    if path_kind(path / "cli.log", follow_symlinks=False) is not None or exists(path / "jetski_state.pbtxt"):
        return "cli"
    if exists(path / "antigravity_state.pbtxt"):
        return "ide"
    return "unknown"


def is_store(path: Path) -> bool:
    return any(is_dir(path / name) for name in STORE_DIRS)


def resolve_roots(
    home: str | os.PathLike[str] | None = None,
    roots: Iterable[str | os.PathLike[str]] = (),
    env: Mapping[str, str] | None = None,
) -> list[Root]:
    """Explicit roots (``--root``, else ``$ANTIGRAVITY_CLI_ROOT``) or every discovered store.

    An explicit root that is not a directory is an error (exit 2); discovery never fails, it may
    find nothing.
    """
    env = os.environ if env is None else env
    explicit = [Path(r) for r in roots]
    if not explicit and env.get(ENV_ROOT):
        explicit = [Path(env[ENV_ROOT])]
    if explicit:
        resolved: list[Root] = []
        for path in explicit:
            kind = path_kind(path)
            if kind != DIRECTORY:
                what = "does not exist" if kind is None and not os.path.lexists(path) else "is not a directory"
                raise InputError(f"{path}: store root {what}")
            path = path.absolute()
            if any(r.path == path for r in resolved):
                continue
            resolved.append(Root(path, product_of(path), explicit=True))
        return resolved
    base = Path(home) if home is not None else Path(env.get("HOME") or Path.home())
    gemini = base / ".gemini"
    found = Roots(looked_in=gemini)
    try:
        names = sorted(entry.name for entry in os.scandir(gemini) if entry.name.startswith("antigravity"))
    except (FileNotFoundError, NotADirectoryError):
        return found
    except OSError as exc:  # unreadable, a name too long: not "no store", a directory we could not look in
        raise InputError(f"{gemini}: cannot list ({exc.strerror or exc}); no store could be discovered there") from None
    for name in names:
        path = (gemini / name).absolute()
        if name in NON_STORES or not is_dir(path) or not is_store(path):
            continue
        found.append(Root(path, product_of(path), explicit=False))
    return found


# ----------------------------------------------------------------------------- sessions


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


def refuse_inside_store(path: str | os.PathLike[str], roots: Iterable[Root], what: str) -> None:
    """``UsageError`` when the new directory *path* would be inside one of *roots*: a corpus or
    backup written there would be read back as part of the store by every later check."""
    target = Path(path).absolute()
    where = target.parent.resolve() / target.name
    for root in roots:
        if where.is_relative_to(root.path.resolve()):
            raise UsageError(f"{target}: inside the store root {root.path}; write the {what} elsewhere")


class Roots(list[Root]):
    """Discovered roots, and the directory discovery looked in (for "nothing found" messages)."""

    def __init__(self, roots: Iterable[Root] = (), *, looked_in: Path | None = None) -> None:
        super().__init__(roots)
        self.looked_in = looked_in


def require_roots(roots: list[Root]) -> list[Root]:
    if not roots:
        looked_in = getattr(roots, "looked_in", None)
        where = f"{looked_in}/antigravity*" if looked_in is not None else "~/.gemini/antigravity*"
        raise NothingToCheck(f"no Antigravity store found (looked for {where}; use --home or --root)")
    return roots
