"""Formatters only: plain text tables and JSON (``text``), JUnit XML (``junit``), Markdown
(``markdown``), the ci report (``ci_report``), the drift and baseline reports
(``drift_report``) and the conformance report (``conformance_report``). A formatter never
computes a verdict; it renders results it is given.

May import: every band below it (the foundation, ``audit.store``, ``audit.checks``,
``audit.actions``, ``audit.pipeline``) and ``audit.report``.
"""
