"""What a token's next move, and all it may still do, can touch: the lowered footprints of the nodes
it stands at and can reach, with control nodes named by graph so two graphs' never collide."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir.graphs import ActionGraph, Footprint, NodeKind

if TYPE_CHECKING:
    from engines.runtime.actions.tokens import Token

Place = tuple[tuple[int, int], ...]
# A footprint with control nodes named by graph (Footprint.placed), so reaches of two graphs never collide.
Placed = Footprint[tuple[int, int]]


def place(token: Token) -> Place:
    """Where a token stands: its node and those of the tokens that entered its flows (what names a
    move across states, whatever the tokens are numbered)."""
    flow = token.flow
    parent = flow.parent_token
    if parent is None:
        return ((id(flow.graph), token.node),)
    where = [(id(flow.graph), token.node)]
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
        node = token.flow.graph.nodes[token.node]
        # a token standing before a body's start shot moves only that shot (Body.starts_with_a_shot)
        shot = node.start_footprint if token.body is None and token.inside is None else None
        touch = (shot if shot is not None else node.footprint).placed(id(token.flow.graph))
        if node.kind is NodeKind.JOIN:
            # a token waiting at a join moves only to fire it; the firing is no part of any token's
            # future: it needs every awaited arrival, so it cannot come before the arrival it
            # conflicts with unless another token arrives from that source (Footprint.arrivals)
            touch = touch | Footprint(control=frozenset({(id(token.flow.graph), token.node)}))
        parent = token.flow.parent_token
        while parent is not None:
            touch = touch | parent.flow.graph.nodes[parent.node].footprint.placed(id(parent.flow.graph))
            parent = parent.flow.parent_token
        return touch

    def _future(self, token: Token) -> Placed:
        """Everything the token may still do: its node and those after it, here and around it."""
        touch = self._reach(token.flow.graph, token.node)
        parent = token.flow.parent_token
        while parent is not None:
            touch = touch | self._reach(parent.flow.graph, parent.node)
            parent = parent.flow.parent_token
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
