"""Several behaviors in one world on one clock, as one behavior: its enabled moves are theirs.

Members number their actors each on their own (an action's tokens from 1), so the ensemble renames:
a member's actor `a` is `a * n + i` here (i the member's index, n how many there are, so each
member's order among its own moves is kept), its moves are labelled `name: label`, and an actor's
place says whose it is. Time is the world's: it moves to the earliest instant any member waits for.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import cast

from engines.errors import RunError
from engines.runtime.behavior import Actor, Behavior, Move, Summary, Travelled
from engines.runtime.evaluate import Frame
from engines.runtime.snapshot import Restorable, Snapshot, SnapshotError
from engines.runtime.world import Context

_OWN = ("finalState", "stateVisits")  # what every machine reports of itself


class Ensemble:
    """Named behaviors acting on one world; implements the behavior protocol over them."""

    def __init__(self, world: Context, members: Sequence[tuple[str, Behavior]],
                 route: Callable[[int], None] | None = None, after: Mapping[int, Sequence[int]] | None = None) -> None:
        """`members` by name; `route(i)`, where given, delivers what member i's move sent (an instance's
        routing), else a machine takes what is addressed to it by name; a member of `after` starts once
        the members it names have finished (a succession between two performed actions)."""
        if not members:
            raise ValueError("an ensemble holds at least one behavior")
        for name, member in members:
            if member.world is not world:
                raise ValueError(f"{name} acts on a world of its own, not the ensemble's")
        self._world = world
        world.shared_bus = len(members) > 1 and any(member.future(a).sends for _, member in members
                                                    for a in member.actors())
        self.names = [name for name, _ in members]
        self.members = [member for _, member in members]
        self.moves_taken: list[Move] = []
        self._inner: dict[Move, tuple[int, Move]] = {}
        self._route = route
        self._after = {i: tuple(before) for i, before in (after or {}).items()}

    def _ready(self, index: int) -> bool:
        """Whether member `index` may move: not finished, and every member it comes after finished."""
        return not self.members[index].finished and all(self.members[j].finished for j in self._after.get(index, ()))

    # ------------------------------------------------------------ the protocol

    @property
    def world(self) -> Context:
        return self._world

    @property
    def error(self) -> RunError | None:
        return next((m.error for m in self.members if m.error is not None), None)

    @property
    def finished(self) -> bool:
        """Every member ended, or the ensemble rests where no member is stuck: a machine waiting for
        an event nothing in the world sends is quiescent, an end like any other (a member stuck, an
        action waiting at an accept no one feeds, is a deadlock)."""
        if self.error is not None or all(m.finished for m in self.members):
            return True
        live = [m for m in self.members if not m.finished]
        ready = [m for i, m in enumerate(self.members) if self._ready(i)]
        return (not any(m.enabled_moves() for m in ready) and all(m.next_wake() is None for m in live)
                and all(m.stuck() is None for m in live))

    def enabled_moves(self) -> list[Move]:
        if self.error is not None:
            return []
        count = len(self.members)
        inner: dict[Move, tuple[int, Move]] = {}
        moves: list[Move] = []
        for i, member in enumerate(self.members):
            if not self._ready(i):
                continue
            for move in member.enabled_moves():
                outer = replace(move, actor=move.actor * count + i, label=f"{self.names[i]}: {move.label}")
                inner[outer] = (i, move)
                moves.append(outer)
        self._inner = inner
        return moves

    def _member_move(self, move: Move) -> tuple[int, Move]:
        found = self._inner.get(move)
        if found is None:
            self.enabled_moves()
            found = self._inner.get(move)
        if found is None:
            raise RunError(f"{move.label} is not enabled", move.at)
        return found

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        index, own = self._member_move(move)
        self.moves_taken.append(move)
        lines = self.members[index].apply(own, at=at)
        if self._route is not None:
            try:
                self._route(index)
            except RunError as err:
                # a message the move sent that cannot be delivered: the member that sent it fails with it,
                # so the ensemble has ended as the search and a witness's replay both see it
                member = self.members[index]
                member.status, member.error = "failed", err  # type: ignore[attr-defined,misc]
                raise
            return lines
        for member in self.members:
            # what a member sent another by name is that one's at once (a machine's pool)
            take = getattr(member, "take_addressed", None)
            if take is not None and not member.finished:
                take()
        return lines

    def stuck(self) -> str | None:
        if self.finished or self.enabled_moves() or self.next_wake() is not None:
            return None
        reasons = [f"{name}: {why.removeprefix('deadlock: ')}" for name, m in zip(self.names, self.members, strict=True)
                   if not m.finished and (why := m.stuck()) is not None]
        return "deadlock: " + "; ".join(reasons) if reasons else None

    def next_wake(self) -> Fraction | None:
        wakes = [w for w in (m.next_wake() for m in self.members) if w is not None]
        return min(wakes) if wakes else None

    def let_time_pass(self) -> bool:
        """The clock to the earliest instant a member waits for; each member that keeps rounds per
        instant (a machine's do behaviors, its batch of timers due) told of the new instant."""
        wake = self.next_wake()
        if wake is None:
            return False
        self.pass_time_to(wake)
        return True

    def pass_time_to(self, instant: Fraction) -> None:
        """The clock at `instant` (the earliest wake, or one before it the environment may send at),
        each member that keeps rounds per instant told of it."""
        for member in self.members:
            tell = getattr(member, "pass_time_to", None)
            if tell is not None and not member.finished:
                tell(instant)
        self._world.clock.advance_to(instant)

    @property
    def broken_assertions(self) -> tuple[str, ...]:
        """Its members' step assertions found false (each keeps them in its own state key)."""
        return tuple(sorted({name for m in self.members for name in getattr(m, "broken_assertions", ())}))

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        return tuple(m.state_key(readable) for m in self.members)

    def actors(self) -> list[Actor]:
        count = len(self.members)
        return [Actor(a.id * count + i, (i, a.place)) for i, m in enumerate(self.members) for a in m.actors()]

    def footprint(self, move: Move) -> Summary:
        index, own = self._member_move(move)
        return self.members[index].footprint(own)

    def future(self, actor: Actor) -> Summary:
        index, place = cast("tuple[int, object]", actor.place)
        return self.members[index].future(Actor(actor.id // len(self.members), place))

    def enablers(self, actor: Actor) -> list[int] | None:
        """A member's answer (engines/check/reduce.py), in the ensemble's actor numbers."""
        count = len(self.members)
        index, place = cast("tuple[int, object]", actor.place)
        asked = getattr(self.members[index], "enablers", None)
        ids = asked(Actor(actor.id // count, place)) if asked is not None else None
        return None if ids is None else [i * count + index for i in ids]

    def outputs(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, member in zip(self.names, self.members, strict=True):
            out.update(self._own(name, {**member.outputs(), **member.own_outputs()}))
        return dict(sorted(out.items()))

    def travelled(self) -> Travelled | None:
        return None  # its members' own: an instance (instance_run.py) reports them by object

    def settled(self) -> bool:
        return all(m.settled() for m in self.members)

    def own_outputs(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, member in zip(self.names, self.members, strict=True):
            out.update(self._own(name, member.own_outputs()))
        return dict(sorted(out.items()))

    def _own(self, name: str, values: dict[str, str]) -> dict[str, str]:
        """A member's values, what every machine reports of itself (`finalState`, `stateVisits`) named
        by the member where several are together (`turner.finalState`)."""
        if len(self.members) == 1:
            return values
        return {f"{name}.{k}" if k in _OWN else k: v for k, v in values.items()}

    def feature_path(self, name: str) -> str:
        return self.members[0].feature_path(name)

    def known_features(self) -> set[str]:
        return set().union(*(m.known_features() for m in self.members))

    def scope(self) -> Frame:
        return self.members[0].scope()

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        return Snapshot(self, allow_replay)

    # ------------------------------------------------------------ what a snapshot needs

    def inside_move(self) -> bool:
        return any(_restorable(m).inside_move() for m in self.members)

    def unjournaled(self) -> str | None:
        return next((why for m in self.members if (why := _restorable(m).unjournaled()) is not None), None)

    def movers(self) -> list[object]:
        return [self, *(o for m in self.members for o in _restorable(m).movers())]

    def history(self) -> object:
        return None

    def rewind(self, history: object) -> None:
        raise SnapshotError("an ensemble's state held outside the journal cannot be replayed: its members "
                            "restart in worlds of their own")


def _restorable(member: Behavior) -> Restorable:
    """A member as its snapshot sees it (every behavior whose `snapshot` is a Snapshot is one)."""
    return cast(Restorable, member)
