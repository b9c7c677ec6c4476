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


# `level : Integer[0..1]` holds no value until the valve writes it: `level >= 1` read at the start has
# an operand with none. The check engine refuses such a property (it cannot be evaluated), so the
# solver must not call it false; once the requirement reads a feature with a value, it is judged.
_OPTIONAL = """package tank {
    private import ScalarValues::*;
    requirement Filled { level >= 1 }
    requirement Counted { fills >= 1 }
    requirement Bounded { (level ?? 0) <= 1 }
    requirement Empty { (level ?? 5) == 5 }
    action def Fill {
        attribute level : Integer[0..1];
        attribute fills : Integer := 0;
        first start;
        then action valve { assign level := 1; assign fills := fills + 1; }
        then done;
    }
}
"""


def test_a_property_with_an_operand_with_no_value_is_refused_not_violated() -> None:
    unset = smt_engine.ENGINE.answer(program(_OPTIONAL), Question(QuestionKind.HOLDS, "tank::Fill", ("tank::Filled",)),
                                     Bounds(depth=10), None)
    assert unset.strength is Strength.NOT_COVERED and unset.exit_status == 2 and not unset.violations
    assert "tank::Filled cannot be evaluated at a state reached after 0 moves" in (unset.reason or "")
    judged = smt_engine.ENGINE.answer(program(_OPTIONAL), Question(QuestionKind.HOLDS, "tank::Fill", ("tank::Counted",)),
                                      Bounds(depth=10), None)
    assert judged.exit_status == 1 and judged.violations[0].moves == 0


def test_null_coalescing_reads_the_default_where_the_feature_has_no_value() -> None:
    """`level ?? 0` is evaluable where `level` has no value (the start): Bounded holds on every
    schedule; `level ?? 5 == 5` holds at the start and fails once the valve sets level to 1."""
    bounded = smt_engine.ENGINE.answer(program(_OPTIONAL), Question(QuestionKind.HOLDS, "tank::Fill", ("tank::Bounded",)),
                                       Bounds(depth=10), None)
    assert bounded.exit_status == 0, bounded.reason
    empty = smt_engine.ENGINE.answer(program(_OPTIONAL), Question(QuestionKind.HOLDS, "tank::Fill", ("tank::Empty",)),
                                     Bounds(depth=10), None)
    assert empty.exit_status == 1 and empty.violations[0].moves >= 1

