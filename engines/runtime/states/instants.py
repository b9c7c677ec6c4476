"""The instants at which an environment's send may come, so that a search over them meets every send
instant that matters.

A machine's future after a send at time s depends on s only through comparisons of sums of s and the
model's time constants (the delays of `accept after`, the instants of `accept at`, the horizon): a
timer armed by the send is due at s + d, and it fires where that is no later than the horizon and in
its order against the other timers. With every constant a multiple of G, what a schedule of k sends
reaches depends only on each send's whole number of G's and on how the fractions of G of the k sends
compare with each other and with 0 (the regions of timed automata); instants on a grid of G/(k+1)
realize every such pattern. So the environment may let time pass to the next point of that grid (or
the next timer, if sooner), and a search over those choices meets every admissible schedule's outcome.
Where a time trigger's value is no literal, no grid is known: sends come only where the machine's own
time stops (its timers' dues), and the check says so.
"""

from __future__ import annotations

import dataclasses
import weakref
from fractions import Fraction
from math import gcd

from ir import syntax as s
from ir.model import Model

_CONSTANTS: weakref.WeakKeyDictionary[Model, tuple[tuple[Fraction, ...] | None]] = weakref.WeakKeyDictionary()


def time_constants(model: Model) -> tuple[Fraction, ...] | None:
    """Every duration or instant the model's time triggers name, in seconds as the clock counts them;
    None where one of them is not a literal (a feature's value, an expression). Walked once per model:
    every fresh run of a search asks again."""
    known = _CONSTANTS.get(model)
    if known is None:
        known = _CONSTANTS[model] = (_walk(model),)
    return known[0]


def _walk(model: Model) -> tuple[Fraction, ...] | None:
    found: set[Fraction] = set()
    seen: set[int] = set()
    todo: list[object] = [el.decl for el in model.walk() if el.decl is not None]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, s.Trigger) and node.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT):
            value = _literal_seconds(node.expression)
            if value is None:
                return None
            found.add(value)
            continue
        if isinstance(node, (tuple, list)):
            todo.extend(node)
        elif dataclasses.is_dataclass(node) and not isinstance(node, type):
            todo.extend(getattr(node, f.name) for f in dataclasses.fields(node))
    return tuple(sorted(found))


def _literal_seconds(e: s.Expr | None) -> Fraction | None:
    """`2`, `2.5`, `2 [s]`: the number; anything else: None."""
    if isinstance(e, s.Index) and not e.positional:
        e = e.base
    if isinstance(e, s.Literal) and e.kind in ("integer", "real"):
        return Fraction(e.text)
    return None


def send_grid(model: Model, horizon: Fraction | None, sends: int) -> Fraction | None:
    """The step of the grid of instants the environment's `sends` may come at (module docstring), or
    None: no horizon or no send (time passes to the timers alone), no time trigger in the model (a
    send's instant changes nothing), or a time trigger whose value is no literal (no grid is known)."""
    if horizon is None or sends == 0:
        return None
    constants = time_constants(model)
    if not constants:
        return None
    step = _gcd((*constants, horizon))
    return step / (sends + 1) if step > 0 else None


def _gcd(values: tuple[Fraction, ...]) -> Fraction:
    """The greatest duration every one of `values` is a whole multiple of (0 if all are 0)."""
    denominator = 1
    for v in values:
        denominator = denominator * v.denominator // gcd(denominator, v.denominator)
    whole = 0
    for v in values:
        whole = gcd(whole, int(v * denominator))
    return Fraction(whole, denominator)
