"""Resolving parent links: the evidence chosen per child, one parent or a conflict, cycles broken,
what to write, and the family tree."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from audit.checks.links.evidence import Facts, SidecarFacts, read_sidecars
from audit.checks.links.model import (
    CONFLICTING_EVIDENCE,
    LEGACY_SOURCES,
    MISSING_PARENT,
    NATIVE_SOURCES,
    PARENT_CYCLE,
    STALE_STAMP,
    Diagnostic,
    Evidence,
    Link,
    LinkAction,
    Resolution,
    Tree,
)
from audit.progress import Callback


def find_cycles(parent: Mapping[str, str | None]) -> list[list[str]]:
    """Every cycle of a child -> parent map, in linear time.

    Each cycle is listed in parent-following order starting at its smallest id; the list is sorted.
    Chains leading into a cycle and parents missing from the map are not cycles.
    """
    done: set[str] = set()
    cycles = []
    for start in parent:
        if start in done:
            continue
        position: dict[str, int] = {}
        walk: list[str] = []
        node: str | None = start
        while node is not None and node in parent and node not in done and node not in position:
            position[node] = len(walk)
            walk.append(node)
            node = parent[node]
        if node is not None and node in position:
            cycle = walk[position[node] :]
            first = cycle.index(min(cycle))
            cycles.append(cycle[first:] + cycle[:first])
        done.update(walk)
    return sorted(cycles)


def _evidence(facts: list[Facts]) -> dict[str, tuple[Evidence, ...]]:
    """The chosen evidence per child: native when there is any, else legacy."""
    native: dict[str, set[Evidence]] = {f.id: set() for f in facts}
    legacy: dict[str, set[Evidence]] = {f.id: set() for f in facts}
    by_id = {f.id: f for f in facts}
    for f in facts:
        if f.native_parent is not None:
            native[f.id].add(Evidence("parentConversationId", f.native_parent))
        for child in f.invoked:
            if child in native:
                native[child].add(Evidence("invokeSubagent.results", f.id))
        legacy[f.id].update(Evidence("agentPath", p) for p in f.agent_parents if p != f.id)
        for mentioned, prompts in f.mentions:
            named = by_id.get(mentioned)
            if named is not None and named.id != f.id and named.first_prompt in prompts:
                legacy[named.id].add(Evidence("invoke_subagent", f.id))
    rank = {s: n for n, s in enumerate(NATIVE_SOURCES + LEGACY_SOURCES)}
    return {cid: tuple(sorted(native[cid] or legacy[cid], key=lambda e: (rank[e.source], e.parent))) for cid in native}


def _describe(evidence: Iterable[Evidence]) -> str:
    return ", ".join(f"{e.parent} ({e.source})" for e in evidence)


def _cycle_text(cycle: list[str]) -> str:
    shown = cycle if len(cycle) <= 6 else cycle[:5] + ["..."]
    return " -> ".join(shown + [cycle[0]]) + (f" ({len(cycle)} members)" if len(cycle) > 6 else "")


def resolve(
    directory: str | os.PathLike[str],
    *,
    repair: bool = False,
    known: Mapping[str, SidecarFacts] | None = None,
    progress: Callback | None = None,
) -> Resolution:
    """Resolve every parent link of *directory*; nothing is written.

    Default (backfill) mode: a valid stamp is the parent (``stale-stamp`` when the evidence does
    not say exactly that); unstamped children take their single candidate. ``repair``: stamps are
    ignored and every parent is recomputed from the evidence -- except that a stamp no evidence
    speaks for or against, whose parent has no sidecar in the directory, is kept (``missing-parent``):
    the evidence that supported it may be in that absent sidecar (a partial copy), and a stamp is
    never cleared without evidence against it.

    *known* holds ``facts_of`` sidecars of *directory* by file name: those are not read again
    (their ``files`` states have no hash, see ``sidecar.read``: nothing is stamped from them).
    *progress* is told before each sidecar is read.
    """
    directory = Path(directory)
    scanned, files, facts, diagnostics = read_sidecars(directory, known or {}, progress)
    evidence = _evidence(facts)
    ids = {f.id for f in facts}
    kept_unseen: set[str] = set()  # repair: stamps kept because their parent's sidecar is absent
    chosen: dict[str, str | None] = {}
    for f in facts:
        candidates = sorted({e.parent for e in evidence[f.id]})
        if len(candidates) > 1:
            diagnostics.append(Diagnostic(f.id, CONFLICTING_EVIDENCE, "candidate parents " + _describe(evidence[f.id])))
        unique = candidates[0] if len(candidates) == 1 else None
        if repair and not candidates and f.stamp is not None and f.stamp not in ids:
            chosen[f.id] = f.stamp
            kept_unseen.add(f.id)
            continue
        if repair or f.stamp is None:
            chosen[f.id] = unique
            continue
        chosen[f.id] = f.stamp
        if candidates != [f.stamp]:
            said = f"evidence names {_describe(evidence[f.id])}" if candidates else "no evidence supports it"
            diagnostics.append(
                Diagnostic(f.id, STALE_STAMP, f"stamped parent {f.stamp} but {said}; `links repair` recomputes it")
            )
    stamps = {f.id: f.stamp for f in facts}
    for cycle in find_cycles(chosen):
        text = _cycle_text(cycle)
        for member in cycle:
            if repair:
                how = "no stamp is written and an existing one is cleared"
            elif stamps[member] is not None:
                how = "the stamp stays but is left out of the tree; `links repair` clears it"
            else:
                how = "not stamped"
            diagnostics.append(Diagnostic(member, PARENT_CYCLE, f"parent {chosen[member]} closes the cycle {text}; {how}"))
            chosen[member] = None
    links = []
    for f in facts:
        parent = chosen[f.id]
        action: LinkAction
        if repair:
            if parent is None:
                action = "clear" if (f.stamp or f.stamp_invalid) and not f.block_locked else "none"
            else:
                action = "keep" if parent == f.stamp else ("none" if f.block_locked else "stamp")
        elif f.stamp is not None:
            action = "keep"
        else:
            action = "none" if parent is None or f.block_locked else "stamp"
        if parent is not None and parent not in ids and action in ("stamp", "keep"):
            how = "the stamp is kept (nothing here speaks against it)" if f.id in kept_unseen else "linked anyway"
            diagnostics.append(Diagnostic(f.id, MISSING_PARENT, f"parent {parent} has no sidecar in this directory; {how}"))
        links.append(Link(f.id, f.path, f.stamp, evidence[f.id], parent, action, f.created))
    links.sort(key=lambda link: link.id)
    diagnostics.sort(key=lambda d: (d.id, d.kind, d.message))
    named = {f.stamp for f in facts if f.stamp is not None} | {e.parent for found in evidence.values() for e in found}
    absent = tuple(sorted(named - ids))
    return Resolution(directory, repair, scanned, tuple(links), tuple(diagnostics), files, _tree(links, ids), absent)


def _tree(links: list[Link], ids: set[str]) -> Tree:
    created = {link.id: link.created for link in links}

    def order(cid: str) -> tuple[str, str]:
        return created[cid], cid

    children: dict[str, list[str]] = {}
    tops = []
    for link in links:
        if link.parent is None or link.parent not in ids:
            tops.append(link)
        else:
            children.setdefault(link.parent, []).append(link.id)
    depth: dict[str, int] = {}
    stack = [(link.id, 0) for link in tops]
    while stack:
        cid, level = stack.pop()
        depth[cid] = level
        stack.extend((kid, level + 1) for kid in children.get(cid, ()))
    return Tree(
        roots=tuple(sorted((link.id for link in tops if link.parent is None), key=order)),
        orphans=tuple(sorted((link.id for link in tops if link.parent is not None), key=order)),
        children={cid: tuple(sorted(kids, key=order)) for cid, kids in sorted(children.items())},
        depth=dict(sorted(depth.items())),
    )
