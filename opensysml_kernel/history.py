"""The debugger's way back: a snapshot of the stepping run before each step (move, when replaying a
witness), with the session's bookkeeping as it stood then, so `%back n` puts both back at once."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.runtime import Run
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

    def release(self) -> None:
        """The run is dropped or replaced: its snapshots stop holding the run's undo journal open."""
        for checkpoint in self._checkpoints:
            checkpoint.snapshot.release()
        self._checkpoints.clear()
