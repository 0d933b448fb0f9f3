"""Fingerprints of the format surfaces of a corpus, a store or plain files.

A fingerprint is a sorted tuple of canonical lines ``path<TAB>value`` and a ``sha256:`` digest.
The value is a ``|``-joined sorted union (of JSON types, wire types, or one schema definition).

* ``sidecar`` -- agy-reader's shape fingerprint of trajectory sidecars (``audit.checks.shape``); the
  digest equals the one agy-reader publishes for the same documents.
* ``sqlite`` -- the conversation-database schema. The digest is the published schema
  fingerprint (sha256 over each non-null ``sqlite_master.sql`` in (type, name) order, each plus
  ``\\n``, then ``user_version`` plus ``\\n``); the lines name every table, column (declared
  type, NOT NULL, default, primary-key position), index/view/trigger and ``user_version``, so a
  diff says what changed. Databases that disagree make one union (the digest is then that of the
  lines, and ``Fingerprint.note`` says so).
* ``wire`` -- the protobuf shape of every blob column (``steps.step_payload`` per step type):
  field paths with wire types, named where ``audit/store/proto/cortex.proto`` knows the field,
  numbered where it does not; an unknown length-delimited field is not guessed into.
* ``transcript`` -- the shape of brain transcript records per tier and ``type``
  (``audit.checks.shape``): each tier of a brain directory (``audit.store.transcript.locate``:
  compact, full, overview) is read as one stream, its chunk parts concatenated; chunks that are
  byte-identical to their flat file (or a prefix of it) are read once, differing ones both.
* ``conventions`` -- per transcript tier and step type, how often records carry each content
  convention readers parse (``audit.checks.conventions``: ``<USER_REQUEST>``, ``Created At:``,
  ``Task Description:``, ``File Path:``, the "changes were made ... to:" sentence, diff-block
  markers ...): ``none``, ``one`` or ``many``, never the text. Read with the transcript surface.
* ``summaries``, ``history``, ``cache``, ``artifacts``, ``roots`` -- the per-install files
  consumers read (``audit.store.install``) and the brain artifact metadata: the schema, storage
  classes, JSON-text and blob shapes of ``conversation_summaries.db`` (``summaries_lines``); the
  keys and JSON types of ``history.jsonl`` records, of each ``cache/`` file and of the
  ``<name>.md.metadata.json`` files (``shape.KeyShape``: keys that are data are ``*``); which
  roots exist and which of those files each holds. See the section at the end of this module.
* ``layout`` -- per root, which file families its sessions have (``layout.LAYOUT_FAMILIES``: the
  ``.db``, its ``-wal``, a legacy ``.pb``, a sidecar; each transcript tier flat and in chunks; the
  overview): ``file`` where every session of the family's group has it, ``file|none`` where only
  some do. A sweep records it per root in its manifest (the corpus copies neither ``-wal`` nor
  ``.pb`` files); no counts, no names.
* ``values`` -- the values each enum-like field holds on those surfaces (``audit.checks.values``):
  step types and statuses of the ``steps`` rows, every ``cortex.proto`` enum in the sidecars (at
  its sidecar and its wire path), transcript types, sources, statuses and tool names, history ``type`` and artifact
  ``artifactType``.

Inputs (``survey``): a sweep corpus (``manifest.json``, ``corpus/<surface>/<id>.trajectory.json``,
``native/<surface>/<id>.db``, ``native/<surface>/brain/<id>/...``,
``native/<surface>/install/<root name>/...``), a store root (``conversations/``, ``brain/``, its
per-install files), a home directory (``.gemini/antigravity*``), a plain directory (its
``*.trajectory.json``, ``*.db``, ``*.jsonl`` and ``*.md.metadata.json`` files) or files
(``history.jsonl``, ``conversation_summaries.db`` and ``*.md.metadata.json`` by name, else
``.db``, ``.jsonl``, else a sidecar). Documents are read one at a time; memory does not grow with the corpus.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from google.protobuf.unknown_fields import UnknownFieldSet

from audit.checks.conventions import Conventions
from audit.checks.shape import OTHER_TIER, TIER_NAMES, KeyShape, SidecarShape, TranscriptShape, digest_lines, is_data_key
from audit.checks.values import SURFACE as VALUES
from audit.checks.values import Unrecorded, Values, add_trajectory
from audit.errors import InputError
from audit.progress import Callback
from audit.safeio import MAX_DOCUMENT_BYTES, exists, gc_paused, is_dir, loads_text, read_bytes, read_json
from audit.store import install, layout
from audit.store import transcript as tr
from audit.store.database import (
    NativeConversation,
    SchemaObject,
    read_database,
    schema_fingerprint,
)
from audit.store.ids import canonical_id
from audit.store.layout import SIDECAR_SUFFIX
from audit.store.proto import cortex_pb2 as pb
from audit.store.proto_json import FieldSets
from audit.store.selection import Selection
from audit.store.trajectory import STEP_TYPE_NAMES, BlobFields, NativeTrajectory, reconstruct
from audit.store.transcript import DROPPED, iter_transcript
from audit.store.transcript import Finding as TranscriptFinding
from audit.store.wire import I32, I64, LEN, MAX_DEPTH, MAX_FIELDS, VARINT, WIRE_NAMES, WireError, WireField
from audit.store.wire import parse as parse_wire

if TYPE_CHECKING:
    from audit.store.proto import MessageDescriptor

SURFACES = (
    "sidecar",
    "sqlite",
    "wire",
    "transcript",
    "summaries",
    "history",
    "cache",
    "artifacts",
    "roots",
    "layout",
    "conventions",
    VALUES,
)
SESSION_SURFACES = ("sidecar", "wire", "transcript", "artifacts", "conventions", VALUES)
"""Surfaces whose lines come from the sessions swept (the others: each ``.db``'s whole schema, and
the per-install files and the roots' layout, swept whatever the selection)."""
COMPLETE_SCOPE = "explicit-version-scoped"
"""Corpus scope of a complete sweep (agy-reader's label for a comparable corpus)."""

TRANSCRIPT_NAMES = ("transcript.jsonl", "transcript_full.jsonl", "overview.txt")


@dataclass(frozen=True)
class Fingerprint:
    surface: str
    lines: tuple[str, ...]
    digest: str
    note: str | None = None

    @classmethod
    def of(cls, surface: str, lines: Iterable[str], note: str | None = None) -> Fingerprint:
        lines = tuple(sorted(lines))
        return cls(surface, lines, digest_lines(lines), note)


@dataclass
class Counts:
    """What the corpus held: sidecar documents (``sessions``), their steps, step types and
    statuses, the database and transcript files read, and per field readers filter records by
    (``Values.counts``: transcript type, source and status, the steps columns) the records holding
    each value."""

    sessions: int = 0
    steps: int = 0
    step_types: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    databases: int = 0
    transcripts: int = 0
    values: dict[str, Counter[str]] = field(default_factory=dict)

    def add_trajectory(self, doc: object) -> None:
        self.sessions += 1
        steps = doc.get("steps") if type(doc) is dict else None
        if type(steps) is not list:
            return
        self.steps += len(steps)
        try:  # C-level counting of the raw values; labels per distinct value
            types, statuses = (Counter(map(dict.get, steps, repeat(key))) for key in ("type", "status"))
        except TypeError:  # a step that is not an object, or a type/status that is (unhashable)
            self.step_types.update(_label(s.get("type")) if type(s) is dict else "(not an object)" for s in steps)
            self.statuses.update(_label(s.get("status")) for s in steps if type(s) is dict)
            return
        for counts, values in ((self.step_types, types), (self.statuses, statuses)):
            for value, n in values.items():
                counts[_label(value)] += n

    def merge(self, other: Counts) -> None:
        self.sessions += other.sessions
        self.steps += other.steps
        self.step_types.update(other.step_types)
        self.statuses.update(other.statuses)
        self.databases += other.databases
        self.transcripts += other.transcripts
        for key, counted in other.values.items():
            self.values.setdefault(key, Counter()).update(counted)

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "steps": self.steps,
            "stepTypes": dict(sorted(self.step_types.items())),
            "statuses": dict(sorted(self.statuses.items())),
            "databases": self.databases,
            "transcripts": self.transcripts,
            "values": {key: dict(sorted(counted.items())) for key, counted in sorted(self.values.items())},
        }


