"""Snapshot / restore / release of a behavior and its whole world, taken between moves only.

A snapshot opens a mark in the world's undo journal (engines/runtime/journal.py) and keeps the few
fields of the behavior and the world that every move changes; restore rolls the journal back to
the mark, so it costs what changed since, and can be repeated until release. A state that holds
progress no journal sees (an action's body paused mid-statement: a Python generator) is restored
by replaying the moves that led to it, or refused.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Protocol

from engines.errors import EngineError

if TYPE_CHECKING:
    from engines.runtime.behavior import Move
    from engines.runtime.journal import Journal
    from engines.runtime.world import Context


class Restorable(Protocol):
    """What a snapshot needs of a behavior: its world, the objects whose plain fields its moves change
    (everything else goes through the journal), and, for a state held outside the journal, a way to
    come back to it by replay."""

    @property
    def world(self) -> Context: ...

    @property
    def moves_taken(self) -> list[Move]: ...

    def inside_move(self) -> bool:
        """Whether a move is under way (no snapshot can be taken then)."""
        ...

    def unjournaled(self) -> str | None:
        """Why its state is not all in journaled objects now, or None."""
        ...

    def movers(self) -> list[object]:
        """The objects whose fields (`__dict__`) a snapshot keeps whole: itself, or its members."""
        ...

    def history(self) -> object:
        """What `rewind` needs to make the moves made so far again from the start."""
        ...

    def rewind(self, history: object) -> None:
        """Back to the start, then the moves of `history` again."""
        ...


def _fields(mover: object) -> dict[str, object]:
    """A mover's fields as a snapshot keeps them: whole (`dict(__dict__)`), or, for a mover whose
    containers its moves change in place (a machine's configuration and pool), by its own
    `saved_fields`, given back to its `load_fields` on each restore."""
    save = getattr(mover, "saved_fields", None)
    return save() if save is not None else dict(mover.__dict__)


class SnapshotError(EngineError):
    """A snapshot asked for where none can be taken (inside a move, or over a paused body)."""


class _Mark:
    """A journal mark and the fields every move changes (kept whole: a few references)."""

    __slots__ = ("ctx_fields", "journal", "lines", "movers", "moves", "now", "scheduler", "serial")

    def __init__(self, behavior: Restorable) -> None:
        ctx = behavior.world
        self.journal: Journal = ctx.journal
        self.serial = self.journal.open()
        self.movers = [(m, _fields(m)) for m in behavior.movers()]
        self.ctx_fields = dict(ctx.__dict__)
        self.now: Fraction = ctx.clock.now
        self.moves = len(behavior.moves_taken)
        self.lines = len(ctx.trace.lines)
        self.scheduler = ctx.scheduler.fork()  # a seeded policy's draws are state too

    def restore(self, behavior: Restorable) -> None:
        if not self.journal.is_open(self.serial):
            raise SnapshotError("this snapshot was taken after the state a restore went back to: "
                                "it no longer exists")
        self.journal.roll_back(self.serial)
        for mover, saved in self.movers:
            load = getattr(mover, "load_fields", None)
            if load is not None:
                load(saved)
                continue
            fields = mover.__dict__
            fields.clear()
            fields.update(saved)
        ctx = behavior.world
        ctx.__dict__.clear()
        ctx.__dict__.update(self.ctx_fields)
        ctx.clock.now = self.now
        ctx.scheduler = self.scheduler.fork()
        del behavior.moves_taken[self.moves:]
        del ctx.trace.lines[self.lines:]

    def close(self) -> None:
        self.journal.close(self.serial)


class Snapshot:
    """A point of a behavior to come back to: `restore()` as often as needed until `release()`.

    A journal mark where the state is all in journaled objects; where it is not (an action's body
    paused mid-statement: its progress lives in the interpreter), the moves that led here, replayed
    from the start on restore: slower, exactly as faithful, since a behavior is a function of its
    moves. A restore closes the snapshots taken after this one.
    """

    def __init__(self, behavior: Restorable, allow_replay: bool = False) -> None:
        self._behavior = behavior
        self._released = False
        self._mark: _Mark | None = None
        self._history: object = None
        self._replays = False
        if behavior.inside_move():
            raise SnapshotError("a snapshot is taken between moves, not inside one")
        refusal = behavior.unjournaled()
        if refusal is None:
            self._mark = _Mark(behavior)
            return
        if not allow_replay:
            raise SnapshotError(refusal)
        self._history = behavior.history()
        self._replays = True

    @property
    def by_replay(self) -> bool:
        return self._replays

    def restore(self, last: bool = False) -> None:
        """Back to the snapshot's state; `last` releases the snapshot after."""
        if self._released:
            raise SnapshotError("this snapshot was released")
        if self._mark is not None:
            self._mark.restore(self._behavior)
        else:
            assert self._replays
            self._behavior.rewind(self._history)
        if last:
            self.release()

    def release(self) -> None:
        if self._mark is not None and not self._released:
            self._mark.close()
        self._released = True
        self._mark = None
        self._history = None
        self._replays = False

    @property
    def released(self) -> bool:
        return self._released
