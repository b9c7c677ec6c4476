"""Checks from the faces: the check settings, the engine selection, the call into the engines with
Ctrl-C turned into `incomplete: interrupted`, and the live progress line."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from types import FrameType
from typing import Any, Protocol

from engines.framework import (
    Bounds,
    Engine,
    Hooks,
    Question,
    QuestionKind,
    Result,
    Stats,
    Strength,
    Verdict,
    WorkerFigures,
    ask,
    engine,
    imbalance,
)
from engines.framework import engines as registered
from engines.framework import names as engine_names
from engines.runtime import Program
from engines.runtime.watch import spell_bytes
from ir.errors import SysmlError
from opensysml_kernel.errors import EngineUnavailableError, SettingNotReadError

DETERMINISTIC = "OPENSYSML_KERNEL_DETERMINISTIC"
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)(ms|s|m|h)?$")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


def engine_choices() -> tuple[str, ...]:
    """What `%engine` and `--engine` take: a stepping run, each registered engine, all of them, or auto."""
    return ("run", *engine_names(), "all", "auto")


def deterministic() -> bool:
    """Under test: no progress lines, no timings."""
    return os.environ.get(DETERMINISTIC, "") not in ("", "0")


def parse_duration(text: str) -> float:
    """`10s`, `500ms`, `2m`, `1h`, or a number of seconds."""
    match = _DURATION.match(text.strip())
    if match is None or float(match.group(1)) <= 0:
        raise ValueError(f"'{text}' is not a duration: use e.g. 10s, 500ms, 2m")
    return float(match.group(1)) * _UNITS[match.group(2)]


def spell_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:g}ms"
    return f"{seconds:g}s"


@dataclass(frozen=True)
class CheckSettings:
    """The settings `%engine` and the `%check-*` commands hold; unset fields are the engines' defaults."""

    engine: str = "auto"
    properties: tuple[str, ...] = ()
    diverge: tuple[str, ...] | None = None
    witness_dir: str | None = None
    depth: int | None = None
    states: int | None = None
    timeout: float | None = None
    memory: int | None = None  # bytes; None: half the machine's memory (engines.runtime.watch)
    inputs: tuple[str, ...] = ()  # features left free in their declared domains (smt)
    assumptions: tuple[str, ...] = ()  # constraints assumed over the initial state (smt)
    unroll: int | None = None  # body loops unrolled this often (smt); None: the engine's default
    solver_timeout: float | None = None  # seconds per solver query (smt); None: the engine's default
    induction: bool = False  # try an unbounded proof by k-induction (smt)
    workers: int | None = None  # the check partitioned over this many Ray workers; None: one process

    def with_(self, **changes: Any) -> CheckSettings:
        return replace(self, **changes)

    @property
    def has_check_setting(self) -> bool:
        return bool(self.properties) or self.diverge is not None or self.witness_dir is not None or any(
            b is not None for b in (self.depth, self.states, self.timeout, self.unroll, self.solver_timeout,
                                    self.workers)) or \
            bool(self.inputs) or bool(self.assumptions) or self.induction

    def engines(self) -> tuple[str, ...]:
        """The engines `%action` asks: () for a stepping run."""
        if self.engine == "run" or (self.engine == "auto" and not self.has_check_setting):
            return ()
        if self.engine == "all":
            # the engine auto asks first: the report's verdict is its
            first = engine("auto").name
            return (first, *(name for name in engine_names() if name != first))
        if self.engine == "auto":
            return (engine("auto").name,)
        return (self.engine,)

    def bounds(self) -> Bounds:
        return Bounds().with_(depth=self.depth, states=self.states, timeout=self.timeout, memory=self.memory,
                              unroll=self.unroll, solver_timeout=self.solver_timeout, workers=self.workers)

    def given(self) -> dict[str, bool]:
        """Which settings an engine might not read are set, by the name engines' `reads` use."""
        return {"properties": bool(self.properties), "states": self.states is not None,
                "inputs": bool(self.inputs), "assumptions": bool(self.assumptions),
                "unroll": self.unroll is not None, "solver_timeout": self.solver_timeout is not None,
                "induction": self.induction, "workers": self.workers is not None}

    def bounds_lines(self) -> list[str]:
        default = Bounds()
        shown = [
            ("depth", str(self.depth if self.depth is not None else default.depth), self.depth is None),
            ("states", str(self.states if self.states is not None else default.states), self.states is None),
            ("timeout", spell_duration(self.timeout) if self.timeout is not None else "none", self.timeout is None),
        ]
        if self.memory is not None:  # shown once set: the default depends on the machine
            shown.append(("memory", spell_bytes(self.memory).replace(" ", ""), False))
        # the solver's bounds, shown once set (their defaults are the smt engine's)
        if self.unroll is not None:
            shown.append(("unroll", str(self.unroll), False))
        if self.solver_timeout is not None:
            shown.append(("solver", spell_duration(self.solver_timeout), False))
        if self.induction:
            shown.append(("induction", "on", False))
        if self.workers is not None:
            shown.append(("workers", str(self.workers), False))
        return [f"{name}={value}" + (" (default)" if unset else "") for name, value, unset in shown]


