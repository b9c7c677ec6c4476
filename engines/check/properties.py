"""The properties a check evaluates at every stable state: constraints and requirements by name."""

from __future__ import annotations

from dataclasses import dataclass

from engines.errors import EngineError, RunError
from engines.runtime import Program
from engines.runtime.behavior import Behavior
from engines.runtime.evaluate import Evaluator, Frame
from engines.runtime.values import spell, type_name, with_article
from ir import syntax as s
from ir.assertions import behavior_assertions, step_assertions
from ir.errors import ResolveError, close_names
from ir.model import Element
from ir.names import features_of, performer_features, unknown_names
from ir.resolve import lookup


class UnknownPropertyError(EngineError, LookupError):
    """A property name that names no constraint or requirement."""


@dataclass(frozen=True)
class Property:
    """A constraint or requirement: its name and the conditions that must all be true."""

    name: str
    element: Element
    conditions: tuple[s.Expr, ...]
    assumptions: tuple[s.Expr, ...] = ()
    # `constraint cool : Under { in t = temp; }`: each parameter and the expression it is bound to,
    # read in the checked action; then the parameters' defaults, read among the parameters
    bindings: tuple[tuple[str, s.Expr], ...] = ()
    defaults: tuple[tuple[str, s.Expr], ...] = ()
    # an assertion of a nested step (`check.nonNegative`): judged by the run where each performance of the
    # step ends (engines/runtime/actions/run.py), so it holds while no performance has ended with it false
    step: str = ""

    def holds(self, behavior: Behavior) -> tuple[bool, str | None]:
        """Whether it is true in the behavior's current state; an error text when it cannot be evaluated."""
        if self.step:
            return self.name not in getattr(behavior, "broken_assertions", ()), None
        evaluator = Evaluator(behavior.world)
        scope = behavior.scope()
        frame = Frame(self.name, self.element, scope)
        try:
            with behavior.world.trace.quiet():
                for name, expr in self.bindings:
                    frame.values[name] = evaluator.eval(expr, scope, 0)
                for name, expr in self.defaults:
                    if name not in frame.values:
                        frame.values[name] = evaluator.eval(expr, frame, 0)
                for assumption in self.assumptions:
                    if evaluator.eval(assumption, frame, 0) is not True:
                        return True, None
                for condition in self.conditions:
                    value = evaluator.eval(condition, frame, 0)
                    if not isinstance(value, bool):
                        return False, (f"{self.name} cannot be evaluated: its condition is "
                                       f"{with_article(type_name(value))} {spell(value)}, not a Boolean")
                    if not value:
                        return False, None
            return True, None
        except RunError as err:
            return False, f"{self.name} cannot be evaluated: {err}"


def _conditions(el: Element, model_lookup: Program) -> tuple[tuple[s.Expr, ...], tuple[s.Expr, ...]]:
    decl = el.decl
    conditions: list[s.Expr] = []
    assumptions: list[s.Expr] = []
    if isinstance(decl, (s.Definition, s.Usage)):
        if decl.result is not None:
            conditions.append(decl.result)
        for m in decl.members:
            if el.base_kind == "calc" and isinstance(m, s.Usage) and m.kind == "return" and m.value is not None:
                conditions.append(m.value)  # a calc named as a property: its (Boolean) result
            if isinstance(m, s.ConstraintMember) and m.expression is not None:
                (assumptions if m.kind == "assume" else conditions).append(m.expression)
        if isinstance(decl, s.Usage) and decl.types and not conditions:
            typed = lookup(model_lookup.model, el.owner, decl.types[0])
            if typed is not None:
                return _conditions(typed, model_lookup)
    return tuple(conditions), tuple(assumptions)


def _parameters(el: Element, program: Program) -> tuple[tuple[tuple[str, s.Expr], ...],
                                                        tuple[tuple[str, s.Expr], ...]]:
    """What a property usage binds its parameters to (`in t = temp;`, `:>> t = temp;`, `subject s = tank;`),
    and the defaults its definitions give the others (`in max : Integer = 90;`)."""
    bindings: list[tuple[str, s.Expr]] = []
    defaults: list[tuple[str, s.Expr]] = []
    decl = el.decl
    if isinstance(decl, s.Usage):
        for m in decl.members:
            if isinstance(m, s.Usage) and m.value is not None and not m.types and m.kind in _PARAMETER_KINDS:
                name = m.name or (m.redefines[0].rsplit("::", 1)[-1] if m.redefines else "")
                if name:
                    bindings.append((name, m.value))
    seen: set[int] = set()
    typed: Element | None = el
    while typed is not None and id(typed) not in seen:
        seen.add(id(typed))
        tdecl = typed.decl
        if isinstance(tdecl, (s.Definition, s.Usage)) and typed is not el:
            for m in tdecl.members:
                if isinstance(m, s.Usage) and m.direction in ("in", "inout") and m.value is not None and m.name:
                    defaults.append((m.name, m.value))
        names = typed.type_names
        typed = lookup(program.model, typed.owner, names[0]) if names else None
    return tuple(bindings), tuple(defaults)


