"""The four surfaces: inputs (sweep corpus, store, home, plain dir, files), sqlite and wire lines."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.actions.sweep import sweep
from audit.checks import fingerprint
from audit.checks.fingerprint import (
    SURFACES,
    Counts,
    Fingerprint,
    blobs,
    databases,
    fingerprint_paths,
    transcript,
    wire_fingerprint,
)
from audit.checks.fingerprint import sidecar as fingerprint_sidecar
from audit.checks.shape import SidecarShape
from audit.cli import main
from audit.errors import InputError
from audit.store import layout, wire
from audit.store.database import read_database
from audit.store.layout import Root
from audit.store.proto import cortex_pb2 as pb
from audit.testing.builder import StoreBuilder
from tests.store.test_trajectory import _messages as step_messages
from tests.store.test_wire import _varint

DATA = Path(__file__).resolve().parents[1] / "data"  # vendored reference data (tests/data/README.md)
DDL = (DATA / "agentsview_agy-1.0.7-1.0.10_baseline_schema.sql").read_text()
KNOWN_SCHEMA = "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43"
IN_STORES = [name for name, surface in SURFACES.items() if "store" in surface.found_in]
"""The surfaces a store root can hold (every one but the daemon's answers, which only a sweep keeps)."""


def make_db(path: Path, ddl: str = DDL) -> Path:
    con = sqlite3.connect(path)
    con.executescript(ddl)
    con.close()
    return path


def build_store(home: Path, *, unknown_fields: bool = False) -> Path:
    cli = StoreBuilder(home, seed=11).root("cli")
    first = cli.conversation(turns=2, unknown_fields=unknown_fields)
    parent, children = cli.family(children=2, unknown_fields=unknown_fields)
    cli.install_files([first, parent, *children], cli=True)  # history.jsonl, conversation_summaries.db, cache/
    return cli.path


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return build_store(tmp_path_factory.mktemp("home"))


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, store) -> Path:
    out = tmp_path_factory.mktemp("sweep") / "corpus"
    result = sweep([Root(store, "cli", True)], out, source="native", env={})
    assert result.complete
    return out


# ----------------------------------------------------------------------------- sqlite


def test_known_ddl_gives_the_published_schema_digest_and_named_lines(tmp_path):
    fp = fingerprint_paths([make_db(tmp_path / "a.db")], ["sqlite"]).fingerprints["sqlite"]
    assert fp.digest == KNOWN_SCHEMA
    assert fp.note is None
    assert len(fp.lines) == 36
    for line in (
        "user_version\t1",
        "table:steps\ttable",
        "table:steps.has_subtrajectory\tnumeric not-null default=false",
        "table:steps.idx\tINTEGER pk=1",
        'table:trajectory_metadata_blob.id\tTEXT default="main" pk=1',
        "index:idx_steps_status\tCREATE INDEX `idx_steps_status` ON `steps`(`status`)",
    ):
        assert line in fp.lines


def test_a_schema_change_changes_digest_and_names_the_line(tmp_path):
    changed = make_db(tmp_path / "b.db", DDL + "ALTER TABLE `steps` ADD COLUMN `extra` text;\n")
    fp = fingerprint_paths([changed], ["sqlite"]).fingerprints["sqlite"]
    assert fp.digest != KNOWN_SCHEMA
    assert "table:steps.extra\tTEXT" in fp.lines


def test_databases_that_disagree_make_a_union_with_a_note(tmp_path):
    make_db(tmp_path / "a.db")
    make_db(tmp_path / "b.db", DDL.replace("PRAGMA user_version = 1;", "PRAGMA user_version = 2;"))
    fp = fingerprint_paths([tmp_path], ["sqlite"]).fingerprints["sqlite"]
    assert "user_version\t1|2" in fp.lines
    assert fp.note == "2 different schemas; digest of the union of lines"
    assert fp == Fingerprint.of("sqlite", fp.lines, fp.note)


# ----------------------------------------------------------------------------- wire


