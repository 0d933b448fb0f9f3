"""``agy-audit doctor``: a quick health check of the local stores and of this tool's record.

Per root: its surface and sessions; its sidecars by content, as ``completeness`` judges them
against their native source (``verified``: complete; ``incomplete``; ``unknown``: no readable
source to compare with, content ``cortex.proto`` cannot decode, or an unreadable sidecar) and the
sessions with a source but no sidecar (``missing``); parent-link diagnostics (``links.resolve``)
and contract violations (``contract.verify_paths``) of the sidecars as they are; its daemon
(``discovery.discover``) with the path that found it (``process``, ``log`` or ``pinned``) and the
CSRF state (``found``, ``missing``, ``rejected``); and whether an ``agy-reader --watch`` process
covers the root (Linux, best effort). A reachable daemon is asked a read-only ``GetAllCascadeTrajectories`` to learn
whether the token is accepted. Problems: a pinned ``ANTIGRAVITY_DAEMON_URL`` that nothing answers
at, an invalid pin or token, a token the daemon rejects, a reachable IDE daemon without a token,
and the daemon of an explicit root (``--root``, ``ANTIGRAVITY_CLI_ROOT``: a hard requirement)
not running. A discovered root whose daemon is down is only ``waiting``. Discovered listeners that
could not be verified are noted, never contacted. Then the installed agy version
(``agy --version``) against the version ``COMPATIBILITY.md`` records.

Every problem becomes an ``Action`` naming what to run; the stores are healthy when there is
none. A sidecar that is not verified, and a missing one, is an action of its own naming the
session and a command of this project that explains it (``completeness --root R ID``, ``export
ID --root R``), up to ``SHOWN_SESSIONS`` per root and kind, then one for the rest. Only failing
link diagnostics (``links.FAILING_KINDS``) need action, as in ``links check``.
Nothing is written or printed, and the token is never part of the result.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from audit.actions import compat
from audit.actions.sweep import installed_agy_version
from audit.checks import completeness, contract, links
from audit.errors import EXIT_FINDINGS, EXIT_OK, UsageError
from audit.progress import Callback, Factory, step
from audit.resources import data_path
from audit.store import discovery
from audit.store.daemon import AuthError, DaemonClient, DaemonError
from audit.store.discovery import ENV_TOKEN, ENV_URL, PINNED
from audit.store.layout import Root, RootScan, scan_root
from audit.store.legacy_pb import Key

PROBE = "GetAllCascadeTrajectories"
"""A read-only daemon call, answered only when the CSRF token is accepted."""
REACHABLE, NOT_RUNNING, WAITING = "reachable", "not running", "waiting"
UNREACHABLE, REJECTED, INVALID = "unreachable", "rejected", "invalid"
FOUND, MISSING = "found", "missing"  # CSRF states, with REJECTED
COMPATIBLE, DIFFERENT, UNKNOWN = "compatible", "different", "unknown"
VERIFIED, INCOMPLETE, MISSING_SIDECAR = "verified", "incomplete", "missing"  # sidecars by content, with UNKNOWN
SIDECAR_STATES = (VERIFIED, INCOMPLETE, UNKNOWN, MISSING_SIDECAR)
SHOWN_SESSIONS = 5
"""Sessions named one by one per root and kind of problem; the rest are one action."""


@dataclass(frozen=True)
class Daemon:
    state: str  # REACHABLE, WAITING (information), NOT_RUNNING, UNREACHABLE, REJECTED or INVALID
    detail: str
    url: str | None = None
    origin: str | None = None  # where the endpoint was found
    path: str | None = None  # discovery path: "process", "log" or "pinned"
    csrf: str | None = None  # FOUND, MISSING or REJECTED; None when no daemon was asked
    token_origin: str | None = None  # where the token was found (never the token)
    notes: tuple[str, ...] = ()  # discovered listeners not used, a platform without /proc
    action: str | None = None  # the problem that needs action, if any


@dataclass(frozen=True)
class Action:
    subject: str  # a root path, or "agy"
    problem: str
    remedy: str  # the command to run


@dataclass
class RootHealth:
    root: Root
    sessions: int
    sidecars: dict[str, int]  # SIDECAR_STATES -> how many
    link_diagnostics: int
    link_failing: int
    violations: int  # contract violations and unreadable sidecars
    daemon: Daemon
    watch: str = UNKNOWN  # "covered", "not covered" or UNKNOWN (no /proc)
    watcher: int | None = None  # pid of the agy-reader --watch process that covers the root


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

    @property
    def exit_code(self) -> int:
        return EXIT_OK if self.healthy else EXIT_FINDINGS

    @property
    def waiting(self) -> int:
        """Discovered roots whose daemon is down (information, not a problem)."""
        return sum(1 for r in self.roots if r.daemon.state == WAITING)


def diagnose(
    roots: list[Root],
    *,
    compat_file: str | os.PathLike[str] | None = None,
    timeout: float = 5.0,
    allow_remote: bool = False,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike[str] | None = None,
    key: Key | None = None,
    progress: Factory | None = None,
) -> Health:
    """The health of *roots*; ``compat_file`` defaults to the bundled ``COMPATIBILITY.md``; a
    sidecar whose source is a legacy ``.pb`` is verified with the user's *key*. *progress* makes
    the progress of each root's long steps (``doctor <root>: completeness``, ``links``, ``verify-contract``).

    Raises ``InputError`` when the compatibility record cannot be read.
    """
    env = os.environ if env is None else env
    path = Path(compat_file) if compat_file is not None else data_path("COMPATIBILITY.md")
    recorded = compat.read(path).agy_version
    health = Health([], installed_agy_version(env), recorded, path)
    watchers = discovery.reader_watchers(proc_root)
    for root in roots:
        health.roots.append(_root(root, health.actions, timeout, allow_remote, env, proc_root, watchers, key, progress))
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
    proc_root: str | os.PathLike[str] | None,
    watchers: list[discovery.Watcher] | None,
    key: Key | None,
    progress: Factory | None,
) -> RootHealth:
    scan = scan_root(root, brain_files=False)
    where = shlex.quote(str(root.path))
    label = f"doctor {root.path.name}"
    with step(progress, f"{label}: completeness", "sidecars") as bar:
        states = _sidecars(root, scan, where, actions, key, bar)
    conversations = root.path / "conversations"
    diagnostics = failing = violations = 0
    if links.list_sidecars(conversations):
        with step(progress, f"{label}: links", "sidecars") as bar:
            resolution = links.resolve(conversations, progress=bar)
        diagnostics, failing = len(resolution.diagnostics), len(resolution.failing)
        with step(progress, f"{label}: verify-contract", "files") as bar:
            report = contract.verify_paths([conversations], progress=bar)
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
    if daemon.action is not None:
        actions.append(Action(str(root.path), daemon.action, _DAEMON_REMEDY[daemon.state]))
    health = RootHealth(root, len(scan.sessions), states, diagnostics, failing, violations, daemon)
    if watchers is not None:
        watcher = discovery.watcher_for(root, watchers)
        health.watch, health.watcher = ("covered", watcher.pid) if watcher else ("not covered", None)
    return health


def _sidecars(
    root: Root, scan: RootScan, where: str, actions: list[Action], key: Key | None, progress: Callback | None
) -> dict[str, int]:
    """The root's sidecars by content (``completeness``) and its sessions without one, counted;
    each that is not verified becomes an action naming the session."""
    found: dict[str, list[tuple[str, str]]] = {state: [] for state in SIDECAR_STATES}  # state -> (id, problem)
    for result in completeness.check_root(root, key, progress=progress).results:
        state = {completeness.COMPLETE: VERIFIED, completeness.INCOMPLETE: INCOMPLETE}.get(result.verdict, UNKNOWN)
        problem = {
            INCOMPLETE: f"the sidecar is incomplete by content: {result.detail}",
            UNKNOWN: f"the sidecar is not verified by content ({result.verdict}): {result.detail}",
        }.get(state, "")
        found[state].append((result.id or result.sidecar.name, problem))
    for session in scan.sessions:
        if session.sidecar is None and session.source is not None:
            found[MISSING_SIDECAR].append((session.id, f"its {session.source.suffix} has no sidecar"))
    check, sync = f"agy-audit completeness --root {where}", f"agy-reader --root {where} --sync"
    for state, what, remedy, rest, writer in (
        (INCOMPLETE, "sidecar(s) incomplete by content", check, check, "its writer refreshes it"),
        (UNKNOWN, "sidecar(s) not verified by content", check, check, None),
        (
            MISSING_SIDECAR,
            "session(s) without a sidecar",
            f"agy-audit export --root {where}",
            f"agy-audit stores --sessions --root {where}",
            "its writer writes it",
        ),
    ):
        sessions = found[state]
        for cid, problem in sessions[:SHOWN_SESSIONS]:
            by = f"; {writer}: {sync} {cid}" if writer else ""
            actions.append(Action(str(root.path), f"session {cid}: {problem}{by}", f"{remedy} {cid}"))
        if len(sessions) > SHOWN_SESSIONS:
            actions.append(Action(str(root.path), f"{len(sessions) - SHOWN_SESSIONS} more {what}", rest))
    return {state: len(found[state]) for state in SIDECAR_STATES}


_DAEMON_REMEDY = {
    UNREACHABLE: f"fix or unset {ENV_URL}",
    INVALID: f"fix or unset {ENV_URL} / {ENV_TOKEN}",
    REJECTED: f"restart agy, or set {ENV_TOKEN} to the token of the running daemon",
    REACHABLE: f"set {ENV_TOKEN}, or restart the IDE so that its main.log records the token",
    NOT_RUNNING: f"start agy for this root, or set {ENV_URL}; `--source native` needs no daemon",
}
_DOWN = "no daemon answers (start agy to sweep from it; --source native needs none)"


def _daemon(
    root: Root, timeout: float, allow_remote: bool, env: Mapping[str, str], proc_root: str | os.PathLike[str] | None
) -> Daemon:
    try:
        found = discovery.discover(root, env, proc_root)
    except UsageError as exc:  # a malformed ANTIGRAVITY_CSRF_TOKEN (never echoed)
        return Daemon(INVALID, exc.message, action=f"daemon {INVALID}: {exc.message}")
    notes = tuple(found.notes)
    for endpoint in found.endpoints:
        base = Daemon("", "", origin=endpoint.origin, path=endpoint.path, notes=notes)
        try:
            client = DaemonClient(endpoint.url, endpoint.token, timeout=timeout, allow_remote=allow_remote)
        except UsageError as exc:
            if endpoint.path == PINNED:
                return replace(base, state=INVALID, detail=exc.message, action=f"daemon {INVALID}: {exc.message}")
            continue
        base = replace(base, url=client.url)
        if not client.reachable():
            if endpoint.path == PINNED:
                detail = f"nothing answers at {client.url} (pinned by {ENV_URL})"
                return replace(base, state=UNREACHABLE, detail=detail, action=f"daemon {UNREACHABLE}: {detail}")
            continue
        asked = replace(base, csrf=FOUND if endpoint.token is not None else MISSING, token_origin=endpoint.token_origin)
        try:
            client.call(PROBE, {})
        except AuthError as exc:
            csrf = REJECTED if endpoint.token is not None else MISSING
            return replace(asked, state=REJECTED, detail=exc.message, csrf=csrf, action=f"daemon {REJECTED}: {exc.message}")
        except DaemonError as exc:
            return replace(asked, state=REACHABLE, detail=f"but the read-only probe failed: {exc.message}")
        if asked.csrf == MISSING and root.product == "ide":
            detail = "the IDE daemon answers, but no CSRF token was found for it"
            return replace(asked, state=REACHABLE, detail=detail, action=f"daemon {REACHABLE}: {detail}")
        return replace(asked, state=REACHABLE, detail="token accepted" if asked.csrf == FOUND else "no token needed")
    if root.explicit:  # an explicit root is a hard requirement
        action = f"daemon {NOT_RUNNING}: {_DOWN}; this root was named explicitly"
        return Daemon(NOT_RUNNING, _DOWN, notes=notes, action=action)
    return Daemon(WAITING, _DOWN, notes=notes)
