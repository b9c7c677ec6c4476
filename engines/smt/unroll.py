"""The query over k moves, built once per model, k and copy: the initial state (the values the model
gives, the free inputs in their domains, the assumptions), k transitions, and the state predicates
the questions ask (ended, completed, deadlocked, failed, cut)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import z3

from engines.runtime import Program, Run
from engines.runtime.values import UNSET, Deferred, EnumValue
from engines.smt.encode import Builder, State
from engines.smt.net import Feature, Net, NotCovered, names_read
from engines.smt.terms import plain_text


def read_anywhere(net: Net) -> set[str]:
    """The names any move may read (a feature with no value some move reads is an input)."""
    out: set[str] = set()
    for place in net.places:
        for expr in net.move_expressions(place):
            out.update(names_read(expr))
        out.update(net.features[start.same].local for start in place.starts if start.same is not None)
    return out


def initial_values(net: Net, program: Program, subject: str) -> dict[int, Any]:
    """The values the model gives the action's features at its start, as the interpreter sets them."""
    return held_values(net, program.start_action(subject, fine=True))


def held_values(net: Net, run: Run) -> dict[int, Any]:
    """The values the run's features hold now (None: no value), as solver constants take them; a value
    the encoding has no sort for refuses (NotCovered)."""
    values = run.root.frame.values
    parts = {part.index: run.ctx.feature_values(part.element) for part in net.parts}
    out: dict[int, Any] = {}
    for f in net.features:
        if f.owner is not None:
            continue
        v = values.get(f.local, UNSET) if f.part is None else parts[f.part].get(f.local, UNSET)
        if f.part is not None and (v is UNSET or v is None):
            raise NotCovered(net.action.name, f"the feature {f.name}, which has no value")
        if isinstance(v, Deferred):
            raise NotCovered(net.action.name, f"feature '{f.local}' whose value is evaluated when first read")
        if v is UNSET or v is None:
            out[f.index] = None
        elif isinstance(v, EnumValue):
            out[f.index] = v.literal
        elif isinstance(v, (bool, int, Fraction)) or (isinstance(v, str) and f.sort.kind == "str" and plain_text(v)):
            out[f.index] = v
        else:
            raise NotCovered(net.action.name, f"feature '{f.local}' holding {type(v).__name__}")
    return out


class OutOfTime(Exception):
    """The question's wall-clock bound passed before the solver answered: nothing is established."""


class _Step:
    """The relation of one move, encoded once over one step's variables; each other step's is the same
    terms over its own variables, by z3's substitution in its C code. The relation reads nothing but the
    step's variables (no step number, no fresh constant), so these are the very terms the encoder would
    make again for each step (tests/engines/smt/test_unroll.py compares them), at a fraction of the
    Python: retry::Retry's two copies of 30 steps were encoded in 1.54 s, now 0.58 s."""

    def __init__(self, builder: Builder, before: State, after: State, taken: list[Any]) -> None:
        self.builder = builder
        self.terms: list[Any] = builder.transitions(before, after, taken)
        self.over = [*before.values(), *after.values(), *taken]
        self.ctx = self.terms[0].ctx

    def at(self, before: State, after: State, taken: list[Any]) -> list[Any]:
        pairs = [(old, new) for old, new in zip(self.over, [*before.values(), *after.values(), *taken],
                                                strict=True) if not old.eq(new)]
        # z3.substitute marshals its pairs on every call: here once for the step
        olds = (z3.Ast * len(pairs))(*(old.as_ast() for old, _ in pairs))
        news = (z3.Ast * len(pairs))(*(new.as_ast() for _, new in pairs))
        ctx = self.ctx
        return [z3.z3._to_expr_ref(z3.Z3_substitute(ctx.ref(), term.as_ast(), len(pairs), olds, news), ctx)
                for term in self.terms]


