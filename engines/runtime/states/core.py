"""What the parts of a machine performance share: its events, timers, do progress and firings, and
the state every part reads and writes (declared once here; MachineRun sets it up)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction

from engines.errors import RunError
from engines.runtime.actions import Run
from engines.runtime.actions.tokens import BodyRun, Wait
from engines.runtime.evaluate import Frame
from engines.runtime.lowered import LoweredModel
from engines.runtime.states.layout import Shape, Transition, Vertex
from engines.runtime.values import ObjectRef, Signal, Value, accepted_as, spell
from engines.runtime.world import Context
from ir import syntax as s
from ir.model import Element


class MachineError(RunError):
    """A machine that cannot go on: a choice with no branch, a machine with no initial state, ..."""


@dataclass(frozen=True)
class Event:
    """An occurrence in the pool: a signal (by its type's name), a call, a time or change event."""

    kind: str  # signal, call, time, change
    name: str
    payload: Value = None
    transition: Transition | None = None  # a time event: the transition whose timer fired

    def label(self) -> str:
        if self.kind == "time":
            return "time"
        if self.kind == "change":
            return "change"
        if self.kind == "call":
            return f"call {self.name}"
        return f"accept {self.name}"


@dataclass
class Timer:
    due: Fraction
    seq: int
    transition: Transition


@dataclass
class DoRun:
    """Where a state's do behavior stands: the statement next, the one under way (waiting); a do
    behavior given as an action stating a flow (`action`) is that flow, under way once started."""

    state: Vertex
    statements: tuple[s.Member, ...]
    frame: Frame
    wrapped: bool
    action: s.Usage | None = None
    index: int = 0
    current: BodyRun | None = None
    started: bool = False
    waiting: Wait | None = None
    flow: object | None = None  # a do flow's Flow, once started (its tokens may move one at a time)
    wake: Fraction | None = None  # a do flow waiting for time under check: when it may go on
    woken: bool = False  # woken by time now: its rounds come first, as the fixed run's clock jump has them
    split: bool = False  # its step paused before a round of several tokens (check): goes on first
    usage: s.Usage | None = None  # the action usage it is written as (its assertions judged as it ends)

    @property
    def done(self) -> bool:
        if self.action is not None:
            return self.started and self.current is None
        return self.current is None and self.index >= len(self.statements)


@dataclass
class Firing:
    """One selected transition and what its selection fixed (a junction's branches)."""

    transition: Transition
    event: Event | None
    route: list[Transition] = field(default_factory=list)


def signal_name(value: Value, ctx: Context) -> str:
    """The name a sent value is accepted by: its type's (a signal, an object made by `new`)."""
    if isinstance(value, ObjectRef) and value.id in ctx.objects:
        return ctx.objects[value.id].type_name.rsplit("::", 1)[-1]
    if isinstance(value, Signal):
        return value.type_name.rsplit("::", 1)[-1]
    return accepted_as(value) or spell(value)


def transition_text(t: Transition) -> str:
    """A transition as a move's option names it: by its name, else its source and target (numbered
    where its source has two alike)."""
    if t.name:
        return t.name
    alike = sum(1 for x in t.source.outgoing if not x.name and x.target is t.target)
    return t.label() if alike == 1 else f"{t.label()}#{t.index}"


def transition_line(source: str, target: str, event: Event | None) -> str:
    line = f"transition: {source} -> {target}"
    if event is not None:
        line += f" (event: {event.label()})"
    return line


class MachineCore(ABC):
    """The state of one machine performance, and the one move its bodies ask of its configuration."""

    program: LoweredModel
    element: Element
    shape: Shape
    ctx: Context
    host: Run  # runs the bodies; its frame holds the machine's features
    frame: Frame
    active: set[Vertex]
    pool: list[Event]
    deferred: list[Event]
    completions: list[Vertex]
    timers: list[Timer]
    timer_seq: int
    histories: dict[Vertex, list[Vertex]]  # what each history pseudostate recorded
    dos: dict[Vertex, DoRun]
    change_seen: dict[int, bool]
    complete: set[Vertex]  # active states whose completion event was generated
    joined: dict[Vertex, set[Transition]]  # the segments arrived at each join
    visits: list[str]
    status: str
    error: RunError | None
    unmatched: list[Event]
    _entered_now: list[Vertex]
    front_dos: set[Vertex]  # the do behaviors the present firing started (drawn against its units)
    shared: bool  # in a world with other behaviors: the world routes the messages sent
    units: bool  # stepped unit by unit, a do flow token by token (check and explore: moves.py)

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @abstractmethod
    def _completed(self, v: Vertex) -> None: ...
