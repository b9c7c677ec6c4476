"""Every field of a run's state, written out in full: what a restore must give back exactly.

The journal restores tokens, flows and frames in place, so their identity is part of the state too:
every object of the run is named by the order it is first met in (and its identity), a container by
that order alone, and anything else (the model, graphs, generators) by its identity.
"""

from __future__ import annotations

from typing import Any

from engines.runtime import Run
from engines.runtime.actions.tokens import Flow, Token
from engines.runtime.bus import Message
from engines.runtime.clock import Clock
from engines.runtime.evaluate import Evaluator, Frame
from engines.runtime.objects import Instance
from engines.runtime.trace import Trace
from engines.runtime.world import Context

_OBJECTS = (Token, Flow, Frame, Instance, Message, Clock)
_SKIP = {"canon"}  # a sealed frame's cache of its canonical form: derived, not state


class _Dumper:
    def __init__(self) -> None:
        self.numbers: dict[int, int] = {}
        self.containers: dict[int, int] = {}
        self.keep: list[object] = []  # what was numbered stays alive, so no id is reused

    def value(self, v: Any) -> Any:
        if isinstance(v, (int, str, bool, float, type(None))):
            return v
        if isinstance(v, tuple):
            return ("tuple", tuple(self.value(x) for x in v))
        if isinstance(v, (list, dict, set)):
            # containers by the order they are first met in: which objects share one is state, their
            # identity is not (the journal puts back copies of the containers an object owns)
            number = self.containers.get(id(v))
            if number is not None:
                return ("shared", number)
            number = self.containers[id(v)] = len(self.containers)
            self.keep.append(v)
            if isinstance(v, list):
                return ("list", number, tuple(self.value(x) for x in v))
            if isinstance(v, dict):
                return ("dict", number, tuple((self.value(k), self.value(x)) for k, x in v.items()))
            return ("set", number, tuple(sorted(repr(self.value(x)) for x in v)))
        if isinstance(v, frozenset):
            return ("frozenset", tuple(sorted(repr(self.value(x)) for x in v)))
        if isinstance(v, _OBJECTS):
            return self.object(v)
        if hasattr(v, "fork") and hasattr(v, "order"):  # a scheduler: a seeded one's draws are state
            rng = getattr(v, "_random", None)
            return ("scheduler", v.name, rng.getstate() if rng is not None else None)
        if isinstance(v, (Run, Context, Evaluator, Trace)):
            return (type(v).__name__, id(v))
        return ("other", type(v).__name__, id(v), repr(v) if _is_value(v) else "")

    def object(self, o: Any) -> Any:
        number = self.numbers.get(id(o))
        if number is not None:
            return ("ref", number)
        number = self.numbers[id(o)] = len(self.numbers)
        self.keep.append(o)
        return (type(o).__name__, number, id(o),
                tuple((k, self.value(v)) for k, v in sorted(vars(o).items()) if k not in _SKIP))


def _is_value(v: object) -> bool:
    from fractions import Fraction

    from engines.runtime.values import Deferred, EnumValue, ObjectRef, Quantity, Sequence, Signal

    return isinstance(v, (Fraction, ObjectRef, Quantity, Sequence, Signal, EnumValue, Deferred))


def dump(run: Run) -> Any:
    """The run's whole state: its own fields, its context's, and every object reachable from them."""
    d = _Dumper()
    run_fields = tuple((k, d.value(v)) for k, v in sorted(vars(run).items()) if k not in ("evaluator", "_live", "_token_moves", "_assertions"))  # caches
    ctx = run.ctx
    ctx_fields = tuple((k, d.value(v)) for k, v in sorted(vars(ctx).items())
                       if k not in ("program", "journal", "trace"))
    return (run_fields, ctx_fields, tuple(ctx.trace.lines), ctx.trace.enabled)
