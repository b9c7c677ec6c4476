"""ir.lower.states on small machines of the kinds modelers write: a two-region controller, a door
with a timer, a turnstile that defers coins while it is serviced, a heater that resumes where it
was; and the errors a machine is refused with at submission."""

from __future__ import annotations

import pytest

import ir
from ir.errors import NoInitialTransitionError, StateMachineError, UnknownSignalError, UnknownStateError
from ir.graphs import BehaviorKind, StateGraph, StateKind, TriggerKind
from ir.lower.states import check_signal, exhibited_machines, instance_machines, lower_state


def machine(text: str, name: str) -> StateGraph:
    model = ir.resolve([ir.parse(text, "m.sysml")])
    el = model.element(name)
    assert el is not None, name
    return lower_state(model, el)


def edges(g: StateGraph) -> list[tuple[str, str, str]]:
    return [(g.states[t.source].path, t.trigger.label(), g.states[t.target].path) for t in g.transitions]


CONTROLLER = """package Climate {
    private import ScalarValues::*;
    attribute def Hot; attribute def Cold; attribute def Tick;
    state def Controller parallel {
        attribute temp : Integer = 20;
        attribute fanSpeed : Integer = 0;
        state heating {
            entry; then idle;
            state idle;
            state on { entry { assign temp := temp + 1; } exit { assign temp := temp - 1; } }
            transition first idle accept Cold then on;
            transition toIdle first on accept Hot then idle;
        }
        state fan {
            entry; then off;
            state off;
            state spinning { do action spin { assign fanSpeed := fanSpeed + 1; } }
            transition first off accept Hot if temp > 25 do assign fanSpeed := 1 then spinning;
            transition first spinning accept Tick then off;
        }
    }
}"""


def test_a_two_region_controller_has_one_region_per_parallel_substate() -> None:
    g = machine(CONTROLLER, "Climate::Controller")
    assert g.root.kind is StateKind.PARALLEL
    assert [g.regions[r].name for r in g.root.regions] == ["heating", "fan"]
    heating, fan = (g.state("heating"), g.state("fan"))
    assert heating is not None and fan is not None
    # a parallel state's region holds its one substate, always entered
    assert [g.regions[r].initial for r in g.root.regions] == [heating.index, fan.index]
    assert heating.kind is StateKind.COMPOSITE
    (inner,) = heating.regions
    idle = g.state("heating.idle")
    assert idle is not None and g.regions[inner].initial == idle.index
    assert [g.states[i].name for i in g.regions[inner].states] == ["idle", "on"]
    assert edges(g) == [("heating.idle", "Cold", "heating.on"), ("heating.on", "Hot", "heating.idle"),
                        ("fan.off", "Hot", "fan.spinning"), ("fan.spinning", "Tick", "fan.off")]
    assert g.transitions[1].name == "toIdle"
    assert g.signals() == ("Cold", "Hot", "Tick")
    assert g.ancestors(idle.index) == (heating.index, 0)
    on = g.state("heating.on")
    spinning = g.state("fan.spinning")
    assert on is not None and spinning is not None
    assert g.common_ancestor(idle.index, on.index) == heating.index
    assert g.common_ancestor(idle.index, spinning.index) == 0
    assert g.descendants(heating.index) == (idle.index, on.index)


def test_entry_do_exit_and_effects_are_action_graphs_with_their_footprints() -> None:
    g = machine(CONTROLLER, "Climate::Controller")
    on, spinning = g.state("heating.on"), g.state("fan.spinning")
    assert on is not None and spinning is not None
    assert on.entry is not None and on.exit is not None and on.do is None
    assert on.entry.kind is BehaviorKind.ENTRY and len(on.entry.graph.nodes) == 1
    assert on.footprint.writes == {"Climate::Controller::temp"}
    assert spinning.do is not None and spinning.do.name == "spin"
    assert spinning.do.wrapped and len(spinning.do.statements) == 1  # an untyped do runs its members
    guarded = g.transitions[2]
    assert guarded.guard is not None and guarded.effect is not None
    assert guarded.effect.kind is BehaviorKind.EFFECT
    # the guard reads temp; the effect and the target's do write fanSpeed; a signal is accepted
    assert "Climate::Controller::temp" in guarded.footprint.reads
    assert guarded.footprint.writes == {"Climate::Controller::fanSpeed"}
    assert guarded.footprint.accepts
    # leaving `on` runs its exit: the footprint says so though the transition's own text does not
    assert "Climate::Controller::temp" in g.transitions[1].footprint.writes


