"""The one virtual clock of a world: time only moves when nothing else can."""

from __future__ import annotations

from fractions import Fraction


class Clock:
    """The world's time, in seconds; it never goes back."""

    def __init__(self) -> None:
        self.now = Fraction(0)

    def now_value(self) -> Fraction:
        return self.now

    def advance_to(self, instant: Fraction) -> None:
        if instant > self.now:
            self.now = instant
