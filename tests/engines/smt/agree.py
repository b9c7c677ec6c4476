"""The two sides the smt tests over our own models compare: smt's outcome set (each witness replayed)
and explore's."""

from __future__ import annotations

from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program
from engines.smt.answer import solve
from engines.witness import replay_run, unreproduced

SECONDS = 600.0  # no solver timeout a loaded machine reaches
Outcome = tuple[tuple[tuple[str, str], ...], str | None]


def smt_outcomes(prog: Program, subject: str, depth: int | None = None) -> list[Outcome]:
    """Every final state smt enumerates, once each witness has replayed to it (`depth`: k, where the
    longest schedule is known to be shorter than the default k, so the query is smaller)."""
    answer = solve(prog, subject, "outcomes", depth=depth, solver_seconds=SECONDS)
    assert answer.verdict == "complete", answer.reason
    for witness in answer.witnesses:
        run = replay_run(prog, subject, witness.text())
        assert unreproduced(prog, run, witness) is None
    return sorted(((values, error) for values, error, _ in answer.outcomes), key=repr)


def explore_outcomes(prog: Program, subject: str) -> list[Outcome]:
    explored = explore(Program(prog.model), subject, Bounds(runs=4096))
    assert explored.verdict is Verdict.COMPLETE
    return sorted(((o.values, o.error) for o in explored.outcomes), key=repr)
