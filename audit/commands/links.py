"""``agy-audit links``: check, backfill and repair parent links; verify and roll back a repair."""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

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
from audit.errors import EXIT_FINDINGS, EXIT_OK, InputError, NothingToCheck, UsageError
from audit.progress import step
from audit.store import layout

_SUMMARY_KEYS = ("scanned", "stamped", "cleared", "unchanged", "unresolved", "diagnostics")


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


def _summary(command: str, root: layout.Root, counts: dict[str, int]) -> str:
    return f"links {command}: root={root.path} " + " ".join(f"{k}={counts[k]}" for k in _SUMMARY_KEYS)


def _diagnostic_json(d: links.Diagnostic) -> dict[str, Any]:
    return {"id": d.id, "kind": d.kind, "message": d.message}


def _change_json(link: links.Link) -> dict[str, Any]:
    return {
        "id": link.id,
        "action": link.action,
        "parent": link.parent if link.action == "stamp" else None,
        "previous": link.stamp,
    }


def _root_json(root: layout.Root, res: links.Resolution) -> dict[str, Any]:
    return {"root": str(root.path), "product": root.product, "directory": str(res.directory), "counts": res.counts()}


# ----------------------------------------------------------------------------- check


def run_check(args: argparse.Namespace) -> int:
    make = progress_of(args)
    results = []
    for root, d in _directories(args, plain=True):
        with step(make, "links check", "sidecars") as bar:
            results.append((root, links.resolve(d, progress=bar)))
    code = EXIT_FINDINGS if any(res.failing for _, res in results) else EXIT_OK
    if args.format == "dot":
        print(_dot(results), end="")
    elif args.format == "json":
        print_json("links check", code, {"roots": [_check_json(r, res) for r, res in results]})
    else:
        for root, res in results:
            _print_check(root, res)
    return code


def _check_json(root: layout.Root, res: links.Resolution) -> dict[str, Any]:
    doc = _root_json(root, res)
    doc["diagnostics"] = [_diagnostic_json(d) for d in res.diagnostics]
    doc["links"] = [
        {
            "id": link.id,
            "parent": link.parent,
            "stamp": link.stamp,
            "action": link.action,
            "evidence": [{"source": e.source, "parent": e.parent} for e in link.evidence],
        }
        for link in res.links
    ]
    tree = res.tree
    doc["tree"] = {
        "roots": list(tree.roots),
        "orphans": list(tree.orphans),
        "children": {k: list(v) for k, v in tree.children.items()},
        "depth": dict(tree.depth),
    }
    return doc


def _print_check(root: layout.Root, res: links.Resolution) -> None:
    print(f"root {root.path} ({root.product}): {res.directory}")
    for d in res.diagnostics:
        print(f"  {d.id} {d.kind}: {d.message}")
    tree = res.tree
    cyclic = {d.id for d in res.diagnostics if d.kind == links.PARENT_CYCLE}
    parents = {link.id: link.parent for link in res.links}
    stack = [(cid, 0) for cid in reversed(tree.roots + tree.orphans)]
    while stack:
        cid, level = stack.pop()
        note = " [cycle]" if cid in cyclic else ""
        if level == 0 and parents[cid] is not None:
            note += f" (parent {parents[cid]} has no sidecar here)"
        print("  " + "  " * level + cid + note)
        stack.extend((kid, level + 1) for kid in reversed(tree.children.get(cid, ())))
    linked = sum(1 for link in res.links if link.parent is not None)
    print(
        f"links check: root={root.path} scanned={res.scanned} linked={linked} roots={len(tree.roots)} "
        f"orphans={len(tree.orphans)} diagnostics={len(res.diagnostics)} failing={len(res.failing)}"
    )


def _dot(results: list[tuple[layout.Root, links.Resolution]]) -> str:
    lines = ["digraph links {", "  rankdir=LR;", '  node [shape=box, fontname="monospace"];']
    for n, (root, res) in enumerate(results):
        cyclic = {d.id for d in res.diagnostics if d.kind == links.PARENT_CYCLE}
        conflicted = {d.id for d in res.diagnostics if d.kind == links.CONFLICTING_EVIDENCE}
        ids = {link.id for link in res.links}
        lines.append(f"  subgraph cluster_{n} {{")
        lines.append(f"    label={json.dumps(str(root.path))};")
        for link in res.links:
            style = ", color=red" if link.id in cyclic else (", color=orange" if link.id in conflicted else "")
            lines.append(f'    "{n}:{link.id}" [label="{link.id[:8]}"{style}];')
        for missing in sorted({link.parent for link in res.links if link.parent and link.parent not in ids}):
            lines.append(f'    "{n}:{missing}" [label="{missing[:8]}", style=dashed];')
        for link in res.links:
            if link.parent is not None:
                lines.append(f'    "{n}:{link.parent}" -> "{n}:{link.id}";')
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- backfill / repair


