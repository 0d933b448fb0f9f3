"""Drift: line classification, surface statuses, --fail-on, reports, bundled baselines, the record."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from audit.actions import baseline_writer, compat
from audit.actions.sweep import sweep
from audit.checks import baselines
from audit.checks.baselines import Baseline
from audit.checks.drift import (
    DIGEST_ONLY,
    Change,
    Observed,
    compare,
    diff_lines,
    enum_at,
    fingerprints_to_compare,
    native_observable,
)
from audit.checks.fingerprint import Fingerprint, fingerprint_paths, schema_lines
from audit.cli import main
from audit.errors import NothingToCheck, UsageError
from audit.report.drift_report import comparison_markdown
from audit.store.database import read_database, schema_fingerprint
from audit.store.layout import Root
from audit.testing.builder import StoreBuilder

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parents[1] / "data"  # vendored reference data (tests/data/README.md)
D125 = "sha256:70e2c9386e88420d834beab7a4c917514bcf7b2cf9f74674bde02965601e0462"
D1210 = "sha256:3acca61c897bdec898292c1646090faf1913781f0a4d11ca389bc043ba4ec92a"
SCHEMA = "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43"

OLD = ("a\tstring", "b\tstring", "c\tnull|string", "d\tnumber", "e\tnull|string", "f\tnull|string")
NEW = ("b\tnull|string", "c\tstring", "d\tstring", "e\tnumber|string", "f\tnull|string", "g\tobject")


def test_each_class_from_a_complete_sweep():
    assert diff_lines(OLD, NEW, complete=True) == (
        Change("a", "removed", "string", None),
        Change("b", "widened", "string", "null|string"),
        Change("c", "narrowed", "null|string", "string"),
        Change("d", "type-changed", "number", "string"),
        Change("e", "type-changed", "null|string", "number|string"),
        Change("g", "added", None, "object"),
    )


def test_absence_in_a_partial_corpus_is_only_not_observed():
    assert diff_lines(OLD, NEW, complete=False) == (
        Change("a", "not-observed", "string", None),
        Change("b", "widened", "string", "null|string"),
        Change("c", "not-observed", "null|string", "string"),
        Change("d", "type-changed", "number", "string"),
        Change("e", "widened", "null|string", "number|string"),
        Change("g", "added", None, "object"),
    )


def _baseline(**digests_lines) -> Baseline:
    digests = {s: (v if isinstance(v, str) else Fingerprint.of(s, v).digest) for s, v in digests_lines.items()}
    lines = {s: v for s, v in digests_lines.items() if not isinstance(v, str)}
    return Baseline(
        "agy-1.0.0",
        "1.0.0",
        "2026-01-01",
        "0.1.0",
        "explicit-version-scoped",
        digests,
        dict.fromkeys(digests, "imported from a test"),
        None,
        lines,
    )


def _observed(complete: bool, **lines) -> Observed:
    fps = {s: Fingerprint.of(s, v) for s, v in lines.items()}
    return Observed(
        "test corpus",
        fps,
        complete,
        "explicit-version-scoped" if complete else "partial-unknown-scoped",
        not_computed={"wire": "no readable conversation .db"},
    )


def test_statuses_and_fail_on():
    base = _baseline(sidecar=OLD, sqlite=SCHEMA, wire=("x\tvarint",), transcript=("T\tobject",))
    seen = _observed(True, sidecar=NEW, sqlite=("user_version\t1",), transcript=("T\tobject",))
    result = compare(base, seen)
    assert [(r.surface, r.status) for r in result.surfaces] == [
        ("sidecar", "DRIFT"),
        ("sqlite", "DRIFT"),
        ("wire", "NOT COMPARABLE"),
        ("transcript", "UNCHANGED"),
    ]
    assert result.surfaces[1].reason.startswith("the digest differs from agy-1.0.0's, which records only the digest")
    assert result.surfaces[2].reason == "not computed: no readable conversation .db"
    assert result.fails("drift") and result.fails("breaking") and not result.fails("never")

    only_added = compare(_baseline(sidecar=OLD[:1]), _observed(True, sidecar=OLD[:2], wire=("x\tlen",)))
    assert [(r.surface, r.status) for r in only_added.surfaces] == [("sidecar", "DRIFT"), ("wire", "NEW")]
    assert only_added.fails("drift") and not only_added.fails("breaking")

    subset = compare(_baseline(sidecar=OLD), _observed(False, sidecar=OLD[:3]))
    assert subset.surfaces[0].status == "NOT COMPARABLE" and not subset.fails("drift")
    assert subset.surfaces[0].reason == (
        "every observed line matches agy-1.0.0; 3 of its lines were not observed, which is no evidence of removal"
    )
    assert compare(_baseline(sidecar=OLD), _observed(False, sidecar=OLD)).surfaces[0].status == "UNCHANGED"


def test_markdown_report_is_exact():
    base = _baseline(sidecar=("a\tstring", "b|x\tstring", "z\tnull"))
    seen = _observed(False, sidecar=("a\tnull|string", "b|x\tstring", "n\tobject"))
    assert (
        comparison_markdown(compare(base, seen), seen)
        == """\
