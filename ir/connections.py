"""Flows and bindings between the features of an action's performances, as the runtime reads them.

`flow a.b to c.d;` carries what a's pin b holds to c's pin d: a plain flow streams each value as it
is written (SysML v2 §7.16), a `succession flow` hands over b's value when a ends (and orders a
before c). `bind a.b = c.d;` makes two pins one value; `bind a.b = x;` binds a pin to a feature of
the performance around it (`x` copied into b when a starts, b written back to `x` when a ends unless
b is an input). An end `a.b.c` names a pin of a node performed inside a's performance.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from ir import syntax as s


class ConnectionKind(Enum):
    FLOW = "flow"
    SUCCESSION_FLOW = "succession flow"
    BIND = "bind"


@dataclass(frozen=True)
class End:
    """One end: its path (`("leg", "inner", "w")`), and whether it is a node's pin or a feature."""

    path: tuple[str, ...]
    pin: bool

    @property
    def text(self) -> str:
        return ".".join(self.path)

    def expression(self) -> s.Expr:
        """The end read as an expression (a feature end is read where the connection is declared)."""
        expr: s.Expr = s.Name(s.NO_SPAN, self.path[0])
        for part in self.path[1:]:
            expr = s.Chain(s.NO_SPAN, expr, part)
        return expr


@dataclass(frozen=True)
class Connection:
    kind: ConnectionKind
    source: End  # a bind's left end
    target: End  # a bind's right end

    def ends(self) -> tuple[tuple[End, End], ...]:
        """(near, far) pairs along which a value written at `near` goes to `far`."""
        if self.kind is ConnectionKind.BIND:
            return ((self.source, self.target), (self.target, self.source))
        return ((self.source, self.target),)


def _end(text: str, nodes: frozenset[str]) -> End:
    path = tuple(text.split("."))
    return End(path, len(path) > 1 and path[0] in nodes)


def connections_of(members: Iterable[s.Member], nodes: Iterable[str]) -> tuple[Connection, ...]:
    """The flows and bindings among `members`; `nodes` names the nodes whose pins an end may name."""
    names = frozenset(nodes)
    out: list[Connection] = []
    for m in members:
        if isinstance(m, s.FlowMember):
            kind = ConnectionKind.SUCCESSION_FLOW if m.succession else ConnectionKind.FLOW
            out.append(Connection(kind, _end(m.source, names), _end(m.target, names)))
        elif isinstance(m, s.BindMember):
            out.append(Connection(ConnectionKind.BIND, _end(m.left, names), _end(m.right, names)))
    return tuple(out)


def node_names(members: Iterable[s.Member]) -> list[str]:
    """The action usages a block declares (the nodes its connections' ends may name)."""
    out = []
    for m in members:
        inner = m.member if isinstance(m, s.ThenMember) else m
        if isinstance(inner, s.Usage) and inner.kind in ("action", "calc") and inner.name:
            out.append(inner.name)
    return out
