"""Behaviors to graphs: per action an immutable ActionGraph of nodes, successions and bodies.

An action's members become its flow: action usages, control nodes and statements standing at the
flow level are nodes; `first`, `then` and `succession` are edges. A node's own body is either a
statement list its token runs in one move, or (when it states successions of its own) a subflow
the token enters.
"""

from __future__ import annotations

from dataclasses import replace

from ir import syntax as s
from ir.connections import connections_of
from ir.errors import LoweringError
from ir.footprint import evaluating, expression_reads, reading, statements_footprint
from ir.graphs import ActionGraph, Attribute, Body, Edge, Footprint, Node, NodeKind
from ir.inherit import SEGMENT_BREAK, effective_members
from ir.lower.members import (
    attribute_of,
    is_feature,
    is_substep,
    parameter_bindings,
    performances,
    performed_action,
    statement_label,
    states_a_flow,
)
from ir.model import Element, Model
from ir.resolve import lookup


class _Lowerer:
    def __init__(self, model: Model) -> None:
        self.model = model
        self.aliases: dict[str, str] = {}
        self.connected: dict[str, frozenset[str]] = {}  # the graph being lowered's: see `action_graph`

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
        # `then X;` right after a succession (`first start then src; then dbl;`) continues from the
        # succession's target, as the text reads; SysML v2's grammar has no such production (a target
        # succession follows a step or a node), and the last step declared before it is no reading
        # of it: that made `dbl then dbl`, a cycle whose step never ran
        after_succession: str | None = None
        continued: list[tuple[str, int, s.Member]] = []  # a succession's target, the node `then` declares
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
                # a control node's body (`fork split { ... }`) is a step the token passing through performs
                stmts = tuple(m for m in member.members if isinstance(m, s.Statement))
                index = add(kind, member.name or member.kind, member,
                            Body(statements=stmts, scope=el) if stmts else None)
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
                previous = after_succession = None
                continue
            if isinstance(member, s.ThenMember):
                if member.target is not None:
                    if after_succession is not None:
                        pending.append((after_succession, member.target, None, False, member))
                    elif previous is not None:
                        pending.append((nodes[previous].name, member.target, None, False, member))
                    continue
                inner = member.member
                assert inner is not None
                if after_succession is not None and not is_feature(inner):
                    index = node_for(inner)
                    if index is not None:
                        continued.append((after_succession, index, member))
                        previous, after_succession = index, None
                        continue
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
                    after_succession = None
                    explicit_initial.append(member.source)
                    if member.source not in by_name and member.source == "start":
                        previous = add(NodeKind.START, "start", member)
                    else:
                        previous = by_name.get(member.source, previous)
                else:
                    pending.append((member.source, member.target, member.guard, False, member))
                    after_succession = member.target
                continue
            if isinstance(member, s.SuccessionMember):
                pending.append((member.source, member.target, member.guard, False, member))
                after_succession = member.target
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
                previous, after_succession = index, None

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
        for source, dst, decl in continued:
            edges.append(Edge(resolve_node(source, decl, "source"), dst, decl=decl))
        for f in flows:
            # a succession flow is a succession too: its target starts after its source ends
            src_name, dst_name = f.source.split(".", 1)[0], f.target.split(".", 1)[0]
            if f.succession and src_name in by_name and dst_name in by_name:
                src, dst = by_name[src_name], by_name[dst_name]
                if not any(e.source == src and e.target == dst for e in edges):
                    edges.append(Edge(src, dst, decl=f))

        for edge in edges:
            _check_repeated_ends(edge, nodes, el)
        _check_control_nodes(edges, nodes, el)

        # The flow's start first (the one `first X;` names, else every start node), then the steps no
        # succession reaches, which start with it: a `first`-rooted flow is one more part of the
        # performance, beside them (the oracle's "Subactions no succession orders").
        targets = {e.target for e in edges}
        untargeted = [n for n in nodes if n.index not in targets and n.kind is not NodeKind.DONE]
        initial = [by_name[label] for label in explicit_initial] \
            or [n.index for n in untargeted if n.kind is NodeKind.START]
        initial += [n.index for n in untargeted if n.kind is not NodeKind.START and n.index not in initial]
        local = {a.name for a in attributes}
        aliases: dict[str, str] = {}
        for a in attributes:
            if isinstance(a.decl, s.Usage):
                if a.decl.short_name:
                    aliases[a.decl.short_name] = a.name
                for redefined in a.decl.redefines:
                    aliases.setdefault(redefined.rsplit("::", 1)[-1], a.name)
        self.aliases = aliases
        # Flows and bindings deliver between nodes outside any statement: every move of a node they connect
        # (its start shot taking what was delivered or reading a bound feature, a write streaming on, its end
        # handing over or writing back) touches every node and feature they connect it to. A deeper end
        # (`leg.inner.w`) names its outermost node, and the touch is that node's whole.
        connected: dict[str, set[str]] = {}
        for ends in [(f.source, f.target) for f in flows] + [(b.left, b.right) for b in binds]:
            heads = {end.split(".", 1)[0] for end in ends}
            for end in ends:
                if "." in end or end in by_name:
                    connected.setdefault(end.split(".", 1)[0], set()).update(heads)
        self.connected = {node: frozenset(names) for node, names in connected.items()}
        with_footprints = tuple(
            Node(n.index, n.kind, n.name, n.decl, n.body, n.multiplicity,
                 self.footprint(n, nodes, edges, name, local, _scope(n, el)),
                 self.footprint(n, nodes, edges, name, local, _scope(n, el), start=True)
                 if n.starts_with_a_shot() and not n.footprint.dynamic else None)
            for n in nodes)
        return ActionGraph(name, el, tuple(attributes), with_footprints, tuple(edges), tuple(initial),
                           tuple(flows), tuple(binds), connections_of((*flows, *binds), by_name))

    def footprint(self, node: Node, nodes: list[Node], edges: list[Edge], owner: str,
                  local: set[str], scope_el: Element | None = None, start: bool = False) -> Footprint[int]:
        """One move of `node`: its body, the guards of its outgoing successions, the joins and merges it
        reaches (a join's firing is the move of a token standing at it: engines/runtime/actions/footprints.py);
        `start`, its start shot alone: what its features' initial values read."""
        body = node.body
        fp: Footprint[int] = Footprint(dynamic=node.footprint.dynamic or (body is not None and body.terminate))
        if start:
            assert body is not None
            for attr in body.attributes:
                fp = fp | evaluating(attr.value)
            fp = fp.without({a.name for a in body.attributes})
            edges = []  # the shot follows no succession: the token stays at its node
        elif body is not None:
            fp = fp | statements_footprint(body.statements)
            for attr in body.attributes:
                fp = fp | reading(attr.value)
            for _, expr in body.bindings:
                fp = fp | reading(expr)
            for _, expr in body.outputs:
                fp = fp | Footprint(writes=frozenset(expression_reads(expr)))
            if body.flow is not None:
                for inner in body.flow.nodes:
                    # the subflow's joins are nodes of its own graph, not of this one
                    fp = fp | replace(inner.footprint, control=frozenset())
            if body.performs is not None:
                fp = fp | Footprint(dynamic=True)  # what another action's executor touches is not read off here
            fp = fp.without({a.name for a in body.attributes})
        if body is not None and (body.attributes or body.flow is not None or fp.accepts):
            stepped = lookup(self.model, scope_el, node.name) \
                if node.kind is NodeKind.ACTION and node.name and scope_el is not None else None
            if stepped is not None and stepped.decl is node.decl:
                # a step holding features (its own, a payload, its subflow's nodes') is what a path through
                # its name reads (`sense.level`, the latest performance's): every move of it writes it
                fp = fp | Footprint(writes=frozenset({stepped.qualified_name}))
        touched = self.connected.get(node.name) if node.name else None
        if touched:
            fp = fp | Footprint(reads=touched, writes=touched)
        for e in edges:
            if e.source == node.index:
                fp = fp | reading(e.guard)
                target = nodes[e.target]
                incoming = sum(1 for x in edges if x.target == e.target)
                if target.kind is NodeKind.JOIN:
                    fp = fp | Footprint(arrivals=frozenset({(e.target, node.index)}))
                elif target.kind is NodeKind.MERGE or incoming > 1:
                    fp = fp | Footprint(control=frozenset({e.target}))

        def qualify(names: frozenset[str]) -> frozenset[str]:
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

        return replace(fp, reads=qualify(fp.reads), writes=qualify(fp.writes))

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
        if isinstance(usage.action_body, s.Accept) and rest:
            # `action rx accept v : T { ... }`: the body runs once the message is taken, as a step the
            # accept precedes (the payload is the accept's feature, visible to the body by its name)
            after = s.Usage(usage.span, "action", None, members=rest, has_body=True)
            flow = self.action_graph(scope, (usage.action_body, s.ThenMember(usage.span, None, after)),
                                     usage.name or "")
            return Body(tuple(attributes), (), flow, performs, bindings, terminate, scope, outputs)
        if states_a_flow(rest) or (performs is None and any(is_substep(m) for m in rest)):
            flow = self.action_graph(scope, rest, usage.name or "")
        else:
            statements.extend(rest)
        return Body(tuple(attributes), tuple(statements), flow, performs, bindings, terminate, scope, outputs)


