"""Breakpoints on a machine's states (on entry and on exit) and transitions (by source -> target or by
name): set, listed, removed, and where %continue, %step and %advance stop; the configuration's HTML."""

from __future__ import annotations

import pytest

from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.session import Session
from tests.opensysml_kernel.test_state_commands import DOOR


@pytest.fixture
def door() -> Session:
    s = Session()
    s.submit(DOOR, "door.sysml")
    execute(s, "%state Door")
    return s


def lines(session: Session, line: str) -> list[str]:
    return list(execute(session, line).lines)


def test_set_list_and_remove(door: Session) -> None:
    assert lines(door, "%break state open") == ["breakpoint state open"]
    assert lines(door, "%break transition closed -> open") == ["breakpoint transition closed->open"]
    assert lines(door, "%break transition opening2") == ["breakpoint transition opening2"]
    assert lines(door, "%break state ajar") == ["breakpoint state ajar",
                                                "note: no machine of the model has a state named 'ajar' yet"]
    assert lines(door, "%breaks") == ["breakpoint state open", "breakpoint transition closed->open",
                                      "breakpoint transition opening2", "breakpoint state ajar"]
    assert lines(door, "%unbreak state ajar") == ["breakpoint state ajar removed"]
    with pytest.raises(UsageError, match="no breakpoint on 'state ajar'"):
        execute(door, "%unbreak state ajar")
    assert lines(door, "%unbreak all") == ["3 breakpoints removed"]
    assert lines(door, "%breaks") == ["no breakpoints"]


def test_a_state_breakpoint_stops_on_entry_and_on_exit(door: Session) -> None:
    execute(door, "%break state open")
    execute(door, "%send Open")
    execute(door, "%send Close")
    out = lines(door, "%continue")
    assert out[-3:] == ["transition: closed -> open (event: accept Open)", "⏸ breakpoint state open (entered)",
                        "● free+open at t=0.0"]
    assert lines(door, "%events")[0] == "pool: Close"  # stopped before the next event
    out = lines(door, "%continue")
    assert out[-3:] == ["transition: open -> closed (event: accept Close)", "⏸ breakpoint state open (exited)",
                        "● free+closed at t=0.0"]


def test_a_transition_breakpoint_by_name_and_by_ends(door: Session) -> None:
    execute(door, "%break transition opening2")
    execute(door, "%send Open")
    execute(door, "%send Close")
    out = lines(door, "%continue")
    assert out[-2:] == ["⏸ breakpoint transition opening2 (open->closed)", "● free+closed at t=0.0"]
    execute(door, "%unbreak transition opening2")
    execute(door, "%break transition closed->open")
    execute(door, "%send Open")
    assert lines(door, "%continue")[-2:] == ["⏸ breakpoint transition closed->open", "● free+open at t=0.0"]


def test_a_breakpoint_in_an_other_region_stops_too(door: Session) -> None:
    execute(door, "%break state engaged")
    execute(door, "%send Lock")
    execute(door, "%send Open")
    out = lines(door, "%continue")
    assert out[-2:] == ["⏸ breakpoint state engaged (entered)", "● engaged+closed at t=0.0"]
    assert lines(door, "%step") == ["move 6: completion of engaged", "● engaged+closed at t=0.0"]


def test_back_then_continue_stops_at_the_breakpoint_again(door: Session) -> None:
    execute(door, "%break state open")
    execute(door, "%send Open")
    first = lines(door, "%continue")
    assert first[-6:] == ["move 4: dispatch Open", "exit: closed", "enter: open (entry action)",
                          "transition: closed -> open (event: accept Open)", "⏸ breakpoint state open (entered)",
                          "● free+open at t=0.0"]
    execute(door, "%back")
    assert lines(door, "%step") == first[-6:]


def test_the_configuration_in_html_marks_the_active_states(door: Session) -> None:
    execute(door, "%send Lock")
    execute(door, "%continue")
    html = execute(door, "%current").html()
    assert html.count("class='active'") == 4  # Door, operating, closed, engaged (regions are not states)
    assert "● <b>engaged</b>" in html and "● <b>closed</b>" in html
    assert ">free<" in html and ">open<" in html  # the inactive states, shown unmarked
    assert "<i>leaf</i>" in html and "<i>latch</i>" in html
    assert execute(door, "%continue").html().count("class='active'") == 4
