"""Parent-link resolution (agy-reader resolver cases k.14-31), the diagnostics, and the splicer."""

from __future__ import annotations

import json
import os
import string
import tempfile
import time
import uuid
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.actions import link_writer
from audit.checks import links
from audit.cli import main
from audit.errors import InputError
from audit.store.reader_block import json_equal, set_reader_key, strip_reader_key
from audit.strictjson import RawFloat, loads

MTIME = 1_700_000_000_123_456_789
PLANNER = "CORTEX_STEP_TYPE_PLANNER_RESPONSE"


def uid(n: int) -> str:
    return str(uuid.UUID(int=n))


ROOT, KID, GRANDKID, OTHER, STRANGER = (uid(n) for n in (0xA1, 0xB2, 0xC3, 0xD4, 0xE5))


# ----------------------------------------------------------------------------- sidecar helpers


def user(text: str, created: str = "2026-09-01T09:00:00.000000001Z") -> dict:
    return {"type": "CORTEX_STEP_TYPE_USER_INPUT", "metadata": {"createdAt": created}, "userInput": {"userResponse": text}}


def planner(
    response: str = "", prompts: tuple[str, ...] = (), tool: str = "invoke_subagent", execution: str | None = None
) -> dict:
    step: dict = {
        "type": PLANNER,
        "metadata": {"executionId": execution or uid(0xEEEE)},
        "plannerResponse": {"response": response},
    }
    if prompts:
        args = json.dumps({"Subagents": [{"Prompt": p} for p in prompts]})
        step["plannerResponse"]["toolCalls"] = [{"name": tool, "argumentsJson": args}]
    return step


def invoke(*children: str) -> dict:
    return {"type": "CORTEX_STEP_TYPE_INVOKE_SUBAGENT", "invokeSubagent": {"results": [{"conversationId": c} for c in children]}}


def doc(
    cid: str,
    *,
    parent: str | None = None,
    steps: list | None = None,
    agent: str | None = None,
    generator_agent: str | None = None,
    reader: object = None,
    created: str | None = None,
) -> dict:
    d: dict = {
        "trajectoryId": uid(0x7777),
        "cascadeId": cid,
        "steps": steps if steps is not None else [user("hello", created or "2026-09-01T09:00:00.000000001Z")],
    }
    d["metadata"] = {"createdAt": created or "2026-09-01T09:00:00.000000001Z"}
    if parent is not None:
        d["metadata"]["parentConversationId"] = parent
    if agent is not None:
        path = f"file:///home/u/.gemini/antigravity-cli/brain/{agent}/.agents/agents/worker.md"
        d["executorMetadatas"] = [{"cascadeConfig": {"plannerConfig": {"customizationConfig": {"agentPath": path}}}}]
    if generator_agent is not None:
        path = f"/home/u/.gemini/antigravity-cli/brain/{generator_agent}/.agents/agents/helper"
        d["generatorMetadata"] = [{"plannerConfig": {"customizationConfig": {"agentPath": path}}}]
    if reader is not None:
        d["agyReader"] = reader
    return d


def write(directory: Path, d: dict | bytes, name: str | None = None) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    data = d if isinstance(d, bytes) else (json.dumps(d, indent=2) + "\n").encode()
    path = directory / (name or f"{d['cascadeId'].lower()}.trajectory.json")
    path.write_bytes(data)
    os.utime(path, ns=(MTIME, MTIME))
    return path


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(directory.iterdir())}


def stamp_on_disk(directory: Path, cid: str) -> object:
    d = json.loads((directory / f"{cid}.trajectory.json").read_text())
    return (d.get("agyReader") or {}).get("parentCascadeId")


def kinds(res: links.Resolution) -> list[tuple[str, str]]:
    return [(d.id, d.kind) for d in res.diagnostics]


def parents(res: links.Resolution) -> dict[str, str | None]:
    return {link.id: link.parent for link in res.links}


def backfill(directory: Path) -> links.Resolution:
    res = links.resolve(directory)
    link_writer.apply(res)
    return res


def repair(directory: Path) -> links.Resolution:
    res = links.resolve(directory, repair=True)
    link_writer.apply(res)
    return res


# ----------------------------------------------------------------------------- agy-reader k.14-31


def test_agent_path_chain_resolves_to_a_tree_of_depth_two(tmp_path):  # k.14
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(KID, agent=ROOT))
    write(tmp_path, doc(GRANDKID, generator_agent=KID))
    write(tmp_path, doc(OTHER))
    res = links.resolve(tmp_path)
    assert parents(res) == {ROOT: None, KID: ROOT, GRANDKID: KID, OTHER: None}
    assert res.tree.roots == (ROOT, OTHER)
    assert res.tree.children == {ROOT: (KID,), KID: (GRANDKID,)}
    assert res.tree.depth == {ROOT: 0, KID: 1, GRANDKID: 2, OTHER: 0}
    assert res.tree.orphans == ()
    assert [e.source for e in res.links[1].evidence] == ["agentPath"]


