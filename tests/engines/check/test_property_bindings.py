"""Constraint, requirement and calc usages whose parameters are bound (`constraint cool : Under
{ in t = temp; in max = 90; }`) checked as properties: the body is evaluated with those bindings,
read in the checked action's state, and the definition's defaults for the others."""

from __future__ import annotations

from pathlib import Path

import pytest

import ir
from engines.check import check
from engines.check.search import PropertyNotEvaluable
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from opensysml_kernel.cli import main

# A heater: two branches warm one temperature; (40 + 5) * 2 = 90 or 40 * 2 + 5 = 85, passing 45 or 80.
HEATER = """package cooling {
    private import ScalarValues::*;
    constraint def Under {
        in t : Integer;
        in max : Integer;
        t < max
    }
    constraint cool : Under { in t = temp; in max = 90; }
    constraint lukewarm : Under { in t = temp; in max = 100; }
    calc def Within {
        in t : Integer;
        in limit : Integer = 100;
        return : Boolean = t <= limit;
    }
    calc roomy : Within { in t = temp; }
    calc tight : Within { in t = temp; in limit = 82; }
    calc def Margin { in t : Integer; return : Integer = 90 - t; }
    calc margin : Margin { in t = temp; }
    requirement def Below {
        in t : Integer;
        in max : Integer;
        require constraint { t <= max }
    }
    requirement safe : Below { in t = temp; in max = 95; }
    requirement strict : Below { in t = temp; in max = 89; }
    action Heat {
        attribute temp : Integer := 40;
        first start;
        then fork f;
            then warm;
            then boost;
        action warm { assign temp := temp + 5; }
        action boost { assign temp := temp * 2; }
        join j;
        succession warm then j;
        succession boost then j;
        then done;
    }
}
"""


def _check(prop: str) -> tuple[Verdict, list[str]]:
    program = Program(ir.resolve([ir.parse(HEATER, "heater.sysml")]))
    result = check(program, "Heat", Bounds(depth=100, states=1_000), properties=(prop,), diverge=())
    return result.verdict, [v.text for v in result.violations]


@pytest.mark.parametrize(("prop", "violated"), [
    ("cool", True),  # 90 < 90 is false on the schedule warming first
    ("lukewarm", False),  # every state stays under 100
    ("safe", False),  # 90 <= 95
    ("strict", True),  # 90 <= 89 is false
    ("roomy", False),  # the calc's default limit 100
    ("tight", True),  # 85 and 90 both pass 82
])
def test_a_bound_property_is_evaluated_with_its_bindings(prop: str, violated: bool) -> None:
    verdict, texts = _check(prop)
    if violated:
        assert verdict is Verdict.VIOLATION
        assert texts and all("is false" in t and "cannot be evaluated" not in t for t in texts)
    else:
        assert verdict is Verdict.EXHAUSTIVE, texts


def test_a_calc_whose_result_is_no_boolean_cannot_be_evaluated() -> None:
    """What cannot be evaluated is never reported as violated (issue 7, class 14): the check is refused."""
    with pytest.raises(PropertyNotEvaluable) as caught:
        _check("margin")
    assert "cannot be evaluated: its condition is an Integer 50, not a Boolean" in str(caught.value)
    assert "the check is refused, not answered" in str(caught.value)


def test_the_cli_checks_a_bound_constraint_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "heater.sysml"
    path.write_text(HEATER)
    assert main(["check", str(path), "--action", "Heat", "--property", "cool", "--diverge", "temp"]) == 1
    out = capsys.readouterr().out
    assert "violation: cooling::cool is false" in out
    assert "not defined for an Object" not in out
    assert main(["check", str(path), "--action", "Heat", "--property", "lukewarm", "--diverge", "temp"]) == 1
    assert "divergent: temp ends as 85 or 90" in capsys.readouterr().out  # the property held
