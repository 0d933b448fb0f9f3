"""Native completeness: does a sidecar still hold everything its native ``.db`` holds?

A sidecar can be an old in-memory copy of a conversation that has moved on. Each sidecar that has
a native source -- ``conversations/<id>.db`` beside it in a store, or ``native/<product>/<id>.db``
for ``corpus/<product>/<id>.trajectory.json`` in a sweep corpus -- is compared with one read-only
snapshot of that source, committed ``-wal`` content included (``audit.store.database``), decoded
offline (``audit.store.trajectory``). Nothing here prints.

The projection (profile ``agy-audit-projection/2``) is what both sides carry, compared per step:
the array ``[PROFILE, [step, ...]]`` where each step is the array of ``STEP_FIELDS`` values:

* ``type``, ``status``: the enum name; a number the schema names becomes its name; absent or
  ``null`` is the zero name (``CORTEX_STEP_TYPE_UNSPECIFIED``); a number it does not name stays
  a number;
* ``metadata.createdAt``, ``metadata.startedAt``: RFC 3339 text with the fraction padded to nine
  digits (protobuf and Go print 0, 3, 6 or 9); absent is ``""``;
* ``metadata.toolSummary``, ``metadata.toolAction`` (the tool call's own summary of itself);
* user prompt text: ``userInput.userResponse``, ``userInput.query``, ``userInput.items[].text``;
* planner text: ``plannerResponse.response``, ``.modifiedResponse``, ``.thinking``;
* tool calls as ``[id, name, argumentsJson]``: every ``plannerResponse.toolCalls[]``, the step's
  ``metadata.toolCall`` and ``mcpTool.toolCall``;
* commands: ``runCommand.commandLine``, ``.proposedCommandLine``, ``.exitCode``;
* questions asked (step type ASK_QUESTION) as ``[question, selectedOptionIds, writeInResponse,
  skipped]`` per ``askQuestion.questions[]``.

(Profile ``/1`` had no ``startedAt``, ``toolSummary``, ``toolAction``, tool-call ids or
questions; a recorded ``/1`` attestation is read, no longer matches and is rewritten.)

Absent and ``null`` values are the proto3 defaults (``""``, ``0``, ``[]``, a call ``["", ""]``) on
both sides: proto3 JSON omits defaults, so an absent ``exitCode`` equals ``0``; sidecar-only keys
(see ``audit.store.proto``) are never projected. Present values of the wrong JSON type are kept as they
are, so they never equal the source. ``projectionSha256`` is the SHA-256 of the projection as
compact JSON (keys sorted, no whitespace, UTF-8, non-ASCII unescaped). Equal step counts and
timestamps alone never pass: every field of every step must be equal.

``contentSha256`` is what was compared: the SHA-256 of the snapshot's logical content (every row
of every table read, the schema and ``user_version``; ``NativeConversation.content_sha256``), taken
from the very rows that were projected -- never of the file bytes, so a checkpoint or ``VACUUM``
that keeps the rows keeps the digest, and uncommitted ``-wal`` frames never enter it. The read is
taken between two identical stats of ``.db`` and ``-wal`` (retried otherwise); when the ``-shm``
WAL-index header changed during every read (a commit in progress), the verdict stands but
``Result.stable`` is False and ``attest`` refuses to record it.

Verdicts: ``complete``; ``incomplete`` (steps missing, extra or different, or a sidecar of
another conversation: the first difference is named); ``unsupported`` (where the projection
reads, the source holds something ``cortex.proto`` does not decode: an unknown protobuf field in
a message a projected value is read from -- it could be that value's new home --, a step type or
status number the enum does not name, or a step row that cannot be decoded; fail closed).
Unknown fields and findings elsewhere (``READS`` decides; e.g. inside generator metadata, a
render info or a permission), and unknown fields that carry nothing wherever they are (kind
``empty``: a length-delimited value of zero bytes, an empty message, string or bytes, which can
hold no projected value), are listed in ``Result.outside`` and never change the verdict;
``unknown`` (no native source, or only a legacy encrypted ``.pb``); ``unreadable`` (the sidecar
is not a regular file, not strict JSON or its ``steps`` not an array; the source cannot be read
or kept changing through five attempts over about half a second: a conversation in progress). ``audit.actions.attest`` records ``agyReader.agyAudit.completeness``
in complete sidecars and removes it from incomplete and unsupported ones; see there.
"""

