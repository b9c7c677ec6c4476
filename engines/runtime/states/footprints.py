"""What a machine's moves touch, for partial-order reduction (engines/check/reduce.py): the one place
the dependence of machine moves is written down.

A machine's moves share more than features: its configuration, its pool, its completion queue, its
timers. Each is a pseudo-feature here, named under the machine (`<machine>\\0active:<state>`,
`pool`, `deferred`, `completions`, `complete:<state>`, `timers`, `do:<state>` (a do behavior's
progress), `join:<state>`, `history:<state>`, `status`, `latches`; the world's `\\0clock`), read and
written as the dispatch, do step or environment move does, beside the features the lowered
transitions and state behaviors read and write (ir/lower/states.py). Two moves are then dependent by
the one relation of engines/runtime/behavior.py (`dependent`): one writes what the other reads or
writes, both send or accept, or either is dynamic. The clauses this yields, each with the test that
holds it (tests/engines/check/test_machine_footprints.py, `test_` + the words in brackets):

 1. Activity. A dispatch reads its source's activity and writes the activity of every state it may
    leave or enter (everything under the child of the transition's least common ancestor on each
    side; an entered parallel state's other regions; all a history's owner holds). So the moves of
    regions that keep to their own states and data commute, and a transition leaving a composite is
    dependent on every move inside it [a transition leaving a composite depends on every move inside it].
 2. Data. A fired transition touches what its lowered footprint does: trigger, guard, the exits of
    what it leaves, the effect, the entries of what it enters, onward through choices, junctions,
    forks and joins. Dispatches of two machines commute unless one writes what the other reads or
    writes [a transition writing a part feature is dependent on a guard another machine reads].
 3. Do steps. A do step reads its state's activity and writes its own progress: do steps of two
    regions over their own data commute [do steps of two regions over their own data commute], and a
    do step is dependent on a dispatch that may leave its state [a do step and a dispatch that may
    leave its state are dependent].
 4. The completion queue. A step that may end a do behavior, and a transition entering a state, may
    queue a completion: two last do steps are dependent, since the queue's order is state [two last
    do steps both complete their states so their order is the queue s].
 5. The pool. A pool event's dispatch reads and writes the pool and the deferred events (and the
    progress of a do behavior waiting at an accept) and reads the whole configuration: it is dependent
    on every environment send to the machine. A completion's dispatch reads no pool (completion
    events come first), so it commutes with a send [a completion commutes with an environment send
    but a pool event does not].
 6. Completions first. A pool event's, a timer's or a change's dispatch waits while a completion is
    pending, so it reads the completion queue (a move queuing one disables it), and the dispatcher's
    enablers are the region of the first pending completion [the dispatcher waits for the pending
    completions whose region must move first].
 7. Time. A timer's dispatch reads the clock and writes the timers; a transition entering or leaving
    a timed state writes the timers. Time passing (the environment's CLOCK move) reads the timers and
    the pool and writes the clock and the timers: it passes only where the machine cannot move, so a
    send, which disables it, is dependent on it [time passing is dependent on a timer s dispatch and
    on a send not on a do step].
 8. Change. In a machine with a `when` trigger every move re-reads the conditions and writes their
    latches: all its moves are dependent [in a machine with a when trigger every move reads its
    condition and writes the latches].
 9. Status. A move into a final state or a terminate writes the machine's status, which every move of
    the machine reads (an ended machine moves no more) [a move into a terminate writes the status
    every move of the machine reads].
10. The bus. A transition or do step that sends writes the machine's own pool (a message to itself
    lands there) and sends. A machine on a world other behaviors send on, which does not route
    messages, takes every message on the bus into its pool after each move: each of its moves accepts
    [a machine takes the bus only where another behavior may send].
11. Firing units. A firing whose units may take other orders (the regions of a parallel state
    entered or left, reactions in several regions, a fork's branches, a join's segments) is in
    progress, each chain a unit actor (MoveKind.UNIT). A unit touches its own chain's work and
    everything its states may do after (`firing_unit`, `region_unit`), the queue's order left out (the
    order of completions follows the order of what generates them); the rest of a chain it is part of
    only where no other runnable chain is part of it too, since that rest runs after every sibling
    whatever their order. A chain of an entry's, exit's or effect's statements touches what its
    statements do (each lowered with its behavior: `Behavior.parts`), or all its behavior's owner may
    do where one sends, accepts, terminates or is not known; it has no rest of its own. The firing's
    own rest (deferred events, messages, timers, the final state) is a key the last unit reads and a
    do step the firing started writes; such a do step also holds what its state's completion leads to. Nothing else moves until the firing ends, so any one chain
    enables the dispatcher, the completions and the environment [units of a firing commute where
    their chains and what follows keep to their own data; a do step the firing started is ordered
    against the firing s rest not its other units].
12. Unknown. A move of a kind this module does not spell, or of an actor it does not know, is
    dynamic: dependent on everything (sound, no reduction) [a move of a kind not spelled here is
    dependent on everything].

What the reducer asks besides a move's footprint:
- futures: the dispatcher's is the triggered transitions reachable from the active configuration and
  everything after them; a region's completions what its active states can reach; a do behavior's
  its steps and what its state's completion leads to; the environment's its sends and time passing,
  while it may still send [a machine s future is what it can still reach];
- places: what persistent and sleep sets are keyed by; an actor's place changes whenever its
  footprints or future may (the configuration, pending completions, pool non-empty, timers) [an
  actor s place changes with what its footprints depend on];
- groups of units: the orders of several reactions or entered regions that can matter are those
  within a group of dependent units [regions over their own data are groups of one and a shared
  counter one group].
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engines.runtime.behavior import Actor, Move, MoveKind, Summary, dependent
from engines.runtime.states.layout import Transition, Vertex, VertexKind, state_graph
from engines.runtime.states.units import Chain
from ir import syntax as s
from ir.graphs import Footprint, StateGraph, TriggerKind
from ir.lower.members import unwrapped

if TYPE_CHECKING:
    from engines.runtime.states.core import MachineCore

DISPATCHER = 0  # the actor of a pool event's, a timer's or a change's dispatch
REGIONS = 1_000_000  # a completion event's actor: this + the order of its state's parent (its region)
ENVIRONMENT = -1  # the environment's sends and time passing
UNITS = 2 * REGIONS  # from here on: actors this module does not know (their moves are dynamic)
# a do behavior's actor is 1 + its state's order
Scope = list["Vertex | Transition | Chain | None"]  # what a unit's chain works on, then the chains it is part of
CLOCK = "\0clock"  # the world's clock: read by timers, written by time passing
_UNKNOWN: Summary = Footprint(dynamic=True)


class MachineFootprints:
    """The footprints of one machine's moves and the futures of its actors, each computed once from
    the lowered graph (the pool's head and a do behavior's progress are read at the move)."""

    def __init__(self, machine: MachineCore, graph: StateGraph | None = None) -> None:
        self.machine = machine
        self.graph = graph if graph is not None else state_graph(machine.program.model, machine.element)
        self.name = machine.element.qualified_name
        shape = machine.shape
        watched = [t for t in self.graph.transitions if t.trigger.kind is TriggerKind.WHEN]
        # every move re-reads the when-conditions and lowers their latches (MachineMoves._lower_latches)
        self.latches: Summary = Footprint()
        if watched:
            reads = frozenset().union(*(t.footprint.reads for t in watched))
            self.latches = Footprint(reads=reads, writes=frozenset({self.key("latches")}))
        self.status: Summary = Footprint(reads=frozenset({self.key("status")}))
        # what every move of the machine does besides its own work: reads its status and the latches,
        # and, where the world does not route messages but other behaviors act on it, takes every
        # message on the bus into its pool after the move (so it depends on every send they make)
        takes = not machine.shared and machine.ctx.shared_bus
        self.every: Summary = self.status | self.latches | Footprint(accepts=takes)
        # the caches below depend on the graph and on `takes` alone: shared by every performance of the
        # machine that takes alike (a check starts it afresh for each replay and each witness)
        memo = shape.memo.get(("footprints", takes))
        if not isinstance(memo, _Memo) or memo.graph is not self.graph:
            memo = _Memo(self.graph)
            shape.memo[("footprints", takes)] = memo
        self._transitions: dict[int, Summary] = memo.transitions
        self._regions: dict[int, Summary] = memo.regions
        self._units: dict[int, Summary] = memo.units
        # the completion queue: its order is state, but whose completions follow whose is decided by
        # the order of what generated them, which a unit (groups) already answers for
        self._queue = frozenset({self.key("completions"), *(self.key(f"complete:{v.order}") for v in shape.vertices)})
        # the states whose do behavior may wait at an accept: a pool event may be handed to it
        self.accepting = tuple(st.index for st in self.graph.states if st.do is not None and st.do.footprint.accepts)
        self._dos: dict[int, Summary] = memo.dos
        self._dispatcher: dict[frozenset[int], Summary] = memo.dispatcher
        self._triggered: dict[frozenset[int], Summary] = memo.triggered
        # the rest of a firing in progress, after all its chains (deferred events back to the pool,
        # messages delivered, timers armed, the final state checked): ordered against the do steps
        # the firing started only, so its units read it and those do steps write it
        self.rest: Summary = Footprint(reads=frozenset({self.key("firing rest")}))
        # each statement's own footprint, of every entry, exit and effect (a chain of them: chain_work)
        behaviors = [b for st in self.graph.states for b in (st.entry, st.exit) if b is not None]
        behaviors += [t.effect for t in self.graph.transitions if t.effect is not None]
        self._parts: dict[int, Summary] = {key: part for b in behaviors for key, part in b.parts}

    def key(self, what: str) -> str:
        return f"{self.name}\0{what}"

    def _active(self, vertices: list[Vertex]) -> frozenset[str]:
        return frozenset(self.key(f"active:{v.order}") for v in vertices)

    # ------------------------------------------------------------ one transition, fired

    def transition(self, t: Transition) -> Summary:
        """Firing `t` (and the route it takes on through choices, junctions, forks and joins)."""
        done = self._transitions.get(t.index)
        if done is None:
            done = self._transitions[t.index] = self._fired(t, set())
        return done

    def _fired(self, t: Transition, seen: set[int]) -> Summary:
        seen.add(t.index)
        lowered = self.graph.transitions[t.index].footprint
        lca = _lca(t.source, t.target, self.machine.shape.machine)
        left = _subtree(_toward(lca, t.source))
        entered = _entered(t, lca)
        writes = set(self._active(left + entered))
        writes.add(self.key("completions"))  # a state entered may complete
        reads = set(self._active([t.source]))
        if any(v.defers for v in left):
            writes.add(self.key("pool"))  # deferred events go back to the pool
            writes.add(self.key("deferred"))
        if any(_timed(v) for v in left + entered):  # entering arms its timers, leaving drops them
            writes.add(self.key("timers"))
        for v in left + entered:
            if v.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY):
                writes.add(self.key(f"history:{v.order}"))
                reads.add(self.key(f"history:{v.order}"))
            if v.kind in (VertexKind.FINAL, VertexKind.TERMINATE):
                writes.add(self.key("status"))
        if t.target.kind is VertexKind.JOIN:
            # a join reads whether every other segment's source is active and complete
            for other in self.machine.shape.transitions:
                if other.target is t.target:
                    reads.update(self._active([other.source]))
                    reads.add(self.key(f"complete:{other.source.order}"))
            writes.add(self.key(f"join:{t.target.order}"))
        out: Summary = lowered | Footprint(reads=frozenset(reads), writes=frozenset(writes))
        if lowered.sends:
            out = out | Footprint(writes=frozenset({self.key("pool")}))  # a message to itself lands there
        if t.target.kind not in (VertexKind.STATE, VertexKind.FINAL):
            for onward in t.target.outgoing:
                if onward.index not in seen:
                    out = out | self._fired(onward, seen)
        if t.target.kind is VertexKind.TERMINATE:
            out = out | Footprint(writes=frozenset({self.key("status")}))
        return out

    # ------------------------------------------------------------ the moves

    def footprint(self, move: Move) -> Summary:
        """What `move`, enabled now, may touch."""
        if move.kind is MoveKind.DO_STEP:
            return self._do_step(move.actor - 1, last=self.may_end(move.actor - 1))
        if move.kind is MoveKind.SEND:
            return self.send()
        if move.kind is MoveKind.CLOCK:
            return self.clock()
        if move.kind is MoveKind.DISPATCH:
            return self._dispatch(move)
        return _UNKNOWN  # a kind of move this module does not know yet: dependent on everything

    def _dispatch(self, move: Move) -> Summary:
        machine = self.machine
        label = move.label
        base = self.every
        if label.startswith("completion "):
            state = next((v for v in machine.completions if v.name == move.at), None)
            if state is None:
                return self.dispatcher()
            fired = [self.transition(t) for t in state.outgoing if t.completion]
            return _union([base, Footprint(reads=self._active([state]) | {self.key(f"complete:{state.order}")},
                                           writes=frozenset({self.key("completions")})), *fired])
        # a pool event, a timer or a change is dispatched only while no completion is pending: a move
        # that queues one disables it
        base = base | Footprint(reads=frozenset({self.key("completions")}))
        if label.startswith("time "):
            timer = next((tm for tm in machine.timers if str(tm.seq) == move.option), None)
            if timer is None:
                return self.dispatcher()
            return _union([base, self.transition(timer.transition),
                           Footprint(reads=frozenset({CLOCK}), writes=frozenset({self.key("timers")}))])
        if label == "change":
            watched = [t for t in machine.shape.transitions
                       if t.trigger is not None and t.trigger.kind is s.TriggerKind.WHEN]
            return _union([base, *(self.transition(t) for t in watched),
                           Footprint(reads=self._active(machine.shape.vertices))])
        return self._pool_event(base)

    def _pool_event(self, base: Summary) -> Summary:
        """The pool's head dispatched: any transition an event may trigger, selected against the whole
        configuration; else a waiting do behavior takes it, or it is deferred, or dropped."""
        machine = self.machine
        if not machine.pool:
            return self.dispatcher()
        # any transition an occurrence may trigger (a value, a subset or a call is matched at run time)
        fired = [self.transition(t) for t in machine.shape.transitions
                 if t.trigger is not None and t.trigger.kind in (s.TriggerKind.SIGNAL, s.TriggerKind.CALL)]
        waiting = frozenset(self.key(f"do:{order}") for order in self.accepting)
        keys = frozenset({self.key("pool"), self.key("deferred")})
        return _union([base, *fired, Footprint(reads=self._active(machine.shape.vertices) | keys,
                                               writes=keys | waiting)])

    def may_end(self, order: int) -> bool:
        """Whether the next step of the do behavior of the state numbered `order` may be its last."""
        state = self.machine.shape.vertices[order]
        run = self.machine.dos.get(state)
        return run is None or run.index >= len(run.statements) - (0 if run.current is not None else 1)

    def _do_step(self, order: int, last: bool) -> Summary:
        key = order if last else -1 - order
        done = self._dos.get(key)
        if done is not None:
            return done
        state = self.graph.states[order]
        lowered = state.do.footprint if state.do is not None else Footprint()
        progress = self.key(f"do:{order}")
        reads = {self.key(f"active:{order}"), progress}
        writes = {progress}
        if last:  # the behavior ends: the state may complete
            writes.update({self.key("completions"), self.key(f"complete:{order}")})
        if lowered.accepts:
            reads.add(self.key("pool"))
        if lowered.sends:
            writes.add(self.key("pool"))  # delivered into the pool after the step
        done = self._dos[key] = _union([self.every, lowered,
                                        Footprint(reads=frozenset(reads), writes=frozenset(writes))])
        return done

    def send(self) -> Summary:
        """The environment puts an event into the machine's pool."""
        return Footprint(writes=frozenset({self.key("pool")}))

    def clock(self) -> Summary:
        """Time passes to the next timer: the clock and which timers are due change. It passes only
        where the machine cannot move: an event sent disables it (the event is taken first), so it
        reads the pool."""
        return Footprint(reads=frozenset({self.key("timers"), self.key("pool")}),
                         writes=frozenset({CLOCK, self.key("timers")}))

    def place(self, actor: int, active: tuple[int, ...] | None = None,
              pending: dict[int, tuple[int, ...]] | None = None) -> tuple[object, ...]:
        """Where an actor stands, as far as its moves' footprints and its future depend on it: the
        reducer remembers persistent sets per places (engines/check/reduce.py), so an actor's place must
        change whenever what `footprint` or `future` answers for it may. Where the caller places several
        actors at one state, `active` (the active states' orders, sorted) and `pending` (the completed
        states' orders by the region they are drawn in, in queue order: `pending_by_region`)."""
        machine = self.machine
        if actor == ENVIRONMENT:
            return ("environment",)
        if active is None:
            active = tuple(sorted(v.order for v in machine.active))
        if actor >= UNITS:
            return ("other", actor)
        if actor == DISPATCHER:
            return ("dispatch", machine.status, active, bool(machine.pool),
                    tuple(sorted(tm.transition.index for tm in machine.timers)))
        if actor >= REGIONS:
            region = actor - REGIONS
            mine = (pending if pending is not None else pending_by_region(machine.completions)).get(region, ())
            return ("completion", machine.status, active, mine)
        return ("do", actor - 1, machine.status, active, self.may_end(actor - 1))

    def enablers(self, actor: Actor) -> list[int] | None:
        """For an actor that cannot move now, actors one of which must move before it can (None: not
        known). The dispatcher waits while completion events are pending (they come first), and only
        their regions' moves take them: the first pending one's region must move before it."""
        machine = self.machine
        if machine.finished:
            return None
        if actor.id == DISPATCHER and machine.completions:
            return [REGIONS + _region(machine.completions[0])]
        return None

    # ------------------------------------------------------------ orders that cannot matter

    def groups(self, units: list[Summary]) -> list[list[int]]:
        """The positions of `units` (what each of several reactions or regions may do, as
        `firing_unit` and `region_unit` give it) in groups: two in one group when they are dependent,
        transitively. Only orders within a group can reach different states; the groups keep their
        first members' order, and a group's members keep theirs."""
        group = list(range(len(units)))

        def root(i: int) -> int:
            while group[i] != i:
                group[i] = group[group[i]]
                i = group[i]
            return i

        for i in range(len(units)):
            for j in range(i):
                if root(i) != root(j) and dependent(units[i], units[j]):
                    group[max(root(i), root(j))] = min(root(i), root(j))
        out: dict[int, list[int]] = {}
        for i in range(len(units)):
            out.setdefault(root(i), []).append(i)
        return list(out.values())

    def firing_unit(self, t: Transition) -> Summary:
        """A selected reaction and everything it may lead to: its transition fired, and what the
        states it enters may do after (their completions' order follows the firing order, so what
        follows is part of what the firing order can decide); the queue's own order is left out."""
        return self._kept(self._units, t.index, lambda: self._firing_unit(t))

    def _firing_unit(self, t: Transition) -> Summary:
        lca = _lca(t.source, t.target, self.machine.shape.machine)
        after = frozenset(v.order for v in _entered(t, lca))
        return (self.transition(t) | self._reach_orders(after)).without(self._queue)

    def region_unit(self, region: Vertex) -> Summary:
        """A region entered with its siblings: its entries and initial transitions, and everything its
        states may do after (the queue's own order left out)."""
        return self._kept(self._regions, region.order, lambda: self._region_unit(region))

    def _kept(self, cache: dict[int, Summary], key: int, make: Callable[[], Summary]) -> Summary:
        """A footprint that depends on the graph alone, made once per machine shape (never once the
        machine has ended: an ended machine's footprints are not its shape's)."""
        if self.machine.finished:
            return make()
        done = cache.get(key)
        if done is None:
            done = cache[key] = make()
        return done

    def _region_unit(self, region: Vertex) -> Summary:
        inside = _subtree(region)
        entries = _union([self.graph.states[v.order].footprint for v in inside])
        return (entries | self._reach_orders(frozenset(v.order for v in inside))).without(self._queue)

    # ------------------------------------------------------------ a firing in progress

    def unit(self, actor: int, scopes: dict[int, Scope]) -> Summary:
        """A unit of a firing in progress (MoveKind.UNIT), `scopes` giving what each runnable chain works
        on and what the chains it is part of work on (MachineMoves.unit_scope). Its own chain's work and
        everything after it; the rest of a chain it is part of only where no other runnable chain is
        part of that one too (the rest runs at the end of the chain that ends last, after its siblings
        whatever their order); the firing's own rest (deferred events, messages, timers, the final
        state) as a read of `rest`, which a do step the firing started writes."""
        scope = scopes.get(actor)
        if not scope:
            return _UNKNOWN
        out = self._work(scope[0])
        others = [s for a, s in scopes.items() if a != actor]
        for depth in range(1, len(scope)):
            tail = scope[depth:]
            if any(len(s) > len(tail) and s[len(s) - len(tail):] == tail for s in others):
                break  # another chain is part of this one: its rest is not this unit's to run
            out = out | self._rest(scope[depth])
        return out

    def unit_future(self, actor: int, scopes: dict[int, Scope]) -> Summary:
        """Everything a chain may still do: its work, and the rest of every chain it is part of."""
        scope = scopes.get(actor)
        if not scope:
            return _UNKNOWN
        return _union([self._work(scope[0]), *(self._rest(x) for x in scope[1:])])

    def chain_work(self, chain: Chain) -> Summary:
        """A chain of a behavior's statements: what its statements touch, where each is known and
        touches no message and nothing dynamic; else all its behavior's owner may do (a send writes
        the pool, a terminate ends the other chains, a local usage performs an action)."""
        parts = []
        for m in chain.statements:
            stmt = unwrapped(m)
            part = self._parts.get(id(stmt))
            if part is None or part.dynamic or part.sends or part.accepts or _terminates(stmt):
                return self._work(chain.owner)
            parts.append(part)
        return _union(parts)

    def _work(self, what: Vertex | Transition | Chain | None) -> Summary:
        """A chain's own work: a transition fired (a reaction, a fork branch, a join segment), a region
        entered or a state left, with everything its states may do after (the queue's order left out,
        as for `groups`: the order of completions follows the order of what generates them)."""
        if what is None:
            return _UNKNOWN  # the firing's root: its units are not spelled here
        if isinstance(what, Chain):
            return self.chain_work(what)
        if isinstance(what, Transition):
            return self.firing_unit(what)
        # a region entered or left: the activity of all it holds besides what its states may do
        if self.machine.finished:
            return self.region_unit(what) | Footprint(writes=self._active(_subtree(what)))
        done = self._regions.get(-1 - what.order)
        if done is None:
            done = self._regions[-1 - what.order] = self.region_unit(what) | Footprint(
                writes=self._active(_subtree(what)))
        return done

    def _rest(self, what: Vertex | Transition | Chain | None) -> Summary:
        """What a chain does after the chains it started have all ended."""
        if what is None:
            return self.rest
        if isinstance(what, Chain):
            return Footprint()  # a statement's chain ends with the chains of its branch or after it
        if isinstance(what, Transition):
            return self.transition(what)  # timers armed, the final state checked, onward entries: all of it
        # a state left after its regions: its exit behavior, its activity, its timers, its history records
        # (a region entered has no rest: its chain ends with the Par of what it holds)
        writes = set(self._active([what]))
        if _timed(what):
            writes.add(self.key("timers"))
        writes.update(self.key(f"history:{c.order}") for c in what.children
                      if c.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY))
        return self.graph.states[what.order].footprint | Footprint(writes=frozenset(writes))

    def front_do_step(self, order: int, last: bool) -> Summary:
        """A do step a firing in progress started: drawn against the firing's units, whose footprints
        leave the completion queue out, so a last step holds what its state's completion leads to; and
        it may run before or after the firing's rest (`rest`)."""
        step = self._do_step(order, last) | Footprint(writes=self.rest.reads)
        if last:
            step = step | self._reach([self.machine.shape.vertices[order]]).without(self._queue)
        return step

    # ------------------------------------------------------------ the futures

    def future(self, actor: Actor) -> Summary:
        """Everything the actor may still do: a do behavior its steps (the last one's included), the
        dispatcher every transition of the machine, the environment its sends and time passing."""
        if actor.id == ENVIRONMENT:
            return self.send() | self.clock()
        if actor.id == DISPATCHER:
            return self.dispatcher()
        if actor.id >= UNITS:
            return _UNKNOWN
        vertices = self.machine.shape.vertices
        if actor.id >= REGIONS:  # the region's completions: what its active states may still fire
            inside = _subtree(vertices[actor.id - REGIONS])
            return self._reach([v for v in inside if v in self.machine.active])
        # a do behavior's steps, and what its state's completion may fire after the last
        order = actor.id - 1
        return self._do_step(order, last=True) | self._reach([vertices[order]])

    def dispatcher(self) -> Summary:
        """Every dispatch of a pool event, a timer or a change the machine may still make: the
        triggered transitions it can reach from the states active now, and everything reachable after
        them (the completions and do steps they lead to); a completion on the way is its region's move,
        in that actor's future, or in the future of the actor that leads there."""
        machine = self.machine
        if machine.finished:
            return self.status
        shape = machine.shape
        active = frozenset(v.order for v in machine.active)
        done = self._triggered.get(active)
        if done is None:
            triggered = [t for t in _reachable(shape.vertices, active) if not t.completion]
            after = frozenset(v.order for t in triggered
                              for v in _entered(t, _lca(t.source, t.target, shape.machine)))
            keys = frozenset({self.key("pool"), self.key("deferred"), self.key("timers"),
                              *(self.key(f"do:{order}") for order in self.accepting)})
            # an event's selection reads the whole configuration
            done = self._triggered[active] = _union([
                self.every, *(self.transition(t) for t in triggered), self._reach_orders(after),
                Footprint(reads=keys | self._active(shape.vertices) | {CLOCK}, writes=keys)])
        return done

    def _reach(self, start: list[Vertex]) -> Summary:
        """What every transition reachable from `start` may touch, and the completions and activity
        reading and writing that firing them is (computed once per start)."""
        return self._reach_orders(frozenset(v.order for v in start))

    def _reach_orders(self, orders: frozenset[int]) -> Summary:
        if self.machine.finished:
            return self.status
        done = self._dispatcher.get(orders)
        if done is None:
            shape = self.machine.shape
            keys = frozenset({self.key("completions"), *(self.key(f"complete:{v.order}") for v in shape.vertices)})
            fired = [self.transition(t) for t in _reachable(shape.vertices, orders)]
            done = self._dispatcher[orders] = _union([self.every, *fired, Footprint(reads=keys, writes=keys)])
        return done


