"""Where a store's daemon listens and which CSRF token it wants -- and whether it may have it.

For one root (``discover``), in this order:

1. **pinned**: ``ANTIGRAVITY_DAEMON_URL`` is the only candidate (the user's choice; loopback-only
   unless ``--allow-remote-daemon``, enforced by ``DaemonClient``);
2. **process** (Linux ``/proc``; the root is injectable, default ``procfs.PROC_ROOT``): every
   process of this user that is ``agy`` or a language server, with its listening sockets (the
   inodes of its ``/proc/<pid>/fd`` links matched against the LISTEN entries of ``/proc/net/tcp``
   and ``tcp6``) and its open files. It serves the root when one of its open ``*.log`` files lies under the root,
   or its ``--app_data_dir`` names the root. Its HTTP port is the newest ``listening on random
   port at N for HTTP`` line of that open log, else ``--hub-port N`` (``agy --hub``), else
   ``--extension_server_port`` / ``--https_server_port`` -- only when the process itself listens
   on that port;
3. **log** (older builds that keep no log open): the root's ``cli.log`` (a symbolic link to
   ``log/cli-*.log`` on Linux and macOS, followed read-only when its target is a regular file
   inside the root) or ``log/cli-*.log``; for an IDE root the IDE's ``language_server.log`` in the
   platform config directory (``~/.config/Antigravity/logs`` on Linux). The listener on that port
   is used only when ``/proc`` shows it held by an ``agy`` or language-server process of this user
   that serves no other store.

Tokens: ``ANTIGRAVITY_CSRF_TOKEN`` of our own environment, else the process's own
``--csrf_token``, else ``ANTIGRAVITY_CSRF_TOKEN`` exported to one of its tools (a descendant whose
``ANTIGRAVITY_LS_ADDRESS`` names that same port), else (IDE) the ``--csrf_token`` of the newest
daemon spawn line (the last line carrying one) of the IDE's newest ``main.log``. A token is only ever attached to a pinned
endpoint or to a listener verified as above; a discovered listener that cannot be verified is
``withheld``: reported with the reason, never contacted. Without ``/proc`` (macOS, Windows)
nothing can be verified: discovery says so and asks for ``ANTIGRAVITY_DAEMON_URL``.

Nothing here sends network traffic, and nothing raises on a platform without ``/proc``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from audit.csrf import Secret
from audit.errors import UsageError
from audit.store.daemon import is_loopback
from audit.store.discovery import procfs
from audit.store.discovery.logs import (
    _ide_logs,
    _inside,
    _newest_port,
    ide_log_dir,
    port_from_logs,
    token_from_main_log,
)
from audit.store.discovery.procfs import (
    ENV_TOKEN,
    Listener,
    Process,
    _port,
    _secret,
    listening_sockets,
    proc_available,
    scan_processes,
)
from audit.store.layout import ROOT_PRODUCTS, Root

ENV_URL = "ANTIGRAVITY_DAEMON_URL"
PINNED, PROCESS, LOG = "pinned", "process", "log"
NO_PROC = (
    f"/proc is not available on this platform: agy-audit cannot see which process listens where, so no "
    f"discovered daemon is used; set {ENV_URL} (and {ENV_TOKEN}) to use one"
)


@dataclass(frozen=True)
class Endpoint:
    """A daemon endpoint that may be contacted (pinned, or a verified listener)."""

    url: str
    token: Secret | None
    origin: str  # where the URL was found: the variable, the process, the log file
    path: str = LOG  # PINNED, PROCESS or LOG
    pid: int | None = None  # the verified process that listens there
    token_origin: str | None = None  # where the token was found (never the token)


@dataclass(frozen=True)
class Withheld:
    """A discovered listener that is not used: it could not be verified as this root's daemon."""

    url: str
    origin: str
    reason: str

    @property
    def message(self) -> str:
        return (
            f"{self.url} (found in {self.origin}) not used and no token sent: {self.reason}; "
            f"set {ENV_URL}={self.url} to use it anyway"
        )


@dataclass(frozen=True)
class Discovery:
    endpoints: tuple[Endpoint, ...]  # best first
    withheld: tuple[Withheld, ...]
    proc: bool  # whether /proc could be read

    @property
    def notes(self) -> list[str]:
        notes = [w.message for w in self.withheld]
        if not self.proc and not any(e.path == PINNED for e in self.endpoints):
            notes.append(NO_PROC)
        return notes


