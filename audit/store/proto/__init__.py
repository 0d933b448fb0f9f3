"""Protobuf schema of the conversation store (``cortex.proto``) and the sidecar keys it carries.

``cortex_pb2`` is generated from ``cortex.proto`` (regenerate: ``.venv/bin/python -m
audit.store.proto.regenerate``; the generated code needs protobuf >= 7.35.1 at run time). Field names
are chosen so protobuf's JSON mapping (``json_format.MessageToDict`` / ``ParseDict``) gives the
sidecar's camelCase keys; enum values are the sidecar's full names.

Supported JSON keys -- everything a ``.db`` row can carry and ``audit.store.trajectory`` reconstructs
(one line per JSON object; ``[]`` = array, ``{}`` = object, ``*`` = map key; kept equal to
``json_paths()`` by a test)::

    .: cascadeId, executorMetadatas[], generatorMetadata[], metadata{}, parentReferences[],
        source, steps[], trajectoryId, trajectoryType
    executorMetadatas[]: cascadeConfig{}, executionId, lastStepIdx, numForcedInvocations,
        numGeneratorInvocations, proceededWithAutoContinue, terminationReason
    executorMetadatas[].cascadeConfig: plannerConfig{}
    executorMetadatas[].cascadeConfig.plannerConfig: customizationConfig{}, modelName,
        planModel
    executorMetadatas[].cascadeConfig.plannerConfig.customizationConfig: agentPath
    generatorMetadata[]: chatModel{}, error, executionId, injected{}, plannerConfig{},
        stepIndices[]
    generatorMetadata[].chatModel: chatStartMetadata{}, displayName, lastCacheIndex, model,
        responseModel, retries, retryInfos[], streamingDuration, systemPrompt,
        timeToFirstToken, usage{}
    generatorMetadata[].chatModel.chatStartMetadata: checkpointIndex,
        contextWindowMetadata{}, createdAt, latestStableMessageIndex, startStepIndex
    generatorMetadata[].chatModel.chatStartMetadata.contextWindowMetadata:
        estimatedTokensUsed
    generatorMetadata[].chatModel.retryInfos[]: error, retryReason, traceId, usage{}
    generatorMetadata[].chatModel.retryInfos[].usage: apiProvider, cacheReadTokens,
        cacheWriteTokens, inputTokens, messageId, model, outputTokens, responseHeader{},
        responseId, responseOutputTokens, thinkingOutputTokens
    generatorMetadata[].chatModel.retryInfos[].usage.responseHeader: *
    generatorMetadata[].chatModel.usage: apiProvider, cacheReadTokens, cacheWriteTokens,
        inputTokens, messageId, model, outputTokens, responseHeader{}, responseId,
        responseOutputTokens, thinkingOutputTokens
    generatorMetadata[].chatModel.usage.responseHeader: *
    generatorMetadata[].plannerConfig: customizationConfig{}, modelName, planModel
    generatorMetadata[].plannerConfig.customizationConfig: agentPath
    metadata: createdAt, initializationStateId, workspaces[]
    metadata.workspaces[]: branchName, gitRootAbsoluteUri, workspaceFolderAbsoluteUri
    parentReferences[]: referenceType, stepIndex, stepType, trajectoryId, trajectoryType
    steps[]: checkpoint{}, codeAction{}, commandStatus{}, conversationHistory{},
        ephemeralMessage{}, error{}, errorMessage{}, find{}, generateImage{}, generic{},
        grepSearch{}, invokeSubagent{}, listDirectory{}, mcpTool{}, metadata{},
        permissions{}, plannerResponse{}, readUrlContent{}, runCommand{}, searchWeb{},
        status, systemMessage{}, taskDetails{}, type, userInput{}, viewFile{}
    steps[].checkpoint: checkpointIndex, conversationLogUris[], conversationTitle,
        includedStepIndexEnd, includedStepIndexStart, intentOnly, modelSummarizationFailed,
        sessionSummary, usedFallbackSummary, userIntent, userRequests[]
    steps[].codeAction: actionResult{}, description, isArtifactFile, useFastApply
    steps[].codeAction.actionResult: edit{}
    steps[].codeAction.actionResult.edit: absoluteUri, createFile, originalContent
    steps[].commandStatus: commandId, outputCharacterCount, waitDurationSeconds
    steps[].conversationHistory: content
    steps[].ephemeralMessage: content, triggeredHeuristics[]
    steps[].error: details, errorCode, errorId, fullError, isBenign, modelErrorMessage,
        rpcErrorDetails[], shortError, structuredErrorParts[], userErrorMessage
    steps[].error.structuredErrorParts[]: codeText, directoryUri, fileUri, text, url
    steps[].errorMessage: error{}, shouldShowModel, shouldShowUser
    steps[].errorMessage.error: details, errorCode, errorId, fullError, isBenign,
        modelErrorMessage, rpcErrorDetails[], shortError, structuredErrorParts[],
        userErrorMessage
    steps[].errorMessage.error.structuredErrorParts[]: codeText, directoryUri, fileUri,
        text, url
    steps[].find: commandRun, excludes[], extensions[], findError, fullPath, includes[],
        maxDepth, pattern, rawOutput, searchDirectory, totalResults, truncatedOutput,
        truncatedTotalResults, type
    steps[].generateImage: imageName, imagePaths[], modelName, prompt
    steps[].generic: args{}, result{}
    steps[].generic.args: *
    steps[].generic.result: metadata{}, result
    steps[].generic.result.metadata: *
    steps[].grepSearch: caseInsensitive, commandRun, includes[], isRegex, matchPerLine,
        query, rawOutput, results[], searchPathUri, timedOut, totalResults
    steps[].grepSearch.results[]: absolutePath, content, lineNumber, relativePath
    steps[].invokeSubagent: conversationId, logAbsoluteUri, prompt, result, subagentName
    steps[].listDirectory: dirNotFound, directoryPathUri, results[]
    steps[].listDirectory.results[]: isDir, name, sizeBytes
    steps[].mcpTool: resultString, resultUri, serverName, toolCall{}, userRejected
    steps[].mcpTool.toolCall: argumentsJson, id, name
    steps[].metadata: argumentsOrder[], completedAt, createdAt, executionId,
        finishedGeneratingAt, generatorModel, internalMetadata{}, lastCompletedChunkAt,
        modelUsage{}, retryInfos[], source, sourceTrajectoryStepInfo{},
        stepGenerationVersion, toolCall{}, toolCallOutputTokens, viewableAt
    steps[].metadata.internalMetadata: statusTransitions[]
    steps[].metadata.internalMetadata.statusTransitions[]: timestamp, updatedStatus
    steps[].metadata.modelUsage: apiProvider, cacheReadTokens, cacheWriteTokens,
        inputTokens, messageId, model, outputTokens, responseHeader{}, responseId,
        responseOutputTokens, thinkingOutputTokens
    steps[].metadata.modelUsage.responseHeader: *
    steps[].metadata.retryInfos[]: error, retryReason, traceId, usage{}
    steps[].metadata.retryInfos[].usage: apiProvider, cacheReadTokens, cacheWriteTokens,
        inputTokens, messageId, model, outputTokens, responseHeader{}, responseId,
        responseOutputTokens, thinkingOutputTokens
    steps[].metadata.retryInfos[].usage.responseHeader: *
    steps[].metadata.sourceTrajectoryStepInfo: cascadeId, metadataIndex, stepIndex,
        trajectoryId
    steps[].metadata.toolCall: argumentsJson, id, name
    steps[].plannerResponse: messageId, modifiedResponse, response, stopReason, thinking,
        thinkingDuration, thinkingSignature, toolCalls[]
    steps[].plannerResponse.toolCalls[]: argumentsJson, id, name
    steps[].readUrlContent: latencyMs, resolvedUrl, url, userRejected
    steps[].runCommand: blocking, combinedOutput{}, combinedOutputSnapshot{}, commandLine,
        cwd, exitCode, proposedCommandLine, requestedTerminalId, sandboxOverride,
        terminalId, waitMsBeforeAsync
    steps[].runCommand.combinedOutput: full, numLinesAbove, truncated
    steps[].runCommand.combinedOutputSnapshot: full, numLinesAbove, truncated
    steps[].searchWeb: domain, query, searchType, summary, webSearchUrl
    steps[].systemMessage: message
    steps[].taskDetails: id, logUri
    steps[].userInput: items[], query, userResponse
    steps[].userInput.items[]: text
    steps[].viewFile: absolutePathUri, content, endLine, isSkillFile, numBytes, numLines,
        skillMetadata{}, startLine
    steps[].viewFile.skillMetadata: description, name

Round-trip rules for writers of sidecar-shaped dicts (``audit.testing.dbwriter``):

* proto3 JSON omits default values: ``0``, ``"0"``, ``false``, ``""``, ``[]`` and unset enums
  never come back (the daemon omits them too). Exception: ``runCommand.exitCode`` has explicit
  presence, so ``0`` survives.
* int64/uint64 (token counts, ``sizeBytes``, ``waitMsBeforeAsync``) come back as decimal
  strings; timestamps as RFC 3339 UTC with nine fractional digits; durations as ``"1.5s"``;
  ``plannerResponse.thinkingSignature`` is bytes, so it must be standard base64.
* Enum names without a known number cannot be stored: ``CORTEX_STOP_REASON_*`` (no value
  numbers known), ``CORTEX_STEP_TYPE_GENERIC`` / ``ASK_QUESTION``. Stored numbers that the enum
  does not name come back as JSON numbers (e.g. ``"type": 132``).
* Sidecar-only keys (no known field number, dropped when writing a ``.db``): ``agyReader``;
  ``metadata.parentConversationId`` / ``rootConversationId`` / ``projectId`` / ``nestingDepth``
  / ``workspaceUris`` / ``subagentSpec`` / ``mendelExperimentIds`` / ``staticConfig`` /
  ``agentScript``; ``metadata.workspaces[].repository``; ``invokeSubagent.subagents[]`` and
  ``invokeSubagent.results[]``; ``systemMessage.eventType`` / ``agentMessage`` /
  ``renderInfo``; ``permissions.permissionGrants[]``; ``askQuestion``;
  ``requestedInteraction``; ``completedInteractions``; step ``metadata.startedAt`` /
  ``toolAction`` / ``toolSummary`` / ``toolSource`` / ``requestedModel``; ``toolCall.originalName``
  / ``thinkingSignature``; and the other keys the comments in ``cortex.proto`` list.
"""

