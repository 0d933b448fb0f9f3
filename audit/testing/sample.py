"""Regenerate the committed sample home: ``python -m audit.testing.sample examples/home``.

The sample has something for every check to find:

* CLI root: a parent with two subagents (native links) where one child carries a bogus
  ``agyReader.parentCascadeId`` stamp; a conversation whose sidecar is stale (an older copy missing
  its last steps); one whose sidecar is missing; one whose last steps live only in the ``-wal``;
  a sidecar with a field the bundled baseline has never seen (shape drift); a legacy ``.pb``;
  an implicit ``.pb``; a brain transcript with every real-world anomaly.
* IDE root: an ordinary conversation, one whose brain transcripts disagree with its ``.db``
  about a planner's thinking (``consistency``), and one with the IDE's brain files
  (``content.md``, resolved revisions, browser scratchpad, subagent definition, nested task
  messages, an undelivered message) and a ``brain_backup/`` copy, one with every step shape real stores hold
  (``trajectories.every_shape_steps``, no browser sub-agent, no images on prompts; no brain) and one whose ``.db`` was copied
  without its ``-wal`` (only the ``-shm`` beside it; its last step is in the transcripts only). ACP root: a brain-only
  session. ``antigravity-ide``: a second live IDE store. Per-install files in the CLI and IDE
  roots (``cli.log`` is a symbolic link to ``log/cli-*.log``).
* The real-world transcript cases of ``audit.testing.realworld`` (rolling chunks crossing a
  102,400-byte boundary, a chunk-only session, ``overview.txt``, windows that start late in both
  tiers, typed and truncated arguments, ``error_code``, a backward ``created_at``): advisories only.

The generator sets every mtime (the stale sidecar is an hour older than its ``.db``). Git keeps
no mtimes: in a fresh clone every file has the checkout time, so ``agy-audit stores`` sees each
sidecar as fresh (or missing); the stale one is still found by its content (``completeness``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path
from typing import Any

from audit.testing import trajectories as T
from audit.testing.builder import Conversation, StoreBuilder, write_sidecar
from audit.testing.realworld import add_real_world

SEED = 20261129
DRIFT_FIELD = "sandboxProfile"


def build(home: Path) -> StoreBuilder:
    b = StoreBuilder(home, seed=SEED)
    cli = b.root("cli")
    parent, children = cli.family(children=2)
    # A bogus stamp: the second child claims the first child as its parent.
    bogus = children[1]
    _restamp(bogus, {"parentCascadeId": children[0].id})
    cli.conversation(turns=3, sidecar="stale")
    cli.conversation(turns=1, sidecar="missing")
    cli.conversation(turns=2, wal_steps=2)
    drifted = cli.conversation(turns=1)
    assert drifted.sidecar_doc is not None  # written with its sidecar (the default)
    drifted.sidecar_doc["steps"][-1]["metadata"][DRIFT_FIELD] = "SANDBOX_PROFILE_STRICT"
    _rewrite(drifted)
    cli.conversation(turns=1, legacy_pb=True, brain=False)  # a .db and a legacy .pb: the .db is the source
    cli.conversation(
        turns=2, transcript_anomalies={"late-start", "repeated-step", "inverted-step", "torn-line", "running", "truncated"}
    )
    cli.implicit()
    ide = b.root("ide")
    ide.conversation(turns=2)
    ide.conversation(turns=1, disagreements={"thinking"})  # the transcripts tell another story
    acp = b.root("acp")
    acp.conversation(turns=1, db=False, sidecar="missing")
    # The layout of real installs: per-install files (cli.log a link to log/cli-*.log), an IDE
    # session with the IDE's brain files and a brain_backup/ copy, an antigravity-ide live store.
    cli.install_files([parent, *children], cli=True)
    shown = ide.conversation(turns=2)
    ide.ide_brain(shown)
    ide.backup(shown)
    ide.install_files([shown])
    live = b.root("ide", name="antigravity-ide")
    ide_live = live.conversation(turns=1)
    live.ide_brain(ide_live)
    # Every step shape real stores hold (docs/store-format.md#payloads) that the published sidecar record
    # shows (no browser sub-agent, no enum values without names, no images on prompts), without a
    # brain (like 3 of the 26 real stores: the transcript surface of the bundled baseline was
    # recorded from this sample); and a .db copied without its -wal.
    every = T.every_shape_steps(b.rng, b.clock, browser=False, unnamed_enums=False, media=False)
    ide.conversation(steps=every, brain=False)
    ide.conversation(turns=2, wal_steps=1, shm_without_wal=True, sidecar="missing")
    add_real_world(b)  # last: the ids above stay what they were
    return b


def _restamp(convo: Conversation, block: dict[str, Any]) -> None:
    assert convo.sidecar_doc is not None  # only conversations written with a sidecar are restamped
    convo.sidecar_doc["agyReader"] = block
    _rewrite(convo)


def _rewrite(convo: Conversation) -> None:
    """Rewrite the sidecar from ``sidecar_doc``, keeping its mtime."""
    path = convo.paths["sidecar"]
    assert convo.sidecar_doc is not None  # only conversations written with a sidecar are rewritten
    write_sidecar(path, convo.sidecar_doc, mtime_ns=os.stat(path).st_mtime_ns)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m audit.testing.sample", description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path, help="directory to (re)create, e.g. examples/home")
    args = parser.parse_args(argv)
    if args.dir.exists():
        if not (args.dir / ".gemini").is_dir():
            print(f"{args.dir}: exists and is not a sample home; refusing to replace it", file=sys.stderr)
            return 2
        shutil.rmtree(args.dir)
    build(args.dir)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
