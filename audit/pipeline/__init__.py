"""Orchestration: ``ci`` (every check after an agy upgrade, in one run: the stages after the sweep,
``ci_stages``, and its results, ``ci_results``; the checks of each swept session, ``sessions``,
run in a second process, ``worker``, when there are many), ``doctor`` (a quick health check) and
``conformance`` (a reader's own command, run by ``command``, on mutated copies of a store), built
from the checks and actions below them. Nothing here prints; reports are formatted by
``audit.report``.

May import: the foundation, ``audit.store``, ``audit.checks``, ``audit.actions`` and
``audit.pipeline``.
"""
