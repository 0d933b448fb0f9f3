"""Write legacy encrypted ``.pb`` conversation files from sidecar-shaped trajectory dicts.

The dict is read with ``ParseDict`` into ``cortex.proto``'s ``Trajectory`` (as ``dbwriter`` reads
it), serialized deterministically and sealed in the container ``audit.store.legacy_pb`` reads:
a 12-byte nonce, then AES-GCM ciphertext and tag, no associated data. The key is the caller's
(a test's own); nothing here holds one. Needs the optional ``cryptography`` package.
"""

from __future__ import annotations

import os
from typing import Any

from google.protobuf import json_format

from audit.safewrite import create_durable_file
from audit.store.legacy_pb import NONCE_BYTES, Key
from audit.store.proto import cortex_pb2 as pb


def seal(plaintext: bytes, key: Key, nonce: bytes) -> bytes:
    """The container of *plaintext*: *nonce* (12 bytes), ciphertext and tag."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    if len(nonce) != NONCE_BYTES:
        raise ValueError(f"an AES-GCM nonce has {NONCE_BYTES} bytes, not {len(nonce)}")
    return nonce + AESGCM(key.secret).encrypt(nonce, plaintext, None)


def trajectory_bytes(trajectory: dict[str, Any]) -> bytes:
    """The serialized ``Trajectory`` of a sidecar-shaped dict (unknown keys ignored)."""
    message = json_format.ParseDict(trajectory, pb.Trajectory(), ignore_unknown_fields=True)
    return message.SerializeToString(deterministic=True)


def write_legacy_pb(path: str | os.PathLike[str], trajectory: dict[str, Any], key: Key, nonce: bytes) -> None:
    """Create the ``.pb`` at *path* (which must not exist) holding *trajectory* sealed with *key*."""
    create_durable_file(path, seal(trajectory_bytes(trajectory), key, nonce))