def test_children_sorted_by_first_step_time_even_when_written_newest_first(tmp_path):  # k.15
    late, early = uid(0x11), uid(0x99)
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(early, parent=ROOT, created="2026-09-01T10:00:00.000000001Z"))
    write(tmp_path, doc(late, parent=ROOT, created="2026-09-01T11:00:00.000000001Z"))
    assert links.resolve(tmp_path).tree.children[ROOT] == (early, late)


def test_unparseable_sidecar_does_not_fail_the_corpus(tmp_path):  # k.16
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(KID, parent=ROOT))
    write(tmp_path, b'{"cascadeId": "x", ', name=f"{OTHER}.trajectory.json")
    res = backfill(tmp_path)
    assert res.counts() == {"scanned": 3, "stamped": 1, "cleared": 0, "unchanged": 0, "unresolved": 1, "diagnostics": 1}
    assert kinds(res) == [(OTHER, "unreadable-sidecar")]
    assert "invalid JSON" in res.diagnostics[0].message


def test_missing_or_empty_directory_is_safe(tmp_path):  # k.17
    for directory in (tmp_path / "absent", tmp_path):
        res = links.resolve(directory)
        assert (res.scanned, res.links, res.diagnostics, res.tree.roots) == (0, (), (), ())
        assert link_writer.apply(res) == []


def spawn_family(tmp_path: Path, tool: str = "spawn_agents") -> None:
    a, b = "Write the parser.", "Write the tests."
    write(
        tmp_path,
        doc(ROOT, steps=[user("go"), planner("spawning", (a, b), tool=tool), planner(f"started {KID} and {GRANDKID.upper()}")]),
    )
    write(tmp_path, doc(KID, steps=[user(f"  {a}\n")]))
    write(tmp_path, doc(GRANDKID, steps=[user("   "), user(b)]))


def test_modern_spawn_prompt_matching_stamps_both_children_then_nothing(tmp_path):  # k.18, k.19
    spawn_family(tmp_path)
    first = backfill(tmp_path)
    assert first.counts() == {"scanned": 3, "stamped": 2, "cleared": 0, "unchanged": 0, "unresolved": 1, "diagnostics": 0}
    assert parents(first) == {ROOT: None, KID: ROOT, GRANDKID: ROOT}
    assert stamp_on_disk(tmp_path, ROOT) is None
    before = snapshot(tmp_path)
    second = backfill(tmp_path)
    assert (second.counts()["stamped"], second.counts()["unchanged"]) == (0, 2)
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("tool", ["invoke_subagent", " Invoke_Subagent ", "spawnAgents", "spawn_agents"])
def test_invoke_tool_names_are_matched_trimmed_and_case_insensitively(tmp_path, tool):
    spawn_family(tmp_path, tool)
    assert parents(links.resolve(tmp_path))[KID] == ROOT


def test_other_tool_names_are_not_invocations(tmp_path):
    spawn_family(tmp_path, "run_command")
    assert parents(links.resolve(tmp_path)) == {ROOT: None, KID: None, GRANDKID: None}


def test_pending_prompts_are_consumed_by_the_next_planner_response(tmp_path):  # k.20
    prompt = "Same prompt."
    steps = [planner("", (prompt,)), planner(f"started {KID}"), planner(f"also {GRANDKID}")]
    write(tmp_path, doc(ROOT, steps=steps))
    write(tmp_path, doc(KID, steps=[user(prompt)]))
    write(tmp_path, doc(GRANDKID, steps=[user(prompt)]))
    assert parents(links.resolve(tmp_path)) == {ROOT: None, KID: ROOT, GRANDKID: None}


def test_prompts_expire_after_the_next_planner_response_even_naming_no_child(tmp_path):  # k.21
    prompt = "Do it."
    write(tmp_path, doc(ROOT, steps=[planner("", (prompt,)), planner("working"), planner(f"started {KID}")]))
    write(tmp_path, doc(KID, steps=[user(prompt)]))
    assert parents(links.resolve(tmp_path))[KID] is None


def test_prompt_must_match_exactly_and_not_the_parent_itself(tmp_path):
    write(tmp_path, doc(ROOT, steps=[user("Do it"), planner("", ("Do it",)), planner(f"me {ROOT}, kid {KID}")]))
    write(tmp_path, doc(KID, steps=[user("do it")]))
    assert parents(links.resolve(tmp_path)) == {ROOT: None, KID: None}


