import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

# Deterministic property tests: the same examples on every run and machine, no example database.
settings.register_profile("agy-audit", derandomize=True, database=None, deadline=None)
settings.load_profile("agy-audit")

# Variables of the user's environment that change what agy-audit does; no test may inherit them.
_ENVIRONMENT = (
    "ANTIGRAVITY_DAEMON_URL",
    "ANTIGRAVITY_CSRF_TOKEN",
    "ANTIGRAVITY_CLI_ROOT",
    "ANTIGRAVITY_KEY",
    "GITHUB_STEP_SUMMARY",
    "NO_COLOR",
    "AGY_AUDIT_DEBUG",
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch, tmp_path_factory):
    for name in _ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    # what a run keeps in the user's cache directory (crash reports) stays in pytest's own
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "cache"))
    # no progress lines in the stderr tests capture from a run that happens to take over a second;
    # the tests of progress (tests/foundation/test_progress.py) choose their own
    monkeypatch.setenv("AGY_AUDIT_PROGRESS", "off")


@pytest.fixture(autouse=True)
def fake_proc(monkeypatch, tmp_path_factory):
    """Discovery reads a fake, empty ``/proc`` (no test sees the machine's processes); a simulated
    daemon registers itself there while it runs, as a real agy process would appear."""
    from audit.store.discovery import procfs
    from audit.testing import daemon
    from audit.testing.daemon import FakeProc

    proc = FakeProc(tmp_path_factory.mktemp("proc"))
    monkeypatch.setattr(procfs, "PROC_ROOT", str(proc.root))
    monkeypatch.setattr(daemon, "FAKE_PROC", proc.root)
    return proc


@pytest.fixture(scope="session", autouse=True)
def _temp_dir(tmp_path_factory):
    """tempfile's directory, and ``$TMPDIR`` for the processes tests start, is a new directory of
    this session (of this xdist worker); what is left in it when the session ends fails the run,
    naming it. pytest's own ``tmp_path`` directories are made outside it (fixed first)."""
    tmp_path_factory.getbasetemp()
    guard = Path(tempfile.mkdtemp(prefix="agy-audit-tests-"))
    guard.chmod(0o1777)  # as /tmp: tests that drop to another user read and write there too
    patch = pytest.MonkeyPatch()
    patch.setattr(tempfile, "tempdir", str(guard))
    patch.setenv("TMPDIR", str(guard))
    try:
        yield guard
    finally:
        patch.undo()
        left = sorted(os.listdir(guard))
        shutil.rmtree(guard, ignore_errors=True)
        if left:
            pytest.fail(f"the test session left {len(left)} entries in the temp directory: {', '.join(left)}")


@pytest.fixture(autouse=True)
def _trace_function_kept():
    """A test that sets a trace function must put the one it found back: replacing coverage's
    tracer stops line coverage for every later test of the process, silently."""
    before = sys.gettrace()
    yield
    if sys.gettrace() is not before:
        sys.settrace(before)
        pytest.fail("the test changed the trace function (sys.settrace) and did not restore it")


@pytest.fixture(autouse=True)
def _no_temp_leftovers(_temp_dir):
    """A test that leaves anything in the temp directory fails, naming what it left."""
    before = set(os.listdir(_temp_dir))
    yield
    left = sorted(set(os.listdir(_temp_dir)) - before)
    if left:
        pytest.fail(f"left in the temp directory: {', '.join(left)}")
