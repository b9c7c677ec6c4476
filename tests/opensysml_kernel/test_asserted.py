"""`assert constraint` in an action or a state machine: the model's own claim about every performance,
checked by every check of the behavior (named or not), its witness replayed like a named property's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from opensysml_kernel.cli import main

BOOKING = """package booking {
    private import ScalarValues::*;
    action def Book {
        attribute seats : Integer := 1;
        assert constraint neverOverbooked { seats >= 0 }
        action alice { assign seats := seats - 1; }
        action bob { assign seats := seats - 1; }
    }
    action def Guarded {
        attribute seats : Integer := 2;
        assert constraint { seats >= 0 }
        action alice { assign seats := seats - 1; }
        action bob { assign seats := seats - 1; }
    }
}
"""

LEVEL = """package tank {
    private import ScalarValues::*;
    attribute def Fill;
    state def Level {
        attribute level : Integer := 0;
        assert constraint withinCapacity { level <= 2 }
        entry; then idle;
        state idle;
        transition first idle accept Fill do assign level := level + 1 then idle;
    }
}
"""


def _model(tmp_path: Path, text: str) -> str:
    path = tmp_path / "m.sysml"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("engine", ["check", "smt"])
def test_an_asserted_constraint_is_checked_without_being_named(tmp_path: Path, engine: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = _model(tmp_path, BOOKING)
    out = tmp_path / "w"
    assert main(["check", model, "--action", "Book", "--engine", engine, "--witness-dir", str(out)]) == 1
    text = capsys.readouterr().out
    assert "  asserted: booking::Book::neverOverbooked is checked at every stable state" in text
    found = re.search(r"  violation: booking::Book::neverOverbooked is false after 2 moves \(witness (\d)\)", text)
    assert found is not None, text
    # the witness names the assertion as a property claim, and replays to it
    assert main(["replay", model, "--witness", str(out / f"booking.Book-{found[1]}.witness")]) == 1
    assert "witness reproduced after 2 moves: property: booking::Book::neverOverbooked" in capsys.readouterr().out


def test_an_unnamed_assertion_that_holds_is_named_by_its_line(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", _model(tmp_path, BOOKING), "--action", "Guarded"]) == 0
    text = capsys.readouterr().out
    assert "  asserted: booking::Guarded::assert@11 is checked at every stable state" in text
    assert "standing: holds" in text


def test_naming_an_assertion_checks_it_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", _model(tmp_path, BOOKING), "--action", "Book", "--property", "neverOverbooked"]) == 1
    text = capsys.readouterr().out
    assert "asserted:" not in text
    assert text.count("violation: booking::Book::neverOverbooked") == 1


def test_explore_still_answers_a_model_with_assertions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """explore answers outcomes, not properties: the assertion is not its question, and not a refusal."""
    assert main(["check", _model(tmp_path, BOOKING), "--action", "Book", "--engine", "explore"]) == 0
    text = capsys.readouterr().out
    assert "outcome" in text and "asserted:" not in text


def test_a_machine_assertion_is_checked_against_the_environment(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    model = _model(tmp_path, LEVEL)
    drive = ["--alphabet", "Fill", "--diverge", "finalState"]
    assert main(["check", model, "--state", "Level", *drive, "--max-events", "2"]) == 0
    text = capsys.readouterr().out
    assert "asserted: tank::Level::withinCapacity" in text and "standing: holds" in text
    assert main(["check", model, "--state", "Level", *drive, "--max-events", "3"]) == 1
    text = capsys.readouterr().out
    assert "violation: tank::Level::withinCapacity is false after" in text
    assert "(violates tank::Level::withinCapacity" in text


def test_a_run_that_ends_violating_an_assertion_says_so_and_exits_1(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    model = _model(tmp_path, BOOKING)
    assert main(["run", model, "--action", "Book"]) == 1
    assert capsys.readouterr().out.splitlines() == [
        "✗ Action booking::Book completed",
        "  seats = -1",
        "  violation: booking::Book::neverOverbooked (asserted) is false at the end",
    ]
    assert main(["run", model, "--action", "Guarded", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["status"] == "completed" and document["violations"] == []
    assert main(["run", model, "--action", "Book", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["violations"] == ["booking::Book::neverOverbooked"]


NESTED = """package sums {
    private import ScalarValues::*;
    action Nested {
        attribute s : Integer := 0;
        first start;
        then action prep { assign s := 13; }
        then action checkSum { assert constraint notThirteen { s != 13 } }
        then done;
    }
}
"""


LEDGER = """package audit {
    private import ScalarValues::*;
    action def Check {
        attribute limit : Integer := 5;
        attribute seen : Integer := 4;
        assert constraint underLimit { seen <= limit }
    }
    action Ledger {
        attribute balance : Integer := 0;
        first start;
        then fork f;
            then deposit;
            then withdraw;
        action deposit { assign balance := balance + 7; }
        action withdraw {
            assign balance := balance - 3;
            assert constraint nonNegative { balance >= 0 }
        }
        join j;
        succession deposit then j;
        succession withdraw then j;
        succession j then audit;
        action audit : Check;
        then done;
    }
}
"""


def test_a_nested_steps_assertion_is_judged_where_its_performance_ends(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """An assertion in a step's body is the step's claim about each of its performances, judged as one
    ends, in its frame: `Nested`'s check step sees s = 13 (false on every schedule); the ledger's withdrawal
    is false only where it runs before the deposit (balance -3), a schedule the default run does not take;
    the audit step's assertion comes from its definition and holds."""
    model = _model(tmp_path, NESTED)
    assert main(["run", model, "--action", "Nested"]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == \
        "  violation: sums::Nested::checkSum.notThirteen (asserted) was false where a performance of its step ended"
    assert main(["check", model, "--action", "Nested"]) == 1
    text = capsys.readouterr().out
    assert "  asserted: sums::Nested::checkSum.notThirteen is checked where each performance of step checkSum ends" \
        in text and "violation: sums::Nested::checkSum.notThirteen is false after 3 moves (witness 1)" in text
    ledger = _model(tmp_path, LEDGER)
    assert main(["run", ledger, "--action", "Ledger", "--json"]) == 1  # reverse: the withdrawal goes first
    assert json.loads(capsys.readouterr().out)["violations"] == ["audit::Ledger::withdraw.nonNegative"]
    assert main(["run", ledger, "--action", "Ledger", "--json", "--schedule", "declared"]) == 0
    assert json.loads(capsys.readouterr().out)["violations"] == []
    assert main(["check", ledger, "--action", "Ledger", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [v["text"] for v in document["checks"][0]["violations"]] == [
        "audit::Ledger::withdraw.nonNegative is false after 4 moves"]
    assert main(["check", ledger, "--action", "Ledger", "--property", "audit.underLimit"]) == 1
    text = capsys.readouterr().out
    assert "audit.underLimit is checked" not in text and "underLimit is false" not in text  # named: checked once
    assert main(["check", ledger, "--action", "Ledger", "--property", "underLimit"]) == 2
    assert "did you mean 'audit::Ledger::audit.underLimit'?" in capsys.readouterr().err
    two = _model(tmp_path, TWO_WITHDRAWALS)  # both steps assert `covered`: both are offered
    assert main(["check", two, "--action", "Ledger", "--property", "covered"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "did you mean 'bank::Ledger::big.covered', 'bank::Ledger::small.covered'?")


def test_every_schedule_says_what_its_steps_ended_with(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seeded schedules: one that takes the withdrawal first ends with the violation said (exit 1), one
    that deposits first ends clean (exit 0); smt refuses the nested assertion rather than judge it in the
    wrong frame."""
    ledger = _model(tmp_path, LEDGER)
    seeds = []
    for seed in range(1, 6):
        code = main(["run", ledger, "--action", "Ledger", "--schedule", f"seed:{seed}"])
        out = capsys.readouterr().out
        seeds.append((code, "withdraw.nonNegative (asserted) was false" in out))
    assert set(seeds) == {(0, False), (1, True)}
    pytest.importorskip("z3")
    assert main(["check", ledger, "--action", "Ledger", "--engine", "smt"]) == 2
    assert "not covered: an assertion of the nested step withdraw" in capsys.readouterr().out


PLACES = """package places {
    private import ScalarValues::*;
    action def Tick { inout k : Integer; assign k := k + 1; assert constraint small { k < 2 } }
    action def Review {
        attribute score : Integer := 3;
        first start;
        then action grade { assign score := score * 4; assert constraint passing { score < 10 } }
        then done;
    }
    action Loop {
        attribute n : Integer := 0;
        while n < 2 {
            assign n := n + 1;
            then action tick { assert constraint once { n < 2 } }
        }
    }
    action Branch {
        attribute n : Integer := 5;
        first start;
        then if n > 0 { action probe { assert constraint negative { n < 0 } } }
        then done;
    }
    action Typed {
        attribute n : Integer := 0;
        first start;
        then action run { for i in 1..3 { perform action t : Tick { inout k = n; } } }
        then done;
    }
    action Course {
        first start;
        then action final : Review;
        then done;
    }
    action InNode {
        attribute n : Integer := 0;
        first start;
        then action run {
            while n < 3 {
                assign n := n + 1;
                then action tally { assert constraint low { n < 3 } }
            }
        }
        then done;
    }
}
"""


@pytest.mark.parametrize("action, name", [
    ("Loop", "places::Loop::tick.once"),  # false on the second pass (n = 2)
    ("Branch", "places::Branch::probe.negative"),  # n is 5 in the branch
    ("Typed", "places::Typed::run.t.small"),  # k = 2 on the second performance
    ("Course", "places::Course::final.grade.passing"),  # Review's step: score 12
    ("InNode", "places::InNode::run.tally.low"),  # a pass's step inside a node's body: n = 3 on the third
])
def test_a_step_in_a_loop_a_branch_or_a_performed_definition_is_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str, name: str) -> None:
    """Wherever the step stands: a loop's body or an `if` branch (named after the step around the
    statement: the body's steps are its performance's), a `perform` in a loop, the steps of the definition
    a step is typed by (named after that step). Each ends violating on every schedule."""
    model = _model(tmp_path, PLACES)
    assert main(["run", model, "--action", action]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == \
        f"  violation: {name} (asserted) was false where a performance of its step ended"
    assert main(["check", model, "--action", action]) == 1
    text = capsys.readouterr().out
    assert f"  asserted: {name} is checked where each performance of step" in text
    assert f"  violation: {name} is false after" in text


TWO_WITHDRAWALS = """package bank {
    private import ScalarValues::*;
    action Ledger {
        attribute balance : Integer := 5;
        first start;
        then fork split;
            then deposit;
            then big;
            then small;
        action deposit { assign balance := balance + 4; }
        action big { assign balance := balance - 6; assert constraint covered { balance >= 0 } }
        action small { assign balance := balance - 2; assert constraint covered { balance >= 0 } }
        join settle;
        succession deposit then settle;
        succession big then settle;
        succession small then settle;
        succession settle then done;
    }
}
"""


def test_one_final_value_ending_with_different_assertions_broken_is_one_outcome_each(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """balance ends 1 on every schedule (5 + 4 - 6 - 2), but which withdrawal found it short depends on the
    order: none (deposit first), big alone (big first, or small then big before the deposit... small first
    leaves 3, big then -3), both (big, small, deposit). Three outcomes, each with a witness that replays
    what it claims; one row with the union of the names had no schedule behind it."""
    assert main(["check", _model(tmp_path, TWO_WITHDRAWALS), "--action", "Ledger"]) == 1
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith(("  outcome", "  not covered"))]
    assert [re.sub(r"; witness \d+|witness \d+", "", line) for line in lines] == [
        "  outcome: balance = 1 ()",
        "  outcome: balance = 1 (violates bank::Ledger::big.covered)",
        "  outcome: balance = 1 (violates bank::Ledger::big.covered, bank::Ledger::small.covered)",
    ]


@pytest.mark.parametrize("text, action", [(PLACES, a) for a in ("Loop", "Branch", "Typed", "Course", "InNode")]
                         + [(LEDGER, "Ledger"), (TWO_WITHDRAWALS, "Ledger"), (NESTED, "Nested")])
def test_what_a_run_says_broken_the_check_says_too(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   text: str, action: str) -> None:
    """One naming in both: each assertion a run (on any of five seeded schedules) ends with broken is one
    the check claims violated, by the same name."""
    model = _model(tmp_path, text)
    main(["check", model, "--action", action, "--json"])
    claimed = {v["text"].split(" is false")[0] for v in json.loads(capsys.readouterr().out)["checks"][0]["violations"]}
    for seed in range(1, 6):
        main(["run", model, "--action", action, "--json", "--schedule", f"seed:{seed}"])
        assert set(json.loads(capsys.readouterr().out)["violations"]) <= claimed, seed
