"""engines.runtime.schedule: policy names, the order each policy takes moves in, and runs under them."""

from __future__ import annotations

import pytest

import ir
from engines.errors import ScheduleError
from engines.runtime import ChoiceKind, Move, Program, make_scheduler, parse_schedule
from engines.runtime.actions.moves import token_move
from tests.corpus_cases import CONFORMANCE

RACE = CONFORMANCE / "action_explore_write_between_branch_nodes.sysml"
LOST_UPDATE = CONFORMANCE / "action_explore_body_fork_lost_update.sysml"


def _moves(*tokens: int) -> list[Move]:
    return [token_move(t, f"n{t}") for t in tokens]


@pytest.mark.parametrize(("text", "canonical"), [
    ("reverse", "reverse"),
    ("declared", "declared"),
    ("  declared ", "declared"),
    ("seed:0", "seed:0"),
    ("seed:42", "seed:42"),
    ("seed:007", "seed:7"),
])
def test_parse_schedule_accepts_the_three_policies(text: str, canonical: str) -> None:
    assert parse_schedule(text) == canonical


@pytest.mark.parametrize("text", ["random", "", "seed:", "seed:-1", "seed:x", "Reverse", "seed 3", "declared,reverse"])
def test_parse_schedule_rejects_others_listing_the_policies(text: str) -> None:
    with pytest.raises(ScheduleError) as info:
        parse_schedule(text)
    message = str(info.value)
    assert f"unknown schedule '{text.strip()}'" in message
    for policy in ("reverse", "declared", "seed:<n>"):
        assert policy in message


def test_schedule_error_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        make_scheduler("bogus")


def test_move_label() -> None:
    assert token_move(2, "heat").label == "2@heat"
    assert token_move(2, "d", "cold").label == "2@d to cold"


def test_reverse_takes_tokens_in_descending_order() -> None:
    scheduler = make_scheduler("reverse")
    assert scheduler.name == "reverse"
    assert [m.actor for m in scheduler.order(_moves(2, 5, 1, 3))] == [5, 3, 2, 1]
    assert scheduler.pick(ChoiceKind.DECISION_BRANCH, ["a", "b"]) == 0


def test_declared_takes_tokens_in_ascending_order() -> None:
    scheduler = make_scheduler("declared")
    assert scheduler.name == "declared"
    assert [m.actor for m in scheduler.order(_moves(2, 5, 1, 3))] == [1, 2, 3, 5]
    assert scheduler.pick(ChoiceKind.DECISION_BRANCH, ["a", "b"]) == 0


def test_order_does_not_mutate_its_input() -> None:
    moves = _moves(3, 1, 2)
    make_scheduler("declared").order(moves)
    make_scheduler("seed:1").order(moves)
    assert [m.actor for m in moves] == [3, 1, 2]


def test_seeded_orders_are_permutations_reproducible_for_the_same_seed() -> None:
    moves = _moves(*range(1, 9))
    first, second = make_scheduler("seed:3"), make_scheduler("seed:3")
    assert first.name == "seed:3"
    runs_a = [[m.actor for m in first.order(moves)] for _ in range(5)]
    runs_b = [[m.actor for m in second.order(moves)] for _ in range(5)]
    assert runs_a == runs_b
    for order in runs_a:
        assert sorted(order) == list(range(1, 9))
    picks_a = [first.pick(ChoiceKind.DECISION_BRANCH, ["a", "b", "c"]) for _ in range(20)]
    picks_b = [second.pick(ChoiceKind.DECISION_BRANCH, ["a", "b", "c"]) for _ in range(20)]
    assert picks_a == picks_b
    assert all(0 <= p < 3 for p in picks_a)


def test_seeded_orders_do_not_depend_on_the_input_order() -> None:
    a = make_scheduler("seed:11").order(_moves(1, 2, 3, 4, 5))
    b = make_scheduler("seed:11").order(_moves(5, 4, 3, 2, 1))
    assert [m.actor for m in a] == [m.actor for m in b]


def test_different_seeds_give_different_orders_somewhere() -> None:
    moves = _moves(*range(1, 9))
    orders = {tuple(m.actor for m in make_scheduler(f"seed:{n}").order(moves)) for n in range(10)}
    assert len(orders) > 1


def test_seeded_pick_of_no_options_is_zero() -> None:
    assert make_scheduler("seed:1").pick(ChoiceKind.TRANSITION, []) == 0


def _outputs(path: str, action: str, schedule: str) -> dict[str, str]:
    text = (CONFORMANCE / path).read_text(encoding="utf-8")
    run = Program(ir.resolve([ir.parse(text, path)])).start_action(action, schedule=schedule)
    run.run_to_end()
    assert run.status == "completed"
    return run.outputs()


@pytest.mark.corpus
def test_a_fork_race_ends_differently_under_declared_and_reverse() -> None:
    name = RACE.name
    reverse = _outputs(name, "test::overtake", "reverse")
    declared = _outputs(name, "test::overtake", "declared")
    # reverse lets `right` (the later token) write x first, so left1's write stands and left2 copies it
    assert reverse == {"x": "1", "y": "1"}
    assert declared == {"x": "2", "y": "2"}
    assert _outputs(name, "test::overtake", "reverse") == reverse
    assert _outputs(name, "test::overtake", "declared") == declared


@pytest.mark.corpus
def test_a_lost_update_race_leaves_the_other_branch_snapshot() -> None:
    name = LOST_UPDATE.name
    reverse = _outputs(name, "test::ForkPlain", "reverse")
    declared = _outputs(name, "test::ForkPlain", "declared")
    assert reverse["c"] == declared["c"] == "2"
    assert (reverse["a.t"], reverse["b.t"]) == ("1", "0")
    assert (declared["a.t"], declared["b.t"]) == ("0", "1")
    assert _outputs(name, "test::ForkPlain", "declared") == declared


@pytest.mark.corpus
def test_seeded_runs_are_reproducible() -> None:
    name = RACE.name
    for seed in range(4):
        assert _outputs(name, "test::overtake", f"seed:{seed}") == _outputs(name, "test::overtake", f"seed:{seed}")


@pytest.mark.corpus
def test_start_action_rejects_an_unknown_schedule() -> None:
    text = RACE.read_text(encoding="utf-8")
    with pytest.raises(ScheduleError):
        Program(ir.resolve([ir.parse(text, RACE.name)])).start_action("test::overtake", schedule="fastest")
