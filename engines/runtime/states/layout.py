"""A machine's shape as the runtime walks it: states and pseudostates in a tree, regions, and the
transitions out of each vertex, built once from the syntax tree (names resolved, nearest first)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from engines.errors import RunError
from ir import syntax as s
from ir.inherit import effective_members
from ir.lower import is_feature, states_a_flow
from ir.model import Element, Model
from ir.resolve import lookup


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


class MachineShapeError(RunError):
    """A machine the runtime cannot start: no initial state, a transition naming no state, ..."""


@dataclass(eq=False)
class Behavior:
    """An entry, do or exit behavior: statements run in the machine's frame, or an action performed."""

    kind: str  # entry, do, exit
    statements: tuple[s.Member, ...]
    action: s.Usage | None = None  # `entry action a { ... }` / `do action a : T;`
    wrapped: bool = True  # written as a body: its statements run as one anonymous action


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

    @property
    def completion(self) -> bool:
        return self.trigger is None

    def label(self) -> str:
        return f"{self.source.name}->{self.target.name}"


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

    @property
    def is_state(self) -> bool:
        return self.kind in (VertexKind.STATE, VertexKind.FINAL)

    @property
    def depth(self) -> int:
        d, v = 0, self.parent
        while v is not None:
            d, v = d + 1, v.parent
        return d

    def ancestors(self) -> list[Vertex]:
        """Parent first, up to the machine."""
        out, v = [], self.parent
        while v is not None:
            out.append(v)
            v = v.parent
        return out

    def is_within(self, other: Vertex) -> bool:
        return self is other or other in self.ancestors()

    def substates(self) -> list[Vertex]:
        return [c for c in self.children if c.is_state]

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

    def signals(self) -> set[str]:
        """Every signal or call name some transition's trigger names."""
        out: set[str] = set()
        for t in self.transitions:
            if t.trigger is not None and t.trigger.signal:
                out.add(t.trigger.signal.rsplit("::", 1)[-1])
        return out


def _body(model: Model, el: Element | None, decl: s.Member) -> tuple[s.Member, ...]:
    """A state's members: its own, or (a typed state with no body of its own) its definition's."""
    members: tuple[s.Member, ...] = getattr(decl, "members", ()) or ()
    if el is not None:
        own = [m for m in members if isinstance(m, s.Usage) and m.kind == "state"]
        if not own and isinstance(decl, s.Usage) and decl.types:
            definition = lookup(model, el.owner, decl.types[0])
            if definition is not None:
                members = effective_members(model, definition) + members
    return members


