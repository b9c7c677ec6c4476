"""Expression evaluation against a frame, writing the corpus's `eval ...` trace lines post-order."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from engines.errors import EvaluationError, NumberTooLarge
from engines.runtime import operators
from engines.runtime.calls import Calls
from engines.runtime.journal import current_epoch
from engines.runtime.types import checked, rule_for
from engines.runtime.values import (
    UNSET,
    Deferred,
    EnumValue,
    ObjectRef,
    Quantity,
    Sequence,
    Signal,
    Unset,
    Value,
    coerce_to,
    spell,
    type_name,
)
from ir import syntax as s
from ir.connections import Connection
from ir.footprint import chain_path
from ir.inherit import generals
from ir.model import Element
from ir.resolve import lookup, member_of

if TYPE_CHECKING:
    from engines.runtime.world import Context

# the kinds of definition a performance may be typed by, whose features it then holds (`a : A`)
_TYPED = ("action", "state", "part")


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
    # the flows and bindings the flow or block this frame runs declares (ir/connections.py)
    connections: tuple[Connection, ...] = ()
    # what the flows delivered to a node's feature, kept for its next performance: (node path, feature)
    delivered: dict[tuple[str, str], Value] = field(default_factory=dict)
    # a node's performance: the frame holding it as a pin and the pin's name, the frame it started in
    host: tuple[Frame, str] | None = None
    started_in: Frame | None = None
    directions: dict[str, str] = field(default_factory=dict)  # its parameters' `in`, `out`, `inout`
    born: int = field(default_factory=current_epoch)  # see engines/runtime/journal.py
    # a performance the model gives no name (`action { ... }`, `accept c : Integer;`): its pin's key is
    # the tool's, so its features are reported under the path around it (`c`, not `usage_action.c`)
    anonymous: bool = False
    # a branch's or pass's own steps: a path through one not yet started here navigates no performance
    steps: frozenset[str] = frozenset()

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

    def declares_step(self, name: str) -> bool:
        """Whether a branch or pass around the frame declares a step of that name (none of the model's)."""
        return any(name in f.steps for f in self.chain())

    def chain(self) -> Iterator[Frame]:
        """The frame and those around it, innermost first."""
        frame: Frame | None = self
        while frame is not None:
            yield frame
            frame = frame.parent

    def pin(self, name: str) -> Frame | None:
        frame: Frame | None = self
        while frame is not None:
            if name in frame.pins:
                return frame.pins[name]
            frame = frame.parent
        return None


class Evaluator(Calls):
    """Evaluates expressions of one run, tracing into the run's Trace."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.invoking = []

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
            # Untraced (a check's or explore's runs): the common expressions compiled, without their trace lines.
            fast = _FAST.get(id(e), _unseen)
            if fast is _unseen:
                fast = _fast(e)
            if fast is not None:
                return fast(self, e, frame, depth)
        if isinstance(e, s.Literal):
            value = self.literal(e)
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
            value = operators.unary(e.op, operand)
            self._line(depth, f"eval operator {e.op}", value)
            return value
        if isinstance(e, s.Chain):
            base = self.this(frame, e.feature) if _is_this(e.base) else self._chain_base(e.base, frame, depth + 1)
            value = self.read_feature(base, e.feature, e)
            self._line(depth, f"eval chain {e.feature}", value)
            return value
        if isinstance(e, s.Index):
            base = self._eval(e.base, frame, depth + 1)
            if not e.positional and isinstance(e.index, (s.Name, s.Binary, s.Chain)) and self._is_unit(e.index, frame):
                value = Quantity(base, _unit_text(e.index))
            elif not e.positional and isinstance(e.index, s.Name) and isinstance(e.base, s.Literal) \
                    and frame.pin(e.index.name) is not None:
                # `2 [s]` where a step of that name is in scope: it hides the unit
                raise EvaluationError(f"{e.base.text} [{e.index.name}]: '{e.index.name}' names the step "
                                      f"{e.index.name} here, which hides the unit of that name: write "
                                      f"[SI::{e.index.name}] (or rename the step)")
            else:
                value = operators.index(base, self._eval(e.index, frame, depth + 1))
            self._line(depth, "eval index", value)
            return value
        if isinstance(e, s.SequenceExpr):
            value = operators.concatenate([self._eval(x, frame, depth + 1) for x in e.elements])
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
            return self.construct(e.type_name, e.args, e.named, frame, depth, e)
        if isinstance(e, s.Call):
            return self._call(e, frame, depth)
        raise EvaluationError(f"cannot evaluate {type(e).__name__}")

    @staticmethod
    def literal(e: s.Literal) -> Value:
        if e.kind in ("integer", "real") and len(e.text) > operators.MAX_DIGITS:
            raise NumberTooLarge(f"the literal {e.text[:12]}… has {len(e.text):,} characters, more than the "
                                 f"{operators.MAX_DIGITS:,} digits a number may have")
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
        # `false and ...`, `true or ...`, `false implies ...` decide without their right operand; `a ?? b`
        # reads b only where a is null (no value, or the empty sequence)
        value: Value
        if e.op == "??":
            value = self._eval(e.right, frame, depth + 1) if _null(left) else left
        elif e.op == "and" and left is False:
            value = False
        elif (e.op == "or" and left is True) or (e.op == "implies" and left is False):
            value = True
        else:
            right = self._eval(e.right, frame, depth + 1)
            try:
                value = operators.binary(e.op, left, right)
            except EvaluationError as err:
                raise _naming_no_value(err, e, left, right) from None
        self._line(depth, f"eval operator {e.op}", value)
        return value

    def apply(self, op: str, left: Value, right: Value) -> Value:
        """A binary operator on two values (engines.runtime.operators)."""
        return operators.binary(op, left, right)

    def store(self, frame: Frame, name: str, type_text: str, value: Value, where: str) -> Value:
        """A value given to a feature of a declared type, checked and held as that type holds it."""
        if not type_text or isinstance(value, Deferred):
            return value
        program = self.ctx.program
        rule = rule_for(program.model, frame.scope, type_text, program.type_rules)
        if rule is None:
            return coerce_to(type_text, value)
        return checked(rule, name, value, where)

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
            live = self._live_feature(el, frame)
            if live is not None:
                return live[0]
            return self.element_value(el, frame, depth)
        if name == "this":
            return self.this_of(frame)
        if frame.declares_step(name):
            return UNSET  # a step or an accept's payload of a block around, not yet performed or taken
        raise EvaluationError(f"unknown name '{name}' in {frame.label}")

    def _live_feature(self, el: Element, frame: Frame) -> tuple[Value] | None:
        """A feature named by its qualified name (`Controller::cycles` in a property) of a behavior this
        frame is part of: its value in the running performance (in the frame whose scope is the feature's
        owner or is typed by it, or the object performing that frame), not the declaration's default."""
        owner = el.owner
        if owner is None or el.kind != "attribute":
            return None
        f: Frame | None = frame
        while f is not None:
            scope = f.scope
            if scope is not None and (scope is owner or owner in generals(self.ctx.program.model, scope, _TYPED)):
                if el.name in f.values:
                    return (f.values[el.name],)
                if f.performer is not None:
                    obj = self.ctx.objects.get(f.performer.id)
                    if obj is not None and el.name in obj.values:
                        return (obj.values[el.name],)
            f = f.parent
        return None

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
            pinned = _pinned(frame, base.name)
            if pinned is not None:  # a sibling accept's payload (`accept t : Ticket; then ... t.number`)
                value = pinned.values[base.name]
                self._line(depth, f"eval feature {base.name}", value)
                return value
            if base.name == "localClock":
                value = self.read_name(base.name, frame, depth)
                self._line(depth, f"eval feature {base.name}", value)
                return value
            if frame.declares_step(base.name):
                return _NOT_PERFORMED
            el = self._model_element(base.name, frame)
            if el is not None and el.kind == "calc" and isinstance(el.decl, s.Usage) and el.decl.types:
                calc = self._model_element(el.decl.types[0], frame)
                if calc is not None:
                    bindings = tuple((m.name, m.value) for m in el.decl.members
                                     if isinstance(m, s.Usage) and m.value is not None and m.name)
                    return Frame(el.name, calc, None, calc=(calc, bindings, frame))
            if el is not None and el.kind == "action" and isinstance(el.decl, s.Usage):
                # a step no performance of which has started here: a path through it navigates no value
                # (as a started performance's feature not yet written holds none)
                return _NOT_PERFORMED
            if el is not None:
                return self.element_value(el, frame, depth)
            raise EvaluationError(f"unknown name '{base.name}' in {frame.label}")
        if isinstance(base, s.Chain):
            inner = self.this(frame, base.feature) if _is_this(base.base) else self._chain_base(base.base, frame, depth)
            if inner is _NOT_PERFORMED:
                return _NOT_PERFORMED  # `outer.inner.x` before outer: no performance of inner either
            if isinstance(inner, Frame) and inner.calc is None and base.feature not in inner.values:
                if base.feature in inner.pins:
                    return inner.pins[base.feature]  # `leg.inner.v`: a node performed inside leg's performance
                step = member_of(self.ctx.program.model, inner.scope, base.feature) if inner.scope is not None else None
                if step is not None and step.kind == "action" and isinstance(step.decl, s.Usage):
                    return _NOT_PERFORMED  # a step of a started performance not yet begun in it
            return self.read_feature(inner, base.feature, base)
        return self._eval(base, frame, depth)

    def read_feature(self, base: object, feature: str, e: s.Expr) -> Value:
        if base is _NOT_PERFORMED or base is UNSET:
            return UNSET  # navigating from no value reaches no value (KerML's feature chains)
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
            nested = self.ctx.nested_part(base, feature) if obj is not None else None
            if nested is not None:
                return nested
            raise EvaluationError(f"instance#{base.id} holds no feature '{feature}'")
        if isinstance(base, Signal):
            for name, value in base.fields:
                if name == feature:
                    return value
            if feature in self._signal_features(base.type_name):
                return UNSET  # a feature its sender gave no value (`new Call()`, `--send Call`)
            raise EvaluationError(f"a {base.type_name} has no feature '{feature}'")
        raise EvaluationError(f"cannot read '{feature}' of {base!r}")

    def _signal_features(self, type_name: str) -> list[str]:
        """The features a signal's definition declares (none where no definition has that name)."""
        from engines.runtime.calls import constructor_features

        model = self.ctx.program.model
        short = type_name.rsplit("::", 1)[-1]
        for el in model.walk():
            if el.is_definition and (el.qualified_name == type_name or el.name == short):
                return [f.name for f in constructor_features(model, el)]
        return []


_NOT_PERFORMED = object()  # a chain's base: a step with no performance yet

# An expression's untraced evaluation as a function (the evaluator, the node, the frame, the depth), by the
# node's id while the node lives (its weak reference drops the entry before the id can name another node;
# the functions hold no node); None where `_eval` reads it by its general cases.
_Fast = Callable[["Evaluator", Any, Frame, int], Value]  # the node: of the kind it was compiled for
_FAST: dict[int, _Fast | None] = {}
_HELD: dict[int, weakref.ref[s.Expr]] = {}


def _unseen(ev: Evaluator, e: s.Expr, frame: Frame, depth: int) -> Value:
    raise AssertionError("a marker, never called")


def _fast(e: s.Expr) -> _Fast | None:
    """`_eval` untraced of a feature's name, a literal, and an operator that reads both its operands,
    made once per node: what `_eval` computes, its errors the same."""
    key = id(e)
    found = _FAST.get(key, _unseen)
    if found is not _unseen:
        return found
    fast = _compile(e)
    _FAST[key] = fast
    _HELD[key] = weakref.ref(e, lambda _, key=key: _forget(key))  # type: ignore[misc]
    return fast


def _forget(key: int) -> None:
    _FAST.pop(key, None)
    _HELD.pop(key, None)


def _compile(e: s.Expr) -> _Fast | None:
    if isinstance(e, s.Name):
        return _name
    if isinstance(e, s.Literal):
        if e.kind in ("integer", "real") and len(e.text) > operators.MAX_DIGITS:
            return None  # refused where it is read, by `literal`
        value = Evaluator.literal(e)
        return lambda ev, e, frame, depth: value
    if isinstance(e, s.Binary) and e.op not in operators.CONDITIONAL:
        left, right = _operand(e.left), _operand(e.right)

        def binary(ev: Evaluator, e: s.Binary, frame: Frame, depth: int) -> Value:
            a = left(ev, e.left, frame, depth + 1)
            b = right(ev, e.right, frame, depth + 1)
            try:
                return operators.binary(e.op, a, b)
            except EvaluationError as err:
                raise _naming_no_value(err, e, a, b) from None
        return binary
    return None


def _name(ev: Evaluator, e: s.Name, frame: Frame, depth: int) -> Value:
    return ev.read_name(e.name, frame, depth, e)


def _operand(e: s.Expr) -> _Fast:
    """An operand's untraced evaluation: compiled, else `_eval`'s."""
    fast = _fast(e)
    return fast if fast is not None else _general


def _general(ev: Evaluator, e: s.Expr, frame: Frame, depth: int) -> Value:
    return ev._eval(e, frame, depth)


def _naming_no_value(err: EvaluationError, e: s.Binary, left: Value, right: Value) -> EvaluationError:
    """An operator's error over an operand that holds no value, saying which feature holds none (a
    race with its write, or a step not yet performed, is the usual cause)."""
    empty = [chain_path(x) for x, v in ((e.left, left), (e.right, right)) if v is UNSET and chain_path(x)]
    if not empty:
        return err
    said = " and ".join(f"'{p}'" for p in dict.fromkeys(empty))
    return type(err)(f"{err.message}: {said} {'holds' if len(empty) == 1 else 'hold'} no value here "
                           "(not yet written, or its step not yet performed)", err.node)


def block_steps(members: tuple[s.Member, ...]) -> frozenset[str]:
    """The steps a branch or loop body declares: action usages, performed as the block runs, and the
    payloads of its accepts (`accept o : Order;`), which hold no value until a message is taken."""
    return frozenset([*(m.name for m in members if isinstance(m, s.Usage) and m.kind == "action" and m.name),
                      *(m.trigger.payload for m in members if isinstance(m, s.Accept) and m.trigger.payload)])


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


def _null(value: Value) -> bool:
    """Whether a value is null in KerML's sense: none, or the empty sequence."""
    return value is None or isinstance(value, Unset) or (isinstance(value, Sequence) and not value.elements)


__all__ = ["Evaluator", "Frame"]

