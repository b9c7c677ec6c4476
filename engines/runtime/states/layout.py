"""A machine's shape as the runtime walks it: the lowered StateGraph (ir/graphs.py) as a tree of
vertices (a parallel state's regions are its children), each with the transitions out of it."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TypeVar, cast

from ir import syntax as s
from ir.graphs import Behavior as GraphBehavior
from ir.graphs import StateGraph, StateKind
from ir.lower.states import lower_state
from ir.model import Element, Model


class VertexKind(Enum):
    STATE = "state"
    FINAL = "final"  # `done`: the region's end
    CHOICE = "choice"
    JUNCTION = "junction"
    HISTORY = "history"
    DEEP_HISTORY = "deep history"
    FORK = "fork"
    JOIN = "join"
    TERMINATE = "terminate"


PSEUDO = {VertexKind.CHOICE, VertexKind.JUNCTION, VertexKind.HISTORY, VertexKind.DEEP_HISTORY,
          VertexKind.FORK, VertexKind.JOIN, VertexKind.TERMINATE}


@dataclass(eq=False)
class Behavior:
    """An entry, do or exit behavior: statements run in the machine's frame, or an action performed."""

    kind: str  # entry, do, exit
    statements: tuple[s.Member, ...]
    action: s.Usage | None = None  # `entry action a { ... }` / `do action a : T;`
    wrapped: bool = True  # written as a body: its statements run as one anonymous action
    usage: s.Usage | None = None  # the action usage it is written as, whose assertions its end judges


@dataclass(eq=False)
class Transition:
    source: Vertex
    target: Vertex
    trigger: s.Trigger | None
    guard: s.Expr | None
    effect: tuple[s.Member, ...]
    index: int  # declaration order over the machine
    name: str | None = None
    effect_body: bool = False  # written `do { ... }`: its statements run as one anonymous action
    derived: dict[str, object] = field(default_factory=dict, init=False, repr=False)  # by the runtime's modules

    @property
    def completion(self) -> bool:
        return self.trigger is None

    def label(self) -> str:
        return f"{self.source.name}->{self.target.name}"


_T = TypeVar("_T")
_ABSENT = object()


def derive(holder: Transition | Vertex, key: str, make: Callable[[], _T]) -> _T:
    """What a module of the runtime derives of a transition or a vertex from the tree alone, made once
    (a shape is never changed after it is built) and kept in its `derived`."""
    found = holder.derived.get(key, _ABSENT)
    if found is _ABSENT:
        found = holder.derived[key] = make()
    return cast(_T, found)


@dataclass(eq=False)
class Vertex:
    """A state (simple, composite or parallel), a final state or a pseudostate."""

    name: str
    kind: VertexKind
    parent: Vertex | None
    order: int = 0  # pre-order position in the machine: region declaration order
    parallel: bool = False
    children: list[Vertex] = field(default_factory=list)  # substates, or regions of a parallel state
    initial: Vertex | None = None  # `entry; then X;`
    initial_effect: tuple[s.Member, ...] = ()
    entry: list[Behavior] = field(default_factory=list)
    exit: list[Behavior] = field(default_factory=list)
    do: list[Behavior] = field(default_factory=list)
    outgoing: list[Transition] = field(default_factory=list)
    defers: tuple[str, ...] = ()
    element: Element | None = None
    # `isRunToCompletion = false` or `runToCompletionScope = self`: its entry cascade (what entering it
    # enters below it) is held, and a dispatch may come between its own entry and that cascade
    held: bool = False
    # what the runtime derives from the tree alone, once it is built (a shape is never changed after)
    _lineage: tuple[Vertex, ...] | None = field(default=None, init=False, repr=False)
    _paths: dict[Vertex, tuple[Vertex, ...]] = field(default_factory=dict, init=False, repr=False)
    _scopes: dict[Vertex, Vertex | None] = field(default_factory=dict, init=False, repr=False)
    derived: dict[str, object] = field(default_factory=dict, init=False, repr=False)  # by the runtime's modules

    @property
    def has_completion(self) -> bool:
        """Whether a transition out of it has no trigger (its completion event may fire it)."""
        return derive(self, "has completion", lambda: any(t.trigger is None for t in self.outgoing))

    @property
    def is_state(self) -> bool:
        return self.kind in (VertexKind.STATE, VertexKind.FINAL)

    @property
    def depth(self) -> int:
        return len(self.ancestors())

    def ancestors(self) -> tuple[Vertex, ...]:
        """Parent first, up to the machine."""
        lineage = self._lineage
        if lineage is None:
            out, v = [], self.parent
            while v is not None:
                out.append(v)
                v = v.parent
            lineage = self._lineage = tuple(out)
        return lineage

    def path_from(self, top: Vertex) -> tuple[Vertex, ...]:
        """The vertices strictly below `top` down to this one, outermost first, this one last (whether
        or not it is below `top`)."""
        path = self._paths.get(top)
        if path is None:
            path = self._paths[top] = tuple(
                [v for v in reversed(self.ancestors()) if v is not top and top in v.ancestors()] + [self])
        return path

    def scope_with(self, other: Vertex) -> Vertex | None:
        """The innermost vertex containing both this one and `other`, and neither of them (None: none
        does)."""
        if other in self._scopes:
            return self._scopes[other]
        ancestors = self.ancestors()
        found = next((v for v in other.ancestors() if v in ancestors), None)
        self._scopes[other] = found
        return found

    def is_within(self, other: Vertex) -> bool:
        return self is other or other in self.ancestors()

    @property
    def rests(self) -> bool:
        """Whether entering it enters nothing below it and holds nothing (`Configuration._enter_default`
        only completes it): a state neither final, held nor parallel, with no substate and no initial."""
        return derive(self, "rests", lambda: self.kind is not VertexKind.FINAL and not self.held
                      and not self.parallel and not self.substates() and self.initial is None)

    def substates(self) -> tuple[Vertex, ...]:
        return derive(self, "substates", lambda: tuple(c for c in self.children if c.is_state))

    @property
    def composite(self) -> bool:
        return bool(self.substates())

    def __repr__(self) -> str:
        return f"<{self.kind.value} {self.name}>"


