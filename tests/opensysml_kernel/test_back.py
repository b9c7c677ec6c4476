"""%back through snapshots: after going back n steps (moves, when replaying) and on to the end, a run
prints and ends exactly as the run that never went back, and going back starts nothing again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import NOT_BOOLEAN, RACE, hand_witness

from engines.runtime import Program, Run
from engines.runtime.snapshot import Snapshot
from opensysml_kernel.commands import execute, execute_cell
from opensysml_kernel.errors import RunFailedError, UnknownCommandError, UsageError
from opensysml_kernel.session import Session
from tests.corpus_cases import CONFORMANCE, Case, cases, entry

ACCEPTS_IN_BRANCH = CONFORMANCE / "action_accept_if_branch.sysml"  # bodies paused at an accept, steps 3-5
WAITS_FOR_CLOCK = CONFORMANCE / "action_accept_nested_chain_clock.sysml"  # a move waits for time to pass


def text(session: Session, line: str) -> str:
    return execute(session, line).text


def said(session: Session, line: str) -> str:
    """What a command prints, a runtime failure included (the run keeps it)."""
    try:
        return execute(session, line).text
    except RunFailedError as failure:
        return str(failure)


def started(model: str, *lines: str) -> Session:
    session = Session()
    session.submit(model)
    for line in lines:
        execute(session, line)
    return session


def replaying(model: str, action: str, witness: Path) -> Session:
    """A fine run of `action` taking the first enabled move each time (a witness with no choice lines)."""
    session = Session()
    session.submit(model)
    if not witness.exists():
        hand_witness(session, action, witness)
    execute(session, f"%replay {witness}")
    execute(session, f"%action {action}")
    return session


def ending(session: Session) -> tuple[list[str], dict[str, str]]:
    return session.full_trace(), session.outputs()


# ---------------------------------------------------------------- back, then on: as if never back


@pytest.mark.parametrize("schedule", ["reverse", "declared", "seed:3", "seed:11"])
def test_back_then_on_is_the_run_never_gone_back(schedule: str) -> None:
    """Every (steps made, steps back) pair of a stepping run; a seeded schedule's later draws included."""
    straight = started(RACE, f"%schedule {schedule}", "%action Race")
    prints = [said(straight, "%step") for _ in range(5)]
    assert straight.run is not None and straight.run.finished
    for made in range(1, 6):
        for back in range(1, made + 1):
            session = started(RACE, f"%schedule {schedule}", "%action Race", f"%step {made}")
            assert text(session, f"%back {back}").startswith(f"⏸ back {back} step")
            again = [said(session, "%step") for _ in range(5 - made + back)]
            assert again == prints[made - back:], (made, back)
            assert ending(session) == ending(straight), (made, back)


@pytest.mark.corpus
@pytest.mark.parametrize("schedule", ["reverse", "seed:1", "seed:7"])
def test_back_over_paused_bodies_is_exact(schedule: str) -> None:
    """Steps 3 to 5 stop with a body paused at an accept (a snapshot there is a replay of the steps)."""
    model = ACCEPTS_IN_BRANCH.read_text(encoding="utf-8")
    straight = started(model, "%trace on", f"%schedule {schedule}", "%action acceptsInBranch")
    prints, traces = [], []
    for _ in range(8):
        prints.append(said(straight, "%step"))
        traces.append(straight.full_trace())
    assert straight.run is not None and straight.run.finished
    session = started(model, "%trace on", f"%schedule {schedule}", "%action acceptsInBranch", "%step 7")
    assert text(session, "%back 3") == "⏸ back 3 steps: test::acceptsInBranch at step 4\n" + "\n".join(
        str(token) for token in session.tokens())
    assert session.full_trace() == traces[3]
    assert [said(session, "%step") for _ in range(2)] == prints[4:6]
    assert session.full_trace() == traces[5]
    assert text(session, "%back 4").startswith("⏸ back 4 steps: test::acceptsInBranch at step 2")
    assert [said(session, "%step") for _ in range(6)] == prints[2:]
    assert ending(session) == ending(straight)


