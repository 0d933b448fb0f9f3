"""The ``conventions`` surface: which documented headers, markers and sentences transcript records
carry per tier and step type (never their text); losing one is drift, and deja-vu's profile
judges it."""

from __future__ import annotations

import json
from pathlib import Path

from audit.actions import baseline_writer
from audit.checks import baselines, consumers
from audit.checks.conventions import CONVENTIONS, Conventions
from audit.checks.drift import compare, fingerprints_to_compare
from audit.checks.fingerprint import fingerprint_paths

CID = "0b0c5a3e-7d4f-4a5b-9c6d-1e2f3a4b5c6d"
HEADER = "Created At: 2026-05-24T19:09:26+09:00\nCompleted At: 2026-05-24T19:09:27+09:00\n"
ASYNC = (
    "Created At: 2026-05-24T19:09:26+09:00\nTool is running as a background task with task id: c/task-1\n"
    "Task Description: npm test\nTask logs are available at: file:///tmp/task-1.log"
)
EDIT = HEADER + "The following changes were made by the replace_file_content tool to: /w/a.py.\n"
DIFF = "[diff_block_start]\n@@ -1 +1 @@\n-a\n+b\n[diff_block_end]"
RECORDS = [
    ("USER_INPUT", "USER_EXPLICIT", "<USER_REQUEST>\nFile Path: mine, not a header\n</USER_REQUEST>"),
    ("PLANNER_RESPONSE", "MODEL", "Task Description: prose quoting a header is no convention"),
    ("RUN_COMMAND", "MODEL", ASYNC),
    ("RUN_COMMAND", "MODEL", HEADER + "The command exited with code 0.\nOutput:\nok"),
    ("VIEW_FILE", "MODEL", HEADER + "File Path: `file:///w/a.py`\nTotal Lines: 1\n1: a"),
    ("CODE_ACTION", "MODEL", EDIT + DIFF + "\n" + DIFF),
    ("CODE_ACTION", "MODEL", EDIT + DIFF),
    ("CODE_ACTION", "MODEL", HEADER + "Created file file:///w/b.py"),
    ("CONVERSATION_HISTORY", "SYSTEM", None),
]
LINES = (
    "compact.CODE_ACTION.changes-made\tnone|one",
    "compact.CODE_ACTION.completed-at\tone",
    "compact.CODE_ACTION.created-at\tone",
    "compact.CODE_ACTION.created-file\tnone|one",
    "compact.CODE_ACTION.diff-block-end\tmany|none|one",
    "compact.CODE_ACTION.diff-block-start\tmany|none|one",
    "compact.CONVERSATION_HISTORY.completed-at\tnone",
    "compact.CONVERSATION_HISTORY.created-at\tnone",
    "compact.RUN_COMMAND.completed-at\tnone|one",
    "compact.RUN_COMMAND.created-at\tone",
    "compact.RUN_COMMAND.task-description\tnone|one",
    "compact.USER_INPUT.user-request\tone",
    "compact.VIEW_FILE.completed-at\tone",
    "compact.VIEW_FILE.created-at\tone",
    "compact.VIEW_FILE.file-path\tone",
)


def _store(home: Path, records=RECORDS) -> Path:
    """A CLI root whose one brain has a compact transcript of *records* (type, source, content)."""
    logs = home / ".gemini" / "antigravity-cli" / "brain" / CID / ".system_generated" / "logs"
    logs.mkdir(parents=True)
    lines = []
    for i, (kind, source, content) in enumerate(records):
        record = {"step_index": i, "source": source, "type": kind, "status": "DONE", "created_at": "2026-05-24T10:09:26Z"}
        if content is not None:
            record["content"] = content
        lines.append(json.dumps(record))
    (logs / "transcript.jsonl").write_text("\n".join(lines) + "\n")
    return home


def test_each_convention_is_counted_per_tier_and_step_type_where_it_is_documented(tmp_path):
    fp = fingerprint_paths([_store(tmp_path / "home")], ("conventions",)).fingerprints["conventions"]
    assert fp.lines == LINES  # USER_INPUT and PLANNER_RESPONSE prose quoting a header adds nothing


def test_no_text_reaches_the_lines(tmp_path):
    lines = "\n".join(fingerprint_paths([_store(tmp_path / "home")], ("conventions",)).fingerprints["conventions"].lines)
    for text in ("npm test", "a.py", "replace_file_content", "2026", "@@"):
        assert text not in lines


def test_the_table_names_each_convention_once_and_the_counter_merges():
    assert len({c.name for c in CONVENTIONS}) == len(CONVENTIONS)
    a, b = Conventions(), Conventions()
    a.add("full", "VIEW_FILE", "File Path: x")
    b.add("full", "VIEW_FILE", 7)  # content that is not text holds none
    b.add("full", None, "File Path: x")  # a record without a type: no step type to file it under
    a.merge(b)
    assert sorted(a.lines()) == [
        "full.VIEW_FILE.completed-at\tnone",
        "full.VIEW_FILE.created-at\tnone",
        "full.VIEW_FILE.file-path\tnone|one",
    ]


def test_a_lost_header_is_drift_and_puts_deja_vu_at_risk(tmp_path):
    fp = tmp_path / "fp"
    every_command_async = [r for r in RECORDS if r[0] != "RUN_COMMAND" or "Task Description:" in r[2]]
    before = fingerprint_paths([_store(tmp_path / "home", every_command_async)])
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", before, "2026-12-01"), fp)
    baseline = baselines.load(fp / "agy-9.9.9")
    renamed = [(k, s, c.replace("Task Description:", "Task:") if c else c) for k, s, c in every_command_async]
    observed = fingerprints_to_compare([_store(tmp_path / "home-2", renamed)])
    comparison = compare(baseline, observed)
    (surface,) = [r for r in comparison.surfaces if r.surface == "conventions"]
    assert surface.status == "DRIFT"
    assert [(c.path, c.kind, c.old, c.new) for c in surface.changes] == [
        ("compact.RUN_COMMAND.task-description", "type-changed", "one", "none")
    ]
    deja = next(p for p in consumers.bundled() if p.name == "deja-vu")
    judged = consumers.judge(deja, comparison, baseline, observed)
    assert judged.verdict == "at risk"
    assert [(d.entry.surface, d.entry.path) for d in judged.deciding] == [("conventions", "compact.RUN_COMMAND.task-description")]
