"""``--format sarif`` of verify-contract, consistency and ci: SARIF 2.1.0 logs valid against the
official schema, one result per finding, on its file and line."""

from __future__ import annotations

import json

from cli_capture import cli
from output_schema import envelope, sarif

from audit import __version__
from audit.findings import Finding, Level
from audit.report import sarif as sarif_report
from audit.testing import StoreBuilder
from audit.testing import trajectories as T

UUID = "0b0c5a3e-7d4f-4a5b-9c6d-1e2f3a4b5c6d"
STEP = '{"type": "CORTEX_STEP_TYPE_USER_INPUT", "status": "STATUS_COMPLETED", "metadata": {"createdAt": "2026-01-01T00:00:00Z"}}'


def test_verify_contract_sarif_has_one_result_per_finding_on_its_file(tmp_path):
    bad = tmp_path / "b c#1.trajectory.json"
    bad.write_text('{"cascadeId": "x", "steps": [' + STEP + "]}\n")
    code, out, err = cli("verify-contract", "--format", "sarif", bad, tmp_path / "absent.trajectory.json")
    assert (code, err) == (2, "")
    log = sarif(out)
    assert (log["version"], log["$schema"]) == ("2.1.0", "https://json.schemastore.org/sarif-2.1.0.json")
    [run] = log["runs"]
    assert run["tool"] == {
        "driver": {
            "name": "agy-audit",
            "version": __version__,
            "rules": [{"id": "sidecar/cascadeId"}, {"id": "sidecar/step/status/family"}, {"id": "unreadable"}],
        }
    }
    assert run["automationDetails"] == {"id": "agy-audit/verify-contract/"}
    assert run["invocations"] == [{"executionSuccessful": False, "exitCode": 2}]
    uri = (tmp_path / "b%20c%231.trajectory.json").as_posix()
    assert run["results"] == [
        {
            "ruleId": "unreadable",
            "ruleIndex": 2,
            "level": "error",
            "message": {"text": "no such file or directory"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": f"file://{tmp_path}/absent.trajectory.json"}}}],
        },
        {
            "ruleId": "sidecar/cascadeId",
            "ruleIndex": 0,
            "level": "error",
            "message": {"text": "/cascadeId: 'x' is not a valid uuid"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": f"file://{uri}"}}}],
            "properties": {"pointer": "/cascadeId"},
        },
        {
            "ruleId": "sidecar/step/status/family",
            "ruleIndex": 1,
            "level": "warning",
            "message": {"text": "/steps/0/status: 'STATUS_COMPLETED' does not match ^CORTEX_STEP_STATUS_[A-Z0-9_]+$(?!\\n)"},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": f"file://{uri}"}}}],
            "properties": {"pointer": "/steps/0/status"},
        },
    ]
    _, json_out, _ = cli("verify-contract", "--format", "json", bad, tmp_path / "absent.trajectory.json")
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [
        (f["rule"], f["level"]) for f in envelope(json_out, "verify-contract")["findings"]
    ]


def test_consistency_sarif_places_each_disagreement_on_its_transcript_line(tmp_path):
    builder = StoreBuilder(tmp_path / "home", seed=7)
    root = builder.root("cli")
    steps = T.conversation_steps(builder.rng, builder.clock, 8)
    convo = root.conversation(steps=steps, disagreements={"thinking"})
    [step] = [p.step for p in convo.planted]
    code, out, _ = cli("consistency", "--format", "sarif", root.path)
    assert code == 1
    [run] = sarif(out)["runs"]
    assert run["tool"]["driver"]["rules"] == [{"id": "consistency/thinking"}]
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]
    logs = convo.paths["brain"] / ".system_generated" / "logs"
    assert [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"], r["properties"]) for r in run["results"]] == [
        (
            "consistency/thinking",
            "error",
            {"artifactLocation": {"uri": (logs / f"transcript{tier}.jsonl").as_uri()}, "region": {"startLine": step + 1}},
            {"step": step},
        )
        for tier in ("", "_full")
    ]


def test_ci_sarif_holds_the_findings_of_the_json_envelope_and_a_report_file(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no `agy --version`
    builder = StoreBuilder(tmp_path / "home", seed=7)
    builder.root("cli").conversation(steps=T.conversation_steps(builder.rng, builder.clock, 8), disagreements={"thinking"})
    argv = ("ci", "--home", builder.home, "--source", "native")
    code, out, _ = cli(*argv, "--out", tmp_path / "a", "--format", "sarif", "--report", tmp_path / "r.sarif")
    assert code == 1 and (tmp_path / "r.sarif").read_text() == out
    [run] = sarif(out)["runs"]
    assert run["invocations"] == [{"executionSuccessful": True, "exitCode": 1}]
    _, json_out, _ = cli(*argv, "--out", tmp_path / "b", "--format", "json")
    findings = envelope(json_out, "ci")["findings"]
    assert [(r["ruleId"], r["level"], r["properties"]["stage"], r["properties"]["check"]) for r in run["results"]] == [
        (f["rule"], f["level"], f["details"]["stage"], f["details"]["check"]) for f in findings
    ]
    assert {r["ruleId"] for r in run["results"]} == {"consistency/thinking"}


def test_a_finding_about_no_file_has_no_location_and_a_relative_path_stays_relative():
    findings = [
        Finding("r/one", Level.NOTE, "about the run"),
        Finding("r/two", Level.WARNING, "there", "dir/a b.jsonl", 3, 7, details={"step": 2}),
    ]
    log = sarif_report.log("x", 0, findings)
    assert sarif(json.dumps(log))["runs"][0]["results"] == [
        {"ruleId": "r/one", "ruleIndex": 0, "level": "note", "message": {"text": "about the run"}},
        {
            "ruleId": "r/two",
            "ruleIndex": 1,
            "level": "warning",
            "message": {"text": "there"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": "dir/a%20b.jsonl"},
                        "region": {"startLine": 3, "startColumn": 7},
                    }
                }
            ],
            "properties": {"step": 2},
        },
    ]
