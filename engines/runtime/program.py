"""Program: the lowered model, and starting behaviors over it in a fresh world (the runtime's top)."""

from __future__ import annotations

from collections.abc import Callable

from engines.runtime.actions import Run
from engines.runtime.actions.flat import FlatAction, lower
from engines.runtime.behavior import Move
from engines.runtime.lowered import LoweredModel
from engines.runtime.objects import action_on, performer_for
from engines.runtime.schedule import make_scheduler
from engines.runtime.states import EnvironmentInputError, MachineRun, machine_element, start_machine
from engines.runtime.states.driven import Driven, Script
from engines.runtime.states.instance_run import InstanceRun
from engines.runtime.states.instances import Instantiation
from engines.runtime.world import Context
from ir.model import Element


class Program(LoweredModel):
    """What every run over one model shares, and the runs started over it."""

    def start_action(self, name: str, performer: str | None = None, schedule: str = "reverse",
                     max_steps: int | None = None, fine: bool = False) -> Run:
        """A stepping run of the action, ready for its first step (or, fine, its first move); with a
        performer, on that part usage (which must perform the action, see engines/runtime/objects.py)."""
        performed = action_on(self.model, name, performer) if performer is not None else None
        el = performed or self.action(name)
        part = performer_for(self.model, el, performer)
        ctx = Context(self, make_scheduler(schedule), max_steps)
        return Run(ctx, el, part.qualified_name if part is not None else None, fine=fine)

    def flat_action(self, name: str, readable: frozenset[str] | None, wording: Callable[[list[Move]], str],
                    max_steps: int) -> FlatAction:
        """The action lowered flat for the check's inner loop (engines/runtime/actions/flat.py), or NotFlat
        naming what the flat form does not cover; `wording` words the error a schedule of moves ends in,
        as the interpreter's run does, and `readable` and `max_steps` are what such a run keeps."""
        return lower(self, self.action(name).qualified_name, readable, wording, max_steps)

    def start_driven(self, name: str, script: Script | None = None) -> Driven[MachineRun]:
        """The state machine `name` (qualified, or unqualified when unique) with its environment `script`,
        before its first move; an event of the script that the machine and the model name nowhere is
        refused here (UnknownSignalError)."""
        qualified = machine_element(self, name).qualified_name
        script = script or Script()
        sent_to = next((e for e in (*script.events, *script.alphabet) if e.to is not None), None)
        if sent_to is not None:
            raise EnvironmentInputError(f"{sent_to.text()}: `to` names an object of an instance; a state machine"
                                        " checked alone takes every event: check the part that exhibits it"
                                        " (--instantiate PART, %instantiate PART)")
        return Driven(lambda: start_machine(self, qualified, units=True), script)

    def instance_behaviors(self, part: str) -> list[Element]:
        """The machines the objects of the part's instance exhibit and the actions they perform, object by
        object (each usage once per object)."""
        instance = Instantiation(self, self.part(part).qualified_name)
        return [el for obj in instance.objects for el in (*(m.element for m in obj.machines), *obj.actions)]

    def start_instance(self, part: str, script: Script | None = None) -> Driven[InstanceRun]:
        """The part `part` (qualified, or unqualified when unique) materialized, its machines and
        performed actions on one world with the environment `script`, before the first move (a part
        exhibiting no machine is refused here: Driven starts one at once)."""
        qualified = self.part(part).qualified_name
        return Driven(lambda: InstanceRun(self, qualified), script or Script())
