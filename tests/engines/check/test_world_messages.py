"""Behaviors on one world reaching each other: an action's `send ... to M` is machine M's event as the
sender's move ends (a machine at rest has no move of its own to collect it by), addressed by name so
no other behavior takes it; and a join whose way out is an orthogonal state's own done leaves every
region, one with no segment into the join too. Each expectation is derived in the comments."""

from __future__ import annotations

import ir
from engines.check.search import check_behavior
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from engines.runtime.states.environment import parse_send
from engines.runtime.states.machine import start_machine
from tests.engines.check.machines_reduced import together

# An operator starts then stops a pump. Start reaches the pump's pool as `on` ends, Stop as `off` ends,
# so the pool holds them in the order sent whichever way the pump's dispatches interleave with the
# operator: idle -Start-> running (starts 1) -Stop-> idle, in every schedule.
PUMP = """package plant {
    private import ScalarValues::*;
    item def Start;
    item def Stop;
    action operator {
        first start;
        then action on { send Start() to pump; }
        then action off { send Stop() to pump; }
        then done;
    }
    state pump {
        attribute starts : Integer = 0;
        entry; then idle;
        state idle;
        state running;
        transition first idle accept Start do assign starts := starts + 1 then running;
        transition first running accept Stop then idle;
    }
}"""

# Two machines accept Ping; the action sends it to `right` only: right takes it, left waits on. A
# message addressed by name is not on the bus for anyone else.
ADDRESSED = """package addr {
    private import ScalarValues::*;
    item def Ping;
    action caller { first start; then action ping { send Ping() to right; } then done; }
    state left { entry; then waiting; state waiting; state got; transition first waiting accept Ping then got; }
    state right { entry; then waiting; state waiting; state got; transition first waiting accept Ping then got; }
}"""

# Region a waits for Go, region b completes into the join at once, region c has no segment into it.
# The join's way out is gather's done: gather is left whole, so c1's exit runs (n = 3) and the
# machine completes.
JOIN = """package j {
    private import ScalarValues::*;
    item def Go;
    part def Log { attribute n : Integer = 0; }
    part log : Log;
    state gather parallel {
        state a { entry; then a1; state a1; transition first a1 accept Go then sync; }
        state b { entry; then b1; state b1; transition first b1 then sync; }
        state c { entry; then c1; state c1 { exit { assign log.n := log.n * 10 + 3; } } }
        join sync;
        transition first sync then done;
    }
}"""


def _program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "model.sysml")]))


def _together(text: str, *names: str, reduce: bool) -> set[tuple[tuple[str, str], ...]]:
    program = _program(text)
    behaviors = [program.model.element(n) for n in names]
    assert all(b is not None for b in behaviors)
    result = check_behavior(together(program, behaviors), "world", Bounds(depth=500, states=10_000), reduce=reduce)
    assert result.verdict is Verdict.EXHAUSTIVE, (result.verdict, result.notes)
    assert not result.violations
    return {tuple((k, str(v)) for k, v in o.values) for o in result.outcomes}


def test_an_action_sends_a_machine_its_events_in_the_order_sent() -> None:
    for reduce in (True, False):
        finals = _together(PUMP, "plant::operator", "plant::pump", reduce=reduce)
        assert finals == {(("pump.finalState", "idle"), ("starts", "1"))}


def test_a_message_sent_to_one_machine_by_name_is_its_alone() -> None:
    for reduce in (True, False):
        finals = _together(ADDRESSED, "addr::caller", "addr::left", "addr::right", reduce=reduce)
        assert finals == {(("left.finalState", "waiting"), ("right.finalState", "got"))}


def test_a_join_into_the_orthogonal_states_done_leaves_every_region() -> None:
    machine = start_machine(_program(JOIN), "j::gather")
    machine.run_to_end()
    assert machine.status == "running" and machine.outputs() == {}
    machine.send(parse_send("Go"))
    trace = machine.run_to_end()
    assert "exit: c1 (exit action)" in trace
    assert machine.outputs() == {"log.n": "3"}
    assert machine.status == "completed"
