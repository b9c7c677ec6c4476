"""Expression evaluation against a frame, writing the corpus's `eval ...` trace lines post-order."""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from engines.errors import EvaluationError
from engines.runtime.journal import current_epoch
from engines.runtime.values import (
    UNSET,
    Deferred,
    EnumValue,
    ObjectRef,
    Quantity,
    Sequence,
    Signal,
    Value,
    is_number,
    spell,
    type_name,
    with_article,
)
from ir import syntax as s
from ir.model import Element
from ir.resolve import lookup

if TYPE_CHECKING:
    from engines.runtime.context import Context


@dataclass(eq=False)
class Frame:
    """The features one performance holds, and the frames of the nodes it performed (its pins).

    Names not held here are read from, and written to, the enclosing frame (`parent`).
    """

    label: str
    scope: Element | None
    parent: Frame | None = None
    values: dict[str, Value] = field(default_factory=dict)
    types: dict[str, str] = field(default_factory=dict)
    pins: dict[str, Frame] = field(default_factory=dict)
    performer: ObjectRef | None = None
    block: bool = False  # a branch or loop body: its nodes' pins belong to the performance around it
    # a calc usage's pin: the calc, its input bindings and the frame they are read in (computed when read)
    calc: tuple[Element, tuple[tuple[str, s.Expr], ...], Frame] | None = None
    # a finished performance's pins: never written again (the canonical state keeps their spelling)
    sealed: bool = False
    canon: dict[str, tuple[object, ...]] | None = None
    aliases: dict[str, str] = field(default_factory=dict)  # a short name or redefined name -> the feature
    # `flow a.b to c.d` of the graph this frame's flow runs: (node, feature) -> (node, feature)
    routes: dict[tuple[str, str], tuple[str, str]] = field(default_factory=dict)
    # what the flows delivered to a node's feature, kept for its next performance
    delivered: dict[tuple[str, str], Value] = field(default_factory=dict)
    born: int = field(default_factory=current_epoch)  # see engines/runtime/journal.py

    def __str__(self) -> str:
        return f"performance {self.label}"  # a frame held as a value: `this` of an action no object performs

    def feature_name(self, name: str) -> str:
        """The feature a name means here: itself, or the feature it is a short or redefined name of."""
        frame: Frame | None = self
        while frame is not None:
            if name in frame.values:
                return name
            if name in frame.aliases:
                return frame.aliases[name]
            frame = frame.parent
        return name

    def pin_holder(self) -> Frame:
        """The frame a node performed here keeps its pins in."""
        frame = self
        while frame.block and frame.parent is not None:
            frame = frame.parent
        return frame

    def holder_of(self, name: str) -> Frame | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.values:
                return frame
            frame = frame.parent
        return None

    def pin(self, name: str) -> Frame | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.pins:
                return frame.pins[name]
            frame = frame.parent
        return None


_ARITH: dict[str, Callable[[object, object], object]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "%": operator.mod,
}
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, ">": operator.gt, "<=": operator.le, ">=": operator.ge,
}


def _number(v: Value) -> Value:
    if isinstance(v, Quantity):
        return v.magnitude
    return v


