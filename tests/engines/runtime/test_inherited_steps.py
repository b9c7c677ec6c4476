"""Inherited and redefined action steps, and step multiplicities, on models written for them.

Expected answers follow the KerML/SysML rules (behavior-semantic-oracle.md, "A specialized action
performs its inherited steps..." and "Repeated action steps and shared writes"): a specialization
and a typed usage perform the general's steps and successions; a redefining step stands where the
redefined one stood, keeps its members and type, and its multiplicity unless it states its own; a
step `[n]` is n performances unordered among themselves, `[0]` none.
"""

from __future__ import annotations

import pytest

import ir
from engines.check import check
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from ir.errors import LoweringError

PLANT = """
package plant {
    private import ScalarValues::*;

    // Each step appends its code to `log`: the final log spells the order the steps ran in.
    action def Process {
        attribute log : Integer = 0;
        first start then prepare;
        action prepare { assign log := log * 10 + 1; }
        then work;
        action work { assign log := log * 10 + 2; }
        then finish;
        action finish { assign log := log * 10 + 3; }
        then done;
    }

    // Redefines `work`: its own check joins the inherited one, at the same place in the flow.
    action def Maintenance :> Process {
        action :>> work { assign log := log * 10 + 4; }
    }

    // A step of its own no succession orders: it runs before, between or after the inherited ones.
    action def Overhaul :> Process {
        action clean { assign log := log * 10 + 9; }
    }

    // Replaces `work` outright by a step of the same name: nothing of the inherited one is kept.
    action def Shortcut :> Process {
        action work { assign log := log * 10 + 7; }
    }

    action def Base { attribute n : Integer = 0; action bump { assign n := n + 1; } }
    action def Left :> Base { action left { assign n := n + 10; } }
    action def Right :> Base { action right { assign n := n + 100; } }
    action def Both :> Left, Right;

    action nightly : Maintenance;

    // A typed usage with a body of its own: it redefines steps of the action it is typed by.
    action quick : Process { action :>> work[0]; }
    action def Line {
        first start then service;
        action service : Process { action :>> finish[2]; }
        then done;
    }
    action def Extra {
        first start then service;
        action service : Process { action polish { assign log := log * 10 + 5; } }
        then done;
    }
}
"""

PACKING = """
package packing {
    private import ScalarValues::*;

    action def PackBatch {
        attribute weighed : Integer = 0;
        attribute mass : Integer = 0;
        first start then weigh;
        action weigh[3] { assign weighed := weighed + 1; assign mass := mass + 250; }
        then done;
    }
    action def PackCrate :> PackBatch {
        attribute sealed : Boolean = false;
        action :>> weigh[4];
    }
    action def DryRun :> PackBatch { action :>> weigh[0]; }
    action def Heavy :> PackBatch { action :>> weigh { assign mass := mass + 50; } }
    action def Pallet :> PackCrate { action :>> weigh { assign mass := mass + 1; } }

    // Two unordered tallies, each reading the count at its start and writing it back one higher.
    action def Tally {
        attribute count : Integer = 0;
        action tick[2] { attribute seen : Integer = count; assign count := seen + 1; }
    }

    // An inspection whose two checks no succession orders: the report follows both.
    action def Shift {
        attribute checks : Integer = 0;
        attribute report : Integer = 0;
        first start then inspect;
        action inspect {
            action valves { assign checks := checks + 1; }
            action pumps { assign checks := checks + 10; }
        }
        then action file { assign report := checks; }
        then done;
    }

    // Two shifts of two checks each, unordered: every check of both lands.
    action def Rounds {
        attribute checks : Integer = 0;
        action round[2] {
            action valves { assign checks := checks + 1; }
            action pumps { assign checks := checks + 10; }
        }
    }

    action def Idle {
        attribute c : Integer = 0;
        action never[0] { assign c := c + 1; }
        action once { assign c := c + 5; }
    }
}
"""


def _program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "t.sysml")]))


def _run(text: str, action: str) -> dict[str, str]:
    run = _program(text).start_action(action)
    run.run_to_end()
    return run.outputs()


def _explored(text: str, action: str, feature: str) -> set[str]:
    result = explore(_program(text), action, Bounds(runs=20_000))
    assert result.verdict is Verdict.COMPLETE, result.incomplete
    assert all(o.error is None for o in result.outcomes)
    return {dict(o.values)[feature] for o in result.outcomes}


def _checked(text: str, action: str, feature: str) -> set[str]:
    """The values the check finds `feature` ending with, reduced and unreduced (which must agree)."""
    found = []
    for reduce in (True, False):
        result = check(_program(text), action, Bounds(depth=2_000, states=50_000), reduce=reduce)
        assert result.verdict in (Verdict.EXHAUSTIVE, Verdict.DIVERGENT), result.verdict
        divergent = dict(result.divergent)
        if feature in divergent:
            found.append({v for v, _ in divergent[feature]})
        else:
            found.append({dict(o.values)[feature] for o in result.outcomes})
    assert found[0] == found[1]
    return found[0]


# ---------------------------------------------------------------- specialization and redefinition


