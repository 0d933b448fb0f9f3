"""What the processes of this user show a daemon's discovery: the daemon flags of a command line
and the variables of an environment (unverified hints), and, under Linux ``/proc``, each process's
open files and listening sockets.

Every function that defaults to ``/proc`` reads ``PROC_ROOT`` of this module when it is called,
so a test that points it at a fake tree patches it here.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from audit.csrf import Secret
from audit.safeio import exists, is_dir

ENV_TOKEN = "ANTIGRAVITY_CSRF_TOKEN"
ENV_ADDRESS = "ANTIGRAVITY_LS_ADDRESS"
PROC_ROOT = "/proc"
"""Where ``/proc`` is; tests point it at a fake tree."""
FLAGS = frozenset(
    {"https_server_port", "extension_server_port", "csrf_token", "extension_server_csrf_token", "app_data_dir", "hub_port"}
)
_PROC_FILE_LIMIT = 1 << 20
_LISTEN = "0A"


def current_uid() -> int | None:
    """Our user id, or None where the platform has none (Windows)."""
    getuid = getattr(os, "getuid", None)
    return getuid() if getuid is not None else None


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
