"""The operators of expressions, one rule each (KerML's operator functions, exact where the operands are).

Numbers are Integers (`int`), Rationals (`Fraction`, every decimal literal included: `2.5` is the
Rational 5/2) and Reals computed inexactly (`float`: a root or a power that is not rational).
A Boolean is never a number, and an Integer value is also a Rational and a Real (ScalarValues:
Integer specializes Rational specializes Real), so mixed operands need no conversion.

| operator | operands | result | rule |
|---|---|---|---|
| `+` `-` `*` | numbers | Integer if both are, else Rational, else Real | exact arithmetic |
| `+` | Strings | String | concatenation; more than MAX_STRING characters is a run error |
| `/` | numbers | Rational (Real if either is) | exact: `22 / 4` is 11/2 (IntegerFunctions::'/' returns Rational); `x / 0` is a run error |
| `%` | numbers | as `+` | truncating, the sign of the dividend: `x - y * trunc(x / y)`, so `-13 % 4` is -1 and `13 % -4` is 1; `x % 0` is a run error |
| `**` `^` | number, Integer | Integer if the base is and the exponent >= 0, else Rational | exact; `0 ** -1` is a run error |
| `**` `^` | number, non-Integer | Real | inexact; a negative base is a run error |
| unary `-` `+` | number or quantity | as the operand | `-3 ** 2` is 9: KerML makes the unary expression the operand of `**` |
| `<` `>` `<=` `>=` | numbers, or Strings | Boolean | by value (Strings lexicographically) |
| `==` `!=` `===` `!==` | anything | Boolean | `equal` below: numbers by value (`2 == 2.0`), a Boolean only equals a Boolean, sequences element by element, a one-element sequence equals its element, `()` equals `null`; `===` is `==` (data values have no identity apart from their value; objects compare by identity either way) |
| `and` `or` `implies` | Booleans | Boolean | conditional: the right operand is evaluated only when the left does not decide (KerML's ConditionalAnd/Or/Implies) |
| `&` `\\|` `xor` | Booleans | Boolean | both operands evaluated |
| `not` | Boolean | Boolean | |
| `..` | Integers | sequence | `1..3` is (1, 2, 3); an empty sequence when the upper bound is below the lower; a `for` walks it without building it, elsewhere more than MAX_SEQUENCE elements is a run error |
| `,` `( )` | anything | sequence | flat: `(xs, 3)` splices xs; `null` and `()` add nothing |
| `#( )` | sequence, Positive | element | 1-based; an index outside 1..size is a run error |
| with a quantity | quantity and number or quantity | quantity (Boolean for comparisons) | on the magnitudes, keeping the unit of the quantity operand (units are not converted) |

Any other operand types are a run error naming the operator and both types. An Integer result (or a
Rational's numerator or denominator) of more than MAX_DIGITS digits, and a Real past the
floating-point range, is a run error (NumberTooLarge) naming the operator: a loop squaring a number
stops there instead of growing without end.
"""

from __future__ import annotations

import math
from fractions import Fraction

from engines.errors import DivisionByZero, EvaluationError, IndexOutOfRange, NumberTooLarge
from engines.runtime.values import UNSET, Quantity, Sequence, Value, is_number, spell, type_name, with_article
from ir.library import equal as _library_equal

CONDITIONAL = frozenset(("and", "or", "implies", "??"))  # the right operand read only where the left does not decide
_BOOLEAN = frozenset(("and", "&", "or", "|", "xor", "implies"))
_COMPARE = frozenset(("<", ">", "<=", ">="))
_INTEGER_RING = frozenset(("+", "-", "*"))
_MAX_EXPONENT = 100_000  # beyond it an exact power of a base other than 0, 1, -1 takes unbounded time
MAX_DIGITS = 4_000  # an exact number's digits (under Python's own 4,300-digit limit on spelling an int)
MAX_SEQUENCE = 1_000_000  # elements of a sequence a range or a concatenation builds
MAX_STRING = 10_000_000  # characters of a String a concatenation builds (a loop doubling one filled the memory)
_LIMIT = 10 ** MAX_DIGITS
_LIMIT_BITS = _LIMIT.bit_length()


