"""The current time as the tool records it (manifests, attestations), and the one rule for what
counts as an RFC 3339 timestamp in a store (the contract's and the readers')."""

from __future__ import annotations

import datetime as _dt
import re

try:  # the contract's format "date-time" is checked only when this optional package is installed
    from rfc3339_validator import validate_rfc3339 as _rfc3339
except ImportError:  # pragma: no cover - depends on the environment
    _rfc3339 = None

RFC3339 = (
    "[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:([0-5][0-9]|60)"
    "(\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
)
"""An RFC 3339 date-time with ``Z`` or a ``±hh:mm`` offset and up to nine fractional digits: the
pattern the schemas give timestamps (``^…$(?!\\n)``; a test checks they agree)."""
_RFC3339 = re.compile(RFC3339)


def is_rfc3339(text: str) -> bool:
    """Whether *text* is a timestamp the contract accepts: the schemas' pattern and, where the
    contract checks format ``date-time`` (``rfc3339-validator`` installed), that format too."""
    return _RFC3339.fullmatch(text) is not None and (_rfc3339 is None or bool(_rfc3339(text)))


def now_rfc3339() -> str:
    """The current time as RFC 3339 UTC with microseconds (``...000000Z``), as manifests and
    attestations record it."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
