"""Steps of multiplicity under the smt engine (tests/engines/smt/models.py MULTIPLE, answers derived in
its comments): the outcome sets are explore's and each witness replays."""

from __future__ import annotations

import pytest

from tests.engines.smt import models
from tests.engines.smt.agree import explore_outcomes, smt_outcomes
from tests.engines.smt.models import program

EXPECTED = {
    "Doubling": [{"x": "4"}, {"x": "5"}, {"x": "6"}],
    "Skipped": [{"m": "1", "n": "0"}],
    "Twice": [{"c": "4", "i": "2"}],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_performances_of_a_step(name: str) -> None:
    prog = program(models.MULTIPLE)
    subject = f"multi::{name}"
    endings = smt_outcomes(prog, subject)
    assert endings == explore_outcomes(prog, subject)
    assert sorted((dict(v) for v, e in endings if e is None), key=repr) == EXPECTED[name]