def test_back_on_a_replayed_witness_then_on(tank: Session) -> None:
    execute(tank, "%engine check")
    execute(tank, "%check-property NeverNegative")
    execute(tank, "%action Fill")
    execute(tank, "%replay last")
    execute(tank, "%action Fill")
    straight = [said(tank, "%step") for _ in range(5)]
    assert straight[2].endswith("⏸ end of the witness after 3 moves: property: tank::NeverNegative")
    whole = ending(tank)
    for back in range(1, 6):
        assert text(tank, f"%back {back}").startswith(f"⏸ back {back} move")
        # The end of the witness is announced again only when the moves back went before it.
        assert [said(tank, "%step") for _ in range(back)] == straight[5 - back:]
        assert ending(tank) == whole


@pytest.mark.corpus
def test_back_on_a_fine_run_that_lets_time_pass(tmp_path: Path) -> None:
    witness = tmp_path / "first.witness"
    model = WAITS_FOR_CLOCK.read_text(encoding="utf-8")
    straight = replaying(model, "waitsForClock", witness)
    prints: list[str] = []
    while straight.run is not None and not straight.run.finished:
        prints.append(said(straight, "%step"))
    assert straight.outputs()["instant"] == "5.0"
    moves = len(prints)
    for made in range(1, moves + 1):
        session = replaying(model, "waitsForClock", witness)
        execute(session, f"%step {made}")
        execute(session, f"%back {made}")
        assert session.outputs() == replaying(model, "waitsForClock", witness).outputs()
        assert [said(session, "%step") for _ in range(moves)] == prints, made
        assert ending(session) == ending(straight)


def test_back_across_a_breakpoint(race: Session) -> None:
    straight = started(RACE, "%break j", "%action Race")
    first, second = said(straight, "%continue"), said(straight, "%continue")
    assert first.endswith("⏸ breakpoint j (token 2)")
    execute(race, "%break j")
    execute(race, "%action Race")
    assert said(race, "%continue") == first
    execute(race, "%back 1")
    assert said(race, "%continue") == first.splitlines()[-2] + "\n⏸ breakpoint j (token 2)"
    assert said(race, "%continue") == second
    execute(race, "%back 3")  # from the end (step 5), back before the breakpoint's step 3
    assert said(race, "%continue").endswith("⏸ breakpoint j (token 2)")
    assert said(race, "%continue") == second
    assert ending(race) == ending(straight)


def test_back_twice_in_a_row(race: Session) -> None:
    straight = started(RACE, "%action Race")
    prints = [said(straight, "%step") for _ in range(5)]
    execute(race, "%action Race")
    execute(race, "%step 4")
    assert text(race, "%back").startswith("⏸ back 1 step: race::Race at step 3")
    assert text(race, "%back 2").startswith("⏸ back 2 steps: race::Race at step 1")
    assert [said(race, "%step") for _ in range(4)] == prints[1:]
    assert ending(race) == ending(straight)


def test_back_beyond_the_start_is_refused(race: Session) -> None:
    execute(race, "%action Race")
    execute(race, "%step 2")
    assert text(race, "%back 2") == "⏸ back 2 steps: race::Race at step 0\ntoken 1@start"
    with pytest.raises(UsageError) as refused:
        execute(race, "%back")
    assert str(refused.value) == "%back 1: the run of race::Race has made only 0 steps\nusage: %back [n] with n <= 0"
    assert text(race, "%step") == "step 1: token 1@f"  # the refusal changed nothing


