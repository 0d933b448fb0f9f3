from __future__ import annotations

from collections import Counter

import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.store import wire
from audit.store.proto import cortex_pb2 as pb
from audit.store.wire import WireError, WireField

# codeburn tests/fixtures/antigravity-cli-current/gen-metadata.json, row idx 0 (docs/store-format.md#generator-metadata)
CODEBURN_GEN_METADATA = bytes.fromhex(
    "120202032213666978747572652d63757272656e742d636c690ace01222508f80710b9ec0118da05301848930550"
    "475a12666978747572652d726573706f6e73652d319a011267656d696e692d70726f2d64656661756c74a201230a"
    "0d7472616a6563746f72795f69641212666978747572652d7472616a6563746f7279a201140a0b757365645f636c"
    "61756465120566616c7365a201140a0f6c6173745f737465705f696e646578120132a201230a0a6d6f64656c5f65"
    "6e756d12154d4f44454c5f504c414345484f4c4445525f4d3136aa011547656d696e6920332e312050726f202848"
    "69676829"
)
CODEBURN_GEN_METADATA_JSON = {
    "stepIndices": [2, 3],
    "executionId": "fixture-current-cli",
    "chatModel": {
        "usage": {
            "model": "MODEL_PLACEHOLDER_M16",
            "inputTokens": "30265",
            "outputTokens": "730",
            "apiProvider": "API_PROVIDER_GOOGLE_GEMINI",
            "thinkingOutputTokens": "659",
            "responseOutputTokens": "71",
            "responseId": "fixture-response-1",
        },
        "responseModel": "gemini-pro-default",
        "attributes": [
            {"key": "trajectory_id", "value": "fixture-trajectory"},
            {"key": "used_claude", "value": "false"},
            {"key": "last_step_index", "value": "2"},
            {"key": "model_enum", "value": "MODEL_PLACEHOLDER_M16"},
        ],
        "displayName": "Gemini 3.1 Pro (High)",
    },
}
"""Its proto3 JSON (docs/store-format.md#generator-metadata), as MessageToDict and the offline decoder write it."""


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, wire_type: int, value: int | bytes) -> bytes:
    key = _varint(number << 3 | wire_type)
    if wire_type == wire.VARINT:
        return key + _varint(value)
    if wire_type == wire.I64:
        return key + value.to_bytes(8, "little")
    if wire_type == wire.I32:
        return key + value.to_bytes(4, "little")
    return key + _varint(len(value)) + value


def _tree(fields: tuple[WireField, ...]) -> list:
    return [(f.number, f.kind, _tree(f.children) if f.children is not None else f.value) for f in fields]


def test_codeburn_gen_metadata_walks_to_the_documented_fields():
    kv = lambda key, value: (20, "len", [(1, "len", key), (2, "len", value)])  # noqa: E731
    assert _tree(wire.parse(CODEBURN_GEN_METADATA)) == [
        (2, "len", b"\x02\x03"),  # packed step indices [2, 3]; field 0 is invalid, so not a message
        (4, "len", b"fixture-current-cli"),
        (
            1,
            "len",
            [
                (
                    4,
                    "len",
                    [
                        (1, "varint", 1016),
                        (2, "varint", 30265),
                        (3, "varint", 730),
                        (6, "varint", 24),
                        (9, "varint", 659),
                        (10, "varint", 71),
                        (11, "len", b"fixture-response-1"),
                    ],
                ),
                (19, "len", b"gemini-pro-default"),
                kv(b"trajectory_id", b"fixture-trajectory"),
                kv(b"used_claude", b"false"),
                kv(b"last_step_index", b"2"),
                kv(b"model_enum", b"MODEL_PLACEHOLDER_M16"),
                (21, "len", b"Gemini 3.1 Pro (High)"),
            ],
        ),
    ]


def test_codeburn_gen_metadata_decodes_with_the_schema():
    message = pb.CortexStepGeneratorMetadata.FromString(CODEBURN_GEN_METADATA)
    assert json_format.MessageToDict(message) == CODEBURN_GEN_METADATA_JSON
    # ChatModelMetadata field 20 (key/value attributes, docs/store-format.md#generator-metadata) is decoded.
    assert wire.unknown_fields(message) == Counter()


def test_every_prefix_of_a_message_parses_exactly_at_field_boundaries():
    top = wire.parse(CODEBURN_GEN_METADATA)
    boundaries, end = {0: ()}, 0
    for i, f in enumerate(top):
        end += len(_field(f.number, f.wire_type, f.value))
        boundaries[end] = top[: i + 1]
    assert end == len(CODEBURN_GEN_METADATA)
    for cut in range(len(CODEBURN_GEN_METADATA) + 1):
        if cut in boundaries:
            assert wire.parse(CODEBURN_GEN_METADATA[:cut]) == boundaries[cut]
        else:
            with pytest.raises(WireError):
                wire.parse(CODEBURN_GEN_METADATA[:cut])


_scalar_fields = st.one_of(
    st.tuples(st.integers(1, 2**29 - 1), st.just(wire.VARINT), st.integers(0, 2**64 - 1)),
    st.tuples(st.integers(1, 2**29 - 1), st.just(wire.I64), st.integers(0, 2**64 - 1)),
    st.tuples(st.integers(1, 2**29 - 1), st.just(wire.I32), st.integers(0, 2**32 - 1)),
    st.tuples(st.integers(1, 2**29 - 1), st.just(wire.LEN), st.binary(max_size=40)),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_scalar_fields, max_size=12))
def test_encoded_fields_come_back_in_order(fields):
    data = b"".join(_field(*f) for f in fields)
    assert [(f.number, f.wire_type, f.value) for f in wire.parse(data)] == fields