def test_wire_fingerprint_of_observations():
    fp = wire_fingerprint(
        [
            ("steps.step_payload[CORTEX_STEP_TYPE_USER_INPUT]", "type", "varint"),
            ("steps.step_payload[CORTEX_STEP_TYPE_USER_INPUT]", "999", "varint"),
            ("steps.step_payload[CORTEX_STEP_TYPE_USER_INPUT]", "999", "len"),
            ("gen_metadata.data", "", "invalid"),
        ]
    )
    assert fp.lines == (
        "gen_metadata.data\tinvalid",
        "steps.step_payload[CORTEX_STEP_TYPE_USER_INPUT].999\tlen|varint",
        "steps.step_payload[CORTEX_STEP_TYPE_USER_INPUT].type\tvarint",
    )


def test_wire_lines_are_named_where_the_proto_knows_the_field(store):
    lines = fingerprint_paths([store], ["wire"]).fingerprints["wire"].lines
    assert "steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE].planner_response.tool_calls.name\tlen" in lines
    assert "steps.metadata.created_at.seconds\tvarint" in lines
    assert not any(".999" in line for line in lines)


def test_an_unknown_protobuf_field_shows_as_wire_drift_and_nothing_else(tmp_path, store):
    other = build_store(tmp_path / "home", unknown_fields=True)
    a, b = fingerprint_paths([store]), fingerprint_paths([other])
    assert set(a.fingerprints) == set(b.fingerprints) == set(IN_STORES)
    assert [s for s in IN_STORES if a.fingerprints[s].digest != b.fingerprints[s].digest] == ["wire"]
    added = set(b.fingerprints["wire"].lines) - set(a.fingerprints["wire"].lines)
    assert added and all(line.startswith("steps.step_payload[") and line.endswith(".999\tvarint") for line in added)
    assert set(a.fingerprints["wire"].lines) <= set(b.fingerprints["wire"].lines)


def test_schema_directed_wire_parse_observes_what_the_schema_less_walk_does(tmp_path):
    """The wire surface parses nested values only where cortex.proto declares a message; a
    schema-less walk (every length-delimited value tried) must give the very same observations."""
    home = tmp_path / "home"
    cli = StoreBuilder(home, seed=12).root("cli")
    cli.conversation(turns=3, unknown_fields=True)
    cli.family(children=2)
    for db in sorted((cli.path / "conversations").glob("*.db")):
        conv = read_database(db)
        for (table, column), message in fingerprint.BLOB_MESSAGES.items():
            for row in conv.tables.get(table, []):
                value = row.get(column)
                if type(value) is bytes:
                    guided = list(blobs._fields("s", wire.parse(value, schema=message), message, ""))
                    assert guided == list(blobs._fields("s", wire.parse(value), message, ""))


# ----------------------------------------------------------------------------- inputs


def test_store_root_gives_all_four_surfaces_and_counts(store):
    result = fingerprint_paths([store])
    assert result.kind == "store" and not result.complete and result.scope == "partial-unknown-scoped"
    assert set(result.fingerprints) == set(IN_STORES) and result.not_computed == {"rpc": SURFACES["rpc"].missing}
    counts = result.counts.to_json()
    assert counts["sessions"] == 4 and counts["databases"] == 4 and counts["transcripts"] == 8
    assert counts["steps"] == sum(counts["stepTypes"].values()) == sum(counts["statuses"].values())
    assert fingerprint_paths([store.parent.parent]).fingerprints == result.fingerprints  # the home directory


def test_sweep_corpus_is_complete_and_marks_native_sidecars(corpus, store):
    result = fingerprint_paths([corpus])
    assert result.kind == "sweep" and result.complete and result.scope == "explicit-version-scoped"
    assert result.sources == {"native": 4}
    assert set(result.partial()) == {"sidecar"}
    assert result.fingerprints["sqlite"].digest == KNOWN_SCHEMA
    assert result.fingerprints["wire"] == fingerprint_paths([store]).fingerprints["wire"]
    assert result.manifests == [corpus / "manifest.json"]


