"""The canonical state of a run and its fixed-width fingerprint: ids excluded, objects by path."""

from __future__ import annotations

import hashlib
from fractions import Fraction
from typing import TYPE_CHECKING

from engines.runtime.evaluate import Frame
from engines.runtime.values import ObjectRef, Sequence, Value, spell

if TYPE_CHECKING:
    from engines.runtime.actions import Run
    from engines.runtime.actions.tokens import Flow, Token


def _flow_path(flow: Flow) -> tuple[tuple[int, str], ...]:
    """Where a flow stands: the node indices of the tokens that entered it, outermost first, each with
    the block of its `if` a branch's flow runs (the two blocks are two graphs over one node)."""
    path: list[tuple[int, str]] = []
    token = flow.parent_token
    while token is not None:
        path.append((token.node, flow.branch))
        flow = token.flow
        token = flow.parent_token
    return tuple(reversed(path))


# Python's hash of an int collides by construction: hash(-1) == hash(-2) (-1 is CPython's error code),
# and ints are hashed modulo the Mersenne prime 2**61 - 1. The fingerprint hashes values as
# themselves, so such ints are spelled instead: a -1 and a -2 must never be one visited state.
_HASH_MODULUS = (1 << 61) - 1


def _hashable_int(n: int) -> object:
    if n != -1 and -_HASH_MODULUS < n < _HASH_MODULUS:
        return n
    return ("int", str(n))


