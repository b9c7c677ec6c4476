"""k-induction (stage 4): a bounded `no violation within k moves` made `proved, unbounded` when the
property is inductive over the structural invariant, and every refusal printed with the bounded
verdict kept, never a proof. Each expectation is derived in the comments."""

from __future__ import annotations

import re
from pathlib import Path

from engines.framework import Strength
from engines.smt.answer import Answer
from engines.smt.answer import solve as _solve
from engines.witness import replay_run, unreproduced
from tests.engines.smt.models import program


def solve(*args: object, **kwargs: object) -> Answer:
    kwargs.setdefault("solver_seconds", 600.0)
    return _solve(*args, **kwargs)  # type: ignore[arg-type]


# A counter stepped by a merge loop. One pass is three moves (the merge, the test, the step), so 8 moves
# cannot finish it. `AtMostFive` (i <= 5) is inductive: a step to 6 needs the token at `inc` with i = 5,
# whose only predecessor is the test with i = 5, which routes to done. `NotSeven` (i != 7) holds on
# every run (i is even) but is not inductive: from an odd i that no run reaches, passes that keep it
# arrive at 7 after any number of moves. `Even` (i % 2 == 0) is inductive, and implies NotSeven.
COUNTER = """package counter {
    private import ScalarValues::*;
    action def Count {
        attribute i : Integer := 0;
        first start;
        then merge m;
        then decide test;
            if i < 5 then inc;
            else done;
        action inc { assign i := i + 1; }
        then m;
    }
    action def Evens {
        attribute i : Integer := 0;
        first start;
        then merge m;
        then decide test;
            if i < 10 then inc;
            else done;
        action inc { assign i := i + 2; }
        then m;
    }
    requirement AtMostFive { i <= 5 }
    requirement AtMostThree { i <= 3 }
    requirement NotSeven { i != 7 }
    requirement Even { i % 2 == 0 }
}
"""

# A loop that forks a worker each round and never joins it: the workers may pile up at `worker`, so
# no finite count covers them from an arbitrary state; the step is refused naming the fork.
SPAWN = """package spawn {
    private import ScalarValues::*;
    action def Spawn {
        attribute n : Integer := 0;
        attribute jobs : Integer := 0;
        first start;
        then merge m;
        then decide more;
            if n < 3 then f;
            else done;
        fork f;
            then worker;
            then again;
        action worker { assign jobs := jobs + 1; }
        action again { assign n := n + 1; }
        then m;
    }
    requirement FewJobs { jobs <= 3 }
    requirement OneJob { jobs <= 1 }
}
"""


def test_a_loop_invariant_is_proved_unbounded() -> None:
    prog = program(COUNTER)
    bounded = solve(prog, "counter::Count", "holds", properties=("counter::AtMostFive",), depth=8)
    assert bounded.verdict == "no violation within 8 moves" and bounded.strength is Strength.BOUNDED
    proved = solve(prog, "counter::Count", "holds", properties=("counter::AtMostFive",), depth=8, induction=True)
    assert proved.verdict == "proved, unbounded (k-induction at 8)" and proved.strength is Strength.PROVED
    assert proved.induction and proved.closed == 2
    assert any(note.startswith("k-induction closed at 2") for note in proved.notes)


def test_a_property_true_of_every_run_but_not_inductive_is_reported_so() -> None:
    prog = program(COUNTER)
    answer = solve(prog, "counter::Evens", "holds", properties=("counter::NotSeven",), depth=8, induction=True)
    assert answer.verdict == "no violation within 8 moves" and answer.strength is Strength.BOUNDED
    assert not answer.induction
    assert answer.notes[-1].startswith("k-induction: the step did not close up to 8 moves: the property is not"
                                       " inductive")
    # strengthened by the invariant it follows from, it closes
    both = solve(prog, "counter::Evens", "holds", properties=("counter::NotSeven", "counter::Even"), depth=8,
                 induction=True)
    assert both.verdict == "proved, unbounded (k-induction at 8)"


def test_a_fork_on_a_cycle_is_refused_naming_it_and_the_bound_stays() -> None:
    answer = solve(program(SPAWN), "spawn::Spawn", "holds", properties=("spawn::FewJobs",), depth=6,
                   induction=True)
    assert answer.verdict == "no violation within 6 moves" and not answer.induction
    assert answer.notes[-1] == ("k-induction: fork 'f' on a cycle can grow the token population without bound,"
                                " not inductive")


def test_induction_is_not_needed_where_every_schedule_ends_within_k() -> None:
    prog = program(COUNTER)
    answer = solve(prog, "counter::Count", "holds", properties=("counter::AtMostFive",), depth=40, induction=True)
    assert answer.verdict == "proved" and not answer.induction
    assert answer.notes[-1].startswith("k-induction not needed: every schedule ends within 40 moves")


