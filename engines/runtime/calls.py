"""Invocations in expressions: a model's calculations, the library's functions (ir.library), and
construction of instances (`new Ticket(7, true)`, `Ticket(7, true)`).

Construction binds the arguments to the type's features in KerML's `Type::feature` order: the
type's own features in declaration order, then the inherited ones (nearest general first) that no
own feature redefines; a named argument (`new Warning(level = 2.5)`) binds the feature of that
name. Each argument is checked against its feature's declared type; a feature left without an
argument takes its declared value. More arguments than features, a name that is no feature, or (when
arguments are given at all) a feature with neither argument nor declared value is a
`ConstructionError` naming the type. The instance is an object of the run (`materialize: T #n`),
spelled `instance#n`, whose features a chain reads (`t.number`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from engines.errors import (
    ConstructionError,
    DivisionByZero,
    EvaluationError,
    IndexOutOfRange,
    NumberTooLarge,
    TypeMismatch,
)
from engines.runtime.limits import MAX_CALC_DEPTH, calculations_too_deep
from engines.runtime.operators import bounded, elements_of
from engines.runtime.types import checked, rule_for
from engines.runtime.values import (
    UNSET,
    Quantity,
    Sequence,
    Value,
    conforms,
    spell,
    type_name,
    with_article,
)
from ir import syntax as s
from ir.library import BODY, FUNCTION_BY_NAME, Function, LibraryError, arrow_function, functions_named
from ir.model import Element, Model
from ir.resolve import lineage

if TYPE_CHECKING:
    from engines.runtime.evaluate import Frame
    from engines.runtime.world import Context

CALCULATIONS = ("calc", "constraint", "requirement")  # what an invocation evaluates
_CONSTRUCTIBLE = ("item", "attribute", "part", "occurrence", "port")
_FEATURE_KINDS = ("attribute", "item", "part", "ref", "feature", "occurrence", "port", "enum")


class Calls:
    """The evaluator's invocations (mixed into engines.runtime.evaluate.Evaluator)."""

    ctx: Context
    invoking: list[str]  # the calculations being invoked, outermost first

    if TYPE_CHECKING:
        def eval(self, expr: s.Expr, frame: Frame, depth: int) -> Value: ...
        def _eval(self, e: s.Expr, frame: Frame, depth: int) -> Value: ...
        def _line(self, depth: int, text: str, value: Value) -> None: ...
        def _model_element(self, name: str, frame: Frame) -> Element | None: ...

    def _call(self, e: s.Call, frame: Frame, depth: int) -> Value:
        callee = e.callee
        if not isinstance(callee, s.Name):
            raise EvaluationError("only named calculations can be invoked")
        name = callee.name
        el = self._model_element(name, frame)
        function = FUNCTION_BY_NAME.get(el.qualified_name) if el is not None and el.library else None
        if function is None and e.arrow and (el is None or el.base_kind not in CALCULATIONS):
            function = arrow_function(name)  # `xs->size()` names the library's operation on xs
        if function is None and el is not None and el.is_definition and el.base_kind in _CONSTRUCTIBLE:
            value = self.construct(name, e.args, e.named, frame, depth, e)
            self._line(depth, f"eval invoke {name}", value)
            return value
        if function is None and el is None:
            raise EvaluationError(_unknown_call(name))
        if function is not None:
            given = [self._body(a, frame) if isinstance(a, s.Lambda) else self._eval(a, frame, depth + 1)
                     for a in e.args]
            value = call_library(function, given, {n: self._eval(v, frame, depth + 1) for n, v in e.named})
            self._line(depth, f"eval invoke {name}", value)
            return value
        if any(isinstance(a, s.Lambda) for a in e.args):
            raise EvaluationError(f"a body expression {{in x; ...}} is passed to a library function only ('{name}')")
        args = [self._eval(a, frame, depth + 1) for a in e.args]
        named = {n: self._eval(v, frame, depth + 1) for n, v in e.named}
        if el is not None and el.base_kind in CALCULATIONS:
            value = self.invoke(el, args, named, frame)
        else:
            raise EvaluationError(f"'{name}' is not a calculation")
        self._line(depth, f"eval invoke {name}", value)
        return value

    def _body(self, lam: s.Lambda, frame: Frame) -> Body:
        """A body expression as the library calls it: its parameters bound, evaluated quietly."""
        from engines.runtime.evaluate import Frame

        def call(*plain: object) -> object:
            if len(plain) != len(lam.params):
                raise LibraryError(f"the body {{{'; '.join('in ' + p for p in lam.params)}; ...}} takes "
                                   f"{len(lam.params)} value(s), and is given {len(plain)}")
            bound: dict[str, Value] = {p: _value(v) for p, v in zip(lam.params, plain, strict=True)}
            return _plain(self._quiet(lam.body, Frame(frame.label, frame.scope, frame, bound, block=True)))

        return Body(call)

    def invoke(self, calc: Element, args: list[Value], named: dict[str, Value], caller: Frame) -> Value:
        """A calculation's result for the given inputs, evaluated without tracing its inside."""
        chain = self.invoking
        chain.append(calc.name)
        try:
            if len(chain) > MAX_CALC_DEPTH:
                raise calculations_too_deep(chain)
            return self._invoke(calc, args, named)
        finally:
            chain.pop()

    def _invoke(self, calc: Element, args: list[Value], named: dict[str, Value]) -> Value:
        from engines.runtime.evaluate import Frame

        params = calc_inputs(calc)
        frame = Frame(calc.qualified_name, calc, None)
        for i, p in enumerate(params):
            if p.name in named:
                frame.values[p.name] = named[p.name]
            elif i < len(args):
                frame.values[p.name] = args[i]
            elif isinstance(p.decl, s.Usage) and p.decl.value is not None:
                frame.values[p.name] = self._quiet(p.decl.value, frame)
            else:
                frame.values[p.name] = UNSET
        result_expr = calc_result(calc)
        if result_expr is None:
            raise EvaluationError(f"calculation {calc.qualified_name} states no result")
        return self._quiet(result_expr, frame)

    def _quiet(self, expr: s.Expr, frame: Frame) -> Value:
        with self.ctx.trace.quiet():
            return self.eval(expr, frame, 0)

    # ------------------------------------------------------------ construction

    def construct(self, type_text: str, args: tuple[s.Expr, ...], named: tuple[tuple[str, s.Expr], ...],
                  frame: Frame, depth: int, e: s.Expr) -> Value:
        """A new instance of a definition, its features bound from the arguments (module docstring)."""
        from engines.runtime.evaluate import Frame

        el = self._model_element(type_text, frame)
        if el is None or not el.is_definition:
            raise ConstructionError(f"new {type_text}: no definition named '{type_text}'")
        positional = [self._eval(a, frame, depth) for a in args]
        by_name = [(n, self._eval(v, frame, depth)) for n, v in named]
        model = self.ctx.program.model
        features = constructor_features(model, el)
        names = [f.name for f in features]
        shown = f"{el.name}({', '.join(spell(v) for v in positional)})" if positional else el.name
        if len(positional) > len(features):
            listed = ", ".join(names) if names else "none"
            raise ConstructionError(f"new {shown}: {len(positional)} arguments, and {el.name} has "
                                    f"{len(features)} features ({listed})")
        given: dict[str, Value] = dict(zip(names, positional, strict=False))
        for n, v in by_name:
            if n not in names:
                raise ConstructionError(f"new {el.name}: {el.name} has no feature '{n}' "
                                        f"(its features: {', '.join(names) or 'none'})")
            if n in given:
                raise ConstructionError(f"new {el.name}: feature '{n}' given twice")
            given[n] = v
        values: dict[str, Value] = {}
        program = self.ctx.program
        for feature in features:
            decl = feature.decl
            assert isinstance(decl, s.Usage)
            type_of = decl.types[0] if decl.types else ""
            if feature.name in given:
                value = given[feature.name]
                rule = rule_for(model, feature.owner, type_of, program.type_rules) if type_of else None
                values[feature.name] = checked(rule, feature.name, value, f"new {el.name}: argument for") \
                    if rule is not None else value
            elif decl.value is not None:
                values[feature.name] = self._quiet(decl.value, Frame(el.qualified_name, feature.owner, None))
            elif given:
                raise ConstructionError(f"new {shown}: no argument for feature '{feature.name}', "
                                        f"and it declares no value")
            else:
                values[feature.name] = UNSET
        return self.ctx.materialize(el.name, el.qualified_name, values)


