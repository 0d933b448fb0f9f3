"""A loopback stand-in for the agy language-server daemon, for tests and the manual's demos.

    with SimulatedDaemon(root_path, token=TOKEN) as sim:   # writes <root>/cli.log with its port
        sim.fail(cid, "internal")                          # GetCascadeTrajectory(cid) -> HTTP 500
        ...  # agy-audit sweep finds it through cli.log (token via ANTIGRAVITY_CSRF_TOKEN)

It serves the store the way the real daemon does: Connect-style JSON on
``POST /exa.language_server_pb.LanguageServerService/<Method>``, only from 127.0.0.1, the CSRF
token checked on every call (when one is set). ``LoadTrajectory {cascadeId}`` loads
``conversations/<id>.db`` (offline reconstruction, ``audit.store.trajectory``, of a private backup copy,
so the store is never touched) or a trajectory supplied per id (a dict, or exact bytes). A ``.pb``
cannot be decrypted here: its sidecar (without ``agyReader``) stands in, else it needs a supplied
trajectory. A loaded trajectory is known by its own ``cascadeId`` (which may differ from the file
name), and ``GetCascadeTrajectory {cascadeId}`` answers only for loaded ids, with the trajectory's
bytes verbatim inside ``{"status": ..., "trajectory": ..., "numTotalSteps": ...}``.
``GetAllCascadeTrajectories {}`` (a read-only call) answers ``{"trajectorySummaries": {}}``.
``GetCascadeTrajectoryGeneratorMetadata {cascadeId}`` answers for a loaded id with the loaded
trajectory's ``generatorMetadata`` array as ``{"generatorMetadata": [...]}`` (docs/store-format.md#daemon-rpc; an
empty array when it has none).

Failure modes per requested id (``fail``): ``unauthorized`` (401), ``internal`` (500 with a Connect
error envelope), ``timeout`` (answers only after ``hang`` seconds), ``malformed`` (a cut-off
envelope), ``empty`` (``{}``), ``null`` (``{"trajectory": null}``). The server runs in daemon
threads and stops by itself after ``lifetime`` seconds.

The log: ``<root>/cli.log`` is appended to; when there is none, the simulator writes
``log/cli-sim-<port>.log`` and makes ``cli.log`` a relative symbolic link to it, as agy does on Linux
and macOS (``write_log=False``: no log).

``proc``: a fake ``/proc`` tree (see ``FakeProc``; default ``FAKE_PROC``, which the test suite points
at a per-test tree) in which the simulator registers itself while it runs, the way discovery sees
a real daemon: an ``agy`` process (``kind="language_server"``: a language server with
``--app_data_dir <root name>``) of this user holding the listening socket (its real inode, listed
in ``net/tcp``) and its open log. ``expose`` says how the process shows its token: ``"flag"``
(``--csrf_token`` on its command line), ``"tool"`` (``ANTIGRAVITY_LS_ADDRESS`` /
``ANTIGRAVITY_CSRF_TOKEN`` exported to a child process) or None (not at all: the user sets
``ANTIGRAVITY_CSRF_TOKEN``). Stopping removes the entries.

``python -m audit.testing.daemon ROOT [--seconds N]`` runs one in the foreground (token from
``ANTIGRAVITY_CSRF_TOKEN`` if set) and prints its URL; it is a Python process, so discovery does
not verify it: pin it with ``ANTIGRAVITY_DAEMON_URL``.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from audit.actions.sweep import backup_database
from audit.store.daemon import SERVICE
from audit.store.trajectory import read_trajectory

FAILURES = ("unauthorized", "internal", "timeout", "malformed", "empty", "null")
DEFAULT_TOKEN = "sim-csrf-7f3a9c1e5b2d4f6a8c0e"
EXPOSE = (None, "flag", "tool")
FAKE_PROC: str | os.PathLike[str] | None = None
"""The fake ``/proc`` a simulator registers in when none is given (None: it registers nowhere)."""
_TCP_HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"


class FakeProc:
    """A fake Linux ``/proc`` tree for discovery tests: processes, their fds, and TCP listeners."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        (self.root / "net").mkdir(parents=True, exist_ok=True)
        for name in ("tcp", "tcp6"):
            if not (self.root / "net" / name).exists():
                (self.root / "net" / name).write_text(_TCP_HEADER)
        self._lock = threading.Lock()

    def free_pid(self) -> int:
        with self._lock:
            pids = [int(p.name) for p in self.root.iterdir() if p.name.isdigit()]
            pid = max([4000, *pids]) + 1
            (self.root / str(pid)).mkdir()
            return pid

    def process(
        self,
        argv: list[str],
        *,
        pid: int | None = None,
        ppid: int = 1,
        environ: Mapping[str, str] | None = None,
        files: Sequence[str | os.PathLike[str]] = (),
        sockets: Sequence[int] = (),
    ) -> int:
        """Add a process of this user; *files* and *sockets* (inodes) become its ``fd`` links."""
        pid = self.free_pid() if pid is None else pid
        base = self.root / str(pid)
        (base / "fd").mkdir(parents=True, exist_ok=True)
        (base / "cmdline").write_bytes(b"".join(a.encode() + b"\0" for a in argv))
        (base / "environ").write_bytes(b"".join(f"{k}={v}".encode() + b"\0" for k, v in (environ or {}).items()))
        name = os.path.basename(argv[0])[:15] if argv else "?"
        (base / "stat").write_text(f"{pid} ({name}) S {ppid} {pid} {pid} 0 -1 4194304\n")
        targets = [os.path.abspath(f) for f in files] + [f"socket:[{inode}]" for inode in sockets]
        for fd, target in enumerate(targets, 3):
            os.symlink(target, base / "fd" / str(fd))
        return pid

    def listen(self, host: str, port: int, inode: int) -> None:
        """A LISTEN entry in ``net/tcp`` (IPv4) or ``net/tcp6``."""
        ip = ipaddress.ip_address(host)
        if ip.version == 4:
            name, hexip = "tcp", ip.packed[::-1].hex().upper()
        else:
            name, hexip = "tcp6", b"".join(ip.packed[i : i + 4][::-1] for i in range(0, 16, 4)).hex().upper()
        line = f"   0: {hexip}:{port:04X} {'0' * len(hexip)}:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 {inode} 1 0\n"
        with self._lock, open(self.root / "net" / name, "a") as fh:
            fh.write(line)

    def remove(self, pid: int | None = None, inode: int | None = None) -> None:
        with self._lock:
            if pid is not None:
                shutil.rmtree(self.root / str(pid), ignore_errors=True)
            if inode is not None:
                for name in ("tcp", "tcp6"):
                    path = self.root / "net" / name
                    lines = path.read_text().splitlines(keepends=True)
                    path.write_text("".join(line for line in lines if line.split()[9:10] != [str(inode)]))


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that gave up (timeout) is not an error worth a traceback