class Evaluator:
    """Evaluates expressions of one run, tracing into the run's Trace."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    # ------------------------------------------------------------ entry points

    def eval(self, expr: s.Expr, frame: Frame, depth: int) -> Value:
        return self._eval(expr, frame, depth)

    def _line(self, depth: int, text: str, value: Value) -> None:
        trace = self.ctx.trace
        if trace.enabled:
            trace.at(depth, f"{text} -> {spell(value)}")

    # ------------------------------------------------------------ cases

    def _eval(self, e: s.Expr, frame: Frame, depth: int) -> Value:
        if not self.ctx.trace.enabled:
            # Untraced (a check's or explore's runs): the common expressions without their trace lines.
            if isinstance(e, s.Name):
                return self.read_name(e.name, frame, depth, e)
            if isinstance(e, s.Literal):
                return self._literal(e)
            if isinstance(e, s.Binary):
                return self.apply(e.op, self._eval(e.left, frame, depth + 1), self._eval(e.right, frame, depth + 1))
        if isinstance(e, s.Literal):
            value = self._literal(e)
            text = f'"{e.text}"' if e.kind == "string" else e.text
            self._line(depth, f"eval literal {text}", value)
            return value
        if isinstance(e, s.Name):
            value = self.read_name(e.name, frame, depth, e)
            self._line(depth, f"eval feature {e.name}", value)
            return value
        if isinstance(e, s.Binary):
            return self._binary(e, frame, depth)
        if isinstance(e, s.Unary):
            operand = self._eval(e.operand, frame, depth + 1)
            value = self._unary(e.op, operand, e)
            self._line(depth, f"eval operator {e.op}", value)
            return value
        if isinstance(e, s.Chain):
            base = self.this(frame, e.feature) if _is_this(e.base) else self._chain_base(e.base, frame, depth + 1)
            value = self.read_feature(base, e.feature, e)
            self._line(depth, f"eval chain {e.feature}", value)
            return value
        if isinstance(e, s.Index):
            base = self._eval(e.base, frame, depth + 1)
            if isinstance(e.index, (s.Name, s.Binary, s.Chain)) and self._is_unit(e.index, frame):
                value = Quantity(base, _unit_text(e.index))
            else:
                index = self._eval(e.index, frame, depth + 1)
                value = self._index(base, index, e)
            self._line(depth, "eval index", value)
            return value
        if isinstance(e, s.SequenceExpr):
            elements = tuple(self._eval(x, frame, depth + 1) for x in e.elements)
            value = Sequence(elements)
            self._line(depth, f"eval sequence of {len(e.elements)}", value)
            return value
        if isinstance(e, s.Conditional):
            cond = self._eval(e.condition, frame, depth + 1)
            if not isinstance(cond, bool):
                raise EvaluationError(f"condition of 'if ? else' must be Boolean, got {type_name(cond)}")
            value = self._eval(e.then if cond else e.otherwise, frame, depth + 1)
            self._line(depth, "eval conditional", value)
            return value
        if isinstance(e, s.SelfRef):
            performer: Frame | None = frame
            while performer is not None and performer.performer is None:
                performer = performer.parent
            value = performer.performer if performer is not None else None
            self._line(depth, "eval self", value)
            return value
        if isinstance(e, s.New):
            value = self.ctx.new_signal(e.type_name, frame)
            self._line(depth, f"eval new {e.type_name}", value)
            return value
        if isinstance(e, s.Call):
            return self._call(e, frame, depth)
        raise EvaluationError(f"cannot evaluate {type(e).__name__}")

    @staticmethod
    def _literal(e: s.Literal) -> Value:
        if e.kind == "integer":
            return int(e.text)
        if e.kind == "real":
            return Fraction(e.text)
        if e.kind == "string":
            return e.text
        if e.kind == "boolean":
            return e.text == "true"
        return None

    def _is_unit(self, e: s.Expr, frame: Frame) -> bool:
        if isinstance(e, s.Name):
            return frame.holder_of(e.name) is None and frame.pin(e.name) is None
        return True

    def _binary(self, e: s.Binary, frame: Frame, depth: int) -> Value:
        left = self._eval(e.left, frame, depth + 1)
        right = self._eval(e.right, frame, depth + 1)
        value = self.apply(e.op, left, right)
        self._line(depth, f"eval operator {e.op}", value)
        return value

    def apply(self, op: str, left: Value, right: Value) -> Value:
        """A binary operator on two values, exact where the operands are."""
        if op in ("==", "==="):
            return _equal(left, right)
        if op in ("!=", "!=="):
            return not _equal(left, right)
        if op in ("and", "&", "or", "|", "xor", "implies"):
            if not isinstance(left, bool) or not isinstance(right, bool):
                raise EvaluationError(f"type mismatch: operator '{op}' needs Booleans, got "
                                      f"{type_name(left)} and {type_name(right)}")
            return {"and": left and right, "&": left and right, "or": left or right,
                    "|": left or right, "xor": left != right, "implies": (not left) or right}[op]
        if op == "..":
            if not isinstance(left, int) or not isinstance(right, int):
                raise EvaluationError("type mismatch: a range '..' needs Integer bounds")
            return Sequence(tuple(range(left, right + 1)))
        if op == "+" and isinstance(left, str) and isinstance(right, str):
            return left + right
        if isinstance(left, Quantity) or isinstance(right, Quantity):
            unit = left.unit if isinstance(left, Quantity) else right.unit  # type: ignore[union-attr]
            magnitude = self.apply(op, _number(left), _number(right))
            if op in _COMPARE:
                return magnitude
            return Quantity(magnitude, unit)
        if not is_number(left) or not is_number(right):
            raise EvaluationError(f"type mismatch: operator '{op}' is not defined for "
                                  f"{with_article(type_name(left))} and {with_article(type_name(right))}")
        if op in _COMPARE:
            return _COMPARE[op](left, right)
        if op == "/":
            if right == 0:
                raise EvaluationError("division by zero")
            if isinstance(left, float) or isinstance(right, float):
                return float(left) / float(right)  # type: ignore[arg-type]
            return Fraction(left) / Fraction(right)  # type: ignore[arg-type]
        if op in ("**", "^"):
            if isinstance(right, int) and not isinstance(left, float):
                return left ** right if right >= 0 else Fraction(left) ** right  # type: ignore[operator,arg-type]
            return float(left) ** float(right)  # type: ignore[arg-type]
        if op in _ARITH:
            result = _ARITH[op](left, right)
            return result  # type: ignore[return-value]
        raise EvaluationError(f"unknown operator '{op}'")

    @staticmethod
    def _unary(op: str, operand: Value, e: s.Expr) -> Value:
        if op == "not":
            if not isinstance(operand, bool):
                raise EvaluationError(f"type mismatch: 'not' needs a Boolean, got {type_name(operand)}")
            return not operand
        if op == "-":
            if isinstance(operand, Quantity):
                return Quantity(-operand.magnitude, operand.unit)  # type: ignore[operator]
            if not is_number(operand):
                raise EvaluationError(f"type mismatch: unary '-' needs a number, got {type_name(operand)}")
            return -operand  # type: ignore[operator]
        return operand

    @staticmethod
    def _index(base: Value, index: Value, e: s.Expr) -> Value:
        if isinstance(base, Sequence) and isinstance(index, int):
            if 1 <= index <= len(base.elements):
                return base.elements[index - 1]
            raise EvaluationError(f"index {index} out of range 1..{len(base.elements)}")
        raise EvaluationError(f"cannot index {type_name(base)} by {type_name(index)}")

    # ------------------------------------------------------------ names and features

    def read_name(self, name: str, frame: Frame, depth: int, e: s.Expr | None = None) -> Value:
        """The value a name denotes in `frame`: a held feature, then a model element."""
        name = frame.feature_name(name)
        holder = frame.holder_of(name)
        if holder is not None:
            value = holder.values[name]
            if isinstance(value, Deferred):
                value = self.eval(value.expr, holder, depth + 1) if isinstance(value.expr, s.Expr) else UNSET
                self.ctx.journal.touch(holder)
                holder.values[name] = value
            return value
        pinned = _pinned(frame, name)
        if pinned is not None:
            return pinned.values[name]
        performed = self.performer_holding(frame, name)
        if performed is not None:
            return self.ctx.objects[performed.id].values[name]
        if name == "this":
            f: Frame | None = frame
            while f is not None and f.performer is None:
                f = f.parent
            if f is not None and f.performer is not None:
                return f.performer
        if name == "localClock":
            clock = self.ctx.object_for_usage("Time::universalClock", depth + 1)
            self._line(depth + 1, "eval feature universalClock", clock)
            return clock
        el = self._model_element(name, frame)
        if el is not None:
            return self.element_value(el, frame, depth)
        if name == "this":
            return self.this_of(frame)
        raise EvaluationError(f"unknown name '{name}' in {frame.label}")

    @staticmethod
    def this_of(frame: Frame) -> Value:
        """`this`: the object performing the action, else the outermost performance the frame is
        part of (its features are read and written through it, as `context.hits`)."""
        f: Frame = frame
        while f.performer is None and f.parent is not None:
            f = f.parent
        return f.performer if f.performer is not None else f  # type: ignore[return-value]

    def performer_holding(self, frame: Frame, name: str) -> ObjectRef | None:
        """The object performing the run, when it holds a feature of that name."""
        f: Frame | None = frame
        while f is not None and f.performer is None:
            f = f.parent
        if f is None or f.performer is None:
            return None
        obj = self.ctx.objects.get(f.performer.id)
        return f.performer if obj is not None and name in obj.values else None

    def this(self, frame: Frame, feature: str) -> object:
        """What `this.<feature>` reads and writes: the part performing the run when it has that
        feature, else the performance around (a free action is its own context, as KerML's `this`)."""
        f: Frame | None = frame
        while f is not None and f.performer is None:
            f = f.parent
        performer = f.performer if f is not None else None
        if performer is not None:
            obj = self.ctx.objects.get(performer.id)
            if obj is not None and feature in obj.values:
                return performer
        holder = frame.holder_of(frame.feature_name(feature))
        if holder is not None:
            return holder
        if performer is not None:
            return performer
        raise EvaluationError(f"'this.{feature}': {frame.label} is performed by no part, and no feature"
                              f" '{feature}' is held around it (run it on a part: --on <part>, %action <action>"
                              " on <part>)")

    def _model_element(self, name: str, frame: Frame) -> Element | None:
        f: Frame | None = frame
        while f is not None:
            if f.scope is not None:
                el = lookup(self.ctx.program.model, f.scope, name)
                if el is not None:
                    return el
            f = f.parent
        return None

    def element_value(self, el: Element, frame: Frame, depth: int) -> Value:
        if el.kind == "enum" and el.owner is not None:
            return EnumValue(el.owner.name, el.name)
        if el.kind in ("part", "item", "port", "occurrence"):
            return self.ctx.object_for_usage(el.qualified_name, depth)
        if el.kind == "attribute" and isinstance(el.decl, s.Usage) and el.decl.value is not None:
            return self.eval(el.decl.value, frame, depth + 1)
        return Signal(el.qualified_name)

    def _chain_base(self, base: s.Expr, frame: Frame, depth: int) -> object:
        """A chain's base: a node's pins (a Frame) or a value; a feature base is traced, a node or
        a part usage is not (the corpus traces only the feature read at the end of the chain)."""
        if isinstance(base, s.Name):
            holder = frame.holder_of(base.name)
            if holder is not None:
                value = holder.values[base.name]
                self._line(depth, f"eval feature {base.name}", value)
                return value
            pin = frame.pin(base.name)
            if pin is not None:
                return pin
            if base.name == "localClock":
                value = self.read_name(base.name, frame, depth)
                self._line(depth, f"eval feature {base.name}", value)
                return value
            el = self._model_element(base.name, frame)
            if el is not None and el.kind == "calc" and isinstance(el.decl, s.Usage) and el.decl.types:
                calc = self._model_element(el.decl.types[0], frame)
                if calc is not None:
                    bindings = tuple((m.name, m.value) for m in el.decl.members
                                     if isinstance(m, s.Usage) and m.value is not None and m.name)
                    return Frame(el.name, calc, None, calc=(calc, bindings, frame))
            if el is not None:
                return self.element_value(el, frame, depth)
            raise EvaluationError(f"unknown name '{base.name}' in {frame.label}")
        if isinstance(base, s.Chain):
            inner = self.this(frame, base.feature) if _is_this(base.base) else self._chain_base(base.base, frame, depth)
            return self.read_feature(inner, base.feature, base)
        return self._eval(base, frame, depth)

    def read_feature(self, base: object, feature: str, e: s.Expr) -> Value:
        if isinstance(base, Frame) and base.calc is not None:
            calc, bindings, where = base.calc
            named = {name: self._quiet(expr, where) for name, expr in bindings}
            return self.invoke(calc, [], named, where)
        if isinstance(base, Frame):
            holder = base.holder_of(feature) if feature in base.values else None
            if holder is not None:
                return holder.values[feature]
            pin = base.pins.get(feature)
            if pin is not None:
                return ObjectRef(-1)
            raise EvaluationError(f"'{base.label}' holds no feature '{feature}'")
        if isinstance(base, ObjectRef):
            if base.id in self.ctx.clocks:
                return self.ctx.clock.now_value()
            obj = self.ctx.objects.get(base.id)
            if obj is not None and feature in obj.values:
                return obj.values[feature]
            raise EvaluationError(f"instance#{base.id} holds no feature '{feature}'")
        if isinstance(base, Signal):
            for name, value in base.fields:
                if name == feature:
                    return value
        raise EvaluationError(f"cannot read '{feature}' of {base!r}")

    # ------------------------------------------------------------ calls

    def _call(self, e: s.Call, frame: Frame, depth: int) -> Value:
        callee = e.callee
        name = callee.name if isinstance(callee, s.Name) else None
        args = [self._eval(a, frame, depth + 1) for a in e.args]
        if name is None:
            raise EvaluationError("only named calculations can be invoked")
        el = self._model_element(name, frame)
        if el is None:
            value = _builtin(name, args)
        elif el.base_kind in ("calc", "constraint", "requirement"):
            value = self.invoke(el, args, dict((n, self._eval(v, frame, depth + 1)) for n, v in e.named),
                                frame)
        elif el.base_kind in ("item", "attribute", "part") and el.is_definition:
            value = Signal(el.qualified_name)
        else:
            raise EvaluationError(f"'{name}' is not a calculation")
        self._line(depth, f"eval invoke {name}", value)
        return value

    def invoke(self, calc: Element, args: list[Value], named: dict[str, Value], caller: Frame) -> Value:
        """A calculation's result for the given inputs, evaluated without tracing its inside."""
        params = [m for m in calc.members.values()
                  if isinstance(m.decl, s.Usage) and m.decl.direction == "in"]
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
        if result_expr is None:
            raise EvaluationError(f"calculation {calc.qualified_name} states no result")
        return self._quiet(result_expr, frame)

    def _quiet(self, expr: s.Expr, frame: Frame) -> Value:
        with self.ctx.trace.quiet():
            return self.eval(expr, frame, 0)


def _pinned(frame: Frame, name: str) -> Frame | None:
    """A node's pin read by its bare name from a sibling (an accept's payload): the latest node holding it."""
    f: Frame | None = frame
    while f is not None:
        for pin in reversed(list(f.pins.values())):
            if name in pin.values:
                return pin
        f = f.parent
    return None


def _is_this(e: s.Expr) -> bool:
    """`this` as a chain's base: the context occurrence (not a keyword of the grammar, a name)."""
    return isinstance(e, s.Name) and e.name == "this"


def _unit_text(e: s.Expr) -> str:
    if isinstance(e, s.Name):
        return e.name
    if isinstance(e, s.Binary):
        return f"{_unit_text(e.left)}{e.op}{_unit_text(e.right)}"
    if isinstance(e, s.Chain):
        return f"{_unit_text(e.base)}.{e.feature}"
    if isinstance(e, s.Literal):
        return e.text
    return "?"


def _equal(left: Value, right: Value) -> bool:
    if isinstance(left, bool) or isinstance(right, bool):
        return left is right or (isinstance(left, bool) and isinstance(right, bool) and left == right)
    return bool(left == right)


def _builtin(name: str, args: list[Value]) -> Value:
    if name in ("abs",) and len(args) == 1 and isinstance(args[0], (int, Fraction)):
        return -args[0] if args[0] < 0 else args[0]
    if name in ("size",) and len(args) == 1 and isinstance(args[0], Sequence):
        return len(args[0].elements)
    raise EvaluationError(f"unknown calculation '{name}'")


__all__ = ["Evaluator", "Frame"]
