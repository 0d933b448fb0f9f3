"""Reliability: every reader fed hostile input. Nothing escapes as an exception; every bad file
becomes a finding (or a one-line error) that names the file.

Inputs are mutations of real builder output (a sidecar, a brain transcript, step blobs, a
conversation ``.db``) plus random bytes, truncations, deep nesting, huge numbers and invalid UTF-8.
"""

from __future__ import annotations

import copy
import json
import tempfile
from functools import cache
from pathlib import Path

import pytest
from cli_capture import cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from audit.actions.sweep import sweep
from audit.checks import contract, links
from audit.checks.fingerprint import fingerprint_paths, wire_observations
from audit.checks.shape import SidecarShape, TranscriptShape
from audit.errors import InputError
from audit.store import discovery, transcript, wire
from audit.store.daemon import _connect_message, trajectory_member
from audit.store.database import NativeConversation, read_database
from audit.store.ids import canonical_id
from audit.store.layout import resolve_roots
from audit.store.trajectory import BlobFields, reconstruct
from audit.strictjson import JSONError, dumps, loads
from audit.testing import StoreBuilder
from tests.store.test_wire import _varint

CID = "0d7c9f8e-5b1a-4c3d-9e2f-1a2b3c4d5e6f"
SIDECAR_NAME = f"{CID}.trajectory.json"
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@cache
def sample() -> dict:
    """Real builder output, as bytes: a sidecar, its .db, its full transcript, its step blobs."""
    with tempfile.TemporaryDirectory() as tmp:
        convo = StoreBuilder(tmp, seed=5).root("cli").conversation(CID, turns=2, transcript_anomalies={"torn-line"})
        full = convo.paths["brain"] / ".system_generated" / "logs" / "transcript_full.jsonl"
        conv = read_database(convo.paths["db"])
        blobs = [v for rows in conv.tables.values() for row in rows for v in row.values() if isinstance(v, bytes)]
        return {
            "doc": convo.sidecar_doc,
            "sidecar": convo.paths["sidecar"].read_bytes(),
            "db": convo.paths["db"].read_bytes(),
            "transcript": full.read_bytes().splitlines(),
            "blobs": blobs,
            "tables": conv.tables,
        }


def splice(data: bytes, at: int, insert: bytes, drop: int = 0) -> bytes:
    at = min(at, len(data))
    return data[:at] + insert + data[at + drop :]