# ---------------------------------------------------------------- progress


class ProgressSink(Protocol):
    """Where a live progress line goes: shown (and replaced) while a check runs, removed at its end."""

    def update(self, text: str) -> None: ...

    def close(self) -> None: ...


def spread(workers: tuple[WorkerFigures, ...]) -> str:
    """How a partitioned search stands across its workers: the states left to expand, how evenly the
    states are owned (the most one worker owns over the mean), and each worker's memory."""
    owned = " | ".join(str(w.states) for w in workers)
    memory = " | ".join(f"{w.memory / 2**20:,.0f}" for w in workers)
    return (f"{sum(w.frontier for w in workers)} to expand, owned {owned} (balance {imbalance(workers):.2f}),"
            f" memory {memory} MB")


class ProgressMeter:
    """Called by an engine with (states, moves, depth); shows a line once a check has run a second."""

    DELAY = 1.0
    EVERY = 0.25

    def __init__(self, subject: str, sink: ProgressSink | None, clock: Callable[[], float] = time.monotonic) -> None:
        self.subject = subject
        self.sink = None if deterministic() else sink
        self.clock = clock
        self.started = clock()
        self.last = 0.0
        self.shown = False

    def __call__(self, states: int, moves: int, depth: int, workers: tuple[WorkerFigures, ...] = ()) -> None:
        if self.sink is None:
            return
        now = self.clock()
        elapsed = now - self.started
        if elapsed < self.DELAY or now - self.last < self.EVERY:
            return
        self.last = now
        rate = states / elapsed if elapsed > 0 else 0.0
        if not workers:
            self.sink.update(f"checking {self.subject}: {states} states, {moves} moves, depth {depth},"
                             f" {rate:,.0f} states/s")
        else:
            self.sink.update(f"checking {self.subject} over {len(workers)} workers: {states} states, {moves} moves,"
                             f" level {depth}, {rate:,.0f} states/s; {spread(workers)}")
        self.shown = True

    def runs(self, count: int) -> None:
        """explore's progress: the runs so far."""
        if self.sink is None:
            return
        now = self.clock()
        if now - self.started < self.DELAY or now - self.last < self.EVERY:
            return
        self.last = now
        self.sink.update(f"exploring {self.subject}: {count} runs, {count / (now - self.started):,.0f} runs/s")
        self.shown = True

    def close(self) -> None:
        if self.sink is not None and self.shown:
            self.sink.close()


# ---------------------------------------------------------------- interrupts


class Interrupt:
    """A flag the engines poll between moves; Ctrl-C sets it (a second Ctrl-C raises KeyboardInterrupt)."""

    def __init__(self) -> None:
        self.set = False

    def __call__(self) -> bool:
        return self.set


@contextmanager
def interruptible() -> Iterator[Interrupt]:
    """For the duration of an engine call, SIGINT sets the flag instead of raising (main thread only)."""
    flag = Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if flag.set:
            raise KeyboardInterrupt
        flag.set = True

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except (ValueError, OSError):
        yield flag
        return
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def interrupted_result(engine: str, subject: str) -> Result:
    """What is reported when the engine could not hand back its partial search."""
    return Result(engine, subject, Verdict.INCOMPLETE, Strength.NOT_COVERED, Stats(), incomplete="interrupted")


