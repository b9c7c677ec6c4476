"""After a violation the check goes on: every outcome the schedules reach is still reported, the
ones whose final state violates a property named with it and given a witness that replays to that
end; in the text, the HTML and the JSON, through the Session and the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.session import Session

# A booking counter: two clerks each read `count` (the if's guard is a move of its own) and book
# when it is under the limit. When both read 0 before either books, count ends 2; otherwise the
# second sees 1 and count ends 1. The requirement count <= 1 is broken only on the first kind.
COUNTER = """package Booking {
    private import ScalarValues::*;
    requirement oneSeat { count <= 1 }
    requirement neverNegative { count >= 0 }
    action sell {
        attribute count : Integer := 0;
        first start;
        then fork f;
            then clerkA;
            then clerkB;
        action clerkA { if count < 1 { assign count := count + 1; } }
        action clerkB { if count < 1 { assign count := count + 1; } }
        join j;
        succession clerkA then j;
        succession clerkB then j;
        then done;
    }
    // A balance that dips below zero on some schedules (a withdrawal of 3 before the deposit of 5)
    // and ends 4 on every one.
    requirement solvent { balance >= 0 }
    action rebalance {
        attribute balance : Integer := 2;
        first start;
        then fork f;
            then withdraw;
            then deposit;
        action withdraw { assign balance := balance - 3; }
        action deposit { assign balance := balance + 5; }
        join j;
        succession withdraw then j;
        succession deposit then j;
        then done;
    }
}
"""


@pytest.fixture
def booking() -> Session:
    session = Session()
    session.submit(COUNTER, "booking.sysml")
    return session


@pytest.fixture
def model(tmp_path: Path) -> str:
    path = tmp_path / "booking.sysml"
    path.write_text(COUNTER)
    return str(path)


def test_the_violating_outcome_is_listed_beside_the_others(booking: Session) -> None:
    execute(booking, "%check-property oneSeat")
    report = execute(booking, "%action sell")
    lines = report.lines
    assert lines[0].startswith("✗ Action Booking::sell: violation")
    assert "  violation: Booking::oneSeat is false after 8 moves (witness 2)" in lines
    assert "  outcome: count = 1 (witness 1)" in lines
    ending = [line for line in lines if line.startswith("  outcome: count = 2")]
    assert len(ending) == 1 and ending[0].startswith("  outcome: count = 2 (violates Booking::oneSeat; witness ")


def test_the_violating_outcomes_witness_replays_to_its_end(booking: Session) -> None:
    execute(booking, "%check-property oneSeat")
    report = execute(booking, "%action sell")
    outcome = next(o for o in report.outcomes if o.violates)
    assert dict(outcome.values) == {"count": "2"}
    execute(booking, f"%replay {outcome.witness}")
    execute(booking, "%action sell")
    execute(booking, "%continue")
    assert booking.outputs() == {"count": "2"}


def test_a_transient_violation_still_reports_the_final_value(booking: Session) -> None:
    execute(booking, "%check-property solvent")
    lines = execute(booking, "%action rebalance").lines
    assert any(line.startswith("  violation: Booking::solvent is false after") for line in lines)
    # the final state holds the requirement: the outcome is not marked
    assert "  outcome: balance = 4" in lines


def test_a_property_that_holds_marks_no_outcome(booking: Session) -> None:
    execute(booking, "%check-property neverNegative")
    lines = execute(booking, "%action sell").lines
    assert lines[0].startswith("✗ Action Booking::sell: divergent")
    assert "  outcome: count = 1 (witness 1)" in lines and "  outcome: count = 2 (witness 2)" in lines


def test_html_names_the_violating_outcome(booking: Session) -> None:
    execute(booking, "%check-property oneSeat")
    page = execute(booking, "%action sell").html()
    assert "count = 2 (violates Booking::oneSeat)" in page
    assert "count = 1" in page


def test_cli_json_lists_every_outcome_with_what_it_violates(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", model, "--action", "sell", "--property", "oneSeat", "--json"]) == 1
    check = json.loads(capsys.readouterr().out)["checks"][0]
    assert check["verdict"] == "violation"
    found = {o["values"]["count"]: o["violates"] for o in check["outcomes"]}
    assert found == {"1": [], "2": ["Booking::oneSeat"]}
    marked = next(o for o in check["outcomes"] if o["violates"])
    assert 1 <= marked["witness"] <= len(check["witnesses"])


def test_cli_text_and_exit(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", model, "--action", "rebalance", "--property", "solvent"]) == 1
    out = capsys.readouterr().out
    assert "  outcome: balance = 4" in out
