"""Machines of our own, answers derived from the semantics: bodies that perform actions (a typed usage
among a body's statements performs the action it is typed by beside its own statements and returns
its outputs as it ends; a named do action runs as its flow), addressed messages between the parts of
an instance, guards reading the accepted occurrence, deferral, and time triggers."""

from __future__ import annotations

from fractions import Fraction

import pytest

import ir
from engines.runtime import Program
from engines.runtime.states import MachineError, MachineRun, parse_send, start_machine
from engines.runtime.states.instances import Instantiation
from ir.errors import StateMachineError


def machine(text: str, name: str) -> MachineRun:
    return start_machine(Program(ir.resolve([ir.parse(text, "t.sysml")])), name)


DOOR = """
package Doors {
    private import ScalarValues::*;
    attribute def Open;
    action def Swing {
        in angle : Integer;
        out opened : Integer;
        first start;
        then action turn { assign opened := angle; }
        then done;
    }
    state Door {
        attribute opened : Integer = 0;
        attribute openings : Integer = 0;
        entry; then closed;
        state closed;
        state open {
            entry {
                action swing : Swing {
                    in angle = 90;
                    assign openings := openings + 1;
                }
            }
        }
        transition first closed accept Open then open;
    }
}
"""


def test_a_typed_usage_in_an_entry_body_performs_its_action_and_returns_its_output() -> None:
    run = machine(DOOR, "Doors::Door")
    run.send(parse_send("Open"))
    run.run_to_end()
    assert run.final_state() == "open"
    out = run.outputs()
    # Swing's step ran (opened is its out, returned to the same-named feature) and so did the
    # usage's own statement: the two touch different features, so every order gives this
    assert (out["opened"], out["openings"]) == ("90", "1")
    assert "step 1: token 1@turn" in "\n".join(run.trace)


HEATER = """
package Heat {
    private import ScalarValues::*;
    action def Plan {
        in demand : Integer;
        out power : Integer;
        first start;
        then action size { assign power := demand * 5; }
        then done;
    }
    state Heater {
        attribute power : Integer = 0;
        attribute planned : Integer = 0;
        entry; then idle;
        state idle;
        state heating {
            entry {
                if planned == 0 {
                    action plan : Plan {
                        in demand = 4;
                        assign power := power + 1;
                    }
                    assign planned := power;
                }
            }
        }
        succession first idle then heating;
    }
}
"""


def test_a_typed_usage_in_a_branch_returns_its_output_before_the_next_statement_reads_it() -> None:
    run = machine(HEATER, "Heat::Heater")
    run.run_to_end()
    out = run.outputs()
    # Plan writes power := 20; the usage's own `power := power + 1` is unordered with that step, so
    # power ends 20 (own statement first: it wrote the performance's power, which Plan overwrites) or
    # 21 (Plan's step first). The default policy takes the higher token first: the own statement.
    assert out["power"] == "20"
    assert out["planned"] == out["power"]  # the branch's next statement reads the returned output


COUNTER = """
package Tally {
    private import ScalarValues::*;
    attribute def Stop;
    action def Count {
        in n : Integer;
        out result : Integer;
        first start;
        then action r { assign result := n * 10; }
        then done;
    }
    state Meter {
        attribute score : Integer = 0;
        attribute log : Integer = 0;
        entry; then counting;
        state counting {
            exit {
                action c : Count {
                    in n = 2;
                    out result = score;
                    assign log := log + 1;
                }
            }
        }
        state stopped;
        transition first counting accept Stop then stopped;
    }
}
"""


def test_a_typed_usage_in_an_exit_body_writes_a_bound_output_to_the_feature_it_names() -> None:
    run = machine(COUNTER, "Tally::Meter")
    run.run_to_end()
    assert run.outputs()["score"] == "0"  # nothing left `counting` yet
    run.send(parse_send("Stop"))
    run.run_to_end()
    assert run.final_state() == "stopped"
    assert (run.outputs()["score"], run.outputs()["log"]) == ("20", "1")


