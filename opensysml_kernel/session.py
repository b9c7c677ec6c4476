"""Session: one modeler's session, a facade over the workspace (the model), the debugger (the run
stepped) and the engines (checks); the `%` commands and the faces sit above it."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import ParamSpec, TypeVar

import ir
from engines.check.properties import asserted_properties
from engines.framework import QuestionKind
from engines.framework import Result as Answer
from engines.framework import engine as engine_named
from engines.runtime import Program
from engines.runtime.states import EnvEvent, parse_duration, parse_send
from engines.witness import Witness, admit, fix_inputs
from ir.model import Declaration
from ir.syntax import Document
from opensysml_kernel.checking import (
    CheckSettings,
    Interrupt,
    ProgressMeter,
    ProgressSink,
    applying,
    interruptible,
    not_asked,
    refuse_unread,
    run_engine,
    unread,
    with_asserted,
)
from opensysml_kernel.debugger import DEFAULT_SCHEDULE, Debugger, DebuggerState, Progress, Replay, Token
from opensysml_kernel.diagrams import action_diagram, chosen_witness, witness_path
from opensysml_kernel.errors import NoWitnessError, RunFailedError, WitnessWriteError
from opensysml_kernel.history import Stepped, Stepping
from opensysml_kernel.machine_checks import Environment, ask_machine
from opensysml_kernel.machines import Driven, InstanceReplay, InstanceStepping, MachineReplay, MachineStepping
from opensysml_kernel.reports import Check, CheckReport
from opensysml_kernel.results import Result
from opensysml_kernel.witness import WitnessPlan, read_plan, witness_steps, write_witnesses
from opensysml_kernel.workspace import AllOrNothing, Submitted, Workspace, WorkspaceState

__all__ = ["DEFAULT_SCHEDULE", "Progress", "Replay", "Session", "SessionState", "Token"]

STEP_TABLES = 20  # witnesses of one check given a step table (each is one more replay)

P = ParamSpec("P")
R = TypeVar("R")


def _atomic(method: Callable[P, R]) -> Callable[P, R]:
    """The method completes, or the session is left as it was (whatever it raised)."""
    @functools.wraps(method)
    def atomic(*args: P.args, **kwargs: P.kwargs) -> R:
        session = args[0]
        assert isinstance(session, Session)
        with session.atomic():
            return method(*args, **kwargs)
    return atomic


@dataclass(frozen=True)
class SessionState:
    """A session's own fields at one moment, for undoing a failing cell."""

    workspace: WorkspaceState
    debugger: DebuggerState
    settings: CheckSettings
    last_check: CheckReport | None
    debug: bool
    environment: Environment = field(default_factory=Environment)
    checked_machine: str | None = None


