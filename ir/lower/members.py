"""How a behavior's members read when lowered: which are features, statements or flow members,
what a statement is called in a trace, how a typed usage binds the parameters of what it performs,
and how many performances a step's multiplicity names."""

from __future__ import annotations

from ir import syntax as s
from ir.errors import LoweringError, ResolveError
from ir.graphs import Attribute
from ir.inherit import SEGMENT_BREAK
from ir.model import Element, Model
from ir.resolve import lookup, member_of, visible_names

FLOW_MEMBERS = (s.FirstMember, s.SuccessionMember, s.ControlNode, s.DecisionBranch)
BLOCK_STATEMENTS = (s.If, s.While, s.For, s.LoopUntil)
SIMPLE_STATEMENTS = (s.Assign, s.Send, s.Accept, s.Terminate)


def unwrapped(m: s.Member) -> s.Member:
    """The member a `then` member states (any other member as it is)."""
    return m.member if isinstance(m, s.ThenMember) and m.member is not None else m


def declares(m: s.Member) -> bool:
    """Whether a statement of a body declares what the statements written after it may read, so it
    keeps its place (the oracle's "Direct statements of one body ..."): a local usage (an action, a
    calc, a perform), an accept naming its payload, a return."""
    stmt = unwrapped(m)
    if isinstance(stmt, s.Usage):
        return True
    return isinstance(stmt, s.Return) or (isinstance(stmt, s.Accept) and stmt.trigger.payload is not None)


def then_after(members: tuple[s.Member, ...]) -> list[s.Member | None]:
    """For each `then` member of a body, the member it follows (None for one standing first)."""
    out: list[s.Member | None] = []
    previous: s.Member | None = None
    for m in members:
        if m is SEGMENT_BREAK:
            previous = None
            continue
        if isinstance(m, s.ThenMember):
            out.append(previous)
        previous = unwrapped(m)
    return out


def states_a_flow(members: tuple[s.Member, ...]) -> bool:
    """Whether a body orders its own members: successions, control nodes, or `then` after a node
    (a `then` after a block statement only orders the statements, as the corpus reads it)."""
    if any(isinstance(m, FLOW_MEMBERS) for m in members):
        return True
    return any(not isinstance(p, BLOCK_STATEMENTS) for p in then_after(members))


def statement_label(stmt: s.Member) -> str:
    """How a statement standing as a node is named in a trace."""
    if isinstance(stmt, s.Assign):
        return f"assign {stmt.target}"
    if isinstance(stmt, s.If):
        return "if"
    if isinstance(stmt, s.While):
        return "while"
    if isinstance(stmt, s.For):
        return f"for {stmt.variable}"
    if isinstance(stmt, s.LoopUntil):
        return "loop until"
    if isinstance(stmt, s.Send):
        return "send"
    if isinstance(stmt, s.Accept):
        return "usage_action"
    if isinstance(stmt, s.Terminate):
        return "terminate"
    return type(stmt).__name__.lower()


def attribute_of(u: s.Usage) -> Attribute:
    name = u.name or (u.redefines[0].rsplit("::", 1)[-1] if u.redefines else "")
    # Items and parts are objects the model holds, materialized when first read, not values.
    return Attribute(name, u.types[0] if u.types else "", u.value, u.value_kind, u.direction, u,
                     u.kind in ("item", "part"))


def may_hold_none(decl: s.Member | None) -> bool:
    """Whether a feature is declared to hold no value (`attribute last : Integer[0..1];`); one declared with
    no multiplicity holds exactly one."""
    return isinstance(decl, s.Usage) and decl.multiplicity is not None and decl.multiplicity.lower == 0


def is_feature(m: s.Member) -> bool:
    """An attribute, parameter, item, part or ref feature (not a behavior)."""
    return isinstance(m, s.Usage) and m.kind in (
        "attribute", "feature", "item", "ref", "return", "subject", "part", "port", "event",
    ) and not m.performed


def performances(model: Model, usage: s.Usage, owner: Element) -> int:
    """How many performances an action step names per performance of its owner: one without a
    multiplicity, `n` for an exact `[n]`, `[n..n]` or a named bound valued `n` (none for `[0]`); a
    range names no fixed number, which a run cannot perform."""
    mult = usage.multiplicity
    if mult is None:
        return 1
    if (mult.lower, mult.lower_ref) != (mult.upper, mult.upper_ref):
        raise LoweringError(f"action step {usage.name or 'action'}[{mult.text}] names no fixed number of "
                            "performances: give it an exact multiplicity such as [2]",
                            owner.path, usage.span.line, usage.span.column)
    return multiplicity_count(model, owner, usage)


