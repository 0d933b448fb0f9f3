"""Where a store's daemon listens and which CSRF token it wants -- and whether it may have it.

For one root (``discover``), in this order:

1. **pinned**: ``ANTIGRAVITY_DAEMON_URL`` is the only candidate (the user's choice; loopback-only
   unless ``--allow-remote-daemon``, enforced by ``DaemonClient``);
2. **process** (Linux ``/proc``; the root is injectable, default ``PROC_ROOT``): every process of
   this user that is ``agy`` or a language server, with its listening sockets (the inodes of its
   ``/proc/<pid>/fd`` links matched against the LISTEN entries of ``/proc/net/tcp`` and ``tcp6``)
   and its open files. It serves the root when one of its open ``*.log`` files lies under the root,
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

import fnmatch
import ipaddress
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO
from urllib.parse import urlsplit

from audit.csrf import Secret
from audit.errors import UsageError
from audit.safeio import exists, is_dir
from audit.store.daemon import is_loopback
from audit.store.layout import ROOT_PRODUCTS, Root, list_dir

ENV_URL = "ANTIGRAVITY_DAEMON_URL"
ENV_TOKEN = "ANTIGRAVITY_CSRF_TOKEN"
ENV_ADDRESS = "ANTIGRAVITY_LS_ADDRESS"
PROC_ROOT = "/proc"
"""Where ``/proc`` is; tests point it at a fake tree."""
PINNED, PROCESS, LOG = "pinned", "process", "log"
FLAGS = frozenset(
    {"https_server_port", "extension_server_port", "csrf_token", "extension_server_csrf_token", "app_data_dir", "hub_port"}
)
_PORT_LINE = re.compile(rb"listening on random port at (\d{1,5}) for HTTP(?![A-Za-z])")
_SPAWN_TOKEN = re.compile(rb"--csrf[_-]token(?:=|\s+)['\"]?([A-Za-z0-9._~:/+=-]{16,4096})")
_PROC_FILE_LIMIT = 1 << 20
_LOG_LIMIT = 64 << 20  # bytes of one log read for port lines
_LISTEN = "0A"
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


# ----------------------------------------------------------------------------- environment


def token_from_env(env: Mapping[str, str]) -> Secret | None:
    """``ANTIGRAVITY_CSRF_TOKEN`` as a ``Secret``; a malformed value is a usage error (not echoed)."""
    value = env.get(ENV_TOKEN)
    if not value:
        return None
    try:
        return Secret(value)
    except ValueError as exc:
        raise UsageError(f"{ENV_TOKEN} is {exc}") from None


def current_uid() -> int | None:
    """Our user id, or None where the platform has none (Windows)."""
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


# ----------------------------------------------------------------------------- logs


def port_from_log(lines: Iterable[bytes]) -> int | None:
    """The port of the last ``listening on random port at N for HTTP`` line (HTTPS lines ignored)."""
    port = None
    for line in lines:
        match = _PORT_LINE.search(line)
        if match and 0 < int(match[1]) < 65536:
            port = int(match[1])
    return port


def _inside(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    try:
        return os.path.commonpath([os.path.realpath(path), os.path.realpath(root)]) == os.path.realpath(root)
    except ValueError:  # different drives
        return False


def _regular(path: Path) -> os.stat_result | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st if stat.S_ISREG(st.st_mode) else None


def log_files(root: Path) -> list[Path]:
    """``cli.log`` and ``log/cli-*.log`` of *root* that are regular files, newest first.

    ``cli.log`` may be a symbolic link (to ``log/cli-*.log``): it is followed, read-only, when its
    target is a regular file inside *root*; a link among ``log/cli-*.log`` is not. One file is
    listed once, under its real name.
    """
    found: dict[str, tuple[int, Path]] = {}
    cli_log = root / "cli.log"
    if os.path.islink(cli_log):
        if _inside(cli_log, root) and (st := _regular(cli_log)) is not None:
            real = os.path.realpath(cli_log)
            found[real] = (st.st_mtime_ns, Path(real))
    elif (st := _regular(cli_log)) is not None:
        found[os.path.realpath(cli_log)] = (st.st_mtime_ns, cli_log)
    for entry in list_dir(root / "log") if is_dir(root / "log") else ():
        path = Path(entry.path)
        if not fnmatch.fnmatchcase(entry.name, "cli-*.log") or os.path.islink(path) or (st := _regular(path)) is None:
            continue
        found.setdefault(os.path.realpath(path), (st.st_mtime_ns, path))
    return [path for _, path in sorted(found.values(), key=lambda item: (item[0], str(item[1])), reverse=True)]


def port_from_file(path: str | os.PathLike[str]) -> int | None:
    """The newest HTTP port line of one log (its first ``_LOG_LIMIT`` bytes), None when unreadable."""
    try:
        with open(path, "rb") as fh:
            return port_from_log(_lines(fh))
    except OSError:
        return None


def _lines(fh: BinaryIO) -> Iterator[bytes]:
    read = 0
    for line in fh:
        read += len(line)
        if read > _LOG_LIMIT:
            return
        yield line


def port_from_logs(root: Path) -> tuple[int, Path] | None:
    """The daemon's HTTP port from the newest log of *root* that has a port line, and that log."""
    return _newest_port(log_files(root))


