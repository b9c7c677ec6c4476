"""A property that names a feature by its qualified name (`A::x`, `Controller::cycles`) reads the value
the running performance holds, as the short name does: it read the declaration's default instead, so
`A::x <= 1` held while x was 5, a violation missed without a word."""

from __future__ import annotations

from pathlib import Path

import ir
from engines.check.machine import check_machine
from engines.check.search import check
from engines.framework import Bounds, Verdict
from engines.runtime import Program, Script
from engines.runtime.states import parse_send

ACTION = """
package q {
    private import ScalarValues::*;
    action A {
        attribute x : Integer := 0;
        first start;
        then assign x := 5;
        then done;
    }
    action def D { attribute y : Integer := 0; first start; then assign y := 7; then done; }
    action d : D;
    constraint plain { x <= 1 }
    constraint qualified { A::x <= 1 }
    constraint typed { D::y <= 1 }
}
"""

MACHINE = """
package m {
    private import ScalarValues::*;
    attribute def Go;
    state Counter {
        attribute n : Integer := 0;
        entry; then waiting;
        state waiting;
        transition first waiting accept Go do assign n := n + 1 then waiting;
    }
    constraint atMostOne { Counter::n <= 1 }
}
"""


def program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "t.sysml")]))


def test_a_qualified_feature_of_the_action_reads_its_running_value() -> None:
    prog = program(ACTION)
    for prop in ("plain", "qualified"):
        result = check(prog, "A", Bounds(), properties=(prop,))
        assert result.verdict is Verdict.VIOLATION, prop
    assert check(prog, "d", Bounds(), properties=("typed",)).verdict is Verdict.VIOLATION


def test_a_qualified_feature_of_the_machine_reads_its_running_value() -> None:
    result = check_machine(program(MACHINE), "Counter", Script((parse_send("Go"), parse_send("Go"))),
                           Bounds(), properties=("atMostOne",))
    assert result.verdict is Verdict.VIOLATION
    assert "atMostOne is false" in result.violations[0].text


def test_a_qualified_feature_of_the_part_in_an_instance_reads_its_object() -> None:
    path = Path(__file__).resolve().parent / "instances" / "acknowledge.sysml"
    text = path.read_text(encoding="utf-8").replace("    part def Shop {", "    constraint noAck { Shop::acked == 0 }\n"
                                                    "    part def Shop {")
    result = check_machine(program(text), "Shop", Script(), Bounds(), properties=("noAck",), part=True)
    assert result.verdict is Verdict.VIOLATION
