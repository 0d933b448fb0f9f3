import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.store.transcript import (
    DROPPED,
    KINDS,
    Anomaly,
    Arg,
    FileChange,
    Record,
    SettingChange,
    iter_bytes,
    iter_transcript,
    locate,
    pair_records,
    parse_content,
    read_brain,
    summarize,
    text_fits,
)
from audit.strictjson import dumps
from audit.testing.transcript_records import records_from_steps
from audit.testing.transcripts import ANOMALIES, BrainInfo, write_brain

DATA = Path(__file__).resolve().parents[1] / "data"  # vendored reference data (tests/data/README.md)
UUID = "3f2b8c1e-9a47-4d2e-8b1f-6c5d4e3a2b10"


def rec(step, **fields) -> dict:
    record = {
        "step_index": step,
        "source": "MODEL",
        "type": "PLANNER_RESPONSE",
        "status": "DONE",
        "created_at": "2026-06-21T13:32:14Z",
    }
    record.update(fields)
    return record


def line(record: dict) -> bytes:
    return json.dumps(record).encode()


def split(items):
    records = [i for i in items if isinstance(i, Record)]
    findings = [i for i in items if isinstance(i, Anomaly)]
    return records, findings


def read(path, **kwargs):
    return split(list(iter_transcript(path, **kwargs)))


def kinds(findings):
    return [(f.line, f.kind) for f in findings]


# ----------------------------------------------------------------------------- reading


def test_every_line_anomaly_is_reported_and_good_records_survive(tmp_path):
    lines = [
        line(rec(0, source="USER_EXPLICIT", type="USER_INPUT", content="<USER_REQUEST>hi</USER_REQUEST>")),
        line(rec(1, tool_calls=[{"name": "run_command", "args": {"CommandLine": '"ls"'}}])),
        b'ng value","thinking":"x"}',  # torn: the JSON prefix is missing
        b'{"content":"' + b"a" * 500 + b'"}',  # over the cap
        b'{"step_index":2,"content":"\xff"}',
        b"[1,2]",
        b"",
        line(rec(2, source="ROBOT", type="TELEPORT", status="HALTED")),
        line(rec(2)),
        line(rec(5)),
        line(rec(4)),
        b'{"source":"MODEL","created_at":"2026-06-21T13:32:14Z"}',
        line(rec(6, extra=1, exit_code="0", created_at="yesterday")),
        line(rec(7, tool_calls=[{"name": "run_command", "id": "x", "args": {"CommandLine": "go test", "Timeout": 5}}])),
        b'{"a":1,"a":2}',
        b'{"a":NaN}',
        line(rec(8)),  # no final newline
    ]
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(b"\n".join(lines))
    records, findings = read(path, max_line_bytes=400)
    assert kinds(findings) == [
        (3, "bad-json"),
        (4, "line-too-long"),
        (5, "bad-utf8"),
        (6, "not-object"),
        (7, "blank-line"),
        (8, "unknown-source"),
        (8, "unknown-type"),
        (8, "unknown-status"),
        (9, "repeated-step"),
        (10, "step-gap"),
        (11, "inverted-step"),
        (12, "missing-key"),
        (12, "no-status"),
        (13, "unknown-key"),
        (13, "bad-value"),
        (13, "bad-value"),
        (14, "unknown-key"),
        (15, "bad-json"),
        (16, "bad-json"),
        (17, "unterminated-line"),
        (14, "mixed-encoding"),  # "go test" and 5 are native values, line 2's '"ls"' JSON text
    ]
    assert {f.kind for f in findings} <= KINDS.keys()
    assert [(r.line, r.step_index) for r in records] == [
        (1, 0),
        (2, 1),
        (8, 2),
        (9, 2),
        (10, 5),
        (11, 4),
        (12, None),
        (13, 6),
        (14, 7),
        (17, 8),
    ]
    by_line = {f.line: f.message for f in findings}
    assert by_line[5] == "invalid UTF-8 at byte 27"
    assert [f.message for f in findings if f.line == 12] == [
        "missing step_index, type",
        "no status: UNSPECIFIED (proto3 JSON drops zero values)",
    ]
    assert by_line[15] == "duplicate key 'a' at /"
    assert [f.message for f in findings if f.line == 13] == [
        "unknown extra",
        "created_at 'yesterday' is not an RFC 3339 timestamp",
        "exit_code is string, not integer",
    ]
    assert [f.message for f in findings if f.line == 14] == [
        "tool_calls/0: unknown id",
        f"compact tier: tool-call arguments in both encodings: tool_calls/0/args/CommandLine holds a native value, "
        f"tool_calls/0/args/CommandLine ({path}:2) the other",
    ]
    assert findings[-1].pointer == "/tool_calls/0/args/CommandLine"
    # a damaged value never leaks into the typed field; the raw dict keeps it
    bad = records[7]
    assert (bad.created_at, bad.exit_code, bad.raw["exit_code"]) == ("yesterday", None, "0")
    assert (records[2].source, records[2].type, records[2].status) == ("ROBOT", "TELEPORT", "HALTED")


def test_wrong_types_become_none_with_findings(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        line(
            {
                "step_index": -1,
                "source": 5,
                "type": None,
                "status": "DONE",
                "created_at": 1,
                "content": ["x"],
                "thinking": {},
                "error": 3,
                "truncated_fields": ["content", 2],
                "tool_calls": ["run", {"args": "x"}],
            }
        )
        + b"\n"
        + line(rec(True))
        + b"\n"
    )
    records, findings = read(path)
    assert [f.message for f in findings] == [
        "step_index -1 is negative",
        "source is number, not string",
        "type is null, not string",
        "created_at is number, not string",
        "truncated_fields holds a non-string",
        "tool_calls/0 is string, not object",
        "tool_calls/1: missing name",
        "tool_calls/1/args is string, not object",
        "content is array, not string",
        "thinking is object, not string",
        "error is number, not string",
        "step_index is boolean, not integer",
    ]
    first = records[0]
    assert (first.step_index, first.source, first.type, first.content, first.thinking, first.error) == (None,) * 6
    assert first.truncated_fields == ("content",)
    assert len(first.tool_calls) == 1 and first.tool_calls[0].name is None and first.tool_calls[0].args == {}
    assert records[1].step_index is None


