"""Performed actions under the smt engine (tests/engines/smt/models.py PERFORMED, answers derived in its
comments): the outcome sets are explore's, each witness replays, and what the encoding cannot say it
refuses before any query."""

from __future__ import annotations

import pytest

from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from engines.smt.answer import solve
from engines.witness import replay_run, unreproduced
from tests.engines.smt import models
from tests.engines.smt.models import program

SECONDS = 600.0
ACTIONS = ("Pipeline", "Counter", "Nest", "Early")


def _outcomes(prog: Program, subject: str) -> list[tuple[dict[str, str], str | None]]:
    answer = solve(prog, subject, "outcomes", solver_seconds=SECONDS)
    assert answer.verdict == "complete", answer.reason
    for witness in answer.witnesses:
        run = replay_run(prog, subject, witness.text())
        assert unreproduced(prog, run, witness) is None
    return sorted(((values, error) for values, error, _ in answer.outcomes), key=repr)


@pytest.mark.parametrize("name", ACTIONS)
def test_outcomes_are_explores(name: str) -> None:
    prog = program(models.PERFORMED)
    subject = f"line::{name}"
    explored = explore(Program(prog.model), subject, Bounds(runs=4096))
    assert explored.verdict is Verdict.COMPLETE
    theirs = sorted(((o.values, o.error) for o in explored.outcomes), key=repr)
    assert _outcomes(prog, subject) == theirs


def test_parameters_flow_through_a_pipeline_of_performances() -> None:
    ((pairs, error),) = _outcomes(program(models.PERFORMED), "line::Pipeline")
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
    ((pairs, _),) = _outcomes(prog, "line::Nest")
    values = dict(pairs)
    assert values["a.b.x"] == "2" and values["y"] == "2"
    endings = _outcomes(prog, "line::Early")
    assert sorted(dict(v).get("sum", "") for v, e in endings if e is None) == ["0", "2"]
    assert sum(1 for _, e in endings if e is not None) == 1


def test_a_performed_action_reads_no_feature_of_the_action_performing_it() -> None:
    answer = solve(program(models.PERFORMED), "line::Outer", "holds", solver_seconds=SECONDS)
    assert answer.verdict == "not covered"
    assert answer.reason == "not covered: the name 'hidden' at node 'look'"
