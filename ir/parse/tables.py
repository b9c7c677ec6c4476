"""The fast driver's tables: lark's LALR table, rules and per-state lexers as plain data, kept in a
cache file so that a process that parses cleanly never builds lark's parser at all.

Building lark's parser (even from lark's own cache) was a third of the command line's start-up. The
tables are taken once from the built parser (every state's lexer compiled, so their exact patterns
are kept, in lark's order) and written as JSON under the user's cache folder, named by a hash of the
grammar, lark's version and this format; a file that is missing, unreadable or of another key is
rebuilt. Only a text the driver does not accept needs lark's parser (to report the error).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import lark as lark_package
from lark import Lark
from lark.lexer import ContextualLexer, UnlessCallback
from lark.parsers.lalr_analysis import Shift

FORMAT = 1  # bump when the shape of the tables or what the driver reads from them changes
Tables = dict[str, Any]


class Unmirrored(Exception):
    """lark's configuration or the grammar has a shape the driver does not mirror."""


def key(grammar: str, start: str) -> str:
    text = f"{FORMAT}\n{lark_package.__version__}\n{start}\n{grammar}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:24]


def _rule(rule: Any) -> dict[str, Any]:
    """What the driver needs of one rule to shape its node as lark's tree builder would."""
    name = rule.alias or rule.options.template_source or rule.origin.name
    keep = rule.options.keep_all_tokens
    include = [[i, not sym.is_term and sym.name.startswith("_")] for i, sym in enumerate(rule.expansion)
               if keep or not (sym.is_term and sym.filter_out)]
    expand1 = bool(rule.options.expand1 and not rule.alias)
    if name.startswith("_") and expand1:
        raise Unmirrored(f"rule {name} is both inlined and expanded")
    # A `?rule` of one kept symbol leaves its child in place, position and all (lark's container of
    # one child is the child's own): the driver only moves to the next state.
    unit = expand1 and len(rule.expansion) == 1 and include == [[0, False]]
    return {"name": name, "include": include, "expand1": expand1, "size": len(rule.expansion),
            "origin": rule.origin.name, "unit": unit,
            "filtering": len(include) < len(rule.expansion) or any(splice for _, splice in include)}


def _patterns(scanner: Any) -> list[list[Any]]:
    return [[mre.pattern, mre.flags] for mre in scanner._mres]


def _lexer(basic: Any) -> dict[str, Any]:
    scanner = basic.scanner  # compiled here once, with its keyword callbacks
    unless: dict[str, list[list[Any]]] = {}
    for kind, callback in basic.callback.items():
        if not isinstance(callback, UnlessCallback):
            raise Unmirrored(f"the lexer callback of {kind}")
        unless[kind] = _patterns(callback.scanner)
    return {"patterns": _patterns(scanner), "ignore": sorted(basic.ignore_types),
            "newlines": sorted(basic.newline_types), "unless": unless}


def _blank(parser: Lark, lexers: list[Any]) -> str | None:
    """The ignored white space terminal's pattern, when it can be skipped before asking the state's
    lexer: every lexer ignores it, and no other terminal can start with a white space character (so at
    such a character every lexer would match it, and only it). Most tokens are preceded by one."""
    spaces = [t for t in parser.terminals if t.pattern.type == "re" and t.name in parser.lexer_conf.ignore
              and re.fullmatch(t.pattern.to_regexp(), " \t\n\r\f")]
    if len(spaces) != 1 or any(spaces[0].name not in basic.ignore_types for basic in lexers):
        return None
    for t in parser.terminals:
        if t is spaces[0]:
            continue
        if t.pattern.type == "str":
            if t.pattern.value[:1].isspace():
                return None
            continue
        pattern = re.compile(t.pattern.to_regexp())
        if any(pattern.match(c + tail) for c in " \t\n\r\f" for tail in ("", "a", "0", " ", "'", '"', "/", "*")):
            return None
    return str(spaces[0].pattern.to_regexp())


def extract(parser: Lark, start: str, grammar_key: str) -> Tables:
    """The tables of a built parser (LALR with the contextual lexer, no post-lexer) as plain data."""
    frontend = parser.parser
    lexer = frontend.lexer
    if not isinstance(lexer, ContextualLexer) or parser.options.postlex is not None:
        raise Unmirrored("not a contextual lexer")
    table = frontend.parser.parser.parse_table
    rules = list(parser.rules)
    index = {rule: i for i, rule in enumerate(rules)}
    states = {str(state): {symbol: [1, arg] if action is Shift else [0, index[arg]]
                           for symbol, (action, arg) in actions.items()}
              for state, actions in table.states.items()}
    specs: list[dict[str, Any]] = []
    spec_of: dict[int, int] = {}
    by_state: dict[str, int] = {}
    basics: list[Any] = list(lexer.lexers.values())
    for state, basic in lexer.lexers.items():
        if id(basic) not in spec_of:
            spec_of[id(basic)] = len(specs)
            specs.append(_lexer(basic))
        by_state[str(state)] = spec_of[id(basic)]
    return {"key": grammar_key, "start": table.start_states[start], "end": table.end_states[start],
            "rules": [_rule(rule) for rule in rules], "states": states, "lexers": specs,
            "lexer_of": by_state, "blank": _blank(parser, basics)}


def cache_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "opensysml-kernel"


def load(grammar_key: str) -> Tables | None:
    try:
        with open(cache_folder() / f"parse-tables-{grammar_key}.json", encoding="utf-8") as handle:
            tables = json.load(handle)
    except (OSError, ValueError):
        return None
    return tables if isinstance(tables, dict) and tables.get("key") == grammar_key else None


def save(tables: Tables) -> None:
    """Written whole or not at all (a temporary file renamed into place); a folder that cannot be
    written only means the next process builds the tables again."""
    folder = cache_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".parse-tables-")
    except OSError:
        return
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(tables, out, separators=(",", ":"))
        os.replace(temporary, folder / f"parse-tables-{tables['key']}.json")
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
