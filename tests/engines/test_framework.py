"""The framework's seam: a Question put to an engine by name, or to the one `auto` picks."""

from __future__ import annotations

import pytest

import engines.check
import engines.explore
import ir
from engines.errors import EngineError
from engines.framework import Bounds, Question, QuestionKind, Verdict, ask, engine, engines
from engines.runtime import Program
from tests.corpus_cases import CONFORMANCE


@pytest.fixture
def race() -> Program:
    text = (CONFORMANCE / "action_explore_body_fork_lost_update.sysml").read_text(encoding="utf-8")
    return Program(ir.resolve([ir.parse(text, "race")]))


@pytest.mark.corpus
def test_auto_explores_outcomes_and_checks_the_rest(race: Program) -> None:
    outcomes = ask(race, Question(QuestionKind.OUTCOMES, "test::ForkPlain"))
    assert outcomes.engine == "explore" and outcomes.verdict is Verdict.COMPLETE
    sensitive = ask(race, Question(QuestionKind.SENSITIVE, "test::ForkPlain", diverge=("c",)))
    assert sensitive.engine == "check" and sensitive.verdict is Verdict.DIVERGENT
    assert [f for f, _ in sensitive.divergent] == ["c"]


@pytest.mark.corpus
def test_bounds_reach_the_engine(race: Program) -> None:
    result = ask(race, Question(QuestionKind.HOLDS, "test::ForkPlain"), "check", Bounds(depth=3))
    assert any(b.name == "depth" and b.reached for b in result.bounds)


@pytest.mark.corpus
def test_explore_refuses_properties(race: Program) -> None:
    with pytest.raises(EngineError, match="ask check"):
        ask(race, Question(QuestionKind.HOLDS, "test::ForkPlain", properties=("P",)), "explore")


def test_the_registry_lists_and_refuses() -> None:
    assert [name for name, _ in engines()] == ["check", "explore"]
    with pytest.raises(EngineError, match="unknown engine 'smt'"):
        engine("smt")
