"""One findings model for every check: a ``Finding`` names its rule, its ``Level``, what is wrong
and where (file, line, column, JSON pointer), plus a few details of its own.

The levels are the SARIF (2.1.0 ``result.level``) and GitHub problem-matcher vocabulary:
``error`` fails its check (a contract violation, a disagreement, a file that cannot be read),
``warning`` is reported and never fails (an advisory: real stores show it, consumers must
tolerate it), ``note`` is information (what a check could not judge, an unknown protobuf field).
A ``Level`` is a ``str``, so JSON written from it is the plain word. Every place that prints
findings as text prints them in one line format (``audit.report.text.finding_line``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

UNREADABLE = "unreadable"
"""The rule of a file that cannot be read (an error), whichever check meets it."""

Detail = str | int | bool | None
"""A detail's value: plain JSON scalars only (a finding pickles and prints as it is)."""


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Verdict(StrEnum):
    """The outcome of a check or a run: ``pass``; ``fail`` (findings that fail it); ``skipped``
    (nothing to check); ``error`` (it could not run, or its input could not be read)."""

    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Finding:
    """One rule a check found broken (or worth telling), and where.

    ``rule`` is a stable id (``transcript/window/late``, ``consistency/status``); ``file`` is None
    when the finding is about no one file; ``line`` and ``column`` are 1-based, None when unknown;
    ``pointer`` is an RFC 6901 pointer into the document (or the line's record), "" for none;
    ``details`` holds what only one command has (a step index, ``projected``)."""

    rule: str
    level: Level
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    pointer: str = ""
    details: Mapping[str, Detail] = field(default_factory=dict, hash=False)

    def where(self) -> str:
        """``FILE:LINE:COL`` as far as known (``FILE``, ``FILE:LINE``); "" without a file."""
        if self.file is None:
            return ""
        line = "" if self.line is None else f":{self.line}" + ("" if self.column is None else f":{self.column}")
        return self.file + line


class HasFindings:
    """The level views of a result holding ``findings``."""

    findings: Sequence[Finding]

    @property
    def errors(self) -> list[Finding]:
        return of_level(self.findings, Level.ERROR)

    @property
    def warnings(self) -> list[Finding]:
        return of_level(self.findings, Level.WARNING)

    @property
    def notes(self) -> list[Finding]:
        return of_level(self.findings, Level.NOTE)


def of_level(findings: Iterable[Finding], level: Level) -> list[Finding]:
    return [f for f in findings if f.level == level]


def rule_counts(findings: Iterable[Finding], level: Level) -> dict[str, int]:
    """Findings of *level* per rule id, sorted by rule id."""
    return dict(sorted(Counter(f.rule for f in findings if f.level == level).items()))
