"""Judging: everything that compares what was read with what it should be and returns findings.

The contract and its schemas (``contract``, ``schemas``; the schema keywords, ``schema_keywords``,
the predicate compiler, ``schema_compiler``, and what its predicates call, ``schema_runtime``),
native completeness (``completeness``, a package: the verdicts, ``completeness.verdicts``; the
projection both sides carry, ``completeness.step_projection``; the source read,
``completeness.source``; finding sidecars and their sources, ``completeness.sidecar_targets``;
judging one, ``completeness.checking``), ``.db`` against brain transcripts (``consistency``, a
package: the verdicts and rules, ``consistency.verdicts``; finding sessions,
``consistency.session_targets``; checking one, ``consistency.checking``; when values agree,
``consistency.agreement``) and a ``.db``'s own invariants (``invariants``), shapes and fingerprints
of every surface (``shape``; ``fingerprint``, a package of one module per surface or input kind with
the registry of surfaces, ``fingerprint.surfaces``; the values of enum-like fields, ``values``; the
content conventions of transcripts, ``conventions``), drift against recorded baselines (``drift``, a
package: what is observed, ``drift.observed``; the classified changes, ``drift.changes``; the
comparison per surface, ``drift.comparison``; ``baselines``), which downstream readers a drift
breaks (``consumers``, a package: the profiles, ``consumers.profiles``; an entry judged on its
lines, ``consumers.entry_lines``, and on its values, ``consumers.value_filters``; a profile's
verdict, ``consumers.judging``, and the results, ``consumers.verdicts``; ``--fail-on``,
``consumers.fail_on``; what a corpus exercises, ``consumers.entry_coverage``), value-level
differences between two trajectories (``diff``), parent links (``links``, a package:
``links.model``, the reading of the evidence, ``links.evidence``, and ``links.resolution``) and what
a session's files hold (``inspection``). Results are plain dataclasses; nothing here prints, parses
arguments or writes a store.

May import: the foundation, ``audit.store`` and ``audit.checks``.
"""
