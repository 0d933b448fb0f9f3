"""JSON shape fingerprints: canonical ``path<TAB>types`` lines and their ``sha256:`` digest.

``SidecarShape`` is byte-compatible with agy-reader's shape fingerprint (its ``internal/shapefp``):

* a root object whose only key is ``trajectory`` is replaced by that key's value (the envelope);
* the root object's ``agyReader`` member is skipped entirely (reader-owned metadata);
* a path is the dot-joined keys from the root (the root is ``""``); array elements share the
  segment ``[]``; a *volatile* key (see ``is_volatile``) becomes ``*``; keys are not escaped;
* every node adds its JSON type to its path's set; nodes at an ``OPAQUE_PATHS`` path are
  recorded but their children are not walked;
* line = path, TAB, the sorted types joined by ``|``; lines sorted bytewise, joined by ``\\n``
  without a trailing newline, hashed as UTF-8: ``sha256:<hex>``.

``TranscriptShape`` applies the same walk to brain transcript records, rooted at each record's
tier and ``type`` (``compact.PLANNER_RESPONSE``, ``full.…``, ``overview.…``; ``other.…`` for a
file of no known tier), and adds one line per tool and tool argument
(``tool_calls.[<tool>].args.<Name>``) whose types are those of the argument's value as its tier
encodes it: the decoded JSON text in the compact tier and overview (a value cut by a truncation
marker typed by its first character, ``text`` for a string that is not JSON text, ``raw-<type>``
for a native value), the native value in the full tier. A change of encoding in one tier is
drift in that tier only. Only keys, names and JSON types are kept, never content.

Documents are folded in one at a time; memory grows with the number of distinct paths (plus, per
path, the last lone object walked there), never with the number of documents. The walk is
iterative (no recursion limit) and batched per path (see ``_Walker.walk``). ``add_json`` parses
with orjson (about twice as fast as ``json.loads``) and falls back to ``parse_document`` for
every text orjson refuses, so errors, big numbers and lone surrogates are handled as Go does.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from itertools import chain, repeat
from typing import Any

import orjson

from audit.errors import InputError
from audit.store.ids import UUID_PATTERN
from audit.strictjson import RawFloat, gc_paused, json_key

OPAQUE_PATHS = frozenset(
    {
        "executorMetadatas",
        "generatorMetadata",
        "metadata.mendelExperimentIds",
        "steps.[].generic",
        "steps.[].metadata.internalMetadata",
        "steps.[].metadata.sourceTrajectoryStepInfo",
        "steps.[].userInput.activeUserState",
        "steps.[].userInput.userConfig",
    }
)
"""Sidecar paths whose own type is recorded but whose children are not walked."""

READER_KEY = "agyReader"
ENVELOPE_KEY = "trajectory"

# Go's regexp `$` anchors at the end of text only; fullmatch gives the same semantics.
_VOLATILE = re.compile(UUID_PATTERN + r"|[0-9]+|[0-9a-f]{16,}")
_TAGS = {
    dict: "object",
    list: "array",
    str: "string",
    bytes: "number",
    int: "number",
    float: "number",
    RawFloat: "number",  # strictjson.loads(exact=True)
    bool: "boolean",
    type(None): "null",
}
_NUMBER = str.encode  # parse_int / parse_float: keep the number's text
_CONTAINERS = (dict, list)


def is_volatile(key: str) -> bool:
    """True for keys that are data, not schema: ``file:`` URIs, keys containing ``/``, UUIDs,
    decimal digits and 16+ lower-case hex characters (all anchored at both ends)."""
    return key.startswith("file:") or "/" in key or _VOLATILE.fullmatch(key) is not None


def digest_lines(lines: Iterable[str]) -> str:
    """``sha256:`` + hex of the lines joined by ``\\n`` (no trailing newline), UTF-8."""
    return "sha256:" + hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def snapshot_text(lines: Iterable[str]) -> str:
    """The ``--paths`` / TSV form: every line followed by ``\\n`` (empty for no lines)."""
    return "".join(line + "\n" for line in lines)


def _go_text(text: str) -> str:
    """Lone surrogates (possible after ``\\ud800`` escapes) become U+FFFD, as Go decodes them."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _same_value(value: object, node: _Node) -> bool:
    """*value* equals the last lone object walked at *node* (for values whose numbers are
    ``bytes``, which never equal a boolean)."""
    return value == node.last


