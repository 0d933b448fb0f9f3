import datetime

from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ArtifactApprovalStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ARTIFACT_APPROVAL_STATUS_UNSPECIFIED: _ClassVar[ArtifactApprovalStatus]
    ARTIFACT_APPROVAL_STATUS_APPROVED: _ClassVar[ArtifactApprovalStatus]
    ARTIFACT_APPROVAL_STATUS_REQUESTED_CHANGES: _ClassVar[ArtifactApprovalStatus]

class ArtifactType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ARTIFACT_TYPE_UNSPECIFIED: _ClassVar[ArtifactType]
    ARTIFACT_TYPE_IMPLEMENTATION_PLAN: _ClassVar[ArtifactType]
    ARTIFACT_TYPE_WALKTHROUGH: _ClassVar[ArtifactType]
    ARTIFACT_TYPE_TASK: _ClassVar[ArtifactType]
    ARTIFACT_TYPE_OTHER: _ClassVar[ArtifactType]

class ThirdPartyWebSearchProvider(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    THIRD_PARTY_WEB_SEARCH_PROVIDER_UNSPECIFIED: _ClassVar[ThirdPartyWebSearchProvider]
    THIRD_PARTY_WEB_SEARCH_PROVIDER_GEMINI: _ClassVar[ThirdPartyWebSearchProvider]

class CortexStepType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CORTEX_STEP_TYPE_UNSPECIFIED: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_DUMMY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_FINISH: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_PLAN_INPUT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_MQUERY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CODE_ACTION: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_GIT_COMMIT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_GREP_SEARCH: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_VIEW_FILE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_LIST_DIRECTORY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_COMPILE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_VIEW_CODE_ITEM: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_USER_INPUT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_PLANNER_RESPONSE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_ERROR_MESSAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_RUN_COMMAND: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CHECKPOINT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_PROPOSE_CODE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_FIND: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_SUGGESTED_RESPONSES: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_COMMAND_STATUS: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_MEMORY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_READ_URL_CONTENT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_VIEW_CONTENT_CHUNK: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_SEARCH_WEB: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_RETRIEVE_MEMORY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_MCP_TOOL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_MANAGER_FEEDBACK: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_TOOL_CALL_PROPOSAL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_TOOL_CALL_CHOICE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_TRAJECTORY_CHOICE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CLIPBOARD: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_VIEW_FILE_OUTLINE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_POST_PR_REVIEW: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_LIST_RESOURCES: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_READ_RESOURCE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_LINT_DIFF: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_FIND_ALL_REFERENCES: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BRAIN_UPDATE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_OPEN_BROWSER_URL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_RUN_EXTENSION_CODE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_PROPOSAL_FEEDBACK: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_TRAJECTORY_SEARCH: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_EXECUTE_BROWSER_JAVASCRIPT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_LIST_BROWSER_PAGES: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CAPTURE_BROWSER_SCREENSHOT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CLICK_BROWSER_PIXEL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_READ_TERMINAL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CAPTURE_BROWSER_CONSOLE_LOGS: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_READ_BROWSER_PAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_GET_DOM: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CODE_SEARCH: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_INPUT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_MOVE_MOUSE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_SELECT_OPTION: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_SCROLL_UP: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_SCROLL_DOWN: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_CLICK_ELEMENT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_PRESS_KEY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_TASK_BOUNDARY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_NOTIFY_USER: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CODE_ACKNOWLEDGEMENT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_INTERNAL_SEARCH: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_SUBAGENT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_FILE_CHANGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_MOVE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_SCROLL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_KNOWLEDGE_GENERATION: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_EPHEMERAL_MESSAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_GENERATE_IMAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_DELETE_DIRECTORY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_COMPILE_APPLET: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_INSTALL_APPLET_DEPENDENCIES: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_INSTALL_APPLET_PACKAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_RESIZE_WINDOW: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_DRAG_PIXEL_TO_PIXEL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_CONVERSATION_HISTORY: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_KNOWLEDGE_ARTIFACTS: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_SEND_COMMAND_INPUT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_SYSTEM_MESSAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_WAIT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_AGENCY_TOOL_CALL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_SET_UP_FIREBASE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_RESTART_DEV_SERVER: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_DEPLOY_FIREBASE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_SHELL_EXEC: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_MOUSE_WHEEL: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_LINT_APPLET: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_DEFINE_NEW_ENV_VARIABLE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_KI_INSERTION: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_MOUSE_UP: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_MOUSE_DOWN: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_WORKSPACE_API: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_LIST_NETWORK_REQUESTS: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_GET_NETWORK_REQUEST: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_BROWSER_REFRESH_PAGE: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_INVOKE_SUBAGENT: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_WRITE_BLOB: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_GENERIC: _ClassVar[CortexStepType]
    CORTEX_STEP_TYPE_ASK_QUESTION: _ClassVar[CortexStepType]

class CortexStepStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CORTEX_STEP_STATUS_UNSPECIFIED: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_PENDING: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_RUNNING: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_DONE: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_INVALID: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_CLEARED: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_CANCELED: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_ERROR: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_GENERATING: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_WAITING: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_QUEUED: _ClassVar[CortexStepStatus]
    CORTEX_STEP_STATUS_INTERRUPTED: _ClassVar[CortexStepStatus]

class CortexStepSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CORTEX_STEP_SOURCE_UNSPECIFIED: _ClassVar[CortexStepSource]
    CORTEX_STEP_SOURCE_MODEL: _ClassVar[CortexStepSource]
    CORTEX_STEP_SOURCE_USER_IMPLICIT: _ClassVar[CortexStepSource]
    CORTEX_STEP_SOURCE_USER_EXPLICIT: _ClassVar[CortexStepSource]
    CORTEX_STEP_SOURCE_SYSTEM: _ClassVar[CortexStepSource]
    CORTEX_STEP_SOURCE_SYSTEM_SDK: _ClassVar[CortexStepSource]

class CortexTrajectoryType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CORTEX_TRAJECTORY_TYPE_UNSPECIFIED: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_USER_MAINLINE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_USER_GRANULAR: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_SUPERCOMPLETE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_CASCADE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_CHECKPOINT: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_APPLIER: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_TOOL_CALL_PROPOSAL: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_TRAJECTORY_CHOICE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_LLM_JUDGE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_BRAIN_UPDATE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_INTERACTIVE_CASCADE: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_BROWSER: _ClassVar[CortexTrajectoryType]
    CORTEX_TRAJECTORY_TYPE_KNOWLEDGE_GENERATION: _ClassVar[CortexTrajectoryType]

class CortexTrajectorySource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CORTEX_TRAJECTORY_SOURCE_UNSPECIFIED: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_CASCADE_CLIENT: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_EXPLAIN_PROBLEM: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_REFACTOR_FUNCTION: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_EVAL: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_EVAL_TASK: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_ASYNC_PRR: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_ASYNC_CF: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_ASYNC_SL: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_ASYNC_PRD: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_ASYNC_CM: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_INTERACTIVE_CASCADE: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_REPLAY: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_SDK: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_SUBAGENT: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_CLI: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_JETBOX: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_AGENT_API: _ClassVar[CortexTrajectorySource]
    CORTEX_TRAJECTORY_SOURCE_BATTLE_MODE: _ClassVar[CortexTrajectorySource]

class CortexTrajectoryReferenceType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CORTEX_TRAJECTORY_REFERENCE_TYPE_UNSPECIFIED: _ClassVar[CortexTrajectoryReferenceType]
    CORTEX_TRAJECTORY_REFERENCE_TYPE_PRUNE: _ClassVar[CortexTrajectoryReferenceType]
    CORTEX_TRAJECTORY_REFERENCE_TYPE_FORK: _ClassVar[CortexTrajectoryReferenceType]

class ExecutorTerminationReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    EXECUTOR_TERMINATION_REASON_UNSPECIFIED: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_ERROR: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_USER_CANCELED: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_MAX_INVOCATIONS: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_NO_TOOL_CALL: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_MAX_FORCED_INVOCATIONS: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_EARLY_CONTINUE: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_TERMINAL_STEP_TYPE: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_TERMINAL_CUSTOM_HOOK: _ClassVar[ExecutorTerminationReason]
    EXECUTOR_TERMINATION_REASON_INJECTED_RESPONSE: _ClassVar[ExecutorTerminationReason]

class StopReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STOP_REASON_UNSPECIFIED: _ClassVar[StopReason]
    STOP_REASON_INCOMPLETE: _ClassVar[StopReason]
    STOP_REASON_STOP_PATTERN: _ClassVar[StopReason]
    STOP_REASON_MAX_TOKENS: _ClassVar[StopReason]
    STOP_REASON_MIN_LOG_PROB: _ClassVar[StopReason]
    STOP_REASON_MAX_NEWLINES: _ClassVar[StopReason]
    STOP_REASON_EXIT_SCOPE: _ClassVar[StopReason]
    STOP_REASON_NONFINITE_LOGIT_OR_PROB: _ClassVar[StopReason]
    STOP_REASON_FIRST_NON_WHITESPACE_LINE: _ClassVar[StopReason]
    STOP_REASON_PARTIAL: _ClassVar[StopReason]
    STOP_REASON_FUNCTION_CALL: _ClassVar[StopReason]
    STOP_REASON_CONTENT_FILTER: _ClassVar[StopReason]
    STOP_REASON_NON_INSERTION: _ClassVar[StopReason]
    STOP_REASON_ERROR: _ClassVar[StopReason]
    STOP_REASON_IMPROPER_FORMAT: _ClassVar[StopReason]
    STOP_REASON_OTHER: _ClassVar[StopReason]
    STOP_REASON_CLIENT_CANCELED: _ClassVar[StopReason]
    STOP_REASON_CLIENT_TOOL_PARSE_ERROR: _ClassVar[StopReason]
    STOP_REASON_CLIENT_STREAM_ERROR: _ClassVar[StopReason]
    STOP_REASON_CLIENT_LOOPING: _ClassVar[StopReason]
    STOP_REASON_CLIENT_INVALID_MESSAGE_ORDER: _ClassVar[StopReason]

class CacheControlType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CACHE_CONTROL_TYPE_UNSPECIFIED: _ClassVar[CacheControlType]
    CACHE_CONTROL_TYPE_EPHEMERAL: _ClassVar[CacheControlType]

class ChatMessageSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHAT_MESSAGE_SOURCE_UNSPECIFIED: _ClassVar[ChatMessageSource]
    CHAT_MESSAGE_SOURCE_USER: _ClassVar[ChatMessageSource]
    CHAT_MESSAGE_SOURCE_SYSTEM: _ClassVar[ChatMessageSource]
    CHAT_MESSAGE_SOURCE_UNKNOWN: _ClassVar[ChatMessageSource]
    CHAT_MESSAGE_SOURCE_TOOL: _ClassVar[ChatMessageSource]
    CHAT_MESSAGE_SOURCE_SYSTEM_PROMPT: _ClassVar[ChatMessageSource]

class ConversationalPlannerMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CONVERSATIONAL_PLANNER_MODE_UNSPECIFIED: _ClassVar[ConversationalPlannerMode]
    CONVERSATIONAL_PLANNER_MODE_DEFAULT: _ClassVar[ConversationalPlannerMode]
    CONVERSATIONAL_PLANNER_MODE_READ_ONLY: _ClassVar[ConversationalPlannerMode]

class TokenSource(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOKEN_SOURCE_UNSPECIFIED: _ClassVar[TokenSource]
    TOKEN_SOURCE_SYSTEM: _ClassVar[TokenSource]
    TOKEN_SOURCE_USER: _ClassVar[TokenSource]

class PermissionScope(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PERMISSION_SCOPE_UNSPECIFIED: _ClassVar[PermissionScope]
    PERMISSION_SCOPE_ONCE: _ClassVar[PermissionScope]
    PERMISSION_SCOPE_CONVERSATION: _ClassVar[PermissionScope]
    PERMISSION_SCOPE_WORKSPACE: _ClassVar[PermissionScope]
    PERMISSION_SCOPE_GLOBAL: _ClassVar[PermissionScope]

class ArtifactReviewStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ARTIFACT_REVIEW_STATUS_UNSPECIFIED: _ClassVar[ArtifactReviewStatus]
    ARTIFACT_REVIEW_STATUS_PENDING_REVIEW: _ClassVar[ArtifactReviewStatus]
    ARTIFACT_REVIEW_STATUS_REVIEWED: _ClassVar[ArtifactReviewStatus]
    ARTIFACT_REVIEW_STATUS_MODIFIED: _ClassVar[ArtifactReviewStatus]

class MessagePriority(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MESSAGE_PRIORITY_UNSPECIFIED: _ClassVar[MessagePriority]
    MESSAGE_PRIORITY_LOW: _ClassVar[MessagePriority]
    MESSAGE_PRIORITY_NORMAL: _ClassVar[MessagePriority]
    MESSAGE_PRIORITY_HIGH: _ClassVar[MessagePriority]

class TruncationReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRUNCATION_REASON_UNSPECIFIED: _ClassVar[TruncationReason]
    TRUNCATION_REASON_PROMPT_CACHE_TTL_EXPIRED: _ClassVar[TruncationReason]
    TRUNCATION_REASON_MAX_TOKEN_LIMIT: _ClassVar[TruncationReason]

class TokenType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TOKEN_TYPE_UNSPECIFIED: _ClassVar[TokenType]
    TOKEN_TYPE_SYSTEM_PROMPT: _ClassVar[TokenType]
    TOKEN_TYPE_TOOLS: _ClassVar[TokenType]
    TOKEN_TYPE_RULES: _ClassVar[TokenType]
    TOKEN_TYPE_MCP_TOOLS: _ClassVar[TokenType]
    TOKEN_TYPE_SKILLS: _ClassVar[TokenType]
    TOKEN_TYPE_SUBAGENTS: _ClassVar[TokenType]
    TOKEN_TYPE_CHAT_MESSAGES: _ClassVar[TokenType]
    TOKEN_TYPE_WORKFLOWS: _ClassVar[TokenType]
    TOKEN_TYPE_PLUGINS: _ClassVar[TokenType]

class RetryReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RETRY_REASON_UNSPECIFIED: _ClassVar[RetryReason]
    RETRY_REASON_API_RETRYABLE: _ClassVar[RetryReason]
    RETRY_REASON_MODEL_CORRECTABLE: _ClassVar[RetryReason]
    RETRY_REASON_NON_RECOVERABLE: _ClassVar[RetryReason]

class FindResultType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FIND_RESULT_TYPE_UNSPECIFIED: _ClassVar[FindResultType]
    FIND_RESULT_TYPE_FILE: _ClassVar[FindResultType]
    FIND_RESULT_TYPE_DIRECTORY: _ClassVar[FindResultType]
    FIND_RESULT_TYPE_ANY: _ClassVar[FindResultType]

class SearchWebType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_WEB_TYPE_UNSPECIFIED: _ClassVar[SearchWebType]
    SEARCH_WEB_TYPE_WEB: _ClassVar[SearchWebType]
    SEARCH_WEB_TYPE_IMAGE: _ClassVar[SearchWebType]

class APIProvider(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    API_PROVIDER_UNSPECIFIED: _ClassVar[APIProvider]
    API_PROVIDER_INTERNAL: _ClassVar[APIProvider]
    API_PROVIDER_GOOGLE_VERTEX: _ClassVar[APIProvider]
    API_PROVIDER_GOOGLE_GEMINI: _ClassVar[APIProvider]
    API_PROVIDER_ANTHROPIC_VERTEX: _ClassVar[APIProvider]
    API_PROVIDER_GOOGLE_EVERGREEN: _ClassVar[APIProvider]
    API_PROVIDER_OPENAI_VERTEX: _ClassVar[APIProvider]

class Model(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    MODEL_UNSPECIFIED: _ClassVar[Model]
    MODEL_CHAT_20706: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_PRO: _ClassVar[Model]
    MODEL_CHAT_23310: _ClassVar[Model]
    MODEL_CLAUDE_4_SONNET: _ClassVar[Model]
    MODEL_CLAUDE_4_SONNET_THINKING: _ClassVar[Model]
    MODEL_CLAUDE_4_OPUS: _ClassVar[Model]
    MODEL_CLAUDE_4_OPUS_THINKING: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_FLASH: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_FLASH_THINKING: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_TRAINING_POLICY: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_INTERNAL_BYOM: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_FOR_GOOGLE_2_5_PRO: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_NEMOSREEF: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_FLASH_THINKING_TOOLS: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_FLASH_LITE: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_PRO_EVAL: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_2_5_FLASH_IMAGE_PREVIEW: _ClassVar[Model]
    MODEL_CLAUDE_4_5_SONNET: _ClassVar[Model]
    MODEL_CLAUDE_4_5_SONNET_THINKING: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_COMPUTER_USE_EXPERIMENTAL: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_HORIZONDAWN: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_PUREPRISM: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_GENTLEISLAND: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_RAINSONG: _ClassVar[Model]
    MODEL_CLAUDE_4_5_HAIKU: _ClassVar[Model]
    MODEL_CLAUDE_4_5_HAIKU_THINKING: _ClassVar[Model]
    MODEL_OPENAI_GPT_OSS_120B_MEDIUM: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_ORIONFIRE: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_INTERNAL_TAB_FLASH_LITE: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_INTERNAL_TAB_JUMP_FLASH_LITE: _ClassVar[Model]
    MODEL_GOOGLE_JARVIS_PROXY: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_COSMICFORGE: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_RIFTRUNNER: _ClassVar[Model]
    MODEL_GOOGLE_JARVIS_V4S: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_INFINITYJET: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_INFINITYBLOOM: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_RIFTRUNNER_THINKING_LOW: _ClassVar[Model]
    MODEL_GOOGLE_GEMINI_RIFTRUNNER_THINKING_HIGH: _ClassVar[Model]
    MODEL_PLACEHOLDER_M0: _ClassVar[Model]
    MODEL_PLACEHOLDER_M1: _ClassVar[Model]
    MODEL_PLACEHOLDER_M2: _ClassVar[Model]
    MODEL_PLACEHOLDER_M3: _ClassVar[Model]
    MODEL_PLACEHOLDER_M4: _ClassVar[Model]
    MODEL_PLACEHOLDER_M5: _ClassVar[Model]
    MODEL_PLACEHOLDER_M6: _ClassVar[Model]
    MODEL_PLACEHOLDER_M7: _ClassVar[Model]
    MODEL_PLACEHOLDER_M8: _ClassVar[Model]
    MODEL_PLACEHOLDER_M9: _ClassVar[Model]
    MODEL_PLACEHOLDER_M10: _ClassVar[Model]
    MODEL_PLACEHOLDER_M11: _ClassVar[Model]
    MODEL_PLACEHOLDER_M12: _ClassVar[Model]
    MODEL_PLACEHOLDER_M13: _ClassVar[Model]
    MODEL_PLACEHOLDER_M14: _ClassVar[Model]
    MODEL_PLACEHOLDER_M15: _ClassVar[Model]
    MODEL_PLACEHOLDER_M16: _ClassVar[Model]
    MODEL_PLACEHOLDER_M17: _ClassVar[Model]
    MODEL_PLACEHOLDER_M18: _ClassVar[Model]
    MODEL_PLACEHOLDER_M19: _ClassVar[Model]
    MODEL_PLACEHOLDER_M20: _ClassVar[Model]
    MODEL_PLACEHOLDER_M21: _ClassVar[Model]
    MODEL_PLACEHOLDER_M22: _ClassVar[Model]
    MODEL_PLACEHOLDER_M23: _ClassVar[Model]
    MODEL_PLACEHOLDER_M24: _ClassVar[Model]
    MODEL_PLACEHOLDER_M25: _ClassVar[Model]
    MODEL_PLACEHOLDER_M26: _ClassVar[Model]
    MODEL_PLACEHOLDER_M27: _ClassVar[Model]
    MODEL_PLACEHOLDER_M28: _ClassVar[Model]
    MODEL_PLACEHOLDER_M29: _ClassVar[Model]
    MODEL_PLACEHOLDER_M30: _ClassVar[Model]
    MODEL_PLACEHOLDER_M31: _ClassVar[Model]
    MODEL_PLACEHOLDER_M32: _ClassVar[Model]
    MODEL_PLACEHOLDER_M33: _ClassVar[Model]
    MODEL_PLACEHOLDER_M34: _ClassVar[Model]
    MODEL_PLACEHOLDER_M35: _ClassVar[Model]
    MODEL_PLACEHOLDER_M36: _ClassVar[Model]
    MODEL_PLACEHOLDER_M37: _ClassVar[Model]
    MODEL_PLACEHOLDER_M38: _ClassVar[Model]
    MODEL_PLACEHOLDER_M39: _ClassVar[Model]
    MODEL_PLACEHOLDER_M40: _ClassVar[Model]
    MODEL_PLACEHOLDER_M41: _ClassVar[Model]
    MODEL_PLACEHOLDER_M42: _ClassVar[Model]
    MODEL_PLACEHOLDER_M43: _ClassVar[Model]
    MODEL_PLACEHOLDER_M44: _ClassVar[Model]
    MODEL_PLACEHOLDER_M45: _ClassVar[Model]
    MODEL_PLACEHOLDER_M46: _ClassVar[Model]
    MODEL_PLACEHOLDER_M47: _ClassVar[Model]
    MODEL_PLACEHOLDER_M48: _ClassVar[Model]
    MODEL_PLACEHOLDER_M49: _ClassVar[Model]
    MODEL_PLACEHOLDER_M50: _ClassVar[Model]
    MODEL_PLACEHOLDER_M51: _ClassVar[Model]
    MODEL_PLACEHOLDER_M52: _ClassVar[Model]
    MODEL_PLACEHOLDER_M53: _ClassVar[Model]
    MODEL_PLACEHOLDER_M54: _ClassVar[Model]
    MODEL_PLACEHOLDER_M55: _ClassVar[Model]
    MODEL_PLACEHOLDER_M56: _ClassVar[Model]
    MODEL_PLACEHOLDER_M57: _ClassVar[Model]
    MODEL_PLACEHOLDER_M58: _ClassVar[Model]
    MODEL_PLACEHOLDER_M59: _ClassVar[Model]
    MODEL_PLACEHOLDER_M60: _ClassVar[Model]
    MODEL_PLACEHOLDER_M61: _ClassVar[Model]
    MODEL_PLACEHOLDER_M62: _ClassVar[Model]
    MODEL_PLACEHOLDER_M63: _ClassVar[Model]
    MODEL_PLACEHOLDER_M64: _ClassVar[Model]
    MODEL_PLACEHOLDER_M65: _ClassVar[Model]
    MODEL_PLACEHOLDER_M66: _ClassVar[Model]
    MODEL_PLACEHOLDER_M67: _ClassVar[Model]
    MODEL_PLACEHOLDER_M68: _ClassVar[Model]
    MODEL_PLACEHOLDER_M69: _ClassVar[Model]
    MODEL_PLACEHOLDER_M70: _ClassVar[Model]
    MODEL_PLACEHOLDER_M71: _ClassVar[Model]
    MODEL_PLACEHOLDER_M72: _ClassVar[Model]
    MODEL_PLACEHOLDER_M73: _ClassVar[Model]
    MODEL_PLACEHOLDER_M74: _ClassVar[Model]
    MODEL_PLACEHOLDER_M75: _ClassVar[Model]
    MODEL_PLACEHOLDER_M76: _ClassVar[Model]
    MODEL_PLACEHOLDER_M77: _ClassVar[Model]
    MODEL_PLACEHOLDER_M78: _ClassVar[Model]
    MODEL_PLACEHOLDER_M79: _ClassVar[Model]
    MODEL_PLACEHOLDER_M80: _ClassVar[Model]
    MODEL_PLACEHOLDER_M81: _ClassVar[Model]
    MODEL_PLACEHOLDER_M82: _ClassVar[Model]
    MODEL_PLACEHOLDER_M83: _ClassVar[Model]
    MODEL_PLACEHOLDER_M84: _ClassVar[Model]
    MODEL_PLACEHOLDER_M85: _ClassVar[Model]
    MODEL_PLACEHOLDER_M86: _ClassVar[Model]
    MODEL_PLACEHOLDER_M87: _ClassVar[Model]
    MODEL_PLACEHOLDER_M88: _ClassVar[Model]
    MODEL_PLACEHOLDER_M89: _ClassVar[Model]
    MODEL_PLACEHOLDER_M90: _ClassVar[Model]
    MODEL_PLACEHOLDER_M91: _ClassVar[Model]
    MODEL_PLACEHOLDER_M92: _ClassVar[Model]
    MODEL_PLACEHOLDER_M93: _ClassVar[Model]
    MODEL_PLACEHOLDER_M94: _ClassVar[Model]
    MODEL_PLACEHOLDER_M95: _ClassVar[Model]
    MODEL_PLACEHOLDER_M96: _ClassVar[Model]
    MODEL_PLACEHOLDER_M97: _ClassVar[Model]
    MODEL_PLACEHOLDER_M98: _ClassVar[Model]
    MODEL_PLACEHOLDER_M99: _ClassVar[Model]
    MODEL_PLACEHOLDER_M100: _ClassVar[Model]
    MODEL_PLACEHOLDER_M101: _ClassVar[Model]
    MODEL_PLACEHOLDER_M102: _ClassVar[Model]
    MODEL_PLACEHOLDER_M103: _ClassVar[Model]
    MODEL_PLACEHOLDER_M104: _ClassVar[Model]
    MODEL_PLACEHOLDER_M105: _ClassVar[Model]
    MODEL_PLACEHOLDER_M106: _ClassVar[Model]
    MODEL_PLACEHOLDER_M107: _ClassVar[Model]
    MODEL_PLACEHOLDER_M108: _ClassVar[Model]
    MODEL_PLACEHOLDER_M109: _ClassVar[Model]
    MODEL_PLACEHOLDER_M110: _ClassVar[Model]
    MODEL_PLACEHOLDER_M111: _ClassVar[Model]
    MODEL_PLACEHOLDER_M112: _ClassVar[Model]
    MODEL_PLACEHOLDER_M113: _ClassVar[Model]
    MODEL_PLACEHOLDER_M114: _ClassVar[Model]
    MODEL_PLACEHOLDER_M115: _ClassVar[Model]
    MODEL_PLACEHOLDER_M116: _ClassVar[Model]
    MODEL_PLACEHOLDER_M117: _ClassVar[Model]
    MODEL_PLACEHOLDER_M118: _ClassVar[Model]
    MODEL_PLACEHOLDER_M119: _ClassVar[Model]
    MODEL_PLACEHOLDER_M120: _ClassVar[Model]
    MODEL_PLACEHOLDER_M121: _ClassVar[Model]
    MODEL_PLACEHOLDER_M122: _ClassVar[Model]
    MODEL_PLACEHOLDER_M123: _ClassVar[Model]
    MODEL_PLACEHOLDER_M124: _ClassVar[Model]
    MODEL_PLACEHOLDER_M125: _ClassVar[Model]
    MODEL_PLACEHOLDER_M126: _ClassVar[Model]
    MODEL_PLACEHOLDER_M127: _ClassVar[Model]
    MODEL_PLACEHOLDER_M128: _ClassVar[Model]
    MODEL_PLACEHOLDER_M129: _ClassVar[Model]
    MODEL_PLACEHOLDER_M130: _ClassVar[Model]
    MODEL_PLACEHOLDER_M131: _ClassVar[Model]
    MODEL_PLACEHOLDER_M132: _ClassVar[Model]
    MODEL_PLACEHOLDER_M133: _ClassVar[Model]
    MODEL_PLACEHOLDER_M134: _ClassVar[Model]
    MODEL_PLACEHOLDER_M135: _ClassVar[Model]
    MODEL_PLACEHOLDER_M136: _ClassVar[Model]
    MODEL_PLACEHOLDER_M137: _ClassVar[Model]
    MODEL_PLACEHOLDER_M138: _ClassVar[Model]
    MODEL_PLACEHOLDER_M139: _ClassVar[Model]
    MODEL_PLACEHOLDER_M140: _ClassVar[Model]
    MODEL_PLACEHOLDER_M141: _ClassVar[Model]
    MODEL_PLACEHOLDER_M142: _ClassVar[Model]
    MODEL_PLACEHOLDER_M143: _ClassVar[Model]
    MODEL_PLACEHOLDER_M144: _ClassVar[Model]
    MODEL_PLACEHOLDER_M145: _ClassVar[Model]
    MODEL_PLACEHOLDER_M146: _ClassVar[Model]
    MODEL_PLACEHOLDER_M147: _ClassVar[Model]
    MODEL_PLACEHOLDER_M148: _ClassVar[Model]
    MODEL_PLACEHOLDER_M149: _ClassVar[Model]
    MODEL_PLACEHOLDER_M150: _ClassVar[Model]
    MODEL_PLACEHOLDER_M151: _ClassVar[Model]
    MODEL_PLACEHOLDER_M152: _ClassVar[Model]
    MODEL_PLACEHOLDER_M153: _ClassVar[Model]
    MODEL_PLACEHOLDER_M154: _ClassVar[Model]
    MODEL_PLACEHOLDER_M155: _ClassVar[Model]
    MODEL_PLACEHOLDER_M156: _ClassVar[Model]
    MODEL_PLACEHOLDER_M157: _ClassVar[Model]
    MODEL_PLACEHOLDER_M158: _ClassVar[Model]
    MODEL_PLACEHOLDER_M159: _ClassVar[Model]
    MODEL_PLACEHOLDER_M160: _ClassVar[Model]
    MODEL_PLACEHOLDER_M161: _ClassVar[Model]
    MODEL_PLACEHOLDER_M162: _ClassVar[Model]
    MODEL_PLACEHOLDER_M163: _ClassVar[Model]
    MODEL_PLACEHOLDER_M164: _ClassVar[Model]
    MODEL_PLACEHOLDER_M165: _ClassVar[Model]
    MODEL_PLACEHOLDER_M166: _ClassVar[Model]
    MODEL_PLACEHOLDER_M167: _ClassVar[Model]
    MODEL_PLACEHOLDER_M168: _ClassVar[Model]
    MODEL_PLACEHOLDER_M169: _ClassVar[Model]
    MODEL_PLACEHOLDER_M170: _ClassVar[Model]
    MODEL_PLACEHOLDER_M171: _ClassVar[Model]
    MODEL_PLACEHOLDER_M172: _ClassVar[Model]
    MODEL_PLACEHOLDER_M173: _ClassVar[Model]
    MODEL_PLACEHOLDER_M174: _ClassVar[Model]
    MODEL_PLACEHOLDER_M175: _ClassVar[Model]
    MODEL_PLACEHOLDER_M176: _ClassVar[Model]
    MODEL_PLACEHOLDER_M177: _ClassVar[Model]
    MODEL_PLACEHOLDER_M178: _ClassVar[Model]
    MODEL_PLACEHOLDER_M179: _ClassVar[Model]
    MODEL_PLACEHOLDER_M180: _ClassVar[Model]
    MODEL_PLACEHOLDER_M181: _ClassVar[Model]
    MODEL_PLACEHOLDER_M182: _ClassVar[Model]
    MODEL_PLACEHOLDER_M183: _ClassVar[Model]
    MODEL_PLACEHOLDER_M184: _ClassVar[Model]
    MODEL_PLACEHOLDER_M185: _ClassVar[Model]
    MODEL_PLACEHOLDER_M186: _ClassVar[Model]
    MODEL_PLACEHOLDER_M187: _ClassVar[Model]
    MODEL_PLACEHOLDER_M188: _ClassVar[Model]
    MODEL_PLACEHOLDER_M189: _ClassVar[Model]
    MODEL_PLACEHOLDER_M190: _ClassVar[Model]
    MODEL_PLACEHOLDER_M191: _ClassVar[Model]
    MODEL_PLACEHOLDER_M192: _ClassVar[Model]
    MODEL_PLACEHOLDER_M193: _ClassVar[Model]
    MODEL_PLACEHOLDER_M194: _ClassVar[Model]
    MODEL_PLACEHOLDER_M195: _ClassVar[Model]
    MODEL_PLACEHOLDER_M196: _ClassVar[Model]
    MODEL_PLACEHOLDER_M197: _ClassVar[Model]
    MODEL_PLACEHOLDER_M198: _ClassVar[Model]
    MODEL_PLACEHOLDER_M199: _ClassVar[Model]
    MODEL_PLACEHOLDER_M200: _ClassVar[Model]
    MODEL_PLACEHOLDER_M201: _ClassVar[Model]
    MODEL_PLACEHOLDER_M202: _ClassVar[Model]
    MODEL_PLACEHOLDER_M203: _ClassVar[Model]
    MODEL_PLACEHOLDER_M204: _ClassVar[Model]
    MODEL_PLACEHOLDER_M205: _ClassVar[Model]
    MODEL_PLACEHOLDER_M206: _ClassVar[Model]
    MODEL_PLACEHOLDER_M207: _ClassVar[Model]
    MODEL_PLACEHOLDER_M208: _ClassVar[Model]
    MODEL_PLACEHOLDER_M209: _ClassVar[Model]
    MODEL_PLACEHOLDER_M210: _ClassVar[Model]
    MODEL_PLACEHOLDER_M211: _ClassVar[Model]
    MODEL_PLACEHOLDER_M212: _ClassVar[Model]
    MODEL_PLACEHOLDER_M213: _ClassVar[Model]
    MODEL_PLACEHOLDER_M214: _ClassVar[Model]
    MODEL_PLACEHOLDER_M215: _ClassVar[Model]
    MODEL_PLACEHOLDER_M216: _ClassVar[Model]
    MODEL_PLACEHOLDER_M217: _ClassVar[Model]
    MODEL_PLACEHOLDER_M218: _ClassVar[Model]
    MODEL_PLACEHOLDER_M219: _ClassVar[Model]
    MODEL_PLACEHOLDER_M220: _ClassVar[Model]
    MODEL_PLACEHOLDER_M221: _ClassVar[Model]
    MODEL_PLACEHOLDER_M222: _ClassVar[Model]
    MODEL_PLACEHOLDER_M223: _ClassVar[Model]
    MODEL_PLACEHOLDER_M224: _ClassVar[Model]
    MODEL_PLACEHOLDER_M225: _ClassVar[Model]
    MODEL_PLACEHOLDER_M226: _ClassVar[Model]
    MODEL_PLACEHOLDER_M227: _ClassVar[Model]
    MODEL_PLACEHOLDER_M228: _ClassVar[Model]
    MODEL_PLACEHOLDER_M229: _ClassVar[Model]
    MODEL_PLACEHOLDER_M230: _ClassVar[Model]
    MODEL_PLACEHOLDER_M231: _ClassVar[Model]
    MODEL_PLACEHOLDER_M232: _ClassVar[Model]
    MODEL_PLACEHOLDER_M233: _ClassVar[Model]
    MODEL_PLACEHOLDER_M234: _ClassVar[Model]
    MODEL_PLACEHOLDER_M235: _ClassVar[Model]
    MODEL_PLACEHOLDER_M236: _ClassVar[Model]
    MODEL_PLACEHOLDER_M237: _ClassVar[Model]
    MODEL_PLACEHOLDER_M238: _ClassVar[Model]
    MODEL_PLACEHOLDER_M239: _ClassVar[Model]
    MODEL_PLACEHOLDER_M240: _ClassVar[Model]
    MODEL_PLACEHOLDER_M241: _ClassVar[Model]
    MODEL_PLACEHOLDER_M242: _ClassVar[Model]
    MODEL_PLACEHOLDER_M243: _ClassVar[Model]
    MODEL_PLACEHOLDER_M244: _ClassVar[Model]
    MODEL_PLACEHOLDER_M245: _ClassVar[Model]
    MODEL_PLACEHOLDER_M246: _ClassVar[Model]
    MODEL_PLACEHOLDER_M247: _ClassVar[Model]
    MODEL_PLACEHOLDER_M248: _ClassVar[Model]
    MODEL_PLACEHOLDER_M249: _ClassVar[Model]
    MODEL_PLACEHOLDER_M250: _ClassVar[Model]
    MODEL_PLACEHOLDER_M251: _ClassVar[Model]
    MODEL_PLACEHOLDER_M252: _ClassVar[Model]
    MODEL_PLACEHOLDER_M253: _ClassVar[Model]
    MODEL_PLACEHOLDER_M254: _ClassVar[Model]
    MODEL_PLACEHOLDER_M255: _ClassVar[Model]
    MODEL_PLACEHOLDER_M256: _ClassVar[Model]
    MODEL_PLACEHOLDER_M257: _ClassVar[Model]
    MODEL_PLACEHOLDER_M258: _ClassVar[Model]
    MODEL_PLACEHOLDER_M259: _ClassVar[Model]
    MODEL_PLACEHOLDER_M260: _ClassVar[Model]
    MODEL_PLACEHOLDER_M261: _ClassVar[Model]
    MODEL_PLACEHOLDER_M262: _ClassVar[Model]
    MODEL_PLACEHOLDER_M263: _ClassVar[Model]
    MODEL_PLACEHOLDER_M264: _ClassVar[Model]
    MODEL_PLACEHOLDER_M265: _ClassVar[Model]
    MODEL_PLACEHOLDER_M266: _ClassVar[Model]
    MODEL_PLACEHOLDER_M267: _ClassVar[Model]
    MODEL_PLACEHOLDER_M268: _ClassVar[Model]
    MODEL_PLACEHOLDER_M269: _ClassVar[Model]
    MODEL_PLACEHOLDER_M270: _ClassVar[Model]
    MODEL_PLACEHOLDER_M271: _ClassVar[Model]
    MODEL_PLACEHOLDER_M272: _ClassVar[Model]
    MODEL_PLACEHOLDER_M273: _ClassVar[Model]
    MODEL_PLACEHOLDER_M274: _ClassVar[Model]
    MODEL_PLACEHOLDER_M275: _ClassVar[Model]
    MODEL_PLACEHOLDER_M276: _ClassVar[Model]
    MODEL_PLACEHOLDER_M277: _ClassVar[Model]
    MODEL_PLACEHOLDER_M278: _ClassVar[Model]
    MODEL_PLACEHOLDER_M279: _ClassVar[Model]
    MODEL_PLACEHOLDER_M280: _ClassVar[Model]
    MODEL_PLACEHOLDER_M281: _ClassVar[Model]
    MODEL_PLACEHOLDER_M282: _ClassVar[Model]
    MODEL_PLACEHOLDER_M283: _ClassVar[Model]
    MODEL_PLACEHOLDER_M284: _ClassVar[Model]
    MODEL_PLACEHOLDER_M285: _ClassVar[Model]
    MODEL_PLACEHOLDER_M286: _ClassVar[Model]
    MODEL_PLACEHOLDER_M287: _ClassVar[Model]
    MODEL_PLACEHOLDER_M288: _ClassVar[Model]
    MODEL_PLACEHOLDER_M289: _ClassVar[Model]
    MODEL_PLACEHOLDER_M290: _ClassVar[Model]
    MODEL_PLACEHOLDER_M291: _ClassVar[Model]
    MODEL_PLACEHOLDER_M292: _ClassVar[Model]
    MODEL_PLACEHOLDER_M293: _ClassVar[Model]
    MODEL_PLACEHOLDER_M294: _ClassVar[Model]
    MODEL_PLACEHOLDER_M295: _ClassVar[Model]
    MODEL_PLACEHOLDER_M296: _ClassVar[Model]
    MODEL_PLACEHOLDER_M297: _ClassVar[Model]
    MODEL_PLACEHOLDER_M298: _ClassVar[Model]
    MODEL_PLACEHOLDER_M299: _ClassVar[Model]
    MODEL_PLACEHOLDER_M300: _ClassVar[Model]
    MODEL_PLACEHOLDER_M301: _ClassVar[Model]
    MODEL_PLACEHOLDER_M302: _ClassVar[Model]
    MODEL_PLACEHOLDER_M303: _ClassVar[Model]
    MODEL_PLACEHOLDER_M304: _ClassVar[Model]
    MODEL_PLACEHOLDER_M305: _ClassVar[Model]
    MODEL_PLACEHOLDER_M306: _ClassVar[Model]
    MODEL_PLACEHOLDER_M307: _ClassVar[Model]
    MODEL_PLACEHOLDER_M308: _ClassVar[Model]
    MODEL_PLACEHOLDER_M309: _ClassVar[Model]
    MODEL_PLACEHOLDER_M310: _ClassVar[Model]
    MODEL_PLACEHOLDER_M311: _ClassVar[Model]
    MODEL_PLACEHOLDER_M312: _ClassVar[Model]
    MODEL_PLACEHOLDER_M313: _ClassVar[Model]
    MODEL_PLACEHOLDER_M314: _ClassVar[Model]
    MODEL_PLACEHOLDER_M315: _ClassVar[Model]
    MODEL_PLACEHOLDER_M316: _ClassVar[Model]
    MODEL_PLACEHOLDER_M317: _ClassVar[Model]
    MODEL_PLACEHOLDER_M318: _ClassVar[Model]
    MODEL_PLACEHOLDER_M319: _ClassVar[Model]
    MODEL_PLACEHOLDER_M320: _ClassVar[Model]
    MODEL_PLACEHOLDER_M321: _ClassVar[Model]
    MODEL_PLACEHOLDER_M322: _ClassVar[Model]
    MODEL_PLACEHOLDER_M323: _ClassVar[Model]
    MODEL_PLACEHOLDER_M324: _ClassVar[Model]
    MODEL_PLACEHOLDER_M325: _ClassVar[Model]
    MODEL_PLACEHOLDER_M326: _ClassVar[Model]
    MODEL_PLACEHOLDER_M327: _ClassVar[Model]
    MODEL_PLACEHOLDER_M328: _ClassVar[Model]
    MODEL_PLACEHOLDER_M329: _ClassVar[Model]
    MODEL_PLACEHOLDER_M330: _ClassVar[Model]
    MODEL_PLACEHOLDER_M331: _ClassVar[Model]
    MODEL_PLACEHOLDER_M332: _ClassVar[Model]
    MODEL_PLACEHOLDER_M333: _ClassVar[Model]
    MODEL_PLACEHOLDER_M334: _ClassVar[Model]
    MODEL_PLACEHOLDER_M335: _ClassVar[Model]
    MODEL_PLACEHOLDER_M336: _ClassVar[Model]
    MODEL_PLACEHOLDER_M337: _ClassVar[Model]
    MODEL_PLACEHOLDER_M338: _ClassVar[Model]
    MODEL_PLACEHOLDER_M339: _ClassVar[Model]
    MODEL_PLACEHOLDER_M340: _ClassVar[Model]
    MODEL_PLACEHOLDER_M341: _ClassVar[Model]
    MODEL_PLACEHOLDER_M342: _ClassVar[Model]
    MODEL_PLACEHOLDER_M343: _ClassVar[Model]
    MODEL_PLACEHOLDER_M344: _ClassVar[Model]
    MODEL_PLACEHOLDER_M345: _ClassVar[Model]
    MODEL_PLACEHOLDER_M346: _ClassVar[Model]
    MODEL_PLACEHOLDER_M347: _ClassVar[Model]
    MODEL_PLACEHOLDER_M348: _ClassVar[Model]
    MODEL_PLACEHOLDER_M349: _ClassVar[Model]
    MODEL_PLACEHOLDER_M350: _ClassVar[Model]
    MODEL_PLACEHOLDER_M351: _ClassVar[Model]
    MODEL_PLACEHOLDER_M352: _ClassVar[Model]
    MODEL_PLACEHOLDER_M353: _ClassVar[Model]
    MODEL_PLACEHOLDER_M354: _ClassVar[Model]
    MODEL_PLACEHOLDER_M355: _ClassVar[Model]
    MODEL_PLACEHOLDER_M356: _ClassVar[Model]
    MODEL_PLACEHOLDER_M357: _ClassVar[Model]
    MODEL_PLACEHOLDER_M358: _ClassVar[Model]
    MODEL_PLACEHOLDER_M359: _ClassVar[Model]
    MODEL_PLACEHOLDER_M360: _ClassVar[Model]
    MODEL_PLACEHOLDER_M361: _ClassVar[Model]
    MODEL_PLACEHOLDER_M362: _ClassVar[Model]
    MODEL_PLACEHOLDER_M363: _ClassVar[Model]
    MODEL_PLACEHOLDER_M364: _ClassVar[Model]
    MODEL_PLACEHOLDER_M365: _ClassVar[Model]
    MODEL_PLACEHOLDER_M366: _ClassVar[Model]
    MODEL_PLACEHOLDER_M367: _ClassVar[Model]
    MODEL_PLACEHOLDER_M368: _ClassVar[Model]
    MODEL_PLACEHOLDER_M369: _ClassVar[Model]
    MODEL_PLACEHOLDER_M370: _ClassVar[Model]
    MODEL_PLACEHOLDER_M371: _ClassVar[Model]
    MODEL_PLACEHOLDER_M372: _ClassVar[Model]
    MODEL_PLACEHOLDER_M373: _ClassVar[Model]
    MODEL_PLACEHOLDER_M374: _ClassVar[Model]
    MODEL_PLACEHOLDER_M375: _ClassVar[Model]
    MODEL_PLACEHOLDER_M376: _ClassVar[Model]
    MODEL_PLACEHOLDER_M377: _ClassVar[Model]
    MODEL_PLACEHOLDER_M378: _ClassVar[Model]
    MODEL_PLACEHOLDER_M379: _ClassVar[Model]
    MODEL_PLACEHOLDER_M380: _ClassVar[Model]
    MODEL_PLACEHOLDER_M381: _ClassVar[Model]
    MODEL_PLACEHOLDER_M382: _ClassVar[Model]
    MODEL_PLACEHOLDER_M383: _ClassVar[Model]
    MODEL_PLACEHOLDER_M384: _ClassVar[Model]
    MODEL_PLACEHOLDER_M385: _ClassVar[Model]
    MODEL_PLACEHOLDER_M386: _ClassVar[Model]
    MODEL_PLACEHOLDER_M387: _ClassVar[Model]
    MODEL_PLACEHOLDER_M388: _ClassVar[Model]
    MODEL_PLACEHOLDER_M389: _ClassVar[Model]
    MODEL_PLACEHOLDER_M390: _ClassVar[Model]
    MODEL_PLACEHOLDER_M391: _ClassVar[Model]
    MODEL_PLACEHOLDER_M392: _ClassVar[Model]
    MODEL_PLACEHOLDER_M393: _ClassVar[Model]
    MODEL_PLACEHOLDER_M394: _ClassVar[Model]
    MODEL_PLACEHOLDER_M395: _ClassVar[Model]
    MODEL_PLACEHOLDER_M396: _ClassVar[Model]
    MODEL_PLACEHOLDER_M397: _ClassVar[Model]
    MODEL_PLACEHOLDER_M398: _ClassVar[Model]
    MODEL_PLACEHOLDER_M399: _ClassVar[Model]
ARTIFACT_APPROVAL_STATUS_UNSPECIFIED: ArtifactApprovalStatus
ARTIFACT_APPROVAL_STATUS_APPROVED: ArtifactApprovalStatus
ARTIFACT_APPROVAL_STATUS_REQUESTED_CHANGES: ArtifactApprovalStatus
ARTIFACT_TYPE_UNSPECIFIED: ArtifactType
ARTIFACT_TYPE_IMPLEMENTATION_PLAN: ArtifactType
ARTIFACT_TYPE_WALKTHROUGH: ArtifactType
ARTIFACT_TYPE_TASK: ArtifactType
ARTIFACT_TYPE_OTHER: ArtifactType
THIRD_PARTY_WEB_SEARCH_PROVIDER_UNSPECIFIED: ThirdPartyWebSearchProvider
THIRD_PARTY_WEB_SEARCH_PROVIDER_GEMINI: ThirdPartyWebSearchProvider
CORTEX_STEP_TYPE_UNSPECIFIED: CortexStepType
CORTEX_STEP_TYPE_DUMMY: CortexStepType
CORTEX_STEP_TYPE_FINISH: CortexStepType
CORTEX_STEP_TYPE_PLAN_INPUT: CortexStepType
CORTEX_STEP_TYPE_MQUERY: CortexStepType
CORTEX_STEP_TYPE_CODE_ACTION: CortexStepType
CORTEX_STEP_TYPE_GIT_COMMIT: CortexStepType
CORTEX_STEP_TYPE_GREP_SEARCH: CortexStepType
CORTEX_STEP_TYPE_VIEW_FILE: CortexStepType
CORTEX_STEP_TYPE_LIST_DIRECTORY: CortexStepType
CORTEX_STEP_TYPE_COMPILE: CortexStepType
CORTEX_STEP_TYPE_VIEW_CODE_ITEM: CortexStepType
CORTEX_STEP_TYPE_USER_INPUT: CortexStepType
CORTEX_STEP_TYPE_PLANNER_RESPONSE: CortexStepType
CORTEX_STEP_TYPE_ERROR_MESSAGE: CortexStepType
CORTEX_STEP_TYPE_RUN_COMMAND: CortexStepType
CORTEX_STEP_TYPE_CHECKPOINT: CortexStepType
CORTEX_STEP_TYPE_PROPOSE_CODE: CortexStepType
CORTEX_STEP_TYPE_FIND: CortexStepType
CORTEX_STEP_TYPE_SUGGESTED_RESPONSES: CortexStepType
CORTEX_STEP_TYPE_COMMAND_STATUS: CortexStepType
CORTEX_STEP_TYPE_MEMORY: CortexStepType
CORTEX_STEP_TYPE_READ_URL_CONTENT: CortexStepType
CORTEX_STEP_TYPE_VIEW_CONTENT_CHUNK: CortexStepType
CORTEX_STEP_TYPE_SEARCH_WEB: CortexStepType
CORTEX_STEP_TYPE_RETRIEVE_MEMORY: CortexStepType
CORTEX_STEP_TYPE_MCP_TOOL: CortexStepType
CORTEX_STEP_TYPE_MANAGER_FEEDBACK: CortexStepType
CORTEX_STEP_TYPE_TOOL_CALL_PROPOSAL: CortexStepType
CORTEX_STEP_TYPE_TOOL_CALL_CHOICE: CortexStepType
CORTEX_STEP_TYPE_TRAJECTORY_CHOICE: CortexStepType
CORTEX_STEP_TYPE_CLIPBOARD: CortexStepType
CORTEX_STEP_TYPE_VIEW_FILE_OUTLINE: CortexStepType
CORTEX_STEP_TYPE_POST_PR_REVIEW: CortexStepType
CORTEX_STEP_TYPE_LIST_RESOURCES: CortexStepType
CORTEX_STEP_TYPE_READ_RESOURCE: CortexStepType
CORTEX_STEP_TYPE_LINT_DIFF: CortexStepType
CORTEX_STEP_TYPE_FIND_ALL_REFERENCES: CortexStepType
CORTEX_STEP_TYPE_BRAIN_UPDATE: CortexStepType
CORTEX_STEP_TYPE_OPEN_BROWSER_URL: CortexStepType
CORTEX_STEP_TYPE_RUN_EXTENSION_CODE: CortexStepType
CORTEX_STEP_TYPE_PROPOSAL_FEEDBACK: CortexStepType
CORTEX_STEP_TYPE_TRAJECTORY_SEARCH: CortexStepType
CORTEX_STEP_TYPE_EXECUTE_BROWSER_JAVASCRIPT: CortexStepType
CORTEX_STEP_TYPE_LIST_BROWSER_PAGES: CortexStepType
CORTEX_STEP_TYPE_CAPTURE_BROWSER_SCREENSHOT: CortexStepType
CORTEX_STEP_TYPE_CLICK_BROWSER_PIXEL: CortexStepType
CORTEX_STEP_TYPE_READ_TERMINAL: CortexStepType
CORTEX_STEP_TYPE_CAPTURE_BROWSER_CONSOLE_LOGS: CortexStepType
CORTEX_STEP_TYPE_READ_BROWSER_PAGE: CortexStepType
CORTEX_STEP_TYPE_BROWSER_GET_DOM: CortexStepType
CORTEX_STEP_TYPE_CODE_SEARCH: CortexStepType
CORTEX_STEP_TYPE_BROWSER_INPUT: CortexStepType
CORTEX_STEP_TYPE_BROWSER_MOVE_MOUSE: CortexStepType
CORTEX_STEP_TYPE_BROWSER_SELECT_OPTION: CortexStepType
CORTEX_STEP_TYPE_BROWSER_SCROLL_UP: CortexStepType
CORTEX_STEP_TYPE_BROWSER_SCROLL_DOWN: CortexStepType
CORTEX_STEP_TYPE_BROWSER_CLICK_ELEMENT: CortexStepType
CORTEX_STEP_TYPE_BROWSER_PRESS_KEY: CortexStepType
CORTEX_STEP_TYPE_TASK_BOUNDARY: CortexStepType
CORTEX_STEP_TYPE_NOTIFY_USER: CortexStepType
CORTEX_STEP_TYPE_CODE_ACKNOWLEDGEMENT: CortexStepType
CORTEX_STEP_TYPE_INTERNAL_SEARCH: CortexStepType
CORTEX_STEP_TYPE_BROWSER_SUBAGENT: CortexStepType
CORTEX_STEP_TYPE_FILE_CHANGE: CortexStepType
CORTEX_STEP_TYPE_MOVE: CortexStepType
CORTEX_STEP_TYPE_BROWSER_SCROLL: CortexStepType
CORTEX_STEP_TYPE_KNOWLEDGE_GENERATION: CortexStepType
CORTEX_STEP_TYPE_EPHEMERAL_MESSAGE: CortexStepType
CORTEX_STEP_TYPE_GENERATE_IMAGE: CortexStepType
CORTEX_STEP_TYPE_DELETE_DIRECTORY: CortexStepType
CORTEX_STEP_TYPE_COMPILE_APPLET: CortexStepType
CORTEX_STEP_TYPE_INSTALL_APPLET_DEPENDENCIES: CortexStepType
CORTEX_STEP_TYPE_INSTALL_APPLET_PACKAGE: CortexStepType
CORTEX_STEP_TYPE_BROWSER_RESIZE_WINDOW: CortexStepType
CORTEX_STEP_TYPE_BROWSER_DRAG_PIXEL_TO_PIXEL: CortexStepType
CORTEX_STEP_TYPE_CONVERSATION_HISTORY: CortexStepType
CORTEX_STEP_TYPE_KNOWLEDGE_ARTIFACTS: CortexStepType
CORTEX_STEP_TYPE_SEND_COMMAND_INPUT: CortexStepType
CORTEX_STEP_TYPE_SYSTEM_MESSAGE: CortexStepType
CORTEX_STEP_TYPE_WAIT: CortexStepType
CORTEX_STEP_TYPE_AGENCY_TOOL_CALL: CortexStepType
CORTEX_STEP_TYPE_SET_UP_FIREBASE: CortexStepType
CORTEX_STEP_TYPE_RESTART_DEV_SERVER: CortexStepType
CORTEX_STEP_TYPE_DEPLOY_FIREBASE: CortexStepType
CORTEX_STEP_TYPE_SHELL_EXEC: CortexStepType
CORTEX_STEP_TYPE_BROWSER_MOUSE_WHEEL: CortexStepType
CORTEX_STEP_TYPE_LINT_APPLET: CortexStepType
CORTEX_STEP_TYPE_DEFINE_NEW_ENV_VARIABLE: CortexStepType
CORTEX_STEP_TYPE_KI_INSERTION: CortexStepType
CORTEX_STEP_TYPE_BROWSER_MOUSE_UP: CortexStepType
CORTEX_STEP_TYPE_BROWSER_MOUSE_DOWN: CortexStepType
CORTEX_STEP_TYPE_WORKSPACE_API: CortexStepType
CORTEX_STEP_TYPE_BROWSER_LIST_NETWORK_REQUESTS: CortexStepType
CORTEX_STEP_TYPE_BROWSER_GET_NETWORK_REQUEST: CortexStepType
CORTEX_STEP_TYPE_BROWSER_REFRESH_PAGE: CortexStepType
CORTEX_STEP_TYPE_INVOKE_SUBAGENT: CortexStepType
CORTEX_STEP_TYPE_WRITE_BLOB: CortexStepType
CORTEX_STEP_TYPE_GENERIC: CortexStepType
CORTEX_STEP_TYPE_ASK_QUESTION: CortexStepType
CORTEX_STEP_STATUS_UNSPECIFIED: CortexStepStatus
CORTEX_STEP_STATUS_PENDING: CortexStepStatus
CORTEX_STEP_STATUS_RUNNING: CortexStepStatus
CORTEX_STEP_STATUS_DONE: CortexStepStatus
CORTEX_STEP_STATUS_INVALID: CortexStepStatus
CORTEX_STEP_STATUS_CLEARED: CortexStepStatus
CORTEX_STEP_STATUS_CANCELED: CortexStepStatus
CORTEX_STEP_STATUS_ERROR: CortexStepStatus
CORTEX_STEP_STATUS_GENERATING: CortexStepStatus
CORTEX_STEP_STATUS_WAITING: CortexStepStatus
CORTEX_STEP_STATUS_QUEUED: CortexStepStatus
CORTEX_STEP_STATUS_INTERRUPTED: CortexStepStatus
CORTEX_STEP_SOURCE_UNSPECIFIED: CortexStepSource
CORTEX_STEP_SOURCE_MODEL: CortexStepSource
CORTEX_STEP_SOURCE_USER_IMPLICIT: CortexStepSource
CORTEX_STEP_SOURCE_USER_EXPLICIT: CortexStepSource
CORTEX_STEP_SOURCE_SYSTEM: CortexStepSource
CORTEX_STEP_SOURCE_SYSTEM_SDK: CortexStepSource
CORTEX_TRAJECTORY_TYPE_UNSPECIFIED: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_USER_MAINLINE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_USER_GRANULAR: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_SUPERCOMPLETE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_CASCADE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_CHECKPOINT: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_APPLIER: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_TOOL_CALL_PROPOSAL: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_TRAJECTORY_CHOICE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_LLM_JUDGE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_BRAIN_UPDATE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_INTERACTIVE_CASCADE: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_BROWSER: CortexTrajectoryType
CORTEX_TRAJECTORY_TYPE_KNOWLEDGE_GENERATION: CortexTrajectoryType
CORTEX_TRAJECTORY_SOURCE_UNSPECIFIED: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_CASCADE_CLIENT: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_EXPLAIN_PROBLEM: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_REFACTOR_FUNCTION: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_EVAL: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_EVAL_TASK: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_ASYNC_PRR: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_ASYNC_CF: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_ASYNC_SL: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_ASYNC_PRD: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_ASYNC_CM: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_INTERACTIVE_CASCADE: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_REPLAY: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_SDK: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_SUBAGENT: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_CLI: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_JETBOX: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_AGENT_API: CortexTrajectorySource
CORTEX_TRAJECTORY_SOURCE_BATTLE_MODE: CortexTrajectorySource
CORTEX_TRAJECTORY_REFERENCE_TYPE_UNSPECIFIED: CortexTrajectoryReferenceType
CORTEX_TRAJECTORY_REFERENCE_TYPE_PRUNE: CortexTrajectoryReferenceType
CORTEX_TRAJECTORY_REFERENCE_TYPE_FORK: CortexTrajectoryReferenceType
EXECUTOR_TERMINATION_REASON_UNSPECIFIED: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_ERROR: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_USER_CANCELED: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_MAX_INVOCATIONS: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_NO_TOOL_CALL: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_MAX_FORCED_INVOCATIONS: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_EARLY_CONTINUE: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_TERMINAL_STEP_TYPE: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_TERMINAL_CUSTOM_HOOK: ExecutorTerminationReason
EXECUTOR_TERMINATION_REASON_INJECTED_RESPONSE: ExecutorTerminationReason
STOP_REASON_UNSPECIFIED: StopReason
STOP_REASON_INCOMPLETE: StopReason
STOP_REASON_STOP_PATTERN: StopReason
STOP_REASON_MAX_TOKENS: StopReason
STOP_REASON_MIN_LOG_PROB: StopReason
STOP_REASON_MAX_NEWLINES: StopReason
STOP_REASON_EXIT_SCOPE: StopReason
STOP_REASON_NONFINITE_LOGIT_OR_PROB: StopReason
STOP_REASON_FIRST_NON_WHITESPACE_LINE: StopReason
STOP_REASON_PARTIAL: StopReason
STOP_REASON_FUNCTION_CALL: StopReason
STOP_REASON_CONTENT_FILTER: StopReason
STOP_REASON_NON_INSERTION: StopReason
STOP_REASON_ERROR: StopReason
STOP_REASON_IMPROPER_FORMAT: StopReason
STOP_REASON_OTHER: StopReason
STOP_REASON_CLIENT_CANCELED: StopReason
STOP_REASON_CLIENT_TOOL_PARSE_ERROR: StopReason
STOP_REASON_CLIENT_STREAM_ERROR: StopReason
STOP_REASON_CLIENT_LOOPING: StopReason
STOP_REASON_CLIENT_INVALID_MESSAGE_ORDER: StopReason
CACHE_CONTROL_TYPE_UNSPECIFIED: CacheControlType
CACHE_CONTROL_TYPE_EPHEMERAL: CacheControlType
CHAT_MESSAGE_SOURCE_UNSPECIFIED: ChatMessageSource
CHAT_MESSAGE_SOURCE_USER: ChatMessageSource
CHAT_MESSAGE_SOURCE_SYSTEM: ChatMessageSource
CHAT_MESSAGE_SOURCE_UNKNOWN: ChatMessageSource
CHAT_MESSAGE_SOURCE_TOOL: ChatMessageSource
CHAT_MESSAGE_SOURCE_SYSTEM_PROMPT: ChatMessageSource
CONVERSATIONAL_PLANNER_MODE_UNSPECIFIED: ConversationalPlannerMode
CONVERSATIONAL_PLANNER_MODE_DEFAULT: ConversationalPlannerMode
CONVERSATIONAL_PLANNER_MODE_READ_ONLY: ConversationalPlannerMode
TOKEN_SOURCE_UNSPECIFIED: TokenSource
TOKEN_SOURCE_SYSTEM: TokenSource
TOKEN_SOURCE_USER: TokenSource
PERMISSION_SCOPE_UNSPECIFIED: PermissionScope
PERMISSION_SCOPE_ONCE: PermissionScope
PERMISSION_SCOPE_CONVERSATION: PermissionScope
PERMISSION_SCOPE_WORKSPACE: PermissionScope
PERMISSION_SCOPE_GLOBAL: PermissionScope
ARTIFACT_REVIEW_STATUS_UNSPECIFIED: ArtifactReviewStatus
ARTIFACT_REVIEW_STATUS_PENDING_REVIEW: ArtifactReviewStatus
ARTIFACT_REVIEW_STATUS_REVIEWED: ArtifactReviewStatus
ARTIFACT_REVIEW_STATUS_MODIFIED: ArtifactReviewStatus
MESSAGE_PRIORITY_UNSPECIFIED: MessagePriority
MESSAGE_PRIORITY_LOW: MessagePriority
MESSAGE_PRIORITY_NORMAL: MessagePriority
MESSAGE_PRIORITY_HIGH: MessagePriority
TRUNCATION_REASON_UNSPECIFIED: TruncationReason
TRUNCATION_REASON_PROMPT_CACHE_TTL_EXPIRED: TruncationReason
TRUNCATION_REASON_MAX_TOKEN_LIMIT: TruncationReason
TOKEN_TYPE_UNSPECIFIED: TokenType
TOKEN_TYPE_SYSTEM_PROMPT: TokenType
TOKEN_TYPE_TOOLS: TokenType
TOKEN_TYPE_RULES: TokenType
TOKEN_TYPE_MCP_TOOLS: TokenType
TOKEN_TYPE_SKILLS: TokenType
TOKEN_TYPE_SUBAGENTS: TokenType
TOKEN_TYPE_CHAT_MESSAGES: TokenType
TOKEN_TYPE_WORKFLOWS: TokenType
TOKEN_TYPE_PLUGINS: TokenType
RETRY_REASON_UNSPECIFIED: RetryReason
RETRY_REASON_API_RETRYABLE: RetryReason
RETRY_REASON_MODEL_CORRECTABLE: RetryReason
RETRY_REASON_NON_RECOVERABLE: RetryReason
FIND_RESULT_TYPE_UNSPECIFIED: FindResultType
FIND_RESULT_TYPE_FILE: FindResultType
FIND_RESULT_TYPE_DIRECTORY: FindResultType
FIND_RESULT_TYPE_ANY: FindResultType
SEARCH_WEB_TYPE_UNSPECIFIED: SearchWebType
SEARCH_WEB_TYPE_WEB: SearchWebType
SEARCH_WEB_TYPE_IMAGE: SearchWebType
API_PROVIDER_UNSPECIFIED: APIProvider
API_PROVIDER_INTERNAL: APIProvider
API_PROVIDER_GOOGLE_VERTEX: APIProvider
API_PROVIDER_GOOGLE_GEMINI: APIProvider
API_PROVIDER_ANTHROPIC_VERTEX: APIProvider
API_PROVIDER_GOOGLE_EVERGREEN: APIProvider
API_PROVIDER_OPENAI_VERTEX: APIProvider
MODEL_UNSPECIFIED: Model
MODEL_CHAT_20706: Model
MODEL_GOOGLE_GEMINI_2_5_PRO: Model
MODEL_CHAT_23310: Model
MODEL_CLAUDE_4_SONNET: Model
MODEL_CLAUDE_4_SONNET_THINKING: Model
MODEL_CLAUDE_4_OPUS: Model
MODEL_CLAUDE_4_OPUS_THINKING: Model
MODEL_GOOGLE_GEMINI_2_5_FLASH: Model
MODEL_GOOGLE_GEMINI_2_5_FLASH_THINKING: Model
MODEL_GOOGLE_GEMINI_TRAINING_POLICY: Model
MODEL_GOOGLE_GEMINI_INTERNAL_BYOM: Model
MODEL_GOOGLE_GEMINI_FOR_GOOGLE_2_5_PRO: Model
MODEL_GOOGLE_GEMINI_NEMOSREEF: Model
MODEL_GOOGLE_GEMINI_2_5_FLASH_THINKING_TOOLS: Model
MODEL_GOOGLE_GEMINI_2_5_FLASH_LITE: Model
MODEL_GOOGLE_GEMINI_2_5_PRO_EVAL: Model
MODEL_GOOGLE_GEMINI_2_5_FLASH_IMAGE_PREVIEW: Model
MODEL_CLAUDE_4_5_SONNET: Model
MODEL_CLAUDE_4_5_SONNET_THINKING: Model
MODEL_GOOGLE_GEMINI_COMPUTER_USE_EXPERIMENTAL: Model
MODEL_GOOGLE_GEMINI_HORIZONDAWN: Model
MODEL_GOOGLE_GEMINI_PUREPRISM: Model
MODEL_GOOGLE_GEMINI_GENTLEISLAND: Model
MODEL_GOOGLE_GEMINI_RAINSONG: Model
MODEL_CLAUDE_4_5_HAIKU: Model
MODEL_CLAUDE_4_5_HAIKU_THINKING: Model
MODEL_OPENAI_GPT_OSS_120B_MEDIUM: Model
MODEL_GOOGLE_GEMINI_ORIONFIRE: Model
MODEL_GOOGLE_GEMINI_INTERNAL_TAB_FLASH_LITE: Model
MODEL_GOOGLE_GEMINI_INTERNAL_TAB_JUMP_FLASH_LITE: Model
MODEL_GOOGLE_JARVIS_PROXY: Model
MODEL_GOOGLE_GEMINI_COSMICFORGE: Model
MODEL_GOOGLE_GEMINI_RIFTRUNNER: Model
MODEL_GOOGLE_JARVIS_V4S: Model
MODEL_GOOGLE_GEMINI_INFINITYJET: Model
MODEL_GOOGLE_GEMINI_INFINITYBLOOM: Model
MODEL_GOOGLE_GEMINI_RIFTRUNNER_THINKING_LOW: Model
MODEL_GOOGLE_GEMINI_RIFTRUNNER_THINKING_HIGH: Model
MODEL_PLACEHOLDER_M0: Model
MODEL_PLACEHOLDER_M1: Model
MODEL_PLACEHOLDER_M2: Model
MODEL_PLACEHOLDER_M3: Model
MODEL_PLACEHOLDER_M4: Model
MODEL_PLACEHOLDER_M5: Model
MODEL_PLACEHOLDER_M6: Model
MODEL_PLACEHOLDER_M7: Model
MODEL_PLACEHOLDER_M8: Model
MODEL_PLACEHOLDER_M9: Model
MODEL_PLACEHOLDER_M10: Model
MODEL_PLACEHOLDER_M11: Model
MODEL_PLACEHOLDER_M12: Model
MODEL_PLACEHOLDER_M13: Model
MODEL_PLACEHOLDER_M14: Model
MODEL_PLACEHOLDER_M15: Model
MODEL_PLACEHOLDER_M16: Model
MODEL_PLACEHOLDER_M17: Model
MODEL_PLACEHOLDER_M18: Model
MODEL_PLACEHOLDER_M19: Model
MODEL_PLACEHOLDER_M20: Model
MODEL_PLACEHOLDER_M21: Model
MODEL_PLACEHOLDER_M22: Model
MODEL_PLACEHOLDER_M23: Model
MODEL_PLACEHOLDER_M24: Model
MODEL_PLACEHOLDER_M25: Model
MODEL_PLACEHOLDER_M26: Model
MODEL_PLACEHOLDER_M27: Model
MODEL_PLACEHOLDER_M28: Model
MODEL_PLACEHOLDER_M29: Model
MODEL_PLACEHOLDER_M30: Model
MODEL_PLACEHOLDER_M31: Model
MODEL_PLACEHOLDER_M32: Model
MODEL_PLACEHOLDER_M33: Model
MODEL_PLACEHOLDER_M34: Model
MODEL_PLACEHOLDER_M35: Model
MODEL_PLACEHOLDER_M36: Model
MODEL_PLACEHOLDER_M37: Model
MODEL_PLACEHOLDER_M38: Model
MODEL_PLACEHOLDER_M39: Model
MODEL_PLACEHOLDER_M40: Model
MODEL_PLACEHOLDER_M41: Model
MODEL_PLACEHOLDER_M42: Model
MODEL_PLACEHOLDER_M43: Model
MODEL_PLACEHOLDER_M44: Model
MODEL_PLACEHOLDER_M45: Model
MODEL_PLACEHOLDER_M46: Model
MODEL_PLACEHOLDER_M47: Model
MODEL_PLACEHOLDER_M48: Model
MODEL_PLACEHOLDER_M49: Model
MODEL_PLACEHOLDER_M50: Model
MODEL_PLACEHOLDER_M51: Model
MODEL_PLACEHOLDER_M52: Model
MODEL_PLACEHOLDER_M53: Model
MODEL_PLACEHOLDER_M54: Model
MODEL_PLACEHOLDER_M55: Model
MODEL_PLACEHOLDER_M56: Model
MODEL_PLACEHOLDER_M57: Model
MODEL_PLACEHOLDER_M58: Model
MODEL_PLACEHOLDER_M59: Model
MODEL_PLACEHOLDER_M60: Model
MODEL_PLACEHOLDER_M61: Model
MODEL_PLACEHOLDER_M62: Model
MODEL_PLACEHOLDER_M63: Model
MODEL_PLACEHOLDER_M64: Model
MODEL_PLACEHOLDER_M65: Model
MODEL_PLACEHOLDER_M66: Model
MODEL_PLACEHOLDER_M67: Model
MODEL_PLACEHOLDER_M68: Model
MODEL_PLACEHOLDER_M69: Model
MODEL_PLACEHOLDER_M70: Model
MODEL_PLACEHOLDER_M71: Model
MODEL_PLACEHOLDER_M72: Model
MODEL_PLACEHOLDER_M73: Model
MODEL_PLACEHOLDER_M74: Model
MODEL_PLACEHOLDER_M75: Model
MODEL_PLACEHOLDER_M76: Model
MODEL_PLACEHOLDER_M77: Model
MODEL_PLACEHOLDER_M78: Model
MODEL_PLACEHOLDER_M79: Model
MODEL_PLACEHOLDER_M80: Model
MODEL_PLACEHOLDER_M81: Model
MODEL_PLACEHOLDER_M82: Model
MODEL_PLACEHOLDER_M83: Model
MODEL_PLACEHOLDER_M84: Model
MODEL_PLACEHOLDER_M85: Model
MODEL_PLACEHOLDER_M86: Model
MODEL_PLACEHOLDER_M87: Model
MODEL_PLACEHOLDER_M88: Model
MODEL_PLACEHOLDER_M89: Model
MODEL_PLACEHOLDER_M90: Model
MODEL_PLACEHOLDER_M91: Model
MODEL_PLACEHOLDER_M92: Model
MODEL_PLACEHOLDER_M93: Model
MODEL_PLACEHOLDER_M94: Model
MODEL_PLACEHOLDER_M95: Model
MODEL_PLACEHOLDER_M96: Model
MODEL_PLACEHOLDER_M97: Model
MODEL_PLACEHOLDER_M98: Model
MODEL_PLACEHOLDER_M99: Model
MODEL_PLACEHOLDER_M100: Model
MODEL_PLACEHOLDER_M101: Model
MODEL_PLACEHOLDER_M102: Model
MODEL_PLACEHOLDER_M103: Model
MODEL_PLACEHOLDER_M104: Model
MODEL_PLACEHOLDER_M105: Model
MODEL_PLACEHOLDER_M106: Model
MODEL_PLACEHOLDER_M107: Model
MODEL_PLACEHOLDER_M108: Model
MODEL_PLACEHOLDER_M109: Model
MODEL_PLACEHOLDER_M110: Model
MODEL_PLACEHOLDER_M111: Model
MODEL_PLACEHOLDER_M112: Model
MODEL_PLACEHOLDER_M113: Model
MODEL_PLACEHOLDER_M114: Model
MODEL_PLACEHOLDER_M115: Model
MODEL_PLACEHOLDER_M116: Model
MODEL_PLACEHOLDER_M117: Model
MODEL_PLACEHOLDER_M118: Model
MODEL_PLACEHOLDER_M119: Model
MODEL_PLACEHOLDER_M120: Model
MODEL_PLACEHOLDER_M121: Model
MODEL_PLACEHOLDER_M122: Model
MODEL_PLACEHOLDER_M123: Model
MODEL_PLACEHOLDER_M124: Model
MODEL_PLACEHOLDER_M125: Model
MODEL_PLACEHOLDER_M126: Model
MODEL_PLACEHOLDER_M127: Model
MODEL_PLACEHOLDER_M128: Model
MODEL_PLACEHOLDER_M129: Model
MODEL_PLACEHOLDER_M130: Model
MODEL_PLACEHOLDER_M131: Model
MODEL_PLACEHOLDER_M132: Model
MODEL_PLACEHOLDER_M133: Model
MODEL_PLACEHOLDER_M134: Model
MODEL_PLACEHOLDER_M135: Model
MODEL_PLACEHOLDER_M136: Model
MODEL_PLACEHOLDER_M137: Model
MODEL_PLACEHOLDER_M138: Model
MODEL_PLACEHOLDER_M139: Model
MODEL_PLACEHOLDER_M140: Model
MODEL_PLACEHOLDER_M141: Model
MODEL_PLACEHOLDER_M142: Model
MODEL_PLACEHOLDER_M143: Model
MODEL_PLACEHOLDER_M144: Model
MODEL_PLACEHOLDER_M145: Model
MODEL_PLACEHOLDER_M146: Model
MODEL_PLACEHOLDER_M147: Model
MODEL_PLACEHOLDER_M148: Model
MODEL_PLACEHOLDER_M149: Model
MODEL_PLACEHOLDER_M150: Model
MODEL_PLACEHOLDER_M151: Model
MODEL_PLACEHOLDER_M152: Model
MODEL_PLACEHOLDER_M153: Model
MODEL_PLACEHOLDER_M154: Model
MODEL_PLACEHOLDER_M155: Model
MODEL_PLACEHOLDER_M156: Model
MODEL_PLACEHOLDER_M157: Model
MODEL_PLACEHOLDER_M158: Model
MODEL_PLACEHOLDER_M159: Model
MODEL_PLACEHOLDER_M160: Model
MODEL_PLACEHOLDER_M161: Model
MODEL_PLACEHOLDER_M162: Model
MODEL_PLACEHOLDER_M163: Model
MODEL_PLACEHOLDER_M164: Model
MODEL_PLACEHOLDER_M165: Model
MODEL_PLACEHOLDER_M166: Model
MODEL_PLACEHOLDER_M167: Model
MODEL_PLACEHOLDER_M168: Model
MODEL_PLACEHOLDER_M169: Model
MODEL_PLACEHOLDER_M170: Model
MODEL_PLACEHOLDER_M171: Model
MODEL_PLACEHOLDER_M172: Model
MODEL_PLACEHOLDER_M173: Model
MODEL_PLACEHOLDER_M174: Model
MODEL_PLACEHOLDER_M175: Model
MODEL_PLACEHOLDER_M176: Model
MODEL_PLACEHOLDER_M177: Model
MODEL_PLACEHOLDER_M178: Model
MODEL_PLACEHOLDER_M179: Model
MODEL_PLACEHOLDER_M180: Model
MODEL_PLACEHOLDER_M181: Model
MODEL_PLACEHOLDER_M182: Model
MODEL_PLACEHOLDER_M183: Model
MODEL_PLACEHOLDER_M184: Model
MODEL_PLACEHOLDER_M185: Model
MODEL_PLACEHOLDER_M186: Model
MODEL_PLACEHOLDER_M187: Model
MODEL_PLACEHOLDER_M188: Model
MODEL_PLACEHOLDER_M189: Model
MODEL_PLACEHOLDER_M190: Model
MODEL_PLACEHOLDER_M191: Model
MODEL_PLACEHOLDER_M192: Model
MODEL_PLACEHOLDER_M193: Model
MODEL_PLACEHOLDER_M194: Model
MODEL_PLACEHOLDER_M195: Model
MODEL_PLACEHOLDER_M196: Model
MODEL_PLACEHOLDER_M197: Model
MODEL_PLACEHOLDER_M198: Model
MODEL_PLACEHOLDER_M199: Model
MODEL_PLACEHOLDER_M200: Model
MODEL_PLACEHOLDER_M201: Model
MODEL_PLACEHOLDER_M202: Model
MODEL_PLACEHOLDER_M203: Model
MODEL_PLACEHOLDER_M204: Model
MODEL_PLACEHOLDER_M205: Model
MODEL_PLACEHOLDER_M206: Model
MODEL_PLACEHOLDER_M207: Model
MODEL_PLACEHOLDER_M208: Model
MODEL_PLACEHOLDER_M209: Model
MODEL_PLACEHOLDER_M210: Model
MODEL_PLACEHOLDER_M211: Model
MODEL_PLACEHOLDER_M212: Model
MODEL_PLACEHOLDER_M213: Model
MODEL_PLACEHOLDER_M214: Model
MODEL_PLACEHOLDER_M215: Model
MODEL_PLACEHOLDER_M216: Model
MODEL_PLACEHOLDER_M217: Model
MODEL_PLACEHOLDER_M218: Model
MODEL_PLACEHOLDER_M219: Model
MODEL_PLACEHOLDER_M220: Model
MODEL_PLACEHOLDER_M221: Model
MODEL_PLACEHOLDER_M222: Model
MODEL_PLACEHOLDER_M223: Model
MODEL_PLACEHOLDER_M224: Model
MODEL_PLACEHOLDER_M225: Model
MODEL_PLACEHOLDER_M226: Model
MODEL_PLACEHOLDER_M227: Model
MODEL_PLACEHOLDER_M228: Model
MODEL_PLACEHOLDER_M229: Model
MODEL_PLACEHOLDER_M230: Model
MODEL_PLACEHOLDER_M231: Model
MODEL_PLACEHOLDER_M232: Model
MODEL_PLACEHOLDER_M233: Model
MODEL_PLACEHOLDER_M234: Model
MODEL_PLACEHOLDER_M235: Model
MODEL_PLACEHOLDER_M236: Model
MODEL_PLACEHOLDER_M237: Model
MODEL_PLACEHOLDER_M238: Model
MODEL_PLACEHOLDER_M239: Model
MODEL_PLACEHOLDER_M240: Model
MODEL_PLACEHOLDER_M241: Model
MODEL_PLACEHOLDER_M242: Model
MODEL_PLACEHOLDER_M243: Model
MODEL_PLACEHOLDER_M244: Model
MODEL_PLACEHOLDER_M245: Model
MODEL_PLACEHOLDER_M246: Model
MODEL_PLACEHOLDER_M247: Model
MODEL_PLACEHOLDER_M248: Model
MODEL_PLACEHOLDER_M249: Model
MODEL_PLACEHOLDER_M250: Model
MODEL_PLACEHOLDER_M251: Model
MODEL_PLACEHOLDER_M252: Model
MODEL_PLACEHOLDER_M253: Model
MODEL_PLACEHOLDER_M254: Model
MODEL_PLACEHOLDER_M255: Model
MODEL_PLACEHOLDER_M256: Model
MODEL_PLACEHOLDER_M257: Model
MODEL_PLACEHOLDER_M258: Model
MODEL_PLACEHOLDER_M259: Model
MODEL_PLACEHOLDER_M260: Model
MODEL_PLACEHOLDER_M261: Model
MODEL_PLACEHOLDER_M262: Model
MODEL_PLACEHOLDER_M263: Model
MODEL_PLACEHOLDER_M264: Model
MODEL_PLACEHOLDER_M265: Model
MODEL_PLACEHOLDER_M266: Model
MODEL_PLACEHOLDER_M267: Model
MODEL_PLACEHOLDER_M268: Model
MODEL_PLACEHOLDER_M269: Model
MODEL_PLACEHOLDER_M270: Model
MODEL_PLACEHOLDER_M271: Model
MODEL_PLACEHOLDER_M272: Model
MODEL_PLACEHOLDER_M273: Model
MODEL_PLACEHOLDER_M274: Model
MODEL_PLACEHOLDER_M275: Model
MODEL_PLACEHOLDER_M276: Model
MODEL_PLACEHOLDER_M277: Model
MODEL_PLACEHOLDER_M278: Model
MODEL_PLACEHOLDER_M279: Model
MODEL_PLACEHOLDER_M280: Model
MODEL_PLACEHOLDER_M281: Model
MODEL_PLACEHOLDER_M282: Model
MODEL_PLACEHOLDER_M283: Model
MODEL_PLACEHOLDER_M284: Model
MODEL_PLACEHOLDER_M285: Model
MODEL_PLACEHOLDER_M286: Model
MODEL_PLACEHOLDER_M287: Model
MODEL_PLACEHOLDER_M288: Model
MODEL_PLACEHOLDER_M289: Model
MODEL_PLACEHOLDER_M290: Model
MODEL_PLACEHOLDER_M291: Model
MODEL_PLACEHOLDER_M292: Model
MODEL_PLACEHOLDER_M293: Model
MODEL_PLACEHOLDER_M294: Model
MODEL_PLACEHOLDER_M295: Model
MODEL_PLACEHOLDER_M296: Model
MODEL_PLACEHOLDER_M297: Model
MODEL_PLACEHOLDER_M298: Model
MODEL_PLACEHOLDER_M299: Model
MODEL_PLACEHOLDER_M300: Model
MODEL_PLACEHOLDER_M301: Model
MODEL_PLACEHOLDER_M302: Model
MODEL_PLACEHOLDER_M303: Model
MODEL_PLACEHOLDER_M304: Model
MODEL_PLACEHOLDER_M305: Model
MODEL_PLACEHOLDER_M306: Model
MODEL_PLACEHOLDER_M307: Model
MODEL_PLACEHOLDER_M308: Model
MODEL_PLACEHOLDER_M309: Model
MODEL_PLACEHOLDER_M310: Model
MODEL_PLACEHOLDER_M311: Model
MODEL_PLACEHOLDER_M312: Model
MODEL_PLACEHOLDER_M313: Model
MODEL_PLACEHOLDER_M314: Model
MODEL_PLACEHOLDER_M315: Model
MODEL_PLACEHOLDER_M316: Model
MODEL_PLACEHOLDER_M317: Model
MODEL_PLACEHOLDER_M318: Model
MODEL_PLACEHOLDER_M319: Model
MODEL_PLACEHOLDER_M320: Model
MODEL_PLACEHOLDER_M321: Model
MODEL_PLACEHOLDER_M322: Model
MODEL_PLACEHOLDER_M323: Model
MODEL_PLACEHOLDER_M324: Model
MODEL_PLACEHOLDER_M325: Model
MODEL_PLACEHOLDER_M326: Model
MODEL_PLACEHOLDER_M327: Model
MODEL_PLACEHOLDER_M328: Model
MODEL_PLACEHOLDER_M329: Model
MODEL_PLACEHOLDER_M330: Model
MODEL_PLACEHOLDER_M331: Model
MODEL_PLACEHOLDER_M332: Model
MODEL_PLACEHOLDER_M333: Model
MODEL_PLACEHOLDER_M334: Model
MODEL_PLACEHOLDER_M335: Model
MODEL_PLACEHOLDER_M336: Model
MODEL_PLACEHOLDER_M337: Model
MODEL_PLACEHOLDER_M338: Model
MODEL_PLACEHOLDER_M339: Model
MODEL_PLACEHOLDER_M340: Model
MODEL_PLACEHOLDER_M341: Model
MODEL_PLACEHOLDER_M342: Model
MODEL_PLACEHOLDER_M343: Model
MODEL_PLACEHOLDER_M344: Model
MODEL_PLACEHOLDER_M345: Model
MODEL_PLACEHOLDER_M346: Model
MODEL_PLACEHOLDER_M347: Model
MODEL_PLACEHOLDER_M348: Model
MODEL_PLACEHOLDER_M349: Model
MODEL_PLACEHOLDER_M350: Model
MODEL_PLACEHOLDER_M351: Model
MODEL_PLACEHOLDER_M352: Model
MODEL_PLACEHOLDER_M353: Model
MODEL_PLACEHOLDER_M354: Model
MODEL_PLACEHOLDER_M355: Model
MODEL_PLACEHOLDER_M356: Model
MODEL_PLACEHOLDER_M357: Model
MODEL_PLACEHOLDER_M358: Model
MODEL_PLACEHOLDER_M359: Model
MODEL_PLACEHOLDER_M360: Model
MODEL_PLACEHOLDER_M361: Model
MODEL_PLACEHOLDER_M362: Model
MODEL_PLACEHOLDER_M363: Model
MODEL_PLACEHOLDER_M364: Model
MODEL_PLACEHOLDER_M365: Model
MODEL_PLACEHOLDER_M366: Model
MODEL_PLACEHOLDER_M367: Model
MODEL_PLACEHOLDER_M368: Model
MODEL_PLACEHOLDER_M369: Model
MODEL_PLACEHOLDER_M370: Model
MODEL_PLACEHOLDER_M371: Model
MODEL_PLACEHOLDER_M372: Model
MODEL_PLACEHOLDER_M373: Model
MODEL_PLACEHOLDER_M374: Model
MODEL_PLACEHOLDER_M375: Model
MODEL_PLACEHOLDER_M376: Model
MODEL_PLACEHOLDER_M377: Model
MODEL_PLACEHOLDER_M378: Model
MODEL_PLACEHOLDER_M379: Model
MODEL_PLACEHOLDER_M380: Model
MODEL_PLACEHOLDER_M381: Model
MODEL_PLACEHOLDER_M382: Model
MODEL_PLACEHOLDER_M383: Model
MODEL_PLACEHOLDER_M384: Model
MODEL_PLACEHOLDER_M385: Model
MODEL_PLACEHOLDER_M386: Model
MODEL_PLACEHOLDER_M387: Model
MODEL_PLACEHOLDER_M388: Model
MODEL_PLACEHOLDER_M389: Model
MODEL_PLACEHOLDER_M390: Model
MODEL_PLACEHOLDER_M391: Model
MODEL_PLACEHOLDER_M392: Model
MODEL_PLACEHOLDER_M393: Model
MODEL_PLACEHOLDER_M394: Model
MODEL_PLACEHOLDER_M395: Model
MODEL_PLACEHOLDER_M396: Model
MODEL_PLACEHOLDER_M397: Model
MODEL_PLACEHOLDER_M398: Model
MODEL_PLACEHOLDER_M399: Model

class Trajectory(_message.Message):
    __slots__ = ("trajectory_id", "steps", "generator_metadata", "trajectory_type", "parent_references", "cascade_id", "metadata", "source", "executor_metadatas")
    TRAJECTORY_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    GENERATOR_METADATA_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    PARENT_REFERENCES_FIELD_NUMBER: _ClassVar[int]
    CASCADE_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    EXECUTOR_METADATAS_FIELD_NUMBER: _ClassVar[int]
    trajectory_id: str
    steps: _containers.RepeatedCompositeFieldContainer[Step]
    generator_metadata: _containers.RepeatedCompositeFieldContainer[CortexStepGeneratorMetadata]
    trajectory_type: CortexTrajectoryType
    parent_references: _containers.RepeatedCompositeFieldContainer[CortexTrajectoryReference]
    cascade_id: str
    metadata: CortexTrajectoryMetadata
    source: CortexTrajectorySource
    executor_metadatas: _containers.RepeatedCompositeFieldContainer[ExecutorMetadata]
    def __init__(self, trajectory_id: _Optional[str] = ..., steps: _Optional[_Iterable[_Union[Step, _Mapping]]] = ..., generator_metadata: _Optional[_Iterable[_Union[CortexStepGeneratorMetadata, _Mapping]]] = ..., trajectory_type: _Optional[_Union[CortexTrajectoryType, str]] = ..., parent_references: _Optional[_Iterable[_Union[CortexTrajectoryReference, _Mapping]]] = ..., cascade_id: _Optional[str] = ..., metadata: _Optional[_Union[CortexTrajectoryMetadata, _Mapping]] = ..., source: _Optional[_Union[CortexTrajectorySource, str]] = ..., executor_metadatas: _Optional[_Iterable[_Union[ExecutorMetadata, _Mapping]]] = ...) -> None: ...

class CortexTrajectoryMetadata(_message.Message):
    __slots__ = ("workspaces", "created_at", "initialization_state_id", "parent_conversation_id", "root_conversation_id", "workspace_uris", "mendel_experiment_ids")
    WORKSPACES_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    INITIALIZATION_STATE_ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    ROOT_CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_URIS_FIELD_NUMBER: _ClassVar[int]
    MENDEL_EXPERIMENT_IDS_FIELD_NUMBER: _ClassVar[int]
    workspaces: _containers.RepeatedCompositeFieldContainer[CortexWorkspaceMetadata]
    created_at: _timestamp_pb2.Timestamp
    initialization_state_id: str
    parent_conversation_id: str
    root_conversation_id: str
    workspace_uris: _containers.RepeatedScalarFieldContainer[str]
    mendel_experiment_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, workspaces: _Optional[_Iterable[_Union[CortexWorkspaceMetadata, _Mapping]]] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., initialization_state_id: _Optional[str] = ..., parent_conversation_id: _Optional[str] = ..., root_conversation_id: _Optional[str] = ..., workspace_uris: _Optional[_Iterable[str]] = ..., mendel_experiment_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class CortexWorkspaceMetadata(_message.Message):
    __slots__ = ("workspace_folder_absolute_uri", "git_root_absolute_uri", "repository", "branch_name")
    WORKSPACE_FOLDER_ABSOLUTE_URI_FIELD_NUMBER: _ClassVar[int]
    GIT_ROOT_ABSOLUTE_URI_FIELD_NUMBER: _ClassVar[int]
    REPOSITORY_FIELD_NUMBER: _ClassVar[int]
    BRANCH_NAME_FIELD_NUMBER: _ClassVar[int]
    workspace_folder_absolute_uri: str
    git_root_absolute_uri: str
    repository: Repository
    branch_name: str
    def __init__(self, workspace_folder_absolute_uri: _Optional[str] = ..., git_root_absolute_uri: _Optional[str] = ..., repository: _Optional[_Union[Repository, _Mapping]] = ..., branch_name: _Optional[str] = ...) -> None: ...

class Repository(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CortexTrajectoryReference(_message.Message):
    __slots__ = ("trajectory_id", "step_index", "trajectory_type", "step_type", "reference_type")
    TRAJECTORY_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_TYPE_FIELD_NUMBER: _ClassVar[int]
    STEP_TYPE_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    trajectory_id: str
    step_index: int
    trajectory_type: CortexTrajectoryType
    step_type: CortexStepType
    reference_type: CortexTrajectoryReferenceType
    def __init__(self, trajectory_id: _Optional[str] = ..., step_index: _Optional[int] = ..., trajectory_type: _Optional[_Union[CortexTrajectoryType, str]] = ..., step_type: _Optional[_Union[CortexStepType, str]] = ..., reference_type: _Optional[_Union[CortexTrajectoryReferenceType, str]] = ...) -> None: ...

class Step(_message.Message):
    __slots__ = ("type", "status", "metadata", "subtrajectory", "error", "requested_interaction", "permissions", "completed_interactions", "task_details", "code_action", "grep_search", "view_file", "list_directory", "user_input", "planner_response", "error_message", "run_command", "checkpoint", "find", "command_status", "read_url_content", "search_web", "mcp_tool", "browser_subagent", "ephemeral_message", "generate_image", "conversation_history", "knowledge_artifacts", "system_message", "generic", "invoke_subagent", "ask_question")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    SUBTRAJECTORY_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_INTERACTION_FIELD_NUMBER: _ClassVar[int]
    PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_INTERACTIONS_FIELD_NUMBER: _ClassVar[int]
    TASK_DETAILS_FIELD_NUMBER: _ClassVar[int]
    CODE_ACTION_FIELD_NUMBER: _ClassVar[int]
    GREP_SEARCH_FIELD_NUMBER: _ClassVar[int]
    VIEW_FILE_FIELD_NUMBER: _ClassVar[int]
    LIST_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    USER_INPUT_FIELD_NUMBER: _ClassVar[int]
    PLANNER_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RUN_COMMAND_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_FIELD_NUMBER: _ClassVar[int]
    FIND_FIELD_NUMBER: _ClassVar[int]
    COMMAND_STATUS_FIELD_NUMBER: _ClassVar[int]
    READ_URL_CONTENT_FIELD_NUMBER: _ClassVar[int]
    SEARCH_WEB_FIELD_NUMBER: _ClassVar[int]
    MCP_TOOL_FIELD_NUMBER: _ClassVar[int]
    BROWSER_SUBAGENT_FIELD_NUMBER: _ClassVar[int]
    EPHEMERAL_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    GENERATE_IMAGE_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_HISTORY_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_ARTIFACTS_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    GENERIC_FIELD_NUMBER: _ClassVar[int]
    INVOKE_SUBAGENT_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_FIELD_NUMBER: _ClassVar[int]
    type: CortexStepType
    status: CortexStepStatus
    metadata: CortexStepMetadata
    subtrajectory: Trajectory
    error: CortexErrorDetails
    requested_interaction: RequestedInteraction
    permissions: TrajectoryPermissions
    completed_interactions: _containers.RepeatedCompositeFieldContainer[CompletedInteraction]
    task_details: TaskDetails
    code_action: CortexStepCodeAction
    grep_search: CortexStepGrepSearch
    view_file: CortexStepViewFile
    list_directory: CortexStepListDirectory
    user_input: CortexStepUserInput
    planner_response: CortexStepPlannerResponse
    error_message: CortexStepErrorMessage
    run_command: CortexStepRunCommand
    checkpoint: CortexStepCheckpoint
    find: CortexStepFind
    command_status: CortexStepCommandStatus
    read_url_content: CortexStepReadUrlContent
    search_web: CortexStepSearchWeb
    mcp_tool: CortexStepMcpTool
    browser_subagent: CortexStepBrowserSubagent
    ephemeral_message: CortexStepEphemeralMessage
    generate_image: CortexStepGenerateImage
    conversation_history: CortexStepConversationHistory
    knowledge_artifacts: CortexStepKnowledgeArtifacts
    system_message: CortexStepSystemMessage
    generic: CortexStepGeneric
    invoke_subagent: CortexStepInvokeSubagent
    ask_question: CortexStepAskQuestion
    def __init__(self, type: _Optional[_Union[CortexStepType, str]] = ..., status: _Optional[_Union[CortexStepStatus, str]] = ..., metadata: _Optional[_Union[CortexStepMetadata, _Mapping]] = ..., subtrajectory: _Optional[_Union[Trajectory, _Mapping]] = ..., error: _Optional[_Union[CortexErrorDetails, _Mapping]] = ..., requested_interaction: _Optional[_Union[RequestedInteraction, _Mapping]] = ..., permissions: _Optional[_Union[TrajectoryPermissions, _Mapping]] = ..., completed_interactions: _Optional[_Iterable[_Union[CompletedInteraction, _Mapping]]] = ..., task_details: _Optional[_Union[TaskDetails, _Mapping]] = ..., code_action: _Optional[_Union[CortexStepCodeAction, _Mapping]] = ..., grep_search: _Optional[_Union[CortexStepGrepSearch, _Mapping]] = ..., view_file: _Optional[_Union[CortexStepViewFile, _Mapping]] = ..., list_directory: _Optional[_Union[CortexStepListDirectory, _Mapping]] = ..., user_input: _Optional[_Union[CortexStepUserInput, _Mapping]] = ..., planner_response: _Optional[_Union[CortexStepPlannerResponse, _Mapping]] = ..., error_message: _Optional[_Union[CortexStepErrorMessage, _Mapping]] = ..., run_command: _Optional[_Union[CortexStepRunCommand, _Mapping]] = ..., checkpoint: _Optional[_Union[CortexStepCheckpoint, _Mapping]] = ..., find: _Optional[_Union[CortexStepFind, _Mapping]] = ..., command_status: _Optional[_Union[CortexStepCommandStatus, _Mapping]] = ..., read_url_content: _Optional[_Union[CortexStepReadUrlContent, _Mapping]] = ..., search_web: _Optional[_Union[CortexStepSearchWeb, _Mapping]] = ..., mcp_tool: _Optional[_Union[CortexStepMcpTool, _Mapping]] = ..., browser_subagent: _Optional[_Union[CortexStepBrowserSubagent, _Mapping]] = ..., ephemeral_message: _Optional[_Union[CortexStepEphemeralMessage, _Mapping]] = ..., generate_image: _Optional[_Union[CortexStepGenerateImage, _Mapping]] = ..., conversation_history: _Optional[_Union[CortexStepConversationHistory, _Mapping]] = ..., knowledge_artifacts: _Optional[_Union[CortexStepKnowledgeArtifacts, _Mapping]] = ..., system_message: _Optional[_Union[CortexStepSystemMessage, _Mapping]] = ..., generic: _Optional[_Union[CortexStepGeneric, _Mapping]] = ..., invoke_subagent: _Optional[_Union[CortexStepInvokeSubagent, _Mapping]] = ..., ask_question: _Optional[_Union[CortexStepAskQuestion, _Mapping]] = ...) -> None: ...

class TaskDetails(_message.Message):
    __slots__ = ("id", "log_uri", "description")
    ID_FIELD_NUMBER: _ClassVar[int]
    LOG_URI_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    id: str
    log_uri: str
    description: str
    def __init__(self, id: _Optional[str] = ..., log_uri: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class TrajectoryPermissions(_message.Message):
    __slots__ = ("file_access_permissions", "permission_grants")
    FILE_ACCESS_PERMISSIONS_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_GRANTS_FIELD_NUMBER: _ClassVar[int]
    file_access_permissions: _containers.RepeatedCompositeFieldContainer[FileAccessPermission]
    permission_grants: _containers.RepeatedCompositeFieldContainer[PermissionGrant]
    def __init__(self, file_access_permissions: _Optional[_Iterable[_Union[FileAccessPermission, _Mapping]]] = ..., permission_grants: _Optional[_Iterable[_Union[PermissionGrant, _Mapping]]] = ...) -> None: ...

class FileAccessPermission(_message.Message):
    __slots__ = ("path", "is_directory", "allow", "scope", "from_current_step")
    PATH_FIELD_NUMBER: _ClassVar[int]
    IS_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    FROM_CURRENT_STEP_FIELD_NUMBER: _ClassVar[int]
    path: str
    is_directory: bool
    allow: bool
    scope: PermissionScope
    from_current_step: bool
    def __init__(self, path: _Optional[str] = ..., is_directory: _Optional[bool] = ..., allow: _Optional[bool] = ..., scope: _Optional[_Union[PermissionScope, str]] = ..., from_current_step: _Optional[bool] = ...) -> None: ...

class PermissionGrant(_message.Message):
    __slots__ = ("resource", "allow", "scope")
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    resource: PermissionResource
    allow: bool
    scope: PermissionScope
    def __init__(self, resource: _Optional[_Union[PermissionResource, _Mapping]] = ..., allow: _Optional[bool] = ..., scope: _Optional[_Union[PermissionScope, str]] = ...) -> None: ...

class PermissionResource(_message.Message):
    __slots__ = ("action", "target")
    ACTION_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    action: str
    target: str
    def __init__(self, action: _Optional[str] = ..., target: _Optional[str] = ...) -> None: ...

class RequestedInteraction(_message.Message):
    __slots__ = ("permission", "ask_question")
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_FIELD_NUMBER: _ClassVar[int]
    permission: PermissionInteractionSpec
    ask_question: AskQuestionInteractionSpec
    def __init__(self, permission: _Optional[_Union[PermissionInteractionSpec, _Mapping]] = ..., ask_question: _Optional[_Union[AskQuestionInteractionSpec, _Mapping]] = ...) -> None: ...

class PermissionInteractionSpec(_message.Message):
    __slots__ = ("resource",)
    RESOURCE_FIELD_NUMBER: _ClassVar[int]
    resource: PermissionResource
    def __init__(self, resource: _Optional[_Union[PermissionResource, _Mapping]] = ...) -> None: ...

class AskQuestionInteractionSpec(_message.Message):
    __slots__ = ("questions",)
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    questions: _containers.RepeatedCompositeFieldContainer[AskQuestionEntry]
    def __init__(self, questions: _Optional[_Iterable[_Union[AskQuestionEntry, _Mapping]]] = ...) -> None: ...

class CompletedInteraction(_message.Message):
    __slots__ = ("request", "response")
    REQUEST_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    request: RequestedInteraction
    response: CascadeUserInteraction
    def __init__(self, request: _Optional[_Union[RequestedInteraction, _Mapping]] = ..., response: _Optional[_Union[CascadeUserInteraction, _Mapping]] = ...) -> None: ...

class CascadeUserInteraction(_message.Message):
    __slots__ = ("trajectory_id", "step_index", "permission", "ask_question")
    TRAJECTORY_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    PERMISSION_FIELD_NUMBER: _ClassVar[int]
    ASK_QUESTION_FIELD_NUMBER: _ClassVar[int]
    trajectory_id: str
    step_index: int
    permission: PermissionInteraction
    ask_question: AskQuestionInteraction
    def __init__(self, trajectory_id: _Optional[str] = ..., step_index: _Optional[int] = ..., permission: _Optional[_Union[PermissionInteraction, _Mapping]] = ..., ask_question: _Optional[_Union[AskQuestionInteraction, _Mapping]] = ...) -> None: ...

class PermissionInteraction(_message.Message):
    __slots__ = ("allow", "scope", "sandbox_override")
    ALLOW_FIELD_NUMBER: _ClassVar[int]
    SCOPE_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_OVERRIDE_FIELD_NUMBER: _ClassVar[int]
    allow: bool
    scope: PermissionScope
    sandbox_override: bool
    def __init__(self, allow: _Optional[bool] = ..., scope: _Optional[_Union[PermissionScope, str]] = ..., sandbox_override: _Optional[bool] = ...) -> None: ...

class AskQuestionInteraction(_message.Message):
    __slots__ = ("responses", "cancelled")
    RESPONSES_FIELD_NUMBER: _ClassVar[int]
    CANCELLED_FIELD_NUMBER: _ClassVar[int]
    responses: _containers.RepeatedCompositeFieldContainer[AskQuestionEntry]
    cancelled: bool
    def __init__(self, responses: _Optional[_Iterable[_Union[AskQuestionEntry, _Mapping]]] = ..., cancelled: _Optional[bool] = ...) -> None: ...

class CortexStepAskQuestion(_message.Message):
    __slots__ = ("questions",)
    QUESTIONS_FIELD_NUMBER: _ClassVar[int]
    questions: _containers.RepeatedCompositeFieldContainer[AskQuestionEntry]
    def __init__(self, questions: _Optional[_Iterable[_Union[AskQuestionEntry, _Mapping]]] = ...) -> None: ...

class AskQuestionEntry(_message.Message):
    __slots__ = ("question", "options", "is_multi_select", "selected_option_ids", "write_in_response", "skipped")
    QUESTION_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    IS_MULTI_SELECT_FIELD_NUMBER: _ClassVar[int]
    SELECTED_OPTION_IDS_FIELD_NUMBER: _ClassVar[int]
    WRITE_IN_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    question: str
    options: _containers.RepeatedCompositeFieldContainer[AskQuestionOption]
    is_multi_select: bool
    selected_option_ids: _containers.RepeatedScalarFieldContainer[str]
    write_in_response: str
    skipped: bool
    def __init__(self, question: _Optional[str] = ..., options: _Optional[_Iterable[_Union[AskQuestionOption, _Mapping]]] = ..., is_multi_select: _Optional[bool] = ..., selected_option_ids: _Optional[_Iterable[str]] = ..., write_in_response: _Optional[str] = ..., skipped: _Optional[bool] = ...) -> None: ...

class AskQuestionOption(_message.Message):
    __slots__ = ("id", "text")
    ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    id: str
    text: str
    def __init__(self, id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class CortexStepMetadata(_message.Message):
    __slots__ = ("created_at", "source", "tool_call", "arguments_order", "viewable_at", "finished_generating_at", "completed_at", "model_usage", "generator_model", "execution_id", "requested_model", "source_trajectory_step_info", "step_generation_version", "last_completed_chunk_at", "tool_call_output_tokens", "internal_metadata", "retry_infos", "wait_for_previous_tools", "modified_tool_call", "tool_summary", "tool_action", "started_at", "is_interrupting_step")
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_ORDER_FIELD_NUMBER: _ClassVar[int]
    VIEWABLE_AT_FIELD_NUMBER: _ClassVar[int]
    FINISHED_GENERATING_AT_FIELD_NUMBER: _ClassVar[int]
    COMPLETED_AT_FIELD_NUMBER: _ClassVar[int]
    MODEL_USAGE_FIELD_NUMBER: _ClassVar[int]
    GENERATOR_MODEL_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_ID_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    SOURCE_TRAJECTORY_STEP_INFO_FIELD_NUMBER: _ClassVar[int]
    STEP_GENERATION_VERSION_FIELD_NUMBER: _ClassVar[int]
    LAST_COMPLETED_CHUNK_AT_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    INTERNAL_METADATA_FIELD_NUMBER: _ClassVar[int]
    RETRY_INFOS_FIELD_NUMBER: _ClassVar[int]
    WAIT_FOR_PREVIOUS_TOOLS_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    TOOL_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    TOOL_ACTION_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    IS_INTERRUPTING_STEP_FIELD_NUMBER: _ClassVar[int]
    created_at: _timestamp_pb2.Timestamp
    source: CortexStepSource
    tool_call: ChatToolCall
    arguments_order: _containers.RepeatedScalarFieldContainer[str]
    viewable_at: _timestamp_pb2.Timestamp
    finished_generating_at: _timestamp_pb2.Timestamp
    completed_at: _timestamp_pb2.Timestamp
    model_usage: ModelUsageStats
    generator_model: Model
    execution_id: str
    requested_model: ModelOrAlias
    source_trajectory_step_info: SourceTrajectoryStepInfo
    step_generation_version: int
    last_completed_chunk_at: _timestamp_pb2.Timestamp
    tool_call_output_tokens: int
    internal_metadata: CortexStepInternalMetadata
    retry_infos: _containers.RepeatedCompositeFieldContainer[RetryInfo]
    wait_for_previous_tools: bool
    modified_tool_call: ChatToolCall
    tool_summary: str
    tool_action: str
    started_at: _timestamp_pb2.Timestamp
    is_interrupting_step: bool
    def __init__(self, created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., source: _Optional[_Union[CortexStepSource, str]] = ..., tool_call: _Optional[_Union[ChatToolCall, _Mapping]] = ..., arguments_order: _Optional[_Iterable[str]] = ..., viewable_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., finished_generating_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., completed_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., model_usage: _Optional[_Union[ModelUsageStats, _Mapping]] = ..., generator_model: _Optional[_Union[Model, str]] = ..., execution_id: _Optional[str] = ..., requested_model: _Optional[_Union[ModelOrAlias, _Mapping]] = ..., source_trajectory_step_info: _Optional[_Union[SourceTrajectoryStepInfo, _Mapping]] = ..., step_generation_version: _Optional[int] = ..., last_completed_chunk_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., tool_call_output_tokens: _Optional[int] = ..., internal_metadata: _Optional[_Union[CortexStepInternalMetadata, _Mapping]] = ..., retry_infos: _Optional[_Iterable[_Union[RetryInfo, _Mapping]]] = ..., wait_for_previous_tools: _Optional[bool] = ..., modified_tool_call: _Optional[_Union[ChatToolCall, _Mapping]] = ..., tool_summary: _Optional[str] = ..., tool_action: _Optional[str] = ..., started_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., is_interrupting_step: _Optional[bool] = ...) -> None: ...

class ModelOrAlias(_message.Message):
    __slots__ = ("model",)
    MODEL_FIELD_NUMBER: _ClassVar[int]
    model: Model
    def __init__(self, model: _Optional[_Union[Model, str]] = ...) -> None: ...

class ChatToolCall(_message.Message):
    __slots__ = ("id", "name", "arguments_json", "thinking_signature", "original_name")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    THINKING_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_NAME_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    arguments_json: str
    thinking_signature: bytes
    original_name: str
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., thinking_signature: _Optional[bytes] = ..., original_name: _Optional[str] = ...) -> None: ...

class ModelUsageStats(_message.Message):
    __slots__ = ("model", "input_tokens", "output_tokens", "cache_write_tokens", "cache_read_tokens", "api_provider", "message_id", "response_header", "thinking_output_tokens", "response_output_tokens", "response_id")
    class ResponseHeaderEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    MODEL_FIELD_NUMBER: _ClassVar[int]
    INPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_WRITE_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHE_READ_TOKENS_FIELD_NUMBER: _ClassVar[int]
    API_PROVIDER_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_HEADER_FIELD_NUMBER: _ClassVar[int]
    THINKING_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_ID_FIELD_NUMBER: _ClassVar[int]
    model: Model
    input_tokens: int
    output_tokens: int
    cache_write_tokens: int
    cache_read_tokens: int
    api_provider: APIProvider
    message_id: str
    response_header: _containers.ScalarMap[str, str]
    thinking_output_tokens: int
    response_output_tokens: int
    response_id: str
    def __init__(self, model: _Optional[_Union[Model, str]] = ..., input_tokens: _Optional[int] = ..., output_tokens: _Optional[int] = ..., cache_write_tokens: _Optional[int] = ..., cache_read_tokens: _Optional[int] = ..., api_provider: _Optional[_Union[APIProvider, str]] = ..., message_id: _Optional[str] = ..., response_header: _Optional[_Mapping[str, str]] = ..., thinking_output_tokens: _Optional[int] = ..., response_output_tokens: _Optional[int] = ..., response_id: _Optional[str] = ...) -> None: ...

class RetryInfo(_message.Message):
    __slots__ = ("usage", "error", "trace_id", "retry_reason")
    USAGE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    TRACE_ID_FIELD_NUMBER: _ClassVar[int]
    RETRY_REASON_FIELD_NUMBER: _ClassVar[int]
    usage: ModelUsageStats
    error: str
    trace_id: str
    retry_reason: RetryReason
    def __init__(self, usage: _Optional[_Union[ModelUsageStats, _Mapping]] = ..., error: _Optional[str] = ..., trace_id: _Optional[str] = ..., retry_reason: _Optional[_Union[RetryReason, str]] = ...) -> None: ...

class SourceTrajectoryStepInfo(_message.Message):
    __slots__ = ("trajectory_id", "step_index", "metadata_index", "cascade_id")
    TRAJECTORY_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    METADATA_INDEX_FIELD_NUMBER: _ClassVar[int]
    CASCADE_ID_FIELD_NUMBER: _ClassVar[int]
    trajectory_id: str
    step_index: int
    metadata_index: int
    cascade_id: str
    def __init__(self, trajectory_id: _Optional[str] = ..., step_index: _Optional[int] = ..., metadata_index: _Optional[int] = ..., cascade_id: _Optional[str] = ...) -> None: ...

class CortexStepInternalMetadata(_message.Message):
    __slots__ = ("status_transitions",)
    STATUS_TRANSITIONS_FIELD_NUMBER: _ClassVar[int]
    status_transitions: _containers.RepeatedCompositeFieldContainer[StatusTransition]
    def __init__(self, status_transitions: _Optional[_Iterable[_Union[StatusTransition, _Mapping]]] = ...) -> None: ...

class StatusTransition(_message.Message):
    __slots__ = ("updated_status", "timestamp")
    UPDATED_STATUS_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    updated_status: CortexStepStatus
    timestamp: _timestamp_pb2.Timestamp
    def __init__(self, updated_status: _Optional[_Union[CortexStepStatus, str]] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class CortexErrorDetails(_message.Message):
    __slots__ = ("user_error_message", "short_error", "full_error", "is_benign", "details", "error_id", "error_code", "structured_error_parts", "model_error_message", "rpc_error_details")
    USER_ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    SHORT_ERROR_FIELD_NUMBER: _ClassVar[int]
    FULL_ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_BENIGN_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    ERROR_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_CODE_FIELD_NUMBER: _ClassVar[int]
    STRUCTURED_ERROR_PARTS_FIELD_NUMBER: _ClassVar[int]
    MODEL_ERROR_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RPC_ERROR_DETAILS_FIELD_NUMBER: _ClassVar[int]
    user_error_message: str
    short_error: str
    full_error: str
    is_benign: bool
    details: str
    error_id: str
    error_code: int
    structured_error_parts: _containers.RepeatedCompositeFieldContainer[StructuredErrorPart]
    model_error_message: str
    rpc_error_details: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, user_error_message: _Optional[str] = ..., short_error: _Optional[str] = ..., full_error: _Optional[str] = ..., is_benign: _Optional[bool] = ..., details: _Optional[str] = ..., error_id: _Optional[str] = ..., error_code: _Optional[int] = ..., structured_error_parts: _Optional[_Iterable[_Union[StructuredErrorPart, _Mapping]]] = ..., model_error_message: _Optional[str] = ..., rpc_error_details: _Optional[_Iterable[str]] = ...) -> None: ...

class StructuredErrorPart(_message.Message):
    __slots__ = ("text", "file_uri", "directory_uri", "url", "code_text")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FILE_URI_FIELD_NUMBER: _ClassVar[int]
    DIRECTORY_URI_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    CODE_TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    file_uri: str
    directory_uri: str
    url: str
    code_text: str
    def __init__(self, text: _Optional[str] = ..., file_uri: _Optional[str] = ..., directory_uri: _Optional[str] = ..., url: _Optional[str] = ..., code_text: _Optional[str] = ...) -> None: ...

class CortexStepUserInput(_message.Message):
    __slots__ = ("query", "user_response", "items", "active_user_state", "artifact_comments", "media", "user_config", "last_user_config")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    USER_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    ITEMS_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_USER_STATE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_COMMENTS_FIELD_NUMBER: _ClassVar[int]
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    USER_CONFIG_FIELD_NUMBER: _ClassVar[int]
    LAST_USER_CONFIG_FIELD_NUMBER: _ClassVar[int]
    query: str
    user_response: str
    items: _containers.RepeatedCompositeFieldContainer[TextOrScopeItem]
    active_user_state: ContextModuleResult
    artifact_comments: _containers.RepeatedCompositeFieldContainer[ArtifactComment]
    media: _containers.RepeatedCompositeFieldContainer[Media]
    user_config: CascadeConfig
    last_user_config: CascadeConfig
    def __init__(self, query: _Optional[str] = ..., user_response: _Optional[str] = ..., items: _Optional[_Iterable[_Union[TextOrScopeItem, _Mapping]]] = ..., active_user_state: _Optional[_Union[ContextModuleResult, _Mapping]] = ..., artifact_comments: _Optional[_Iterable[_Union[ArtifactComment, _Mapping]]] = ..., media: _Optional[_Iterable[_Union[Media, _Mapping]]] = ..., user_config: _Optional[_Union[CascadeConfig, _Mapping]] = ..., last_user_config: _Optional[_Union[CascadeConfig, _Mapping]] = ...) -> None: ...

class ContextModuleResult(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ArtifactComment(_message.Message):
    __slots__ = ("artifact_uri", "comment", "full_file", "approval_status")
    ARTIFACT_URI_FIELD_NUMBER: _ClassVar[int]
    COMMENT_FIELD_NUMBER: _ClassVar[int]
    FULL_FILE_FIELD_NUMBER: _ClassVar[int]
    APPROVAL_STATUS_FIELD_NUMBER: _ClassVar[int]
    artifact_uri: str
    comment: str
    full_file: ArtifactFullFileTarget
    approval_status: ArtifactApprovalStatus
    def __init__(self, artifact_uri: _Optional[str] = ..., comment: _Optional[str] = ..., full_file: _Optional[_Union[ArtifactFullFileTarget, _Mapping]] = ..., approval_status: _Optional[_Union[ArtifactApprovalStatus, str]] = ...) -> None: ...

class ArtifactFullFileTarget(_message.Message):
    __slots__ = ("media",)
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    media: Media
    def __init__(self, media: _Optional[_Union[Media, _Mapping]] = ...) -> None: ...

class Media(_message.Message):
    __slots__ = ("mime_type", "inline_data", "description", "uri", "thumbnail")
    MIME_TYPE_FIELD_NUMBER: _ClassVar[int]
    INLINE_DATA_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    THUMBNAIL_FIELD_NUMBER: _ClassVar[int]
    mime_type: str
    inline_data: bytes
    description: str
    uri: str
    thumbnail: bytes
    def __init__(self, mime_type: _Optional[str] = ..., inline_data: _Optional[bytes] = ..., description: _Optional[str] = ..., uri: _Optional[str] = ..., thumbnail: _Optional[bytes] = ...) -> None: ...

class TextOrScopeItem(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class CortexStepPlannerResponse(_message.Message):
    __slots__ = ("response", "thinking", "message_id", "tool_calls", "modified_response", "thinking_duration", "stop_reason", "recitation_metadata", "thinking_signature")
    RESPONSE_FIELD_NUMBER: _ClassVar[int]
    THINKING_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_RESPONSE_FIELD_NUMBER: _ClassVar[int]
    THINKING_DURATION_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    RECITATION_METADATA_FIELD_NUMBER: _ClassVar[int]
    THINKING_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    response: str
    thinking: str
    message_id: str
    tool_calls: _containers.RepeatedCompositeFieldContainer[ChatToolCall]
    modified_response: str
    thinking_duration: _duration_pb2.Duration
    stop_reason: StopReason
    recitation_metadata: RecitationMetadata
    thinking_signature: bytes
    def __init__(self, response: _Optional[str] = ..., thinking: _Optional[str] = ..., message_id: _Optional[str] = ..., tool_calls: _Optional[_Iterable[_Union[ChatToolCall, _Mapping]]] = ..., modified_response: _Optional[str] = ..., thinking_duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., stop_reason: _Optional[_Union[StopReason, str]] = ..., recitation_metadata: _Optional[_Union[RecitationMetadata, _Mapping]] = ..., thinking_signature: _Optional[bytes] = ...) -> None: ...

class RecitationMetadata(_message.Message):
    __slots__ = ("recitations",)
    RECITATIONS_FIELD_NUMBER: _ClassVar[int]
    recitations: _containers.RepeatedCompositeFieldContainer[Recitation]
    def __init__(self, recitations: _Optional[_Iterable[_Union[Recitation, _Mapping]]] = ...) -> None: ...

class Recitation(_message.Message):
    __slots__ = ("citation", "content")
    CITATION_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    citation: Citation
    content: str
    def __init__(self, citation: _Optional[_Union[Citation, _Mapping]] = ..., content: _Optional[str] = ...) -> None: ...

class Citation(_message.Message):
    __slots__ = ("start_index", "end_index", "uri", "license")
    START_INDEX_FIELD_NUMBER: _ClassVar[int]
    END_INDEX_FIELD_NUMBER: _ClassVar[int]
    URI_FIELD_NUMBER: _ClassVar[int]
    LICENSE_FIELD_NUMBER: _ClassVar[int]
    start_index: int
    end_index: int
    uri: str
    license: str
    def __init__(self, start_index: _Optional[int] = ..., end_index: _Optional[int] = ..., uri: _Optional[str] = ..., license: _Optional[str] = ...) -> None: ...

class CortexStepViewFile(_message.Message):
    __slots__ = ("absolute_path_uri", "start_line", "end_line", "content", "num_lines", "num_bytes", "is_skill_file", "skill_metadata")
    ABSOLUTE_PATH_URI_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    NUM_LINES_FIELD_NUMBER: _ClassVar[int]
    NUM_BYTES_FIELD_NUMBER: _ClassVar[int]
    IS_SKILL_FILE_FIELD_NUMBER: _ClassVar[int]
    SKILL_METADATA_FIELD_NUMBER: _ClassVar[int]
    absolute_path_uri: str
    start_line: int
    end_line: int
    content: str
    num_lines: int
    num_bytes: int
    is_skill_file: bool
    skill_metadata: SkillMetadata
    def __init__(self, absolute_path_uri: _Optional[str] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., content: _Optional[str] = ..., num_lines: _Optional[int] = ..., num_bytes: _Optional[int] = ..., is_skill_file: _Optional[bool] = ..., skill_metadata: _Optional[_Union[SkillMetadata, _Mapping]] = ...) -> None: ...

class SkillMetadata(_message.Message):
    __slots__ = ("name", "description")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ...) -> None: ...

class CortexStepListDirectory(_message.Message):
    __slots__ = ("directory_path_uri", "results", "dir_not_found")
    DIRECTORY_PATH_URI_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    DIR_NOT_FOUND_FIELD_NUMBER: _ClassVar[int]
    directory_path_uri: str
    results: _containers.RepeatedCompositeFieldContainer[ListDirectoryResult]
    dir_not_found: bool
    def __init__(self, directory_path_uri: _Optional[str] = ..., results: _Optional[_Iterable[_Union[ListDirectoryResult, _Mapping]]] = ..., dir_not_found: _Optional[bool] = ...) -> None: ...

class ListDirectoryResult(_message.Message):
    __slots__ = ("name", "is_dir", "size_bytes")
    NAME_FIELD_NUMBER: _ClassVar[int]
    IS_DIR_FIELD_NUMBER: _ClassVar[int]
    SIZE_BYTES_FIELD_NUMBER: _ClassVar[int]
    name: str
    is_dir: bool
    size_bytes: int
    def __init__(self, name: _Optional[str] = ..., is_dir: _Optional[bool] = ..., size_bytes: _Optional[int] = ...) -> None: ...

class CortexStepCodeAction(_message.Message):
    __slots__ = ("action_spec", "action_result", "use_fast_apply", "replacement_infos", "target_file_has_carriage_returns", "target_file_has_all_carriage_returns", "is_artifact_file", "artifact_metadata", "description", "markdown_validation_error")
    ACTION_SPEC_FIELD_NUMBER: _ClassVar[int]
    ACTION_RESULT_FIELD_NUMBER: _ClassVar[int]
    USE_FAST_APPLY_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_INFOS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FILE_HAS_CARRIAGE_RETURNS_FIELD_NUMBER: _ClassVar[int]
    TARGET_FILE_HAS_ALL_CARRIAGE_RETURNS_FIELD_NUMBER: _ClassVar[int]
    IS_ARTIFACT_FILE_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_METADATA_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_VALIDATION_ERROR_FIELD_NUMBER: _ClassVar[int]
    action_spec: ActionSpec
    action_result: ActionResult
    use_fast_apply: bool
    replacement_infos: _containers.RepeatedCompositeFieldContainer[ReplacementChunkInfo]
    target_file_has_carriage_returns: bool
    target_file_has_all_carriage_returns: bool
    is_artifact_file: bool
    artifact_metadata: ArtifactMetadata
    description: str
    markdown_validation_error: str
    def __init__(self, action_spec: _Optional[_Union[ActionSpec, _Mapping]] = ..., action_result: _Optional[_Union[ActionResult, _Mapping]] = ..., use_fast_apply: _Optional[bool] = ..., replacement_infos: _Optional[_Iterable[_Union[ReplacementChunkInfo, _Mapping]]] = ..., target_file_has_carriage_returns: _Optional[bool] = ..., target_file_has_all_carriage_returns: _Optional[bool] = ..., is_artifact_file: _Optional[bool] = ..., artifact_metadata: _Optional[_Union[ArtifactMetadata, _Mapping]] = ..., description: _Optional[str] = ..., markdown_validation_error: _Optional[str] = ...) -> None: ...

class ActionSpec(_message.Message):
    __slots__ = ("command", "create_file")
    COMMAND_FIELD_NUMBER: _ClassVar[int]
    CREATE_FILE_FIELD_NUMBER: _ClassVar[int]
    command: ActionSpecCommand
    create_file: ActionSpecCreateFile
    def __init__(self, command: _Optional[_Union[ActionSpecCommand, _Mapping]] = ..., create_file: _Optional[_Union[ActionSpecCreateFile, _Mapping]] = ...) -> None: ...

class ActionSpecCommand(_message.Message):
    __slots__ = ("instruction", "is_edit", "file", "use_fast_apply", "replacement_chunks")
    INSTRUCTION_FIELD_NUMBER: _ClassVar[int]
    IS_EDIT_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    USE_FAST_APPLY_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_CHUNKS_FIELD_NUMBER: _ClassVar[int]
    instruction: str
    is_edit: bool
    file: PathScopeItem
    use_fast_apply: bool
    replacement_chunks: _containers.RepeatedCompositeFieldContainer[ReplacementChunk]
    def __init__(self, instruction: _Optional[str] = ..., is_edit: _Optional[bool] = ..., file: _Optional[_Union[PathScopeItem, _Mapping]] = ..., use_fast_apply: _Optional[bool] = ..., replacement_chunks: _Optional[_Iterable[_Union[ReplacementChunk, _Mapping]]] = ...) -> None: ...

class ActionSpecCreateFile(_message.Message):
    __slots__ = ("instruction", "path", "overwrite")
    INSTRUCTION_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OVERWRITE_FIELD_NUMBER: _ClassVar[int]
    instruction: str
    path: PathScopeItem
    overwrite: bool
    def __init__(self, instruction: _Optional[str] = ..., path: _Optional[_Union[PathScopeItem, _Mapping]] = ..., overwrite: _Optional[bool] = ...) -> None: ...

class PathScopeItem(_message.Message):
    __slots__ = ("absolute_uri", "workspace_uris_to_relative_paths")
    class WorkspaceUrisToRelativePathsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ABSOLUTE_URI_FIELD_NUMBER: _ClassVar[int]
    WORKSPACE_URIS_TO_RELATIVE_PATHS_FIELD_NUMBER: _ClassVar[int]
    absolute_uri: str
    workspace_uris_to_relative_paths: _containers.ScalarMap[str, str]
    def __init__(self, absolute_uri: _Optional[str] = ..., workspace_uris_to_relative_paths: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ReplacementChunk(_message.Message):
    __slots__ = ("target_content", "replacement_content", "allow_multiple", "target_has_carriage_return", "context_lines", "start_line", "end_line", "index")
    TARGET_CONTENT_FIELD_NUMBER: _ClassVar[int]
    REPLACEMENT_CONTENT_FIELD_NUMBER: _ClassVar[int]
    ALLOW_MULTIPLE_FIELD_NUMBER: _ClassVar[int]
    TARGET_HAS_CARRIAGE_RETURN_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_LINES_FIELD_NUMBER: _ClassVar[int]
    START_LINE_FIELD_NUMBER: _ClassVar[int]
    END_LINE_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    target_content: str
    replacement_content: str
    allow_multiple: bool
    target_has_carriage_return: bool
    context_lines: _containers.RepeatedScalarFieldContainer[str]
    start_line: int
    end_line: int
    index: int
    def __init__(self, target_content: _Optional[str] = ..., replacement_content: _Optional[str] = ..., allow_multiple: _Optional[bool] = ..., target_has_carriage_return: _Optional[bool] = ..., context_lines: _Optional[_Iterable[str]] = ..., start_line: _Optional[int] = ..., end_line: _Optional[int] = ..., index: _Optional[int] = ...) -> None: ...

class ReplacementChunkInfo(_message.Message):
    __slots__ = ("original_chunk", "fuzzy_match", "edit_distance", "rel_edit_distance", "num_matches", "error", "is_non_exact", "boundary_lines_match", "error_str", "fast_apply_fixable", "use_global_match", "repair_fixable", "repaired")
    ORIGINAL_CHUNK_FIELD_NUMBER: _ClassVar[int]
    FUZZY_MATCH_FIELD_NUMBER: _ClassVar[int]
    EDIT_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    REL_EDIT_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    NUM_MATCHES_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    IS_NON_EXACT_FIELD_NUMBER: _ClassVar[int]
    BOUNDARY_LINES_MATCH_FIELD_NUMBER: _ClassVar[int]
    ERROR_STR_FIELD_NUMBER: _ClassVar[int]
    FAST_APPLY_FIXABLE_FIELD_NUMBER: _ClassVar[int]
    USE_GLOBAL_MATCH_FIELD_NUMBER: _ClassVar[int]
    REPAIR_FIXABLE_FIELD_NUMBER: _ClassVar[int]
    REPAIRED_FIELD_NUMBER: _ClassVar[int]
    original_chunk: ReplacementChunk
    fuzzy_match: str
    edit_distance: int
    rel_edit_distance: float
    num_matches: int
    error: bool
    is_non_exact: bool
    boundary_lines_match: bool
    error_str: str
    fast_apply_fixable: bool
    use_global_match: bool
    repair_fixable: bool
    repaired: bool
    def __init__(self, original_chunk: _Optional[_Union[ReplacementChunk, _Mapping]] = ..., fuzzy_match: _Optional[str] = ..., edit_distance: _Optional[int] = ..., rel_edit_distance: _Optional[float] = ..., num_matches: _Optional[int] = ..., error: _Optional[bool] = ..., is_non_exact: _Optional[bool] = ..., boundary_lines_match: _Optional[bool] = ..., error_str: _Optional[str] = ..., fast_apply_fixable: _Optional[bool] = ..., use_global_match: _Optional[bool] = ..., repair_fixable: _Optional[bool] = ..., repaired: _Optional[bool] = ...) -> None: ...

class ArtifactMetadata(_message.Message):
    __slots__ = ("artifact_type", "summary", "created_at", "updated_at", "version", "request_feedback")
    ARTIFACT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    UPDATED_AT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    REQUEST_FEEDBACK_FIELD_NUMBER: _ClassVar[int]
    artifact_type: ArtifactType
    summary: str
    created_at: _timestamp_pb2.Timestamp
    updated_at: _timestamp_pb2.Timestamp
    version: int
    request_feedback: bool
    def __init__(self, artifact_type: _Optional[_Union[ArtifactType, str]] = ..., summary: _Optional[str] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., updated_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., version: _Optional[int] = ..., request_feedback: _Optional[bool] = ...) -> None: ...

class ActionResult(_message.Message):
    __slots__ = ("edit",)
    EDIT_FIELD_NUMBER: _ClassVar[int]
    edit: ActionResultEdit
    def __init__(self, edit: _Optional[_Union[ActionResultEdit, _Mapping]] = ...) -> None: ...

class ActionResultEdit(_message.Message):
    __slots__ = ("absolute_uri", "original_content", "create_file")
    ABSOLUTE_URI_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_CONTENT_FIELD_NUMBER: _ClassVar[int]
    CREATE_FILE_FIELD_NUMBER: _ClassVar[int]
    absolute_uri: str
    original_content: str
    create_file: bool
    def __init__(self, absolute_uri: _Optional[str] = ..., original_content: _Optional[str] = ..., create_file: _Optional[bool] = ...) -> None: ...

class CortexStepGrepSearch(_message.Message):
    __slots__ = ("query", "includes", "raw_output", "results", "total_results", "match_per_line", "case_insensitive", "command_run", "search_path_uri", "is_regex", "timed_out")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    INCLUDES_FIELD_NUMBER: _ClassVar[int]
    RAW_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_RESULTS_FIELD_NUMBER: _ClassVar[int]
    MATCH_PER_LINE_FIELD_NUMBER: _ClassVar[int]
    CASE_INSENSITIVE_FIELD_NUMBER: _ClassVar[int]
    COMMAND_RUN_FIELD_NUMBER: _ClassVar[int]
    SEARCH_PATH_URI_FIELD_NUMBER: _ClassVar[int]
    IS_REGEX_FIELD_NUMBER: _ClassVar[int]
    TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    query: str
    includes: _containers.RepeatedScalarFieldContainer[str]
    raw_output: str
    results: _containers.RepeatedCompositeFieldContainer[GrepSearchResult]
    total_results: int
    match_per_line: bool
    case_insensitive: bool
    command_run: str
    search_path_uri: str
    is_regex: bool
    timed_out: bool
    def __init__(self, query: _Optional[str] = ..., includes: _Optional[_Iterable[str]] = ..., raw_output: _Optional[str] = ..., results: _Optional[_Iterable[_Union[GrepSearchResult, _Mapping]]] = ..., total_results: _Optional[int] = ..., match_per_line: _Optional[bool] = ..., case_insensitive: _Optional[bool] = ..., command_run: _Optional[str] = ..., search_path_uri: _Optional[str] = ..., is_regex: _Optional[bool] = ..., timed_out: _Optional[bool] = ...) -> None: ...

class GrepSearchResult(_message.Message):
    __slots__ = ("relative_path", "line_number", "content", "absolute_path")
    RELATIVE_PATH_FIELD_NUMBER: _ClassVar[int]
    LINE_NUMBER_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ABSOLUTE_PATH_FIELD_NUMBER: _ClassVar[int]
    relative_path: str
    line_number: int
    content: str
    absolute_path: str
    def __init__(self, relative_path: _Optional[str] = ..., line_number: _Optional[int] = ..., content: _Optional[str] = ..., absolute_path: _Optional[str] = ...) -> None: ...

class CortexStepErrorMessage(_message.Message):
    __slots__ = ("error", "should_show_model", "should_show_user")
    ERROR_FIELD_NUMBER: _ClassVar[int]
    SHOULD_SHOW_MODEL_FIELD_NUMBER: _ClassVar[int]
    SHOULD_SHOW_USER_FIELD_NUMBER: _ClassVar[int]
    error: CortexErrorDetails
    should_show_model: bool
    should_show_user: bool
    def __init__(self, error: _Optional[_Union[CortexErrorDetails, _Mapping]] = ..., should_show_model: _Optional[bool] = ..., should_show_user: _Optional[bool] = ...) -> None: ...

class CortexStepRunCommand(_message.Message):
    __slots__ = ("cwd", "exit_code", "blocking", "wait_ms_before_async", "requested_terminal_id", "terminal_id", "combined_output", "command_line", "proposed_command_line", "combined_output_snapshot", "sandbox_override", "shell_name")
    CWD_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    BLOCKING_FIELD_NUMBER: _ClassVar[int]
    WAIT_MS_BEFORE_ASYNC_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_TERMINAL_ID_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_ID_FIELD_NUMBER: _ClassVar[int]
    COMBINED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    COMMAND_LINE_FIELD_NUMBER: _ClassVar[int]
    PROPOSED_COMMAND_LINE_FIELD_NUMBER: _ClassVar[int]
    COMBINED_OUTPUT_SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    SANDBOX_OVERRIDE_FIELD_NUMBER: _ClassVar[int]
    SHELL_NAME_FIELD_NUMBER: _ClassVar[int]
    cwd: str
    exit_code: int
    blocking: bool
    wait_ms_before_async: int
    requested_terminal_id: str
    terminal_id: str
    combined_output: RunCommandOutput
    command_line: str
    proposed_command_line: str
    combined_output_snapshot: RunCommandOutput
    sandbox_override: bool
    shell_name: str
    def __init__(self, cwd: _Optional[str] = ..., exit_code: _Optional[int] = ..., blocking: _Optional[bool] = ..., wait_ms_before_async: _Optional[int] = ..., requested_terminal_id: _Optional[str] = ..., terminal_id: _Optional[str] = ..., combined_output: _Optional[_Union[RunCommandOutput, _Mapping]] = ..., command_line: _Optional[str] = ..., proposed_command_line: _Optional[str] = ..., combined_output_snapshot: _Optional[_Union[RunCommandOutput, _Mapping]] = ..., sandbox_override: _Optional[bool] = ..., shell_name: _Optional[str] = ...) -> None: ...

class RunCommandOutput(_message.Message):
    __slots__ = ("full", "truncated", "num_lines_above")
    FULL_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    NUM_LINES_ABOVE_FIELD_NUMBER: _ClassVar[int]
    full: str
    truncated: str
    num_lines_above: int
    def __init__(self, full: _Optional[str] = ..., truncated: _Optional[str] = ..., num_lines_above: _Optional[int] = ...) -> None: ...

class CortexStepCheckpoint(_message.Message):
    __slots__ = ("checkpoint_index", "user_intent", "session_summary", "intent_only", "conversation_title", "included_step_index_start", "included_step_index_end", "conversation_log_uris", "model_summarization_failed", "used_fallback_summary", "artifact_snapshots", "trajectory_file_diffs", "user_requests")
    CHECKPOINT_INDEX_FIELD_NUMBER: _ClassVar[int]
    USER_INTENT_FIELD_NUMBER: _ClassVar[int]
    SESSION_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    INTENT_ONLY_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_TITLE_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_STEP_INDEX_START_FIELD_NUMBER: _ClassVar[int]
    INCLUDED_STEP_INDEX_END_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_LOG_URIS_FIELD_NUMBER: _ClassVar[int]
    MODEL_SUMMARIZATION_FAILED_FIELD_NUMBER: _ClassVar[int]
    USED_FALLBACK_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_SNAPSHOTS_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_FILE_DIFFS_FIELD_NUMBER: _ClassVar[int]
    USER_REQUESTS_FIELD_NUMBER: _ClassVar[int]
    checkpoint_index: int
    user_intent: str
    session_summary: str
    intent_only: bool
    conversation_title: str
    included_step_index_start: int
    included_step_index_end: int
    conversation_log_uris: _containers.RepeatedScalarFieldContainer[str]
    model_summarization_failed: bool
    used_fallback_summary: bool
    artifact_snapshots: _containers.RepeatedCompositeFieldContainer[ArtifactSnapshot]
    trajectory_file_diffs: _containers.RepeatedCompositeFieldContainer[TrajectoryFileDiff]
    user_requests: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, checkpoint_index: _Optional[int] = ..., user_intent: _Optional[str] = ..., session_summary: _Optional[str] = ..., intent_only: _Optional[bool] = ..., conversation_title: _Optional[str] = ..., included_step_index_start: _Optional[int] = ..., included_step_index_end: _Optional[int] = ..., conversation_log_uris: _Optional[_Iterable[str]] = ..., model_summarization_failed: _Optional[bool] = ..., used_fallback_summary: _Optional[bool] = ..., artifact_snapshots: _Optional[_Iterable[_Union[ArtifactSnapshot, _Mapping]]] = ..., trajectory_file_diffs: _Optional[_Iterable[_Union[TrajectoryFileDiff, _Mapping]]] = ..., user_requests: _Optional[_Iterable[str]] = ...) -> None: ...

class ArtifactSnapshot(_message.Message):
    __slots__ = ("artifact_name", "content", "artifact_absolute_uri", "last_edited", "review_state")
    ARTIFACT_NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ARTIFACT_ABSOLUTE_URI_FIELD_NUMBER: _ClassVar[int]
    LAST_EDITED_FIELD_NUMBER: _ClassVar[int]
    REVIEW_STATE_FIELD_NUMBER: _ClassVar[int]
    artifact_name: str
    content: str
    artifact_absolute_uri: str
    last_edited: _timestamp_pb2.Timestamp
    review_state: ArtifactReviewState
    def __init__(self, artifact_name: _Optional[str] = ..., content: _Optional[str] = ..., artifact_absolute_uri: _Optional[str] = ..., last_edited: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., review_state: _Optional[_Union[ArtifactReviewState, _Mapping]] = ...) -> None: ...

class ArtifactReviewState(_message.Message):
    __slots__ = ("artifact_uri", "status", "last_reviewed_time", "last_reviewed_content")
    ARTIFACT_URI_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    LAST_REVIEWED_TIME_FIELD_NUMBER: _ClassVar[int]
    LAST_REVIEWED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    artifact_uri: str
    status: ArtifactReviewStatus
    last_reviewed_time: _timestamp_pb2.Timestamp
    last_reviewed_content: str
    def __init__(self, artifact_uri: _Optional[str] = ..., status: _Optional[_Union[ArtifactReviewStatus, str]] = ..., last_reviewed_time: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., last_reviewed_content: _Optional[str] = ...) -> None: ...

class TrajectoryFileDiff(_message.Message):
    __slots__ = ("uri", "original_content", "modified_content", "is_artifact_file", "is_knowledge_file", "last_modified_at", "has_model_edited")
    URI_FIELD_NUMBER: _ClassVar[int]
    ORIGINAL_CONTENT_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    IS_ARTIFACT_FILE_FIELD_NUMBER: _ClassVar[int]
    IS_KNOWLEDGE_FILE_FIELD_NUMBER: _ClassVar[int]
    LAST_MODIFIED_AT_FIELD_NUMBER: _ClassVar[int]
    HAS_MODEL_EDITED_FIELD_NUMBER: _ClassVar[int]
    uri: str
    original_content: str
    modified_content: str
    is_artifact_file: bool
    is_knowledge_file: bool
    last_modified_at: _timestamp_pb2.Timestamp
    has_model_edited: bool
    def __init__(self, uri: _Optional[str] = ..., original_content: _Optional[str] = ..., modified_content: _Optional[str] = ..., is_artifact_file: _Optional[bool] = ..., is_knowledge_file: _Optional[bool] = ..., last_modified_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., has_model_edited: _Optional[bool] = ...) -> None: ...

class CortexStepFind(_message.Message):
    __slots__ = ("pattern", "includes", "excludes", "type", "max_depth", "total_results", "find_error", "command_run", "search_directory", "raw_output", "extensions", "full_path", "truncated_output", "truncated_total_results")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    INCLUDES_FIELD_NUMBER: _ClassVar[int]
    EXCLUDES_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    TOTAL_RESULTS_FIELD_NUMBER: _ClassVar[int]
    FIND_ERROR_FIELD_NUMBER: _ClassVar[int]
    COMMAND_RUN_FIELD_NUMBER: _ClassVar[int]
    SEARCH_DIRECTORY_FIELD_NUMBER: _ClassVar[int]
    RAW_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    EXTENSIONS_FIELD_NUMBER: _ClassVar[int]
    FULL_PATH_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_OUTPUT_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_TOTAL_RESULTS_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    includes: _containers.RepeatedScalarFieldContainer[str]
    excludes: _containers.RepeatedScalarFieldContainer[str]
    type: FindResultType
    max_depth: int
    total_results: int
    find_error: str
    command_run: str
    search_directory: str
    raw_output: str
    extensions: _containers.RepeatedScalarFieldContainer[str]
    full_path: bool
    truncated_output: str
    truncated_total_results: int
    def __init__(self, pattern: _Optional[str] = ..., includes: _Optional[_Iterable[str]] = ..., excludes: _Optional[_Iterable[str]] = ..., type: _Optional[_Union[FindResultType, str]] = ..., max_depth: _Optional[int] = ..., total_results: _Optional[int] = ..., find_error: _Optional[str] = ..., command_run: _Optional[str] = ..., search_directory: _Optional[str] = ..., raw_output: _Optional[str] = ..., extensions: _Optional[_Iterable[str]] = ..., full_path: _Optional[bool] = ..., truncated_output: _Optional[str] = ..., truncated_total_results: _Optional[int] = ...) -> None: ...

class CortexStepCommandStatus(_message.Message):
    __slots__ = ("command_id", "output_character_count", "wait_duration_seconds")
    COMMAND_ID_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_CHARACTER_COUNT_FIELD_NUMBER: _ClassVar[int]
    WAIT_DURATION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    command_id: str
    output_character_count: int
    wait_duration_seconds: int
    def __init__(self, command_id: _Optional[str] = ..., output_character_count: _Optional[int] = ..., wait_duration_seconds: _Optional[int] = ...) -> None: ...

class CortexStepReadUrlContent(_message.Message):
    __slots__ = ("url", "web_document", "resolved_url", "latency_ms", "user_rejected", "content_path")
    URL_FIELD_NUMBER: _ClassVar[int]
    WEB_DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_URL_FIELD_NUMBER: _ClassVar[int]
    LATENCY_MS_FIELD_NUMBER: _ClassVar[int]
    USER_REJECTED_FIELD_NUMBER: _ClassVar[int]
    CONTENT_PATH_FIELD_NUMBER: _ClassVar[int]
    url: str
    web_document: KnowledgeBaseItem
    resolved_url: str
    latency_ms: int
    user_rejected: bool
    content_path: str
    def __init__(self, url: _Optional[str] = ..., web_document: _Optional[_Union[KnowledgeBaseItem, _Mapping]] = ..., resolved_url: _Optional[str] = ..., latency_ms: _Optional[int] = ..., user_rejected: _Optional[bool] = ..., content_path: _Optional[str] = ...) -> None: ...

class KnowledgeBaseItem(_message.Message):
    __slots__ = ("document_id", "text", "url", "title", "timestamp", "chunks", "summary")
    DOCUMENT_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    URL_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    CHUNKS_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    document_id: str
    text: str
    url: str
    title: str
    timestamp: _timestamp_pb2.Timestamp
    chunks: _containers.RepeatedCompositeFieldContainer[KnowledgeBaseChunk]
    summary: str
    def __init__(self, document_id: _Optional[str] = ..., text: _Optional[str] = ..., url: _Optional[str] = ..., title: _Optional[str] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., chunks: _Optional[_Iterable[_Union[KnowledgeBaseChunk, _Mapping]]] = ..., summary: _Optional[str] = ...) -> None: ...

class KnowledgeBaseChunk(_message.Message):
    __slots__ = ("text", "markdown_chunk", "position")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_CHUNK_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    text: str
    markdown_chunk: MarkdownChunk
    position: int
    def __init__(self, text: _Optional[str] = ..., markdown_chunk: _Optional[_Union[MarkdownChunk, _Mapping]] = ..., position: _Optional[int] = ...) -> None: ...

class MarkdownChunk(_message.Message):
    __slots__ = ("text",)
    TEXT_FIELD_NUMBER: _ClassVar[int]
    text: str
    def __init__(self, text: _Optional[str] = ...) -> None: ...

class CortexStepSearchWeb(_message.Message):
    __slots__ = ("query", "domain", "web_search_url", "summary", "third_party_config", "search_type")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    WEB_SEARCH_URL_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    THIRD_PARTY_CONFIG_FIELD_NUMBER: _ClassVar[int]
    SEARCH_TYPE_FIELD_NUMBER: _ClassVar[int]
    query: str
    domain: str
    web_search_url: str
    summary: str
    third_party_config: ThirdPartyWebSearchConfig
    search_type: SearchWebType
    def __init__(self, query: _Optional[str] = ..., domain: _Optional[str] = ..., web_search_url: _Optional[str] = ..., summary: _Optional[str] = ..., third_party_config: _Optional[_Union[ThirdPartyWebSearchConfig, _Mapping]] = ..., search_type: _Optional[_Union[SearchWebType, str]] = ...) -> None: ...

class ThirdPartyWebSearchConfig(_message.Message):
    __slots__ = ("provider",)
    PROVIDER_FIELD_NUMBER: _ClassVar[int]
    provider: ThirdPartyWebSearchProvider
    def __init__(self, provider: _Optional[_Union[ThirdPartyWebSearchProvider, str]] = ...) -> None: ...

class CortexStepMcpTool(_message.Message):
    __slots__ = ("server_name", "tool_call", "user_rejected", "result_string", "result_uri")
    SERVER_NAME_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    USER_REJECTED_FIELD_NUMBER: _ClassVar[int]
    RESULT_STRING_FIELD_NUMBER: _ClassVar[int]
    RESULT_URI_FIELD_NUMBER: _ClassVar[int]
    server_name: str
    tool_call: ChatToolCall
    user_rejected: bool
    result_string: str
    result_uri: str
    def __init__(self, server_name: _Optional[str] = ..., tool_call: _Optional[_Union[ChatToolCall, _Mapping]] = ..., user_rejected: _Optional[bool] = ..., result_string: _Optional[str] = ..., result_uri: _Optional[str] = ...) -> None: ...

class CortexStepEphemeralMessage(_message.Message):
    __slots__ = ("content", "triggered_heuristics")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    TRIGGERED_HEURISTICS_FIELD_NUMBER: _ClassVar[int]
    content: str
    triggered_heuristics: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, content: _Optional[str] = ..., triggered_heuristics: _Optional[_Iterable[str]] = ...) -> None: ...

class CortexStepGenerateImage(_message.Message):
    __slots__ = ("prompt", "image_paths", "image_name", "model_name", "generated_media")
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_PATHS_FIELD_NUMBER: _ClassVar[int]
    IMAGE_NAME_FIELD_NUMBER: _ClassVar[int]
    MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
    GENERATED_MEDIA_FIELD_NUMBER: _ClassVar[int]
    prompt: str
    image_paths: _containers.RepeatedScalarFieldContainer[str]
    image_name: str
    model_name: str
    generated_media: Media
    def __init__(self, prompt: _Optional[str] = ..., image_paths: _Optional[_Iterable[str]] = ..., image_name: _Optional[str] = ..., model_name: _Optional[str] = ..., generated_media: _Optional[_Union[Media, _Mapping]] = ...) -> None: ...

class CortexStepConversationHistory(_message.Message):
    __slots__ = ("content",)
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    content: str
    def __init__(self, content: _Optional[str] = ...) -> None: ...

class CortexStepKnowledgeArtifacts(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class CortexStepSystemMessage(_message.Message):
    __slots__ = ("message", "render_info", "event_type", "agent_message")
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    RENDER_INFO_FIELD_NUMBER: _ClassVar[int]
    EVENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    AGENT_MESSAGE_FIELD_NUMBER: _ClassVar[int]
    message: str
    render_info: StepRenderInfo
    event_type: str
    agent_message: AgentMessage
    def __init__(self, message: _Optional[str] = ..., render_info: _Optional[_Union[StepRenderInfo, _Mapping]] = ..., event_type: _Optional[str] = ..., agent_message: _Optional[_Union[AgentMessage, _Mapping]] = ...) -> None: ...

class StepRenderInfo(_message.Message):
    __slots__ = ("title", "markdown", "hidden")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    MARKDOWN_FIELD_NUMBER: _ClassVar[int]
    HIDDEN_FIELD_NUMBER: _ClassVar[int]
    title: str
    markdown: str
    hidden: bool
    def __init__(self, title: _Optional[str] = ..., markdown: _Optional[str] = ..., hidden: _Optional[bool] = ...) -> None: ...

class AgentMessage(_message.Message):
    __slots__ = ("id", "recipient", "sender", "content", "priority", "timestamp", "step_payload", "render_details", "hide_from_user", "source_metadata")
    ID_FIELD_NUMBER: _ClassVar[int]
    RECIPIENT_FIELD_NUMBER: _ClassVar[int]
    SENDER_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    PRIORITY_FIELD_NUMBER: _ClassVar[int]
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    STEP_PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    RENDER_DETAILS_FIELD_NUMBER: _ClassVar[int]
    HIDE_FROM_USER_FIELD_NUMBER: _ClassVar[int]
    SOURCE_METADATA_FIELD_NUMBER: _ClassVar[int]
    id: str
    recipient: str
    sender: str
    content: str
    priority: MessagePriority
    timestamp: _timestamp_pb2.Timestamp
    step_payload: bytes
    render_details: MessageRenderDetails
    hide_from_user: bool
    source_metadata: SourceMetadata
    def __init__(self, id: _Optional[str] = ..., recipient: _Optional[str] = ..., sender: _Optional[str] = ..., content: _Optional[str] = ..., priority: _Optional[_Union[MessagePriority, str]] = ..., timestamp: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., step_payload: _Optional[bytes] = ..., render_details: _Optional[_Union[MessageRenderDetails, _Mapping]] = ..., hide_from_user: _Optional[bool] = ..., source_metadata: _Optional[_Union[SourceMetadata, _Mapping]] = ...) -> None: ...

class MessageRenderDetails(_message.Message):
    __slots__ = ("message_title",)
    MESSAGE_TITLE_FIELD_NUMBER: _ClassVar[int]
    message_title: str
    def __init__(self, message_title: _Optional[str] = ...) -> None: ...

class SourceMetadata(_message.Message):
    __slots__ = ("tool",)
    TOOL_FIELD_NUMBER: _ClassVar[int]
    tool: ToolSourceMetadata
    def __init__(self, tool: _Optional[_Union[ToolSourceMetadata, _Mapping]] = ...) -> None: ...

class ToolSourceMetadata(_message.Message):
    __slots__ = ("conversation_id", "step_index", "tool_call")
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_FIELD_NUMBER: _ClassVar[int]
    conversation_id: str
    step_index: int
    tool_call: ChatToolCall
    def __init__(self, conversation_id: _Optional[str] = ..., step_index: _Optional[int] = ..., tool_call: _Optional[_Union[ChatToolCall, _Mapping]] = ...) -> None: ...

class CortexStepGeneric(_message.Message):
    __slots__ = ("args", "result")
    class ArgsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    ARGS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    args: _containers.ScalarMap[str, str]
    result: GenericStepResult
    def __init__(self, args: _Optional[_Mapping[str, str]] = ..., result: _Optional[_Union[GenericStepResult, _Mapping]] = ...) -> None: ...

class GenericStepResult(_message.Message):
    __slots__ = ("result", "metadata", "step_render_info")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    RESULT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    STEP_RENDER_INFO_FIELD_NUMBER: _ClassVar[int]
    result: str
    metadata: _containers.ScalarMap[str, str]
    step_render_info: StepRenderInfo
    def __init__(self, result: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., step_render_info: _Optional[_Union[StepRenderInfo, _Mapping]] = ...) -> None: ...

class CortexStepBrowserSubagent(_message.Message):
    __slots__ = ("task", "result", "task_name", "recording_path", "recording_name", "subagent_id", "reused_subagent_id", "skipped", "scratchpad_path", "task_summary")
    TASK_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    TASK_NAME_FIELD_NUMBER: _ClassVar[int]
    RECORDING_PATH_FIELD_NUMBER: _ClassVar[int]
    RECORDING_NAME_FIELD_NUMBER: _ClassVar[int]
    SUBAGENT_ID_FIELD_NUMBER: _ClassVar[int]
    REUSED_SUBAGENT_ID_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    SCRATCHPAD_PATH_FIELD_NUMBER: _ClassVar[int]
    TASK_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    task: str
    result: str
    task_name: str
    recording_path: str
    recording_name: str
    subagent_id: str
    reused_subagent_id: str
    skipped: bool
    scratchpad_path: str
    task_summary: str
    def __init__(self, task: _Optional[str] = ..., result: _Optional[str] = ..., task_name: _Optional[str] = ..., recording_path: _Optional[str] = ..., recording_name: _Optional[str] = ..., subagent_id: _Optional[str] = ..., reused_subagent_id: _Optional[str] = ..., skipped: _Optional[bool] = ..., scratchpad_path: _Optional[str] = ..., task_summary: _Optional[str] = ...) -> None: ...

class CortexStepInvokeSubagent(_message.Message):
    __slots__ = ("subagent_name", "prompt", "result", "conversation_id", "log_absolute_uri")
    SUBAGENT_NAME_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_ID_FIELD_NUMBER: _ClassVar[int]
    LOG_ABSOLUTE_URI_FIELD_NUMBER: _ClassVar[int]
    subagent_name: str
    prompt: str
    result: str
    conversation_id: str
    log_absolute_uri: str
    def __init__(self, subagent_name: _Optional[str] = ..., prompt: _Optional[str] = ..., result: _Optional[str] = ..., conversation_id: _Optional[str] = ..., log_absolute_uri: _Optional[str] = ...) -> None: ...

class CortexStepGeneratorMetadata(_message.Message):
    __slots__ = ("chat_model", "injected", "step_indices", "planner_config", "execution_id", "error", "mendel_experiment_ids")
    CHAT_MODEL_FIELD_NUMBER: _ClassVar[int]
    INJECTED_FIELD_NUMBER: _ClassVar[int]
    STEP_INDICES_FIELD_NUMBER: _ClassVar[int]
    PLANNER_CONFIG_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_ID_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    MENDEL_EXPERIMENT_IDS_FIELD_NUMBER: _ClassVar[int]
    chat_model: ChatModelMetadata
    injected: InjectedResponseMetadata
    step_indices: _containers.RepeatedScalarFieldContainer[int]
    planner_config: CascadePlannerConfig
    execution_id: str
    error: str
    mendel_experiment_ids: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, chat_model: _Optional[_Union[ChatModelMetadata, _Mapping]] = ..., injected: _Optional[_Union[InjectedResponseMetadata, _Mapping]] = ..., step_indices: _Optional[_Iterable[int]] = ..., planner_config: _Optional[_Union[CascadePlannerConfig, _Mapping]] = ..., execution_id: _Optional[str] = ..., error: _Optional[str] = ..., mendel_experiment_ids: _Optional[_Iterable[int]] = ...) -> None: ...

class InjectedResponseMetadata(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ChatModelMetadata(_message.Message):
    __slots__ = ("system_prompt", "message_prompts", "tool_choice", "tools", "prompt_sections", "model", "usage", "last_cache_index", "chat_start_metadata", "time_to_first_token", "streaming_duration", "retries", "message_metadata", "retry_infos", "response_model", "attributes", "display_name", "completion_config")
    SYSTEM_PROMPT_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_PROMPTS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CHOICE_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_SECTIONS_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    LAST_CACHE_INDEX_FIELD_NUMBER: _ClassVar[int]
    CHAT_START_METADATA_FIELD_NUMBER: _ClassVar[int]
    TIME_TO_FIRST_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STREAMING_DURATION_FIELD_NUMBER: _ClassVar[int]
    RETRIES_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_METADATA_FIELD_NUMBER: _ClassVar[int]
    RETRY_INFOS_FIELD_NUMBER: _ClassVar[int]
    RESPONSE_MODEL_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_CONFIG_FIELD_NUMBER: _ClassVar[int]
    system_prompt: str
    message_prompts: _containers.RepeatedCompositeFieldContainer[ChatMessagePrompt]
    tool_choice: ChatToolChoice
    tools: _containers.RepeatedCompositeFieldContainer[ChatToolDefinition]
    prompt_sections: _containers.RepeatedCompositeFieldContainer[PromptSection]
    model: Model
    usage: ModelUsageStats
    last_cache_index: int
    chat_start_metadata: ChatStartMetadata
    time_to_first_token: _duration_pb2.Duration
    streaming_duration: _duration_pb2.Duration
    retries: int
    message_metadata: _containers.RepeatedCompositeFieldContainer[MessagePromptMetadata]
    retry_infos: _containers.RepeatedCompositeFieldContainer[RetryInfo]
    response_model: str
    attributes: _containers.RepeatedCompositeFieldContainer[ModelAttribute]
    display_name: str
    completion_config: CompletionConfiguration
    def __init__(self, system_prompt: _Optional[str] = ..., message_prompts: _Optional[_Iterable[_Union[ChatMessagePrompt, _Mapping]]] = ..., tool_choice: _Optional[_Union[ChatToolChoice, _Mapping]] = ..., tools: _Optional[_Iterable[_Union[ChatToolDefinition, _Mapping]]] = ..., prompt_sections: _Optional[_Iterable[_Union[PromptSection, _Mapping]]] = ..., model: _Optional[_Union[Model, str]] = ..., usage: _Optional[_Union[ModelUsageStats, _Mapping]] = ..., last_cache_index: _Optional[int] = ..., chat_start_metadata: _Optional[_Union[ChatStartMetadata, _Mapping]] = ..., time_to_first_token: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., streaming_duration: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., retries: _Optional[int] = ..., message_metadata: _Optional[_Iterable[_Union[MessagePromptMetadata, _Mapping]]] = ..., retry_infos: _Optional[_Iterable[_Union[RetryInfo, _Mapping]]] = ..., response_model: _Optional[str] = ..., attributes: _Optional[_Iterable[_Union[ModelAttribute, _Mapping]]] = ..., display_name: _Optional[str] = ..., completion_config: _Optional[_Union[CompletionConfiguration, _Mapping]] = ...) -> None: ...

class CompletionConfiguration(_message.Message):
    __slots__ = ("num_completions", "max_tokens", "max_newlines", "temperature", "first_temperature", "top_k", "top_p", "stop_patterns", "fim_eot_prob_threshold")
    NUM_COMPLETIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_NEWLINES_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    STOP_PATTERNS_FIELD_NUMBER: _ClassVar[int]
    FIM_EOT_PROB_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    num_completions: int
    max_tokens: int
    max_newlines: int
    temperature: float
    first_temperature: float
    top_k: int
    top_p: float
    stop_patterns: _containers.RepeatedScalarFieldContainer[str]
    fim_eot_prob_threshold: float
    def __init__(self, num_completions: _Optional[int] = ..., max_tokens: _Optional[int] = ..., max_newlines: _Optional[int] = ..., temperature: _Optional[float] = ..., first_temperature: _Optional[float] = ..., top_k: _Optional[int] = ..., top_p: _Optional[float] = ..., stop_patterns: _Optional[_Iterable[str]] = ..., fim_eot_prob_threshold: _Optional[float] = ...) -> None: ...

class MessagePromptMetadata(_message.Message):
    __slots__ = ("message_index", "segment_index")
    MESSAGE_INDEX_FIELD_NUMBER: _ClassVar[int]
    SEGMENT_INDEX_FIELD_NUMBER: _ClassVar[int]
    message_index: int
    segment_index: int
    def __init__(self, message_index: _Optional[int] = ..., segment_index: _Optional[int] = ...) -> None: ...

class ChatMessagePrompt(_message.Message):
    __slots__ = ("message_id", "source", "prompt", "num_tokens", "safe_for_code_telemetry", "tool_calls", "tool_call_id", "prompt_cache_options", "tool_result_is_error", "thinking", "raw_thinking", "signature", "thinking_signature", "thinking_redacted", "step_idx", "media", "provider_assigned_message_id")
    MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    NUM_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SAFE_FOR_CODE_TELEMETRY_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALLS_FIELD_NUMBER: _ClassVar[int]
    TOOL_CALL_ID_FIELD_NUMBER: _ClassVar[int]
    PROMPT_CACHE_OPTIONS_FIELD_NUMBER: _ClassVar[int]
    TOOL_RESULT_IS_ERROR_FIELD_NUMBER: _ClassVar[int]
    THINKING_FIELD_NUMBER: _ClassVar[int]
    RAW_THINKING_FIELD_NUMBER: _ClassVar[int]
    SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    THINKING_SIGNATURE_FIELD_NUMBER: _ClassVar[int]
    THINKING_REDACTED_FIELD_NUMBER: _ClassVar[int]
    STEP_IDX_FIELD_NUMBER: _ClassVar[int]
    MEDIA_FIELD_NUMBER: _ClassVar[int]
    PROVIDER_ASSIGNED_MESSAGE_ID_FIELD_NUMBER: _ClassVar[int]
    message_id: str
    source: ChatMessageSource
    prompt: str
    num_tokens: int
    safe_for_code_telemetry: bool
    tool_calls: _containers.RepeatedCompositeFieldContainer[ChatToolCall]
    tool_call_id: str
    prompt_cache_options: PromptCacheOptions
    tool_result_is_error: bool
    thinking: str
    raw_thinking: str
    signature: str
    thinking_signature: bytes
    thinking_redacted: bool
    step_idx: int
    media: _containers.RepeatedCompositeFieldContainer[Media]
    provider_assigned_message_id: str
    def __init__(self, message_id: _Optional[str] = ..., source: _Optional[_Union[ChatMessageSource, str]] = ..., prompt: _Optional[str] = ..., num_tokens: _Optional[int] = ..., safe_for_code_telemetry: _Optional[bool] = ..., tool_calls: _Optional[_Iterable[_Union[ChatToolCall, _Mapping]]] = ..., tool_call_id: _Optional[str] = ..., prompt_cache_options: _Optional[_Union[PromptCacheOptions, _Mapping]] = ..., tool_result_is_error: _Optional[bool] = ..., thinking: _Optional[str] = ..., raw_thinking: _Optional[str] = ..., signature: _Optional[str] = ..., thinking_signature: _Optional[bytes] = ..., thinking_redacted: _Optional[bool] = ..., step_idx: _Optional[int] = ..., media: _Optional[_Iterable[_Union[Media, _Mapping]]] = ..., provider_assigned_message_id: _Optional[str] = ...) -> None: ...

class ChatToolChoice(_message.Message):
    __slots__ = ("option_name", "tool_name")
    OPTION_NAME_FIELD_NUMBER: _ClassVar[int]
    TOOL_NAME_FIELD_NUMBER: _ClassVar[int]
    option_name: str
    tool_name: str
    def __init__(self, option_name: _Optional[str] = ..., tool_name: _Optional[str] = ...) -> None: ...

class ChatToolDefinition(_message.Message):
    __slots__ = ("name", "description", "json_schema_string", "strict", "attribution_field_names", "server_name")
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    JSON_SCHEMA_STRING_FIELD_NUMBER: _ClassVar[int]
    STRICT_FIELD_NUMBER: _ClassVar[int]
    ATTRIBUTION_FIELD_NAMES_FIELD_NUMBER: _ClassVar[int]
    SERVER_NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    description: str
    json_schema_string: str
    strict: bool
    attribution_field_names: _containers.RepeatedScalarFieldContainer[str]
    server_name: str
    def __init__(self, name: _Optional[str] = ..., description: _Optional[str] = ..., json_schema_string: _Optional[str] = ..., strict: _Optional[bool] = ..., attribution_field_names: _Optional[_Iterable[str]] = ..., server_name: _Optional[str] = ...) -> None: ...

class PromptSection(_message.Message):
    __slots__ = ("title", "content", "metadata", "dynamic_content", "token_type", "token_source", "templated_content", "templated_dynamic_content")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    DYNAMIC_CONTENT_FIELD_NUMBER: _ClassVar[int]
    TOKEN_TYPE_FIELD_NUMBER: _ClassVar[int]
    TOKEN_SOURCE_FIELD_NUMBER: _ClassVar[int]
    TEMPLATED_CONTENT_FIELD_NUMBER: _ClassVar[int]
    TEMPLATED_DYNAMIC_CONTENT_FIELD_NUMBER: _ClassVar[int]
    title: str
    content: str
    metadata: PromptSectionMetadata
    dynamic_content: str
    token_type: TokenType
    token_source: TokenSource
    templated_content: str
    templated_dynamic_content: str
    def __init__(self, title: _Optional[str] = ..., content: _Optional[str] = ..., metadata: _Optional[_Union[PromptSectionMetadata, _Mapping]] = ..., dynamic_content: _Optional[str] = ..., token_type: _Optional[_Union[TokenType, str]] = ..., token_source: _Optional[_Union[TokenSource, str]] = ..., templated_content: _Optional[str] = ..., templated_dynamic_content: _Optional[str] = ...) -> None: ...

class PromptSectionMetadata(_message.Message):
    __slots__ = ("source_type", "template_key", "is_internal")
    class PromptSectionSourceType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
        __slots__ = ()
        PROMPT_SECTION_SOURCE_TYPE_UNSPECIFIED: _ClassVar[PromptSectionMetadata.PromptSectionSourceType]
        PROMPT_SECTION_SOURCE_TYPE_RAW: _ClassVar[PromptSectionMetadata.PromptSectionSourceType]
        PROMPT_SECTION_SOURCE_TYPE_TEMPLATE: _ClassVar[PromptSectionMetadata.PromptSectionSourceType]
        PROMPT_SECTION_SOURCE_TYPE_INLINE_TEMPLATE: _ClassVar[PromptSectionMetadata.PromptSectionSourceType]
    PROMPT_SECTION_SOURCE_TYPE_UNSPECIFIED: PromptSectionMetadata.PromptSectionSourceType
    PROMPT_SECTION_SOURCE_TYPE_RAW: PromptSectionMetadata.PromptSectionSourceType
    PROMPT_SECTION_SOURCE_TYPE_TEMPLATE: PromptSectionMetadata.PromptSectionSourceType
    PROMPT_SECTION_SOURCE_TYPE_INLINE_TEMPLATE: PromptSectionMetadata.PromptSectionSourceType
    SOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    TEMPLATE_KEY_FIELD_NUMBER: _ClassVar[int]
    IS_INTERNAL_FIELD_NUMBER: _ClassVar[int]
    source_type: PromptSectionMetadata.PromptSectionSourceType
    template_key: str
    is_internal: bool
    def __init__(self, source_type: _Optional[_Union[PromptSectionMetadata.PromptSectionSourceType, str]] = ..., template_key: _Optional[str] = ..., is_internal: _Optional[bool] = ...) -> None: ...

class ModelAttribute(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class ChatStartMetadata(_message.Message):
    __slots__ = ("start_step_index", "checkpoint_index", "created_at", "latest_stable_message_index", "cache_breakpoints", "system_prompt_cache", "time_since_last_invocation", "context_window_metadata")
    START_STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    CHECKPOINT_INDEX_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    LATEST_STABLE_MESSAGE_INDEX_FIELD_NUMBER: _ClassVar[int]
    CACHE_BREAKPOINTS_FIELD_NUMBER: _ClassVar[int]
    SYSTEM_PROMPT_CACHE_FIELD_NUMBER: _ClassVar[int]
    TIME_SINCE_LAST_INVOCATION_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_WINDOW_METADATA_FIELD_NUMBER: _ClassVar[int]
    start_step_index: int
    checkpoint_index: int
    created_at: _timestamp_pb2.Timestamp
    latest_stable_message_index: int
    cache_breakpoints: _containers.RepeatedCompositeFieldContainer[CacheBreakpointMetadata]
    system_prompt_cache: CacheBreakpointMetadata
    time_since_last_invocation: _duration_pb2.Duration
    context_window_metadata: ContextWindowMetadata
    def __init__(self, start_step_index: _Optional[int] = ..., checkpoint_index: _Optional[int] = ..., created_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., latest_stable_message_index: _Optional[int] = ..., cache_breakpoints: _Optional[_Iterable[_Union[CacheBreakpointMetadata, _Mapping]]] = ..., system_prompt_cache: _Optional[_Union[CacheBreakpointMetadata, _Mapping]] = ..., time_since_last_invocation: _Optional[_Union[datetime.timedelta, _duration_pb2.Duration, _Mapping]] = ..., context_window_metadata: _Optional[_Union[ContextWindowMetadata, _Mapping]] = ...) -> None: ...

class CacheBreakpointMetadata(_message.Message):
    __slots__ = ("index", "options", "content_checksum")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_CHECKSUM_FIELD_NUMBER: _ClassVar[int]
    index: int
    options: PromptCacheOptions
    content_checksum: str
    def __init__(self, index: _Optional[int] = ..., options: _Optional[_Union[PromptCacheOptions, _Mapping]] = ..., content_checksum: _Optional[str] = ...) -> None: ...

class PromptCacheOptions(_message.Message):
    __slots__ = ("type",)
    TYPE_FIELD_NUMBER: _ClassVar[int]
    type: CacheControlType
    def __init__(self, type: _Optional[_Union[CacheControlType, str]] = ...) -> None: ...

class ContextWindowMetadata(_message.Message):
    __slots__ = ("estimated_tokens_used", "truncation_reason", "token_breakdown")
    ESTIMATED_TOKENS_USED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_REASON_FIELD_NUMBER: _ClassVar[int]
    TOKEN_BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    estimated_tokens_used: int
    truncation_reason: TruncationReason
    token_breakdown: TokenBreakdown
    def __init__(self, estimated_tokens_used: _Optional[int] = ..., truncation_reason: _Optional[_Union[TruncationReason, str]] = ..., token_breakdown: _Optional[_Union[TokenBreakdown, _Mapping]] = ...) -> None: ...

class TokenBreakdown(_message.Message):
    __slots__ = ("groups", "total_tokens")
    GROUPS_FIELD_NUMBER: _ClassVar[int]
    TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    groups: _containers.RepeatedCompositeFieldContainer[TopLevelTokenGroup]
    total_tokens: int
    def __init__(self, groups: _Optional[_Iterable[_Union[TopLevelTokenGroup, _Mapping]]] = ..., total_tokens: _Optional[int] = ...) -> None: ...

class TopLevelTokenGroup(_message.Message):
    __slots__ = ("name", "type", "source", "num_tokens")
    NAME_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    NUM_TOKENS_FIELD_NUMBER: _ClassVar[int]
    name: str
    type: TokenType
    source: TokenSource
    num_tokens: int
    def __init__(self, name: _Optional[str] = ..., type: _Optional[_Union[TokenType, str]] = ..., source: _Optional[_Union[TokenSource, str]] = ..., num_tokens: _Optional[int] = ...) -> None: ...

class CascadePlannerConfig(_message.Message):
    __slots__ = ("plan_model", "conversational", "max_output_tokens", "no_tool_explanation", "requested_model", "model_name", "knowledge_config", "no_tool_summary", "no_wait_for_previous_tools", "customization_config")
    PLAN_MODEL_FIELD_NUMBER: _ClassVar[int]
    CONVERSATIONAL_FIELD_NUMBER: _ClassVar[int]
    MAX_OUTPUT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    NO_TOOL_EXPLANATION_FIELD_NUMBER: _ClassVar[int]
    REQUESTED_MODEL_FIELD_NUMBER: _ClassVar[int]
    MODEL_NAME_FIELD_NUMBER: _ClassVar[int]
    KNOWLEDGE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    NO_TOOL_SUMMARY_FIELD_NUMBER: _ClassVar[int]
    NO_WAIT_FOR_PREVIOUS_TOOLS_FIELD_NUMBER: _ClassVar[int]
    CUSTOMIZATION_CONFIG_FIELD_NUMBER: _ClassVar[int]
    plan_model: Model
    conversational: CascadeConversationalPlannerConfig
    max_output_tokens: int
    no_tool_explanation: bool
    requested_model: ModelOrAlias
    model_name: str
    knowledge_config: KnowledgeConfig
    no_tool_summary: bool
    no_wait_for_previous_tools: bool
    customization_config: CustomizationConfig
    def __init__(self, plan_model: _Optional[_Union[Model, str]] = ..., conversational: _Optional[_Union[CascadeConversationalPlannerConfig, _Mapping]] = ..., max_output_tokens: _Optional[int] = ..., no_tool_explanation: _Optional[bool] = ..., requested_model: _Optional[_Union[ModelOrAlias, _Mapping]] = ..., model_name: _Optional[str] = ..., knowledge_config: _Optional[_Union[KnowledgeConfig, _Mapping]] = ..., no_tool_summary: _Optional[bool] = ..., no_wait_for_previous_tools: _Optional[bool] = ..., customization_config: _Optional[_Union[CustomizationConfig, _Mapping]] = ...) -> None: ...

class CascadeConversationalPlannerConfig(_message.Message):
    __slots__ = ("planner_mode", "eval_mode", "agentic_mode", "prompt_combination_name", "conversation_history_config")
    PLANNER_MODE_FIELD_NUMBER: _ClassVar[int]
    EVAL_MODE_FIELD_NUMBER: _ClassVar[int]
    AGENTIC_MODE_FIELD_NUMBER: _ClassVar[int]
    PROMPT_COMBINATION_NAME_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_HISTORY_CONFIG_FIELD_NUMBER: _ClassVar[int]
    planner_mode: ConversationalPlannerMode
    eval_mode: bool
    agentic_mode: bool
    prompt_combination_name: str
    conversation_history_config: ConversationHistoryConfig
    def __init__(self, planner_mode: _Optional[_Union[ConversationalPlannerMode, str]] = ..., eval_mode: _Optional[bool] = ..., agentic_mode: _Optional[bool] = ..., prompt_combination_name: _Optional[str] = ..., conversation_history_config: _Optional[_Union[ConversationHistoryConfig, _Mapping]] = ...) -> None: ...

class KnowledgeConfig(_message.Message):
    __slots__ = ("enabled", "model", "max_context_tokens", "max_invocations", "min_turns_between_knowledge_generation", "max_knowledge_items", "max_artifacts_per_ki", "max_title_length", "max_summary_length", "enable_ki_insertion")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MAX_CONTEXT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    MAX_INVOCATIONS_FIELD_NUMBER: _ClassVar[int]
    MIN_TURNS_BETWEEN_KNOWLEDGE_GENERATION_FIELD_NUMBER: _ClassVar[int]
    MAX_KNOWLEDGE_ITEMS_FIELD_NUMBER: _ClassVar[int]
    MAX_ARTIFACTS_PER_KI_FIELD_NUMBER: _ClassVar[int]
    MAX_TITLE_LENGTH_FIELD_NUMBER: _ClassVar[int]
    MAX_SUMMARY_LENGTH_FIELD_NUMBER: _ClassVar[int]
    ENABLE_KI_INSERTION_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    model: Model
    max_context_tokens: int
    max_invocations: int
    min_turns_between_knowledge_generation: int
    max_knowledge_items: int
    max_artifacts_per_ki: int
    max_title_length: int
    max_summary_length: int
    enable_ki_insertion: bool
    def __init__(self, enabled: _Optional[bool] = ..., model: _Optional[_Union[Model, str]] = ..., max_context_tokens: _Optional[int] = ..., max_invocations: _Optional[int] = ..., min_turns_between_knowledge_generation: _Optional[int] = ..., max_knowledge_items: _Optional[int] = ..., max_artifacts_per_ki: _Optional[int] = ..., max_title_length: _Optional[int] = ..., max_summary_length: _Optional[int] = ..., enable_ki_insertion: _Optional[bool] = ...) -> None: ...

class CustomizationConfig(_message.Message):
    __slots__ = ("agent_path", "enable_json_hooks")
    AGENT_PATH_FIELD_NUMBER: _ClassVar[int]
    ENABLE_JSON_HOOKS_FIELD_NUMBER: _ClassVar[int]
    agent_path: str
    enable_json_hooks: bool
    def __init__(self, agent_path: _Optional[str] = ..., enable_json_hooks: _Optional[bool] = ...) -> None: ...

class ExecutorMetadata(_message.Message):
    __slots__ = ("termination_reason", "num_generator_invocations", "last_step_idx", "proceeded_with_auto_continue", "num_forced_invocations", "execution_id", "cascade_config", "mendel_experiment_ids", "error")
    TERMINATION_REASON_FIELD_NUMBER: _ClassVar[int]
    NUM_GENERATOR_INVOCATIONS_FIELD_NUMBER: _ClassVar[int]
    LAST_STEP_IDX_FIELD_NUMBER: _ClassVar[int]
    PROCEEDED_WITH_AUTO_CONTINUE_FIELD_NUMBER: _ClassVar[int]
    NUM_FORCED_INVOCATIONS_FIELD_NUMBER: _ClassVar[int]
    EXECUTION_ID_FIELD_NUMBER: _ClassVar[int]
    CASCADE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    MENDEL_EXPERIMENT_IDS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    termination_reason: ExecutorTerminationReason
    num_generator_invocations: int
    last_step_idx: int
    proceeded_with_auto_continue: bool
    num_forced_invocations: int
    execution_id: str
    cascade_config: CascadeConfig
    mendel_experiment_ids: _containers.RepeatedScalarFieldContainer[int]
    error: str
    def __init__(self, termination_reason: _Optional[_Union[ExecutorTerminationReason, str]] = ..., num_generator_invocations: _Optional[int] = ..., last_step_idx: _Optional[int] = ..., proceeded_with_auto_continue: _Optional[bool] = ..., num_forced_invocations: _Optional[int] = ..., execution_id: _Optional[str] = ..., cascade_config: _Optional[_Union[CascadeConfig, _Mapping]] = ..., mendel_experiment_ids: _Optional[_Iterable[int]] = ..., error: _Optional[str] = ...) -> None: ...

class CascadeConfig(_message.Message):
    __slots__ = ("planner_config", "conversation_history_config", "split_dynamic_prompt_sections", "message_config", "agent_api_config")
    PLANNER_CONFIG_FIELD_NUMBER: _ClassVar[int]
    CONVERSATION_HISTORY_CONFIG_FIELD_NUMBER: _ClassVar[int]
    SPLIT_DYNAMIC_PROMPT_SECTIONS_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_CONFIG_FIELD_NUMBER: _ClassVar[int]
    AGENT_API_CONFIG_FIELD_NUMBER: _ClassVar[int]
    planner_config: CascadePlannerConfig
    conversation_history_config: ConversationHistoryConfig
    split_dynamic_prompt_sections: bool
    message_config: MessageConfig
    agent_api_config: AgentApiConfig
    def __init__(self, planner_config: _Optional[_Union[CascadePlannerConfig, _Mapping]] = ..., conversation_history_config: _Optional[_Union[ConversationHistoryConfig, _Mapping]] = ..., split_dynamic_prompt_sections: _Optional[bool] = ..., message_config: _Optional[_Union[MessageConfig, _Mapping]] = ..., agent_api_config: _Optional[_Union[AgentApiConfig, _Mapping]] = ...) -> None: ...

class ConversationHistoryConfig(_message.Message):
    __slots__ = ("enabled", "max_conversations", "max_title_chars", "max_user_intent_chars", "max_conversation_logs_chars", "max_artifact_summary_chars")
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    MAX_CONVERSATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_TITLE_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_USER_INTENT_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_CONVERSATION_LOGS_CHARS_FIELD_NUMBER: _ClassVar[int]
    MAX_ARTIFACT_SUMMARY_CHARS_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    max_conversations: int
    max_title_chars: int
    max_user_intent_chars: int
    max_conversation_logs_chars: int
    max_artifact_summary_chars: int
    def __init__(self, enabled: _Optional[bool] = ..., max_conversations: _Optional[int] = ..., max_title_chars: _Optional[int] = ..., max_user_intent_chars: _Optional[int] = ..., max_conversation_logs_chars: _Optional[int] = ..., max_artifact_summary_chars: _Optional[int] = ...) -> None: ...

class MessageConfig(_message.Message):
    __slots__ = ("enabled",)
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    def __init__(self, enabled: _Optional[bool] = ...) -> None: ...

class AgentApiConfig(_message.Message):
    __slots__ = ("enabled",)
    ENABLED_FIELD_NUMBER: _ClassVar[int]
    enabled: bool
    def __init__(self, enabled: _Optional[bool] = ...) -> None: ...
