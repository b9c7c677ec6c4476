"""Syntax errors read as a modeler's sentence: where, what was expected after what, what was found."""

from __future__ import annotations

import random
import re

import pytest

from ir import SysmlSyntaxError, parse
from ir.parse import parser
from ir.syntax_messages import terminal_text
from tests.corpus_cases import CORPUS

# (text, line, column, message): the typical mistakes, each pinned to its exact sentence.
MISTAKES = [
    pytest.param(
        "package P {\n  action a\n  action b;\n}", 2, 11,
        "expected ';' or '{' after 'action a', found 'action'",
        id="missing-semicolon-after-usage"),
    pytest.param(
        "package P {\n  attribute x : Integer = 0\n}", 2, 28,
        "expected ';' or '{' after 'attribute x : Integer = 0', found '}'",
        id="missing-semicolon-before-closing-brace"),
    pytest.param(
        "action a {\n  assign x = 1;\n}", 2, 12,
        "expected ':=' after 'assign x', found '='",
        id="equals-instead-of-assign"),
    pytest.param(
        "package P {\n  action a {\n    first start;\n", 3, 17,
        "expected '}' to close the '{' on line 2, found the end of the text",
        id="unclosed-brace-at-end"),
    pytest.param(
        "action a { }\n}", 2, 1,
        "unmatched '}': no '{' is open here",
        id="stray-closing-brace"),
    pytest.param(
        "action a {\n  succession first a then;\n}", 2, 26,
        "expected a name or '[' after 'succession first a then', found ';'",
        id="succession-without-target"),
    pytest.param(
        "state s {\n  transition first idle accept Go work;\n}", 2, 35,
        "expected 'then', 'if' or 'do' after 'transition first idle accept Go', found 'work'",
        id="transition-without-then"),
    pytest.param(
        "package P {\n  acton a;\n}", 2, 3,
        "unknown keyword 'acton'; did you mean 'action'?",
        id="misspelled-keyword"),
    pytest.param(
        "calc def C {\n  retrun x;\n}", 2, 3,
        "unknown keyword 'retrun'; did you mean 'return'?",
        id="misspelled-keyword-where-an-expression-may-stand"),
    pytest.param(
        'action a {\n  assign msg := "hello;\n}', 2, 17,
        "unterminated string: no closing '\"' on this line",
        id="unterminated-string"),
    pytest.param(
        "attribute x : Integer = ;", 1, 25,
        "expected an expression after 'attribute x : Integer =', found ';'",
        id="missing-value"),
    pytest.param(
        "action a {\n  decide d;\n  if x > 1 then\n}", 3, 16,
        "expected a name after 'if x > 1 then', found '}'",
        id="decision-branch-without-target"),
    pytest.param(
        "action a {\n  decide d;\n  if x > 1 then", 3, 16,
        "expected a name after 'if x > 1 then', found the end of the text",
        id="decision-branch-cut-by-end-of-text"),
    pytest.param(
        "action a {\n  assign x := $y;\n}", 2, 15,
        "unexpected character '$' after 'assign x :='; expected an expression",
        id="unknown-character"),
    pytest.param(
        "action a { /* never closed\n}", 1, 12,
        "unterminated comment: no closing '*/'",
        id="unterminated-comment"),
    pytest.param(
        "state s { entry; then idle }", 1, 28,
        "expected ';' after 'then idle', found '}'",
        id="missing-semicolon-after-then"),
    pytest.param(
        "attribute x = (1 + 2;", 1, 21,
        "expected ')' or ',' after 'x = (1 + 2', found ';'",
        id="unclosed-parenthesis"),
    pytest.param(
        "package P { foo bar; }", 1, 13,
        "expected '}' or a declaration after 'package P {', found 'foo'",
        id="not-a-declaration"),
    pytest.param(
        'action a { assign log := log "x"; }', 1, 30,
        "expected ';' after 'assign log := log', found the string \"x\"",
        id="missing-operator-before-string"),
    pytest.param(
        "action a", 1, 9,
        "expected ';' or '{' after 'action a', found the end of the text",
        id="usage-cut-by-end-of-text"),
]


