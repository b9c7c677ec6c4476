"""The value domain: Integer (int), Rational and Real (exact fractions), Boolean, String, sequences,
enumeration literals, quantities and objects; and the one spelling every output uses."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Union

from ir.library import scalar_text


@dataclass(frozen=True)
class Unset:
    """A feature holding no value."""

    def __repr__(self) -> str:
        return "<unset>"


UNSET = Unset()


@dataclass(frozen=True)
class EnumValue:
    """An enumeration literal, named as its enumeration qualifies it (`VerdictKind::pass`)."""

    enumeration: str
    literal: str


@dataclass(frozen=True)
class Quantity:
    """A magnitude with its unit, `5 [s]`."""

    magnitude: Value
    unit: str


@dataclass(frozen=True)
class Sequence:
    """An ordered collection `(1, 2, 3)`."""

    elements: tuple[Value, ...]


@dataclass(frozen=True, eq=False)
class ObjectRef:
    """A reference to an object of the run, by its identity number; the object lives in the Context."""

    id: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectRef) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("obj", self.id))


@dataclass(frozen=True)
class Deferred:
    """A parameter's default, evaluated the first time the parameter is read (held until then)."""

    expr: object  # an ir.syntax.Expr; the value layer does not import the syntax tree
    # the value it will have, when it reads nothing (a literal): how a run that never read it reports it
    known: tuple[Value, ...] = ()


@dataclass(frozen=True)
class Signal:
    """A message value: `new Ping()` or an item occurrence, carrying its type and features."""

    type_name: str
    object_id: int | None = None
    fields: tuple[tuple[str, Value], ...] = ()


Value = Union[bool, int, Fraction, float, str, None, Unset, EnumValue, Quantity, Sequence, ObjectRef, Signal, "Deferred"]


def spell(value: Value) -> str:
    """The value as the corpus and every output spell it: `1`, `2.0`, `1/3`, `"go"`, `(1, 2)`."""
    if type(value) is int:
        return str(value)  # as scalar_text spells an Integer
    if isinstance(value, (bool, int, Fraction, float)):
        return scalar_text(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if isinstance(value, Unset):
        return "<unset>"
    if isinstance(value, EnumValue):
        return f"{value.enumeration}::{value.literal}"
    if isinstance(value, Quantity):
        return f"{spell(value.magnitude)} [{value.unit}]"
    if isinstance(value, Sequence):
        return "(" + ", ".join(spell(v) for v in value.elements) + ")"
    if isinstance(value, ObjectRef):
        return f"instance#{value.id}"
    if isinstance(value, Signal):
        return f"{value.type_name}()" if value.object_id is None else f"instance#{value.object_id}"
    if isinstance(value, Deferred) and value.known:
        return spell(value.known[0])
    return str(value)


def accepted_as(value: Value) -> str | None:
    """The type an accept by type takes a bare scalar by (`accept t : Real` takes 27.5 and 3/2), or
    None for anything else."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, Fraction):
        return "Real"
    if isinstance(value, str):
        return "String"
    return None


def type_name(value: Value) -> str:
    """The library type a value is an instance of, as an error message names it."""
    if isinstance(value, bool):
        return "Boolean"
    if isinstance(value, int):
        return "Integer"
    if isinstance(value, Fraction):
        return "Rational"
    if isinstance(value, float):
        return "Real"
    if isinstance(value, str):
        return "String"
    if isinstance(value, Sequence):
        return "Sequence"
    if isinstance(value, Quantity):
        return "Quantity"
    if isinstance(value, EnumValue):
        return value.enumeration
    if value is None or isinstance(value, Unset):
        return "Null"
    return "Object"


def with_article(type_text: str) -> str:
    """`an Integer`, `a String`, `a sequence`: a type named in an error sentence."""
    word = type_text.lower() if type_text == "Sequence" else type_text
    return ("an " if word[:1].lower() in "aeiou" else "a ") + word


def is_number(value: Value) -> bool:
    return isinstance(value, (int, Fraction, float)) and not isinstance(value, bool)


# The ScalarValues types a declared type is checked against (a type specializing one is checked as it).
SCALAR_TYPES = frozenset(("Boolean", "String", "ScalarValue", "NumericalValue", "Number", "Complex", "Real",
                          "Rational", "Integer", "Natural", "Positive"))
_INTEGRAL = frozenset(("Integer", "Natural", "Positive"))


def conforms(scalar: str, value: Value) -> bool:
    """Whether a value is an instance of a ScalarValues type (or of Anything).

    By value, as ScalarValues nests the numbers (Positive < Natural < Integer < Rational < Real):
    4.0 and 8/2 are the Integer 4; 1/3 is a Rational, not an Integer; a value computed inexactly
    (a float: an irrational root) is a Real only. A quantity is checked by its magnitude."""
    if scalar == "Boolean":
        return isinstance(value, bool)
    if scalar == "String":
        return isinstance(value, str)
    if scalar not in SCALAR_TYPES:
        return True
    if isinstance(value, Quantity):
        value = value.magnitude
    if scalar == "ScalarValue" and isinstance(value, (bool, str)):
        return True
    if not is_number(value):
        return False
    if scalar in ("ScalarValue", "NumericalValue", "Number", "Complex", "Real"):
        return True
    if isinstance(value, float):
        return False
    if scalar == "Rational":
        return True
    if isinstance(value, Fraction) and value.denominator != 1:
        return False
    if scalar == "Natural":
        return value >= 0  # type: ignore[operator]
    if scalar == "Positive":
        return value > 0  # type: ignore[operator]
    return True


def as_declared(scalar: str, value: Value) -> Value:
    """A conforming value as a feature of that type holds it: an integral Rational stored into an
    Integer is the Integer; an Integer stored into a Real reads as Real (`4.0`)."""
    if scalar in _INTEGRAL and isinstance(value, Fraction):
        return int(value)
    return coerce_to(scalar, value)


def coerce_to(type_text: str, value: Value) -> Value:
    """A value stored into a feature of a declared type: an Integer held by a Real reads as Real."""
    last = type_text.rsplit("::", 1)[-1]
    if last in ("Real", "Rational", "Number") and isinstance(value, int) and not isinstance(value, bool):
        return Fraction(value)
    return value
