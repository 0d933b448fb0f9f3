"""A crash is not a finding (issue 35 item 3, issue 38's tracebacks).

An unexpected exception exits 70 with one line naming it and the private crash report; the cases
a hostile probe found tracebacks on each give a one-line error or a correct result instead: a
4,301-digit integer in a transcript, a stale temp file whose pid overflows ``os.kill``, arrays
nested 300 and more deep in ``diff`` and ``links verify``, a non-UTF-8 standard output, a closed
one, and one on a full disk.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from cli_capture import cli

from audit.cli import main
from audit.store import layout
from audit.store.daemon import Secret
from audit.testing import StoreBuilder

REPO = Path(__file__).resolve().parents[2]
TOKEN = "crash-tok-5d1e9a7c3b0f2e4d6a8c"


def run(*argv: object, env: dict | None = None, **kwargs) -> subprocess.CompletedProcess:
    """``python -m audit ARGV`` in a child process (bytes captured unless *kwargs* say otherwise)."""
    options = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **kwargs}
    return subprocess.run(
        [sys.executable, "-m", "audit", *map(str, argv)],
        env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
        **options,
    )


# ----------------------------------------------------------------------------- the crash path


@pytest.fixture
def crashing(tmp_path, monkeypatch):
    """``stores`` made to raise an exception no one expects, holding the token in its message."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))

    def scan(*args, **kwargs):
        Secret(TOKEN)  # a token this run knows, as after discovery
        raise RuntimeError(f"unexpected state; token {TOKEN[:12]} in the middle and {TOKEN}")

    monkeypatch.setattr(layout, "scan", scan)
    return StoreBuilder(tmp_path / "home", seed=2).root("cli")


def test_an_unexpected_exception_exits_70_with_one_line_and_a_private_report(crashing, tmp_path):
    code, out, err = cli("stores", "--root", crashing.path)
    reports = sorted((tmp_path / "cache" / "agy-audit").iterdir())
    assert (code, out, len(reports)) == (70, "", 1)
    assert err == (
        "agy-audit: internal error: RuntimeError: unexpected state; token <redacted> in the middle and <redacted>; "
        f"this is a bug in agy-audit: the full report is in {reports[0]}\n"
    )
    report = reports[0].read_text()
    assert stat.S_IMODE(reports[0].stat().st_mode) == 0o600
    assert stat.S_IMODE(reports[0].parent.stat().st_mode) == 0o700
    assert report.startswith("agy-audit 0.1.0 on Python ") and f"command: agy-audit stores --root {crashing.path}\n" in report
    assert "Traceback (most recent call last):" in report and 'in scan\n    raise RuntimeError(f"unexpected state' in report
    assert not any(TOKEN[i : i + 8] in report for i in range(len(TOKEN) - 7))


def test_the_debug_variable_also_shows_the_traceback(crashing, monkeypatch):
    monkeypatch.setenv("AGY_AUDIT_DEBUG", "1")
    code, out, err = cli("stores", "--root", crashing.path)
    assert code == 70 and err.startswith("agy-audit ") and "Traceback (most recent call last):" in err
    assert err.splitlines()[-1].startswith("agy-audit: internal error: RuntimeError: unexpected state; token <redacted>")
    assert TOKEN[:8] not in err


def test_a_crash_report_that_cannot_be_written_says_how_to_see_it(crashing, tmp_path, monkeypatch):
    (tmp_path / "cache").write_text("a file where the cache directory would be")
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path / "cache" / "no-such-dir"))
    code, out, err = cli("stores", "--root", crashing.path)
    assert code == 70 and err.endswith(
        "this is a bug in agy-audit: no report could be written; run again with AGY_AUDIT_DEBUG=1 to see it\n"
    )


