"""SARIF 2.1.0 (OASIS Static Analysis Results Interchange Format) for the commands whose findings
are about files: ``verify-contract``, ``consistency`` and ``ci`` (``--format sarif``), so that
GitHub code scanning and other SARIF viewers show each finding on its file and line.

One run per log; the tool's driver lists each rule once, and every finding is one ``result``:
its rule id and index, its level (the ``Level`` words are SARIF's), its message (after its JSON
pointer), its file and line and column as a physical location, and its pointer and details as
the result's properties. A finding about no one file has no location.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from audit import __version__
from audit.findings import Detail, Finding
from audit.report.text import PROGRAM, finding_message

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"


def log(command: str, exit_code: int, findings: Iterable[Finding]) -> dict[str, Any]:
    """The SARIF log of one run of *command* (its words: ``verify-contract``) exiting *exit_code*."""
    findings = list(findings)
    rule_ids = sorted({f.rule for f in findings})
    index = {rule: i for i, rule in enumerate(rule_ids)}
    return {
        "$schema": SCHEMA_URI,
        "version": VERSION,
        "runs": [
            {
                "tool": {"driver": {"name": PROGRAM, "version": __version__, "rules": [{"id": r} for r in rule_ids]}},
                "automationDetails": {"id": f"{PROGRAM}/{command}/"},
                "invocations": [{"executionSuccessful": exit_code in (0, 1, 3), "exitCode": exit_code}],
                "results": [_result(f, index[f.rule]) for f in findings],
            }
        ],
    }


def _result(f: Finding, rule_index: int) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": str(f.level),
        "message": {"text": finding_message(f)},
    }
    if f.file is not None:
        location: dict[str, Any] = {"artifactLocation": {"uri": uri(f.file)}}
        if f.line:
            location["region"] = {"startLine": f.line} | ({"startColumn": f.column} if f.column else {})
        result["locations"] = [{"physicalLocation": location}]
    properties: dict[str, Detail] = {"pointer": f.pointer} if f.pointer else {}
    properties |= f.details
    if properties:
        result["properties"] = properties
    return result


def uri(path: str) -> str:
    """*path* as a URI reference: ``file:`` for an absolute path, a relative reference otherwise
    (percent-encoded, ``/``-separated)."""
    pure = PurePath(path)
    if pure.is_absolute():
        return pure.as_uri()
    return quote(pure.as_posix(), safe="/")
