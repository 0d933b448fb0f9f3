"""One home for baselines: ``record``, ``ci --record``, ``ci``, ``compare``, ``baselines`` and
``doctor`` share the project's baseline directory and compatibility record (``./fingerprints``
and ``./COMPATIBILITY.md``, or what ``agy-audit.toml`` / ``pyproject.toml [tool.agy-audit]``
sets), and ``ci`` and ``compare`` say which baseline they chose and why."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from audit.checks.fingerprint import SURFACES
from audit.commands import project
from audit.resources import data_path
from audit.testing import StoreBuilder
from tests.cli_capture import cli
from tests.fake_agy import agy_on_path
from tests.output_schema import envelope
from tests.reliability.test_reliability_faults import give_away, shared, unprivileged  # noqa: F401 (shared: a fixture)

NATIVE = ("--source", "native", "--no-live")


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("project") / "home"
    StoreBuilder(home, seed=31).root("cli").conversation(turns=2)
    return home


@pytest.fixture(autouse=True)
def _no_agy_on_path(monkeypatch, tmp_path):
    empty = tmp_path / "no-agy"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))  # no `agy --version`: doctor's installed version is unknown


@pytest.fixture
def here(tmp_path, monkeypatch) -> Path:
    """A new project directory, the current one."""
    directory = tmp_path / "project"
    directory.mkdir()
    monkeypatch.chdir(directory)
    return directory


def first_line(stdout: str) -> str:
    return stdout.splitlines()[0]


NO_ANSWER = SURFACES["rpc"].missing  # a native sweep keeps no daemon answer


def compare_rows(stdout: str) -> list[str]:
    """The compare checks of a text report's table, one space between its cells."""
    return [
        " ".join(line.split()[1:])
        for line in stdout.splitlines()
        if line.split()[:2] in (["compare", "corpus"], ["compare", "live"])
    ]


def test_ci_record_then_a_plain_ci_compares_with_the_recorded_baseline(home, here, tmp_path, monkeypatch):
    code, stdout, _ = cli("ci", "--home", home, *NATIVE)
    assert code == 0
    assert first_line(stdout) == (
        "agy-audit ci: baseline agy-1.2.11 (bundled: nothing recorded in ./fingerprints), fail on drift, "
        "live sidecars not checked"
    )

    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")
    code, stdout, _ = cli("ci", "--home", home, *NATIVE, "--record", "agy-9.9.9")
    assert code == 0
    assert (here / "fingerprints" / "agy-9.9.9" / "baseline.json").is_file()
    compat = (here / "COMPATIBILITY.md").read_text()
    assert "from the baselines in `fingerprints/` and is" in compat and "- **Baseline:** `agy-9.9.9`" in compat

    code, stdout, _ = cli("ci", "--home", home, *NATIVE)
    assert code == 0
    assert first_line(stdout) == (
        "agy-audit ci: baseline agy-9.9.9 (recorded in ./fingerprints, newest there), fail on drift, live sidecars not checked"
    )
    assert compare_rows(stdout) == [
        "corpus sidecar pass 0 0 UNCHANGED",
        "corpus sqlite pass 0 0 UNCHANGED",
        "corpus wire pass 0 0 UNCHANGED",
        "corpus transcript pass 0 0 UNCHANGED",
        "corpus summaries skipped 0 0 NOT COMPARABLE; not computed: no readable conversation_summaries.db; agy-9.9.9 "
        "recorded it as absent too (no readable conversation_summaries.db)",
        "corpus history skipped 0 0 NOT COMPARABLE; not computed: no history.jsonl record; agy-9.9.9 recorded it as "
        "absent too (no history.jsonl record)",
        "corpus cache skipped 0 0 NOT COMPARABLE; not computed: no readable cache/ file; agy-9.9.9 recorded it as "
        "absent too (no readable cache/ file)",
        "corpus artifacts pass 0 0 UNCHANGED",
        "corpus roots pass 0 0 UNCHANGED",
        "corpus layout pass 0 0 UNCHANGED",
        "corpus conventions pass 0 0 UNCHANGED",
        "corpus values pass 0 0 UNCHANGED",
        f"corpus rpc skipped 0 0 NOT COMPARABLE; not computed: {NO_ANSWER}; agy-9.9.9 recorded it as absent too ({NO_ANSWER})",
    ]

    # compare, baselines and doctor share the home
    code, stdout, _ = cli("compare", "--surface", "sqlite", "fingerprints/agy-9.9.9")
    assert (code, stdout.splitlines()[0]) == (0, "baseline: agy-9.9.9 (recorded in ./fingerprints, newest there)")
    code, stdout, _ = cli("compare", "--baseline", "agy-1.2.10", "--surface", "sqlite", "fingerprints/agy-9.9.9")
    assert (code, stdout.splitlines()[0]) == (0, "baseline: agy-1.2.10 (bundled)")
    code, stdout, _ = cli("baselines")
    assert [line.split()[0] for line in stdout.splitlines()] == ["NAME", "agy-1.2.5", "agy-1.2.10", "agy-1.2.11", "agy-9.9.9"]
    code, stdout, _ = cli("doctor", "--home", home, "--format", "json")
    agy = json.loads(stdout)["result"]["agy"]
    assert (agy["compatFile"], agy["recorded"]) == ("COMPATIBILITY.md", "9.9.9")


