"""Factories for sidecar-shaped trajectories: the daemon's proto3 JSON, deterministic from a seed.

Shapes follow the formats reference §4: camelCase keys, full enum names
(``CORTEX_STEP_TYPE_USER_INPUT``), int64 values as decimal strings, RFC 3339 UTC timestamps with
nine fractional digits. A ``.db`` written from a trajectory reconstructs to the same JSON except
for the keys no public source gives a field number for (see ``audit.store.proto``:
``invokeSubagent.subagents``/``results`` exist only in sidecars), and proto3 JSON omits zero values.

The step factories, one per step type, are ``steps``; the trajectory document that holds them
and its completion with the shapes of real stores, ``document``; the conversation holding every
step shape real stores show, ``every_shape``. Tests use them as ``T`` (``from audit.testing
import trajectories as T``).
"""

from audit.testing.trajectories.document import realize, trajectory
from audit.testing.trajectories.every_shape import every_shape_steps
from audit.testing.trajectories.steps import (
    STATUS,
    STEP,
    Clock,
    conversation_steps,
    error_message,
    image_media,
    invoke_subagent,
    knowledge_artifacts,
    new_id,
    planner_response,
    run_command,
    sentence,
    step,
    system_message,
    tool_call,
    user_input,
    view_file,
)

__all__ = [
    "STATUS",
    "STEP",
    "Clock",
    "conversation_steps",
    "error_message",
    "every_shape_steps",
    "image_media",
    "invoke_subagent",
    "knowledge_artifacts",
    "new_id",
    "planner_response",
    "realize",
    "run_command",
    "sentence",
    "step",
    "system_message",
    "tool_call",
    "trajectory",
    "user_input",
    "view_file",
]
