"""First contact is not drift: against a baseline recorded from another corpus (the bundled ones,
imported from agy-reader's published record), a path that corpus did not hold is a
``not-in-baseline`` advisory that says how to judge it; against a baseline recorded from your own
stores it is ``added``, drift. Real stores set fields the published agy 1.2.11 record never shows
(docs/store-format.md#sometimes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from audit.testing import StoreBuilder
from audit.testing import trajectories as T
from tests.cli_capture import cli
from tests.fake_agy import agy_on_path
from tests.output_schema import ci_result, envelope

HISTORY = "steps.[].userInput.lastUserConfig.conversationHistoryConfig"
FIRST_CONTACT = (
    "first contact: agy-1.2.11 was recorded from another corpus, which did not hold this path: no evidence that the "
    "format changed. To judge added paths, record your own baseline (agy-audit ci --record agy-X.Y.Z) and compare "
    "later runs with it"
)


@pytest.fixture(autouse=True)
def _agy_9_9_9(monkeypatch, tmp_path):
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")  # it confirms the name these tests record
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)  # a project with nothing recorded: the bundled baseline


def set_history_config(builder: StoreBuilder) -> None:
    """A conversation whose prompt carries the conversation-history config, as real sessions of
    April to August 2026 do and the sessions of the published agy 1.2.11 record do not."""
    steps = T.conversation_steps(builder.rng, builder.clock, 1)
    steps[0]["userInput"]["lastUserConfig"] = {"conversationHistoryConfig": {"enabled": True}}
    builder.root("cli").conversation(steps=steps)


def compare_checks(doc: dict) -> dict[str, dict]:
    return {c["name"]: c for s in doc["stages"] if s["name"] == "compare" for c in s["checks"]}


def ci_json(*argv: object) -> tuple[int, dict]:
    code, stdout, stderr = cli("ci", "--source", "native", "--format", "json", *argv)
    assert stderr == ""
    return code, ci_result(envelope(stdout, "ci"))


def test_a_field_the_bundled_record_never_saw_set_is_an_advisory_and_drift_against_your_own(tmp_path):
    home = tmp_path / "home"
    builder = StoreBuilder(home, seed=41)
    builder.root("cli").conversation(turns=2)
    own = ("--baseline-dir", tmp_path / "own", "--compat-file", tmp_path / "C.md")
    code, doc = ci_json("--home", home, *own, "--record", "agy-9.9.9")  # the store's earlier state
    assert (code, doc["recorded"]) == (0, str(tmp_path / "own" / "agy-9.9.9"))
    set_history_config(builder)

    code, doc = ci_json("--home", home)
    assert (code, doc["baseline"]["name"], doc["baseline"]["reason"]) == (
        0,
        "agy-1.2.11",
        "bundled: nothing recorded in ./fingerprints",
    )
    found = compare_checks(doc)
    for target in ("corpus sidecar", "live sidecar"):
        check = found[target]
        assert (check["verdict"], check["errors"], check["warnings"]) == ("pass", 0, 2), target
        assert check["summary"].startswith(
            "DRIFT: 2 not-in-baseline; advisory, not a failure: only 2 not-in-baseline (each line says why)"
        )
        assert [(f["level"], f["rule"], f["message"]) for f in check["findings"]] == [
            ("warning", "not-in-baseline", f"{HISTORY}: object ({FIRST_CONTACT})"),
            ("warning", "not-in-baseline", f"{HISTORY}.enabled: boolean ({FIRST_CONTACT})"),
        ]

    code, doc = ci_json("--home", home, *own)
    assert (code, doc["baseline"]["name"], doc["baseline"]["reason"]) == (
        1,
        "agy-9.9.9",
        f"recorded in {tmp_path / 'own'}, newest there",
    )
    failing = {c["name"]: [f["message"] for f in c["findings"]] for c in compare_checks(doc).values() if c["verdict"] == "fail"}
    sidecar = ["steps.[].userInput.lastUserConfig: object", f"{HISTORY}: object", f"{HISTORY}.enabled: boolean"]
    wire = "steps.step_payload[CORTEX_STEP_TYPE_USER_INPUT].user_input.last_user_config"
    assert failing == {
        "corpus sidecar": sidecar,
        "corpus wire": [
            f"{wire}: len",
            f"{wire}.conversation_history_config: len",
            f"{wire}.conversation_history_config.enabled: varint",
        ],
        "live sidecar": sidecar,
    }


def test_keys_only_the_daemon_writes_are_no_drift_against_a_baseline_recorded_offline(tmp_path):
    """Recorded from a native sweep (sidecars reconstructed offline), a plain ci then reads the live
    sidecars agy's daemon wrote: their daemon-only keys are ones that corpus could not hold."""
    home = tmp_path / "home"
    StoreBuilder(home, seed=43).root("cli").family(children=1)
    assert cli("ci", "--home", home, "--source", "native", "--record", "agy-9.9.9", "-q")[0] == 0
    assert json.loads(Path("fingerprints/agy-9.9.9/baseline.json").read_text())["sidecarSources"] == {"native": 2}

    code, doc = ci_json("--home", home)
    assert (code, doc["baseline"]["reason"]) == (0, "recorded in ./fingerprints, newest there")
    live = compare_checks(doc)["live sidecar"]
    assert live["summary"] == "DRIFT: 7 not-in-baseline; advisory, not a failure: only 7 not-in-baseline (each line says why)"
    offline = (
        "a key only the daemon writes: agy-9.9.9 was recorded from sidecars reconstructed offline (a native sweep), "
        "which cannot hold it"
    )
    assert [f["message"] for f in live["findings"]] == [
        f"steps.[].invokeSubagent.results: array ({offline})",
        f"steps.[].invokeSubagent.results.[]: object ({offline})",
        f"steps.[].invokeSubagent.results.[].conversationId: string ({offline})",
        f"steps.[].invokeSubagent.subagents: array ({offline})",
        f"steps.[].invokeSubagent.subagents.[]: object ({offline})",
    ]
    assert compare_checks(doc)["corpus sidecar"]["summary"] == "UNCHANGED"
