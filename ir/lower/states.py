"""State machines to StateGraphs: states and regions from the bodies, transitions with their names
resolved, entry/do/exit behaviors and effects through the action lowering, and the checks a machine
must pass to be submitted (an initial transition, known states).

Names in a transition resolve from the state whose body holds it: its own substates, then those of
each enclosing state, then (as the corpus writes `transition first split then building;` to a state
nested in another region) the nearest state of that name anywhere in the machine; a dotted name
(`work.inner`) descends from its first segment. `done` names the region's final state unless a
state of that name is declared.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from ir import syntax as s
from ir.errors import (
    NoInitialTransitionError,
    StateMachineError,
    UnknownSignalError,
    UnknownStateError,
    close_names,
)
from ir.footprint import expression_reads
from ir.graphs import (
    COMPLETION,
    Attribute,
    Behavior,
    BehaviorKind,
    Footprint,
    Region,
    State,
    StateGraph,
    StateKind,
    Transition,
    Trigger,
    TriggerKind,
    union,
)
from ir.lower.actions import lower_block
from ir.lower.members import attribute_of, is_feature, states_a_flow, unwrapped
from ir.model import Element, Model
from ir.resolve import lineage, lookup

_PSEUDO = {"choice": StateKind.CHOICE, "junction": StateKind.JUNCTION, "history": StateKind.SHALLOW_HISTORY,
           "deep history": StateKind.DEEP_HISTORY}


@dataclass
class _Pending:
    name: str | None
    source: str
    target: str
    trigger: s.Trigger | None
    guard: s.Expr | None
    effect: s.Member | s.Block | None
    owner: int
    decl: s.Member
    source_index: int | None = None  # a state's own `accept ... then T;` leaves that state


@dataclass
class _Draft:
    """A state as it is built: its fields, filled while its body is read."""

    index: int
    name: str
    path: str
    kind: StateKind
    parent: int | None
    region: int | None
    element: Element
    decl: s.Member | None
    regions: list[int] = field(default_factory=list)
    entry: Behavior | None = None
    do: Behavior | None = None
    exit: Behavior | None = None
    attributes: list[Attribute] = field(default_factory=list)
    defers: list[str] = field(default_factory=list)
    run_to_completion: bool = True
    completion_scope: bool = False
    members: tuple[s.Member, ...] | None = None  # a state's body (None for a pseudostate)


class _Builder:
    def __init__(self, model: Model, machine: Element) -> None:
        self.model = model
        self.machine = machine
        self.path = machine.path
        self.states: list[_Draft] = []
        self.regions: list[Region] = []
        self.pending: list[_Pending] = []
        self.connects: list[s.ConnectMember] = []
        self.binds: list[s.BindMember] = []
        self.initials: list[tuple[int, str, int, s.Member | None]] = []  # region, target, owner, decl
        # a state's element, found by its declaration (an inherited state belongs to the definition)
        self.by_decl = {id(e.decl): e for e in model.walk() if e.decl is not None}
        self.by_member: dict[int, _Draft] = {}

    # ------------------------------------------------------------ states and regions

    def add(self, name: str, path: str, kind: StateKind, parent: int | None, region: int | None,
            element: Element, decl: s.Member | None) -> _Draft:
        draft = _Draft(len(self.states), name, path, kind, parent, region, element, decl)
        self.states.append(draft)
        return draft

    def members_of(self, el: Element, decl: s.Member | None) -> tuple[s.Member, ...]:
        """A state's members: those of the state definitions it is typed by or specializes, then its own."""
        own = decl.members if isinstance(decl, (s.Usage, s.Definition)) else ()
        inherited: list[s.Member] = []
        seen = {id(el)}
        for type_name in el.type_names:
            general = lookup(self.model, el.owner, type_name)
            if general is not None and general.base_kind == "state" and not general.library \
                    and id(general) not in seen:
                seen.add(id(general))
                inherited.extend(self.members_of(general, general.decl))
        return (*inherited, *own)

    def declare(self, draft: _Draft, members: tuple[s.Member, ...], parallel: bool) -> None:
        """Make a state's vertices, depth first in the order written (so a state's index is its
        pre-order position), and the regions they stand in."""
        draft.members = members
        written = [inner for m in members if _declares_vertex(inner := unwrapped(m))]
        if parallel:
            draft.kind = StateKind.PARALLEL
        elif written:
            draft.kind = StateKind.COMPOSITE
        slots = len(written) if parallel else 1 if written else 0
        first = len(self.regions)
        self.regions.extend(Region(first + i, "", draft.index, (), None) for i in range(slots))
        draft.regions.extend(range(first, first + slots))
        children: list[_Draft] = []
        for i, m in enumerate(written):
            child = self.vertex(draft, m, first + i if parallel else first)
            children.append(child)
            if isinstance(m, s.Usage) and m.kind == "state":
                self.declare(child, self.members_of(child.element, m),
                             m.parallel or _parallel_type(self.model, child.element))
        for i, child in enumerate(children):
            if parallel:
                self.regions[first + i] = Region(first + i, _join(draft.path, child.name), draft.index, (child.index,),
                                                 child.index)
        if written and not parallel:
            self.regions[first] = Region(first, draft.path or draft.name, draft.index,
                                         tuple(c.index for c in children), None)

    def read(self, draft: _Draft) -> None:
        """Read a state's members in the order written, each substate's where it stands (so
        transitions are numbered in text order)."""
        previous: s.Member | None = None
        marker = False  # after `entry;`: the next `then S;` (or state) is where the region starts
        region = draft.regions[0] if draft.regions and draft.kind is not StateKind.PARALLEL else None
        for m in draft.members or ():
            inner = unwrapped(m)
            child = self.by_member.get(id(inner))
            if child is not None and child.members is not None:
                self.read(child)
            if isinstance(m, s.ThenMember) and (marker or isinstance(previous, s.EntryMember)):
                target = m.target or _vertex_name(inner)
                if region is not None and target:
                    self.initials.append((region, target, draft.index, m))
                marker = False
            elif isinstance(m, s.ThenMember) and previous is not None and _vertex_name(previous):
                # `state a; then b;`: a succession between states, b following a's completion
                target = m.target or _vertex_name(inner)
                if target:
                    self.pending.append(_Pending(None, _vertex_name(previous) or "", target, None, None, None,
                                                 draft.index, m))
            elif marker and child is not None and region is not None and isinstance(inner, s.Usage):
                self.initials.append((region, child.name, draft.index, m))  # `entry; state a;`
                marker = False
            if isinstance(inner, s.EntryMember) and inner.kind == "entry" and inner.behavior is None \
                    and inner.block is None:
                marker = True
            self.member(draft, m)
            previous = inner

    def vertex(self, draft: _Draft, m: s.Member, region: int) -> _Draft:
        """The state or pseudostate a member of a state's body declares."""
        if isinstance(m, s.Usage) and m.kind == "state":
            name = m.name or (m.redefines[0].rsplit("::", 1)[-1] if m.redefines else f"${len(self.states)}")
            child = self.add(name, _join(draft.path, name), StateKind.SIMPLE, draft.index, region,
                             self.by_decl.get(id(m), draft.element), m)
        else:
            kind = _vertex_kind(m)
            name = _vertex_name(m) or ""
            child = self.add(name, _join(draft.path, name), kind, draft.index, region, draft.element, m)
        self.by_member[id(m)] = child
        return child

    # ------------------------------------------------------------ the rest of a body

    def member(self, draft: _Draft, m: s.Member) -> None:
        inner = unwrapped(m)
        if isinstance(inner, s.EntryMember):
            self.behavior(draft, inner)
        elif isinstance(inner, s.Transition):
            self.pending.append(_Pending(inner.name, inner.source, inner.target, inner.trigger, inner.guard,
                                         inner.effect, draft.index, inner))
        elif isinstance(inner, s.StateTriggerShorthand):
            self.pending.append(_Pending(None, draft.name, inner.target, inner.trigger, inner.guard, inner.effect,
                                         draft.parent if draft.parent is not None else draft.index, inner,
                                         draft.index))  # its names resolve where the state stands
        elif isinstance(inner, s.SuccessionMember):
            self.pending.append(_Pending(inner.name, inner.source, inner.target, None, inner.guard, None,
                                         draft.index, inner))
        elif isinstance(inner, s.FirstMember) and inner.target is not None:
            self.pending.append(_Pending(None, inner.source, inner.target, None, inner.guard, None,
                                         draft.index, inner))
        elif isinstance(inner, s.Defer):
            draft.defers.append(inner.signal)
        elif isinstance(inner, s.ConnectMember):
            self.connects.append(inner)
        elif isinstance(inner, s.BindMember):
            self.binds.append(inner)
        elif isinstance(inner, s.Usage) and is_feature(inner):
            redefined = inner.redefines[0].rsplit("::", 1)[-1] if inner.redefines and not inner.name else None
            if redefined == "isRunToCompletion":
                draft.run_to_completion = not (isinstance(inner.value, s.Literal) and inner.value.text == "false")
            elif redefined == "runToCompletionScope":
                draft.completion_scope = isinstance(inner.value, s.SelfRef)
            elif not (inner.direction == "in" and inner.value is not None and inner.redefines):
                draft.attributes.append(attribute_of(inner))
        elif isinstance(inner, s.ControlNode) and inner.kind not in ("fork", "join"):
            raise StateMachineError(f"a {inner.kind} node stands in state {draft.path or draft.name}",
                                    "in a state machine, branch with a junction or a choice "
                                    "(`junction j;`) and end a region with `then done;`",
                                    self.path, inner.span.line, inner.span.column)
        elif isinstance(inner, s.Statement):
            # a state's body declares; what it performs is its entry, do or exit behavior
            where = draft.path or draft.name
            hint = ("end the machine with a terminate state: `action stop terminate;` and a transition to it"
                    if isinstance(inner, s.Terminate) else
                    "perform it on entering, while in or on leaving the state: `entry { ... }`, `do { ... }`, "
                    "`exit { ... }`")
            raise StateMachineError(f"a statement stands in state {where}'s body, where nothing performs it",
                                    hint, self.path, inner.span.line, inner.span.column)

    def behavior(self, draft: _Draft, m: s.EntryMember) -> None:
        if m.behavior is None and m.block is None:
            return  # `entry;`: the initial marker, read with the `then` after it
        kind = BehaviorKind(m.kind)
        if getattr(draft, kind.value) is not None:
            raise StateMachineError(f"state {draft.path or draft.name} has a second {kind.value} behavior",
                                    f"write one {kind.value} action holding both", self.path,
                                    m.span.line, m.span.column)
        what = m.block if m.block is not None else m.behavior
        assert what is not None
        setattr(draft, kind.value, self.action(kind, what, draft.element))

    def action(self, kind: BehaviorKind, what: s.Member | s.Block, scope: Element) -> Behavior:
        """An entry, do, exit or effect as an action graph whose one node is that action."""
        if isinstance(what, s.Usage):
            usage = what
        elif isinstance(what, s.Block):
            usage = s.Usage(what.span, "action", None, members=what.members, has_body=True)
        else:
            usage = s.Usage(what.span, "action", None, members=(what,), has_body=True)
        name = usage.name or kind.value
        labelled = usage if usage.name else _named(usage, name)
        graph = lower_block(self.model, scope, (labelled,), f"{scope.qualified_name}::{name}")
        typed = usage.types[0] if usage.types else None
        statements, action, wrapped = _as_written(kind, what)
        parts = tuple((id(m), self._part(m, scope, name)) for m in _statement_parts(statements))
        return Behavior(kind, name, graph, typed, statements, action, wrapped, parts)

    def _part(self, stmt: s.Member, scope: Element, name: str) -> Footprint:
        """One statement's footprint, its names qualified as the whole behavior's are."""
        usage = s.Usage(stmt.span, "action", name, members=(stmt,), has_body=True)
        graph = lower_block(self.model, scope, (usage,), f"{scope.qualified_name}::{name}")
        return union(n.footprint for n in graph.nodes)

    # ------------------------------------------------------------ transitions

    def resolve(self, label: str, owner: int, decl: s.Member, role: str, near: int | None = None) -> int:
        head, *rest = label.split(".")
        found = self.nearest(head, owner)
        if found is None and head == "done" and not rest:
            found = self.final(owner, near if near is not None else owner)
        for part in rest:
            if found is None:
                break
            found = next((c for c in self.children(found) if self.states[c].name == part), None)
        if found is None:
            names = sorted({d.path for d in self.states[1:]})
            raise UnknownStateError(f"transition {role} '{label}' names no state of {self.machine.qualified_name}",
                                    "declare the state, or name one of: " + ", ".join(names[:12]),
                                    self.path, decl.span.line, decl.span.column)
        return found

    def children(self, index: int) -> list[int]:
        return [i for r in self.states[index].regions for i in self.regions[r].states]

    def nearest(self, name: str, owner: int) -> int | None:
        """The vertex named `name` nearest `owner`: breadth first below it, then below each state
        enclosing it in turn; a final state counts only in the owner's own regions."""
        for scope in (owner, *self.ancestors(owner)):
            frontier = self.children(scope)
            while frontier:
                for v in frontier:
                    d = self.states[v]
                    if d.name == name and (d.kind is not StateKind.FINAL or d.parent == owner):
                        return v
                frontier = [c for v in frontier for c in self.children(v)]
        return None

    def ancestors(self, index: int) -> list[int]:
        out = []
        at = self.states[index].parent
        while at is not None:
            out.append(at)
            at = self.states[at].parent
        return out

    def final(self, owner: int, source: int) -> int:
        """The final state `done` of the region `done` is named in: the one of the state whose body
        names it (of the source's region when that state is parallel), made when first named."""
        draft = self.states[owner]
        if draft.kind is StateKind.PARALLEL or not draft.regions:
            region_index = self.states[source].region
            if region_index is None:
                region = Region(len(self.regions), draft.path or draft.name, owner, (), None)
                self.regions.append(region)
                draft.regions.append(region.index)
                draft.kind = StateKind.COMPOSITE
                region_index = region.index
        else:
            region_index = draft.regions[0]
        region = self.regions[region_index]
        for i in region.states:
            if self.states[i].kind is StateKind.FINAL:
                return i
        holder = self.states[region.owner]
        final = self.add("done", _join(holder.path, "done"), StateKind.FINAL, region.owner, region_index,
                         holder.element, None)
        self.regions[region_index] = Region(region.index, region.name, region.owner, (*region.states, final.index),
                                            region.initial, region.initial_decl)
        return final.index

    def trigger(self, t: s.Trigger | None, scope: Element) -> Trigger:
        if t is None:
            return COMPLETION
        kind = TriggerKind(t.kind.value)
        at = t.expression
        if kind is TriggerKind.AT and isinstance(at, s.Index) and not at.positional and isinstance(at.index, s.Name):
            # TriggerAt takes a TimeInstantValue: a quantity in a unit (`40 [s]`) is a duration
            raise StateMachineError(
                f"'accept at' takes a time instant, and {at.index.name!r} makes a duration of it",
                "write `accept after` with that duration for a time after the state is entered, or `accept at` an instant "
                "on the run's clock (a number of seconds, as localClock.currentTime reads)",
                self.path, t.span.line, t.span.column)
        signal = t.signal or t.subsets
        found = lookup(self.model, scope, signal) if signal else None
        return Trigger(kind, signal, t.payload, t.expression, t.via, found, t)


