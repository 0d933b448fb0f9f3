"""README's Development section says what CI does: its test command is the one ``.ci/run`` runs,
the coverage floor it states is the one ``pyproject.toml`` sets, and the marker its quick loop
leaves out is registered and marks tests."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def readme_commands(section: str) -> list[str]:
    """The command lines of the code blocks of one of README's sections."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    text = readme.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    blocks = [block.split("\n```", 1)[0] for block in text.split("```sh\n")[1:]]
    return [
        line.split("  #", 1)[0].strip() for block in blocks for line in block.splitlines() if not line.lstrip().startswith("#")
    ]


def development_commands() -> list[str]:
    return readme_commands("Development")


def ci_test_commands() -> list[str]:
    """The commands ``.ci/run`` runs after its ``# README test command`` comment."""
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    tail = script.split("# README test command", 1)[1].split("\n", 1)[1]
    return [line.strip() for line in tail.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def test_the_readme_test_command_is_what_ci_runs():
    commands = ci_test_commands()
    assert commands[0].startswith("coverage run -m pytest ")
    assert " && ".join(commands) in development_commands()
    assert " && ".join(commands) in readme_commands("Quick start")


def test_the_readme_states_the_coverage_floor_pyproject_sets():
    floor = pyproject()["tool"]["coverage"]["report"]["fail_under"]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    stated = re.findall(r"`coverage report`\s+fails\s+under\s+(\d+)", readme)
    assert stated == [str(floor)]


def test_the_quick_loop_leaves_out_a_registered_marker_that_marks_tests():
    left_out = [name for command in development_commands() for name in re.findall(r'-m "not (\w+)"', command)]
    assert left_out == ["slow"]
    registered = [line.split(":", 1)[0] for line in pyproject()["tool"]["pytest"]["ini_options"]["markers"]]
    assert "slow" in registered
    marked = [
        path.name
        for path in sorted((REPO / "tests").rglob("test_*.py"))
        if "@pytest.mark.slow\n" in path.read_text(encoding="utf-8")
    ]
    assert marked


def test_the_quick_start_says_what_its_commands_print(monkeypatch, capsys):
    """The sample fails on purpose with the line the README quotes, and the command it gives to see
    a passing run passes: a new user reads both against what they see."""
    from audit.cli import main

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    failing, passing = readme_commands("Quick start")[:2]
    assert failing == "agy-audit ci --home examples/home --source native"
    assert passing.startswith("agy-audit ci --root examples/home/")
    monkeypatch.chdir(REPO)  # "from a checkout of this repository"
    ends = re.search(r"it ends with `(ci: [^`]+)`", readme)
    assert ends is not None
    for command, code, last in ((failing, 1, ends.group(1)), (passing, 0, "ci: PASS; exit 0")):
        assert main(command.split()[1:]) == code, command
        assert capsys.readouterr().out.splitlines()[-1] == last, command
    assert "(`ci: PASS; exit 0`)" in readme
