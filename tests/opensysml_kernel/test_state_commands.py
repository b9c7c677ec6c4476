"""The `%state` family: start a machine, send it events, step, continue, advance the clock, look at
its configuration and pool, step back; bad input is a typed error and changes nothing."""

from __future__ import annotations

import pytest

from engines.runtime.states import EnvironmentInputError, UnknownSignalError
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
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


@pytest.fixture
def session() -> Session:
    s = Session()
    s.submit(LAMP, "lamp.sysml")
    return s


def lines(session: Session, line: str) -> list[str]:
    return list(execute(session, line).lines)


def test_state_starts_in_the_initial_configuration(session: Session) -> None:
    assert lines(session, "%state Lamp") == ["▶ State machine lamp::Lamp started (schedule reverse)", "dark",
                                            "● dark at t=0.0"]


def test_send_then_continue_dispatches_in_arrival_order(session: Session) -> None:
    execute(session, "%state Lamp")
    assert lines(session, "%send Press") == ["sent Press (pool: Press); %continue or %step dispatches it"]
    execute(session, "%send Press")
    out = lines(session, "%continue")
    assert out[-1] == "● dark at t=0.0"
    assert "transition: dark -> lit (event: accept Press)" in out
    assert "transition: lit -> dark (event: accept Press)" in out
    assert lines(session, "%current") == ["dark", "presses = 1"]


def test_advance_fires_the_timer_due(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    assert lines(session, "%advance 59")[-1] == "● lit at t=59.0"
    assert "timer t=60.0: lit->dark" in lines(session, "%events")[-1]
    assert lines(session, "%advance 1 [s]")[-2:] == ["transition: lit -> dark (event: time)", "● dark at t=60.0"]


def test_step_moves_once_and_back_undoes_it(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    execute(session, "%continue")
    assert lines(session, "%current")[0] == "lit"
    execute(session, "%send Press")
    execute(session, "%step")
    assert lines(session, "%current")[0] == "dark"
    assert lines(session, "%back")[0] == "back 1 move"
    assert lines(session, "%current")[0] == "lit"
    assert lines(session, "%events")[0] == "pool: Press"  # the event sent stays; the move is undone


def test_a_machine_that_rests_says_what_it_waits_for(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%continue")
    assert "nothing to do now" in lines(session, "%step")[0]


@pytest.mark.parametrize(("line", "error", "message"), [
    ("%advance -1", EnvironmentInputError, "only moves forward"),
    ("%advance abc", EnvironmentInputError, "not a duration"),
    ("%send Prss", UnknownSignalError, "'Prss'"),
    ("%send Press to Other", UsageError, "the only machine running is lamp::Lamp"),
])
def test_bad_input_is_a_typed_error_and_changes_nothing(session: Session, line: str, error: type,
                                                        message: str) -> None:
    execute(session, "%state Lamp")
    with pytest.raises(error, match=message):
        execute(session, line)
    assert lines(session, "%events")[:2] == ["pool: (empty)", "deferred: (none)"]


def test_commands_need_a_machine(session: Session) -> None:
    with pytest.raises(UsageError, match="start one with %state"):
        execute(session, "%send Press")


def test_back_stops_at_the_last_advance(session: Session) -> None:
    execute(session, "%state Lamp")
    execute(session, "%send Press")
    execute(session, "%advance 60")
    out = lines(session, "%back")
    assert out[0].startswith("back 0 moves (the moves before the last %advance stay")
    assert lines(session, "%current")[0] == "dark"
