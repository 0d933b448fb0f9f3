"""``audit.store.proto_json`` writes what ``json_format.MessageToDict`` writes (timestamps at nine
digits) and counts what ``wire.unknown_fields`` counts, on every message the builder writes and on
the corner cases of proto3 JSON."""

from __future__ import annotations

import datetime as _dt
import re
import sqlite3
from collections import Counter

import pytest
from google.protobuf import duration_pb2, json_format, timestamp_pb2
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.store import proto_json
from audit.store.proto import cortex_pb2 as pb
from audit.store.proto_json import rendering, values
from audit.store.wire import unknown_fields
from audit.testing.sample import build

_FRACTION = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d+))?Z")


def reference(message: Message) -> dict:
    """MessageToDict with every Timestamp padded to nine digits (what sidecars carry)."""
    doc = json_format.MessageToDict(message)

    def pad(value: object) -> object:
        if isinstance(value, dict):
            return {k: pad(v) for k, v in value.items()}
        if isinstance(value, list):
            return [pad(v) for v in value]
        if isinstance(value, str) and (m := _FRACTION.fullmatch(value)):
            return f"{m[1]}.{(m[2] or '').ljust(9, '0')}Z"
        return value

    return pad(doc)  # type: ignore[return-value]


def same(message: Message) -> None:
    found: Counter[str] = Counter()
    mine = proto_json.render(message, found)
    ref = reference(message)
    assert mine == ref and list(mine) == list(ref)  # same values, same key order
    assert found == unknown_fields(message)


@pytest.fixture(scope="module")
def messages(tmp_path_factory):
    home = tmp_path_factory.mktemp("pj")
    build(home)
    found = []
    for db in sorted(home.glob(".gemini/*/conversations/*.db")):
        conn = sqlite3.connect(db)
        for column, cls in (("step_payload", pb.Step), ("metadata", pb.CortexStepMetadata)):
            for (blob,) in conn.execute(f"SELECT {column} FROM steps"):
                if blob:
                    found.append(cls.FromString(blob))
        for (blob,) in conn.execute("SELECT data FROM gen_metadata"):
            found.append(pb.CortexStepGeneratorMetadata.FromString(blob))
        conn.close()
    return found


def test_every_message_of_the_sample_renders_as_message_to_dict(messages):
    assert len(messages) > 200
    for message in messages:
        same(message)


def test_corner_cases_of_proto3_json():
    step = pb.Step()
    step.type = 9999  # a number the schema does not name
    step.metadata.created_at.seconds = 1_700_000_000  # no fraction: nine zeros
    step.planner_response.thinking_signature = b"\x00\xffsig"
    step.planner_response.thinking_duration.seconds = 1
    step.planner_response.thinking_duration.nanos = 500_000_000
    step.metadata.model_usage.response_header["x-id"] = "1"
    step.metadata.model_usage.input_tokens = 2**40  # int64 as a string
    step.metadata.model_usage.model = 77777  # unnamed enum inside a nested message
    step.MergeFromString(bytes([0xF8, 0x7C, 0x01]))  # unknown varint field 1999
    same(step)
    doc = proto_json.render(step)
    assert doc["type"] == 9999 and doc["metadata"]["createdAt"] == "2023-11-14T22:13:20.000000000Z"
    assert doc["plannerResponse"]["thinkingSignature"] == "AP9zaWc=" and doc["plannerResponse"]["thinkingDuration"] == "1.500s"