class _Memo:
    """The footprints `MachineFootprints` computes once per machine graph (and way of taking messages)."""

    def __init__(self, graph: StateGraph) -> None:
        self.graph = graph
        self.transitions: dict[int, Summary] = {}
        self.regions: dict[int, Summary] = {}  # a region's unit by its order; its work by -1 - its order
        self.units: dict[int, Summary] = {}  # a transition's firing unit by its number
        self.dos: dict[int, Summary] = {}
        self.dispatcher: dict[frozenset[int], Summary] = {}
        self.triggered: dict[frozenset[int], Summary] = {}


def _timed(v: Vertex) -> bool:
    """Whether a transition out of `v` waits for time (`accept after`, `accept at`)."""
    return any(t.trigger is not None and t.trigger.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT)
               for t in v.outgoing)


def pending_by_region(completions: list[Vertex]) -> dict[int, tuple[int, ...]]:
    """The completed states waiting for their completion events, by the region each is drawn in, each
    region's in queue order."""
    out: dict[int, list[int]] = {}
    for v in completions:
        out.setdefault(_region(v), []).append(v.order)
    return {k: tuple(v) for k, v in out.items()}


def _region(v: Vertex) -> int:
    """The order of the vertex a completion of `v` is drawn in (its parent: a region, a composite)."""
    return v.parent.order if v.parent is not None else 0


