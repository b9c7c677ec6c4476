"""The fast path from text to syntax: lark's own LALR tables and contextual lexer, driven in one loop
that calls the transformer's callbacks as each rule is reduced.

lark's usual path builds a whole parse tree (a Tree and a position record per node, through a chain
of wrappers per reduction) that the transformer then walks again; on a 50,000-line model that was
nearly all of the submission time. This loop shapes each node exactly as lark's tree builder would
(tokens lark filters out dropped, `_rule` children spliced into their parent, a `?rule` of one child
replaced by the child, positions propagated from the first and last child's container) and hands it
straight to the callback, keeping each value's position and nesting height beside it.

It answers only texts that parse cleanly: on any error (a syntax error, a reserved name, nesting past
the limit) it raises, and `ir.parse.parse` takes lark's usual path, which reports the error exactly as
before. Its tables come from ir/parse/tables.py. tests/ir/test_parse_driver.py checks that both paths give equal trees, spans
included, over every model the project has.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lark import Token, Tree
from lark.visitors import _vargs_meta

from ir.parse.tables import Tables, Unmirrored


class Meta:
    """A node's position as lark's propagate_positions records it (the fields span() reads, and the
    container's range: the node's own tokens lark filtered out, and an expanded `?rule`'s, included)."""

    __slots__ = ("c_column", "c_end", "c_end_column", "c_end_line", "c_line", "c_start", "column", "empty",
                 "end_column", "end_line", "line")

    def __init__(self) -> None:
        self.empty = True
        self.line: int | None = None
        self.end_line: int | None = None


class _Stop(Exception):
    """The fast path gives up; lark's usual path will say why."""


_Entry = Callable[[list[Any], list[Any], list[int]], tuple[Any, Any, int]]


def _position(metas: list[Any], meta: Any) -> None:
    """lark's PropagatePositions on `meta` from the raw children's positions (tokens filtered out included)."""
    for first in metas:
        if first.__class__ is Token:
            line, column, start = first.line, first.column, first.start_pos
            break
        if not first.empty:
            line, column, start = first.c_line, first.c_column, first.c_start
            break
    else:
        return
    if meta.line is None:
        meta.line, meta.column, meta.empty = line, column, False
    meta.c_line, meta.c_column, meta.c_start = line, column, start
    for last in reversed(metas):
        if last.__class__ is Token:
            end_line, end_column, end = last.end_line, last.end_column, last.end_pos
            break
        if not last.empty:
            end_line, end_column, end = last.c_end_line, last.c_end_column, last.c_end
            break
    if meta.end_line is None:
        meta.end_line, meta.end_column, meta.empty = end_line, end_column, False
    meta.c_end_line, meta.c_end_column, meta.c_end = end_line, end_column, end


def _compile(rule: dict[str, Any], transformer: Any) -> _Entry:
    """The reduction of one grammar rule: its children shaped as lark's tree builder would, then its callback."""
    name: str = rule["name"]
    include = [(i, splice) for i, splice in rule["include"]]
    filtering, expand1 = rule["filtering"], rule["expand1"]
    inline = name.startswith("_")
    # A `_rule` is spliced into its parent as it is built, so lark never calls a callback for it.
    bound = None if inline else getattr(transformer, name, None)
    if bound is not None:
        if getattr(bound, "visit_wrapper", None) is not _vargs_meta:
            raise Unmirrored(f"callback {name} does not take (meta, children)")
        build: Callable[[Meta, list[Any]], Any] = bound.base_func
    else:
        def build(meta: Meta, children: list[Any]) -> Any:
            return Tree(name, children, meta)  # type: ignore[arg-type]
    lift = 0 if inline else 1

    def reduce(values: list[Any], metas: list[Any], heights: list[int]) -> tuple[Any, Any, int]:
        if filtering:
            children: list[Any] = []
            for i, splice in include:
                if splice:
                    if children:
                        children += values[i].children
                    else:
                        children = values[i].children
                else:
                    children.append(values[i])
        else:
            children = values
        height = max(heights) if heights else 0
        if expand1 and len(children) == 1:
            child = children[0]
            # The child keeps its own callback's result; lark widens its container to this rule's text.
            index = next((i for i, value in enumerate(values) if value is child), -1)
            if index < 0:
                raise _Stop("a single child spliced from a _rule")  # its position is not kept here
            meta = metas[index]
            if meta.__class__ is not Token:
                if meta.empty:
                    raise _Stop("an empty child given a position after its callback ran")
                _position(metas, meta)
            return child, meta, heights[index]
        meta = Meta()
        _position(metas, meta)
        return build(meta, children), meta, height + lift

    return reduce


class _Rows(dict[int, dict[str, tuple[bool, Any]]]):
    def __init__(self, make: Callable[[int], dict[str, tuple[bool, Any]]]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, state: int) -> dict[str, tuple[bool, Any]]:
        row = self[state] = self.make(state)
        return row


class Driver:
    """The tables of one grammar (ir/parse/tables.py) and a compiled reduction per rule."""

    def __init__(self, tables: Tables, transformer: Any, limit: int) -> None:
        self.start_state: int = tables["start"]
        self.end_state: int = tables["end"]
        self.limit = limit
        self.specs: list[dict[str, Any]] = tables["lexers"]
        self.lexer_of: dict[int, int] = {int(state): spec for state, spec in tables["lexer_of"].items()}
        self.compiled: dict[int, tuple[Any, frozenset[str], frozenset[str], dict[str, Any]]] = {}
        # Each state's lexer is compiled on first use, as lark builds it (a regex over its terminals).
        self.lexers: dict[int, tuple[Any, frozenset[str], frozenset[str], dict[str, Any]]] = {}
        self.blank = re.compile(tables["blank"]).match if tables["blank"] is not None else None
        # Each rule compiled now (a grammar shape the driver does not mirror is found here, once).
        self.reductions: list[tuple[_Entry | None, int, str]] = [
            (None if rule["unit"] else _compile(rule, transformer), rule["size"], rule["origin"])
            for rule in tables["rules"]]
        self.actions: dict[str, dict[str, list[int]]] = tables["states"]
        self.table = _Rows(self._row)

    def _row(self, state: int) -> dict[str, tuple[bool, Any]]:
        """A state's row of the table, each rule replaced by its compiled reduction (None for a unit
        `?rule`): symbol -> (True, next state) or (False, (reduction, size, rule's name)). Rows are
        made as the parse first reaches their state (a parse reaches few of them)."""
        return {symbol: (True, arg) if shift else (False, self.reductions[arg])
                for symbol, (shift, arg) in self.actions[str(state)].items()}

    def _lexer(self, state: int) -> None:
        spec = self.lexer_of[state]
        if spec not in self.compiled:
            lexer = self.specs[spec]
            self.compiled[spec] = (
                tuple(re.compile(pattern, flags) for pattern, flags in lexer["patterns"]),
                frozenset(lexer["ignore"]), frozenset(lexer["newlines"]),
                {kind: _Keywords(tuple(re.compile(pattern, flags) for pattern, flags in patterns))
                 for kind, patterns in lexer["unless"].items()})
        self.lexers[state] = self.compiled[spec]

    def parse(self, text: str) -> Any:
        """The start rule's value, or raise (any exception: the caller takes lark's usual path)."""
        table, lexers, limit, end_state, blank = self.table, self.lexers, self.limit, self.end_state, self.blank
        state_stack = [self.start_state]
        values: list[Any] = []
        metas: list[Any] = []
        heights: list[int] = []
        pos, line, line_start, end = 0, 1, 0, len(text)
        new = str.__new__
        token: Any = None
        while True:
            if blank is not None and pos < end:
                m = blank(text, pos)
                if m is not None:
                    value = m.group(0)
                    count = value.count("\n")
                    if count:
                        line += count
                        line_start = pos + value.rindex("\n") + 1
                    pos = m.end()
            if pos < end:
                state = state_stack[-1]
                if state not in lexers:
                    self._lexer(state)
                mres, ignore, newlines, callbacks = lexers[state]
                for mre in mres:
                    m = mre.match(text, pos)
                    if m:
                        break
                else:
                    raise _Stop("no token")
                value, kind = m.group(0), m.lastgroup
                start, start_line, column = pos, line, pos - line_start + 1
                if kind in newlines:
                    count = value.count("\n")
                    if count:
                        line += count
                        line_start = pos + value.rindex("\n") + 1
                pos += len(value)
                if kind in ignore:
                    continue
                token = new(Token, value)
                token.type, token.value, token.start_pos = kind, value, start
                token.line, token.column = start_line, column
                token.end_line, token.end_column, token.end_pos = line, pos - line_start + 1, pos
                if kind in callbacks:
                    token = callbacks[kind](token)
                kind = token.type
                final = False
            else:
                kind, final = "$END", True
            while True:
                shift, arg = table[state_stack[-1]][kind]
                if shift:
                    if final:
                        raise _Stop("shift at the end")
                    state_stack.append(arg)
                    values.append(token)
                    metas.append(token)
                    heights.append(0)
                    break
                reduce, size, origin = arg
                if reduce is None:
                    state_stack[-1] = table[state_stack[-2]][origin][1]
                else:
                    if size:
                        children, child_metas, child_heights = values[-size:], metas[-size:], heights[-size:]
                        del state_stack[-size:], values[-size:], metas[-size:], heights[-size:]
                    else:
                        children, child_metas, child_heights = [], [], []
                    value, meta, height = reduce(children, child_metas, child_heights)
                    if height >= limit:
                        raise _Stop("too deep")
                    state_stack.append(table[state_stack[-1]][origin][1])
                    values.append(value)
                    metas.append(meta)
                    heights.append(height)
                if final and state_stack[-1] == end_state:
                    return values[-1]


class _Keywords:
    """lark's UnlessCallback: a token the keywords' patterns match whole takes the keyword's type."""

    def __init__(self, patterns: tuple[re.Pattern[str], ...]) -> None:
        self.patterns = patterns

    def __call__(self, token: Token) -> Token:
        for pattern in self.patterns:
            m = pattern.fullmatch(token)
            if m:
                token.type = m.lastgroup  # type: ignore[assignment]
                break
        return token


def driver(tables: Tables, transformer: Any, limit: int) -> Driver | None:
    """The fast driver for a grammar's tables, or None when they have a shape it does not mirror."""
    try:
        return Driver(tables, transformer, limit)
    except Exception:  # tables of another shape, or a callback the driver cannot call
        return None
