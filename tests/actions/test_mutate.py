"""The mutation catalogue (``audit.actions.mutate``): each mutation changes what it says and keeps
every other byte."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from audit.actions import mutate
from audit.store import wire
from audit.store.transcript import CHUNK_BYTES

# field 1 (usage model 342), field 3 (output tokens 7) and field 11 written explicitly as 0 (a
# proto3 default a parse and re-serialisation would drop: docs/store-format.md#explicit-defaults)
_USAGE = bytes([0x08, 0xD6, 0x02, 0x18, 0x07, 0x58, 0x00])
_GENERATION = bytes([0x0A, len(_USAGE) + 2, 0x22, len(_USAGE)]) + _USAGE + bytes([0x22, 0x01, 0x61])


def test_a_wire_edit_changes_one_field_and_keeps_the_bytes_of_every_other():
    edited = mutate.edit_wire(_GENERATION, (1, 4), lambda fields: [f for f in fields if f.number != 3])
    usage = bytes([0x08, 0xD6, 0x02, 0x58, 0x00])
    assert edited == bytes([0x0A, len(usage) + 2, 0x22, len(usage)]) + usage + bytes([0x22, 0x01, 0x61])
    assert mutate.edit_wire(_GENERATION, (1, 4), lambda fields: fields) == _GENERATION


def test_a_wire_edit_leaves_bytes_that_are_no_message_as_they_are():
    text = bytes([0x0A, 0x03]) + b"\xff\xff\xff"  # field 1 holds bytes that do not parse as a message
    assert mutate.edit_wire(text, (1, 4), lambda fields: []) == text
    assert mutate.edit_wire(b"\xff", (), lambda fields: []) == b"\xff"


def test_a_varint_above_127_is_written_in_several_bytes():
    (field,) = wire.parse(mutate.edit_wire(bytes([0x08, 0x01]), (), lambda fields: [fields[0]._replace(value=6001)]))
    assert field.value == 6001


def _logs(home: Path) -> Path:
    logs = home / ".gemini" / "antigravity-cli" / "brain" / "b1" / ".system_generated" / "logs"
    logs.mkdir(parents=True)
    return logs


def test_a_transcript_mutation_rewrites_the_lines_it_changes_and_keeps_the_others(tmp_path):
    logs = _logs(tmp_path)
    lines = [
        b'{"step_index": 0, "source": "USER_EXPLICIT", "type": "USER_INPUT", "created_at": "2026-09-01T09:00:00Z"}',
        b'torn tail of a record"}',
        b'{"step_index":1,"source":"MODEL","type":"PLANNER_RESPONSE","content":"\xc3\xa9"}',
        b"",
    ]
    (logs / "transcript.jsonl").write_bytes(b"\n".join(lines))
    os.utime(logs / "transcript.jsonl", ns=(1_700_000_000_000_000_000, 1_700_000_000_000_000_000))
    changed = mutate.apply_mutation(mutate.CATALOGUE["rename-transcript-key"], tmp_path)
    assert changed == 1
    assert (logs / "transcript.jsonl").read_bytes() == b"\n".join(
        [
            b'{"step_index":0,"source":"USER_EXPLICIT","type":"USER_INPUT","createdAt":"2026-09-01T09:00:00Z"}',
            *lines[1:],
        ]
    )
    assert (logs / "transcript.jsonl").stat().st_mtime_ns == 1_700_000_000_000_000_000


def test_chunks_are_one_stream_rewritten_and_split_where_agy_splits(tmp_path):
    logs = _logs(tmp_path)
    record = {"step_index": 1, "source": "MODEL", "type": "PLANNER_RESPONSE", "created_at": "2026-09-01T09:00:00Z"}
    stream = b"".join(json.dumps(record | {"content": "x" * 900}, separators=(",", ":")).encode() + b"\n" for _ in range(150))
    chunks = logs / "chunks" / "transcript"
    chunks.mkdir(parents=True)
    for n in range(0, len(stream), CHUNK_BYTES):
        (chunks / f"{n // CHUNK_BYTES:08d}.jsonl").write_bytes(stream[n : n + CHUNK_BYTES])
    assert len(os.listdir(chunks)) == 2  # a record spans the two parts
    changed = mutate.apply_mutation(mutate.CATALOGUE["rename-transcript-key"], tmp_path)
    assert changed == 150
    parts = sorted(os.listdir(chunks))
    assert parts == ["00000000.jsonl", "00000001.jsonl"]
    joined = b"".join((chunks / p).read_bytes() for p in parts)
    assert len((chunks / parts[0]).read_bytes()) == CHUNK_BYTES
    assert joined == stream.replace(b'"created_at"', b'"createdAt"')


def test_a_mutation_the_store_gives_nothing_to_changes_nothing(tmp_path):
    _logs(tmp_path)
    assert mutate.apply_mutation(mutate.CATALOGUE["rename-cache-key"], tmp_path) == 0
    assert mutate.apply_mutation(mutate.CATALOGUE["drop-steps-metadata"], tmp_path) == 0


def test_every_mutation_is_named_documented_and_says_what_a_reader_of_it_reads():
    assert list(mutate.CATALOGUE) == [m.name for m in mutate.MUTATIONS]
    for m in mutate.MUTATIONS:
        assert re.fullmatch("[a-z0-9]+(-[a-z0-9]+)*", m.name) and m.name != mutate.ORIGINAL, m.name
        assert m.title and m.imitates and m.rests_on, m.name
        assert bool(m.reads) == (m.name != "add-transcript-key"), m.name  # only a mutation that adds reads nothing


def test_chunks_only_leaves_each_tier_as_chunks_holding_its_bytes(tmp_path):
    logs = _logs(tmp_path)
    compact = b'{"step_index":0,"type":"USER_INPUT"}\n' * 3000  # more than one chunk
    (logs / "transcript.jsonl").write_bytes(compact)
    (logs / "transcript_full.jsonl").write_bytes(b"full\n")
    (logs / "chunks" / "transcript_full").mkdir(parents=True)
    (logs / "chunks" / "transcript_full" / "00000000.jsonl").write_bytes(b"full\n")
    (logs / "overview.txt").write_bytes(b"overview\n")
    assert mutate.apply_mutation(mutate.CATALOGUE["chunks-only"], tmp_path) == 2
    assert sorted(p.relative_to(logs).as_posix() for p in logs.rglob("*") if p.is_file()) == [
        "chunks/transcript/00000000.jsonl",
        "chunks/transcript/00000001.jsonl",
        "chunks/transcript_full/00000000.jsonl",
        "overview.txt",
    ]
    assert b"".join(p.read_bytes() for p in sorted((logs / "chunks" / "transcript").iterdir())) == compact


def test_a_moved_field_stays_where_it_was_and_a_new_status_takes_only_commands(tmp_path):
    logs = _logs(tmp_path)
    records = [
        {"step_index": 0, "source": "MODEL", "type": "RUN_COMMAND", "status": "DONE"},
        {"step_index": 1, "source": "MODEL", "type": "VIEW_FILE", "status": "DONE"},
        {"step_index": 2, "source": "MODEL", "type": "RUN_COMMAND", "status": "ERROR"},
    ]
    (logs / "transcript.jsonl").write_text("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records))
    assert mutate.apply_mutation(mutate.CATALOGUE["new-status"], tmp_path) == 1
    assert mutate.apply_mutation(mutate.CATALOGUE["move-source"], tmp_path) == 3
    assert (logs / "transcript.jsonl").read_text().splitlines() == [
        '{"step_index":0,"metadata":{"source":"MODEL"},"type":"RUN_COMMAND","status":"SKIPPED"}',
        '{"step_index":1,"metadata":{"source":"MODEL"},"type":"VIEW_FILE","status":"DONE"}',
        '{"step_index":2,"metadata":{"source":"MODEL"},"type":"RUN_COMMAND","status":"ERROR"}',
    ]
