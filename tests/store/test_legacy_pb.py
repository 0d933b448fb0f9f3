"""Legacy encrypted ``.pb`` read with the user's own key: the container (AES-GCM, authenticated
as a whole), the key (``ANTIGRAVITY_KEY`` or ``--key-file``, never printed), the split into the
rows of a ``.db``, and ``completeness``, ``export`` and ``doctor`` on builder stores sealed with
a test key."""

from __future__ import annotations

import base64
import json
import random
import sys

import pytest

from audit.checks import completeness as C
from audit.errors import InputError, UsageError
from audit.store import legacy_pb
from audit.store.legacy_pb import Key, load_key, read_legacy
from audit.store.trajectory import read_trajectory, reconstruct
from audit.testing import StoreBuilder
from audit.testing import trajectories as T
from audit.testing.pbwriter import seal, trajectory_bytes
from tests.cli_capture import cli
from tests.output_schema import ci_result, envelope

SECRET = bytes(range(7, 39))  # a test's own 32-byte key
KEY = Key(SECRET, "test")
KEY_TEXT = base64.b64encode(SECRET).decode()
NONCE = bytes(12)


@pytest.fixture
def cli_root(tmp_path):
    return StoreBuilder(tmp_path / "home", seed=47).root("cli")


def _secret_shown(*texts: str) -> bool:
    return any(shown in text for text in texts for shown in (KEY_TEXT, SECRET.hex(), repr(SECRET)))


# ----------------------------------------------------------------------------- the container


def test_a_sealed_pb_decodes_as_its_db_does(cli_root):
    steps = T.every_shape_steps(cli_root.builder.rng, cli_root.builder.clock)
    convo = cli_root.conversation(steps=steps, legacy_pb=True, legacy_key=KEY)  # the .db and the .pb of one trajectory
    conv = read_legacy(convo.paths["legacy_pb"], KEY)
    assert (conv.access, conv.findings, conv.internal_cascade_id) == ("decrypted", [], convo.id)
    assert len(conv.steps) == len(steps)
    native, from_db = reconstruct(conv), read_trajectory(convo.paths["db"])
    assert native.trajectory == from_db.trajectory
    assert (native.findings, native.unknown_fields, native.left_out) == ([], from_db.unknown_fields, [])


def test_unknown_fields_and_top_level_fields_are_reported_not_dropped(tmp_path):
    doc = {"cascadeId": T.new_id(random.Random(3)), "steps": [{"type": "CORTEX_STEP_TYPE_USER_INPUT"}]}
    plaintext = trajectory_bytes(doc)
    step_with_unknown = b"\x08\x0e" + bytes([0xB8, 0x3E, 0x01])  # type 14 (USER_INPUT), field 999 = 1
    plaintext += b"\x12" + bytes([len(step_with_unknown)]) + step_with_unknown  # a second step
    plaintext += bytes([0x60, 0x05])  # Trajectory field 12 (varint 5): no known place
    path = tmp_path / "x.pb"
    path.write_bytes(seal(plaintext, KEY, NONCE))
    native = reconstruct(read_legacy(path, KEY))
    assert [s["type"] for s in native.trajectory["steps"]] == ["CORTEX_STEP_TYPE_USER_INPUT"] * 2
    assert dict(native.unknown_fields) == {"steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 999:varint": 1}
    assert [(u.location, u.kind, u.rows) for u in native.undecoded()] == [
        ("Trajectory.12:varint", "table", 1),
        ("steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 999:varint", "protobuf-field", 1),
    ]
    assert [f.message for f in native.findings] == [f"{path}: table Trajectory.12:varint is not part of the known schema"]


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        ("wrong key", "does not authenticate with the key from other (a wrong key, or a truncated or altered file)"),
        ("truncated", "does not authenticate with the key from other (a wrong key, or a truncated or altered file)"),
        ("one byte", "does not authenticate with the key from other (a wrong key, or a truncated or altered file)"),
        ("too short", "27 bytes: too short for an AES-GCM container (nonce and tag alone are 28)"),
        ("not protobuf", "the decrypted content is not a protobuf message (truncated varint)"),
    ],
)
def test_a_file_that_does_not_authenticate_is_one_finding_and_nothing_is_read(tmp_path, damage, message):
    path = tmp_path / "x.pb"
    sealed = seal(trajectory_bytes({"cascadeId": "c", "steps": [{}]}), KEY, NONCE)
    data = {
        "truncated": sealed[:-1],
        "one byte": sealed[:20] + bytes([sealed[20] ^ 1]) + sealed[21:],
        "too short": sealed[:27],
        "not protobuf": seal(b"\x08", KEY, NONCE),
    }.get(damage, sealed)
    path.write_bytes(data)
    key = Key(bytes(32) if damage == "wrong key" else SECRET, "other")
    conv = read_legacy(path, key)
    code = "corrupt" if damage == "not protobuf" else "unreadable"
    assert [(f.code, f.message) for f in conv.findings] == [(code, f"{path}: {message}")]
    assert (conv.access, conv.tables) == ("", {})
    assert not _secret_shown(message)


