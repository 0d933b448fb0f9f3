"""Baselines: recorded fingerprints of one agy version, one directory each.

Layout of ``<baseline dir>/<name>/`` (bundled ones live in the repository's ``fingerprints/``,
packaged as ``audit/_data/fingerprints``)::

    baseline.json     {name, agyVersion, date, toolVersion, corpusScope, digests{surface},
                       provenance{surface}, counts{sessions, steps, stepTypes, statuses, ...,
                       values{field: {value: records}}, valuesByProduct{product: values}},
                       absent{surface: reason}, synthetic{surface: why}}
    <surface>.tsv     the canonical lines, each followed by "\\n" (present when recorded)

``absent`` (only when non-empty) names each surface the recorded corpus did not hold -- a
brain-only corpus has no sidecar, sqlite or wire surface -- with the reason; a surface is either in
``digests`` or in ``absent``, never both. ``compare`` reports a surface absent from the baseline
as NEW when it is present now, and as NOT COMPARABLE when it is absent on both sides.

``observedStepTypes`` (``{"types": [...], "source": ...}``) lists the step types the recorded
corpus held, with where that list comes from; without it, the keys of ``counts.stepTypes`` are
that list (a recorded baseline has them), and with neither the step types are unknown. Against
lines imported from another corpus, ``compare`` reports a sidecar path carried only by steps of
another type as ``not-in-baseline``, an advisory.
``beyondRecord`` (``{surface: {path: why}}``) names paths real stores are known to hold that the
recorded corpus never showed (with the fact that says so): a path at or below one is
``not-in-baseline`` too. Neither changes a digest: the lines stay those recorded.

``selection`` (only when the corpus was a selection) is the sweep's selection (``ids``, ``since``,
``newest``, ``readableOnly``, as its manifest states it) with the ``sessions`` it selected and the
number it left out (``excluded``).

``sidecarSources`` (recorded here, from a corpus with sidecars) counts the swept sidecars per
source (``daemon``, ``native``): a baseline whose sidecars were all reconstructed offline cannot
hold a key only the daemon writes, so such a key added later is ``not-in-baseline``.

``nameUnverified`` (only when recorded so) says why nothing confirmed the agy version the name
claims (``record --unverified-name``); ``compare`` and ``ci`` name it with the baseline.

``synthetic`` (only when non-empty) names each surface whose lines were not swept from agy but
made by our store builder from documented facts (the bundled transcript lines): no fact says agy
writes exactly those, so ``compare`` reports drift against them as an advisory, never a failure.

A surface may be recorded by its digest alone (imported from a published record that kept no
lines; ``compare`` then reports any other digest as DRIFT whose classes are unknown);
``provenance`` says for every digest whether it was imported from a published record or computed
here from a swept corpus. The ``sqlite`` digest is that of the schema's DDL (agy-reader's schema
fingerprint), so ``sqlite.tsv`` is not re-digested: the bundled baselines ship the lines of the
published DDL, which a test re-digests to the published value.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks.fingerprint import COMPLETE_SCOPE, SURFACES
from audit.checks.shape import digest_lines
from audit.errors import InputError, UsageError
from audit.resources import data_path
from audit.safeio import DIRECTORY, exists, is_dir, is_file, path_kind, read_json, read_own
from audit.store.selection import Selection

BASELINE_FILE = "baseline.json"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_VERSION = re.compile(r"agy-(\d+(?:\.\d+)*)")
_TYPES = re.compile(r"[a-z]+(?:\|[a-z]+)*")
READER = "mjacobs/agy-reader"
PUBLISHED_DDL = "; lines from the published DDL, which re-digests to it"
"""Ends the ``sqlite`` provenance of a baseline whose ``sqlite.tsv`` holds the lines of the published
schema: the DDL (agentsview's copy, ``tests/data/``) digests to the published value (a test checks)."""


@dataclass
class Baseline:
    name: str
    agy_version: str | None
    date: str | None
    tool_version: str | None
    scope: str | None
    digests: dict[str, str]
    provenance: dict[str, str]
    counts: dict[str, Any] | None
    lines: dict[str, tuple[str, ...]] = field(default_factory=dict)  # surfaces recorded with lines
    path: Path | None = None
    bundled: bool = False
    absent: dict[str, str] = field(default_factory=dict)  # surface -> why the recorded corpus did not hold it
    synthetic: dict[str, str] = field(default_factory=dict)  # surface -> where its lines come from (not agy)
    observed_step_types: dict[str, Any] | None = None  # {"types": [...], "source": why}, as recorded in baseline.json
    beyond: dict[str, dict[str, str]] = field(default_factory=dict)  # surface -> path -> why it is known beyond the record
    selection: dict[str, Any] | None = (
        None  # the sweep's selection ({ids, since, newest, readableOnly, sessions, excluded}), if any
    )
    sources: dict[str, int] | None = None  # swept sidecars per source (daemon, native), when recorded here
    unverified: str | None = None  # why nothing confirmed the agy version the name claims, if recorded so

    @property
    def value_counts(self) -> dict[str, dict[str, int]]:
        """Records per value of the fields readers filter by (``counts.values``), when recorded."""
        return (self.counts or {}).get("values") or {}

    @property
    def product_counts(self) -> dict[str, dict[str, dict[str, int]]]:
        """The same per product (``counts.valuesByProduct``: ``cli``, ``ide``, ``acp``), when recorded."""
        return (self.counts or {}).get("valuesByProduct") or {}

    @property
    def step_types(self) -> frozenset[str] | None:
        """The step types the recorded corpus held (``observedStepTypes``, else the keys of
        ``counts.stepTypes``), or None when unknown."""
        if self.observed_step_types is not None:
            return frozenset(self.observed_step_types["types"])
        counted = (self.counts or {}).get("stepTypes")
        return frozenset(counted) if isinstance(counted, dict) else None

    @property
    def step_types_source(self) -> str:
        if self.observed_step_types is not None:
            return str(self.observed_step_types["source"])
        return f"the step types {self.name}'s corpus counts list"

    @property
    def complete(self) -> bool:
        """Recorded from a complete sweep (its absent lines are evidence of absence)."""
        return self.scope == COMPLETE_SCOPE

    @property
    def version_key(self) -> tuple[tuple[int, ...], str]:
        """Sort key: numeric agy version (unknown versions first), then name."""
        parts = tuple(int(p) for p in (self.agy_version or "").split(".") if p.isdigit())
        return (parts, self.name)

    def to_json(self) -> dict[str, Any]:
        return (
            {
                "name": self.name,
                "agyVersion": self.agy_version,
                "date": self.date,
                "toolVersion": self.tool_version,
                "corpusScope": self.scope,
                "digests": {s: self.digests[s] for s in SURFACES if s in self.digests},
                "provenance": {s: self.provenance[s] for s in SURFACES if s in self.provenance},
                "counts": self.counts,
            }
            | ({"absent": {s: self.absent[s] for s in SURFACES if s in self.absent}} if self.absent else {})
            | ({"synthetic": {s: self.synthetic[s] for s in SURFACES if s in self.synthetic}} if self.synthetic else {})
            | ({"observedStepTypes": self.observed_step_types} if self.observed_step_types is not None else {})
            | ({"beyondRecord": {s: self.beyond[s] for s in SURFACES if s in self.beyond}} if self.beyond else {})
            | ({"selection": self.selection} if self.selection is not None else {})
            | ({"sidecarSources": self.sources} if self.sources is not None else {})
            | ({"nameUnverified": self.unverified} if self.unverified is not None else {})
        )

    @property
    def selection_text(self) -> str | None:
        """``12 session(s) since 2026-11-01 (readable only; 140 left out)``: what the corpus it was
        recorded from was selected as, or None (every session)."""
        chosen = Selection.from_json(self.selection)
        if chosen is None or self.selection is None:
            return None
        sessions, excluded = self.selection.get("sessions"), self.selection.get("excluded")
        return chosen.describe(sessions if isinstance(sessions, int) else 0, excluded if isinstance(excluded, int) else None)


BEYOND_RECORD = {
    "sidecar": {
        "steps.[].userInput.media": "media attached to a prompt (CortexStepUserInput field 9, MLV media) are on 22 "
        "USER_INPUT rows of the 26 real .db files of the survey in docs/store-format.md#payloads; agy-reader's published "
        "records never show them"
    }
}
"""What real stores are known to hold beyond agy-reader's published records (``beyondRecord``)."""


def _payload_step_types(snapshot: str, record: str) -> dict[str, Any]:
    """``observedStepTypes`` of a published record that lists no step types (see the test that
    derives them from the snapshot)."""
    return {
        "types": [f"CORTEX_STEP_TYPE_{name}" for name in _STEP_TYPES_1_2_5],
        "source": f"the 21 step types whose payload keys (steps.[].<payload>) agy-reader's published shape snapshot "
        f"holds ({snapshot}); its record counts 21 distinct step types ({record}), the 21 it lists for agy 1.2.5",
    }


_STEP_TYPES_1_2_5 = (
    "ASK_QUESTION",
    "CHECKPOINT",
    "CODE_ACTION",
    "COMMAND_STATUS",
    "CONVERSATION_HISTORY",
    "EPHEMERAL_MESSAGE",
    "ERROR_MESSAGE",
    "FIND",
    "GENERATE_IMAGE",
    "GENERIC",
    "GREP_SEARCH",
    "INVOKE_SUBAGENT",
    "LIST_DIRECTORY",
    "MCP_TOOL",
    "PLANNER_RESPONSE",
    "READ_URL_CONTENT",
    "RUN_COMMAND",
    "SEARCH_WEB",
    "SYSTEM_MESSAGE",
    "USER_INPUT",
    "VIEW_FILE",
)

# Published agy-reader records (mjacobs/agy-reader, MIT): what import-shape may check against.
PUBLISHED: dict[str, dict[str, Any]] = {
    "agy-1.2.5": {
        "date": "2026-09-17",
        "sidecar": "sha256:70e2c9386e88420d834beab7a4c917514bcf7b2cf9f74674bde02965601e0462",
        "sidecar_source": "docs/compatibility/agy-1.2.5-sidecar-shape.tsv@4b40487",
        "sqlite": "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43",
        "sqlite_source": "docs/compatibility/agy-1.2.5.md@4b40487",
        "counts": {
            "sessions": 229,
            "steps": 21620,
            "stepTypes": {
                f"CORTEX_STEP_TYPE_{name}": count
                for name, count in zip(
                    _STEP_TYPES_1_2_5,
                    (26, 197, 1118, 1, 159, 5, 105, 60, 4, 828, 578, 60, 386, 12, 10517, 5, 3754, 107, 631, 342, 2725),
                    strict=True,
                )
            },
            "distinctStepTypes": 21,
            "statuses": {"completed": 21461, "canceled": 62, "error": 97},
            "source": "as reported in agy-reader docs/compatibility/agy-1.2.5.md@4b40487, status labels as reported",
        },
    },
    "agy-1.2.10": {
        "date": "2026-09-24",
        "sidecar": "sha256:3acca61c897bdec898292c1646090faf1913781f0a4d11ca389bc043ba4ec92a",
        "sidecar_source": "docs/compatibility/agy-1.2.10-sidecar-shape.tsv@bbc80ed",
        "sqlite": "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43",
        "sqlite_source": "docs/compatibility/agy-1.2.10.md@5cf6aeb",
        "counts": {
            "sessions": 240,
            "steps": 22157,
            "stepTypes": None,
            "distinctStepTypes": 21,
            "statuses": {"done": 21993, "canceled": 62, "error": 102},
            "source": "as reported in agy-reader docs/compatibility/agy-1.2.10.md@5cf6aeb, per-type counts not published",
        },
        "observedStepTypes": _payload_step_types(
            "docs/compatibility/agy-1.2.10-sidecar-shape.tsv@bbc80ed", "docs/compatibility/agy-1.2.10.md@5cf6aeb"
        ),
    },
    "agy-1.2.11": {
        "date": "2026-09-25",
        "sidecar": "sha256:3acca61c897bdec898292c1646090faf1913781f0a4d11ca389bc043ba4ec92a",
        "sidecar_source": "COMPATIBILITY.md@9a228af (same snapshot as agy-1.2.10)",
        "sqlite": "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43",
        "sqlite_source": "COMPATIBILITY.md@9a228af",
        "counts": {
            "sessions": 242,
            "steps": 22163,
            "stepTypes": None,
            "distinctStepTypes": 21,
            "statuses": None,
            "source": "as reported in agy-reader docs/compatibility/agy-1.2.11.md@9a228af",
        },
        "observedStepTypes": _payload_step_types(
            "COMPATIBILITY.md@9a228af, the same snapshot as agy-1.2.10", "docs/compatibility/agy-1.2.11.md@9a228af"
        ),
    },
}


def version_of(name: str) -> str | None:
    match = _VERSION.fullmatch(name)
    return match[1] if match else None


def check_name(name: str) -> str:
    if not NAME.fullmatch(name) or name in (".", ".."):
        raise UsageError(f"{name!r}: a baseline name is letters, digits, '.', '_' and '-' (e.g. agy-1.2.11)")
    return name


# ----------------------------------------------------------------------------- reading


def parse_snapshot(data: bytes, source: str) -> tuple[str, ...]:
    """Lines of a ``<surface>.tsv`` / agy-reader ``--paths`` snapshot: every line ends in one
    ``\\n``; lines are sorted and unique."""
    if data and not data.endswith(b"\n"):
        raise InputError(f"{source}: does not end with a newline")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{source}: invalid UTF-8 at byte {exc.start}") from None
    lines = tuple(text[:-1].split("\n")) if text else ()
    for number, line in enumerate(lines, 1):
        if "\t" not in line:
            raise InputError(f"{source}:{number}: not a 'path<TAB>value' line")
    if list(lines) != sorted(set(lines)):
        raise InputError(f"{source}: lines are not sorted and unique")
    return lines


def _per_value(counts: object) -> bool:
    """Whether *counts* is ``{field: {value: records}}``."""
    return isinstance(counts, dict) and all(
        isinstance(counted, dict) and all(isinstance(n, int) and not isinstance(n, bool) for n in counted.values())
        for counted in counts.values()
    )


def load(path: str | os.PathLike[str], *, bundled: bool = False) -> Baseline:
    """Read one baseline directory; a ``<surface>.tsv`` must re-digest to its recorded digest."""
    path = Path(path)
    doc = read_json(path / BASELINE_FILE)
    digests = doc.get("digests")
    if not isinstance(digests, dict):
        raise InputError(f"{path / BASELINE_FILE}: 'digests' is not an object")
    baseline = Baseline(
        name=str(doc.get("name") or path.name),
        agy_version=doc.get("agyVersion"),
        date=doc.get("date"),
        tool_version=doc.get("toolVersion"),
        scope=doc.get("corpusScope"),
        digests={s: d for s, d in digests.items() if s in SURFACES},
        provenance=dict(doc.get("provenance") or {}),
        counts=doc.get("counts"),
        path=path,
        bundled=bundled,
    )
    counts = baseline.counts
    if counts is not None and not (
        isinstance(counts, dict)
        and _per_value(counts.get("values") or {})
        and isinstance(counts.get("valuesByProduct") or {}, dict)
        and all(_per_value(c) for c in (counts.get("valuesByProduct") or {}).values())
    ):
        raise InputError(
            f"{path / BASELINE_FILE}: 'counts' is not an object whose 'values' (and each product's of "
            "'valuesByProduct') are records per value per field"
        )
    absent = doc.get("absent") or {}
    if not isinstance(absent, dict) or not all(isinstance(v, str) for v in absent.values()):
        raise InputError(f"{path / BASELINE_FILE}: 'absent' is not an object of reasons")
    both = sorted(set(absent) & set(baseline.digests))
    if both:
        raise InputError(f"{path / BASELINE_FILE}: {', '.join(both)} both recorded and absent")
    baseline.absent = {s: r for s, r in absent.items() if s in SURFACES}
    synthetic = doc.get("synthetic") or {}
    if not isinstance(synthetic, dict) or not all(isinstance(v, str) for v in synthetic.values()):
        raise InputError(f"{path / BASELINE_FILE}: 'synthetic' is not an object of reasons")
    baseline.synthetic = {s: r for s, r in synthetic.items() if s in baseline.digests}
    observed = doc.get("observedStepTypes")
    if observed is not None and not (
        isinstance(observed, dict)
        and isinstance(observed.get("source"), str)
        and isinstance(observed.get("types"), list)
        and all(isinstance(t, str) for t in observed["types"])
    ):
        raise InputError(f"{path / BASELINE_FILE}: 'observedStepTypes' is not {{types: [string], source: string}}")
    baseline.observed_step_types = observed
    beyond = doc.get("beyondRecord") or {}
    if not isinstance(beyond, dict) or not all(
        isinstance(v, dict) and all(isinstance(w, str) for w in v.values()) for v in beyond.values()
    ):
        raise InputError(f"{path / BASELINE_FILE}: 'beyondRecord' is not an object of {{path: why}} per surface")
    baseline.beyond = {s: dict(v) for s, v in beyond.items() if s in SURFACES}
    selection = doc.get("selection")
    if selection is not None and Selection.from_json(selection) is None:
        raise InputError(f"{path / BASELINE_FILE}: 'selection' is not an object")
    baseline.selection = selection
    sources = doc.get("sidecarSources")
    if sources is not None and not (
        isinstance(sources, dict) and all(isinstance(n, int) and not isinstance(n, bool) for n in sources.values())
    ):
        raise InputError(f"{path / BASELINE_FILE}: 'sidecarSources' is not an object of counts")
    baseline.sources = sources
    unverified = doc.get("nameUnverified")
    if unverified is not None and not isinstance(unverified, str):
        raise InputError(f"{path / BASELINE_FILE}: 'nameUnverified' is not a string")
    baseline.unverified = unverified
    for surface in SURFACES:
        tsv = path / f"{surface}.tsv"
        if not exists(tsv):
            continue
        lines = parse_snapshot(read_own(tsv), str(tsv))
        if digest_lines(lines) != baseline.digests.get(surface) and surface != "sqlite":
            raise InputError(f"{tsv}: lines do not match the recorded {surface} digest")
        baseline.lines[surface] = lines
    return baseline


def listing(directory: str | os.PathLike[str], bundled: bool = False) -> list[Baseline]:
    """The baselines directly in *directory*, oldest agy version first (bundled when it is the
    bundled directory, as ``./fingerprints`` is in a checkout of agy-audit)."""
    directory = Path(directory)
    if not is_dir(directory):
        return []
    bundled = bundled or _same_dir(directory, bundled_dir())
    found = [
        load(entry, bundled=bundled)
        for entry in sorted(directory.iterdir())
        if path_kind(entry, follow_symlinks=False) == DIRECTORY and is_file(entry / BASELINE_FILE)
    ]
    return sorted(found, key=lambda b: b.version_key)


def published_schema_lines(digest: str) -> tuple[str, ...] | None:
    """The ``sqlite`` lines of the published schema with *digest*, as the bundled baselines ship
    them (``None`` when no bundled baseline has lines for it)."""
    for b in listing(bundled_dir(), True):
        if b.digests.get("sqlite") == digest and b.provenance.get("sqlite", "").endswith(PUBLISHED_DDL):
            return b.lines.get("sqlite")
    return None


def bundled_dir() -> Path:
    return data_path("fingerprints")


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def available(baseline_dir: str | os.PathLike[str] | None = None) -> list[Baseline]:
    """Bundled baselines, then those in *baseline_dir*, each list oldest version first."""
    own = [b for b in listing(baseline_dir) if not b.bundled] if baseline_dir is not None else []
    return listing(bundled_dir(), True) + own


def shown_dir(path: str | os.PathLike[str]) -> str:
    """*path* as typed from the current directory: ``./fingerprints`` when inside it."""
    relative = Path(path)
    if relative.is_absolute():
        try:
            relative = relative.relative_to(Path.cwd())
        except ValueError:
            return str(path)
    text = relative.as_posix()
    return text if text == "." or text.startswith("../") else f"./{text}"


def given(spec: str, baseline_dir: str | os.PathLike[str] | None = None) -> tuple[Baseline, str]:
    """The baseline *spec* names (``resolve``), with where it is, in words."""
    found = resolve(spec, baseline_dir)
    return found, _said(found, "bundled" if found.bundled else str(found.path))


def newest(baseline_dir: str | os.PathLike[str] | None) -> tuple[Baseline, str]:
    """The baseline ``ci`` and ``compare`` use unless told which: the newest recorded in
    *baseline_dir*, else the newest bundled one; with why, in words."""
    own = listing(baseline_dir) if baseline_dir is not None else []
    where = shown_dir(baseline_dir) if baseline_dir is not None else None
    if own and not own[0].bundled:
        chosen = max(own, key=lambda b: b.version_key)
        return chosen, _said(chosen, f"recorded in {where}, newest there")
    found = own or listing(bundled_dir(), bundled=True)
    if not found:
        raise UsageError("no baseline found; give --baseline NAME|DIR")
    why = f"bundled: nothing recorded in {where}" if where is not None and not own else "bundled"
    return max(found, key=lambda b: b.version_key), why


def _said(baseline: Baseline, why: str) -> str:
    """*why* this baseline, and that its name is unverified when it was recorded so."""
    return f"{why}; name unverified: {baseline.unverified}" if baseline.unverified else why


def resolve(spec: str, baseline_dir: str | os.PathLike[str] | None = None) -> Baseline:
    """A baseline by directory path, else by name (``--baseline-dir`` before bundled ones)."""
    path = Path(spec)
    if is_file(path / BASELINE_FILE):
        return load(path)
    for directory, bundled in ((baseline_dir, False), (bundled_dir(), True)):
        if directory is not None and NAME.fullmatch(spec) and is_file(Path(directory) / spec / BASELINE_FILE):
            return load(Path(directory) / spec, bundled=bundled or _same_dir(Path(directory), bundled_dir()))
    names = ", ".join(b.name for b in available(baseline_dir)) or "none"
    raise UsageError(f"{spec}: no such baseline (available: {names})")
