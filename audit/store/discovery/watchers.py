"""Running ``agy-reader --watch`` processes of this user and the store roots they cover."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from audit.store.discovery import procfs
from audit.store.discovery.procfs import _read_proc, current_uid, parse_argv, parse_environ, proc_available
from audit.store.layout import Root

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
    proc_root = procfs.PROC_ROOT if proc_root is None else proc_root
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