def _newest_port(paths: Iterable[Path]) -> tuple[int, Path] | None:
    for path in paths:
        port = port_from_file(path)
        if port is not None:
            return port, path
    return None


def ide_log_dir(root: Root, env: Mapping[str, str], platform: str | None = None) -> Path | None:
    """The IDE's log directory (``Antigravity/logs`` in the platform config directory).

    The home is the one the root lives in (``<home>/.gemini/<root>``), else ``$HOME``.
    """
    platform = sys.platform if platform is None else platform
    if root.path.parent.name == ".gemini":
        home = root.path.parent.parent
    elif env.get("HOME"):
        home = Path(env["HOME"])
    else:
        return None
    if platform == "darwin":
        config = home / "Library" / "Application Support"
    elif platform.startswith("win"):
        if not env.get("APPDATA"):
            return None
        config = Path(env["APPDATA"])
    else:
        xdg = env.get("XDG_CONFIG_HOME")
        own_home = env.get("HOME") and Path(env["HOME"]) == home
        config = Path(xdg) if xdg and own_home else home / ".config"
    return config / "Antigravity" / "logs"


def _ide_logs(logs: Path | None, name: str) -> list[Path]:
    """``logs/<name>`` and ``logs/*/<name>`` (dated session folders), regular files, newest first."""
    if logs is None:
        return []
    found = []
    for path in [logs / name, *logs.glob(f"*/{name}")]:
        if not os.path.islink(path) and (st := _regular(path)) is not None:
            found.append((st.st_mtime_ns, str(path), path))
    return [path for *_, path in sorted(found, reverse=True)]


def token_from_main_log(paths: Iterable[Path]) -> tuple[Secret, Path] | None:
    """The ``--csrf_token`` of the last line carrying one (the newest daemon spawn) of the newest
    ``main.log`` that has one; ``--extension_server_csrf_token`` is not it."""
    for path in paths:
        token = None
        try:
            with open(path, "rb") as fh:
                for line in _lines(fh):
                    if match := _SPAWN_TOKEN.search(line):
                        token = match[1].decode()
        except OSError:
            continue
        if token is not None and (secret := _secret(token)) is not None:
            return secret, path
    return None


# ----------------------------------------------------------------------------- command lines and environments


def parse_flags(argv: Sequence[str]) -> dict[str, str]:
    """The known daemon flags of a command line; ``--f v``, ``--f=v`` and ``-f`` spellings, last wins.

    A separate value must not itself start with ``--``; ``-`` and ``_`` in names are equivalent.
    """
    flags: dict[str, str] = {}
    for i, arg in enumerate(argv[1:], 1):
        if not arg.startswith("-"):
            continue
        name, eq, value = arg.lstrip("-").partition("=")
        name = name.replace("-", "_")
        if name not in FLAGS:
            continue
        if not eq:
            if i + 1 >= len(argv) or argv[i + 1].startswith("--"):
                continue
            value = argv[i + 1]
        flags[name] = value
    return flags


