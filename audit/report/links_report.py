"""Formatters for ``agy-audit links``: the check (text, JSON, Graphviz dot), what backfill and
repair changed or would change, a backup's verification and a rollback. Formatters only: the
resolutions, verifications and rollbacks come decided."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from audit.actions import backup, repair
from audit.checks import links
from audit.store import layout

_SUMMARY_KEYS = ("scanned", "stamped", "cleared", "unchanged", "unresolved", "diagnostics")


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


def check_json(root: layout.Root, res: links.Resolution) -> dict[str, Any]:
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


def check_text(root: layout.Root, res: links.Resolution) -> str:
    out = [f"root {root.path} ({root.product}): {res.directory}"]
    for d in res.diagnostics:
        out.append(f"  {d.id} {d.kind}: {d.message}")
    tree = res.tree
    cyclic = {d.id for d in res.diagnostics if d.kind == links.PARENT_CYCLE}
    parents = {link.id: link.parent for link in res.links}
    stack = [(cid, 0) for cid in reversed(tree.roots + tree.orphans)]
    while stack:
        cid, level = stack.pop()
        note = " [cycle]" if cid in cyclic else ""
        if level == 0 and parents[cid] is not None:
            note += f" (parent {parents[cid]} has no sidecar here)"
        out.append("  " + "  " * level + cid + note)
        stack.extend((kid, level + 1) for kid in reversed(tree.children.get(cid, ())))
    linked = sum(1 for link in res.links if link.parent is not None)
    out.append(
        f"links check: root={root.path} scanned={res.scanned} linked={linked} roots={len(tree.roots)} "
        f"orphans={len(tree.orphans)} diagnostics={len(res.diagnostics)} failing={len(res.failing)}"
    )
    return "\n".join(out)


def dot(results: list[tuple[layout.Root, links.Resolution]]) -> str:
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


def _plan(res: links.Resolution, *, dry_run: bool) -> list[str]:
    verb = {"stamp": "would stamp" if dry_run else "stamped", "clear": "would clear" if dry_run else "cleared"}
    out = []
    for link in res.changes:
        detail = f"parent {link.parent}" if link.action == "stamp" else "no parent"
        was = f" (was {link.stamp})" if link.stamp else (" (was an invalid value)" if link.action == "clear" else "")
        out.append(f"  {verb[link.action]} {link.id}: {detail}{was}")
    for d in res.diagnostics:
        out.append(f"  {d.id} {d.kind}: {d.message}")
    return out


def write_json(root: layout.Root, res: links.Resolution, dry_run: bool) -> dict[str, Any]:
    """One root of ``links backfill``: what changed (or would) and the diagnostics."""
    doc = _root_json(root, res)
    doc["dryRun"] = dry_run
    doc["changes"] = [_change_json(link) for link in res.changes]
    doc["diagnostics"] = [_diagnostic_json(d) for d in res.diagnostics]
    return doc


def backfill_text(root: layout.Root, directory: Path, res: links.Resolution, *, dry_run: bool) -> str:
    out = [f"root {root.path} ({root.product}): {directory}", *_plan(res, dry_run=dry_run)]
    out.append(_summary("backfill" + (" (dry run)" if dry_run else ""), root, res.counts()))
    return "\n".join(out)


def repair_json(root: layout.Root, res: links.Resolution, result: repair.RepairResult | None, dry_run: bool) -> dict[str, Any]:
    """One root of ``links repair``: :func:`write_json` with the absent parents, the backup and its
    verification (*result* is ``None`` on a dry run)."""
    doc = write_json(root, res, dry_run)
    doc["absentParents"] = list(res.absent_parents)
    doc["backup"] = str(result.backup) if result and result.backup else None
    doc["verification"] = verification_json(result.verification) if result and result.verification else None
    return doc


def repair_text(
    root: layout.Root, directory: Path, res: links.Resolution, result: repair.RepairResult | None, *, dry_run: bool
) -> str:
    out = [f"root {root.path} ({root.product}): {directory}", *_plan(res, dry_run=dry_run)]
    if result is not None and result.verification is None:
        out.append("  backup: none (nothing to change)")
    elif result is not None and result.verification is not None:
        v = result.verification
        out.append(f"  backup: {result.backup}")
        out.append(f"  verified: {v.verified} sidecar(s), {len(v.changed)} changed, payloads and mtimes preserved, no cycle")
    if res.absent_parents:
        out.append(_partial(res))
    out.append(_summary("repair" + (" (dry run)" if dry_run else ""), root, res.counts()))
    return "\n".join(out)


def _partial(res: links.Resolution) -> str:
    shown = ", ".join(res.absent_parents[:3]) + (f", +{len(res.absent_parents) - 3} more" if len(res.absent_parents) > 3 else "")
    return (
        f"links repair: {res.directory}: looks partial: {len(res.absent_parents)} parent(s) named by stamps or evidence "
        f"have no sidecar here ({shown}); their stamps are kept"
    )


# ----------------------------------------------------------------------------- verify / rollback


def verification_json(v: backup.Verification) -> dict[str, Any]:
    return {
        "backup": str(v.backup),
        "root": str(v.root),
        "verified": v.verified,
        "changed": list(v.changed),
        "parentLinks": v.parent_links,
        "cycles": v.cycles,
        "problems": list(v.problems),
    }


def verification_text(v: backup.Verification) -> str:
    out = [f"backup {v.backup}: {v.root}"]
    for problem in v.problems:
        out.append(f"  problem: {problem}")
    out.append(
        f"links verify: {'ok' if v.ok else 'FAILED'} verified={v.verified} changed={len(v.changed)} "
        f"parentLinks={v.parent_links} cycles={v.cycles} problems={len(v.problems)}"
    )
    return "\n".join(out)


def rollback_json(r: backup.Rollback) -> dict[str, Any]:
    return {
        "backup": str(r.backup),
        "root": str(r.root),
        "restored": list(r.restored),
        "unchanged": r.unchanged,
        "extra": list(r.extra),
    }


def rollback_text(r: backup.Rollback) -> str:
    out = [f"  restored {name}" for name in r.restored]
    out += [f"  left alone (added after the backup): {name}" for name in r.extra]
    out.append(f"links rollback: root={r.root} restored={len(r.restored)} unchanged={r.unchanged} extra={len(r.extra)}")
    return "\n".join(out)
