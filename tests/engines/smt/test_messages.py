"""Send and accept under the smt engine (tests/engines/smt/models.py MESSAGES, answers derived in its
comments): the outcome sets are explore's, each witness replays, a free input decides which message an
accept takes, and k-induction bounds the bus."""

from __future__ import annotations

import pytest

from engines.smt.answer import solve
from engines.witness import replay_run, unreproduced
from tests.engines.smt import models
from tests.engines.smt.agree import SECONDS, explore_outcomes, smt_outcomes
from tests.engines.smt.models import program


@pytest.mark.parametrize("name", ["Handshake", "Requests", "Typed"])
def test_outcomes_are_explores(name: str) -> None:
    prog = program(models.MESSAGES)
    subject = f"bus::{name}"
    assert smt_outcomes(prog, subject) == explore_outcomes(prog, subject)


def test_the_oldest_message_is_taken() -> None:
    answer = solve(program(models.MESSAGES), "bus::Requests", "sensitive", diverge=("last",),
                   solver_seconds=SECONDS)
    assert answer.verdict == "sensitive"
    ((_, values),) = answer.divergent
    assert {v for v, _ in values} == {"1", "2"}


def test_an_accept_takes_what_its_type_admits() -> None:
    endings = smt_outcomes(program(models.MESSAGES), "bus::Typed")
    completed = [dict(v) for v, e in endings if e is None]
    assert completed == [{"rxInt.n": "4", "rxReal.r": "2.5"}]
    assert [e for _, e in endings if e is not None] and all(e.startswith("deadlock") for _, e in endings if e)


def test_a_free_input_no_accept_admits_deadlocks() -> None:
    prog = program(models.MESSAGES)
    answer = solve(prog, "bus::Gate", "holds", solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    (witness,) = answer.witnesses
    ((name, value),) = witness.inputs
    assert name == "level" and int(value) < 0 and "deadlock" in witness.text()
    run = replay_run(prog, "bus::Gate", witness.text())
    assert unreproduced(prog, run, witness) is None
    admitted = solve(prog, "bus::Gate", "holds", assumptions=("bus::NonNegative",), solver_seconds=SECONDS)
    assert admitted.verdict == "proved"


def test_a_signal_handshake_is_proved() -> None:
    answer = solve(program(models.MESSAGES), "bus::Handshake", "holds", properties=("bus::AtMostOne",),
                   induction=True, solver_seconds=SECONDS)
    assert answer.verdict == "proved"


def test_a_loop_accepts_a_message_a_pass() -> None:
    prog = program(models.MESSAGES)
    endings = smt_outcomes(prog, "bus::Collector")
    assert endings == explore_outcomes(prog, "bus::Collector")
    ((values, error),) = endings
    assert error is None and dict(values) == {"passes": "2", "total": "7"}


def test_a_payload_is_read_after_its_accept_in_a_node_body() -> None:
    """`action pass { accept reading : Integer; assign total := total + reading; }`: the accept
    declares `reading`, so the add written after it starts after it (a declaration keeps its place):
    no pass reads a payload it has not taken, and two passes take 3 and 4 in either order."""
    prog = program(models.MESSAGES)
    endings = smt_outcomes(prog, "bus::Racy")
    assert endings == explore_outcomes(prog, "bus::Racy")
    assert endings == [((("total", "7"),), None)]