def _as_written(kind: BehaviorKind, what: s.Member | s.Block) -> tuple[tuple[s.Member, ...], s.Usage | None, bool]:
    """A behavior's statements as the machine runtime runs them, the action usage it performs as a
    flow of its own, and whether the statements run as one anonymous action (wrapped): a body runs
    wrapped; an untyped action of statements, and an anonymous do action, runs its members wrapped
    (a do step performs one of them); a typed or performed do action and an action of features alone
    run as the one node they are; a named action stating a flow (an entry's, an exit's or a do
    behavior's) runs its members as that action's flow; a statement runs as itself. An effect runs its body wrapped, else the one member it is."""
    if isinstance(what, s.Block):
        return what.members, None, True
    if kind is BehaviorKind.EFFECT or not isinstance(what, s.Usage):
        return (what,), None, False
    members = what.members or ((what.action_body,) if what.action_body is not None else ())
    untyped = not what.types and not what.performed
    if untyped and (not states_a_flow(members) or (kind is BehaviorKind.DO and not what.name)):
        return members, None, True
    if (kind is BehaviorKind.DO and not untyped) or all(is_feature(x) for x in what.members):
        return (what,), None, False
    return members, what, True


def _vertex_kind(m: s.Member) -> StateKind:
    if isinstance(m, s.Pseudostate):
        return _PSEUDO[m.kind]
    if isinstance(m, s.ControlNode):
        return StateKind.FORK if m.kind == "fork" else StateKind.JOIN
    return StateKind.TERMINATE


