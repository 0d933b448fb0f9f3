"""``record`` writes a baseline and COMPATIBILITY.md from a complete sweep, or refuses leaving every
file byte-identical; ``baselines`` lists and imports."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from audit.actions import compat
from audit.actions.sweep import NOT_COVERED_LEGACY, sweep
from audit.checks.baselines import bundled_dir, load
from audit.checks.fingerprint import SURFACES
from audit.cli import main
from audit.store.layout import Root
from audit.testing.builder import StoreBuilder
from audit.testing.daemon import SimulatedDaemon
from tests.checks.test_fingerprint import IN_STORES
from tests.fake_agy import agy_on_path

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parents[1] / "data"  # vendored reference data (tests/data/README.md)
D1210 = "sha256:3acca61c897bdec898292c1646090faf1913781f0a4d11ca389bc043ba4ec92a"
TOKEN = "record-token-3c9e1a7f5b2d4068"
SCHEMA = "sha256:1ca98426f561fe73223c8620a238405030fdb3014444d970e1300a6009f72f43"


@pytest.fixture(autouse=True)
def _agy_9_9_9(monkeypatch, tmp_path_factory):
    """``agy --version`` says 9.9.9 (the sweeps here record none): it confirms the name agy-9.9.9."""
    agy_on_path(monkeypatch, tmp_path_factory.mktemp("agy"), "agy 9.9.9 (linux/amd64)")


@pytest.fixture(scope="module")
def swept(tmp_path_factory) -> Path:
    cli = StoreBuilder(tmp_path_factory.mktemp("home"), seed=4).root("cli")
    first = cli.conversation(turns=2)
    parent, children = cli.family(children=1)
    cli.install_files([first, parent, *children], cli=True)  # every per-install surface
    out = tmp_path_factory.mktemp("sweep") / "corpus"
    assert sweep([Root(cli.path, "cli", True)], out, source="native", env={}).complete
    return out


@pytest.fixture
def workspace(tmp_path, swept) -> Path:
    shutil.copytree(swept, tmp_path / "corpus")
    shutil.copytree(REPO / "fingerprints", tmp_path / "fp", ignore=shutil.ignore_patterns(".keep"))
    (tmp_path / "COMPAT.md").write_text("previous record\n")
    return tmp_path


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _record(ws: Path, *extra: str, name: str = "agy-9.9.9", corpus: str = "corpus") -> int:
    return main(
        [
            "record",
            str(ws / corpus),
            "--name",
            name,
            "--baseline-dir",
            str(ws / "fp"),
            "--compat-file",
            str(ws / "COMPAT.md"),
            *extra,
        ]
    )


def test_record_writes_every_surface_and_regenerates_the_compatibility_record(workspace, capsys):
    assert _record(workspace) == 0
    assert capsys.readouterr().out.endswith(f"recorded {workspace / 'fp' / 'agy-9.9.9'}; regenerated {workspace / 'COMPAT.md'}\n")
    target = workspace / "fp" / "agy-9.9.9"
    names = sorted(p.name for p in target.iterdir())
    assert names == sorted(["baseline.json", *(f"{s}.tsv" for s in IN_STORES)])  # a native sweep: no daemon answer
    doc = json.loads((target / "baseline.json").read_text())
    assert (doc["name"], doc["agyVersion"], doc["corpusScope"]) == ("agy-9.9.9", "9.9.9", "explicit-version-scoped")
    assert doc["digests"]["sqlite"] == SCHEMA and list(doc["digests"]) == IN_STORES
    assert doc["absent"] == {"rpc": SURFACES["rpc"].missing}
    assert all(p.startswith("computed from a swept corpus (3 native) by agy-audit ") for p in doc["provenance"].values())
    assert doc["counts"]["sessions"] == 3 and doc["counts"]["steps"] == sum(doc["counts"]["stepTypes"].values())
    baseline = load(target)
    assert set(baseline.lines) == set(IN_STORES)

    text = (workspace / "COMPAT.md").read_text()
    record = compat.parse(text)
    assert record.agy_version == "9.9.9" and record.digests == doc["digests"] and record.scope == "explicit-version-scoped"
    assert "| `agy-9.9.9` | 9.9.9 |" in text and "| `agy-1.2.10` | 1.2.10 |" in text
    assert text.index("`agy-9.9.9`") < text.index("`agy-1.2.10`") < text.index("`agy-1.2.5`")

    compare = ["compare", "--baseline", "agy-9.9.9", "--baseline-dir", str(workspace / "fp"), str(workspace / "corpus")]
    assert main(compare) == 0


def _incomplete(ws: Path) -> None:
    manifest = ws / "corpus" / "manifest.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"complete": False}))


def _no_transcripts(ws: Path) -> None:
    shutil.rmtree(ws / "corpus" / "native" / "cli" / "brain")


def _nothing_held(ws: Path) -> None:
    shutil.rmtree(ws / "corpus" / "native")
    shutil.rmtree(ws / "corpus" / "corpus")


def _compare_json(ws: Path, corpus: Path, capsys) -> tuple[int, dict]:
    code = main(
        [
            "compare",
            "--baseline",
            "agy-9.9.9",
            "--baseline-dir",
            str(ws / "fp"),
            "--format",
            "json",
            "--fail-on",
            "drift",
            str(corpus),
        ]
    )
    doc = json.loads(capsys.readouterr().out)["result"]
    return code, {r["surface"]: (r["status"], r["reason"]) for r in doc["surfaces"]}


def test_a_surface_the_corpus_does_not_hold_is_recorded_absent_then_new_or_not_comparable(workspace, tmp_path, capsys):
    full = tmp_path / "full"
    shutil.copytree(workspace / "corpus", full)
    _no_transcripts(workspace)
    assert _record(workspace) == 0  # refused before: "transcript fingerprint not computed"
    capsys.readouterr()
    target = workspace / "fp" / "agy-9.9.9"
    doc = json.loads((target / "baseline.json").read_text())
    gone = {
        "transcript": "no brain transcript record",
        "artifacts": "no readable brain artifact *.md.metadata.json",
        "conventions": "no brain transcript record with a step type",
        "rpc": SURFACES["rpc"].missing,  # a native sweep
    }
    assert doc["absent"] == gone and not set(gone) & set(doc["digests"])  # the brains held the artifact metadata too
    assert sorted(p.name for p in target.iterdir()) == sorted(["baseline.json", *(f"{s}.tsv" for s in SURFACES if s not in gone)])
    assert load(target).absent == gone
    text = (workspace / "COMPAT.md").read_text()
    assert "- **Transcript fingerprint:** absent from the recorded corpus (no brain transcript record)" in text
    row = text.split("| `agy-9.9.9` |")[1].split("\n")[0]
    cells = dict(zip(SURFACES, (cell.strip() for cell in row.split("|")[3:-1]), strict=True))  # after agy, date, scope
    assert {s for s, cell in cells.items() if cell == "absent"} == set(gone)

    code, same = _compare_json(workspace, workspace / "corpus", capsys)  # absent on both sides
    assert code == 0
    assert same["transcript"] == (
        "NOT COMPARABLE",
        "not computed: no brain transcript record; agy-9.9.9 recorded it as absent too (no brain transcript record)",
    )
    assert {s: v[0] for s, v in same.items()} == {s: "NOT COMPARABLE" if s in gone else "UNCHANGED" for s in SURFACES}
    code, now = _compare_json(workspace, full, capsys)  # present now, absent in the baseline
    assert code == 0
    assert now["transcript"] == ("NEW", "agy-9.9.9 recorded it as absent (no brain transcript record)")


def test_a_brain_only_corpus_is_recordable(tmp_path, capsys):
    root = StoreBuilder(tmp_path / "home", seed=5).root("acp")
    root.conversation(turns=2, db=False, sidecar="missing")
    root.conversation(turns=1, db=False, sidecar="missing")
    corpus = tmp_path / "corpus"
    assert sweep([Root(root.path, "acp", True)], corpus, source="native", env={}).complete
    (tmp_path / "COMPAT.md").write_text("previous record\n")
    assert _record(tmp_path, corpus="corpus") == 0
    capsys.readouterr()
    doc = json.loads((tmp_path / "fp" / "agy-9.9.9" / "baseline.json").read_text())
    assert list(doc["digests"]) == [
        "transcript",
        "artifacts",
        "roots",
        "layout",
        "conventions",
        "values",
    ]  # the acp root, its sessions' files
    assert doc["absent"] == {
        "sidecar": "no readable *.trajectory.json sidecar",
        "sqlite": "no readable conversation .db",
        "wire": "no readable conversation .db",
        "summaries": "no readable conversation_summaries.db",
        "history": "no history.jsonl record",
        "cache": "no readable cache/ file",
        "rpc": SURFACES["rpc"].missing,
    }
    code, same = _compare_json(tmp_path, corpus, capsys)
    assert code == 0 and same["transcript"] == ("UNCHANGED", None)
    held = {"transcript", "artifacts", "roots", "layout", "conventions", "values"}
    assert {s: v[0] for s, v in same.items()} == {s: "UNCHANGED" if s in held else "NOT COMPARABLE" for s in SURFACES}
    assert main(["baselines", "--baseline-dir", str(tmp_path / "fp")]) == 0
    assert "sidecar(absent),sqlite(absent),wire(absent),transcript,summaries(absent)" in capsys.readouterr().out


def test_a_corpus_carrying_only_advisories_is_recordable(workspace, capsys):
    sidecar = next((workspace / "corpus" / "corpus" / "cli").iterdir())
    doc = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps(doc | {"cascadeId": doc["cascadeId"].upper()}))  # advisory sidecar/uuid/lowerCase
    assert main(["verify-contract", str(sidecar)]) == 0
    assert _record(workspace) == 0


def _violation(ws: Path) -> None:
    sidecar = next((ws / "corpus" / "corpus" / "cli").iterdir())
    sidecar.write_text(json.dumps(json.loads(sidecar.read_text()) | {"cascadeId": "not-a-uuid"}))


def _corrupt(ws: Path) -> None:
    next((ws / "corpus" / "corpus" / "cli").iterdir()).write_text('{"steps": [')


def _no_manifest(ws: Path) -> None:
    (ws / "corpus" / "manifest.json").unlink()


def _version_mismatch(ws: Path) -> None:
    manifest = ws / "corpus" / "manifest.json"
    manifest.write_text(json.dumps(json.loads(manifest.read_text()) | {"installedAgyVersion": "1.2.11"}))


def _existing(ws: Path) -> None:
    shutil.copytree(ws / "fp" / "agy-1.2.10", ws / "fp" / "agy-9.9.9")


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (_no_manifest, "no manifest.json"),
        (_incomplete, "the sweep is not complete"),
        (_nothing_held, "nothing to record: the corpus holds no surface (sidecar: no readable *.trajectory.json sidecar; "),
        (_violation, "1 contract violation(s): "),
        (_corrupt, "unreadable input file(s): "),
        (_existing, "agy-9.9.9: already exists"),
    ],
)
def test_record_refuses_and_leaves_every_file_byte_identical(workspace, capsys, spoil, message):
    spoil(workspace)
    before = _tree(workspace)
    assert _record(workspace) == 1
    err = capsys.readouterr().err
    assert err.startswith("agy-audit: refusing to record: ") and message in err
    assert _tree(workspace) == before


UNCONFIRMED = "nothing confirms agy 9.9.9: agy --version does not answer"
HINT = "; give the name of the agy that wrote the sessions, or --unverified-name to record it marked unverified\n"


def test_a_name_nothing_confirms_is_a_usage_error_or_recorded_unverified_and_compare_says_so(workspace, capsys, monkeypatch):
    monkeypatch.setenv("PATH", str(workspace / "no-agy"))  # agy --version does not answer; the sweep recorded none
    before = _tree(workspace)
    assert _record(workspace) == 2
    assert capsys.readouterr() == ("", f"agy-audit: --name agy-9.9.9: {UNCONFIRMED}{HINT}")
    assert _tree(workspace) == before

    assert _record(workspace, "--unverified-name") == 0
    target = workspace / "fp" / "agy-9.9.9"
    assert capsys.readouterr().out.endswith(
        f"recorded {target}; regenerated {workspace / 'COMPAT.md'}\nname unverified: {UNCONFIRMED}\n"
    )
    doc = json.loads((target / "baseline.json").read_text())
    assert (doc["agyVersion"], doc["nameUnverified"]) == ("9.9.9", UNCONFIRMED)
    assert load(target).unverified == UNCONFIRMED
    assert (
        f"- **Baseline:** `agy-9.9.9`\n- **Name unverified:** {UNCONFIRMED} (recorded with --unverified-name)\n"
        in (workspace / "COMPAT.md").read_text()
    )
    compare = ["compare", str(workspace / "corpus"), "--baseline-dir", str(workspace / "fp"), "--format", "json"]
    assert main(compare) == 0
    assert json.loads(capsys.readouterr().out)["result"]["baselineReason"] == (
        f"recorded in {workspace / 'fp'}, newest there; name unverified: {UNCONFIRMED}"
    )
    assert main([*compare[:-2], "--baseline", "agy-9.9.9"]) == 0
    assert capsys.readouterr().out.startswith(f"baseline: agy-9.9.9 ({target}; name unverified: {UNCONFIRMED})\n")


def test_a_name_the_agy_that_swept_contradicts_is_a_usage_error(workspace, capsys):
    _version_mismatch(workspace)  # the sweep ran with 1.2.11; agy --version now says 9.9.9: the sweep's counts
    before = _tree(workspace)
    assert _record(workspace) == 2
    contradicted = "agy --version says '1.2.11', not 9.9.9"
    assert capsys.readouterr() == ("", f"agy-audit: --name agy-9.9.9: {contradicted}{HINT}")
    assert _tree(workspace) == before
    assert _record(workspace, "--unverified-name", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["result"]["baseline"]["nameUnverified"] == contradicted


def test_a_name_the_installed_agy_contradicts_is_a_usage_error_and_a_name_without_a_version_is_not_checked(
    workspace, capsys, monkeypatch, tmp_path_factory
):
    agy_on_path(monkeypatch, tmp_path_factory.mktemp("agy-1.2.11"), "agy 1.2.11 (linux/amd64)")
    assert _record(workspace) == 2
    assert (
        capsys.readouterr().err == f"agy-audit: --name agy-9.9.9: agy --version says 'agy 1.2.11 (linux/amd64)', not 9.9.9{HINT}"
    )
    assert _record(workspace, name="nightly") == 0  # claims no agy version: nothing to confirm
    assert "nameUnverified" not in json.loads((workspace / "fp" / "nightly" / "baseline.json").read_text())


def test_record_bad_name_is_a_usage_error(workspace):
    before = _tree(workspace)
    assert _record(workspace, name="../escape") == 2
    assert _tree(workspace) == before


# ----------------------------------------------------------------------------- baselines command


def test_baselines_list_and_import_shape(tmp_path, capsys):
    assert main(["baselines", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["result"]["baselines"]
    assert [(b["name"], b["bundled"], b["lines"]) for b in listed] == [
        ("agy-1.2.5", True, {"sidecar": 1629, "sqlite": 36}),
        ("agy-1.2.10", True, {"sidecar": 1736, "sqlite": 36}),
        (
            "agy-1.2.11",
            True,
            {
                "sidecar": 1736,
                "sqlite": 36,
                "transcript": 292,
                "summaries": 38,
                "history": 6,
                "cache": 13,
                "artifacts": 6,
                "roots": 14,
                "layout": 21,
                "conventions": 23,
                "values": 154,
            },
        ),
    ]

    tsv = DATA / "agy-1.2.10-sidecar-shape.tsv"
    own = tmp_path / "own"
    assert (
        main(
            [
                "baselines",
                "import-shape",
                str(tsv),
                "--name",
                "agy-1.2.11",
                "--baseline-dir",
                str(own),
                "--compat-file",
                str(tmp_path / "C.md"),
            ]
        )
        == 0
    )
    imported = load(own / "agy-1.2.11")
    assert imported.digests == {"sidecar": D1210, "sqlite": SCHEMA} and imported.date == "2026-09-25"
    assert "COMPATIBILITY.md@9a228af" in imported.provenance["sidecar"]
    assert imported.lines["sqlite"] == load(bundled_dir() / "agy-1.2.10").lines["sqlite"]  # the published DDL's
    assert compat.read(tmp_path / "C.md").agy_version == "1.2.11"
    assert capsys.readouterr().out == f"imported {own / 'agy-1.2.11'} ({D1210})\n"
    assert main(["baselines", "--baseline-dir", str(own)]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()] == [
        "NAME",
        "agy-1.2.5",
        "agy-1.2.10",
        "agy-1.2.11",
        "agy-1.2.11",
    ]

    mine = ["baselines", "import-shape", str(tsv), "--name", "mine", "--baseline-dir", str(own)]
    assert main(mine) == 2
    assert "--digest" in capsys.readouterr().err
    assert main([*mine, "--digest", "sha256:" + "0" * 64]) == 2
    assert "does not match" in capsys.readouterr().err
    assert main([*mine, "--digest", D1210]) == 0
    expected = "imported from the shape snapshot agy-1.2.10-sidecar-shape.tsv; digest matched --digest"
    assert load(own / "mine").provenance == {"sidecar": expected}
    assert not (own / "agy-1.2.5").exists()
    assert (
        main(
            [
                "baselines",
                "import-shape",
                str(DATA / "agy-1.2.5-sidecar-shape.tsv"),
                "--name",
                "agy-1.2.10",
                "--baseline-dir",
                str(own),
            ]
        )
        == 2
    )
    assert not (own / "agy-1.2.10").exists()


def test_ci_records_a_brain_only_home_and_a_later_full_home_compares_as_new(tmp_path, capsys):
    StoreBuilder(tmp_path / "brain-only", seed=5).root("acp").conversation(turns=2, db=False, sidecar="missing")
    full = StoreBuilder(tmp_path / "full", seed=5)
    full.root("acp").conversation(turns=2, db=False, sidecar="missing")  # the same root, and a CLI root beside it
    full.root("cli").conversation(turns=2)
    fp = tmp_path / "fp"
    home = ["--source", "native", "--baseline-dir", str(fp), "--compat-file", str(tmp_path / "COMPAT.md"), "-q"]
    brain_only = ["ci", "--home", str(tmp_path / "brain-only"), "--no-live", "--record", "agy-9.0.1", "--unverified-name"]
    assert main([*brain_only, *home]) == 0
    absent = ["cache", "history", "rpc", "sidecar", "sqlite", "summaries", "wire"]
    assert sorted(json.loads((fp / "agy-9.0.1" / "baseline.json").read_text())["absent"]) == absent
    capsys.readouterr()
    report = tmp_path / "report.json"
    full_ci = ["ci", "--home", str(tmp_path / "full"), "--baseline", "agy-9.0.1", "--report", str(report), *home]
    assert main([*full_ci, "--fail-on", "breaking"]) == 0  # a root was added: drift, not breaking
    capsys.readouterr()
    [stage] = [s for s in json.loads(report.read_text())["result"]["stages"] if s["name"] == "compare"]
    checks = {c["name"]: c for c in stage["checks"]}
    assert {name: c["summary"] for name, c in checks.items()} == {
        "corpus sidecar": "NEW; agy-9.0.1 recorded it as absent (no readable *.trajectory.json sidecar)",
        "corpus sqlite": "NEW; agy-9.0.1 recorded it as absent (no readable conversation .db)",
        "corpus wire": "NEW; agy-9.0.1 recorded it as absent (no readable conversation .db)",
        "corpus transcript": "UNCHANGED",
        **{
            f"corpus {s}": f"NOT COMPARABLE; not computed: {why}; agy-9.0.1 recorded it as absent too ({why})"
            for s, why in (
                ("summaries", "no readable conversation_summaries.db"),
                ("history", "no history.jsonl record"),
                ("cache", "no readable cache/ file"),
                ("rpc", SURFACES["rpc"].missing),
            )
        },
        "corpus artifacts": "UNCHANGED",
        "corpus roots": "DRIFT: 1 added",
        "corpus layout": "DRIFT: 4 added",
        "corpus conventions": "UNCHANGED",
        "corpus values": "UNCHANGED; values of sidecar, sqlite, wire not compared (that surface is not recorded on both sides)",
        "live sidecar": "NEW; agy-9.0.1 recorded it as absent (no readable *.trajectory.json sidecar)",
    }


def test_a_legacy_pb_session_swept_natively_is_not_covered_and_shows_no_false_transcript_drift(tmp_path, capsys):
    """A native sweep cannot read a legacy .pb-only session: it is listed as not covered (its brain
    transcripts swept all the same), the manifest is not complete and record says what it left out.
    A baseline recorded from a daemon sweep of the same store, which covered it, shows no transcript
    drift against the native corpus: the .pb-only session's transcript lines are in both."""
    cli = StoreBuilder(tmp_path / "home", seed=9).root("cli")
    cli.conversation(turns=2)
    legacy = cli.conversation(turns=1, db=False, legacy_pb=True, transcript_overview=True)  # lines only it has
    root = Root(cli.path, "cli", True)
    (tmp_path / "COMPAT.md").write_text("previous record\n")
    with SimulatedDaemon(cli.path, token=TOKEN, trajectories={legacy.id: legacy.trajectory}) as sim:
        env = {"ANTIGRAVITY_DAEMON_URL": sim.url, "ANTIGRAVITY_CSRF_TOKEN": TOKEN}
        assert sweep([root], tmp_path / "daemon", source="daemon", env=env).complete
    assert _record(tmp_path, corpus="daemon") == 0
    capsys.readouterr()

    result = sweep([root], tmp_path / "native", source="native", env={})
    manifest = json.loads((tmp_path / "native" / "manifest.json").read_text())
    brain = legacy.paths["brain"]
    copied = {
        f"native/cli/brain/{legacy.id}/{p.relative_to(brain).as_posix()}": hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(brain.rglob("*"))
        if p.is_file()
    }
    assert (result.complete, manifest["complete"], manifest["selected"], manifest["failures"]) == (False, False, 2, [])
    assert manifest["notCovered"] == [
        {"id": legacy.id, "product": "cli", "path": str(legacy.paths["legacy_pb"]), "reason": NOT_COVERED_LEGACY, "files": copied}
    ]
    assert legacy.id not in {s["id"] for s in manifest["sessions"]}
    assert main(["verify-contract", "--kind", "manifest", str(tmp_path / "native" / "manifest.json")]) == 0
    capsys.readouterr()

    before = _tree(tmp_path)
    assert _record(tmp_path, "--unverified-name", name="agy-9.9.10", corpus="native") == 1
    assert capsys.readouterr().err == (
        f"agy-audit: refusing to record: {tmp_path / 'native' / 'manifest.json'}: the sweep is not complete "
        f"(manifest complete is not true); left out: 1 session(s) not covered: {legacy.id} ({NOT_COVERED_LEGACY}) -- to "
        "record the sessions this sweep can read, sweep again with --readable-only (sweep, ci --record)\n"
    )
    assert _tree(tmp_path) == before

    _, surfaces = _compare_json(tmp_path, tmp_path / "native", capsys)  # a DRIFT when its transcripts were not swept
    assert surfaces["transcript"] == ("UNCHANGED", None)
    digests = []
    for where in (tmp_path / "native", cli.path):  # the corpus holds the store's transcript surface
        assert main(["fingerprint", "--surface", "transcript", "--format", "json", str(where)]) == 0
        digests.append(json.loads(capsys.readouterr().out)["result"]["fingerprints"]["transcript"]["digest"])
    assert digests[0] == digests[1]