def test_incomplete_manifest_gives_a_partial_scope_with_the_version(tmp_path, corpus):
    manifest = json.loads((corpus / "manifest.json").read_text())
    (tmp_path / "manifest.json").write_text(json.dumps(manifest | {"complete": False, "installedAgyVersion": "1.2.11"}))
    result = fingerprint_paths([tmp_path])
    assert not result.complete and result.scope == "partial-1.2.11-scoped"
    assert result.not_computed == {
        "sidecar": "no readable *.trajectory.json sidecar",
        "sqlite": "no readable conversation .db",
        "wire": "no readable conversation .db",
        "transcript": "no brain transcript record",
        "summaries": "no readable conversation_summaries.db",
        "history": "no history.jsonl record",
        "cache": "no readable cache/ file",
        "artifacts": "no readable brain artifact *.md.metadata.json",
        "conventions": "no brain transcript record with a step type",
        "values": "no sidecar, conversation .db or transcript record to take values from",
        "rpc": SURFACES["rpc"].missing,
    }
    assert result.fingerprints["roots"].lines == ("antigravity-cli\troot",)  # the manifest names the root swept


def test_plain_directory_files_dedup_symlinks_and_foreign_entries(tmp_path):
    fixture = (DATA / "agy-reader_invoke_subagent.trajectory.json").read_bytes()
    (tmp_path / "x.trajectory.json").write_bytes(fixture)
    (tmp_path / "notes.txt").write_text("not a sidecar")
    (tmp_path / "nested.trajectory.json").mkdir()
    (tmp_path / "nested.trajectory.json" / "y.trajectory.json").write_text("{}")
    (tmp_path / "link.trajectory.json").symlink_to(tmp_path / "x.trajectory.json")
    result = fingerprint_paths([tmp_path, tmp_path / "x.trajectory.json"], ["sidecar"])
    assert result.counts.sessions == 1
    assert result.fingerprints["sidecar"].digest == "sha256:4363eb5216155a994dfd9e08e6431be910df1b336d095367dcdedc1663ba7f2c"
    assert result.skipped == [f"{tmp_path / 'link.trajectory.json'}: symbolic link (not followed)"]


def test_a_corrupt_file_is_reported_and_the_rest_fingerprinted(tmp_path):
    (tmp_path / "a.trajectory.json").write_text('{"steps": []}')
    (tmp_path / "b.trajectory.json").write_text('{"steps": [')
    result = fingerprint_paths([tmp_path], ["sidecar"])
    assert result.fingerprints["sidecar"].lines == ("\tobject", "steps\tarray")
    assert result.problems == [f"{tmp_path / 'b.trajectory.json'}: invalid JSON at line 1 column 12: Expecting value"]


def test_missing_path_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="No such file"):
        fingerprint_paths([tmp_path / "nope"])


# ----------------------------------------------------------------------------- CLI