def _same_json(value: object, node: _Node) -> bool:
    """*value* has the same JSON text as the last lone object walked at *node* (for orjson's
    values, where ``1 == True``): one C-level comparison, then the texts, the last one's kept."""
    if value != node.last:
        return False
    if node.last_json is None:
        node.last_json = json_key(node.last)
    return node.last_json is not None and json_key(value) == node.last_json


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def parse_document(data: bytes | str, source: str) -> object:
    """Parse one JSON document for shape walking, with Go ``encoding/json`` semantics: any
    top-level value, duplicate keys allowed (the last wins); NaN/Infinity, a BOM, invalid UTF-8
    and non-JSON are ``InputError`` naming *source*.

    Numbers are kept as their source text in ``bytes`` (a ``number`` to the walker): no size
    limit, and no number compares equal to ``true``/``false``, which the walker relies on.
    """
    if data[:3] == b"\xef\xbb\xbf" or data[:1] == "\ufeff":  # json.loads would skip a UTF-8 BOM in bytes
        raise InputError(f"{source}: starts with a byte-order mark")
    try:
        return json.loads(data, parse_int=_NUMBER, parse_float=_NUMBER, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: invalid UTF-8 at byte {exc.start}") from None
    except RecursionError:
        raise InputError(f"{source}: JSON nested too deeply") from None
    except ValueError as exc:
        raise InputError(f"{source}: invalid JSON: {exc}") from None


class _Node:
    """One canonical path: its types so far and memoised children."""

    __slots__ = ("path", "rel", "types", "keys", "star", "elem", "opaque", "last", "last_json")

    def __init__(self, path: str, rel: str, opaque: bool) -> None:
        self.path = path
        self.rel = rel  # path relative to the walk root, matched against the opaque set
        self.types: set[type | str] = set()  # Python types of JSON values, or tag strings
        self.keys: dict[str, _Node] = {}  # non-volatile raw key -> child
        self.star: _Node | None = None
        self.elem: _Node | None = None
        self.opaque = opaque
        self.last: object = None  # the last lone object walked here: one per path, not per document
        self.last_json: bytes | None = None  # its JSON text, once _same_json needed it


class _Walker:
    """Union of (path, type) over documents, folded in one at a time."""

    def __init__(self, opaque: frozenset[str] = frozenset(), volatile: Callable[[str], bool] = is_volatile) -> None:
        self._opaque = opaque
        self._volatile = volatile  # keys that are data, not schema: they share the segment ``*``
        self._roots: dict[str, _Node] = {}

    def root(self, path: str) -> _Node:
        node = self._roots.get(path)
        if node is None:
            node = self._roots[path] = _Node(path, "", "" in self._opaque)
        return node

    def _new(self, parent: _Node, segment: str) -> _Node:
        path = f"{parent.path}.{segment}" if parent.path else segment
        rel = f"{parent.rel}.{segment}" if parent.rel else segment
        return _Node(path, rel, rel in self._opaque)

    def child(self, parent: _Node, key: str) -> _Node:
        """The node of member *key* of an object at *parent* (volatile keys share ``*``)."""
        node = parent.keys.get(key)
        if node is not None:
            return node
        if self._volatile(key):
            if parent.star is None:
                parent.star = self._new(parent, "*")
            return parent.star
        node = parent.keys[key] = self._new(parent, key if key.isascii() else _go_text(key))
        return node

    def element(self, parent: _Node) -> _Node:
        if parent.elem is None:
            parent.elem = self._new(parent, "[]")
        return parent.elem

    def segment(self, parent: _Node, segment: str) -> _Node:
        """A child named by the caller (never volatile-mapped), e.g. ``[run_command]``."""
        node = parent.keys.get(segment)
        if node is None:
            node = parent.keys[segment] = self._new(parent, segment)
        return node

    def walk(
        self,
        value: object,
        node: _Node,
        skip_key: str | None = None,
        *,
        same: Callable[[object, _Node], bool] | None = None,
    ) -> None:
        """Add *value* at *node* and everything below it; *skip_key* is left out of a root object.

        Iterative and level-batched: the work list holds (node, containers of one kind found at
        that path). The distinct (key, type) pairs of a batch of objects, and the element types
        of a batch of arrays, are collected with C-level ``chain``/``zip``/``map``, so Python work
        is per distinct (path, type) rather than per JSON node.

        With *same* (``_same_value`` where numbers are ``bytes`` and so never equal a boolean,
        ``_same_json`` otherwise), a lone object the same as the last one walked at its path is
        skipped after one C-level comparison: config trees repeat from document to document. The
        value itself is not kept for that (a whole document rarely repeats, and keeping it would
        keep it alive until the next one is walked).
        """
        node.types.add(type(value))
        if node.opaque or type(value) not in _CONTAINERS:
            return
        if skip_key is not None and type(value) is dict and skip_key in value:
            value = {k: v for k, v in value.items() if k != skip_key}
        self._walk([(node, [value], type(value) is dict)], same)
        node.last = node.last_json = None

    def walk_all(self, values: list[Any], node: _Node) -> None:
        """``walk`` of each of *values* at *node*, the objects (and the arrays) among them walked
        as one batch: the same lines, with Python work per distinct (path, type) of the batch."""
        node.types.update(map(type, values))
        if node.opaque:
            return
        work: list[tuple[_Node, list[Any], bool]] = []
        for kind, objects in ((list, False), (dict, True)):
            found = [v for v in values if type(v) is kind]
            if found:
                work.append((node, found, objects))
        self._walk(work, None)

    def _walk(self, work: list[tuple[_Node, list[Any], bool]], same: Callable[[object, _Node], bool] | None) -> None:
        child = self.child
        pop, push = work.pop, work.append
        while work:
            node, batch, objects = pop()
            if not objects:
                elem = node.elem or self.element(node)
                flat = batch[0] if len(batch) == 1 else list(chain.from_iterable(batch))
                kinds = set(map(type, flat))
                elem.types |= kinds
                if elem.opaque:
                    continue
                if dict in kinds:
                    push((elem, flat if len(kinds) == 1 else [v for v in flat if type(v) is dict], True))
                if list in kinds:
                    push((elem, flat if len(kinds) == 1 else [v for v in flat if type(v) is list], False))
                continue
            if len(batch) == 1:
                lone = batch[0]
                if same is not None:
                    if same(lone, node):
                        continue
                    node.last, node.last_json = lone, None
                pairs = set(zip(lone, map(type, lone.values())))
            else:
                lone = None
                pairs = set(zip(chain.from_iterable(batch), map(type, chain.from_iterable(map(dict.values, batch)))))
            keys = node.keys
            targets: dict[tuple[_Node, type], list[str]] = {}
            scalar: set[str] = set()
            for key, t in pairs:
                c = keys.get(key) or child(node, key)
                c.types.add(t)
                if t is not dict and t is not list:
                    scalar.add(key)
                elif not c.opaque:
                    targets.setdefault((c, t), []).append(key)
            for (c, t), names in targets.items():
                if lone is not None:
                    found = [lone[key] for key in names]
                else:
                    found = []
                    other = list if t is dict else dict
                    for key in names:
                        values = map(dict.get, batch, repeat(key))
                        if key in scalar or (key, other) in pairs:
                            found.extend(v for v in values if type(v) is t)
                        else:  # only t here, or None where the key is absent
                            found.extend(filter(None, values))
                push((c, found, t is dict))

    def lines(self) -> tuple[str, ...]:
        # Distinct nodes can share a path (a key containing "." or a literal "*"): merge by path.
        tags: dict[str, set[str]] = {}
        stack = list(self._roots.values())
        while stack:
            node = stack.pop()
            if node.types:
                tags.setdefault(node.path, set()).update(_TAGS[t] if isinstance(t, type) else t for t in node.types)
            stack.extend(node.keys.values())
            if node.star is not None:
                stack.append(node.star)
            if node.elem is not None:
                stack.append(node.elem)
        return tuple(sorted(f"{path}\t{'|'.join(sorted(t))}" for path, t in tags.items()))


class SidecarShape:
    """agy-reader's sidecar shape fingerprint, folded in one document at a time."""

    def __init__(self) -> None:
        self._walker = _Walker(OPAQUE_PATHS)
        self.documents = 0

    def add(self, document: object, *, _same: Callable[[object, _Node], bool] | None = None) -> object:
        """Fold in one JSON value (envelope unwrapped, root ``agyReader`` skipped); returns the
        unwrapped value."""
        if type(document) is dict and len(document) == 1 and ENVELOPE_KEY in document:
            document = document[ENVELOPE_KEY]
        self._walker.walk(document, self._walker.root(""), READER_KEY, same=_same)
        self.documents += 1
        return document

    def add_parsed(self, document: object) -> object:
        """Fold in one document parsed by ``strictjson.loads`` (which accepts only what orjson or
        ``parse_document`` parse to values of the same JSON types, and so the same lines);
        returns the unwrapped value."""
        return self.add(document, _same=_same_json)

    def add_json(self, data: bytes | str, source: str = "<input>") -> object:
        """Parse and fold in one document; returns the unwrapped value. orjson parses what it
        accepts; everything else goes to ``parse_document`` (Go semantics, errors naming
        *source*)."""
        with gc_paused():
            try:
                document = orjson.loads(data)
            except orjson.JSONDecodeError:  # syntax, BOM, NaN, 1e400, lone surrogates, depth > 1024
                return self.add(parse_document(data, source), _same=_same_value)
            return self.add(document, _same=_same_json)

    def lines(self) -> tuple[str, ...]:
        return self._walker.lines() if self.documents else ()

    def digest(self) -> str:
        return digest_lines(self.lines())


def sidecar_lines(documents: Iterable[object]) -> tuple[str, ...]:
    """Canonical shape lines of parsed sidecar documents."""
    shape = SidecarShape()
    for document in documents:
        shape.add(document)
    return shape.lines()


# ----------------------------------------------------------------------------- transcripts

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,79}")
TRANSCRIPT_OPAQUE = frozenset({"tool_calls.[].args"})
NO_TYPE = "(none)"


