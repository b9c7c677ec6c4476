"""Issue 9, item 4: a cell, a command, a step, a %back, a %replay complete or leave the session exactly as
it was, whatever is raised; a failure that is not typed reads as an internal error (its traceback only
under %debug on); the REPL goes on after anything. Failures the model cannot cause are injected."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import RACE, TANK
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

import ir
from engines.runtime.actions.statements import StatementRunner
from engines.runtime.snapshot import Snapshot
from opensysml_kernel.commands import execute, execute_cell
from opensysml_kernel.errors import CellInterrupted, InternalError, RunFailedError, UsageError
from opensysml_kernel.repl import Repl, transcript
from opensysml_kernel.session import Session


def look(session: Session) -> tuple[object, ...]:
    """What a modeler can see of a session: the model, the settings, the run and its way back."""
    run = session.run
    return (
        [(d.kind, d.qualified_name) for d in session.declarations()], session.schedule, session.trace,
        session.settings, session.breaks, session.replay, session.debug, session.last_check, session.subject,
        run.status if run is not None else None, session.full_trace(), session.outputs(),
        [str(t) for t in session.tokens()] if run is not None else None,
        len(session.debugger.history) if session.debugger.history is not None else None, session.stepping,
    )


def fail_on_call(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, nth: int,
                 error: Callable[[], BaseException]) -> list[int]:
    """`owner.name` raises `error()` on its nth call (once); the calls counted in the list returned."""
    calls = [0]
    original = getattr(owner, name)

    def failing(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        if calls[0] == nth:
            raise error()
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, failing)
    return calls


@pytest.fixture
def stepped(race: Session) -> Session:
    """The race run with its tokens at a and b: the next step performs both branches' writes."""
    execute(race, "%action Race")
    execute(race, "%step 2")
    return race