def test_native_parent_conflicting_with_invoke_results_is_a_conflict(tmp_path):  # k.22
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(OTHER, steps=[invoke(KID)]))
    write(tmp_path, doc(KID, parent=ROOT))
    res = backfill(tmp_path)
    assert kinds(res) == [(KID, "conflicting-evidence")]
    assert ROOT in res.diagnostics[0].message and OTHER in res.diagnostics[0].message
    assert stamp_on_disk(tmp_path, KID) is None
    assert KID in res.tree.roots and KID not in res.tree.children.get(ROOT, ()) + res.tree.children.get(OTHER, ())
    assert res.failing == res.diagnostics


def test_mixed_case_ids_converge(tmp_path):  # k.23
    write(tmp_path, doc(ROOT.upper(), steps=[invoke(KID.upper())]), name=f"{ROOT.upper()}.trajectory.json")
    write(tmp_path, doc(KID, parent=ROOT.upper(), agent=ROOT.upper()))
    write(tmp_path, doc(GRANDKID, agent=KID.upper(), reader={"parentCascadeId": KID.upper()}))
    res = backfill(tmp_path)
    assert parents(res) == {ROOT: None, KID: ROOT, GRANDKID: KID}
    assert res.diagnostics == ()
    assert stamp_on_disk(tmp_path, KID) == ROOT  # written lower-case
    assert stamp_on_disk(tmp_path, GRANDKID) == KID.upper()  # a correct stamp is kept byte-identical
    assert {link.id: link.action for link in res.links} == {ROOT: "none", KID: "stamp", GRANDKID: "keep"}


def test_stale_stamp_is_reported_and_kept_by_backfill(tmp_path):  # k.24
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(OTHER))
    write(tmp_path, doc(KID, parent=ROOT, reader={"parentCascadeId": OTHER}))
    before = snapshot(tmp_path)
    res = backfill(tmp_path)
    assert kinds(res) == [(KID, "stale-stamp")]
    assert f"evidence names {ROOT} (parentConversationId)" in res.diagnostics[0].message
    assert snapshot(tmp_path) == before
    assert parents(res)[KID] == OTHER


def test_unsupported_stamp_is_stale(tmp_path):
    write(tmp_path, doc(ROOT, reader={"parentCascadeId": OTHER}))
    write(tmp_path, doc(OTHER))
    res = links.resolve(tmp_path)
    assert kinds(res) == [(ROOT, "stale-stamp")]
    assert "no evidence supports it" in res.diagnostics[0].message
    assert res.failing == ()


def test_missing_parent_is_still_stamped(tmp_path):  # k.25
    write(tmp_path, doc(KID, parent=STRANGER))
    res = backfill(tmp_path)
    assert kinds(res) == [(KID, "missing-parent")]
    assert res.counts()["stamped"] == 1
    assert stamp_on_disk(tmp_path, KID) == STRANGER
    assert (res.tree.roots, res.tree.orphans, res.tree.depth) == ((), (KID,), {KID: 0})


def test_messages_never_establish_ancestry(tmp_path):  # k.26
    outbound = {"type": "CORTEX_STEP_TYPE_GENERIC", "generic": {"args": {"Message": "done", "Recipient": ROOT}}}
    inbound = {
        "type": "CORTEX_STEP_TYPE_SYSTEM_MESSAGE",
        "systemMessage": {
            "eventType": "agent_message",
            "agentMessage": {"sender": KID, "recipient": ROOT},
            "message": f"[Message] timestamp=1 sender={KID} priority=MESSAGE_PRIORITY_HIGH content=hi",
        },
    }
    write(tmp_path, doc(ROOT, steps=[user("go"), inbound, {**outbound, "generic": {"args": {"Recipient": KID}}}]))
    write(tmp_path, doc(KID, steps=[user("task"), outbound, {**inbound, "systemMessage": {"agentMessage": {"sender": ROOT}}}]))
    res = backfill(tmp_path)
    assert parents(res) == {ROOT: None, KID: None}
    assert res.counts()["stamped"] == 0


def test_child_side_native_pointer_before_parent_results_then_no_diagnostics(tmp_path):  # k.27
    write(tmp_path, doc(ROOT, steps=[user("go")]))
    write(tmp_path, doc(KID, parent=ROOT))
    assert backfill(tmp_path).counts()["stamped"] == 1
    kid_doc = json.loads((tmp_path / f"{KID}.trajectory.json").read_text())
    write(tmp_path, doc(ROOT, steps=[user("go"), invoke(KID)]))  # the watcher refreshed the parent
    write(tmp_path, {**doc(KID, parent=ROOT), "agyReader": kid_doc["agyReader"]})
    res = backfill(tmp_path)
    assert (res.diagnostics, res.counts()["stamped"], res.counts()["unchanged"]) == ((), 0, 1)


