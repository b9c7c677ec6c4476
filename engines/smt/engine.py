"""The smt engine as the faces see it: a name, the questions it answers, a status that says whether a
solver is installed (never an ImportError: z3 is imported only when a question is asked), and the
answer rendered as the framework's Result."""

from __future__ import annotations

import dataclasses
from typing import Any

from engines.framework import (
    BoundReport,
    Bounds,
    Outcome,
    Question,
    QuestionKind,
    Result,
    Stats,
    Strength,
    Verdict,
    Violation,
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


# The words of the smt verdicts and the framework's members that carry them (the older members where
# the framework has not the newer ones).
_VERDICTS = {
    "proved": ("PROVED", "EXHAUSTIVE"),
    "within": ("WITHIN_MOVES", "WITHIN_BOUNDS"),
    "violated": ("VIOLATED", "VIOLATION"),
    "sensitive": ("SENSITIVE", "DIVERGENT"),
    "not sensitive": ("NOT_SENSITIVE", "EXHAUSTIVE"),
    "sensitivity within": ("SENSITIVITY_WITHIN", "WITHIN_BOUNDS"),
    "not covered": ("NOT_COVERED", "INCOMPLETE"),
    "complete": ("COMPLETE", "COMPLETE"),
    "incomplete": ("INCOMPLETE", "INCOMPLETE"),
}


def verdict_of(answer: Answer) -> Verdict:
    word = answer.verdict
    if word.startswith("no violation within"):
        word = "within"
    elif word.startswith("no sensitivity found within"):
        word = "sensitivity within"
    for name in _VERDICTS[word]:
        if name in Verdict.__members__:
            return Verdict[name]
    raise KeyError(word)


class Smt:
    """See the module docstring."""

    name = "smt"
    answers = (QuestionKind.HOLDS, QuestionKind.SENSITIVE, QuestionKind.OUTCOMES)
    strength = Strength.PROVED
    reads = frozenset({"properties", "diverge", "inputs", "assumptions", "depth", "solver_timeout", "witness_dir"})
    default_depth = DEFAULT_DEPTH

    def status(self) -> Any:
        version = solver_version()
        ready, text = (True, f"ready (z3 {version})") if version else (False, NO_SOLVER)
        import engines.framework as framework

        status = getattr(framework, "Status", None)
        return status(ready, text) if status is not None else (ready, text)

    def answer(self, program: Program, question: Question, bounds: Bounds | None = None,
               hooks: Any = None) -> Result:
        bounds = bounds or Bounds()
        subject = question.subject
        if solver_version() is None:
            answer = Answer(question.kind.value, subject, "not covered", Strength.NOT_COVERED,
                            bounds.depth, reason=NO_SOLVER)
            return to_result(answer, question)
        if question.performer is not None:
            answer = Answer(question.kind.value, subject, "not covered", Strength.NOT_COVERED, bounds.depth,
                            reason=f"not covered: an action performed by {question.performer} (the"
                                   " performing object's features are not encoded)")
            return to_result(answer, question)
        depth = bounds.depth if bounds.depth != Bounds().depth else DEFAULT_DEPTH
        seconds = getattr(bounds, "solver_timeout", None) or DEFAULT_SOLVER_SECONDS
        interrupted = getattr(hooks, "interrupted", None)
        kind = {QuestionKind.HOLDS: "holds", QuestionKind.SENSITIVE: "sensitive",
                QuestionKind.OUTCOMES: "outcomes"}.get(question.kind, "holds")
        answer = solve(program, subject, kind, question.properties, question.diverge,
                       tuple(getattr(question, "inputs", ()) or ()),
                       tuple(getattr(question, "assumptions", ()) or ()), depth, seconds, interrupted)
        return to_result(answer, question)


def to_result(answer: Answer, question: Question) -> Result:
    """The answer as the framework's Result: the verdict and strength from the one policy (judge), the
    bounds, the free inputs with their domains, the assumptions, and the reason where nothing is decided."""
    import engines.framework as framework

    reports = (BoundReport("depth", str(answer.k), answer.reached),)
    violations = tuple(Violation(kind, text, moves, witness) for kind, text, moves, witness in answer.violations)
    outcomes = tuple(Outcome(values, 1, witness, error) for values, error, witness in answer.outcomes)
    verdict, strength = verdict_of(answer), answer.strength
    claims = getattr(framework, "Claims", None)
    judge = getattr(framework, "judge", None)
    if claims is not None and judge is not None:
        refused = answer.verdict == "not covered"
        verdict, strength = judge(claims(
            question.kind, violations=len(violations), divergent=len(answer.divergent),
            bounds_hit=answer.reached, proof=question.kind is not QuestionKind.OUTCOMES, refused=refused,
            stopped=refused and answer.reason == "interrupted"))
    fields: dict[str, Any] = {
        "engine": "smt", "subject": answer.subject, "verdict": verdict, "strength": strength,
        "stats": Stats(0, 0, answer.k, answer.checks), "outcomes": outcomes, "violations": violations,
        "divergent": answer.divergent, "witnesses": answer.witnesses, "bounds": reports, "notes": answer.notes,
    }
    known = {f.name for f in dataclasses.fields(Result)}
    if "reason" not in known and answer.reason:
        fields["notes"] = (*answer.notes, answer.reason)
    make_input = getattr(framework, "Input", None)
    extra: dict[str, Any] = {"reason": answer.reason, "assumptions": answer.assumptions, "arithmetic": "exact",
                             "kind": question.kind,
                             "inputs": tuple(make_input(name, domain) for name, domain in answer.inputs)
                             if make_input is not None else ()}
    fields.update({k: v for k, v in extra.items() if k in known})
    return framework.stable_numbers(Result(**{k: v for k, v in fields.items() if k in known}))


ENGINE = Smt()
