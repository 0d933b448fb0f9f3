"""Every command's ``--format json`` is the one envelope (``schemas/output.schema.json``): each is
run here on a small store and its output validated against the shipped schema, exit code and
verdict included; the schema's list of commands is every command that has ``--format json``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest
from cli_capture import cli
from output_schema import SCHEMA, envelope

from audit.cli import build_parser
from audit.testing import StoreBuilder

DATA = Path(__file__).resolve().parents[1] / "data"
READER = DATA / "readers" / "flat_reader.py"
SHAPE_DIGEST = "sha256:70e2c9386e88420d834beab7a4c917514bcf7b2cf9f74674bde02965601e0462"  # tests/data/README.md


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> tuple[Path, Path, str]:
    """A home with one CLI conversation, a sweep of it and a recorded baseline."""
    base = tmp_path_factory.mktemp("envelopes")
    builder = StoreBuilder(base / "home", seed=12)
    convo = builder.root("cli").conversation(turns=2)
    code, _, err = cli("sweep", "--home", builder.home, "--source", "native", "--out", base / "sweep")
    assert code == 0, err
    code, _, err = cli(
        "record", base / "sweep", "--name", "nightly", "--baseline-dir", base / "fp", "--compat-file", base / "C.md"
    )
    assert code == 0, err
    return base, builder.home, convo.id


def _commands(base: Path, home: Path, session: str) -> dict[str, list[tuple[object, ...]]]:
    """Per command (its words), the argument lists run with ``--format json``."""
    sweep = base / "sweep"
    corpus = sweep / "corpus" / "cli"
    return {
        "stores": [("stores", "--home", home), ("stores", "--home", home, "--sessions")],
        "stores show": [("stores", "show", "--home", home, session)],
        "inspect": [("inspect", "--home", home, session)],
        "sweep": [("sweep", "--home", home, "--source", "native", "--out", base / "sweep2")],
        "verify-contract": [("verify-contract", corpus)],
        "completeness": [("completeness", "--home", home)],
        "consistency": [("consistency", "--home", home)],
        "fingerprint": [("fingerprint", sweep)],
        "compare": [("compare", "--baseline-dir", base / "fp", sweep)],
        "record": [("record", sweep, "--name", "nightly2", "--baseline-dir", base / "fp2", "--compat-file", base / "C2.md")],
        "baselines": [("baselines", "--baseline-dir", base / "fp")],
        "baselines import-shape": [  # --format belongs to ``baselines``
            ("baselines", "--format", "json", "import-shape", DATA / "agy-1.2.5-sidecar-shape.tsv", "--name", "agy-1.2.5")
            + ("--baseline-dir", base / "fp3", "--digest", SHAPE_DIGEST)
        ],
        "consumers": [("consumers",)],
        "consumers check": [("consumers", "check", "agy-reader", sweep)],
        "diff": [("diff", corpus, corpus)],
        "redact": [("redact", home, "--out", base / "redacted", "--seed", "s")],
        "doctor": [("doctor", "--home", home)],
        "mutate": [("mutate", "--list"), ("mutate", "--home", home, "--out", base / "mutated", "--mutation", "new-step-type")],
        "conformance": [
            ("conformance", "--home", home, "--mutation", "new-step-type", "--format", "json", "--", sys.executable, READER)
        ],
        "links check": [("links", "check", "--home", home)],
        "links backfill": [("links", "backfill", "--home", home, "--dry-run")],
        "links repair": [("links", "repair", "--home", home, "--dry-run")],
        "links verify": [],
        "links rollback": [],
        "ci": [("ci", "--home", home, "--source", "native", "--out", base / "ci", "--baseline-dir", base / "fp")],
    }


def _json_commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = (), inherited: bool = False) -> list[str]:
    """The words of every (sub)command with ``--format json``, its own or its parent's."""
    own = any("--format" in a.option_strings and "json" in (a.choices or ()) for a in parser._actions)
    found = [" ".join(words)] if own or inherited else []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _json_commands(sub, (*words, name), own or inherited)
    return found


def test_the_schema_lists_every_command_with_json_output_but_export():
    """``export --format json`` writes the session itself (a sidecar document), not a report."""
    commands = set(_json_commands(build_parser())) - {"export"}
    assert set(SCHEMA["properties"]["command"]["enum"]) == commands
    assert set(_commands(Path(), Path(), "")) == commands


def test_every_command_prints_one_valid_envelope(made):
    base, home, session = made
    runs = 0
    for command, argvs in _commands(base, home, session).items():
        for argv in argvs:
            code, out, err = cli(*argv, *(() if "--format" in argv else ("--format", "json")))
            assert code in (0, 1), (command, err)
            doc = envelope(out, command)
            assert (doc["exitCode"], doc["verdict"]) == (code, "pass" if code == 0 else "fail"), command
            runs += 1
    assert runs == 25


def test_links_verify_and_rollback_print_valid_envelopes(tmp_path):
    home = tmp_path / "home"
    root = StoreBuilder(home, seed=13).root("cli")
    root.family(children=1)
    code, _, err = cli("links", "repair", "--home", home, "--backup", tmp_path / "backup")
    assert code == 0, err
    code, out, _ = cli("links", "verify", "--backup", tmp_path / "backup", "--format", "json")
    assert (code, envelope(out, "links verify")["verdict"]) == (0, "pass")
    code, out, _ = cli("links", "rollback", "--backup", tmp_path / "backup", "--format", "json")
    assert (code, envelope(out, "links rollback")["result"]["extra"]) == (0, [])
