"""Generated expressions over the operator table, printed as SysML v2 text, and an independent
reference evaluator over exact rationals.

The reference follows KerML 1.0 (operator expressions, 7.4.9 and 8.2.5.8): Integer `+ - *` stay
Integer, Integer `/` Integer is a Rational (22 / 4 = 11/2), `**` with a negative Integer exponent is
a Rational, `%` truncates toward zero (the sign follows the dividend: -13 % 4 = -1, 13 % -4 = 1, the
evaluator the oracle pins), a zero divisor (`/`, `%`, `0 ** -n`) is an error, the unary minus binds
tighter than `**` (it is the operand: `-3 ** 2` is 9), and `and`/`or` are the conditional logical
operators (the second operand is evaluated only when the first does not decide) while `&`, `|` and
`xor` evaluate both. Nothing here imports the project's evaluator.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import strategies as st

# ------------------------------------------------------------------ the expression tree


@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class Un:
    op: str  # "-", "+", "not"
    operand: Expr


@dataclass(frozen=True)
class Bin:
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Cond:
    condition: Expr
    then: Expr
    otherwise: Expr


Expr = Lit | Un | Bin | Cond

ARITHMETIC = ("+", "-", "*", "/")
COMPARISONS = ("<", ">", "<=", ">=", "==", "!=")
LOGICAL = ("and", "or", "xor", "&", "|")

# ------------------------------------------------------------------ printing (KerML precedence)

# binding strength, loosest first; a conditional is the loosest of all (0)
_LEVEL = {"implies": 1, "or": 2, "|": 2, "xor": 3, "and": 4, "&": 4, "==": 5, "!=": 5,
          "<": 6, ">": 6, "<=": 6, ">=": 6, "+": 7, "-": 7, "*": 8, "/": 8, "%": 8, "**": 10}
_UNARY = 9
_PRIMARY = 11  # KerML's unary operators take a primary: `-(2 ** 2)`, `not (a < b)`


def _level(e: Expr) -> int:
    if isinstance(e, Lit):
        return _PRIMARY
    if isinstance(e, Un):
        return _UNARY
    if isinstance(e, Bin):
        return _LEVEL[e.op]
    return 0


def spell(e: Expr, kerml_minus: bool = False) -> str:
    """The expression as SysML v2 text with as few parentheses as KerML's precedence needs.

    Every binary operator is left-associative but `**` (right). `not` is printed only before an
    operand that needs no parentheses at the unary level, so the text means the same whether `not`
    binds like KerML's unary operators or looser (as the project's grammar has it). A negated or
    plussed base of `**` is parenthesized unless `kerml_minus`: then it is printed bare (`-3 ** 2`),
    which KerML reads as `(-3) ** 2`."""
    if isinstance(e, Lit):
        return e.text
    if isinstance(e, Cond):
        return f"if {_wrap(e.condition, 1, kerml_minus)} ? {spell(e.then, kerml_minus)} else {spell(e.otherwise, kerml_minus)}"
    if isinstance(e, Un):
        sep = " " if e.op == "not" else ""
        return f"{e.op}{sep}{_wrap(e.operand, _PRIMARY, kerml_minus)}"
    level = _LEVEL[e.op]
    if e.op == "**":
        base_min = _UNARY if kerml_minus and isinstance(e.left, Un) and e.left.op != "not" else level + 1
        return f"{_wrap(e.left, base_min, kerml_minus)} ** {_wrap(e.right, _UNARY, kerml_minus)}"
    return f"{_wrap(e.left, level, kerml_minus)} {e.op} {_wrap(e.right, level + 1, kerml_minus)}"


def _wrap(e: Expr, minimum: int, kerml_minus: bool) -> str:
    text = spell(e, kerml_minus)
    if _level(e) < minimum or (isinstance(e, Un) and e.op == "not" and minimum > _LEVEL["and"]):
        return f"({text})"
    return text


# ------------------------------------------------------------------ the reference evaluator


class RefError(Exception):
    """The evaluation fails; `kind` says which operator met a zero divisor."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


@dataclass(frozen=True)
class Val:
    type: str  # Integer, Rational, Boolean
    value: Fraction | bool

    def text(self) -> str:
        """The value as the corpus spells it: `7`, `5.5`, `2.0`, `25/12`, `true`."""
        if self.type == "Boolean":
            return "true" if self.value else "false"
        number = Fraction(self.value)
        if self.type == "Integer":
            return str(number.numerator)
        den = number.denominator
        for p in (2, 5):
            while den % p == 0:
                den //= p
        if den != 1:
            return f"{number.numerator}/{number.denominator}"
        places = 0
        while (number * 10**places).denominator != 1:
            places += 1
        digits = abs(number.numerator) * 10**places // number.denominator
        whole, frac = divmod(digits, 10**places)
        sign = "-" if number < 0 else ""
        frac_text = str(frac).rjust(places, "0").rstrip("0") if places else ""
        return f"{sign}{whole}.{frac_text or '0'}"