GATE = """
package Gates {
    private import ScalarValues::*;
    action def Swing {
        in angle : Integer;
        out opened : Integer;
        first start;
        then action turn { assign opened := angle; }
        then done;
    }
    action def Gate {
        attribute opened : Integer = 0;
        attribute openings : Integer = 0;
        first start;
        then action swing : Swing { in angle = 45; assign openings := openings + 1; }
        then done;
    }
}
"""


def test_the_same_usage_as_a_node_of_an_action_flow_reads_the_features_around_it() -> None:
    """The usage's own statements are written in its scope: `openings` is the enclosing action's."""
    run = Program(ir.resolve([ir.parse(GATE, "t.sysml")])).start_action("Gates::Gate")
    run.run_to_end()
    out = run.outputs()
    assert (out["opened"], out["openings"]) == ("45", "1")


# A do behavior given as a named action stating a flow runs as that flow: a do step is one round of
# it (a start, a bodiless control node or an accept taking its occurrence only routes and does not end
# the step); an event no transition takes goes to the flow parked at its accept; the state completes
# only when the flow ends; a dispatch that leaves the state cuts the flow wherever it stands.

POLLER = """
package Poll {
    private import ScalarValues::*;
    item def Ping; attribute def Stop;
    state Poller {
        attribute hits : Integer = 0;
        entry; then polling;
        state polling {
            do action poll {
                first start;
                then action listen accept p : Ping;
                then action count assign hits := hits + 1;
                then listen;
            }
        }
        state idle;
        transition first polling accept Stop then idle;
    }
}
"""


def test_events_no_transition_takes_go_to_the_do_flow_parked_at_its_accept() -> None:
    run = machine(POLLER, "Poll::Poller")
    for name in ("Ping", "Ping", "Stop", "Ping"):
        run.send(parse_send(name))
    run.run_to_end()
    assert run.final_state() == "idle"
    assert run.outputs()["hits"] == "2"  # the Ping after Stop finds no do behavior: unmatched
    trace = "\n".join(run.trace)
    assert trace.count("do: polling") == 3  # the flow's start, then one step per Ping taken
    assert trace.count("materialize: Ping #") == 2  # an item occurrence taken is an object


DOOR_MOTOR = """
package Motor {
    private import ScalarValues::*;
    attribute def Limit;
    state Door {
        attribute moving : Boolean = false;
        entry; then closed;
        state closed;
        state opening {
            entry { assign moving := true; }
            do action drive {
                first start;
                then action reach accept Limit;
                then action halt assign moving := false;
                then done;
            }
        }
        state open;
        succession first closed then opening;
        transition first opening then open;
    }
}
"""


def test_a_completion_waits_for_the_do_flow_to_end() -> None:
    run = machine(DOOR_MOTOR, "Motor::Door")
    run.run_to_end()
    assert (run.final_state(), run.outputs()["moving"]) == ("opening", "true")
    run.send(parse_send("Limit"))
    run.run_to_end()
    assert (run.final_state(), run.outputs()["moving"]) == ("open", "false")
    assert "materialize" not in "\n".join(run.trace)  # an attribute value has no identity to take


WORKER = """
package Work {
    private import ScalarValues::*;
    attribute def Stop;
    state Worker {
        attribute n : Integer = 0;
        entry; then busy;
        state busy {
            do action job {
                first start;
                then action a assign n := n + 1;
                then action b assign n := n + 10;
                then done;
            }
        }
        state idle;
        transition first busy accept Stop then idle;
    }
}
"""


def test_a_dispatch_cuts_the_do_flow_after_the_round_the_fixed_policy_took() -> None:
    run = machine(WORKER, "Work::Worker")
    run.send(parse_send("Stop"))
    run.run_to_end()
    # admissible: 0 (cut before a), 1 (after a), 11 (after the flow ended); the fixed policies run
    # one round of the do flow (the start routes, `a` is performed) and dispatch after it
    assert (run.final_state(), run.outputs()["n"]) == ("idle", "1")


