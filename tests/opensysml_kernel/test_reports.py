"""The verdict report of a check: golden text, HTML tables and witness step tables, the JSON document."""

from __future__ import annotations

import json

from engines.framework import (
    BoundReport,
    Choice,
    Outcome,
    QuestionKind,
    Stats,
    Strength,
    Verdict,
    Violation,
    Witness,
)
from engines.framework import Result as EngineResult
from engines.witness import Claim, ClaimKind
from opensysml_kernel.reports import REPORT_MIME, Check, CheckReport, check_document
from opensysml_kernel.witness import StepRow

W1 = Witness("race::Race", "sha256:0123456789abcdef", "check", (Claim(ClaimKind.VALUE, "c", "2"),),
             (Choice(3, "2@a", ("2@a", "3@b")),), ("stmt assign c",))
W2 = Witness("race::Race", "sha256:0123456789abcdef", "check", (Claim(ClaimKind.VALUE, "c", "1"),),
             (Choice(3, "3@b", ("2@a", "3@b")),), ())


def divergent(base: int = 1) -> EngineResult:
    """The check engine's answer for a fork race (its witness references are 1-based)."""
    return EngineResult(
        "check", "test::ForkPlain", Verdict.DIVERGENT, Strength.WITNESSED, Stats(21, 22, 8),
        outcomes=(Outcome((("c", "1"),), 1, 0), Outcome((("c", "2"),), 1, 0)),
        divergent=(("c", (("1", base), ("2", base + 1))),), witnesses=(W1, W2),
        bounds=(BoundReport("depth", "10000", False), BoundReport("states", "1000000", False)))


def test_divergent_report_golden() -> None:
    report = CheckReport.build([Check(divergent())])
    assert report.text == """\
✗ Action test::ForkPlain: divergent (21 states, 22 moves, depth 8)
  divergent: c ends as 1 or 2
    c = 1 (witness 1)
    c = 2 (witness 2)
  outcome: c = 1
  outcome: c = 2
  standing: sensitive (witnessed: 21 states, 22 moves searched, 2 witnesses replayed)"""
    assert report.exit_status == 1


def test_witness_references_are_one_based_and_zero_is_none() -> None:
    check = Check(divergent())
    assert check.number(1) == 1
    assert check.number(0) is None
    assert check.number(len(check.result.witnesses) + 1) is None


def test_violation_deadlock_fails_and_bounds_golden() -> None:
    result = EngineResult(
        "check", "tank::Fill", Verdict.VIOLATION, Strength.WITNESSED, Stats(8, 9, 6),
        violations=(Violation("property", "tank::NeverNegative", 3, 1),
                    Violation("deadlock", "token 2@j, token 3@ack wait", 3, 2),
                    Violation("fails", "division by zero", 4, 3)),
        witnesses=(W1, W2, W1),
        bounds=(BoundReport("depth", "5", True), BoundReport("states", "1000000", False)))
    assert CheckReport.build([Check(result, ("w/tank.Fill-1.witness",))]).text == """\
✗ Action tank::Fill: violation (8 states, 9 moves, depth 6; bounds hit: depth 5)
  violation: tank::NeverNegative is false after 3 moves (witness 1)
  deadlock: token 2@j, token 3@ack wait (witness 2)
  fails: division by zero (witness 3)
  witness 1: w/tank.Fill-1.witness
  standing: violated (witnessed: 8 states, 9 moves searched, 3 witnesses replayed)"""


def test_holds_and_interrupted_golden() -> None:
    holds = EngineResult("check", "a::B", Verdict.EXHAUSTIVE, Strength.BOUNDED, Stats(4, 3, 3),
                         outcomes=(Outcome((("x", "1"),), 2, 0),))
    assert CheckReport.build([Check(holds)]).text == """\
✓ Action a::B: no violation, exhaustive (4 states, 3 moves, depth 3)
  outcome: x = 1
  standing: holds (bounded: 4 states, 3 moves searched)"""
    stopped = EngineResult("check", "a::B", Verdict.INCOMPLETE, Strength.OBSERVED, Stats(40, 39, 7),
                           incomplete="interrupted")
    report = CheckReport.build([Check(stopped)])
    assert report.text.splitlines()[1:] == ["  incomplete: interrupted",
                                            "  standing: undecided (observed: 40 states, 39 moves searched)"]
    assert report.exit_status == 2


