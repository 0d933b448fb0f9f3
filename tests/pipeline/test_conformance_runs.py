"""Running a maintainer's command (``audit.pipeline.command``, ``agy-audit conformance``) when it
misbehaves: a timeout, a hang that ignores SIGTERM, a crash, a signal, bytes that are not UTF-8,
too much output, something left running, Ctrl-C; each bounded, never a traceback, the store unread
for writing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from audit.actions import mutate
from audit.errors import Terminated
from audit.pipeline import command, conformance
from audit.report import conformance_report
from tests.cli_capture import cli
from tests.pipeline.test_reader_conformance import build, state

pytestmark = pytest.mark.skipif(os.name != "posix", reason="signals and process groups")


def _python(script: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(script)]


def _run(tmp_path: Path, script: str, **kwargs) -> command.Run:
    (tmp_path / "home").mkdir(exist_ok=True)
    (tmp_path / "tmp").mkdir(exist_ok=True)
    return command.run(_python(script), tmp_path / "home", tmp_path / "tmp", **({"timeout": 10.0} | kwargs))


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("runs") / "home")


def test_a_run_that_outlives_its_timeout_is_ended(tmp_path):
    started = time.monotonic()
    run = _run(tmp_path, "import time; print('started', flush=True); time.sleep(60)", timeout=0.5)
    assert run.timed_out and run.exit_code is None and run.signal == "SIGTERM" and run.stdout == b"started\n"
    assert time.monotonic() - started < 0.5 + command.KILL_GRACE


def test_a_run_that_ignores_sigterm_is_killed_a_grace_later(tmp_path):
    started = time.monotonic()
    script = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); print('deaf', flush=True); time.sleep(60)"
    run = _run(tmp_path, script, timeout=0.5)
    took = time.monotonic() - started
    assert run.timed_out and run.signal == "SIGKILL" and run.stdout == b"deaf\n"
    assert command.KILL_GRACE + 0.5 <= took < command.KILL_GRACE + 2.5


@pytest.mark.parametrize(("sig", "raised"), [(signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, Terminated)])
def test_a_signal_while_the_command_starts_ends_it(tmp_path, monkeypatch, sig, raised):
    # the command runs before Popen returns: a Ctrl-C then must end it, not leave it running
    started: list[subprocess.Popen[bytes]] = []
    popen = subprocess.Popen

    def signalled_while_starting(*args, **kwargs):
        started.append(popen(*args, **kwargs))
        os.kill(os.getpid(), sig)
        return started[-1]

    def interrupt(signum, frame):  # as agy-audit's own handlers do (a regression fails here, not the worker)
        raise raised()

    monkeypatch.setattr(command.subprocess, "Popen", signalled_while_starting)
    previous = signal.signal(sig, interrupt)
    try:
        with pytest.raises(raised):
            _run(tmp_path, "import time; time.sleep(60)")
        assert started[0].returncode in (-signal.SIGTERM, -signal.SIGKILL)  # ended and reaped
    finally:
        signal.signal(sig, previous)
        started[0].kill()
        started[0].wait()


def test_what_a_run_leaves_running_in_its_group_is_killed(tmp_path):
    script = "import subprocess; print(subprocess.Popen(['sleep', '60']).pid)"
    run = _run(tmp_path, script)
    pid = int(run.stdout)
    assert run.exit_code == 0 and not run.timed_out
    for _ in range(100):  # reaped by whoever adopted it, or a zombie: no longer running
        try:
            status = Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0]
        except FileNotFoundError:
            break
        if status == "Z":
            break
        time.sleep(0.02)
    else:
        pytest.fail(f"pid {pid} still runs")


def test_a_signal_is_named_and_output_past_the_cap_is_dropped(tmp_path, monkeypatch):
    run = _run(tmp_path, "import os, signal; os.kill(os.getpid(), signal.SIGABRT)")
    assert (run.exit_code, run.signal, run.timed_out) == (None, "SIGABRT", False)
    monkeypatch.setattr(command, "MAX_OUTPUT", 1000)
    run = _run(tmp_path, "import sys; sys.stdout.write('x' * 100000); sys.stderr.write('y' * 5)")
    assert run.exit_code == 0 and run.stdout == b"x" * 1000 and run.stderr == b"yyyyy" and run.truncated


def test_the_environment_is_clean_and_home_is_the_copy(tmp_path, monkeypatch):
    monkeypatch.setenv("ANTIGRAVITY_CLI_ROOT", "/real/store")
    monkeypatch.setenv("XDG_CONFIG_HOME", "/real/home/.config")
    monkeypatch.setenv("LC_TIME", "C")
    monkeypatch.setenv("PASS_ME", "yes")
    run = _run(tmp_path, "import json, os; print(json.dumps(dict(os.environ)))", passed=("PASS_ME",))
    env = json.loads(run.stdout)
    assert not any(k.startswith(("ANTIGRAVITY_", "XDG_")) for k in env)
    assert env["HOME"] == env["USERPROFILE"] == str(tmp_path / "home")
    assert env["TMPDIR"] == env["TMP"] == env["TEMP"] == str(tmp_path / "tmp")
    assert env["LC_TIME"] == "C" and env["PASS_ME"] == "yes" and env["PATH"] == os.environ["PATH"]
    assert set(env) <= {*command.PASSED, "LC_TIME", "LC_ALL", "LC_CTYPE", "PASS_ME", *command.SET}
    code, _, err = cli("conformance", "--env", "ANTIGRAVITY_HOME", "--", "true")
    assert (
        code == 2
        and err == "agy-audit: --env ANTIGRAVITY_HOME: not passed (it would point the command at a real store or home)\n"
    )


def test_a_reader_that_writes_into_its_home_changes_only_its_copy(store):
    before = state(store)
    script = """
        import os, shutil, pathlib
        gemini = pathlib.Path.home() / ".gemini"
        shutil.rmtree(gemini / "antigravity-cli" / "brain")
        (gemini / "scribble").write_text("x")
        os.chmod(gemini, 0o500)
        print("done")
    """
    result = conformance.check(store, _python(script), [mutate.CATALOGUE["new-model"]])
    assert [o.result for o in result.outcomes] == [conformance.UNCHANGED]
    assert state(store) == before


def test_output_that_is_not_utf8_is_compared_as_text(store):
    script = """
        import glob, os, sys
        flat = len(glob.glob(os.path.expanduser("~/.gemini/*/brain/*/.system_generated/logs/transcript.jsonl")))
        sys.stdout.buffer.write(b"\\xff\\xfe flat transcripts: %d\\n" % flat)
    """
    result = conformance.check(store, _python(script), [mutate.CATALOGUE["chunks-only"], mutate.CATALOGUE["new-model"]])
    assert result.output == "text" and [o.result for o in result.outcomes] == [conformance.SILENT, conformance.UNCHANGED]
    (changed, _) = result.outcomes
    assert [(d.kind, d.path, d.old, d.new) for d in changed.differences] == [
        ("removed", "line 1", "\\xff\\xfe flat transcripts: 4", None),
        ("added", "line 1", None, "\\xff\\xfe flat transcripts: 0"),
    ]
    code, out, err = cli("conformance", "--home", store, "--mutation", "chunks-only", *["--", *_python(script)])
    assert (code, err) == (1, "") and "       - line 1: \\xff\\xfe flat transcripts: 4\n" in out
    assert conformance_report.to_json(result)["baseline"]["output"] == "text"


def test_a_crash_by_signal_and_a_timeout_are_crashes(store):
    script = """
        import glob, os, signal, time
        if not glob.glob(os.path.expanduser("~/.gemini/*/brain/*/.system_generated/logs/transcript.jsonl")):
            os.kill(os.getpid(), signal.SIGABRT)
        if glob.glob(os.path.expanduser("~/.gemini/antigravity-agent")):
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            time.sleep(60)
        print("ok")
    """
    started = time.monotonic()
    chosen = ("--mutation", "chunks-only", "--mutation", "rename-cli-root", "--mutation", "new-model")
    code, out, err = cli("conformance", "--home", store, *chosen, "--timeout", "1", "--format", "json", "--", *_python(script))
    assert time.monotonic() - started < 20
    assert (code, err) == (1, "")
    assert [(m["outcome"], m["why"], m["signal"], m["timedOut"]) for m in json.loads(out)["result"]["mutations"]] == [
        (conformance.CRASHED, "ended by SIGABRT", "SIGABRT", False),
        (conformance.CRASHED, "timed out after 1 s (ended)", "SIGKILL", True),  # it ignored SIGTERM
        (conformance.UNCHANGED, "the same output", None, False),
    ]


def test_a_command_that_fails_on_the_store_itself_cannot_be_judged(store):
    code, out, err = cli("conformance", "--home", store, "--", sys.executable, "-c", "import sys; sys.exit('no store for me')")
    assert (code, out) == (2, "")
    assert (
        err == f"agy-audit: {sys.executable}: exit 1: no store for me on the unmutated copy of the store; nothing can be judged\n"
    )
    code, _, err = cli("conformance", "--home", store, "--", "/nonexistent/reader")
    assert code == 2 and err == "agy-audit: /nonexistent/reader: cannot run (No such file or directory)\n"
    code, _, err = cli("conformance", "--home", store)
    assert code == 2 and err.startswith("agy-audit: conformance: give the command to run after --")


def test_an_output_that_changes_by_itself(store):
    for clock in ("print(time.time_ns())", "print('now', time.time_ns())"):  # a JSON number, a line of text
        code, _, err = cli("conformance", "--home", store, "--", sys.executable, "-c", f"import time; {clock}")
        assert code == 2 and err.startswith(f"agy-audit: {sys.executable}: its output differs between two runs on the same copy")
    script = "import json, time; print(json.dumps({'at': time.time_ns(), 'n': 1}))"
    result = conformance.check(store, _python(script), [mutate.CATALOGUE["new-model"]])
    assert result.volatile == ("at",) and [o.result for o in result.outcomes] == [conformance.UNCHANGED]


def test_no_store_is_nothing_to_run(tmp_path):
    code, _, err = cli("conformance", "--home", tmp_path, "--", "true")
    assert code == 3 and err == f"agy-audit: {tmp_path / '.gemini'}: no Antigravity store (antigravity*) found\n"


@pytest.mark.parametrize(("sig", "code", "said"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_ctrl_c_ends_the_reader_and_leaves_nothing_behind(store, tmp_path, sig, code, said):
    marker = tmp_path / "pid"
    script = "import os, pathlib, time; pathlib.Path(os.environ['MARKER']).write_text(str(os.getpid())); time.sleep(60)"
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTIGRAVITY_")} | {"TMPDIR": str(temp), "MARKER": str(marker)}
    argv = [
        sys.executable,
        "-m",
        "audit",
        "conformance",
        "--home",
        str(store),
        "--env",
        "MARKER",
        "--",
        sys.executable,
        "-c",
        script,
    ]
    child = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 20
        while not marker.exists() or not marker.read_text():
            assert time.monotonic() < deadline and child.poll() is None
            time.sleep(0.02)
        child.send_signal(sig)
        out, err = child.communicate(timeout=10)
    finally:
        child.kill()
    assert (child.returncode, out, err) == (code, b"", f"agy-audit: {said}\n".encode())
    reader = int(marker.read_text())
    with pytest.raises(ProcessLookupError):
        for _ in range(200):
            os.kill(reader, 0)
            if Path(f"/proc/{reader}/stat").read_text().split(") ")[1][0] == "Z":
                raise ProcessLookupError
            time.sleep(0.01)
    assert os.listdir(temp) == []
