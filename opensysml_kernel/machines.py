"""Machine runs for the faces: a state machine (or a part's instance with the machines it exhibits)
as a behavior the one debugger steps, fed the environment's events and time, and reported by its
configuration, pool, visits and values (the `%state` family, the CLI's `run --state`/`--instantiate`)."""

from __future__ import annotations

import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, cast

from engines.check.machine import unreproduced_machine
from engines.errors import RunError
from engines.runtime import Move, Program, Script, TokenView, replay_script
from engines.runtime.actions.tokens import Terminated
from engines.runtime.lowered import LoweredModel
from engines.runtime.states import (
    EnvEvent,
    EnvironmentInputError,
    MachineRun,
    UnknownSignalError,
    events_from_json,
    start_machine,
)
from engines.runtime.states.driven import Driven as EngineDriven
from engines.runtime.states.instance_run import InstanceRun
from engines.runtime.states.instances import InstanceObject, Instantiation
from engines.runtime.values import spell
from engines.runtime.world import Context
from engines.witness import Witness
from opensysml_kernel.errors import UsageError
from opensysml_kernel.reports import object_document

SEND_USAGE = "%send <signal>[(p=value, ...)] [to <machine|object>]"
RESTING = "nothing to do now: the machine waits (%send an event or %advance the clock)"
_ENTER_EXIT = re.compile(r"(enter|exit): (\S+)")
_TRANSITION = re.compile(r"transition: (\S+) -> (\S+)")


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


@dataclass(frozen=True)
class Input:
    """One thing done to a driven run, in order: a move tried (`move`), an event sent, time let pass."""

    kind: str  # move, send, timer (fired by a horizon), clock (moved to an instant), apply (a move chosen), wait
    value: Any = None
    target: str | None = None


class Mark:
    """A point of a driven run to come back to: the inputs that led there, replayed on a fresh start
    (a machine under a fixed policy moves the same way every time)."""

    def __init__(self, driven: Driven) -> None:
        self._driven = driven
        self._inputs = tuple(driven.inputs)

    def restore(self, last: bool = False) -> None:
        self._driven.rebuild(self._inputs)

    def release(self) -> None:
        """Nothing held open: a mark is the inputs alone."""


def breakpoint_hit(breaks: Sequence[str], lines: Sequence[str], names: dict[str, set[str]]) -> str | None:
    """`⏸ breakpoint state S (entered|exited)` and `⏸ breakpoint transition A->B` for each line of a
    move that a breakpoint names, one line each; `names` gives each `A->B` the names its transitions have."""
    hits: list[str] = []
    for line in lines:
        m = _ENTER_EXIT.match(line)
        if m and f"state {m.group(2)}" in breaks:
            hits.append(f"⏸ breakpoint state {m.group(2)} ({m.group(1)}ed)")
        m = _TRANSITION.match(line)
        if m:
            label = f"{m.group(1)}->{m.group(2)}"
            hits += [f"⏸ breakpoint transition {name}" + (f" ({label})" if name != label else "")
                     for name in (label, *sorted(names.get(label, ()))) if f"transition {name}" in breaks]
    return "\n".join(dict.fromkeys(hits)) or None


