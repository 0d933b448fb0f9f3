"""A profile's ``scope`` (the roots a reader reads), its filters' ``only`` and ``except`` (the record
types a filter is applied to) and its ``prefers`` (a source read in place of another), judged on
builder stores, from a sweep and from the home itself: exact verdicts and reasons."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from audit.actions import baseline_writer, mutate
from audit.actions.sweep import sweep
from audit.checks import baselines, consumers, schemas
from audit.checks.drift import compare, fingerprints_to_compare
from audit.checks.fingerprint import fingerprint_paths
from audit.store import layout
from audit.testing.builder import StoreBuilder

CITE = {"cite": "pypi:example==1.0:example/reader.py:1", "why": "reads it"}


def _store(home: Path, *, synced: bool) -> Path:
    """Two CLI conversations and an IDE one; with *synced* False, one CLI conversation has no
    agy-reader sidecar."""
    b = StoreBuilder(home, seed=7)
    cli = b.root("cli")
    convs = [cli.conversation(turns=3), cli.conversation(turns=2, sidecar="fresh" if synced else "missing")]
    cli.install_files(convs, cli=True)
    ide = b.root("ide")
    ide.install_files([ide.conversation(turns=3)])
    return home


def _sweep(home: Path, out: Path) -> Path:
    result = sweep(layout.resolve_roots(home=home, env={}), out, source="native", env={})
    assert result.complete, result.failures
    return out


def _recorded(home: Path, work: Path) -> Path:
    """*home* swept and recorded as the baseline agy-9.9.9 under *work*."""
    corpus = _sweep(home, work / "recorded")
    baseline_writer.write(baseline_writer.from_survey("agy-9.9.9", fingerprint_paths([corpus]), "2026-12-01"), work / "fp")
    return work / "fp" / "agy-9.9.9"


def _mutated(home: Path, copy: Path, name: str, *, only: str | None = None) -> Path:
    """A copy of *home* with the catalogue's mutation *name* applied (to the root *only* alone, when given)."""
    shutil.copytree(home, copy, symlinks=True)
    aside = {r.name: copy / f"aside-{r.name}" for r in (copy / ".gemini").iterdir() if only is not None and r.name != only}
    for name_, place in aside.items():
        (copy / ".gemini" / name_).rename(place)
    assert mutate.apply_mutation(mutate.CATALOGUE[name], copy)
    for name_, place in aside.items():
        place.rename(copy / ".gemini" / name_)
    return copy


def _judge(baseline: Path, target: Path, tmp_path: Path, doc: dict) -> consumers.ConsumerResult:
    head = {"profile": 3, "name": "reader", "repository": "pypi:example", "version": "1.0", "describes": "a reader"}
    (tmp_path / "reader.json").write_text(json.dumps(head | doc))
    recorded, observed = baselines.load(baseline), fingerprints_to_compare([target])
    return consumers.judge(consumers.load(tmp_path / "reader.json"), compare(recorded, observed), recorded, observed)


def _target(copy: Path, tmp_path: Path, observed: str) -> Path:
    return _sweep(copy, tmp_path / "corpus") if observed == "sweep" else copy


@pytest.fixture(scope="module")
def synced(tmp_path_factory) -> tuple[Path, Path]:
    """A store whose every session has a sidecar, and its baseline."""
    work = tmp_path_factory.mktemp("synced")
    home = _store(work / "home", synced=True)
    return home, _recorded(home, work)


@pytest.fixture(scope="module")
def unsynced(tmp_path_factory) -> tuple[Path, Path]:
    """The same store, one CLI session without a sidecar, and its baseline."""
    work = tmp_path_factory.mktemp("unsynced")
    home = _store(work / "home", synced=False)
    return home, _recorded(home, work)


# ----------------------------------------------------------------------------- scope

