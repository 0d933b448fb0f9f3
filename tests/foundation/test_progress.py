"""Progress on stderr (``audit.progress``, ``--progress``, ``$AGY_AUDIT_PROGRESS``) and ``--quiet``:
every long command shows plain lines off a terminal and a self-overwriting line on one, none with
``--quiet`` or ``--progress off``, and its standard output is the same byte for byte either way."""

from __future__ import annotations

import io
import os
import re
import shutil
import sys
import threading
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from audit import progress
from audit.cli import main
from audit.errors import UsageError
from audit.testing.builder import StoreBuilder
from audit.testing.daemon import SimulatedDaemon
from tests.cli_capture import cli
from tests.pipeline.test_ci import STEPS as CI_STEPS

LINE = re.compile(r"(?P<label>[^:\r\n]+(?:: [^:\r\n]+)?): \d+/\d+ (?P<unit>\w+), \d+\.\d/s, now [^\r\n]*")


@pytest.fixture(autouse=True)
def _at_once(monkeypatch):
    """Every call draws (no waiting a second, nor ten), and no variable from conftest decides."""
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 0.0)
    monkeypatch.setattr(progress, "EVERY", 0.0)
    monkeypatch.delenv(progress.ENV)


# ----------------------------------------------------------------------------- choosing the style


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("mode", "quiet", "env", "tty", "machine", "expected"),
    [
        (None, False, None, True, False, progress.LINE),
        (None, False, None, False, False, progress.PLAIN),
        (None, False, None, False, True, progress.PLAIN),  # a machine format on stdout: stderr is another stream
        (None, True, None, True, False, None),
        (None, True, "on", False, False, None),  # --quiet wins over the variable
        (None, False, "off", True, False, None),
        (None, False, " ON ", False, False, progress.PLAIN),
        (None, False, "", False, False, progress.PLAIN),  # empty: unset
        ("off", False, "on", True, False, None),  # the flag wins over the variable
        ("on", True, None, False, True, progress.PLAIN),  # and over --quiet
        ("on", False, "off", True, False, progress.LINE),
        ("auto", False, "off", False, False, progress.PLAIN),
    ],
)
def test_the_flag_wins_over_quiet_which_wins_over_the_variable(monkeypatch, mode, quiet, env, tty, machine, expected):
    if env is not None:
        monkeypatch.setenv(progress.ENV, env)
    assert progress.style(mode, quiet=quiet, stream=_Stream(tty), output=io.StringIO(), machine=machine) == expected


def test_auto_writes_no_plain_line_into_a_machine_format_on_the_same_file(tmp_path):
    with open(tmp_path / "both", "w") as both, open(tmp_path / "other", "w") as other:
        assert progress.same_file(both, both) and not progress.same_file(both, other)
        assert progress.style(None, quiet=False, stream=both, output=both, machine=True) is None  # 2>&1 > out.json
        assert progress.style(None, quiet=False, stream=both, output=both, machine=False) == progress.PLAIN  # a text log
        assert progress.style("on", quiet=False, stream=both, output=both, machine=True) == progress.PLAIN
        assert progress.style(None, quiet=False, stream=both, output=other, machine=True) == progress.PLAIN
    assert not progress.same_file(io.StringIO(), io.StringIO())


def test_a_variable_that_names_no_mode_is_a_usage_error(monkeypatch, tmp_path):
    monkeypatch.setenv(progress.ENV, "loud")
    with pytest.raises(UsageError, match=r"^AGY_AUDIT_PROGRESS='loud': not one of auto, on, off$"):
        progress.style(None, quiet=False, stream=io.StringIO())
    assert cli("fingerprint", tmp_path) == (2, "", "agy-audit: AGY_AUDIT_PROGRESS='loud': not one of auto, on, off\n")
    with pytest.raises(SystemExit) as exit_:
        cli("fingerprint", tmp_path, "--progress", "loud")
    assert exit_.value.code == 2


