"""The smt engine's verdicts on our own models, each expected answer derived from the semantics
(tests/engines/smt/models.py), and the three rules: unknown is never unsat, a refusal is never a
proof (it comes before any query), and a sat model counts only once its witness replays."""

from __future__ import annotations

from engines.framework import Strength
from engines.smt.answer import Answer
from engines.smt.answer import solve as _solve
from engines.witness import parse_witness, replay_run, unreproduced
from tests.engines.smt import models
from tests.engines.smt.models import program


def solve(*args: object, **kwargs: object) -> Answer:
    """The engine's answer with a solver time no loaded machine reaches (a timeout is its own test)."""
    kwargs.setdefault("solver_seconds", 600.0)
    return _solve(*args, **kwargs)  # type: ignore[arg-type]


def _replays(prog: object, subject: str, witness_text: str) -> None:
    witness = parse_witness(witness_text)
    run = replay_run(prog, subject, witness)  # type: ignore[arg-type]
    assert unreproduced(prog, run, witness) is None  # type: ignore[arg-type]


def test_a_free_input_breaks_a_requirement_and_the_witness_names_it() -> None:
    prog = program(models.HEATER)
    answer = solve(prog, "ctl::Heat", "holds", properties=("ctl::NotTooHot",))
    assert answer.verdict == "violated" and answer.strength is Strength.WITNESSED
    assert answer.inputs == (("setpoint", "Integer (-2^63 .. 2^63-1)"),)
    (witness,) = answer.witnesses
    (name, value), = witness.inputs
    assert name == "setpoint" and int(value) > 30
    assert witness.text().index("input setpoint") < witness.text().index("step 1:")
    _replays(prog, "ctl::Heat", witness.text())


def test_an_assumption_narrows_the_input_to_a_proof() -> None:
    answer = solve(program(models.HEATER), "ctl::Heat", "holds", properties=("ctl::NotTooHot",),
                   assumptions=("ctl::Sane",))
    assert answer.verdict == "proved" and answer.strength is Strength.PROVED and not answer.reached
    assert answer.assumptions == ("ctl::Sane",)


def test_a_lost_update_is_sensitive_with_both_schedules_replayed() -> None:
    prog = program(models.BOOKING)
    answer = solve(prog, "booking::Race", "sensitive", diverge=("seats",))
    assert answer.verdict == "sensitive"
    ((feature, values),) = answer.divergent
    assert feature == "seats" and {v for v, _ in values} == {"0", "1"}
    for _, index in values:
        _replays(prog, "booking::Race", answer.witnesses[index - 1].text())
    assert answer.notes and "the schedules part at step" in answer.notes[0]


def test_an_atomic_decrement_is_not_sensitive() -> None:
    answer = solve(program(models.BOOKING), "booking::Atomic", "sensitive", diverge=("seats",))
    assert answer.verdict == "not sensitive" and answer.strength is Strength.PROVED


def test_fork_branches_writing_one_feature() -> None:
    prog = program(models.FORK)
    assert solve(prog, "forked::Write", "sensitive", diverge=("x",)).verdict == "sensitive"
    for name in ("leftRan", "rightRan"):
        assert solve(prog, "forked::Write", "sensitive", diverge=(name,)).verdict == "not sensitive"


def test_a_depth_short_of_completion_is_never_not_sensitive() -> None:
    answer = solve(program(models.FORK), "forked::Write", "sensitive", diverge=("leftRan",), depth=4)
    assert answer.verdict == "no sensitivity found within 4 moves" and answer.reached
    assert answer.strength is Strength.BOUNDED


def test_a_join_every_schedule_deadlocks_at_is_the_deadlock_not_a_proof() -> None:
    prog = program(models.DEADLOCK)
    answer = solve(prog, "stuck::Wait", "sensitive", diverge=("n",))
    assert answer.verdict == "violated"
    assert answer.violations[0][0] == "deadlock"
    _replays(prog, "stuck::Wait", answer.witnesses[0].text())
    assert solve(prog, "stuck::Wait", "holds").verdict == "violated"