class Driven(ABC):
    """A run the environment drives: moves of its own, events sent to it, time let pass. It offers
    the debugger's stepping surface (history.Stepped): a step is one move at the present instant."""

    fine = False

    def __init__(self, program: LoweredModel, subject: str, schedule: str) -> None:
        self.program = program
        self.subject = subject
        self.schedule = schedule
        self.inputs: list[Input] = []
        self.step_number = 0  # moves made and inputs given
        self.last = ""  # what the last move was, for its `move N:` line
        self._fresh()

    # ------------------------------------------------------------ what each kind of run does

    @abstractmethod
    def _fresh(self) -> None:
        """Start again: the world made anew, the initial configurations entered."""

    @property
    @abstractmethod
    def ctx(self) -> Context: ...

    @property
    @abstractmethod
    def machines(self) -> list[MachineRun]: ...

    @abstractmethod
    def _move(self) -> str | None:
        """One move now; what it was, or None when nothing can move."""

    @abstractmethod
    def _send(self, event: EnvEvent, target: str | None) -> None: ...

    @abstractmethod
    def final_state(self) -> str: ...

    @abstractmethod
    def current(self) -> list[str]: ...

    def configuration(self) -> list[tuple[int, str]]:
        """The active states as a tree, (depth, name), every machine's in turn."""
        return [pair for machine in self.machines for pair in machine.configuration()]

    @abstractmethod
    def outputs(self) -> dict[str, str]: ...

    # ------------------------------------------------------------ the stepping surface

    @property
    def status(self) -> str:
        for machine in self.machines:
            if machine.status == "failed":
                return "failed"
        if self.machines and all(m.finished for m in self.machines):
            return self.machines[0].status
        return "running"

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def moves_taken(self) -> list[Move]:
        """The moves chosen one by one (a witness's, replayed); none when the run steps by its policy."""
        return []

    @property
    def trace(self) -> list[str]:
        return self.ctx.trace.lines

    def enabled_moves(self) -> list[Move]:
        return []

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        raise EnvironmentInputError("a machine's moves are not replayed one by one yet")

    def let_time_pass(self) -> bool:
        return False

    def stuck(self) -> str | None:
        return None

    def tokens(self) -> list[TokenView]:
        return []

    def snapshot(self, allow_replay: bool = False) -> Mark:
        return Mark(self)

    def reset(self) -> None:
        self.rebuild(())

    def rebuild(self, inputs: Sequence[Input]) -> None:
        """The run made again from its start, given `inputs` in order."""
        trace_on = self.ctx.trace.enabled
        self.inputs, self.step_number, self.last = [], 0, ""
        self._fresh()
        self.ctx.trace.enabled = trace_on
        for given in inputs:
            if given.kind == "move":
                self.step()
            elif given.kind == "send":
                self.send(given.value, given.target)
            elif given.kind == "timer":
                self.fire_timer(given.value)
            elif given.kind == "apply":
                self.apply(given.value)
            elif given.kind == "wait":
                self.let_time_pass()
            else:
                self.clock_to(given.value)

    def step(self) -> list[str]:
        """One move at the present instant, its `move N:` line first; nothing when the run rests."""
        mark = self.ctx.trace.mark()
        self.inputs.append(Input("move"))
        if self.finished:
            return []
        done = self._move()
        if done is None:
            return []
        self.step_number += 1
        lines = self.ctx.trace.since(mark)
        if not any(line.startswith("transition: ") for line in lines) and done.rpartition(": ")[2].startswith("dispatch "):
            done += " (no transition took it)"
        self.last = done
        return [f"move {self.step_number}: {done}", *lines]

    def send(self, event: EnvEvent, target: str | None = None) -> EnvEvent:
        self._send(event, target)
        self.inputs.append(Input("send", event, target))
        self.step_number += 1
        self.last = f"send {event.text()}" + (f" to {target}" if target else "")
        return event

    def fire_timer(self, horizon: Fraction) -> list[str]:
        """One time move: the clock goes to the earliest timer due no later than `horizon`, and what is
        due then is dispatched (the machine's whose timer it is, the first in order on a tie); its
        `move N:` line first; nothing when no timer is due by then."""
        mark = self.ctx.trace.mark()
        self.inputs.append(Input("timer", horizon))
        due = [(when, i, m) for i, m in enumerate(self.machines)
               if not m.finished and (when := m.due_next()) is not None]
        if not due or min(due, key=lambda d: (d[0], d[1]))[0] > horizon:
            return []
        when, _, machine = min(due, key=lambda d: (d[0], d[1]))
        fired = sorted((t for t in machine.timers if t.due == when and t.transition.source in machine.active),
                       key=lambda t: t.seq)
        woken = [state.name for state, run in sorted(machine.dos.items(), key=lambda kv: kv[0].order)
                 if state in machine.active and run.wake == when]
        try:
            machine._fire_timers(horizon)
        except Terminated:
            machine._terminate()
        except RunError as err:
            machine.status, machine.error = "failed", err
            raise
        self._delivered(machine)
        self.step_number += 1
        if woken:  # a do behavior's wait ends first: the clock moves there, its round is the next move
            self.last = f"{self._owner(machine)}time t={spell(when)}: the do behavior of {', '.join(woken)} goes on"
        else:
            self.last = f"{self._owner(machine)}time t={spell(when)}: {', '.join(dict.fromkeys(t.transition.label() for t in fired))}"
        return [f"move {self.step_number}: {self.last}", *self.ctx.trace.since(mark)]

    def clock_to(self, instant: Fraction) -> None:
        """The clock moves on to `instant` (every timer due before it fired): the end of an `%advance`."""
        self.inputs.append(Input("clock", instant))
        self.ctx.clock.advance_to(instant)
        self.step_number += 1
        self.last = f"clock to t={spell(instant)}"

    def _delivered(self, sender: MachineRun) -> None:  # noqa: B027 (a lone machine has no one to deliver to)
        """Messages `sender` put on the world's bus go to the machines that accept them (an instance's)."""

    # ------------------------------------------------------------ what the faces show

    def pool(self) -> list[str]:
        """The events waiting, in arrival order (in an instance, each with the object whose pool holds it)."""
        return [f"{self._holder(m)}{_event_text(e)}" for m in self.machines for e in m.pool]

    def _holder(self, machine: MachineRun) -> str:
        return ""

    def events(self) -> list[str]:
        """The pool in arrival order, the deferred events, the clock and its waiters."""
        deferred = [f"{self._holder(m)}{_event_text(e)}" for m in self.machines for e in m.deferred]
        lines = [f"pool: {', '.join(self.pool()) or '(empty)'}",
                 f"deferred: {', '.join(deferred) or '(none)'}",
                 f"clock: t={spell(self.ctx.clock.now)}"]
        for machine in self.machines:
            for timer in sorted(machine.timers, key=lambda t: (t.due, t.seq)):
                if timer.transition.source in machine.active:
                    lines.append(f"  timer t={spell(timer.due)}: {timer.transition.label()}")
            for state, do in sorted(machine.dos.items(), key=lambda item: item[0].order):
                if state in machine.active and do.wake is not None:
                    lines.append(f"  {self._owner(machine)}do of {state.name} waits until t={spell(do.wake)}")
        in_flight = [spell(message.payload) for message in self.ctx.bus]
        if in_flight:
            lines.append(f"in flight: {', '.join(in_flight)}")
        return lines

    def where(self) -> str:
        """`● free+closed at t=0.0`, or how the run ended."""
        if self.status == "failed":
            error = next((m.error for m in self.machines if m.error is not None), None)
            return f"✗ State machine {self.subject} failed: {error}"
        if self.finished:
            return f"✓ State machine {self.subject} {self.status}: {self.final_state() or '(no active state)'}"
        return f"● {self.final_state() or '(no active state)'} at t={spell(self.ctx.clock.now)}"

    def transition_names(self) -> dict[str, set[str]]:
        names: dict[str, set[str]] = {}
        for machine in self.machines:
            for t in machine.shape.transitions:
                if t.name:
                    names.setdefault(t.label(), set()).add(t.name)
        return names

    def state_names(self) -> set[str]:
        return {v.name for m in self.machines for v in m.shape.vertices if v.is_state}

    def positions(self) -> list[str]:
        """Where the run may move from (`%tokens`): each active leaf state, each do behavior under way."""
        out: list[str] = []
        for machine in self.machines:
            owner = self._owner(machine)
            for leaf in filter(None, machine.final_state().split("+")):
                out.append(f"{owner}state {leaf}")
            for state, do in sorted(machine.dos.items(), key=lambda item: item[0].order):
                if state in machine.active and not do.done:
                    out.append(f"{owner}do of {state.name}: statement {do.index + (do.current is None)}"
                               f" of {len(do.statements)}")
        return out

    def _owner(self, machine: MachineRun) -> str:
        """How a position names the machine it is of, in a run of several (`probe beacon: `)."""
        return ""

    def visits(self) -> list[str]:
        return [v for m in self.machines for v in m.visits]


