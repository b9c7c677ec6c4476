"""Text to syntax tree: the lark LALR parser (built once, cached) and the transformer onto ir.syntax.

The transformer is one class per job (declarations, actions, states, expressions), joined here.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput, VisitError

from ir import syntax as s
from ir.errors import SysmlSyntaxError
from ir.parse import tables
from ir.parse.actions import Actions
from ir.parse.common import ReservedName
from ir.parse.declarations import Declarations
from ir.parse.driver import Driver, driver
from ir.parse.expressions import Expressions
from ir.parse.states import States
from ir.reserved import reserved_as_name
from ir.syntax_messages import explain

GRAMMAR = Path(__file__).parent.parent / "grammar.lark"

# Levels of the parse tree a text may nest: each parenthesis, block, nested declaration and each
# operator of a chain (`1 + 2 + ... + n`) adds one or more. The deepest model of the corpus has 23;
# beyond the limit every later phase (names, lowering, evaluation) would recurse past Python's stack.
MAX_NESTING = 200


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


    def transform(self, tree: Tree[Token]) -> Any:
        """The callbacks applied bottom-up without recursion; a tree deeper than MAX_NESTING is refused."""
        postorder: list[Any] = []
        todo: list[tuple[Any, int]] = [(tree, 1)]
        while todo:
            node, depth = todo.pop()
            postorder.append(node)
            if isinstance(node, Tree):
                if depth >= MAX_NESTING:
                    raise _TooDeep(node)
                todo.extend((child, depth + 1) for child in node.children)
        stack: list[Any] = []
        for node in reversed(postorder):
            if not isinstance(node, Tree):
                stack.append(node)
                continue
            size = len(node.children)
            args = stack[len(stack) - size:] if size else []
            del stack[len(stack) - size:]
            stack.append(self._call_userfunc(node, args))
        return stack[0]


class _TooDeep(Exception):
    def __init__(self, node: Tree[Token]) -> None:
        super().__init__(node.data)
        self.node = node


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


@functools.lru_cache(maxsize=1)
def _driver() -> Driver | None:
    """The fast driver, from the tables' cache file when it is there (lark's parser is then built only
    for a text the driver refuses), else from lark's parser, writing the cache for the next process."""
    key = tables.key(GRAMMAR.read_text(encoding="utf-8"), "document")
    found = tables.load(key)
    if found is None:
        try:
            found = tables.extract(parser(), "document", key)
        except Exception:  # another lark's internals, or a grammar shape the driver does not mirror
            return None
        tables.save(found)
    return driver(found, _TRANSFORMER, MAX_NESTING)


@contextlib.contextmanager
def _no_collection() -> Iterator[None]:
    """The cyclic collector paused: a parse allocates millions of objects and no cycles, and the
    collector's passes over them were half the parse time of a large model."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse(text: str, path: str = "<input>") -> s.Document:
    """Parse one SysML text; a text outside the grammar raises SysmlSyntaxError, never a lark error."""
    with _no_collection():
        fast = _driver()
        if fast is not None:
            try:
                return s.Document(path, fast.parse(text), text)
            except Exception:  # any refusal is said, exactly as before, by the usual path
                pass
        return parse_usual(text, path)


def parse_usual(text: str, path: str = "<input>") -> s.Document:
    """`parse` through lark's parse tree and the transformer's walk over it: the path every error takes."""
    try:
        tree = parser().parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, path) from None
    try:
        members = _TRANSFORMER.transform(tree)
    except _TooDeep as deep:
        raise _nesting_error(deep.node, text, path) from None
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


def _nesting_error(node: Tree[Token], text: str, path: str) -> SysmlSyntaxError:
    line = getattr(node.meta, "line", 0)
    column = getattr(node.meta, "column", 0)
    message = (f"the text nests deeper than {MAX_NESTING} levels here (parentheses, blocks, nested "
               f"declarations and each operator of a chain add levels); split it into named parts")
    return SysmlSyntaxError(path, line, column, message, text, ())


def _syntax_error(err: UnexpectedInput, text: str, path: str) -> SysmlSyntaxError:
    why = explain(err, text, parser())
    earlier = _reserved_feature_before(text, why.line)
    if earlier is not None:
        # a feature named by a reserved word parses where it is declared, and its use in an expression
        # later is where the grammar fails: the name is the cause, and said so where it is written
        line, column, word = earlier
        message = (f"'{word}' is a SysML v2 reserved word and cannot be a name; write the name quoted "
                   f"('{word}') or choose another (the text fails to parse at line {why.line}, where it is read)")
        return SysmlSyntaxError(path, line, column, message, text, ())
    return SysmlSyntaxError(path, why.line, why.column, why.message, text, why.expected)


_FEATURE_DECLARED = re.compile(r"\b(?:attribute|item|ref|part|port)\s+([A-Za-z_]\w*)\s*(?=[:;=\[{])")


def _reserved_feature_before(text: str, line: int) -> tuple[int, int, str] | None:
    """The first feature declared (`attribute state : Integer`) with a name this tool refuses as a
    reserved word, on a line up to `line` and outside a line comment: (line, column, word)."""
    for number, written in enumerate(text.splitlines()[:line], start=1):
        code = written.split("//", 1)[0]
        for found in _FEATURE_DECLARED.finditer(code):
            if reserved_as_name(found.group(1)):
                return number, found.start(1) + 1, found.group(1)
    return None
