"""The ``layout`` surface: which file families each root's sessions have -- fingerprinted from a
store, a home and a sweep corpus (whose manifest records it per root), compared, and read by
consumer profiles' ``layout`` entries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from audit.actions import baseline_writer, mutate
from audit.actions.sweep import sweep
from audit.checks import baselines, consumers
from audit.checks.drift import compare, fingerprints_to_compare
from audit.checks.fingerprint import fingerprint_paths
from audit.store.layout import resolve_roots
from audit.testing.builder import StoreBuilder

LOGS = "brain/*/.system_generated/logs/"


def _store(home: Path) -> Path:
    """A CLI root whose sessions take every form (flat, flat and chunks, chunks only, a -wal, a
    legacy .pb) and an IDE root of one plain session with an overview."""
    b = StoreBuilder(home, seed=3)
    cli = b.root("cli")
    cli.conversation(turns=2)
    cli.conversation(turns=2, transcript_chunks="both", wal_steps=1)
    cli.conversation(turns=2, transcript_chunks="only")
    cli.conversation(db=False, legacy_pb=True, sidecar="missing")
    b.root("ide").conversation(turns=1, transcript_overview=True)
    return home


LINES = (
    f"antigravity-cli/{LOGS}chunks/transcript/*.jsonl\tfile|none",
    f"antigravity-cli/{LOGS}chunks/transcript_full/*.jsonl\tfile|none",
    f"antigravity-cli/{LOGS}transcript.jsonl\tfile|none",
    f"antigravity-cli/{LOGS}transcript_full.jsonl\tfile|none",
    "antigravity-cli/conversations/*.db\tfile|none",
    "antigravity-cli/conversations/*.db-wal\tfile|none",
    "antigravity-cli/conversations/*.pb\tfile|none",
    "antigravity-cli/conversations/*.trajectory.json\tfile|none",
    f"antigravity/{LOGS}overview.txt\tfile",
    f"antigravity/{LOGS}transcript.jsonl\tfile",
    f"antigravity/{LOGS}transcript_full.jsonl\tfile",
    "antigravity/conversations/*.db\tfile",
    "antigravity/conversations/*.trajectory.json\tfile",
)


def _lines(path: Path) -> tuple[str, ...]:
    return fingerprint_paths([path], ("layout",)).fingerprints["layout"].lines


def test_a_store_a_home_and_a_sweep_show_the_same_layout(tmp_path):
    home = _store(tmp_path / "home")
    assert _lines(home) == LINES
    cli_root = home / ".gemini" / "antigravity-cli"
    assert _lines(cli_root) == tuple(line for line in LINES if line.startswith("antigravity-cli/"))
    # the corpus copies neither the -wal nor the .pb: the manifest records the layout per root
    result = sweep(resolve_roots(home=home, env={}), tmp_path / "corpus", source="native", env={})
    assert not result.complete  # the legacy .pb is not covered natively
    manifest = json.loads((tmp_path / "corpus" / "manifest.json").read_text())
    assert [r["name"] for r in manifest["roots"]] == ["antigravity", "antigravity-cli"]
    assert manifest["roots"][0]["layout"] == {
        "conversations/*.db": "file",
        "conversations/*.trajectory.json": "file",
        f"{LOGS}overview.txt": "file",
        f"{LOGS}transcript.jsonl": "file",
        f"{LOGS}transcript_full.jsonl": "file",
    }
    assert _lines(tmp_path / "corpus") == LINES


def test_a_manifest_without_a_layout_computes_none(tmp_path):
    home = StoreBuilder(tmp_path / "home", seed=4)
    home.root("cli").conversation(turns=1)
    sweep(resolve_roots(home=tmp_path / "home", env={}), tmp_path / "corpus", source="native", env={})
    manifest = tmp_path / "corpus" / "manifest.json"
    doc = json.loads(manifest.read_text())
    for root in doc["roots"]:
        del root["layout"]  # a manifest written before roots recorded their layout
    manifest.write_text(json.dumps(doc))
    result = fingerprint_paths([tmp_path / "corpus"], ("layout",))
    assert result.fingerprints == {} and result.not_computed == {
        "layout": "no session in a store root (a sweep corpus records it per root since manifests name their roots' layout)"
    }


def _only_chunks(home: Path) -> None:
    """Every flat transcript gone, its chunk family left (a session real stores show, A.4)."""
    for tier in ("transcript", "transcript_full"):
        for flat in home.glob(f".gemini/*/brain/*/.system_generated/logs/{tier}.jsonl"):
            chunks = flat.parent / "chunks" / tier
            chunks.mkdir(parents=True, exist_ok=True)
            if not any(chunks.iterdir()):
                shutil.copyfile(flat, chunks / "00000000.jsonl")
            flat.unlink()


def _profile(path: Path, *entries: dict) -> consumers.Profile:
    doc = {"profile": 2, "name": path.stem, "repository": "pypi:example", "version": "1.0", "describes": "a reader"}
    cite = {"cite": "pypi:example==1.0:example/reader.py:1", "why": "reads it"}
    path.write_text(json.dumps(doc | {"entries": [e | cite for e in entries]}))
    return consumers.load(path)


def _swept(home: Path, out: Path) -> Path:
    assert sweep(resolve_roots(home=home, env={}), out, source="native", env={}).complete
    return out


def test_chunks_only_transcripts_break_a_reader_of_flat_files(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=5)
    b.root("cli").conversation(turns=2)
    b.root("cli").conversation(turns=2, transcript_chunks="both")
    fp = tmp_path / "fp"
    swept = fingerprint_paths([_swept(tmp_path / "home", tmp_path / "corpus")])
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", swept, "2026-12-01"), fp)
    baseline = baselines.load(fp / "agy-9.9.9")
    _only_chunks(tmp_path / "home")
    observed = fingerprints_to_compare([_swept(tmp_path / "home", tmp_path / "corpus-2")])
    comparison = compare(baseline, observed)
    (layout,) = [r for r in comparison.surfaces if r.surface == "layout"]
    assert [(c.path, c.kind, c.old, c.new) for c in layout.changes] == [
        (f"antigravity-cli/{LOGS}chunks/transcript/*.jsonl", "narrowed", "file|none", "file"),
        (f"antigravity-cli/{LOGS}chunks/transcript_full/*.jsonl", "narrowed", "file|none", "file"),
        (f"antigravity-cli/{LOGS}transcript.jsonl", "removed", "file", None),
        (f"antigravity-cli/{LOGS}transcript_full.jsonl", "removed", "file", None),
    ]
    flat = {"surface": "layout", "path": f"{LOGS}transcript_full.jsonl", "mode": "requires"}
    flat_only = consumers.judge(_profile(tmp_path / "flat.json", flat), comparison, baseline, observed)
    assert (flat_only.verdict, [d.reason for d in flat_only.deciding]) == ("breaks", ["removed"])
    chunks = {"surface": "layout", "path": f"{LOGS}chunks/transcript_full/*.jsonl", "mode": "optional"}
    aware = _profile(tmp_path / "aware.json", flat | {"mode": "optional", "fallback": [f"layout {chunks['path']}"]}, chunks)
    judged = consumers.judge(aware, comparison, baseline, observed)
    assert (judged.verdict, [d.reason for d in judged.deciding]) == (
        "at risk",
        [f"removed; it falls back to layout {LOGS}chunks/transcript_full/*.jsonl"],
    )


def test_a_home_read_whole_judges_removals_as_a_complete_sweep_does(tmp_path):
    """A dropped column compared from the home itself: removed (every .db carries its schema and
    every one was read); with a session only the daemon can read, the home is not read whole and a
    missing line is only not observed, as in an incomplete sweep."""
    b = StoreBuilder(tmp_path / "home", seed=6)
    b.root("cli").conversation(turns=2)
    fp = tmp_path / "fp"
    baseline_writer.write(
        baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([_swept(tmp_path / "home", tmp_path / "c")]), "2026-12-01"), fp
    )
    baseline = baselines.load(fp / "agy-9.9.9")
    mutate.apply_mutation(mutate.CATALOGUE["drop-steps-metadata"], tmp_path / "home")
    observed = fingerprints_to_compare([tmp_path / "home"])
    assert observed.complete and observed.survey is not None and observed.survey.whole
    (sqlite,) = [r for r in compare(baseline, observed).surfaces if r.surface == "sqlite"]
    assert [(c.path, c.kind) for c in sqlite.changes] == [("table:steps.metadata", "removed")]
    assert baseline.counts is not None and set(baseline.counts["values"]) >= {
        "sqlite:table:steps.step_type",
        "transcript:full.type",
    }
    b.root("cli").conversation(db=False, legacy_pb=True, sidecar="missing")
    partial = fingerprints_to_compare([tmp_path / "home"])
    assert not partial.complete and partial.survey is not None and partial.survey.unread == 1
    (sqlite,) = [r for r in compare(baseline, partial).surfaces if r.surface == "sqlite"]
    assert [(c.path, c.kind) for c in sqlite.changes] == [("table:steps.metadata", "not-observed")]


def test_a_wal_that_comes_or_goes_is_an_advisory_never_drift(tmp_path):
    """A -wal is there while agy holds its .db open and gone once SQLite checkpoints it: recorded
    from a store with agy running and compared after it closed (or the other way round), the
    layout is an advisory DRIFT naming why, and no other family's change is softened."""
    b = StoreBuilder(tmp_path / "home", seed=8)
    cli = b.root("cli")
    plain = cli.conversation(turns=1)
    open_db = cli.conversation(turns=2, wal_steps=1)
    fp = tmp_path / "fp"
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([tmp_path / "home"]), "2026-12-01"), fp)
    baseline = baselines.load(fp / "agy-9.9.9")
    wal = Path(f"{open_db.paths['db']}-wal")
    wal.rename(tmp_path / "checkpointed")  # agy closed: the -wal is gone
    (layout,) = [r for r in compare(baseline, fingerprints_to_compare([tmp_path / "home"])).surfaces if r.surface == "layout"]
    assert (layout.status, layout.advisory) == ("DRIFT", True)
    assert [(c.path, c.kind, c.old, c.new) for c in layout.changes] == [
        ("antigravity-cli/conversations/*.db-wal", "transient", "file|none", None)
    ]
    assert layout.changes[0].note is not None and layout.changes[0].note.startswith("a -wal is there while agy holds")
    assert layout.reason == "advisory, not a failure: only 1 transient (each line says why)"
    (tmp_path / "checkpointed").rename(wal)
    Path(f"{plain.paths['db']}-wal").write_bytes(b"")  # both open now; and a sidecar gone
    plain.paths["sidecar"].unlink()
    (layout,) = [r for r in compare(baseline, fingerprints_to_compare([tmp_path / "home"])).surfaces if r.surface == "layout"]
    assert (layout.status, layout.advisory) == ("DRIFT", False)
    assert [(c.path, c.kind) for c in layout.changes] == [
        ("antigravity-cli/conversations/*.db-wal", "transient"),
        ("antigravity-cli/conversations/*.trajectory.json", "widened"),
    ]