def _label(value: object) -> str:
    return value if type(value) is str else "(missing)" if value is None else "(not a string)"


@dataclass
class Survey:
    """Fingerprints of the requested surfaces of some inputs, and what was seen on the way."""

    kind: str  # "sweep" | "store" | "files"
    complete: bool  # a sweep corpus whose manifest says complete: true (all inputs)
    agy_version: str | None  # the manifest's installedAgyVersion, when one manifest says it
    fingerprints: dict[str, Fingerprint] = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)  # surface -> reason
    counts: Counts = field(default_factory=Counts)
    problems: list[str] = field(default_factory=list)  # unreadable/corrupt input files
    skipped: list[str] = field(default_factory=list)  # ignored entries and dropped lines
    manifests: list[Path] = field(default_factory=list)
    sources: Counter[str] = field(default_factory=Counter)  # swept sidecars per source (daemon/native)
    files: dict[str, list[Path]] = field(default_factory=dict)  # sidecars / databases / transcripts read
    selection: Selection | None = None  # what the sweep was asked to take (its manifest's), None: every session
    selected: int = 0  # sessions the sweeps selected (their manifests' ``selected``)
    excluded: int = 0  # sessions their selections left out

    unread: int = 0  # sessions of a store whose conversation no file read here holds (a legacy .pb only)

    @property
    def whole(self) -> bool:
        """A store or home read whole, as a complete sweep reads it: every session's files read
        (its ``.db``, brain, the per-install files), none unreadable, none only the daemon reads."""
        return self.kind == "store" and not self.problems and not self.unread

    def partial(self) -> dict[str, str]:
        """Surfaces of a complete sweep or a store read whole whose absent lines are no evidence,
        with why: a store's sidecars; those of a sample (``sampled``), then the sidecar surface of a
        native sweep, for keys our ``.proto`` cannot decode (``drift.native_observable`` tells which)."""
        if self.whole:
            return {
                "sidecar": "a store's sidecars are agy-reader's copies, fresh, stale or missing per session: "
                "a key they lack is no evidence (a sweep writes every session's)"
            }
        native = sum(n for source, n in self.sources.items() if source != "daemon")
        if not self.complete:
            return {}
        found = {}
        if native:
            found["sidecar"] = (
                "for keys audit/store/proto/cortex.proto does not decode (daemon-only keys): "
                f"{native} of {sum(self.sources.values())} sidecars were reconstructed offline from .db files "
                "(native sweep); a missing key the .proto decodes is a removal"
            )
        return found | self.sampled()

    def sampled(self) -> dict[str, str]:
        """The surfaces of the sessions when the sweep's selection left out sessions it could
        read (by id, time or number): what the sessions taken lack, those left out may hold."""
        if not (self.complete and self.selection is not None and self.selection.samples and self.excluded):
            return {}
        why = (
            f"the corpus is a selection ({self.selection.describe(self.selected, self.excluded)}): "
            "the sessions it left out may hold what it lacks"
        )
        return dict.fromkeys(SESSION_SURFACES, why)

    @property
    def scope(self) -> str:
        """``explicit-version-scoped`` for a complete sweep, else ``partial-<version>-scoped``."""
        return COMPLETE_SCOPE if self.complete else f"partial-{self.agy_version or 'unknown'}-scoped"


# ----------------------------------------------------------------------------- inputs


@dataclass
class _Inputs:
    sidecars: list[Path] = field(default_factory=list)
    databases: list[Path] = field(default_factory=list)
    transcripts: list[Path] = field(default_factory=list)  # every file of every stream
    streams: list[tuple[str | None, tuple[Path, ...]]] = field(default_factory=list)  # (tier, parts)
    artifacts: list[Path] = field(default_factory=list)  # brain <name>.md.metadata.json files
    installs: list[tuple[str | None, str, Path]] = field(default_factory=list)  # (root name, path in the root, file)
    roots: set[str] = field(default_factory=set)  # names of the store roots (given, discovered or swept)
    layouts: dict[str, dict[str, set[str]]] = field(default_factory=dict)  # root name -> family -> forms
    seen: set[str] = field(default_factory=set)

    def add(self, kind: str, path: Path) -> None:
        key = os.path.abspath(path)  # no syscall per file; symbolic links are never collected
        if key not in self.seen:
            self.seen.add(key)
            getattr(self, kind).append(path)

    def add_install(self, root: str | None, rel: str, path: Path) -> None:
        """A per-install file (``install.SWEPT``) at *rel* in the root named *root* (None: a file
        given alone, which belongs to no known root)."""
        key = os.path.abspath(path)
        if key not in self.seen:
            self.seen.add(key)
            self.installs.append((root, rel, path))

    def add_layout(self, root: str, forms: dict[str, str]) -> None:
        """The file families of a root's sessions (``layout.layout_forms``); a root name met twice
        (two homes) holds the forms of both."""
        held = self.layouts.setdefault(root, {})
        for family, form in forms.items():
            held.setdefault(family, set()).update(form.split("|"))

    def add_stream(self, tier: str | None, paths: tuple[Path, ...]) -> None:
        fresh = tuple(p for p in paths if os.path.abspath(p) not in self.seen)
        if fresh:
            self.seen.update(os.path.abspath(p) for p in fresh)
            self.transcripts.extend(fresh)
            self.streams.append((tier, fresh))

    def add_brain(self, brain: Path) -> None:
        """Every tier of one brain directory, one stream each (two when flat and chunks differ)."""
        for tier in tr.locate(brain).tiers:
            state = tier.agreement()
            if state in ("differ", "unreadable"):
                assert tier.flat is not None  # agreement() is None without a flat file
                self.add_stream(tier.name, (tier.flat,))
                self.add_stream(tier.name, tier.chunks)
            else:
                self.add_stream(tier.name, tier.stream)


def _entries(directory: Path, result: Survey) -> list[os.DirEntry[str]]:
    """``layout.list_dir``, with an unreadable directory recorded as a problem instead."""
    try:
        return layout.list_dir(directory)
    except InputError as exc:
        result.problems.append(exc.message)
        return []


def _regular(entry: os.DirEntry[str], result: Survey) -> bool:
    """A regular file (a symbolic link is reported and skipped)."""
    if entry.is_symlink():
        result.skipped.append(f"{entry.path}: symbolic link (not followed)")
        return False
    return entry.is_file(follow_symlinks=False)


def _uuid_file(entry: os.DirEntry[str], suffix: str, result: Survey) -> bool:
    if not entry.name.endswith(suffix) or not _regular(entry, result):
        return False
    if canonical_id(entry.name[: -len(suffix)]) is None:
        result.skipped.append(f"{entry.path}: name is not <uuid>{suffix}")
        return False
    return True


