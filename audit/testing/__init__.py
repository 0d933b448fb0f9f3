"""Public test support: the store builder and the loopback daemon simulator.

``StoreBuilder`` writes realistic, deterministic stores for tests, benchmarks and examples; see
``audit.testing.builder`` for the API and ``audit.testing.trajectories`` for the step factories
(a package: the steps by type, ``steps``; the trajectory document, ``document``; every step shape
of real stores, ``every_shape``). Brain transcripts are written by ``transcripts`` from the
records ``transcript_records`` derives from a session's steps; ``transcript_steps`` makes steps
with the typed arguments and error codes real transcripts show. ``SimulatedDaemon`` serves a
store over loopback the way the agy daemon does (``audit.testing.daemon``).
"""

from audit.testing.builder import Conversation, RootBuilder, StoreBuilder, write_sidecar
from audit.testing.daemon import FakeProc, SimulatedDaemon

__all__ = ["Conversation", "FakeProc", "RootBuilder", "SimulatedDaemon", "StoreBuilder", "write_sidecar"]
