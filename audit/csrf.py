"""The daemon's CSRF token, held redacted, and the one scrubber of text that could carry it.

A ``Secret`` is never printed (``repr`` and ``str`` are redacted); creating one makes its value
*known* for the rest of the command (``start_run`` forgets them), and ``scrub`` removes from a
text every known token and every piece of one that is ``PIECE`` (8) characters or longer --
wherever it stands (a daemon that echoes ``invalid csrf token <first 12 characters>...`` leaves a
prefix in the middle of a message), so no cut of a message can leave part of one either.

The command line scrubs everything it writes to standard output and standard error, and so do
the writers of reports and of crash reports; messages built from daemon bytes are scrubbed
where they are built (``audit.store.daemon``), before they are cut.
"""

from __future__ import annotations

import re

REDACTED = "<redacted>"
PIECE = 8
"""The shortest piece of a token that is scrubbed: 8 characters (a CSRF token has 16 or more)."""
_TOKEN = re.compile(r"[A-Za-z0-9._~:/+=-]{16,4096}")

_KNOWN: dict[str, frozenset[str]] = {}  # token -> its pieces of PIECE characters


class Secret:
    """A CSRF token. Never printed: ``repr`` and ``str`` are redacted; ``reveal()`` is for the header."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        if not isinstance(value, str) or not _TOKEN.fullmatch(value):
            raise ValueError("not a CSRF token (16+ characters of A-Z a-z 0-9 . _ ~ : / + = -)")
        self._value = value
        _KNOWN.setdefault(value, frozenset(value[i : i + PIECE] for i in range(len(value) - PIECE + 1)))

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret(<redacted>)"

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Secret) and other._value == self._value

    def __hash__(self) -> int:
        return hash(self._value)


def start_run() -> None:
    """Forget the tokens of an earlier command (the CLI calls it per command)."""
    _KNOWN.clear()


def known() -> bool:
    """Whether any token is known (when none is, ``scrub`` returns every text as it is)."""
    return bool(_KNOWN)


def scrub(text: str) -> str:
    """*text* with every known token, and every piece of one of ``PIECE`` or more characters,
    replaced by ``<redacted>`` (overlapping and adjacent pieces as one)."""
    if not _KNOWN or len(text) < PIECE:
        return text
    spans: list[tuple[int, int]] = []
    for pieces in _KNOWN.values():
        for piece in pieces:
            at = text.find(piece)
            while at != -1:
                spans.append((at, at + PIECE))
                at = text.find(piece, at + 1)
    if not spans:
        return text
    spans.sort()
    out, done = [], 0
    start, end = spans[0]
    for s, e in spans[1:]:
        if s <= end:  # overlapping or adjacent: one longer piece of a token
            end = max(end, e)
            continue
        out += [text[done:start], REDACTED]
        done, (start, end) = end, (s, e)
    out += [text[done:start], REDACTED, text[end:]]
    return "".join(out)
