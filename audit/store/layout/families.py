"""The file families of a session whose presence is format (``LAYOUT_FAMILIES``), which of them
a session has, and the forms a store's sessions take (``layout_forms``).
"""

from __future__ import annotations

from collections.abc import Iterable

from audit.store.layout.sessions import Session

_LOGS = "brain/*/.system_generated/logs/"
LAYOUT_FAMILIES = {
    "conversations/*.db": "conversation",
    "conversations/*.db-wal": "conversation",
    "conversations/*.pb": "conversation",
    "conversations/*.trajectory.json": "conversation",
    _LOGS + "transcript.jsonl": "compact",
    _LOGS + "chunks/transcript/*.jsonl": "compact",
    _LOGS + "transcript_full.jsonl": "full",
    _LOGS + "chunks/transcript_full/*.jsonl": "full",
    _LOGS + "overview.txt": "overview",
}
"""The file families of a session whose presence is format
(docs/store-format.md#session-files, #chunks), as patterns relative to a store root (the notation of a consumer profile's ``layout``
entries), each with its group: the sessions a family is counted among are those holding any
family of its group (a conversation file; a transcript tier, flat or in chunks)."""
TRANSIENT_FAMILIES = {
    "conversations/*.db-wal": (
        "a -wal is there while agy holds its .db open (the IDE and CLI keep them open for weeks; new rows "
        "land in the -wal) and gone once SQLite checkpoints it or a copy leaves it out (real stores hold "
        "both: .db with -wal, and .db with -shm but no -wal): the state of a running agy, not format"
    ),
}
"""``LAYOUT_FAMILIES`` whose presence changes with agy's open connections: a change of one is an
advisory (``drift``'s ``transient``), never drift of the format."""
_CONVERSATION_FAMILY = {
    "db": "conversations/*.db",
    "wal": "conversations/*.db-wal",
    "legacy_pb": "conversations/*.pb",
    "sidecar": "conversations/*.trajectory.json",
}
_BRAIN_FAMILY = {"transcript": _LOGS + "transcript.jsonl", "transcript_full": _LOGS + "transcript_full.jsonl"}
_CHUNK_FAMILY = {"transcript": _LOGS + "chunks/transcript/*.jsonl", "transcript_full": _LOGS + "chunks/transcript_full/*.jsonl"}


def families(session: Session) -> set[str]:
    """The ``LAYOUT_FAMILIES`` *session* has (its brain files as a scan with ``brain_files`` lists them)."""
    found = {family for kind, family in _CONVERSATION_FAMILY.items() if getattr(session, kind) is not None}
    found.update(family for kind, family in _BRAIN_FAMILY.items() if kind in session.brain_files)
    found.update(_CHUNK_FAMILY[p.parent.name] for p in session.brain_files.get("chunk", ()) if p.parent.name in _CHUNK_FAMILY)
    overview = session.brain / ".system_generated" / "logs" / "overview.txt" if session.brain is not None else None
    if overview is not None and overview in session.brain_files.get("other", ()):
        found.add(_LOGS + "overview.txt")
    return found


def layout_forms(sessions: Iterable[Session]) -> dict[str, str]:
    """Per family some of *sessions* have: ``file`` when every session of its group has it,
    ``file|none`` when only some do (``LAYOUT_FAMILIES``). Counts are not kept: which forms a
    store takes is format, how many sessions take each is not."""
    having: dict[str, int] = {}
    groups: dict[str, int] = {}
    for session in sessions:
        found = families(session)
        for family in found:
            having[family] = having.get(family, 0) + 1
        for group in {LAYOUT_FAMILIES[f] for f in found}:
            groups[group] = groups.get(group, 0) + 1
    return {f: "file" if n == groups[LAYOUT_FAMILIES[f]] else "file|none" for f, n in sorted(having.items())}