def _name(value: object) -> str:
    """A type, tool or argument name as a path segment; anything that is not a short
    identifier (or is volatile) is ``*`` so that content can never leak into a line."""
    if type(value) is str and _NAME.fullmatch(value) and not is_volatile(value):
        return value
    return "*"


TIER_NAMES = ("compact", "full", "overview")
OTHER_TIER = "other"
_FIRST_CHAR = {'"': "string", "{": "object", "[": "array", "t": "boolean", "f": "boolean", "n": "null"}
_CUT = re.compile(r"<truncated \d+ (?:bytes|lines)>")


def _arg_tag(value: object, tier: str) -> str:
    """Tag of a tool argument as *tier* encodes it (see the module docstring)."""
    if tier == "full":
        return _TAGS.get(type(value), "unknown")
    tag = _decoded_tag(value)
    if (
        tag == "text" and isinstance(value, str) and _CUT.search(value)
    ):  # "text" is only ever a string's tag  # cut JSON text: its first character tells its type
        first = value.lstrip()[:1]
        return _FIRST_CHAR.get(first, "number" if first in "-0123456789" and first else "text")
    return tag


def _decoded_tag(value: object) -> str:
    """Tag of a tool argument: the JSON type of the JSON text a string holds, ``text`` for a
    string that is not JSON text, ``raw-<type>`` for a value that is not a string at all."""
    if type(value) is not str:
        return "raw-" + _TAGS.get(type(value), "unknown")
    try:
        decoded = json.loads(value, parse_int=_NUMBER, parse_float=_NUMBER, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return "text"
    return _TAGS.get(type(decoded), "unknown")


class TranscriptShape:
    """Shape of brain transcript records per ``type`` (see the module docstring)."""

    def __init__(self) -> None:
        self._walker = _Walker(TRANSCRIPT_OPAQUE)
        self.records = 0

    def add(self, record: object, tier: str | None = None) -> None:
        """Fold in one parsed transcript record of *tier* (``TIER_NAMES``; None: ``other``)."""
        self.add_all([record], tier)

    def add_all(self, records: list[object], tier: str | None = None) -> None:
        """Fold in parsed transcript records of *tier*, those of one ``type`` walked as one batch."""
        tier = tier if tier in TIER_NAMES else OTHER_TIER
        by_root: dict[str, list[object]] = {}
        for record in records:
            kind = _name(record["type"]) if type(record) is dict and "type" in record else NO_TYPE
            by_root.setdefault(f"{tier}.{kind}", []).append(record)
        for path, batch in by_root.items():
            root = self._walker.root(path)
            self._walker.walk_all(batch, root)
            for record in batch:
                if type(record) is dict:
                    self._calls(record, root, tier)
        self.records += len(records)

    def _calls(self, record: dict[str, Any], root: _Node, tier: str) -> None:
        """The tool calls (by name, their arguments' tags) and truncated fields of one record."""
        walker = self._walker
        calls = record.get("tool_calls")
        if type(calls) is list:
            calls_node = walker.child(root, "tool_calls")
            for call in calls:
                if type(call) is not dict or "name" not in call:
                    continue
                tool = walker.segment(calls_node, f"[{_name(call['name'])}]")
                tool.types.add(dict)
                if "args" not in call:
                    continue
                args = call["args"]
                args_node = walker.segment(tool, "args")
                args_node.types.add(type(args))
                if type(args) is dict:
                    for key, value in args.items():
                        walker.segment(args_node, _name(key)).types.add(_arg_tag(value, tier))
        fields = record.get("truncated_fields")
        if type(fields) is list:
            fields_node = walker.child(root, "truncated_fields")
            for field in fields:
                if type(field) is str:
                    walker.segment(fields_node, f"[{_name(field)}]").types.add(str)

    def lines(self) -> tuple[str, ...]:
        return self._walker.lines()

    def digest(self) -> str:
        return digest_lines(self.lines())


# ----------------------------------------------------------------------------- per-install files

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,79}")


