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
    executorMetadatas[]: cascadeConfig{}, error, executionId, lastStepIdx,
        mendelExperimentIds[], numForcedInvocations, numGeneratorInvocations,
        proceededWithAutoContinue, terminationReason
    executorMetadatas[].cascadeConfig: agentApiConfig{}, conversationHistoryConfig{},
        messageConfig{}, plannerConfig{}, splitDynamicPromptSections
    executorMetadatas[].cascadeConfig.agentApiConfig: enabled
    executorMetadatas[].cascadeConfig.conversationHistoryConfig: enabled,
        maxArtifactSummaryChars, maxConversationLogsChars, maxConversations, maxTitleChars,
        maxUserIntentChars
    executorMetadatas[].cascadeConfig.messageConfig: enabled
    executorMetadatas[].cascadeConfig.plannerConfig: conversational{},
        customizationConfig{}, knowledgeConfig{}, maxOutputTokens, modelName,
        noToolExplanation, noToolSummary, noWaitForPreviousTools, planModel,
        requestedModel{}
    executorMetadatas[].cascadeConfig.plannerConfig.conversational: agenticMode,
        conversationHistoryConfig{}, evalMode, plannerMode, promptCombinationName
    executorMetadatas[].cascadeConfig.plannerConfig.conversational.conversationHistoryConfig
        : enabled, maxArtifactSummaryChars, maxConversationLogsChars, maxConversations,
        maxTitleChars, maxUserIntentChars
    executorMetadatas[].cascadeConfig.plannerConfig.customizationConfig: agentPath,
        enableJsonHooks
    executorMetadatas[].cascadeConfig.plannerConfig.knowledgeConfig: enableKiInsertion,
        enabled, maxArtifactsPerKi, maxContextTokens, maxInvocations, maxKnowledgeItems,
        maxSummaryLength, maxTitleLength, minTurnsBetweenKnowledgeGeneration, model
    executorMetadatas[].cascadeConfig.plannerConfig.requestedModel: model
    generatorMetadata[]: chatModel{}, error, executionId, injected{}, mendelExperimentIds[],
        plannerConfig{}, stepIndices[]
    generatorMetadata[].chatModel: attributes[], chatStartMetadata{}, completionConfig{},
        displayName, lastCacheIndex, messageMetadata[], messagePrompts[], model,
        promptSections[], responseModel, retries, retryInfos[], streamingDuration,
        systemPrompt, timeToFirstToken, toolChoice{}, tools[], usage{}
    generatorMetadata[].chatModel.attributes[]: key, value
    generatorMetadata[].chatModel.chatStartMetadata: cacheBreakpoints[], checkpointIndex,
        contextWindowMetadata{}, createdAt, latestStableMessageIndex, startStepIndex,
        systemPromptCache{}, timeSinceLastInvocation
    generatorMetadata[].chatModel.chatStartMetadata.cacheBreakpoints[]: contentChecksum,
        index, options{}
    generatorMetadata[].chatModel.chatStartMetadata.cacheBreakpoints[].options: type
    generatorMetadata[].chatModel.chatStartMetadata.contextWindowMetadata:
        estimatedTokensUsed, tokenBreakdown{}, truncationReason
    generatorMetadata[].chatModel.chatStartMetadata.contextWindowMetadata.tokenBreakdown:
        groups[], totalTokens
    generatorMetadata[].chatModel.chatStartMetadata.contextWindowMetadata.tokenBreakdown.gro
        ups[]: name, numTokens, source, type
    generatorMetadata[].chatModel.chatStartMetadata.systemPromptCache: contentChecksum,
        index, options{}
    generatorMetadata[].chatModel.chatStartMetadata.systemPromptCache.options: type
    generatorMetadata[].chatModel.completionConfig: fimEotProbThreshold, firstTemperature,
        maxNewlines, maxTokens, numCompletions, stopPatterns[], temperature, topK, topP
    generatorMetadata[].chatModel.messageMetadata[]: messageIndex, segmentIndex
    generatorMetadata[].chatModel.messagePrompts[]: media[], messageId, numTokens, prompt,
        promptCacheOptions{}, providerAssignedMessageId, rawThinking, safeForCodeTelemetry,
        signature, source, stepIdx, thinking, thinkingRedacted, thinkingSignature,
        toolCallId, toolCalls[], toolResultIsError
    generatorMetadata[].chatModel.messagePrompts[].media[]: description, inlineData,
        mimeType, thumbnail, uri
    generatorMetadata[].chatModel.messagePrompts[].promptCacheOptions: type
    generatorMetadata[].chatModel.messagePrompts[].toolCalls[]: argumentsJson, id, name,
        originalName, thinkingSignature
    generatorMetadata[].chatModel.promptSections[]: content, dynamicContent, metadata{},
        templatedContent, templatedDynamicContent, title, tokenSource, tokenType
    generatorMetadata[].chatModel.promptSections[].metadata: isInternal, sourceType,
        templateKey
    generatorMetadata[].chatModel.retryInfos[]: error, retryReason, traceId, usage{}
    generatorMetadata[].chatModel.retryInfos[].usage: apiProvider, cacheReadTokens,
        cacheWriteTokens, inputTokens, messageId, model, outputTokens, responseHeader{},
        responseId, responseOutputTokens, thinkingOutputTokens
    generatorMetadata[].chatModel.retryInfos[].usage.responseHeader: *
    generatorMetadata[].chatModel.toolChoice: optionName, toolName
    generatorMetadata[].chatModel.tools[]: attributionFieldNames[], description,
        jsonSchemaString, name, serverName, strict
    generatorMetadata[].chatModel.usage: apiProvider, cacheReadTokens, cacheWriteTokens,
        inputTokens, messageId, model, outputTokens, responseHeader{}, responseId,
        responseOutputTokens, thinkingOutputTokens
    generatorMetadata[].chatModel.usage.responseHeader: *
    generatorMetadata[].plannerConfig: conversational{}, customizationConfig{},
        knowledgeConfig{}, maxOutputTokens, modelName, noToolExplanation, noToolSummary,
        noWaitForPreviousTools, planModel, requestedModel{}
    generatorMetadata[].plannerConfig.conversational: agenticMode,
        conversationHistoryConfig{}, evalMode, plannerMode, promptCombinationName
    generatorMetadata[].plannerConfig.conversational.conversationHistoryConfig: enabled,
        maxArtifactSummaryChars, maxConversationLogsChars, maxConversations, maxTitleChars,
        maxUserIntentChars
    generatorMetadata[].plannerConfig.customizationConfig: agentPath, enableJsonHooks
    generatorMetadata[].plannerConfig.knowledgeConfig: enableKiInsertion, enabled,
        maxArtifactsPerKi, maxContextTokens, maxInvocations, maxKnowledgeItems,
        maxSummaryLength, maxTitleLength, minTurnsBetweenKnowledgeGeneration, model
    generatorMetadata[].plannerConfig.requestedModel: model
    metadata: createdAt, initializationStateId, mendelExperimentIds[], parentConversationId,
        rootConversationId, workspaceUris[], workspaces[]
    metadata.workspaces[]: branchName, gitRootAbsoluteUri, repository{},
        workspaceFolderAbsoluteUri
    parentReferences[]: referenceType, stepIndex, stepType, trajectoryId, trajectoryType
    steps[]: askQuestion{}, browserSubagent{}, checkpoint{}, codeAction{}, commandStatus{},
        completedInteractions[], conversationHistory{}, ephemeralMessage{}, error{},
        errorMessage{}, find{}, generateImage{}, generic{}, grepSearch{}, invokeSubagent{},
        knowledgeArtifacts{}, listDirectory{}, mcpTool{}, metadata{}, permissions{},
        plannerResponse{}, readUrlContent{}, requestedInteraction{}, runCommand{},
        searchWeb{}, status, subtrajectory{}, systemMessage{}, taskDetails{}, type,
        userInput{}, viewFile{}
    steps[].askQuestion: questions[]
    steps[].askQuestion.questions[]: isMultiSelect, options[], question,
        selectedOptionIds[], skipped, writeInResponse
    steps[].askQuestion.questions[].options[]: id, text
    steps[].browserSubagent: recordingName, recordingPath, result, reusedSubagentId,
        scratchpadPath, skipped, subagentId, task, taskName, taskSummary
    steps[].checkpoint: artifactSnapshots[], checkpointIndex, conversationLogUris[],
        conversationTitle, includedStepIndexEnd, includedStepIndexStart, intentOnly,
        modelSummarizationFailed, sessionSummary, trajectoryFileDiffs[],
        usedFallbackSummary, userIntent, userRequests[]
    steps[].checkpoint.artifactSnapshots[]: artifactAbsoluteUri, artifactName, content,
        lastEdited, reviewState{}
    steps[].checkpoint.artifactSnapshots[].reviewState: artifactUri, lastReviewedContent,
        lastReviewedTime, status
    steps[].checkpoint.trajectoryFileDiffs[]: hasModelEdited, isArtifactFile,
        isKnowledgeFile, lastModifiedAt, modifiedContent, originalContent, uri
    steps[].codeAction: actionResult{}, actionSpec{}, artifactMetadata{}, description,
        isArtifactFile, markdownValidationError, replacementInfos[],
        targetFileHasAllCarriageReturns, targetFileHasCarriageReturns, useFastApply
    steps[].codeAction.actionResult: edit{}
    steps[].codeAction.actionResult.edit: absoluteUri, createFile, originalContent
    steps[].codeAction.actionSpec: command{}, createFile{}
    steps[].codeAction.actionSpec.command: file{}, instruction, isEdit, replacementChunks[],
        useFastApply
    steps[].codeAction.actionSpec.command.file: absoluteUri, workspaceUrisToRelativePaths{}
    steps[].codeAction.actionSpec.command.file.workspaceUrisToRelativePaths: *
    steps[].codeAction.actionSpec.command.replacementChunks[]: allowMultiple,
        contextLines[], endLine, index, replacementContent, startLine, targetContent,
        targetHasCarriageReturn
    steps[].codeAction.actionSpec.createFile: instruction, overwrite, path{}
    steps[].codeAction.actionSpec.createFile.path: absoluteUri,
        workspaceUrisToRelativePaths{}
    steps[].codeAction.actionSpec.createFile.path.workspaceUrisToRelativePaths: *
    steps[].codeAction.artifactMetadata: artifactType, createdAt, requestFeedback, summary,
        updatedAt, version
    steps[].codeAction.replacementInfos[]: boundaryLinesMatch, editDistance, error,
        errorStr, fastApplyFixable, fuzzyMatch, isNonExact, numMatches, originalChunk{},
        relEditDistance, repairFixable, repaired, useGlobalMatch
    steps[].codeAction.replacementInfos[].originalChunk: allowMultiple, contextLines[],
        endLine, index, replacementContent, startLine, targetContent,
        targetHasCarriageReturn
    steps[].commandStatus: commandId, outputCharacterCount, waitDurationSeconds
    steps[].completedInteractions[]: request{}, response{}
    steps[].completedInteractions[].request: askQuestion{}, permission{}
    steps[].completedInteractions[].request.askQuestion: questions[]
    steps[].completedInteractions[].request.askQuestion.questions[]: isMultiSelect,
        options[], question, selectedOptionIds[], skipped, writeInResponse
    steps[].completedInteractions[].request.askQuestion.questions[].options[]: id, text
    steps[].completedInteractions[].request.permission: resource{}
    steps[].completedInteractions[].request.permission.resource: action, target
    steps[].completedInteractions[].response: askQuestion{}, permission{}, stepIndex,
        trajectoryId
    steps[].completedInteractions[].response.askQuestion: cancelled, responses[]
    steps[].completedInteractions[].response.askQuestion.responses[]: isMultiSelect,
        options[], question, selectedOptionIds[], skipped, writeInResponse
    steps[].completedInteractions[].response.askQuestion.responses[].options[]: id, text
    steps[].completedInteractions[].response.permission: allow, sandboxOverride, scope
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
    steps[].generateImage: generatedMedia{}, imageName, imagePaths[], modelName, prompt
    steps[].generateImage.generatedMedia: description, inlineData, mimeType, thumbnail, uri
    steps[].generic: args{}, result{}
    steps[].generic.args: *
    steps[].generic.result: metadata{}, result, stepRenderInfo{}
    steps[].generic.result.metadata: *
    steps[].generic.result.stepRenderInfo: hidden, markdown, title
    steps[].grepSearch: caseInsensitive, commandRun, includes[], isRegex, matchPerLine,
        query, rawOutput, results[], searchPathUri, timedOut, totalResults
    steps[].grepSearch.results[]: absolutePath, content, lineNumber, relativePath
    steps[].invokeSubagent: conversationId, logAbsoluteUri, prompt, result, subagentName
    steps[].listDirectory: dirNotFound, directoryPathUri, results[]
    steps[].listDirectory.results[]: isDir, name, sizeBytes
    steps[].mcpTool: resultString, resultUri, serverName, toolCall{}, userRejected
    steps[].mcpTool.toolCall: argumentsJson, id, name, originalName, thinkingSignature
    steps[].metadata: argumentsOrder[], completedAt, createdAt, executionId,
        finishedGeneratingAt, generatorModel, internalMetadata{}, isInterruptingStep,
        lastCompletedChunkAt, modelUsage{}, modifiedToolCall{}, requestedModel{},
        retryInfos[], source, sourceTrajectoryStepInfo{}, startedAt, stepGenerationVersion,
        toolAction, toolCall{}, toolCallOutputTokens, toolSummary, viewableAt,
        waitForPreviousTools
    steps[].metadata.internalMetadata: statusTransitions[]
    steps[].metadata.internalMetadata.statusTransitions[]: timestamp, updatedStatus
    steps[].metadata.modelUsage: apiProvider, cacheReadTokens, cacheWriteTokens,
        inputTokens, messageId, model, outputTokens, responseHeader{}, responseId,
        responseOutputTokens, thinkingOutputTokens
    steps[].metadata.modelUsage.responseHeader: *
    steps[].metadata.modifiedToolCall: argumentsJson, id, name, originalName,
        thinkingSignature
    steps[].metadata.requestedModel: model
    steps[].metadata.retryInfos[]: error, retryReason, traceId, usage{}
    steps[].metadata.retryInfos[].usage: apiProvider, cacheReadTokens, cacheWriteTokens,
        inputTokens, messageId, model, outputTokens, responseHeader{}, responseId,
        responseOutputTokens, thinkingOutputTokens
    steps[].metadata.retryInfos[].usage.responseHeader: *
    steps[].metadata.sourceTrajectoryStepInfo: cascadeId, metadataIndex, stepIndex,
        trajectoryId
    steps[].metadata.toolCall: argumentsJson, id, name, originalName, thinkingSignature
    steps[].permissions: fileAccessPermissions[], permissionGrants[]
    steps[].permissions.fileAccessPermissions[]: allow, fromCurrentStep, isDirectory, path,
        scope
    steps[].permissions.permissionGrants[]: allow, resource{}, scope
    steps[].permissions.permissionGrants[].resource: action, target
    steps[].plannerResponse: messageId, modifiedResponse, recitationMetadata{}, response,
        stopReason, thinking, thinkingDuration, thinkingSignature, toolCalls[]
    steps[].plannerResponse.recitationMetadata: recitations[]
    steps[].plannerResponse.recitationMetadata.recitations[]: citation{}, content
    steps[].plannerResponse.recitationMetadata.recitations[].citation: endIndex, license,
        startIndex, uri
    steps[].plannerResponse.toolCalls[]: argumentsJson, id, name, originalName,
        thinkingSignature
    steps[].readUrlContent: contentPath, latencyMs, resolvedUrl, url, userRejected,
        webDocument{}
    steps[].readUrlContent.webDocument: chunks[], documentId, summary, text, timestamp,
        title, url
    steps[].readUrlContent.webDocument.chunks[]: markdownChunk{}, position, text
    steps[].readUrlContent.webDocument.chunks[].markdownChunk: text
    steps[].requestedInteraction: askQuestion{}, permission{}
    steps[].requestedInteraction.askQuestion: questions[]
    steps[].requestedInteraction.askQuestion.questions[]: isMultiSelect, options[],
        question, selectedOptionIds[], skipped, writeInResponse
    steps[].requestedInteraction.askQuestion.questions[].options[]: id, text
    steps[].requestedInteraction.permission: resource{}
    steps[].requestedInteraction.permission.resource: action, target
    steps[].runCommand: blocking, combinedOutput{}, combinedOutputSnapshot{}, commandLine,
        cwd, exitCode, proposedCommandLine, requestedTerminalId, sandboxOverride, shellName,
        terminalId, waitMsBeforeAsync
    steps[].runCommand.combinedOutput: full, numLinesAbove, truncated
    steps[].runCommand.combinedOutputSnapshot: full, numLinesAbove, truncated
    steps[].searchWeb: domain, query, searchType, summary, thirdPartyConfig{}, webSearchUrl
    steps[].searchWeb.thirdPartyConfig: provider
    steps[].systemMessage: agentMessage{}, eventType, message, renderInfo{}
    steps[].systemMessage.agentMessage: content, hideFromUser, id, priority, recipient,
        renderDetails{}, sender, sourceMetadata{}, stepPayload, timestamp
    steps[].systemMessage.agentMessage.renderDetails: messageTitle
    steps[].systemMessage.agentMessage.sourceMetadata: tool{}
    steps[].systemMessage.agentMessage.sourceMetadata.tool: conversationId, stepIndex,
        toolCall{}
    steps[].systemMessage.agentMessage.sourceMetadata.tool.toolCall: argumentsJson, id,
        name, originalName, thinkingSignature
    steps[].systemMessage.renderInfo: hidden, markdown, title
    steps[].taskDetails: description, id, logUri
    steps[].userInput: activeUserState{}, artifactComments[], items[], lastUserConfig{},
        media[], query, userConfig{}, userResponse
    steps[].userInput.artifactComments[]: approvalStatus, artifactUri, comment, fullFile{}
    steps[].userInput.artifactComments[].fullFile: media{}
    steps[].userInput.artifactComments[].fullFile.media: description, inlineData, mimeType,
        thumbnail, uri
    steps[].userInput.items[]: text
    steps[].userInput.lastUserConfig: agentApiConfig{}, conversationHistoryConfig{},
        messageConfig{}, plannerConfig{}, splitDynamicPromptSections
    steps[].userInput.lastUserConfig.agentApiConfig: enabled
    steps[].userInput.lastUserConfig.conversationHistoryConfig: enabled,
        maxArtifactSummaryChars, maxConversationLogsChars, maxConversations, maxTitleChars,
        maxUserIntentChars
    steps[].userInput.lastUserConfig.messageConfig: enabled
    steps[].userInput.lastUserConfig.plannerConfig: conversational{}, customizationConfig{},
        knowledgeConfig{}, maxOutputTokens, modelName, noToolExplanation, noToolSummary,
        noWaitForPreviousTools, planModel, requestedModel{}
    steps[].userInput.lastUserConfig.plannerConfig.conversational: agenticMode,
        conversationHistoryConfig{}, evalMode, plannerMode, promptCombinationName
    steps[].userInput.lastUserConfig.plannerConfig.conversational.conversationHistoryConfig:
        enabled, maxArtifactSummaryChars, maxConversationLogsChars, maxConversations,
        maxTitleChars, maxUserIntentChars
    steps[].userInput.lastUserConfig.plannerConfig.customizationConfig: agentPath,
        enableJsonHooks
    steps[].userInput.lastUserConfig.plannerConfig.knowledgeConfig: enableKiInsertion,
        enabled, maxArtifactsPerKi, maxContextTokens, maxInvocations, maxKnowledgeItems,
        maxSummaryLength, maxTitleLength, minTurnsBetweenKnowledgeGeneration, model
    steps[].userInput.lastUserConfig.plannerConfig.requestedModel: model
    steps[].userInput.media[]: description, inlineData, mimeType, thumbnail, uri
    steps[].userInput.userConfig: agentApiConfig{}, conversationHistoryConfig{},
        messageConfig{}, plannerConfig{}, splitDynamicPromptSections
    steps[].userInput.userConfig.agentApiConfig: enabled
    steps[].userInput.userConfig.conversationHistoryConfig: enabled,
        maxArtifactSummaryChars, maxConversationLogsChars, maxConversations, maxTitleChars,
        maxUserIntentChars
    steps[].userInput.userConfig.messageConfig: enabled
    steps[].userInput.userConfig.plannerConfig: conversational{}, customizationConfig{},
        knowledgeConfig{}, maxOutputTokens, modelName, noToolExplanation, noToolSummary,
        noWaitForPreviousTools, planModel, requestedModel{}
    steps[].userInput.userConfig.plannerConfig.conversational: agenticMode,
        conversationHistoryConfig{}, evalMode, plannerMode, promptCombinationName
    steps[].userInput.userConfig.plannerConfig.conversational.conversationHistoryConfig:
        enabled, maxArtifactSummaryChars, maxConversationLogsChars, maxConversations,
        maxTitleChars, maxUserIntentChars
    steps[].userInput.userConfig.plannerConfig.customizationConfig: agentPath,
        enableJsonHooks
    steps[].userInput.userConfig.plannerConfig.knowledgeConfig: enableKiInsertion, enabled,
        maxArtifactsPerKi, maxContextTokens, maxInvocations, maxKnowledgeItems,
        maxSummaryLength, maxTitleLength, minTurnsBetweenKnowledgeGeneration, model
    steps[].userInput.userConfig.plannerConfig.requestedModel: model
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
* Enum names without a known number cannot be stored (e.g. the agy-reader fixture's
  ``CORTEX_STOP_REASON_TOOL_USE``: ``stopReason`` is codeium_common ``StopReason``, whose names
  are ``STOP_REASON_*``). Stored numbers that the enum does not name come back as JSON numbers
  (e.g. ``"type": 250``): the enum-number rule; the contract accepts them with an advisory.
