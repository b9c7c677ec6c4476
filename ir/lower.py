"""Behaviors to graphs: per action an immutable ActionGraph of nodes, successions and bodies.

An action's members become its flow: action usages, control nodes and statements standing at the
flow level are nodes; `first`, `then` and `succession` are edges. A node's own body is either a
statement list its token runs in one move, or (when it states successions of its own) a subflow
the token enters.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum

from ir import syntax as s
from ir.connections import Connection, connections_of
from ir.errors import LoweringError, ResolveError
from ir.footprint import Touches, constructs, expression_reads
from ir.inherit import SEGMENT_BREAK, effective_members
from ir.model import Element, Model
from ir.resolve import lookup, member_of, visible_names


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


@dataclass(frozen=True)
class Footprint:
    """What one move of a node reads, writes, sends and accepts, and which joins or merges it reaches."""

    reads: frozenset[str] = frozenset()
    writes: frozenset[str] = frozenset()
    sends: bool = False
    accepts: bool = False
    control: frozenset[int] = frozenset()
    dynamic: bool = False


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
    footprint: Footprint = field(default=Footprint(), compare=False, repr=False)
    # a fine run's start shot of the body (Body.starts_with_a_shot): its features' initial values only
    start_footprint: Footprint | None = field(default=None, compare=False, repr=False)

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


FLOW_MEMBERS = (s.FirstMember, s.SuccessionMember, s.ControlNode, s.DecisionBranch)
BLOCK_STATEMENTS = (s.If, s.While, s.For, s.LoopUntil)
SIMPLE_STATEMENTS = (s.Assign, s.Send, s.Accept, s.Terminate)


def then_after(members: tuple[s.Member, ...]) -> list[s.Member | None]:
    """For each `then` member of a body, the member it follows (None for one standing first)."""
    out: list[s.Member | None] = []
    previous: s.Member | None = None
    for m in members:
        if m is SEGMENT_BREAK:
            previous = None
            continue
        if isinstance(m, s.ThenMember):
            out.append(previous)
        previous = m.member if isinstance(m, s.ThenMember) and m.member is not None else m
    return out


def states_a_flow(members: tuple[s.Member, ...]) -> bool:
    """Whether a body orders its own members: successions, control nodes, or `then` after a node
    (a `then` after a block statement only orders the statements, as the corpus reads it)."""
    if any(isinstance(m, FLOW_MEMBERS) for m in members):
        return True
    return any(not isinstance(p, BLOCK_STATEMENTS) for p in then_after(members))


def statement_label(stmt: s.Member) -> str:
    """How a statement standing as a node is named in a trace."""
    if isinstance(stmt, s.Assign):
        return f"assign {stmt.target}"
    if isinstance(stmt, s.If):
        return "if"
    if isinstance(stmt, s.While):
        return "while"
    if isinstance(stmt, s.For):
        return f"for {stmt.variable}"
    if isinstance(stmt, s.LoopUntil):
        return "loop until"
    if isinstance(stmt, s.Send):
        return "send"
    if isinstance(stmt, s.Accept):
        return "usage_action"
    if isinstance(stmt, s.Terminate):
        return "terminate"
    return type(stmt).__name__.lower()


def attribute_of(u: s.Usage) -> Attribute:
    name = u.name or (u.redefines[0].rsplit("::", 1)[-1] if u.redefines else "")
    # Items and parts are objects the model holds, materialized when first read, not values.
    return Attribute(name, u.types[0] if u.types else "", u.value, u.value_kind, u.direction, u,
                     u.kind in ("item", "part"))


def is_feature(m: s.Member) -> bool:
    """An attribute, parameter, item, part or ref feature (not a behavior)."""
    return isinstance(m, s.Usage) and m.kind in (
        "attribute", "feature", "item", "ref", "return", "subject", "part", "port", "event",
    ) and not m.performed


def performances(model: Model, usage: s.Usage, owner: Element) -> int:
    """How many performances an action step names per performance of its owner: one without a
    multiplicity, `n` for an exact `[n]`, `[n..n]` or a named bound valued `n` (none for `[0]`); a
    range names no fixed number, which a run cannot perform."""
    mult = usage.multiplicity
    if mult is None:
        return 1
    if (mult.lower, mult.lower_ref) != (mult.upper, mult.upper_ref):
        raise LoweringError(f"action step {usage.name or 'action'}[{mult.text}] names no fixed number of "
                            "performances: give it an exact multiplicity such as [2]",
                            owner.path, usage.span.line, usage.span.column)
    return multiplicity_count(model, owner, usage)


def is_substep(m: s.Member) -> bool:
    """A nested action usage: a subaction of its own, started with its owner when nothing orders it,
    so the body holding it is a flow its token enters."""
    return isinstance(m, s.Usage) and m.kind == "action" and not m.performed


def parameter_direction(model: Model, performs: Element, name: str) -> str | None:
    """The direction the performed behavior declares its parameter `name` with (its own or inherited)."""
    found = member_of(model, performs, name)
    if found is not None and isinstance(found.decl, s.Usage):
        return found.decl.direction
    return None


def parameter_bindings(model: Model, performs: Element | None, members: tuple[s.Member, ...],
                       path: str = "") -> tuple[
        tuple[tuple[str, s.Expr], ...], tuple[tuple[str, s.Expr], ...], tuple[s.Usage, ...]]:
    """A typed usage's features split into what binds the performed behavior's parameters and its own:
    (inputs evaluated when it starts, outputs written back when it ends, the other features).

    A feature with a value and no type of its own binds the parameter it names (`in x = 3;`,
    `inout acc = total;`, `out r = last;`, `:>> x = 3;`); the direction the behavior declares wins
    over the one written at the binding, so `in`, `inout` and `out` read as the callee reads them."""
    ins: list[tuple[str, s.Expr]] = []
    outs: list[tuple[str, s.Expr]] = []
    features: list[s.Usage] = []
    for m in members:
        if not is_feature(m):
            continue
        assert isinstance(m, s.Usage)
        name = m.name or (m.redefines[0].rsplit("::", 1)[-1] if m.redefines else "")
        declared = parameter_direction(model, performs, name) if performs is not None and name else None
        direction = declared or m.direction
        if performs is None or m.value is None or m.types or direction not in ("in", "inout", "out") \
                or (declared is None and m.direction is None):
            features.append(m)
            continue
        if direction in ("in", "inout"):
            ins.append((name, m.value))
        if direction in ("out", "inout"):
            if not isinstance(m.value, (s.Name, s.Chain)):
                raise LoweringError(f"{direction} parameter '{name}' is bound to an expression, not a feature: "
                                    "the value it ends with has nowhere to go (bind it to a feature)",
                                    path, m.span.line, m.span.column)
            outs.append((name, m.value))
    return tuple(ins), tuple(outs), tuple(features)


class _Lowerer:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.aliases: dict[str, str] = {}

    def action_graph(self, el: Element, members: tuple[s.Member, ...], name: str) -> ActionGraph:
        nodes: list[Node] = []
        edges: list[Edge] = []
        attributes: list[Attribute] = []
        by_name: dict[str, int] = {}
        explicit_initial: list[str] = []
        pending: list[tuple[str, str, s.Expr | None, bool, s.Member]] = []  # source, target, guard, else
        flows: list[s.FlowMember] = []
        binds: list[s.BindMember] = []
        previous: int | None = None
        last_decide: int | None = None

        def add(kind: NodeKind, label: str, decl: s.Member | None, body: Body | None = None,
                multiplicity: int = 1) -> int:
            index = len(nodes)
            nodes.append(Node(index, kind, label, decl, body, multiplicity))
            if label and label not in by_name:
                by_name[label] = index
            return index

        def node_for(member: s.Member) -> int | None:
            nonlocal last_decide
            if isinstance(member, s.ControlNode):
                kind = NodeKind(member.kind) if member.kind != "done" else NodeKind.DONE
                if kind is NodeKind.DONE and "done" in by_name:
                    return by_name["done"]
                index = add(kind, member.name or member.kind, member)
                if kind is NodeKind.DECIDE:
                    last_decide = index
                return index
            if isinstance(member, s.Usage) and member.kind in ("action", "calc", "verification", "analysis",
                                                             "case", "use case") and not is_feature(member):
                body = self.body_of(el, member)
                label = member.name or (member.types[0].rsplit("::", 1)[-1] if member.types else "action")
                return add(NodeKind.ACTION, label, member, body, performances(self.model, member, el))
            if isinstance(member, s.Statement):
                return add(NodeKind.STATEMENT, statement_label(member), member,
                           Body(statements=(member,), scope=el))
            return None

        for member in members:
            if member is SEGMENT_BREAK:
                previous = None
                continue
            if isinstance(member, s.ThenMember):
                if member.target is not None:
                    if previous is not None:
                        pending.append((nodes[previous].name, member.target, None, False, member))
                    continue
                inner = member.member
                assert inner is not None
                # `action c assign x := 1; then assign y := 2;` continues c's own statement list;
                # after `action rx accept v;` the statement is a node of its own that the accept
                # precedes, so it runs once the message is taken and reads the payload as `rx.v`.
                if (previous is not None and isinstance(inner, s.Statement)
                        and nodes[previous].kind is NodeKind.ACTION
                        and isinstance(nodes[previous].decl, s.Usage)
                        and nodes[previous].decl.action_body is not None  # type: ignore[union-attr]
                        and not isinstance(nodes[previous].decl.action_body, s.Accept)):  # type: ignore[union-attr]
                    prev_node = nodes[previous]
                    assert prev_node.body is not None
                    body = replace(prev_node.body, statements=(*prev_node.body.statements, inner))
                    nodes[previous] = Node(prev_node.index, prev_node.kind, prev_node.name, prev_node.decl,
                                           body, prev_node.multiplicity)
                    continue
                if is_feature(inner):
                    attributes.append(attribute_of(inner))  # type: ignore[arg-type]
                    continue
                index = node_for(inner)
                if index is not None:
                    if previous is not None:
                        edges.append(Edge(previous, index, decl=member))
                    previous = index
                continue
            if isinstance(member, s.FirstMember):
                if member.target is None:
                    explicit_initial.append(member.source)
                    if member.source not in by_name and member.source == "start":
                        previous = add(NodeKind.START, "start", member)
                    else:
                        previous = by_name.get(member.source, previous)
                else:
                    pending.append((member.source, member.target, member.guard, False, member))
                continue
            if isinstance(member, s.SuccessionMember):
                pending.append((member.source, member.target, member.guard, False, member))
                continue
            if isinstance(member, s.DecisionBranch):
                if last_decide is None:
                    raise LoweringError(f"'{'if' if member.guard else 'else'}' branch with no decide node before it",
                                        el.path, member.span.line, member.span.column)
                pending.append((nodes[last_decide].name, member.target, member.guard, member.guard is None, member))
                continue
            if isinstance(member, s.FlowMember):
                flows.append(member)
                continue
            if isinstance(member, s.BindMember):
                binds.append(member)
                continue
            if is_feature(member):
                attributes.append(attribute_of(member))  # type: ignore[arg-type]
                continue
            index = node_for(member)
            if index is not None:
                previous = index

        def resolve_node(label: str, decl: s.Member, role: str) -> int:
            if label in by_name:
                return by_name[label]
            first = label.split(".", 1)[0]
            if label == "start":
                return add(NodeKind.START, "start", decl)
            if label == "done":
                return add(NodeKind.DONE, "done", decl)
            if first in by_name:
                return by_name[first]
            if role == "source" and decl is not None and isinstance(decl, s.FirstMember):
                return add(NodeKind.START, label, decl)
            raise LoweringError(f'undefined {role} node "{label}"', el.path, decl.span.line, decl.span.column)

        for label in explicit_initial:
            if label not in by_name:
                add(NodeKind.START, label, None)  # `first begin;` names a start node of its own
        for source, target, guard, is_else, decl in pending:
            src = resolve_node(source, decl, "source")
            dst = resolve_node(target, decl, "target")
            edges.append(Edge(src, dst, guard, is_else, decl))
        for f in flows:
            # a succession flow is a succession too: its target starts after its source ends
            src_name, dst_name = f.source.split(".", 1)[0], f.target.split(".", 1)[0]
            if f.succession and src_name in by_name and dst_name in by_name:
                src, dst = by_name[src_name], by_name[dst_name]
                if not any(e.source == src and e.target == dst for e in edges):
                    edges.append(Edge(src, dst, decl=f))

        initial = [by_name[label] for label in explicit_initial]
        if not initial:
            targets = {e.target for e in edges}
            # The flow's start first, then the steps no succession reaches, which start with it.
            untargeted = [n for n in nodes if n.index not in targets and n.kind is not NodeKind.DONE]
            initial = [n.index for n in untargeted if n.kind is NodeKind.START] \
                + [n.index for n in untargeted if n.kind is not NodeKind.START]
        local = {a.name for a in attributes}
        aliases: dict[str, str] = {}
        for a in attributes:
            if isinstance(a.decl, s.Usage):
                if a.decl.short_name:
                    aliases[a.decl.short_name] = a.name
                for redefined in a.decl.redefines:
                    aliases.setdefault(redefined.rsplit("::", 1)[-1], a.name)
        self.aliases = aliases
        # Flows and bindings deliver between nodes outside any statement: such nodes depend on every move.
        flowing = {end.split(".", 1)[0] for f in flows for end in (f.source, f.target)}
        flowing |= {end.split(".", 1)[0] for b in binds for end in (b.left, b.right) if "." in end}
        nodes = [n if n.name not in flowing else Node(n.index, n.kind, n.name, n.decl, n.body, n.multiplicity,
                                                        Footprint(dynamic=True)) for n in nodes]
        with_footprints = tuple(
            Node(n.index, n.kind, n.name, n.decl, n.body, n.multiplicity,
                 self.footprint(n, nodes, edges, name, local, _scope(n, el)),
                 self.footprint(n, nodes, edges, name, local, _scope(n, el), start=True)
                 if n.starts_with_a_shot() and not n.footprint.dynamic else None)
            for n in nodes)
        return ActionGraph(name, el, tuple(attributes), with_footprints, tuple(edges), tuple(initial),
                           tuple(flows), tuple(binds), connections_of((*flows, *binds), by_name))

    def footprint(self, node: Node, nodes: list[Node], edges: list[Edge], owner: str,
                  local: set[str], scope_el: Element | None = None, start: bool = False) -> Footprint:
        """One move of `node`: its body, the guards of its outgoing successions, the joins it reaches;
        `start`, its start shot alone: what its features' initial values read."""
        touches = Touches()
        body = node.body
        if node.footprint.dynamic:
            touches.dynamic = True
        if body is not None and body.terminate:
            touches.dynamic = True
        if start:
            assert body is not None
            for attr in body.attributes:
                touches.reads.update(expression_reads(attr.value))
                touches.dynamic = touches.dynamic or constructs(attr.value)
            touches.reads -= {a.name for a in body.attributes}
            edges = []  # the shot follows no succession: the token stays at its node
        elif body is not None:
            touches.statements(body.statements)
            for attr in body.attributes:
                touches.reads.update(expression_reads(attr.value))
            for _, expr in body.bindings:
                touches.reads.update(expression_reads(expr))
            for _, expr in body.outputs:
                touches.writes.update(expression_reads(expr))
            if body.flow is not None:
                for inner in body.flow.nodes:
                    touches.reads.update(inner.footprint.reads)
                    touches.writes.update(inner.footprint.writes)
                    touches.sends = touches.sends or inner.footprint.sends
                    touches.accepts = touches.accepts or inner.footprint.accepts
                    touches.dynamic = touches.dynamic or inner.footprint.dynamic
            if body.performs is not None:
                touches.dynamic = True  # what another action's executor touches is not read off here
            own = {a.name for a in body.attributes}
            touches.reads -= own
            touches.writes -= own
        control = set()
        for e in edges:
            if e.source == node.index:
                touches.reads.update(expression_reads(e.guard))
                target = nodes[e.target]
                incoming = sum(1 for x in edges if x.target == e.target)
                if target.kind in (NodeKind.JOIN, NodeKind.MERGE) or incoming > 1:
                    control.add(e.target)

        def qualify(names: set[str]) -> frozenset[str]:
            """Names by the feature they resolve to, so one feature is one name in every graph."""
            out = set()
            for n in names:
                head, dot, rest = n.partition(".")
                head = self.aliases.get(head, head)
                found = lookup(self.model, scope_el, head) if scope_el is not None else None
                if found is not None and found.kind not in ("package",):
                    out.add(found.qualified_name + dot + rest)
                elif head in local:
                    out.add(f"{owner}::{n}")
                else:
                    out.add(n)
            return frozenset(out)

        return Footprint(qualify(touches.reads), qualify(touches.writes), touches.sends, touches.accepts,
                         frozenset(control), touches.dynamic)

    def body_of(self, owner: Element, usage: s.Usage) -> Body:
        """What a node declared by `usage` runs: its statement, its statement list, its subflow, or the
        action its type names (performed in an executor of its own)."""
        scope = owner.members.get(usage.name or "", owner) if usage.name else owner
        performs: Element | None = None
        if usage.types:
            performs = lookup(self.model, owner, usage.types[0])
        elif usage.performed and usage.references:
            # `perform action a references B::b;` / `perform action run ::> target.go;` performs the
            # action the reference reaches (a chain through the features' types)
            performs = performed_action(self.model, owner, usage.references[0])
        attributes: list[Attribute] = []
        statements: list[s.Member] = []
        own = usage.members
        if usage.action_body is not None and not isinstance(usage.action_body, s.Terminate):
            statements.append(usage.action_body)
        bindings, outputs, features = parameter_bindings(self.model, performs, own, owner.path)
        attributes.extend(attribute_of(m) for m in features)
        terminate = isinstance(usage.action_body, s.Terminate) and usage.action_body.target is None
        flow: ActionGraph | None = None
        rest = tuple(m for m in own if not is_feature(m))
        if states_a_flow(rest) or (performs is None and any(is_substep(m) for m in rest)):
            flow = self.action_graph(scope, rest, usage.name or "")
        else:
            statements.extend(rest)
        return Body(tuple(attributes), tuple(statements), flow, performs, bindings, terminate, scope, outputs)


