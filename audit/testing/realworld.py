"""Sessions with every real-world transcript case of docs/store-format.md#transcript-anomalies, for the sample home
and the tests: ``add_real_world(builder)``.

* ``chunked`` (CLI): flat transcripts and their rolling chunks (byte-identical; the full tier
  crosses a 102,400-byte boundary mid-line), tool calls with every typed argument name
  (``typed_tool_steps``: ints, bools, objects, arrays natively in the full tier, JSON text in the
  compact one), ERROR_MESSAGE rows with ``error_code``;
* ``windows`` (CLI): a compact window that starts late and a full window that starts later
  still, an ``overview.txt`` that covers the steps before both, a compact argument cut by
  ``<truncated N bytes>`` on a line whose ``truncated_fields`` does not name it, a
  ``created_at`` going backwards, a RUNNING line for a step the ``.db`` finished;
* ``chunk-only`` (ACP): a brain-only session whose transcripts exist only as chunks.

Everything a consumer must tolerate and nothing it would break on: ``ci`` finds no violation in
them, only advisories (``tests/workflows/test_realworld.py`` holds the exact list). Deterministic
for the builder's seed.
"""

from __future__ import annotations

from audit.testing import trajectories as T
from audit.testing.builder import Conversation, StoreBuilder
from audit.testing.transcript_steps import error_steps, typed_tool_steps

BIG_FILE_LINES = 2_400
"""Lines of the file the ``chunked`` session views: its full-tier record alone passes 102,400 bytes."""


def add_real_world(builder: StoreBuilder, *, long_answers: int = 0) -> dict[str, Conversation]:
    """Add the sessions of the module docstring to *builder*; returns them by name.
    *long_answers* more planner steps with long answers and thinking (about 3.2 KB each in the
    compact tier, where both are cut) make its compact tier cross chunk boundaries too (35 or more)."""
    rng, clock = builder.rng, builder.clock
    cli = builder.root("cli")
    steps = T.conversation_steps(rng, clock, 1)
    steps += typed_tool_steps(rng, clock)
    steps += error_steps(clock)
    steps += [T.planner_response(clock, rng, T.sentence(rng, 400), thinking=T.sentence(rng, 400)) for _ in range(long_answers)]
    path = "/home/agy/project/generated_table.py"
    call = T.tool_call(rng, "view_file", {"AbsolutePath": path, "toolAction": "Viewing file", "toolSummary": "read the table"})
    steps.append(T.planner_response(clock, rng, T.sentence(rng), [call], thinking=T.sentence(rng, 12)))
    body = "\n".join(f"ROW_{i:05d} = ({i}, {i * i}, {T.sentence(rng, 4)!r})" for i in range(BIG_FILE_LINES))
    steps.append(T.view_file(clock, call, path, body))
    steps.append(T.planner_response(clock, rng, T.sentence(rng, 14)))
    chunked = cli.conversation(steps=steps, transcript_chunks="both")
    steps = T.conversation_steps(rng, clock, 4)
    # a step written late with an earlier time (a CHECKPOINT-like line): the .db says so too
    late = len(steps) * 3 // 4
    steps[late]["metadata"]["createdAt"] = steps[late - 2]["metadata"]["createdAt"]
    windows = cli.conversation(
        steps=steps,
        transcript_anomalies={"late-start", "late-full", "truncated-arg", "running"},
        transcript_overview=True,
    )
    only = builder.root("acp").conversation(turns=2, db=False, sidecar="missing", transcript_chunks="only")
    return {"chunked": chunked, "windows": windows, "chunk-only": only}