def test_compact_args_are_json_text_and_a_truncated_one_is_named(tmp_path):
    args = {
        "CommandLine": '"go test ./..."',
        "WaitMsBeforeAsync": "5000",
        "BypassSandbox": "true",
        "ArtifactMetadata": '{"Summary":"s","Tags":[1]}',
        "Cut": '"abc\n<truncated 9 bytes>\nxyz"',
        "Null": "null",
    }
    path = tmp_path / "transcript.jsonl"
    path.write_bytes(
        line(rec(0, tool_calls=[{"name": "run_command", "args": args}]))
        + b"\n"
        + line(rec(1, tool_calls=[{"name": "x", "args": {"Cut": '"abc<truncated 1 bytes>'}}], truncated_fields=["tool_calls"]))
        + b"\n"
    )
    records, findings = read(path)
    call = records[0].tool_calls[0]
    assert (call.name, records[0].tier) == ("run_command", "compact")
    assert call.args == {
        "CommandLine": Arg('"go test ./..."', "go test ./...", True),
        "WaitMsBeforeAsync": Arg("5000", 5000, True),
        "BypassSandbox": Arg("true", True, True),
        "ArtifactMetadata": Arg('{"Summary":"s","Tags":[1]}', {"Summary": "s", "Tags": [1]}, True),
        "Cut": Arg('"abc\n<truncated 9 bytes>\nxyz"', '"abc\n<truncated 9 bytes>\nxyz"', False),
        "Null": Arg("null", None, True),
    }
    # a cut value is named wherever it is, whatever truncated_fields says; one encoding: no stream finding
    assert [(f.line, f.kind, f.pointer) for f in findings] == [
        (1, "truncated-arg", "/tool_calls/0/args/Cut"),
        (2, "truncated-arg", "/tool_calls/0/args/Cut"),
    ]
    assert findings[0].message.startswith("tool_calls/0/args/Cut is cut by <truncated 9 bytes>; not JSON text (")


def test_full_args_are_native_values(tmp_path):
    args = {"CommandLine": "npm run build", "WaitMsBeforeAsync": 5000, "Overwrite": True, "Spec": {"a": [1]}, "Paths": ["x"]}
    path = tmp_path / "transcript_full.jsonl"
    path.write_bytes(line(rec(0, tool_calls=[{"name": "run_command", "args": args}])) + b"\n")
    records, findings = read(path)
    assert findings == [] and records[0].tier == "full"
    assert records[0].tool_calls[0].args == {k: Arg(v, v, True) for k, v in args.items()}
    # "5000" in the full tier is the string 5000, not a number
    path.write_bytes(line(rec(0, tool_calls=[{"name": "x", "args": {"Port": "5000"}}])) + b"\n")
    assert read(path)[0][0].tool_calls[0].args["Port"] == Arg("5000", "5000", True)


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        # the compact tier (and overview) holding native values: the other tier's encoding
        (
            "transcript.jsonl",
            [{"A": 5}, {"A": "plain text"}],
            [(1, "tier-encoding", "compact tier holds native argument values")],
        ),
        ("overview.txt", [{"A": True}], [(1, "tier-encoding", "overview tier holds native argument values")]),
        # the full tier holding JSON text (quoted strings, objects)
        (
            "transcript_full.jsonl",
            [{"A": '"x"'}, {"A": "{}"}],
            [(1, "tier-encoding", "full tier holds JSON-text argument values")],
        ),
        # both encodings in one file: named at the first value of the second one
        ("transcript.jsonl", [{"A": '"x"'}, {"A": 5}], [(2, "mixed-encoding", "compact tier: tool-call arguments in both")]),
        ("transcript_full.jsonl", [{"A": 5}, {"A": '"x"'}], [(2, "mixed-encoding", "full tier: tool-call arguments in both")]),
        # ambiguous values ("5000", "true") are no evidence either way, nor a JSON document in the full tier
        ("transcript_full.jsonl", [{"A": "5000"}, {"A": "true"}, {"A": 1}, {"CodeContent": '{"name": "app"}'}], []),
    ],
)
def test_encodings_per_tier(tmp_path, name, args, expected):
    path = tmp_path / name
    path.write_bytes(b"".join(line(rec(i, tool_calls=[{"name": "t", "args": a}])) + b"\n" for i, a in enumerate(args)))
    findings = read(path)[1]
    assert [(f.line, f.kind, f.message[: len(m)]) for f, (_, _, m) in zip(findings, expected)] == expected
    assert len(findings) == len(expected)


def test_stream_findings_late_window_backward_time_and_tier_truncation(tmp_path):
    path = tmp_path / "transcript_full.jsonl"
    lines = [
        rec(472, created_at="2026-06-21T13:32:14Z"),
        rec(473, created_at="2026-06-21T13:32:10Z"),  # 4 seconds back
        rec(474, created_at="2026-06-21T13:32:10+01:00"),  # an hour back, in another offset
        rec(475, created_at="2026-06-21T13:32:11Z", truncated_fields=["content"]),
    ]
    path.write_bytes(b"".join(line(r) + b"\n" for r in lines))
    assert [(f.line, f.kind, f.message) for f in read(path)[1]] == [
        (1, "late-window", "full tier starts at step 472"),
        (2, "backward-time", "created_at 2026-06-21T13:32:10Z is before 2026-06-21T13:32:14Z of the line before"),
        (3, "backward-time", "created_at 2026-06-21T13:32:10+01:00 is before 2026-06-21T13:32:10Z of the line before"),
        (4, "truncated-full", "truncated_fields content in the full tier"),
    ]


def test_a_record_without_status_is_read():
    data = b'{"step_index":0,"source":"MODEL","type":"GENERIC","created_at":"2026-06-21T13:32:14Z"}\n'
    items = list(iter_bytes(data, "transcript.jsonl"))
    records, findings = split(items)
    assert records[0].status is None and [f.kind for f in findings] == ["no-status"]


def test_long_line_is_skipped_without_stopping(tmp_path):
    path = tmp_path / "t.jsonl"
    long = b'{"content":"' + b"x" * 10_000 + b'"}'
    path.write_bytes(line(rec(0)) + b"\n" + long + b"\n" + line(rec(1)) + b"\n" + long)
    records, findings = read(path, max_line_bytes=200)
    assert [r.line for r in records] == [1, 3]
    assert kinds(findings) == [(2, "line-too-long"), (4, "line-too-long"), (4, "unterminated-line")]
    assert findings[0].message == "longer than 200 bytes; skipped"
    # a line of exactly the cap is read
    exact = line(rec(2, content="y" * 10))
    path.write_bytes(exact + b"\n")
    assert [r.line for r in read(path, max_line_bytes=len(exact))[0]] == [1]
    assert kinds(read(path, max_line_bytes=len(exact) - 1)[1]) == [(1, "line-too-long")]


def test_unreadable_files_are_findings(tmp_path):
    good = tmp_path / "good.jsonl"
    good.write_bytes(line(rec(0)) + b"\n")
    link = tmp_path / "link.jsonl"
    link.symlink_to(good)
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    items = list(iter_transcript([tmp_path / "missing.jsonl", link, tmp_path, fifo, good]))
    records, findings = split(items)
    assert [(Path(f.file).name, f.line, f.kind, f.message) for f in findings] == [
        ("missing.jsonl", 0, "unreadable", "cannot read: No such file or directory"),
        ("link.jsonl", 0, "unreadable", "cannot read: is a symbolic link; not followed"),
        (tmp_path.name, 0, "unreadable", "cannot read: not a regular file"),
        ("fifo.jsonl", 0, "unreadable", "cannot read: not a regular file"),
    ]
    assert [r.file for r in records] == [str(good)]