from __future__ import annotations

import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final, Literal

from audit.checks import diff
from audit.errors import (
    EXIT_FINDINGS,
    EXIT_NOTHING,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    NothingToCheck,
    UsageError,
)
from audit.progress import Callback, tracked
from audit.safeio import is_dir, read_bytes
from audit.store.corpus import is_corpus
from audit.store.database import READ_FAILURES, NativeConversation, affects_projection, read_database
from audit.store.ids import UUID_PATTERN, canonical_id
from audit.store.layout import Root, is_store, list_dir
from audit.store.legacy_pb import KEY_HINT, Key, read_legacy
from audit.store.proto import cortex_pb2 as pb
from audit.store.reader_block import READER_BLOCK
from audit.store.sidecar import MAX_SIDECAR_BYTES, FileState, Sidecar, sha256_hex
from audit.store.trajectory import STEP_TYPE_NAMES, NativeTrajectory, reconstruct
from audit.store.wire import EMPTY
from audit.strictjson import dumps, json_key, loads

PROFILE = "agy-audit-projection/2"
READER_KEY = "agyAudit"
"""Our own key inside the reader block: ``agyReader.agyAudit`` (schemas/sidecar.schema.json)."""
ATTESTATION_KEY = "completeness"
"""Our attestation: ``agyReader.agyAudit.completeness``."""
LEGACY_KEY = "completeness"
"""``agyReader.completeness``: agy-reader's key for its own evidence, any object tolerated and never
written. agy-audit 0.1 wrote its attestation there; one in exactly that layout (``_legacy``) is
still read as ours for one release, and moved (or removed) by ``attest``."""
_LEGACY_FIELDS = frozenset({"profile", "sourceSha256", "projectionSha256", "steps", "checkedAt"})

SidecarVerdict = Literal["complete", "incomplete", "unsupported", "unknown", "unreadable"]
COMPLETE: Final = "complete"
INCOMPLETE: Final = "incomplete"
UNSUPPORTED: Final = "unsupported"
UNKNOWN: Final = "unknown"
UNREADABLE: Final = "unreadable"
VERDICTS: tuple[SidecarVerdict, ...] = (COMPLETE, INCOMPLETE, UNSUPPORTED, UNKNOWN, UNREADABLE)
FAILING = frozenset({INCOMPLETE, UNSUPPORTED})

Attestation = Literal["written", "kept", "removed", "refused"]
WRITTEN: Final = "written"
KEPT: Final = "kept"
REMOVED: Final = "removed"
REFUSED: Final = "refused"
ATTESTATIONS: tuple[Attestation, ...] = (WRITTEN, KEPT, REMOVED, REFUSED)

STEP_FIELDS = (
    "type",
    "status",
    "metadata.createdAt",
    "metadata.startedAt",
    "metadata.toolSummary",
    "metadata.toolAction",
    "userInput.userResponse",
    "userInput.query",
    "userInput.items[].text",
    "plannerResponse.response",
    "plannerResponse.modifiedResponse",
    "plannerResponse.thinking",
    "plannerResponse.toolCalls[]",
    "metadata.toolCall",
    "mcpTool.toolCall",
    "runCommand.commandLine",
    "runCommand.proposedCommandLine",
    "runCommand.exitCode",
    "askQuestion.questions[]",
)
"""Names of the values of one projected step, in order."""

READS = (
    # (STEP_FIELDS name, the Step field-number paths of the scalars it is made of)
    ("type", ("1",)),
    ("status", ("4",)),
    ("metadata.createdAt", ("5.1.1", "5.1.2")),
    ("metadata.startedAt", ("5.32.1", "5.32.2")),
    ("metadata.toolSummary", ("5.30",)),
    ("metadata.toolAction", ("5.31",)),
    ("userInput.userResponse", ("19.2",)),
    ("userInput.query", ("19.1",)),
    ("userInput.items[].text", ("19.3.1",)),
    ("plannerResponse.response", ("20.1",)),
    ("plannerResponse.modifiedResponse", ("20.8",)),
    ("plannerResponse.thinking", ("20.3",)),
    ("plannerResponse.toolCalls[]", ("20.7.1", "20.7.2", "20.7.3")),
    ("metadata.toolCall", ("5.4.1", "5.4.2", "5.4.3")),
    ("mcpTool.toolCall", ("47.2.1", "47.2.2", "47.2.3")),
    ("runCommand.commandLine", ("28.23",)),
    ("runCommand.proposedCommandLine", ("28.25",)),
    ("runCommand.exitCode", ("28.6",)),
    ("askQuestion.questions[]", ("154.1.1", "154.1.4", "154.1.5", "154.1.6")),
)
"""Where in a stored ``Step`` each projected value is read (cortex.proto field numbers)."""

