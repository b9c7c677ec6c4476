"""The frozen lowered types every run shares: an ActionGraph of nodes, successions and bodies, and
per node the Footprint of one move; a StateGraph of states, regions and transitions whose behaviors
are ActionGraphs. Built once by `ir.lower`, never changed after."""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Generic, TypeVar

from ir import syntax as s
from ir.connections import Connection
from ir.model import Element


class NodeKind(Enum):
    START = "start"
    DONE = "done"
    FORK = "fork"
    JOIN = "join"
    MERGE = "merge"
    DECIDE = "decide"
    ACTION = "action"
    STATEMENT = "statement"


@dataclass(frozen=True)
class Attribute:
    """A feature a performance holds: its name, declared type, value and how it is bound."""

    name: str
    type_text: str
    value: s.Expr | None
    value_kind: s.FeatureValueKind | None
    direction: str | None
    decl: s.Member | None = field(default=None, compare=False, repr=False)
    is_item: bool = False


# How a footprint names the control nodes a move reaches: a node index within one graph as lowered,
# or (graph, index) once footprints of several graphs are summed (Footprint.placed).
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Footprint(Generic[K]):
    """What a move touches: the features it reads and writes, whether it sends or accepts, the merges
    (and nodes many successions reach) it arrives at and the joins it fires (`control`), its arrivals
    at joins, each with the succession's source (`arrivals`), and whether a target is dynamic (the
    move then depends on every other).

    Arrivals at one join from different sources commute (each only adds a token there). A join's firing
    takes one token over each succession, the rest waiting for the next, so it commutes with an
    arrival too, as do two arrivals from one source; both are kept dependent all the same (the
    clauses predate that rule, and relaxing them waits for a test that tells them apart).

    `a | b` is what two moves touch together: a body's footprint is the union of its statements', a
    token's future the union of its nodes'. The union is associative and commutative, and the empty
    footprint `Footprint()` is its identity."""

    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    sends: bool = False
    accepts: bool = False
    control: frozenset[K] = frozenset()
    dynamic: bool = False
    arrivals: frozenset[tuple[K, K]] = frozenset()  # (join, source of the succession that arrives)

    def __or__(self, other: Footprint[K]) -> Footprint[K]:
        return Footprint(self.reads | other.reads, self.writes | other.writes, self.sends or other.sends,
                         self.accepts or other.accepts, self.control | other.control,
                         self.dynamic or other.dynamic, self.arrivals | other.arrivals)

    def without(self, names: AbstractSet[str]) -> Footprint[K]:
        """The footprint with the features `names` neither read nor written (a performance's own)."""
        return replace(self, reads=self.reads - names, writes=self.writes - names)

    def placed(self: Footprint[int], graph: int) -> Footprint[tuple[int, int]]:
        """The footprint with its control nodes named by the graph they are in, so footprints of two
        graphs summed never mistake one graph's join for another's."""
        return Footprint(self.reads, self.writes, self.sends, self.accepts,
                         frozenset((graph, c) for c in self.control), self.dynamic,
                         frozenset(((graph, j), (graph, at)) for j, at in self.arrivals))


@dataclass(frozen=True)
class Body:
    """What an action node runs when its token reaches it."""

    attributes: tuple[Attribute, ...] = ()
    statements: tuple[s.Member, ...] = ()
    flow: ActionGraph | None = None
    performs: Element | None = None  # a typed usage or `perform` runs this action in an executor of its own
    bindings: tuple[tuple[str, s.Expr], ...] = ()  # `in x = 3;` on a typed usage
    terminate: bool = False  # a terminate action usage ends the action it is a step of
    scope: Element | None = None
    # `inout acc = total;` / `out r = last;` on a typed usage: the parameter and the feature it is
    # bound to, written with the parameter's value when the performance ends
    outputs: tuple[tuple[str, s.Expr], ...] = ()

    def splits(self) -> bool:
        """Whether a fine run performs this body as several moves: a start shot of its features
        before its statements, or statements no succession orders; one statement alone is one move."""
        if self.performs is not None and not self.statements:
            return True
        if self.terminate:
            return True
        count = len(self.statements)
        if count == 1 and not self.attributes:
            return not isinstance(self.statements[0], (s.Assign, s.Send))
        return count >= 1

    def starts_with_a_shot(self) -> bool:
        """Whether a fine run's first move of this body is its start shot alone: its features' values
        set, its statements entered as moves of their own."""
        return (self.splits() and self.performs is None and self.flow is None and not self.terminate
                and bool(self.statements))