def test_plain_lines_come_every_interval_and_escape_the_item(monkeypatch):
    monkeypatch.setattr(progress, "AFTER", 1.0)
    monkeypatch.setattr(progress, "PLAIN_EVERY", 10.0)
    stream = io.StringIO()
    bar = progress.Progress(stream, "scan", "files", plain=True)
    bar(0, 3, "a")  # within the first second: nothing
    bar.start -= 5
    bar(1, 3, "b\x1b[2Jc\nd")
    bar(2, 3, "e")  # within ten seconds of the last line
    bar.last -= 10
    bar(2, 3, "f")
    bar.close()
    lines = stream.getvalue().splitlines()
    assert [re.sub(r"\d+\.\d/s", "R/s", line) for line in lines] == [
        "scan: 1/3 files, R/s, now b\\x1b[2Jc\\nd",
        "scan: 2/3 files, R/s, now f",
    ]


def test_the_label_is_escaped_too():
    line = progress.progress_line("doctor a\x1b[2Jb", "files", 1, 2, "c\rd", 0.0)
    assert line == "doctor a\\x1b[2Jb: 1/2 files, 0.0/s, now c\\rd"


def test_progress_never_shows_the_csrf_token(tmp_path, monkeypatch):
    token = "progress-token-7c1d9e2f4a6b8c0d"
    root = StoreBuilder(tmp_path / "home", seed=37).root("cli")
    ids = [root.conversation(turns=1).id for _ in range(2)]
    monkeypatch.setenv("ANTIGRAVITY_CSRF_TOKEN", token)
    with SimulatedDaemon(root.path, token=token) as daemon:
        argv = ["sweep", "--home", tmp_path / "home", "--source", "daemon", "--out", tmp_path / "out", "--progress", "on"]
        code, out, err = cli(*argv)
        calls = list(daemon.calls)
    assert code == 0, err
    assert {cid for method, cid in calls if method == "GetCascadeTrajectory"} == set(ids)  # through the daemon
    lines, _ = _split(err)
    assert _labels(lines) == ["sweep"] and {line.rsplit(" now ", 1)[1] for line in lines} == set(ids)
    assert token not in out + err


def test_tracked_tells_before_each_item():
    seen: list[tuple[int, int, str]] = []
    assert list(progress.tracked(["x", "y"], lambda *a: seen.append(a), str.upper)) == ["x", "y"]
    assert seen == [(0, 2, "X"), (1, 2, "Y")]
    assert list(progress.tracked([1], None)) == [1]


