"""Typed errors of the execution layer: a run that cannot start, or fails on the way."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ir.errors import SysmlError, close_names


class EngineError(SysmlError):
    """Root of the engines' errors."""


class UnknownBehaviorError(EngineError, LookupError):
    """A behavior name the model does not declare."""

    def __init__(self, name: str, kind: str, candidates: Iterable[str]) -> None:
        self.name = name
        self.kind = kind
        self.suggestions = close_names(name, candidates)
        text = f"no {kind} named '{name}'"
        if self.suggestions:
            text += "; did you mean " + ", ".join(f"'{c}'" for c in self.suggestions) + "?"
        super().__init__(text)


class ScheduleError(EngineError, ValueError):
    """A scheduling policy that is not reverse, declared or seed:<n>."""


class RunError(EngineError, RuntimeError):
    """A run that failed: the message is what the corpus's `error` field expects to find."""

    def __init__(self, message: str, node: str = "") -> None:
        self.message = message
        self.node = node
        super().__init__(message)


class StepBudgetExceeded(RunError):
    """The run spent its step budget: a loop that never ends."""


class AcceptDeadlock(RunError):
    """Tokens wait on accepts nothing will ever answer."""


class ActionDeadlock(RunError):
    """No token can move and the action is not complete."""


class GuardNotBoolean(RunError):
    """A guard evaluated to something other than a Boolean."""


class EvaluationError(RunError):
    """An expression that cannot be evaluated (an unknown name, a type mismatch, ...)."""


class DivisionByZero(EvaluationError):
    """`x / 0`, `x % 0`, `0 ** -n`."""


class NumberTooLarge(EvaluationError):
    """An Integer (or a Rational's numerator or denominator) past engines.runtime.operators.MAX_DIGITS
    digits, or a Real past the floating-point range."""


class NestingTooDeep(RunError):
    """Performances or calculation invocations nested past their limit (an action that performs itself,
    a calculation with no base case), or a run nesting deeper than Python's stack allows."""


class IndexOutOfRange(EvaluationError):
    """`xs#(i)` with i outside 1..size(xs)."""


class TypeMismatch(EvaluationError):
    """A value stored into a feature whose declared type does not hold it, or passed to a library
    function parameter that does not; the message names the feature (or parameter) and both types."""


class ConstructionError(EvaluationError):
    """`new T(args)` with more arguments than T has features, or a named argument T has no feature for."""


class ReplayRefused(EngineError):
    """A witness the replay will not follow: malformed, of another model, or a move the run cannot make."""


class WitnessFormatError(ReplayRefused, ValueError):
    """A witness text that is not in the witness format (empty, truncated, headerless, a line out of the
    grammar): names the witness, the line (0 when the fault is no one line's) and what is wrong."""

    def __init__(self, witness: str, line: int, why: str, text: str | None = None) -> None:
        self.witness = witness
        self.line = line
        self.why = why
        where = f"{witness}:{line}" if line else witness
        shown = f": {text!r}" if text is not None else ""
        super().__init__(f"witness refused: {where}: {why}{shown}")


class MoveNotEnabled(ReplayRefused):
    """A witness move that is not enabled where the replay reached: names it and the enabled ones."""

    def __init__(self, witness: str, step: int, move: str, enabled: Sequence[str]) -> None:
        self.witness = witness
        self.step = step
        self.move = move
        self.enabled = tuple(enabled)
        offered = ", ".join(self.enabled) if self.enabled else "none"
        super().__init__(f"replay refused: {witness} moves {move} at step {step}, which is not enabled"
                         f" (enabled: {offered})")


class WitnessMismatch(ReplayRefused):
    """A witness of another model (its content hash differs), of another behavior, or of a run another
    part performed: replaying it here would show nothing about this model."""


class ClaimNotReproduced(ReplayRefused):
    """A replay that followed every move of a witness and does not end as the witness claims."""


class WitnessInputError(ReplayRefused):
    """A witness's `input x = v` line that cannot be fixed: no such feature, or a value in no notation."""


class EngineUnavailable(EngineError, RuntimeError):
    """An engine this installation cannot run (its module does not import, its solver is missing): says why."""
