"""Features of parts under the smt engine (tests/engines/smt/models.py PARTS, answers derived in its
comments): the outcome sets are explore's, a part is reported once a move touches it, and a property
over a part's feature is proved."""

from __future__ import annotations

import pytest

from engines.smt.answer import solve
from tests.engines.smt import models
from tests.engines.smt.agree import SECONDS, explore_outcomes, smt_outcomes
from tests.engines.smt.models import program


@pytest.mark.parametrize("name", ["Drain", "Fill"])
def test_outcomes_are_explores(name: str) -> None:
    prog = program(models.PARTS)
    subject = f"plant::{name}"
    assert smt_outcomes(prog, subject) == explore_outcomes(prog, subject)


def test_a_lost_update_on_a_part_and_the_part_never_touched() -> None:
    endings = [dict(v) for v, _ in smt_outcomes(program(models.PARTS), "plant::Drain")]
    assert {e["tank.level"] for e in endings} == {"0", "1"}
    assert all(e["tank.open"] == "true" for e in endings)
    assert not any(k.startswith("spare.") for e in endings for k in e)


def test_the_actions_own_part_is_reported_from_the_start() -> None:
    ((values, error),) = smt_outcomes(program(models.PARTS), "plant::Fill")
    assert error is None and dict(values) == {"t.level": "5", "t.open": "false"}


def test_a_property_over_a_parts_feature_is_proved() -> None:
    answer = solve(program(models.PARTS), "plant::Drain", "holds", properties=("plant::NotNegative",),
                   diverge=(), solver_seconds=SECONDS)
    assert answer.verdict == "proved"
    # the action's own features compared too (as check does): seen reads the lost update, 0 or 1
    beside = solve(program(models.PARTS), "plant::Drain", "holds", properties=("plant::NotNegative",),
                   solver_seconds=SECONDS)
    assert beside.verdict == "sensitive" and "the properties: proved" in beside.notes
    assert [(f, sorted(v for v, _ in values)) for f, values in beside.divergent] == [("seen", ["0", "1"])]
