"""``agy-audit doctor``: a quick health check of the local stores and of this tool's record.

Per root: its surface and sessions; sidecar freshness by mtime (fresh, stale, missing:
``stores``); parent-link diagnostics (``links.resolve``) and contract violations
(``contract.verify_paths``) of the sidecars as they are; and its daemon (``discovery``): reachable
-- then a read-only ``GetAllCascadeTrajectories`` call tells whether the CSRF token is accepted
--, not running (information only), or a problem: a pinned ``ANTIGRAVITY_DAEMON_URL`` that
nothing answers at, an invalid pin or token, or a token the daemon rejects. Then the installed
agy version (``agy --version``) against the version ``COMPATIBILITY.md`` records.

Every problem becomes an ``Action`` naming what to run; the stores are healthy when there is
none. Only failing link diagnostics (``links.FAILING_KINDS``) need action, as in ``links check``.
Nothing is written or printed, and the token is never part of the result.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from audit.actions import compat
from audit.actions.sweep import installed_agy_version
from audit.checks import contract, links
from audit.errors import UsageError
from audit.resources import data_path
from audit.store.daemon import AuthError, DaemonClient, DaemonError
from audit.store.discovery import ENV_URL, discover_endpoints
from audit.store.layout import Root, scan_root

PROBE = "GetAllCascadeTrajectories"
"""A read-only daemon call, answered only when the CSRF token is accepted."""
REACHABLE, NOT_RUNNING, UNREACHABLE, REJECTED, INVALID = "reachable", "not running", "unreachable", "rejected", "invalid"
COMPATIBLE, DIFFERENT, UNKNOWN = "compatible", "different", "unknown"


@dataclass(frozen=True)
class Daemon:
    state: str  # REACHABLE, NOT_RUNNING (information), UNREACHABLE, REJECTED or INVALID (need action)
    detail: str
    url: str | None = None
    origin: str | None = None  # where the endpoint was found


@dataclass(frozen=True)
class Action:
    subject: str  # a root path, or "agy"
    problem: str
    remedy: str  # the command to run


@dataclass
class RootHealth:
    root: Root
    sessions: int
    sidecars: dict[str, int]  # fresh / stale / missing
    link_diagnostics: int
    link_failing: int
    violations: int  # contract violations and unreadable sidecars
    daemon: Daemon


@dataclass
class Health:
    roots: list[RootHealth]
    installed: str | None  # first line of `agy --version`
    recorded: str | None  # the agy version COMPATIBILITY.md records
    compat_file: Path
    actions: list[Action] = field(default_factory=list)

    @property
    def version(self) -> str:
        if self.installed is None or self.recorded is None:
            return UNKNOWN
        return COMPATIBLE if self.recorded in re.findall(r"\d+(?:\.\d+)+", self.installed) else DIFFERENT

    @property
    def healthy(self) -> bool:
        return not self.actions


def diagnose(
    roots: list[Root],
    *,
    compat_file: str | os.PathLike | None = None,
    timeout: float = 5.0,
    allow_remote: bool = False,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike = "/proc",
) -> Health:
    """The health of *roots*; ``compat_file`` defaults to the bundled ``COMPATIBILITY.md``.

    Raises ``InputError`` when the compatibility record cannot be read.
    """
    env = os.environ if env is None else env
    path = Path(compat_file) if compat_file is not None else data_path("COMPATIBILITY.md")
    recorded = compat.read(path).agy_version
    health = Health([], installed_agy_version(env), recorded, path)
    for root in roots:
        health.roots.append(_root(root, health.actions, timeout, allow_remote, env, proc_root))
    if health.version == DIFFERENT:
        health.actions.append(
            Action(
                "agy",
                f"installed {health.installed!r} but {path.name} records agy {recorded}; once ci passes, "
                "`agy-audit ci --record agy-X.Y.Z` records the new version",
                "agy-audit ci",
            )
        )
    return health


def _root(
    root: Root,
    actions: list[Action],
    timeout: float,
    allow_remote: bool,
    env: Mapping[str, str],
    proc_root: str | os.PathLike,
) -> RootHealth:
    scan = scan_root(root)
    states = scan.sidecar_states()
    where = shlex.quote(str(root.path))
    if states["stale"] or states["missing"]:
        actions.append(
            Action(
                str(root.path),
                f"{states['stale']} stale and {states['missing']} missing sidecar(s) by mtime "
                f"(`agy-audit completeness --root {where}` compares them by content); refresh them with their writer",
                f"agy-reader --root {where} --sync",
            )
        )
    conversations = root.path / "conversations"
    diagnostics = failing = violations = 0
    if links.list_sidecars(conversations):
        resolution = links.resolve(conversations)
        diagnostics, failing = len(resolution.diagnostics), len(resolution.failing)
        report = contract.verify_paths([conversations])
        violations = sum(report.counts().values()) + len(report.unreadable)
    if failing:
        actions.append(
            Action(str(root.path), f"{failing} failing parent-link diagnostic(s)", f"agy-audit links check --root {where}")
        )
    if violations:
        actions.append(
            Action(
                str(root.path),
                f"{violations} contract violation(s) in the sidecars",
                f"agy-audit verify-contract {shlex.quote(str(conversations))}",
            )
        )
    daemon = _daemon(root, timeout, allow_remote, env, proc_root)
    if daemon.state not in (REACHABLE, NOT_RUNNING):
        actions.append(Action(str(root.path), f"daemon {daemon.state}: {daemon.detail}", _DAEMON_REMEDY[daemon.state]))
    return RootHealth(root, len(scan.sessions), states, diagnostics, failing, violations, daemon)


_DAEMON_REMEDY = {
    UNREACHABLE: f"fix or unset {ENV_URL}",
    INVALID: f"fix or unset {ENV_URL} / ANTIGRAVITY_CSRF_TOKEN",
    REJECTED: "restart agy, or set ANTIGRAVITY_CSRF_TOKEN to the token of the running daemon",
}


def _daemon(root: Root, timeout: float, allow_remote: bool, env: Mapping[str, str], proc_root: str | os.PathLike) -> Daemon:
    try:
        endpoints = discover_endpoints(root, env, proc_root)
    except UsageError as exc:  # a malformed ANTIGRAVITY_CSRF_TOKEN (never echoed)
        return Daemon(INVALID, exc.message)
    for endpoint in endpoints:
        try:
            client = DaemonClient(endpoint.url, endpoint.token, timeout=timeout, allow_remote=allow_remote)
        except UsageError as exc:
            if endpoint.origin == ENV_URL:
                return Daemon(INVALID, exc.message, origin=ENV_URL)
            continue
        if not client.reachable():
            if endpoint.origin == ENV_URL:
                return Daemon(UNREACHABLE, f"nothing answers at {client.url} (pinned by {ENV_URL})", client.url, ENV_URL)
            continue
        try:
            client.call(PROBE, {})
        except AuthError as exc:
            return Daemon(REJECTED, exc.message, client.url, endpoint.origin)
        except DaemonError as exc:
            return Daemon(REACHABLE, f"but the read-only probe failed: {exc.message}", client.url, endpoint.origin)
        return Daemon(
            REACHABLE, "token accepted" if endpoint.token is not None else "no token needed", client.url, endpoint.origin
        )
    return Daemon(NOT_RUNNING, "no daemon answers (start agy to sweep from it; --source native needs none)")
