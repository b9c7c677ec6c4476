"""Completion: command names at a line start, action names after %action, settings, qualified names."""

from __future__ import annotations

from pathlib import Path

import pytest

from opensysml_kernel.complete import complete
from opensysml_kernel.session import Session


def matches(session: Session, text: str) -> tuple[str, ...]:
    found = complete(session, text, len(text))
    return found.matches if found is not None else ()


def test_command_names(race: Session) -> None:
    assert matches(race, "%ste") == ("%step",)
    assert matches(race, "package p {}\n%t") == ("%tokens", "%trace")
    found = complete(race, "%st", 3)
    assert found is not None and found.start == 0


def test_action_names(race: Session) -> None:
    assert matches(race, "%action R") == ("race::Race",)
    assert matches(race, "%action race::") == ("race::Race", "race::Race::a", "race::Race::b")


def test_settings(race: Session) -> None:
    assert matches(race, "%trace o") == ("on", "off")
    assert matches(race, "%schedule s") == ("seed:",)


def test_qualified_names_in_text(race: Session) -> None:
    assert matches(race, "attribute x = race::Race::") == ("race::Race::a", "race::Race::b", "race::Race::c")
    assert matches(race, "nothing_like_this") == ()


def test_machine_names_parts_and_state_breakpoints() -> None:
    from tests.opensysml_kernel.test_instantiate import PLANT
    from tests.opensysml_kernel.test_state_commands import DOOR

    session = Session()
    session.submit(DOOR, "door.sysml")
    session.submit(PLANT, "plant.sysml")
    assert matches(session, "%state Do") == ("door::Door",)
    assert matches(session, "%instantiate Pl") == ("plant::Plant",)
    assert matches(session, "%break st") == ("state",)
    assert matches(session, "%break state o") == ("open", "operating")
    assert matches(session, "%unbreak transition op") == ("open->closed", "opening2")


# A tank with a requirement, a machine with a feature, and a check that wrote witnesses.
TANK = """package tank {
    private import ScalarValues::*;
    action Fill {
        attribute level : Integer := 0;
        attribute spill : Boolean := false;
        first start;
        then fork f;
            then pump;
            then valve;
        action pump { assign level := level + 5; }
        action valve { assign level := level - 3; }
        succession pump then j;
        succession valve then j;
        join j;
        then done;
    }
    requirement NeverNegative {
        require constraint { level >= 0 }
    }
    constraint def Small { level < 10 }
}
"""


def test_every_command_completes_its_arguments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from opensysml_kernel.commands import execute

    monkeypatch.chdir(tmp_path)
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "tank.sysml").write_text(TANK)
    (tmp_path / "notes.txt").write_text("")
    session = Session()
    session.load(["models/tank.sysml"])
    assert matches(session, "%check-property Ne") == ("tank::NeverNegative",)
    assert matches(session, "%check-property ") == ("off", "--clear", "tank::NeverNegative", "tank::Small")
    assert matches(session, "%check-diverge le") == ("level",)
    assert matches(session, "%check-input s") == ("spill",)
    assert matches(session, "%engine ex") == ("explore",)
    assert matches(session, "%load mo") == ("models/",)
    assert matches(session, "%load models/") == ("models/tank.sysml",)
    assert matches(session, "%load ") == ("models/",)  # notes.txt is no model
    execute(session, "%engine check")
    execute(session, "%check-property NeverNegative")
    execute(session, "%check-witness out")
    execute(session, "%action Fill")
    assert matches(session, "%replay ") == ("last", "off", "1", "models/", "out/", "out/tank.Fill-1.witness")
    assert matches(session, "%replay out/") == ("out/tank.Fill-1.witness",)
    assert matches(session, "%check-property --clear N") == ("NeverNegative",)
    assert matches(session, "%uncheck ") == ("NeverNegative", "engine", "check-property", "check-diverge",
                                            "check-input", "check-assume", "check-witness", "check-bounds")
    assert matches(session, "%check-witness o") == ("off", "out/")
    assert matches(session, "%help unc") == ("uncheck",)
    assert matches(session, "%debug o") == ("on", "off")
