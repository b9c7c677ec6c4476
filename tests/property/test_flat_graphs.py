"""Generated action graphs (tests/property/graphs.py) checked through the action's flat form and through
the interpreter's run (engines/runtime/actions/flat.py): the very same result, reduced and unreduced."""

from __future__ import annotations

from hypothesis import event, example, given, note, settings

import ir
from engines.check.search import why_not_flat
from engines.framework import Bounds
from engines.runtime import Program
from tests.engines.check.test_flat import same
from tests.property.graphs import Crew, Fork, Kinds, Leaf, Loop, Merged, Seq, build, models

# forks, joins, decisions, loops, guarded successions, nodes performed twice behind a merge, steps with a
# multiplicity, bodies of assignments, `if` statements, `while`, `for`
# and `until` loops, those statements standing in the flow itself, and steps typed by an action def with a
# chain reading their output, messages (a send and an accept on two branches, a lone accept that waits),
# terminates (of the whole action after a step, and in an `if` among a body's statements), and flows and
# bindings between steps' pins
FLAT_KINDS = Kinds(messages=True, lone_accepts=True, negatives=True, ifs=True, fors=True, in_flow=True, untils=True,
                   guards=True, merges=True, converging=True, crews=True, typed=True, halts=True, flows=True)
# a graph costs four checks: a tenth of the expressions' count, as tests/property/test_graphs.py's
GRAPH_EXAMPLES = max(20, settings().max_examples // 10)


# a `while` performed twice at once behind a merge, in a loop, beside a fork whose branches meet at an
# action node: the interpreter named a loop's token between two passes as it named it at its first test,
# where the flat form gives it a place of its own, so the two reduced searches parted (5,000 states and
# 9,797 moves against 9,788; 189,484 states against 189,474 unbounded)
_WHILE_TWICE = Seq((Fork((
    Seq((Leaf(("assign x := x + 1;",), False, ()), Leaf(("assign x := x + 1;",), True, ()))),
    Seq((Leaf(("assign x := -x - 1;",), False, ()), Leaf(("assign x := x + 1;", "assign x := x + 1;"), False, ()))),
    Seq((Loop(2, Seq((Merged(Leaf(("while w1 < 2 { assign w1 := w1 + 1; assign x := x * y - 1; }",
                                   "if not b { assign b := not b; } else { assign b := x > y; }"), True, ("w1",))),))),)),
), True),))


# two performances of a step with a multiplicity, one inside its sub-step and one not yet: the interpreter's
# key ordered the two performances' entries by comparing a frame's values with the other's pin flag, which
# Python refuses (an internal error, found once typed steps shifted the draws)
_CREW_HALFWAY = Seq((Crew(Leaf(("action u1 { attribute t : Integer := x; assign x := t + 1; assign x := x - y; }",),
                               False, ()), 2),))


@settings(max_examples=GRAPH_EXAMPLES)
@given(models(FLAT_KINDS))
@example(_WHILE_TWICE)
@example(_CREW_HALFWAY)
def test_generated_graphs_check_alike_flat_and_interpreted(seq: object) -> None:
    text = build(seq).text()  # type: ignore[arg-type]
    note(text)
    program = Program(ir.resolve([ir.parse(text, "generated.sysml")]))
    refused = why_not_flat(program, "g::m")
    event(f"flat: {refused.split(': ', 1)[-1] if refused else 'covered'}")
    same(program, "g::m", Bounds(depth=2_000, states=5_000))
