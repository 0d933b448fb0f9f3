"""The store builder writes the real wire shapes of docs/store-format.md#payloads, and the native path
handles them end to end (issue 15, done-when): every session exports to a document our own
contract accepts, a sidecar made from that export is ``complete``, and ``inspect`` reports no
unknown field among those ``cortex.proto`` names."""

from __future__ import annotations

import json
import sqlite3

import pytest

from audit.actions.sweep import sweep
from audit.checks import completeness as C
from audit.checks.contract import validate_file
from audit.cli import main
from audit.store.database import read_database
from audit.store.layout import resolve_roots
from audit.store.proto import cortex_pb2 as pb
from audit.store.trajectory import read_trajectory
from audit.strictjson import json_key, loads
from audit.testing import StoreBuilder
from audit.testing import trajectories as T

# The enum value real rows carry that no source names (a prompt section's source type 4, in the last
# generation row): written as a number, reported as unknown.
UNNAMED = {"gen_metadata.data: 1.16.4.1:enum=4"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    home = tmp_path_factory.mktemp("real")
    b = StoreBuilder(home, seed=15)
    ide = b.root("ide")
    every = ide.conversation(steps=T.every_shape_steps(b.rng, b.clock))
    plain = ide.conversation(turns=2)
    lagging = ide.conversation(turns=2, wal_steps=1, shm_without_wal=True, sidecar="missing")
    return home, ide, every, plain, lagging


def test_every_part_b_step_shape_is_written(store):
    _, _, every, _, _ = store
    kinds = {s["type"].removeprefix(T.STEP) for s in every.steps}
    assert kinds >= {
        "USER_INPUT", "PLANNER_RESPONSE", "RUN_COMMAND", "VIEW_FILE", "LIST_DIRECTORY", "GREP_SEARCH", "CODE_ACTION",
        "SEARCH_WEB", "READ_URL_CONTENT", "GENERIC", "ASK_QUESTION", "BROWSER_SUBAGENT", "GENERATE_IMAGE",
        "SYSTEM_MESSAGE", "EPHEMERAL_MESSAGE", "CONVERSATION_HISTORY", "CHECKPOINT", "ERROR_MESSAGE",
    }  # fmt: skip
    conn = sqlite3.connect(every.paths["db"])
    rows = conn.execute(
        "SELECT step_type, has_subtrajectory, metadata, error_details, permissions, task_details, render_info, step_payload"
        " FROM steps ORDER BY idx"
    ).fetchall()
    conn.close()
    for step_type, has_sub, metadata, error, permissions, task, render, payload in rows:
        step = pb.Step.FromString(payload)
        assert step_type == step.type and has_sub == int(step.HasField("subtrajectory"))
        for column, name in ((metadata, "metadata"), (error, "error"), (permissions, "permissions"), (task, "task_details")):
            assert column == (getattr(step, name).SerializeToString(deterministic=True) if step.HasField(name) else None)
        expected = (
            step.generic.result.step_render_info.SerializeToString() if step.generic.result.HasField("step_render_info") else None
        )
        assert render == expected
    columns = {
        name: sum(bool(row[i]) for row in rows) for i, name in enumerate(("t", "sub", "meta", "err", "perm", "task", "render"))
    }
    assert (columns["sub"], columns["err"], columns["perm"], columns["task"], columns["render"]) == (1, 1, 1, 1, 1)


def test_each_session_exports_to_a_document_the_contract_accepts(store, tmp_path, capsys):
    home, ide, *_ = store
    for db in sorted((ide.path / "conversations").glob("*.db")):
        out = tmp_path / f"{db.stem}.json"
        assert main(["export", db.stem, "--home", str(home), "--out", str(out), "-q"]) == 0
        result = validate_file(out)
        assert result.errors == [], (db.stem, result.errors[:3])
        assert {f.rule for f in result.warnings} <= {"sidecar/enum-number"}
    capsys.readouterr()


def test_a_sidecar_made_from_the_export_is_complete(store, tmp_path, capsys):
    home, ide, *_ = store
    for db in sorted((ide.path / "conversations").glob("*.db")):
        assert main(["export", db.stem, "--home", str(home), "-q"]) == 0
        doc = json.loads(capsys.readouterr().out)
        side = tmp_path / db.stem
        side.mkdir()
        (side / f"{db.stem}.db").write_bytes(db.read_bytes())
        (side / f"{db.stem}.trajectory.json").write_text(json.dumps(doc))
        (r,) = C.check([side / f"{db.stem}.trajectory.json"]).results
        assert r.verdict == C.COMPLETE, (db.stem, r.detail)


def test_inspect_reports_no_unknown_field_the_proto_names(store, capsys):
    home, _, every, plain, lagging = store
    assert main(["inspect", every.id, "--home", str(home), "--format", "json"]) == 0
    db = json.loads(capsys.readouterr().out)["result"]["database"]
    assert {u["name"] for u in db["unknownFields"]} == UNNAMED
    for convo in (plain, lagging):
        assert main(["inspect", convo.id, "--home", str(home), "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["result"]["database"]["unknownFields"] == []


def test_the_reconstruction_is_the_builders_trajectory(store):
    _, _, every, plain, _ = store
    for convo in (every, plain):
        native = read_trajectory(convo.paths["db"])
        assert native.trajectory == convo.trajectory
        assert native.findings == []


def test_a_db_copied_without_its_wal_is_read_whole_and_lags(store):
    _, _, _, _, lagging = store
    assert "db_shm" in lagging.paths and "db_wal" not in lagging.paths
    conv = read_database(lagging.paths["db"])
    assert conv.access == "immutable" and conv.findings == []
    assert len(conv.steps) == len(lagging.steps) - 1  # the step committed to the lost -wal is gone


def _string(number: int, text: bytes) -> bytes:
    """A length-delimited field with a one-byte key (field numbers below 16)."""
    assert number < 16 and len(text) < 128
    return bytes([(number << 3) | 2, len(text)]) + text


def test_fields_real_stores_hold_that_no_source_names_change_nothing_the_projection_reads(tmp_path, capsys):
    """Part B's unnamed fields (task details 5, view_file 20, render info 5-7, gen 10, executor 13,
    trajectory metadata 18) planted in a builder store: export still satisfies the contract, a
    sidecar made from it is complete, and inspect lists each unknown as outside the projection."""
    b = StoreBuilder(tmp_path / "home", seed=16)
    convo = b.root("ide").conversation(steps=T.every_shape_steps(b.rng, b.clock), brain=False, sidecar="missing")
    db = convo.paths["db"]
    conn = sqlite3.connect(db)
    for idx, blob in conn.execute("SELECT idx, step_payload FROM steps").fetchall():
        step = pb.Step.FromString(blob)
        if step.HasField("task_details"):
            step.task_details.MergeFromString(b"\x28\x01")  # 148.5 = 1
        if step.WhichOneof("step") == "view_file":
            step.view_file.MergeFromString(b"\xa0\x01\x2d")  # 14.20 = 45
        render = None
        if step.generic.result.HasField("step_render_info"):
            step.generic.result.step_render_info.MergeFromString(_string(5, b"icon") + _string(7, b"x"))
            render = step.generic.result.step_render_info.SerializeToString()
        conn.execute(
            "UPDATE steps SET step_payload = ?, task_details = ?, render_info = ? WHERE idx = ?",
            (
                step.SerializeToString(),
                step.task_details.SerializeToString() if step.HasField("task_details") else None,
                render,
                idx,
            ),
        )
    conn.execute("UPDATE gen_metadata SET data = data || x'5001'")  # gen 10 = 1
    conn.execute("UPDATE executor_metadata SET data = data || x'6801'")  # executor 13 = 1
    conn.execute("UPDATE trajectory_metadata_blob SET data = data || ?", (b"\x92\x01\x04abcd",))  # 18 = "abcd"
    conn.commit()
    conn.close()
    home = tmp_path / "home"
    assert main(["export", convo.id, "--home", str(home), "-q"]) == 0
    doc = json.loads(capsys.readouterr().out)
    out = tmp_path / "export.json"
    out.write_text(json.dumps(doc))
    assert validate_file(out).errors == []
    (db.parent / f"{convo.id}.trajectory.json").write_text(json.dumps(doc))
    (r,) = C.check([db.parent / f"{convo.id}.trajectory.json"]).results
    assert r.verdict == C.COMPLETE, r.detail
    assert {o.rsplit(" x", 1)[0] for o in r.outside} >= {
        "steps.step_payload/CORTEX_STEP_TYPE_RUN_COMMAND: 148.5:varint",
        "steps.task_details/CORTEX_STEP_TYPE_RUN_COMMAND: 5:varint",
        "steps.step_payload/CORTEX_STEP_TYPE_VIEW_FILE: 14.20:varint",
        "steps.step_payload/CORTEX_STEP_TYPE_GENERIC: 140.2.3.5:len",
        "steps.render_info/CORTEX_STEP_TYPE_GENERIC: 7:len",
        "gen_metadata.data: 10:varint",
        "executor_metadata.data: 13:varint",
        "trajectory_metadata_blob.data: 18:len",
    }
    assert main(["inspect", convo.id, "--home", str(home), "--format", "json"]) == 0
    unknown = json.loads(capsys.readouterr().out)["result"]["database"]["unknownFields"]
    assert unknown and not any(u["inProjection"] for u in unknown)


def test_a_native_sweeps_sidecar_reads_back_as_the_reconstruction_it_renders(store, tmp_path):
    """``ci`` checks a native sweep's corpus sidecar as the reconstruction it was written from
    (``sidecar.written``), so the bytes must read back as that very document, JSON types included."""
    home, *_ = store
    held: dict[str, dict] = {}

    def keep(decoded) -> None:
        held[decoded.swept.id] = decoded.native.trajectory

    result = sweep(resolve_roots(home=home, env={}), tmp_path / "corpus", source="native", on_swept=keep)
    assert len(held) == 3 and not result.failures
    for sid, trajectory in held.items():
        (path,) = (tmp_path / "corpus" / "corpus").glob(f"*/{sid}.trajectory.json")
        document = loads(path.read_bytes())
        assert document == trajectory and json_key(document) == json_key(trajectory)