def test_cli_fingerprint_text_json_paths_and_exit_codes(tmp_path, capsys, store):
    assert main(["fingerprint", str(store)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["SURFACE", "DIGEST", "LINES"] and [r.split()[0] for r in out[1:]] == list(IN_STORES)

    fixture = DATA / "agy-reader_invoke_subagent.trajectory.json"
    assert main(["fingerprint", "--surface", "sidecar", "--paths", str(fixture)]) == 0
    printed = capsys.readouterr().out
    shape = SidecarShape()
    shape.add_json(fixture.read_bytes())
    assert printed == "".join(line + "\n" for line in shape.lines())

    assert main(["fingerprint", "--format", "json", "--surface", "sqlite", str(make_db(tmp_path / "a.db"))]) == 0
    doc = json.loads(capsys.readouterr().out)["result"]
    assert doc["fingerprints"] == {"sqlite": {"digest": KNOWN_SCHEMA, "lines": 36, "note": None}}
    assert doc["kind"] == "files" and doc["scope"] == "partial-unknown-scoped"

    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["fingerprint", str(empty)]) == 3
    assert main(["fingerprint", "--paths", str(store)]) == 2
    assert main(["fingerprint", str(tmp_path / "missing")]) == 2
    assert "No such file" in capsys.readouterr().err


def test_cli_warns_about_unreadable_files_on_stderr(tmp_path, capsys):
    (tmp_path / "a.trajectory.json").write_text("{}")
    (tmp_path / "b.trajectory.json").write_bytes(b"\xff")
    os.chmod(tmp_path / "a.trajectory.json", 0o600)
    assert main(["fingerprint", "--surface", "sidecar", str(tmp_path)]) == 2  # unreadable input: exit 2, as ci fails it
    captured = capsys.readouterr()
    assert "warning: " + str(tmp_path / "b.trajectory.json") in captured.err
    assert captured.err.endswith("agy-audit: 1 input(s) unreadable; the fingerprints above leave them out\n")
    assert "sidecar" in captured.out  # the readable inputs are still fingerprinted
    assert main(["fingerprint", "-q", "--surface", "sidecar", str(tmp_path)]) == 2
    assert capsys.readouterr().err == captured.err  # --quiet never hides what the fingerprints leave out


def test_transcript_torn_lines_are_skipped_not_problems(tmp_path):
    good = (DATA / "codeburn_fixture-current-cli_transcript.jsonl").read_bytes()
    (tmp_path / "transcript.jsonl").write_bytes(good + b'ing mid-word", "type": "X"}\n[1]\n')
    result = fingerprint_paths([tmp_path], ["transcript"])
    lines = result.fingerprints["transcript"].lines
    assert "compact.PLANNER_RESPONSE.thinking\tstring" in lines and "compact.USER_INPUT\tobject" in lines
    assert not any(line.startswith(("compact.X", "compact.(none)")) for line in lines)
    assert result.problems == []
    log = tmp_path / "transcript.jsonl"
    assert [s.split(": ")[0] for s in result.skipped] == [f"{log}:3", f"{log}:4"]


def test_counts_label_every_step_type_and_status_even_odd_ones():
    counts = Counts()
    counts.add_trajectory({"steps": [{"type": "A", "status": "S"}, {"type": "A", "status": 1}, {"status": True}]})
    counts.add_trajectory({"steps": [{"type": {"x": 1}, "status": "S"}, "not a step", {"type": "B", "status": None}]})
    counts.add_trajectory({"steps": "not an array"})
    counts.add_trajectory(["not an object"])
    assert (counts.sessions, counts.steps) == (4, 6)
    assert counts.step_types == {"A": 2, "(missing)": 1, "(not a string)": 1, "(not an object)": 1, "B": 1}
    assert counts.statuses == {"S": 2, "(not a string)": 2, "(missing)": 1}


# ----------------------------------------------------------------------------- wire observations from the parse


def _walked(descriptor, data: bytes) -> set[tuple[str, str]]:
    """What the schema-guided wire walk observes in one blob (the reference)."""
    try:
        fields = wire.parse(data, schema=descriptor)
    except wire.WireError:
        return {("", "invalid")}
    return {(path, kind) for _, path, kind in blobs._fields("s", fields, descriptor, "")}


def _parsed(descriptor, data: bytes) -> set[tuple[str, str]] | None:
    return blobs._decoded_fields(descriptor, data)


def _field(number: int, wire_type: int, payload: bytes = b"\x01") -> bytes:
    key = _varint(number << 3 | wire_type)
    if wire_type == wire.LEN:
        return key + _varint(len(payload)) + payload
    return key + {wire.VARINT: payload, wire.I64: b"\0" * 8, wire.I32: b"\0" * 4}.get(wire_type, b"")


_STEP_DOCS = step_messages(pb.Step.DESCRIPTOR)


@settings(max_examples=150, deadline=None)
@given(doc=_STEP_DOCS, extras=st.lists(st.tuples(st.integers(1, 3000), st.sampled_from([0, 1, 2, 3, 5])), max_size=3))
def test_the_parse_observes_what_the_wire_walk_observes(doc, extras):
    """Where protobuf's parse answers (the bytes are the message's own serialisation), it gives
    exactly the wire walk's (path, wire type) set: unknown fields, known numbers with another
    wire type, packed lists, nesting and the metadata sub-message included; a group, a map, a
    duplicate or an out-of-order field leave the answer to the walk."""
    message = json_format.ParseDict(doc, pb.Step())
    data = message.SerializeToString()
    blobs = [data, data + b"".join(_field(n, w) for n, w in extras)]
    if message.HasField("metadata"):  # unknown fields one level down, where the payload's own serialisation keeps them
        inner = message.metadata.SerializeToString() + _field(999, wire.VARINT)
        with_unknown = pb.Step()
        with_unknown.CopyFrom(message)
        with_unknown.metadata.Clear()
        with_unknown.metadata.MergeFromString(inner)
        blobs.append(with_unknown.SerializeToString())
    for blob in blobs:
        parsed = _parsed(pb.Step.DESCRIPTOR, blob)
        assert parsed is None or parsed == _walked(pb.Step.DESCRIPTOR, blob), blob
    assert _parsed(pb.Step.DESCRIPTOR, data) is not None or any(
        fd.message_type is not None and fd.message_type.GetOptions().map_entry for fd in _set_fields(message)
    )


def _set_fields(message):
    for fd, value in message.ListFields():
        yield fd
        if fd.message_type is not None and not fd.message_type.GetOptions().map_entry:
            for item in value if fd.is_repeated else (value,):
                yield from _set_fields(item)


def test_blobs_the_parse_cannot_vouch_for_go_to_the_wire_walk():
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE, status=pb.CORTEX_STEP_STATUS_DONE)
    step.metadata.created_at.seconds = 5
    data = step.SerializeToString()
    type_number = pb.Step.DESCRIPTOR.fields_by_name["type"].number
    assert (
        _parsed(pb.Step.DESCRIPTOR, data)
        == _walked(pb.Step.DESCRIPTOR, data)
        == {
            ("type", "varint"),
            ("status", "varint"),
            ("metadata", "len"),
            ("metadata.created_at", "len"),
            ("metadata.created_at.seconds", "varint"),
        }
    )
    unknown = data + _field(999, wire.LEN, b"\x08\x01") + _field(type_number, wire.I32)  # a known number, another wire type
    assert _parsed(pb.Step.DESCRIPTOR, unknown) == _walked(pb.Step.DESCRIPTOR, unknown)
    assert ("999", "len") in _walked(pb.Step.DESCRIPTOR, unknown) and ("type", "i32") in _walked(pb.Step.DESCRIPTOR, unknown)
    for other in (
        _field(type_number, wire.VARINT, b"\x00") + data,  # a default value on the wire, and out of order
        data + _field(type_number, wire.VARINT, b"\x05"),  # the field twice
        data + _field(77, 3) + _field(77, 4),  # a group
        data[:-1],  # truncated
        b"\xff\xff",
    ):
        assert _parsed(pb.Step.DESCRIPTOR, other) is None
        conv = _OneStep({"steps": [{"idx": 0, "step_type": 15, "step_payload": other}]})
        assert set(fingerprint.wire_observations(conv)) == {  # type: ignore[arg-type]
            ("steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE]", path, kind)
            for path, kind in _walked(pb.Step.DESCRIPTOR, other)
        }


