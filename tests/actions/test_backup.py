"""Backup, verification, rollback and the guarded repair (agy-reader k.47-54 and the runbook)."""

from __future__ import annotations

import datetime as dt
import json
import os
import stat
import uuid
from pathlib import Path

import pytest

from audit.actions import backup, link_writer, repair
from audit.checks import links
from audit.errors import FindingsError, InputError, NothingToCheck
from audit.store.sidecar import sha256_hex

MTIME = 1_700_000_000_000_000_123
P, C1, C2, BOGUS = (str(uuid.UUID(int=n)) for n in (0xF1, 0xF2, 0xF3, 0xF4))


def write(directory: Path, cid: str, body: str, mtime: int = MTIME) -> Path:
    path = directory / f"{cid}.trajectory.json"
    path.write_text(body)
    os.utime(path, ns=(mtime, mtime))
    return path


@pytest.fixture
def store(tmp_path) -> Path:
    """A family (parent invoking two children) plus a root carrying a bogus stamp."""
    d = tmp_path / "conversations"
    d.mkdir()
    invoke = {
        "type": "CORTEX_STEP_TYPE_INVOKE_SUBAGENT",
        "invokeSubagent": {"results": [{"conversationId": C1}, {"conversationId": C2}]},
    }
    write(d, P, json.dumps({"cascadeId": P, "steps": [invoke], "n": 900719925474099312345678901234567890}, indent=2) + "\n")
    write(d, C1, json.dumps({"cascadeId": C1, "flag": False, "metadata": {"parentConversationId": P}}, indent=2) + "\n")
    write(
        d, C2, json.dumps({"cascadeId": C2, "metadata": {"parentConversationId": P}, "agyReader": {"parentCascadeId": P}}) + "\n"
    )
    write(d, BOGUS, json.dumps({"cascadeId": BOGUS, "agyReader": {"parentCascadeId": C1, "other": 1}}, indent=2) + "\n")
    return d


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.lstat().st_mtime_ns) for p in sorted(directory.iterdir()) if not p.name.startswith(".")}


def name(cid: str) -> str:
    return f"{cid}.trajectory.json"


def edit(path: Path, old: str, new: str, *, keep_mtime: bool = True) -> None:
    mtime = path.stat().st_mtime_ns
    path.write_text(path.read_text().replace(old, new, 1))
    if keep_mtime:
        os.utime(path, ns=(mtime, mtime))


# ----------------------------------------------------------------------------- backup


def test_backup_copies_bytes_and_mtimes_privately_with_the_manifest_last(store, tmp_path):
    made = backup.create(store, tmp_path / "bk")
    assert stat.S_IMODE((tmp_path / "bk").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "bk" / "sidecars").stat().st_mode) == 0o700
    copies = tmp_path / "bk" / "sidecars"
    assert snapshot(copies) == snapshot(store)
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in copies.iterdir())
    manifest = json.loads((tmp_path / "bk" / "manifest.json").read_text())
    assert manifest["version"] == 1 and manifest["root"] == str(store.resolve())
    assert manifest["files"][name(P)] == {
        "sha256": sha256_hex((store / name(P)).read_bytes()),
        "mtimeNs": MTIME,
        "size": (store / name(P)).stat().st_size,
        "mode": stat.S_IMODE((store / name(P)).stat().st_mode),  # restored by a rollback
    }
    assert sorted(manifest["files"]) == sorted(made.files)
    assert stat.S_IMODE((tmp_path / "bk" / "manifest.json").stat().st_mode) == 0o600
    assert backup.load(tmp_path / "bk").files == made.files


def test_backup_refusals(store, tmp_path):
    (tmp_path / "exists").mkdir()
    with pytest.raises(InputError, match="already exists"):
        backup.create(store, tmp_path / "exists")
    (tmp_path / "empty").mkdir()
    with pytest.raises(NothingToCheck):
        backup.create(tmp_path / "empty", tmp_path / "bk-empty")
    (store / name(BOGUS)).rename(tmp_path / "real.json")
    (store / name(BOGUS)).symlink_to(tmp_path / "real.json")
    with pytest.raises(InputError, match="not a regular sidecar"):
        backup.create(store, tmp_path / "bk-link")
    assert not (tmp_path / "bk-link").exists()


def test_backup_notices_a_writer(store, tmp_path):
    res = links.resolve(store)
    edit(store / name(C1), "false", "true", keep_mtime=False)
    with pytest.raises(FindingsError, match="a writer holds the store"):
        backup.create(store, tmp_path / "bk", expect=res.files)
    assert not (tmp_path / "bk" / "manifest.json").exists()
    res = links.resolve(store)
    write(store, str(uuid.UUID(int=0xF9)), "{}")
    with pytest.raises(FindingsError, match="a writer holds the store"):
        backup.create(store, tmp_path / "bk2", expect=res.files)


