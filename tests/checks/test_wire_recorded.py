"""The wire fingerprint from what decoding recorded (``reconstruct(conv, BlobFields())``) is the one
from parsing every blob again: planted unknown fields, non-canonical and invalid blobs, maps,
groups, merged and mismatching columns included; the recorded walk renders what ``render`` does."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from google.protobuf import json_format
from google.protobuf.unknown_fields import UnknownFieldSet
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.checks import fingerprint
from audit.checks.fingerprint import blobs
from audit.store import proto_json, wire
from audit.store.database import NativeConversation, read_database
from audit.store.proto import cortex_pb2 as pb
from audit.store.trajectory import BlobFields, reconstruct
from tests.store.test_proto_json import messages  # noqa: F401 -- the sample's messages (a fixture)
from tests.store.test_trajectory import _messages as step_messages
from tests.store.test_wire import _varint

RECORDED = ("none", "unknown", "unknown-timestamp")  # the plants whose blob is its own serialisation
PLANTS = (
    "none",  # the payload as serialised (recorded)
    "unknown",  # unknown fields after the payload's own (recorded)
    "unknown-deep",  # an unknown field inside the metadata sub-message, merged from a second copy of it
    "unknown-timestamp",  # an unknown field inside a Timestamp (render does not count it; the wire walk sees it; recorded)
    "group",  # an unknown group (the wire walk reports the blob as invalid)
    "duplicate",  # the type field twice (not its own serialisation)
    "default-first",  # a default value on the wire, out of order
    "truncated",  # not protobuf
    "type-from-column",  # the payload lacks its type: the column's is set into it
)
COLUMNS = ("copy", "differs", "absent", "null", "garbage")  # the steps.metadata cell


def _field(number: int, wire_type: int, payload: bytes = b"\x01") -> bytes:
    key = _varint(number << 3 | wire_type)
    if wire_type == wire.LEN:
        return key + _varint(len(payload)) + payload
    return key + {wire.VARINT: payload, wire.I64: b"\0" * 8, wire.I32: b"\0" * 4}.get(wire_type, b"")


_TYPE = pb.Step.DESCRIPTOR.fields_by_name["type"].number
_METADATA = pb.Step.DESCRIPTOR.fields_by_name["metadata"].number


def _payload(step: pb.Step, plant: str) -> bytes:
    data = step.SerializeToString()
    if plant == "unknown":
        return data + _field(999, wire.VARINT) + _field(998, wire.LEN, b"\x08\x01")
    if plant == "unknown-deep":
        inner = step.metadata.SerializeToString() + _field(997, wire.I32)
        return data + _field(_METADATA, wire.LEN, inner)  # merged into metadata by the parse; not canonical
    if plant == "unknown-timestamp":
        changed = pb.Step()
        changed.CopyFrom(step)
        changed.metadata.created_at.MergeFromString(_field(996, wire.VARINT))
        return changed.SerializeToString()  # its own serialisation, an unknown field two levels down
    if plant == "group":
        return data + _field(77, 3) + _field(77, 4)
    if plant == "duplicate":
        return data + _field(_TYPE, wire.VARINT, b"\x05")
    if plant == "default-first":
        return _field(_TYPE, wire.VARINT, b"\x00") + data
    if plant == "truncated":
        return data[:-1] if len(data) > 1 else b"\xff\xff"
    if plant == "type-from-column":
        changed = pb.Step()
        changed.CopyFrom(step)
        changed.ClearField("type")
        return changed.SerializeToString()
    return data


def _row(idx: int, step: pb.Step, plant: str, column: str) -> dict[str, object]:
    payload = _payload(step, plant)
    parsed = pb.Step()
    try:
        parsed.ParseFromString(payload)
    except Exception:  # noqa: BLE001 -- any parse failure: the column is judged against nothing
        parsed = pb.Step()
    metadata: object = None
    if column == "copy" and parsed.HasField("metadata"):
        metadata = parsed.metadata.SerializeToString()
    elif column in ("differs", "copy", "absent"):
        other = pb.CortexStepMetadata()
        other.created_at.seconds = 12345
        metadata = other.SerializeToString()
    elif column == "garbage":
        metadata = b"\x0a\x05ab"
    step_type = (step.type or 15) if plant == "type-from-column" else step.type
    row: dict[str, object] = {"idx": idx, "step_type": step_type, "status": step.status, "step_payload": payload}
    if column != "null":
        row["metadata"] = metadata
    return row


def _conv(tables: dict) -> NativeConversation:
    return NativeConversation(Path("/nonexistent/1b7e3c2a-9f4d-4e8b-a6c5-0d1e2f3a4b5c.db"), access="ro", tables=tables)


def _same_decoding(conv: NativeConversation) -> BlobFields:
    """Decoding with a recorder gives what it gives without one, and the wire observations from the
    record are those of parsing every blob."""
    fields = BlobFields()
    recorded, plain = reconstruct(conv, fields), reconstruct(conv)
    assert recorded.trajectory == plain.trajectory
    assert (recorded.unknown_fields, recorded.unknown_rows) == (plain.unknown_fields, plain.unknown_rows)
    assert recorded.findings == plain.findings
    assert set(fingerprint.wire_observations(conv, fields)) == set(fingerprint.wire_observations(conv))
    return fields


def _with_metadata(doc: dict) -> pb.Step:
    step = json_format.ParseDict(doc, pb.Step())
    step.metadata.created_at.seconds = 1_700_000_000  # every plant has a metadata sub-message to work on
    step.metadata.created_at.nanos = 5
    return step


def _has_map(message) -> bool:
    for fd, value in message.ListFields():
        if fd.message_type is not None:
            if fd.message_type.GetOptions().map_entry:
                return True
            if any(_has_map(item) for item in (value if fd.is_repeated else (value,))):
                return True
    return False


_STEPS = step_messages(pb.Step.DESCRIPTOR)


@settings(max_examples=120, deadline=None)
@given(
    rows=st.lists(st.tuples(_STEPS, st.sampled_from(PLANTS), st.sampled_from(COLUMNS)), min_size=1, max_size=4),
    gen=st.lists(st.tuples(step_messages(pb.CortexStepGeneratorMetadata.DESCRIPTOR), st.booleans()), max_size=2),
)
def test_the_record_observes_what_parsing_every_blob_observes(rows, gen):
    steps = [_with_metadata(doc) for doc, _, _ in rows]
    step_rows = [_row(i, step, plant, column) for i, (step, (_, plant, column)) in enumerate(zip(steps, rows))]
    gen_rows = []
    for i, (doc, unknown) in enumerate(gen):
        data = json_format.ParseDict(doc, pb.CortexStepGeneratorMetadata()).SerializeToString()
        gen_rows.append({"idx": i, "data": data + (_field(999, wire.VARINT) if unknown else b"")})
    conv = _conv({"steps": step_rows, "gen_metadata": gen_rows})
    fields = _same_decoding(conv)
    for i, (step, (_, plant, column)) in enumerate(zip(steps, rows)):
        plain = plant in RECORDED and not _has_map(step)
        assert (("steps", i, "step_payload") in fields.cells) == plain, (plant, column)
        assert (("steps", i, "metadata") in fields.cells) == (plain and column == "copy")
    for i, (doc, _) in enumerate(gen):
        message = json_format.ParseDict(doc, pb.CortexStepGeneratorMetadata())
        assert (("gen_metadata", i, "data") in fields.cells) == (not _has_map(message))


def test_each_blob_the_record_cannot_vouch_for_is_parsed_and_the_rest_is_not():
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE, status=pb.CORTEX_STEP_STATUS_DONE)
    step.metadata.created_at.seconds = 5
    step.planner_response.response = "hi"
    rows = [_row(i, step, plant, "copy") for i, plant in enumerate(PLANTS)]
    rows.append({"idx": len(rows), "step_type": 15, "step_payload": None})  # NULL: rebuilt from the columns
    conv = _conv({"steps": rows})
    fields = _same_decoding(conv)
    recorded = [PLANTS.index(plant) for plant in RECORDED]
    assert fields.cells == {("steps", i, column) for i in recorded for column in ("step_payload", "metadata")}
    observed = set(fingerprint.wire_observations(conv, fields))
    scope = "steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE]"
    assert {
        (scope, "", "invalid"),  # the group, the truncated blob
        (scope, "999", "varint"),
        (scope, "998", "len"),
        (scope, "metadata.997", "i32"),
        (scope, "metadata.created_at.996", "varint"),
        ("steps.metadata", "created_at.seconds", "varint"),
        ("steps.metadata", "created_at.996", "varint"),  # a copy's unknown field, from the payload's record
    } <= observed


def test_a_copy_column_is_recorded_at_its_own_root_depth(monkeypatch):
    """A column that is a copy of the payload's field is walked from its own root: the wire walk's
    depth limit cuts it one level deeper than inside the payload."""
    monkeypatch.setattr(blobs, "MAX_DEPTH", 1)
    monkeypatch.setattr(blobs, "_ROOTS", {})  # nodes made under the patched depth
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE)
    step.metadata.created_at.seconds = 5  # seconds: two levels below the payload, one below the column
    conv = _conv({"steps": [_row(0, step, "none", "copy")]})
    fields = _same_decoding(conv)
    assert fields.cells == {("steps", 0, "step_payload"), ("steps", 0, "metadata")}
    observed = set(fingerprint.wire_observations(conv, fields))
    assert ("steps.metadata", "created_at.seconds", "varint") in observed
    scope = "steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE]"
    assert (scope, "metadata.created_at", "len") in observed
    assert (scope, "metadata.created_at.seconds", "varint") not in observed


def test_every_fixture_database_is_recorded_as_parsed():
    answered = blobs = 0
    for db in sorted(Path("examples/home").glob(".gemini/*/conversations/*.db")):
        conv = read_database(db)
        if not conv.access:
            continue
        fields = _same_decoding(conv)
        answered += len(fields.cells)
        blobs += sum(type(v) is bytes for rows in conv.tables.values() for row in rows for v in row.values())
    assert blobs and answered >= 0.9 * blobs, (answered, blobs)


# ----------------------------------------------------------------------------- the recording walk


def test_the_recording_walk_renders_what_render_does(messages):  # noqa: F811 -- the fixture
    """Same object, same key order; a message is refused only for what it holds that the walk does
    not record (a map), said to hold something to count exactly when one of its messages holds an
    unknown field or an unnamed enum number, and most are recorded."""
    recorded = 0
    for message in messages:
        sets = proto_json.FieldSets()
        try:
            doc, counted = proto_json.render_recorded(message, sets)
        except proto_json.Unrecorded:
            assert _has_map(message), message
            assert _snapshot(sets) == _snapshot(proto_json.FieldSets())
            continue
        assert counted == (_has_unknown(message) or bool(wire.unknown_fields(message)))
        recorded += 1
        expected = proto_json.render(message)
        assert doc == expected and list(doc) == list(expected)
        assert _snapshot(sets) == _snapshot(_listed(message, proto_json.FieldSets()))
    assert recorded >= 0.9 * len(messages) > 100, (recorded, len(messages))


@pytest.mark.parametrize(
    "plant",
    [
        lambda s: s.metadata.created_at.MergeFromString(_field(77, 3) + _field(77, 4)),  # a group in a Timestamp
        lambda s: s.planner_response.MergeFromString(_field(999, wire.LEN, b"x") + _field(78, 3) + _field(78, 4)),  # deeper
        lambda s: s.MergeFromString(_field(77, 3) + _field(77, 4)),  # a group
        lambda s: setattr(s.metadata.created_at, "seconds", 10**12),  # a Timestamp proto3 JSON cannot hold
    ],
)
def test_a_tree_the_walk_does_not_record_leaves_the_record_as_it_was(plant):
    recorded = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE)
    recorded.metadata.created_at.seconds = 7
    sets = proto_json.FieldSets()
    proto_json.render_recorded(recorded, sets)
    before = _snapshot(sets)
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE, status=pb.CORTEX_STEP_STATUS_DONE)
    step.metadata.created_at.seconds = 7
    step.metadata.created_at.nanos = 9  # new sets of fields at three paths before the planted one is met
    step.planner_response.response = "hi"
    plant(step)
    with pytest.raises(proto_json.Unrecorded):
        proto_json.render_recorded(step, sets)
    assert _snapshot(sets) == before


@pytest.mark.parametrize(
    ("plant", "counted"),
    [
        (lambda s: None, False),
        (lambda s: setattr(s, "status", 4242), True),  # an enum number the schema does not name
        (lambda s: s.metadata.internal_metadata.status_transitions.add(updated_status=4243), True),  # in a compiled walk
        (lambda s: s.metadata.created_at.MergeFromString(_field(999, wire.VARINT)), True),  # an unknown field in a Timestamp
        (lambda s: s.planner_response.MergeFromString(_field(999, wire.LEN, b"x")), True),  # deeper down
    ],
)
def test_what_render_counts_is_recorded_and_said(plant, counted):
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE)
    step.metadata.created_at.seconds = 7
    plant(step)
    sets = proto_json.FieldSets()
    doc, said = proto_json.render_recorded(step, sets)
    assert said == counted and _snapshot(sets) == _snapshot(_listed(step, proto_json.FieldSets()))
    assert doc == proto_json.render(step)
    conv = _conv({"steps": [{"idx": 0, "step_type": 15, "step_payload": step.SerializeToString(), "metadata": None}]})
    fields = _same_decoding(conv)
    assert fields.cells == {("steps", 0, "step_payload")}


def test_a_map_is_not_recorded():
    """A map's entries serialise their keys as upb chooses: its blob is left to the wire walk."""
    conv = _conv({"gen_metadata": [{"idx": 0, "data": _with_map(pb.CortexStepGeneratorMetadata.DESCRIPTOR)}]})
    fields = _same_decoding(conv)
    assert fields.cells == set()
    assert set(fingerprint.wire_observations(conv, fields)) == set(fingerprint.wire_observations(conv)) != set()