# ----------------------------------------------------------------------------- strategies

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
BAD_UTF8 = st.sampled_from([b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80", b"\x80"])
SIDECAR_KEYS = [
    ("cascadeId",),
    ("steps",),
    ("steps", 0),
    ("steps", 0, "metadata"),
    ("steps", 0, "type"),
    ("steps", 1, "plannerResponse"),
    ("metadata",),
    ("metadata", "parentConversationId"),
    ("agyReader",),
    ("generatorMetadata",),
    ("executorMetadatas",),
]


def _replaced(doc: dict, where: tuple, value: object) -> dict:
    doc = copy.deepcopy(doc)
    node = doc
    for key in where[:-1]:
        node = node[key]
    node[where[-1]] = value
    return doc


def _nested(depth: int, opener: bytes, closed: bool) -> bytes:
    inner = opener * depth + ((b"]" if opener == b"[" else b"1}") * depth if closed else b"")
    return b'{"cascadeId": "%s", "steps": [], "x": ' % CID.encode() + inner + b"}"


@st.composite
def sidecar_bytes(draw) -> bytes:
    data = sample()["sidecar"]
    kind = draw(st.sampled_from(["random", "truncated", "nested", "number", "utf8", "typed", "value"]))
    if kind == "random":
        return draw(st.binary(max_size=300))
    if kind == "truncated":
        return data[: draw(st.integers(0, len(data) - 1))]
    if kind == "nested":
        return _nested(draw(st.integers(1, 3000)), draw(st.sampled_from([b"[", b'{"a":'])), draw(st.booleans()))
    if kind == "number":
        digits = draw(st.integers(1, 20000))
        number = draw(
            st.sampled_from(
                [b"9" * digits, b"-" + b"1" * digits, b"1e" + b"9" * min(digits, 40), b"0." + b"0" * digits + b"1", b"-0"]
            )
        )
        return b'{"cascadeId": "%s", "steps": [{"type": "X", "status": "Y", "metadata": {"createdAt": "x"}, "n": %s}]}' % (
            CID.encode(),
            number,
        )
    if kind == "utf8":
        return splice(data, draw(st.integers(0, len(data))), draw(BAD_UTF8), draw(st.integers(0, 2)))
    if kind == "typed":
        return json.dumps(_replaced(sample()["doc"], draw(st.sampled_from(SIDECAR_KEYS)), draw(json_values))).encode()
    return json.dumps(draw(json_values)).encode()


# ----------------------------------------------------------------------------- sidecars


@FUZZ
@given(sidecar_bytes())
def test_sidecar_bytes_through_every_reader(data):
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        path = directory / SIDECAR_NAME
        path.write_bytes(data)
        name = str(path)

        try:
            doc = loads(data, source=name)
        except JSONError as exc:
            assert exc.source == name and str(exc).startswith(f"{name}: ")
            doc = None

        checked = contract.validate_file(path)
        assert checked.error is None and checked.file == name
        if doc is None:
            assert [f.rule.startswith("strict-json/") for f in checked.findings] == [True]
        assert all(f.file == name for f in checked.findings)

        shape = SidecarShape()
        try:
            shape.add_json(data, name)
        except InputError as exc:
            assert exc.message.startswith(f"{name}: ")
        shape.lines()

        surveyed = fingerprint_paths([directory], ("sidecar",))
        assert all(p.startswith(f"{name}: ") for p in surveyed.problems)
        assert (surveyed.problems == []) == ("sidecar" in surveyed.fingerprints)

        resolution = links.resolve(directory)
        if doc is None or canonical_id(doc.get("cascadeId")) is None:
            unusable = [d for d in resolution.diagnostics if d.kind in links.UNUSABLE_KINDS]
            assert [SIDECAR_NAME in d.message for d in unusable] == [True]
            assert resolution.links == ()

        code, out, err = cli("verify-contract", path)
        assert code == (0 if checked.valid else 1)
        assert code == 0 or name in out
        code, out, err = cli("fingerprint", "--surface", "sidecar", path)
        assert code in (0, 3)
        assert code == 0 or name in err


# ----------------------------------------------------------------------------- transcripts


@st.composite
def transcript_line(draw) -> bytes:
    lines = sample()["transcript"]
    base = draw(st.sampled_from(lines))
    kind = draw(st.sampled_from(["keep", "random", "truncated", "utf8", "typed", "value", "nested", "long", "blank"]))
    if kind == "keep":
        return base
    if kind == "random":
        return draw(st.binary(max_size=120))
    if kind == "truncated":
        return base[: draw(st.integers(0, len(base)))]
    if kind == "utf8":
        return splice(base, draw(st.integers(0, len(base))), draw(BAD_UTF8))
    if kind == "typed":
        record = json.loads(draw(st.sampled_from([line for line in lines if line.startswith(b"{")])))
        key = draw(st.sampled_from(sorted(record) + ["tool_calls", "truncated_fields", "extra"]))
        record[key] = draw(json_values)
        return json.dumps(record).encode()
    if kind == "value":
        return json.dumps(draw(json_values)).encode()
    if kind == "nested":
        depth = draw(st.integers(1, 3000))
        return b'{"step_index": 0, "x": ' + b"[" * depth + b"]" * depth + b"}"
    if kind == "long":
        return b'{"content": "' + b"x" * 5000 + b'"}'
    return draw(st.sampled_from([b"", b"   ", b"\t"]))


@FUZZ
@given(st.lists(transcript_line(), max_size=8), st.booleans())
def test_transcript_lines_through_every_reader(lines, terminated):
    lines = [line.replace(b"\n", b" ").replace(b"\r", b" ") for line in lines]
    data = b"\n".join(lines) + (b"\n" if terminated and lines else b"")
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp, CID, ".system_generated", "logs")
        logs.mkdir(parents=True)
        path = logs / "transcript_full.jsonl"
        path.write_bytes(data)
        (logs / "transcript.jsonl").write_bytes(data[: len(data) // 2])

        items = list(transcript.iter_transcript(path, max_line_bytes=4096))
        findings = [i for i in items if isinstance(i, transcript.Anomaly)]
        records = [i for i in items if isinstance(i, transcript.Record)]
        assert all(f.file == str(path) and f.kind in transcript.KINDS for f in findings)
        dropped = [f.line for f in findings if f.kind in transcript.DROPPED]
        kept = [r.line for r in records]
        physical = data.split(b"\n")[: -1 if data.endswith(b"\n") else None] if data else []
        assert sorted(dropped + kept) == list(range(1, len(physical) + 1))  # each line: one record or one drop
        transcript.summarize(items)
        for record in records:
            _ = record.info  # parses the content metadata
        shape = TranscriptShape()
        for record in records:
            shape.add(record.raw)
        shape.lines()

        checked = contract.validate_file(path, "transcript")
        assert checked.error is None and all(f.file == str(path) for f in checked.findings)

        brain = transcript.read_brain(logs.parent.parent)
        assert all(f.file in (str(path), str(logs / "transcript.jsonl")) for f in brain.findings)
        code, out, err = cli("inspect", logs.parent.parent, "--format", "json")
        shown = json.loads(out)["findings"]
        assert code == (1 if any(f["level"] == "error" for f in shown) else 0)
        assert all(f["file"].startswith(str(logs)) for f in shown)


# ----------------------------------------------------------------------------- protobuf blobs


@st.composite
def blobs(draw) -> bytes:
    base = draw(st.sampled_from(sample()["blobs"]))
    kind = draw(st.sampled_from(["random", "truncated", "flip", "insert", "nested"]))
    if kind == "random":
        return draw(st.binary(max_size=200))
    if kind == "truncated":
        return base[: draw(st.integers(0, max(len(base) - 1, 0)))]
    if kind == "flip":
        at = draw(st.integers(0, max(len(base) - 1, 0)))
        return splice(base, at, bytes([draw(st.integers(0, 255))]), 1)
    if kind == "insert":
        return splice(base, draw(st.integers(0, len(base))), draw(st.binary(min_size=1, max_size=12)))
    depth = draw(st.integers(1, 200))  # field 1, length-delimited, nested depth times
    blob = b""
    for _ in range(depth):
        blob = b"\x0a" + _varint(len(blob)) + blob
    return blob


cells = st.none() | st.integers(-(2**63), 2**63 - 1) | st.floats() | st.text(max_size=10) | st.binary(max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(blobs(), cells, cells)
def test_protobuf_blobs_and_odd_cells_through_the_decoders(blob, odd, other):
    try:
        wire.parse(blob)
    except wire.WireError:
        pass
    tables = copy.deepcopy(sample()["tables"])
    steps = tables["steps"]
    steps[0].update(step_payload=blob, metadata=blob, error_details=blob, task_details=odd, render_info=other)
    steps[1].update(step_type=odd, status=other, idx=odd)
    tables["gen_metadata"][0]["data"] = blob
    tables["executor_metadata"][0]["data"] = odd
    tables["trajectory_metadata_blob"] = [{"id": other, "data": blob}, {"id": "main", "data": blob}]
    tables["trajectory_meta"][0].update(trajectory_type=odd, source=other)
    tables["battle_mode_infos"] = [{"idx": 0, "data": blob}]
    conv = NativeConversation(Path("/fuzz", f"{CID}.db"), access="ro", user_version=1, tables=tables)
    native = reconstruct(conv)
    assert all(f.message.startswith(f"/fuzz/{CID}.db: ") for f in native.findings)
    dumps(native.trajectory)  # what export and the native sweep write
    observed = set(wire_observations(conv))
    fields = BlobFields()  # what ci's sweep records while decoding: the same decoding and observations
    recorded = reconstruct(conv, fields)
    assert (recorded.trajectory, recorded.findings, recorded.unknown_fields) == (
        native.trajectory,
        native.findings,
        native.unknown_fields,
    )
    assert set(wire_observations(conv, fields)) == observed


# ----------------------------------------------------------------------------- daemon answers, logs, /proc


@st.composite
def answers(draw) -> bytes:
    body = json.dumps({"status": "ok", "trajectory": sample()["doc"], "numTotalSteps": "4"}).encode()
    kind = draw(st.sampled_from(["random", "truncated", "utf8", "value", "member"]))
    if kind == "random":
        return draw(st.binary(max_size=200))
    if kind == "truncated":
        return body[: draw(st.integers(0, len(body) - 1))]
    if kind == "utf8":
        return splice(body, draw(st.integers(0, len(body))), draw(BAD_UTF8))
    if kind == "value":
        return json.dumps(draw(json_values)).encode()
    key = draw(st.sampled_from([b"trajectory", b"traj\\u0065ctory", b"x"]))  # an escaped key is the same key
    return b'{"' + key + b'": ' + json.dumps(draw(json_values)).encode() + b"}"


@FUZZ
@given(answers(), st.binary(max_size=300), st.lists(st.text(max_size=30), max_size=6))
def test_daemon_answers_logs_and_process_tables_never_escape(body, blob, argv):
    try:
        raw, value = trajectory_member(body)
    except JSONError:
        pass
    else:
        assert loads(raw) == value
    _connect_message(body)
    port = discovery.port_from_log(blob.split(b"\n"))
    assert port is None or 0 < port < 65536
    discovery.parse_environ(blob)
    discovery.hint_from_environ(1, discovery.parse_environ(blob))
    for name in ("language_server_linux_x64", "agy"):
        discovery.hint_from_cmdline(1, [name, *argv])


# ----------------------------------------------------------------------------- SQLite files


@st.composite
def damaged_db(draw) -> tuple[bytes, bytes | None]:
    data = bytearray(sample()["db"])
    page = int.from_bytes(data[16:18], "big")
    kind = draw(st.sampled_from(["truncated", "header", "page-size", "page", "zero-page", "wal"]))
    if kind == "truncated":
        return bytes(data[: draw(st.integers(0, len(data) - 1))]), None
    if kind == "header":
        at = draw(st.integers(0, 99))
        return splice(bytes(data), at, draw(st.binary(min_size=1, max_size=8)), 8), None
    if kind == "page-size":
        data[16:18] = draw(st.integers(0, 65535)).to_bytes(2, "big")
        return bytes(data), None
    start = draw(st.integers(1, len(data) // page - 1)) * page
    if kind == "page":
        at = start + draw(st.integers(0, page - 1))
        return splice(bytes(data), at, draw(st.binary(min_size=1, max_size=64)), 64)[: len(data)], None
    if kind == "zero-page":
        data[start : start + page] = bytes(page)
        return bytes(data), None
    data[18:20] = b"\x02\x02"  # WAL mode, with a -wal that is garbage or a torn real frame
    return bytes(data), draw(st.binary(min_size=1, max_size=200) | st.just(b"7\x7f\x06\x82" + bytes(28)))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_db())
def test_damaged_databases_through_every_reader(damaged):
    data, wal = damaged
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, f"{CID}.db")
        path.write_bytes(data)
        if wal is not None:
            Path(f"{path}-wal").write_bytes(wal)
        before = sorted(p.name for p in Path(tmp).iterdir())

        conv = read_database(path)
        assert all(f.message.startswith(f"{path}: ") for f in conv.findings)
        assert conv.access or conv.findings  # unread means a finding says why
        native = reconstruct(conv)
        assert all(f.message.startswith(f"{path}: ") for f in native.findings)

        code, out, _ = cli("inspect", path, "--format", "json")
        shown = json.loads(out)["findings"]
        assert code == (1 if shown else 0)
        assert all(f["file"] == str(path) and f["level"] == "error" for f in shown)

        surveyed = fingerprint_paths([path], ("sqlite", "wire"))
        assert all(p.startswith(f"{path}: ") for p in surveyed.problems)
        assert sorted(p.name for p in Path(tmp).iterdir()) == before  # read-only: nothing created


@pytest.mark.parametrize(
    "damage",
    [
        "truncated",
        "not-sqlite",
        "page-size",
        "zero-page",
    ],
)
def test_a_damaged_database_fails_its_session_in_a_native_sweep(tmp_path, damage):
    convo = StoreBuilder(tmp_path / "home", seed=3).root("cli").conversation(CID, turns=1)
    data = bytearray(convo.paths["db"].read_bytes())
    if damage == "truncated":
        data = data[: len(data) // 2 + 7]
    elif damage == "not-sqlite":
        data[:16] = b"definitely not a"
    elif damage == "page-size":
        data[16:18] = (3000).to_bytes(2, "big")
    else:
        data[4096:] = bytes(len(data) - 4096)
    convo.paths["db"].write_bytes(bytes(data))
    result = sweep(resolve_roots(home=tmp_path / "home", env={}), tmp_path / "out", source="native")
    assert not result.complete and [f.id for f in result.failures] == [CID]
    assert result.failures[0].message.startswith(f"{convo.paths['db']}: ")
    assert [p.name for p in (tmp_path / "out").rglob("*")] == ["manifest.json"]