@dataclass(frozen=True)
class Node:
    index: int
    kind: NodeKind
    name: str
    decl: s.Member | None = field(compare=False, repr=False)
    body: Body | None = field(default=None, compare=False, repr=False)
    multiplicity: int = 1
    footprint: Footprint[int] = field(default=Footprint(), compare=False, repr=False)
    # a fine run's start shot of the body (Body.starts_with_a_shot): its features' initial values only
    start_footprint: Footprint[int] | None = field(default=None, compare=False, repr=False)

    def starts_with_a_shot(self) -> bool:
        """Whether a fine run's first move at this node is its body's start shot alone (as the
        executor performs it): an accept node takes its message and a calc usage evaluates in one
        move whatever their body holds, so their footprint, not a shot's, is what that move touches."""
        if self.kind is not NodeKind.ACTION or self.body is None or accept_of(self) is not None:
            return False
        if isinstance(self.decl, s.Usage) and self.decl.kind == "calc":
            return False
        return self.body.starts_with_a_shot()


@dataclass(frozen=True)
class Edge:
    source: int
    target: int
    guard: s.Expr | None = None
    is_else: bool = False
    decl: s.Member | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class ActionGraph:
    """An action's flow: nodes in declaration order, successions, the nodes its tokens start at."""

    name: str
    scope: Element | None
    attributes: tuple[Attribute, ...]
    nodes: tuple[Node, ...]
    edges: tuple[Edge, ...]
    initial: tuple[int, ...]
    flows: tuple[s.FlowMember, ...] = ()
    binds: tuple[s.BindMember, ...] = ()
    connections: tuple[Connection, ...] = ()

    def __post_init__(self) -> None:
        outgoing: dict[int, list[Edge]] = {}
        incoming: dict[int, list[Edge]] = {}
        for e in self.edges:
            outgoing.setdefault(e.source, []).append(e)
            incoming.setdefault(e.target, []).append(e)
        # Derived once: the executor asks for a node's successions at every move.
        object.__setattr__(self, "_outgoing", {k: tuple(v) for k, v in outgoing.items()})
        object.__setattr__(self, "_incoming", {k: tuple(v) for k, v in incoming.items()})
        object.__setattr__(self, "converging", frozenset(k for k, v in incoming.items() if len(v) > 1))
        object.__setattr__(self, "_reach", {})
        accepts = tuple(accept_of(n) for n in self.nodes)
        object.__setattr__(self, "accepts", accepts)
        # the nodes a token may stand at unable to move: joins, nodes many successions reach, accepts
        object.__setattr__(self, "waiting", frozenset(
            n.index for n in self.nodes
            if n.kind is NodeKind.JOIN or accepts[n.index] is not None
            or (len(incoming.get(n.index, ())) > 1 and n.kind not in (NodeKind.MERGE, NodeKind.DONE))))

    converging: frozenset[int] = field(default=frozenset(), init=False, compare=False, repr=False)
    accepts: tuple[s.Accept | None, ...] = field(default=(), init=False, compare=False, repr=False)
    waiting: frozenset[int] = field(default=frozenset(), init=False, compare=False, repr=False)

    def reaches(self, start: int, goal: int, avoiding: int) -> bool:
        """Whether a token at `start` can still come to `goal` along successions without passing
        through `avoiding` (a node awaits a succession only while its source can still be reached)."""
        cache: dict[tuple[int, int], frozenset[int]] = self._reach  # type: ignore[attr-defined]
        reached = cache.get((start, avoiding))
        if reached is None:
            seen = {start}
            todo = [start]
            while todo:
                for e in self.outgoing(todo.pop()):
                    if e.target != avoiding and e.target not in seen:
                        seen.add(e.target)
                        todo.append(e.target)
            reached = cache[(start, avoiding)] = frozenset(seen)
        return goal in reached

    def outgoing(self, index: int) -> tuple[Edge, ...]:
        return self._outgoing.get(index, ())  # type: ignore[attr-defined]

    def incoming(self, index: int) -> tuple[Edge, ...]:
        return self._incoming.get(index, ())  # type: ignore[attr-defined]

    def node_named(self, name: str) -> Node | None:
        for node in self.nodes:
            if node.name == name:
                return node
        return None


def accept_of(node: Node) -> s.Accept | None:
    """The accept a node waits on: an accept statement, or an action usage that is one accept."""
    if node.kind is NodeKind.STATEMENT and isinstance(node.decl, s.Accept):
        return node.decl
    if node.kind is NodeKind.ACTION and isinstance(node.decl, s.Usage) \
            and isinstance(node.decl.action_body, s.Accept) and not node.decl.members:
        return node.decl.action_body
    return None


# ---------------------------------------------------------------- state machines
#
# The lowered state machine: states in regions, transitions, and the actions they perform.
#
# A StateGraph is built once per machine (`ir.lower.states`) and shared by every run. State 0 is the
# machine itself. Every composite state owns regions: a plain composite one region holding its
# substates, a parallel state one region per substate (each region holding that one state, always
# entered), so an active state has exactly one active state in each region it owns. Pseudostates
# (junction, choice, fork, join, history, terminate) and final states stand in regions like states.
# Entry, do and exit behaviors, transition effects and the machine's bindings are ActionGraphs the
# action lowering built, so a machine performs them with the action runtime.


