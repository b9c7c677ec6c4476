"""The one semantics every engine runs: a world (values, objects, bus, clock, trace) with behaviors in
it, the protocol they offer the engines, and Program, the lowered model every run over it shares."""

from __future__ import annotations

from engines.runtime.actions import Run, TokenView
from engines.runtime.actions.flat import FlatAction, NotFlat
from engines.runtime.behavior import Actor, Behavior, ChoiceKind, Move, MoveKind, Summary
from engines.runtime.ensemble import Ensemble
from engines.runtime.program import Program
from engines.runtime.schedule import Scheduler, make_scheduler, parse_schedule
from engines.runtime.states.driven import Script, replay_script
from engines.runtime.states.instants import time_constants
from engines.runtime.world import Context

__all__ = ["Actor", "Behavior", "ChoiceKind", "Context", "Ensemble", "FlatAction", "Move", "MoveKind", "NotFlat",
           "Program", "Run",
           "Scheduler", "Script", "Summary", "TokenView", "make_scheduler", "parse_schedule", "replay_script",
           "time_constants"]
