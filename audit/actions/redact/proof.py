"""The run (``redact``): the copy, then the proof that it keeps every fingerprint of its source and
no replaced source string; and its report (``REDACTION.md``)."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from pathlib import Path

from audit.actions.redact.documents import redact_manifest
from audit.actions.redact.replacements import Redactor
from audit.actions.redact.run import Result, Run
from audit.actions.redact.tree import by_session, copy_files, listing
from audit.checks.fingerprint import fingerprint_paths
from audit.checks.fingerprint.surfaces import kept_by_redact
from audit.errors import FindingsError, InputError, UsageError
from audit.progress import Callback, Factory, step
from audit.safeio import MAX_DOCUMENT_BYTES, is_dir, open_regular
from audit.safewrite import atomic_write, filesystem_handle, make_private_dir, sync_files
from audit.store.corpus import is_corpus

REPORT = "REDACTION.md"

MAX_FILE_SIZE = MAX_DOCUMENT_BYTES
"""The default limit (256 MiB, the one size limit) of a file redact reads whole."""

# ----------------------------------------------------------------------------- the proof


def _survivors(out: Path, r: Redactor, progress: Callback | None = None) -> list[str]:
    """Replaced source strings found in the copy (the first of each file), except those that are
    (part of) a kept key or name. Our own report is template text: only the ids in the paths it
    lists could leak."""
    excused: dict[bytes, bool] = {}
    found = []
    files = [path for path, st in listing(out) if stat.S_ISREG(st.st_mode)]
    for done, path in enumerate(files):
        rel = path.relative_to(out)
        if progress is not None:
            progress(done, len(files), str(rel))
        with open_regular(path) as fh:
            for needle in r.needles.find(fh, ids_only=path == out / REPORT):
                if needle not in excused:
                    text = needle.decode("utf-8", "surrogateescape")
                    excused[needle] = any(text in name for name in r.kept)
                if not excused[needle]:
                    found.append(f"{rel}: {len(needle)}-byte source string survives")
                    break
    return found


def redact(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    key: bytes | None = None,
    max_file_size: int = MAX_FILE_SIZE,
    progress: Factory | None = None,
) -> Result:
    """Write the redacted copy of *source* to the new directory *out* and prove it (module doc).
    *progress* makes the progress line of each step: the copy, the fingerprints of the source
    and of the copy, the search of the copy for source strings.

    Raises ``InputError`` when *source* is missing or cannot be read (before *out* is made when
    its listing fails), when a file is larger than *max_file_size*, or when *out* exists;
    ``FindingsError`` (after removing *out*) when the proof fails."""
    source, out = Path(source).expanduser(), Path(out).expanduser()
    if not is_dir(source):
        raise InputError(f"{source}: not a directory (a home, a store root or a sweep corpus)")
    if os.path.lexists(out):
        raise InputError(f"{out}: already exists; redact writes a new directory")
    if out.resolve().is_relative_to(source.resolve()):
        raise UsageError(f"{out}: inside the source {source}; choose a directory outside it")
    files = listing(source)
    r = Redactor(key if key is not None else os.urandom(32))
    result = Result(source, out, shift_days=r.shift.days)
    run = Run(source, out, r, result, max_file_size, corpus=is_corpus(source))
    make_private_dir(out)
    filesystem = None
    try:
        with contextlib.suppress(OSError):
            filesystem = filesystem_handle(out)
        with step(progress, "redact: copy", "files") as bar:
            copy_files(run, by_session(files, source), bar)
            if run.corpus:
                redact_manifest(run)
            sync_files(run.written, out, filesystem=filesystem)
        problems = run.problems
        proven = kept_by_redact()
        with step(progress, "redact: proof, fingerprints of the source", "files") as bar:
            before = fingerprint_paths([source], proven, progress=bar)
        with step(progress, "redact: proof, fingerprints of the copy", "files") as bar:
            after = fingerprint_paths([out], proven, progress=bar)
        for surface in proven:
            a, b = before.fingerprints.get(surface), after.fingerprints.get(surface)
            result.digests[surface] = (a.digest if a else None, b.digest if b else None)
            if result.digests[surface][0] != result.digests[surface][1]:
                problems.append(
                    f"{surface} fingerprint differs: source {result.digests[surface][0]}, copy {result.digests[surface][1]}"
                )
        result.counts = dict(r.counts)
        atomic_write(out / REPORT, report_text(result).encode("utf-8"))  # searched with the rest
        with step(progress, "redact: proof, search of the copy for source strings", "files") as bar:
            problems += _survivors(out, r, bar)
        if problems:
            shown = "; ".join(problems[:5]) + (f" (+{len(problems) - 5} more)" if len(problems) > 5 else "")
            raise FindingsError(f"{source}: redaction refused, the copy was removed: {shown}")
    except BaseException:
        shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        if filesystem is not None:
            os.close(filesystem)
    return result


def report_text(result: Result) -> str:
    """REDACTION.md: what was replaced, what was kept, the digests that match."""
    c = result.counts
    lines = [
        "# Redacted copy (agy-audit redact)",
        "",
        f"Source: a copy of `{result.source.name}` with every piece of content replaced; the format is kept.",
        "",
        "## Replaced",
        "",
        f"- {c.get('text', 0)} text values (same length and character classes; white space, punctuation and",
        "  `<truncated N bytes>` markers, agy's upper-case tags and the headers of transcript content kept)",
        f"- {c.get('json-text', 0)} JSON-text values redacted inside their JSON (still valid JSON of the same shape)",
        f"- {c.get('ids', 0)} UUIDs, each mapped to one new UUID everywhere (values, file and directory names)",
        f"- {c.get('timestamps', 0)} timestamps, shifted by one constant ({result.shift_days} days): order and gaps kept",
        f"- {c.get('bytes', 0)} bytes values (signatures) by random bytes of the same length",
        f"- {c.get('unknown', 0)} values of protobuf fields cortex.proto does not name: as a message when they parse",
        "  as one, else as text or bytes (keys and lengths kept)",
        f"- {c.get('legacy', 0)} legacy encrypted .pb files by random bytes of the same length",
        "",
        "## Kept (format, not content)",
        "",
        "Object keys, numbers (token counts, exit codes, line numbers), booleans, enum names, tool and argument",
        "names, transcript record types, statuses and sources, file and directory names (their UUIDs mapped),",
        "the SQLite schema, text without a letter or a digit (runs of spaces), and every byte of a protobuf blob",
        "but those of its text and bytes fields (field order, fields encoded at their default value, packed numbers).",
        "",
        "## Left out",
        "",
    ]
    lines += [f"- `{item}`" for item in result.left_out] or ["- nothing"]
    lines += ["", "## Fingerprints (source = copy)", "", "| surface | digest |", "| --- | --- |"]
    lines += [f"| {s} | `{a or 'absent'}` |" for s, (a, _b) in result.digests.items()]
    lines += ["", "No replaced source string occurs in the copy (each whose placeholder is one of at least 2**40: about",
              "9 letters or 12 digits), and every JSON document differs from its source only by string values.", ""]  # fmt: skip
    return "\n".join(lines)
