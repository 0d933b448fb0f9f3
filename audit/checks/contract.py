"""Contract verification: sidecars, brain transcripts and sweep manifests against the bundled schemas.

Each file is read as strict JSON first (``audit.strictjson.loads``): a duplicate key, NaN/Infinity,
invalid UTF-8, a byte-order mark, a non-object top level, excessive nesting or a syntax error is
a violation with a ``strict-json/*`` rule. A document that parses is then checked against its
schema (``audit.checks.schemas``).

A brain transcript is checked record by record, as ``audit.store.transcript`` reads its tier:
``transcript.jsonl``, ``transcript_full.jsonl``, ``overview.txt``, and a chunk directory
(``chunks/transcript/``, ``chunks/transcript_full/``) as one byte stream, so a record crossing
from one part into the next is one record. A chunk directory whose bytes equal its flat file's
is not checked twice (it is listed as skipped, with that reason); one that differs is checked
too, with the advisory ``transcript/chunks/differ``. What the reader finds about lines and
streams becomes the advisories of ``STREAM_RULES`` (a torn line, a truncated argument, the other
tier's argument encoding, a repeated step, a late window ...): consumers must tolerate them.

Findings (``audit.findings``) are violations, of level ``error`` (the file breaks the contract),
or advisories, of level ``warning`` (reported, e.g. a free-form status string such as agentsview's
synthetic ``STATUS_COMPLETED``). Only a rule whose evidence is ``observed`` or ``documented`` makes
a violation (``audit.checks.schemas``). A file that cannot be read at all carries an ``error``
(the reason) instead. ``Report.exit_code``: 2 any unreadable file, 1 any violation, else 0.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from audit.checks import schemas
from audit.errors import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, AuditError, InputError, NothingToCheck
from audit.findings import UNREADABLE, Finding, HasFindings, Level, rule_counts
from audit.progress import Callback
from audit.safeio import DIRECTORY, FILE, LINK, MAX_DOCUMENT_BYTES, path_kind, read_bytes
from audit.store import transcript
from audit.store.layout import INSTALL_FILES
from audit.strictjson import JSONError, gc_paused, loads

KINDS = {"sidecar": "sidecar", "transcript": "transcript-record", "manifest": "manifest", "profile": "consumer-profile"}
"""Kind of file -> name of the bundled schema checking it."""

MAX_BYTES = MAX_DOCUMENT_BYTES
"""Larger files are reported unreadable rather than parsed."""

TORN_LINE = "transcript/torn-line"
SKIPPED = "skipped"
"""The rule of a file not checked (a note, with the reason)."""


@dataclass(frozen=True)
class StreamRule:
    """A transcript rule the reader checks (not a schema rule): always an advisory."""

    rule: str
    evidence: str
    description: str
    kinds: tuple[str, ...]  # the ``audit.store.transcript`` finding kinds it reports


STREAM_RULES = (
    StreamRule(
        TORN_LINE,
        "observed",
        "A line that is not JSON at all: the tail of a record whose start is missing (a torn write); consumers skip it.",
        ("bad-json",),
    ),
    StreamRule(
        "transcript/blank-line", "inferred", "An empty line (never seen in real transcripts); consumers skip it.", ("blank-line",)
    ),
    StreamRule(
        "transcript/line-too-long",
        "inferred",
        "A line longer than the reader's cap; skipped, so its record is not checked.",
        ("line-too-long",),
    ),
    StreamRule(
        "transcript/unterminated-line",
        "observed",
        "The last line of a stream has no newline (flat files end with one; a live writer can be mid-line).",
        ("unterminated-line",),
    ),
    StreamRule(
        "transcript/args/truncated",
        "observed",
        "A tool-call argument of the compact tier or overview cut by `<truncated N bytes>`: no longer JSON text (834 such values in real files, some on lines whose `truncated_fields` does not name `tool_calls`).",
        ("truncated-arg",),
    ),
    StreamRule(
        "transcript/args/tier-encoding",
        "observed",
        "A tier whose arguments all have the other tier's encoding: JSON text is the compact tier's and overview's, native values the full tier's (12,669/12,669 real pairs).",
        ("tier-encoding",),
    ),
    StreamRule(
        "transcript/args/mixed-encoding",
        "observed",
        "A file whose arguments use both encodings (every real file uses one).",
        ("mixed-encoding",),
    ),
    StreamRule(
        "transcript/step-order",
        "observed",
        "A `step_index` seen before (a rewind re-uses it) or lower than an earlier one (CHECKPOINT lines are written late).",
        ("repeated-step", "inverted-step"),
    ),
    StreamRule(
        "transcript/created_at/backward",
        "observed",
        "A `created_at` earlier than the line before (74 times in real files).",
        ("backward-time",),
    ),
    StreamRule(
        "transcript/window/late",
        "observed",
        "A stream whose first `step_index` is above 0: a window that starts late (both tiers, and overview, do).",
        ("late-window",),
    ),
    StreamRule(
        "transcript/truncated_fields/tier",
        "observed",
        "`truncated_fields` in the full tier or overview (only the compact tier truncates).",
        ("truncated-full",),
    ),
    StreamRule(
        "transcript/chunks/differ",
        "observed",
        "A tier's chunk parts, concatenated, differ from its flat file (they are byte-identical in real stores; a prefix while agy writes).",
        ("chunks-differ",),
    ),
)
"""The transcript rules checked while reading, all advisories (see ``audit.checks.schemas.catalog`` for the schema's)."""
_STREAM_RULE = {kind: r.rule for r in STREAM_RULES for kind in r.kinds}
_STRICT_RULES = (  # JSONError reason prefix -> rule; anything else is strict-json/syntax
    (("duplicate key",), "strict-json/duplicate-key"),
    (("invalid UTF-8",), "strict-json/invalid-utf8"),
    (("starts with a byte-order mark",), "strict-json/byte-order-mark"),
    (("top level is",), "strict-json/not-object"),
    (("nesting deeper",), "strict-json/too-deep"),
    (("NaN", "Infinity", "-Infinity"), "strict-json/non-finite-number"),
)
STRICT_JSON_RULES = tuple(rule for _, rule in _STRICT_RULES) + ("strict-json/syntax",)
"""Violations (documented: RFC 8259 JSON, which every consumer's parser expects)."""


@dataclass(frozen=True)
class FileResult(HasFindings):
    """One file's findings: each names the file, its RFC 6901 pointer into the document (into the
    record for transcripts, whose 1-based ``line`` is set), its rule and level."""

    file: str
    kind: str
    records: int = 0  # documents checked: 1, or the transcript lines
    findings: tuple[Finding, ...] = ()
    error: str | None = None  # why the file could not be read

    @property
    def valid(self) -> bool:
        return self.error is None and not self.errors


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass(frozen=True)
class Report:
    kind: str
    files: tuple[FileResult, ...]
    skipped: tuple[Skipped, ...] = ()

    @property
    def findings(self) -> list[Finding]:
        """Every finding in file order: an unreadable file's ``unreadable`` error, each file's
        findings, then what was skipped (rule ``skipped``, notes)."""
        out = []
        for r in self.files:
            if r.error is not None:
                out.append(Finding(UNREADABLE, Level.ERROR, r.error, r.file))
            out += r.findings
        return out + [Finding(SKIPPED, Level.NOTE, s.reason, s.path) for s in self.skipped]

    def counts(self, level: Level = Level.ERROR) -> dict[str, int]:
        """Findings of *level* per rule, by rule id."""
        return rule_counts(self.findings, level)

    @property
    def unreadable(self) -> list[FileResult]:
        return [r for r in self.files if r.error is not None]

    @property
    def invalid(self) -> list[FileResult]:
        return [r for r in self.files if r.error is None and r.errors]

    @property
    def exit_code(self) -> int:
        if self.unreadable:
            return EXIT_USAGE
        return EXIT_FINDINGS if self.invalid else EXIT_OK


def validate_document(document: object, kind: str = "sidecar", *, file: str = "<document>") -> FileResult:
    """Check an already parsed sidecar or manifest (e.g. a manifest before it is written)."""
    return FileResult(file, kind, 1, _schema_findings(document, kind, file))


def validate_bytes(data: bytes, kind: str = "sidecar", *, file: str = "<input>") -> FileResult:
    """Check the bytes of one file of *kind*; never raises for bad content."""
    if kind == "transcript":
        return _transcript_results(transcript.iter_bytes(data, file), [file])[0]
    try:
        document = loads(data, source=file)
    except JSONError as exc:
        return FileResult(file, kind, 1, (_strict_finding(exc, file),))
    return validate_document(document, kind, file=file)


def validate_file(path: str | os.PathLike[str], kind: str = "sidecar") -> FileResult:
    """Check one file (a chunk part alone: see ``validate_stream``); an unreadable file gives a
    result with ``error`` set."""
    file = str(path)
    if kind == "transcript":
        return validate_stream([file])[0]
    try:
        data = read_bytes(path, limit=MAX_BYTES)
    except AuditError as exc:
        return FileResult(file, kind, error=exc.message.removeprefix(f"{file}: "))
    with gc_paused():
        return validate_bytes(data, kind, file=file)


def validate_stream(paths: Iterable[str | os.PathLike[str]], *, tier: str | None = None) -> list[FileResult]:
    """Check the parts of one transcript stream (read as one byte stream, see the module
    docstring); one result per part, in order."""
    files = [str(p) for p in paths]
    with gc_paused():
        return _transcript_results(transcript.iter_transcript(files, tier=tier), files)


def verify_paths(
    paths: Iterable[str | os.PathLike[str]],
    kind: str = "sidecar",
    *,
    progress: Callback | None = None,
    checked: Mapping[tuple[str, ...], list[FileResult]] | None = None,
) -> Report:
    """Check every file of *kind* named or found (recursively) under *paths*; *progress* is
    called before each file with (files done, files found, file). Transcripts are checked per
    stream (``transcript_streams``). A stream or file in *checked* (its files' paths, as
    ``validate_stream`` or ``validate_document`` gave its results) is not read again.

    Raises ``NothingToCheck`` when no file was found and nothing was unreadable.
    """
    files, missing, skipped = find_files(paths, kind)
    results = [FileResult(str(p), kind, error=reason) for p, reason in missing]
    if kind == "transcript":
        streams, extra, notes = transcript_streams(files)
        skipped += notes
        done = 0
        for stream in streams:
            if progress is not None:
                progress(done, len(files), str(stream[0]))
            done += len(stream)
            known = checked.get(tuple(map(str, stream))) if checked is not None else None
            found = list(known) if known is not None else validate_stream(stream)
            if stream[0] in extra:
                first = found[0]
                found[0] = FileResult(first.file, first.kind, first.records, (*first.findings, extra[stream[0]]), first.error)
            results += found
    else:
        for done, path in enumerate(files):
            if progress is not None:
                progress(done, len(files), str(path))
            known = checked.get((str(path),)) if checked is not None else None
            results += known if known is not None else [validate_file(path, kind)]
    if not results:
        raise NothingToCheck(f"no {_PATTERN_TEXT[kind]} found")
    return Report(kind, tuple(results), tuple(skipped))


_PATTERN_TEXT = {
    "sidecar": "*.trajectory.json files",
    "transcript": "*.jsonl or logs/overview.txt transcripts",
    "manifest": "manifest.json files",
    "profile": "*.json consumer profiles",
}


def _matches(name: str, kind: str) -> bool:
    if kind == "sidecar":
        return name.endswith(".trajectory.json")
    if kind == "transcript":  # a root's history.jsonl is per-install data, not a transcript (docs/store-format.md#roots)
        return (name.endswith(".jsonl") and name not in INSTALL_FILES) or name == transcript.FLAT_NAMES["overview"]
    if kind == "profile":
        return name.endswith(".json")
    return name == "manifest.json"


def find_files(paths: Iterable[str | os.PathLike[str]], kind: str) -> tuple[list[Path], list[tuple[Path, str]], list[Skipped]]:
    """Files to check (named files as given; directories walked for *kind*'s file names, symbolic
    links below them skipped), paths that do not exist, and what was skipped. No duplicates."""
    files: list[Path] = []
    missing: list[tuple[Path, str]] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()

    def add(path: Path, real: str | None = None) -> None:
        real = real or os.path.realpath(path)
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
            top = str(path)
            top_real = os.path.realpath(top)  # below it, only directories walk enters: none is a link
            for dirpath, dirnames, filenames in os.walk(
                top, onerror=lambda exc: missing.append((Path(exc.filename), _os_reason(exc)))
            ):
                dirnames.sort()
                for name in dirnames:
                    if os.path.islink(os.path.join(dirpath, name)):
                        skipped.append(Skipped(os.path.join(dirpath, name), "symbolic link to a directory, not followed"))
                real_dir = os.path.join(top_real, dirpath[len(top) :].lstrip(os.sep))
                for name in sorted(filenames):
                    if not _matches(name, kind):
                        continue
                    child = Path(dirpath, name)
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
                        add(child, os.path.join(real_dir, name))
        elif what == FILE:
            add(path)
        else:
            missing.append((path, "not a regular file" if os.path.lexists(path) else "no such file or directory"))
    return files, missing, skipped


def _os_reason(exc: OSError) -> str:
    return (exc.strerror or str(exc)).lower()


# ----------------------------------------------------------------------------- checking


def _schema_findings(document: object, kind: str, file: str, line: int | None = None) -> tuple[Finding, ...]:
    return tuple(
        Finding(f.rule, f.level, f.message, file, line, pointer=f.pointer) for f in schemas.load(KINDS[kind]).check(document)
    )


def _strict_finding(exc: JSONError, file: str, line: int | None = None) -> Finding:
    rule = next((rule for prefixes, rule in _STRICT_RULES if exc.reason.startswith(prefixes)), "strict-json/syntax")
    return Finding(rule, Level.ERROR, exc.reason, file, line, pointer=exc.pointer or "")


def transcript_streams(files: list[Path]) -> tuple[list[list[Path]], dict[Path, Finding], list[Skipped]]:
    """Group transcript *files* into streams: the parts of one chunk directory (in number order)
    form one, every other file is its own. A chunk stream whose flat file is among *files* is
    compared with it: byte-identical (or a prefix of it) -> not checked again, listed as skipped;
    the flat file a prefix of the chunks -> the flat file is the one skipped; different -> both
    checked, with a ``transcript/chunks/differ`` advisory on the flat file (returned by path)."""
    order: list[Path] = []
    parts: dict[Path, list[tuple[int, Path]]] = {}
    for path in files:
        if transcript.tier_of(path) is not None and path.parent.parent.name == "chunks":
            if path.parent not in parts:
                parts[path.parent] = []
                order.append(path.parent)
            parts[path.parent].append((int(path.name[: -len(".jsonl")]), path))
        else:
            order.append(path)
    flats = {p for p in order if isinstance(p, Path) and p not in parts}
    drop: set[Path] = set()
    extra: dict[Path, Finding] = {}
    notes: list[Skipped] = []
    for directory, numbered in parts.items():
        chunks = tuple(p for _, p in sorted(numbered))
        name = transcript.tier_of(chunks[0])
        assert name is not None  # parts holds only files tier_of placed in a tier
        flat = directory.parent.parent / transcript.FLAT_NAMES[name]
        if flat not in flats:
            continue
        state = transcript.Tier(name, flat, chunks).agreement()
        what = f"{len(chunks)} chunk part(s) of {directory}"
        if state in ("identical", "chunks-prefix"):
            drop.add(directory)
            same = "are byte-identical to" if state == "identical" else "hold the start of"
            notes.append(Skipped(str(directory), f"its {len(chunks)} part(s) {same} {flat.name}, checked there"))
        elif state == "flat-prefix":
            drop.add(flat)
            notes.append(Skipped(str(flat), f"holds the start of the {what}, checked there"))
        else:
            message = f"the {what} {'differ from' if state == 'differ' else 'could not be compared with'} this file; both checked"
            extra[flat] = Finding("transcript/chunks/differ", Level.WARNING, message, str(flat))
    streams = [[p for _, p in sorted(parts[item])] if item in parts else [item] for item in order if item not in drop]
    return streams, extra, notes


def _transcript_results(items: Iterable[transcript.Record | transcript.Anomaly], files: list[str]) -> list[FileResult]:
    """One result per file of a stream from the reader's records (schema-checked) and findings;
    ``records`` counts the lines that start in the file."""
    records = dict.fromkeys(files, 0)
    findings: dict[str, list[Finding]] = {f: [] for f in files}
    errors: dict[str, str] = {}
    for item in items:
        if isinstance(item, transcript.Record):
            records[item.file] += 1
            findings[item.file].extend(_schema_findings(item.raw, "transcript", item.file, item.line))
        elif item.kind == "unreadable":
            errors[item.file] = item.message.removeprefix("cannot read: ").lower()
        else:
            records[item.file] += item.kind in transcript.DROPPED  # a line too, though no record
            if (finding := stream_finding(item)) is not None:
                findings[item.file].append(finding)
    return [FileResult(f, "transcript", records[f], tuple(findings[f]), errors.get(f)) for f in files]


_READER_STRICT = {"bad-utf8": "strict-json/invalid-utf8", "not-object": "strict-json/not-object"}


SCHEMA_JUDGED = frozenset(
    {"missing-key", "no-status", "unknown-key", "bad-value", "unknown-source", "unknown-type", "unknown-status"}
)
"""Reader finding kinds about a record's own keys and values: the schema judges that record (its
rules decide the level), so ``stream_finding`` gives none for them."""


def stream_finding(item: transcript.Anomaly) -> Finding | None:
    """The contract finding for a reader finding; None where the schema judges the record
    itself (``SCHEMA_JUDGED``) or the kind is no finding here (a step gap: agy never writes some
    steps to transcripts, and the compact-vs-full pairing is ``consistency``'s)."""
    line = item.line or None
    if item.kind in _READER_STRICT:
        return Finding(_READER_STRICT[item.kind], Level.ERROR, item.message, item.file, line)
    if item.kind == "bad-json":
        rule = next((rule for prefixes, rule in _STRICT_RULES if item.message.startswith(prefixes)), None)
        if rule is not None:
            message = item.message.removesuffix(f" at {item.pointer or '/'}")
            return Finding(rule, Level.ERROR, message, item.file, line, pointer=item.pointer)
        return Finding(
            TORN_LINE, Level.WARNING, f"not a JSON value (a torn line; consumers skip it): {item.message}", item.file, line
        )
    rule = _STREAM_RULE.get(item.kind)
    if rule is None:
        return None
    return Finding(rule, Level.WARNING, item.message, item.file, line, pointer=item.pointer)