def test_native_parent_beats_inherited_agent_definition(tmp_path):  # k.28
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(KID, parent=ROOT))
    write(tmp_path, doc(GRANDKID, parent=KID, agent=ROOT))  # inherited the grandparent's agent path
    res = backfill(tmp_path)
    assert parents(res)[GRANDKID] == KID
    assert res.diagnostics == ()
    assert [e.source for e in res.links[2].evidence] == ["parentConversationId"]


def test_legacy_evidence_conflict(tmp_path):
    write(tmp_path, doc(ROOT, steps=[planner("", ("Task",)), planner(f"go {KID}")]))
    write(tmp_path, doc(OTHER))
    write(tmp_path, doc(KID, steps=[user("Task")], agent=OTHER))
    res = links.resolve(tmp_path)
    assert kinds(res) == [(KID, "conflicting-evidence")]
    assert [(e.source, e.parent) for e in res.links[1].evidence] == [("agentPath", OTHER), ("invoke_subagent", ROOT)]


@pytest.mark.parametrize("size", [1, 2, 3])
def test_cycles_are_rejected_before_any_stamp_and_a_leaf_still_stamped(tmp_path, size):  # k.29
    members = [uid(0x100 + n) for n in range(size)]
    for n, member in enumerate(members):
        write(tmp_path, doc(member, parent=members[(n + 1) % size]))
    leaf = uid(0x200)
    write(tmp_path, doc(leaf, parent=members[-1]))
    res = backfill(tmp_path)
    assert kinds(res) == sorted((m, "parent-cycle") for m in members)
    assert res.counts()["stamped"] == 1
    assert stamp_on_disk(tmp_path, leaf) == members[-1]
    assert all(stamp_on_disk(tmp_path, m) is None for m in members)
    assert all(parents(res)[m] is None for m in members)
    assert res.tree.children == {members[-1]: (leaf,)}
    expected = " -> ".join(members + [members[0]])
    assert all(expected in d.message for d in res.diagnostics)


def test_existing_cycle_unsupported_stamp_and_extra_reader_key(tmp_path):  # k.30
    coordinator, maker, worker = uid(0x301), uid(0x302), uid(0x303)
    write(tmp_path, doc(coordinator, steps=[invoke(maker, worker)], reader={"parentCascadeId": maker}))
    write(
        tmp_path,
        doc(
            maker,
            parent=coordinator,
            reader={"parentCascadeId": coordinator, "future": {"n": 900719925474099312345678901234567890}},
        ),
    )
    write(tmp_path, doc(worker, parent=coordinator, reader={"parentCascadeId": coordinator}))
    os.chmod(tmp_path / f"{worker}.trajectory.json", 0o600)
    before = snapshot(tmp_path)
    res = backfill(tmp_path)
    assert snapshot(tmp_path) == before
    assert kinds(res) == [(coordinator, "parent-cycle"), (coordinator, "stale-stamp"), (maker, "parent-cycle")]
    assert res.tree.roots == (coordinator, maker) and res.tree.children == {coordinator: (worker,)}
    fixed = repair(tmp_path)
    assert fixed.counts() == {"scanned": 3, "stamped": 0, "cleared": 1, "unchanged": 2, "unresolved": 1, "diagnostics": 0}
    after = snapshot(tmp_path)
    assert after[f"{worker}.trajectory.json"] == before[f"{worker}.trajectory.json"]
    assert after[f"{maker}.trajectory.json"] == before[f"{maker}.trajectory.json"]  # maker's stamp was right
    assert stamp_on_disk(tmp_path, coordinator) is None
    assert all(mtime == MTIME for _, mtime in after.values())
    again = repair(tmp_path)
    assert (again.counts()["stamped"], again.counts()["cleared"]) == (0, 0)
    assert snapshot(tmp_path) == after


def test_two_stamped_cycle_is_cleared_by_repair(tmp_path):
    a, b = uid(0x401), uid(0x402)
    write(tmp_path, doc(a, reader={"parentCascadeId": b, "other": True}))
    write(tmp_path, doc(b, reader={"parentCascadeId": a}))
    res = repair(tmp_path)
    assert res.counts() == {"scanned": 2, "stamped": 0, "cleared": 2, "unchanged": 0, "unresolved": 2, "diagnostics": 0}
    assert json.loads((tmp_path / f"{a}.trajectory.json").read_text())["agyReader"] == {"other": True}
    assert "agyReader" not in json.loads((tmp_path / f"{b}.trajectory.json").read_text())


