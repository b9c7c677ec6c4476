"""Result objects: frozen, text/plain always, text/html with marks coloured and text escaped."""

from __future__ import annotations

import dataclasses

import pytest

from opensysml_kernel.results import Result, Table, Tone


def test_bundle_has_plain_and_html() -> None:
    result = Result.of(["✓ Action a::B completed", "  x = <unset>"], Tone.COMPLETED)
    bundle = result._repr_mimebundle_()
    assert bundle["text/plain"] == "✓ Action a::B completed\n  x = <unset>"
    assert "<b class='opensysml-mark-ok'>✓ Action a::B completed</b>" in bundle["text/html"]
    assert "&lt;unset&gt;" in bundle["text/html"]
    assert str(result) == result.text


def test_results_are_frozen() -> None:
    result = Result.of(["x"])
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.lines = ()  # type: ignore[misc]


def test_table_pads_columns_and_renders_html() -> None:
    table = Table(("kind", "name"), (("package", "p"), ("action", "p::a")))
    assert table.lines() == ["kind     name", "package  p", "action   p::a"]
    result = Result.of(["head"], table=table)
    assert result.text == "head\nkind     name\npackage  p\naction   p::a"
    assert "<th>kind</th>" in result.html()