# ----------------------------------------------------------------------------- every long command


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A home with a family of sessions (one child stamped with a wrong parent, so a repair
    changes something), an ordinary session and an IDE root."""
    home = tmp_path_factory.mktemp("progress") / "home"
    b = StoreBuilder(home, seed=35)
    cli_root = b.root("cli")
    parent, children = cli_root.family(children=2)
    cli_root.conversation(turns=2, reader_block={"parentCascadeId": children[0].id})
    b.root("ide").conversation(turns=1)
    return home


CLI_ROOT = ".gemini/antigravity-cli"


def _repair(ws: Path) -> None:
    assert cli("links", "repair", "--root", ws / "home" / CLI_ROOT, "--backup", ws / "bk", "-q")[0] == 0


def _sweep(ws: Path) -> None:
    assert cli("sweep", "--home", ws / "home", "--source", "native", "--out", ws / "corpus", "-q")[0] == 0


# name -> (argv with {ws} for the workspace, a preparation, the progress labels shown, in order)
COMMANDS = {
    "sweep": ("sweep --home {ws}/home --source native --out {ws}/out", None, ["sweep"]),
    "ci": (
        "ci --home {ws}/home --source native --out {ws}/out --jobs 1",
        None,
        CI_STEPS,
    ),
    "verify-contract": ("verify-contract {ws}/home/" + CLI_ROOT + "/conversations", None, ["verify-contract"]),
    "completeness": ("completeness --home {ws}/home", None, ["completeness"]),
    "completeness --attest": ("completeness --home {ws}/home --attest", None, ["completeness"]),
    "consistency": ("consistency --home {ws}/home", None, ["consistency"]),
    "diff": ("diff {ws}/home/" + CLI_ROOT + "/conversations {ws}/home/" + CLI_ROOT + "/conversations", None, ["diff"]),
    "fingerprint": ("fingerprint {ws}/home", None, ["fingerprint"]),
    "compare": ("compare {ws}/home --baseline agy-1.2.11 --fail-on never", None, ["compare: fingerprint"]),
    "consumers check": ("consumers check codeburn {ws}/home", None, ["consumers check: fingerprint"]),
    "links check": ("links check --home {ws}/home", None, ["links check"]),
    "links backfill": ("links backfill --home {ws}/home", None, ["links backfill"]),
    "links repair": (
        "links repair --root {ws}/home/" + CLI_ROOT + " --backup {ws}/bk",
        None,
        ["links repair: read", "links repair: backup", "links repair: verify"],
    ),
    "links verify": ("links verify --backup {ws}/bk", _repair, ["links verify"]),
    "links rollback": ("links rollback --backup {ws}/bk", _repair, ["links rollback"]),
    "redact": (
        "redact {ws}/home --out {ws}/out --seed s",
        None,
        [
            "redact: copy",
            "redact: proof, fingerprints of the source",
            "redact: proof, fingerprints of the copy",
            "redact: proof, search of the copy for source strings",
        ],
    ),
    "record": (
        "record {ws}/corpus --name agy-9.9.9 --unverified-name --baseline-dir {ws}/baselines --compat-file {ws}/COMPATIBILITY.md",
        _sweep,
        ["record: fingerprint", "record: verify-contract sidecars", "record: verify-contract transcripts"],
    ),
    "mutate": ("mutate --home {ws}/home --out {ws}/out --mutation new-model --mutation drop-steps-metadata", None, ["mutate"]),
    "conformance": (
        "conformance --home {ws}/home --mutation new-model -- " + sys.executable + " -c pass",
        None,
        ["conformance"],
    ),
    "doctor": (
        "doctor --home {ws}/home",
        None,
        [
            f"doctor {name}: {what}"
            for name in ("antigravity", "antigravity-cli")
            for what in ("completeness", "links", "verify-contract")
        ],
    ),
}


class Workspace:
    """The same paths for every run of a command, laid anew from *pristine* before each."""

    def __init__(self, pristine: Path, path: Path, command: str) -> None:
        self.pristine, self.path = pristine, path
        template, self.prepare, self.labels = COMMANDS[command]
        self.argv = template.format(ws=path).split()

    def reset(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        shutil.copytree(self.pristine, self.path / "home", symlinks=True)
        if self.prepare is not None:
            self.prepare(self.path)

    def run(self, *options: str) -> tuple[int, str, str]:
        self.reset()
        return cli(*self.with_options(*options))

    def with_options(self, *options: str) -> list[str]:
        """The command line with *options* added (before ``--`` and the command of ``conformance``)."""
        end = self.argv.index("--") if "--" in self.argv else len(self.argv)
        return [*self.argv[:end], *options, *self.argv[end:]]


def _split(stderr: str) -> tuple[list[str], list[str]]:
    """(progress lines, the other lines) of *stderr*."""
    lines = stderr.splitlines()
    return [line for line in lines if LINE.fullmatch(line)], [line for line in lines if not LINE.fullmatch(line)]


def _labels(lines: list[str]) -> list[str]:
    return list(dict.fromkeys(m["label"] for m in map(LINE.fullmatch, lines) if m))


LONGEST = {"ci", "compare", "conformance", "mutate", "redact"}  # a few seconds for the runs of a test
CASES = [pytest.param(c, marks=pytest.mark.slow) if c in LONGEST else c for c in sorted(COMMANDS)]


@pytest.mark.parametrize("command", CASES)
def test_progress_off_a_terminal_is_plain_lines_and_stdout_is_unchanged(command, pristine, tmp_path, monkeypatch):
    ws = Workspace(pristine, tmp_path / "ws", command)
    monkeypatch.chdir(tmp_path)
    code, out, err = ws.run("--progress", "off")
    assert _split(err)[0] == []
    shown = ws.run()  # auto: stderr is not a terminal
    assert shown[:2] == (code, out)
    lines, rest = _split(shown[2])
    assert _labels(lines) == ws.labels
    assert rest == err.splitlines()  # the other lines of stderr are the same
    assert "\r" not in shown[2] and "\x1b" not in shown[2]
    quiet = ws.run("-q")
    assert quiet[:2] == (code, out) and _split(quiet[2])[0] == []
    monkeypatch.setenv(progress.ENV, "off")
    forced = ws.run("--progress", "on", "-q")  # the flag wins over the variable and over --quiet
    assert forced[:2] == (code, out) and _labels(_split(forced[2])[0]) == ws.labels


@pytest.mark.parametrize("command", CASES)
def test_progress_on_a_terminal_overwrites_one_line(command, pristine, tmp_path, monkeypatch):
    ws = Workspace(pristine, tmp_path / "ws", command)
    monkeypatch.chdir(tmp_path)
    expected = ws.run("--progress", "off")[:2]
    ws.reset()
    (code, out), screen = _on_a_terminal(ws.with_options())
    assert (code, out) == expected
    drawn = re.findall(r"\r(" + LINE.pattern + r")\x1b\[K", screen)
    assert list(dict.fromkeys(d[1] for d in drawn)) == ws.labels
    assert "\x1b[K\r\n" in screen  # each step's line is ended once it is done


def _on_a_terminal(argv: list[str]) -> tuple[tuple[int, str], str]:
    """(exit code, stdout) of ``agy-audit ARGV`` with stderr on a pseudo-terminal, and what the
    terminal received (its line discipline turns each newline into CR LF)."""
    leader, follower = os.openpty()
    received: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the follower side is closed
                return
            if not chunk:
                return
            received.append(chunk)

    reader = threading.Thread(target=drain)
    reader.start()
    out = io.StringIO()
    try:
        with open(follower, "w", encoding="utf-8", closefd=True) as terminal:
            with redirect_stdout(out), redirect_stderr(terminal):
                code = main([str(a) for a in argv])
    finally:
        reader.join(timeout=10)
        os.close(leader)
    assert not reader.is_alive()
    return (code, out.getvalue()), b"".join(received).decode("utf-8")


# ----------------------------------------------------------------------------- --quiet


SAMPLE = Path(__file__).resolve().parents[2] / "examples" / "home"


@pytest.mark.parametrize(
    ("command", "kept"),
    [
        ("consistency --home {home}", ": warning: ["),  # advisories are findings
        ("stores --home {home}", "per-install: "),
        ("links check --home {home}", "\n      "),  # a child in the family tree
        ("sweep --home {home} --source native --newest 2 --out {out}", "\nexcluded: "),
    ],
)
def test_quiet_never_changes_stdout_and_only_removes_lines_from_stderr(command, kept, tmp_path):
    argv = command.format(home=SAMPLE, out=tmp_path / "out").split()
    code, out, err = cli(*argv)
    shutil.rmtree(tmp_path / "out", ignore_errors=True)
    quiet = cli(*argv, "-q")
    assert quiet[:2] == (code, out) and kept in out
    assert set(quiet[2].splitlines()) <= set(err.splitlines())
    assert not _split(quiet[2])[0]


def test_quiet_hides_informational_lines_never_warnings_about_the_result(tmp_path):
    b = StoreBuilder(tmp_path / "home", seed=36)
    convo = b.root("cli").conversation(turns=2, wal_steps=2, shm_without_wal=True)
    n = len(convo.steps)
    lagging = (
        f"export: note: 2 step(s) only in the brain transcript not exported (step {n - 2}-{n - 1}): "
        "the .db lags its transcript; see agyReader.agyAudit.provenance.transcriptOnly\n"
    )
    out = tmp_path / "export.json"
    written = f"exported {convo.id} from its db ({n - 2} steps) to {out}\n"
    assert cli("export", convo.id, "--home", tmp_path / "home", "--out", out) == (0, "", lagging + written)
    quiet = cli("export", convo.id, "--home", tmp_path / "home", "--out", tmp_path / "quiet.json", "-q")
    assert quiet == (0, "", lagging)