def _secret(value: str | None) -> Secret | None:
    try:
        return Secret(value) if value else None
    except ValueError:
        return None


def _port(value: str | None) -> int | None:
    """A usable port (1..65535); 0 means ephemeral and cannot be used without socket inspection."""
    if value and value.isdigit() and 0 < int(value) < 65536:
        return int(value)
    return None


def daemon_kind(argv: Sequence[str]) -> str | None:
    """``agy`` or ``language_server`` by the program name (argv[0]); None for any other program."""
    name = os.path.basename(argv[0]) if argv else ""
    if name == "agy":
        return "agy"
    if "language_server" in name:
        return "language_server"
    return None


@dataclass(frozen=True)
class ProcessHint:
    """What one process's command line or environment tells about a daemon (no verification)."""

    pid: int
    origin: str  # "cmdline" or "environ"
    app_data_dir: str | None
    endpoints: tuple[tuple[str, Secret | None], ...]
    token: Secret | None


def hint_from_cmdline(pid: int, argv: Sequence[str]) -> ProcessHint | None:
    """Flags of a language-server or ``agy`` process; None for any other process."""
    if daemon_kind(argv) is None:
        return None
    flags = parse_flags(argv)
    token = _secret(flags.get("csrf_token"))
    endpoints = []
    if port := _port(flags.get("https_server_port")):
        endpoints.append((f"https://127.0.0.1:{port}", token))
    if port := _port(flags.get("extension_server_port")):
        endpoints.append((f"http://127.0.0.1:{port}", _secret(flags.get("extension_server_csrf_token")) or token))
    if port := _port(flags.get("hub_port")):
        endpoints.append((f"http://127.0.0.1:{port}", token))
    if not endpoints and token is None:
        return None
    return ProcessHint(pid, "cmdline", flags.get("app_data_dir"), tuple(endpoints), token)


def hint_from_environ(pid: int, environ: Mapping[str, str]) -> ProcessHint | None:
    """``ANTIGRAVITY_LS_ADDRESS`` (``host:port`` or a URL) and ``ANTIGRAVITY_CSRF_TOKEN`` of a process."""
    address, token = environ.get(ENV_ADDRESS, "").strip(), _secret(environ.get(ENV_TOKEN))
    if not address and token is None:
        return None
    endpoints = ((address if "://" in address else f"http://{address}", token),) if address else ()
    return ProcessHint(pid, "environ", None, endpoints, token)


def parse_environ(data: bytes) -> dict[str, str]:
    """A ``/proc/<pid>/environ`` blob (NUL-separated ``NAME=value``)."""
    env = {}
    for item in data.split(b"\0"):
        name, eq, value = item.decode("utf-8", "replace").partition("=")
        if eq and name:
            env[name] = value
    return env


def parse_argv(data: bytes) -> list[str]:
    """A ``/proc/<pid>/cmdline`` blob (NUL-terminated arguments)."""
    argv = [a.decode("utf-8", "replace") for a in data.split(b"\0")]
    return argv[:-1] if argv[-1:] == [""] else argv


# ----------------------------------------------------------------------------- /proc


@dataclass(frozen=True)
class Listener:
    inode: int
    host: str  # an IP literal
    port: int


@dataclass(frozen=True)
class Process:
    """One process of this user as ``/proc`` shows it (only what discovery needs)."""

    pid: int
    ppid: int | None
    argv: tuple[str, ...] = field(repr=False)  # may hold a --csrf_token
    kind: str | None  # "agy", "language_server" or None
    flags: Mapping[str, str] = field(repr=False)
    files: tuple[str, ...]  # targets of its fd links that are paths
    sockets: frozenset[int]  # inodes of its fd links that are sockets
    ls_address: str | None = None  # ANTIGRAVITY_LS_ADDRESS of its environment
    env_token: Secret | None = None  # ANTIGRAVITY_CSRF_TOKEN of its environment

    @property
    def name(self) -> str:
        return os.path.basename(self.argv[0]) if self.argv else "?"


def proc_available(proc_root: str | os.PathLike[str]) -> bool:
    """Whether *proc_root* looks like Linux ``/proc`` (a directory with ``net/tcp`` or ``net/tcp6``)."""
    base = Path(proc_root)
    return is_dir(base) and any(exists(base / "net" / name) for name in ("tcp", "tcp6"))


