"""The one witness format: a schedule written as text (`Witness.text`), read back (`parse_witness`),
and followed move by move through the interpreter (the replay policy: `next_move`, `replay_run`).

A witness is its choice lines (`step 3: 2@heat first of 2@heat, 3@vent`; steps increase, a step with
no line had one move enabled or takes the first), optional `input x = v` lines among them, a blank
line, the trace of the run, and its ending (`property: <name>` or `fails: <error>`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engines.errors import MoveNotEnabled, RunError, WitnessFormatError
from engines.runtime import Program
from engines.runtime.behavior import Behavior, Move

_CHOICE = re.compile(r"^step (\d+): (.+?) first of (.+)$")
_INPUT = re.compile(r"^input (\S+) = (.*)$")
ENDINGS = ("property: ", "fails: ")


@dataclass(frozen=True)
class Choice:
    """One choice a schedule made: at move `step`, the move taken among the enabled ones."""

    step: int
    taken: str
    enabled: tuple[str, ...]

    def line(self) -> str:
        return f"step {self.step}: {self.taken} first of {', '.join(self.enabled)}"


@dataclass(frozen=True)
class Witness:
    """A schedule as a modeler replays it: the choices, the trace, and what it shows."""

    choices: tuple[Choice, ...]
    trace: tuple[str, ...]
    ending: str  # "property: <name>", "fails: <error>", or "" for an outcome
    inputs: tuple[tuple[str, str], ...] = ()  # free inputs the schedule was run with (name, value)

    def text(self) -> str:
        lines = [f"input {name} = {value}" for name, value in self.inputs]
        lines.extend(c.line() for c in self.choices)
        lines.append("")
        lines.extend(self.trace)
        if self.ending:
            lines.append(self.ending)
        return "\n".join(lines) + "\n"

    @property
    def last_step(self) -> int:
        return self.choices[-1].step if self.choices else 0

    def taken_at(self, step: int) -> str | None:
        for choice in self.choices:
            if choice.step == step:
                return choice.taken
        return None


def parse_witness(text: str, name: str = "witness") -> Witness:
    """The witness `text` says (`name` is how refusals call it: the file, or `witness k of <action>`);
    raises WitnessFormatError naming the line that is not in the format."""
    lines = text.replace("\r\n", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    head: list[str] = []
    rest: list[str] = []
    for index, line in enumerate(lines):
        if not line.strip():
            rest = lines[index + 1:]
            break
        head.append(line)
    choices: list[Choice] = []
    inputs: list[tuple[str, str]] = []
    for number, line in enumerate(head, 1):
        given = _INPUT.match(line)
        if given is not None:
            inputs.append((given.group(1), given.group(2)))
            continue
        match = _CHOICE.match(line.strip())
        if match is None:
            raise WitnessFormatError(name, number, line)
        step = int(match.group(1))
        if step < 1 or (choices and step <= choices[-1].step):
            raise WitnessFormatError(name, number, line, "steps must increase")
        choices.append(Choice(step, match.group(2), tuple(match.group(3).split(", "))))
    while rest and not rest[-1].strip():
        rest.pop()
    ending = ""
    if rest and rest[-1].startswith(ENDINGS):
        ending = rest.pop()
    return Witness(tuple(choices), tuple(rest), ending, tuple(inputs))


# ---------------------------------------------------------------- the replay policy


def _enabled(run: Behavior) -> list[Move]:
    """The moves enabled now, letting time pass while none is (a schedule waits for its timers)."""
    enabled = run.enabled_moves()
    while not enabled and not run.finished and run.let_time_pass():
        enabled = run.enabled_moves()
    return enabled


def next_move(run: Behavior, witness: Witness | None, name: str = "witness") -> Move | None:
    """The move a replay of `witness` makes next (the first enabled one where the witness says nothing),
    or None when no move is enabled; refuses a witness move that is not enabled."""
    enabled = _enabled(run)
    step = len(run.moves_taken) + 1
    wanted = witness.taken_at(step) if witness is not None else None
    if wanted is None:
        return enabled[0] if enabled else None
    for move in enabled:
        if move.label == wanted:
            return move
    raise MoveNotEnabled(name, step, wanted, [m.label for m in enabled])


def replay_run(program: Program, subject: str, witness: Witness | str, performer: str | None = None,
               name: str = "witness") -> Behavior:
    """A fine run that has made the witness's moves through its last step (each refused unless it is
    enabled); a move that fails ends it there, as the witness does."""
    if isinstance(witness, str):
        witness = parse_witness(witness, name)
    run: Behavior = program.start_action(subject, performer, fine=True)
    while len(run.moves_taken) < witness.last_step:
        move = next_move(run, witness, name)
        if move is None:
            wanted = witness.taken_at(len(run.moves_taken) + 1) or "a move"
            raise MoveNotEnabled(name, len(run.moves_taken) + 1, wanted, [])
        try:
            run.apply(move)
        except RunError:
            break  # the failure the witness ends in
    return run


def replay_moves(program: Program, subject: str, moves: Sequence[Move],
                 performer: str | None = None) -> tuple[Behavior, list[str], str | None]:
    """Replay a search's path in a fresh run with the trace on: the run, its trace, its error."""
    return replay(lambda: program.start_action(subject, performer, fine=True), moves)


def replay(start: Callable[[], Behavior], moves: Sequence[Move]) -> tuple[Behavior, list[str], str | None]:
    """Replay a path in the fresh behavior `start` makes, trace on: the behavior, its trace, its error."""
    run = start()
    error = None
    for index, wanted in enumerate(moves, start=1):
        enabled = run.enabled_moves()
        while not enabled and run.let_time_pass():
            enabled = run.enabled_moves()
        move = next((m for m in enabled if m.label == wanted.label), None)
        if move is None:
            raise MoveNotEnabled("the search's schedule", index, wanted.label, [m.label for m in enabled])
        try:
            run.apply(move)
        except RunError as err:
            error = str(err)
            break
    if error is None and run.error is not None:
        error = str(run.error)
    if error is None and not run.finished:
        enabled = run.enabled_moves()
        while not enabled and run.let_time_pass():
            enabled = run.enabled_moves()
    return run, list(run.world.trace.lines), error
