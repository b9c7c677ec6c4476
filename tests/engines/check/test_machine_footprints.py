"""The dependence clauses for machine moves (engines/runtime/states/footprints.py), each asserted on a
small controller: which of its moves the reducer may reorder and which it may not."""

from __future__ import annotations

from fractions import Fraction

import ir
from engines.check.reduce import dependent
from engines.runtime import Program, Script
from engines.runtime.behavior import Actor, ChoiceKind, Move, MoveKind
from engines.runtime.states import MachineRun, start_machine
from engines.runtime.states.core import Event, Timer
from engines.runtime.states.driven import Driven
from engines.runtime.states.footprints import DISPATCHER, ENVIRONMENT, REGIONS, UNITS, MachineFootprints
from engines.runtime.states.layout import Vertex

# Two regions, each with a do behavior over its own attribute; the right one waits for Go, then for a
# timer whose effect writes a part's feature; a second machine reads that feature in a guard, a third
# keeps to its own attribute.
CONTROLLER = """
package ctl {
  private import ScalarValues::*;
  attribute def Go;
  part def Panel { attribute shown : Integer = 0; }
  part panel : Panel;
  state def Controller parallel {
    attribute a : Integer := 0;
    attribute b : Integer := 0;
    state left {
      entry; then lwork;
      state lwork { do { assign a := a + 1; assign a := a + 1; } }
      state lrest;
      transition first lwork then lrest;
    }
    state right {
      entry; then rwork;
      state rwork { do { assign b := b + 1; assign b := b + 1; } }
      state rrest;
      transition first rwork accept Go then rrest;
      transition first rrest accept after 2 [s] do assign panel.shown := b then rwork;
    }
  }
  state def Display {
    attribute seen : Integer := 0;
    entry; then idle;
    state idle;
    state lit;
    transition first idle if panel.shown > 0 do assign seen := 1 then lit;
  }
  state def Session {
    attribute k : Integer := 0;
    attribute m : Integer := 0;
    entry; then work;
    state work parallel {
      state x { entry; then x1; state x1 { do { assign k := k + 1; assign k := k + 1; } } }
      state y {
        entry; then y1;
        state y1 { do { assign m := m + 1; } }
        action stop terminate;
        transition first y1 then stop;
      }
    }
    state idle;
    transition first work accept Go then idle;
  }
  state def Watch parallel {
    attribute temp : Integer := 0;
    attribute u : Integer := 0;
    attribute w : Integer := 0;
    state p {
      entry; then p1;
      state p1 { do { assign u := u + 1; } }
      state p2;
      transition first p1 accept when temp > 20 then p2;
    }
    state q { entry; then q1; state q1 { do { assign w := w + 1; assign temp := 30; } } }
  }
  state def Counter {
    attribute n : Integer := 0;
    entry; then one;
    state one;
    state two;
    transition first one do assign n := n + 1 then two;
  }
}
"""


def _machine(name: str) -> tuple[MachineRun, MachineFootprints]:
    program = Program(ir.resolve([ir.parse(CONTROLLER, "ctl")]))
    machine = start_machine(program, f"ctl::{name}")
    return machine, MachineFootprints(machine)


def _state(machine: MachineRun, name: str) -> Vertex:
    return next(v for v in machine.shape.vertices if v.name == name)


def _do(machine: MachineRun, name: str) -> Move:
    state = _state(machine, name)
    return Move(MoveKind.DO_STEP, 1 + state.order, f"do {name}", name, None, ChoiceKind.STEP_ORDER)


def _dispatch(label: str, at: str = "", option: str | None = None, actor: int = DISPATCHER) -> Move:
    return Move(MoveKind.DISPATCH, actor, label, at, option, ChoiceKind.DISPATCH_ORDER)


def test_do_steps_of_two_regions_over_their_own_data_commute() -> None:
    machine, fp = _machine("Controller")
    left, right = fp.footprint(_do(machine, "lwork")), fp.footprint(_do(machine, "rwork"))
    assert not dependent(left, right)


def test_two_last_do_steps_both_complete_their_states_so_their_order_is_the_queue_s() -> None:
    machine, fp = _machine("Controller")
    for state in ("lwork", "rwork"):
        machine.dos[_state(machine, state)].index = 1  # the last statement is next
    assert dependent(fp.footprint(_do(machine, "lwork")), fp.footprint(_do(machine, "rwork")))


def test_a_do_step_and_a_dispatch_that_may_leave_its_state_are_dependent() -> None:
    machine, fp = _machine("Controller")
    step = fp.footprint(_do(machine, "rwork"))
    assert dependent(step, fp.future(Actor(DISPATCHER, fp.place(DISPATCHER))))
    go = _state(machine, "rwork").outgoing[0]
    assert dependent(step, fp.transition(go))  # accept Go leaves rwork: the do behavior is cut
    assert not dependent(fp.footprint(_do(machine, "lwork")), fp.transition(go))