# what a property names: a constraint, a requirement, or a calculation whose result is a Boolean
PROPERTY_KINDS = ("constraint", "requirement", "calc")
_PARAMETER_KINDS = ("feature", "attribute", "subject", "ref", "item", "part")


def asserted(program: Program, behavior: Element) -> dict[str, s.Expr]:
    """The conditions a behavior asserts of its every performance (`assert constraint c { ... }` among
    its members or its definitions'), by the name a property is given: qualified by the behavior
    (`booking::Book::c`, an unnamed one `booking::Book::assert@4`)."""
    return {f"{behavior.qualified_name}::{name}": expr for name, expr in behavior_assertions(program.model, behavior)}


def step_asserted(program: Program, behavior: Element) -> dict[str, tuple[str, s.Expr]]:
    """What the behavior's nested steps assert (`action withdraw { assert constraint c {...} }`), at any
    depth: by the name a property is given (`audit::Ledger::withdraw.c`), the step's path and the condition.
    Of a part, what the machines its instance's objects exhibit and the actions they perform assert so."""
    if behavior.base_kind == "part":
        found: dict[str, tuple[str, s.Expr]] = {}
        for el in program.instance_behaviors(behavior.qualified_name):
            found.update(step_asserted(program, el))
        return found
    return {f"{behavior.qualified_name}::{path}.{name}": (path, expr)
            for path, name, expr in step_assertions(program.model, behavior)}


def asserted_properties(program: Program, behavior: Element) -> tuple[Property, ...]:
    """The behavior's asserted constraints as properties (`asserted`), an action's steps' too (`step_asserted`)."""
    names = [*asserted(program, behavior), *step_asserted(program, behavior)]
    return tuple(resolve_properties(program, behavior, tuple(names)))


def resolve_properties(program: Program, action: Element, names: tuple[str, ...]) -> list[Property]:
    """The named constraints and requirements (or the behavior's asserted constraints), each refused
    before the search when it does not exist."""
    out = []
    candidates = [el.qualified_name for el in program.model.walk()
                  if el.base_kind in PROPERTY_KINDS]
    own = asserted(program, action)
    candidates.extend(own)
    steps = step_asserted(program, action)
    candidates.extend(steps)
    for name in names:
        nested = next((q for q in steps if name in (q, q.rsplit("::", 1)[-1])), None)
        if nested is not None:
            path, _ = steps[nested]
            out.append(Property(nested, action, (), step=path))
            continue
        qualified = next((q for q in own if name in (q, q.rsplit("::", 1)[-1])), None)
        if qualified is not None:
            _require_features(program, action, action, (own[qualified],), (), ())
            out.append(Property(qualified, action, (own[qualified],)))
            continue
        el = program.model.element(name) or lookup(program.model, action, name)
        if el is not None and el.base_kind not in PROPERTY_KINDS:
            el = None  # a package or action of that name: the property is found among the candidates
        if el is None:
            matches = [c for c in candidates if c.rsplit("::", 1)[-1] == name]
            el = program.model.element(matches[0]) if len(matches) == 1 else None
        if el is None or el.base_kind not in PROPERTY_KINDS:
            # a step's assertion named without its step (`ok` for `deskA.ok`): every one of that name
            hint = [q for q in steps if q.rsplit(".", 1)[-1] == name] or close_names(name, candidates)
            raise UnknownPropertyError(
                f"no constraint or requirement named '{name}'"
                + (("; did you mean " + ", ".join(f"'{h}'" for h in hint) + "?") if hint else ""))
        conditions, assumptions = _conditions(el, program)
        if not conditions:
            raise UnknownPropertyError(f"{el.kind} {el.qualified_name} states no condition to check")
        bindings, defaults = _parameters(el, program)
        _require_features(program, action, el, (*conditions, *assumptions), bindings, defaults)
        out.append(Property(el.qualified_name, el, conditions, assumptions, bindings, defaults))
    return out


def _require_features(program: Program, action: Element, el: Element, conditions: tuple[s.Expr, ...],
                      bindings: tuple[tuple[str, s.Expr], ...], defaults: tuple[tuple[str, s.Expr], ...]) -> None:
    """Refuse a property whose condition (or a binding of its parameters) reads a name that is neither
    its own parameter nor a feature of the checked action (its own, its types', a performer's) nor a
    name the model resolves: such a property cannot be evaluated against that action, so it is a
    ResolveError before the search, never a violation found by it."""
    model = program.model
    behavior = features_of(model, action) | performer_features(model)
    parameters = features_of(model, el) | {n for n, _ in (*bindings, *defaults)}
    for exprs, admitted, reader in (((e for _, e in bindings), behavior, action),
                                    ((*conditions, *(e for _, e in defaults)), behavior | parameters, el)):
        for name in unknown_names(model, reader, exprs, admitted):
            if lookup(model, action, name.name) is not None:
                continue
            candidates = sorted(behavior | parameters)
            raise ResolveError(name.name, f"{el.kind} {el.qualified_name} (checked against {action.qualified_name})",
                               candidates, el.path, name.span.line, name.span.column, "feature")
