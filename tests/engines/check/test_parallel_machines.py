"""The check partitioned over Ray workers (engines/check/parallel.py) answers for state machines, part
instances, properties and the actions the flat form does not cover as the sequential check does. Their
states travel between workers as schedules, which the owner replays in the interpreter; a state with
one move is walked through by the worker that reached it.

Required: the very same result at 1 and 2 workers; against the sequential search the same verdict,
divergent values, outcomes and violations (a violation's depth aside: breadth first reaches a state by
its shallowest schedule, depth first by its first), and unreduced the same number of states, except in
the models below. There a do behavior pauses mid-statement, where the runtime cannot canonicalize its
progress and keys the state by the moves that led there (engines/runtime/states/moves.py `state_key`),
so which schedule to a state is searched on decides the states after it, and the count depends on the
search order; the outcomes do not. Skipped, with its reason, where Ray is not installed."""

from __future__ import annotations

import importlib.util
import re
from fractions import Fraction
from pathlib import Path

import pytest

import ir
from engines.check.machine import check_machine
from engines.check.search import PropertyNotEvaluable, check
from engines.framework import Bounds, Result
from engines.runtime import Program, Script
from engines.runtime.states import events_from_json, parse_send
from tests.corpus_cases import HAVE_CORPUS, NO_CORPUS, cases, entry
from tests.engines.check.test_parallel import NO_RAY, oracle_actions

pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)
HERE = Path(__file__).resolve().parent
TABLE = HERE / "parallel_machines.tsv"
BOUNDS = Bounds(depth=400, states=20_000)
# where a paused do behavior keys states by their schedule (the module docstring): states may differ
BY_SCHEDULE = {"machines/passes.sysml", "machines/typed.sysml", "fresh_machines/heater_asserts.sysml",
               "state_do_step_typed_before_sibling_entry"}


def _plain(text: str) -> str:
    """A claim's text without what the search order decides: token numbers, a violation's depth."""
    return re.sub(r"after \d+ moves", "after N moves", re.sub(r"token \d+@", "token @", text))


def _answers(result: Result) -> object:
    return (result.verdict, {f: {v for v, _ in e} for f, e in result.divergent},
            {(o.values, o.violates) for o in result.outcomes},
            sorted((v.kind, _plain(v.text)) for v in result.violations))


def _agree(name: str, run: object, bounds: Bounds = BOUNDS) -> None:
    """`run(bounds, reduce)` checked sequentially and over 1 and 2 workers."""
    sequential = run(bounds, False)  # type: ignore[operator]
    one, two = (run(bounds.with_(workers=n), False) for n in (1, 2))  # type: ignore[operator]
    assert one == two, f"{name}: 2 workers answer otherwise than 1"
    assert _answers(one) == _answers(sequential), name
    if name not in BY_SCHEDULE and not any(b.reached for b in sequential.bounds):
        assert one.stats.states == sequential.stats.states, name
    reduced = run(bounds.with_(workers=2), True)  # type: ignore[operator]
    assert {o.values for o in reduced.outcomes} == {o.values for o in sequential.outcomes}, name
    assert reduced.verdict == sequential.verdict, name


def _rows() -> list[list[str]]:
    lines = TABLE.read_text(encoding="utf-8").splitlines()
    return [line.split("\t") for line in lines if line and not line.startswith("#")]


def _split(text: str) -> list[str]:
    return [part for part in text.split(";") if part]


@pytest.mark.parametrize("row", _rows(), ids=lambda row: f"{row[0]}:{row[1]}")
def test_the_workers_answer_as_the_sequential_search_on_our_machines(row: list[str]) -> None:
    model, subject, kind, sends, alphabet, most, horizon, properties, features, depth = row
    path = HERE / model
    program = Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))
    script = Script(tuple(parse_send(s) for s in _split(sends)), tuple(parse_send(s) for s in _split(alphabet)),
                    int(most), Fraction(horizon) if horizon else None)

    def run(bounds: Bounds, reduce: bool) -> Result:
        return check_machine(program, subject, script, bounds, tuple(_split(properties)),
                             tuple(_split(features)) or None, reduce=reduce, part=kind == "part")

    _agree(model, run, BOUNDS.with_(depth=min(int(depth), BOUNDS.depth)))


