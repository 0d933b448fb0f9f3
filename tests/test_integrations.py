"""What users wire into their own repositories -- the pre-commit hook manifest, the composite
GitHub Action and the example workflow -- passes only flags and values the CLI accepts."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml

from audit.cli import build_parser

REPO = Path(__file__).resolve().parents[1]


def load(name: str) -> object:
    return yaml.safe_load((REPO / name).read_text(encoding="utf-8"))


def parses(argv: list[str]) -> None:
    """Parse *argv* with the real CLI parser; argparse exits 2 on an unknown flag or value."""
    build_parser(argv[0].replace("-", "_")).parse_args(argv)


def subcommand_choices(command: str, flag: str) -> tuple[str, ...]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return tuple(next(a for a in sub._actions if flag in a.option_strings).choices)


def test_every_hook_entry_is_a_valid_command_line():
    hooks = load(".pre-commit-hooks.yaml")
    assert [h["id"] for h in hooks] == ["agy-audit-sidecars", "agy-audit-transcripts"]
    kinds = []
    for hook in hooks:
        argv = shlex.split(hook["entry"])
        assert argv[0] == "agy-audit" and hook["language"] == "python"
        parses([*argv[1:], "some-file"])  # pre-commit appends the file names
        kinds.append(argv[argv.index("--kind") + 1])
        re.compile(hook["files"])
    assert kinds == ["sidecar", "transcript"]


def test_the_hook_patterns_select_what_they_say():
    hooks = {h["id"]: re.compile(h["files"]) for h in load(".pre-commit-hooks.yaml")}
    sidecar, transcript = hooks["agy-audit-sidecars"], hooks["agy-audit-transcripts"]
    assert sidecar.search("conversations/0b8e90e9-f646-4d5f-9ae8-5d0928398f9f.trajectory.json")
    assert not sidecar.search("conversations/x.trajectory.json.bak")
    for name in ("transcript.jsonl", "a/logs/transcript_full.jsonl", "logs/transcript.3.jsonl"):
        assert transcript.search(name), name
    assert not transcript.search("logs/my_transcript.jsonl")


def action_script() -> str:
    steps = load("action.yml")["runs"]["steps"]
    return next(s["run"] for s in steps if s.get("id") == "audit")


def test_the_action_passes_only_flags_ci_accepts():
    script = action_script()
    flags = sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", script)))
    assert flags == [
        "--baseline",
        "--baseline-dir",
        "--consumer",
        "--fail-on",
        "--format",
        "--home",
        "--out",
        "--report",
        "--report-format",
        "--root",
        "--source",
    ]
    parser = build_parser("ci")
    sub = next(a for a in parser._actions if a.dest == "command").choices["ci"]
    known = {s for a in sub._actions for s in a.option_strings}
    assert set(flags) <= known


def test_the_action_inputs_default_to_values_ci_accepts_and_all_reach_the_command():
    action = load("action.yml")
    inputs = action["inputs"]
    assert inputs["source"]["default"] in subcommand_choices("ci", "--source")
    assert inputs["fail-on"]["default"] in subcommand_choices("ci", "--fail-on")
    assert inputs["report-format"]["default"] in subcommand_choices("ci", "--report-format")
    env = next(s["env"] for s in action["runs"]["steps"] if s.get("id") == "audit")
    script = action_script()
    for name in inputs:
        if name == "python":
            continue  # used by the install step
        variable = "IN_" + name.upper().replace("-", "_")
        assert env[variable] == "${{ inputs.%s }}" % name and f'"${variable}"' in script, name
    # Every input set: the command line the script builds parses.
    parses(["ci", "--format", "github", "--source", "native", "--fail-on", "breaking", "--out", "/tmp/c",
            "--report", "r.xml", "--report-format", "junit", "--home", "/h", "--root", "/r", "--baseline", "agy-1.2.10",
            "--baseline-dir", "b", "--fail-on", "consumer:codeburn", "--consumer", "codeburn"])  # fmt: skip


def test_inputs_never_reach_the_shell_parser():
    """An input is only ever used as a quoted variable, so a value like `$(rm -rf ~)` stays text."""
    script = action_script()
    assert "${{" not in script


@pytest.mark.parametrize("key", ["schedule", "workflow_dispatch"])
def test_the_example_workflow_uses_the_action_with_its_inputs(key):
    workflow = load("examples/github-workflow.yml")
    assert key in workflow[True]  # YAML 1.1 reads the key `on` as true
    steps = workflow["jobs"]["audit"]["steps"]
    step = next(s for s in steps if s.get("uses") == "./")
    assert set(step["with"]) <= set(load("action.yml")["inputs"])
    assert step["with"]["fail-on"] in subcommand_choices("ci", "--fail-on")
