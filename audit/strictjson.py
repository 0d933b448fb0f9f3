"""Strict JSON: reading user JSON that refuses what JSON readers disagree on, and an exact
writer.

Reading (``loads``; ``audit.safeio.read_json`` reads a file with it):
  * duplicate object keys, ``NaN``/``Infinity``, invalid UTF-8, a byte-order mark and (unless
    asked otherwise) a non-object top level are errors that name the file and the JSON pointer;
  * with ``exact=True`` every number keeps its exact text (``RawFloat`` for non-integers, ``-0``
    and integers too long for ``int()``), so ``dumps(loads(b, exact=True))`` writes the same
    number tokens;
  * nesting deeper than ``MAX_DEPTH`` (with ``exact=True``; otherwise deeper than the
    interpreter's parser allows) is a clear error, never a ``RecursionError``.

Without ``exact``, bytes are first given to jiter (a Rust parser that rejects duplicate keys,
NaN and Infinity itself, at about 0.8x the cost of ``json.loads`` alone). What it accepts it
returns exactly as ``json.loads`` would; whatever it refuses (every error, lone surrogates,
nesting beyond 200, integers beyond 4300 digits) takes the ``json`` path, which decides and
names the problem.

Writing (``dumps``, ``dumps_bytes``, ``json_key``): the numbers a strict read kept exact are
written as they were read; what is not JSON is refused, never coerced.
"""

from __future__ import annotations

import contextlib
import decimal
import gc
import json
import re
from collections.abc import Callable, Iterator
from itertools import compress
from typing import Any

import jiter
import orjson

from audit.errors import InputError

MAX_DEPTH = 400
"""Deepest nesting of arrays/objects accepted by the strict reader."""

_INT_TEXT_LIMIT = 4000  # below CPython's default int/str conversion limit (4300 digits)


class JSONError(InputError):
    """A JSON document that is not strict JSON. ``pointer`` is an RFC 6901 pointer or None."""

    def __init__(self, source: str, reason: str, pointer: str | None = None) -> None:
        where = f" at {pointer or '/'}" if pointer is not None else ""
        super().__init__(f"{source}: {reason}{where}")
        self.source = source
        self.reason = reason
        self.pointer = pointer


class RawFloat(float):
    """A JSON number that is not a plain integer, keeping its exact source text."""

    text: str

    def __new__(cls, text: str) -> RawFloat:
        try:
            value = float(text)
        except OverflowError:  # pragma: no cover - float() returns inf instead
            value = float("inf")
        self = super().__new__(cls, value)
        self.text = text
        return self

    def __repr__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        if isinstance(other, RawFloat):
            return self.text == other.text
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.text)


class _DupDict(dict[str, Any]):
    """An object in which a key occurred twice; ``dup`` is that key."""

    dup: str


def pointer_escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _parse_int(text: str) -> int | RawFloat:
    if text == "-0":
        return RawFloat(text)
    if len(text) > _INT_TEXT_LIMIT:
        return int(decimal.Decimal(text))
    return int(text)


