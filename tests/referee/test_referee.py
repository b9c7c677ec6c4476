"""The referee set: every model in tests/referee/models run through the tool (submit, the default
run, and the check engine where the expectation asks), its answer judged against the answer derived
from the semantics. A case the tool gets wrong today is a strict xfail whose reason is the
expectation's `xfail` line; a case whose expectation is `unclear` is left out (the reason shown).
scripts/referee.py runs the same set through the peer kernel and prints every disagreement."""

from __future__ import annotations

import pytest

from tests.referee.cases import CLASSES, MODELS, Case, judge, load_cases, run_ours

CASES = load_cases()


def _param(case: Case) -> object:
    marks: list[pytest.MarkDecorator] = []
    if "unclear" in case.spec:
        marks.append(pytest.mark.skip(reason=f"unclear: {case.spec['unclear']}"))
    elif "xfail" in case.spec:
        marks.append(pytest.mark.xfail(strict=True, reason=f"[{case.klass}] {case.spec['xfail']}"))
    return pytest.param(case, id=case.name, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_referee_case(case: Case) -> None:
    problems = judge(case, run_ours(case))
    assert not problems, f"{case.name} [{case.klass}]: " + "; ".join(problems)


def test_every_expectation_is_well_formed() -> None:
    known = {"class", "xfail", "unclear", "about", "action", "performer", "outputs", "only_outputs", "names_in_model",
             "run_error", "refused", "refused_kind", "refusal_ok", "check"}
    for case in CASES:
        assert case.klass in CLASSES, f"{case.name}: unknown class {case.klass}"
        assert set(case.spec) <= known, f"{case.name}: unknown keys {set(case.spec) - known}"
        assert case.spec.get("about"), f"{case.name}: say what the model is and why the answer is what it is"
        assert any(k in case.spec for k in ("outputs", "run_error", "refused", "check")), \
            f"{case.name}: nothing expected"
        if "check" in case.spec:
            assert case.spec["check"]["verdict"] in ("holds", "divergent", "violation", "refused"), case.name


def test_every_xfail_is_in_the_list_of_cases_wrong_when_written() -> None:
    listed = {line.strip() for line in (MODELS.parent / "wrong_when_written.txt").read_text(encoding="utf-8")
              .splitlines() if line.strip() and not line.startswith("#")}
    missing = sorted(c.name for c in CASES if "xfail" in c.spec and c.name not in listed)
    assert not missing, f"add to tests/referee/wrong_when_written.txt (scripts/referee.py counts them as fixed): {missing}"


def test_each_class_has_three_models_of_its_own() -> None:
    counts = {k: 0 for k in CLASSES}
    for case in CASES:
        counts[case.klass] += 1
    thin = {k: n for k, n in counts.items() if n < 3 and k != "construct"}
    assert not thin, f"classes with fewer than three models: {thin}"