def _declares_vertex(m: s.Member) -> bool:
    """A state, a pseudostate, a fork or join, or a terminate action (`action stop terminate;`)."""
    return (isinstance(m, s.Usage) and m.kind == "state" and not m.exhibited) or isinstance(m, s.Pseudostate) \
        or (isinstance(m, s.ControlNode) and m.kind in ("fork", "join") and m.name is not None) \
        or (isinstance(m, s.Usage) and m.kind == "action" and isinstance(m.action_body, s.Terminate)
            and m.name is not None)


def _vertex_name(m: s.Member | None) -> str | None:
    if m is None or not _declares_vertex(m):
        return None
    if isinstance(m, s.Pseudostate):
        return m.name
    if isinstance(m, (s.Usage, s.ControlNode)):
        return m.name
    return None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _named(usage: s.Usage, name: str) -> s.Usage:
    return replace(usage, name=name)


def _parallel_type(model: Model, el: Element) -> bool:
    for type_name in el.type_names:
        general = lookup(model, el.owner, type_name)
        if general is not None and isinstance(general.decl, s.Definition) and general.decl.parallel:
            return True
    return False


# ---------------------------------------------------------------- the graph


def lower_state(model: Model, el: Element, bindings: tuple[tuple[str, s.Expr], ...] = (),
                exhibited_by: Element | None = None) -> StateGraph:
    """The StateGraph of a state definition or usage (a machine), checked: it has an initial
    transition, and every transition names states it holds."""
    if el.base_kind != "state" or not isinstance(el.decl, (s.Definition, s.Usage)):
        raise StateMachineError(f"{el.qualified_name} is a {el.kind}, not a state machine",
                                "name a state definition or usage", el.path, *_at(el.decl))
    b = _Builder(model, el)
    root = b.add(el.name, "", StateKind.SIMPLE, None, None, el, el.decl)
    parallel = el.decl.parallel or _parallel_type(model, el)
    b.declare(root, b.members_of(el, el.decl), parallel)
    b.read(root)
    drafts = _transitions(b)
    for region_index, label, owner, decl in b.initials:
        region = b.regions[region_index]
        assert decl is not None
        target = b.resolve(label, owner, decl, "target", near=region.states[0] if region.states else None)
        b.regions[region_index] = Region(region.index, region.name, region.owner, region.states, target, decl)
    _check_initials(b, drafts)
    states = _freeze(b)
    transitions = tuple(_with_footprint(b, t, states) for t in drafts)
    return StateGraph(el.qualified_name, el, states, tuple(b.regions), transitions, bindings,
                      tuple(b.connects), tuple(b.binds), exhibited_by)