_READ_MESSAGES = frozenset(
    ".".join(path.split(".")[:depth]) for _, paths in READS for path in paths for depth in range(len(path.split(".")))
)
"""Messages the projection reads from ("" = the Step): an unknown field directly in one of them
could hold a projected value."""
_PROJECTED_ENUMS = frozenset(path for name, paths in READS if name in ("type", "status") for path in paths)
_COLUMN_BASE = {
    "step_payload": "",
    "metadata": "5",
    "error_details": "31",
    "permissions": "133",
    "task_details": "148",
    "render_info": "140.2.3",
}
"""``steps`` column -> the Step field its blob is (``trajectory`` counts unknowns per column)."""


def in_projection(unknown: str) -> bool:
    """Whether an unknown-field key of ``NativeTrajectory.unknown_fields``
    (``steps.step_payload/<type>: 20.7.50:len``, ``steps.metadata/<type>: 34:varint``,
    ``gen_metadata.data: 1.99:len``) sits where the projection reads: an unknown field that holds
    bytes directly in a message a projected value is read from (an ``empty`` one holds none), or
    an enum number the projection keeps as a number."""
    table, _, rest = unknown.partition("/")
    if not table.startswith("steps."):
        return False
    base = _COLUMN_BASE.get(table.removeprefix("steps."))
    if base is None or ": " not in rest:
        return False
    numbers, _, kind = rest.split(": ", 1)[1].partition(":")
    if kind == EMPTY:
        return False
    path = f"{base}.{numbers}" if base else numbers
    if kind.startswith("enum="):
        return path in _PROJECTED_ENUMS
    return path.rpartition(".")[0] in _READ_MESSAGES


_READ_PAUSES = (0.0, 0.02, 0.05, 0.1, 0.25)
"""Seconds to wait before each attempt at one consistent read of a source that keeps changing."""
_SHOWN = 3  # unknown fields / findings named in a detail
_UUID = UUID_PATTERN
_SIDECAR_NAME = re.compile(rf"({_UUID})\.trajectory\.json")
_SOURCE_NAME = re.compile(rf"({_UUID})\.(db|pb)")
_TIMESTAMP = re.compile(r"(.+T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z")
ABSENT = object()
"""``Result._recorded`` when the sidecar holds no attestation."""


@dataclass(frozen=True)
class Evidence:
    """What a ``complete`` verdict rests on (``agyReader.completeness`` without ``checkedAt``)."""

    profile: str
    content_sha256: str
    projection_sha256: str
    steps: int


@dataclass
class Result:
    """The verdict on one sidecar; ``attestation`` / ``attestation_error`` are set by ``attest``."""

    sidecar: Path
    id: str | None  # lower-case id from the file name; None when the name is not <uuid>.trajectory.json
    source: Path | None
    verdict: SidecarVerdict
    detail: str = ""
    sidecar_steps: int | None = None
    source_steps: int | None = None
    evidence: Evidence | None = None  # complete only
    differences: str | None = None  # incomplete only: every projected difference, by path (audit.checks.diff)
    outside: list[str] = field(default_factory=list)
    """Unknown fields (``key xN``) and findings of the source outside the projection: listed, never
    deciding the verdict."""
    attestation: Attestation | None = None  # one of ATTESTATIONS, None when attest left the file alone
    attestation_error: str | None = None
    _state: FileState | None = field(default=None, repr=False)
    stable: bool = True  # the source's WAL index did not move during the read (else: not attested)
    _recorded: object = field(default=ABSENT, repr=False)  # agyReader.agyAudit.completeness as read
    _namespace: dict[str, Any] = field(default_factory=dict, repr=False)  # agyReader.agyAudit as read (an object)
    _legacy: bool = field(default=False, repr=False)  # an agy-audit 0.1 attestation at agyReader.completeness
    _corpus: bool = field(default=False, repr=False)  # in a sweep corpus (manifest.json hashes it)

    @property
    def recorded_in(self) -> str | None:
        """Where the sidecar holds an attestation of ours, if anywhere."""
        if self._recorded is not ABSENT:
            return f"{READER_BLOCK}.{READER_KEY}.{ATTESTATION_KEY}"
        if self._legacy:
            return f"{READER_BLOCK}.{LEGACY_KEY} (an attestation of agy-audit 0.1, read for one release)"
        return None


