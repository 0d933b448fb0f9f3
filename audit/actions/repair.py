"""The guarded parent-link repair: resolve, back up, write, verify, roll back on failure.

The runbook of a manual repair (stop writers, back up, repair, verify, roll back) as one call,
under the directory's writer lock. A writer noticed at any point stops the run before the next
write; a failure or a signal after the first write restores the backup.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from audit.actions import backup, link_writer, writelock
from audit.actions.backup import Verification
from audit.checks import links
from audit.errors import AuditError, FindingsError, NothingToCheck, interrupt_exit_code, interrupts_held
from audit.progress import Factory, step


def refuse(resolution: links.Resolution) -> None:
    """Raise when *resolution* cannot be repaired: no sidecars, or some left out of the graph."""
    if resolution.scanned == 0:
        raise NothingToCheck(f"{resolution.directory}: no sidecars to repair")
    unusable = [d for d in resolution.diagnostics if d.kind in links.UNUSABLE_KINDS]
    if unusable:
        first = unusable[0]
        raise FindingsError(
            f"{resolution.directory}: repair refused: {len(unusable)} sidecar(s) unreadable or with an invalid or "
            f"duplicate cascadeId (first: {first.id} {first.kind}: {first.message}); move them aside, then retry"
        )


class Unverified(FindingsError):
    """The repaired directory failed its verification against the backup (which was restored)."""


@dataclass(frozen=True)
class RepairResult:
    resolution: links.Resolution
    backup: Path | None  # None: nothing was to change, so nothing was backed up or written
    verification: Verification | None


def repair(
    directory: str | os.PathLike[str],
    backup_dir: str | os.PathLike[str],
    *,
    lock_timeout: float = writelock.DEFAULT_TIMEOUT,
    waiting: Callable[[str], None] | None = None,
    progress: Factory | None = None,
) -> RepairResult:
    """Recompute every parent of *directory* ignoring stamps, under a verified backup, holding
    the directory's writer lock throughout (``writelock.held``).

    1. resolve (read-only); refuse when a sidecar is unreadable or has an invalid or duplicate
       cascade id, since the result could never be verified; when nothing is to change, stop
       here: no backup, no write;
    2. back up every sidecar to *backup_dir* (a sidecar that changed since step 1 means a writer;
       a backup that fails or is interrupted is removed);
    3. write the changes (each file checked against step 1 first);
    4. verify against the backup;
    5. on a failed verification restore the backup and raise ``FindingsError``.

    A write that fails (disk full) or Ctrl-C / SIGTERM at any point of steps 3-5 restores every
    sidecar from the backup before the error is raised -- with Ctrl-C and SIGTERM held while it
    restores, so a second one cannot leave a mix -- or, when the restore itself fails, names the
    backup and the rollback command. Its own restores are forced: they undo this run's writes, as
    documented, where ``links rollback`` refuses a sidecar that changed after the repair. A writer
    noticed while stamping stops the run and says how to undo what was written.

    *progress* makes the progress of steps 1, 2 and 4 (``links repair: read``, ``backup``, ``verify``).
    """
    with writelock.held([directory], timeout=lock_timeout, waiting=waiting):
        with step(progress, "links repair: read", "sidecars") as bar:
            resolution = links.resolve(directory, repair=True, progress=bar)
        refuse(resolution)
        if not resolution.changes:
            return RepairResult(resolution, None, None)
        for link in resolution.changes:  # a write-protected sidecar is refused before anything is written
            link_writer.check_writable(link.path)
        made = None
        try:
            with step(progress, "links repair: backup", "sidecars") as bar:
                made = backup.create(
                    directory,
                    backup_dir,
                    expect=resolution.files,
                    plan=lambda data, name: link_writer.planned(resolution, data, name),
                    progress=bar,
                )
            link_writer.apply(resolution)
            with step(progress, "links repair: verify", "sidecars") as bar:
                verification = backup.verify(made.path, progress=bar)
            if not verification.ok:
                raise Unverified(f"{directory}: verification failed ({verification.problems[0]}); {_restore(made.path)}")
        except FindingsError as exc:  # a writer appeared: keep what was written, say how to undo it
            if made is None or isinstance(exc, Unverified):
                raise
            raise FindingsError(f"{exc.message}; to undo the changes made so far: {_rollback_command(made.path)}") from None
        except AuditError as exc:  # a write failed (disk full, permission denied): undo what was written
            if made is None:
                raise
            raise AuditError(f"{exc.message}; {_restore(made.path)}", exit_code=exc.exit_code) from None
        except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM at any point: undo what was written
            if made is None:  # nothing written yet (an interrupted backup removes itself)
                raise
            raise AuditError(f"{directory}: interrupted; {_restore(made.path)}", exit_code=interrupt_exit_code(exc)) from None
        return RepairResult(resolution, made.path, verification)


def _rollback_command(path: Path) -> str:
    return f"agy-audit links rollback --backup {path}"


def _restore(path: Path) -> str:
    """Restore every sidecar from the backup at *path*, Ctrl-C and SIGTERM held meanwhile; what
    happened, as the end of a message."""
    restored = False
    while not restored:
        try:
            with interrupts_held():
                backup.rollback(path, force=True)
                restored = True
        except AuditError as exc:
            return f"restoring failed ({exc.message}); to undo the changes made so far: {_rollback_command(path)}"
        except KeyboardInterrupt:  # held during the restore and raised after it; or before it was held: again
            pass
    return f"every sidecar was restored from {path}"
