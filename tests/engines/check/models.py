"""The models the check tests range over: the reduction corpus, the dependence models, and helpers."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import ir
from engines.check import check
from engines.framework import Bounds, Result
from engines.runtime import Program
from ir import syntax as s
from tests.corpus_cases import CORPUS

HERE = Path(__file__).resolve().parent
DEPENDENCE = HERE / "dependence"
REDUCTION = CORPUS / "reduction"

@dataclass(frozen=True)
class Model:
    """One model file of a corpus: its name (`corpus/file stem`), its path, and the action it checks."""

    name: str
    path: Path
    action: str | None  # None: the model is a state machine's (or has no action)

    def program(self) -> Program:
        return Program(ir.resolve([ir.parse(self.path.read_text(encoding="utf-8"), self.path.stem)]))


def _model(corpus: str, path: Path) -> Model:
    doc = ir.parse(path.read_text(encoding="utf-8"), path.stem)
    actions: list[str] = []
    machine = False
    for member in doc.members:
        if not isinstance(member, s.Package):
            continue
        for inner in member.members:
            if isinstance(inner, (s.Definition, s.Usage)) and inner.kind == "state":
                machine = True
            if isinstance(inner, s.Usage) and inner.kind == "action" and inner.name:
                actions.append(f"{member.name}::{inner.name}")
    action = actions[0] if actions and not machine else None
    return Model(f"{corpus}/{path.stem}", path, action)


def reduction_models() -> list[Model]:
    """Every model of ../shared/corpus/reduction, state machines' included (action None)."""
    return [_model("reduction", p) for p in sorted(REDUCTION.glob("*.sysml"))]


def dependence_models() -> list[Model]:
    """The small action models here, one per dependence clause of the independence relation."""
    return [_model("dependence", p) for p in sorted(DEPENDENCE.glob("*.sysml"))]


def normal(value: str | None) -> str | None:
    """A value as compared: numbers by value (`2.0` is `2`), everything else as spelled."""
    if value is None:
        return None
    try:
        return str(Fraction(value))
    except (ValueError, ZeroDivisionError):
        return value


def final_states(result: Result) -> set[tuple[tuple[str, str | None], ...]]:
    """The final states a check reached: every outcome's values, numbers by value."""
    return {tuple((k, normal(v)) for k, v in o.values) for o in result.outcomes}


def checked(program: Program, subject: str, reduce: bool, bounds: Bounds | None = None) -> Result:
    """A check of every attribute (diverge=None), reduced or not, within generous default bounds."""
    return check(program, subject, bounds or Bounds(depth=2_000, states=50_000), reduce=reduce)
