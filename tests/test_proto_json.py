"""``audit.store.proto_json`` writes what ``json_format.MessageToDict`` writes (timestamps at nine
digits) and counts what ``wire.unknown_fields`` counts, on every message the builder writes and on
the corner cases of proto3 JSON."""

from __future__ import annotations

import re
import sqlite3
from collections import Counter

import pytest
from google.protobuf import json_format
from google.protobuf.message import Message

from audit.store import proto_json
from audit.store.proto import cortex_pb2 as pb
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


@pytest.mark.parametrize(("seconds", "nanos"), [(253402300800, 0), (-62135596801, 0), (0, -1), (0, 10**9)])
def test_a_timestamp_proto3_json_cannot_hold_is_refused(seconds, nanos):
    meta = pb.CortexStepMetadata()
    meta.created_at.seconds, meta.created_at.nanos = seconds, nanos
    with pytest.raises(proto_json.RenderError, match="Timestamp is not valid"):
        proto_json.render(meta)
    with pytest.raises(json_format.Error):
        json_format.MessageToDict(meta)
