"""``COMPATIBILITY.md``: written wholesale from the baselines, and parsed back.

The record states, for the newest baseline, which agy version it covers, when it was verified,
each surface's digest and where that digest came from (imported from a published record, or
computed here from a swept corpus), the corpus scope and counts; then one table row per
baseline. Its bullet labels match agy-reader's record, so ``parse`` reads both formats (and
agy-reader's rules -- the first ``sha256:`` is the schema digest -- hold for ours).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from audit.checks.baselines import Baseline
from audit.checks.fingerprint import SURFACES
from audit.errors import InputError
from audit.safeio import read_own
from audit.safewrite import atomic_write, make_private_dir

AGY_READER_LABELS = {"sqlite": "Schema fingerprint", "sidecar": "Sidecar shape fingerprint"}
"""Bullet labels of agy-reader's record; every other surface's is ``<Surface> fingerprint``."""
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
_BULLET = re.compile(r"^- \*\*(?P<label>[^*]+):\*\*[ \t]*(?P<value>.*)$", re.M)


@dataclass(frozen=True)
class CompatRecord:
    agy_version: str | None
    verified_on: str | None
    scope: str | None
    digests: dict[str, str] = field(default_factory=dict)  # surface -> digest


def label(surface: str) -> str:
    """The bullet label of *surface*'s digest."""
    return AGY_READER_LABELS.get(surface) or f"{surface.capitalize()} fingerprint"


def parse(text: str) -> CompatRecord:
    """The newest-baseline bullets of a record (ours or agy-reader's)."""
    bullets: dict[str, str] = {}
    for match in _BULLET.finditer(text):
        bullets.setdefault(match["label"].strip(), match["value"].strip())
    digests = {}
    for surface in SURFACES:
        found = _DIGEST.search(bullets.get(label(surface), ""))
        if found:
            digests[surface] = found[0]
    scope = re.search(r"`([^`]+)`", bullets.get("Sidecar corpus scope", ""))
    return CompatRecord(
        agy_version=bullets.get("agy version") or None,
        verified_on=bullets.get("Verified on") or None,
        scope=scope[1] if scope else None,
        digests=digests,
    )


