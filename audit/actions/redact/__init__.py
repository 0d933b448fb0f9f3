"""``agy-audit redact``: a content-free copy of a home, a store root or a sweep corpus that keeps
the format, and the proof that it does.

What is replaced (``Redactor``):

* text -- every string value of sidecars, transcripts, ``.db`` protobuf string fields, brain
  artifacts and SQLite text columns: each character by a random one of its class (lower case,
  upper case, digit; other letters by one of the same UTF-8 length), white space, punctuation,
  ``<truncated N bytes>`` markers and agy's upper-case tags (``<USER_REQUEST>``) kept, so
  lengths, line counts and byte sizes stay realistic. A text without a letter or a digit (a run
  of spaces) is format, not content: it stays as it is. The same text always gets the same
  placeholder within one run, and texts sharing a prefix share its placeholder (a truncated
  transcript value still agrees with the ``.db`` value it was cut from);
* JSON text (``argumentsJson``, transcript tool arguments): redacted *inside* the JSON, so it
  stays valid JSON of the same shape;
* UUIDs -- each mapped to one new random UUID everywhere (values, file and directory names), so
  parent links, cascade ids and ``trajectory_meta`` still agree;
* timestamps -- RFC 3339 text and protobuf ``Timestamp`` fields shifted by one constant (whole
  days) per run: order and gaps kept;
* bytes fields (thinking signatures) -- random bytes of the same length.

What is kept, because it is format, not content: object keys, numbers (token counts, exit codes,
line numbers), booleans, enum names (and any other value the ``values`` fingerprint records of
a sidecar's enum fields), tool names and argument names, ``type``/``status``/``source`` values
of transcript records, the SQLite schema, the headers and sentences of transcript content
(``conventions.MARKERS``). The per-install files the fingerprints read (``history.jsonl``,
``conversation_summaries.db``, ``cache/*``) are redacted like any other; a legacy encrypted ``.pb``
becomes random bytes of its length and a ``.db`` that had a ``-wal`` gets an empty one, so the
copy keeps every surface, the layout of its files included. Identities (``installation_id``,
``user_settings.pb``, ``agyhub_summaries_proto.pb``), logs, annotations, browser recordings and
images are left out and listed: no fingerprint reads them.

Blobs are rewritten on the wire (``redact_wire``): only the bytes of text and bytes fields
change (and the lengths of the messages around a text whose length changed); every other byte
-- field order, fields encoded at their default value, packed numbers, unknown fields' keys --
is the source's, so the copy's ``wire`` fingerprint is the source's. Fields our ``.proto`` does
not name, and blobs no schema describes: a length-delimited value is redacted as a message when
it parses as one (recursively), else as text (a same-length placeholder) when it is printable
UTF-8, else by random bytes of its length. What cannot be walked field by field (a group) is
named and the run refuses.

Bounded work: every file read whole is at most *max_file_size* bytes (``MAX_FILE_SIZE`` unless
given; a larger one is an ``InputError`` naming it, before a byte is read); JSON-lines files are
streamed line by line (a line is read whole). Each step is linear in the bytes it reads: the
random filler is one keyed hash and one extendable-output hash per value, and the survivor
search (``replacements.Needles``) looks up each 8-byte window of the copy once in a hash table.

The proof (``redact``): the copy is fingerprinted on every surface but those of the per-install
files it leaves out (``Surface.redact``: ``kept_by_redact``) and must give the digests of the source; no replaced source string
whose placeholder is one of at least 2**40 (``MIN_SURVIVOR_BITS``) may occur in any byte of the copy; every
redacted JSON document differs from its source only by string values (deepdiff explains a
document that does not). On any refusal the copy is removed (exit 1).

The modules: the replacements and the record of what they replaced (``replacements``), JSON
documents and the files that hold them (``documents``), protobuf blobs on the wire
(``protobuf``), ``.db`` files (``databases``), what one run carries and the check of each
document (``run``), the source's tree and what of it is left out (``tree``), and the run with its
proof and report (``proof``).
"""

from audit.actions.redact.proof import MAX_FILE_SIZE, REPORT, redact
from audit.actions.redact.run import Result

__all__ = ["MAX_FILE_SIZE", "REPORT", "Result", "redact"]
