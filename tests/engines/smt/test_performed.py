"""Performed actions under the smt engine (tests/engines/smt/models.py PERFORMED, answers derived in its
comments): the outcome sets are explore's, each witness replays, and what the encoding cannot say it
refuses before any query."""

from __future__ import annotations

import pytest

from engines.smt.answer import solve
from engines.witness import replay_run, unreproduced
from tests.engines.smt import models
from tests.engines.smt.agree import SECONDS, explore_outcomes, smt_outcomes
from tests.engines.smt.models import program


@pytest.mark.parametrize("name", ["Pipeline", "Counter", "Nest", "Early"])
def test_outcomes_are_explores(name: str) -> None:
    prog = program(models.PERFORMED)
    subject = f"line::{name}"
    assert smt_outcomes(prog, subject) == explore_outcomes(prog, subject)


def test_parameters_flow_through_a_pipeline_of_performances() -> None:
    ((pairs, error),) = smt_outcomes(program(models.PERFORMED), "line::Pipeline")
    values = dict(pairs)
    assert error is None
    assert (values["clean"], values["scaled"], values["amplify.gain"]) == ("6", "18", "3")


def test_copy_in_copy_out_parameters_lose_an_update() -> None:
    prog = program(models.PERFORMED)
    answer = solve(prog, "line::Counter", "sensitive", diverge=("seats",), solver_seconds=SECONDS)
    assert answer.verdict == "sensitive"
    ((_, values),) = answer.divergent
    assert {v for v, _ in values} == {"0", "1"}


def test_a_bound_output_left_without_a_value_fails_for_a_negative_input() -> None:
    prog = program(models.PERFORMED)
    answer = solve(prog, "line::Probe", "holds", solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    (witness,) = answer.witnesses
    ((name, value),) = witness.inputs
    assert name == "level" and int(value) < 0
    assert "multiplicity violation" in witness.text()
    run = replay_run(prog, "line::Probe", witness.text())
    assert unreproduced(prog, run, witness) is None


def test_nested_and_read_by_path_features_are_named_as_the_run_names_them() -> None:
    prog = program(models.PERFORMED)
    ((pairs, _),) = smt_outcomes(prog, "line::Nest")
    values = dict(pairs)
    assert values["a.b.x"] == "2" and values["y"] == "2"
    endings = smt_outcomes(prog, "line::Early")
    assert sorted(dict(v).get("sum", "") for v, e in endings if e is None) == ["0", "2"]
    failed = [e for _, e in endings if e is not None]
    assert len(failed) == 1 and "'p.b' holds no value here" in failed[0]
    assert endings == explore_outcomes(prog, "line::Early")


def test_a_performed_action_reads_no_feature_of_the_action_performing_it() -> None:
    answer = solve(program(models.PERFORMED), "line::Outer", "holds", solver_seconds=SECONDS)
    assert answer.verdict == "not covered"
    assert answer.reason == "not covered: the name 'hidden' at node 'look'"
