"""Snapshot / restore / release of a whole run, taken between moves only.

A snapshot opens a mark in the run's undo journal (engines/runtime/journal.py) and keeps the few
fields of the run and its context that every move changes; restore rolls the journal back to the
mark, so it costs what changed since, and can be repeated until release. A body paused
mid-statement (a Python generator) holds progress no journal sees: such a state is restored by
replaying the moves that led to it, or refused.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from engines.errors import EngineError

if TYPE_CHECKING:
    from engines.runtime.actions import Run
    from engines.runtime.journal import Journal


class SnapshotError(EngineError):
    """A snapshot asked for where none can be taken (inside a move, or over a paused body)."""


def _refusal(run: Run) -> str | None:
    """Why the run's state cannot be journaled here, or None."""
    if run.mover:
        return "a snapshot is taken between moves, not inside one"
    if run.displayed:
        return "a block is paused mid-statement: its state cannot be snapshot"
    for t in run.live_tokens():
        if t.body is not None:
            return (f"token {t.id} is paused mid-statement at {t.flow.node_label(t)}: "
                    "a body paused inside a move cannot be snapshot")
    return None


class _Mark:
    """A journal mark and the fields every move changes (kept whole: a few references)."""

    __slots__ = ("ctx_fields", "journal", "lines", "moves", "now", "run_fields", "scheduler", "serial")

    def __init__(self, run: Run) -> None:
        ctx = run.ctx
        self.journal: Journal = ctx.journal
        self.serial = self.journal.open()
        self.run_fields = dict(run.__dict__)
        self.ctx_fields = dict(ctx.__dict__)
        self.now: Fraction = ctx.clock.now
        self.moves = len(run.moves_taken)
        self.lines = len(ctx.trace.lines)
        self.scheduler = ctx.scheduler.fork()  # a seeded policy's draws are state too

    def restore(self, run: Run) -> None:
        if not self.journal.is_open(self.serial):
            raise SnapshotError("this snapshot was taken after the state a restore went back to: "
                                "it no longer exists")
        self.journal.roll_back(self.serial)
        fields = run.__dict__
        fields.clear()
        fields.update(self.run_fields)
        ctx = run.ctx
        ctx.__dict__.clear()
        ctx.__dict__.update(self.ctx_fields)
        ctx.clock.now = self.now
        ctx.scheduler = self.scheduler.fork()
        del run.moves_taken[self.moves:]
        del ctx.trace.lines[self.lines:]
        run._live = None

    def close(self) -> None:
        self.journal.close(self.serial)


class Snapshot:
    """A point of a run to come back to: `restore()` as often as needed until `release()`.

    A journal mark where the state is all in the run's objects; where a body is paused
    mid-statement (its progress lives in the interpreter, not in the state), the moves that led
    here, replayed from the start on restore: slower, exactly as faithful, since a run is a
    function of its moves. A restore closes the snapshots taken after this one.
    """

    def __init__(self, run: Run, allow_replay: bool = False) -> None:
        self._run = run
        self._released = False
        self._mark: _Mark | None = None
        self._moves: tuple[object, ...] | None = None
        self._steps = 0
        refusal = _refusal(run)
        if refusal is None:
            self._mark = _Mark(run)
            return
        if not allow_replay or run.mover:
            raise SnapshotError(refusal)
        self._moves = tuple(run.moves_taken)
        self._steps = run.step_number

    @property
    def by_replay(self) -> bool:
        return self._moves is not None

    def restore(self, last: bool = False) -> None:
        """Back to the snapshot's state; `last` releases the snapshot after."""
        if self._released:
            raise SnapshotError("this snapshot was released")
        if self._mark is not None:
            self._mark.restore(self._run)
        else:
            assert self._moves is not None
            self._run.reset()
            if self._run.fine:
                for move in self._moves:
                    self._run.apply(move)  # type: ignore[arg-type]
            else:
                for _ in range(self._steps):
                    self._run.step()
        if last:
            self.release()

    def release(self) -> None:
        if self._mark is not None and not self._released:
            self._mark.close()
        self._released = True
        self._mark = None
        self._moves = None

    @property
    def released(self) -> bool:
        return self._released
