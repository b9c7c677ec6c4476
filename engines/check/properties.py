"""The properties a check evaluates at every stable state: constraints and requirements by name."""

from __future__ import annotations

from dataclasses import dataclass

from engines.errors import EngineError, RunError
from engines.runtime import Program, Run
from engines.runtime.evaluate import Evaluator, Frame
from ir import syntax as s
from ir.errors import close_names
from ir.model import Element
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

    def holds(self, run: Run) -> tuple[bool, str | None]:
        """Whether it is true in the run's current state; an error text when it cannot be evaluated."""
        evaluator = Evaluator(run.ctx)
        frame = Frame(self.name, self.element, run.root.frame)
        try:
            with run.ctx.trace.quiet():
                for assumption in self.assumptions:
                    if evaluator.eval(assumption, frame, 0) is not True:
                        return True, None
                for condition in self.conditions:
                    if evaluator.eval(condition, frame, 0) is not True:
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
            if isinstance(m, s.ConstraintMember) and m.expression is not None:
                (assumptions if m.kind == "assume" else conditions).append(m.expression)
        if isinstance(decl, s.Usage) and decl.types and not conditions:
            typed = lookup(model_lookup.model, el.owner, decl.types[0])
            if typed is not None:
                return _conditions(typed, model_lookup)
    return tuple(conditions), tuple(assumptions)


def resolve_properties(program: Program, action: Element, names: tuple[str, ...]) -> list[Property]:
    """The named constraints and requirements, each refused before the search when it does not exist."""
    out = []
    candidates = [el.qualified_name for el in program.model.walk()
                  if el.base_kind in ("constraint", "requirement")]
    for name in names:
        el = program.model.element(name) or lookup(program.model, action, name)
        if el is None:
            matches = [c for c in candidates if c.rsplit("::", 1)[-1] == name]
            el = program.model.element(matches[0]) if len(matches) == 1 else None
        if el is None or el.base_kind not in ("constraint", "requirement"):
            hint = close_names(name, candidates)
            raise UnknownPropertyError(
                f"no constraint or requirement named '{name}'"
                + (("; did you mean " + ", ".join(f"'{h}'" for h in hint) + "?") if hint else ""))
        conditions, assumptions = _conditions(el, program)
        if not conditions:
            raise UnknownPropertyError(f"{el.kind} {el.qualified_name} states no condition to check")
        out.append(Property(el.qualified_name, el, conditions, assumptions))
    return out
