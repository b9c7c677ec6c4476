"""The crash fuzzers' shared path: a text (or bytes) through everything a user can ask of it, where
only typed errors may come out. `exercise` submits it to a Session, runs each of its first actions
under a small step budget, and checks and explores them within small bounds; any exception that is
not an ir.SysmlError (engines.errors.RunError included) is a crash."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ir.source import decode_source
from opensysml_kernel.checking import CheckSettings
from opensysml_kernel.session import Session

CRASHES = Path(__file__).with_name("crashes")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
STEPS = 300  # a run's step budget while fuzzing: enough for every corpus model, little for a loop
BOUNDS = CheckSettings("all", (), None, None, 60, 200, 2.0)


@contextmanager
def small_step_budget() -> Iterator[None]:
    saved = os.environ.get("OPENSYSML_MAX_ACTION_STEPS")
    os.environ["OPENSYSML_MAX_ACTION_STEPS"] = str(STEPS)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["OPENSYSML_MAX_ACTION_STEPS"]
        else:
            os.environ["OPENSYSML_MAX_ACTION_STEPS"] = saved


def exercise(data: bytes | str, actions: int = 2, check: bool = True) -> str:
    """What the path did with the input ("refused", "ran", ...); raises only what is not a typed error."""
    from ir.errors import SysmlError

    with small_step_budget():
        try:
            text = decode_source(data, "fuzz.sysml") if isinstance(data, bytes) else data
            session = Session()
            session.submit(text, "fuzz.sysml")
        except SysmlError:
            return "refused"
        names = session.model.behaviors()[:actions]
        for name in names:
            try:
                session.start_action(name)
                session.continue_run()
            except SysmlError:
                pass
            if check:
                session.settings = BOUNDS
                with suppress(SysmlError):
                    session.check(name)
        return "ran" if names else "no action"


# ---------------------------------------------------------------- mutations

TOKEN = re.compile(r"'[^'\n]*'|\"(?:[^\"\\\n]|\\.)*\"|[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|::|:>>|:>|\.\.|\*\*|[^\s\w]")
VOCABULARY = ("action", "def", "first", "then", "fork", "join", "merge", "decide", "if", "else", "while",
              "for", "in", "loop", "until", "assign", ":=", "=", "accept", "send", "via", "to", "perform",
              "state", "entry", "exit", "do", "transition", "attribute", "part", "item", "port", "calc",
              "return", "done", "start", "terminate", "new", "{", "}", "(", ")", ";", ",", "[", "]", "*",
              "..", "**", "%", "/", "0", "-1", "1000000", "1e308", "true", "null", "x", "::", ":>", "~",
              "'quoted name'", '"text"', "/*", "*/", "//")


def mutate_tokens(text: str, rng: random.Random, count: int) -> str:
    """`count` token edits: delete, duplicate, swap with a neighbour, replace or insert a vocabulary word."""
    tokens = TOKEN.findall(text)
    for _ in range(count):
        if not tokens:
            tokens = [rng.choice(VOCABULARY)]
        i = rng.randrange(len(tokens))
        op = rng.randrange(5)
        if op == 0:
            del tokens[i]
        elif op == 1:
            tokens.insert(i, tokens[i])
        elif op == 2 and i + 1 < len(tokens):
            tokens[i], tokens[i + 1] = tokens[i + 1], tokens[i]
        elif op == 3:
            tokens[i] = rng.choice(VOCABULARY)
        else:
            tokens.insert(i, rng.choice(VOCABULARY))
    return " ".join(tokens)


def mutate_bytes(data: bytes, rng: random.Random, count: int) -> bytes:
    """`count` byte edits: flip a bit, delete, insert a byte (any, invalid UTF-8 included), duplicate a span."""
    out = bytearray(data)
    for _ in range(count):
        if not out:
            out.append(rng.randrange(256))
        i = rng.randrange(len(out))
        op = rng.randrange(4)
        if op == 0:
            out[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del out[i]
        elif op == 2:
            out.insert(i, rng.randrange(256))
        else:
            j = min(len(out), i + rng.randrange(1, 64))
            out[i:i] = out[i:j]
    return bytes(out)
