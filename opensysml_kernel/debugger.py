"""The debugger: at most one run stepped at a time (by rounds, or move by move following a witness),
its way back, the breakpoints that stop it, and the witness the next run follows."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from typing import cast

from engines.check.properties import Property
from engines.errors import RunError
from engines.runtime import Program, Run, parse_schedule
from engines.runtime.behavior import Behavior
from engines.runtime.states import EnvEvent
from engines.runtime.values import spell
from engines.witness import unreproduced
from opensysml_kernel.errors import NoRunError, RunFailedError, UsageError
from opensysml_kernel.history import Deed, DeedKind, History, Stepped, Stepping, Waypoint
from opensysml_kernel.machines import Driven, InstanceReplay, MachineReplay, breakpoint_hit
from opensysml_kernel.witness import WitnessPlan, diff, next_move

DEFAULT_SCHEDULE = "reverse"
_STEP_LINE = re.compile(r"(step|move) \d+:|  \S+: .* → ")


@dataclass(frozen=True)
class Token:
    """Where one token stands: `token 2@a`, and what it waits for, if anything."""

    id: int
    node: str
    path: str
    waiting: str | None

    def __str__(self) -> str:
        text = f"token {self.id}@{self.node}"
        return f"{text} (waiting: {self.waiting})" if self.waiting else text


@dataclass(frozen=True)
class Progress:
    """What one `%action`, `%step` or `%continue` did to the run, and where the run now stands."""

    subject: str
    lines: tuple[str, ...]
    status: str
    step: int
    outputs: tuple[tuple[str, str], ...]
    stopped: str | None = None  # `⏸ breakpoint a (token 2)`, the end of a witness, a deadlock
    resting: bool = False  # a driven run (a machine) that cannot move until its environment acts
    broken: tuple[str, ...] = ()  # the asserted constraints false where the run completed

    def completed_lines(self) -> list[str]:
        """A completed run's head, its values and a line per asserted constraint it ends violating."""
        return [f"{'✗' if self.broken else '✓'} Action {self.subject} completed",
                *(f"  {path} = {value}" for path, value in self.outputs),
                *(f"  violation: {name} (asserted) is false at the end" if "." not in name.rsplit("::", 1)[-1]
                  else f"  violation: {name} (asserted) was false where a performance of its step ended"
                  for name in self.broken)]


@dataclass(frozen=True)
class Replay:
    """An installed witness: the next `%action` (of `subject`, when the witness names one) follows it."""

    plan: WitnessPlan
    subject: str | None

    def describe(self) -> str:
        ending = f"; ends {self.plan.ending}" if self.plan.ending else ""
        inputs = "".join(f"input {name} = {value}; " for name, value in self.plan.witness.inputs)
        return f"{self.plan.name} ({inputs}through move {self.plan.last_step}{ending})"


@dataclass(frozen=True)
class DebuggerState:
    """The debugger's own fields at one moment, for undoing a failing cell."""

    schedule: str
    trace: bool
    run: Stepped | None
    subject: str | None
    breaks: tuple[str, ...]
    replay: Replay | None
    stepping: Stepping
    history: History | None
    waypoint: Waypoint | None  # where the run stood


