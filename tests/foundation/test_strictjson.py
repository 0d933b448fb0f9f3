import collections
import dataclasses
import datetime
import enum
import json
import re
import sys
import uuid

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit import strictjson
from audit.strictjson import JSONError, RawFloat

# ----------------------------------------------------------------------------- strict JSON


@pytest.mark.parametrize(
    ("data", "reason", "pointer"),
    [
        (b'{"a": 1, "a": 2}', "duplicate key 'a'", ""),
        (b'{"x": {"y": [{"k": 1}, {"k": 1, "k": 2}]}}', "duplicate key 'k'", "/x/y/1"),
        (b'{"a/b": {"c~d": {"z": 1, "z": 1}}}', "duplicate key 'z'", "/a~1b/c~0d"),
        (b'{"a": NaN}', "NaN is not valid JSON", None),
        (b'{"a": [Infinity]}', "Infinity is not valid JSON", None),
        (b'{"a": -Infinity}', "-Infinity is not valid JSON", None),
        (b"[1, 2]", "top level is array, not an object", ""),
        (b'"text"', "top level is string, not an object", ""),
        (b"null", "top level is null, not an object", ""),
        (b'{"ok": "x", "bad": "caf\xe9"}', "invalid UTF-8 at byte 23", "/bad"),
        (b'{"k\xff": 1}', "invalid UTF-8 at byte 3", "/k\udcff"),
        (b'\xef\xbb\xbf{"a": 1}', "starts with a byte-order mark", None),
        (b'{"a": 1', "invalid JSON at line 1 column 8: Expecting ',' delimiter", None),
    ],
)
def test_rejected_inputs_name_file_reason_and_pointer(data, reason, pointer):
    with pytest.raises(JSONError) as info:
        strictjson.loads(data, source="side.json")
    err = info.value
    assert err.source == "side.json"
    assert err.reason == reason
    assert err.pointer == pointer
    assert str(err).startswith("side.json: " + reason)
    assert err.exit_code == 2


def test_non_object_top_level_allowed_on_request():
    assert strictjson.loads(b"[1, 2]", require_object=False) == [1, 2]


@pytest.mark.parametrize("exact", [False, True])
def test_depth_is_bounded_without_recursion_error(exact):
    depth = strictjson.MAX_DEPTH + 1 if exact else 100_000
    data = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    with pytest.raises(JSONError) as info:
        strictjson.loads(data, source="deep.json", exact=exact)
    assert "nesting deeper than" in info.value.reason


def test_depth_at_limit_is_accepted():
    depth = strictjson.MAX_DEPTH - 1
    data = b'{"a":' + b"[" * depth + b"]" * depth + b"}"
    assert isinstance(strictjson.loads(data, exact=True), dict)


def test_exact_numbers_round_trip_texts():
    text = '{"big":123456789012345678901234567890123,"neg0":-0,"f":1.50,"e":1E+5,"inf":1e400,"small":-2.5e-7,"i":-42}'
    value = strictjson.loads(text.encode(), exact=True)
    assert value["big"] == 123456789012345678901234567890123
    assert isinstance(value["f"], RawFloat) and value["f"].text == "1.50"
    assert strictjson.dumps(value, indent=None) == text


def test_integers_longer_than_the_conversion_limit_survive():
    digits = "9" * 5000
    value = strictjson.loads(('{"n": %s}' % digits).encode(), exact=True)
    assert strictjson.dumps(value, indent=None) == '{"n":%s}' % digits
    # The fast path falls back to exact parsing instead of failing.
    assert strictjson.loads(('{"n": %s}' % digits).encode())["n"] == int(digits[:4000]) * 10**1000 + int(digits[4000:])


def test_dumps_matches_json_for_plain_values():
    value = {"a": [1, 2.5, None, True, False, 'é\n"q"'], "b": {}, "c": []}
    assert strictjson.dumps(value, indent=2) == json.dumps(value, indent=2, ensure_ascii=False)
    assert strictjson.dumps(value, indent=None) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))


_plain = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text()),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=25,
)


@settings(max_examples=200, deadline=None)
@given(_plain, st.sampled_from([None, 2, 4]), st.booleans())
def test_property_dumps_writes_what_json_dumps_writes_for_plain_values(value, indent, sort_keys):
    expected = json.dumps(
        value, indent=indent, sort_keys=sort_keys, ensure_ascii=False, separators=(",", ":") if indent is None else None
    )
    # except that what a terminal would act on, and lone surrogates, are \uXXXX escapes
    expected = _terminal_escaped(expected)
    assert strictjson.dumps(value, indent=indent, sort_keys=sort_keys) == expected
    assert json.loads(strictjson.dumps(value, indent=indent, sort_keys=sort_keys)) == value


