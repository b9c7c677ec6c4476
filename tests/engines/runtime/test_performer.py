"""An action performed by a part: its features read and written by name (or `this.<feature>`), reported
by the part's name (`tank.level`)."""

from __future__ import annotations

import pytest

import ir
from engines.check import check
from engines.errors import UnknownBehaviorError
from engines.explore import explore
from engines.framework import Verdict
from engines.runtime import Program

TANK = """
package tankworld {
    part def Tank { attribute level : Integer = 1; perform Fill; }
    part tank : Tank;
    action Fill {
        first start;
        then fork f;
            then pump;
            then valve;
        action pump { assign level := level + 1; }
        action valve { assign level := level * 3; }
        succession pump then j;
        succession valve then j;
        join j;
        then done;
    }
}
"""


@pytest.fixture
def program() -> Program:
    return Program(ir.resolve([ir.parse(TANK, "tank.sysml")]))


def test_the_performer_holds_what_the_action_writes(program: Program) -> None:
    run = program.start_action("tankworld::Fill", performer="tank")
    run.run_to_end()
    # reverse takes valve (token 3) first: 1 * 3, then pump: 3 + 1
    assert run.outputs() == {"tank.level": "4"}


def test_check_compares_the_performers_features(program: Program) -> None:
    result = check(program, "tankworld::Fill", performer="tank")
    assert result.verdict is Verdict.DIVERGENT
    assert result.divergent == (("tank.level", (("4", 2), ("6", 1))),)  # witnesses in schedule order
    assert not result.notes  # both witnesses replayed with the same performer


def test_explore_reaches_both_orders(program: Program) -> None:
    result = explore(program, "tankworld::Fill", performer="tank")
    assert {dict(o.values)["tank.level"] for o in result.outcomes} == {"4", "6"}


def test_an_unknown_performer_names_the_close_objects(program: Program) -> None:
    with pytest.raises(UnknownBehaviorError, match="no part named 'tnk'; did you mean 'tankworld::tank'"):
        program.start_action("tankworld::Fill", performer="tnk")


def test_without_a_performer_the_feature_is_unknown(program: Program) -> None:
    run = program.start_action("tankworld::Fill")
    with pytest.raises(Exception, match="level"):
        run.run_to_end()
