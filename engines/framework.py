"""What every engine answers and returns: Question, Bounds, Verdict, Strength, Result; the registry."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum, IntEnum

from engines.errors import EngineError
from engines.runtime.watch import Watch, default_memory_bound
from engines.witness import Choice as Choice
from engines.witness import Witness as Witness


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


@dataclass(frozen=True)
class Bounds:
    """How far a search may go; every bound hit is reported, and only a search that hit none is exhaustive."""

    depth: int = 10_000
    states: int = 1_000_000
    timeout: float | None = None
    runs: int = 1024
    memory: int | None = None  # bytes of resident memory; None: engines.runtime.watch.default_memory_bound()

    def with_(self, **changes: int | float | None) -> Bounds:
        values = {"depth": self.depth, "states": self.states, "timeout": self.timeout, "runs": self.runs,
                  "memory": self.memory}
        values.update({k: v for k, v in changes.items() if v is not None})
        memory = values["memory"]
        return Bounds(int(values["depth"]), int(values["states"]),  # type: ignore[arg-type]
                      values["timeout"], int(values["runs"]),  # type: ignore[arg-type]
                      int(memory) if memory is not None else None)

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

    def describe(self) -> str:
        if self.error is not None:
            return f"fails: {self.error}"
        return ", ".join(f"{k} = {v}" for k, v in self.values) or "(no features)"


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

    @property
    def exit_status(self) -> int:
        if self.verdict in (Verdict.VIOLATION, Verdict.DIVERGENT, Verdict.FAILED):
            return 1
        if self.verdict in (Verdict.EXHAUSTIVE, Verdict.COMPLETE, Verdict.COMPLETED):
            return 0
        return 2


Engine = Callable[..., Result]
_REGISTRY: dict[str, tuple[Engine, str]] = {}


def register(name: str, answers: str) -> Callable[[Engine], Engine]:
    def wrap(fn: Engine) -> Engine:
        _REGISTRY[name] = (fn, answers)
        return fn

    return wrap


def engines() -> list[tuple[str, str]]:
    """(name, what it answers) of every registered engine, by name."""
    return sorted((name, answers) for name, (_, answers) in _REGISTRY.items())


def engine(name: str) -> Engine:
    if name == "auto":
        name = "check"
    if name not in _REGISTRY:
        raise EngineError(f"unknown engine '{name}': use {', '.join(sorted(_REGISTRY))}, auto or all")
    return _REGISTRY[name][0]


def ask(program: object, question: Question, engine_name: str = "auto", bounds: Bounds | None = None,
        **options: object) -> Result:
    """Put a question to an engine: `auto` is explore for the outcomes, check for holds and sensitive."""
    if engine_name == "auto":
        engine_name = "explore" if question.kind is QuestionKind.OUTCOMES else "check"
    answer = engine(engine_name)
    if engine_name == "check":
        return answer(program, question.subject, bounds, properties=question.properties,
                      diverge=question.diverge, performer=question.performer, **options)
    if engine_name == "explore":
        if question.properties:
            raise EngineError("explore answers the outcomes of every linearization, not properties: "
                              "ask check for them")
        return answer(program, question.subject, bounds, performer=question.performer, **options)
    return answer(program, question.subject, bounds, **options)
