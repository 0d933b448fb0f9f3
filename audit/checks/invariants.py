"""Invariants of one conversation ``.db`` that consumers rely on (docs/store-format.md#databases).

Judged on the rows of ``audit.store.database`` and the trajectory ``audit.store.trajectory``
rebuilds from them; nothing here reads a file or prints. Each breach names the rows it is about
(``gen_metadata[idx=N]``, ``steps[idx=N]``).

Checked, each a fact measured on real stores:

* ``invariant/token-accounting`` -- where a generation has usage (``gen_metadata`` 1.4) that
  splits its output, ``outputTokens == thinkingOutputTokens + responseOutputTokens`` (fields 3,
  9 and 10; 1053/1053, B.1.7). Cost trackers add 9 and 10 or subtract one from 3. Usage with
  output tokens and neither 9 nor 10 is an advisory (``invariant/token-split``): the split is
  not recorded, nothing contradicts it.
* ``invariant/generation-id`` -- ``gen_metadata`` field 4 (the generation's execution id) is a
  UUID (1074/1074) and equals ``metadata.executionId`` of the first step it generated
  (``stepIndices[0]``; 1074/1074).
* ``invariant/response-id`` -- ``responseId`` (usage field 11) is unique among the
  generations of a conversation where present: cost trackers deduplicate on
  ``<cascadeId>:<responseId>``.
* ``invariant/usage-model`` -- a generation's usage record names the model its request was made
  with: ``usage.model`` (1.4.1) equals the chat model (1.3; 1053/1053, docs/store-format.md#generator-metadata) and the
  ``model_enum`` request attribute (1.20) is that model's enum name (``MODEL_PLACEHOLDER_M<n>``
  for 1000 + n; 1074/1074). codeburn prices a call by ``usage.model`` when it reads the daemon's
  generator metadata and by the attribute or display name when it reads the ``.db``: where they
  disagree the two paths price one request as two models. A model number neither named by
  ``cortex.proto`` nor a placeholder number leaves the attribute unchecked.
* ``invariant/tool-result`` -- every step with a copied tool call (``metadata.toolCall``,
  metadata field 4) names, by id, a call of an earlier PLANNER_RESPONSE step and is a copy of
  it (id, name, arguments; byte-identical 885/885, B.1.3). When no earlier planner step made the
  call but an earlier step has a type ``cortex.proto`` does not name (a new kind of planner step
  after an upgrade), its calls cannot be read: an advisory, not a breach.

Not checked: that field 4 is unique per conversation. It is not on real stores: an execution
spans several generations (``executor_metadata`` 2 ``num_generator_invocations`` equals the
number of ``gen_metadata`` rows sharing the execution id, 217/217, B.1.8), so requiring it would
fail every real multi-step turn.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from google.protobuf.message import DecodeError

from audit.findings import Finding, Level
from audit.store.database import NativeConversation
from audit.store.ids import is_uuid
from audit.store.proto import cortex_pb2 as pb

RULES = {
    "invariant/token-accounting": "outputTokens == thinkingOutputTokens + responseOutputTokens where a generation's usage splits its output",
    "invariant/token-split": "a generation's usage has output tokens but records neither thinking nor response tokens (advisory)",
    "invariant/generation-id": "gen_metadata field 4 is a UUID and the executionId of the generation's first step",
    "invariant/response-id": "responseId (usage field 11) is unique among a conversation's generations",
    "invariant/usage-model": "a generation's usage.model and its model_enum attribute name its chat model (1.3)",
    "invariant/tool-result": "a step's copied tool call (metadata.toolCall) is a call of an earlier planner step",
}
_PLANNER = "CORTEX_STEP_TYPE_PLANNER_RESPONSE"


def check(conv: NativeConversation, steps: list[dict[str, Any]], step_rows: list[object] | None = None) -> list[Finding]:
    """The breaches in *conv*, each naming the ``.db`` and, in its message, the rows it is about;
    *steps* are the trajectory's steps (one per ``steps`` row, in row order) and *step_rows* their
    ``idx`` values (default: the rows' ``idx`` column)."""
    idx = list(step_rows) if step_rows is not None else [row.get("idx") for row in conv.steps]
    by_idx = {i: s for i, s in zip(idx, steps) if isinstance(i, int)}
    breaches = _generations(conv, by_idx) + _tool_results(steps, idx)
    return [replace(b, file=str(conv.path)) for b in breaches]


def _generations(conv: NativeConversation, steps: dict[int, dict[str, Any]]) -> list[Finding]:
    out: list[Finding] = []
    response_ids: dict[str, list[str]] = defaultdict(list)
    for row in conv.tables.get("gen_metadata", []):
        name = f"gen_metadata[idx={row.get('idx')!r}]"
        data = row.get("data")
        gen = pb.CortexStepGeneratorMetadata()
        try:
            if not isinstance(data, bytes):
                continue  # NULL or not a blob: the trajectory decoder reports it
            gen.ParseFromString(data)
        except DecodeError:
            continue  # likewise
        out += _generation_id(name, gen, steps)
        if gen.HasField("chat_model"):
            out += _usage_model(name, gen.chat_model)
        if gen.HasField("chat_model") and gen.chat_model.HasField("usage"):
            usage = gen.chat_model.usage
            out += _token_accounting(name, usage)
            if usage.response_id:
                response_ids[usage.response_id].append(name)
    for response_id, rows in response_ids.items():
        if len(rows) > 1:
            out.append(Finding("invariant/response-id", Level.ERROR, f"{', '.join(rows)} share responseId {response_id!r}"))
    return out


def _generation_id(name: str, gen: pb.CortexStepGeneratorMetadata, steps: dict[int, dict[str, Any]]) -> list[Finding]:
    if not is_uuid(gen.execution_id):
        what = "has no execution id (field 4)" if not gen.execution_id else f"execution id {gen.execution_id!r} is not a UUID"
        return [Finding("invariant/generation-id", Level.ERROR, f"{name} {what}")]
    if not gen.step_indices or gen.step_indices[0] not in steps:
        return []  # nothing to compare with; a missing step is the trajectory decoder's finding
    first = gen.step_indices[0]
    step_id = (steps[first].get("metadata") or {}).get("executionId")
    if step_id is not None and step_id != gen.execution_id:
        row = f"steps[idx={first}]"
        return [
            Finding(
                "invariant/generation-id",
                Level.ERROR,
                f"{name} execution id {gen.execution_id!r} differs from {row}.metadata.executionId {step_id!r}",
            )
        ]
    return []


def _usage_model(name: str, chat: pb.ChatModelMetadata) -> list[Finding]:
    """The usage record's model and the ``model_enum`` attribute against the chat model."""
    out = []
    if chat.HasField("usage") and chat.usage.model and chat.usage.model != chat.model:
        message = f"{name} usage.model {_model(chat.usage.model)} differs from its chat model {_model(chat.model)}"
        out.append(Finding("invariant/usage-model", Level.ERROR, message))
    expected = _model_name(chat.model)
    for attribute in chat.attributes:
        if attribute.key == "model_enum" and expected is not None and attribute.value != expected:
            message = f"{name} model_enum attribute {attribute.value!r} is not its chat model's name {expected!r}"
            out.append(Finding("invariant/usage-model", Level.ERROR, message))
    return out


def _model_name(number: int) -> str | None:
    """The enum name of a model number: ``cortex.proto``'s, else the placeholder name real rows
    give 1000 + n; None for any other number."""
    named = pb.Model.DESCRIPTOR.values_by_number.get(number)
    if named is not None:
        return named.name
    return f"MODEL_PLACEHOLDER_M{number - 1000}" if number >= 1000 else None


def _model(number: int) -> str:
    return f"{_model_name(number) or 'unnamed'} ({number})"


def _token_accounting(name: str, usage: pb.ModelUsageStats) -> list[Finding]:
    output, thinking, response = usage.output_tokens, usage.thinking_output_tokens, usage.response_output_tokens
    if not thinking and not response:
        if output:
            return [
                Finding(
                    "invariant/token-split",
                    Level.WARNING,
                    f"{name} usage has {output} output tokens and no thinking/response split",
                )
            ]
        return []
    if output != thinking + response:
        return [
            Finding(
                "invariant/token-accounting",
                Level.ERROR,
                f"{name} usage: outputTokens {output} != thinkingOutputTokens {thinking} + responseOutputTokens {response}",
            )
        ]
    return []


def _tool_results(steps: list[dict[str, Any]], idx: list[object]) -> list[Finding]:
    out: list[Finding] = []
    calls: dict[str, tuple[object, dict[str, Any]]] = {}  # call id -> (planner idx, the call), earlier planners only
    unnamed: set[object] = set()  # the types of earlier steps cortex.proto does not name: their calls cannot be read
    for i, step in zip(idx, steps):
        copied = (step.get("metadata") or {}).get("toolCall")
        if isinstance(copied, dict):
            out += _copied_call(f"steps[idx={i!r}]", copied, calls, unnamed)
        kind = step.get("type")
        if kind == _PLANNER:
            for call in (step.get("plannerResponse") or {}).get("toolCalls") or []:
                if isinstance(call, dict) and call.get("id"):
                    calls.setdefault(call["id"], (i, call))
        elif kind is not None and not isinstance(kind, str):  # proto3 JSON writes an unnamed enum value as its number
            unnamed.add(kind)
    return out


def _copied_call(
    row: str, copied: dict[str, Any], calls: dict[str, tuple[object, dict[str, Any]]], unnamed: set[object]
) -> list[Finding]:
    call_id = copied.get("id")
    if not call_id:
        message = f"{row}.metadata.toolCall ({copied.get('name') or 'no name'}) has no call id"
        return [Finding("invariant/tool-result", Level.ERROR, message)]
    if call_id not in calls:
        message = (
            f"{row}.metadata.toolCall id {call_id!r} ({copied.get('name') or 'no name'}) is no call of an earlier planner step"
        )
        if unnamed:  # a new kind of planner step may hold it: unknown, not a breach
            types = ", ".join(map(str, sorted(unnamed, key=str)))
            return [
                Finding(
                    "invariant/tool-result",
                    Level.WARNING,
                    f"{message} agy-audit can read (earlier steps of type {types}, which cortex.proto does not name, may hold it)",
                )
            ]
        return [Finding("invariant/tool-result", Level.ERROR, message)]
    planner, call = calls[call_id]
    differs = [key for key in ("name", "argumentsJson") if copied.get(key) != call.get(key)]
    if differs:
        source = f"steps[idx={planner!r}]"
        message = f"{row}.metadata.toolCall differs in {', '.join(differs)} from call {call_id!r} of {source}"
        return [Finding("invariant/tool-result", Level.ERROR, message)]
    return []
