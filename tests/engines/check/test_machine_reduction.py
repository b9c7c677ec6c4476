"""Reduction soundness over machine moves: a reduced check of a machine (with its environment), or of
several machines and actions on one clock, reaches exactly the final states, verdict and violations
of the unreduced one, and searches no more states. The models: the reduction corpus's five machine
models and the machine dependence models here, one per clause of engines/check/reduce.py's machine
dependence (tests/engines/check/machine_dependence/)."""

from __future__ import annotations

from math import factorial

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


def _regions(mode: str, n: int, k: int) -> str:
    """A parallel state of n regions, each k completion transitions in a row: each writing its own
    attribute (`indep`) or all one counter (`shared`), as ../shared/bench/gen_states.py's families."""
    own = mode == "indep"
    attrs = "".join(f"attribute x{i} : Integer := 0; " for i in range(1, n + 1)) if own else "attribute c : Integer := 0; "
    regions = []
    for i in range(1, n + 1):
        states = " ".join(f"state r{i}s{j};" for j in range(k + 1))
        effect = f"x{i} := x{i} + 1" if own else f"c := c * 2 + {i}"
        moves = " ".join(f"transition first r{i}s{j} do assign {effect} then r{i}s{j + 1};" for j in range(k))
        regions.append(f"state r{i} {{ entry; then r{i}s0; {states} {moves} }}")
    return (f"package p {{ private import ScalarValues::*; state def M parallel {{ {attrs}"
            f"{' '.join(regions)} }} }}")


@pytest.mark.parametrize(("n", "k"), [(2, 2), (3, 2), (4, 3)])
def test_states_are_those_between_firings(n: int, k: int) -> None:
    """A state is one a property is judged at: independent regions are one interleaving, the state the
    entry leaves and one after each of the n*k completions; on a shared counter, at most one state per
    point of the tree the n! entry orders draw (n*k + 1 each), fewer where two orders meet again. The
    points partway through the entry's draw of orders are searched but are no states."""
    program = Program(ir.resolve([ir.parse(_regions("indep", n, k), "indep")]))
    independent = check_machine(program, "p::M", Script(), Bounds(), diverge=("x1",))
    assert independent.stats.states == n * k + 1
    program = Program(ir.resolve([ir.parse(_regions("shared", n, k), "shared")]))
    shared = check_machine(program, "p::M", Script(), Bounds(), diverge=("c",))
    tree = factorial(n) * (n * k + 1)
    values = {v for o in shared.outcomes for key, v in o.values if key == "c"}
    if len(values) == factorial(n):  # every order its own value: nothing meets again
        assert shared.stats.states == tree
    else:
        assert shared.stats.states < tree
    assert n < 4 or len(values) < factorial(n)  # 4 regions: orders that meet again (18 values of 24)
