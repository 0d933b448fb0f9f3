"""Deterministic benchmark corpora, written with the store builder and cached under ``bench/``.

Sidecars are shaped like the published agy 1.2.10 baseline: every line of the bundled
``fingerprints/agy-1.2.10/sidecar.tsv`` (agy-reader's ``docs/compatibility/agy-1.2.10-sidecar-shape.tsv``,
MIT licence, github.com/mjacobs/agy-reader) occurs in every shard, so the sidecar fingerprint of a
shard is the baseline's digest. ``skeleton`` synthesises one document holding every TSV path with
its JSON type (strings follow the pattern or format ``schemas/sidecar.schema.json`` gives the
path, so the corpus is contract-valid); each builder session (long tool outputs, a ``.db``, brain
transcripts) takes the skeleton's top-level members, and a quarter of its step payloads as extra
steps (sidecar only: the ``.db`` holds the realistic steps), rotating so that any four consecutive
sessions carry them all.

A shard is one home directory (``.gemini/antigravity-cli``) generated from its own seed; the
benchmark's N corpus is shard 0 and its 4N corpus shards 0-3; ``home`` is one more, of many
short sessions (2,000 in the benchmark); ``redact_homes`` two more, of N and 4N sessions, each one
directory (what ``redact`` copies). Link corpora are single directories of small sidecars
(families of subagents among plain conversations).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
import re
import shutil
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from audit.checks import schemas
from audit.checks.shape import SidecarShape
from audit.resources import data_path
from audit.store.proto import cortex_pb2 as pb
from audit.testing import StoreBuilder, write_sidecar
from audit.testing import trajectories as T

BASELINE_TSV = data_path("fingerprints") / "agy-1.2.10" / "sidecar.tsv"
HERE = Path(__file__).resolve().parent
ROTATION = 4  # any ROTATION consecutive sessions carry every step family of the skeleton
_STEP_CORE = ("type", "status", "metadata")
_VOLATILE_KEY = "file:///home/agy/project"
_STEP_TYPES = frozenset(pb.CortexStepType.keys())
# the audit.testing modules a corpus depends on, as patterns under audit/testing/
_WRITERS = ("builder.py", "trajectories/*.py", "dbwriter.py", "transcripts.py", "transcript_records.py")


@dataclass(frozen=True)
class Params:
    sessions: int  # per shard
    turns: int  # mean turns per session
    output_kb: int  # mean size of one tool output
    links: int  # sidecars of the N link corpus (4N: four times as many)

    def key(self) -> str:
        """Cache key: these parameters and the code that writes the corpus (this file, the builder)."""
        digest = hashlib.sha256(json.dumps(self.__dict__, sort_keys=True).encode())
        testing = Path(T.__file__).parents[1]
        for source in (Path(__file__), *(p for pattern in _WRITERS for p in sorted(testing.glob(pattern)))):
            digest.update(source.read_bytes())
        return digest.hexdigest()[:12]


@dataclass(frozen=True)
class Shard:
    home: Path

    @property
    def conversations(self) -> Path:
        return self.home / ".gemini" / "antigravity-cli" / "conversations"

    def sidecars(self) -> list[Path]:
        return sorted(self.conversations.glob("*.trajectory.json"))

    def databases(self) -> list[Path]:
        return sorted(self.conversations.glob("*.db"))


# ----------------------------------------------------------------------------- the skeleton


def baseline_lines() -> dict[str, str]:
    """path -> JSON type of every line of the 1.2.10 baseline."""
    lines = dict(line.split("\t") for line in BASELINE_TSV.read_text(encoding="utf-8").splitlines())
    unions = [path for path, types in lines.items() if "|" in types]
    if unions:  # one document cannot hold two types at a path
        raise ValueError(f"{BASELINE_TSV}: union types are not supported: {unions[:3]}")
    return lines


def _deref(node: object, root: dict) -> object:
    """*node* with its local ``$ref`` chain followed."""
    while isinstance(node, dict) and "$ref" in node:
        ref, node = node["$ref"], root
        for part in ref.removeprefix("#/").split("/"):
            node = node[part]
    return node


def _sub_schema(node: object, segment: str, root: dict) -> object:
    node = _deref(node, root)
    if not isinstance(node, dict):
        return None
    if segment == "[]":
        return node.get("items")
    properties = node.get("properties", {})
    if segment in properties:
        return properties[segment]
    extra = node.get("additionalProperties")
    return extra if isinstance(extra, dict) else None


def _string(node: object, key: str, root: dict, rng: random.Random, clock: T.Clock) -> str:
    """A string the schema accepts at *node*: its pattern, advisory pattern and format."""
    node = _deref(node, root)
    node = node if isinstance(node, dict) else {}
    advisory = _deref(node.get("x-advisory"), root) or {}
    advisories = [advisory, *(_deref(a, root) or {} for a in advisory.get("allOf", ()))]
    patterns = [p for p in (node.get("pattern"), *(a.get("pattern") for a in advisories)) if p]
    if node.get("format") == "uuid":
        return T.new_id(rng)
    if not patterns:
        return clock.tick() if key.endswith(("At", "Time")) else T.sentence(rng, 4)
    family = re.match(r"\^(?:\(([A-Z0-9_]+)\)\?)?([A-Z][A-Z0-9_]*_)\[", patterns[0])
    candidates = (
        T.new_id(rng),
        clock.tick(),
        str(rng.randrange(1, 10**6)),
        f"{rng.randrange(1, 90)}.5s",
        hashlib.sha256(rng.randbytes(8)).hexdigest(),
        (family[1] or "") + family[2] + "UNSPECIFIED" if family else "",
    )
    for value in candidates:
        if all(re.search(p, value) for p in patterns):
            return value
    raise ValueError(f"no synthetic value for the patterns {patterns}")


def skeleton(rng: random.Random, clock: T.Clock) -> dict:
    """One sidecar document whose shape lines are exactly the baseline's (checked)."""
    lines = baseline_lines()
    root_schema = schemas.load("sidecar").document
    children: dict[str, list[str]] = defaultdict(list)
    for path in lines:
        if path:
            children[path.rpartition(".")[0]].append(path)

    def value(path: str, node: object) -> object:
        kind = lines[path]
        if kind == "object":
            out = {}
            for child in children[path]:
                segment = child.rpartition(".")[2]
                if segment != "[]":
                    out[_VOLATILE_KEY if segment == "*" else segment] = value(child, _sub_schema(node, segment, root_schema))
            return out
        if kind == "array":
            element = f"{path}.[]" if path else "[]"
            return [value(element, _sub_schema(node, "[]", root_schema))] if element in lines else []
        if kind == "string":
            return _string(node, path.rpartition(".")[2], root_schema, rng, clock)
        return {"number": rng.randrange(1, 500), "boolean": True, "null": None}[kind]

    doc = value("", root_schema)
    shape = SidecarShape()
    shape.add(doc)
    if set(shape.lines()) != {f"{p}\t{t}" for p, t in lines.items()}:
        raise ValueError("the skeleton's shape differs from the baseline (a key holding '.'?)")
    findings = schemas.load("sidecar").check(doc)
    if findings:
        raise ValueError(f"the skeleton breaks the sidecar schema: {findings[:3]}")
    return doc


