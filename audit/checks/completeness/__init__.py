"""Native completeness: does a sidecar still hold everything its native ``.db`` holds?

A sidecar can be an old in-memory copy of a conversation that has moved on. Each sidecar that has
a native source -- ``conversations/<id>.db`` beside it in a store, or ``native/<product>/<id>.db``
for ``corpus/<product>/<id>.trajectory.json`` in a sweep corpus -- is compared with one read-only
snapshot of that source, committed ``-wal`` content included (``audit.store.database``), decoded
offline (``audit.store.trajectory``). Nothing here prints.

The projection (profile ``agy-audit-projection/2``) is what both sides carry, compared per step:
the array ``[PROFILE, [step, ...]]`` where each step is the array of ``STEP_FIELDS`` values:

* ``type``, ``status``: the enum name; a number the schema names becomes its name; absent or
  ``null`` is the zero name (``CORTEX_STEP_TYPE_UNSPECIFIED``); a number it does not name stays
  a number;
* ``metadata.createdAt``, ``metadata.startedAt``: RFC 3339 text with the fraction padded to nine
  digits (protobuf and Go print 0, 3, 6 or 9); absent is ``""``;
* ``metadata.toolSummary``, ``metadata.toolAction`` (the tool call's own summary of itself);
* user prompt text: ``userInput.userResponse``, ``userInput.query``, ``userInput.items[].text``;
* planner text: ``plannerResponse.response``, ``.modifiedResponse``, ``.thinking``;
* tool calls as ``[id, name, argumentsJson]``: every ``plannerResponse.toolCalls[]``, the step's
  ``metadata.toolCall`` and ``mcpTool.toolCall``;
* commands: ``runCommand.commandLine``, ``.proposedCommandLine``, ``.exitCode``;
* questions asked (step type ASK_QUESTION) as ``[question, selectedOptionIds, writeInResponse,
  skipped]`` per ``askQuestion.questions[]``.

(Profile ``/1`` had no ``startedAt``, ``toolSummary``, ``toolAction``, tool-call ids or
questions; a recorded ``/1`` attestation is read, no longer matches and is rewritten.)

Absent and ``null`` values are the proto3 defaults (``""``, ``0``, ``[]``, a call ``["", ""]``) on
both sides: proto3 JSON omits defaults, so an absent ``exitCode`` equals ``0``; sidecar-only keys
(see ``audit.store.proto``) are never projected. Present values of the wrong JSON type are kept as they
are, so they never equal the source. ``projectionSha256`` is the SHA-256 of the projection as
compact JSON (keys sorted, no whitespace, UTF-8, non-ASCII unescaped). Equal step counts and
timestamps alone never pass: every field of every step must be equal.

``contentSha256`` is what was compared: the SHA-256 of the snapshot's logical content (every row
of every table read, the schema and ``user_version``; ``NativeConversation.content_sha256``), taken
from the very rows that were projected -- never of the file bytes, so a checkpoint or ``VACUUM``
that keeps the rows keeps the digest, and uncommitted ``-wal`` frames never enter it. The read is
taken between two identical stats of ``.db`` and ``-wal`` (retried otherwise); when the ``-shm``
WAL-index header changed during every read (a commit in progress), the verdict stands but
``Result.stable`` is False and ``attest`` refuses to record it.

Verdicts: ``complete``; ``incomplete`` (steps missing, extra or different, or a sidecar of
another conversation: the first difference is named); ``unsupported`` (where the projection
reads, the source holds something ``cortex.proto`` does not decode: an unknown protobuf field in
a message a projected value is read from -- it could be that value's new home --, a step type or
status number the enum does not name, or a step row that cannot be decoded; fail closed).
Unknown fields and findings elsewhere (``READS`` decides; e.g. inside generator metadata, a
render info or a permission), and unknown fields that carry nothing wherever they are (kind
``empty``: a length-delimited value of zero bytes, an empty message, string or bytes, which can
hold no projected value), are listed in ``Result.outside`` and never change the verdict;
``unknown`` (no native source, or only a legacy encrypted ``.pb``); ``unreadable`` (the sidecar
is not a regular file, not strict JSON or its ``steps`` not an array; the source cannot be read
or kept changing through five attempts over about half a second: a conversation in progress). ``audit.actions.attest`` records ``agyReader.agyAudit.completeness``
in complete sidecars and removes it from incomplete and unsupported ones; see there.

The modules: the verdicts and the ``Result`` of one sidecar (``verdicts``), the projection
(``step_projection``), the source read (``source``), finding sidecars and their sources
(``sidecar_targets``) and judging one sidecar against its source (``checking``).
"""

from audit.checks.completeness.checking import check, check_all, check_root, check_roots, check_target
from audit.checks.completeness.sidecar_targets import SidecarTarget, target_of, targets, targets_in_roots
from audit.checks.completeness.source import Source, content_sha256, source_of
from audit.checks.completeness.step_projection import (
    PROFILE,
    READS,
    STEP_FIELDS,
    canonical_json,
    explain_projection,
    in_projection,
    projection,
    projection_sha256,
)
from audit.checks.completeness.verdicts import (
    ABSENT,
    ATTESTATION_KEY,
    COMPLETE,
    FAILING,
    INCOMPLETE,
    KEPT,
    LEGACY_KEY,
    READER_KEY,
    REFUSED,
    REMOVED,
    UNKNOWN,
    UNREADABLE,
    UNSUPPORTED,
    VERDICTS,
    WRITTEN,
    Attestation,
    Evidence,
    Report,
    Result,
    exit_code,
)

__all__ = [
    "check",
    "check_all",
    "check_root",
    "check_roots",
    "check_target",
    "PROFILE",
    "READS",
    "STEP_FIELDS",
    "canonical_json",
    "explain_projection",
    "in_projection",
    "projection",
    "projection_sha256",
    "Source",
    "content_sha256",
    "source_of",
    "SidecarTarget",
    "target_of",
    "targets",
    "targets_in_roots",
    "ABSENT",
    "ATTESTATION_KEY",
    "COMPLETE",
    "FAILING",
    "INCOMPLETE",
    "KEPT",
    "LEGACY_KEY",
    "READER_KEY",
    "REFUSED",
    "REMOVED",
    "UNKNOWN",
    "UNREADABLE",
    "UNSUPPORTED",
    "VERDICTS",
    "WRITTEN",
    "Attestation",
    "Evidence",
    "Report",
    "Result",
    "exit_code",
]