@pytest.mark.parametrize(("action", "log"), [
    ("plant::Process", "123"),
    ("plant::Maintenance", "1423"),  # the redefining step's own statement first, by convention
    ("plant::Shortcut", "173"),
    ("plant::nightly", "1423"),  # a typed usage performs its type's steps as its own
])
def test_a_specialization_performs_the_inherited_steps_in_the_inherited_order(action: str, log: str) -> None:
    assert _run(PLANT, action) == {"log": log}


def test_a_redefined_step_keeps_its_place_between_the_inherited_successions() -> None:
    # prepare before work before finish; only the two statements of `work` are unordered
    assert _explored(PLANT, "plant::Maintenance", "log") == {"1423", "1243"}
    assert _checked(PLANT, "plant::Maintenance", "log") == {"1423", "1243"}


def test_an_own_step_no_succession_orders_runs_anywhere_among_the_inherited_ones() -> None:
    orders = {"9123", "1923", "1293", "1239"}
    assert _run(PLANT, "plant::Overhaul")["log"] in orders
    assert _explored(PLANT, "plant::Overhaul", "log") == orders
    assert _checked(PLANT, "plant::Overhaul", "log") == orders


def test_a_diamond_performs_the_common_step_once() -> None:
    assert _run(PLANT, "plant::Both") == {"n": "111"}
    assert _explored(PLANT, "plant::Both", "n") == {"111"}


def test_the_lowered_specialization_has_one_node_per_step_and_the_inherited_successions() -> None:
    program = _program(PLANT)
    graph = program.graph(program.action("plant::Maintenance"))
    names = [n.name for n in graph.nodes]
    assert names.count("work") == 1
    edges = {(graph.nodes[e.source].name, graph.nodes[e.target].name) for e in graph.edges}
    assert {("start", "prepare"), ("prepare", "work"), ("work", "finish"), ("finish", "done")} <= edges


def test_a_typed_usage_with_a_body_redefines_the_steps_of_its_type() -> None:
    assert _run(PLANT, "plant::quick") == {"log": "13"}  # work[0]: never performed, finish still follows
    # finish[2] after the inherited plain `then finish;`: an end of a repeated step left unwritten, which
    # the oracle refuses ("Repeated action steps and shared writes"); this ran it as a fan-out, 1233
    with pytest.raises(LoweringError, match="action-step-order-unsatisfiable: the succession from work to finish"):
        _run(PLANT, "plant::Line")


def test_a_typed_step_with_a_step_of_its_own_performs_both() -> None:
    orders = {"5123", "1523", "1253", "1235"}
    assert _run(PLANT, "plant::Extra")["service.log"] in orders
    assert _explored(PLANT, "plant::Extra", "service.log") == orders


SEEDED = """
package p {
    private import ScalarValues::*;
    action def Process {
        attribute log : Integer default = 0;
        first start then prepare;
        action prepare { assign log := log * 10 + 1; }
        then done;
    }
    action def Hot :> Process { attribute :>> log = 9; }  // a redefined feature's own initial value
    action def Chained :> Process {  // its own succession from an inherited step
        succession prepare then tail;
        action tail { assign log := log * 10 + 3; }
    }
}
"""


@pytest.mark.parametrize(("action", "log"), [("p::Hot", "91"), ("p::Chained", "13")])
def test_own_features_and_successions_reach_the_inherited_steps(action: str, log: str) -> None:
    assert _run(SEEDED, action) == {"log": log}
    assert _explored(SEEDED, action, "log") == {log}


# ---------------------------------------------------------------- multiplicity


@pytest.mark.parametrize(("action", "outputs"), [
    ("packing::PackBatch", {"weighed": "3", "mass": "750"}),
    ("packing::PackCrate", {"weighed": "4", "mass": "1000", "sealed": "false"}),  # own count narrows
    ("packing::DryRun", {"weighed": "0", "mass": "0"}),  # [0]: no performance, `done` still reached
    ("packing::Heavy", {"weighed": "3", "mass": "900"}),  # the redefined [3] governs: 3 x (250 + 50)
    ("packing::Pallet", {"weighed": "4", "mass": "1004"}),  # two levels: PackCrate's [4] governs
    ("packing::Shift", {"checks": "11", "report": "11"}),
    ("packing::Rounds", {"checks": "22"}),
    ("packing::Idle", {"c": "5"}),
])
def test_a_step_with_multiplicity_is_performed_that_many_times(action: str, outputs: dict[str, str]) -> None:
    got = _run(PACKING, action)
    assert {k: got[k] for k in outputs} == outputs


def test_the_performances_of_a_repeated_step_are_unordered_among_themselves() -> None:
    # each tick reads the count at its start: both may read 0 before either writes
    assert _explored(PACKING, "packing::Tally", "count") == {"1", "2"}
    assert _checked(PACKING, "packing::Tally", "count") == {"1", "2"}