class SimulatedDaemon:
    def __init__(
        self,
        root: str | os.PathLike[str],
        *,
        token: str | None = DEFAULT_TOKEN,
        trajectories: Mapping[str, dict[str, Any] | bytes] | None = None,
        failures: Mapping[str, str] | None = None,
        write_log: bool = True,
        hang: float = 3.0,
        lifetime: float = 300.0,
        proc: str | os.PathLike[str] | None = None,
        kind: str = "agy",
        expose: str | None = None,
    ) -> None:
        if expose not in EXPOSE:
            raise ValueError("expose must be None, 'flag' or 'tool'")
        self.root = Path(root)
        self.proc_root = proc if proc is not None else FAKE_PROC
        self.kind = kind
        self.expose = expose
        self.pid: int | None = None  # in the fake /proc, while running
        self._tool_pid: int | None = None
        self._inode: int | None = None
        self.log_path: Path | None = None
        self.token = token
        self.write_log = write_log
        self.hang = hang
        self.lifetime = lifetime
        self.calls: list[tuple[str, str | None]] = []  # (method, cascadeId) in arrival order
        self._supplied = {cid.lower(): _raw(doc) for cid, doc in (trajectories or {}).items()}
        self._failures: dict[str, str] = {}
        for cid, mode in (failures or {}).items():
            self.fail(cid, mode)
        self._loaded: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server: _Server | None = None
        self._timer: threading.Timer | None = None

    # -- control -------------------------------------------------------------------------------

    def fail(self, cascade_id: str, mode: str) -> None:
        """Make ``GetCascadeTrajectory(cascade_id)`` fail with *mode* (one of ``FAILURES``)."""
        if mode not in FAILURES:
            raise ValueError(f"failure mode must be one of {', '.join(FAILURES)}")
        self._failures[cascade_id.lower()] = mode

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the simulated daemon is not running")
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def served(self, cascade_id: str) -> bytes:
        """The exact trajectory bytes served for a loaded *cascade_id*."""
        return self._loaded[cascade_id.lower()]

    def start(self) -> SimulatedDaemon:
        self._server = _Server(("127.0.0.1", 0), _handler(self))
        threading.Thread(target=self._server.serve_forever, args=(0.05,), name="simulated-daemon", daemon=True).start()
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        if self.write_log:
            self.log_path = self._log()
            with open(self.log_path, "a", encoding="utf-8") as log:
                log.write(f"I0000 00:00:00.000000 1 server.go:1] listening on random port at {self.port + 1} for HTTPS (gRPC)\n")
                log.write(f"I0000 00:00:00.000001 1 server.go:1] listening on random port at {self.port} for HTTP\n")
        if self.proc_root is not None:
            self._register(FakeProc(self.proc_root))
        return self

    def _log(self) -> Path:
        link = self.root / "cli.log"
        if os.path.lexists(link):
            return link
        (self.root / "log").mkdir(exist_ok=True)
        target = self.root / "log" / f"cli-sim-{self.port}.log"
        target.touch()
        os.symlink(os.path.join("log", target.name), link)
        return target

    def _register(self, proc: FakeProc) -> None:
        assert self._server is not None
        self._inode = os.fstat(self._server.socket.fileno()).st_ino
        if self.kind == "agy":
            argv = ["/usr/local/bin/agy"]
        else:
            argv = ["/opt/antigravity/language_server_linux_x64", "--app_data_dir", self.root.name]
        if self.expose == "flag" and self.token is not None:
            argv += ["--csrf_token", self.token]
        files = [os.path.realpath(self.log_path)] if self.log_path is not None else []
        self.pid = proc.process(argv, files=files, sockets=[self._inode])
        proc.listen("127.0.0.1", self.port, self._inode)
        if self.expose == "tool" and self.token is not None:
            environ = {"ANTIGRAVITY_LS_ADDRESS": f"127.0.0.1:{self.port}", "ANTIGRAVITY_CSRF_TOKEN": self.token}
            self._tool_pid = proc.process(["/bin/bash", "-c", "make test"], ppid=self.pid, environ=environ)

    def _unregister(self) -> None:
        if self.proc_root is None or self.pid is None:
            return
        proc = FakeProc(self.proc_root)
        proc.remove(self._tool_pid)
        proc.remove(self.pid, self._inode)
        self.pid = self._tool_pid = None

    def stop(self) -> None:
        self._stopped.set()  # releases hanging answers
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        self._unregister()
        server, self._server = self._server, None
        if server is not None:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> SimulatedDaemon:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving -------------------------------------------------------------------------------

    def _answer(self, method: str, headers: Mapping[str, str], body: bytes) -> tuple[int, bytes]:
        if self.token is not None and headers.get("x-codeium-csrf-token") != self.token:
            return 401, _error("unauthenticated", "invalid or missing CSRF token")
        if headers.get("connect-protocol-version") != "1" or not headers.get("content-type", "").startswith("application/json"):
            return 400, _error("invalid_argument", "Connect unary JSON calls only")
        if method == "GetAllCascadeTrajectories":  # the read-only call `agy-audit doctor` probes with
            with self._lock:
                self.calls.append((method, None))
            return 200, b'{"trajectorySummaries": {}}'
        try:
            request = json.loads(body)
            cid = request["cascadeId"].lower()
        except (ValueError, TypeError, KeyError, AttributeError):
            return 400, _error("invalid_argument", 'body must be {"cascadeId": ...}')
        with self._lock:
            self.calls.append((method, cid))
        if method == "LoadTrajectory":
            return self._load(cid)
        if method == "GetCascadeTrajectory":
            return self._get(cid)
        if method == "GetCascadeTrajectoryGeneratorMetadata":
            raw = self._loaded.get(cid)
            if raw is None:
                return 404, _error("not_found", f"trajectory {cid} is not loaded")
            generations = json.loads(raw).get("generatorMetadata", [])
            return 200, json.dumps({"generatorMetadata": generations}, separators=(",", ":")).encode()
        return 404, _error("unimplemented", f"{method} is not simulated")

    def _load(self, cid: str) -> tuple[int, bytes]:
        conversations = self.root / "conversations"
        db = conversations / f"{cid}.db"
        if cid in self._supplied:
            raw = self._supplied[cid]
        elif db.is_file():
            raw = _raw(_reconstruct(db))
        elif (conversations / f"{cid}.pb").is_file():
            sidecar = conversations / f"{cid}.trajectory.json"
            if not sidecar.is_file():
                return 500, _error("internal", f"cannot decrypt {cid}.pb in the simulator; supply its trajectory")
            doc = json.loads(sidecar.read_bytes())
            doc.pop("agyReader", None)  # the stand-in for decryption: the sidecar minus reader-owned keys
            raw = _raw(doc)
        else:
            return 404, _error("not_found", f"conversation {cid} not found")
        loaded_as = json.loads(raw).get("cascadeId", cid).lower()
        with self._lock:
            self._loaded[loaded_as] = raw
        return 200, b"{}"

    def _get(self, cid: str) -> tuple[int, bytes]:
        mode = self._failures.get(cid)
        if mode == "unauthorized":
            return 401, _error("unauthenticated", f"token {self.token} rejected")  # a client must not echo this
        if mode == "internal":
            return 500, _error("internal", f"simulated failure for {cid}")
        if mode == "malformed":
            return 200, b'{"trajectory": {"cascadeId": "' + cid.encode() + b'", "steps": ['
        if mode == "empty":
            return 200, b"{}"
        if mode == "null":
            return 200, b'{"trajectory": null}'
        if mode == "timeout":
            self._stopped.wait(self.hang)
        raw = self._loaded.get(cid)
        if raw is None:
            return 404, _error("not_found", f"trajectory {cid} is not loaded")
        steps = len(json.loads(raw).get("steps", []))
        return 200, b'{"status": "CASCADE_RUN_STATUS_IDLE", "trajectory": ' + raw + b', "numTotalSteps": %d}' % steps


