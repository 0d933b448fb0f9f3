"""``.db`` <-> brain transcript consistency: two real sources telling the story of the same steps.

For every session with a conversation ``.db``, the ``.db`` is read as one read-only snapshot
(``audit.store.database``), decoded offline (``audit.store.trajectory``) and checked against its
own invariants (``audit.checks.invariants``). Where the session also has brain transcripts
(``audit.store.transcript``: the compact tier ``transcript.jsonl``, the full tier
``transcript_full.jsonl``, each with its rolling chunks, and ``logs/overview.txt``), every
transcript record is joined to the ``.db`` step of the same index (``steps.idx`` ==
``step_index``; a repeated index: its last record) and, per tier, compared on:

* ``type`` and ``source`` (enum names without their prefixes), ``created_at`` to the second
  (the ``.db`` value floored);
* ``status``: equal, or a *lag* (an advisory): one side is still in a state the other has left
  (PENDING, GENERATING, WAITING, QUEUED, RUNNING vs a later or final one; real transcripts keep
  RUNNING for finished background commands, a ``.db`` copied without its ``-wal`` keeps PENDING).
  Two different final states (DONE vs ERROR) disagree; an absent status is UNSPECIFIED (proto3
  JSON drops it). Content is compared only where the statuses are equal;
* USER_INPUT: the ``<USER_REQUEST>`` text vs ``userInput.userResponse`` (or its items), stripped;
* PLANNER_RESPONSE: ``content`` vs ``modifiedResponse`` or ``response``, ``thinking``, the tool
  calls in order (count, names, argument keys and values);
* RUN_COMMAND: ``exit_code`` (or the content's "exited with code N") vs ``runCommand.exitCode``,
  and the ``CommandLine`` argument of the planner call the step answers (joined through the
  step's copied call id) vs ``runCommand.commandLine``;
* ``error`` vs one of the ``.db`` error texts (model error message, short error, user error
  message, full error) and ``error_code`` vs ``errorCode``.

The overview tier carries no ``thinking`` (docs/store-format.md#transcript-records): it is not compared there, nor are
tool calls where an overview record has none.

Tool-call arguments are compared as values after undoing each tier's encoding: in the compact
tier and the overview each value is JSON text, in the full tier a native JSON value (a plain
string is the string itself). Text cut by a ``<truncated N bytes|lines>`` marker is compared
only up to the marker (its head must start the ``.db`` value).

Reported, never failed (advisories): a status lag; transcript windows (a tier starting after
step 0) and gaps (``.db`` steps inside a tier's range without a record); transcript steps beyond
the ``.db`` (with the reason when the ``.db`` has a ``-shm`` but no ``-wal``: its newest commits
are missing); enum numbers ``cortex.proto`` does not name (not compared); ``.db`` decoding
problems that leave the step readable. A value one side lacks where the other carries text is a
disagreement; a field neither side carries is not compared.

Findings are ``audit.findings.Finding``s: a disagreement or an invariant breach is an ``error``, an
advisory a ``warning``; a finding about one step has its index in ``details["step"]``. A tier's
late start has the reader's rule id (``transcript/window/late``), an unreadable file the common
``unreadable``. Verdicts per session: ``consistent``, ``inconsistent`` (a disagreement or an invariant breach),
``unreadable`` (the ``.db`` or a transcript file cannot be read). Exit codes (``Report.exit_code``):
2 any unreadable, 1 any inconsistent, 3 no ``.db`` found, else 0. Nothing here prints.

The modules: the verdicts, rules and results (``verdicts``), finding sessions
(``session_targets``), checking one (``checking``) and when a transcript's value agrees with the
``.db``'s (``agreement``).
"""

from audit.checks.consistency.checking import check, check_roots, check_session, read_tiers
from audit.checks.consistency.session_targets import SessionTarget, target_of, targets, targets_in_roots
from audit.checks.consistency.verdicts import (
    CONSISTENT,
    INCONSISTENT,
    NO_DB,
    RULES,
    UNREADABLE,
    UNREADABLE_RULE,
    VERDICTS,
    Report,
    SessionResult,
)

__all__ = [
    "check",
    "check_roots",
    "check_session",
    "read_tiers",
    "SessionTarget",
    "target_of",
    "targets",
    "targets_in_roots",
    "CONSISTENT",
    "INCONSISTENT",
    "NO_DB",
    "RULES",
    "UNREADABLE",
    "UNREADABLE_RULE",
    "VERDICTS",
    "Report",
    "SessionResult",
]