def _brain(directory: Path, inputs: _Inputs, result: Survey) -> None:
    """The transcript tiers of each ``<directory>/<uuid>/.system_generated/logs/``."""
    for entry in _entries(directory, result):
        if entry.is_symlink():
            result.skipped.append(f"{entry.path}: symbolic link (not followed)")
        elif canonical_id(entry.name) is None or not entry.is_dir(follow_symlinks=False):
            result.skipped.append(f"{entry.path}: not a brain/<uuid>/ directory")
        else:
            logs = Path(entry.path, ".system_generated", "logs")
            for log in _entries(logs, result):  # symbolic links among them are reported, never read
                if log.name in TRANSCRIPT_NAMES:
                    _regular(log, result)
            inputs.add_brain(Path(entry.path))
            _artifacts(Path(entry.path), inputs, result)


def _sweep(path: Path, inputs: _Inputs, result: Survey) -> None:
    manifest = read_json(path / "manifest.json")
    result.manifests.append(path / "manifest.json")
    result.complete = result.complete and manifest.get("complete") is True
    chosen = manifest.get("selection")
    result.selection = result.selection or Selection.from_json(chosen)
    result.excluded += len(chosen.get("excluded") or ()) if isinstance(chosen, dict) else 0
    result.selected += manifest["selected"] if isinstance(manifest.get("selected"), int) else 0
    version = manifest.get("installedAgyVersion")
    result.agy_version = version if isinstance(version, str) and result.agy_version in (None, version) else None
    sessions = manifest.get("sessions")
    for session in sessions if isinstance(sessions, list) else ():  # sessions with a sidecar (not brain-only ones)
        files = session.get("files") if isinstance(session, dict) else None
        if (
            isinstance(session.get("source"), str)
            and isinstance(files, dict)
            and any(str(k).startswith("corpus/") for k in files)
        ):
            result.sources[session["source"]] += 1
    corpus = path / "corpus"
    for entry in _entries(corpus, result):
        if entry.is_dir(follow_symlinks=False):  # corpus/<surface>/
            for item in _entries(Path(entry.path), result):
                if _uuid_file(item, SIDECAR_SUFFIX, result):
                    inputs.add("sidecars", Path(item.path))
        elif _uuid_file(entry, SIDECAR_SUFFIX, result):  # agy-reader's flat corpus/
            inputs.add("sidecars", Path(entry.path))
    _manifest_roots(manifest, inputs)
    for entry in _entries(path / "native", result):
        if not entry.is_dir(follow_symlinks=False):
            continue
        for item in _entries(Path(entry.path), result):
            if item.name == "brain" and item.is_dir(follow_symlinks=False):
                _brain(Path(item.path), inputs, result)
            elif item.name == install.INSTALL_DIR and item.is_dir(follow_symlinks=False):
                _corpus_installs(Path(item.path), inputs, result)
            elif _uuid_file(item, ".db", result):
                inputs.add("databases", Path(item.path))


def _store(root: layout.Root, inputs: _Inputs, result: Survey) -> None:
    scan = layout.scan_root(root)
    result.skipped.extend(f"{f.path}: {f.reason}" for f in scan.foreign)
    _store_installs(scan, inputs)
    inputs.add_layout(install.root_name(scan.root.path), layout.layout_forms(scan.sessions))
    for session in scan.sessions:
        if session.sidecar is not None:
            inputs.add("sidecars", session.sidecar)
        if session.db is not None:
            inputs.add("databases", session.db)
        elif session.legacy_pb is not None:
            result.unread += 1
        if session.brain is not None:
            inputs.add_brain(session.brain)


def _plain_dir(path: Path, inputs: _Inputs, result: Survey) -> None:
    for entry in _entries(path, result):
        if _install_name(entry.name) is not None:
            if _regular(entry, result):
                _file(Path(entry.path), inputs)
        elif entry.name.endswith(SIDECAR_SUFFIX) and _regular(entry, result):
            inputs.add("sidecars", Path(entry.path))
        elif entry.name.endswith(".db") and _regular(entry, result):
            inputs.add("databases", Path(entry.path))
        elif (entry.name.endswith(".jsonl") or entry.name == tr.FLAT_NAMES["overview"]) and _regular(entry, result):
            inputs.add_stream(tr.tier_of(entry.path), (Path(entry.path),))


def _file(path: Path, inputs: _Inputs) -> None:
    kind = _install_name(path.name)
    if kind == "artifacts":
        inputs.add("artifacts", path)
    elif kind is not None:
        inputs.add_install(None, path.name, path)
    elif path.name.endswith(".db"):
        inputs.add("databases", path)
    elif path.name.endswith(".jsonl") or path.name == tr.FLAT_NAMES["overview"]:
        inputs.add_stream(tr.tier_of(path), (path,))
    else:
        inputs.add("sidecars", path)


def _collect(paths: Iterable[str | os.PathLike[str]]) -> tuple[_Inputs, Survey]:
    inputs = _Inputs()
    kinds: set[str] = set()
    result = Survey(kind="files", complete=True, agy_version=None)
    for raw in paths:
        path = Path(raw)
        try:
            st = os.stat(path)
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or 'cannot read'}") from None
        if stat.S_ISREG(st.st_mode):
            kinds.add("files")
            _file(path, inputs)
        elif not stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: not a file or directory")
        elif exists(path / "manifest.json"):
            kinds.add("sweep")
            _sweep(path, inputs, result)
        elif layout.is_store(path):
            kinds.add("store")
            _store(layout.Root(path.absolute(), layout.surface_of(path), explicit=True), inputs, result)
        elif is_dir(path / ".gemini"):
            kinds.add("store")
            for root in layout.resolve_roots(home=path, env={}):
                _store(root, inputs, result)
        else:
            kinds.add("files")
            _plain_dir(path, inputs, result)
    result.complete = result.complete and kinds == {"sweep"}
    result.kind = kinds.pop() if len(kinds) == 1 else "files"
    return inputs, result


# ----------------------------------------------------------------------------- surfaces


def _sidecars(paths: Iterable[Path], result: Survey, read: Reads | None, values: Values) -> Fingerprint | None:
    """The sidecar shape of *paths*, folded into *read*'s, whose sidecars are not read again;
    their enum values into *values*."""
    shape = SidecarShape() if read is None else read.sidecars
    taken = set() if read is None else read.sidecar_paths
    if read is not None:
        result.counts.merge(read.sidecar_counts)
        values.merge(read.sidecar_values)
    for path in paths:
        if taken and os.path.abspath(path) in taken:
            continue
        with gc_paused():  # until the document is freed: a GC pass in between would only rescan it
            try:
                doc = shape.add_json(read_bytes(path, limit=MAX_DOCUMENT_BYTES), str(path))
            except InputError as exc:
                result.problems.append(exc.message)
                continue
            result.counts.add_trajectory(doc)
            values.add_sidecar(doc)
            del doc
    return Fingerprint.of("sidecar", shape.lines()) if shape.documents else None


def _transcripts(
    streams: Iterable[tuple[str | None, tuple[Path, ...]]],
    result: Survey,
    read: Reads | None,
    values: Values,
    conventions: Conventions,
) -> Fingerprint | None:
    """The ``transcript`` surface; the streams' ``conventions`` and values are gathered on the way."""
    shape = read.transcripts if read is not None else TranscriptShape()
    if read is not None:
        values.merge(read.transcript_values)
        conventions.merge(read.conventions)
    for tier, paths in streams:
        result.counts.transcripts += len(paths)
        known = read.streams.get(tuple(map(str, paths))) if read is not None else None
        if known is not None:
            result.problems += known[0]
            result.skipped += known[1]
            continue
        _stream_shape(shape, values, conventions, tier, paths, result.problems, result.skipped)
    return Fingerprint.of("transcript", shape.lines()) if shape.records else None


