"""Judging: everything that compares what was read with what it should be and returns findings.

The contract and its schema compiler (``contract``, ``schemas``), native completeness
(``completeness``), shapes and fingerprints of every surface (``shape``, ``fingerprint``; the
content conventions of transcripts, ``conventions``), drift
against recorded baselines (``drift``, ``baselines``), parent links (``links``) and what a session's
files hold (``inspection``). Results are plain dataclasses; nothing here prints, parses arguments
or writes a store.

May import: the foundation, ``audit.store`` and ``audit.checks``.
"""
