"""The faces ask the engines through one seam, engines.framework.ask, with a Question: what each
engine is asked, with which bounds and callbacks, and that nothing calls an engine around it."""

from __future__ import annotations

from typing import Any

import pytest

import engines.check
import engines.check.search
import engines.explore
import opensysml_kernel.checking as checking
from engines.framework import Bounds, Question, QuestionKind
from opensysml_kernel.checking import CheckSettings, Interrupt, ProgressMeter, run_engine
from opensysml_kernel.commands import execute
from opensysml_kernel.reports import CheckReport
from opensysml_kernel.session import Session

Asked = tuple[Question, str, Bounds | None, dict[str, Any]]


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[Asked]:
    """Every question the faces put to an engine (each still answered)."""
    calls: list[Asked] = []
    original = checking.ask

    def spy(program: object, question: Question, engine_name: str = "auto", bounds: Bounds | None = None,
            **options: Any) -> Any:
        calls.append((question, engine_name, bounds, options))
        return original(program, question, engine_name, bounds, **options)

    monkeypatch.setattr(checking, "ask", spy)
    return calls


def test_each_engine_is_asked_a_question(race: Session, asked: list[Asked]) -> None:
    execute(race, "%engine all")
    execute(race, "%check-diverge c")
    execute(race, "%check-bounds depth=50")
    execute(race, "%action Race")
    (check, to_check, check_bounds, check_options), (explore, to_explore, explore_bounds, explore_options) = asked
    assert (to_check, to_explore) == ("check", "explore")
    assert check == Question(QuestionKind.SENSITIVE, "race::Race", diverge=("c",))
    assert explore == Question(QuestionKind.OUTCOMES, "race::Race", diverge=("c",))
    assert check_bounds == explore_bounds == CheckSettings(depth=50).bounds()
    assert sorted(check_options) == ["interrupted", "progress"]
    assert isinstance(check_options["progress"], ProgressMeter)
    assert sorted(explore_options) == ["features", "interrupted"]
    assert explore_options["features"]({"c": "1", "other": "2"}) == {"c": "1"}


def test_properties_are_asked_of_check_only(tank: Session, asked: list[Asked]) -> None:
    """Under %engine all, explore answers the outcomes: it is not asked the properties it refuses."""
    execute(tank, "%engine all")
    execute(tank, "%check-property NeverNegative")
    report = execute(tank, "%action Fill")
    assert isinstance(report, CheckReport)
    assert [c.result.engine for c in report.checks] == ["check", "explore"]
    check, explore = asked[0][0], asked[1][0]
    assert check.kind is QuestionKind.HOLDS and check.properties == ("NeverNegative",)
    assert explore.kind is QuestionKind.OUTCOMES and explore.properties == ()


def test_no_engine_is_called_around_the_seam(race: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """The engines' functions as their modules name them are not what the faces call: the registry's are."""

    def around(*args: object, **kwargs: object) -> None:
        raise AssertionError("an engine was called around engines.framework.ask")

    monkeypatch.setattr(engines.check, "check", around)
    monkeypatch.setattr(engines.check.search, "check", around)
    monkeypatch.setattr(engines.explore, "explore", around)
    execute(race, "%engine all")
    report = execute(race, "%action Race")
    assert isinstance(report, CheckReport) and len(report.checks) == 2


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
