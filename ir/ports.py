"""Ports and their conjugates, checked when a model is submitted.

A port usage typed `~P` has P's directed features with their directions swapped (`in` for `out` and
`out` for `in`; `inout` stays). A connection between two ports joins each feature one end sends to
the feature of the same name the other end receives: when both ends send it (or both receive it),
the connection cannot carry it, and the model is refused naming the feature and each end's
direction, with the conjugate as the way out. Only a port definition has a conjugate.

A connection between two ports the connecting element owns itself (`connect outPort to inPort;` in a
machine holding both) joins its own boundary back to itself rather than two parts, so it is not
checked: the corpus (state_transition_accept_via_port) sends via one such port and accepts at the
other.
"""

from __future__ import annotations

from ir import syntax as s
from ir.errors import PortMismatchError
from ir.model import Element, Model
from ir.resolve import lookup, member_of

_FLIPPED = {"in": "out", "out": "in", "inout": "inout"}


def port_directions(model: Model, port: Element) -> dict[str, str] | None:
    """A port usage's directed features and their directions as that usage sees them (swapped for a
    conjugated type); None when it is no port usage typed by a port definition the model holds."""
    decl = port.decl
    if not isinstance(decl, s.Usage) or decl.kind != "port" or not decl.types:
        return None
    definition = lookup(model, port.owner, decl.types[0])
    if definition is None or definition.kind != "port def":
        return None
    out: dict[str, str] = {}
    seen: set[int] = set()
    todo = [definition]
    while todo:
        at = todo.pop()
        if id(at) in seen:
            continue
        seen.add(id(at))
        for name, feature in at.members.items():
            if isinstance(feature.decl, s.Usage) and feature.decl.direction and name not in out:
                out[name] = feature.decl.direction
        todo.extend(t for t in (lookup(model, at.owner, n) for n in at.type_names) if t is not None)
    if decl.conjugated:
        out = {name: _FLIPPED[d] for name, d in out.items()}
    return out


def _end(model: Model, scope: Element, path: str) -> Element | None:
    head, *rest = path.split(".")
    at = lookup(model, scope, head)
    for part in rest:
        at = member_of(model, at, part) if at is not None else None
    return at


def _connections(members: tuple[s.Member, ...]) -> list[s.ConnectMember]:
    out = []
    for m in members:
        if isinstance(m, s.ThenMember) and m.member is not None:
            m = m.member
        if isinstance(m, s.ConnectMember):
            out.append(m)
    return out


def check_ports(model: Model) -> None:
    """Refuse a conjugate of what is no port definition, and a connection whose ends both send (or
    both receive) one feature."""
    for el in model.walk():
        decl = el.decl
        if isinstance(decl, s.Usage) and decl.conjugated and decl.types:
            typed = lookup(model, el.owner, decl.types[0])
            if typed is not None and typed.kind != "port def":
                raise PortMismatchError(f"'~{decl.types[0]}' conjugates {typed.kind} {typed.qualified_name}: only a "
                                        "port definition has a conjugate", el.path, decl.span.line, decl.span.column)
        if not isinstance(decl, (s.Usage, s.Definition)):
            continue
        for connect in _connections(decl.members):
            _check_connection(model, el, connect)


def _check_connection(model: Model, scope: Element, connect: s.ConnectMember) -> None:
    source, target = _end(model, scope, connect.source), _end(model, scope, connect.target)
    if source is None or target is None or (source.owner is scope and target.owner is scope):
        return
    one, other = port_directions(model, source), port_directions(model, target)
    if one is None or other is None:
        return
    for name in sorted(set(one) & set(other)):
        a, b = one[name], other[name]
        if a == b and a != "inout":
            verb = "send" if a == "out" else "receive"
            typed = source.decl.types[0] if isinstance(source.decl, s.Usage) else "its type"
            raise PortMismatchError(
                f"connect {connect.source} to {connect.target}: both ends {verb} '{name}' ({a} on each); "
                f"a connected pair has it out on one end and in on the other (type one end {typed}, "
                f"the other its conjugate ~{typed})", scope.path, connect.span.line, connect.span.column)
