"""Expressions as solver terms, with the run errors their evaluation raises as conditions: exact
arithmetic (an Integer stays an Integer under + - * and %, `/` is a Rational as the evaluator makes
it), Booleans with the conditional `and`/`or`/`implies`, enumeration literals. Anything else refuses
(NotCovered naming the node and the operation)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import z3

from engines.runtime.calls import calc_result
from engines.runtime.limits import MAX_CALC_DEPTH
from engines.runtime.operators import MAX_DIGITS
from engines.smt.net import NotCovered, Sort
from ir import syntax as s
from ir.library import FUNCTIONS, Function
from ir.model import Element

INT64 = 2 ** 63
LIMIT = 10 ** MAX_DIGITS  # the interpreter's NumberTooLarge bound on an exact result
# the library's numeric functions the encoding states as the interpreter computes them, by qualified
# name in each numeric package (ir/library.py states their signatures)
ENCODED_FUNCTIONS = ("abs", "max", "min", "floor", "round", "ToInteger", "ToRational", "isZero", "isUnit")
LIBRARY_SCALAR: dict[str, Function] = {
    f.qualified_name: f for f in FUNCTIONS if f.name in ENCODED_FUNCTIONS
    and all(p.type in ("Integer", "Rational", "Real", "NumericalValue") and not p.many for p in f.params)}
MAX_POWER = 16  # the largest literal exponent a power is encoded with (a product of that many factors)
ROOT = 10 ** (MAX_DIGITS // 2)  # a factor of a product past LIMIT is at least this large (or this small)


def magnitude(value: Any) -> Any:
    """|value| as one term. A bound stated on it, not as two comparisons of the value (`v >= B or
    v <= -B`), leaves the solver no case split on the value's sign: with the split, z3's nonlinear
    arithmetic spent a minute on pw::Powers (a square, a cube and a reciprocal of one Integer), 0.2 s
    without it."""
    return z3.If(value >= 0, value, -value)


def too_large(value: Any, kind: str) -> Any:
    """Where the interpreter refuses the result of an operator as too large (NumberTooLarge): an
    Integer of MAX_DIGITS digits or more; a Rational of that magnitude, or nonzero and at most its
    reciprocal (its numerator or denominator has that many digits: the interpreter refuses those and
    a few more, whose magnitude alone does not show it). Without this bound a loop squaring a number
    makes the solver multiply numbers of billions of digits, where it does not see its timeout."""
    return _beyond(value, kind, LIMIT)


def extreme_factor(value: Any, kind: str) -> Any:
    """A factor without which a product cannot be too_large: two factors both below ROOT in
    magnitude (and, for a Rational, both above its reciprocal or zero) give a product within the
    bound. Said first, it spares the solver's nonlinear arithmetic the bound's constant on every
    product of ordinary numbers."""
    return _beyond(value, kind, ROOT)


def _beyond(value: Any, kind: str, bound: int) -> Any:
    """At least `bound` in magnitude; for a Rational also nonzero and at most its reciprocal."""
    size = magnitude(value)
    if kind == "int":
        return size >= bound
    return z3.Or(size >= bound, z3.And(value != 0, size <= z3.RealVal(1) / bound))


@dataclass(frozen=True)
class Term:
    """A value as a solver term: `kind` bool, int, real, or `enum:<name>`."""

    value: Any
    kind: str
    unset: Any = None  # a feature read: the condition under which it has no value and reading it fails


Reader = Callable[[str], Term | None]  # a name read where the expression stands: a feature, or None


class Enums:
    """One solver sort per enumeration, made once."""

    def __init__(self) -> None:
        self.sorts: dict[str, tuple[Any, dict[str, Any]]] = {}

    def sort(self, sort: Sort) -> Any:
        return self._get(sort.enum, sort.literals)[0]

    def literal(self, enum: str, name: str) -> Any | None:
        known = self.sorts.get(enum)
        if known is None:
            return None
        return known[1].get(name)

    def _get(self, enum: str, literals: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
        known = self.sorts.get(enum)
        if known is None:
            known = self.sorts[enum] = _enum_sort(enum, literals)
        return known


def _enum_sort(enum: str, literals: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    """The sort of an enumeration's literals in the context terms are made in. A context declares a
    sort's name once: every query made in one (the two copies of a sensitivity query, a property's and
    a sensitivity's: one question's, answer.own_context) takes the one made there; one of the same name
    with other literals gets a name of its own. Kept on the context, so it goes with it."""
    context = z3.main_ctx()
    made_here: dict[tuple[str, tuple[str, ...]], tuple[Any, dict[str, Any]]] | None = \
        getattr(context, "enumeration_sorts", None)
    if made_here is None:
        made_here = context.enumeration_sorts = {}
    key = (enum, literals)
    known = made_here.get(key)
    if known is None:
        clashes = sum(1 for name, _ in made_here if name == enum)
        suffix = f"_{clashes}" if clashes else ""
        made, consts = z3.EnumSort(f"enum_{enum}{suffix}", [f"{enum}{suffix}_{x}" for x in literals])
        known = made_here[key] = (made, dict(zip(literals, consts, strict=True)))
    return known


def variable(name: str, sort: Sort, enums: Enums) -> Any:
    if sort.kind == "bool":
        return z3.Bool(name)
    if sort.kind == "int":
        return z3.Int(name)
    if sort.kind == "real":
        return z3.Real(name)
    if sort.kind == "str":
        return z3.String(name)
    return z3.Const(name, enums.sort(sort))


def kind_of(sort: Sort) -> str:
    return f"enum:{sort.enum}" if sort.kind == "enum" else sort.kind


def plain_text(text: str) -> bool:
    """A string the solver's string theory holds exactly as Python does: printable ASCII, no escape."""
    return all(" " <= c <= "~" and c != "\\" for c in text)


