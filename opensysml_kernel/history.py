"""The debugger's way back: a snapshot of the stepping run before each step (move, when replaying a
witness), with the session's bookkeeping as it stood then and the deed done after it, so `%back n`
puts both back at once, and a run whose snapshots are gone can be remade deed by deed."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from engines.errors import RunError
from engines.runtime import Move, TokenView
from opensysml_kernel.witness import WitnessPlan


class Restorable(Protocol):
    """A point of a run to come back to (engines.runtime.snapshot.Snapshot, or a driven run's Mark)."""

    def restore(self, last: bool = False) -> None: ...

    def release(self) -> None: ...


class Stepped(Protocol):
    """What the debugger needs of the behavior it steps: the engines' behavior protocol (moves,
    snapshots, outputs), a step of its fixed schedule, and a reset to its start. Nothing here is an
    action's own: a machine's performance offers the same."""

    fine: bool

    @property
    def moves_taken(self) -> list[Move]: ...

    @property
    def status(self) -> str: ...

    @property
    def finished(self) -> bool: ...

    @property
    def trace(self) -> list[str]: ...

    @property
    def step_number(self) -> int: ...

    def enabled_moves(self) -> list[Move]: ...

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]: ...

    def step(self) -> list[str]: ...

    def let_time_pass(self) -> bool: ...

    def stuck(self) -> str | None: ...

    def outputs(self) -> dict[str, str]: ...

    def tokens(self) -> list[TokenView]:
        """Where it stands: the positions of what may still move (an action's tokens)."""
        ...

    def snapshot(self, allow_replay: bool = False) -> Restorable: ...

    def reset(self) -> None: ...


class DeedKind(Enum):
    """What the debugger did to the run between two checkpoints."""

    ROUND = "round"  # one step of the run's fixed schedule
    MOVE = "move"  # one move chosen (by a witness followed, or the first enabled)
    SEND = "send"  # the environment sent an event (to a machine)
    TIMER = "timer"  # time moved to the next timer due before a horizon, which fired
    CLOCK = "clock"  # time moved on to the end of an advance


@dataclass(frozen=True)
class Deed:
    kind: DeedKind
    move: Move | None = None
    value: Any = None  # the event sent, the horizon of a timer, the instant the clock moved to
    target: str | None = None  # whom the event was sent to
    label: str = ""  # what it was, as `%back` names what it undid

    def redo(self, run: Stepped) -> None:
        """Do it again on a run remade from its start, as it was done the first time."""
        if self.kind is DeedKind.ROUND:
            run.step()
            return
        if self.kind in (DeedKind.SEND, DeedKind.TIMER, DeedKind.CLOCK):
            driven: Any = run  # a machine's run (opensysml_kernel.machines.Driven)
            if self.kind is DeedKind.SEND:
                driven.send(self.value, self.target)
            elif self.kind is DeedKind.TIMER:
                driven.fire_timer(self.value)
            else:
                driven.clock_to(self.value)
            return
        assert self.move is not None
        enabled = run.enabled_moves()
        while self.move not in enabled and run.let_time_pass():  # the time let pass before it, the first time
            enabled = run.enabled_moves()
        run.apply(next((m for m in enabled if m == self.move), self.move))


@dataclass(frozen=True)
class Stepping:
    """How the current run steps: by rounds, or move by move (fine) following a witness, and whether
    the end of that witness was announced."""

    plan: WitnessPlan | None = None  # fine runs: the witness followed
    fine: bool = False
    ended: bool = False


@dataclass
class Checkpoint:
    """The run as it stood before one step, the session's bookkeeping of it then, and what was done
    after (set once chosen: a witness's move is chosen after time was let pass)."""

    snapshot: Restorable
    stepping: Stepping
    deed: Deed | None = None


@dataclass(frozen=True)
class Waypoint:
    """Where a run stood when a command or cell began, to put it back there if that fails: its
    checkpoints then: the way back, and the deeds that remake the run when their snapshots are gone."""

    checkpoints: tuple[Checkpoint, ...]


class History:
    """The checkpoints of one run, oldest first: one per step made, so their number is the steps made."""

    def __init__(self, run: Stepped) -> None:
        self.run = run
        self._checkpoints: list[Checkpoint] = []

    def __len__(self) -> int:
        return len(self._checkpoints)

    def before_step(self, stepping: Stepping) -> Checkpoint:
        """Keep the run as it stands, about to step (between moves, where a snapshot can be taken)."""
        checkpoint = Checkpoint(self.run.snapshot(allow_replay=True), stepping)
        self._checkpoints.append(checkpoint)
        return checkpoint

    def step_not_made(self) -> None:
        """The step `before_step` prepared did not happen (no move was enabled, or the witness refused one)."""
        self._checkpoints.pop().snapshot.release()

    def undone(self, count: int) -> list[str]:
        """What the last `count` steps were, latest first (as their deeds name them)."""
        deeds = [c.deed for c in reversed(self._checkpoints[len(self._checkpoints) - count:]) if c.deed is not None]
        return [d.label or (d.move.label if d.move is not None else d.kind.value) for d in deeds]

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
        return Waypoint(tuple(self._checkpoints))

    def return_to(self, waypoint: Waypoint) -> None:
        """Put the run back exactly where it stood at `waypoint`, with the way back it had then.

        While the checkpoints of then are all still here, the steps made since are undone from the
        snapshot taken right after them; once a `%back` went behind the waypoint, those snapshots
        are gone, and the run is remade from its start, deed by deed as it went (a run is a function
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
        for then in waypoint.checkpoints:
            self._checkpoints.append(Checkpoint(run.snapshot(allow_replay=True), then.stepping, then.deed))
            if then.deed is None:
                break  # a step that failed before anything was done: the command that made it is undone
            try:
                then.deed.redo(run)
            except RunError:
                break  # the failure the run ended in: its last step

    def release(self) -> None:
        """The run is dropped or replaced: its snapshots stop holding the run's undo journal open."""
        for checkpoint in self._checkpoints:
            checkpoint.snapshot.release()
        self._checkpoints.clear()