class Debugger:
    """Steps the current run, goes back through its history, stops at breakpoints and witness ends."""

    def __init__(self) -> None:
        self.schedule: str = DEFAULT_SCHEDULE
        self.asserting: tuple[Property, ...] = ()  # the current run's behavior's asserted constraints
        self.trace: bool = False
        self.run: Stepped | None = None
        self.subject: str | None = None
        self.breaks: tuple[str, ...] = ()
        self.replay: Replay | None = None
        self.stepping = Stepping()
        self.history: History | None = None  # the way back through the current run
        self._resting = False  # the last %step/%continue found the driven run waiting for its environment
        # While a cell runs, the histories of the runs it replaced: the cell may fail and put one back.
        self._replaced: list[History] | None = None

    def set_schedule(self, text: str) -> str:
        self.schedule = parse_schedule(text)
        return self.schedule

    # ------------------------------------------------------------ the current run

    def replay_for(self, subject: str) -> Replay | None:
        """The installed witness, if the next run of `subject` is to follow it; refused for another action."""
        replay = self.replay
        if replay is not None and replay.subject is not None and replay.subject != subject:
            raise UsageError(f"the replay installed follows {replay.describe()}, a witness of {replay.subject}",
                             f"%action {replay.subject}, or %replay off")
        return replay

    def attach(self, run: Stepped, subject: str, replay: Replay | None,
               asserting: tuple[Property, ...] = ()) -> Progress:
        """`run` becomes the current run; following `replay` (which is used up) when one is given;
        `asserting` the constraints its behavior asserts, judged where it completes."""
        self.asserting = asserting
        if replay is not None:
            self.replay = None
            self.stepping = Stepping(replay.plan, fine=True)
        else:
            self.stepping = Stepping()
        self.replace(run, subject)
        return self.progress(run, list(run.trace))

    def replace(self, run: Stepped | None, subject: str | None) -> None:
        """The new current run (or none); the old one's snapshots are released, or, inside a cell, once it ends."""
        if self.history is not None:
            if self._replaced is not None:
                self._replaced.append(self.history)
            else:
                self.history.release()
        self.run, self.subject = run, subject
        self.history = History(run) if run is not None else None

    def _require_run(self) -> Stepped:
        if self.run is None:
            raise NoRunError("no run to step: start one with %action <name> or %state <name>")
        if self.run.finished:
            again = "%state" if isinstance(self.run, Driven) else "%action"
            raise NoRunError(f"the run of {self.subject} has {self.run.status}:"
                             f" start another with {again} {self.subject}")
        return self.run

    def driven(self, command: str) -> Driven:
        """The current run, which the environment drives (a state machine, an instance's machines)."""
        if not isinstance(self.run, Driven):
            what = "no run" if self.run is None else f"the run of {self.subject} is an action's"
            raise NoRunError(f"%{command} drives a state machine, and {what}:"
                             " start one with %state <name> or %instantiate <part>")
        return self.run

    # ------------------------------------------------------------ the environment of a machine

    def send(self, event: EnvEvent, target: str | None = None) -> EnvEvent:
        """The environment puts `event` in the pool (of the machines `target` names): one step `%back` undoes."""
        run = self.driven("send")
        if run.finished:
            self._require_run()
        assert self.history is not None, "every run has its history"
        checkpoint = self.history.before_step(self.stepping)
        try:
            run.send(event, target)
        except BaseException:
            self.history.step_not_made()
            raise
        checkpoint.deed = Deed(DeedKind.SEND, value=event, target=target, label=run.last)
        return event

    def advance(self, seconds: Fraction) -> Progress:
        """What is due now runs, then time moves on by `seconds`: to each timer due on the way, which
        fires (a move), then to the end. Each is a step `%back` undoes; a breakpoint stops it, the
        clock where the move that hit it left it."""
        run = self.driven("advance")
        if run.finished:
            self._require_run()
        if run.fine:
            raise UsageError("a witness replayed sends what it names and lets time pass where it does:"
                             " %step and %continue follow it", "%advance <time> (in a run not replaying a witness)")
        history = self.history
        assert history is not None, "every run has its history"
        horizon = run.ctx.clock.now + seconds
        start = len(run.trace)
        lines: list[str] = []
        waypoint, stepping = history.waypoint(), self.stepping
        self._resting = False
        stopped: str | None = None
        try:
            with self._failing(run, start, lines):
                while stopped is None and not run.finished:
                    stopped = self._moves(run, history, None, lines)
                    if stopped is not None or run.finished:
                        break
                    checkpoint = history.before_step(self.stepping)
                    made = run.step_number
                    checkpoint.deed = Deed(DeedKind.TIMER, value=horizon)
                    fired = run.fire_timer(horizon)
                    if run.step_number == made:
                        history.step_not_made()
                        break
                    checkpoint.deed = Deed(DeedKind.TIMER, value=horizon, label=run.last)
                    lines.extend(fired)
                    stopped = breakpoint_hit(self.breaks, fired, run.transition_names()) if self.breaks else None
                if stopped is not None:
                    now = run.ctx.clock.now
                    stopped += (f"\n⏸ the clock stands at t={spell(now)}: %advance {spell(horizon - now)}"
                                f" goes on to t={spell(horizon)}")
                elif not run.finished and run.ctx.clock.now < horizon:
                    checkpoint = history.before_step(self.stepping)
                    checkpoint.deed = Deed(DeedKind.CLOCK, value=horizon)
                    run.clock_to(horizon)
                    checkpoint.deed = Deed(DeedKind.CLOCK, value=horizon, label=run.last)
        except RunFailedError:
            raise
        except BaseException:
            history.return_to(waypoint)
            self.stepping = stepping
            raise
        return self.progress(run, lines, stopped)

    # ------------------------------------------------------------ stepping

    def step(self, count: int = 1) -> Progress:
        """`count` steps (moves, when replaying) of the run, fewer if it ends or stops at a breakpoint."""
        return self._advance(count)

    def continue_run(self) -> Progress:
        """Run to completion, a runtime error, a breakpoint, a deadlock or the end of the witness replayed."""
        return self._advance(None)

    def _advance(self, count: int | None) -> Progress:
        run = self._require_run()
        history = self.history
        assert history is not None, "every run has its history"
        start = len(run.trace)
        lines: list[str] = []
        waypoint, stepping = history.waypoint(), self.stepping
        self._resting = False
        try:
            stopped = self._steps(run, history, count, start, lines)
        except RunFailedError:
            raise  # the run failed: an outcome it keeps, to inspect
        except BaseException:
            # Anything else (a bug, an interrupt) undoes the whole command, a move cut halfway included.
            history.return_to(waypoint)
            self.stepping = stepping
            raise
        return self.progress(run, lines, stopped, self._resting)

    def _steps(self, run: Stepped, history: History, count: int | None, start: int, lines: list[str]) -> str | None:
        """Make the steps of one `%step`/`%continue`, their trace lines into `lines`; why it stopped early."""
        stopped: str | None = None
        done = 0
        with self._failing(run, start, lines):
            if isinstance(run, Driven) and not run.fine:
                return self._moves(run, history, count, lines)
            machine = isinstance(run, Driven)
            at_start = self._witness_end(run) if self.stepping.fine else None
            if at_start is not None:
                return at_start  # a witness whose claim holds before any move (a property false at move 0)
            while not run.finished and (count is None or done < count):
                before = {(t.id, t.node) for t in run.tokens()}
                # Before next_move, which may let time pass: going back undoes that too.
                checkpoint = history.before_step(self.stepping)
                if self.stepping.fine:
                    mark = len(run.trace)
                    move = next_move(run, self.stepping.plan)  # a refusal undoes the command, time passed included
                    if move is None:
                        history.step_not_made()
                        what = "Instance" if isinstance(run, InstanceReplay) else "State machine" if machine else "Action"
                        stopped = f"✗ {what} {self.subject}: {run.stuck() or 'no move is enabled'}" \
                                  f" (after {len(run.moves_taken)} moves)"
                        break
                    others = [m.label for m in run.enabled_moves() if m != move]
                    over = f" (chosen over {', '.join(others)})" if others else ""
                    token = "" if machine else "token "
                    lines.append(f"move {len(run.moves_taken) + 1}: {token}{move.label}{over}")
                    values = run.outputs()
                    checkpoint.deed = Deed(DeedKind.MOVE, move)
                    try:
                        run.apply(move)
                    finally:
                        moved = run.trace[mark:]
                        lines.extend(moved)
                        lines.extend(f"  {name}: {was} → {now}" for name, was, now in diff(values, run.outputs()))
                else:
                    mark = len(run.trace)
                    checkpoint.deed = Deed(DeedKind.ROUND)
                    try:
                        run.step()
                    finally:
                        moved = run.trace[mark:]
                        lines.extend(moved)
                done += 1
                hit = breakpoint_hit(self.breaks, moved, run.transition_names()) \
                    if isinstance(run, Driven) and self.breaks else self._breakpoint(run, before)
                stops = [stop for stop in (hit, self._witness_end(run)) if stop]
                if stops:
                    stopped = "\n".join(stops)
                    break
        return stopped

    def _moves(self, run: Driven, history: History, count: int | None, lines: list[str]) -> str | None:
        """The moves of a driven run at the present instant (one `%step` each, `%continue` until it
        rests); their lines into `lines`; why it stopped early."""
        done = 0
        while not run.finished and (count is None or done < count):
            checkpoint = history.before_step(self.stepping)
            made = run.step_number
            checkpoint.deed = Deed(DeedKind.ROUND)
            moved = run.step()
            if run.step_number == made:
                history.step_not_made()
                self._resting = True
                return None
            checkpoint.deed = Deed(DeedKind.ROUND, label=run.last)
            lines.extend(moved)
            done += 1
            stop = breakpoint_hit(self.breaks, moved, run.transition_names()) if self.breaks else None
            if stop:
                return stop
        return None

    def _breakpoint(self, run: Stepped, before: set[tuple[int, str]]) -> str | None:
        """`⏸ breakpoint <node> (token N)` when a token arrived at a breakpoint's node."""
        if not self.breaks or run.finished:
            return None
        for token in run.tokens():
            if token.node in self.breaks and (token.id, token.node) not in before:
                return f"⏸ breakpoint {token.node} (token {token.id})"
        return None

    def _witness_end(self, run: Stepped) -> str | None:
        plan = self.stepping.plan
        if plan is None or self.stepping.ended or len(run.moves_taken) != plan.last_step:
            return None
        self.stepping = dataclasses.replace(self.stepping, ended=True)
        if not plan.ending or run.finished:
            return None
        stop = f"⏸ end of the witness after {len(run.moves_taken)} moves: {plan.ending}"
        if isinstance(run, MachineReplay):
            found = run.unreproduced()
            return stop if found is None else f"{stop}\n✗ not reproduced: {found}"
        # A witness is of an action: the behavior stepped is an action run, started by a Program.
        action = cast(Run, run)
        program = action.ctx.program
        assert isinstance(program, Program), "every run is started by a Program"
        found = unreproduced(program, action, plan.witness)
        return stop if found is None else f"{stop}\n✗ not reproduced: {found}"

    def back(self, count: int = 1) -> Progress:
        """Undo the last `count` steps (moves, when replaying): the run is restored from the snapshot
        taken before them, and goes on from there exactly as it did."""
        if self.run is None or self.subject is None or self.history is None:
            raise NoRunError("no run to step back in: start one with %action <name>")
        unit = "move" if self.stepping.fine else "step"
        done = len(self.history)
        if count > done:
            raise UsageError(f"%back {count}: the run of {self.subject} has made only {done} {unit}s",
                             f"%back [n] with n <= {done}")
        undone = self.history.undone(count)
        self.stepping = self.history.back(count)
        plural = "" if count == 1 else "s"
        if isinstance(self.run, Driven):
            unit = "move"
            head = f"⏸ back {count} {unit}{plural}: {self.subject} at {unit} {done - count}; undone: {', '.join(undone)}"
        else:
            head = f"⏸ back {count} {unit}{plural}: {self.subject} at {unit} {done - count}"
        return self.progress(self.run, [], head)

    @contextmanager
    def _failing(self, run: Stepped, start: int, shown: list[str] | None = None) -> Iterator[None]:
        """Turn the engine's runtime failure into a RunFailedError with the trace lines of the failing command."""
        try:
            yield
        except RunError as error:
            lines = self.filter_trace(shown if shown is not None else run.trace[start:])
            if isinstance(run, Driven):
                raise RunFailedError(self.subject or "", run.step_number, error, lines, "move",
                                     "State machine") from error
            step = len(run.moves_taken) if run.fine else run.step_number
            raise RunFailedError(self.subject or "", step, error, lines, "move" if run.fine else "step") from error

    # ------------------------------------------------------------ breakpoints

    def add_break(self, node: str, known: Sequence[str]) -> list[str]:
        """Set a breakpoint (`j`, `state S`, `transition A->B` or a transition's name); a note when no
        action or machine of the model has a node, state or transition of that name (yet)."""
        if node not in self.breaks:
            self.breaks = (*self.breaks, node)
        lines = [f"breakpoint {node}"]
        if node not in known:
            kind, _, name = node.rpartition(" ")
            what = {"state": "no machine of the model has a state", "transition": "no machine of the model has"
                    " a transition"}.get(kind, "no action of the model has a node")
            lines.append(f"note: {what} named '{name}' yet")
        return lines

    def remove_break(self, node: str) -> list[str]:
        if node == "all":
            removed, self.breaks = len(self.breaks), ()
            return [f"{removed} breakpoint{'' if removed == 1 else 's'} removed"]
        if node not in self.breaks:
            shown = ", ".join(self.breaks) if self.breaks else "none"
            raise UsageError(f"no breakpoint on '{node}' (breakpoints: {shown})", "%unbreak <node|all>")
        self.breaks = tuple(b for b in self.breaks if b != node)
        return [f"breakpoint {node} removed"]

    # ------------------------------------------------------------ what the run shows

    def filter_trace(self, lines: Sequence[str]) -> list[str]:
        """All of `lines` with trace on; only the `step N:` lines with it off."""
        return list(lines) if self.trace else [line for line in lines if _STEP_LINE.match(line)]

    def progress(self, run: Stepped, lines: Sequence[str], stopped: str | None = None,
                 resting: bool = False) -> Progress:
        outputs = tuple(sorted(run.outputs().items())) if run.status == "completed" else ()
        step = len(run.moves_taken) if run.fine else run.step_number
        broken = tuple(p.name for p in self.asserting if not p.holds(cast(Behavior, run))[0]) \
            if run.status == "completed" else ()
        return Progress(self.subject or "", tuple(lines), run.status, step, outputs, stopped, resting, broken)

    def tokens(self) -> list[Token]:
        if self.run is None:
            raise NoRunError("no run: start one with %action <name>")
        return [Token(t.id, t.node, t.path, t.waiting) for t in self.run.tokens()]

    def full_trace(self) -> list[str]:
        """Every trace line of the current run so far."""
        return list(self.run.trace) if self.run is not None else []

    def outputs(self) -> dict[str, str]:
        """The feature values of the current run (or its last state), by path."""
        return dict(sorted(self.run.outputs().items())) if self.run is not None else {}

    # ------------------------------------------------------------ undo of a cell

    def state(self) -> DebuggerState:
        """The debugger as it stands, before a cell that `restore` undoes if it fails or `commit` keeps."""
        if self._replaced is None:
            self._replaced = []
        waypoint = self.history.waypoint() if self.history is not None else None
        return DebuggerState(self.schedule, self.trace, self.run, self.subject, self.breaks, self.replay,
                             self.stepping, self.history, waypoint)

    def restore(self, state: DebuggerState) -> None:
        """Put back what `state` saw: the runs the cell started are dropped, the one it replaced comes
        back, and that run stands where it stood, steps and `%back`s of the cell undone."""
        self.schedule, self.trace, self.breaks, self.replay = state.schedule, state.trace, state.breaks, state.replay
        for history in [*(self._replaced or ()), *([self.history] if self.history is not None else [])]:
            if history is not state.history:
                history.release()
        self._replaced = None
        self.run, self.subject, self.stepping, self.history = state.run, state.subject, state.stepping, state.history
        if state.history is not None and state.waypoint is not None:
            try:
                state.history.return_to(state.waypoint)
            except BaseException:
                # The run cannot be put back (remaking its steps failed too): dropped, never left half-restored.
                state.history.release()
                self.run, self.subject, self.stepping, self.history = None, None, Stepping(), None
                raise

    def commit(self) -> None:
        """The cell begun at `state` is kept: the runs it replaced are released."""
        for history in self._replaced or ():
            if history is not self.history:
                history.release()
        self._replaced = None
