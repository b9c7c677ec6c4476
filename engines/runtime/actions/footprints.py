"""What a token's next move, and all it may still do, can touch: the lowered footprints of the nodes
it stands at and can reach, with control nodes named by graph so two graphs' never collide."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir.graphs import ActionGraph, Footprint, NodeKind

if TYPE_CHECKING:
    from engines.runtime.actions.tokens import Token

Place = tuple[tuple[int, ...], ...]
# A footprint with control nodes named by graph (Footprint.placed), so reaches of two graphs never collide.
Placed = Footprint[tuple[int, int]]


def place(token: Token) -> Place:
    """Where a token stands: its node and those of the tokens that entered its flows (what names a
    move across states, whatever the tokens are numbered)."""
    flow = token.flow
    parent = flow.parent_token
    # a loop's token between two passes stands at a place of its own, as the flat form's does: its next
    # move is not its first test's (two performances of one node may stand at both at once)
    own = (id(flow.graph), token.node) if token.loop is None else (id(flow.graph), token.node, 1)
    if parent is None:
        return (own,)
    where: list[tuple[int, ...]] = [own]
    while parent is not None:
        where.append((id(parent.flow.graph), parent.node))
        parent = parent.flow.parent_token
    return tuple(where)


class Footprints:
    """Per place a token can stand at, what its next move and its future touch; per node, what it and
    the nodes after it touch: each computed once, at the place's first sight (the graphs are shared
    and immutable)."""

    def __init__(self) -> None:
        self._reachable: dict[tuple[int, int], Placed] = {}
        self._by_place: dict[Place, tuple[Placed, Placed]] = {}

    def at(self, token: Token, where: Place) -> tuple[Placed, Placed]:
        """(the token's next move, everything it may still do), as first seen at its place."""
        done = self._by_place.get(where)
        if done is None:
            done = self._by_place[where] = (self._now(token), self._future(token))
        return done

    def _now(self, token: Token) -> Placed:
        """The token's next move, with what leaving its enclosing nodes may do after it."""
        return touch_now(token.flow.graph, token.node, token.body is None and token.inside is None,
                         _parents(token))

    def _future(self, token: Token) -> Placed:
        """Everything the token may still do: its node and those after it, here and around it."""
        return self.future_from(token.flow.graph, token.node, _parents(token))

    def future_from(self, graph: ActionGraph, node: int, parents: list[tuple[ActionGraph, int]]) -> Placed:
        """Everything a token at `node` of `graph` may still do, inside the nodes `parents` (innermost
        first) its flows were entered at."""
        touch = self._reach(graph, node)
        for outer, at in parents:
            touch = touch | self._reach(outer, at)
        return touch

    def _reach(self, graph: ActionGraph, start: int) -> Placed:
        key = (id(graph), start)
        done = self._reachable.get(key)
        if done is not None:
            return done
        touch: Placed = Footprint()
        seen = {start}
        todo = [start]
        while todo:
            index = todo.pop()
            touch = touch | graph.nodes[index].footprint.placed(id(graph))
            for edge in graph.outgoing(index):
                if edge.target not in seen:
                    seen.add(edge.target)
                    todo.append(edge.target)
        self._reachable[key] = touch
        return touch


def _parents(token: Token) -> list[tuple[ActionGraph, int]]:
    """The graphs and nodes whose subflows the token stands inside, innermost first."""
    out = []
    parent = token.flow.parent_token
    while parent is not None:
        out.append((parent.flow.graph, parent.node))
        parent = parent.flow.parent_token
    return out


def touch_now(graph: ActionGraph, index: int, fresh: bool, parents: list[tuple[ActionGraph, int]]) -> Placed:
    """What the next move of a token at node `index` of `graph` touches, with what leaving the nodes
    `parents` (innermost first) may do after it; `fresh`: its body is not begun (nor entered)."""
    node = graph.nodes[index]
    # a token standing before a body's start shot moves only that shot (Body.starts_with_a_shot)
    shot = node.start_footprint if fresh else None
    touch = (shot if shot is not None else node.footprint).placed(id(graph))
    if node.kind is NodeKind.JOIN:
        # a token waiting at a join moves only to fire it; the firing is no part of any token's
        # future: it needs every awaited arrival, so it cannot come before the arrival it
        # conflicts with unless another token arrives from that source (Footprint.arrivals)
        touch = touch | Footprint(control=frozenset({(id(graph), index)}))
    for outer, at in parents:
        touch = touch | outer.nodes[at].footprint.placed(id(outer))
    return touch
