"""The framework's seam: a Question put to an engine by name, or to the one `auto` picks; engines as
values in a registry by import path; the one verdict policy over claims."""

from __future__ import annotations

import pytest

import engines.check
import engines.explore
import ir
from engines.errors import EngineError
from engines.framework import (
    READY,
    Bounds,
    Claims,
    Hooks,
    Question,
    QuestionKind,
    Result,
    Stats,
    Status,
    Strength,
    Verdict,
    ask,
    engine,
    engines,
    judge,
    names,
    register,
    unregister,
)
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
    assert [e.name for e in engines()] == ["explore", "check", "smt"]
    assert engine("check").answers == (QuestionKind.HOLDS, QuestionKind.SENSITIVE)
    assert engine("smt").answers == (QuestionKind.HOLDS, QuestionKind.SENSITIVE, QuestionKind.OUTCOMES)
    assert engine("explore").status() == READY and engine("auto") is engine("check")
    with pytest.raises(EngineError, match="unknown engine 'nothing'"):
        engine("nothing")


class Echo:
    """An engine of the test's own: answers holds by saying what it was asked."""

    name = "echo"
    answers = (QuestionKind.HOLDS,)
    strength = Strength.PROVED
    reads = frozenset({"properties"})

    def __init__(self) -> None:
        self.asked: list[tuple[Question, Bounds]] = []

    def status(self) -> Status:
        return Status(True, "ready (echo 1)")

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result:
        self.asked.append((question, bounds))
        return Result(self.name, question.subject, Verdict.EXHAUSTIVE, Strength.PROVED, Stats())


ECHO = Echo()


@pytest.mark.corpus
def test_adding_an_engine_is_one_registry_line(race: Program) -> None:
    register("echo", "tests.engines.test_framework:ECHO")
    try:
        assert names()[-1] == "echo" and engine("echo").status().text == "ready (echo 1)"
        question = Question(QuestionKind.HOLDS, "test::ForkPlain", ("P",), inputs=("x",), assumptions=("A",))
        answer = ask(race, question, "echo", Bounds(unroll=3, solver_timeout=2.0))
        assert answer.engine == "echo" and ECHO.asked[-1] == (question, Bounds(unroll=3, solver_timeout=2.0))
    finally:
        unregister("echo")
    assert "echo" not in names()


@pytest.mark.corpus
def test_an_engine_that_does_not_import_is_a_status_not_an_import_error(race: Program) -> None:
    register("ghost", "engines.no_such_module:ENGINE")
    try:
        status = engine("ghost").status()
        assert not status.ready and status.text.startswith("not available (engines.no_such_module does not import")
        with pytest.raises(EngineError, match="the ghost engine is not available"):
            ask(race, Question(QuestionKind.HOLDS, "test::ForkPlain"), "ghost")
    finally:
        unregister("ghost")


@pytest.mark.corpus
def test_check_and_explore_refuse_free_inputs(race: Program) -> None:
    for name in ("check", "explore"):
        with pytest.raises(EngineError, match="read by smt"):
            ask(race, Question(QuestionKind.OUTCOMES, "test::ForkPlain", inputs=("c",)), name)


def test_bounds_change_only_what_is_given() -> None:
    bounds = Bounds().with_(depth=5, unroll=None, solver_timeout=1.5)
    assert (bounds.depth, bounds.unroll, bounds.solver_timeout, bounds.states) == (5, None, 1.5, Bounds().states)


@pytest.mark.parametrize(("claims", "expected"), [
    (Claims(QuestionKind.OUTCOMES), (Verdict.COMPLETE, Strength.WITNESSED)),
    (Claims(QuestionKind.OUTCOMES, stopped=True), (Verdict.INCOMPLETE, Strength.OBSERVED)),
    (Claims(QuestionKind.HOLDS, violations=1, unreplayed=1), (Verdict.VIOLATION, Strength.WITNESSED)),
    (Claims(QuestionKind.SENSITIVE, divergent=2, bounds_hit=True), (Verdict.DIVERGENT, Strength.WITNESSED)),
    (Claims(QuestionKind.HOLDS), (Verdict.EXHAUSTIVE, Strength.BOUNDED)),
    (Claims(QuestionKind.HOLDS, bounds_hit=True), (Verdict.WITHIN_BOUNDS, Strength.OBSERVED)),
    (Claims(QuestionKind.HOLDS, stopped=True, bounds_hit=True), (Verdict.INCOMPLETE, Strength.OBSERVED)),
    (Claims(QuestionKind.HOLDS, unreplayed=1), (Verdict.EXHAUSTIVE, Strength.NOT_COVERED)),
    # a solver's answers
    (Claims(QuestionKind.HOLDS, proof=True), (Verdict.PROVED, Strength.PROVED)),
    (Claims(QuestionKind.HOLDS, bounds_hit=True, proof=True), (Verdict.WITHIN_MOVES, Strength.BOUNDED)),
    (Claims(QuestionKind.HOLDS, proof=True, induction=True), (Verdict.PROVED_UNBOUNDED, Strength.PROVED)),
    (Claims(QuestionKind.HOLDS, violations=1, proof=True), (Verdict.VIOLATED, Strength.WITNESSED)),
    (Claims(QuestionKind.SENSITIVE, divergent=1, proof=True), (Verdict.SENSITIVE, Strength.WITNESSED)),
    (Claims(QuestionKind.SENSITIVE, proof=True), (Verdict.NOT_SENSITIVE, Strength.PROVED)),
    (Claims(QuestionKind.SENSITIVE, proof=True, bounds_hit=True, induction=True),
     (Verdict.NOT_SENSITIVE_UNBOUNDED, Strength.PROVED)),
    (Claims(QuestionKind.SENSITIVE, proof=True, bounds_hit=True), (Verdict.SENSITIVITY_WITHIN, Strength.BOUNDED)),
    # unknown is not unsat, a refusal is not a proof, a witness that does not replay covers nothing
    (Claims(QuestionKind.HOLDS, proof=True, refused=True), (Verdict.NOT_COVERED, Strength.NOT_COVERED)),
    (Claims(QuestionKind.HOLDS, proof=True, stopped=True), (Verdict.NOT_COVERED, Strength.NOT_COVERED)),
    (Claims(QuestionKind.HOLDS, proof=True, unreplayed=1), (Verdict.NOT_COVERED, Strength.NOT_COVERED)),
])
def test_one_verdict_policy_for_every_engine(claims: Claims, expected: tuple[Verdict, Strength]) -> None:
    assert judge(claims) == expected