def _stream_shape(
    shape: TranscriptShape,
    values: Values,
    conventions: Conventions,
    tier: str | None,
    paths: tuple[Path, ...],
    problems: list[str],
    skipped: list[str],
) -> None:
    name = tier if tier in TIER_NAMES else OTHER_TIER
    batch: list[object] = []  # records walked together (bounded: a stream may be larger than memory)
    for item in iter_transcript(paths, tier=tier):
        if isinstance(item, TranscriptFinding):
            if item.kind == "unreadable":
                problems.append(f"{item.file}: {item.message}")
            elif item.kind in DROPPED:
                skipped.append(f"{item.file}:{item.line}: {item.message}")
        else:
            batch.append(item.raw)
            values.add_transcript(item.raw, name)
            conventions.add(name, item.type, item.content)
            if len(batch) == _BATCH:
                shape.add_all(batch, tier)
                batch = []
    if batch:
        shape.add_all(batch, tier)


_BATCH = 256
"""Transcript records folded into the shape at a time."""


def schema_lines(schema: list[SchemaObject], user_version: int | None) -> list[str]:
    """Canonical lines of one database schema (see the module docstring)."""
    lines = [f"user_version\t{user_version}"]
    for obj in schema:
        if obj.type == "table":
            lines.append(f"table:{obj.name}\ttable")
            for _cid, name, declared, notnull, default, pk in obj.columns:
                value = declared or "(no type)"
                value += " not-null" if notnull else ""
                value += f" default={default}" if default is not None else ""
                value += f" pk={pk}" if pk else ""
                lines.append(f"table:{obj.name}.{name}\t{value}")
        elif obj.sql is not None:  # indexes, views, triggers (autoindexes have no SQL)
            lines.append(f"{obj.type}:{obj.name}\t{' '.join(obj.sql.split())}")
    return lines


class _Schemas:
    def __init__(self) -> None:
        self.values: dict[str, set[str]] = {}
        self.digests: set[str] = set()

    def add(self, conv: NativeConversation) -> None:
        self.digests.add(schema_fingerprint(conv.schema, conv.user_version))
        for line in schema_lines(conv.schema, conv.user_version):
            path, value = line.split("\t", 1)
            self.values.setdefault(path, set()).add(value)

    def fingerprint(self) -> Fingerprint | None:
        if not self.digests:
            return None
        lines = [f"{path}\t{'|'.join(sorted(v))}" for path, v in self.values.items()]
        if len(self.digests) == 1:
            lines.sort()
            return Fingerprint("sqlite", tuple(lines), next(iter(self.digests)))
        return Fingerprint.of("sqlite", lines, note=f"{len(self.digests)} different schemas; digest of the union of lines")


# Blob columns and the message our .proto says they hold (None: no known message).
BLOB_MESSAGES: dict[tuple[str, str], MessageDescriptor | None] = {
    ("steps", "step_payload"): pb.Step.DESCRIPTOR,
    ("steps", "metadata"): pb.CortexStepMetadata.DESCRIPTOR,
    ("steps", "error_details"): pb.CortexErrorDetails.DESCRIPTOR,
    ("steps", "permissions"): pb.TrajectoryPermissions.DESCRIPTOR,
    ("steps", "task_details"): pb.TaskDetails.DESCRIPTOR,
    ("gen_metadata", "data"): pb.CortexStepGeneratorMetadata.DESCRIPTOR,
    ("executor_metadata", "data"): pb.ExecutorMetadata.DESCRIPTOR,
    ("parent_references", "data"): pb.CortexTrajectoryReference.DESCRIPTOR,
    ("trajectory_metadata_blob", "data"): pb.CortexTrajectoryMetadata.DESCRIPTOR,
}


def wire_observations(conv: NativeConversation, recorded: BlobFields | None = None) -> Iterator[tuple[str, str, str]]:
    """(scope, field path, wire type) of the fields in the blob cells of *conv*, each distinct one once.

    Scope is ``table.column`` (``steps.step_payload[<step type>]`` for payloads). Field paths
    are dotted names where the message is known, numbers where not; a length-delimited field
    our schema does not know (or knows as string/bytes) is not parsed further. The (path, wire
    type) set of each blob is merged into its scope's with one set union, so the triples are
    made once per conversation rather than once per field.

    *recorded*, what decoding *conv* recorded of its blobs (``reconstruct(conv, recorded)``),
    answers for the blobs it holds whole (``BlobFields.cells``): each set of fields recorded at a
    path is turned into its (path, wire type) pairs once (``_recorded_fields``), as
    ``_decoded_fields`` turns the same message's fields, and only the other blobs are parsed.
    """
    cells = recorded.cells if recorded is not None else frozenset()
    scopes: dict[str, set[tuple[str, str]]] = {}
    for table, rows in sorted(conv.tables.items()):
        for position, row in enumerate(rows):
            for column, value in row.items():
                if type(value) is not bytes:
                    continue
                scope = _scope(table, column, row.get("step_type"))
                found = scopes.get(scope)
                if found is None:
                    found = scopes[scope] = set()
                if (table, position, column) not in cells:
                    found |= _blob_fields(BLOB_MESSAGES.get((table, column)), value)
    if recorded is not None:
        for (table, column, step_type), roots in recorded.trees.items():
            scope = _scope(table, column, step_type)
            descriptor = BLOB_MESSAGES[(table, column)]
            assert descriptor is not None  # only blobs of known messages are recorded
            for sets in roots:
                _recorded_fields(sets, descriptor, scopes.setdefault(scope, set()))
    for scope, found in scopes.items():
        for path, kind in found:
            yield scope, path, kind


def _scope(table: str, column: str, step_type: object) -> str:
    """The wire scope of a blob column: ``table.column``, and a payload's step type."""
    if (table, column) == ("steps", "step_payload"):
        return f"{table}.{column}[{_step_type(step_type)}]"
    return f"{table}.{column}"


def _blob_fields(message: MessageDescriptor | None, data: bytes) -> set[tuple[str, str]]:
    """The distinct (field path, wire type) of one blob (``("", "invalid")`` when it is not protobuf)."""
    decoded = _decoded_fields(message, data) if message is not None else None
    if decoded is not None:
        return decoded
    try:
        fields = parse_wire(data, schema=message)
    except WireError:
        return {("", "invalid")}
    return {(path, kind) for _, path, kind in _fields("", fields, message, "")}


_WIRE_TYPE = {  # field type -> wire type of its (unpacked) value
    **dict.fromkeys(
        (
            FieldDescriptor.TYPE_INT32,
            FieldDescriptor.TYPE_INT64,
            FieldDescriptor.TYPE_UINT32,
            FieldDescriptor.TYPE_UINT64,
            FieldDescriptor.TYPE_SINT32,
            FieldDescriptor.TYPE_SINT64,
            FieldDescriptor.TYPE_BOOL,
            FieldDescriptor.TYPE_ENUM,
        ),
        WIRE_NAMES[VARINT],
    ),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64, FieldDescriptor.TYPE_DOUBLE), WIRE_NAMES[I64]),
    **dict.fromkeys((FieldDescriptor.TYPE_FIXED32, FieldDescriptor.TYPE_SFIXED32, FieldDescriptor.TYPE_FLOAT), WIRE_NAMES[I32]),
    **dict.fromkeys((FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES, FieldDescriptor.TYPE_MESSAGE), WIRE_NAMES[LEN]),
}
_CLASSES: dict[MessageDescriptor, type[Message]] = {}
_Shape = tuple[frozenset[tuple[str, str]], int, tuple[int, ...], tuple[tuple[int, bool, "_Node"], ...]]
"""What a set of fields contributes (see ``_Node``)."""


