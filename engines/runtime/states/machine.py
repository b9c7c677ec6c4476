"""A state machine's performance: its configuration (the active states of every region), its event
pool in arrival order with deferral, completion events before pool events, run-to-completion
dispatch, do behaviors stepped in rounds, timers on the run's clock, history, junctions, choices,
forks and joins, final states and terminate. Entries, exits, effects and guards run on the action
runtime, in the machine's frame, writing the corpus's trace lines.

One move is one dispatch (an event taken, the transitions it enables selected and fired, entries,
exits and effects run to completion) or one do round. The default policy takes regions in
declaration order and the first enabled transition, and reports each choice it made as the corpus's
goldens spell it."""

from __future__ import annotations

import weakref
from fractions import Fraction

from engines.errors import RunError
from engines.runtime.actions import Run
from engines.runtime.actions.tokens import Terminated
from engines.runtime.behavior import Move
from engines.runtime.calls import constructor_features
from engines.runtime.evaluate import Frame
from engines.runtime.lowered import LoweredModel
from engines.runtime.schedule import make_scheduler
from engines.runtime.states.bodies import interleaves
from engines.runtime.states.core import DoRun, Event, Timer
from engines.runtime.states.environment import (
    EnvEvent,
    EnvironmentInputError,
    EventKind,
    UnknownSignalError,
    named_by,
)
from engines.runtime.states.layout import Shape, Transition, Vertex, shape_of
from engines.runtime.states.moves import MachineMoves
from engines.runtime.states.units import Alone, Front, run_whole
from engines.runtime.values import ObjectRef, Signal
from engines.runtime.world import Context
from ir.errors import close_names
from ir.model import Element, Model
from ir.resolve import lookup


