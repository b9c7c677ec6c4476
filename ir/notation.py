"""Notation the tool reads that SysML v2's grammar does not have: said at submission (a `note:` line), so a
model that runs here is not taken for portable SysML v2 without the modeler knowing."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields, is_dataclass

from ir import syntax as s
from ir.model import Model
from ir.resolve import lookup


def _members_of(member: s.Member) -> tuple[s.Member, ...]:
    members = getattr(member, "members", ())
    return members if isinstance(members, tuple) else ()


def _name(member: s.Member | None) -> str:
    name = getattr(member, "name", None) or getattr(member, "kind", None)
    return name if isinstance(name, str) else ""


def _bodies(members: tuple[s.Member, ...]) -> Iterator[tuple[s.Member, ...]]:
    """Every body: these members and, inside them, their members."""
    yield members
    for member in members:
        inner = _members_of(member)
        if inner:
            yield from _bodies(inner)


def nonstandard(document: s.Document) -> list[str]:
    """Where `document` uses notation outside SysML v2, with how it is read: `path:line:column: ...`."""
    notes = []
    for body in _bodies(document.members):
        continuing: str | None = None  # the target of the succession the `then X;` lines continue
        for member in body:
            if isinstance(member, s.ThenMember):
                what = member.target or _name(member.member)
                if continuing is not None and what:
                    notes.append(f"{document.path}:{member.span.line}:{member.span.column}: `then {what}` right "
                                 f"after a succession is not SysML v2 notation (a target succession follows a step "
                                 f"or a control node); read as `succession {continuing} then {what};`")
                if member.target is None:
                    continuing = None  # a step or node `then` declares: what follows continues from it
                continue
            target = member.target if isinstance(member, (s.SuccessionMember, s.FirstMember)) else None
            continuing = target if isinstance(target, str) else None
    return notes


def unchained(document: s.Document) -> list[str]:
    """Where a `then` reads otherwise than it looks: `first start; then a; then b;` with `a` declared
    elsewhere is two successions from start (a target succession naming a step does not continue the
    chain; SysML v2 attaches each `then` to the step or node declared before it), so `a` and `b` may run
    concurrently, where the text looks like a sequence. Said, with how to write the sequence; not after a
    fork, whose `then`s are how its branches are written."""
    notes = []
    for body in _bodies(document.members):
        source: str | None = None  # the step or node the next `then` follows
        forks = False  # ...a fork
        named: str | None = None  # the step the previous `then` named without declaring it
        for member in body:
            if isinstance(member, s.ThenMember):
                what = member.target or _name(member.member)
                if named is not None and source is not None and not forks and what and what != named:
                    notes.append(f"{document.path}:{member.span.line}:{member.span.column}: `then {what}` follows "
                                 f"{source}, as `then {named};` before it does (a `then` naming a step declared "
                                 f"elsewhere does not continue the chain): {named} and {what} may run "
                                 f"concurrently; for {what} after {named} write `succession {named} then {what};`")
                if member.target is not None:
                    named = member.target
                else:
                    named, source = None, _name(member.member) or None
                    forks = isinstance(member.member, s.ControlNode) and member.member.kind == "fork"
                continue
            named = None
            if isinstance(member, s.FirstMember):
                source, forks = (member.source if member.target is None else None), False
            elif isinstance(member, s.ControlNode) or (isinstance(member, s.Usage) and member.kind == "action"):
                source = _name(member) or None
                forks = isinstance(member, s.ControlNode) and member.kind == "fork"
            elif isinstance(member, s.SuccessionMember):
                source = None
    return notes


def _units(node: object, seen: set[int]) -> Iterator[s.Index]:
    """The quantities with a unit (`5 [s]`) written anywhere inside a syntax node, each once."""
    if isinstance(node, tuple):
        for item in node:
            yield from _units(item, seen)
        return
    if not is_dataclass(node) or isinstance(node, (s.Span, type)) or id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, s.Index) and not node.positional and isinstance(node.index, s.Name):
        yield node
    for f in fields(node):
        value = getattr(node, f.name)
        if isinstance(value, (tuple, s.Expr, s.Member, s.Block)) or is_dataclass(value):
            yield from _units(value, seen)


def unresolved_units(model: Model, document: s.Document) -> list[str]:
    """Where `document` writes a unit its scope cannot name (`5 [s]` with no `import SI::*` in reach):
    SysML v2 resolves a unit as any other name; the tool reads it by its name all the same."""
    mine = [el for el in model.walk() if el.path == document.path and el.decl is not None]
    # innermost first: a unit inside a nested element resolves from that element's scope
    mine.sort(key=lambda el: -el.qualified_name.count("::"))
    seen: set[int] = set()
    notes: list[tuple[int, int, str]] = []
    for el in mine:
        for quantity in _units(el.decl, seen):
            assert isinstance(quantity.index, s.Name)
            unit = quantity.index.name
            if lookup(model, el, unit) is not None:
                continue
            span = quantity.span
            notes.append((span.line, span.column,
                          f"{document.path}:{span.line}:{span.column}: `[{unit}]` names nothing in scope, which SysML "
                          f"v2 requires of a unit (add `private import SI::*;`, or the package that declares it); "
                          f"read as the unit `{unit}` all the same"))
    return [text for _, _, text in sorted(set(notes))]
