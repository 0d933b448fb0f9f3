"""What the predicates ``schema_compiler`` generates call at run time: the formats our schemas use,
``pattern``'s memo, JSON equality and uniqueness, ``multipleOf`` decided exactly."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from fractions import Fraction
from typing import Any
from uuid import UUID

try:  # jsonschema checks format "date-time" only when this optional package is installed
    from rfc3339_validator import validate_rfc3339 as _rfc3339
except ImportError:  # pragma: no cover - depends on the environment
    _rfc3339 = None


def _uuid_format(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    try:
        UUID(instance)
    except ValueError:
        return False
    return all(instance[i] == "-" for i in (8, 13, 18, 23))


def _datetime_format(instance: object) -> bool:
    return not isinstance(instance, str) or _rfc3339(instance.upper())


FORMATS: dict[str, Callable[[object], bool] | None] = {
    "uuid": _uuid_format,
    "date-time": _datetime_format if _rfc3339 is not None else None,
}
"""The formats our schemas use, checked exactly as jsonschema's Draft 2020-12 format checker does
(None: that checker does not check the format in this environment). Any other format is refused."""


_MEMO_LIMIT = 1 << 12
_MEMO_LENGTH = 64


def learn(memo: set[str], pattern: re.Pattern[str], text: str) -> bool:
    """``pattern.search(text)``, as jsonschema applies ``pattern``; short matching texts join *memo*."""
    if pattern.search(text) is None:
        return False
    if len(text) <= _MEMO_LENGTH and len(memo) < _MEMO_LIMIT:
        memo.add(text)
    return True


def json_key(value: object) -> object:
    """A hashable key equal for equal JSON values: 1 == 1.0, but true is not 1; objects ignore order."""
    if value is None or isinstance(value, bool):
        return (0, value)
    if isinstance(value, (int, float)):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, list):
        return (3, tuple(json_key(v) for v in value))
    if isinstance(value, dict):
        return (4, frozenset((k, json_key(v)) for k, v in value.items()))
    return (5, id(value))


def unique(items: list[Any]) -> bool:
    keys = [json_key(v) for v in items]
    return len(set(keys)) == len(keys)


def _exact(number: float | int) -> Fraction:
    """The number a JSON text means: a float by its shortest decimal form, not its binary value."""
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def multiple(instance: float | int, divisor: float | int) -> bool:
    """``multipleOf`` decided exactly on the decimal values (0.0075 is a multiple of 0.0001)."""
    if isinstance(instance, int) and isinstance(divisor, int):
        return instance % divisor == 0
    if isinstance(instance, float) and not math.isfinite(instance):
        return False
    return (_exact(instance) / _exact(divisor)).denominator == 1