DOOR = """package Doors {
    private import ScalarValues::*;
    private import SI::*;
    item def Open; item def Close;
    state def Door {
        attribute openings : Integer = 0;
        entry; then closed;
        state closed;
        state opened {
            entry { assign openings := openings + 1; }
            accept after 30 [s] then closed;
        }
        transition first closed accept o : Open then opened;
        transition first opened accept Close then closed;
        transition first closed accept when openings > 99 then done;
    }
}"""


def test_a_door_closes_itself_after_a_time_and_retires_on_a_change() -> None:
    g = machine(DOOR, "Doors::Door")
    assert edges(g) == [("opened", "after", "closed"), ("closed", "o : Open", "opened"),
                        ("opened", "Close", "closed"), ("closed", "when", "done")]
    timer, opening, _, retire = g.transitions
    assert timer.trigger.kind is TriggerKind.AFTER and timer.trigger.expression is not None
    assert opening.trigger.payload == "o" and opening.trigger.signal_type is not None
    assert retire.trigger.kind is TriggerKind.WHEN
    assert "Doors::Door::openings" in retire.footprint.reads
    done = g.states[retire.target]
    assert done.kind is StateKind.FINAL and done.region == g.root.regions[0]


TURNSTILE = """package Gate {
    item def Coin; item def Push; item def Service; item def Done;
    port def Slot { in item coin : Coin; }
    state def Turnstile {
        port slot : Slot;
        entry; then locked;
        state locked;
        state unlocked;
        state servicing { defer Coin; }
        transition first locked accept Coin via slot then unlocked;
        transition first unlocked accept Push then locked;
        transition first locked accept Service then servicing;
        transition first servicing accept Done then locked;
    }
}"""


def test_a_turnstile_defers_coins_while_serviced() -> None:
    g = machine(TURNSTILE, "Gate::Turnstile")
    servicing = g.state("servicing")
    assert servicing is not None and servicing.defers == ("Coin",)
    assert g.transitions[0].trigger.via == "slot"
    assert [t.index for t in g.outgoing(g.state("locked").index)] == [0, 2]  # type: ignore[union-attr]
    assert g.signals() == ("Coin", "Done", "Push", "Service")


HEATER = """package Home {
    private import ScalarValues::*;
    attribute def Up; attribute def Down; attribute def Off; attribute def On;
    state def Heater {
        attribute level : Integer = 0;
        entry; then off;
        state off;
        state heating {
            entry; then low;
            state low { entry { assign level := 1; } }
            state high { entry { assign level := 2; } }
            history resume;
            transition first low accept Up then high;
            transition first high accept Down then low;
        }
        transition first heating accept Off then off;
        transition first off accept On then resume;
        transition first resume then low;
    }
}"""


def test_a_heater_resumes_through_its_history() -> None:
    g = machine(HEATER, "Home::Heater")
    resume = g.state("heating.resume")
    assert resume is not None and resume.kind is StateKind.SHALLOW_HISTORY
    assert resume.parent == g.state("heating").index  # type: ignore[union-attr]
    back = g.transitions[3]
    assert g.states[back.target] is resume
    default = g.outgoing(resume.index)
    assert len(default) == 1 and default[0].is_completion
    assert g.states[default[0].target].path == "heating.low"


def test_junction_choice_fork_join_and_terminate_are_vertices_of_their_region() -> None:
    g = machine("""package P {
        state def M {
            attribute n : ScalarValues::Integer = 0;
            entry; then a;
            state a;
            junction j;
            choice c;
            fork f;
            join k;
            action stop terminate;
            state w parallel { state x { state x1; } state y { state y1; } }
            transition first a accept Go then j;
            transition first j if n > 0 then c;
            transition first j then stop;
            transition first c if n > 1 then f;
            transition first c then a;
            transition first f then x1;
            transition first f then y1;
            transition first x1 then k;
            transition first y1 then k;
            transition first k then done;
        }
    }""", "P::M")
    kinds = {st.path: st.kind for st in g.states}
    assert kinds["j"] is StateKind.JUNCTION and kinds["c"] is StateKind.CHOICE
    assert kinds["f"] is StateKind.FORK and kinds["k"] is StateKind.JOIN
    assert kinds["stop"] is StateKind.TERMINATE and kinds["done"] is StateKind.FINAL
    assert all(k.is_pseudostate for k in (kinds["j"], kinds["c"], kinds["f"], kinds["k"], kinds["stop"]))
    fork = g.state("f")
    assert fork is not None
    assert [g.states[t.target].path for t in g.outgoing(fork.index)] == ["w.x.x1", "w.y.y1"]


