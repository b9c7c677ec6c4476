"""What every engine answers and returns: Question, Bounds, Verdict, Strength, Result; the one policy
that reads a verdict and its strength from what a search showed; Engine and the registry of engines."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from enum import Enum, IntEnum
from typing import TYPE_CHECKING, Protocol

from engines.errors import EngineError, EngineUnavailable
from engines.runtime.behavior import Behavior, Travelled
from engines.runtime.watch import Watch, default_memory_bound
from engines.witness import Choice as Choice
from engines.witness import Witness as Witness

if TYPE_CHECKING:
    from engines.runtime import Program


class QuestionKind(Enum):
    RUN = "run"  # one schedule under a fixed policy
    OUTCOMES = "outcomes"  # every final state the schedules reach
    HOLDS = "holds"  # no schedule violates the properties or deadlocks
    SENSITIVE = "sensitive"  # whether a feature's final value depends on the schedule


@dataclass(frozen=True)
class Question:
    """A question about one behavior: which features to compare, which properties to hold."""

    kind: QuestionKind
    subject: str
    properties: tuple[str, ...] = ()
    diverge: tuple[str, ...] | None = None  # None: every attribute of the action
    performer: str | None = None
    inputs: tuple[str, ...] = ()  # features released into their declared domains (smt)
    assumptions: tuple[str, ...] = ()  # constraints assumed over the initial state (smt)
    induction: bool = False  # ask for an unbounded proof by k-induction (smt)


@dataclass(frozen=True)
class Bounds:
    """How far a search may go; every bound hit is reported, and only a search that hit none is exhaustive."""

    depth: int = 10_000
    states: int = 1_000_000
    timeout: float | None = None
    runs: int = 1024
    memory: int | None = None  # bytes of resident memory; None: engines.runtime.watch.default_memory_bound()
    unroll: int | None = None  # body loops unrolled this often (smt); None: the engine's default
    solver_timeout: float | None = None  # seconds per solver query (smt); None: the engine's default
    workers: int | None = None  # the check partitioned over this many Ray workers (engines/check/parallel.py)

    def with_(self, **changes: int | float | None) -> Bounds:
        """These bounds with the given ones changed; a None leaves a bound as it is."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})  # type: ignore[arg-type]

    def watch(self, started: float, interrupted: Callable[[], bool] | None = None) -> Watch:
        """The bounds an engine call keeps inside its moves, from `started` (time.monotonic())."""
        deadline = started + self.timeout if self.timeout is not None else None
        return Watch(deadline, interrupted, self.memory_limit)

    @property
    def memory_limit(self) -> int | None:
        """The memory bound kept: the one given, else the machine's default (None where unknown)."""
        return self.memory if self.memory is not None else default_memory_bound()


class Verdict(Enum):
    EXHAUSTIVE = "no violation, exhaustive"
    WITHIN_BOUNDS = "no violation within bounds"
    VIOLATION = "violation"
    DIVERGENT = "divergent"
    INCOMPLETE = "incomplete"
    COMPLETE = "complete"  # explore: every linearization run
    COMPLETED = "completed"  # run: the one schedule completed
    FAILED = "failed"  # run: the one schedule failed
    # What a solver's answer shows (smt); {k} is the depth bound, filled in by `spell`.
    PROVED = "proved"
    WITHIN_MOVES = "no violation within {k} moves"
    PROVED_UNBOUNDED = "proved, unbounded (k-induction at {k})"
    VIOLATED = "violated"
    SENSITIVE = "sensitive"
    NOT_SENSITIVE = "not sensitive"
    NOT_SENSITIVE_UNBOUNDED = "not sensitive, unbounded (k-induction at {k})"
    SENSITIVITY_WITHIN = "no sensitivity found within {k} moves"
    NOT_COVERED = "not covered"

    def spell(self, k: str) -> str:
        return self.value.replace("{k}", k)

    @property
    def solved(self) -> bool:
        """A solver's verdict, reported with what the query assumed."""
        return self in _SOLVED


