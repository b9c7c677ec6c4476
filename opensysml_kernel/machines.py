"""Machine runs for the faces: start a state machine, feed it the environment's events and time, and
report its configuration, pool, visits and values (the CLI's `run --state` and the `%state` family)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from engines.runtime.lowered import LoweredModel
from engines.runtime.states import (
    EnvEvent,
    EnvironmentInputError,
    MachineRun,
    events_from_json,
    parse_duration,
    parse_send,
    start_machine,
)
from engines.runtime.values import spell


def read_events(path: str) -> list[EnvEvent]:
    """`--events FILE.json`: the corpus's `events` list as it is (or a case file holding one)."""
    try:
        data: Any = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as err:
        raise EnvironmentInputError(f"--events {path}: {err.strerror or err}") from None
    except json.JSONDecodeError as err:
        raise EnvironmentInputError(f"--events {path}:{err.lineno}:{err.colno}: not JSON: {err.msg}") from None
    if isinstance(data, dict) and "events" in data:
        data = data["events"]
    return events_from_json(data)


@dataclass
class MachineSession:
    """One machine run a face drives: started, sent events, advanced, stepped and stepped back.

    What the environment did and each move taken are kept in order (`inputs`): `back` starts the
    machine again and replays them without the last moves, which gives the run it had then, since a
    machine under a fixed policy moves the same way every time."""

    run: MachineRun
    subject: str
    program: LoweredModel
    schedule: str = "reverse"
    performer: str | None = None
    inputs: list[tuple[str, Any]] = field(default_factory=list)

    @classmethod
    def start(cls, program: LoweredModel, name: str, schedule: str = "reverse",
              performer: str | None = None) -> MachineSession:
        run = start_machine(program, name, schedule, performer)
        return cls(run, run.element.qualified_name, program, schedule, performer)

    @property
    def moves(self) -> int:
        return sum(1 for kind, _ in self.inputs if kind == "move")

    def send(self, event: EnvEvent | str) -> EnvEvent:
        parsed = parse_send(event) if isinstance(event, str) else event
        self.run.send(parsed)
        self.inputs.append(("send", parsed))
        return parsed

    def advance(self, duration: str | Fraction) -> list[str]:
        seconds = parse_duration(duration) if isinstance(duration, str) else duration
        mark = self.run.ctx.trace.mark()
        self.settle()
        self.run.advance(seconds)
        self.inputs.append(("advance", seconds))
        return self.run.ctx.trace.since(mark)

    def step(self, count: int = 1) -> tuple[list[str], int]:
        """Up to `count` moves at the present instant; the lines written and the moves made."""
        mark = self.run.ctx.trace.mark()
        made = 0
        while made < count and self.run.step():
            made += 1
            self.inputs.append(("move", None))
        return self.run.ctx.trace.since(mark), made

    def settle(self) -> tuple[list[str], int]:
        """Every move due now: the machine runs until it rests (timers wait for `advance`)."""
        return self.step(self.run.ctx.max_steps)

    def back(self, count: int = 1) -> int:
        """Undo the last `count` moves (the environment's sends stay); the moves undone. Time that
        passed is not undone: back stops at the last `advance`."""
        since = 0
        for kind, _ in reversed(self.inputs):
            if kind == "advance":
                break
            since += kind == "move"
        undone = min(count, since)
        kept: list[tuple[str, Any]] = []
        dropping = undone
        for kind, value in reversed(self.inputs):
            if kind == "move" and dropping:
                dropping -= 1
                continue
            kept.append((kind, value))
        kept.reverse()
        run = start_machine(self.program, self.subject, self.schedule, self.performer)
        run.ctx.trace.enabled = self.run.ctx.trace.enabled
        self.run, self.inputs = run, []
        for kind, value in kept:
            if kind == "send":
                self.send(value)
            elif kind == "advance":
                self.run.advance(value)
                self.inputs.append((kind, value))
            else:
                self.step(1)
        return undone

    def current(self) -> list[str]:
        """The configuration as a tree (two spaces a level), then the machine's features."""
        lines = [f"{'  ' * depth}{name}" for depth, name in self.run.configuration()]
        if not lines:
            lines = ["(no active state)" if self.run.status == "running" else f"({self.run.status})"]
        lines += [f"{k} = {v}" for k, v in self.run.outputs().items()]
        return lines

    def events(self) -> list[str]:
        """The pool in arrival order, the deferred events, the clock and its waiters."""
        run = self.run
        lines = [f"pool: {', '.join(_event_text(e) for e in run.pool) or '(empty)'}",
                 f"deferred: {', '.join(_event_text(e) for e in run.deferred) or '(none)'}",
                 f"clock: t={spell(run.ctx.clock.now)}"]
        for timer in sorted(run.timers, key=lambda t: (t.due, t.seq)):
            if timer.transition.source in run.active:
                lines.append(f"  timer t={spell(timer.due)}: {timer.transition.label()}")
        return lines

    def document(self, error: str | None, status: str, code: int, trace: Sequence[str]) -> dict[str, Any]:
        """The JSON of a machine run (the CLI's `--json`)."""
        return {"status": status, "exit": code, "subject": self.subject, "outputs": self.run.outputs(),
                "finalState": self.run.final_state(), "stateVisits": list(self.run.visits),
                "error": error, "trace": list(trace)}


def _event_text(event: Any) -> str:
    return str(event.name if event.kind != "time" else f"time {event.transition.label()}")