def _path(e: s.Expr) -> str | None:
    """A chain of plain names as the dotted path a node's feature is reported by (`p.b`)."""
    if isinstance(e, s.Name):
        return e.name
    if isinstance(e, s.Chain):
        base = _path(e.base)
        return None if base is None else f"{base}.{e.feature}"
    return None


class Translator:
    """Translates the expressions of one node (`where`), reading names through `read`, enumeration
    literals through `literal` (a qualified name to (enum, literal) or None)."""

    def __init__(self, enums: Enums, read: Reader, literal: Callable[[str], tuple[str, str] | None],
                 where: str, calcs: Callable[[Element | None, str], Element | None] | None = None,
                 scope: Element | None = None, inlining: tuple[str, ...] = (),
                 memo: dict[tuple[str, tuple[str, ...]], Term] | None = None,
                 usages: Callable[[str], s.Call | None] | None = None,
                 constants: Callable[[str], tuple[s.Expr, str] | None] | None = None) -> None:
        self.enums = enums
        self.read = read
        self.literal = literal
        self.where = where
        self.calcs = calcs  # a calculation invoked by its name from a scope (None: none is inlined)
        self.scope = scope  # where the names of the expression resolve (None: the action)
        self.inlining = inlining  # the calculations being inlined around this expression, outermost first
        self.memo = memo if memo is not None else {}  # a calculation's result on fixed arguments
        # a calc usage by its name (`calc t : Twice { in k = v; }`) as the invocation reading its result is
        self.usages = usages
        # a package's attribute bound to a literal (`attribute pkgLevel : Real = 7.0;`): its value and type
        self.constants = constants

    def _constant(self, value: s.Expr, type_text: str) -> tuple[Term, Any]:
        """A package's attribute bound to a literal, held as its declared type holds it (`= 7` of a Real
        is 7.0); a type the solver has no sort for is refused."""
        term, err = self.eval(value)
        short = type_text.rsplit("::", 1)[-1]
        if short in ("Real", "Rational") and term.kind == "int":
            return Term(z3.ToReal(term.value), "real"), err
        if short and short not in ("Integer", "Real", "Rational", "Boolean", "String"):
            raise self.refuse(f"a package's attribute of type {type_text}")
        return term, err

    def refuse(self, what: str) -> NotCovered:
        return NotCovered(self.where, what)

    def eval(self, e: s.Expr) -> tuple[Term, Any]:
        """The term and the condition under which evaluating it raises a run error."""
        if isinstance(e, s.Literal):
            if e.kind == "integer":
                return Term(z3.IntVal(int(e.text)), "int"), z3.BoolVal(False)
            if e.kind == "real":
                from fractions import Fraction

                exact = Fraction(e.text)
                return Term(z3.RealVal(f"{exact.numerator}/{exact.denominator}"), "real"), z3.BoolVal(False)
            if e.kind == "boolean":
                return Term(z3.BoolVal(e.text == "true"), "bool"), z3.BoolVal(False)
            if e.kind == "string" and plain_text(e.text):
                return Term(z3.StringVal(e.text), "str"), z3.BoolVal(False)
            raise self.refuse(f"a {e.kind} literal")
        if isinstance(e, (s.Name, s.Chain)):
            # a feature by its name or its path (`p.b`), failing where it has no value
            path = _path(e)
            if path is not None and path.startswith("this."):
                path = path.removeprefix("this.")  # a free action is its own context: `this.c` is c around
            found = self.read(path) if path is not None else None
            if found is not None:
                return found, z3.BoolVal(False) if found.unset is None else found.unset
            if isinstance(e, s.Chain) and isinstance(e.base, s.Name) and self.usages is not None:
                invocation = self.usages(e.base.name)
                if invocation is not None:
                    # a calc usage computes when its result is read, from its inputs' values then
                    return self._invoke(invocation)
            if isinstance(e, s.Chain):
                raise self.refuse("a feature chain")
            lit = self.literal(e.name)
            if lit is not None:
                value = self.enums.literal(*lit)
                if value is not None:
                    return Term(value, f"enum:{lit[0]}"), z3.BoolVal(False)
            constant = self.constants(e.name) if self.constants is not None else None
            if constant is not None:
                return self._constant(*constant)
            raise self.refuse(f"the name '{e.name}'")
        if isinstance(e, s.Unary):
            term, err = self.eval(e.operand)
            if e.op == "not":
                self._need(term, "bool", "not")
                return Term(z3.Not(term.value), "bool"), err
            if e.op in ("-", "+") and term.kind in ("int", "real"):
                return Term(-term.value if e.op == "-" else term.value, term.kind), err
            raise self.refuse(f"the operator '{e.op}'")
        if isinstance(e, s.Binary):
            return self._binary(e)
        if isinstance(e, s.Conditional):
            cond, err_c = self.eval(e.condition)
            self._need(cond, "bool", "if")
            fixed = z3.simplify(cond.value)
            if self.inlining and (z3.is_true(fixed) or z3.is_false(fixed)):
                # inside a calculation on fixed arguments only the branch taken is read (as the
                # interpreter reads it), so a recursion ends where its condition says
                taken, err_t = self.eval(e.then if z3.is_true(fixed) else e.otherwise)
                return taken, z3.Or(err_c, err_t)
            a, err_a = self.eval(e.then)
            b, err_b = self.eval(e.otherwise)
            a, b = self._unify(a, b, "if")
            err = z3.Or(err_c, z3.And(z3.Not(err_c), z3.If(cond.value, err_a, err_b)))
            return Term(z3.If(cond.value, a.value, b.value), a.kind), err
        if isinstance(e, s.Call):
            return self._invoke(e)
        raise self.refuse(type(e).__name__.lower())

    def _invoke(self, e: s.Call) -> tuple[Term, Any]:
        """A calculation of the model invoked: its arguments read in order (an error in one fails the
        invocation), then its result expression inlined over them, as the interpreter evaluates it in a
        frame of its parameters alone."""
        calc = self.calcs(self.scope, e.callee.name) if self.calcs is not None and isinstance(e.callee, s.Name) \
            and not e.arrow else None
        if calc is None:
            named = f" of '{e.callee.name}'" if isinstance(e.callee, s.Name) else ""
            raise self.refuse(f"an invocation{named}, which names no calculation of the model and none of the "
                              f"library functions encoded ({', '.join(ENCODED_FUNCTIONS)} of an imported "
                              "numeric package)")
        if calc.library:
            return self._library(e, calc)
        if len(self.inlining) >= MAX_CALC_DEPTH:
            raise self.refuse(f"calculations nested more than {MAX_CALC_DEPTH} deep ({calc.name}), where the "
                              "interpreter stops with a run error")
        params = [m for m in calc.members.values() if isinstance(m.decl, s.Usage) and m.decl.direction == "in"]
        names = {p.name for p in params}
        errs: list[Any] = []
        bound: dict[str, Term] = {}
        for i, arg in enumerate(e.args):
            term, err = self.eval(arg)
            errs.append(err)
            if i < len(params):
                bound[params[i].name] = Term(term.value, term.kind)
        for name, arg in e.named:
            term, err = self.eval(arg)
            errs.append(err)
            if name not in names:
                raise self.refuse(f"an argument '{name}', which is no parameter of {calc.name}")
            bound[name] = Term(term.value, term.kind)
        result = calc_result(calc)
        if result is None:
            raise self.refuse(f"calculation {calc.name}, which states no result")
        given = {name: z3.simplify(term.value) for name, term in bound.items()}
        key = (calc.qualified_name, tuple(str(given[p.name]) if p.name in given else "" for p in params))
        # every parameter given a value the solver does not choose (a literal, after simplification)
        concrete = all(p.name in given and z3.is_const(given[p.name])
                       and given[p.name].decl().kind() != z3.Z3_OP_UNINTERPRETED for p in params)
        if not concrete and calc.qualified_name in self.inlining:
            raise self.refuse(f"{calc.name} recursing on arguments the solver does not fix")
        if concrete and key in self.memo:
            return self.memo[key], z3.Or(errs) if errs else z3.BoolVal(False)

        def read(name: str) -> Term | None:
            return bound.get(name)

        inner = Translator(self.enums, read, self.literal, self.where, self.calcs, calc,
                           (*self.inlining, calc.qualified_name), self.memo)
        for p in params:
            if p.name not in bound:
                if not isinstance(p.decl, s.Usage) or p.decl.value is None:
                    raise self.refuse(f"{calc.name} invoked with no value for its parameter '{p.name}'")
                term, perr = inner.eval(p.decl.value)
                errs.append(perr)
                bound[p.name] = term
        value, inner_err = inner.eval(result)
        if concrete and z3.is_false(z3.simplify(inner_err)):
            self.memo[key] = value
        return value, z3.Or(z3.Or(errs) if errs else z3.BoolVal(False), inner_err)

    def _library(self, e: s.Call, function: Element) -> tuple[Term, Any]:
        """`abs(x)`, `max(x, y)`, `min(x, y)` of a numeric package, as the library computes them over the
        arguments read in order: one with no value a run error; an IntegerFunctions' argument that is
        no Integer, arguments of two kinds (whose result's kind the values decide), named arguments or
        another count refused."""
        name = function.qualified_name
        library = LIBRARY_SCALAR[name]
        if e.named or len(e.args) != len(library.params):
            raise self.refuse(f"{name} invoked other than with its {len(library.params)} positional argument(s)")
        terms: list[Term] = []
        errs: list[Any] = []
        for arg, param in zip(e.args, library.params, strict=True):
            term, err = self.eval(arg)
            if term.kind not in ("int", "real") or (param.type == "Integer" and term.kind != "int"):
                raise self.refuse(f"{name} over {term.kind}")
            # an argument with no value is no value for the parameter: a run error
            errs.append(z3.Or(err, term.unset) if term.unset is not None else err)
            terms.append(term)
        if len({t.kind for t in terms}) != 1:
            raise self.refuse(f"{name} over an Integer and a Rational")
        a, kind = terms[0].value, terms[0].kind
        name = library.name
        if name == "abs":
            return Term(z3.If(a < 0, -a, a), kind), z3.Or(errs)
        if name in ("max", "min"):
            b = terms[1].value
            return Term(z3.If(b > a, b, a) if name == "max" else z3.If(b < a, b, a), kind), z3.Or(errs)
        if name in ("isZero", "isUnit"):
            return Term(a == (0 if name == "isZero" else 1), "bool"), z3.Or(errs)
        if name == "ToRational":
            return Term(z3.ToReal(a) if kind == "int" else a, "real"), z3.Or(errs)
        if kind == "int":
            return Term(a, "int"), z3.Or(errs)  # floor, round and ToInteger of an Integer: itself
        # z3's ToInt is the floor; round goes half toward positive infinity, ToInteger toward zero
        value = {"floor": z3.ToInt(a), "round": z3.ToInt(a + z3.RealVal("1/2")),
                 "ToInteger": z3.If(a >= 0, z3.ToInt(a), -z3.ToInt(-a))}[name]
        return Term(value, "int"), z3.Or(errs)

    def _coalesce(self, e: s.Binary) -> tuple[Term, Any]:
        """`a ?? b`: b where a is null (the literal, or a feature read that has no value), else a; b is
        read only then."""
        if isinstance(e.left, s.Literal) and e.left.kind == "null":
            return self.eval(e.right)
        left, err_l = self.eval(e.left)
        if left.unset is None:
            return left, err_l  # never null: b is never read
        right, err_r = self.eval(e.right)
        left, right = self._unify(left, right, "??")
        return Term(z3.If(left.unset, right.value, left.value), left.kind), z3.And(left.unset, err_r)

    def _power(self, e: s.Binary, base: Term, exponent: Term, err: Any) -> tuple[Term, Any]:
        """An Integer raised to an integer literal (`x ** 2`, `n ^ -1`) as the interpreter computes it:
        a product of the base, an Integer for an exponent >= 0, else the Rational reciprocal (a zero base
        a run error). Too large where the base is large enough that the interpreter might refuse the
        result (`10 ** (MAX_DIGITS / n - 1)`, a little wider than its own estimate: a refusal it does
        not make is a replay that disagrees, never a proof). Any other power is refused."""
        literal = e.right.operand if isinstance(e.right, s.Unary) and e.right.op == "-" else e.right
        if base.kind != "int" or exponent.kind != "int" or not isinstance(literal, s.Literal) \
                or literal.kind != "integer" or int(literal.text) > MAX_POWER:
            raise self.refuse(f"'{e.op}' other than an Integer raised to an integer literal of at most {MAX_POWER}")
        n = int(literal.text)
        product: Any = z3.IntVal(1) if n == 0 else base.value
        for _ in range(n - 1):
            product = product * base.value
        large = z3.BoolVal(False) if n < 2 else magnitude(base.value) >= 10 ** (MAX_DIGITS // n - 1)
        if literal is e.right or n == 0:
            return Term(product, "int"), z3.Or(err, large)
        return Term(z3.RealVal(1) / z3.ToReal(product), "real"), z3.Or(err, large, base.value == 0)

    def _need(self, term: Term, kind: str, op: str) -> None:
        if term.kind != kind:
            raise self.refuse(f"'{op}' over {term.kind}")

    def _unify(self, a: Term, b: Term, op: str) -> tuple[Term, Term]:
        if a.kind == b.kind:
            return a, b
        if {a.kind, b.kind} == {"int", "real"}:
            return (Term(z3.ToReal(a.value), "real") if a.kind == "int" else a,
                    Term(z3.ToReal(b.value), "real") if b.kind == "int" else b)
        raise self.refuse(f"'{op}' over {a.kind} and {b.kind}")

    def _binary(self, e: s.Binary) -> tuple[Term, Any]:
        op = e.op
        if op == "??":
            return self._coalesce(e)
        left, err_l = self.eval(e.left)
        right, err_r = self.eval(e.right)
        if op in ("and", "or", "implies"):
            self._need(left, "bool", op)
            self._need(right, "bool", op)
            lhs, rhs = left.value, right.value
            # conditional: the right operand is evaluated only when the left does not decide
            decides = z3.Not(lhs) if op == "and" else (lhs if op == "or" else z3.Not(lhs))
            err = z3.Or(err_l, z3.And(z3.Not(err_l), z3.Not(decides), err_r))
            value = z3.And(lhs, rhs) if op == "and" else (z3.Or(lhs, rhs) if op == "or" else z3.Implies(lhs, rhs))
            return Term(value, "bool"), err
        err = z3.Or(err_l, err_r)
        if op in ("&", "|", "xor"):
            self._need(left, "bool", op)
            self._need(right, "bool", op)
            lhs, rhs = left.value, right.value
            value = z3.And(lhs, rhs) if op == "&" else (z3.Or(lhs, rhs) if op == "|" else z3.Xor(lhs, rhs))
            return Term(value, "bool"), err
        if op == "+" and left.kind == "str" and right.kind == "str":
            return Term(z3.Concat(left.value, right.value), "str"), err
        if op in ("==", "===", "!=", "!=="):
            if left.kind != right.kind and {left.kind, right.kind} != {"int", "real"}:
                raise self.refuse(f"'{op}' over {left.kind} and {right.kind}")
            left, right = self._unify(left, right, op)
            same = left.value == right.value
            return Term(same if op in ("==", "===") else z3.Not(same), "bool"), err
        if left.kind not in ("int", "real") or right.kind not in ("int", "real"):
            raise self.refuse(f"the operator '{op}' over {left.kind} and {right.kind}")
        if op in ("<", ">", "<=", ">="):
            left, right = self._unify(left, right, op)
            lhs, rhs = left.value, right.value
            value = {"<": lhs < rhs, ">": lhs > rhs, "<=": lhs <= rhs, ">=": lhs >= rhs}[op]
            return Term(value, "bool"), err
        if op in ("+", "-", "*"):
            left, right = self._unify(left, right, op)
            lhs, rhs = left.value, right.value
            value = lhs + rhs if op == "+" else (lhs - rhs if op == "-" else lhs * rhs)
            # only a product is bounded: a product doubles its digits a move, where a sum gains one bit
            # (past the bound only from a literal of nearly 4,000 digits); the bound's constant in every sum
            # slowed the solver's exact simplex two to tenfold
            if op != "*":
                return Term(value, left.kind), err
            extreme = z3.Or(extreme_factor(lhs, left.kind), extreme_factor(rhs, left.kind))
            return Term(value, left.kind), z3.Or(err, z3.And(extreme, too_large(value, left.kind)))
        if op == "/":
            lhs = left.value if left.kind == "real" else z3.ToReal(left.value)
            rhs = right.value if right.kind == "real" else z3.ToReal(right.value)
            # the quotient's bound said of lhs and rhs: the same condition, without the solver
            # reasoning about the magnitude of a quotient
            small = z3.And(lhs != 0, lhs <= rhs / LIMIT, lhs >= -rhs / LIMIT)
            large = z3.Or(lhs >= rhs * LIMIT, lhs <= -rhs * LIMIT)
            past = z3.If(rhs > 0, z3.Or(large, small), z3.Or(z3.Or(lhs <= rhs * LIMIT, lhs >= -rhs * LIMIT),
                                                              z3.And(lhs != 0, lhs >= rhs / LIMIT, lhs <= -rhs / LIMIT)))
            return Term(lhs / rhs, "real"), z3.Or(err, rhs == 0, z3.And(rhs != 0, past))
        if op in ("**", "^"):
            return self._power(e, left, right, err)
        if op == "%":
            if left.kind != "int" or right.kind != "int":
                raise self.refuse("'%' over a Rational")
            lhs, rhs = left.value, right.value
            quotient = z3.Abs(lhs) / z3.Abs(rhs)  # floor of non-negatives: the truncated magnitude
            truncated = z3.If((lhs >= 0) == (rhs >= 0), quotient, -quotient)
            return Term(lhs - rhs * truncated, "int"), z3.Or(err, rhs == 0)
        raise self.refuse(f"the operator '{op}'")
