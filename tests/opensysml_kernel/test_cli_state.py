"""`run FILE --state M [--send E]... [--events F] [--advance T] [--json]`: a machine driven by the
environment, its final configuration, visits and values; bad input exits 2 with a clear message."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opensysml_kernel.cli import main

DOOR = """
package door {
    private import SI::*;
    attribute def Open; attribute def Close; attribute def Lock;
    attribute def Code { attribute digits : ScalarValues::Integer; }
    state Door {
        attribute opened : ScalarValues::Integer = 0;
        attribute last : ScalarValues::Integer = 0;
        entry; then closed;
        state closed;
        state open { entry { assign opened := opened + 1; } }
        state locked;
        transition first closed accept Open then open;
        transition first open accept Close then closed;
        transition first open accept after 10 [s] then closed;
        transition first closed accept c : Code do assign last := c.digits then locked;
    }
}
"""


@pytest.fixture
def door(tmp_path: Path) -> str:
    path = tmp_path / "door.sysml"
    path.write_text(DOOR)
    return str(path)


def test_sends_in_order_and_reports_the_configuration(door: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", door, "--state", "Door", "--send", "Open", "--send", "Close", "--send", "Open"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "✓ State machine door::Door: open", "  visits: closed, open, closed, open", "  last = 0", "  opened = 2"]


def test_advance_lets_the_timer_fire(door: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", door, "--state", "Door", "--send", "Open", "--advance", "10 [s]", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["finalState"] == "closed"
    assert document["stateVisits"] == ["closed", "open", "closed"]
    assert "transition: open -> closed (event: time)" in document["trace"]


def test_advance_short_of_the_timer_leaves_the_door_open(door: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", door, "--state", "Door", "--send", "Open", "--advance", "9.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["finalState"] == "open"


def test_events_file_with_arguments(door: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events = tmp_path / "events.json"
    events.write_text(json.dumps([{"signal": "Code", "args": {"digits": {"type": "Integer", "value": 42}}}]))
    assert main(["run", door, "--state", "Door", "--events", str(events), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["finalState"] == "locked" and document["outputs"]["last"] == "42"


@pytest.mark.parametrize(("args", "message"), [
    (["--send", "Opne"], "names the signal 'Opne'"),
    (["--advance", "-1"], "time only moves forward"),
    (["--advance", "abc"], "'abc' is not a duration"),
    (["--send", "Open("], "is not an event"),
])
def test_bad_input_exits_2_and_says_what(door: str, capsys: pytest.CaptureFixture[str], args: list[str],
                                         message: str) -> None:
    assert main(["run", door, "--state", "Door", *args]) == 2
    out = capsys.readouterr()
    assert message in out.err and out.out == ""


def test_send_without_a_machine_is_refused(door: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", door, "--action", "Door", "--send", "Open"]) == 2
    assert "use them with --state" in capsys.readouterr().err


# A guard shuts down: its `stop` terminate usage ends the machine, which then has no configuration;
# a `terminate;` statement in an entry or in an effect given as statements ends that behavior only
# (as `then terminate;` ends a behavior given as a flow), where it had escaped as an internal error.
GUARD = """
package guard {
    private import ScalarValues::*;
    attribute def Alarm;
    state Guard {
        attribute armed : Integer = 0;
        attribute logged : Integer = 0;
        entry; then watching;
        state watching { entry { assign armed := 1; terminate; } }
        transition first watching accept Alarm do { assign logged := 1; terminate; } then stop;
        action stop terminate;
    }
}
"""


def test_a_terminated_machine_reports_no_state_and_says_it_terminated(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "guard.sysml"
    path.write_text(GUARD)
    assert main(["run", str(path), "--state", "Guard"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "✓ State machine guard::Guard: watching", "  visits: watching", "  armed = 1", "  logged = 0"]
    assert main(["run", str(path), "--state", "Guard", "--send", "Alarm", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["finalState"] is None and document["terminated"] is True
    assert document["outputs"] == {"armed": "1", "logged": "1"} and document["stateVisits"] == ["watching"]
    assert main(["run", str(path), "--state", "Guard", "--send", "Alarm"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "✓ State machine guard::Guard: (terminated)"


ALARM = """package Al { private import ScalarValues::*;
  attribute def Emergency;
  state def Alarm {
    attribute rings : Integer := 0;
    attribute seen : Integer := 0;
    entry; then quiet;
    state quiet;
    state ringing;
    transition first quiet accept Emergency do assign seen := rings then ringing;
    transition first quiet accept after 30 [s] do assign rings := rings + 1 then quiet;
    transition first ringing accept after 60 [s] then quiet;
  }
}
"""


def test_sends_and_advances_are_taken_in_the_order_given(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--advance 40 --send Emergency --advance 100: the quiet timer rings at 30, the emergency comes at 40
    (seen 1), ringing ends at 100, quiet rings again at 130, and at 140 the alarm is quiet with 2 rings.
    Every send had gone at t=0 and only the last advance counted (ringing, 0 rings)."""
    path = tmp_path / "alarm.sysml"
    path.write_text(ALARM)
    assert main(["run", str(path), "--state", "Alarm", "--advance", "40", "--send", "Emergency",
                 "--advance", "100"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "✓ State machine Al::Alarm: quiet", "  visits: quiet, quiet, ringing, quiet, quiet", "  rings = 2", "  seen = 1"]
    assert main(["check", str(path), "--state", "Alarm", "--advance", "40", "--advance", "50"]) == 2
    assert "check takes one --advance, the horizon" in capsys.readouterr().err


def test_a_machine_run_reports_its_behaviors_false_assertions(capsys: pytest.CaptureFixture[str]) -> None:
    """heater_asserts.sysml driven by Go three times: idle, heating, idle, heating. The second entry
    warms to 4 (low: level <= 1 is false) and the second boost ends at 6 (capped: <= 3 is false); the
    second exit of idle counts 2 (twice holds). The run says so and exits 1; once Go alone, nothing."""
    model = str(Path(__file__).resolve().parents[1] / "engines/check/fresh_machines/heater_asserts.sysml")
    code = main(["run", model, "--state", "oven::Heater", "--send", "Go", "--send", "Go", "--send", "Go", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1 and document["status"] == "completed"
    assert document["violations"] == ["oven::Heater::boost.capped", "oven::Heater::warm.low"]
    assert document["outputs"]["level"] == "6" and document["outputs"]["cycles"] == "2"
    code = main(["run", model, "--state", "oven::Heater", "--send", "Go"])
    out = capsys.readouterr().out
    assert code == 0 and "violation" not in out and out.startswith("✓ State machine oven::Heater: heating")


def test_an_instance_run_reports_its_machines_false_assertions(capsys: pytest.CaptureFixture[str]) -> None:
    """bakery_asserts.sysml: Go three times to both ovens brings each heater to heating at level 2, where
    warm.low (level <= 1) is false; each oven's heater's level is a slot of its object, the stock the
    bakery performs loads 3 trays. Go once: nothing false."""
    model = str(Path(__file__).resolve().parents[1] / "engines/check/fresh_machines/bakery_asserts.sysml")
    code = main(["run", model, "--instantiate", "bakery::bakery", "--send", "Go", "--send", "Go", "--send", "Go",
                 "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1 and document["status"] == "completed"
    assert document["violations"] == ["bakery::Oven::heater::warm.low"]
    assert [(o["path"], o["finalState"], o["slots"]) for o in document["objects"]] == [
        ("left", "heating", {"heater.level": "2"}), ("right", "heating", {"heater.level": "2"})]
    assert document["outputs"]["stock.trays"] == "3"  # the performed action's feature, by its name
    code = main(["run", model, "--instantiate", "bakery::bakery", "--send", "Go"])
    out = capsys.readouterr().out
    assert code == 0 and "violation" not in out and "heater.level = 1" in out


def test_an_instance_check_names_what_it_judges(capsys: pytest.CaptureFixture[str]) -> None:
    """The part's own assertion is checked at every stable state, the behaviors' and the performed
    action's steps' where each performance ends; three Go break warm.low, with a witness (exit 1)."""
    model = str(Path(__file__).resolve().parents[1] / "engines/check/fresh_machines/bakery_asserts.sysml")
    code = main(["check", model, "--instantiate", "bakery::bakery", "--send", "Go", "--send", "Go", "--send", "Go"])
    out = capsys.readouterr().out
    assert code == 1
    assert "  asserted: bakery::bakery::opened is checked at every stable state" in out
    assert "  asserted: bakery::Bakery::stock::load.fits is checked where each performance of step load ends" in out
    assert "  asserted: bakery::Oven::heater::warm.low is checked where each performance of behavior warm ends" in out
    assert "  violation: bakery::Oven::heater::warm.low is false after" in out
    assert "opened is false" not in out and "fits is false" not in out