def constructor_features(model: Model, el: Element) -> list[Element]:
    """The features construction binds, in KerML's Type::feature order (module docstring)."""
    out: list[Element] = []
    hidden: set[str] = set()
    for current in lineage(model, el):
        for member in current.members.values():
            decl = member.decl
            if not isinstance(decl, s.Usage) or decl.kind not in _FEATURE_KINDS or member.name.startswith("$"):
                continue
            if member.name in hidden:
                continue
            out.append(member)
            hidden.add(member.name)
            hidden.update(r.rsplit("::", 1)[-1] for r in decl.redefines)
    return out


@dataclass(frozen=True)
class Body:
    """A body expression handed to a library function: a callable over plain values."""

    call: Callable[..., object]


def _value(plain: object) -> Value:
    return Sequence(plain) if isinstance(plain, tuple) else plain  # type: ignore[return-value]


def _plain(value: Value) -> object:
    if isinstance(value, Sequence):
        return value.elements
    return () if value is None or value is UNSET else value


def call_library(function: Function, args: list[Value | Body], named: dict[str, Value]) -> Value:
    """A library function applied: arguments checked against its signature, sequences as tuples."""
    params = function.params
    where = f"{function.qualified_name}"
    if len(args) > len(params):
        raise EvaluationError(f"{where} takes {len(params)} argument{'s' if len(params) != 1 else ''}, "
                              f"got {len(args)} ({function.signature})")
    supplied: list[Value | Body] = [*args, *([None] * (len(params) - len(args)))]
    present = [True] * len(args) + [False] * (len(params) - len(args))
    for n, v in named.items():
        index = next((i for i, p in enumerate(params) if p.name == n), None)
        if index is None:
            raise EvaluationError(f"{where} has no parameter '{n}' ({function.signature})")
        supplied[index], present[index] = v, True
    plain: list[object] = []
    unit: str | None = None
    for param, value, given in zip(params, supplied, present, strict=True):
        if not given:
            if param.optional:
                break
            raise EvaluationError(f"{where}: no argument for {param.name} ({function.signature})")
        if param.type == BODY or isinstance(value, Body):
            if not (param.type == BODY and isinstance(value, Body)):
                wanted = "a body expression {in x; ...}" if param.type == BODY else "a value, not a body expression"
                raise EvaluationError(f"{where}: {param.name} takes {wanted} ({function.signature})")
            plain.append(value.call)
            continue
        elements: list[object] = []
        for v in elements_of(value):
            if isinstance(v, Quantity):
                unit = unit or v.unit
                v = v.magnitude
            if param.type != "Anything" and not conforms(param.type, v):
                raise TypeMismatch(f"{where}: type mismatch: {param.name} is {with_article(param.type)} and "
                                   f"{spell(v)} is {with_article(type_name(v))}")
            elements.append(v)
        if param.many:
            plain.append(tuple(elements))
        elif len(elements) == 1:
            plain.append(elements[0])
        else:
            raise EvaluationError(f"{where}: {param.name} takes one value, got {spell(value)}")
    try:
        result = function.compute(*plain)
    except LibraryError as err:
        kind = {"index": IndexOutOfRange, "zero": DivisionByZero}.get(err.kind, EvaluationError)
        raise kind(f"{where}: {err}") from None
    except ZeroDivisionError:
        raise DivisionByZero(f"{where}: division by zero") from None
    except OverflowError:
        raise NumberTooLarge(f"{where}: the result is beyond the range of a Real") from None
    bounded(result, where)  # type: ignore[arg-type]
    if isinstance(result, tuple):
        return Sequence(result)
    if unit is not None and function.result == function.params[0].type:
        return Quantity(result, unit)  # type: ignore[arg-type]
    if isinstance(result, Fraction) and result.denominator == 1 and function.result in ("Integer", "Natural"):
        return int(result)
    return result  # type: ignore[return-value]


