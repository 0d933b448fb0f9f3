"""One sweep (``sweep``): its arguments checked, the sessions chosen, each swept in turn with the
failure policy, Ctrl-C and SIGTERM handled, and the manifest written first and last; and the
``agy`` version installed (``installed_agy_version``)."""

from __future__ import annotations

import collections
import os
import shutil
import subprocess
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from audit.actions.sweep.corpus_writer import Corpus, Failed, make_durable
from audit.actions.sweep.manifest import Decoded, Failure, OnSwept, SweepResult, write_manifest
from audit.actions.sweep.planning import Item, choose_source, select_sessions
from audit.actions.sweep.session import sweep_installs, sweep_one, sweep_uncovered
from audit.clock import now_rfc3339
from audit.errors import InputError, NothingToCheck, UsageError, interrupt_exit_code
from audit.progress import Callback
from audit.safewrite import make_private_dir
from audit.store.layout import Root, refuse_inside_store
from audit.store.legacy_pb import Key
from audit.store.selection import Excluded, Selection, choose
from audit.strictjson import gc_paused

SOURCES = ("auto", "daemon", "native")

AGY_VERSION_TIMEOUT = 3.0


def sweep(
    roots: Iterable[Root],
    out: str | os.PathLike[str],
    *,
    source: str = "auto",
    timeout: float = 30.0,
    keep_going: bool = False,
    include_implicit: bool = False,
    allow_remote: bool = False,
    env: Mapping[str, str] | None = None,
    proc_root: str | os.PathLike[str] | None = None,
    progress: Callback | None = None,
    on_swept: OnSwept | None = None,
    on_selected: Callable[[int], bool] | None = None,
    selection: Selection | None = None,
    key: Key | None = None,
) -> SweepResult:
    """Sweep *roots* into the new directory *out*; see the package docstring. *progress* is called
    before each session with (sessions done, sessions selected, id about to be swept); *on_swept*
    after each session whose files are all written, with what was read of it (``Decoded``), so
    that a caller can check the session while it is decoded; an exception it raises is not a
    session failure: it ends the sweep without the final manifest, except Ctrl-C and SIGTERM,
    which end it as they do between sessions. *on_selected* is called once, with the number of
    sessions selected, before the first is swept; when it returns True, each native reconstruction
    records which fields each blob held (``Decoded.fields``), for an *on_swept* that would
    otherwise parse the blobs again. *selection* chooses among the sessions found
    (``audit.store.selection``; None or one that gives nothing: every session); what it leaves out
    is ``SweepResult.excluded``, and the manifest states it. With the user's *key*, a legacy
    ``.pb``-only session of a root swept natively is read as a ``.db`` is (``audit.store.legacy_pb``):
    its ``.pb`` is copied as it is (encrypted) to ``native/<product>/<id>.pb`` and its
    reconstruction written to the corpus; a ``.pb`` the key does not authenticate is a failure.

    Raises before creating anything: ``UsageError`` (bad arguments, *out* inside a store, a
    non-loopback daemon without *allow_remote*), ``InputError`` (*out* exists or cannot be
    created; ``source="daemon"`` and a root without a reachable daemon), ``NothingToCheck`` (no
    session selected), ``UsageError`` (an id prefix of *selection* that matches no session). Session failures and Ctrl-C are recorded in the result, never raised.
    """
    env = os.environ if env is None else env
    if source not in SOURCES:
        raise UsageError(f"source must be one of {', '.join(SOURCES)}")
    if not timeout > 0:
        raise UsageError("timeout must be a positive number of seconds")
    roots = list(roots)
    out = Path(out).absolute()
    if os.path.lexists(out):
        raise InputError(f"{out}: already exists; the sweep needs a new directory")
    refuse_inside_store(out, roots, "corpus")
    started = now_rfc3339()
    chosen = [choose_source(root, source, timeout, allow_remote, env, proc_root) for root in roots]
    items, skipped, layouts = select_sessions(chosen, include_implicit, key)
    if not items:
        raise NothingToCheck(f"nothing to sweep: no .db, .pb or brain transcript selected ({len(skipped)} file(s) skipped)")
    selection = selection if selection is not None and selection.given else None
    excluded: list[Excluded] = []
    if selection is not None:
        by_id = {item.session.id: item for item in items}
        picked = choose([item.session for item in items], selection, lambda s: by_id[s.id].uncovered is None)
        items, excluded = [by_id[s.id] for s in picked.kept], picked.excluded
        if not items:
            first = excluded[0]
            raise NothingToCheck(
                f"nothing to sweep: the selection leaves out every session ({len(excluded)}; {first.session.id}: {first.reason})"
            )
    origins = [origin for origin, _ in chosen]
    result = SweepResult(out, started, installed_agy_version(env), origins, len(items), skipped=skipped, layouts=layouts)
    result.selection, result.excluded = selection, excluded
    make_private_dir(out)
    corpus = Corpus(out)
    try:
        pending = collections.deque(items)  # each session's listing is let go once it is swept
        del items
        record_fields = on_selected is not None and on_selected(result.selected)
        return _sweep_items(result, corpus, pending, keep_going, progress, on_swept, record_fields, key)
    finally:
        corpus.close()


