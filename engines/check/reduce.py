"""Partial-order reduction: persistent sets over the lowered footprints.

Two moves are dependent when one writes what the other reads or writes (a body's start shot
only reads what its features' initial values read), when either sends or accepts while the other
does too, when both reach one join or merge, or when either has a dynamic target.

The message clauses, all kept whole by "either sends or accepts while the other does too": a send
may feed any accept that could receive it (which message an accept takes depends on what was sent
before it moved); two accepts that could take the same message are dependent (the one that moves
first takes it); two sends to one bus are dependent (messages queue in order and an accept takes the
oldest it matches); an accept's `when` condition is a read of the features it names. Routing
(`send ... via`, `accept ... via`, a send `to` a receiver) narrows which accepts a send can feed,
but no clause relies on it: a `via` send is dynamic. An accept node moves once, taking its message:
its move is the accept's footprint, never a body's start shot (`Node.starts_with_a_shot`).

A persistent set is grown from one token: every token whose future moves could depend on a
member's move joins it; a token that must join but cannot move now makes the set give up (all
enabled moves are taken then). Sound by construction, conservative where the footprint is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.runtime.watch import tick
from ir.graphs import ActionGraph, Footprint

if TYPE_CHECKING:
    from engines.runtime.actions import Run
    from engines.runtime.actions.tokens import Token
    from engines.runtime.schedule import Move


# A footprint with control nodes named by graph, so reaches of two graphs never collide.
Summary = Footprint[tuple[int, int]]


def dependent(a: Summary, b: Summary) -> bool:
    """Whether the order of two moves with these footprints can matter."""
    if a.dynamic or b.dynamic:
        return True
    if a.writes & (b.reads | b.writes) or b.writes & a.reads:
        return True
    if (a.sends or a.accepts) and (b.sends or b.accepts):
        return True
    return bool(a.control & b.control)


class Reducer:
    """Chooses persistent sets; caches what each node's move and its future can touch."""

    def __init__(self) -> None:
        self._future: dict[tuple[int, int], Summary] = {}
        self._by_place: dict[tuple[tuple[int, int], ...], tuple[Summary, Summary]] = {}
        self._persistent: dict[object, frozenset[int] | None] = {}
        self._dependent: dict[tuple[int, int], bool] = {}

    def dependent(self, a: Summary, b: Summary) -> bool:
        """`dependent`, remembered per pair: the summaries are made once per place and kept."""
        key = (id(a), id(b))
        known = self._dependent.get(key)
        if known is None:
            known = self._dependent[key] = dependent(a, b)
        return known

    @staticmethod
    def place(token: Token) -> tuple[tuple[int, int], ...]:
        """Where a token stands: its node and those of the tokens that entered its flows (what names
        a move across states, whatever the tokens are numbered)."""
        flow = token.flow
        parent = flow.parent_token
        if parent is None:
            return ((id(flow.graph), token.node),)
        place = [(id(flow.graph), token.node)]
        while parent is not None:
            place.append((id(parent.flow.graph), parent.node))
            parent = parent.flow.parent_token
        return tuple(place)

    def summaries(self, token: Token, place: tuple[tuple[int, int], ...] | None = None) -> tuple[Summary, Summary]:
        """(current, future) of a token, computed once per place it can stand at."""
        if place is None:
            place = self.place(token)
        done = self._by_place.get(place)
        if done is None:
            done = (self.current(token), self.future(token))
            self._by_place[place] = done
        return done

    def _reachable(self, graph: ActionGraph, start: int) -> Summary:
        key = (id(graph), start)
        done = self._future.get(key)
        if done is not None:
            return done
        summary: Summary = Footprint()
        seen = {start}
        todo = [start]
        while todo:
            index = todo.pop()
            summary = summary | graph.nodes[index].footprint.placed(id(graph))
            for edge in graph.outgoing(index):
                if edge.target not in seen:
                    seen.add(edge.target)
                    todo.append(edge.target)
        self._future[key] = summary
        return summary

    def current(self, token: Token) -> Summary:
        """The token's next move, with what leaving its enclosing nodes may do after it."""
        node = token.flow.graph.nodes[token.node]
        # a token standing before a body's start shot moves only that shot (Body.starts_with_a_shot)
        shot = node.start_footprint if token.body is None and token.inside is None else None
        summary = (shot if shot is not None else node.footprint).placed(id(token.flow.graph))
        parent = token.flow.parent_token
        while parent is not None:
            summary = summary | parent.flow.graph.nodes[parent.node].footprint.placed(id(parent.flow.graph))
            parent = parent.flow.parent_token
        return summary

    def future(self, token: Token) -> Summary:
        """Everything the token may still do: its node and those after it, here and around it."""
        summary = self._reachable(token.flow.graph, token.node)
        parent = token.flow.parent_token
        while parent is not None:
            summary = summary | self._reachable(parent.flow.graph, parent.node)
            parent = parent.flow.parent_token
        return summary

    def persistent(self, run: Run, moves: list[Move], places: list[tuple[tuple[int, int], ...]]) -> list[Move]:
        """The smallest persistent set found from any seed token, else every enabled move; `places`
        are the live tokens' places, in order."""
        enabled = {m.token for m in moves}
        if len(enabled) <= 1:
            return moves
        tokens = run.live_tokens()
        # The set depends only on where the tokens stand and which can move: computed once per such
        # situation, as positions in the token list (token numbers differ between equal situations).
        can = tuple(t.id in enabled for t in tokens)
        seeds = tuple(sorted(range(len(tokens)), key=lambda i: tokens[i].id))  # seeds are tried in token order
        key = (tuple(places), can, seeds)
        cache = self._persistent
        if key in cache:
            picked = cache[key]
        else:
            picked = cache[key] = self._grow(tokens, places, can, seeds)
        if picked is None:
            return moves
        best = {tokens[i].id for i in picked}
        return [m for m in moves if m.token in best]

    def _grow(self, tokens: list[Token], places: list[tuple[tuple[int, int], ...]], can: tuple[bool, ...],
              seeds: tuple[int, ...]) -> frozenset[int] | None:
        pairs = [self.summaries(t, p) for t, p in zip(tokens, places, strict=True)]
        count = len(tokens)
        # who must join a set holding `member`: every token whose future depends on member's move
        needs: dict[int, list[int]] = {}
        for a in range(count):
            if can[a]:
                tick()
                needs[a] = [b for b in range(count) if b != a and self.dependent(pairs[a][0], pairs[b][1])]
        best: set[int] | None = None
        for seed in (i for i in seeds if can[i]):
            tick()
            chosen = {seed}
            frontier = [seed]
            ok = True
            while frontier and ok:
                member = frontier.pop()
                for other in needs[member]:
                    if other in chosen:
                        continue
                    if not can[other]:
                        ok = False
                        break
                    chosen.add(other)
                    frontier.append(other)
            if ok and (best is None or len(chosen) < len(best)):
                best = chosen
                if len(best) == 1:
                    break
        return frozenset(best) if best is not None else None
