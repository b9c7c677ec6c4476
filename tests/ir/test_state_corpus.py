"""Every state-machine and instance case of the corpus (and the reduction folder's machines) is
submitted: it parses and resolves with no error."""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
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

