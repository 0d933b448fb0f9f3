"""What one run carries from file to file (``Run``: the limit, the files written, the problems
found), what it returns (``Result``), and the check that a redacted JSON document differs from its
source only by string values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.actions.redact.replacements import Redactor
from audit.checks.diff import CHANGED, changes
from audit.errors import InputError
from audit.safeio import read_bytes
from audit.safewrite import create_in_private_dir, make_private_dir


@dataclass
class Result:
    source: Path
    out: Path
    files: int = 0  # files written
    left_out: list[str] = field(default_factory=list)  # relative paths not copied, with the reason
    digests: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # surface -> (source, copy)
    counts: dict[str, int] = field(default_factory=dict)
    shift_days: int = 0


@dataclass
class Run:
    """What one run carries from file to file."""

    source: Path
    out: Path
    r: Redactor
    result: Result
    limit: int
    problems: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    corpus: bool = False  # a sweep corpus: its manifest is rewritten for the copy

    def read(self, path: Path, size: int) -> bytes:
        """The bytes of *path* (*size* by its ``lstat``), refused above the limit before a byte is read."""
        self.refuse_above_limit(path, size)
        return read_bytes(path, limit=self.limit)

    def refuse_above_limit(self, path: Path, size: int) -> None:
        if size > self.limit:
            raise InputError(
                f"{path}: {size} bytes, larger than the limit of {self.limit} (--max-file-size); nothing was written"
            )

    def write(self, path: Path, data: bytes | Iterator[bytes]) -> None:
        """Create the copy of the source file *path* (its UUIDs mapped) with *data*: a new file in
        the new private directory, made durable with the others (``sync_files``)."""
        target = self.out / Path(*(self.r.uuids_in(part) for part in path.relative_to(self.source).parts))
        make_private_dir(target.parent, exist_ok=True)
        create_in_private_dir(str(target), data)
        self.written.append(target)

    def document(self, old: Any, new: Any, source: str) -> None:
        """A redacted JSON document must differ from its source only by string values."""
        if not _only_strings_differ(old, new, self.r.key):
            self.problems.extend(_explain(old, new, self.r, source))


def _only_strings_differ(old: Any, new: Any, key: Callable[[str], str]) -> bool:
    """Whether *new* is *old* (its keys mapped by *key*: ``Redactor.key``) with only string values
    changed: the same types, keys and list lengths, and equal numbers, booleans and nulls
    (iteratively)."""
    stack = [(old, new)]
    while stack:
        a, b = stack.pop()
        if type(a) is not type(b):
            return False
        if type(a) is dict:
            if len(a) != len(b):
                return False
            for k, v in a.items():
                mapped = key(k)
                if mapped not in b:
                    return False
                stack.append((v, b[mapped]))
        elif type(a) is list:
            if len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif type(a) is not str and a != b:
            return False
    return True


def _uuid_keys(value: Any, r: Redactor) -> Any:
    if isinstance(value, dict):
        return {r.key(k): _uuid_keys(v, r) for k, v in value.items()}
    if isinstance(value, list):
        return [_uuid_keys(v, r) for v in value]
    return value


def _explain(old: Any, new: Any, r: Redactor, source: str) -> list[str]:
    """What ``diff`` finds between a source document (its UUID keys mapped) and its copy besides
    changed string values (on the failure path only: deepdiff is loaded there). Arrays and objects
    deeper than ``diff.DEEPEST`` are compared whole, so no depth makes it recurse too far: such a
    change is one only when more than its strings differ."""
    problems = [
        f"{source}: {change.path}: {change.kind} (only string values may change)"
        for change in changes(_uuid_keys(old, r), new, ignore=(), deepest=True)
        if not (change.kind == CHANGED and _only_strings_differ(change.old, change.new, str))
    ]
    return problems or [f"{source}: differs from its copy by more than string values"]
