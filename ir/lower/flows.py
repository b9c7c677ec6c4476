"""Every graph a run over one model enters, lowered once each and kept: an action's flow, a block's,
and the flows a fine run performs a node's parts in (the statements of a node body, a branch or a
loop pass unordered but for declarations, a typed usage's own statements beside the action it
performs).

The runtime asks for these by node or block and enters them as they are: it builds no graph itself.
They are made on first request, not with the action's graph, so an action that performs itself
lowers once and a statement list no run reaches is never lowered.
"""

from __future__ import annotations

from dataclasses import replace

from ir import syntax as s
from ir.graphs import ActionGraph, Edge, Node, NodeKind
from ir.inherit import effective_members, merge
from ir.lower.actions import lower_action, lower_block
from ir.lower.members import declares
from ir.model import Element, Model

# The features a machine's frame holds (its states and transitions are no action flow).
FEATURE_KINDS = ("attribute", "feature", "item", "ref", "part", "port", "occurrence")

# The terminate a terminate action usage performs after (or before) its body's statements.
IMPLICIT_TERMINATE = s.Terminate(s.NO_SPAN, "$implicit")


class ModelGraphs:
    """The graphs of one model's behaviors, each lowered on first request and shared by every run."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._graphs: dict[str, ActionGraph] = {}
        self._blocks: dict[int, ActionGraph] = {}
        # the blocks keyed by id above, held so that no id is reused by a later block while cached
        self._held: list[s.Block] = []
        self._member_blocks: dict[tuple[int, ...], s.Block] = {}
        self._statement_flows: dict[int, ActionGraph] = {}

    def graph(self, el: Element) -> ActionGraph:
        """The flow of an action definition or usage."""
        graph = self._graphs.get(el.qualified_name)
        if graph is None:
            graph = lower_action(self.model, el)
            self._graphs[el.qualified_name] = graph
        return graph

    def hold_features(self, element: Element) -> ActionGraph:
        """The graph a machine's host run starts from, kept as the element's graph: lowered from its
        features alone, so the run's frame holds them (its states and transitions are no action flow)."""
        graph = self._graphs.get(element.qualified_name)
        if graph is None:
            members = tuple(m for m in effective_members(self.model, element, ("action", "state"))
                            if isinstance(m, s.Usage) and m.kind in FEATURE_KINDS)
            graph = lower_block(self.model, element, members, element.name)
            self._graphs[element.qualified_name] = graph
        return graph

    def members_block(self, members: tuple[s.Member, ...]) -> s.Block:
        """The one block of a member list a caller builds anew on each request (a machine behavior's
        flow), keyed by its members, so its flow is lowered once."""
        key = tuple(id(m) for m in members)
        block = self._member_blocks.get(key)
        if block is None:
            block = self._member_blocks[key] = s.Block(members, s.NO_SPAN)
        return block

    def block_graph(self, owner: Element, block: s.Block, label: str) -> ActionGraph:
        """A block that states a flow of its own (or a case's steps), as written."""
        key = id(block)
        graph = self._blocks.get(key)
        if graph is None:
            graph = lower_block(self.model, owner, block.members, label)
            self._blocks[key] = graph
            self._held.append(block)
        return graph

    def statement_flow(self, node: Node) -> ActionGraph:
        """A node's direct statements as a flow of unordered performances (what a fine run moves); a
        terminate action usage adds its implicit terminate, unordered with them."""
        graph = self._statement_flows.get(id(node))
        if graph is None:
            assert node.body is not None and node.body.scope is not None
            members = tuple(node.body.statements)
            if node.body.flow is not None:
                members = ()
            base = node.body.flow if node.body.flow is not None else _declarations_keep_their_place(
                lower_block(self.model, node.body.scope, members, node.name))
            graph = base
            if node.body.terminate:
                implicit = Node(len(base.nodes), NodeKind.STATEMENT, "terminate", IMPLICIT_TERMINATE)
                graph = replace(base, nodes=(*base.nodes, implicit), initial=(*base.initial, implicit.index))
            self._statement_flows[id(node)] = graph
        return graph

    def clause_flow(self, owner: Element, block: s.Block, label: str) -> ActionGraph:
        """A branch's or loop pass's statements as a fine run moves them: unordered performances, as a
        node body's are, but for the declarations, which keep their place (a block stating a flow of
        its own keeps its successions)."""
        graph = self._blocks.get(-id(block))
        if graph is None:
            graph = _declarations_keep_their_place(lower_block(self.model, owner, block.members, label))
            self._blocks[-id(block)] = graph
            self._held.append(block)
        return graph

    def merged_flow(self, node: Node) -> ActionGraph:
        """The flow of a typed usage stating statements of its own: the performed action's flow, and
        the usage's statements as performances no succession orders, each starting with it."""
        body = node.body
        assert body is not None and body.performs is not None
        return self._beside(-id(node), body.performs, tuple(body.statements), node.name)

    def typed_usage_flow(self, usage: s.Usage, performs: Element, statements: tuple[s.Member, ...],
                         label: str) -> ActionGraph:
        """The same flow for a typed usage written among a body's statements (`if c { action a : A {
        in x = 3; assign y := y + 1; } }`): what it performs, beside its own statements."""
        return self._beside(id(usage), performs, statements, label)

    def _beside(self, key: int, performs: Element, statements: tuple[s.Member, ...], label: str) -> ActionGraph:
        graph = self._statement_flows.get(key)
        if graph is None:
            if any(isinstance(m, s.Usage) and m.redefines for m in statements):
                # Its own steps redefine some of the performed action's: one flow of the merged members.
                members = merge(list(effective_members(self.model, performs)), statements, performs)
                graph = lower_block(self.model, performs, members, label)
                self._statement_flows[key] = graph
                return graph
            performed = self.graph(performs)
            own = lower_block(self.model, performs, statements, label)
            offset = len(performed.nodes)
            nodes = performed.nodes + tuple(replace(n, index=n.index + offset) for n in own.nodes)
            edges = performed.edges + tuple(replace(e, source=e.source + offset, target=e.target + offset)
                                            for e in own.edges)
            initial = performed.initial + tuple(i + offset for i in own.initial)
            graph = ActionGraph(label, performs, performed.attributes, nodes, edges, initial,
                                performed.flows, performed.binds, performed.connections)
            self._statement_flows[key] = graph
        return graph


def _declares(node: Node) -> bool:
    """Whether a node of a body is a statement the ones written after it read (`declares`)."""
    return node.kind is NodeKind.ACTION or (node.decl is not None and declares(node.decl))


def _declarations_keep_their_place(graph: ActionGraph) -> ActionGraph:
    """The statements of a body no succession orders are performed in an open order, but a declaration
    keeps its place (the oracle's "Direct statements of one body ..."): whatever is written after it
    starts once it has ended. What is written before it stays unordered with it, as a calc usage is
    with the assignment before it (`action_explore_statement_order_calc`)."""
    if graph.edges or not any(_declares(n) for n in graph.nodes):
        return graph
    edges: list[Edge] = []
    last: int | None = None
    for node in graph.nodes:
        if last is not None:
            edges.append(Edge(last, node.index))
        if _declares(node):
            last = node.index
    targets = {e.target for e in edges}
    return replace(graph, edges=tuple(edges), initial=tuple(i for i in graph.initial if i not in targets))