def test_unknown_fields_inside_a_timestamp_or_duration_are_counted_as_elsewhere():
    """A Timestamp or Duration is rendered as text, yet its unknown fields are counted under its path
    (they were skipped): both walks, as ``unknown_fields`` counts them."""
    step = pb.Step()
    step.metadata.created_at.seconds = 1_700_000_000
    step.metadata.created_at.MergeFromString(bytes([0xF8, 0x7C, 0x01]))  # 1999:varint inside the Timestamp
    step.planner_response.thinking_duration.seconds = 1
    step.planner_response.thinking_duration.MergeFromString(bytes([0x1A, 0x01, 0x78]))  # 3:len inside the Duration
    transition = step.metadata.internal_metadata.status_transitions.add()
    transition.timestamp.MergeFromString(bytes([0x1D, 1, 2, 3, 4]))  # 3:i32, in a Timestamp of a small message
    # metadata 5 > created_at 1; planner_response 20 > thinking_duration 11;
    # metadata 5 > internal_metadata 26 > status_transitions 1 > timestamp 2
    expected = Counter({"5.1.1999:varint": 1, "20.11.3:len": 1, "5.26.1.2.3:i32": 1})
    same(step)
    found: Counter[str] = Counter()
    assert proto_json.render(step, found) == reference(step)
    assert found == expected
    counted: Counter[str] = Counter()
    proto_json.render_counting(step, counted)
    assert counted == expected


@pytest.mark.parametrize(("seconds", "nanos"), [(253402300800, 0), (-62135596801, 0), (0, -1), (0, 10**9)])
def test_a_timestamp_proto3_json_cannot_hold_is_refused(seconds, nanos):
    meta = pb.CortexStepMetadata()
    meta.created_at.seconds, meta.created_at.nanos = seconds, nanos
    with pytest.raises(proto_json.RenderError, match="Timestamp is not valid"):
        proto_json.render(meta)
    with pytest.raises(json_format.Error):
        json_format.MessageToDict(meta)


def _deep_step() -> pb.Step:
    """A step whose tree nests messages three levels down (metadata.internalMetadata.statusTransitions)."""
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_PLANNER_RESPONSE)
    step.metadata.created_at.seconds = 1_700_000_000
    for seconds in (1_700_000_001, 1_700_000_002):
        transition = step.metadata.internal_metadata.status_transitions.add()
        transition.updated_status = pb.CORTEX_STEP_STATUS_DONE
        transition.timestamp.seconds = seconds
    step.planner_response.tool_calls.add(id="call-1", name="run_command")
    return step


def _unknown_deep(step: pb.Step) -> None:
    step.metadata.internal_metadata.status_transitions[1].MergeFromString(bytes([0xF8, 0x7C, 0x01]))  # 1999:varint


def _unknown_in_list(step: pb.Step) -> None:
    step.planner_response.tool_calls[0].MergeFromString(bytes([0x9A, 0x7D, 0x02, 0x08, 0x01]))  # 2003:len


def _unnamed_enum_deep(step: pb.Step) -> None:
    step.metadata.internal_metadata.status_transitions[0].updated_status = 4242  # type: ignore[assignment]


def _empty_unknowns(step: pb.Step) -> None:
    step.planner_response.MergeFromString(bytes([0x9A, 0x7D, 0x00, 0x9A, 0x7D, 0x01, 0x41]))  # 2003: empty, then 1 byte


@pytest.mark.parametrize("plant", [_unknown_deep, _unknown_in_list, _unnamed_enum_deep, _empty_unknowns])
def test_a_tree_with_something_to_count_is_walked_again_with_its_paths(plant):
    """The walk without bookkeeping refuses the tree (it would count nothing), and ``render``
    then gives exactly what the counting walk gives: same object, same key order, same counts."""
    step = _deep_step()
    plant(step)
    with pytest.raises((rendering._Counted, KeyError)):
        rendering._plain(step)
    found: Counter[str] = Counter()
    counted: Counter[str] = Counter()
    doc = proto_json.render(step, found)
    slow = proto_json.render_counting(step, counted)
    assert doc == slow and list(doc) == list(slow) and found == counted and found
    same(step)
    assert proto_json.render(step) == slow  # without a counter: the same object


def test_the_expected_counts_of_the_planted_trees():
    for plant, expected in (
        (_unknown_deep, {"5.26.1.1999:varint": 1}),
        (_unknown_in_list, {"20.7.2003:len": 1}),
        (_unnamed_enum_deep, {"5.26.1.1:enum=4242": 1}),
        (_empty_unknowns, {"20.2003:empty": 1, "20.2003:len": 1}),  # what carries nothing is told apart
    ):
        step = _deep_step()
        plant(step)
        found: Counter[str] = Counter()
        doc = proto_json.render(step, found)
        assert found == expected, plant.__name__
        transitions = doc["metadata"]["internalMetadata"]["statusTransitions"]
        assert transitions[0]["updatedStatus"] == (4242 if plant is _unnamed_enum_deep else "CORTEX_STEP_STATUS_DONE")