def _print_plan(res: links.Resolution, *, dry_run: bool) -> None:
    verb = {"stamp": "would stamp" if dry_run else "stamped", "clear": "would clear" if dry_run else "cleared"}
    for link in res.changes:
        detail = f"parent {link.parent}" if link.action == "stamp" else "no parent"
        was = f" (was {link.stamp})" if link.stamp else (" (was an invalid value)" if link.action == "clear" else "")
        print(f"  {verb[link.action]} {link.id}: {detail}{was}")
    for d in res.diagnostics:
        print(f"  {d.id} {d.kind}: {d.message}")


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
            docs.append(_write_json(root, res, args.dry_run))
            continue
        print(f"root {root.path} ({root.product}): {directory}")
        _print_plan(res, dry_run=args.dry_run)
        print(_summary("backfill" + (" (dry run)" if args.dry_run else ""), root, res.counts()))
    if args.format == "json":
        print_json("links backfill", EXIT_OK, {"roots": docs})
    return EXIT_OK


def _write_json(root: layout.Root, res: links.Resolution, dry_run: bool) -> dict[str, Any]:
    doc = _root_json(root, res)
    doc["dryRun"] = dry_run
    doc["changes"] = [_change_json(link) for link in res.changes]
    doc["diagnostics"] = [_diagnostic_json(d) for d in res.diagnostics]
    return doc


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
            doc = _write_json(root, res, args.dry_run)
            doc["absentParents"] = list(res.absent_parents)
            doc["backup"] = str(result.backup) if result and result.backup else None
            doc["verification"] = _verification_json(result.verification) if result and result.verification else None
            docs.append(doc)
        else:
            print(f"root {root.path} ({root.product}): {directory}")
            _print_plan(res, dry_run=args.dry_run)
            if result is not None and result.verification is None:
                print("  backup: none (nothing to change)")
            elif result is not None and result.verification is not None:
                v = result.verification
                print(f"  backup: {result.backup}")
                print(f"  verified: {v.verified} sidecar(s), {len(v.changed)} changed, payloads and mtimes preserved, no cycle")
            if res.absent_parents:
                print(_partial(res))
            print(_summary("repair" + (" (dry run)" if args.dry_run else ""), root, res.counts()))
        if args.dry_run:
            repair.refuse(res)
    if args.format == "json":
        print_json("links repair", EXIT_OK, {"roots": docs})
    return EXIT_OK


def _partial(res: links.Resolution) -> str:
    shown = ", ".join(res.absent_parents[:3]) + (f", +{len(res.absent_parents) - 3} more" if len(res.absent_parents) > 3 else "")
    return (
        f"links repair: {res.directory}: looks partial: {len(res.absent_parents)} parent(s) named by stamps or evidence "
        f"have no sidecar here ({shown}); their stamps are kept"
    )


# ----------------------------------------------------------------------------- verify / rollback


def _verification_json(v: backup.Verification) -> dict[str, Any]:
    return {
        "backup": str(v.backup),
        "root": str(v.root),
        "verified": v.verified,
        "changed": list(v.changed),
        "parentLinks": v.parent_links,
        "cycles": v.cycles,
        "problems": list(v.problems),
    }


def run_verify(args: argparse.Namespace) -> int:
    with step(progress_of(args), "links verify", "sidecars") as bar:
        v = backup.verify(args.backup, unchanged=args.unchanged, progress=bar)
    if args.format == "json":
        print_json("links verify", EXIT_OK if v.ok else EXIT_FINDINGS, _verification_json(v))
    else:
        print(f"backup {v.backup}: {v.root}")
        for problem in v.problems:
            print(f"  problem: {problem}")
        print(
            f"links verify: {'ok' if v.ok else 'FAILED'} verified={v.verified} changed={len(v.changed)} "
            f"parentLinks={v.parent_links} cycles={v.cycles} problems={len(v.problems)}"
        )
    return EXIT_OK if v.ok else EXIT_FINDINGS


def run_rollback(args: argparse.Namespace) -> int:
    with step(progress_of(args), "links rollback", "sidecars") as bar:
        waiting = lock_waiting(args)
        r = backup.rollback(args.backup, force=args.force, lock_timeout=args.lock_timeout, waiting=waiting, progress=bar)
    if args.format == "json":
        result = {"backup": str(r.backup), "root": str(r.root), "restored": list(r.restored), "unchanged": r.unchanged}
        return print_json("links rollback", EXIT_OK, result | {"extra": list(r.extra)})
    for name in r.restored:
        print(f"  restored {name}")
    for name in r.extra:
        print(f"  left alone (added after the backup): {name}")
    print(f"links rollback: root={r.root} restored={len(r.restored)} unchanged={r.unchanged} extra={len(r.extra)}")
    return 0
