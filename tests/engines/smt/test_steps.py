"""Steps of multiplicity and `terminate;` under the smt engine (tests/engines/smt/models.py MULTIPLE and
TERMINATE, answers derived in their comments): the outcome sets are explore's, each witness replays,
and k-induction's structural invariant counts a step's performances."""

from __future__ import annotations

import re

import pytest

import ir
from engines.runtime import Program
from engines.smt.answer import solve
from tests.engines.check.models import DEPENDENCE
from tests.engines.smt import models
from tests.engines.smt.agree import SECONDS, explore_outcomes, smt_outcomes
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


def test_k_induction_proves_a_property_of_a_step_on_a_loop() -> None:
    answer = solve(program(models.MULTIPLE), "multi::Rounds", "holds", properties=("multi::Small",), depth=6,
                   induction=True, solver_seconds=SECONDS)
    assert answer.verdict.startswith("proved, unbounded"), answer.verdict


def test_terminate_ends_the_nodes_performance_and_it_goes_on() -> None:
    prog = program(models.TERMINATE)
    endings = smt_outcomes(prog, "t::Guarded")
    assert endings == explore_outcomes(prog, "t::Guarded")
    assert sorted((dict(v)["level"], dict(v)["log"]) for v, e in endings if e is None) == [("5", "10"), ("5", "11")]


def test_a_terminate_action_usage_ends_the_action_wherever_the_rest_stands() -> None:
    prog = program(models.TERMINATE)
    endings = smt_outcomes(prog, "t::Emergency")
    assert endings == explore_outcomes(prog, "t::Emergency")
    assert sorted((dict(v)["pumped"], dict(v)["alarm"]) for v, e in endings if e is None) == [
        (p, a) for p in ("0", "1", "2") for a in ("false", "true")]
    assert all(e is None for _, e in endings)


@pytest.mark.parametrize(("file", "subject"), [("dep_rejoin_second_arrival", "dep::rejoinReadings"),
                                               ("dep_join_second_arrival", "dep::forwardReadings")])
def test_a_join_takes_one_token_over_each_succession(file: str, subject: str) -> None:
    """Two readings over one succession into a recorder, and into a join with one calibration: each
    performance or firing takes one token over each succession, the second waiting for the next, so the
    recorder records twice and the join's second reading waits forever, in every order (the oracle's
    action_join_same_succession_twice): smt's outcomes are explore's."""
    path = DEPENDENCE / f"{file}.sysml"
    prog = Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), path.stem)]))
    endings = smt_outcomes(prog, subject)

    def unnumbered(outcomes: list[tuple[object, str | None]]) -> set[tuple[object, str | None]]:
        # one deadlocked state is one outcome of smt's, one per token left waiting of explore's
        return {(values, re.sub(r"token \d+", "token", error) if error else error) for values, error in outcomes}
    assert unnumbered(endings) == unnumbered(explore_outcomes(prog, subject))  # type: ignore[arg-type]
    if file == "dep_rejoin_second_arrival":
        assert endings == [((("calibrating", "false"), ("entries", "2")), None)]
    else:
        assert endings and all(error is not None and "deadlock" in error for _, error in endings)
