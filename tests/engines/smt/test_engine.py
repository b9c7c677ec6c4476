"""The smt engine as the faces see it: its status line, and a question answered as a framework Result."""

from __future__ import annotations

import pytest

from engines.framework import Bounds, Question, QuestionKind, Strength
from engines.smt import engine as smt_engine
from tests.engines.smt import models
from tests.engines.smt.models import program


def test_status_names_the_solver() -> None:
    status = smt_engine.ENGINE.status()
    ready, text = (status.ready, status.text) if hasattr(status, "ready") else status
    assert ready and text.startswith("ready (z3 ")


def test_without_a_solver_the_status_says_so_and_the_answer_is_not_covered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(smt_engine, "solver_version", lambda: None)
    status = smt_engine.ENGINE.status()
    ready, text = (status.ready, status.text) if hasattr(status, "ready") else status
    assert not ready and "no z3" in text
    question = Question(QuestionKind.HOLDS, "ctl::Heat", ("ctl::NotTooHot",))
    result = smt_engine.ENGINE.answer(program(models.HEATER), question, Bounds(), None)
    assert result.strength is Strength.NOT_COVERED and result.exit_status == 2


def test_a_question_answered_as_a_result() -> None:
    question = Question(QuestionKind.HOLDS, "ctl::Heat", ("ctl::NotTooHot",))
    result = smt_engine.ENGINE.answer(program(models.HEATER), question, Bounds(depth=20), None)
    assert result.engine == "smt" and result.strength is Strength.WITNESSED and result.exit_status == 1
    assert result.violations[0].kind == "property" and result.witnesses[0].inputs[0][0] == "setpoint"
    sensitive = Question(QuestionKind.SENSITIVE, "booking::Race", diverge=("seats",))
    answered = smt_engine.ENGINE.answer(program(models.BOOKING), sensitive, Bounds(depth=20), None)
    assert answered.exit_status == 1 and answered.divergent[0][0] == "seats"
