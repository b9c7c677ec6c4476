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