def test_a_property_false_beyond_the_bound_is_never_proved_by_the_step() -> None:
    """AtMostThree (i <= 3) holds for 8 moves (i reaches 2) but not after 11: the step must not close,
    and the verdict stays the bounded one; with depth enough the base finds the violation."""
    prog = program(COUNTER)
    answer = solve(prog, "counter::Count", "holds", properties=("counter::AtMostThree",), depth=8, induction=True)
    assert answer.verdict == "no violation within 8 moves" and not answer.induction
    assert "the property is not inductive" in answer.notes[-1]
    violated = solve(prog, "counter::Count", "holds", properties=("counter::AtMostThree",), depth=13,
                     induction=True)
    assert violated.verdict == "violated" and violated.violations[0][2] == 13


def test_a_violation_under_a_fork_on_a_cycle_is_found_by_the_base() -> None:
    """Two rounds make jobs 2 after 10 moves at the soonest (start, m, more, f, worker, again, m, more, f,
    worker); the solver's schedule may take the others first."""
    prog = program(SPAWN)
    answer = solve(prog, "spawn::Spawn", "holds", properties=("spawn::OneJob",), depth=12,
                   induction=True)
    assert answer.verdict == "violated" and 10 <= answer.violations[0][2] <= 12
    witness = answer.witnesses[0]
    run = replay_run(prog, "spawn::Spawn", witness)
    assert unreproduced(prog, run, witness) is None


# Non-sensitivity past the bound. `Tally` counts i to 50 by a body loop (two moves a pass) while `note`
# races it, then `record` copies i to total after `count` ends: every schedule ends with total 50, but
# none within 40 moves, so the bounded query says only `no sensitivity found within 40 moves`. The
# interpreter's run ends with 50; `a completed run has total 50` is inductive: a run completing with
# another total must have left the loop with i != 50, and a window of passes pins the exit to i = 50.
# `Loose` writes total in the loop's own body, whose statements are unordered: `assign total := i`
# may run at any pass, total ends 0..50 (the explicit check finds all 51), and the step must not close.
TALLY = """package counting {
    private import ScalarValues::*;
    action def Tally {
        attribute i : Integer := 0;
        attribute total : Integer := 0;
        attribute log : Integer := 0;
        first start;
        then fork f;
        then count;
        then note;
        action count { while i < 50 { assign i := i + 1; } }
        succession count then record;
        action record { assign total := i; }
        action note { assign log := log + 1; }
        join j;
        succession record then j;
        succession note then j;
        succession j then done;
    }
    action def Loose {
        attribute i : Integer := 0;
        attribute total : Integer := 0;
        attribute log : Integer := 0;
        first start;
        then fork f;
        then count;
        then note;
        action count {
            while i < 50 { assign i := i + 1; }
            assign total := i;
        }
        action note { assign log := log + 1; }
        join j;
        succession count then j;
        succession note then j;
        succession j then done;
    }
    action def Dose {
        in attribute amount : Integer;
        attribute i : Integer := 0;
        attribute total : Integer := 0;
        first start;
        then action count { while i < 50 { assign i := i + 1; } }
        then action record { assign total := i + amount; }
        then done;
    }
}
"""


def test_non_sensitivity_past_the_bound_is_proved_by_induction() -> None:
    from engines.check import check

    prog = program(TALLY)
    bounded = solve(prog, "counting::Tally", "sensitive", diverge=("total",), depth=40)
    assert bounded.verdict == "no sensitivity found within 40 moves" and bounded.reached
    proved = solve(prog, "counting::Tally", "sensitive", diverge=("total",), depth=40, induction=True)
    assert proved.verdict == "not sensitive, unbounded (k-induction at 40)", proved.notes
    assert proved.strength is Strength.PROVED and proved.induction and proved.closed is not None
    assert any("ends with total = 50" in n for n in proved.notes)
    searched = check(prog, "counting::Tally", diverge=("total",))  # the referee: every schedule, explicitly
    assert not searched.divergent and {dict(o.values)["total"] for o in searched.outcomes} == {"50"}


def test_a_sensitivity_past_the_bound_is_never_proved_away() -> None:
    from engines.check import check

    prog = program(TALLY)
    answer = solve(prog, "counting::Loose", "sensitive", diverge=("total",), depth=40, induction=True)
    assert answer.verdict == "no sensitivity found within 40 moves" and answer.strength is Strength.BOUNDED
    assert any("k-induction: the step did not close" in n for n in answer.notes), answer.notes
    searched = check(prog, "counting::Loose", diverge=("total",))
    ((_, values),) = searched.divergent
    assert len(values) == 51  # 0 .. 50: the induction was right not to close