class _OneStep:
    def __init__(self, tables: dict) -> None:
        self.tables = tables


def test_every_fixture_blob_is_observed_as_the_wire_walk_does(tmp_path):
    """Each .db of the sample store: the observations (parse where it answers, walk elsewhere)
    are those of the wire walk alone, and the parse answers for nearly every blob."""
    answered = walked = 0
    for db in sorted(Path("examples/home").rglob("*.db")):
        conv = read_database(db)
        if not conv.access:
            continue
        expected = set()
        for table, rows in conv.tables.items():
            for row in rows:
                for column, value in row.items():
                    if type(value) is not bytes:
                        continue
                    scope = f"{table}.{column}"
                    if (table, column) == ("steps", "step_payload"):
                        scope += f"[{blobs._step_type(row.get('step_type'))}]"
                    descriptor = fingerprint.BLOB_MESSAGES.get((table, column))
                    if descriptor is None:
                        continue
                    expected |= {(scope, p, k) for p, k in _walked(descriptor, value)}
                    answered += _parsed(descriptor, value) is not None
                    walked += 1
        observed = {
            o
            for o in fingerprint.wire_observations(conv)
            if fingerprint.BLOB_MESSAGES.get(tuple(o[0].split("[")[0].split("."))) is not None
        }
        assert observed == expected, db
    assert walked and answered >= 0.9 * walked, (answered, walked)


