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


@pytest.fixture(autouse=True)
def fake_proc(monkeypatch, tmp_path_factory):
    """Discovery reads a fake, empty ``/proc`` (no test sees the machine's processes); a simulated
    daemon registers itself there while it runs, as a real agy process would appear."""
    from audit.store import discovery
    from audit.testing import daemon
    from audit.testing.daemon import FakeProc

    proc = FakeProc(tmp_path_factory.mktemp("proc"))
    monkeypatch.setattr(discovery, "PROC_ROOT", str(proc.root))
    monkeypatch.setattr(daemon, "FAKE_PROC", proc.root)
    return proc