def test_an_unreadable_pb_names_the_file(tmp_path):
    conv = read_legacy(tmp_path / "absent.pb", KEY)
    assert [(f.code, f.message) for f in conv.findings] == [("unreadable", f"{tmp_path / 'absent.pb'}: no such file")]


# ----------------------------------------------------------------------------- the key


def test_the_key_comes_from_the_key_file_else_the_environment(tmp_path):
    assert load_key(env={}) is None
    assert load_key(env={"ANTIGRAVITY_KEY": KEY_TEXT}) == Key(SECRET, "ANTIGRAVITY_KEY")
    key_file = tmp_path / "key"
    key_file.write_text(KEY_TEXT[:20] + "\n" + KEY_TEXT[20:] + "\n")  # whitespace is ignored
    other = base64.b64encode(bytes(16)).decode()
    assert load_key(key_file, env={"ANTIGRAVITY_KEY": other}) == Key(SECRET, str(key_file))
    assert not _secret_shown(repr(load_key(key_file)), str(load_key(key_file)))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not base64!", "ANTIGRAVITY_KEY: the key is not base64 text"),
        (base64.b64encode(bytes(20)).decode(), "ANTIGRAVITY_KEY: the key decodes to 20 bytes; an AES key has 16, 24 or 32"),
    ],
)
def test_a_malformed_key_is_a_usage_error_that_never_shows_it(text, message):
    with pytest.raises(UsageError) as raised:
        load_key(env={"ANTIGRAVITY_KEY": text})
    assert raised.value.message == message


def test_a_missing_key_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_key(tmp_path / "absent")


def test_without_the_cryptography_package_the_error_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "cryptography.hazmat.primitives.ciphers.aead", None)  # the import fails
    with pytest.raises(UsageError) as raised:
        legacy_pb.decrypt(bytes(64), KEY)
    assert raised.value.message == (
        "reading a legacy .pb with a key needs the 'cryptography' package: pip install 'agy-audit[legacy]'"
    )


# ----------------------------------------------------------------------------- completeness, export, doctor


@pytest.fixture
def pb_store(cli_root):
    """A .pb-only session with a complete sidecar, one with a stale sidecar, one without a sidecar."""
    complete = cli_root.conversation(turns=1, db=False, legacy_pb=True, legacy_key=KEY)
    stale = cli_root.conversation(turns=2, db=False, legacy_pb=True, legacy_key=KEY, sidecar="stale", stale_missing_steps=1)
    missing = cli_root.conversation(turns=1, db=False, legacy_pb=True, legacy_key=KEY, sidecar="missing")
    return cli_root, complete, stale, missing


def test_completeness_reads_the_pb_with_the_users_key(pb_store, monkeypatch):
    root, complete, stale, _ = pb_store
    code, out, err = cli("completeness", "--root", root.path)
    assert code == 3 and [line.split()[1] for line in out.splitlines()[1:3]] == ["unknown", "unknown"]  # no key: as before
    monkeypatch.setenv("ANTIGRAVITY_KEY", KEY_TEXT)
    code, out, err = cli("completeness", "--root", root.path, "--format", "json")
    assert (code, err) == (1, "")
    results = {r["id"]: r for r in json.loads(out)["result"]["results"]}
    assert {cid: (r["verdict"], r["source"]) for cid, r in results.items()} == {
        complete.id: ("complete", str(complete.paths["legacy_pb"])),
        stale.id: ("incomplete", str(stale.paths["legacy_pb"])),
    }
    assert results[stale.id]["detail"] == (
        f"sidecar lacks 1 step(s) from step {len(stale.steps) - 1} ({stale.steps[-1]['type']}); source has {len(stale.steps)}"
    )
    assert not _secret_shown(out, err)


