"""Canonical conversation ids: lower-case 8-4-4-4-12 UUIDs."""

from __future__ import annotations

import re

UUID_PATTERN = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
"""One UUID in any case, as a regular-expression fragment for the modules that embed it."""
_UUID_RE = re.compile(UUID_PATTERN)


def is_uuid(text: object) -> bool:
    """True when *text* is a string holding exactly one UUID (any case)."""
    return isinstance(text, str) and _UUID_RE.fullmatch(text) is not None


def canonical_id(text: object) -> str | None:
    """The lower-case form of a UUID string, or None when *text* is not one."""
    return text.lower() if isinstance(text, str) and is_uuid(text) else None
