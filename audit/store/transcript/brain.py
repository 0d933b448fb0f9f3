"""The transcripts of one brain directory: each tier's flat file and chunk parts (``locate``),
whether they agree, and the compact tier paired with the full one.

``pair_records`` pairs the compact and full transcripts of one brain directory and reports where
they disagree beyond the documented truncation; ``read_brain`` does everything for a brain dir
(it holds both transcripts in memory to pair them).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from audit.store.transcript.model import (
    _CHUNK_NAME,
    _MARKER,
    CHUNK_DIRS,
    FLAT_NAMES,
    MAX_LINE_BYTES,
    TIERS,
    Anomaly,
    Record,
)
from audit.store.transcript.reading import _open, iter_transcript
from audit.strictjson import dumps

_CUT = re.compile(r"\n?<truncated \d+ (?:bytes|lines)>\n?")
"""A marker with the line breaks agy puts around it (docs/store-format.md#argument-encoding)."""


@dataclass(frozen=True)
class Tier:
    """One tier of a brain directory: its flat file and its chunk parts (in order), as found."""

    name: str
    flat: Path | None
    chunks: tuple[Path, ...]

    def agreement(self) -> str | None:
        """None unless both a flat file and chunks exist; then ``identical`` (the concatenated
        chunks are the flat file's bytes), ``chunks-prefix`` / ``flat-prefix`` (one holds the
        start of the other: written while agy was running), ``differ``, or ``unreadable``."""
        if self.flat is None or not self.chunks:
            return None
        return _compare_streams((self.flat,), self.chunks)

    @property
    def stream(self) -> tuple[Path, ...]:
        """The files to read as this tier: the flat file, or the chunks when there is no flat
        file or when the flat file holds only the start of the chunks."""
        if self.flat is None:
            return self.chunks
        if self.chunks and self.agreement() == "flat-prefix":
            return self.chunks
        return (self.flat,)


def _compare_streams(a: Sequence[Path], b: Sequence[Path]) -> str:
    """How two byte streams relate: identical, a is a prefix of b (``flat-prefix``), b of a
    (``chunks-prefix``), ``differ``, or ``unreadable``."""
    try:
        left, right = _Reader(a), _Reader(b)
        while True:
            x, y = left.read(1 << 16), right.read(1 << 16)
            n = min(len(x), len(y))
            if x[:n] != y[:n]:
                return "differ"
            left.unread(x[n:])
            right.unread(y[n:])
            if not x or not y:
                rest_x, rest_y = left.read(1), right.read(1)
                if not rest_x and not rest_y:
                    return "identical"
                return "flat-prefix" if not rest_x else "chunks-prefix"
    except OSError:
        return "unreadable"


class _Reader:
    """Reads several files as one byte stream (read-only, no symlinks)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = list(paths)
        self.fh: BinaryIO | None = None
        self.back = b""

    def unread(self, data: bytes) -> None:
        self.back = data + self.back

    def read(self, n: int) -> bytes:
        if self.back:
            data, self.back = self.back[:n], self.back[n:]
            return data
        while True:
            if self.fh is None:
                if not self.paths:
                    return b""
                self.fh = _open(str(self.paths.pop(0)))
            data = self.fh.read(n)
            if data:
                return data
            self.fh.close()
            self.fh = None


@dataclass(frozen=True)
class TranscriptFiles:
    """Transcript files of one brain dir: each tier's stream in reading order (see ``Tier.stream``)."""

    compact: tuple[Path, ...]
    full: tuple[Path, ...]
    foreign: tuple[Path, ...]  # chunk-directory entries not named <number>.jsonl
    overview: tuple[Path, ...] = ()
    tiers: tuple[Tier, ...] = ()  # every tier with at least one file, in TIERS order
    unlisted: tuple[tuple[Path, str], ...] = ()  # (directory, reason): could not be listed, so not read

    def tier(self, name: str) -> Tier | None:
        return next((t for t in self.tiers if t.name == name), None)


def locate(brain_dir: str | os.PathLike[str]) -> TranscriptFiles:
    """Find the transcripts under ``<brain_dir>/.system_generated/logs``; never raises."""
    logs = Path(brain_dir) / ".system_generated" / "logs"
    foreign: list[Path] = []
    tiers: list[Tier] = []
    for name in TIERS:
        chunks: list[tuple[int, Path]] = []
        if name in CHUNK_DIRS:
            try:
                with os.scandir(logs / "chunks" / CHUNK_DIRS[name]) as entries:
                    for entry in entries:
                        if _CHUNK_NAME.fullmatch(entry.name):
                            chunks.append((int(entry.name[:-6]), Path(entry.path)))
                        else:
                            foreign.append(Path(entry.path))
            except OSError:
                pass
        flat = logs / FLAT_NAMES[name]
        tier = Tier(name, flat if os.path.lexists(flat) else None, tuple(p for _, p in sorted(chunks)))
        if tier.flat is not None or tier.chunks:
            tiers.append(tier)
    unlisted = []
    for directory in (Path(brain_dir), Path(brain_dir) / ".system_generated", logs, logs / "chunks"):
        reason = _unlistable(directory)
        if reason is not None:
            unlisted.append((directory, reason))
            break
    else:
        unlisted += [
            (d, r) for d in (logs / "chunks" / "transcript", logs / "chunks" / "transcript_full") if (r := _unlistable(d))
        ]
    streams = {t.name: t.stream for t in tiers}
    return TranscriptFiles(
        streams.get("compact", ()),
        streams.get("full", ()),
        tuple(sorted(foreign)),
        streams.get("overview", ()),
        tuple(tiers),
        tuple(unlisted),
    )


def _unlistable(directory: Path) -> str | None:
    """Why *directory* cannot be listed, or None (a missing directory holds nothing and is fine)."""
    try:
        with os.scandir(directory):
            return None
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return exc.strerror or str(exc)


@dataclass(frozen=True)
class Pairing:
    mode: str  # "position" (compact = a contiguous run of full) or "step_index"
    pairs: tuple[tuple[Record, Record], ...]  # (compact, full)
    findings: tuple[Anomaly, ...]


def pair_records(compact: Sequence[Record], full: Sequence[Record]) -> Pairing:
    """Pair compact with full records and report disagreements beyond the documented truncation.

    By position when the compact step_index sequence is the end (or the start) of the full one,
    else by step_index, where the last record of a repeated index supersedes earlier ones. Each
    transcript can be a window: records outside the other one's window are not unpaired.
    """
    findings: list[Anomaly] = []
    c_steps = [r.step_index for r in compact]
    f_steps = [r.step_index for r in full]
    c_first = next((r for r in compact if r.step_index is not None), None)
    f_first = next((s for s in f_steps if s is not None), None)
    if c_first is not None and c_first.step_index is not None and f_first is not None and c_first.step_index > f_first:
        findings.append(
            Anomaly(
                c_first.file, c_first.line, "late-start", f"compact starts at step {c_first.step_index}, full at step {f_first}"
            )
        )
    offset = _alignment(c_steps, f_steps)
    if offset is not None:
        pairs = list(zip(compact, full[offset : offset + len(compact)]))
        mode = "position"
    else:
        mode = "step_index"
        last_c = {r.step_index: r for r in compact}
        last_f = {r.step_index: r for r in full if r.step_index is not None}
        pairs = []
        full_window = [s for s in f_steps if s is not None]
        for r in compact:
            if r.step_index is not None and full_window and r.step_index < min(full_window):
                continue  # before a full window that starts later (docs/store-format.md#transcript-anomalies): nothing to pair with
            if r.step_index is None or r.step_index not in last_f:
                findings.append(Anomaly(r.file, r.line, "unpaired", "no full-transcript record for this step"))
            elif last_c[r.step_index] is r:
                pairs.append((r, last_f[r.step_index]))
        window = [s for s in c_steps if s is not None]
        findings.extend(
            Anomaly(r.file, r.line, "unpaired", "no compact-transcript record for this step")
            for r in full
            if window
            and r.step_index is not None  # last_f has no None key, so such a record never passed the next test
            and last_f.get(r.step_index) is r
            and r.step_index not in last_c
            and min(window) <= r.step_index <= max(window)
        )
    for c, f in pairs:
        findings.extend(_compare(c, f))
    return Pairing(mode, tuple(pairs), tuple(findings))


def _alignment(c_steps: list[int | None], f_steps: list[int | None]) -> int | None:
    n = len(c_steps)
    if n > len(f_steps):
        return None
    for offset in (len(f_steps) - n, 0):
        if f_steps[offset : offset + n] == c_steps:
            return offset
    return None


def _compare(c: Record, f: Record) -> list[Anomaly]:
    out: list[Anomaly] = []
    where = f"{f.file}:{f.line}"
    for key in sorted((c.raw.keys() | f.raw.keys()) - {"truncated_fields"}):
        if key not in c.raw or key not in f.raw:
            side = "compact" if key in c.raw else "full"
            out.append(Anomaly(c.file, c.line, "mismatch", f"{key} present only in {side} ({where})"))
        elif key == "tool_calls" and _calls_comparable(c) and _calls_comparable(f):
            if not _calls_fit(c, f):
                kind = "truncation-mismatch" if key in c.truncated_fields else "mismatch"
                out.append(
                    Anomaly(
                        c.file, c.line, kind, f"{key} {'does not match' if key in c.truncated_fields else 'differs from'} {where}"
                    )
                )
        elif key in c.truncated_fields:
            if not _fits(c.raw[key], f.raw[key]):
                out.append(Anomaly(c.file, c.line, "truncation-mismatch", f"{key} does not match {where}"))
        elif _canon(c.raw[key]) != _canon(f.raw[key]):
            out.append(Anomaly(c.file, c.line, "mismatch", f"{key} differs from {where}"))
    return out


def _calls_comparable(r: Record) -> bool:
    raw = r.raw.get("tool_calls")
    return isinstance(raw, list) and len(raw) == len(r.tool_calls)


def _calls_fit(c: Record, f: Record) -> bool:
    """Compact tool calls against full ones, across the tier encodings: each argument the same
    as stored, or the compact JSON text decoding to the full value (docs/store-format.md#argument-encoding), or the
    compact text fitting the full value's JSON text up to truncation markers."""
    if len(c.tool_calls) != len(f.tool_calls):
        return False
    for cc, fc in zip(c.tool_calls, f.tool_calls):
        if cc.name != fc.name or cc.args.keys() != fc.args.keys():
            return False
        for name, arg in cc.args.items():
            full = fc.args[name]
            if _canon(arg.raw) == _canon(full.raw) or (arg.decoded and _canon(arg.value) == _canon(full.value)):
                continue
            if not (isinstance(arg.raw, str) and _MARKER.search(arg.raw) and text_fits(arg.raw, dumps(full.value, indent=None))):
                return False
    return True


def _canon(value: object) -> str:
    return dumps(value, indent=None, sort_keys=True)


def _fits(compact: object, full: object) -> bool:
    """True when *compact* equals *full* up to ``<truncated N ...>`` markers in its strings."""
    if isinstance(compact, str) and isinstance(full, str):
        return text_fits(compact, full)
    if isinstance(compact, list) and isinstance(full, list):
        return len(compact) == len(full) and all(map(_fits, compact, full))
    if isinstance(compact, dict) and isinstance(full, dict):
        return compact.keys() == full.keys() and all(_fits(compact[k], full[k]) for k in compact)
    return _canon(compact) == _canon(full)


def text_fits(compact: str, full: str) -> bool:
    """True when the pieces of *compact* around its truncation markers occur in order in *full*,
    the first piece at its start and the last at its end (no marker: the texts are equal)."""
    pieces = _CUT.split(compact)
    first, last = pieces[0], pieces[-1]
    if len(pieces) == 1:
        return compact == full
    if not full.startswith(first):
        return False
    pos = len(first)
    for piece in pieces[1:-1]:
        found = full.find(piece, pos)
        if found < 0:
            return False
        pos = found + len(piece)
    return len(full) - len(last) >= pos and full.endswith(last)


@dataclass(frozen=True)
class BrainTranscripts:
    files: TranscriptFiles
    compact: tuple[Record, ...]
    full: tuple[Record, ...]
    pairing: Pairing | None  # None unless both transcripts have records
    findings: tuple[Anomaly, ...]  # reading findings of every stream, then the pairing's
    overview: tuple[Record, ...] = ()
    agreement: dict[str, str] = field(default_factory=dict)  # tier -> Tier.agreement() where flat and chunks both exist


def read_brain(brain_dir: str | os.PathLike[str], *, max_line_bytes: int = MAX_LINE_BYTES) -> BrainTranscripts:
    """Read, check and pair the transcripts of one brain directory; never raises for damage."""
    files = locate(brain_dir)
    findings = [Anomaly(str(p), 0, "foreign-file", "not a <number>.jsonl chunk; not read") for p in files.foreign]
    findings += [
        Anomaly(str(d), 0, "unreadable", f"cannot list: {reason}; its transcripts were not read") for d, reason in files.unlisted
    ]
    agreement = {}
    for tier in files.tiers:
        if (state := tier.agreement()) is not None:
            agreement[tier.name] = state
            if state != "identical":
                findings.append(Anomaly(str(tier.flat), 0, "chunks-differ", _agreement_text(tier, state)))
    streams: dict[str, list[Record]] = {"compact": [], "full": [], "overview": []}
    for name, paths in (("compact", files.compact), ("full", files.full), ("overview", files.overview)):
        for item in iter_transcript(paths, max_line_bytes=max_line_bytes, tier=name):
            if isinstance(item, Record):
                streams[name].append(item)
            else:
                findings.append(item)
    compact, full = streams["compact"], streams["full"]
    pairing = pair_records(compact, full) if compact and full else None
    if pairing:
        findings.extend(pairing.findings)
    return BrainTranscripts(files, tuple(compact), tuple(full), pairing, tuple(findings), tuple(streams["overview"]), agreement)


def _agreement_text(tier: Tier, state: str) -> str:
    where = f"{tier.chunks[0].parent.name}/ ({len(tier.chunks)} part(s))"
    return {
        "chunks-prefix": f"chunks {where} hold only the start of this file (written while agy was running?); the flat file is read",
        "flat-prefix": f"this file holds only the start of chunks {where} (written while agy was running?); the chunks are read",
        "differ": f"chunks {where} differ from this file; the flat file is read",
        "unreadable": f"chunks {where} could not be compared with this file",
    }.get(state, state)
