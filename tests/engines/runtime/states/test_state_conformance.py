"""The conformance harness for machines: every state, object and w6e case of the corpus, and the
state and instance cases of conformance-more, run under the default schedule (or the one a case pins).

Each case's default run must reach the `finalState`, `stateVisits` and `outputs` its expected.json
states (or exactly one of its admissible `outcomes`), and write its `.trace.golden` byte for byte. A
case not handled yet is listed in known_failures.txt beside this file with its reason and runs as a
strict xfail, so a fix is noticed; a case whose files disagree is reported as disputed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus_cases import Case, cases
from tests.engines.runtime import conformance_summary as summary
from tests.engines.runtime.states.conformance import verdict

KNOWN_FAILURES = Path(__file__).with_name("known_failures.txt")
KINDS = ("state", "instance")


MACHINE_CASES = [c for folder in ("conformance", "conformance-more") for kind in KINDS for c in cases(kind, folder)]
KNOWN = summary.known_failures(KNOWN_FAILURES)


@pytest.mark.corpus
@pytest.mark.parametrize("case", MACHINE_CASES, ids=[f"{c.folder}/{c.name}" for c in MACHINE_CASES])
def test_machine_case_default_run(case: Case) -> None:
    summary.judge(case, verdict(case), KNOWN)


@pytest.mark.corpus
def test_known_failures_name_real_cases() -> None:
    names = {c.name for c in MACHINE_CASES}
    assert set(KNOWN) <= names, sorted(set(KNOWN) - names)
    assert all(KNOWN.values()), "every known failure states its reason"


@pytest.mark.corpus
def test_machine_cases_are_all_found() -> None:
    """70 state, object and w6e cases in the corpus, 7 state and 5 instance cases beside it."""
    by_folder = {f: sum(1 for c in MACHINE_CASES if c.folder == f) for f in ("conformance", "conformance-more")}
    assert by_folder == {"conformance": 70, "conformance-more": 12}, by_folder