def test_record_refuses_a_corpus_whose_newest_conversation_its_db_does_not_hold(tmp_path, capsys):
    """A daemon answered with a trajectory the .db swept beside it lacks a step of (a conversation
    that moved on between the copy and the fetch): record re-checks the newest conversations
    against their .db copies and refuses, naming the session."""
    cli = StoreBuilder(tmp_path / "home", seed=12).root("cli")
    old = cli.conversation(turns=1)
    newest = cli.conversation(turns=2)
    grown = json.loads(json.dumps(newest.trajectory))
    grown["steps"].append(dict(grown["steps"][-1]))  # one step more than the .db holds
    (tmp_path / "COMPAT.md").write_text("previous record\n")
    with SimulatedDaemon(cli.path, token=TOKEN, trajectories={newest.id: grown}) as sim:
        env = {"ANTIGRAVITY_DAEMON_URL": sim.url, "ANTIGRAVITY_CSRF_TOKEN": TOKEN}
        assert sweep([Root(cli.path, "cli", True)], tmp_path / "corpus", source="daemon", env=env).complete
    before = _tree(tmp_path)
    assert _record(tmp_path) == 1
    steps = len(newest.steps)
    assert capsys.readouterr().err == (
        "agy-audit: refusing to record: 1 of the 5 newest conversation(s), not complete against their .db: "
        f"{newest.id}: incomplete: sidecar has 1 step(s) the source lacks, from step {steps}\n"
    )
    assert _tree(tmp_path) == before and old.id != newest.id  # the older session is complete: not named
