"""Models answered by hand, held against every engine: the default run's values and the set of every
outcome any schedule reaches (explore's, and check's, reduced or not). Shared by the model sets of
tests/engines/runtime/control/ and flows_fresh/."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import ir
from engines.check import check
from engines.explore import explore
from engines.framework import Bounds, Verdict
from engines.runtime import Program

Values = frozenset[tuple[str, str]]


@dataclass(frozen=True)
class Answer:
    """What a model must give: the default run's values, and every outcome any schedule reaches."""

    model: str
    action: str
    run: dict[str, str]
    outcomes: frozenset[Values]
    features: tuple[str, ...] = ()  # the features compared (default: those `run` names)

    def compared(self) -> tuple[str, ...]:
        return self.features or tuple(sorted(self.run))


def outcomes(*rows: dict[str, str]) -> frozenset[Values]:
    return frozenset(frozenset(r.items()) for r in rows)


def program(folder: Path, model: str) -> Program:
    path = folder / f"{model}.sysml"
    return Program(ir.resolve([ir.parse(path.read_text(encoding="utf-8"), path.name)]))


def assert_default_run(folder: Path, answer: Answer) -> None:
    run = program(folder, answer.model).start_action(answer.action)
    run.run_to_end()
    assert run.status == "completed", run.error
    outputs = run.outputs()
    assert {k: outputs.get(k) for k in answer.compared()} == answer.run


def assert_every_outcome(folder: Path, answer: Answer, reductions: tuple[bool, ...] = (True,)) -> None:
    """explore reaches exactly the answer's outcomes, with no failure; check, with each of
    `reductions`, exactly explore's, no violation."""
    keys = answer.compared()
    explored = explore(program(folder, answer.model), answer.action, Bounds(runs=20_000))
    assert explored.verdict is Verdict.COMPLETE, explored.incomplete
    assert all(o.error is None for o in explored.outcomes), [o.error for o in explored.outcomes]
    reached = frozenset(frozenset((k, dict(o.values).get(k, "<unset>")) for k in keys) for o in explored.outcomes)
    assert reached == answer.outcomes
    for reduce in reductions:
        checked = check(program(folder, answer.model), answer.action, Bounds(), diverge=keys, reduce=reduce)
        assert checked.verdict in (Verdict.EXHAUSTIVE, Verdict.DIVERGENT), checked.verdict
        assert not checked.violations, checked.violations
        assert all(o.error is None for o in checked.outcomes)
        found = frozenset(frozenset(o.values) for o in checked.outcomes)
        assert found == reached, (reduce, found)
