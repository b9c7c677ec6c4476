"""Notation the tool reads that SysML v2's grammar does not have: said at submission (a `note:` line), so a
model that runs here is not taken for portable SysML v2 without the modeler knowing."""

from __future__ import annotations

from collections.abc import Iterator

from ir import syntax as s


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
