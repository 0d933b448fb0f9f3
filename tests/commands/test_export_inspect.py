import json
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from output_schema import envelope, matched

from audit.cli import main
from audit.store.proto import cortex_pb2 as pb
from audit.testing import StoreBuilder
from audit.testing.sample import build


def _key(doc):
    return [(s.get("type"), s.get("status"), s["metadata"].get("createdAt")) for s in doc["steps"]]


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    home = tmp_path_factory.mktemp("sample")
    build(home)
    return home


def _sidecars(home):
    for side in sorted(home.glob(".gemini/*/conversations/*.trajectory.json")):
        yield side.name.split(".")[0].lower(), json.loads(side.read_text())


def test_export_matches_every_sample_sidecar(sample, capsys):
    checked = 0
    for cid, doc in _sidecars(sample):
        assert main(["export", cid, "--home", str(sample)]) == 0
        exported = json.loads(capsys.readouterr().out)
        assert exported["cascadeId"] == doc["cascadeId"]
        if len(doc["steps"]) == len(exported["steps"]):
            assert _key(exported) == _key(doc)
        else:  # the stale sidecar is an older prefix of what the .db holds
            assert _key(exported)[: len(doc["steps"])] == _key(doc)
            assert len(exported["steps"]) > len(doc["steps"])
        checked += 1
    assert checked == 15


