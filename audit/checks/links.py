"""Parent links between conversations: evidence, resolution, cycles, the family tree.

Works on one directory of sidecars (a store root's ``conversations/`` or a sweep corpus
``corpus/<product>/``). Every sidecar is read once; the whole graph is resolved before anything
is written. Evidence that child C has parent P, strongest first:

* native: C's ``metadata.parentConversationId``; a ``CORTEX_STEP_TYPE_INVOKE_SUBAGENT`` step of P
  whose ``invokeSubagent.results[].conversationId`` is C;
* legacy, consulted only when C has no native evidence: an agent-definition path
  ``.../brain/<P>/.agents/agents/...`` in C's executor or generator metadata; P's invoke-tool
  prompts matched exactly against C's first user prompt when P's next planner response names C.

Messages between agents never establish ancestry. Ids compare lower-case. One candidate is the
parent, several are ``conflicting-evidence``; cycles (found in linear time) lose every edge. The
stamp is ``agyReader.parentCascadeId``, written by byte splicing (``audit.store.reader_block``) with the file's
mtime kept.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from audit.errors import InputError
from audit.progress import Callback, tracked
from audit.safeio import read_bytes
from audit.store.ids import UUID_PATTERN, canonical_id
from audit.store.layout import SIDECAR_SUFFIX, list_dir
from audit.store.reader_block import PARENT_KEY, READER_BLOCK
from audit.store.sidecar import MAX_SIDECAR_BYTES, FileState, Sidecar, sha256_hex
from audit.strictjson import json_type, loads

INVOKE_STEP = "CORTEX_STEP_TYPE_INVOKE_SUBAGENT"
PLANNER_STEP = "CORTEX_STEP_TYPE_PLANNER_RESPONSE"
INVOKE_TOOLS = frozenset({"invoke_subagent", "spawnagents", "spawn_agents"})

NATIVE_SOURCES = ("parentConversationId", "invokeSubagent.results")
LEGACY_SOURCES = ("agentPath", "invoke_subagent")

DiagnosticKind = Literal[
    "conflicting-evidence",
    "stale-stamp",
    "missing-parent",
    "unreadable-sidecar",
    "invalid-cascade-id",
    "invalid-parent-stamp",
    "duplicate-cascade-id",
    "parent-cycle",
]
CONFLICTING_EVIDENCE: Final = "conflicting-evidence"
STALE_STAMP: Final = "stale-stamp"
MISSING_PARENT: Final = "missing-parent"
UNREADABLE_SIDECAR: Final = "unreadable-sidecar"
INVALID_CASCADE_ID: Final = "invalid-cascade-id"
INVALID_PARENT_STAMP: Final = "invalid-parent-stamp"
DUPLICATE_CASCADE_ID: Final = "duplicate-cascade-id"
PARENT_CYCLE: Final = "parent-cycle"
FAILING_KINDS = frozenset({PARENT_CYCLE, CONFLICTING_EVIDENCE, INVALID_PARENT_STAMP})
"""Diagnostics that make ``links check`` exit 1."""
UNUSABLE_KINDS = frozenset({UNREADABLE_SIDECAR, INVALID_CASCADE_ID, DUPLICATE_CASCADE_ID})
"""Diagnostics of sidecars left out of the graph (a repair refuses to run with any of them)."""

_UUID = UUID_PATTERN
SIDECAR_NAME = re.compile(_UUID + re.escape(SIDECAR_SUFFIX))
_UUID_IN_TEXT = re.compile(rf"(?<![0-9a-fA-F]){_UUID}(?![0-9a-fA-F])")
_AGENT_PATH = re.compile(rf"/brain/({_UUID})/\.agents/agents/")


@dataclass(frozen=True)
class Diagnostic:
    id: str
    kind: DiagnosticKind
    message: str


@dataclass(frozen=True)
class Evidence:
    source: str  # one of NATIVE_SOURCES or LEGACY_SOURCES
    parent: str


@dataclass(frozen=True)
class Link:
    """One conversation of the graph and what resolution decided for it.

    ``stamp`` is the valid stamp on disk (canonical), ``parent`` the resolved parent after cycle
    removal (what the tree uses), ``action`` one of ``stamp`` (write ``parent``), ``clear`` (remove
    the stamp), ``keep`` (a parent, nothing to write) and ``none`` (no parent, nothing to write).
    ``created`` is the first step's ``createdAt`` (siblings are ordered by it, then by id).
    """

    id: str
    path: Path
    stamp: str | None
    evidence: tuple[Evidence, ...]
    parent: str | None
    action: str
    created: str

    @property
    def name(self) -> str:
        return self.path.name


@dataclass(frozen=True)
class Tree:
    """The family forest: ``roots`` have no parent, ``orphans`` a parent without a sidecar here."""

    roots: tuple[str, ...]
    orphans: tuple[str, ...]
    children: Mapping[str, tuple[str, ...]]
    depth: Mapping[str, int]


@dataclass(frozen=True)
class Resolution:
    directory: Path
    repair: bool
    scanned: int
    links: tuple[Link, ...]  # sorted by id
    diagnostics: tuple[Diagnostic, ...]  # sorted by (id, kind, message)
    files: Mapping[str, FileState]  # every regular sidecar read, by file name
    tree: Tree
    absent_parents: tuple[str, ...] = ()
    """Parents named by a stamp or by evidence that have no sidecar in the directory (sorted):
    when there are any, the directory looks partial (a copy of part of ``conversations/``?)."""

    @property
    def changes(self) -> tuple[Link, ...]:
        return tuple(link for link in self.links if link.action in ("stamp", "clear"))

    def counts(self) -> dict[str, int]:
        actions = [link.action for link in self.links]
        return {
            "scanned": self.scanned,
            "stamped": actions.count("stamp"),
            "cleared": actions.count("clear"),
            "unchanged": actions.count("keep"),
            "unresolved": actions.count("none") + actions.count("clear"),
            "diagnostics": len(self.diagnostics),
        }

    @property
    def failing(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.kind in FAILING_KINDS)


# ----------------------------------------------------------------------------- reading


@dataclass
class _Facts:
    """What one sidecar says about parent links (everything else is dropped after reading)."""

    id: str
    path: Path
    stamp: str | None = None
    stamp_invalid: bool = False
    block_locked: bool = False  # agyReader is not an object: never edited
    native_parent: str | None = None
    invoked: list[str] = field(default_factory=list)
    agent_parents: set[str] = field(default_factory=set)
    first_prompt: str | None = None
    mentions: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    created: str = ""


def list_sidecars(directory: str | os.PathLike[str]) -> list[tuple[str, bool]]:
    """``(name, is_regular_file)`` of every ``<uuid>.trajectory.json`` entry, sorted; directories skipped."""
    out = []
    for entry in list_dir(Path(directory)):
        if not SIDECAR_NAME.fullmatch(entry.name):
            continue
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
        except FileNotFoundError:
            continue  # vanished while listing
        except OSError as exc:
            raise InputError(f"{entry.path}: cannot stat ({exc.strerror or exc})") from None
        if not stat.S_ISDIR(mode):
            out.append((entry.name, stat.S_ISREG(mode)))
    return out


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _arr(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _key(obj: dict[str, Any], name: str) -> object:
    """``obj[name]`` matched like Go's JSON decoder: exact key first, then case-insensitively."""
    if name in obj:
        return obj[name]
    lower = name.lower()
    return next((v for k, v in obj.items() if k.lower() == lower), None)


