"""The faces ask the engines through one seam, engines.framework.ask, with a Question: what each
engine is asked, with which bounds and callbacks, and that nothing calls an engine around it."""

from __future__ import annotations

from typing import Any

import pytest

import engines.check
import engines.check.search
import engines.explore
import engines.smt.answer
import engines.smt.engine
import opensysml_kernel.checking as checking
from engines.framework import (
    READY,
    Bounds,
    Hooks,
    Question,
    QuestionKind,
    Result,
    Stats,
    Status,
    Strength,
    Verdict,
    register,
)
from engines.runtime import Program
from opensysml_kernel.checking import CheckSettings, Interrupt, ProgressMeter, run_engine
from opensysml_kernel.commands import execute
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session

Asked = tuple[Question, str, Bounds | None, Hooks | None]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[Asked]:
    """Every question the faces put to an engine (each still answered)."""
    calls: list[Asked] = []
    original = checking.ask

    def spy(program: Any, question: Question, engine_name: str = "auto", bounds: Bounds | None = None,
            hooks: Hooks | None = None) -> Any:
        calls.append((question, engine_name, bounds, hooks))
        return original(program, question, engine_name, bounds, hooks)

    monkeypatch.setattr(checking, "ask", spy)
    return calls


def test_each_engine_is_asked_a_question(race: Session, asked: list[Asked]) -> None:
    execute(race, "%engine all")
    execute(race, "%check-diverge c")
    execute(race, "%check-bounds depth=50")
    execute(race, "%action Race")
    (check, to_check, check_bounds, check_hooks), (explore, to_explore, explore_bounds, explore_hooks), \
        (smt, to_smt, smt_bounds, smt_hooks) = asked
    assert (to_check, to_explore, to_smt) == ("check", "explore", "smt")
    assert check == smt == Question(QuestionKind.SENSITIVE, "race::Race", diverge=("c",))
    assert explore == Question(QuestionKind.OUTCOMES, "race::Race", diverge=("c",))
    assert check_bounds == explore_bounds == smt_bounds == CheckSettings(depth=50).bounds()
    for hooks in (check_hooks, explore_hooks, smt_hooks):
        assert hooks is not None and isinstance(hooks.progress, ProgressMeter)
        assert hooks.interrupted is not None and hooks.runs is not None


def test_properties_are_asked_of_check_only(tank: Session, asked: list[Asked]) -> None:
    """Under %engine all, explore answers the outcomes: it is not asked the properties it refuses."""
    execute(tank, "%engine all")
    execute(tank, "%check-property NeverNegative")
    report = execute(tank, "%action Fill")
    assert isinstance(report, CheckReport)
    assert [c.result.engine for c in report.checks] == ["check", "explore", "smt"]
    check, explore, smt = asked[0][0], asked[1][0], asked[2][0]
    assert check.kind is smt.kind is QuestionKind.HOLDS
    assert check.properties == smt.properties == ("NeverNegative",)
    assert explore.kind is QuestionKind.OUTCOMES and explore.properties == ()


class Stub:
    """An engine of the test's own, answering every question as the registry's check or explore would
    be asked it: what the face shows is what the registry's engine said."""

    def __init__(self, name: str, answers: tuple[QuestionKind, ...]) -> None:
        self.name, self.answers, self.strength = name, answers, Strength.BOUNDED
        self.reads = frozenset({"diverge", "properties"})

    def status(self) -> Status:
        return READY

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result:
        return Result(self.name, question.subject, Verdict.EXHAUSTIVE, Strength.BOUNDED, Stats(7, 6, 5),
                      notes=(f"stub {self.name} asked {question.kind.value}",))


STUB_CHECK = Stub("check", (QuestionKind.HOLDS, QuestionKind.SENSITIVE))
STUB_EXPLORE = Stub("explore", (QuestionKind.OUTCOMES,))
STUB_SMT = Stub("smt", (QuestionKind.HOLDS, QuestionKind.SENSITIVE, QuestionKind.OUTCOMES))


def test_no_engine_is_called_around_the_registry(race: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines' functions as their modules name them are not what the faces call: the registry's are."""

    def around(*args: object, **kwargs: object) -> None:
        raise AssertionError("an engine was called around the registry")

    monkeypatch.setattr(engines.check, "check", around)
    monkeypatch.setattr(engines.check.search, "check", around)
    monkeypatch.setattr(engines.explore, "explore", around)
    monkeypatch.setattr(engines.smt.answer, "solve", around)
    monkeypatch.setattr(engines.smt.engine, "solve", around)
    register("check", "tests.opensysml_kernel.test_engine_seam:STUB_CHECK")
    register("explore", "tests.opensysml_kernel.test_engine_seam:STUB_EXPLORE")
    register("smt", "tests.opensysml_kernel.test_engine_seam:STUB_SMT")
    try:
        execute(race, "%engine all")
        report = execute(race, "%action Race")
    finally:
        register("check", "engines.check.search:ENGINE")
        register("explore", "engines.explore:ENGINE")
        register("smt", "engines.smt.engine:ENGINE")
    assert isinstance(report, CheckReport)
    assert [c.result.notes for c in report.checks] == [("stub check asked sensitive",),
                                                       ("stub explore asked outcomes",),
                                                       ("stub smt asked sensitive",)]


@pytest.mark.parametrize("engine", ["check", "explore"])
def test_the_interrupt_reaches_the_engine_through_the_seam(race: Session, engine: str) -> None:
    flag = Interrupt()
    flag.set = True
    result = run_engine(engine, race.program(), "race::Race", CheckSettings(), None, flag,
                        ProgressMeter("race::Race", None))
    assert result.incomplete is not None and result.incomplete.startswith("interrupted")


def test_the_progress_meter_hears_the_check(race: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """The meter handed to ask reaches the search, which calls it once a second has passed."""
    heard: list[tuple[int, int, int]] = []
    ticks = iter(range(0, 10_000, 2))

    class Clock:
        @staticmethod
        def monotonic() -> float:
            return float(next(ticks))

    class Meter(ProgressMeter):
        def __call__(self, states: int, moves: int, depth: int) -> None:
            heard.append((states, moves, depth))

    monkeypatch.setattr(engines.check.search, "time", Clock)
    run_engine("check", race.program(), "race::Race", CheckSettings(), None, Interrupt(), Meter("race::Race", None))
    assert heard and heard[-1][0] > 0