def test_record_creates_the_directory_the_configuration_names_for_the_record(home, here, monkeypatch):
    """sweep, then record from a subdirectory: the configuration's compat-file directory is
    created as its baseline-dir is (it was `docs/COMPAT.md: cannot write (No such file or directory)`)."""
    (here / "agy-audit.toml").write_text('baseline-dir = "ci/baselines"\ncompat-file = "docs/COMPAT.md"\n')
    (here / "sub").mkdir()
    monkeypatch.chdir(here / "sub")
    assert cli("sweep", "--home", home, "--source", "native", "--out", "../corpus", "-q")[0] == 0
    code, stdout, stderr = cli("record", "../corpus", "--name", "agy-9.9.9", "--unverified-name")
    recorded = f"recorded {here / 'ci' / 'baselines' / 'agy-9.9.9'}; regenerated {here / 'docs' / 'COMPAT.md'}"
    assert (code, stdout.splitlines()[-2:], stderr) == (
        0,
        [recorded, "name unverified: nothing confirms agy 9.9.9: agy --version does not answer"],
        "",
    )
    assert "- **Baseline:** `agy-9.9.9`" in (here / "docs" / "COMPAT.md").read_text()
    code, stdout, _ = cli("baselines")
    assert code == 0 and stdout.splitlines()[-1].endswith(f"  {here / 'ci' / 'baselines' / 'agy-9.9.9'}")


@pytest.mark.parametrize("kind", ["agy-audit.toml", "pyproject.toml"])
def test_the_configuration_sets_the_home_once_for_every_command(home, here, kind, tmp_path, monkeypatch):
    settings = 'baseline-dir = "ci/baselines"\ncompat-file = "docs/COMPAT.md"\n'
    if kind == "pyproject.toml":
        (here / kind).write_text('[project]\nname = "mine"\n\n[tool.agy-audit]\n' + settings)
    else:
        (here / kind).write_text(settings)
    (here / "docs").mkdir()

    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")
    assert cli("ci", "--home", home, *NATIVE, "--record", "agy-9.9.9")[0] == 0
    assert (here / "ci" / "baselines" / "agy-9.9.9" / "baseline.json").is_file()
    assert not (here / "fingerprints").exists() and not (here / "COMPATIBILITY.md").exists()
    assert "from the baselines in `ci/baselines/` and is" in (here / "docs" / "COMPAT.md").read_text()

    code, stdout, _ = cli("ci", "--home", home, *NATIVE)
    assert code == 0
    assert first_line(stdout).startswith("agy-audit ci: baseline agy-9.9.9 (recorded in ./ci/baselines, newest there), ")

    # from a subdirectory, the paths stay the configuration's (relative to its file)
    (here / "sub").mkdir()
    monkeypatch.chdir(here / "sub")
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.10")
    code, stdout, _ = cli("ci", "--home", home, *NATIVE, "--record", "agy-9.9.10")
    assert code == 0 and (here / "ci" / "baselines" / "agy-9.9.10").is_dir()
    code, stdout, _ = cli("ci", "--home", home, *NATIVE)
    where = here / "ci" / "baselines"
    assert first_line(stdout).startswith(f"agy-audit ci: baseline agy-9.9.10 (recorded in {where}, newest there), ")
    assert "- **Baseline:** `agy-9.9.10`" in (here / "docs" / "COMPAT.md").read_text()

    # the command line wins
    monkeypatch.chdir(here)
    code, stdout, _ = cli("ci", "--home", home, *NATIVE, "--baseline-dir", "elsewhere")
    assert first_line(stdout).startswith("agy-audit ci: baseline agy-1.2.11 (bundled: nothing recorded in ./elsewhere), ")


