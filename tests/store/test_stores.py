import json
import os
from pathlib import Path

import pytest

from audit.cli import main
from audit.errors import InputError, UsageError
from audit.store import layout

A = "0a1b2c3d-0000-4000-8000-00000000000a"
B = "0a1b2c3d-1111-4000-8000-00000000000b"
C = "c0ffee00-2222-4000-8000-00000000000c"
D = "d0d0d0d0-3333-4000-8000-00000000000d"
E = "e0e0e0e0-4444-4000-8000-00000000000e"

T0 = 1_780_000_000 * 10**9


def touch(path: Path, *, at: int, data: bytes = b"x") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    os.utime(path, ns=(at, at))
    return path


def make_home(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    cli = home / ".gemini" / "antigravity-cli"
    conv = cli / "conversations"
    # A: db + wal(non-empty, newer than sidecar) -> stale
    touch(conv / f"{A}.db", at=T0)
    touch(conv / f"{A}.db-wal", at=T0 + 20 * 10**9)
    touch(conv / f"{A}.db-shm", at=T0 + 30 * 10**9)  # -shm never counts for freshness
    touch(conv / f"{A}.trajectory.json", at=T0 + 10 * 10**9)
    # B: db + sidecar newer -> fresh; empty wal and journal are ignored
    touch(conv / f"{B}.db", at=T0)
    touch(conv / f"{B}.db-wal", at=T0 + 50 * 10**9, data=b"")
    touch(conv / f"{B}.db-journal", at=T0 + 50 * 10**9, data=b"")
    touch(conv / f"{B}.trajectory.json", at=T0 + 1)
    # C: legacy .pb and .db both exist (db is the source); non-empty journal newer -> stale
    touch(conv / f"{C}.pb", at=T0)
    touch(conv / f"{C}.db", at=T0)
    touch(conv / f"{C}.db-journal", at=T0 + 9 * 10**9)
    touch(conv / f"{C}.trajectory.json", at=T0 + 5 * 10**9)
    # D: legacy .pb only, sidecar missing; upper-case file name
    touch(conv / f"{D.upper()}.pb", at=T0 + 100 * 10**9)
    # foreign names
    touch(conv / "notes.txt", at=T0)
    touch(conv / "not-a-uuid.db", at=T0)
    (conv / f"{E}.trajectory.json").symlink_to(conv / f"{B}.trajectory.json")
    # implicit
    touch(cli / "implicit" / f"{E}.pb", at=T0 + 200 * 10**9)
    touch(cli / "implicit" / "junk.pb", at=T0)
    # brain for A with every kind of file
    brain = cli / "brain" / A
    logs = brain / ".system_generated" / "logs"
    touch(logs / "transcript.jsonl", at=T0)
    touch(logs / "transcript_full.jsonl", at=T0)
    touch(logs / "chunks" / "transcript" / "00000001.jsonl", at=T0)
    touch(brain / ".system_generated" / "steps" / "3" / "output.txt", at=T0)
    touch(brain / ".system_generated" / "messages" / "cursor.json", at=T0)
    touch(brain / "task.md", at=T0)
    touch(brain / "task.md.metadata.json", at=T0)
    touch(cli / "brain" / "scratch-notes" / "x.txt", at=T0)
    # other roots
    touch(home / ".gemini" / "antigravity" / "conversations" / f"{C}.db", at=T0 + 300 * 10**9)
    touch(home / ".gemini" / "antigravity-acp" / "brain" / D / ".system_generated" / "logs" / "transcript.jsonl", at=T0)
    touch(home / ".gemini" / "antigravity-nightly" / "conversations" / "f0f0f0f0-5555-4000-8000-00000000000f.db", at=T0)
    (home / ".gemini" / "antigravity-ide").mkdir()  # empty: not a store
    touch(home / ".gemini" / "antigravity-backup" / "conversations" / f"{A}.db", at=T0)
    touch(home / ".gemini" / "antigravity-browser-profile" / "brain" / "x", at=T0)
    return home


def test_discovery_products_and_non_stores(tmp_path):
    home = make_home(tmp_path)
    roots = layout.resolve_roots(home=home, env={})
    assert [(r.path.name, r.product, r.explicit) for r in roots] == [
        ("antigravity", "ide", False),
        ("antigravity-acp", "acp", False),
        ("antigravity-cli", "cli", False),
        ("antigravity-nightly", "unknown", False),
    ]


def test_home_defaults_to_env_home(tmp_path):
    home = make_home(tmp_path)
    assert len(layout.resolve_roots(env={"HOME": str(home)})) == 4
    assert layout.resolve_roots(env={"HOME": str(tmp_path / "nowhere")}) == []


def test_explicit_roots_and_env_pin(tmp_path):
    home = make_home(tmp_path)
    cli = home / ".gemini" / "antigravity-cli"
    pinned = layout.resolve_roots(home=home, env={"ANTIGRAVITY_CLI_ROOT": str(cli)})
    assert [(r.path, r.product, r.explicit) for r in pinned] == [(cli, "cli", True)]
    ide = home / ".gemini" / "antigravity"
    both = layout.resolve_roots(home=home, roots=[ide, cli, cli], env={"ANTIGRAVITY_CLI_ROOT": str(cli)})
    assert [r.path for r in both] == [ide, cli]
    with pytest.raises(InputError, match="store root does not exist"):
        layout.resolve_roots(roots=[tmp_path / "missing"], env={})
    with pytest.raises(InputError, match="store root does not exist"):
        layout.resolve_roots(env={"ANTIGRAVITY_CLI_ROOT": str(tmp_path / "missing")})


def test_product_from_markers_for_unnamed_root(tmp_path):
    root = tmp_path / "store"
    (root / "conversations").mkdir(parents=True)
    assert layout.product_of(root) == "unknown"
    (root / "antigravity_state.pbtxt").write_text("")
    assert layout.product_of(root) == "ide"
    (root / "cli.log").write_text("")
    assert layout.product_of(root) == "cli"


def _cli_scan(home, include_implicit=False):
    root = layout.Root(home / ".gemini" / "antigravity-cli", "cli", True)
    return layout.scan_root(root, include_implicit=include_implicit)


def test_artifacts_foreign_and_freshness(tmp_path):
    home = make_home(tmp_path)
    scan = _cli_scan(home)
    by_id = {s.id: s for s in scan.sessions}
    assert set(by_id) == {A, B, C, D}
    assert by_id[A].artifacts == ["db", "wal", "shm", "sidecar", "brain"]
    assert by_id[A].sidecar_state == "stale"
    assert by_id[B].artifacts == ["db", "wal", "journal", "sidecar"]
    assert by_id[B].sidecar_state == "fresh"
    assert by_id[C].artifacts == ["db", "journal", "legacy_pb", "sidecar"]
    assert by_id[C].source == by_id[C].db
    assert by_id[C].sidecar_state == "stale"
    assert by_id[D].artifacts == ["legacy_pb"]
    assert by_id[D].legacy_pb.name == f"{D.upper()}.pb"
    assert by_id[D].sidecar_state == "missing"
    assert {k: [p.name for p in v] for k, v in by_id[A].brain_files.items()} == {
        "transcript": ["transcript.jsonl"],
        "transcript_full": ["transcript_full.jsonl"],
        "chunk": ["00000001.jsonl"],
        "step_output": ["output.txt"],
        "message": ["cursor.json"],
        "artifact": ["task.md"],
        "artifact_metadata": ["task.md.metadata.json"],
    }
    foreign = sorted((f.path.name, f.reason) for f in scan.foreign)
    assert foreign == [
        (f"{E}.trajectory.json", "symbolic link (not followed)"),
        ("junk.pb", "not an implicit <uuid>.pb file"),
        ("not-a-uuid.db", "name is not <uuid>.<known extension>"),
        ("notes.txt", "name is not <uuid>.<known extension>"),
        ("scratch-notes", "not a brain/<uuid>/ directory"),
    ]
    assert scan.counts() == {
        "db": 3,
        "wal": 2,
        "shm": 1,
        "journal": 2,
        "legacy_pb": 2,
        "implicit_pb": 0,
        "sidecar": 3,
        "brain": 1,
    }
    assert scan.sidecar_states() == {"fresh": 1, "stale": 2, "missing": 1}
    # newest first
    assert [s.id for s in scan.sessions][0] == D


def test_brain_files_never_enter_links_or_special_files(tmp_path):
    brain = tmp_path / "home" / ".gemini" / "antigravity-cli" / "brain" / A
    logs = brain / ".system_generated" / "logs"
    touch(logs / "transcript.jsonl", at=T0)
    touch(brain / "b.md", at=T0 + 5)
    touch(brain / "a" / "z.md", at=T0 + 7)
    os.mkfifo(brain / "pipe.md")  # reading it would block forever
    (brain / "linked").symlink_to(tmp_path)
    locked = brain / ".system_generated" / "steps"
    locked.mkdir()
    (locked / "1").mkdir()
    os.mkfifo(locked / "1" / "output.txt")
    scan = _cli_scan(tmp_path / "home")
    (session,) = scan.sessions
    assert {kind: [str(p.relative_to(brain)) for p in paths] for kind, paths in session.brain_files.items()} == {
        "transcript": [".system_generated/logs/transcript.jsonl"],
        "other": ["a/z.md"],
        "artifact": ["b.md"],
    }
    assert session.mtimes_ns["brain"] == T0 + 7
    assert sorted((str(f.path.relative_to(brain)), f.reason) for f in scan.foreign) == [
        (".system_generated/steps/1/output.txt", "not a regular file"),
        ("linked", "symbolic link (not followed)"),
        ("pipe.md", "not a regular file"),
    ]


def test_scan_without_brain_files_walks_no_brain(tmp_path):
    home = make_home(tmp_path)
    brain = home / ".gemini" / "antigravity-cli" / "brain" / A
    (brain / "linked").symlink_to(tmp_path)  # reported by the walk, which brain_files=False leaves out
    root = layout.Root(home / ".gemini" / "antigravity-cli", "cli", True)
    full, lean = layout.scan_root(root), layout.scan_root(root, brain_files=False)
    assert [(s.id, s.db, s.sidecar, s.brain) for s in sorted(lean.sessions, key=lambda s: s.id)] == [
        (s.id, s.db, s.sidecar, s.brain) for s in sorted(full.sessions, key=lambda s: s.id)
    ]
    (session,) = [s for s in lean.sessions if s.id == A]
    assert session.brain == brain and session.brain_files == {} and session.mtimes_ns["brain"] == brain.lstat().st_mtime_ns
    assert [f for f in full.foreign if f not in lean.foreign] == [
        layout.Foreign(brain / "linked", "symbolic link (not followed)")
    ]


def test_implicit_only_with_flag(tmp_path):
    home = make_home(tmp_path)
    scan = _cli_scan(home, include_implicit=True)
    implicit = [s for s in scan.sessions if s.implicit_pb]
    assert [s.id for s in implicit] == [E]
    assert implicit[0].sidecar_state is None


def test_freshness_equal_mtime_is_fresh(tmp_path):
    conv = tmp_path / "r" / "conversations"
    touch(conv / f"{A}.db", at=T0)
    touch(conv / f"{A}.trajectory.json", at=T0)
    [session] = layout.scan_root(layout.Root(tmp_path / "r", "cli", True)).sessions
    assert session.sidecar_state == "fresh"


def test_find_session_prefix_rules(tmp_path):
    home = make_home(tmp_path)
    scans = layout.scan(layout.resolve_roots(home=home, env={}))
    assert layout.find_session(scans, B[:8].upper() + B[8:13]).id == B
    with pytest.raises(UsageError, match="at least 8 characters"):
        layout.find_session(scans, "0a1b2c3")
    with pytest.raises(UsageError, match="ambiguous id prefix; candidates: " + A):
        layout.find_session(scans, "0a1b2c3d")
    located = layout.locate_session(scans, C.upper())  # one full id in the IDE and the CLI root: not ambiguous
    ide, cli = home / ".gemini" / "antigravity", home / ".gemini" / "antigravity-cli"
    assert (located.session.root, [s.root for s in located.elsewhere]) == (ide, [cli])  # the IDE's .db is newest
    assert located.notes() == [f"{C}: also in {cli} (artifacts older); using {ide}"]
    assert layout.find_session(scans, C[:8]).root == ide
    with pytest.raises(InputError, match="no session matches"):
        layout.find_session(scans, "ffffffff")
    with pytest.raises(UsageError):
        layout.find_session(scans, "../../etc/passwd")


def test_cli_stores_json_shape(tmp_path, capsys):
    home = make_home(tmp_path)
    assert main(["stores", "--home", str(home), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["result"]
    cli = next(r for r in doc["roots"] if r["product"] == "cli")
    assert cli["sessions"] == 4
    assert cli["sidecars"] == {"fresh": 1, "stale": 2, "missing": 1}
    assert cli["explicit"] is False
    assert main(["stores", "--home", str(home), "--sessions", "--format", "json"]) == 0
    sessions = json.loads(capsys.readouterr().out)["result"]["sessions"]
    assert sessions[0]["id"] == C and sessions[0]["product"] == "ide"  # newest first, across roots
    first = sessions[0]
    assert set(first) == {"id", "root", "product", "artifacts", "newestMtime", "sidecar"}
    assert first["newestMtime"].endswith("Z")


def test_cli_stores_show_options_after_command(tmp_path, capsys):
    home = make_home(tmp_path)
    root = home / ".gemini" / "antigravity-cli"
    assert main(["stores", "show", A, "--root", str(root), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["result"]
    assert doc["id"] == A and doc["sidecar"] == "stale"
    kinds = [p["kind"] for p in doc["paths"]]
    assert kinds[:5] == ["db", "wal", "shm", "sidecar", "brain"]
    assert "brain/transcript" in kinds
    assert main(["stores", "--home", str(home), "show", B[:8]]) == 2  # B's prefix is shared with A
    assert "ambiguous id prefix" in capsys.readouterr().err
    assert main(["stores", "--home", str(home), "show", C, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    ide, cli = home / ".gemini" / "antigravity", home / ".gemini" / "antigravity-cli"
    assert json.loads(out)["result"]["root"] == str(ide)
    assert err == f"note: {C}: also in {cli} (artifacts older); using {ide}\n"


def test_cli_exit_codes(tmp_path, capsys):
    assert main(["stores", "--home", str(tmp_path)]) == 3
    assert "no Antigravity store found" in capsys.readouterr().err
    assert main(["stores", "--root", str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"agy-audit: {tmp_path / 'nope'}: store root does not exist"
    with pytest.raises(SystemExit) as info:
        main(["stores", "--format", "xml"])
    assert info.value.code == 2


def _real_layout_home(tmp_path):
    """A home with the layout of real installs: an ``antigravity-ide`` live store whose session has
    the IDE's brain files and a ``brain_backup/`` copy, and per-install files in both roots."""
    from audit.testing.builder import StoreBuilder

    b = StoreBuilder(tmp_path / "home", seed=3)
    cli = b.root("cli")
    c1 = cli.conversation(turns=2)
    cli.install_files([c1], cli=True)
    ide = b.root("ide", name="antigravity-ide")
    c2 = ide.conversation(turns=2)
    ide.ide_brain(c2)
    ide.backup(c2)
    ide.install_files([c2])
    return b.home, c1, c2


def test_real_layout_is_recognised_and_nothing_is_foreign(tmp_path, capsys):
    home, c1, c2 = _real_layout_home(tmp_path)
    roots = layout.resolve_roots(home=home, env={})
    assert [(r.path.name, r.product) for r in roots] == [("antigravity-cli", "cli"), ("antigravity-ide", "ide")]
    cli_scan, ide_scan = layout.scan(roots)
    assert cli_scan.foreign == [] and ide_scan.foreign == []
    assert cli_scan.install_counts() == {
        "annotation": 1,
        "cache": 5,
        "cli_log": 1,
        "history": 1,
        "hub_index": 1,
        "log": 1,
        "state": 1,
        "summaries": 1,
    }
    [link] = [f for f in cli_scan.install_files if f.kind == "cli_log"]
    assert (link.path.is_symlink(), link.link) == (True, "log/cli-20260901_090000.log")
    assert ide_scan.install_counts() == {"annotation": 1, "cache": 1, "history": 1, "hub_index": 1, "state": 1, "summaries": 1}
    assert [(s.id, s.product) for s in ide_scan.sessions] == [(c2.id, "ide")]  # the backup is no second session
    assert [(b.id, b.path.parent.name) for b in ide_scan.backups] == [(c2.id, "brain_backup")]
    [session] = ide_scan.sessions
    brain = session.brain
    assert {
        k: sorted(str(p.relative_to(brain)) for p in v)
        for k, v in session.brain_files.items()
        if k not in ("transcript", "transcript_full", "message", "artifact", "artifact_metadata")
    } == {
        "agent": [".agents/agents/reviewer/agent.json"],
        "artifact_revision": ["task.md.resolved", "task.md.resolved.0"],
        "browser": [next(str(p.relative_to(brain)) for p in (brain / "browser").iterdir())],
        "message_undelivered": [
            next(str(p.relative_to(brain)) for p in (brain / ".system_generated/messages/undelivered").iterdir())
        ],
        "step_content": sorted(str(p.relative_to(brain)) for p in brain.glob(".system_generated/steps/*/content.md")),
        "task": [next(str(p.relative_to(brain)) for p in (brain / "task-1/.system_generated/messages").iterdir())],
    }
    assert session.brain_files["step_content"]  # content.md where the CLI has output.txt
    assert main(["stores", "--home", str(home), "show", c2.id, "--format", "json"]) == 0
    kinds = [p["kind"] for p in json.loads(capsys.readouterr().out)["result"]["paths"]]
    assert kinds[-2:] == ["annotation", "backup"] and "brain/step_content" in kinds and "brain/artifact_revision" in kinds
    assert main(["stores", "--home", str(home), "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)["result"]
    ide_json = doc["roots"][1]
    assert ide_json["backups"] == [{"id": c2.id, "path": str(home / ".gemini" / "antigravity-ide" / "brain_backup" / c2.id)}]
    assert {f["kind"] for f in doc["roots"][0]["installFiles"]} == {
        "annotation",
        "cache",
        "cli_log",
        "history",
        "hub_index",
        "log",
        "state",
        "summaries",
    }
    assert main(["stores", "--home", str(home)]) == 0
    out = capsys.readouterr().out
    assert f"backups: {home / '.gemini' / 'antigravity-ide'}: 1 copy(ies) in brain_backup/ (listed, never swept)\n" in out
    assert "foreign:" not in out


def test_an_id_only_in_brain_backup_is_named_but_not_a_session(tmp_path):
    home, _, c2 = _real_layout_home(tmp_path)
    brain = home / ".gemini" / "antigravity-ide" / "brain"
    import shutil

    shutil.rmtree(brain / c2.id)
    for path in (brain.parent / "conversations").iterdir():
        path.unlink()
    scans = layout.scan(layout.resolve_roots(home=home, env={}))
    with pytest.raises(InputError, match=r"no session matches this id \(only a backup copy: .*brain_backup/" + c2.id):
        layout.find_session(scans, c2.id)


def test_real_layout_is_swept_once_and_passes_ci(tmp_path, capsys):
    from audit.actions.sweep import SKIP_BACKUP

    home, c1, c2 = _real_layout_home(tmp_path)
    out = tmp_path / "out"
    assert main(["ci", "--home", str(home), "--source", "native", "--out", str(out), "--format", "json"]) == 0
    capsys.readouterr()
    manifest = json.loads((out / "manifest.json").read_text())
    assert sorted(s["id"] for s in manifest["sessions"]) == sorted([c1.id, c2.id])
    assert [s["reason"] for s in manifest["skipped"]] == [SKIP_BACKUP]
    copied = out / "native" / "ide" / "brain" / c2.id
    steps = list(copied.glob(".system_generated/steps/*"))
    assert steps and sorted(p.name for p in copied.glob(".system_generated/steps/*/*")) == ["content.md"] * len(steps)
    assert (copied / "task.md.resolved.0").is_file() and (copied / ".agents/agents/reviewer/agent.json").is_file()
    assert not (out / "native" / "ide" / "brain_backup").exists()
    for root in ("antigravity-cli", "antigravity-ide"):  # history.jsonl is per-install data, not a transcript
        assert main(["verify-contract", "--kind", "transcript", str(home / ".gemini" / root)]) == 0
