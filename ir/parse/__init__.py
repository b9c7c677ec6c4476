"""Text to syntax tree: the lark LALR parser (built once, cached) and the transformer onto ir.syntax.

The transformer is one class per job (declarations, actions, states, expressions), joined here.
"""

from __future__ import annotations

import functools
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedInput, VisitError

from ir import syntax as s
from ir.errors import SysmlSyntaxError
from ir.parse.actions import Actions
from ir.parse.common import ReservedName
from ir.parse.declarations import Declarations
from ir.parse.expressions import Expressions
from ir.parse.states import States
from ir.syntax_messages import explain

GRAMMAR = Path(__file__).parent.parent / "grammar.lark"


def _rule_names(cls: type) -> list[str]:
    return [n for k in cls.__mro__ if k.__module__.startswith(__name__) for n, v in vars(k).items()
            if not n.startswith("_") and callable(v)]


class _ToSyntax(Declarations, Actions, States, Expressions):
    """One callback per grammar rule; keyword tokens arrive as lark Tokens and are skipped."""

    def __init__(self) -> None:
        super().__init__()
        # v_args wraps each callback anew on every attribute lookup (a functools.update_wrapper per
        # tree node, a quarter of the transform); bound once here, the lookups find the instance's.
        for rule in _rule_names(type(self)):
            setattr(self, rule, getattr(self, rule))


_TRANSFORMER = _ToSyntax()


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """The LALR parser, built once per process (lark caches the analysed grammar on disk too)."""
    return Lark(
        GRAMMAR.read_text(encoding="utf-8"),
        start="document",
        parser="lalr",
        lexer="contextual",
        propagate_positions=True,
        maybe_placeholders=False,
        cache=True,
    )


def parse(text: str, path: str = "<input>") -> s.Document:
    """Parse one SysML text; a text outside the grammar raises SysmlSyntaxError, never a lark error."""
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, path) from None
    try:
        members = _TRANSFORMER.transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, ReservedName):
            raise _reserved_error(err.orig_exc.token, text, path) from None
        raise
    return s.Document(path, members, text)


def _reserved_error(token: Token, text: str, path: str) -> SysmlSyntaxError:
    word = str(token)
    message = (f"'{word}' is a SysML v2 reserved word and cannot be a name; "
               f"write the name quoted ('{word}') or choose another")
    return SysmlSyntaxError(path, token.line or 0, token.column or 0, message, text, ())


def _syntax_error(err: UnexpectedInput, text: str, path: str) -> SysmlSyntaxError:
    why = explain(err, text, parser())
    return SysmlSyntaxError(path, why.line, why.column, why.message, text, why.expected)
