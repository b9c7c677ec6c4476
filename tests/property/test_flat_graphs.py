"""Generated action graphs (tests/property/graphs.py) checked through the action's flat form and through
the interpreter's run (engines/runtime/actions/flat.py): the very same result, reduced and unreduced."""

from __future__ import annotations

from hypothesis import event, given, note, settings

import ir
from engines.check.search import why_not_flat
from engines.framework import Bounds
from engines.runtime import Program
from tests.engines.check.test_flat import same
from tests.property.graphs import Kinds, build, models

# forks, joins, decisions, loops, guarded successions, nodes performed twice behind a merge, bodies of assignments, `if` statements, `while`, `for`
# and `until` loops, and those statements standing in the flow itself
FLAT_KINDS = Kinds(messages=False, negatives=True, ifs=True, fors=True, in_flow=True, untils=True, guards=True,
                   merges=True, converging=True)
# a graph costs four checks: a tenth of the expressions' count, as tests/property/test_graphs.py's
GRAPH_EXAMPLES = max(20, settings().max_examples // 10)


@settings(max_examples=GRAPH_EXAMPLES)
@given(models(FLAT_KINDS))
def test_generated_graphs_check_alike_flat_and_interpreted(seq: object) -> None:
    text = build(seq).text()  # type: ignore[arg-type]
    note(text)
    program = Program(ir.resolve([ir.parse(text, "generated.sysml")]))
    refused = why_not_flat(program, "g::m")
    event(f"flat: {refused.split(': ', 1)[-1] if refused else 'covered'}")
    same(program, "g::m", Bounds(depth=2_000, states=5_000))
