"""Sidecar steps with the real-world shapes of transcript records, for tests: ``typed_tool_steps``
makes tool calls with the typed argument names real transcripts show (``TYPED_ARGUMENTS``), and
``error_steps`` ERROR_MESSAGE steps with an ``errorCode``. Deterministic for a given
``random.Random``.
"""

from __future__ import annotations

import random
from typing import Any

from audit.testing import trajectories as T

TYPED_ARGUMENTS = (
    "WaitMsBeforeAsync",
    "StartLine",
    "EndLine",
    "Overwrite",
    "AllowMultiple",
    "ArtifactMetadata",
    "ReplacementChunks",
    "BypassSandbox",
    "MatchPerLine",
    "CaseInsensitive",
    "IsRegex",
    "IsDaemon",
    "IsSkillFile",
    "Includes",
    "ContentOffset",
    "IsArtifact",
    "questions",
    "MediaPaths",
)
"""The argument names with non-string values in real transcripts (docs/store-format.md#argument-encoding)."""


def typed_tool_steps(rng: random.Random, clock: T.Clock, workspace: str = "/home/agy/project") -> list[dict[str, Any]]:
    """Sidecar-shaped planner steps whose tool calls carry every argument of ``TYPED_ARGUMENTS``
    (ints, bools, objects, arrays), each with the UX metadata arguments real calls have."""
    target = f"{workspace}/{rng.choice(('notes', 'plan', 'readme'))}.md"

    def call(name: str, action: str, args: dict[str, Any]) -> dict[str, Any]:
        return T.tool_call(rng, name, {**args, "toolAction": action, "toolSummary": f"{action.lower()} for the task"})

    calls = [
        call(
            "run_command",
            "Starting server",
            {"CommandLine": "npm run dev", "Cwd": workspace, "WaitMsBeforeAsync": 5000, "BypassSandbox": False, "IsDaemon": True},
        ),
        call(
            "view_file",
            "Reading skill",
            {"AbsolutePath": f"{workspace}/SKILL.md", "StartLine": 1, "EndLine": 80, "IsSkillFile": True},
        ),
        call(
            "write_to_file",
            "Writing notes",
            {
                "TargetFile": target,
                "CodeContent": "# Notes\n\n- first\n",
                "Overwrite": True,
                "IsArtifact": True,
                "ArtifactMetadata": {"Summary": "Working notes", "ArtifactType": "other"},
                "Description": "notes for the task",
            },
        ),
        call(
            "multi_replace_file_content",
            "Editing notes",
            {
                "TargetFile": target,
                "Instruction": "fix the list",
                "ReplacementChunks": [
                    {
                        "StartLine": 3,
                        "EndLine": 3,
                        "TargetContent": "- first",
                        "ReplacementContent": "- one",
                        "AllowMultiple": False,
                    }
                ],
            },
        ),
        call(
            "replace_file_content",
            "Editing notes",
            {
                "TargetFile": target,
                "StartLine": 1,
                "EndLine": 1,
                "TargetContent": "# Notes",
                "ReplacementContent": "# Plan",
                "AllowMultiple": True,
            },
        ),
        call(
            "grep_search",
            "Searching",
            {
                "SearchPath": workspace,
                "Query": "TODO",
                "MatchPerLine": True,
                "CaseInsensitive": True,
                "IsRegex": False,
                "Includes": ["*.py", "*.md"],
            },
        ),
        call("read_url_content", "Reading page", {"Url": "https://example.com/docs", "ContentOffset": 4096}),
        call("ask_question", "Asking", {"questions": [{"question": "Which port?", "options": ["3000", "8080"]}]}),
        call("generate_image", "Drawing", {"Prompt": "a diagram of the plan", "MediaPaths": [f"{workspace}/diagram.png"]}),
    ]
    return [
        T.planner_response(clock, rng, T.sentence(rng), calls[i : i + 3], thinking=T.sentence(rng, 10))
        for i in range(0, len(calls), 3)
    ]


def error_steps(clock: T.Clock, codes: tuple[int, ...] = (429, 503)) -> list[dict[str, Any]]:
    """ERROR_MESSAGE steps carrying an ``errorCode`` (the transcript's ``error_code``)."""
    out = []
    for code in codes:
        step = T.error_message(clock, f"HTTP {code}: the model is unavailable, retrying")
        step["errorMessage"]["error"]["errorCode"] = code
        out.append(step)
    return out
