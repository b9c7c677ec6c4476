"""examples/door.sysml runs as the README's tour shows: two regions, a timer, a guard that reads
what the other region wrote, and a misspelt signal refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.session import Session

DOOR = str(Path(__file__).resolve().parents[2] / "examples" / "door.sysml")


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["run", DOOR, "--state", "Door", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_an_open_door_closes_by_itself_after_30_s(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--send", "Open", "--advance", "30")
    assert doc["finalState"] == "free+closed"
    assert doc["stateVisits"] == ["operating", "closed", "free", "open", "closed"]
    assert doc["outputs"] == {"locked": "false", "openings": "1"}


def test_before_30_s_it_is_still_open(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_json(capsys, "--send", "Open", "--advance", "29")["finalState"] == "free+open"


def test_an_engaged_latch_refuses_open(capsys: pytest.CaptureFixture[str]) -> None:
    doc = run_json(capsys, "--send", "Lock", "--send", "Open")
    assert doc["finalState"] == "engaged+closed"
    assert doc["outputs"] == {"locked": "true", "openings": "0"}


def test_the_tour_at_the_prompt() -> None:
    session = Session()
    execute(session, f"%load {DOOR}")
    assert list(execute(session, "%state Door").lines)[-1] == "● free+closed at t=0.0"
    execute(session, "%send Lock")
    assert list(execute(session, "%send Open").lines) == [
        "sent Open (pool: Lock, Open); %continue or %step dispatches it"]
    out = list(execute(session, "%continue").lines)
    assert out[-1] == "● engaged+closed at t=0.0"
    assert "transition: free -> engaged (event: accept Lock)" in out
    assert list(execute(session, "%current").lines) == [
        "operating", "  leaf", "    closed", "  latch", "    engaged", "locked = true", "openings = 0"]
