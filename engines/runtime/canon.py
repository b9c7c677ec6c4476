"""The canonical spelling of a world's state and of the frames behaviors hold in it: ids excluded,
objects by the usage that made them (or, anonymous, by type and values)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from engines.runtime.evaluate import Frame
from engines.runtime.values import ObjectRef, Sequence, Value, spell

if TYPE_CHECKING:
    from engines.runtime.world import Context


# Python's hash of an int collides by construction: hash(-1) == hash(-2) (-1 is CPython's error code),
# and ints are hashed modulo the Mersenne prime 2**61 - 1. The fingerprint hashes values as
# themselves, so such ints are spelled instead: a -1 and a -2 must never be one visited state.
_HASH_MODULUS = (1 << 61) - 1


def _hashable_int(n: int) -> object:
    if n != -1 and -_HASH_MODULUS < n < _HASH_MODULUS:
        return n
    return ("int", str(n))


class Canon:
    """Spells values and frames the same way whatever numbers the world's objects happened to get."""

    def __init__(self, world: Context, readable: frozenset[str] | None = None) -> None:
        self.world = world
        # the features a finished performance can still be read by (ir.liveness); the others of a
        # sealed frame are left out, since no schedule can tell them apart any more
        self.readable = readable
        self._paths: dict[int, str] | None = None

    @property
    def paths(self) -> dict[int, str]:
        """The usage naming each object a usage made, by the object's number (built on first need: most
        keys spell no object)."""
        paths = self._paths
        if paths is None:
            paths = self._paths = {ref.id: name for name, ref in self.world.usage_objects.items()}
        return paths

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
        obj = self.world.objects.get(ref.id)
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
            if items or readable is None:  # (a finished performance holding nothing readable: as none)
                out.append((prefix, tuple(items)))
        if f.delivered:
            out.append((prefix, "delivered", tuple(sorted((k, self.value(v)) for k, v in f.delivered.items()))))
        pins = f.pins
        if pins:
            for name in sorted(pins):
                self.frame(pins[name], out, f"{prefix}{name}.", seen)

    def world_key(self) -> tuple[object, ...]:
        """The world's own state: the objects of part usages, the bus, the clock."""
        world = self.world
        parts: list[object] = []
        for name in sorted(world.usage_objects):
            obj = world.objects.get(world.usage_objects[name].id)
            if obj is not None:
                parts.append(name + "{" + ",".join(f"{k}={self.value(obj.values[k])}" for k in sorted(obj.values)) + "}")
        if world.bus:
            parts.append("bus:" + ";".join(f"{self.value(m.payload)}>{m.to}"
                                           + (f"@{self.value(m.holder)}" if m.holder is not None else "")
                                           for m in world.bus))
        now = world.clock.now
        parts.append((now.numerator, now.denominator))  # a Fraction hashes slowly
        return tuple(parts)