def token_from_env(env: Mapping[str, str]) -> Secret | None:
    """``ANTIGRAVITY_CSRF_TOKEN`` as a ``Secret``; a malformed value is a usage error (not echoed)."""
    value = env.get(ENV_TOKEN)
    if not value:
        return None
    try:
        return Secret(value)
    except ValueError as exc:
        raise UsageError(f"{ENV_TOKEN} is {exc}") from None


# ----------------------------------------------------------------------------- serving a root


def _app_dir_matches(value: str, root: Root) -> bool:
    return value == root.path.name or os.path.realpath(Path(value).expanduser()) == os.path.realpath(root.path)


def _open_logs(p: Process, root: Root) -> list[str]:
    return [f for f in p.files if f.endswith(".log") and _inside(f, root.path)]


def serves(p: Process, root: Root) -> bool:
    """The process has a log open under *root*, or its ``--app_data_dir`` names it."""
    if _open_logs(p, root):
        return True
    value = p.flags.get("app_data_dir")
    return value is not None and value != "" and _app_dir_matches(value, root)


def serves_other(p: Process, root: Root) -> bool:
    """The process names another store: a different ``--app_data_dir``, or an open log in another root."""
    value = p.flags.get("app_data_dir")
    if value and not _app_dir_matches(value, root):
        return True
    for f in p.files:
        if f.endswith(".log") and not _inside(f, root.path):
            if any(part in ROOT_PRODUCTS for part in Path(f).parts[:-1]):
                return True
    return False


def _ancestors(pid: int, parents: Mapping[int, int | None]) -> set[int]:
    seen: set[int] = set()
    current = parents.get(pid)
    while current is not None and current not in seen and len(seen) < 4096:
        seen.add(current)
        current = parents.get(current)
    return seen


def _url(scheme: str, listener: Listener) -> str:
    """The URL of a listener; a wildcard address is reached through loopback."""
    host = listener.host
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    shown = f"[{host}]" if ":" in host else host
    return f"{scheme}://{shown}:{listener.port}"


def _same_listener(found: str, pinned: str) -> bool:
    """A pinned loopback URL on the port of a verified listener (only then may its token go there)."""
    try:
        parts = urlsplit(pinned)
        return parts.hostname is not None and is_loopback(parts.hostname) and parts.port == _port_of(found)
    except ValueError:
        return False


def _port_of(url: str) -> int | None:
    try:
        return urlsplit(url if "://" in url else f"http://{url}").port
    except ValueError:
        return None


@dataclass(frozen=True)
class _Context:
    root: Root
    user_token: Secret | None
    processes: tuple[Process, ...]
    listeners: Mapping[int, Listener]
    main_log: tuple[Secret, Path] | None

    def listening(self, p: Process) -> dict[int, Listener]:
        """The ports *p* itself listens on."""
        return {lst.port: lst for inode in sorted(p.sockets) if (lst := self.listeners.get(inode)) is not None}

    def token(self, p: Process, port: int, extension: bool) -> tuple[Secret | None, str | None]:
        """The token for *p*'s listener on *port*, and where it was found."""
        if self.user_token is not None:
            return self.user_token, ENV_TOKEN
        own = p.flags.get("extension_server_csrf_token") if extension else None
        for value, flag in ((own, "--extension_server_csrf_token"), (p.flags.get("csrf_token"), "--csrf_token")):
            if (secret := _secret(value)) is not None:
                return secret, f"{flag} of process {p.pid}"
        parents = {q.pid: q.ppid for q in self.processes}
        for tool in self.processes:
            if tool.env_token is None or (tool.pid != p.pid and p.pid not in _ancestors(tool.pid, parents)):
                continue
            if tool.ls_address is not None and _port_of(tool.ls_address) == port:
                return tool.env_token, f"{ENV_TOKEN} exported to process {tool.pid}"
        if p.kind == "language_server" and self.main_log is not None:
            return self.main_log[0], str(self.main_log[1])
        return None, None


