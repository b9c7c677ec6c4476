"""The debugger's way back: a snapshot of the stepping run before each step (move, when replaying a
witness), with the session's bookkeeping as it stood then, so `%back n` puts both back at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.errors import RunError
from engines.runtime import Move, Run
from opensysml_kernel.witness import WitnessPlan

if TYPE_CHECKING:
    from engines.runtime.snapshot import Snapshot


@dataclass(frozen=True)
class Stepping:
    """How the current run steps: by rounds, or move by move (fine) following a witness, and whether
    the end of that witness was announced."""

    plan: WitnessPlan | None = None  # fine runs: the witness followed
    fine: bool = False
    ended: bool = False


@dataclass(frozen=True)
class Checkpoint:
    """The run as it stood before one step, and the session's bookkeeping of it then."""

    snapshot: Snapshot
    stepping: Stepping


@dataclass(frozen=True)
class Waypoint:
    """Where a run stood when a command or cell began, to put it back there if that fails: its
    checkpoints then (the way back), and its moves then (to remake the steps when those are gone)."""

    checkpoints: tuple[Checkpoint, ...]
    moves: tuple[Move, ...]


class History:
    """The checkpoints of one run, oldest first: one per step made, so their number is the steps made."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self._checkpoints: list[Checkpoint] = []

    def __len__(self) -> int:
        return len(self._checkpoints)

    def before_step(self, stepping: Stepping) -> None:
        """Keep the run as it stands, about to step (between moves, where a snapshot can be taken)."""
        snapshot = self.run.snapshot(allow_replay=True)
        self._checkpoints.append(Checkpoint(snapshot, stepping))

    def step_not_made(self) -> None:
        """The step `before_step` prepared did not happen (no move was enabled, or the witness refused one)."""
        self._checkpoints.pop().snapshot.release()

    def back(self, count: int) -> Stepping:
        """Put the run back as it was `count` steps ago; the bookkeeping of then. The checkpoints of the
        steps undone are released: the run makes those steps again, or others, from here."""
        kept = len(self._checkpoints) - count
        target = self._checkpoints[kept]
        for later in self._checkpoints[kept + 1:]:
            later.snapshot.release()
        del self._checkpoints[kept:]
        target.snapshot.restore(last=True)
        return target.stepping

    def waypoint(self) -> Waypoint:
        return Waypoint(tuple(self._checkpoints), tuple(self.run.moves_taken))

    def return_to(self, waypoint: Waypoint) -> None:
        """Put the run back exactly where it stood at `waypoint`, with the way back it had then.

        While the checkpoints of then are all still here, the steps made since are undone from the
        snapshot taken right after them; once a `%back` went behind the waypoint, those snapshots
        are gone, and the run is remade from its start, step by step as it went (a run is a function
        of its moves and its schedule's draws, which a reset starts again)."""
        kept = len(waypoint.checkpoints)
        now = self._checkpoints
        if len(now) >= kept and all(a is b for a, b in zip(now, waypoint.checkpoints, strict=False)):
            if len(now) == kept:
                return
            try:
                self.back(len(now) - kept)
                return
            except Exception:  # the restore failed too: remade from the start below
                pass
        self.release()
        run = self.run
        run.reset()
        for index, then in enumerate(waypoint.checkpoints):
            self._checkpoints.append(Checkpoint(run.snapshot(allow_replay=True), then.stepping))
            try:
                if run.fine:
                    self._remake(waypoint.moves[index])
                else:
                    run.step()
            except RunError:
                break  # the failure the run ended in: its last step

    def _remake(self, move: Move) -> None:
        """Make `move` again, letting time pass first where the first time it did (before it was enabled)."""
        run = self.run
        enabled = run.enabled_moves()
        while move not in enabled and run.let_time_pass():
            enabled = run.enabled_moves()
        run.apply(next((m for m in enabled if m == move), move))

    def release(self) -> None:
        """The run is dropped or replaced: its snapshots stop holding the run's undo journal open."""
        for checkpoint in self._checkpoints:
            checkpoint.snapshot.release()
        self._checkpoints.clear()
