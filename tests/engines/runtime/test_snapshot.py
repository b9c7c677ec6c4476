"""Snapshot / restore round trips over every action case of the corpus.

At every step of the default run (and at every move of a fine run's first linearization) a
snapshot is taken, the rest run to the end, the snapshot restored and the rest run again, then
restored once more and run a third time: each ending equals the unsnapshotted run's trace, outputs
and error, so a snapshot captures the whole run and restoring does not consume it.
"""

from __future__ import annotations

import pytest

import ir
from engines.errors import RunError, SysmlError
from engines.runtime import Program, Run
from engines.runtime.snapshot import SnapshotError
from tests.corpus_cases import Case, cases, entry

ACTION_CASES = cases("action")
MAX_STEPS = 20_000  # a safety net only: the runtime's own step budget ends every run long before

Ending = tuple[list[str], dict[str, str], str | None, str]


def _start(case: Case, fine: bool) -> tuple[Program, str]:
    try:
        model = ir.resolve([ir.parse(case.text, case.name)])
        program = Program(model)
        subject = entry(case, model)
        program.start_action(subject, fine=fine)
    except SysmlError as err:
        pytest.skip(f"{case.name} does not start (its expectation is the error): {err}")
    return program, subject


def _ending(run: Run) -> Ending:
    return (list(run.trace), run.outputs(), str(run.error) if run.error is not None else None, run.status)


def _step(run: Run) -> bool:
    """One round of the default run; False once it has ended (completed, failed or stalled)."""
    if run.finished:
        return False
    try:
        run.step()
    except RunError:
        return False
    return True


def _move(run: Run) -> bool:
    """The first enabled move of a fine run (the clock let pass when none is); False at the end."""
    if run.finished:
        return False
    moves = run.enabled_moves()
    while not moves and run.let_time_pass():
        moves = run.enabled_moves()
    if not moves:
        return False
    try:
        run.apply(moves[0])
    except RunError:
        return False
    return True


def _finish(run: Run, fine: bool) -> Ending:
    advance = _move if fine else _step
    for _ in range(MAX_STEPS):
        if not advance(run):
            return _ending(run)
    pytest.fail(f"the run did not end within {MAX_STEPS} steps")


def _round_trips(case: Case, fine: bool) -> int:
    program, subject = _start(case, fine)
    expected = _finish(program.start_action(subject, fine=fine), fine)
    run = program.start_action(subject, fine=fine)
    advance = _move if fine else _step
    taken = 0
    for index in range(MAX_STEPS):
        snapshot = run.snapshot(allow_replay=True)
        assert _finish(run, fine) == expected, f"{case.name}: the run from step {index} differs"
        snapshot.restore()
        assert _finish(run, fine) == expected, f"{case.name}: restored at step {index}, the run differs"
        snapshot.restore()
        assert _finish(run, fine) == expected, f"{case.name}: restored twice at step {index}, the run differs"
        snapshot.restore()
        snapshot.release()
        taken += 1
        if not advance(run):
            break
    return taken


@pytest.mark.parametrize("case", ACTION_CASES, ids=[c.name for c in ACTION_CASES])
def test_default_run_round_trips_at_every_step(case: Case) -> None:
    assert _round_trips(case, fine=False) >= 1


@pytest.mark.parametrize("case", ACTION_CASES, ids=[c.name for c in ACTION_CASES])
def test_fine_run_round_trips_at_every_move(case: Case) -> None:
    assert _round_trips(case, fine=True) >= 1


def _accept_if_branch() -> Run:
    case = next(c for c in ACTION_CASES if c.name == "action_accept_if_branch")
    program, subject = _start(case, fine=False)
    run = program.start_action(subject)
    for _ in range(3):
        run.step()
    return run


def test_a_snapshot_over_a_paused_body_is_refused_without_replay() -> None:
    run = _accept_if_branch()
    with pytest.raises(SnapshotError):
        run.snapshot()
    snapshot = run.snapshot(allow_replay=True)
    assert snapshot.by_replay
    expected = _finish(run, fine=False)
    snapshot.restore()
    assert _finish(run, fine=False) == expected


def test_a_released_snapshot_cannot_be_restored() -> None:
    run = _accept_if_branch()
    snapshot = run.snapshot(allow_replay=True)
    snapshot.release()
    assert snapshot.released
    with pytest.raises(SnapshotError):
        snapshot.restore()


def test_a_copied_snapshot_is_not_changed_by_the_run_going_on() -> None:
    """A snapshot taken between moves of a fine run (no body paused) is a copy, not a replay."""
    case = next(c for c in ACTION_CASES if c.name == "action_explore_body_fork_lost_update")
    program, subject = _start(case, fine=True)
    run = program.start_action(subject, fine=True)
    snapshot = run.snapshot()
    assert not snapshot.by_replay
    before = _ending(run)
    _finish(run, fine=True)
    snapshot.restore()
    assert _ending(run) == before