# ---------------------------------------------------------------- engines


def engine_rows() -> list[tuple[str, str, str, str]]:
    """`%engines`: engine, what it answers, the strongest claim it makes, its status."""
    rows = [("run", "one schedule (a stepping run)", Strength.OBSERVED.word, "ready")]
    for each in registered():
        answers = ", ".join(kind.value for kind in each.answers)
        rows.append((each.name, answers, each.strength.word if each.answers else "", each.status().text))
        if each.name == "check":
            from engines.check.parallel import status as parallel_status

            rows.append(("check --workers", f"{answers}, over Ray workers", each.strength.word,
                         parallel_status().text))
    return rows


# What a setting is, in the words its refusal uses: (the setting, is/are, it/them).
_SETTINGS = {
    "properties": ("the properties (%check-property, --property)", "are", "them"),
    "states": ("the states bound (%check-bounds states=, --states)", "is", "it"),
    "inputs": ("the free inputs (%check-input, --input)", "are", "them"),
    "assumptions": ("the assumptions (%check-assume, --assume)", "are", "them"),
    "unroll": ("the unroll bound (%check-bounds unroll=, --unroll)", "is", "it"),
    "workers": ("the parallel search's workers (%check-bounds workers=, --workers)", "are", "them"),
    "solver_timeout": ("the solver time bound (%check-bounds solver=, --solver-timeout)", "is", "it"),
    "induction": ("k-induction (%check-bounds induction=on, --induction)", "is", "it"),
}
# What changes the question itself: under `all`, an engine that does not read it is not asked. (k-induction
# asks for a stronger proof of the same question: the others answer it as they can.)
_ASKING = ("inputs", "assumptions")


def unread(settings: CheckSettings, name: str, asking_only: bool = False) -> str | None:
    """Why the engine cannot take the settings (a setting it does not read, named with the engines that
    read it), or None; with `asking_only`, only the settings that change the question count."""
    chosen = engine(name)
    for setting, given in settings.given().items():
        if not given or setting in chosen.reads or (asking_only and setting not in _ASKING):
            continue
        what, verb, pronoun = _SETTINGS[setting]
        readers = " or ".join(e.name for e in registered() if setting in e.reads)
        if not readers:
            return f"{what} {verb} read by no engine installed here: drop {pronoun}"
        said = f"{what} {verb} read by the {readers} engine, not {chosen.name}"
        return said if asking_only else f"{said}: select {readers} or all, or drop {pronoun}"
    return None


def refuse_unread(settings: CheckSettings, name: str) -> None:
    """A setting the engine does not read, named with the engines that read it."""
    why = unread(settings, name)
    if why is not None:
        raise SettingNotReadError(why)


def question_for(chosen: Engine, subject: str, settings: CheckSettings, performer: str | None) -> Question:
    """What `%action` asks the engine about `subject` under the settings: whether the properties hold
    (or the features are sensitive), or, of an engine that answers only that, the outcomes."""
    kind = QuestionKind.HOLDS if settings.properties else QuestionKind.SENSITIVE
    if kind not in chosen.answers and QuestionKind.OUTCOMES in chosen.answers:
        # the properties are not its to answer (refuse_unread says so when it alone runs)
        return Question(QuestionKind.OUTCOMES, subject, diverge=settings.diverge, performer=performer)
    return Question(kind, subject, settings.properties, settings.diverge, performer, settings.inputs,
                    settings.assumptions, settings.induction)