def binary(op: str, left: Value, right: Value) -> Value:
    """A binary operator on two values (see the module table)."""
    if type(left) is int and type(right) is int and op in _INTEGER_RING:
        # two Integers under + - *: what the general path below computes for them, without its tests
        return bounded(left + right if op == "+" else left - right if op == "-" else left * right, op)
    if op in ("==", "==="):
        return equal(left, right)
    if op in ("!=", "!=="):
        return not equal(left, right)
    if op in _BOOLEAN:
        if not isinstance(left, bool) or not isinstance(right, bool):
            raise EvaluationError(f"type mismatch: operator '{op}' needs Booleans, got "
                                  f"{type_name(left)} and {type_name(right)}")
        if op in ("and", "&"):
            return left and right
        if op in ("or", "|"):
            return left or right
        if op == "xor":
            return left != right
        return (not left) or right
    if op == "..":
        if not _is_int(left) or not _is_int(right):
            raise EvaluationError("type mismatch: a range '..' needs Integer bounds")
        count = right - left + 1  # type: ignore[operator]
        if count > MAX_SEQUENCE:
            raise NumberTooLarge(f"the range {spell(left)}..{spell(right)} has {count:,} elements, more than the "
                                 f"{MAX_SEQUENCE:,} a sequence may hold (a 'for' over a range walks it without this limit)")
        return Sequence(tuple(range(left, right + 1)))  # type: ignore[arg-type,operator]
    if isinstance(left, str) and isinstance(right, str):
        if op == "+":
            if len(left) + len(right) > MAX_STRING:
                raise NumberTooLarge(f"a String of {len(left) + len(right):,} characters, more than the "
                                     f"{MAX_STRING:,} a String may hold")
            return left + right
        if op in _COMPARE:
            return _compare(op, left, right)
    if isinstance(left, Quantity) or isinstance(right, Quantity):
        unit = left.unit if isinstance(left, Quantity) else right.unit  # type: ignore[union-attr]
        magnitude = binary(op, _magnitude(left), _magnitude(right))
        return magnitude if op in _COMPARE else Quantity(magnitude, unit)
    if not is_number(left) or not is_number(right):
        raise EvaluationError(f"type mismatch: operator '{op}' is not defined for "
                              f"{with_article(type_name(left))} and {with_article(type_name(right))}")
    if op in _COMPARE:
        return _compare(op, left, right)
    try:
        return bounded(arithmetic(op, left, right), op)  # type: ignore[arg-type]
    except OverflowError:
        raise NumberTooLarge(f"the result of '{op}' is beyond the range of a Real") from None


def arithmetic(op: str, left: int | Fraction | float, right: int | Fraction | float) -> Value:
    """`+ - * / % **` on two numbers."""
    if op == "+":
        return left + right
    if op == "-":
        return left - right
    if op == "*":
        return left * right
    if op == "/":
        if right == 0:
            raise DivisionByZero("division by zero")
        if isinstance(left, float) or isinstance(right, float):
            return _real(left) / _real(right)
        return Fraction(left) / Fraction(right)
    if op == "%":
        if right == 0:
            raise DivisionByZero("division by zero: modulo 0")
        if isinstance(left, float) or isinstance(right, float):
            return math.fmod(left, right)
        quotient = Fraction(left) / Fraction(right)
        result = left - right * math.trunc(quotient)
        return result
    if op in ("**", "^"):
        return _power(left, right)
    raise EvaluationError(f"unknown operator '{op}'")