def read(path: str | os.PathLike[str]) -> CompatRecord:
    data = read_own(path)
    try:
        return parse(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def _count(value: object) -> str:
    return f"{value:,}" if isinstance(value, int) else "not recorded"


def _corpus(counts: dict[str, Any] | None) -> str:
    if not counts:
        return "not recorded"
    types = counts.get("stepTypes")
    distinct = len(types) if isinstance(types, dict) else counts.get("distinctStepTypes")
    text = f"{_count(counts.get('sessions'))} sessions, {_count(counts.get('steps'))} steps, {_count(distinct)} step types"
    statuses = counts.get("statuses")
    if isinstance(statuses, dict) and statuses:
        text += "; statuses " + ", ".join(f"{k} {_count(v)}" for k, v in statuses.items())
    if counts.get("source"):
        text += f"; {counts['source']}"
    return text


def location(baseline_dir: str | os.PathLike[str], project_dir: str | os.PathLike[str] = ".") -> str:
    """Where the record says its baselines are: *baseline_dir* relative to the project directory
    when inside it (``fingerprints/``), else as an absolute path."""
    directory = Path(os.path.abspath(baseline_dir))
    try:
        return directory.relative_to(os.path.abspath(project_dir)).as_posix() + "/"
    except ValueError:
        return f"{directory}/"


class Evidence(StrEnum):
    """What a surface's digest in a baseline rests on."""

    PUBLISHED = "real agy output, as agy-reader published it"  # agy-reader's record of its own sweep of agy
    SWEPT = "swept by agy-audit"  # ``record`` of a complete sweep: real agy output when the stores were agy's
    SYNTHETIC = "synthetic"  # made by agy-audit's store builder (``Baseline.synthetic``), never agy's files
    OTHER = "a snapshot of unstated origin"  # ``baselines import-shape`` with a digest given by hand
    NONE = "not verified"


def evidence(baseline: Baseline, surface: str) -> Evidence:
    """What *surface*'s digest in *baseline* rests on."""
    how = str(baseline.provenance.get(surface, ""))
    if surface not in baseline.digests:
        return Evidence.NONE
    if surface in baseline.synthetic:
        return Evidence.SYNTHETIC
    if how.startswith("imported from agy-reader's published record"):
        return Evidence.PUBLISHED
    if how.startswith("computed from a swept corpus"):
        return Evidence.SWEPT
    return Evidence.OTHER


def _evidence_summary(baseline: Baseline) -> list[str]:
    """Plain sentences: which surfaces were checked against real agy output, which are synthetic."""
    by_kind: dict[Evidence, list[str]] = {}
    for surface in SURFACES:
        by_kind.setdefault(evidence(baseline, surface), []).append(surface)
    version = baseline.agy_version or baseline.name
    sentences = {
        Evidence.PUBLISHED: f"Verified against real agy {version} output, as agy-reader published it from its own sweep: {{}}.",
        Evidence.SWEPT: "Swept by agy-audit from the stores this baseline was recorded from (real agy output when they "
        "are agy's own): {}.",
        Evidence.SYNTHETIC: "Synthetic, never compared with what agy writes: {} (made by agy-audit's store builder from "
        "the documented format; drift against them is an advisory, never a failure).",
        Evidence.OTHER: "Imported from a shape snapshot whose origin the record does not state: {}.",
        Evidence.NONE: "Not verified for this version: {}.",
    }
    return [sentences[kind].format(", ".join(by_kind[kind])) for kind in Evidence if kind in by_kind]


def render(baselines: list[Baseline], where: str = "fingerprints/") -> str:
    """The whole record for *baselines* (the newest by agy version is described in full), which
    live in *where* (``location``)."""
    if not baselines:
        raise InputError("no baseline to write a compatibility record from")
    ordered = sorted(baselines, key=lambda b: b.version_key)
    newest = ordered[-1]
    out = [
        "# Compatibility",
        "",
        "agy-audit compares Google Antigravity (`agy`) session stores with the baselines below.",
        f"This file is generated by `agy-audit record` from the baselines in `{where}` and is",
        "replaced wholesale each time; do not edit it by hand.",
        "",
        f"- **agy version:** {newest.agy_version or 'unknown'}",
        f"- **Baseline:** `{newest.name}`",
        *([f"- **Name unverified:** {newest.unverified} (recorded with --unverified-name)"] if newest.unverified else []),
        f"- **Verified on:** {newest.date or 'unknown'}",
        f"- **agy-audit version:** {newest.tool_version or 'unknown'}",
    ]
    for surface in sorted(SURFACES, key=lambda s: s != "sqlite"):  # schema first: agy-reader's parse rule
        digest = newest.digests.get(surface)
        if digest is None and surface in newest.absent:
            out.append(f"- **{label(surface)}:** absent from the recorded corpus ({newest.absent[surface]})")
        elif digest is None:
            out.append(f"- **{label(surface)}:** not recorded")
        else:
            out.append(f"- **{label(surface)}:** `{digest}` -- {newest.provenance.get(surface, 'provenance not recorded')}")
    out += [
        f"- **Sidecar corpus scope:** `{newest.scope or 'unknown'}`",
        f"- **Corpus:** {_corpus(newest.counts)}",
        *([f"- **Selection:** recorded from {newest.selection_text}"] if newest.selection_text else []),
        "",
        f"## What each surface of agy {newest.agy_version or newest.name} rests on",
        "",
        *_evidence_summary(newest),
        "",
    ]
    for surface in SURFACES:
        digest = newest.digests.get(surface)
        if digest is None:
            held = f" (absent from the recorded corpus: {newest.absent[surface]})" if surface in newest.absent else ""
            out.append(f"- {surface}, {SURFACES[surface].describes}: not verified for this version{held}.")
            continue
        how = newest.provenance.get(surface, "provenance not recorded")
        kept = newest.lines.get(surface)
        lines = f"{len(kept):,} canonical lines kept" if kept is not None else "digest only, no lines kept"
        out.append(f"- {surface}, {SURFACES[surface].describes}: **{evidence(newest, surface)}**: `{digest}`, {how}; {lines}.")
    imported = any(str(how).startswith("imported") for how in newest.provenance.values())
    if newest.scope == "explicit-version-scoped" and imported:
        out.append(
            "- The corpus was a complete sweep of this version, but another's: compared with the stores "
            'swept here, a path it has and they lack is only "not observed", never "removed".'
        )
    elif newest.scope == "explicit-version-scoped":
        out.append(
            "- The corpus was a complete sweep of this version: a path absent from a later complete sweep is reported as removed."
        )
    else:
        out.append('- The corpus was not a complete sweep: absent paths are only "not observed".')
    out += [
        "",
        "## Baselines",
        "",
        "| baseline | agy | verified on | scope | " + " | ".join(SURFACES) + " |",
        "| --- | --- | --- | --- | " + " | ".join("---" for _ in SURFACES) + " |",
    ]
    for b in reversed(ordered):
        cells = [f"`{b.name}`", b.agy_version or "?", b.date or "?", b.scope or "?"]
        for surface in SURFACES:
            digest = b.digests.get(surface)
            if digest is None:
                cells.append("absent" if surface in b.absent else "-")
            else:
                origin = "imported" if b.provenance.get(surface, "").startswith("imported") else "computed"
                cells.append(f"`{digest[7:19]}` {origin}")
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def write(path: str | os.PathLike[str], text: str) -> None:
    """Replace *path* atomically with a rendered record, creating its directory (as the baseline
    directory is) when a configuration names one that does not exist yet."""
    make_private_dir(Path(path).parent, exist_ok=True)
    atomic_write(path, text.encode("utf-8"))