def _transitions(b: _Builder) -> list[Transition]:
    out: list[Transition] = []
    for p in b.pending:
        source = p.source_index if p.source_index is not None else b.resolve(p.source, p.owner, p.decl, "source")
        target = b.resolve(p.target, p.owner, p.decl, "target", near=source)
        scope = b.states[p.owner].element
        effect = b.action(BehaviorKind.EFFECT, p.effect, scope) if p.effect is not None else None
        out.append(Transition(len(out), p.name, source, target, b.trigger(p.trigger, scope), p.guard, effect,
                              p.owner, p.decl))
    return out


def _check_initials(b: _Builder, transitions: list[Transition]) -> None:
    """A state entered by default (the machine, a transition's target, a region's initial state, so
    a parallel state's substates too) must say where each of its regions starts; a composite entered
    only through transitions naming its substates need not."""
    todo = [0, *(t.target for t in transitions)]
    seen: set[int] = set()
    while todo:
        at = todo.pop()
        if at in seen:
            continue
        seen.add(at)
        draft = b.states[at]
        for r in draft.regions:
            region = b.regions[r]
            if region.initial is not None:
                todo.append(region.initial)
                continue
            what = f"the machine {b.machine.qualified_name}" if at == 0 else f"state {draft.path}"
            first = next((b.states[i].name for i in region.states if not b.states[i].kind.is_pseudostate), None)
            raise NoInitialTransitionError(
                f"{what} has no initial transition: nothing says which of its states it starts in",
                f"add `entry; then {first};` to its body" if first else "add an initial transition `entry; then S;`",
                b.path, *_at(draft.decl))


