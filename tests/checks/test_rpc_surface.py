"""The ``rpc`` surface: the daemon's GetCascadeTrajectoryGeneratorMetadata answers a daemon sweep
keeps, fingerprinted (keys and types), recorded, compared and read by codeburn's profile."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from cli_capture import cli

from audit.checks import baselines, consumers
from audit.checks.baselines import Baseline
from audit.checks.drift import DRIFT, UNCHANGED, SurfaceResult, compare, fingerprints_to_compare
from audit.checks.fingerprint import SURFACES, fingerprint_paths
from audit.testing import StoreBuilder
from audit.testing.daemon import SimulatedDaemon
from tests.fake_agy import agy_on_path

TOKEN = "rpc-surface-token-7d2e4c1a9b"
METHOD = "GetCascadeTrajectoryGeneratorMetadata"
USAGE = f"{METHOD}.generatorMetadata.[].chatModel.usage"
USAGE_LINES = [
    f"{USAGE}\tobject",
    f"{USAGE}.apiProvider\tstring",
    f"{USAGE}.cacheReadTokens\tstring",
    f"{USAGE}.inputTokens\tstring",
    f"{USAGE}.model\tstring",
    f"{USAGE}.outputTokens\tstring",
    f"{USAGE}.responseId\tstring",
    f"{USAGE}.responseOutputTokens\tstring",
    f"{USAGE}.thinkingOutputTokens\tstring",
]


@pytest.fixture
def swept(tmp_path, monkeypatch) -> Path:
    """A daemon sweep of a store of two conversations: each one's answer kept under native/cli/rpc/."""
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", TOKEN)
    monkeypatch.setenv("PATH", str(tmp_path))  # no `agy --version`
    root = StoreBuilder(tmp_path / "home", seed=37).root("cli")
    root.conversation(turns=2)
    root.conversation(turns=1)
    with SimulatedDaemon(root.path, token=TOKEN):
        code, _, err = cli("sweep", "--root", root.path, "--out", tmp_path / "corpus", "--source", "daemon")
    assert code == 0, err
    return tmp_path / "corpus"


def _answers(corpus: Path) -> list[Path]:
    return sorted((corpus / "native" / "cli" / "rpc").glob(f"*.{METHOD}.json"))


def test_a_daemon_sweep_s_answers_give_keys_and_types_never_values(swept):
    (first, second) = _answers(swept)
    result = fingerprint_paths([swept], ["rpc"])
    lines = result.fingerprints["rpc"].lines
    assert [line for line in lines if line.startswith(USAGE)] == USAGE_LINES
    assert lines[:3] == (f"{METHOD}\tobject", f"{METHOD}.generatorMetadata\tarray", f"{METHOD}.generatorMetadata.[]\tobject")
    assert len(lines) == 51 and result.not_computed == {} and result.partial() == {}
    usage = json.loads(first.read_text())["generatorMetadata"][0]["chatModel"]["usage"]
    assert not any(value in line for line in lines for value in (usage["responseId"], usage["inputTokens"]))

    (swept / "native" / "cli" / "rpc" / "notes.txt").write_text("not an answer")
    second.write_text('{"generatorMetadata": [')
    result = fingerprint_paths([swept], ["rpc"])
    assert result.skipped == [f"{swept / 'native' / 'cli' / 'rpc' / 'notes.txt'}: name is not <uuid>.<Method>.json"]
    assert result.problems == [f"{second}: invalid JSON at line 1 column 24: Expecting value"]
    assert result.fingerprints["rpc"].lines == lines  # the other answer has every key


def test_only_a_sweep_with_the_daemon_holds_answers(tmp_path, swept):
    home = tmp_path / "home"
    assert fingerprint_paths([home], ["rpc"]).not_computed == {"rpc": SURFACES["rpc"].missing}
    code, _, err = cli(
        "sweep", "--root", home / ".gemini" / "antigravity-cli", "--out", tmp_path / "native", "--source", "native"
    )
    assert code == 0, err
    assert fingerprint_paths([tmp_path / "native"], ["rpc"]).not_computed == {"rpc": SURFACES["rpc"].missing}


def test_in_a_sweep_partly_without_the_daemon_a_key_the_answers_lack_is_only_not_observed(swept):
    result = fingerprint_paths([swept], ["rpc"])
    result.sources = Counter({"daemon": 2, "native": 1})  # as a --source auto sweep that met a .db the daemon did not serve
    assert SURFACES["rpc"].partial is not None
    assert SURFACES["rpc"].partial(result) == (
        "1 of 3 sessions were swept without the daemon (native sweep), which keeps no answer of theirs: "
        "what their answers would hold is unknown"
    )
    result.sources = Counter({"native": 3})
    assert SURFACES["rpc"].partial(result) is None  # no answer at all: the surface is not computed


