"""Bounded work, output files that cannot block, and one exit code per fault class (issue 38
items 5, 6 and 7).

* every file agy-audit reads back whole that is not a store's -- a consumer profile, a backup
  manifest, a baseline and its snapshots, a corpus manifest -- is refused before it is read when
  larger than 64 MiB (``AGY_AUDIT_MAX_FILE_BYTES`` overrides it): a 136 MB profile took over 60 s;
* ``GITHUB_STEP_SUMMARY`` naming a FIFO made ``ci --format github`` hang forever: refused, one line;
* a full disk is exit 2 for every writer (attestations said "refused", exit 1); another writer
  holding the store past ``--lock-timeout`` is exit 1 (a busy store) for every writer.
"""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
from cli_capture import cli

from audit.testing import StoreBuilder
from tests.reliability.test_reliability_faults import _FullDisk
from tests.reliability.test_reliability_hostile import run_cli
from tests.reliability.test_reliability_writers import held_by_another_thread

LIMIT = 64 * 1024 * 1024


def sparse(path: Path, size: int = 136 * 1024 * 1024) -> Path:
    """*path* as a file of *size* bytes that takes no room on disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A store, its complete sweep corpus, a baseline recorded from it and a repair's backup."""
    top = tmp_path_factory.mktemp("limits")
    root = StoreBuilder(top / "home", seed=5).root("cli")
    root.family(children=1)
    assert cli("sweep", "--source", "native", "--root", root.path, "--out", top / "corpus")[0] == 0
    assert (
        cli(
            "record",
            "--name",
            "agy-9.9.9",
            "--unverified-name",
            "--baseline-dir",
            top / "baselines",
            "--compat-file",
            top / "C.md",
            top / "corpus",
        )[0]
        == 0
    )
    return top, root


def _planted(swept, tmp_path, what: str) -> tuple[list[object], Path]:
    """The command reading the planted file *what*, and that file (a sparse 136 MB one)."""
    top, root = swept
    if what == "consumer profile":
        return ["consumers", "--consumer", sparse(tmp_path / "profile.json")], tmp_path / "profile.json"
    if what == "backup manifest":
        store = tmp_path / "store"
        shutil.copytree(root.path, store)
        assert cli("links", "repair", "--root", store, "--backup", tmp_path / "bk")[0] == 0
        return ["links", "verify", "--backup", tmp_path / "bk"], sparse(tmp_path / "bk" / "manifest.json")
    if what in ("baseline", "baseline snapshot"):
        baseline = tmp_path / "agy-9.9.9"
        shutil.copytree(top / "baselines" / "agy-9.9.9", baseline)
        planted = sparse(baseline / ("baseline.json" if what == "baseline" else "sidecar.tsv"))
        return ["compare", top / "corpus", "--baseline", baseline], planted
    if what == "shape snapshot":
        return ["compare", sparse(tmp_path / "sidecar.tsv")], tmp_path / "sidecar.tsv"
    corpus = tmp_path / "corpus"  # a corpus manifest
    shutil.copytree(top / "corpus", corpus)
    planted = sparse(corpus / "manifest.json")
    return [
        "record",
        "--name",
        "agy-9.9.8",
        "--baseline-dir",
        tmp_path / "b",
        "--compat-file",
        tmp_path / "C.md",
        corpus,
    ], planted


FILES = ["consumer profile", "backup manifest", "baseline", "baseline snapshot", "shape snapshot", "corpus manifest"]


@pytest.mark.parametrize("what", FILES)
def test_a_136_mb_file_of_our_own_is_refused_at_once(swept, tmp_path, what):
    argv, planted = _planted(swept, tmp_path, what)
    start = time.monotonic()
    code, out, err = cli(*argv)
    assert time.monotonic() - start < 5
    assert (code, err) == (
        2,
        f"agy-audit: {planted}: larger than {LIMIT} bytes (the limit AGY_AUDIT_MAX_FILE_BYTES sets); not read\n",
    )


