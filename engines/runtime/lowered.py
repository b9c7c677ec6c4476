"""What every behavior over one model shares: the model, its graphs (lowered by ir.lower) and what is read off it per scope."""

from __future__ import annotations

from engines.errors import UnknownBehaviorError
from engines.runtime.objects import find_part
from engines.runtime.types import TypeRule
from ir import syntax as s
from ir.connections import Connection, connections_of, node_names
from ir.lower.flows import ModelGraphs
from ir.model import Element, Model
from ir.resolve import member_of


class LoweredModel(ModelGraphs):
    """What every run over one model shares: the model, the graphs lowered from it (once each, by
    ir.lower: the runtime enters them as they are), and what is read off the model per scope."""

    def __init__(self, model: Model) -> None:
        super().__init__(model)
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
        return self._named(name, "action")

    def state(self, name: str) -> Element:
        """The state machine a modeler named: qualified, or unqualified when only one has that name."""
        return self._named(name, "state")

    def part(self, name: str) -> Element:
        """The part (definition or usage) a modeler named: qualified, or unqualified when unique."""
        return self._named(name, "part")

    def _named(self, name: str, kind: str) -> Element:
        el = self.model.element(name)
        if el is not None and el.base_kind == kind:
            return el
        known = self.model.behaviors(kind)
        matches = [q for q in known if q.rsplit("::", 1)[-1] == name]
        if len(matches) == 1:
            found = self.model.element(matches[0])
            assert found is not None
            return found
        raise UnknownBehaviorError(name, kind, known)

    def performer(self, name: str) -> Element:
        """The object (a part usage) that performs a run: qualified, or unqualified when unique."""
        return find_part(self.model, name)

    def block_connections(self, block: s.Block) -> tuple[Connection, ...]:
        """The flows and bindings a branch or loop body run as statements declares."""
        found = self._connections.get(id(block))
        if found is None:
            found = self._connections[id(block)] = connections_of(block.members, node_names(block.members))
        return found