def _decoded_fields(descriptor: MessageDescriptor, data: bytes) -> set[tuple[str, str]] | None:
    """The distinct (path, wire type) of the fields ``_fields(parse_wire(data, schema=descriptor))`` walks,
    found by protobuf's own parser -- or None when that cannot be told from the parse: the bytes
    are not exactly what the parsed message serialises to (a field out of order, unpacked, repeated
    or at its default value, anything that does not parse), or hold a map or a group, or more
    fields than the wire walk's budget. Bytes that are their own serialisation hold just the
    message's set fields (with their types' wire types) and its unknown fields, in one C-level parse.

    What a message of a given type at a given path holds is looked up once per set of fields it
    has (``_Node.shape``): the (path, wire type) pairs are added with one set union, and only its
    sub-messages and repeated fields are visited in Python."""
    message_class = _CLASSES.get(descriptor)
    if message_class is None:
        message_class = _CLASSES[descriptor] = GetMessageClass(descriptor)  # type: ignore[arg-type]  # the stub wants the pure-Python Descriptor; upb's is accepted too
    message = message_class()
    try:
        message.ParseFromString(data)
    except DecodeError:
        return None
    if message.SerializeToString() != data:
        return None
    root = _root(descriptor)
    found: set[tuple[str, str]] = set()
    fields = 0  # the wire walk's budget counts every field ...
    counting = len(data) > 2 * MAX_FIELDS  # ... each of at least two bytes, so a smaller blob stays within it
    stack: list[tuple[Message, _Node]] = [(message, root)]
    while stack:
        current, node = stack.pop()
        listed = current.ListFields()
        fds = tuple(map(_first, listed))
        try:
            shape = node.shapes[fds]
        except KeyError:
            shape = node.shape(fds)
        if shape is None:
            return None  # a group, or a map (whose entries serialise their keys as upb chooses)
        pairs, singles, counted, walked = shape
        found |= pairs
        if counting:
            fields += singles
            for i in counted:
                fields += len(listed[i][1])
        for i, repeated, child in walked:
            if repeated:
                stack.extend(zip(listed[i][1], repeat(child)))
            else:
                stack.append((listed[i][1], child))
        unknown = UnknownFieldSet(current)
        if len(unknown):
            fields_by_number = current.DESCRIPTOR.fields_by_number
            for uf in unknown:  # type: ignore[attr-defined]  # iterable at run time; the stub lacks __iter__
                if uf.wire_type not in _UNKNOWN_KINDS:
                    return None  # a group: the wire walk reports the blob as invalid
                known = fields_by_number.get(uf.field_number)
                found.add(
                    (node.prefix + (known.name if known is not None else str(uf.field_number)), _UNKNOWN_KINDS[uf.wire_type])
                )
                fields += 1
        if counting and fields > MAX_FIELDS:
            return None
    return found


def _recorded_fields(sets: FieldSets, descriptor: MessageDescriptor, found: set[tuple[str, str]]) -> None:
    """Add to *found* the (path, wire type) pairs of the messages recorded in *sets*, each of the
    root message type *descriptor*: what ``_decoded_fields`` finds in each of them, one set union
    per distinct set of fields a message at a path held, and its unknown fields as named there.
    A recorded tree holds no map or group, and its blobs are their own serialisation within the
    field budget (``BlobFields``), which is where ``_decoded_fields`` answers."""
    stack: list[tuple[FieldSets, _Node, MessageDescriptor]] = [(sets, _root(descriptor), descriptor)]
    while stack:
        sets, node, message = stack.pop()
        for fds in sets.held:
            try:
                shape = node.shapes[fds]
            except KeyError:
                shape = node.shape(fds)
            assert shape is not None  # render_recorded records no map or group
            found |= shape[0]
        if sets.unknown:
            fields_by_number = message.fields_by_number
            for number, wire_type in sets.unknown:
                known = fields_by_number.get(number)
                found.add((node.prefix + (known.name if known is not None else str(number)), _UNKNOWN_KINDS[wire_type]))
        children = node.children
        for fd, below in sets.below.items():
            child = children.get(fd)  # None beyond MAX_DEPTH, and where no message held fd
            if child is not None:
                assert fd.message_type is not None  # a node's children are message fields
                stack.append((below, child, fd.message_type))


_first = itemgetter(0)
_SHAPES_PER_NODE = 4096  # a bound on what a node remembers (the sets of fields seen at one path)


class _Node:
    """A message type at one field path (``prefix``, ``depth`` levels down) and, per set of fields
    a message there holds (its ``ListFields`` descriptors, in order), what that set contributes:
    the (path, wire type) pairs, how many wire fields its single fields are, the indexes of the
    repeated fields (each item is a wire field) and of the sub-messages to visit, with their node."""

    __slots__ = ("children", "depth", "prefix", "shapes")

    def __init__(self, prefix: str, depth: int) -> None:
        self.prefix, self.depth = prefix, depth
        self.shapes: dict[tuple[FieldDescriptor, ...], _Shape | None] = {}
        self.children: dict[FieldDescriptor, _Node] = {}

    def shape(self, fds: tuple[FieldDescriptor, ...]) -> _Shape | None:
        """What a message holding the fields *fds* contributes, or None when it holds a map or a group
        (remembered in ``shapes``, up to ``_SHAPES_PER_NODE`` sets of fields)."""
        pairs: list[tuple[str, str]] = []
        singles = 0
        counted: list[int] = []
        walked: list[tuple[int, bool, _Node]] = []
        result: _Shape | None = None
        for i, fd in enumerate(fds):
            spec = _SPECS.get(fd)
            if spec is None:
                spec = _SPECS[fd] = _spec(fd)
            if spec is _NO_SPEC:
                break
            kind, repeated, is_message = spec
            path = self.prefix + fd.name
            pairs.append((path, kind))
            if repeated:
                counted.append(i)
            else:
                singles += 1
            if is_message and self.depth < MAX_DEPTH:
                child = self.children.get(fd)
                if child is None:
                    child = self.children[fd] = _Node(path + ".", self.depth + 1)
                walked.append((i, repeated, child))
        else:
            result = (frozenset(pairs), singles, tuple(counted), tuple(walked))
        if len(self.shapes) < _SHAPES_PER_NODE:
            self.shapes[fds] = result
        return result


_ROOTS: dict[MessageDescriptor, _Node] = {}


def _root(descriptor: MessageDescriptor) -> _Node:
    """The node of the messages of type *descriptor* at the root of a blob."""
    root = _ROOTS.get(descriptor)
    if root is None:
        root = _ROOTS[descriptor] = _Node("", 0)
    return root


_NO_SPEC = ("", False, False)
_SPECS: dict[FieldDescriptor, tuple[str, bool, bool]] = {}


def _spec(fd: FieldDescriptor) -> tuple[str, bool, bool]:
    """(wire type, one wire field per item, a message to walk) of a field, or ``_NO_SPEC``."""
    kind = _WIRE_TYPE.get(fd.type)
    if kind is None or (fd.message_type is not None and fd.message_type.GetOptions().map_entry):
        return _NO_SPEC
    if fd.is_repeated and fd.is_packed:
        return WIRE_NAMES[LEN], False, False
    return kind, fd.is_repeated, fd.type == FieldDescriptor.TYPE_MESSAGE


_UNKNOWN_KINDS = {w: WIRE_NAMES[w] for w in (VARINT, I64, LEN, I32)}