_SOLVED = frozenset({Verdict.PROVED, Verdict.WITHIN_MOVES, Verdict.PROVED_UNBOUNDED, Verdict.VIOLATED,
                     Verdict.SENSITIVE, Verdict.NOT_SENSITIVE, Verdict.NOT_SENSITIVE_UNBOUNDED,
                     Verdict.SENSITIVITY_WITHIN, Verdict.NOT_COVERED})
PASSED = frozenset({Verdict.EXHAUSTIVE, Verdict.COMPLETE, Verdict.COMPLETED, Verdict.PROVED,
                    Verdict.PROVED_UNBOUNDED, Verdict.NOT_SENSITIVE, Verdict.NOT_SENSITIVE_UNBOUNDED})
FAILING = frozenset({Verdict.VIOLATION, Verdict.DIVERGENT, Verdict.FAILED, Verdict.VIOLATED, Verdict.SENSITIVE})


class Strength(IntEnum):
    """How strong a claim is, weakest first."""

    NOT_COVERED = 0
    OBSERVED = 1
    WITNESSED = 2
    BOUNDED = 3
    PROVED = 4

    @property
    def word(self) -> str:
        return self.name.lower().replace("_", " ")


class UnknownFeatureError(EngineError, LookupError):
    """A feature named for divergence that nothing in the behavior holds."""