@pytest.mark.parametrize("action", ["packing::PackCrate", "packing::Rounds", "packing::Shift"])
def test_commuting_repeated_performances_reach_one_outcome(action: str) -> None:
    feature = "mass" if action == "packing::PackCrate" else "checks"
    expected = _run(PACKING, action)[feature]
    assert _checked(PACKING, action, feature) == {expected}


def test_a_repeated_step_trace_shows_every_performance_as_a_token() -> None:
    run = _program(PACKING).start_action("packing::PackBatch")
    run.run_to_end()
    assert run.trace[:2] == ["step 1: token 1@weigh", "step 2: token 1@weigh, token 2@weigh, token 3@weigh"]
    assert sum(line == "stmt assign weighed" for line in run.trace) == 3


LOOPED = """
package line {
    private import ScalarValues::*;
    // Each pass of the loop performs its three weighings; the skipped check never runs.
    action def Shift {
        attribute n : Integer = 0;
        first start then work;
        action work {
            for i in 1..2 {
                action weigh[3] { assign n := n + 1; }
                action recheck[0] { assign n := n + 100; }
                assign n := n + 10;
            }
        }
        then done;
    }
    action def Gate {
        attribute n : Integer = 0;
        attribute open : Boolean = true;
        first start then work;
        action work {
            if open {
                action weigh[3] { assign n := n + 1; }
                action skip[0] { assign n := n + 100; }
            }
        }
        then done;
    }
}
"""


@pytest.mark.parametrize(("action", "n"), [("line::Shift", "26"), ("line::Gate", "3")])
def test_a_step_with_multiplicity_in_a_loop_or_branch_is_performed_that_many_times(action: str, n: str) -> None:
    assert _run(LOOPED, action)["n"] == n
    assert _explored(LOOPED, action, "n") == {n}
    assert _checked(LOOPED, action, "n") == {n}


# ---------------------------------------------------------------- refusals


def test_a_range_multiplicity_on_a_step_is_refused_with_where() -> None:
    text = PACKING.replace("action weigh[3]", "action weigh[1..3]")
    with pytest.raises(ir.SysmlError, match=r"weigh\[1\.\.3\] names no fixed number of performances"):
        _run(text, "packing::PackBatch")


def test_a_cyclic_specialization_is_refused() -> None:
    text = """package p {
        action def A :> B { action a; }
        action def B :> A { action b; }
    }"""
    with pytest.raises(ir.SysmlError, match="specializes itself"):
        _run(text, "p::A")


def test_redefining_a_step_the_general_lacks_is_refused_at_resolution() -> None:
    text = PLANT.replace("action :>> work {", "action :>> wrok {")
    with pytest.raises(ir.ResolveError, match="wrok"):
        ir.resolve([ir.parse(text, "t.sysml")])


# A pump controller's features redefined in its specializations: restated by name, renamed, given a
# new initial value, an input's default restated; a tank whose specialization restates its level.
PUMPS = """package pumps {
    private import ScalarValues::*;
    action def Pump {
        attribute rate : Integer = 4;
        attribute limit : Integer default := 10;
        in attribute boost : Integer = 2;
    }
    action renamed : Pump {
        attribute r :>> rate;
        attribute out1 : Integer := 0;
        first start;
        then action a { assign out1 := r + rate; }
        then done;
    }
    action restated : Pump {
        attribute :>> limit;
        attribute out2 : Integer := 0;
        first start;
        then action a { assign out2 := limit + 1; }
        then done;
    }
    action revalued : Pump {
        attribute :>> limit := 20;
        attribute out3 : Integer := 0;
        first start;
        then action a { assign out3 := limit; }
        then done;
    }
    action input : Pump {
        in attribute :>> boost;
        attribute out4 : Integer := 0;
        first start;
        then action a { assign out4 := boost * 10; }
        then done;
    }
    part def Tank { attribute level : Integer = 5; attribute cap : Integer = 9; }
    part def BigTank :> Tank { attribute :>> level; attribute cap : Integer = 50; }
    part tank : BigTank;
    action gauge {
        attribute level : Integer := 0;
        attribute cap : Integer := 0;
        first start;
        then action a { assign level := tank.level; assign cap := tank.cap; }
        then done;
    }
}"""


@pytest.mark.parametrize(("action", "feature", "value"), [
    ("pumps::renamed", "out1", "8"),  # r is rate, which holds its `= 4`
    ("pumps::restated", "out2", "11"),
    ("pumps::revalued", "out3", "20"),  # its own value replaces the one it redefines
    ("pumps::input", "out4", "20"),  # the default of the input it restates
    ("pumps::gauge", "level", "5"),  # a part def's feature, from the definition its own specializes
    ("pumps::gauge", "cap", "50"),
])
def test_a_redefinition_stating_no_value_keeps_the_value_it_redefines(action: str, feature: str, value: str) -> None:
    """KerML: a redefining feature specializes the one it redefines, so it holds what that one is bound to
    unless it states a value of its own. `attribute y :>> base;` had held no value (a read of it, or
    `out1 := r + rate`, failed), and a part def's features reached its usage only from the definition it is
    typed by, not from the ones that definition specializes."""
    assert _run(PUMPS, action)[feature] == value
