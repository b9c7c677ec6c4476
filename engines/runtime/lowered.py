"""What every behavior over one model shares: the model and the graphs lowered from it (once each)."""

from __future__ import annotations

from dataclasses import replace

from engines.errors import UnknownBehaviorError
from engines.runtime.objects import find_part
from engines.runtime.types import TypeRule
from ir import syntax as s
from ir.connections import Connection, connections_of, node_names
from ir.graphs import ActionGraph, Edge, Node, NodeKind
from ir.inherit import effective_members, merge
from ir.lower import lower_action, lower_block
from ir.model import Element, Model
from ir.resolve import member_of

# The terminate a terminate action usage performs after (or before) its body's statements.
IMPLICIT_TERMINATE = s.Terminate(s.NO_SPAN, "$implicit")


class LoweredModel:
    """What every run over one model shares: the model and the graphs lowered from it (once each)."""

    def __init__(self, model: Model) -> None:
        self.model = model
        self._graphs: dict[str, ActionGraph] = {}
        self._blocks: dict[int, ActionGraph] = {}
        self._statement_flows: dict[int, ActionGraph] = {}
        self._connections: dict[int, tuple[Connection, ...]] = {}
        self.type_rules: dict[tuple[int, str], TypeRule | None] = {}  # engines.runtime.types, per scope
        self._constant: dict[tuple[int, str], bool] = {}

    def is_constant(self, scope: Element | None, name: str) -> bool:
        """Whether the feature `name` of `scope` (its own or inherited) is declared `constant`."""
        if scope is None:
            return False
        key = (id(scope), name)
        known = self._constant.get(key)
        if known is None:
            feature = member_of(self.model, scope, name)
            known = feature is not None and isinstance(feature.decl, s.Usage) and feature.decl.constant
            self._constant[key] = known
        return known

    def action(self, name: str) -> Element:
        """The action a modeler named: qualified, or unqualified when only one action has that name."""
        el = self.model.element(name)
        if el is not None and el.base_kind == "action":
            return el
        actions = self.model.behaviors("action")
        matches = [q for q in actions if q.rsplit("::", 1)[-1] == name]
        if len(matches) == 1:
            found = self.model.element(matches[0])
            assert found is not None
            return found
        raise UnknownBehaviorError(name, "action", actions)

    def performer(self, name: str) -> Element:
        """The object (a part usage) that performs a run: qualified, or unqualified when unique."""
        return find_part(self.model, name)

    def graph(self, el: Element) -> ActionGraph:
        graph = self._graphs.get(el.qualified_name)
        if graph is None:
            graph = lower_action(self.model, el)
            self._graphs[el.qualified_name] = graph
        return graph

    def block_graph(self, owner: Element, block: s.Block, label: str) -> ActionGraph:
        key = id(block)
        graph = self._blocks.get(key)
        if graph is None:
            graph = lower_block(self.model, owner, block.members, label)
            self._blocks[key] = graph
        return graph

    def block_connections(self, block: s.Block) -> tuple[Connection, ...]:
        """The flows and bindings a branch or loop body run as statements declares."""
        found = self._connections.get(id(block))
        if found is None:
            found = self._connections[id(block)] = connections_of(block.members, node_names(block.members))
        return found

    def statement_flow(self, node: Node) -> ActionGraph:
        """A node's direct statements as a flow of unordered performances (what a fine run moves); a
        terminate action usage adds its implicit terminate, unordered with them."""
        graph = self._statement_flows.get(id(node))
        if graph is None:
            assert node.body is not None and node.body.scope is not None
            members = tuple(node.body.statements)
            if node.body.flow is not None:
                members = ()
            base = node.body.flow if node.body.flow is not None else lower_block(
                self.model, node.body.scope, members, node.name)
            graph = base
            if node.body.terminate:
                implicit = Node(len(base.nodes), NodeKind.STATEMENT, "terminate", IMPLICIT_TERMINATE)
                graph = replace(base, nodes=(*base.nodes, implicit), initial=(*base.initial, implicit.index))
            self._statement_flows[id(node)] = graph
        return graph

    def sequence_flow(self, owner: Element, block: s.Block, label: str) -> ActionGraph:
        """A branch's or loop body's statements as performances one after the other (a fine run's moves)."""
        graph = self._blocks.get(-id(block))
        if graph is None:
            graph = lower_block(self.model, owner, block.members, label)
            if not graph.edges and len(graph.nodes) > 1:
                chain = tuple(Edge(i, i + 1) for i in range(len(graph.nodes) - 1))
                graph = replace(graph, edges=chain, initial=(0,))
            self._blocks[-id(block)] = graph
        return graph

    def merged_flow(self, node: Node) -> ActionGraph:
        """The flow of a typed usage stating statements of its own: the performed action's flow, and
        the usage's statements as performances no succession orders, each starting with it."""
        graph = self._statement_flows.get(-id(node))
        if graph is None:
            body = node.body
            assert body is not None and body.performs is not None
            if any(isinstance(m, s.Usage) and m.redefines for m in body.statements):
                # Its own steps redefine some of the performed action's: one flow of the merged members.
                members = merge(list(effective_members(self.model, body.performs)), tuple(body.statements),
                                body.performs)
                graph = lower_block(self.model, body.performs, members, node.name)
                self._statement_flows[-id(node)] = graph
                return graph
            performed = self.graph(body.performs)
            own = lower_block(self.model, body.performs, tuple(body.statements), node.name)
            offset = len(performed.nodes)
            nodes = performed.nodes + tuple(replace(n, index=n.index + offset) for n in own.nodes)
            edges = performed.edges + tuple(replace(e, source=e.source + offset, target=e.target + offset)
                                            for e in own.edges)
            initial = performed.initial + tuple(i + offset for i in own.initial)
            graph = ActionGraph(node.name, body.performs, performed.attributes, nodes, edges, initial,
                                performed.flows, performed.binds, performed.connections)
            self._statement_flows[-id(node)] = graph
        return graph
