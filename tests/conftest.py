import pytest

# Variables of the user's environment that change what agy-audit does; no test may inherit them.
_ENVIRONMENT = ("ANTIGRAVITY_DAEMON_URL", "ANTIGRAVITY_CSRF_TOKEN", "ANTIGRAVITY_CLI_ROOT", "GITHUB_STEP_SUMMARY", "NO_COLOR")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch):
    for name in _ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