class _Builder:
    def __init__(self, model: Model, root: Element) -> None:
        self.model = model
        self.vertices: list[Vertex] = []
        self.pending: list[tuple[Vertex, s.Member, tuple[s.Member, ...]]] = []
        self.transitions: list[Transition] = []
        self.root_element = root

    def build(self) -> Shape:
        decl = self.root_element.decl
        parallel = bool(getattr(decl, "parallel", False))
        machine = Vertex(self.root_element.name, VertexKind.STATE, None, parallel=parallel,
                         element=self.root_element)
        self.vertices.append(machine)
        assert decl is not None
        self._fill(machine, effective_members(self.model, self.root_element), self.root_element)
        for owner, member, members in self.pending:
            self._transition(owner, member, members)
        self.transitions.sort(key=lambda t: t.index)
        for t in self.transitions:
            t.source.outgoing.append(t)
        return Shape(machine, self.vertices, self.transitions)

    def _vertex(self, name: str, kind: VertexKind, parent: Vertex, el: Element | None = None) -> Vertex:
        v = Vertex(name, kind, parent, order=len(self.vertices), element=el)
        self.vertices.append(v)
        parent.children.append(v)
        return v

    def _fill(self, state: Vertex, members: tuple[s.Member, ...], el: Element | None) -> None:
        previous: Vertex | None = None
        initial_marker = False
        defers: list[str] = []
        entry_then = False  # `entry action { ... } then S;`: the entry behavior, then the initial transition
        for m in members:
            if isinstance(m, s.ThenMember) and m.target is not None and entry_then and state.initial is None:
                self.pending.append((state, s.Transition(m.span, None, "$initial", None, None, None, m.target), ()))
                entry_then = False
                continue
            entry_then = False
            if isinstance(m, s.Usage) and m.kind == "state" and m.name:
                child_el = el.members.get(m.name) if el is not None else None
                child = self._vertex(m.name, VertexKind.STATE, state, child_el)
                child.parallel = m.parallel
                self._fill(child, _body(self.model, child_el, m), child_el)
                if initial_marker and state.initial is None:
                    state.initial = child
                    initial_marker = False
                previous = child
            elif isinstance(m, s.Usage) and m.kind == "action" and m.name and isinstance(m.action_body, s.Terminate):
                previous = self._vertex(m.name, VertexKind.TERMINATE, state)
            elif isinstance(m, s.Pseudostate):
                kind = {"choice": VertexKind.CHOICE, "junction": VertexKind.JUNCTION,
                        "history": VertexKind.HISTORY, "deep history": VertexKind.DEEP_HISTORY}.get(m.kind)
                if kind is not None:
                    previous = self._vertex(m.name, kind, state)
            elif isinstance(m, s.ControlNode) and m.kind in ("fork", "join") and m.name:
                previous = self._vertex(m.name, VertexKind.FORK if m.kind == "fork" else VertexKind.JOIN, state)
            elif isinstance(m, s.EntryMember):
                if m.kind == "entry" and m.behavior is None and m.block is None:
                    initial_marker = True
                    continue
                behavior = _behavior(m)
                getattr(state, m.kind).append(behavior)
                entry_then = m.kind == "entry"
            elif isinstance(m, s.ThenMember):
                if m.target is not None and initial_marker:
                    self.pending.append((state, s.Transition(m.span, None, "$initial", None, None, None,
                                                             m.target), ()))
                    initial_marker = False
                elif m.target is not None and previous is not None:
                    self.pending.append((state, s.Transition(m.span, None, previous.name, None, None, None,
                                                             m.target), ()))
                elif isinstance(m.member, s.Usage) and m.member.kind == "state" and m.member.name:
                    self._fill_then(state, m.member, el, initial_marker, previous)
                    initial_marker = False
            elif isinstance(m, (s.Transition, s.SuccessionMember, s.FirstMember, s.StateTriggerShorthand)):
                self.pending.append((state, m, ()))
            elif isinstance(m, s.Defer):
                defers.append(m.signal.rsplit("::", 1)[-1])
        state.defers = tuple(defers)

    def _fill_then(self, state: Vertex, usage: s.Usage, el: Element | None, initial: bool,
                   previous: Vertex | None) -> None:
        child_el = el.members.get(usage.name) if el is not None and usage.name else None
        assert usage.name is not None
        child = self._vertex(usage.name, VertexKind.STATE, state, child_el)
        child.parallel = usage.parallel
        self._fill(child, _body(self.model, child_el, usage), child_el)
        if initial and state.initial is None:
            state.initial = child
        elif previous is not None:
            self.pending.append((state, s.Transition(usage.span, None, previous.name, None, None, None,
                                                     usage.name), ()))

    def _transition(self, owner: Vertex, m: s.Member, _members: tuple[s.Member, ...]) -> None:
        trigger: s.Trigger | None
        if isinstance(m, s.StateTriggerShorthand):
            source, target_name, trigger, guard, effect, name = owner, m.target, m.trigger, m.guard, m.effect, None
        elif isinstance(m, s.Transition):
            if m.source == "$initial":
                target = self.find(owner, m.target)
                owner.initial = target
                return
            source = self.find(owner, m.source)
            target_name, trigger, guard, effect, name = m.target, m.trigger, m.guard, m.effect, m.name
        elif isinstance(m, s.SuccessionMember):
            source = self.find(owner, m.source)
            target_name, trigger, guard, effect, name = m.target, None, m.guard, None, m.name
        elif isinstance(m, s.FirstMember):
            if m.target is None:
                return
            source = self.find(owner, m.source)
            target_name, trigger, guard, effect, name = m.target, None, m.guard, None, None
        else:
            return
        target = self.find(owner, target_name, source)
        self.transitions.append(Transition(source, target, trigger, guard, _effect(effect),
                                           len(self.transitions), name, isinstance(effect, s.Block)))

    def find(self, owner: Vertex, path: str, source: Vertex | None = None) -> Vertex:
        """The vertex a transition names, nearest the owner first; `done` is the region's final state
        (of the source's region), `terminate` the machine's end."""
        last = path.replace("::", ".").rsplit(".", 1)[-1]
        scope: Vertex | None = owner
        while scope is not None:
            found = _search(scope, last)
            if found is not None and (found.kind is not VertexKind.FINAL or found.parent is owner):
                return found
            scope = scope.parent
        if last in ("done", "terminate"):
            kind = VertexKind.FINAL if last == "done" else VertexKind.TERMINATE
            return self._vertex(last, kind, owner)
        raise MachineShapeError(f"no state named '{path}' in state machine {self.root_element.name}")


def _search(scope: Vertex, name: str) -> Vertex | None:
    """Breadth first below `scope`: the nearest vertex of that name."""
    frontier = list(scope.children)
    while frontier:
        for v in frontier:
            if v.name == name:
                return v
        frontier = [c for v in frontier for c in v.children]
    return None


def _behavior(m: s.EntryMember) -> Behavior:
    """A body (`entry { ... }`, an untyped `entry action a { ... }` of statements) runs as one
    anonymous action; a typed action or one stating a flow runs as a flow of its own; a statement
    runs as the statement it is."""
    if m.block is not None:
        return Behavior(m.kind, m.block.members)
    b = m.behavior
    if isinstance(b, s.Usage):
        members = b.members or ((b.action_body,) if b.action_body is not None else ())
        if not b.types and not b.performed and (m.kind == "do" or not states_a_flow(members)):
            # an untyped do behavior is stepped one member at a time
            return Behavior(m.kind, members)
        if m.kind == "do" or all(is_feature(x) for x in b.members):
            # performed as a node: a typed action binding its parameters, a do behavior's flow
            return Behavior(m.kind, (b,), wrapped=False)
        return Behavior(m.kind, members, action=b)
    return Behavior(m.kind, (b,) if b is not None else (), wrapped=False)


def _effect(effect: s.Member | s.Block | None) -> tuple[s.Member, ...]:
    if effect is None:
        return ()
    if isinstance(effect, s.Block):
        return effect.members
    return (effect,)


def shape_of(model: Model, machine: Element) -> Shape:
    return _Builder(model, machine).build()