def test_a_tree_with_nothing_to_count_takes_the_walk_without_bookkeeping():
    step = _deep_step()
    assert rendering._plain(step) == proto_json.render_counting(step, Counter())
    found: Counter[str] = Counter()
    assert proto_json.render(step, found)["metadata"]["createdAt"] == "2023-11-14T22:13:20.000000000Z" and not found
    same(step)


@pytest.mark.parametrize("plant", [None, _unknown_deep, _unnamed_enum_deep])
def test_a_timestamp_out_of_range_deep_inside_is_refused_by_both_walks(plant):
    step = _deep_step()
    step.metadata.internal_metadata.status_transitions[1].timestamp.seconds = 253402300800
    if plant is not None:
        plant(step)
    messages = []
    for walk in (proto_json.render, proto_json.render_counting):
        with pytest.raises(proto_json.RenderError) as caught:
            walk(step, Counter())
        messages.append(str(caught.value))
    assert messages == ["Timestamp is not valid: seconds 253402300800 outside [-62135596800, 253402300799]"] * 2


def _formula(seconds: int, nanos: int) -> str:
    """The timestamp text from first principles: civil date of the Unix day, then the time of day."""
    days, rest = divmod(seconds, 86400)
    date = _dt.date(1970, 1, 1) + _dt.timedelta(days)
    hours, rest = divmod(rest, 3600)
    return f"{date.year:04d}-{date.month:02d}-{date.day:02d}T{hours:02d}:{rest // 60:02d}:{rest % 60:02d}.{nanos:09d}Z"


@settings(max_examples=300, deadline=None)
@given(st.integers(-62135596800, 253402300799), st.integers(0, 999_999_999))
def test_timestamps_are_formatted_as_the_calendar_says(seconds, nanos):
    assert values._timestamp(seconds, nanos) == _formula(seconds, nanos)
    assert values._timestamp(seconds, nanos) == _formula(seconds, nanos)  # from the cache of seconds


def test_the_cache_of_seconds_stays_bounded(monkeypatch):
    monkeypatch.setattr(values, "_SECONDS_KEPT", 3)
    monkeypatch.setattr(values, "_SECONDS", {})
    texts = [values._timestamp(s, 5) for s in (0, 1, 2, 3, 0, -1, 253402300799, -62135596800)]
    assert len(values._SECONDS) <= 3
    assert texts == [_formula(s, 5) for s in (0, 1, 2, 3, 0, -1, 253402300799, -62135596800)]
    assert texts[-2:] == ["9999-12-31T23:59:59.000000005Z", "0001-01-01T00:00:00.000000005Z"]


def test_a_timestamp_whose_second_is_known_is_still_checked():
    stamp = timestamp_pb2.Timestamp(seconds=1_700_000_000, nanos=7)
    assert [values._timestamp_of(stamp) for _ in range(2)] == ["2023-11-14T22:13:20.000000007Z"] * 2
    for nanos in (-1, 10**9):  # the second is cached: the nanos are checked all the same
        stamp.nanos = nanos
        with pytest.raises(proto_json.RenderError, match=f"nanos {nanos} outside"):
            values._timestamp_of(stamp)


@settings(max_examples=400, deadline=None)
@given(
    st.one_of(st.integers(0, 3), st.integers(0, 315_576_000_000), st.integers(-315_576_000_000, 0)),
    st.one_of(
        st.sampled_from([0, 1, 1_000, 500_000_000, 999_999_999, 10_000, 1_000_000]),
        st.integers(0, 999_999_999).map(lambda n: n - n % 1_000_000),
        st.integers(0, 999_999_999).map(lambda n: n - n % 1_000),
        st.integers(-999_999_999, 999_999_999),
    ),
)
def test_durations_are_written_as_protobuf_writes_them(seconds, nanos):
    duration = duration_pb2.Duration(seconds=seconds, nanos=nanos)
    try:
        expected = duration.ToJsonString()
    except ValueError as exc:  # a sign mismatch: refused with the same words
        with pytest.raises(proto_json.RenderError, match=re.escape(str(exc))):
            values._duration_of(duration)
        return
    assert values._duration_of(duration) == expected


