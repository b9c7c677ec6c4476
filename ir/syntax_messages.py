"""Syntax errors in the modeler's words: what was expected, after what, instead of lark's terminal names."""

from __future__ import annotations

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

# How each terminal reads in a message. Keywords read as themselves (`'then'`).
_PUNCTUATION = {
    "SEMICOLON": "';'", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('", "RPAR": "')'",
    "LSQB": "'['", "RSQB": "']'", "COLON": "':'", "COMMA": "','", "DOT": "'.'", "EQUAL": "'='",
    "QMARK": "'?'", "AT": "'@'", "__ANON_0": "':='", "LT": "'<'", "GT": "'>'", "LE": "'<='",
    "GE": "'>='", "STAR": "'*'", "NAME": "a name", "INT": "a number", "REAL": "a number",
    "STRING": "a string", "EQ_OP": "'=='", "ADD_OP": "'+' or '-'", "MUL_OP": "'*' or '/'",
    "POW_OP": "'**'", "AMP": "'&'", "BAR": "'|'", "WILD": "'::*'", "RWILD": "'::**'",
    "$END": "the end of the text",
}


def terminal_text(name: str) -> str:
    """A terminal as a modeler would write it."""
    if name in _PUNCTUATION:
        return _PUNCTUATION[name]
    if name.isupper() and name.isalpha():
        return f"'{name.lower()}'"
    return name.lower()


def _previous_words(text: str, line: int, column: int, count: int = 2) -> str:
    """The last words before the error position, to say 'after ...'."""
    lines = text.splitlines()
    before = "\n".join(lines[: line - 1] + ([lines[line - 1][: column - 1]] if 0 < line <= len(lines) else []))
    words = before.replace("{", " { ").replace("}", " } ").replace(";", " ; ").split()
    tail = words[-count:] if words else []
    if tail and tail[-1] in (";", "{", "}"):
        return ""
    return " ".join(tail)


def describe_unexpected(err: UnexpectedInput, text: str, expected: set[str]) -> str:
    """One sentence: `expected ';' or '{' after 'action a'`, or what character is out of place."""
    if isinstance(err, UnexpectedCharacters):
        char = text[err.pos_in_stream] if 0 <= err.pos_in_stream < len(text) else "?"
        return f"unexpected character {char!r}"
    wanted = sorted({terminal_text(t) for t in expected})
    priority = ["';'", "'{'", "'}'", "'then'", "a name"]
    wanted.sort(key=lambda w: (priority.index(w) if w in priority else len(priority), w))
    if len(wanted) > 4:
        wanted = wanted[:4]
        listed = ", ".join(wanted) + " or more"
    elif len(wanted) > 1:
        listed = ", ".join(wanted[:-1]) + " or " + wanted[-1]
    else:
        listed = wanted[0] if wanted else "something else"
    found = ""
    if isinstance(err, UnexpectedToken) and isinstance(err.token, Token) and err.token.type != "$END":
        found = f", found '{err.token}'"
    elif isinstance(err, UnexpectedEOF) or (isinstance(err, UnexpectedToken) and err.token.type == "$END"):
        found = ", found the end of the text"
    line = getattr(err, "line", 0) or 0
    column = getattr(err, "column", 0) or 0
    after = _previous_words(text, line, column) if line else ""
    return f"expected {listed}" + (f" after '{after}'" if after else "") + found
