"""Session: the submitted model as one namespace, the settings, and at most one stepping run."""

from __future__ import annotations

import dataclasses
import glob
import os
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import Any

import ir
from engines.errors import RunError
from engines.runtime import Program, Run, parse_schedule
from engines.runtime.objects import action_on, part_usages, performed_actions
from engines.witness import admit, unreproduced
from ir.model import Declaration, Element
from ir.syntax import Document
from opensysml_kernel.checking import (
    CheckSettings,
    ProgressMeter,
    ProgressSink,
    interruptible,
    refuse_unread,
    run_engine,
)
from opensysml_kernel.errors import (
    MissingFileError,
    NoRunError,
    NoWitnessError,
    RunFailedError,
    UnknownActionError,
    UsageError,
    WitnessWriteError,
)
from opensysml_kernel.history import History, Stepping
from opensysml_kernel.reports import Check, CheckReport
from opensysml_kernel.results import Result
from opensysml_kernel.witness import WitnessPlan, diff, next_move, read_plan, witness_steps, write_witnesses

DEFAULT_SCHEDULE = "reverse"
_STEP_LINE = re.compile(r"(step|move) \d+:|  \S+: .* → ")
STEP_TABLES = 20  # witnesses of one check given a step table (each is one more replay)


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


@dataclass(frozen=True)
class SessionState:
    """A session's own fields at one moment, for undoing a failing cell."""

    documents: tuple[Document, ...]
    model: ir.Model
    schedule: str
    trace: bool
    run: Run | None
    subject: str | None
    program: Program | None
    ids: tuple[tuple[int, frozenset[int]], ...]
    settings: CheckSettings
    breaks: tuple[str, ...]
    replay: Replay | None
    last_check: CheckReport | None
    stepping: Stepping
    history: History | None


@dataclass(frozen=True)
class Replay:
    """An installed witness: the next `%action` (of `subject`, when the witness names one) follows it."""

    plan: WitnessPlan
    subject: str | None

    def describe(self) -> str:
        ending = f"; ends {self.plan.ending}" if self.plan.ending else ""
        return f"{self.plan.name} (through move {self.plan.last_step}{ending})"


def _node_ids(document: Document) -> frozenset[int]:
    """The identity of every syntax node of a document, to tell which document a model element came from."""
    seen: set[int] = set()
    stack: list[Any] = list(document.members)
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            stack.extend(getattr(node, f.name) for f in dataclasses.fields(node))
        elif isinstance(node, (tuple, list)):
            stack.extend(node)
    return frozenset(seen)


