"""The check partitioned over Ray workers (engines/check/parallel.py) answers as the sequential check
does: at 1, 2 and 4 workers the very same result, and against the sequential search the same verdict,
states (unreduced: exactly), divergent values, outcomes and violations, over the corpus's check oracles
that the flat form covers, our models, the dependence models and the reduction corpus. Skipped, with
its reason, where Ray is not installed (CI installs it with the dev extra)."""

from __future__ import annotations

import importlib.util
import itertools
import re
from pathlib import Path
from typing import cast

import pytest

import ir
from engines.check.search import check, why_not_flat
from engines.framework import BoundReport, Bounds, Result, Verdict, WorkerFigures
from engines.runtime import Program
from tests.corpus_cases import HAVE_CORPUS, NO_CORPUS, cases, entry
from tests.engines.check.models import DEPENDENCE, REDUCTION
from tests.engines.check.test_flat import FLAT_MODELS, NESTED_FEATURE_TWICE, _actions, _program

NO_RAY = "Ray is not installed: pip install -e '.[ray]'"
pytestmark = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason=NO_RAY)
BOUNDS = Bounds(depth=2_000, states=20_000)
COUNTS = (1, 2, 4)


def _plain(text: str) -> str:
    """A claim's text without token numbers: which token a state's numbering names depends on the
    schedule that first reached it, depth first or breadth first."""
    return re.sub(r"token \d+@", "token @", text)


def _answers(result: Result) -> object:
    return (result.verdict, {f: {v for v, _ in e} for f, e in result.divergent},
            {(o.values, o.violates) for o in result.outcomes},
            sorted((v.kind, _plain(v.text)) for v in result.violations))


def _agree(program: Program, subject: str, reduce: bool = False, bounds: Bounds = BOUNDS,
           counts: tuple[int, ...] = COUNTS) -> None:
    sequential = check(program, subject, bounds, reduce=reduce)
    unreduced = sequential if not reduce else check(program, subject, bounds, reduce=False)
    results = [check(program, subject, bounds.with_(workers=n), reduce=reduce) for n in counts]
    for n, result in zip(counts[1:], results[1:], strict=True):
        assert result == results[0], f"{subject}: {n} workers answer otherwise than 1"
    parallel = results[0]
    assert _answers(parallel) == _answers(sequential), subject
    if reduce:
        # persistent sets alone, per state: at most the unreduced states, every final state kept
        assert sequential.stats.states <= unreduced.stats.states
        assert parallel.stats.states <= unreduced.stats.states
        assert {o.values for o in parallel.outcomes} == {o.values for o in unreduced.outcomes}
    else:
        assert parallel.stats.states == sequential.stats.states, subject
    for witness in parallel.witnesses:
        assert witness.choices  # rebuilt from the partitions' parent links and replayed


def _covered(folder: Path) -> list[tuple[Path, str]]:
    out = []
    for path in sorted(folder.glob("*.sysml")):
        program = _program(path)
        out.extend((path, subject) for subject in _actions(program) if why_not_flat(program, subject) is None)
    return out


# our models, each searched unreduced, and (the flat models; the dependence models' are the reduction
# corpus's kin) reduced too: a case each, so that the test runners share them
OURS = [(path, subject, False) for path, subject in _covered(FLAT_MODELS) + _covered(DEPENDENCE)] + \
    [(path, subject, True) for path, subject in _covered(FLAT_MODELS)]


def test_our_models_are_there() -> None:
    assert len([case for case in OURS if not case[2]]) >= 8


@pytest.mark.parametrize(("path", "subject", "reduce"), OURS,
                         ids=[f"{subject}{' reduced' if reduce else ''}" for _, subject, reduce in OURS])
def test_the_workers_answer_as_the_sequential_search_on_our_models(path: Path, subject: str, reduce: bool) -> None:
    _agree(_program(path), subject, reduce=reduce)


def oracle_actions(flat: bool) -> list[tuple[str, Program, str]]:
    """The corpus's action cases with a check oracle (undisputed) whose action the flat form covers, or
    (not `flat`) does not: name, program, action."""
    out = []
    for case in cases("action"):
        if case.check is None or case.disputed:
            continue
        model = ir.resolve([ir.parse(case.text, case.name)])
        program, subject = Program(model), entry(case, model)
        if (why_not_flat(program, subject) is None) == flat:
            out.append((case.name, program, subject))
    return out


@pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
def test_the_workers_answer_as_the_sequential_search_on_the_check_oracles() -> None:
    covered = oracle_actions(flat=True)
    assert len(covered) >= 3
    for _, program, subject in covered:
        _agree(program, subject)


@pytest.mark.skipif(not HAVE_CORPUS, reason=NO_CORPUS)
def test_the_reduced_workers_reach_the_unreduced_final_states_on_the_reduction_corpus() -> None:
    subjects = _covered(REDUCTION)
    assert subjects
    for path, subject in subjects:
        _agree(_program(path), subject, reduce=True)


def test_bounds_hold_across_workers() -> None:
    program = _program(FLAT_MODELS / "controller.sysml")
    small = Bounds(depth=2_000, states=40)
    results = [check(program, "controller::Control", small.with_(workers=n)) for n in COUNTS]
    assert all(r == results[0] for r in results)
    assert results[0].verdict in (Verdict.INCOMPLETE, Verdict.DIVERGENT, Verdict.WITHIN_BOUNDS)
    assert any(b.name == "states" and b.reached for b in results[0].bounds)
    shallow = [check(program, "controller::Control", Bounds(depth=5, workers=n)) for n in COUNTS]
    assert all(r == shallow[0] for r in shallow)
    assert any(b.name == "depth" and b.reached for b in shallow[0].bounds)


def test_the_progress_tells_each_workers_share() -> None:
    """Between rounds the driver tells the progress line the states, moves and level so far, and each
    worker's share: the states it owns (for a flat action, all the check counts), those left to expand
    (a round follows), its memory."""
    program = _program(FLAT_MODELS / "controller.sysml")
    for n in (1, 2):
        told: list[tuple[int, int, int, tuple[WorkerFigures, ...]]] = []

        def progress(states: int, moves: int, depth: int, workers: tuple[WorkerFigures, ...] = ()) -> None:
            told.append((states, moves, depth, workers))  # noqa: B023 (called before the next n)
        result = check(program, "controller::Control", BOUNDS.with_(workers=n), progress=progress)
        assert len(told) >= 3
        for (_, moves, level, _), (_, later_moves, later_level, _) in itertools.pairwise(told):
            assert later_moves > moves and later_level > level
        for states, _, _, workers in told:
            assert len(workers) == n and sum(w.states for w in workers) == states <= result.stats.states
            assert sum(w.frontier for w in workers) > 0 and all(w.memory > 0 for w in workers)


