"""A behavior that is no action: two actors over counters, each moving once. `inc` adds one to `a`,
`dbl` doubles `b`; sharing one counter (`a` is `b`), their order decides the end value."""

from __future__ import annotations

from fractions import Fraction

import ir
from engines.errors import RunError
from engines.runtime.behavior import Actor, Move, MoveKind, Summary
from engines.runtime.evaluate import Frame
from engines.runtime.lowered import LoweredModel
from engines.runtime.schedule import make_scheduler
from engines.runtime.snapshot import Snapshot, SnapshotError
from engines.runtime.world import Context
from ir.graphs import Footprint

NAMES = {1: "inc", 2: "dbl"}


def new_world() -> Context:
    model = ir.resolve([ir.parse("package empty { }", "empty.sysml")])
    return Context(LoweredModel(model), make_scheduler("reverse"))


class Counter:
    """The fake: plain fields only (a snapshot keeps them whole), no journal needed."""

    def __init__(self, world: Context, shared: bool) -> None:
        self._world = world
        self.shared = shared
        self.values = (("n", 1),) if shared else (("a", 0), ("b", 1))
        self.left: tuple[int, ...] = (1, 2)
        self.moves_taken: list[Move] = []
        self.error: RunError | None = None
        self._touch = {actor: self._touches(actor) for actor in NAMES}

    def _feature(self, actor: int) -> str:
        return "n" if self.shared else ("a" if actor == 1 else "b")

    def _touches(self, actor: int) -> Summary:
        feature = frozenset({self._feature(actor)})
        return Footprint(reads=feature, writes=feature)

    @property
    def world(self) -> Context:
        return self._world

    @property
    def finished(self) -> bool:
        return not self.left

    def enabled_moves(self) -> list[Move]:
        return [Move(MoveKind.DO_STEP, actor, f"{actor}@{NAMES[actor]}", NAMES[actor]) for actor in self.left]

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        if move.actor not in self.left:
            raise RunError(f"{move.label} is not enabled")
        mark = self._world.trace.mark()
        feature = self._feature(move.actor)
        values = dict(self.values)
        values[feature] = values[feature] + 1 if move.actor == 1 else values[feature] * 2
        self.values = tuple(sorted(values.items()))
        self.left = tuple(a for a in self.left if a != move.actor)
        self.moves_taken.append(move)
        self._world.trace.flush_left(f"{move.label}: {feature} = {values[feature]}")
        return self._world.trace.since(mark)

    def stuck(self) -> str | None:
        return None

    def next_wake(self) -> Fraction | None:
        return None

    def let_time_pass(self) -> bool:
        return False

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        return (self.values, self.left)

    def actors(self) -> list[Actor]:
        return [Actor(actor, NAMES[actor]) for actor in self.left]

    def footprint(self, move: Move) -> Summary:
        return self._touch[move.actor]

    def future(self, actor: Actor) -> Summary:
        return self._touch[actor.id]

    def outputs(self) -> dict[str, str]:
        return {name: str(value) for name, value in self.values}

    def own_outputs(self) -> dict[str, str]:
        return self.outputs()

    def travelled(self) -> None:
        return None  # no states to enter

    def settled(self) -> bool:
        return True

    def feature_path(self, name: str) -> str:
        return name

    def known_features(self) -> set[str]:
        return set(self.outputs())

    def scope(self) -> Frame:
        return Frame("counter", None)

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        return Snapshot(self, allow_replay)

    def inside_move(self) -> bool:
        return False

    def unjournaled(self) -> str | None:
        return None

    def movers(self) -> list[object]:
        return [self]

    def history(self) -> object:
        return None

    def rewind(self, history: object) -> None:
        raise SnapshotError("a counter is always journaled")
