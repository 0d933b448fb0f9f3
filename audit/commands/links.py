"""``agy-audit links``: check, backfill and repair parent links; verify and roll back a repair."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from audit.actions import backup, link_writer, repair
from audit.checks import links
from audit.commands.common import (
    add_format,
    add_lock_timeout,
    add_progress,
    add_quiet,
    lock_waiting,
    print_json,
    progress_of,
    roots_from,
    user_path,
)
from audit.errors import EXIT_OK, InputError, NothingToCheck, UsageError
from audit.progress import step
from audit.report import links_report
from audit.store import layout


def register(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], parents: dict[str, argparse.ArgumentParser]
) -> None:
    p = subparsers.add_parser(
        "links",
        parents=[parents["store"]],
        help="check, backfill and repair subagent parent links",
        description="Resolve parent links (agyReader.parentCascadeId) from the evidence in every sidecar of "
        "each root's conversations/ directory; stamp, repair under a verified backup, verify, roll back.",
    )
    add_progress(p)
    sub = p.add_subparsers(dest="links_command", metavar="ACTION", required=True)
    nested = [parents["store_nested"]]

    check = sub.add_parser(
        "check",
        parents=nested,
        help="diagnostics and the family tree; writes nothing",
        description="Resolve every parent link and print the diagnostics and the family tree. A --root that "
        "is not a store is read as a directory of sidecars (e.g. a sweep corpus's corpus/<product>). "
        "Exit 1 when a cycle, conflicting evidence or an invalid stamp exists.",
    )
    add_format(check, "text", "json", "dot")
    add_progress(check, nested=True)
    check.set_defaults(run=run_check)

    backfill = sub.add_parser(
        "backfill",
        parents=nested,
        help="stamp resolved parents where none is stamped",
        description="Stamp agyReader.parentCascadeId where no valid stamp exists and the evidence names one "
        "parent. Existing stamps are kept (a disagreeing one is reported as stale-stamp). Idempotent.",
    )
    backfill.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    add_lock_timeout(backfill)
    add_format(backfill)
    add_progress(backfill, nested=True)
    backfill.set_defaults(run=run_backfill)

    fix = sub.add_parser(
        "repair",
        parents=nested,
        help="recompute every parent under a verified backup",
        description="Recompute every parent ignoring stamps: replace stale stamps, clear unsupported, conflicting "
        "and cyclic ones, keep correct ones byte-identical. Backs up first (when anything is to change), verifies "
        "after, and restores the backup automatically (exit 1) when verification fails, or when interrupted. "
        "Stop every agy-reader writer first; another agy-audit writer is waited for (--lock-timeout).",
    )
    fix.add_argument("--dry-run", action="store_true", help="print what would change; no backup, no writes")
    fix.add_argument(
        "--backup",
        type=user_path,
        metavar="DIR",
        help="new backup directory (default: agy-audit-links-backup-<root name>-<UTC time> next to the root); "
        "none is made when nothing is to change",
    )
    add_lock_timeout(fix)
    add_format(fix)
    add_progress(fix, nested=True)
    fix.set_defaults(run=run_repair)

    check_backup = sub.add_parser(
        "verify",
        help="compare the backed-up directory with a backup",
        description="Fail (exit 1) unless the file set, every mtime and every payload except "
        "agyReader.parentCascadeId equal the backup, and the stamps form a valid acyclic graph.",
    )
    check_backup.add_argument(
        "--backup", type=user_path, metavar="DIR", required=True, help="backup directory written by `links repair`"
    )
    check_backup.add_argument("--unchanged", action="store_true", help="also require every sidecar byte-identical")
    add_format(check_backup)
    add_quiet(check_backup, nested=True)
    add_progress(check_backup, nested=True)
    check_backup.set_defaults(run=run_verify)

    undo = sub.add_parser(
        "rollback",
        help="restore every sidecar's bytes and mtime from a backup",
        description="Restore bytes, mtimes and modes from a complete, untampered backup (atomic writes). "
        "Sidecars added after the backup are listed and left alone. A sidecar that changed after the repair "
        "(neither the backed-up nor the repaired bytes) or is write-protected stops the rollback before "
        "anything is written (exit 1) unless --force.",
    )
    undo.add_argument("--backup", type=user_path, metavar="DIR", required=True, help="backup directory written by `links repair`")
    undo.add_argument(
        "--force",
        action="store_true",
        help="also restore sidecars that changed after the repair (discarding those changes) or are write-protected",
    )
    add_lock_timeout(undo)
    add_format(undo)
    add_quiet(undo, nested=True)
    add_progress(undo, nested=True)
    undo.set_defaults(run=run_rollback)


def _directories(args: argparse.Namespace, *, plain: bool = False) -> list[tuple[layout.Root, Path]]:
    """``(root, root/conversations)`` of every selected root that holds at least one sidecar.
    With *plain* (read-only commands) a ``--root`` that is not a store is itself the directory of
    sidecars, e.g. a sweep corpus's ``corpus/<product>``."""
    roots = layout.require_roots(roots_from(args))
    found = [(root, root.path if plain and not layout.is_store(root.path) else root.path / "conversations") for root in roots]
    found = [(root, d) for root, d in found if links.list_sidecars(d)]
    if not found:
        raise NothingToCheck("no sidecars (<uuid>.trajectory.json) in " + ", ".join(str(r.path / "conversations") for r in roots))
    return found