def test_export_markdown_and_out_file(sample, tmp_path, capsys):
    cid, doc = next(_sidecars(sample))
    out = tmp_path / "conv.md"
    assert main(["export", cid[:8], "--home", str(sample), "--format", "md", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.startswith(f"# Conversation {doc['cascadeId']}\n")
    assert text.count("\n## ") == len(doc["steps"])
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    assert main(["export", cid, "--home", str(sample), "--out", str(out)]) == 2
    assert "already exists" in capsys.readouterr().err
    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "target.json")
    assert main(["export", cid, "--home", str(sample), "--out", str(link)]) == 2
    assert not (tmp_path / "target.json").exists()


def test_export_from_transcript_when_there_is_no_db(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=3)
    convo = b.root("acp").conversation(turns=2, db=False, sidecar="missing")
    assert main(["export", convo.id, "--home", str(tmp_path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert [s["type"] for s in exported["steps"]] == [s["type"] for s in convo.steps]
    assert [s["metadata"]["createdAt"] for s in exported["steps"]] == [s["metadata"]["createdAt"][:19] + "Z" for s in convo.steps]
    assert exported["steps"][0]["userInput"]["userResponse"] == convo.steps[0]["userInput"]["userResponse"]


def test_export_of_corrupt_db_fails_without_output(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=4)
    convo = b.root("cli").conversation(turns=1, brain=False)
    convo.paths["db"].write_bytes(b"SQLite format 3\x00" + b"\x00" * 80)
    out = tmp_path / "never.json"
    assert main(["export", convo.id, "--home", str(tmp_path), "--out", str(out)]) == 1
    assert "not exported" in capsys.readouterr().err
    assert not out.exists()


def test_inspect_reports_wal_steps_and_unknown_fields(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=5)
    convo = b.root("cli").conversation(turns=2, wal_steps=2, unknown_fields=True, brain=False)
    assert main(["inspect", convo.id, "--home", str(tmp_path), "--format", "json"]) == 0
    doc = envelope(capsys.readouterr().out, "inspect")
    db = doc["result"]["database"]
    assert db["rowCounts"]["steps"] == len(convo.steps)
    assert sum(c["count"] for c in db["stepTypes"]) == len(convo.steps)
    assert db["unknownFields"], "the unknown protobuf field must be reported"
    assert (doc["findings"], doc["verdict"]) == ([], "pass")


def test_inspect_reports_unknown_fields_inside_a_timestamp(tmp_path, capsys):
    """An unknown field inside a Timestamp (the step's created_at, in the metadata column and the
    payload's copy) is reported as any other unknown field is; it was skipped."""
    convo = StoreBuilder(tmp_path, seed=5).root("cli").conversation(turns=1, brain=False)
    conn = sqlite3.connect(convo.paths["db"])
    idx, metadata, payload = conn.execute("SELECT idx, metadata, step_payload FROM steps ORDER BY idx LIMIT 1").fetchone()
    meta, step = pb.CortexStepMetadata.FromString(metadata), pb.Step.FromString(payload)
    for created in (meta.created_at, step.metadata.created_at):
        created.MergeFromString(bytes([0xF8, 0x7C, 0x01]))  # field 1999, a varint
    conn.execute(
        "UPDATE steps SET metadata = ?, step_payload = ? WHERE idx = ?", (meta.SerializeToString(), step.SerializeToString(), idx)
    )
    conn.commit()
    conn.close()
    assert main(["inspect", convo.id, "--home", str(tmp_path)]) == 0
    assert capsys.readouterr().out.endswith(
        "UNKNOWN PROTOBUF FIELD                                           ROWS  COUNT  PROJECTED\n"
        "steps.metadata/CORTEX_STEP_TYPE_USER_INPUT: 1.1999:varint           1      1  yes\n"
        "steps.step_payload/CORTEX_STEP_TYPE_USER_INPUT: 5.1.1999:varint     1      1  yes\n"
        "0 error(s), 0 warning(s); notes (do not fail): 2 unknown protobuf field(s)\n"
    )


def test_inspect_locked_and_corrupt_databases_are_findings(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=6)
    root = b.root("cli")
    locked = root.conversation(turns=1, brain=False)
    corrupt = root.conversation(turns=1, brain=False)
    corrupt.paths["db"].write_bytes(b"not a database at all" * 10)
    holder = sqlite3.connect(locked.paths["db"], timeout=0)
    holder.execute("PRAGMA journal_mode=DELETE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        assert main(["inspect", locked.id, "--home", str(tmp_path)]) == 1
        assert f"{locked.paths['db']}: error: [unreadable] " in capsys.readouterr().out
    finally:
        holder.rollback()
        holder.close()
    assert main(["inspect", str(corrupt.paths["db"])]) == 1
    assert f"{corrupt.paths['db']}: error: [unreadable] not an SQLite database (bad header)\n" in capsys.readouterr().out


def test_inspect_transcript_anomalies(tmp_path, capsys):
    """A torn line and a repeated step are warnings in the contract and here (exit 0), by the same rule ids."""
    b = StoreBuilder(tmp_path, seed=8)
    convo = b.root("cli").conversation(turns=3, db=False, transcript_anomalies={"torn-line", "repeated-step"})
    assert main(["inspect", str(convo.paths["brain"]), "--format", "json"]) == 0
    doc = envelope(capsys.readouterr().out, "inspect")
    rules = {a["name"] for a in doc["result"]["transcripts"]["anomalies"]}
    assert {"transcript/torn-line", "transcript/step-order"} <= rules
    assert {f["level"] for f in doc["findings"]} == {"warning"}
    assert {f["rule"] for f in doc["findings"]} == rules
    assert main(["inspect", str(convo.paths["brain"])]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if ": warning: [" in line]
    assert [matched(line) for line in lines] == [
        {"file": f["file"], "line": str(f["line"]), "severity": "warning", "code": f["rule"], "message": f["message"]}
        for f in doc["findings"]
    ]


def test_inspect_keeps_contract_violations_and_tier_disagreements_as_findings(tmp_path, capsys):
    """One rule table: what the contract makes a violation (a duplicate key, a created_at that is
    not RFC 3339) fails inspect too, and so does a compact record whose content disagrees with
    its full one; the schema's warnings of a record (no status) are warnings here too."""
    b = StoreBuilder(tmp_path, seed=8)
    convo = b.root("cli").conversation(turns=2, db=False)
    logs = convo.paths["brain"] / ".system_generated" / "logs"
    tiers = {}
    for name in ("transcript.jsonl", "transcript_full.jsonl"):
        records = [json.loads(line) for line in (logs / name).read_text().splitlines()]
        del records[0]["status"]
        records[1]["created_at"] = "yesterday"
        tiers[name] = [json.dumps(r) for r in records]
    tiers["transcript.jsonl"][-1] = json.dumps({**json.loads(tiers["transcript.jsonl"][-1]), "content": "something else"})
    tiers["transcript_full.jsonl"].append(tiers["transcript_full.jsonl"][-1][:-1] + ', "step_index": 99}')  # a duplicate key
    for name, lines in tiers.items():
        (logs / name).write_text("\n".join(lines) + "\n")
    assert main(["inspect", str(convo.paths["brain"]), "--format", "json"]) == 1
    findings = envelope(capsys.readouterr().out, "inspect")["findings"]

    def where(level):
        return [(f"{Path(f['file']).name}:{f['line']}", f["rule"]) for f in findings if f["level"] == level]

    last, dup = len(tiers["transcript.jsonl"]), len(tiers["transcript_full.jsonl"])
    assert where("error") == [
        (f"transcript_full.jsonl:{dup}", "strict-json/duplicate-key"),
        (f"transcript.jsonl:{last}", "transcript/mismatch"),
        ("transcript.jsonl:2", "transcript/created_at"),
        ("transcript_full.jsonl:2", "transcript/created_at"),
    ]
    assert where("warning") == [
        ("transcript.jsonl:1", "transcript/status/absent"),
        ("transcript_full.jsonl:1", "transcript/status/absent"),
    ]
    absent = next(f for f in findings if f["rule"] == "transcript/status/absent")
    assert (absent["pointer"], absent["message"]) == ("", "'status' is a required property")


def test_inspect_names_a_path_that_is_no_regular_file(tmp_path, capsys):
    os.mkfifo(tmp_path / "pipe.db")  # reading it would block: it is refused before any open
    assert main(["inspect", str(tmp_path / "pipe.db")]) == 2
    assert capsys.readouterr().err == f"agy-audit: {tmp_path / 'pipe.db'}: not a regular file\n"
    assert main(["inspect", str(tmp_path / "absent.db")]) == 2
    assert capsys.readouterr().err == f"agy-audit: {tmp_path / 'absent.db'}: no such file or directory\n"


def test_inspect_documents_findings_and_notes_as_it_exits(tmp_path, capsys):
    """Issue 20.3: the manual said inspect exits 1 "when anything was found" while unknown protobuf
    fields (reported, counted) exit 0; code, --help and the manual now say the same."""
    from pathlib import Path

    section = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "inspect.md").read_text()
    assert "Exit 1 when anything was found" not in section
    assert "**Warnings and notes** (exit 0): unknown protobuf fields" in section
    b = StoreBuilder(tmp_path, seed=5)
    convo = b.root("cli").conversation(turns=2, unknown_fields=True, brain=False)
    assert main(["inspect", convo.id, "--home", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.endswith("\n0 error(s), 0 warning(s); notes (do not fail): 4 unknown protobuf field(s)\n"), out
    with pytest.raises(SystemExit):
        main(["inspect", "--help"])
    assert "exit 0 with warnings and notes only" in " ".join(capsys.readouterr().out.split())


def test_export_writes_unknown_enum_values_as_numbers_and_notes_what_it_left_out(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=8)
    convo = b.root("cli").conversation(turns=1, brain=False)
    with sqlite3.connect(convo.paths["db"]) as conn:
        row = conn.execute("SELECT step_payload FROM steps WHERE idx = 1").fetchone()[0]
        planner = pb.Step.FromString(row)
        planner.planner_response.stop_reason = 30  # values no enum of ours names
        planner.metadata.generator_model = 1500
        conn.execute(
            "UPDATE steps SET step_payload = ?, metadata = ? WHERE idx = 1",
            (planner.SerializeToString(), planner.metadata.SerializeToString()),
        )
        conn.execute("UPDATE gen_metadata SET data = data || x'980601' WHERE idx = 0")  # unknown, not projected
        conn.execute("INSERT INTO battle_mode_infos VALUES (0, x'08')")  # a table we do not decode
    conn.close()
    out = tmp_path / "export.json"
    assert main(["export", convo.id, "--home", str(tmp_path), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert "export: note: " in err and "battle_mode_infos: 1 rows not decoded" in err
    assert "2 enum value(s) unknown to agy-audit written as numbers (first /steps/1/metadata/generatorModel)" in err
    doc = json.loads(out.read_text())
    assert doc["steps"][1]["plannerResponse"]["stopReason"] == 30
    assert doc["steps"][1]["metadata"]["generatorModel"] == 1500
    assert main(["verify-contract", str(out), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["result"]["summary"]["errors"] == {} and report["result"]["summary"]["warnings"] == {"sidecar/enum-number": 2}


# ----------------------------------------------------------------------------- unknown schema (issue 20.2)


def _alter(db, *statements):
    with sqlite3.connect(db) as conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()


def test_unknown_columns_tables_and_user_version_are_findings_declared_by_export(tmp_path, capsys):
    from audit.actions.attest import attest  # noqa: F401  (completeness below)
    from audit.checks import completeness as C

    b = StoreBuilder(tmp_path, seed=21)
    convo = b.root("cli").conversation(turns=2, brain=False)
    db = convo.paths["db"]
    _alter(
        db,
        "ALTER TABLE trajectory_meta ADD COLUMN workspace text",
        "UPDATE trajectory_meta SET workspace = 'w'",
        "CREATE TABLE future_things (idx integer PRIMARY KEY, data blob)",
        "INSERT INTO future_things VALUES (0, x'0801')",
        "PRAGMA user_version = 2",
    )
    assert main(["inspect", str(db), "--format", "json"]) == 1
    found = [(f["rule"], f["file"], f["message"]) for f in envelope(capsys.readouterr().out, "inspect")["findings"]]
    assert (
        "db/undecoded-column",
        str(db),
        "column trajectory_meta.workspace is not part of the known schema (1 of 1 rows hold data)",
    ) in found
    assert ("db/unknown-user-version", str(db), "user_version 2 is not a known schema version (known: 1)") in found
    assert any("future_things" in message for _, _, message in found)
    # completeness: nothing of this sits where the projection reads
    report = C.check([b.root("cli").path])
    assert report.results[0].verdict == C.COMPLETE
    assert any("trajectory_meta.workspace" in o for o in report.results[0].outside)
    # export writes the trajectory and declares what it left out
    assert main(["export", convo.id, "--home", str(tmp_path)]) == 0
    exported = json.loads(capsys.readouterr().out)
    provenance = exported["agyReader"]["agyAudit"]["provenance"]
    assert provenance["exportFormat"] == "agy-audit-export/1"
    assert provenance["source"] == {"kind": "db", "userVersion": 2, "contentSha256": C.content_sha256(db)}
    assert provenance["decoderProfile"].startswith("cortex.proto sha256:")
    undecoded = {u["location"]: u for u in provenance["undecoded"]}
    assert undecoded["trajectory_meta.workspace"] == {"location": "trajectory_meta.workspace", "kind": "column", "rows": 1}
    assert undecoded["future_things"] == {"location": "future_things", "kind": "table", "rows": 1}
    assert undecoded["user_version"] == {"location": "user_version", "kind": "schema-version", "rows": 0}
    # an unknown steps column holding data is where the projection reads: unsupported
    _alter(db, "ALTER TABLE steps ADD COLUMN created_at_ns integer", "UPDATE steps SET created_at_ns = 5")
    r = C.check([b.root("cli").path]).results[0]
    assert r.verdict == C.UNSUPPORTED and "steps.created_at_ns" in r.detail
    assert main(["export", convo.id, "--home", str(tmp_path)]) == 0
    undecoded = {
        u["location"]: u for u in json.loads(capsys.readouterr().out)["agyReader"]["agyAudit"]["provenance"]["undecoded"]
    }
    assert undecoded["steps.created_at_ns"]["rows"] == len(convo.steps)


def test_an_export_of_a_clean_db_declares_nothing_left_out(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=22)
    convo = b.root("cli").conversation(turns=1, brain=False)
    assert main(["export", convo.id, "--home", str(tmp_path)]) == 0
    provenance = json.loads(capsys.readouterr().out)["agyReader"]["agyAudit"]["provenance"]
    assert provenance["undecoded"] == [] and provenance["source"]["userVersion"] == 1


def test_the_known_columns_are_those_of_the_published_ddl(tmp_path):
    from pathlib import Path

    from audit.store.database import COLUMNS, TABLES, USER_VERSIONS, read_database

    ddl = (Path(__file__).resolve().parents[1] / "data" / "agentsview_agy-1.0.7-1.0.10_baseline_schema.sql").read_text()
    with sqlite3.connect(tmp_path / "x.db") as conn:
        conn.executescript(ddl)
    conn.close()
    conv = read_database(tmp_path / "x.db")
    tables = {o.name: tuple(c[1] for c in o.columns) for o in conv.schema if o.type == "table"}
    assert tables == COLUMNS and set(TABLES) == set(COLUMNS) and {conv.user_version} == USER_VERSIONS


def test_a_markdown_export_says_what_it_left_out(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=23)
    convo = b.root("cli").conversation(turns=1, brain=False)
    _alter(convo.paths["db"], "ALTER TABLE steps ADD COLUMN extra text")
    assert main(["export", convo.id, "--home", str(tmp_path), "--format", "md"]) == 0
    text = capsys.readouterr().out
    assert "\n- **exported:** agy-audit-export/1 by cortex.proto sha256:" in text
    assert "\n- **left out:** column `steps.extra` (0 rows)\n" in text


def test_inspect_ranks_unknown_fields_by_the_rows_carrying_them(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=9)
    convo = b.root("cli").conversation(turns=1, unknown_fields=True, brain=False)
    with sqlite3.connect(convo.paths["db"]) as conn:  # field 99 twice in one generation row: 1 row, 2 occurrences
        conn.execute("UPDATE gen_metadata SET data = data || x'980601980601' WHERE idx = 0")
    conn.close()
    assert main(["inspect", convo.id, "--home", str(tmp_path), "--format", "json"]) == 0
    unknown = envelope(capsys.readouterr().out, "inspect")["result"]["database"]["unknownFields"]
    kinds = {s["type"] for s in convo.steps}
    per_kind = {k: sum(s["type"] == k for s in convo.steps) for k in kinds}
    expected = [
        {"name": f"steps.step_payload/{k}: 999:varint", "rows": n, "count": n, "inProjection": True}
        for k, n in sorted(per_kind.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    expected.append({"name": "gen_metadata.data: 99:varint", "rows": 1, "count": 2, "inProjection": False})
    assert sorted(unknown, key=lambda u: (-u["rows"], -u["count"], u["name"])) == unknown
    assert sorted(unknown, key=lambda u: u["name"]) == sorted(expected, key=lambda u: u["name"])
    assert main(["inspect", convo.id, "--home", str(tmp_path)]) == 0
    assert "UNKNOWN PROTOBUF FIELD" in capsys.readouterr().out


def test_an_export_of_a_lagging_db_lists_the_steps_only_its_transcripts_hold(tmp_path, capsys):
    """A .db copied without its -wal lost its last steps; the transcripts still hold them. The export
    (from the .db) cannot include them: it lists them in its provenance and says so on stderr."""
    b = StoreBuilder(tmp_path, seed=24)
    convo = b.root("cli").conversation(turns=3, wal_steps=2, shm_without_wal=True)
    n = len(convo.steps)
    assert main(["export", convo.id, "--home", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    exported = json.loads(captured.out)
    assert len(exported["steps"]) == n - 2
    provenance = exported["agyReader"]["agyAudit"]["provenance"]
    types = [s["type"].removeprefix("CORTEX_STEP_TYPE_") for s in convo.steps]
    assert provenance["transcriptOnly"] == [
        {"step": i, "type": types[i], "locations": [f"transcript.jsonl:{i + 1}", f"transcript_full.jsonl:{i + 1}"]}
        for i in (n - 2, n - 1)
    ]
    assert captured.err == (
        f"export: note: 2 step(s) only in the brain transcript not exported (step {n - 2}-{n - 1}): "
        "the .db lags its transcript; see agyReader.agyAudit.provenance.transcriptOnly\n"
    )
    assert main(["verify-contract", "--format", "json", str(_written(tmp_path, captured.out))]) == 0
    assert json.loads(capsys.readouterr().out)["result"]["files"][0]["valid"] is True
    assert main(["export", convo.id, "--home", str(tmp_path), "--format", "md"]) == 0
    text = capsys.readouterr().out
    assert f"\n- **left out:** 2 step(s) only in the brain transcript (step {n - 2}-{n - 1})\n" in text
    assert main(["export", convo.id, "--home", str(tmp_path), "--quiet"]) == 0
    assert capsys.readouterr().err == captured.err  # what the export leaves out is never hidden


def test_an_export_whose_db_holds_every_transcript_step_lists_none(tmp_path, capsys):
    b = StoreBuilder(tmp_path, seed=25)
    convo = b.root("cli").conversation(turns=2, wal_steps=2)  # committed to the -wal: read, nothing lags
    assert main(["export", convo.id, "--home", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["agyReader"]["agyAudit"]["provenance"]["transcriptOnly"] == []
    assert captured.err == ""


def _written(directory, text: str):
    path = directory / "exported.trajectory.json"
    path.write_text(text)
    return path


def test_step_ranges():
    from audit.report.text import step_ranges

    assert step_ranges([]) == ""
    assert step_ranges([4]) == "4"
    assert step_ranges([3, 4, 5, 9, 11, 12]) == "3-5, 9, 11-12"
