"""The guarded parent-link repair: resolve, back up, write, verify, roll back on failure.

The runbook of a manual repair (stop writers, back up, repair, verify, roll back) as one call.
A writer noticed at any point stops the run before the next write.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from audit.actions import backup, stamp
from audit.actions.backup import Verification
from audit.checks import links
from audit.errors import AuditError, FindingsError, NothingToCheck, interrupt_exit_code


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


@dataclass(frozen=True)
class RepairResult:
    resolution: links.Resolution
    backup: Path
    verification: Verification


def repair(directory: str | os.PathLike, backup_dir: str | os.PathLike) -> RepairResult:
    """Recompute every parent of *directory* ignoring stamps, under a verified backup.

    1. resolve (read-only); refuse when a sidecar is unreadable or has an invalid or duplicate
       cascade id, since the result could never be verified;
    2. back up every sidecar to *backup_dir* (a sidecar that changed since step 1 means a writer);
    3. write the changes (each file checked against step 1 first);
    4. verify against the backup (byte-identical when nothing was to change);
    5. on a failed verification restore the backup and raise ``FindingsError``.

    Its own rollbacks (steps 3 and 5) are forced: they undo this run's writes, as documented,
    where ``links rollback`` refuses a sidecar that changed after the repair.
    """
    resolution = links.resolve(directory, repair=True)
    refuse(resolution)
    for link in resolution.changes:  # a write-protected sidecar is refused before anything is written
        stamp.check_writable(link.path)
    made = backup.create(
        directory, backup_dir, expect=resolution.files, plan=lambda data, name: stamp.planned(resolution, data, name)
    )
    try:
        stamp.apply(resolution)
    except FindingsError as exc:  # a writer appeared: keep what was written, say how to undo it
        raise FindingsError(
            f"{exc.message}; to undo the changes made so far: agy-audit links rollback --backup {made.path}"
        ) from None
    except AuditError as exc:  # a write failed (disk full, permission denied): undo what was written
        try:
            backup.rollback(made.path, force=True)
        except AuditError:
            raise type(exc)(
                f"{exc.message}; to undo the changes made so far: agy-audit links rollback --backup {made.path}"
            ) from None
        raise type(exc)(f"{exc.message}; every sidecar was restored from {made.path}") from None
    except KeyboardInterrupt as exc:  # Ctrl-C or SIGTERM between two writes: undo them too
        backup.rollback(made.path, force=True)
        raise AuditError(
            f"{directory}: interrupted; every sidecar was restored from {made.path}", exit_code=interrupt_exit_code(exc)
        ) from None
    verification = backup.verify(made.path, unchanged=not resolution.changes)
    if not verification.ok:
        backup.rollback(made.path, force=True)
        raise FindingsError(
            f"{directory}: verification failed ({verification.problems[0]}); every sidecar was restored from {made.path}"
        )
    return RepairResult(resolution, made.path, verification)
