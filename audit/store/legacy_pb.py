"""Legacy encrypted conversations (``conversations/<id>.pb``), read with the user's own key.

Only a key the user supplies is ever used: ``ANTIGRAVITY_KEY`` (the variable agentsview reads,
``internal/parser/antigravity_crypto.go`` @b6411f6f, ``loadAntigravityKey``) or a key file, both
holding the key as base64 text of 16, 24 or 32 bytes (AES-128/192/256). This project ships no key
and extracts none; the key is never printed, logged or stored, and no message quotes it.

The container, as the public readers document it: AES-GCM over the whole file (agy-reader's
README: "AES-GCM at rest"; agentsview ``decryptAesGCM``): a 12-byte nonce, then the ciphertext
with its 16-byte tag, no associated data. The file is authenticated as a whole before any byte of
it is used: a wrong key, a truncated file or a changed byte is one error, never a partial read.
(agentsview also tries unauthenticated AES-CTR and -CBC and byte offsets; a plaintext that no tag
vouches for is never accepted here.)

The plaintext is read as the daemon's ``Trajectory`` message (``cortex.proto``), the message a
``.db`` splits over its tables (an inference: the readers walk it without a schema). It is split
the same way -- ``trajectory_meta`` (fields 1, 6, 4, 8), ``steps`` (2, each step's bytes as its
``step_payload``), ``gen_metadata`` (3), ``executor_metadata`` (9), ``parent_references`` (5) and
``trajectory_metadata_blob`` (7, id ``main``) -- into a ``NativeConversation``, so
``trajectory.reconstruct`` decodes a ``.pb`` exactly as it decodes a ``.db``: unknown fields
counted, nothing dropped. A top-level field of another number or wire type becomes a table named
``Trajectory.<number>:<wire type>`` that the reconstruction reports as undecoded. Nothing here
prints; every problem is a finding on the result (``read_legacy`` never raises for a file).
"""

from __future__ import annotations

import base64
import binascii
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from audit.errors import InputError, UsageError
from audit.safeio import MAX_DOCUMENT_BYTES, read_bytes
from audit.store import wire
from audit.store.database import NativeConversation, Problem

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

ENV_KEY = "ANTIGRAVITY_KEY"
"""The environment variable holding the user's key (base64), as agentsview reads it."""
KEY_HINT = f"set {ENV_KEY} or give --key-file"
"""How a user supplies the key, for messages about a ``.pb`` read without one."""
KEY_SIZES = (16, 24, 32)
NONCE_BYTES, TAG_BYTES = 12, 16
ACCESS = "decrypted"
"""``NativeConversation.access`` of a ``.pb`` read with a key."""
MAX_BYTES = MAX_DOCUMENT_BYTES
"""Larger files are refused: the whole message is authenticated and held at once."""

_TABLES = {2: "steps", 3: "gen_metadata", 5: "parent_references", 9: "executor_metadata"}
"""Repeated message fields of ``Trajectory`` -> the ``.db`` table holding one row per element."""
_HEADER = {1: "trajectory_id", 6: "cascade_id", 4: "trajectory_type", 8: "source"}
"""``Trajectory`` scalar fields -> the ``trajectory_meta`` column holding them."""
_TEXT = frozenset({1, 6})
_METADATA = 7


@dataclass(frozen=True)
class Key:
    """The user's AES key and where it came from (never the key in any text)."""

    secret: bytes = field(repr=False)
    origin: str  # "ANTIGRAVITY_KEY" or the key file's path

    def __str__(self) -> str:
        return f"the key from {self.origin}"


def load_key(key_file: str | os.PathLike[str] | None = None, env: Mapping[str, str] | None = None) -> Key | None:
    """The user's key: from *key_file* when given, else from ``ANTIGRAVITY_KEY``; None when
    neither is set. Raises ``UsageError`` (exit 2) for a key that is not base64 of 16, 24 or 32
    bytes and ``InputError`` for a key file that cannot be read; neither message shows the key."""
    env = os.environ if env is None else env
    if key_file is not None:
        origin = str(key_file)
        text = read_bytes(key_file, limit=4096).decode("ascii", "replace")
    elif env.get(ENV_KEY):
        origin, text = ENV_KEY, env[ENV_KEY]
    else:
        return None
    try:
        secret = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise UsageError(f"{origin}: the key is not base64 text") from None
    if len(secret) not in KEY_SIZES:
        raise UsageError(f"{origin}: the key decodes to {len(secret)} bytes; an AES key has 16, 24 or 32")
    return Key(secret, origin)


