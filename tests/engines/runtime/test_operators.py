"""engines.runtime.operators: each row of the operator table, on values and inside running models."""

from __future__ import annotations

from fractions import Fraction

import pytest

import ir
from engines.errors import DivisionByZero, EvaluationError, IndexOutOfRange
from engines.runtime import Program
from engines.runtime.operators import binary, concatenate, equal, index, unary
from engines.runtime.values import UNSET, Quantity, Sequence, Value, spell


def _outputs(body: str, attributes: str) -> dict[str, str]:
    text = f"""package t {{ private import ScalarValues::*;
        action a {{ {attributes} first start; then action go {{ {body} }} then done; }} }}"""
    run = Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action("t::a")
    run.run_to_end()
    return run.outputs()


def _fails(body: str, attributes: str = "") -> EvaluationError:
    text = f"""package t {{ private import ScalarValues::*;
        action a {{ {attributes} first start; then action go {{ {body} }} then done; }} }}"""
    run = Program(ir.resolve([ir.parse(text, "t.sysml")])).start_action("t::a")
    with pytest.raises(EvaluationError) as info:
        run.run_to_end()
    assert run.status == "failed"
    return info.value


# ---------------------------------------------------------------- arithmetic


@pytest.mark.parametrize(("op", "left", "right", "result"), [
    ("+", 2, 3, 5),
    ("+", 2, Fraction(1, 2), Fraction(5, 2)),
    ("-", 2, 5, -3),
    ("*", Fraction(3, 2), 4, Fraction(6)),  # a Rational times an Integer is a Rational (spelled 6.0)
    ("/", 22, 4, Fraction(11, 2)),  # IntegerFunctions::'/' returns a Rational
    ("/", 8, 4, Fraction(2)),
    ("/", Fraction(1, 3), 2, Fraction(1, 6)),
    ("%", 13, 4, 1),
    ("%", -13, 4, -1),  # truncating: the sign of the dividend
    ("%", 13, -4, 1),
    ("%", -13, -4, -1),
    ("%", Fraction(7, 2), 2, Fraction(3, 2)),
    ("**", 2, 10, 1024),
    ("**", 2, -2, Fraction(1, 4)),
    ("**", Fraction(1, 2), 3, Fraction(1, 8)),
    ("**", 4, Fraction(1, 2), 2.0),
    ("^", 3, 2, 9),
    ("+", "ab", "cd", "abcd"),
])
def test_arithmetic_is_exact(op: str, left: Value, right: Value, result: Value) -> None:
    got = binary(op, left, right)
    assert got == result
    assert type(got) is type(result)


def test_integer_division_gives_a_rational_that_spells_exactly() -> None:
    assert spell(binary("/", 22, 4)) == "5.5"
    assert spell(binary("/", 1, 3)) == "1/3"


@pytest.mark.parametrize(("op", "left", "right"), [("/", 1, 0), ("%", 7, 0), ("/", Fraction(1, 2), 0),
                                                   ("**", 0, -1), ("%", Fraction(1, 2), Fraction(0))])
def test_a_zero_divisor_is_a_typed_error(op: str, left: Value, right: Value) -> None:
    with pytest.raises(DivisionByZero, match="division by zero"):
        binary(op, left, right)


@pytest.mark.parametrize(("op", "left", "right"), [
    ("+", 1, True), ("*", "a", 2), ("<", 1, "b"), ("and", 1, True), ("..", 1, Fraction(5, 2)),
    ("**", -8, Fraction(1, 3)),
])
def test_operands_outside_the_table_are_refused(op: str, left: Value, right: Value) -> None:
    with pytest.raises(EvaluationError):
        binary(op, left, right)


def test_comparisons_order_numbers_by_value_and_strings_lexicographically() -> None:
    assert binary("<", 1, Fraction(3, 2)) is True
    assert binary(">=", Fraction(4), 4) is True
    assert binary("<", "apple", "banana") is True


def test_quantities_keep_their_unit() -> None:
    assert binary("+", Quantity(2, "s"), Quantity(3, "s")) == Quantity(5, "s")
    assert binary("<", Quantity(2, "s"), Quantity(3, "s")) is True
    assert unary("-", Quantity(2, "m")) == Quantity(-2, "m")


# ---------------------------------------------------------------- equality, booleans


@pytest.mark.parametrize(("left", "right", "same"), [
    (2, Fraction(2), True),
    (1, True, False),  # a Boolean is never a number, whatever Python says
    (True, True, True),
    (Sequence((1, 2)), Sequence((1, 2)), True),
    (Sequence((1, 2)), Sequence((2, 1)), False),
    (Sequence((5,)), 5, True),  # a one-element sequence is its element
    (Sequence(()), None, True),  # () is null
    (UNSET, Sequence(()), True),
    ("a", "a", True),
])
def test_equality(left: Value, right: Value, same: bool) -> None:
    assert equal(left, right) is same
    assert binary("==", left, right) is same
    assert binary("!=", left, right) is (not same)