def _merge(target: dict, extra: dict) -> None:
    """Add what *extra* has and *target* lacks; lists of objects merge into their first element."""
    for key, value in extra.items():
        if key not in target:
            target[key] = copy.deepcopy(value)
        elif isinstance(value, dict) and isinstance(target[key], dict):
            _merge(target[key], value)
        elif isinstance(value, list) and isinstance(target[key], list) and value and target[key]:
            if isinstance(value[0], dict) and isinstance(target[key][0], dict):
                _merge(target[key][0], value[0])


def _families(skel: dict) -> list[str]:
    step = skel["steps"][0]
    return sorted(key for key in step if key not in _STEP_CORE)


def _type_of(family: str) -> str | None:
    name = "CORTEX_STEP_TYPE_" + re.sub(r"(?<!^)(?=[A-Z])", "_", family).upper()
    return name if name in _STEP_TYPES else None


# ----------------------------------------------------------------------------- sessions


class _Text:
    """Long tool outputs and file bodies, sliced from a fixed pool of lines (fast and deterministic)."""

    def __init__(self, rng: random.Random) -> None:
        words = (
            "parser build cache index module config test schema record export stream buffer token "
            "session corpus report drift field column table writer reader store baseline check"
        ).split()
        self.rng = rng
        self.lines = [
            f"{rng.choice(('PASSED', 'ok', 'def', 'return', 'INFO', 'WARN'))} {' '.join(rng.choices(words, k=rng.randrange(3, 12)))} {i}"
            for i in range(4096)
        ]

    def block(self, mean_kb: int) -> str:
        size = int(self.rng.expovariate(1 / (mean_kb * 1024))) + 64
        start = self.rng.randrange(len(self.lines))
        out, total, i = [], 0, start
        while total < size:
            line = self.lines[i % len(self.lines)]
            out.append(line)
            total += len(line) + 1
            i += 1
        return "\n".join(out)


