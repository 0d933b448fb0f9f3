"""What a sweep records: the roots and how each was read (``RootSource``), each session swept or
not covered, the per-install files, the failures and the entries skipped (``SweepResult``), and
the ``manifest.json`` document they make (``write_manifest``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from audit import __version__
from audit.errors import EXIT_FINDINGS, EXIT_OK
from audit.safewrite import atomic_write
from audit.store.corpus import MANIFEST
from audit.store.database import NativeConversation
from audit.store.install import root_name
from audit.store.layout import Root, Session
from audit.store.selection import Excluded, Selection, excluded_json
from audit.store.trajectory import BlobFields, NativeTrajectory
from audit.strictjson import dumps

MANIFEST_VERSION = 2
Source = Literal["daemon", "native"]
"""How a root was swept: through its daemon, or from its files offline."""
"""2 added ``selection`` (1: every session was selected)."""


@dataclass(frozen=True)
class RootSource:
    root: Root
    source: Source
    endpoint: str | None = None  # base URL, never a token
    origin: str | None = None  # where the endpoint was found
    notes: tuple[str, ...] = ()  # discovered daemons not used (unverified listeners, no /proc)


@dataclass(frozen=True)
class SweptSession:
    id: str
    cascade_id: str
    product: str
    source: Source
    steps: int
    files: dict[str, str]  # path relative to OUT -> sha256 hex


@dataclass(frozen=True)
class NotCovered:
    """A selected session whose conversation the sweep could not read (a legacy ``.pb`` swept
    natively): *path* is that file, *files* its brain files that were copied (path relative to
    OUT -> sha256 hex)."""

    id: str
    product: str
    path: Path
    reason: str
    files: dict[str, str]


@dataclass(frozen=True)
class Decoded:
    """What the sweep read of one session it swept, for checks that would read it again: the
    live ``session``, its ``swept`` record, and the ``.db`` copy as read (``conv``) and, for a
    native sweep, reconstructed (``native``); both None without a ``.db``. ``fields`` is what the
    reconstruction recorded of the blobs (``trajectory.BlobFields``) when the sweep was asked to
    (``record_fields``), else None."""

    session: Session
    swept: SweptSession
    conv: NativeConversation | None
    native: NativeTrajectory | None
    fields: BlobFields | None = None


OnSwept = Callable[[Decoded], None]


@dataclass(frozen=True)
class SweptInstall:
    """The per-install files swept from one root: its ``name`` (the corpus directory
    ``native/<product>/install/<name>/``) and what was written (path relative to OUT -> sha256 hex)."""

    root: Path
    name: str
    files: dict[str, str]


@dataclass(frozen=True)
class Failure:
    id: str | None
    stage: str
    message: str


@dataclass(frozen=True)
class Skipped:
    path: Path
    reason: str


@dataclass
class SweepResult:
    out: Path
    started: str
    installed_agy_version: str | None
    roots: list[RootSource]
    selected: int
    finished: str | None = None
    interrupted: int | None = None  # the exit status of an interruption: 130 Ctrl-C, 143 SIGTERM
    sessions: list[SweptSession] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    not_covered: list[NotCovered] = field(default_factory=list)
    installs: list[SweptInstall] = field(default_factory=list)
    layouts: dict[Path, dict[str, str]] = field(default_factory=dict)  # root path -> its sessions' file families
    selection: Selection | None = None  # None: every session
    excluded: list[Excluded] = field(default_factory=list)  # what the selection left out, with why

    @property
    def complete(self) -> bool:
        """Finished, nothing failed, and every selected session covered (swept whole)."""
        return self.finished is not None and not self.failures and len(self.sessions) == self.selected

    @property
    def exit_code(self) -> int:
        """The interruption's exit status (130, 143), else 0 complete, 1 incomplete."""
        return self.interrupted or (EXIT_OK if self.complete else EXIT_FINDINGS)

    def manifest(self) -> dict[str, Any]:
        """The ``manifest.json`` document (schemas/manifest.schema.json)."""
        return {
            "manifestVersion": MANIFEST_VERSION,
            "toolVersion": __version__,
            "complete": self.complete,
            "started": self.started,
            "finished": self.finished,
            "installedAgyVersion": self.installed_agy_version,
            "roots": [self._root_entry(r) for r in self.roots],
            "selected": self.selected,
            "sessions": [
                {
                    "id": s.id,
                    "cascadeId": s.cascade_id,
                    "product": s.product,
                    "source": s.source,
                    "steps": s.steps,
                    "files": s.files,
                }
                for s in self.sessions
            ],
            "notCovered": [
                {"id": n.id, "product": n.product, "path": str(n.path), "reason": n.reason, "files": n.files}
                for n in self.not_covered
            ],
            "failures": [{"id": f.id, "stage": f.stage, "message": f.message} for f in self.failures],
            "skipped": [{"path": str(s.path), "reason": s.reason} for s in self.skipped],
            "selection": None
            if self.selection is None
            else self.selection.to_json() | {"excluded": excluded_json(self.excluded)},
        }

    def _root_entry(self, r: RootSource) -> dict[str, Any]:
        """A root of the manifest: where it is, how it was read, its name and its per-install files."""
        files = next((i.files for i in self.installs if i.root == r.root.path), {})
        return {
            "path": str(r.root.path),
            "product": r.root.product,
            "source": r.source,
            "endpoint": r.endpoint,
            "name": root_name(r.root.path),
            "files": files,
            "layout": self.layouts.get(r.root.path, {}),
        }


def write_manifest(result: SweepResult) -> None:
    atomic_write(result.out / MANIFEST, (dumps(result.manifest()) + "\n").encode())