def _invoke_prompts(planner: dict[str, Any]) -> frozenset[str]:
    prompts = set()
    for call in _arr(planner.get("toolCalls")):
        call = _obj(call)
        name, args = call.get("name"), call.get("argumentsJson")
        if not isinstance(name, str) or name.strip().lower() not in INVOKE_TOOLS or not isinstance(args, str):
            continue
        try:
            parsed = loads(args, source="argumentsJson")
        except InputError:
            continue
        for sub in _arr(_key(parsed, "subagents")):
            prompt = _key(_obj(sub), "prompt")
            if isinstance(prompt, str) and prompt.strip():
                prompts.add(prompt.strip())
    return frozenset(prompts)


def _agent_paths(doc: dict[str, Any]) -> Iterable[object]:
    for meta in _arr(doc.get("executorMetadatas")):
        config = _obj(_obj(_obj(meta).get("cascadeConfig")).get("plannerConfig"))
        yield _obj(config.get("customizationConfig")).get("agentPath")
    for meta in _arr(doc.get("generatorMetadata")):
        config = _obj(_obj(meta).get("plannerConfig"))
        yield _obj(config.get("customizationConfig")).get("agentPath")


def _facts(doc: dict[str, Any], cid: str, path: Path, diagnostics: list[Diagnostic]) -> _Facts:
    facts = _Facts(cid, path)
    block = doc.get(READER_BLOCK)
    if isinstance(block, dict) and PARENT_KEY in block:
        facts.stamp = canonical_id(block[PARENT_KEY])
        if facts.stamp is None:
            facts.stamp_invalid = True
            value = block[PARENT_KEY]
            shown = repr(value)[:60] if isinstance(value, str) else json_type(value)
            diagnostics.append(
                Diagnostic(cid, INVALID_PARENT_STAMP, f"{PARENT_KEY} is {shown}, not a UUID; treated as unstamped")
            )
    elif block is not None and not isinstance(block, dict):
        facts.block_locked = True
        diagnostics.append(
            Diagnostic(cid, INVALID_PARENT_STAMP, f"{READER_BLOCK} is {json_type(block)}, not an object; left alone")
        )
    metadata = _obj(doc.get("metadata"))
    facts.native_parent = canonical_id(metadata.get("parentConversationId"))
    for raw_path in _agent_paths(doc):
        if isinstance(raw_path, str):
            facts.agent_parents.update(m.group(1).lower() for m in _AGENT_PATH.finditer(raw_path))
    steps = _arr(doc.get("steps"))
    first = _obj(steps[0]).get("metadata") if steps else None
    created = _obj(first).get("createdAt", metadata.get("createdAt"))
    facts.created = created if isinstance(created, str) else ""
    pending: frozenset[str] = frozenset()
    for step in steps:
        step = _obj(step)
        kind = step.get("type")
        if facts.first_prompt is None:
            text = _obj(step.get("userInput")).get("userResponse")
            if isinstance(text, str) and text.strip():
                facts.first_prompt = text.strip()
        if kind == INVOKE_STEP:
            for result in _arr(_obj(step.get("invokeSubagent")).get("results")):
                child = canonical_id(_obj(result).get("conversationId"))
                if child is not None:
                    facts.invoked.append(child)
        elif kind == PLANNER_STEP:
            planner = _obj(step.get("plannerResponse"))
            response = planner.get("response")
            if pending and isinstance(response, str):
                facts.mentions.extend((m.group().lower(), pending) for m in _UUID_IN_TEXT.finditer(response))
            pending = _invoke_prompts(planner)
    return facts


