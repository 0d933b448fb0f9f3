"""Daemon ports and tokens in log files: the HTTP port lines of a root's ``cli.log`` and
``log/cli-*.log``, the IDE's log directory, and the daemon spawn lines of its ``main.log``.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import BinaryIO

from audit.csrf import Secret
from audit.safeio import is_dir
from audit.store.discovery.procfs import _secret
from audit.store.layout import Root, list_dir

_PORT_LINE = re.compile(rb"listening on random port at (\d{1,5}) for HTTP(?![A-Za-z])")
_SPAWN_TOKEN = re.compile(rb"--csrf[_-]token(?:=|\s+)['\"]?([A-Za-z0-9._~:/+=-]{16,4096})")
_LOG_LIMIT = 64 << 20  # bytes of one log read for port lines


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
