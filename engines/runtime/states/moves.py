"""A machine's performance as the behavior protocol sees it (engines/runtime/behavior.py): the moves
it may make between two run-to-completion steps, applying one, and its canonical state.

Moves, each a `Move` of its own kind:
- a do step (DO_STEP): one statement of one active do behavior whose wait, if any, is answered;
- a dispatch (DISPATCH) of the event due next: the head completion event (completion events come
  before pool events at one instant: never drawn), else the head of the pool (arrival order: never
  drawn), a `when` condition that rose, and every timer due at the present instant: these are tied
  at the instant (ChoiceKind.DISPATCH_ORDER), one move each.
  A pool event that selects several transitions of one state (overlapping guards) is one move per
  transition (ChoiceKind.TRANSITION). A machine stepped without `units` fires the reactions selected
  in several regions whole, one after another, in each order (ChoiceKind.REGION_ORDER).
- a unit (UNIT) of a firing in progress (`units`: check, explore): a dispatch, and the machine's start,
  whose units may take other orders (units.py: regions entered or left, reactions in several regions,
  a fork's branches, segments into a join) stays in progress; each chain offers its next unit, and
  each do behavior the firing started offers its step (the oracle's entry front: the step falls
  between the entries left). No dispatch and no send comes between the units of one firing
  (run-to-completion). A chain that alone may move goes on without a move of its own.
Time is no move: with nothing enabled the clock moves to the next timer (`let_time_pass`).

The fixed policies' step (machine.py) is one path through these moves: every due do behavior steps
once (region declaration order), then the event due is dispatched, then the next round. The moves
are listed in that order (the do steps not yet taken this round, the dispatches, the do steps taken),
so a scheduler that takes the first move each time makes the fixed policies' run.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import replace
from fractions import Fraction
from itertools import permutations, product

from engines.errors import RunError
from engines.runtime.actions.tokens import Terminated
from engines.runtime.behavior import Actor, ChoiceKind, Move, MoveKind, Summary, Travelled
from engines.runtime.canon import Canon
from engines.runtime.evaluate import Frame
from engines.runtime.snapshot import Snapshot, SnapshotError
from engines.runtime.states.core import DoRun, Event, Firing, Timer
from engines.runtime.states.dispatch import Dispatch, firing_text
from engines.runtime.states.footprints import ENVIRONMENT as _ENVIRONMENT
from engines.runtime.states.footprints import MachineFootprints, pending_by_region
from engines.runtime.states.layout import Transition, Vertex, VertexKind, derive
from engines.runtime.states.units import Alone, Chain, Front, Steps, Task, run_whole
from engines.runtime.world import Context
from ir import syntax as s
from ir.graphs import Footprint

_EVERYTHING: Summary = Footprint(dynamic=True)
_DISPATCHER = 0  # the actor number of a dispatch; a do behavior's is 1 + its state's order
_REGIONS = 1_000_000  # a completion event's: this + the order of its state's region
_UNITS = 2_000_000  # a chain of a firing in progress: this + its number in the firing


def _completer(state: Vertex) -> int:
    """The actor of a completion event: its region's (the completed state's parent), which persists
    across the region's steps."""
    return _REGIONS + (state.parent.order if state.parent is not None else 0)


def _completion_move(state: Vertex) -> Move:
    """The dispatch of the completion event of `state` where it takes no choice (one per state: a move
    is a value)."""
    return derive(state, "completion move", lambda: Move(MoveKind.DISPATCH, _completer(state),
                                                         f"completion {state.name}", state.name, None,
                                                         ChoiceKind.DISPATCH_ORDER))


def _completion_may_choose(state: Vertex) -> bool:
    """Whether the completion of `state` may take one of several firings: two completion transitions,
    or one through a junction."""
    def judged() -> bool:
        ways = [t for t in state.outgoing if t.trigger is None]
        return len(ways) >= 2 or any(t.target.kind is VertexKind.JUNCTION for t in ways)
    return derive(state, "completion may choose", judged)