@dataclass
class Report:
    results: list[Result]

    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.results) for v in VERDICTS}

    def attestation_counts(self) -> dict[str, int]:
        return {a: sum(r.attestation == a for r in self.results) for a in ATTESTATIONS}

    @property
    def exit_code(self) -> int:
        return exit_code({r.verdict for r in self.results}, any(r.attestation == REFUSED for r in self.results))


def exit_code(verdicts: set[str], refused: bool = False) -> int:
    """2 any unreadable; 1 any incomplete or unsupported, or a *refused* attestation; 3 nothing
    compared (every sidecar unknown); else 0 (unknown sidecars beside compared ones pass)."""
    if UNREADABLE in verdicts:
        return EXIT_USAGE
    if verdicts & FAILING or refused:
        return EXIT_FINDINGS
    return EXIT_OK if COMPLETE in verdicts else EXIT_NOTHING


# ----------------------------------------------------------------------------- the projection


def projection(trajectory: Mapping[str, Any]) -> list[Any]:
    """The projection of a sidecar-shaped trajectory dict (see the module docstring)."""
    return [PROFILE, _each(trajectory.get("steps"), _step)]


def canonical_json(value: object) -> bytes:
    """Compact JSON with sorted keys, UTF-8: the bytes ``projectionSha256`` is taken over."""
    return dumps(value, indent=None, sort_keys=True).encode()


def projection_sha256(trajectory: Mapping[str, Any]) -> str:
    return _projected_sha256(projection(trajectory)[1])


def _projected_sha256(steps: list[Any]) -> str:
    """``projectionSha256`` of a projection whose steps are *steps*."""
    return sha256_hex(canonical_json([PROFILE, steps]))


def _same_value(a: object, b: object) -> bool:
    """Equal canonical JSON (``canonical_json(a) == canonical_json(b)``), decided at C speed."""
    return a == b and json_key(a) == json_key(b)


def _or(value: object, default: object) -> object:
    return default if value is None else value


def _enum(value: object, names: Mapping[int, str]) -> object:
    """The name of an enum number in *names* (number -> name; None is 0), anything else as it is."""
    if value is None:
        return names[0]
    if type(value) is int:
        return names.get(value, value)
    return value


_STEP_STATUSES = {n: pb.CortexStepStatus.Name(n) for n in pb.CortexStepStatus.values()}


def _timestamp(value: object) -> object:
    if isinstance(value, str) and (match := _TIMESTAMP.fullmatch(value)):
        return f"{match[1]}.{(match[2] or '').ljust(9, '0')}Z"
    return _or(value, "")


def _call(value: object) -> object:
    if value is None:
        return ["", "", ""]
    if not isinstance(value, dict):
        return value
    return [_or(value.get("id"), ""), _or(value.get("name"), ""), _or(value.get("argumentsJson"), "")]


def _question(value: object) -> object:
    if not isinstance(value, dict):
        return value
    return [
        _or(value.get("question"), ""),
        _each(value.get("selectedOptionIds"), lambda item: item),
        _or(value.get("writeInResponse"), ""),
        _or(value.get("skipped"), False),
    ]


def _each(value: object, function: Callable[[object], object]) -> object:
    if value is None:
        return []
    return [function(item) for item in value] if isinstance(value, list) else value


def _item(item: object) -> object:
    return _or(item.get("text"), "") if isinstance(item, dict) else item


_NOTHING: Mapping[str, object] = MappingProxyType({})


