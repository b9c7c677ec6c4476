"""Dispatch: which transitions an event (a completion, a pool event, a change, a timer) fires, read
against the configuration (innermost first, the first declared whose guard holds, junction routes
read statically), and firing them unit by unit (exit, effect, entry) in region declaration order."""

from __future__ import annotations

from abc import abstractmethod
from fractions import Fraction

from engines.runtime.actions.tokens import Terminated
from engines.runtime.bus import Message
from engines.runtime.states.bodies import chains_of
from engines.runtime.states.configuration import Configuration
from engines.runtime.states.core import Event, Firing, MachineError, transition_line, transition_text
from engines.runtime.states.layout import PSEUDO, Transition, Vertex, VertexKind, derive
from engines.runtime.states.units import UNIT, Leaving, Par, Steps, run_whole
from ir import syntax as s


class Dispatch(Configuration):
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
        its ancestors'), the first declared whose guard holds; regions in declaration order; none
        out of a state enclosing (or beside) an active state that defers the event."""
        candidates: list[Firing] = []
        # a state that defers the occurrence holds it back from every transition not nested in it
        deferring = [v for v in self.active if event.kind == "signal" and event.name in v.defers]
        for state in sorted(self.active, key=lambda v: (-v.depth, v.order)):
            if any(f.transition.source.is_within(state) or state.is_within(f.transition.source)
                   for f in candidates):
                continue
            if not all(state.is_within(d) for d in deferring):
                continue
            for t in state.outgoing:
                if not self._accepts(t, event):
                    continue
                if not self._guard(t, frame=self._payload_frame(t, event)):
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
        if target.kind is VertexKind.JOIN:
            arrived = self.joined.get(target, set())
            completes = all(x is t or x in arrived for x in self._incoming(target))
            # the segment that would complete a join with no way out is not enabled
            return None if completes and self._way_out(target) is None else route
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
        owner = target.parent
        # a history with no record yet, entered from outside its owner: the way through is its default's
        unrecorded = (target.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY) and not self.histories.get(target)
                      and owner is not None and not t.source.is_within(owner) and bool(target.outgoing))
        if unrecorded and not any(self._guard(d, quiet=True) and self._route(d, shown, depth + 1) is not None
                                  for d in target.outgoing):
            return None
        return route

    def _routes(self, t: Transition, depth: int = 0) -> list[list[Transition]]:
        """Every way a compound transition may take through junctions, read now (quietly): a junction
        with two branches enabled is a choice among them (`_route` is the first, the fixed policies')."""
        target = t.target
        if target.kind is not VertexKind.JUNCTION:
            route = self._route(t)
            return [] if route is None else [route]
        if depth > len(self.shape.vertices):
            raise MachineError(f"junction {target.name}: the segments through it form a cycle")
        out: list[list[Transition]] = []
        for seg in target.outgoing:
            if self._guard(seg, quiet=True):
                out.extend([seg, *rest] for rest in self._routes(seg, depth + 1))
        return out

    def completion_options(self, state: Vertex) -> list[Firing]:
        """The firings the completion of `state` may take, where it may take more than one: each
        completion transition whose guard holds, by each way through its junctions, in declaration
        order (the first is the fixed policies'); none where a join or a single firing decides it."""
        out: list[Firing] = []
        with self.ctx.trace.quiet():
            for t in state.outgoing:
                if t.trigger is not None or t.source.kind in PSEUDO:
                    continue
                if t.target.kind is VertexKind.JOIN:
                    if self._join_ready(t.target):
                        break
                    continue
                if self._guard(t, quiet=True):
                    out.extend(Firing(t, None, route) for route in self._routes(t))
        return out if len(out) > 1 else []

    def _dispatch_completion(self, state: Vertex, option: str | None = None) -> None:
        if option is not None:
            chosen = next((f for f in self.completion_options(state) if firing_text(f) == option), None)
            if chosen is None:
                raise MachineError(f"completion {state.name}: no transition {option} is enabled")
            self._firing(self._fire([chosen]), "completion")
            return
        for t in state.outgoing:
            if _plain(t):  # (a completion transition out of a state, into no join: as below, its route empty)
                if self._guard(t):
                    self._fire_plain(t)
                    return
                continue
            if t.trigger is not None:
                continue
            if t.source.kind in PSEUDO:
                continue
            if t.target.kind is VertexKind.JOIN and self._join_ready(t.target):
                self._firing(self._fire_join(t.target), "join")
                return
            if not self._guard(t):
                continue
            route = self._route(t)
            if route is None:
                continue
            self._firing(self._fire([Firing(t, None, route)]), "completion")
            return

    def _fire_plain(self, t: Transition) -> None:
        """A completion transition `_plain` admits, fired as `_firing(_fire(...))` fires it, without
        the generators: its one chain never hands over (no Par, no Pick, no held entry, no do behavior
        begun), so every driver runs it whole, its units one after another in the order written."""
        self.front_dos = set()  # as `_firing`
        source, target = t.source, t.target
        # as `_fire_chain`, with the route empty, the scope the parent of both, the source a leaf
        if not self.finished and source in self.active and not self._being_left(source) and self._guard(t):
            self._exit_plain(source)
            steps = self._effect(t, self.frame)
            assert steps == ()  # one chain of statements: performed at once
            if target not in self.active:
                self._enter_plain(target, False)
            self._rest_in(target)
            self._fired(source.name, target.name, None)
        self._fired_all()

    def _dispatch(self, event: Event, firings: list[Firing] | None = None) -> None:
        """Take `event` to completion: the firings selected for it (or given: one order of them), else a
        do behavior waiting for it, else deferred, else unmatched."""
        if firings is None:
            firings = self._select(event)
        if firings:
            self._firing(self._fire(firings), event.label())
            return
        if self._to_waiting_do(event):
            return
        if any(event.name in v.defers for v in self.active):
            self.deferred.append(event)
            return
        self.unmatched.append(event)

    def _to_waiting_do(self, event: Event) -> bool:
        """An event no transition takes goes to a do behavior parked at an accept that takes it."""
        if event.kind != "signal":
            return False
        bus = self.ctx.bus
        for run in self.dos.values():
            if run.waiting is None or run.state not in self.active:
                continue
            self.ctx.journal.touch(bus)
            bus.append(Message(event.payload, None, 0))
            if run.waiting.ready():
                return True
            bus.pop()
        return False

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
            self._firing(self._fire(fired), "change")
            return True
        return False

    def _fire_timers(self, horizon: Fraction | None) -> bool:
        """Move the clock to the next timer due (not past the horizon) and dispatch what is due then;
        where a do behavior waiting for time wakes first (or at the same instant), the clock moves
        there alone: its round comes first, the timers then due on the next call."""
        live = [tm for tm in self.timers if tm.transition.source in self.active]
        self.timers = live
        wake = self._do_wake()
        if not live and wake is None:
            return False
        due = min(tm.due for tm in live) if live else None
        if wake is not None and (due is None or wake <= due):
            if horizon is not None and wake > horizon:
                return False
            self.ctx.clock.advance_to(wake)
            return True
        assert due is not None
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
                    self._firing(self._fire([Firing(t, Event("time", "time", None, t), route)]), "time")
        return True

    def _do_wake(self) -> Fraction | None:
        """The next instant a do behavior of an active state waiting for time wakes."""
        now = self.ctx.clock.now
        return min((run.wake for state, run in self.dos.items()
                    if state in self.active and run.wake is not None and run.wake > now), default=None)

    def due_next(self) -> Fraction | None:
        """When the clock next has something for this machine: a timer of an active state due, or a do
        behavior waiting for time waking; None: neither."""
        dues = [tm.due for tm in self.timers if tm.transition.source in self.active]
        wake = self._do_wake()
        if wake is not None:
            dues.append(wake)
        return min(dues, default=None)

    def _being_left(self, state: Vertex) -> bool:
        """Whether a chain of the firing in progress has begun to leave `state` (units.py `Leaving`)."""
        return False

    @abstractmethod
    def _firing(self, steps: Steps, name: str) -> None:
        """Perform a firing: whole (the fixed policies), or as a firing in progress (moves.py)."""

    def _fire(self, firings: list[Firing]) -> Steps:
        """Fire the selected transitions, each a chain of its units (the source's exit, the effect,
        the target's entry) ordered against the others' by nothing; run whole, one firing after
        another in region declaration order."""
        chains = tuple((_transition_name(f.transition), self._fire_chain(firings, i), f.transition)
                       for i, f in enumerate(firings))
        yield Par(chains)
        self._fired_all()

    def _fired_all(self) -> None:
        """The selected transitions fired: the deferred events back to the pool, the messages sent
        delivered."""
        if self.finished:
            return
        self._requeue_deferred()
        self._deliver()

    def _fire_chain(self, firings: list[Firing], i: int) -> Steps:
        f = firings[i]
        if self.finished or f.transition.source not in self.active or self._being_left(f.transition.source):
            return  # its source left, or being left, by a transition fired before it
        waiting = [f"{self._exit_label(g.transition.source)}(exit)" for g in firings[i + 1:]
                   if g.transition.source in self.active] if len(firings) > i + 1 else []
        # the firing itself, in this chain's own generator (one layer less for each of its steps to pass)
        t = f.transition
        payload_frame = self._payload_frame(t, f.event)
        if not self._guard(t, frame=payload_frame):
            return
        source_label = self._exit_label(t.source)
        segments = [t, *f.route]
        final = segments[-1].target
        lca = self._lca(t.source, final)
        root = self._child_toward(lca, t.source)
        if final.kind is VertexKind.JOIN:
            root = self._region_state(t.source, lca)
        if waiting:
            self._unit(f"{source_label}(exit)", f.event, waiting)
        # a segment into a join leaves its source and runs its effect as one unit
        into_join = final.kind is VertexKind.JOIN
        if into_join:
            yield UNIT
        if root is not None and root in self.active:
            if into_join:
                run_whole(self._exit(root))
            else:
                yield _leaving(root)
                yield from self._exit(root)
        for seg in segments:
            if seg.effect:
                if waiting:
                    self._unit(f"{seg.label()}(effect)", f.event, waiting)
                if not into_join:
                    yield UNIT
                yield from self._effect(seg, payload_frame)
        target = final
        shown = target
        if target.kind is VertexKind.CHOICE:
            target = yield from self._through_choices(target, payload_frame)
            shown = target
        if waiting and target.kind not in (VertexKind.JOIN, VertexKind.TERMINATE):
            self._unit(f"{target.name}(entry)", f.event, waiting)
        if target.kind is VertexKind.FORK:
            yield from self._fork(target, lca, payload_frame)
        elif target.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY):
            shown = yield from self._restore(target, lca, payload_frame)
        elif target.kind is VertexKind.JOIN:
            yield from self._arrive(target, t, source_label, f.event)
            return
        elif target.kind is VertexKind.TERMINATE:
            self.ctx.trace.flush_left(transition_line(source_label, target.name, f.event))
            raise Terminated()
        else:
            yield from self._enter_path(target, lca)
        self._fired(source_label, shown.name, f.event)

    def _unit(self, label: str, event: Event | None, waiting: list[str]) -> None:
        if waiting:
            what = event.label() if event is not None else "completion"
            self.ctx.trace.flush_left(f"choice on {what}: next {', '.join([label, *waiting])} "
                                      f"(unordered; took {label} first)")


