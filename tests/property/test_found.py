"""The minimal models behind what the generated graphs of test_graphs.py found, each with the answer
derived by hand: a strict xfail while the check gets it wrong, a regression test once it is fixed."""

from __future__ import annotations

import pytest

import ir
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from tests.engines.check.models import checked, final_states
from tests.property import found
from tests.property.graphs import where

SUBJECT = "g::m"


def _program(text: str) -> Program:
    return Program(ir.resolve([ir.parse(text, "found.sysml")]))


def _explored(program: Program) -> set[tuple[tuple[str, str], ...]]:
    result = explore(program, SUBJECT, Bounds(runs=5_000))
    assert result.verdict is Verdict.COMPLETE
    return {o.values for o in result.outcomes if o.error is None}


@pytest.mark.parametrize("reduce", [True, False])
def test_a_race_between_minus_one_and_minus_two_is_divergent(reduce: bool) -> None:
    """Either branch may write last: x ends -1 or -2 (explore agrees). Once one visited state to the
    check: its fingerprint hashed values with hash(), and hash(-1) == hash(-2)."""
    program = _program(found.RACE_TO_MINUS_ONE)
    assert _explored(program) == {(("x", "-1"),), (("x", "-2"),)}
    result = checked(program, SUBJECT, reduce=reduce)
    assert final_states(result) == {(("x", "-1"),), (("x", "-2"),)}
    assert result.verdict is Verdict.DIVERGENT


@pytest.mark.parametrize("reduce", [True, False])
def test_the_if_statement_and_the_write_to_its_guard_race(reduce: bool) -> None:
    """The `if` first: the else block (y = 2), then x = 1; the assignment first: x = 1, then the then
    block (x = 2, y = 1)."""
    program = _program(found.IF_THEN_OR_ELSE)
    want = {(("x", "1"), ("y", "2")), (("x", "2"), ("y", "1"))}
    assert _explored(program) == want
    result = checked(program, SUBJECT, reduce=reduce)
    assert final_states(result) == want
    assert result.verdict is Verdict.DIVERGENT


def test_crossing_pairs_unreduced() -> None:
    """s1 sends 1 (before `a`) or 2 (after); r2 may take s1's 1 while r1 takes s2's 2: (g1, g2) ends
    (1, 2), (2, 2) or (2, 1). The unreduced check sees all three."""
    result = checked(_program(found.CROSSING_PAIRS), SUBJECT, reduce=False)
    assert {(dict(s)["g1"], dict(s)["g2"]) for s in final_states(result)} == {("1", "2"), ("2", "2"), ("2", "1")}


def test_crossing_pairs_reduced() -> None:
    result = checked(_program(found.CROSSING_PAIRS), SUBJECT, reduce=True)
    assert {(dict(s)["g1"], dict(s)["g2"]) for s in final_states(result)} == {("1", "2"), ("2", "2"), ("2", "1")}


def _deadlocks(reduce: bool) -> set[str]:
    result = checked(_program(found.ONE_MESSAGE_TWO_ACCEPTS), SUBJECT, reduce=reduce)
    assert result.verdict is Verdict.VIOLATION
    return {where(v.text) for v in result.violations if v.kind == "deadlock"}


def test_one_message_two_accepts_unreduced() -> None:
    """Whichever accept takes the one message, the other waits for ever: two deadlocks."""
    assert len(_deadlocks(reduce=False)) == 2


def test_one_message_two_accepts_reduced() -> None:
    assert _deadlocks(reduce=True) == _deadlocks(reduce=False)
