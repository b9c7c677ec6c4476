"""The check over state machines against the semantic oracle: every state, object and w6e case with a
`.check.expected.json`, driven by the case's own `events` as the environment's script (each send a
move of its own, interleaving with the machine's). The verdict, the divergent features with exactly
their values, and the features every schedule agrees on must be the oracle's; a case the machine's
moves do not reach yet is a strict xfail with its reason (state_oracle_known.txt)."""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
from engines.check.machine import check_machine
from engines.framework import Bounds, Result
from engines.runtime import Program, Script
from engines.runtime.states import events_from_json
from tests.corpus_cases import Case, cases, entry
from tests.engines.check.models import normal

KNOWN = Path(__file__).parent / "state_oracle_known.txt"
ORACLE_CASES = [c for kind in ("state", "object", "instance") for c in cases(kind)
                if c.check is not None and c.name.startswith(("state_", "object_", "w6e_"))]


def _known() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in KNOWN.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(":")
            out[name.strip()] = reason.strip()
    return out


KNOWN_CASES = _known()


def checked(case: Case) -> Result:
    model = ir.resolve([ir.parse(case.text, case.name)])
    script = Script(tuple(events_from_json(case.expected.get("events") or [])))
    return check_machine(Program(model), entry(case, model), script, Bounds().with_(depth=500, states=200_000))


def departures(case: Case, result: Result) -> list[str]:
    oracle = case.check
    assert oracle is not None
    problems = []
    if result.verdict.value != oracle["verdict"]:
        problems.append(f"verdict {result.verdict.value}, the oracle's {oracle['verdict']}")
    got = {f: {normal(v) for v, _ in values} for f, values in result.divergent}
    want = {f: {normal(v) for v in values} for f, values in oracle.get("divergent", {}).items()}
    if got != want:
        problems.append(f"divergent {got}, the oracle's {want}")
    for feature, value in oracle.get("agreed", {}).items():
        seen = {normal(dict(o.values).get(feature)) for o in result.outcomes}
        if seen != {normal(value)}:
            problems.append(f"{feature} ends as {seen}, the oracle agrees on {value}")
    if result.notes:
        problems.append(f"notes {result.notes}")
    return problems


@pytest.mark.corpus
def test_the_oracle_cases_are_the_35_of_the_corpus() -> None:
    assert len(ORACLE_CASES) == 35
    assert set(KNOWN_CASES) <= {c.name for c in ORACLE_CASES}


@pytest.mark.corpus
@pytest.mark.parametrize("case", ORACLE_CASES, ids=lambda c: c.name)
def test_the_machine_check_agrees_with_the_oracle(case: Case) -> None:
    if case.disputed:
        pytest.skip(f"{case.name} is disputed: {case.notes}")
    problems = departures(case, checked(case))
    if case.name in KNOWN_CASES:
        if not problems:
            pytest.fail(f"{case.name} now agrees with the oracle: remove it from {KNOWN.name}")
        pytest.xfail(KNOWN_CASES[case.name])
    assert not problems, problems