def test_default_backup_dir_is_new_next_to_the_root_and_never_a_store(tmp_path):
    root = tmp_path / ".gemini" / "antigravity-cli"
    root.mkdir(parents=True)
    now = dt.datetime(2026, 9, 1, 12, 0, 0, tzinfo=dt.UTC)
    first = backup.default_backup_dir(root, now=now)
    assert first == root.parent / "agy-audit-links-backup-antigravity-cli-20260901T120000Z"
    first.mkdir()
    assert backup.default_backup_dir(root, now=now) == root.parent / "agy-audit-links-backup-antigravity-cli-20260901T120000Z-2"


# ----------------------------------------------------------------------------- verify


def test_verify_accepts_a_repaired_store_and_reports_changed_files(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    res = links.resolve(store, repair=True)
    link_writer.apply(res)
    v = backup.verify(tmp_path / "bk")
    assert v.ok, v.problems
    assert (v.verified, v.parent_links, v.cycles) == (4, 2, 0)
    assert v.changed == (name(C1), name(BOGUS))
    unchanged = backup.verify(tmp_path / "bk", unchanged=True)
    assert unchanged.problems == (f"{name(C1)}: bytes changed", f"{name(BOGUS)}: bytes changed")


@pytest.mark.parametrize(
    "target, old, new, problem",
    [
        (C1, '"flag": false', '"flag": 0', "payload changed outside agyReader.parentCascadeId (type-changed flag)"),
        (P, "345678901234567890", "345678901234567891", "payload changed"),  # big int +1
        (BOGUS, '"other": 1', '"other": 2', "payload changed outside agyReader.parentCascadeId (changed agyReader.other)"),
        (C2, '"parentCascadeId": "', '"parentCascadeId": "x', "invalid agyReader.parentCascadeId"),
        (C1, f'"cascadeId": "{C1}"', f'"cascadeId": "{P.upper()}"', "duplicate cascadeId"),
        (C1, f'"cascadeId": "{C1}"', '"cascadeId": "c1"', "invalid cascadeId"),
        (C1, '"flag": false', '"flag": false,', "invalid JSON"),
    ],
)
def test_verify_failures_in_content(store, tmp_path, target, old, new, problem):
    backup.create(store, tmp_path / "bk")
    edit(store / name(target), old, new)
    v = backup.verify(tmp_path / "bk")
    assert not v.ok
    assert any(problem in p for p in v.problems), v.problems


def test_verify_fails_on_a_changed_mtime(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    os.utime(store / name(C1), ns=(MTIME + 10**9, MTIME + 10**9))
    assert backup.verify(tmp_path / "bk").problems == (f"{name(C1)}: timestamp changed (mtime_ns {MTIME} -> {MTIME + 10**9})",)


def test_verify_fails_on_a_deleted_or_added_file(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    (store / name(C1)).unlink()
    extra = str(uuid.UUID(int=0xFA))
    write(store, extra, json.dumps({"cascadeId": extra}))
    problems = backup.verify(tmp_path / "bk").problems
    assert problems[0] == f"file set changed: added {name(extra)}; removed {name(C1)}"


def test_verify_fails_on_a_symlinked_sidecar(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    (store / name(C1)).rename(tmp_path / "moved.json")
    (store / name(C1)).symlink_to(tmp_path / "moved.json")
    assert f"{name(C1)}: not a regular sidecar (symbolic link or special file)" in backup.verify(tmp_path / "bk").problems


def test_verify_fails_on_a_stamp_cycle(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    edit(store / name(P), '"cascadeId"', f'"agyReader": {{"parentCascadeId": "{C2}"}}, "cascadeId"')
    v = backup.verify(tmp_path / "bk")
    assert v.cycles == 1 and v.problems == (f"parent cycle: {P} -> {C2} -> {P}",)


def test_verify_and_rollback_refuse_incomplete_and_tampered_backups(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    (tmp_path / "bk" / "manifest.json").rename(tmp_path / "manifest.json")
    for action in (backup.verify, backup.rollback):
        with pytest.raises(InputError, match="incomplete backup"):
            action(tmp_path / "bk")
    (tmp_path / "manifest.json").rename(tmp_path / "bk" / "manifest.json")
    copy = tmp_path / "bk" / "sidecars" / name(C1)
    copy.write_bytes(copy.read_bytes().replace(b"false", b"true "))
    for action in (backup.verify, backup.rollback):
        with pytest.raises(FindingsError, match="backup content changed"):
            action(tmp_path / "bk")
    copy.unlink()
    with pytest.raises(FindingsError, match="file set differs"):
        backup.verify(tmp_path / "bk")
    with pytest.raises(InputError, match="no such backup directory"):
        backup.verify(tmp_path / "nothing")


def test_a_manifest_cannot_name_a_foreign_path(store, tmp_path):
    backup.create(store, tmp_path / "bk")
    manifest = tmp_path / "bk" / "manifest.json"
    doc = json.loads(manifest.read_text())
    doc["files"]["../../etc/passwd"] = doc["files"].pop(name(C1))
    manifest.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="malformed entry '../../etc/passwd'"):
        backup.rollback(tmp_path / "bk")


# ----------------------------------------------------------------------------- rollback


def test_rollback_restores_bytes_and_mtimes_and_leaves_new_files(store, tmp_path):
    before = snapshot(store)
    backup.create(store, tmp_path / "bk")
    link_writer.apply(links.resolve(store, repair=True))
    edit(store / name(P), "345678901234567890", "0", keep_mtime=False)
    (store / name(C2)).unlink()
    extra = str(uuid.UUID(int=0xFB))
    write(store, extra, "{}")
    with pytest.raises(FindingsError, match="changed after the repair"):  # P's payload changed since
        backup.rollback(tmp_path / "bk")
    r = backup.rollback(tmp_path / "bk", force=True)
    assert r.restored == (name(P), name(C1), name(C2), name(BOGUS))
    assert (r.unchanged, r.extra) == (0, (name(extra),))
    after = snapshot(store)
    del after[name(extra)]
    assert after == before
    again = backup.rollback(tmp_path / "bk")
    assert (again.restored, again.unchanged) == ((), 4)


def test_rollback_refuses_a_symlinked_target_before_writing(store, tmp_path):
    before = snapshot(store)
    backup.create(store, tmp_path / "bk")
    link_writer.apply(links.resolve(store, repair=True))
    changed = snapshot(store)
    (store / name(P)).rename(tmp_path / "p.json")
    (store / name(P)).symlink_to(tmp_path / "p.json")
    with pytest.raises(InputError, match="not a regular file"):
        backup.rollback(tmp_path / "bk")
    assert snapshot(store)[name(C1)] == changed[name(C1)] != before[name(C1)]


# ----------------------------------------------------------------------------- the guarded repair


def test_repair_end_to_end_then_a_second_repair_changes_nothing(store, tmp_path):
    before = snapshot(store)
    result = repair.repair(store, tmp_path / "bk1")
    assert result.resolution.counts() == {
        "scanned": 4,
        "stamped": 1,
        "cleared": 1,
        "unchanged": 1,
        "unresolved": 2,
        "diagnostics": 0,
    }
    assert result.verification.ok and result.verification.changed == (name(C1), name(BOGUS))
    after = snapshot(store)
    assert after[name(C2)] == before[name(C2)] and after[name(P)] == before[name(P)]
    assert json.loads(after[name(BOGUS)][0]) == {"cascadeId": BOGUS, "agyReader": {"other": 1}}
    second = repair.repair(store, tmp_path / "bk2")
    assert (second.resolution.changes, second.backup, second.verification) == ((), None, None)
    assert snapshot(store) == after and not (tmp_path / "bk2").exists()  # nothing to change: no backup


def test_failed_verification_restores_the_backup(store, tmp_path, monkeypatch):
    before = snapshot(store)
    real_apply = link_writer.apply

    def buggy_apply(resolution):  # writes the stamps, then damages a payload
        written = real_apply(resolution)
        edit(store / name(P), "345678901234567890", "345678901234567891")
        return written

    monkeypatch.setattr(link_writer, "apply", buggy_apply)
    with pytest.raises(FindingsError, match=rf"verification failed \({name(P)}: payload changed.*restored from"):
        repair.repair(store, tmp_path / "bk")
    assert snapshot(store) == before


def test_repair_refuses_unusable_sidecars_before_any_backup(store, tmp_path):
    write(store, str(uuid.UUID(int=0xFC)), "{not json")
    before = snapshot(store)
    with pytest.raises(FindingsError, match="repair refused: 1 sidecar"):
        repair.repair(store, tmp_path / "bk")
    assert not (tmp_path / "bk").exists() and snapshot(store) == before


def test_repair_refuses_a_writer_between_resolution_and_backup(store, tmp_path, monkeypatch):
    real_create = backup.create

    def racing_create(directory, backup_dir, *, expect=None, **kwargs):
        edit(store / name(P), "345678901234567890", "1")  # a watcher refreshes a sidecar
        return real_create(directory, backup_dir, expect=expect, **kwargs)

    monkeypatch.setattr(backup, "create", racing_create)
    with pytest.raises(FindingsError, match="a writer holds the store. Stop every agy-reader watcher"):
        repair.repair(store, tmp_path / "bk")
    assert "parentCascadeId" not in (store / name(C1)).read_text()


def test_repair_stops_when_a_writer_appears_during_the_writes(store, tmp_path, monkeypatch):
    real_create = backup.create

    def create_then_race(directory, backup_dir, *, expect=None, **kwargs):
        made = real_create(directory, backup_dir, expect=expect, **kwargs)
        edit(store / name(BOGUS), '"other": 1', '"other": 3')
        return made

    monkeypatch.setattr(backup, "create", create_then_race)
    with pytest.raises(FindingsError, match=r"a writer holds the store.*links rollback --backup .*bk"):
        repair.repair(store, tmp_path / "bk")
    assert "parentCascadeId" in (store / name(C1)).read_text()  # written before the writer was noticed
    assert backup.load(tmp_path / "bk").files  # the backup is complete