class StateKind(Enum):
    SIMPLE = "simple"
    COMPOSITE = "composite"
    PARALLEL = "parallel"
    FINAL = "final"  # `then done;` with no state `done` declared: the region completes there
    SHALLOW_HISTORY = "history"
    DEEP_HISTORY = "deep history"
    JUNCTION = "junction"
    CHOICE = "choice"
    FORK = "fork"
    JOIN = "join"
    TERMINATE = "terminate"  # `action stop terminate;`: entering it ends the machine

    @property
    def is_pseudostate(self) -> bool:
        """A vertex a transition passes through without the machine resting there."""
        return self in (StateKind.SHALLOW_HISTORY, StateKind.DEEP_HISTORY, StateKind.JUNCTION,
                        StateKind.CHOICE, StateKind.FORK, StateKind.JOIN, StateKind.TERMINATE)


class TriggerKind(Enum):
    SIGNAL = "signal"  # accept Ping / accept p : Ping / when Ping
    CALL = "call"  # accept wake()
    AFTER = "after"  # accept after 5 [s]: relative to entering the source
    AT = "at"  # accept at t: an absolute instant
    WHEN = "when"  # accept when temp > 20: the condition rising
    COMPLETION = "completion"  # no trigger: the source's completion event


class BehaviorKind(Enum):
    ENTRY = "entry"
    DO = "do"
    EXIT = "exit"
    EFFECT = "effect"


@dataclass(frozen=True)
class Behavior:
    """An entry, do or exit behavior of a state, or a transition's effect: the action it performs,
    lowered as an action graph whose one node is that action (its statements, its flow, or the
    typed action it performs with its `in`/`inout` bindings)."""

    kind: BehaviorKind
    name: str  # the action's name, or the kind for an anonymous one
    graph: ActionGraph
    typed: str | None = None  # `do action job : Work`: the action definition it performs, as written
    # as the machine runtime runs it (ir.lower.states._as_written): the statements, the action usage
    # performed as a flow of its own, and whether the statements run as one anonymous action
    statements: tuple[s.Member, ...] = field(default=(), compare=False, repr=False)
    action: s.Usage | None = field(default=None, compare=False, repr=False)
    wrapped: bool = False
    # each statement's own footprint (those of an `if`'s branches too), by the statement's id: what a
    # check that performs them in any order (engines/runtime/states/bodies.py) reads of one of them
    parts: tuple[tuple[int, Footprint], ...] = field(default=(), compare=False, repr=False)

    @property
    def footprint(self) -> Footprint:
        return union(n.footprint for n in self.graph.nodes)


@dataclass(frozen=True)
class Trigger:
    """What a transition waits for. `signal` is the signal's type name (or the call's operation);
    `payload` the name the accepted occurrence is bound to; `expression` the time of an after or
    at trigger and the condition of a when trigger; `via` the port it must arrive at."""

    kind: TriggerKind
    signal: str | None = None
    payload: str | None = None
    expression: s.Expr | None = None
    via: str | None = None
    signal_type: Element | None = field(default=None, compare=False, repr=False)  # None: declared nowhere
    written: s.Trigger | None = field(default=None, compare=False, repr=False)  # the syntax it was read from

    def label(self) -> str:
        if self.kind is TriggerKind.COMPLETION:
            return ""
        if self.kind is TriggerKind.CALL:
            return f"{self.signal}()"
        if self.kind in (TriggerKind.SIGNAL,):
            return f"{self.payload} : {self.signal}" if self.payload else str(self.signal)
        return self.kind.value


COMPLETION = Trigger(TriggerKind.COMPLETION)


@dataclass(frozen=True)
class State:
    """One vertex of the machine. `parent` is the state owning the region it stands in (None for
    the machine itself), `regions` the regions it owns (none for a simple state or pseudostate)."""

    index: int
    name: str
    path: str  # dotted from the machine: `work.left.l1`; "" for the machine itself
    kind: StateKind
    parent: int | None
    region: int | None
    regions: tuple[int, ...] = ()
    entry: Behavior | None = None
    do: Behavior | None = None
    exit: Behavior | None = None
    attributes: tuple[Attribute, ...] = ()
    defers: tuple[str, ...] = ()  # signal names it defers while active
    run_to_completion: bool = True  # `attribute :>> isRunToCompletion = false;` sets it off
    completion_scope: bool = False  # `ref :>> runToCompletionScope = self;`: its entries run to completion as one
    decl: s.Member | None = field(default=None, compare=False, repr=False)
    element: Element | None = field(default=None, compare=False, repr=False)  # where its names resolve
    footprint: Footprint = field(default=Footprint(), compare=False, repr=False)  # entry | do | exit


