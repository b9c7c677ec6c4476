"""Bounds that hold inside a move: a check or an explore of a model whose single moves are long (a step
of multiplicity 1000, a loop over a billion-element range, a loop that never ends) stops at its
timeout, its interrupt or its memory bound with an incomplete report, instead of finishing the move."""

from __future__ import annotations

import threading
import time

import pytest

import ir
from engines.errors import StepBudgetExceeded
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from engines.runtime.watch import (
    BoundReached,
    Watch,
    parse_bytes,
    resident_memory,
    spell_bytes,
    tick,
    watching,
)

check_engine = pytest.importorskip("engines.check.search")

MODELS = """
package Plant {
    private import ScalarValues::*;
    action Crowd {
        attribute served : Integer := 0;
        first start; then serve;
        action serve[1000] { assign served := served + 1; }
        then done;
    }
    action Count {
        attribute total : Integer := 0;
        first start; then tally;
        action tally { for i in 1..1000000000 { assign total := total + i; } }
    }
    action Spin {
        attribute turns : Integer := 0;
        first start; then spin;
        action spin { while true { assign turns := turns + 1; } }
    }
}
"""


@pytest.fixture(scope="module")
def program() -> Program:
    return Program(ir.resolve([ir.parse(MODELS, "plant.sysml")]))


@pytest.fixture
def unlimited_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    # so that only the bound under test can stop the long loops
    monkeypatch.setenv("OPENSYSML_MAX_ACTION_STEPS", str(10 ** 12))


SLACK = 1.5  # seconds past the bound a loaded machine may need; the target (T + 1 s) is measured in benchmarks


@pytest.mark.parametrize("action", ["Plant::Crowd", "Plant::Count", "Plant::Spin"])
def test_a_check_stops_at_its_timeout_inside_a_long_move(program: Program, unlimited_steps: None,
                                                         action: str) -> None:
    started = time.monotonic()
    result = check_engine.check(program, action, Bounds(timeout=1.0, depth=10 ** 9))
    elapsed = time.monotonic() - started
    assert result.verdict is Verdict.INCOMPLETE and result.incomplete == "time"
    assert elapsed < 1.0 + SLACK
    assert any(b.name == "timeout" and b.reached for b in result.bounds)


@pytest.mark.parametrize("action", ["Plant::Crowd", "Plant::Count", "Plant::Spin"])
def test_explore_stops_at_its_timeout_inside_a_long_run(program: Program, unlimited_steps: None,
                                                        action: str) -> None:
    started = time.monotonic()
    result = explore(program, action, Bounds(timeout=1.0, depth=10 ** 9))
    elapsed = time.monotonic() - started
    assert result.verdict is Verdict.INCOMPLETE and result.incomplete is not None
    assert result.incomplete.startswith("time: 1s bound hit")
    assert elapsed < 1.0 + SLACK


def test_an_interrupt_inside_a_long_move_is_answered_at_once(program: Program, unlimited_steps: None) -> None:
    flag = threading.Event()
    set_at: list[float] = []

    def interrupt() -> None:
        set_at.append(time.monotonic())
        flag.set()

    timer = threading.Timer(0.5, interrupt)
    timer.start()
    # no depth bound the loop could reach first: on an idle machine 10,000 of its moves take 0.3 s
    result = check_engine.check(program, "Plant::Spin", Bounds(depth=10 ** 9), interrupted=flag.is_set)
    answered = time.monotonic()
    timer.join()
    assert result.incomplete == "interrupted"
    assert answered - set_at[0] < 0.5  # the watch looks at the flag every 10 ms


def test_a_memory_bound_stops_the_search_with_its_partial_report(program: Program, unlimited_steps: None) -> None:
    bound = resident_memory() + (40 << 20)
    result = explore(program, "Plant::Crowd", Bounds(memory=bound, runs=10 ** 6, timeout=120.0))
    assert result.verdict is Verdict.INCOMPLETE and result.incomplete is not None
    assert result.incomplete.startswith(f"memory: {spell_bytes(bound)} bound hit")
    # Spin's loop is the flat form's (its moves never consult the watch): the search asks between moves
    assert check_engine.why_not_flat(program, "Plant::Spin") is None
    checked = check_engine.check(program, "Plant::Spin", Bounds(memory=resident_memory() // 2))
    assert checked.incomplete == "memory"
    assert [b.name for b in checked.bounds if b.reached] == ["memory"]


def test_a_range_for_is_walked_not_built(program: Program) -> None:
    run = program.start_action("Plant::Count")
    peak = resident_memory()
    with pytest.raises(StepBudgetExceeded):
        run.run_to_end()
    assert resident_memory() - peak < 100 << 20  # the billion elements were never built
    assert any("(walked, not built)" in line for line in run.trace)


def test_the_watch_raises_only_inside_its_block() -> None:
    tick()  # no watch: nothing to check
    with watching(Watch(deadline=time.monotonic() - 1)), pytest.raises(BoundReached) as info:
        tick()
    assert info.value.kind == "time"
    tick()


@pytest.mark.parametrize(("text", "size"), [("2G", 2 << 30), ("500M", 500 << 20), ("1.5GiB", 3 << 29),
                                            ("800MB", 800 << 20), ("4096", 4096), ("64k", 64 << 10)])
def test_memory_sizes(text: str, size: int) -> None:
    assert parse_bytes(text) == size


@pytest.mark.parametrize("text", ["lots", "-1G", "0", "G"])
def test_memory_sizes_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_bytes(text)