def _step(step: object) -> object:
    if not isinstance(step, dict):
        return step
    # each object the projection reads into, or an empty one where it is absent or not an object
    meta, user, planner, command, mcp, ask = (
        value if isinstance(value, dict) else _NOTHING
        for value in map(step.get, ("metadata", "userInput", "plannerResponse", "runCommand", "mcpTool", "askQuestion"))
    )
    return [
        _enum(step.get("type"), STEP_TYPE_NAMES),
        _enum(step.get("status"), _STEP_STATUSES),
        _timestamp(meta.get("createdAt")),
        _timestamp(meta.get("startedAt")),
        _or(meta.get("toolSummary"), ""),
        _or(meta.get("toolAction"), ""),
        _or(user.get("userResponse"), ""),
        _or(user.get("query"), ""),
        _each(user.get("items"), _item),
        _or(planner.get("response"), ""),
        _or(planner.get("modifiedResponse"), ""),
        _or(planner.get("thinking"), ""),
        _each(planner.get("toolCalls"), _call),
        _call(meta.get("toolCall")),
        _call(mcp.get("toolCall")),
        _or(command.get("commandLine"), ""),
        _or(command.get("proposedCommandLine"), ""),
        _or(command.get("exitCode"), 0),
        _each(ask.get("questions"), _question),
    ]


def explain_projection(sidecar: list[Any], native: list[Any]) -> str:
    """Every difference between two projected step lists, as paths (``steps.[3].plannerResponse.response``)."""

    def named(steps: list[Any], other: list[Any]) -> dict[str, Any]:
        return {"steps": [_named(s, other[i] if i < len(other) else None) for i, s in enumerate(steps)]}

    return diff.explain(named(sidecar, native), named(native, sidecar), shown=5, ignore=())


_SAME_STEP: dict[str, Any] = {}
"""What a step that is the same on both sides is diffed as: deepdiff pairs list items by index,
and an equal pair yields nothing, so an equal pair of objects may as well be two empty ones (the
list still holds objects, so deepdiff takes the same path through it) -- a diff of every step's
fields costs seconds per long session."""


def _named(step: object, other: object) -> object:
    if not isinstance(step, list):
        return step
    if isinstance(other, list) and _same_value(step, other):
        return _SAME_STEP
    return dict(zip(STEP_FIELDS, step, strict=False))


def _difference(sidecar: list[Any], native: list[Any]) -> str | None:
    """The first difference between two projected step lists, or None."""
    if sidecar is native:
        return None
    if len(sidecar) == len(native) and _same_value(sidecar, native):  # the common case, in one comparison
        return None
    for i, (a, b) in enumerate(zip(sidecar, native)):
        if _same_value(a, b):
            continue
        name = "the step"
        if isinstance(a, list) and isinstance(b, list):
            name = next(STEP_FIELDS[k] for k, (x, y) in enumerate(zip(a, b)) if not _same_value(x, y))
        kind = b[0] if isinstance(b, list) else "?"
        return f"step {i} ({kind}) differs in {name}"
    if len(native) > len(sidecar):
        missing = len(native) - len(sidecar)
        return f"sidecar lacks {missing} step(s) from step {len(sidecar)} ({native[len(sidecar)][0]}); source has {len(native)}"
    if len(sidecar) > len(native):
        return f"sidecar has {len(sidecar) - len(native)} step(s) the source lacks, from step {len(native)}"
    return None


# ----------------------------------------------------------------------------- the source


def content_sha256(db: str | os.PathLike[str]) -> str:
    """``contentSha256`` of the database at *db*: the digest of one read-only snapshot's rows."""
    conv = read_database(db)
    if not conv.access:
        raise InputError("; ".join(f.message for f in conv.findings) or f"{db}: cannot read")
    return conv.content_sha256()


def _wal(db: Path) -> Path:
    return db.with_name(db.name + "-wal")


def _stats(db: Path) -> tuple[tuple[int, int, int] | None, ...]:
    out: list[tuple[int, int, int] | None] = []
    for path in (db, _wal(db)):
        try:
            st = os.stat(path)
        except FileNotFoundError:
            out.append(None)
        except OSError as exc:
            raise InputError(f"{path}: cannot stat ({exc.strerror or exc})") from None
        else:
            out.append((st.st_size, st.st_mtime_ns, st.st_ino))
    return tuple(out)


