"""``agy-audit redact``: a content-free copy of a store that keeps its format, proven so."""

from __future__ import annotations

import argparse
import hashlib
import re

from audit.actions.redact import MAX_FILE_SIZE, REPORT, redact
from audit.commands.common import add_progress, add_quiet, print_json, progress_of, user_path
from audit.errors import EXIT_OK
from audit.report import redact_report

_SIZE = re.compile(r"([0-9]{1,15})([KMG]?)", re.IGNORECASE)
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def size(text: str) -> int:
    """argparse type: a number of bytes above 0, with an optional binary unit (``64M``, ``2G``)."""
    m = _SIZE.fullmatch(text.strip())
    value = int(m.group(1)) * _UNITS[m.group(2).upper()] if m else 0
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size in bytes above 0 (a number, or with K, M or G: 64M)")
    return value


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "redact",
        help="a content-free copy of a home, store root or corpus that keeps the format (to share it)",
        description=(
            "Copy SOURCE (a home, a store root or a sweep corpus) to the new directory NEW_DIR with every piece of "
            "content replaced: text by placeholders of the same length and character classes, JSON-text arguments "
            "inside their JSON, UUIDs by new UUIDs (consistently), timestamps shifted by one constant, bytes by random "
            "bytes; keys, numbers, enum names and tool names are kept. Protobuf fields cortex.proto does not name, and "
            "blobs of columns it does not describe, are redacted too: as messages when they parse as one, else by "
            "placeholders (printable UTF-8) or random bytes, keys and lengths kept; a group (wire type 3) cannot be "
            "walked field by field and is refused. Blobs are rewritten on the wire: every byte but those of text and "
            "bytes fields (field order, fields encoded at their default value, packed numbers) is kept. A text without a "
            "letter or a digit (a run of spaces) is format and kept. The copy is then proven: its fingerprints on "
            "every surface equal the source's, no replaced string of 9 or more letters (or 12 digits) survives, and every JSON "
            f"document differs from its source only by string values. {REPORT} in the copy says what was done. "
            "Progress goes to stderr (--progress)."
        ),
        epilog=(
            "Exit codes: 0 redacted and proven, 1 refused (the copy is removed), 2 usage or unreadable input "
            "(a file larger than --max-file-size, a directory that cannot be listed or searched; nothing is kept)."
        ),
    )
    p.add_argument("source", metavar="SOURCE", help="a home directory, a store root or a sweep corpus")
    p.add_argument("--out", required=True, type=user_path, metavar="NEW_DIR", help="the copy to create (must not exist)")
    p.add_argument("--seed", metavar="TEXT", help="make the placeholders reproducible (default: random per run)")
    p.add_argument(
        "--max-file-size",
        type=size,
        default=MAX_FILE_SIZE,
        metavar="SIZE",
        help=f"refuse a file read whole above this size (bytes, or 64M, 2G; default {MAX_FILE_SIZE >> 20}M); "
        "JSON-lines files are streamed, one line at most this long",
    )
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    add_quiet(p)
    add_progress(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    key = hashlib.sha256(args.seed.encode()).digest() if args.seed is not None else None
    result = redact(args.source, args.out, key=key, max_file_size=args.max_file_size, progress=progress_of(args))
    if args.format == "json":
        return print_json("redact", EXIT_OK, redact_report.result_json(result))
    print(redact_report.text(result))
    return 0