def test_division_by_a_zero_input_is_a_run_error_with_its_input() -> None:
    prog = program(models.DIVIDE)
    answer = solve(prog, "pipe::Scale", "holds")
    assert answer.verdict == "violated" and answer.violations[0][0] == "fails"
    assert "division by zero" in answer.violations[0][1]
    assert answer.witnesses[0].inputs == (("d", "0"),)
    _replays(prog, "pipe::Scale", answer.witnesses[0].text())
    assert solve(prog, "pipe::Checked", "holds").verdict == "proved"


def test_a_decision_no_guard_holds_at_fails() -> None:
    answer = solve(program(models.DIVIDE), "pipe::NoBranch", "holds")
    assert answer.verdict == "violated" and "no branch of decision z holds" in answer.violations[0][1]


def test_a_merge_loop_longer_than_k_is_bounded_and_within_k_proved() -> None:
    prog = program(models.LOOPS)
    short = solve(prog, "loops::Count", "holds", properties=("loops::Bounded",), depth=8)
    assert short.verdict == "no violation within 8 moves" and short.strength is Strength.BOUNDED and short.reached
    full = solve(prog, "loops::Count", "holds", properties=("loops::Bounded",), depth=24)
    assert full.verdict == "proved" and not full.reached


def test_a_body_while_loop_runs_pass_by_pass() -> None:
    prog = program(models.LOOPS)
    answer = solve(prog, "loops::Pump", "outcomes", depth=30)
    assert answer.verdict == "complete"
    ((values, error, _),) = answer.outcomes
    assert error is None and dict(values) == {"level": "3", "strokes": "3"}


def test_an_enumeration_input_chosen_by_the_solver() -> None:
    prog = program(models.MODES)
    answer = solve(prog, "modes::Drive", "holds", properties=("modes::Limit",))
    assert answer.verdict == "violated"
    assert answer.witnesses[0].inputs == (("mode", "Mode::fast"),)
    _replays(prog, "modes::Drive", answer.witnesses[0].text())


# A sensitivity query's two copies of the run share the free inputs: the enumeration's solver sort is
# one for both copies (and for every query of the process), so an enumeration in the model refuses
# nothing there. speed is decided by the input alone: not sensitive.
def test_an_enumeration_input_in_a_sensitivity_query() -> None:
    answer = solve(program(models.MODES), "modes::Drive", "sensitive", diverge=("speed",))
    assert answer.verdict == "not sensitive", answer.reason
    assert [name for name, _ in answer.inputs] == ["mode"]



def test_a_construct_not_covered_is_refused_naming_node_and_construct() -> None:
    answer = solve(program(models.CALLS), "calls::Use", "holds")
    assert answer.verdict == "not covered" and answer.strength is Strength.NOT_COVERED
    # a recursion over a feature's value: its condition is the solver's to choose, so it cannot unroll
    assert answer.reason == "not covered: Halvings recursing on arguments the solver does not fix at node 'double'"
    assert answer.checks == 0 and not answer.witnesses


def test_unknown_is_never_unsat() -> None:
    # a product of two inputs compared with a prime's square: the solver may give up within 1 ms;
    # whatever it says, an unknown must read as not covered, never as proved
    text = models.HEATER.replace("requirement NotTooHot { temp <= 30 }",
                                 "requirement NotTooHot { setpoint * setpoint != 1000003 * 1000003 + temp - 15 }")
    answer = solve(program(text), "ctl::Heat", "holds", properties=("ctl::NotTooHot",), solver_seconds=0.001)
    assert answer.verdict in ("not covered", "violated")
    if answer.verdict == "not covered":
        assert answer.reason is not None and "undecided" in answer.reason


def test_an_input_naming_no_feature_is_an_input_error() -> None:
    import pytest

    from engines.smt.answer import InputError

    with pytest.raises(InputError, match="no feature 'nope'"):
        solve(program(models.HEATER), "ctl::Heat", "holds", inputs=("nope",))