def performed_action(model: Model, scope: Element, reference: str) -> Element | None:
    """The action a `perform ... ::> a.b` performs: the end of the chain, or (an action usage with
    nothing of its own) the action it is typed by."""
    head, *chain = reference.split(".")
    el = lookup(model, scope, head)
    for part in chain:
        el = member_of(model, el, part) if el is not None else None
    if el is not None and isinstance(el.decl, s.Usage) and not el.decl.members \
            and el.decl.action_body is None and el.decl.types:
        return lookup(model, el.owner, el.decl.types[0]) or el
    return el


def multiplicity_count(model: Model, scope: Element, usage: s.Usage) -> int:
    """How many performances a step's multiplicity asks for: its lower bound, a number or the value
    of the feature it names (`action a[three]`), which must be an Integer the model states."""
    mult = usage.multiplicity
    assert mult is not None
    if mult.lower_ref is None:
        return mult.lower
    seen: set[str] = set()
    name = mult.lower_ref
    where = scope
    while True:
        feature = lookup(model, where, name)
        span = usage.span
        if feature is None:
            raise ResolveError(name, f"the multiplicity of {usage.name or 'a step'}", visible_names(model, scope),
                               scope.path, span.line, span.column, "feature")
        value = feature.decl.value if isinstance(feature.decl, s.Usage) else None
        if isinstance(value, s.Literal) and value.kind == "integer":
            return int(value.text)
        if isinstance(value, s.Name) and value.name not in seen:
            seen.add(value.name)
            name, where = value.name, feature.owner or scope
            continue
        raise LoweringError(f"the multiplicity of {usage.name or 'a step'} names '{mult.lower_ref}', "
                            "whose value is not an Integer the model states", scope.path, span.line, span.column)


def _scope(node: Node, owner: Element) -> Element:
    """Where the names of a node's body resolve."""
    return node.body.scope if node.body is not None and node.body.scope is not None else owner


def lower_action(model: Model, el: Element) -> ActionGraph:
    """The ActionGraph of an action definition or usage (its members as a flow)."""
    if not isinstance(el.decl, (s.Definition, s.Usage)):
        raise LoweringError(f"{el.qualified_name} is not an action")
    return _Lowerer(model).action_graph(el, effective_members(model, el), el.qualified_name)


def lower_block(model: Model, owner: Element, members: tuple[s.Member, ...], name: str) -> ActionGraph:
    """A block (branch or loop body) that states a flow of its own."""
    return _Lowerer(model).action_graph(owner, members, name)
