"""The frozen lowered types every run shares: an ActionGraph of nodes, successions and bodies,
and per node the Footprint of one move. Built once by `ir.lower`, never changed after."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

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
