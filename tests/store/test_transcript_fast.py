"""The transcript reader's and the consistency check's fast paths give what their plain paths give.

Each fast path here (a record built without judging each key, an argument not given to the
parser when it cannot be JSON text, strict parsing through the bytes path, a whole line read in
one piece, a timestamp already in UTC, a scalar compared without serialising, a per-session
memo of parsed ``argumentsJson``) is compared with the code it replaced, kept below as the
oracle, over generated inputs: equal values, equal findings in the same order.
"""

import json
import re
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.checks.consistency import agreement, checking
from audit.store import transcript as tr
from audit.store.transcript import Anomaly, Arg, reading, records
from audit.strictjson import JSONError, dumps, loads, loads_text

_MARKER = re.compile(r"<truncated \d+ (?:bytes|lines)>")

# ----------------------------------------------------------------------------- oracles (the code replaced)


def old_arg(value: object, where: str, tier: str | None, out: list, encodings: dict) -> Arg:
    def note(kind: str) -> None:
        if kind not in encodings:
            encodings[kind] = (len(encodings), "t.jsonl", 7, where)

    if not isinstance(value, str):
        note("native")
        return Arg(value, value, True)
    try:
        decoded = loads(value, require_object=False)
    except JSONError as exc:
        if tier == "full":
            note("native")
            return Arg(value, value, True)
        if (marker := _MARKER.search(value)) is not None:
            message = f"{where} is cut by {marker.group(0)}; not JSON text ({exc.reason})"
            out.append(Anomaly("t.jsonl", 7, "truncated-arg", message, "/" + where))
            note("text")
        else:
            note("native")
        return Arg(value, value, False)
    if tier == "full":
        if value.lstrip()[:1] == '"':
            note("text")
        return Arg(value, value, True)
    if value.lstrip()[:1] in ('"', "{", "["):
        note("text")
    return Arg(value, decoded, True)


def old_second(text: object) -> str | None:
    if not isinstance(text, str) or not (m := agreement._SECOND.fullmatch(text)):
        return None
    try:
        moment = datetime.fromisoformat(m[1] + m[2].replace("Z", "+00:00"))
    except ValueError:
        return None
    try:
        return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    except OverflowError:  # the old code raised here (a traceback): now None, see the test below
        return None


def old_same(a: object, b: object) -> bool:
    return type(a) is type(b) and dumps(a, indent=None, sort_keys=True) == dumps(b, indent=None, sort_keys=True)


def old_stream_lines(paths: list[str], cap: int):
    pending = None
    for path in paths:
        line = 0
        at_start = True
        with reading._open(path) as fh:
            while piece := fh.readline(reading._SKIP_BYTES if pending is not None and pending[2] is None else cap + 1):
                if at_start:
                    line += 1
                if pending is None:
                    pending = [path, line, [], 0]
                terminated = piece.endswith(b"\n")
                body = piece[:-1] if terminated else piece
                if pending[2] is not None:
                    pending[3] += len(body)
                    if pending[3] > cap:
                        pending[2] = None
                    else:
                        pending[2].append(body)
                at_start = terminated
                if terminated:
                    yield pending[0], pending[1], reading._joined(pending), True
                    pending = None
    if pending is not None:
        yield pending[0], pending[1], reading._joined(pending), False


# ----------------------------------------------------------------------------- generated inputs

_ANY_CHAR = st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=())  # lone surrogates too
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(_ANY_CHAR, max_size=8),
)
_JSON = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=3)),
    max_leaves=8,
)
_SPACE = st.text(st.sampled_from(" \t\n\r\x0b\x0c\xa0\u2028\ufeff"), max_size=2)
_EDGE_TEXTS = [
    "",
    " ",
    "NaN",
    "-Infinity",
    "Infinity",
    '{"a": 1, "a": 2}',
    "1e400",
    "-0",
    "01",
    "1.",
    '"\\ud800"',
    "[1,]",
    "\ufeff{}",
    "9" * 5000,
    "true false",
    "nul",
    "tru",
    "ls -la",
    "/tmp/x",
    "-",
    '"cut <truncated 12 bytes>',
    '{"CodeContent": "abc\n<truncated 40 lines>\n',
    "plain text <truncated 3 bytes> more",
    "<truncated 5 lines>",
    "[" * 300 + "]" * 300,
    "\ud800",
    '"\udfff"',
]


