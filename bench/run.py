"""Benchmarks of agy-audit against bare parsing and the standard schema CLI (not part of the tests).

    python bench/run.py [--quick] [--only PART]... [--out FILE]

Generates (once; cached under ``bench/.corpus-<key>/``) four shards of builder sessions shaped
like the agy 1.2.10 baseline (see ``bench/corpus.py``): N = shard 0, 4N = shards 0-3, plus link
corpora of ``links`` and 4x ``links`` sidecars, and a home of 2,000 short sessions (``HOME``). Every ratio compares two timings of this run on
the same files. In-process timings are the CPU time of this process (``time.process_time``:
waiting for the disk or for the hypervisor is left out, on both sides), each the least of 5
interleaved rounds (7 for the sidecar ratios that have goals); command lines are wall-clock,
start-up included (verify-contract / check-jsonschema: 2 rounds; ci: 2 interleaved rounds at N
and at 4N, its roots given as ``--root``, the fastest of each with its CPU time, user + system,
reported beside, and the highest peak RSS; ``ci_vs_sweep`` sets ci at N against ``sweep --source
native`` of the same store in the same rounds: the copy and the decoding that every ci run makes;
the disk's dirty pages are flushed before each of these runs; then ci once on a home of 2,000
short sessions, ``corpus.home``: its time and peak RSS). ``redact`` copies a home of N builder
sessions and one of 4N (``corpus.redact_homes``: 75 and 300) in 2 interleaved rounds, the fastest of
each: its throughput (MiB of the home's files and sessions per second, at 4N) and ``redact_4N_vs_N``.
Peak RSS is ``ru_maxrss`` of ``RUSAGE_CHILDREN`` in a fresh parent of one run of the command, or
for a command of several processes the sum of their peaks (see ``child``). Sizes are MiB.
``--only`` runs some parts (``PARTS``; their corpora alone are built). Results print as a table
and are written as JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

import corpus

from audit.checks import contract, links
from audit.checks.fingerprint import fingerprint_paths
from audit.report.text import table
from audit.resources import data_path
from audit.safewrite import atomic_write
from audit.store.trajectory import read_trajectory

FULL = corpus.Params(sessions=200, turns=14, output_kb=8, links=10_000)
ROUNDS = 5  # in-process timings without goals
SIDECAR_ROUNDS = 7  # the goal ratios: more rounds give each side more chances at a quiet spell
CI_ROUNDS = 2  # ci at N and at 4N, interleaved; the fastest of each, and the highest peak RSS
QUICK = corpus.Params(sessions=8, turns=4, output_kb=4, links=500)
HOME = {
    False: corpus.Params(sessions=2000, turns=2, output_kb=2, links=0),
    True: corpus.Params(sessions=40, turns=2, output_kb=1, links=0),
}
"""The home of many short sessions ``ci`` is also timed on (by --quick)."""
REDACT = {
    False: corpus.Params(sessions=75, turns=4, output_kb=2, links=0),
    True: corpus.Params(sessions=5, turns=2, output_kb=1, links=0),
}
"""The N home ``redact`` copies (by --quick); the 4N home has four times its sessions."""
REDACT_ROUNDS = 2
PARTS = ("sidecars", "db", "ci", "transcript", "links", "redact")
"""What ``--only`` selects: sidecar parsing, fingerprint and verify-contract (in process and as
commands, and their peak RSS); native .db decoding; sweep and ci (and ci on the home of many
sessions); the streamed transcript; links resolution; redact."""
REPO = Path(__file__).resolve().parent.parent
SCHEMA = data_path("schemas") / "sidecar.schema.json"
BASELINE = json.loads((data_path("fingerprints") / "agy-1.2.10" / "baseline.json").read_text())["digests"]["sidecar"]
GOALS = {
    "fingerprint_vs_json_loads": ("<=", 1.5),
    "verify_vs_check_jsonschema": ("<=", 0.1),
    "verify_vs_json_loads": ("<=", 2.0),
    "ci_vs_sweep": ("<=", 2.0),
    "ci_4N_vs_N": ("<=", 4.4),
    "ci_peak_rss_4N_vs_N": ("<=", 1.3),
    "redact_4N_vs_N": ("<=", 4.4),
}


def interleaved(
    functions: dict[str, Callable[[], object]], rounds: int, clock: Callable[[], float] = time.process_time
) -> dict[str, float]:
    """Least seconds (of *clock*) of each function over *rounds* rounds that run them in turn, so
    that a slow spell of the machine hits every side of a ratio alike."""
    fastest = dict.fromkeys(functions, float("inf"))
    for _ in range(rounds):
        for name, function in functions.items():
            start = clock()
            function()
            fastest[name] = min(fastest[name], clock() - start)
    return fastest


_MEASURE = """
import json, os, resource, subprocess, sys, time