def test_transcript_fingerprint_is_per_tier_and_chunks_read_like_flat_files(tmp_path):
    """A chunk-only brain fingerprints like the same brain with flat files (identical chunks are
    read once), every path names its tier, and overview.txt is a tier of its own."""
    import random

    from audit.testing.builder import StoreBuilder
    from audit.testing.transcript_records import records_from_steps
    from audit.testing.transcripts import write_brain

    steps = StoreBuilder(tmp_path / "b", seed=3).root("cli").conversation(turns=3, brain=False).steps
    records = records_from_steps(steps)
    uuid = "3f2b8c1e-9a47-4d2e-8b1f-6c5d4e3a2b10"
    got = {}
    for chunks in ("none", "both", "only"):
        brain = tmp_path / chunks / "brain" / uuid
        write_brain(brain, records, rng=random.Random(1), chunks=chunks, chunk_bytes=700, overview=True)
        result = fingerprint_paths([brain.parent.parent], ["transcript"])  # a store root
        got[chunks] = result.fingerprints["transcript"]
        assert result.skipped == [] and result.problems == []
    assert got["none"] == got["both"] == got["only"]
    tiers = {line.split(".", 1)[0] for line in got["none"].lines}
    assert tiers == {"compact", "full", "overview"}
    # the full tier's typed argument is native, the compact tier's JSON text decodes to the same type
    assert "full.PLANNER_RESPONSE.tool_calls.[run_command].args.CommandLine\tstring" in got["none"].lines
    assert "compact.PLANNER_RESPONSE.tool_calls.[run_command].args.CommandLine\tstring" in got["none"].lines


