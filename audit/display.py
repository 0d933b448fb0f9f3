"""Display: text made safe for the medium it is printed to (one line of a terminal)."""

from __future__ import annotations

import re

# ----------------------------------------------------------------------------- display

_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\udc80-\udcff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\x1b"}


def _escape_char(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a non-UTF-8 file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def escape_for_terminal(text: object) -> str:
    """*text* (a path, a message) safe for one line of terminal text: control characters (newline,
    tab and ESC included), DEL, C1 controls, line separators and bidirectional overrides become
    visible escapes (``\\n``, ``\\x1b``, ``\\u202e``), and the bytes of a non-UTF-8 file name
    ``\\xNN``; nothing can split the line, move the cursor or change colours."""
    return _UNSAFE.sub(_escape_char, str(text))