def _step_type(value: object) -> str:
    if type(value) is int and value in STEP_TYPE_NAMES:
        return STEP_TYPE_NAMES[value]
    return str(value)


def _fields(
    scope: str, fields: tuple[WireField, ...], message: MessageDescriptor | None, prefix: str
) -> Iterator[tuple[str, str, str]]:
    stack = [(fields, message, prefix)]
    while stack:
        fields, message, prefix = stack.pop()
        for f in fields:
            fd = message.fields_by_number.get(f.number) if message is not None else None
            path = prefix + (fd.name if fd is not None else str(f.number))
            yield scope, path, WIRE_NAMES[f.wire_type]
            if fd is not None and fd.type == FieldDescriptor.TYPE_MESSAGE and f.children is not None:
                stack.append((f.children, fd.message_type, path + "."))


def wire_fingerprint(observations: Iterable[tuple[str, str, str]]) -> Fingerprint:
    """The ``wire`` fingerprint of (scope, field path, wire type) observations."""
    values: dict[str, set[str]] = {}
    for scope, path, wire_type in observations:
        values.setdefault(f"{scope}.{path}" if path else scope, set()).add(wire_type)
    return Fingerprint.of("wire", (f"{p}\t{'|'.join(sorted(v))}" for p, v in values.items()))


class Reads:
    """Inputs of a ``survey`` observed elsewhere, which the survey then does not read again: the
    ``sqlite`` and ``wire`` observations of conversation databases (a sweep reads each ``.db``
    copy it writes), the ``transcript`` shape of brain directories and the ``sidecar`` shape of
    sidecars (read while a sweep's other checks read them). Only the distinct wire triples and
    the merged shapes are kept, so memory does not grow with the number of inputs. Everything
    added must be among the survey's inputs (sidecars that are not are read again, all of them)."""

    def __init__(self, *, values: bool = True) -> None:
        self.schemas = _Schemas()
        self.wire: set[tuple[str, str, str]] = set()
        self.problems: dict[str, list[str]] = {}  # absolute path -> its problems, for every database added
        self.transcripts = TranscriptShape()
        self.conventions = Conventions()
        self.streams: dict[tuple[str, ...], tuple[list[str], list[str]]] = {}  # stream files -> (problems, skipped)
        self.sidecars = SidecarShape()
        self.sidecar_counts = Counts()
        self.sidecar_paths: set[str] = set()  # absolute paths of the sidecars added
        kind = Values if values else Unrecorded  # the values surface is computed from them, or not
        self.sidecar_values: Values = kind()
        self.database_values: Values = kind()
        self.transcript_values: Values = kind()

    def add_sidecar(self, path: Path, document: object, *, values: bool = True) -> None:
        """Observe the sidecar at *path*, parsed by ``safeio.loads`` (``sidecar.read``); its enum
        values too unless they were taken from the reconstruction it renders (``add(...,
        rendered=True)``)."""
        self.sidecar_paths.add(os.path.abspath(path))
        unwrapped = self.sidecars.add_parsed(document)
        self.sidecar_counts.add_trajectory(unwrapped)
        if values:
            self.sidecar_values.add_sidecar(unwrapped)

    def add_brain(self, brain: Path) -> None:
        """Observe the transcript streams of the brain directory *brain* (as ``survey`` finds them)."""
        inputs = _Inputs()
        inputs.add_brain(brain)
        for tier, paths in inputs.streams:
            problems: list[str] = []
            skipped: list[str] = []
            _stream_shape(self.transcripts, self.transcript_values, self.conventions, tier, paths, problems, skipped)
            self.streams[tuple(map(str, paths))] = (problems, skipped)

    def add(
        self,
        conv: NativeConversation,
        recorded: BlobFields | None = None,
        native: NativeTrajectory | None = None,
        *,
        rendered: bool = False,
    ) -> None:
        """Observe the conversation database *conv*; *recorded*, what decoding it recorded of its
        blobs, spares parsing them again (``wire_observations``), and *native*, its reconstruction,
        decoding it again for its enum values. *rendered*: a sidecar added here is *native*
        rendered as it is (a native sweep's), so its enum values are taken in the same walk
        (and not again by ``add_sidecar(..., values=False)``)."""
        self.problems[os.path.abspath(conv.path)] = _problems(conv)
        if conv.access:
            self.schemas.add(conv)
            self.wire.update(wire_observations(conv, recorded))
            _database_values(self.database_values, conv, native, self.sidecar_values if rendered else None)


def _problems(conv: NativeConversation) -> list[str]:
    """What a survey reports of *conv*: every finding when it could not be read, else all but
    missing tables (the sqlite surface shows those)."""
    if not conv.access:
        return [f.message for f in conv.findings]
    return [f.message for f in conv.findings if f.code != "missing-table"]


def _database_values(
    values: Values, conv: NativeConversation, native: NativeTrajectory | None = None, sidecar: Values | None = None
) -> None:
    """The step types and statuses of *conv*'s rows and the enum values of its blobs (from *native*,
    its reconstruction, or from decoding it now), and those of its rendering into *sidecar*."""
    values.add_rows(conv.tables.get("steps", ()))
    add_trajectory((native or reconstruct(conv)).trajectory, wire=values, sidecar=sidecar)


def _databases(
    paths: Iterable[Path], result: Survey, schemas: _Schemas, observe: bool, read: Reads | None, values: Values, want_values: bool
) -> Iterator[tuple[str, str, str]]:
    """Read each database once: its schema into *schemas*, its step types and statuses into
    *values*, its wire observations yielded; those in *read* are not read again (*schemas*,
    *values* and the yielded triples then include *read*'s)."""
    if read is not None:
        values.merge(read.database_values)
        if observe:
            yield from read.wire
    for path in paths:
        result.counts.databases += 1
        if read is not None and (known := read.problems.get(os.path.abspath(path))) is not None:
            result.problems.extend(known)
            continue
        conv = read_database(path)
        result.problems.extend(_problems(conv))
        if not conv.access:
            continue
        schemas.add(conv)
        if want_values:
            _database_values(values, conv)
        if observe:
            yield from wire_observations(conv)


def _counting(progress: Callback | None, total: int) -> Callable[[list[Path]], Iterator[Path]]:
    """Wraps the file lists read one after another so that *progress* sees one running count."""
    done = 0

    def each(paths: list[Path]) -> Iterator[Path]:
        nonlocal done
        for path in paths:
            if progress is not None:
                progress(done, total, str(path))
            done += 1
            yield path

    return each


