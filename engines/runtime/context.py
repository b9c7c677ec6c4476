"""Program (shared, derived from the model once) and Context (one run: objects, bus, clock, trace)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from engines.errors import StepBudgetExceeded, UnknownBehaviorError
from engines.runtime.journal import Journal, current_epoch
from engines.runtime.objects import action_on, find_part, performer_for
from engines.runtime.schedule import Scheduler, make_scheduler
from engines.runtime.trace import Trace
from engines.runtime.types import TypeRule
from engines.runtime.values import ObjectRef, Signal, Value
from ir import syntax as s
from ir.connections import Connection, connections_of, node_names
from ir.graphs import ActionGraph, Node
from ir.inherit import effective_members, merge
from ir.lower import lower_action, lower_block
from ir.model import Element, Model
from ir.resolve import lookup, member_of

if TYPE_CHECKING:
    from engines.runtime.actions import Run

DEFAULT_MAX_STEPS = 10_000
# The terminate a terminate action usage performs after (or before) its body's statements.
IMPLICIT_TERMINATE = s.Terminate(s.NO_SPAN, "$implicit")
MAX_STEPS_VARIABLE = "OPENSYSML_MAX_ACTION_STEPS"


@dataclass
class Instance:
    """An object of the run: what it is an instance of and the values of its features."""

    id: int
    type_name: str
    name: str
    values: dict[str, Value] = field(default_factory=dict)
    born: int = field(default_factory=current_epoch)  # see engines/runtime/journal.py


@dataclass
class Message:
    """A message on the bus: its payload, who it is addressed to (a node or receiver name), who sent it."""

    payload: Value
    to: str | None
    sender: int


class Clock:
    """The one virtual clock of a run: time only moves when nothing else can."""

    def __init__(self) -> None:
        self.now = Fraction(0)

    def now_value(self) -> Fraction:
        return self.now

    def advance_to(self, instant: Fraction) -> None:
        if instant > self.now:
            self.now = instant


class Program:
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
                from dataclasses import replace

                from ir.graphs import Node as GraphNode
                from ir.graphs import NodeKind

                implicit = GraphNode(len(base.nodes), NodeKind.STATEMENT, "terminate", IMPLICIT_TERMINATE)
                graph = replace(base, nodes=(*base.nodes, implicit), initial=(*base.initial, implicit.index))
            self._statement_flows[id(node)] = graph
        return graph

    def sequence_flow(self, owner: Element, block: s.Block, label: str) -> ActionGraph:
        """A branch's or loop body's statements as performances one after the other (a fine run's moves)."""
        graph = self._blocks.get(-id(block))
        if graph is None:
            from dataclasses import replace

            from ir.graphs import Edge

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
            from dataclasses import replace

            nodes = performed.nodes + tuple(replace(n, index=n.index + offset) for n in own.nodes)
            edges = performed.edges + tuple(replace(e, source=e.source + offset, target=e.target + offset)
                                            for e in own.edges)
            initial = performed.initial + tuple(i + offset for i in own.initial)
            graph = ActionGraph(node.name, body.performs, performed.attributes, nodes, edges, initial,
                                performed.flows, performed.binds, performed.connections)
            self._statement_flows[-id(node)] = graph
        return graph

    def start_action(self, name: str, performer: str | None = None, schedule: str = "reverse",
                     max_steps: int | None = None, fine: bool = False) -> Run:
        """A stepping run of the action, ready for its first step (or, fine, its first move); with a
        performer, on that part usage (which must perform the action, see engines/runtime/objects.py)."""
        from engines.runtime.actions import Run

        performed = action_on(self.model, name, performer) if performer is not None else None
        el = performed or self.action(name)
        part = performer_for(self.model, el, performer)
        ctx = Context(self, make_scheduler(schedule), max_steps)
        return Run(ctx, el, part.qualified_name if part is not None else None, fine=fine)


class Context:
    """The run-derived state: tokens live in the flows, everything else here. Cheap to create."""

    def __init__(self, program: Program, scheduler: Scheduler, max_steps: int | None = None) -> None:
        self.program = program
        self.scheduler = scheduler
        self.trace = Trace()
        self.journal = Journal()  # what snapshots of the run roll back: every change goes through `touch`
        self.objects: dict[int, Instance] = {}
        self.usage_objects: dict[str, ObjectRef] = {}
        self.clocks: set[int] = set()
        self.clock = Clock()
        self.bus: list[Message] = []
        self.next_object_id = 1
        self.next_token_id = 1
        env = os.environ.get(MAX_STEPS_VARIABLE, "")
        self.max_steps = max_steps or (int(env) if env.isdigit() else DEFAULT_MAX_STEPS)
        self.steps_spent = 0

    def charge_step(self) -> None:
        """One unit of the run's step budget: a token move or a loop iteration."""
        self.steps_spent += 1
        if self.steps_spent > self.max_steps:
            raise StepBudgetExceeded(
                f"step limit exceeded: the run spent its {self.max_steps} steps (raise {MAX_STEPS_VARIABLE} "
                "to allow more); a loop that never ends?")

    def new_token_id(self) -> int:
        token = self.next_token_id
        self.next_token_id += 1
        return token

    def materialize(self, name: str, type_name: str, values: dict[str, Value] | None = None) -> ObjectRef:
        oid = self.next_object_id
        self.next_object_id += 1
        self.journal.touch(self.objects)
        self.objects[oid] = Instance(oid, type_name, name, dict(values or {}))
        self.trace.flush_left(f"materialize: {name} #{oid}")
        return ObjectRef(oid)

    def object_for_usage(self, qualified_name: str, depth: int) -> ObjectRef:
        """The object a part (or item) usage denotes, materialized the first time it is read."""
        ref = self.usage_objects.get(qualified_name)
        if ref is not None:
            return ref
        el = self.program.model.element(qualified_name)
        short = qualified_name.rsplit("::", 1)[-1]
        values: dict[str, Value] = {}
        type_name = ""
        if el is not None and isinstance(el.decl, s.Usage) and el.decl.types:
            type_name = el.decl.types[0]
        ref = self.materialize(short, type_name, values)
        self.journal.touch(self.usage_objects)
        self.usage_objects[qualified_name] = ref
        if qualified_name == "Time::universalClock":
            self.journal.touch(self.clocks)
            self.clocks.add(ref.id)
        elif el is not None:
            self._initialize_features(el, ref)
        return ref

    def _initialize_features(self, el: Element, ref: ObjectRef) -> None:
        self.objects[ref.id].values.update(self.feature_values(el))

    def feature_values(self, el: Element) -> dict[str, Value]:
        """The values a part usage's object starts with: its definition's features, then its own."""
        from engines.runtime.evaluate import Evaluator, Frame
        from engines.runtime.values import UNSET

        definition = None
        if isinstance(el.decl, s.Usage) and el.decl.types:
            definition = lookup(self.program.model, el.owner, el.decl.types[0])
        values: dict[str, Value] = {}
        evaluator = Evaluator(self)
        sources = [d for d in (definition, el) if d is not None]
        for source in sources:
            for member in source.members.values():
                decl = member.decl
                if isinstance(decl, s.Usage) and decl.kind in ("attribute", "feature"):
                    frame = Frame(source.qualified_name, source)
                    if decl.value is not None:
                        with self.trace.quiet():
                            values[member.name] = evaluator.eval(decl.value, frame, 0)
                    elif member.name not in values:
                        values[member.name] = UNSET
        return values

    def new_signal(self, type_name: str, frame: object) -> Value:
        return Signal(type_name)