def _logs(tmp_path):
    logs = tmp_path / ".system_generated" / "logs"
    (logs / "chunks" / "transcript").mkdir(parents=True)
    return logs, logs / "chunks" / "transcript"


def test_chunks_are_one_stream_in_number_order(tmp_path):
    """A record crossing a part boundary is one record, reported where it starts; parts are
    ordered by number, whatever their names' widths."""
    logs, chunks = _logs(tmp_path)
    data = b"".join(line(rec(i, content="x" * 40)) + b"\n" for i in range(4))  # 176 bytes each
    cut = [0, 50, 200, 201, len(data)]  # mid-line, mid-line, one byte, the rest
    names = ["1.jsonl", "00000002.jsonl", "3.jsonl", "10.jsonl"]
    for name, a, b in zip(names, cut, cut[1:]):
        (chunks / name).write_bytes(data[a:b])
    (chunks / "notes.txt").write_text("x")
    files = locate(tmp_path)
    assert [p.name for p in files.compact] == names
    assert files.full == () and files.foreign == (chunks / "notes.txt",)
    assert files.tier("compact").flat is None and files.tier("compact").agreement() is None
    brain = read_brain(tmp_path)
    assert [(Path(r.file).name, r.line, r.step_index) for r in brain.compact] == [
        ("1.jsonl", 1, 0),
        ("00000002.jsonl", 2, 1),  # line 1 of that part is the rest of record 0
        ("10.jsonl", 2, 2),
        ("10.jsonl", 3, 3),
    ]
    assert [r.step_index for r in brain.compact] == [0, 1, 2, 3]
    assert [(Path(f.file).name, f.line, f.kind) for f in brain.findings] == [("notes.txt", 0, "foreign-file")]
    assert brain.pairing is None
    assert locate(tmp_path / "absent") == type(files)((), (), ())


def test_a_record_crossing_a_boundary_is_reported_where_it_starts(tmp_path):
    first, second = line(rec(0)) + b"\n", line(rec(1, content="y" * 30)) + b"\n"
    a, b = tmp_path / "00000000.jsonl", tmp_path / "00000001.jsonl"
    a.write_bytes(first + second[:20])
    b.write_bytes(second[20:] + line(rec(2)) + b"\n" + b"torn")
    records, findings = split(list(iter_transcript([a, b])))
    assert [(Path(r.file).name, r.line, r.step_index) for r in records] == [
        ("00000000.jsonl", 1, 0),
        ("00000000.jsonl", 2, 1),
        ("00000001.jsonl", 2, 2),
    ]
    assert [(Path(f.file).name, f.line, f.kind) for f in findings] == [
        ("00000001.jsonl", 3, "bad-json"),
        ("00000001.jsonl", 3, "unterminated-line"),
    ]
    # an unreadable part ends the line it interrupts
    b.unlink()
    c = tmp_path / "00000002.jsonl"
    c.write_bytes(line(rec(3)) + b"\n")
    records, findings = split(list(iter_transcript([a, b, c])))
    assert [r.step_index for r in records] == [0, 3]
    assert [(Path(f.file).name, f.line, f.kind) for f in findings] == [
        ("00000000.jsonl", 2, "bad-json"),
        ("00000000.jsonl", 2, "unterminated-line"),
        ("00000001.jsonl", 0, "unreadable"),
        ("00000002.jsonl", 1, "step-gap"),
    ]


@pytest.mark.parametrize(
    ("flat", "parts", "state", "read"),
    [
        (b"AB\nCD\n", [b"AB\nC", b"D\n"], "identical", "flat"),
        (b"AB\nCD\n", [b"AB\n"], "chunks-prefix", "flat"),
        (b"AB\n", [b"AB\nC", b"D\n"], "flat-prefix", "chunks"),
        (b"AB\nCD\n", [b"AB\nCE\n"], "differ", "flat"),
    ],
)
def test_flat_file_and_chunks_agreement(tmp_path, flat, parts, state, read):
    logs, chunks = _logs(tmp_path)
    (logs / "transcript.jsonl").write_bytes(flat)
    for n, part in enumerate(parts):
        (chunks / f"{n:08d}.jsonl").write_bytes(part)
    files = locate(tmp_path)
    tier = files.tier("compact")
    assert tier.agreement() == state
    assert files.compact == ((logs / "transcript.jsonl",) if read == "flat" else tier.chunks)
    brain = read_brain(tmp_path)
    assert brain.agreement == {"compact": state}
    differ = [f for f in brain.findings if f.kind == "chunks-differ"]
    assert [(f.file, f.line) for f in differ] == ([] if state == "identical" else [(str(logs / "transcript.jsonl"), 0)])


def test_public_fixtures():
    records, findings = read(DATA / "codeburn_fixture-current-cli_transcript.jsonl")
    assert findings == []
    assert [(r.step_index, r.source, r.type, r.status) for r in records] == [
        (0, "USER_EXPLICIT", "USER_INPUT", "DONE"),
        (1, "MODEL", "PLANNER_RESPONSE", "DONE"),
    ]
    assert records[0].info.user_request == "sanitized fixture prompt"
    assert records[1].thinking == "sanitized fixture reasoning"
    # deja-vu's fixture has no step_index/type/status: reported as missing-key, records still read
    records, findings = read(DATA / "deja_registry-antigravity_transcript.jsonl")
    assert [(f.line, f.kind, f.message) for f in findings] == [
        (1, "missing-key", "missing step_index, type"),
        (1, "no-status", "no status: UNSPECIFIED (proto3 JSON drops zero values)"),
        (2, "missing-key", "missing step_index, type"),
        (2, "no-status", "no status: UNSPECIFIED (proto3 JSON drops zero values)"),
    ]
    assert [(r.source, r.created_at) for r in records] == [
        ("USER_EXPLICIT", "2026-07-17T09:00:00Z"),
        ("MODEL", "2026-07-17T09:00:01Z"),
    ]
    info = records[0].info
    assert info.user_request == "inspect the antigravity transcript"
    assert info.additional_metadata == ('{"cwd":"/workspace/registry-demo"}',)