def test_the_parse_keeps_the_wire_walks_field_budget(monkeypatch):
    """Beyond ``MAX_FIELDS`` fields the parse does not answer (the wire walk decides); a blob of at
    most twice that many bytes cannot hold more (every field takes at least two bytes)."""
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE, status=pb.CORTEX_STEP_STATUS_DONE)
    step.metadata.created_at.seconds = 5
    data = step.SerializeToString()  # five fields in 12 bytes
    expected = _walked(pb.Step.DESCRIPTOR, data)
    for budget, answer in ((len(data) // 2, expected), (5, expected), (4, None), (1, None)):
        monkeypatch.setattr(blobs, "MAX_FIELDS", budget)
        assert _parsed(pb.Step.DESCRIPTOR, data) == answer, budget


def test_wire_observations_are_distinct_per_conversation():
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE)
    step.metadata.created_at.seconds = 5
    other = pb.Step(type=pb.CORTEX_STEP_TYPE_SYSTEM_MESSAGE, status=pb.CORTEX_STEP_STATUS_DONE)
    rows = [{"idx": i, "step_type": 15, "step_payload": blob.SerializeToString()} for i, blob in enumerate((step, other, step))]
    rows.append({"idx": 3, "step_type": 15, "step_payload": b"\xff\xff"})
    observed = list(fingerprint.wire_observations(_OneStep({"steps": rows})))  # type: ignore[arg-type]
    scope = "steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE]"
    assert sorted(observed) == [
        (scope, "", "invalid"),
        (scope, "metadata", "len"),
        (scope, "metadata.created_at", "len"),
        (scope, "metadata.created_at.seconds", "varint"),
        (scope, "status", "varint"),
        (scope, "type", "varint"),
    ]


def test_databases_and_brains_read_elsewhere_are_not_read_again_and_give_the_same_survey(tmp_path, monkeypatch):
    from audit.store.database import read_database

    home = build_store(tmp_path / "home", unknown_fields=True)
    broken = home / "conversations" / "00000000-0000-4000-8000-000000000000.db"
    broken.write_bytes(b"not a database")  # unreadable: its problem comes from the reads too
    alone = fingerprint_paths([home])
    reads = fingerprint.Reads()
    product = layout.product_of(home)  # as a sweep knows each session's
    for db in sorted(home.glob("conversations/*.db")):
        reads.add(read_database(db), product=product)
    for brain in sorted(home.glob("brain/*")):
        reads.add_brain(brain, product)
    monkeypatch.setattr(databases, "read_database", lambda path: pytest.fail(f"{path} read again"))
    monkeypatch.setattr(transcript, "iter_transcript", lambda paths, tier: pytest.fail(f"{paths} read again"))
    shared = fingerprint_paths([home], read=reads)
    assert shared.fingerprints == alone.fingerprints and shared.problems == alone.problems
    assert shared.counts == alone.counts and alone.counts.databases == 5 and len(alone.problems) == 1


def test_sidecars_read_elsewhere_are_not_read_again_and_give_the_same_survey(tmp_path, monkeypatch):
    from audit.store import sidecar

    home = build_store(tmp_path / "home", unknown_fields=True)
    sidecars = sorted(home.glob("conversations/*.trajectory.json"))
    (home / "conversations" / "00000000-0000-4000-8000-000000000000.trajectory.json").write_bytes(b'{"a": 1, "a": 2}')
    alone = fingerprint_paths([home])  # the duplicate key: fine for the fingerprint's Go semantics, refused by sidecar.read
    reads = fingerprint.Reads()
    for path in sidecars:
        got = sidecar.read(path)
        assert got is not None
        reads.add_sidecar(path, got.document)
    real = fingerprint_sidecar.read_bytes
    read_again: list[str] = []
    monkeypatch.setattr(
        fingerprint_sidecar, "read_bytes", lambda path, **kw: read_again.append(Path(path).name) or real(path, **kw)
    )
    shared = fingerprint_paths([home], read=reads)
    assert shared.fingerprints == alone.fingerprints and shared.counts == alone.counts and alone.counts.sessions == 5
    assert read_again == ["00000000-0000-4000-8000-000000000000.trajectory.json"]
    # a sidecar added that the survey does not list: every sidecar is read again, none counted twice
    stray = tmp_path / "elsewhere.trajectory.json"
    stray.write_text('{"steps": [], "extra": true}')
    reads = fingerprint.Reads()
    reads.add_sidecar(stray, {"steps": [], "extra": True})
    read_again.clear()
    assert fingerprint_paths([home], read=reads).fingerprints == alone.fingerprints and len(read_again) == 5


def test_the_shape_walk_does_not_keep_the_document():
    from audit.checks.shape import SidecarShape

    shape = SidecarShape()
    document = {"metadata": {"a": 1}, "steps": [{"type": "X"}]}
    shape.add_parsed(document)
    shape.add_parsed(dict(document))  # the same document again: the same lines, walked again
    root = shape._walker.root("")
    assert root.last is None and root.last_json is None
    assert shape.documents == 2 and "steps.[].type\tstring" in shape.lines()


def test_records_per_value_are_counted_per_product_alike_from_a_home_and_its_sweep(tmp_path):
    """A home's roots and its sweep's ``native/<product>/`` give the same counts per product,
    which a recorded baseline keeps (``counts.valuesByProduct``); a baseline whose counts are
    not records per value is refused in one line."""
    from audit.actions import baseline_writer
    from audit.checks import baselines

    b = StoreBuilder(tmp_path / "home", seed=3)
    b.root("cli").conversation(turns=2)
    b.root("ide").conversation(turns=1)
    home = tmp_path / "home"
    assert sweep(layout.resolve_roots(home=home, env={}), tmp_path / "corpus", source="native", env={}).complete
    alone, swept = fingerprint_paths([home]), fingerprint_paths([tmp_path / "corpus"])
    assert swept.counts.products == alone.counts.products and set(alone.counts.products) == {"cli", "ide"}
    assert alone.counts.products["ide"]["transcript:full.type"] == {"USER_INPUT": 1, "PLANNER_RESPONSE": 2, "RUN_COMMAND": 1}
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", swept, "2026-12-01"), tmp_path / "fp")
    recorded = baselines.load(tmp_path / "fp" / "agy-9.9.9")
    assert recorded.product_counts == swept.counts.to_json()["valuesByProduct"] and recorded.product_counts["cli"]
    doc = json.loads((tmp_path / "fp" / "agy-9.9.9" / "baseline.json").read_text())
    doc["counts"]["valuesByProduct"]["cli"]["transcript:full.type"]["USER_INPUT"] = "1"
    (tmp_path / "fp" / "agy-9.9.9" / "baseline.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match=r"baseline.json: 'counts' is not an object whose 'values' \(and each product's"):
        baselines.load(tmp_path / "fp" / "agy-9.9.9")
