"""Where a store's daemon listens and which CSRF token it wants, one testable step at a time.

For one root, candidate endpoints in order of preference:

1. ``ANTIGRAVITY_DAEMON_URL`` (when set, the only candidate);
2. the root's ``cli.log`` / ``log/cli-*.log``: the newest ``listening on random port at N for HTTP``
   line (never the ``for HTTPS (gRPC)`` one) gives ``http://127.0.0.1:N``;
3. on Linux, processes of the same user (the ``/proc`` root is injectable): language-server and
   ``agy`` command lines (``--https_server_port``, ``--extension_server_port``, ``--csrf_token``,
   ``--extension_server_csrf_token``, ``--app_data_dir``; ``--f v`` and ``--f=v``) and
   ``ANTIGRAVITY_LS_ADDRESS`` / ``ANTIGRAVITY_CSRF_TOKEN`` exported into a process's environment.

A process names its store with ``--app_data_dir`` (a root's directory name or path); one without it
belongs to the CLI store (``agy``'s default). The token is ``ANTIGRAVITY_CSRF_TOKEN`` when set, else
the one a matching process pairs with the same port, else any token of a matching process.
Nothing here sends network traffic.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from audit.errors import UsageError
from audit.store.daemon import Secret
from audit.store.layout import Root

ENV_URL = "ANTIGRAVITY_DAEMON_URL"
ENV_TOKEN = "ANTIGRAVITY_CSRF_TOKEN"
ENV_ADDRESS = "ANTIGRAVITY_LS_ADDRESS"
FLAGS = frozenset({"https_server_port", "extension_server_port", "csrf_token", "extension_server_csrf_token", "app_data_dir"})
_PORT_LINE = re.compile(rb"listening on random port at (\d{1,5}) for HTTP(?![A-Za-z])")
_PROC_FILE_LIMIT = 1 << 20


@dataclass(frozen=True)
class Endpoint:
    url: str
    token: Secret | None
    origin: str  # where the URL was found: the variable, the log file or the process


@dataclass(frozen=True)
class ProcessHint:
    """What one process tells about a daemon: endpoints (each with its token) and a token."""

    pid: int
    origin: str  # "cmdline" or "environ"
    app_data_dir: str | None
    endpoints: tuple[tuple[str, Secret | None], ...]
    token: Secret | None

    def matches(self, root: Root) -> bool:
        if self.app_data_dir:
            return self.app_data_dir == root.path.name or Path(self.app_data_dir).expanduser() == root.path
        return root.surface == "cli"


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


# ----------------------------------------------------------------------------- logs


def port_from_log(lines: Iterable[bytes]) -> int | None:
    """The port of the last ``listening on random port at N for HTTP`` line (HTTPS lines ignored)."""
    port = None
    for line in lines:
        match = _PORT_LINE.search(line)
        if match and 0 < int(match[1]) < 65536:
            port = int(match[1])
    return port


def log_files(root: Path) -> list[Path]:
    """``cli.log`` and ``log/cli-*.log`` of *root* that are regular files, newest first."""
    candidates = [root / "cli.log", *(root / "log").glob("cli-*.log")]
    found = []
    for path in candidates:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode):
            found.append((st.st_mtime_ns, str(path), path))
    return [path for *_, path in sorted(found, reverse=True)]


def port_from_logs(root: Path) -> tuple[int, Path] | None:
    """The daemon's HTTP port from the newest log of *root* that has a port line, and that log."""
    for path in log_files(root):
        try:
            with open(path, "rb") as fh:
                port = port_from_log(fh)
        except OSError:
            continue
        if port is not None:
            return port, path
    return None


# ----------------------------------------------------------------------------- processes


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


def hint_from_cmdline(pid: int, argv: Sequence[str]) -> ProcessHint | None:
    """Flags of a language-server or ``agy`` process; None for any other process."""
    name = os.path.basename(argv[0]) if argv else ""
    if "language_server" not in name and name != "agy":
        return None
    flags = parse_flags(argv)
    token = _secret(flags.get("csrf_token"))
    endpoints = []
    if port := _port(flags.get("https_server_port")):
        endpoints.append((f"https://127.0.0.1:{port}", token))
    if port := _port(flags.get("extension_server_port")):
        endpoints.append((f"http://127.0.0.1:{port}", _secret(flags.get("extension_server_csrf_token")) or token))
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


def _read_proc(path: Path) -> bytes:
    try:
        with open(path, "rb") as fh:
            return fh.read(_PROC_FILE_LIMIT)
    except OSError:
        return b""


def process_hints(proc_root: str | os.PathLike = "/proc", uid: int | None = None) -> list[ProcessHint]:
    """Hints from every process of user *uid* (default: ours) under *proc_root*, by pid."""
    uid = os.getuid() if uid is None else uid
    try:
        entries = [e for e in os.scandir(os.fspath(proc_root)) if e.name.isdigit()]
    except OSError:
        return []
    hints = []
    for entry in sorted(entries, key=lambda e: int(e.name)):
        try:
            if entry.stat(follow_symlinks=False).st_uid != uid:
                continue
        except OSError:
            continue
        pid, base = int(entry.name), Path(entry.path)
        argv = [a.decode("utf-8", "replace") for a in _read_proc(base / "cmdline").split(b"\0")]
        for hint in (
            hint_from_cmdline(pid, argv[:-1] if argv[-1:] == [""] else argv),
            hint_from_environ(pid, parse_environ(_read_proc(base / "environ"))),
        ):
            if hint is not None:
                hints.append(hint)
    return hints


# ----------------------------------------------------------------------------- together


def _port_of(url: str) -> int | None:
    try:
        return urlsplit(url).port
    except ValueError:
        return None


def _paired_token(url: str, hints: Sequence[ProcessHint]) -> Secret | None:
    port = _port_of(url)
    for hint in hints:
        for other, token in hint.endpoints:
            if token is not None and port is not None and _port_of(other) == port:
                return token
    return next((h.token for h in hints if h.token is not None), None)


def discover_endpoints(
    root: Root,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike = "/proc",
    uid: int | None = None,
) -> list[Endpoint]:
    """Candidate daemon endpoints for *root*, best first (see the module docstring)."""
    env = os.environ if env is None else env
    token = token_from_env(env)
    hints = [h for h in process_hints(proc_root, uid) if h.matches(root)]
    if env.get(ENV_URL):
        return [Endpoint(env[ENV_URL], token or _paired_token(env[ENV_URL], hints), ENV_URL)]
    found: list[Endpoint] = []
    logged = port_from_logs(root.path)
    if logged is not None:
        url = f"http://127.0.0.1:{logged[0]}"
        found.append(Endpoint(url, token or _paired_token(url, hints), str(logged[1])))
    for hint in hints:
        for url, own in hint.endpoints:
            found.append(Endpoint(url, token or own or hint.token, f"process {hint.pid} ({hint.origin})"))
    unique: dict[str, Endpoint] = {}
    for endpoint in found:
        unique.setdefault(endpoint.url, endpoint)
    return list(unique.values())
