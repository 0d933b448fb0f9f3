"""verify-contract: strict JSON, files and directories, public fixtures, builder stores, the CLI
and its text / JSON / JUnit output."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from output_schema import envelope, matched

from audit.checks import contract, schemas
from audit.cli import main
from audit.errors import NothingToCheck
from audit.report import junit
from audit.resources import data_path
from audit.store import transcript
from audit.testing import StoreBuilder

DATA = Path(__file__).resolve().parents[1] / "data"  # vendored reference data (tests/data/README.md)
UUID = "0b0c5a3e-7d4f-4a5b-9c6d-1e2f3a4b5c6d"
PARENT = "5e6f7a8b-9c0d-4e1f-8a2b-3c4d5e6f7a8b"
STEP = b'{"type": "CORTEX_STEP_TYPE_USER_INPUT", "status": "CORTEX_STEP_STATUS_DONE", "metadata": {"createdAt": "2026-01-01T00:00:00Z"}}'
SIDECAR = b'{"cascadeId": "' + UUID.encode() + b'", "steps": [' + STEP + b"]}\n"
RECORD = (
    b'{"step_index": 0, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE", "created_at": "2026-01-01T00:00:00Z"}'
)


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def _brief(result: contract.FileResult) -> list[tuple]:
    return [(f.line, f.pointer, f.rule, f.level) for f in result.findings]


# ----------------------------------------------------------------------------- strict JSON


@pytest.mark.parametrize(
    ("data", "rule", "pointer"),
    [
        (b'{"cascadeId": "' + UUID.encode() + b'", "steps": [{"a": 1, "a": 2}]}', "strict-json/duplicate-key", "/steps/0"),
        (b'{"cascadeId": "' + UUID.encode() + b'", "n": NaN}', "strict-json/non-finite-number", ""),
        (b'{"cascadeId": "' + UUID.encode() + b'", "n": -Infinity}', "strict-json/non-finite-number", ""),
        (b'{"cascadeId": "' + UUID.encode() + b'", "s": "\xff"}', "strict-json/invalid-utf8", "/s"),
        (b"\xef\xbb\xbf" + SIDECAR, "strict-json/byte-order-mark", ""),
        (b"[" + SIDECAR + b"]", "strict-json/not-object", ""),
        (b"null", "strict-json/not-object", ""),
        (SIDECAR[:40], "strict-json/syntax", ""),
        (b"", "strict-json/syntax", ""),
        (b"[" * 100_000 + b"]" * 100_000, "strict-json/too-deep", ""),
    ],
)
def test_strict_json_violations(data, rule, pointer):
    result = contract.validate_bytes(data, file="f.json")
    assert _brief(result) == [(None, pointer, rule, "error")]
    assert not result.valid and result.records == 1 and result.error is None
    assert contract.STRICT_JSON_RULES.count(rule) == 1


def test_a_valid_sidecar_and_the_document_api():
    assert contract.validate_bytes(SIDECAR) == contract.FileResult("<input>", "sidecar", 1)
    result = contract.validate_document({"cascadeId": UUID, "agyReader": {"parentCascadeId": UUID}}, file="x")
    assert _brief(result) == [(None, "/agyReader/parentCascadeId", "sidecar/agyReader/parentNotSelf", "error")]
    manifest = contract.validate_document({"manifestVersion": 1}, "manifest")
    assert {f.rule for f in manifest.errors} == {"manifest/document"} and len(manifest.errors) == 10


def test_transcript_lines_are_records():
    data = (
        b"\n".join(
            [
                RECORD,
                b'{"step_index": 1, "step_index": 2}',  # duplicate key: a violation
                b'ing value", "type": "USER_INPUT"}',  # torn line: an advisory
                b"",  # empty line: an advisory of its own
                RECORD.replace(b'"DONE"', b'"done"'),  # free-form status, step 0 again: advisories
                RECORD.replace(b"0,", b'"0",', 1),  # a mistyped step_index
                b"[1]",
                RECORD.replace(b'"MODEL"', b'"\xc3"'),
            ]
        )
        + b"\n"
    )
    result = contract.validate_bytes(data, "transcript", file="t.jsonl")
    assert result.records == 8
    assert _brief(result) == [
        (2, "", "strict-json/duplicate-key", "error"),
        (3, "", "transcript/torn-line", "warning"),
        (4, "", "transcript/blank-line", "warning"),
        (5, "", "transcript/step-order", "warning"),
        (5, "/status", "transcript/status/family", "warning"),
        (6, "/step_index", "transcript/step_index", "error"),
        (7, "", "strict-json/not-object", "error"),
        (8, "", "strict-json/invalid-utf8", "error"),
    ]
    assert result.findings[1].message.startswith("not a JSON value (a torn line; consumers skip it)")


def test_a_transcript_without_final_newline_and_an_empty_one():
    assert contract.validate_bytes(RECORD, "transcript").records == 1
    assert contract.validate_bytes(RECORD + b"\n" + RECORD, "transcript").valid
    assert contract.validate_bytes(b"", "transcript") == contract.FileResult("<input>", "transcript", 0)


# ----------------------------------------------------------------------------- public fixtures


def test_agy_reader_fixture_is_valid():
    assert contract.validate_file(DATA / "agy-reader_invoke_subagent.trajectory.json").findings == ()


def test_agentsview_fixture_only_its_synthetic_statuses_are_excused():
    """Its five STATUS_COMPLETED values are advisories (the documented exception); its
    trajectoryId "traj-id" is not excused: a consumer may rely on a UUID there."""
    path = DATA / "agentsview_TestAntigravityCLITrajectoryParse.trajectory.json"
    result = contract.validate_file(path)
    assert [(f.pointer, f.rule) for f in result.errors] == [("/trajectoryId", "sidecar/trajectoryId")]
    assert [(f.pointer, f.rule) for f in result.warnings] == [
        (f"/steps/{i}/status", "sidecar/step/status/family") for i in range(5)
    ]
    doc = json.loads(path.read_bytes())
    del doc["trajectoryId"]
    fixed = contract.validate_document(doc)
    assert fixed.valid and len(fixed.warnings) == 5


@pytest.mark.parametrize(
    ("name", "advisories"),  # the example lines codeburn and deja-vu publish (tests/data/README.md)
    [("codeburn_fixture-current-cli_transcript.jsonl", 0), ("deja_registry-antigravity_transcript.jsonl", 6)],
)
def test_the_documents_example_lines_pass_the_contract(name, advisories, capsys):
    code, out, _ = _run(capsys, DATA / name, "--kind", "transcript")
    assert code == 0
    assert out.endswith(f"1 valid, 0 with errors, 0 unreadable; 0 error(s), {advisories} warning(s)\n")


def test_transcript_fixtures():
    assert contract.validate_file(DATA / "codeburn_fixture-current-cli_transcript.jsonl", "transcript").findings == ()
    deja = contract.validate_file(DATA / "deja_registry-antigravity_transcript.jsonl", "transcript")
    assert deja.valid
    # proto3 JSON drops zero values and deja-vu's lines have no step_index, type or status: each an advisory
    assert _brief(deja) == [
        (line, "", f"transcript/{key}/absent", "warning") for line in (1, 2) for key in ("status", "step_index", "type")
    ]


def test_null_content_and_thinking_are_no_text_and_a_bare_record_is_valid():
    bare = b'{"source": "MODEL", "content": null, "thinking": null}\n'
    result = contract.validate_bytes(bare, "transcript", file="t.jsonl")
    assert result.valid
    assert [f.rule for f in result.warnings] == [
        "transcript/created_at/absent",
        "transcript/status/absent",
        "transcript/step_index/absent",
        "transcript/type/absent",
    ]
    *findings, record = transcript.iter_bytes(bare, "t.jsonl")
    assert [f.kind for f in findings] == ["missing-key", "no-status"]  # null is no text, not a bad value
    assert isinstance(record, transcript.Record) and (record.content, record.thinking) == (None, None)
    assert [(f.rule, f.pointer) for f in contract.validate_bytes(b"{}\n", "transcript").errors] == [("transcript/record", "")]


def test_sample_home_sidecars_and_transcripts(tmp_path):
    from audit.testing.sample import build

    build(tmp_path)
    sidecars = contract.verify_paths([tmp_path])
    assert len(sidecars.files) >= 8 and all(r.findings == () for r in sidecars.files)
    transcripts = contract.verify_paths([tmp_path], "transcript")
    assert len(transcripts.files) >= 8 and not transcripts.invalid
    assert transcripts.counts("warning") == {
        "transcript/args/truncated": 1,
        "transcript/created_at/backward": 4,
        "transcript/step-order": 4,
        "transcript/torn-line": 1,
        "transcript/window/late": 3,
    }


def test_builder_stores_of_every_surface_are_valid(tmp_path):
    builder = StoreBuilder(tmp_path, seed=11)
    for surface in ("cli", "ide", "acp"):
        root = builder.root(surface)
        root.family(children=2, db=False)
        root.conversation(turns=4, db=False, reader_block={"parentCascadeId": PARENT, "futureKey": {"n": 1}})
    report = contract.verify_paths([tmp_path])
    assert len(report.files) == 12 and report.counts("error") == report.counts("warning") == {}
    assert not contract.verify_paths([tmp_path], "transcript").invalid


# ----------------------------------------------------------------------------- finding files


def test_directories_are_walked_for_the_kind(tmp_path):
    a = _write(tmp_path / "a" / f"{UUID}.trajectory.json", SIDECAR)
    _write(tmp_path / "a" / "b" / f"{PARENT}.trajectory.json", SIDECAR)
    _write(tmp_path / "a" / "notes.json", b"{}")
    (tmp_path / "a" / "dir.trajectory.json").mkdir()
    _write(tmp_path / "a" / "t.jsonl", RECORD)
    _write(tmp_path / "m" / "manifest.json", b"{}")
    os.symlink(a, tmp_path / "a" / "link.trajectory.json")
    os.symlink(tmp_path / "m", tmp_path / "a" / "linked-dir")
    files, missing, skipped = contract.find_files([tmp_path, a, tmp_path / "absent"], "sidecar")
    assert files == [a, tmp_path / "a" / "b" / f"{PARENT}.trajectory.json"]
    assert missing == [(tmp_path / "absent", "no such file or directory")]
    assert [(Path(s.path).name, s.reason) for s in skipped] == [
        ("linked-dir", "symbolic link to a directory, not followed"),
        ("link.trajectory.json", "symbolic link"),
    ]
    assert contract.find_files([tmp_path], "transcript")[0] == [tmp_path / "a" / "t.jsonl"]
    assert contract.find_files([tmp_path], "manifest")[0] == [tmp_path / "m" / "manifest.json"]
    explicit = contract.find_files([tmp_path / "a" / "link.trajectory.json", tmp_path / "a" / "notes.json"], "sidecar")[0]
    assert explicit == [tmp_path / "a" / "link.trajectory.json", tmp_path / "a" / "notes.json"]


def test_a_tree_named_twice_is_checked_once_however_it_is_named(tmp_path, monkeypatch):
    a = _write(tmp_path / "a" / f"{UUID}.trajectory.json", SIDECAR)
    b = _write(tmp_path / "a" / "b" / f"{PARENT}.trajectory.json", SIDECAR)
    os.symlink(tmp_path / "a", tmp_path / "alias")
    monkeypatch.chdir(tmp_path / "a")
    for other in (tmp_path / "alias", f"{tmp_path}/alias/", tmp_path / "a" / ".." / "a", ".", "b/.."):
        assert contract.find_files([tmp_path / "a", other], "sidecar")[0] == [a, b]
        assert len(contract.find_files([other, tmp_path / "a"], "sidecar")[0]) == 2
    assert contract.find_files([tmp_path / "a" / "b", b], "sidecar")[0] == [b]


def test_nothing_found_and_unreadable(tmp_path, monkeypatch):
    with pytest.raises(NothingToCheck, match=r"no \*.trajectory.json files found"):
        contract.verify_paths([tmp_path])
    os.mkfifo(tmp_path / "fifo.trajectory.json")
    report = contract.verify_paths([tmp_path / "fifo.trajectory.json"])
    assert [(r.error, r.findings) for r in report.files] == [("not a regular file", ())]
    big = _write(tmp_path / "big.trajectory.json", SIDECAR)
    monkeypatch.setattr(contract, "MAX_BYTES", 10)
    assert contract.validate_file(big).error == "larger than 10 bytes"


# ----------------------------------------------------------------------------- the command


def _run(capsys, *argv):
    code = main(["verify-contract", *map(str, argv)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_exit_codes(tmp_path, capsys):
    good = _write(tmp_path / "good" / f"{UUID}.trajectory.json", SIDECAR)
    bad = _write(tmp_path / "bad" / f"{UUID}.trajectory.json", SIDECAR.replace(b'"steps"', b'"steps": 1, "x"'))
    assert _run(capsys, good)[0] == 0
    assert _run(capsys, good, bad)[0] == 1
    assert _run(capsys, good, bad, tmp_path / "absent")[0] == 2
    code, out, err = _run(capsys, tmp_path / "good", "--kind", "manifest")
    assert (code, out, err) == (3, "", "agy-audit: no manifest.json files found\n")
    code, _, err = _run(capsys)
    assert code == 2 and "give at least one PATH" in err
    with pytest.raises(SystemExit) as info:
        main(["verify-contract", str(good), "--kind", "pb"])
    assert info.value.code == 2


def test_schema_option(capsys):
    code, out, _ = _run(capsys, "--schema")
    assert (code, out) == (0, "conformance-report\nconsumer-profile\nmanifest\noutput\nsidecar\ntranscript-record\n")
    for name in ("sidecar", "transcript-record.schema.json"):
        code, out, _ = _run(capsys, "--schema", name)
        assert code == 0 and out == (data_path("schemas") / (name.removesuffix(".schema.json") + ".schema.json")).read_text()
    code, out, err = _run(capsys, "--schema", "nope")
    assert (code, out) == (2, "") and "unknown schema 'nope'" in err


def test_text_output(tmp_path, capsys):
    bad = _write(
        tmp_path / f"{UUID}.trajectory.json",
        SIDECAR.replace(b"CORTEX_STEP_STATUS_DONE", b"STATUS_COMPLETED").replace(UUID.encode(), b"x"),
    )
    code, out, _ = _run(capsys, tmp_path, tmp_path / "absent.trajectory.json")
    assert code == 2
    assert out.splitlines() == [
        f"{tmp_path}/absent.trajectory.json: error: [unreadable] no such file or directory",
        f"{bad}: error: [sidecar/cascadeId] /cascadeId: 'x' is not a valid uuid",
        f"{bad}: warning: [sidecar/step/status/family] /steps/0/status: 'STATUS_COMPLETED' does not match ^CORTEX_STEP_STATUS_[A-Z0-9_]+$(?!\\n)",
        "",
        "RULE               ERRORS",
        "sidecar/cascadeId       1",
        "unreadable              1",
        "",
        "RULE                        WARNINGS",
        "sidecar/step/status/family         1",
        "",
        "sidecar: 2 file(s) checked, 0 valid, 1 with errors, 1 unreadable; 2 error(s), 1 warning(s)",
    ]
    assert all(matched(line) for line in out.splitlines()[:3])


def test_json_output(tmp_path, capsys):
    good = _write(tmp_path / "a.trajectory.json", SIDECAR)
    bad = _write(tmp_path / "b.trajectory.json", b'{"cascadeId": "' + UUID.encode() + b'", "x": 1, "x": 2}')
    code, out, _ = _run(capsys, tmp_path, "--format", "json")
    assert code == 1
    doc = envelope(out, "verify-contract")
    assert doc["findings"] == [
        {
            "rule": "strict-json/duplicate-key",
            "level": "error",
            "message": "duplicate key 'x'",
            "file": str(bad),
            "line": None,
            "column": None,
            "pointer": "",
            "details": {},
        }
    ]
    assert (doc["verdict"], doc["exitCode"]) == ("fail", 1)
    assert doc["result"] == {
        "kind": "sidecar",
        "summary": {"files": 2, "invalid": 1, "unreadable": 0, "errors": {"strict-json/duplicate-key": 1}, "warnings": {}},
        "files": [
            {"file": str(good), "valid": True, "records": 1, "error": None},
            {"file": str(bad), "valid": False, "records": 1, "error": None},
        ],
    }


def test_junit_output_parses(tmp_path, capsys):
    _write(tmp_path / "ok.jsonl", RECORD + b"\n")
    _write(tmp_path / "bad.jsonl", RECORD.replace(b'"DONE"', b'"done"') + b'\n{"a\\u0001": 1, "a\\u0001": 2}\nnot json\n')
    code, out, _ = _run(capsys, tmp_path, tmp_path / "gone.jsonl", "--kind", "transcript", "--format", "junit")
    assert code == 2
    root = ET.fromstring(out)
    assert (root.tag, root.get("tests"), root.get("failures"), root.get("errors")) == ("testsuites", "3", "1", "1")
    suite = root.find("testsuite")
    assert suite.get("name") == "verify-contract transcript"
    cases = {Path(c.get("name")).name: c for c in suite.findall("testcase")}
    assert set(cases) == {"ok.jsonl", "bad.jsonl", "gone.jsonl"}
    assert list(cases["ok.jsonl"]) == []
    failure = cases["bad.jsonl"].find("failure")
    assert failure.get("message") == "1 error(s): strict-json/duplicate-key"
    assert failure.text == f"{tmp_path}/bad.jsonl:2: error: [strict-json/duplicate-key] duplicate key 'a\\x01'"
    assert cases["bad.jsonl"].find("system-out").text.splitlines() == [
        f"{tmp_path}/bad.jsonl:1: warning: [transcript/status/family] /status: 'done' does not match ^[A-Z][A-Z0-9_]*$(?!\\n)",
        f"{tmp_path}/bad.jsonl:3: warning: [transcript/torn-line] not a JSON value (a torn line; consumers skip it): invalid JSON at line 1 column 1: Expecting value",
    ]
    assert cases["gone.jsonl"].find("error").get("message") == "unreadable: no such file or directory"


def test_junit_writer():
    xml = junit.render(
        [
            junit.Suite("one", [junit.Case("a", "c", time=0.25), junit.Case("b", "c", skipped="not applicable")]),
            junit.Suite("two", [junit.Case("x\x00y", "c", failure="bad\x1b", details="d1\nd2", output="o")]),
        ],
        name="suite",
    )
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="suite"')
    root = ET.fromstring(xml)
    assert [root.get(k) for k in ("tests", "failures", "errors", "skipped")] == ["3", "1", "0", "1"]
    one, two = root.findall("testsuite")
    assert (one.get("time"), one.get("skipped"), one.find("testcase").get("time")) == ("0.250", "1", "0.250")
    assert one.findall("testcase")[1].find("skipped").get("message") == "not applicable"
    case = two.find("testcase")
    assert (case.get("name"), case.find("failure").get("message"), case.find("failure").text, case.find("system-out").text) == (
        "x\ufffdy",
        "bad\ufffd",
        "d1\nd2",
        "o",
    )


def test_advisories_alone_pass(tmp_path, capsys):
    _write(tmp_path / "a.trajectory.json", SIDECAR.replace(b"CORTEX_STEP_STATUS_DONE", b"COMPLETED"))
    code, out, _ = _run(capsys, tmp_path)
    assert code == 0 and out.endswith("1 valid, 0 with errors, 0 unreadable; 0 error(s), 1 warning(s)\n")


def test_schemas_load_lazily_and_once():
    assert schemas.load("sidecar") is schemas.load("sidecar")
    # those two describe what commands print with --format json
    assert set(contract.KINDS.values()) == set(schemas.names()) - {"output", "conformance-report"}


# ----------------------------------------------------------------------------- the principle (contract levels)


def _rules_table() -> str:
    """The contract-rules table of verify-contract's reference page, from the schemas and the reader's rules."""
    out = ["| schema | level | evidence | rules |", "| --- | --- | --- | --- |"]

    def rows(name, rules):
        groups: dict = {}
        for rule, level, evidence in rules:
            groups.setdefault((level, evidence), []).append(rule)
        for (level, evidence), ids in sorted(groups.items(), key=lambda kv: (kv[0][0] != "error", kv[0][1])):
            out.append(f"| `{name}` | {level} | {evidence} | " + ", ".join(f"`{r}`" for r in ids) + " |")

    rows("strict JSON", [(r, "error", "documented") for r in contract.STRICT_JSON_RULES])
    for name in schemas.names():
        rules = [(r.rule, r.level, r.evidence) for r in schemas.catalog(name)]
        if name == "transcript-record":
            rules += [(r.rule, "warning", r.evidence) for r in contract.STREAM_RULES]
        rows(name, rules)
    return "\n".join(out)


def test_the_manual_lists_every_rule_with_its_level():
    page = Path(__file__).resolve().parents[2] / "docs" / "reference" / "verify-contract.md"
    assert _rules_table() in page.read_text(encoding="utf-8")


def test_reader_rules_are_advisories_and_cover_every_reported_kind():
    """Every reader finding kind the contract reports maps to a stream rule (an advisory) or a
    strict-JSON violation; none of them can be a violation from inferred evidence."""
    from audit.store import transcript as tr

    mapped = {k for r in contract.STREAM_RULES for k in r.kinds}
    assert mapped <= tr.KINDS.keys()
    for kind in tr.KINDS:
        found = contract.stream_finding(tr.Anomaly("f", 1, kind, "m"))
        if found is not None and found.level == "error":
            assert found.rule in contract.STRICT_JSON_RULES and kind in ("bad-utf8", "not-object"), kind
    assert {r.evidence for r in contract.STREAM_RULES} <= set(schemas.EVIDENCE)
