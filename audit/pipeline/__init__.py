"""Orchestration: ``ci`` (every check after an agy upgrade, in one run) and ``doctor`` (a quick
health check), built from the checks and actions below them. Nothing here prints; reports are
formatted by ``audit.report``.

May import: the foundation, ``audit.store``, ``audit.checks``, ``audit.actions`` and
``audit.pipeline``.
"""
