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


def test_a_nested_steps_assertion_is_said_not_judged(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An assertion of a nested step holds while that step performs, which the check does not judge
    yet: it says so rather than dropping it unsaid (and claims no violation it did not look for)."""
    assert main(["check", _model(tmp_path, NESTED), "--action", "Nested"]) == 0
    text = capsys.readouterr().out
    assert "  not judged: checkSum.notThirteen, asserted by a nested step" in text
    assert "violation" not in text.replace("no violation", "")
