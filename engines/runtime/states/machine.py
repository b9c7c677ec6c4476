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

from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from engines.errors import GuardNotBoolean, RunError
from engines.runtime.actions import Run
from engines.runtime.actions.statements import _seconds
from engines.runtime.actions.tokens import BodyRun, Flow, FlowKind, Terminated, Wait
from engines.runtime.evaluate import Frame
from engines.runtime.lowered import LoweredModel
from engines.runtime.schedule import make_scheduler
from engines.runtime.states.environment import EnvEvent, EventKind, UnknownSignalError
from engines.runtime.states.layout import PSEUDO, Behavior, Shape, Transition, Vertex, VertexKind, shape_of
from engines.runtime.values import ObjectRef, Signal, Value, spell
from engines.runtime.world import Context
from ir import syntax as s
from ir.inherit import effective_members
from ir.lower import lower_block
from ir.model import Element
from ir.resolve import lookup


class MachineError(RunError):
    """A machine that cannot go on: a choice with no branch, a machine with no initial state, ..."""


@dataclass(frozen=True)
class Event:
    """An occurrence in the pool: a signal (by its type's name), a call, a time or change event."""

    kind: str  # signal, call, time, change
    name: str
    payload: Value = None
    transition: Transition | None = None  # a time event: the transition whose timer fired

    def label(self) -> str:
        if self.kind == "time":
            return "time"
        if self.kind == "change":
            return "change"
        if self.kind == "call":
            return f"call {self.name}"
        return f"accept {self.name}"


@dataclass
class Timer:
    due: Fraction
    seq: int
    transition: Transition


@dataclass
class DoRun:
    """Where a state's do behavior stands: the statement next, the one under way (waiting)."""

    state: Vertex
    statements: tuple[s.Member, ...]
    frame: Frame
    wrapped: bool
    index: int = 0
    current: BodyRun | None = None
    started: bool = False
    waiting: Wait | None = None

    @property
    def done(self) -> bool:
        return self.current is None and self.index >= len(self.statements)


@dataclass
class Firing:
    """One selected transition and what its selection fixed (a junction's branches)."""

    transition: Transition
    event: Event | None
    route: list[Transition] = field(default_factory=list)


def _signal_name(value: Value, ctx: Context) -> str:
    """The name a sent value is accepted by: its type's (a signal, an object made by `new`)."""
    if isinstance(value, ObjectRef) and value.id in ctx.objects:
        return ctx.objects[value.id].type_name.rsplit("::", 1)[-1]
    if isinstance(value, Signal):
        return value.type_name.rsplit("::", 1)[-1]
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, Fraction):
        return "Real"
    if isinstance(value, str):
        return "String"
    return spell(value)