class MachineRun(MachineMoves):
    """One performance of a state machine, stepped move by move or run until nothing is left to do."""

    def __init__(self, program: LoweredModel, element: Element, schedule: str = "reverse",
                 performer: str | None = None, max_steps: int | None = None, ctx: Context | None = None,
                 on: ObjectRef | None = None, units: bool = False) -> None:
        """A performance of `element`; in a world of its own, or in `ctx` performed by the object `on`
        (an exhibited state: its bodies read and write that object's features, its start is traced).
        With `units`, a firing whose units may take other orders is a firing in progress, a move per
        unit (moves.py), its start included."""
        self.program = program
        self.element = element
        self.shape: Shape = shape_of(program.model, element)
        self.ctx = ctx if ctx is not None else Context(program, make_scheduler(schedule), max_steps)
        program.hold_features(element)
        self.host = Run(self.ctx, element, performer)  # runs the bodies; its frame holds the features
        self.frame: Frame = self.host.root.frame
        self.shared = on is not None
        if on is not None:
            self.frame.performer = on
        self.active: set[Vertex] = set()
        self.pool: list[Event] = []
        self.deferred: list[Event] = []
        self.completions: list[Vertex] = []
        self.timers: list[Timer] = []
        self.timer_seq = 0
        self.histories: dict[Vertex, list[Vertex]] = {}
        self.dos: dict[Vertex, DoRun] = {}
        self.change_seen: dict[int, bool] = {}
        self.complete: set[Vertex] = set()  # active states whose completion event was generated
        self.joined: dict[Vertex, set[Transition]] = {}  # the segments arrived at each join
        self.visits: list[str] = []
        self.status = "running"
        self.error: RunError | None = None
        self.moves = 0
        self.unmatched: list[Event] = []
        self._entered_now: list[Vertex] = []
        self.moves_taken: list[Move] = []
        self.stepped: set[Vertex] = set()
        self.due_batch: list[Timer] = []
        self.units = units
        self.host.waits_on_clock = units
        self.front: Front | None = None
        self.alone: Alone | None = None
        self.front_dos: set[Vertex] = set()
        self.applying = False
        self.begun_key: tuple[object, ...] = ()
        # where a firing's units may take more than one order (regions, do steps, a behavior's
        # statements): there a firing in progress is keyed by the state it began in
        self.concurrent = _concurrent(self.shape)
        if units:
            try:
                self._begin_front(self._start(), "start", ("start",), quiet=on is None)
            except RunError as err:  # the start itself fails: a run that failed, as a move that fails is
                self.status = "failed"
                self.error = err
                self.front = None
        elif on is not None:
            run_whole(self._start())
        else:
            with self.ctx.trace.quiet():  # a machine's own trace begins after its initial configuration
                run_whole(self._start())

    @property
    def trace(self) -> list[str]:
        return self.ctx.trace.lines

    def send(self, event: EnvEvent) -> None:
        """The environment posts an event to the pool (arrival order)."""
        self._known(event)
        event = self._named(event)
        if event.kind == EventKind.VALUE:
            self.pool.append(Event("signal", event.name, event.value))
        elif event.kind == EventKind.CALL:
            self.pool.append(Event("call", event.name, Signal(event.name, None, event.args)))
        else:
            self.pool.append(Event("signal", event.name.rsplit("::", 1)[-1], Signal(event.name, None, event.args)))

    def check_signal(self, event: EnvEvent) -> None:
        """Refuse an event that no transition or accept of the machine, and no declaration, names, or
        whose positional arguments its definition cannot name."""
        self._known(event)
        self._named(event)

    def _known(self, event: EnvEvent) -> None:
        """Refuse an event that no transition or accept of the machine, and no declaration, names."""
        known = self.shape.signals() | self._declared_names()
        if event.kind != EventKind.VALUE and event.name.rsplit("::", 1)[-1] not in known:
            raise UnknownSignalError(
                f"no transition or accept of state machine {self.element.name} names the signal "
                f"'{event.name}', and the model declares none of that name"
                + (f" (signals it accepts: {', '.join(sorted(self.shape.signals()))})" if self.shape.signals() else ""))

    def _named(self, event: EnvEvent) -> EnvEvent:
        """The event's positional arguments named by its signal definition's features, in order; an
        argument naming no feature of the definition refused (`Call(flor=2)` where Call has `floor`)."""
        if event.kind == EventKind.VALUE:
            return event
        el = lookup(self.program.model, self.element, event.name)
        if el is not None and el.is_definition:
            features = [f.name for f in constructor_features(self.program.model, el)]
            unknown = [k for k, _ in event.args if k and k not in features]
            if unknown:
                hint = close_names(unknown[0], features)
                raise EnvironmentInputError(
                    f"{event.text()}: {el.name} has no feature '{unknown[0]}' (its features: "
                    f"{', '.join(features) or 'none'})" + (f"; did you mean '{hint[0]}'?" if hint else ""))
        if all(k for k, _ in event.args):
            return event
        if el is None or not el.is_definition:
            raise EnvironmentInputError(f"{event.name}: positional arguments need the signal's definition, "
                                        f"and the model has none named '{event.name}' (write name=value)")
        return named_by(event, [f.name for f in constructor_features(self.program.model, el)], el.name)

    def advance(self, seconds: Fraction) -> list[str]:
        """Move the clock by `seconds`: every timer due on the way fires, at its instant."""
        mark = self.ctx.trace.mark()
        horizon = self.ctx.clock.now + seconds
        self._settle(horizon)
        self.ctx.clock.advance_to(horizon)
        return self.ctx.trace.since(mark)

    def final_state(self) -> str:
        """The active state of every region, joined by `+` in region name order; down a region's
        single active path, its innermost state."""
        found: list[tuple[str, str]] = []

        def walk(v: Vertex, region: str) -> None:
            inner = [c for c in v.children if c in self.active]
            if v.parallel:
                for r in inner:
                    if any(x in self.active for x in r.children):
                        walk(r, r.name)
                    else:
                        found.append((r.name, r.name))  # a region that is a simple state of its own
                return
            for c in inner:
                if (c.parallel and region) or not any(x in self.active for x in c.children):
                    found.append((region, c.name))
                if any(x in self.active for x in c.children):
                    walk(c, region)
        walk(self.shape.machine, "")
        return "+".join(name for _, name in sorted(found, key=lambda f: f[0]))

    def outputs(self) -> dict[str, str]:
        return self.host.outputs()

    def configuration(self) -> list[tuple[int, str]]:
        """The active states as an indented tree: (depth, name), regions in declaration order."""
        out: list[tuple[int, str]] = []

        def walk(v: Vertex, depth: int) -> None:
            for c in v.children:
                if c in self.active:
                    out.append((depth, c.name))
                    walk(c, depth + 1)
        walk(self.shape.machine, 0)
        return out

    def step(self) -> bool:
        """One move at the present instant: a do round and/or one dispatch; False when the machine
        rests (finished, or waiting for the environment or the clock). The lines are in `trace`."""
        if self.finished:
            return False
        moved = False
        try:
            moved = self._move()
        except Terminated:
            self._terminate()
            moved = True
        except RunError as err:
            self.status = "failed"
            self.error = err
            raise
        return moved

    def run_to_end(self, horizon: Fraction | None = None) -> list[str]:
        """Every move until the machine finishes or rests; timers fire as the clock reaches them (up
        to `horizon` when given)."""
        mark = self.ctx.trace.mark()
        try:
            self._settle(horizon)
        except Terminated:
            self._terminate()
        except RunError as err:
            self.status = "failed"
            self.error = err
            raise
        return self.ctx.trace.since(mark)

    def _settle(self, horizon: Fraction | None) -> None:
        while not self.finished:
            if self._move():
                continue
            if not self._fire_timers(horizon):
                break

    def _terminate(self) -> None:
        self.status = "terminated"

    def _move(self) -> bool:
        """One do round and/or one dispatch; whether anything moved."""
        self.ctx.charge_step()
        moved = self._do_round()
        if self.finished:
            return True
        if self.completions:
            state = self.completions.pop(0)
            if state in self.active:
                self._dispatch_completion(state)
            return True
        if self.pool:
            self._dispatch(self.pool.pop(0))
            return True
        if self._change_event():
            return True
        return moved

    def _declared_names(self) -> frozenset[str]:
        model = self.program.model
        names = _DECLARED.get(model)
        if names is None:
            names = _DECLARED[model] = frozenset(el.name for el in model.walk() if el.kind.endswith(" def"))
        return names