def is_substep(m: s.Member) -> bool:
    """A nested action usage: a subaction of its own, started with its owner when nothing orders it,
    so the body holding it is a flow its token enters."""
    return isinstance(m, s.Usage) and m.kind == "action" and not m.performed


def parameter_direction(model: Model, performs: Element, name: str) -> str | None:
    """The direction the performed behavior declares its parameter `name` with (its own or inherited)."""
    found = member_of(model, performs, name)
    if found is not None and isinstance(found.decl, s.Usage):
        return found.decl.direction
    return None


def is_feature_decl(el: Element | None) -> bool:
    """Whether an element is a feature (not a step) of the behavior it belongs to."""
    return el is not None and isinstance(el.decl, s.Usage) and is_feature(el.decl)


def parameter_bindings(model: Model, performs: Element | None, members: tuple[s.Member, ...],
                       path: str = "") -> tuple[
        tuple[tuple[str, s.Expr], ...], tuple[tuple[str, s.Expr], ...], tuple[s.Usage, ...]]:
    """A typed usage's features split into what binds the performed behavior's parameters and its own:
    (inputs evaluated when it starts, outputs written back when it ends, the other features).

    A feature with a value and no type of its own binds the parameter it names (`in x = 3;`,
    `inout acc = total;`, `out r = last;`, `:>> x = 3;`); the direction the behavior declares wins
    over the one written at the binding, so `in`, `inout` and `out` read as the callee reads them. A
    redefinition with a value of a feature that is no parameter (`attribute :>> target = 220;`) binds
    it too: the performance starts with it."""
    ins: list[tuple[str, s.Expr]] = []
    outs: list[tuple[str, s.Expr]] = []
    features: list[s.Usage] = []
    for m in members:
        if not is_feature(m):
            continue
        assert isinstance(m, s.Usage)
        name = m.name or (m.redefines[0].rsplit("::", 1)[-1] if m.redefines else "")
        declared = parameter_direction(model, performs, name) if performs is not None and name else None
        direction = declared or m.direction
        if (m.redefines and m.value is not None and direction is None and performs is not None
                and is_feature_decl(member_of(model, performs, name))):
            # `attribute :>> target = 220;` redefines the performed behavior's own feature: one feature,
            # which the behavior's steps read with the redefining value (its own default gives way)
            ins.append((name, m.value))
            continue
        if performs is None or m.value is None or m.types or direction not in ("in", "inout", "out") \
                or (declared is None and m.direction is None):
            features.append(m)
            continue
        if direction in ("in", "inout"):
            ins.append((name, m.value))
        if direction in ("out", "inout"):
            if not isinstance(m.value, (s.Name, s.Chain)):
                raise LoweringError(f"{direction} parameter '{name}' is bound to an expression, not a feature: "
                                    "the value it ends with has nowhere to go (bind it to a feature)",
                                    path, m.span.line, m.span.column)
            outs.append((name, m.value))
    return tuple(ins), tuple(outs), tuple(features)


def performed_action(model: Model, scope: Element, reference: str) -> Element | None:
    """The action a `perform ... ::> a.b` performs: the end of the chain, or (an action usage with
    nothing of its own) the action it is typed by."""
    head, *chain = reference.split(".")
    el = lookup(model, scope, head)
    for part in chain:
        el = member_of(model, el, part) if el is not None else None
    if el is not None and isinstance(el.decl, s.Usage) and not el.decl.members \
            and el.decl.action_body is None and el.decl.types:
        return lookup(model, el.owner, el.decl.types[0]) or el
    return el


def multiplicity_count(model: Model, scope: Element, usage: s.Usage) -> int:
    """How many performances a step's multiplicity asks for: its lower bound, a number or the value
    of the feature it names (`action a[three]`), which must be an Integer the model states."""
    mult = usage.multiplicity
    assert mult is not None
    if mult.lower_ref is None:
        return mult.lower
    seen: set[str] = set()
    name = mult.lower_ref
    where = scope
    while True:
        feature = lookup(model, where, name)
        span = usage.span
        if feature is None:
            raise ResolveError(name, f"the multiplicity of {usage.name or 'a step'}", visible_names(model, scope),
                               scope.path, span.line, span.column, "feature")
        value = feature.decl.value if isinstance(feature.decl, s.Usage) else None
        if isinstance(value, s.Literal) and value.kind == "integer":
            return int(value.text)
        if isinstance(value, s.Name) and value.name not in seen:
            seen.add(value.name)
            name, where = value.name, feature.owner or scope
            continue
        raise LoweringError(f"the multiplicity of {usage.name or 'a step'} names '{mult.lower_ref}', "
                            "whose value is not an Integer the model states", scope.path, span.line, span.column)
