"""Every linearization within a runs budget: each schedule replayed from a fresh context, one move a
performance, and the table of the outcomes they reach, each with the schedules that reach it and
one witness."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from engines.errors import EngineError, RunError
from engines.framework import (
    READY,
    BoundReport,
    Bounds,
    Choice,
    Claims,
    Hooks,
    Outcome,
    Question,
    QuestionKind,
    Result,
    Stats,
    Status,
    Strength,
    Witness,
    feature_paths,
    fixed_inputs_only,
    judge,
    stable_numbers,
)
from engines.runtime import Program
from engines.runtime.behavior import Behavior, Move, Travelled
from engines.runtime.watch import BoundReached, spell_bytes, watching
from engines.witness import Claim, ClaimKind, model_hash, replay


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


def explore(program: Program, subject: str, bounds: Bounds | None = None,
            features: Callable[[dict[str, str]], dict[str, str]] | None = None,
            performer: str | None = None, interrupted: Callable[[], bool] | None = None) -> Result:
    """Run every linearization (depth first, alternatives in the order the behavior lists them) until the runs budget."""
    return explore_behavior(lambda: program.start_action(subject, performer, fine=True), subject, bounds,
                            features, interrupted, (program.action(subject).qualified_name, model_hash(program.model),
                                                    performer))


def explore_behavior(start: Callable[[], Behavior], subject: str, bounds: Bounds | None = None,
                     features: Callable[[dict[str, str]], dict[str, str]] | None = None,
                     interrupted: Callable[[], bool] | None = None,
                     header: tuple[str, str, str | None] | None = None) -> Result:
    """Every linearization of any behavior `start` makes afresh (engines/runtime/behavior.py); `header`
    (the behavior's qualified name, the model's hash, the performer) as its witnesses name them."""
    bounds = bounds or Bounds()
    started = time.monotonic()
    stack: list[tuple[tuple[Move, ...], tuple[Choice, ...]]] = [((), ())]
    tally: dict[Ending, list[int]] = {}
    travelled: dict[Ending, Travelled | None] = {}  # what each outcome's first run passed through
    witnesses: list[Witness] = []
    counts = [0, 0, 0]  # runs, moves, deepest
    incomplete: str | None = None
    header = header or (subject, "", None)
    with watching(bounds.watch(started, interrupted)):
        try:
            incomplete = _explore(start, header, bounds, features, interrupted, started, stack, tally, travelled,
                                  witnesses, counts)
        except BoundReached as reached:
            incomplete = _stopped(reached.kind, bounds, len(tally))
    runs, moves_total, deepest = counts
    outcomes = tuple(Outcome(end.values, count, index, end.error, travelled=travelled[end])
                     for end, (count, index) in tally.items())
    verdict, strength = judge(Claims(QuestionKind.OUTCOMES, stopped=incomplete is not None))
    report = (BoundReport("runs", str(bounds.runs), runs >= bounds.runs and bool(stack)),
              BoundReport("depth", str(bounds.depth), incomplete is not None and "depth" in incomplete))
    return stable_numbers(Result("explore", subject, verdict, strength, Stats(0, moves_total, deepest, runs), outcomes,
                                 (), (), tuple(witnesses), report, incomplete, kind=QuestionKind.OUTCOMES))


def _explore(start: Callable[[], Behavior], header: tuple[str, str, str | None], bounds: Bounds,
             features: Callable[[dict[str, str]], dict[str, str]] | None,
             interrupted: Callable[[], bool] | None, started: float,
             stack: list[tuple[tuple[Move, ...], tuple[Choice, ...]]], tally: dict[Ending, list[int]],
             travelled: dict[Ending, Travelled | None], witnesses: list[Witness], counts: list[int]) -> str | None:
    """The linearizations, depth first, until the stack empties or a bound is hit between runs;
    `counts` (runs, moves, deepest) grow as they run, so a bound hit inside a run keeps them;
    `header` (behavior, model hash, performer) names what the witnesses are of."""
    behavior, digest, performer = header
    incomplete: str | None = None
    while stack:
        if counts[0] >= bounds.runs:
            incomplete = f"runs budget {bounds.runs} hit after {counts[0]} runs"
            break
        if bounds.timeout is not None and time.monotonic() - started > bounds.timeout:
            incomplete = f"time: {bounds.timeout:g}s bound hit after {counts[0]} runs"
            break
        if interrupted is not None and interrupted():
            incomplete = f"interrupted after {counts[0]} runs"
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
        counts[0] += 1
        counts[1] += len(taken)
        counts[2] = max(counts[2], len(taken))
        if cut:
            incomplete = incomplete or f"depth bound {bounds.depth} hit"
            continue
        end = ending_of(run, features)
        if end not in tally:
            _, trace, _ = replay(start, taken)
            witnesses.append(Witness(behavior, digest, "explore", end.claims(), tuple(made), tuple(trace), performer))
            tally[end] = [0, len(witnesses)]
            travelled[end] = run.travelled()
        tally[end][0] += 1
    return incomplete


def _stopped(kind: str, bounds: Bounds, outcomes: int) -> str:
    """Why a run stopped inside a move, in the words explore reports its other bounds with."""
    if kind == "time":
        return f"time: {bounds.timeout:g}s bound hit inside a run ({outcomes} outcomes found)"
    if kind == "memory":
        limit = spell_bytes(bounds.memory_limit or 0)
        return f"memory: {limit} bound hit inside a run ({outcomes} outcomes found)"
    return f"interrupted inside a run ({outcomes} outcomes found)"


class Explore:
    """The explore engine: every linearization's outcome, each with a witness (the features compared
    are the question's `diverge`, or every attribute)."""

    name = "explore"
    answers = (QuestionKind.OUTCOMES,)
    strength = Strength.WITNESSED
    reads = frozenset({"diverge", "depth", "timeout", "memory", "witness_dir"})

    def status(self) -> Status:
        return READY

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result:
        if question.properties:
            raise EngineError("explore answers the outcomes of every linearization, not properties: "
                              "ask check for them")
        fixed_inputs_only(self.name, question)
        subject = program.action(question.subject).qualified_name
        wanted = feature_paths(program.start_action(subject, question.performer, fine=True), subject,
                               question.diverge)
        features = None if wanted is None else (lambda out: {k: v for k, v in out.items() if k in wanted})
        return explore(program, question.subject, bounds, features=features, performer=question.performer,
                       interrupted=_counting(hooks))


def _counting(hooks: Hooks) -> Callable[[], bool] | None:
    """The interrupt flag, also telling `hooks.runs` how often it was polled (once a run, between runs)."""
    interrupted, runs = hooks.interrupted, hooks.runs
    if runs is None:
        return interrupted
    count = [0]

    def polled() -> bool:
        count[0] += 1
        runs(count[0])
        return interrupted() if interrupted is not None else False

    return polled


ENGINE = Explore()