def _freeze(b: _Builder) -> tuple[State, ...]:
    out = []
    for d in b.states:
        footprint = union(x.footprint for x in (d.entry, d.do, d.exit) if x is not None)
        out.append(State(d.index, d.name, d.path, d.kind, d.parent, d.region, tuple(d.regions), d.entry, d.do,
                         d.exit, tuple(d.attributes), tuple(d.defers), d.run_to_completion, d.completion_scope,
                         d.decl, d.element, footprint))
    return tuple(out)


def _with_footprint(b: _Builder, t: Transition, states: tuple[State, ...]) -> Transition:
    """What firing `t` may touch: its trigger and guard, the exits of the source and what it holds,
    the effect, and the entries of the target, what encloses it below the source's owner and what it
    holds (a conservative reach: which substates are active is known only at run time)."""
    touched = [t.source, *_below(b, t.source), t.target, *_below(b, t.target), *b.ancestors(t.target)]
    parts = [states[i].footprint for i in sorted(set(touched)) if i != 0]
    if t.effect is not None:
        parts.append(t.effect.footprint)
    reads = set(expression_reads(t.guard)) | set(expression_reads(t.trigger.expression))
    scope = b.states[t.owner].element
    qualified = frozenset(_qualify(b.model, scope, n) for n in reads)
    accepts = t.trigger.kind in (TriggerKind.SIGNAL, TriggerKind.CALL)
    parts.append(Footprint(reads=qualified, accepts=accepts))
    return Transition(t.index, t.name, t.source, t.target, t.trigger, t.guard, t.effect, t.owner, t.decl,
                      union(parts))