def test_run_to_completion_redefinitions_mark_the_state() -> None:
    g = machine("""package P {
        state def M {
            entry; then a;
            state a { attribute :>> isRunToCompletion = false; }
            state b { ref :>> runToCompletionScope = self; }
        }
    }""", "P::M")
    a, b = g.state("a"), g.state("b")
    assert a is not None and b is not None
    assert not a.run_to_completion and b.run_to_completion
    assert b.completion_scope and not a.completion_scope
    assert a.attributes == () and b.attributes == ()


def test_a_typed_do_action_binds_its_inout_parameter() -> None:
    g = machine("""package P {
        private import ScalarValues::*;
        action def Work { inout n : Integer; assign n := n + 1; }
        state def M {
            attribute count : Integer = 0;
            entry; then busy;
            state busy { do action job : Work { inout n = count; } }
        }
    }""", "P::M")
    busy = g.state("busy")
    assert busy is not None and busy.do is not None
    assert busy.do.typed == "Work"
    # a typed do action runs as the one node it is, binding its parameters
    assert not busy.do.wrapped and busy.do.action is None and len(busy.do.statements) == 1
    (node,) = busy.do.graph.nodes
    assert node.body is not None and node.body.performs is not None
    assert [name for name, _ in node.body.outputs] == ["n"]


def test_an_exhibited_machine_is_lowered_for_its_part_with_its_bindings() -> None:
    model = ir.resolve([ir.parse("""package P {
        attribute def Go;
        state def Life { in ref context : Robot; entry; then idle; state idle; state busy;
                         transition first idle accept Go then busy; }
        part def Robot { exhibit state life : Life { in ref :>> context = this; } }
        part def Arm :> Robot { exhibit state blink { entry; then dark; state dark; } }
    }""", "m.sysml")])
    arm = model.element("P::Arm")
    assert arm is not None
    graphs = exhibited_machines(model, arm)
    assert [g.name for g in graphs] == ["P::Arm::blink", "P::Robot::life"]
    life = graphs[1]
    assert [name for name, _ in life.bindings] == ["context"]
    assert edges(life) == [("idle", "Go", "busy")]
    assert life.exhibited_by is arm


def test_a_machine_without_an_initial_transition_is_refused() -> None:
    with pytest.raises(NoInitialTransitionError) as caught:
        machine("package P {\n state def M {\n  state a;\n  state b;\n  transition first a accept Go then b;\n }\n}",
                "P::M")
    err = caught.value
    assert (err.path, err.line) == ("m.sysml", 2)
    assert "no initial transition" in str(err) and "entry; then a;" in err.hint


def test_a_composite_entered_by_default_without_an_initial_transition_is_refused() -> None:
    with pytest.raises(NoInitialTransitionError) as caught:
        machine("""package P { state def M {
            entry; then a;
            state a;
            state b { state b1; state b2; }
            transition first a accept Go then b;
        } }""", "P::M")
    assert "state b" in str(caught.value)


def test_a_composite_entered_only_at_a_named_substate_needs_no_initial_transition() -> None:
    g = machine("""package P { state def M {
        entry; then a;
        state a;
        state b { state b1; state b2; }
        transition first a accept Go then b2;
    } }""", "P::M")
    b = g.state("b")
    assert b is not None and g.regions[b.regions[0]].initial is None


def test_a_transition_to_an_unknown_state_is_refused_at_resolution() -> None:
    with pytest.raises(ir.ResolveError) as caught:
        machine("package P {\n state def M {\n  entry; then a;\n  state a;\n  state b;\n"
                "  transition first a accept Go then c;\n }\n}", "P::M")
    err = caught.value
    assert err.line == 6 and err.name == "c" and err.what == "transition target"


