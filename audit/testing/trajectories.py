"""Factories for sidecar-shaped trajectories: the daemon's proto3 JSON, deterministic from a seed.

Shapes follow the formats reference §4: camelCase keys, full enum names
(``CORTEX_STEP_TYPE_USER_INPUT``), int64 values as decimal strings, RFC 3339 UTC timestamps with
nine fractional digits. A ``.db`` written from a trajectory reconstructs to the same JSON except
for the keys no public source gives a field number for (see ``audit.store.proto``:
``invokeSubagent.subagents``/``results`` exist only in sidecars), and proto3 JSON omits zero values.
"""

from __future__ import annotations

import base64
import datetime as _dt
import json
import random
import uuid
from collections.abc import Callable, Sequence
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


# ----------------------------------------------------------------------------- real shapes

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


def every_shape_steps(
    rng: random.Random,
    clock: Clock,
    workspace: str = "/home/agy/project",
    *,
    browser: bool = True,
    unnamed_enums: bool = True,
    media: bool = True,
) -> list[dict[str, Any]]:
    """One conversation holding every step shape the survey of real stores found (docs/store-format.md#payloads): tool results of every
    kind, a permission asked and granted, a background task and the system message it sends back,
    GENERIC and ASK_QUESTION steps, a browser sub-agent with its sub-trajectory, a checkpoint, a
    failed generation and its ERROR_MESSAGE, ephemeral and conversation-history messages.

    ``browser=False`` leaves out the BROWSER_SUBAGENT step (its payload and sub-trajectory are keys
    the published sidecar record of agy 1.2.10/1.2.11 never shows); ``media=False`` leaves out the
    images attached to the first prompt (``userInput.media``, also absent from the published
    record). ``unnamed_enums=True`` writes an enum value real rows carry that no source names: a
    prompt section of the last generation row (``chatModel.promptSections``, on the last row of
    every real store) whose ``metadata.sourceType`` is 4 (24 of the 354 real sections;
    MLV's ``PromptSectionSourceType`` does not name it, docs/store-format.md#enums), which our export writes as a number and ``inspect``
    reports as ``1.16.4.1:enum=4``. It also writes the two values that were unnamed when the sample
    store (``unnamed_enums=False``) and the synthetic values lines of agy-1.2.11 were recorded from
    it, and that MLV's codeium_common names since: ``artifactMetadata.artifactType`` 2
    (``ARTIFACT_TYPE_WALKTHROUGH``) and ``searchWeb.thirdPartyConfig.provider`` 2
    (``THIRD_PARTY_WEB_SEARCH_PROVIDER_GEMINI``, every real web search); ``unnamed_enums=False``
    leaves out all three."""
    images = [image_media(f"file://{workspace}/screenshot.png"), image_media(f"file://{workspace}/logo.png", "")]
    steps: list[dict[str, Any]] = [user_input(clock, "Set up the project and tell me what you find.", images if media else ())]

    def turn(name: str, args: dict[str, Any], result: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
        args = {**args, "toolAction": f"Running {name}", "toolSummary": f"{name} step"}
        call = tool_call(rng, name, args)
        steps.append(planner_response(clock, rng, sentence(rng), [call], thinking=sentence(rng, 10)))
        out = result(call)
        out["metadata"]["toolCall"] = call
        steps.append(out)
        return out

    command = "pytest -q"
    run = turn(
        "run_command",
        {"CommandLine": command, "Cwd": workspace, "WaitMsBeforeAsync": 5000},
        lambda call: run_command(clock, call, command, workspace, 0, "12 passed\n"),
    )
    _permission(run, "command", command)
    background = turn(
        "run_command",
        {"CommandLine": "npm run dev", "Cwd": workspace, "WaitMsBeforeAsync": 2000},
        lambda call: run_command(clock, call, "npm run dev", workspace, -1, "server listening\n"),
    )
    background["taskDetails"] = {"id": CASCADE + "/task-1", "logUri": "file:///tmp/task-1.log", "description": "npm run dev"}
    background["runCommand"]["waitMsBeforeAsync"] = "2000"
    turn(
        "view_file",
        {"AbsolutePath": f"{workspace}/app.py", "StartLine": 1, "EndLine": 3},
        lambda call: view_file(clock, call, f"{workspace}/app.py", "import os\n\nprint(os.getcwd())"),
    )
    missing = turn(
        "view_file",
        {"AbsolutePath": f"{workspace}/missing.py"},
        lambda call: step(
            "VIEW_FILE", clock.tick(), status="ERROR", viewFile={"absolutePathUri": f"file://{workspace}/missing.py"}
        ),
    )
    missing["error"] = {  # Step.31, on errored and canceled steps of any type (23 real rows)
        "userErrorMessage": "The file does not exist.",
        "shortError": "file not found",
        "fullError": f"open {workspace}/missing.py: no such file or directory",
        "isBenign": True,
    }
    turn(
        "list_dir",
        {"DirectoryPath": workspace},
        lambda call: step(
            "LIST_DIRECTORY",
            clock.tick(),
            listDirectory={
                "directoryPathUri": "file://" + workspace,
                "results": [{"name": "app.py", "sizeBytes": "32"}, {"name": "tests", "isDir": True}],
            },
        ),
    )
    turn(
        "grep_search",
        {"Query": "getcwd", "SearchPath": workspace},
        lambda call: step(
            "GREP_SEARCH",
            clock.tick(),
            grepSearch={
                "query": "getcwd",
                "searchPathUri": "file://" + workspace,
                "matchPerLine": True,
                "commandRun": "rg getcwd",
            },
        ),
    )
    turn(
        "write_to_file",
        {"TargetFile": f"{workspace}/README.md", "Description": "Add a README"},
        lambda call: step(
            "CODE_ACTION",
            clock.tick(),
            codeAction={
                "actionSpec": {"createFile": {}},
                "actionResult": {"edit": {"absoluteUri": f"file://{workspace}/README.md", "createFile": True}},
                "useFastApply": True,
                "description": "Add a README",
                "isArtifactFile": True,
                "artifactMetadata": {
                    "summary": "Walkthrough of the setup",
                    **({"artifactType": "ARTIFACT_TYPE_WALKTHROUGH"} if unnamed_enums else {}),
                },
            },
        ),
    )
    turn(
        "search_web",
        {"query": "pytest fixtures"},
        lambda call: step(
            "SEARCH_WEB",
            clock.tick(),
            searchWeb={
                "query": "pytest fixtures",
                "summary": sentence(rng),
                **({"thirdPartyConfig": {"provider": "THIRD_PARTY_WEB_SEARCH_PROVIDER_GEMINI"}} if unnamed_enums else {}),
                "searchType": "SEARCH_WEB_TYPE_WEB",
            },
        ),
    )
    turn(
        "read_url_content",
        {"Url": "https://docs.pytest.org/"},
        lambda call: step(
            "READ_URL_CONTENT",
            clock.tick(),
            readUrlContent={
                "url": "https://docs.pytest.org/",
                "resolvedUrl": "https://docs.pytest.org/en/stable/",
                "latencyMs": 534,
                "contentPath": "/tmp/page.md",
            },
        ),
    )
    turn(
        "manage_task",
        {"Action": "status", "TaskId": "task-1"},
        lambda call: step(
            "GENERIC",
            clock.tick(),
            generic={
                "args": {"Action": "status", "TaskId": "task-1"},
                "result": {
                    "result": "task-1 is running",
                    "metadata": {"task_id": "task-1"},
                    "stepRenderInfo": {"title": "Task status", "markdown": "task-1: running"},
                },
            },
        ),
    )
    question = {
        "question": "Which port should the server use?",
        "options": [{"id": "a", "text": "3000"}, {"id": "b", "text": "8080"}],
    }
    answered = {**question, "selectedOptionIds": ["b"], "writeInResponse": "8080 please"}
    ask = turn(
        "ask_question",
        {"questions": [question]},
        lambda call: step("ASK_QUESTION", clock.tick(), askQuestion={"questions": [answered]}),
    )
    ask["requestedInteraction"] = {"askQuestion": {"questions": [question]}}
    response = {k: v for k, v in answered.items() if k != "options"}  # as the published sidecar record shows it
    ask["completedInteractions"] = [
        {"request": ask["requestedInteraction"], "response": {"askQuestion": {"responses": [response]}}}
    ]
    if browser:
        turn(
            "browser_subagent",
            {"Task": "Open the app and check the title", "TaskName": "check-title"},
            lambda call: _browser_subagent(rng, clock),
        )
    turn(
        "generate_image",
        {"Prompt": "a logo"},
        lambda call: step(
            "GENERATE_IMAGE", clock.tick(), generateImage={"prompt": "a logo", "imageName": "logo.png", "modelName": "imagen"}
        ),
    )
    steps.append(
        step(
            "SYSTEM_MESSAGE",
            clock.tick(),
            source="SYSTEM",
            systemMessage={
                "message": "Task task-1 finished.",
                "renderInfo": {"title": "Task finished", "markdown": "task-1 exited with code 0"},
                "eventType": "agent_message",
                "agentMessage": {
                    "id": new_id(rng),
                    "recipient": CASCADE,
                    "sender": CASCADE + "/task-1",
                    "content": "task-1 exited with code 0",
                    "priority": "MESSAGE_PRIORITY_HIGH",
                    "timestamp": clock.tick(0.1, 0.2),
                    "renderDetails": {"messageTitle": "Task finished"},
                    "sourceMetadata": {
                        "tool": {"conversationId": CASCADE, "stepIndex": 3, "toolCall": background["metadata"]["toolCall"]}
                    },
                },
            },
        )
    )
    steps[-1]["metadata"]["isInterruptingStep"] = True
    steps.append(
        step(
            "EPHEMERAL_MESSAGE",
            clock.tick(),
            source="SYSTEM",
            ephemeralMessage={"content": "Reminder: keep going.", "triggeredHeuristics": ["idle"]},
        )
    )
    steps.append(
        step(
            "CONVERSATION_HISTORY", clock.tick(), source="SYSTEM", conversationHistory={"content": "Earlier: set up the project."}
        )
    )
    steps.append(
        step(
            "CHECKPOINT",
            clock.tick(),
            source="SYSTEM",
            checkpoint={
                "userIntent": "Set up the project",
                "intentOnly": True,
                "includedStepIndexEnd": 4,
                "userRequests": ["Set up the project"],
            },
        )
    )
    failed = planner_response(clock, rng, "")
    failed["plannerResponse"] = {"stopReason": "STOP_REASON_CLIENT_STREAM_ERROR"}
    del failed["metadata"]["modelUsage"]
    steps.append(failed)
    steps.append(
        step(
            "ERROR_MESSAGE",
            clock.tick(),
            status="DONE",
            source="SYSTEM",
            errorMessage={
                "error": {
                    "userErrorMessage": "The model is overloaded.",
                    "shortError": "RESOURCE_EXHAUSTED",
                    "fullError": "429 RESOURCE_EXHAUSTED: quota",
                    "errorCode": 429,
                    "modelErrorMessage": "Resource exhausted",
                },
                "shouldShowModel": True,
                "shouldShowUser": True,
            },
        )
    )
    steps.append(user_input(clock, "Thanks, that is all."))
    steps.append(planner_response(clock, rng, sentence(rng, 14)))
    if unnamed_enums:  # the last generation row, which holds the system prompt
        steps[-1][GENERATION] = {"promptSections": _prompt_sections()}
    return steps


def _prompt_sections() -> list[dict[str, Any]]:
    """Prompt sections as the last generation row of a real store holds them (gen 1.16: title,
    content, metadata {source_type, template_key}; token type and source 1 in all 354 real sections)."""
    system = {"tokenType": "TOKEN_TYPE_SYSTEM_PROMPT", "tokenSource": "TOKEN_SOURCE_SYSTEM"}
    return [
        {
            "title": "identity",
            "content": "You are a coding agent.",
            "metadata": {"sourceType": "PROMPT_SECTION_SOURCE_TYPE_TEMPLATE", "templateKey": "identity"},
            **system,
        },
        {
            "title": "user_rules",
            "content": "Run the tests before you answer.",
            "metadata": {"sourceType": 4, "templateKey": "user_rules"},  # a value no source names
            **system,
        },
    ]


def _permission(s: dict[str, Any], action: str, target: str) -> None:
    resource = {"action": action, "target": target}
    s["requestedInteraction"] = {"permission": {"resource": resource}}
    # scope is unset on 288 of 310 real grants
    s["permissions"] = {"permissionGrants": [{"resource": resource, "allow": True}]}
    s["completedInteractions"] = [{"request": s["requestedInteraction"], "response": {"permission": {"allow": True}}}]


def _browser_subagent(rng: random.Random, clock: Clock) -> dict[str, Any]:
    inner = [
        user_input(clock, "Open the app and check the title"),
        planner_response(clock, rng, "Opening the page."),
        step("OPEN_BROWSER_URL", clock.tick()),
        step("LIST_BROWSER_PAGES", clock.tick()),
    ]
    for s in inner:
        s["metadata"].pop("modelUsage", None)
        s["metadata"].pop("executionId", None)
    s = step(
        "BROWSER_SUBAGENT",
        clock.tick(),
        browserSubagent={
            "task": "Open the app and check the title",
            "result": "The title is 'Dev server'.",
            "taskName": "check-title",
            "recordingName": "check-title.webp",
            "taskSummary": "Checked the page title",
        },
    )
    s["subtrajectory"] = {
        "trajectoryId": new_id(rng),
        "steps": inner,
        "trajectoryType": "CORTEX_TRAJECTORY_TYPE_BROWSER",
        "parentReferences": [
            {
                "trajectoryId": new_id(rng),
                "stepType": STEP + "USER_INPUT",
                "referenceType": "CORTEX_TRAJECTORY_REFERENCE_TYPE_FORK",
            }
        ],
        "cascadeId": CASCADE,
    }
    return s
