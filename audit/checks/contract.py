"""Contract verification: sidecars, brain transcripts and sweep manifests against the bundled schemas.

Each file is read as strict JSON first (``audit.safeio.loads``): a duplicate key, NaN/Infinity,
invalid UTF-8, a byte-order mark, a non-object top level, excessive nesting or a syntax error is
a violation with a ``strict-json/*`` rule. A document that parses is then checked against its
schema (``audit.checks.schemas``). A brain transcript is checked line by line, every line being one
record; a line that is not JSON at all is a *torn line* (formats.md §2.4, consumers skip it) and
is reported as an advisory, not a violation.

Findings are ``violation`` (the file breaks the contract) or ``advisory`` (reported, e.g. a
free-form status string such as agentsview's synthetic ``STATUS_COMPLETED``). A file that cannot
be read at all carries an ``error`` instead.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from audit.checks import schemas
from audit.checks.schemas import ADVISORY, VIOLATION
from audit.errors import AuditError, InputError, NothingToCheck
from audit.progress import Callback
from audit.safeio import DIRECTORY, FILE, LINK, MAX_DOCUMENT_BYTES, JSONError, gc_paused, loads, path_kind, read_bytes
from audit.store.layout import INSTALL_FILES

KINDS = {"sidecar": "sidecar", "transcript": "transcript-record", "manifest": "manifest", "profile": "consumer-profile"}
"""Kind of file -> name of the bundled schema checking it."""

MAX_BYTES = MAX_DOCUMENT_BYTES
"""Larger files are reported unreadable rather than parsed."""

TORN_LINE = "transcript/torn-line"
_STRICT_RULES = (  # JSONError reason prefix -> rule; anything else is strict-json/syntax
    (("duplicate key",), "strict-json/duplicate-key"),
    (("invalid UTF-8",), "strict-json/invalid-utf8"),
    (("starts with a byte-order mark",), "strict-json/byte-order-mark"),
    (("top level is",), "strict-json/not-object"),
    (("nesting deeper",), "strict-json/too-deep"),
    (("NaN", "Infinity", "-Infinity"), "strict-json/non-finite-number"),
)
STRICT_JSON_RULES = tuple(rule for _, rule in _STRICT_RULES) + ("strict-json/syntax",)


@dataclass(frozen=True)
class Finding:
    """One failed rule in one file: RFC 6901 pointer into the document (into the record for
    transcripts, whose 1-based ``line`` is set), rule id, ``violation`` or ``advisory``, message."""

    file: str
    pointer: str
    rule: str
    message: str
    level: str = VIOLATION
    line: int | None = None


@dataclass(frozen=True)
class FileResult:
    file: str
    kind: str
    records: int = 0  # documents checked: 1, or the transcript lines
    findings: tuple[Finding, ...] = ()
    error: str | None = None  # why the file could not be read

    @property
    def violations(self) -> list[Finding]:
        return [f for f in self.findings if f.level == VIOLATION]

    @property
    def advisories(self) -> list[Finding]:
        return [f for f in self.findings if f.level == ADVISORY]

    @property
    def valid(self) -> bool:
        return self.error is None and not self.violations


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class Report:
    kind: str
    files: tuple[FileResult, ...]
    skipped: tuple[Skipped, ...] = ()

    def counts(self, level: str = VIOLATION) -> dict[str, int]:
        """Findings of *level* per rule, by rule id."""
        counter = Counter(f.rule for r in self.files for f in r.findings if f.level == level)
        return dict(sorted(counter.items()))

    @property
    def unreadable(self) -> list[FileResult]:
        return [r for r in self.files if r.error is not None]

    @property
    def invalid(self) -> list[FileResult]:
        return [r for r in self.files if r.error is None and r.violations]


def validate_document(document: object, kind: str = "sidecar", *, file: str = "<document>") -> FileResult:
    """Check an already parsed sidecar or manifest (e.g. a manifest before it is written)."""
    return FileResult(file, kind, 1, _schema_findings(document, kind, file))


def validate_bytes(data: bytes, kind: str = "sidecar", *, file: str = "<input>") -> FileResult:
    """Check the bytes of one file of *kind*; never raises for bad content."""
    if kind == "transcript":
        return _validate_transcript(data, file)
    try:
        document = loads(data, source=file)
    except JSONError as exc:
        return FileResult(file, kind, 1, (_strict_finding(exc, file),))
    return validate_document(document, kind, file=file)


def validate_file(path: str | os.PathLike, kind: str = "sidecar") -> FileResult:
    """Check one file; an unreadable file gives a result with ``error`` set."""
    file = str(path)
    try:
        data = read_bytes(path, limit=MAX_BYTES)
    except AuditError as exc:
        return FileResult(file, kind, error=exc.message.removeprefix(f"{file}: "))
    with gc_paused():
        return validate_bytes(data, kind, file=file)


def verify_paths(paths: Iterable[str | os.PathLike], kind: str = "sidecar", *, progress: Callback | None = None) -> Report:
    """Check every file of *kind* named or found (recursively) under *paths*; *progress* is
    called before each file with (files done, files found, file).

    Raises ``NothingToCheck`` when no file was found and nothing was unreadable.
    """
    files, missing, skipped = find_files(paths, kind)
    results = [FileResult(str(p), kind, error=reason) for p, reason in missing]
    for done, path in enumerate(files):
        if progress is not None:
            progress(done, len(files), str(path))
        results.append(validate_file(path, kind))
    if not results:
        raise NothingToCheck(f"no {_PATTERN_TEXT[kind]} found")
    return Report(kind, tuple(results), tuple(skipped))


_PATTERN_TEXT = {
    "sidecar": "*.trajectory.json files",
    "transcript": "*.jsonl transcripts",
    "manifest": "manifest.json files",
    "profile": "*.json consumer profiles",
}


def _matches(name: str, kind: str) -> bool:
    if kind == "sidecar":
        return name.endswith(".trajectory.json")
    if kind == "transcript":  # a root's history.jsonl is per-install data, not a transcript (real-stores.md A.1)
        return name.endswith(".jsonl") and name not in INSTALL_FILES
    if kind == "profile":
        return name.endswith(".json")
    return name == "manifest.json"


def find_files(paths: Iterable[str | os.PathLike], kind: str) -> tuple[list[Path], list[tuple[Path, str]], list[Skipped]]:
    """Files to check (named files as given; directories walked for *kind*'s file names, symbolic
    links below them skipped), paths that do not exist, and what was skipped. No duplicates."""
    files: list[Path] = []
    missing: list[tuple[Path, str]] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()

    def add(path: Path) -> None:
        real = os.path.realpath(path)
        if real not in seen:
            seen.add(real)
            files.append(path)

    for raw in paths:
        path = Path(raw)
        try:
            what = path_kind(path)
        except InputError as exc:
            missing.append((path, exc.message.removeprefix(f"{path}: ")))
            continue
        if what == DIRECTORY:
            for dirpath, dirnames, filenames in os.walk(
                path, onerror=lambda exc: missing.append((Path(exc.filename), _os_reason(exc)))
            ):
                dirnames.sort()
                for name in dirnames:
                    if os.path.islink(os.path.join(dirpath, name)):
                        skipped.append(Skipped(os.path.join(dirpath, name), "symbolic link to a directory, not followed"))
                for name in sorted(filenames):
                    child = Path(dirpath, name)
                    if not _matches(name, kind):
                        continue
                    try:
                        child_kind = path_kind(child, follow_symlinks=False)
                    except InputError as exc:
                        missing.append((child, exc.message.removeprefix(f"{child}: ")))
                        continue
                    if child_kind == LINK:
                        skipped.append(Skipped(str(child), "symbolic link"))
                    elif child_kind != FILE:
                        skipped.append(Skipped(str(child), "not a regular file"))
                    else:
                        add(child)
        elif what == FILE:
            add(path)
        else:
            missing.append((path, "not a regular file" if os.path.lexists(path) else "no such file or directory"))
    return files, missing, skipped


def _os_reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


# ----------------------------------------------------------------------------- checking


def _schema_findings(document: object, kind: str, file: str, line: int | None = None) -> tuple[Finding, ...]:
    return tuple(Finding(file, f.pointer, f.rule, f.message, f.level, line) for f in schemas.load(KINDS[kind]).check(document))


def _strict_finding(exc: JSONError, file: str, line: int | None = None) -> Finding:
    rule = next((rule for prefixes, rule in _STRICT_RULES if exc.reason.startswith(prefixes)), "strict-json/syntax")
    return Finding(file, exc.pointer or "", rule, exc.reason, VIOLATION, line)


def _validate_transcript(data: bytes, file: str) -> FileResult:
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    findings: list[Finding] = []
    for number, raw in enumerate(lines, 1):
        try:
            record = loads(raw, source=f"{file}:{number}")
        except JSONError as exc:
            finding = _strict_finding(exc, file, number)
            if finding.rule == "strict-json/syntax":
                finding = Finding(
                    file, "", TORN_LINE, f"not a JSON value (a torn line; consumers skip it): {exc.reason}", ADVISORY, number
                )
            findings.append(finding)
            continue
        findings.extend(_schema_findings(record, "transcript", file, number))
    return FileResult(file, "transcript", len(lines), tuple(findings))
