"""Step factories, one per step type (``user_input``, ``planner_response``, ``run_command``,
``view_file``, ``invoke_subagent``, ``error_message``, ``system_message``,
``knowledge_artifacts``), the ``step`` they build on, a ``Clock`` for their timestamps and
``conversation_steps`` for whole turns of them. Deterministic from a seed.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import random
import uuid
from collections.abc import Sequence
from typing import Any

STEP = "CORTEX_STEP_TYPE_"
STATUS = "CORTEX_STEP_STATUS_"
SOURCE = "CORTEX_STEP_SOURCE_"

_WORDS = (
    "parser build cache index module config test schema record export stream buffer token "
    "session corpus report drift field column table writer reader store baseline check"
).split()


class Clock:
    """Monotonic RFC 3339 timestamps with non-zero nanoseconds (so all 9 digits are significant)."""

    def __init__(self, rng: random.Random, start: str = "2026-09-01T09:00:00Z") -> None:
        self.rng = rng
        self.now = _dt.datetime.fromisoformat(start.replace("Z", "+00:00"))

    def tick(self, low: float = 0.5, high: float = 20.0) -> str:
        self.now += _dt.timedelta(seconds=self.rng.uniform(low, high))
        nanos = self.rng.randrange(1, 10**8) * 10 + self.rng.randrange(1, 10)
        return self.now.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"

    def epoch_ns(self) -> int:
        return int(self.now.timestamp()) * 10**9


def new_id(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def sentence(rng: random.Random, words: int = 8) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def step(kind: str, created_at: str, *, status: str = "DONE", source: str = "MODEL", **payload: object) -> dict[str, Any]:
    """One step: ``kind`` without the ``CORTEX_STEP_TYPE_`` prefix; payload keys as in sidecars."""
    metadata: dict[str, Any] = {"createdAt": created_at, "source": SOURCE + source}
    doc: dict[str, Any] = {"type": STEP + kind, "status": STATUS + status, "metadata": metadata}
    doc.update(payload)
    return doc


def tool_call(rng: random.Random, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"id": new_id(rng), "name": name, "argumentsJson": json.dumps(args, separators=(",", ":"))}


def user_input(clock: Clock, text: str, media: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """A prompt; *media* are the images attached to it (``image_media``)."""
    payload: dict[str, Any] = {"userResponse": text, "items": [{"text": text}]}
    if media:
        payload["media"] = list(media)
    return step("USER_INPUT", clock.tick(), source="USER_EXPLICIT", userInput=payload)


def image_media(uri: str, description: str = "image.png") -> dict[str, Any]:
    """An image attached to a prompt as real rows hold it (docs/store-format.md#payloads, USER_INPUT 19.9): a
    mime type, an empty inline data (the image is not stored inline), a description on 13 of
    22, the image's URI and a thumbnail (bytes, here a fixed PNG header)."""
    media = {"mimeType": "image/png", "inlineData": "", "uri": uri, "thumbnail": _THUMBNAIL}
    if description:
        media["description"] = description
    return media


_THUMBNAIL = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10").decode()


def planner_response(
    clock: Clock, rng: random.Random, response: str, calls: Sequence[dict[str, Any]] = (), *, thinking: str | None = None
) -> dict[str, Any]:
    payload: dict[str, Any] = {"response": response, "messageId": new_id(rng)}
    if thinking:
        payload["thinking"] = thinking
    if calls:
        payload["toolCalls"] = list(calls)
    # Real stores end both tool-use and final turns with STOP_PATTERN (docs/store-format.md#enums).
    payload["stopReason"] = "STOP_REASON_STOP_PATTERN"
    s = step("PLANNER_RESPONSE", clock.tick(), plannerResponse=payload)
    s["metadata"]["executionId"] = new_id(rng)
    s["metadata"]["modelUsage"] = _usage(rng)
    return s


def _usage(rng: random.Random) -> dict[str, Any]:
    thinking, response = rng.randrange(10, 900), rng.randrange(10, 900)
    return {
        "inputTokens": str(rng.randrange(1000, 40000)),
        "outputTokens": str(thinking + response),
        "thinkingOutputTokens": str(thinking),
        "responseOutputTokens": str(response),
        "cacheReadTokens": str(rng.randrange(0, 20000)),
        "responseId": new_id(rng),
    }


def run_command(clock: Clock, call: dict[str, Any], command: str, cwd: str, exit_code: int, output: str) -> dict[str, Any]:
    s = step(
        "RUN_COMMAND",
        clock.tick(),
        runCommand={"commandLine": command, "cwd": cwd, "exitCode": exit_code, "combinedOutput": {"full": output}},
    )
    s["metadata"]["executionId"] = call["id"]
    s["metadata"]["toolCall"] = call
    return s


def view_file(clock: Clock, call: dict[str, Any], path: str, content: str) -> dict[str, Any]:
    s = step(
        "VIEW_FILE",
        clock.tick(),
        viewFile={"absolutePathUri": "file://" + path, "content": content, "numLines": content.count("\n") + 1},
    )
    s["metadata"]["executionId"] = call["id"]
    s["metadata"]["toolCall"] = call
    return s


def invoke_subagent(clock: Clock, call: dict[str, Any], children: list[tuple[str, str]]) -> dict[str, Any]:
    """An INVOKE_SUBAGENT step whose results name each (child id, prompt)."""
    s = step(
        "INVOKE_SUBAGENT",
        clock.tick(),
        invokeSubagent={
            "subagents": [{"typeName": "general", "initialPrompt": prompt} for _, prompt in children],
            "results": [{"conversationId": cid} for cid, _ in children],
        },
    )
    s["metadata"]["executionId"] = call["id"]
    return s


def error_message(clock: Clock, short: str) -> dict[str, Any]:
    return step("ERROR_MESSAGE", clock.tick(), status="ERROR", source="SYSTEM", errorMessage={"error": {"shortError": short}})


def system_message(clock: Clock, message: str) -> dict[str, Any]:
    return step("SYSTEM_MESSAGE", clock.tick(), source="SYSTEM", systemMessage={"message": message})


def knowledge_artifacts(clock: Clock) -> dict[str, Any]:
    """A KNOWLEDGE_ARTIFACTS step (type 99) as real IDE stores hold them (docs/store-format.md#payloads: 1-2
    in 13 of 14 further ``.db``): its payload, Step field 112, is always an empty message, which
    the sidecar shows as ``knowledgeArtifacts: {}``. The source is not in the reference: SYSTEM, as
    the other context the agent injects (CONVERSATION_HISTORY)."""
    return step("KNOWLEDGE_ARTIFACTS", clock.tick(), source="SYSTEM", knowledgeArtifacts={})


def conversation_steps(
    rng: random.Random, clock: Clock, turns: int, *, prompt: str | None = None, workspace: str = "/home/agy/project"
) -> list[dict[str, Any]]:
    """A realistic conversation: each turn is a prompt, tool calls with their results, an answer."""
    steps: list[dict[str, Any]] = []
    for turn in range(turns):
        steps.append(user_input(clock, prompt if (turn == 0 and prompt) else sentence(rng)))
        for _ in range(rng.randrange(1, 3)):
            if rng.random() < 0.6:
                command = f"pytest -q tests/test_{rng.choice(_WORDS)}.py"
                call = tool_call(
                    rng,
                    "run_command",
                    {"CommandLine": command, "Cwd": workspace, "toolAction": "Running tests", "toolSummary": "run tests"},
                )
                steps.append(planner_response(clock, rng, sentence(rng), [call], thinking=sentence(rng, 12)))
                code = rng.choice((0, 0, 0, 1))
                steps.append(run_command(clock, call, command, workspace, code, f"{rng.randrange(1, 90)} passed\n"))
            else:
                path = f"{workspace}/{rng.choice(_WORDS)}.py"
                call = tool_call(
                    rng, "view_file", {"AbsolutePath": path, "toolAction": "Viewing file", "toolSummary": "read source"}
                )
                steps.append(planner_response(clock, rng, sentence(rng), [call], thinking=sentence(rng, 12)))
                body = "\n".join(f"def {rng.choice(_WORDS)}_{i}():\n    return {i}" for i in range(rng.randrange(1, 6)))
                steps.append(view_file(clock, call, path, body))
        steps.append(planner_response(clock, rng, sentence(rng, 14)))
    return steps