def _aesgcm() -> type[AESGCM]:
    """The AES-GCM primitive of the optional ``cryptography`` package (``agy-audit[legacy]``)."""
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ImportError:
        raise UsageError(
            "reading a legacy .pb with a key needs the 'cryptography' package: pip install 'agy-audit[legacy]'"
        ) from None
    return AESGCM


def decrypt(data: bytes, key: Key) -> bytes:
    """The plaintext of one container, authenticated as a whole. Raises ``InputError`` (without
    a file name) when the bytes are too short or the tag does not verify, ``UsageError`` when the
    ``cryptography`` package is missing."""
    aesgcm = _aesgcm()
    if len(data) < NONCE_BYTES + TAG_BYTES:
        raise InputError(f"{len(data)} bytes: too short for an AES-GCM container (nonce and tag alone are 28)")
    from cryptography.exceptions import InvalidTag

    try:
        return aesgcm(key.secret).decrypt(data[:NONCE_BYTES], data[NONCE_BYTES:], None)
    except InvalidTag:
        raise InputError(f"does not authenticate with {key} (a wrong key, or a truncated or altered file)") from None


def read_legacy(path: str | os.PathLike[str], key: Key) -> NativeConversation:
    """Decrypt and authenticate the ``.pb`` at *path* and split its ``Trajectory`` into the rows a
    ``.db`` holds (see the module docstring). Every problem -- an unreadable file, one that does
    not authenticate, a plaintext that is not a protobuf message -- is a finding whose code is in
    ``database.READ_FAILURES`` (the conversation is then not read at all); ``access`` is
    ``decrypted`` once the file authenticated."""
    conv = NativeConversation(Path(path))
    try:
        plaintext = decrypt(read_bytes(conv.path, limit=MAX_BYTES), key)
    except InputError as exc:
        message = exc.message if exc.message.startswith(str(conv.path)) else f"{conv.path}: {exc.message}"
        conv.findings.append(Problem("unreadable", message))
        return conv
    try:
        fields = wire.parse(plaintext, max_depth=0)
    except wire.WireError as exc:
        conv.findings.append(Problem("corrupt", f"{conv.path}: the decrypted content is not a protobuf message ({exc})"))
        return conv
    conv.access, conv.tables = ACCESS, _split(fields)
    return conv


def _split(fields: tuple[wire.WireField, ...]) -> dict[str, list[dict[str, object]]]:
    """The ``.db`` tables of one ``Trajectory``'s top-level fields (see the module docstring)."""
    header: dict[str, object] = {}  # a scalar given twice: the last one, as a parse takes it
    tables: dict[str, list[dict[str, object]]] = {name: [] for name in ("trajectory_meta", *_TABLES.values())}
    metadata: bytes | None = None
    for f in fields:
        value = f.value
        if f.number in _HEADER and f.wire_type == (wire.LEN if f.number in _TEXT else wire.VARINT):
            header[_HEADER[f.number]] = _text(value) if isinstance(value, bytes) else _signed(value)
        elif f.number in _TABLES and isinstance(value, bytes):  # a len field (the only kind with bytes)
            rows = tables[_TABLES[f.number]]
            step = _step_columns(value) if f.number == 2 else None
            rows.append(
                {"idx": len(rows), **step, "step_payload": value} if step is not None else {"idx": len(rows), "data": value}
            )
        elif f.number == _METADATA and isinstance(value, bytes):
            metadata = (metadata or b"") + value  # occurrences of a message field merge, as their bytes concatenated do
        else:
            tables.setdefault(f"Trajectory.{f.number}:{f.kind}", []).append({"data": value})
    tables["trajectory_meta"] = [header]
    tables["trajectory_metadata_blob"] = [{"id": "main", "data": metadata}] if metadata is not None else []
    return tables


def _step_columns(payload: bytes) -> dict[str, int]:
    """The ``step_type`` and ``status`` a ``.db`` keeps beside a step: the Step's fields 1 and 4
    (0 when absent, or when the step's bytes are no message: the decoder reports that)."""
    found = {"step_type": 0, "status": 0}
    try:
        fields = wire.parse(payload, max_depth=0)
    except wire.WireError:
        return found
    for f in fields:
        if f.number in (1, 4) and f.wire_type == wire.VARINT and isinstance(f.value, int):
            found["step_type" if f.number == 1 else "status"] = _signed(f.value)
    return found


def _signed(value: int) -> int:
    """A varint as the int32/int64 an enum field holds (negative numbers take ten bytes)."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(value: bytes) -> str | bytes:
    """A string field as text; bytes that are not UTF-8 stay bytes (the decoder reports them)."""
    try:
        return value.decode()
    except UnicodeDecodeError:
        return value