def _dispatch_move(label: str, at: str, option: str | None, choice: ChoiceKind) -> Move:
    return Move(MoveKind.DISPATCH, _DISPATCHER, label, at, option, choice)


class Reported:
    """What a machine reports, and an instance of several alike (instance_run.py): its values are its
    `machine_outputs()` (the configuration among them), `this.x` names its feature `x`, and a check
    may compare them and the states visited."""

    def machine_outputs(self) -> dict[str, str]:
        raise NotImplementedError

    def own_outputs(self) -> dict[str, str]:
        return self.machine_outputs()

    def feature_path(self, name: str) -> str:
        """`this.x` of an exhibited machine is the machine's (and its object's) feature `x`."""
        return name.removeprefix("this.")

    def known_features(self) -> set[str]:
        return set(self.machine_outputs()) | {"stateVisits"}


class MachineMoves(Reported, Dispatch):
    """The behavior protocol over a machine's configuration, pool, timers and do behaviors."""

    moves_taken: list[Move]
    stepped: set[Vertex]  # the do behaviors stepped since the last dispatch: the fixed policy's round
    due_batch: list[Timer]  # the timers the clock's last move made due, in the order they were armed
    front: Front | None  # the firing in progress
    alone: Alone | None  # a firing begun while one chain alone may move (`_begin_front`)
    applying: bool  # inside `apply`: a firing begun now may stay in progress
    begun_key: tuple[object, ...]  # the state a dispatch began in (a firing in progress is keyed by it)
    concurrent: bool  # whether the machine has a parallel state or a do behavior (a firing may be in progress)

    @abstractmethod
    def final_state(self) -> str: ...

    def travelled(self) -> Travelled | None:
        return Travelled(tuple(self.visits))

    def settled(self) -> bool:
        return self.front is None

    # ------------------------------------------------------------ what may happen next

    @property
    def world(self) -> Context:
        return self.ctx

    def enabled_moves(self) -> list[Move]:
        if self.finished:
            return []
        if self.front is not None:
            return self._front_moves()
        if not self.dos:
            return self._dispatch_moves()  # no do behavior: nothing fresh, nothing stepped
        fresh: list[Move] = []
        stepped: list[Move] = []
        for state in sorted(self.dos, key=lambda v: v.order):
            run = self.dos[state]
            if state not in self.active or run.done:
                continue
            if run.waiting is not None and not run.waiting.ready():
                continue
            goes_on = run.woken or run.split
            (stepped if state in self.stepped and not goes_on else fresh).extend(self._do_moves(state, run))
        dispatches = self._dispatch_moves()
        if not fresh and not dispatches:
            return stepped  # the round is over: the next begins
        return fresh + dispatches + stepped

    def surely_moves(self) -> bool:
        """True where `enabled_moves()` would list a move and listing it reads nothing (no guard, no
        wait): a chain of a firing in progress that may go on (no do behavior it started, no held
        entry), or a completion event due that takes no choice with nothing else under way. False: not
        known."""
        if self.finished:
            return False
        front = self.front
        if front is not None:
            return not self.front_dos and not front.held() and front.any_runnable()
        if self.dos or not self.completions:
            return False
        return not self.units or not _completion_may_choose(self.completions[0])

    def _do_moves(self, state: Vertex, run: DoRun) -> list[Move]:
        """A do behavior's step (the fixed policies' round of its flow), then, where its flow has two
        or more tokens that may move, each token's move alone."""
        out = [Move(MoveKind.DO_STEP, 1 + state.order, f"do {state.name}", state.name, None, ChoiceKind.STEP_ORDER)]
        out.extend(Move(MoveKind.DO_STEP, 1 + state.order, f"do {state.name} [token {token}]", state.name, str(token),
                        ChoiceKind.STEP_ORDER) for token in self.lone_tokens(run))
        return out

    def _dispatch_moves(self) -> list[Move]:
        if self.completions:
            # completion events are dispatched in the order they were generated, before pool events:
            # never drawn (what orders them is the order their states were entered)
            state = self.completions[0]
            options = self._completion_choices(state)
            if options:
                # two completion transitions enabled, or two ways through a junction: which one fires
                # is open (the oracle's conflicting transitions and junction branches)
                return [Move(MoveKind.DISPATCH, _completer(state), f"completion {state.name} [{text}]", state.name,
                             text, ChoiceKind.TRANSITION) for text in options]
            return [_completion_move(state)]
        batch = [tm for tm in self.due_batch if tm in self.timers and tm.transition.source in self.active]
        moves = [self._timer_move(tm) for tm in batch]
        if self.pool:
            moves.extend(self._event_moves(self.pool[0]))
        if self._rising():
            moves.append(_dispatch_move("change", "", None, ChoiceKind.DISPATCH_ORDER))
        now = self.ctx.clock.now
        moves.extend(self._timer_move(tm) for tm in sorted(self.timers, key=lambda t: t.seq)
                     if tm not in batch and tm.due <= now and tm.transition.source in self.active)
        return moves

    def _completion_choices(self, state: Vertex) -> list[str]:
        """Under check and explore, the firings a completion may take where it may take several (a
        guard the listing cannot read leaves the choice to the dispatch, which raises it)."""
        if not self.units or not _completion_may_choose(state):
            return []
        try:
            return [firing_text(f) for f in self.completion_options(state)]
        except RunError:
            return []

    def _timer_move(self, timer: Timer) -> Move:
        t = timer.transition
        # named as a witness can find it again: two timed transitions alike in source and target by their numbers
        timed = [x for x in t.source.outgoing if x.target is t.target and x.trigger is not None
                 and x.trigger.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT)]
        text = f"{t.label()}#{t.index}" if len(timed) > 1 else t.label()
        return _dispatch_move(f"time {text}", t.source.name, str(timer.seq), ChoiceKind.DISPATCH_ORDER)

    def _event_moves(self, event: Event) -> list[Move]:
        """The dispatch of the pool's head: one move per admissible selection and firing order."""
        label = event.label()
        options = self._orders(event)
        if len(options) <= 1:
            return [_dispatch_move(label, "", None, ChoiceKind.DISPATCH_ORDER)]
        transitions = len({tuple(sorted(firing_text(f) for f in o)) for o in options}) > 1
        kind = ChoiceKind.TRANSITION if transitions else ChoiceKind.REGION_ORDER
        return [_dispatch_move(f"{label} [{text}]", "", text, kind) for text in map(_order_text, options)]

    def _orders(self, event: Event) -> list[list[Firing]]:
        """Every selection the event admits (per state, each enabled transition: the first declared is
        the fixed policies'), each in every firing order (declaration order first)."""
        with self.ctx.trace.quiet():
            per_state = self._select_all(event)
        out: list[list[Firing]] = []
        for selection in product(*per_state):
            ordered = sorted(selection, key=lambda f: f.transition.source.order)
            if self.units:
                out.append(ordered)  # the order among them is drawn unit by unit, in the firing's moves
            else:
                out.extend(list(p) for p in permutations(ordered))
        return out

    def _select_all(self, event: Event) -> list[list[Firing]]:
        """As `_select`, but every transition of a state whose trigger and guard admit the event."""
        chosen: list[tuple[Vertex, list[Firing]]] = []
        for state in sorted(self.active, key=lambda v: (-v.depth, v.order)):
            if any(src.is_within(state) or state.is_within(src) for src, _ in chosen):
                continue
            found: list[Firing] = []
            for t in state.outgoing:
                if not self._accepts(t, event) or not self._guard(t, quiet=True, frame=self._payload_frame(t, event)):
                    continue
                found.extend(Firing(t, event, route) for route in self._routes(t))
            if found:
                chosen.append((state, found))
        return [found for _, found in chosen]

    def _rising(self) -> bool:
        """Whether a `when` condition of an active state's transition rose since it was last read."""
        for state in sorted(self.active, key=lambda v: v.order):
            for t in state.outgoing:
                trig = t.trigger
                if trig is None or trig.kind is not s.TriggerKind.WHEN or trig.expression is None:
                    continue
                if self.change_seen.get(t.index, False):
                    continue
                with self.ctx.trace.quiet():
                    try:
                        now = self.host.evaluator.eval(trig.expression, self.frame, 0)
                    except RunError:
                        return True  # the dispatch raises it, on its schedule
                if now is True:
                    return True
        return False

    def _lower_latches(self) -> None:
        """A `when` condition read false again may rise again: its latch is lowered."""
        if not self.change_seen:
            return  # no latch was ever raised
        for state in self.active:
            for t in state.outgoing:
                trig = t.trigger
                if (trig is None or trig.kind is not s.TriggerKind.WHEN or trig.expression is None
                        or not self.change_seen.get(t.index, False)):
                    continue
                with self.ctx.trace.quiet():
                    try:
                        now = self.host.evaluator.eval(trig.expression, self.frame, 0)
                    except RunError:
                        continue
                if now is not True:
                    self.change_seen[t.index] = False

    # ------------------------------------------------------------ a firing in progress

    def _front_moves(self) -> list[Move]:
        """The next unit of each chain that may go on, in declaration order, then a step of each do
        behavior the firing started that is due (drawn against the units left)."""
        front = self.front
        assert front is not None
        out = [Move(MoveKind.UNIT, _UNITS + task.number, label, task.name, option,
                    ChoiceKind.REGION_ORDER if option is None else ChoiceKind.TRANSITION)
               for task, label, option in front.labels()]
        for state in self._front_due():
            out.extend(self._do_moves(state, self.dos[state]))
        if front.held():
            out.extend(self._dispatch_moves())  # an entry not run to completion: a dispatch may come first
        return out

    def _front_due(self) -> list[Vertex]:
        out = []
        for state in sorted(self.front_dos, key=lambda v: v.order):
            run = self.dos.get(state)
            if run is None or state not in self.active or run.done:
                continue
            if run.waiting is not None and not run.waiting.ready():
                continue
            out.append(state)
        return out

    def _being_left(self, state: Vertex) -> bool:
        if self.front is not None:
            return self.front.being_left(state)
        alone = self.alone
        return alone is not None and alone.being_left(state)

    def _firing(self, steps: Steps, name: str) -> None:
        self.front_dos = set()
        if not (self.units and self.applying):
            run_whole(steps)
            return
        self._begin_front(steps, name, self.begun_key, quiet=False)

    def _begin_front(self, steps: Steps, name: str, key: tuple[object, ...], quiet: bool) -> None:
        """As `Front.begin` then `_settle_front`; while one chain alone may move, without a `Front`."""
        alone = Alone(steps, name)
        self.front = None
        self.alone = alone
        try:
            if quiet:
                with self.ctx.trace.quiet():
                    front = alone.run(self._front_dos_begun, key, quiet)
            else:
                front = alone.run(self._front_dos_begun, key, quiet)
        except BaseException:
            self.front = alone.front(key, quiet)  # where a Front would have stood when it raised
            raise
        finally:
            self.alone = None
        if front is None:
            self.front_dos = set()
            return
        self.front = front
        self._settle_front()

    def _front_dos_begun(self) -> bool:
        return bool(self.front_dos)

    def _settle_front(self) -> None:
        """Go on while one chain alone may move (no other chain, no do behavior the firing started
        due): the firing is in progress only where its units may take another order."""
        front = self.front
        while front is not None:
            if front.done:
                self.front = None
                self.front_dos = set()
                return
            runnable = front.runnable()
            if len(runnable) != 1 or runnable[0].pick is not None or (self.front_dos and self._front_due()) \
                    or (front.held() and self._dispatch_moves()):
                return
            self._advance(runnable[0])
            front = self.front

    def _advance(self, task: Task, option: str | None = None) -> None:
        front = self.front
        assert front is not None
        if front.quiet:
            with self.ctx.trace.quiet():
                front.advance(task, option)
        else:
            front.advance(task, option)

    def _take_unit(self, move: Move) -> None:
        front = self.front
        assert front is not None
        task, option = next((t, o) for t, label, o in front.labels() if label == move.label)
        self._advance(task, option)

    # ------------------------------------------------------------ making one happen

    def apply(self, move: Move, *, at: bytes | None = None, listed: bool = False) -> list[str]:
        """As the protocol's; `listed`: the move is known enabled (a replay of moves this very machine
        made from its start), not looked up again, and a firing it leaves in progress keyed as without
        `at`."""
        mark = self.ctx.trace.mark()
        if at is None and not listed and move not in self.enabled_moves():
            raise RunError(f"{move.label} is not enabled" + (": the machine has ended" if self.finished else ""),
                           move.at)
        self.moves_taken.append(move)
        try:
            if self.front is not None:
                self.front.taken.append(move.label)
                if move.kind is MoveKind.UNIT:
                    self._take_unit(move)
                elif move.kind is MoveKind.DO_STEP:
                    self._step_do(move)
                else:
                    self.ctx.charge_step()
                    self._take(move)  # at a held entry: this dispatch's firing runs whole
                if self.finished:
                    self.front = None
                self._settle_front()
            else:
                self.ctx.charge_step()
                if move.kind is MoveKind.DO_STEP:
                    self._step_do(move)
                else:
                    if self.units and self.concurrent:
                        self.begun_key = (at,) if at is not None else self.state_key()
                    self.applying = True
                    try:
                        self._take(move)
                    finally:
                        self.applying = False
                    self.stepped = set()
            if self.front is None:
                self._lower_latches()
        except Terminated:
            self.status = "terminated"
            self.front = None
        except RunError as err:
            self.status = "failed"
            self.error = err
            self.front = None
            raise
        return self.ctx.trace.since(mark)

    def _step_do(self, move: Move) -> None:
        state = next((v for v in self.dos if v.name == move.at and 1 + v.order == move.actor), None)
        if state is None or state not in self.active:
            raise RunError(f"{move.label} is not enabled", move.at)
        run = self.dos[state]
        if state in self.stepped:
            self.stepped = set()  # a do behavior stepping again: the next round has begun
        self.stepped.add(state)
        self._do_once(run, int(move.option) if move.option is not None else None)
        if run.waiting is None or run.waiting.reason != "do round":
            run.woken = False  # parked again, or ended: its rounds at this instant are over
        if run.done and state in self.dos:
            self._end_do(state, run)
        self._deliver()

    def _take(self, move: Move) -> None:
        label = move.label
        if label.startswith("completion "):
            state = _named(self.completions, move.at)
            self.completions.remove(state)
            if state in self.active:
                self._dispatch_completion(state, move.option)
            return
        if label == "change":
            self._change_event()
            return
        if label.startswith("time "):
            self._fire_timer(move)
            return
        event = self.pool.pop(0)
        firings = self._select(event)  # as the fixed policies read it (and trace it)
        if move.option is not None:
            firings = next(o for o in self._orders(event)
                           if _order_text(o) == move.option)
        self._dispatch(event, firings)

    def _fire_timer(self, move: Move) -> None:
        timer = next((tm for tm in self.timers if str(tm.seq) == move.option), None)
        if timer is None:
            raise RunError(f"{move.label} is not enabled", move.at)
        self.timers.remove(timer)
        if timer in self.due_batch:
            self.due_batch.remove(timer)
        t = timer.transition
        if t.source not in self.active or self.finished:
            return
        if self._guard(t):
            route = self._route(t)
            if route is not None:
                self._firing(self._fire([Firing(t, Event("time", "time", None, t), route)]), "time")

    # ------------------------------------------------------------ time

    def next_wake(self) -> Fraction | None:
        now = self.ctx.clock.now
        dues = [tm.due for tm in self.timers if tm.transition.source in self.active and tm.due > now]
        wake = self._do_wake()
        if wake is not None:
            dues.append(wake)
        return min(dues) if dues else None

    def let_time_pass(self) -> bool:
        wake = self.next_wake()
        if wake is None:
            return False
        self.pass_time_to(wake)
        return True

    def pass_time_to(self, wake: Fraction) -> None:
        """The clock at `wake` (this machine's next wake, or an instant before it another behavior on
        its world waits for): a new round of do behaviors, the timers due then in a batch."""
        self.ctx.clock.advance_to(wake)
        self.stepped = set()  # a new instant: a new round of the do behaviors
        for run in self.dos.values():
            run.woken = run.wake == wake
        self.due_batch = sorted((tm for tm in self.timers if tm.due == wake and tm.transition.source in self.active),
                                key=lambda tm: tm.seq)

    # ------------------------------------------------------------ resting, stuck, reporting

    def stuck(self) -> str | None:
        """Why a machine that rests can never go on though something in it is under way: a do behavior
        parked at a wait no event answers. A machine resting in a configuration (waiting for an event,
        or for none; a join some of whose segments arrived included, as the oracle ends such runs) is
        quiescent, a regular end: None."""
        if self.finished or self.enabled_moves() or self.next_wake() is not None:
            return None
        waits = [f"the do behavior of {state.name} waits ({run.waiting.reason})"
                 for state, run in sorted(self.dos.items(), key=lambda kv: kv[0].order)
                 if state in self.active and run.waiting is not None and run.waiting.reason != "message"]
        if not waits:
            return None
        return f"deadlock: {self.element.name} in {self.final_state() or '(no state)'}: " + "; ".join(waits)

    @property
    def broken_assertions(self) -> tuple[str, ...]:
        """The assertions of its entry, do and exit behaviors found false where one ended."""
        return self.host.broken_assertions

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        """The configuration, history, pool and deferred events in order, timers (relative to now), do
        progress, latches and the machine's values; the states visited are left out (a report, which
        would make every cycle endless)."""
        now = self.ctx.clock.now
        canon_frame: list[object] = []
        canon = Canon(self.ctx, readable)
        canon.frame(self.frame, canon_frame, "", set())
        # each part spelled as before; an empty one is the empty tuple its expression would build
        histories, pool, deferred, timers, dos = self.histories, self.pool, self.deferred, self.timers, self.dos
        front, broken = self.front, self.host.broken_assertions
        key: tuple[object, ...] = (
            self.status,
            tuple(sorted([v.order for v in self.active])),
            tuple(sorted([(h.order, tuple([v.order for v in vs])) for h, vs in histories.items()]))
            if histories else (),
            tuple([_event_key(e, canon) for e in pool]) if pool else (),
            tuple([_event_key(e, canon) for e in deferred]) if deferred else (),
            tuple([v.order for v in self.completions]),
            tuple(sorted([v.order for v in self.complete])),
            tuple([(tm.due - now, tm.transition.index, tm in self.due_batch)
                   for tm in sorted(timers, key=_timer_seq)]) if timers else (),
            tuple(sorted([(v.order, r.index, r.started, r.waiting is not None,
                           r.wake - now if r.wake is not None else None) for v, r in dos.items()])) if dos else (),
            tuple(sorted([k for k, v in self.change_seen.items() if v])) if self.change_seen else (),
            tuple(sorted([(j.order, tuple(sorted([t.index for t in ts]))) for j, ts in self.joined.items()]))
            if self.joined else (),
            tuple(canon_frame),
            (front.key, tuple(front.taken)) if front is not None else None,
        )
        if broken:
            key += (broken,)
        if dos and self._paused_mid_statement():
            key += (repr(self.moves_taken),)
        return key

    def _paused_mid_statement(self) -> bool:
        """Whether a do behavior stands inside a statement (a loop's pass, a block, a wait) or inside its
        flow: where it stands is in no field of the machine's, so such a state is merged with no other
        (as an action's)."""
        return any(r.current is not None for r in self.dos.values())

    def actors(self) -> list[Actor]:
        """The dispatcher, a region per pending completion of its (one actor however many), each do
        behavior, and each chain of a firing in progress; each placed where its moves' footprints and
        its future depend on (footprints.py)."""
        prints = self.footprints()
        ids = [_DISPATCHER]
        for v in self.completions:
            if _completer(v) not in ids:
                ids.append(_completer(v))
        ids.extend(1 + v.order for v in sorted(self.dos, key=lambda v: v.order))
        active = tuple(sorted(v.order for v in self.active))
        pending = pending_by_region(self.completions)
        out = [Actor(i, prints.place(i, active, pending)) for i in ids]
        if self.front is not None:
            # a chain stands where it is named and how far it has gone (a unit move's option is None)
            out.extend(Actor(_UNITS + task.number, ("unit", task.name, task.taken, task.number))
                       for task in self.front.runnable())
        return out

    def environment_place(self) -> tuple[object, ...]:
        """Where the environment stands as this machine's moves see it (footprints.py `place`)."""
        return self.footprints().place(_ENVIRONMENT)

    def footprints(self) -> MachineFootprints:
        """What this machine's moves touch (computed from the lowered graph once per performance)."""
        prints = self.__dict__.get("_footprints")
        if prints is None:
            prints = self.__dict__["_footprints"] = MachineFootprints(self)
        return prints

    def footprint(self, move: Move) -> Summary:
        prints = self.footprints()
        if move.kind is MoveKind.UNIT:
            return prints.unit(move.actor, self._scopes())
        if self.front is not None and move.kind is MoveKind.DO_STEP:
            order = move.actor - 1
            return prints.front_do_step(order, prints.may_end(order))
        if self.front is not None and move.kind is MoveKind.DISPATCH:
            return _EVERYTHING  # beside a held entry: a unit queuing a completion disables it
        return prints.footprint(move)

    def future(self, actor: Actor) -> Summary:
        if actor.id >= _UNITS:
            return self.footprints().unit_future(actor.id, self._scopes())
        return self.footprints().future(actor)

    def _scopes(self) -> dict[int, list[Vertex | Transition | Chain | None]]:
        """What each runnable chain of the firing in progress works on (`unit_scope`), by actor."""
        if self.front is None:
            return {}
        return {_UNITS + task.number: _scope_of(task) for task in self.front.runnable()}

    def enablers(self, actor: Actor) -> list[int] | None:
        if self.front is not None:
            # nothing else moves until the firing in progress ends, which waits for every chain of it: any
            # one chain must move first (the first: a reducer's set holding it needs no other)
            # (beside an entry not run to completion a dispatch may move too: then any moving actor)
            moving = self.enabled_moves()
            chains = self.front.runnable()
            if chains and all(m.kind in (MoveKind.UNIT, MoveKind.DO_STEP) for m in moving):
                return [_UNITS + chains[0].number]
            return sorted({m.actor for m in moving}) or None
        return self.footprints().enablers(actor)

    def unit_scope(self, move: Move) -> list[Vertex | Transition | Chain | None] | None:
        """What a unit move's chain works on, then what each chain it is part of works on (whose rest
        may run at the end of this one: the chain that ends last goes on with its parent's); None
        stands for the firing's own rest (deferred events back to the pool, messages delivered, timers
        armed, the final state checked). None for a move that is no unit of the firing in progress."""
        if move.kind is not MoveKind.UNIT or self.front is None:
            return None
        task = next((t for t in self.front.runnable() if _UNITS + t.number == move.actor), None)
        return _scope_of(task) if task is not None else None

    def machine_outputs(self) -> dict[str, str]:
        """The machine's features, then `finalState` (as the corpus spells configurations; `(terminated)`
        once a terminate ended it)."""
        out = dict(self.host.own_outputs())  # not a do behavior's performance's own (it ends with it)
        out["finalState"] = self.final_configuration()
        return out

    def final_configuration(self) -> str:
        """`final_state()`, or `(terminated)`: a terminated machine has no configuration left (the
        corpus reports `terminated`, not a state)."""
        return "(terminated)" if self.status == "terminated" else self.final_state()

    def scope(self) -> Frame:
        return self.frame

    # ------------------------------------------------------------ what a snapshot needs

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        return Snapshot(self, allow_replay)

    def inside_move(self) -> bool:
        return False

    def unjournaled(self) -> str | None:
        if self.front is not None:
            return "a firing is in progress: where its units stand cannot be snapshot"
        for state, run in self.dos.items():
            if run.current is not None:
                return f"the do behavior of {state.name} is paused mid-statement: its state cannot be snapshot"
        return None

    def movers(self) -> list[object]:
        return [self, self.host]

    def history(self) -> object:
        return tuple(self.moves_taken)

    def rewind(self, history: object) -> None:
        raise SnapshotError("a machine whose do behavior is paused mid-statement is snapshot by replaying its "
                            "moves from the start, which only a machine with its environment (Driven) can do: "
                            "the events sent to this one are not among its moves")

    def saved_fields(self) -> dict[str, object]:
        fields = dict(self.__dict__)
        fields.pop("_footprints", None)  # derived from the graph alone: kept across restores
        for name in ("active", "complete", "stepped", "front_dos"):
            fields[name] = set(fields[name])
        for name in ("pool", "deferred", "completions", "timers", "visits", "unmatched", "due_batch",
                     "_entered_now", "moves_taken"):
            fields[name] = list(fields[name])
        fields["histories"] = dict(self.histories)
        fields["change_seen"] = dict(self.change_seen)
        fields["dos"] = {v: replace(r) for v, r in self.dos.items()}
        fields["joined"] = {j: set(ts) for j, ts in self.joined.items()}
        return fields

    def load_fields(self, saved: dict[str, object]) -> None:
        moves = self.moves_taken  # the snapshot cuts the behavior's own list back
        prints = self.__dict__.get("_footprints")
        self.__dict__.clear()
        self.__dict__.update(_copy_fields(saved))
        if prints is not None:
            self.__dict__["_footprints"] = prints
        moves[:] = self.moves_taken
        self.moves_taken = moves


