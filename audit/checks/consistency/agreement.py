"""When a transcript's value agrees with the ``.db``'s: timestamps to the second, text cut by a
truncation marker, tool-call arguments in each tier's encoding; and a difference shown.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

from audit.checks.consistency.verdicts import FULL
from audit.store import transcript as tr
from audit.strictjson import JSONError, dumps, loads

_MARKER = re.compile(r"<truncated \d+ (?:bytes|lines)>")
_SECOND = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)")
_SHOWN = 24  # characters of each side shown around a difference


def floor_second(text: object) -> str | None:
    """An RFC 3339 timestamp floored to the second, in UTC (``YYYY-MM-DDTHH:MM:SSZ``)."""
    if not isinstance(text, str) or not (m := _SECOND.fullmatch(text)):
        return None
    try:
        moment = datetime.fromisoformat(m[1] + m[2].replace("Z", "+00:00"))
    except ValueError:
        return None
    if m[2] == "Z" and moment.year >= 1000 and text.isascii():
        return m[1] + "Z"  # already UTC: the text up to its second is what strftime writes (4-digit years)
    try:
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OverflowError:  # an offset that moves it past year 1 or 9999: no instant to compare
        return None


def _head(text: str) -> str | None:
    """The text before the first truncation marker (its line break removed), or None without one."""
    m = _MARKER.search(text)
    return None if m is None else text[: m.start()].rstrip("\n")


def text_agrees(transcript: str, db: str) -> bool:
    """Equal, or *transcript* is cut by a marker and its head starts *db*."""
    if transcript == db:
        return True
    head = _head(transcript)
    return head is not None and db.startswith(head)


def _json_texts(value: object) -> list[str]:
    """Ways agy may have written *value* as JSON text (compact; ASCII-escaped; Go's HTML escaping)."""
    plain = dumps(value, indent=None)
    ascii_ = json.dumps(value, ensure_ascii=True, separators=(",", ":"))
    go = plain.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return list(dict.fromkeys((plain, ascii_, go)))


def _string_head(head: str) -> str | None:
    """The text of a JSON string literal cut at *head*'s end (a partial escape dropped)."""
    if not head.startswith('"'):
        return None
    for cut in range(0, 7):
        try:
            value = loads(head[: len(head) - cut] + '"', require_object=False)
        except JSONError:
            continue
        return value if isinstance(value, str) else None
    return None


def _same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if type(a) in _SCALARS:
        return a == b  # their JSON texts are equal exactly when they are (no float: 0.0 == -0.0)
    return dumps(a, indent=None, sort_keys=True) == dumps(b, indent=None, sort_keys=True)


_SCALARS = frozenset((str, int, bool, type(None)))


def arg_agrees(arg: tr.Arg | None, value: object, tier: str) -> bool | None:
    """Does the transcript argument *arg* hold *value* (from the ``.db``'s argumentsJson)?"""
    if arg is None:
        return None
    raw = arg.raw
    if tier == FULL and not isinstance(raw, str):
        return _same(raw, value)
    if not isinstance(raw, str):
        return _same(raw, value)
    if tier == FULL and raw == value:
        return True  # a native string
    if arg.decoded and _same(arg.value, value):
        return True  # JSON text (the compact encoding; the full tier of older writers)
    head = _head(raw)
    if head is None:
        return False
    if any(text.startswith(head) for text in _json_texts(value)):
        return True
    if isinstance(value, str):
        if tier == FULL and value.startswith(head):
            return True
        text = _string_head(head)
        return text is not None and value.startswith(text)
    return False


def shown_arg(arg: tr.Arg) -> str:
    raw = arg.raw
    if isinstance(raw, str) and arg.decoded and isinstance(arg.value, str):
        return arg.value
    return raw if isinstance(raw, str) else dumps(raw, indent=None)


def excerpt(text: str, start: int = 0) -> str:
    piece = text[start : start + _SHOWN]
    return repr(("…" if start else "") + piece + ("…" if len(text) > start + _SHOWN else ""))


def text_difference(db: str, transcript: str, tier: str) -> str:
    """Where two texts first differ, with a short excerpt of each side."""
    at = next((i for i, (a, b) in enumerate(zip(db, transcript)) if a != b), min(len(db), len(transcript)))
    start = max(0, at - 4)
    return f"differs at character {at}: .db {excerpt(db, start)}, {tier} transcript {excerpt(transcript, start)}"