def test_a_transition_leaving_a_composite_depends_on_every_move_inside_it() -> None:
    machine, fp = _machine("Session")
    leave = _state(machine, "work").outgoing[0]  # accept Go leaves both regions
    assert dependent(fp.transition(leave), fp.footprint(_do(machine, "x1")))
    assert dependent(fp.transition(leave), fp.footprint(_do(machine, "y1")))
    # the regions' own moves keep to their own states and data
    assert not dependent(fp.footprint(_do(machine, "x1")), fp.footprint(_do(machine, "y1")))


def test_a_move_into_a_terminate_writes_the_status_every_move_of_the_machine_reads() -> None:
    machine, fp = _machine("Session")
    ends = _state(machine, "y1").outgoing[0]  # y1's completion into the terminate
    assert dependent(fp.transition(ends), fp.footprint(_do(machine, "x1")))


def test_in_a_machine_with_a_when_trigger_every_move_reads_its_condition_and_writes_the_latches() -> None:
    machine, fp = _machine("Watch")
    assert dependent(fp.footprint(_do(machine, "p1")), fp.footprint(_do(machine, "q1")))
    _, plain = _machine("Controller")  # no `when`: its regions' do steps commute (as above)
    assert not plain.latches.writes


def test_a_completion_commutes_with_an_environment_send_but_a_pool_event_does_not() -> None:
    machine, fp = _machine("Controller")
    machine.completions.append(_state(machine, "lrest"))
    completion = fp.footprint(_dispatch("completion lrest", "lrest", actor=REGIONS + _state(machine, "left").order))
    send = fp.footprint(Move(MoveKind.SEND, ENVIRONMENT, "send Go", "environment", "Go"))
    assert not dependent(completion, send)
    machine.pool.append(Event("signal", "Go"))
    assert dependent(fp.footprint(_dispatch("accept Go")), send)


def test_time_passing_is_dependent_on_a_timer_s_dispatch_and_on_a_send_not_on_a_do_step() -> None:
    """Time passes only where the machine cannot move: a send disables it (the event is taken before
    time moves on), so the two are dependent though neither writes what the other writes."""
    machine, fp = _machine("Controller")
    clock = fp.footprint(Move(MoveKind.CLOCK, ENVIRONMENT, "time passes to 2s", "clock", "2"))
    timed = _state(machine, "rrest").outgoing[0]
    machine.timers.append(Timer(Fraction(2), 1, timed))
    assert dependent(clock, fp.footprint(_dispatch(f"time {timed.label()}", "rrest", "1")))
    assert dependent(clock, fp.footprint(Move(MoveKind.SEND, ENVIRONMENT, "send Go", "environment", "Go")))
    assert not dependent(clock, fp.footprint(_do(machine, "lwork")))


def test_a_transition_writing_a_part_feature_is_dependent_on_a_guard_another_machine_reads() -> None:
    controller, fp = _machine("Controller")
    display, other = _machine("Display")
    _, third = _machine("Counter")
    timed = _state(controller, "rrest").outgoing[0]
    guarded = _state(display, "idle").outgoing[0]
    assert dependent(fp.transition(timed), other.transition(guarded))
    assert not dependent(third.future(Actor(DISPATCHER, third.place(DISPATCHER))),
                         other.future(Actor(DISPATCHER, other.place(DISPATCHER))))
    assert not dependent(third.future(Actor(DISPATCHER, third.place(DISPATCHER))),
                         fp.future(Actor(DISPATCHER, fp.place(DISPATCHER))))


def test_a_machine_s_future_is_what_it_can_still_reach() -> None:
    counter, fp = _machine("Counter")
    region = Actor(REGIONS, ())  # the completions drawn in the machine's own region
    assert any(w.endswith("::n") for w in fp.future(region).writes)
    assert not any(w.endswith("::n") for w in fp.future(Actor(DISPATCHER, ())).writes)  # no event moves it
    one, two = _state(counter, "one"), _state(counter, "two")
    counter.active.discard(one)
    counter.active.add(two)  # past its one transition: nothing it may still do writes n
    assert not any(w.endswith("::n") for w in fp.future(region).writes)


def test_an_actor_s_place_changes_with_what_its_footprints_depend_on() -> None:
    counter, fp = _machine("Counter")
    first = fp.place(DISPATCHER)
    counter.active.discard(_state(counter, "one"))
    counter.active.add(_state(counter, "two"))
    assert fp.place(DISPATCHER) != first