from __future__ import annotations

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from audit.store.proto import cortex_pb2

_NUMBER = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_FIXED32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_FLOAT,
    FieldDescriptor.TYPE_DOUBLE,
}
_STRING_MESSAGES = {"google.protobuf.Timestamp", "google.protobuf.Duration"}


def json_paths(descriptor: Descriptor = cortex_pb2.Trajectory.DESCRIPTOR) -> list[tuple[str, str]]:
    """Every proto3-JSON path the schema can produce, as (path, JSON type), shape-TSV style."""
    out: list[tuple[str, str]] = []
    _walk(descriptor, "", out)
    return sorted(out)


def _walk(descriptor: Descriptor, prefix: str, out: list[tuple[str, str]]) -> None:
    for fd in descriptor.fields:
        path = prefix + fd.json_name
        message = fd.message_type
        if message is not None and message.GetOptions().map_entry:
            out.append((path, "object"))
            _leaf(message.fields_by_name["value"], path + ".*", out)
            continue
        if fd.is_repeated:
            out.append((path, "array"))
            path += ".[]"
        _leaf(fd, path, out)


def _leaf(fd: FieldDescriptor, path: str, out: list[tuple[str, str]]) -> None:
    message = fd.message_type
    if message is not None and message.full_name not in _STRING_MESSAGES:
        out.append((path, "object"))
        _walk(message, path + ".", out)
    elif fd.type == FieldDescriptor.TYPE_BOOL:
        out.append((path, "boolean"))
    else:
        out.append((path, "number" if fd.type in _NUMBER else "string"))
