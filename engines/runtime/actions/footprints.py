"""What a token's next move, and all it may still do, can touch: the lowered footprints of the nodes
it stands at and can reach, with control nodes named by graph so two graphs' never collide."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ir.graphs import ActionGraph, Footprint, NodeKind

if TYPE_CHECKING:
    from engines.runtime.actions.tokens import Token

# where a token stands: (graph, node) of its own node, then of the tokens that entered its flows; a token
# waiting at a join has its own as (graph, join, the node it came from) (see `awaiting`)
Place = tuple[tuple[int, ...], ...]
# A footprint with control nodes named by graph (Footprint.placed), so reaches of two graphs never collide.
Placed = Footprint[tuple[int, int]]


def place(token: Token) -> Place:
    """Where a token stands: its node and those of the tokens that entered its flows (what names a
    move across states, whatever the tokens are numbered)."""
    flow = token.flow
    parent = flow.parent_token
    own = (id(flow.graph), token.node) if token.via is None or flow.graph.nodes[token.node].kind is not NodeKind.JOIN \
        else (id(flow.graph), token.node, token.via)
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
        """Everything the token may still do: its node and those after it, here and around it (waiting at
        a join, its arrival there too: `awaiting`; before its first move at a node it joins tokens at, that
        move's joining: `joining`)."""
        graph = token.flow.graph
        future = self.future_from(graph, token.node, _parents(token))
        if token.via is not None and graph.nodes[token.node].kind is NodeKind.JOIN:
            future = future | awaiting(graph, token.node, token.via)
        elif token.body is None and token.inside is None and joining(graph, token.node):
            future = future | Footprint(control=frozenset({(id(graph), token.node)}))
        return future

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


def awaiting(graph: ActionGraph, join: int, source: int) -> Placed:
    """What a token waiting at `join`, come from `source`, stands for in its future beyond the join's
    firing: its arrival (Footprint.waits). A second token from that source arriving before the firing is
    joined with it; arriving after, it waits for the next. So while the join cannot fire yet, that second
    arrival depends on the waiting token, as two arrivals from one source do, though the firing is no part
    of any token's future: a persistent set holding the second arrival holds the waiting token too. The
    firing itself does not conflict with it (whichever waiting token fires, the join takes them all)."""
    return Footprint(waits=frozenset({(join, source)})).placed(id(graph))


def joining(graph: ActionGraph, index: int) -> bool:
    """Whether a token's first move at node `index` joins the tokens there: an action node (or a decision,
    a fork, a statement standing in the flow) that successions from several nodes reach takes every token
    there once the sources it awaits have delivered (moves.awaited), so an arrival there before that move
    is joined with it and one after it performs the node again. Unlike a join's firing, that move is part
    of the token's future as well as its next move (arrivals there reach the node: they all conflict)."""
    return index in graph.converging and graph.nodes[index].kind not in (NodeKind.JOIN, NodeKind.MERGE, NodeKind.DONE)


def touch_now(graph: ActionGraph, index: int, fresh: bool, parents: list[tuple[ActionGraph, int]]) -> Placed:
    """What the next move of a token at node `index` of `graph` touches, with what leaving the nodes
    `parents` (innermost first) may do after it; `fresh`: its body is not begun (nor entered)."""
    node = graph.nodes[index]
    # a token standing before a body's start shot moves only that shot (Body.starts_with_a_shot)
    shot = node.start_footprint if fresh else None
    touch = (shot if shot is not None else node.footprint).placed(id(graph))
    if node.kind is NodeKind.JOIN or (fresh and joining(graph, index)):
        # a token waiting at a join moves only to fire it; the firing is no part of any token's
        # future: it needs every awaited arrival, so it cannot come before the arrival it
        # conflicts with unless another token arrives from that source (Footprint.arrivals)
        touch = touch | Footprint(control=frozenset({(id(graph), index)}))
    for outer, at in parents:
        touch = touch | outer.nodes[at].footprint.placed(id(outer))
    return touch