@dataclass(frozen=True)
class Source:
    """One decoded snapshot of a sidecar's ``.db``: the reconstruction, whether the WAL index
    stood still while it was read (``stable``), the projection of its steps, and its
    ``contentSha256`` (``digest()``: computed when an evidence needs it, i.e. a complete verdict
    with details)."""

    native: NativeTrajectory
    stable: bool
    steps: list[Any]  # ``projection(native.trajectory)[1]``
    digest: Callable[[], str]


def source_of(conv: NativeConversation, native: NativeTrajectory) -> Source:
    """The ``Source`` of a snapshot already read (``native = reconstruct(conv)``), e.g. a sweep's
    backup copy of the ``.db``: one read transaction, so as consistent as ``_read_source``'s."""
    return Source(native, not conv.wal_index_changed, projection(native.trajectory)[1], conv.content_sha256)


def _read_legacy(pb: Path, key: Key) -> Source:
    """The ``Source`` of a legacy ``.pb`` decrypted with the user's *key* (one authenticated read)."""
    conv = read_legacy(pb, key)
    return source_of(conv, reconstruct(conv))


def _read_source(db: Path) -> Source:
    """The ``Source`` of one snapshot read between identical stats; ``stable`` is False when the
    WAL index moved during every such read."""
    moving = None
    for pause in _READ_PAUSES:
        time.sleep(pause)
        before = _stats(db)
        conv = read_database(db)
        if _stats(db) != before:
            continue
        found = source_of(conv, reconstruct(conv))
        if found.stable:
            return found
        moving = found
    if moving is not None:
        return moving
    raise InputError(
        f"{db}: kept changing while being read ({len(_READ_PAUSES)} attempts); "
        "a conversation in progress? check again when it is idle"
    )


def _listed(items: Iterable[str], more: int) -> str:
    return "; ".join(items) + (f" (+{more} more)" if more > 0 else "")


# ----------------------------------------------------------------------------- one sidecar


@dataclass(frozen=True)
class SidecarTarget:
    """One sidecar and its source (``db`` or legacy ``pb``); ``corpus``: in a sweep corpus."""

    sidecar: Path
    id: str | None
    db: Path | None = None
    pb: Path | None = None
    corpus: bool = False


