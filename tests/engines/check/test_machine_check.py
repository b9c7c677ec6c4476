"""Machines checked and explored with an environment (engines/check/machine.py over the behavior
protocol of engines/runtime/states/moves.py and driven.py): each answer derived from the semantics
(run-to-completion, region order, transition choice, deferral, time against sends, quiescence)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
from engines.check.machine import check_machine, explore_machine
from engines.errors import RunError
from engines.framework import Bounds, Verdict
from engines.runtime import Move, MoveKind, Program, Script
from engines.runtime.states import EnvironmentInputError, UnknownSignalError, events_from_json, parse_send
from engines.runtime.states.environment import EnvEvent
from engines.witness import parse_witness

HERE = Path(__file__).parent / "machines"


def program(name: str) -> Program:
    path = HERE / name
    return Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))


def sends(*names: str) -> tuple[EnvEvent, ...]:
    return tuple(parse_send(n) for n in names)


def divergent(result: object) -> dict[str, list[str]]:
    return {feature: [v for v, _ in values] for feature, values in result.divergent}  # type: ignore[attr-defined]


def test_two_regions_reacting_to_one_event_diverge_by_region_order() -> None:
    # motor's effect sets speed := 5, gauge's doubles it: declaration order gives 10, the other 5
    result = check_machine(program("controller.sysml"), "Controller", Script(sends("Go")))
    assert result.verdict is Verdict.DIVERGENT
    assert divergent(result) == {"speed": ["5", "10"]}
    assert {dict(o.values)["finalState"] for o in result.outcomes} == {"shown+on"}
    for witness in result.witnesses:
        assert parse_witness(witness.text()).choices == witness.choices


def test_without_the_event_the_controller_is_quiescent_not_deadlocked() -> None:
    result = check_machine(program("controller.sysml"), "Controller")
    assert result.verdict is Verdict.EXHAUSTIVE
    assert not result.violations
    assert [dict(o.values) for o in result.outcomes] == [{"finalState": "idle+off", "speed": "0"}]


def test_overlapping_transitions_are_one_move_each() -> None:
    result = check_machine(program("guard.sysml"), "Picker", Script(sends("Go")))
    assert divergent(result) == {"finalState": ["left", "right"], "picked": ["1", "2"]}
    taken = {c.taken for w in result.witnesses for c in w.choices}
    assert {"accept Go [waiting->left]", "accept Go [waiting->right]"} <= taken


def test_deferral_keeps_the_event_sent_while_locking() -> None:
    # Open sent while the door is locking is deferred, then taken in locked_state: closed on every schedule
    result = check_machine(program("door.sysml"), "DoorMachine", Script(sends("Lock", "Open")))
    assert result.verdict is Verdict.EXHAUSTIVE
    assert [dict(o.values) for o in result.outcomes] == [{"finalState": "closed", "locked": "true", "opened": "0"}]


def test_alphabet_ranges_over_every_driver_up_to_n_events() -> None:
    script = Script(alphabet=sends("Open", "Close"), max_events=2)
    result = check_machine(program("door.sysml"), "DoorMachine", script)
    ends = {(dict(o.values)["finalState"], dict(o.values)["opened"]) for o in result.outcomes}
    # none, Open, Close, Open Open, Open Close, Close Open, Close Close
    assert ends == {("closed", "0"), ("open", "1"), ("closed", "1")}
    explored = explore_machine(program("door.sysml"), "DoorMachine", script)
    assert {(dict(o.values)["finalState"], dict(o.values)["opened"]) for o in explored.outcomes} == ends


def test_time_passing_is_a_move_against_the_environment() -> None:
    thermo = program("thermostat.sysml")
    bounds = Bounds().with_(depth=30)
    late = check_machine(thermo, "Thermostat", Script(sends("Stop")), bounds)
    assert {dict(o.values)["cycles"] for o in late.outcomes} >= {"1", "2", "3"}
    # within a horizon of 3 s the 5 s timer never fires: Stop is taken in heating
    early = check_machine(thermo, "Thermostat", Script(sends("Stop"), horizon=3), bounds)
    assert early.verdict is Verdict.EXHAUSTIVE
    assert [dict(o.values) for o in early.outcomes] == [{"cycles": "1", "finalState": "off"}]


def test_a_property_over_machine_features_is_violated_with_a_replayed_witness() -> None:
    result = check_machine(program("thermostat.sysml"), "Thermostat", Script(sends("Stop")),
                           Bounds().with_(depth=30), properties=("fewCycles",))
    assert result.verdict is Verdict.VIOLATION
    violation = result.violations[0]
    assert violation.kind == "property" and "fewCycles" in violation.text
    text = result.witnesses[violation.witness - 1].text()
    assert "time passes to" in text and "property: Thermo::fewCycles" in text


def test_an_event_no_machine_names_is_refused_before_the_search() -> None:
    with pytest.raises(UnknownSignalError, match="Launch"):
        check_machine(program("door.sysml"), "DoorMachine", Script(sends("Launch")))
    with pytest.raises(UnknownSignalError, match="Launch"):
        check_machine(program("door.sysml"), "DoorMachine", Script(alphabet=sends("Open", "Launch"), max_events=1))


def test_bad_max_events_is_a_typed_error() -> None:
    with pytest.raises(EnvironmentInputError, match="0 or more"):
        Script(alphabet=sends("Open"), max_events=-1)
    with pytest.raises(EnvironmentInputError, match="max-events"):
        Script(alphabet=sends("Open"))


def test_the_environment_send_interleaves_with_the_machines_own_moves() -> None:
    p = program("door.sysml")
    run = p.start_driven("DoorMachine", Script(sends("Open", "Close")))
    assert [m.label for m in run.enabled_moves()] == ["send Open"]  # at rest: only the environment moves
    run.apply(run.enabled_moves()[0])
    assert [m.label for m in run.enabled_moves()] == ["send Close", "accept Open"]
    with pytest.raises(RunError, match="not enabled"):
        run.apply(Move(MoveKind.SEND, -1, "send Open", "environment", "Open"))
    with pytest.raises(RunError, match="not enabled"):
        run.apply(Move(MoveKind.DISPATCH, 0, "accept Close", ""))


def test_a_snapshot_of_a_driven_machine_restores_repeatably() -> None:
    p = program("controller.sysml")
    run = p.start_driven("Controller", Script(sends("Go")))
    run.world.trace.enabled = False
    run.apply(run.enabled_moves()[0])
    key = run.state_key()
    world = run.world.state_key()
    snap = run.snapshot(allow_replay=True)
    for choice in range(2):
        while not run.finished:
            moves = run.enabled_moves()
            run.apply(moves[min(choice, len(moves) - 1)])
        snap.restore()
        assert run.state_key() == key and run.world.state_key() == world
    snap.release()


def test_corpus_events_are_the_script() -> None:
    events = events_from_json([{"signal": "Go"}, {"signal": "Stop"}])
    assert Script(tuple(events)).describe() == "sends Go, Stop"


# A guard reads the payload its trigger accepts (`accept b : Ball if b.n > best`): the check's choice of
# transitions read the guard in the machine's frame alone (`unknown name 'b'`) where the fixed run bound
# the payload first; and `state keeper : Keeper` holds Keeper's features (a run failed, "no feature
# 'best' in keeper").
def test_a_checked_guard_reads_the_accepted_payload_of_a_typed_usage() -> None:
    result = check_machine(program("keeper.sysml"), "keeper", Script(sends("Ball(n=3)", "Ball(n=2)")))
    assert result.incomplete is None and not result.violations
    assert {dict(o.values)["best"] for o in result.outcomes} == {"3"}


def test_a_witness_whose_environment_stops_before_sending_replays() -> None:
    """An alphabet's environment may send nothing at all: the witness of that outcome (`environment
    stops`, no send before it) replays, where its replay offered no stop once the sends ran out."""
    from engines.check.machine import replay_machine, unreproduced_machine

    prog = program("keeper.sysml")
    alphabet = Script(alphabet=sends("Ball(n=3)"), max_events=1)
    result = check_machine(prog, "keeper", alphabet, diverge=("best",))
    assert {dict(o.values)["best"] for o in result.outcomes} == {"0", "3"}
    assert any(w.choices and w.choices[-1].taken == "environment stops" for w in result.witnesses)
    for witness in result.witnesses:
        run = replay_machine(prog, parse_witness(witness.text(), "w"), "keeper")
        assert unreproduced_machine(prog, run, witness) is None


# a boiler whose start fails: entering `heating`, its entry divides by the water flow, which is still 0
FAILING_START = """package boiler {
    private import ScalarValues::*;
    state def Boiler {
        attribute water : Integer := 0;
        attribute ratio : Integer := 0;
        entry; then heating;
        state heating { entry action mix { assign ratio := 100 / water; } }
    }
}
"""


def test_a_start_that_fails_is_a_failure_the_check_and_explore_report() -> None:
    """The start is the machine's first firing: a run error in it is the run's failure, reported with a
    witness of no move (as a move that fails is), not an error raised out of the check."""
    model = Program(ir.resolve([ir.parse(FAILING_START, "boiler.sysml")]))
    checked = check_machine(model, "Boiler")
    assert checked.verdict is Verdict.VIOLATION
    assert [(v.kind, v.text, v.moves) for v in checked.violations] == [("fails", "division by zero", 0)]
    witness = checked.witnesses[checked.violations[0].witness - 1]
    assert parse_witness(witness.text()).last_step == 0
    explored = explore_machine(model, "Boiler")
    assert [o.error for o in explored.outcomes] == ["division by zero"]


# a mixer whose start never ends: entering `stirring`, its entry loops (the step budget lifted)
ENDLESS_START = """package mixer {
    private import ScalarValues::*;
    state def Mixer {
        attribute turns : Integer := 0;
        entry; then stirring;
        state stirring { entry action stir { while true { assign turns := turns + 1; } } }
    }
}
"""


def test_the_bounds_hold_while_the_machine_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The start runs the first firing as far as no choice stops it, before any search: the timeout and the
    interrupt hold there too, and the search stops at its start with nothing searched."""
    monkeypatch.setenv("OPENSYSML_MAX_ACTION_STEPS", str(10**6))  # (spent in seconds: without the bounds, a failure)
    model = Program(ir.resolve([ir.parse(ENDLESS_START, "mixer.sysml")]))
    timed = check_machine(model, "Mixer", bounds=Bounds(timeout=0.2))
    assert (timed.verdict, timed.incomplete, timed.stats.states) == (Verdict.INCOMPLETE, "time", 0)
    cut = check_machine(model, "Mixer", interrupted=lambda: True)
    assert (cut.verdict, cut.incomplete) == (Verdict.INCOMPLETE, "interrupted")
    explored = explore_machine(model, "Mixer", bounds=Bounds(timeout=0.2))
    assert explored.incomplete is not None and explored.incomplete.startswith("time") and not explored.outcomes
