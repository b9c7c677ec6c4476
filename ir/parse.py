"""Text to syntax tree: the lark LALR parser (built once, cached) and the transformer onto ir.syntax."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedInput, VisitError

from ir import syntax as s
from ir.errors import SysmlSyntaxError
from ir.reserved import reserved_as_name
from ir.syntax_messages import explain

GRAMMAR = Path(__file__).with_name("grammar.lark")


def _span(meta: Any) -> s.Span:
    if getattr(meta, "empty", True):
        return s.NO_SPAN
    # lark's end column is one past the last character; a Span names the last character itself.
    return s.Span(meta.line, meta.column, meta.end_line, meta.end_column - 1)


def _is(tok: object, *types: str) -> bool:
    return isinstance(tok, Token) and tok.type in types


@dataclass
class _Decl:
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
class _Tail:
    has_body: bool
    members: tuple[s.Member, ...]


def _members(children: list[Any]) -> tuple[s.Member, ...]:
    return tuple(c for c in children if isinstance(c, s.Member))


# KerML's escapes; any other backslash stays as written. (unicode_escape would garble non-ASCII text.)
_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "'": "'", "\\": "\\"}
_ESCAPE = re.compile(r"\\(.)")


def _unescape(raw: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(0)), raw)


def _comment_text(comment: str) -> str:
    """The text of `/* ... */` without its delimiters and the `*` that starts each continued line."""
    lines = [line.strip() for line in comment[2:-2].splitlines()]
    lines = [line[1:].lstrip() if line.startswith("*") else line for line in lines]
    return "\n".join(lines).strip()


def _result_of(members: tuple[s.Member, ...]) -> tuple[tuple[s.Member, ...], s.Expr | None]:
    """A calc-like body's trailing bare expression is its result, not a member (the grammar puts it last)."""
    if members and isinstance(members[-1], s.ConstraintMember) and members[-1].kind == "expression":
        return members[:-1], members[-1].expression
    return members, None


def _bound(x: Any) -> tuple[int, str | None]:
    """A multiplicity bound: a number, or a feature's name (its number found when lowering, 0 here)."""
    if _is(x, "INT"):
        return int(x), None
    return 0, str(x)


def _rule_names(cls: type) -> list[str]:
    return [n for k in cls.__mro__ if k.__module__ == __name__ for n, v in vars(k).items()
            if not n.startswith("_") and callable(v)]


class _ReservedName(Exception):
    """A reserved word written unquoted where a name stands (raised inside the transformer)."""

    def __init__(self, token: Token) -> None:
        super().__init__(str(token))
        self.token = token


