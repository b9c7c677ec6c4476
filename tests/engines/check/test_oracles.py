"""The check engine against the semantic oracle: every action case with a `.check.expected.json`.

Each oracle names the verdict, the features whose final value the schedule decides (with exactly
the values they take) and the features every schedule agrees on; the check must say the same,
reduced and unreduced, and every witness it writes must replay to what it claims.
"""

from __future__ import annotations

from typing import Any

import pytest

import ir
from engines.errors import RunError
from engines.framework import Result
from engines.runtime import Program, Run
from engines.witness import replay_run
from tests.corpus_cases import Case, cases, entry
from tests.engines.check.models import checked, normal

ORACLE_CASES = [c for c in cases("action") if c.check is not None]
PARAMS = [(c, r) for c in ORACLE_CASES for r in (True, False)]
IDS = [f"{c.name}-{'reduced' if r else 'unreduced'}" for c, r in PARAMS]


def complete(run: Run) -> Run:
    """Go on from where a replay stopped: the first enabled move each time, until the run ends."""
    while not run.finished:
        moves = run.enabled_moves()
        while not moves and run.let_time_pass():
            moves = run.enabled_moves()
        if not moves:
            break
        try:
            run.apply(moves[0])
        except RunError:
            break
    return run


def _divergent(result: Result) -> dict[str, set[str | None]]:
    return {feature: {normal(v) for v, _ in values} for feature, values in result.divergent}


def _expected_divergent(oracle: dict[str, Any]) -> dict[str, set[str | None]]:
    return {feature: {normal(v) for v in values} for feature, values in oracle.get("divergent", {}).items()}


@pytest.fixture(scope="module")
def checks() -> dict[tuple[str, bool], tuple[Program, str, Result]]:
    """Each oracle case checked once per mode (the two tests of a case share the search)."""
    out: dict[tuple[str, bool], tuple[Program, str, Result]] = {}
    for case, reduce in PARAMS:
        if case.disputed:
            continue
        model = ir.resolve([ir.parse(case.text, case.name)])
        program = Program(model)
        subject = entry(case, model)
        out[(case.name, reduce)] = (program, subject, checked(program, subject, reduce))
    return out


def _skip_disputed(case: Case) -> None:
    if case.disputed:
        pytest.skip(f"{case.name} is disputed: {case.notes}")


@pytest.mark.corpus
@pytest.mark.parametrize(("case", "reduce"), PARAMS, ids=IDS)
def test_check_agrees_with_the_oracle(case: Case, reduce: bool,
                                      checks: dict[tuple[str, bool], tuple[Program, str, Result]]) -> None:
    _skip_disputed(case)
    assert case.check is not None
    _, _, result = checks[(case.name, reduce)]
    oracle = case.check
    assert result.verdict.value == oracle["verdict"], (result.verdict, result.violations, result.divergent)
    assert _divergent(result) == _expected_divergent(oracle)
    assert result.outcomes, "no final state reached"
    for feature, value in oracle.get("agreed", {}).items():
        seen = {normal(dict(o.values).get(feature)) for o in result.outcomes}
        assert seen == {normal(value)}, f"{feature}: {seen} at the final states, the oracle agrees on {value}"
    if "failures" in oracle:
        assert {v.text for v in result.violations if v.kind == "fails"} == set(oracle["failures"])
    assert result.notes == ()


@pytest.mark.corpus
@pytest.mark.parametrize(("case", "reduce"), PARAMS, ids=IDS)
def test_every_witness_replays_to_its_claim(case: Case, reduce: bool,
                                            checks: dict[tuple[str, bool], tuple[Program, str, Result]]) -> None:
    _skip_disputed(case)
    program, subject, result = checks[(case.name, reduce)]
    claims = 0
    for violation in result.violations:
        witness = result.witnesses[violation.witness - 1]
        run = replay_run(program, subject, witness.text())
        if violation.kind == "fails":
            assert run.status == "failed", f"replayed to {run.status}, not the failure {violation.text!r}"
            assert str(run.error) == violation.text
        elif violation.kind == "deadlock":
            stuck = run.stuck()
            assert stuck is not None and stuck.removeprefix("deadlock: ") == violation.text
        else:
            pytest.fail(f"no property is given, yet a {violation.kind} violation: {violation.text}")
        assert witness.ending == f"fails: {'deadlock: ' if violation.kind == 'deadlock' else ''}{violation.text}"
        claims += 1
    for feature, values in result.divergent:
        for value, index in values:
            run = complete(replay_run(program, subject, result.witnesses[index - 1].text()))
            assert run.status == "completed", f"{feature} = {value}: the replay ended {run.status} ({run.error})"
            assert normal(run.outputs().get(feature)) == normal(value), (feature, value, run.outputs())
            claims += 1
    assert claims == len(result.witnesses)


def test_a_choice_line_naming_a_statement_node_parses() -> None:
    from engines.witness import parse_witness

    parsed = parse_witness("opensysml witness 1\nbehavior: a::A\nmodel: sha256:0123456789abcdef\nengine: check\n"
                           "claim: completes\nstep 1: 2@assign c first of 2@assign c, 3@assign c\n\nstmt assign c\n"
                           "end of witness\n")
    assert [c.taken for c in parsed.choices] == ["2@assign c"]
    assert parsed.trace == ("stmt assign c",)