def _all_fields(descriptor, seen=None):
    seen = set() if seen is None else seen
    if descriptor.full_name in seen:
        return
    seen.add(descriptor.full_name)
    for fd in descriptor.fields:
        yield fd
        if fd.message_type is not None and not fd.message_type.GetOptions().map_entry:
            yield from _all_fields(fd.message_type, seen)


def _with_map(descriptor) -> bytes:
    """A message of *descriptor* with one entry in the first map field found below it."""
    from google.protobuf.message_factory import GetMessageClass

    def build(message, depth=0):
        for fd in message.DESCRIPTOR.fields:
            if fd.message_type is None:
                continue
            if fd.message_type.GetOptions().map_entry:
                getattr(message, fd.name)["k"] = "v" if fd.message_type.fields_by_name["value"].type == 9 else 1
                return True
            if depth < 6 and not fd.is_repeated and build(getattr(message, fd.name), depth + 1):
                return True
        return False

    message = GetMessageClass(descriptor)()
    assert build(message)
    return message.SerializeToString()


def _has_unknown(message) -> bool:
    if UnknownFieldSet(message):
        return True
    return any(
        _has_unknown(item)
        for fd, value in message.ListFields()
        if fd.message_type is not None
        for item in (value if fd.is_repeated else (value,))
    )


