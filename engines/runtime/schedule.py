"""The scheduler seam: every place the executor chooses asks a Scheduler, with the enabled moves."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from engines.errors import ScheduleError
from engines.runtime.behavior import ChoiceKind, Move


class Scheduler(Protocol):
    """Orders the moves of a round and picks among alternatives; the one seam every policy fills."""

    name: str

    def order(self, enabled: Sequence[Move]) -> list[Move]:
        """The order the moves of one round are taken in."""
        ...

    def pick(self, kind: ChoiceKind, options: Sequence[str]) -> int:
        """Which of several options (in declaration order) is taken."""
        ...

    def fork(self) -> Scheduler:
        """A scheduler that goes on from here as this one would (itself, for a policy with no state)."""
        ...


class ReversePolicy:
    """The default: tokens in descending index order, the first of several alternatives."""

    name = "reverse"

    def order(self, enabled: Sequence[Move]) -> list[Move]:
        return sorted(enabled, key=lambda m: -m.actor)

    def pick(self, kind: ChoiceKind, options: Sequence[str]) -> int:
        return 0

    def fork(self) -> ReversePolicy:
        return self


class DeclaredPolicy:
    """Actors (tokens) in spawn order, the first of several alternatives."""

    name = "declared"

    def order(self, enabled: Sequence[Move]) -> list[Move]:
        return sorted(enabled, key=lambda m: m.actor)

    def pick(self, kind: ChoiceKind, options: Sequence[str]) -> int:
        return 0

    def fork(self) -> DeclaredPolicy:
        return self


class SeededPolicy:
    """Every resolution drawn from a pseudo-random sequence the seed fixes."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.name = f"seed:{seed}"
        self._random = random.Random(seed)

    def order(self, enabled: Sequence[Move]) -> list[Move]:
        moves = sorted(enabled, key=lambda m: m.actor)
        self._random.shuffle(moves)
        return moves

    def pick(self, kind: ChoiceKind, options: Sequence[str]) -> int:
        return self._random.randrange(len(options)) if options else 0

    def fork(self) -> SeededPolicy:
        twin = SeededPolicy(self.seed)
        twin._random.setstate(self._random.getstate())
        return twin


def parse_schedule(text: str) -> str:
    """The canonical spelling of a policy name, or a ScheduleError saying which ones exist."""
    text = text.strip()
    if text in ("reverse", "declared"):
        return text
    if text.startswith("seed:"):
        digits = text[len("seed:"):]
        if digits.isdigit():
            return f"seed:{int(digits)}"
    raise ScheduleError(f"unknown schedule '{text}': use reverse, declared or seed:<n> (n a non-negative integer)")


def make_scheduler(text: str) -> Scheduler:
    name = parse_schedule(text)
    if name == "reverse":
        return ReversePolicy()
    if name == "declared":
        return DeclaredPolicy()
    return SeededPolicy(int(name.split(":", 1)[1]))
