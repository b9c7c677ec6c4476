"""A finished performance's values nothing reads again are left out of the compared state, and the
check still reaches every outcome explore reaches: where a later node reads a finished pin (by a
chain or a bare name), the pin's values stay in the state and both orders' outcomes are found."""

from __future__ import annotations

import subprocess
import sys

import pytest

import ir
from engines.check import check
from engines.explore import explore
from engines.framework import Bounds
from engines.runtime import Program
from tests.corpus_cases import CONFORMANCE
from tests.engines.check.models import final_states, normal

READ_LATER = """package p {{
 private import ScalarValues::*;
 action def ReadLater {{
  attribute c : Integer := 0;
  attribute seen : Integer := -1;
  first start;
  then fork f;
  action a {{ attribute t : Integer := c; assign c := t + 1; }}
  action b {{ assign c := c + 10; }}
  succession first f then a;
  succession first f then b;
  succession first a then j;
  succession first b then j;
  join j;
  then r;
  action r {{ assign seen := {read}; }}
  then done;
 }}
}}
"""


def _outcomes_agree(text: str, name: str) -> set[tuple[tuple[str, str | None], ...]]:
    program = Program(ir.resolve([ir.parse(text, "liveness")]))
    for reduce in (True, False):
        result = check(program, name, Bounds(depth=2_000, states=50_000), reduce=reduce)
        keys = {k for o in result.outcomes for k, _ in o.values}
        runs = explore(program, name, Bounds(runs=5_000))
        reached = {tuple((k, normal(v)) for k, v in o.values if k in keys) for o in runs.outcomes}
        assert final_states(result) == reached
    return final_states(result)


@pytest.mark.parametrize("read", ["a.t", "t"])
def test_a_finished_pin_read_later_keeps_its_values(read: str) -> None:
    finals = _outcomes_agree(READ_LATER.format(read=read), "p::ReadLater")
    # a then b leaves t = 0, b then a leaves t = 10; c ends 11 either way: only t tells them apart
    assert {dict(f)["seen"] for f in finals} == {"0", "10"}


@pytest.mark.corpus
def test_values_nothing_reads_again_are_left_out_and_every_outcome_is_found() -> None:
    gen = CONFORMANCE.parent.parent / "bench" / "gen_scaling.py"
    text = subprocess.run([sys.executable, str(gen), "racy", "2", "2"], capture_output=True, text=True,
                          check=True).stdout
    name = subprocess.run([sys.executable, str(gen), "--name", "racy", "2", "2"], capture_output=True, text=True,
                          check=True).stdout.strip()
    _outcomes_agree(text, name)
    program = Program(ir.resolve([ir.parse(text, "liveness")]))
    kept = check(program, name, diverge=("c", "b1_1.t"))  # naming a nested feature keeps it
    left_out = check(program, name)
    assert left_out.stats.states < kept.stats.states


def _every_action() -> list[object]:
    from tests.corpus_cases import cases
    from tests.engines.check.models import dependence_models, reduction_models

    picked: list[object] = [pytest.param(c, id=c.name) for c in cases("action")]
    picked += [pytest.param(m, id=m.name) for m in dependence_models() + reduction_models() if m.action is not None]
    return picked


def _answer(result: object) -> tuple[object, ...]:
    r = result  # a Result: what a modeler reads of it, the counts aside
    return (r.verdict, tuple((f, tuple(v for v, _ in vals)) for f, vals in r.divergent),  # type: ignore[attr-defined]
            tuple(sorted(o.values for o in r.outcomes)),  # type: ignore[attr-defined]
            tuple((v.kind, v.text) for v in r.violations))  # type: ignore[attr-defined]


@pytest.mark.parametrize("subject", _every_action())
def test_leaving_dead_values_out_changes_no_answer(subject: object, monkeypatch: pytest.MonkeyPatch) -> None:
    """Over every action of the corpus and the dependence models: the same verdict, divergent values,
    outcomes and violations as a search comparing every value."""
    from engines.check import search
    from engines.errors import SysmlError
    from tests.corpus_cases import entry

    if hasattr(subject, "text"):
        try:
            model = ir.resolve([ir.parse(subject.text, subject.name)])  # type: ignore[attr-defined]
            program, name = Program(model), entry(subject, model)  # type: ignore[arg-type]
            program.start_action(name, fine=True)
        except SysmlError as err:
            pytest.skip(f"does not start (its expectation is the error): {err}")
    else:
        program, name = subject.program(), subject.action  # type: ignore[attr-defined]
    bounds = Bounds(depth=2_000, states=20_000)
    left_out = check(program, name, bounds)
    monkeypatch.setattr(search, "readable_after_end", lambda model, named=(): None)
    every = check(program, name, bounds)
    assert _answer(left_out) == _answer(every)
