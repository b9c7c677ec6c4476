"""What every part of the transformer shares: spans, token tests, the half-built declaration, usages."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from lark import Token

from ir import syntax as s


def span(meta: Any) -> s.Span:
    if getattr(meta, "empty", True):
        return s.NO_SPAN
    # lark's end column is one past the last character; a Span names the last character itself.
    return s.Span(meta.line, meta.column, meta.end_line, meta.end_column - 1)


def is_token(tok: object, *types: str) -> bool:
    return isinstance(tok, Token) and tok.type in types


@dataclass
class Decl:
    """A usage declaration before it knows its keyword: the parts between the keyword and the body."""

    short_name: str | None = None
    name: str | None = None
    types: list[str] = field(default_factory=list)
    subsets: list[str] = field(default_factory=list)
    redefines: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    conjugated: bool = False
    multiplicity: s.Multiplicity | None = None
    ordered: bool = False
    parallel: bool = False
    value: s.Expr | None = None
    value_kind: s.FeatureValueKind | None = None


@dataclass
class Tail:
    has_body: bool
    members: tuple[s.Member, ...]


def members_of(children: list[Any]) -> tuple[s.Member, ...]:
    return tuple(c for c in children if isinstance(c, s.Member))


# KerML's escapes; any other backslash stays as written. (unicode_escape would garble non-ASCII text.)
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\(.)")


def unescape(raw: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), raw)


def comment_text(comment: str) -> str:
    """The text of `/* ... */` without its delimiters and the `*` that starts each continued line."""
    lines = [line.strip() for line in comment[2:-2].splitlines()]
    lines = [line[1:].lstrip() if line.startswith("*") else line for line in lines]
    return "\n".join(lines).strip()


def result_of(members: tuple[s.Member, ...]) -> tuple[tuple[s.Member, ...], s.Expr | None]:
    """A calc-like body's trailing bare expression is its result, not a member (the grammar puts it last)."""
    if members and isinstance(members[-1], s.ConstraintMember) and members[-1].kind == "expression":
        return members[:-1], members[-1].expression
    return members, None


def bound_of(x: Any) -> tuple[int, str | None]:
    """A multiplicity bound: a number, or a feature's name (its number found when lowering, 0 here)."""
    if is_token(x, "INT"):
        return int(x), None
    return 0, str(x)



class ReservedName(Exception):
    """A reserved word written unquoted where a name stands (raised inside the transformer)."""

    def __init__(self, token: Token) -> None:
        super().__init__(str(token))
        self.token = token


def usage_node(meta: Any, kind: str, direction: str | None, d: Decl, tail: Tail,
               action_body: s.Statement | None = None, performed: bool = False,
               exhibited: bool = False, constant: bool = False, reference: bool = False) -> s.Usage:
    """A usage from its declaration and its tail, whatever keyword or statement introduced it."""
    members, result = result_of(tail.members)
    return s.Usage(
        span(meta), kind, d.name, d.short_name, direction, tuple(d.types), tuple(d.subsets),
        tuple(d.redefines), d.multiplicity, d.ordered, d.value, d.value_kind, members,
        tail.has_body, d.parallel, action_body, result, performed, exhibited, constant,
        tuple(d.references), d.conjugated, reference,
    )
