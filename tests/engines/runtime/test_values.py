"""engines.runtime.values: the one spelling every output uses, and coercion on store."""

from __future__ import annotations

from fractions import Fraction

import pytest

from engines.runtime.values import (
    UNSET,
    EnumValue,
    ObjectRef,
    Quantity,
    Sequence,
    Signal,
    Value,
    coerce_to,
    spell,
    type_name,
)


@pytest.mark.parametrize(("value", "text"), [
    (0, "0"),
    (42, "42"),
    (-7, "-7"),
    (10**20, "100000000000000000000"),
])
def test_integers_spell_as_digits(value: int, text: str) -> None:
    assert spell(value) == text


@pytest.mark.parametrize(("value", "text"), [
    (Fraction(1, 10), "0.1"),
    (Fraction(4), "4.0"),
    (Fraction(0), "0.0"),
    (Fraction(5, 2), "2.5"),
    (Fraction(1, 8), "0.125"),
    (Fraction(1, 3), "1/3"),
    (Fraction(25, 12), "25/12"),
    (Fraction(-1, 10), "-0.1"),
    (Fraction(-4), "-4.0"),
    (Fraction(-5, 2), "-2.5"),
    (Fraction(-1, 3), "-1/3"),
    (Fraction(-25, 12), "-25/12"),
    (Fraction(1, 100), "0.01"),
])
def test_rationals_spell_exactly(value: Fraction, text: str) -> None:
    assert spell(value) == text


def test_a_finite_decimal_reads_back_as_the_same_fraction() -> None:
    for f in (Fraction(3, 40), Fraction(-7, 16), Fraction(123, 1000)):
        assert Fraction(spell(f)) == f


@pytest.mark.parametrize(("value", "text"), [
    (True, "true"),
    (False, "false"),
])
def test_booleans_spell_lowercase_not_as_integers(value: bool, text: str) -> None:
    assert spell(value) == text


@pytest.mark.parametrize(("value", "text"), [
    ("go", '"go"'),
    ("", '""'),
    ('say "hi"', '"say \\"hi\\""'),
    ("a\\b", '"a\\\\b"'),
])
def test_strings_are_quoted_and_escaped(value: str, text: str) -> None:
    assert spell(value) == text


def test_sequences_spell_in_parentheses() -> None:
    assert spell(Sequence((1, 2, 3))) == "(1, 2, 3)"
    assert spell(Sequence(())) == "()"
    assert spell(Sequence((Fraction(1, 2), "a", True))) == '(0.5, "a", true)'
    assert spell(Sequence((Sequence((1,)), 2))) == "((1), 2)"


def test_unset_and_null() -> None:
    assert spell(UNSET) == "<unset>"
    assert repr(UNSET) == "<unset>"
    assert spell(None) == "null"


def test_enum_literals_spell_qualified_by_their_enumeration() -> None:
    assert spell(EnumValue("VerdictKind", "pass")) == "VerdictKind::pass"
    assert EnumValue("VerdictKind", "pass") == EnumValue("VerdictKind", "pass")
    assert EnumValue("VerdictKind", "pass") != EnumValue("VerdictKind", "fail")


def test_quantities_spell_magnitude_and_unit() -> None:
    assert spell(Quantity(5, "s")) == "5 [s]"
    assert spell(Quantity(Fraction(1, 2), "m")) == "0.5 [m]"


def test_objects_and_signals() -> None:
    assert spell(ObjectRef(3)) == "instance#3"
    assert ObjectRef(3) == ObjectRef(3)
    assert ObjectRef(3) != ObjectRef(4)
    assert hash(ObjectRef(3)) == hash(ObjectRef(3))
    assert spell(Signal("Ping")) == "Ping()"
    assert spell(Signal("Ping", 7)) == "instance#7"


def test_floats_spell_like_reals() -> None:
    assert spell(2.0) == "2.0"
    assert spell(0.25) == "0.25"


@pytest.mark.parametrize(("value", "name"), [
    (True, "Boolean"),
    (1, "Integer"),
    (Fraction(1, 2), "Rational"),  # every decimal literal is a Rational (KerML LiteralRational)
    (0.5, "Real"),  # computed inexactly (a root): a Real only
    ("x", "String"),
    (Sequence((1,)), "Sequence"),
    (Quantity(1, "s"), "Quantity"),
    (EnumValue("VerdictKind", "pass"), "VerdictKind"),
    (UNSET, "Null"),
    (None, "Null"),
    (ObjectRef(1), "Object"),
])
def test_type_names(value: Value, name: str) -> None:
    assert type_name(value) == name


@pytest.mark.parametrize("type_text", ["Real", "Rational", "Number", "ScalarValues::Real", "ScalarValues::Rational"])
def test_an_integer_stored_into_a_real_reads_as_real(type_text: str) -> None:
    got = coerce_to(type_text, 4)
    assert isinstance(got, Fraction)
    assert got == 4
    assert spell(got) == "4.0"


@pytest.mark.parametrize(("type_text", "value"), [
    ("Integer", 4),
    ("ScalarValues::Integer", 4),
    ("Real", True),  # a Boolean is not a number, even though Python says bool is an int
    ("Real", Fraction(1, 3)),
    ("String", "4"),
    ("", 4),
])
def test_coerce_leaves_other_values_alone(type_text: str, value: Value) -> None:
    got = coerce_to(type_text, value)
    assert got == value
    assert type(got) is type(value)
