"""The `%state` family: start a machine, send it events, step, continue, advance the clock, look at
its configuration, pool and positions, step back (over moves, sends and time alike); bad input is a
typed error and changes nothing. The machine is the one debugger's run, as an action is."""

from __future__ import annotations

import pytest

from engines.runtime.states import EnvironmentInputError, UnknownSignalError
from ir.errors import SysmlError
from opensysml_kernel.commands import execute, execute_cell
from opensysml_kernel.errors import NoRunError, RunFailedError, UsageError
from opensysml_kernel.session import Session

LAMP = """
package lamp {
    private import SI::*;
    attribute def Press;
    state Lamp {
        attribute presses : ScalarValues::Integer = 0;
        entry; then dark;
        state dark;
        state lit { entry { assign presses := presses + 1; } }
        transition first dark accept Press then lit;
        transition first lit accept Press then dark;
        transition first lit accept after 60 [s] then dark;
    }
}
"""

# Two regions: the leaf (closed or open, closing by itself after 30 s) and the latch; an engaged
# latch refuses Open through the leaf's guard.
DOOR = """
package door {
    private import SI::*;
    attribute def Open; attribute def Close; attribute def Lock; attribute def Unlock;
    state Door {
        attribute openings : ScalarValues::Integer = 0;
        attribute locked : ScalarValues::Boolean = false;
        entry; then operating;
        state operating parallel {
            state leaf {
                entry; then closed;
                state closed;
                state open { entry { assign openings := openings + 1; } }
                transition first closed accept Open if not locked then open;
                transition opening2 first open accept Close then closed;
                transition first open accept after 30 [s] then closed;
            }
            state latch {
                entry; then free;
                state free { entry { assign locked := false; } }
                state engaged { entry { assign locked := true; } }
                transition first free accept Lock then engaged;
                transition first engaged accept Unlock then free;
            }
        }
    }
}
"""


@pytest.fixture
def session() -> Session:
    s = Session()
    s.submit(LAMP, "lamp.sysml")
    return s


@pytest.fixture
def door() -> Session:
    s = Session()
    s.submit(DOOR, "door.sysml")
    execute(s, "%state Door")
    return s


def lines(session: Session, line: str) -> list[str]:
    return list(execute(session, line).lines)


def view(session: Session) -> tuple[object, ...]:
    """What a modeler can see of a machine's run."""
    machine = session.machine
    assert machine is not None
    history = session.debugger.history
    return (machine.current(), machine.events(), machine.where(), machine.visits(), machine.trace[:],
            machine.step_number, None if history is None else len(history), session.breaks)


def test_state_starts_in_the_initial_configuration(session: Session) -> None:
    assert lines(session, "%state Lamp") == ["▶ State machine lamp::Lamp started (schedule reverse)", "dark",
                                            "● dark at t=0.0"]


def test_send_then_continue_dispatches_in_arrival_order(session: Session) -> None:
    execute(session, "%state Lamp")
    assert lines(session, "%send Press") == ["sent Press (pool: Press); %continue or %step dispatches it"]
    execute(session, "%send Press")
    assert lines(session, "%continue") == [
        "move 3: completion of dark",
        "move 4: dispatch Press",
        "exit: dark", "enter: lit (entry action)", "transition: dark -> lit (event: accept Press)",
        "move 5: completion of lit",
        "move 6: dispatch Press",
        "exit: lit", "enter: dark", "transition: lit -> dark (event: accept Press)",
        "move 7: completion of dark",
        "● dark at t=0.0"]
    assert lines(session, "%current") == ["dark", "presses = 1"]


def test_every_move_says_what_it_dispatched_even_when_nothing_took_it(door: Session) -> None:
    """The bug of a %step after %send that seemed not to dispatch: it dispatched an event no transition took."""
    execute(door, "%send Lock")
    execute(door, "%continue")
    execute(door, "%send Open")
    assert lines(door, "%step") == ["move 7: dispatch Open (no transition took it)", "● engaged+closed at t=0.0"]
    assert lines(door, "%events")[0] == "pool: (empty)"


