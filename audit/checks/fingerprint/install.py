"""The surfaces of the per-install files consumers read (``audit.store.install``) and of the
stores' layout.

* ``summaries`` -- the schema, storage classes, JSON-text and blob shapes of
  ``conversation_summaries.db`` (``summaries_lines``);
* ``history``, ``cache``, ``artifacts`` -- the keys and JSON types of ``history.jsonl`` records, of
  each ``cache/`` file and of the brain ``<name>.md.metadata.json`` files (``shape.KeyShape``: keys
  that are data are ``*``);
* ``roots`` -- which roots exist and which of those files each holds;
* ``layout`` -- per root, which file families its sessions have (``layout.LAYOUT_FAMILIES``: the
  ``.db``, its ``-wal``, a legacy ``.pb``, a sidecar; each transcript tier flat and in chunks; the
  overview): ``file`` where every session of the family's group has it, ``file|none`` where only
  some do. A sweep records it per root in its manifest (the corpus copies neither ``-wal`` nor
  ``.pb`` files); no counts, no names.
"""

from __future__ import annotations

import re

from audit.checks.fingerprint.blobs import wire_fingerprint
from audit.checks.fingerprint.databases import schema_lines
from audit.checks.fingerprint.inputs import ARTIFACTS, CACHE, HISTORY, SUMMARIES
from audit.checks.fingerprint.model import INPUT_KINDS, KEPT, Fingerprint, Surface
from audit.checks.fingerprint.reading import Reading
from audit.checks.shape import KeyShape, is_data_key
from audit.errors import InputError
from audit.store import install
from audit.store.database import NativeConversation
from audit.store.wire import WIRE_NAMES, WireError, WireField
from audit.store.wire import parse as parse_wire
from audit.strictjson import loads_text

JSON_COLUMNS = frozenset({("conversation_summaries", "workspace_uris")})
"""Text columns of ``conversation_summaries.db`` that hold JSON text (a list of ``file://`` URIs):
their JSON shape is recorded. Other text columns (titles, previews) are never parsed: a text
that happens to be JSON would put its keys into a line."""
_STORAGE_CLASSES = {type(None): "null", int: "integer", float: "real", str: "text", bytes: "blob"}
_SCHEMA_KEY = re.compile(r"user_version|(?:table|index|view|trigger):.*", re.S)


def _name_segment(name: str) -> str:
    """A file or root name as a line segment: each ``.``-separated part that is data
    (``shape.is_data_key``: an id, a number, anything but a short identifier) becomes ``*``."""
    return ".".join("*" if is_data_key(part) else part for part in name.split("."))


def _summaries(reading: Reading) -> Fingerprint | None:
    """The ``summaries`` surface: the union of the lines of every readable database."""
    result = reading.result
    values: dict[str, set[str]] = {}
    read = False
    for path in reading.files(SUMMARIES):
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


def read_history(reading: Reading) -> Fingerprint | None:
    """The ``history`` surface: keys and JSON types of the records of every ``history.jsonl``
    (lines that hold no JSON value are skipped and listed); their ``HISTORY_VALUES`` into the
    reading's values."""
    result, values = reading.result, reading.values
    shape = KeyShape()
    for path in reading.files(HISTORY):
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


def _cache(reading: Reading) -> Fingerprint | None:
    """The ``cache`` surface: per cache file (by name, ``_name_segment``), the keys and JSON types
    of a ``*.json`` file, or one line with what another file holds (``text``, ``binary``, ``empty``)."""
    result = reading.result
    cached = reading.inputs.installed(CACHE)
    shape = KeyShape()
    for rel, path in zip([rel for _, rel, _ in cached], reading.each([p for _, _, p in cached])):
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


