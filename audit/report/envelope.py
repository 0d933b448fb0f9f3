"""The one JSON document every command's ``--format json`` prints: who wrote it, which layout,
the command, its verdict and exit code, its findings, and the command's own data under
``result`` (``schemas/output.schema.json``: the envelope, and one ``$defs`` entry per command
describing its ``result``).

``SCHEMA_VERSION`` counts incompatible layouts: a key removed or renamed, a meaning or type
changed, in the envelope or in any command's ``result``. Adding a key keeps it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from audit import __version__
from audit.errors import EXIT_FINDINGS, EXIT_NOTHING, EXIT_OK
from audit.findings import Finding, Verdict
from audit.report.text import PROGRAM

SCHEMA_VERSION = 1
_VERDICTS = {EXIT_OK: Verdict.PASS, EXIT_FINDINGS: Verdict.FAIL, EXIT_NOTHING: Verdict.SKIPPED}
"""The verdict of each exit code; any other (2: usage or unreadable input) is ``error``."""


def finding_json(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "level": f.level,
        "message": f.message,
        "file": f.file,
        "line": f.line,
        "column": f.column,
        "pointer": f.pointer,
        "details": dict(f.details),
    }


def envelope(command: str, exit_code: int, result: object, findings: Iterable[Finding] = ()) -> dict[str, Any]:
    """The document of one run of *command* (its words: ``links check``) that exits *exit_code*."""
    return {
        "tool": PROGRAM,
        "toolVersion": __version__,
        "schemaVersion": SCHEMA_VERSION,
        "command": command,
        "verdict": _VERDICTS.get(exit_code, Verdict.ERROR),
        "exitCode": exit_code,
        "findings": [finding_json(f) for f in findings],
        "result": result,
    }
