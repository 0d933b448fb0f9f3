"""The per-install surfaces: summaries, history, cache, artifacts, roots -- fingerprinted from a store,
a home, files or a sweep corpus (where the sweep copied them), compared, recorded; bad input refused."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from audit.actions.sweep import sweep
from audit.checks import schemas
from audit.checks.drift import compare, fingerprints_to_compare
from audit.checks.fingerprint import fingerprint_paths
from audit.cli import main
from audit.store import install
from audit.store.layout import Root
from audit.testing.builder import StoreBuilder
from audit.testing.summaries import COLUMNS, summary_row
from tests.actions.test_sweep import snapshot
from tests.checks.test_fingerprint import IN_STORES
from tests.fake_agy import agy_on_path

NEW = ("summaries", "history", "cache", "artifacts", "roots")
HISTORY = ("\tobject", "conversationId\tstring", "display\tstring", "timestamp\tnumber", "type\tstring", "workspace\tstring")
ARTIFACTS = (
    "\tobject",
    "artifactType\tstring",
    "requestFeedback\tboolean",
    "summary\tstring",
    "updatedAt\tstring",
    "userFacing\tboolean",
)
CACHE = (
    "conversation_metadata.json\tobject",
    "conversation_metadata.json.conversations\tobject",
    "conversation_metadata.json.conversations.*\tobject",
    "conversation_metadata.json.conversations.*.summary\tobject",
    "conversation_metadata.json.conversations.*.summary.WorkspaceURIs\tarray",
    "conversation_metadata.json.conversations.*.summary.WorkspaceURIs.[]\tstring",
    "default_project_id.txt\ttext",
    "last_conversations.json\tobject",
    "last_conversations.json.*\tstring",
    "onboarding.json\tobject",
    "onboarding.json.completed\tboolean",
    "projects.json\tarray",
    "settings.json\tobject",
)
ROOTS = (
    "antigravity\troot",
    "antigravity-cli\troot",
    "antigravity-cli/cache/default_project_id.txt\tfile",
    "antigravity-cli/cache/last_conversations.json\tfile",
    "antigravity-cli/cache/onboarding.json\tfile",
    "antigravity-cli/cache/projects.json\tfile",
    "antigravity-cli/cache/settings.json\tfile",
    "antigravity-cli/conversation_summaries.db\tfile",
    "antigravity-cli/history.jsonl\tfile",
    "antigravity/cache/conversation_metadata.json\tfile",
    "antigravity/conversation_summaries.db\tfile",
    "antigravity/history.jsonl\tfile",
)


def build(home: Path, seed: int = 21) -> StoreBuilder:
    b = StoreBuilder(home, seed=seed)
    cli = b.root("cli")
    first = cli.conversation(turns=2)
    parent, children = cli.family(children=1)
    cli.install_files([first, parent, *children], cli=True)
    ide = b.root("ide")
    ide.install_files([ide.conversation(turns=1)])
    return b


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("surfaces") / "home"
    build(home)
    return home


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, home) -> Path:
    out = tmp_path_factory.mktemp("swept") / "corpus"
    roots = [
        Root(home / ".gemini" / name, surface, True) for name, surface in (("antigravity", "ide"), ("antigravity-cli", "cli"))
    ]
    assert sweep(roots, out, source="native", env={}).complete
    return out


def lines(paths, surface: str) -> tuple[str, ...]:
    return fingerprint_paths(paths, [surface]).fingerprints[surface].lines


def test_every_surface_of_a_home_keys_and_types_never_values(home):
    result = fingerprint_paths([home])
    assert set(result.fingerprints) == set(IN_STORES) and result.problems == [] and result.skipped == []
    got = {s: result.fingerprints[s].lines for s in NEW}
    assert (got["history"], got["cache"], got["artifacts"], got["roots"]) == (HISTORY, CACHE, ARTIFACTS, ROOTS)
    summaries = got["summaries"]
    assert [line for line in summaries if line.startswith("table:")] == sorted(
        ["table:conversation_summaries\ttable"] + [line for line in summaries if line.startswith("table:conversation_summaries.")]
    )
    assert {
        line.split("\t")[0].removeprefix("table:conversation_summaries.") for line in summaries if line.startswith("table:c")
    } == {
        "table:conversation_summaries",
        *COLUMNS,
    }
    assert {
        "user_version\t0",
        "table:conversation_summaries.conversation_id\tTEXT not-null pk=1",
        "table:conversation_summaries.workspace_uris\tTEXT not-null default='[]'",
        "rows:conversation_summaries.step_count\tinteger",
        "rows:conversation_summaries.parent_conversation_id\tnull|text",  # the child names its parent
        "rows:conversation_summaries.project_id\tnull",
        "conversation_summaries.workspace_uris\tarray",
        "conversation_summaries.workspace_uris.[]\tstring",
    } <= set(summaries)
    assert len(summaries) == 1 + (1 + len(COLUMNS)) + len(COLUMNS) + 2  # user_version, schema, storage classes, JSON
    text = "\n".join(line for s in NEW for line in got[s])
    assert "file:///w" not in text and "Conversation" not in text and "/w" not in text.replace("/cache", "")


def test_the_sweep_copies_the_per_install_files_and_the_corpus_gives_the_same_lines(home, corpus):
    manifest = json.loads((corpus / "manifest.json").read_text())
    assert schemas.load("manifest").check(manifest) == []
    roots = {r["name"]: sorted(r["files"]) for r in manifest["roots"]}
    assert roots == {
        "antigravity": [
            "native/ide/install/antigravity/cache/conversation_metadata.json",
            "native/ide/install/antigravity/conversation_summaries.db",
            "native/ide/install/antigravity/history.jsonl",
        ],
        "antigravity-cli": [
            f"native/cli/install/antigravity-cli/{rel}"
            for rel in (
                "cache/default_project_id.txt",
                "cache/last_conversations.json",
                "cache/onboarding.json",
                "cache/projects.json",
                "cache/settings.json",
                "conversation_summaries.db",
                "history.jsonl",
            )
        ],
    }
    live = home / ".gemini" / "antigravity-cli"
    assert (corpus / roots["antigravity-cli"][-1]).read_bytes() == (live / "history.jsonl").read_bytes()
    copy = corpus / "native/cli/install/antigravity-cli/conversation_summaries.db"
    assert copy.read_bytes()[18:20] == b"\x01\x01"  # a standalone rollback-journal image (the backup API)
    with sqlite3.connect(f"file:{copy}?mode=ro", uri=True) as conn:
        assert conn.execute("SELECT count(*) FROM conversation_summaries").fetchone() == (3,)
    for surface in NEW:
        assert lines([corpus], surface) == lines([home], surface), surface


def test_files_given_alone_are_routed_by_name(home):
    cli = home / ".gemini" / "antigravity-cli"
    result = fingerprint_paths([cli / "history.jsonl", cli / "conversation_summaries.db"])
    assert set(result.fingerprints) == {"summaries", "history", "values"}  # values: the records' type
    assert result.fingerprints["history"].lines == HISTORY
    artifact = next(cli.glob("brain/*/task.md.metadata.json"))
    assert fingerprint_paths([artifact]).fingerprints["artifacts"].lines == ARTIFACTS
    assert set(fingerprint_paths([artifact.parent]).fingerprints) == {
        "artifacts",
        "values",
    }  # a plain directory: its metadata files


def test_blob_and_json_columns_give_wire_and_json_shapes_never_values(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=3)
    cli = b.root("cli")
    convo = cli.conversation(turns=1)
    row = summary_row(convo, "antigravity-cli")
    rows = [
        row | {"conversation_id": "a", "data": b"\x0a\x02\x10\x05\x18\x01"},  # 1 {2: 5}, 3: 1
        row | {"conversation_id": "b", "data": b"\x0a\x02hi"},  # 1 "hi": printable text, not a message
        row | {"conversation_id": "c", "data": b"\xff\xff", "workspace_uris": "file:///not-json"},
        row | {"conversation_id": "d", "data": None, "workspace_uris": '{"C:\\\\Users\\\\me": ["x"], "ok_key": 1}'},
    ]
    cli.summaries([], extra_columns=",\n  data BLOB", rows=rows)
    got = lines([cli.path], "summaries")
    assert [line for line in got if line.startswith(("conversation_summaries.", "rows:conversation_summaries.data"))] == [
        "conversation_summaries.data\tinvalid",
        "conversation_summaries.data.1\tlen",
        "conversation_summaries.data.1.2\tvarint",
        "conversation_summaries.data.3\tvarint",
        "conversation_summaries.workspace_uris\tarray|invalid|object",
        "conversation_summaries.workspace_uris.*\tarray",
        "conversation_summaries.workspace_uris.*.[]\tstring",
        "conversation_summaries.workspace_uris.[]\tstring",
        "conversation_summaries.workspace_uris.ok_key\tnumber",
        "rows:conversation_summaries.data\tblob|null",
    ]
    assert "table:conversation_summaries.data\tBLOB" in got


def test_keys_and_names_that_are_data_become_stars(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    root.conversation(turns=1)
    cache = root.path / "cache"
    cache.mkdir()
    (cache / "last_conversations.json").write_text(json.dumps({"C:\\Users\\me\\p": "x", "/home/me/p": "y", "relative": "z"}))
    (cache / "8f14e45f-ceea-467f-a0e6-2d1f8f9a1c2b.json").write_text("{}")
    (cache / "notes\tpriv.txt").write_bytes(b"\xff\xfe")
    (cache / "empty.txt").write_bytes(b"")
    assert lines([root.path], "cache") == (
        "*.json\tobject",
        "*.txt\tbinary",
        "empty.txt\tempty",
        "last_conversations.json\tobject",
        "last_conversations.json.*\tstring",
        "last_conversations.json.relative\tstring",  # an identifier is a key name, wherever it comes from
    )
    assert lines([root.path], "roots") == (
        "antigravity-cli\troot",
        "antigravity-cli/cache/*.json\tfile",
        "antigravity-cli/cache/*.txt\tfile",
        "antigravity-cli/cache/empty.txt\tfile",
        "antigravity-cli/cache/last_conversations.json\tfile",
    )


def test_a_renamed_history_key_and_a_new_cache_file_are_drift_against_a_recorded_baseline(tmp_path, corpus, capsys, monkeypatch):
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.1.0")  # it confirms the name recorded below
    fp, compat = tmp_path / "fp", tmp_path / "COMPAT.md"
    assert main(["record", str(corpus), "--name", "agy-9.1.0", "--baseline-dir", str(fp), "--compat-file", str(compat)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in (fp / "agy-9.1.0").iterdir()) == sorted(["baseline.json", *(f"{s}.tsv" for s in IN_STORES)])
    home = tmp_path / "home"
    build(home)
    cli = home / ".gemini" / "antigravity-cli"
    for history in home.glob(".gemini/*/history.jsonl"):
        history.write_text(history.read_text().replace('"conversationId"', '"cascadeId"'))
    (cli / "cache" / "trust.json").write_text('{"trusted": []}\n')
    out = tmp_path / "later"
    roots = [Root(home / ".gemini" / n, s, True) for n, s in (("antigravity", "ide"), ("antigravity-cli", "cli"))]
    assert sweep(roots, out, source="native", env={}).complete
    from audit.checks import baselines

    result = compare(baselines.load(fp / "agy-9.1.0"), fingerprints_to_compare([out]))
    changes = {r.surface: [(c.path, c.kind) for c in r.changes] for r in result.surfaces if r.changes}
    assert changes == {
        "history": [("cascadeId", "renamed")],  # conversationId -> cascadeId, the same type at the same place
        "cache": [("trust.json", "added"), ("trust.json.trusted", "added")],
        "roots": [("antigravity-cli/cache/trust.json", "added")],
    }
    assert [c.was for r in result.surfaces for c in r.changes if c.kind == "renamed"] == ["conversationId"]
    assert result.fails("breaking")  # a renamed key is breaking


# ----------------------------------------------------------------------------- bad input


def test_unreadable_per_install_files_are_named_and_fail_fingerprint_with_exit_2(tmp_path, capsys):
    root = StoreBuilder(tmp_path / "home", seed=5).root("cli")
    convo = root.conversation(turns=1)
    root.install_files([convo], cli=True)
    (root.path / "conversation_summaries.db").write_bytes(b"not a database at all" * 100)
    (root.path / "cache" / "settings.json").write_text('{"a": 1,')
    artifact = next(root.path.glob("brain/*/task.md.metadata.json"))
    artifact.write_text("{")
    assert main(["fingerprint", str(root.path)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"agy-audit: warning: {root.path / 'conversation_summaries.db'}: not an SQLite database (bad header)",
        f"agy-audit: warning: {root.path / 'cache' / 'settings.json'}: invalid JSON at line 1 column 9: Expecting property name enclosed in double quotes",
        f"agy-audit: warning: {artifact}: invalid JSON at line 1 column 2: Expecting property name enclosed in double quotes",
        "agy-audit: 3 input(s) unreadable; the fingerprints above leave them out",
    ]
    assert [row.split()[0] for row in captured.out.splitlines()[1:]] == [
        s for s in IN_STORES if s not in ("summaries", "artifacts")
    ]  # the rest is still fingerprinted; the cache's other files too
    before = snapshot(root.path.parent.parent)
    out = tmp_path / "corpus"
    assert (
        main(["sweep", "--root", str(root.path), "--source", "native", "--out", str(out), "--keep-going", "--format", "json"])
        == 1
    )
    manifest = json.loads(capsys.readouterr().out)["result"]["manifest"]
    assert [(f["id"], f["stage"], f["message"]) for f in manifest["failures"]] == [
        (None, "install", f"{root.path / 'conversation_summaries.db'}: not an SQLite database (bad header)")
    ]
    assert manifest["roots"][0]["files"] == {} and not (out / "native" / "cli" / "install").exists()  # all or none
    assert len(manifest["sessions"]) == 1 and not manifest["complete"]
    assert snapshot(root.path.parent.parent) == before  # the store is only read


def test_a_locked_summaries_database_is_named_promptly(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=6).root("cli")
    root.install_files([root.conversation(turns=1)], cli=True)
    db = root.path / "conversation_summaries.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('PRAGMA locking_mode=exclusive'); c.execute('BEGIN EXCLUSIVE')\n"
            "c.execute('UPDATE conversation_summaries SET killed = killed')\n"
            "print('locked', flush=True); time.sleep(60)\n",
            str(db),
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == b"locked\n"
        result = fingerprint_paths([root.path], ["summaries"])
        assert result.not_computed == {"summaries": "no readable conversation_summaries.db"}
        [problem] = result.problems
        assert problem.startswith(f"{db}: database is locked")
        swept = sweep([Root(root.path, "cli", True)], tmp_path / "corpus", source="native", env={})
        assert [(f.stage, f.message) for f in swept.failures] == [
            ("install", f"{db}: cannot copy the database (database is locked)")
        ]
        assert swept.sessions == []  # without keep-going the first failure stops the sweep
    finally:
        holder.kill()
        holder.wait()


def test_a_fifo_or_a_symbolic_link_is_never_opened_and_a_torn_line_is_skipped(tmp_path, capsys):
    root = StoreBuilder(tmp_path / "home", seed=7).root("cli")
    root.install_files([root.conversation(turns=1)], cli=True)
    history = root.path / "history.jsonl"
    history.write_bytes(history.read_bytes() + b'{"conversationId": "x", "tor')
    result = fingerprint_paths([root.path], ["history"])
    assert result.problems == [] and result.fingerprints["history"].lines == HISTORY
    assert result.skipped == [
        f"{history}:2: invalid JSON at line 1 column 25: Unterminated string starting at (the last line, not terminated: torn)"
    ]
    secret = tmp_path / "elsewhere.jsonl"
    secret.write_text('{"private_key": 1}\n')
    history.unlink()
    history.symlink_to(secret)
    os.mkfifo(root.path / "cache" / "onboarding.json.fifo")
    (root.path / "cache" / "onboarding.json").unlink()
    os.mkfifo(root.path / "cache" / "onboarding.json")
    result = fingerprint_paths([root.path])
    assert "history" not in result.fingerprints and result.problems == []
    assert set(result.skipped) >= {
        f"{history}: symbolic link (not followed)",
        f"{root.path / 'cache' / 'onboarding.json'}: not a regular file",
        f"{root.path / 'cache' / 'onboarding.json.fifo'}: not a regular file",
    }
    assert not any("onboarding" in line or "history" in line for line in result.fingerprints["roots"].lines)
    out = tmp_path / "corpus"
    assert main(["sweep", "--root", str(root.path), "--source", "native", "--out", str(out), "--format", "json"]) == 0
    manifest = json.loads(capsys.readouterr().out)["result"]["manifest"]
    assert manifest["complete"] and {s["reason"] for s in manifest["skipped"]} >= {
        "symbolic link (not followed)",
        "not a regular file",
    }
    assert not any(name.endswith(("history.jsonl", "onboarding.json")) for name in manifest["roots"][0]["files"])
    # given by name, a FIFO is refused without blocking: exit 2, naming it
    assert main(["fingerprint", "--surface", "cache", str(root.path / "cache" / "onboarding.json")]) == 2
    assert capsys.readouterr().err == f"agy-audit: {root.path / 'cache' / 'onboarding.json'}: not a file or directory\n"


def test_a_file_over_the_size_limit_is_refused_naming_it(tmp_path, monkeypatch):
    root = StoreBuilder(tmp_path / "home", seed=8).root("cli")
    root.install_files([root.conversation(turns=1)], cli=True)
    monkeypatch.setattr(install, "MAX_DOCUMENT_BYTES", 64)
    result = fingerprint_paths([root.path], ["history", "cache"])
    assert result.problems == [f"{root.path / 'history.jsonl'}: larger than 64 bytes"]
    assert "history" not in result.fingerprints and "cache" in result.fingerprints


def test_two_roots_of_the_same_name_sweep_the_first_ones_files(tmp_path, capsys):
    first = build(tmp_path / "a").roots["antigravity-cli"].path
    second = build(tmp_path / "b", seed=22).roots["antigravity-cli"].path
    out = tmp_path / "corpus"
    assert (
        main(["sweep", "--root", str(first), "--root", str(second), "--source", "native", "--out", str(out), "--format", "json"])
        == 0
    )
    manifest = json.loads(capsys.readouterr().out)["result"]["manifest"]
    assert [(r["name"], len(r["files"])) for r in manifest["roots"]] == [("antigravity-cli", 7), ("antigravity-cli", 0)]
    reason = f"per-install files of a root named antigravity-cli already swept from {first}"
    assert sorted(s["path"] for s in manifest["skipped"] if s["reason"] == reason) == sorted(
        str(c.path) for c in install.swept_files(second)
    )
    assert schemas.load("manifest").check(manifest) == []


def test_databases_that_differ_make_one_union_and_a_definition_stays_whole(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=9)
    cli, ide = b.root("cli"), b.root("ide")
    row = summary_row(cli.conversation(turns=1), "antigravity-cli")
    cli.summaries([], extra_columns=",\n  note TEXT DEFAULT 'a|b'", rows=[row])
    ide.summaries([], rows=[row | {"status": "IDLE"}])  # the same column holding text in one database
    got = lines([b.home], "summaries")
    assert "table:conversation_summaries.note\tTEXT default='a|b'" in got  # one definition, not a union of two
    assert "rows:conversation_summaries.note\ttext" in got
    assert "rows:conversation_summaries.status\tinteger|text" in got


def test_history_types_and_artifact_types_feed_the_values_surface(tmp_path):
    home = tmp_path / "home"
    build(home)
    got = [line for line in lines([home], "values") if line.startswith(("history:", "artifacts:"))]
    assert got == ["artifacts:artifactType\tARTIFACT_TYPE_OTHER", "history:type\tchat"]  # a lower-case identifier is kept
    for history in home.glob(".gemini/*/history.jsonl"):
        history.write_text(history.read_text().replace('"type": "chat"', '"type": "AGENT_RUN"', 1))
    artifact = next(home.glob(".gemini/antigravity-cli/brain/*/task.md.metadata.json"))
    artifact.write_text(artifact.read_text().replace("ARTIFACT_TYPE_OTHER", "ARTIFACT_TYPE_WALKTHROUGH"))
    result = fingerprint_paths([home], ["values"])  # read for the values surface alone too
    assert set(result.fingerprints) == {"values"}
    assert [line for line in result.fingerprints["values"].lines if line.startswith(("history:", "artifacts:"))] == [
        "artifacts:artifactType\tARTIFACT_TYPE_OTHER|ARTIFACT_TYPE_WALKTHROUGH",
        "history:type\tAGENT_RUN|chat",
    ]
