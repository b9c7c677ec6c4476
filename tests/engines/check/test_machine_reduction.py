"""Reduction soundness over machine moves: a reduced check of a machine (with its environment), or of
several machines and actions on one clock, reaches exactly the final states, verdict and violations
of the unreduced one, and searches no more states. The models: the reduction corpus's five machine
models and the machine dependence models here, one per clause of engines/check/reduce.py's machine
dependence (tests/engines/check/machine_dependence/)."""

from __future__ import annotations

import pytest

import ir
from engines.check.machine import check_machine
from engines.framework import Bounds
from engines.runtime import Program, Script
from engines.runtime.states import events_from_json
from tests.corpus_cases import HAVE_CORPUS, NO_CORPUS, Case, entry
from tests.engines.check.machines_reduced import (
    REDUCTION_MACHINES,
    MachineModel,
    checked,
    machine_dependence_models,
    reduction_machine_models,
)
from tests.engines.check.models import final_states
from tests.engines.runtime.states.test_machine_moves import MACHINE_CASES

MODELS = reduction_machine_models() + machine_dependence_models()


@pytest.mark.parametrize("model", MODELS, ids=[m.name for m in MODELS])
def test_reduced_final_states_equal_unreduced(model: MachineModel) -> None:
    reduced = checked(model, reduce=True)
    full = checked(model, reduce=False)
    assert final_states(reduced) == final_states(full)
    assert reduced.verdict is full.verdict
    assert {(v.kind, v.text) for v in reduced.violations} == {(v.kind, v.text) for v in full.violations}
    assert reduced.stats.states <= full.stats.states
    assert reduced.notes == () and full.notes == ()


@pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
def test_the_reduction_corpus_s_machine_models_are_all_here() -> None:
    assert [m.name.removeprefix("reduction/") for m in reduction_machine_models()] == list(REDUCTION_MACHINES)


def _finals(model: str, feature: str) -> set[str | None]:
    m = next(x for x in MODELS if x.name == model)
    return {dict(o).get(feature) for o in final_states(checked(m, reduce=True))}


def test_each_machine_dependence_reaches_the_orders_it_exists_for() -> None:
    """Each dependent model is a race the search must keep (so equal final states mean something):
    the reduced search still reaches every reading."""
    assert _finals("machine_dependence/mdep_do_races_dispatch", "level") == {"0", "1", "2", "3"}
    assert _finals("machine_dependence/mdep_guard_reads_other_region", "shots") == {"0", "1"}
    assert _finals("machine_dependence/mdep_choice_reads_other_region", "route") == {"1", "2"}
    assert _finals("machine_dependence/mdep_two_machines_part_feature", "alarm") == {"1", "2"}
    assert _finals("machine_dependence/mdep_timers_tie", "last") == {"1", "2"}
    assert len(_finals("machine_dependence/mdep_shared_counter_regions", "c")) > 1
    assert _finals("machine_dependence/mdep_stop_against_timers", "cycles") == {"1", "2", "3"}


def test_independent_machine_moves_are_taken_in_one_order() -> None:
    """Where the moves commute, the reduced search is one interleaving: far fewer states."""
    for name in ("machine_dependence/mdep_two_region_controller", "machine_dependence/mdep_env_and_completion"):
        m = next(x for x in MODELS if x.name == name)
        assert checked(m, reduce=True).stats.states < checked(m, reduce=False).stats.states, name


@pytest.mark.corpus
@pytest.mark.parametrize("case", MACHINE_CASES, ids=lambda c: c.name)
def test_every_machine_case_reduced_reaches_the_unreduced_final_states(case: Case) -> None:
    """Each machine case of the corpus, checked with its events sent by the environment."""
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
    except ir.SysmlError:
        pytest.skip("the case is refused before any run")
    program = Program(model)
    script = Script(tuple(events_from_json(case.expected.get("events") or [])))
    bounds = Bounds(depth=500, states=20_000)
    reduced, full = (check_machine(program, entry(case, model), script, bounds, reduce=r) for r in (True, False))
    assert final_states(reduced) == final_states(full)
    assert reduced.verdict is full.verdict
    assert {(v.kind, v.text) for v in reduced.violations} == {(v.kind, v.text) for v in full.violations}
    assert reduced.stats.states <= full.stats.states
