"""The members an action performs: its own and those it inherits from the actions it specializes.

KerML's `Type::inheritedMembership` (KerML 1.0 §7.3.2, §8.3.3.1.10) gives a type the memberships of
its generals besides its own; specialization (`:>`), feature typing (`:`) and redefinition (`:>>`)
are all specializations. So an action definition specializing another, and an action usage typed by
one, perform the general's steps, statements, successions and flows as their own, and a member
that redefines an inherited step replaces it wherever the inherited successions name it.

Order: a general's members come first, at their places in its text (its `then` chains intact), a
redefining step standing where the step it redefines stood; the action's own members follow. A
redefining step's own members come before the ones it inherits from the redefined step; it takes
the redefined step's type, and its multiplicity and value when it declares none (KerML 1.0 §8.3.3.1
`Type::multiplicity`; a redefining feature specializes the one it redefines, so it holds what that
one is bound to). Generals are taken nearest first and in the order written; a member reached
twice (a diamond) is performed once.
"""

from __future__ import annotations

from dataclasses import replace

from ir import syntax as s
from ir.errors import LoweringError
from ir.model import Element, Model
from ir.resolve import lookup

# Between the inherited members and the own ones: a `then` written first among the own members
# follows nothing inherited.
SEGMENT_BREAK: s.Member = s.Doc(s.NO_SPAN, "")

ACTION_KINDS = ("action",)


def own_members(el: Element) -> tuple[s.Member, ...]:
    """The members an action definition or usage declares itself (a usage's statement first)."""
    decl = el.decl
    if isinstance(decl, s.Definition):
        return decl.members
    if isinstance(decl, s.Usage):
        if decl.action_body is not None:
            return (decl.action_body, *decl.members)
        return decl.members
    return ()


def generals(model: Model, el: Element, kinds: tuple[str, ...] = ACTION_KINDS) -> list[Element]:
    """The actions (or elements of `kinds`) `el` specializes or is typed by (library ones inherit
    nothing performable)."""
    out = []
    for name in el.type_names:
        general = lookup(model, el.owner, name)
        if general is not None and general.base_kind in kinds and not general.library \
                and general is not el:
            out.append(general)
    return out


def effective_members(model: Model, el: Element, kinds: tuple[str, ...] = ACTION_KINDS) -> tuple[s.Member, ...]:
    """What `el` performs: the members of its generals (redefinitions applied), then its own; the
    generals are the actions it specializes or is typed by, or those of `kinds` (a state usage typed
    by a state definition holds the definition's features: `kinds` ("state",))."""
    return _effective(model, el, (), kinds)


def _effective(model: Model, el: Element, visiting: tuple[Element, ...],
               kinds: tuple[str, ...] = ACTION_KINDS) -> tuple[s.Member, ...]:
    if el in visiting:
        span = el.decl.span if el.decl is not None else s.NO_SPAN
        raise LoweringError(f"{el.base_kind} {el.qualified_name} specializes itself", el.path, span.line, span.column)
    own = own_members(el)
    inherited: list[s.Member] = []
    seen_ids: set[int] = set()
    seen_names: set[str] = set()
    for general in generals(model, el, kinds):
        for m in _effective(model, general, (*visiting, el), kinds):
            if m is SEGMENT_BREAK:
                continue
            name = declared_name(m)
            if id(m) in seen_ids or (name is not None and name in seen_names):
                continue  # a diamond: the nearest general's member stands
            seen_ids.add(id(m))
            if name is not None:
                seen_names.add(name)
            inherited.append(m)
    if not inherited:
        return own
    return merge(inherited, own, el)


def merge(inherited: list[s.Member], own: tuple[s.Member, ...], el: Element | None, own_first: bool = False,
          ) -> tuple[s.Member, ...]:
    """The inherited members with each redefined one replaced by its redefinition, and the other
    own members after them (before them, `own_first`)."""
    by_name = {name: i for i, m in enumerate(inherited) if (name := declared_name(m)) is not None}
    placed: dict[int, s.Member] = {}
    rest: list[s.Member] = []
    for m in own:
        inner = m.member if isinstance(m, s.ThenMember) and m.member is not None else m
        target = _redefined_name(inner)
        if target is None and isinstance(inner, s.Usage) and inner.name in by_name:
            target = inner.name  # the same name declared again hides the inherited member
        if target is None or not isinstance(inner, s.Usage):
            rest.append(m)
            continue
        index = by_name.get(target)
        if index is None:
            if el is None:
                rest.append(m)  # a redefinition of something the redefined step does not declare
                continue
            span = inner.span
            raise LoweringError(f"redefined action step not found: {el.qualified_name} redefines '{target}', "
                                "which no action it specializes declares", el.path, span.line, span.column)
        base = _usage(inherited[index])
        placed[index] = redefine(inner, base, target) if inner.redefines and base is not None else inner
        if m is not inner:
            rest.append(s.ThenMember(m.span, target, None))  # `then action :>> a;` still follows its previous
    members = [placed.get(i, m) for i, m in enumerate(inherited)]
    if own_first:
        return _joined(rest, members)
    return _joined(members, rest)


def _joined(first: list[s.Member], second: list[s.Member]) -> tuple[s.Member, ...]:
    if first and second and isinstance(second[0], s.ThenMember):
        return (*first, SEGMENT_BREAK, *second)
    return (*first, *second)


def redefine(own: s.Usage, base: s.Usage, name: str) -> s.Usage:
    """A redefining feature or step with what it keeps of the one it redefines: its name, its type,
    its value and its multiplicity when it states none (`attribute y :>> base;` holds `base`'s `= 0`),
    and its members (the own ones first)."""
    inherited = list(base.members)
    if own.action_body is not None and base.action_body is not None:
        inherited.insert(0, base.action_body)  # both statements are performed
    return replace(
        own,
        name=own.name or name,
        types=own.types or base.types,
        multiplicity=own.multiplicity if own.multiplicity is not None else base.multiplicity,
        value=own.value if own.value is not None else base.value,
        value_kind=own.value_kind if own.value is not None else base.value_kind,
        members=merge(inherited, own.members, None, own_first=True),
        action_body=own.action_body if own.action_body is not None else base.action_body,
        has_body=own.has_body or base.has_body,
    )


def _usage(m: s.Member) -> s.Usage | None:
    if isinstance(m, s.ThenMember) and m.member is not None:
        m = m.member
    return m if isinstance(m, s.Usage) else None


def declared_name(m: s.Member) -> str | None:
    """The name a member declares (a redefinition declares the name it redefines), or None."""
    if isinstance(m, s.ThenMember) and m.member is not None:
        m = m.member
    if isinstance(m, s.Usage):
        if m.name:
            return m.name
        return _redefined_name(m)
    return None


def _redefined_name(m: s.Member) -> str | None:
    if isinstance(m, s.ThenMember) and m.member is not None:
        m = m.member
    if isinstance(m, s.Usage) and m.redefines:
        return m.redefines[0].rsplit("::", 1)[-1]
    return None
