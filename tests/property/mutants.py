"""Grammar-aware mutations: edits that keep a model's shape, so that a good share of mutants still
submits and runs (byte and token edits test almost only the syntax-error path).

The seed is parsed; its declarations and statements (every syntax Member and Block, with their
spans) are the units. An edit deletes a unit, duplicates one (a named one renamed so the copy does not
clash), swaps two siblings, renames an identifier everywhere or in one place, or perturbs a literal
(an integer, a real, a boolean). `python -m tests.property.mutants [--cases N]` prints the share of
mutants that submit, per kind of edit.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ir import syntax as s
from ir.errors import SysmlError
from ir.parse import parse
from ir.reserved import SYSML_RESERVED


@dataclass(frozen=True)
class Unit:
    """A member's text range [start, end) and the id of the tuple of siblings it belongs to."""

    start: int
    end: int
    group: int
    name: str | None


def _offsets(text: str) -> list[int]:
    starts = [0]
    starts.extend(i + 1 for i, ch in enumerate(text) if ch == "\n")
    return starts


def _children(node: object) -> Iterator[tuple[int, object]]:
    """(group id, child) for each Member or Block held in one of the node's fields."""
    if not dataclasses.is_dataclass(node):
        return
    for f in dataclasses.fields(node):
        value = getattr(node, f.name)
        if isinstance(value, tuple) and value and all(isinstance(v, s.Member) for v in value):
            for v in value:
                yield id(value), v
        elif isinstance(value, (s.Member, s.Block)):
            yield id(node) * 31 + hash(f.name), value


def units(text: str) -> list[Unit]:
    """Every declaration and statement of a text that parses, with its span as offsets."""
    try:
        document = parse(text, "seed.sysml")
    except SysmlError:
        return []
    starts = _offsets(text)
    found: list[Unit] = []
    todo: list[tuple[int, object]] = [(id(document.members), m) for m in document.members]
    while todo:
        group, node = todo.pop()
        span = getattr(node, "span", s.NO_SPAN)
        if span != s.NO_SPAN and span.end_line <= len(starts):
            start = starts[span.line - 1] + span.column - 1
            end = starts[span.end_line - 1] + span.end_column
            if 0 <= start < end <= len(text):
                found.append(Unit(start, end, group, getattr(node, "name", None)))
        todo.extend(_children(node))
    found.sort(key=lambda u: (u.start, -u.end))
    return found


IDENTIFIER = re.compile(r"(?<![\w'])[A-Za-z_][A-Za-z0-9_]*(?![\w'])")
NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w.])")
BOOLEAN = re.compile(r"\b(?:true|false)\b")
KEYWORDS = SYSML_RESERVED | {"done", "start"}
EDITS = ("delete", "duplicate", "swap", "rename", "rename-one", "literal")


def _rename_copy(chunk: str, name: str | None, suffix: str) -> str:
    if not name or name.startswith("'"):
        return chunk
    return re.sub(rf"(?<![\w']){re.escape(name)}(?![\w'])", name + suffix, chunk, count=1)


def _literal(text: str, rng: random.Random) -> str:
    spots = [(m.start(), m.end(), m.group()) for m in NUMBER.finditer(text)]
    spots += [(m.start(), m.end(), m.group()) for m in BOOLEAN.finditer(text)]
    if not spots:
        return text
    start, end, old = rng.choice(spots)
    if old in ("true", "false"):
        new = "false" if old == "true" else "true"
    elif "." in old or "e" in old.lower():
        new = rng.choice(["0.0", "0.5", "-1.5", "1e10", str(float(old) * 2)])
    elif len(old) > 4000:  # (past what Python converts between digits and int: crashes/huge_literal.sysml)
        new = rng.choice(["0", "1", old[:-1], old + "0"])
    else:
        n = int(old)
        new = str(rng.choice([0, 1, n + 1, max(n - 1, 0), n * 10, 2 ** 40, 100_000]))
    return text[:start] + new + text[end:]


def _identifiers(text: str) -> list[re.Match[str]]:
    return [m for m in IDENTIFIER.finditer(text) if m.group() not in KEYWORDS]


def mutate_structure(text: str, rng: random.Random, count: int) -> tuple[str, list[str]]:
    """`count` grammar-aware edits of `text`, and the names of the edits made."""
    done: list[str] = []
    for n in range(count):
        edit = rng.choice(EDITS)
        found = units(text) if edit in ("delete", "duplicate", "swap") else []
        if edit == "delete" and found:
            u = rng.choice(found)
            text = text[:u.start] + text[u.end:]
        elif edit == "duplicate" and found:
            u = rng.choice(found)
            copy = _rename_copy(text[u.start:u.end], u.name, f"_{n}")
            text = text[:u.end] + " " + copy + text[u.end:]
        elif edit == "swap" and found:
            u = rng.choice(found)
            siblings = [v for v in found if v.group == u.group and (v.end <= u.start or v.start >= u.end)]
            if not siblings:
                continue
            v = rng.choice(siblings)
            a, b = (u, v) if u.start < v.start else (v, u)
            text = (text[:a.start] + text[b.start:b.end] + text[a.end:b.start] + text[a.start:a.end]
                    + text[b.end:])
        elif edit in ("rename", "rename-one"):
            names = _identifiers(text)
            if not names:
                continue
            m = rng.choice(names)
            new = f"{m.group()}_r{n}"
            if edit == "rename-one":
                text = text[:m.start()] + new + text[m.end():]
            else:
                text = re.sub(rf"(?<![\w']){re.escape(m.group())}(?![\w'])", new, text)
        elif edit == "literal":
            text = _literal(text, rng)
        else:
            continue
        done.append(edit)
    return text, done


def main() -> None:
    from tests.property.robustness import exercise
    from tests.property.test_robustness import _seeds

    options = argparse.ArgumentParser(description="the share of grammar-aware mutants that submit")
    options.add_argument("--cases", type=int, default=300)
    options.add_argument("--seed", type=int, default=0)
    args = options.parse_args()
    rng = random.Random(args.seed)
    seeds = [p.read_text(encoding="utf-8") for p in _seeds()]
    tally: dict[str, list[int]] = {}
    for _ in range(args.cases):
        mutant, edits = mutate_structure(rng.choice(seeds), rng, rng.randint(1, 2))
        submitted = exercise(mutant, check=False) != "refused"
        for edit in {"all", *(edits or ["none"])}:
            row = tally.setdefault(edit, [0, 0])
            row[0] += submitted
            row[1] += 1
    for edit, (ok, cases) in sorted(tally.items()):
        print(f"{edit:11} {ok:5} of {cases:<5} submit ({ok / cases:.0%})")


if __name__ == "__main__":
    main()
