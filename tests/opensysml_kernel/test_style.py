"""The notebook's look: one stylesheet on JupyterLab's theme variables, verdict badges, the code font
only for values and names, and a table of 200 outcomes folded after its first rows with a count."""

from __future__ import annotations

import re

from engines.framework import Outcome, QuestionKind, Stats, Strength, Verdict
from engines.framework import Result as EngineResult
from opensysml_kernel.reports import Check, CheckReport
from opensysml_kernel.results import Result, Table, Tone
from opensysml_kernel.style import CSS, ROWS_SHOWN


def test_every_colour_follows_the_theme() -> None:
    # a colour is only ever a --jp-* variable's fallback: var(--jp-x, #hex) or var(--jp-x, rgba(...))
    for colour in re.findall(r"#[0-9a-fA-F]{3,6}\b|rgba?\([^)]*\)", CSS):
        assert re.search(r"var\(--jp-[\w-]+,\s*" + re.escape(colour), CSS), colour
    for variable in ("--jp-error-color1", "--jp-success-color1", "--jp-warn-color1", "--jp-border-color1",
                     "--jp-code-font-family", "--jp-ui-font-family", "--jp-layout-color2"):
        assert variable in CSS
    page = Result.of(["✗ Action a::B failed"], Tone.FAILED).html()
    assert page.startswith("<div class='opensysml-result opensysml-failed'><style>")
    assert "style='color" not in page and "#cf222e'" not in page


def _outcomes(count: int) -> EngineResult:
    outcomes = tuple(Outcome((("total", str(n)),), 1 + n % 3, 0) for n in range(count))
    return EngineResult("explore", "shop::Tills", Verdict.COMPLETE, Strength.WITNESSED, Stats(0, 9 * count, 9, count),
                        outcomes=outcomes, kind=QuestionKind.OUTCOMES)


def test_two_hundred_outcomes_fold_after_the_first_rows_with_a_count() -> None:
    page = CheckReport.build([Check(_outcomes(200))]).html()
    assert "<span class='opensysml-badge opensysml-mark-ok'>✓ complete</span>" in page
    shown, rest = page.split("<details class='opensysml-more'>", 1)
    assert shown.count("<tr><td><code>total = ") == ROWS_SHOWN
    assert f"<summary class='opensysml-quiet'>{200 - ROWS_SHOWN} more rows (of 200)</summary>" in rest
    assert rest.count("<tr><td><code>total = ") == 200 - ROWS_SHOWN
    # the counts are plain numbers, the values in the code font
    assert "<td><code>total = 0</code></td><td>1</td>" in shown
    assert "<details class='opensysml-more'>" not in CheckReport.build([Check(_outcomes(ROWS_SHOWN))]).html()


def test_code_font_only_for_the_columns_that_hold_names() -> None:
    table = Table(("kind", "name", "where"), (("action", "shop::Till", "shop.sysml:3"),), mono=(1, 2))
    assert "<td>action</td><td><code>shop::Till</code></td><td><code>shop.sysml:3</code></td>" in table.html()
