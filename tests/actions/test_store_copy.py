"""A private copy of a home's stores (``audit.actions.store_copy``): only read from, every time kept,
a ``.db`` as one consistent image, what cannot be copied listed."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from audit.actions.store_copy import copy_stores, remove_tree
from audit.errors import NothingToCheck
from audit.testing.builder import StoreBuilder
from tests.pipeline.test_reader_conformance import state


def test_a_db_with_its_wal_becomes_one_image_and_the_source_stays_as_it_was(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=3)
    convo = b.root("cli").conversation(turns=3, wal_steps=2)
    db = convo.paths["db"]
    assert Path(f"{db}-wal").is_file()
    before = state(tmp_path / "home")
    copied = copy_stores(tmp_path / "home", tmp_path / "copy")
    assert state(tmp_path / "home") == before
    copy = tmp_path / "copy" / ".gemini" / "antigravity-cli" / "conversations" / db.name
    assert not Path(f"{copy}-wal").exists() and not Path(f"{copy}-shm").exists()
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as source, sqlite3.connect(f"file:{copy}?mode=ro", uri=True) as image:
        assert image.execute("SELECT idx FROM steps").fetchall() == source.execute("SELECT idx FROM steps").fetchall()
    source.close()
    image.close()
    assert copied.roots == ["antigravity-cli"] and copied.skipped == []
    times = {k: v[2] for k, v in state(tmp_path / "copy").items()}
    assert times == {k: v[2] for k, v in before.items() if not k.endswith(("-wal", "-shm"))}


def test_what_cannot_be_copied_is_listed_and_a_link_inside_its_root_is_kept(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    root.conversation(turns=1)
    base = tmp_path / "home" / ".gemini" / "antigravity-cli"
    (base / "log").mkdir()
    (base / "log" / "cli-20260901_090000.log").write_text("I0901 listening\n")
    os.symlink("log/cli-20260901_090000.log", base / "cli.log")  # as agy links the current log (docs/store-format.md#roots)
    (tmp_path / "outside.txt").write_text("not the store's")
    os.symlink(tmp_path / "outside.txt", base / "absolute-link")
    os.symlink("../../outside.txt", base / "escaping-link")
    os.mkfifo(base / "a-fifo")
    (base / "conversations" / "broken.db").write_bytes(b"not sqlite at all")
    copied = copy_stores(tmp_path / "home", tmp_path / "copy")
    assert sorted(copied.skipped) == [
        (".gemini/antigravity-cli/a-fifo", "not a regular file (a FIFO, socket or device)"),
        (".gemini/antigravity-cli/absolute-link", "a symbolic link out of its store root"),
        (".gemini/antigravity-cli/escaping-link", "a symbolic link out of its store root"),
    ]
    target = tmp_path / "copy" / ".gemini" / "antigravity-cli"
    assert copied.links == 1 and os.readlink(target / "cli.log") == os.readlink(base / "cli.log")
    assert (target / "conversations" / "broken.db").read_bytes() == b"not sqlite at all"  # as a reader meets it
    assert oct((target / "conversations").stat().st_mode & 0o777) == "0o700"


def test_no_store_is_nothing_to_copy_and_a_tree_it_made_unwritable_is_removed(tmp_path):
    (tmp_path / "home" / ".gemini").mkdir(parents=True)
    with pytest.raises(NothingToCheck, match="no Antigravity store"):
        copy_stores(tmp_path / "home", tmp_path / "copy")
    locked = tmp_path / "left" / "a" / "b"
    locked.mkdir(parents=True)
    (locked / "f").write_text("x")
    os.chmod(locked, 0o500)
    os.chmod(locked.parent, 0o500)
    remove_tree(tmp_path / "left")
    assert not (tmp_path / "left").exists()
    remove_tree(tmp_path / "left")  # nothing there: fine
