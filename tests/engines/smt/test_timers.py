"""Timers under the smt engine (tests/engines/smt/models.py TIMERS, answers derived in its comments):
`accept after` on the run's one clock, time passing where no move is enabled; outcome sets are
explore's, every witness replayed."""

from __future__ import annotations

import pytest

from engines.smt.answer import solve
from tests.engines.smt import models
from tests.engines.smt.agree import SECONDS, explore_outcomes, smt_outcomes
from tests.engines.smt.models import program


@pytest.mark.parametrize(("subject", "feature", "values"), [
    ("clock::Watchdog", "seen", ["4"]),
    ("clock::Stagger", "x", ["12"]),
    ("clock::Tie", "x", ["12", "21"]),
    ("clock::Delayed", "got", ["5"]),
    ("clock::Poll", "count", ["3"]),
    ("clock::Instant", "n", ["1"]),
    ("clock::Deadline", "checked", ["1"]),
])
def test_waits_end_when_the_clock_reaches_them(subject: str, feature: str, values: list[str]) -> None:
    prog = program(models.TIMERS)
    endings = smt_outcomes(prog, subject)
    assert endings == explore_outcomes(prog, subject)
    assert sorted(dict(v)[feature] for v, _ in endings) == values


def test_a_tie_at_one_instant_is_a_sensitivity_whose_witnesses_replay() -> None:
    from engines.witness import replay_run, unreproduced

    prog = program(models.TIMERS)
    answer = solve(prog, "clock::Tie", "sensitive", diverge=("x",), solver_seconds=SECONDS)
    assert answer.verdict == "sensitive"
    assert len(answer.witnesses) == 2
    for witness in answer.witnesses:
        # the clock is no move: the witness lists the moves alone, and a replay lets time pass itself
        assert not any("time" in c.taken for c in witness.choices)
        assert unreproduced(prog, replay_run(prog, "clock::Tie", witness.text()), witness) is None


def test_a_bounded_loop_of_timed_rounds_is_proved() -> None:
    prog = program(models.TIMERS)
    answer = solve(prog, "clock::Poll", "holds", properties=("clock::AtMostThree",), solver_seconds=SECONDS)
    assert answer.verdict == "proved", (answer.reason, answer.notes)


def test_an_endless_heartbeat_is_proved_by_induction() -> None:
    prog = program(models.TIMERS)
    bounded = solve(prog, "clock::Heartbeat", "holds", properties=("clock::Binary",), solver_seconds=SECONDS)
    assert bounded.verdict == "no violation within 40 moves"
    answer = solve(prog, "clock::Heartbeat", "holds", properties=("clock::Binary",), induction=True,
                   solver_seconds=SECONDS)
    assert answer.verdict.startswith("proved, unbounded"), (answer.reason, answer.notes)


def test_a_wait_whose_duration_reads_a_feature_is_refused() -> None:
    answer = solve(program(models.TIMERS), "clock::Reads", "outcomes", solver_seconds=SECONDS)
    assert answer.verdict == "not covered"
    assert answer.reason == "not covered: accept after a time that reads a feature at node 'w'"
