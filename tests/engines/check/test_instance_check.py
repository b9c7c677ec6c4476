"""Checking an instance: a part's objects, the machines they exhibit and the actions they perform, on
one world with the environment (engines/runtime/states/instance_run.py), searched by check and
explore as one behavior.

Every answer below is derived from the model, not recorded: the referee's part cases give the one
schedule `run --instantiate` takes, which must be among the outcomes the check finds; the reduced
search must end in the same outcomes as the unreduced one; and the small models here have their
outcome sets worked out in their comments."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

import ir
from engines.check.machine import check_machine, explore_machine, replay_machine, unreproduced_machine
from engines.framework import Bounds, Result, Verdict
from engines.runtime import Program, Script
from engines.runtime.states import EnvironmentInputError, UnknownSignalError, parse_addressed
from engines.runtime.states.instance_run import InstanceRun
from engines.witness import parse_witness
from tests.referee.cases import normalize
from tests.referee.machines import load_machine_cases

BOUNDS = Bounds(depth=400, states=20_000)


def program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "t.sysml")]))


def outcomes(result: Result) -> set[tuple[tuple[str, str], ...]]:
    return {o.values for o in result.outcomes}


def script(*sends: str, horizon: int | None = None) -> Script:
    from fractions import Fraction

    return Script(tuple(parse_addressed(s) for s in sends), horizon=None if horizon is None else Fraction(horizon))


# ---------------------------------------------------------------- the referee's part cases

# the cases the environment drives with sends alone (an `advance` is a horizon, not a moment)
PART_CASES = [c for c in load_machine_cases() if "instantiate" in c.spec and "xfail" not in c.spec
              and "unclear" not in c.spec and all(verb in ("send", "post") for verb, _ in c.drive)]


def test_the_part_cases_are_found() -> None:
    assert len(PART_CASES) >= 13, [c.name for c in PART_CASES]


@pytest.mark.parametrize("case", PART_CASES, ids=lambda c: c.name)
def test_the_fixed_run_is_one_outcome_of_the_check(case) -> None:  # type: ignore[no-untyped-def]
    """The schedule `run --instantiate` takes is admissible: its final configurations and values (the
    referee's, derived from the semantics) are one outcome of the check, reduced and not."""
    prog = program(case.text)
    env = script(*(arg for _, arg in case.drive))
    part = case.spec["instantiate"]
    probe = InstanceRun(prog, part)
    wanted = {f"{probe.name_of(o)}.{o.machines[0].element.name}": state
              for o in probe.instance.objects if o.machines
              for path, state in case.spec.get("objects", {}).items() if path == o.path}
    wanted.update({k: normalize(str(v)) for k, v in case.spec.get("outputs", {}).items()})
    reduced = check_machine(prog, part, env, BOUNDS, part=True)
    full = check_machine(prog, part, env, BOUNDS, reduce=False, part=True)
    assert reduced.incomplete is None and full.incomplete is None
    assert outcomes(reduced) == outcomes(full)
    assert reduced.stats.states <= full.stats.states
    found = [dict(o) for o in outcomes(full)]
    assert any(all(normalize(values.get(k, "?")) == v for k, v in wanted.items()) for values in found), \
        f"{wanted} not among {found}"


# ---------------------------------------------------------------- models of our own

# A booking race: two agents each try to book the last seat by messaging the desk. The desk serves the
# first request it dispatches and refuses the second, so exactly one agent ends booked and the other
# refused; which one depends on the schedule (both outcomes), and never both booked.
BOOKING = """
package booking {
    private import ScalarValues::*;
    attribute def Request { attribute who : Integer; }
    attribute def Granted;
    attribute def Refused;
    attribute def Go;
    part def Desk {
        attribute seats : Integer = 1;
        attribute servedWho : Integer = 0;
        exhibit state serving {
            entry; then open;
            state open;
            transition first open accept r : Request if seats > 0
                do { assign seats := seats - 1; assign servedWho := r.who; }
                then open;
        }
    }
    part def Agent {
        attribute id : Integer default = 0;
        exhibit state trying {
            entry; then idle;
            state idle;
            state waiting;
            state booked;
            transition first idle accept Go do send new Request(who = id) to desk then waiting;
        }
    }
    part def Office {
        part desk : Desk;
        part ann : Agent { attribute redefines id = 1; }
        part bob : Agent { attribute redefines id = 2; }
        constraint oneSeat { desk.seats >= 0 }
    }
}
"""


def test_a_booking_race_serves_either_agent_first() -> None:
    prog = program(BOOKING)
    env = script("Go to ann", "Go to bob")
    result = check_machine(prog, "Office", env, BOUNDS, properties=("oneSeat",), part=True)
    served = {dict(o)["desk.servedWho"] for o in outcomes(result)}
    assert served == {"1", "2"}
    assert {dict(o)["desk.seats"] for o in outcomes(result)} == {"0"}
    assert result.verdict is Verdict.DIVERGENT and not result.violations


def test_a_witness_of_an_instance_replays_to_its_claim() -> None:
    prog = program(BOOKING)
    result = check_machine(prog, "Office", script("Go to ann", "Go to bob"), BOUNDS, part=True)
    assert result.witnesses
    for witness in result.witnesses:
        again = parse_witness(witness.text(), "w")
        run = replay_machine(prog, again, "Office")
        assert unreproduced_machine(prog, run, again) is None


def test_each_outcome_says_where_its_schedule_left_every_object() -> None:
    """An outcome carries the states entered and each object's end on the schedule its witness takes:
    recorded during the search (snapshots and restores between), so a fresh replay of that witness
    must end where the outcome says. The desk served whoever's request it dispatched first; both agents
    end waiting (no one answers them)."""
    prog = program(BOOKING)
    for result in (check_machine(prog, "Office", script("Go to ann", "Go to bob"), BOUNDS, part=True),
                   explore_machine(prog, "Office", script("Go to ann", "Go to bob"), Bounds(runs=5_000), part=True)):
        # explore tells outcomes apart by the states entered too: each desk's two orders of its visits
        assert len(result.outcomes) == (2 if result.engine == "check" else 4)
        for outcome in result.outcomes:
            assert outcome.travelled is not None and outcome.witness
            ends = {end.path: end for end in outcome.travelled.objects}
            assert set(ends) == {"desk", "ann", "bob"}
            assert dict(ends["desk"].slots) == {"seats": "0", "servedWho": dict(outcome.values)["desk.servedWho"]}
            assert ends["desk"].final_state == "open" and ends["desk"].visits == ("open", "open")
            assert all(ends[a].final_state == "waiting" and ends[a].visits == ("idle", "waiting") for a in ("ann", "bob"))
            # the instance's visits name each state by its object, in the order they were entered
            assert sorted(outcome.travelled.visits) == sorted(f"{p}.{v}" for p, e in ends.items() for v in e.visits)
            if result.engine == "explore":
                assert dict(outcome.values)["stateVisits"] == "[" + ", ".join(outcome.travelled.visits) + "]"
            witness = result.witnesses[outcome.witness - 1]
            assert replay_machine(prog, witness, "Office").travelled() == outcome.travelled


# A pump and a valve: the controller's action opens the valve, then starts the pump; the pump's machine
# must never run while the valve is shut. The action's two sends go out in order, and the valve's and
# the pump's machines take them in any interleaving, so the property holds: Run reaches the pump only
# after Open was sent, but the valve may not yet have taken Open. A pump that checks the valve's state
# would see it shut: the property is violated on the schedule where the pump moves first.
PUMP = """
package pumping {
    private import ScalarValues::*;
    attribute def Open;
    attribute def Run;
    part def Valve {
        attribute open : Boolean = false;
        exhibit state valving {
            entry; then shut;
            state shut;
            state opened;
            transition first shut accept Open do assign open := true then opened;
        }
    }
    part def Pump {
        attribute running : Boolean = false;
        exhibit state pumping {
            entry; then off;
            state off;
            state on;
            transition first off accept Run do assign running := true then on;
        }
    }
    part def Station {
        part valve : Valve;
        part pump : Pump;
        perform action start {
            send new Open() to valve;
            then send new Run() to pump;
        }
        constraint dryRun { not pump.running or valve.open }
    }
}
"""


def test_an_action_and_two_machines_on_one_clock_violate_an_ordering_property() -> None:
    prog = program(PUMP)
    result = check_machine(prog, "pumping::Station", Script(), BOUNDS, properties=("dryRun",), part=True)
    assert result.verdict is Verdict.VIOLATION
    (violation,) = result.violations
    assert "dryRun" in violation.text
    # every schedule ends with the valve open and the pump on: the violation is in between
    assert {(dict(o)["valve.open"], dict(o)["pump.running"]) for o in outcomes(result)} == {("true", "true")}


def test_explore_finds_what_check_finds() -> None:
    prog = program(PUMP)
    checked = check_machine(prog, "pumping::Station", Script(), BOUNDS, part=True)
    explored = explore_machine(prog, "pumping::Station", Script(), Bounds(runs=5_000), part=True)
    assert explored.incomplete is None
    keys = {k for values in outcomes(checked) for k, _ in values}
    assert {tuple((k, v) for k, v in values if k in keys) for values in outcomes(explored)} == outcomes(checked)


def test_the_fixed_run_of_the_pump_holds_the_property_the_check_refutes() -> None:
    """`run --instantiate` runs the action, then the machines in object order: the valve first."""
    from engines.runtime.states.instances import Instantiation

    world = Instantiation(program(PUMP), "pumping::Station")
    world.run()
    values = {o.path: world.slots(o) for o in world.objects}
    assert values["valve"]["open"] == "true" and values["pump"]["running"] == "true"


# ---------------------------------------------------------------- bad input

def test_an_event_to_no_object_is_refused_before_the_search() -> None:
    with pytest.raises(EnvironmentInputError, match="no object of booking::Office of that path"):
        check_machine(program(BOOKING), "Office", script("Go to carol"), BOUNDS, part=True)


def test_an_unknown_signal_is_refused() -> None:
    with pytest.raises(UnknownSignalError):
        check_machine(program(BOOKING), "Office", script("Stop to ann"), BOUNDS, part=True)


def test_an_addressed_event_to_a_lone_machine_is_refused() -> None:
    with pytest.raises(EnvironmentInputError, match="--instantiate PART"):
        check_machine(program(BOOKING), "trying", script("Go to ann"), BOUNDS)


def test_a_part_with_no_machine_is_refused() -> None:
    text = "package p { part def Empty { attribute x = 1; } }"
    from engines.runtime.states import MachineError

    with pytest.raises(MachineError, match="exhibits no state machine"):
        check_machine(program(text), "Empty", Script(), BOUNDS, part=True)


# Two actions the part performs, ordered by a succession: `go` reads what `boot` wrote, so it must
# wait for `boot` to end; unordered, `go` could run first and read 0.
RIG = """
package rig {
    private import ScalarValues::*;
    part def Rig {
        attribute x : Integer := 0;
        attribute y : Integer := 0;
        perform action boot { assign x := 1; }
        perform action go { assign y := x + 1; }
        first boot then go;
        exhibit state life { entry; then idle; state idle; }
    }
}
"""


def test_a_succession_orders_the_performed_actions() -> None:
    result = check_machine(program(RIG), "rig::Rig", Script(), BOUNDS, part=True)
    assert {dict(o)["y"] for o in outcomes(result)} == {"2"}
    unordered = check_machine(program(RIG.replace("first boot then go;", "")), "rig::Rig", Script(), BOUNDS, part=True)
    assert {dict(o)["y"] for o in outcomes(unordered)} == {"1", "2"}


# ---------------------------------------------------------------- more instances of our own (instances/)

INSTANCES = Path(__file__).resolve().parent / "instances"


def model_of(name: str) -> Program:
    return program((INSTANCES / name).read_text(encoding="utf-8"))


def values_of(result: Result, feature: str) -> set[str]:
    return {dict(o)[feature] for o in outcomes(result)}


def test_deferred_requests_are_all_seen_once_time_runs() -> None:
    prog = model_of("clinic.sysml")
    both = script("Go to ann", "Go to bob")
    result = check_machine(prog, "Clinic", both, BOUNDS, part=True)
    assert values_of(result, "doctor.seen") == {"2"} and values_of(result, "doctor.last") == {"1", "2"}
    early = check_machine(prog, "Clinic", script("Go to ann", "Go to bob", horizon=5), BOUNDS, part=True)
    assert values_of(early, "doctor.seen") == {"1"} and values_of(early, "doctor.practice") == {"busy"}
    broadcast = check_machine(prog, "Clinic", script("Go"), BOUNDS, part=True)  # both patients accept Go
    assert values_of(broadcast, "doctor.seen") == {"2"}


def test_two_producers_interleave_keeping_each_ones_order() -> None:
    prog = model_of("pipeline.sysml")
    result = check_machine(prog, "Line", Script(), BOUNDS, diverge=("consumer.log",), part=True)
    assert values_of(result, "consumer.log") == {"1234", "1324", "1342", "3124", "3142", "3412"}
    full = check_machine(prog, "Line", Script(), BOUNDS, diverge=("consumer.log",), reduce=False, part=True)
    assert outcomes(full) == outcomes(result)


def test_timers_due_at_one_instant_in_two_objects_are_a_choice() -> None:
    prog = model_of("timer_tie.sysml")
    result = check_machine(prog, "Race", Script(), BOUNDS, diverge=("judge.first", "judge.ticks"), part=True)
    assert outcomes(result) == {(("judge.first", "1"), ("judge.ticks", "2")), (("judge.first", "2"), ("judge.ticks", "2"))}
    early = check_machine(prog, "Race", script(horizon=4), BOUNDS, diverge=("judge.ticks",), part=True)
    assert values_of(early, "judge.ticks") == {"0"}


def test_an_action_the_part_performs_takes_a_message_its_machine_sends() -> None:
    prog = model_of("acknowledge.sysml")
    result = check_machine(prog, "Shop", Script(), BOUNDS, part=True)
    assert result.verdict is Verdict.EXHAUSTIVE and values_of(result, "acked") == {"1"}
    # time up to 1 s: the observation ends with the action still waiting (as a machine's timer past the
    # horizon never fires), an outcome
    early = check_machine(prog, "Shop", script(horizon=1), BOUNDS, part=True)
    assert values_of(early, "acked") == {"0"} and not early.violations
    # a worker that never answers: the action waits for ever, a deadlock
    text = (INSTANCES / "acknowledge.sysml").read_text(encoding="utf-8").replace("do send new Done() then idle",
                                                                                  "then idle")
    never = check_machine(program(text), "Shop", Script(), BOUNDS, part=True)
    assert never.verdict is Verdict.VIOLATION
    assert [v.kind for v in never.violations] == ["deadlock"] and "supervise" in never.violations[0].text


def test_the_fixed_run_resumes_an_action_when_its_message_comes() -> None:
    from engines.runtime.states.instances import Instantiation

    world = Instantiation(model_of("acknowledge.sysml"), "ack::Shop")
    world.perform_all()
    assert [run.element.name for _, run, _ in world.waiting] == ["supervise"]  # it sent Start, then waits
    (worker,) = world.machines
    worker.run_to_end()
    world.route(worker)
    worker.advance(Fraction(3))
    world.route(worker)
    assert world.resume() and not world.waiting
    assert world.slots(world.objects[0])["acked"] == "1"


def test_a_property_reads_a_feature_two_parts_down_and_both_machines_of_an_object_take_an_event() -> None:
    prog = model_of("house.sysml")
    once = check_machine(prog, "House", script("Go"), BOUNDS, properties=("oneLit",), part=True)
    assert outcomes(once) == {(("room.lamp.life", "bright"), ("room.lamp.lit", "1"), ("room.lamp.watch", "on"))}
    twice = check_machine(prog, "House", script("Go to room.lamp", "Go to room.lamp"), BOUNDS, properties=("oneLit",),
                          part=True)
    assert twice.verdict is Verdict.EXHAUSTIVE and values_of(twice, "room.lamp.lit") == {"1"}


# A plant with two loggers: each performs an action that accepts one Reading and counts it. The sensor's
# machine sends its Reading via its port `outp` (SENDER "port"), which a connection links to `logger`'s
# `inp` alone; or the plant's own action sends it `to spare` (SENDER "to"). Either way the message
# reaches one object, and only that object's action may take it: the other logger waits for ever (a
# deadlock), on every schedule. A message left on the bus for actions used to be taken by whichever
# logger's accept came first.
LOGGERS = """
package plant {
    private import ScalarValues::*;
    attribute def Reading;
    attribute def Tick;
    port def ReadingPort;
    part def Sensor {
        port outp : ReadingPort;
        exhibit state sensing {
            entry; then idle;
            state idle;
            state sent;
            transition first idle accept Tick do send new Reading() via outp then sent;
        }
    }
    part def Logger {
        port inp : ReadingPort;
        attribute logged : Integer = 0;
        perform action log {
            accept r : Reading;
            then assign logged := logged + 1;
        }
    }
    part def Plant {
        part sensor : Sensor;
        part logger : Logger;
        part spare : Logger;
        connect sensor.outp to logger.inp;
        SENDER
    }
}
"""


@pytest.mark.parametrize(("sender", "reached", "waits"), [
    ("", ("1", "0"), "spare.log"),
    ("perform action kick { send new Reading() to spare; }", ("0", "1"), "logger.log"),
])
def test_a_message_reaches_the_action_of_the_object_it_was_delivered_to(sender: str, reached: tuple[str, str],
                                                                         waits: str) -> None:
    prog = program(LOGGERS.replace("SENDER", sender))
    env = script("Tick to sensor") if not sender else Script()
    for reduce in (True, False):
        result = check_machine(prog, "Plant", env, BOUNDS, reduce=reduce, part=True)
        (deadlock,) = result.violations  # a deadlock is no outcome: the check lists it alone
        assert deadlock.kind == "deadlock" and deadlock.text.startswith(waits + ":")
    explored = explore_machine(prog, "Plant", env, Bounds(runs=5_000), part=True)
    (ending,) = explored.outcomes
    assert (dict(ending.values)["logger.logged"], dict(ending.values)["spare.logged"]) == reached
    assert ending.error is not None and waits in ending.error
