"""What writes: the sweep into a new corpus, baselines and compatibility records, the guarded
link repair (backup, stamps, rollback), completeness attestations, exports, private copies of
a home's stores (``store_copy``) and the format mutations of a copy (``mutate``).

Every write goes through ``audit.safeio`` (atomic, never through a symbolic link, keeping the
target's mode); a write into a live store holds the store's writer lock (``writelock``), and a
repair is backed up and verified first.

May import: the foundation, ``audit.store``, ``audit.checks`` and ``audit.actions``.
"""
