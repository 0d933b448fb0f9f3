"""Parent links between conversations: evidence, resolution, cycles, the family tree.

Works on one directory of sidecars (a store root's ``conversations/`` or a sweep corpus
``corpus/<product>/``). Every sidecar is read once; the whole graph is resolved before anything
is written. Evidence that child C has parent P, strongest first:

* native: C's ``metadata.parentConversationId``; a ``CORTEX_STEP_TYPE_INVOKE_SUBAGENT`` step of P
  whose ``invokeSubagent.results[].conversationId`` is C;
* legacy, consulted only when C has no native evidence: an agent-definition path
  ``.../brain/<P>/.agents/agents/...`` in C's executor or generator metadata; P's invoke-tool
  prompts matched exactly against C's first user prompt when P's next planner response names C.

Messages between agents never establish ancestry. Ids compare lower-case. One candidate is the
parent, several are ``conflicting-evidence``; cycles (found in linear time) lose every edge. The
stamp is ``agyReader.parentCascadeId``, written by byte splicing (``audit.store.reader_block``) with the file's
mtime kept.

``model`` holds the vocabulary and the results (diagnostics, evidence, links, the tree);
``evidence`` reads the sidecars; ``resolution`` resolves the graph (``resolve``).
"""

from audit.checks.links.evidence import SIDECAR_NAME, SidecarFacts, facts_of, list_sidecars
from audit.checks.links.model import (
    CONFLICTING_EVIDENCE,
    FAILING_KINDS,
    PARENT_CYCLE,
    UNUSABLE_KINDS,
    Diagnostic,
    Link,
    Resolution,
)
from audit.checks.links.resolution import find_cycles, resolve

__all__ = [
    "CONFLICTING_EVIDENCE",
    "FAILING_KINDS",
    "PARENT_CYCLE",
    "SIDECAR_NAME",
    "UNUSABLE_KINDS",
    "Diagnostic",
    "Link",
    "Resolution",
    "SidecarFacts",
    "facts_of",
    "find_cycles",
    "list_sidecars",
    "resolve",
]
