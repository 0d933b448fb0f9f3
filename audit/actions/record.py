"""Record a baseline from a complete sweep corpus and regenerate ``COMPATIBILITY.md``.

A record is refused -- nothing written, every file left byte-identical -- when the corpus has no
sweep manifest or its manifest is not ``complete: true`` (the refusal names what the sweep left
out: its sessions not covered, such as legacy ``.pb`` sessions swept natively -- naming the option
that leaves them out -- and its failures), when it holds no surface at all, when
an input file cannot be read, when the corpus breaks the format contract (advisories do not
count), when one of the corpus's newest conversations (``RECHECKED``, by first step, as
``--newest`` orders them) is not complete against its ``.db`` copy (``recheck_newest``: a daemon's
trajectory that the ``.db`` it was swept with does not hold), or when the baseline directory
already exists. A name that claims an agy version (``agy-X.Y.Z``) is refused before any of those
(``UsageError``, exit 2) unless the agy that wrote the corpus confirms it (``verify_name``), or
the caller accepts it unverified: the baseline then records why (``nameUnverified``). A corpus
whose only surface is ``roots``
(which roots were swept, from its manifest) holds nothing to record. A surface the corpus does not hold (a
brain-only corpus has no sidecar, sqlite or wire surface) is recorded as ``absent``, with the
reason. A corpus swept with a selection is complete for it (its manifest says so), and the
baseline records that selection. Otherwise ``<baseline_dir>/<name>/`` is created (all files or none)
and the compatibility record is replaced atomically; if that fails the new baseline is removed.
"""

from __future__ import annotations

import datetime as _dt
import os
import re
import shutil
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

from audit.actions import baseline_writer, compat
from audit.actions.sweep import installed_agy_version
from audit.checks import baselines, completeness
from audit.checks.contract import validate_file, verify_paths
from audit.checks.fingerprint import Survey, fingerprint_paths
from audit.errors import FindingsError, InputError, NothingToCheck, UsageError
from audit.progress import Factory, step, tracked
from audit.safeio import read_json
from audit.store.selection import READABLE_ONLY, db_first_step

MAX_LISTED = 5
RECHECKED = 5
"""How many of a corpus's newest conversations ``record`` checks against their ``.db`` copies."""


def contract_violations(result: Survey, progress: Factory | None = None) -> list[str]:
    """Violations of the format contract (``audit.checks.contract``) by the corpus's manifest, sidecars
    and brain transcripts; a file the checker cannot read counts too. Advisories do not. *progress*
    makes the progress of the two steps (``record: verify-contract sidecars``, ``transcripts``)."""
    out: list[str] = []
    checks = [("manifest", p) for p in result.manifests]
    checks += [("sidecar", p) for p in result.files.get("sidecars", ())]
    with step(progress, "record: verify-contract sidecars", "files") as bar:
        checked = [validate_file(path, kind) for kind, path in tracked(checks, bar, lambda check: check[1].name)]
    transcripts = result.files.get("transcripts", ())
    if transcripts:  # per stream: chunk parts are one byte stream (audit.checks.contract)
        with step(progress, "record: verify-contract transcripts", "files") as bar:
            checked += verify_paths(transcripts, "transcript", progress=bar).files
    for result_ in checked:
        path = result_.file
        if result_.error is not None:
            out.append(f"{path}: {result_.error}")
        out.extend(f"{path}{f':{f.line}' if f.line else ''}: {f.pointer or '/'}: {f.rule}: {f.message}" for f in result_.errors)
    return out


_OLDEST = datetime.min.replace(tzinfo=UTC)  # a conversation without a first step time sorts last


def recheck_newest(corpus: Path) -> list[str]:
    """The newest ``RECHECKED`` conversations of the sweep *corpus* whose sidecar has its ``.db``
    copy (by first step, newest first), checked by ``completeness``: one line per one that is not
    complete, naming it and why."""
    try:
        found = [(db_first_step(t.db) or _OLDEST, t) for t in completeness.targets([corpus]) if t.db is not None]
    except NothingToCheck:
        return []  # no sidecar (a brain-only corpus): nothing a .db could contradict
    newest = sorted(found, key=lambda pair: pair[0], reverse=True)[:RECHECKED]
    checked = [completeness.check_target(t, details=False) for _, t in newest]
    return [f"{r.id}: {r.verdict}: {r.detail}" for r in checked if r.verdict != completeness.COMPLETE]


