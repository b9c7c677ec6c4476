"""The parser: every corpus model parses, and each construct beyond the corpus yields the tree it means."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest
from lark import Lark

from ir import SysmlSyntaxError, parse
from ir import syntax as s
from ir.parse import GRAMMAR, parser
from tests.corpus_cases import CORPUS

MODELS = sorted(CORPUS.rglob("*.sysml"))
NO = s.NO_SPAN


def members(text: str) -> tuple[s.Member, ...]:
    return parse(text).members


def value(expression: str) -> s.Expr:
    """The expression bound to an attribute."""
    (usage,) = members(f"attribute a = {expression};")
    assert isinstance(usage, s.Usage) and usage.value is not None
    return usage.value


def show(e: s.Expr) -> str:
    """An expression fully parenthesized, so a test reads its grouping at a glance."""
    if isinstance(e, s.Binary):
        return f"({show(e.left)} {e.op} {show(e.right)})"
    if isinstance(e, s.Unary):
        return f"({e.op} {show(e.operand)})"
    if isinstance(e, s.Index) and e.positional:
        return f"{show(e.base)}#({show(e.index)})"
    if isinstance(e, s.Index):
        return f"{show(e.base)} [{show(e.index)}]"
    if isinstance(e, s.Lambda):
        return "{" + "".join(f"{p}; " for p in e.params) + show(e.body) + "}"
    if isinstance(e, s.Call):
        arrow = "->" if e.arrow else ""
        return f"{arrow}{show(e.callee)}({', '.join(show(a) for a in e.args)})"
    if isinstance(e, s.Chain):
        return f"{show(e.base)}.{e.feature}"
    if isinstance(e, s.Name):
        return e.name
    if isinstance(e, s.Literal):
        return e.text
    raise AssertionError(f"no rendering for {e!r}")


def name(n: str) -> s.Name:
    return s.Name(NO, n)


def integer(text: str) -> s.Literal:
    return s.Literal(NO, "integer", text)


# ---------------------------------------------------------------- the corpus


@pytest.mark.corpus
def test_the_corpus_is_found() -> None:
    assert len(MODELS) >= 150


@pytest.mark.corpus
@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_every_corpus_model_parses(model: Path) -> None:
    document = parse(model.read_text(encoding="utf-8"), str(model))
    assert document.members
    assert all(m.span.line >= 1 for m in document.members)


# ---------------------------------------------------------------- requirements and constraints


def test_requirement_def_with_subject_doc_and_constraints() -> None:
    text = ("requirement def R { subject v : Vehicle; doc /* text */ "
            "require constraint { v.mass <= 1500 [kg] } assume constraint { v.speed > 0 } }")
    mass = s.Chain(NO, name("v"), "mass")
    speed = s.Chain(NO, name("v"), "speed")
    assert members(text) == (
        s.Definition(NO, "requirement", "R", None, (), (
            s.Usage(NO, "subject", "v", direction="in", types=("Vehicle",)),
            s.Doc(NO, "text"),
            s.ConstraintMember(NO, "require", None, s.Binary(NO, "<=", mass, s.Index(NO, integer("1500"), name("kg")))),
            s.ConstraintMember(NO, "assume", None, s.Binary(NO, ">", speed, integer("0"))),
        )),
    )


def test_requirement_usage() -> None:
    assert members("requirement r : R;") == (s.Usage(NO, "requirement", "r", types=("R",)),)


def test_constraint_def_ends_with_its_result_expression() -> None:
    (c,) = members("constraint def C { in x : Real; x > 0 and x < 10 }")
    assert c == s.Definition(
        NO, "constraint", "C", None, (),
        (s.Usage(NO, "feature", "x", direction="in", types=("Real",)),),
        result=s.Binary(NO, "and", s.Binary(NO, ">", name("x"), integer("0")),
                        s.Binary(NO, "<", name("x"), integer("10"))),
    )


def test_constraint_usage() -> None:
    assert members("constraint c : C;") == (s.Usage(NO, "constraint", "c", types=("C",)),)


def test_calc_usage_body_result() -> None:
    (c,) = members("calc twice { in k : Real; k * 2 }")
    assert isinstance(c, s.Usage) and c.has_body
    assert c.members == (s.Usage(NO, "feature", "k", direction="in", types=("Real",)),)
    assert c.result is not None and show(c.result) == "(k * 2)"


def test_a_bare_expression_is_not_a_member_of_an_action() -> None:
    with pytest.raises(SysmlSyntaxError):
        parse("action a { x > 0 }")


# ---------------------------------------------------------------- enumerations


def test_enum_def_with_enum_keyword() -> None:
    assert members("enum def Color { enum red; enum green; }") == (
        s.Definition(NO, "enum", "Color", None, (), (s.Usage(NO, "enum", "red"), s.Usage(NO, "enum", "green"))),
    )


def test_enum_def_with_bare_literals() -> None:
    assert members("enum def Mode { off; on; }") == (
        s.Definition(NO, "enum", "Mode", None, (), (s.Usage(NO, "enum", "off"), s.Usage(NO, "enum", "on"))),
    )


# `start`, `done`, `first`, `after`, `deep` are keywords of the notation elsewhere (an action's start and done
# nodes, a succession's first, a time trigger, deep history) but no reserved words of SysML: an
# enumeration's literals may be named so (`done;` parsed as a done node, and `first;` was a syntax error)
def test_enum_literals_may_bear_the_names_of_control_words() -> None:
    names = ("start", "running", "done", "first", "after", "deep")
    assert members(f"enum def Phase {{ {' '.join(n + ';' for n in names)} }}") == (
        s.Definition(NO, "enum", "Phase", None, (), tuple(s.Usage(NO, "enum", n) for n in names)),
    )


# `:>> mass = 1750;` with no keyword before it (SysML's DefaultReferenceUsage) redefines the feature, as
# `attribute :>> mass = 1750;` does (it was a syntax error)
def test_a_redefinition_needs_no_keyword_before_it() -> None:
    (part,) = members("part q : P { :>> m = 5; redefines n; }")
    assert isinstance(part, s.Usage)
    first, second = part.members
    assert isinstance(first, s.Usage) and isinstance(second, s.Usage)
    assert (first.name, first.redefines, first.value, first.value_kind) == (
        None, ("m",), s.Literal(NO, "integer", "5"), s.FeatureValueKind.BOUND)
    assert (second.name, second.redefines, second.value) == (None, ("n",), None)


# `succession first [*] pack then [1] seal;`: the ends' multiplicities, as the oracle writes the fan-in of a
# repeated step (a syntax error before); kept as written at each end, the rest as with none written
@pytest.mark.parametrize(("text", "ends"), [("succession first [*] pack then [1] seal;", ("*", "1")),
                                            ("first [*] pack then [1] seal;", ("*", "1")),
                                            ("succession s first [1] p then [*] pack;", ("1", "*")),
                                            ("succession first p then [3] pack;", (None, "3"))])
def test_a_successions_ends_may_state_their_multiplicities(text: str, ends: tuple[str | None, str | None]) -> None:
    (action,) = members(f"action a {{ {text} }}")
    assert isinstance(action, s.Usage)
    (succession,) = action.members
    assert isinstance(succession, (s.FirstMember, s.SuccessionMember))
    assert tuple(m.text if m is not None else None for m in succession.ends) == ends
    plain = members(f"action a {{ {text.replace('[*] ', '').replace('[1] ', '').replace('[3] ', '')} }}")[0]
    assert isinstance(plain, s.Usage) and replace(succession, ends=(None, None)) == plain.members[0]


def test_bare_literals_belong_to_enum_defs_only() -> None:
    with pytest.raises(SysmlSyntaxError):
        parse("part def P { off; }")


# ---------------------------------------------------------------- expressions


@pytest.mark.parametrize(("text", "grouping"), [
    ("a implies b or c", "(a implies (b or c))"),
    ("a or b implies c", "((a or b) implies c)"),
    ("a implies b implies c", "((a implies b) implies c)"),
    ("a ?? b implies c", "(a ?? (b implies c))"),
    ("a ?? b ?? c", "((a ?? b) ?? c)"),
    ("a ?? b + 1", "(a ?? (b + 1))"),
    ("a or b xor c", "(a or (b xor c))"),
    ("a | b xor c", "(a | (b xor c))"),
    ("a xor b and c", "(a xor (b and c))"),
    ("a xor b & c", "(a xor (b & c))"),
    ("a and b or c and d", "((a and b) or (c and d))"),
    ("a & b | c", "((a & b) | c)"),
    ("not a and b", "((not a) and b)"),
    ("not a == b", "(not (a == b))"),
    ("not not a", "(not (not a))"),
    ("x > 0 and x < 10", "((x > 0) and (x < 10))"),
    ("a == b != c", "((a == b) != c)"),
    ("a < b == c", "((a < b) == c)"),
    ("a + b < c * d", "((a + b) < (c * d))"),
    ("a - b - c", "((a - b) - c)"),
    ("a * b % c", "((a * b) % c)"),
    ("a + b % c", "(a + (b % c))"),
    ("a ** b ** c", "(a ** (b ** c))"),
    ("-a ** 2", "((- a) ** 2)"),  # KerML: a unary expression is the operand of `**`
    ("-a * b", "((- a) * b)"),
    ("a ** -b ** c", "(a ** ((- b) ** c))"),
    ("xs#(i + 1)", "xs#((i + 1))"),
    ("xs->size() + 1", "(->size(xs) + 1)"),
    ("xs->select {in x; x > 1}->size()", "->size(->select(xs, {x; (x > 1)}))"),
    ("-xs#(1) ** 2", "((- xs#(1)) ** 2)"),
    ("a ** -b", "(a ** (- b))"),
    ("2 * a ** 2", "(2 * (a ** 2))"),
    ("a ^ 2", "(a ^ 2)"),
])
def test_operator_precedence(text: str, grouping: str) -> None:
    assert show(value(text)) == grouping


@pytest.mark.parametrize("op", ["==", "!=", "<", ">", "<=", ">="])
def test_every_comparison(op: str) -> None:
    assert value(f"a {op} b") == s.Binary(NO, op, name("a"), name("b"))


@pytest.mark.parametrize("op", ["and", "or", "xor", "implies", "&", "|"])
def test_every_boolean_operator(op: str) -> None:
    assert value(f"p {op} q") == s.Binary(NO, op, name("p"), name("q"))


def test_not() -> None:
    assert value("not p") == s.Unary(NO, "not", name("p"))


def test_modulo_and_power() -> None:
    assert value("7 % 3") == s.Binary(NO, "%", integer("7"), integer("3"))
    assert value("2 ** 3 ** 2") == s.Binary(
        NO, "**", integer("2"), s.Binary(NO, "**", integer("3"), integer("2")))


@pytest.mark.parametrize(("text", "tree"), [
    ("5 [s]", s.Index(NO, integer("5"), name("s"))),
    ("1.5 [m/s]", s.Index(NO, s.Literal(NO, "real", "1.5"), s.Binary(NO, "/", name("m"), name("s")))),
    ("9.81 [m/s**2]", s.Index(NO, s.Literal(NO, "real", "9.81"),
                              s.Binary(NO, "/", name("m"), s.Binary(NO, "**", name("s"), integer("2"))))),
    ("60.0 [SI::s]", s.Index(NO, s.Literal(NO, "real", "60.0"), name("SI::s"))),
])
def test_units_in_brackets(text: str, tree: s.Expr) -> None:
    assert value(text) == tree


def test_quantity_in_a_comparison() -> None:
    assert show(value("v.mass <= 1500 [kg] and t > 2 [s]")) == "((v.mass <= 1500 [kg]) and (t > 2 [s]))"


# ---------------------------------------------------------------- keywords as names


@pytest.mark.parametrize(("text", "kind", "named", "has_body", "parallel"), [
    ("state start;", "state", "start", False, False),
    ("action parallel { }", "action", "parallel", True, False),
    ("state done;", "state", "done", False, False),
    ("action after;", "action", "after", False, False),
    ("action decide { }", "action", "decide", True, False),
    ("state first;", "state", "first", False, False),
    ("state deep parallel { }", "state", "deep", True, True),
])
def test_keywords_usable_as_names(text: str, kind: str, named: str, has_body: bool, parallel: bool) -> None:
    assert members(text) == (s.Usage(NO, kind, named, has_body=has_body, parallel=parallel),)


def test_keyword_names_in_successions_and_transitions() -> None:
    (machine,) = members("state m { entry; then start; state start; state first; "
                         "transition first start then first; transition first first then done; }")
    assert isinstance(machine, s.Usage)
    transitions = [m for m in machine.members if isinstance(m, s.Transition)]
    assert [(t.source, t.target) for t in transitions] == [("start", "first"), ("first", "done")]


def test_then_action_decide() -> None:
    (a,) = members("action a { first start; then action decide { } }")
    assert isinstance(a, s.Usage)
    assert a.members[1] == s.ThenMember(NO, None, s.Usage(NO, "action", "decide", has_body=True))


def test_then_done_declares_the_done_node() -> None:
    (a,) = members("action a { first start; then done; }")
    assert isinstance(a, s.Usage)
    assert a.members[1] == s.ThenMember(NO, None, s.ControlNode(NO, "done", "done"))


# ---------------------------------------------------------------- comments and documentation


def test_doc_keeps_its_comment_text() -> None:
    (p,) = members("part def P {\n  doc\n  /*\n   * The first line.\n   * The second.\n   */\n}")
    assert isinstance(p, s.Definition)
    assert p.members == (s.Doc(NO, "The first line.\nThe second."),)


def test_doc_without_comment() -> None:
    (p,) = members("part def P { doc attribute x; }")
    assert isinstance(p, s.Definition)
    assert p.members == (s.Doc(NO, ""), s.Usage(NO, "attribute", "x"))


def test_comments_and_notes_are_skipped() -> None:
    text = "/** a comment */ //* a note\n over two lines */ part def P { /* inside */ } // end"
    assert members(text) == (s.Definition(NO, "part", "P", None, (), ()),)


# ---------------------------------------------------------------- spans and the parser itself


def test_spans_name_first_and_last_character() -> None:
    document = parse("package P {\n  action a;\n}")
    (package,) = document.members
    assert isinstance(package, s.Package)
    assert package.span == s.Span(1, 1, 3, 1)
    assert package.members[0].span == s.Span(2, 3, 2, 11)


def test_the_parser_is_built_once() -> None:
    assert parser() is parser()


def test_shift_reduce_conflicts_are_the_known_ones(caplog: pytest.LogCaptureFixture) -> None:
    """A grammar change that adds an LALR conflict must say so here (the grammar's header explains these)."""
    with caplog.at_level(logging.WARNING, logger="lark"):
        Lark(GRAMMAR.read_text(encoding="utf-8"), start="document", parser="lalr", lexer="contextual",
             debug=True)
    lines = [r.getMessage() for r in caplog.records]
    conflicts = sorted(
        f"{lines[i].split()[4].rstrip(':')} {lines[i + 1].strip()}"
        for i in range(len(lines) - 1) if lines[i].startswith("Shift/Reduce")
    )
    assert not any("Reduce/Reduce" in line for line in lines)
    assert conflicts == [
        "ELSE * <if_stmt : IF expr block>",
        "FIRST * <name : FIRST>",
        "FIRST * <name : FIRST>",
        "IF * <name : AFTER>",
        "LPAR * <name : AFTER>",
        "LSQB * <name : FIRST>",
        "SEMICOLON * <name : DECIDE>",
        "SEMICOLON * <name : DONE>",
    ]


def test_string_escapes_keep_other_text_as_written() -> None:
    assert value(r'"é\n\"q\" \\ \d"') == s.Literal(NO, "string", 'é\n"q" \\ \\d')
