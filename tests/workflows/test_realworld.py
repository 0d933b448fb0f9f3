"""Done-when of issue 14 (transcripts): a home built by the store builder with every real-world
transcript case of docs/store-format.md#transcript-anomalies passes ``ci --source native`` with no verify-contract
violation, and every oddity is an advisory with its file and line (the exact list)."""

from __future__ import annotations

from pathlib import Path

import pytest

from audit.findings import Level
from audit.pipeline import ci
from audit.pipeline.ci_results import PASS
from audit.pipeline.sessions import SHOWN
from audit.store.layout import resolve_roots
from audit.testing.builder import StoreBuilder
from audit.testing.realworld import add_real_world

ANOMALIES = {"late-start", "repeated-step", "inverted-step", "torn-line", "running", "truncated"}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    home = tmp_path_factory.mktemp("realworld") / "home"
    builder = StoreBuilder(home, seed=14)
    anomalous = builder.root("cli").conversation(turns=2, transcript_anomalies=ANOMALIES)
    sessions = add_real_world(builder, long_answers=40)  # the compact tier crosses a chunk boundary too
    out = home.parent / "corpus"
    report = ci.run(resolve_roots(home=home, env={}), out=out, source="native", compat_file=home.parent / "COMPAT.md")
    return report, out, {"anomalous": anomalous.id, **{name: c.id for name, c in sessions.items()}}


def _check(report, stage, name):
    return next(c for s in report.stages if s.name == stage for c in s.checks if c.name == name)


def test_the_home_holds_every_real_world_case(run):
    _, out, ids = run
    logs = {
        name: out / "native" / ("acp" if name == "chunk-only" else "cli") / "brain" / cid / ".system_generated" / "logs"
        for name, cid in ids.items()
    }
    for tier in ("transcript", "transcript_full"):  # both tiers of the chunked session cross 102,400-byte boundaries mid-line
        parts = sorted((logs["chunked"] / "chunks" / tier).iterdir())
        assert len(parts) >= 2 and all(p.stat().st_size == 102_400 for p in parts[:-1])
        assert not parts[0].read_bytes().endswith(b"\n")
        assert b"".join(p.read_bytes() for p in parts) == (logs["chunked"] / f"{tier}.jsonl").read_bytes()
    assert not (logs["chunk-only"] / "transcript.jsonl").exists() and (logs["chunk-only"] / "chunks" / "transcript").is_dir()
    assert (logs["windows"] / "overview.txt").is_file()
    full = (logs["chunked"] / "transcript_full.jsonl").read_text()
    assert '"error_code":429' in full and '"WaitMsBeforeAsync":5000' in full and '"Overwrite":true' in full


def test_ci_passes_with_no_contract_violation_and_every_oddity_an_advisory(run):
    report, out, ids = run
    assert report.exit_code == 0, report.not_passed
    contract = _check(report, "verify-contract", "corpus transcripts")
    assert contract.verdict == PASS and contract.errors == 0
    name = {cid: n for n, cid in ids.items()}

    def where(f):
        rel = Path(f.file).relative_to(out / "native")
        return name[rel.parts[2]], "/".join(rel.parts[5:]), f.line

    from audit.checks import contract as contract_check

    # ci keeps the first findings and counts them all; its command (verify-contract) lists them all
    every = [f for r in contract_check.verify_paths([out / "native"], "transcript").files for f in r.findings]
    assert (contract.warnings, contract.more, len(contract.findings)) == (len(every), len(every) - SHOWN, SHOWN)
    assert [(f.rule, f.file, f.line) for f in contract.findings] == [(f.rule, f.file, f.line) for f in every[:SHOWN]]
    assert sorted((f.rule, *where(f)) for f in every) == [
        ("transcript/args/truncated", "windows", "transcript.jsonl", 10),
        ("transcript/created_at/backward", "anomalous", "transcript.jsonl", 6),  # the swapped (inverted) record
        ("transcript/created_at/backward", "anomalous", "transcript_full.jsonl", 10),
        ("transcript/created_at/backward", "windows", "overview.txt", 10),  # a step written late, in every tier
        ("transcript/created_at/backward", "windows", "transcript.jsonl", 9),
        ("transcript/created_at/backward", "windows", "transcript_full.jsonl", 6),
        ("transcript/step-order", "anomalous", "transcript.jsonl", 2),  # repeated
        ("transcript/step-order", "anomalous", "transcript.jsonl", 6),  # inverted
        ("transcript/step-order", "anomalous", "transcript_full.jsonl", 6),
        ("transcript/step-order", "anomalous", "transcript_full.jsonl", 10),
        ("transcript/torn-line", "anomalous", "transcript_full.jsonl", 11),
        ("transcript/window/late", "anomalous", "transcript.jsonl", 1),
        ("transcript/window/late", "windows", "transcript.jsonl", 1),
        ("transcript/window/late", "windows", "transcript_full.jsonl", 1),  # a later window than the compact one
    ]
    assert all(f.level == Level.WARNING and f.line for f in contract.findings)
    assert all(f.level == Level.WARNING for f in every)
    # the RUNNING line of a step the .db finished is lag, reported by consistency, never a violation
    lag = [f for f in _check(report, "consistency", "corpus").findings if f.rule == "consistency/status-lag"]
    assert {where(f)[0] for f in lag} == {"anomalous", "windows"} and all(f.level == Level.WARNING for f in lag)


def test_identical_chunks_are_checked_once_and_chunk_only_sessions_like_flat_ones(run):
    from audit.checks import contract
    from audit.safeio import read_json
    from audit.store.corpus import MANIFEST

    _, out, ids = run
    report = contract.verify_paths([out / "native"], "transcript")
    skipped = {Path(s.path).relative_to(out / "native").parts[2:]: s.reason for s in report.skipped}
    assert {k: v.split(" part(s) ")[1] for k, v in skipped.items()} == {
        (ids["chunked"], ".system_generated", "logs", "chunks", tier): f"are byte-identical to {tier}.jsonl, checked there"
        for tier in ("transcript", "transcript_full")
    }
    only = [r for r in report.files if ids["chunk-only"] in r.file]
    assert {Path(r.file).parent.name for r in only} == {"transcript", "transcript_full"} and all(r.valid for r in only)
    steps = {s["id"]: s["steps"] for s in read_json(out / MANIFEST)["sessions"]}
    assert steps[ids["chunk-only"]] == sum(r.records for r in only if Path(r.file).parent.name == "transcript") > 0