def _copy_fields(saved: dict[str, object]) -> dict[str, object]:
    fields = dict(saved)
    for name, value in saved.items():
        if isinstance(value, (set, list)):
            fields[name] = type(value)(value)
    for name in ("histories", "change_seen"):
        fields[name] = dict(saved[name])  # type: ignore[call-overload]
    fields["dos"] = {v: replace(r) for v, r in saved["dos"].items()}  # type: ignore[attr-defined]
    fields["joined"] = {j: set(ts) for j, ts in saved["joined"].items()}  # type: ignore[attr-defined]
    return fields


def _scope_of(task: Task) -> list[Vertex | Transition | Chain | None]:
    """What a chain works on, then what each chain it is part of works on (`unit_scope`)."""
    out: list[Vertex | Transition | Chain | None] = []
    at: Task | None = task
    while at is not None:
        out.append(at.what)
        at = at.parent
    return out


def _named(states: list[Vertex], name: str) -> Vertex:
    """The first of `states` named `name` (one there is)."""
    for v in states:
        if v.name == name:
            return v
    raise StopIteration  # as `next` over none raised


def _timer_seq(timer: Timer) -> int:
    return timer.seq


def _order_text(order: list[Firing]) -> str:
    """A selection in its firing order, as a move names it: `off->on then idle->shown` (a transition
    by its name when it has one, else by its source and target, and its number where its source has
    two alike)."""
    return " then ".join(firing_text(f) for f in order)



def _event_key(event: Event, canon: Canon) -> tuple[object, ...]:
    """An event as the state holds it: a payload object by what it holds (`Hello{who=1}`), not by its
    number, which two schedules may give objects holding different values."""
    payload = event.payload
    return (event.kind, event.name, canon.value(payload) if payload is not None else None,
            event.transition.index if event.transition is not None else None)