def test_the_table_covers_timers_alphabets_parts_and_properties() -> None:
    rows = _rows()
    assert len(rows) >= 50
    assert any(r[6] for r in rows) and any(r[4] for r in rows)  # a horizon; an alphabet
    assert any(r[2] == "part" for r in rows) and any(r[7] for r in rows)  # an instance; properties


@pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
def test_the_workers_answer_as_the_sequential_search_on_the_machine_oracles() -> None:
    compared = 0
    for case in (c for kind in ("state", "object", "instance") for c in cases(kind)):
        if case.check is None or case.disputed:
            continue
        model = ir.resolve([ir.parse(case.text, case.name)])
        program, subject = Program(model), entry(case, model)
        script = Script(tuple(events_from_json(case.expected.get("events") or [])))

        def run(bounds: Bounds, reduce: bool, program: Program = program, subject: str = subject,
                script: Script = script) -> Result:
            return check_machine(program, subject, script, bounds, reduce=reduce)

        _agree(case.name, run)
        compared += 1
    assert compared >= 30


@pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
def test_the_workers_answer_as_the_sequential_search_on_actions_the_flat_form_does_not_cover() -> None:
    # the oracle actions the flat form does not cover, and those it covers searched without it: every one
    # through the interpreter, states travelling as schedules (flat: tests/engines/check/test_parallel.py)
    uncovered = oracle_actions(flat=False)
    assert uncovered
    for name, program, subject in (*uncovered, *oracle_actions(flat=True)):
        def run(bounds: Bounds, reduce: bool, program: Program = program, subject: str = subject) -> Result:
            return check(program, subject, bounds, reduce=reduce, flat=False)

        _agree(name, run)


def test_a_machine_over_workers_keeps_the_same_witnesses_and_replays_them() -> None:
    from tests.engines.check.test_machine_fresh import replays

    path = HERE / "machines" / "door.sysml"
    program = Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), str(path))]))
    script = Script(alphabet=(parse_send("Open"), parse_send("Close")), max_events=2)
    results = [check_machine(program, "DoorMachine", script, BOUNDS.with_(workers=n)) for n in (1, 2, 3)]
    assert results[0] == results[1] == results[2]
    assert results[0].witnesses
    replays(program, "DoorMachine", results[0])


def test_a_property_the_workers_cannot_evaluate_refuses_the_check_as_alone() -> None:
    from tests.engines.check.test_property_bindings import HEATER

    program = Program(ir.resolve([ir.parse(HEATER, "heater.sysml")]))
    bounds = Bounds(depth=100, states=1_000)
    texts = []
    for b in (bounds, bounds.with_(workers=2)):
        with pytest.raises(PropertyNotEvaluable) as caught:
            check(program, "Heat", b, properties=("margin",), diverge=())
        texts.append(str(caught.value))
    assert all("its condition is an Integer 50, not a Boolean" in t and "not answered" in t for t in texts)
    assert re.sub(r"after \d+ moves, by the schedule .*\)", "", texts[0]) == \
        re.sub(r"after \d+ moves, by the schedule .*\)", "", texts[1])


def test_a_behavior_made_by_no_recipe_is_refused_with_what_to_do() -> None:
    from engines.check.parallel import ParallelUnavailable
    from engines.check.search import check_behavior

    program = Program(ir.resolve([ir.parse("package p { action def A { first start; then done; } }", "a.sysml")]))
    with pytest.raises(ParallelUnavailable, match="without --workers"):
        check_behavior(lambda: program.start_action("p::A", fine=True), "p::A", Bounds(workers=2))