@v_args(meta=True)
class _ToSyntax(Transformer[Token, Any]):
    """One callback per grammar rule; keyword tokens arrive as lark Tokens and are skipped."""

    def __init__(self) -> None:
        super().__init__()
        # v_args wraps each callback anew on every attribute lookup (a functools.update_wrapper per
        # tree node, a quarter of the transform); bound once here, the lookups find the instance's.
        for rule in _rule_names(type(self)):
            setattr(self, rule, getattr(self, rule))

    # ---------------------------------------------------------------- names

    def name(self, meta: Any, c: list[Token]) -> str:
        text = str(c[0])
        if text.startswith("'"):
            return text[1:-1]
        if reserved_as_name(text):
            raise _ReservedName(c[0])
        return text

    def qname(self, meta: Any, c: list[str]) -> str:
        return "::".join(c)

    def name_path(self, meta: Any, c: list[str]) -> str:
        return ".".join(c)

    # ---------------------------------------------------------------- document

    def document(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return _members(c)

    def member(self, meta: Any, c: list[Any]) -> Any:
        visibility, element = c[0], c[-1]
        if isinstance(element, s.Import):
            return s.Import(element.span, element.target, element.wildcard, element.recursive, visibility)
        return element

    def visibility(self, meta: Any, c: list[Token]) -> str:
        return str(c[0])

    def package(self, meta: Any, c: list[Any]) -> s.Package:
        short = c[1][1] if isinstance(c[1], tuple) else None
        rest = c[1:] if short is None else c[2:]
        return s.Package(_span(meta), rest[0], _members(rest[1:]), short)

    def import_(self, meta: Any, c: list[Any]) -> s.Import:
        target, wild = c[1]
        return s.Import(_span(meta), target, wild in ("::*", "::**"), wild == "::**")

    def import_target(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return c[0], (str(c[1]) if len(c) > 1 else "")

    def alias_member(self, meta: Any, c: list[Any]) -> s.Usage:
        return s.Usage(_span(meta), "alias", c[1], types=(c[3],))

    # ---------------------------------------------------------------- definitions

    def def_kind(self, meta: Any, c: list[Token]) -> str:
        return str(c[0])

    calc_kind = def_kind
    enum_kind = def_kind

    def use_case(self, meta: Any, c: list[Token]) -> str:
        return "use case"

    def def_body(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return _members(c)

    calc_body = def_body
    enum_body = def_body

    def enum_literal(self, meta: Any, c: list[Token]) -> s.Usage:
        return s.Usage(_span(meta), "enum", self.name(meta, c))

    def specialization(self, meta: Any, c: list[Any]) -> list[str]:
        return [x for x in c if isinstance(x, str) and not isinstance(x, Token)]

    def definition(self, meta: Any, c: list[Any]) -> s.Definition:
        abstract = _is(c[0], "ABSTRACT")
        rest = c[1:] if abstract else c
        kind = rest[0]
        short_name = None
        items = rest[2:]  # after kind and DEF
        if isinstance(items[0], tuple) and items[0] and items[0][0] == "short":
            short_name = items[0][1]
            items = items[1:]
        name = items[0]
        specializes: list[str] = []
        parallel = False
        members: tuple[s.Member, ...] = ()
        for item in items[1:]:
            if isinstance(item, list):
                specializes.extend(item)
            elif _is(item, "PARALLEL"):
                parallel = True
            elif isinstance(item, tuple):
                members = item
        members, result = _result_of(members)
        return s.Definition(_span(meta), kind, name, short_name, tuple(specializes), members,
                            parallel, abstract, result)

    def short_name(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("short", c[1])

    # ---------------------------------------------------------------- usages

    def usage_kind(self, meta: Any, c: list[Any]) -> str:
        return str(c[0]) if isinstance(c[0], Token) else c[0]

    def direction(self, meta: Any, c: list[Token]) -> tuple[str, str]:
        return ("direction", str(c[0]))

    def usage_prefix(self, meta: Any, c: list[Any]) -> tuple[str | None, str, bool]:
        direction = None
        kind = "feature"
        for x in c:
            if isinstance(x, tuple) and x[0] == "direction":
                direction = x[1]
            elif isinstance(x, str) and not isinstance(x, Token):
                kind = x
        return direction, kind, any(_is(x, "CONSTANT") for x in c)

    def usage_decl(self, meta: Any, c: list[Any]) -> _Decl:
        d = _Decl()
        for x in c:
            if isinstance(x, tuple) and x[0] == "short":
                d.short_name = x[1]
            elif isinstance(x, tuple) and x[0] == "types":
                d.types.extend(t[1] if isinstance(t, tuple) else t for t in x[1])
                d.conjugated = d.conjugated or any(isinstance(t, tuple) for t in x[1])
            elif isinstance(x, tuple) and x[0] == "references":
                d.references.extend(x[1])
            elif isinstance(x, tuple) and x[0] == "subsets":
                d.subsets.extend(x[1])
            elif isinstance(x, tuple) and x[0] == "redefines":
                d.redefines.extend(x[1])
            elif isinstance(x, tuple) and x[0] == "ordered":
                d.ordered = True
            elif isinstance(x, tuple) and x[0] == "value":
                d.value_kind, d.value = x[1], x[2]
            elif isinstance(x, s.Multiplicity):
                d.multiplicity = x
            elif _is(x, "PARALLEL"):
                d.parallel = True
            elif isinstance(x, str) and not isinstance(x, Token):
                d.name = x
        if d.name is None and d.short_name is not None:
            d.name = d.short_name  # `attribute <x> : Integer;` is named by its short name alone
        return d

    def typed_by(self, meta: Any, c: list[Any]) -> tuple[str, list[str]]:
        return ("types", [x for x in c if not isinstance(x, Token)])

    def subsets(self, meta: Any, c: list[Any]) -> tuple[str, list[str]]:
        return ("subsets", [x for x in c if not isinstance(x, Token)])

    def redefines(self, meta: Any, c: list[Any]) -> tuple[str, list[str]]:
        return ("redefines", [x for x in c if not isinstance(x, Token)])

    def references(self, meta: Any, c: list[Any]) -> tuple[str, list[str]]:
        return ("references", [x for x in c if not isinstance(x, Token)])

    def conjugated(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("~", c[1])

    def ordered_flag(self, meta: Any, c: list[Any]) -> tuple[str]:
        return ("ordered",)

    def multiplicity(self, meta: Any, c: list[Any]) -> s.Multiplicity:
        return c[0]

    def mult_lower_upper(self, meta: Any, c: list[Any]) -> s.Multiplicity:
        lower, lower_ref = _bound(c[0])
        if _is(c[1], "STAR"):
            return s.Multiplicity(lower, None, f"{c[0]}..*", lower_ref)
        upper, upper_ref = _bound(c[1])
        return s.Multiplicity(lower, upper, f"{c[0]}..{c[1]}", lower_ref, upper_ref)

    def mult_exact(self, meta: Any, c: list[Any]) -> s.Multiplicity:
        bound, ref = _bound(c[0])
        return s.Multiplicity(bound, bound, str(c[0]), ref, ref)

    def mult_star(self, meta: Any, c: list[Token]) -> s.Multiplicity:
        return s.Multiplicity(0, None, "*")

    def bound_value(self, meta: Any, c: list[Any]) -> tuple[str, s.FeatureValueKind, s.Expr]:
        return ("value", s.FeatureValueKind.BOUND, c[-1])

    def initial_value(self, meta: Any, c: list[Any]) -> tuple[str, s.FeatureValueKind, s.Expr]:
        return ("value", s.FeatureValueKind.INITIAL, c[-1])

    def default_value(self, meta: Any, c: list[Any]) -> tuple[str, s.FeatureValueKind, s.Expr]:
        return ("value", s.FeatureValueKind.DEFAULT, c[-1])

    def tail_none(self, meta: Any, c: list[Any]) -> _Tail:
        return _Tail(False, ())

    def tail_body(self, meta: Any, c: list[Any]) -> _Tail:
        return _Tail(True, _members(c))

    def _usage(self, meta: Any, kind: str, direction: str | None, d: _Decl, tail: _Tail,
               action_body: s.Statement | None = None, performed: bool = False,
               exhibited: bool = False, constant: bool = False) -> s.Usage:
        members, result = _result_of(tail.members)
        return s.Usage(
            _span(meta), kind, d.name, d.short_name, direction, tuple(d.types), tuple(d.subsets),
            tuple(d.redefines), d.multiplicity, d.ordered, d.value, d.value_kind, members,
            tail.has_body, d.parallel, action_body, result, performed, exhibited, constant,
            tuple(d.references), d.conjugated,
        )

    def usage(self, meta: Any, c: list[Any]) -> s.Usage:
        (direction, kind, constant), decl, tail = c[0], c[1], c[2]
        statement = None
        if isinstance(tail, tuple):  # an action written as one statement
            statement, tail = tail
        return self._usage(meta, kind, direction, decl, tail, action_body=statement, constant=constant)

    def return_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return self._usage(meta, "return", "out", c[1], c[2])

    def subject_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return self._usage(meta, "subject", "in", c[1], c[2])

    def bare_feature(self, meta: Any, c: list[Any]) -> s.Usage:
        return self._usage(meta, "feature", c[0][1], c[1], c[2])

    def enum_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return self._usage(meta, "enum", None, c[1], c[2])

    def stmt_assign_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, _Tail]:
        return c[0], c[1]

    def stmt_accept_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, _Tail]:
        return s.Accept(_span(meta), c[0]), c[1]

    def stmt_send_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, _Tail]:
        return c[0], c[1]

    def stmt_terminate_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, _Tail]:
        target = c[1] if len(c) > 2 else None
        return s.Terminate(_span(meta), target), c[-1]

    def perform_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        kinds = [x for x in c[1:-2] if isinstance(x, str) and not isinstance(x, Token)]
        decl, tail = c[-2], c[-1]
        if not kinds and decl.name and not decl.types:
            # `perform Halve;` performs the named action: the name is its type
            decl.types, decl.name = [decl.name], None
        return self._usage(meta, kinds[0] if kinds else "action", None, decl, tail, performed=True)

    def perform_named(self, meta: Any, c: list[Any]) -> s.Usage:
        path, tail = c[1], c[2]
        if "." in path:
            # `perform target.later.start;` performs the feature a chain reaches: it refers to it
            return self._usage(meta, "action", None, _Decl(references=[path]), tail, performed=True)
        # `perform Halve;` performs the named action: the name is its type
        return self._usage(meta, "action", None, _Decl(types=[path]), tail, performed=True)

    def exhibit_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return self._usage(meta, "state", None, c[-2], c[-1], exhibited=True)

    def metadata(self, meta: Any, c: list[Any]) -> s.Metadata:
        return s.Metadata(_span(meta), c[0], _members(c[1:]))

    def meta_value(self, meta: Any, c: list[Any]) -> s.Usage:
        return s.Usage(_span(meta), "attribute", c[0], value=c[1], value_kind=s.FeatureValueKind.BOUND)

    def doc(self, meta: Any, c: list[Token]) -> s.Doc:
        return s.Doc(_span(meta), _comment_text(str(c[1])) if len(c) > 1 else "")

    def constraint_member(self, meta: Any, c: list[Any]) -> s.ConstraintMember:
        kind = str(c[0])
        name = next((x for x in c[1:] if isinstance(x, str) and not isinstance(x, Token)), None)
        members, result = _result_of(_members(c))
        return s.ConstraintMember(_span(meta), kind, name, result, members)

    def expression_member(self, meta: Any, c: list[Any]) -> s.ConstraintMember:
        return s.ConstraintMember(_span(meta), "expression", None, c[0])

    # ---------------------------------------------------------------- flow

    def succ_end(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return _members(c)

    def first_member(self, meta: Any, c: list[Any]) -> s.FirstMember:
        source = c[1]
        if len(c) == 2:
            return s.FirstMember(_span(meta), source)
        guard = c[3] if _is(c[2], "IF") else None
        target = c[-2]
        return s.FirstMember(_span(meta), source, guard, target, c[-1])

    def succession_member(self, meta: Any, c: list[Any]) -> s.SuccessionMember:
        items = c[1:]
        name = None
        if len(items) > 1 and _is(items[1], "FIRST"):
            name, items = items[0], items[2:]
        elif _is(items[0], "FIRST"):
            items = items[1:]
        source = items[0]
        guard = items[2] if _is(items[1], "IF") else None
        return s.SuccessionMember(_span(meta), name, source, items[-2], guard, items[-1])

    def then_target(self, meta: Any, c: list[Any]) -> s.ThenMember:
        multiplicity = c[1] if isinstance(c[1], s.Multiplicity) else None
        return s.ThenMember(_span(meta), c[-1], None, multiplicity)

    def then_element(self, meta: Any, c: list[Any]) -> s.ThenMember:
        return s.ThenMember(_span(meta), None, c[1])

    def control_tail(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return _members(c)

    def control_node(self, meta: Any, c: list[Any]) -> s.ControlNode:
        name = c[1] if len(c) == 3 else None
        return s.ControlNode(_span(meta), str(c[0]), name, c[-1])

    def done_node(self, meta: Any, c: list[Any]) -> s.ControlNode:
        return s.ControlNode(_span(meta), "done", "done")

    def decision_branch(self, meta: Any, c: list[Any]) -> s.DecisionBranch:
        return s.DecisionBranch(_span(meta), c[1], c[3])

    def else_branch(self, meta: Any, c: list[Any]) -> s.DecisionBranch:
        return s.DecisionBranch(_span(meta), None, c[1])

    def flow_member(self, meta: Any, c: list[Any]) -> s.FlowMember:
        parts = [x for x in c if not isinstance(x, Token)]
        name = parts[0] if len(parts) == 3 else None
        return s.FlowMember(_span(meta), name, parts[-2], parts[-1])

    def bind_member(self, meta: Any, c: list[Any]) -> s.BindMember:
        return s.BindMember(_span(meta), c[1], c[2])

    def connect_member(self, meta: Any, c: list[Any]) -> s.ConnectMember:
        return s.ConnectMember(_span(meta), c[1], c[3])

    # ---------------------------------------------------------------- statements

    def assign_clause(self, meta: Any, c: list[Any]) -> s.Assign:
        return s.Assign(_span(meta), c[1], c[2])

    def assign_stmt(self, meta: Any, c: list[Any]) -> s.Assign:
        a: s.Assign = c[0]
        return s.Assign(_span(meta), a.target, a.value)

    def block(self, meta: Any, c: list[Any]) -> s.Block:
        return s.Block(_members(c), _span(meta))

    def if_stmt(self, meta: Any, c: list[Any]) -> s.If:
        otherwise: s.Block | None = None
        if len(c) > 3:
            last = c[4]
            otherwise = last if isinstance(last, s.Block) else s.Block((last,), last.span)
        return s.If(_span(meta), c[1], c[2], otherwise)

    def while_stmt(self, meta: Any, c: list[Any]) -> s.While:
        return s.While(_span(meta), c[1], c[2], c[4] if len(c) > 3 else None)

    def for_stmt(self, meta: Any, c: list[Any]) -> s.For:
        short = c[1][1] if isinstance(c[1], tuple) else None
        name = next((x for x in c[1:] if isinstance(x, str) and not isinstance(x, Token)), short)
        assert name is not None
        return s.For(_span(meta), name, c[-2], c[-1], short)

    def loop_stmt(self, meta: Any, c: list[Any]) -> s.LoopUntil:
        return s.LoopUntil(_span(meta), c[1], c[3] if len(c) > 2 else None)

    def send_clause(self, meta: Any, c: list[Any]) -> s.Send:
        payload = c[1]
        via = to = None
        i = 2
        while i < len(c):
            if _is(c[i], "VIA"):
                via = c[i + 1]
            elif _is(c[i], "TO"):
                to = c[i + 1]
            i += 2
        return s.Send(_span(meta), payload, via, to)

    def send_stmt(self, meta: Any, c: list[Any]) -> s.Send:
        x: s.Send = c[0]
        return s.Send(_span(meta), x.payload, x.via, x.to)

    def accept_clause(self, meta: Any, c: list[Any]) -> s.Trigger:
        return c[1]

    def accept_stmt(self, meta: Any, c: list[Any]) -> s.Accept:
        return s.Accept(_span(meta), c[0])

    def terminate_stmt(self, meta: Any, c: list[Any]) -> s.Terminate:
        return s.Terminate(_span(meta), c[1] if len(c) > 1 else None)

    def via(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("via", c[1])

    @staticmethod
    def _via(c: list[Any]) -> str | None:
        for x in c:
            if isinstance(x, tuple) and x[0] == "via":
                return x[1]
        return None

    def after_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.AFTER, expression=c[1], span=_span(meta))

    def at_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.AT, expression=c[1], span=_span(meta))

    def when_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.WHEN, expression=c[1], span=_span(meta))

    def payload_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, payload=c[0], signal=c[1], via=self._via(c), span=_span(meta))

    def subsets_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, subsets=c[0], via=self._via(c), span=_span(meta))

    def named_subsets_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, payload=c[0], subsets=c[1], via=self._via(c), span=_span(meta))

    def call_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.CALL, signal=c[0], via=self._via(c), span=_span(meta))

    def signal_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, signal=c[0], via=self._via(c), span=_span(meta))

    # ---------------------------------------------------------------- state machines

    def entry_marker(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(_span(meta), "entry", None)

    def behavior_block(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(_span(meta), str(c[0]), None, c[1])

    def behavior_action(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(_span(meta), str(c[0]), self._usage(meta, "action", None, c[2], c[3]))

    def behavior_action_stmt(self, meta: Any, c: list[Any]) -> s.EntryMember:
        statement, tail = c[3]
        return s.EntryMember(_span(meta), str(c[0]),
                             self._usage(meta, "action", None, c[2], tail, action_body=statement))

    def behavior_perform(self, meta: Any, c: list[Any]) -> s.EntryMember:
        usage = s.Usage(_span(meta), "action", None, types=(c[2],), performed=True)
        return s.EntryMember(_span(meta), str(c[0]), usage)

    def behavior_stmt(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(_span(meta), str(c[0]), c[1])

    def trans_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return c[1]

    def when_signal(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, signal=c[1], span=_span(meta))

    def trans_guard(self, meta: Any, c: list[Any]) -> tuple[str, s.Expr]:
        return ("guard", c[1])

    def trans_effect(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("effect", c[1])

    def effect_action(self, meta: Any, c: list[Any]) -> s.Usage:
        block: s.Block = c[2]
        return self._usage(meta, "action", None, c[1], _Tail(True, block.members))

    @staticmethod
    def _transition_parts(c: list[Any]) -> tuple[s.Trigger | None, s.Expr | None, Any]:
        trigger = next((x for x in c if isinstance(x, s.Trigger)), None)
        guard = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "guard"), None)
        effect = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "effect"), None)
        return trigger, guard, effect

    def transition(self, meta: Any, c: list[Any]) -> s.Transition:
        first = next(i for i, x in enumerate(c) if _is(x, "FIRST"))
        name = c[1] if first == 2 else None
        trigger, guard, effect = self._transition_parts(c)
        return s.Transition(_span(meta), name, c[first + 1], trigger, guard, effect, c[-1])

    def state_trigger(self, meta: Any, c: list[Any]) -> s.StateTriggerShorthand:
        _, guard, effect = self._transition_parts(c)
        return s.StateTriggerShorthand(_span(meta), c[1], guard, effect, c[-1])

    def choice_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(_span(meta), "choice", c[1])

    def junction_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(_span(meta), "junction", c[1])

    def history_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(_span(meta), "history", c[1])

    def deep_history_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(_span(meta), "deep history", c[2])

    def defer_member(self, meta: Any, c: list[Any]) -> s.Defer:
        return s.Defer(_span(meta), c[1])

    # ---------------------------------------------------------------- expressions

    def conditional_expr(self, meta: Any, c: list[Any]) -> s.Conditional:
        return s.Conditional(_span(meta), c[1], c[2], c[4])

    def binop(self, meta: Any, c: list[Any]) -> s.Binary:
        op = str(c[1])
        return s.Binary(_span(meta), op, c[0], c[2])

    def unop(self, meta: Any, c: list[Any]) -> s.Unary:
        return s.Unary(_span(meta), str(c[0]), c[1])

    def range_op(self, meta: Any, c: list[Any]) -> s.Binary:
        return s.Binary(_span(meta), "..", c[0], c[1])

    def chain(self, meta: Any, c: list[Any]) -> s.Chain:
        return s.Chain(_span(meta), c[0], c[1])

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
        return s.Call(_span(meta), c[0], positional, named)

    def new_expr(self, meta: Any, c: list[Any]) -> s.New:
        positional, named = self._split_args(c[2] if len(c) > 2 else [])
        return s.New(_span(meta), c[1], positional, named)

    def index(self, meta: Any, c: list[Any]) -> s.Index:
        return s.Index(_span(meta), c[0], c[1])

    def position(self, meta: Any, c: list[Any]) -> s.Index:
        return s.Index(_span(meta), c[0], c[1], positional=True)

    def body_param(self, meta: Any, c: list[Any]) -> str:
        return str(next(x for x in c if not isinstance(x, Token)))

    def body_expr(self, meta: Any, c: list[Any]) -> s.Lambda:
        return s.Lambda(_span(meta), tuple(c[:-1]), c[-1])

    def arrow_body(self, meta: Any, c: list[Any]) -> s.Call:
        return s.Call(_span(meta), s.Name(_span(meta), c[1]), (c[0], c[2]), (), arrow=True)

    def arrow_call(self, meta: Any, c: list[Any]) -> s.Call:
        positional, named = self._split_args(c[2] if len(c) > 2 else [])
        return s.Call(_span(meta), s.Name(_span(meta), c[1]), (c[0], *positional), named, arrow=True)

    def int_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(_span(meta), "integer", str(c[0]))

    def real_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(_span(meta), "real", str(c[0]))

    def string_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        raw = str(c[0])[1:-1]
        return s.Literal(_span(meta), "string", _unescape(raw) if "\\" in raw else raw)

    def true_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(_span(meta), "boolean", "true")

    def false_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(_span(meta), "boolean", "false")

    def null_lit(self, meta: Any, c: list[Token]) -> s.Literal:
        return s.Literal(_span(meta), "null", "null")

    def self_ref(self, meta: Any, c: list[Token]) -> s.SelfRef:
        return s.SelfRef(_span(meta))

    def name_ref(self, meta: Any, c: list[Any]) -> s.Name:
        return s.Name(_span(meta), c[0])

    def empty_seq(self, meta: Any, c: list[Any]) -> s.SequenceExpr:
        return s.SequenceExpr(_span(meta), ())

    def paren(self, meta: Any, c: list[Any]) -> s.Expr:
        return c[0]

    def seq(self, meta: Any, c: list[Any]) -> s.SequenceExpr:
        return s.SequenceExpr(_span(meta), tuple(c))


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
        if isinstance(err.orig_exc, _ReservedName):
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