@dataclass(frozen=True)
class Region:
    """The states of one region, in declaration order, and where its initial transition leads
    (None: the region is entered only by transitions that name one of its states)."""

    index: int
    name: str  # the owner's path, and for a parallel state's region the substate's name after it
    owner: int
    states: tuple[int, ...]
    initial: int | None
    initial_decl: s.Member | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class Transition:
    """`transition [name] first S accept E if G do X then T;` and its short forms: a succession
    between states is a completion transition; `accept ... then T;` in a state's body leaves that
    state. `owner` is the state in whose body it is written (the scope its names resolve in)."""

    index: int
    name: str | None
    source: int
    target: int
    trigger: Trigger
    guard: s.Expr | None
    effect: Behavior | None
    owner: int
    decl: s.Member | None = field(default=None, compare=False, repr=False)
    footprint: Footprint = field(default=Footprint(), compare=False, repr=False)

    @property
    def is_completion(self) -> bool:
        return self.trigger.kind is TriggerKind.COMPLETION


@dataclass(frozen=True)
class StateGraph:
    """A machine: its states (0 the machine), regions and transitions in declaration order, the
    features it declares, its `in` bindings (an exhibited typed machine's `in ref :>> context =
    this;`), and the ports it connects."""

    name: str
    scope: Element | None
    states: tuple[State, ...]
    regions: tuple[Region, ...]
    transitions: tuple[Transition, ...]
    bindings: tuple[tuple[str, s.Expr], ...] = ()
    connects: tuple[s.ConnectMember, ...] = ()
    binds: tuple[s.BindMember, ...] = ()
    exhibited_by: Element | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        outgoing: dict[int, list[Transition]] = {}
        incoming: dict[int, list[Transition]] = {}
        for t in self.transitions:
            outgoing.setdefault(t.source, []).append(t)
            incoming.setdefault(t.target, []).append(t)
        object.__setattr__(self, "_outgoing", {k: tuple(v) for k, v in outgoing.items()})
        object.__setattr__(self, "_incoming", {k: tuple(v) for k, v in incoming.items()})
        object.__setattr__(self, "_by_path", {st.path: st.index for st in self.states})

    @property
    def root(self) -> State:
        return self.states[0]

    @property
    def attributes(self) -> tuple[Attribute, ...]:
        return self.states[0].attributes

    def outgoing(self, state: int) -> tuple[Transition, ...]:
        """Transitions leaving `state`, in declaration order."""
        return self._outgoing.get(state, ())  # type: ignore[attr-defined]

    def incoming(self, state: int) -> tuple[Transition, ...]:
        return self._incoming.get(state, ())  # type: ignore[attr-defined]

    def state(self, path: str) -> State | None:
        """A state by its dotted path from the machine (`work.left.l1`)."""
        index = self._by_path.get(path)  # type: ignore[attr-defined]
        return self.states[index] if index is not None else None

    def ancestors(self, state: int) -> tuple[int, ...]:
        """The states enclosing `state`, nearest first, the machine last."""
        out = []
        at = self.states[state].parent
        while at is not None:
            out.append(at)
            at = self.states[at].parent
        return tuple(out)

    def common_ancestor(self, a: int, b: int) -> int:
        """The innermost state enclosing both (neither itself): what a transition from a to b leaves
        active, the states below it on a's side exited and on b's side entered."""
        mine = set(self.ancestors(a))
        return next(x for x in self.ancestors(b) if x in mine) if b != 0 else 0

    def descendants(self, state: int) -> tuple[int, ...]:
        """Every state nested in `state` (itself excluded), depth first in declaration order."""
        out: list[int] = []
        todo = [state]
        while todo:
            at = todo.pop()
            children = [i for r in self.states[at].regions for i in self.regions[r].states]
            out.extend(children)
            todo.extend(reversed(children))
        return tuple(sorted(out, key=lambda i: i))

    def signals(self) -> tuple[str, ...]:
        """The machine's alphabet: every signal and call a transition accepts or a state defers,
        sorted."""
        names = {t.trigger.signal for t in self.transitions
                 if t.trigger.kind in (TriggerKind.SIGNAL, TriggerKind.CALL) and t.trigger.signal}
        names.update(d for st in self.states for d in st.defers)
        return tuple(sorted(n for n in names if n is not None))


def union(footprints: Iterable[Footprint[K]]) -> Footprint[K]:
    """The footprint of several moves taken as one: their `|` (the empty footprint for none)."""
    out: Footprint[K] = Footprint()
    for f in footprints:
        out = out | f
    return out