def test_summary_counts(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        b"\n".join(
            [
                line(rec(3, source="USER_EXPLICIT", type="USER_INPUT")),
                line(rec(4, tool_calls=[{"name": "view_file", "args": {}}, {"name": "run_command", "args": {}}])),
                line(rec(6, type="RUN_COMMAND", status="RUNNING")),
                b"torn",
            ]
        )
        + b"\n"
    )
    s = summarize(iter_transcript(path))
    assert s.records == 3
    assert s.types == {"USER_INPUT": 1, "PLANNER_RESPONSE": 1, "RUN_COMMAND": 1}
    assert s.statuses == {"DONE": 2, "RUNNING": 1}
    assert s.sources == {"USER_EXPLICIT": 1, "MODEL": 2}
    assert s.tools == {"view_file": 1, "run_command": 1}
    assert s.keys["tool_calls"] == 1 and s.keys["step_index"] == 3
    assert s.findings == {"late-window": 1, "step-gap": 1, "bad-json": 1}
    assert (s.first_step, s.last_step) == (3, 6)


# ----------------------------------------------------------------------------- compact vs full


def records_of(tmp_path, name, dicts):
    path = tmp_path / name
    path.write_bytes(b"".join(line(d) + b"\n" for d in dicts))
    records, findings = read(path)
    assert findings == [] or all(f.kind in ("step-gap", "repeated-step", "inverted-step", "late-window") for f in findings)
    return records


def test_pairing_tolerates_documented_truncation(tmp_path):
    long = "head of the output\n" + "middle line\n" * 20 + "tail of the output"
    full = [rec(0, content=long, tool_calls=[{"name": "write_to_file", "args": {"CodeContent": json.dumps("x" * 300)}}])]
    compact = [
        rec(
            0,
            content="head of the output\n<truncated 20 lines>\ntail of the output",
            tool_calls=[{"name": "write_to_file", "args": {"CodeContent": '"xxxx<truncated 290 bytes>xxxx"'}}],
            truncated_fields=["content", "tool_calls"],
        )
    ]
    pairing = pair_records(records_of(tmp_path, "c", compact), records_of(tmp_path, "f", full))
    assert pairing.mode == "position" and len(pairing.pairs) == 1
    assert pairing.findings == ()


def test_pairing_reports_real_disagreements(tmp_path):
    full = [
        rec(0, content="abcdef"),
        rec(1, content="the full text", status="DONE"),
        rec(2, thinking="t"),
        rec(3, content="x", truncated_fields=["content"]),
    ]
    compact = [
        rec(0, content="ab<truncated 2 bytes>XX", truncated_fields=["content"]),
        rec(1, content="the full text", status="ERROR"),
        rec(2, thinking="t", error="boom"),
        rec(3, content="x"),
    ]
    c, f = records_of(tmp_path, "c", compact), records_of(tmp_path, "f", full)
    pairing = pair_records(c, f)
    cf, ff = tmp_path / "c", tmp_path / "f"
    assert [(Path(x.file).name, x.line, x.kind, x.message) for x in pairing.findings] == [
        ("c", 1, "truncation-mismatch", f"content does not match {ff}:1"),
        ("c", 2, "mismatch", f"status differs from {ff}:2"),
        ("c", 3, "mismatch", f"error present only in compact ({ff}:3)"),
    ]
    assert [(a.file, b.file) for a, b in pairing.pairs] == [(str(cf), str(ff))] * 4


def test_pairing_of_a_late_window_with_reused_indexes(tmp_path):
    full = [rec(0), rec(1), rec(2, content="old"), rec(3), rec(2, content="new"), rec(4)]
    # the compact window is the end of the full transcript: paired by position despite the re-use
    compact = [rec(3), rec(2, content="new"), rec(4)]
    pairing = pair_records(records_of(tmp_path, "c", compact), records_of(tmp_path, "f", full))
    assert pairing.mode == "position"
    assert [(a.line, b.line) for a, b in pairing.pairs] == [(1, 4), (2, 5), (3, 6)]
    assert [(x.line, x.kind) for x in pairing.findings] == [(1, "late-start")]
    assert pairing.findings[0].message == "compact starts at step 3, full at step 0"


def test_pairing_by_step_index_when_positions_disagree(tmp_path):
    full = [rec(0), rec(1), rec(2), rec(3, content="a"), rec(3, content="b"), rec(4), rec(6), rec(7)]
    compact = [rec(1), rec(3, content="b"), rec(5), rec(6), rec(1)]
    c, f = records_of(tmp_path, "c", compact), records_of(tmp_path, "f", full)
    pairing = pair_records(c, f)
    assert pairing.mode == "step_index"
    # the later record of a repeated index supersedes the earlier one on both sides
    assert [(a.line, b.line) for a, b in pairing.pairs] == [(2, 5), (4, 7), (5, 2)]
    assert [(Path(x.file).name, x.line, x.kind) for x in pairing.findings] == [
        ("c", 1, "late-start"),
        ("c", 3, "unpaired"),
        ("f", 3, "unpaired"),
        ("f", 6, "unpaired"),
    ]


@pytest.mark.parametrize(
    ("compact", "full", "fits"),
    [
        ("same", "same", True),
        ("same", "other", False),
        ("ab<truncated 3 bytes>yz", "abcdeyz", True),
        ("ab<truncated 3 bytes>yz", "abcdeyzQ", False),  # the tail must end the full text
        ("ab<truncated 3 bytes>yz", "Qabcdeyz", False),  # the head must start it
        ("a<truncated 1 lines>m<truncated 9 bytes>z", "a..m..z", True),
        ("a<truncated 1 lines>m<truncated 9 bytes>z", "a..z..m", False),  # pieces out of order
        ("abc<truncated 1 bytes>bcd", "abcd", False),  # head and tail may not overlap
        ("<truncated 4 bytes>", "anything", True),
        ("x<truncated 4 bytes>", "", False),
    ],
)
def test_text_fits(compact, full, fits):
    assert text_fits(compact, full) is fits


# ----------------------------------------------------------------------------- content metadata


def test_user_input_metadata():
    text = (
        "Comments on artifact URI: file:///home/u/.gemini/antigravity/brain/x/implementation_plan.md\n"
        "Looks fine.\nThe user has approved this document.\n"
        "<USER_SETTINGS_CHANGE>The user changed setting `Model Selection` from Gemini 3.1 Pro to "
        "Gemini 3 Flash. No need to comment on this change.</USER_SETTINGS_CHANGE>\n"
        "<USER_REQUEST>\nfix the build\n<ADDITIONAL_METADATA>The current local time is: "
        "2026-05-24T17:24:21+02:00.</ADDITIONAL_METADATA>\n</USER_REQUEST>"
    )
    info = parse_content(text)
    assert info.user_request == "fix the build"
    assert info.additional_metadata == ("The current local time is: 2026-05-24T17:24:21+02:00.",)
    assert info.local_time == "2026-05-24T17:24:21+02:00"
    assert info.setting_changes == (SettingChange("Model Selection", "Gemini 3.1 Pro", "Gemini 3 Flash"),)
    [comment] = info.artifact_comments
    assert comment.uri == "file:///home/u/.gemini/antigravity/brain/x/implementation_plan.md"
    assert comment.approved and comment.text.startswith("Looks fine.")
    assert parse_content("<USER_REQUEST></USER_REQUEST>").user_request == ""
    assert parse_content("Comments on artifact URI: file:///a.md\nnot yet").artifact_comments[0].approved is False