def _below(b: _Builder, index: int) -> list[int]:
    out = []
    todo = [index]
    while todo:
        at = todo.pop()
        for child in b.children(at):
            out.append(child)
            todo.append(child)
    return out


def _qualify(model: Model, scope: Element, name: str) -> str:
    head, dot, rest = name.partition(".")
    found = lookup(model, scope, head)
    if found is not None and found.kind != "package":
        return found.qualified_name + dot + rest
    return name


def _at(decl: s.Member | None) -> tuple[int, int]:
    return (decl.span.line, decl.span.column) if decl is not None else (0, 0)


def exhibited_machines(model: Model, part: Element) -> tuple[StateGraph, ...]:
    """The machines a part (definition or usage) exhibits, its own and those of what it specializes
    or is typed by, each bound as written (`exhibit state life : Life { in ref :>> context = this; }`)."""
    out: list[StateGraph] = []
    names: set[str] = set()  # a machine exhibited again under one name replaces the general's
    for at in lineage(model, part, library=False):
        for name, member in at.members.items():
            decl = member.decl
            if isinstance(decl, s.Usage) and decl.kind == "state" and decl.exhibited and name not in names:
                names.add(name)
                machine = member
                if not decl.has_body and decl.types:
                    machine = lookup(model, at, decl.types[0]) or member
                bindings = tuple((u.redefines[0].rsplit("::", 1)[-1] if u.redefines else u.name or "", u.value)
                                 for u in decl.members if isinstance(u, s.Usage) and u.value is not None
                                 and u.direction in ("in", "inout") and (u.redefines or u.name))
                out.append(lower_state(model, machine, bindings, part))
    return tuple(out)