def _check_repeated_ends(edge: Edge, nodes: list[Node], el: Element) -> None:
    """A succession between a repeated step and another step (not the action's start or done) must
    write the repeated step's end (`succession first [*] pack then [1] seal;`, `then [3] pack;`). KerML
    leaves an unwritten end open (KERML-29): read as [1..1] the succession cannot hold for a step of
    several performances, read as [0..*] it orders nothing; the oracle refuses it, and so do we."""
    decl = edge.decl
    if isinstance(decl, s.ThenMember):
        ends: tuple[s.Multiplicity | None, s.Multiplicity | None] = (None, decl.multiplicity)
    elif isinstance(decl, (s.FirstMember, s.SuccessionMember)):
        ends = decl.ends
    else:
        return  # a flow's, a decision's branch: not a written succession between two steps
    steps = (NodeKind.ACTION, NodeKind.STATEMENT)
    source, target = nodes[edge.source], nodes[edge.target]
    for node, end, other, side in ((source, ends[0], target, "source"), (target, ends[1], source, "target")):
        if node.multiplicity > 1 and end is None and node.kind is NodeKind.ACTION and other.kind in steps:
            first, then = (f"[*] {source.name}", f"[1] {target.name}") if side == "source" \
                else (f"[1] {source.name}", f"[*] {target.name}")
            raise LoweringError(
                f"action-step-order-unsatisfiable: the succession from {source.name} to {target.name} writes no"
                f" multiplicity at the end of {node.name}, a step of {node.multiplicity} performances; KerML"
                f" leaves that end open (KERML-29): read as [1..1] it cannot hold, read as [0..*] it orders"
                f" nothing. Write the ends: succession first {first} then {then};",
                el.path, decl.span.line, decl.span.column)


