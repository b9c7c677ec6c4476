"""The one virtual clock of a world: time only moves when nothing else can."""

from __future__ import annotations

from fractions import Fraction

from engines.errors import EvaluationError
from engines.runtime.values import Quantity, Value, spell, type_name
from ir import syntax as s


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


def instant(value: Value) -> Fraction:
    """A time instant (`accept at 5`): the clock reading it names, in seconds; a duration (`5 [s]`) is
    refused, as it names no instant."""
    if isinstance(value, Quantity):
        raise EvaluationError(f"'accept at' takes a time instant, got the duration {spell(value)} (write "
                              "'accept after' for a time after entry)")
    if isinstance(value, (int, Fraction, float)) and not isinstance(value, bool):
        return Fraction(value)
    raise EvaluationError(f"'accept at' needs a time instant, got {type_name(value)}")


def time_named(kind: s.TriggerKind, value: Value) -> Fraction:
    """What a time trigger's value names, in seconds: `after` a duration, `at` an instant."""
    return seconds(value) if kind is s.TriggerKind.AFTER else instant(value)


def wake_time(kind: s.TriggerKind, value: Value, now: Fraction) -> Fraction:
    """When a time trigger armed at `now` wakes: `after d` at now + d, `at t` at t."""
    named = time_named(kind, value)
    return now + named if kind is s.TriggerKind.AFTER else named
