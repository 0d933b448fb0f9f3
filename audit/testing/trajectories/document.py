"""The trajectory document: ``trajectory`` wraps steps into the daemon's ``trajectory`` member, and
``realize`` completes it with the shapes real ``.db`` files carry (docs/store-format.md#payloads):
executions, generator and executor metadata rows, each step's ``sourceTrajectoryStepInfo``,
status transitions and timestamps, and the trajectory metadata.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import random
from typing import Any

from audit.testing.trajectories.steps import STATUS, STEP, new_id


def trajectory(
    rng: random.Random,
    cascade_id: str,
    steps: list[dict[str, Any]],
    *,
    created_at: str,
    source: str = "CORTEX_TRAJECTORY_SOURCE_CLI",
    workspace: str = "/home/agy/project",
    parent: str | None = None,
) -> dict[str, Any]:
    """A whole sidecar-shaped trajectory (the daemon's ``trajectory`` member), completed the way
    real stores hold it (``realize``): one execution per turn shared by its planner and tool steps,
    a generator metadata row per planner step and an executor row per execution, every step's
    ``sourceTrajectoryStepInfo``, status transitions and timestamps, and the trajectory metadata."""
    metadata: dict[str, Any] = {
        "createdAt": created_at,
        "workspaces": [
            {
                "workspaceFolderAbsoluteUri": "file://" + workspace,
                "gitRootAbsoluteUri": "file://" + workspace,
                "branchName": "main",
            }
        ],
    }
    if parent is not None:
        metadata["parentConversationId"] = parent
    doc = {
        "trajectoryId": new_id(rng),
        "cascadeId": cascade_id,
        "trajectoryType": "CORTEX_TRAJECTORY_TYPE_CASCADE",
        "source": source,
        "steps": steps,
        "generatorMetadata": [],
        "executorMetadatas": [],
        "metadata": metadata,
    }
    realize(doc, workspace=workspace)
    return doc


MODEL = "MODEL_PLACEHOLDER_M20"
"""The generation model of real stores' most common rows (1020, "Gemini 3.5 Flash (Medium)")."""
CASCADE = "@@CASCADE@@"
"""Stands for the conversation's own cascade id in step factories; ``realize`` binds it."""
GENERATION = "@@GENERATION@@"
"""A key a step list may put on a planner step: ``realize`` removes it and merges its fields into
the ``chatModel`` of that step's generator metadata row (fields only generation rows hold, such as
``promptSections``)."""
_EXPERIMENTS = [101, 117, 2204, 35011, 40116]


def _at(text: str, seconds: float) -> str:
    """*text* (nine-digit RFC 3339) moved by *seconds*, keeping nine fractional digits."""
    base = _dt.datetime.fromisoformat(text[:19] + "+00:00")
    nanos = int(text[20:29]) + int(round(seconds * 10**9))
    base += _dt.timedelta(seconds=nanos // 10**9)
    return base.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos % 10**9:09d}Z"


def _transitions(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"statusTransitions": [{"updatedStatus": STATUS + status, "timestamp": ts} for status, ts in pairs]}


def _args_of(call: dict[str, Any]) -> dict[str, Any]:
    try:
        value = json.loads(call.get("argumentsJson") or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def realize(doc: dict[str, Any], *, workspace: str = "/home/agy/project") -> None:
    """Complete *doc* in place with the shapes real ``.db`` files carry (docs/store-format.md#payloads),
    deterministically from its cascade id; the payloads the factories wrote are kept."""
    rng = random.Random(doc["cascadeId"])
    cascade, trajectory_id, steps = doc["cascadeId"], doc["trajectoryId"], doc["steps"]
    _bind(steps, cascade)
    turns: list[list[int]] = []
    for i, s in enumerate(steps):
        if s.get("type") == STEP + "USER_INPUT" or not turns:
            turns.append([])
        turns[-1].append(i)
    generator: list[dict[str, Any]] = []
    executor: list[dict[str, Any]] = []
    for turn in turns:
        planners = [i for i in turn if steps[i].get("type") == STEP + "PLANNER_RESPONSE"]
        execution = steps[planners[0]]["metadata"].get("executionId") if planners else None
        execution = execution or new_id(rng)
        calls: dict[str, int] = {}  # tool-call id -> planner step
        for i in turn:
            s, meta = steps[i], steps[i]["metadata"]
            meta["executionId"] = execution
            if s.get("type") == STEP + "PLANNER_RESPONSE":
                for call in s["plannerResponse"].get("toolCalls", []):
                    calls[call["id"]] = i
        for i in turn:
            _realize_step(rng, steps[i], calls)
        for planner in planners:
            tools = [i for i in turn if calls.get(((steps[i]["metadata"].get("toolCall") or {}).get("id")) or "") == planner]
            generator.append(_generation(rng, doc, planner, tools))
            generator[-1]["chatModel"].update(steps[planner].pop(GENERATION, {}))
        if planners:
            last = steps[planners[-1]]["plannerResponse"]
            stop = last.get("stopReason")
            row: dict[str, Any] = {
                "terminationReason": "EXECUTOR_TERMINATION_REASON_"
                + ("ERROR" if stop == "STOP_REASON_CLIENT_STREAM_ERROR" else "NO_TOOL_CALL"),
                "numGeneratorInvocations": len(planners),
                "lastStepIdx": max(turn),
                "executionId": execution,
                "cascadeConfig": {"plannerConfig": _planner_config()},
                "mendelExperimentIds": list(_EXPERIMENTS),
            }
            if stop == "STOP_REASON_CLIENT_STREAM_ERROR":
                row["error"] = "stream closed by the model service"
            executor.append(row)
    by_step = {i: n for n, g in enumerate(generator) for i in g["stepIndices"]}
    following = 0
    for i in range(len(steps) - 1, -1, -1):  # unclaimed steps point at the next generation
        following = by_step.get(i, following)
        info = {"trajectoryId": trajectory_id, "stepIndex": i, "metadataIndex": by_step.get(i, following), "cascadeId": cascade}
        steps[i]["metadata"]["sourceTrajectoryStepInfo"] = {k: v for k, v in info.items() if v}  # proto3 omits 0
        for done in steps[i].get("completedInteractions", []):
            done["response"] = {"trajectoryId": trajectory_id, "stepIndex": i, **done.get("response", {})}
            done["response"] = {k: v for k, v in done["response"].items() if v}
    if generator:
        generator[-1]["plannerConfig"] = _planner_config()
        generator[-1]["chatModel"]["systemPrompt"] = "You are a coding agent."
    doc["generatorMetadata"], doc["executorMetadatas"] = generator, executor
    metadata = doc["metadata"]
    metadata.setdefault("initializationStateId", new_id(rng))
    metadata["rootConversationId"] = metadata.get("parentConversationId") or cascade
    metadata["workspaceUris"] = ["file://" + workspace]
    metadata["mendelExperimentIds"] = list(_EXPERIMENTS)


def _bind(value: object, cascade: str) -> object:
    """Replace ``CASCADE`` in every string of the step dicts (in place for containers)."""
    if isinstance(value, dict):
        for key, item in value.items():
            value[key] = _bind(item, cascade)
    elif isinstance(value, list):
        value[:] = [_bind(item, cascade) for item in value]
    elif isinstance(value, str) and CASCADE in value:
        return value.replace(CASCADE, cascade)
    return value


def _planner_config() -> dict[str, Any]:
    return {
        "planModel": MODEL,
        "maxOutputTokens": 65536,
        "requestedModel": {"model": MODEL},
        "modelName": "gemini-3.5-flash-low",
    }


_UNTIMED = frozenset({STEP + "USER_INPUT", STEP + "SYSTEM_MESSAGE", STEP + "ERROR_MESSAGE"})
"""Step types real stores give neither ``startedAt`` nor ``completedAt`` (Appendix A)."""


def _realize_step(rng: random.Random, s: dict[str, Any], calls: dict[str, int]) -> None:
    meta, kind, created = s["metadata"], s.get("type", ""), s["metadata"]["createdAt"]
    if kind in _UNTIMED:
        meta["internalMetadata"] = _transitions((s.get("status", STATUS + "DONE").removeprefix(STATUS), created))
        return
    done = meta.setdefault("completedAt", _at(created, rng.uniform(0.5, 3.0)))
    if kind == STEP + "PLANNER_RESPONSE":
        meta["viewableAt"] = _at(created, 0.3)
        meta["finishedGeneratingAt"] = meta["startedAt"] = done
        meta["internalMetadata"] = _transitions(("GENERATING", created), ("DONE", done))
        meta["generatorModel"], meta["requestedModel"], meta["stepGenerationVersion"] = MODEL, {"model": MODEL}, 1
        usage = meta.setdefault("modelUsage", {})
        usage.update({"model": MODEL, "apiProvider": "API_PROVIDER_GOOGLE_GEMINI"})
        for call in s["plannerResponse"].get("toolCalls", []):
            call["originalName"] = call["name"]
            call.setdefault("thinkingSignature", base64.b64encode(rng.randbytes(12)).decode())
        return
    call = meta.get("toolCall")
    if call is None:  # checkpoints, ephemeral and history messages: started when created
        meta["startedAt"] = created
        meta["internalMetadata"] = _transitions(("DONE", done))
        return
    if kind == STEP + "RUN_COMMAND":
        run = s.setdefault("runCommand", {})
        run.setdefault("proposedCommandLine", run.get("commandLine", ""))
        run.setdefault("waitMsBeforeAsync", "5000")
        run.setdefault("blocking", True)
    elif kind == STEP + "VIEW_FILE":
        view = s.setdefault("viewFile", {})
        if view.get("content"):
            view.setdefault("numBytes", len(view["content"].encode()))
        if view.get("numLines", 0) > 1:
            view.setdefault("endLine", view["numLines"] - 1)  # 0-based (docs/store-format.md#payloads)
    call["originalName"] = call["name"]
    args = _args_of(call)
    meta["argumentsOrder"] = list(args)
    for key in ("toolSummary", "toolAction"):
        if isinstance(args.get(key), str):
            meta[key] = args[key]
    meta["viewableAt"] = meta["finishedGeneratingAt"] = meta["lastCompletedChunkAt"] = _at(created, 0.05)
    started = meta["startedAt"] = _at(created, 0.1)
    meta["toolCallOutputTokens"] = rng.randrange(20, 400)
    meta["generatorModel"], meta["requestedModel"], meta["stepGenerationVersion"] = MODEL, {"model": MODEL}, 1
    final = s.get("status", STATUS + "DONE").removeprefix(STATUS)
    pairs = [("PENDING", created)]
    if s.get("requestedInteraction"):
        pairs.append(("WAITING", _at(created, 0.08)))
    pairs += [("RUNNING", started), (final, done)]
    meta["internalMetadata"] = _transitions(*pairs)


def _generation(rng: random.Random, doc: dict[str, Any], planner: int, tools: list[int]) -> dict[str, Any]:
    steps = doc["steps"]
    meta, payload = steps[planner]["metadata"], steps[planner]["plannerResponse"]
    chat: dict[str, Any] = {
        "model": MODEL,
        "responseModel": "gemini-default",
        "displayName": "Gemini 3.5 Flash (Medium)",
        "attributes": [
            {"key": "trajectory_id", "value": doc["trajectoryId"]},
            {"key": "model_enum", "value": MODEL},
            {"key": "last_step_index", "value": str(max(planner - 1, 0))},
            {"key": "used_claude", "value": "false"},
        ],
        "chatStartMetadata": {
            "createdAt": meta["createdAt"],
            "checkpointIndex": -1,
            "contextWindowMetadata": {"estimatedTokensUsed": rng.randrange(4000, 90000)},
        },
    }
    row: dict[str, Any] = {
        "stepIndices": [planner, *tools],
        "executionId": meta["executionId"],
        "mendelExperimentIds": list(_EXPERIMENTS),
    }
    if payload.get("stopReason") == "STOP_REASON_CLIENT_STREAM_ERROR":
        row["error"] = "stream closed by the model service"  # a failed request has no usage
    else:
        chat["usage"] = meta["modelUsage"]
        chat["timeToFirstToken"] = f"{rng.randrange(1, 4)}.{rng.randrange(100, 999)}s"
        chat["streamingDuration"] = f"0.{rng.randrange(100, 999)}s"
        chat["retryInfos"] = [{"usage": meta["modelUsage"], "traceId": f"{rng.getrandbits(64):016x}"}]
    row["chatModel"] = chat
    return row