def test_without_a_dispatch_the_do_flow_runs_to_its_end_and_the_state_rests() -> None:
    run = machine(WORKER, "Work::Worker")
    run.run_to_end()
    assert (run.final_state(), run.outputs()["n"]) == ("busy", "11")


COUNTING_FORK = """
package Forks {
    private import ScalarValues::*;
    action tally {
        attribute count : Integer = 0;
        first start;
        then fork split { assign count := count + 1; }
        succession first split then a;
        succession first split then b;
        action a assign count := count + 10;
        action b assign count := count + 100;
        join sync;
        succession first a then sync;
        succession first b then sync;
        then merge m { assign count := count + 1000; }
        then done;
    }
}
"""


def test_a_control_node_body_is_performed_by_the_token_passing_through() -> None:
    run = Program(ir.resolve([ir.parse(COUNTING_FORK, "t.sysml")])).start_action("Forks::tally")
    run.run_to_end()
    assert run.outputs()["count"] == "1111"  # the fork's and the merge's bodies ran once each


# In an instance, a send addressed to `this` or a part goes to the machines of that object, and only
# there; one it cannot address is refused naming it, never lost.

PARTS = """
package Parts {
    private import ScalarValues::*;
    attribute def Ping; attribute def Pong;
    part def Pinger {
        attribute got : Integer := 0;
        exhibit state life {
            entry; then arming;
            state arming { entry { send new Ping() to this; } }
            state serving { entry { send new Ping() to echo; } }
            state done { entry { assign got := got + 1; } }
            transition first arming accept Ping then serving;
            transition first serving accept Pong then done;
        }
    }
    part def Echo {
        attribute heard : Integer := 0;
        exhibit state life {
            entry; then waiting;
            state waiting;
            state answered { entry { assign heard := heard + 1; send new Pong() to pinger; } }
            transition first waiting accept Ping then answered;
        }
    }
    part def Pair {
        part pinger : Pinger;
        part echo : Echo;
    }
    part def Selfie {
        attribute got : Integer := 0;
        exhibit state life {
            entry; then arming;
            state arming { entry { send new Ping() to this; } }
            state armed { entry { assign got := got + 1; } }
            transition first arming accept Ping then armed;
        }
    }
    attribute def Token;
    part def Relay {
        attribute passed : Integer := 0;
        exhibit state life {
            entry; then waiting;
            state waiting;
            state passing { entry { assign passed := passed + 1; send new Token() to last; } }
            transition first waiting accept Token then passing;
        }
    }
    part def Sink {
        attribute got : Integer := 0;
        exhibit state life {
            entry; then waiting; state waiting;
            state full { entry { assign got := got + 1; } }
            transition first waiting accept Token then full;
        }
    }
    part def Chain {
        part first : Starter;
        part next : Relay;
        part last : Sink;
    }
    part def Starter {
        perform action kick { send new Token() to next; }
        attribute woke : Integer := 0;
        exhibit state life {
            entry; then s; state s; state t { entry { assign woke := 1; } }
            transition first s accept Ping then t;
        }
        perform action self_ping { send new Ping() to this; }
    }
    part def Lonely {
        exhibit state life {
            entry; then s; state s { entry { send new Ping() to nobody; } }
        }
    }
}
"""


def _instance(root: str) -> Instantiation:
    world = Instantiation(Program(ir.resolve([ir.parse(PARTS, "t.sysml")])), root)
    world.run()
    return world


def test_a_send_to_this_goes_to_the_sending_objects_own_machine() -> None:
    world = _instance("Parts::Selfie")
    (obj,) = world.objects
    assert (obj.machines[0].final_state(), world.slots(obj)["got"]) == ("armed", "1")


def test_two_parts_signal_each_other_by_part_name() -> None:
    world = _instance("Parts::Pair")
    by_path = {o.path: o for o in world.objects}
    assert by_path["pinger"].machines[0].final_state() == "done"
    assert by_path["echo"].machines[0].final_state() == "answered"
    assert world.slots(by_path["echo"])["heard"] == "1"
    assert world.slots(by_path["pinger"])["got"] == "1"