def test_explore_table_golden() -> None:
    result = EngineResult("explore", "race::Race", Verdict.COMPLETE, Strength.WITNESSED, Stats(0, 24, 6, 4),
                          outcomes=(Outcome((("c", "2"),), 2, 1), Outcome((("c", "1"),), 2, 2)),
                          witnesses=(W1, W2), kind=QuestionKind.OUTCOMES)
    report = CheckReport.build([Check(result)])
    assert report.text == """\
✓ Action race::Race: 2 outcomes (4 runs, 24 moves, depth 6)
  outcome  linearizations  witness
  c = 2    2               1
  c = 1    2               2
  complete (4 runs)
  standing: 2 outcomes (witnessed: every linearization, 4 runs)"""
    assert report.exit_status == 0


def test_runs_failing_alike_in_different_states_are_told_apart() -> None:
    """Two outcomes failing with one error differ in the state they failed in: each row says it; a
    failure no other outcome shares is said alone."""
    error = "type mismatch: operator '*' is not defined for a Null and an Integer"
    result = EngineResult("explore", "race::Race", Verdict.COMPLETE, Strength.WITNESSED, Stats(0, 12, 5, 3),
                          outcomes=(Outcome((("r", "0"), ("v", "<unset>")), 1, 1, error),
                                    Outcome((("r", "0"),), 1, 2, error),
                                    Outcome((("r", "1"),), 1, 1, "division by zero")),
                          witnesses=(W1, W2), kind=QuestionKind.OUTCOMES)
    rows = [line.split("  ")[1] for line in CheckReport.build([Check(result)]).text.splitlines()[2:5]]
    assert rows == [f"fails: {error} (with r = 0, v = <unset>)", f"fails: {error} (with r = 0)",
                    "fails: division by zero"]


def test_all_flags_a_disagreement() -> None:
    explore = EngineResult("explore", "test::ForkPlain", Verdict.COMPLETE, Strength.WITNESSED, Stats(0, 9, 6, 2),
                           outcomes=(Outcome((("c", "1"),), 2, 1),), witnesses=(W1,), kind=QuestionKind.OUTCOMES)
    report = CheckReport.build([Check(divergent()), Check(explore)])
    assert report.text.splitlines()[-3:] == ["✗ disagreement: the engines reach different final states",
                                             "  check: c = 1; c = 2", "  explore: c = 1"]
    assert report.disagree and report.exit_status == 1


def test_html_has_header_tables_and_witness_steps() -> None:
    steps = (StepRow(1, "1@start", (), ()), StepRow(3, "2@a", ("3@b",), (("c", "0", "1"),)))
    page = CheckReport.build([Check(divergent(), steps=(steps, ()))]).html()
    assert "<span class='opensysml-badge opensysml-mark-fail'>✗ divergent</span>" in page
    assert "divergent (21 states" in page
    assert "<th>divergent feature</th>" in page
    assert "<th>bound</th>" in page and "<code>reached</code>" not in page
    assert page.count("<details") == 2
    assert "<summary>witness 1: c = 1</summary>" in page
    assert "<code>c: 0 → 1</code>" in page and "<code>3@b</code>" in page
    # A witness with no step table shows its text.
    assert "step 3: 3@b first of 2@a, 3@b" in page


def test_json_document_shape() -> None:
    report = CheckReport.build([Check(divergent(), ("out/test.ForkPlain-1.witness",))])
    document = report.document()
    assert document["status"] == "failed" and document["exit"] == 1
    (check,) = document["checks"]
    assert set(check) >= {"subject", "engine", "verdict", "strength", "stats", "bounds", "outcomes", "violations",
                          "divergent", "witnesses", "lines"}
    assert check["divergent"] == {"c": ["1", "2"]}
    assert check["stats"] == {"states": 21, "moves": 22, "depth": 8, "runs": 0}
    assert check["witnesses"][0] == {"path": "out/test.ForkPlain-1.witness", "behavior": "race::Race",
                                     "model": "sha256:0123456789abcdef", "claims": ["value c = 2"],
                                     "choices": ["step 3: 2@a first of 2@a, 3@b"], "ending": ""}
    assert check["witnessError"] is None
    assert check["witnesses"][1]["index"] == 2
    assert check["lines"] == report.text.splitlines()
    assert report._repr_mimebundle_()[REPORT_MIME] == document
    assert "application/json" not in report._repr_mimebundle_()  # JupyterLab would show it, not the HTML
    assert json.loads(report.to_json()) == document
    assert check_document([], "no such file 'x'") == {"status": "error", "exit": 2, "checks": [],
                                                      "error": "no such file 'x'"}
