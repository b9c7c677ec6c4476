"""Partial-order reduction: persistent sets over the footprints behaviors give their moves.

Two moves are dependent when one writes what the other reads or writes (a body's start shot
only reads what its features' initial values read), when either sends or
accepts while the other does too, when both reach one control point (a join or merge), or when
either is dynamic. A persistent set is grown from one actor: every actor whose future moves could
depend on a member's move joins it; an actor that must join but cannot move now makes the set give
up (all enabled moves are taken then). Sound by construction, conservative where the footprint is.
"""

from __future__ import annotations

from engines.runtime.behavior import Actor, Behavior, Move, Touch


def dependent(a: Touch, b: Touch) -> bool:
    """Whether the order of two moves with these footprints can matter."""
    if a.dynamic or b.dynamic:
        return True
    if a.writes & (b.reads | b.writes) or b.writes & a.reads:
        return True
    if (a.sends or a.accepts) and (b.sends or b.accepts):
        return True
    return bool(a.control & b.control)


class Reducer:
    """Chooses persistent sets; a behavior's footprints depend only on where its actors stand, so
    the sets are remembered per situation."""

    def __init__(self) -> None:
        self._persistent: dict[object, frozenset[int] | None] = {}
        # keyed by the touches' ids, which the entry keeps alive (so an id is never reused under it)
        self._dependent: dict[tuple[int, int], tuple[bool, Touch, Touch]] = {}

    def dependent(self, a: Touch, b: Touch) -> bool:
        """`dependent`, remembered per pair."""
        key = (id(a), id(b))
        known = self._dependent.get(key)
        if known is None:
            known = self._dependent[key] = (dependent(a, b), a, b)
        return known[0]

    def persistent(self, behavior: Behavior, moves: list[Move], actors: list[Actor]) -> list[Move]:
        """The smallest persistent set found from any seed actor, else every enabled move."""
        enabled = {m.actor for m in moves}
        if len(enabled) <= 1:
            return moves
        # The set depends only on where the actors stand and which can move: computed once per such
        # situation, as positions in the actor list (actor numbers differ between equal situations).
        can = tuple(a.id in enabled for a in actors)
        seeds = tuple(sorted(range(len(actors)), key=lambda i: actors[i].id))  # seeds are tried in actor order
        key = (tuple(a.place for a in actors), can, seeds)
        cache = self._persistent
        if key in cache:
            picked = cache[key]
        else:
            picked = cache[key] = self._grow(behavior, moves, actors, can, seeds)
        if picked is None:
            return moves
        best = {actors[i].id for i in picked}
        return [m for m in moves if m.actor in best]

    def _grow(self, behavior: Behavior, moves: list[Move], actors: list[Actor], can: tuple[bool, ...],
              seeds: tuple[int, ...]) -> frozenset[int] | None:
        futures = [behavior.future(a) for a in actors]
        first: dict[int, Move] = {}
        for m in moves:
            first.setdefault(m.actor, m)
        count = len(actors)
        # who must join a set holding `member`: every actor whose future depends on member's move
        needs = {}
        for a in range(count):
            if can[a]:
                now = behavior.footprint(first[actors[a].id])
                needs[a] = [b for b in range(count) if b != a and self.dependent(now, futures[b])]
        best: set[int] | None = None
        for seed in (i for i in seeds if can[i]):
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