def test_the_dispatcher_waits_for_the_pending_completions_whose_region_must_move_first() -> None:
    machine, fp = _machine("Controller")
    dispatcher = Actor(DISPATCHER, fp.place(DISPATCHER))
    assert fp.enablers(dispatcher) is None  # nothing pending: who may enable it is not known
    lrest = _state(machine, "lrest")
    machine.completions.append(lrest)
    assert fp.enablers(dispatcher) == [REGIONS + _state(machine, "left").order]
    machine.pool.append(Event("signal", "Go"))
    # a pool event is dispatched only with no completion pending: it reads the queue a move may fill
    assert fp.key("completions") in fp.footprint(_dispatch("accept Go")).reads


def test_a_machine_takes_the_bus_only_where_another_behavior_may_send() -> None:
    machine, fp = _machine("Counter")
    assert not fp.footprint(_dispatch("completion one", "one", actor=REGIONS)).accepts
    machine.ctx.shared_bus = True  # an ensemble with an action that sends
    assert MachineFootprints(machine).footprint(_dispatch("completion one", "one", actor=REGIONS)).accepts


def test_regions_over_their_own_data_are_groups_of_one_and_a_shared_counter_one_group() -> None:
    machine, fp = _machine("Controller")
    regions = [_state(machine, "left"), _state(machine, "right")]
    assert fp.groups([fp.region_unit(r) for r in regions]) == [[0], [1]]
    shared = """
    package cnt {
      private import ScalarValues::*;
      state def Shared parallel {
        attribute c : Integer := 0;
        state p { entry; then p1; state p1; state p2; transition first p1 do assign c := c * 2 then p2; }
        state q { entry; then q1; state q1; state q2; transition first q1 do assign c := c + 1 then q2; }
        state r { entry; then r1; state r1; }
      }
    }
    """
    program = Program(ir.resolve([ir.parse(shared, "cnt")]))
    counter = start_machine(program, "cnt::Shared")
    cfp = MachineFootprints(counter)
    units = [cfp.region_unit(_state(counter, name)) for name in ("p", "q", "r")]
    assert cfp.groups(units) == [[0, 1], [2]]
    firings = [cfp.firing_unit(_state(counter, name).outgoing[0]) for name in ("p1", "q1")]
    assert cfp.groups(firings) == [[0, 1]]


def test_a_move_of_a_kind_not_spelled_here_is_dependent_on_everything() -> None:
    _, fp = _machine("Counter")
    stranger = Move(MoveKind.TOKEN, UNITS + 1, "unit", "one")
    assert fp.footprint(stranger).dynamic
    assert fp.future(Actor(UNITS + 1, fp.place(UNITS + 1))).dynamic
    assert not fp.footprint(_dispatch("completion one", "one", actor=REGIONS)).dynamic


FRONT = """
package cnt {
  private import ScalarValues::*;
  state def Shared parallel {
    attribute c : Integer := 0;
    attribute k : Integer := 0;
    state p { entry; then p1; state p1; state p2; transition first p1 do assign c := c * 2 then p2; }
    state q { entry; then q1; state q1; state q2; transition first q1 do assign c := c + 1 then q2; }
    state r { entry; then r1; state r1 { do { assign k := k + 1; } } }
  }
}
"""


def _front() -> Driven:
    """The machine's start in progress: its three regions entered in an order drawn unit by unit."""
    run = Program(ir.resolve([ir.parse(FRONT, "cnt")])).start_driven("cnt::Shared", Script())
    assert [m.label for m in run.enabled_moves()] == ["unit p", "unit q", "unit r"]
    return run


def test_units_of_a_firing_commute_where_their_chains_and_what_follows_keep_to_their_own_data() -> None:
    run = _front()
    unit = {m.label: run.footprint(m) for m in run.enabled_moves()}
    assert dependent(unit["unit p"], unit["unit q"])  # both regions' transitions write c: the order is c's
    assert not dependent(unit["unit p"], unit["unit r"])
    # nothing else moves before the firing ends, which waits for every chain: one chain enables the rest
    dispatcher = next(a for a in run.actors() if a.id == DISPATCHER)
    assert run.enablers(dispatcher) == [run.enabled_moves()[0].actor]


def test_a_do_step_the_firing_started_is_ordered_against_the_firing_s_rest_not_its_other_units() -> None:
    run = _front()
    run.apply(next(m for m in run.enabled_moves() if m.label == "unit r"))  # r1 entered: its do begins
    moves = {m.label: m for m in run.enabled_moves()}
    step = run.footprint(moves["do r1"])
    assert not dependent(step, run.footprint(moves["unit p"]))  # p's chain is not the last: no rest
    run.apply(moves["unit p"])
    moves = {m.label: m for m in run.enabled_moves()}
    assert dependent(run.footprint(moves["do r1"]), run.footprint(moves["unit q"]))  # q's ends the firing