class MachineRun:
    """One performance of a state machine, stepped move by move or run until nothing is left to do."""

    def __init__(self, program: LoweredModel, element: Element, schedule: str = "reverse",
                 performer: str | None = None, max_steps: int | None = None) -> None:
        self.program = program
        self.element = element
        self.shape: Shape = shape_of(program.model, element)
        self.ctx = Context(program, make_scheduler(schedule), max_steps)
        _hold_features(program, element)
        self.host = Run(self.ctx, element, performer)  # runs the bodies; its frame holds the features
        self.frame: Frame = self.host.root.frame
        self.active: set[Vertex] = set()
        self.pool: list[Event] = []
        self.deferred: list[Event] = []
        self.completions: list[Vertex] = []
        self.timers: list[Timer] = []
        self.timer_seq = 0
        self.history: dict[Vertex, list[Vertex]] = {}
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
        with self.ctx.trace.quiet():  # the corpus traces begin after the initial configuration
            self._start()

    # ------------------------------------------------------------ the surface

    @property
    def trace(self) -> list[str]:
        return self.ctx.trace.lines

    @property
    def finished(self) -> bool:
        return self.status != "running"

    def send(self, event: EnvEvent) -> None:
        """The environment posts an event to the pool (arrival order)."""
        known = self.shape.signals() | self._declared_names()
        if event.kind != EventKind.VALUE and event.name.rsplit("::", 1)[-1] not in known:
            raise UnknownSignalError(
                f"no transition or accept of state machine {self.element.name} names the signal "
                f"'{event.name}', and the model declares none of that name"
                + (f" (signals it accepts: {', '.join(sorted(self.shape.signals()))})" if self.shape.signals() else ""))
        if event.kind == EventKind.VALUE:
            self.pool.append(Event("signal", event.name, event.value))
        elif event.kind == EventKind.CALL:
            self.pool.append(Event("call", event.name, Signal(event.name, None, event.args)))
        else:
            self.pool.append(Event("signal", event.name.rsplit("::", 1)[-1], Signal(event.name, None, event.args)))

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
                    walk(r, r.name)
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

    def step(self) -> list[str]:
        """One move: a do round, else one dispatch; nothing when the machine rests."""
        mark = self.ctx.trace.mark()
        if not self.finished:
            try:
                if not self._move():
                    self._rest()
            except Terminated:
                self._terminate()
            except RunError as err:
                self.status = "failed"
                self.error = err
                raise
        return self.ctx.trace.since(mark)

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

    def _rest(self) -> None:
        """Nothing moved: the machine waits (for the environment or the clock)."""

    def _terminate(self) -> None:
        self.status = "terminated"

    # ------------------------------------------------------------ moves

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

    def _do_round(self) -> bool:
        """Every active do behavior with a statement due performs one, in region declaration order."""
        moved = False
        for state in sorted(self.dos, key=lambda v: v.order):
            run = self.dos.get(state)
            if run is None or state not in self.active or run.done:
                continue
            if run.waiting is not None and not run.waiting.ready():
                continue
            moved = True
            self._do_once(run)
            if run.done and state in self.dos:
                del self.dos[state]
                self._completed(state)
            if self.finished:
                break
        self._deliver()
        return moved

    def _do_once(self, run: DoRun) -> None:
        trace = self.ctx.trace
        if run.current is None:
            if run.wrapped and not run.started:
                trace.at(0, "stmt action body")
            run.started = True
            stmt = run.statements[run.index]
            run.index += 1
            run.current = self.host.statement(stmt, run.frame, 1 if run.wrapped else 0, f"state {run.state.name}")
        try:
            run.waiting = next(run.current)
        except StopIteration:
            run.current = None
            run.waiting = None

    # ------------------------------------------------------------ selection

    def _guard(self, t: Transition, quiet: bool = False) -> bool:
        if t.guard is None:
            return True
        if quiet:
            with self.ctx.trace.quiet():
                value = self.host.evaluator.eval(t.guard, self.frame, 0)
        else:
            value = self.host.evaluator.eval(t.guard, self.frame, 0)
        if not isinstance(value, bool):
            raise GuardNotBoolean(f"the guard of transition {t.label()} must be Boolean, got {spell(value)}")
        return value

    def _accepts(self, t: Transition, event: Event) -> bool:
        trig = t.trigger
        if trig is None:
            return False
        if event.kind == "call":
            return trig.kind is s.TriggerKind.CALL and (trig.signal or "").rsplit("::", 1)[-1] == event.name
        if event.kind != "signal":
            return False
        if trig.kind is s.TriggerKind.SIGNAL:
            return (trig.signal or "").rsplit("::", 1)[-1] == event.name
        return False

    def _select(self, event: Event) -> list[Firing]:
        """The transitions one event fires: per active state, innermost first (a substate's outranks
        its ancestors'), the first declared whose guard holds; regions in declaration order."""
        candidates: list[Firing] = []
        for state in sorted(self.active, key=lambda v: (-v.depth, v.order)):
            if any(f.transition.source.is_within(state) or state.is_within(f.transition.source)
                   for f in candidates):
                continue
            for t in state.outgoing:
                if not self._accepts(t, event):
                    continue
                if not self._guard(t):
                    continue
                route = self._route(t)
                if route is None:
                    continue
                candidates.append(Firing(t, event, route))
                break
        candidates.sort(key=lambda f: f.transition.source.order)
        return candidates

    def _route(self, t: Transition, shown: bool = False, depth: int = 0) -> list[Transition] | None:
        """The segments a compound transition takes through junctions, read now (statically); None when
        no way through. The guards of a junction with several branches are read as its draw (traced)."""
        route: list[Transition] = []
        target = t.target
        while target.kind is VertexKind.JUNCTION:
            depth += 1
            if depth > len(self.shape.vertices):
                raise MachineError(f"junction {target.name}: the segments through it form a cycle")
            nxt = None
            draw = shown or len(target.outgoing) > 1
            for seg in target.outgoing:
                if self._guard(seg, quiet=not draw) and self._route(seg, draw, depth) is not None:
                    nxt = seg
                    break
            if nxt is None:
                return None
            route.append(nxt)
            target = nxt.target
        return route

    # ------------------------------------------------------------ dispatch

    def _dispatch_completion(self, state: Vertex) -> None:
        for t in state.outgoing:
            if t.trigger is not None:
                continue
            if t.source.kind in PSEUDO:
                continue
            if t.target.kind is VertexKind.JOIN and self._join_ready(t.target):
                self._fire_join(t.target)
                return
            if not self._guard(t):
                continue
            route = self._route(t)
            if route is None:
                continue
            self._fire([Firing(t, None, route)])
            return

    def _dispatch(self, event: Event) -> None:
        firings = self._select(event)
        if firings:
            self._fire(firings)
            return
        if any(event.name in v.defers for v in self.active):
            self.deferred.append(event)
            return
        self.unmatched.append(event)

    def _change_event(self) -> bool:
        """A `when` condition that rose since it was last read: one change occurrence."""
        fired: list[Firing] = []
        for state in sorted(self.active, key=lambda v: v.order):
            for t in state.outgoing:
                trig = t.trigger
                if trig is None or trig.kind is not s.TriggerKind.WHEN or trig.expression is None:
                    continue
                with self.ctx.trace.quiet():
                    now = self.host.evaluator.eval(trig.expression, self.frame, 0)
                before = self.change_seen.get(t.index, False)
                self.change_seen[t.index] = now is True
                rose = now is True and not before and not any(f.transition.source is state for f in fired)
                if rose and self._guard(t):
                    route = self._route(t)
                    if route is not None:
                        fired.append(Firing(t, Event("change", "change"), route))
        if fired:
            self._fire(fired)
            return True
        return False

    def _fire_timers(self, horizon: Fraction | None) -> bool:
        """Move the clock to the next timer due (not past the horizon) and dispatch what is due then."""
        live = [tm for tm in self.timers if tm.transition.source in self.active]
        self.timers = live
        if not live:
            return False
        due = min(tm.due for tm in live)
        if horizon is not None and due > horizon:
            return False
        self.ctx.clock.advance_to(due)
        now = sorted((tm for tm in live if tm.due == due), key=lambda tm: tm.seq)
        for tm in now:
            self.timers.remove(tm)
        for tm in now:
            t = tm.transition
            if t.source not in self.active or self.finished:
                continue
            self.ctx.charge_step()
            if self._guard(t):
                route = self._route(t)
                if route is not None:
                    self._fire([Firing(t, Event("time", "time", None, t), route)])
        return True

    # ------------------------------------------------------------ firing

    def _fire(self, firings: list[Firing]) -> None:
        """Fire the selected transitions, one whole firing after another in region declaration order;
        while others wait, each unit (the source's exit, the effect, the target's entry) is a choice."""
        for i, f in enumerate(firings):
            if f.transition.source not in self.active:
                continue
            waiting = [f"{self._exit_label(g.transition.source)}(exit)" for g in firings[i + 1:]
                       if g.transition.source in self.active]
            self._fire_one(f, waiting)
            if self.finished:
                return
        self._requeue_deferred()
        self._deliver()

    def _unit(self, label: str, event: Event | None, waiting: list[str]) -> None:
        if waiting:
            what = event.label() if event is not None else "completion"
            self.ctx.trace.flush_left(f"choice on {what}: next {', '.join([label, *waiting])} "
                                      f"(unordered; took {label} first)")

    def _fire_one(self, f: Firing, waiting: list[str] | None = None) -> None:
        t = f.transition
        waiting = waiting or []
        if not self._guard(t):
            return
        payload_frame = self.frame
        if t.trigger is not None and t.trigger.payload and f.event is not None:
            payload_frame = Frame(self.frame.label, self.frame.scope, self.frame, {t.trigger.payload: f.event.payload},
                                  block=True)
        source_label = self._exit_label(t.source)
        segments = [t, *f.route]
        final = segments[-1].target
        self._entered_now = []
        lca = self._lca(t.source, final)
        root = self._child_toward(lca, t.source)
        if final.kind is VertexKind.JOIN:
            root = self._region_state(t.source, lca)
        self._unit(f"{source_label}(exit)", f.event, waiting)
        if root is not None and root in self.active:
            self._exit(root)
        for seg in segments:
            if seg.effect:
                self._unit(f"{seg.label()}(effect)", f.event, waiting)
            self._effect(seg, payload_frame)
        target = final
        shown = target
        if target.kind is VertexKind.CHOICE:
            target = self._through_choices(target, payload_frame)
            shown = target
        if target.kind not in (VertexKind.JOIN, VertexKind.TERMINATE):
            self._unit(f"{target.name}(entry)", f.event, waiting)
        if target.kind is VertexKind.FORK:
            self._fork(target, lca, payload_frame)
        elif target.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY):
            shown = self._restore(target, lca, payload_frame)
        elif target.kind is VertexKind.JOIN:
            self._arrive(target, t, source_label, f.event)
            return
        elif target.kind is VertexKind.TERMINATE:
            self.ctx.trace.flush_left(self._transition_line(source_label, target.name, f.event))
            raise Terminated()
        else:
            self._enter_path(target, lca)
        self._arm_timers()
        self.ctx.trace.flush_left(self._transition_line(source_label, shown.name, f.event))
        self._check_final()

    def _transition_line(self, source: str, target: str, event: Event | None) -> str:
        line = f"transition: {source} -> {target}"
        if event is not None:
            line += f" (event: {event.label()})"
        return line

    def _through_choices(self, vertex: Vertex, frame: Frame) -> Vertex:
        while vertex.kind is VertexKind.CHOICE:
            nxt = None
            for seg in vertex.outgoing:
                if self._guard(seg):
                    nxt = seg
                    break
            if nxt is None:
                raise MachineError(f"choice {vertex.name}: no branch's guard holds and none is unguarded")
            self._effect(nxt, frame)
            vertex = nxt.target
        return vertex

    def _effect(self, t: Transition, frame: Frame) -> None:
        if t.effect and t.effect_body:
            self.ctx.trace.at(0, "stmt action body")
            self._run(t.effect, frame, 1, f"transition {t.label()}")
        elif t.effect:
            self._run(t.effect, frame, 0, f"transition {t.label()}")

    def _exit_label(self, state: Vertex) -> str:
        """The state a transition out of `state` is shown leaving: down its single active path."""
        v = state
        while not v.parallel:
            inner = [c for c in v.children if c in self.active and c.is_state]
            if len(inner) != 1:
                break
            v = inner[0]
        return v.name

    def _lca(self, a: Vertex, b: Vertex) -> Vertex:
        """The innermost state containing both, and neither of them (a transition is external)."""
        ancestors = a.ancestors()
        for v in b.ancestors():
            if v in ancestors:
                return v
        return self.shape.machine

    @staticmethod
    def _region_state(v: Vertex, lca: Vertex) -> Vertex:
        """The state holding `v` directly in its region: what a segment into a join leaves."""
        while v.parent is not None and v.parent is not lca and not v.parent.parallel:
            v = v.parent
        return v

    @staticmethod
    def _child_toward(lca: Vertex, v: Vertex) -> Vertex | None:
        while v.parent is not None and v.parent is not lca:
            v = v.parent
        return v if v.parent is lca else None

    # ------------------------------------------------------------ entering and leaving

    def _start(self) -> None:
        machine = self.shape.machine
        self.active.add(machine)
        if machine.do:
            self.dos[machine] = DoRun(machine, machine.do[0].statements, self.frame, machine.do[0].wrapped)
        self._enter_default(machine)
        self._arm_timers()
        self._deliver()

    def _enter_path(self, target: Vertex, lca: Vertex, regions: bool = True) -> None:
        """Enter `target` and the states between the transition's scope and it (leaving what a region
        held before); then, unless a fork enters more, the other regions of a parallel state passed."""
        path = [v for v in reversed(target.ancestors()) if v is not lca and lca in v.ancestors()] + [target]
        for v in path:
            if v in self.active:
                continue
            parent = v.parent
            if parent is not None and not parent.parallel:
                for sibling in parent.children:
                    if sibling in self.active and sibling is not v:
                        self._exit(sibling)
            self._enter_one(v)
        self._enter_default(target)
        if regions:
            self._enter_other_regions(target, lca)

    def _enter_other_regions(self, target: Vertex, lca: Vertex) -> None:
        """A parallel state entered on the way down to `target`: its other regions start by default."""
        for v in reversed(target.ancestors()):
            if v.parallel and lca in v.ancestors():
                for region in v.children:
                    if region.is_state and region not in self.active:
                        self._enter_one(region)
                        self._enter_default(region)

    def _enter_one(self, v: Vertex) -> None:
        self.active.add(v)
        region = v.parent is not None and v.parent.parallel
        if (v.kind is VertexKind.STATE and not region) or v.kind is VertexKind.FINAL:
            self.visits.append(v.name)
        trace = self.ctx.trace
        if v.entry:
            trace.flush_left(f"enter: {v.name} (entry action)")
            for b in v.entry:
                self._behavior(b, v)
        elif not region:
            trace.flush_left(f"enter: {v.name}")
        self._entered_now.append(v)
        if v.do:
            b = v.do[0]
            self.dos[v] = DoRun(v, b.statements, self.frame, b.wrapped)

    def _enter_default(self, v: Vertex) -> None:
        """What entering `v` enters below it: every region of a parallel state, a composite's initial
        state; a simple state (or one whose body is done) completes."""
        if v.kind is VertexKind.FINAL:
            return
        if v.parallel:
            regions = [c for c in v.children if c.is_state and c not in self.active]
            if len(regions) > 1:
                labels = [self._entry_label(r) for r in regions]
                self.ctx.trace.flush_left(f"choice entering {v.name}: next {', '.join(labels)} "
                                          f"(unordered; took {labels[0]} first)")
            for r in regions:
                self._enter_one(r)
                self._enter_default(r)
            return
        if v.substates() or v.initial is not None:
            if any(c in self.active for c in v.children):
                return
            if v.initial is None:
                if v is self.shape.machine:
                    raise MachineError(f"state machine {v.name} has no initial state (write `entry; then S;`)")
                return
            target = v.initial
            path = [a for a in reversed(target.ancestors()) if v in a.ancestors()] + [target]
            for a in path:
                if a not in self.active:
                    self._enter_one(a)
            self._enter_default(target)
            return
        if v not in self.dos:
            self._completed(v)

    def _entry_label(self, region: Vertex) -> str:
        if region.entry:
            return f"{region.name}(entry)"
        first = region.initial
        return f"{first.name}(entry)" if first is not None else f"{region.name}(entry)"

    def _completed(self, v: Vertex) -> None:
        if v.is_state and v is not self.shape.machine:
            self.completions.append(v)
            self.complete.add(v)

    def _exit(self, v: Vertex) -> None:
        """Leave `v` and everything active below it, innermost first, recording history."""
        inner = [c for c in v.children if c in self.active]
        if v.parallel and sum(1 for c in inner if any(x in self.active for x in c.children)) > 1:
            labels = [f"{self._exit_label(c)}(exit)" for c in inner]
            self.ctx.trace.flush_left(f"choice exiting {v.name}: next {', '.join(labels)} "
                                      f"(unordered; took {labels[0]} first)")
        for c in v.children:
            if c.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY):
                self.history[c] = self._leaves(v) if c.kind is VertexKind.DEEP_HISTORY else inner[:]
        for c in inner:
            self._exit(c)
        self.dos.pop(v, None)
        region = v.parent is not None and v.parent.parallel
        trace = self.ctx.trace
        if v.exit:
            trace.flush_left(f"exit: {v.name} (exit action)")
            for b in v.exit:
                self._behavior(b, v)
        elif not region:
            trace.flush_left(f"exit: {v.name}")
        self.active.discard(v)
        self.complete.discard(v)

    def _leaves(self, v: Vertex) -> list[Vertex]:
        inner = [c for c in v.children if c in self.active]
        if not inner:
            return [] if v is self.shape.machine else [v]
        out: list[Vertex] = []
        for c in inner:
            out.extend(self._leaves(c))
        return out

    def _restore(self, history: Vertex, lca: Vertex, frame: Frame) -> Vertex:
        recorded = self.history.get(history)
        owner = history.parent
        assert owner is not None
        if not recorded:
            for t in history.outgoing:
                if self._guard(t):
                    self._effect(t, frame)
                    target = t.target
                    if target.kind is VertexKind.CHOICE:
                        target = self._through_choices(target, frame)
                    self._enter_path(target, lca)
                    return target
            self._enter_path(owner, lca)
            return owner
        for target in recorded:
            self._enter_path(target, lca)
        return recorded[0]

    def _fork(self, fork: Vertex, lca: Vertex, frame: Frame) -> None:
        branches = list(fork.outgoing)
        if len(branches) > 1:
            labels = [f"{b.label()}(effect)" for b in branches]
            self.ctx.trace.flush_left(f"choice fork {fork.name}: next {', '.join(labels)} "
                                      f"(unordered; took {labels[0]} first)")
        for b in branches:
            self._effect(b, frame)
            self._enter_path(b.target, lca, regions=False)
        for b in branches:
            self._enter_other_regions(b.target, lca)

    def _incoming(self, join: Vertex) -> list[Transition]:
        return [x for x in self.shape.transitions if x.target is join]

    def _join_ready(self, join: Vertex) -> bool:
        """Every segment into the join can go now: its source active and complete (a completion
        segment) and its guard holding."""
        arrived = self.joined.get(join, set())
        segments = [x for x in self._incoming(join) if x not in arrived]
        return len(segments) > 1 and all(
            x.trigger is None and x.source in self.active and x.source in self.complete
            and self._guard(x, quiet=True) for x in segments)

    def _arrive(self, join: Vertex, segment: Transition, source_label: str, event: Event | None) -> None:
        """A segment into a join has left its source and run its effect: it has arrived. The last
        arrival leaves the state holding the sources and takes the join's outgoing segment."""
        arrived = self.joined.setdefault(join, set())
        arrived.add(segment)
        if any(x not in arrived for x in self._incoming(join)):
            self.ctx.trace.flush_left(self._transition_line(source_label, join.name, event))
            return
        del self.joined[join]
        self._leave_join(join, segment.source)

    def _leave_join(self, join: Vertex, source: Vertex) -> None:
        out = join.outgoing[0] if join.outgoing else None
        if out is None:
            raise MachineError(f"join {join.name} has no outgoing transition")
        lca = self._lca(source, out.target)
        root = self._child_toward(lca, source)
        if root is not None and root in self.active:
            self._exit(root)
        self._entered_now = []
        self._effect(out, self.frame)
        self._enter_path(out.target, lca)
        self._arm_timers()
        shown = root.name if root is not None else join.name
        self.ctx.trace.flush_left(self._transition_line(shown, out.target.name, None))
        self._check_final()

    def _fire_join(self, join: Vertex) -> None:
        """The segments into a join fire together: each source left and its effect run, then the
        state holding them, then the join's outgoing segment."""
        segments = self._incoming(join)
        if len(segments) > 1:
            names = ", ".join(x.source.name for x in segments)
            self.ctx.trace.flush_left(f"choice join {join.name}: states {names} react "
                                      f"(unordered; took {segments[0].source.name} first)")
        for x in segments:
            if x.source in self.active:
                self._exit(x.source)
            self._effect(x, self.frame)
        self.joined.pop(join, None)
        self._leave_join(join, segments[0].source)
        self._requeue_deferred()
        self._deliver()

    def _arm_timers(self) -> None:
        entered, self._entered_now = self._entered_now, []
        for v in entered:
            for t in v.outgoing:
                trig = t.trigger
                if trig is None or trig.expression is None:
                    continue
                if trig.kind is s.TriggerKind.AFTER:
                    duration = self.host.evaluator.eval(trig.expression, self.frame, 0)
                    due = self.ctx.clock.now + _seconds(duration)
                elif trig.kind is s.TriggerKind.AT:
                    due = _seconds(self.host.evaluator.eval(trig.expression, self.frame, 0))
                else:
                    continue
                self.timer_seq += 1
                self.timers.append(Timer(due, self.timer_seq, t))

    def _check_final(self) -> None:
        """A region whose final state is active is done; a composite all of whose regions are done
        completes; the machine's done ends the performance."""
        machine = self.shape.machine
        for v in [x for x in self.active if x.kind is VertexKind.FINAL]:
            owner = v.parent
            if owner is machine:
                self.status = "completed"
                return
            if owner is None:
                continue
            grand = owner.parent
            if grand is not None and grand.parallel:
                regions = [c for c in grand.children if c.is_state]
                done = all(any(x.kind is VertexKind.FINAL and x in self.active for x in r.children) for r in regions)
                if done and grand not in self.completions:
                    self._completed(grand)
            elif owner not in self.completions:
                self._completed(owner)

    def _requeue_deferred(self) -> None:
        if self.deferred:
            self.pool[:0] = self.deferred
            self.deferred = []

    # ------------------------------------------------------------ bodies

    def _behavior(self, b: Behavior, state: Vertex) -> None:
        owner = f"state {state.name}"
        if b.action is not None:
            self.ctx.trace.at(0, "stmt action body")
            name = b.action.name or (b.action.types[0].rsplit("::", 1)[-1] if b.action.types else "action")
            self._drain(self._flow(self._action_members(b.action), 1, f"state behavior {name}", name), owner)
        elif b.wrapped:
            self.ctx.trace.at(0, "stmt action body")
            self._run(b.statements, self.frame, 1, owner)
        else:
            self._run(b.statements, self.frame, 0, owner)

    def _flow(self, members: tuple[s.Member, ...], depth: int, label: str, name: str) -> BodyRun:
        """A behavior given as an action: its flow run from its start, in the machine's frame."""
        graph = self.program.block_graph(self.element, s.Block(members, s.NO_SPAN), name)
        self.ctx.trace.flush_left(f"enter action node: {label}")
        flow = Flow(self.host, graph, self.frame, FlowKind.BLOCK, depth, label)
        self.host.init_attributes(graph.attributes, self.frame, depth)
        flow.start()
        yield from self.host._drive(flow)
        self.ctx.trace.flush_left(f"leave action node: {label}")

    def _action_members(self, usage: s.Usage) -> tuple[s.Member, ...]:
        """A typed behavior's flow: the steps of the action it is typed by, then its own (unordered
        with them unless a succession orders them)."""
        own = usage.members or ((usage.action_body,) if usage.action_body is not None else ())
        if usage.types:
            performs = lookup(self.program.model, self.element, usage.types[0])
            if performs is not None:
                return tuple(effective_members(self.program.model, performs)) + own
        return own

    def _run(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str) -> None:
        self._drain(self.host.statements(stmts, frame, depth, owner), owner)

    def _drain(self, body: Iterator[Wait], owner: str) -> None:
        for _ in body:
            raise MachineError(f"{owner}: an entry, exit or effect that waits is not run yet")
        self._deliver()

    def _deliver(self) -> None:
        """Messages the bodies sent: into the pool, in the order sent."""
        bus = self.ctx.bus
        if bus:
            for message in list(bus):
                self.pool.append(Event("signal", _signal_name(message.payload, self.ctx), message.payload))
            self.ctx.journal.touch(bus)
            bus.clear()

    def _declared_names(self) -> set[str]:
        return {el.name for el in self.program.model.walk() if el.kind.endswith(" def")}


FEATURE_KINDS = ("attribute", "feature", "item", "ref", "part", "port", "occurrence")


def _hold_features(program: LoweredModel, element: Element) -> None:
    """The machine's frame holds its features (its states and transitions are no action flow): the
    graph the host run starts from is lowered from the features alone."""
    graphs = program._graphs
    if element.qualified_name not in graphs:
        members = tuple(m for m in effective_members(program.model, element)
                        if isinstance(m, s.Usage) and m.kind in FEATURE_KINDS)
        graphs[element.qualified_name] = lower_block(program.model, element, members, element.name)


def start_machine(program: LoweredModel, name: str, schedule: str = "reverse", performer: str | None = None,
                  max_steps: int | None = None) -> MachineRun:
    """A machine performance over the state named (qualified, or unqualified when unique)."""
    el = program.model.element(name)
    if el is None or el.base_kind != "state":
        from engines.errors import UnknownBehaviorError

        states = program.model.behaviors("state")
        matches = [q for q in states if q.rsplit("::", 1)[-1] == name]
        if len(matches) != 1:
            raise UnknownBehaviorError(name, "state", states)
        el = program.model.element(matches[0])
        assert el is not None
    return MachineRun(program, el, schedule, performer, max_steps)