def _steps(rng: random.Random, clock: T.Clock, text: _Text, turns: int, output_kb: int) -> list[dict]:
    steps: list[dict] = []
    workspace = "/home/agy/project"
    for _ in range(turns):
        steps.append(T.user_input(clock, T.sentence(rng, 12)))
        for _ in range(rng.randrange(1, 5)):
            if rng.random() < 0.55:
                command = f"pytest -q tests/test_{rng.randrange(100)}.py"
                call = T.tool_call(rng, "run_command", {"CommandLine": command, "Cwd": workspace})
                steps.append(T.planner_response(clock, rng, T.sentence(rng, 20), [call], thinking=text.block(1)))
                steps.append(T.run_command(clock, call, command, workspace, rng.choice((0, 0, 1)), text.block(output_kb)))
            else:
                path = f"{workspace}/src/module_{rng.randrange(200)}.py"
                call = T.tool_call(rng, "view_file", {"AbsolutePath": path})
                steps.append(T.planner_response(clock, rng, T.sentence(rng, 20), [call], thinking=text.block(1)))
                steps.append(T.view_file(clock, call, path, text.block(output_kb)))
        steps.append(T.planner_response(clock, rng, text.block(1)))
    return steps


def _family_steps(clock: T.Clock, skel: dict, families: list[str], steps: list[dict]) -> list[dict]:
    """A step per typed family (skeleton metadata merged in); untyped families join existing steps."""
    step = skel["steps"][0]
    out = []
    for i, family in enumerate(families):
        kind = _type_of(family)
        if kind is None:
            steps[i % len(steps)].setdefault(family, copy.deepcopy(step[family]))
            continue
        new = T.step(kind.removeprefix("CORTEX_STEP_TYPE_"), clock.tick(), **{family: copy.deepcopy(step[family])})
        _merge(new["metadata"], step["metadata"])
        out.append(new)
    return out


def write_shard(home: Path, seed: int, params: Params) -> None:
    rng = random.Random(seed)
    builder = StoreBuilder(home, seed=seed)
    root = builder.root("cli")
    skel = skeleton(rng, builder.clock)
    families = _families(skel)
    top = {k: v for k, v in skel.items() if k != "steps"}
    text = _Text(rng)
    for n in range(params.sessions):
        turns = max(1, int(rng.expovariate(1 / params.turns)))
        convo = root.conversation(steps=_steps(rng, builder.clock, text, turns, params.output_kb), sidecar="missing")
        doc = copy.deepcopy(convo.trajectory)  # the .db holds the realistic steps, the sidecar more
        doc["steps"] += _family_steps(builder.clock, skel, families[n % ROTATION :: ROTATION], doc["steps"])
        _merge(doc, top)
        write_sidecar(root.path / "conversations" / f"{convo.id}.trajectory.json", doc, mtime_ns=convo.end_ns + 5 * 10**9)