_number_texts = st.one_of(
    st.integers().map(str),
    st.integers(min_value=-(10**60), max_value=10**60).map(str),
    st.builds(
        lambda i, f, e: f"{i}.{f}e{e}",
        st.integers(-999, 999),
        st.from_regex(r"[0-9]{1,20}", fullmatch=True),
        st.integers(-400, 400),
    ),
    st.builds(lambda i, f: f"{i}.{f}", st.integers(-(10**30), 10**30), st.from_regex(r"[0-9]{1,30}", fullmatch=True)),
)
_json_docs = st.recursive(
    st.one_of(st.none(), st.booleans(), st.text(max_size=20), _number_texts.map(lambda t: ("#num", t))),
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=30,
)


def _terminal_escaped(text: str) -> str:
    """json.dumps text with what dumps writes as \\uXXXX escapes instead: DEL, C1
    controls, line separators, bidirectional overrides and lone surrogates."""
    return re.sub("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]", lambda m: f"\\u{ord(m.group()):04x}", text)


def _render(node) -> str:
    if isinstance(node, tuple):
        return node[1]
    if isinstance(node, list):
        return "[" + ",".join(_render(n) for n in node) + "]"
    if isinstance(node, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + _render(v) for k, v in node.items()) + "}"
    return json.dumps(node, ensure_ascii=False)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=8), _json_docs, max_size=5))
def test_property_exact_round_trip_keeps_every_number_text(doc):
    text = _render(doc)
    value = strictjson.loads(text.encode(), exact=True)
    assert strictjson.dumps(value, indent=None) == _terminal_escaped(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_property_random_bytes_raise_only_json_errors(data):
    try:
        strictjson.loads(data, require_object=False)
    except JSONError:
        pass


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(min_size=1, max_size=5), st.integers(), min_size=1, max_size=5))
def test_property_any_duplicated_key_is_rejected(doc):
    key = next(iter(doc))
    body = ",".join(f"{json.dumps(k)}:{v}" for k, v in doc.items())
    data = ("{" + body + f",{json.dumps(key)}:0" + "}").encode()
    with pytest.raises(JSONError) as info:
        strictjson.loads(data)
    assert info.value.reason == f"duplicate key {key!r}"


_keys = st.one_of(st.sampled_from(["a", "b", "\\u0061", "\\ud800", "\\ud83d\\ude00"]), st.text(max_size=4))
_objects_with_repeats = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.text(max_size=10),
        _number_texts.map(lambda t: ("#num", t)),
        st.sampled_from([("#num", "1e400"), ("#num", "-0"), ("#num", "9" * 4400), ("#num", "NaN")]),
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.lists(st.tuples(_keys, children), max_size=4).map(lambda p: ("#obj", p))
    ),
    max_leaves=30,
)


def _render_raw(node, ascii_only: bool) -> str:
    """JSON text that may repeat keys and spells escapes in the key itself (``\\u0061`` is ``a``)."""
    if isinstance(node, tuple) and node[0] == "#num":
        return node[1]
    if isinstance(node, tuple):
        return (
            "{"
            + ",".join(
                (f'"{k}"' if k.startswith("\\u") else json.dumps(k, ensure_ascii=ascii_only)) + ":" + _render_raw(v, ascii_only)
                for k, v in node[1]
            )
            + "}"
        )
    if isinstance(node, list):
        return "[" + ",".join(_render_raw(n, ascii_only) for n in node) + "]"
    return json.dumps(node, ensure_ascii=ascii_only)


def _outcome(data) -> tuple:
    try:
        value = strictjson.loads(data, require_object=False)
    except JSONError as exc:
        return ("error", exc.reason, exc.pointer)
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)  # print integers of any length
    try:
        return ("value", json.dumps(value))  # 1, 1.0 and true all print differently
    finally:
        sys.set_int_max_str_digits(limit)


@settings(max_examples=300, deadline=None)
@given(_objects_with_repeats, st.booleans())
def test_property_fast_path_equals_the_json_path(node, ascii_only):
    """Bytes go to jiter first; a str always takes the json path. Both must give the same value
    (same types) or the same error, whatever jiter accepts or refuses."""
    text = _render_raw(node, ascii_only)
    assert _outcome(text.encode("utf-8", "surrogatepass")) == _outcome(text)


def _swap_types(value):
    """1 -> true, 0 -> false, ints -> floats: equal under ==, a different JSON value."""
    if isinstance(value, dict):
        return {k: _swap_types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_swap_types(v) for v in value]
    if type(value) is int:
        return bool(value) if value in (0, 1) else float(value) if abs(value) < 2**53 else value
    return value