def _reachable(vertices: list[Vertex], active: frozenset[int]) -> list[Transition]:
    """The transitions a machine whose active states are `active` may still fire: out of those
    states, and out of every state those transitions may enter (what the entered state holds, other
    regions of a parallel state entered with it, what encloses it), until nothing new is reached."""
    seen: set[int] = set()
    todo = [vertices[i] for i in sorted(active)]
    out: dict[int, Transition] = {}
    while todo:
        v = todo.pop()
        if v.order in seen:
            continue
        seen.add(v.order)
        for t in v.outgoing:
            if t.index in out:
                continue
            out[t.index] = t
            todo.extend(_entered(t, _lca(t.source, t.target, vertices[0])))
            todo.extend(t.target.ancestors())
    return [out[i] for i in sorted(out)]


def _union(parts: list[Summary]) -> Summary:
    out: Summary = Footprint()
    for part in parts:
        out = out | part
    return out


def _lca(a: Vertex, b: Vertex, machine: Vertex) -> Vertex:
    """The innermost state containing both and neither of them (as the configuration computes it)."""
    ancestors = a.ancestors()
    return next((v for v in b.ancestors() if v in ancestors), machine)


def _toward(lca: Vertex, v: Vertex) -> Vertex:
    """The child of `lca` holding `v` (or `v` itself)."""
    while v.parent is not None and v.parent is not lca:
        v = v.parent
    return v


def _entered(t: Transition, lca: Vertex) -> list[Vertex]:
    """Every state firing `t` may enter: what the child of `lca` toward the target holds (a history
    restores anything its owner holds)."""
    target = t.target
    if target.kind in (VertexKind.HISTORY, VertexKind.DEEP_HISTORY) and target.parent is not None:
        return _subtree(target.parent)
    return _subtree(_toward(lca, target))


def _subtree(v: Vertex) -> list[Vertex]:
    out = [v]
    todo = list(v.children)
    while todo:
        c = todo.pop()
        out.append(c)
        todo.extend(c.children)
    return out


def _terminates(stmt: object) -> bool:
    """Whether a statement may end its behavior (`terminate;`, also inside an `if`'s branch)."""
    if isinstance(stmt, s.Terminate):
        return True
    if isinstance(stmt, s.If):
        return any(block is not None and any(_terminates(unwrapped(m)) for m in block.members)
                   for block in (stmt.then, stmt.otherwise))
    return False