def survey(
    paths: Iterable[str | os.PathLike[str]],
    surfaces: Iterable[str] = SURFACES,
    *,
    progress: Callback | None = None,
    read: Reads | None = None,
) -> Survey:
    """Fingerprint the requested *surfaces* of *paths*; unreadable files are reported in
    ``problems`` and skipped, a surface without input is listed in ``not_computed``.
    *progress* is called before each file read with (files done, files to read, file);
    databases and transcript streams in *read* are taken from it (see ``Reads``)."""
    wanted = set(surfaces)
    inputs, result = _collect(paths)
    result.files = {
        "sidecars": inputs.sidecars,
        "databases": inputs.databases,
        "transcripts": inputs.transcripts,
        "install": [p for _, _, p in inputs.installs],
        "artifacts": inputs.artifacts,
    }
    read_databases = bool(wanted & {"sqlite", "wire", VALUES})
    read_transcripts = bool(wanted & {"transcript", "conventions", VALUES})
    values = Values() if VALUES in wanted else Unrecorded()
    total = (
        len(inputs.sidecars)
        + (len(inputs.databases) if read_databases else 0)
        + (len(inputs.transcripts) if read_transcripts else 0)
        + _install_total(inputs, wanted)
    )
    each = _counting(progress, total)
    found: dict[str, Fingerprint | None] = {}
    if "sidecar" in wanted or inputs.sidecars:  # sidecars also give the corpus counts
        listed = read is not None and read.sidecar_paths <= {os.path.abspath(p) for p in inputs.sidecars}
        found["sidecar"] = _sidecars(each(inputs.sidecars), result, read if listed else None, values)
    if read_databases:
        schemas = read.schemas if read is not None else _Schemas()
        observations = _databases(each(inputs.databases), result, schemas, "wire" in wanted, read, values, VALUES in wanted)
        if "wire" in wanted:
            wire = wire_fingerprint(observations)
        else:
            wire = None
            for _ in observations:  # read every .db for its schema only
                pass
        found["sqlite"] = schemas.fingerprint()
        found["wire"] = wire if schemas.digests else None
    if read_transcripts:
        conventions = Conventions()
        found["transcript"] = _transcripts(
            ((tier, tuple(each(list(paths)))) for tier, paths in inputs.streams), result, read, values, conventions
        )
        found["conventions"] = Fingerprint.of("conventions", conventions.lines()) if conventions.forms else None
    found.update(_install_surfaces(inputs, wanted, result, each, values))
    found[VALUES] = Fingerprint.of(VALUES, values.lines()) if values.seen or values.more else None
    result.counts.values = values.counts
    missing = {
        "sidecar": "no readable *.trajectory.json sidecar",
        "sqlite": "no readable conversation .db",
        "wire": "no readable conversation .db",
        "transcript": "no brain transcript record",
        "summaries": "no readable conversation_summaries.db",
        "history": "no history.jsonl record",
        "cache": "no readable cache/ file",
        "artifacts": "no readable brain artifact *.md.metadata.json",
        "roots": "no store root (a home, a store root or a sweep corpus names them)",
        "layout": "no session in a store root (a sweep corpus records it per root since manifests name their roots' layout)",
        "conventions": "no brain transcript record with a step type",
        VALUES: "no sidecar, conversation .db or transcript record to take values from",
    }
    for surface in SURFACES:
        if surface not in wanted:
            continue
        if (computed := found.get(surface)) is not None:
            result.fingerprints[surface] = computed
        else:
            result.not_computed[surface] = missing[surface]
    return result


# ----------------------------------------------------------------------------- per-install surfaces
#
# ``summaries`` (conversation_summaries.db), ``history`` (history.jsonl), ``cache`` (cache/*),
# ``artifacts`` (brain <name>.md.metadata.json) and ``roots`` (which roots and which of those
# files each has): see ``audit.store.install`` for where they are and how they are read.

ARTIFACT_SUFFIX = ".md.metadata.json"
JSON_COLUMNS = frozenset({("conversation_summaries", "workspace_uris")})
"""Text columns of ``conversation_summaries.db`` that hold JSON text (a list of ``file://`` URIs):
their JSON shape is recorded. Other text columns (titles, previews) are never parsed: a text
that happens to be JSON would put its keys into a line."""
_STORAGE_CLASSES = {type(None): "null", int: "integer", float: "real", str: "text", bytes: "blob"}
_SCHEMA_KEY = re.compile(r"user_version|(?:table|index|view|trigger):.*", re.S)


def _install_name(name: str) -> str | None:
    """The surface a file given by itself (or in a plain directory) belongs to, by its name."""
    if name in (install.HISTORY, install.SUMMARIES):
        return install.kind_of(name)
    if name.endswith(ARTIFACT_SUFFIX):
        return "artifacts"
    return None


def _artifacts(brain: Path, inputs: _Inputs, result: Survey) -> None:
    """The ``<name>.md.metadata.json`` files at the top of the (copied) brain directory *brain*."""
    for entry in _entries(brain, result):
        if entry.name.endswith(ARTIFACT_SUFFIX) and _regular(entry, result):
            inputs.add("artifacts", Path(entry.path))


def _store_installs(scan: layout.RootScan, inputs: _Inputs) -> None:
    """The root's name, its per-install files (``install.SWEPT``) and its sessions' artifact metadata."""
    name = install.root_name(scan.root.path)
    inputs.roots.add(name)
    for item in scan.install_files:
        if item.kind in install.SWEPT:
            inputs.add_install(name, item.path.relative_to(scan.root.path).as_posix(), item.path)
    for session in scan.sessions:
        for path in session.brain_files.get("artifact_metadata", ()):
            inputs.add("artifacts", path)


def _manifest_roots(manifest: dict[str, Any], inputs: _Inputs) -> None:
    """The names of the roots a sweep read (``roots[].name``; the last segment of ``path`` in a
    manifest written before names were recorded)."""
    roots = manifest.get("roots")
    for root in roots if isinstance(roots, list) else ():
        if not isinstance(root, dict):
            continue
        name, path = root.get("name"), root.get("path")
        if isinstance(name, str) and name:
            inputs.roots.add(name)
        elif isinstance(path, str) and path:
            name = install.root_name(path)
            inputs.roots.add(name)
        forms = root.get("layout")
        if isinstance(name, str) and name and isinstance(forms, dict):
            inputs.add_layout(name, {f: v for f, v in forms.items() if f in layout.LAYOUT_FAMILIES and v in _FORMS})


def _corpus_installs(directory: Path, inputs: _Inputs, result: Survey) -> None:
    """``native/<surface>/install/<root name>/``: the per-install files a sweep copied, by root."""
    for entry in _entries(directory, result):
        if entry.is_symlink() or not entry.is_dir(follow_symlinks=False):
            result.skipped.append(f"{entry.path}: not an install/<root>/ directory")
            continue
        inputs.roots.add(entry.name)
        for item in _entries(Path(entry.path), result):
            if item.name == install.CACHE and not item.is_symlink() and item.is_dir(follow_symlinks=False):
                for cached in _entries(Path(item.path), result):
                    if _regular(cached, result):
                        inputs.add_install(entry.name, f"{install.CACHE}/{cached.name}", Path(cached.path))
            elif install.kind_of(item.name) is not None and _regular(item, result):
                inputs.add_install(entry.name, item.name, Path(item.path))
            else:
                result.skipped.append(f"{item.path}: not a per-install file agy-audit sweeps")


def _installed(inputs: _Inputs, kind: str) -> list[tuple[str | None, str, Path]]:
    return [item for item in inputs.installs if install.kind_of(item[1]) == kind]


def _name_segment(name: str) -> str:
    """A file or root name as a line segment: each ``.``-separated part that is data
    (``shape.is_data_key``: an id, a number, anything but a short identifier) becomes ``*``."""
    return ".".join("*" if is_data_key(part) else part for part in name.split("."))


def _summaries(paths: Iterable[Path], result: Survey) -> Fingerprint | None:
    """The ``summaries`` surface: the union of the lines of every readable database."""
    values: dict[str, set[str]] = {}
    read = False
    for path in paths:
        try:
            conv = install.read_summaries(path)
        except InputError as exc:
            result.problems.append(exc.message)
            continue
        read = True
        for line in summaries_lines(conv):
            key, value = line.split("\t", 1)
            # a schema line's value is one definition (a default may hold "|"); the others are type unions
            values.setdefault(key, set()).update((value,) if _SCHEMA_KEY.fullmatch(key) else value.split("|"))
    if not read:
        return None
    return Fingerprint.of("summaries", (f"{key}\t{'|'.join(sorted(v))}" for key, v in values.items()))