@dataclass(frozen=True, slots=True)
class SidecarFacts:
    """What links takes from one sidecar (``facts_of``): its state, and its facts (None when its
    cascadeId is not a UUID) with the diagnostics reading them gave."""

    state: FileState
    facts: _Facts | None
    diagnostics: tuple[Diagnostic, ...]


def facts_of(read: Sidecar) -> SidecarFacts:
    """What links takes from the sidecar *read* (``sidecar.read``), for ``resolve(known=)``."""
    return _file_facts(read.path, read.state, read.document)


def _file_facts(path: Path, state: FileState, doc: dict[str, Any]) -> SidecarFacts:
    diagnostics: list[Diagnostic] = []
    cid = canonical_id(doc.get("cascadeId"))
    if cid is None:
        value = doc.get("cascadeId")
        shown = repr(value)[:60] if isinstance(value, str) else json_type(value)
        stem = path.name[: -len(SIDECAR_SUFFIX)].lower()
        diagnostics.append(Diagnostic(stem, INVALID_CASCADE_ID, f"{path.name}: cascadeId is {shown}, not a UUID; left out"))
        return SidecarFacts(state, None, tuple(diagnostics))
    facts = _facts(doc, cid, path, diagnostics)
    return SidecarFacts(state, facts, tuple(diagnostics))


def _read(
    directory: Path, known: Mapping[str, SidecarFacts], progress: Callback | None
) -> tuple[int, dict[str, FileState], list[_Facts], list[Diagnostic]]:
    """Read every sidecar once (those in *known*, by file name, not at all); returns (scanned,
    file states, facts of usable ones, diagnostics)."""
    listing = list_sidecars(directory)
    files: dict[str, FileState] = {}
    facts: list[_Facts] = []
    by_id: dict[str, Path] = {}
    diagnostics: list[Diagnostic] = []
    for name, regular in tracked(listing, progress, lambda entry: entry[0]):
        path = directory / name
        stem = name[: -len(SIDECAR_SUFFIX)].lower()
        if not regular:
            diagnostics.append(
                Diagnostic(stem, UNREADABLE_SIDECAR, f"{name}: not a regular file (symbolic link or special file); not read")
            )
            continue
        read = known.get(name)
        if read is None:
            try:
                st = os.lstat(path)
                data = read_bytes(path, limit=MAX_SIDECAR_BYTES)
                files[name] = state = FileState(len(data), st.st_mtime_ns, sha256_hex(data))
                doc = loads(data, source=name)
            except InputError as exc:
                diagnostics.append(Diagnostic(stem, UNREADABLE_SIDECAR, exc.message))
                continue
            except OSError as exc:  # vanished between listing and reading
                diagnostics.append(Diagnostic(stem, UNREADABLE_SIDECAR, f"{name}: {exc.strerror or exc}"))
                continue
            read = _file_facts(path, state, doc)
            del doc  # before the next one is parsed
        else:
            files[name] = read.state
        if read.facts is None:
            diagnostics += read.diagnostics
            continue
        cid = read.facts.id
        if cid in by_id:
            diagnostics.append(
                Diagnostic(cid, DUPLICATE_CASCADE_ID, f"{name} repeats the cascadeId of {by_id[cid].name}; {name} left out")
            )
            continue
        by_id[cid] = path
        facts.append(read.facts)
        diagnostics += read.diagnostics
    return len(listing), files, facts, diagnostics


# ----------------------------------------------------------------------------- resolving


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


def _evidence(facts: list[_Facts]) -> dict[str, tuple[Evidence, ...]]:
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
    scanned, files, facts, diagnostics = _read(directory, known or {}, progress)
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