@st.composite
def arg_texts(draw) -> str:
    kind = draw(st.integers(0, 4))
    if kind == 0:
        return draw(st.sampled_from(_EDGE_TEXTS))
    if kind == 1:
        return draw(st.text(_ANY_CHAR, max_size=12))
    value = draw(_JSON)
    text = json.dumps(value, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 1])))
    if kind == 3:  # cut like the compact tier cuts
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(["<truncated 9 bytes>", "\n<truncated 2 lines>\n", "<truncated x bytes>"]))
    return draw(_SPACE) + text + draw(_SPACE)


# ----------------------------------------------------------------------------- the reader


def tagged(value: object) -> object:
    """*value* with every type spelled out (== alone takes -0.0 for 0.0 and True for 1)."""
    if isinstance(value, Arg):
        return ("Arg", tagged(value.raw), tagged(value.value), value.decoded)
    if isinstance(value, dict):
        return ("dict", tuple((k, tagged(v)) for k, v in value.items()))
    if isinstance(value, list):
        return ("list", tuple(map(tagged, value)))
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def same_value(a: object, b: object) -> bool:
    return tagged(a) == tagged(b)


@settings(max_examples=400)
@given(st.one_of(arg_texts(), _JSON), st.sampled_from(["compact", "full", "overview", None]))
def test_an_argument_decodes_as_the_plain_parser_decodes_it(value, tier):
    out, state = [], records._Stream(tier)
    got = records._arg(value, 2, "Code~Content/x", state, "t.jsonl", 7, out)
    want_out, want_enc = [], {}
    want = old_arg(value, "tool_calls/2/args/Code~0Content~1x", tier, want_out, want_enc)
    assert same_value(got, want) and out == want_out and state.encodings == want_enc


@settings(max_examples=400)
@given(arg_texts())
def test_loads_text_gives_the_value_or_the_refusal_of_the_str_path(text):
    try:
        want = ("value", loads(text, require_object=False))
    except JSONError as exc:
        want = ("error", str(exc))
    try:
        got = ("value", loads_text(text))
    except JSONError as exc:
        got = ("error", str(exc))
    assert got[0] == want[0] and same_value(got[1], want[1])


def test_the_json_start_pattern_admits_every_text_the_parser_accepts():
    for text in [*_EDGE_TEXTS, "0", "-1", "[]", "{}", '""', "null", "true", "false", " \t\r\n1"]:
        try:
            loads(text, require_object=False)
        except JSONError:
            continue
        assert records._JSON_START.match(text), text


_KEYS = sorted(tr.RECORD_KEYS) + ["extra"]
_FIELD_VALUES = {
    "step_index": st.one_of(st.integers(-2, 40), st.booleans(), st.none(), st.text(max_size=2)),
    "source": st.one_of(
        st.sampled_from(sorted(tr.KNOWN_SOURCES)), st.sampled_from(["MODEL2", ""]), st.integers(), st.lists(st.none(), max_size=1)
    ),
    "type": st.one_of(st.sampled_from(["PLANNER_RESPONSE", "USER_INPUT", "RUN_COMMAND", "NOPE"]), st.none(), st.integers()),
    "status": st.one_of(st.sampled_from(["DONE", "CANCELLED", "RUNNING", "BAD"]), st.none(), st.booleans()),
    "created_at": st.sampled_from(["2026-06-21T13:32:14Z", "2026-06-21T13:32:14.123456789+02:00", "yesterday", "", 5]),
    "truncated_fields": st.one_of(
        st.lists(st.sampled_from(["content", "tool_calls", 3]), max_size=2), st.text(max_size=2), st.none()
    ),
    "tool_calls": st.one_of(
        st.lists(
            st.one_of(
                st.fixed_dictionaries(
                    {
                        "name": st.sampled_from(["run_command", "view_file"]),
                        "args": st.dictionaries(
                            st.sampled_from(["CommandLine", "AbsolutePath", "a/b~c"]), st.one_of(arg_texts(), _JSON), max_size=3
                        ),
                    }
                ),
                st.fixed_dictionaries(
                    {"name": st.one_of(st.none(), st.integers())},
                    optional={
                        "args": st.one_of(
                            st.lists(st.none(), max_size=1), st.dictionaries(st.text(max_size=3), _SCALAR, max_size=2)
                        ),
                        "x": st.none(),
                    },
                ),
                st.one_of(st.none(), st.text(max_size=2)),
            ),
            max_size=3,
        ),
        st.dictionaries(st.text(max_size=2), st.none(), max_size=1),
    ),
}
_OTHER = st.one_of(st.text(max_size=6), st.none(), st.integers(), st.booleans(), st.lists(st.none(), max_size=1))


