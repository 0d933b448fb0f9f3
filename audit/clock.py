"""The current time as the tool records it (manifests, attestations)."""

from __future__ import annotations

import datetime as _dt


def now_rfc3339() -> str:
    """The current time as RFC 3339 UTC with microseconds (``...000000Z``), as manifests and
    attestations record it."""
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