def test_the_limit_is_overridable_and_checked(swept, tmp_path, monkeypatch):
    top, root = swept
    profile = tmp_path / "profile.json"
    shutil.copy(next((Path(__file__).parents[2] / "consumers").glob("*.json")), profile)
    assert cli("consumers", "--consumer", profile)[0] == 0
    monkeypatch.setenv("AGY_AUDIT_MAX_FILE_BYTES", "1K")
    code, out, err = cli("consumers", "--consumer", profile)  # the bundled profiles are held to it too
    assert code == 2 and err.endswith(".json: larger than 1024 bytes (the limit AGY_AUDIT_MAX_FILE_BYTES sets); not read\n")
    monkeypatch.setenv("AGY_AUDIT_MAX_FILE_BYTES", "1 GiB")
    assert cli("consumers", "--consumer", profile)[0] == 0
    monkeypatch.setenv("AGY_AUDIT_MAX_FILE_BYTES", "lots")
    assert cli("consumers", "--consumer", profile) == (
        2,
        "",
        "agy-audit: AGY_AUDIT_MAX_FILE_BYTES='LOTS': not a size in bytes (e.g. 67108864 or 64M)\n",
    )


# ----------------------------------------------------------------------------- outputs that could block


def test_a_step_summary_that_is_a_fifo_is_refused_without_blocking(swept, tmp_path):
    # issue 38 item 7: ci --format github blocked forever opening a FIFO nobody reads
    top, root = swept
    fifo = tmp_path / "summary"
    os.mkfifo(fifo)
    argv = ("ci", "--source", "native", "--root", root.path, "--out", tmp_path / "ci", "--format", "github")
    code, out, err, _ = run_cli(*argv, timeout=60, env={"GITHUB_STEP_SUMMARY": str(fifo)})  # a hang fails the test
    assert (code, err) == (2, f"agy-audit: {fifo}: not a regular file; not written\n")
    assert "ci: PASS" in out  # the report itself was written first


# ----------------------------------------------------------------------------- one exit code per fault class


@pytest.fixture
def family(tmp_path):
    """A store whose child needs a stamp, its sidecars complete; and a backup to roll back from."""
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    root.family(children=2)
    spare = tmp_path / "spare"
    shutil.copytree(root.path, spare)
    assert cli("links", "repair", "--root", spare, "--backup", tmp_path / "bk")[0] == 0
    return root.path, spare


WRITERS = {
    "links backfill": lambda root, spare, tmp: ("links", "backfill", "--root", root),
    "links repair": lambda root, spare, tmp: ("links", "repair", "--root", root, "--backup", tmp / "new-bk"),
    "links rollback": lambda root, spare, tmp: ("links", "rollback", "--backup", tmp / "bk"),
    "completeness --attest": lambda root, spare, tmp: ("completeness", "--root", root, "--attest"),
}


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_full_disk_is_exit_2_for_every_writer(family, tmp_path, monkeypatch, command):
    # issue 38 item 6: attestations on a full disk were each "refused", exit 1
    root, spare = family
    argv = WRITERS[command](root, spare, tmp_path)
    _FullDisk(monkeypatch, 0)
    code, out, err = cli(*argv)
    monkeypatch.undo()
    assert code == 2 and err.startswith("agy-audit: ") and err.count("\n") == 1, err
    assert "No space left on device" in err and "Traceback" not in err


@pytest.mark.parametrize("command", list(WRITERS))
def test_a_store_held_by_another_writer_is_exit_1_for_every_writer(family, tmp_path, command):
    root, spare = family
    argv = WRITERS[command](root, spare, tmp_path)
    held = spare if command == "links rollback" else root
    with held_by_another_thread(held / "conversations"):
        code, out, err = cli(*argv, "--lock-timeout", "0")
    assert (code, out) == (1, "")
    assert err == (
        f"agy-audit: {held / 'conversations'}: another agy-audit writer (pid {os.getpid()}) holds this store's "
        "writer lock; gave up after 0s (wait for it to finish, or give a longer --lock-timeout)\n"
    )


def test_the_exit_code_table_names_every_code_and_fault_class():
    page = (Path(__file__).parents[2] / "docs" / "output-and-exit-codes.md").read_text()
    section = page[page.index("## Exit codes, options and environment") :]
    table = [line for line in section.splitlines() if line.startswith("| ") and " | " in line]
    codes = {line.split("|")[1].strip() for line in table}
    assert {"0", "1", "2", "3", "70", "130, 143"} <= codes
    for fault in ("full disk", "listed but not entered", "another agy-audit writer", "internal error", "larger than"):
        assert fault in section, fault