def test_a_path_to_no_substate_is_refused_naming_the_states() -> None:
    with pytest.raises(UnknownStateError) as caught:
        machine("package P {\n state def M {\n  entry; then a;\n  state a;\n  state b { state b1; }\n"
                "  transition first a accept Go then b.zz;\n }\n}", "P::M")
    err = caught.value
    assert (err.path, err.line) == ("m.sysml", 6) and "'b.zz'" in str(err) and "a, b, b.b1" in err.hint


def test_an_unknown_signal_is_refused_with_the_alphabet() -> None:
    g = machine(TURNSTILE, "Gate::Turnstile")
    check_signal(g, "Push")
    with pytest.raises(UnknownSignalError) as caught:
        check_signal(g, "Psuh")
    assert "Push" in caught.value.hint and "Turnstile" in str(caught.value)


def test_lowering_is_deterministic() -> None:
    one, two = machine(CONTROLLER, "Climate::Controller"), machine(CONTROLLER, "Climate::Controller")
    assert [(s.path, s.kind) for s in one.states] == [(s.path, s.kind) for s in two.states]
    assert [t.footprint for t in one.transitions] == [t.footprint for t in two.transitions]


def test_call_and_absolute_time_triggers_and_a_named_effect_action() -> None:
    g = machine("""package P {
        private import ScalarValues::*;
        state def Alarm {
            attribute rings : Integer = 0;
            attribute wakeAt : Real = 7.0;
            entry; then armed;
            state armed;
            state ringing;
            transition first armed accept at wakeAt do action ring { assign rings := rings + 1; } then ringing;
            transition first ringing accept snooze() then armed;
        }
    }""", "P::Alarm")
    at, call = g.transitions
    assert at.trigger.kind is TriggerKind.AT and "P::Alarm::wakeAt" in at.footprint.reads
    assert at.effect is not None and at.effect.name == "ring" and not at.effect.wrapped
    assert at.footprint.writes == {"P::Alarm::rings"}
    assert call.trigger.kind is TriggerKind.CALL and call.trigger.label() == "snooze()"
    assert g.signals() == ("snooze",)


def test_behaviors_keep_what_was_written() -> None:
    g = machine(DOOR, "Doors::Door")
    opened = g.state("opened")
    assert opened is not None and opened.entry is not None
    assert opened.entry.wrapped and len(opened.entry.statements) == 1 and opened.entry.action is None
    assert opened.element is not None and opened.element.qualified_name == "Doors::Door::opened"


def test_an_instance_runs_the_machines_of_its_parts_by_path() -> None:
    model = ir.resolve([ir.parse("""package Plant {
        attribute def Tick;
        part def Valve { exhibit state v { entry; then shut; state shut; state open;
                                          transition first shut accept Tick then open; } }
        part def Pump { part inlet : Valve; exhibit state p { entry; then off; state off; } }
        part def Skid :> Base { part pump : Pump; part spare : Valve; }
        part def Base { exhibit state life { entry; then up; state up; } }
    }""", "m.sysml")])
    skid = model.element("Plant::Skid")
    assert skid is not None
    got = [(path, g.name) for path, g in instance_machines(model, skid)]
    assert got == [("", "Plant::Base::life"), ("pump", "Plant::Pump::p"), ("pump.inlet", "Plant::Valve::v"),
                   ("spare", "Plant::Valve::v")]


def test_a_specialization_exhibiting_a_machine_again_replaces_the_generals() -> None:
    model = ir.resolve([ir.parse("""package P {
        part def Robot { exhibit state life { entry; then idle; state idle; } }
        part def Arm :> Robot { exhibit state life { entry; then ready; state ready; } }
    }""", "m.sysml")])
    arm = model.element("P::Arm")
    assert arm is not None
    (life,) = exhibited_machines(model, arm)
    assert [st.name for st in life.states] == ["life", "ready"]


@pytest.mark.parametrize(("statement", "hint"), [("assign n := 1;", "entry { ... }"),
                                                  ("then terminate;", "action stop terminate;")])
def test_a_statement_standing_in_a_state_body_is_refused(statement: str, hint: str) -> None:
    with pytest.raises(StateMachineError) as caught:
        machine("package P {\n state def M {\n  attribute n : ScalarValues::Integer = 0;\n  entry; then a;\n"
                f"  state a;\n  {statement}\n }}\n}}", "P::M")
    err = caught.value
    assert (err.path, err.line) == ("m.sysml", 6) and "state M's body" in str(err) and hint in err.hint