@st.composite
def record_objects(draw) -> dict:
    valid = draw(st.booleans())
    obj = {}
    for key in _KEYS:
        if key in ("step_index", "source", "type", "status", "created_at") and valid:
            obj[key] = {
                "step_index": draw(st.integers(0, 40)),
                "source": "MODEL",
                "type": "PLANNER_RESPONSE",
                "status": "DONE",
                "created_at": "2026-06-21T13:32:14Z",
            }[key]
            continue
        skip = draw(st.integers(0, 3)) != 0 if valid else draw(st.booleans())
        if skip:
            continue
        strategy = _FIELD_VALUES.get(key)
        if key in ("content", "thinking", "error"):
            strategy = st.one_of(st.text(max_size=6), _OTHER)
        elif key in ("exit_code", "error_code"):
            strategy = st.one_of(st.integers(-3, 300), _OTHER)
        obj[key] = draw(strategy if strategy is not None else _OTHER)
    return obj


@settings(max_examples=500)
@given(record_objects(), st.sampled_from(["compact", "full", "overview", None]))
def test_a_record_built_on_the_fast_path_equals_the_judged_one(obj, tier):
    fast_out, fast_state = [], records._Stream(tier)
    judged_out, judged_state = [], records._Stream(tier)
    fast = records._record(obj, "t.jsonl", 3, fast_out, fast_state)
    judged = records._judged_record(obj, "t.jsonl", 3, judged_out, judged_state)
    assert fast == judged and [tagged(c.args) for c in fast.tool_calls] == [tagged(c.args) for c in judged.tool_calls]
    assert fast_out == judged_out and fast_state.encodings == judged_state.encodings


def test_the_fast_path_takes_a_documented_record_and_leaves_others_to_judging(monkeypatch):
    judged = []
    real = records._judged_record
    monkeypatch.setattr(records, "_judged_record", lambda obj, *args: judged.append(obj) or real(obj, *args))
    good = {
        "step_index": 0,
        "source": "MODEL",
        "type": "PLANNER_RESPONSE",
        "status": "DONE",
        "created_at": "2026-06-21T13:32:14Z",
    }
    good["tool_calls"] = [{"name": "run_command", "args": {"CommandLine": '"ls"'}}]
    record = records._record(good, "t.jsonl", 1, out := [], records._Stream("compact"))
    assert judged == [] and out == [] and record.tool_calls[0].args["CommandLine"] == Arg('"ls"', "ls", True)
    for bad in ({**good, "status": None}, {**good, "extra": 1}, {**good, "content": 1}, {**good, "exit_code": True}):
        records._record(bad, "t.jsonl", 1, [], records._Stream("compact"))
    assert len(judged) == 4


@settings(max_examples=200)
@given(
    st.lists(st.binary(max_size=12).map(lambda b: b.replace(b"\n", b"")), max_size=8),
    st.booleans(),
    st.lists(st.integers(0, 60), max_size=3),
    st.integers(1, 12),
)
def test_lines_read_in_one_piece_are_the_lines_read_in_pieces(tmp_path_factory, lines, open_end, cuts, cap):
    data = b"\n".join(lines) + (b"" if open_end or not lines else b"\n")
    where = tmp_path_factory.mktemp("parts")
    bounds = sorted({min(c, len(data)) for c in cuts} | {0, len(data)})
    paths = []
    for k, (a, b) in enumerate(zip(bounds, bounds[1:] or [len(data)])):
        (where / f"{k}.jsonl").write_bytes(data[a:b])
        paths.append(str(where / f"{k}.jsonl"))
    assert list(reading._stream_lines(paths, cap)) == list(old_stream_lines(paths, cap))


_CONTENT_PIECES = ["<USER_REQUEST>", "</USER_REQUEST>", "<ADDITIONAL_METADATA>", "</ADDITIONAL_METADATA>"]
_CONTENT_PIECES += ["<USER_SETTINGS_CHANGE>", "</USER_SETTINGS_CHANGE>", " hi ", "\n", "x"]


@settings(max_examples=300)
@given(st.lists(st.sampled_from(_CONTENT_PIECES), max_size=12).map("".join))
def test_user_request_is_what_parse_content_gives(text):
    assert tr.user_request(text) == tr.parse_content(text).user_request


# ----------------------------------------------------------------------------- the consistency check

_STAMP = st.from_regex(r"\A[0-9٠-٢]{4}-[01]\d-[0-3]\dT[0-2]\d:[0-6]\d:[0-6]\d(\.\d{1,12})?(Z|[+-][0-2]\d:[0-5]\d)\Z")