@settings(max_examples=200, deadline=None)
@given(_plain, st.booleans(), st.integers(min_value=2**64, max_value=2**70))
def test_property_json_key_is_equal_exactly_when_the_canonical_json_is(value, swap, big):
    other = _swap_types(value) if swap else json.loads(json.dumps(value))
    canonical = [strictjson.dumps(v, indent=None, sort_keys=True) for v in (value, other)]
    assert (strictjson.json_key(value) == strictjson.json_key(other)) == (canonical[0] == canonical[1])
    assert strictjson.json_key({"n": big, "v": value}) == strictjson.json_key({"v": value, "n": big})  # beyond orjson: json path
    assert strictjson.json_key(RawFloat("1.50")) != strictjson.json_key(RawFloat("1.5"))
    assert strictjson.json_key([[[]]] * 2) == strictjson.json_key([[[]], [[]]])


def test_json_key_of_a_value_nested_beyond_every_writer_is_none():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    assert strictjson.json_key(deep) is None
    assert strictjson.json_key([[[]]] * 300) is not None  # wide is fine


# ----------------------------------------------------------------------------- dumps: the orjson path

_SPECIAL_CHARS = (
    [chr(c) for c in range(0x20)]
    + ['"', "\\", "/", "\x7f", "\x80", "\x85", "\x9f", "\xa0", "é", "\u2028", "\u2029"]
    + [chr(c) for c in range(0x202A, 0x202F)]
    + [chr(c) for c in range(0x2066, 0x206A)]
    + ["\u2065", "\u206a", "\u2027", "\u202f", "\ufeff", "\uffff", "😀", "\ud800", "\udbff", "\udc80", "\udcff"]
)
_any_text = st.text(st.one_of(st.characters(), st.sampled_from(_SPECIAL_CHARS)), max_size=8)


_unescaped_text = st.text(  # what dumps writes as it is (controls become the same escapes in both encoders)
    st.characters().filter(lambda c: not re.match("[\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]", c))
    | st.sampled_from([chr(c) for c in range(0x20)] + ['"', "\\"])
)


class _Colour(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 3


class _Name(enum.StrEnum):
    A = "a"


_any_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**63 - 1, 2**63, 2**64 - 1, 2**64, -(2**63), -(2**63) - 1, 10**30]),
    st.floats(),  # NaN and infinities included: both encoders refuse them
    st.sampled_from([1e-05, 1e16, 1e-7, 1.0, -0.0, 123456789012345680.0, 0.0001]),
    st.builds(RawFloat, st.sampled_from(["1.50", "1E+5", "-0", "1e400", "2.5e-7"])),
    _any_text,
    st.sampled_from([_Level.HIGH, _Name.A, _Colour.RED]),
)
_any_value = st.recursive(
    _any_leaf,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(_any_text, children, max_size=4),
        st.dictionaries(st.one_of(_any_text, st.integers(0, 3)), children, max_size=2),  # non-str keys
    ),
    max_leaves=25,
)


def _dumps_outcome(write, value, indent, sort_keys):
    try:
        return write(value, indent=indent, sort_keys=sort_keys)
    except (TypeError, ValueError) as exc:
        return type(exc)


@settings(max_examples=1000, deadline=None)
@given(_any_value, st.sampled_from([None, 2, 4]), st.booleans())
def test_property_dumps_is_the_python_encoder_on_any_value(value, indent, sort_keys):
    """The orjson path writes exactly what the pure-Python encoder writes, or is not taken."""
    expected = _dumps_outcome(
        lambda v, **kw: strictjson._python_dumps(v, kw["indent"], kw["sort_keys"]), value, indent, sort_keys
    )
    assert _dumps_outcome(strictjson.dumps, value, indent, sort_keys) == expected
    encoded = expected.encode() if isinstance(expected, str) else expected
    assert _dumps_outcome(strictjson.dumps_bytes, value, indent, sort_keys) == encoded


@settings(max_examples=300, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), _unescaped_text),
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(_unescaped_text, children, max_size=4)),
        max_leaves=30,
    ),
    st.sampled_from([None, 2]),
    st.booleans(),
)
def test_property_plain_json_takes_the_orjson_path(value, indent, sort_keys):
    fast = strictjson._orjson_dumps(value, indent, sort_keys)
    assert fast is not None
    assert fast == strictjson._python_dumps(value, indent, sort_keys).encode()