* Sidecar-only keys (no established field number, dropped when writing a ``.db``): ``agyReader``;
  ``metadata.projectId`` / ``nestingDepth`` / ``subagentSpec`` / ``staticConfig`` /
  ``agentScript``; ``invokeSubagent.subagents[]`` and ``invokeSubagent.results[]``;
  ``systemMessage.metadata``; ``systemMessage.renderInfo.contentBlocks``;
  ``permissions.permissionGrants[].action`` / ``.target``; ``requestedInteraction.permission``
  other than ``resource``; ``completedInteractions[].response.permission.persistGrants``;
  ``taskDetails.title`` / ``requiresInputApproval``; step ``metadata.toolSource`` /
  ``preToolHookResults``; and the other keys the comments in ``cortex.proto`` list.
* ``steps[].subtrajectory`` is a whole embedded ``Trajectory`` (listed once above, not expanded).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from audit.store.proto import cortex_pb2

if TYPE_CHECKING:
    from google._upb._message import Descriptor as _UpbDescriptor
    from google._upb._message import FieldDescriptor as _UpbFieldDescriptor

    # What a generated message's DESCRIPTOR (and a descriptor's fields) is typed as by types-protobuf:
    # the pure-Python class or the upb backend's own (the one protobuf uses by default).
    MessageDescriptor: TypeAlias = Descriptor | _UpbDescriptor
    AnyFieldDescriptor: TypeAlias = FieldDescriptor | _UpbFieldDescriptor

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


