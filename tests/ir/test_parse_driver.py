"""The fast parse driver (ir/parse/driver.py) against lark's usual path (its parse tree, then the
transformer's walk): equal syntax trees, every span included (spans take no part in the syntax
classes' equality, so they are compared here field by field), for every model the project has, the
shape-keeping mutants of them, and the generated benchmark models; and every text the usual path
refuses, the driver refuses too, leaving the error to the usual path."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import pytest

from benchmarks.parse import attributes, big_text, model
from ir.errors import SysmlError
from ir.parse import _driver, parse, parse_usual
from tests.ir.test_nesting import SHAPES, _deepest
from tests.property.mutants import mutate_structure

ROOT = Path(__file__).resolve().parents[2]


def difference(a: object, b: object, where: str = "document") -> str | None:
    """Where two syntax values differ (type, field, span or element), or None when they are equal."""
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} vs {type(b).__name__}"
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            found = difference(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
            if found:
                return found
        return None
    if isinstance(a, tuple | list):
        assert isinstance(b, tuple | list)
        if len(a) != len(b):
            return f"{where}: {len(a)} vs {len(b)} elements"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = difference(x, y, f"{where}[{i}]")
            if found:
                return found
        return None
    return None if a == b else f"{where}: {a!r} vs {b!r}"


def fast(text: str) -> object:
    driver = _driver()
    assert driver is not None, "the driver does not mirror this lark or this grammar"
    return driver.parse(text)


def both_agree(text: str) -> bool:
    """Whether the usual path accepted the text; asserts the driver gave the same tree, or refused too."""
    try:
        usual = parse_usual(text, "m.sysml")
    except SysmlError:
        with pytest.raises(Exception):  # noqa: B017 (the driver's refusal is any exception)
            fast(text)
        return False
    assert difference(usual.members, fast(text)) is None
    return True


def _models() -> list[Path]:
    from tests.property.test_robustness import _seeds

    return [*_seeds(), *sorted((ROOT / "tests").rglob("*.sysml"))]


@pytest.mark.corpus
def test_every_model_parses_to_the_same_tree_both_ways() -> None:
    models = _models()
    assert len(models) > 150
    for path in models:
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            usual = parse_usual(text, str(path))
        except SysmlError:
            continue
        assert difference(usual.members, fast(text)) is None, path


@pytest.mark.corpus
def test_shape_keeping_mutants_parse_to_the_same_tree_both_ways() -> None:
    seeds = [p.read_text(encoding="utf-8", errors="replace") for p in _models()]
    rng = random.Random(2)
    accepted = sum(both_agree(mutate_structure(rng.choice(seeds), rng, 2)[0]) for _ in range(60))
    assert accepted > 20


def test_generated_models_parse_to_the_same_tree_both_ways() -> None:
    for text in (model(30), attributes(300), big_text("comment", 20_000), big_text("string", 20_000)):
        assert both_agree(text)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_nesting_limit_falls_where_it_did(shape: str) -> None:
    """The driver counts nesting as the usual path does: what one refuses for depth, so does the other."""
    deepest, text = _deepest(SHAPES[shape])
    assert both_agree(text)
    assert not both_agree(SHAPES[shape](deepest + 1))


@pytest.mark.parametrize("text", [
    "package P { action a { first start; then done } }",  # a syntax error
    "package P { attribute connect = 1; }",  # a reserved word as a name
    "package P { attribute x = 1; } }",  # a stray brace at the end
    "package P { attribute s = \"open; }",  # a string never closed
    "",
    "   \n// only a note\n/* and a comment */\n",
])
def test_what_the_driver_refuses_the_usual_path_says(text: str) -> None:
    accepted = both_agree(text)
    if accepted:
        assert parse(text).members == parse_usual(text).members
    else:
        with pytest.raises(SysmlError) as fast_error:
            parse(text, "m.sysml")
        with pytest.raises(SysmlError) as usual_error:
            parse_usual(text, "m.sysml")
        assert str(fast_error.value) == str(usual_error.value)
