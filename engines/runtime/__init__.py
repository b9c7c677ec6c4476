"""The one semantics every engine runs: Program (shared, from the model) and the runs over it."""

from __future__ import annotations

from engines.runtime.actions import Run, TokenView
from engines.runtime.context import Context, Program
from engines.runtime.schedule import ChoiceKind, Move, Scheduler, make_scheduler, parse_schedule

__all__ = ["ChoiceKind", "Context", "Move", "Program", "Run", "Scheduler", "TokenView", "make_scheduler",
           "parse_schedule"]
