"""Reliability under load: the readers run while another process, like a live ``agy``, keeps
appending steps to a WAL-mode ``.db`` and rewriting sidecars.

Guarantees checked: no reader crashes; every ``.db`` read is one consistent snapshot (step
indexes 0..n-1, the two tables the writer fills in one transaction agree, counts never go back);
a torn sidecar (rewritten in place) is a finding naming it, an atomically replaced one never is;
the writer -- whose busy timeout is 0, so any lock we held would fail it at once -- reports no
SQLITE_BUSY and no error.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from audit.actions.export import export_session
from audit.actions.sweep import sweep
from audit.checks import completeness
from audit.checks.fingerprint import fingerprint_paths
from audit.checks.inspection import inspect_session
from audit.store.database import read_database
from audit.store.layout import resolve_roots, scan_root
from audit.store.trajectory import reconstruct
from audit.testing import StoreBuilder

BASELINE_SQLITE = "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43"
LOAD_SECONDS = 3.0

WRITER = r"""
import json, os, sqlite3, sys, time
db, atomic, inplace, scratch = sys.argv[1:5]
stop = os.path.join(scratch, "stop")
conn = sqlite3.connect(db, timeout=0, isolation_level=None)
conn.execute("PRAGMA journal_mode=WAL")
row = conn.execute("SELECT step_type, status, metadata, step_payload FROM steps WHERE idx = 0").fetchone()
step = conn.execute("SELECT max(idx) + 1 FROM steps").fetchone()[0]
gen = conn.execute("SELECT max(idx) + 1 FROM gen_metadata").fetchone()[0]
docs = {path: json.load(open(path)) for path in (atomic, inplace)}
base = {path: len(doc["steps"]) for path, doc in docs.items()}
stats = {"commits": 0, "rewrites": 0, "busy": 0, "errors": []}
print("ready", flush=True)
while not os.path.exists(stop):
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO steps (idx, step_type, status, metadata, step_payload) VALUES (?, ?, ?, ?, ?)", (step, *row))
        conn.execute("INSERT INTO gen_metadata (idx, data, size) VALUES (?, x'', 0)", (gen,))
        conn.execute("COMMIT")
        step, gen = step + 1, gen + 1
        stats["commits"] += 1
    except sqlite3.Error as exc:
        busy = getattr(exc, "sqlite_errorname", "").startswith(("SQLITE_BUSY", "SQLITE_LOCKED"))
        stats["busy"] += busy
        stats["errors"] += [] if busy else [str(exc)]
        if conn.in_transaction:
            conn.execute("ROLLBACK")
    for path, doc in docs.items():
        doc["steps"] = doc["steps"][: base[path]] if len(doc["steps"]) > base[path] + 20 else doc["steps"] + doc["steps"][:1]
        data = json.dumps(doc, indent=2).encode()
        try:
            if path == atomic:
                tmp = os.path.join(scratch, "sidecar.tmp")
                with open(tmp, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, path)
            else:
                with open(path, "r+b") as fh:
                    fh.truncate(0)
                    fh.write(data)
            stats["rewrites"] += 1
        except OSError as exc:
            stats["errors"].append(str(exc))
    time.sleep(0.01)
conn.close()
print(json.dumps(stats), flush=True)
"""


@pytest.fixture
def live(tmp_path):
    """A store whose first conversation is being written to; yields (home, live, torn sidecar, writer)."""
    home = tmp_path / "home"
    root = StoreBuilder(home, seed=21).root("cli")
    convo = root.conversation(turns=3, wal_steps=2)
    torn = root.conversation(turns=2).paths["sidecar"]
    scratch = tmp_path / "writer"
    scratch.mkdir()
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, convo.paths["db"], convo.paths["sidecar"], torn, scratch],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline() == "ready\n"
        yield home, convo, torn, writer
    finally:
        (scratch / "stop").touch()
        writer.wait(timeout=30)


def _consistent(conv, offset: int) -> int:
    """Steps of one snapshot, after checking it is one: contiguous indexes, both tables in step."""
    assert conv.findings == [] and conv.access
    indexes = [row["idx"] for row in conv.steps]
    assert indexes == list(range(len(indexes)))
    assert len(conv.steps) - len(conv.tables["gen_metadata"]) == offset
    return len(indexes)


def test_readers_under_a_live_writer(live, tmp_path):
    home, convo, torn, writer = live
    first = read_database(convo.paths["db"])
    offset = len(first.steps) - len(first.tables["gen_metadata"])
    seen = _consistent(first, offset)
    rounds = sweeps = 0
    roots = resolve_roots(home=home, env={})
    kept_changing = (
        "unreadable",
        f"{convo.paths['db']}: kept changing while being read (5 attempts); "
        "a conversation in progress? check again when it is idle",
    )  # completeness fails closed
    deadline = time.monotonic() + LOAD_SECONDS
    while time.monotonic() < deadline or sweeps == 0:
        rounds += 1
        conv = read_database(convo.paths["db"])
        steps = _consistent(conv, offset)
        assert steps >= seen
        seen = steps
        native = reconstruct(conv)
        assert native.findings == [] and len(native.trajectory["steps"]) == steps

        surveyed = fingerprint_paths([home])
        assert surveyed.fingerprints["sqlite"].digest == BASELINE_SQLITE
        assert all(p.startswith(f"{torn}: ") for p in surveyed.problems)  # only the torn file, never the atomic one

        verdicts = {r.id: (r.verdict, r.detail) for r in completeness.check_roots(roots).results}
        assert verdicts[convo.id] == kept_changing or verdicts[convo.id][0] in ("complete", "incomplete")
        verdict, detail = verdicts[torn.name.split(".")[0]]
        assert verdict in ("complete", "incomplete") or (verdict == "unreadable" and detail.startswith(f"{torn}: "))

        session = next(s for s in scan_root(roots[0]).sessions if s.id == convo.id)
        inspected = inspect_session(session)
        assert inspected.database.findings == [] and sum(inspected.database.step_types.values()) >= steps
        exported = export_session(session)
        assert exported.findings == [] and len(exported.trajectory["steps"]) >= steps

        if rounds % 4 == 1:
            out = tmp_path / f"sweep-{sweeps}"
            result = sweep(roots, out, source="native")
            assert result.complete, result.failures
            copied = read_database(out / "native" / "cli" / f"{convo.id}.db")
            assert _consistent(copied, offset) >= steps
            sweeps += 1

    (tmp_path / "writer" / "stop").touch()
    stats = json.loads(writer.stdout.readline())
    assert writer.wait(timeout=30) == 0
    assert stats["busy"] == 0 and stats["errors"] == []
    assert stats["commits"] > 10 and stats["rewrites"] > 10 and rounds > 3
    assert _consistent(read_database(convo.paths["db"]), offset) == len(convo.steps) + stats["commits"]  # nothing lost
