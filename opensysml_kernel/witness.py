"""Witnesses as the faces use them: read a witness text, follow it move by move on a fine run, and
tabulate its steps (move taken, alternatives, values changed) for the notebook."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engines.errors import RunError
from engines.framework import Witness
from engines.runtime import Move, Program, Run
from opensysml_kernel.errors import ReplayRefusedError, WitnessFormatError

_CHOICE = re.compile(r"^step (\d+): (.+?) first of (.+)$")
_ENDINGS = ("property: ", "fails: ")
ROWS_SHOWN = 500


@dataclass(frozen=True)
class WitnessPlan:
    """What a witness says: the move taken at each recorded step, its trace and how it ends.

    Steps with no choice line had one move enabled (or were the first of several past the last one).
    """

    name: str  # the file, or `witness k of <action>`
    choices: tuple[tuple[int, str, tuple[str, ...]], ...]  # (step, taken, enabled)
    trace: tuple[str, ...]
    ending: str

    @property
    def last_step(self) -> int:
        return self.choices[-1][0] if self.choices else 0

    def taken_at(self, step: int) -> str | None:
        for number, taken, _ in self.choices:
            if number == step:
                return taken
        return None

    @classmethod
    def of(cls, witness: Witness, name: str) -> WitnessPlan:
        return cls(name, tuple((c.step, c.taken, c.enabled) for c in witness.choices), witness.trace, witness.ending)


def parse_witness(text: str, name: str) -> WitnessPlan:
    """The choice lines (before the first blank line), the trace and the ending of a witness text."""
    lines = text.splitlines()
    head: list[str] = []
    rest: list[str] = []
    for index, line in enumerate(lines):
        if not line.strip():
            rest = lines[index + 1:]
            break
        head.append(line)
    choices: list[tuple[int, str, tuple[str, ...]]] = []
    for number, line in enumerate(head, 1):
        if line.startswith("input "):
            continue  # the smt engine's free inputs: nothing to follow in a run
        match = _CHOICE.match(line.strip())
        if match is None:
            raise WitnessFormatError(name, number, line)
        step = int(match.group(1))
        if choices and step <= choices[-1][0]:
            raise WitnessFormatError(name, number, line, "steps must increase")
        choices.append((step, match.group(2), tuple(match.group(3).split(", "))))
    while rest and not rest[-1].strip():
        rest.pop()
    ending = ""
    if rest and rest[-1].startswith(_ENDINGS):
        ending = rest.pop()
    return WitnessPlan(name, tuple(choices), tuple(rest), ending)


def next_move(run: Run, plan: WitnessPlan | None) -> Move | None:
    """The move a replay of `plan` makes next (the first enabled one where the witness says nothing),
    or None when no move is enabled; refuses a witness move that is not enabled."""
    enabled = run.enabled_moves()
    while not enabled and not run.finished and run.let_time_pass():
        enabled = run.enabled_moves()
    step = len(run.moves_taken) + 1
    wanted = plan.taken_at(step) if plan is not None else None
    if wanted is None:
        return enabled[0] if enabled else None
    for move in enabled:
        if move.label == wanted:
            return move
    assert plan is not None
    raise ReplayRefusedError(plan.name, step, wanted, [m.label for m in enabled])


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