def test_repair_replaces_stale_then_clears_on_conflict(tmp_path):  # k.31
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(OTHER))
    write(tmp_path, doc(KID, parent=ROOT, reader={"parentCascadeId": OTHER}))
    assert repair(tmp_path).counts()["stamped"] == 1
    assert stamp_on_disk(tmp_path, KID) == ROOT
    write(tmp_path, doc(OTHER, steps=[invoke(KID)]))
    res = repair(tmp_path)
    assert (res.counts()["cleared"], kinds(res)) == (1, [(KID, "conflicting-evidence")])
    assert stamp_on_disk(tmp_path, KID) is None


# ----------------------------------------------------------------------------- other diagnostics


def test_invalid_cascade_id_and_duplicates(tmp_path):
    write(tmp_path, doc(ROOT))
    write(tmp_path, {**doc(ROOT.upper()), "steps": [invoke(KID)]}, name=f"{OTHER}.trajectory.json")
    write(tmp_path, doc("not-a-uuid"), name=f"{STRANGER}.trajectory.json")
    write(tmp_path, {"steps": []}, name=f"{GRANDKID}.trajectory.json")
    write(tmp_path, doc(KID, parent=ROOT))
    res = links.resolve(tmp_path)
    assert kinds(res) == [(ROOT, "duplicate-cascade-id"), (GRANDKID, "invalid-cascade-id"), (STRANGER, "invalid-cascade-id")]
    assert f"{OTHER}.trajectory.json repeats the cascadeId of {ROOT}.trajectory.json" in res.diagnostics[0].message
    assert "cascadeId is 'not-a-uuid'" in res.diagnostics[2].message
    assert "cascadeId is null" in res.diagnostics[1].message
    assert parents(res) == {ROOT: None, KID: ROOT}  # the duplicate's evidence is ignored
    assert res.failing == ()


def test_sidecars_read_elsewhere_resolve_as_sidecars_read_here(tmp_path):
    from audit.store import sidecar

    write(tmp_path, doc(ROOT))
    write(tmp_path, {**doc(ROOT.upper()), "steps": [invoke(KID)]}, name=f"{OTHER}.trajectory.json")  # a duplicate
    write(tmp_path, doc("not-a-uuid"), name=f"{STRANGER}.trajectory.json")
    write(tmp_path, doc(KID, parent=ROOT, reader={"parentCascadeId": "nope"}))  # an invalid stamp
    write(tmp_path, b"{not json", name=f"{GRANDKID}.trajectory.json")  # read by nobody else: resolve reads it
    alone = links.resolve(tmp_path)
    reads = {p.name: sidecar.read(p) for p in sorted(tmp_path.iterdir())}
    assert reads[f"{GRANDKID}.trajectory.json"] is None
    known = {name: links.facts_of(r) for name, r in reads.items() if r is not None}
    for name in known:
        (tmp_path / name).write_bytes(b"[]")  # the known ones are not read again
    shared = links.resolve(tmp_path, known=known)
    assert replace(shared, files={}) == replace(alone, files={})
    assert {name: (s.size, s.mtime_ns, s.sha256) for name, s in shared.files.items()} == {
        name: (s.size, s.mtime_ns, None if name in known else s.sha256) for name, s in alone.files.items()
    }  # sidecar.read takes no hash: nothing is stamped from a resolution of known sidecars
    assert links.resolve(tmp_path) != alone
    assert [d.kind for d in alone.diagnostics] == [
        "duplicate-cascade-id",
        "invalid-parent-stamp",
        "unreadable-sidecar",
        "invalid-cascade-id",
    ]


@pytest.mark.parametrize(
    "reader, shown",
    [
        ({"parentCascadeId": "abc"}, "'abc'"),
        ({"parentCascadeId": ""}, "''"),
        ({"parentCascadeId": 7}, "number"),
        ({"parentCascadeId": None}, "null"),
        ("a string", "agyReader is string"),
    ],
)
def test_invalid_parent_stamp(tmp_path, reader, shown):
    write(tmp_path, doc(ROOT))
    write(tmp_path, doc(KID, parent=ROOT, reader=reader))
    res = links.resolve(tmp_path)
    assert kinds(res) == [(KID, "invalid-parent-stamp")]
    assert shown in res.diagnostics[0].message
    assert res.failing == res.diagnostics
    fixed = repair(tmp_path)
    on_disk = json.loads((tmp_path / f"{KID}.trajectory.json").read_text())
    if isinstance(reader, dict):
        assert fixed.counts()["stamped"] == 1 and on_disk["agyReader"] == {"parentCascadeId": ROOT}
    else:  # a non-object block is never edited
        assert fixed.counts()["stamped"] == 0 and on_disk["agyReader"] == reader


