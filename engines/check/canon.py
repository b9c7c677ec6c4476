"""The fingerprint of a behavior's state with its world's: fixed width, what the visited set keeps."""

from __future__ import annotations

import hashlib

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
    search's workers): Python 3.11 hashes None by its address, which differs between processes; the
    canonical state's spelling holds only values that spell alike everywhere."""
    first = hash(repr(behavior.state_key(readable)))
    second = hash(repr(behavior.world.state_key()))
    return first.to_bytes(8, "little", signed=True) + second.to_bytes(8, "little", signed=True)
