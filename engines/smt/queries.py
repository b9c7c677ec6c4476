"""The questions asked of the unrolled run: every outcome (one check per outcome, each blocked once
found), whether any schedule deadlocks, fails or breaks a property, and whether a feature's final
value depends on the schedule (the two-copy query). Each sat model is decoded and replayed before it
counts (engines/smt/decode.py); each unsat is qualified by whether the bound could be reached."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from engines.runtime import Program
from engines.smt.decode import (
    Disagreement,
    Ending,
    ending_of,
    inputs_of,
    judge,
    replay,
    schedule_of,
    witness,
)
from engines.smt.encode import State
from engines.smt.unroll import Unrolled
from engines.witness import Claim, ClaimKind, Witness


class Undecided(Exception):
    """The solver answered unknown (a timeout, nonlinear arithmetic): nothing is established."""


@dataclass(frozen=True)
class Found:
    """A decoded, replayed schedule: where it ends (as the interpreter spells it) and its witness."""

    values: tuple[tuple[str, str], ...]
    error: str | None
    witness: Witness


@dataclass
class Outcomes:
    found: list[Found] = field(default_factory=list)
    cut: bool = False  # some schedule is still live after k moves (or overflowed a slot)
    checks: int = 0


def _sat(un: Unrolled, *assumptions: Any) -> bool:
    answer = un.check(*assumptions)
    if answer == z3.unknown:
        raise Undecided(un.solver.reason_unknown())
    return bool(answer == z3.sat)


def _plain(value: Fraction) -> bool:
    """A number a modeler reads at a glance: at most six digits before the point and three after."""
    return value.denominator in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000) \
        and abs(value) < 10 ** 6


def _candidates(value: Fraction) -> list[Fraction]:
    """Plainer values to try in place of `value`, plainest first."""
    near = [Fraction(round(value)), Fraction(round(value * 1000), 1000)]
    return [Fraction(c) for c in (0, 1, -1, 2, 10, -10, 100)] + [c for c in near if abs(c) < 10 ** 6]


def _model(un: Unrolled, *assumptions: Any) -> Any:
    """The solver's model after a sat check under `assumptions`, with each free number the solver
    chose at an extreme (2^-63, a 19-digit Integer: what its arithmetic finds first) moved to a plain
    value where one keeps the query sat, so a witness reads as a modeler would write it. Each try is
    short (half a second); one that is not sat leaves the value as the solver chose it."""
    model = un.solver.model()
    numeric = [f for f in un.free if f.sort.kind in ("int", "real")]
    if not numeric:
        return model
    first = un.copies[""][0][0]
    pinned: list[Any] = []
    try:
        for f in numeric:
            var = first[("val", f.index)]
            now = model.eval(var, model_completion=True)
            if not (z3.is_int_value(now) or z3.is_rational_value(now)):
                pinned.append(var == now)  # an algebraic number: no plainer one is near it
                continue
            value = Fraction(now.as_long()) if f.sort.kind == "int" else Fraction(now.as_fraction())
            if _plain(value):
                pinned.append(var == now)
                continue
            for candidate in _candidates(value):
                if f.sort.kind == "int" and candidate.denominator != 1:
                    continue
                pin = var == (z3.IntVal(int(candidate)) if f.sort.kind == "int"
                              else z3.RealVal(f"{candidate.numerator}/{candidate.denominator}"))
                left = un.left_ms()
                un.solver.set("timeout", 500 if left is None else min(500, left))
                if un.solver.check(*assumptions, *pinned, pin) == z3.sat:
                    pinned.append(pin)
                    model = un.solver.model()
                    break
            else:
                pinned.append(var == now)
    finally:
        un.solver.set("timeout", un.timeout_ms if un.timeout_ms is not None else 4294967295)
    return model


def _claims(run_error: str | None, values: dict[str, str]) -> tuple[Claim, ...]:
    if run_error is not None:
        if run_error.startswith("deadlock: "):
            return (Claim(ClaimKind.DEADLOCK, run_error.removeprefix("deadlock: ")),)
        return (Claim(ClaimKind.FAILS, run_error),)
    return (Claim(ClaimKind.COMPLETES), *(Claim(ClaimKind.VALUE, k, v) for k, v in sorted(values.items())))


def confirm(un: Unrolled, program: Program, subject: str, model: Any, copy: str = "",
            claims: tuple[Claim, ...] | None = None, upto: int | None = None) -> Found:
    """The model's schedule replayed in the interpreter and judged against the model's last state (or
    its state after `upto` moves, where a witness stops at a property found false)."""
    schedule = schedule_of(un, model, copy)
    if upto is not None:
        schedule = schedule[:upto]
    inputs = inputs_of(un, model)
    ending = ending_of(un, model, copy, upto)
    run, lines = replay(un, program, subject, schedule, inputs)
    judge(un, run, ending, partial=upto is not None)
    error = str(run.error) if run.error is not None else (run.stuck() if not run.finished else None)
    values = run.outputs()
    made = witness(un, program, subject, run, lines, claims or _claims(error, values), inputs)
    return Found(tuple(sorted(values.items())), error, made)


def _same_end(un: Unrolled, st: State, model: Any) -> Any:
    """The final state equal to the model's: the same error, completion and feature values, and the
    same nodes begun (a node's feature with no value is reported, as unset, once its node has begun)."""
    parts = [st["err"] == model.eval(st["err"], model_completion=True),
             un.completed(st) == model.eval(un.completed(st), model_completion=True)]
    for owner in sorted({f.owner for f in un.net.features if f.owner is not None}):
        begun = st.get(("begun", owner))
        if begun is not None:
            parts.append(begun == model.eval(begun, model_completion=True))
    for part in un.net.parts:
        made = st[("made", part.index)]
        parts.append(made == model.eval(made, model_completion=True))
    for f in un.net.features:
        if f.hidden or f.slot:
            continue
        has = st[("has", f.index)]
        has_now = model.eval(has, model_completion=True)
        parts.append(has == has_now)
        if z3.is_true(has_now):
            parts.append(st[("val", f.index)] == model.eval(st[("val", f.index)], model_completion=True))
    return z3.And(parts)


def outcomes(un: Unrolled, program: Program, subject: str, limit: int = 256) -> Outcomes:
    """Every final state a schedule of at most k moves reaches, each replayed; and whether some
    schedule is still going after k moves."""
    out = Outcomes()
    st = un.last()
    out.checks += 1
    out.cut = _sat(un, un.cut())
    un.solver.push()
    un.solver.add(un.ended(st), z3.Not(st["ovf"]))
    try:
        while len(out.found) < limit:
            out.checks += 1
            if not _sat(un):
                break
            model = _model(un)
            found = confirm(un, program, subject, model)
            # two error sites may fail with one message (one statement in two nodes): one outcome, as
            # explore counts them, though the solver's states tell the sites apart
            if not any(f.values == found.values and f.error == found.error for f in out.found):
                out.found.append(found)
            un.solver.add(z3.Not(_same_end(un, st, model)))
    finally:
        un.solver.pop()
    return out


@dataclass(frozen=True)
class Finding:
    kind: str  # "deadlock", "fails", "property"
    found: Found
    moves: int


def violation(un: Unrolled, program: Program, subject: str, properties: Sequence[tuple[str, Any]] = ()
              ) -> Finding | None:
    """A schedule that deadlocks, fails, or (given a property's term per state) breaks one: the
    first asked that has one, replayed."""
    states, _ = un.copies[""]
    st = un.last()
    asks: list[tuple[str, Any, str]] = [("fails", un.failed(st), ""), ("deadlock", un.deadlocked(st), "")]
    for name, holds_at in properties:
        asks.append(("property", z3.Or([z3.Not(holds_at(s)) for s in states]), name))
    for kind, condition, name in asks:
        if _sat(un, condition):
            model = _model(un, condition)
            claims, upto = None, None
            if kind == "property":
                claims = (Claim(ClaimKind.PROPERTY, name, "false"),)
                term = next(t for n, t in properties if n == name)
                upto = next(i for i, st in enumerate(states)
                            if z3.is_false(model.eval(term(st), model_completion=True)))
            found = confirm(un, program, subject, model, claims=claims, upto=upto)
            return Finding(kind, found, len(found.witness.choices))
    return None


@dataclass(frozen=True)
class Divergence:
    feature: str
    first: Found
    second: Found
    step: int  # the first move at which the two schedules differ
    moves: tuple[str, str]


def diverges(un: Unrolled, program: Program, subject: str, feature: str) -> Divergence | None:
    """Two schedules from one initial state, both complete, ending with different values of `feature`:
    with every input fixed, one copy asked twice (a value, then a completed run ending otherwise);
    with a free input, the two-copy query, both copies sharing the initial state."""
    f = un.net.feature(feature)

    def differ(a: State, b: State) -> Any:
        return z3.Or(a[("has", f.index)] != b[("has", f.index)],
                     z3.And(a[("has", f.index)], a[("val", f.index)] != b[("val", f.index)]))

    a = un.last("")
    done_a = z3.And(un.completed(a), z3.Not(a["ovf"]))
    if "B" in un.copies:
        b = un.last("B")
        asked = (done_a, un.completed(b), z3.Not(b["ovf"]), differ(a, b))
        if not _sat(un, *asked):
            return None
        model = _model(un, *asked)
        first = confirm(un, program, subject, model, "")
        second = confirm(un, program, subject, model, "B")
    else:
        if not _sat(un, done_a):
            return None
        model = un.solver.model()
        first = confirm(un, program, subject, model, "")
        value = model.eval(a[("val", f.index)], model_completion=True)
        has = model.eval(a[("has", f.index)], model_completion=True)
        other = z3.Or(a[("has", f.index)] != has, z3.And(a[("has", f.index)], a[("val", f.index)] != value))
        if not _sat(un, done_a, other):
            return None
        second = confirm(un, program, subject, un.solver.model(), "")
    one, two = dict(first.values).get(f.name), dict(second.values).get(f.name)
    if one == two:
        raise Disagreement(f"both replays end with {f.name} = {one}, the solver said they differ")
    step = 1
    for x, y in zip(first.witness.choices, second.witness.choices, strict=False):
        if x.taken != y.taken:
            step = x.step
            break
    else:
        step = min(len(first.witness.choices), len(second.witness.choices)) + 1
    taken = (first.witness.taken_at(step) or "the end", second.witness.taken_at(step) or "the end")
    return Divergence(f.name, first, second, step, taken)


__all__ = ["Disagreement", "Divergence", "Ending", "Finding", "Found", "Outcomes", "Undecided", "diverges",
           "outcomes", "violation"]