def test_invalid_stamp_without_evidence_is_cleared_by_repair_only(tmp_path):
    write(tmp_path, doc(ROOT, reader={"parentCascadeId": "nope", "keep": 1}))
    assert backfill(tmp_path).counts()["cleared"] == 0
    assert repair(tmp_path).counts()["cleared"] == 1
    assert json.loads((tmp_path / f"{ROOT}.trajectory.json").read_text())["agyReader"] == {"keep": 1}


def test_symlinked_sidecar_is_unreadable_and_never_followed(tmp_path):
    target = write(tmp_path / "elsewhere", doc(KID, parent=ROOT))
    write(tmp_path / "c", doc(ROOT))
    (tmp_path / "c" / f"{KID}.trajectory.json").symlink_to(target)
    (tmp_path / "c" / "notes.trajectory.json").write_text("{}")  # foreign name: ignored
    (tmp_path / "c" / f"{OTHER}.trajectory.json").mkdir()  # a directory: ignored
    res = links.resolve(tmp_path / "c")
    assert res.scanned == 2
    assert kinds(res) == [(KID, "unreadable-sidecar")]
    assert set(res.files) == {f"{ROOT}.trajectory.json"}


def test_apply_refuses_a_sidecar_changed_since_resolution(tmp_path):
    write(tmp_path, doc(ROOT))
    path = write(tmp_path, doc(KID, parent=ROOT))
    res = links.resolve(tmp_path)
    path.write_bytes(path.read_bytes() + b" ")
    with pytest.raises(link_writer.FindingsError, match="a writer holds the store"):
        link_writer.apply(res)


def test_writes_keep_mtime_mode_and_every_other_byte(tmp_path):
    raw = (
        '{"cascadeId": "%s", "n": 900719925474099312345678901234567890, "f": 1.50, "e": -0.0,\n'
        ' "metadata": {"parentConversationId": "%s"}, "agyReader": {"z": [1, {"k": null}]}, "tail": "\\u00e9"}'
    ) % (KID, ROOT)
    path = write(tmp_path, raw.encode(), name=f"{KID}.trajectory.json")
    path.chmod(0o640)
    res = backfill(tmp_path)
    new = path.read_bytes().decode()
    assert new == raw.replace('{"z": [1, {"k": null}]}', '{"z": [1, {"k": null}], "parentCascadeId": "%s"}' % ROOT)
    assert path.stat().st_mtime_ns == MTIME and (path.stat().st_mode & 0o777) == 0o640  # the mode is kept
    assert res.counts()["stamped"] == 1


# ----------------------------------------------------------------------------- cycles: linear time


def test_find_cycles_shapes():
    assert links.find_cycles({"a": "a"}) == [["a"]]
    assert links.find_cycles({"b": "a", "a": "b", "c": "a", "d": "x"}) == [["a", "b"]]
    assert links.find_cycles({"c": "a", "a": "b", "b": "c", "e": "d", "d": "e", "f": None}) == [["a", "b", "c"], ["d", "e"]]
    assert links.find_cycles({}) == []


