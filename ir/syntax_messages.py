"""Syntax errors in the modeler's words: where, what was expected, after what, and what was found.

lark reports a failed parse as a parser state and a token; this module turns that into one short
sentence (`expected ';' or '{' after 'action a', found 'action'`) and the position where the
missing text belongs. Terminal names never reach the modeler: each terminal reads as the text a
modeler would type, taken from the grammar's own terminal definitions.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import PatternStr

# Terminals defined by a regular expression read as what they stand for.
_DESCRIBED = {
    "NAME": "a name",
    "INT": "a number",
    "REAL": "a number",
    "STRING": "a string",
    "DOC_TEXT": "a comment '/* ... */'",
    "EQ_OP": "'==' or '!='",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*', '/' or '%'",
    "POW_OP": "'**'",
    "$END": "the end of the text",
}
_END = "the end of the text"
_NAME = "a name"
_EXPRESSION = "an expression"
_DECLARATION = "a declaration"

# Closers first: when one of them is expected it is almost always the missing text.
_CLOSERS = ("';'", "'{'", "'}'")
_RANKED = (_NAME, _EXPRESSION, "'then'", "':='", "'if'", "'do'", "':'", "'='", "')'", "']'", "','",
           _DECLARATION, _END)
_SHOWN = 3
_CONTEXT_TOKENS = 6
# Where this many member keywords fit, any member does: they read as "a declaration". Fewer are
# the few statements a usage may be written as (`action a assign ...`) and read one by one.
_MEMBER_KEYWORDS_COLLAPSED = 20

_SCAN = re.compile(
    r"""(?P<skip>\s+|//\*.*?\*/|//[^\n]*|/\*.*?\*/)
      |(?P<token>"(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[A-Za-z_0-9]+(?:\.[0-9]+)?
                 |::\*\*|::\*|:>>|:>|:=|::|===|!==|==|!=|<=|>=|\*\*|\.\.|\S)""",
    re.S | re.X,
)
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class Explanation:
    """A failed parse explained: the 1-based position to point at, the sentence, what would fit."""

    line: int
    column: int
    message: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class _Scanned:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class _Vocabulary:
    """What the grammar says about its terminals, computed once per parser."""

    texts: dict[str, str]  # terminal name -> how it reads
    keywords: frozenset[str]  # keyword spellings: `action`, `then`, ...
    name_keywords: frozenset[str]  # terminals a name may also be (START, DONE, ...)
    member_starts: frozenset[str]  # terminals that begin a member at the top of a document
    member_keywords: tuple[str, ...]  # their spellings, for "did you mean"


def terminal_text(lark: Lark, name: str) -> str:
    """A terminal as a modeler would write it: `'then'`, `':='`, `a name`."""
    return _vocabulary(lark).texts.get(name, _describe(lark, name))


def _describe(lark: Lark, name: str) -> str:
    if name in _DESCRIBED:
        return _DESCRIBED[name]
    pattern = lark.get_terminal(name).pattern
    if isinstance(pattern, PatternStr):
        return f"'{pattern.value}'"
    return name.lower().replace("_", " ")  # a new regular-expression terminal needs a _DESCRIBED entry


@functools.lru_cache(maxsize=4)
def _vocabulary(lark: Lark) -> _Vocabulary:
    names = [t.name for t in lark.terminals if t.name not in lark.lexer_conf.ignore] + ["$END"]
    texts = {n: _describe(lark, n) for n in names}
    keywords = frozenset(
        t.pattern.value for t in lark.terminals
        if isinstance(t.pattern, PatternStr) and t.pattern.value.isalpha()
    )
    name_keywords = frozenset(
        r.expansion[0].name for r in lark.rules
        if r.origin.name == "name" and len(r.expansion) == 1 and r.expansion[0].name != "NAME"
    )
    member_starts = frozenset(lark.parse_interactive("").accepts()) - {"$END"}
    member_keywords = tuple(sorted(
        texts[t][1:-1] for t in member_starts if texts[t][1:-1] in keywords and t not in name_keywords
    ))
    return _Vocabulary(texts, keywords, name_keywords, member_starts, member_keywords)


def _tokens_before(text: str, end: int) -> list[_Scanned]:
    """The significant tokens of text[:end], comments and whitespace skipped."""
    tokens = []
    for m in _SCAN.finditer(text, 0, end):
        if m.lastgroup == "token":
            tokens.append(_Scanned(m.start(), m.end(), m.group()))
    return tokens


def _position(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _statement(tokens: Sequence[_Scanned]) -> list[_Scanned]:
    """The tokens of the declaration being written when the error struck; empty at its start."""
    i = len(tokens)
    while i > 0 and tokens[i - 1].text not in (";", "{", "}"):
        i -= 1
    return list(tokens[i:])


def _spelled(text: str, tokens: Sequence[_Scanned]) -> str:
    """Tokens as written, one space where the source had any gap."""
    parts: list[str] = []
    for i, tok in enumerate(tokens):
        if i and tok.start > tokens[i - 1].end:
            parts.append(" ")
        parts.append(tok.text)
    return "".join(parts)


def _listed(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return items[0] if items else "something else"
    return ", ".join(items[:-1]) + " or " + items[-1]


def _wanted(vocab: _Vocabulary, accepted: Collection[str]) -> list[str]:
    """The accepted terminals as words, best first: expression starts, names and members collapsed."""
    accepted = set(accepted)
    words: set[str] = set()
    if {"INT", "LPAR", "NAME"} <= accepted:
        words.add(_EXPRESSION)
        accepted -= {"INT", "REAL", "STRING", "NAME", "LPAR", "ADD_OP", "NOT", "TRUE", "FALSE", "NULL",
                     "SELF", "NEW", "IF", *vocab.name_keywords}
    if "NAME" in accepted:
        accepted -= vocab.name_keywords
    members = accepted & vocab.member_starts
    if len(members) >= _MEMBER_KEYWORDS_COLLAPSED:
        words.add(_DECLARATION)
        accepted -= members
    words |= {vocab.texts.get(t, t) for t in accepted}
    rank = {w: i for i, w in enumerate(_CLOSERS + _RANKED)}
    return sorted(words, key=lambda w: (rank.get(w, len(rank)), w))


def _shown(wanted: Sequence[str]) -> list[str]:
    closers = [w for w in wanted if w in _CLOSERS]
    if closers:
        return closers + ([_DECLARATION] if _DECLARATION in wanted else [])
    return list(wanted[:_SHOWN])


def _found(token: Token) -> str:
    if token.type == "$END":
        return _END
    value = str(token)
    if len(value) > 24:
        value = value[:21] + "..."
    return f"the string {value}" if token.type == "STRING" else f"'{value}'"


def explain(err: UnexpectedInput, text: str, lark: Lark) -> Explanation:
    """Explain a failed parse of `text` by `lark` in one sentence, with the position to point at."""
    vocab = _vocabulary(lark)
    parser = getattr(err, "interactive_parser", None)
    accepted: Collection[str] = parser.accepts() if parser is not None else getattr(err, "expected", ())
    wanted = _wanted(vocab, accepted)

    if isinstance(err, UnexpectedToken) and err.token.type != "$END":
        offset = err.token.start_pos or 0
    elif isinstance(err, UnexpectedCharacters):
        offset = err.pos_in_stream
    else:
        offset = len(text)
    before = _tokens_before(text, offset)
    statement = _statement(before)
    if not statement and before and before[-1].text == "{":  # first in a body: say whose
        shown = [*_statement(before[:-1]), before[-1]]
    else:
        shown = statement
    context = _spelled(text, shown[-_CONTEXT_TOKENS:])
    after = f" after '{context}'" if context else ""

    # Text missing from an unfinished declaration belongs right after its last token, not on the
    # later line where the parser noticed; the end of the text also points after the last token.
    at = offset
    if before and (offset >= len(text) or (statement and text.count("\n", before[-1].end, offset))):
        at = before[-1].end
    line, column = _position(text, at)

    def result(message: str, where: int | None = None) -> Explanation:
        if where is None:
            return Explanation(line, column, message, tuple(wanted))
        return Explanation(*_position(text, where), message, tuple(wanted))

    if text.startswith("/*", offset):  # the lexer reads an unclosed comment as '/' then '*'
        return result("unterminated comment: no closing '*/'", offset)
    if isinstance(err, UnexpectedCharacters):
        char = text[offset] if offset < len(text) else ""
        if char == '"':
            return result("unterminated string: no closing '\"' on this line", offset)
        if char == "'":
            return result("unterminated name: no closing \"'\" on this line", offset)
        expected = f"; expected {_listed(_shown(wanted))}" if wanted else ""
        return result(f"unexpected character {char!r}{after}{expected}", offset)

    assert isinstance(err, UnexpectedToken)
    token = err.token
    found = _found(token)

    if token.type == "RBRACE" and not _open_braces(before):
        return result("unmatched '}': no '{' is open here", offset)

    misspelled = _misspelled_keyword(vocab, token, statement, offset)
    if misspelled is not None:
        word, where, keyword = misspelled
        return result(f"unknown keyword '{word}'; did you mean '{keyword}'?", where)

    if token.type == "$END" and "'}'" in wanted:
        opened = _open_braces(before)
        if opened:
            brace_line = _position(text, opened[-1])[0]
            return result(f"expected '}}' to close the '{{' on line {brace_line}, found {found}")

    return result(f"expected {_listed(_shown(wanted))}{after}, found {found}")


def _open_braces(tokens: Sequence[_Scanned]) -> list[int]:
    """Offsets of the `{` still open at the end of `tokens`, outermost first."""
    stack: list[int] = []
    for tok in tokens:
        if tok.text == "{":
            stack.append(tok.start)
        elif tok.text == "}" and stack:
            stack.pop()
    return stack


def _misspelled_keyword(vocab: _Vocabulary, token: Token, statement: Sequence[_Scanned],
                        offset: int) -> tuple[str, int, str] | None:
    """A word at the start of a declaration that is close to a keyword: (word, offset, keyword)."""
    if token.type != "NAME":
        return None
    if not statement:
        word, where = str(token), offset
    elif len(statement) == 1:  # in a calc-like body the word reads as an expression until the next one
        word, where = statement[0].text, statement[0].start
    else:
        return None
    if not _IDENTIFIER.fullmatch(word) or word in vocab.keywords:
        return None
    close = difflib.get_close_matches(word, vocab.member_keywords, n=1, cutoff=0.8)
    return (word, where, close[0]) if close else None
