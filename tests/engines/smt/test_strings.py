"""Strings under the smt engine (tests/engines/smt/models.py STRINGS, answers derived in its
comments): literals, concatenation and equality, sent and accepted; outcome sets are explore's."""

from __future__ import annotations

from tests.engines.smt import models
from tests.engines.smt.agree import explore_outcomes, smt_outcomes
from tests.engines.smt.models import program


def test_concatenation_in_either_order_and_equality() -> None:
    prog = program(models.STRINGS)
    endings = smt_outcomes(prog, "text::Log")
    assert endings == explore_outcomes(prog, "text::Log")
    assert sorted((dict(v)["log"], dict(v)["first"]) for v, _ in endings) == [
        ('"startab"', "true"), ('"startba"', "false")]


def test_a_string_message_taken_oldest_first() -> None:
    prog = program(models.STRINGS)
    endings = smt_outcomes(prog, "text::Words")
    assert endings == explore_outcomes(prog, "text::Words")
    assert sorted(dict(v)["heard"] for v, _ in endings) == ['"go"', '"stop"']


def test_a_free_string_input_the_solver_chooses_replays() -> None:
    from engines.smt.answer import solve
    from engines.witness import replay_run, unreproduced
    from tests.engines.smt.agree import SECONDS

    prog = program(models.STRINGS)
    answer = solve(prog, "text::Login", "holds", properties=("text::NotAdmin",), solver_seconds=SECONDS)
    assert answer.verdict == "violated"
    assert answer.inputs == (("user", "String (any text)"),)
    (witness,) = answer.witnesses
    assert witness.inputs == (("user", '"admin"'),)
    run = replay_run(prog, "text::Login", witness.text())
    assert unreproduced(prog, run, witness) is None
