"""The transformer's expressions: operators, calls, indexing, bodies and literals."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from ir import syntax as s
from ir.parse.common import span, unescape


@v_args(meta=True)
class Expressions(Transformer[Token, Any]):
    """Rules of the expression language; each returns a syntax Expr (or a call's arguments)."""

    # ---------------------------------------------------------------- expressions

    def conditional_expr(self, meta: Any, c: list[Any]) -> s.Conditional:
        return s.Conditional(span(meta), c[1], c[2], c[4])

    def binop(self, meta: Any, c: list[Any]) -> s.Binary:
        op = str(c[1])
        return s.Binary(span(meta), op, c[0], c[2])

    def unop(self, meta: Any, c: list[Any]) -> s.Unary:
        return s.Unary(span(meta), str(c[0]), c[1])

    def range_op(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary(span(meta), "..", c[0], c[1])

    def chain(self, meta: Any, c: list[Any]) -> s.Chain:
        return s.Chain(span(meta), c[0], c[1])

    def arguments(self, meta: Any, c: list[Any]) -> list[Any]:
        return c

    def named_argument(self, meta: Any, c: list[Any]) -> tuple[str, s.Expr]:
        return (c[0], c[1])

    @staticmethod
    def _split_args(args: list[Any]) -> tuple[tuple[s.Expr, ...], tuple[tuple[str, s.Expr], ...]]:
        positional = tuple(a for a in args if isinstance(a, s.Expr))
        named = tuple(a for a in args if isinstance(a, tuple))
        return positional, named

    def call(self, meta: Any, c: list[Any]) -> s.Call:
        positional, named = self._split_args(c[1] if len(c) > 1 else [])
        return s.Call(span(meta), c[0], positional, named)

    def new_expr(self, meta: Any, c: list[Any]) -> s.New:
        positional, named = self._split_args(c[2] if len(c) > 2 else [])
        return s.New(span(meta), c[1], positional, named)

    def index(self, meta: Any, c: list[Any]) -> s.Index:
        return s.Index(span(meta), c[0], c[1])

    def position(self, meta: Any, c: list[Any]) -> s.Index:
        return s.Index(span(meta), c[0], c[1], positional=True)

    def body_param(self, meta: Any, c: list[Any]) -> str:
        return str(next(x for x in c if not isinstance(x, Token)))

    def body_expr(self, meta: Any, c: list[Any]) -> s.Lambda:
        return s.Lambda(span(meta), tuple(c[:-1]), c[-1])

    def arrow_body(self, meta: Any, c: list[Any]) -> s.Call:
        return s.Call(span(meta), s.Name(span(meta), c[1]), (c[0], c[2]), (), arrow=True)

    def arrow_call(self, meta: Any, c: list[Any]) -> s.Call:
        positional, named = self._split_args(c[2] if len(c) > 2 else [])
        return s.Call(span(meta), s.Name(span(meta), c[1]), (c[0], *positional), named, arrow=True)

    def int_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(span(meta), "integer", str(c[0]))

    def real_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(span(meta), "real", str(c[0]))

    def string_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        raw = str(c[0])[1:-1]
        return s.Literal(span(meta), "string", unescape(raw) if "\\" in raw else raw)

    def true_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(span(meta), "boolean", "true")

    def false_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(span(meta), "boolean", "false")

    def null_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(span(meta), "null", "null")

    def self_ref(self, meta: Any, c: list[Token]) -> s.SelfRef:
        return s.SelfRef(span(meta))

    def name_ref(self, meta: Any, c: list[Any]) -> s.Name:
        return s.Name(span(meta), c[0])

    def empty_seq(self, meta: Any, c: list[Any]) -> s.SequenceExpr:
        return s.SequenceExpr(span(meta), ())

    def paren(self, meta: Any, c: list[Any]) -> s.Expr:
        return c[0]

    def seq(self, meta: Any, c: list[Any]) -> s.SequenceExpr:
        return s.SequenceExpr(span(meta), tuple(c))
