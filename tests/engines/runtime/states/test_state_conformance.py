"""The conformance harness for machines: every state, object and w6e case of the corpus, and the
state and instance cases of conformance-more, run under the default schedule (or the one a case pins).

Each case's default run must reach the `finalState`, `stateVisits` and `outputs` its expected.json
states (or exactly one of its admissible `outcomes`), and write its `.trace.golden` byte for byte. A
case not handled yet is listed in known_failures.txt beside this file with its reason and runs as a
strict xfail, so a fix is noticed; a case whose files disagree is reported as disputed. A golden
recorded by an older executor (disputed_goldens.txt, with the evidence) is disputed too, but its
outcome must still match and its trace must match once ours is written in that executor's form.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus_cases import Case, cases
from tests.engines.runtime import conformance_summary as summary
from tests.engines.runtime.states.conformance import older_form, verdict

KNOWN_FAILURES = Path(__file__).with_name("known_failures.txt")
OLDER_GOLDENS = Path(__file__).with_name("disputed_goldens.txt")
KINDS = ("state", "instance")


MACHINE_CASES = [c for folder in ("conformance", "conformance-more") for kind in KINDS for c in cases(kind, folder)]
KNOWN = summary.known_failures(KNOWN_FAILURES)
OLDER = summary.known_failures(OLDER_GOLDENS)


@pytest.mark.corpus
@pytest.mark.parametrize("case", MACHINE_CASES, ids=[f"{c.folder}/{c.name}" for c in MACHINE_CASES])
def test_machine_case_default_run(case: Case) -> None:
    if case.name in OLDER:
        problems = verdict(case, older_golden=True)
        assert not problems, "\n".join(problems)  # its outcome, and its trace in the older form, still hold
        summary.record(case, "disputed", OLDER[case.name])
        pytest.skip(f"disputed: {OLDER[case.name]}")
    summary.judge(case, verdict(case), KNOWN)


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(OLDER))
def test_disputed_golden_departs_only_in_the_older_form(name: str) -> None:
    """A golden adjudicated as recorded by the older executor really departs from our trace: the
    listed case fails the byte-for-byte comparison (else it belongs with the passing cases)."""
    case = next(c for c in MACHINE_CASES if c.name == name)
    assert "the trace differs from the golden trace" in verdict(case)
    assert not set(OLDER) & set(KNOWN)


@pytest.mark.corpus
def test_known_failures_name_real_cases() -> None:
    names = {c.name for c in MACHINE_CASES}
    assert set(KNOWN) <= names, sorted(set(KNOWN) - names)
    assert set(OLDER) <= names, sorted(set(OLDER) - names)
    assert all(KNOWN.values()), "every known failure states its reason"


@pytest.mark.corpus
def test_machine_cases_are_all_found() -> None:
    """70 state, object and w6e cases in the corpus, 7 state and 5 instance cases beside it."""
    by_folder = {f: sum(1 for c in MACHINE_CASES if c.folder == f) for f in ("conformance", "conformance-more")}
    assert by_folder == {"conformance": 70, "conformance-more": 12}, by_folder


def test_older_form_lifts_an_anonymous_body_and_drops_a_sent_type_name() -> None:
    newer = ["exit: s (exit action)", "stmt action body", "  stmt assign log", "      eval feature log -> 1",
             "    eval operator + -> 12", "stmt assign log", "  eval literal 9 -> 9",
             "enter: w (entry action)", "stmt action body", "  stmt send", "    eval feature Ping -> test::Ping()",
             "stmt send", "  eval feature shutDown -> instance#1"]
    assert older_form(newer) == [
        "exit: s (exit action)", "stmt assign log", "    eval feature log -> 1", "  eval operator + -> 12",
        "stmt assign log", "  eval literal 9 -> 9", "enter: w (entry action)", "stmt send",
        "stmt send", "  eval feature shutDown -> instance#1"]
