"""State machines: one move is one dispatch or one do round (see machine.py)."""

from __future__ import annotations

from engines.runtime.states.core import MachineError
from engines.runtime.states.environment import (
    EnvEvent,
    EnvironmentInputError,
    EventKind,
    UnknownSignalError,
    events_from_json,
    parse_addressed,
    parse_duration,
    parse_send,
    split_target,
)
from engines.runtime.states.machine import MachineRun, machine_element, start_machine

__all__ = ["EnvEvent", "EnvironmentInputError", "EventKind", "MachineError", "MachineRun", "UnknownSignalError",
           "events_from_json", "machine_element", "parse_addressed", "parse_duration", "parse_send",
           "split_target", "start_machine"]
