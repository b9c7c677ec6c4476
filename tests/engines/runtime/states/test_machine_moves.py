"""A machine's moves (engines/runtime/states/moves.py): the scheduler's pick among them, the first
enabled move each time, makes the fixed policies' run of every state case byte for byte; a snapshot
of a machine with its environment restores, repeatedly, to the state it was taken in."""

from __future__ import annotations

import pytest

import ir
from engines.errors import RunError
from engines.runtime import Program, Script
from engines.runtime.states import events_from_json, start_machine
from tests.corpus_cases import Case, entry, state_cases
from tests.engines.runtime.states.conformance import default_run

MACHINE_CASES = [c for c in state_cases() if c.kind != "instance" and "instantiate" not in c.expected]
# Cases whose stepped run does not yet follow the fixed run, with why (a strict xfail each).
STEPPED_DIFFERS: dict[str, str] = {}


def _marked(case: Case) -> object:
    reason = STEPPED_DIFFERS.get(case.name)
    return pytest.param(case, marks=pytest.mark.xfail(reason=reason, strict=True)) if reason else case


@pytest.mark.corpus
@pytest.mark.parametrize("case", [_marked(c) for c in MACHINE_CASES], ids=lambda c: c.name)
def test_the_first_enabled_move_each_time_is_the_fixed_policies_run(case: Case) -> None:
    want = default_run(case)
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
        run = start_machine(Program(model), entry(case, model), case.expected.get("schedule") or "reverse", units=True)
        for event in events_from_json(case.expected.get("events") or []):
            run.send(event)
    except ir.SysmlError:
        pytest.skip("the case is refused before any run")
    error = None
    try:
        while not run.finished:
            moves = run.enabled_moves()
            if not moves:
                if run.let_time_pass():
                    continue
                break
            run.apply(moves[0])
    except RunError as err:
        error = str(err)
    assert (run.final_state(), run.visits, run.outputs(), error) == (want.final_state, want.visits, want.outputs,
                                                                     want.error)
    assert list(run.trace) == want.trace


@pytest.mark.corpus
@pytest.mark.parametrize("case", MACHINE_CASES[::4], ids=lambda c: c.name)
def test_a_snapshot_restores_twice_to_its_state(case: Case) -> None:
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
        program = Program(model)
        run = program.start_driven(entry(case, model), Script(tuple(events_from_json(case.expected.get("events") or []))))
    except ir.SysmlError:
        pytest.skip("the case is refused before any run")
    run.world.trace.enabled = False
    for _ in range(60):
        moves = run.enabled_moves()
        if run.finished or not moves:
            break
        key, world = run.state_key(), run.world.state_key()
        snap = run.snapshot(allow_replay=True)
        for move in reversed(moves):
            try:
                run.apply(move)
                more = run.enabled_moves()
                if more:
                    run.apply(more[-1])
            except RunError:
                pass
            snap.restore()
            assert (run.state_key(), run.world.state_key()) == (key, world), move.label
        snap.release()
        try:
            run.apply(moves[0])
        except RunError:
            break
