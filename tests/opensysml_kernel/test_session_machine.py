"""The Session driven by Hypothesis's rule-based state machine (issue 9, item 4): good and bad cells,
runs stepped, gone back, continued, checked and replayed, settings, and the same cells with a bug or
an interrupt injected halfway (a write inside a move, a submission, a snapshot's restore, a witness's
next move). After every rule the session must look exactly like a fresh one fed only the cells that
completed (a run's runtime failure is such a cell: an outcome the session keeps). The `ci` profile
runs a few dozen short programs; HYPOTHESIS_PROFILE=slow runs 450 programs of up to 25 rules (over 10,000 rules)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext, suppress
from typing import Any
from unittest import mock

from conftest import NOT_BOOLEAN, RACE, TANK
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

import tests.property.conftest  # noqa: F401 (the ci and slow profiles)
from engines.runtime.actions.statements import StatementRunner
from engines.runtime.snapshot import Snapshot
from ir.errors import SysmlError
from opensysml_kernel import debugger, workspace
from opensysml_kernel.commands import execute_cell
from opensysml_kernel.errors import CellInterrupted, InternalError, RunFailedError
from opensysml_kernel.session import Session

SLOW = os.environ.get("HYPOTHESIS_PROFILE") == "slow"

GOOD = (RACE, TANK, NOT_BOOLEAN, RACE.replace("c := 2", "c := 3"),
        "package extra { private import ScalarValues::*; action Idle { attribute n : Integer := 1; } }")
BAD = ("package broken {\n  action a \n}\n", "package other { part p : Missing; }", "action {",
       "package race { action Race { first nowhere then done; } }")
ACTIONS = ("Race", "Fill", "Handshake", "Seq", "Idle", "Nope")
SETTINGS = ("%trace on", "%trace off", "%schedule seed:3", "%schedule declared", "%schedule reverse",
            "%break j", "%break pump", "%unbreak all", "%unbreak j", "%check-property tank::NeverNegative",
            "%check-property off", "%check-bounds depth=12", "%check-bounds off", "%breaks", "%list", "%tokens")
STEPPING = ("%step", "%step 2", "%step 4", "%back", "%back 2", "%continue", "%tokens", "%trace")
COMMANDS = (*SETTINGS, *STEPPING, *(f"%action {a}" for a in ACTIONS), "%replay last", "%replay 2",
            "%replay off", "%bogus", "%step 0", "%clear")

# What an injected cell does first (each submits its model, so the failure lands inside real work).
SETUPS = (RACE + "%action Race\n%step 2\n", TANK + "%engine check\n%action Fill\n%engine run\n%replay last\n%action Fill\n",
          RACE + "%action Race\n%step 4\n%back 3\n", TANK + "%schedule seed:3\n%action Fill\n%step\n", TANK)

counted = {"programs": 0, "rules": 0, "injected": 0, "undone": 0}


def view(session: Session) -> tuple[object, ...]:
    """Everything a modeler can see of a session, in values two sessions can compare."""
    run, report, history = session.run, session.last_check, session.debugger.history
    checked = None if report is None else (
        report.verdict, report.outcomes, tuple(w.text() for c in report.checks for w in c.result.witnesses))
    return (
        [(d.kind, d.qualified_name, d.path, d.line) for d in session.declarations()], len(session.documents),
        session.schedule, session.trace, session.settings, session.breaks, session.replay, session.debug, checked,
        session.subject, None if run is None else (run.status, run.fine, run.step_number, len(run.moves_taken)),
        session.full_trace(), session.outputs(), [str(t) for t in session.tokens()] if run is not None else None,
        None if history is None else len(history), session.stepping,
    )


def _failing(owner: Any, name: str, nth: int, error: Callable[[], BaseException]) -> AbstractContextManager[Any]:
    original = getattr(owner, name)
    calls = [0]

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth:
            counted["injected"] += 1
            raise error()
        return original(*args, **kwargs)

    return mock.patch.object(owner, name, failing)


@contextmanager
def _resolve_failing(nth: int, error: Callable[[], BaseException]) -> Iterator[None]:
    with _failing(workspace.ir, "resolve", nth, error):
        yield


INJECTIONS: dict[str, Callable[[int, Callable[[], BaseException]], AbstractContextManager[Any]]] = {
    "a write inside a move": lambda nth, error: _failing(StatementRunner, "_assign", nth, error),
    "a submission": _resolve_failing,
    "a snapshot's restore": lambda nth, error: _failing(Snapshot, "restore", nth, error),
    "a witness's next move": lambda nth, error: _failing(debugger, "next_move", nth, error),
}
Injection = Callable[[], AbstractContextManager[Any]]
FAILURES: tuple[Callable[[], BaseException], ...] = (
    lambda: ZeroDivisionError("division by zero"), lambda: RecursionError("maximum recursion depth exceeded"),
    lambda: MemoryError(), lambda: KeyError("lost"), KeyboardInterrupt)


class SessionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        counted["programs"] += 1
        self.session = Session()
        # The cells that completed (or ended in a run's failure), each with the failure injected into
        # it: an injected stack overflow inside a move is a run failure like a real one (NestingTooDeep),
        # an outcome the session keeps, so the fresh session is fed the same injection.
        self.kept: list[tuple[str, str, Injection | None]] = []
        self.cells = 0

    def cell(self, text: str, injection: Injection | None = None) -> None:
        counted["rules"] += 1
        self.cells += 1
        path = f"<cell {self.cells}>"
        before = view(self.session)
        try:
            with injection() if injection is not None else nullcontext():
                list(execute_cell(self.session, text, path))
        except RunFailedError:
            self.kept.append((text, path, injection))
        except (InternalError, CellInterrupted):
            counted["undone"] += 1
            assert view(self.session) == before
        except SysmlError:
            assert view(self.session) == before
        else:
            self.kept.append((text, path, injection))

    @invariant()
    def as_a_fresh_session_fed_the_cells_that_completed(self) -> None:
        fresh = Session()
        saved = counted["injected"]
        for text, path, injection in self.kept:
            with suppress(RunFailedError), injection() if injection is not None else nullcontext():
                list(execute_cell(fresh, text, path))
        counted["injected"] = saved
        assert view(fresh) == view(self.session)

    @rule(text=st.sampled_from(GOOD))
    def submit(self, text: str) -> None:
        self.cell(text)

    @rule(text=st.sampled_from(BAD), before=st.sampled_from(("", "%trace on\n%action Race\n%step\n")))
    def submit_bad(self, text: str, before: str) -> None:
        self.cell(before + text)

    @rule(action=st.sampled_from(ACTIONS))
    def start(self, action: str) -> None:
        self.cell(f"%action {action}")

    @rule(line=st.sampled_from(STEPPING))
    def step(self, line: str) -> None:
        self.cell(line)

    @rule(action=st.sampled_from(("Race", "Fill", "Handshake")), engine=st.sampled_from(("check", "explore")))
    def check(self, action: str, engine: str) -> None:
        self.cell(f"%engine {engine}\n%action {action}\n%engine run")

    @rule(witness=st.sampled_from(("last", "1", "2", "off")), action=st.sampled_from(("Race", "Fill", "")))
    def replay(self, witness: str, action: str) -> None:
        self.cell(f"%replay {witness}" + (f"\n%action {action}\n%continue" if action else ""))

    @rule(line=st.sampled_from(SETTINGS))
    def setting(self, line: str) -> None:
        self.cell(line)

    @rule(lines=st.lists(st.sampled_from(COMMANDS), min_size=2, max_size=5))
    def several(self, lines: list[str]) -> None:
        self.cell("\n".join(lines))

    @rule(setup=st.sampled_from(SETUPS),
          lines=st.lists(st.sampled_from(("%continue", "%step 2", "%back", "%back 2", "%step", "%action Race",
                                          "%replay last", "%action Fill", "%action Handshake")), max_size=4),
          where=st.sampled_from(tuple(INJECTIONS)), nth=st.integers(1, 4), failure=st.sampled_from(FAILURES))
    def injected(self, setup: str, lines: list[str], where: str, nth: int,
                 failure: Callable[[], BaseException]) -> None:
        self.cell(setup + "\n".join(lines), lambda: INJECTIONS[where](nth, failure))


SessionMachine.TestCase.settings = settings(
    settings.default, max_examples=450 if SLOW else 25, stateful_step_count=25 if SLOW else 12)
TestSessionMachine = SessionMachine.TestCase


def teardown_module() -> None:
    if os.environ.get("SESSION_MACHINE_COUNTS"):
        print(f"\nsession machine: {counted}")


def test_a_stack_overflow_injected_inside_a_move_is_a_run_failure_kept_as_an_outcome() -> None:
    """Found by the slow profile: a RecursionError inside a move is the run's typed failure (it nests
    deeper than the stack allows), which the session keeps like any run failure; the fresh session it
    is compared with must be fed the same injection, or it runs the cell to completion."""
    machine = SessionMachine()
    machine.cell(RACE + "%action Race\n%step 2\n")
    machine.cell("%continue", lambda: INJECTIONS["a write inside a move"](
        1, lambda: RecursionError("maximum recursion depth exceeded")))
    run = machine.session.run
    assert run is not None and (run.status, run.step_number) == ("failed", 3)
    machine.as_a_fresh_session_fed_the_cells_that_completed()
