"""The verdicts of native completeness and what they rest on: one sidecar's ``Result``, a ``Report``.

The verdicts (``VERDICTS``; ``FAILING``), what ``attest`` did with a sidecar (``ATTESTATIONS``),
where our attestation lives in a sidecar (``READER_KEY``, ``ATTESTATION_KEY``; agy-audit 0.1's,
``LEGACY_KEY``), the ``Evidence`` of a complete verdict, and the exit code of a set of verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from audit.errors import EXIT_FINDINGS, EXIT_NOTHING, EXIT_OK, EXIT_USAGE
from audit.store.reader_block import READER_BLOCK
from audit.store.sidecar import FileState

READER_KEY = "agyAudit"
"""Our own key inside the reader block: ``agyReader.agyAudit`` (schemas/sidecar.schema.json)."""
ATTESTATION_KEY = "completeness"
"""Our attestation: ``agyReader.agyAudit.completeness``."""
LEGACY_KEY = "completeness"
"""``agyReader.completeness``: agy-reader's key for its own evidence, any object tolerated and never
written. agy-audit 0.1 wrote its attestation there; one in exactly that layout (``_legacy``) is
still read as ours for one release, and moved (or removed) by ``attest``."""

SidecarVerdict = Literal["complete", "incomplete", "unsupported", "unknown", "unreadable"]
COMPLETE: Final = "complete"
INCOMPLETE: Final = "incomplete"
UNSUPPORTED: Final = "unsupported"
UNKNOWN: Final = "unknown"
UNREADABLE: Final = "unreadable"
VERDICTS: tuple[SidecarVerdict, ...] = (COMPLETE, INCOMPLETE, UNSUPPORTED, UNKNOWN, UNREADABLE)
FAILING = frozenset({INCOMPLETE, UNSUPPORTED})

Attestation = Literal["written", "kept", "removed", "refused"]
WRITTEN: Final = "written"
KEPT: Final = "kept"
REMOVED: Final = "removed"
REFUSED: Final = "refused"
ATTESTATIONS: tuple[Attestation, ...] = (WRITTEN, KEPT, REMOVED, REFUSED)

ABSENT = object()
"""``Result._recorded`` when the sidecar holds no attestation."""


@dataclass(frozen=True)
class Evidence:
    """What a ``complete`` verdict rests on (``agyReader.completeness`` without ``checkedAt``)."""

    profile: str
    content_sha256: str
    projection_sha256: str
    steps: int


@dataclass
class Result:
    """The verdict on one sidecar; ``attestation`` / ``attestation_error`` are set by ``attest``."""

    sidecar: Path
    id: str | None  # lower-case id from the file name; None when the name is not <uuid>.trajectory.json
    source: Path | None
    verdict: SidecarVerdict
    detail: str = ""
    sidecar_steps: int | None = None
    source_steps: int | None = None
    evidence: Evidence | None = None  # complete only
    differences: str | None = None  # incomplete only: every projected difference, by path (audit.checks.diff)
    outside: list[str] = field(default_factory=list)
    """Unknown fields (``key xN``) and findings of the source outside the projection: listed, never
    deciding the verdict."""
    attestation: Attestation | None = None  # one of ATTESTATIONS, None when attest left the file alone
    attestation_error: str | None = None
    _state: FileState | None = field(default=None, repr=False)
    stable: bool = True  # the source's WAL index did not move during the read (else: not attested)
    _recorded: object = field(default=ABSENT, repr=False)  # agyReader.agyAudit.completeness as read
    _namespace: dict[str, Any] = field(default_factory=dict, repr=False)  # agyReader.agyAudit as read (an object)
    _legacy: bool = field(default=False, repr=False)  # an agy-audit 0.1 attestation at agyReader.completeness
    _corpus: bool = field(default=False, repr=False)  # in a sweep corpus (manifest.json hashes it)

    @property
    def recorded_in(self) -> str | None:
        """Where the sidecar holds an attestation of ours, if anywhere."""
        if self._recorded is not ABSENT:
            return f"{READER_BLOCK}.{READER_KEY}.{ATTESTATION_KEY}"
        if self._legacy:
            return f"{READER_BLOCK}.{LEGACY_KEY} (an attestation of agy-audit 0.1, read for one release)"
        return None


@dataclass
class Report:
    results: list[Result]

    def counts(self) -> dict[str, int]:
        return {v: sum(r.verdict == v for r in self.results) for v in VERDICTS}

    def attestation_counts(self) -> dict[str, int]:
        return {a: sum(r.attestation == a for r in self.results) for a in ATTESTATIONS}

    @property
    def exit_code(self) -> int:
        return exit_code({r.verdict for r in self.results}, any(r.attestation == REFUSED for r in self.results))


def exit_code(verdicts: set[str], refused: bool = False) -> int:
    """2 any unreadable; 1 any incomplete or unsupported, or a *refused* attestation; 3 nothing
    compared (every sidecar unknown); else 0 (unknown sidecars beside compared ones pass)."""
    if UNREADABLE in verdicts:
        return EXIT_USAGE
    if verdicts & FAILING or refused:
        return EXIT_FINDINGS
    return EXIT_OK if COMPLETE in verdicts else EXIT_NOTHING
