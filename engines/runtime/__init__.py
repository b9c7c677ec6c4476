"""The one semantics every engine runs: a world (values, objects, bus, clock, trace) with behaviors in
it, and Program, the lowered model every run over it shares."""

from __future__ import annotations

from engines.runtime.actions import Run, TokenView
from engines.runtime.program import Program
from engines.runtime.schedule import ChoiceKind, Move, Scheduler, make_scheduler, parse_schedule
from engines.runtime.world import Context

__all__ = ["ChoiceKind", "Context", "Move", "Program", "Run", "Scheduler", "TokenView", "make_scheduler",
           "parse_schedule"]
