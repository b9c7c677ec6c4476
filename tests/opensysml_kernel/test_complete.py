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
