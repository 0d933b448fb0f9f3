import os
import subprocess
import sys

import pytest

from audit import __version__
from audit.cli import COMMANDS, build_parser, main


def _subcommands(parser):
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            return action.choices
    return {}


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"agy-audit {__version__}"


def test_help_on_every_command_and_subcommand(capsys):
    parser = build_parser()
    commands = _subcommands(parser)
    assert {name.replace("_", "-") for name in COMMANDS} <= set(commands)
    paths = []
    for name, sub in commands.items():
        paths.append([name])
        paths.extend([name, inner] for inner in _subcommands(sub))
    for path in paths:
        with pytest.raises(SystemExit) as info:
            main([*path, "--help"])
        assert info.value.code == 0, path
        assert "usage: agy-audit " + " ".join(path) in capsys.readouterr().out


def test_no_command_prints_help_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage: agy-audit" in capsys.readouterr().err


def test_unknown_option_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as info:
        main(["stores", "--bogus"])
    assert info.value.code == 2
    assert "unrecognized arguments: --bogus" in capsys.readouterr().err


def test_module_entry_point_runs_from_another_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [sys.executable, "-m", "audit", "--version"], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    if out.returncode != 0 and "No module named audit" in out.stderr:
        pytest.skip("package not installed in this interpreter")
    assert out.stdout.strip() == f"agy-audit {__version__}"


def test_bundled_data_is_found_from_another_directory(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    code = "from audit.resources import data_path; import sys; print(sorted(p.name for p in data_path('schemas').glob('*.schema.json')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0 and "No module named" in out.stderr:
        pytest.skip("package not installed in this interpreter")
    assert "sidecar.schema.json" in out.stdout
