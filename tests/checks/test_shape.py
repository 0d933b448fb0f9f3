"""Shape fingerprints: agy-reader's documented vectors, edge cases and order/envelope properties."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.checks.baselines import parse_snapshot
from audit.checks.shape import (
    OPAQUE_PATHS,
    SidecarShape,
    TranscriptShape,
    _same_value,
    digest_lines,
    is_volatile,
    parse_document,
    sidecar_lines,
    snapshot_text,
)
from audit.errors import InputError

DATA = Path(__file__).resolve().parents[1] / "data"  # vendored reference data (tests/data/README.md)
UUID = "0f8fad5b-d9cb-469f-a165-70867728950e"
EMPTY = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def lines_of(*docs: object) -> tuple[str, ...]:
    """Lines via the fast path (serialised and parsed) and via add(); both must agree."""
    fast = SidecarShape()
    for doc in docs:
        fast.add_json(json.dumps(doc))
    assert fast.lines() == sidecar_lines(docs)
    return fast.lines()


# ----------------------------------------------------------------------------- agy-reader d.5 / k.1-11


def test_basic_nesting_and_every_type_tag():
    shape = SidecarShape()
    shape.add_json(b'{"a":"x","b":{"c":1,"d":true},"e":null}')
    assert shape.lines() == ("\tobject", "a\tstring", "b\tobject", "b.c\tnumber", "b.d\tboolean", "e\tnull")
    assert shape.digest() == "sha256:2a81295ea47ea0d9551d7ebb22fead2b3f5bfbc9c6bb8eca4cabe22f5db3f7d0"


def test_heterogeneous_array_is_one_path_with_a_union():
    assert lines_of({"xs": [1, "two", {"k": True}, None]}) == (
        "\tobject",
        "xs\tarray",
        "xs.[]\tnull|number|object|string",
        "xs.[].k\tboolean",
    )


def test_optional_field_and_null_union_in_any_document_order():
    a, b = {"step": {"a": "x", "b": "present"}}, {"step": {"a": None}}
    expected = ("\tobject", "step\tobject", "step.a\tnull|string", "step.b\tstring")
    assert lines_of(a, b) == lines_of(b, a) == expected


def test_volatile_keys_become_a_star():
    doc = {
        "m": {
            "file:///home/u/proj": "a",
            "file:///other/repo": "b",
            UUID: "c",
            "12345": "d",
            "deadbeefdeadbeef": "e",
            "realField": "f",
        }
    }
    assert lines_of(doc) == ("\tobject", "m\tobject", "m.*\tstring", "m.realField\tstring")


@pytest.mark.parametrize("opaque", sorted(OPAQUE_PATHS))
def test_opaque_leaf_recorded_interior_not_walked_sibling_kept(opaque):
    def build(inner: object) -> dict:
        parts = opaque.split(".")
        node: object = {"deep": inner, "more": [1, 2]}
        for part in reversed(parts):
            node = [node] if part == "[]" else {part: node}
        doc = node
        # a non-opaque sibling next to the opaque leaf
        target = doc
        for part in parts[:-1]:
            target = target[0] if part == "[]" else target[part]
        target["sibling"] = {"kept": True}
        return doc

    lines = lines_of(build("x"))
    assert f"{opaque}\tobject" in lines
    assert not any(line.startswith(opaque + ".") for line in lines)
    parent = opaque.rpartition(".")[0]
    assert (f"{parent}.sibling.kept" if parent else "sibling.kept") + "\tboolean" in lines
    assert lines == lines_of(build({"anything": [{"at": "all"}]}))


def test_key_and_array_order_do_not_matter():
    a = {"a": 1, "b": [{"x": 1}, "s", {"y": None}], "c": {"d": True, "e": "f"}}
    b = {"c": {"e": "f", "d": True}, "b": [{"y": None}, "s", {"x": 1}], "a": 1}
    assert lines_of(a) == lines_of(b)


def test_envelope_is_unwrapped_only_when_it_is_the_only_key():
    doc = {"steps": [{"type": "T"}], "metadata": {"createdAt": "t"}}
    assert lines_of({"trajectory": doc}) == lines_of(doc)
    assert "trajectory.steps\tarray" in lines_of({"trajectory": doc, "x": 1})
    assert lines_of({"trajectory": {"trajectory": doc}}) == lines_of({"trajectory": doc})[:1] + tuple(
        "trajectory" + ("." + line if not line.startswith("\t") else line) for line in lines_of(doc)
    )


def test_agy_reader_block_never_matters_at_the_root_but_is_walked_elsewhere():
    doc = {"cascadeId": UUID}
    assert lines_of(doc) == lines_of(doc | {"agyReader": {"parentCascadeId": UUID, "x": [1, {"y": 2}]}})
    assert lines_of({"trajectory": doc | {"agyReader": "not an object"}}) == lines_of(doc)
    assert "metadata.agyReader.p\tstring" in lines_of({"metadata": {"agyReader": {"p": "q"}}})


def test_digest_format_and_empty_input():
    assert SidecarShape().lines() == ()
    assert SidecarShape().digest() == EMPTY == digest_lines(())
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest_lines(lines_of({"a": 1})))
    assert snapshot_text(()) == "" and snapshot_text(("a\tb", "c\td")) == "a\tb\nc\td\n"


@pytest.mark.parametrize("bad", [b"{", b"", b"[1,]", b'{"a": NaN}', b"\xef\xbb\xbf{}", b'{"a": "\xff"}', b"[" * 100000])
def test_invalid_json_is_an_input_error_naming_the_source(bad):
    with pytest.raises(InputError, match="^doc.json: "):
        SidecarShape().add_json(bad, "doc.json")


# ----------------------------------------------------------------------------- k.13 and our own edges


@pytest.mark.parametrize(
    ("key", "volatile"),
    [
        ("12345\n", False),  # Python's `$` would match before the newline; Go's (and fullmatch) does not
        (UUID + "\n", False),
        ("deadbeefdeadbeef\n", False),
        ("DEADBEEFDEADBEEF", False),  # only lower-case hex is volatile
        ("deadbeefdeadbee", False),  # 15 characters
        ("deadbeefdeadbeef", True),
        (UUID.upper(), True),
        ("{" + UUID + "}", False),
        ("file:x", True),
        ("a/b", True),
        ("0", True),
        ("", False),
        ("١٢٣", False),  # non-ASCII digits are not [0-9]
        ("realField", False),
    ],
)
def test_volatile_key_rule(key, volatile):
    assert is_volatile(key) is volatile


def test_key_with_a_dot_collides_with_nesting_and_lines_merge():
    assert lines_of({"a.b": 1, "a": {"b": "s"}}) == ("\tobject", "a\tobject", "a.b\tnumber|string")
    assert lines_of({"m": {"*": 1, "12": "x"}}) == ("\tobject", "m\tobject", "m.*\tnumber|string")


def test_root_array_and_scalar_roots():
    assert lines_of([1, {"a": None}]) == ("\tarray", "[]\tnumber|object", "[].a\tnull")
    assert lines_of("s", 1) == ("\tnumber|string",)


def test_big_numbers_and_lone_surrogates_follow_go():
    shape = SidecarShape()
    shape.add_json(b'{"n": 1' + b"0" * 5000 + b"}")
    assert shape.lines() == ("\tobject", "n\tnumber")
    shape = SidecarShape()
    shape.add_json('{"\\ud800": 1, "\\udc00": "x"}')
    assert shape.lines() == ("\tobject", "\ufffd\tnumber|string")


def test_equal_lone_objects_are_skipped_but_a_number_never_equals_a_boolean():
    shape = SidecarShape()
    for doc in ('{"c": {"a": true}}', '{"c": {"a": 1}}', '{"c": {"a": 1.0}}', '{"c": {"a": true}}'):
        shape.add_json(doc)
    assert shape.lines() == ("\tobject", "c\tobject", "c.a\tboolean|number")


def test_invoke_subagent_fixture():
    shape = SidecarShape()
    shape.add_json((DATA / "agy-reader_invoke_subagent.trajectory.json").read_bytes())
    lines = shape.lines()
    assert len(lines) == 25
    assert shape.digest() == "sha256:4363eb5216155a994dfd9e08e6431be910df1b336d095367dcdedc1663ba7f2c"
    assert "steps.[].metadata.internalMetadata\tobject" in lines
    assert not any(line.startswith("steps.[].metadata.internalMetadata.") for line in lines)


@pytest.mark.parametrize(
    ("name", "digest", "count"),
    [
        ("agy-1.2.5", "sha256:70e2c9386e88420d834beab7a4c917514bcf7b2cf9f74674bde02965601e0462", 1629),
        ("agy-1.2.10", "sha256:3acca61c897bdec898292c1646090faf1913781f0a4d11ca389bc043ba4ec92a", 1736),
    ],
)
def test_published_snapshots_re_digest(name, digest, count):
    data = (DATA / f"{name}-sidecar-shape.tsv").read_bytes()
    lines = parse_snapshot(data, name)
    assert len(lines) == count
    assert digest_lines(lines) == digest
    assert snapshot_text(lines).encode() == data


def test_a_document_holding_every_published_path_reproduces_the_snapshot():
    lines = parse_snapshot((DATA / "agy-1.2.10-sidecar-shape.tsv").read_bytes(), "tsv")
    kinds = dict(line.split("\t") for line in lines)
    values = {"string": "s", "number": 1, "boolean": True, "null": None}

    def build(path: str) -> object:
        kind = kinds[path]
        prefix = path + "." if path else ""
        if kind == "object":
            children = [p for p in kinds if p.startswith(prefix) and p != path and "." not in p[len(prefix) :]]
            return {("file:///x" if c[len(prefix) :] == "*" else c[len(prefix) :]): build(c) for c in children}
        if kind == "array":
            return [build(prefix + "[]")] if prefix + "[]" in kinds else []
        return values[kind]

    assert lines_of(build("")) == lines


# ----------------------------------------------------------------------------- properties

_keys = st.sampled_from(
    ["a", "b", "c", "type", "steps", "generic", "metadata", "agyReader", "trajectory", "12", UUID, "file:///p", "x.y", "*"]
)
_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=3)
)
_json = st.recursive(
    _scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_keys, inner, max_size=4)), max_leaves=20
)
_docs = st.lists(st.dictionaries(_keys, _json, max_size=5), min_size=1, max_size=4)


def _shuffled(value: object, rng: random.Random) -> object:
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        return {k: _shuffled(v, rng) for k, v in items}
    if isinstance(value, list):
        items = [_shuffled(v, rng) for v in value]
        rng.shuffle(items)
        return items
    return value


@settings(max_examples=60, deadline=None)
@given(_docs, st.randoms(use_true_random=False))
def test_order_of_documents_keys_and_elements_never_matters(docs, rng):
    shuffled = [_shuffled(d, rng) for d in docs]
    rng.shuffle(shuffled)
    assert lines_of(*docs) == lines_of(*shuffled)


@settings(max_examples=60, deadline=None)
@given(_docs)
def test_the_envelope_never_matters(docs):
    bare = [d for d in docs if not (len(d) == 1 and "trajectory" in d)]
    assert lines_of(*bare) == lines_of(*({"trajectory": d} for d in bare))


@settings(max_examples=60, deadline=None)
@given(_docs, _json, _json)
def test_agy_reader_and_opaque_content_never_matter(docs, reader, inside):
    base = [{k: v for k, v in d.items() if k not in ("agyReader", "trajectory", "generatorMetadata", "steps")} for d in docs]
    extra = [d | {"agyReader": reader, "generatorMetadata": [inside], "steps": [{"generic": {"x": inside}}]} for d in base]
    plain = [d | {"generatorMetadata": [], "steps": [{"generic": {}}]} for d in base]
    assert lines_of(*extra) == lines_of(*plain)


def _swap_numbers_and_booleans(value: object) -> object:
    """true <-> 1, false <-> 0 everywhere: equal to *value* under ``==``, not the same JSON."""
    if isinstance(value, dict):
        return {k: _swap_numbers_and_booleans(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap_numbers_and_booleans(v) for v in value]
    if isinstance(value, bool):
        return int(value)
    if type(value) is int and value in (0, 1):
        return bool(value)
    return value


@settings(max_examples=80, deadline=None)
@given(_docs, _docs)
def test_orjson_path_and_go_fallback_give_the_same_lines(first, second):
    """add_json parses with orjson (1 == True there) and skips repeated lone objects; the
    fallback parses numbers as bytes. Repeats with numbers and booleans swapped must not hide a type."""
    docs = first + [_swap_numbers_and_booleans(d) for d in first] + second + first
    fast, slow = SidecarShape(), SidecarShape()
    for doc in docs:
        text = json.dumps(doc)
        fast.add_json(text)
        slow.add(parse_document(text, "x"), _same=_same_value)
    assert fast.lines() == slow.lines() == sidecar_lines(docs)


@settings(max_examples=50, deadline=None)
@given(_docs)
def test_digest_is_sha256_hex_of_the_lines(docs):
    shape = SidecarShape()
    for d in docs:
        shape.add(d)
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", shape.digest())
    assert shape.digest() == digest_lines(shape.lines())
    assert list(shape.lines()) == sorted(set(shape.lines()))


# ----------------------------------------------------------------------------- transcripts


def test_transcript_shape_per_type_tools_args_and_truncated_fields_without_content():
    shape = TranscriptShape()
    secret = "SECRET-CONTENT-7f3a"
    records = [
        {
            "step_index": 0,
            "source": "USER_EXPLICIT",
            "type": "USER_INPUT",
            "status": "DONE",
            "created_at": "2026-01-01T00:00:00Z",
            "content": secret,
        },
        {
            "step_index": 1,
            "source": "MODEL",
            "type": "PLANNER_RESPONSE",
            "status": "DONE",
            "created_at": "2026-01-01T00:00:01Z",
            "thinking": secret,
            "truncated_fields": ["content", "tool_calls"],
            "tool_calls": [
                {
                    "name": "run_command",
                    "args": {
                        "CommandLine": json.dumps(secret),
                        "WaitMsBeforeAsync": "500",
                        "Cwd": secret,
                        "Raw": 5,
                        "Obj": '{"k": 1}',
                    },
                },
                {"name": secret + " not a name", "args": {}},
            ],
        },
        {"content": secret},
    ]
    for record in records:
        shape.add(record, "compact")
    lines = [line.removeprefix("compact.") for line in shape.lines()]
    assert all(line.startswith("compact.") for line in shape.lines())
    assert not any(secret in line for line in lines)
    for expected in (
        "(none)\tobject",
        "(none).content\tstring",
        "USER_INPUT.content\tstring",
        "USER_INPUT.step_index\tnumber",
        "PLANNER_RESPONSE.thinking\tstring",
        "PLANNER_RESPONSE.tool_calls.[]\tobject",
        "PLANNER_RESPONSE.tool_calls.[].name\tstring",
        "PLANNER_RESPONSE.tool_calls.[run_command]\tobject",
        "PLANNER_RESPONSE.tool_calls.[run_command].args.CommandLine\tstring",
        "PLANNER_RESPONSE.tool_calls.[run_command].args.WaitMsBeforeAsync\tnumber",
        "PLANNER_RESPONSE.tool_calls.[run_command].args.Cwd\ttext",
        "PLANNER_RESPONSE.tool_calls.[run_command].args.Raw\traw-number",
        "PLANNER_RESPONSE.tool_calls.[run_command].args.Obj\tobject",
        "PLANNER_RESPONSE.tool_calls.[*]\tobject",
        "PLANNER_RESPONSE.truncated_fields.[]\tstring",
        "PLANNER_RESPONSE.truncated_fields.[content]\tstring",
        "PLANNER_RESPONSE.truncated_fields.[tool_calls]\tstring",
    ):
        assert expected in lines, expected
    assert not any(".args.CommandLine." in line or "tool_calls.[].args." in line for line in lines)


def test_transcript_shape_is_per_tier_and_types_args_as_each_tier_encodes_them():
    compact = {
        "type": "PLANNER_RESPONSE",
        "tool_calls": [
            {"name": "t", "args": {"N": "5000", "Cut": '"ab\n<truncated 9 bytes>\ncd"', "O": '{"a<truncated 3 bytes>'}}
        ],
    }
    full = {"type": "PLANNER_RESPONSE", "tool_calls": [{"name": "t", "args": {"N": 5000, "Cut": "abcd", "O": {"a": 1}}}]}
    shape = TranscriptShape()
    shape.add(compact, "compact")
    shape.add(compact, "overview")
    shape.add(full, "full")
    shape.add(full, None)  # a file of no known tier
    lines = set(shape.lines())
    for tier in ("compact", "overview"):
        assert {
            f"{tier}.PLANNER_RESPONSE.tool_calls.[t].args.{k}\t{v}"
            for k, v in (("N", "number"), ("Cut", "string"), ("O", "object"))
        } <= lines
    assert {
        f"full.PLANNER_RESPONSE.tool_calls.[t].args.{k}\t{v}" for k, v in (("N", "number"), ("Cut", "string"), ("O", "object"))
    } <= lines
    assert "other.PLANNER_RESPONSE.tool_calls.[t].args.N\traw-number" in lines
    # the same values in the other tier's encoding are drift in that tier only
    drifted = TranscriptShape()
    drifted.add(full, "compact")
    drifted.add(full, "full")
    assert "compact.PLANNER_RESPONSE.tool_calls.[t].args.N\traw-number" in drifted.lines()
    assert {line for line in drifted.lines() if line.startswith("full.")} == {line for line in lines if line.startswith("full.")}