# ----------------------------------------------------------------------------- check


def run_check(args: argparse.Namespace) -> int:
    make = progress_of(args)
    results = []
    for root, d in _directories(args, plain=True):
        with step(make, "links check", "sidecars") as bar:
            results.append((root, links.resolve(d, progress=bar)))
    code = max(res.exit_code for _, res in results)  # the worst root's
    if args.format == "dot":
        print(links_report.dot(results), end="")
    elif args.format == "json":
        print_json("links check", code, {"roots": [links_report.check_json(r, res) for r, res in results]})
    else:
        for root, res in results:
            print(links_report.check_text(root, res))
    return code


# ----------------------------------------------------------------------------- backfill / repair


def run_backfill(args: argparse.Namespace) -> int:
    docs = []
    make = progress_of(args)
    for root, directory in _directories(args):
        with step(make, "links backfill", "sidecars") as bar:
            if args.dry_run:
                res = links.resolve(directory, progress=bar)
            else:
                res = link_writer.backfill(directory, lock_timeout=args.lock_timeout, waiting=lock_waiting(args), progress=bar)
        if args.format == "json":
            docs.append(links_report.write_json(root, res, args.dry_run))
        else:
            print(links_report.backfill_text(root, directory, res, dry_run=args.dry_run))
    if args.format == "json":
        print_json("links backfill", EXIT_OK, {"roots": docs})
    return EXIT_OK


def run_repair(args: argparse.Namespace) -> int:
    found = _directories(args)
    if args.backup and len(found) > 1:
        raise UsageError("--backup names one directory but several roots were selected; pick one with --root")
    if args.backup and not args.dry_run:
        layout.refuse_inside_store(args.backup, layout.require_roots(roots_from(args)), "backup")
        if os.path.lexists(args.backup):  # refused even when nothing is to change (and so backed up)
            raise InputError(f"{Path(args.backup).absolute()}: already exists; the backup needs a new directory")
    docs = []
    make = progress_of(args)
    for root, directory in found:
        if args.dry_run:
            with step(make, "links repair: read", "sidecars") as bar:
                res, result = links.resolve(directory, repair=True, progress=bar), None
        else:
            result = repair.repair(
                directory,
                args.backup or backup.default_backup_dir(root.path),
                lock_timeout=args.lock_timeout,
                waiting=lock_waiting(args),
                progress=make,
            )
            res = result.resolution
        if args.format == "json":
            docs.append(links_report.repair_json(root, res, result, args.dry_run))
        else:
            print(links_report.repair_text(root, directory, res, result, dry_run=args.dry_run))
        if args.dry_run:
            repair.refuse(res)
    if args.format == "json":
        print_json("links repair", EXIT_OK, {"roots": docs})
    return EXIT_OK


# ----------------------------------------------------------------------------- verify / rollback


def run_verify(args: argparse.Namespace) -> int:
    with step(progress_of(args), "links verify", "sidecars") as bar:
        v = backup.verify(args.backup, unchanged=args.unchanged, progress=bar)
    if args.format == "json":
        print_json("links verify", v.exit_code, links_report.verification_json(v))
    else:
        print(links_report.verification_text(v))
    return v.exit_code


def run_rollback(args: argparse.Namespace) -> int:
    with step(progress_of(args), "links rollback", "sidecars") as bar:
        waiting = lock_waiting(args)
        r = backup.rollback(args.backup, force=args.force, lock_timeout=args.lock_timeout, waiting=waiting, progress=bar)
    if args.format == "json":
        return print_json("links rollback", EXIT_OK, links_report.rollback_json(r))
    print(links_report.rollback_text(r))
    return 0
