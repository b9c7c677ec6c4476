"""The check's bounds, properties, deadlocks and refusals: what it claims when it cannot finish,
what it finds when a schedule goes wrong, and what it refuses before searching."""

from __future__ import annotations

import time

import pytest

import ir
from engines.check import check
from engines.errors import EngineError
from engines.framework import BoundReport, Bounds, Result, Verdict
from engines.runtime import Program
from engines.witness import parse_witness, replay_run

LOOP = """package b {
	private import ScalarValues::*;
	// A merge loop whose guard never lets the token out: every lap is a new state.
	action spin {
		attribute n : Integer = 0;
		first start;
		then merge lap;
		then action inc { assign n := n + 1; }
		then decide again;
		if n >= 0 then lap;
		if n < 0 then done;
		done;
	}
}
"""


def _race(branches: int, steps: int) -> str:
    """A fork of `branches` branches, each `steps` sequential assignments to one feature x."""
    nodes = []
    edges = ["succession first start then split;"]
    for b in range(branches):
        for k in range(steps):
            nodes.append(f"action b{b}s{k} {{ assign x := {10 * (b + 1) + k}; }}")
            edges.append(f"succession first {'split' if k == 0 else f'b{b}s{k - 1}'} then b{b}s{k};")
        edges.append(f"succession first b{b}s{steps - 1} then sync;")
    edges.append("succession first sync then done;")
    body = "\n\t\t".join(["attribute x : Integer = 0;", "first start;", "fork split;", *nodes,
                          "join sync;", "done;", *edges])
    return f"package b {{\n\tprivate import ScalarValues::*;\n\taction race {{\n\t\t{body}\n\t}}\n}}\n"


PROPERTY = """package b {
	private import ScalarValues::*;
	constraint def Bounded { x <= 1 }
	action grow {
		attribute x : Integer = 0;
		first start;
		then action one { assign x := 1; }
		then action two { assign x := 2; }
		then done;
	}
}
"""

DEADLOCK = """package b {
	private import ScalarValues::*;
	// The join waits for a branch that waits for a message nothing sends.
	action stuck {
		attribute x : Integer = 0;
		first start;
		fork split;
		action work { assign x := 1; }
		action listen accept v : Integer;
		join sync;
		done;
		succession first start then split;
		succession first split then work;
		succession first split then listen;
		succession first work then sync;
		succession first listen then sync;
		succession first sync then done;
	}
}
"""


def program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "bounds")]))


def bound(result: Result, name: str) -> BoundReport:
    return next(b for b in result.bounds if b.name == name)


def test_a_merge_loop_is_cut_by_the_depth_bound_and_never_claimed_exhaustive() -> None:
    started = time.monotonic()
    result = check(program(LOOP), "b::spin", Bounds(depth=50))
    assert time.monotonic() - started < 10
    assert result.verdict is Verdict.WITHIN_BOUNDS
    assert bound(result, "depth") == BoundReport("depth", "50", True)
    assert not bound(result, "states").reached
    assert result.stats.depth == 50
    assert result.incomplete is None
    assert result.violations == ()


def test_a_states_bound_on_a_fork_race_is_reported_reached() -> None:
    result = check(program(_race(3, 1)), "b::race", Bounds(states=5))
    assert result.verdict is Verdict.WITHIN_BOUNDS
    assert bound(result, "states") == BoundReport("states", "5", True)
    assert not bound(result, "depth").reached
    assert result.verdict is not Verdict.EXHAUSTIVE


def test_the_race_unbounded_is_exhaustive() -> None:
    """The same race with no bound hit: the only verdict that is a proof, and x divergent."""
    result = check(program(_race(3, 1)), "b::race", diverge=())
    assert result.verdict is Verdict.EXHAUSTIVE
    assert not any(b.reached for b in result.bounds)
    result = check(program(_race(3, 1)), "b::race")
    assert result.verdict is Verdict.DIVERGENT
    assert result.divergent[0][0] == "x"
    assert {v for v, _ in result.divergent[0][1]} == {"10", "20", "30"}


def test_a_tiny_timeout_reports_incomplete_for_time() -> None:
    started = time.monotonic()
    result = check(program(_race(4, 3)), "b::race", Bounds(timeout=0.0))
    assert time.monotonic() - started < 10
    assert result.verdict is Verdict.INCOMPLETE
    assert result.incomplete == "time"
    assert bound(result, "timeout").reached


def test_an_interrupt_reports_incomplete_interrupted() -> None:
    result = check(program(_race(4, 3)), "b::race", interrupted=lambda: True)
    assert result.verdict is Verdict.INCOMPLETE
    assert result.incomplete == "interrupted"


def test_an_interrupt_part_way_stops_the_search_there() -> None:
    calls = []

    def later() -> bool:
        calls.append(1)
        return len(calls) > 20

    result = check(program(_race(4, 3)), "b::race", interrupted=later)
    assert result.verdict is Verdict.INCOMPLETE
    assert result.incomplete == "interrupted"
    assert 0 < result.stats.moves <= 20


def test_a_property_false_only_after_some_moves_is_found_with_its_witness() -> None:
    p = program(PROPERTY)
    result = check(p, "b::grow", properties=("Bounded",))
    assert result.verdict is Verdict.VIOLATION
    (violation,) = result.violations
    assert violation.kind == "property"
    assert "b::Bounded" in violation.text and "is false after" in violation.text
    assert violation.moves > 1  # it held at the start and after x := 1
    witness = result.witnesses[violation.witness - 1]
    assert witness.ending == "property: b::Bounded"
    assert witness.text().rstrip("\n").splitlines()[-2:] == ["property: b::Bounded", "end of witness"]
    assert "claim: property b::Bounded = false" in witness.text().splitlines()
    assert parse_witness(witness.text()).ending == "property: b::Bounded"
    run = replay_run(p, "b::grow", witness.text())
    assert run.outputs()["x"] == "2"
    assert result.notes == ()


def test_a_property_that_always_holds_is_no_violation() -> None:
    text = PROPERTY.replace("x <= 1", "x <= 2")
    result = check(program(text), "b::grow", properties=("Bounded",))
    assert result.verdict is Verdict.EXHAUSTIVE
    assert result.violations == ()


def test_a_deadlock_is_a_violation_with_a_witness() -> None:
    p = program(DEADLOCK)
    result = check(p, "b::stuck")
    assert result.verdict is Verdict.VIOLATION
    (violation,) = result.violations
    assert violation.kind == "deadlock"
    assert "listen" in violation.text
    witness = result.witnesses[violation.witness - 1]
    assert witness.ending == f"fails: deadlock: {violation.text}"
    run = replay_run(p, "b::stuck", witness.text())
    assert run.enabled_moves() == []
    assert run.stuck() == f"deadlock: {violation.text}"


def test_an_unknown_property_is_refused_before_the_search_naming_close_names() -> None:
    with pytest.raises(EngineError) as raised:
        check(program(PROPERTY), "b::grow", properties=("Bounde",))
    assert type(raised.value) is not EngineError  # a subclass saying what was wrong
    assert "Bounde" in str(raised.value) and "b::Bounded" in str(raised.value)


def test_an_unknown_divergence_feature_is_refused_naming_the_held_features() -> None:
    with pytest.raises(EngineError) as raised:
        check(program(DEADLOCK), "b::stuck", diverge=("y",))
    assert type(raised.value) is not EngineError
    assert "'y'" in str(raised.value) and "x" in str(raised.value).split("holds are", 1)[-1]
