"""`%instantiate PART` and `run FILE --instantiate PART`: a part materialized with its parts, the
machines they exhibit started and stepped on one clock, a message one sends going to the machines
that accept it; events sent to an object; the JSON's `objects`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engines.errors import UnknownBehaviorError
from ir.errors import SysmlError
from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.errors import UsageError
from opensysml_kernel.session import Session

# A pinger that, on Go, counts and pings, and rests 5 s; a ponger that counts the pings it hears.
PLANT = """
package plant {
    private import ScalarValues::*;
    attribute def Go;
    attribute def Ping;
    part def Pinger {
        attribute sent : Integer = 0;
        exhibit state pinging {
            entry; then idle;
            state idle;
            state busy { entry { assign sent := sent + 1; send new Ping(); } }
            transition first idle accept Go then busy;
            transition first busy accept after 5 [s] then idle;
        }
    }
    part def Ponger {
        attribute heard : Integer = 0;
        exhibit state listening {
            entry; then quiet;
            state quiet;
            transition first quiet accept Ping do assign heard := heard + 1 then quiet;
        }
    }
    part def Plant {
        part pinger : Pinger;
        part ponger : Ponger;
    }
}
"""


@pytest.fixture
def session() -> Session:
    s = Session()
    s.submit(PLANT, "plant.sysml")
    return s


def lines(session: Session, line: str) -> list[str]:
    return list(execute(session, line).lines)


def test_instantiate_starts_every_machine(session: Session) -> None:
    out = lines(session, "%instantiate Plant")
    assert out[0] == "▶ Instance of plant::Plant started (schedule reverse)"
    assert out[-9:] == ["pinger", "  pinging", "    idle", "  sent = 0", "ponger", "  listening", "    quiet",
                        "  heard = 0", "● pinger: idle, ponger: quiet at t=0.0"]


def test_a_message_goes_to_the_machine_that_accepts_it(session: Session) -> None:
    execute(session, "%instantiate Plant")
    assert lines(session, "%send Go") == ["sent Go (pool: pinger: Go); %continue or %step dispatches it"]
    out = lines(session, "%continue")
    assert "move 3: pinger pinging: dispatch Go" in out and "move 6: ponger listening: dispatch Ping" in out
    assert lines(session, "%current")[-4:] == ["ponger", "  listening", "    quiet", "  heard = 1"]
    assert lines(session, "%tokens") == ["pinger pinging: state busy", "ponger listening: state quiet"]
    assert lines(session, "%events")[3:] == ["  timer t=5.0: busy->idle"]


def test_send_to_an_object_and_back(session: Session) -> None:
    execute(session, "%instantiate Plant")
    execute(session, "%continue")
    assert lines(session, "%send Go to ponger") == ["sent Go (pool: ponger: Go); %continue or %step dispatches it"]
    out = lines(session, "%step")
    assert out == ["move 4: ponger listening: dispatch Go (no transition took it)",
                   "● pinger: idle, ponger: quiet at t=0.0"]
    assert lines(session, "%back 2")[0] == ("⏸ back 2 moves: plant::Plant at move 2; undone: ponger listening:"
                                            " dispatch Go (no transition took it), send Go to ponger")
    with pytest.raises(UsageError, match="no object of plant::Plant of that path exhibits a machine"):
        execute(session, "%send Go to nobody")


def test_advance_fires_the_timers_of_every_object(session: Session) -> None:
    execute(session, "%instantiate Plant")
    execute(session, "%send Go")
    out = lines(session, "%advance 5")
    assert "move 8: pinger pinging: time t=5.0: busy->idle" in out
    assert out[-1] == "● pinger: idle, ponger: quiet at t=5.0"


def test_an_unknown_part_is_refused(session: Session) -> None:
    with pytest.raises(UnknownBehaviorError, match="no part named 'Plnt'; did you mean 'plant::Plant'"):
        execute(session, "%instantiate Plnt")
    assert session.run is None


def test_cli_instantiate_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "plant.sysml"
    model.write_text(PLANT)
    assert main(["run", str(model), "--instantiate", "Plant", "--send", "Go", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["objects"] == [
        {"path": "pinger", "finalState": "busy", "stateVisits": ["idle", "busy"], "slots": {"sent": "1"}},
        {"path": "ponger", "finalState": "quiet", "stateVisits": ["quiet", "quiet"], "slots": {"heard": "1"}}]
    assert document["outputs"] == {"pinger.sent": "1", "ponger.heard": "1"}
    assert document["status"] == "completed" and document["exit"] == 0


def test_cli_instantiate_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "plant.sysml"
    model.write_text(PLANT)
    assert main(["run", str(model), "--instantiate", "plant::Plant", "--send", "Go to pinger", "--advance", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "✓ Instance of plant::Plant", "  pinger: idle", "    visits: idle, busy, idle", "    sent = 1",
        "  ponger: quiet", "    visits: quiet, quiet", "    heard = 1"]


def test_cli_instantiate_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "plant.sysml"
    model.write_text(PLANT)
    assert main(["run", str(model), "--instantiate", "Plant", "--on", "pinger"]) == 2
    assert "--instantiate takes the part itself" in capsys.readouterr().err
    assert main(["run", str(model), "--instantiate", "Plant", "--send", "Gone", "--json"]) == 2
    out = capsys.readouterr()
    assert "names the signal 'Gone'" in out.err and json.loads(out.out)["objects"] == [
        {"path": "pinger", "finalState": "idle", "stateVisits": ["idle"], "slots": {"sent": "0"}},
        {"path": "ponger", "finalState": "quiet", "stateVisits": ["quiet"], "slots": {"heard": "0"}}]


# ---------------------------------------------------------------- checking an instance

def test_instantiate_under_check_checks_every_schedule(session: Session) -> None:
    """Two Go's to the pinger: the second is lost where it arrives while the pinger is busy (no
    transition of busy takes it), taken where the 5 s timer has brought it back to idle first."""
    execute(session, "%engine check")
    assert lines(session, "%send Go to pinger")[0] == "environment: sends Go to pinger"
    execute(session, "%send Go to pinger")
    out = lines(session, "%instantiate Plant")
    assert out[0].startswith("✗ Instance plant::Plant: divergent")
    assert "  divergent: ponger.heard ends as 1 or 2" in out
    assert session.last_check is not None
    assert lines(session, "%advance 4")[0].startswith("✓ Instance plant::Plant: no violation")  # the timer never fires


def test_instantiate_under_check_refuses_an_unknown_object(session: Session) -> None:
    execute(session, "%engine check")
    execute(session, "%send Go to nobody")
    with pytest.raises(SysmlError, match="no object of plant::Plant of that path exhibits a state machine"):
        execute(session, "%instantiate Plant")


def test_cli_check_and_replay_an_instance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "plant.sysml"
    model.write_text(PLANT)
    witnesses = tmp_path / "w"
    assert main(["check", str(model), "--instantiate", "Plant", "--alphabet", "Go", "--max-events", "2",
                 "--diverge", "ponger.heard", "--witness-dir", str(witnesses), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    (report,) = document["reports"] if "reports" in document else document["checks"]
    heard = {o["values"]["ponger.heard"] for o in report["outcomes"]}
    assert heard == {"0", "1", "2"}
    files = sorted(witnesses.iterdir())
    assert files
    for witness in files:
        assert main(["replay", str(model), "--instantiate", "Plant", "--witness", str(witness)]) == 0
        assert capsys.readouterr().out.startswith("✓ Instance plant::Plant: replayed")
    assert main(["replay", str(model), "--state", "pinging", "--witness", str(files[0])]) == 2
    assert main(["check", str(model), "--state", "pinging", "--send", "Go to pinger"]) == 2
    assert "check the part that exhibits it" in capsys.readouterr().err


def test_a_witness_of_an_instance_replays_at_the_prompt_with_a_state_breakpoint() -> None:
    """examples/station.sysml: the pump takes Run before the valve takes Open (witness 1 of the check);
    `%replay last` then `%instantiate` follows it, a state breakpoint stopping it, `%back` and on."""
    session = Session()
    station = Path(__file__).resolve().parents[2] / "examples" / "station.sysml"
    session.submit(station.read_text(encoding="utf-8"), "station.sysml")
    for line in ("%engine check", "%check-property dryRun"):
        execute(session, line)
    assert lines(session, "%instantiate Station")[0].startswith("✗ Instance pumping::Station: violation")
    assert lines(session, "%replay last")[0].endswith(": %instantiate pumping::Station follows it move by move")
    for line in ("%engine run", "%break state on"):
        execute(session, line)
    assert lines(session, "%instantiate Station")[0].startswith(
        "▶ Instance of pumping::Station started (replaying witness 1 of pumping::Station")
    out = lines(session, "%continue")
    assert "move 3: pump.pumping: accept Run (chosen over valve.valving: accept Open)" in out
    assert out[-3:] == ["⏸ breakpoint state on (entered)",
                        "⏸ end of the witness after 3 moves: property: pumping::Station::dryRun",
                        "● valve: shut, pump: on at t=0.0"]
    assert lines(session, "%current") == ["valve", "  valving", "    shut", "  open = false",
                                          "pump", "  pumping", "    on", "  running = true"]
    assert lines(session, "%back")[0] == "⏸ back 1 move: pumping::Station at move 2; undone: pump.pumping: accept Run"
    assert lines(session, "%continue")[-2] == "⏸ end of the witness after 3 moves: property: pumping::Station::dryRun"


def test_an_object_with_two_machines_reports_both(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    house = Path(__file__).resolve().parents[1] / "engines" / "check" / "instances" / "house.sysml"
    assert main(["run", str(house), "--instantiate", "House", "--send", "Go", "--json"]) == 0
    (lamp,) = json.loads(capsys.readouterr().out)["objects"]
    assert lamp == {"path": "room.lamp", "finalState": "life: bright, watch: on",
                    "stateVisits": ["life.dark", "life.bright", "watch.off", "watch.on"], "slots": {"lit": "1"}}


def test_cli_refuses_what_does_not_fit_an_instance(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "plant.sysml"
    model.write_text(PLANT)
    assert main(["check", str(model), "--instantiate", "Plant", "--on", "pinger"]) == 2
    assert "--on names the part that performs the actions checked" in capsys.readouterr().err
    witnesses = tmp_path / "w"
    assert main(["check", str(model), "--state", "pinging", "--send", "Go", "--witness-dir", str(witnesses)]) == 1
    capsys.readouterr()
    machine_witness = sorted(witnesses.iterdir())[0]
    assert main(["replay", str(model), "--instantiate", "Plant", "--witness", str(machine_witness)]) == 2
    assert "is a witness of state machine plant::Pinger::pinging: replay it with --state" in capsys.readouterr().err


PROBE = """package sampler {
    private import ScalarValues::*;
    private import SI::*;
    attribute def Stop;
    part def Probe {
        attribute samples : Integer := 0;
        exhibit state run {
            entry; then sampling;
            state sampling { do action poll { while true { accept after 2 [s]; assign samples := samples + 1; } } }
            transition first sampling accept Stop then stopped;
            state stopped;
        }
        perform action timer { accept after 5 [s]; then send new Stop() to this; }
    }
    part probe : Probe;
}"""


def test_events_lists_every_waiter_on_the_clock_and_advance_stops_at_each() -> None:
    """A machine's do behavior waiting for time and a performed action waiting for time are both the
    clock's waiters (the action's was listed by %tokens alone); %advance wakes each in turn, the action's
    Stop at t=5 ending the sampling after the wakes at 2 and 4."""
    session = Session()
    session.submit(PROBE, "probe.sysml")
    execute(session, "%instantiate sampler::probe")
    execute(session, "%step")
    assert list(execute(session, "%events").lines)[-2:] == [
        "  probe run: do of sampling waits until t=2.0", "  probe.timer waits until t=5.0"]
    out = list(execute(session, "%advance 10").lines)
    assert any("time t=2.0: the do behavior of sampling goes on" in line for line in out)
    assert any("time t=4.0: the do behavior of sampling goes on" in line for line in out)
    current = list(execute(session, "%current").lines)
    assert "    stopped" in current and "  samples = 2" in current
