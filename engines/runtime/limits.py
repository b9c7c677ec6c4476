"""The run's nesting limits: how deep performances and calculation invocations may nest.

A performance of an action inside itself (directly, or through a chain of typed steps) or a
calculation that invokes itself with no base case would nest without end; the limits turn that into
a `NestingTooDeep` naming the chain, well before Python's own stack runs out. A run nesting deeper
than the stack allows for any other reason gets the same error from `stack_exhausted`.
"""

from __future__ import annotations

from collections.abc import Sequence

from engines.errors import NestingTooDeep

MAX_PERFORMANCE_DEPTH = 32  # performed actions nested in one another
MAX_CALC_DEPTH = 50  # calculation invocations nested in one another


def chain_text(names: Sequence[str]) -> str:
    """`A → B → A → …`: the chain's start, and the cycle it repeats when it repeats one."""
    last = names[-1]
    earlier = [i for i, name in enumerate(names[:-1]) if name == last]
    if earlier:
        cycle = " → ".join(names[earlier[-1]:])
        return f"{' → '.join(names[:earlier[0] + 1])} → … (repeating {cycle})"
    if len(names) <= 8:
        return " → ".join(names)
    return " → ".join([*names[:4], "…", *names[-3:]])


def performances_too_deep(names: Sequence[str]) -> NestingTooDeep:
    return NestingTooDeep(f"performances nested {len(names)} deep, past the limit of {MAX_PERFORMANCE_DEPTH}: "
                          f"{chain_text(names)}; an action performing itself needs a decision that stops it")


def calculations_too_deep(names: Sequence[str]) -> NestingTooDeep:
    return NestingTooDeep(f"calculation invocations nested {len(names)} deep, past the limit of {MAX_CALC_DEPTH}: "
                          f"{chain_text(names)}; a calculation invoking itself needs a base case that stops it")


def stack_exhausted(where: str) -> NestingTooDeep:
    return NestingTooDeep(f"the run nests deeper than Python's stack allows at {where}; "
                          f"split the deepest expression or nesting into named parts")
