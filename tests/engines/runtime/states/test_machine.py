"""Machines of our own, with answers derived from the semantics (run-to-completion, completion
events first, deferral, history, timers on the one clock, regions in declaration order)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import ir
from engines.runtime import Program
from engines.runtime.states import (
    EnvironmentInputError,
    MachineRun,
    UnknownSignalError,
    parse_send,
    start_machine,
)

CONTROLLER = """
package Plant {
    private import SI::*;
    attribute def Start; attribute def Stop; attribute def Fault;
    state Controller parallel {
        attribute heats : Integer = 0;
        state heater {
            entry; then off;
            state off;
            state on { entry { assign heats := heats + 1; } }
            transition first off accept Start then on;
            transition first on accept Stop then off;
            transition first on accept after 30 [s] then off;
        }
        state alarm {
            entry; then quiet;
            state quiet { defer Stop; }
            state ringing;
            transition first quiet accept Fault then ringing;
            transition first ringing accept Stop then quiet;
        }
    }
}
"""


def machine(text: str, name: str) -> MachineRun:
    return start_machine(Program(ir.resolve([ir.parse(text, "t.sysml")])), name)


def test_regions_react_each_to_its_own_events() -> None:
    run = machine(CONTROLLER, "Plant::Controller")
    assert run.final_state() == "quiet+off"  # region name order: alarm, then heater
    run.send(parse_send("Start"))
    run.send(parse_send("Fault"))
    run.run_to_end(horizon=Fraction(0))
    assert run.final_state() == "ringing+on"
    assert run.outputs()["heats"] == "1"


def test_a_timer_fires_when_the_clock_reaches_it_and_not_before() -> None:
    run = machine(CONTROLLER, "Plant::Controller")
    run.send(parse_send("Start"))
    run.run_to_end(horizon=Fraction(0))
    run.advance(Fraction(29))
    assert run.final_state() == "quiet+on"
    run.advance(Fraction(1))
    assert run.final_state() == "quiet+off"
    assert "transition: on -> off (event: time)" in run.trace


def test_one_event_offered_to_every_region_fires_in_each() -> None:
    # Stop leaves `on` in the heater region; in the alarm region `ringing` takes it too.
    run = machine(CONTROLLER, "Plant::Controller")
    for event in ("Start", "Fault", "Stop"):
        run.send(parse_send(event))
    run.run_to_end(horizon=Fraction(0))
    assert run.final_state() == "quiet+off"
    assert run.visits == ["off", "quiet", "on", "ringing", "off", "quiet"]


def test_an_event_deferred_in_one_region_waits_while_no_region_takes_it() -> None:
    text = """
    package D {
        attribute def Go; attribute def Ping;
        state M {
            entry; then busy;
            state busy { defer Ping; }
            state ready;
            state done;
            transition first busy accept Go then ready;
            transition first ready accept Ping then done;
        }
    }"""
    run = machine(text, "D::M")
    run.send(parse_send("Ping"))
    run.run_to_end()
    assert run.final_state() == "busy" and [e.name for e in run.deferred] == ["Ping"]
    run.send(parse_send("Go"))
    run.run_to_end()
    assert run.final_state() == "done"


def test_shallow_history_restores_the_substate_left() -> None:
    text = """
    package H {
        attribute def Next; attribute def Out; attribute def Back;
        state M {
            entry; then outer;
            state outer {
                entry; then a;
                state a; state b;
                history h;
                transition first a accept Next then b;
            }
            state away;
            transition first outer accept Out then away;
            transition first away accept Back then h;
        }
    }"""
    run = machine(text, "H::M")
    for event in ("Next", "Out", "Back"):
        run.send(parse_send(event))
    run.run_to_end()
    assert run.final_state() == "b"
    assert run.visits == ["outer", "a", "b", "away", "outer", "b"]


def test_completion_runs_before_the_pool_and_a_self_sent_signal_arrives() -> None:
    text = """
    package S {
        attribute def Ping;
        state M {
            attribute order : Integer = 0;
            entry; then start;
            state start;
            state waiting { entry { send new Ping() to M; assign order := order * 10 + 1; } }
            succession first start then waiting;
            transition first waiting accept Ping do assign order := order * 10 + 2 then done;
        }
    }"""
    run = machine(text, "S::M")
    run.run_to_end()
    assert run.final_state() == "done" and run.status == "completed"
    assert run.outputs()["order"] == "12"


def test_an_unknown_signal_is_refused_and_the_pool_is_unchanged() -> None:
    run = machine(CONTROLLER, "Plant::Controller")
    with pytest.raises(UnknownSignalError, match="'Strat'"):
        run.send(parse_send("Strat"))
    assert run.pool == []


def test_a_machine_without_an_initial_state_is_refused() -> None:
    with pytest.raises(ir.SysmlError, match="has no initial transition"):
        machine("package N { state M { state a; state b; } }", "N::M")


def test_a_transition_to_an_unknown_state_is_refused() -> None:
    with pytest.raises(ir.SysmlError, match="unknown transition target 'nowhere'"):
        machine("package N { attribute def Go; state M { entry; then a; state a; "
                "transition first a accept Go then nowhere; } }", "N::M")


REQUESTS = """package P { private import ScalarValues::*;
  attribute def Req { attribute n : Integer; attribute urgent : Boolean; }
  state def S {
    attribute got : Integer := 0; attribute hot : Boolean := false;
    entry; then idle; state idle;
    transition first idle accept r : Req do { assign got := r.n; assign hot := r.urgent; } then idle;
  }
}"""


def test_positional_arguments_are_named_by_the_signal_definition_in_order() -> None:
    """`Req(3, true)` binds Req's features in order, as `new Req(3, true)` does; they mix with named ones
    after them; more than the definition has, or a name given twice, is refused naming the features."""
    for text in ("Req(3, true)", "Req(3, urgent = true)"):
        run = machine(REQUESTS, "P::S")
        run.send(parse_send(text))
        run.run_to_end(horizon=Fraction(0))
        assert {k: run.outputs()[k] for k in ("got", "hot")} == {"got": "3", "hot": "true"}, text
    for bad, said in (("Req(3, true, 4)", "3 arguments, and Req has 2 features (n, urgent)"),
                      ("Req(3, n = 4)", "feature 'n' given twice")):
        with pytest.raises(EnvironmentInputError, match=re.escape(said)):
            machine(REQUESTS, "P::S").send(parse_send(bad))
    with pytest.raises(EnvironmentInputError, match="comes after a named one"):
        parse_send("Req(n = 3, true)")