def test_find_cycles_is_linear():
    n = 100_000
    chain = {str(i): str(i + 1) for i in range(n)}  # one long chain into a long cycle
    chain[str(n)] = str(n // 2)
    star = {str(i): "hub" for i in range(n)}  # many short walks into the same done node
    start = time.perf_counter()
    cycles = links.find_cycles(chain)
    assert links.find_cycles(star) == []
    assert len(cycles) == 1 and len(cycles[0]) == n // 2 + 1
    assert time.perf_counter() - start < 2.0


# ----------------------------------------------------------------------------- properties


@st.composite
def graphs(draw):
    n = draw(st.integers(1, 9))
    nodes = [uid(0x1000 + i) for i in range(n)]
    choice = st.one_of(st.none(), st.sampled_from(nodes), st.just(STRANGER))
    natives = draw(st.lists(choice, min_size=n, max_size=n))
    stamps = draw(st.lists(choice, min_size=n, max_size=n))
    invokes = draw(st.lists(st.lists(st.sampled_from(nodes), max_size=2), min_size=n, max_size=n))
    docs = []
    for i, cid in enumerate(nodes):
        d = doc(cid.upper() if i % 3 == 0 else cid, parent=natives[i], steps=[user("x"), invoke(*invokes[i])])
        if stamps[i] is not None:
            d["agyReader"] = {"parentCascadeId": stamps[i]}
        docs.append(d)
    return docs, draw(st.randoms(use_true_random=False))


def _stamp_graph(directory: Path) -> dict[str, str | None]:
    out = {}
    for path in directory.iterdir():
        d = json.loads(path.read_text())
        out[d["cascadeId"].lower()] = ((d.get("agyReader") or {}).get("parentCascadeId") or "").lower() or None
    return out


@settings(max_examples=35, deadline=None)
@given(graphs())
def test_property_no_written_stamp_is_in_a_cycle_and_order_does_not_matter(case):
    docs, rnd = case
    with tempfile.TemporaryDirectory() as tmp:
        results = []
        for attempt in range(2):
            directory = Path(tmp) / str(attempt)
            names = [uid(0x5000 + i) for i in range(len(docs))]  # file names independent of ids,
            rnd.shuffle(names)  # so the listing order differs between attempts
            for d, name in zip(docs, names):
                write(directory, d, name=f"{name}.trajectory.json")
            res = links.resolve(directory)
            link_writer.apply(res)
            results.append(([(link.id, link.parent, link.action) for link in res.links], res.diagnostics))
            on_disk = _stamp_graph(directory)
            in_cycles = {m for c in links.find_cycles(on_disk) for m in c}
            assert not {link.id for link in res.changes} & in_cycles
            fixed = links.resolve(directory, repair=True)
            link_writer.apply(fixed)
            assert links.find_cycles(_stamp_graph(directory)) == []
            again = links.resolve(directory, repair=True)
            assert again.changes == ()
        assert results[0] == results[1]


# ----------------------------------------------------------------------------- the splicer


def test_set_and_clear_keep_other_reader_keys_and_numbers():
    raw = b'{\n  "big": 900719925474099312345678901234567890,\n  "agyReader": {\n    "future": {"x": 1e400}\n  }\n}\n'
    stamped = set_reader_key(raw, "parentCascadeId", f'"{ROOT}"')
    assert stamped == raw.replace(b'{"x": 1e400}\n', b'{"x": 1e400},\n    "parentCascadeId": "%s"\n' % ROOT.encode())
    assert set_reader_key(stamped, "parentCascadeId", f'"{ROOT}"') is stamped
    assert set_reader_key(stamped, "parentCascadeId", None) == raw
    assert set_reader_key(raw, "parentCascadeId", None) is raw


def test_clear_removes_an_emptied_block_and_a_null_block_counts_as_absent():
    raw = b'{"a": 1, "agyReader": {"parentCascadeId": "x"}, "b": 2}'
    assert set_reader_key(raw, "parentCascadeId", None) == b'{"a": 1, "b": 2}'
    assert set_reader_key(b'{"agyReader": {"parentCascadeId": "x"}}', "parentCascadeId", None) == b"{}"
    assert set_reader_key(b'{"agyReader":null}', "parentCascadeId", None) == b'{"agyReader":null}'
    assert set_reader_key(b'{"agyReader":null}', "k", "1") == b'{"agyReader":{"k":1}}'


def test_new_block_follows_the_document_layout():
    assert set_reader_key(b'{"a":1}', "k", '"v"') == b'{"a":1,"agyReader":{"k":"v"}}'
    assert set_reader_key(b'{\n    "a": 1\n}', "k", "[1]") == b'{\n    "a": 1,\n    "agyReader": {\n        "k": [1]\n    }\n}'
    assert set_reader_key(b"{}", "k", "true") == b'{"agyReader": {"k": true}}'


def test_set_reader_key_refusals():
    with pytest.raises(InputError, match="agyReader is string, not an object"):
        set_reader_key(b'{"agyReader": "x"}', "k", "1")
    with pytest.raises(InputError, match="duplicate key"):
        set_reader_key(b'{"a": 1, "a": 2}', "k", "1")
    with pytest.raises(InputError, match="new k"):
        set_reader_key(b'{"a": 1}', "k", "{nope")


def test_json_equal_is_type_strict():
    assert json_equal(loads(b'{"a": [1, 1.50, "x", null, true]}', exact=True), loads(b'{"a":[1,1.50,"x",null,true]}', exact=True))
    for left, right in [
        ("false", "0"),
        ("1", "1.0"),
        ("1.5", "1.50"),
        ("900719925474099312345678901234567890", "900719925474099312345678901234567891"),
        ("[1]", "[1, 2]"),
        ('{"a": 1}', '{"b": 1}'),
        ("null", "false"),
        ('"1"', "1"),
    ]:
        a, b = (loads(x, exact=True, require_object=False) for x in (left, right))
        assert not json_equal(a, b), (left, right)
    assert json_equal(RawFloat("-0"), RawFloat("-0"))


def test_strip_reader_key():
    assert strip_reader_key({"a": 1, "agyReader": {"parentCascadeId": "x"}}, "parentCascadeId") == {"a": 1}
    assert strip_reader_key({"a": 1, "agyReader": None}, "parentCascadeId") == {"a": 1}
    assert strip_reader_key({"agyReader": {"o": 1, "parentCascadeId": "x"}}, "parentCascadeId") == {"agyReader": {"o": 1}}
    assert strip_reader_key({"agyReader": "s"}, "parentCascadeId") == {"agyReader": "s"}


_keys = st.text(string.ascii_letters + 'é_"\\', min_size=1, max_size=6).filter(lambda k: k != "agyReader")
_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.text(max_size=8),
    st.floats(allow_nan=False, allow_infinity=False),
)
_json = st.recursive(
    _leaves, lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_keys, inner, max_size=3)), max_leaves=12
)