def applying(program: Program, subject: str, settings: CheckSettings, kind: str = "action") -> tuple[CheckSettings, tuple[str, ...]]:
    """The settings with only the properties that apply to the behavior `subject` (an action, or with
    `kind` "state" a machine, "part" an instance): those whose every name is a feature of it or a name the model resolves;
    and for each left out, a line saying why. A property that applies to no behavior of the model at all
    is refused as it stands (a name misspelt is an error, not a property for another action)."""
    from engines.check.properties import resolve_properties
    from ir.errors import ResolveError

    def find(name: str) -> Any:
        return program.state(name) if kind == "state" else program.part(name) if kind == "part" else program.action(name)

    kept: list[str] = []
    notes: list[str] = []
    for name in settings.properties:
        try:
            resolve_properties(program, find(subject), (name,))
        except ResolveError as missing:
            others = [b for k, b in _outermost(program) if b != subject and _applies(program, b, k, name)]
            if not others:
                raise
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            notes.append(f"not applying: {name} reads '{missing.name}', which {subject} does not have"
                         f" (it applies to {shown})")
            continue
        kept.append(name)
    return settings.with_(properties=tuple(kept)), tuple(notes)


def with_asserted(program: Program, subject: str, settings: CheckSettings,
                  kind: str = "action") -> tuple[CheckSettings, tuple[str, ...]]:
    """The settings with the constraints the behavior asserts of its performances (`assert constraint`)
    among the properties, and a line saying so for each: an assertion is the model's own claim, so a check
    of the behavior checks it, named or not (an engine that answers no properties leaves it out)."""
    from engines.check.properties import asserted, step_asserted

    if kind not in ("action", "state", "part"):
        return settings, ()
    behavior = program.state(subject) if kind == "state" else program.part(subject) if kind == "part" \
        else program.action(subject)

    def named(name: str) -> bool:
        return name in settings.properties or name.rsplit("::", 1)[-1] in settings.properties

    added = [name for name in asserted(program, behavior) if not named(name)]
    notes = tuple(f"asserted: {name} is checked at every stable state" for name in added)
    nested = step_asserted(program, behavior)
    steps = [name for name in nested if not named(name)]

    def what(name: str) -> str:
        """A machine's entry, do or exit, or an effect, is a behavior; an action's is a step."""
        owner = program.model.element(name.removesuffix(f"::{nested[name][0]}.{name.rsplit('.', 1)[-1]}"))
        return "behavior" if owner is not None and owner.base_kind == "state" else "step"

    notes += tuple(f"asserted: {name} is checked where each performance of {what(name)} {nested[name][0]} ends"
                   for name in steps)
    added += steps
    if not added:
        return settings, notes
    return settings.with_(properties=(*settings.properties, *added)), notes


def _outermost(program: Program) -> list[tuple[str, str]]:
    """The actions and machines a modeler runs: (kind, name), those nested in another left out."""
    found = [(k, b) for k in ("action", "state") for b in program.model.behaviors(k)]
    names = {b for _, b in found}
    return [(k, b) for k, b in found if b.rpartition("::")[0] not in names]


def _applies(program: Program, behavior: str, kind: str, name: str) -> bool:
    from engines.check.properties import resolve_properties

    try:
        resolve_properties(program, program.state(behavior) if kind == "state" else program.action(behavior), (name,))
    except SysmlError:
        return False
    return True


def not_asked(name: str, subject: str, why: str) -> Result:
    """Under `all`, an engine that cannot take the question: shown beside the others as not covered."""
    return Result(name, subject, Verdict.NOT_COVERED, Strength.NOT_COVERED, Stats(), reason=why)


def run_engine(name: str, program: Program, subject: str, settings: CheckSettings, performer: str | None,
               interrupted: Interrupt, meter: ProgressMeter) -> Result:
    """One engine's answer, asked through the framework's seam; Ctrl-C inside it is `incomplete: interrupted`."""
    chosen = engine(name)
    status = chosen.status()
    if not status.ready:
        raise EngineUnavailableError(f"the {name} engine cannot answer here: {status.text}")
    question = question_for(chosen, subject, settings, performer)
    hooks = Hooks(interrupted, meter, meter.runs)
    bounds = settings.bounds()
    default_depth = getattr(chosen, "default_depth", None)
    if settings.depth is None and isinstance(default_depth, int):
        bounds = bounds.with_(depth=default_depth)  # the engine's own k where none was set
    try:
        return ask(program, question, name, bounds, hooks)
    except KeyboardInterrupt:
        return interrupted_result(name, subject)