def read_artifacts(reading: Reading) -> Fingerprint | None:
    """The ``artifacts`` surface: keys and JSON types of brain artifact metadata files; their
    ``ARTIFACT_VALUES`` into the reading's values."""
    result, values = reading.result, reading.values
    shape = KeyShape()
    for path in reading.files(ARTIFACTS):
        try:
            document = install.read_artifact_metadata(path)
        except InputError as exc:
            result.problems.append(exc.message)
            continue
        shape.add(document)
        values.add_record("artifacts", document, ARTIFACT_VALUES)
    return Fingerprint.of("artifacts", shape.lines()) if shape.documents else None


def _roots(reading: Reading) -> Fingerprint | None:
    """The ``roots`` surface: ``<root><TAB>root`` per store root and ``<root>/<file><TAB>file`` per
    per-install file it holds (``history.jsonl``, ``conversation_summaries.db``, ``cache/<name>``)."""
    inputs = reading.inputs
    lines = {f"{_name_segment(name)}\troot" for name in inputs.roots}
    for root, rel, _ in inputs.installs:
        if root is not None:
            head, _, name = rel.rpartition("/")
            lines.add(f"{_name_segment(root)}/{head + '/' if head else ''}{_name_segment(name)}\tfile")
    return Fingerprint.of("roots", lines) if inputs.roots else None


def _layout(reading: Reading) -> Fingerprint | None:
    """The ``layout`` surface: ``<root>/<family><TAB>file`` per file family every session of its
    group has in that root, ``file|none`` per family only some have (``layout.LAYOUT_FAMILIES``)."""
    lines = {
        f"{_name_segment(root)}/{family}\t{'|'.join(sorted(forms))}"
        for root, held in reading.inputs.layouts.items()
        for family, forms in held.items()
    }
    return Fingerprint.of("layout", lines) if lines else None


STORES = ("corpus", "store", "home")
"""The inputs that name store roots (a sweep corpus by its manifest and copies)."""

SUMMARIES_SURFACE = Surface(
    "summaries",
    describes="the schema and column shapes of conversation_summaries.db",
    missing="no readable conversation_summaries.db",
    found_in=INPUT_KINDS,
    reads=frozenset({SUMMARIES}),
    fingerprint=_summaries,
    redact=KEPT,
    synthetic=True,
)
HISTORY_SURFACE = Surface(
    "history",
    describes="the keys of the history.jsonl records",
    missing="no history.jsonl record",
    found_in=INPUT_KINDS,
    reads=frozenset({HISTORY}),
    fingerprint=lambda reading: reading.shared(read_history),
    redact=KEPT,
    synthetic=True,
)
CACHE_SURFACE = Surface(
    "cache",
    describes="the keys of the cache/ files",
    missing="no readable cache/ file",
    found_in=STORES,
    reads=frozenset({CACHE}),
    fingerprint=_cache,
    redact=KEPT,
    synthetic=True,
)
ARTIFACTS_SURFACE = Surface(
    "artifacts",
    describes="the keys of the brain artifact metadata files",
    missing="no readable brain artifact *.md.metadata.json",
    found_in=INPUT_KINDS,
    reads=frozenset({ARTIFACTS}),
    fingerprint=lambda reading: reading.shared(read_artifacts),
    redact=KEPT,
    synthetic=True,
    sessions=True,
)
ROOTS_SURFACE = Surface(
    "roots",
    describes="the store roots and the per-install files each holds",
    missing="no store root (a home, a store root or a sweep corpus names them)",
    found_in=STORES,
    reads=frozenset(),
    fingerprint=_roots,
    redact=KEPT,
    synthetic=True,
)
LAYOUT_SURFACE = Surface(
    "layout",
    describes="which file families each root's sessions have "
    "(.db, -wal, legacy .pb, sidecar, flat and chunked transcript tiers, overview)",
    missing="no session in a store root (a sweep corpus records it per root since manifests name their roots' layout)",
    found_in=STORES,
    reads=frozenset(),
    fingerprint=_layout,
    redact=KEPT,
    synthetic=True,
)