## agy-audit compare: baseline `agy-1.0.0`

Observed: test corpus; scope partial-unknown-scoped (not a complete sweep: missing lines are only 'not observed').

| surface | status | added | removed | renamed | type changed | widened | narrowed | value added | value removed | not observed | enum written as a number (advisory) | not in baseline (advisory) | transient state, not format (advisory) |
| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
| sidecar | DRIFT | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 |

### sidecar: added (1)

| path | baseline | observed |
| --- | --- | --- |
| `n` |  | `object` |

### sidecar: widened (1)

| path | baseline | observed |
| --- | --- | --- |
| `a` | `string` | `null\\|string` |

<details><summary>sidecar: not observed (1)</summary>

| path | baseline | observed |
| --- | --- | --- |
| `z` | `null` |  |

</details>
"""
    )


# ----------------------------------------------------------------------------- bundled baselines


def test_bundled_baselines_are_the_published_snapshots():
    found = {b.name: b for b in baselines.available()}
    assert list(found) == ["agy-1.2.5", "agy-1.2.10", "agy-1.2.11"]
    for name, digest, snapshot in (
        ("agy-1.2.5", D125, "agy-1.2.5"),
        ("agy-1.2.10", D1210, "agy-1.2.10"),
        ("agy-1.2.11", D1210, "agy-1.2.10"),
    ):
        b = found[name]
        assert (
            b.bundled and b.complete and {s: b.digests[s] for s in ("sidecar", "sqlite")} == {"sidecar": digest, "sqlite": SCHEMA}
        )
        assert (b.path / "sidecar.tsv").read_bytes() == (DATA / f"{snapshot}-sidecar-shape.tsv").read_bytes()
        assert b.provenance["sidecar"].startswith("imported from agy-reader's published record")
        assert b.provenance["sqlite"].startswith("imported from agy-reader's published record")
    # agy 1.2.11: the published record (the same digests as 1.2.10), and the transcript and per-install
    # surfaces of the store builder's fixture, so that a first compare has a baseline for them instead of NEW
    b = found["agy-1.2.11"]
    synthetic = ("transcript", "summaries", "history", "cache", "artifacts", "roots", "layout", "conventions", "values")
    assert set(b.digests) == {"sidecar", "sqlite", *synthetic} and b.date == "2026-09-25"
    sample = fingerprints_to_compare([REPO / "examples" / "home"], synthetic).fingerprints
    for surface in synthetic:
        assert b.provenance[surface].startswith("imported from agy-audit's store builder fixture (the sample store examples/home")
        assert b.lines[surface] == sample[surface].lines, (
            f"the sample's {surface} changed: re-record fingerprints/agy-1.2.11/{surface}.tsv (and its digest) "
            f"with `agy-audit fingerprint --surface {surface} --paths examples/home`"
        )


@pytest.mark.parametrize("observed", ["fingerprints/agy-1.2.10", str(DATA / "agy-1.2.10-sidecar-shape.tsv")])
def test_agy_1_2_5_to_1_2_10_is_exactly_107_added(observed):
    result = compare(baselines.resolve("agy-1.2.5"), fingerprints_to_compare([REPO / observed]))
    sidecar = result.surfaces[0]
    assert sidecar.surface == "sidecar" and sidecar.status == "DRIFT"
    assert len(sidecar.changes) == 107 and {c.kind for c in sidecar.changes} == {"added"}
    assert all(r.status == "UNCHANGED" for r in result.surfaces[1:])
    assert result.counts() == {"added": 107}


def test_cli_compare_exit_codes_and_json(capsys, tmp_path):
    args = ["compare", "--baseline", "agy-1.2.5", str(REPO / "fingerprints" / "agy-1.2.10")]
    assert main(args) == 1
    assert main([*args, "--fail-on", "breaking"]) == 0
    capsys.readouterr()
    assert main([*args, "--fail-on", "never", "--format", "json"]) == 0
    envelope = json.loads(capsys.readouterr().out)
    doc = envelope["result"]
    assert envelope["verdict"] == "pass" and doc["counts"]["added"] == 107
    assert [(s["surface"], s["status"]) for s in doc["surfaces"]] == [("sidecar", "DRIFT"), ("sqlite", "UNCHANGED")]
    assert main(["compare", "--baseline", "agy-1.2.10", str(REPO / "fingerprints" / "agy-1.2.10")]) == 0
    assert main(["compare", "--baseline", "agy-0.0.0", str(tmp_path)]) == 2
    assert main(["compare", "--baseline", "agy-1.2.10", str(tmp_path)]) == 3
    with pytest.raises(NothingToCheck):
        fingerprints_to_compare([tmp_path])
    with pytest.raises(UsageError):
        fingerprints_to_compare([tmp_path, REPO / "fingerprints" / "agy-1.2.10"])


def test_committed_compatibility_record_is_generated_from_the_bundled_baselines():
    text = (REPO / "COMPATIBILITY.md").read_text()
    assert text == compat.render(baselines.available())
    record = compat.parse(text)
    assert (record.agy_version, record.verified_on, record.scope) == ("1.2.11", "2026-09-25", "explicit-version-scoped")
    assert {s: record.digests[s] for s in ("sqlite", "sidecar")} == {"sqlite": SCHEMA, "sidecar": D1210}
    assert set(record.digests) == {
        "sqlite",
        "sidecar",
        "transcript",
        "summaries",
        "history",
        "cache",
        "artifacts",
        "roots",
        "layout",
        "conventions",
        "values",
    }
    assert "imported from agy-reader's published record" in text


def test_the_compatibility_record_says_which_surfaces_are_real_agy_output_and_which_synthetic():
    text = (REPO / "COMPATIBILITY.md").read_text()
    summary = text.split("## What each surface of agy 1.2.11 rests on\n\n")[1].split("\n\n")[0]
    assert summary.splitlines() == [
        "Verified against real agy 1.2.11 output, as agy-reader published it from its own sweep: sidecar, sqlite.",
        "Synthetic, never compared with what agy writes: transcript, summaries, history, cache, artifacts, roots, layout, "
        "conventions, values (made by agy-audit's store builder from the documented format; drift against them is an "
        "advisory, never a failure).",
        "Not verified for this version: wire, rpc.",
    ]
    assert "- transcript, the shape of the brain transcript records: **synthetic**: `sha256:" in text
    assert (
        "- sqlite, the conversation database schema: DDL and user_version: **real agy output, as agy-reader published it**: `sha256:"
        in text
    )


def test_evidence_of_a_baseline_computed_here_or_imported_from_a_snapshot():
    here = "computed from a swept corpus (native 3) by agy-audit 0.1.0"
    digests = {"wire": "sha256:" + "0" * 64, "history": D1210}
    computed = Baseline("agy-9.9.9", "9.9.9", None, "0.1.0", None, digests, dict.fromkeys(digests, here), None)
    computed.synthetic = {"history": "the store builder's sample store"}
    snapshot_of = {"sidecar": "imported from the shape snapshot s.tsv; digest matched --digest"}
    snapshot = Baseline("agy-9.9.8", "9.9.8", None, "0.1.0", None, {"sidecar": D1210}, snapshot_of, None)
    assert [compat.evidence(computed, s) for s in ("wire", "history", "sidecar")] == [
        compat.Evidence.SWEPT,
        compat.Evidence.SYNTHETIC,
        compat.Evidence.NONE,
    ]
    assert compat.evidence(snapshot, "sidecar") == compat.Evidence.OTHER
    assert "Imported from a shape snapshot whose origin the record does not state: sidecar." in compat.render([snapshot])
    assert (
        "Swept by agy-audit from the stores this baseline was recorded from (real agy output when they are agy's own): wire."
        in (compat.render([computed]))
    )


def test_agy_reader_record_parses():
    record = compat.read(DATA / "agy-reader-COMPATIBILITY-1.2.11.md")
    assert record == compat.CompatRecord("1.2.11", "2026-09-25", "explicit-version-scoped", {"sqlite": SCHEMA, "sidecar": D1210})


# ----------------------------------------------------------------------------- digests without lines (issue 20.1)


def _ddl_db(path: Path, *extra: str) -> Path:
    """A conversation .db holding the published DDL (tests/data), plus *extra* statements."""
    conn = sqlite3.connect(path)
    conn.executescript((DATA / "agentsview_agy-1.0.7-1.0.10_baseline_schema.sql").read_text())
    for statement in extra:
        conn.execute(statement)
    conn.commit()
    conn.close()
    return path


def test_a_digest_differing_from_a_digest_only_baseline_is_drift_with_classes_unknown():
    base = _baseline(sqlite=SCHEMA)
    seen = _observed(True, sqlite=("user_version\t2",))
    result = compare(base, seen).surfaces[0]
    assert (result.surface, result.status, result.changes) == ("sqlite", "DRIFT", ())
    assert not result.classified
    assert result.reason == (
        "the digest differs from agy-1.0.0's, which records only the digest (imported from a test): "
        "the changed lines and their classes are unknown"
    )
    assert compare(base, seen).fails("drift") and compare(base, seen).fails("breaking")
    # an input known only by its digest (e.g. another baseline directory) is judged the same way
    other = Observed("baseline x", {"sqlite": Fingerprint("sqlite", (), "sha256:" + "0" * 64, DIGEST_ONLY)}, True, "x")
    found = compare(_baseline(sqlite=("user_version\t1",)), other).surfaces[0]
    assert found.status == "DRIFT" and not found.classified
    assert (
        found.reason
        == "the digest differs and the input records only the digest: the changed lines and their classes are unknown"
    )
    # the same digest is still UNCHANGED
    assert compare(_baseline(sqlite=("a\tb",)), _observed(True, sqlite=("a\tb",))).surfaces[0].status == "UNCHANGED"


def test_bundled_sqlite_lines_are_those_of_the_published_ddl(tmp_path):
    published = read_database(_ddl_db(tmp_path / "published.db"))
    assert schema_fingerprint(published.schema, published.user_version) == SCHEMA
    lines = tuple(sorted(schema_lines(published.schema, published.user_version)))
    for b in baselines.available():
        assert b.digests["sqlite"] == SCHEMA and b.lines["sqlite"] == lines
        assert b.provenance["sqlite"].endswith("; lines from the published DDL, which re-digests to it")
    assert "table:steps.step_payload\tBLOB" in lines and "user_version\t1" in lines


def test_an_added_column_is_drift_classified_added_with_its_name(tmp_path, capsys):
    _ddl_db(tmp_path / "11111111-2222-4333-8444-555555555555.db", "ALTER TABLE steps ADD COLUMN extra_col text")
    result = compare(baselines.resolve("agy-1.2.10"), fingerprints_to_compare([tmp_path], ("sqlite",)))
    assert [(r.surface, r.status) for r in result.surfaces] == [("sqlite", "DRIFT")]
    assert result.surfaces[0].changes == (Change("table:steps.extra_col", "added", None, "TEXT"),)
    assert main(["compare", "--baseline", "agy-1.2.10", "--surface", "sqlite", str(tmp_path)]) == 1
    assert "table:steps.extra_col" in capsys.readouterr().out


def test_a_dropped_column_in_a_complete_sweep_is_removed_even_against_imported_lines(tmp_path):
    corpus = tmp_path / "corpus"
    native = corpus / "native" / "cli"
    native.mkdir(parents=True)
    (corpus / "manifest.json").write_text(json.dumps({"complete": True, "sessions": []}))
    _ddl_db(native / "11111111-2222-4333-8444-555555555555.db", "ALTER TABLE steps DROP COLUMN render_info")
    result = compare(baselines.resolve("agy-1.2.10"), fingerprints_to_compare([corpus], ("sqlite",)))
    assert result.partial == {} and result.surfaces[0].complete
    assert result.surfaces[0].changes == (Change("table:steps.render_info", "removed", "BLOB", None),)
    assert result.fails("breaking")


# ----------------------------------------------------------------------------- removals in native corpora (issue 20.9)


def test_a_removal_of_a_key_our_proto_decodes_is_drift_in_a_complete_native_sweep(tmp_path, capsys):
    cli = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    cli.conversation(turns=2)
    cli.family(children=1)
    corpus = tmp_path / "corpus"
    assert sweep([Root(cli.path, "cli", True)], corpus, source="native", env={}).complete
    recorded = baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([corpus]), "2026-12-01")
    daemon_only = "steps.[].invokeSubagent.subagents\tarray"  # no public source gives its field number
    recorded.lines["sidecar"] = tuple(sorted((*recorded.lines["sidecar"], daemon_only)))
    recorded.digests["sidecar"] = Fingerprint.of("sidecar", recorded.lines["sidecar"]).digest
    baseline_writer.write(recorded, tmp_path / "fp")
    for path in corpus.glob("corpus/*/*.trajectory.json"):
        doc = json.loads(path.read_text())
        for step in doc["steps"]:
            del step["metadata"]["createdAt"]
        path.write_text(json.dumps(doc))

    result = compare(baselines.load(tmp_path / "fp" / "agy-9.9.9"), fingerprints_to_compare([corpus]))
    sidecar = result.surfaces[0]
    assert (sidecar.surface, sidecar.status) == ("sidecar", "DRIFT")
    assert sidecar.changes == (
        Change("steps.[].invokeSubagent.subagents", "not-observed", "array", None),
        Change("steps.[].metadata.createdAt", "removed", "string", None),
    )
    assert result.fails("breaking")
    assert main(["compare", "--baseline", str(tmp_path / "fp" / "agy-9.9.9"), str(corpus)]) == 1
    assert "  - steps.[].metadata.createdAt\tstring\n" in capsys.readouterr().out


def test_keys_the_offline_decoder_can_produce():
    assert native_observable("steps.[].metadata.createdAt")
    assert native_observable("")  # the root
    assert native_observable("steps.[].plannerResponse.toolCalls.[].argumentsJson")
    assert native_observable("steps.[].plannerResponse.stopReason")  # field 12, StopReason
    assert not native_observable("metadata.projectId")
    assert not native_observable("steps.[].invokeSubagent.subagents")
    assert not native_observable("steps.[].noSuchKey")


def test_drift_against_synthetic_baseline_lines_is_an_advisory_never_a_failure(tmp_path):
    base = _baseline(transcript=("T\tobject", "T.a\tstring"))
    seen = _observed(True, transcript=("T\tobject", "T.a\tnumber", "T.b\tstring"))
    assert compare(base, seen).fails("drift")  # lines swept from agy: a type change fails
    base.synthetic = {"transcript": "the store builder's fixture"}
    result = compare(base, seen)
    (surface,) = result.surfaces
    assert (surface.status, surface.advisory) == ("DRIFT", True)
    assert sorted(surface.counts().items()) == [("added", 1), ("type-changed", 1)]
    assert surface.reason == (
        "advisory, not a failure: agy-1.0.0's transcript lines are synthetic (the store builder's fixture); "
        "record a baseline from your own corpus to judge this surface"
    )
    assert not result.fails("drift") and not result.fails("breaking")
    # It travels with the baseline: written, read back, bundled for agy-1.2.11's transcript lines.
    baseline_writer.write(base, tmp_path)
    assert baselines.load(tmp_path / "agy-1.0.0").synthetic == {"transcript": "the store builder's fixture"}
    assert set(baselines.resolve("agy-1.2.11").synthetic) == {
        "transcript",
        "summaries",
        "history",
        "cache",
        "artifacts",
        "roots",
        "layout",
        "conventions",
        "values",
    }


# ----------------------------------------------------------------------------- issue 28: no false failures

PROVIDER = "steps.[].searchWeb.thirdPartyConfig.provider"


def test_enum_paths_of_our_proto():
    assert enum_at(PROVIDER).name == "ThirdPartyWebSearchProvider"
    assert enum_at("steps.[].type").name == "CortexStepType"
    assert enum_at("steps.[].subtrajectory.steps.[].status").name == "CortexStepStatus"  # an embedded trajectory
    assert enum_at("steps.[].searchWeb.query") is None  # a string field
    assert enum_at("steps.[].searchWeb.thirdPartyConfig") is None  # a message
    assert enum_at("steps.[].noSuchKey") is None
    assert native_observable(PROVIDER) and not native_observable("steps.[].noSuchKey")


def test_an_enum_written_as_its_number_is_the_same_type_as_by_name():
    summary = "steps.[].searchWeb.summary"  # a string field: number is a real change there
    old = (f"{PROVIDER}\tstring", f"{summary}\tstring", "steps.[].type\tstring")
    new = (f"{PROVIDER}\tnumber", f"{summary}\tnumber", "steps.[].type\tnumber|string")
    assert diff_lines(old, new, complete=False, enums=enum_at) == (
        Change(summary, "type-changed", "string", "number"),
        Change(PROVIDER, "enum-number", "string", "number"),
        Change("steps.[].type", "enum-number", "string", "number|string"),
    )
    assert diff_lines(old, new, complete=False)[1] == Change(PROVIDER, "type-changed", "string", "number")  # other surfaces
    # a real type change is still one: string -> object, and an object joining the enum's values
    assert diff_lines((f"{PROVIDER}\tstring",), (f"{PROVIDER}\tobject",), complete=False, enums=enum_at) == (
        Change(PROVIDER, "type-changed", "string", "object"),
    )
    assert diff_lines((f"{PROVIDER}\tstring",), (f"{PROVIDER}\tnumber|object",), complete=False, enums=enum_at) == (
        Change(PROVIDER, "widened", "string", "number|object"),
    )


def test_enum_numbers_and_paths_beyond_the_record_are_advisories_that_never_fail():
    media = "steps.[].userInput.media"
    base = _baseline(sidecar=(f"{PROVIDER}\tstring", "steps.[].userInput\tobject"))
    seen = _observed(True, sidecar=(f"{PROVIDER}\tnumber", "steps.[].userInput\tobject", f"{media}\tarray"))
    assert compare(base, seen).fails("drift")  # without the baseline's beyondRecord: added
    base.beyond = {"sidecar": {media: "22 real rows (a test)"}}
    result = compare(base, seen)
    (surface,) = result.surfaces
    assert (surface.status, surface.advisory) == ("DRIFT", True)
    assert surface.changes == (
        Change(
            PROVIDER,
            "enum-number",
            "string",
            "number",
            note="a value of ThirdPartyWebSearchProvider: cortex.proto names no such value, so it is written as its number; "
            "the other side writes the same enum by name",
        ),
        Change(media, "not-in-baseline", None, "array", note="known beyond agy-1.0.0's record: 22 real rows (a test)"),
    )
    assert surface.reason.startswith("advisory, not a failure: only 1 enum-number and 1 not-in-baseline (each line says why)")
    assert not result.fails("drift") and not result.fails("breaking")
    # a real change beside them fails, and they stay advisories
    worse = compare(base, _observed(True, sidecar=(f"{PROVIDER}\tobject", "steps.[].userInput\tobject", f"{media}\tarray")))
    assert [c.kind for c in worse.surfaces[0].changes] == ["type-changed", "not-in-baseline"]
    assert worse.fails("breaking") and not worse.surfaces[0].advisory


def _payload_types(lines: tuple[str, ...]) -> set[str]:
    """The step types whose payload key (a field of the Step oneof) *lines* hold below steps.[]."""
    from audit.store.proto import cortex_pb2 as pb

    oneof = pb.Step.DESCRIPTOR.oneofs_by_name["step"]
    keys = {line.split("\t")[0] for line in lines}
    return {f"CORTEX_STEP_TYPE_{f.name.upper()}" for f in oneof.fields if f"steps.[].{f.json_name}" in keys}


def test_bundled_baselines_record_the_step_types_their_published_snapshots_hold(tmp_path):
    from audit.store.proto import cortex_pb2 as pb

    names = set(pb.CortexStepType.keys())
    assert all(f"CORTEX_STEP_TYPE_{f.name.upper()}" in names for f in pb.Step.DESCRIPTOR.oneofs_by_name["step"].fields)
    for b in baselines.available():
        assert b.step_types == _payload_types(b.lines["sidecar"]), b.name  # 21 each, the count the records publish
        assert len(b.step_types) == b.counts["distinctStepTypes"] == 21
        assert "CORTEX_STEP_TYPE_BROWSER_SUBAGENT" not in b.step_types
        assert list(b.beyond["sidecar"]) == ["steps.[].userInput.media"]
    assert baselines.resolve("agy-1.2.5").observed_step_types is None  # its counts list them
    # import-shape of a published record ships the same
    imported = baseline_writer.import_shape(DATA / "agy-1.2.10-sidecar-shape.tsv", "agy-1.2.11")
    bundled = baselines.resolve("agy-1.2.11")
    assert (imported.observed_step_types, imported.beyond) == (bundled.observed_step_types, bundled.beyond)
    baseline_writer.write(imported, tmp_path)
    assert baselines.load(tmp_path / "agy-1.2.11").step_types == bundled.step_types