def feature_paths(probe: Behavior, subject: str, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """The features a question names, as the behavior's outputs name them; UnknownFeatureError, listing
    what it holds, for a name it may never report (before any search, by every engine)."""
    if names is None:
        return None
    paths = tuple(probe.feature_path(f) for f in names)
    known = probe.known_features()
    unknown = [f for f in paths if f not in known]
    if unknown:
        raise UnknownFeatureError(f"nothing in {subject} holds {', '.join(repr(u) for u in unknown)}: the features "
                                  "it holds are " + ", ".join(sorted(known)))
    return paths


@dataclass(frozen=True)
class Outcome:
    """One final state: the features' values (or the error), how many schedules reach it, a witness,
    and the properties it violates.

    Witness numbers are 1-based into Result.witnesses, in every engine; 0 means none."""

    values: tuple[tuple[str, str], ...]
    schedules: int
    witness: int
    error: str | None = None
    violates: tuple[str, ...] = ()  # the properties false in this final state (check)
    # a machine's or an instance's states entered and objects' ends, on the schedule its witness takes
    travelled: Travelled | None = None

    def describe(self) -> str:
        if self.error is not None:
            return f"fails: {self.error}"
        return ", ".join(f"{k} = {v}" for k, v in self.values) or "(no features)"


@dataclass(frozen=True)
class Input:
    """A feature a solver's question ranges over (free) or holds at the model's value (pinned), with
    the domain its declared type gives it."""

    name: str
    domain: str  # e.g. "Integer", "Boolean", "Mode::{fast, slow}"
    free: bool = True
    value: str | None = None  # the value it is pinned at


@dataclass(frozen=True)
class BoundReport:
    name: str
    limit: str
    reached: bool


@dataclass(frozen=True)
class Stats:
    states: int = 0
    moves: int = 0
    depth: int = 0
    runs: int = 0
    fingerprint_bits: int = 0  # how wide the fingerprints of the visited set are (0: no visited set)

    def collision_odds(self) -> float:
        """The chance that two of the states searched share a fingerprint, so that one was taken for the
        other and not searched (TLC's optimistic estimate: n(n-1)/2 pairs, each alike with 2^-bits)."""
        if not self.fingerprint_bits:
            return 0.0
        return self.states * (self.states - 1) / 2 / 2.0 ** self.fingerprint_bits


@dataclass(frozen=True)
class Violation:
    kind: str  # property, deadlock, fails
    text: str
    moves: int
    witness: int


@dataclass(frozen=True)
class Result:
    """An engine's answer: what it claims, how strongly, over what it searched, with witnesses."""

    engine: str
    subject: str
    verdict: Verdict
    strength: Strength
    stats: Stats
    outcomes: tuple[Outcome, ...] = ()
    violations: tuple[Violation, ...] = ()
    divergent: tuple[tuple[str, tuple[tuple[str, int], ...]], ...] = ()
    witnesses: tuple[Witness, ...] = ()
    bounds: tuple[BoundReport, ...] = ()
    incomplete: str | None = None
    notes: tuple[str, ...] = field(default=())
    kind: QuestionKind | None = None  # the question answered, where the report depends on it (outcomes)
    # what a solver's answer assumed (smt): the inputs and their domains, the constraints assumed,
    # the arithmetic, and why a question was not covered
    inputs: tuple[Input, ...] = ()
    assumptions: tuple[str, ...] = ()
    arithmetic: str | None = None
    reason: str | None = None

    @property
    def exit_status(self) -> int:
        if self.verdict in FAILING:
            return 1
        if self.verdict in PASSED:
            return 0
        return 2

    def bound(self, name: str) -> BoundReport | None:
        return next((b for b in self.bounds if b.name == name), None)

    @property
    def said(self) -> str:
        """The verdict in words, the depth bound filled in where it names it."""
        depth = self.bound("depth")
        return self.verdict.spell(depth.limit if depth is not None else "k")


def _schedule_key(witness: Witness) -> tuple[int, ...]:
    """A witness's schedule as the position of the move taken among those enabled at each step (a step
    with no choice line took the first): the same schedule gives the same key in every engine."""
    taken = {c.step: c.enabled.index(c.taken) for c in witness.choices}
    return tuple(taken.get(step, 0) for step in range(1, witness.last_step + 1))


def _matches(outcome: Outcome, witness: Witness) -> bool:
    """Whether the witness ends in the outcome: it claims a value of every feature the outcome has,
    each the outcome's (a witness claiming some of them may end in another outcome that shares them)."""
    claimed = {c.subject: c.value for c in witness.claims if c.kind.value == "value"}
    return outcome.error is None and bool(claimed) and claimed == dict(outcome.values)


def stable_numbers(result: Result) -> Result:
    """The result with its witnesses numbered by a stable order of their schedules (the moves chosen,
    step by step; a prefix first), not by the order a search found them, so one schedule has one number
    under every engine; every reference renumbered, and an outcome without a witness given the first
    witness that ends in it."""
    if not result.witnesses:
        return result
    order = sorted(range(len(result.witnesses)),
                   key=lambda i: (_schedule_key(result.witnesses[i]),
                                  tuple(c.line() for c in result.witnesses[i].claims), i))
    number = {old + 1: new for new, old in enumerate(order, 1)}
    witnesses = tuple(result.witnesses[i] for i in order)

    def renumbered(index: int) -> int:
        return number.get(index, 0)

    def linked(outcome: Outcome) -> Outcome:
        index = renumbered(outcome.witness)
        if index == 0:
            index = next((n for n, w in enumerate(witnesses, 1) if _matches(outcome, w)), 0)
        return replace(outcome, witness=index)

    return replace(result, witnesses=witnesses, outcomes=tuple(linked(o) for o in result.outcomes),
                   violations=tuple(replace(v, witness=renumbered(v.witness)) for v in result.violations),
                   divergent=tuple((feature, tuple((value, renumbered(i)) for value, i in values))
                                   for feature, values in result.divergent))


# ---------------------------------------------------------------- the verdict policy


@dataclass(frozen=True)
class Claims:
    """What a search showed, before anything is concluded from it: the one input of `judge`."""

    kind: QuestionKind
    violations: int = 0  # violations whose witness replayed
    divergent: int = 0  # features shown sensitive, every witness replayed
    unreplayed: int = 0  # claims whose witness did not replay (a disagreement, said in the notes)
    stopped: bool = False  # the search stopped before it could finish (time, memory, interrupt)
    bounds_hit: bool = False  # a bound (depth, states, unroll, runs) cut a schedule short, or could have
    proof: bool = False  # absence is shown by a proof (a solver's unsat), not by running every schedule
    refused: bool = False  # nothing was decided: a construct refused, the solver undecided
    induction: bool = False  # the proof is unbounded (k-induction closed)


def judge(claims: Claims) -> tuple[Verdict, Strength]:
    """The verdict and its strength, the same for every engine: a replayed witness is witnessed; absence
    is as strong as the search that showed it; a claim that did not replay covers nothing."""
    if claims.kind is QuestionKind.OUTCOMES:
        if claims.stopped or claims.bounds_hit or claims.refused:
            return Verdict.INCOMPLETE, Strength.OBSERVED
        return Verdict.COMPLETE, Strength.WITNESSED
    if claims.proof:
        return _solved(claims)
    if claims.violations:
        return Verdict.VIOLATION, Strength.WITNESSED
    if claims.divergent:
        return Verdict.DIVERGENT, Strength.WITNESSED
    if claims.stopped:
        verdict = Verdict.INCOMPLETE
    elif claims.bounds_hit:
        verdict = Verdict.WITHIN_BOUNDS
    else:
        verdict = Verdict.EXHAUSTIVE
    if claims.unreplayed:
        return verdict, Strength.NOT_COVERED
    if verdict is Verdict.EXHAUSTIVE:
        return verdict, Strength.PROVED if claims.proof else Strength.BOUNDED
    if verdict is Verdict.WITHIN_BOUNDS and claims.proof:
        return verdict, Strength.BOUNDED
    return verdict, Strength.OBSERVED


def _solved(claims: Claims) -> tuple[Verdict, Strength]:
    """A solver's answer: a model counts once its witness replayed; unknown, a refusal or a replay that
    disagrees decide nothing; an unsat is a proof only when no bound flag could be set."""
    sensitivity = claims.kind is QuestionKind.SENSITIVE
    if claims.violations:
        return Verdict.VIOLATED, Strength.WITNESSED
    if claims.divergent:
        return Verdict.SENSITIVE, Strength.WITNESSED
    if claims.refused or claims.stopped or claims.unreplayed:
        return Verdict.NOT_COVERED, Strength.NOT_COVERED
    if claims.induction:
        return (Verdict.NOT_SENSITIVE_UNBOUNDED if sensitivity else Verdict.PROVED_UNBOUNDED), Strength.PROVED
    if claims.bounds_hit:
        return (Verdict.SENSITIVITY_WITHIN if sensitivity else Verdict.WITHIN_MOVES), Strength.BOUNDED
    return (Verdict.NOT_SENSITIVE if sensitivity else Verdict.PROVED), Strength.PROVED


# ---------------------------------------------------------------- engines


@dataclass(frozen=True)
class WorkerFigures:
    """One worker's share of a partitioned search (engines/check/parallel.py), as of its last round."""

    states: int  # the states it owns
    frontier: int  # of those, the ones still to expand
    moves: int  # moves it made
    sent: int  # states it sent to other workers
    sent_bytes: int
    memory: int  # its resident memory, in bytes
    busy: float  # seconds spent expanding, receiving and keeping states


def imbalance(workers: tuple[WorkerFigures, ...]) -> float:
    """The most states one worker owns over the mean (1.0: perfectly even)."""
    mean = sum(w.states for w in workers) / len(workers)
    return max(w.states for w in workers) / mean if mean else 1.0


class Progress(Protocol):
    """How far a search has come, told now and then: its states, moves and depth so far (a partitioned
    search's depth is its level), and each worker's figures where it is partitioned."""

    def __call__(self, states: int, moves: int, depth: int, workers: tuple[WorkerFigures, ...] = ()) -> None: ...


@dataclass(frozen=True)
class Hooks:
    """What the asker lends an engine for one answer: a flag polled between moves and progress callbacks."""

    interrupted: Callable[[], bool] | None = None
    progress: Progress | None = None
    runs: Callable[[int], None] | None = None  # runs so far (an engine that enumerates schedules)


@dataclass(frozen=True)
class Status:
    """Whether an engine can answer here, in a line: `ready`, `ready (z3 4.13.0)`, `not available (...)`."""

    ready: bool
    text: str


READY = Status(True, "ready")


class Engine(Protocol):
    """An engine: its name, the questions it answers, the strongest claim it makes, the settings it reads,
    whether it can run here, and its answer to a question within bounds."""

    @property
    def name(self) -> str: ...

    @property
    def answers(self) -> tuple[QuestionKind, ...]: ...

    @property
    def strength(self) -> Strength: ...

    @property
    def reads(self) -> frozenset[str]: ...

    def status(self) -> Status: ...

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result: ...


@dataclass(frozen=True)
class Unavailable:
    """An engine whose module does not import here: listed with why, refusing every question."""

    name: str
    path: str
    why: str
    answers: tuple[QuestionKind, ...] = ()
    strength: Strength = Strength.NOT_COVERED
    reads: frozenset[str] = frozenset()

    def status(self) -> Status:
        return Status(False, f"not available ({self.path.partition(':')[0]} does not import: {self.why})")

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result:
        raise EngineUnavailable(f"the {self.name} engine is not available in this installation: {self.why}")


# The engines by import path, in the order they are listed and `auto` prefers them: one line adds one.
_PATHS: dict[str, str] = {
    "explore": "engines.explore:ENGINE",
    "check": "engines.check.search:ENGINE",
    "smt": "engines.smt.engine:ENGINE",
}
_LOADED: dict[str, Engine] = {}


def register(name: str, path: str) -> None:
    """Add (or replace) the engine `name`, found at `module:attribute`, loaded when first asked for."""
    _PATHS[name] = path
    _LOADED.pop(name, None)


def path(name: str) -> str | None:
    """Where the engine `name` is found (`module:attribute`), or None when none is registered."""
    return _PATHS.get(name)


def unregister(name: str) -> None:
    _PATHS.pop(name, None)
    _LOADED.pop(name, None)


def names() -> tuple[str, ...]:
    """The registered engines' names, in registry order."""
    return tuple(_PATHS)


def engine(name: str) -> Engine:
    """The engine `name` (an `Unavailable` one when its module does not import); `auto` is check."""
    if name == "auto":
        name = "check"
    if name not in _PATHS:
        raise EngineError(f"unknown engine '{name}': use {', '.join(sorted(_PATHS))}, auto or all")
    if name not in _LOADED:
        module, _, attribute = _PATHS[name].partition(":")
        try:
            found: Engine = getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError) as error:
            found = Unavailable(name, _PATHS[name], str(error))
        _LOADED[name] = found
    return _LOADED[name]


def engines() -> list[Engine]:
    """Every registered engine, in registry order."""
    return [engine(name) for name in _PATHS]


def auto(kind: QuestionKind) -> Engine:
    """The engine `auto` asks: the first registered one that answers the question's kind."""
    for candidate in engines():
        if kind in candidate.answers:
            return candidate
    raise EngineError(f"no engine answers the {kind.value} question")


def fixed_inputs_only(name: str, question: Question) -> None:
    """An engine that runs the inputs as the model binds them refuses a question that frees or assumes some."""
    if question.inputs or question.assumptions:
        raise EngineError(f"{name} runs the inputs the model binds: free inputs (--input) and assumptions"
                          " (--assume) are read by smt")


def ask(program: Program, question: Question, engine_name: str = "auto", bounds: Bounds | None = None,
        hooks: Hooks | None = None) -> Result:
    """Put a question to an engine by name, or to the one `auto` picks for its kind."""
    chosen = auto(question.kind) if engine_name == "auto" else engine(engine_name)
    return chosen.answer(program, question, bounds or Bounds(), hooks or Hooks())