def test_a_bug_halfway_through_a_step_undoes_the_step(stepped: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """Step 3 runs both branches; the second branch's write fails after the first one's was applied."""
    before = look(stepped)
    fail_on_call(monkeypatch, StatementRunner, "_assign", 2, lambda: ZeroDivisionError("division by zero"))
    with pytest.raises(InternalError) as caught:
        execute(stepped, "%step")
    assert look(stepped) == before
    message = str(caught.value)
    assert message.startswith("internal error: ZeroDivisionError: division by zero\n")
    assert "please report it" in message and "%debug on shows it" in message
    assert "Traceback" not in message
    monkeypatch.undo()
    assert execute(stepped, "%step").text == "step 3: token 2@j, token 3@j"  # as if it never failed


def test_debug_on_shows_the_traceback(stepped: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    assert execute(stepped, "%debug on").text == "debug on"
    fail_on_call(monkeypatch, StatementRunner, "_assign", 1, lambda: ZeroDivisionError("division by zero"))
    with pytest.raises(InternalError) as caught:
        execute(stepped, "%continue")
    assert "Traceback (most recent call last)" in str(caught.value)
    assert "ZeroDivisionError: division by zero" in str(caught.value).splitlines()[-1]
    with pytest.raises(UsageError, match="%debug takes on or off"):
        execute(stepped, "%debug maybe")


def test_debug_on_in_the_failing_cell_shows_it_and_is_undone(stepped: Session,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fail_on_call(monkeypatch, StatementRunner, "_assign", 1, lambda: ZeroDivisionError("division by zero"))
    with pytest.raises(InternalError, match="Traceback"):
        list(execute_cell(stepped, "%debug on\n%continue"))
    assert stepped.debug is False


def test_an_interrupt_inside_continue_undoes_it(stepped: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    before = look(stepped)
    fail_on_call(monkeypatch, StatementRunner, "_assign", 2, KeyboardInterrupt)
    with pytest.raises(CellInterrupted, match="interrupted: the command changed nothing"):
        execute(stepped, "%continue")
    assert look(stepped) == before


def test_a_runtime_failure_of_the_model_is_kept(session: Session) -> None:
    """A typed run failure is an outcome, reported as before: the run keeps it, failed, to inspect."""
    cell = TANK.replace("level - 3", "level / 0") + "%action Fill\n%continue\n"
    with pytest.raises(RunFailedError):
        list(execute_cell(session, cell))
    assert session.run is not None and session.run.status == "failed"
    assert [d.qualified_name for d in session.declarations()][:1] == ["tank"]


def test_a_bug_in_the_second_half_of_a_cell_undoes_the_first(session: Session,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    before = look(session)
    resolve = ir.resolve
    calls = [0]

    def deep(documents: Any) -> Any:
        calls[0] += 1
        if calls[0] == 2:
            raise RecursionError("maximum recursion depth exceeded")
        return resolve(documents)

    monkeypatch.setattr("opensysml_kernel.workspace.ir.resolve", deep)
    with pytest.raises(InternalError, match="RecursionError"):
        list(execute_cell(session, RACE + "%action Race\n%step 2\n%trace on\npackage more { action M; }\n"))
    assert look(session) == before and session.run is None


def test_a_failing_back_changes_nothing(stepped: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    execute(stepped, "%step 2")
    before = look(stepped)
    fail_on_call(monkeypatch, Snapshot, "restore", 1, lambda: MemoryError())
    with pytest.raises(InternalError, match="internal error: MemoryError"):
        execute(stepped, "%back 2")
    assert look(stepped) == before
    monkeypatch.undo()
    assert execute(stepped, "%back 2").text.startswith("⏸ back 2 steps: race::Race at step 2")


def test_a_failing_replay_changes_nothing(tank: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    list(execute_cell(tank, "%check-property tank::NeverNegative\n%action Fill\n%engine run"))
    before = look(tank)
    monkeypatch.setattr("opensysml_kernel.session.WitnessPlan.of", lambda *a: 1 / 0)
    with pytest.raises(InternalError):
        execute(tank, "%replay last")
    assert look(tank) == before
    monkeypatch.undo()
    execute(tank, "%replay last")
    before = look(tank)
    fail_on_call(monkeypatch, StatementRunner, "_assign", 1, lambda: OverflowError("int too large"))
    with pytest.raises(InternalError, match="OverflowError"):
        list(execute_cell(tank, "%action Fill\n%continue"))
    assert look(tank) == before  # the witness installed is still there for the next %action


def test_a_cell_that_replaced_a_stepped_run_gives_it_back_where_it_stood(stepped: Session,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    before, run = look(stepped), stepped.run
    fail_on_call(monkeypatch, StatementRunner, "_assign", 3, lambda: ValueError("boom"))
    with pytest.raises(InternalError):
        list(execute_cell(stepped, "%step\n%action Race\n%continue"))
    assert stepped.run is run and look(stepped) == before


def test_the_repl_goes_on_after_any_failure(race: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    fail_on_call(monkeypatch, StatementRunner, "_assign", 1, lambda: ZeroDivisionError("division by zero"))
    out = transcript(["%action Race", "%continue", "%tokens"], race)
    assert "internal error: ZeroDivisionError: division by zero" in out
    assert "Traceback" not in out
    assert out.splitlines()[-1] == "token 1@start"  # the %continue changed nothing


def test_ctrl_c_while_the_repl_prints_undoes_the_entry(race: Session) -> None:
    buffer = io.StringIO()
    repl = Repl(race, Console(file=buffer, width=100, color_system=None))
    printed = [0]
    plain = repl.console.print

    def interrupted(*args: Any, **kwargs: Any) -> None:
        printed[0] += 1
        if printed[0] == 2:
            raise KeyboardInterrupt
        plain(*args, **kwargs)

    repl.console.print = interrupted  # type: ignore[method-assign]
    assert not repl.process("%action Race\n%step 2\n%trace on")
    assert race.run is None and race.trace is False
    assert "interrupted: the entry changed nothing" in buffer.getvalue() or \
        "interrupted: the cell changed nothing" in buffer.getvalue()


def test_the_prompt_loop_survives_bugs_and_interrupts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    buffer = io.StringIO()
    repl = Repl(console=Console(file=buffer, width=100, color_system=None))
    fail_on_call(monkeypatch, Session, "clear", 1, KeyboardInterrupt)
    fail_on_call(monkeypatch, Session, "declarations", 1, lambda: RuntimeError("listing broke"))
    with create_pipe_input() as pipe:
        pipe.send_text("package p { action a; }\r%clear\r%list\r%list\r")
        pipe.send_text("\x04")
        repl.loop(repl.prompt_session(input=pipe, output=DummyOutput()))
    lines = buffer.getvalue().splitlines()
    assert "interrupted: the cell changed nothing" in lines
    assert any(line.startswith("internal error: RuntimeError: listing broke") for line in lines)
    assert lines[-1].split()[:2] == ["action", "p::a"]  # the session lived through both, the model kept
