"""Witnesses as the faces use them: a witness followed by the session (named for its refusals), and
its steps tabulated (move taken, alternatives, values changed) for the notebook."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from engines import witness as engine_witness
from engines.errors import RunError
from engines.runtime import Move, Program, Run
from engines.witness import Witness
from opensysml_kernel.errors import ReplayRefusedError

if TYPE_CHECKING:
    from opensysml_kernel.history import Stepped

ROWS_SHOWN = 500


@dataclass(frozen=True)
class WitnessPlan:
    """A witness the session follows, with the name its refusals give it (the file, or `witness k of <action>`)."""

    name: str
    witness: Witness

    @property
    def last_step(self) -> int:
        return self.witness.last_step

    @property
    def ending(self) -> str:
        return self.witness.ending

    def taken_at(self, step: int) -> str | None:
        return self.witness.taken_at(step)

    @classmethod
    def of(cls, witness: Witness, name: str) -> WitnessPlan:
        return cls(name, witness)


def parse_witness(text: str, name: str) -> WitnessPlan:
    """A witness text read with the engines' one parser, named for the refusals."""
    return WitnessPlan(name, engine_witness.parse_witness(text, name))


def next_move(run: Stepped, plan: WitnessPlan | None) -> Move | None:
    """The move a replay of `plan` makes next (see engines.witness.next_move, which reads only the
    behavior protocol of the run: its enabled moves, the moves taken, time let pass)."""
    behavior = cast(Run, run)
    if plan is None:
        return engine_witness.next_move(behavior, None)
    return engine_witness.next_move(behavior, plan.witness, plan.name)


@dataclass(frozen=True)
class StepRow:
    """One move of a replayed witness: its number, the move, the moves it was taken over, what it changed."""

    step: int
    taken: str
    alternatives: tuple[str, ...]
    changed: tuple[tuple[str, str, str], ...]  # (feature, before, after)

    def changes(self) -> str:
        return ", ".join(f"{feature}: {before} → {after}" for feature, before, after in self.changed)


def diff(before: dict[str, str], after: dict[str, str]) -> tuple[tuple[str, str, str], ...]:
    keys = sorted(set(before) | set(after))
    return tuple((k, before.get(k, "<unset>"), after.get(k, "<unset>")) for k in keys
                 if before.get(k) != after.get(k))


def witness_steps(program: Program, subject: str, plan: WitnessPlan, performer: str | None = None) -> tuple[StepRow, ...]:
    """Replay `plan` on a fine run through its last recorded step, then while one move only is enabled;
    every move with the values it changed (the run's outputs before and after it). Empty if it does not replay."""
    run = program.start_action(subject, performer, fine=True)
    run.ctx.trace.enabled = False
    rows: list[StepRow] = []
    try:
        while not run.finished and len(rows) < ROWS_SHOWN:
            enabled = run.enabled_moves()
            while not enabled and run.let_time_pass():
                enabled = run.enabled_moves()
            step = len(run.moves_taken) + 1
            if not enabled or (step > plan.last_step and len(enabled) > 1):
                break
            move = next_move(run, plan)
            assert move is not None
            before = run.outputs()
            failed = False
            try:
                run.apply(move)
            except RunError:
                failed = True
            alternatives = tuple(m.label for m in enabled if m != move)
            rows.append(StepRow(step, move.label, alternatives, diff(before, run.outputs())))
            if failed:
                break
    except ReplayRefusedError:
        return ()
    return tuple(rows)
