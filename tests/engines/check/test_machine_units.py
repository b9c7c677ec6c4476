"""A firing's units drawn one at a time (engines/runtime/states/units.py and moves.py): each answer is
the set of linearizations the semantics leaves open (the regions of a parallel state entered or left
as chains no succession orders against each other, a fork's branches, a do behavior's steps against
the entries of the firing that started it, completions in the order the entry drew), derived by hand
for the models of machines/units.sysml."""

from __future__ import annotations

from itertools import permutations

from engines.check.machine import check_machine
from engines.framework import Verdict
from engines.runtime import Script
from engines.runtime.states import start_machine
from tests.engines.check.test_machine_check import divergent, program, sends


def _logs(result: object, feature: str = "log") -> set[str]:
    return {v.strip('"') for v in divergent(result)[feature]}


def _interleavings(a: list[str], b: list[str]) -> set[str]:
    """Every merge of two chains, each kept in its order."""
    out: set[str] = set()
    for order in set(permutations([0] * len(a) + [1] * len(b))):
        ia, ib, words = iter(a), iter(b), []
        for side in order:
            words.append(next(ia) if side == 0 else next(ib))
        out.add("".join(words))
    return out


def test_the_motors_do_step_falls_anywhere_after_its_state_is_entered() -> None:
    # motor's chain enters spinning (no write) and starts its do behavior; display's chain writes
    # disp then lit; the step goes before, between or after them
    result = check_machine(program("units.sysml"), "Pump", Script(sends("Start")))
    assert result.verdict is Verdict.DIVERGENT
    assert _logs(result) == {"spin disp lit ", "disp spin lit ", "disp lit spin "}


def test_a_forks_branches_interleave_effect_by_entry_then_join() -> None:
    # branch a: its effect then fetch's entry; branch b: its effect then decode's entry; the join after
    result = check_machine(program("units.sysml"), "Pipeline", Script(sends("Go")))
    want = {log + "J" for log in _interleavings(["a ", "F "], ["b ", "D "])}
    assert len(want) == 6
    assert _logs(result) == want


def test_leaving_a_parallel_state_exits_its_regions_as_chains() -> None:
    # lock's chain: unlock; light's: off then dark (the nested state first); three merges
    result = check_machine(program("units.sysml"), "Door", Script(sends("Open")))
    assert _logs(result) == _interleavings(["unlock "], ["off ", "dark "])
    assert {dict(o.values)["finalState"] for o in result.outcomes} == {"closed"}


def test_completions_follow_the_order_the_entry_drew() -> None:
    # each region's start state completes as it is entered: the pool takes them in that order
    result = check_machine(program("units.sysml"), "Sensors")
    assert divergent(result) == {"code": ["12", "21"]}


def test_the_first_move_each_time_is_the_fixed_run() -> None:
    for name, events in (("Pump", ("Start",)), ("Pipeline", ("Go",)), ("Door", ("Open",)), ("Sensors", ())):
        prog = program("units.sysml")
        stepped = prog.start_driven(name, Script(sends(*events)))
        while not stepped.finished:
            moves = stepped.enabled_moves()
            if not moves:
                if not stepped.let_time_pass():
                    break
                continue
            stepped.apply(moves[0])
        whole = start_machine(prog, name)
        for event in sends(*events):
            whole.send(event)
        whole.run_to_end()
        assert stepped.outputs() == {**whole.outputs(), "finalState": whole.final_state(),
                                     "stateVisits": "[" + ", ".join(whole.visits) + "]"}, name


def test_a_dispatch_may_come_before_an_entry_not_run_to_completion_goes_down() -> None:
    # warming's entry sends Abort; Abort dispatched first leaves warming before heating is entered
    result = check_machine(program("held.sysml"), "Printer")
    assert divergent(result) == {"heats": ["0", "1"]}
    assert {dict(o.values)["finalState"] for o in result.outcomes} == {"off"}


def test_a_scoped_entry_lets_the_sibling_region_react_first() -> None:
    # loading's entry sends Ready; the belt's transition may come before clamp's entry or after it
    result = check_machine(program("held.sysml"), "Conveyor", Script(sends("Load")))
    assert divergent(result) == {"order": ["12", "21"]}
    assert {dict(o.values)["finalState"] for o in result.outcomes} == {"moving+clamp"}  # regions in name order


def test_an_entry_run_to_completion_goes_down_before_any_dispatch() -> None:
    result = check_machine(program("held.sysml"), "SteadyConveyor", Script(sends("Load")))
    assert result.verdict is Verdict.EXHAUSTIVE
    assert [dict(o.values)["order"] for o in result.outcomes] == ["12"]


def test_each_token_of_a_do_flow_is_a_move_the_dispatch_may_cut_after() -> None:
    # Stop cuts the flow before the zones, after either alone, or after both
    result = check_machine(program("dosteps.sysml"), "Sprinkler", Script(sends("Stop")))
    assert divergent(result) == {"wet": ["0", "1", "10", "11"]}


def test_a_do_flows_time_wait_and_a_timer_due_at_one_instant_are_drawn() -> None:
    # at 2 s the boil's next step and the timeout are both due: the timeout may cut the boil
    result = check_machine(program("dosteps.sysml"), "Kettle")
    assert _logs(result) == {"boiled timeout ", "timeout "}


def test_a_do_flow_woken_earlier_goes_first() -> None:
    result = check_machine(program("dosteps.sysml"), "QuickKettle")
    assert result.verdict is Verdict.EXHAUSTIVE
    assert [dict(o.values)["log"] for o in result.outcomes] == ['"boiled timeout "']


def test_a_typed_do_writes_back_over_a_sibling_entry_that_lands_inside_it() -> None:
    # gauge's +100 before stir binds turns (111), between binding and write-back (overwritten: 11), after (111)
    result = check_machine(program("typed.sysml"), "Mixer", Script(sends("Go")))
    assert divergent(result) == {"total": ["11", "111"]}


def test_a_dispatch_cuts_a_typed_do_before_its_write_back() -> None:
    result = check_machine(program("typed.sysml"), "Cutter", Script(sends("Stop")))
    assert divergent(result) == {"length": ["0", "11"]}


def test_a_do_behaviors_own_features_are_no_outcome_column() -> None:
    # the performance's `turns` ends with it: the outcomes hold the machine's features and finalState
    result = check_machine(program("typed.sysml"), "Cutter", Script(sends("Stop")))
    assert {k for o in result.outcomes for k, _ in o.values} == {"length", "finalState"}


def test_a_do_behaviors_loop_passes_and_block_statements_are_steps_of_their_own() -> None:
    # machines/passes.sysml: the other region's one step falls before, between or after them
    for machine in ("Loop", "Block"):
        result = check_machine(program("passes.sysml"), machine, Script(()))
        assert sorted(divergent(result)["log"]) == ["129", "192", "912"], machine
    # a while's passes each hold two statements, each a step: 9 falls anywhere among four writes
    # (n's increments write no log), so log is 912, 192 or 129 again
    result = check_machine(program("passes.sysml"), "Passes", Script(()))
    assert sorted(divergent(result)["log"]) == ["129", "192", "912"]
    # the fixed run keeps its rounds, a for whole in one (as state_concurrent_inline_do_bodies' golden: 1,2,4,...)
    run = start_machine(program("passes.sysml"), "Loop")
    run.run_to_end()
    assert run.machine_outputs()["log"] == "129"