def _objects_tree(world: Instantiation, name: Callable[[InstanceObject], str]) -> list[str]:
    """An instance's objects (named by `name`), each with its machines' configurations and its features."""
    lines: list[str] = []
    for obj in world.objects:
        slots = world.slots(obj)
        if not obj.machines and not slots:
            continue
        lines.append(name(obj))
        for machine in obj.machines:
            lines.append(f"  {machine.element.name}")
            lines += _tree(machine, 2)
        lines += [f"  {k} = {v}" for k, v in slots.items()]
    return lines


def _event_text(event: Any) -> str:
    return str(event.name if event.kind != "time" else f"time {event.transition.label()}")


def _tree(machine: MachineRun, indent: int = 0) -> list[str]:
    return [f"{'  ' * (indent + depth)}{name}" for depth, name in machine.configuration()]


def _what_moved(machine: MachineRun, before: tuple[int, int, Any, Any]) -> str:
    """What one move of `machine` was, from its pool and completions before and after."""
    completions, pool, first_completion, first_event = before
    if len(machine.completions) < completions or (completions and machine.completions[:1] != [first_completion]):
        return f"completion of {first_completion.name}"
    if first_event is not None and (len(machine.pool) < pool or machine.pool[:1] != [first_event]):
        return f"dispatch {_event_text(first_event)}"
    return "do step" if machine.dos else "change event"