def tree(pid):
    found, todo = [], [pid]
    while todo:
        pid = todo.pop()
        found.append(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                with open(f"/proc/{pid}/task/{task}/children") as f:
                    todo += map(int, f.read().split())
        except OSError:
            pass
    return found

def hwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0

start = time.perf_counter()
process = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
peaks = {}
while process.poll() is None:
    for pid in tree(process.pid):
        peaks[pid] = max(peaks.get(pid, 0), hwm(pid))
    time.sleep(0.02)
seconds = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
kib = max(usage.ru_maxrss, sum(peaks.values()))
print(json.dumps([seconds, kib, process.returncode, usage.ru_utime + usage.ru_stime]))
"""


def child(argv: list[str]) -> tuple[float, float, int, float]:
    """(seconds, peak RSS in MiB, exit code, CPU seconds: user + system) of *argv*, output discarded.

    A small fresh Python starts the command and reports ``RUSAGE_CHILDREN``: a command forked
    from this big process would report our RSS (Linux keeps the pre-exec high-water mark). The
    peak RSS of a command of several processes (``ci``'s worker and ``multiprocessing``'s resource
    tracker) is the sum of each one's peak (``VmHWM``, read every 20 ms while it runs), which is
    at least the peak of their sum; ``ru_maxrss`` alone would give the largest process's.
    """
    done = subprocess.run([sys.executable, "-c", _MEASURE, *argv], cwd=REPO, capture_output=True, text=True, check=True)
    seconds, kib, code, cpu = json.loads(done.stdout)
    return seconds, kib / 1024, code, cpu


def check_jsonschema() -> str | None:
    beside = Path(sys.executable).with_name("check-jsonschema")
    return str(beside) if beside.exists() else shutil.which("check-jsonschema")


def json_loads_pass(files: list[Path]) -> None:
    for path in files:
        with open(path, "rb") as fh:
            json.loads(fh.read())


def select_pass(files: list[Path]) -> None:
    for path in files:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True)
        try:
            conn.execute("SELECT * FROM steps").fetchall()
        finally:
            conn.close()


def decode_pass(files: list[Path]) -> int:
    return sum(len(read_trajectory(path).trajectory.get("steps", [])) for path in files)


def fingerprint(dirs: list[Path]) -> None:
    digest = fingerprint_paths(dirs, ("sidecar",)).fingerprints["sidecar"].digest
    if digest != BASELINE:
        raise SystemExit(f"corpus fingerprint {digest} is not the 1.2.10 baseline {BASELINE}")


def verify(dirs: list[Path]) -> None:
    report = contract.verify_paths(dirs)
    if report.invalid or report.unreadable:
        raise SystemExit(f"corpus breaks the contract: {report.counts()}")


TRANSCRIPT_MB = {False: 100, True: 10}
_READ_TRANSCRIPT = (
    "import sys; from audit.store.transcript import iter_transcript, summarize; summarize(iter_transcript(sys.argv[1]))"
)


def cli(*args: object) -> list[str]:
    return [sys.executable, "-m", "audit", *map(str, args)]


SHARD_PARTS = frozenset({"sidecars", "db", "ci", "links"})
"""The parts that read the four shards (and the link corpora, built with them)."""


def measure(parts: frozenset[str], quick: bool, log: Callable[[str], None]) -> dict:
    out: dict = {"corpus": {}, "seconds": {}}
    if parts & SHARD_PARTS:
        params = QUICK if quick else FULL
        shards, links_n, links_4n = corpus.build(params, progress=log)
        _shard_corpus(out, shards, quick, log)
        if "sidecars" in parts:
            _sidecars(out, shards, log)
        if "db" in parts:
            _db(out, shards, log)
        if "ci" in parts:
            _ci(out, shards, corpus.home(HOME[quick], progress=log), log)
        if "links" in parts:
            _links(out, links_n, links_4n, log)
    if "transcript" in parts:
        _transcript(out, quick, log)
    if "redact" in parts:
        _redact(out, *corpus.redact_homes(REDACT[quick], progress=log), log)
    return out


def _shard_corpus(out: dict, shards: list[corpus.Shard], quick: bool, log: Callable[[str], None]) -> None:
    sidecars = {"N": shards[0].sidecars(), "4N": [p for s in shards for p in s.sidecars()]}
    for size in ("N", "4N"):
        files = sidecars[size]
        out["corpus"][size] = {
            "sessions": len(files),
            "sidecar_mb": round(sum(p.stat().st_size for p in files) / 2**20, 1),
            "largest_sidecar_mb": round(max(p.stat().st_size for p in files) / 2**20, 2),
        }
    if not quick and (out["corpus"]["N"]["sessions"] < 200 or out["corpus"]["N"]["sidecar_mb"] < 100):
        raise SystemExit(f"the N corpus is below 200 sessions / 100 MiB of sidecars: {out['corpus']['N']}")
    log("warming the page cache")
    json_loads_pass(sidecars["4N"])
    # The harness's own objects (corpus lists, paths) go to the permanent generation, so a GC pass
    # inside a measured function scans what that function made, as in a command of its own.
    gc.freeze()


def _dirs(shards: list[corpus.Shard]) -> dict[str, list[Path]]:
    return {"N": [shards[0].conversations], "4N": [s.conversations for s in shards]}


def _sidecars(out: dict, shards: list[corpus.Shard], log: Callable[[str], None]) -> None:
    dirs = _dirs(shards)
    sidecars = {"N": shards[0].sidecars()}
    log("sidecars at N: json.loads, fingerprint, verify-contract")
    seconds = out["seconds"]
    seconds.update(
        interleaved(
            {
                "json_loads_N": lambda: json_loads_pass(sidecars["N"]),
                "fingerprint_N": lambda: fingerprint(dirs["N"]),
                "verify_N": lambda: verify(dirs["N"]),
            },
            SIDECAR_ROUNDS,
        )
    )
    out["fingerprint_vs_json_loads"] = seconds["fingerprint_N"] / seconds["json_loads_N"]
    out["verify_vs_json_loads"] = seconds["verify_N"] / seconds["json_loads_N"]

    log("verify-contract command vs check-jsonschema at N")
    tool = check_jsonschema()
    commands = {"verify_cli_N": cli("verify-contract", *dirs["N"])}
    if tool is not None:
        commands["check_jsonschema_N"] = [tool, "--schemafile", str(SCHEMA), *map(str, sidecars["N"])]
    codes = {}

    def run(name: str) -> None:
        codes[name] = child(commands[name])[2]
        if name == "verify_cli_N" and codes[name] != 0:  # every round: a fast failure must not become the time
            raise SystemExit(f"verify-contract exited {codes[name]} on the corpus")

    seconds.update(interleaved({name: lambda name=name: run(name) for name in commands}, 2, clock=time.perf_counter))
    if tool is None:
        out["verify_vs_check_jsonschema"] = None
        out["check_jsonschema"] = "not measured: check-jsonschema is not installed"
    else:
        out["verify_vs_check_jsonschema"] = seconds["verify_cli_N"] / seconds["check_jsonschema_N"]
        out["check_jsonschema"] = f"{tool} (exit {codes['check_jsonschema_N']})"

    for size in ("N", "4N"):
        log(f"peak RSS at {size}")
        rss = {}
        for name, argv in (
            ("fingerprint", cli("fingerprint", "--surface", "sidecar", *dirs[size])),
            ("verify-contract", cli("verify-contract", *dirs[size])),
        ):
            seconds[f"{name}_cli_{size}"], rss[name], code, _ = child(argv)
            if code != 0:
                raise SystemExit(f"{' '.join(argv[2:4])} exited {code} at {size}")
        out[f"peak_rss_mb_{size}"] = rss


def _db(out: dict, shards: list[corpus.Shard], log: Callable[[str], None]) -> None:
    seconds, databases = out["seconds"], shards[0].databases()
    log(f"native .db decoding ({len(databases)} files)")
    steps = decode_pass(databases)
    seconds.update(
        interleaved({"db_decode_N": lambda: decode_pass(databases), "db_select_N": lambda: select_pass(databases)}, ROUNDS)
    )
    out["corpus"]["N"]["db_steps"] = steps
    out["corpus"]["N"]["db_mb"] = round(sum(p.stat().st_size for p in databases) / 2**20, 1)
    out["db_decode_steps_per_s"] = steps / seconds["db_decode_N"]
    out["db_decode_vs_select"] = seconds["db_decode_N"] / seconds["db_select_N"]


def _ci(out: dict, shards: list[corpus.Shard], home: corpus.Shard, log: Callable[[str], None]) -> None:
    seconds = out["seconds"]
    for round_ in range(CI_ROUNDS):  # interleaved: a slow spell of the machine hits every run alike
        for command, size, count in (("sweep", "N", 1), ("ci", "N", 1), ("ci", "4N", len(shards))):
            log(f"agy-audit {command} --source native at {size} (round {round_ + 1} of {CI_ROUNDS})")
            roots = [w for s in shards[:count] for w in ("--root", s.conversations.parent)]
            with tempfile.TemporaryDirectory(prefix="agy-audit-bench-") as scratch:
                report = ("--format", "json") if command == "ci" else ("-q",)
                argv = cli(command, *roots, "--source", "native", "--out", Path(scratch) / "corpus", *report)
                os.sync()  # no other run's writes left for this one's syncfs to wait on
                wall, rss, code, cpu = child(argv)
            expected = (0, 1) if command == "ci" else (0,)  # ci 1: the corpus's sidecar-only steps fail completeness
            if code not in expected:
                raise SystemExit(f"{command} exited {code} at {size}")
            key = f"{command}_cli_{size}"
            if wall < seconds.get(key, float("inf")):  # the fastest round, and its CPU time
                seconds[key], seconds[f"{command}_cpu_{size}"] = wall, cpu
            if command == "ci":
                out[f"ci_peak_rss_mb_{size}"] = max(rss, out.get(f"ci_peak_rss_mb_{size}", 0.0))  # the highest
    sessions = len(home.databases())
    log(f"agy-audit ci --source native on a home of {sessions} sessions")
    with tempfile.TemporaryDirectory(prefix="agy-audit-bench-") as scratch:
        argv = cli("ci", "--root", home.conversations.parent, "--source", "native", "--out", Path(scratch) / "corpus")
        os.sync()
        seconds["ci_cli_home"], rss, code, seconds["ci_cpu_home"] = child([*argv, "--format", "json"])
    if code not in (0, 1):
        raise SystemExit(f"ci exited {code} on the home of {sessions} sessions")
    out["corpus"]["home"] = {"sessions": sessions, "sidecar_mb": round(sum(p.stat().st_size for p in home.sidecars()) / 2**20, 1)}
    out["ci_home_seconds"], out["ci_home_peak_rss_mb"] = seconds["ci_cli_home"], rss
    out["ci_vs_sweep"] = seconds["ci_cli_N"] / seconds["sweep_cli_N"]
    if "db_decode_N" in seconds:
        out["ci_vs_db_decode"] = seconds["ci_cli_N"] / seconds["db_decode_N"]
        out["ci_cpu_vs_db_decode"] = seconds["ci_cpu_N"] / seconds["db_decode_N"]  # the same clock on both sides
    out["ci_4N_vs_N"] = seconds["ci_cli_4N"] / seconds["ci_cli_N"]
    out["ci_peak_rss_4N_vs_N"] = out["ci_peak_rss_mb_4N"] / out["ci_peak_rss_mb_N"]


def _transcript(out: dict, quick: bool, log: Callable[[str], None]) -> None:
    seconds = out["seconds"]
    log(f"streaming a {TRANSCRIPT_MB[quick]} MiB transcript")
    big = corpus.big_transcript(TRANSCRIPT_MB[quick])
    out["corpus"].setdefault("N", {})["transcript_mb"] = round(big.stat().st_size / 2**20, 1)
    out["transcript_peak_rss_mb"] = {}
    for name, argv in (
        ("read", [sys.executable, "-c", _READ_TRANSCRIPT, str(big)]),
        ("inspect", cli("inspect", big, "--format", "json")),
    ):
        seconds[f"transcript_{name}"], out["transcript_peak_rss_mb"][name], code, _ = child(argv)
        if code not in (0, 1):  # inspect exits 1 when the transcript has anomalies
            raise SystemExit(f"{name} of {big} exited {code}")


def _links(out: dict, links_n: Path, links_4n: Path, log: Callable[[str], None]) -> None:
    seconds = out["seconds"]
    log("links resolution at N and 4N")
    seconds.update(
        interleaved({f"links_{size}": lambda d=d: links.resolve(d) for size, d in (("N", links_n), ("4N", links_4n))}, ROUNDS)
    )
    for size, directory in (("N", links_n), ("4N", links_4n)):
        count = len(links.list_sidecars(directory))
        out["corpus"].setdefault(size, {})["link_sidecars"] = count
        out[f"links_us_per_sidecar_{size}"] = seconds[f"links_{size}"] / count * 1e6


def _redact(out: dict, n: corpus.Shard, n4: corpus.Shard, log: Callable[[str], None]) -> None:
    """``redact`` of the N and the 4N home, interleaved; the fastest round of each."""
    seconds, homes = out["seconds"], {"N": n, "4N": n4}
    for size, home in homes.items():
        files = [p for p in home.home.rglob("*") if p.is_file()]
        out["corpus"].setdefault(f"redact_{size}", {}).update(
            sessions=len(home.databases()), home_mb=round(sum(p.stat().st_size for p in files) / 2**20, 1)
        )
    for round_ in range(REDACT_ROUNDS):
        for size, home in homes.items():
            log(f"agy-audit redact at {size} (round {round_ + 1} of {REDACT_ROUNDS})")
            with tempfile.TemporaryDirectory(prefix="agy-audit-bench-") as scratch:
                argv = cli("redact", home.home, "--out", Path(scratch) / "copy", "--seed", "bench", "-q")
                os.sync()
                wall, rss, code, cpu = child(argv)
            if code != 0:
                raise SystemExit(f"redact exited {code} at {size}")
            if wall < seconds.get(f"redact_cli_{size}", float("inf")):
                seconds[f"redact_cli_{size}"], seconds[f"redact_cpu_{size}"] = wall, cpu
            out[f"redact_peak_rss_mb_{size}"] = max(rss, out.get(f"redact_peak_rss_mb_{size}", 0.0))
    big = out["corpus"]["redact_4N"]
    out["redact_mb_per_s"] = big["home_mb"] / seconds["redact_cli_4N"]
    out["redact_cpu_mb_per_s"] = big["home_mb"] / seconds["redact_cpu_4N"]
    out["redact_sessions_per_s"] = big["sessions"] / seconds["redact_cli_4N"]
    out["redact_4N_vs_N"] = seconds["redact_cli_4N"] / seconds["redact_cli_N"]


def render(results: dict) -> str:
    def goal(key: str) -> str:
        if key not in GOALS or results[key] is None:
            return "-"
        op, limit = GOALS[key]
        if results.get("quick"):  # a small corpus: fixed costs dominate the ratios
            return f"{op} {limit} (not judged with --quick)"
        return f"{op} {limit} ({'met' if results[key] <= limit else 'MISSED'})"

    def fmt(value: object) -> str:
        return "not measured" if value is None else f"{value:,.3f}" if isinstance(value, float) else str(value)

    rows = [
        (key, fmt(results[key]), goal(key))
        for key in (
            "fingerprint_vs_json_loads",
            "verify_vs_check_jsonschema",
            "verify_vs_json_loads",
            "db_decode_steps_per_s",
            "db_decode_vs_select",
            "ci_vs_db_decode",
            "ci_cpu_vs_db_decode",
            "ci_vs_sweep",
            "ci_4N_vs_N",
            "ci_home_seconds",
            "ci_home_peak_rss_mb",
            "ci_peak_rss_mb_N",
            "ci_peak_rss_mb_4N",
            "ci_peak_rss_4N_vs_N",
            "links_us_per_sidecar_N",
            "links_us_per_sidecar_4N",
            "redact_mb_per_s",
            "redact_cpu_mb_per_s",
            "redact_sessions_per_s",
            "redact_4N_vs_N",
            "redact_peak_rss_mb_N",
            "redact_peak_rss_mb_4N",
        )
        if key in results  # --only: the parts run
    ]
    rows += [
        (f"peak_rss_mb_{size}.{name}", fmt(mb), "-")
        for size in ("N", "4N")
        for name, mb in results.get(f"peak_rss_mb_{size}", {}).items()
    ]
    rows += [
        (f"transcript_peak_rss_mb.{name}", fmt(mb), "< 100 (" + ("met" if mb < 100 else "MISSED") + ")")
        for name, mb in results.get("transcript_peak_rss_mb", {}).items()
    ]
    sizes = [
        (
            size,
            c.get("sessions", "-"),
            c.get("sidecar_mb", "-"),
            c.get("largest_sidecar_mb", "-"),
            c.get("db_steps", "-"),
            c.get("link_sidecars", "-"),
            c.get("home_mb", "-"),
        )
        for size, c in results["corpus"].items()
    ]
    return "\n\n".join(
        [
            table(("MEASURE", "VALUE", "GOAL"), rows),
            table(("CORPUS", "SESSIONS", "SIDECAR MB", "LARGEST MB", ".DB STEPS", "LINK SIDECARS", "HOME MB"), sizes),
            table(("TIMING", "SECONDS"), [(k, f"{v:.3f}") for k, v in results["seconds"].items()]),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small corpus (under a minute), same measurements")
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).with_name("results.json"), help="JSON results (default bench/results.json)"
    )
    parser.add_argument(
        "--only", action="append", choices=PARTS, metavar="PART", help=f"run only this part (repeatable): {', '.join(PARTS)}"
    )
    args = parser.parse_args(argv)
    parts = frozenset(args.only or PARTS)

    def log(message: str) -> None:
        print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)

    results = {
        "command": "python bench/run.py"
        + (" --quick" if args.quick else "")
        + "".join(f" --only {part}" for part in PARTS if args.only and part in parts),
        "quick": args.quick,
        "params": (QUICK if args.quick else FULL).__dict__,
        "redact_params": REDACT[args.quick].__dict__,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        **measure(parts, args.quick, log),
    }
    atomic_write(args.out, (json.dumps(results, indent=2) + "\n").encode())
    print(render(results))
    print(f"\nresults written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
