"""Reading a directory's sidecars for parent links: each sidecar read once, what it says about
its parent and its children kept (``Facts``), everything else dropped."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from audit.checks.links.model import (
    DUPLICATE_CASCADE_ID,
    INVALID_CASCADE_ID,
    INVALID_PARENT_STAMP,
    UNREADABLE_SIDECAR,
    Diagnostic,
)
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

_UUID = UUID_PATTERN
SIDECAR_NAME = re.compile(_UUID + re.escape(SIDECAR_SUFFIX))
_UUID_IN_TEXT = re.compile(rf"(?<![0-9a-fA-F]){_UUID}(?![0-9a-fA-F])")
_AGENT_PATH = re.compile(rf"/brain/({_UUID})/\.agents/agents/")


@dataclass
class Facts:
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


def _facts(doc: dict[str, Any], cid: str, path: Path, diagnostics: list[Diagnostic]) -> Facts:
    facts = Facts(cid, path)
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
    facts: Facts | None
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


def read_sidecars(
    directory: Path, known: Mapping[str, SidecarFacts], progress: Callback | None
) -> tuple[int, dict[str, FileState], list[Facts], list[Diagnostic]]:
    """Read every sidecar once (those in *known*, by file name, not at all); returns (scanned,
    file states, facts of usable ones, diagnostics)."""
    listing = list_sidecars(directory)
    files: dict[str, FileState] = {}
    facts: list[Facts] = []
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
