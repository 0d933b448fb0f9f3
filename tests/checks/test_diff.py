"""``agy-audit diff``: value-level differences in our path notation, exact outputs, exit codes."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.checks import diff
from audit.cli import main
from audit.testing import StoreBuilder


def write(path, doc):
    path.write_text(json.dumps(doc, indent=2) + "\n")
    return path


def test_changes_are_named_by_path_and_kind():
    old = {"steps": [{"type": "A", "n": 1, "ok": True}, {"x": "y"}], "agyReader": {"p": 1}, "gone": 0}
    new = {"steps": [{"type": "B", "n": 1.0, "ok": 1}, {"x": "y", "z": None}, 7], "agyReader": {"p": 2}}
    assert diff.changes(old, new) == [
        diff.Change("removed", "gone", 0, None),
        diff.Change("type-changed", "steps.[0].n", 1, 1.0),
        diff.Change("type-changed", "steps.[0].ok", True, 1),
        diff.Change("changed", "steps.[0].type", "A", "B"),
        diff.Change("added", "steps.[1].z", None, None),
        diff.Change("added", "steps.[2]", None, 7),
    ]
    with_reader = diff.changes(old, new, ignore=())
    assert diff.Change("changed", "agyReader.p", 1, 2) in with_reader


def test_an_envelope_is_unwrapped_and_ignore_patterns_match_any_index():
    old = {"trajectory": {"steps": [{"metadata": {"createdAt": "a"}, "v": 1}, {"metadata": {"createdAt": "b"}}]}}
    new = {"steps": [{"metadata": {"createdAt": "c"}, "v": 2}, {"metadata": {"createdAt": "d"}}]}
    assert [c.path for c in diff.changes(old, new, ignore=("steps.[].metadata",))] == ["steps.[0].v"]
    assert diff.matches("steps.[3].metadata.createdAt", "steps.[].metadata")
    assert not diff.matches("steps.[3].metadataX", "steps.[].metadata")


@given(
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=3), c, max_size=3),
        max_leaves=12,
    )
)
def test_a_document_never_differs_from_itself(doc):
    assert diff.changes(doc, json.loads(json.dumps(doc)), ignore=()) == []


@pytest.fixture
def convo(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=21).root("cli")
    return root.conversation(turns=2)


def test_a_sidecar_against_its_own_export_is_the_same(convo, tmp_path, capsys):
    out = tmp_path / "export.json"
    assert main(["export", convo.id, "--root", str(convo.root), "--out", str(out)]) == 0
    capsys.readouterr()
    sidecar = convo.paths["sidecar"]
    assert main(["diff", str(sidecar), str(out)]) == 0
    assert (
        capsys.readouterr().out
        == f"{sidecar} vs {out}: no differences\ndiff: 1 pair(s) compared, 0 different, 0 only in A, 0 only in B\n"
    )


def test_a_changed_sidecar_is_explained_in_text_json_and_markdown(convo, tmp_path, capsys):
    sidecar = convo.paths["sidecar"]
    doc = json.loads(sidecar.read_text())
    doc["steps"][0]["metadata"]["createdAt"] = 5
    doc["steps"][1]["status"] = "CORTEX_STEP_STATUS_ERROR"
    del doc["steps"][-1]
    other = write(tmp_path / "changed.json", doc)
    assert main(["diff", str(sidecar), str(other), "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)["result"]
    pair = report["pairs"][0]
    last = len(convo.trajectory["steps"]) - 1
    assert [(c["kind"], c["path"]) for c in pair["changes"]] == [
        ("type-changed", "steps.[0].metadata.createdAt"),
        ("changed", "steps.[1].status"),
        ("removed", f"steps.[{last}]"),
    ]
    assert pair["counts"] == {"changed": 1, "type-changed": 1, "added": 0, "removed": 1}
    assert main(["diff", str(sidecar), str(other)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{sidecar} vs {other}: 1 changed, 1 type-changed, 1 removed"
    assert lines[2] == '  changed       steps.[1].status: "CORTEX_STEP_STATUS_DONE" -> "CORTEX_STEP_STATUS_ERROR"'
    assert main(["diff", str(sidecar), str(other), "--format", "markdown", "--ignore", "steps.[]"]) == 0
    assert "no differences" in capsys.readouterr().out


def test_two_sweeps_of_the_same_store_pair_by_id(convo, tmp_path, capsys):
    for name in ("one", "two"):
        assert main(["sweep", "--root", str(convo.root), "--source", "native", "--out", str(tmp_path / name), "-q"]) == 0
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "one"), str(tmp_path / "two")]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "diff: 1 pair(s) compared, 0 different, 0 only in A, 0 only in B"
    extra = tmp_path / "two" / "corpus" / "cli" / "00000000-0000-4000-8000-000000000000.trajectory.json"
    write(extra, {"cascadeId": "00000000-0000-4000-8000-000000000000", "steps": []})
    assert main(["diff", str(tmp_path / "one"), str(tmp_path / "two")]) == 1
    assert capsys.readouterr().out.splitlines()[-2:] == [
        f"only in B: {extra}",
        "diff: 1 pair(s) compared, 0 different, 0 only in A, 1 only in B",
    ]


def test_bad_input_is_exit_2_and_nothing_to_compare_is_exit_3(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert main(["diff", str(tmp_path / "a"), str(tmp_path / "b")]) == 3
    assert main(["diff", str(tmp_path / "missing.json"), str(tmp_path / "a")]) == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["diff", str(bad), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "missing.json: no such file or directory" in err and "bad.json" in err and "Traceback" not in err


def test_a_stale_sidecar_against_its_source_names_the_missing_steps(tmp_path, capsys):
    root = StoreBuilder(tmp_path / "home", seed=22).root("cli")
    stale = root.conversation(turns=3, sidecar="stale")
    out = tmp_path / "export.json"
    assert main(["export", stale.id, "--root", str(root.path), "--out", str(out)]) == 0
    capsys.readouterr()
    kept, total = len(stale.sidecar_doc["steps"]), len(stale.trajectory["steps"])
    assert main(["diff", str(stale.paths["sidecar"]), str(out), "--format", "json"]) == 1
    changes = json.loads(capsys.readouterr().out)["result"]["pairs"][0]["changes"]
    assert [(c["kind"], c["path"]) for c in changes] == [("added", f"steps.[{i}]") for i in range(kept, total)]
    assert [c["new"]["type"] for c in changes] == [s["type"] for s in stale.trajectory["steps"][kept:]]


def test_deepdiff_is_loaded_only_where_a_difference_is_explained(convo):
    import subprocess
    import sys

    code = (
        "import sys; from audit.cli import main; "
        f"main(['completeness', '--root', {str(convo.root)!r}]); main(['stores', '--root', {str(convo.root)!r}]); "
        "sys.exit(3 if 'deepdiff' in sys.modules else 0)"
    )
    assert subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0