def test_a_wrong_key_makes_the_pb_sessions_unreadable_in_one_line(pb_store, tmp_path):
    root, complete, _, _ = pb_store
    key_file = tmp_path / "wrong.key"
    key_file.write_text(base64.b64encode(bytes(32)).decode())
    code, out, err = cli("completeness", "--root", root.path, "--key-file", key_file, complete.id)
    assert (code, err) == (2, "")
    row = out.splitlines()[1]
    assert row.split()[:2] == [complete.id, "unreadable"]
    assert row.endswith(
        f"{complete.paths['legacy_pb']}: does not authenticate with the key from {key_file} (a wrong key, or a truncated "
        "or altered file)"
    )


def test_a_malformed_key_stops_the_command_with_exit_2(pb_store, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_KEY", "%%%")
    code, out, err = cli("completeness", "--root", pb_store[0].path)
    assert (code, out, err) == (2, "", "agy-audit: ANTIGRAVITY_KEY: the key is not base64 text\n")


def test_export_reads_a_pb_only_session_with_the_key(pb_store, monkeypatch):
    root, _, _, missing = pb_store
    code, out, _ = cli("export", "--root", root.path, missing.id)  # no key: from its brain transcript, as before
    assert code == 0 and json.loads(out)["agyReader"]["agyAudit"]["provenance"]["source"]["kind"] == "transcript"
    monkeypatch.setenv("ANTIGRAVITY_KEY", KEY_TEXT)
    code, out, err = cli("export", "--root", root.path, missing.id)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    provenance = doc.pop("agyReader")["agyAudit"]["provenance"]
    assert doc == missing.trajectory
    assert provenance["source"]["kind"] == "pb" and len(provenance["source"]["contentSha256"]) == 64
    assert (provenance["undecoded"], provenance["transcriptOnly"]) == ([], [])


def test_doctor_verifies_pb_sidecars_with_the_key(pb_store, monkeypatch):
    root = pb_store[0]
    monkeypatch.setenv("PATH", "")
    code, out, _ = cli("doctor", "--root", root.path, "--format", "json")
    assert json.loads(out)["result"]["roots"][0]["sidecars"] == {"verified": 0, "incomplete": 0, "unknown": 2, "missing": 1}
    monkeypatch.setenv("ANTIGRAVITY_KEY", KEY_TEXT)
    code, out, _ = cli("doctor", "--root", root.path, "--format", "json")
    assert json.loads(out)["result"]["roots"][0]["sidecars"] == {"verified": 1, "incomplete": 1, "unknown": 0, "missing": 1}


def test_check_target_without_a_key_leaves_a_pb_unknown(pb_store):
    root, complete, _, _ = pb_store
    target = C.targets([root.path / "conversations" / f"{complete.id}.trajectory.json"])[0]
    assert (C.check_target(target).verdict, C.check_target(target, key=KEY).verdict) == ("unknown", "complete")


# ----------------------------------------------------------------------------- sweep


def test_a_native_sweep_covers_pb_sessions_with_the_key_and_completeness_verifies_the_corpus(pb_store, tmp_path):
    root, complete, stale, missing = pb_store
    key_file = tmp_path / "my.key"
    key_file.write_text(KEY_TEXT)
    code, _, err = cli("sweep", "--root", root.path, "--source", "native", "--out", tmp_path / "plain", "-q")
    manifest = json.loads((tmp_path / "plain" / "manifest.json").read_text())
    assert (code, len(manifest["notCovered"]), manifest["sessions"]) == (1, 3, [])  # no key: as before
    out = tmp_path / "corpus"
    code, _, err = cli("sweep", "--root", root.path, "--source", "native", "--out", out, "--key-file", key_file, "-q")
    assert (code, err) == (0, "")
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["notCovered"] == []
    swept = {s["id"]: s for s in manifest["sessions"]}
    assert sorted(swept) == sorted(c.id for c in (complete, stale, missing))
    for convo in (complete, stale, missing):
        files = swept[convo.id]["files"]
        copy = out / "native" / "cli" / f"{convo.id}.pb"
        assert copy.read_bytes() == convo.paths["legacy_pb"].read_bytes()  # copied as it is: encrypted
        assert f"native/cli/{convo.id}.pb" in files and swept[convo.id]["steps"] == len(convo.steps)
        assert json.loads((out / "corpus" / "cli" / f"{convo.id}.trajectory.json").read_text()) == convo.trajectory
    code, text, _ = cli("completeness", out, "--key-file", key_file, "--format", "json")
    assert code == 0 and {r["verdict"] for r in json.loads(text)["result"]["results"]} == {"complete"}
    assert not _secret_shown(text, (out / "manifest.json").read_text())


def test_a_pb_the_key_does_not_authenticate_fails_its_session_in_one_line(pb_store, tmp_path, monkeypatch):
    root, complete, _, _ = pb_store
    monkeypatch.setenv("ANTIGRAVITY_KEY", base64.b64encode(bytes(16)).decode())
    out = tmp_path / "corpus"
    code, _, err = cli("sweep", "--root", root.path, "--source", "native", "--out", out, "--keep-going", "-q")
    manifest = json.loads((out / "manifest.json").read_text())
    assert code == 1 and manifest["complete"] is False and manifest["sessions"] == []
    assert len(manifest["failures"]) == 3
    failure = next(f for f in manifest["failures"] if f["id"] == complete.id)
    assert failure == {
        "id": complete.id,
        "stage": "decrypt",
        "message": f"{complete.paths['legacy_pb']}: does not authenticate with the key from ANTIGRAVITY_KEY "
        "(a wrong key, or a truncated or altered file)",
    }
    assert not (out / "native" / "cli" / f"{complete.id}.pb").exists()  # a failed session leaves no file


# ----------------------------------------------------------------------------- ci


def _ci_checks(*argv: object) -> tuple[int, str, dict[tuple[str, str], dict]]:
    code, out, err = cli("ci", *argv, "--format", "json")
    assert err == ""
    doc = ci_result(envelope(out, "ci"))
    return code, out, {(s["name"], c["target"]): c for s in doc["stages"] for c in s["checks"] if s["name"] != "compare"}


def test_ci_with_the_users_key_sweeps_and_checks_the_pb_sessions(pb_store, tmp_path, monkeypatch):
    root, _, stale, _ = pb_store
    monkeypatch.setenv("PATH", "")
    native = ("--root", root.path, "--source", "native")
    _, _, checks = _ci_checks(*native)  # no key: as before
    assert checks[("sweep", "corpus")]["counts"] == {
        "selected": 3,
        "swept": 0,
        "failed": 0,
        "skipped": 0,
        "notCovered": 3,
        "excluded": 0,
    }
    assert checks[("completeness", "live")]["summary"] == "2 unknown: nothing compared"
    key_file = tmp_path / "my.key"
    key_file.write_text(KEY_TEXT)
    code, out, checks = _ci_checks(*native, "--key-file", key_file)
    assert code == 1 and checks[("sweep", "corpus")]["summary"] == "3 of 3 session(s) swept; 0 failed, 0 skipped"
    corpus, live = checks[("completeness", "corpus")], checks[("completeness", "live")]
    assert (corpus["verdict"], corpus["summary"]) == ("pass", "3 complete")
    assert corpus["command"].startswith(f"agy-audit completeness --key-file {key_file} ")  # the file, never the key
    assert (live["verdict"], live["summary"]) == ("fail", "1 complete, 1 incomplete")
    assert live["findings"][0]["file"] == str(root.path / "conversations" / f"{stale.id}.trajectory.json")
    assert live["command"] == f"agy-audit completeness --key-file {key_file} --root {root.path}"
    assert not _secret_shown(out)
    monkeypatch.setenv("ANTIGRAVITY_KEY", KEY_TEXT)
    code, out, checks = _ci_checks(*native)
    assert (code, checks[("completeness", "corpus")]["summary"], checks[("completeness", "live")]["summary"]) == (
        1,
        "3 complete",
        "1 complete, 1 incomplete",
    )
    assert checks[("completeness", "live")]["command"] == f"agy-audit completeness --root {root.path}"
    assert not _secret_shown(out)