def test_back_from_a_failed_step() -> None:
    """A step that failed is undone too; made again, it fails again, printing what it printed."""
    failed = started(NOT_BOOLEAN, "%action Seq")
    said(failed, "%continue")
    assert failed.run is not None and failed.run.status == "failed"
    steps = failed.run.step_number
    straight = started(NOT_BOOLEAN, "%action Seq", f"%step {steps - 1}")
    assert execute(failed, "%back").data["status"] == "running"
    assert said(failed, "%continue") == said(straight, "%continue")
    assert ending(failed) == ending(straight)


# ---------------------------------------------------------------- the snapshots are what goes back


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, int]]:
    """How often runs are started, stepped and moved while the counter is on."""
    calls = {"start_action": 0, "step": 0, "apply": 0, "on": 0}

    def spy(cls: type, name: str) -> None:
        original = getattr(cls, name)

        def counting(*args: object, **kwargs: object) -> object:
            if calls["on"]:
                calls[name] += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(cls, name, counting)

    spy(Program, "start_action")
    spy(Run, "step")
    spy(Run, "apply")
    yield calls


def test_back_restores_and_does_not_replay(race: Session, counted: dict[str, int]) -> None:
    execute(race, "%action Race")
    execute(race, "%step 4")
    counted["on"] = 1
    execute(race, "%back 3")
    assert (counted["start_action"], counted["step"], counted["apply"]) == (0, 0, 0)


def test_back_on_a_replay_restores_and_does_not_replay(tank: Session, counted: dict[str, int]) -> None:
    execute(tank, "%engine check")
    execute(tank, "%check-property NeverNegative")
    execute(tank, "%action Fill")
    execute(tank, "%replay last")
    execute(tank, "%action Fill")
    execute(tank, "%continue")  # to the end of the witness, after 3 moves
    execute(tank, "%continue")  # to the end of the run, after 5
    counted["on"] = 1
    execute(tank, "%back 4")
    assert (counted["start_action"], counted["step"], counted["apply"]) == (0, 0, 0)


# ---------------------------------------------------------------- snapshots released with their run


@pytest.fixture
def taken(monkeypatch: pytest.MonkeyPatch) -> list[Snapshot]:
    """Every snapshot a run is asked for."""
    snapshots: list[Snapshot] = []
    original = Run.snapshot

    def keep(run: Run, allow_replay: bool = False) -> Snapshot:
        snapshot = original(run, allow_replay)
        snapshots.append(snapshot)
        return snapshot

    monkeypatch.setattr(Run, "snapshot", keep)
    return snapshots


def test_one_snapshot_per_step_and_those_gone_back_over_released(race: Session, taken: list[Snapshot]) -> None:
    execute(race, "%action Race")
    execute(race, "%step 4")
    assert len(taken) == 4 and not any(s.released for s in taken)
    execute(race, "%back 3")
    assert [s.released for s in taken] == [False, True, True, True]


@pytest.mark.parametrize("replace", ["%action Race", "%clear", "resubmit"])
def test_a_replaced_run_releases_its_snapshots(race: Session, taken: list[Snapshot], replace: str) -> None:
    execute(race, "%action Race")
    execute(race, "%step 3")
    if replace == "resubmit":
        race.submit(RACE)
    else:
        execute(race, replace)
    assert len(taken) == 3 and all(s.released for s in taken)


def test_a_failing_cell_gives_back_the_run_it_replaced(race: Session, taken: list[Snapshot]) -> None:
    list(execute_cell(race, "%action Race\n%step 3"))
    run = race.run
    with pytest.raises(UsageError):
        list(execute_cell(race, "%action Race\n%step 2\n%back 9"))
    assert race.run is run and not any(s.released for s in taken[:3])
    assert all(s.released for s in taken[3:])  # the failed cell's own run is dropped
    assert text(race, "%back 2").startswith("⏸ back 2 steps: race::Race at step 1")


