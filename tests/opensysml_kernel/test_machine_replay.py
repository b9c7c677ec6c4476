"""A machine's witness replayed at the prompt: `%replay last` after a machine check, then `%state`
follows it move by move (the environment's sends are the witness's), stopping at state breakpoints
and at the witness's end, going back and on again; a send of one's own is refused meanwhile."""

from __future__ import annotations

import pytest

from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.session import Session

# A heater that heats on Cold, idles on Warm, and is cut off after 60 s of heating; it must not heat twice.
HEATER = """
package heater {
    private import ScalarValues::*;
    attribute def Cold;
    attribute def Warm;
    state Heater {
        attribute cycles : Integer = 0;
        entry; then idle;
        state idle;
        state heat { entry { assign cycles := cycles + 1; } }
        transition first idle accept Cold then heat;
        transition first heat accept Warm then idle;
        transition first heat accept after 60 [s] then idle;
    }
    constraint oneCycle { cycles <= 1 }
}
"""


@pytest.fixture
def replaying() -> Session:
    session = Session()
    session.submit(HEATER, "heater.sysml")
    for line in ("%engine check", "%events alphabet Cold,Warm max=3", "%check-property heater::oneCycle"):
        execute(session, line)
    report = execute(session, "%state Heater")
    assert report.text.startswith("✗ State machine heater::Heater: violation")
    execute(session, "%replay last")
    execute(session, "%engine run")
    return session


def lines(session: Session, line: str) -> list[str]:
    return list(execute(session, line).lines)


def test_the_replay_follows_the_witness_to_its_end(replaying: Session) -> None:
    assert lines(replaying, "%state Heater") == [
        "▶ State machine heater::Heater started (replaying witness 2 of heater::Heater (through move 8;"
        " ends property: heater::oneCycle))", "idle", "● idle at t=0.0"]
    out = lines(replaying, "%continue")
    assert out[:2] == ["move 1: send Cold (chosen over environment stops)", "environment: send Cold"]
    assert out[-8:] == ["transition: heat -> idle (event: time)", "move 8: accept Cold", "exit: idle",
                        "enter: heat (entry action)", "transition: idle -> heat (event: accept Cold)", "  cycles: 1 → 2",
                        "⏸ end of the witness after 8 moves: property: heater::oneCycle", "● heat at t=60.0"]
    assert lines(replaying, "%current") == ["heat", "cycles = 2"]


def test_a_state_breakpoint_stops_the_replay_on_entry_and_exit(replaying: Session) -> None:
    execute(replaying, "%break state heat")
    execute(replaying, "%state Heater")
    first = lines(replaying, "%continue")
    assert first[-7:] == ["move 3: accept Cold (chosen over send Cold)", "exit: idle", "enter: heat (entry action)",
                          "transition: idle -> heat (event: accept Cold)", "  cycles: 0 → 1",
                          "⏸ breakpoint state heat (entered)", "● heat at t=0.0"]
    second = lines(replaying, "%continue")
    assert second[-6:] == ["move 7: time heat->idle (chosen over accept Cold)", "exit: heat", "enter: idle",
                           "transition: heat -> idle (event: time)", "⏸ breakpoint state heat (exited)",
                           "● idle at t=60.0"]
    assert lines(replaying, "%back") == ["⏸ back 1 move: heater::Heater at move 6; undone: time heat->idle",
                                         "heat", "cycles = 1", "pool: Cold", "● heat at t=60.0"]
    assert lines(replaying, "%step") == second[-6:]  # the same move again
    assert lines(replaying, "%continue")[-3:] == ["⏸ breakpoint state heat (entered)",
                                                  "⏸ end of the witness after 8 moves: property: heater::oneCycle",
                                                  "● heat at t=60.0"]


def test_sending_during_a_replay_is_refused(replaying: Session) -> None:
    execute(replaying, "%state Heater")
    with pytest.raises(UsageError, match="a witness replayed sends what it names"):
        execute(replaying, "%send Cold")
    with pytest.raises(UsageError, match="lets time pass where it does"):
        execute(replaying, "%advance 5")


def test_a_machine_check_tabulates_its_outcomes_by_configuration() -> None:
    session = Session()
    session.submit(HEATER, "heater.sysml")
    for line in ("%engine check", "%events alphabet Cold,Warm max=2"):
        execute(session, line)
    html = execute(session, "%state Heater").html()
    header = "".join(f"<th>{h}</th>" for h in ("finalState", "stateVisits", "outcome", "schedules", "witness"))
    assert header in html
    # each outcome's visits as its witness's schedule entered them: no cycle, one, two
    assert "<tr><td><code>idle</code></td><td><code>[idle]</code></td><td><code>cycles = 0</code></td>" in html
    assert "<td><code>[idle, heat, idle, heat, idle]</code></td><td><code>cycles = 2</code></td>" in html
