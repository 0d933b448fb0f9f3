"""One module per CLI command: ``register(subparsers, parents)`` and ``run(args) -> int``."""