def write_links(directory: Path, seed: int, count: int) -> None:
    """*count* small sidecars (no .db, no brain): subagent families among plain conversations."""
    builder = StoreBuilder(directory, seed=seed)
    root = builder.root("cli")
    rng = random.Random(seed)
    written = 0
    while written < count:
        if rng.random() < 0.3 and count - written > 3:
            _, kids = root.family(children=rng.randrange(1, 4), db=False, brain=False)
            written += 1 + len(kids)
        else:
            root.conversation(turns=1, db=False, brain=False)
            written += 1


# ----------------------------------------------------------------------------- the cache


def _cached(path: Path, make) -> Path:
    """*path*, made by ``make(tmp)`` into a temporary sibling and renamed when complete."""
    if path.is_dir():
        return path
    tmp = path.with_name(path.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    make(tmp)
    tmp.rename(path)
    return path


def build(params: Params, *, seed: int = 1, progress=print) -> tuple[list[Shard], Path, Path]:
    """The four shards and the N / 4N link directories for *params* (generated once, then cached)."""
    base = HERE / f".corpus-{params.key()}"
    base.mkdir(exist_ok=True)
    shards = []
    for k in range(4):
        progress(f"corpus: shard {k} ({params.sessions} sessions) in {base / f'shard-{k}'}")
        shards.append(Shard(_cached(base / f"shard-{k}", lambda tmp, k=k: write_shard(tmp, seed + k, params))))
    link_dirs = []
    for name, count in (("links-N", params.links), ("links-4N", 4 * params.links)):
        progress(f"corpus: {name} ({count} sidecars)")
        home = _cached(base / name, lambda tmp, count=count: write_links(tmp, seed, count))
        link_dirs.append(home / ".gemini" / "antigravity-cli" / "conversations")
    return shards, link_dirs[0], link_dirs[1]


def home(params: Params, *, seed: int = 1, progress=print) -> Shard:
    """One home of *params*' sessions (``sessions`` of them, e.g. 2,000 short ones), cached
    under ``bench/.corpus-<key>/home``: the scale of a long-used install, for ``ci``'s time and
    memory per session."""
    base = HERE / f".corpus-{params.key()}"
    base.mkdir(exist_ok=True)
    progress(f"corpus: a home of {params.sessions} sessions in {base / 'home'}")
    return Shard(_cached(base / "home", lambda tmp: write_shard(tmp, seed, params)))


def redact_homes(params: Params, *, seed: int = 1, progress=print) -> tuple[Shard, Shard]:
    """Two homes for ``redact``, cached under ``bench/.corpus-<key>/``: *params*' sessions (N) and
    four times as many (4N; its first N sessions are the N home's, from the same seed)."""
    base = HERE / f".corpus-{params.key()}"
    base.mkdir(exist_ok=True)
    homes = []
    for name, sessions in (("redact-N", params.sessions), ("redact-4N", 4 * params.sessions)):
        progress(f"corpus: a home of {sessions} sessions for redact in {base / name}")
        scaled = Params(sessions=sessions, turns=params.turns, output_kb=params.output_kb, links=0)
        homes.append(Shard(_cached(base / name, lambda tmp, scaled=scaled: write_shard(tmp, seed, scaled))))
    return homes[0], homes[1]


def big_transcript(mib: int, *, seed: int = 1) -> Path:
    """A ``transcript_full.jsonl`` of at least *mib* MiB (realistic records, long outputs), cached."""
    from audit.testing.transcript_records import records_from_steps

    def make(tmp: Path) -> None:
        rng = random.Random(seed)
        clock = T.Clock(rng)
        tmp.mkdir(parents=True)
        written, index = 0, 0
        with open(tmp / "transcript_full.jsonl", "w", encoding="utf-8") as fh:
            while written < mib * 2**20:
                for record in records_from_steps(T.conversation_steps(rng, clock, 4)):
                    record["step_index"] = index
                    index += 1
                    line = json.dumps(record, separators=(",", ":")) + "\n"
                    fh.write(line)
                    written += len(line.encode())

    return _cached(HERE / f".corpus-transcript-{mib}mib-{seed}", make) / "transcript_full.jsonl"
