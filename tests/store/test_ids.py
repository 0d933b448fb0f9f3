"""Ids (issue 14.6): an upper-case UUID is the same id in every command -- one advisory in the
contract, never a violation, never a different answer -- and one full id in two roots is one
conversation (the newest artifacts win; stderr names the other root)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit.cli import main
from audit.store import layout
from audit.testing.builder import StoreBuilder, write_sidecar


@pytest.fixture(autouse=True)
def _no_agy_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "no-agy"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))


def _upper_home(tmp_path: Path) -> tuple[Path, str]:
    """A CLI root whose one conversation is written in upper case: file names, brain directory and
    the sidecar's cascadeId."""
    b = StoreBuilder(tmp_path / "home", seed=41)
    cli = b.root("cli")
    convo = cli.conversation(turns=2)
    up = convo.id.upper()
    conversations = cli.path / "conversations"
    for path in list(conversations.iterdir()):
        path.rename(conversations / path.name.replace(convo.id, up))
    (cli.path / "brain" / convo.id).rename(cli.path / "brain" / up)
    sidecar = conversations / f"{up}.trajectory.json"
    mtime = os.stat(sidecar).st_mtime_ns
    write_sidecar(sidecar, json.loads(sidecar.read_text()) | {"cascadeId": up}, mtime_ns=mtime)
    return b.home, convo.id


def test_an_upper_case_id_is_the_same_id_in_every_command(tmp_path, capsys):
    home, cid = _upper_home(tmp_path)
    root = home / ".gemini" / "antigravity-cli"
    sidecar = root / "conversations" / f"{cid.upper()}.trajectory.json"
    [scan] = layout.scan(layout.resolve_roots(home=home, env={}))
    assert [s.id for s in scan.sessions] == [cid] and scan.foreign == []

    for query in (cid, cid.upper(), cid[:8].upper()):
        assert main(["stores", "--home", str(home), "show", query, "--format", "json"]) == 0
        assert json.loads(capsys.readouterr().out)["result"]["id"] == cid

    assert main(["verify-contract", str(sidecar), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    [file] = doc["result"]["files"]
    assert file["valid"] is True
    assert [(f["level"], f["pointer"], f["rule"]) for f in doc["findings"]] == [
        ("warning", "/cascadeId", "sidecar/uuid/lowerCase")
    ]

    assert main(["doctor", "--home", str(home), "--format", "json"]) == 0
    health = json.loads(capsys.readouterr().out)["result"]
    assert [r["contractViolations"] for r in health["roots"]] == [0]

    assert main(["completeness", "--home", str(home)]) == 0
    assert main(["links", "check", "--home", str(home)]) == 0
    capsys.readouterr()
    out = tmp_path / "out"
    assert main(["ci", "--home", str(home), "--source", "native", "--out", str(out), "-q"]) == 0
    capsys.readouterr()
    assert [s["id"] for s in json.loads((out / "manifest.json").read_text())["sessions"]] == [cid]


def test_one_full_id_in_two_roots_is_exported_from_the_newest(tmp_path, capsys):
    b = StoreBuilder(tmp_path / "home", seed=42)
    older = b.root("cli").conversation(turns=1)
    newer = b.root("ide").conversation(older.id, turns=2)  # the builder's clock only moves forward
    cli, ide = older.root, newer.root
    assert main(["export", older.id[:8], "--home", str(b.home)]) == 0
    captured = capsys.readouterr()
    assert len(json.loads(captured.out)["steps"]) == len(newer.steps)
    assert captured.err == f"note: {older.id}: also in {cli} (artifacts older); using {ide}\n"
    assert main(["stores", "--home", str(b.home), "show", older.id.upper()]) == 0
    captured = capsys.readouterr()
    assert f"root:     {ide}\n" in captured.out
    assert captured.err == f"note: {older.id}: also in {cli} (artifacts older); using {ide}\n"
    assert main(["inspect", older.id, "--home", str(b.home), "--format", "json"]) == 0
    assert capsys.readouterr().err == f"note: {older.id}: also in {cli} (artifacts older); using {ide}\n"
