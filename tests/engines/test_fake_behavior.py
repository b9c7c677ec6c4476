"""The engines are behavior-agnostic: a counter that is no action, checked, explored and replayed
through the behavior protocol alone (tests/engines/fake_behavior.py), alone and in an ensemble."""

from __future__ import annotations

from engines.check.search import check_behavior
from engines.explore import explore_behavior
from engines.framework import Bounds, Verdict
from engines.runtime.behavior import Behavior
from engines.runtime.ensemble import Ensemble
from engines.runtime.world import Context
from engines.witness import replay
from tests.engines.fake_behavior import Counter, new_world


def _counter(shared: bool) -> Behavior:
    return Counter(new_world(), shared)


def _values(result: object) -> set[tuple[tuple[str, str], ...]]:
    return {o.values for o in result.outcomes}  # type: ignore[attr-defined]


def test_a_shared_counter_diverges_on_the_order_of_its_two_moves() -> None:
    """(1 + 1) * 2 = 4 and 1 * 2 + 1 = 3: the two orders, each with a witness that replays."""
    for reduce in (True, False):
        result = check_behavior(lambda: _counter(True), "counter", Bounds(), diverge=("n",), reduce=reduce)
        assert result.verdict is Verdict.DIVERGENT
        assert result.divergent == (("n", (("3", 2), ("4", 1))),)
        assert not result.notes
        assert result.stats.states == 5  # start, after either move, the two ends
        first, second = result.witnesses  # numbered by their schedules: inc first, then dbl first
        assert [c.taken for c in first.choices] == ["1@inc", "2@dbl"]
        assert [c.taken for c in second.choices] == ["2@dbl", "1@inc"]
        assert second.trace == ("2@dbl: n = 2", "1@inc: n = 3")


def test_independent_counters_are_one_interleaving_reduced_and_the_same_ends() -> None:
    reduced = check_behavior(lambda: _counter(False), "counters", Bounds(), diverge=("a", "b"))
    full = check_behavior(lambda: _counter(False), "counters", Bounds(), diverge=("a", "b"), reduce=False)
    assert reduced.verdict is full.verdict is Verdict.EXHAUSTIVE
    assert _values(reduced) == _values(full) == {(("a", "1"), ("b", "2"))}
    assert (reduced.stats.states, full.stats.states) == (3, 4)


def test_explore_runs_both_orders_of_the_counter() -> None:
    result = explore_behavior(lambda: _counter(True), "counter", Bounds())
    assert result.verdict is Verdict.COMPLETE
    assert result.stats.runs == 2
    assert _values(result) == {(("n", "3"),), (("n", "4"),)}


def test_a_path_replays_through_the_protocol() -> None:
    start = _counter(True)
    path = [m for m in start.enabled_moves() if m.label == "1@inc"]
    behavior, trace, error = replay(lambda: _counter(True), path)
    assert error is None and trace == ["1@inc: n = 2"]
    assert behavior.outputs() == {"n": "2"} and not behavior.finished


def test_a_snapshot_of_a_counter_restores_it() -> None:
    counter = _counter(True)
    snapshot = counter.snapshot()
    counter.apply(counter.enabled_moves()[0])
    assert counter.outputs() == {"n": "2"}
    snapshot.restore(last=True)
    assert counter.outputs() == {"n": "1"} and len(counter.enabled_moves()) == 2


def _ensemble(shared: bool) -> Behavior:
    world = new_world()
    return Ensemble(world, [("left", Counter(world, shared)), ("right", Counter(world, False))])


def test_two_behaviors_in_one_world_offer_their_moves_together() -> None:
    ensemble = _ensemble(True)
    assert [m.label for m in ensemble.enabled_moves()] == ["left: 1@inc", "left: 2@dbl", "right: 1@inc",
                                                           "right: 2@dbl"]
    assert len({m.actor for m in ensemble.enabled_moves()}) == 4
    ensemble.apply(ensemble.enabled_moves()[2])
    assert ensemble.outputs() == {"a": "1", "b": "1", "n": "1"}


def test_an_ensemble_is_checked_and_reduced_like_one_behavior() -> None:
    """Left's two moves conflict, right's two are independent of everything: reduced, right's moves
    are taken in one order, and the ends are those of the full search."""
    reduced = check_behavior(lambda: _ensemble(True), "both", Bounds(), diverge=("n", "a", "b"))
    full = check_behavior(lambda: _ensemble(True), "both", Bounds(), diverge=("n", "a", "b"), reduce=False)
    assert reduced.verdict is full.verdict is Verdict.DIVERGENT
    assert reduced.divergent == full.divergent
    assert _values(reduced) == _values(full)
    assert reduced.stats.states < full.stats.states
    assert not reduced.notes and not full.notes


class _Resting(Counter):
    """A behavior that never ends and never moves: quiescent (a machine waiting for an event nothing
    sends), or, when `why` is given, stuck (an action waiting at an accept nothing feeds)."""

    def __init__(self, world: Context, why: str | None = None) -> None:
        super().__init__(world, False)
        self.left = ()
        self.why = why

    @property
    def finished(self) -> bool:
        return False

    def stuck(self) -> str | None:
        return self.why


def test_an_ensemble_whose_other_member_rests_ends_there_and_one_stuck_is_a_deadlock() -> None:
    def resting(why: str | None) -> Behavior:
        world = new_world()
        return Ensemble(world, [("left", Counter(world, True)), ("idle", _Resting(world, why))])

    quiet = check_behavior(lambda: resting(None), "quiet", Bounds(), diverge=("n",))
    assert quiet.verdict is Verdict.DIVERGENT and not quiet.violations
    assert quiet.divergent == (("n", (("3", 2), ("4", 1))),)
    stuck = check_behavior(lambda: resting("deadlock: token 1@take waits"), "stuck", Bounds(), diverge=("n",))
    assert stuck.verdict is Verdict.VIOLATION
    assert {v.text for v in stuck.violations} == {"idle: token 1@take waits"}