@pytest.mark.parametrize("seconds", [315_576_000_001, -315_576_000_001])
def test_a_duration_out_of_range_is_refused_as_protobuf_refuses_it(seconds):
    with pytest.raises(proto_json.RenderError, match="Duration is not valid: Seconds"):
        values._duration_of(duration_pb2.Duration(seconds=seconds))


def _fill(message: Message, level: int = 0) -> Message:
    """Every field of *message* set to a value that is not its default (one item when repeated)."""
    for fd in message.DESCRIPTOR.fields:
        if fd.containing_oneof is not None and len(fd.containing_oneof.fields) > 1:
            continue
        if fd.message_type is not None:
            if fd.message_type.GetOptions().map_entry:
                continue
            held = getattr(message, fd.name).add() if fd.is_repeated else getattr(message, fd.name)
            if fd.message_type.full_name == "google.protobuf.Timestamp":
                held.seconds, held.nanos = 1_700_000_000, 5
            elif level < 2:
                _fill(held, level + 1)
            held.SetInParent()
            continue
        if fd.enum_type is not None:
            value: object = fd.enum_type.values[-1].number
        elif fd.type == fd.TYPE_STRING:
            value = "x"
        elif fd.type == fd.TYPE_BYTES:
            value = b"\x01"
        elif fd.type == fd.TYPE_BOOL:
            value = True
        else:
            value = 2**40 if fd.type in rendering._INT64 else 7
        if fd.is_repeated:
            getattr(message, fd.name).append(value)
        else:
            setattr(message, fd.name, value)
    return message


def _small_types() -> list:
    found = []
    for name in sorted(pb.DESCRIPTOR.message_types_by_name):
        walk = rendering._small_walk(pb.DESCRIPTOR.message_types_by_name[name])
        if walk is not None:
            found.append((getattr(pb, name), walk))
    return found


def test_small_message_types_get_a_compiled_walk_equal_to_listfields():
    """Every type that gets a compiled walk gives what the ``ListFields`` walk gives (keys in the
    same order): empty, with every field set, and with each field set to its default (a field
    with presence is then listed, an implicit one is not)."""
    small = _small_types()
    assert {cls.DESCRIPTOR.name for cls, _ in small} >= {"ModelAttribute", "StatusTransition", "SourceTrajectoryStepInfo"}
    for cls, walk in small:
        full = _fill(cls())
        cases = [cls(), full]
        for fd in cls.DESCRIPTOR.fields:
            if not fd.is_repeated and fd.message_type is None:
                one = cls()
                setattr(one, fd.name, getattr(cls(), fd.name))  # the default, set
                cases.append(one)
        for message in cases:
            expected = proto_json.render_counting(message, Counter())
            assert walk(message) == expected and list(walk(message)) == list(expected), cls.DESCRIPTOR.name
            same(message)


def test_a_compiled_walk_refuses_what_it_cannot_count():
    attribute = pb.ModelAttribute(key="k", value="v")
    attribute.MergeFromString(bytes([0xF8, 0x7C, 0x01]))
    transition = pb.StatusTransition(updated_status=4242)  # type: ignore[arg-type]
    with pytest.raises(rendering._Counted):
        rendering._small_walk(pb.ModelAttribute.DESCRIPTOR)(attribute)  # type: ignore[misc]
    with pytest.raises(KeyError):
        rendering._small_walk(pb.StatusTransition.DESCRIPTOR)(transition)  # type: ignore[misc]
    found: Counter[str] = Counter()
    assert proto_json.render(transition, found) == {"updatedStatus": 4242} and found == {"1:enum=4242": 1}
