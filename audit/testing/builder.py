"""The store builder: realistic Antigravity stores on disk, deterministic from a seed.

Used by the tests, the benchmarks and ``python -m audit.testing.sample`` (which regenerates
``examples/home``). Nothing here touches a real store; everything is written below ``home``.

    builder = StoreBuilder(tmp_path, seed=7)
    cli = builder.root("cli")
    convo = cli.conversation(turns=2)                 # .db + fresh sidecar + brain transcripts
    parent, children = cli.family(children=2)         # invokeSubagent results + parentConversationId
    cli.conversation(sidecar="stale")                 # sidecar is an older prefix of the .db
    cli.conversation(db=False, legacy_pb=True)        # legacy .pb of random bytes: no key opens it
    cli.conversation(db=False, legacy_pb=True, legacy_key=key)  # the trajectory sealed with a test's key
    cli.implicit()                                    # implicit/<uuid>.pb
"""

from __future__ import annotations

import copy
import json
import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from audit.store.legacy_pb import Key
from audit.testing import trajectories as T

if TYPE_CHECKING:
    from audit.testing.disagreements import Planted

ROOT_NAMES = {"cli": "antigravity-cli", "ide": "antigravity", "acp": "antigravity-acp"}
TRAJECTORY_SOURCES = {
    "cli": "CORTEX_TRAJECTORY_SOURCE_CLI",
    "ide": "CORTEX_TRAJECTORY_SOURCE_CASCADE_CLIENT",
    "acp": "CORTEX_TRAJECTORY_SOURCE_CLI",
}


@dataclass
class Conversation:
    """What the builder wrote for one conversation id."""

    id: str
    root: Path
    trajectory: dict[str, Any]  # the full trajectory (what the .db holds)
    sidecar_doc: dict[str, Any] | None = None  # what the sidecar holds (a prefix of ``trajectory`` when stale)
    paths: dict[str, Path] = field(default_factory=dict)
    end_ns: int = 0
    planted: list[Planted] = field(default_factory=list)  # planted in the transcripts

    @property
    def steps(self) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = self.trajectory["steps"]
        return steps


def write_sidecar(path: Path, doc: dict[str, Any], *, mtime_ns: int | None = None) -> None:
    """A sidecar as the daemon's JSON (2-space indent, trailing newline), mode 0600."""
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(path, 0o600)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


class StoreBuilder:
    def __init__(self, home: str | os.PathLike[str], *, seed: int = 0, start: str = "2026-09-01T09:00:00Z") -> None:
        self.home = Path(home)
        self.rng = random.Random(seed)
        self.clock = T.Clock(self.rng, start)
        self.roots: dict[str, RootBuilder] = {}

    def root(self, product: str = "cli", *, name: str | None = None) -> RootBuilder:
        """The root ``~/.gemini/<name>`` (created once), by default the product's usual name."""
        name = name or ROOT_NAMES[product]
        if name not in self.roots:
            self.roots[name] = RootBuilder(self, self.home / ".gemini" / name, product)
        return self.roots[name]


