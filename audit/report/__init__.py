"""Formatters only: plain text tables, the one line of a finding and JSON (``text``), the JSON
envelope of every command (``envelope``), SARIF 2.1.0 logs (``sarif``), JUnit XML (``junit``),
Markdown (``markdown``), the ci report (``ci_report``) and its self-contained HTML page
(``html_report``), the contract and consistency reports (``contract_report``,
``consistency_report``), the drift and baseline reports (``drift_report``), consumer verdicts
(``consumers_report``), value-level differences (``diff_report``), the conformance report
(``conformance_report``) and parent links: check, backfill, repair, verify, rollback
(``links_report``). A formatter never computes a verdict; it renders results it is given.

May import: every band below it (the foundation, ``audit.store``, ``audit.checks``,
``audit.actions``, ``audit.pipeline``) and ``audit.report``.
"""