class Session:
    """One modeler's session: `submit` SysML text, run `command` lines; every failure leaves it unchanged."""

    def __init__(self) -> None:
        self.documents: tuple[Document, ...] = ()
        self.model: ir.Model = ir.resolve([])
        self.schedule: str = DEFAULT_SCHEDULE
        self.trace: bool = False
        self.run: Run | None = None
        self.subject: str | None = None
        self._program: Program | None = None
        self._cells = 0
        self._ids: dict[int, frozenset[int]] = {}
        self.settings = CheckSettings()
        self.breaks: tuple[str, ...] = ()
        self.replay: Replay | None = None
        self.last_check: CheckReport | None = None
        self.stepping = Stepping()
        self._history: History | None = None  # the way back through the current run
        # While a cell runs, the histories of the runs it replaced: the cell may fail and put one back.
        self._replaced: list[History] | None = None
        # The face's live progress line for long checks (the notebook's display, the terminal's status).
        self.progress_sink: Callable[[], ProgressSink | None] | None = None

    # ------------------------------------------------------------ model

    def _declared_by(self, model: ir.Model, document: Document) -> list[Element]:
        ids = self._ids.get(id(document))
        if ids is None:
            ids = self._ids[id(document)] = _node_ids(document)
        return [el for el in model.walk() if el.kind != "package" and el.decl is not None
                and id(el.decl) in ids and not el.name.startswith("$")]

    def _merge(self, new: Sequence[Document]) -> tuple[tuple[Document, ...], ir.Model, list[str]]:
        """The documents and model after submitting `new`, and the names `new` redeclared; raises, changes nothing."""
        before = {id(doc): {el.qualified_name for el in self._declared_by(self.model, doc)}
                  for doc in self.documents}
        documents = (*self.documents, *new)
        model = ir.resolve(documents)
        redeclared: set[str] = set()
        for element in (el for doc in new for el in self._declared_by(model, doc)):
            if any(element.qualified_name in names for names in before.values()):
                redeclared.add(element.qualified_name)
        # An older document all of whose declarations were redeclared is replaced whole.
        stale = [doc for doc in self.documents if before[id(doc)] and not self._declared_by(model, doc)]
        if stale:
            gone = {id(doc) for doc in stale}
            kept = tuple(doc for doc in documents if id(doc) not in gone)
            # When something still leans on the old text, keep it: the later declarations win anyway.
            with suppress(ir.SysmlError):
                model, documents = ir.resolve(kept), kept
        return documents, model, sorted(redeclared)

    def _next_path(self) -> str:
        self._cells += 1
        return f"<cell {self._cells}>"

    def submit(self, text: str, path: str | None = None) -> Result:
        """Parse and resolve `text` into the model; on any error raise and change nothing."""
        path = path if path is not None else self._next_path()
        return self._submit([ir.parse(text, path)], [])

    def submit_many(self, texts: Sequence[tuple[str, str]], heads: Sequence[str] = ()) -> Result:
        """Submit several texts (text, path) as one atomic change."""
        return self._submit([ir.parse(text, path) for text, path in texts], heads)

    def _submit(self, documents: list[Document], heads: Sequence[str]) -> Result:
        merged, model, redeclared = self._merge(documents)
        lines = list(heads)
        declared = [el for doc in documents for el in self._declared_by(model, doc)
                    if el.owner is None or el.owner.kind in ("package", "root")]
        if declared:
            lines.append("declared " + ", ".join(f"{el.kind} {el.qualified_name}" for el in declared))
        elif not heads:
            lines.append("declared nothing new")
        shown = {el.qualified_name for el in declared}
        lines.extend(f"note: {name} redeclared" for name in redeclared if name in shown)
        # Commit: nothing above changed the session.
        self.documents, self.model, self._program = merged, model, None
        self._ids = {id(doc): self._ids[id(doc)] for doc in merged if id(doc) in self._ids}
        if redeclared and self.run is not None:
            lines.append(f"note: the run of {self.subject} was dropped because its model changed;"
                         f" %action {self.subject} starts it again")
            self._replace_run(None, None)
        return Result.of(lines)

    def load(self, patterns: Sequence[str]) -> Result:
        """Submit the files the patterns name (globs expanded, sorted), all or nothing."""
        paths: list[str] = []
        for pattern in patterns:
            matches = sorted(glob.glob(pattern)) if glob.has_magic(pattern) else [pattern]
            if not matches:
                raise MissingFileError(pattern)
            for match in matches:
                if os.path.isdir(match):
                    raise MissingFileError(match, "not a file:")
                if not os.path.isfile(match):
                    raise MissingFileError(match, "no such file")
                if match not in paths:
                    paths.append(match)
        texts = []
        for file in paths:
            with open(file, encoding="utf-8") as handle:
                texts.append((handle.read(), file))
        return self.submit_many(texts, [f"loaded {file}" for file in paths])

    def declarations(self) -> list[Declaration]:
        return self.model.declarations()

    def clear(self) -> None:
        """Drop every declaration and the run; the settings stay."""
        self.documents, self.model, self._program = (), ir.resolve([]), None
        self._replace_run(None, None)
        self.last_check = None
        self._ids = {}

    def set_schedule(self, text: str) -> str:
        self.schedule = parse_schedule(text)
        return self.schedule

    # ------------------------------------------------------------ runs

    def action_name(self, name: str, performer: str | None = None) -> str:
        """The qualified name of a runnable action, given qualified or (when unique) by its last part;
        with a performer, first among the actions that part performs (`%action prime on pump`)."""
        actions = self.model.behaviors("action")
        if name in actions:
            return name
        if performer is not None:
            performed = action_on(self.model, name, performer)
            if performed is not None:
                return performed.qualified_name
        name = name.removeprefix("::")
        hits = [qn for qn in actions if qn.endswith("::" + name) or qn == name]
        if len(hits) == 1:
            return hits[0]
        raise UnknownActionError(name, actions, hits if len(hits) > 1 else ())

    def parts_performing(self, action: str) -> list[str]:
        """The part usages that perform the named action (for completion), or every one if it is unknown."""
        parts = part_usages(self.model)
        try:
            subject = self.program().action(action)
        except ir.SysmlError:
            return parts
        out = []
        for name in parts:
            part = self.model.element(name)
            if part is not None and any(a is subject for a in performed_actions(self.model, part)):
                out.append(name)
        return out

    def program(self) -> Program:
        if self._program is None:
            self._program = Program(self.model)
        return self._program

    def start_action(self, name: str, performer: str | None = None) -> Progress:
        """A stepping run of the action; with a replay installed, a fine run that follows the witness
        (on the part the witness names, unless another is given, which is refused)."""
        replay = self.replay
        if replay is not None and performer is None:
            performer = replay.plan.witness.performer
        subject = self.action_name(name, performer)
        if replay is not None:
            admit(replay.plan.witness, self.model, replay.plan.name, subject, performer)
            run = self.program().start_action(subject, performer=performer, fine=True)
            self.replay = None
            self.stepping = Stepping(replay.plan, fine=True)
        else:
            run = self.program().start_action(subject, performer=performer, schedule=self.schedule)
            self.stepping = Stepping()
        self._replace_run(run, subject)
        return self._progress(run, list(run.trace))

    def _replace_run(self, run: Run | None, subject: str | None) -> None:
        """The new current run (or none); the old one's snapshots are released, or, inside a cell, once it ends."""
        if self._history is not None:
            if self._replaced is not None:
                self._replaced.append(self._history)
            else:
                self._history.release()
        self.run, self.subject = run, subject
        self._history = History(run) if run is not None else None

    def _require_run(self) -> Run:
        if self.run is None:
            raise NoRunError("no run to step: start one with %action <name>")
        if self.run.finished:
            raise NoRunError(f"the run of {self.subject} has {self.run.status}:"
                             f" start another with %action {self.subject}")
        return self.run

    def step(self, count: int = 1) -> Progress:
        """`count` steps (moves, when replaying) of the run, fewer if it ends or stops at a breakpoint."""
        return self._advance(count)

    def continue_run(self) -> Progress:
        """Run to completion, a runtime error, a breakpoint, a deadlock or the end of the witness replayed."""
        return self._advance(None)

    def _advance(self, count: int | None) -> Progress:
        run = self._require_run()
        history = self._history
        assert history is not None, "every run has its history"
        start = len(run.trace)
        lines: list[str] = []
        stopped: str | None = None
        done = 0
        with self._failing(run, start, lines):
            while not run.finished and (count is None or done < count):
                before = {(t.id, t.node) for t in run.tokens()}
                # Before next_move, which may let time pass: going back undoes that too.
                history.before_step(self.stepping)
                if self.stepping.fine:
                    mark = len(run.trace)
                    try:
                        move = next_move(run, self.stepping.plan)
                    except Exception:
                        history.step_not_made()
                        raise
                    if move is None:
                        history.step_not_made()
                        stopped = f"✗ Action {self.subject}: {run.stuck() or 'no move is enabled'}" \
                                  f" (after {len(run.moves_taken)} moves)"
                        break
                    others = [m.label for m in run.enabled_moves() if m != move]
                    over = f" (chosen over {', '.join(others)})" if others else ""
                    lines.append(f"move {len(run.moves_taken) + 1}: token {move.label}{over}")
                    values = run.outputs()
                    try:
                        run.apply(move)
                    finally:
                        lines.extend(run.trace[mark:])
                        lines.extend(f"  {name}: {was} → {now}" for name, was, now in diff(values, run.outputs()))
                else:
                    mark = len(run.trace)
                    try:
                        run.step()
                    finally:
                        lines.extend(run.trace[mark:])
                done += 1
                stops = [stop for stop in (self._breakpoint(run, before), self._witness_end(run)) if stop]
                if stops:
                    stopped = "\n".join(stops)
                    break
        return self._progress(run, lines, stopped)

    def _breakpoint(self, run: Run, before: set[tuple[int, str]]) -> str | None:
        """`⏸ breakpoint <node> (token N)` when a token arrived at a breakpoint's node."""
        if not self.breaks or run.finished:
            return None
        for token in run.tokens():
            if token.node in self.breaks and (token.id, token.node) not in before:
                return f"⏸ breakpoint {token.node} (token {token.id})"
        return None

    def _witness_end(self, run: Run) -> str | None:
        plan = self.stepping.plan
        if plan is None or self.stepping.ended or len(run.moves_taken) != plan.last_step:
            return None
        self.stepping = dataclasses.replace(self.stepping, ended=True)
        if not plan.ending or run.finished:
            return None
        stop = f"⏸ end of the witness after {len(run.moves_taken)} moves: {plan.ending}"
        found = unreproduced(self.program(), run, plan.witness)
        return stop if found is None else f"{stop}\n✗ not reproduced: {found}"

    def back(self, count: int = 1) -> Progress:
        """Undo the last `count` steps (moves, when replaying): the run is restored from the snapshot
        taken before them, and goes on from there exactly as it did."""
        if self.run is None or self.subject is None or self._history is None:
            raise NoRunError("no run to step back in: start one with %action <name>")
        unit = "move" if self.stepping.fine else "step"
        done = len(self._history)
        if count > done:
            raise UsageError(f"%back {count}: the run of {self.subject} has made only {done} {unit}s",
                             f"%back [n] with n <= {done}")
        self.stepping = self._history.back(count)
        plural = "" if count == 1 else "s"
        head = f"⏸ back {count} {unit}{plural}: {self.subject} at {unit} {done - count}"
        return self._progress(self.run, [], head)

    def add_break(self, node: str) -> list[str]:
        """Set a breakpoint; a note when no action of the model has a node of that name (yet)."""
        if node not in self.breaks:
            self.breaks = (*self.breaks, node)
        lines = [f"breakpoint {node}"]
        if node not in self.node_names():
            lines.append(f"note: no action of the model has a node named '{node}' yet")
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

    def node_names(self) -> list[str]:
        """The node names of every action graph of the model (for breakpoints and completion)."""
        names: set[str] = set()
        with suppress(ir.SysmlError):
            program = self.program()
            for qualified in self.model.behaviors("action"):
                with suppress(ir.SysmlError, KeyError, ValueError):
                    names.update(node.name for node in program.graph(program.action(qualified)).nodes)
        return sorted(names)

    # ------------------------------------------------------------ checks

    def check(self, name: str, performer: str | None = None) -> CheckReport:
        """Ask the selected engines about the action over every schedule; the report, kept as the last check."""
        subject = self.action_name(name, performer)
        engines = self.settings.engines() or ("check",)
        if len(engines) == 1:
            refuse_unread(self.settings, engines[0])
        program = self.program()
        checks: list[Check] = []
        for engine in engines:
            sink = self.progress_sink() if self.progress_sink is not None else None
            meter = ProgressMeter(subject, sink)
            try:
                with interruptible() as flag:
                    result = run_engine(engine, program, subject, self.settings, performer, flag, meter)
            finally:
                meter.close()
            paths: tuple[str, ...] = ()
            unwritten = None
            if self.settings.witness_dir is not None and result.witnesses:
                # The check is done: a folder that cannot hold its witnesses is said after its report.
                try:
                    paths = write_witnesses(self.settings.witness_dir, subject, result.witnesses,
                                            engine if len(engines) > 1 else "")
                except WitnessWriteError as error:
                    unwritten = str(error)
            steps = tuple(witness_steps(program, subject, WitnessPlan.of(w, f"witness {i} of {subject}"), performer)
                          if i <= STEP_TABLES else () for i, w in enumerate(result.witnesses, 1))
            checks.append(Check(result, paths, steps, unwritten))
            if result.incomplete == "interrupted" or flag():
                break
        report = CheckReport.build(checks)
        self.last_check = report
        return report

    def install_replay(self, target: str) -> Replay | None:
        """`%replay <file|last|n|off>`: the witness the next `%action` follows."""
        if target == "off":
            self.replay = None
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
        self.replay = Replay(plan, plan.witness.behavior)
        return self.replay

    @contextmanager
    def _failing(self, run: Run, start: int, shown: list[str] | None = None) -> Iterator[None]:
        """Turn the engine's runtime failure into a RunFailedError with the trace lines of the failing command."""
        try:
            yield
        except RunError as error:
            lines = self.filter_trace(shown if shown is not None else run.trace[start:])
            step = len(run.moves_taken) if run.fine else run.step_number
            raise RunFailedError(self.subject or "", step, error, lines, "move" if run.fine else "step") from error

    def filter_trace(self, lines: Sequence[str]) -> list[str]:
        """All of `lines` with trace on; only the `step N:` lines with it off."""
        return list(lines) if self.trace else [line for line in lines if _STEP_LINE.match(line)]

    def _progress(self, run: Run, lines: Sequence[str], stopped: str | None = None) -> Progress:
        outputs = tuple(sorted(run.outputs().items())) if run.status == "completed" else ()
        step = len(run.moves_taken) if run.fine else run.step_number
        return Progress(self.subject or "", tuple(lines), run.status, step, outputs, stopped)

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

    def snapshot(self) -> SessionState:
        """The session as it stands, before a cell that `restore` undoes if it fails or `commit` keeps."""
        if self._replaced is None:
            self._replaced = []
        return SessionState(self.documents, self.model, self.schedule, self.trace, self.run, self.subject,
                            self._program, tuple(self._ids.items()), self.settings, self.breaks, self.replay,
                            self.last_check, self.stepping, self._history)

    def restore(self, state: SessionState) -> None:
        """Put back what `snapshot` saw (a run's own steps and %back in between are not undone)."""
        self.documents, self.model, self.schedule, self.trace = state.documents, state.model, state.schedule, state.trace
        self.settings, self.breaks, self.replay = state.settings, state.breaks, state.replay
        self._program, self._ids, self.last_check = state.program, dict(state.ids), state.last_check
        if state.run is not self.run:
            # The runs the cell started are dropped; the one it replaced comes back with its way back.
            dropped = [*(self._replaced or ()), *([self._history] if self._history is not None else [])]
            for history in dropped:
                if history is not state.history:
                    history.release()
            self.run, self.subject, self.stepping, self._history = state.run, state.subject, state.stepping, state.history
        else:
            self._release_replaced()
        self._replaced = None

    def commit(self) -> None:
        """The cell begun at `snapshot` is kept: the runs it replaced are released."""
        self._release_replaced()
        self._replaced = None

    def _release_replaced(self) -> None:
        for history in self._replaced or ():
            if history is not self._history:
                history.release()

    # ------------------------------------------------------------ commands

    def command(self, line: str) -> Result:
        """Carry out one `%` command line."""
        from opensysml_kernel.commands import execute

        return execute(self, line)

    def cell(self, text: str, path: str | None = None) -> Iterator[Result]:
        """The results of a cell's commands and submissions in order; stops at (raises) the first failure."""
        from opensysml_kernel.commands import execute_cell

        return execute_cell(self, text, path if path is not None else self._next_path())

