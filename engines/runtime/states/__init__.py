"""State machines: one move is one dispatch or one do round (see machine.py)."""

from __future__ import annotations

from engines.runtime.states.core import MachineError
from engines.runtime.states.environment import (
    EnvEvent,
    EnvironmentInputError,
    EventKind,
    UnknownSignalError,
    events_from_json,
    parse_duration,
    parse_send,
)
from engines.runtime.states.machine import MachineRun, start_machine

__all__ = ["EnvEvent", "EnvironmentInputError", "EventKind", "MachineError", "MachineRun", "UnknownSignalError",
           "events_from_json", "parse_duration", "parse_send", "start_machine"]
