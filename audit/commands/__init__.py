"""One module per CLI command: ``register(subparsers, parents)`` and ``run(args) -> int``.

``ci``, ``doctor``, ``stores``, ``inspect``, ``export``, ``sweep``, ``verify_contract``
(``verify-contract``), ``completeness``, ``consistency``, ``fingerprint``, ``compare``, ``record``,
``baselines``, ``consumers``, ``mutate``, ``conformance``, ``links``, ``diff`` and ``redact``; the
options every command that reads stores shares and their translation into roots (``common``); the
project configuration, ``agy-audit.toml`` or ``pyproject.toml [tool.agy-audit]`` (``project``).
``audit.cli`` builds the parser from them.

May import: every band.
"""