def _read_proc(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_PROC_FILE_LIMIT)
    except OSError:
        return b""


def _address(text: str) -> tuple[str, int] | None:
    """``0100007F:1F90`` (or the 32-hex-digit IPv6 form) from ``/proc/net/tcp*`` as (ip, port)."""
    ip_hex, _, port_hex = text.partition(":")
    try:
        raw, port = bytes.fromhex(ip_hex), int(port_hex, 16)
    except ValueError:
        return None
    if len(raw) == 4:
        return str(ipaddress.IPv4Address(raw[::-1])), port
    if len(raw) == 16:  # four host-order 32-bit words
        ip = ipaddress.IPv6Address(b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4)))
        return str(ip.ipv4_mapped or ip), port
    return None


def listening_sockets(proc_root: str | os.PathLike[str]) -> dict[int, Listener]:
    """The TCP sockets in LISTEN state of ``net/tcp`` and ``net/tcp6``, by inode."""
    found: dict[int, Listener] = {}
    for name in ("tcp", "tcp6"):
        for line in _read_proc(Path(proc_root) / "net" / name).decode("ascii", "replace").splitlines()[1:]:
            fields = line.split()
            if len(fields) < 10 or fields[3] != _LISTEN or not fields[9].isdigit():
                continue
            address = _address(fields[1])
            if address is not None and int(fields[9]) > 0:
                found[int(fields[9])] = Listener(int(fields[9]), *address)
    return found


_SOCKET_LINK = re.compile(r"socket:\[(\d+)\]")


def _fds(base: Path) -> tuple[tuple[str, ...], frozenset[int]]:
    files, sockets = [], set()
    try:
        entries = list(os.scandir(base / "fd"))
    except OSError:
        return (), frozenset()
    for entry in entries:
        try:
            target = os.readlink(entry.path)
        except OSError:
            continue
        if match := _SOCKET_LINK.fullmatch(target):
            sockets.add(int(match[1]))
        elif target.startswith("/"):
            files.append(target.removesuffix(" (deleted)"))
    return tuple(sorted(files)), frozenset(sockets)


def _ppid(base: Path) -> int | None:
    text = _read_proc(base / "stat").decode("ascii", "replace")
    fields = text[text.rfind(")") + 1 :].split()  # the command name may contain anything
    return int(fields[1]) if len(fields) > 1 and fields[1].isdigit() else None


def scan_processes(proc_root: str | os.PathLike[str], uid: int | None = None) -> list[Process]:
    """Every process of user *uid* (default: ours) under *proc_root*, by pid; [] when unreadable."""
    uid = current_uid() if uid is None else uid
    if uid is None:
        return []
    try:
        entries = [e for e in os.scandir(os.fspath(proc_root)) if e.name.isdigit()]
    except OSError:
        return []
    found = []
    for entry in sorted(entries, key=lambda e: int(e.name)):
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        base = Path(entry.path)
        argv = parse_argv(_read_proc(base / "cmdline"))
        environ = parse_environ(_read_proc(base / "environ"))
        files, sockets = _fds(base)
        found.append(
            Process(
                int(entry.name),
                _ppid(base),
                tuple(argv),
                daemon_kind(argv),
                parse_flags(argv),
                files,
                sockets,
                environ.get(ENV_ADDRESS, "").strip() or None,
                _secret(environ.get(ENV_TOKEN)),
            )
        )
    return found


def process_hints(proc_root: str | os.PathLike[str] | None = None, uid: int | None = None) -> list[ProcessHint]:
    """Unverified hints from every process of user *uid* (default: ours), by pid."""
    hints = []
    for p in scan_processes(PROC_ROOT if proc_root is None else proc_root, uid):
        for hint in (
            hint_from_cmdline(p.pid, p.argv),
            hint_from_environ(p.pid, {ENV_ADDRESS: p.ls_address or "", ENV_TOKEN: p.env_token.reveal() if p.env_token else ""}),
        ):
            if hint is not None:
                hints.append(hint)
    return hints


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
    proc_root = PROC_ROOT if proc_root is None else proc_root
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