def test_a_send_to_a_name_no_object_answers_to_is_refused_naming_it() -> None:
    with pytest.raises(MachineError, match=r"send \.\.\. to nobody: no object of the instance is named 'nobody'"):
        _instance("Parts::Lonely")


def test_a_relay_passes_a_token_along_and_a_performed_action_sends_to_its_own_machine() -> None:
    world = _instance("Parts::Chain")
    by_path = {o.path: o for o in world.objects}
    # first -> next (addressed), next -> last (addressed): the token reaches last once, through next
    assert world.slots(by_path["next"])["passed"] == "1"
    assert world.slots(by_path["last"])["got"] == "1"
    # the action `first` performs sends Ping to this: the part's own machine takes it
    assert (by_path["first"].machines[0].final_state(), world.slots(by_path["first"])["woke"]) == ("t", "1")


SHOP = """
package Shops {
    private import ScalarValues::*;
    item def Order { attribute qty : Integer; }
    state Shop {
        attribute served : Integer = 0;
        entry; then open;
        state open;
        transition first open accept o : Order if o.qty > 0 do assign served := served + o.qty then open;
    }
}
"""


def test_a_guard_reads_the_occurrence_its_trigger_accepted() -> None:
    run = machine(SHOP, "Shops::Shop")
    for e in ("Order(qty=3)", "Order(qty=0)", "Order(qty=4)"):
        run.send(parse_send(e))
    run.run_to_end()
    assert run.outputs()["served"] == "7"
    assert [e.name for e in run.unmatched] == ["Order"]  # the empty order: no guard held


STATION = """
package Stations {
    attribute def Ping; attribute def Done;
    state Station {
        entry; then station;
        state station {
            entry; then busy;
            state busy { defer Ping; }
            state idle;
            state served;
            transition first busy accept Done then idle;
            transition first idle accept Ping then served;
        }
        state away;
        transition first station accept Ping then away;
    }
}
"""


def test_an_inner_state_deferring_an_event_holds_it_back_from_its_enclosing_states_transitions() -> None:
    run = machine(STATION, "Stations::Station")
    run.send(parse_send("Ping"))
    run.run_to_end()
    assert run.final_state() == "busy"  # deferred: `station -> away` does not take it
    run.send(parse_send("Done"))
    run.run_to_end()
    assert run.final_state() == "served"  # released on leaving busy: idle's own transition is innermost


PLANT = """
package Plant {
    private import ScalarValues::*;
    item def Open;
    port def Cmd { out item open : Open; }
    part def Controller {
        port out1 : Cmd;
        exhibit state life {
            entry; then start;
            state start { entry send new Open() via out1; }
        }
    }
    part def Valve {
        attribute opened : Integer := 0;
        port inp : ~Cmd;
        exhibit state life {
            entry; then shut; state shut;
            state open { entry { assign opened := opened + 1; } }
            transition first shut accept Open via inp then open;
        }
    }
    part def Rig {
        part ctl : Controller;
        part main : Valve;
        part spare : Valve;
        connect ctl.out1 to main.inp;
    }
}
"""


def test_a_message_sent_via_a_port_goes_over_its_connection_only() -> None:
    world = Instantiation(Program(ir.resolve([ir.parse(PLANT, "t.sysml")])), "Plant::Rig")
    world.run()
    by_path = {o.path: o for o in world.objects}
    assert world.slots(by_path["main"])["opened"] == "1"
    assert world.slots(by_path["spare"])["opened"] == "0"  # not connected: it hears nothing


LAUNCH = """
package Launch {{
    private import ScalarValues::*;
    private import SI::*;
    state Launch {{
        attribute window : Real = 40.0;
        entry; then armed;
        state armed;
        state launched;
        transition first armed accept at {at} then launched;
    }}
}}
"""


def test_accept_at_an_instant_fires_when_the_clock_reaches_it() -> None:
    run = machine(LAUNCH.format(at="window"), "Launch::Launch")
    run.advance(Fraction(39))
    assert run.final_state() == "armed"
    run.advance(Fraction(1))
    assert run.final_state() == "launched"