def _before(machine: MachineRun) -> tuple[int, int, Any, Any]:
    return (len(machine.completions), len(machine.pool), machine.completions[0] if machine.completions else None,
            machine.pool[0] if machine.pool else None)


class MachineStepping(Driven):
    """One state machine's performance, driven at the prompt or by the CLI."""

    def __init__(self, program: LoweredModel, name: str, schedule: str = "reverse",
                 performer: str | None = None) -> None:
        self.name, self.performer = name, performer
        self.run = start_machine(program, name, schedule, performer)
        super().__init__(program, self.run.element.qualified_name, schedule)

    def _fresh(self) -> None:
        self.run = start_machine(self.program, self.name, self.schedule, self.performer)
        self.run.ctx.trace.enabled = True

    @property
    def ctx(self) -> Context:
        return self.run.ctx

    @property
    def machines(self) -> list[MachineRun]:
        return [self.run]

    def _move(self) -> str | None:
        before = _before(self.run)
        if not self.run.step():
            return None
        return _what_moved(self.run, before)

    def _send(self, event: EnvEvent, target: str | None) -> None:
        if target is not None and target not in (self.subject, self.subject.rsplit("::", 1)[-1], "this"):
            raise UsageError(f"%send to '{target}': the only machine running is {self.subject}", SEND_USAGE)
        self.run.send(event)

    def final_state(self) -> str:
        return self.run.final_state()

    def current(self) -> list[str]:
        """The configuration as a tree (two spaces a level), then the machine's features."""
        lines = _tree(self.run) or ["(no active state)" if self.run.status == "running" else f"({self.run.status})"]
        return [*lines, *(f"{k} = {v}" for k, v in self.run.outputs().items())]

    def outputs(self) -> dict[str, str]:
        return self.run.outputs()

    def document(self, error: str | None, status: str, code: int, trace: Sequence[str]) -> dict[str, Any]:
        """The JSON of a machine run (the CLI's `--json`)."""
        return {"status": status, "exit": code, "subject": self.subject, "outputs": self.run.outputs(),
                "finalState": self.run.final_state(), "stateVisits": list(self.run.visits),
                "error": error, "trace": list(trace)}


class _InstanceViews:
    """What an instance's stepping run and its replay show alike: each object named by its path, its
    machines' configurations, the tree %current draws."""

    def _instantiation(self) -> Instantiation:
        raise NotImplementedError

    def _name(self, obj: InstanceObject) -> str:
        return self._instantiation().name_of(obj)

    def _holder(self, machine: MachineRun) -> str:
        return f"{self._name(self._instantiation().object_of(machine))}: "

    def _owner(self, machine: MachineRun) -> str:
        return f"{self._name(self._instantiation().object_of(machine))} {machine.element.name}: "

    def final_state(self) -> str:
        world = self._instantiation()
        return ", ".join(f"{world.name_of(o)}: {m.final_state()}" for o in world.objects for m in o.machines)

    def current(self) -> list[str]:
        return _objects_tree(self._instantiation(), self._name)


