"""Machine checks from the faces: `check FILE --state M` with the environment's options, its JSON,
bad environment input (exit 2), witnesses written and replayed with `replay --state`, and the prompt's
%state under a checking engine with the %send / %events queue as the environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.session import Session

MODELS = Path(__file__).resolve().parents[1] / "engines" / "check" / "machines"
DOOR = str(MODELS / "door.sysml")
CONTROLLER = str(MODELS / "controller.sysml")
THERMOSTAT = str(MODELS / "thermostat.sysml")


def test_check_state_reports_the_region_order_divergence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", CONTROLLER, "--state", "Controller", "--send", "Go"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("✗ State machine Ctl::Controller: divergent")
    assert "  environment: sends Go\n" in out and "divergent: speed ends as 5 or 10" in out


def test_check_state_json_gives_each_outcome_its_configuration(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", DOOR, "--state", "DoorMachine", "--send", "Lock", "--send", "Open", "--json"]) == 0
    check = json.loads(capsys.readouterr().out)["checks"][0]
    assert check["verdict"] == "no violation, exhaustive"
    assert check["resting"] == "quiescent"
    # Lock takes the closed door to locking, which defers Open; its completion goes on to locked_state,
    # where the deferred Open is taken back to closed: the states entered, in order
    visits = ["closed", "locking", "locked_state", "closed"]
    assert check["machineOutcomes"] == [{"finalState": "closed", "stateVisits": visits,
                                         "outputs": {"locked": "true", "opened": "0"}}]
    assert check["outcomes"][0]["stateVisits"] == visits and "objects" not in check["outcomes"][0]


def test_the_horizon_keeps_a_later_timer_from_firing(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", THERMOSTAT, "--state", "Thermostat", "--send", "Stop", "--advance", "3"]) == 0
    assert "outcome: cycles = 1, finalState = off" in capsys.readouterr().out


@pytest.mark.parametrize(("extra", "said"), [
    (["--send", "Launch"], "'Launch'"),
    (["--alphabet", "Open,Launch", "--max-events", "2"], "'Launch'"),
    (["--alphabet", "Open", "--max-events", "-1"], "0 or more"),
    (["--alphabet", "Open", "--max-events", "many"], "not a whole number"),
    (["--alphabet", "Open"], "needs --max-events"),
    (["--max-events", "2"], "bounds the events of an --alphabet"),
])
def test_bad_environment_input_is_refused_with_exit_2(extra: list[str], said: str,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", DOOR, "--state", "DoorMachine", *extra]) == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err


def test_environment_options_without_a_machine_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", DOOR, "--action", "Nothing", "--send", "Go"]) == 2
    assert "use them with --state" in capsys.readouterr().err


def test_a_machine_witness_is_written_and_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", THERMOSTAT, "--state", "Thermostat", "--send", "Stop", "--depth", "30",
                 "--property", "fewCycles", "--witness-dir", str(tmp_path)]) == 1
    capsys.readouterr()
    (witness,) = [str(p) for p in sorted(tmp_path.glob("Thermo.Thermostat-*.witness"))
                  if "claim: property Thermo::fewCycles = false" in p.read_text()]
    assert main(["replay", THERMOSTAT, "--witness", witness, "--state", "Thermostat"]) == 1
    assert "witness reproduced after 9 moves: property: Thermo::fewCycles" in capsys.readouterr().out
    # a witness of another model is refused
    assert main(["replay", DOOR, "--witness", witness, "--state", "DoorMachine"]) == 2
    assert "written for another model" in capsys.readouterr().err


def test_the_prompt_checks_a_machine_against_the_queued_environment() -> None:
    session = Session()
    execute(session, f"%load {DOOR}")
    execute(session, "%engine check")
    assert "sends Lock, Open" in execute(session, "%send Lock").text + execute(session, "%send Open").text
    report = execute(session, "%state DoorMachine")
    assert report.text.startswith("✓ State machine Door::DoorMachine: no violation, exhaustive")
    execute(session, "%events clear")
    assert "any of Open, Close up to 2 times" in execute(session, "%events alphabet Open,Close max=2").text
    assert "divergent: finalState ends as closed or open" in execute(session, "%state DoorMachine").text


def test_check_instantiate_json_gives_each_outcome_its_objects(capsys: pytest.CaptureFixture[str]) -> None:
    """The station ends one way on every schedule (valve opened, pump on): the check's one outcome lists
    its objects as `run --instantiate` does, each machine's visits in its own order."""
    station = str(Path(__file__).resolve().parents[2] / "examples" / "station.sysml")
    assert main(["run", station, "--instantiate", "Station", "--json"]) == 0
    ran = json.loads(capsys.readouterr().out)["objects"]
    assert main(["check", station, "--instantiate", "Station", "--json"]) == 0
    (outcome,) = json.loads(capsys.readouterr().out)["checks"][0]["outcomes"]
    assert outcome["objects"] == ran
    assert [o["path"] for o in ran] == ["valve", "pump"]
    assert ran[0]["stateVisits"] == ["shut", "opened"] and ran[0]["slots"] == {"open": "true"}
    assert sorted(outcome["stateVisits"]) == ["pump.off", "pump.on", "valve.opened", "valve.shut"]
