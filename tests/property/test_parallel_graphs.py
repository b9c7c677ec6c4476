"""Generated action graphs (tests/property/graphs.py) checked over Ray workers (engines/check/parallel.py),
as tests/engines/check/test_parallel.py checks our models and the corpus: at 1 and 2 workers the very same
result, and against the sequential search the same verdict, states (unreduced: exactly), divergent values,
outcomes and violations; reduced, at most the unreduced states and every unreduced final state. Graphs
the flat form covers travel flat; those with sends, accepts and timers (which it does not cover) travel as
schedules each owner replays in the interpreter. Skipped, with its reason, where Ray is not installed."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import assume, event, example, given, note, settings

import ir
from engines.check.search import check, why_not_flat
from engines.framework import Bounds
from engines.runtime import Program
from tests.engines.check.test_parallel import NO_RAY, _agree
from tests.property.graphs import Kinds, Leaf, Merged, Seq, build, models
from tests.property.test_flat_graphs import FLAT_KINDS

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)

# a graph costs six checks, four of them over workers: a twentieth of the expressions' count (conftest.py)
PARALLEL_EXAMPLES = max(10, settings().max_examples // 20)
BOUNDS = Bounds(depth=2_000, states=3_000)
COUNTS = (1, 2)
MESSAGES = Kinds(messages=True, lone_accepts=True, negatives=True, ifs=True, timers=True)


def _drawn(seq: Seq, flat: bool) -> Program:
    """The graph's model; drawn again where the flat form's cover is not as asked or a bound cuts the
    unreduced search (where the sequential and the partitioned searches may search different states)."""
    text = build(seq).text()
    note(text)
    program = Program(ir.resolve([ir.parse(text, "generated.sysml")]))
    assume((why_not_flat(program, "g::m") is None) == flat)
    assume(not any(b.reached for b in check(program, "g::m", BOUNDS, reduce=False).bounds))
    return program


# a leaf behind a merge, its two statements unordered, performed twice at once: the depth-first search kept
# 165 states and the breadth-first one 164 of its 185, the key taking one performance with both statements
# to go for two with one each (tests/engines/check/flat/loaders.sysml is the same model, named)
_TWICE_AT_ONCE = Seq((Merged(Leaf(("assign x := x + 1;", "while w1 < 1 { assign w1 := w1 + 1; assign x := x + 1; }"),
                                  False, ("w1",))),))


@settings(max_examples=PARALLEL_EXAMPLES)
@given(models(FLAT_KINDS))
@example(_TWICE_AT_ONCE)
def test_generated_flat_graphs_check_alike_at_any_worker_count(seq: Seq) -> None:
    program = _drawn(seq, flat=True)
    for reduce in (False, True):
        _agree(program, "g::m", reduce, BOUNDS, COUNTS)


@settings(max_examples=PARALLEL_EXAMPLES)
@given(models(MESSAGES))
def test_generated_graphs_with_messages_and_timers_check_alike_at_any_worker_count(seq: Seq) -> None:
    program = _drawn(seq, flat=False)
    event("sends or timers" if "send" in build(seq).text() or "after" in build(seq).text() else "other refusal")
    for reduce in (False, True):
        _agree(program, "g::m", reduce, BOUNDS, COUNTS)
