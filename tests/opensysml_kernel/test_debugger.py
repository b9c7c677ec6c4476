"""Walking a run like a debugger: %replay of a witness, %step/%continue/%back over it, breakpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import hand_witness

from engines.errors import WitnessMismatch
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import (
    MissingFileError,
    NoRunError,
    NoWitnessError,
    ReplayRefusedError,
    UsageError,
)
from opensysml_kernel.session import Session


def text(session: Session, line: str) -> str:
    return execute(session, line).text


def test_replay_last_walks_the_violation(tank: Session) -> None:
    execute(tank, "%engine check")
    execute(tank, "%check-property NeverNegative")
    execute(tank, "%action Fill")
    assert text(tank, "%replay") == "replay off"
    assert text(tank, "%replay last") == (
        "replay witness 1 of tank::Fill (through move 3; ends property: tank::NeverNegative):"
        " %action tank::Fill follows it move by move")
    assert text(tank, "%action Fill") == (
        "▶ Action tank::Fill started (replaying witness 1 of tank::Fill (through move 3;"
        " ends property: tank::NeverNegative))\ntoken 1@start")
    assert text(tank, "%replay") == "replay off"  # the replay is the next %action's, once
    assert text(tank, "%step") == "move 1: token 1@start"
    assert text(tank, "%continue") == ("move 2: token 1@f\n"
                                       "move 3: token 3@valve (chosen over 2@pump)\n"
                                       "  level: 0 → -3\n"
                                       "⏸ end of the witness after 3 moves: property: tank::NeverNegative")
    assert tank.outputs() == {"level": "-3"}
    # %back, then the run goes on exactly as before.
    assert text(tank, "%back 2") == "⏸ back 2 moves: tank::Fill at move 1\ntoken 1@f"
    assert tank.outputs() == {"level": "0"}
    assert text(tank, "%step 2") == ("move 2: token 1@f\nmove 3: token 3@valve (chosen over 2@pump)\n"
                                     "  level: 0 → -3\n"
                                     "⏸ end of the witness after 3 moves: property: tank::NeverNegative")
    finish = text(tank, "%continue").splitlines()
    assert finish[-2:] == ["✓ Action tank::Fill completed", "  level = 2"]


def test_breakpoint_stops_continue(race: Session) -> None:
    assert text(race, "%breaks") == "no breakpoints"
    assert text(race, "%break j") == "breakpoint j"
    assert text(race, "%break nowhere") == ("breakpoint nowhere\n"
                                            "note: no action of the model has a node named 'nowhere' yet")
    assert text(race, "%breaks") == "breakpoint j\nbreakpoint nowhere"
    assert text(race, "%unbreak nowhere") == "breakpoint nowhere removed"
    execute(race, "%action Race")
    assert text(race, "%continue") == ("step 1: token 1@f\nstep 2: token 2@a, token 3@b\nstep 3: token 2@j, token 3@j\n"
                                       "⏸ breakpoint j (token 2)")
    assert text(race, "%continue").splitlines()[-2:] == ["✓ Action race::Race completed", "  c = 1"]
    assert text(race, "%unbreak all") == "1 breakpoint removed"
    with pytest.raises(UsageError, match="no breakpoint on 'j'"):
        execute(race, "%unbreak j")


def test_breakpoint_stops_a_replay_move_by_move(race: Session) -> None:
    execute(race, "%engine check")
    execute(race, "%action Race")
    execute(race, "%replay 1")  # witness 1: the schedule that takes a first (2@a), c ends 2
    execute(race, "%break j")
    execute(race, "%action Race")
    first = text(race, "%continue").splitlines()
    assert first[-1] == "⏸ breakpoint j (token 2)"
    second = text(race, "%continue").splitlines()
    assert second[-1] == "⏸ breakpoint j (token 3)"
    assert execute(race, "%continue").data["outputs"] == {"c": "2"}


def test_back_on_a_stepping_run_is_exact(race: Session) -> None:
    execute(race, "%action Race")
    execute(race, "%step 2")
    before = race.full_trace()
    assert text(race, "%back") == "⏸ back 1 step: race::Race at step 1\ntoken 1@f"
    assert text(race, "%step") == "step 2: token 2@a, token 3@b"
    assert race.full_trace() == before
    execute(race, "%continue")
    assert text(race, "%back 3").startswith("⏸ back 3 steps: race::Race at step 2")
    with pytest.raises(UsageError, match="has made only 2 steps"):
        execute(race, "%back 3")
    with pytest.raises(UsageError, match="positive number"):
        execute(race, "%back 0")


def test_back_needs_a_run(session: Session) -> None:
    with pytest.raises(NoRunError):
        execute(session, "%back")


def test_replay_refuses_a_move_not_enabled(race: Session, tmp_path: Path) -> None:
    witness = hand_witness(race, "Race", tmp_path / "bad.witness",
                           "step 1: 1@start first of 1@start\nstep 2: 7@nowhere first of 7@nowhere")
    execute(race, f"%replay {witness}")
    execute(race, "%action Race")
    assert text(race, "%step") == "move 1: token 1@start"
    with pytest.raises(ReplayRefusedError) as refused:
        execute(race, "%step")
    assert str(refused.value) == (f"replay refused: {witness} moves 7@nowhere at step 2, which is not enabled"
                                  " (enabled: 1@f)")


def test_replay_file_written_by_a_check(race: Session, tmp_path: Path) -> None:
    execute(race, "%engine check")
    execute(race, f"%check-witness {tmp_path}")
    execute(race, "%action Race")
    execute(race, f"%replay {tmp_path}/race.Race-1.witness")
    execute(race, "%action Race")
    assert execute(race, "%continue").data["outputs"] == {"c": "2"}


def test_replay_errors(race: Session) -> None:
    with pytest.raises(NoWitnessError, match="no check yet"):
        execute(race, "%replay last")
    with pytest.raises(MissingFileError):
        execute(race, "%replay nowhere.witness")
    execute(race, "%engine check")
    execute(race, "%action Race")
    with pytest.raises(NoWitnessError, match="witnesses 1 to 2, not 3"):
        execute(race, "%replay 3")
    assert text(race, "%replay 1").startswith("replay witness 1 of race::Race")
    assert text(race, "%replay off") == "replay off"


def test_replay_of_another_action_is_refused(tank: Session) -> None:
    execute(tank, "%engine check")
    execute(tank, "%action Handshake")
    execute(tank, "%replay last")
    with pytest.raises(WitnessMismatch) as refused:
        execute(tank, "%action Fill")
    assert str(refused.value) == ("witness refused: witness 1 of tank::Handshake is a witness of tank::Handshake,"
                                  " not tank::Fill: replay it with the action tank::Handshake")


def test_replayed_deadlock_stops_with_the_waiting_tokens(tank: Session) -> None:
    execute(tank, "%engine check")
    execute(tank, "%action Handshake")
    execute(tank, "%replay last")
    execute(tank, "%action Handshake")
    lines = text(tank, "%continue").splitlines()
    assert lines[-1] == "⏸ end of the witness after 3 moves: fails: deadlock: token 2@j, token 3@ack wait"
    assert text(tank, "%continue") == "✗ Action tank::Handshake: deadlock: token 2@j, token 3@ack wait (after 3 moves)"
