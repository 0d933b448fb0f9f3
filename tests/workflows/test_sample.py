"""The committed sample store (examples/home) is exactly what the generator writes."""

import json
from pathlib import Path

from audit.cli import main
from audit.testing.sample import build

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "home"


def _files(home: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(home)): p.read_bytes()
        for p in sorted(home.rglob("*"))
        if p.is_file() and not p.name.endswith(("-wal", "-shm"))  # SQLite salts WAL files randomly
    }


def test_committed_sample_matches_the_generator(tmp_path):
    build(tmp_path)
    generated = _files(tmp_path)
    assert sorted(_files(EXAMPLES)) == sorted(generated)
    assert _files(EXAMPLES) == generated, "regenerate with: python -m audit.testing.sample examples/home"


def test_sample_sessions_products_and_sidecar_states(tmp_path, capsys):
    build(tmp_path)
    assert main(["stores", "--home", str(tmp_path), "--sessions", "--format", "json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["result"]["sessions"]
    by_product: dict[str, list] = {}
    for s in sessions:
        by_product.setdefault(s["product"], []).append(s["sidecar"])
    assert {k: sorted(v, key=str) for k, v in by_product.items()} == {
        "cli": ["fresh"] * 9 + ["missing", "stale"],  # with the real-world chunked and windows sessions
        "ide": ["fresh"] * 5 + ["missing"],
        "acp": [None, None],  # the headless run, and the chunk-only one
    }
    assert len(sessions) == 19


def test_committed_sample_lists_every_session(capsys):
    assert main(["stores", "--home", str(EXAMPLES), "--sessions", "--format", "json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["result"]["sessions"]
    assert sorted(s["product"] for s in sessions) == ["acp"] * 2 + ["cli"] * 11 + ["ide"] * 6
    # git keeps no mtimes, so in a checkout a sidecar is fresh or missing, never judged by content here
    assert {s["sidecar"] for s in sessions if s["product"] != "acp"} <= {"fresh", "stale", "missing"}


def test_committed_sample_sweeps_completely(tmp_path, capsys):
    """Every committed .db opens with its committed -wal/-shm (a .db regenerated without its -wal,
    whose WAL salts differ each run, reads as 'database disk image is malformed')."""
    out = tmp_path / "corpus"
    assert main(["sweep", "--home", str(EXAMPLES), "--source", "native", "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["complete"] is True and manifest["failures"] == []


def test_committed_sample_databases_read_with_their_side_files():
    """The committed -wal belongs to the committed .db (SQLite salts a -wal randomly, so both
    must come from the same generation run): every database reads without a finding."""
    from audit.store.database import read_database

    dbs = sorted(EXAMPLES.glob(".gemini/*/conversations/*.db"))
    assert dbs
    assert {str(db.relative_to(EXAMPLES)): read_database(db).findings for db in dbs} == {
        str(db.relative_to(EXAMPLES)): [] for db in dbs
    }


def test_doctor_names_the_committed_samples_content_stale_session_incomplete(tmp_path, capsys, monkeypatch):
    """A checkout has no mtimes to go by: doctor finds the stale sidecar by its content."""
    monkeypatch.setenv("PATH", str(tmp_path))  # no agy to ask for its version
    assert main(["doctor", "--home", str(EXAMPLES), "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)["result"]
    assert {Path(r["path"]).name: r["sidecars"] for r in doc["roots"]} == {
        "antigravity": {"verified": 4, "incomplete": 0, "unknown": 0, "missing": 1},
        "antigravity-acp": {"verified": 0, "incomplete": 0, "unknown": 0, "missing": 0},
        "antigravity-cli": {"verified": 9, "incomplete": 1, "unknown": 0, "missing": 1},
        "antigravity-ide": {"verified": 1, "incomplete": 0, "unknown": 0, "missing": 0},
    }
    root = EXAMPLES / ".gemini" / "antigravity-cli"
    stale = "55554fa6-5283-4a9c-8b4d-e3c22413c3fc"
    assert {"subject": str(root), "remedy": f"agy-audit completeness --root {root} {stale}"} == {
        k: v for k, v in doc["actions"][1].items() if k != "problem"
    }
    assert doc["actions"][1]["problem"].startswith(
        f"session {stale}: the sidecar is incomplete by content: sidecar lacks 2 step(s) from step 14"
    )