def test_run_command_metadata():
    info = parse_content(
        "Created At: 2026-08-11T19:09:26+09:00\nCompleted At: 2026-08-11T19:09:30+09:00\n"
        "The command exited with code 2.\nOutput:\nFAIL\n"
    )
    assert (info.created_at, info.completed_at, info.exit_code) == ("2026-08-11T19:09:26+09:00", "2026-08-11T19:09:30+09:00", 2)
    assert parse_content("Created At: x\n\tThe command exited with code 0.\n\tOutput:\n").exit_code == 0
    assert parse_content("Output says The command exited with code 3.").exit_code is None
    background = parse_content(
        "Created At: 2026-05-24T17:00:00+02:00\n"
        "Tool is running as a background task with task id: 3f2b/task-7\nTask Description: npm run dev\n"
        "Task logs are available at: file:///home/u/.gemini/antigravity/brain/3f2b/.system_generated/tasks/task-7.log."
    )
    assert (background.task_id, background.task_log_uri, background.exit_code, background.completed_at) == (
        "3f2b/task-7",
        "file:///home/u/.gemini/antigravity/brain/3f2b/.system_generated/tasks/task-7.log",
        None,
        None,
    )


def test_code_action_and_view_file_metadata():
    info = parse_content(
        "Created At: t\nThe following changes were made by the replace_file_content tool to: /src/main.go.\n"
        "[diff_block_start]\n@@ -1 +1 @@\n-old\n+new\n[diff_block_end]\n"
        "The following changes were made by the write_to_file tool to: /src/a b.txt\n"
        "Created file file:///src/new.py."
    )
    assert info.file_changes == (
        FileChange("/src/main.go", "replace_file_content", False),
        FileChange("/src/a b.txt", "write_to_file", False),
        FileChange("file:///src/new.py", None, True),
    )
    assert info.diff_blocks == ("@@ -1 +1 @@\n-old\n+new",)
    view = parse_content("File Path: `file:///src/main.go`\nTotal Lines: 120\n1: package main\n")
    assert (view.file_path, view.total_lines) == ("file:///src/main.go", 120)
    empty = parse_content("")
    assert (empty.user_request, empty.exit_code, empty.file_changes, empty.local_time) == (None, None, (), None)


# ----------------------------------------------------------------------------- properties


_KEYS = ["step_index", "source", "type", "status", "created_at", "content", "tool_calls", "truncated_fields", "x"]
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(_KEYS + ["name", "args"]), inner, max_size=4),
    max_leaves=8,
)
_line = st.one_of(
    st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")),
    st.dictionaries(st.sampled_from(_KEYS), _json, max_size=6).map(lambda d: json.dumps(d).encode()),
    st.builds(lambda s, t: line(rec(s, type=t)), st.integers(0, 6), st.sampled_from(["USER_INPUT", "RUN_COMMAND", "??"])),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_line, max_size=12), st.lists(_line, max_size=12), st.booleans())
def test_arbitrary_lines_never_raise_and_each_line_is_accounted_for(tmp_path_factory, compact, full, final_newline):
    tmp = tmp_path_factory.mktemp("p")
    streams = []
    for name, lines in (("transcript.jsonl", compact), ("transcript_full.jsonl", full)):
        path = tmp / name
        data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
        path.write_bytes(data)
        records, findings = read(path, max_line_bytes=30)
        count = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
        dropped = [f.line for f in findings if f.kind in DROPPED]
        assert sorted(dropped + [r.line for r in records]) == list(range(1, count + 1))
        assert {f.kind for f in findings} <= KINDS.keys()
        for r in records:
            assert r.info is not None
        streams.append(records)
    pairing = pair_records(*streams)
    assert {f.kind for f in pairing.findings} <= KINDS.keys()


_TOKENS = list("<>/`:.\n\t a") + [
    "<USER_REQUEST>",
    "</USER_REQUEST>",
    "<ADDITIONAL_METADATA>",
    "</ADDITIONAL_METADATA>",
    "Created At: ",
    "The command exited with code 1.",
    "[diff_block_start]",
    "[diff_block_end]",
    "Total Lines: 9",
    "<truncated 3 bytes>",
    "Comments on artifact URI: ",
    "Created file ",
    "changed setting `M` from ",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=30).map("".join), st.text(max_size=20))
def test_parse_content_and_text_fits_never_raise(text, other):
    parse_content(text)
    assert text_fits(text, text)  # a text always fits itself, markers and all
    assert text_fits(text, other) in (True, False)


# ----------------------------------------------------------------------------- the writer


def ts(n: int) -> str:
    return f"2026-09-01T09:{n // 60:02d}:{n % 60:02d}.{123456789 + n:09d}Z"


def step(kind, n, *, status="DONE", source="MODEL", **payload):
    doc = {
        "type": "CORTEX_STEP_TYPE_" + kind,
        "status": "CORTEX_STEP_STATUS_" + status,
        "metadata": {"createdAt": ts(n), "source": "CORTEX_STEP_SOURCE_" + source},
    }
    doc.update(payload)
    return doc


