"""The transformer's declarations: names, packages, imports, definitions, usages, docs and constraints."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from ir import syntax as s
from ir.parse.common import (
    Decl,
    ReservedName,
    Tail,
    bound_of,
    comment_text,
    is_token,
    members_of,
    result_of,
    span,
    usage_node,
)
from ir.reserved import reserved_as_name


@v_args(meta=True)
class Declarations(Transformer[Token, Any]):
    """Rules that declare elements: each returns a syntax Member or a piece of one."""

    # ---------------------------------------------------------------- names

    def name(self, meta: Any, c: list[Token]) -> str:
        text = str(c[0])
        if text.startswith("'"):
            return text[1:-1]
        if reserved_as_name(text):
            raise ReservedName(c[0])
        return text

    def qname(self, meta: Any, c: list[str]) -> str:
        return "::".join(c)

    def name_path(self, meta: Any, c: list[str]) -> str:
        return ".".join(c)

    # ---------------------------------------------------------------- document

    def document(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return members_of(c)

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
        return s.Package(span(meta), rest[0], members_of(rest[1:]), short)

    def import_(self, meta: Any, c: list[Any]) -> s.Import:
        target, wild = c[1]
        return s.Import(span(meta), target, wild in ("::*", "::**"), wild == "::**")

    def import_target(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return c[0], (str(c[1]) if len(c) > 1 else "")

    def alias_member(self, meta: Any, c: list[Any]) -> s.Usage:
        return s.Usage(span(meta), "alias", c[1], types=(c[3],))

    # ---------------------------------------------------------------- definitions

    def def_kind(self, meta: Any, c: list[Token]) -> str:
        return str(c[0])

    calc_kind = def_kind
    enum_kind = def_kind

    def use_case(self, meta: Any, c: list[Token]) -> str:
        return "use case"

    def def_body(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return members_of(c)

    calc_body = def_body

    def enum_body(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        # `done;` parses as an action's done node wherever members may stand; in an enumeration it is a
        # literal named done (no keyword of SysML's, as `start` is none)
        return tuple(s.Usage(m.span, "enum", m.name) if isinstance(m, s.ControlNode) and m.kind == "done" else m
                     for m in members_of(c))

    def enum_literal(self, meta: Any, c: list[Token]) -> s.Usage:
        return s.Usage(span(meta), "enum", self.name(meta, c))

    def specialization(self, meta: Any, c: list[Any]) -> list[str]:
        return [x for x in c if isinstance(x, str) and not isinstance(x, Token)]

    def definition(self, meta: Any, c: list[Any]) -> s.Definition:
        abstract = is_token(c[0], "ABSTRACT")
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
            elif is_token(item, "PARALLEL"):
                parallel = True
            elif isinstance(item, tuple):
                members = item
        members, result = result_of(members)
        return s.Definition(span(meta), kind, name, short_name, tuple(specializes), members,
                            parallel, abstract, result)

    def short_name(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("short", c[1])

    # ---------------------------------------------------------------- usages

    def usage_kind(self, meta: Any, c: list[Any]) -> str:
        return str(c[0]) if isinstance(c[0], Token) else c[0]

    def direction(self, meta: Any, c: list[Token]) -> tuple[str, str]:
        return ("direction", str(c[0]))

    def usage_prefix(self, meta: Any, c: list[Any]) -> tuple[str | None, str, bool, bool]:
        direction = None
        kind = "feature"
        for x in c:
            if isinstance(x, tuple) and x[0] == "direction":
                direction = x[1]
            elif isinstance(x, str) and not isinstance(x, Token):
                kind = x
        return direction, kind, any(is_token(x, "CONSTANT") for x in c), \
            kind == "ref" or any(is_token(x, "REF") for x in c)

    def usage_decl(self, meta: Any, c: list[Any]) -> Decl:
        d = Decl()
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
            elif is_token(x, "PARALLEL"):
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
        lower, lower_ref = bound_of(c[0])
        if is_token(c[1], "STAR"):
            return s.Multiplicity(lower, None, f"{c[0]}..*", lower_ref)
        upper, upper_ref = bound_of(c[1])
        return s.Multiplicity(lower, upper, f"{c[0]}..{c[1]}", lower_ref, upper_ref)

    def mult_exact(self, meta: Any, c: list[Any]) -> s.Multiplicity:
        bound, ref = bound_of(c[0])
        return s.Multiplicity(bound, bound, str(c[0]), ref, ref)

    def mult_star(self, meta: Any, c: list[Token]) -> s.Multiplicity:
        return s.Multiplicity(0, None, "*")

    def bound_value(self, meta: Any, c: list[Any]) -> tuple[str, s.FeatureValueKind, s.Expr]:
        return ("value", s.FeatureValueKind.BOUND, c[-1])

    def initial_value(self, meta: Any, c: list[Any]) -> tuple[str, s.FeatureValueKind, s.Expr]:
        return ("value", s.FeatureValueKind.INITIAL, c[-1])

    def default_value(self, meta: Any, c: list[Any]) -> tuple[str, s.FeatureValueKind, s.Expr]:
        return ("value", s.FeatureValueKind.DEFAULT, c[-1])

    def tail_none(self, meta: Any, c: list[Any]) -> Tail:
        return Tail(False, ())

    def tail_body(self, meta: Any, c: list[Any]) -> Tail:
        return Tail(True, members_of(c))

    def usage(self, meta: Any, c: list[Any]) -> s.Usage:
        (direction, kind, constant, reference), decl, tail = c[0], c[1], c[2]
        statement = None
        if isinstance(tail, tuple):  # an action written as one statement
            statement, tail = tail
        return usage_node(meta, kind, direction, decl, tail, action_body=statement, constant=constant,
                          reference=reference)

    def return_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return usage_node(meta, "return", "out", c[1], c[2])

    def subject_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return usage_node(meta, "subject", "in", c[1], c[2])

    def bare_feature(self, meta: Any, c: list[Any]) -> s.Usage:
        return usage_node(meta, "feature", c[0][1], c[1], c[2])

    def bare_redefinition(self, meta: Any, c: list[Any]) -> s.Usage:
        return usage_node(meta, "feature", None, c[0], c[1])

    def enum_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return usage_node(meta, "enum", None, c[1], c[2])

    def stmt_assign_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, Tail]:
        return c[0], c[1]

    def stmt_accept_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, Tail]:
        return s.Accept(span(meta), c[0]), c[1]

    def stmt_send_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, Tail]:
        return c[0], c[1]

    def stmt_terminate_body(self, meta: Any, c: list[Any]) -> tuple[s.Statement, Tail]:
        target = c[1] if len(c) > 2 else None
        return s.Terminate(span(meta), target), c[-1]

    def perform_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        kinds = [x for x in c[1:-2] if isinstance(x, str) and not isinstance(x, Token)]
        decl, tail = c[-2], c[-1]
        if not kinds and decl.name and not decl.types:
            # `perform Halve;` performs the named action: the name is its type
            decl.types, decl.name = [decl.name], None
        return usage_node(meta, kinds[0] if kinds else "action", None, decl, tail, performed=True)

    def perform_named(self, meta: Any, c: list[Any]) -> s.Usage:
        path, tail = c[1], c[2]
        if "." in path:
            # `perform target.later.start;` performs the feature a chain reaches: it refers to it
            return usage_node(meta, "action", None, Decl(references=[path]), tail, performed=True)
        # `perform Halve;` performs the named action: the name is its type
        return usage_node(meta, "action", None, Decl(types=[path]), tail, performed=True)

    def exhibit_usage(self, meta: Any, c: list[Any]) -> s.Usage:
        return usage_node(meta, "state", None, c[-2], c[-1], exhibited=True)

    def metadata(self, meta: Any, c: list[Any]) -> s.Metadata:
        return s.Metadata(span(meta), c[0], members_of(c[1:]))

    def meta_value(self, meta: Any, c: list[Any]) -> s.Usage:
        return s.Usage(span(meta), "attribute", c[0], value=c[1], value_kind=s.FeatureValueKind.BOUND)

    def doc(self, meta: Any, c: list[Token]) -> s.Doc:
        return s.Doc(span(meta), comment_text(str(c[1])) if len(c) > 1 else "")

    def constraint_member(self, meta: Any, c: list[Any]) -> s.ConstraintMember:
        kind = str(c[0])
        name = next((x for x in c[1:] if isinstance(x, str) and not isinstance(x, Token)), None)
        members, result = result_of(members_of(c))
        return s.ConstraintMember(span(meta), kind, name, result, members)

    def expression_member(self, meta: Any, c: list[Any]) -> s.ConstraintMember:
        return s.ConstraintMember(span(meta), "expression", None, c[0])