def instance_machines(model: Model, part: Element) -> tuple[tuple[str, StateGraph], ...]:
    """Every machine a part runs once materialized, by the path of the part exhibiting it (`""` for
    the part itself, `box.peas` for a part of a part): its own, then its parts', depth first in the
    order declared, through the part definitions each part is typed by."""
    out: list[tuple[str, StateGraph]] = []

    def walk(el: Element, path: str, visiting: tuple[int, ...]) -> None:
        out.extend((path, g) for g in exhibited_machines(model, el))
        for name, member in _parts(model, el):
            if id(member) not in visiting:
                walk(member, _join(path, name), (*visiting, id(member)))

    walk(part, "", (id(part),))
    return tuple(out)


def _parts(model: Model, el: Element) -> list[tuple[str, Element]]:
    """A part's part features, its own and those of the definitions it is typed by or specializes."""
    out: list[tuple[str, Element]] = []
    names: set[str] = set()
    for at in lineage(model, el, library=False):
        for name, member in at.members.items():
            if member.kind == "part" and name not in names and not name.startswith("$"):
                names.add(name)
                out.append((name, member))
    return out


def check_machines(model: Model, elements: Iterable[Element]) -> None:
    """Lower every machine among `elements` (a package's state definitions and usages, and what the
    parts among them exhibit), so a machine a run could not start is refused when it is submitted."""
    for el in elements:
        if el.owner is None or el.owner.kind not in ("package", "root"):
            continue
        if el.base_kind == "state":
            lower_state(model, el)
        elif el.base_kind == "part":
            exhibited_machines(model, el)


def check_signal(graph: StateGraph, name: str, where: tuple[str, int, int] = ("", 0, 0)) -> None:
    """Refuse a signal the machine neither accepts nor defers anywhere (sending it could never matter)."""
    alphabet = graph.signals()
    if name in alphabet:
        return
    close = close_names(name, alphabet)
    hint = (f"did you mean {', '.join(close)}? " if close else "") + \
        ("it accepts " + ", ".join(alphabet) if alphabet else "it accepts no signal")
    raise UnknownSignalError(f"unknown signal '{name}': no transition of {graph.name} accepts it", hint,
                            *where)


def _statement_parts(stmts: tuple[s.Member, ...]) -> list[s.Member]:
    """The statements a check may perform in any order, each as it is written (a `then` member's
    statement), with those of an `if`'s branches."""
    out: list[s.Member] = []
    for m in stmts:
        plain = unwrapped(m)
        if isinstance(plain, s.Statement):
            out.append(plain)
        if isinstance(plain, s.If):
            for block in (plain.then, plain.otherwise):
                if block is not None:
                    out.extend(_statement_parts(block.members))
    return out
