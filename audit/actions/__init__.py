"""What writes: the sweep into a new corpus (``sweep``, a package: its ``planning``, one
``session`` swept into the ``corpus_writer``, the ``db_copy``, the ``manifest`` and the ``run``),
baselines (``baseline_writer``, ``record``) and compatibility records (``compat``), the guarded
link repair (``repair``: a verified ``backup``, ``link_writer``, rollback), completeness
attestations (``attest``), offline exports (``export``), content-free copies (``redact``, a
package: the ``replacements``, JSON ``documents``, blobs on the wire, ``protobuf``,
``databases``, the source's ``tree``, what a ``run`` carries and the ``proof``), private copies of
a home's stores (``store_copy``) and the format mutations of a copy (``mutate``, a package: the
``edits`` that keep every other byte, the ``catalogue``, the mutated ``copies``).

Every write goes through ``audit.safewrite`` (atomic, never through a symbolic link, keeping the
target's mode); a write into a live store holds the store's writer lock (``writelock``), and a
repair is backed up and verified first.

May import: the foundation, ``audit.store``, ``audit.checks`` and ``audit.actions``.
"""
