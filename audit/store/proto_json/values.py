"""The text proto3 JSON gives the leaf values that need more than ``str``: Timestamps (at nine
fractional digits, ``YYYY-MM-DDTHH:MM:SS.`` kept per second), Durations in range (without
protobuf's float arithmetic), float specials and 32-bit floats; ``RenderError`` for a value it
cannot represent.
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from google.protobuf.duration_pb2 import Duration

_MIN_SECONDS, _MAX_SECONDS = -62135596800, 253402300799  # 0001-01-01 .. 9999-12-31 (proto3 JSON's range)
_EPOCH = _dt.datetime(1970, 1, 1)
_DURATION_MAX_SECONDS = 315_576_000_000  # 10,000 years (proto3 JSON's range)
_TIMESTAMP, _DURATION = "google.protobuf.Timestamp", "google.protobuf.Duration"


class RenderError(ValueError):
    """A value proto3 JSON cannot represent (a Timestamp outside years 1..9999, a Duration out of
    range or whose seconds and nanos differ in sign)."""


def _float(value: float, single: bool) -> float | str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if single:  # the shortest text that reads back as the same 32-bit float, as MessageToDict does
        from google.protobuf.internal import type_checkers  # noqa: PLC0415 -- float fields are rare

        return type_checkers.ToShortestFloat(value)
    return value


def _duration_of(value: Duration) -> str:
    """What ``Duration.ToJsonString`` writes; a duration that is not ``0 <= seconds <=
    315576000000``, ``0 <= nanos < 10**9`` is left to it (negative, or invalid: ``RenderError``
    with its message)."""
    seconds, nanos = value.seconds, value.nanos
    if not (0 <= seconds <= _DURATION_MAX_SECONDS and 0 <= nanos <= 999_999_999):
        try:
            return value.ToJsonString()
        except ValueError as exc:  # out of range, or seconds and nanos of opposite signs
            raise RenderError(str(exc)) from None
    if not nanos:
        return f"{seconds}s"
    if not nanos % 1_000_000:
        return f"{seconds}.{nanos // 1_000_000:03d}s"
    if not nanos % 1_000:
        return f"{seconds}.{nanos // 1_000:06d}s"
    return f"{seconds}.{nanos:09d}s"


def _timestamp_of(value: Any) -> str:
    seconds, nanos = value.seconds, value.nanos
    second = _SECONDS.get(seconds)
    if second is None or not 0 <= nanos <= 999_999_999:
        return _timestamp(seconds, nanos)  # a second not seen yet, or a value to refuse
    return second + "%09dZ" % nanos  # noqa: UP031 -- measured faster than an f-string here


def _timestamp(seconds: int, nanos: int) -> str:
    second = _SECONDS.get(seconds)
    if second is None:
        if not _MIN_SECONDS <= seconds <= _MAX_SECONDS:
            raise RenderError(f"Timestamp is not valid: seconds {seconds} outside [{_MIN_SECONDS}, {_MAX_SECONDS}]")
        if len(_SECONDS) >= _SECONDS_KEPT:
            _SECONDS.clear()
        second = _SECONDS[seconds] = (_EPOCH + _dt.timedelta(0, seconds)).isoformat() + "."  # formatted in C
    if not 0 <= nanos <= 999_999_999:
        raise RenderError(f"Timestamp is not valid: nanos {nanos} outside [0, 999999999]")
    return second + "%09dZ" % nanos  # noqa: UP031 -- measured faster than an f-string here


_SECONDS: dict[int, str] = {}
"""``YYYY-MM-DDTHH:MM:SS.`` per Unix second (the timestamps of a step mostly share a few seconds)."""
_SECONDS_KEPT = 4096