def test_a_crash_in_a_child_process_has_no_traceback_on_stderr(tmp_path):
    # the real interpreter and its exit path, with the crash injected into main()'s command
    code = (
        "import sys\nfrom audit import cli\nfrom audit.store import layout\n"
        "def boom(*a, **k): raise ZeroDivisionError('division by zero')\n"
        "layout.scan = boom\nraise SystemExit(cli.main(['stores', '--root', sys.argv[1]]))\n"
    )
    root = StoreBuilder(tmp_path / "home", seed=2).root("cli")
    root.conversation(turns=1)
    done = subprocess.run(
        [sys.executable, "-c", code, str(root.path)],
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO), "XDG_CACHE_HOME": str(tmp_path / "cache")},
        timeout=60,
        check=False,
    )
    err = done.stderr.decode()
    assert done.returncode == 70 and err.count("\n") == 1 and "Traceback" not in err
    assert re.fullmatch(
        r"agy-audit: internal error: ZeroDivisionError: division by zero; this is a bug in agy-audit: "
        r"the full report is in .*/cache/agy-audit/crash-[0-9T.]+Z-[0-9]+\.txt\n",
        err,
    )


# ----------------------------------------------------------------------------- the probe's tracebacks


BIG = "9" * 4301


@pytest.fixture
def big_integers(tmp_path):
    """A session whose transcripts hold 4,301-digit integers as step_index, exit_code and error_code."""
    root = StoreBuilder(tmp_path / "home", seed=8).root("cli")
    convo = root.conversation(turns=2)
    root.install_files([convo], cli=True)
    logs = convo.paths["brain"] / ".system_generated" / "logs"
    for name in ("transcript.jsonl", "transcript_full.jsonl"):
        lines = (logs / name).read_text().splitlines()
        lines[0] = lines[0].replace('"step_index":0', f'"step_index":{BIG}', 1)
        lines[1] = lines[1][:-1] + f',"exit_code":-{BIG},"error_code":{BIG}}}'
        (logs / name).write_text("\n".join(lines) + "\n")
    with open(root.path / "history.jsonl", "a") as fh:
        fh.write(f'{{"conversationId": "{convo.id}", "display": "x", "timestamp": {BIG}, "workspace": "/w", "type": "chat"}}\n')
    return root, convo


def test_a_4301_digit_integer_in_a_transcript_is_a_finding_not_a_traceback(big_integers, tmp_path):
    root, convo = big_integers
    commands = {
        "stores": ("stores", "--root", root.path),
        "export": ("export", "--root", root.path, convo.id),
        "inspect": ("inspect", "--root", root.path, convo.id, "--format", "json"),
        "sweep": ("sweep", "--source", "native", "--root", root.path, "--out", tmp_path / "sweep"),
        "completeness": ("completeness", "--root", root.path),
        "verify-contract": ("verify-contract", root.path),
        "fingerprint": ("fingerprint", root.path),
        "consistency": ("consistency", "--root", root.path),
        "ci": ("ci", "--source", "native", "--root", root.path, "--out", tmp_path / "ci"),
        "doctor": ("doctor", "--root", root.path),
        "diff": ("diff", root.path, root.path),
    }
    codes = {}
    for name, argv in commands.items():
        code, out, err = cli(*argv)
        assert "Traceback" not in err and "internal error" not in err, (name, err)
        codes[name] = code
    assert codes == {
        "stores": 0,
        "export": 0,
        "inspect": 0,
        "sweep": 0,
        "completeness": 0,
        "verify-contract": 0,
        "fingerprint": 0,
        "consistency": 0,
        "ci": 0,
        "doctor": 1,
        "diff": 0,
    }
    code, out, _ = cli("inspect", "--root", root.path, convo.id, "--format", "json")
    found = [(Path(f["file"]).name, f["line"], f["rule"]) for f in json.loads(out)["findings"]]
    # in both tiers: the huge step_index is no index (the window starts at step 1), the huge
    # exit_code and error_code are judged where they sit
    assert found == [
        ("transcript.jsonl", 2, "transcript/window/late"),
        ("transcript_full.jsonl", 2, "transcript/window/late"),
        ("transcript.jsonl", 2, "transcript/error_code/placement"),
        ("transcript.jsonl", 2, "transcript/exit_code/placement"),
        ("transcript_full.jsonl", 2, "transcript/error_code/placement"),
        ("transcript_full.jsonl", 2, "transcript/exit_code/placement"),
    ]


