"""A machine with its environment: the events a script or an alphabet may send, each one move of
its own (MoveKind.SEND) that interleaves with the machine's moves at every point between two of
them, and the horizon time may run to. What check and explore search when they search a machine.

Scripted: the events in script order, each sent once (`--send`, `--events`, `%send`). Alphabet: any
event of the alphabet, in any order, up to `max_events` in all (after the script's, if both).

Ending. A machine whose final state is reached, or that fails, has finished. One that rests (no move
enabled, no timer due within the horizon) where an event it could accept may still be sent, or is
simply never sent, is *quiescent*: a run's regular end, reported as an outcome (its `finalState`), not
a deadlock. A deadlock is a machine that rests where nothing could ever move it again, whatever the
environment sends: no transition of an active state is triggered by a signal or a call and no do
behavior waits at an accept (engines/runtime/states/moves.py `stuck`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from engines.runtime.behavior import Actor, ChoiceKind, Move, MoveKind, Summary, Travelled
from engines.runtime.evaluate import Frame
from engines.runtime.snapshot import Snapshot
from engines.runtime.states.environment import EnvEvent, EnvironmentInputError
from engines.runtime.states.instance_run import InstanceRun
from engines.runtime.states.instants import send_grid
from engines.runtime.states.machine import MachineRun
from engines.runtime.values import spell
from engines.runtime.world import Context
from ir.graphs import Footprint

ENVIRONMENT = -1  # the environment's actor number
M = TypeVar("M", MachineRun, InstanceRun)  # what the environment drives: a machine, or an instance


@dataclass(frozen=True)
class Script:
    """What the environment may do: send `events` in order, then any of `alphabet` up to
    `max_events` times; time runs to `horizon` (None: as far as the machine waits)."""

    events: tuple[EnvEvent, ...] = ()
    alphabet: tuple[EnvEvent, ...] = ()
    max_events: int = 0
    horizon: Fraction | None = None
    replay: bool = False  # a witness's: the environment may also stop sending wherever the machine rests
    stops: bool = False  # a witness's whose environment stopped (its alphabet's STOP move)
    instants: tuple[Fraction, ...] = ()  # a witness's: the instants its environment let time pass to

    def __post_init__(self) -> None:
        if self.max_events < 0:
            raise EnvironmentInputError(f"--max-events {self.max_events}: the number of events is 0 or more")
        if self.alphabet and not self.max_events:
            raise EnvironmentInputError("an alphabet needs --max-events N (how many events the environment "
                                        "may send in all)")

    def describe(self) -> str:
        parts = []
        if self.events:
            parts.append("sends " + ", ".join(e.text() for e in self.events))
        if self.alphabet:
            parts.append(f"any of {', '.join(e.text() for e in self.alphabet)} up to {self.max_events} times")
        if self.horizon is not None:
            parts.append(f"time up to {self.horizon}s")
        return "; ".join(parts) or "sends nothing"


# the environment of an alphabet sending nothing more (where the machine rests: sooner adds nothing)
STOP = Move(MoveKind.SEND, ENVIRONMENT, "environment stops", "environment", None, ChoiceKind.TOKEN_ORDER)


def send_move(event: EnvEvent) -> Move:
    # a witness lists the moves enabled with ", " between them: none is inside a label
    label = "send " + event.text().replace(", ", ",")
    return Move(MoveKind.SEND, ENVIRONMENT, label, "environment", event.text(), ChoiceKind.TOKEN_ORDER)


class Driven(Generic[M]):
    """A machine (or an instance, instance_run.py) and its environment as one behavior
    (engines/runtime/behavior.py)."""

    def __init__(self, start: Callable[[], M], script: Script) -> None:
        self._start: Callable[[], M] = start
        self.script = script
        self._begin()
        # the grid of instants a send may come at, between the machine's own (instants.py)
        self.grid = None if script.replay else send_grid(self.machine.program.model, script.horizon,
                                                          len(script.events) + script.max_events)

    def _begin(self) -> None:
        self.machine: M = self._start()
        self.sent = 0  # the script's events sent
        self.drawn = 0  # the alphabet's events sent
        self.stopped = False  # a witness's environment said it sends no more
        self.moves_taken: list[Move] = []
        for event in (*self.script.events, *self.script.alphabet):
            self.machine.check_signal(event)

    # ------------------------------------------------------------ the protocol

    @property
    def world(self) -> Context:
        return self.machine.ctx

    @property
    def subject(self) -> str:
        """The machine's qualified name."""
        return self.machine.element.qualified_name

    @property
    def error(self):  # type: ignore[no-untyped-def]
        return self.machine.error

    @property
    def finished(self) -> bool:
        return self.machine.finished or self.quiescent()

    @property
    def broken_assertions(self) -> tuple[str, ...]:
        """The assertions of the machine's behaviors (an entry, do or exit given as an action usage)
        found false where a performance of one ended."""
        broken: tuple[str, ...] = getattr(self.machine, "broken_assertions", ())
        return broken

    def quiescent(self) -> bool:
        """Resting where only an event could move it (see the module docstring)."""
        # a machine that surely moves has a move listed (the environment's sends only add to it)
        return (not self.machine.finished and not self.machine.surely_moves() and not self.enabled_moves()
                and self.next_wake() is None and self.machine.stuck() is None)

    def environment_moves(self) -> list[Move]:
        if self.sent < len(self.script.events):
            if self.script.replay and self._resting():
                return [send_move(self.script.events[self.sent]), STOP]
            return [send_move(self.script.events[self.sent])]
        if self.script.stops and not self.stopped and self._resting():
            return [STOP]  # a witness's alphabet that stopped after its last send (or before any)
        if self.drawn < self.script.max_events:
            moves = [send_move(e) for e in self.script.alphabet]
            if self._resting():
                moves.append(STOP)  # up to N: the environment may also send no more
            return moves
        return []

    def _resting(self) -> bool:
        """Nothing of the machine's own can move and no timer is due within the horizon."""
        return not self.machine.surely_moves() and not self.machine.enabled_moves() and self.next_wake() is None

    def enabled_moves(self) -> list[Move]:
        if self.machine.finished:
            return []
        if self.machine.front is not None:
            return self.machine.enabled_moves()  # a firing in progress reads no pool: a send commutes with it
        # the environment first: the fixed policies' run has every scripted event in the pool at the start
        sends = self.environment_moves()
        own = self.machine.enabled_moves()
        if sends and not own and (to := self._time_passes_to()) is not None:
            # the environment may send now, or later: at the machine's next timer, or at an instant
            # between (a point of the grid); time passing is a move here, against the sends (where
            # nothing else could move, it is no choice)
            own = [Move(MoveKind.CLOCK, ENVIRONMENT, f"time passes to {spell(to)}s", "clock", spell(to),
                        ChoiceKind.DUE_ORDER)]
        return sends + own

    def _time_passes_to(self) -> Fraction | None:
        """Where time may pass to while the environment may still send: the machine's next wake, or
        the next instant on the grid of send instants before it (a witness's: the next it names)."""
        wake = self.next_wake()
        now, horizon = self.world.clock.now, self.script.horizon
        point: Fraction | None = None
        if self.script.replay and horizon is not None:  # with no horizon the check had no grid
            point = next((t for t in self.script.instants if t > now), None)
        elif self.grid is not None:
            point = (now // self.grid + 1) * self.grid
        if point is None or (horizon is not None and point > horizon) or (wake is not None and point >= wake):
            return wake
        return point

    def apply(self, move: Move, *, at: bytes | None = None, listed: bool = False) -> list[str]:
        """As the protocol's; `listed` (a rewind's replay): the machine's move is not looked up again."""
        if move.kind is MoveKind.CLOCK:
            to = self._time_passes_to()
            if to is None or self.machine.enabled_moves() or spell(to) != move.option:
                from engines.errors import RunError

                raise RunError(f"{move.label} is not enabled", "clock")
            self.moves_taken.append(move)
            if to == self.next_wake():
                self.let_time_pass()
            else:
                self.machine.pass_time_to(to)  # no timer is due then: only the clock moves
            return []
        if move.kind is not MoveKind.SEND:
            self.moves_taken.append(move)
            return self.machine.apply(move, at=at, listed=listed)
        enabled = self.environment_moves()
        if move == STOP and STOP in enabled:
            self.moves_taken.append(move)
            self.drawn = self.script.max_events
            self.sent = len(self.script.events) if self.script.replay else self.sent
            self.stopped = True
            return []
        event = next((self._event(m) for m in enabled if m.label == move.label), None)
        if event is None:
            from engines.errors import RunError

            raise RunError(f"{move.label} is not enabled", "environment")
        self.moves_taken.append(move)
        mark = self.world.trace.mark()
        if self.sent < len(self.script.events):
            self.sent += 1
        else:
            self.drawn += 1
        self.world.trace.flush_left(f"environment: send {event.text()}")
        self.machine.send(event)
        return self.world.trace.since(mark)

    def _event(self, move: Move) -> EnvEvent:
        if self.sent < len(self.script.events):
            return self.script.events[self.sent]
        return next(e for e in self.script.alphabet if e.text() == move.option)

    def stuck(self) -> str | None:
        if self.finished or self.enabled_moves() or self.next_wake() is not None:
            return None
        return self.machine.stuck()

    def next_wake(self) -> Fraction | None:
        wake = self.machine.next_wake()
        horizon = self.script.horizon
        if wake is None or (horizon is not None and wake > horizon):
            return None
        return wake

    def let_time_pass(self) -> bool:
        if self.next_wake() is None:
            return False
        return self.machine.let_time_pass()

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        return (self.machine.state_key(readable), self.sent, self.drawn)

    def actors(self) -> list[Actor]:
        """The machine's actors, and the environment while it may still send."""
        own: list[Actor] = self.machine.actors()
        if not self._may_send():
            return own
        return [Actor(ENVIRONMENT, (self.machine.environment_place(), self.sent, self.drawn)), *own]

    def _may_send(self) -> bool:
        return not self.machine.finished and (self.sent < len(self.script.events)
                                              or self.drawn < self.script.max_events)

    def footprint(self, move: Move) -> Summary:
        """A send writes the machine's pool; time passing its timers and the clock; STOP touches only
        the environment's own count (it is the environment's one move then: nothing to order)."""
        if move == STOP:
            return Footprint()
        return self.machine.footprint(move)

    def future(self, actor: Actor) -> Summary:
        if actor.id == ENVIRONMENT and not self._may_send():
            return Footprint()
        return self.machine.future(actor)

    def enablers(self, actor: Actor) -> list[int] | None:
        """The environment, when it may send but cannot now, waits for the machine (a firing in
        progress): one of the machine's moving actors must move first."""
        if actor.id == ENVIRONMENT:
            if self.machine.front is not None:
                return self.machine.enablers(actor)
            return sorted({m.actor for m in self.machine.enabled_moves()}) or None
        return self.machine.enablers(actor)

    def outputs(self) -> dict[str, str]:
        out = self.machine.machine_outputs()
        out["stateVisits"] = "[" + ", ".join(self.machine.visits) + "]"
        return out

    def own_outputs(self) -> dict[str, str]:
        return self.machine.own_outputs()

    def travelled(self) -> Travelled | None:
        return self.machine.travelled()

    def settled(self) -> bool:
        return self.machine.settled()

    def feature_path(self, name: str) -> str:
        return self.machine.feature_path(name)

    def known_features(self) -> set[str]:
        return self.machine.known_features()

    def scope(self) -> Frame:
        return self.machine.scope()

    # ------------------------------------------------------------ what a snapshot needs

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        return Snapshot(self, allow_replay)

    def inside_move(self) -> bool:
        return False

    def unjournaled(self) -> str | None:
        return self.machine.unjournaled()

    def movers(self) -> list[object]:
        return [self, *self.machine.movers()]

    def history(self) -> object:
        return tuple(self.moves_taken)

    def rewind(self, history: object) -> None:
        """A fresh machine and environment, then the moves of `history` again."""
        trace_on = self.world.trace.enabled
        self._begin()
        self.world.trace.enabled = trace_on
        for move in history:  # type: ignore[attr-defined]
            self._time_passes()
            # each move was enabled where it was made, and this fresh run makes the same moves again
            self.apply(move, listed=True)
        self._time_passes()  # a snapshot is taken where a move is enabled

    def _time_passes(self) -> None:
        """Where nothing could move, time passed (no move of its own: not in the history)."""
        while not self.machine.finished and not self.machine.surely_moves() and not self.enabled_moves() \
                and self.let_time_pass():
            pass


def replay_script(taken: list[str], horizon: str | None = None) -> Script:
    """The environment a witness's moves name: its sends, in its order (`send Go(speed=3,mode=1)`), and
    the instant time stops at, where the check had one (the witness's `horizon:`)."""
    from engines.runtime.states.environment import parse_addressed

    events = tuple(parse_addressed(label.removeprefix("send ")) for label in taken if label.startswith("send "))
    instants = tuple(Fraction(label.removeprefix("time passes to ").removesuffix("s"))
                     for label in taken if label.startswith("time passes to "))
    return Script(events, replay=True, stops=STOP.label in taken,
                  horizon=Fraction(horizon) if horizon is not None else None, instants=instants)
