"""The sweep: a fresh trajectory of every selected session, collected into a new private corpus.

Layout of ``OUT`` (created 0700; it must not exist, a symlink counts as existing; files 0600)::

    manifest.json                          schemas/manifest.schema.json; written first with
                                           complete=false, rewritten atomically at the end, once
                                           every file it lists (and its directories) is durable
    corpus/<product>/<id>.trajectory.json  the daemon's ``trajectory`` bytes unchanged, or the
                                           offline reconstruction of the .db (2-space JSON)
    native/<product>/<id>.db               consistent standalone copy (SQLite backup API from a
                                           read-only source; WAL content included; rollback mode)
    native/<product>/brain/<id>/...        byte copies of the session's brain files
    native/<product>/rpc/<id>.GetCascadeTrajectoryGeneratorMetadata.json
                                           a daemon sweep: the daemon's answer to that call, as
                                           sent (when it gives a JSON object; none otherwise)
    native/<product>/install/<root name>/  the root's per-install files (``audit.store.install``):
                                           history.jsonl and cache/<name> as byte copies,
                                           conversation_summaries.db as a backup-API copy; the
                                           manifest names the root (roots[].name) and lists them
                                           with their sha256 (roots[].files)

Selection per root: every ``conversations/<id>.db`` and legacy ``.pb``; a ``.pb`` beside a
``.db`` of the same id is skipped (the ``.db`` is the source); with ``include_implicit`` implicit
files are listed as skipped. A legacy ``.pb``-only session of a root swept natively without the
user's key is selected but *not covered* (it is encrypted: only the daemon reads it): its brain files are copied, and it
is listed in ``notCovered`` with the reason, never in ``sessions``; the manifest is then not
complete. A brain directory with a transcript but no ``.db`` or ``.pb`` (a headless ACP run) is
swept natively as its brain files alone: no trajectory is reconstructed, ``steps`` counts its
transcript's records. Other ids without a ``.db`` or ``.pb`` are skipped (a sidecar is never a
source), and so is every entry the store scan reports as foreign (symbolic links, names that are
not ``<uuid>.<ext>``). One id selected in several roots is one conversation: the root whose
artifacts are newest is swept (``layout.newest_first``, as ``stores show`` and ``export`` choose),
each other one is listed as skipped naming it. A ``selection`` (``audit.store.selection``: ids,
first step time, the newest N, only what this sweep can read) then chooses among those sessions;
the manifest states it and lists each session it left out (``excluded``), and ``selected`` and
``complete`` are for the sessions it chose. Corpus files are created under their names in one
exclusive open each (``safewrite.create_in_private_dir``: the corpus is new and private), without an
fsync; a session's files are all written or, on a failure, all removed, and ``make_durable``
syncs them before the final manifest (one ``syncfs(2)``, or an fsync of each file and directory).
Sources: ``native`` reconstructs offline; ``daemon`` needs a reachable daemon for every root;
``auto`` uses the daemon of a root when one is reachable, else native.

Daemon endpoints come from ``discovery.discover``: a token only goes to a pinned endpoint or to a
listener verified as the root's daemon; the others are noted in ``RootSource.notes``, never
contacted. Fail closed: a failing session stops the sweep unless ``keep_going``; either way the
manifest stays ``complete: false``. A daemon that refuses the token (401/403) stops the sweep of
its root with one failure, ``keep_going`` or not (every other session would be refused the same). Ctrl-C (or SIGTERM) ends the sweep cleanly with an incomplete
manifest. Live stores are only read: ``.db`` files are opened read-only in a way that creates no
file beside them (see ``sqlite_store.open_snapshot``), other files are read as bytes. Nothing is
printed here.

The modules: what a sweep reads (``planning``), one session swept (``session``) into the corpus
being written (``corpus_writer``), the ``.db`` copies (``db_copy``), what it records and the
manifest (``manifest``), and the sweep itself (``run``).
"""

from audit.actions.sweep.db_copy import backup_database
from audit.actions.sweep.manifest import Decoded, RootSource, SweepResult, SweptSession
from audit.actions.sweep.planning import (
    NOT_COVERED_LEGACY,
    SKIP_BACKUP,
    SKIP_DUPLICATE_PB,
    SKIP_IMPLICIT,
    SKIP_NO_SOURCE,
    SKIP_REFUSED_SOURCE,
)
from audit.actions.sweep.run import SOURCES, installed_agy_version, sweep

__all__ = [
    "NOT_COVERED_LEGACY",
    "SKIP_BACKUP",
    "SKIP_DUPLICATE_PB",
    "SKIP_IMPLICIT",
    "SKIP_NO_SOURCE",
    "SKIP_REFUSED_SOURCE",
    "SOURCES",
    "Decoded",
    "RootSource",
    "SweepResult",
    "SweptSession",
    "backup_database",
    "installed_agy_version",
    "sweep",
]