@pytest.mark.parametrize("where", ["between rounds", "within a round"])
def test_an_interrupt_stops_every_worker_and_leaves_them_for_the_next_check(where: str,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver looks at the interrupt before each round and, while the workers run one, every POLL
    seconds: there it cancels the round (each worker stops within LOOK states). Either way the report
    has what was searched, and the workers answer the next check in full."""
    from engines.check import parallel

    program = _program(FLAT_MODELS / "controller.sysml")
    whole = check(program, "controller::Control", BOUNDS.with_(workers=2))
    looks = itertools.count()
    if where == "within a round":
        monkeypatch.setattr(parallel, "POLL", 0.0)  # the second look is made while the first round runs
        cut = check(program, "controller::Control", BOUNDS.with_(workers=2), interrupted=lambda: next(looks) >= 1)
    else:
        cut = check(program, "controller::Control", BOUNDS.with_(workers=2), interrupted=lambda: next(looks) >= 2)
    assert cut.incomplete == "interrupted" and cut.verdict is Verdict.INCOMPLETE
    assert 0 < cut.stats.states < whole.stats.states
    monkeypatch.undo()
    assert check(program, "controller::Control", BOUNDS.with_(workers=2)) == whole


def test_the_memory_bound_holds_across_workers() -> None:
    """The memory bound is the check's: the workers' resident memory together (each stops its round where
    it holds more than its share)."""
    program = _program(FLAT_MODELS / "controller.sysml")
    for n in (None, *COUNTS):
        result = check(program, "controller::Control", BOUNDS.with_(workers=n, memory=1))
        assert result.verdict is Verdict.INCOMPLETE and result.incomplete == "memory", n
        assert result.bound("memory") is not None and cast("BoundReport", result.bound("memory")).reached


def test_without_ray_workers_are_refused_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from engines.check import parallel

    real = importlib.util.find_spec
    monkeypatch.setattr(parallel.importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    assert not parallel.status().ready and ".[ray]" in parallel.status().text
    with pytest.raises(parallel.ParallelUnavailable, match=r"\.\[ray\]"):
        parallel.connect()


def test_the_fixed_order_keeps_the_same_witnesses_at_any_count() -> None:
    program = _program(FLAT_MODELS / "till.sysml")
    texts = {str(check(program, "till::Ring", BOUNDS.with_(workers=n)).witnesses) for n in COUNTS}
    assert len(texts) == 1


def test_a_flat_search_given_up_partway_keeps_its_workers() -> None:
    """merged::Log's flat form meets two performances of one node at once partway, and the interpreter
    searches next: on the same workers (a new pool took seconds to start), answering as alone."""
    from engines.check import parallel

    program = _program(FLAT_MODELS / "merged.sysml")
    assert why_not_flat(program, "merged::Log") is None  # (refused only partway)
    first = check(program, "merged::Log", BOUNDS.with_(workers=2))
    pool = list(parallel._POOL)
    again = check(program, "merged::Log", BOUNDS.with_(workers=2))
    assert len(pool) >= 2 and len(parallel._POOL) == len(pool)
    assert all(kept is held for kept, held in zip(parallel._POOL, pool, strict=True))
    assert again == first
    assert _answers(first) == _answers(check(program, "merged::Log", BOUNDS))


def test_a_steps_features_in_a_node_performed_twice_at_once_are_searched_alike_in_any_order() -> None:
    program = Program(ir.resolve([ir.parse(NESTED_FEATURE_TWICE, "twice.sysml")]))
    sequential = check(program, "g::m", BOUNDS, reduce=False)
    parallel = check(program, "g::m", BOUNDS.with_(workers=2), reduce=False)
    assert _answers(parallel) == _answers(sequential)
    assert parallel.stats.states == sequential.stats.states


# a5 performed twice at once (behind a merge) while `peek` reads its feature through the node's pin (`seen`
# may hold none: read before a5 began, the pin names no performance)
PEEK_TWICE = """package g2 {
    private import ScalarValues::*;
    action m {
        attribute x : Integer := 0;
        attribute seen : Integer[0..1] := 0;
        first start;
        fork f1;
        action l2;
        action r3;
        merge m4;
        action a5 {
            attribute t : Integer := x;
            action u1 { assign x := t + 10; }
            action u2 { assign x := x + 1; }
            first u1 then u2;
        }
        action l6;
        action peek { assign seen := a5.t; }
        done;
        succession first start then f1;
        succession first f1 then l2;
        succession first f1 then r3;
        succession first f1 then l6;
        succession first l2 then m4;
        succession first r3 then m4;
        succession first m4 then a5;
        succession first l6 then peek;
        succession first a5 then done;
        succession first peek then done;
    }
}
"""


@pytest.mark.parametrize("reduce", [False, True])
def test_which_performance_a_pin_names_is_part_of_the_state_where_a_chain_reads_through_it(reduce: bool) -> None:
    """Each performance of a5 ends its own performance (it had ended whichever was pinned last, sealing the
    other while it ran), and where both are under way, which one `a5.t` reads is in the state: the search
    keeps the same states in any order it meets them."""
    program = Program(ir.resolve([ir.parse(PEEK_TWICE, "peek.sysml")]))
    sequential = check(program, "g2::m", BOUNDS, reduce=reduce)
    for workers in (1, 2):
        parallel = check(program, "g2::m", BOUNDS.with_(workers=workers), reduce=reduce)
        assert _answers(parallel) == _answers(sequential)
        assert parallel.stats.states == sequential.stats.states
    seen = {dict(outcome.values)["seen"] for outcome in sequential.outcomes}
    assert seen == {"0", "10", "11", "<unset>"}