def _leaving(state: Vertex) -> Leaving:
    """`Leaving(state)`, made once per state (a value)."""
    return derive(state, "leaving", lambda: Leaving(state))


def _plain(t: Transition) -> bool:
    """Whether `_fire_plain` fires `t` (read once per transition): a completion transition between two
    states of one region of no parallel state, out of a leaf with no exit behavior, into a state that
    rests with no entry and no do behavior, its effect (if any) one chain of statements."""
    def judged() -> bool:
        source, target = t.source, t.target
        scope = source.scope_with(target)
        return (t.trigger is None and source.kind is VertexKind.STATE and not source.children and not source.exit
                and target.kind is VertexKind.STATE and target.rests and not target.entry and not target.do
                and scope is not None and scope is source.parent and scope is target.parent and not scope.parallel
                and len(chains_of(t.effect, t)[0]) < 2)
    return derive(t, "plain", judged)


def _transition_name(t: Transition) -> str:
    """A selected transition as a firing's chain is named: its name, else its source and target."""
    return t.name or t.label()


def firing_text(f: Firing) -> str:
    """A firing as a move's option names it: its transition (`idle->low`, by name where it has one,
    numbered where its source has two alike), then the junction branches it takes (`via split->left`)."""
    return " via ".join([transition_text(f.transition), *(transition_text(seg) for seg in f.route)])
