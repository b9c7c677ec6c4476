"""The machine half of the referee set: every model in tests/referee/states run through the tool as
`run FILE --state M --send E --advance T` and `%instantiate` do, its answer judged against the answer
derived from the semantics. A case the tool gets wrong today is a strict xfail whose reason is the
expectation's `xfail` line; a case whose expectation is `unclear` is left out (the reason shown).
scripts/referee.py runs the same set through the peer kernel and prints every disagreement."""

from __future__ import annotations

import pytest

from tests.referee.machines import (
    KEYS,
    MACHINE_CLASSES,
    MODELS,
    MachineCase,
    judge_machine,
    load_machine_cases,
    run_ours,
)

CASES = load_machine_cases()


def _param(case: MachineCase) -> object:
    marks: list[pytest.MarkDecorator] = []
    if "unclear" in case.spec:
        marks.append(pytest.mark.skip(reason=f"unclear: {case.spec['unclear']}"))
    elif "xfail" in case.spec:
        marks.append(pytest.mark.xfail(strict=True, reason=f"[{case.klass}] {case.spec['xfail']}"))
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_machine_referee_case(case: MachineCase) -> None:
    problems = judge_machine(case, run_ours(case))
    assert not problems, f"{case.name} [{case.klass}]: " + "; ".join(problems)


def test_every_machine_expectation_is_well_formed() -> None:
    for case in CASES:
        assert case.klass in MACHINE_CLASSES, f"{case.name}: unknown class {case.klass}"
        assert set(case.spec) <= KEYS, f"{case.name}: unknown keys {set(case.spec) - KEYS}"
        assert case.spec.get("about"), f"{case.name}: say what the model is and why the answer is what it is"
        assert ("state" in case.spec) != ("instantiate" in case.spec), f"{case.name}: a state or an instantiate"
        assert any(k in case.spec for k in ("finalState", "outputs", "objects", "status", "run_error", "refused")), \
            f"{case.name}: nothing expected"
        assert all(verb in ("send", "post", "advance") for verb, _ in case.drive), f"{case.name}: drive verbs"


def test_every_machine_xfail_is_in_the_list_of_cases_wrong_when_written() -> None:
    listed = {line.strip() for line in (MODELS.parent / "wrong_when_written.txt").read_text(encoding="utf-8")
              .splitlines() if line.strip() and not line.startswith("#")}
    missing = sorted(c.name for c in CASES if "xfail" in c.spec and c.name not in listed)
    assert not missing, f"add to tests/referee/wrong_when_written.txt (scripts/referee.py counts them as fixed): {missing}"


def test_each_machine_class_has_three_models_of_its_own() -> None:
    counts = dict.fromkeys(MACHINE_CLASSES, 0)
    for case in CASES:
        counts[case.klass] += 1
    thin = {k: n for k, n in counts.items() if n < 3}
    assert not thin, f"machine classes with fewer than three models: {thin}"
