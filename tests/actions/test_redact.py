"""``agy-audit redact``: every surface's fingerprint kept, no content kept, only string values
changed -- and a refusal, with the copy removed, when something cannot be redacted."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3

import pytest
from deepdiff import DeepDiff
from google.protobuf.unknown_fields import UnknownFieldSet
from hypothesis import given, settings
from hypothesis import strategies as st

import tests.reliability.test_reliability_faults as faults
from audit.actions.redact import REPORT, redact
from audit.actions.redact.proof import _survivors
from audit.actions.redact.protobuf import _as_text, redact_wire
from audit.actions.redact.replacements import _NOT_UTF8, Redactor
from audit.checks.fingerprint import SURFACES, fingerprint_paths
from audit.checks.fingerprint.surfaces import kept_by_redact
from audit.cli import main
from audit.errors import FindingsError
from audit.store.proto import cortex_pb2 as pb
from audit.store.wire import I32, I64, LEN, VARINT
from audit.store.wire import parse as parse_wire
from audit.testing import StoreBuilder
from audit.testing.sample import build
from tests.cli_capture import cli
from tests.fake_agy import agy_on_path
from tests.output_schema import ci_result, envelope

PROVEN = kept_by_redact()
IN_EVERY_STORE = ("sidecar", "sqlite", "wire", "transcript", "artifacts", "roots", "layout", "conventions", "values")
"""The surfaces every builder store has (the per-install files only where a test adds them)."""
KEY = b"k" * 32
shared_directory = faults.shared  # a directory the unprivileged user can use (a fixture)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    home = tmp_path_factory.mktemp("redact") / "home"
    build(home)
    return home


@pytest.fixture(scope="module")
def redacted(sample, tmp_path_factory):
    out = tmp_path_factory.mktemp("redacted") / "copy"
    return redact(sample, out, key=KEY)


def test_every_fingerprint_of_the_copy_equals_the_source(sample, redacted):
    # every surface: the per-install files (history, summaries, cache), the file layout (legacy
    # .pb files and -wal) and the headers of transcript content included
    assert set(redacted.digests) == set(PROVEN) == set(SURFACES)
    assert all(redacted.counts[k] > 0 for k in ("text", "json-text", "ids", "timestamps", "bytes", "legacy")), redacted.counts
    before, after = fingerprint_paths([sample], SURFACES), fingerprint_paths([redacted.out], SURFACES)
    assert redacted.digests["rpc"] == (None, None)  # a home holds no daemon answer: absent from both
    assert set(before.fingerprints) == set(after.fingerprints) >= {
        "summaries", "history", "cache", "roots", "layout", "conventions"
    }  # fmt: skip
    for surface in before.fingerprints:
        assert before.fingerprints[surface].digest == after.fingerprints[surface].digest, surface
        assert redacted.digests[surface] == (before.fingerprints[surface].digest,) * 2
    assert {line.split("\t")[1] for line in after.fingerprints["roots"].lines} == {"root", "file"}


def test_no_prompt_response_or_path_survives(sample, redacted):
    sidecars = sorted(sample.glob(".gemini/*/conversations/*.trajectory.json"))
    texts = set()
    for path in sidecars:
        for step in json.loads(path.read_text())["steps"]:
            for key in ("userResponse", "response", "thinking"):
                for part in (step.get("userInput", {}), step.get("plannerResponse", {})):
                    if len(part.get(key, "")) >= 6:
                        texts.add(part[key])
    assert len(texts) > 10
    copy_bytes = b"".join(p.read_bytes() for p in redacted.out.rglob("*") if p.is_file())
    assert [t for t in texts if t.encode() in copy_bytes] == []
    ids = {p.name.split(".")[0] for p in sidecars}
    assert [i for i in ids if i.encode() in copy_bytes] == []  # every UUID mapped, file names too


def test_json_documents_differ_only_by_string_values_and_ids_stay_consistent(sample, redacted):
    r = Redactor(KEY)
    for path in sorted(sample.glob(".gemini/*/conversations/*.trajectory.json")):
        old = json.loads(path.read_text())
        new_path = redacted.out / path.relative_to(sample).parent / f"{r.uuid(path.name.split('.')[0])}.trajectory.json"
        new = json.loads(new_path.read_text())
        d = DeepDiff(old, new, view="tree")
        assert set(d) <= {"values_changed"}
        assert all(isinstance(level.t1, str) and isinstance(level.t2, str) for level in d.get("values_changed", ()))
        assert new["cascadeId"] == r.uuid(old["cascadeId"])
        assert [s["type"] for s in new["steps"]] == [s["type"] for s in old["steps"]]
        for a, b in zip(old["steps"], new["steps"]):
            for call_a, call_b in zip(
                a.get("plannerResponse", {}).get("toolCalls", []), b.get("plannerResponse", {}).get("toolCalls", [])
            ):
                assert call_b["name"] == call_a["name"]
                assert json.loads(call_b["argumentsJson"]).keys() == json.loads(call_a["argumentsJson"]).keys()


def test_ci_judges_the_copy_as_it_judges_the_source_and_the_copy_says_what_was_done(sample, redacted, capsys):
    report = (redacted.out / REPORT).read_text()
    assert "## Fingerprints (source = copy)" in report
    assert f"- {redacted.counts['legacy']} legacy encrypted .pb files by random bytes of the same length" in report

    def verdicts(home):
        code = main(["ci", "--home", str(home), "--source", "native", "--no-live", "--format", "json", "-q"])
        doc = ci_result(envelope(capsys.readouterr().out, "ci"))
        return code, [
            (s["name"], s["verdict"], [(c["name"], c["verdict"], c["errors"]) for c in s["checks"]]) for s in doc["stages"]
        ]

    assert verdicts(redacted.out) == verdicts(sample)  # every stage and check, the per-install surfaces included
    # The sample's one .db/transcript disagreement (a planted thinking) survives redaction, nothing
    # else disagrees: truncated transcript values still agree with the .db values they were cut from.
    assert main(["consistency", "--home", str(redacted.out)]) == 1
    out = capsys.readouterr().out
    violations = [line for line in out.splitlines() if ": error: [consistency/" in line]
    assert len(violations) == 2 and all("[consistency/thinking]" in line for line in violations)


def test_placeholders_keep_length_classes_and_markers():
    r = Redactor(KEY)
    text = "Read /home/ana/Notes.md <truncated 120 bytes> naïve 東京 ok\n2nd line"
    new = r.text(text)
    assert len(new) == len(text) and len(new.encode()) == len(text.encode())
    assert new.count("\n") == 1 and "<truncated 120 bytes>" in new and "/" in new
    assert new != text and r.text(text) == new
    assert [c.isupper() for c in new] == [c.isupper() for c in text]
    assert r.text("2026-09-01T09:00:00.123Z") == (
        "2026-09-01T09:00:00.123Z".replace("2026-09-01", (r.shift + __import__("datetime").date(2026, 9, 1)).isoformat())
    )


def _key(number: int, wire_type: int) -> bytes:
    return _varint(number << 3 | wire_type)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def _len(number: int, data: bytes) -> bytes:
    return _key(number, LEN) + _varint(len(data)) + data


SECRET = b"a private note agy-audit cannot see"
NESTED = b"a nested private sentence"
BINARY = b"\x00\xff" + b"raw private payload bytes"
MIME = b"image/png"  # printable text that parses as a message: field 13, an 8-byte number


def _planted_store(home):
    """A small store whose first step payload carries, in fields cortex.proto does not name: a
    text (1999), a message holding a text and a number (1998), bytes (1997), a text that parses as
    a message (1996), and a text inside a named message (user_input.19.99); its metadata blob an
    unknown text too (18)."""
    b = StoreBuilder(home, seed=27)
    convo = b.root("cli").conversation(turns=1)
    conn = sqlite3.connect(convo.paths["db"])
    idx, blob = conn.execute("SELECT idx, step_payload FROM steps ORDER BY idx LIMIT 1").fetchone()
    step = pb.Step.FromString(blob)
    assert step.WhichOneof("step") == "user_input"
    step.user_input.MergeFromString(_len(99, SECRET[::-1]))
    planted = (
        step.SerializeToString()
        + _len(1999, SECRET)
        + _len(1998, _len(1, NESTED) + _key(2, VARINT) + b"\x07")
        + _len(1997, BINARY)
        + _len(1996, MIME)
    )
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (planted, idx))
    (meta,) = conn.execute("SELECT data FROM trajectory_metadata_blob").fetchone()
    conn.execute("UPDATE trajectory_metadata_blob SET data = ?", (meta + _len(18, NESTED[::-1]),))
    conn.commit()
    conn.close()
    return convo, idx


def _unknown_shape(db, idx):
    """(number, wire type, length) of each unknown field of the step payload and its user_input."""
    conn = sqlite3.connect(db)
    (blob,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.close()
    step = pb.Step.FromString(blob)
    fields = [*UnknownFieldSet(step), *UnknownFieldSet(step.user_input)]
    return [(f.field_number, f.wire_type, len(f.data)) for f in fields], step


def test_unknown_fields_are_redacted_not_refused_and_survive_nowhere(tmp_path, capsys):
    convo, idx = _planted_store(tmp_path / "home")
    source_shape, _ = _unknown_shape(convo.paths["db"], idx)
    result = redact(tmp_path / "home", tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    assert result.counts["unknown"] == 7  # 1999, 1998 and its field 1, 1997, 1996, 19.99, metadata 18
    (db,) = (tmp_path / "copy").glob(".gemini/*/conversations/*.db")
    copy_shape, step = _unknown_shape(db, idx)
    assert copy_shape == source_shape  # the same fields, wire types and lengths
    unknown = {f.field_number: f.data for f in UnknownFieldSet(step)}
    assert unknown[1999] != SECRET and len(unknown[1999].decode()) == len(SECRET)  # a placeholder, as text
    assert unknown[1998][:2] == _len(1, b"")[:1] + bytes([len(NESTED)]) and unknown[1998][-2:] == b"\x10\x07"
    assert unknown[1996][:1] == b"i" and unknown[1996] != MIME  # the key kept, the 8-byte value not
    copy = b"".join(p.read_bytes() for p in (tmp_path / "copy").rglob("*") if p.is_file())
    for secret in (SECRET, SECRET[::-1], NESTED, NESTED[::-1], BINARY[2:], MIME[1:]):
        assert secret not in copy
    assert main(["inspect", str(db), "--format", "json"]) == 0  # inspect sees the same unknown keys as in the source
    copied = envelope(capsys.readouterr().out, "inspect")["result"]["database"]["unknownFields"]
    assert main(["inspect", str(convo.paths["db"]), "--format", "json"]) == 0
    assert copied == envelope(capsys.readouterr().out, "inspect")["result"]["database"]["unknownFields"]


def test_what_cannot_be_shown_content_free_is_still_refused_and_the_copy_removed(tmp_path):
    """An unknown group (wire type 3, which proto3 never writes) cannot be walked field by field."""
    convo, idx = _planted_store(tmp_path / "home")
    conn = sqlite3.connect(convo.paths["db"])
    group = _key(1995, 3) + _len(1, SECRET) + _key(1995, 4)
    (blob,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (blob + group, idx))
    conn.commit()
    conn.close()
    out = tmp_path / "copy"
    with pytest.raises(FindingsError, match=rf"{convo.paths['db'].name}:steps.step_payload\[\d+\]: unsupported wire type 3"):
        redact(tmp_path / "home", out, key=KEY)
    assert not out.exists()


def test_blobs_no_schema_describes_are_redacted_as_unknown_values(tmp_path):
    """A blob of a column cortex.proto does not describe (battle_mode_infos, empty in real
    stores) and a step payload that is not a Step: content-free, the proof holding."""
    convo, idx = _planted_store(tmp_path / "home")
    conn = sqlite3.connect(convo.paths["db"])
    conn.execute("INSERT INTO battle_mode_infos VALUES (0, ?)", (_len(1, SECRET) + _key(2, VARINT) + b"\x05",))
    conn.execute("INSERT INTO battle_mode_infos VALUES (1, ?)", (BINARY,))
    (blob,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (blob[:-3], idx))  # cut: not a Step any more
    conn.commit()
    conn.close()
    result = redact(tmp_path / "home", tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    (db,) = (tmp_path / "copy").glob(".gemini/*/conversations/*.db")
    conn = sqlite3.connect(db)
    rows = [data for (data,) in conn.execute("SELECT data FROM battle_mode_infos ORDER BY idx")]
    (cut,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.close()
    assert rows[0][:2] == _len(1, SECRET)[:2] and rows[0][-2:] == b"\x10\x05" and len(rows[1]) == len(BINARY)
    assert len(cut) == len(blob) - 3
    copy = b"".join(p.read_bytes() for p in (tmp_path / "copy").rglob("*") if p.is_file())
    for secret in (SECRET, SECRET[::-1], NESTED, BINARY[2:], MIME[1:]):
        assert secret not in copy


def _same_wire_shape(source: tuple, copy: tuple) -> bool:
    """Every field kept with its number, wire type and length, and every value that parsed as a
    message in the source still one of the same shape."""
    return len(source) == len(copy) and all(
        (s.number, s.wire_type) == (c.number, c.wire_type)
        and (s.wire_type != LEN or len(s.value) == len(c.value))
        and (s.children is None or c.children is not None and _same_wire_shape(s.children, c.children))
        for s, c in zip(source, copy)
    )


_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp")), max_size=40)


@st.composite
def _messages(draw, depth=0):
    parts = []
    for _ in range(draw(st.integers(0, 4))):
        number = draw(st.integers(1, 3000))
        kind = draw(st.sampled_from(("varint", "i64", "i32", "text", "bytes") + (("message",) if depth < 3 else ())))
        if kind == "varint":
            parts.append(_key(number, VARINT) + _varint(draw(st.integers(0, 2**64 - 1))))
        elif kind in ("i64", "i32"):
            parts.append(
                _key(number, I64 if kind == "i64" else I32)
                + draw(st.binary(min_size=8 if kind == "i64" else 4, max_size=8 if kind == "i64" else 4))
            )
        elif kind == "text":
            parts.append(_len(number, draw(_texts).encode()))
        elif kind == "bytes":
            parts.append(_len(number, draw(st.binary(max_size=40))))
        else:
            parts.append(_len(number, draw(_messages(depth + 1))))
    return b"".join(parts)


@settings(max_examples=300)
@given(_messages())
def test_a_message_no_schema_describes_keeps_its_wire_shape_and_loses_its_text(data):
    r = Redactor(KEY)
    new = redact_wire(data, None, r)
    source = parse_wire(data)
    assert _same_wire_shape(source, parse_wire(new))

    def texts(fields):
        for f in fields:
            if f.wire_type == LEN:
                text = _as_text(f.value)
                if f.children is not None:
                    yield from texts(f.children)
                if text is not None and len(text) >= 6 and any(ch.isalnum() for ch in text):
                    yield f.value

    assert [t for t in texts(source) if t in new] == []


def test_redact_refuses_an_existing_or_nested_output(sample, tmp_path, capsys):
    assert main(["redact", str(sample), "--out", str(sample / "inside")]) == 2
    existing = tmp_path / "exists"
    existing.mkdir()
    assert main(["redact", str(sample), "--out", str(existing)]) == 2
    err = capsys.readouterr().err
    assert "inside the source" in err and "already exists" in err


def test_a_redacted_store_is_a_fixture_source_and_a_real_one_is_not(sample, redacted, tmp_path):
    from audit.testing.builder import load_redacted

    home = load_redacted(redacted.out, tmp_path / "fixture")
    assert not (home / REPORT).exists()
    assert fingerprint_paths([home], SURFACES).fingerprints["wire"].digest == redacted.digests["wire"][0]
    with pytest.raises(ValueError, match="only a copy made by 'agy-audit redact' can be a fixture"):
        load_redacted(sample, tmp_path / "real")


def test_a_sweep_corpus_redacts_to_a_valid_corpus_whose_manifest_hashes_the_copy(sample, tmp_path):
    import hashlib

    from audit.actions.sweep import sweep
    from audit.checks import completeness
    from audit.checks.contract import validate_file
    from audit.store.layout import resolve_roots

    corpus = tmp_path / "corpus"
    sweep(resolve_roots(home=sample, env={}), corpus, source="native")
    result = redact(corpus, tmp_path / "copy", key=KEY)
    assert result.digests["sidecar"][0] == result.digests["sidecar"][1] is not None
    manifest = json.loads((result.out / "manifest.json").read_text())
    assert validate_file(result.out / "manifest.json", "manifest").valid
    files = {k: v for s in manifest["sessions"] for k, v in s["files"].items()}
    assert files and all(hashlib.sha256((result.out / k).read_bytes()).hexdigest() == v for k, v in files.items())
    assert str(sample) not in (result.out / "manifest.json").read_text()
    assert {r.verdict for r in completeness.check([result.out]).results} == {"complete"}


def test_every_builder_shape_and_media_inputs_redact_with_their_proof(tmp_path):
    """Every Part B step shape (browser sub-agent, unnamed enum values and images attached to a
    prompt included) and every real-world transcript case (both tiers across chunk boundaries,
    overview, truncated args): the proof holds and no media text survives."""
    from audit.testing import trajectories as T
    from audit.testing.realworld import add_real_world

    b = StoreBuilder(tmp_path / "home", seed=15)
    ide = b.root("ide")
    every = ide.conversation(steps=T.every_shape_steps(b.rng, b.clock))
    ide.conversation(turns=2, wal_steps=1, shm_without_wal=True, sidecar="missing")
    add_real_world(b, long_answers=40)
    media = every.steps[0]["userInput"]["media"]
    assert [sorted(m) for m in media] == [
        ["description", "inlineData", "mimeType", "thumbnail", "uri"],
        ["inlineData", "mimeType", "thumbnail", "uri"],
    ]
    result = redact(b.home, tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    assert all(result.digests[s][0] is not None for s in IN_EVERY_STORE)
    (db,) = (tmp_path / "copy").glob(f".gemini/antigravity/conversations/{Redactor(KEY).uuid(every.id)}.db")
    conn = sqlite3.connect(db)
    (payload,) = conn.execute("SELECT step_payload FROM steps WHERE idx = 0").fetchone()
    conn.close()
    copied = pb.Step.FromString(payload).user_input.media
    assert [(len(m.mime_type), m.HasField("inline_data"), len(m.uri), len(m.thumbnail)) for m in copied] == [
        (len(m["mimeType"]), True, len(m["uri"]), 24) for m in media
    ]
    copy = b"".join(p.read_bytes() for p in (tmp_path / "copy").rglob("*") if p.is_file())
    assert [m["uri"] for m in media if m["uri"].encode() in copy] == []
    assert b"screenshot" not in copy and b"image/png" not in copy


NOT_UTF8 = b"secret \xff\xfe private words \xe6\x9d"  # Latin-1 bytes and a cut CJK character
VALID = "a private sentence stored as text"


def _classes(data: bytes) -> list[str]:
    """Each byte's class: lower, upper, digit, high (not ASCII), or the byte itself."""

    def of(byte: int) -> str:
        ch = chr(byte)
        if byte >= 0x80:
            return "high"
        return "lower" if ch.islower() else "upper" if ch.isupper() else "digit" if ch.isdigit() else ch

    return [of(byte) for byte in data]


