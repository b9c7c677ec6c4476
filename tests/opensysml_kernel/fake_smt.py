"""A stand-in smt engine for the faces' tests: it answers as a solver would word it (proved, violated,
sensitive, not covered, with bounds, inputs and assumptions), taking its findings from the check
engine so that its witnesses are real and replay. The faces must not tell it from the real one."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engines.check.properties import resolve_properties
from engines.check.search import check
from engines.errors import EngineError
from engines.framework import (
    BoundReport,
    Bounds,
    Claims,
    Hooks,
    Input,
    Question,
    QuestionKind,
    Result,
    Stats,
    Status,
    Strength,
    Verdict,
    judge,
)
from engines.runtime import Program


class UnknownInputError(EngineError, LookupError):
    """An input that names no feature of the action."""


@dataclass
class FakeSmt:
    name: str = "smt"
    answers: tuple[QuestionKind, ...] = (QuestionKind.HOLDS, QuestionKind.SENSITIVE)
    strength: Strength = Strength.PROVED
    reads: frozenset[str] = frozenset({"properties", "diverge", "inputs", "assumptions", "depth", "unroll",
                                       "solver_timeout", "induction", "witness_dir"})
    default_depth: int = 40
    ready: bool = True
    lie: bool = False  # answer "not sensitive" whatever the schedules do (a disagreement to flag)
    asked: list[tuple[Question, Bounds]] = field(default_factory=list)

    def status(self) -> Status:
        return Status(True, "ready (fake solver 1.0)") if self.ready else Status(False, "not available (no z3)")

    def answer(self, program: Program, question: Question, bounds: Bounds, hooks: Hooks) -> Result:
        self.asked.append((question, bounds))
        action = program.action(question.subject)
        held = program.start_action(action.qualified_name, question.performer, fine=True).outputs()
        for name in question.inputs:
            if name not in held:
                raise UnknownInputError(f"--input {name}: {action.qualified_name} has no feature '{name}'"
                                        f" (its features: {', '.join(sorted(held))})")
        resolve_properties(program, action, question.assumptions)  # an unknown name is refused here
        inputs = tuple(Input(name, "Integer") for name in question.inputs)
        unroll = bounds.unroll if bounds.unroll is not None else 4
        solver = f"{bounds.solver_timeout if bounds.solver_timeout is not None else 10:g}s"
        if "Runaway" in question.subject:
            return Result(self.name, action.qualified_name, Verdict.NOT_COVERED, Strength.NOT_COVERED, Stats(),
                          bounds=(BoundReport("depth", str(bounds.depth), False),
                                  BoundReport("unroll", str(unroll), False)),
                          inputs=inputs, assumptions=question.assumptions, arithmetic="exact",
                          reason="the while loop in spin reads total, which grows without bound: not encoded",
                          kind=question.kind)
        found = check(program, question.subject, Bounds(depth=bounds.depth), question.properties, question.diverge,
                      performer=question.performer)
        cut = any(b.reached for b in found.bounds)
        divergent = () if self.lie else found.divergent
        verdict, strength = judge(Claims(question.kind, len(found.violations), len(divergent),
                                         bounds_hit=cut, proof=True, induction=question.induction and not cut))
        witnesses = found.witnesses if not self.lie else ()
        if inputs:
            witnesses = tuple(replace(w, inputs=tuple((i.name, "0") for i in inputs)) for w in witnesses)
        return Result(self.name, found.subject, verdict, strength, Stats(), (), found.violations if not self.lie
                      else (), divergent, witnesses,
                      (BoundReport("depth", str(bounds.depth), cut), BoundReport("unroll", str(unroll), False),
                       BoundReport("solver timeout", solver, False)),
                      inputs=inputs, assumptions=question.assumptions, arithmetic="exact", kind=question.kind)


ENGINE = FakeSmt()
UNAVAILABLE = FakeSmt(ready=False)
LIAR = FakeSmt(lie=True)
