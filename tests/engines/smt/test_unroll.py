"""The unrolling's steps: each step's relation is the first step's over its own variables (unroll._Step,
by z3's substitution), which must be the very terms the encoder makes for that step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engines.errors import EngineError
from engines.runtime import Program
from engines.smt import unroll
from engines.smt.answer import own_context
from engines.smt.net import Net, build
from tests.engines.smt.models import program

FRESH = Path(__file__).parent / "fresh"


def _assertions(prog: Program, net: Net, subject: str) -> list[Any]:
    made = unroll.Unrolled(net, prog, subject, 3, (), ("", "B"), None, frozenset(), None)
    return list(made.solver.assertions())


@pytest.mark.parametrize("name", sorted(p.stem for p in FRESH.glob("*.sysml")))
def test_each_steps_relation_is_the_one_the_encoder_makes_for_it(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    prog = program((FRESH / f"{name}.sysml").read_text(encoding="utf-8"))
    encoded = 0
    for subject in prog.model.behaviors("action"):
        with own_context():  # two copies: the first as a lone copy has it, then one from its start
            try:
                net = build(prog, prog.action(subject))
                substituted = _assertions(prog, net, subject)
            except EngineError:  # what the solver is not asked (solve: not covered)
                continue
            with monkeypatch.context() as direct:
                def made_again(step: Any, before: Any, after: Any, taken: Any) -> list[Any]:
                    return list(step.builder.transitions(before, after, taken))

                direct.setattr(unroll._Step, "at", made_again)
                again = _assertions(prog, net, subject)
            # one context holds each term once: the same term is the same node (eq is identity)
            assert len(substituted) == len(again), subject
            assert all(a.eq(b) for a, b in zip(substituted, again, strict=True)), subject
        encoded += 1
    assert encoded, f"no action of {name}.sysml is encoded"
