"""``conversation_summaries.db`` for test stores: the per-install index of a root's conversations.

The columns are those released readers select (conversation_id, title, preview, step_count,
last_modified_time, workspace_uris as JSON text, status, not_fully_idle, killed, project_id,
agent_name, parent_conversation_id, nesting_depth, battle_id, winning_conversation_id,
last_user_input_time, app_data_dir); the declared types are ours, inferred from how those readers
use the values (times are SQLite datetime text, flags and counts integers). No fact gives agy's own
DDL: what this writes is synthetic, and so is the ``summaries`` surface recorded from it.

Deterministic: nothing here draws from the builder's random generator, so adding the file to a
store changes no id of the conversations written after it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from audit.testing.builder import Conversation

DDL = """CREATE TABLE conversation_summaries (
  conversation_id TEXT PRIMARY KEY NOT NULL,
  title TEXT NOT NULL DEFAULT '',
  preview TEXT NOT NULL DEFAULT '',
  step_count INTEGER NOT NULL DEFAULT 0,
  last_modified_time DATETIME,
  workspace_uris TEXT NOT NULL DEFAULT '[]',
  status INTEGER NOT NULL DEFAULT 0,
  not_fully_idle INTEGER NOT NULL DEFAULT 0,
  killed INTEGER NOT NULL DEFAULT 0,
  project_id TEXT,
  agent_name TEXT,
  parent_conversation_id TEXT,
  nesting_depth INTEGER NOT NULL DEFAULT 0,
  battle_id TEXT,
  winning_conversation_id TEXT,
  last_user_input_time DATETIME,
  app_data_dir TEXT NOT NULL DEFAULT ''
)"""
COLUMNS = (
    "conversation_id",
    "title",
    "preview",
    "step_count",
    "last_modified_time",
    "workspace_uris",
    "status",
    "not_fully_idle",
    "killed",
    "project_id",
    "agent_name",
    "parent_conversation_id",
    "nesting_depth",
    "battle_id",
    "winning_conversation_id",
    "last_user_input_time",
    "app_data_dir",
)
IDLE = 1
"""The ``status`` written for a finished conversation (a small integer; its names are not known)."""


def _datetime(ns: int) -> str:
    moment = _dt.datetime.fromtimestamp(ns / 1e9, _dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"


def summary_row(convo: Conversation, app_data_dir: str, *, workspace: str = "file:///w") -> dict[str, object]:
    """The summary of one conversation the builder wrote (its title is its position-free id prefix)."""
    metadata = convo.trajectory.get("metadata") or {}
    parent = metadata.get("parentConversationId")
    prompt = next((s["userInput"].get("userResponse", "") for s in convo.steps if "userInput" in s), "")
    return {
        "conversation_id": convo.id,
        "title": f"Conversation {convo.id[:8]}",
        "preview": str(prompt)[:80],
        "step_count": len(convo.steps),
        "last_modified_time": _datetime(convo.end_ns),
        "workspace_uris": json.dumps([workspace]),
        "status": IDLE,
        "not_fully_idle": 0,
        "killed": 0,
        "project_id": None,
        "agent_name": None,
        "parent_conversation_id": parent,
        "nesting_depth": 1 if parent else 0,
        "battle_id": None,
        "winning_conversation_id": None,
        "last_user_input_time": _datetime(convo.end_ns),
        "app_data_dir": app_data_dir,
    }


def write_summaries_db(path: str | Path, rows: Iterable[dict[str, object]], *, extra_columns: str = "") -> Path:
    """Create *path* holding *rows* (``summary_row``), rollback-journal mode. *extra_columns*
    (e.g. ``", data BLOB"``) adds columns a row may then fill (tests of drift)."""
    path = Path(path)
    rows = list(rows)
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute(DDL[:-2] + extra_columns + "\n)")
        for row in rows:
            names = list(row)
            marks = ", ".join("?" * len(names))
            conn.execute(f"INSERT INTO conversation_summaries ({', '.join(names)}) VALUES ({marks})", [row[n] for n in names])
        conn.commit()
    return path