def _literal(text: str) -> Val:
    if text in ("true", "false"):
        return Val("Boolean", text == "true")
    if "." in text:
        return Val("Rational", Fraction(text))
    return Val("Integer", Fraction(int(text)))


def _numeric(a: Val, b: Val) -> str:
    return "Integer" if a.type == b.type == "Integer" else "Rational"


def _truncating_mod(a: Fraction, b: Fraction) -> Fraction:
    quotient = a / b
    return a - b * math.trunc(quotient)


def evaluate(e: Expr, conditional: bool = True) -> Val:
    """The value of `e`, or RefError; operands left to right, the second operand of `and`/`or` only
    when the first does not decide (all of them when not `conditional`)."""
    if isinstance(e, Lit):
        return _literal(e.text)
    if isinstance(e, Cond):
        condition = evaluate(e.condition, conditional)
        return evaluate(e.then if condition.value else e.otherwise, conditional)
    if isinstance(e, Un):
        v = evaluate(e.operand, conditional)
        if e.op == "not":
            return Val("Boolean", not v.value)
        return Val(v.type, -Fraction(v.value) if e.op == "-" else v.value)
    left = evaluate(e.left, conditional)
    if conditional and e.op == "and" and not left.value:
        return Val("Boolean", False)
    if conditional and e.op == "or" and left.value:
        return Val("Boolean", True)
    right = evaluate(e.right, conditional)
    if e.op in ("and", "or", "&", "|", "xor"):
        a, b = bool(left.value), bool(right.value)
        out = {"and": a and b, "&": a and b, "or": a or b, "|": a or b, "xor": a != b}[e.op]
        return Val("Boolean", out)
    if e.op in ("==", "!="):
        return Val("Boolean", (left.value == right.value) == (e.op == "=="))
    x, y = Fraction(left.value), Fraction(right.value)
    if e.op in ("<", ">", "<=", ">="):
        return Val("Boolean", {"<": x < y, ">": x > y, "<=": x <= y, ">=": x >= y}[e.op])
    if e.op == "+":
        return Val(_numeric(left, right), x + y)
    if e.op == "-":
        return Val(_numeric(left, right), x - y)
    if e.op == "*":
        return Val(_numeric(left, right), x * y)
    if e.op == "/":
        if y == 0:
            raise RefError("/")
        return Val("Rational", x / y)
    if e.op == "%":
        if y == 0:
            raise RefError("%")
        return Val(_numeric(left, right), _truncating_mod(x, y))
    if e.op == "**":
        assert right.type == "Integer"
        n = int(y)
        if n < 0 and x == 0:
            raise RefError("**")
        return Val("Rational" if n < 0 else left.type, x**n)
    raise AssertionError(e.op)


# ------------------------------------------------------------------ strategies

_INTEGERS = st.integers(0, 12).map(lambda n: Lit(str(n)))
_DECIMALS = st.sampled_from(["0.1", "0.25", "0.5", "1.5", "2.5", "3.75", "0.2", "10.0", "0.125", "4.0"]).map(Lit)
_EXPONENTS = st.integers(-3, 4).map(lambda n: Lit(str(n)) if n >= 0 else Un("-", Lit(str(-n))))


@dataclass(frozen=True)
class Table:
    """Which part of the operator table a strategy draws from."""

    modulo: bool = False
    logical: tuple[str, ...] = ("xor", "&", "|")  # `and`/`or` only where their conditional reading is meant


@functools.cache
def numbers(table: Table, depth: int = 4) -> st.SearchStrategy[Expr]:
    leaves = st.one_of(_INTEGERS, _DECIMALS)
    if depth == 0:
        return leaves
    inner = numbers(table, depth - 1)
    ops = ARITHMETIC + (("%",) if table.modulo else ())
    return st.one_of(
        leaves,
        st.builds(Bin, st.sampled_from(ops), inner, inner),
        st.builds(Un, st.sampled_from(["-", "+"]), inner),
        st.builds(lambda base, exp: Bin("**", base, exp), inner, _EXPONENTS),
        st.builds(Cond, booleans(table, depth - 1), inner, inner),
    )


@functools.cache
def booleans(table: Table, depth: int = 4) -> st.SearchStrategy[Expr]:
    leaves = st.sampled_from([Lit("true"), Lit("false")])
    if depth == 0:
        return leaves
    inner = booleans(table, depth - 1)
    numeric = numbers(table, depth - 1)
    return st.one_of(
        leaves,
        st.builds(Bin, st.sampled_from(COMPARISONS), numeric, numeric),
        st.builds(Bin, st.sampled_from((*table.logical, "==", "!=")), inner, inner),
        st.builds(Un, st.just("not"), inner),
        st.builds(Cond, inner, inner, inner),
    )


def expressions(table: Table, depth: int = 4) -> st.SearchStrategy[Expr]:
    return st.one_of(numbers(table, depth), booleans(table, depth))
