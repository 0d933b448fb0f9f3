"""What users wire into their own repositories -- the pre-commit hook manifest, the composite
GitHub Action and the example workflow -- passes only flags and values the CLI accepts."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

import pytest
import yaml

from audit.cli import build_parser

REPO = Path(__file__).resolve().parents[2]


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


NOT_FOR_THE_ACTION = {
    "--help": "not a run",
    "--quiet": "the progress input says how much goes to the log",
    "--keep": "the action's corpus (--out in $RUNNER_TEMP) is kept already, and removed with the runner's temp",
}
"""The options of ``ci`` the action does not offer as inputs, and why."""


def test_the_action_passes_every_ci_option_that_fits_ci_and_only_those():
    script = action_script()
    flags = set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", script))
    parser = build_parser("ci")
    sub = next(a for a in parser._actions if a.dest == "command").choices["ci"]
    options = {max(a.option_strings, key=len) for a in sub._actions if a.option_strings}
    assert flags == options - set(NOT_FOR_THE_ACTION)
    assert set(NOT_FOR_THE_ACTION) <= options


def test_the_action_inputs_default_to_values_ci_accepts_and_all_reach_the_command():
    action = load("action.yml")
    inputs = action["inputs"]
    assert inputs["source"]["default"] in subcommand_choices("ci", "--source")
    assert inputs["fail-on"]["default"] in subcommand_choices("ci", "--fail-on")
    assert inputs["report-format"]["default"] in subcommand_choices("ci", "--report-format")
    assert inputs["progress"]["default"] == "" and "auto" in subcommand_choices("ci", "--progress")
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
            "--baseline-dir", "b", "--fail-on", "consumer:codeburn", "--consumer", "codeburn", "--include-implicit",
            "--timeout", "60", "--allow-remote-daemon", "--session", "0b8e", "--since", "2026-11-01", "--newest", "5",
            "--readable-only", "--record", "agy-1.2.11", "--unverified-name", "--compat-file", "C.md", "--no-live",
            "--jobs", "1"])  # fmt: skip
    parses(["ci", "--record", "--compat-file", "C.md", "--key-file", "k", "--progress", "on"])  # record: installed


def test_the_action_installs_every_dependency_at_a_pinned_version():
    """action-constraints.txt pins each runtime dependency (and what they need) within
    pyproject.toml's bounds, and the install step hands it to pip for the build too."""
    install = next(s for s in load("action.yml")["runs"]["steps"] if s["name"] == "Install agy-audit")
    assert install["env"]["PIP_CONSTRAINT"] == "${{ github.action_path }}/action-constraints.txt"
    pins = {}
    for line in (REPO / "action-constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name] = tuple(int(p) for p in version.split("."))
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    legacy = project["project"]["optional-dependencies"]["legacy"]  # installed with the key-file input
    for requirement in [*project["project"]["dependencies"], *legacy, *project["build-system"]["requires"]]:
        name, lower = re.fullmatch(r"([\w-]+)>=([\d.]+)", requirement).groups()
        assert pins[name] >= tuple(int(p) for p in lower.split(".")), requirement


def test_the_manual_lists_every_input_of_the_action():
    """docs/ci-integration.md's table of inputs names each input of action.yml, and no other."""
    page = (REPO / "docs" / "ci-integration.md").read_text(encoding="utf-8")
    table = page.split("| input | `ci` option | default |")[1].split("\n\n")[0]
    listed = [name for row in table.splitlines()[2:] for name in re.findall(r"`([a-z-]+)`", row.split(" | ")[0])]
    assert sorted(listed) == sorted(load("action.yml")["inputs"])


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
