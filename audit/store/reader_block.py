"""Reader metadata in a sidecar: the top-level ``agyReader`` block, edited by byte splicing.

A sidecar is the daemon's JSON verbatim plus, optionally, one reader-owned top-level object
``agyReader`` (``{"parentCascadeId": "<uuid>", ...}``). Editing one key of that block must keep
every other byte of the file, so ``set_reader_key`` finds the block's span in the raw text with a
small scanner, replaces only those bytes and re-parses the result to prove that nothing but the
intended key changed. The payload is never re-serialised.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from audit.errors import InputError
from audit.strictjson import RawFloat, json_type, loads

READER_BLOCK = "agyReader"
PARENT_KEY = "parentCascadeId"

_WS = re.compile(r"[ \t\n\r]*")


def _ignore(*_args: object) -> None:
    return None


# Finds where a JSON value ends without building it (numbers and objects become None).
_SKIPPER = json.JSONDecoder(object_pairs_hook=_ignore, parse_float=_ignore, parse_int=_ignore, parse_constant=_ignore)


@dataclass(frozen=True)
class _Member:
    key: str
    key_start: int
    key_end: int
    value_start: int
    value_end: int


def _skip_ws(text: str, i: int) -> int:
    match = _WS.match(text, i)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def _members(text: str, start: int) -> tuple[list[_Member], int]:
    """The members of the object whose ``{`` is at *start*, and the index of its ``}``."""
    members: list[_Member] = []
    i = _skip_ws(text, start + 1)
    if text[i] == "}":
        return members, i
    while True:
        if text[i] != '"':
            raise ValueError(f"expected a key at offset {i}")
        key, key_end = _SKIPPER.raw_decode(text, i)
        colon = _skip_ws(text, key_end)
        if text[colon] != ":":
            raise ValueError(f"expected ':' at offset {colon}")
        value_start = _skip_ws(text, colon + 1)
        _, value_end = _SKIPPER.raw_decode(text, value_start)
        members.append(_Member(key, i, key_end, value_start, value_end))
        i = _skip_ws(text, value_end)
        if text[i] == "}":
            return members, i
        if text[i] != ",":
            raise ValueError(f"expected ',' or '}}' at offset {i}")
        i = _skip_ws(text, i + 1)


def _indent_before(text: str, i: int) -> str:
    """The whitespace run that ends at *i* (the layout before a member's key)."""
    start = i
    while start > 0 and text[start - 1] in " \t\n\r":
        start -= 1
    return text[start:i]


def _insert(text: str, open_at: int, members: list[_Member], key: str, value_json: str) -> tuple[int, int, str]:
    """An edit appending ``key: value`` to an object, laid out like its last member."""
    name = json.dumps(key, ensure_ascii=False)
    if not members:
        return open_at + 1, open_at + 1, f"{name}: {value_json}"
    last = members[-1]
    colon = text[last.key_end : last.value_start]
    layout = _indent_before(text, last.key_start)
    if len(members) == 1 and "\n" not in layout:  # `{"a": 1}`: the space after ':' tells ", " from ","
        layout = " " if colon.endswith(" ") else ""
    return last.value_end, last.value_end, "," + layout + name + colon + value_json


def _remove(open_at: int, close_at: int, members: list[_Member], index: int) -> tuple[int, int, str]:
    """An edit deleting member *index* with its separator, leaving its neighbours' layout alone."""
    if index + 1 < len(members):
        return members[index].key_start, members[index + 1].key_start, ""
    if index > 0:
        return members[index - 1].value_end, members[index].value_end, ""
    return open_at + 1, close_at, ""


def _new_block(layout: str, colon: str, key: str, value_json: str) -> str:
    """A one-key ``agyReader`` object, pretty-printed when the document is (layout holds a newline)."""
    name = json.dumps(key, ensure_ascii=False)
    if "\n" not in layout:
        return "{" + name + colon + value_json + "}"
    indent = layout[layout.rindex("\n") + 1 :]
    return "{\n" + indent * 2 + name + colon + value_json + "\n" + indent + "}"


def _edit(text: str, key: str, value_json: str | None, source: str) -> tuple[int, int, str] | None:
    top = _skip_ws(text, 0)
    members, close = _members(text, top)
    index = next((n for n, m in enumerate(members) if m.key == READER_BLOCK), None)
    if index is None:
        if value_json is None:
            return None
        layout = _indent_before(text, members[-1].key_start) if members else ""
        colon = text[members[-1].key_end : members[-1].value_start] if members else ": "
        return _insert(text, top, members, READER_BLOCK, _new_block(layout, colon, key, value_json))
    block = members[index]
    first = text[block.value_start]
    if first == "n":  # null counts as absent
        if value_json is None:
            return None
        colon = text[block.key_end : block.value_start]
        layout = _indent_before(text, block.key_start)
        return block.value_start, block.value_end, _new_block(layout, colon, key, value_json)
    if first != "{":
        kind = json_type(loads(text[block.value_start : block.value_end], require_object=False))
        raise InputError(f"{source}: {READER_BLOCK} is {kind}, not an object; refusing to edit it")
    inner, inner_close = _members(text, block.value_start)
    at = next((n for n, m in enumerate(inner) if m.key == key), None)
    if value_json is None:
        if at is None:
            return None
        if len(inner) == 1:
            return _remove(top, close, members, index)
        return _remove(block.value_start, inner_close, inner, at)
    if at is None:
        return _insert(text, block.value_start, inner, key, value_json)
    return inner[at].value_start, inner[at].value_end, value_json


def set_reader_key(raw: bytes, key: str, value_json: str | None, *, source: str = "<sidecar>") -> bytes:
    """*raw* with ``agyReader.<key>`` set to the JSON text *value_json*, or removed when None.

    Removing the last key removes the whole ``agyReader`` member; a ``null`` block counts as
    absent. Every other byte is kept; when nothing changes *raw* itself is returned. Raises
    ``InputError`` for a document that is not strict JSON, a non-object ``agyReader`` or a
    splice that would change anything else (checked by re-parsing).
    """
    before = loads(raw, source=source, exact=True)
    value = None if value_json is None else loads(value_json, source=f"{source}: new {key}", exact=True, require_object=False)
    text = raw.decode("utf-8")
    try:
        edit = _edit(text, key, value_json, source)
    except (ValueError, IndexError) as exc:  # cannot happen for strict JSON; kept as a guard
        raise InputError(f"{source}: cannot locate the {READER_BLOCK} block ({exc})") from None
    if edit is None:
        return raw
    start, end, replacement = edit
    out = (text[:start] + replacement + text[end:]).encode("utf-8")
    if out == raw:
        return raw
    expected = dict(before)
    block = dict(before.get(READER_BLOCK) or {})
    if value_json is None:
        block.pop(key, None)
    else:
        block[key] = value
    if block:
        expected[READER_BLOCK] = block
    else:
        expected.pop(READER_BLOCK, None)
    if not json_equal(loads(out, source=source, exact=True), expected):
        raise InputError(f"{source}: editing {READER_BLOCK}.{key} would change other content; not written")
    return out


def strip_reader_key(doc: dict[str, Any], key: str) -> dict[str, Any]:
    """*doc* without ``agyReader.<key>``; an absent, ``null`` or emptied block is dropped."""
    out = dict(doc)
    block = out.pop(READER_BLOCK, None)
    if isinstance(block, dict):
        block = {k: v for k, v in block.items() if k != key}
        if block:
            out[READER_BLOCK] = block
    elif block is not None:
        out[READER_BLOCK] = block
    return out


def json_equal(a: object, b: object) -> bool:
    """Type-strict equality of parsed JSON: ``false`` != ``0``, ``1`` != ``1.0``, numbers by exact text."""
    stack: list[tuple[Any, Any]] = [(a, b)]  # y has x's type once checked
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, RawFloat):
            if x.text != y.text:
                return False
        elif x != y:
            return False
    return True
