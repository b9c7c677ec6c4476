"""Runs that would recurse without end or build numbers without end stop with a typed error naming
what went too far: performances and calculations nested past their limit, numbers past MAX_DIGITS,
Reals past the floating-point range, ranges past MAX_SEQUENCE (a `for` walks any range lazily), Strings
past MAX_STRING."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import ir
from engines.errors import DivisionByZero, NestingTooDeep, NumberTooLarge, RunError
from engines.runtime import Program
from engines.runtime.limits import MAX_CALC_DEPTH, MAX_PERFORMANCE_DEPTH, chain_text
from engines.runtime.operators import MAX_DIGITS, MAX_STRING

CALCS = """
package Calcs {
    private import ScalarValues::*;
    calc def Forever { in n : Integer; return : Integer; Forever(n - 1) }
    calc def Factorial { in n : Integer; return : Integer; (if n <= 1 ? 1 else n * Factorial(n - 1)) }
    calc def Even { in n : Integer; return : Boolean; (if n == 0 ? true else Odd(n - 1)) }
    calc def Odd { in n : Integer; return : Boolean; (if n == 0 ? false else Even(n - 1)) }
    action NoBase { attribute x : Integer := 0; first start; then s; action s { assign x := Forever(3); } }
    action Deep { attribute x : Integer := 0; first start; then s; action s { assign x := Factorial(LIMIT); } }
    action Mutual { attribute x : Boolean := false; first start; then s; action s { assign x := Even(1001); } }
}
"""

PERFORMANCES = """
package Plant {
    private import ScalarValues::*;
    action def Ping { action pong : Pong; }
    action def Pong { action ping : Ping; }
    action Bounce : Ping;
    action def Countdown {
        in attribute n : Integer;
        attribute left : Integer := n;
        first start;
        then decide;
            if left > 0 then again;
            else done;
        action again : Countdown { in n = left - 1; }
        then done;
    }
    action Deep : Countdown { in n = LIMIT; }
}
"""


def _run(text: str, action: str) -> list[str]:
    program = Program(ir.resolve([ir.parse(text, "limits.sysml")]))
    run = program.start_action(action)
    return run.run_to_end()


def _failure(text: str, action: str) -> RunError:
    with pytest.raises(RunError) as info:
        _run(text, action)
    return info.value


def _from_deep_stack(frames: int, call: Callable[[], object]) -> object:
    return call() if frames == 0 else _from_deep_stack(frames - 1, call)


def test_a_calculation_with_no_base_case_names_its_chain() -> None:
    error = _failure(CALCS.replace("LIMIT", "3"), "Calcs::NoBase")
    assert isinstance(error, NestingTooDeep)
    assert f"nested {MAX_CALC_DEPTH + 1} deep, past the limit of {MAX_CALC_DEPTH}" in str(error)
    assert "Forever → … (repeating Forever → Forever)" in str(error)


def test_mutual_recursion_names_the_cycle() -> None:
    error = _failure(CALCS.replace("LIMIT", "3"), "Calcs::Mutual")
    assert "repeating Even → Odd → Even" in str(error)


def test_a_recursive_calculation_within_the_limit_computes_from_a_deep_host_stack() -> None:
    text = CALCS.replace("LIMIT", str(MAX_CALC_DEPTH))
    lines = _from_deep_stack(200, lambda: _run(text, "Calcs::Deep"))
    assert isinstance(lines, list)
    program = Program(ir.resolve([ir.parse(text, "limits.sysml")]))
    run = program.start_action("Calcs::Deep")
    run.run_to_end()
    import math

    assert dict(run.outputs())["x"] == str(math.factorial(MAX_CALC_DEPTH))


def test_actions_performing_each_other_name_the_chain() -> None:
    error = _failure(PERFORMANCES.replace("LIMIT", "3"), "Plant::Bounce")
    assert isinstance(error, NestingTooDeep)
    assert f"performances nested {MAX_PERFORMANCE_DEPTH + 1} deep" in str(error)
    assert "repeating Ping → Pong → Ping" in str(error)


def test_chain_text_shortens_a_long_chain_without_a_cycle() -> None:
    assert chain_text(["A", "B", "C"]) == "A → B → C"
    assert chain_text([f"S{i}" for i in range(20)]) == "S0 → S1 → S2 → S3 → … → S17 → S18 → S19"


ARITHMETIC = """
package Numbers {
    private import ScalarValues::*;
    action Square { attribute x : Integer := 2; first start; then s; action s { while true { assign x := x * x; } } }
    action Power { attribute x : Integer := 0; first start; then s; action s { assign x := 10 ** 5000; } }
    action RealPower { attribute x : Real := 0; first start; then s; action s { assign x := 1e308 ** 1e308; } }
    action Inexact { attribute x : Real := 0; first start; then s; action s { assign x := (10 ** 400) ** 1.5; } }
    action Modulo { attribute x : Integer := 5; attribute z : Integer := 0; first start; then s;
                    action s { assign x := x % z; } }
    action ZeroPower { attribute x : Real := 0; first start; then s; action s { assign x := 0 ** -1; } }
    action Range { attribute x : Integer := 0; first start; then s; action s { assign x := size(1..2000000); } }
    action Largest { attribute x : Integer := 0; first start; then s; action s { assign x := 10 ** 3999 + 1; } }
    action Doubling { attribute t : String := "ab"; first start; then s; action s { while true { assign t := t + t; } } }
}
"""


@pytest.mark.parametrize(("action", "kind", "words"), [
    ("Square", NumberTooLarge, f"more than the {MAX_DIGITS:,} a number may have"),
    ("Power", NumberTooLarge, "the result of '**' has about"),
    ("RealPower", NumberTooLarge, "astronomically many digits"),
    ("Inexact", NumberTooLarge, "beyond the range of a Real"),
    ("Modulo", DivisionByZero, "modulo 0"),
    ("ZeroPower", DivisionByZero, "0 raised to a negative power"),
    ("Range", NumberTooLarge, "has 2,000,000 elements"),
    # the slow fuzzer's run of a mutant doubling a String grew past the machine's 24 GB and was killed
    ("Doubling", NumberTooLarge, f"more than the {MAX_STRING:,} a String may hold"),
])
def test_arithmetic_out_of_range_is_a_typed_error(action: str, kind: type[RunError], words: str) -> None:
    text = ARITHMETIC.replace("size(", "SequenceFunctions::size(")
    error = _failure(text, f"Numbers::{action}")
    assert isinstance(error, kind)
    assert words in str(error)


def test_a_number_just_inside_the_limit_is_computed_and_spelled() -> None:
    program = Program(ir.resolve([ir.parse(ARITHMETIC, "n.sysml")]))
    run = program.start_action("Numbers::Largest")
    run.run_to_end()
    assert dict(run.outputs())["x"] == "1" + "0" * 3998 + "1"


def test_a_literal_past_the_limit_is_a_typed_error() -> None:
    text = ARITHMETIC.replace("10 ** 3999 + 1", "1" * (MAX_DIGITS + 1))
    error = _failure(text, "Numbers::Largest")
    assert isinstance(error, NumberTooLarge) and "literal" in str(error)


def test_a_performance_recursion_within_the_limit_runs_from_a_deep_host_stack() -> None:
    text = PERFORMANCES.replace("LIMIT", str(MAX_PERFORMANCE_DEPTH - 2))
    lines = _from_deep_stack(200, lambda: _run(text, "Plant::Deep"))
    assert isinstance(lines, list)
    error = _failure(PERFORMANCES.replace("LIMIT", str(MAX_PERFORMANCE_DEPTH + 5)), "Plant::Deep")
    assert isinstance(error, NestingTooDeep) and "Countdown" in str(error)
