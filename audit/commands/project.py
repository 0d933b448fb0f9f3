"""The project configuration: where a project keeps its baselines and its compatibility record, and
which consumers and ``--fail-on`` it judges with, set once for ``ci``, ``compare``, ``record``,
``baselines`` and ``doctor``.

Found as ruff finds its own: the nearest directory, from the current one up, that holds an
``agy-audit.toml`` (keys at the top) or a ``pyproject.toml`` with a ``[tool.agy-audit]`` table
(a ``pyproject.toml`` without one is not a configuration). In one directory ``agy-audit.toml``
wins and the ``pyproject.toml`` beside it is not read. Keys: ``baseline-dir``, ``compat-file``
(paths, relative to the file's directory), ``consumers`` (a list of bundled profile names or
profile files; an entry ending in ``.json`` or holding a ``/`` is a file, relative to the file's
directory) and ``fail-on`` (a value or a list, as ``--fail-on``). Precedence: the command line,
then the configuration, then the defaults ``fingerprints`` and ``COMPATIBILITY.md`` in the
project directory (the configuration's directory, else the current one). The search ends below
a directory this user may not search (as a ceiling: a checkout inside a private directory of
another user finds its own configuration, or none). A configuration that
cannot be read, is not TOML, or holds an unknown key or a bad value is a usage error (exit 2)
naming the file and the key.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from audit.checks.consumers import CONSUMER_PREFIX, is_fail_on
from audit.checks.drift import FAIL_ON
from audit.errors import InputError, UsageError
from audit.safeio import is_file, read_bytes

OWN_FILE = "agy-audit.toml"
PYPROJECT = "pyproject.toml"
TABLE = "agy-audit"  # [tool.agy-audit]
DEFAULT_BASELINE_DIR = "fingerprints"
DEFAULT_COMPAT_FILE = "COMPATIBILITY.md"
KEYS = ("baseline-dir", "compat-file", "consumers", "fail-on")
MAX_CONFIG_BYTES = 1 << 20


@dataclass(frozen=True)
class Project:
    """The configuration in force: the project directory (the configuration's, else the current
    one), the file (None: none found), and each setting from it or its default. Paths are
    relative when the project directory is the current one."""

    directory: Path
    file: Path | None
    baseline_dir: Path
    compat_file: Path
    consumers: tuple[str, ...] | None = None
    fail_on: tuple[str, ...] | None = None


def load(start: str | os.PathLike[str] | None = None) -> Project:
    """The configuration of the project *start* (default: the current directory) lies in."""
    here = Path(start) if start is not None else Path.cwd()
    for level, directory in enumerate([here, *here.parents]):
        base = Path(".") if level == 0 and start is None else directory
        own, pyproject = base / OWN_FILE, base / PYPROJECT  # relative to the current directory when in it
        try:
            found = is_file(own)
        except InputError:
            if level == 0:
                raise
            break  # a directory above that this user may not search ends the search, as a ceiling
        if found:
            return _project(own, base, _table(own, _parse(own)))
        if is_file(pyproject):
            table = _parse(pyproject).get("tool", {})
            if isinstance(table, dict) and TABLE in table:
                return _project(pyproject, base, _table(pyproject, table[TABLE], f"[tool.{TABLE}]"))
    base = Path(".") if start is None else here
    return Project(base, None, base / DEFAULT_BASELINE_DIR, base / DEFAULT_COMPAT_FILE)


def _parse(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(read_bytes(path, limit=MAX_CONFIG_BYTES).decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path}: not valid TOML ({exc})") from None


def _table(path: Path, table: object, where: str | None = None) -> dict[str, Any]:
    """The settings of *table* (*where*: the table's name in the file, None: its top), every key known."""
    if not isinstance(table, dict):
        raise UsageError(f"{path}: {where} is not a table")
    for key in table:
        if key not in KEYS:
            raise UsageError(f"{path}: {where + ': ' if where else ''}unknown key {key!r} (the keys are {', '.join(KEYS)})")
    return {key: (path, value) for key, value in table.items()}


def _project(file: Path, base: Path, settings: dict[str, Any]) -> Project:
    def path(key: str, default: str) -> Path:
        if key not in settings:
            return base / default
        source, value = settings[key]
        if not isinstance(value, str) or not value:
            raise UsageError(f"{source}: {key}: must be a non-empty string (a path)")
        return base / value

    consumers = None
    if "consumers" in settings:
        source, value = settings["consumers"]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise UsageError(f"{source}: consumers: must be a list of profile names or files")
        consumers = tuple(str(base / v) if v.endswith(".json") or "/" in v else v for v in value)
    fail_on = None
    if "fail-on" in settings:
        source, value = settings["fail-on"]
        values = [value] if isinstance(value, str) else value
        if not isinstance(values, list) or not values or not all(is_fail_on(v) for v in values):
            raise UsageError(
                f"{source}: fail-on: must be one of {', '.join(FAIL_ON)} or {CONSUMER_PREFIX}NAME, or a list of them"
            )
        fail_on = tuple(values)
    baseline_dir, compat_file = path("baseline-dir", DEFAULT_BASELINE_DIR), path("compat-file", DEFAULT_COMPAT_FILE)
    return Project(base, file, baseline_dir, compat_file, consumers, fail_on)
