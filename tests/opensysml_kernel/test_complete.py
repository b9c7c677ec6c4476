"""Completion: command names at a line start, action names after %action, settings, qualified names."""

from __future__ import annotations

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
    assert complete(race, "%load ", 6) is None


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
