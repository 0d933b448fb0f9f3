"""Native completeness: verdicts on builder stores and sweep corpora, the projection, attestation."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import random
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.actions.attest import attest
from audit.actions.sweep import sweep
from audit.checks import completeness as C
from audit.checks import diff
from audit.checks.contract import validate_bytes
from audit.cli import main
from audit.errors import InputError, NothingToCheck
from audit.store.database import read_database
from audit.store.layout import resolve_roots
from audit.store.proto import cortex_pb2 as pb
from audit.store.reader_block import set_reader_key
from audit.store.trajectory import read_trajectory
from audit.strictjson import RawFloat, loads
from audit.testing import StoreBuilder
from audit.testing import trajectories as T
from audit.testing.builder import write_sidecar
from tests.output_schema import ci_result, envelope

MTIME = 1_700_000_000_123_456_789
CHECKED_AT = "2026-10-01T12:00:00Z"
PARENT = "0b5e1c2d-3f40-4a51-8b62-7c8d9e0f1a2b"


@pytest.fixture
def builder(tmp_path):
    return StoreBuilder(tmp_path / "home", seed=5)


@pytest.fixture
def cli(builder):
    return builder.root("cli")


def only(report: C.Report) -> C.Result:
    assert len(report.results) == 1
    return report.results[0]


def sidecar_doc(convo) -> dict:
    return json.loads(convo.paths["sidecar"].read_text())


def rewrite(convo, doc: dict) -> None:
    write_sidecar(convo.paths["sidecar"], doc, mtime_ns=MTIME)


def files(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {str(p): (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.rglob("*")) if p.is_file()}


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def step_index(convo, kind: str) -> int:
    return next(i for i, s in enumerate(convo.steps) if s["type"] == T.STEP + kind)


# ----------------------------------------------------------------------------- verdicts


def test_complete(cli):
    convo = cli.conversation(turns=2)
    before = files(cli.path)
    report = C.check([cli.path])
    r = only(report)
    assert (r.verdict, r.detail, r.id, r.source) == (C.COMPLETE, "", convo.id, convo.paths["db"])
    assert r.sidecar_steps == r.source_steps == len(convo.steps)
    assert r.evidence == C.Evidence(
        C.PROFILE,
        read_database(convo.paths["db"]).content_sha256(),
        C.projection_sha256(sidecar_doc(convo)),
        len(convo.steps),
    )
    assert r.evidence.projection_sha256 == C.projection_sha256(read_trajectory(convo.paths["db"]).trajectory)
    assert report.exit_code == 0
    [target] = C.targets([cli.path])
    brief = C.check_target(target, details=False)  # what ci asks: no evidence, so no contentSha256 of the rows
    assert (brief.verdict, brief.detail, brief.evidence) == (C.COMPLETE, "", None)
    assert files(cli.path) == before  # a check writes nothing


def test_one_step_missing(cli):
    convo = cli.conversation(turns=2, sidecar="stale", stale_missing_steps=1)
    r = only(C.check([cli.path]))
    n = len(convo.steps)
    assert r.verdict == C.INCOMPLETE
    assert r.detail == f"sidecar lacks 1 step(s) from step {n - 1} ({convo.steps[-1]['type']}); source has {n}"
    assert (r.sidecar_steps, r.source_steps, r.evidence) == (n - 1, n, None)
    assert r.differences == f"added steps.[{n - 1}]"
    [target] = C.targets([cli.path])
    brief = C.check_target(target, details=False)  # what ci asks: the verdict without the explanation
    assert (brief.verdict, brief.detail, brief.differences) == (r.verdict, r.detail, None)


def _edit_response(s):
    s["plannerResponse"]["response"] += "!"


def _edit_thinking(s):
    s["plannerResponse"]["thinking"] = "other thoughts"


def _edit_arguments(s):
    s["plannerResponse"]["toolCalls"][0]["argumentsJson"] = '{"CommandLine":"rm -rf /"}'


def _edit_tool_name(s):
    s["metadata"]["toolCall"]["name"] = "view_file"


def _edit_prompt(s):
    s["userInput"]["userResponse"] = "something else"


def _edit_item(s):
    s["userInput"]["items"][0]["text"] = "something else"


def _edit_command(s):
    s["runCommand"]["commandLine"] = "make"


def _edit_exit(s):
    s["runCommand"]["exitCode"] = 7


def _edit_status(s):
    s["status"] = "CORTEX_STEP_STATUS_RUNNING"


def _edit_created(s):
    s["metadata"]["createdAt"] = "2026-09-01T00:00:00.000000001Z"


def _edit_type(s):
    s["type"] = "CORTEX_STEP_TYPE_VIEW_FILE"


@pytest.mark.parametrize(
    ("kind", "edit", "field"),
    [
        ("PLANNER_RESPONSE", _edit_response, "plannerResponse.response"),
        ("PLANNER_RESPONSE", _edit_thinking, "plannerResponse.thinking"),
        ("PLANNER_RESPONSE", _edit_arguments, "plannerResponse.toolCalls[]"),
        ("RUN_COMMAND", _edit_tool_name, "metadata.toolCall"),
        ("USER_INPUT", _edit_prompt, "userInput.userResponse"),
        ("USER_INPUT", _edit_item, "userInput.items[].text"),
        ("RUN_COMMAND", _edit_command, "runCommand.commandLine"),
        ("RUN_COMMAND", _edit_exit, "runCommand.exitCode"),
        ("RUN_COMMAND", _edit_status, "status"),
        ("RUN_COMMAND", _edit_created, "metadata.createdAt"),
        ("RUN_COMMAND", _edit_type, "type"),
    ],
)
def test_changed_step(cli, kind, edit, field):
    """Equal step counts and timestamps never pass: every projected field is compared."""
    steps = [
        T.user_input(cli.clock, "Run the tests."),
        T.planner_response(
            cli.clock,
            cli.rng,
            "Running.",
            [call := T.tool_call(cli.rng, "run_command", {"CommandLine": "pytest"})],
            thinking="Tests first.",
        ),
        T.run_command(cli.clock, call, "pytest", "/w", 0, "1 passed\n"),
    ]
    convo = cli.conversation(steps=steps)
    doc = sidecar_doc(convo)
    i = step_index(convo, kind)
    edit(doc["steps"][i])
    rewrite(convo, doc)
    r = only(C.check([convo.paths["sidecar"]]))
    assert (r.verdict, r.detail) == (C.INCOMPLETE, f"step {i} ({T.STEP + kind}) differs in {field}")
    assert r.sidecar_steps == r.source_steps == 3


def test_sidecar_with_extra_steps_and_of_another_conversation(cli):
    convo = cli.conversation(turns=1)
    doc = sidecar_doc(convo)
    doc["steps"].append(T.system_message(cli.clock, "later"))
    rewrite(convo, doc)
    r = only(C.check([cli.path]))
    assert (r.verdict, r.detail) == (C.INCOMPLETE, f"sidecar has 1 step(s) the source lacks, from step {len(convo.steps)}")
    doc = sidecar_doc(convo)
    doc["steps"].pop()
    doc["cascadeId"] = PARENT
    rewrite(convo, doc)
    r = only(C.check([cli.path]))
    assert (r.verdict, r.detail) == (
        C.INCOMPLETE,
        f"cascadeId '{PARENT}' is neither the source's file id nor its internal cascade id",
    )


def test_internal_cascade_id_and_upper_case_sidecar_name(cli):
    internal = "c0ffee00-2222-4000-8000-00000000000c"
    convo = cli.conversation(turns=1, internal_cascade_id=internal)
    upper = convo.paths["sidecar"].with_name(convo.id.upper() + ".trajectory.json")
    convo.paths["sidecar"].rename(upper)
    r = only(C.check([cli.path]))
    assert (r.verdict, r.id, r.source, r.sidecar) == (C.COMPLETE, convo.id, convo.paths["db"], upper)


def test_proto3_defaults_and_timestamp_precision(cli):
    """Absent == default (exitCode 0, empty thinking); 3-digit fractions equal 9-digit ones."""
    call = T.tool_call(cli.rng, "run_command", {"CommandLine": "true"})
    steps = [T.planner_response(cli.clock, cli.rng, "Go.", [call]), T.run_command(cli.clock, call, "true", "/w", 0, "")]
    steps[1]["metadata"]["createdAt"] = "2026-09-01T10:00:00.120000000Z"
    convo = cli.conversation(steps=steps)
    doc = sidecar_doc(convo)
    del doc["steps"][1]["runCommand"]["exitCode"]
    doc["steps"][0]["plannerResponse"]["thinking"] = ""
    doc["steps"][0]["plannerResponse"]["modifiedResponse"] = None
    doc["steps"][1]["metadata"]["createdAt"] = "2026-09-01T10:00:00.120Z"
    rewrite(convo, doc)
    assert read_trajectory(convo.paths["db"]).trajectory["steps"][1]["runCommand"]["exitCode"] == 0
    assert only(C.check([cli.path])).verdict == C.COMPLETE


def test_empty_conversation(cli):
    """proto3 JSON omits an empty ``steps``: absent equals ``[]``; a non-array is unreadable."""
    convo = cli.conversation(steps=[])
    assert "steps" not in read_trajectory(convo.paths["db"]).trajectory
    r = only(C.check([cli.path]))
    assert (r.verdict, r.sidecar_steps, r.source_steps, r.evidence.steps) == (C.COMPLETE, 0, 0, 0)
    doc = sidecar_doc(convo)
    doc["steps"] = {}
    rewrite(convo, doc)
    r = only(C.check([cli.path]))
    assert (r.verdict, r.detail) == (C.UNREADABLE, f"{convo.paths['sidecar']}: steps is not an array")


def test_wal_only_steps(cli):
    stale = cli.conversation(turns=2, wal_steps=2, sidecar="stale", stale_missing_steps=2)
    fresh = cli.conversation(turns=2, wal_steps=2)
    for convo in (stale, fresh):
        assert convo.paths["db_wal"].stat().st_size > 0
    before = files(cli.path)
    results = {r.id: r for r in C.check([cli.path]).results}
    n = len(stale.steps)
    assert results[stale.id].verdict == C.INCOMPLETE
    assert results[stale.id].detail == f"sidecar lacks 2 step(s) from step {n - 2} ({stale.steps[-2]['type']}); source has {n}"
    r = results[fresh.id]
    assert (r.verdict, r.source_steps) == (C.COMPLETE, len(fresh.steps))
    assert r.evidence.content_sha256 == read_database(fresh.paths["db"]).content_sha256() == C.content_sha256(fresh.paths["db"])
    without_wal = read_database(fresh.paths["db"])
    without_wal.tables["steps"] = without_wal.tables["steps"][:-2]  # the rows the -wal holds enter the digest
    assert without_wal.content_sha256() != r.evidence.content_sha256
    assert files(cli.path) == before  # -wal and -shm untouched


def test_unknown_protobuf_field_is_unsupported(cli):
    cli.conversation(turns=1, unknown_fields=True)
    report = C.check([cli.path])
    r = only(report)
    assert r.verdict == C.UNSUPPORTED and r.evidence is None
    assert r.detail.startswith("the source holds content cortex.proto does not decode: steps.step_payload/CORTEX_STEP_TYPE_")
    assert "999:varint x" in r.detail and "also incomplete" not in r.detail
    assert report.exit_code == 1


def test_unknown_step_type_is_unsupported_even_when_stale(cli):
    steps = T.conversation_steps(cli.rng, cli.clock, 1)
    steps[0]["type"] = 250
    convo = cli.conversation(steps=steps, sidecar="stale", stale_missing_steps=1)
    r = only(C.check([cli.path]))
    n = len(convo.steps)
    assert r.verdict == C.UNSUPPORTED
    assert r.detail == (
        "the source holds content cortex.proto does not decode: steps.step_payload/250: 1:enum=250 x1; "
        f"also incomplete: sidecar lacks 1 step(s) from step {n - 1} ({convo.steps[-1]['type']}); source has {n}"
    )


def test_legacy_pb_and_no_source_are_unknown(cli):
    legacy = cli.conversation(turns=1, db=False, legacy_pb=True)
    report = C.check([cli.path])
    r = only(report)
    assert (r.verdict, r.source, r.source_steps) == (C.UNKNOWN, legacy.paths["legacy_pb"], None)
    assert r.detail == (
        "the source is a legacy encrypted .pb; only the user's own key reads it offline (set ANTIGRAVITY_KEY or give --key-file)"
    )
    assert report.exit_code == 3  # nothing could be compared
    legacy.paths["legacy_pb"].unlink()
    assert only(C.check([cli.path])).detail == "no native source (.db) for this sidecar"
    cli.conversation(turns=1)
    assert C.check([cli.path]).exit_code == 0  # unknown beside complete does not fail


def test_unreadable_sidecar_and_source(cli, tmp_path):
    bad_json = cli.conversation(turns=1)
    bad_json.paths["sidecar"].write_bytes(b'{"cascadeId": 1, "cascadeId": 2}')
    bad_db = cli.conversation(turns=1)
    bad_db.paths["db"].write_bytes(b"not a database at all")
    linked = cli.conversation(turns=1)
    linked_bytes = linked.paths["sidecar"].read_bytes()
    target = tmp_path / "elsewhere.json"
    linked.paths["sidecar"].rename(target)
    linked.paths["sidecar"].symlink_to(target)
    report = C.check([cli.path])
    results = {r.id: r for r in report.results}
    assert {r.verdict for r in report.results} == {C.UNREADABLE}
    assert results[bad_json.id].detail == f"{bad_json.paths['sidecar']}: duplicate key 'cascadeId' at /"
    assert results[bad_db.id].detail == f"{bad_db.paths['db']}: not an SQLite database (bad header)"
    assert results[linked.id].detail.endswith("not a regular file (symbolic link or special file); not read")
    assert report.exit_code == 2
    attest(report, checked_at=CHECKED_AT)
    assert {r.attestation for r in report.results} == {None}
    assert linked.paths["sidecar"].is_symlink() and target.read_bytes() == linked_bytes


def test_paths_nothing_found_and_missing(cli, tmp_path):
    with pytest.raises(NothingToCheck):
        C.check([cli.path])
    with pytest.raises(InputError, match="no such file or directory"):
        C.check([tmp_path / "absent"])
    convo = cli.conversation(turns=1)
    odd = cli.path / "conversations" / "notes.trajectory.json"
    odd.write_bytes(convo.paths["sidecar"].read_bytes())
    by_path = [C.check([p]) for p in (cli.path, cli.path / "conversations", convo.paths["sidecar"])]
    assert [[(r.sidecar, r.verdict) for r in rep.results] for rep in by_path] == [[(convo.paths["sidecar"], C.COMPLETE)]] * 3
    r = only(C.check([odd]))  # a non-UUID name is never used to look a source up
    assert (r.verdict, r.id, r.source) == (C.UNKNOWN, None, None)
    assert r.detail == "the file name is not <uuid>.trajectory.json; no source looked up"
    assert len(C.check([cli.path, convo.paths["sidecar"]]).results) == 1  # each sidecar once
    assert only(C.check_roots(resolve_roots(home=cli.builder.home, env={}))).verdict == C.COMPLETE


def test_sweep_corpus(builder, tmp_path):
    cli = builder.root("cli")
    convos = [cli.conversation(turns=2), cli.conversation(turns=1, wal_steps=1, sidecar="stale")]
    ide = builder.root("ide").conversation(turns=1)
    out = tmp_path / "sweep"
    result = sweep(resolve_roots(home=builder.home, env={}), out, source="native", env={})
    assert result.complete
    report = C.check([out])
    assert sorted((r.id, r.verdict, str(r.source.relative_to(out))) for r in report.results) == sorted(
        [(c.id, C.COMPLETE, f"native/cli/{c.id}.db") for c in convos] + [(ide.id, C.COMPLETE, f"native/ide/{ide.id}.db")]
    )
    sidecar = out / "corpus" / "cli" / f"{convos[0].id}.trajectory.json"
    assert [r.source for r in C.check([out / "corpus" / "cli"]).results] == [
        out / "native" / "cli" / f"{c.id}.db" for c in sorted(convos, key=lambda c: c.id)
    ]
    r = only(C.check([sidecar]))
    assert r.source == out / "native" / "cli" / f"{convos[0].id}.db"
    before = files(out)
    attest(report, checked_at=CHECKED_AT)
    assert {r.attestation for r in report.results} == {C.REFUSED}
    assert report.results[0].attestation_error.endswith("in a sweep corpus, whose manifest.json records its sha256; not written")
    assert files(out) == before and report.exit_code == 1
    (out / "native" / "cli" / f"{convos[0].id}.db").unlink()
    assert only(C.check([sidecar])).verdict == C.UNKNOWN


# ----------------------------------------------------------------------------- attestation


def _doctored(convo) -> bytes:
    """The sidecar with a 40-digit integer, 1.50, unknown fields, a parent stamp and odd layout."""
    doc = sidecar_doc(convo)
    doc["futureTopLevel"] = {"nested": [1, {"x": None}], "big": "BIG"}
    doc["steps"][0]["metadata"]["futureNumber"] = "FLOAT"
    doc["agyReader"] = {"parentCascadeId": PARENT, "futureReaderKey": [True]}
    text = json.dumps(doc, indent=3, ensure_ascii=False)
    return text.replace('"BIG"', "1234567890123456789012345678901234567890").replace('"FLOAT"', "1.50").encode()


def test_attestation_round_trip(cli):
    convo = cli.conversation(turns=2)
    path = convo.paths["sidecar"]
    original = _doctored(convo)
    path.write_bytes(original)
    os.utime(path, ns=(MTIME, MTIME))
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    r = only(report)
    assert (r.verdict, r.attestation, r.attestation_error) == (C.COMPLETE, C.WRITTEN, None)
    data = path.read_bytes()
    assert path.stat().st_mtime_ns == MTIME
    assert set_reader_key(data, C.READER_KEY, None) == original  # only our key was spliced in
    doc = loads(data, exact=True)
    assert doc["futureTopLevel"]["big"] == 1234567890123456789012345678901234567890
    assert doc["steps"][0]["metadata"]["futureNumber"] == RawFloat("1.50")
    assert doc["agyReader"] == {
        "parentCascadeId": PARENT,
        "futureReaderKey": [True],
        "agyAudit": {
            "completeness": {
                "profile": C.PROFILE,
                "contentSha256": r.evidence.content_sha256,
                "projectionSha256": r.evidence.projection_sha256,
                "steps": len(convo.steps),
                "checkedAt": CHECKED_AT,
            }
        },
    }
    assert validate_bytes(data).findings == ()  # schemas/sidecar.schema.json agyReader.agyAudit.completeness
    # Re-check with unchanged source and sidecar: a no-op, the file is not even rewritten.
    inode = path.stat().st_ino
    again = C.check([cli.path])
    attest(again, checked_at="2027-01-01T00:00:00Z")
    assert (only(again).verdict, only(again).attestation) == (C.COMPLETE, C.KEPT)
    assert (path.read_bytes(), path.stat().st_ino, path.stat().st_mtime_ns) == (data, inode, MTIME)


def test_attestation_follows_the_evidence(cli):
    convo = cli.conversation(turns=1)
    path = convo.paths["sidecar"]
    os.utime(path, ns=(MTIME, MTIME))
    attest(C.check([cli.path]), checked_at=CHECKED_AT)
    attested = path.read_bytes()
    # An attestation of other evidence (another source state) is replaced in place.
    block = loads(attested)["agyReader"][C.READER_KEY][C.ATTESTATION_KEY]
    other = {C.ATTESTATION_KEY: {**block, "contentSha256": "0" * 64}}
    path.write_bytes(set_reader_key(attested, C.READER_KEY, json.dumps(other, separators=(",", ":"))))
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    assert only(report).attestation == C.WRITTEN
    assert path.read_bytes() == attested
    # The sidecar no longer matches: the attestation is removed, and never written back.
    prompt = json.dumps(convo.steps[0]["userInput"]["userResponse"]).encode()
    edited = attested.replace(prompt, b'"edited"', 1)
    path.write_bytes(edited)
    os.utime(path, ns=(MTIME, MTIME))
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    assert (only(report).verdict, only(report).attestation) == (C.INCOMPLETE, C.REMOVED)
    assert path.read_bytes() == set_reader_key(edited, C.READER_KEY, None) and path.stat().st_mtime_ns == MTIME
    assert b"completeness" not in path.read_bytes()
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    assert only(report).attestation is None and b"completeness" not in path.read_bytes()


def test_attestation_refused_when_the_sidecar_changed(cli):
    convo = cli.conversation(turns=1)
    path = convo.paths["sidecar"]
    report = C.check([cli.path])
    changed = path.read_bytes().replace(b"\n}", b"\n }")
    path.write_bytes(changed)
    attest(report, checked_at=CHECKED_AT)
    r = only(report)
    assert (r.attestation, r.attestation_error) == (C.REFUSED, f"{path}: changed during the run; not written")
    assert path.read_bytes() == changed and report.exit_code == 1


def test_attestation_of_a_non_object_reader_block_is_refused(cli):
    convo = cli.conversation(turns=1, reader_block="oops")
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    assert only(report).attestation == C.REFUSED
    assert only(report).attestation_error.endswith("agyReader is string, not an object; refusing to edit it")
    assert b"completeness" not in convo.paths["sidecar"].read_bytes()


# ----------------------------------------------------------------------------- the projection


def _shuffled(value, rng: random.Random):
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        return [_shuffled(v, rng) for v in value]
    return value


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    indent=st.sampled_from([None, 0, 1, 2, 4, "\t"]),
    ascii_only=st.booleans(),
    compact=st.booleans(),
)
def test_projection_digest_ignores_key_order_and_formatting(seed, indent, ascii_only, compact):
    rng = random.Random(seed)
    steps = T.conversation_steps(rng, T.Clock(rng), rng.randrange(1, 4), prompt='Grüße, \u2603 and "quotes"')
    doc = T.trajectory(rng, T.new_id(rng), steps, created_at="2026-09-01T09:00:00.000000001Z")
    expected = C.projection_sha256(doc)
    separators = (",", ":") if compact else None
    text = json.dumps(_shuffled(doc, rng), indent=indent, ensure_ascii=ascii_only, separators=separators)
    assert C.projection_sha256(loads(text)) == expected
    assert C.canonical_json(C.projection(doc)) == C.canonical_json(C.projection(loads(text)))
    changed = copy.deepcopy(doc)
    changed["steps"][-1]["metadata"]["createdAt"] = "2030-01-01T00:00:00.000000001Z"
    assert C.projection_sha256(changed) != expected


def test_projection_shape():
    step = {
        "type": 15,
        "metadata": {"createdAt": "2026-09-01T09:00:00Z", "startedAt": "2026-09-01T09:00:01.5Z", "toolCall": {"name": "n"}},
        "runCommand": {"commandLine": "ls"},
        "askQuestion": {"questions": [{"question": "q?", "selectedOptionIds": ["a"]}, "odd"]},
    }
    assert C.projection({"steps": [step, "junk"]}) == [
        C.PROFILE,
        [
            [
                "CORTEX_STEP_TYPE_PLANNER_RESPONSE",
                "CORTEX_STEP_STATUS_UNSPECIFIED",
                "2026-09-01T09:00:00.000000000Z",
                "2026-09-01T09:00:01.500000000Z",
                "",
                "",
                "",
                "",
                [],
                "",
                "",
                "",
                [],
                ["", "n", ""],
                ["", "", ""],
                "ls",
                "",
                0,
                [["q?", ["a"], "", False], "odd"],
            ],
            "junk",
        ],
    ]
    assert len(C.STEP_FIELDS) == len(C.projection({"steps": [{}]})[1][0])
    assert [name for name, _ in C.READS] == list(C.STEP_FIELDS)
    assert (
        C.canonical_json(C.projection({})) == C.canonical_json(C.projection({"steps": None})) == b'["agy-audit-projection/2",[]]'
    )


@pytest.mark.parametrize(
    ("key", "inside"),
    [
        ("steps.step_payload/CORTEX_STEP_TYPE_PLANNER_RESPONSE: 20.7.50:len", True),  # beside a tool call's id/name/args
        ("steps.step_payload/250: 1:enum=250", True),  # a step type we cannot name
        ("steps.step_payload/CORTEX_STEP_TYPE_DUMMY: 999:varint", True),  # a payload field of the Step itself
        ("steps.metadata/CORTEX_STEP_TYPE_RUN_COMMAND: 34:varint", True),  # the metadata column is Step field 5
        ("steps.step_payload/CORTEX_STEP_TYPE_RUN_COMMAND: 5.1.3:i64", True),  # inside createdAt
        ("steps.step_payload/CORTEX_STEP_TYPE_PLANNER_RESPONSE: 20.12:enum=30", False),  # stopReason is not projected
        ("steps.step_payload/CORTEX_STEP_TYPE_VIEW_FILE: 14.20:varint", False),
        ("steps.metadata/CORTEX_STEP_TYPE_RUN_COMMAND: 13.2:varint", False),  # inside requestedModel
        ("steps.render_info/CORTEX_STEP_TYPE_GENERIC: 5:len", False),
        ("steps.permissions/CORTEX_STEP_TYPE_RUN_COMMAND: 2.5:len", False),
        ("gen_metadata.data: 1.99:len", False),
        ("trajectory_metadata_blob.data: 18:len", False),
    ],
)
def test_unknowns_are_inside_the_projection_only_where_it_reads(key, inside):
    assert C.in_projection(key) is inside


# ----------------------------------------------------------------------------- command line


def test_cli_text_json_and_exit_codes(cli, capsys):
    complete = cli.conversation(turns=1)
    stale = cli.conversation(turns=2, sidecar="stale", stale_missing_steps=1)
    legacy = cli.conversation(turns=1, db=False, legacy_pb=True)
    assert main(["completeness", str(cli.path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ID", "VERDICT", "SIDECAR", "SOURCE", "DETAIL"]
    rows = {line.split()[0]: line.split()[1:4] for line in out[1:4]}
    assert rows == {
        complete.id: ["complete", str(len(complete.steps)), str(len(complete.steps))],
        stale.id: ["incomplete", str(len(stale.steps) - 1), str(len(stale.steps))],
        legacy.id: ["unknown", str(len(legacy.steps)), "-"],
    }
    assert out[4] == "completeness: 3 sidecar(s): 1 complete, 1 incomplete, 0 unsupported, 1 unknown, 0 unreadable"
    assert out[5].startswith("note: unknown sidecars")

    assert main(["completeness", "--root", str(cli.path), "--attest", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)["result"]
    assert doc["summary"] == {
        "sidecars": 3,
        "complete": 1,
        "incomplete": 1,
        "unsupported": 0,
        "unknown": 1,
        "unreadable": 0,
        "attestations": {"written": 1, "kept": 0, "removed": 0, "refused": 0},
    }
    assert doc["profile"] == C.PROFILE
    first = next(r for r in doc["results"] if r["id"] == complete.id)
    assert sorted(first) == sorted(
        [
            "id",
            "sidecar",
            "source",
            "verdict",
            "detail",
            "differences",
            "sidecarSteps",
            "sourceSteps",
            "evidence",
            "outsideProjection",
            "recordedIn",
            "attestation",
            "attestationError",
        ]
    )
    assert sorted(first["evidence"]) == ["contentSha256", "profile", "projectionSha256", "steps"]
    assert first["attestation"] == "written"

    stale.paths["sidecar"].unlink()
    legacy.paths["sidecar"].unlink()
    assert main(["completeness", "--home", str(cli.builder.home), "--attest", "-q"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["ID", "VERDICT", "ATTEST", "SIDECAR", "SOURCE", "DETAIL"]
    assert out[1].split()[:3] == [complete.id, "complete", "kept"]
    assert main(["completeness", str(cli.path), "--root", str(cli.path)]) == 2  # with --root, ids
    assert (
        capsys.readouterr().err
        == f"agy-audit: completeness: with --home/--root, give session ids (UUIDs), not {str(cli.path)!r}\n"
    )
    assert main(["completeness", "--root", str(cli.path), complete.id.upper(), "-q"]) == 0
    assert [line.split()[:2] for line in capsys.readouterr().out.splitlines()[1:]] == [
        [complete.id, "complete"],
        ["completeness:", "1"],
    ]
    assert main(["completeness", "--root", str(cli.path), stale.id]) == 2  # its sidecar was removed above
    assert capsys.readouterr().err == f"agy-audit: session {stale.id}: no sidecar in {cli.path / 'conversations'}\n"
    complete.paths["sidecar"].unlink()
    assert main(["completeness", str(cli.path)]) == 3
    assert main(["completeness", str(cli.path / "absent")]) == 2


def test_unknowns_outside_the_projection_are_listed_and_leave_the_verdict_complete(cli):
    convo = cli.conversation(turns=1)
    db = convo.paths["db"]
    with sqlite3.connect(db) as conn:  # field 99 (varint 1) appended to a generation row: not projected
        conn.execute("UPDATE gen_metadata SET data = data || x'980601' WHERE idx = 0")
        conn.execute("INSERT INTO battle_mode_infos VALUES (0, x'08')")
    conn.close()
    r = only(C.check([cli.path]))
    assert r.verdict == C.COMPLETE, r.detail
    assert r.outside[0] == "gen_metadata.data: 99:varint x1"
    assert r.outside[1].endswith("battle_mode_infos: 1 rows not decoded (message unknown)")
    assert len(r.outside) == 2


def test_an_unknown_field_beside_a_projected_value_is_unsupported(cli):
    convo = cli.conversation(turns=1)
    with sqlite3.connect(convo.paths["db"]) as conn:  # field 99 inside the user input payload (Step 19)
        row = conn.execute("SELECT step_payload FROM steps WHERE idx = 0").fetchone()[0]
        step = pb.Step.FromString(row)
        step.user_input.MergeFromString(b"\x98\x06\x01")
        conn.execute("UPDATE steps SET step_payload = ? WHERE idx = 0", (step.SerializeToString(),))
    conn.close()
    r = only(C.check([cli.path]))
    assert r.verdict == C.UNSUPPORTED
    assert r.detail == (
        "the source holds content cortex.proto does not decode: steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 19.99:varint x1"
    )
    assert r.outside == []


# ----------------------------------------------------------------------------- empty fields (issue 39.6)


def _knowledge_steps(root) -> list[dict]:
    """A turn with the KNOWLEDGE_ARTIFACTS steps real IDE stores hold (1-2 per .db, docs/store-format.md#payloads)."""
    steps = T.conversation_steps(root.rng, root.clock, 2)
    steps.insert(1, T.knowledge_artifacts(root.clock))
    steps.append(T.knowledge_artifacts(root.clock))
    return steps


def test_knowledge_artifacts_steps_are_complete_and_rendered_as_the_daemon_shows_them(builder, capsys):
    ide = builder.root("ide")
    convo = ide.conversation(steps=_knowledge_steps(ide))
    with sqlite3.connect(convo.paths["db"]) as conn:  # the payload is Step field 112, an empty message
        rows = conn.execute("SELECT idx, step_payload FROM steps WHERE step_type = 99").fetchall()
    conn.close()
    assert [idx for idx, _ in rows] == [1, len(convo.steps) - 1]
    assert all(payload.endswith(b"\x82\x07\x00") for _, payload in rows)
    native = read_trajectory(convo.paths["db"])
    assert native.unknown_fields == {} and native.findings == []
    assert [s["knowledgeArtifacts"] for s in native.trajectory["steps"] if "knowledgeArtifacts" in s] == [{}, {}]
    assert native.trajectory["steps"][1]["type"] == "CORTEX_STEP_TYPE_KNOWLEDGE_ARTIFACTS"
    r = only(C.check([ide.path]))
    assert (r.verdict, r.detail, r.outside, r.source_steps) == (C.COMPLETE, "", [], len(convo.steps))
    assert main(["completeness", str(ide.path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("completeness: 1 sidecar(s): 1 complete, 0 incomplete")


def test_ci_passes_its_completeness_stage_on_knowledge_artifacts_steps(builder, tmp_path, capsys):
    ide = builder.root("ide")
    ide.conversation(steps=_knowledge_steps(ide))
    argv = ["ci", "--home", str(builder.home), "--source", "native", "--out", str(tmp_path / "out"), "--format", "json"]
    main(argv)
    doc = ci_result(envelope(capsys.readouterr().out, "ci"))
    [stage] = [s for s in doc["stages"] if s["name"] == "completeness"]
    assert stage["verdict"] == "pass"
    assert {c["name"]: c["verdict"] for c in stage["checks"]} == {"corpus": "pass", "live": "pass"}


EMPTY_PLANTS = [  # (step type, the Step fields down to the message, the key its field 99 is counted as)
    ("USER_INPUT", (), "steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 99"),
    ("USER_INPUT", ("user_input",), "steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 19.99"),
    ("USER_INPUT", ("user_input", "items", 0), "steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 19.3.99"),
    ("PLANNER_RESPONSE", ("planner_response",), "steps.step_payload/CORTEX_STEP_TYPE_PLANNER_RESPONSE: 20.99"),
    (
        "PLANNER_RESPONSE",
        ("planner_response", "tool_calls", 0),
        "steps.step_payload/CORTEX_STEP_TYPE_PLANNER_RESPONSE: 20.7.99",
    ),
    ("RUN_COMMAND", ("run_command",), "steps.step_payload/CORTEX_STEP_TYPE_RUN_COMMAND: 28.99"),
    ("RUN_COMMAND", ("metadata",), "steps.metadata/CORTEX_STEP_TYPE_RUN_COMMAND: 99"),
    ("RUN_COMMAND", ("metadata", "tool_call"), "steps.metadata/CORTEX_STEP_TYPE_RUN_COMMAND: 4.99"),
    ("ASK_QUESTION", ("ask_question", "questions", 0), "steps.step_payload/CORTEX_STEP_TYPE_ASK_QUESTION: 154.1.99"),
    ("RUN_COMMAND", ("permissions",), "steps.permissions/CORTEX_STEP_TYPE_RUN_COMMAND: 99"),
]


def _plant(db: Path, kind: str, path: tuple, field: bytes) -> None:
    """Append *field* (raw wire bytes) to the message at *path* in the first step of *kind*; the
    column copies of the step's parts are rewritten from the payload, as agy keeps them."""
    with sqlite3.connect(db) as conn:
        idx, payload = conn.execute(
            "SELECT idx, step_payload FROM steps WHERE step_type = ? ORDER BY idx", (pb.CortexStepType.Value(T.STEP + kind),)
        ).fetchone()
        step = pb.Step.FromString(payload)
        target = step
        for name in path:
            target = target[name] if isinstance(name, int) else getattr(target, name)
        target.MergeFromString(field)
        conn.execute(
            "UPDATE steps SET step_payload = ?, metadata = ?, permissions = ? WHERE idx = ?",
            (step.SerializeToString(), step.metadata.SerializeToString(), step.permissions.SerializeToString(), idx),
        )
    conn.close()


@pytest.mark.parametrize(("kind", "path", "key"), EMPTY_PLANTS, ids=[".".join(map(str, p[1])) or "step" for p in EMPTY_PLANTS])
def test_an_unknown_field_that_carries_nothing_never_makes_a_session_unsupported(builder, kind, path, key):
    """An empty message, string or bytes cannot hide a projected value: wherever it is, it is listed
    (kind ``empty``) and the verdict stands; the same field holding one byte where the projection
    reads is still ``unsupported`` (outside the projection, listed either way)."""
    cli = builder.root("cli")
    steps = T.every_shape_steps(cli.rng, cli.clock, browser=False, unnamed_enums=False, media=False)
    convo = cli.conversation(steps=steps)
    _plant(convo.paths["db"], kind, path, b"\x9a\x06\x00")  # field 99, length 0
    r = only(C.check([cli.path]))
    assert (r.verdict, r.detail) == (C.COMPLETE, "")
    assert f"{key}:empty x1" in r.outside
    assert main(["completeness", str(cli.path)]) == 0
    _plant(convo.paths["db"], kind, path, b"\x9a\x06\x01A")  # and one holding a byte
    r = only(C.check([cli.path]))
    if key.startswith("steps.permissions/"):  # a permission is never projected
        assert r.verdict == C.COMPLETE and f"{key}:len x1" in r.outside
    else:
        assert r.verdict == C.UNSUPPORTED
        assert r.detail.startswith("the source holds content cortex.proto does not decode: ")
        assert f"{key}:len x1" in r.detail


# ----------------------------------------------------------------------------- our own key (issue 20.5)

AGY_READER_BLOCK = {"verdict": "complete", "evidence": [{"source": "native", "n": 12345678901234567890}], "checkedAt": "later"}
LEGACY = {
    "profile": "agy-audit-projection/1",
    "sourceSha256": "0" * 64,
    "projectionSha256": "1" * 64,
    "steps": 3,
    "checkedAt": CHECKED_AT,
}


def test_our_attestation_lives_under_our_own_key_and_agy_readers_is_never_touched(cli, capsys):
    convo = cli.conversation(turns=2)
    path = convo.paths["sidecar"]
    doc = sidecar_doc(convo)
    doc["agyReader"] = {"parentCascadeId": PARENT, "completeness": AGY_READER_BLOCK}
    rewrite(convo, doc)
    before = path.read_bytes()
    assert validate_bytes(before).findings == ()  # agy-reader's own block is no violation
    assert main(["verify-contract", str(path)]) == 0
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    r = only(report)
    assert (r.verdict, r.attestation) == (C.COMPLETE, C.WRITTEN)
    after = loads(path.read_bytes(), exact=True)
    assert after["agyReader"]["completeness"] == AGY_READER_BLOCK  # kept, byte for byte below
    assert after["agyReader"][C.READER_KEY] == {
        C.ATTESTATION_KEY: {
            "profile": C.PROFILE,
            "contentSha256": r.evidence.content_sha256,
            "projectionSha256": r.evidence.projection_sha256,
            "steps": len(convo.steps),
            "checkedAt": CHECKED_AT,
        }
    }
    assert set_reader_key(path.read_bytes(), C.READER_KEY, None) == before
    assert validate_bytes(path.read_bytes()).findings == () and path.stat().st_mtime_ns == MTIME
    from audit.checks.shape import SidecarShape

    shapes = [SidecarShape(), SidecarShape()]
    shapes[0].add_json(before, "before")
    shapes[1].add_json(path.read_bytes(), "after")
    assert shapes[0].lines() == shapes[1].lines()  # the shape fingerprint leaves our key out
    again = C.check([cli.path])
    attest(again, checked_at="2027-01-01T00:00:00Z")
    assert only(again).attestation == C.KEPT
    # a failing verdict removes ours and still leaves agy-reader's block alone
    doc = loads(path.read_bytes(), exact=True)
    doc["steps"].pop()
    rewrite(convo, doc)
    failing = C.check([cli.path])
    attest(failing, checked_at=CHECKED_AT)
    assert (only(failing).verdict, only(failing).attestation) == (C.INCOMPLETE, C.REMOVED)
    assert loads(path.read_bytes())["agyReader"] == {"parentCascadeId": PARENT, "completeness": AGY_READER_BLOCK}


def test_an_old_attestation_is_read_and_moved_to_our_key(cli):
    convo = cli.conversation(turns=1)
    path = convo.paths["sidecar"]
    doc = sidecar_doc(convo)
    doc["agyReader"] = {"completeness": LEGACY}
    rewrite(convo, doc)
    report = C.check([cli.path])
    assert only(report).recorded_in == "agyReader.completeness (an attestation of agy-audit 0.1, read for one release)"
    attest(report, checked_at=CHECKED_AT)
    assert only(report).attestation == C.WRITTEN
    reader = loads(path.read_bytes())["agyReader"]
    assert list(reader) == [C.READER_KEY] and reader[C.READER_KEY][C.ATTESTATION_KEY]["checkedAt"] == CHECKED_AT
    # on a failing verdict an old attestation of ours is removed too
    doc = sidecar_doc(convo)
    doc["agyReader"] = {"completeness": LEGACY}
    doc["steps"].pop()
    rewrite(convo, doc)
    failing = C.check([cli.path])
    attest(failing, checked_at=CHECKED_AT)
    assert only(failing).attestation == C.REMOVED and "agyReader" not in loads(path.read_bytes())


# ----------------------------------------------------------------------------- what is attested (issue 20.6)


def test_the_content_digest_is_of_the_rows_not_the_bytes(cli, tmp_path):
    import sqlite3

    convo = cli.conversation(turns=2, wal_steps=2)
    db = convo.paths["db"]
    assert Path(str(db) + "-wal").stat().st_size > 0
    first = only(C.check([cli.path]))
    assert first.verdict == C.COMPLETE
    copy = tmp_path / "vacuumed.db"
    with sqlite3.connect(db) as conn:  # other bytes, other page order, the same rows
        conn.execute("VACUUM INTO ?", (str(copy),))
    conn.close()
    assert copy.read_bytes() != db.read_bytes()
    assert C.content_sha256(copy) == first.evidence.content_sha256 == C.content_sha256(db)


def test_a_checkpoint_with_unchanged_content_does_not_rewrite_the_attestation(cli):
    import sqlite3

    convo = cli.conversation(turns=2, wal_steps=2)
    path, db = convo.paths["sidecar"], convo.paths["db"]
    os.utime(path, ns=(MTIME, MTIME))
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    assert only(report).attestation == C.WRITTEN
    attested, inode = path.read_bytes(), path.stat().st_ino
    before = db.read_bytes()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # the -wal frames move into the .db
    conn.close()
    assert db.read_bytes() != before
    again = C.check([cli.path])
    attest(again, checked_at="2027-01-01T00:00:00Z")
    assert (only(again).verdict, only(again).attestation) == (C.COMPLETE, C.KEPT)
    assert (path.read_bytes(), path.stat().st_ino) == (attested, inode)


def test_no_attestation_when_the_wal_index_header_changed_during_the_read(cli, monkeypatch):
    from audit.store import database

    convo = cli.conversation(turns=2, wal_steps=2)
    assert Path(str(convo.paths["db"]) + "-shm").exists()
    headers = iter(bytes([n]) * 136 for n in range(100))  # a new header at every look: commits all along
    monkeypatch.setattr(database, "_wal_index_header", lambda path: next(headers))
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    r = only(report)
    assert r.verdict == C.COMPLETE and r.attestation == C.REFUSED
    assert r.attestation_error == (
        f"{convo.paths['db']}: the WAL index (-shm header) changed during each read: a commit in progress; not attested"
    )
    assert b"agyAudit" not in convo.paths["sidecar"].read_bytes() and report.exit_code == 1


_JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, 1.0, 1.5]), st.sampled_from(["", "a", "b"])
)
_FIELD = st.recursive(_JSON_LEAF, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
_PROJECTED_STEP = st.one_of(
    st.lists(_FIELD, min_size=len(C.STEP_FIELDS), max_size=len(C.STEP_FIELDS)), st.lists(_FIELD, max_size=3), _JSON_LEAF
)


def _twisted(value: object, rng: random.Random) -> object:
    """*value* with numbers swapped for == equal ones of another type."""
    if isinstance(value, list):
        return [_twisted(v, rng) for v in value]
    if type(value) in (bool, int, float) and value in (0, 1):
        return rng.choice([v for v in (value, bool(value), int(value), float(value)) if type(v) is not type(value)])
    return value


@settings(max_examples=200, deadline=None)
@given(
    common=st.lists(_PROJECTED_STEP, max_size=4),
    sidecar=st.lists(_PROJECTED_STEP, max_size=4),
    native=st.lists(_PROJECTED_STEP, max_size=4),
    mix=st.randoms(use_true_random=False),
)
def test_explain_projection_is_the_diff_of_every_step(common, sidecar, native, mix):
    """Equal steps are left out of the deepdiff walk (for speed): the explanation is still the
    diff of every named step, equal pairs, other types (1 / 1.0 / True) and lengths included."""
    side, source = list(sidecar), list(native)
    for step in common:  # pairs equal by value at random places, some only by == (1, 1.0 and True)
        at = mix.randrange(min(len(side), len(source)) + 1)
        side.insert(at, copy.deepcopy(step))
        source.insert(at, _twisted(step, mix) if mix.random() < 0.5 else copy.deepcopy(step))

    def named(steps):
        return {"steps": [dict(zip(C.STEP_FIELDS, s, strict=False)) if isinstance(s, list) else s for s in steps]}

    expected = diff.explain(named(side), named(source), shown=5, ignore=())
    assert C.explain_projection(side, source) == expected


def test_a_profile_1_attestation_no_longer_matches_and_is_rewritten_as_profile_2(cli):
    convo = cli.conversation(turns=1)
    path = convo.paths["sidecar"]
    report = C.check([cli.path])
    attest(report, checked_at=CHECKED_AT)
    block = loads(path.read_bytes())["agyReader"][C.READER_KEY][C.ATTESTATION_KEY]
    assert block["profile"] == "agy-audit-projection/2"
    old = dict(block, profile="agy-audit-projection/1")  # the same evidence under the old profile
    doc = loads(path.read_bytes())
    doc["agyReader"][C.READER_KEY][C.ATTESTATION_KEY] = old
    rewrite(convo, doc)
    again = C.check([cli.path])
    assert only(again).verdict == C.COMPLETE
    attest(again, checked_at="2027-01-01T00:00:00Z")
    assert only(again).attestation == C.WRITTEN
    assert loads(path.read_bytes())["agyReader"][C.READER_KEY][C.ATTESTATION_KEY]["profile"] == C.PROFILE
