"""Partial-order reduction: persistent sets over the footprints behaviors give their moves.

Two moves are dependent when one writes what the other reads or writes (a body's start shot
only reads what its features' initial values read), when either sends or accepts while the other
does too, when both reach one control point (a join or merge), or when either is dynamic.

The message clauses, all kept whole by "either sends or accepts while the other does too": a send
may feed any accept that could receive it (which message an accept takes depends on what was sent
before it moved); two accepts that could take the same message are dependent (the one that moves
first takes it); two sends to one bus are dependent (messages queue in order and an accept takes the
oldest it matches); an accept's `when` condition is a read of the features it names. Routing
(`send ... via`, `accept ... via`, a send `to` a receiver) narrows which accepts a send can feed,
but no clause relies on it: a `via` send is dynamic. An accept node moves once, taking its message:
its move is the accept's footprint, never a body's start shot (`Node.starts_with_a_shot`).

State machines: engines/runtime/states/footprints.py spells a machine's shared state (the activity
of each state, its pool, completion queue, timers, status, and the clock) as features of the machine
and writes down the dependence clauses of machine moves, each with its test.

A persistent set is grown from one actor: every actor whose future moves could depend on a
member's move joins it; an actor that must join but cannot move now joins with the actors one of
which must move before it can (a behavior may say so: `enablers(actor)`, as a machine's dispatcher
waits for its pending completions), or, where no behavior says, makes the set give up (all enabled
moves are taken then): no move outside the set can then enable it before a member moves.
Sound by construction, conservative where the footprint is.
"""

from __future__ import annotations

from collections.abc import Callable

from engines.runtime.behavior import Actor, Behavior, Move, Summary, dependent
from engines.runtime.watch import tick


def _admit(other: int, chosen: set[int], frontier: list[int], can: tuple[bool, ...],
           enabling: Callable[[int], list[int] | None]) -> bool:
    """`other` joins the set (and the frontier, if it can move); one that cannot move now joins with
    the actors one of which must move before it can, else the set fails."""
    if other in chosen:
        return True
    chosen.add(other)
    if can[other]:
        frontier.append(other)
        return True
    ways = enabling(other)
    return ways is not None and all(_admit(e, chosen, frontier, can, enabling) for e in ways)


class Reducer:
    """Chooses persistent sets; a behavior's footprints depend only on where its actors stand, so
    the sets are remembered per situation."""

    def __init__(self) -> None:
        self._persistent: dict[object, frozenset[int] | None] = {}
        self.conflicting = False  # the last state's enabled moves each depended on every other actor's future
        # whether a move of an actor standing at the first place depends on the future of one at the second
        self._conflicts: dict[tuple[object, object], bool] = {}
        # keyed by the footprints' ids, which the entry keeps alive (so an id is never reused under it)
        self._dependent: dict[tuple[int, int], tuple[bool, Summary, Summary]] = {}

    def dependent(self, a: Summary, b: Summary) -> bool:
        """`dependent`, remembered per pair."""
        key = (id(a), id(b))
        known = self._dependent.get(key)
        if known is None:
            known = self._dependent[key] = (dependent(a, b), a, b)
        return known[0]

    def _complete(self, behavior: Behavior, moves: list[Move], actors: list[Actor], enabled: set[int]) -> bool:
        """Whether every enabled actor's move is dependent on every other enabled actor's future (the
        relation `_grow` closes over), from a table of places: what an actor's moves touch and what its
        future may touch depend only on where it stands."""
        movers = [a for a in actors if a.id in enabled]
        conflicts = self._conflicts
        for mover in movers:
            here = mover.place
            for other in movers:
                if other is mover:
                    continue
                known = conflicts.get((here, other.place))
                if known is None:
                    mine = {id(f): f for f in (behavior.footprint(m) for m in moves if m.actor == mover.id)}
                    future = behavior.future(other)
                    known = conflicts[(here, other.place)] = any(self.dependent(f, future) for f in mine.values())
                if not known:
                    return False
        return True

    def persistent(self, behavior: Behavior, moves: list[Move], actors: list[Actor]) -> list[Move]:
        """The smallest persistent set found from any seed actor, else every enabled move."""
        enabled = {m.actor for m in moves}
        self.conflicting = False
        if len(enabled) <= 1:
            return moves
        if self._complete(behavior, moves, actors, enabled):
            self.conflicting = True
            # the static conflict graph of the enabled moves is complete: the set grown from any seed
            # holds every enabled actor (or fails), so all enabled moves are taken, with no set grown
            return moves
        # The set depends only on where the actors stand and which can move: computed once per such
        # situation, as positions in the actor list (actor numbers differ between equal situations).
        can = tuple(a.id in enabled for a in actors)
        ids = [a.id for a in actors]
        seeds = tuple(sorted(range(len(actors)), key=ids.__getitem__))  # seeds are tried in actor order
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
        # what an actor's enabled moves touch together (a decision's branches share one footprint; a
        # machine's dispatcher may offer several events tied at one instant)
        now: dict[int, Summary] = {}
        for m in moves:
            touched = behavior.footprint(m)
            known = now.get(m.actor)
            now[m.actor] = touched if known is None or known is touched else known | touched
        count = len(actors)
        # who must join a set holding `member`: every actor whose future depends on member's move
        needs: dict[int, list[int]] = {}
        for a in range(count):
            if can[a]:
                tick()
                mine = now[actors[a].id]
                needs[a] = [b for b in range(count) if b != a and self.dependent(mine, futures[b])]
        enabling = self._enabling(behavior, actors)
        best: set[int] | None = None
        for seed in (i for i in seeds if can[i]):
            tick()
            chosen = {seed}
            frontier = [seed]
            ok = True
            while frontier and ok:
                member = frontier.pop()
                ok = all(_admit(other, chosen, frontier, can, enabling) for other in needs[member])
            if ok:
                moving = {i for i in chosen if can[i]}
                if best is None or len(moving) < len(best):
                    best = moving
                    if len(best) == 1:
                        break
        return frozenset(best) if best is not None else None

    @staticmethod
    def _enabling(behavior: Behavior, actors: list[Actor]) -> Callable[[int], list[int] | None]:
        """Per actor that cannot move now, the positions of the actors one of which must move before it
        can (a behavior's optional `enablers(actor)`, actor numbers; None: not known)."""
        asked = getattr(behavior, "enablers", None)
        index = {a.id: i for i, a in enumerate(actors)}

        def enabling(position: int) -> list[int] | None:
            if asked is None:
                return None
            ids = asked(actors[position])
            if not ids or any(i not in index for i in ids):
                return None
            return [index[i] for i in ids]
        return enabling
