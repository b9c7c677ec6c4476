"""The explore engine over the corpus: every action case listing `outcomes` reaches exactly that set."""

from __future__ import annotations

import pytest

import ir
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from tests.corpus_cases import Case, cases, entry, spelled

OUTCOME_CASES = [c for c in cases("action") if "outcomes" in c.expected]


def _normal(text: str | None) -> str | None:
    """Numbers compared by value (`2.0` and `2` are one Real), everything else as spelled."""
    from fractions import Fraction

    if text is None:
        return None
    try:
        return str(Fraction(text))
    except ValueError:
        return text


def expected_set(case: Case) -> set[tuple[tuple[str, str | None], ...] | tuple[str, str]]:
    out: set[tuple[tuple[str, str | None], ...] | tuple[str, str]] = set()
    for outcome in case.expected["outcomes"]:
        if "error" in outcome:
            out.add(("error", outcome["error"]))
        else:
            out.add(tuple(sorted((k, _normal(spelled(v))) for k, v in outcome["outputs"].items())))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("case", OUTCOME_CASES, ids=[c.name for c in OUTCOME_CASES])
def test_explore_reaches_exactly_the_admissible_outcomes(case: Case) -> None:
    model = ir.resolve([ir.parse(case.text, case.name)])
    runs = case.expected.get("exploreBudget", {}).get("runs", 1024)
    result = explore(Program(model), entry(case, model), Bounds(runs=runs))
    assert result.verdict is Verdict.COMPLETE, result.incomplete
    keys = {k for o in case.expected["outcomes"] for k in o.get("outputs", {})}
    reached: set[tuple[tuple[str, str | None], ...] | tuple[str, str]] = set()
    for outcome in result.outcomes:
        if outcome.error is not None:
            reached.add(("error", outcome.error))
        else:
            values = dict(outcome.values)
            reached.add(tuple(sorted((k, _normal(values.get(k))) for k in keys)))
    assert reached == expected_set(case)
    assert sum(o.schedules for o in result.outcomes) == result.stats.runs


@pytest.mark.corpus
def test_explore_reports_its_runs_budget() -> None:
    case = next(c for c in OUTCOME_CASES if c.name == "action_explore_body_three_way")
    model = ir.resolve([ir.parse(case.text, case.name)])
    result = explore(Program(model), entry(case, model), Bounds(runs=5))
    assert result.verdict is Verdict.INCOMPLETE
    assert result.incomplete == "runs budget 5 hit after 5 runs"