def sample_steps() -> list[dict]:
    call = {
        "id": "c1",
        "name": "run_command",
        "argumentsJson": json.dumps({"CommandLine": "go test ./...", "Cwd": "/w", "WaitMsBeforeAsync": 5000}),
    }
    edit = {"name": "replace_file_content", "argumentsJson": json.dumps({"TargetFile": "/w/main.go"})}
    long_file = "\n".join(f"line {i}" for i in range(400))
    return [
        step("USER_INPUT", 0, source="USER_EXPLICIT", userInput={"userResponse": "run the tests"}),
        step("PLANNER_RESPONSE", 1, plannerResponse={"response": "Running.", "thinking": "tests first", "toolCalls": [call]}),
        step(
            "RUN_COMMAND",
            2,
            runCommand={"commandLine": "go test ./...", "cwd": "/w", "exitCode": 1, "combinedOutput": {"full": "FAIL x\n"}},
        ),
        step(
            "PLANNER_RESPONSE",
            3,
            plannerResponse={
                "response": "",
                "toolCalls": [{"name": "view_file", "argumentsJson": json.dumps({"AbsolutePath": "/w/main.go"})}],
            },
        ),
        step("VIEW_FILE", 4, viewFile={"absolutePathUri": "file:///w/main.go", "content": long_file}),
        step("PLANNER_RESPONSE", 5, plannerResponse={"response": "Fixing.", "toolCalls": [edit]}),
        step(
            "CODE_ACTION",
            6,
            metadata={"createdAt": ts(6), "source": "CORTEX_STEP_SOURCE_MODEL", "toolCall": edit},
            codeAction={
                "actionResult": {
                    "edit": {
                        "absoluteUri": "file:///w/main.go",
                        "diff": {
                            "unifiedDiff": {
                                "lines": [
                                    {"text": "old", "type": "UNIFIED_DIFF_LINE_TYPE_DELETE"},
                                    {"text": "new", "type": "UNIFIED_DIFF_LINE_TYPE_INSERT"},
                                    {"text": "ctx"},
                                ]
                            }
                        },
                    }
                }
            },
        ),
        step("CODE_ACTION", 7, codeAction={"actionResult": {"edit": {"absoluteUri": "file:///w/new.go", "createFile": True}}}),
        step("EPHEMERAL_MESSAGE", 8, source="SYSTEM", ephemeralMessage={"content": "remember the plan"}),
        step("ERROR_MESSAGE", 9, status="ERROR", source="SYSTEM", errorMessage={"error": {"shortError": "quota exceeded"}}),
        step("PLANNER_RESPONSE", 10, plannerResponse={"response": "Again.", "toolCalls": [call]}),
        step("RUN_COMMAND", 11, status="RUNNING", runCommand={"commandLine": "go test ./...", "cwd": "/w"}),
        step("RUN_COMMAND", 12, runCommand={"commandLine": "go test ./...", "cwd": "/w", "combinedOutput": {"full": "ok\n"}}),
        step("CHECKPOINT", 13, source="SYSTEM", checkpoint={"userIntent": "fix the tests"}),
        step("CONVERSATION_HISTORY", 14, source="SYSTEM", conversationHistory={}),
        step("GENERIC", 15, generic={}),
        step("PLANNER_RESPONSE", 16, plannerResponse={"response": "Done."}),
    ]


def test_records_from_steps_mirror_the_sidecar():
    steps = sample_steps()
    records = records_from_steps(steps)
    assert [(r["step_index"], r["type"], r["status"], r["source"]) for r in records] == [
        (
            i,
            s["type"].removeprefix("CORTEX_STEP_TYPE_"),
            s["status"].removeprefix("CORTEX_STEP_STATUS_"),
            s["metadata"]["source"].removeprefix("CORTEX_STEP_SOURCE_"),
        )
        for i, s in enumerate(steps)
    ]
    assert [r["created_at"] for r in records][:2] == ["2026-09-01T09:00:00Z", "2026-09-01T09:00:01Z"]
    assert records[0]["content"] == (
        "<USER_REQUEST>\nrun the tests\n</USER_REQUEST>\n"
        "<ADDITIONAL_METADATA>\nThe current local time is: 2026-09-01T18:00:00+09:00.\n</ADDITIONAL_METADATA>"
    )
    assert records[1]["tool_calls"] == [
        {
            "name": "run_command",
            "args": {  # the full tier's form: native values
                "CommandLine": "go test ./...",
                "Cwd": "/w",
                "WaitMsBeforeAsync": 5000,
                "toolAction": "Run command",
                "toolSummary": "go test ./...",
            },
        }
    ]
    assert records[2] == {
        "step_index": 2,
        "source": "MODEL",
        "type": "RUN_COMMAND",
        "status": "DONE",
        "created_at": "2026-09-01T09:00:02Z",
        "content": "Created At: 2026-09-01T18:00:02+09:00\nThe command exited with code 1.\nOutput:\nFAIL x\n",
        "exit_code": 1,
    }
    assert "content" not in records[3] and records[3]["tool_calls"][0]["name"] == "view_file"
    assert records[6]["content"].endswith(
        "The following changes were made by the replace_file_content tool to: /w/main.go.\n"
        "[diff_block_start]\n-old\n+new\n ctx\n[diff_block_end]"
    )
    assert records[7]["content"].endswith("Created file file:///w/new.go")
    assert records[9] == {
        "step_index": 9,
        "source": "SYSTEM",
        "type": "ERROR_MESSAGE",
        "status": "ERROR",
        "created_at": "2026-09-01T09:00:09Z",
        "error": "quota exceeded",
    }
    assert records[12]["exit_code"] == 0  # proto3 JSON omits a zero exit code
    assert "content" not in records[14]


def test_written_brain_reads_back_cleanly(tmp_path):
    steps = sample_steps()
    brain_dir = tmp_path / "brain" / UUID
    info = write_brain(brain_dir, records_from_steps(steps), rng=random.Random(3))
    assert isinstance(info, BrainInfo) and info.compact_start == 0 and info.injected == {}
    brain = read_brain(brain_dir)
    assert brain.findings == ()
    for records in (brain.compact, brain.full):
        assert [(r.step_index, r.type, r.status) for r in records] == [
            (i, s["type"].removeprefix("CORTEX_STEP_TYPE_"), s["status"].removeprefix("CORTEX_STEP_STATUS_"))
            for i, s in enumerate(steps)
        ]
    assert brain.pairing.mode == "position" and len(brain.pairing.pairs) == len(steps)
    full = brain.full
    assert full[0].info.user_request == "run the tests"
    assert full[1].tool_calls[0].args["WaitMsBeforeAsync"] == Arg(5000, 5000, True)
    assert brain.compact[1].tool_calls[0].args["WaitMsBeforeAsync"] == Arg("5000", 5000, True)
    assert (full[2].exit_code, full[2].info.exit_code) == (1, 1)
    assert (full[4].info.file_path, full[4].info.total_lines) == ("file:///w/main.go", 400)
    running = full[11].info
    log = brain_dir / ".system_generated" / "tasks" / "task-1.log"
    logged = f"file:///home/agy/.gemini/antigravity-cli/brain/{UUID}/.system_generated/tasks/task-1.log"
    assert (running.task_id, running.task_log_uri) == (f"{UUID}/task-1", logged)  # never this machine's path
    assert log.read_text() == "$ go test ./...\n"
    # the VIEW_FILE body is long enough to be truncated in the compact transcript (line marker)
    assert brain.compact[4].truncated_fields == ("content",) and "<truncated 399 lines>" in brain.compact[4].content
    system = brain_dir / ".system_generated"
    assert (system / "steps" / "2" / "output.txt").read_text() == "FAIL x\n"
    messages = sorted(p.name for p in (system / "messages").iterdir())
    assert len(messages) == 3 and {"cursor.json", "read.json"} <= set(messages)
    meta = json.loads((brain_dir / "task.md.metadata.json").read_text())
    assert meta["artifactType"] == "ARTIFACT_TYPE_OTHER" and meta["updatedAt"].endswith("Z")
    assert set(info.files) == {p for p in brain_dir.rglob("*") if p.is_file()}
    assert all(p.stat().st_mode & 0o077 == 0 for p in info.files)