def discover_endpoints(
    root: Root,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike[str] | None = None,
    uid: int | None = None,
) -> list[Endpoint]:
    """The endpoints of ``discover`` that may be contacted, best first."""
    return list(discover(root, env, proc_root, uid).endpoints)


# ----------------------------------------------------------------------------- agy-reader watchers

_READER_BOOLS = frozenset({"list", "include-implicit", "sync", "watch"})
_READER_VALUES = frozenset({"format", "watch-interval", "watch-idle-timeout", "root", "out"})
_READER_SUBCOMMANDS = frozenset({"shape-fingerprint", "backfill-parent-links", "audit-sweep"})
_GO_TRUE, _GO_FALSE = {"1", "t", "T", "TRUE", "true", "True"}, {"0", "f", "F", "FALSE", "false", "False"}


def reader_watch_roots(argv: Sequence[str]) -> list[str] | None:
    """The ``--root`` values of an ``agy-reader --watch`` command line ([] = its default roots), or
    None when it is not a watcher. Parsed like Go's ``flag`` package: flags stop at the first
    positional argument or ``--``; an unknown flag or a bad boolean means the process exited."""
    if not argv or os.path.basename(argv[0]) != "agy-reader" or (argv[1:2] and argv[1] in _READER_SUBCOMMANDS):
        return None
    watch, roots, i = False, [], 1
    while i < len(argv):
        arg = argv[i]
        if arg == "--" or not arg.startswith("-") or arg == "-":
            break
        name, eq, value = arg[2:].partition("=") if arg.startswith("--") else arg[1:].partition("=")
        if name in _READER_BOOLS:
            if eq and value not in _GO_TRUE | _GO_FALSE:
                return None
            on = not eq or value in _GO_TRUE
            watch = on if name == "watch" else watch
        elif name in _READER_VALUES:
            if not eq:
                if i + 1 >= len(argv):
                    return None
                i, value = i + 1, argv[i + 1]
            if name == "root":
                roots.append(value)
        else:
            return None
        i += 1
    return roots if watch else None


@dataclass(frozen=True)
class Watcher:
    pid: int
    roots: tuple[str, ...]  # absolute paths this watcher covers


def reader_watchers(proc_root: str | os.PathLike[str] | None = None, uid: int | None = None) -> list[Watcher] | None:
    """Running ``agy-reader --watch`` processes of this user with the roots they cover; None without /proc.

    A watcher without ``--root`` covers ``$ANTIGRAVITY_CLI_ROOT`` of its environment, else the
    default stores of its ``$HOME`` (``.gemini/antigravity-cli`` and ``.gemini/antigravity``);
    relative roots are taken from its working directory.
    """
    proc_root = PROC_ROOT if proc_root is None else proc_root
    if not proc_available(proc_root):
        return None
    uid = current_uid() if uid is None else uid
    try:
        entries = [e for e in os.scandir(os.fspath(proc_root)) if e.name.isdigit()]
    except OSError:
        return None
    found = []
    for entry in sorted(entries, key=lambda e: int(e.name)):
        try:
            if uid is None or entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        base = Path(entry.path)
        roots = reader_watch_roots(parse_argv(_read_proc(base / "cmdline")))
        if roots is None:
            continue
        environ = parse_environ(_read_proc(base / "environ"))
        if not roots:
            if environ.get("ANTIGRAVITY_CLI_ROOT"):
                roots = [environ["ANTIGRAVITY_CLI_ROOT"]]
            elif environ.get("HOME"):
                roots = [os.path.join(environ["HOME"], ".gemini", name) for name in ("antigravity-cli", "antigravity")]
        try:
            cwd = os.readlink(base / "cwd")
        except OSError:
            cwd = "/"
        absolute = tuple(os.path.normpath(os.path.join(cwd, os.path.expanduser(r))) for r in roots)
        found.append(Watcher(int(entry.name), absolute))
    return found


def watcher_for(root: Root, watchers: Sequence[Watcher]) -> Watcher | None:
    real = os.path.realpath(root.path)
    return next((w for w in watchers if any(os.path.realpath(r) == real for r in w.roots)), None)
