"""The built-in library: the standard packages models import, as types, units and literals, and
the one table of library functions (`FUNCTIONS`), each with its signature and its meaning.

The functions are those of the KerML/SysML function library that act on the values a run holds
(SequenceFunctions, BaseFunctions, NumericalFunctions, RealFunctions, RationalFunctions,
IntegerFunctions, BooleanFunctions, StringFunctions). Each is declared in its package as a
`calc def`, so a model names it as the library does: qualified (`SequenceFunctions::size(xs)`),
imported (`private import SequenceFunctions::*; size(xs)`), or after `->` (`xs->size()`).

An implementation here is a pure function over plain values: `int` (Integer), `Fraction`
(Rational), `float` (a Real computed inexactly), `bool`, `str`, a `tuple` for a parameter or result
declared `[0..*]`, and any other value passed through untouched (enumeration literals, objects).
The runtime checks each argument against its parameter's type before the call, turns its
sequences into tuples and back, and turns a `LibraryError` into a typed run error.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from ir import syntax as s

LIBRARY_PATH = "<library>"

LIBRARY_TEXT = """
package ScalarValues {
    attribute def ScalarValue; attribute def Boolean :> ScalarValue; attribute def String :> ScalarValue;
    attribute def NumericalValue :> ScalarValue; attribute def Number :> NumericalValue;
    attribute def Complex :> Number; attribute def Real :> Complex; attribute def Rational :> Real;
    attribute def Integer :> Rational; attribute def Natural :> Integer; attribute def Positive :> Natural;
}
package Base { attribute def Anything; attribute def DataValue; part def Object; }
package Occurrences { occurrence def Occurrence; }
package ISQ {
    attribute def MassValue; attribute def LengthValue; attribute def DurationValue;
    attribute def TimeValue; attribute def SpeedValue; attribute def AccelerationValue;
    attribute def ForceValue; attribute def TemperatureValue; attribute def PowerValue;
    attribute def EnergyValue; attribute def TorqueValue; attribute def VoltageValue;
    attribute def CurrentValue; attribute def PressureValue; attribute def FrequencyValue;
    attribute mass; attribute length; attribute duration; attribute time; attribute speed;
    attribute acceleration; attribute force; attribute temperature; attribute power;
    attribute energy; attribute torque; attribute voltage; attribute current; attribute pressure;
}
package SI {
    attribute s; attribute ms; attribute min; attribute h; attribute m; attribute km; attribute mm;
    attribute kg; attribute g; attribute N; attribute J; attribute W; attribute kW; attribute V;
    attribute A; attribute Pa; attribute K; attribute Hz; attribute rad;
}
package Stochastic { metadata def Probability { attribute p : ScalarValues::Real; } }
package VerificationCases {
    enum def VerdictKind { enum pass; enum fail; enum inconclusive; enum error; }
    verification def VerificationCase;
}
package Time { part def Clock { attribute currentTime : ScalarValues::Real; } part universalClock : Clock; }
package Actions { action def Action; }
package States {
    // a state performance dispatches its next event only once the current one ran to completion,
    // unless it says otherwise (false) or names the occurrence whose completion it waits for
    state def StateAction {
        attribute isRunToCompletion : ScalarValues::Boolean default true;
        ref runToCompletionScope : Occurrences::Occurrence[0..1];
    }
}
package Parts { part def Part; }
package Items { item def Item; }
package Requirements { requirement def RequirementCheck; }
package Constraints { constraint def ConstraintCheck; }
package Calculations { calc def Calculation; }
package TrigFunctions {}
package MeasurementReferences {}
package Quantities {}
"""

LIBRARY_PACKAGES = ("ScalarValues", "Base", "Occurrences", "ISQ", "SI", "Stochastic", "VerificationCases",
                    "Time", "Actions", "States", "Parts", "Items", "Requirements", "Constraints",
                    "Calculations", "SequenceFunctions", "BaseFunctions", "ControlFunctions", "NumericalFunctions",
                    "RealFunctions", "RationalFunctions", "IntegerFunctions", "BooleanFunctions",
                    "StringFunctions", "TrigFunctions", "MeasurementReferences", "Quantities")


# ---------------------------------------------------------------- functions


class LibraryError(ValueError):
    """A library function refusing its arguments: `kind` is "index" (a position outside the
    sequence), "zero" (a division by zero) or "value" (an argument outside the function's domain)."""

    def __init__(self, message: str, kind: str = "value") -> None:
        super().__init__(message)
        self.kind = kind


@dataclass(frozen=True)
class Param:
    """A parameter: its name, its type (a ScalarValues or Base type), and whether it takes a
    sequence (`[0..*]`) or may be left out (it then has the default the library states)."""

    name: str
    type: str
    many: bool = False
    optional: bool = False

    def text(self) -> str:
        mult = "[0..*]" if self.many else "[0..1]" if self.optional else ""
        return f"{self.name}: {self.type}{mult}"


@dataclass(frozen=True)
class Function:
    """One library function: where it lives, its signature, and what it computes."""

    package: str
    name: str
    params: tuple[Param, ...]
    result: str
    result_many: bool
    compute: Callable[..., object]

    @property
    def qualified_name(self) -> str:
        return f"{self.package}::{self.name}"

    @property
    def signature(self) -> str:
        result = f"{self.result}[0..*]" if self.result_many else self.result
        return f"{self.name}({', '.join(p.text() for p in self.params)}): {result}"


def equal(a: object, b: object) -> bool:
    """KerML `==` on plain values: numbers by value, a Boolean equal only to a Boolean, sequences
    element by element, a one-element sequence equal to its element, `()` to nothing else."""
    left = a if isinstance(a, tuple) else (a,)
    right = b if isinstance(b, tuple) else (b,)
    if len(left) != len(right):
        return False
    for x, y in zip(left, right, strict=True):
        if isinstance(x, bool) or isinstance(y, bool):
            if not (isinstance(x, bool) and isinstance(y, bool) and x == y):
                return False
        elif x != y:
            return False
    return True


def _contains(seq: tuple[object, ...], value: object) -> bool:
    return any(equal(x, value) for x in seq)


def _position(seq: tuple[object, ...], index: int, upper: int | None = None) -> int:
    top = len(seq) if upper is None else upper
    if not 1 <= index <= top:
        raise LibraryError(f"index {index} out of range 1..{top}", "index")
    return index


def _at(seq: tuple[object, ...], index: int) -> object:
    return seq[_position(seq, index) - 1]


def _subsequence(seq: tuple[object, ...], start: int, end: int | None = None) -> tuple[object, ...]:
    end = len(seq) if end is None else end
    if end < start:
        return ()
    _position(seq, start)
    _position(seq, end)
    return seq[start - 1:end]


def _excluding_at(seq: tuple[object, ...], start: int, end: int | None = None) -> tuple[object, ...]:
    end = start if end is None else end
    if end < start:
        return seq
    _position(seq, start)
    _position(seq, end)
    return seq[:start - 1] + seq[end:]


def _including_at(seq: tuple[object, ...], values: tuple[object, ...], index: int) -> tuple[object, ...]:
    _position(seq, index, len(seq) + 1)
    return seq[:index - 1] + values + seq[index - 1:]


def _one(seq: tuple[object, ...]) -> object:
    return seq if not seq else seq[0]


def _sum(collection: tuple[object, ...]) -> object:
    total: object = 0
    for x in collection:
        total = total + x  # type: ignore[operator]
    return total


def _product(collection: tuple[object, ...]) -> object:
    total: object = 1
    for x in collection:
        total = total * x  # type: ignore[operator]
    return total


def _abs(x: object) -> object:
    return -x if x < 0 else x  # type: ignore[operator]


def _sqrt(x: int | Fraction | float) -> object:
    if x < 0:
        raise LibraryError(f"sqrt of the negative number {x} has no Real value")
    if isinstance(x, float):
        return math.sqrt(x)
    f = Fraction(x)
    num, den = math.isqrt(f.numerator), math.isqrt(f.denominator)
    if num * num == f.numerator and den * den == f.denominator:
        return Fraction(num, den)  # a rational root stays exact
    return math.sqrt(f)


def _round(x: int | Fraction | float) -> int:
    # half toward positive infinity, as the reference implementation's Math.round does
    return math.floor(Fraction(x) + Fraction(1, 2))


def _to_integer(x: int | Fraction | float) -> int:
    return math.trunc(x)


def _to_rational(x: int | Fraction | float) -> Fraction:
    return Fraction(x)


def _parse(text: str, kind: str) -> object:
    try:
        if kind == "Integer":
            return int(text.strip())
        if kind == "Real":
            return Fraction(text.strip())
    except ValueError:
        pass
    if kind == "Boolean" and text.strip() in ("true", "false"):
        return text.strip() == "true"
    raise LibraryError(f"the String {text!r} spells no {kind}")


def _to_natural(x: int) -> int:
    if x < 0:
        raise LibraryError(f"{x} is negative: no Natural")
    return x


def _rat(numer: int, denum: int) -> Fraction:
    if denum == 0:
        raise LibraryError("division by zero: a rational with denominator 0", "zero")
    return Fraction(numer, denum)


def _substring(x: str, lower: int, upper: int) -> str:
    if not (1 <= lower <= len(x) + 1 and lower - 1 <= upper <= len(x)):
        raise LibraryError(f"Substring({lower}, {upper}) outside the {len(x)} characters of the String", "index")
    return x[lower - 1:upper]


def _decimal(f: Fraction) -> str | None:
    """The finite decimal spelling of `f`, or None when it has none."""
    den = f.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return None
    places = max(twos, fives)
    sign = "-" if f < 0 else ""
    scaled = abs(f.numerator) * (10**places) // f.denominator
    whole, frac = divmod(scaled, 10**places) if places else (scaled, 0)
    if places == 0:
        return f"{sign}{whole}.0"
    digits = str(frac).rjust(places, "0").rstrip("0") or "0"
    return f"{sign}{whole}.{digits}"


def scalar_text(value: bool | int | Fraction | float) -> str:
    """A Boolean or number as the notation spells it: `true`, `12`, `2.5`, `1/3`, `4.0` (a Real)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Fraction):
        text = _decimal(value)
        return text if text is not None else f"{value.numerator}/{value.denominator}"
    if value.is_integer():
        return f"{value:.1f}"
    return repr(value)


def _to_string(x: object) -> str:
    if isinstance(x, str):
        return x
    if isinstance(x, (bool, int, Fraction, float)):
        return scalar_text(x)
    raise LibraryError("ToString spells a scalar value (Boolean, String or number) only")


def _shown(v: object) -> str:
    if isinstance(v, (bool, int, Fraction, float)):
        return scalar_text(v)
    if isinstance(v, tuple):
        return "a sequence of " + str(len(v))
    return repr(v) if isinstance(v, str) else type(v).__name__


def _many(v: object) -> tuple[object, ...]:
    if isinstance(v, tuple):
        return v
    return () if v is None else (v,)


def _holds(v: object, name: str) -> bool:
    if not isinstance(v, bool):
        raise LibraryError(f"the body of {name} gives {_shown(v)}, and it must give a Boolean")
    return v


def _reduce(seq: tuple[object, ...], reducer: Callable[[object, object], object]) -> object:
    if not seq:
        return ()
    total = seq[0]
    for x in seq[1:]:
        total = reducer(total, x)
    return total


_A = "Anything"
_SEQ = Param("seq", _A, many=True)
_SEQ1, _SEQ2 = Param("seq1", _A, many=True), Param("seq2", _A, many=True)
_X, _Y = Param("x", _A, many=True), Param("y", _A, many=True)


def _numeric(package: str, t: str) -> tuple[Function, ...]:
    """abs, max, min, sum and product, which every numeric package states for its own type."""
    x, y = Param("x", t), Param("y", t)
    return (
        Function(package, "abs", (x,), t, False, _abs),
        Function(package, "max", (x, y), t, False, lambda a, b: b if b > a else a),
        Function(package, "min", (x, y), t, False, lambda a, b: b if b < a else a),
        Function(package, "sum", (Param("collection", t, many=True),), t, False, _sum),
        Function(package, "product", (Param("collection", t, many=True),), t, False, _product),
    )


_COLL = Param("collection", _A, many=True)
_A1 = "Anything[0..1]"  # one value or none
BODY = "Body"  # a body expression `{in x; ...}`, passed as a callable over plain values

FUNCTIONS: tuple[Function, ...] = (
    Function("BaseFunctions", "==", (_X, _Y), "Boolean", False, equal),
    Function("BaseFunctions", "!=", (_X, _Y), "Boolean", False, lambda a, b: not equal(a, b)),
    Function("BaseFunctions", "===", (_X, _Y), "Boolean", False, equal),
    Function("BaseFunctions", "!==", (_X, _Y), "Boolean", False, lambda a, b: not equal(a, b)),
    Function("BaseFunctions", "ToString", (Param("x", _A),), "String", False, _to_string),
    Function("SequenceFunctions", "#", (_SEQ, Param("index", "Positive")), _A1, False, _at),
    Function("SequenceFunctions", "equals", (_X, _Y), "Boolean", False, equal),
    Function("SequenceFunctions", "same", (_X, _Y), "Boolean", False, equal),
    Function("SequenceFunctions", "size", (_SEQ,), "Natural", False, len),
    Function("SequenceFunctions", "isEmpty", (_SEQ,), "Boolean", False, lambda seq: not seq),
    Function("SequenceFunctions", "notEmpty", (_SEQ,), "Boolean", False, lambda seq: bool(seq)),
    Function("SequenceFunctions", "includes", (_SEQ1, _SEQ2), "Boolean", False,
             lambda a, b: all(_contains(a, x) for x in b)),
    Function("SequenceFunctions", "includesOnly", (_SEQ1, _SEQ2), "Boolean", False,
             lambda a, b: all(_contains(a, x) for x in b) and all(_contains(b, x) for x in a)),
    Function("SequenceFunctions", "excludes", (_SEQ1, _SEQ2), "Boolean", False,
             lambda a, b: not any(_contains(a, x) for x in b)),
    Function("SequenceFunctions", "union", (_SEQ1, _SEQ2), _A, True, lambda a, b: a + b),
    Function("SequenceFunctions", "intersection", (_SEQ1, _SEQ2), _A, True,
             lambda a, b: tuple(x for x in a if _contains(b, x))),
    Function("SequenceFunctions", "including", (_SEQ, Param("values", _A, many=True)), _A, True,
             lambda seq, values: seq + values),
    Function("SequenceFunctions", "includingAt",
             (_SEQ, Param("values", _A, many=True), Param("index", "Positive")), _A, True, _including_at),
    Function("SequenceFunctions", "excluding", (_SEQ, Param("values", _A, many=True)), _A, True,
             lambda seq, values: tuple(x for x in seq if not _contains(values, x))),
    Function("SequenceFunctions", "excludingAt",
             (_SEQ, Param("startIndex", "Positive"), Param("endIndex", "Positive", optional=True)), _A, True,
             _excluding_at),
    Function("SequenceFunctions", "subsequence",
             (_SEQ, Param("startIndex", "Positive"), Param("endIndex", "Positive", optional=True)), _A, True,
             _subsequence),
    Function("SequenceFunctions", "head", (_SEQ,), _A1, False, lambda seq: _one(seq[:1])),
    Function("SequenceFunctions", "tail", (_SEQ,), _A, True, lambda seq: seq[1:]),
    Function("SequenceFunctions", "last", (_SEQ,), _A1, False, lambda seq: _one(seq[-1:])),
    Function("ControlFunctions", "collect", (_COLL, Param("mapper", BODY)), _A, True,
             lambda seq, f: tuple(y for x in seq for y in _many(f(x)))),
    Function("ControlFunctions", "select", (_COLL, Param("selector", BODY)), _A, True,
             lambda seq, f: tuple(x for x in seq if _holds(f(x), "select"))),
    Function("ControlFunctions", "reject", (_COLL, Param("rejector", BODY)), _A, True,
             lambda seq, f: tuple(x for x in seq if not _holds(f(x), "reject"))),
    Function("ControlFunctions", "forAll", (_COLL, Param("predicate", BODY)), "Boolean", False,
             lambda seq, f: all(_holds(f(x), "forAll") for x in seq)),
    Function("ControlFunctions", "exists", (_COLL, Param("predicate", BODY)), "Boolean", False,
             lambda seq, f: any(_holds(f(x), "exists") for x in seq)),
    Function("ControlFunctions", "reduce", (_COLL, Param("reducer", BODY)), "Anything[0..1]", False, _reduce),
    Function("NumericalFunctions", "isZero", (Param("x", "NumericalValue"),), "Boolean", False, lambda x: x == 0),
    Function("NumericalFunctions", "isUnit", (Param("x", "NumericalValue"),), "Boolean", False, lambda x: x == 1),
    *_numeric("NumericalFunctions", "NumericalValue"),
    *_numeric("RealFunctions", "Real"),
    Function("RealFunctions", "sqrt", (Param("x", "Real"),), "Real", False, _sqrt),
    Function("RealFunctions", "floor", (Param("x", "Real"),), "Integer", False, math.floor),
    Function("RealFunctions", "round", (Param("x", "Real"),), "Integer", False, _round),
    Function("RealFunctions", "ToInteger", (Param("x", "Real"),), "Integer", False, _to_integer),
    Function("RealFunctions", "ToRational", (Param("x", "Real"),), "Rational", False, _to_rational),
    Function("RealFunctions", "ToString", (Param("x", "Real"),), "String", False, _to_string),
    Function("RealFunctions", "ToReal", (Param("x", "String"),), "Real", False, lambda x: _parse(x, "Real")),
    *_numeric("RationalFunctions", "Rational"),
    Function("RationalFunctions", "rat", (Param("numer", "Integer"), Param("denum", "Integer")), "Rational", False,
             _rat),
    Function("RationalFunctions", "numer", (Param("rat", "Rational"),), "Integer", False,
             lambda r: Fraction(r).numerator),
    Function("RationalFunctions", "denom", (Param("rat", "Rational"),), "Integer", False,
             lambda r: Fraction(r).denominator),
    Function("RationalFunctions", "gcd", (Param("x", "Integer"), Param("y", "Integer")), "Natural", False, math.gcd),
    Function("RationalFunctions", "floor", (Param("x", "Rational"),), "Integer", False, math.floor),
    Function("RationalFunctions", "round", (Param("x", "Rational"),), "Integer", False, _round),
    *_numeric("IntegerFunctions", "Integer"),
    Function("IntegerFunctions", "ToNatural", (Param("x", "Integer"),), "Natural", False, _to_natural),
    Function("IntegerFunctions", "ToInteger", (Param("x", "String"),), "Integer", False,
             lambda x: _parse(x, "Integer")),
    Function("IntegerFunctions", "ToString", (Param("x", "Integer"),), "String", False, _to_string),
    Function("BooleanFunctions", "ToBoolean", (Param("x", "String"),), "Boolean", False,
             lambda x: _parse(x, "Boolean")),
    Function("BooleanFunctions", "ToString", (Param("x", "Boolean"),), "String", False, _to_string),
    Function("StringFunctions", "Length", (Param("x", "String"),), "Natural", False, len),
    Function("StringFunctions", "Substring", (Param("x", "String"), Param("lower", "Integer"),
                                              Param("upper", "Integer")), "String", False, _substring),
)

FUNCTION_BY_NAME: dict[str, Function] = {f.qualified_name: f for f in FUNCTIONS}

# Where a name written after `->` is looked up when the scope does not see it, first match first.
ARROW_PACKAGES = ("ControlFunctions", "SequenceFunctions", "NumericalFunctions", "BaseFunctions", "StringFunctions",
                  "BooleanFunctions")


def arrow_function(name: str) -> Function | None:
    """The library function `x->name(...)` means when the model declares and imports no such name."""
    for package in ARROW_PACKAGES:
        found = FUNCTION_BY_NAME.get(f"{package}::{name}")
        if found is not None:
            return found
    return None


def functions_named(name: str) -> list[Function]:
    """Every library function with this short name (for the hint of an unknown call)."""
    return [f for f in FUNCTIONS if f.name == name]


def function_declarations() -> str:
    """The library text declaring every function in its package, so resolution finds its name."""
    lines = []
    for package in dict.fromkeys(f.package for f in FUNCTIONS):
        lines.append(f"package {package} {{")
        for f in FUNCTIONS:
            if f.package == package:
                params = " ".join(f"in '{p.name}';" for p in f.params)
                lines.append(f"    calc def '{f.name}' {{ {params} return result; }}")
        lines.append("}")
    return "\n".join(lines) + "\n"


@functools.lru_cache(maxsize=1)
def library_document() -> s.Document:
    """The library's syntax tree: once per process, from the user's cache when a process before kept it."""
    from ir import library_cache

    text = LIBRARY_TEXT + function_declarations()
    digest = library_cache.key(text)
    document = library_cache.load(digest)
    if document is None:
        from ir.parse import parse

        document = parse(text, LIBRARY_PATH)
        library_cache.save(digest, document)
    return document