class RootBuilder:
    def __init__(self, builder: StoreBuilder, path: Path, product: str) -> None:
        self.builder = builder
        self.path = path
        self.product = product
        self.rng = builder.rng
        self.clock = builder.clock
        for sub in ("conversations", "brain"):
            (path / sub).mkdir(parents=True, exist_ok=True)

    # -- conversations -------------------------------------------------------------------------

    def conversation(
        self,
        cid: str | None = None,
        *,
        turns: int = 2,
        steps: list[dict[str, Any]] | None = None,
        prompt: str | None = None,
        parent: str | None = None,
        sidecar: str = "fresh",
        stale_missing_steps: int = 2,
        reader_block: dict[str, Any] | None = None,
        db: bool = True,
        wal_steps: int = 0,
        shm_without_wal: bool = False,
        internal_cascade_id: str | None = None,
        unknown_fields: bool = False,
        explicit_defaults: bool = False,
        legacy_pb: bool = False,
        legacy_key: Key | None = None,
        brain: bool = True,
        transcript_anomalies: frozenset[str] | set[str] = frozenset(),
        compact_window_start: int | None = None,
        disagreements: frozenset[str] | set[str] | tuple[str, ...] = (),
        transcript_chunks: str = "none",
        transcript_overview: bool = False,
    ) -> Conversation:
        """Write one conversation.

        ``sidecar``: ``fresh`` (full copy, newer than the source), ``stale`` (an older copy missing
        the last ``stale_missing_steps`` steps, older than the source) or ``missing``.
        ``reader_block``: an ``agyReader`` object to put in the sidecar (e.g. a parent stamp).
        ``wal_steps``: that many of the last steps are committed only to the ``-wal``.
        ``shm_without_wal``: the ``.db`` is left as a copy without its ``-wal`` (only the ``-shm``
        beside it): its last ``wal_steps`` steps are lost, while the transcripts still hold them.
        ``legacy_pb``: a legacy ``.pb`` beside (or, with ``db=False``, instead of) the ``.db``:
        random bytes, or with ``legacy_key`` the trajectory sealed as ``audit.store.legacy_pb``
        reads it (``audit.testing.pbwriter``; needs the ``cryptography`` package).
        ``disagreements``: kinds of ``audit.testing.disagreements.KINDS`` to plant in the
        transcripts (both tiers); ``Conversation.planted`` lists what they must be reported as.
        ``transcript_chunks`` (``none``, ``both``, ``only``) and ``transcript_overview``: the
        rolling chunks and ``logs/overview.txt`` (``audit.testing.transcripts.write_brain``).
        ``explicit_defaults``: the ``.db``'s planner configs carry fields encoded at their default
        value, as real ones do (``audit.testing.dbwriter.EXPLICIT_DEFAULTS``).
        """
        cid = (cid or T.new_id(self.rng)).lower()
        started = self.clock.tick(30, 600)
        if steps is None:
            steps = T.conversation_steps(self.rng, self.clock, turns, prompt=prompt)
        doc = T.trajectory(
            self.rng,
            internal_cascade_id or cid,
            steps,
            created_at=started,
            source=TRAJECTORY_SOURCES[self.product],
            parent=parent,
        )
        convo = Conversation(cid, self.path, doc, end_ns=self.clock.epoch_ns())
        conversations = self.path / "conversations"
        if db:
            from audit.testing.dbwriter import write_conversation_db

            db_path = conversations / f"{cid}.db"
            write_conversation_db(
                db_path,
                doc,
                wal=wal_steps > 0 or shm_without_wal,
                uncheckpointed_steps=wal_steps,
                unknown_fields=unknown_fields,
                shm_without_wal=shm_without_wal,
                explicit_defaults=explicit_defaults,
            )
            for suffix in ("", "-wal", "-shm", "-journal"):
                p = Path(f"{db_path}{suffix}")
                if p.exists():
                    convo.paths["db" + suffix.replace("-", "_")] = p
                    os.utime(p, ns=(convo.end_ns, convo.end_ns))
        if legacy_pb:
            pb = conversations / f"{cid}.pb"
            if legacy_key is not None:
                from audit.testing.pbwriter import write_legacy_pb

                pb.parent.mkdir(parents=True, exist_ok=True)
                write_legacy_pb(pb, doc, legacy_key, self.rng.randbytes(12))
            else:
                pb.write_bytes(self.rng.randbytes(64 + 32 * len(steps)))
            os.utime(pb, ns=(convo.end_ns, convo.end_ns))
            convo.paths["legacy_pb"] = pb
        if sidecar != "missing":
            side = copy.deepcopy(doc)
            mtime = convo.end_ns + 5 * 10**9
            if sidecar == "stale":
                keep = max(1, len(steps) - stale_missing_steps)
                side["steps"] = side["steps"][:keep]
                mtime = convo.end_ns - 3600 * 10**9
            elif sidecar != "fresh":
                raise ValueError(f"sidecar must be fresh, stale or missing, not {sidecar!r}")
            if reader_block is not None:
                side["agyReader"] = reader_block
            path = conversations / f"{cid}.trajectory.json"
            write_sidecar(path, side, mtime_ns=mtime)
            convo.sidecar_doc = side
            convo.paths["sidecar"] = path
        if brain:
            from audit.testing.disagreements import plant
            from audit.testing.transcript_records import records_from_steps
            from audit.testing.transcripts import write_brain

            brain_dir = self.path / "brain" / cid
            records = records_from_steps(steps)
            if disagreements:
                convo.planted = plant(records, disagreements, self.rng)
            write_brain(
                brain_dir,
                records,
                rng=self.rng,
                anomalies=frozenset(transcript_anomalies),
                compact_window_start=compact_window_start,
                chunks=transcript_chunks,
                overview=transcript_overview,
            )
            for dirpath, _, files in os.walk(brain_dir):
                for name in files:
                    os.utime(Path(dirpath, name), ns=(convo.end_ns, convo.end_ns))
            convo.paths["brain"] = brain_dir
        return convo

    def family(self, *, children: int = 2, turns: int = 1, **kwargs: Any) -> tuple[Conversation, list[Conversation]]:
        """A parent that invokes ``children`` subagents; each child names its parent natively."""
        parent_id = T.new_id(self.rng)
        kids = [(T.new_id(self.rng), f"Subagent task {i + 1}: {T.sentence(self.rng)}") for i in range(children)]
        steps = [T.user_input(self.clock, T.sentence(self.rng))]
        subagents = [{"TypeName": "general", "Prompt": p} for _, p in kids]
        call = T.tool_call(
            self.rng,
            "invoke_subagent",
            {"Subagents": subagents, "toolAction": "Invoking subagents", "toolSummary": "delegate the tasks"},
        )
        steps.append(T.planner_response(self.clock, self.rng, "Delegating to subagents.", [call]))
        steps.append(T.invoke_subagent(self.clock, call, kids))
        steps.append(T.planner_response(self.clock, self.rng, "Subagents finished: " + ", ".join(k for k, _ in kids)))
        parent = self.conversation(parent_id, steps=steps, **kwargs)
        out = [self.conversation(kid, turns=turns, prompt=prompt, parent=parent_id, **kwargs) for kid, prompt in kids]
        return parent, out

    def implicit(self, cid: str | None = None) -> Path:
        """An encrypted ``implicit/<uuid>.pb`` background trajectory."""
        cid = (cid or T.new_id(self.rng)).lower()
        path = self.path / "implicit" / f"{cid}.pb"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(self.rng.randbytes(96))
        return path

    def foreign(self, relative: str, data: bytes = b"not a session\n") -> Path:
        """A file that is not a session artifact (e.g. ``conversations/notes.txt``)."""
        path = self.path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def cli_log(self, port: int, *, https_port: int | None = None) -> Path:
        """A ``cli.log`` with the daemon's port lines (the HTTPS/gRPC one must be ignored)."""
        lines = []
        if https_port is not None:
            lines.append(f"I1101 09:00:00.000000 1 server.go:1] listening on random port at {https_port} for HTTPS (gRPC)")
        lines.append(f"I1101 09:00:00.000001 1 server.go:1] listening on random port at {port} for HTTP")
        path = self.path / "cli.log"
        path.write_text("\n".join(lines) + "\n")
        return path

    # -- the layout of real installs (docs/store-format.md#roots) -------------------------

    def ide_brain(self, convo: Conversation) -> list[Path]:
        """Give *convo*'s brain directory the IDE's files: ``steps/N/content.md`` where the CLI has
        ``output.txt``, resolved artifact revisions, a browser scratchpad, a subagent definition,
        a nested ``task-N/.system_generated/messages/`` and an undelivered (empty) message."""
        brain = convo.paths["brain"]
        system = brain / ".system_generated"
        written: list[Path] = []
        steps = system / "steps"
        for output in sorted(steps.glob("*/output.txt")) if steps.is_dir() else []:
            content = output.with_name("content.md")
            output.rename(content)
            written.append(content)
        task = brain / "task.md"
        text = task.read_text(encoding="utf-8") if task.exists() else "# Task\n"
        message_id = T.new_id(self.rng)
        files = {
            brain / "task.md.resolved": text,
            brain / "task.md.resolved.0": text.replace("- [x]", "- [ ]"),
            brain / "browser" / f"scratchpad_{self.rng.getrandbits(32):08x}.md": "# Scratchpad\n\nNothing yet.\n",
            brain / ".agents" / "agents" / "reviewer" / "agent.json": json.dumps(
                {"name": "reviewer", "description": T.sentence(self.rng)}, indent=2
            )
            + "\n",
            brain / "task-1" / ".system_generated" / "messages" / f"{message_id}.json": json.dumps(
                {
                    "id": message_id,
                    "content": "Subtask finished.",
                    "priority": "MESSAGE_PRIORITY_LOW",
                    "recipient": convo.id,
                    "sender": "task-1",
                    "timestamp": "2026-09-01T09:00:00.000000001Z",
                    "hideFromUser": True,
                }
            )
            + "\n",
            system / "messages" / "undelivered" / T.new_id(self.rng): "",
        }
        for path, body in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body, encoding="utf-8")
            written.append(path)
        for path in written:
            os.utime(path, ns=(convo.end_ns, convo.end_ns))
        return written

    def summaries(
        self,
        conversations: list[Conversation],
        *,
        extra_columns: str = "",
        rows: list[dict[str, Any]] | None = None,
        workspace: str = "/w",
    ) -> Path:
        """``conversation_summaries.db`` with one row per conversation (``summaries.summary_row``,
        naming *workspace*), or *rows* as given; *extra_columns* as ``summaries.write_summaries_db``
        takes them."""
        from audit.testing.summaries import summary_row, write_summaries_db

        path = self.path / "conversation_summaries.db"
        if rows is None:
            rows = [summary_row(c, self.path.name, workspace=f"file://{workspace}") for c in conversations]
        return write_summaries_db(path, rows, extra_columns=extra_columns)

    def backup(self, convo: Conversation) -> Path:
        """A copy of *convo*'s brain directory in ``brain_backup/<id>/`` (mtimes kept)."""
        import shutil

        target = self.path / "brain_backup" / convo.id
        shutil.copytree(convo.paths["brain"], target)
        return target

    def install_files(
        self,
        conversations: list[Conversation],
        *,
        cli: bool = False,
        catalogued: list[Conversation] | None = None,
        workspace: str = "/w",
    ) -> list[Path]:
        """The per-install files real roots hold: the state text proto, the hub's conversation
        index, ``history.jsonl``, ``conversation_summaries.db`` (one row per conversation of
        *catalogued*, default every one: the catalog agy fills asynchronously, which can lag
        behind a new session; ``audit.testing.summaries``), one ``annotations/<uuid>.pbtxt`` per
        conversation and, with *cli*, the CLI's ``cache/``, ``log/cli-YYYYMMDD_HHMMSS.log`` and
        ``cli.log``, a symbolic link to that log (no daemon port in it); without it, the IDE's
        ``cache/conversation_metadata.json``. Each names *workspace* as the sessions' folder (the
        conversations' own is ``trajectories``' ``/home/agy/project``: pass it for a store whose
        every source agrees, as a real one's do)."""
        ids = [c.id for c in conversations]
        files: dict[Path, bytes] = {
            self.path / "antigravity_state.pbtxt": (
                f'installation_uuid: "{T.new_id(self.rng)}"\npost_onboarding: true\nagent_onboarding_completed: true\n'
            ).encode(),
            self.path / "agyhub_summaries_proto.pb": b"".join(b"\x0a\x24" + cid.encode() for cid in ids),
            self.path / "history.jsonl": "".join(
                json.dumps(
                    {
                        "conversationId": cid,
                        "display": T.sentence(self.rng, 4),
                        "timestamp": 1788253200000 + n,
                        "workspace": workspace,
                        "type": "chat",
                    }
                )
                + "\n"
                for n, cid in enumerate(ids)
            ).encode(),
        }
        for cid in ids:
            files[self.path / "annotations" / f"{cid}.pbtxt"] = (
                b"last_user_view_time {\n  seconds: 1788253200\n}\narchived: false\n"
            )
        log_name = "cli-20260901_090000.log"
        if cli:
            cache = self.path / "cache"
            files[cache / "onboarding.json"] = b'{"completed": true}\n'
            files[cache / "projects.json"] = b"[]\n"
            files[cache / "default_project_id.txt"] = T.new_id(self.rng).encode() + b"\n"
            files[cache / "last_conversations.json"] = json.dumps({workspace: ids[-1]} if ids else {}).encode() + b"\n"
            files[cache / "settings.json"] = b"{}\n"
            files[self.path / "log" / log_name] = b"I0901 09:00:00.000000 1 main.go:1] agy started\n"
        else:
            metadata = {"conversations": {cid: {"summary": {"WorkspaceURIs": [f"file://{workspace}"]}} for cid in ids}}
            files[self.path / "cache" / "conversation_metadata.json"] = json.dumps(metadata).encode() + b"\n"
        for path, body in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(body)
        written = list(files)
        written.append(self.summaries(conversations if catalogued is None else catalogued, workspace=workspace))
        link = self.path / "cli.log"
        if cli and not os.path.lexists(link):
            link.symlink_to(Path("log") / log_name)
            written.append(link)
        return written


def load_redacted(source: str | os.PathLike[str], home: str | os.PathLike[str]) -> Path:
    """Copy a store made by ``agy-audit redact`` (it holds ``REDACTION.md``) to *home*, as a test
    fixture: the way a user's store reaches a regression test without its content. Refuses a tree
    that was not redacted, so a real store never becomes a fixture by mistake."""
    import shutil

    from audit.actions.redact import REPORT

    source, home = Path(source), Path(home)
    if not (source / REPORT).is_file():
        raise ValueError(f"{source}: no {REPORT}; only a copy made by 'agy-audit redact' can be a fixture")
    shutil.copytree(source, home, symlinks=True, ignore=shutil.ignore_patterns(REPORT))
    return home