class Canon:
    """Spells a run's state the same way whatever numbers its tokens and objects happened to get."""

    def __init__(self, run: Run, readable: frozenset[str] | None = None) -> None:
        self.run = run
        # the features a finished performance can still be read by (ir.liveness); the others of a
        # sealed frame are left out, since no schedule can tell them apart any more
        self.readable = readable
        self.paths = {ref.id: name for name, ref in run.ctx.usage_objects.items()}

    def value(self, v: Value) -> str:
        if type(v) is int:
            return str(v)
        if isinstance(v, ObjectRef):
            path = self.paths.get(v.id)
            return "@" + path if path is not None else self._anonymous(v)
        if isinstance(v, Sequence):
            return "(" + ",".join(self.value(x) for x in v.elements) + ")"
        return spell(v)

    def _anonymous(self, ref: ObjectRef, depth: int = 0) -> str:
        """An object no usage names (`new Ticket(7, true)`): by its type and values, not its number,
        which depends on the order the schedule built it in."""
        obj = self.run.ctx.objects.get(ref.id)
        if obj is None or depth > 3:
            return f"#{ref.id}"
        parts = []
        for k, x in sorted(obj.values.items()):
            nested = isinstance(x, ObjectRef) and x.id not in self.paths
            parts.append(f"{k}={self._anonymous(x, depth + 1) if nested else self.value(x)}")  # type: ignore[arg-type]
        return f"{obj.type_name}{{{','.join(parts)}}}"

    def frame(self, f: Frame, out: list[object], prefix: str, seen: set[int]) -> None:
        if id(f) in seen:
            return
        seen.add(id(f))
        if f.sealed:
            cache = f.canon if f.canon is not None else {}
            key = prefix if self.readable is None else "\0" + prefix  # the two spellings kept apart
            lines = cache.get(key)
            if lines is None:
                collected: list[object] = []
                self._walk(f, collected, prefix, set())
                lines = tuple(collected)
                cache[key] = lines
                f.canon = cache
            out.extend(lines)
            return
        self._walk(f, out, prefix, seen)

    def _walk(self, f: Frame, out: list[object], prefix: str, seen: set[int]) -> None:
        values = f.values
        if values:
            # Values as themselves where their identity is no run's numbering (hashing beats spelling);
            # objects by the usage that made them; Booleans tagged, since True == 1 in Python.
            items: list[tuple[str, object]] = []
            readable = self.readable if f.sealed else None
            for name in sorted(values):
                if readable is not None and name not in readable:
                    continue
                v = values[name]
                kind = type(v)
                if kind is int:
                    items.append((name, _hashable_int(v)))  # type: ignore[arg-type]
                elif kind is str:
                    items.append((name, v))
                elif kind is Fraction:
                    items.append((name, (_hashable_int(v.numerator), _hashable_int(v.denominator))))  # type: ignore[union-attr]
                elif kind is bool:
                    items.append((name, ("bool", v)))
                else:
                    items.append((name, self.value(v)))
            out.append((prefix, tuple(items)))
        if f.delivered:
            out.append((prefix, "delivered", tuple(sorted((k, self.value(v)) for k, v in f.delivered.items()))))
        pins = f.pins
        if pins:
            for name in sorted(pins):
                self.frame(pins[name], out, f"{prefix}{name}.", seen)

    def loop(self, t: Token) -> tuple[object, ...]:
        """Where a loop a fine run performs pass by pass stands: its phase, and a `for` loop's place in
        its elements (a `while` pass count tells no two states apart the values do not)."""
        state = t.loop
        if state is None:
            return ()
        if not state.items:
            return (state.test,)
        if isinstance(state.items, range):  # a long range, walked lazily: its bounds say which it is
            return (state.test, state.passes, ("range", state.items.start, state.items.stop))
        return (state.test, state.passes, tuple(self.value(x) for x in state.items))

    def text(self) -> str:
        return "\n".join(str(p) for p in self.parts())

    def parts(self) -> tuple[object, ...]:
        run = self.run
        tokens = []
        live = run.live_tokens()
        paths: dict[int, tuple[tuple[int, str], ...]] = {}
        for t in live:
            flow = t.flow
            path = paths.get(id(flow))
            if path is None:
                path = paths[id(flow)] = _flow_path(flow)
            joinish = t.node in flow.graph.converging
            tokens.append((path, t.node, t.via if joinish else -1, t.waiting_accept,
                           str(t.wake) if t.wake is not None else "", t.body is not None,
                           len(t.group) if t.group else 0, self.loop(t)))
        tokens.sort()
        parts: list[object] = [tuple(tokens)]
        values: list[object] = []
        seen: set[int] = set()
        self.frame(run.root.frame, values, "", seen)
        for t in live:
            if id(t.flow.frame) not in seen:
                self.frame(t.flow.frame, values, f"{paths[id(t.flow)]}:", seen)
        parts.append(tuple(values))
        ctx = run.ctx
        for name in sorted(ctx.usage_objects):
            obj = ctx.objects.get(ctx.usage_objects[name].id)
            if obj is not None:
                parts.append(name + "{" + ",".join(f"{k}={self.value(obj.values[k])}" for k in sorted(obj.values)) + "}")
        if ctx.bus:
            parts.append("bus:" + ";".join(f"{self.value(m.payload)}>{m.to}" for m in ctx.bus))
        now = ctx.clock.now
        parts.append((now.numerator, now.denominator))  # a Fraction hashes slowly
        parts.append(run.status)
        return tuple(parts)


def fingerprint(run: Run, readable: frozenset[str] | None = None) -> bytes:
    """16 bytes standing for the canonical state (what the visited set keeps, not the state)."""
    parts = Canon(run, readable).parts()
    # One 64-bit hash of where the tokens stand (with objects, bus, clock and status), one of the
    # values. Not hash(parts) twice: a tuple's hash mixes only its items' hashes, so a second hash of
    # the same items follows from the first and adds nothing (found by a helper's review).
    first = hash((parts[0], parts[2:]))
    second = hash(parts[1])
    return first.to_bytes(8, "little", signed=True) + second.to_bytes(8, "little", signed=True)


def stable_fingerprint(run: Run) -> bytes:
    """A fingerprint equal across processes (for files and tests): a digest of the canonical text."""
    return hashlib.blake2b(Canon(run).text().encode(), digest_size=16).digest()