# the names of the definitions a model declares, read once per model (a model is never changed)
_DECLARED: weakref.WeakKeyDictionary[Model, frozenset[str]] = weakref.WeakKeyDictionary()

def start_machine(program: LoweredModel, name: str, schedule: str = "reverse", performer: str | None = None,
                  max_steps: int | None = None, units: bool = False) -> MachineRun:
    """A machine performance over the state named (qualified, or unqualified when unique)."""
    return MachineRun(program, machine_element(program, name), schedule, performer, max_steps, units=units)


def machine_element(program: LoweredModel, name: str) -> Element:
    """The state named (qualified, or unqualified when unique), or UnknownBehaviorError naming the states."""
    el = program.model.element(name)
    if el is None or el.base_kind != "state":
        from engines.errors import UnknownBehaviorError

        states = program.model.behaviors("state")
        matches = [q for q in states if q.rsplit("::", 1)[-1] == name]
        if len(matches) != 1:
            raise UnknownBehaviorError(name, "state", states)
        el = program.model.element(matches[0])
        assert el is not None
    return el


def _concurrent(shape: Shape) -> bool:
    """Whether the machine has a parallel state, a do behavior, or a behavior whose statements may take
    more than one order (read once per shape)."""
    found = shape.memo.get("concurrent")
    if found is None:
        found = shape.memo["concurrent"] = any(v.parallel or v.do for v in shape.vertices) \
            or any(interleaves(b.statements) for v in shape.vertices for b in (*v.entry, *v.exit)) \
            or any(interleaves(t.effect) for t in shape.transitions if t.effect)
    return bool(found)
