"""The fingerprint of a behavior's state with its world's: fixed width, what the visited set keeps."""

from __future__ import annotations

import hashlib
import marshal
from typing import Any

from engines.runtime.behavior import Behavior


def fingerprint(behavior: Behavior, readable: frozenset[str] | None = None) -> bytes:
    """16 bytes standing for the canonical state: one 64-bit hash of the behavior's, one of its
    world's. Not hash(key) twice: a tuple's hash mixes only its items' hashes, so a second hash of
    the same items follows from the first and adds nothing (found by a helper's review)."""
    first = hash(behavior.state_key(readable))
    second = hash(behavior.world.state_key())
    return first.to_bytes(8, "little", signed=True) + second.to_bytes(8, "little", signed=True)


def stable_fingerprint(behavior: Behavior) -> bytes:
    """A fingerprint equal across processes (for files and tests): a digest of the canonical text."""
    text = "\n".join(str(p) for p in (*behavior.state_key(), *behavior.world.state_key()))
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def portable_fingerprint(behavior: Behavior, readable: frozenset[str] | None = None) -> bytes:
    """As `fingerprint`, but equal in every process that hashes strings with one seed (the parallel
    search's workers): Python 3.11 hashes None by its address, which differs between processes, so the
    canonical state is hashed as bytes that write its values alike everywhere (`_written`)."""
    first = hash(_written(behavior.state_key(readable)))
    second = hash(_written(behavior.world.state_key()))
    return first.to_bytes(8, "little", signed=True) + second.to_bytes(8, "little", signed=True)


def _written(key: Any) -> bytes | str:
    """The key as marshal's version 0 writes it where its values allow (a quarter of its spelling's cost:
    version 0 writes a value by its type and content alone, with no back-reference or interning mark
    that would tell two equal keys apart by how they were built), else spelled (a Fraction, an enum)."""
    try:
        return marshal.dumps(key, 0)
    except ValueError:
        return repr(key)
