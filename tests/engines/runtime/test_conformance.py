"""The conformance harness: every action case of the corpus and of conformance-more beside it, run
under the default schedule.

Each case's default run must end with the `outputs` (or the `error`) its expected.json states, or with
one of its admissible `outcomes`, and must write its `.trace.golden` byte for byte. A case the
runtime does not handle yet is listed in known_failures.txt with its reason and runs as a strict
xfail, so a fix is noticed; the five cases whose files disagree are reported as disputed. The
summary table (passed / failed / known failures / disputed) is printed at the end of the session.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
from engines.errors import RunError
from engines.runtime import Program
from tests.corpus_cases import Case, cases, entry, same_value
from tests.engines.runtime import conformance_summary as summary

KNOWN_FAILURES = Path(__file__).with_name("known_failures.txt")


ACTION_CASES = cases("action") + cases("action", "conformance-more")
KNOWN = summary.known_failures(KNOWN_FAILURES)


def default_run(case: Case) -> tuple[dict[str, str], list[str], str | None]:
    """Outputs, trace and error (None when it completed) of the case's default run."""
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
        run = Program(model).start_action(entry(case, model))
    except ir.SysmlError as err:
        return {}, [], str(err)
    try:
        run.run_to_end()
    except RunError as err:
        return run.outputs(), run.trace, str(err)
    return run.outputs(), run.trace, None


def verdict(case: Case) -> list[str]:
    """Every way the default run departs from the case's expectation; empty when it conforms."""
    outputs, trace, error = default_run(case)
    problems: list[str] = []
    expected = case.expected
    if "error" in expected:
        if error is None or expected["error"] not in error:
            problems.append(f"expected the error {expected['error']!r}, got {error!r}")
        return problems
    if "outcomes" in expected:
        matches = []
        for i, outcome in enumerate(expected["outcomes"], start=1):
            if "error" in outcome:
                if error is not None and outcome["error"] in error:
                    matches.append(i)
            elif error is None and all(same_value(v, outputs.get(k)) for k, v in outcome["outputs"].items()):
                matches.append(i)
        if len(matches) != 1:
            problems.append(f"the default run matches outcomes {matches} (error {error!r}, outputs {outputs})")
    else:
        if error is not None:
            problems.append(f"the run failed: {error}")
        for key, value in expected.get("outputs", {}).items():
            if not same_value(value, outputs.get(key)):
                problems.append(f"{key}: expected {value.get('value')!r}, got {outputs.get(key)!r}")
    if case.golden is not None and case.golden != "\n".join(trace) + "\n":
        problems.append("the trace differs from the golden trace")
    return problems


@pytest.mark.corpus
@pytest.mark.parametrize("case", ACTION_CASES, ids=[f"{c.folder}/{c.name}" for c in ACTION_CASES])
def test_action_case_default_run(case: Case) -> None:
    summary.judge(case, verdict(case), KNOWN)


@pytest.mark.corpus
def test_known_failures_name_real_cases() -> None:
    names = {c.name for c in ACTION_CASES}
    assert set(KNOWN) <= names, sorted(set(KNOWN) - names)
    assert all(KNOWN.values()), "every known failure states its reason"


def _pass_rate(folders: tuple[str, ...]) -> tuple[int, int]:
    deterministic = [c for c in ACTION_CASES if c.folder in folders and c.deterministic and not c.disputed]
    return sum(1 for c in deterministic if not verdict(c)), len(deterministic)


def test_deterministic_action_cases_pass_rate() -> None:
    """At least 90% of the corpus's own deterministic action cases conform."""
    passing, total = _pass_rate(("conformance",))
    assert passing >= 0.9 * total, (passing, total)


@pytest.mark.corpus
def test_both_folders_reach_the_issue_target() -> None:
    passing, total = _pass_rate(("conformance", "conformance-more"))
    assert passing >= 0.95 * total, (passing, total)