SOURCE = {"surface": "transcript", "path": "full.source", "mode": "requires", "values": ["MODEL", "USER_EXPLICIT"]}
SOURCE |= {"other": "skips"} | CITE
SCOPE = {"cite": "pypi:example==1.0:example/reader.py:2", "why": "its only root"}


@pytest.mark.parametrize("observed", ["sweep", "home"])
def test_a_reader_of_one_root_is_not_broken_by_a_change_in_another(synced, tmp_path, observed):
    """MODEL_V2 replaces MODEL in the CLI root's transcripts only: a reader of the IDE root alone
    loses nothing, judged on the IDE's records; one of the CLI root, or of every root, breaks."""
    home, baseline = synced
    target = _target(_mutated(home, tmp_path / "home", "new-source", only="antigravity-cli"), tmp_path, observed)
    ide = _judge(baseline, target, tmp_path, {"scope": {"roots": ["antigravity"]} | SCOPE, "entries": [SOURCE]})
    assert (ide.verdict, [d.reason for d in ide.decisions]) == (
        "ok",
        ["every value now recorded is one it acts on (source in {MODEL, USER_EXPLICIT}) (judged on ide's records)"],
    )
    cli = _judge(baseline, target, tmp_path, {"scope": {"roots": ["antigravity-cli"]} | SCOPE, "entries": [SOURCE]})
    assert (cli.verdict, [d.reason for d in cli.decisions]) == (
        "breaks",
        [
            "new value MODEL_V2: records it took left MODEL (77% of the records, now 50%) for it, outside its filter source "
            "in {MODEL, USER_EXPLICIT} (not in agy-9.9.9) (judged on cli's records)"
        ],
    )
    every = _judge(baseline, target, tmp_path, {"entries": [SOURCE]})
    assert (every.verdict, [d.reason for d in every.decisions]) == (
        "breaks",
        [
            "new value MODEL_V2: records it took left MODEL (76% of the records, now 59%) for it, outside its filter source "
            "in {MODEL, USER_EXPLICIT} (not in agy-9.9.9)"
        ],
    )


def test_a_scope_matches_layout_entries_in_its_roots_only(synced, tmp_path):
    """Transcripts become chunks only in the CLI root: a flat-only reader of the IDE root keeps
    every flat file it reads; one of the CLI root lost them all."""
    home, baseline = synced
    copy = _mutated(home, tmp_path / "home", "chunks-only", only="antigravity-cli")
    flat = {"surface": "layout", "path": "brain/*/.system_generated/logs/transcript.jsonl", "mode": "requires"} | CITE
    ide = _judge(baseline, copy, tmp_path, {"scope": {"roots": ["antigravity"]} | SCOPE, "entries": [flat]})
    assert (ide.verdict, [(d.path, d.reason) for d in ide.decisions]) == (
        "ok",
        [("antigravity/brain/*/.system_generated/logs/transcript.jsonl", "unchanged")],
    )
    cli = _judge(baseline, copy, tmp_path, {"scope": {"roots": ["antigravity-cli"]} | SCOPE, "entries": [flat]})
    assert (cli.verdict, [(d.path, d.reason) for d in cli.decisions]) == (
        "breaks",
        [("antigravity-cli/brain/*/.system_generated/logs/transcript.jsonl", "removed")],
    )


# ----------------------------------------------------------------------------- only, except