def test_advance_fires_the_timer_due(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    assert lines(session, "%advance 59")[-1] == "● lit at t=59.0"
    assert lines(session, "%events") == ["pool: (empty)", "deferred: (none)", "clock: t=59.0",
                                         "  timer t=60.0: lit->dark"]
    assert lines(session, "%advance 1 [s]") == ["move 6: time t=60.0: lit->dark", "exit: lit", "enter: dark",
                                                "transition: lit -> dark (event: time)",
                                                "move 7: completion of dark", "● dark at t=60.0"]


def test_step_moves_once_and_back_undoes_it(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    execute(session, "%continue")
    assert lines(session, "%current")[0] == "lit"
    execute(session, "%send Press")
    assert lines(session, "%step") == ["move 6: dispatch Press", "exit: lit", "enter: dark",
                                       "transition: lit -> dark (event: accept Press)", "● dark at t=0.0"]
    assert lines(session, "%back") == ["⏸ back 1 move: lamp::Lamp at move 5; undone: dispatch Press",
                                       "lit", "presses = 1", "pool: Press", "● lit at t=0.0"]
    assert lines(session, "%step")[0] == "move 6: dispatch Press"  # goes on exactly as before


def test_back_after_continue_over_two_events_restores_the_configuration(door: Session) -> None:
    """The bug of a %back that said `back 1 move` and left the configuration as it was."""
    execute(door, "%send Lock")
    execute(door, "%send Unlock")
    execute(door, "%continue")
    assert lines(door, "%current")[4] == "    free"
    out = lines(door, "%back 3")
    assert out[0] == ("⏸ back 3 moves: door::Door at move 5; undone: completion of free, dispatch Unlock,"
                      " completion of engaged")
    assert out[1:] == ["operating", "  leaf", "    closed", "  latch", "    engaged", "locked = true", "openings = 0",
                       "pool: Unlock", "● engaged+closed at t=0.0"]


def test_back_takes_a_send_and_time_back_too(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    assert lines(session, "%advance 70")[-3:] == ["transition: lit -> dark (event: time)",
                                                  "move 6: completion of dark", "● dark at t=70.0"]
    assert lines(session, "%back 3")[0] == ("⏸ back 3 moves: lamp::Lamp at move 4; undone: clock to t=70.0,"
                                            " completion of dark, time t=60.0: lit->dark")
    assert lines(session, "%events") == ["pool: (empty)", "deferred: (none)", "clock: t=0.0",
                                         "  timer t=60.0: lit->dark"]
    assert lines(session, "%back 3")[0] == ("⏸ back 3 moves: lamp::Lamp at move 1; undone: completion of lit,"
                                            " dispatch Press, completion of dark")
    assert lines(session, "%events")[0] == "pool: Press"
    assert lines(session, "%back")[0] == "⏸ back 1 move: lamp::Lamp at move 0; undone: send Press"
    assert lines(session, "%events")[0] == "pool: (empty)"
    with pytest.raises(UsageError, match="has made only 0 steps"):
        execute(session, "%back")


def test_an_advance_stops_at_a_breakpoint_where_its_clock_stood(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    execute(session, "%break transition lit -> dark")
    out = lines(session, "%advance 100")
    assert out[-4:] == ["transition: lit -> dark (event: time)", "⏸ breakpoint transition lit->dark",
                        "⏸ the clock stands at t=60.0: %advance 40.0 goes on to t=100.0", "● dark at t=60.0"]
    assert lines(session, "%advance 40")[-1] == "● dark at t=100.0"


def test_a_machine_that_rests_says_what_it_waits_for(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%continue")
    assert lines(session, "%step") == [
        "nothing to do now: the machine waits (%send an event or %advance the clock)", "● dark at t=0.0"]
    assert lines(session, "%continue") == ["● dark at t=0.0"]


def test_tokens_are_the_active_leaves(door: Session) -> None:
    assert lines(door, "%tokens") == ["state free", "state closed"]


def test_trace_on_shows_the_bodies(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%trace on")
    execute(session, "%send Press")
    out = lines(session, "%step 2")
    assert "stmt assign presses" in [line.strip() for line in out]


@pytest.mark.parametrize(("line", "error", "message"), [
    ("%advance -1", EnvironmentInputError, "only moves forward"),
    ("%advance abc", EnvironmentInputError, "not a duration"),
    ("%advance", UsageError, "needs a duration"),
    ("%send Prss", UnknownSignalError, "'Prss'"),
    ("%send Press(", EnvironmentInputError, "is not an event"),
    ("%send Press to Other", UsageError, "the only machine running is lamp::Lamp"),
    ("%send", UsageError, "needs a signal"),
    ("%step 0", UsageError, "positive number"),
    ("%back 9", UsageError, "has made only 2 steps"),
    ("%current now", UsageError, "takes no arguments"),
    ("%break state", UsageError, "needs a state name"),
    ("%break transition a ->", UsageError, "needs a transition name"),
])
def test_bad_input_is_a_typed_error_and_changes_nothing(session: Session, line: str, error: type,
                                                        message: str) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    execute(session, "%step")
    before = view(session)
    with pytest.raises(error, match=message):
        execute(session, line)
    assert view(session) == before


def test_a_failing_cell_takes_back_its_sends_moves_and_time(session: Session) -> None:
    execute(session, "%state Lamp")
    before = view(session)
    with pytest.raises(EnvironmentInputError):
        list(execute_cell(session, "%send Press\n%continue\n%advance 30\n%break state lit\n%advance -1\n"))
    assert view(session) == before
    assert lines(session, "%step")[0] == "move 1: completion of dark"  # the cell's sends and moves are gone


def test_a_bad_submission_keeps_the_machine_running(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    before = view(session)
    for text in ("package lamp2 { state M { state a; } }",  # no initial transition
                 "package lamp3 { state M { entry; then a; state a; transition first a accept lamp::Press then b; } }"):
        with pytest.raises(SysmlError):
            list(execute_cell(session, text))
        assert view(session) == before


def test_commands_need_a_machine(session: Session) -> None:
    with pytest.raises(NoRunError, match="start one with %state <name> or %instantiate <part>"):
        execute(session, "%send Press")
    execute(session, "%state Lamp")
    session.submit("package acts { action A { first start; then done; } }", "a.sysml")
    execute(session, "%action A")
    with pytest.raises(NoRunError, match="the run of acts::A is an action's"):
        execute(session, "%advance 1")


def test_a_failing_machine_is_an_outcome_kept(session: Session) -> None:
    session.submit("""
package boom {
    private import ScalarValues::*;
    attribute def Go;
    state Boom {
        attribute n : Integer = 1;
        entry; then a;
        state a;
        state b { entry { assign n := n / 0; } }
        transition first a accept Go then b;
    }
}""", "boom.sysml")
    execute(session, "%state Boom")
    execute(session, "%send Go")
    with pytest.raises(RunFailedError, match=r"✗ State machine boom::Boom failed at move \d+"):
        execute(session, "%continue")
    assert session.machine is not None and session.machine.status == "failed"
    with pytest.raises(NoRunError, match="start another with %state boom::Boom"):
        execute(session, "%step")