def _process_endpoint(p: Process, ctx: _Context) -> Endpoint | None:
    """The endpoint of a daemon process that serves the root, when it listens where it says."""
    ports = ctx.listening(p)
    if not ports:
        return None
    logs = _open_logs(p, ctx.root)
    logged = _newest_port(Path(f) for f in sorted(logs, key=_mtime, reverse=True))
    candidates: list[tuple[int | None, str, str, bool]] = []  # (port, scheme, how, extension)
    if logged is not None:
        candidates.append((logged[0], "http", f"its log {logged[1]}", False))
    candidates.append((_port(p.flags.get("hub_port")), "http", "--hub-port", False))
    candidates.append((_port(p.flags.get("extension_server_port")), "http", "--extension_server_port", True))
    candidates.append((_port(p.flags.get("https_server_port")), "https", "--https_server_port", False))
    for port, scheme, how, extension in candidates:
        if port is not None and port in ports:
            token, token_origin = ctx.token(p, port, extension)
            return Endpoint(_url(scheme, ports[port]), token, f"process {p.pid} ({p.name}, {how})", PROCESS, p.pid, token_origin)
    return None


def _mtime(path: str) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return 0


def _log_candidate(ctx: _Context, env: Mapping[str, str]) -> tuple[int, Path] | None:
    if ctx.root.product == "ide":
        found = _newest_port(_ide_logs(ide_log_dir(ctx.root, env), "language_server.log"))
        if found is not None:
            return found
    return port_from_logs(ctx.root.path)


def _verify_log_port(port: int, origin: Path, ctx: _Context) -> Endpoint | Withheld | None:
    """The listener on *port* (named by a log) if a daemon process of ours that serves no other
    store holds it; a ``Withheld`` otherwise; None when nothing listens there (not running)."""
    url = f"http://127.0.0.1:{port}"
    held = {inode: lst for inode, lst in ctx.listeners.items() if lst.port == port}
    if not held:
        return None
    owners = [p for p in ctx.processes if p.sockets & held.keys()]
    if not owners:
        return Withheld(url, str(origin), f"port {port} is not held by a process of this user")
    for p in owners:
        if p.kind is not None and not serves_other(p, ctx.root):
            lst = held[min(p.sockets & held.keys())]
            token, token_origin = ctx.token(p, port, False)
            return Endpoint(_url("http", lst), token, str(origin), LOG, p.pid, token_origin)
    p = owners[0]
    if p.kind is not None:
        return Withheld(url, str(origin), f"port {port} is held by process {p.pid} ({p.name}), which serves another store")
    return Withheld(url, str(origin), f"port {port} is held by process {p.pid} ({p.name}), not agy or a language server")


def discover(
    root: Root,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike[str] | None = None,
    uid: int | None = None,
) -> Discovery:
    """Where the daemon of *root* is and whether it may get a token (see the module docstring).

    Raises ``UsageError`` only for a malformed ``ANTIGRAVITY_CSRF_TOKEN`` (never echoed).
    """
    env = os.environ if env is None else env
    proc_root = procfs.PROC_ROOT if proc_root is None else proc_root
    user_token = token_from_env(env)
    proc = proc_available(proc_root)
    processes = tuple(scan_processes(proc_root, uid)) if proc else ()
    main_log = token_from_main_log(_ide_logs(ide_log_dir(root, env), "main.log")) if root.product == "ide" else None
    ctx = _Context(root, user_token, processes, listening_sockets(proc_root) if proc else {}, main_log)
    found: list[Endpoint] = []
    for p in processes:
        if p.kind is not None and serves(p, root) and (endpoint := _process_endpoint(p, ctx)) is not None:
            found.append(endpoint)
    withheld: list[Withheld] = []
    logged = _log_candidate(ctx, env)
    if logged is not None:
        port, origin = logged
        if not proc:
            withheld.append(
                Withheld(f"http://127.0.0.1:{port}", str(origin), "/proc is not available to check who listens there")
            )
        elif not any(_port_of(e.url) == port for e in found):
            checked = _verify_log_port(port, origin, ctx)
            if isinstance(checked, Endpoint):
                found.append(checked)
            elif checked is not None:
                withheld.append(checked)
    if env.get(ENV_URL):
        url = env[ENV_URL]
        paired = next((e for e in found if _same_listener(e.url, url) and e.token is not None), None)
        token, token_origin = (
            (user_token, ENV_TOKEN) if user_token else (paired.token, paired.token_origin) if paired else (None, None)
        )
        return Discovery((Endpoint(url, token, ENV_URL, PINNED, paired.pid if paired else None, token_origin),), (), proc)
    unique: dict[str, Endpoint] = {}
    for endpoint in found:
        unique.setdefault(endpoint.url, endpoint)
    return Discovery(tuple(unique.values()), tuple(withheld), proc)
