"""Brain transcripts: ``transcript.jsonl``, ``transcript_full.jsonl``, their rolling chunks and ``overview.txt``.

Reading a stream of records and anomalies (``reading``), one line's object judged into a record
(``records``), a brain directory's tiers and the compact tier paired with the full one (``brain``),
the metadata record texts carry (``content``), and the records and vocabularies they share
(``model``). The names other modules use are re-exported here.
"""

from audit.store.transcript.brain import Tier, locate, pair_records, read_brain, text_fits
from audit.store.transcript.content import FileChange, SettingChange, command_exit_code, parse_content, user_request
from audit.store.transcript.model import (
    CHUNK_BYTES,
    CHUNK_DIRS,
    DROPPED,
    FLAT_NAMES,
    KINDS,
    KNOWN_SOURCES,
    RECORD_KEYS,
    TIERS,
    Anomaly,
    Arg,
    Record,
    ToolCall,
    summarize,
    tier_of,
)
from audit.store.transcript.reading import iter_bytes, iter_transcript, shared_reads

__all__ = [
    "CHUNK_BYTES",
    "CHUNK_DIRS",
    "DROPPED",
    "FLAT_NAMES",
    "KINDS",
    "KNOWN_SOURCES",
    "RECORD_KEYS",
    "TIERS",
    "Anomaly",
    "Arg",
    "FileChange",
    "Record",
    "SettingChange",
    "Tier",
    "ToolCall",
    "command_exit_code",
    "iter_bytes",
    "iter_transcript",
    "locate",
    "pair_records",
    "parse_content",
    "read_brain",
    "shared_reads",
    "summarize",
    "text_fits",
    "tier_of",
    "user_request",
]
