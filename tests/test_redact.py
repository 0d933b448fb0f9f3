"""``agy-audit redact``: every surface's fingerprint kept, no content kept, only string values
changed -- and a refusal, with the copy removed, when something cannot be redacted."""

from __future__ import annotations

import json
import sqlite3

import pytest
from deepdiff import DeepDiff

from audit.actions.redact import PROVEN, REPORT, Redactor, redact
from audit.checks.fingerprint import SURFACES, survey
from audit.checks.shape import digest_lines
from audit.cli import main
from audit.errors import FindingsError
from audit.testing.sample import build

KEY = b"k" * 32


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
    assert set(redacted.digests) == set(PROVEN) == set(SURFACES) - {"summaries", "history", "cache", "roots"}
    assert all(redacted.counts[k] > 0 for k in ("text", "json-text", "ids", "timestamps", "bytes")), redacted.counts
    before, after = survey([sample], SURFACES), survey([redacted.out], SURFACES)
    for surface in PROVEN:
        if surface == "values":  # the history's types left with history.jsonl; every other value is kept
            gone = set(before.fingerprints[surface].lines) - set(after.fingerprints[surface].lines)
            assert [line.split("\t")[0] for line in gone] == ["history:type"]
            assert set(after.fingerprints[surface].lines) < set(before.fingerprints[surface].lines)
            assert redacted.digests[surface] == (digest_lines(sorted(after.fingerprints[surface].lines)),) * 2
            continue
        assert before.fingerprints[surface].digest == after.fingerprints[surface].digest, surface
        assert redacted.digests[surface] == (before.fingerprints[surface].digest,) * 2
    # the per-install files that hold titles, prompts and paths are left out, and the roots list what is left
    assert set(after.not_computed) == {"summaries", "history", "cache"} and set(before.fingerprints) == set(SURFACES)
    assert {line.split("\t")[1] for line in after.fingerprints["roots"].lines} == {"root"}


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
    assert "## Fingerprints (source = copy)" in report and "legacy encrypted trajectory" in report

    def verdicts(home):
        code = main(["ci", "--home", str(home), "--source", "native", "--no-live", "--format", "json", "-q"])
        doc = json.loads(capsys.readouterr().out)
        return code, [
            (s["name"], s["verdict"], [(c["name"], c["verdict"], c["errors"]) for c in s["checks"]]) for s in doc["stages"]
        ]

    left_out = {f"corpus {s}" for s in ("summaries", "history", "cache", "roots")}  # the per-install files left out

    def judged(found):
        code, stages = found
        kept = [(name, verdict, [c for c in checks if c[0] not in left_out]) for name, verdict, checks in stages]
        held = {c[0]: c[1:] for _, _, checks in stages for c in checks if c[0] in left_out}
        return (code, kept), held

    (copy, copy_held), (source, source_held) = judged(verdicts(redacted.out)), judged(verdicts(sample))
    assert copy == source
    assert (copy_held, source_held) == (dict.fromkeys(left_out, ("skipped", 0)), dict.fromkeys(left_out, ("pass", 0)))
    # The sample's one .db/transcript disagreement (a planted thinking) survives redaction, nothing
    # else disagrees: truncated transcript values still agree with the .db values they were cut from.
    assert main(["consistency", "--home", str(redacted.out), "-q"]) == 1
    out = capsys.readouterr().out
    assert out.count("[consistency/thinking]") == 2 and "[consistency/" not in out.replace("[consistency/thinking]", "")


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


def test_an_unknown_text_field_is_refused_by_name_and_the_copy_removed(tmp_path):
    home = tmp_path / "home"
    build(home)
    db = next(home.glob(".gemini/antigravity-cli/conversations/*.db"))
    conn = sqlite3.connect(db)
    idx, blob = conn.execute("SELECT idx, step_payload FROM steps ORDER BY idx LIMIT 1").fetchone()
    secret = b"a private note agy-audit cannot see"
    field = bytes([(1999 << 3 | 2) & 0x7F | 0x80, (1999 << 3 | 2) >> 7]) + bytes([len(secret)]) + secret
    conn.execute("UPDATE steps SET step_payload = ? WHERE idx = ?", (blob + field, idx))
    conn.commit()
    conn.close()
    out = tmp_path / "copy"
    with pytest.raises(FindingsError, match=rf"{db.name}:steps.step_payload\[\d+\]: unknown field 1999 holds text"):
        redact(home, out, key=KEY)
    assert not out.exists()


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
    assert survey([home], SURFACES).fingerprints["wire"].digest == redacted.digests["wire"][0]
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


def test_every_builder_shape_redacts_with_every_fingerprint_kept(tmp_path):
    """Every Part B step shape (browser sub-agent and unnamed enum values included) and every
    real-world transcript case (both tiers across chunk boundaries, overview, truncated args)."""
    from audit.testing import StoreBuilder
    from audit.testing import trajectories as T
    from audit.testing.realworld import add_real_world

    b = StoreBuilder(tmp_path / "home", seed=15)
    ide = b.root("ide")
    ide.conversation(steps=T.every_shape_steps(b.rng, b.clock))
    ide.conversation(turns=2, wal_steps=1, shm_without_wal=True, sidecar="missing")
    add_real_world(b, long_answers=40)
    result = redact(b.home, tmp_path / "copy", key=KEY)
    assert {s: a == c for s, (a, c) in result.digests.items()} == dict.fromkeys(PROVEN, True)
    assert all(a is not None for a, _c in result.digests.values())