def _judged(baseline: Baseline, corpus: Path) -> tuple[SurfaceResult, dict[str, tuple[str, str]]]:
    """The rpc surface of *corpus* compared with *baseline*, and codeburn's decisions on its rpc entries."""
    observed = fingerprints_to_compare([corpus], ("rpc",))
    comparison = compare(baseline, observed)
    (codeburn,) = consumers.resolve(["codeburn"])
    result = consumers.judge(codeburn, comparison, baseline, observed)
    decisions = {d.entry.path: (d.effect, d.reason) for d in result.decisions if d.entry.surface == "rpc"}
    (surface,) = comparison.surfaces
    return surface, decisions


def test_recorded_then_compared_codeburn_s_rpc_entries_are_judged(tmp_path, swept, monkeypatch):
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")  # it confirms the name recorded below
    fp, compat = tmp_path / "fp", tmp_path / "COMPAT.md"
    code, _, err = cli("record", swept, "--name", "agy-9.9.9", "--baseline-dir", fp, "--compat-file", compat)
    assert code == 0, err
    recorded = baselines.load(fp / "agy-9.9.9")
    assert recorded.lines["rpc"] == fingerprint_paths([swept], ["rpc"]).fingerprints["rpc"].lines
    assert f"- rpc, {SURFACES['rpc'].describes}: **swept by agy-audit**: `{recorded.digests['rpc']}`" in compat.read_text()

    surface, decisions = _judged(recorded, swept)
    assert (surface.surface, surface.status) == ("rpc", UNCHANGED)
    unkept = ("unknown", f"no sweep keeps the daemon's GetAvailableModels answers (only {METHOD})")
    assert decisions.pop("GetAvailableModels.response.models.*.model") == unkept
    assert decisions.pop("GetAvailableModels.response.models.*.displayName") == unkept
    assert decisions == {
        f"{METHOD}.generatorMetadata.[].chatModel.{path}": ("ok", "unchanged")
        for path in (
            "usage.inputTokens",
            "usage.outputTokens",
            "usage.thinkingOutputTokens",
            "usage.responseOutputTokens",
            "usage.responseId",
            "usage.model",
            "chatStartMetadata.createdAt",
        )
    }

    for answer in _answers(swept):  # agy renames inputTokens and sends outputTokens as a number
        doc = json.loads(answer.read_text())
        for generation in doc["generatorMetadata"]:
            usage = generation["chatModel"]["usage"]
            usage["promptTokens"] = usage.pop("inputTokens")
            usage["outputTokens"] = int(usage["outputTokens"])
        answer.write_text(json.dumps(doc))
    surface, decisions = _judged(recorded, swept)
    assert surface.status == DRIFT
    assert [(c.path, c.kind, c.was) for c in surface.changes] == [
        (f"{USAGE}.outputTokens", "type-changed", None),
        (f"{USAGE}.promptTokens", "renamed", f"{USAGE}.inputTokens"),
    ]
    assert decisions[f"{USAGE}.inputTokens"] == (
        "breaks",
        f"renamed to {USAGE}.promptTokens: in no record now, so it loses what it read there (optional, and no fallback cited)",
    )
    assert decisions[f"{USAGE}.outputTokens"] == (
        "ok",
        "type-changed; every value now recorded is one it accepts (number|string)",
    )
    assert decisions[f"{USAGE}.responseId"] == ("ok", "unchanged")


def test_a_redacted_copy_of_a_daemon_sweep_keeps_the_answers_shape_and_none_of_their_values(tmp_path, swept):
    code, _, err = cli("redact", swept, "--out", tmp_path / "redacted", "--seed", "rpc", "--quiet")
    assert code == 0, err
    copied = _answers(tmp_path / "redacted")
    assert len(copied) == 2
    assert (
        fingerprint_paths([tmp_path / "redacted"], ["rpc"]).fingerprints["rpc"]
        == fingerprint_paths([swept], ["rpc"]).fingerprints["rpc"]
    )
    source = json.loads(_answers(swept)[0].read_text())["generatorMetadata"][0]["chatModel"]["usage"]["responseId"]
    assert not any(source.encode() in path.read_bytes() for path in copied)
