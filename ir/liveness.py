"""Which features of a finished performance anything can still read: the names some expression of
the model could reach a node's pins by, once the node is done.

A name inside a body that declares it (or inside a scope around it that does) is read from that
body's own frame; a chain (`a.x`), a dotted target or end (`bind a.x = y`, `flow a.x to b.y`), or a
name no scope around it declares may reach another node's pin. A finished performance's features
named by none of those are never read again: the check leaves their values out of the state it
compares. Unknown constructs count every name they mention, so the answer errs towards keeping.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ir import syntax as s
from ir.lower import attribute_of, is_feature
from ir.model import Model

Scopes = tuple[frozenset[str], ...]


def readable_after_end(model: Model, named: Iterable[str] = ()) -> frozenset[str]:
    """Every feature name some expression could read a finished performance's pin by; `named`
    adds the features a modeler named (a divergence over `a.x` reads `x`)."""
    out: set[str] = set()
    for feature in named:
        out.update(_parts(feature))
    for doc in model.documents:
        _members(doc.members, (), out)
    return frozenset(out)


def _parts(text: str) -> list[str]:
    return [p for p in text.replace("::", ".").split(".") if p]


def _declared(members: tuple[s.Member, ...]) -> frozenset[str]:
    """The features a scope's frame holds (items and parts are objects, not held values)."""
    return frozenset(m.name for m in members
                     if isinstance(m, s.Usage) and m.name and is_feature(m) and not attribute_of(m).is_item)


def _members(members: tuple[s.Member, ...], scopes: Scopes, out: set[str]) -> None:
    for m in members:
        _member(m, scopes, out)


def _scope(owner: s.Definition | s.Usage, scopes: Scopes, out: set[str]) -> None:
    # A usage typed by another action runs its statements in that action's own frame, which sees
    # nothing around the usage: the scopes around it do not hold what its names read.
    performs = isinstance(owner, s.Usage) and bool(owner.types) and not is_feature(owner)
    # Only an action's frame holds its features while its expressions run (a requirement's or a
    # calc's names are read from around it, or from its inputs alone): other scopes declare nothing.
    declared = _declared(owner.members) if owner.kind == "action" else frozenset()
    inner = (declared,) if performs else (*scopes, declared)
    for m in owner.members:
        if isinstance(m, s.Usage) and is_feature(m):
            # an initial value is read before the features after it hold anything: from around
            _expr(m.value, scopes, out)
            _members(m.members, inner, out)
        else:
            _member(m, inner, out)
    _expr(owner.result, inner, out)
    if isinstance(owner, s.Usage):
        _expr(owner.value, scopes, out)
        if owner.action_body is not None:
            _member(owner.action_body, inner, out)


def _member(m: s.Member, scopes: Scopes, out: set[str]) -> None:
    if isinstance(m, (s.Import, s.Doc, s.Metadata)):
        return
    if isinstance(m, s.Package):
        _members(m.members, scopes, out)
    elif isinstance(m, (s.Definition, s.Usage)):
        _scope(m, scopes, out)
    elif isinstance(m, s.Assign):
        out.update(_parts(m.target)[1:])
        _expr(m.value, scopes, out)
    elif isinstance(m, s.If):
        _expr(m.condition, scopes, out)
        _members(m.then.members, scopes, out)
        if m.otherwise is not None:
            _members(m.otherwise.members, scopes, out)
    elif isinstance(m, s.While):
        _expr(m.condition, scopes, out)
        _members(m.body.members, scopes, out)
        _expr(m.until, scopes, out)
    elif isinstance(m, s.For):
        _expr(m.collection, scopes, out)
        _members(m.body.members, (*scopes, frozenset({m.variable})), out)
    elif isinstance(m, s.LoopUntil):
        _members(m.body.members, scopes, out)
        _expr(m.until, scopes, out)
    elif isinstance(m, s.Send):
        _expr(m.payload, scopes, out)
        _expr(m.to, scopes, out)
        if m.via:
            out.update(_parts(m.via))
    elif isinstance(m, s.Accept):
        _expr(m.trigger.expression, scopes, out)
        _members(m.members, scopes, out)
    elif isinstance(m, (s.FirstMember, s.SuccessionMember, s.DecisionBranch)):
        _expr(m.guard, scopes, out)
        _mentions(m, out)
        _members(getattr(m, "members", ()), scopes, out)
    elif isinstance(m, s.ThenMember):
        if m.member is not None:
            _member(m.member, scopes, out)
    elif isinstance(m, s.ControlNode):
        _members(m.members, scopes, out)
    elif isinstance(m, s.ConstraintMember):
        _expr(m.expression, scopes, out)
        _members(m.members, scopes, out)
    else:
        _mentions(m, out)  # binds, flows, connections and anything newer: every name they mention


def _expr(e: s.Expr | None, scopes: Scopes, out: set[str]) -> None:
    if e is None or isinstance(e, (s.Literal, s.SelfRef)):
        return
    if isinstance(e, s.Name):
        if not any(e.name in declared for declared in scopes):
            out.add(e.name)
    elif isinstance(e, s.Chain):
        out.add(e.feature)
        _expr(e.base, scopes, out)
    elif isinstance(e, s.Binary):
        _expr(e.left, scopes, out)
        _expr(e.right, scopes, out)
    elif isinstance(e, s.Unary):
        _expr(e.operand, scopes, out)
    else:
        _mentions(e, out, scopes)


def _mentions(node: object, out: set[str], scopes: Scopes = ()) -> None:
    """Every name anything inside `node` mentions (its expressions read as expressions)."""
    if isinstance(node, s.Expr) and isinstance(node, (s.Name, s.Chain, s.Binary, s.Unary)):
        _expr(node, scopes, out)
        return
    if isinstance(node, str):
        out.update(_parts(node))
        return
    if isinstance(node, (tuple, list)):
        for item in node:
            _mentions(item, out, scopes)
        return
    if dataclasses.is_dataclass(node) and not isinstance(node, (type, s.Span)):
        for f in dataclasses.fields(node):
            _mentions(getattr(node, f.name), out, scopes)