class Session:
    """One modeler's session: `submit` SysML text, run, step and check actions; every failure leaves it unchanged."""

    def __init__(self) -> None:
        self.workspace = Workspace()
        self.debugger = Debugger()
        self.settings = CheckSettings()
        self.last_check: CheckReport | None = None
        # what %send and %events queue for a machine check's environment (under a checking engine)
        self.environment = Environment()
        self.checked_machine: str | None = None  # the machine the last machine check was of (%advance re-checks it)
        self.debug = False  # internal errors shown with their Python traceback (`%debug on`)
        # A cell, a command, a step: each completes or leaves the session as it was; a run that fails
        # at runtime is an outcome, kept to inspect, and a cell its reader stopped reading keeps what it did.
        self.atomic = AllOrNothing(self.snapshot, self.restore, self._commit, (RunFailedError, GeneratorExit))
        # The face's live progress line for long checks (the notebook's display, the terminal's status).
        self.progress_sink: Callable[[], ProgressSink | None] | None = None

    # ------------------------------------------------------------ what the parts hold

    @property
    def documents(self) -> tuple[Document, ...]:
        return self.workspace.documents

    @property
    def model(self) -> ir.Model:
        return self.workspace.model

    @property
    def run(self) -> Stepped | None:
        return self.debugger.run

    @property
    def machine(self) -> Driven | None:
        """The current run when it is a state machine's (or an instance's): what %send and %advance drive."""
        return self.debugger.run if isinstance(self.debugger.run, Driven) else None

    @property
    def subject(self) -> str | None:
        return self.debugger.subject

    @property
    def stepping(self) -> Stepping:
        return self.debugger.stepping

    @property
    def breaks(self) -> tuple[str, ...]:
        return self.debugger.breaks

    @property
    def replay(self) -> Replay | None:
        return self.debugger.replay

    @property
    def schedule(self) -> str:
        return self.debugger.schedule

    @property
    def trace(self) -> bool:
        return self.debugger.trace

    @trace.setter
    def trace(self, on: bool) -> None:
        self.debugger.trace = on

    # ------------------------------------------------------------ model

    def next_path(self) -> str:
        return self.workspace.next_path()

    @_atomic
    def submit(self, text: str, path: str | None = None) -> Result:
        """Parse and resolve `text` into the model; on any error raise and change nothing."""
        return self._submitted(self.workspace.submit(text, path))

    @_atomic
    def submit_many(self, texts: Sequence[tuple[str, str]], heads: Sequence[str] = ()) -> Result:
        """Submit several texts (text, path) as one atomic change."""
        return self._submitted(self.workspace.submit_many(texts, heads))

    @_atomic
    def load(self, patterns: Sequence[str]) -> Result:
        """Submit the files the patterns name (globs expanded, sorted), all or nothing."""
        return self._submitted(self.workspace.load(patterns))

    def _submitted(self, submitted: Submitted) -> Result:
        lines = list(submitted.lines)
        if submitted.redeclared and self.run is not None:
            lines.append(f"note: the run of {self.subject} was dropped because its model changed;"
                         f" %action {self.subject} starts it again")
            self.debugger.replace(None, None)
        return Result.of(lines)

    def declarations(self) -> list[Declaration]:
        return self.workspace.declarations()

    @_atomic
    def clear(self) -> None:
        """Drop every declaration and the run; the settings stay."""
        self.workspace.clear()
        self.debugger.replace(None, None)
        self.last_check = None

    @_atomic
    def set_schedule(self, text: str) -> str:
        return self.debugger.set_schedule(text)

    def action_name(self, name: str, performer: str | None = None) -> str:
        return self.workspace.action_name(name, performer)

    def parts_performing(self, action: str) -> list[str]:
        return self.workspace.parts_performing(action)

    def program(self) -> Program:
        return self.workspace.program()

    def node_names(self) -> list[str]:
        return self.workspace.node_names()

    # ------------------------------------------------------------ runs

    @_atomic
    def start_machine(self, name: str, performer: str | None = None) -> Driven:
        """A run of the state machine (its initial configuration entered), the debugger's current run;
        with a witness of a machine installed (`%replay`), the machine following it move by move."""
        replaying = self._replaying("state", lambda: self.program().state(name).qualified_name, MachineReplay)
        if replaying is not None:
            return replaying
        machine = MachineStepping(self.program(), name, self.schedule, performer)
        self.debugger.attach(machine, machine.subject, None)
        return machine

    def _replaying(self, kind: str, subject: Callable[[], str],
                   follow: Callable[[Program, Witness], MachineReplay]) -> MachineReplay | None:
        """With a witness of a `kind` ("state", "part") installed by `%replay`, the run following it,
        made the debugger's current run (a witness of another machine or part is refused); else None."""
        installed = self.debugger.replay
        if installed is None or installed.subject not in self.model.behaviors(kind):
            return None
        name = subject()
        admit(installed.plan.witness, self.model, installed.plan.name, name)
        replay = self.debugger.replay_for(name)
        assert replay is not None, f"the replay installed is of this {kind}"
        replaying = follow(self.program(), replay.plan.witness)
        self.debugger.attach(replaying, replaying.subject, replay)
        return replaying

    def part_name(self, name: str) -> str:
        """The qualified name of the part (definition or usage) `name` (qualified, or unique unqualified)."""
        return self.workspace.part_name(name)

    @_atomic
    def instantiate(self, part: str) -> InstanceStepping | InstanceReplay:
        """The part materialized with its parts, the actions they perform run and the machines they
        exhibit started: the debugger's current run; with a witness of the part installed (`%replay`),
        the instance following it move by move."""
        replaying = self._replaying("part", lambda: self.workspace.part_name(part), InstanceReplay)
        if replaying is not None:
            assert isinstance(replaying, InstanceReplay)
            return replaying
        instance = InstanceStepping(self.program(), self.workspace.part_name(part), self.schedule)
        self.debugger.attach(instance, instance.subject, None)
        return instance

    @_atomic
    def send(self, text: str, target: str | None = None) -> EnvEvent:
        """The environment sends the event `text` (`Go`, `Set(speed=3)`) to the machine (or `target`)."""
        self.debugger.driven("send")
        return self.debugger.send(parse_send(text), target)

    @_atomic
    def advance(self, text: str) -> Progress:
        """What is due now runs, then the clock moves by the duration `text`; the timers due fire."""
        self.debugger.driven("advance")
        return self.debugger.advance(parse_duration(text))

    @_atomic
    def start_action(self, name: str, performer: str | None = None) -> Progress:
        """A stepping run of the action; with a replay installed, a fine run that follows the witness
        (on the part the witness names, unless another is given, which is refused)."""
        installed = self.debugger.replay
        if installed is not None and performer is None:
            performer = installed.plan.witness.performer
        subject = self.action_name(name, performer)
        if installed is not None:
            # A witness of another model (changed since %replay), behavior or performer is refused.
            admit(installed.plan.witness, self.model, installed.plan.name, subject, performer)
        replay = self.debugger.replay_for(subject)
        program = self.program()
        if replay is not None:
            run = program.start_action(subject, performer=performer, fine=True)
            fix_inputs(run, replay.plan.witness.inputs)  # a solver's witness fixes its inputs first
        else:
            run = program.start_action(subject, performer=performer, schedule=self.schedule)
        return self.debugger.attach(run, subject, replay, asserted_properties(program, program.action(subject)))

    @_atomic
    def step(self, count: int = 1) -> Progress:
        """`count` steps (moves, when replaying) of the run, fewer if it ends or stops at a breakpoint."""
        return self.debugger.step(count)

    @_atomic
    def continue_run(self) -> Progress:
        """Run to completion, a runtime error, a breakpoint, a deadlock or the end of the witness replayed."""
        return self.debugger.continue_run()

    @_atomic
    def back(self, count: int = 1) -> Progress:
        """Undo the last `count` steps (moves, when replaying); the run goes on from there exactly as it did."""
        return self.debugger.back(count)

    @_atomic
    def add_break(self, node: str) -> list[str]:
        return self.debugger.add_break(node, [*self.node_names(), *self.workspace.state_names()])

    @_atomic
    def remove_break(self, node: str) -> list[str]:
        return self.debugger.remove_break(node)

    def filter_trace(self, lines: Sequence[str]) -> list[str]:
        return self.debugger.filter_trace(lines)

    def tokens(self) -> list[Token]:
        return self.debugger.tokens()

    def full_trace(self) -> list[str]:
        return self.debugger.full_trace()

    def outputs(self) -> dict[str, str]:
        return self.debugger.outputs()

    # ------------------------------------------------------------ checks

    def applying(self, name: str, performer: str | None = None) -> tuple[CheckSettings, tuple[str, ...]]:
        """The check settings as they apply to the action: the properties that read features it does not
        have left out (a session's %check-property is for the actions it is about), with why."""
        return applying(self.program(), self.action_name(name, performer), self.settings)

    @_atomic
    def check(self, name: str, performer: str | None = None, settings: CheckSettings | None = None,
              notes: Sequence[str] = ()) -> CheckReport:
        """Ask the selected engines about the action over every schedule (under `settings`, by default the
        session's; `notes` said with each engine's answer); the report, kept as the last check."""
        subject = self.action_name(name, performer)
        settings = settings if settings is not None else self.settings
        engines = settings.engines() or (engine_named("auto").name,)
        if len(engines) == 1:
            refuse_unread(settings, engines[0])
        program = self.program()
        # what the modeler asked decides which engines take the question; the assertions ride along
        asserting, said = with_asserted(program, subject, settings)
        checks: list[Check] = []
        for engine in engines:
            if len(engines) > 1:
                # side by side, an engine that cannot take this question is shown as not asked
                status = engine_named(engine).status()
                why = unread(settings, engine, asking_only=True) if status.ready else status.text
                if why is not None:
                    checks.append(Check(not_asked(engine, subject, why)))
                    continue
            # the assertions go to the engines that answer whether properties hold
            holds = QuestionKind.HOLDS in engine_named(engine).answers
            result, flag = self._asked(subject, functools.partial(
                run_engine, engine, program, subject, asserting if holds else settings, performer))
            paths, unwritten = self._witness_files(subject, result, engine if len(engines) > 1 else "")
            steps = tuple(witness_steps(program, subject, WitnessPlan.of(w, f"witness {i} of {subject}"), performer)
                          if i <= STEP_TABLES else () for i, w in enumerate(result.witnesses, 1))
            check = Check(result, paths, steps, unwritten, notes=(*(said if holds else ()), *notes))
            number = chosen_witness(check, None)
            path = witness_path(check, number) if number is not None else None
            checks.append(replace(check, diagram=action_diagram(program.graph(program.action(subject)), subject,
                                                                path).mermaid))
            if result.incomplete == "interrupted" or flag():
                break
        report = CheckReport.build(checks)
        self.last_check = report
        return report

    def _asked(self, subject: str, ask: Callable[[Interrupt, ProgressMeter], Answer]) -> tuple[Answer, Interrupt]:
        """One engine's answer, with the progress meter shown and Ctrl-C turned into its interrupt flag."""
        meter = ProgressMeter(subject, self.progress_sink() if self.progress_sink is not None else None)
        try:
            with interruptible() as flag:
                return ask(flag, meter), flag
        finally:
            meter.close()

    def _witness_files(self, subject: str, result: Answer, engine: str) -> tuple[tuple[str, ...], str | None]:
        """The answer's witnesses written where %check-witness says (their paths), or why they could not
        be: the check is done, so a folder that cannot hold them is said after its report."""
        if self.settings.witness_dir is None or not result.witnesses:
            return (), None
        try:
            return write_witnesses(self.settings.witness_dir, subject, result.witnesses, engine), None
        except WitnessWriteError as error:
            return (), str(error)

    def check_state(self, name: str, environment: Environment | None = None, applying_only: bool = False,
                    part: bool = False) -> CheckReport:
        """Ask the selected engines about the state machine (or, `part`, the instance of the part: its
        objects' machines and performed actions on one world) over every schedule of its moves and of the
        environment's sends (the queue %send and %events gathered, when none is given); kept as the last
        check. With `applying_only`, the properties that read features the machine lacks are left out, said."""
        program = self.program()
        subject = (program.part(name) if part else program.state(name)).qualified_name
        self.checked_machine = subject
        script = (environment if environment is not None else self.environment).script()
        kind = "part" if part else "state"
        settings, notes = applying(program, subject, self.settings, kind) if applying_only else (self.settings, ())
        asserting, said = with_asserted(program, subject, settings, kind)
        checks: list[Check] = []
        engines = settings.engines() or ("check",)
        for engine in engines:
            # the assertions go to the engines that answer whether properties hold
            holds = QuestionKind.HOLDS in engine_named(engine).answers
            result, flag = self._asked(subject, functools.partial(
                ask_machine, engine, program, subject, script, asserting if holds else settings, part=part))
            paths, unwritten = self._witness_files(subject, result, engine if len(engines) > 1 else "")
            checks.append(Check(result, paths, (), unwritten, "Instance" if part else "State machine",
                                script.describe(), (*(said if holds else ()), *notes)))
            if result.incomplete == "interrupted" or flag():
                break
        report = CheckReport.build(checks)
        self.last_check = report
        return report

    @_atomic
    def install_replay(self, target: str) -> Replay | None:
        """`%replay <file|last|n|off>`: the witness the next `%action` follows."""
        if target == "off":
            self.debugger.replay = None
            return None
        if target == "last" or target.isdigit():
            report = self.last_check
            if report is None or not report.checks:
                raise NoWitnessError(f"no check yet to take witness '{target}' from: %action <name> under"
                                     " %engine check first, or %replay <witness file>")
            check = report.checks[0]
            witnesses = check.result.witnesses
            if not witnesses:
                raise NoWitnessError(f"the last check of {check.subject} has no witness")
            if target == "last":
                first = check.number(check.result.violations[0].witness) if check.result.violations else None
                index = first - 1 if first is not None else 0
            else:
                index = int(target) - 1
                if not 0 <= index < len(witnesses):
                    raise NoWitnessError(f"the last check of {check.subject} has witnesses 1 to {len(witnesses)},"
                                         f" not {target}")
            plan = WitnessPlan.of(witnesses[index], f"witness {index + 1} of {check.subject}")
        else:
            plan = read_plan(target)
        # A witness of another model, or of a behavior this model lacks, is refused before it is followed.
        admit(plan.witness, self.model, plan.name)
        self.debugger.replay = Replay(plan, plan.witness.behavior)
        return self.debugger.replay

    # ------------------------------------------------------------ undo of a cell

    def snapshot(self) -> SessionState:
        """The session as it stands, before a cell that `restore` undoes if it fails or `commit` keeps."""
        return SessionState(self.workspace.state(), self.debugger.state(), self.settings, self.last_check,
                            self.debug, self.environment, self.checked_machine)

    def restore(self, state: SessionState) -> None:
        """Put back what `snapshot` saw, the run's steps and `%back`s since included."""
        self.workspace.restore(state.workspace)
        self.settings, self.last_check, self.debug = state.settings, state.last_check, state.debug
        self.debugger.restore(state.debugger)
        self.environment, self.checked_machine = state.environment, state.checked_machine

    def _commit(self, state: SessionState) -> None:
        """The cell begun at `snapshot` is kept: the runs it replaced are released."""
        self.debugger.commit()
