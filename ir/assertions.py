"""What a behavior or a step asserts of its every performance: its `assert constraint` members (its
definitions' included), by name (an unnamed one by its line: `assert@4`)."""

from __future__ import annotations

from ir import syntax as s
from ir.inherit import ACTION_KINDS, effective_members
from ir.model import Element, Model


def assertion_name(m: s.Member) -> str | None:
    """An `assert constraint` member's name (an unnamed one's by its line: `assert@4`), else None."""
    if isinstance(m, s.ConstraintMember) and m.kind == "assert" and m.expression is not None:
        return m.name or f"assert@{m.span.line}"
    return None


def assertions(members: tuple[s.Member, ...]) -> tuple[tuple[str, s.Expr], ...]:
    """The asserted conditions among `members`, by name, in declaration order."""
    out: list[tuple[str, s.Expr]] = []
    for m in members:
        name = assertion_name(m)
        if name is not None:
            assert isinstance(m, s.ConstraintMember) and m.expression is not None
            out.append((name, m.expression))
    return tuple(out)


def step_element(model: Model, scope: Element | None, name: str) -> Element | None:
    """The step `name` declares in the action `scope` (a node of its flow), as the model holds it."""
    if scope is None or not name:
        return None
    return model.element(f"{scope.qualified_name}::{name}")


def step_assertions(model: Model, step: Element) -> tuple[tuple[str, s.Expr], ...]:
    """What a step asserts of each of its performances: its own and its definition's assertions."""
    return assertions(effective_members(model, step, ACTION_KINDS))


def nested_steps(model: Model, behavior: Element) -> list[tuple[str, Element]]:
    """Every step declared inside the behavior at any depth, by its path from it (`check`, `check.inner`)."""
    prefix = behavior.qualified_name + "::"
    return [(el.qualified_name[len(prefix):].replace("::", "."), el) for el in model.walk()
            if el.qualified_name.startswith(prefix) and el.base_kind in ACTION_KINDS and el.kind != "definition"
            and not el.qualified_name[len(prefix):].endswith("::")]
