"""Checks of state machines from the faces: the environment a check drives a machine with (the
CLI's --send/--events/--advance/--alphabet/--max-events, the prompt's queued %send and %events),
and the machine asked of the engines the session's settings select."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

from engines.check.machine import check_machine, explore_machine
from engines.framework import Result
from engines.runtime import Program, Script
from engines.runtime.states import (
    EnvEvent,
    EnvironmentInputError,
    parse_addressed,
    parse_duration,
    parse_send,
)
from opensysml_kernel.checking import CheckSettings, Interrupt, ProgressMeter, refuse_unread
from opensysml_kernel.machines import read_events

# what a check reports of a machine that rests: an outcome (quiescent), never a deadlock; the JSON key
RESTING = "quiescent"


@dataclass(frozen=True)
class Environment:
    """The environment a machine check drives the machine with, as the faces gather it (each change a
    new value, so a failing cell leaves the session's as it was)."""

    events: tuple[EnvEvent, ...] = ()
    alphabet: tuple[EnvEvent, ...] = ()
    max_events: int = 0
    horizon: Fraction | None = None

    @classmethod
    def of(cls, sends: Sequence[str] = (), events_file: str | None = None, advance: str | None = None,
           alphabet: str | None = None, max_events: str | None = None) -> Environment:
        """From the CLI's options; bad input is an EnvironmentInputError saying which and why."""
        events = list(read_events(events_file)) if events_file is not None else []
        events.extend(parse_addressed(text) for text in sends)
        letters: list[EnvEvent] = []
        if alphabet is not None:
            names = [n.strip() for n in alphabet.split(",")]
            if not all(names):
                raise EnvironmentInputError(f"--alphabet {alphabet}: name the signals, comma-separated: Go,Stop")
            letters = [parse_send(n) for n in names]
        if letters and max_events is None:
            raise EnvironmentInputError("--alphabet needs --max-events N: how many events the environment may send")
        if max_events is not None and not letters:
            raise EnvironmentInputError("--max-events bounds the events of an --alphabet: give one, e.g. "
                                        "--alphabet Go,Stop --max-events 3")
        return cls(tuple(events), tuple(letters), parse_count(max_events) if max_events is not None else 0,
                   parse_duration(advance) if advance is not None else None)

    def describe(self) -> list[str]:
        """The queue as %events shows it under a checking engine."""
        return [f"environment: {self.script().describe()}"]

    def script(self) -> Script:
        return Script(tuple(self.events), tuple(self.alphabet), self.max_events, self.horizon)


def parse_count(text: str) -> int:
    """--max-events N: a whole number, 0 or more."""
    try:
        count = int(text.strip())
    except ValueError:
        raise EnvironmentInputError(f"--max-events {text}: not a whole number (write e.g. --max-events 3)") from None
    if count < 0:
        raise EnvironmentInputError(f"--max-events {text}: the number of events is 0 or more")
    return count


def ask_machine(engine: str, program: Program, subject: str, script: Script, settings: CheckSettings,
                interrupted: Interrupt, meter: ProgressMeter, part: bool = False) -> Result:
    """One engine's answer about the machine `subject` (or, `part`, the part's instance) driven by `script`."""
    refuse_unread(settings, engine)
    bounds = settings.bounds()
    if engine == "explore":
        polled: Callable[[], bool] = interrupted
        return explore_machine(program, subject, script, bounds, settings.diverge, polled, part=part)
    return check_machine(program, subject, script, bounds, settings.properties, settings.diverge,
                         interrupted=interrupted, progress=meter, part=part)
