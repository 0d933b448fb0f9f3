"""Formatters only: plain text tables, the one line of a finding and JSON (``text``), the JSON
envelope of every command (``envelope``), SARIF 2.1.0 logs (``sarif``), JUnit XML (``junit``),
Markdown (``markdown``), the ci report (``ci_report``) and its self-contained HTML page
(``html_report``; the frame of every page, ``html_page``, and its drift and consumers sections,
``html_drift`` and ``html_consumers``), the contract and consistency reports (``contract_report``,
``consistency_report``), the drift and baseline reports (``drift_report``), consumer verdicts
(``consumers_report``), value-level differences (``diff_report``), the conformance report and
the mutated copies (``conformance_report``), and one module per command that renders its own
result: parent links (``links_report``), store roots and sessions (``stores_report``), the health
check (``doctor_report``), what a session's artifacts hold (``inspect_report``), a sweep
(``sweep_report``), sidecars against their sources (``completeness_report``), a redacted copy
(``redact_report``) and the notes about an export (``export_report``). A formatter never
computes a verdict; it renders results it is given.

May import: every band below it (the foundation, ``audit.store``, ``audit.checks``,
``audit.actions``, ``audit.pipeline``) and ``audit.report``.
"""