def test_written_anomalies_are_found_where_injected(tmp_path):
    steps = sample_steps() * 2
    brain_dir = tmp_path / UUID
    old = {"late-start", "repeated-step", "inverted-step", "torn-line", "running", "truncated"}
    info = write_brain(brain_dir, records_from_steps(steps), rng=random.Random(13), anomalies=old)
    assert info.injected == {
        "running": 21,
        "late-start": 11,
        "inverted-step": 35,
        "repeated-step": 19,
        "torn-line": 13,
        "truncated": 12,
    }
    assert info.compact_start == 10  # compact line n holds full line n + 10
    brain = read_brain(brain_dir)
    assert [(Path(f.file).name, f.line, f.kind) for f in brain.findings] == [
        ("transcript.jsonl", 1, "late-window"),
        ("transcript.jsonl", 18 - 10, "backward-time"),  # the second copy of the steps starts the clock again
        ("transcript.jsonl", 19 - 10, "repeated-step"),
        ("transcript.jsonl", 34 - 10, "step-gap"),
        ("transcript.jsonl", 35 - 10, "inverted-step"),
        ("transcript.jsonl", 35 - 10, "backward-time"),  # the swapped record is older too
        ("transcript_full.jsonl", 13, "bad-json"),
        ("transcript_full.jsonl", 14, "step-gap"),  # the step of the torn line is missing
        ("transcript_full.jsonl", 18, "backward-time"),
        ("transcript_full.jsonl", 19, "repeated-step"),
        ("transcript_full.jsonl", 34, "step-gap"),
        ("transcript_full.jsonl", 35, "inverted-step"),
        ("transcript_full.jsonl", 35, "backward-time"),
        ("transcript.jsonl", 1, "late-start"),
        ("transcript.jsonl", 13 - 10, "unpaired"),  # its full twin is the torn line
    ]
    assert brain.pairing.mode == "step_index"
    running = next(r for r in brain.full if r.line == 21)
    assert (running.type, running.status, running.exit_code) == ("RUN_COMMAND", "RUNNING", None)
    assert running.info.task_id == f"{UUID}/task-2"  # tasks are numbered in file order
    assert [r.line for r in brain.compact if r.truncated_fields][0] == 12 - 10


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.sets(st.sampled_from(sorted(ANOMALIES))))
def test_writer_anomalies_always_show_up(tmp_path_factory, seed, anomalies):
    brain_dir = tmp_path_factory.mktemp("b") / UUID
    info = write_brain(brain_dir, records_from_steps(sample_steps() * 2), rng=random.Random(seed), anomalies=anomalies)
    assert info.injected.keys() == anomalies
    brain = read_brain(brain_dir)
    got = {(Path(f.file).name, f.line, f.kind) for f in brain.findings}
    expected = {
        "torn-line": ("transcript_full.jsonl", "bad-json"),
        "inverted-step": ("transcript_full.jsonl", "inverted-step"),
        "repeated-step": ("transcript_full.jsonl", "repeated-step"),
    }
    for name, (file, kind) in expected.items():
        if name in anomalies:
            assert (file, info.injected[name], kind) in got
    if "truncated-arg" in anomalies:
        assert ("transcript.jsonl", info.injected["truncated-arg"], "truncated-arg") in got
    if "backward-time" in anomalies:
        assert ("transcript_full.jsonl", info.injected["backward-time"], "backward-time") in got
    if "step-gap" in anomalies:
        assert ("transcript_full.jsonl", info.injected["step-gap"], "step-gap") in got
    allowed = {"bad-json", "step-gap", "inverted-step", "repeated-step", "late-start", "unpaired", "late-window"}
    allowed |= {"backward-time", "truncated-arg"}
    assert {kind for _, _, kind in got} <= allowed
    late_compact = "late-start" in anomalies and "late-full" not in anomalies  # else the full window is the later one
    assert late_compact == any(kind == "late-start" for _, _, kind in got)
    assert ("late-start" in anomalies) == (("transcript.jsonl", 1, "late-window") in got)
    assert ("late-full" in anomalies) == (("transcript_full.jsonl", 1, "late-window") in got)
    assert ("truncated" in anomalies) <= any(r.truncated_fields for r in brain.compact)
    assert len(brain.full) == len(info.steps) - ("torn-line" in anomalies)


def test_writer_rejects_impossible_requests(tmp_path):
    records = records_from_steps(sample_steps()[:1])
    with pytest.raises(ValueError, match="unknown anomalies: sideways"):
        write_brain(tmp_path / "a", records, rng=random.Random(0), anomalies={"sideways"})
    with pytest.raises(ValueError, match="no room for the 'running' anomaly in 1 records"):
        write_brain(tmp_path / "b", records, rng=random.Random(0), anomalies={"running"})
    with pytest.raises(ValueError, match="compact_window_start 5 outside 0..1"):
        write_brain(tmp_path / "c", records, rng=random.Random(0), compact_window_start=5)
    with pytest.raises(ValueError, match="'late-start' anomaly needs compact_window_start > 0"):
        write_brain(tmp_path / "d", records, rng=random.Random(0), anomalies={"late-start"}, compact_window_start=0)


def test_explicit_compact_window(tmp_path):
    steps = sample_steps()
    info = write_brain(tmp_path / UUID, records_from_steps(steps), rng=random.Random(0), compact_window_start=6)
    brain = read_brain(tmp_path / UUID)
    assert info.compact_start == 6 and info.injected == {}
    assert [r.step_index for r in brain.compact] == list(range(6, len(steps)))
    assert [(f.line, f.kind, f.message) for f in brain.findings] == [
        (1, "late-window", "compact tier starts at step 6"),
        (1, "late-start", "compact starts at step 6, full at step 0"),
    ]


def test_writer_is_deterministic(tmp_path):
    records = records_from_steps(sample_steps() * 2)  # room for every anomaly at once
    a = write_brain(tmp_path / "x" / UUID, records, rng=random.Random(5), anomalies=ANOMALIES)
    b = write_brain(tmp_path / "y" / UUID, records, rng=random.Random(5), anomalies=ANOMALIES)
    assert a.injected == b.injected
    for pa, pb in zip(a.files, b.files):
        assert pa.name == pb.name
        assert pa.read_bytes().replace(str(tmp_path / "x").encode(), b"") == pb.read_bytes().replace(
            str(tmp_path / "y").encode(), b""
        )


# ----------------------------------------------------------------------------- one timestamp rule (issue 20.7)