def _reconstruct(db: Path) -> dict[str, Any]:
    """The offline reconstruction of *db*, read from a private copy so the store stays untouched."""
    with tempfile.TemporaryDirectory(prefix="agy-sim-") as scratch:
        copy = Path(scratch) / db.name
        copy.write_bytes(backup_database(db))
        return read_trajectory(copy).trajectory


def _raw(doc: dict[str, Any] | bytes) -> bytes:
    """Trajectory bytes as served: given bytes verbatim, a dict as compact JSON (not our layout)."""
    return doc if isinstance(doc, bytes) else json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def _error(code: str, message: str) -> bytes:
    return json.dumps({"code": code, "message": message}).encode()


def _handler(sim: SimulatedDaemon) -> type[BaseHTTPRequestHandler]:
    prefix = f"/{SERVICE}/"

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 - http.server naming
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.path.startswith(prefix):
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, payload = sim._answer(self.path[len(prefix) :], headers, body)
            else:
                status, payload = 404, _error("not_found", "unknown path")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - silence access logs
            pass

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m audit.testing.daemon", description="Serve a store like the agy daemon.")
    parser.add_argument("root", help="store root, e.g. ~/.gemini/antigravity-cli (cli.log is appended to)")
    parser.add_argument("--seconds", type=float, default=300.0, help="stop after this many seconds (default 300)")
    args = parser.parse_args(argv)
    sim = SimulatedDaemon(args.root, token=os.environ.get("ANTIGRAVITY_CSRF_TOKEN") or None, lifetime=args.seconds)
    with sim:
        print(sim.url, flush=True)
        try:
            sim._stopped.wait(args.seconds)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
