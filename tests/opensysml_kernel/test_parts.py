"""Parts and `this`: a part's features written by an action are outputs named by the part's path
(`tank.level`), a check compares them, and an action a part performs runs on a part usage named on
the command line (`--on`) or at the prompt (`%action prime on pump`). Through the Session, the CLI
(exit codes) and the JSON documents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ir
from engines.errors import UnknownBehaviorError
from engines.runtime.objects import NotPerformedError
from opensysml_kernel.cli import main
from opensysml_kernel.commands import execute
from opensysml_kernel.complete import complete
from opensysml_kernel.session import Session

# A plant: a pump whose priming boosts (+1) and vents (*3) its pressure concurrently, a valve, and a
# tank that a transfer fills (+5) and doubles (*2) concurrently. Every value below follows from the
# two orders of each race: pressure from 1 is (1+1)*3 = 6 or 1*3+1 = 4; the level from 0 is
# (0+5)*2 = 10 or 0*2+5 = 5. The default schedule (reverse) takes the later-declared branch first.
PLANT = """package Plant {
    private import ScalarValues::*;
    part def Tank { attribute level : Integer := 0; }
    part def Pump {
        attribute pressure : Integer := 1;
        attribute primed : Boolean := false;
        perform action prime {
            first start;
            then fork f;
                then boost;
                then vent;
            action boost { assign this.pressure := this.pressure + 1; }
            action vent { assign this.pressure := this.pressure * 3; }
            join j;
            succession boost then j;
            succession vent then j;
            then assign primed := true;
            then done;
        }
    }
    part def Valve {
        attribute open : Boolean := false;
        perform action prime { assign this.open := true; }
    }
    part pump : Pump;
    part valve : Valve;
    part tank : Tank;
    part boiler {
        attribute temp : Integer := 20;
        perform action heat { assign this.temp := this.temp + 10; }
    }
    action Transfer {
        first start;
        then fork f;
            then fill;
            then double;
        action fill { assign tank.level := tank.level + 5; }
        action double { assign tank.level := tank.level * 2; }
        join j;
        succession fill then j;
        succession double then j;
        then done;
    }
    action Batch {
        part buffer : Tank;
        attribute batches : Integer := 0;
        first start;
        then fork f;
            then load;
            then drain;
        action load { assign buffer.level := buffer.level + 4; }
        action drain { assign buffer.level := buffer.level - 1; }
        join j;
        succession load then j;
        succession drain then j;
        then assign batches := batches + 1;
        then done;
    }
    action Tally {
        attribute count : Integer := 2;
        first start;
        then assign this.count := this.count * 5;
        then done;
    }
}
"""


@pytest.fixture
def plant() -> Session:
    session = Session()
    session.submit(PLANT, "plant.sysml")
    return session


@pytest.fixture
def model(tmp_path: Path) -> str:
    path = tmp_path / "plant.sysml"
    path.write_text(PLANT)
    return str(path)


# ---------------------------------------------------------------- a part's features as outputs


def test_a_package_part_written_by_an_action_is_an_output(plant: Session) -> None:
    execute(plant, "%action Transfer")
    execute(plant, "%continue")
    assert plant.outputs() == {"tank.level": "5"}  # reverse: double (0*2) first, then fill


def test_a_part_the_action_declares_is_an_output_before_it_is_read(plant: Session) -> None:
    execute(plant, "%action Batch")
    assert plant.outputs() == {"batches": "0", "buffer.level": "0"}
    execute(plant, "%continue")
    assert plant.outputs() == {"batches": "1", "buffer.level": "3"}


def test_diverge_names_a_package_part_feature(plant: Session) -> None:
    execute(plant, "%check-diverge tank.level")
    lines = execute(plant, "%action Transfer").lines
    assert "  divergent: tank.level ends as 5 or 10" in lines


def test_a_declared_part_is_compared_by_default(plant: Session) -> None:
    execute(plant, "%engine check")
    lines = execute(plant, "%action Batch").lines
    # load and drain commute (+4, -1): the buffer ends at 3 on every schedule
    assert lines[0].startswith("✓ Action Plant::Batch: no violation, exhaustive")
    assert "  outcome: batches = 1, buffer.level = 3" in lines


def test_explore_reaches_both_levels(plant: Session) -> None:
    execute(plant, "%engine explore")
    lines = execute(plant, "%action Transfer").lines
    assert any("tank.level = 5" in line for line in lines)
    assert any("tank.level = 10" in line for line in lines)


def test_cli_diverge_on_a_part_feature_exits_1_with_json(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", model, "--action", "Transfer", "--diverge", "tank.level", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    check = document["checks"][0]
    assert check["divergent"] == {"tank.level": ["5", "10"]}
    assert sorted(o["values"]["tank.level"] for o in check["outcomes"]) == ["10", "5"]


@pytest.mark.parametrize("engine", ["check", "explore"])
def test_cli_diverge_on_an_unknown_part_feature_exits_2(model: str, engine: str,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # explore answered "(no features)" for a name nothing holds (`--diverge left,right` read as one
    # name), where check refused it: both refuse it now, naming what the action holds
    assert main(["check", model, "--action", "Transfer", "--engine", engine, "--diverge", "tank.levle"]) == 2
    err = capsys.readouterr().err
    assert "nothing in" in err and "holds 'tank.levle'" in err and "tank.level" in err


# ---------------------------------------------------------------- an action a part performs


def test_prime_on_pump_at_the_prompt(plant: Session) -> None:
    result = execute(plant, "%action prime on pump")
    assert result.lines[0] == "▶ Action Plant::Pump::prime performed by pump started (schedule reverse)"
    done = execute(plant, "%continue").lines
    # reverse: vent (1*3) first, then boost (+1)
    assert list(done[-3:]) == ["✓ Action Plant::Pump::prime completed", "  pump.pressure = 4", "  pump.primed = true"]


def test_the_old_form_without_on_still_names_the_part(plant: Session) -> None:
    execute(plant, "%action Plant::Pump::prime Plant::pump")
    execute(plant, "%continue")
    assert plant.outputs()["pump.pressure"] == "4"


def test_prime_on_pump_checked_is_divergent(plant: Session) -> None:
    execute(plant, "%engine check")
    lines = execute(plant, "%action prime on pump").lines
    assert "  divergent: pump.pressure ends as 4 or 6" in lines
    assert "  outcome: pump.pressure = 6, pump.primed = true (witness 1)" in lines


def test_an_action_name_two_parts_perform_is_the_named_parts(plant: Session) -> None:
    execute(plant, "%action prime on valve")
    execute(plant, "%continue")
    assert plant.outputs() == {"valve.open": "true"}


def test_an_action_of_a_part_usage_runs_on_it(plant: Session) -> None:
    execute(plant, "%action heat")
    execute(plant, "%continue")
    assert plant.outputs() == {"boiler.temp": "30"}


def test_this_in_an_action_no_part_performs_is_the_action(plant: Session) -> None:
    execute(plant, "%action Tally")
    execute(plant, "%continue")
    assert plant.outputs() == {"count": "10"}


def test_an_action_of_a_part_def_needs_its_part(plant: Session) -> None:
    with pytest.raises(NotPerformedError, match=r"Plant::Pump::prime is an action of part def Plant::Pump: "
                       r".*the parts that perform it: Plant::pump"):
        execute(plant, "%action Plant::Pump::prime")


def test_a_part_that_does_not_perform_the_action_is_refused(plant: Session) -> None:
    with pytest.raises(NotPerformedError, match=r"part Plant::tank does not perform Plant::Transfer; it performs no"):
        execute(plant, "%action Transfer on tank")
    assert plant.run is None


def test_an_unknown_part_names_close_ones(plant: Session) -> None:
    with pytest.raises(UnknownBehaviorError, match=r"no part named 'pmp'; did you mean 'Plant::pump'"):
        execute(plant, "%action prime on pmp")


def test_cli_run_on_a_part(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", model, "--action", "prime", "--on", "Plant::pump", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["outputs"] == {"pump.pressure": "4", "pump.primed": "true"}
    assert "stmt assign this.pressure" in document["trace"]


def test_cli_check_on_a_part_exits_1(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", model, "--action", "prime", "--on", "pump"]) == 1
    out = capsys.readouterr().out
    assert "  divergent: pump.pressure ends as 4 or 6" in out


def test_cli_refusals_exit_2(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", model, "--action", "Plant::Pump::prime"]) == 2
    assert "name the part that performs it" in capsys.readouterr().err
    assert main(["run", model, "--action", "prime", "--on", "pmp"]) == 2
    assert "did you mean 'Plant::pump'" in capsys.readouterr().err
    assert main(["check", model, "--action", "Transfer", "--on", "tank"]) == 2
    assert "does not perform Plant::Transfer" in capsys.readouterr().err


def test_replay_of_a_witness_on_a_part(model: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    witnesses = tmp_path / "w"
    assert main(["check", model, "--action", "prime", "--on", "pump", "--witness-dir", str(witnesses)]) == 1
    capsys.readouterr()
    second = str(witnesses / "Plant.Pump.prime-1.witness")
    assert main(["replay", model, "--witness", second, "--action", "prime", "--on", "pump"]) == 0
    assert "  pump.pressure = 6" in capsys.readouterr().out


# ---------------------------------------------------------------- help and completion


def test_help_names_the_part_argument(plant: Session) -> None:
    assert execute(plant, "%help action").lines[0] == "usage: %action <qualified name> [on <part>]"


def test_completion_offers_on_then_the_parts_that_perform_the_action(plant: Session) -> None:
    line = "%action prime o"
    found = complete(plant, line, len(line))
    assert found is not None and found.matches == ("on",)
    line = "%action Plant::Pump::prime on "
    found = complete(plant, line, len(line))
    assert found is not None and found.matches == ("Plant::pump",)
    line = "%action Plant::Valve::prime on v"
    found = complete(plant, line, len(line))
    assert found is not None and found.matches == ("Plant::valve",)


def test_the_model_parses() -> None:
    ir.resolve([ir.parse(PLANT, "plant.sysml")])


def test_diverge_this_names_the_performing_parts_feature(model: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", model, "--action", "prime", "--on", "pump", "--diverge", "this.pressure", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["checks"][0]["divergent"] == {"pump.pressure": ["4", "6"]}
