"""The JSON envelope every command prints (``schemas/output.schema.json``) and the SARIF logs some
print, for the tests that read command output: validation, and the problem-matcher pattern the one
line format must satisfy."""

from __future__ import annotations

import json
import re
from pathlib import Path

from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.validators import validator_for

from audit.resources import data_path

SCHEMA = json.loads((data_path("schemas") / "output.schema.json").read_text(encoding="utf-8"))
VALIDATOR = Draft202012Validator(SCHEMA, format_checker=Draft202012Validator.FORMAT_CHECKER)
MATCHERS = json.loads((Path(__file__).resolve().parents[1] / ".github" / "agy-audit-matcher.json").read_text(encoding="utf-8"))
"""The GitHub problem matchers shipped in ``.github/``: one for findings about a file, one for the others."""


def problems(doc: object) -> list[str]:
    """What makes *doc* not a valid envelope (sorted messages; empty when it is one)."""
    return sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in VALIDATOR.iter_errors(doc))


def envelope(text: str, command: str) -> dict:
    """The envelope *text* holds, after checking it is valid and written by *command*."""
    doc = json.loads(text)
    assert problems(doc) == []
    assert doc["command"] == command
    return doc


def matched(line: str) -> dict[str, str] | None:
    """What the problem matchers take from *line* (file, line, column, severity, code, message as
    the first matcher that matches names them), or None when no matcher matches it. JavaScript
    applies the patterns to each line; ``re`` reads them the same way (no flag, no lookbehind)."""
    for matcher in MATCHERS["problemMatcher"]:
        pattern = matcher["pattern"][0]
        found = re.fullmatch(pattern["regexp"], line)
        if found:
            return {key: found[group] for key, group in pattern.items() if key != "regexp" and found[group] is not None}
    return None


def ci_result(doc: dict) -> dict:
    """The ``result`` of a ``ci`` envelope with its verdict and exit code, each check holding the
    findings the envelope lists for it (under ``findings``, without the details naming the check)."""
    result = dict(doc["result"], verdict=doc["verdict"], exitCode=doc["exitCode"])
    for s in result["stages"]:
        for c in s["checks"]:
            here = {"stage": s["name"], "check": c["name"]}
            c["findings"] = [
                dict(f, details={k: v for k, v in f["details"].items() if k not in here})
                for f in doc["findings"]
                if {k: f["details"].get(k) for k in here} == here
            ]
    assert sum(len(c["findings"]) for s in result["stages"] for c in s["checks"]) == len(doc["findings"])
    return result


SARIF_SCHEMA = json.loads(
    (Path(__file__).resolve().parent / "data" / "sarif" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")
)
SARIF_VALIDATOR = validator_for(SARIF_SCHEMA)(SARIF_SCHEMA, format_checker=FormatChecker())
"""The official SARIF 2.1.0 schema (OASIS, vendored: tests/data/README.md)."""


def sarif(text: str) -> dict:
    """The SARIF log *text* holds, after checking it is valid SARIF 2.1.0."""
    doc = json.loads(text)
    assert sorted(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in SARIF_VALIDATOR.iter_errors(doc)) == []
    return doc