def json_paths(descriptor: MessageDescriptor = cortex_pb2.Trajectory.DESCRIPTOR) -> list[tuple[str, str]]:
    """Every proto3-JSON path the schema can produce, as (path, JSON type), shape-TSV style. A
    message nested in itself (``steps[].subtrajectory`` is a whole ``Trajectory``) is listed once,
    as an object, and not expanded again."""
    out: list[tuple[str, str]] = []
    _walk(descriptor, "", out, frozenset({descriptor.full_name}))
    return sorted(out)


def _walk(descriptor: MessageDescriptor, prefix: str, out: list[tuple[str, str]], seen: frozenset[str]) -> None:
    for fd in descriptor.fields:
        path = prefix + fd.json_name
        message = fd.message_type
        if message is not None and message.GetOptions().map_entry:
            out.append((path, "object"))
            _leaf(message.fields_by_name["value"], path + ".*", out, seen)
            continue
        if fd.is_repeated:
            out.append((path, "array"))
            path += ".[]"
        _leaf(fd, path, out, seen)


def _leaf(fd: AnyFieldDescriptor, path: str, out: list[tuple[str, str]], seen: frozenset[str]) -> None:
    message = fd.message_type
    if message is not None and message.full_name not in _STRING_MESSAGES:
        out.append((path, "object"))
        if message.full_name not in seen:
            _walk(message, path + ".", out, seen | {message.full_name})
    elif fd.type == FieldDescriptor.TYPE_BOOL:
        out.append((path, "boolean"))
    else:
        out.append((path, "number" if fd.type in _NUMBER else "string"))
