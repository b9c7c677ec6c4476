"""Inspection: a (qualified or short) name shows its declaration, with its features' types and values
and where it was written; a command shows its one-line help."""

from __future__ import annotations

from opensysml_kernel.inspection import inspect_at, token_at
from opensysml_kernel.session import Session

# A boiler: its definition's features, a usage typed by it with a bound value, and a requirement.
BOILER = """package plant {
    private import ScalarValues::*;
    part def Boiler {
        attribute pressure : Integer := 1;
        attribute limit : Integer = 9;
        in attribute demand : Integer;
    }
    part main : Boiler;
    requirement Safe {
        require constraint { main.pressure <= main.limit }
    }
}
"""


def _session() -> Session:
    session = Session()
    session.submit(BOILER, "plant.sysml")
    return session


def test_a_definition_shows_its_features_types_values_and_place() -> None:
    found = inspect_at(_session(), "plant::Boiler", 5)
    assert found is not None
    assert found.text.splitlines() == [
        "part def plant::Boiler", "  declared at plant.sysml:3", "  features:",
        "    attribute pressure : Integer := 1", "    attribute limit : Integer = 9", "    in attribute demand : Integer"]
    assert "<td><code>pressure</code></td><td>attribute</td><td><code>Integer</code></td><td><code>:= 1</code></td>" \
        in found.html
    assert "(plant.sysml:3)" in found.html


def test_a_short_name_in_text_finds_its_element() -> None:
    session = _session()
    code = "part spare : Boiler;"
    found = inspect_at(session, code, code.index("Boiler") + 2)
    assert found is not None and found.text.startswith("part def plant::Boiler\n")
    found = inspect_at(session, "main", 4)
    assert found is not None and found.text.splitlines()[0] == "part plant::main : Boiler"
    assert inspect_at(session, "nothing_here", 3) is None


def test_a_command_shows_its_one_line_help() -> None:
    session = _session()
    found = inspect_at(session, "%check-property Safe", 5)
    assert found is not None
    assert found.text.startswith("%check-property [<name>...|off|--clear [<name>...]]: constraints/requirements")
    assert "\n" not in found.text and "\x1b" not in found.text
    assert inspect_at(session, "%nosuch", 3) is None
    # an argument that names a model element shows the element, not the command
    found = inspect_at(session, "%check-property Safe", 18)
    assert found is not None and found.text.startswith("requirement plant::Safe")


def test_token_at_the_cursor() -> None:
    assert token_at("%action race::Race on p", 10) == "race::Race"
    assert token_at("%check-bounds depth=3", 3) == "%check-bounds"
    assert token_at("  ", 1) == ""
