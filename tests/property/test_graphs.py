"""Generated action graphs (tests/property/graphs.py) through explore and check.

For each model: explore's outcomes (every linearization) are the unreduced check's final states and
its failing endings the check's violations; the reduced check reaches exactly the unreduced check's
final states with the same verdict and violations; and every witness either check writes replays in
the interpreter to what it claims.

The passing properties draw only the constructs the engines agree on today; each construct that
shows a disagreement has its strict xfail property here (with the minimal model found as its
explicit example) and its minimal model as a regular test in test_found.py.
"""

from __future__ import annotations

from hypothesis import assume, event, example, given, note, settings

import ir
from engines.explore import explore
from engines.framework import Bounds, Result, Verdict
from engines.runtime import Program
from engines.witness import replay_run
from tests.engines.check.models import checked, final_states, normal
from tests.engines.check.test_oracles import complete
from tests.property.graphs import (
    Decide,
    Fork,
    InFlow,
    Kinds,
    Leaf,
    LoneAccept,
    Merged,
    SendAccept,
    Seq,
    build,
    models,
    where,
)

SUBJECT = "g::m"
EXPLORE = Bounds(runs=500)  # a model with more linearizations is drawn again (assume)
CHECK = Bounds(depth=2_000, states=50_000)
# a generated graph costs an explore and two checks: a tenth of the expressions' count (conftest.py)
GRAPH_EXAMPLES = max(20, settings().max_examples // 10)

AGREED = Kinds(messages=True, lone_accepts=True, negatives=True, timers=True)  # explore and the unreduced check agree on these today
REDUCTION_AGREED = Kinds(messages=True, lone_accepts=True, negatives=True, ifs=True, timers=True)  # the reduced and unreduced check too
# nodes performed twice behind a merge, with statements standing in the flow, guarded successions, steps
# with a multiplicity, steps typed by an action def of their own, terminates, and flows and bindings between
# steps' pins;
# searched within a smaller bound (their tokens multiply what follows), the graphs whose unreduced search
# it cuts drawn again
MERGED = Kinds(messages=True, lone_accepts=True, negatives=True, ifs=True, fors=True, timers=True, in_flow=True,
               untils=True, guards=True, merges=True, converging=True, crews=True, typed=True, halts=True, flows=True)
MERGED_CHECK = Bounds(depth=2_000, states=5_000)


def _program(seq: Seq) -> tuple[Program, tuple[str, ...]]:
    graph = build(seq)
    text = graph.text()
    note(text)
    return Program(ir.resolve([ir.parse(text, "generated.sysml")])), graph.features


def _explored(program: Program, features: tuple[str, ...]) -> tuple[set[tuple[tuple[str, str | None], ...]], set[str]]:
    result = explore(program, SUBJECT, EXPLORE)
    if result.verdict is not Verdict.COMPLETE:
        event("explore's runs budget hit")
    assume(result.verdict is Verdict.COMPLETE)
    values = set()
    errors = set()
    for outcome in result.outcomes:
        if outcome.error is not None:
            errors.add(where(outcome.error.removeprefix("deadlock: ")))
        else:
            kept = dict(outcome.values)
            values.add(tuple((k, normal(kept.get(k))) for k in features))
    return values, errors


def _replays(program: Program, result: Result) -> None:
    """Every witness of the result replays in the interpreter to its claim (as test_oracles.py asks)."""
    assert result.notes == (), result.notes
    claims = 0
    checked_witnesses = {v.witness for v in result.violations} | {i for _, vs in result.divergent for _, i in vs}
    for outcome in result.outcomes:
        if outcome.witness and outcome.witness not in checked_witnesses and outcome.error is None:
            # an outcome no value's witness ends in has a witness of its own, claiming its every value
            checked_witnesses.add(outcome.witness)
            run = complete(replay_run(program, SUBJECT, result.witnesses[outcome.witness - 1].text()))
            assert run.status == "completed", f"{outcome.values}: the replay ended {run.status} ({run.error})"
            ended = run.outputs()
            assert all(normal(ended.get(k)) == normal(v) for k, v in outcome.values), (outcome.values, ended)
            claims += 1
    for violation in result.violations:
        witness = result.witnesses[violation.witness - 1]
        run = replay_run(program, SUBJECT, witness.text())
        if violation.kind == "fails":
            assert run.status == "failed" and str(run.error) == violation.text, (run.status, run.error)
        else:
            assert violation.kind == "deadlock", violation
            stuck = run.stuck()
            assert stuck is not None and stuck.removeprefix("deadlock: ") == violation.text, stuck
        claims += 1
    for feature, values in result.divergent:
        for value, index in values:
            run = complete(replay_run(program, SUBJECT, result.witnesses[index - 1].text()))
            assert run.status == "completed", f"{feature} = {value}: the replay ended {run.status} ({run.error})"
            assert normal(run.outputs().get(feature)) == normal(value), (feature, value, run.outputs())
            claims += 1
    assert claims == len(result.witnesses)


def explore_equals_check(seq: Seq) -> None:
    program, features = _program(seq)
    full = checked(program, SUBJECT, reduce=False, bounds=CHECK)
    assert full.verdict not in (Verdict.WITHIN_BOUNDS, Verdict.INCOMPLETE), full.bounds
    assert all(tuple(k for k, _ in o.values) == features for o in full.outcomes)
    values, errors = _explored(program, features)
    assert values == final_states(full)
    assert errors == {where(v.text) for v in full.violations}
    _replays(program, full)


def reduced_equals_unreduced(seq: Seq, bounds: Bounds = CHECK) -> None:
    program, _ = _program(seq)
    full = checked(program, SUBJECT, reduce=False, bounds=bounds)
    if any(b.reached for b in full.bounds):
        event("the unreduced search's bound hit")
    assume(not any(b.reached for b in full.bounds))
    reduced = checked(program, SUBJECT, reduce=True, bounds=bounds)
    assert final_states(reduced) == final_states(full)
    assert reduced.verdict is full.verdict
    assert {(v.kind, where(v.text)) for v in reduced.violations} == {(v.kind, where(v.text)) for v in full.violations}
    assert reduced.stats.states <= full.stats.states
    _replays(program, reduced)


# ------------------------------------------------------------------ what holds today


def _race(first: str, second: str) -> Seq:
    return Seq((Fork((Seq((Leaf((first,), False, ()),)), Seq((Leaf((second,), False, ()),)))),))


@given(models(AGREED))
@settings(max_examples=GRAPH_EXAMPLES)
@example(_race("assign x := -1;", "assign x := -2;"))  # once one state to the check (hash(-1) == hash(-2))
def test_explore_reaches_what_the_unreduced_check_reaches(seq: Seq) -> None:
    explore_equals_check(seq)


# two send/accept pairs crossing (an accept taking the other pair's message), and one message for two
# accepts: once missed by the reduced check (an accept's move was read as its body's start shot)
_CROSSING = Seq((Leaf(("assign x := x + 1;",), False, ()),
                 Fork((Seq((SendAccept("x"),)), Seq((Leaf(("assign x := x + 1;",), False, ()), SendAccept("x")))))))


@given(models(REDUCTION_AGREED))
@settings(max_examples=GRAPH_EXAMPLES)
@example(_CROSSING)
@example(Seq((Fork((Seq((SendAccept("7"),)), Seq((LoneAccept(),)))),)))
# an outcome no value's witness ends in (x = 2 with got9 = 0), with a witness of its own: once not
# replayed by this test, which counted only the values' witnesses and the violations'
@example(Seq((Fork((Seq((Leaf(("assign x := x + 1;",), False, ()),)), Seq((SendAccept("x"),)),
                    Seq((Leaf(("assign x := x * 2;",), False, ()),)))),)))
def test_the_reduced_check_reaches_the_unreduced_final_states(seq: Seq) -> None:
    reduced_equals_unreduced(seq)


# a second reading through one forwarder reaching a join that can already fire, then one reaching it
# while the join cannot fire yet (the other branch is itself two steps joined): each once missed by the
# reduced check (a deadlock it answered "no violation" to), tests/engines/check/dependence/
# dep_join_second_arrival.sysml's and dep_join_late_second_arrival.sysml's shapes; and the third,
# found by this test
@given(models(MERGED))
@settings(max_examples=GRAPH_EXAMPLES)
@example(Seq((Fork((Seq((Merged(Leaf(("assign x := x + 1;",), False, ())),)), Seq((Leaf(("assign y := y + 1;",), False, ()),)))),)))
@example(Seq((Fork((Seq((Merged(Leaf(("assign x := x + 1;",), False, ())),)),
                    Seq((Fork((Seq((Leaf(("assign y := y + 1;",), False, ()),)), Seq((Leaf((), False, ()),)))),)))),)))
# two tokens through a merge into an action node a decision's branches meet at: the first performs it
# before the second arrives, or both are taken by one move (dep_rejoin_second_arrival.sysml's shape)
@example(Seq((Leaf(("assign x := x * 2;",), False, ()),
              Decide("x > 0", Seq((LoneAccept(),)), Seq((Merged(InFlow("assign x := x + 1;", ())),)), True))))
def test_the_reduced_check_reaches_the_unreduced_final_states_with_nodes_performed_twice(seq: Seq) -> None:
    reduced_equals_unreduced(seq, MERGED_CHECK)


# ------------------------------------------------------------------ what does not hold yet


# three quarters of the others' examples: a branch's statements are unordered, so a graph has many more
# schedules to explore, and the last draws of the ci profile made this the suite's slowest test (80-120 s;
# the slow profile draws thousands)
@given(models(Kinds(ifs=True)))
@settings(max_examples=max(15, GRAPH_EXAMPLES * 3 // 4))
@example(Seq((Leaf(("if x > 0 { assign x := x + 1; } else { assign y := y + 1; }", "assign x := x + 1;"),
                   False, ()),)))
def test_explore_reaches_what_the_check_reaches_with_if_statements(seq: Seq) -> None:
    explore_equals_check(seq)