def _unknown_call(name: str) -> str:
    found = functions_named(name.rsplit("::", 1)[-1])
    if not found:
        return f"unknown calculation '{name}'"
    names = ", ".join(f.qualified_name for f in found)
    package = found[0].package
    return (f"unknown calculation '{name}': the library has {names}; qualify it "
            f"({found[0].qualified_name}) or import its package (private import {package}::*;)")


def calc_inputs(calc: Element) -> list[Element]:
    """A calculation's inputs, in the order its arguments bind them by place."""
    return [m for m in calc.members.values() if isinstance(m.decl, s.Usage) and m.decl.direction == "in"]


def calc_result(calc: Element) -> s.Expr | None:
    """The expression a calculation's result is: its body's result expression, else its `return`
    feature's value, else its first `out` parameter's value."""
    result_expr: s.Expr | None = None
    decl = calc.decl
    if isinstance(decl, (s.Definition, s.Usage)):
        result_expr = decl.result
    for m in calc.members.values():
        if isinstance(m.decl, s.Usage) and m.decl.kind == "return" and m.decl.value is not None:
            result_expr = m.decl.value
    if result_expr is None:
        outs = [m for m in calc.members.values()
                if isinstance(m.decl, s.Usage) and m.decl.direction == "out" and m.decl.value is not None]
        if outs:
            result_expr = outs[0].decl.value  # type: ignore[union-attr]
    return result_expr