def bounded(value: Value, op: str) -> Value:
    """The value of an operator, refused when it is a number too large to hold (module docstring)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value.bit_length() >= _LIMIT_BITS - 4 and abs(value) >= _LIMIT:
            raise _too_large(op, value.bit_length())
    elif isinstance(value, Fraction):
        bits = max(value.numerator.bit_length(), value.denominator.bit_length())
        if bits >= _LIMIT_BITS - 4 and max(abs(value.numerator), value.denominator) >= _LIMIT:
            raise _too_large(op, bits)
    elif isinstance(value, float) and not math.isfinite(value):
        raise NumberTooLarge(f"the result of '{op}' is beyond the range of a Real")
    return value


def _too_large(op: str, bits: int) -> NumberTooLarge:
    return NumberTooLarge(f"the result of '{op}' has {_digits(bits)} digits, more than the {MAX_DIGITS:,} "
                          f"a number may have")


def _digits(bits: int) -> str:
    digits = bits * 30103 // 100_000 + 1  # log10(2) in integers: `bits` may be past a float's range
    return f"about {digits:,}" if digits < 10 ** 15 else "astronomically many"


def _power(base: int | Fraction | float, exponent: int | Fraction | float) -> Value:
    if isinstance(exponent, int) and not isinstance(exponent, bool) and not isinstance(base, float):
        if abs(base) not in (0, 1):
            exact = Fraction(base)
            size = max(math.log2(abs(exact.numerator) or 1), math.log2(exact.denominator))  # bits per factor
            bits = int(size * 1024) * abs(exponent) // 1024  # in integers: the exponent may be past a float
            if abs(exponent) > _MAX_EXPONENT or bits > _LIMIT_BITS:
                raise _too_large("**", bits)
        if exponent >= 0:
            return base ** exponent
        if base == 0:
            raise DivisionByZero("division by zero: 0 raised to a negative power")
        return Fraction(base) ** exponent
    if isinstance(exponent, Fraction) and exponent.denominator == 1 and not isinstance(base, float):
        return _power(base, int(exponent))
    if base < 0:
        raise EvaluationError(f"a negative base raised to the non-integral power {exponent} has no Real value")
    if base == 0 and exponent < 0:
        raise DivisionByZero("division by zero: 0 raised to a negative power")
    try:
        return float(base) ** float(exponent)
    except OverflowError:
        raise NumberTooLarge("the result of '**' is beyond the range of a Real") from None


def unary(op: str, operand: Value) -> Value:
    """A prefix operator: `not`, `-`, `+`."""
    if op == "not":
        if not isinstance(operand, bool):
            raise EvaluationError(f"type mismatch: 'not' needs a Boolean, got {type_name(operand)}")
        return not operand
    if isinstance(operand, Quantity):
        return Quantity(unary(op, operand.magnitude), operand.unit)
    if not is_number(operand):
        raise EvaluationError(f"type mismatch: unary '{op}' needs a number, got {type_name(operand)}")
    return -operand if op == "-" else operand  # type: ignore[operator]


def equal(left: Value, right: Value) -> bool:
    """KerML `==` on two values (see the module table)."""
    return _library_equal(_plain(left), _plain(right))


def index(base: Value, position: Value) -> Value:
    """`seq#(i)`: the i-th element, 1-based; a single value is a sequence of one."""
    elements = elements_of(base)
    if not isinstance(position, int) or isinstance(position, bool):
        raise EvaluationError(f"type mismatch: an index must be a Positive Integer, got {type_name(position)}")
    if 1 <= position <= len(elements):
        return elements[position - 1]
    raise IndexOutOfRange(f"index {position} out of range 1..{len(elements)}")


def elements_of(value: Value) -> tuple[Value, ...]:
    """A value as the sequence it is: a sequence's elements, nothing for null or unset, else itself."""
    if isinstance(value, Sequence):
        return value.elements
    if value is None or value is UNSET:
        return ()
    return (value,)


def concatenate(parts: list[Value]) -> Sequence:
    """`(a, b, ...)`: flat, as KerML's `,` is the union of sequences."""
    out: list[Value] = []
    for part in parts:
        out.extend(elements_of(part))
        if len(out) > MAX_SEQUENCE:
            raise NumberTooLarge(f"a sequence of more than {MAX_SEQUENCE:,} elements")
    return Sequence(tuple(out))


def _plain(value: Value) -> object:
    if isinstance(value, Sequence):
        if len(value.elements) == 1:
            return _plain(value.elements[0])
        return tuple(_plain(v) for v in value.elements)
    if value is None or value is UNSET:
        return ()
    return value


def _compare(op: str, left: object, right: object) -> bool:
    if op == "<":
        return left < right  # type: ignore[operator]
    if op == ">":
        return left > right  # type: ignore[operator]
    if op == "<=":
        return left <= right  # type: ignore[operator]
    return left >= right  # type: ignore[operator]


def _real(x: int | Fraction | float) -> float:
    try:
        return float(x)
    except OverflowError:
        raise NumberTooLarge(f"a number of {_digits(abs(Fraction(x)).numerator.bit_length())} digits is beyond "
                             f"the range of a Real") from None


def _magnitude(v: Value) -> Value:
    return v.magnitude if isinstance(v, Quantity) else v


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
