"""Every state-machine and instance case of the corpus (and the reduction folder's machines) is
submitted (it parses and resolves with no error) and lowers: each machine it declares or a part of it
exhibits becomes a StateGraph."""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
from ir.graphs import StateGraph
from ir.lower.states import exhibited_machines, instance_machines, lower_state
from tests.corpus_cases import Case, reduction_state_models, state_cases

STATE_CASES = state_cases()
REDUCTION = reduction_state_models()  # and the incomplete cases' machines


@pytest.mark.corpus
@pytest.mark.parametrize("case", STATE_CASES, ids=[f"{c.folder}/{c.name}" for c in STATE_CASES])
def test_state_case_submits(case: Case) -> None:
    model = ir.resolve([ir.parse(case.text, str(case.path))])
    assert model.behaviors("state") or model.behaviors("part"), "the case declares a machine or a part"


@pytest.mark.corpus
@pytest.mark.parametrize("path", REDUCTION, ids=[p.stem for p in REDUCTION])
def test_other_machine_submits(path: Path) -> None:
    model = ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))])
    assert model.behaviors("state")


@pytest.mark.corpus
def test_every_state_family_is_there() -> None:
    """The corpus's 70 state-family cases and conformance-more's 12 state and instance cases."""
    assert len(STATE_CASES) >= 82, len(STATE_CASES)


def machines(model: ir.Model) -> list[StateGraph]:
    """Every machine a model declares at package level, and every one its parts exhibit."""
    out: list[StateGraph] = []
    for el in model.walk():
        if el.owner is None or el.owner.kind != "package" or el.decl is None:
            continue
        if el.base_kind == "state":
            out.append(lower_state(model, el))
        elif el.base_kind == "part":
            out.extend(exhibited_machines(model, el))
    return out


@pytest.mark.corpus
@pytest.mark.parametrize("case", STATE_CASES, ids=[f"{c.folder}/{c.name}" for c in STATE_CASES])
def test_state_case_lowers(case: Case) -> None:
    model = ir.resolve([ir.parse(case.text, str(case.path))])
    graphs = machines(model)
    if case.kind == "state":
        assert graphs, "a machine to run"  # an instance case's parts may only perform actions
    for g in graphs:
        assert g.root.index == 0 and all(st.index == i for i, st in enumerate(g.states))
        for region in g.regions:
            assert region.states, f"{g.name}: region {region.name} holds no state"
            assert all(g.states[i].region == region.index for i in region.states)


@pytest.mark.corpus
@pytest.mark.parametrize("path", REDUCTION, ids=[p.stem for p in REDUCTION])
def test_other_machine_lowers(path: Path) -> None:
    model = ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))])
    assert machines(model)


INSTANCE_CASES = [c for c in STATE_CASES if "instantiate" in c.expected]


@pytest.mark.corpus
@pytest.mark.parametrize("case", INSTANCE_CASES, ids=[f"{c.folder}/{c.name}" for c in INSTANCE_CASES])
def test_every_object_with_a_final_state_runs_a_machine(case: Case) -> None:
    """Each object the case expects a final state of is a part (by its path) exhibiting a machine."""
    model = ir.resolve([ir.parse(case.text, str(case.path))])
    part = model.element(case.expected["instantiate"])
    assert part is not None
    paths = [path for path, _ in instance_machines(model, part)]
    for obj in case.expected.get("objects", []):
        if "finalState" in obj:
            assert obj.get("path", "") in paths, (obj.get("path", ""), paths)
