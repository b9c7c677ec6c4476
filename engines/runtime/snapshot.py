"""Snapshot / restore / release of a whole run, taken between moves only.

A snapshot holds a private copy of everything a run changes (tokens, frames, objects, bus, clock,
counters); restore installs a fresh copy of it into the run, so it can be restored again and again
until released. The model and the lowered graphs are shared, never copied. A body paused
mid-statement (a Python generator) cannot be copied: a snapshot then is refused with a typed error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engines.errors import EngineError
from engines.runtime.context import Clock, Instance
from engines.runtime.evaluate import Frame

if TYPE_CHECKING:
    from engines.runtime.actions import Run
    from engines.runtime.tokens import Flow, Token


class SnapshotError(EngineError):
    """A snapshot asked for where none can be taken (inside a move, or over a paused body)."""


@dataclass
class _State:
    root: Flow
    objects: dict[int, Instance]
    usage_objects: dict[str, object]
    clocks: set[int]
    now: object
    bus: list[object]
    next_object_id: int
    steps_spent: int
    trace_length: int
    status: str
    error: object
    moves_taken: list[object]


class _Copier:
    """Copies frames, flows and tokens once each, keeping the links between them."""

    def __init__(self) -> None:
        self.frames: dict[int, Frame] = {}
        self.flows: dict[int, Flow] = {}
        self.tokens: dict[int, Token] = {}

    def frame(self, f: Frame | None) -> Frame | None:
        if f is None:
            return None
        if f.sealed:
            return f
        done = self.frames.get(id(f))
        if done is not None:
            return done
        copy = object.__new__(Frame)
        fields = dict(f.__dict__)
        fields["values"] = dict(f.values)
        fields["delivered"] = dict(f.delivered)
        fields["pins"] = {}
        fields["calc"] = None
        copy.__dict__ = fields
        self.frames[id(f)] = copy
        copy.parent = self.frame(f.parent)
        for name, pin in f.pins.items():
            pinned = self.frame(pin)
            assert pinned is not None
            copy.pins[name] = pinned
        if f.calc is not None:
            calc, bindings, where = f.calc
            copy.calc = (calc, bindings, self.frame(where) or where)
        return copy

    def flow(self, f: Flow | None) -> Flow | None:
        if f is None:
            return None
        done = self.flows.get(id(f))
        if done is not None:
            return done
        from engines.runtime.tokens import Flow

        copy = object.__new__(Flow)
        copy.__dict__ = dict(f.__dict__)
        self.flows[id(f)] = copy
        frame = self.frame(f.frame)
        assert frame is not None
        copy.frame = frame
        copy.ids = list(f.ids)
        copy.outer = self.flow(f.outer)
        copy.parent_token = self.token(f.parent_token)
        copy.tokens = [t for t in (self.token(x) for x in f.tokens) if t is not None]
        if f.returns is not None:
            action, caller = f.returns
            copy.returns = (action, self.frame(caller) or caller)
        else:
            copy.returns = None
        return copy

    def token(self, t: Token | None) -> Token | None:
        if t is None:
            return None
        done = self.tokens.get(id(t))
        if done is not None:
            return done
        if t.body is not None:
            raise SnapshotError(f"token {t.id} is paused mid-statement at {t.flow.node_label(t)}: "
                                "a body paused inside a move cannot be snapshot")
        from engines.runtime.tokens import Token

        copy = object.__new__(Token)
        copy.__dict__ = dict(t.__dict__)
        self.tokens[id(t)] = copy
        flow = self.flow(t.flow)
        assert flow is not None
        copy.flow = flow
        copy.inside = self.flow(t.inside)
        copy.wait = None
        if t.group is not None:
            copy.group = [g for g in (self.token(x) for x in t.group) if g is not None]
            # every member of a group shares one list
            for member in copy.group:
                member.group = copy.group
        return copy


def capture(run: Run) -> _State:
    """A private copy of the run's state (refused over a paused body or inside a move)."""
    if run.displayed:
        raise SnapshotError("a block is paused mid-statement: its state cannot be snapshot")
    if run.mover:
        raise SnapshotError("a snapshot is taken between moves, not inside one")
    copier = _Copier()
    root = copier.flow(run.root)
    assert root is not None
    ctx = run.ctx
    return _State(
        root,
        {oid: Instance(o.id, o.type_name, o.name, dict(o.values)) for oid, o in ctx.objects.items()},
        dict(ctx.usage_objects), set(ctx.clocks), ctx.clock.now, list(ctx.bus), ctx.next_object_id,
        ctx.steps_spent, len(ctx.trace.lines), run.status, run.error, list(run.moves_taken),
    )


def install(run: Run, state: _State, copy: bool = True) -> None:
    """Put a fresh copy of `state` into `run` (the state itself stays untouched for the next restore);
    without `copy`, the state itself, which is then the run's (a last restore needs no copy)."""
    if copy:
        root = _Copier().flow(state.root)
        assert root is not None
    else:
        root = state.root
    run.root = root
    run.current_flow = root
    run._live = None
    ctx = run.ctx
    ctx.objects = ({oid: Instance(o.id, o.type_name, o.name, dict(o.values)) for oid, o in state.objects.items()}
                   if copy else state.objects)
    ctx.usage_objects = dict(state.usage_objects)  # type: ignore[arg-type]
    ctx.clocks = set(state.clocks)
    clock = Clock()
    clock.now = state.now  # type: ignore[assignment]
    ctx.clock = clock
    ctx.bus = list(state.bus)  # type: ignore[arg-type]
    ctx.next_object_id = state.next_object_id
    ctx.steps_spent = state.steps_spent
    del ctx.trace.lines[state.trace_length:]
    run.status = state.status
    run.error = state.error  # type: ignore[assignment]
    run.moves_taken = list(state.moves_taken)  # type: ignore[arg-type]


class Snapshot:
    """A point of a run to come back to: `restore()` as often as needed until `release()`.

    A copy of the state where one can be taken; where a body is paused mid-statement (its progress
    lives in the interpreter, not in the state), the moves that led here, replayed from the start
    on restore: slower, exactly as faithful, since a run is a function of its moves.
    """

    def __init__(self, run: Run, allow_replay: bool = False) -> None:
        self._run = run
        self._released = False
        self._state: _State | None = None
        self._moves: tuple[object, ...] | None = None
        self._steps = 0
        try:
            self._state = capture(run)
        except SnapshotError:
            if not allow_replay or run.mover:
                raise
            self._moves = tuple(run.moves_taken)
            self._steps = run.step_number

    @property
    def by_replay(self) -> bool:
        return self._moves is not None

    def restore(self, last: bool = False) -> None:
        """Back to the snapshot's state; `last` hands the snapshot's own copy over and releases it."""
        if self._released:
            raise SnapshotError("this snapshot was released")
        if self._state is not None:
            install(self._run, self._state, copy=not last)
            if last:
                self.release()
            return
        assert self._moves is not None
        self._run.reset()
        if self._run.fine:
            for move in self._moves:
                self._run.apply(move)  # type: ignore[arg-type]
        else:
            for _ in range(self._steps):
                self._run.step()
        if last:
            self.release()

    def release(self) -> None:
        self._released = True
        self._state = None
        self._moves = None

    @property
    def released(self) -> bool:
        return self._released