@settings(max_examples=500)
@given(
    st.one_of(
        _STAMP,
        st.sampled_from(
            [
                "0001-01-01T00:00:00Z",
                "0999-12-31T23:59:59.5Z",
                "1000-01-01T00:00:00Z",
                "9999-12-31T23:59:59-01:00",
                "2026-06-21T13:32:60Z",
                "2026-02-30T00:00:00Z",
                17,
                None,
            ]
        ),
    )
)
def test_a_timestamp_floored_to_the_second_is_what_strftime_writes(text):
    assert agreement.floor_second(text) == old_second(text)


@settings(max_examples=400)
@given(_JSON, _JSON)
def test_same_is_equal_json_texts(a, b):
    assert agreement._same(a, b) == old_same(a, b)
    assert agreement._same(a, a) == old_same(a, a)


@pytest.mark.parametrize(
    "pair", [(0.0, -0.0), (1, True), (0, False), (None, None), ("a", "a"), (2**80, 2**80), ("\ud800", "\ud800")]
)
def test_same_on_the_scalars_json_tells_apart(pair):
    assert agreement._same(*pair) == old_same(*pair)


@settings(max_examples=300)
@given(st.one_of(arg_texts(), st.none(), st.integers()))
def test_the_arguments_memo_holds_what_parsing_gives(text):
    session = checking._Session.__new__(checking._Session)
    session.parsed = {}
    try:
        value = loads(text if isinstance(text, str) and text else "{}")
    except JSONError:
        value = None
    first = session.arguments(text)
    assert same_value(first, value) and session.arguments(text) is first


@pytest.mark.parametrize("text", ["9999-12-31T23:59:59-01:00", "0001-01-01T00:30:00+01:00"])
def test_a_timestamp_past_the_years_datetime_holds_has_no_second(text):
    assert agreement.floor_second(text) is None  # it raised OverflowError, a traceback out of ``consistency``


def old_parsed_findings(path: str, line: int, data: bytes) -> list[Anomaly] | None:
    """The findings the old order (blank, then UTF-8, then JSON) gives a line it drops; None if kept."""
    if not data.strip():
        return [Anomaly(path, line, "blank-line", "empty line")]
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Anomaly(path, line, "bad-utf8", f"invalid UTF-8 at byte {exc.start}")]
    try:
        loads(data, source=f"{path}:{line}", require_object=False)
    except JSONError as exc:
        at = f" at {exc.pointer or '/'}" if exc.pointer is not None else ""
        return [Anomaly(path, line, "bad-json", exc.reason + at, exc.pointer or "")]
    return None


_BAD_BYTES = [b"\xff", b"\xed\xa0\x80", b"\xc3", b"\xef\xbb\xbf", b" ", b"\t", b"\x0b", b"\x1c", b"\x00", b'"', b",", b"\\"]


@settings(max_examples=500)
@given(
    st.one_of(_JSON.map(lambda v: json.dumps(v, ensure_ascii=False).encode("utf-8", "surrogatepass")), st.binary(max_size=10)),
    st.lists(st.tuples(st.integers(0, 200), st.sampled_from(_BAD_BYTES)), max_size=3),
)
def test_a_dropped_line_gets_the_finding_the_old_order_gave(data, damage):
    for at, piece in damage:
        at = min(at, len(data))
        data = data[:at] + piece + data[at:]
    want = old_parsed_findings("t.jsonl", 4, data)
    got = reading._parsed("t.jsonl", 4, data, 1 << 20, records._Stream("compact"))
    if want is None:
        assert got and all(type(i) is Anomaly for i in got[:-1]) and (type(got[-1]) is tr.Record or got[-1].kind == "not-object")
    else:
        assert got == want


@settings(max_examples=500)
@given(
    st.one_of(_STAMP, st.sampled_from(["0999-12-31T23:59:59.5Z", "1000-01-01T00:00:00+00:30", "2026-06-21T13:32:14.9Z"])),
    st.one_of(_STAMP, st.sampled_from(["2026-06-21T13:32:14Z", "0999-12-31T23:59:59Z", "999-12-31T23:59:59Z"])),
    st.booleans(),
)
def test_same_second_is_equal_floored_seconds(db, text, own):
    second = agreement.floor_second(db)
    if second is None:
        return
    text = second if own else text  # the transcript carrying the floored second itself: the case not parsed again
    session = checking._Session.__new__(checking._Session)
    session.seconds = {}
    assert session.same_second(second, text) == (second == old_second(text))