@dataclass(eq=False)
class Shape:
    machine: Vertex
    vertices: list[Vertex]
    transitions: list[Transition]
    # what every performance of the machine derives from its shape alone (footprints.py), computed once
    memo: dict[object, object] = field(default_factory=dict, repr=False)

    @property
    def has_final(self) -> bool:
        """Whether any region has a final state (`done`)."""
        found = self.memo.get("has final")
        if found is None:
            found = self.memo["has final"] = any(v.kind is VertexKind.FINAL for v in self.vertices)
        return bool(found)

    def signals(self) -> set[str]:
        """Every signal or call name some transition's trigger names."""
        out: set[str] = set()
        for t in self.transitions:
            if t.trigger is not None and t.trigger.signal:
                out.add(t.trigger.signal.rsplit("::", 1)[-1])
        return out


_KINDS = {StateKind.SIMPLE: VertexKind.STATE, StateKind.COMPOSITE: VertexKind.STATE,
          StateKind.PARALLEL: VertexKind.STATE, StateKind.FINAL: VertexKind.FINAL,
          StateKind.SHALLOW_HISTORY: VertexKind.HISTORY, StateKind.DEEP_HISTORY: VertexKind.DEEP_HISTORY,
          StateKind.JUNCTION: VertexKind.JUNCTION, StateKind.CHOICE: VertexKind.CHOICE,
          StateKind.FORK: VertexKind.FORK, StateKind.JOIN: VertexKind.JOIN, StateKind.TERMINATE: VertexKind.TERMINATE}


def _runs(behavior: GraphBehavior | None, kind: str) -> list[Behavior]:
    if behavior is None:
        return []
    decl = behavior.graph.nodes[0].decl if behavior.graph.nodes else None
    usage = decl if isinstance(decl, s.Usage) and decl.kind == "action" else None
    return [Behavior(kind, behavior.statements, behavior.action, behavior.wrapped, usage)]


_GRAPHS: weakref.WeakKeyDictionary[Model, dict[str, StateGraph]] = weakref.WeakKeyDictionary()


def state_graph(model: Model, machine: Element) -> StateGraph:
    """The machine's lowered StateGraph, lowered once per model (a model and its graphs are immutable;
    a check starts the machine afresh for every witness it replays)."""
    graphs = _GRAPHS.setdefault(model, {})
    graph = graphs.get(machine.qualified_name)
    if graph is None:
        graph = graphs[machine.qualified_name] = lower_state(model, machine)
    return graph


_SHAPES: weakref.WeakKeyDictionary[Model, dict[str, Shape]] = weakref.WeakKeyDictionary()


def shape_of(model: Model, machine: Element) -> Shape:
    """The machine's lowered StateGraph (ir/lower/states.py) as the tree the runtime walks, built once
    per model: a run never changes its vertices or transitions (what it holds of them is its own), so
    every start of the machine (a check's witness replays among them) shares one."""
    shapes = _SHAPES.setdefault(model, {})
    shape = shapes.get(machine.qualified_name)
    if shape is None:
        shape = shapes[machine.qualified_name] = shape_from_graph(state_graph(model, machine))
    return shape


def shape_from_graph(graph: StateGraph) -> Shape:
    vertices = [Vertex(st.name, _KINDS[st.kind], None, order=st.index, parallel=st.kind is StateKind.PARALLEL,
                       element=st.element) for st in graph.states]
    for st, v in zip(graph.states, vertices, strict=True):
        v.parent = vertices[st.parent] if st.parent is not None else None
        v.children = [vertices[i] for r in st.regions for i in graph.regions[r].states]
        if st.kind is not StateKind.PARALLEL and st.regions:
            first = graph.regions[st.regions[0]].initial
            v.initial = vertices[first] if first is not None else None
        v.entry, v.do, v.exit = _runs(st.entry, "entry"), _runs(st.do, "do"), _runs(st.exit, "exit")
        v.defers = st.defers
        v.held = not st.run_to_completion or st.completion_scope
    transitions = []
    for t in graph.transitions:
        effect = t.effect
        trigger = None if t.is_completion else t.trigger.written
        transitions.append(Transition(vertices[t.source], vertices[t.target], trigger, t.guard,
                                      effect.statements if effect is not None else (), t.index, t.name,
                                      effect.wrapped if effect is not None else False))
    for x in transitions:
        x.source.outgoing.append(x)
    return Shape(vertices[0], vertices, transitions)
