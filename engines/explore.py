"""Every linearization within a runs budget: each schedule replayed from a fresh context, one move a
performance, and the table of the outcomes they reach, each with the schedules that reach it and
one witness."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from engines.errors import RunError
from engines.framework import (
    BoundReport,
    Bounds,
    Choice,
    Outcome,
    Result,
    Stats,
    Strength,
    Verdict,
    Witness,
    register,
)
from engines.runtime import Move, Program, Run
from engines.witness import Claim, ClaimKind, model_hash, replay_moves


@dataclass(frozen=True)
class Ending:
    """How one schedule ended: the values it left, or the error or deadlock that stopped it."""

    values: tuple[tuple[str, str], ...]
    error: str | None

    def claims(self) -> tuple[Claim, ...]:
        """What the witness of this ending claims: the failure or deadlock, or the run ending with the values."""
        if self.error is not None:
            if self.error.startswith("deadlock: "):
                return (Claim(ClaimKind.DEADLOCK, self.error.removeprefix("deadlock: ")),)
            return (Claim(ClaimKind.FAILS, self.error),)
        return (Claim(ClaimKind.COMPLETES), *(Claim(ClaimKind.VALUE, name, value) for name, value in self.values))


def fresh(program: Program, subject: str, prefix: tuple[Move, ...], performer: str | None = None) -> Run:
    """A fine run of `subject` that has made the moves of `prefix`."""
    run = program.start_action(subject, performer, fine=True)
    run.ctx.trace.enabled = False
    for move in prefix:
        try:
            # The schedule let time pass where nothing could move: so does its replay.
            while any(t.wake is not None for t in run.live_tokens()) and move not in run.enabled_moves() \
                    and run.let_time_pass():
                pass
            run.apply(move)
        except RunError:
            break  # the failure is the schedule's ending; the run records it
    return run


def ending_of(run: Run, features: Callable[[dict[str, str]], dict[str, str]] | None = None) -> Ending:
    outputs = run.outputs()
    if features is not None:
        outputs = features(outputs)
    if run.error is not None:
        return Ending(tuple(sorted(outputs.items())), str(run.error))
    stuck = run.stuck()
    if stuck is not None and not run.finished:
        return Ending(tuple(sorted(outputs.items())), stuck)
    return Ending(tuple(sorted(outputs.items())), None)


@register("explore", "outcomes")
def explore(program: Program, subject: str, bounds: Bounds | None = None,
            features: Callable[[dict[str, str]], dict[str, str]] | None = None,
            performer: str | None = None, interrupted: Callable[[], bool] | None = None) -> Result:
    """Run every linearization (depth first, alternatives in token order) until the runs budget."""
    bounds = bounds or Bounds()
    behavior = program.action(subject).qualified_name
    digest = model_hash(program.model)
    started = time.monotonic()
    stack: list[tuple[tuple[Move, ...], tuple[Choice, ...]]] = [((), ())]
    tally: dict[Ending, list[int]] = {}
    witnesses: list[Witness] = []
    runs = moves_total = deepest = 0
    incomplete: str | None = None
    while stack:
        if runs >= bounds.runs:
            incomplete = f"runs budget {bounds.runs} hit after {runs} runs"
            break
        if bounds.timeout is not None and time.monotonic() - started > bounds.timeout:
            incomplete = f"time: {bounds.timeout:g}s bound hit after {runs} runs"
            break
        if interrupted is not None and interrupted():
            incomplete = f"interrupted after {runs} runs"
            break
        prefix, choices = stack.pop()
        run = fresh(program, subject, prefix, performer)
        taken = list(prefix)
        made = list(choices)
        cut = False
        try:
            while not run.finished:
                enabled = run.enabled_moves()
                while not enabled and run.let_time_pass():
                    enabled = run.enabled_moves()
                if not enabled:
                    break
                if len(taken) >= bounds.depth:
                    cut = True
                    break
                labels = tuple(m.label for m in enabled)
                for alt in reversed(enabled[1:]):
                    stack.append(((*taken, alt), (*made, Choice(len(taken) + 1, alt.label, labels))))
                made.append(Choice(len(taken) + 1, enabled[0].label, labels))
                run.apply(enabled[0])
                taken.append(enabled[0])
        except RunError:
            pass
        runs += 1
        moves_total += len(taken)
        deepest = max(deepest, len(taken))
        if cut:
            incomplete = incomplete or f"depth bound {bounds.depth} hit"
            continue
        end = ending_of(run, features)
        if end not in tally:
            _, trace, _ = replay_moves(program, subject, taken, performer)
            witnesses.append(Witness(behavior, digest, "explore", end.claims(), tuple(made), tuple(trace), performer))
            tally[end] = [0, len(witnesses)]
        tally[end][0] += 1
    outcomes = tuple(Outcome(end.values, count, index, end.error) for end, (count, index) in tally.items())
    verdict = Verdict.INCOMPLETE if incomplete else Verdict.COMPLETE
    report = (BoundReport("runs", str(bounds.runs), runs >= bounds.runs and bool(stack)),
              BoundReport("depth", str(bounds.depth), incomplete is not None and "depth" in incomplete))
    return Result("explore", subject, verdict, Strength.WITNESSED if not incomplete else Strength.OBSERVED,
                  Stats(0, moves_total, deepest, runs), outcomes, (), (), tuple(witnesses), report, incomplete)