def test_text_cells_that_are_not_utf8_are_redacted_byte_for_byte_and_stay_text(tmp_path, capsys):
    """SQLite stores what it is given: a TEXT cell that is not UTF-8 in a text column and in a
    message column, and a UTF-8 TEXT cell where a message belongs, are redacted as text (same
    bytes length and classes, still TEXT, the bytes that are not UTF-8 by bytes that never are),
    and the proof holds."""
    b = StoreBuilder(tmp_path / "home", seed=27)
    convo = b.root("cli").conversation(turns=1)
    conn = sqlite3.connect(convo.paths["db"])
    conn.execute("UPDATE trajectory_meta SET cascade_id = CAST(? AS TEXT)", (NOT_UTF8,))
    conn.execute("UPDATE steps SET step_payload = CAST(? AS TEXT) WHERE idx = 1", (NOT_UTF8[::-1],))
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = 3", (VALID,))
    conn.commit()
    conn.close()
    out = tmp_path / "copy"
    assert main(["redact", str(tmp_path / "home"), "--out", str(out), "--seed", "t", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["result"]
    assert doc["files"] == 9 and doc["replaced"]["text"] > 0
    (db,) = out.glob(".gemini/*/conversations/*.db")
    conn = sqlite3.connect(db)
    conn.text_factory = bytes
    (meta,) = conn.execute("SELECT cascade_id FROM trajectory_meta WHERE typeof(cascade_id) = 'text'").fetchone()
    steps = dict(conn.execute("SELECT idx, step_payload FROM steps WHERE typeof(step_payload) = 'text'").fetchall())
    conn.close()
    assert sorted(steps) == [1, 3]
    for old, new in ((NOT_UTF8, meta), (NOT_UTF8[::-1], steps[1]), (VALID.encode(), steps[3])):
        assert new != old and len(new) == len(old) and _classes(new) == _classes(old)
    assert [byte in _NOT_UTF8 for byte in meta + steps[1] if byte >= 0x80] == [True] * 8  # were ff fe e6 9d
    for new in (meta, steps[1]):
        with pytest.raises(UnicodeDecodeError):
            new.decode("utf-8")
    copy = b"".join(p.read_bytes() for p in out.rglob("*") if p.is_file())
    for secret in (b"secret", b"private", b"words", b"\xff\xfe", VALID.encode()[2:]):
        assert secret not in copy


def test_the_survivor_proof_looks_for_the_source_bytes_of_text_that_is_not_utf8(tmp_path):
    r = Redactor(KEY)
    r.text(NOT_UTF8.decode("utf-8", "surrogateescape"))
    (tmp_path / "kept.bin").write_bytes(b"<" + NOT_UTF8 + b">")
    (tmp_path / "other.bin").write_bytes(NOT_UTF8[:-1])
    assert _survivors(tmp_path, r) == [f"kept.bin: {len(NOT_UTF8)}-byte source string survives"]


def test_text_a_utf16_database_cannot_store_back_byte_for_byte_is_refused_in_one_line(tmp_path):
    """In a UTF-16 database a lone surrogate reads as bytes that are not UTF-8, and SQLite would
    not store redacted bytes back as they are: exit 2, one line naming the file, no copy."""
    b = StoreBuilder(tmp_path / "home", seed=27)
    db = b.root("cli").conversation(turns=1).paths["db"]
    conn = sqlite3.connect(db)
    dump, version = list(conn.iterdump()), conn.execute("PRAGMA user_version").fetchone()[0]
    conn.close()
    db.unlink()
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA encoding = 'UTF-16le'")
    conn.executescript("\n".join(dump))
    conn.execute(f"PRAGMA user_version = {version}")
    lone = ("private words".encode("utf-16le") + b"\x00\xdc").hex()  # a low surrogate at the end
    conn.execute(f"UPDATE trajectory_meta SET cascade_id = CAST(X'{lone}' AS TEXT)")
    conn.commit()
    conn.close()
    out = tmp_path / "copy"
    assert cli("redact", tmp_path / "home", "--out", out) == (
        2,
        "",
        f"agy-audit: {db}: trajectory_meta.cascade_id[1]: text that is not UTF-8 in a UTF-16 database"
        " cannot be redacted byte for byte\n",
    )
    assert not out.exists()


def test_a_database_sqlite_cannot_read_for_redaction_is_one_line_and_no_copy(tmp_path):
    """A schema that is not UTF-8 (a column name): exit 2, one line naming the file, no copy."""
    b = StoreBuilder(tmp_path / "home", seed=27)
    db = b.root("cli").conversation(turns=1).paths["db"]
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE extra (note text)")
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = CAST(? AS TEXT) WHERE name = 'extra'", (b"CREATE TABLE extra (n\xffte text)",))
    conn.commit()
    conn.close()
    out = tmp_path / "copy"
    code, stdout, stderr = cli("redact", tmp_path / "home", "--out", out)
    assert (code, stdout) == (2, "")
    assert stderr.startswith(f"agy-audit: {db}: cannot redact the database (") and stderr.count("\n") == 1
    assert not out.exists()


def test_redact_help_says_unknown_fields_are_redacted_and_groups_refused(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["redact", "--help"])
    assert exit_.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert (
        "Protobuf fields cortex.proto does not name, and blobs of columns it does not describe, are redacted too: as "
        "messages when they parse as one, else by placeholders (printable UTF-8) or random bytes, keys and lengths "
        "kept; a group (wire type 3) cannot be walked field by field and is refused."
    ) in text


SPACES = b" " * 16  # real .db text, transcripts, messages and artifacts hold runs of 8-40 spaces


def test_blobs_keep_their_explicit_defaults_and_text_without_letters_stays(tmp_path):
    """Real planner configs carry fields encoded at their default value, which re-serialising
    drops (docs/store-format.md#explicit-defaults), and real stores hold text that is only spaces: the copy keeps the
    bytes of both, its fingerprints are the source's and the proof holds."""
    from audit.testing import trajectories as T
    from audit.testing.dbwriter import EXPLICIT_DEFAULTS

    b = StoreBuilder(tmp_path / "home", seed=31)
    steps = T.conversation_steps(b.rng, b.clock, 2)
    planner = next(s for s in steps if "plannerResponse" in s)
    planner["plannerResponse"]["response"] = " " * 24
    convo = b.root("ide").conversation(steps=steps, explicit_defaults=True)
    conn = sqlite3.connect(convo.paths["db"])
    generations = [data for (data,) in conn.execute("SELECT data FROM gen_metadata ORDER BY idx")]
    executions = [data for (data,) in conn.execute("SELECT data FROM executor_metadata ORDER BY idx")]
    (idx, payload) = conn.execute("SELECT idx, step_payload FROM steps ORDER BY idx LIMIT 1").fetchone()
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (payload + _len(1999, SPACES), idx))
    conn.commit()
    conn.close()
    with_defaults = [blob for blob in generations + executions if EXPLICIT_DEFAULTS in blob]
    assert len(with_defaults) == 1 + len(executions) >= 2  # the last generation and every execution
    # re-serialising drops them: the wire fingerprint of such a copy would differ
    assert pb.CortexStepGeneratorMetadata.FromString(generations[-1]).SerializeToString() != generations[-1]
    assert pb.ExecutorMetadata.FromString(executions[0]).SerializeToString() != executions[0]
    message = next(convo.paths["brain"].glob(".system_generated/messages/*-*.json"))
    doc = json.loads(message.read_text())
    message.write_text(json.dumps({**doc, "content": SPACES.decode()}, indent=2) + "\n")
    (convo.paths["brain"] / "notes.md").write_text("# Notes\n" + SPACES.decode() + "\n")

    result = redact(b.home, tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    assert all(result.digests[s][0] is not None for s in IN_EVERY_STORE)
    (db,) = (tmp_path / "copy").glob(".gemini/*/conversations/*.db")
    conn = sqlite3.connect(db)
    copied = [data for (data,) in conn.execute("SELECT data FROM gen_metadata ORDER BY idx")]
    copied += [data for (data,) in conn.execute("SELECT data FROM executor_metadata ORDER BY idx")]
    (copied_payload,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.close()
    assert [EXPLICIT_DEFAULTS in blob for blob in copied] == [EXPLICIT_DEFAULTS in blob for blob in generations + executions]
    assert [len(blob) for blob in copied] == [len(blob) for blob in generations + executions]
    assert copied_payload.endswith(_len(1999, SPACES))  # the spaces of an unknown field, as they were
    brain = tmp_path / "copy" / convo.paths["brain"].relative_to(b.home).parent / Redactor(KEY).uuid(convo.id)
    assert (brain / "notes.md").read_text() != "# Notes\n" + SPACES.decode() + "\n"
    assert (brain / "notes.md").read_text().endswith("\n" + SPACES.decode() + "\n")
    (copied_message,) = brain.glob(".system_generated/messages/*-*.json")
    assert json.loads(copied_message.read_text())["content"] == SPACES.decode()
    sidecar = json.loads(next((tmp_path / "copy").glob(".gemini/*/conversations/*.trajectory.json")).read_text())
    responses = [s["plannerResponse"].get("response") for s in sidecar["steps"] if "plannerResponse" in s]
    assert responses.count(" " * 24) == 1 and len(responses) > 1


def test_a_large_blob_redacts_in_one_pass(tmp_path):
    """Several MB of bytes (an image attached to a prompt), of an unknown binary field and of
    text: each value is replaced by one hash of it and its extension, and the text in one pass
    (the filler used to hash the whole blob again per 32 bytes: 1 MB took 46 s)."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    convo = b.root("cli").conversation(turns=1)
    image, blob, text = bytes(range(256)) * (16 << 12), b"\x00\x01" * (2 << 20), ("word " * (64 << 10)).encode()
    conn = sqlite3.connect(convo.paths["db"])
    (idx, payload) = conn.execute("SELECT idx, step_payload FROM steps ORDER BY idx LIMIT 1").fetchone()
    step = pb.Step.FromString(payload)
    step.user_input.media.add(mime_type="image/png", inline_data=image)
    planted = step.SerializeToString() + _len(1990, blob) + _len(1991, text)
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (planted, idx))
    conn.commit()
    conn.close()
    result = redact(b.home, tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    (db,) = (tmp_path / "copy").glob(".gemini/*/conversations/*.db")
    conn = sqlite3.connect(db)
    (copied,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.close()
    assert len(copied) == len(planted) > 8 << 20
    new = pb.Step.FromString(copied)
    assert len(new.user_input.media[-1].inline_data) == len(image) and new.user_input.media[-1].inline_data != image
    unknown = {f.field_number: f.data for f in UnknownFieldSet(new)}
    assert len(unknown[1990]) == len(blob) and b"\x00\x01" * 4 not in unknown[1990]
    assert len(unknown[1991]) == len(text) and b"word" not in unknown[1991] and unknown[1991].count(b" ") == text.count(b" ")


def test_noise_is_one_keyed_hash_and_one_extension_whatever_the_length(monkeypatch):
    r = Redactor(KEY)
    calls = []
    real = r._digest
    monkeypatch.setattr(r, "_digest", lambda purpose, data: calls.append(len(data)) or real(purpose, data))
    for size in (1, 33, 1 << 20, 8 << 20):
        data = bytes(size)
        new = r.noise(data)
        assert len(new) == size and new != data and r.noise(data) == new
    assert calls == [1, 1, 33, 33, 1 << 20, 1 << 20, 8 << 20, 8 << 20]  # once per value, never per 32 bytes


def test_a_huge_sparse_sidecar_is_refused_before_a_byte_is_read(tmp_path):
    import tracemalloc

    b = StoreBuilder(tmp_path / "home", seed=5)
    convo = b.root("cli").conversation(turns=1)
    with open(convo.paths["sidecar"], "r+b") as fh:
        fh.truncate(2 << 30)  # 2 GiB, sparse
    tracemalloc.start()
    try:
        code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (code, stdout) == (2, "")
    assert stderr == (
        f"agy-audit: {convo.paths['sidecar']}: {2 << 30} bytes, larger than the limit of {256 << 20} (--max-file-size);"
        " nothing was written\n"
    )
    assert peak < 32 << 20 and not (tmp_path / "copy").exists()


def test_a_huge_sparse_transcript_is_streamed_up_to_the_line_limit(tmp_path):
    """A JSON-lines file is read a line at a time: a line longer than --max-file-size (a sparse
    file of 2 GiB is one line of NUL bytes) is refused after reading that much, not the file."""
    import tracemalloc

    b = StoreBuilder(tmp_path / "home", seed=5)
    convo = b.root("cli").conversation(turns=1)
    transcript = convo.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl"
    with open(transcript, "r+b") as fh:
        fh.truncate(2 << 30)
    tracemalloc.start()
    try:
        code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q", "--max-file-size", "1M")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (code, stdout, stderr) == (
        2,
        "",
        f"agy-audit: {transcript}: a line longer than the limit of {1 << 20} bytes (--max-file-size)\n",
    )
    assert peak < 32 << 20 and not (tmp_path / "copy").exists()


@pytest.mark.parametrize("size", ["0", "-1", "1T", "x", "99999999999999999G"])
def test_max_file_size_must_be_a_size(size, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["redact", str(tmp_path), "--out", str(tmp_path / "copy"), "--max-file-size", size])
    assert exit_.value.code == 2
    assert f"argument --max-file-size: {size!r} is not a size in bytes above 0" in capsys.readouterr().err


def test_progress_goes_to_stderr_as_plain_lines_off_a_terminal(sample, tmp_path, monkeypatch):
    import re

    from audit import progress

    monkeypatch.delenv(progress.ENV)
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    code, stdout, stderr = cli("redact", sample, "--out", tmp_path / "copy", "--seed", "s", "--format", "json")
    assert code == 0 and json.loads(stdout)["result"]["files"] > 0
    lines = stderr.splitlines()
    shape = re.compile(
        r"redact: (copy|proof, (fingerprints of the (source|copy)|search of the copy for source strings)): \d+/\d+ files, \d+\.\d/s, now .+"
    )
    assert [line for line in lines if not shape.fullmatch(line)] == []
    phases = list(dict.fromkeys(line.split(":")[1].strip() for line in lines))
    assert phases == [
        "copy",
        "proof, fingerprints of the source",
        "proof, fingerprints of the copy",
        "proof, search of the copy for source strings",
    ]
    assert "\r" not in stderr and "\x1b" not in stderr
    assert cli("redact", sample, "--out", tmp_path / "quiet", "-q")[0::2] == (0, "")


@pytest.mark.parametrize(
    ("mode", "why"),
    [(0o444, "cannot enter (Permission denied): it can be listed but not searched"), (0o000, "cannot list (Permission denied)")],
    ids=["0444", "0000"],
)
@pytest.mark.parametrize("where", ["conversations", "brain", "session brain", "logs"])
def test_a_directory_that_cannot_be_entered_is_one_line_naming_it_and_no_copy(shared_directory, where, mode, why):
    """A directory of the store listable but not searchable (0444), or not even listable (0000),
    as a user other than root: one line naming the directory as every other command does, exit 2,
    no copy, the store untouched -- unreadable, never empty (issue 38 item 3)."""
    root = StoreBuilder(shared_directory / "home", seed=8).root("cli")
    brain = root.conversation(turns=1).paths["brain"]
    directory = {
        "conversations": root.path / "conversations",
        "brain": root.path / "brain",
        "session brain": brain,
        "logs": brain / ".system_generated" / "logs",
    }[where]
    faults.give_away(shared_directory)
    directory.chmod(mode)
    before = faults.snapshot(root.path)
    code, stdout, stderr = faults.unprivileged(
        lambda: cli("redact", shared_directory / "home", "--out", shared_directory / "copy", "-q")
    )
    assert (code, stdout, stderr) == (2, "", f"agy-audit: {directory}: {why}\n")
    assert not (shared_directory / "copy").exists()
    assert faults.snapshot(root.path) == before and directory.stat().st_mode & 0o777 == mode


_needle_texts = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=3, max_size=40).filter(
    lambda t: len(t.encode()) >= 8
)


@settings(max_examples=300)
@given(
    st.lists(_needle_texts, min_size=1, max_size=6),
    st.lists(st.tuples(st.integers(0, 5), st.binary(max_size=40)), max_size=8),
    st.binary(max_size=200),
    st.sampled_from((5, 8, 13, 64, 1 << 20)),
)
def test_the_needle_search_finds_what_a_plain_search_finds(texts, inserted, filler, block):
    """Every 8-byte window at every offset, across block boundaries (a block as small as 5 bytes),
    needles longer than a block, overlapping occurrences: the found set is the plain one."""
    import io

    from audit.actions.redact.replacements import Needles

    needles = Needles()
    for text in texts:
        needles.add(text)
    data = filler
    for which, gap in inserted:
        data += texts[which % len(texts)].encode() + gap
    data += texts[0].encode()[: len(texts[0].encode()) // 2]  # a cut needle at the end
    found = set(needles.find(io.BytesIO(data), block=block))
    assert found == {t.encode() for t in texts if t.encode() in data}


def test_a_sidecar_enum_value_cortex_proto_does_not_name_and_a_lone_surrogate_are_kept(tmp_path):
    """A new agy enum name (no number in cortex.proto) is format: the values fingerprint records
    it, so the copy keeps it; a ``\\ud800`` escape in a sidecar string is written as an escape again."""
    b = StoreBuilder(tmp_path / "home", seed=12)
    convo = b.root("cli").conversation(turns=1)
    doc = json.loads(convo.paths["sidecar"].read_text())
    planner = next(s for s in doc["steps"] if "plannerResponse" in s)
    planner["plannerResponse"]["stopReason"] = "STOP_REASON_SOMETHING_NEW"
    doc["note"] = "a private \ud800 sentence"
    convo.paths["sidecar"].write_text(json.dumps(doc, indent=2) + "\n")
    result = redact(b.home, tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    (sidecar,) = (tmp_path / "copy").glob(".gemini/*/conversations/*.trajectory.json")
    text = sidecar.read_text()
    copied = json.loads(text)
    assert [s["plannerResponse"].get("stopReason") for s in copied["steps"] if "plannerResponse" in s].count(
        "STOP_REASON_SOMETHING_NEW"
    ) == 1
    assert "\\ud800" in text and len(copied["note"]) == len(doc["note"]) and "private" not in copied["note"]


def test_json_nested_too_deep_is_refused_in_one_line_or_redacted_as_text_in_a_line(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=12)
    convo = b.root("cli").conversation(turns=1)
    deep, deeper = "[" * 300 + "]" * 300, "[" * 3000 + "]" * 3000  # parsed, or too deep for the parser
    transcript = convo.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl"
    with transcript.open("a") as fh:
        fh.write(deep + "\n" + deeper + "\n")
    assert redact(b.home, tmp_path / "copy", key=KEY).digests["transcript"][0] is not None
    copied = next((tmp_path / "copy").glob(".gemini/*/brain/*/.system_generated/logs/transcript.jsonl"))
    assert copied.read_text().endswith("\n" + deep + "\n" + deeper + "\n")  # not records: text, punctuation kept
    artifact = convo.paths["brain"] / "deep.json"
    artifact.write_text(deep)
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "again", "-q")
    assert (code, stdout, stderr) == (2, "", f"agy-audit: {artifact}: JSON nested deeper than 256 levels; not redacted\n")
    assert not (tmp_path / "again").exists()


BIG = "9" * 4301  # one digit beyond CPython's int/str conversion limit


def _transcript(convo):
    return convo.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl"


def test_numbers_json_cannot_write_as_read_are_kept_as_their_text(tmp_path):
    """A 4,301-digit integer (beyond int/str conversion), 1e400 (beyond a float) and 1.10 in a
    transcript line, its JSON-text arguments, an indented sidecar and a spaced JSON artifact:
    numbers are format, kept byte for byte (an internal error or a refused proof before)."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    convo = b.root("cli").conversation(turns=1)
    args = f'{{\\"n\\": 1e400, \\"m\\": -{BIG}, \\"q\\": \\"a private query\\"}}'
    line = f'{{"type":"x","step_index":{BIG},"tenth":1.10,"args":{{"q":"{args}"}}}}'
    with _transcript(convo).open("a") as fh:
        fh.write(line + "\n")
    sidecar = convo.paths["sidecar"]
    sidecar.write_text(sidecar.read_text().rstrip()[:-1] + f',\n  "big": {BIG},\n  "far": -1e400\n}}\n')
    artifact = convo.paths["brain"] / "numbers.json"
    artifact.write_text(f'{{"n": {BIG}, "note": "a private note"}}')
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q", "--seed", "s")
    assert (code, stderr) == (0, "")
    copy = tmp_path / "copy" / ".gemini" / "antigravity-cli"
    (transcript,) = copy.glob("brain/*/.system_generated/logs/transcript.jsonl")
    copied = transcript.read_text().splitlines()[-1]
    redacted_query = copied.rsplit('\\"q\\": \\"', 1)[1][: len("a private query")]
    assert len(redacted_query) == len("a private query") and "private" not in redacted_query
    assert copied == line.replace("a private query", redacted_query)  # every number as it was written
    (sidecar_copy,) = copy.glob("conversations/*.trajectory.json")
    assert sidecar_copy.read_text().endswith(f',\n  "big": {BIG},\n  "far": -1e400\n}}\n')
    (artifact_copy,) = copy.glob("brain/*/numbers.json")
    text = artifact_copy.read_text()
    assert text.startswith(f'{{"n": {BIG}, "note": "') and len(text) == len(artifact.read_text()) and "private" not in text


def _deep(depth: int) -> str:
    return "[" * depth + '"a private word"' + "]" * depth


@pytest.mark.parametrize("depth", [300, 3000])
@pytest.mark.parametrize("where", ["sidecar", "transcript line", "messages"])
def test_json_nested_deeper_than_256_levels_is_refused_in_one_line(where, depth, tmp_path):
    """Whether our parser reads it (300) or not (3000): a sidecar, a JSON-lines line (an object:
    its keys would be replaced as text) and a message file are one line naming the file, exit 2,
    no copy."""
    b = StoreBuilder(tmp_path / "home", seed=12)
    convo = b.root("cli").conversation(turns=1)
    if where == "sidecar":
        path, named = convo.paths["sidecar"], convo.paths["sidecar"]
        path.write_text(path.read_text().rstrip()[:-1] + f', "deep": {_deep(depth)}}}\n')
    elif where == "transcript line":
        path = _transcript(convo)
        with path.open("a") as fh:
            fh.write(f'{{"type": "x", "deep": {_deep(depth)}}}\n')
        named = f"{path}: line {len(path.read_text().splitlines())}"
    else:
        path = named = convo.paths["brain"] / ".system_generated" / "messages" / "deep.json"
        path.write_text(f'{{"deep": {_deep(depth)}}}')
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q")
    assert (code, stdout, stderr) == (2, "", f"agy-audit: {named}: JSON nested deeper than 256 levels; not redacted\n")
    assert not (tmp_path / "copy").exists()


def test_a_failing_proof_explains_a_document_nested_256_deep_without_recursing(tmp_path):
    """Two keys that differ only in the case of a UUID map to one key: the proof refuses, and
    explaining it walks a 256-deep array (a RecursionError, exit 70, before)."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    sidecar = b.root("cli").conversation(turns=1).paths["sidecar"]
    uuid = "0a1b2c3d-0000-4000-8000-00000000000"
    sidecar.write_text(sidecar.read_text().rstrip()[:-1] + f', "{uuid}A": 1, "{uuid}a": 2, "deep": {_deep(256)}}}\n')
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q")
    assert (code, stdout) == (1, "")
    assert stderr == (
        f"agy-audit: {b.home}: redaction refused, the copy was removed: {sidecar}: "
        "differs from its copy by more than string values\n"
    )
    assert not (tmp_path / "copy").exists()


@pytest.mark.parametrize("levels", [300, 3000])
@pytest.mark.parametrize("kind", ["declared", "unknown"])
def test_blobs_nested_deep_are_redacted_content_free(kind, levels, tmp_path):
    """A step payload holding Step.subtrajectory.steps (a cycle cortex.proto declares) or an
    unknown field, nested 300 and 3,000 messages deep around a text: protobuf refuses to parse
    it, so it is walked as a blob no schema describes, as deep as the wire fingerprint looks,
    and random bytes below; the proof holds and the text is gone."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    db = b.root("cli").conversation(turns=1).paths["db"]
    inner = _len(999, SECRET)
    for level in range(levels):
        inner = _len((6 if level % 2 else 2) if kind == "declared" else 999, inner)
    conn = sqlite3.connect(db)
    idx, blob = conn.execute("SELECT idx, step_payload FROM steps ORDER BY idx LIMIT 1").fetchone()
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (blob + inner, idx))
    conn.commit()
    conn.close()
    result = redact(b.home, tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    (copied,) = (tmp_path / "copy").glob(".gemini/*/conversations/*.db")
    conn = sqlite3.connect(copied)
    (payload,) = conn.execute("SELECT step_payload FROM steps WHERE idx = ?", (idx,)).fetchone()
    conn.close()
    assert len(payload) == len(blob + inner) and SECRET not in payload and SECRET[:12] not in copied.read_bytes()


def _entries(top):
    """Every entry below *top* with its lstat mode, size and mtime (nothing opened or followed)."""
    return {str(p.relative_to(top)): (s.st_mode, s.st_size, s.st_mtime_ns) for p in top.rglob("*") for s in [p.lstat()]}


def test_fifos_and_symlinks_are_left_out_listed_never_opened_nor_followed(tmp_path):
    """A FIFO where the transcript belongs (opening it would block), a sidecar that is a symbolic
    link to a secret outside the store, a link looping to its own directory and a dangling one:
    each left out and listed, none opened or followed, the proof holds, the store untouched."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    convo = b.root("cli").conversation(turns=1)
    transcript = _transcript(convo)
    transcript.unlink()
    os.mkfifo(transcript)
    secret = tmp_path / "outside.json"
    secret.write_text('{"note": "a private secret outside the store"}')
    sidecar = convo.paths["sidecar"]
    sidecar.unlink()
    sidecar.symlink_to(secret)
    (convo.paths["brain"] / "loop").symlink_to(convo.paths["brain"])
    (convo.paths["brain"] / "gone.md").symlink_to(tmp_path / "nowhere")
    before = _entries(b.home)
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q", "--seed", "s", "--format", "json")
    assert (code, stderr) == (0, "")
    new_id = Redactor(hashlib.sha256(b"s").digest()).uuid(convo.id)
    assert [item for item in json.loads(stdout)["result"]["leftOut"] if item.endswith(": not a regular file")] == [
        f".gemini/antigravity-cli/{rel}: not a regular file"
        for rel in (
            f"brain/{new_id}/gone.md",
            f"brain/{new_id}/loop",
            f"brain/{new_id}/.system_generated/logs/transcript.jsonl",
            f"conversations/{new_id}.trajectory.json",
        )
    ]
    copied = [p for p in (tmp_path / "copy").rglob("*") if not p.is_dir()]
    assert not any(p.is_symlink() or not p.is_file() for p in copied)
    assert not any(b"outside the store" in p.read_bytes() for p in copied)
    assert _entries(b.home) == before


@pytest.mark.parametrize("cut", ["half", "header page", "100 bytes", "empty", "not sqlite"])
def test_a_truncated_or_foreign_database_is_one_line_naming_it_and_no_copy(cut, tmp_path):
    """A ``.db`` cut short (as a copy interrupted mid-write leaves it), empty, or not SQLite at all:
    what its header says, in one line naming it, exit 2, no copy, the source as it was."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    db = b.root("cli").conversation(turns=1).paths["db"]
    whole = db.read_bytes()
    page_size, pages = int.from_bytes(whole[16:18], "big"), int.from_bytes(whole[28:32], "big")
    data = {
        "half": whole[: len(whole) // 2],
        "header page": whole[:page_size],
        "100 bytes": whole[:100],
        "empty": b"",
        "not sqlite": b"a private note, not a database\n" * 200,
    }[cut]
    db.write_bytes(data)
    before = faults.snapshot(b.home)
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q")
    why = {
        "empty": "empty file (0 bytes)",
        "not sqlite": "not an SQLite database (bad header)",
    }.get(cut, f"truncated ({len(data)} bytes; header says {pages} pages of {page_size})")
    assert (code, stdout, stderr) == (2, "", f"agy-audit: {db}: {why}\n")
    assert not (tmp_path / "copy").exists() and faults.snapshot(b.home) == before


def test_a_database_whose_wal_takes_it_over_the_limit_is_refused_before_a_byte_is_read(tmp_path):
    """The ``-wal``'s committed pages are read with the ``.db``: their sum is held to
    --max-file-size (a sparse 2 GiB ``-wal`` beside a small database)."""
    b = StoreBuilder(tmp_path / "home", seed=5)
    db = b.root("cli").conversation(turns=1).paths["db"]
    with open(f"{db}-wal", "wb") as fh:
        fh.truncate(2 << 30)
    code, stdout, stderr = cli("redact", b.home, "--out", tmp_path / "copy", "-q")
    size = db.stat().st_size + (2 << 30)
    assert (code, stdout) == (2, "")
    assert (
        stderr == f"agy-audit: {db}: {size} bytes, larger than the limit of {256 << 20} (--max-file-size); nothing was written\n"
    )
    assert not (tmp_path / "copy").exists()


@pytest.mark.parametrize(
    ("which", "why"),
    [
        ("sidecar", "permission denied"),
        ("db", "cannot read (Permission denied)"),
        ("transcript", "cannot read (Permission denied)"),
        ("artifact", "permission denied"),
    ],
)
def test_a_file_that_cannot_be_read_is_one_line_naming_it_and_no_copy(shared_directory, which, why):
    """A sidecar, ``.db``, transcript or brain artifact at mode 0000, as a user other than root:
    one line naming the file, exit 2, no copy, the store untouched (issue 38 item 3)."""
    root = StoreBuilder(shared_directory / "home", seed=8).root("cli")
    convo = root.conversation(turns=1)
    path = {
        "sidecar": convo.paths["sidecar"],
        "db": convo.paths["db"],
        "transcript": _transcript(convo),
        "artifact": convo.paths["brain"] / "task.md.metadata.json",
    }[which]
    faults.give_away(shared_directory)
    path.chmod(0)
    before = faults.snapshot(root.path)
    code, stdout, stderr = faults.unprivileged(
        lambda: cli("redact", shared_directory / "home", "--out", shared_directory / "copy", "-q")
    )
    assert (code, stdout, stderr) == (2, "", f"agy-audit: {path}: {why}\n")
    assert not (shared_directory / "copy").exists() and faults.snapshot(root.path) == before


def test_a_shared_copy_passes_ci_against_the_baseline_recorded_from_its_source(tmp_path, monkeypatch):
    """The share workflow: record a baseline from your home, redact the home, and whoever gets the
    copy runs ``ci`` against that baseline as you would: every stage judges the copy as the source
    (legacy .pb sessions, a -wal, per-install files, headers in tool results and 64-bit numbers in
    proto3 JSON included), so the copy reproduces what you see."""
    from audit.testing import trajectories as T

    b = StoreBuilder(tmp_path / "home", seed=41)
    cli_root = b.root("cli")
    convos = [cli_root.conversation(turns=2), cli_root.conversation(turns=1, wal_steps=2)]
    convos.append(cli_root.conversation(steps=T.every_shape_steps(b.rng, b.clock)))
    legacy = cli_root.conversation(db=False, legacy_pb=True)
    cli_root.install_files(convos, cli=True)
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    agy_on_path(monkeypatch, tmp_path / "bin", "9.9.9")  # the agy that confirms the baseline's name
    native = ("--source", "native", "--no-live", "--readable-only", "-q")
    code, _, err = cli("ci", "--home", b.home, *native, "--record", "agy-9.9.9")
    assert (code, err) == (0, "")

    copy = tmp_path / "copy"
    assert redact(b.home, copy, key=KEY).digests.keys() == set(SURFACES)
    copied = copy / ".gemini" / "antigravity-cli" / "conversations"
    wal = next(copied.glob("*.db-wal"))
    assert wal.stat().st_size == 0  # every frame is in the .db; the layout keeps the file
    (pb_copy,) = copied.glob("*.pb")
    assert pb_copy.stat().st_size == legacy.paths["legacy_pb"].stat().st_size
    assert pb_copy.read_bytes() != legacy.paths["legacy_pb"].read_bytes()
    source_sidecar = json.loads(convos[0].paths["sidecar"].read_text())
    copy_sidecar = json.loads((copied / f"{Redactor(KEY).uuid(convos[0].id)}.trajectory.json").read_text())
    usage = [g["chatModel"]["usage"] for g in source_sidecar["generatorMetadata"]]
    assert [g["chatModel"]["usage"]["outputTokens"] for g in copy_sidecar["generatorMetadata"]] == [
        u["outputTokens"] for u in usage
    ]  # a 64-bit number is a string of digits in proto3 JSON: kept, as the .db's varint is

    def compares(home):
        code, stdout, _ = cli("ci", "--home", home, *native[:-1])
        assert stdout.splitlines()[0].startswith("agy-audit ci: baseline agy-9.9.9 (recorded in ./fingerprints")
        return code, [line.split()[2:] for line in stdout.splitlines() if line.split()[:2] == ["compare", "corpus"]]

    code, rows = compares(copy)
    assert (code, rows) == compares(b.home)
    assert code == 0
    assert {surface: rest for surface, *rest in rows if surface != "rpc"} == {
        surface: ["pass", "0", "0", "UNCHANGED"]
        for surface in ("sidecar", "sqlite", "wire", "transcript", "summaries", "history", "cache", "artifacts", "roots",
                        "layout", "conventions", "values")
    }  # fmt: skip


@pytest.mark.parametrize(
    "line",
    [
        '{"step_index":2,"type":"VIEW_FILE","content":"Created At: 2026-09-01T18:09:32+09:00\\nFile Path: `a, b: c`"}\n',
        '{"step_index": 2, "type": "VIEW_FILE", "content": "Created At: x\\nFile Path: `a,b:c`"}\n',
    ],
)
def test_a_transcript_line_keeps_its_separators_and_the_headers_of_its_content(tmp_path, line):
    b = StoreBuilder(tmp_path / "home", seed=3)
    convo = b.root("cli").conversation(turns=1)
    transcript = convo.paths["brain"] / ".system_generated" / "logs" / "transcript.jsonl"
    transcript.write_text(line)
    redact(b.home, tmp_path / "copy", key=KEY)
    (copied,) = (tmp_path / "copy").glob("**/logs/transcript.jsonl")
    new = copied.read_text()
    spaced = ", " in line.split('"content"')[0]
    assert new.startswith(
        '{"step_index": 2, "type": "VIEW_FILE", "content": "' if spaced else '{"step_index":2,"type":"VIEW_FILE","content":"'
    )
    content = json.loads(new)["content"]
    assert content.startswith("Created At: ") and "\nFile Path: `" in content
    assert len(new) == len(line) and new != line


def test_only_a_root_s_own_per_install_files_are_redacted_other_caches_stay_left_out(tmp_path):
    """``cache/<name>`` is format at the top of a store root; a ``cache`` directory elsewhere (a
    browser profile's, a brain's) is left out and listed, never read."""
    b = StoreBuilder(tmp_path / "home", seed=43)
    convo = b.root("cli").conversation(turns=1)
    b.root("cli").install_files([convo], cli=True)
    profile = b.home / ".gemini" / "antigravity-browser-profile" / "Default" / "cache"
    profile.mkdir(parents=True)
    (profile / "data_0").write_bytes(b"\x00private cache bytes" * 10)
    elsewhere = convo.paths["brain"] / "cache"
    elsewhere.mkdir()
    (elsewhere / "notes.json").write_text('{"private": "cache"}')
    result = redact(b.home, tmp_path / "copy", key=KEY)
    left = [item for item in result.left_out if "/cache/" in item]
    assert [item.split(": ", 1)[1] for item in left] == [
        "logs, caches and browser recordings are content the format checks never read"
    ] * 2
    assert sorted(item.split(": ", 1)[0].rsplit("/", 1)[1] for item in left) == ["data_0", "notes.json"]
    assert (tmp_path / "copy" / ".gemini" / "antigravity-cli" / "cache").is_dir()
    assert not (tmp_path / "copy" / ".gemini" / "antigravity-browser-profile").exists()