@settings(max_examples=100, deadline=None)
@given(
    st.dictionaries(_keys, _json, max_size=5),
    st.one_of(st.none(), st.dictionaries(_keys, _json, max_size=2)),
    st.sampled_from([None, 0, 2, 4]),
    st.booleans(),
    st.integers(0, 6),
    _json,
)
def test_property_splice_changes_only_the_reader_key(payload, reader, indent, reader_last, position, value):
    d = dict(payload)
    if reader is not None:
        items = list(d.items())
        items.insert(len(items) if reader_last else min(position, len(items)), ("agyReader", reader))
        d = dict(items)
    raw = json.dumps(d, indent=indent, ensure_ascii=bool(position % 2)).encode() + (b"\n" if indent else b"")
    value_json = json.dumps(value)
    out = set_reader_key(raw, "parentCascadeId", value_json)
    got = loads(out, exact=True)
    expected = loads(raw, exact=True)
    expected["agyReader"] = {
        **(expected.get("agyReader") or {}),
        "parentCascadeId": loads(value_json, exact=True, require_object=False),
    }
    assert json_equal(got, expected)
    cleared = set_reader_key(out, "parentCascadeId", None)
    assert json_equal(loads(cleared, exact=True), strip_reader_key(loads(raw, exact=True), "parentCascadeId"))
    if reader is None or (reader and "parentCascadeId" not in reader):
        assert cleared == raw  # a key added by the splicer is removed without a trace
    if reader is None:  # appended: every byte up to the closing brace is kept
        assert out.startswith(raw.rstrip()[:-1].rstrip())
    else:  # spliced inside the block: every byte before the block is kept
        assert out.startswith(raw[: raw.index(b'"agyReader"')])


# ----------------------------------------------------------------------------- partial copies (issue 20.4)


def test_a_partial_copy_keeps_a_correct_stamp_whose_parent_is_absent(tmp_path, capsys):
    full, partial = tmp_path / "full", tmp_path / "copy" / "conversations"
    write(full, doc(ROOT, steps=[user("go"), invoke(KID)]))  # the only evidence lives in the parent
    write(full, doc(KID))
    assert backfill(full).counts()["stamped"] == 1 and stamp_on_disk(full, KID) == ROOT
    write(partial, (full / f"{KID}.trajectory.json").read_bytes(), name=f"{KID}.trajectory.json")  # without the parent
    before = snapshot(partial)
    res = repair(partial)
    assert snapshot(partial) == before and stamp_on_disk(partial, KID) == ROOT  # never cleared without evidence against it
    assert [(link.id, link.action, link.parent) for link in res.links] == [(KID, "keep", ROOT)]
    assert [(d.id, d.kind, d.message) for d in res.diagnostics] == [
        (
            KID,
            "missing-parent",
            f"parent {ROOT} has no sidecar in this directory; the stamp is kept (nothing here speaks against it)",
        )
    ]
    assert res.absent_parents == (ROOT,)
    # the command says that the directory looks partial
    assert main(["links", "repair", "--root", str(partial.parent), "--backup", str(tmp_path / "bk")]) == 0
    out = capsys.readouterr()
    assert (
        f"links repair: {partial}: looks partial: 1 parent(s) named by stamps or evidence have no sidecar here "
        f"({ROOT}); their stamps are kept" in out.out + out.err
    )
    assert stamp_on_disk(partial, KID) == ROOT
    # the parent present and silent about the child is evidence against the stamp: cleared
    write(partial, doc(ROOT, steps=[user("go")]))
    assert repair(partial).counts()["cleared"] == 1 and stamp_on_disk(partial, KID) is None
