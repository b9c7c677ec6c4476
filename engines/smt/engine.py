"""The smt engine as the faces see it: a name, the questions it answers, a status that says whether a
solver is installed (never an ImportError: z3 is imported only when a question is asked), and the
answer rendered as the framework's Result."""

from __future__ import annotations

import time

from engines.framework import (
    BoundReport,
    Bounds,
    Claims,
    Hooks,
    Input,
    Outcome,
    Question,
    QuestionKind,
    Result,
    Stats,
    Status,
    Strength,
    Violation,
    judge,
    stable_numbers,
)
from engines.runtime import Program
from engines.smt.answer import DEFAULT_DEPTH, DEFAULT_SOLVER_SECONDS, Answer, solve

NO_SOLVER = "not available (no z3: pip install 'opensysml-kernel[smt]' or z3-solver)"


def solver_version() -> str | None:
    """z3's version, or None when it is not installed."""
    try:
        import z3
    except ImportError:
        return None
    return str(z3.get_version_string())


class Smt:
    """See the module docstring."""

    name = "smt"
    answers = (QuestionKind.HOLDS, QuestionKind.SENSITIVE, QuestionKind.OUTCOMES)
    strength = Strength.PROVED
    reads = frozenset({"properties", "diverge", "inputs", "assumptions", "depth", "timeout", "solver_timeout",
                       "induction", "witness_dir"})
    default_depth = DEFAULT_DEPTH

    def status(self) -> Status:
        version = solver_version()
        return Status(True, f"ready (z3 {version})") if version else Status(False, NO_SOLVER)

    def answer(self, program: Program, question: Question, bounds: Bounds | None = None,
               hooks: Hooks | None = None) -> Result:
        bounds = bounds or Bounds()
        deadline = time.monotonic() + bounds.timeout if bounds.timeout is not None else None
        seconds = bounds.solver_timeout or DEFAULT_SOLVER_SECONDS
        subject = question.subject
        if solver_version() is None:
            answer = Answer(question.kind.value, subject, "not covered", Strength.NOT_COVERED,
                            bounds.depth, reason=NO_SOLVER)
            return to_result(answer, question, seconds)
        if question.performer is not None:
            answer = Answer(question.kind.value, subject, "not covered", Strength.NOT_COVERED, bounds.depth,
                            reason=f"not covered: an action performed by {question.performer} (the"
                                   " performing object's features are not encoded)")
            return to_result(answer, question, seconds)
        depth = bounds.depth if bounds.depth != Bounds().depth else DEFAULT_DEPTH
        interrupted = hooks.interrupted if hooks is not None else None
        kind = {QuestionKind.HOLDS: "holds", QuestionKind.SENSITIVE: "sensitive",
                QuestionKind.OUTCOMES: "outcomes"}.get(question.kind, "holds")
        answer = solve(program, subject, kind, question.properties, question.diverge, question.inputs,
                       question.assumptions, depth, seconds, interrupted, question.induction, deadline)
        return to_result(answer, question, seconds)


def to_result(answer: Answer, question: Question, seconds: float = DEFAULT_SOLVER_SECONDS) -> Result:
    """The answer as the framework's Result: the verdict and strength from the one policy (judge), the
    bounds, the free inputs with their domains, the assumptions, and the reason where nothing is decided."""
    undecided = answer.reason is not None and answer.reason.startswith("solver undecided")
    reports = (BoundReport("depth", str(answer.k), answer.reached),
               BoundReport("solver timeout", f"{seconds:g}s", undecided))
    violations = tuple(Violation(kind, text, moves, witness) for kind, text, moves, witness in answer.violations)
    outcomes = tuple(Outcome(values, 1, witness, error) for values, error, witness in answer.outcomes)
    refused = answer.verdict == "not covered"
    verdict, strength = judge(Claims(
        question.kind, violations=len(violations), divergent=len(answer.divergent),
        bounds_hit=answer.reached, proof=question.kind is not QuestionKind.OUTCOMES, refused=refused,
        stopped=refused and answer.reason is not None and answer.reason.startswith(("interrupted", "stopped")),
        induction=answer.induction))
    return stable_numbers(Result("smt", answer.subject, verdict, strength, Stats(0, 0, answer.k, answer.checks), outcomes,
                  violations, answer.divergent, answer.witnesses, reports, notes=answer.notes, kind=question.kind,
                  inputs=tuple(Input(name, domain) for name, domain in answer.inputs),
                  assumptions=answer.assumptions, arithmetic="exact", reason=answer.reason))


ENGINE = Smt()