def test_a_witness_input_naming_no_feature_is_refused_by_the_replay() -> None:
    import pytest

    from engines.errors import WitnessInputError

    prog = program(models.HEATER)
    answer = solve(prog, "ctl::Heat", "holds", properties=("ctl::NotTooHot",))
    text = answer.witnesses[0].text().replace("input setpoint =", "input setpoints =")
    with pytest.raises(WitnessInputError, match="no feature 'setpoints'"):
        replay_run(prog, "ctl::Heat", text)


def test_a_for_loop_over_an_input_range() -> None:
    prog = program(models.SUMS)
    unbounded = solve(prog, "sums::Sum", "holds", properties=("sums::NonNegative",), depth=12)
    assert unbounded.verdict == "no violation within 12 moves" and unbounded.reached
    few = solve(prog, "sums::Sum", "holds", properties=("sums::NonNegative",), assumptions=("sums::Few",), depth=12)
    assert few.verdict == "proved"
    small = solve(prog, "sums::Sum", "holds", properties=("sums::Small",), assumptions=("sums::Few",), depth=12)
    assert small.verdict == "violated"  # n = 3: 1 + 2 + 3 = 6 > 5
    assert small.witnesses[0].inputs == (("n", "3"),)
    _replays(prog, "sums::Sum", small.witnesses[0].text())


def test_a_product_past_the_interpreters_number_bound_fails_as_the_run_does() -> None:
    # The solver bounds exact arithmetic where the interpreter does: without it a loop squaring a
    # number had the solver multiply numbers of billions of digits, past its own timeout.
    too_large = program(models.growth(2000))
    for subject in ("num::Square", "num::Shrink"):
        answer = solve(too_large, subject, "holds")
        assert answer.verdict == "violated" and answer.violations[0][0] == "fails", subject
        assert "more than the 4,000 a number may have" in answer.violations[0][1]
        _replays(too_large, subject, answer.witnesses[0].text())
        assert solve(program(models.growth(1999)), subject, "holds").verdict == "proved", subject


def _plain_number(text: str) -> bool:
    """A value as a modeler writes one: a few digits before the point, at most three after."""
    whole, _, fraction = text.lstrip("-").partition(".")
    return len(whole) <= 6 and len(fraction.rstrip("0")) <= 3


def test_a_product_of_free_reals_is_proved_within_their_domain() -> None:
    # Unbounded, the solver broke `level == poured * 2.0` with rate = 10^-2001: the product's 4,001
    # digits fail the run, a witness about no model a modeler writes.
    prog = program(models.MIXER)
    answer = solve(prog, "mix::Steady", "holds", properties=("mix::Twice",), inputs=("rate", "scale"))
    assert answer.verdict == "proved", (answer.verdict, answer.reason, answer.violations)
    assert answer.inputs == (("rate", "Real (exact; 0 or 2^-63 .. 2^63-1 in magnitude)"),
                             ("scale", "Real (exact; 0 or 2^-63 .. 2^63-1 in magnitude)"))


def test_a_witness_over_free_reals_names_plain_values() -> None:
    prog = program(models.MIXER)
    broken = solve(prog, "mix::Steady", "holds", properties=("mix::Capped",), inputs=("rate", "scale"))
    assert broken.verdict == "violated" and broken.violations[0][0] == "property"
    values = dict(broken.witnesses[0].inputs)
    assert all(_plain_number(v) for v in values.values()), values
    assert float(values["rate"]) * float(values["scale"]) > 50  # 2 * rate * scale > 100
    _replays(prog, "mix::Steady", broken.witnesses[0].text())
    race = solve(prog, "mix::Race", "sensitive", diverge=("level",), inputs=("rate", "scale"))
    assert race.verdict == "sensitive"
    ((_, ends),) = race.divergent
    one, two = (float(v) for v, _ in ends)
    assert one != 0 and (two == 2 * one or one == 2 * two)  # rate*scale and twice it: the same inputs
    for witness in race.witnesses:
        assert all(_plain_number(v) for _, v in witness.inputs), witness.inputs
        _replays(prog, "mix::Race", witness.text())