def check_target(
    target: SidecarTarget,
    decoded: Source | None = None,
    *,
    details: bool = True,
    parsed: Sidecar | None = None,
    key: Key | None = None,
) -> Result:
    """The verdict on one sidecar; its ``.db`` (without one, its legacy ``.pb`` when given the
    user's *key*) is read here unless given *decoded*, the sidecar unless given *parsed*
    (``sidecar.read`` of it). Without *details*, an incomplete result's ``differences`` (every
    difference, by path) and a complete one's ``evidence`` are left unset (what ``ci`` never
    shows; verdicts and ``detail`` are the same)."""
    result = Result(target.sidecar, target.id, target.db or target.pb, UNREADABLE, _corpus=target.corpus)
    if parsed is not None:
        doc, result._state = parsed.document, parsed.state
    else:
        try:
            st = os.lstat(target.sidecar)
            if stat.S_ISLNK(st.st_mode) or not stat.S_ISREG(st.st_mode):
                result.detail = f"{target.sidecar}: not a regular file (symbolic link or special file); not read"
                return result
            data = read_bytes(target.sidecar, limit=MAX_SIDECAR_BYTES)
            doc = loads(data, source=str(target.sidecar))
        except InputError as exc:
            result.detail = exc.message
            return result
        except OSError as exc:
            result.detail = f"{target.sidecar}: {exc.strerror or exc}"
            return result
        result._state = FileState(len(data), st.st_mtime_ns, sha256_hex(data))
    reader = doc.get(READER_BLOCK)
    if isinstance(reader, dict):
        namespace = reader.get(READER_KEY)
        if isinstance(namespace, dict):
            result._namespace = namespace
            result._recorded = namespace.get(ATTESTATION_KEY, ABSENT)
        elif namespace is not None:
            result._recorded = namespace  # not an object: ours, and replaced by attest
        legacy = reader.get(LEGACY_KEY)
        result._legacy = (
            isinstance(legacy, dict)
            and legacy.keys() == _LEGACY_FIELDS
            and isinstance(legacy.get("profile"), str)
            and legacy["profile"].startswith("agy-audit-projection/")
        )
    # a native sweep's sidecar (sidecar.written) is the reconstruction itself: its projection is the source's
    side = decoded.steps if decoded is not None and doc is decoded.native.trajectory else projection(doc)[1]
    if not isinstance(side, list):
        result.detail = f"{target.sidecar}: steps is not an array"
        return result
    result.sidecar_steps = len(side)
    if target.db is None and (target.pb is None or key is None) and decoded is None:
        result.verdict = UNKNOWN
        if target.pb is not None:
            result.detail = f"the source is a legacy encrypted .pb; only the user's own key reads it offline ({KEY_HINT})"
        elif target.id is None:
            result.detail = "the file name is not <uuid>.trajectory.json; no source looked up"
        else:
            result.detail = "no native source (.db) for this sidecar"
        return result
    try:
        if decoded is not None:
            read = decoded
        elif target.db is not None:
            read = _read_source(target.db)
        else:
            assert target.pb is not None and key is not None  # else unknown above
            read = _read_legacy(target.pb, key)
    except InputError as exc:
        result.detail = exc.message
        return result
    native, result.stable = read.native, read.stable
    fatal = [f.message for f in native.findings if f.code in READ_FAILURES]
    if fatal:
        result.detail = _listed(fatal[:_SHOWN], len(fatal) - _SHOWN)
        return result
    source = read.steps
    result.source_steps = len(source)
    difference = _identity(doc, target, native) or _difference(side, source)
    problems = [f"{key} x{n}" for key, n in sorted(native.unknown_fields.items()) if in_projection(key)]
    problems += [f.message for f in native.projection_findings]
    result.outside = [f"{key} x{n}" for key, n in sorted(native.unknown_fields.items()) if not in_projection(key)]
    result.outside += [f.message for f in native.findings if not affects_projection(f)]
    if problems:
        result.verdict = UNSUPPORTED
        result.detail = "the source holds content cortex.proto does not decode: " + _listed(
            problems[:_SHOWN], len(problems) - _SHOWN
        )
        if difference:
            result.detail += f"; also incomplete: {difference}"
    elif difference:
        result.verdict, result.detail = INCOMPLETE, difference
        result.differences = explain_projection(side, source) if details else None
    else:
        result.verdict = COMPLETE
        if details:
            result.evidence = Evidence(PROFILE, read.digest(), _projected_sha256(source), len(source))
    if not result.stable:
        result.detail = f"{target.db}: the WAL index (-shm header) changed during each read: a commit in progress"
    return result


def _identity(doc: dict[str, Any], target: SidecarTarget, native: NativeTrajectory) -> str | None:
    """A sidecar must name its source's conversation: the file id or the internal cascade id."""
    cid = canonical_id(doc.get("cascadeId"))
    if cid is not None and cid in {target.id, canonical_id(native.internal_cascade_id)}:
        return None
    shown = repr(doc.get("cascadeId"))[:60]
    return f"cascadeId {shown} is neither the source's file id nor its internal cascade id"


# ----------------------------------------------------------------------------- finding sidecars


def _source_dir(directory: Path) -> Path:
    """Where the sources of the sidecars in *directory* are: ``native/<product>`` for a sweep
    corpus's ``corpus/<product>``, else *directory* itself."""
    if directory.parent.name == "corpus" and is_corpus(directory.parent.parent):
        return directory.parent.parent / "native" / directory.name
    return directory


def _sources(directory: Path) -> dict[tuple[str, str], Path]:
    """(lower-case id, ``db``|``pb``) -> path of every regular ``<uuid>.db`` / ``.pb`` file."""
    found: dict[tuple[str, str], Path] = {}
    for entry in list_dir(directory):
        match = _SOURCE_NAME.fullmatch(entry.name)
        if match and entry.is_file(follow_symlinks=False):
            found.setdefault((match[1].lower(), match[2]), Path(entry.path))
    return found


def target_of(sidecar: Path, db: Path | None, *, corpus: bool = False) -> SidecarTarget:
    """The target of *sidecar* whose source is *db* (as ``targets`` would list it)."""
    match = _SIDECAR_NAME.fullmatch(sidecar.name)
    return SidecarTarget(sidecar, match[1].lower() if match else None, db, None, corpus)