_STAMPS = [
    "2026-06-21T13:32:14Z",
    "2026-06-21T13:32:14+10:00",
    "2026-06-21T13:32:14.123456789-05:30",
    "2026-06-21T23:59:60Z",
    "2026-06-21 13:32:14Z",
    "2026-06-21T13:32:14",
    "2026-06-21T13:32:14+1000",
    "2026-06-21T13:32:14+24:00",
    "2026-13-21T13:32:14Z",
    "2026-06-21T13:32:14.Z",
    "2026-06-21T13:32:14.1234567890Z",
    "2026-06-21t13:32:14z",
]


@given(
    st.one_of(
        st.sampled_from(_STAMPS),
        st.from_regex(r"\A\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-6]\d:[0-6]\d(\.\d{0,10})?(Z|[+-][0-2]\d:?[0-6]\d)?\Z"),
    )
)
def test_the_reader_and_the_contract_agree_on_created_at(stamp):
    from audit.checks.contract import validate_bytes
    from audit.store.transcript.records import _record

    record, found = rec(1, created_at=stamp), []
    contract = [v.rule for v in validate_bytes(line(record), "transcript").errors]
    _record(record, "t.jsonl", 1, found)
    reader = [f.message for f in found if f.kind == "bad-value"]
    assert ("transcript/created_at" in contract) == bool(reader), (stamp, contract, reader)


def test_an_offset_timestamp_is_valid_for_inspect_and_verify_contract(tmp_path, capsys):
    from audit.cli import main

    path = tmp_path / "transcript.jsonl"
    path.write_bytes(line(rec(0, created_at="2026-06-21T23:32:14+10:00")) + b"\n")
    assert main(["verify-contract", "--kind", "transcript", str(path)]) == 0
    assert main(["inspect", str(path)]) == 0, capsys.readouterr().out


def test_the_schemas_timestamp_pattern_is_the_one_rule():
    from audit.clock import RFC3339
    from audit.resources import data_path

    schema = json.loads((data_path("schemas") / "transcript-record.schema.json").read_text())
    assert schema["properties"]["created_at"]["pattern"] == f"^{RFC3339}$(?!\\n)"
    sidecar = (data_path("schemas") / "sidecar.schema.json").read_text()
    assert json.dumps(f"^{RFC3339}$(?!\\n)") in sidecar


def test_a_later_full_window_leaves_the_earlier_compact_records_alone(tmp_path):
    compact = [rec(i) for i in range(5, 12)]
    full = [rec(i) for i in range(9, 12)]
    pairing = pair_records(records_of(tmp_path, "c", compact), records_of(tmp_path, "f", full))
    assert [(a.step_index, b.step_index) for a, b in pairing.pairs] == [(9, 9), (10, 10), (11, 11)]
    assert pairing.findings == ()


def test_written_tiers_chunks_and_overview(tmp_path):
    """Chunks split every chunk_bytes mid-line and concatenate to the flat files; a chunk-only
    brain reads the same; overview holds the prompts and answers of every step in the compact
    encoding; the late full window, the truncated argument and the backward time are found."""
    records = records_from_steps(sample_steps() * 3)
    anomalies = {"late-start", "late-full", "truncated-arg", "backward-time"}
    both = write_brain(
        tmp_path / "a" / UUID, records, rng=random.Random(2), anomalies=anomalies, chunks="both", chunk_bytes=1000, overview=True
    )
    only = write_brain(
        tmp_path / "b" / UUID, records, rng=random.Random(2), anomalies=anomalies, chunks="only", chunk_bytes=1000, overview=True
    )
    for tier, flat in (("compact", both.compact), ("full", both.full)):
        parts = both.chunks[tier]
        assert len(parts) > 2 and all(len(p.read_bytes()) == 1000 for p in parts[:-1])
        assert b"".join(p.read_bytes() for p in parts) == flat.read_bytes()
        assert any(not p.read_bytes().endswith(b"\n") for p in parts)  # boundaries fall mid-line
        assert [p.name for p in parts][:2] == ["00000000.jsonl", "00000001.jsonl"]
    assert not only.compact.exists() and not only.full.exists()
    a, b = read_brain(both.brain_dir), read_brain(only.brain_dir)
    assert a.agreement == {"compact": "identical", "full": "identical"} and b.agreement == {}
    assert [r.raw for r in a.compact] == [r.raw for r in b.compact] and [r.raw for r in a.full] == [r.raw for r in b.full]
    assert [r.raw for r in a.overview] == [r.raw for r in b.overview]
    assert sorted(f.kind for f in a.findings) == sorted(f.kind for f in b.findings)
    assert {f.kind for f in a.findings} == {"late-window", "truncated-arg", "backward-time", "step-gap"}
    for record in b.compact + b.full:  # reported in the part where the record starts, at its line there
        text = Path(record.file).read_bytes().split(b"\n")[record.line - 1]
        assert text and dumps(record.raw, indent=None).encode().startswith(text)
    assert {r.type for r in a.overview} == {"USER_INPUT", "PLANNER_RESPONSE"}
    assert a.overview[0].step_index == 0 and a.compact[0].step_index == both.compact_start > 0
    assert a.full[0].step_index == records[both.full_start]["step_index"] > a.compact[0].step_index
    assert all("thinking" not in r.raw and not r.truncated_fields and r.tier == "overview" for r in a.overview)
    assert all(isinstance(arg.raw, str) for r in a.overview for c in r.tool_calls for arg in c.args.values())
    assert any(not isinstance(arg.raw, str) for r in a.full for c in r.tool_calls for arg in c.args.values())
    assert a.pairing is not None and not [f for f in a.findings if f.kind in ("unpaired", "mismatch", "truncation-mismatch")]


def test_shared_reads_parse_a_stream_once_until_a_file_changes(tmp_path, monkeypatch):
    from audit.store import transcript
    from audit.store.transcript import reading

    path = tmp_path / "transcript.jsonl"
    path.write_bytes(line(rec(0)) + b"\n")
    opened: list[list[str]] = []
    real = reading._stream_lines
    monkeypatch.setattr(reading, "_stream_lines", lambda files, limit: opened.append(files) or real(files, limit))

    def read(**kwargs) -> list[tuple[str, int | None]]:
        return [(type(i).__name__, i.step_index if isinstance(i, Record) else None) for i in iter_transcript(path, **kwargs)]

    assert read() == read() == [("Record", 0)] and len(opened) == 2  # no memo outside the block
    with transcript.shared_reads():
        first = read()
        assert read() == first and read(tier="compact") == first and len(opened) == 3  # the same stream: parsed once
        assert read(tier="full") == first and len(opened) == 4  # another tier decodes differently: parsed again
        with open(path, "ab") as fh:
            fh.write(line(rec(1)) + b"\n")
        assert read() == [("Record", 0), ("Record", 1)] and len(opened) == 5  # the file changed: read again
    assert read() == [("Record", 0), ("Record", 1)] and len(opened) == 6 and reading._SHARED == []