def test_accept_at_a_duration_is_refused_at_submission_naming_the_trigger() -> None:
    with pytest.raises(StateMachineError, match="'accept at' takes a time instant"):
        machine(LAUNCH.format(at="40 [s]"), "Launch::Launch")


BOXED = """
package Boxed {
    private import ScalarValues::*;
    item def Go; item def Query; item def Ack;
    port def Out { out item q : Query; in item a : Ack; }
    part def Asker {
        port link : Out;
        ref item last : Ack[0..1];
        exhibit state life {
            entry; then idle;
            state idle;
            state asking {
                do action ask {
                    first start;
                    then action put { send new Query() via link; }
                    then action hear accept a : Ack via link;
                    then action keep { assign last := hear.a; }
                    then done;
                }
            }
            state answered;
            transition first idle accept Go then asking;
            transition first asking then answered;
        }
    }
    part def Box { port link : Out; part inner : Asker; bind link = inner.link; }
    part def Server {
        port cmd : ~Out;
        exhibit state life {
            entry; then idle; state idle; state served;
            transition first idle accept Query via cmd do send new Ack() via cmd then served;
        }
    }
    part def Rig { part box : Box; part server : Server; connect box.link to server.cmd; }
}
"""


def test_an_object_sent_its_own_event_asks_through_a_delegated_port_and_keeps_the_answer() -> None:
    world = Instantiation(Program(ir.resolve([ir.parse(BOXED, "t.sysml")])), "Boxed::Rig")
    world.send("box.inner", parse_send("Go"))
    world.run()
    by_path = {o.path: o for o in world.objects}
    inner = by_path["box.inner"]
    assert inner.machines[0].final_state() == "answered"
    assert world.slots(inner)["last"].startswith("instance#")  # an optional item: empty until assigned
    assert by_path["server"].machines[0].final_state() == "served"


def test_an_event_for_an_object_that_is_not_there_is_refused() -> None:
    world = Instantiation(Program(ir.resolve([ir.parse(BOXED, "t.sysml")])), "Boxed::Rig")
    with pytest.raises(MachineError, match=r"no object of the instance is at 'box\.outer'"):
        world.send("box.outer", parse_send("Go"))
    with pytest.raises(MachineError, match="box exhibits no state machine"):
        world.send("box", parse_send("Go"))


SELF_ACTION = """
package Selves {
    attribute def Ping;
    action echo {
        first start;
        then action s { send new Ping() to this; }
        then action r accept Ping;
        then done;
    }
}
"""


def test_an_action_sending_to_this_is_taken_by_its_own_accept() -> None:
    """`this` in an action no object performs is the performance itself: its accept takes the message
    (it used to wait for a receiver named `this`, a deadlock)."""
    run = Program(ir.resolve([ir.parse(SELF_ACTION, "t.sysml")])).start_action("Selves::echo")
    run.run_to_end()
    assert run.finished and run.error is None


LOADER = """
package Loader {
    private import ScalarValues::*;
    attribute def Resume;
    state Loader {
        attribute started : Integer = 0;
        attribute finished : Integer = 0;
        entry; then loading;
        state loading {
            do action {
                action begin assign started := 1;
                then action wait accept Resume;
                then action finish assign finished := 1;
            }
        }
        state loaded;
        transition first loading then loaded;
    }
}
"""


def test_an_anonymous_do_runs_the_statement_each_action_usage_is_written_as() -> None:
    """`action begin assign ...;` and `action wait accept E;` among an anonymous do's statements are
    that assignment and that accept (they ran as empty nodes: the do ended at once)."""
    run = machine(LOADER, "Loader::Loader")
    run.run_to_end()
    assert (run.final_state(), run.outputs()["started"], run.outputs()["finished"]) == ("loading", "1", "0")
    run.send(parse_send("Resume"))
    run.run_to_end()
    assert (run.final_state(), run.outputs()["finished"]) == ("loaded", "1")
