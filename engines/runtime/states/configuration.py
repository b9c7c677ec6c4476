"""The configuration: entering states (paths, regions, initial states, history restored, forks),
leaving them innermost first (history recorded), joins, completion, final states and timers armed."""

from __future__ import annotations

from collections.abc import Generator

from engines.errors import EvaluationError
from engines.runtime.clock import wake_time
from engines.runtime.evaluate import Frame
from engines.runtime.states.bodies import Bodies
from engines.runtime.states.core import DoRun, Event, MachineError, Timer, transition_line, transition_text
from engines.runtime.states.layout import Behavior, Transition, Vertex, VertexKind
from engines.runtime.states.units import HELD, UNIT, Par, Pick, Step, Steps, run_whole
from ir import syntax as s


class Configuration(Bodies):
    def _start(self) -> Steps:
        machine = self.shape.machine
        self.active.add(machine)
        if machine.do:
            b = machine.do[0]
            self.dos[machine] = DoRun(machine, b.statements, self.frame, b.wrapped, b.action, usage=b.usage)
            self.front_dos.add(machine)
        yield from self._enter_default(machine)
        self._arm_timers()
        self._deliver()

    def _enter_path(self, target: Vertex, lca: Vertex, regions: bool = True) -> Steps:
        """Enter `target` and the states between the transition's scope and it (leaving what a region
        held before); then, unless a fork enters more, the other regions of a parallel state passed."""
        path = target.path_from(lca)
        for v in path:
            if v in self.active:
                continue
            parent = v.parent
            if parent is not None and not parent.parallel:
                for sibling in parent.children:
                    if sibling in self.active and sibling is not v:
                        yield from self._exit(sibling)
            yield from self._enter_one(v)
        if target.rests:
            self._rest_in(target)
        else:
            yield from self._enter_default(target)
        if regions and any(v.parallel for v in path[:-1]):  # (else no parallel state passed: nothing more)
            yield from self._enter_other_regions(target, lca)

    def _enter_other_regions(self, target: Vertex, lca: Vertex) -> Steps:
        """A parallel state entered on the way down to `target`: its other regions start by default,
        each a chain of its own."""
        for v in reversed(target.ancestors()):
            if v.parallel and lca in v.ancestors():
                regions = [r for r in v.children if r.is_state and r not in self.active]
                if regions:
                    yield Par(tuple((r.name, self._enter_region(r), r) for r in regions))

    def _enter_region(self, region: Vertex) -> Steps:
        yield from self._enter_one(region)
        yield from self._enter_default(region)

    def _enter_one(self, v: Vertex) -> Steps:
        region = v.parent is not None and v.parent.parallel
        if v.entry or not region:
            yield UNIT  # a region with no entry of its own does nothing another chain could see
            if v in self.active:
                return  # entered meanwhile by another chain (a fork's branches share their way down)
        if v.entry:
            self._arrive_in(v, region)
            yield from self._perform(v, "enter", "entry", v.entry, region)
            self._begin_in(v)
        else:
            self._enter_plain(v, region)

    def _enter_plain(self, v: Vertex, region: bool) -> None:
        """What `_enter_one` does after its unit for a state with no entry behavior (nothing in it is a
        unit of its own)."""
        self._arrive_in(v, region)
        if not region and self.ctx.trace.enabled:
            self.ctx.trace.flush_left(f"enter: {v.name}")  # as `_perform` says it
        self._begin_in(v)

    def _arrive_in(self, v: Vertex, region: bool) -> None:
        self.active.add(v)
        if (v.kind is VertexKind.STATE and (not region or not v.substates())) or v.kind is VertexKind.FINAL:
            self.visits.append(v.name)

    def _begin_in(self, v: Vertex) -> None:
        """A state entered (its entry behavior performed): its timers to arm, its do behavior begun."""
        self._entered_now.append(v)
        if v.do:
            b = v.do[0]
            self.dos[v] = DoRun(v, b.statements, self.frame, b.wrapped, b.action, usage=b.usage)
            self.front_dos.add(v)

    def _perform(self, v: Vertex, verb: str, kind: str, behaviors: list[Behavior], region: bool) -> Steps:
        """`enter: S (entry action)` and its behaviors, or `enter: S` alone (a region says nothing)."""
        if behaviors:
            self.ctx.trace.flush_left(f"{verb}: {v.name} ({kind} action)")
            for b in behaviors:
                yield from self._behavior(b, v)
        elif not region and self.ctx.trace.enabled:
            self.ctx.trace.flush_left(f"{verb}: {v.name}")

    def _enter_default(self, v: Vertex) -> Steps:
        """What entering `v` enters below it: every region of a parallel state, a composite's initial
        state; a simple state (or one whose body is done) completes."""
        if v.kind is VertexKind.FINAL:
            return
        if v.held:
            yield HELD
            if v not in self.active:
                return  # a dispatch that came first left it
        if v.parallel:
            regions = [c for c in v.children if c.is_state and c not in self.active]
            if len(regions) > 1:
                labels = [self._entry_label(r) for r in regions]
                self.ctx.trace.flush_left(f"choice entering {v.name}: next {', '.join(labels)} "
                                          f"(unordered; took {labels[0]} first)")
            yield Par(tuple((r.name, self._enter_region(r), r) for r in regions))
            return
        if v.substates() or v.initial is not None:
            if any(c in self.active for c in v.children):
                return
            if v.initial is None:
                if v is self.shape.machine:
                    raise MachineError(f"state machine {v.name} has no initial state (write `entry; then S;`)")
                return
            # an initial transition to a junction or a choice goes on through it (it never rests there)
            target = yield from self._through_choices(v.initial, self.frame)
            for a in target.path_from(v):
                if a not in self.active:
                    yield from self._enter_one(a)
            yield from self._enter_default(target)
            return
        self._rest_in(v)

    def _rest_in(self, v: Vertex) -> None:
        """`_enter_default` of a state that `rests`: it completes, unless its do behavior is under way."""
        if v not in self.dos:
            self._completed(v)

    def _entry_label(self, region: Vertex) -> str:
        if region.entry:
            return f"{region.name}(entry)"
        first = region.initial
        return f"{first.name}(entry)" if first is not None else f"{region.name}(entry)"

    def _completed(self, v: Vertex) -> None:
        if v.is_state and v is not self.shape.machine:
            self.complete.add(v)
            if self.units and not v.has_completion:
                # checked: a completion event no transition could take is dispatched to nothing, so its
                # move would change nothing but the queue; it is dropped as it arises (see the README)
                return
            self.completions.append(v)

    def _exit(self, v: Vertex) -> Steps:
        """Leave `v` and everything active below it, innermost first, recording history (the regions
        of a parallel state each a chain of its own)."""
        inner = [c for c in v.children if c in self.active]
        if v.parallel and sum(1 for c in inner if any(x in self.active for x in c.children)) > 1:
            labels = [f"{self._exit_label(c)}(exit)" for c in inner]
            self.ctx.trace.flush_left(f"choice exiting {v.name}: next {', '.join(labels)} "
                                      f"(unordered; took {labels[0]} first)")
        for c in v.children:
            if c.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY):
                self.histories[c] = self._leaves(v) if c.kind is VertexKind.DEEP_HISTORY else inner[:]
        if v.parallel:
            yield Par(tuple((c.name, self._exit(c), c) for c in inner))
        else:
            for c in inner:
                yield from self._exit(c)
        if v.exit:
            yield UNIT
            self._stop(v)
            yield from self._perform(v, "exit", "exit", v.exit, v.parent is not None and v.parent.parallel)
            self._left(v)
        else:
            self._exit_plain(v)

    def _exit_plain(self, v: Vertex) -> None:
        """What `_exit` does last, for a state with no exit behavior (or all it does, for a state with
        no substate active and none: nothing in it is a unit of its own)."""
        self._stop(v)
        if self.ctx.trace.enabled and not (v.parent is not None and v.parent.parallel):
            self.ctx.trace.flush_left(f"exit: {v.name}")  # as `_perform` says it
        self._left(v)

    def _stop(self, v: Vertex) -> None:
        """A state being left: its do behavior ends, and its timers."""
        self.dos.pop(v, None)
        # a time trigger counts from its state's entry: leaving the state ends that wait (re-entry arms a new one)
        if self.timers:
            self.timers = [tm for tm in self.timers if tm.transition.source is not v]

    def _left(self, v: Vertex) -> None:
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

    def _restore(self, history: Vertex, lca: Vertex, frame: Frame) -> Generator[Step, None, Vertex]:
        recorded = self.histories.get(history)
        owner = history.parent
        assert owner is not None
        if not recorded:
            for t in history.outgoing:
                if self._guard(t):
                    if t.effect:
                        yield UNIT
                    yield from self._effect(t, frame)
                    target = yield from self._through_choices(t.target, frame)
                    yield from self._enter_path(target, lca)
                    return target
            yield from self._enter_path(owner, lca)
            return owner
        for target in recorded:
            yield from self._enter_path(target, lca)
        return recorded[0]

    def _fork(self, fork: Vertex, lca: Vertex, frame: Frame) -> Steps:
        branches = list(fork.outgoing)
        if len(branches) > 1:
            labels = [f"{b.label()}(effect)" for b in branches]
            self.ctx.trace.flush_left(f"choice fork {fork.name}: next {', '.join(labels)} "
                                      f"(unordered; took {labels[0]} first)")
        yield Par(tuple((b.label(), self._branch(b, lca, frame), b) for b in branches))
        for b in branches:
            yield from self._enter_other_regions(b.target, lca)

    def _branch(self, b: Transition, lca: Vertex, frame: Frame) -> Steps:
        """A fork's branch: its effect, then its way down (the states it shares with another branch
        entered by whichever gets there first)."""
        if b.effect:
            yield UNIT
        yield from self._effect(b, frame)
        yield from self._enter_path(b.target, lca, regions=False)

    def _incoming(self, join: Vertex) -> list[Transition]:
        return [x for x in self.shape.transitions if x.target is join]

    def _join_ready(self, join: Vertex) -> bool:
        """Every segment into the join can go now: its source active and complete (a completion
        segment) and its guard holding."""
        arrived = self.joined.get(join, set())
        segments = [x for x in self._incoming(join) if x not in arrived]
        return len(segments) > 1 and all(
            x.trigger is None and x.source in self.active and x.source in self.complete
            and self._guard(x, quiet=True) for x in segments) and self._way_out(join) is not None

    def _way_out(self, join: Vertex) -> Transition | None:
        """The join's outgoing segment whose guard holds now, if any."""
        return next((out for out in join.outgoing if self._guard(out, quiet=True)), None)

    def _arrive(self, join: Vertex, segment: Transition, source_label: str, event: Event | None) -> Steps:
        """A segment into a join has left its source and run its effect: it has arrived. The last
        arrival leaves the state holding the sources and takes the join's outgoing segment."""
        arrived = self.joined.setdefault(join, set())
        arrived.add(segment)
        if any(x not in arrived for x in self._incoming(join)):
            self.ctx.trace.flush_left(transition_line(source_label, join.name, event))
            return
        del self.joined[join]
        yield from self._leave_join(join, segment.source)

    def _leave_join(self, join: Vertex, source: Vertex) -> Steps:
        out = self._way_out(join)
        if out is None:
            raise MachineError(f"join {join.name}: no outgoing transition's guard holds")
        lca = self._lca(source, out.target)
        root = self._child_toward(lca, source)
        if root is not None and root in self.active:
            yield from self._exit(root)
        if lca.parallel and self._child_toward(lca, out.target) is out.target:
            # the join's way out ends at the orthogonal state's own vertex (its done), in none of its
            # regions: every region is left, a region with no segment into the join too
            for region in [c for c in lca.children if c.is_state and c in self.active]:
                yield from self._exit(region)
        if out.effect:
            yield UNIT
        yield from self._effect(out, self.frame)
        yield from self._enter_path(out.target, lca)
        self._fired(root.name if root is not None else join.name, out.target.name, None)

    def _fire_join(self, join: Vertex) -> Steps:
        """The segments into a join fire together: each source left and its effect run, then the
        state holding them, then the join's outgoing segment."""
        segments = self._incoming(join)
        if len(segments) > 1:
            names = ", ".join(x.source.name for x in segments)
            self.ctx.trace.flush_left(f"choice join {join.name}: states {names} react "
                                      f"(unordered; took {segments[0].source.name} first)")
        yield Par(tuple((x.source.name, self._join_segment(x), x) for x in segments))
        self.joined.pop(join, None)
        yield from self._leave_join(join, segments[0].source)
        self._requeue_deferred()
        self._deliver()

    def _join_segment(self, x: Transition) -> Steps:
        """A segment into a join: its source left and its effect run, one unit."""
        yield UNIT
        if x.source in self.active:
            run_whole(self._exit(x.source))
        yield from self._effect(x, self.frame)

    def _arm_timers(self) -> None:
        entered, self._entered_now = self._entered_now, []
        for v in entered:
            for t in v.outgoing:
                trig = t.trigger
                if trig is None or trig.expression is None:
                    continue
                if trig.kind not in (s.TriggerKind.AFTER, s.TriggerKind.AT):
                    continue
                try:
                    due = wake_time(trig.kind, self.host.evaluator.eval(trig.expression, self.frame, 0),
                                    self.ctx.clock.now)
                except EvaluationError as bad:
                    if trig.kind is s.TriggerKind.AFTER:
                        raise
                    raise MachineError(f"transition {t.label()}: {bad}") from None
                self.timer_seq += 1
                self.timers.append(Timer(due, self.timer_seq, t))

    def _fired(self, source: str, target: str, event: Event | None) -> None:
        """A transition's firing ended: the timers of the states it entered armed, its line, and the
        final states it reached."""
        self._arm_timers()
        if self.ctx.trace.enabled:
            self.ctx.trace.flush_left(transition_line(source, target, event))
        self._check_final()

    def _check_final(self) -> None:
        """A region whose final state is active is done; a composite all of whose regions are done
        completes; the machine's done ends the performance."""
        if not self.shape.has_final:
            return
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
        scope = a.scope_with(b)
        return scope if scope is not None else self.shape.machine

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

    def _through_choices(self, vertex: Vertex, frame: Frame) -> Generator[Step, None, Vertex]:
        """The branches of the choices (and of the junctions an initial or a history's default
        transition reaches: nothing of theirs was read before) the way comes to, each read after the
        effects before it: the first whose guard holds, or, under check and explore where several hold,
        the one a move picks (the oracle's "Two branches of a choice enabled by the data the incoming
        effect wrote"); the vertex the way ends at."""
        while vertex.kind in (VertexKind.CHOICE, VertexKind.JUNCTION):
            nxt = None
            if self.units:
                with self.ctx.trace.quiet():
                    enabled = [seg for seg in vertex.outgoing if self._guard(seg, quiet=True)]
                if len(enabled) > 1:
                    texts = tuple(transition_text(seg) for seg in enabled)
                    pick = Pick(vertex, texts)
                    yield pick
                    nxt = enabled[texts.index(pick.taken[0])]
                    self._guard(nxt)  # read, and traced, as the fixed policies read theirs
            for seg in vertex.outgoing if nxt is None else ():
                if self._guard(seg):
                    nxt = seg
                    break
            if nxt is None:
                raise MachineError(f"{vertex.kind.value} {vertex.name}: no branch's guard holds and none is unguarded")
            if nxt.effect:
                yield UNIT
            yield from self._effect(nxt, frame)
            vertex = nxt.target
        return vertex
