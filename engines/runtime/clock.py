"""The one virtual clock of a world: time only moves when nothing else can."""

from __future__ import annotations

from fractions import Fraction

from engines.errors import EvaluationError
from engines.runtime.values import Quantity, Value, type_name


class Clock:
    """The world's time, in seconds; it never goes back."""

    def __init__(self) -> None:
        self.now = Fraction(0)

    def now_value(self) -> Fraction:
        return self.now

    def advance_to(self, instant: Fraction) -> None:
        if instant > self.now:
            self.now = instant


def seconds(duration: Value) -> Fraction:
    """A duration (`5`, `2.5`, `5 [s]`) in seconds, as the clock counts them."""
    if isinstance(duration, Quantity):
        duration = duration.magnitude
    if isinstance(duration, (int, Fraction)) and not isinstance(duration, bool):
        return Fraction(duration)
    if isinstance(duration, float):
        return Fraction(duration)
    raise EvaluationError(f"'accept after' needs a duration, got {type_name(duration)}")