def test_consumers_and_fail_on_from_the_configuration_and_the_command_line_wins(home, here):
    (here / "profiles").mkdir()
    own = json.loads((data_path("consumers") / "codeburn.json").read_text())
    own["name"] = "my-reader"
    (here / "profiles" / "mine.json").write_text(json.dumps(own))
    (here / "agy-audit.toml").write_text('consumers = ["codeburn", "profiles/mine.json"]\nfail-on = ["never"]\n')
    code, stdout, _ = cli("ci", "--home", home, *NATIVE, "--format", "json")
    doc = envelope(stdout, "ci")["result"]
    assert (code, doc["failOn"]) == (0, "never")
    assert [(c["consumer"], c["profile"]) for c in doc["consumers"]] == [
        ("codeburn", "bundled"),
        ("my-reader", "profiles/mine.json"),  # relative to the configuration, here the current directory
    ]
    code, stdout, _ = cli("ci", "--home", home, *NATIVE, "--format", "json", "--fail-on", "breaking", "--consumer", "tokstat")
    doc = envelope(stdout, "ci")["result"]
    assert (doc["failOn"], [c["consumer"] for c in doc["consumers"]]) == ("breaking", ["tokstat"])


def test_the_nearest_configuration_wins_and_agy_audit_toml_before_pyproject(tmp_path):
    outer, inner = tmp_path / "outer", tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    (outer / "pyproject.toml").write_text('[tool.agy-audit]\nbaseline-dir = "outer-fp"\n')
    (inner / "pyproject.toml").write_text('[project]\nname = "no-settings-here"\n')  # not a configuration
    found = project.load(inner)
    assert (found.file, found.directory, found.baseline_dir) == (outer / "pyproject.toml", outer, outer / "outer-fp")
    assert found.compat_file == outer / "COMPATIBILITY.md"
    (outer / "agy-audit.toml").write_text('compat-file = "C.md"\n')
    found = project.load(inner)
    assert (found.file, found.baseline_dir, found.compat_file) == (
        outer / "agy-audit.toml",
        outer / "fingerprints",
        outer / "C.md",
    )
    assert project.load(tmp_path) == project.Project(tmp_path, None, tmp_path / "fingerprints", tmp_path / "COMPATIBILITY.md")


def test_the_search_ends_below_a_directory_this_user_may_not_search(shared, monkeypatch):  # noqa: F811 - the fixture imported above
    """A checkout inside another user's private directory (CI copies one into a 0700 temp
    directory; the permission tests run as nobody there) finds no configuration above it, and no
    error: that directory is a ceiling. The project's own directory must still be readable."""
    private, checkout = shared / "private", shared / "private" / "checkout"
    checkout.mkdir(parents=True)
    (private / "agy-audit.toml").write_text('baseline-dir = "never-read"\n')
    give_away(checkout)
    private.chmod(0o700 if os.geteuid() == 0 else 0o100)  # root owns it: nobody cannot search it
    monkeypatch.chdir(checkout)
    try:
        found = unprivileged(project.load)
    finally:
        private.chmod(0o700)
    assert found == project.Project(Path("."), None, Path("fingerprints"), Path("COMPATIBILITY.md"))
    (checkout / "agy-audit.toml").write_text('baseline-dir = "mine"\n')
    give_away(checkout)
    private.chmod(0o700 if os.geteuid() == 0 else 0o100)
    try:
        found = unprivileged(project.load)
    finally:
        private.chmod(0o700)
    assert (found.file, found.baseline_dir) == (Path("agy-audit.toml"), Path("mine"))


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "agy-audit.toml",
            'baseline_dir = "x"\n',
            "agy-audit.toml: unknown key 'baseline_dir' (the keys are baseline-dir, compat-file, consumers, fail-on)",
        ),
        (
            "pyproject.toml",
            '[tool.agy-audit]\nfail-on = "sometimes"\n',
            "pyproject.toml: fail-on: must be one of drift, breaking, never or consumer:NAME, or a list of them",
        ),
        ("pyproject.toml", "[tool]\nagy-audit = 3\n", "pyproject.toml: [tool.agy-audit] is not a table"),
        ("agy-audit.toml", "baseline-dir = 3\n", "agy-audit.toml: baseline-dir: must be a non-empty string (a path)"),
        ("agy-audit.toml", 'consumers = "codeburn"\n', "agy-audit.toml: consumers: must be a list of profile names or files"),
        ("agy-audit.toml", "baseline-dir = \n", "agy-audit.toml: not valid TOML (Invalid value (at line 1, column 16))"),
    ],
)
def test_a_bad_configuration_is_one_line_naming_the_file_and_the_key_exit_2(here, name, text, message):
    (here / name).write_text(text)
    for command in (["baselines"], ["compare", "x"], ["record", "x", "--name", "agy-1.0.0"], ["ci"], ["doctor"]):
        assert cli(*command) == (2, "", f"agy-audit: {message}\n"), command