# SysML v2's control nodes that gather or pick (JoinNode, MergeNode) have one succession out at most, and
# those that split or choose (ForkNode, DecisionNode) one in at most: the constraints the spec states on
# each, checked as the flow is lowered (a join or merge with two ways out would be a fork in disguise; a
# fork or decision with two ways in, a join in disguise)
_AT_MOST_ONE = {NodeKind.JOIN: ("join", "outgoing", "follow the join with a fork or a decision to branch"),
                NodeKind.MERGE: ("merge", "outgoing", "follow the merge with a fork or a decision to branch"),
                NodeKind.FORK: ("fork", "incoming", "join or merge the successions before the fork"),
                NodeKind.DECIDE: ("decision", "incoming", "merge the successions before the decision")}


def _check_control_nodes(edges: list[Edge], nodes: list[Node], el: Element) -> None:
    for node in nodes:
        rule = _AT_MOST_ONE.get(node.kind)
        if rule is None:
            continue
        kind, side, fix = rule
        ways = [e for e in edges if (e.source if side == "outgoing" else e.target) == node.index]
        if len(ways) > 1:
            decl = ways[1].decl
            line, column = (decl.span.line, decl.span.column) if decl is not None else (0, 0)
            raise LoweringError(
                f"action-control-node-successions: {kind} {node.name} has {len(ways)} {side} successions;"
                f" a {kind} node has at most one (SysML v2); {fix}", el.path, line, column)


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