def _targets(directory: Path, only: str | None = None) -> list[SidecarTarget]:
    """The sidecars in *directory* (just *only* when given) with their sources."""
    if only is not None:
        names = [only]
    else:
        names = [e.name for e in list_dir(directory) if _SIDECAR_NAME.fullmatch(e.name) and not e.is_dir(follow_symlinks=False)]
    source_dir = _source_dir(directory)
    sources = _sources(source_dir) if names else {}
    targets = []
    for name in names:
        match = _SIDECAR_NAME.fullmatch(name)
        cid = match[1].lower() if match else None
        db, pb = (sources.get((cid, "db")), sources.get((cid, "pb"))) if cid is not None else (None, None)
        targets.append(SidecarTarget(directory / name, cid, db, pb, source_dir != directory))
    return targets


def _targets_of(path: Path) -> list[SidecarTarget]:
    if not is_dir(path):
        if not os.path.lexists(path):
            raise InputError(f"{path}: no such file or directory")
        return _targets(path.parent, path.name)
    if is_corpus(path):
        corpus = path / "corpus"
        return [t for e in list_dir(corpus) if e.is_dir(follow_symlinks=False) for t in _targets(corpus / e.name)]
    if is_store(path):
        return _targets(path / "conversations")
    return _targets(path)


def _unique(found: Iterable[SidecarTarget], looked_in: str) -> list[SidecarTarget]:
    unique = {t.sidecar.absolute(): t for t in found}
    if not unique:
        raise NothingToCheck(f"no sidecars (<uuid>.trajectory.json) in {looked_in}")
    return list(unique.values())


def targets(paths: Iterable[str | os.PathLike[str]]) -> list[SidecarTarget]:
    """Every sidecar in *paths* (store roots, ``conversations`` directories, sweep corpora or their
    ``corpus/<product>``, sidecar files) with its source, once each. Raises ``InputError`` for a
    path that does not exist, ``NothingToCheck`` when no sidecar is found."""
    given = [Path(p) for p in paths]
    return _unique([t for p in given for t in _targets_of(p)], ", ".join(map(str, given)))


def targets_in_roots(roots: Iterable[Root], ids: Iterable[str] = ()) -> list[SidecarTarget]:
    """The sidecars in each root's ``conversations/`` (``stores.resolve_roots`` roots), as
    ``targets``; with *ids*, only those sessions' (an id with no sidecar in any root is an
    ``InputError``)."""
    directories = [root.path / "conversations" for root in roots]
    found = _unique([t for d in directories for t in _targets(d)], ", ".join(map(str, directories)))
    wanted = [(text, canonical_id(text)) for text in ids]
    if not wanted:
        return found
    if bad := [text for text, cid in wanted if cid is None]:
        raise UsageError(f"completeness: with --home/--root, give session ids (UUIDs), not {bad[0]!r}")
    chosen = [t for t in found if t.id in {cid for _, cid in wanted}]
    if absent := [text for text, cid in wanted if cid not in {t.id for t in chosen}]:
        raise InputError(f"session {absent[0]}: no sidecar in {', '.join(map(str, directories))}")
    return chosen


def check_all(
    found: Sequence[SidecarTarget], key: Key | None = None, *, details: bool = True, progress: Callback | None = None
) -> Report:
    """Check every one of *found* (``check_target``); *progress* is told before each sidecar."""
    return Report([check_target(t, details=details, key=key) for t in tracked(found, progress, _name)])


def _name(target: SidecarTarget) -> str:
    return target.id or target.sidecar.name


def check_root(root: Root, key: Key | None = None, *, progress: Callback | None = None) -> Report:
    """Every sidecar in *root*'s ``conversations/`` (none: an empty report), checked without
    details (``doctor``: verdicts and details only)."""
    return check_all(_targets(root.path / "conversations"), key, details=False, progress=progress)


def check(paths: Iterable[str | os.PathLike[str]], key: Key | None = None) -> Report:
    """Check every sidecar of ``targets(paths)``; a legacy ``.pb`` source is read with *key*."""
    return check_all(targets(paths), key)


def check_roots(roots: Iterable[Root], ids: Iterable[str] = (), key: Key | None = None) -> Report:
    """Check every sidecar of ``targets_in_roots(roots, ids)``; a legacy ``.pb`` source is read with *key*."""
    return check_all(targets_in_roots(roots, ids), key)
