"""Where sessions are, and reading them.

Store roots and their sessions (``layout``, a package: the roots, what a scan finds, the scan of a
root, the file families whose presence is format), the per-install files of a root (``install``),
session ids (``ids``), which sessions a sweep takes (``selection``), brain transcripts
(``transcript``, a package: reading streams, judging records, a brain directory's tiers, the
metadata record texts carry), read-only SQLite snapshots of conversation ``.db`` files
(``database``), the schema-less protobuf wire walker (``wire``), legacy encrypted ``.pb``
conversations read with the user's own key (``legacy_pb``), the offline reconstruction of a
trajectory (``trajectory``) from our ``.proto`` (``proto/``) written as proto3 JSON (``proto_json``,
a package: the walks, the leaf values, the walk that records the fields each message held), one
sidecar as the checks read it (``sidecar``), the daemon client (``daemon``) and its endpoint
discovery (``discovery``, a package: from processes under ``/proc``, from log files, and the running
``agy-reader`` watchers), the sidecar's reader block (``reader_block``) and the names of a sweep
corpus (``corpus``).

May import: the foundation (``audit.errors``, ``audit.safeio``, ``audit.resources``,
``audit.progress``, ``audit.clock``) and ``audit.store``. Never writes a store.
"""