@settings(max_examples=200, deadline=None)
@given(st.lists(_scalar_fields, max_size=5), st.lists(_scalar_fields, min_size=1, max_size=5))
def test_a_len_field_holding_a_message_gets_children(before, inner):
    nested = b"".join(_field(*f) for f in inner)
    data = b"".join(_field(*f) for f in before) + _field(7, wire.LEN, nested)
    last = wire.parse(data)[-1]
    assert (last.number, last.value) == (7, nested)
    assert [(f.number, f.wire_type, f.value) for f in last.children] == inner


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_raise_nothing_but_wire_error(data):
    try:
        fields = wire.parse(data)
    except WireError:
        return
    assert all(isinstance(f, WireField) for f in fields)


@settings(max_examples=300, deadline=None)
@given(st.binary(min_size=1, max_size=200), st.data())
def test_truncated_and_mutated_blobs_raise_nothing_but_wire_error(data, draw):
    blob = CODEBURN_GEN_METADATA[: draw.draw(st.integers(0, len(CODEBURN_GEN_METADATA)))]
    position = draw.draw(st.integers(0, len(blob)))
    for candidate in (blob, blob[:position] + data + blob[position:]):
        try:
            wire.parse(candidate)
        except WireError:
            pass


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"\x00\x01", "invalid field number 0"),
        (b"\x0b", "unsupported wire type 3"),
        (b"\x0e", "unsupported wire type 6"),
        (b"\x0f", "unsupported wire type 7"),
        (b"\x08" + b"\xff" * 10 + b"\x01", "varint longer than 10 bytes"),
        (b"\x08" + b"\xff" * 9 + b"\x7f", "varint longer than 64 bits"),
        (b"\x08\x80", "truncated varint"),
        (b"\x09\x01\x02", "truncated fixed-width field 1"),
        (b"\x0a\x05ab", "field 1 claims 5 bytes, 2 remain"),
        (_varint(2**29 << 3) + b"\x01", "invalid field number 536870912"),
    ],
)
def test_malformed_input_is_named(data, reason):
    with pytest.raises(WireError, match=reason):
        wire.parse(data)


def test_maximum_field_number_and_64_bit_varint_are_accepted():
    data = _field(2**29 - 1, wire.VARINT, 2**64 - 1)
    assert wire.parse(data) == (WireField(2**29 - 1, wire.VARINT, 2**64 - 1),)


def _nest(levels: int) -> bytes:
    data = _field(1, wire.VARINT, 5)
    for _ in range(levels):
        data = _field(1, wire.LEN, data)
    return data


def _depth(fields: tuple[WireField, ...] | None) -> int:
    return 0 if fields is None else 1 + max((_depth(f.children) for f in fields), default=0)


def test_nesting_is_walked_down_to_max_depth_only():
    assert _depth(wire.parse(_nest(10))) == 11
    assert _depth(wire.parse(_nest(40))) == wire.MAX_DEPTH + 1
    assert _depth(wire.parse(_nest(40), max_depth=3)) == 4
    deepest = wire.parse(_nest(5), max_depth=2)[0].children[0].children[0]
    assert deepest.children is None and deepest.value == _nest(2)


def test_field_budget_bounds_the_walk_even_inside_nested_guesses():
    flat = b"".join(_field(1, wire.VARINT, i) for i in range(100))
    assert len(wire.parse(flat, max_fields=100)) == 100
    with pytest.raises(WireError, match="budget"):
        wire.parse(flat, max_fields=99)
    # The nested guess runs out of budget: that is an error, not "this len field is bytes".
    with pytest.raises(WireError, match="budget"):
        wire.parse(_field(2, wire.LEN, flat), max_fields=50)


def test_unknown_fields_are_reported_by_path_and_kind():
    call = pb.ChatToolCall(id="c1").SerializeToString() + _field(50, wire.LEN, b"x")
    planner = (
        pb.CortexStepPlannerResponse(response="hi").SerializeToString()
        + _field(7, wire.LEN, call) * 2
        + _field(99, wire.VARINT, 3)
        + _field(98, wire.I32, 1)
    )
    step_bytes = (
        _field(1, wire.VARINT, 250)  # a step type the enum does not name
        + _field(20, wire.LEN, planner)
        + _field(5, wire.LEN, _field(1, wire.LEN, _field(1, wire.VARINT, 1) + _field(3, wire.I64, 9)))
        + _field(999, wire.VARINT, 1)
        + _field(777, wire.LEN, b"opaque")
        + _field(778, wire.LEN, b"")  # an empty message, string or bytes: kind "empty"
    )
    step = pb.Step.FromString(step_bytes)
    assert wire.unknown_fields(step) == Counter(
        {
            "1:enum=250": 1,
            "20.7.50:len": 2,
            "20.99:varint": 1,
            "20.98:i32": 1,
            "5.1.3:i64": 1,  # inside the createdAt Timestamp
            "999:varint": 1,
            "777:len": 1,
            "778:empty": 1,
        }
    )
    assert json_format.MessageToDict(step)["type"] == 250


def test_a_field_with_the_wrong_wire_type_is_unknown_not_an_error():
    step = pb.Step.FromString(_field(1, wire.LEN, b"A") + _field(4, wire.VARINT, 3))
    assert (step.type, step.status) == (0, pb.CORTEX_STEP_STATUS_DONE)
    assert wire.unknown_fields(step) == Counter({"1:len": 1})


def test_known_messages_report_nothing():
    generic = pb.CortexStepGeneric(args={"Message": "hi"}, result=pb.GenericStepResult(metadata={"k": "v"}))
    step = pb.Step(type=pb.CORTEX_STEP_TYPE_USER_INPUT, generic=generic)
    step.metadata.tool_call.name = "x"
    assert wire.unknown_fields(pb.Step.FromString(step.SerializeToString())) == Counter()