def summaries_lines(conv: NativeConversation) -> tuple[str, ...]:
    """Lines of one ``conversation_summaries.db``: its schema (``schema_lines``), the storage
    classes each column holds (``rows:T.C<TAB>integer|null``), the JSON shape of each
    ``JSON_COLUMNS`` value (``T.C``, ``T.C.[]``; ``invalid`` where a value is not JSON) and the
    protobuf wire shape of every blob (``T.C.<n>.<m>``, numbered: no schema is known; a nested
    message where a length-delimited value parses completely and is not printable text;
    ``T.C<TAB>invalid`` where a blob is not protobuf). Never a value."""
    lines = schema_lines(conv.schema, conv.user_version)
    classes: dict[str, set[str]] = {}
    shape = KeyShape()
    wire: set[tuple[str, str, str]] = set()
    for table, rows in sorted(conv.tables.items()):
        for row in rows:
            for column, value in row.items():
                scope = f"{table}.{column}"
                classes.setdefault(scope, set()).add(_STORAGE_CLASSES.get(type(value), "blob"))
                if type(value) is bytes:
                    wire.update((scope, path, kind) for path, kind in _raw_wire(value))
                elif type(value) is str and (table, column) in JSON_COLUMNS:
                    try:
                        shape.add(loads_text(value), scope)
                    except InputError:
                        shape.tag(scope, "invalid")
    lines += [f"rows:{scope}\t{'|'.join(sorted(found))}" for scope, found in classes.items()]
    lines += shape.lines()
    lines += wire_fingerprint(wire).lines
    return tuple(sorted(lines))


def _raw_wire(data: bytes) -> set[tuple[str, str]]:
    """(numbered field path, wire type) of a blob of no known message (``("", "invalid")`` when it
    is not protobuf): the schema-less wire walk, nested into the length-delimited values that
    parse completely unless they are printable text (a string that happens to parse as a message
    is not a message)."""
    try:
        fields = parse_wire(data)
    except WireError:
        return {("", "invalid")}
    found: set[tuple[str, str]] = set()
    stack: list[tuple[tuple[WireField, ...], str]] = [(fields, "")]
    while stack:
        fields, prefix = stack.pop()
        for f in fields:
            path = prefix + str(f.number)
            found.add((path, WIRE_NAMES[f.wire_type]))
            if f.children is not None and not _printable(f.value):
                stack.append((f.children, path + "."))
    return found


def _printable(value: int | bytes) -> bool:
    if type(value) is not bytes:
        return False
    try:
        return value.decode("utf-8").isprintable()
    except UnicodeDecodeError:
        return False


HISTORY_VALUES = ("type",)
"""``history.jsonl`` keys whose values the ``values`` surface records (``history:type``)."""
ARTIFACT_VALUES = ("artifactType",)
"""Artifact metadata keys whose values the ``values`` surface records (``artifacts:artifactType``)."""


def _history(paths: Iterable[Path], result: Survey, values: Values) -> Fingerprint | None:
    """The ``history`` surface: keys and JSON types of the records of every ``history.jsonl``
    (lines that hold no JSON value are skipped and listed); their ``HISTORY_VALUES`` into *values*."""
    shape = KeyShape()
    for path in paths:
        try:
            for item in install.history_records(path):
                if isinstance(item, install.Dropped):
                    result.skipped.append(f"{item.file}:{item.line}: {item.reason}")
                else:
                    shape.add(item)
                    values.add_record("history", item, HISTORY_VALUES)
        except InputError as exc:
            result.problems.append(exc.message)
    return Fingerprint.of("history", shape.lines()) if shape.documents else None


def _cache(files: Iterable[tuple[str, Path]], result: Survey) -> Fingerprint | None:
    """The ``cache`` surface: per cache file (by name, ``_name_segment``), the keys and JSON types
    of a ``*.json`` file, or one line with what another file holds (``text``, ``binary``, ``empty``)."""
    shape = KeyShape()
    for rel, path in files:
        name = _name_segment(rel.partition("/")[2])
        try:
            value = install.read_cache(path)
        except InputError as exc:
            result.problems.append(exc.message)
            continue
        if isinstance(value, install.Kind):
            shape.tag(name, value.name)
        else:
            shape.add(value, name)
    return Fingerprint.of("cache", shape.lines()) if shape.documents else None


def _artifact_shape(paths: Iterable[Path], result: Survey, values: Values) -> Fingerprint | None:
    """The ``artifacts`` surface: keys and JSON types of brain artifact metadata files; their
    ``ARTIFACT_VALUES`` into *values*."""
    shape = KeyShape()
    for path in paths:
        try:
            document = install.read_artifact_metadata(path)
        except InputError as exc:
            result.problems.append(exc.message)
            continue
        shape.add(document)
        values.add_record("artifacts", document, ARTIFACT_VALUES)
    return Fingerprint.of("artifacts", shape.lines()) if shape.documents else None


def _roots(inputs: _Inputs) -> Fingerprint | None:
    """The ``roots`` surface: ``<root><TAB>root`` per store root and ``<root>/<file><TAB>file`` per
    per-install file it holds (``history.jsonl``, ``conversation_summaries.db``, ``cache/<name>``)."""
    lines = {f"{_name_segment(name)}\troot" for name in inputs.roots}
    for root, rel, _ in inputs.installs:
        if root is not None:
            head, _, name = rel.rpartition("/")
            lines.add(f"{_name_segment(root)}/{head + '/' if head else ''}{_name_segment(name)}\tfile")
    return Fingerprint.of("roots", lines) if inputs.roots else None


_FORMS = frozenset({"file", "file|none"})


def _layout(inputs: _Inputs) -> Fingerprint | None:
    """The ``layout`` surface: ``<root>/<family><TAB>file`` per file family every session of its
    group has in that root, ``file|none`` per family only some have (``layout.LAYOUT_FAMILIES``)."""
    lines = {
        f"{_name_segment(root)}/{family}\t{'|'.join(sorted(forms))}"
        for root, held in inputs.layouts.items()
        for family, forms in held.items()
    }
    return Fingerprint.of("layout", lines) if lines else None


def _install_surfaces(
    inputs: _Inputs, wanted: set[str], result: Survey, each: Callable[[list[Path]], Iterator[Path]], values: Values
) -> dict[str, Any]:
    """The per-install surfaces among *wanted*, each file read once (*each* counts them); the
    history and artifact files are read for the ``values`` surface too (into *values*)."""
    found: dict[str, Fingerprint | None] = {}
    if "summaries" in wanted:
        found["summaries"] = _summaries(each([p for _, _, p in _installed(inputs, "summaries")]), result)
    if wanted & {"history", VALUES}:
        found["history"] = _history(each([p for _, _, p in _installed(inputs, "history")]), result, values)
    if "cache" in wanted:
        cached = _installed(inputs, "cache")
        found["cache"] = _cache(zip([rel for _, rel, _ in cached], each([p for _, _, p in cached])), result)
    if wanted & {"artifacts", VALUES}:
        found["artifacts"] = _artifact_shape(each(inputs.artifacts), result, values)
    if "roots" in wanted:
        found["roots"] = _roots(inputs)
    if "layout" in wanted:
        found["layout"] = _layout(inputs)
    return found


def _install_total(inputs: _Inputs, wanted: set[str]) -> int:
    """How many files ``_install_surfaces`` reads for *wanted* (for progress)."""
    kinds = {"summaries", "history", "cache"} & (wanted | ({"history"} if VALUES in wanted else set()))
    return sum(install.kind_of(rel) in kinds for _, rel, _ in inputs.installs) + (
        len(inputs.artifacts) if wanted & {"artifacts", VALUES} else 0
    )