def test_orjson_path_on_a_sidecar_like_document():
    doc = {"steps": [{"type": "CORTEX_STEP_TYPE_USER_INPUT", "n": 2**63, "ok": True, "x": None, "e": {}, "l": []}]}
    expected = (
        '{\n  "steps": [\n    {\n      "type": "CORTEX_STEP_TYPE_USER_INPUT",\n      "n": 9223372036854775808,\n'
        '      "ok": true,\n      "x": null,\n      "e": {},\n      "l": []\n    }\n  ]\n}'
    )
    assert strictjson._orjson_dumps(doc, 2, False) == expected.encode()
    assert strictjson.dumps(doc) == expected
    assert (
        strictjson.dumps({"b": "é", "a": [1, "\x1b\x00\t"]}, indent=None, sort_keys=True)
        == '{"a":[1,"\\u001b\\u0000\\t"],"b":"é"}'
    )


@pytest.mark.parametrize(
    ("value", "indent", "text"),
    [
        ({"f": 1e-05}, None, '{"f":1e-05}'),  # orjson: 0.00001
        ({"f": 1e16}, None, '{"f":1e+16}'),  # orjson: 1e16
        ([1.0, -0.0, 0.0001], None, "[1.0,-0.0,0.0001]"),
        ({"f": RawFloat("1.50")}, 2, '{\n  "f": 1.50\n}'),
        ({"n": 2**64}, None, '{"n":18446744073709551616}'),  # beyond orjson's 64 bits
        ([-(2**63) - 1], None, "[-9223372036854775809]"),
        (["\udcff"], None, '["\\udcff"]'),  # a lone surrogate: orjson refuses it
        (["\x7f\x80\x9f"], None, '["\\u007f\\u0080\\u009f"]'),  # orjson writes these as they are
        (["a\u2028b\u2029"], None, '["a\\u2028b\\u2029"]'),
        (["\u202a\u202e\u2066\u2069"], None, '["\\u202a\\u202e\\u2066\\u2069"]'),
        ([_Level.HIGH, _Name.A], None, '[3,"a"]'),  # subclasses as their base type
        (collections.OrderedDict(b=1, a=2), None, '{"b":1,"a":2}'),
        ({"a": [1]}, 4, '{\n    "a": [\n        1\n    ]\n}'),  # an indent orjson does not have
    ],
)
def test_dumps_falls_back_to_the_python_encoder(value, indent, text):
    assert strictjson._orjson_dumps(value, indent, False) is None
    assert strictjson.dumps(value, indent=indent) == text
    assert strictjson.dumps_bytes(value, indent=indent) == text.encode()


@pytest.mark.parametrize(
    ("value", "indent", "text"),
    [
        ((1, (2,)), 2, "[\n  1,\n  [\n    2\n  ]\n]"),  # tuples as lists
        ([[]] * 2 + [{}], 2, "[\n  [],\n  [],\n  {}\n]"),
        ({}, 2, "{}"),
        ('\x1f\b\f\r\n\t"\\/', None, '"\\u001f\\b\\f\\r\\n\\t\\"\\\\/"'),
        ([None, True, False, -(2**63), 2**64 - 1], None, "[null,true,false,-9223372036854775808,18446744073709551615]"),
    ],
)
def test_dumps_takes_the_orjson_path(value, indent, text):
    assert strictjson._orjson_dumps(value, indent, False) == text.encode()
    assert strictjson.dumps(value, indent=indent) == text == strictjson._python_dumps(value, indent, False)


def test_dumps_deeper_than_orjson_writes():
    value: list = []
    for _ in range(300):  # orjson stops at 255 levels
        value = [value]
    assert strictjson._orjson_dumps(value, None, False) is None
    assert strictjson.dumps(value, indent=None) == "[" * 301 + "]" * 301


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    ("value", "error"),
    [
        ({"f": float("nan")}, ValueError),  # orjson: null
        ([float("inf")], ValueError),
        ([_Colour.RED], TypeError),  # orjson: "red"
        ([uuid.UUID(int=1)], TypeError),  # orjson: the UUID text
        ([_Point(1)], TypeError),
        ([datetime.date(2026, 1, 1)], TypeError),
        ([orjson.Fragment(b"1")], TypeError),
        ({1: 2}, TypeError),
        ({_Name.A: 1}, TypeError),  # a str subclass as a key
        ({"s": {1, 2}}, TypeError),
    ],
)
def test_dumps_refuses_what_the_python_encoder_refuses(value, error):
    assert strictjson._orjson_dumps(value, None, False) is None
    for write in (strictjson.dumps, strictjson.dumps_bytes):
        with pytest.raises(error):
            write(value, indent=None)


def test_sort_keys_orders_by_code_point():
    value = {"é": 1, "z": 2, "😀": 3, "\uffff": 4, "A": 5}
    assert strictjson._orjson_dumps(value, None, True) == '{"A":5,"z":2,"é":1,"\uffff":4,"😀":3}'.encode()
    assert strictjson.dumps(value, indent=None, sort_keys=True) == '{"A":5,"z":2,"é":1,"\uffff":4,"😀":3}'
