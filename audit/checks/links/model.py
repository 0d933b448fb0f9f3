"""Parent links' vocabulary and results: the diagnostics, the evidence a sidecar gives, one link
per conversation, the family tree and the resolution of a directory."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from audit.errors import EXIT_FINDINGS, EXIT_OK
from audit.store.sidecar import FileState

NATIVE_SOURCES = ("parentConversationId", "invokeSubagent.results")
LEGACY_SOURCES = ("agentPath", "invoke_subagent")

DiagnosticKind = Literal[
    "conflicting-evidence",
    "stale-stamp",
    "missing-parent",
    "unreadable-sidecar",
    "invalid-cascade-id",
    "invalid-parent-stamp",
    "duplicate-cascade-id",
    "parent-cycle",
]
CONFLICTING_EVIDENCE: Final = "conflicting-evidence"
STALE_STAMP: Final = "stale-stamp"
MISSING_PARENT: Final = "missing-parent"
UNREADABLE_SIDECAR: Final = "unreadable-sidecar"
INVALID_CASCADE_ID: Final = "invalid-cascade-id"
INVALID_PARENT_STAMP: Final = "invalid-parent-stamp"
DUPLICATE_CASCADE_ID: Final = "duplicate-cascade-id"
PARENT_CYCLE: Final = "parent-cycle"
FAILING_KINDS = frozenset({PARENT_CYCLE, CONFLICTING_EVIDENCE, INVALID_PARENT_STAMP})
"""Diagnostics that make ``links check`` exit 1."""
UNUSABLE_KINDS = frozenset({UNREADABLE_SIDECAR, INVALID_CASCADE_ID, DUPLICATE_CASCADE_ID})
"""Diagnostics of sidecars left out of the graph (a repair refuses to run with any of them)."""


@dataclass(frozen=True)
class Diagnostic:
    id: str
    kind: DiagnosticKind
    message: str


@dataclass(frozen=True)
class Evidence:
    source: str  # one of NATIVE_SOURCES or LEGACY_SOURCES
    parent: str


LinkAction = Literal["stamp", "clear", "keep", "none"]
"""What resolution decided to write for one conversation (see ``Link``)."""


@dataclass(frozen=True)
class Link:
    """One conversation of the graph and what resolution decided for it.

    ``stamp`` is the valid stamp on disk (canonical), ``parent`` the resolved parent after cycle
    removal (what the tree uses), ``action`` one of ``stamp`` (write ``parent``), ``clear`` (remove
    the stamp), ``keep`` (a parent, nothing to write) and ``none`` (no parent, nothing to write).
    ``created`` is the first step's ``createdAt`` (siblings are ordered by it, then by id).
    """

    id: str
    path: Path
    stamp: str | None
    evidence: tuple[Evidence, ...]
    parent: str | None
    action: LinkAction
    created: str

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Tree:
    """The family forest: ``roots`` have no parent, ``orphans`` a parent without a sidecar here."""

    roots: tuple[str, ...]
    orphans: tuple[str, ...]
    children: Mapping[str, tuple[str, ...]]
    depth: Mapping[str, int]


@dataclass(frozen=True)
class Resolution:
    directory: Path
    repair: bool
    scanned: int
    links: tuple[Link, ...]  # sorted by id
    diagnostics: tuple[Diagnostic, ...]  # sorted by (id, kind, message)
    files: Mapping[str, FileState]  # every regular sidecar read, by file name
    tree: Tree
    absent_parents: tuple[str, ...] = ()
    """Parents named by a stamp or by evidence that have no sidecar in the directory (sorted):
    when there are any, the directory looks partial (a copy of part of ``conversations/``?)."""

    @property
    def changes(self) -> tuple[Link, ...]:
        return tuple(link for link in self.links if link.action in ("stamp", "clear"))

    def counts(self) -> dict[str, int]:
        actions = [link.action for link in self.links]
        return {
            "scanned": self.scanned,
            "stamped": actions.count("stamp"),
            "cleared": actions.count("clear"),
            "unchanged": actions.count("keep"),
            "unresolved": actions.count("none") + actions.count("clear"),
            "diagnostics": len(self.diagnostics),
        }

    @property
    def failing(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.kind in FAILING_KINDS)

    @property
    def exit_code(self) -> int:
        return EXIT_FINDINGS if self.failing else EXIT_OK