class Unrolled:
    """One copy (or two, sharing the initial state) of the run over k moves, on one incremental solver."""

    def __init__(self, net: Net, program: Program, subject: str, k: int, inputs: Sequence[str] = (),
                 copies: Sequence[str] = ("",), timeout_ms: int | None = None,
                 safe: frozenset[Any] = frozenset(), deadline: float | None = None, canonical: bool = False) -> None:
        self.net = net
        self.timeout_ms = timeout_ms
        self.deadline = deadline  # time.monotonic() past which no query is asked
        self.k = k
        self.builder = Builder(net, k, safe=safe)
        self.values = initial_values(net, program, subject)
        read = read_anywhere(net)
        known = {f.local for f in net.features if f.of_action}
        for name in inputs:
            if name not in known:
                raise NotCovered(net.action.name, f"input '{name}', which is no feature of the action")
        self.free: list[Feature] = [f for f in net.features if f.of_action and (
            f.local in inputs or (self.values.get(f.index) is None and f.local in read))]
        self.solver = z3.Solver()
        if timeout_ms is not None:
            self.solver.set("timeout", timeout_ms)
        self.copies: dict[str, tuple[list[State], list[list[Any]]]] = {}
        first = self.builder.state(0)
        self.solver.add(*self.builder.initial(first, self.values, self.free))
        # canonical: of two moves in a row that commute, the later choice never comes first. Swapping
        # such a pair leaves every later state as it was, so each schedule has one of the same length
        # ending in the same state that keeps the order: a question about the states runs end in
        # (outcomes, sensitivity) loses nothing, and the solver is spared the orders that differ only
        # there. A question about every state on the way (a property) keeps them all.
        after: dict[int, list[int]] = {}  # a choice -> the later choices it commutes with
        for a, b in self.builder.independent(first, set(self.valued()), self.left_ms) if canonical else []:
            after.setdefault(a, []).append(b)
        step: _Step | None = None
        for copy in copies:
            states = [first] + [self.builder.state(i, copy) for i in range(1, k + 1)]
            choices = [[z3.Bool(f"{copy}take@{i}#{j}") for j in range(len(self.builder.choices))]
                       for i in range(k)]
            for i in range(k):
                self.left_ms()
                if step is None:
                    step = _Step(self.builder, states[i], states[i + 1], choices[i])
                    self.solver.add(*step.terms)
                else:
                    self.solver.add(*step.at(states[i], states[i + 1], choices[i]))
                if i + 1 < k:
                    # a run that stopped stays stopped
                    self.solver.add(z3.Implies(z3.Not(z3.Or(choices[i])), z3.Not(z3.Or(choices[i + 1]))))
                    for a, later in after.items():
                        self.solver.add(z3.Implies(choices[i + 1][a], z3.Not(z3.Or([choices[i][b] for b in later]))))
            self.copies[copy] = (states, choices)

    def valued(self) -> list[int]:
        """The features holding a value at the start: the free inputs and those the model gives one."""
        free = {f.index for f in self.free}
        return [f.index for f in self.net.features
                if f.index in free or (f.owner is None and self.values.get(f.index) is not None)]

    def last(self, copy: str = "") -> State:
        return self.copies[copy][0][-1]

    def ended(self, st: State) -> Any:
        """No move is enabled: the run completed, failed, or waits on nothing that will come."""
        return z3.Not(z3.Or([self.builder.enabled(st, ch) for ch in self.builder.choices]))

    def completed(self, st: State) -> Any:
        return self.builder.complete(st)

    def failed(self, st: State) -> Any:
        return st["err"] != 0

    def deadlocked(self, st: State) -> Any:
        return z3.And(self.ended(st), z3.Not(self.completed(st)), st["err"] == 0)

    def cut(self, copy: str = "") -> Any:
        """Some move is still enabled after k moves, or a slot overflowed: the bound was reached."""
        st = self.last(copy)
        return z3.Or(z3.Not(self.ended(st)), st["ovf"])

    def left_ms(self) -> int | None:
        """The time a query may take: the solver's bound, cut to what the deadline leaves (OutOfTime
        once it has passed)."""
        if self.deadline is None:
            return self.timeout_ms
        left = int((self.deadline - time.monotonic()) * 1000)
        if left <= 0:
            raise OutOfTime
        return left if self.timeout_ms is None else min(left, self.timeout_ms)

    def check(self, *assumptions: Any) -> Any:
        left = self.left_ms()
        if left is not None:
            self.solver.set("timeout", left)
        return self.solver.check(*assumptions)