def test_a_failing_cell_undoes_what_the_run_did(race: Session) -> None:
    """Issue 9: a failing cell leaves the session as it was, the run's steps and %backs included."""
    list(execute_cell(race, "%action Race\n%step 1"))
    trace = race.full_trace()
    with pytest.raises(UnknownCommandError):
        list(execute_cell(race, "%step 3\n%back 1\n%bogus"))
    assert race.run is not None and race.run.step_number == 1 and race.full_trace() == trace
    with pytest.raises(UnknownCommandError):
        list(execute_cell(race, "%back 1\n%step 2\n%bogus"))  # behind the cell's start, then on: remade
    assert race.run.step_number == 1 and race.full_trace() == trace
    assert text(race, "%back 1").startswith("⏸ back 1 step: race::Race at step 0")
    assert said(race, "%step 5").splitlines()[-2:] == ["✓ Action race::Race completed", "  c = 1"]


# ---------------------------------------------------------------- every action of the corpus


def _small(case: Case) -> bool:
    return case.kind == "action" and not case.disputed


def _to_end(session: Session) -> bool:
    """%continue until the run has ended (or a replay finds no move); False if it does not end soon."""
    for _ in range(200):
        run = session.run
        assert run is not None
        if run.finished:
            return True
        if said(session, "%continue").splitlines()[-1].startswith("✗"):
            return True
    return False


def _corpus_session(case: Case, fine: bool, witness: Path) -> Session | None:
    session = Session()
    try:
        session.submit(case.text, case.name)
        subject = entry(case, session.model)
        execute(session, "%trace on")
        if fine:
            execute(session, f"%replay {hand_witness(session, subject, witness)}")
        execute(session, f"%action {subject}")
    except Exception:
        return None
    return session


@pytest.mark.corpus
@pytest.mark.parametrize("fine", [False, True], ids=["steps", "moves"])
def test_every_corpus_action_goes_back_to_every_step_exactly(fine: bool, tmp_path: Path) -> None:
    witness = tmp_path / "first.witness"
    tried = 0
    for case in (c for c in cases("action") if _small(c)):
        session = _corpus_session(case, fine, witness)
        if session is None:
            continue
        if not _to_end(session):
            continue
        whole = ending(session)
        run = session.run
        assert run is not None
        made = len(run.moves_taken) if fine else run.step_number
        if made > 60:
            continue
        tried += 1
        for back in range(1, made + 1):
            execute(session, f"%back {back}")
            assert _to_end(session)
            assert ending(session) == whole, f"{case.name}: back {back} of {made}, then on, differs"
    assert tried > 20, tried


@pytest.mark.corpus
@pytest.mark.parametrize("fine", [False, True], ids=["steps", "moves"])
def test_a_failing_cell_behind_its_start_remakes_the_run_exactly(fine: bool, tmp_path: Path) -> None:
    """A cell that went back behind where it began, stepped on and failed: the run is remade from its
    start, deed by deed (time let pass before a move included), and goes on as if never touched."""
    witness = tmp_path / "first.witness"
    model = WAITS_FOR_CLOCK.read_text(encoding="utf-8")
    straight = replaying(model, "waitsForClock", witness) if fine else started(model, "%action waitsForClock")
    prints: list[str] = []
    while straight.run is not None and not straight.run.finished:
        prints.append(said(straight, "%step"))
    half = len(prints) // 2
    for back in range(1, half + 1):
        session = replaying(model, "waitsForClock", witness) if fine else started(model, "%action waitsForClock")
        execute(session, f"%step {half}")
        seen = (session.full_trace(), session.outputs(), [str(t) for t in session.tokens()])
        with pytest.raises(UnknownCommandError):
            list(execute_cell(session, f"%back {back}\n%step {back + 1}\n%bogus"))
        assert (session.full_trace(), session.outputs(), [str(t) for t in session.tokens()]) == seen, back
        assert [said(session, "%step") for _ in range(len(prints) - half)] == prints[half:], back
        assert ending(session) == ending(straight)
        assert said(session, f"%back {len(prints)}").startswith(f"⏸ back {len(prints)}")
