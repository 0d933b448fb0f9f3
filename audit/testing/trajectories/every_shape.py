"""One conversation holding every step shape the survey of real stores found
(``every_shape_steps``), with the payloads only it uses: a permission asked and granted, a browser
sub-agent with its sub-trajectory, the prompt sections of the last generation row.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from audit.testing.trajectories.document import CASCADE, GENERATION
from audit.testing.trajectories.steps import (
    STEP,
    Clock,
    image_media,
    new_id,
    planner_response,
    run_command,
    sentence,
    step,
    tool_call,
    user_input,
    view_file,
)


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