def _sweep_items(
    result: SweepResult,
    corpus: Corpus,
    pending: collections.deque[Item],
    keep_going: bool,
    progress: Callback | None,
    on_swept: OnSwept | None,
    record_fields: bool = False,
    key: Key | None = None,
) -> SweepResult:
    write_manifest(result)
    current = None
    rejected: set[Path] = set()  # roots whose daemon refused the token: the rest of them is not swept
    try:
        stopped = not sweep_installs(result, corpus, keep_going)
        for done in range(0 if stopped else result.selected):
            item = pending.popleft()
            if item.origin.root.path in rejected:
                continue
            current = item.session.id
            if progress is not None:
                progress(done, result.selected, current)
            try:
                if item.uncovered is not None:
                    result.not_covered.append(sweep_uncovered(item, corpus))
                    continue
                with gc_paused():  # the decoding makes only acyclic containers: a GC pass would rescan what ci holds
                    swept, conv, native, fields = sweep_one(item, corpus, record_fields, key)
            except Failed as failed:
                message = item.client.shown(failed.message, len(failed.message)) if item.client else failed.message
                if failed.auth:
                    rejected.add(item.origin.root.path)
                    left = sum(1 for later in pending if later.origin.root.path == item.origin.root.path)
                    message += f"; sweep of {item.origin.root.path} stopped: {left} more session(s) of this root not tried"
                result.failures.append(Failure(current, failed.stage, message))
                if not keep_going:
                    break
                continue
            result.sessions.append(swept)
            if on_swept is not None:
                on_swept(Decoded(item.session, swept, conv, native, fields))
        current = None
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (audit.errors.Terminated)
        result.interrupted = interrupt_exit_code(exc)
        result.failures.append(Failure(current, "interrupted", "interrupted before every selected session was swept"))
    try:
        make_durable(result, corpus)
    except KeyboardInterrupt as exc:
        result.interrupted = result.interrupted or interrupt_exit_code(exc)
        result.failures.append(Failure(None, "interrupted", "interrupted while the corpus was being synced to disk"))
    result.finished = now_rfc3339()
    write_manifest(result)
    return result


def installed_agy_version(env: Mapping[str, str]) -> str | None:
    """First line of ``agy --version`` (short timeout), or None when it does not answer."""
    agy = shutil.which("agy", path=env.get("PATH"))
    if agy is None:
        return None
    try:
        done = subprocess.run(
            [agy, "--version"],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=AGY_VERSION_TIMEOUT,
            env=dict(env),
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in done.stdout.decode("utf-8", "replace").splitlines() if line.strip()]
    return lines[0][:200] if done.returncode == 0 and lines else None