@pytest.mark.parametrize(("text", "line", "column", "message"), MISTAKES)
def test_typical_mistake(text: str, line: int, column: int, message: str) -> None:
    with pytest.raises(SysmlSyntaxError) as caught:
        parse(text, "model.sysml")
    err = caught.value
    assert (err.line, err.column, err.message) == (line, column, message)
    assert err.path == "model.sysml"


def test_the_error_shows_the_line_with_a_caret() -> None:
    with pytest.raises(SysmlSyntaxError) as caught:
        parse("package P {\n  action a\n  action b;\n}", "model.sysml")
    assert str(caught.value) == (
        "model.sysml:2:11: syntax error: expected ';' or '{' after 'action a', found 'action'\n"
        "    action a\n"
        "            ^"
    )


def test_the_caret_follows_tabs() -> None:
    with pytest.raises(SysmlSyntaxError) as caught:
        parse("package P {\n\taction a\n\taction b;\n}")
    assert caught.value.context == "      action a\n              ^"


def test_the_error_is_a_python_syntax_error_without_a_lark_cause() -> None:
    with pytest.raises(SysmlSyntaxError) as caught:
        parse("action a { assign x = 1; }", "m.sysml")
    err = caught.value
    assert isinstance(err, SyntaxError)
    assert (err.filename, err.lineno, err.offset) == ("m.sysml", 1, 21)
    assert err.__cause__ is None and err.__suppress_context__


def test_expected_lists_what_would_fit_in_words() -> None:
    with pytest.raises(SysmlSyntaxError) as caught:
        parse("action a { assign x = 1; }")
    assert caught.value.expected == ("':='",)


@pytest.mark.parametrize("text", [m.values[0] for m in MISTAKES])
def test_no_lark_vocabulary_reaches_the_modeler(text: str) -> None:
    with pytest.raises(SysmlSyntaxError) as caught:
        parse(text)
    said = " ".join((caught.value.message, *caught.value.expected))
    assert "__" not in said
    assert not re.search(r"\b[A-Z]{2,}(_[A-Z]+)*\b", said), said


def test_every_terminal_reads_as_text_a_modeler_types() -> None:
    lark = parser()
    ignored = set(lark.lexer_conf.ignore)
    for terminal in lark.terminals:
        if terminal.name in ignored:
            continue
        text = terminal_text(lark, terminal.name)
        assert text.startswith("'") or text.startswith(("a ", "an ")), (terminal.name, text)
        assert "__" not in text and terminal.name not in text


@pytest.mark.corpus
def test_mangled_corpus_models_fail_only_as_syntax_errors() -> None:
    """Corpus models with a token dropped, repeated or cut off: a SysmlSyntaxError or a tree, never a crash."""
    models = sorted(CORPUS.rglob("*.sysml"))
    words = re.compile(r'\s+|//[^\n]*|"[^"\n]*"|[A-Za-z_0-9.]+|::|:=|:>>|:>|==|!=|<=|>=|\S')
    rng = random.Random(20261201)
    failures = 0
    for _ in range(400):
        pieces = words.findall(rng.choice(models).read_text(encoding="utf-8"))
        at = rng.choice([i for i, p in enumerate(pieces) if p.strip() and not p.startswith("//")])
        roll = rng.random()
        if roll < 0.4:
            pieces[at] = ""
        elif roll < 0.7:
            pieces[at] = rng.choice(pieces)
        elif roll < 0.85:
            pieces.insert(at, rng.choice([";", "{", "}", "=", ":=", "then", "if", "(", "$", '"', "/*"]))
        else:
            del pieces[at:]
        try:
            parse("".join(pieces), "mangled.sysml")
        except SysmlSyntaxError as err:
            failures += 1
            assert err.message and err.line >= 1 and err.column >= 1
    assert failures > 200
