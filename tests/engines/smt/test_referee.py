"""The referee over the conformance corpus: for every action case the encoding covers, (1) the final
states it enumerates (one check per outcome) are exactly explore's outcomes, (2) every model's witness
replays in the interpreter to what it claims, and (3) its answer on deadlocks and run errors is
check's: a violation exactly when check (exhaustive) finds one. A case it does not cover is listed,
with the reason, in refused.txt: a case refused and not listed, or listed and now covered, fails."""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
from engines.check.search import check
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from engines.smt.answer import solve
from engines.witness import replay_run, unreproduced
from tests.corpus_cases import Case, cases, entry

REFUSED = Path(__file__).with_name("refused.txt")
SECONDS = 600.0  # no solver timeout a loaded machine reaches: a timeout would make the tally depend on load


def _listed() -> dict[str, str]:
    out = {}
    for line in REFUSED.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, reason = line.partition(" ")
            out[name] = reason
    return out


def _parsed(case: Case) -> tuple[Program, str] | None:
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
        return Program(model), entry(case, model)
    except ir.SysmlError:
        return None


# the upstream cases beside the corpus too, listed in refused.txt as conformance-more/<name>
ACTION_CASES = cases("action") + cases("action", folder="conformance-more")


def _key(case: Case) -> str:
    return case.name if case.folder == "conformance" else f"{case.folder}/{case.name}"


@pytest.mark.corpus
@pytest.mark.slow
@pytest.mark.parametrize("case", ACTION_CASES, ids=[_key(c) for c in ACTION_CASES])
def test_smt_agrees_with_explore_and_check(case: Case) -> None:
    parsed = _parsed(case)
    if parsed is None:
        pytest.skip("the case is a model the resolver refuses")
    program, subject = parsed
    listed = _listed()
    answer = solve(program, subject, "outcomes", solver_seconds=SECONDS)
    if answer.verdict == "not covered":
        assert listed.get(_key(case)) == answer.reason, f"refused and not listed as such: {answer.reason}"
        return
    assert _key(case) not in listed, "covered now: take its line out of refused.txt"
    explored = explore(Program(program.model), subject, Bounds(runs=4096))
    mine = sorted((values, error) for values, error, _ in answer.outcomes)
    theirs = sorted((o.values, o.error) for o in explored.outcomes)
    if explored.verdict is not Verdict.COMPLETE:
        # more linearizations than explore runs (three performances of a three-step flow): the check
        # engine searches every schedule, reporting the action's own features; ours are compared on those
        searched = check(Program(program.model), subject)
        assert searched.verdict is Verdict.EXHAUSTIVE or searched.divergent, searched.verdict
        theirs = sorted((o.values, o.error) for o in searched.outcomes)
        own = {k for values, _ in theirs for k, _ in values}
        mine = sorted({(tuple((k, v) for k, v in values if k in own), error) for values, error in mine})
    if answer.verdict == "incomplete":
        # a schedule still going after k moves (a loop the interpreter stops by its step budget): what
        # the encoding found within k is among explore's outcomes
        assert set(mine) <= set(theirs)
        return
    assert answer.verdict == "complete", answer.verdict
    assert mine == theirs
    for witness in answer.witnesses:
        run = replay_run(program, subject, witness.text())
        assert unreproduced(program, run, witness) is None
    holds = solve(program, subject, "holds", solver_seconds=SECONDS)
    checked = check(Program(program.model), subject, Bounds())
    assert checked.verdict in (Verdict.EXHAUSTIVE, Verdict.VIOLATION, Verdict.DIVERGENT), checked.verdict
    assert (holds.verdict == "violated") == bool(checked.violations), (holds.verdict, checked.violations)
    assert holds.verdict in ("violated", "proved"), holds.verdict
