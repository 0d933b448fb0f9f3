"""Public test support: the store builder (and, later, the daemon simulator).

``StoreBuilder`` writes realistic, deterministic stores for tests, benchmarks and examples; see
``audit.testing.builder`` for the API and ``audit.testing.trajectories`` for the step factories.
"""

from audit.testing.builder import Conversation, RootBuilder, StoreBuilder, write_sidecar

__all__ = ["Conversation", "RootBuilder", "StoreBuilder", "write_sidecar"]
