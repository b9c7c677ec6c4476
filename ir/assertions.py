"""What a behavior or a step asserts of its every performance: its `assert constraint` members (its
definitions' included), by name (an unnamed one by its line: `assert@4`).

A step is named by its path from the behavior (`withdraw`, `final.grade`): the steps it performs are
named after it, and a step in an `if` branch or a loop body after the step around the statement (the
body's steps are the enclosing performance's, as their features are). The run
(engines/runtime/actions/run.py) spells the path of a performance that ends the same way."""

from __future__ import annotations

from collections.abc import Iterator

from ir import syntax as s
from ir.inherit import ACTION_KINDS, effective_members
from ir.model import Element, Model
from ir.resolve import lookup

# the usages that are steps of a flow (ir/lower/actions.py makes each one an action node)
STEP_KINDS = ("action", "calc", "verification", "analysis", "case", "use case")


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


def behavior_assertions(model: Model, behavior: Element) -> tuple[tuple[str, s.Expr], ...]:
    """What an action or a state machine asserts of its every performance, or a part of its every
    instance: its own assertions and its definitions' (`effective_members`)."""
    kinds = ("state",) if behavior.base_kind == "state" else ("part",) if behavior.base_kind == "part" else ACTION_KINDS
    return assertions(effective_members(model, behavior, kinds))


def step_label(usage: s.Usage) -> str:
    """A step's name as its node has it: its own, else its type's (`perform Halve;`)."""
    return usage.name or (usage.types[0].rsplit("::", 1)[-1] if usage.types else "action")


def _typed(model: Model, scope: Element | None, usage: s.Usage) -> Element | None:
    if not usage.types:
        return None
    found = lookup(model, scope, usage.types[0])
    return found if found is not None and found.base_kind in ACTION_KINDS else None


def usage_assertions(model: Model, scope: Element | None, usage: s.Member | None) -> tuple[tuple[str, s.Expr], ...]:
    """What a step asserts of each of its performances: its body's assertions and its definition's
    (`action audit : Check;`); `scope` is where its type's name is read."""
    if not isinstance(usage, s.Usage) or usage.kind not in STEP_KINDS:
        return ()
    own = assertions(usage.members)
    typed = _typed(model, scope, usage)
    inherited = behavior_assertions(model, typed) if typed is not None else ()
    names = {name for name, _ in own}
    return (*own, *(a for a in inherited if a[0] not in names))


def _blocks(member: s.Member) -> Iterator[s.Block]:
    """The bodies of an `if` (both blocks), a `while`, a `for` or a `loop`."""
    if isinstance(member, s.If):
        yield member.then
        if member.otherwise is not None:
            yield member.otherwise
    elif isinstance(member, (s.While, s.For, s.LoopUntil)):
        yield member.body


def step_assertions(model: Model, behavior: Element) -> list[tuple[str, str, s.Expr]]:
    """Every assertion of a step inside the behavior, at any depth (the steps of the definitions its
    steps are typed by included): (the step's path, the assertion's name, its condition)."""
    out: list[tuple[str, str, s.Expr]] = []

    def walk(members: tuple[s.Member, ...], scope: Element | None, path: str, seen: frozenset[int]) -> None:
        for m in members:
            inner = m.member if isinstance(m, s.ThenMember) else m
            if inner is None:
                continue
            if isinstance(inner, s.Usage) and inner.kind in STEP_KINDS:
                step = f"{path}.{step_label(inner)}" if path else step_label(inner)
                out.extend((step, name, expr) for name, expr in usage_assertions(model, scope, inner))
                walk(inner.members, scope, step, seen)
                typed = _typed(model, scope, inner)
                if typed is not None and id(typed) not in seen:
                    walk(effective_members(model, typed, ACTION_KINDS), typed, step, seen | {id(typed)})
                continue
            for block in _blocks(inner):
                walk(block.members, scope, path, seen)

    if behavior.base_kind == "state":
        return _behavior_steps(model, behavior)
    walk(effective_members(model, behavior, ACTION_KINDS), behavior, "", frozenset({id(behavior)}))
    return out


def _behavior_steps(model: Model, machine: Element) -> list[tuple[str, str, s.Expr]]:
    """A state machine's steps that assert: each entry, do or exit behavior and each transition's effect
    given as an action usage (`entry action warm { ... assert constraint low { ... } }`, `do action boost :
    Boost;`, `... do action pay : Charge { ... } then unlocked;`), in any state at any depth, named by the
    usage (the machine's run judges it as that performance ends)."""
    out: list[tuple[str, str, s.Expr]] = []

    def walk(members: tuple[s.Member, ...], seen: frozenset[int]) -> None:
        for m in members:
            behavior = m.behavior if isinstance(m, s.EntryMember) else \
                m.effect if isinstance(m, (s.Transition, s.StateTriggerShorthand)) else None
            if isinstance(behavior, s.Usage) and behavior.kind == "action":
                step = step_label(behavior)
                out.extend((step, name, expr) for name, expr in usage_assertions(model, machine, behavior))
            elif isinstance(m, s.Usage) and m.kind == "state":
                walk(m.members, seen)
                typed = lookup(model, machine, m.types[0]) if m.types else None
                if typed is not None and typed.base_kind == "state" and id(typed) not in seen:
                    walk(effective_members(model, typed, ("state",)), seen | {id(typed)})

    walk(effective_members(model, machine, ("state",)), frozenset({id(machine)}))
    return out
