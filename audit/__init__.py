"""agy-audit: format audit and contract verification for Antigravity session stores.

The package is layered; data flows one way and a module imports only from its own band or from
the bands before it (``tests/project/test_layers.py`` checks every import)::

    foundation  errors, findings, safeio, safewrite, strictjson, display, csrf, resources, progress, clock
                exceptions with exit codes, the findings model, safe reads and atomic writes, strict JSON, terminal-safe text, the CSRF token and its scrubber
    store/      where sessions are and reading them
    checks/     judging them: findings, never writes
    actions/    what writes: sweep, record, repair, attest, export
    pipeline/   ci and doctor, orchestrating the above
    report/     formatters of all of the above
    commands/   the thin CLI (cli.py, one module per command)

``audit.testing`` (the store builder and daemon simulator for tests) may import any band and is
imported by none.
"""

__version__ = "0.1.0"
