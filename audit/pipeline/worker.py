"""A second process for ``ci``'s checks of the swept sessions' corpus copies
(``SessionChecks.swept_corpus``), so that they run on another core while the sweep copies and
decodes the next sessions and checks their live sidecars (``SessionChecks.swept_live_sidecar``).

The sweep hands over each session it swept as a ``Job``: its live files and its ``.db`` copy,
which the worker reads and, for a native sweep, reconstructs again (the same rows, so the same
reconstruction the sweep rendered as the corpus sidecar), then checks as ``ci`` would in its own
process. At the end the worker sends back its ``SessionChecks`` whole, or why it could not: then
``ci`` has nothing from it and each check's listing reads those sessions' files itself, so a
worker that fails costs time, never a finding.

The worker is started with ``spawn`` on every platform (the same behaviour everywhere, and no
fork of a process that may hold threads; ``multiprocessing`` adds its resource tracker, a small
third process), ignores Ctrl-C (the terminal sends it to every process: ``ci`` answers it and
ends the worker), and leaves when ``ci`` does: it looks for its parent while it waits for jobs.
A program that calls ``ci.run`` with ``jobs=2`` needs the usual ``if __name__ == "__main__":``
guard (``spawn`` imports the main module again).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import pickle
import queue
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any

from audit.actions.sweep import Decoded, SweptSession
from audit.pipeline.sessions import SessionChecks
from audit.progress import Callback
from audit.store.database import read_database
from audit.store.layout import Session
from audit.store.trajectory import BlobFields, reconstruct
from audit.strictjson import gc_paused

POLL = 0.2
"""Seconds between looks at the other process while waiting for it."""
EXIT_WAIT = 5.0
"""Seconds a worker that has sent its result is given to exit before it is terminated."""


@dataclass(frozen=True)
class Job:
    """One swept session: what ``Decoded`` holds, less what the worker reads again from ``copy``."""

    session: Session
    swept: SweptSession
    copy: Path  # the sweep's copy of the session's .db
    native: bool  # the sweep reconstructed the copy (rather than fetching the trajectory from a daemon)


class Worker:
    """The second process, started on construction; ``close`` ends it, whatever state it is in."""

    def __init__(self, out: Path, live: bool) -> None:
        context = multiprocessing.get_context("spawn")
        self._jobs: multiprocessing.Queue[Job | None] = context.Queue()
        self._results, sending = context.Pipe(duplex=False)
        self._done: Synchronized[int] = context.Value("q", 0)
        self.submitted = 0
        self._received = False
        self._process = context.Process(
            target=_serve, args=(self._jobs, sending, self._done, out, live), name="agy-audit ci checks", daemon=True
        )
        with _sigint_ignored():  # inherited through exec: the worker is never interrupted, even while it starts
            self._process.start()
        sending.close()

    @property
    def pid(self) -> int:
        pid = self._process.pid
        assert pid is not None  # started
        return pid

    def submit(self, d: Decoded) -> None:
        """Hand over the session the sweep just wrote (one with a ``.db`` copy)."""
        assert d.conv is not None
        self._jobs.put(Job(d.session, d.swept, d.conv.path, d.native is not None))
        self.submitted += 1

    def finish(self, progress: Callback | None = None) -> tuple[SessionChecks | None, str | None]:
        """(The worker's checks, None) once it has checked every session submitted, or (None, why
        it could not). Waits as long as the worker works (*progress* is told how far it is)."""
        self._jobs.put(None)
        while not self._results.poll(POLL):  # true on the results, and on the end of a worker that died
            if progress is not None:
                progress(self._done.value, self.submitted, "")
            if not self._process.is_alive() and not self._results.poll(0):
                break
        try:
            data = self._results.recv_bytes()
        except (EOFError, OSError):
            self._process.join(EXIT_WAIT)
            return None, f"it ended with exit code {self._process.exitcode} before sending its results"
        self._received = True
        try:
            kind, payload = pickle.loads(data)
        except Exception as exc:  # what a worker of another version of this module might send
            return None, f"its results could not be read ({exc.__class__.__name__})"
        return (payload, None) if kind == "ok" else (None, payload)

    def close(self) -> None:
        """End the worker: let it exit if it has sent its results, else terminate it."""
        self._process.join(EXIT_WAIT if self._received else 0)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join(EXIT_WAIT)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(EXIT_WAIT)
        self._jobs.cancel_join_thread()  # jobs it never took are dropped, not flushed to a dead pipe
        self._jobs.close()
        self._results.close()


@contextlib.contextmanager
def _sigint_ignored() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set handlers (the worker then ignores SIGINT once it runs)
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _serve(jobs: multiprocessing.Queue[Job | None], results: Connection, done: Synchronized[int], out: Path, live: bool) -> None:
    """The worker: check each job as it comes, then send ``("ok", SessionChecks)``, or
    ``("error", why)`` on the first failure. Leaves quietly when its parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    checks = SessionChecks(out, live)
    job: Job | None = None
    reply: tuple[str, Any]
    try:
        while True:
            try:
                job = jobs.get(timeout=POLL)
            except queue.Empty:
                if parent is not None and not parent.is_alive():
                    return
                continue
            if job is None:
                break
            with gc_paused():  # as in the sweep: the decoding makes only acyclic containers
                conv = read_database(job.copy)
                fields = BlobFields() if job.native else None
                native = reconstruct(conv, fields) if job.native and conv.access else None
                checks.swept_corpus(Decoded(job.session, job.swept, conv, native, fields))
            done.value += 1
        reply = ("ok", checks)
    except Exception as exc:  # a failure is reported, never printed: ci checks every session itself then
        reply = ("error", f"{job.session.id if job else '-'}: {exc.__class__.__name__}: {exc}")
    try:
        data = pickle.dumps(reply, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        data = pickle.dumps(("error", f"its results could not be sent ({exc.__class__.__name__}: {exc})"))
    results.send_bytes(data)
    results.close()