def test_non_sensitivity_over_a_free_input_stays_bounded_and_says_why() -> None:
    answer = solve(program(TALLY), "counting::Dose", "sensitive", diverge=("total",), depth=40,
                   inputs=("amount",), induction=True)
    assert answer.verdict == "no sensitivity found within 40 moves"
    assert any("the free inputs admit more than 16 valuations" in n for n in answer.notes)


def test_non_sensitivity_within_the_bound_needs_no_induction() -> None:
    answer = solve(program(COUNTER), "counter::Count", "sensitive", diverge=("i",), depth=20, induction=True)
    assert answer.verdict == "not sensitive"
    assert any("k-induction: not needed" in n for n in answer.notes)


# With free inputs whose domains and assumptions admit few valuations (tests/engines/smt/fresh/dosing.sysml),
# the step is asked once per valuation, the inputs no move writes held fixed through it. Derivations:
# dosing::Pump: the fill runs one unit a pass to 20 (mild) or 30 (strong), two moves a pass, so no run
# ends within 20 moves; the record adds 5 for a rinse; the monitor writes only checks. So total ends
# 20, 25, 30 or 35 by the valuation, on every schedule. As for Tally, a state the loop leaves below the
# fill is no end, and a chain of 11 moves without completing must run passes from below it, so the step
# closes. dosing::Extra: 20 passes, total = 20 + extra, for extra in 0 .. 2 under Few.
DOSING = (Path(__file__).parent / "fresh" / "dosing.sysml").read_text()
DOSES = {("Strength::mild", "false"): "20", ("Strength::mild", "true"): "25",
         ("Strength::strong", "false"): "30", ("Strength::strong", "true"): "35"}


def _with_inputs(text: str, values: dict[str, str]) -> str:
    """The model with the inputs given these values, as a modeler fixing them would write it."""
    for name, value in values.items():
        text = re.sub(rf"(in attribute {name} : \w+);", rf"\1 := {value};", text)
    return text


def test_non_sensitivity_over_few_input_valuations_is_proved_by_induction_per_valuation() -> None:
    from engines.check import check

    answer = solve(program(DOSING), "dosing::Pump", "sensitive", diverge=("total",), depth=20, induction=True)
    assert answer.verdict == "not sensitive, unbounded (k-induction at 20)", answer.notes
    assert answer.strength is Strength.PROVED and answer.closed is not None
    assert any("the free inputs admit 4 valuations" in n for n in answer.notes)
    stated = [n for n in answer.notes if n.startswith("with ")]
    assert stated == [f"with setting = {s}, rinse = {r}: every schedule that completes ends with total = {t}"
                      for (s, r), t in sorted(DOSES.items())]
    for (setting, rinse), total in DOSES.items():  # the referee: every schedule of each valuation, explicitly
        fixed = program(_with_inputs(DOSING, {"setting": setting, "rinse": rinse}))
        searched = check(fixed, "dosing::Pump", diverge=("total",))
        assert not searched.divergent and {dict(o.values)["total"] for o in searched.outcomes} == {total}


def test_an_assumption_bounding_an_integer_input_makes_it_few_valuations() -> None:
    prog = program(DOSING)
    answer = solve(prog, "dosing::Extra", "sensitive", diverge=("total",), depth=20, induction=True,
                   assumptions=("dosing::Few",))
    assert answer.verdict == "not sensitive, unbounded (k-induction at 20)", answer.notes
    assert [n for n in answer.notes if n.startswith("with ")] == [
        f"with extra = {e}: every schedule that completes ends with total = {20 + e}" for e in range(3)]
    unbounded = solve(prog, "dosing::Extra", "sensitive", diverge=("total",), depth=20, induction=True)
    assert unbounded.verdict == "no sensitivity found within 20 moves"
    assert unbounded.strength is Strength.BOUNDED
    assert any("the free inputs admit more than 16 valuations" in n for n in unbounded.notes)


# dosing::Sloppy copies in the loop's own body, whose statements are unordered: with a rinse the copy may
# run at any of the 31 points of the fill (total 5 .. 35), past the bound. The induction must not close.
def test_a_sensitivity_past_the_bound_over_an_input_is_never_proved_away() -> None:
    from engines.check import check

    answer = solve(program(DOSING), "dosing::Sloppy", "sensitive", diverge=("total",), depth=20, induction=True)
    assert answer.verdict == "no sensitivity found within 20 moves" and answer.strength is Strength.BOUNDED
    assert any("the step did not close" in n for n in answer.notes), answer.notes
    searched = check(program(_with_inputs(DOSING, {"rinse": "true"})), "dosing::Sloppy", diverge=("total",))
    ((_, values),) = searched.divergent
    assert {int(v) for v, _ in values} == set(range(5, 36))