def _listed(message, sets: proto_json.FieldSets) -> proto_json.FieldSets:
    """The reference record: every message's ``ListFields`` descriptors and unknown fields, at its path."""
    listed = message.ListFields()
    sets.held.add(tuple(fd for fd, _ in listed))
    sets.unknown.update((uf.field_number, uf.wire_type) for uf in UnknownFieldSet(message))
    for fd, value in listed:
        if fd.type == fd.TYPE_MESSAGE:
            for item in value if fd.is_repeated else (value,):
                _listed(item, sets.below[fd])
    return sets


def _snapshot(sets: proto_json.FieldSets) -> dict:
    """What *sets* holds, without the empty ``FieldSets`` a walk leaves where it added nothing."""
    below = {fd.name: _snapshot(b) for fd, b in sets.below.items()}
    return {
        "held": frozenset(sets.held),
        "unknown": frozenset(sets.unknown),
        "below": {name: snap for name, snap in below.items() if snap["held"] or snap["unknown"] or snap["below"]},
    }


def test_the_record_of_a_conversation_is_what_its_counts_say():
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE)
    step.metadata.created_at.seconds = 5
    conv = _conv({"steps": [_row(0, step, "none", "copy"), _row(1, step, "none", "copy")]})
    fields = _same_decoding(conv)
    assert list(fields.trees) == [("steps", "step_payload", 15), ("steps", "metadata", 15)]
    (payloads,) = fields.trees["steps", "step_payload", 15]
    (copies,) = fields.trees["steps", "metadata", 15]
    metadata_fd = pb.Step.DESCRIPTOR.fields_by_name["metadata"]
    assert payloads.below[metadata_fd] is copies
    assert Counter(len(fds) for fds in payloads.held) == Counter({2: 1})  # type and metadata


