"""The behavior protocol: what every behavior in a world offers and all that the engines see of it.

A behavior (an action's performance, a state machine's, an environment sending events) moves one
move at a time: `enabled_moves()` lists what may happen next, `apply(move)` makes one happen.
Between moves it tells the engines whether it ended (`finished`, `error`) or cannot go on
(`stuck()`), when time must pass before it can (`next_wake()`), its canonical state
(`state_key()`), what a move and an actor's future may touch (`footprint()`, `future()`, for
partial-order reduction) and the values it ends with (`outputs()`). Snapshots cover the behavior
and the world it acts on (engines/runtime/snapshot.py). Several behaviors on one world and one
clock are one behavior again (`Ensemble`): its enabled moves are theirs.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from ir.graphs import Footprint

if TYPE_CHECKING:
    from engines.errors import RunError
    from engines.runtime.evaluate import Frame
    from engines.runtime.snapshot import Snapshot
    from engines.runtime.world import Context


class MoveKind(Enum):
    """What a move is."""

    TOKEN = "token"  # a token advancing one node of an action's flow (one performance)
    DISPATCH = "dispatch"  # a state machine taking one event to completion
    DO_STEP = "do step"  # one move of a state's active do behavior
    UNIT = "firing unit"  # one unit of a machine's firing in progress (an entry, an exit, an effect)
    SEND = "environment send"  # the environment putting one event on the bus
    CLOCK = "clock"  # time moving to the next instant something waits for


class ChoiceKind(Enum):
    """Which kind of choice taking a move (or a scheduler's pick) resolves."""

    TOKEN_ORDER = "token order"
    DECISION_BRANCH = "decision branch"
    TRANSITION = "transition"
    REGION_ORDER = "region order"
    CHOICE_BRANCH = "choice branch"
    DISPATCH_ORDER = "dispatch order"
    STEP_ORDER = "do step or dispatch"
    DUE_ORDER = "executor order"


@dataclass(frozen=True)
class Move:
    """One enabled move: what it is, who makes it, and how a witness names it (`2@heat`,
    `3@decide to cold`)."""

    kind: MoveKind
    actor: int  # the number of who moves (a token's); schedules order moves by it
    label: str
    at: str = ""  # where the actor stands: a node, a state
    option: str | None = None  # the alternative it takes: a decision's branch, a transition
    choice: ChoiceKind = ChoiceKind.TOKEN_ORDER


@dataclass(frozen=True)
class Actor:
    """Who may still move: its number (as moves name it) and where it stands, spelled so that two
    states alike but for numbering give their actors equal places."""

    id: int
    place: Hashable


@dataclass(frozen=True)
class ObjectEnd:
    """One object of an instance where a schedule left it: the configuration of the machines it
    exhibits (each named where it exhibits several: `life: bright, watch: on`), the states they
    entered in order, and its features (its parts, objects of their own, left out)."""

    path: str  # from the instance's root; "" for the root
    final_state: str
    visits: tuple[str, ...]
    slots: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Travelled:
    """What a machine's or an instance's schedule passed through, beyond the values it ended with: the
    states entered, in order, and of an instance each object's end. Not part of a state (two schedules
    to one state may enter different states on the way): a report takes it from one schedule."""

    visits: tuple[str, ...]
    objects: tuple[ObjectEnd, ...] = ()


# What a move (or everything an actor may still do) touches, as the reducer compares footprints: the
# features it reads and writes, whether it sends or accepts, the control points it reaches (joins,
# merges) as keys only the behavior that made them reads, and whether it is dynamic. The one
# footprint type (ir.graphs.Footprint), its control keys left to each behavior.
Summary = Footprint[Any]


def dependent(a: Summary, b: Summary) -> bool:
    """Whether the order of two moves with these footprints can matter (engines/check/reduce.py
    states the clauses): one writes what the other reads or writes, both send or accept, both reach
    one merge or fire one join, one fires a join the other arrives at, both arrive at one join from
    one source, or either is dynamic."""
    if a.dynamic or b.dynamic:
        return True
    if a.writes & (b.reads | b.writes) or b.writes & a.reads:
        return True
    if (a.sends or a.accepts) and (b.sends or b.accepts):
        return True
    if a.control & b.control:
        return True
    if a.arrivals or b.arrivals:
        # a firing against an arrival at its join; two arrivals from one source (conservative: a
        # firing takes one token over each succession, see Footprint); other arrivals commute
        return bool(a.arrivals & b.arrivals) or any(j in b.control for j, _ in a.arrivals) \
            or any(j in a.control for j, _ in b.arrivals)
    return False


class Behavior(Protocol):
    """The protocol every behavior implements and every engine (check, explore, the witness replay,
    the debugger) sees; between two moves only."""

    @property
    def world(self) -> Context:
        """The world it acts on: objects, bus, clock, trace, journal."""
        ...

    @property
    def finished(self) -> bool:
        """It ended: completed, or failed with `error`."""
        ...

    @property
    def error(self) -> RunError | None: ...

    @property
    def moves_taken(self) -> list[Move]:
        """The moves applied so far, in order."""
        ...

    def enabled_moves(self) -> list[Move]:
        """What may happen next, in a stable order (the order explore tries them in)."""
        ...

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        """Make one enabled move happen; the trace lines it wrote. A RunError it raises also ends it.
        `at`: the fingerprint of the state it stands in (engines/check/canon.py), given by a caller that
        has just listed `move` among that state's enabled moves (the search): the move is not looked up
        again, and a firing it leaves in progress is keyed by that state."""
        ...

    def stuck(self) -> str | None:
        """Why it cannot go on though it has not finished (`deadlock: ...`), or None."""
        ...

    def next_wake(self) -> Fraction | None:
        """The earliest instant after now at which something of it waits to go on, or None."""
        ...

    def let_time_pass(self) -> bool:
        """With no move enabled, the clock moves to `next_wake()`; False when nothing waits."""
        ...

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        """Its canonical state, numbering excluded (the world's own is `Context.state_key`); features of
        ended performances only when `readable` holds them (None keeps every one)."""
        ...

    def actors(self) -> list[Actor]:
        """Who may still move, enabled or not."""
        ...

    def footprint(self, move: Move) -> Summary:
        """What the move may touch."""
        ...

    def future(self, actor: Actor) -> Summary:
        """What the actor may touch from where it stands on, this move and every later one."""
        ...

    def outputs(self) -> dict[str, str]:
        """Every feature it holds, by path, spelled as the corpus spells values."""
        ...

    def own_outputs(self) -> dict[str, str]:
        """The features compared between schedules when none are named: its own."""
        ...

    def settled(self) -> bool:
        """No firing stands partway (a machine's dispatch whose units are moves of their own): a state a
        property is judged at, as no transient value inside one dispatch is a violation."""
        ...

    def travelled(self) -> Travelled | None:
        """The states its machines entered so far and, of an instance, where each object stands;
        None for an action, which enters no states."""
        ...

    def feature_path(self, name: str) -> str:
        """A feature named in the behavior's own words (`this.x`) as `outputs` names it."""
        ...

    def known_features(self) -> set[str]:
        """Every feature path it may report on some schedule (known before any move)."""
        ...

    def scope(self) -> Frame:
        """The frame its names are read in (a property evaluated at a state reads there)."""
        ...

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        """It and its world as they stand, to restore (repeatably) until released."""
        ...
