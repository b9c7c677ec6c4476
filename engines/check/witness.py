"""Witness files: write, parse, and replay one schedule move for move through the interpreter."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engines.errors import ReplayRefused, RunError
from engines.runtime import Program
from engines.runtime.behavior import Behavior, Move

_CHOICE = re.compile(r"^step (\d+): (.+?) first of (.+)$")


@dataclass(frozen=True)
class ParsedWitness:
    """A witness read back: the moves (by their labels, `2@heat`) in order, the trace, the ending."""

    moves: tuple[str, ...]
    trace: tuple[str, ...]
    ending: str


def parse_witness(text: str) -> ParsedWitness:
    """Read a witness file; a line that is no choice line before the blank line is refused."""
    lines = text.splitlines()
    moves: list[str] = []
    i = 0
    while i < len(lines) and lines[i].strip():
        m = _CHOICE.match(lines[i])
        if m is None:
            raise ReplayRefused(f"witness line {i + 1} is not a choice line ('step N: <move> first of "
                                f"<moves>'): {lines[i]!r}")
        if int(m.group(1)) != len(moves) + 1:
            raise ReplayRefused(f"witness line {i + 1} names step {m.group(1)}, expected step {len(moves) + 1}")
        moves.append(m.group(2))
        i += 1
    rest = lines[i + 1:]
    ending = ""
    if rest and (rest[-1].startswith("property: ") or rest[-1].startswith("fails: ")):
        ending = rest[-1]
        rest = rest[:-1]
    return ParsedWitness(tuple(moves), tuple(rest), ending)


def _step(run: Behavior, wanted: str, index: int) -> None:
    enabled = run.enabled_moves()
    while not enabled and run.let_time_pass():
        enabled = run.enabled_moves()
    for move in enabled:
        if move.label == wanted:
            run.apply(move)
            return
    offered = ", ".join(m.label for m in enabled) or "none"
    raise ReplayRefused(f"replay refused at step {index}: {wanted} is not enabled (enabled: {offered})")


def replay_run(program: Program, subject: str, text: str, performer: str | None = None) -> Behavior:
    """A fine run that has made the witness's moves (each refused unless it is enabled)."""
    witness = parse_witness(text)
    run: Behavior = program.start_action(subject, performer, fine=True)
    for index, label in enumerate(witness.moves, start=1):
        if run.finished:
            raise ReplayRefused(f"the witness runs past the end: the run completed after {index - 1} moves, "
                                f"the witness goes on with {label}")
        try:
            _step(run, label, index)
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
    for index, move in enumerate(moves, start=1):
        try:
            _step(run, move.label, index)
        except ReplayRefused:
            raise
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