@pytest.mark.parametrize("unknown", [False, True])
def test_a_sweep_asked_to_record_gives_the_corpus_survey_that_parses_every_blob(tmp_path, monkeypatch, unknown):
    """What ``ci`` does: the sweep records while it decodes (``on_selected`` answers True), ``Reads`` takes the
    record, and the survey is the one that reads and parses every ``.db`` again; only the blobs the
    record does not hold are parsed: none here, the builder's unknown fields included."""
    from audit.actions.sweep import sweep
    from audit.store.layout import Root
    from tests.checks.test_fingerprint import build_store

    store = build_store(tmp_path / "home", unknown_fields=unknown)
    reads, decoded = fingerprint.Reads(), []

    def swept(d):
        decoded.append(d.fields)
        reads.add(d.conv, d.fields)

    parsed = []
    real = blobs._blob_fields
    monkeypatch.setattr(blobs, "_blob_fields", lambda m, data: parsed.append(data) or real(m, data))
    out = tmp_path / "corpus"
    result = sweep([Root(store, "cli", True)], out, source="native", env={}, on_swept=swept, on_selected=lambda n: n == 4)
    assert result.complete and len(decoded) == 4 and all(isinstance(f, BlobFields) and f.cells for f in decoded)
    assert parsed == []
    monkeypatch.setattr(blobs, "_blob_fields", real)
    alone = fingerprint.fingerprint_paths([out])
    shared = fingerprint.fingerprint_paths([out], read=reads)
    assert shared.fingerprints == alone.fingerprints and shared.problems == alone.problems
    assert "wire" in alone.fingerprints
    paths = [line.split("\t")[0] for line in alone.fingerprints["wire"].lines]
    assert any(part.isdigit() for path in paths for part in path.split(".")) == unknown  # planted fields, by number
    without = []
    sweep([Root(store, "cli", True)], tmp_path / "plain", source="native", env={}, on_swept=lambda d: without.append(d.fields))
    assert without == [None] * 4  # a sweep not asked to records nothing


def test_step_type_cells_that_are_equal_keys_keep_their_own_scopes():
    """``15``, ``15.0`` and ``"15"`` are three scopes of the wire walk; ``1`` and ``True`` two."""
    planner = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE)
    planner.planner_response.response = "hi"
    other = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE, status=pb.CORTEX_STEP_STATUS_DONE)
    rows = [
        {"idx": i, "step_type": cell, "step_payload": step.SerializeToString()}
        for i, (cell, step) in enumerate(((15, planner), (15.0, other), ("15", other), (1, planner), (True, other)))
    ]
    conv = _conv({"steps": rows})
    fields = _same_decoding(conv)
    assert fields.cells == {("steps", 0, "step_payload"), ("steps", 3, "step_payload")}
    scopes = {scope for scope, _, _ in fingerprint.wire_observations(conv, fields)}
    assert len(scopes) == 5
