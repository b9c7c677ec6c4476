"""The SysML v2 Pygments lexer: tokens of a model, no error token over the corpus, and where it is used
(the entry point, the kernel's language_info, the REPL, nbconvert)."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Comment, Error, Keyword, Name, Number, Operator, String, _TokenType

from opensysml_kernel.highlight import KEYWORDS, LEXER_NAME, SysmlLexer, grammar_keywords
from tests.corpus_cases import CONFORMANCE, CORPUS, HAVE_CORPUS, MORE, NO_CORPUS

ROOT = Path(__file__).resolve().parents[2]

BOOKING = """\
package booking {
    // two clerks race for the last seat
    attribute def Seat;
    action def Book {
        in attribute seats : ScalarValues::Integer = 1;
        out attribute sold : ScalarValues::Boolean = false;
        fork f;
        then clerkA;
        then clerkB;
        action clerkA { assign sold := seats > 0 and not sold; }
        action clerkB { assign seats := seats - 1; }
        join j;
        first clerkA then j;
        first clerkB then j;
        then done;
    }
    /* the check asks: never sold twice */
    constraint def Once { doc /* one sale */ seats >= 0 }
    part def Desk :> Seat { attribute rate = 2.5e1; }
}
"""


def _tokens(text: str) -> list[tuple[_TokenType, str]]:
    return [(kind, value) for kind, value in SysmlLexer().get_tokens(text) if value.strip()]


def _kind_of(tokens: list[tuple[_TokenType, str]], value: str) -> _TokenType:
    return next(kind for kind, v in tokens if v == value)


def test_keywords_come_from_the_grammar() -> None:
    grammar = (ROOT / "ir" / "grammar.lark").read_text(encoding="utf-8")
    assert grammar_keywords(grammar) == KEYWORDS
    assert {"action", "def", "fork", "join", "then", "assign", "transition", "accept"} <= KEYWORDS
    # words in comments and terminals' patterns are not keywords
    assert grammar_keywords('// "notakeyword"\nNAME: /[a-z]+/\nX: "part"') == {"part"}


def test_tokens_of_a_model() -> None:
    tokens = _tokens(BOOKING)
    assert (Keyword.Namespace, "package") in tokens
    assert (Keyword.Declaration, "def") in tokens
    assert (Name.Class, "Book") in tokens
    assert (Name.Class, "Desk") in tokens
    for word in ("action", "attribute", "fork", "then", "join", "first", "done", "assign", "in", "out"):
        assert _kind_of(tokens, word) is Keyword, word
    assert _kind_of(tokens, "false") is Keyword.Constant
    assert _kind_of(tokens, "and") is Operator.Word
    assert _kind_of(tokens, "not") is Operator.Word
    assert _kind_of(tokens, ":=") is Operator
    assert _kind_of(tokens, ":>") is Operator
    assert _kind_of(tokens, "::") is Operator
    assert _kind_of(tokens, "1") is Number.Integer
    assert _kind_of(tokens, "2.5e1") is Number.Float
    assert _kind_of(tokens, "// two clerks race for the last seat") is Comment.Single
    assert _kind_of(tokens, "/* the check asks: never sold twice */") is Comment.Multiline
    assert (Name, "clerkA") in tokens and (Name, "seats") in tokens
    assert not any(kind is Error for kind, _ in tokens)


def test_quoted_names_strings_and_metadata() -> None:
    tokens = _tokens("part 'the door' : Door { #safety attribute note = \"a \\\"quoted\\\" word\"; }")
    assert (Name, "'the door'") in tokens
    assert (Name.Decorator, "#safety") in tokens
    assert (String.Double, '"a \\"quoted\\" word"') in tokens


def test_a_keyword_inside_a_name_is_a_name() -> None:
    tokens = _tokens("attribute started; attribute doneness; action performer;")
    assert (Name, "started") in tokens and (Name, "performer") in tokens and (Name, "doneness") in tokens


def test_registered_by_entry_point() -> None:
    assert isinstance(get_lexer_by_name(LEXER_NAME), SysmlLexer)
    assert isinstance(get_lexer_for_filename("door.sysml"), SysmlLexer)


def _corpus_files() -> Iterator[Path]:
    for folder in (CONFORMANCE, MORE, CORPUS / "oracle"):
        yield from sorted(folder.rglob("*.sysml"))


def test_shipped_examples_lex_without_errors() -> None:
    files = sorted((ROOT / "examples").glob("*.sysml"))
    assert files
    for path in files:
        bad = [v for kind, v in SysmlLexer().get_tokens(path.read_text(encoding="utf-8")) if kind is Error]
        assert not bad, f"{path.name}: {bad[:5]}"


@pytest.mark.corpus
def test_every_corpus_file_lexes_without_errors() -> None:
    if not HAVE_CORPUS:
        pytest.skip(NO_CORPUS)
    files = list(_corpus_files())
    assert len(files) > 100
    failures = {}
    for path in files:
        bad = [v for kind, v in SysmlLexer().get_tokens(path.read_text(encoding="utf-8")) if kind is Error]
        if bad:
            failures[path.name] = bad[:5]
    assert not failures


def test_the_repl_highlights_with_it() -> None:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.lexers import PygmentsLexer
    from prompt_toolkit.output import DummyOutput

    from opensysml_kernel.repl import Repl

    with create_pipe_input() as pipe:
        prompt = Repl().prompt_session(input=pipe, output=DummyOutput())
    assert isinstance(prompt.lexer, PygmentsLexer)
    assert prompt.lexer.pygments_lexer_cls is SysmlLexer


def test_the_kernel_names_it_in_language_info(tmp_path: Path) -> None:
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    from opensysml_kernel.install import KERNEL_NAME, kernel_json

    (tmp_path / KERNEL_NAME).mkdir()
    (tmp_path / KERNEL_NAME / "kernel.json").write_text(json.dumps(kernel_json()), encoding="utf-8")
    manager = KernelManager(kernel_name=KERNEL_NAME,
                            kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(tmp_path)]))
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    manager.start_kernel(env={**os.environ, "PYTHONPATH": path})
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        reply = client.kernel_info(reply=True, timeout=60)
        info = reply["content"]["language_info"]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    assert info["pygments_lexer"] == LEXER_NAME
    assert info["codemirror_mode"] == "text/x-scala"
    assert info["mimetype"] in SysmlLexer.mimetypes


def test_nbconvert_exports_highlighted_cells() -> None:
    nbformat = pytest.importorskip("nbformat", reason="nbconvert is not installed (the lab extra brings it)")
    nbconvert = pytest.importorskip("nbconvert", reason="nbconvert is not installed (the lab extra brings it)")
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["language_info"] = {"name": "sysml", "pygments_lexer": LEXER_NAME}
    notebook.cells.append(nbformat.v4.new_code_cell("action def Book { then done; }"))
    body, _ = nbconvert.HTMLExporter().from_notebook_node(notebook)
    # Pygments' short classes: `kd` a declaration keyword, `nc` a defined name, `k` a keyword
    assert '<span class="kd">def</span>' in body
    assert '<span class="nc">Book</span>' in body
    assert '<span class="k">done</span>' in body