@pytest.mark.parametrize(
    ("types", "verdict", "reason"),
    [
        (
            {"except": ["PLANNER_RESPONSE", "RUN_COMMAND", "VIEW_FILE"]},
            "ok",
            "every value now recorded is one it acts on (source in {MODEL, USER_EXPLICIT}) (judged on the records of types "
            "other than PLANNER_RESPONSE, RUN_COMMAND, VIEW_FILE (it takes those by type))",
        ),
        (
            {"only": ["USER_INPUT"]},
            "ok",
            "every value now recorded is one it acts on (source in {MODEL, USER_EXPLICIT}) (judged on the records of types "
            "USER_INPUT (the only types it takes))",
        ),
        (
            {"only": ["RUN_COMMAND", "USER_INPUT"]},
            "breaks",
            "new value MODEL_V2: records it took left MODEL (43% of the records, now 29%) for it, outside its filter source "
            "in {MODEL, USER_EXPLICIT} (not in agy-9.9.9) (judged on the records of types RUN_COMMAND, USER_INPUT (the only "
            "types it takes))",
        ),
        (
            {"except": ["PLANNER_RESPONSE"]},
            "breaks",
            "new value MODEL_V2: records it took left MODEL (53% of the records, now 29%) for it, outside its filter source "
            "in {MODEL, USER_EXPLICIT} (not in agy-9.9.9) (judged on the records of types other than PLANNER_RESPONSE (it "
            "takes those by type))",
        ),
    ],
)
@pytest.mark.parametrize("observed", ["sweep", "home"])
def test_a_filter_applied_to_some_record_types_is_judged_on_theirs(synced, tmp_path, types, verdict, reason, observed):
    """MODEL_V2 replaces MODEL on every third step, of every type: a source filter a reader applies
    to user inputs alone, or to none of the types whose records moved, loses nothing; one applied to
    commands (some of which moved) loses them."""
    home, baseline = synced
    target = _target(_mutated(home, tmp_path / "home", "new-source"), tmp_path, observed)
    judged = _judge(baseline, target, tmp_path, {"entries": [SOURCE | types]})
    assert (judged.verdict, [d.reason for d in judged.decisions]) == (verdict, [reason])


# ----------------------------------------------------------------------------- prefers

OUTPUT = {"surface": "wire", "path": "gen_metadata.data.chat_model.usage.output_tokens", "mode": "requires"} | CITE
PREFERS = {
    "family": "conversations/*.trajectory.json",
    "over": "conversations/*.db",
    "cite": "pypi:example==1.0:example/reader.py:3",
    "why": "a sidecar that covers its .db",
}


@pytest.mark.parametrize("observed", ["sweep", "home"])
def test_a_sidecar_preferring_reader_and_a_db_change(synced, unsynced, tmp_path, observed):
    """The .db's output tokens are dropped: a reader that reads the sidecar in place of the .db
    where a session has one is only at risk when every session has one (it reads the .db of a
    session whose sidecar lags it), and breaks when one session has none; a reader of the .db
    alone breaks either way."""
    for store, verdict in ((synced, "at risk"), (unsynced, "breaks")):
        home, baseline = store
        work = tmp_path / verdict
        work.mkdir()
        target = _target(_mutated(home, work / "home", "drop-output-tokens"), work, observed)
        preferring = _judge(baseline, target, work, {"prefers": [PREFERS], "entries": [OUTPUT]})
        alone = _judge(baseline, target, work, {"entries": [OUTPUT]})
        assert (preferring.verdict, alone.verdict) == (verdict, "breaks")
        assert [d.reason for d in alone.deciding] == ["removed"]
        covered = (
            "removed; it prefers conversations/*.trajectory.json, which every session of antigravity, antigravity-cli has "
            "(layout: file): it reads conversations/*.db only for a session whose conversations/*.trajectory.json it does "
            "not take"
        )
        assert [d.reason for d in preferring.deciding] == [covered if verdict == "at risk" else "removed"]


def test_the_schema_names_the_roots_and_families_judging_knows():
    """A scope's roots are those discovery knows the product of; a preference's families those
    whose surfaces judging knows."""
    schema = schemas.load("consumer-profile").document
    assert set(schema["properties"]["scope"]["properties"]["roots"]["items"]["enum"]) == set(layout.ROOT_PRODUCTS)
    preference = schema["$defs"]["preference"]["properties"]
    assert preference["family"]["enum"] == preference["over"]["enum"] == sorted(consumers.PREFERABLE, reverse=True)
