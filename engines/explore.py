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
from engines.runtime import Program
from engines.runtime.behavior import Behavior, Move
from engines.witness import replay


@dataclass(frozen=True)
class Ending:
    """How one schedule ended: the values it left, or the error or deadlock that stopped it."""

    values: tuple[tuple[str, str], ...]
    error: str | None


def fresh(start: Callable[[], Behavior], prefix: tuple[Move, ...]) -> Behavior:
    """A fresh behavior that has made the moves of `prefix`."""
    run = start()
    run.world.trace.enabled = False
    for move in prefix:
        try:
            # The schedule let time pass where nothing could move: so does its replay.
            while run.next_wake() is not None and move not in run.enabled_moves() and run.let_time_pass():
                pass
            run.apply(move)
        except RunError:
            break  # the failure is the schedule's ending; the run records it
    return run


def ending_of(run: Behavior, features: Callable[[dict[str, str]], dict[str, str]] | None = None) -> Ending:
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
    """Run every linearization (depth first, alternatives in the order the behavior lists them) until the runs budget."""
    return explore_behavior(lambda: program.start_action(subject, performer, fine=True), subject, bounds,
                            features, interrupted)


def explore_behavior(start: Callable[[], Behavior], subject: str, bounds: Bounds | None = None,
                     features: Callable[[dict[str, str]], dict[str, str]] | None = None,
                     interrupted: Callable[[], bool] | None = None) -> Result:
    """Every linearization of any behavior `start` makes afresh (engines/runtime/behavior.py)."""
    bounds = bounds or Bounds()
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
        run = fresh(start, prefix)
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
            _, trace, _ = replay(start, taken)
            witnesses.append(Witness(tuple(made), tuple(trace), f"fails: {end.error}" if end.error else ""))
            tally[end] = [0, len(witnesses)]
        tally[end][0] += 1
    outcomes = tuple(Outcome(end.values, count, index, end.error) for end, (count, index) in tally.items())
    verdict = Verdict.INCOMPLETE if incomplete else Verdict.COMPLETE
    report = (BoundReport("runs", str(bounds.runs), runs >= bounds.runs and bool(stack)),
              BoundReport("depth", str(bounds.depth), incomplete is not None and "depth" in incomplete))
    return Result("explore", subject, verdict, Strength.WITNESSED if not incomplete else Strength.OBSERVED,
                  Stats(0, moves_total, deepest, runs), outcomes, (), (), tuple(witnesses), report, incomplete)