def test_a_temp_file_whose_pid_overflows_is_left_alone(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    root.family(children=1)
    odd = root.path / "conversations" / f".x.trajectory.json.agy{'9' * 30}-abcdefgh.tmp"
    odd.write_text("not ours")
    code, out, err = cli("links", "backfill", "--root", root.path)
    assert (code, err) == (0, "") and "stamped=1" in out
    assert odd.read_text() == "not ours"


def _nested(value: int, depth: int = 320) -> str:
    return "[" * depth + str(value) + "]" * depth


def test_arrays_nested_300_deep_are_compared_by_diff(tmp_path):
    base = json.dumps({"cascadeId": "0a1b2c3d-0000-4000-8000-00000000000a", "steps": []})[:-1]
    (tmp_path / "a.json").write_text(base + f', "deep": {_nested(1)}}}')
    (tmp_path / "b.json").write_text(base + f', "deep": {_nested(2)}}}')
    code, out, err = cli("diff", tmp_path / "a.json", tmp_path / "b.json", "--format", "json")
    assert (code, err) == (1, "")
    (change,) = json.loads(out)["result"]["pairs"][0]["changes"]
    assert change["kind"] == "changed" and change["path"] == "deep" + ".[0]" * 63
    assert json.dumps(change["old"], separators=(",", ":")) == _nested(1, 320 - 63)
    assert json.dumps(change["new"], separators=(",", ":")) == _nested(2, 320 - 63)
    assert cli("diff", tmp_path / "a.json", tmp_path / "a.json") == (
        0,
        f"{tmp_path / 'a.json'} vs {tmp_path / 'a.json'}: no differences\n"
        "diff: 1 pair(s) compared, 0 different, 0 only in A, 0 only in B\n",
        "",
    )


def test_arrays_nested_300_deep_are_explained_by_links_verify(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    parent, _ = root.family(children=1)
    sidecar = parent.paths["sidecar"]
    st = sidecar.stat()
    sidecar.write_text(sidecar.read_text().rstrip()[:-1] + f', "deep": {_nested(1)}}}\n')
    os.utime(sidecar, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert cli("links", "repair", "--root", root.path, "--backup", tmp_path / "backup")[0] == 0
    sidecar.write_text(sidecar.read_text().replace(_nested(1), _nested(2)))
    os.utime(sidecar, ns=(st.st_atime_ns, st.st_mtime_ns))
    code, out, err = cli("links", "verify", "--backup", tmp_path / "backup")
    assert (code, err) == (1, "")
    assert f"  problem: {sidecar.name}: payload changed outside agyReader.parentCascadeId (changed deep{'.[0]' * 63})\n" in out


# ----------------------------------------------------------------------------- standard output


def test_a_non_utf8_standard_output_escapes_what_it_cannot_encode(tmp_path):
    root = StoreBuilder(tmp_path / "hömé ☃", seed=4).root("cli")
    root.conversation(turns=1)
    done = run("stores", "--root", root.path, env={"PYTHONIOENCODING": "ascii"})
    assert (done.returncode, done.stderr) == (0, b"")
    shown = str(root.path).replace("ö", "\\xf6").replace("é", "\\xe9").replace("☃", "\\u2603")
    assert f"\n{shown}  cli " in done.stdout.decode("ascii")


def test_a_closed_standard_output_runs_nothing(tmp_path):
    root = StoreBuilder(tmp_path / "home", seed=4).root("cli")
    root.family(children=1)
    before = sorted((p.name, p.read_bytes()) for p in (root.path / "conversations").iterdir())
    done = run("links", "backfill", "--root", root.path, stdout=None, stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert (done.returncode, done.stderr) == (
        2,
        b"agy-audit: standard output is closed; nothing was run (redirect it to a file or to /dev/null)\n",
    )
    assert sorted((p.name, p.read_bytes()) for p in (root.path / "conversations").iterdir()) == before


def test_a_full_standard_output_is_one_line_exit_2_for_argparse_too():
    # argparse's own output (help, version) was lost without a word, exit 0: the interpreter's own
    # exit once, then main() in-process for the others
    with open("/dev/full", "wb") as full:
        done = run("--help", stdout=full)
    assert (done.returncode, done.stderr) == (2, b"agy-audit: standard output: cannot write (No space left on device)\n")
    for argv in (["--version"], ["links", "--help"]):
        with open("/dev/full", "w") as full, contextlib.redirect_stdout(full), contextlib.redirect_stderr(io.StringIO()) as err:
            with pytest.raises(SystemExit) as exited:
                main(argv)
        assert (exited.value.code, err.getvalue()) == (2, "agy-audit: standard output: cannot write (No space left on device)\n")