def is_data_key(key: str) -> bool:
    """A key that is data rather than schema, in the stricter sense of the per-install files: not
    a short identifier (letters, digits, ``_``, ``-``; a workspace path, a file URI, a title), or
    volatile (``is_volatile``: a UUID, a number, a hex digest). Such keys share the segment ``*``,
    so a path, id or text used as a key never reaches a line."""
    return _KEY.fullmatch(key) is None or is_volatile(key)


class KeyShape:
    """Keys and JSON types of JSON values folded in under named roots (``history.jsonl`` records
    under ``""``, a cache file under its name, a JSON-text column under ``table.column``): the
    sidecar walk (``[]`` for array elements, type unions joined with ``|``) with ``is_data_key``
    deciding which keys are ``*``. ``tag`` adds a type that is not a JSON type at a root (``text``
    for a file that is not JSON, ``invalid`` for a JSON-text value that does not parse). Never
    values."""

    def __init__(self) -> None:
        self._walker = _Walker(volatile=is_data_key)
        self.documents = 0

    def add(self, value: object, root: str = "") -> None:
        self._walker.walk(value, self._walker.root(root))
        self.documents += 1

    def tag(self, root: str, tag: str) -> None:
        self._walker.root(root).types.add(tag)
        self.documents += 1

    def lines(self) -> tuple[str, ...]:
        return self._walker.lines()