def verify_name(
    name: str, swept_with: str | None, env: Mapping[str, str], *, unverified: bool, flag: str = "--name"
) -> str | None:
    """Refuse (``UsageError``, naming *flag*) a baseline *name* that claims an agy version
    (``agy-X.Y.Z``) nothing confirms, unless *unverified*: then return why it is unverified (None
    when the name claims no version or is confirmed). The evidence is the first line of ``agy
    --version``: as the sweep recorded it (*swept_with*, its manifest's ``installedAgyVersion``),
    else now (in *env*); the daemon states no version of its own."""
    claimed = baselines.version_of(baselines.check_name(name))
    if claimed is None:
        return None
    found = swept_with if swept_with is not None else installed_agy_version(env)
    if found is not None and claimed in re.findall(r"[0-9][0-9.]*[0-9]", found):
        return None
    why = (
        f"agy --version says {found!r}, not {claimed}"
        if found
        else f"nothing confirms agy {claimed}: agy --version does not answer"
    )
    if not unverified:
        raise UsageError(
            f"{flag} {name}: {why}; give the name of the agy that wrote the sessions, or --unverified-name to record it "
            "marked unverified"
        )
    return why


def _left_out(manifest: Path) -> str:
    """What an incomplete sweep left out, from its manifest: its sessions not covered and its
    failures (``; left out: ...``), or nothing when it names none."""
    try:
        doc = read_json(manifest)
    except InputError:
        return ""  # the survey read it: only a file changed since can fail here
    parts = []
    uncovered = [n for n in doc.get("notCovered") or () if isinstance(n, dict)]
    if uncovered:
        parts.append(
            _listed("session(s) not covered", [f"{n.get('id')} ({n.get('reason')})" for n in uncovered])
            + f" -- to record the sessions this sweep can read, sweep again with {READABLE_ONLY} (sweep, ci --record)"
        )
    failures = [f for f in doc.get("failures") or () if isinstance(f, dict)]
    if failures:
        parts.append(_listed("failure(s)", [f"{f.get('id') or '-'} [{f.get('stage')}] {f.get('message')}" for f in failures]))
    return f"; left out: {'; '.join(parts)}" if parts else ""


def _listed(what: str, items: list[str]) -> str:
    shown = "; ".join(items[:MAX_LISTED])
    more = f" (and {len(items) - MAX_LISTED} more)" if len(items) > MAX_LISTED else ""
    return f"{len(items)} {what}: {shown}{more}"


def record(
    path: str | os.PathLike[str],
    name: str,
    *,
    baseline_dir: str | os.PathLike[str],
    compat_file: str | os.PathLike[str],
    project_dir: str | os.PathLike[str] = ".",
    date: str | None = None,
    progress: Factory | None = None,
    unverified_name: bool = False,
    env: Mapping[str, str] | None = None,
) -> tuple[baselines.Baseline, Survey]:
    """Write baseline *name* from the sweep corpus at *path* and regenerate *compat_file*, which
    names *baseline_dir* relative to *project_dir* (``compat.location``). *progress* makes the
    progress of its long steps (``record: fingerprint``, then those of ``contract_violations``).
    *unverified_name* accepts a name nothing confirms (``verify_name``; *env* for ``agy
    --version``, default ``os.environ``), recording it marked unverified."""
    baselines.check_name(name)
    target = Path(baseline_dir) / name
    with step(progress, "record: fingerprint", "files") as bar:
        result = fingerprint_paths([path], progress=bar)
    unverified = (
        verify_name(name, result.agy_version, os.environ if env is None else env, unverified=unverified_name)
        if result.manifests
        else None  # refused below: no sweep
    )
    refusals = []
    if not result.manifests:
        refusals.append(f"{path}: no manifest.json (record needs a corpus written by `agy-audit sweep`)")
    elif not result.complete:
        manifest = result.manifests[0]
        refusals.append(f"{manifest}: the sweep is not complete (manifest complete is not true){_left_out(manifest)}")
    if result.manifests and not set(result.fingerprints) - {"roots", "layout"}:  # roots and their files' layout: no session
        absent = "; ".join(f"{surface}: {why}" for surface, why in result.not_computed.items())
        refusals.append(f"nothing to record: the corpus holds no surface ({absent})")
    if result.problems:
        refusals.append(_listed("unreadable input file(s)", result.problems))
    if not refusals:
        violations = contract_violations(result, progress)
        if violations:
            refusals.append(_listed("contract violation(s)", violations))
        stale = recheck_newest(result.manifests[0].parent)
        if stale:
            refusals.append(_listed(f"of the {RECHECKED} newest conversation(s), not complete against their .db", stale))
    if os.path.lexists(target):
        refusals.append(f"{target}: already exists; choose another --name or remove it")
    if refusals:
        raise FindingsError("refusing to record: " + " | ".join(refusals))
    baseline = baseline_writer.from_survey(name, result, date or _dt.date.today().isoformat())
    baseline.unverified = unverified
    existing = [b for b in baselines.listing(Path(baseline_dir)) if b.name != name]
    text = compat.render(existing + [baseline], compat.location(baseline_dir, project_dir))  # before anything is written
    baseline_writer.write(baseline, baseline_dir)
    try:
        compat.write(compat_file, text)
    except BaseException:
        shutil.rmtree(target, ignore_errors=True)
        raise
    return baseline, result
