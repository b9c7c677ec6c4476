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
from tests.engines.runtime.state_dump import dump

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


def _round_trips(case: Case, fine: bool, schedule: str = "reverse") -> int:
    program, subject = _start(case, fine)
    expected = _finish(program.start_action(subject, fine=fine, schedule=schedule), fine)
    run = program.start_action(subject, fine=fine, schedule=schedule)
    advance = _move if fine else _step
    taken = 0
    for index in range(MAX_STEPS):
        snapshot = run.snapshot(allow_replay=True)
        before = None if snapshot.by_replay else dump(run)
        assert _finish(run, fine) == expected, f"{case.name}: the run from step {index} differs"
        snapshot.restore()
        if before is not None:
            assert dump(run) == before, f"{case.name}: restored at step {index}, the state differs"
        assert _finish(run, fine) == expected, f"{case.name}: restored at step {index}, the run differs"
        snapshot.restore()
        assert _finish(run, fine) == expected, f"{case.name}: restored twice at step {index}, the run differs"
        snapshot.restore()
        if before is not None:
            assert dump(run) == before, f"{case.name}: restored thrice at step {index}, the state differs"
        snapshot.release()
        taken += 1
        if not advance(run):
            break
    return taken


@pytest.mark.corpus
@pytest.mark.parametrize("case", ACTION_CASES, ids=[c.name for c in ACTION_CASES])
def test_default_run_round_trips_at_every_step(case: Case) -> None:
    assert _round_trips(case, fine=False) >= 1


# A fine run performs a loop pass by pass: a loop that only the step budget ends is thousands of
# moves long, and a round trip from every one of them is quadratic (its default run's is kept).
FINE_CASES = [c for c in ACTION_CASES if c.expected.get("error") != "step limit exceeded"]


@pytest.mark.corpus
@pytest.mark.parametrize("case", FINE_CASES, ids=[c.name for c in FINE_CASES])
def test_fine_run_round_trips_at_every_move(case: Case) -> None:
    assert _round_trips(case, fine=True) >= 1


SEEDED = [c for c in ACTION_CASES if c.expected.get("outcomes")]


@pytest.mark.corpus
@pytest.mark.parametrize("case", SEEDED, ids=[c.name for c in SEEDED])
def test_a_seeded_run_round_trips_with_its_draws(case: Case) -> None:
    """A seeded schedule's draws are part of the state: a restored run draws what it drew before."""
    for seed in (3, 11):
        assert _round_trips(case, fine=False, schedule=f"seed:{seed}") >= 1


def _accept_if_branch() -> Run:
    case = next(c for c in ACTION_CASES if c.name == "action_accept_if_branch")
    program, subject = _start(case, fine=False)
    run = program.start_action(subject)
    for _ in range(3):
        run.step()
    return run


@pytest.mark.corpus
def test_a_snapshot_over_a_paused_body_is_refused_without_replay() -> None:
    run = _accept_if_branch()
    with pytest.raises(SnapshotError):
        run.snapshot()
    snapshot = run.snapshot(allow_replay=True)
    assert snapshot.by_replay
    expected = _finish(run, fine=False)
    snapshot.restore()
    assert _finish(run, fine=False) == expected


@pytest.mark.corpus
def test_a_released_snapshot_cannot_be_restored() -> None:
    run = _accept_if_branch()
    snapshot = run.snapshot(allow_replay=True)
    snapshot.release()
    assert snapshot.released
    with pytest.raises(SnapshotError):
        snapshot.restore()


@pytest.mark.corpus
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


class _Verified:
    """Snapshot wrapped so every restore is compared field by field with the state it was taken at."""

    def __init__(self, inner: object, run: Run) -> None:
        self.inner = inner
        self.run = run
        self.state = None if inner.by_replay else dump(run)
        self.restores = 0

    def restore(self, last: bool = False) -> None:
        self.inner.restore(last)  # type: ignore[attr-defined]
        self.restores += 1
        if self.state is not None:
            assert dump(self.run) == self.state, "a restore did not give back the state it was taken at"

    def release(self) -> None:
        self.inner.release()  # type: ignore[attr-defined]

    @property
    def released(self) -> bool:
        return bool(self.inner.released)  # type: ignore[attr-defined]


def _check_models() -> list[object]:
    from tests.engines.check.models import dependence_models, reduction_models

    picked = [pytest.param(c, id=c.name) for c in ACTION_CASES if c.check is not None]
    picked += [pytest.param(m, id=m.name) for m in dependence_models() + reduction_models() if m.action is not None]
    return picked


@pytest.mark.parametrize("subject", _check_models())
def test_every_restore_of_a_check_gives_back_the_state_exactly(subject: object,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal's undo, checked against the whole state at every restore a search makes."""
    from engines.check import check

    made: list[_Verified] = []
    plain = Run.snapshot

    def verified(self: Run, allow_replay: bool = False) -> _Verified:
        snapshot = _Verified(plain(self, allow_replay), self)
        made.append(snapshot)
        return snapshot

    monkeypatch.setattr(Run, "snapshot", verified)
    if isinstance(subject, Case):
        program, name = _start(subject, fine=True)
    else:
        program, name = subject.program(), subject.action  # type: ignore[attr-defined]
    check(program, name, reduce=False)
    assert sum(s.restores for s in made) >= 1 or len(made) == 0