def test_boolean_operators() -> None:
    assert binary("xor", True, False) is True
    assert binary("implies", False, False) is True
    assert binary("&", True, False) is False
    assert unary("not", False) is True


def test_and_or_implies_skip_their_right_operand_when_the_left_decides() -> None:
    out = _outputs("assign ok := n == 0 or 10 / n > 1; assign safe := n != 0 and 10 / n > 1; "
                   "assign fine := n != 0 implies 10 / n > 1;",
                   "attribute n : Integer := 0; attribute ok : Boolean; attribute safe : Boolean; "
                   "attribute fine : Boolean;")
    assert out["ok"] == "true"
    assert out["safe"] == "false"
    assert out["fine"] == "true"


def test_null_coalescing_reads_its_right_operand_only_where_the_left_is_null() -> None:
    """KerML's `a ?? b`: b where a has no value (null, the empty sequence), else a; b is not evaluated
    otherwise (here it would divide by zero)."""
    out = _outputs("assign first := a ?? 7; then assign a := 3; then assign second := a ?? 10 / n; "
                   "then assign third := null ?? 4;",
                   "attribute a : Integer[0..1]; attribute n : Integer := 0; attribute first : Integer; "
                   "attribute second : Integer; attribute third : Integer;")
    assert out["first"] == "7"
    assert out["second"] == "3"
    assert out["third"] == "4"


# ---------------------------------------------------------------- unary minus and power (KerML precedence)


def test_unary_minus_is_the_operand_of_power() -> None:
    out = _outputs("assign a := -3 ** 2; assign b := 2 ** -1; assign c := -(3 ** 2); assign d := 2 ** 3 ** 2;",
                   "attribute a : Integer; attribute b : Rational; attribute c : Integer; attribute d : Integer;")
    assert out == {"a": "9", "b": "0.5", "c": "-9", "d": "512"}


def test_truncating_modulo_in_a_model() -> None:
    out = _outputs("assign a := -13 % 4; assign b := 13 % -4; assign c := 22 / 4;",
                   "attribute a : Integer; attribute b : Integer; attribute c : Rational;")
    assert out == {"a": "-1", "b": "1", "c": "5.5"}


@pytest.mark.parametrize("expr", ["n / 0", "n % 0", "n / (n - n)"])
def test_dividing_by_zero_fails_the_run_with_a_typed_error(expr: str) -> None:
    err = _fails(f"assign q := {expr};", "attribute n : Integer := 5; attribute q : Rational;")
    assert isinstance(err, DivisionByZero)
    assert "division by zero" in str(err)


# ---------------------------------------------------------------- sequences


def test_a_sequence_expression_concatenates_flat() -> None:
    assert concatenate([Sequence((1, 2)), 3]) == Sequence((1, 2, 3))
    assert concatenate([None, Sequence(()), 4]) == Sequence((4,))
    out = _outputs("assign ys := (xs, 3); assign zs := (ys, (), xs);",
                   "attribute xs : Integer[*] := (1, 2); attribute ys : Integer[*]; attribute zs : Integer[*];")
    assert out["ys"] == "(1, 2, 3)"
    assert out["zs"] == "(1, 2, 3, 1, 2)"


def test_positions_count_from_one() -> None:
    assert index(Sequence((10, 20, 30)), 1) == 10
    assert index(Sequence((10, 20, 30)), 3) == 30
    assert index(7, 1) == 7  # a single value is a sequence of one
    out = _outputs("assign first := xs#(1); assign third := xs#(n + 1);",
                   "attribute xs : Integer[*] := (4, 5, 6); attribute n : Integer := 2; "
                   "attribute first : Integer; attribute third : Integer;")
    assert out["first"] == "4"
    assert out["third"] == "6"


@pytest.mark.parametrize("position", [0, 4, -1])
def test_a_position_outside_the_sequence_is_a_typed_error(position: int) -> None:
    with pytest.raises(IndexOutOfRange, match=r"out of range 1\.\.3"):
        index(Sequence((1, 2, 3)), position)


def test_a_position_outside_the_sequence_fails_the_run() -> None:
    err = _fails("assign y := xs#(4);", "attribute xs : Integer[*] := (1, 2, 3); attribute y : Integer;")
    assert isinstance(err, IndexOutOfRange)
    assert str(err) == "index 4 out of range 1..3"


def test_an_empty_range_is_the_empty_sequence() -> None:
    assert binary("..", 3, 1) == Sequence(())
    assert binary("..", 1, 3) == Sequence((1, 2, 3))