class InstanceStepping(_InstanceViews, Driven):
    """A part materialized with the parts it holds: the actions each object performs run first, then
    its machines move one move at a time, each to rest in object order (as the corpus's instances
    run), a message one machine sends going to the machines that accept it."""

    def __init__(self, program: LoweredModel, part: str, schedule: str = "reverse") -> None:
        self.part = part
        self.world = Instantiation(program, part, schedule)
        super().__init__(program, part, schedule)

    def _fresh(self) -> None:
        self.world = Instantiation(self.program, self.part, self.schedule)
        self.world.ctx.trace.enabled = True
        # The actions each object performs first, as the corpus's instances run (Instantiation.run).
        self.world.perform_all()
        self._cursor = 0

    @property
    def ctx(self) -> Context:
        return self.world.ctx

    @property
    def machines(self) -> list[MachineRun]:
        return self.world.machines

    @property
    def objects(self) -> list[InstanceObject]:
        return self.world.objects

    def _instantiation(self) -> Instantiation:
        return self.world

    def _move(self) -> str | None:
        machines = self.machines
        for turn in range(len(machines)):
            index = (self._cursor + turn) % len(machines)
            machine = machines[index]
            before = _before(machine)
            if not machine.finished and machine.step():
                self._cursor = index
                done = _what_moved(machine, before)
                self._delivered(machine)
                return f"{self._owner(machine)}{done}"
        return None

    def _delivered(self, sender: MachineRun) -> None:
        self.world.route(sender)
        self.world.resume()  # an action waiting at an accept takes what came for it

    def fire_timer(self, horizon: Fraction) -> list[str]:
        """As a machine's (Driven.fire_timer), with the performed actions' waits for time on the same
        clock: where one of them is due first (or with a timer at one instant), the clock goes there and
        the actions due go on, as one move."""
        when = self.world.next_wake()
        timers = [at for m in self.machines if not m.finished and (at := m.due_next()) is not None]
        if when is None or when > horizon or (timers and min(timers) < when):
            return super().fire_timer(horizon)
        mark = self.ctx.trace.mark()
        self.inputs.append(Input("timer", horizon))
        due = [f"{self._name(obj)}.{run.element.name}" for obj, run, _ in self.world.waiting if run.wake() == when]
        self.world.wake_actions(horizon)
        self.step_number += 1
        self.last = f"time t={spell(when)}: {', '.join(due)} go on"
        return [f"move {self.step_number}: {self.last}", *self.ctx.trace.since(mark)]

    def _send(self, event: EnvEvent, target: str | None) -> None:
        objects = self.objects
        if target is not None:
            objects = [o for o in objects if target in (self._name(o), o.path)]
            machines = [m for o in objects for m in o.machines]
            if not machines:
                known = ", ".join(self._name(o) for o in self.objects if o.machines)
                raise UsageError(f"%send to '{target}': no object of {self.subject} of that path exhibits a"
                                 f" machine (objects with machines: {known})", SEND_USAGE)
        else:
            machines = self.machines
        name = event.name.rsplit("::", 1)[-1]
        takers = [m for m in machines if m.accepts(name)] or machines[:1]
        if not takers:
            raise UnknownSignalError(f"{self.subject} exhibits no state machine to send '{event.name}' to")
        for machine in takers:
            machine.send(event)

    def outputs(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for obj in self.objects:
            prefix = f"{obj.path}." if obj.path else ""
            out.update({prefix + k: v for k, v in self.world.slots(obj).items()})
        return out

    def events(self) -> list[str]:
        """A machine's (Driven.events), with the performed actions waiting for time among the clock's
        waiters (`probe.timer waits until t=5.0`)."""
        lines = super().events()
        waits = [f"  {self._name(obj)}.{run.element.name} waits until t={spell(wake)}"
                 for obj, run, _ in self.world.waiting if (wake := run.wake()) is not None]
        at = next((i for i, line in enumerate(lines) if line.startswith("in flight:")), len(lines))
        return [*lines[:at], *waits, *lines[at:]]

    def waiting_actions(self) -> list[str]:
        """The performed actions still waiting at an accept for a message (`Shop.supervise (token 1@accept)`),
        or for time (`remote.press (token 1@wait, until t=4)`: `--advance` moves the clock)."""
        out = []
        for obj, run, _ in self.world.waiting:
            wake = run.wake()
            until = f", until t={spell(wake)}" if wake is not None else ""
            out.append(f"{self._name(obj)}.{run.element.name} (token "
                       + ", ".join(f"{t.id}@{t.flow.model_label(t)}" for t in run.all_tokens(run.root)) + until + ")")
        return out

    def object_documents(self) -> list[dict[str, Any]]:
        """`objects: [{path, finalState, stateVisits, slots}]`, one per object that exhibits a machine."""
        return [object_document(self.world.end_of(obj)) for obj in self.objects if obj.machines]



class MachineReplay(Driven):
    """A machine following a witness of its check move by move, its environment the sends the witness
    names (engines.check.machine): each `%step` one move, as the witness chose it."""

    fine = True

    def __init__(self, program: Program, witness: Witness) -> None:
        self.witness = witness
        self.behavior: EngineDriven[Any] = self._start(program)
        super().__init__(program, self.behavior.subject, "replay")

    def _script(self) -> Script:
        return replay_script([c.taken for c in self.witness.choices], self.witness.horizon)

    def _start(self, program: Program) -> EngineDriven[Any]:
        return program.start_driven(self.witness.behavior, self._script())

    def _fresh(self) -> None:
        assert isinstance(self.program, Program), "a replay is started by a Program"
        self.behavior = self._start(self.program)
        self.behavior.world.trace.enabled = True

    @property
    def ctx(self) -> Context:
        return self.behavior.world

    @property
    def machines(self) -> list[MachineRun]:
        return [self.behavior.machine]

    @property
    def status(self) -> str:
        machine = self.behavior.machine
        return "failed" if self.behavior.error is not None else machine.status

    @property
    def moves_taken(self) -> list[Move]:
        return self.behavior.moves_taken

    def enabled_moves(self) -> list[Move]:
        return self.behavior.enabled_moves()

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        self.inputs.append(Input("apply", move))
        self.step_number += 1
        self.last = move.label
        return self.behavior.apply(move, at=at)

    def let_time_pass(self) -> bool:
        self.inputs.append(Input("wait"))
        return self.behavior.let_time_pass()

    def stuck(self) -> str | None:
        return self.behavior.stuck()

    def _move(self) -> str | None:
        return None

    def _send(self, event: EnvEvent, target: str | None) -> None:
        raise UsageError("a witness replayed sends what it names: %replay off, then %state, to send your own",
                         SEND_USAGE)

    def unreproduced(self) -> str | None:
        """The witness's claim, if this replay does not reproduce it."""
        assert isinstance(self.program, Program), "a replay is started by a Program"
        return unreproduced_machine(self.program, self.behavior, self.witness)

    def final_state(self) -> str:
        return self.behavior.machine.final_state()

    def current(self) -> list[str]:
        machine = self.behavior.machine
        lines = _tree(machine) or [f"({machine.status})"]
        return [*lines, *(f"{k} = {v}" for k, v in machine.outputs().items())]

    def outputs(self) -> dict[str, str]:
        return self.behavior.machine.outputs()


class InstanceReplay(_InstanceViews, MachineReplay):
    """An instance following a witness of its check (`check --instantiate`) move by move."""

    def _start(self, program: Program) -> EngineDriven[Any]:
        return program.start_instance(self.witness.behavior, self._script())

    @property
    def instance(self) -> InstanceRun:
        return cast(InstanceRun, self.behavior.machine)

    @property
    def machines(self) -> list[MachineRun]:
        return self.instance.machines

    @property
    def status(self) -> str:
        if self.behavior.error is not None:
            return "failed"
        return "running" if any(m.status == "running" for m in self.machines) else self.machines[0].status

    def _instantiation(self) -> Instantiation:
        return self.instance.instance

    def outputs(self) -> dict[str, str]:
        return self.instance.machine_outputs()

