"""Reduction soundness: the persistent sets reach every final state the full search reaches.

Over the reduction corpus's actions and the dependence models here (one per clause of the
independence relation, and one per dependence the relation must not miss), the final states of a
reduced check equal those of an unreduced one, and so does the verdict.
"""

from __future__ import annotations

import pytest

from engines.explore import explore
from engines.framework import Bounds
from tests.engines.check.models import (
    Model,
    checked,
    dependence_models,
    final_states,
    normal,
    reduction_models,
)

KNOWN: dict[str, pytest.MarkDecorator] = {  # model name -> xfail(strict=True) of a known product bug
}


def _param(model: Model) -> object:
    marks = []
    if model.name in KNOWN:
        marks.append(KNOWN[model.name])
    return pytest.param(model, id=model.name, marks=marks)


# the machine models are test_machine_reduction.py's
MODELS = [m for m in reduction_models() + dependence_models() if m.action is not None]


@pytest.mark.parametrize("model", [_param(m) for m in MODELS])
def test_reduced_final_states_equal_unreduced(model: Model) -> None:
    assert model.action is not None
    program = model.program()
    reduced = checked(program, model.action, reduce=True)
    full = checked(program, model.action, reduce=False)
    assert final_states(reduced) == final_states(full)
    assert reduced.verdict is full.verdict
    assert {(v.kind, v.text) for v in reduced.violations} == {(v.kind, v.text) for v in full.violations}
    assert reduced.stats.states <= full.stats.states
    assert reduced.notes == () and full.notes == ()


def test_the_dependence_models_cover_every_clause() -> None:
    names = {m.name.removeprefix("dependence/") for m in dependence_models()}
    assert {"dep_shared_write", "dep_guard_read", "dep_trigger_read", "dep_send_accept", "dep_join",
            "dep_merge", "dep_chained", "dep_independent", "dep_start_shot"} <= names
    assert all(m.action is not None for m in dependence_models())


def test_each_dependent_model_reaches_the_orders_it_exists_for() -> None:
    """Each dependence model is a race the unreduced search sees (so the comparison above means
    something): every model ends in more than one state, but the independent one, the join and the
    recorder a forwarder feeds twice (one end each), and the joins a second token reaches over the
    succession another came by, which deadlock in every order (a firing takes one token over each
    succession; the second waits for a firing that never comes): they pin what the reduced check must
    still answer."""
    one_end = {"dependence/dep_independent", "dependence/dep_join", "dependence/dep_rejoin_second_arrival"}
    deadlocked = {"dependence/dep_join_second_arrival", "dependence/dep_join_late_second_arrival"}
    for model in dependence_models():
        assert model.action is not None
        full = checked(model.program(), model.action, reduce=False)
        if model.name in deadlocked:
            assert full.violations and not full.outcomes, model.name
        elif model.name in one_end:
            assert len(final_states(full)) == 1 and not full.violations, model.name
        else:
            assert len(final_states(full)) > 1, (model.name, final_states(full))


def test_reduction_cuts_states_on_independent_branches() -> None:
    model = next(m for m in dependence_models() if m.name == "dependence/dep_independent")
    assert model.action is not None
    program = model.program()
    reduced = checked(program, model.action, reduce=True)
    full = checked(program, model.action, reduce=False)
    assert final_states(reduced) == final_states(full) == {(("a", "2"), ("b", "2"), ("c", "2"))}
    assert reduced.stats.states < full.stats.states
    assert reduced.stats.moves < full.stats.moves


def test_the_unreduced_check_reaches_what_explore_reaches() -> None:
    """The referee: over the dependence models, every linearization's final state is the check's."""
    for model in dependence_models():
        assert model.action is not None
        program = model.program()
        full = checked(program, model.action, reduce=False)
        keys = {k for o in full.outcomes for k, _ in o.values}
        runs = explore(program, model.action, Bounds(runs=5_000))
        reached = {tuple((k, normal(v)) for k, v in o.values if k in keys) for o in runs.outcomes if o.error is None}
        assert reached == final_states(full), model.name
        assert any(o.error is not None for o in runs.outcomes) == bool(full.violations), model.name


# A product bug the reduction corpus shows through the runtime (explore agrees with check, so the
# reduced and unreduced final states are trivially equal there, but the model's point is lost):
@pytest.mark.corpus
def test_alias_reads_see_the_aliased_writes() -> None:
    """One feature under two names: a read through the short name or the redefined name sees the
    write on the schedules where the write went first, and not on the others."""
    model = next(m for m in reduction_models() if m.name == "reduction/por_alias")
    assert model.action is not None
    program = model.program()
    for reduce in (True, False):
        states = final_states(checked(program, model.action, reduce=reduce))
        assert {dict(s)["seenX"] for s in states} == {"0", "1"}
        # `attribute y :>> base;` states no value: it keeps base's `= 0` (the peer agrees)
        assert {dict(s)["seenBase"] for s in states} == {"0", "1"}


@pytest.mark.corpus
def test_streaming_flow_delivers_the_producers_value() -> None:
    model = next(m for m in reduction_models() if m.name == "reduction/por_streaming_flow")
    assert model.action is not None
    full = checked(model.program(), model.action, reduce=False)
    assert {dict(s)["final"] for s in final_states(full)} == {"7"}


# Derived by hand from the bus's rule (an accept takes the oldest message its trigger matches, when it
# moves): which messages each accept may take, so what the final states are. The reduced check must
# reach each of them, as the unreduced one does.
MESSAGE_RACES = {
    # two requests, two desks: either desk may take the oldest request
    "dependence/dep_booking_two_desks": {(("servedA", "1"), ("servedB", "2")),
                                         (("servedA", "2"), ("servedB", "1"))},
    # 1, 2, 3 queued in order: the lone consumer takes any one, the other consumer the rest in order
    "dependence/dep_pipeline_two_consumers": {(("one", "1"), ("twoFirst", "2"), ("twoSecond", "3")),
                                              (("one", "2"), ("twoFirst", "1"), ("twoSecond", "3")),
                                              (("one", "3"), ("twoFirst", "1"), ("twoSecond", "2"))},
    # north sends 1 or 11, south 10 or 11 (not 1 and 10 together); either may take the other's or its own
    "dependence/dep_crossing_stations": {(("northGot", "1"), ("southGot", "11"), ("tally", "11")),
                                         (("northGot", "11"), ("southGot", "1"), ("tally", "11")),
                                         (("northGot", "10"), ("southGot", "11"), ("tally", "11")),
                                         (("northGot", "11"), ("southGot", "10"), ("tally", "11")),
                                         (("northGot", "11"), ("southGot", "11"), ("tally", "11"))},
}


@pytest.mark.parametrize("name", sorted(MESSAGE_RACES))
@pytest.mark.parametrize("reduce", [True, False])
def test_accepts_racing_for_messages_reach_every_pairing(name: str, reduce: bool) -> None:
    model = next(m for m in dependence_models() if m.name == name)
    assert model.action is not None
    assert final_states(checked(model.program(), model.action, reduce=reduce)) == MESSAGE_RACES[name]