def loads(
    data: bytes | str,
    *,
    source: str = "<input>",
    exact: bool = False,
    require_object: bool = True,
) -> Any:
    """Parse strict JSON. Raises ``JSONError`` naming *source* for every rejected input."""
    if not exact and type(data) is bytes:
        try:
            value = jiter.from_json(data, allow_inf_nan=False, catch_duplicate_keys=True, cache_mode="keys")
        except ValueError:
            pass  # the json path below says what is wrong, or accepts what jiter does not
        else:
            if require_object and type(value) is not dict:
                raise JSONError(source, f"top level is {json_type(value)}, not an object", "")
            return value
    text = _decode(data, source)
    state: dict[str, bool] = {"dup": False}

    def pairs_hook(pairs: list[tuple[str, object]]) -> dict[str, Any]:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    break
                seen.add(key)
            marked = _DupDict(obj)
            marked.dup = key
            state["dup"] = True
            return marked
        return obj

    kwargs: dict[str, Any] = {"object_pairs_hook": pairs_hook, "parse_constant": _reject_constant}
    if exact:
        kwargs["parse_float"] = RawFloat
        kwargs["parse_int"] = _parse_int
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise JSONError(source, f"nesting deeper than {MAX_DEPTH} levels") from None
    except json.JSONDecodeError as exc:
        raise JSONError(source, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except ValueError as exc:
        if "not valid JSON" in str(exc):
            raise JSONError(source, str(exc)) from None
        if not exact and "integer string conversion" in str(exc):
            return loads(data, source=source, exact=True, require_object=require_object)
        raise JSONError(source, f"invalid JSON: {exc}") from None
    if state["dup"] or exact:
        _check_tree(value, source)
    if require_object and not isinstance(value, dict):
        raise JSONError(source, f"top level is {json_type(value)}, not an object", "")
    return value


def loads_text(text: str) -> object:
    """``loads(text, require_object=False)``: the same value, or the same ``JSONError``, at the cost
    of the bytes path (jiter, which returns what the json path would and leaves it every input it
    refuses) for every text with a UTF-8 form; a text with a lone surrogate has none and takes
    the str path."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        return loads(text, require_object=False)
    return loads(data, require_object=False)


def _decode(data: bytes | str, source: str) -> str:
    if isinstance(data, str):
        if data.startswith("\ufeff"):
            raise JSONError(source, "starts with a byte-order mark")
        return data
    if data.startswith(b"\xef\xbb\xbf"):
        raise JSONError(source, "starts with a byte-order mark")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_at = exc.start
    # Locate the bad byte as a JSON pointer: parse with the bad bytes kept as lone surrogates.
    text = data.decode("utf-8", "surrogateescape")
    pointer = None
    with contextlib.suppress(Exception):
        pointer = _find_surrogate(json.loads(text, parse_constant=_reject_constant))
    raise JSONError(source, f"invalid UTF-8 at byte {bad_at}", pointer)


def _is_escaped(text: str) -> bool:
    return any("\udc80" <= ch <= "\udcff" for ch in text)


def _find_surrogate(value: object) -> str | None:
    for pointer, node, key in _walk(value):
        if key is not None and _is_escaped(key):
            return pointer
        if isinstance(node, str) and _is_escaped(node):
            return pointer
    return None


def _walk(value: object) -> Iterator[tuple[str, object, str | None]]:
    """Iterative pre-order walk yielding (pointer, node, key-or-None)."""
    stack: list[tuple[str, object, str | None, int]] = [("", value, None, 0)]
    while stack:
        pointer, node, key, depth = stack.pop()
        yield pointer, node, key
        if isinstance(node, dict):
            for k, v in reversed(list(node.items())):
                stack.append((f"{pointer}/{pointer_escape(k)}", v, k, depth + 1))
        elif isinstance(node, list):
            for i in range(len(node) - 1, -1, -1):
                stack.append((f"{pointer}/{i}", node[i], None, depth + 1))


def _check_tree(value: object, source: str) -> None:
    """Duplicate keys (reported at their object) and the depth bound."""
    stack: list[tuple[str, object, int]] = [("", value, 0)]
    while stack:
        pointer, node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise JSONError(source, f"nesting deeper than {MAX_DEPTH} levels")
        if isinstance(node, _DupDict):
            raise JSONError(source, f"duplicate key {node.dup!r}", pointer)
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    stack.append((f"{pointer}/{pointer_escape(k)}", v, depth + 1))
        elif isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, (dict, list)):
                    stack.append((f"{pointer}/{i}", v, depth + 1))


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector while parsing and walking a document: both create only
    acyclic containers, so a GC pass in between would just rescan the fresh document (measured:
    ~30% of a strict verify of large sidecars). Refcounting still frees everything at once."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def json_type(value: object) -> str:
    """The JSON type name of a parsed value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "unknown"


# ----------------------------------------------------------------------------- writing JSON


def dumps(value: object, *, indent: int | None = 2, sort_keys: bool = False, separators: tuple[str, str] | None = None) -> str:
    """Serialise JSON keeping ``RawFloat`` texts and integers of any size exactly; otherwise the
    text ``json.dumps(value, indent=indent, sort_keys=sort_keys, ensure_ascii=False,
    separators=separators)`` gives (compact separators without *indent* and *separators*), except
    that DEL, C1 controls, line separators, bidirectional overrides and lone surrogates are
    ``\\uXXXX`` escapes (see ``_string``).

    orjson writes it (C speed) where that is provably the same text (``_orjson_dumps``), the
    pure-Python encoder (``_python_dumps``) everywhere else (and for other *separators*)."""
    if separators in (None, (",", ": " if indent is not None else ":")):
        fast = _orjson_dumps(value, indent, sort_keys)
        if fast is not None:
            return fast.decode("utf-8")
    return _python_dumps(value, indent, sort_keys, separators)


def dumps_bytes(value: object, *, indent: int | None = 2, sort_keys: bool = False) -> bytes:
    """``dumps(...).encode()``, without the detour through ``str`` where orjson writes it."""
    fast = _orjson_dumps(value, indent, sort_keys)
    if fast is not None:
        return fast
    return _python_dumps(value, indent, sort_keys).encode("utf-8")


def _python_dumps(value: object, indent: int | None, sort_keys: bool, separators: tuple[str, str] | None = None) -> str:
    """The reference encoder: every value ``dumps`` accepts, in pure Python."""
    parts: list[str] = []
    _Encoder(parts.append, indent, sort_keys, separators).encode(value, 0)
    return "".join(parts)


_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
_PLAIN_TYPES = frozenset((dict, list, tuple, str, int, bool, type(None)))
_CONTAINER_TYPES = frozenset((dict, list, tuple))
# The UTF-8 of what ``_string`` escapes beyond orjson: DEL, C1 controls (U+0080-U+009F), U+2028,
# U+2029, U+202A-U+202E and U+2066-U+2069 (lone surrogates make orjson refuse the value).
_ORJSON_RAW = re.compile(b"\x7f|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]")


def _refuse(value: object) -> object:
    raise TypeError


def _orjson_dumps(value: object, indent: int | None, sort_keys: bool) -> bytes | None:
    """What orjson writes for *value* when that is exactly ``_python_dumps(...).encode()``, else None.

    orjson writes the same separators (two-space indent or compact), key order (as given, or sorted:
    UTF-8 byte order is code point order), integers, constants and string escapes (the same short
    forms, lowercase ``\\u00XX`` for the other controls) as the Python encoder. It is used only when
    none of their differences can occur: the tree holds nothing but exact dicts (with ``str`` keys:
    orjson refuses others), lists, tuples, strings, integers within 64 bits (orjson refuses larger
    ones), booleans and None -- no float (orjson writes ``1e-05`` as ``0.00001``, NaN as ``null``),
    no subclass (``RawFloat``; enum members, which orjson writes by value), no UUID, dataclass,
    date or ``orjson.Fragment``; nesting within orjson's limit of 255 levels; no lone surrogate
    (orjson refuses it) and no character ``_string`` escapes but orjson writes as it is."""
    if indent not in (None, 2):
        return None
    option = _ORJSON_OPTIONS | (orjson.OPT_INDENT_2 if indent == 2 else 0) | (orjson.OPT_SORT_KEYS if sort_keys else 0)
    try:
        out = orjson.dumps(value, default=_refuse, option=option)
    except (orjson.JSONEncodeError, TypeError):  # a type it does not write, a key, a big integer, a surrogate, depth
        return None
    if b"\x7f" in out or (not out.isascii() and _ORJSON_RAW.search(out)):
        return None
    return out if _plain_tree(value) else None


def _plain_tree(value: object) -> bool:
    """Whether *value* holds only the exact types in ``_PLAIN_TYPES`` (object keys aside: orjson has
    checked they are ``str``), one level at a time at C speed: ``gc.get_referents`` gives the items
    of every list and tuple and at least the values of every dict of a level (keys too where they
    are not all ``str``). Called only on what orjson wrote, so the tree has no cycle."""
    level: list[object] = [value]
    while level:
        if not _PLAIN_TYPES.issuperset(map(type, level)):
            return False
        level = gc.get_referents(*compress(level, map(_CONTAINER_TYPES.__contains__, map(type, level))))
    return True


def json_key(value: object) -> bytes | None:
    """Bytes that are equal for two values exactly when they are the same JSON value: types
    included (where ``==`` has ``1 == 1.0 == True``), object keys in any order. orjson writes them
    (C speed); what it refuses (integers beyond 64 bits, ``RawFloat``, lone surrogates) is written
    by ``dumps`` instead. None when *value* is nested too deeply to write at all. orjson writes
    NaN and infinities (which JSON cannot hold, but ``1e400`` parses to) as ``null``: callers
    compare with ``==`` first, which tells them apart."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except (orjson.JSONEncodeError, TypeError):
        pass
    try:
        return b"\0" + dumps(value, indent=None, sort_keys=True).encode("utf-8", "surrogatepass")
    except (RecursionError, ValueError, TypeError):
        return None


def _int_text(value: int) -> str:
    try:
        return int.__repr__(value)
    except ValueError:  # longer than the int/str conversion limit
        return str(decimal.Decimal(value))


_plain_string = json.encoder.encode_basestring  # C: escapes quotes, backslashes and controls, keeps non-ASCII
_JSON_ESCAPED = re.compile("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def _string(value: str) -> str:
    """A JSON string literal. Non-ASCII stays as it is, except what a terminal would act on or
    what is not text: DEL, C1 controls, line separators, bidirectional overrides and lone
    surrogates (the bytes of a non-UTF-8 file name, as ``os.fsdecode`` carries them) are written
    as ``\\uXXXX`` escapes. The output is then always valid UTF-8, safe to print, and
    ``os.fsencode(loads(...))`` gives a name's bytes back."""
    text = _plain_string(value)
    if value.isascii() and "\x7f" not in value:
        return text
    return _JSON_ESCAPED.sub(_json_escape, text)


_CONSTANTS = {None: "null", True: "true", False: "false"}


class _Encoder:
    def __init__(
        self, out: Callable[[str], object], indent: int | None, sort_keys: bool, separators: tuple[str, str] | None = None
    ) -> None:
        self.out, self.indent, self.sort_keys = out, indent, sort_keys
        self.comma, self.colon = separators or (",", ": " if indent is not None else ":")
        self.gaps: list[tuple[str, str]] = []  # per level: (before an item, before the closing bracket)

    def gap(self, level: int) -> tuple[str, str]:
        while len(self.gaps) <= level:
            depth = len(self.gaps)
            self.gaps.append(
                ("", "")
                if self.indent is None
                else ("\n" + " " * (self.indent * (depth + 1)), "\n" + " " * (self.indent * depth))
            )
        return self.gaps[level]

    def encode(self, value: Any, level: int) -> None:
        out, kind = self.out, type(value)
        if kind is str:
            out(_string(value))
        elif kind is dict:
            if not value:
                out("{}")
                return
            sep, close = self.gap(level)
            items = sorted(value.items()) if self.sort_keys else value.items()
            first = True
            for key, item in items:
                if type(key) is not str:
                    raise TypeError(f"JSON object keys must be strings, not {type(key).__name__}")
                out(("{" if first else self.comma) + sep + _string(key) + self.colon)
                first = False
                self.encode(item, level + 1)
            out(close + "}")
        elif kind is list or kind is tuple:
            if not value:
                out("[]")
                return
            sep, close = self.gap(level)
            first = True
            for item in value:
                out(("[" if first else self.comma) + sep)
                first = False
                self.encode(item, level + 1)
            out(close + "]")
        elif kind is bool or value is None:
            out(_CONSTANTS[value])
        elif kind is int:
            out(_int_text(value))
        elif kind is float:
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError("NaN and Infinity cannot be written as JSON")
            out(float.__repr__(value))
        elif isinstance(value, RawFloat):
            out(value.text)
        elif isinstance(value, str):  # subclasses (e.g. StrEnum) as their base type
            out(_string(value))
        elif isinstance(value, int):
            out(_int_text(value))
        elif isinstance(value, float):
            self.encode(float(value), level)
        elif isinstance(value, dict):
            self.encode(dict(value), level)
        elif isinstance(value, (list, tuple)):
            self.encode(list(value), level)
        else:
            raise TypeError(f"cannot write {type(value).__name__} as JSON")
