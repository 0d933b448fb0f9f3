"""The corpus being written (``Corpus``): each file created once in the new private directory,
removed again when its session fails (``all_or_none``), a failing step named by its stage
(``in_stage``, ``Failed``), and every file made durable before the final manifest
(``make_durable``)."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import ParamSpec, TypeVar

from audit.actions.sweep.manifest import Failure, SweepResult
from audit.errors import AuditError, InputError
from audit.safewrite import create_in_private_dir, filesystem_handle, make_private_dir, sync_files
from audit.store.daemon import AuthError


class Failed(Exception):
    def __init__(self, stage: str, message: str, *, auth: bool = False) -> None:
        super().__init__(message)
        self.stage = stage
        self.message = " ".join(message.split())
        self.auth = auth  # the daemon refused the token (HTTP 401/403)


class Corpus:
    """The corpus being written: its path, the directories this sweep made in it (each created,
    and checked to be a directory, once), and a descriptor on it opened right after it was
    created (None if that failed), for one ``syncfs`` at the end (see ``make_durable``)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.root = str(path)
        self.made: set[str] = {self.root}
        self.fd: int | None = None
        with contextlib.suppress(OSError):  # without it, each file is fsynced
            self.fd = filesystem_handle(path)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def write(self, rel: str, data: bytes, files: dict[str, str]) -> str:
        """Create ``<corpus>/<rel>`` with *data*, its missing directories 0700; *rel* is
        recorded in *files* with its sha256 once the whole file is written."""
        path = f"{self.root}/{rel}"
        parent = path.rpartition("/")[0]
        if parent not in self.made:
            in_stage("write", make_private_dir, parent, exist_ok=True)
            while parent not in self.made:  # it and every directory above it, up to the corpus
                self.made.add(parent)
                parent = parent.rpartition("/")[0]
        # a new name in the private corpus: one exclusive open, no temp file; durable before the final manifest
        in_stage("write", create_in_private_dir, path, data)
        files[rel] = hashlib.sha256(data).hexdigest()
        return path

    def remove(self, files: dict[str, str]) -> None:
        """Remove the files of *files* and the directories that are then empty."""
        for rel in files:
            path = f"{self.root}/{rel}"
            with contextlib.suppress(OSError):
                os.unlink(path)
            parent = path.rpartition("/")[0]
            while parent != self.root and _rmdir_if_empty(parent):
                self.made.discard(parent)
                parent = parent.rpartition("/")[0]


@contextlib.contextmanager
def all_or_none(corpus: Corpus, files: dict[str, str]) -> Iterator[None]:
    """On any failure inside it (Ctrl-C included) the files of *files* written so far are removed."""
    try:
        yield
    except BaseException:
        corpus.remove(files)
        raise


def _rmdir_if_empty(path: str) -> bool:
    try:
        os.rmdir(path)
    except OSError:
        return False
    return True


_P = ParamSpec("_P")
_T = TypeVar("_T")


def in_stage(stage: str, function: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs) -> _T:
    try:
        return function(*args, **kwargs)
    except AuthError as exc:
        raise Failed(stage, exc.message, auth=True) from None
    except AuditError as exc:
        raise Failed(stage, exc.message) from None
    except OSError as exc:
        raise Failed(stage, f"{exc.filename or ''}: {exc.strerror or exc}") from None


def make_durable(result: SweepResult, corpus: Corpus) -> None:
    """Every file the final manifest lists, and its directories, made durable before the manifest
    is written: files are written without an fsync each, and the manifest is the commit point.
    One ``syncfs(2)`` of the corpus filesystem where Linux offers it (on the descriptor held since
    the corpus was created), else, or when it fails, an fsync of each file and directory."""
    written = [s.files for s in result.sessions] + [n.files for n in result.not_covered] + [i.files for i in result.installs]
    files = (f"{corpus.root}/{rel}" for listed in written for rel in listed)  # named only if fsynced one by one
    try:
        sync_files(files, result.out, filesystem=corpus.fd)
    except InputError as exc:
        result.failures.append(Failure(None, "write", f"{exc.message}; the corpus is not durable"))
