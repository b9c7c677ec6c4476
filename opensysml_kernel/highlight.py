"""A Pygments lexer for SysML v2 text, registered as `sysml` (entry point `pygments.lexers`).

Its keywords are the words of the tool's own grammar (ir/grammar.lark), read when this module is
imported, so a keyword the parser learns is highlighted without a second list to keep in step. The
`ir` package is located, not imported: highlighting must not pay for the parser.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

from pygments.lexer import RegexLexer, bygroups, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

# Words that read as values or as operators rather than as structure; every other word of the
# grammar is a keyword. Only those the grammar has are used.
CONSTANTS = frozenset({"true", "false", "null"})
OPERATOR_WORDS = frozenset({"and", "or", "xor", "not", "implies", "istype", "hastype", "as", "meta", "all"})
NAMESPACE_WORDS = frozenset({"package", "import", "alias", "private", "public", "protected"})


def _grammar_text() -> str:
    spec = importlib.util.find_spec("ir")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        path = Path(location) / "grammar.lark"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return ""


def grammar_keywords(grammar: str) -> frozenset[str]:
    """Every quoted lower-case word of the grammar: its terminals (`PART: "part"`) and inline words."""
    code = "\n".join(line.split("//", 1)[0] for line in grammar.splitlines())
    return frozenset(re.findall(r'"([a-z]+)"', code))


KEYWORDS = grammar_keywords(_grammar_text())
LEXER_NAME = "sysml"

_NAME = r"(?:[A-Za-z_][A-Za-z0-9_]*|'[^'\n]*')"


def _words(chosen: frozenset[str]) -> str:
    return str(words(sorted(chosen), prefix=r"\b", suffix=r"\b").get())


class SysmlLexer(RegexLexer):
    """SysML v2 textual notation: definitions, usages, actions, state machines, expressions."""

    name = "SysML v2"
    aliases = [LEXER_NAME, "sysml2", "sysmlv2"]  # noqa: RUF012 (Pygments reads these class attributes)
    filenames = ["*.sysml"]  # noqa: RUF012
    mimetypes = ["text/x-sysml"]  # noqa: RUF012
    url = "https://www.omg.org/spec/SysML/2.0"

    tokens = {  # noqa: RUF012
        "root": [
            (r"\s+", Whitespace),
            (r"//\*[^*]*\*+(?:[^/*][^*]*\*+)*/", Comment.Multiline),
            (r"//[^\n]*", Comment.Single),
            (r"/\*[^*]*\*+(?:[^/*][^*]*\*+)*/", Comment.Multiline),
            (r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"', String.Double),
            # `action def Name`, `part def <'1'> Name`: the defined name
            (r"(\bdef\b)(\s+)((?:<[^>\n]*>\s*)?)(" + _NAME + ")",
             bygroups(Keyword.Declaration, Whitespace, Name.Label, Name.Class)),
            (_words(CONSTANTS & KEYWORDS), Keyword.Constant),
            (_words(OPERATOR_WORDS & KEYWORDS), Operator.Word),
            (_words(NAMESPACE_WORDS & KEYWORDS), Keyword.Namespace),
            (_words(KEYWORDS - CONSTANTS - OPERATOR_WORDS - NAMESPACE_WORDS), Keyword),
            (r"[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+", Number.Float),
            (r"[0-9]+", Number.Integer),
            (r"'[^'\n]*'", Name),
            (r"[#@][A-Za-z_][A-Za-z0-9_:]*", Name.Decorator),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r"::>|:>>|:>|::\*\*|::\*|::|:=|->|\.\.|===|!==|==|!=|<=|>=|\*\*|[-+*/%^<>=~&|!?@#]", Operator),
            (r"[{}()\[\];,.:]", Punctuation),
        ],
    }
