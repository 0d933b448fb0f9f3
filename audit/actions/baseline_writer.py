"""Writing baselines: one recorded from a survey of a complete sweep, one imported from a
published agy-reader shape snapshot (the layout is in ``audit.checks.baselines``)."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from audit import __version__
from audit.checks.baselines import (
    BASELINE_FILE,
    BEYOND_RECORD,
    PUBLISHED,
    PUBLISHED_DDL,
    READER,
    Baseline,
    check_name,
    parse_snapshot,
    published_schema_lines,
    version_of,
)
from audit.checks.fingerprint import COMPLETE_SCOPE, Survey
from audit.checks.shape import snapshot_text
from audit.errors import InputError, UsageError
from audit.safeio import read_own
from audit.safewrite import atomic_write, make_private_dir
from audit.strictjson import dumps


def from_survey(name: str, survey: Survey, date: str) -> Baseline:
    """A baseline recording every fingerprint of *survey* (a complete sweep); each surface it
    could not compute is marked absent, with the reason."""
    sources = ", ".join(f"{n} {s}" for s, n in sorted(survey.sources.items())) or "sources not stated"
    computed = f"computed from a swept corpus ({sources}) by agy-audit {__version__}"
    return Baseline(
        name=name,
        agy_version=version_of(name) or survey.agy_version,
        date=date,
        tool_version=__version__,
        scope=survey.scope,
        digests={s: fp.digest for s, fp in survey.fingerprints.items()},
        provenance={s: computed for s in survey.fingerprints},
        counts=survey.counts.to_json(),
        lines={s: fp.lines for s, fp in survey.fingerprints.items()},
        absent={s: why for s, why in survey.not_computed.items() if s not in survey.fingerprints},
        sources=dict(sorted(survey.sources.items())) or None,
        selection=None
        if survey.selection is None
        else survey.selection.to_json() | {"sessions": survey.selected, "excluded": survey.excluded},
    )


def write(baseline: Baseline, baseline_dir: str | os.PathLike[str]) -> Path:
    """Create ``<baseline_dir>/<name>/`` (refusing an existing one); all files or none."""
    target = Path(baseline_dir) / check_name(baseline.name)
    if os.path.lexists(target):
        raise InputError(f"{target}: already exists; choose another --name or remove it")
    make_private_dir(baseline_dir, exist_ok=True)
    make_private_dir(target)
    try:
        for surface, lines in baseline.lines.items():
            atomic_write(target / f"{surface}.tsv", snapshot_text(lines).encode("utf-8"))
        atomic_write(target / BASELINE_FILE, (dumps(baseline.to_json()) + "\n").encode("utf-8"))
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    baseline.path = target
    return target


def import_shape(tsv: str | os.PathLike[str], name: str, *, digest: str | None = None) -> Baseline:
    """A sidecar-only baseline from an agy-reader shape snapshot, after checking its digest
    (``sha256`` of the bytes without the final newline) against *digest* or the published one."""
    check_name(name)
    published = PUBLISHED.get(name)
    expected = digest or (published or {}).get("sidecar")
    if expected is None:
        raise UsageError(f"{name}: no published digest known for this name; give the expected one with --digest")
    data = read_own(tsv)
    lines = parse_snapshot(data, str(tsv))
    actual = "sha256:" + hashlib.sha256(data[:-1] if data else b"").hexdigest()
    if actual != expected:
        raise InputError(f"{tsv}: digest {actual} does not match the expected {expected}")
    if published is not None and digest in (None, published["sidecar"]):
        where = f"imported from agy-reader's published record ({READER} {{}}); digest verified"
        digests = {"sidecar": actual, "sqlite": published["sqlite"]}
        provenance = {
            "sidecar": where.format(published["sidecar_source"]),
            "sqlite": f"imported from agy-reader's published record ({READER} {published['sqlite_source']})",
        }
        recorded = {"sidecar": lines}
        schema = published_schema_lines(published["sqlite"])
        if schema is not None:
            recorded["sqlite"] = schema
            provenance["sqlite"] += PUBLISHED_DDL
        return Baseline(
            name,
            version_of(name),
            published["date"],
            __version__,
            COMPLETE_SCOPE,
            digests,
            provenance,
            published["counts"],
            recorded,
            observed_step_types=published.get("observedStepTypes"),
            beyond=BEYOND_RECORD,
        )
    provenance = {"sidecar": f"imported from the shape snapshot {Path(tsv).name}; digest matched --digest"}
    return Baseline(name, version_of(name), None, __version__, None, {"sidecar": actual}, provenance, None, {"sidecar": lines})
