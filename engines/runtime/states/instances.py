"""An instance: a part materialized with the parts it holds, and the state machines each object
exhibits started on one world (one clock, one bus) and run until none can move; a message one
machine sends is delivered to the machines whose transitions accept its signal."""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.errors import UnknownBehaviorError
from engines.runtime.actions import Run
from engines.runtime.lowered import LoweredModel
from engines.runtime.schedule import make_scheduler
from engines.runtime.states.core import signal_name
from engines.runtime.states.machine import MachineRun
from engines.runtime.values import ObjectRef, spell
from engines.runtime.world import Context
from ir import syntax as s
from ir.inherit import effective_members
from ir.model import Element
from ir.resolve import lookup, member_of


@dataclass
class InstanceObject:
    """One object of the instance: its path from the root (`""` for the root), its machines."""

    path: str
    ref: ObjectRef
    machines: list[MachineRun] = field(default_factory=list)
    actions: list[Element] = field(default_factory=list)  # the actions it performs, in declaration order


class Instantiation:
    def __init__(self, program: LoweredModel, name: str, schedule: str = "reverse") -> None:
        model = program.model
        el = model.element(name)
        if el is None or el.base_kind != "part":
            raise UnknownBehaviorError(name, "part", [q for q in model.qualified_names()])
        self.program = program
        self.ctx = Context(program, make_scheduler(schedule))
        self.objects: list[InstanceObject] = []
        self._make(el, "")
        self.machines = [m for o in self.objects for m in o.machines]

    def _definition(self, el: Element) -> Element | None:
        if isinstance(el.decl, s.Usage) and el.decl.types and el.owner is not None:
            return lookup(self.program.model, el.owner, el.decl.types[0])
        return el if el.is_definition else None

    def _make(self, el: Element, path: str) -> None:
        definition = self._definition(el)
        short = el.name if not path else path.rsplit(".", 1)[-1]
        type_name = definition.qualified_name if definition is not None else ""
        ref = self.ctx.materialize(short, type_name, self.ctx.feature_values(el))
        obj = InstanceObject(path, ref)
        self.objects.append(obj)
        sources = [d for d in (definition, el) if d is not None]
        seen: set[str] = set()
        parts: list[Element] = []
        for source in dict.fromkeys(sources):
            for member in effective_members(self.program.model, source):
                if not isinstance(member, s.Usage) or not member.name or member.name in seen:
                    continue
                seen.add(member.name)
                child = member_of(self.program.model, source, member.name)
                if child is None:
                    continue
                if member.kind == "state" and (member.exhibited or child.owner is source):
                    self._exhibit(obj, child)
                elif member.kind == "action" and member.performed:
                    obj.actions.append(child)
                elif member.kind == "part":
                    parts.append(child)
        for child in parts:
            self._make(child, f"{path}.{child.name}" if path else child.name)

    def _exhibit(self, obj: InstanceObject, machine: Element) -> None:
        trace = self.ctx.trace
        trace.flush_left(f"start: exhibited state machine {machine.name} of #{obj.ref.id}")
        self.ctx.materialize(machine.name, machine.qualified_name)
        obj.machines.append(MachineRun(self.program, machine, ctx=self.ctx, on=obj.ref))

    def _ordered(self, actions: list[Element]) -> list[Element]:
        """The performed actions in an order every succession between two of them allows (`first g
        then m`, owned by their type or by a package, its ends named by chain or qualified name);
        declaration order where none orders them."""
        names = {a.name: a for a in actions}
        before: dict[str, set[str]] = {a.name: set() for a in actions}
        for el in self.program.model.walk():
            members = getattr(el.decl, "members", ()) or ()
            for m in members:
                if isinstance(m, (s.FirstMember, s.SuccessionMember)) and m.target is not None:
                    first = m.source.replace("::", ".").rsplit(".", 1)[-1]
                    then = m.target.replace("::", ".").rsplit(".", 1)[-1]
                    if first in names and then in names and first != then:
                        before[then].add(first)
        out: list[Element] = []
        left = list(actions)
        while left:
            ready = next((a for a in left if before[a.name] <= {o.name for o in out}), left[0])
            out.append(ready)
            left.remove(ready)
        return out

    def _perform(self, obj: InstanceObject, action: Element) -> None:
        trace = self.ctx.trace
        trace.flush_left(f"start: performed action {action.name} of #{obj.ref.id}")
        self.ctx.materialize(action.name, action.qualified_name)
        run = Run(self.ctx, action)
        run.root.frame.performer = obj.ref
        with self.ctx.trace.quiet():  # its features again, now that `this` is the object performing it
            run.init_attributes(self.program.graph(action).attributes, run.root.frame, 0)
        trace.flush_left(f"run: performed action {action.name} of #{obj.ref.id}")
        run.run_to_end()

    def run(self) -> list[str]:
        """The actions each object performs, one after another as the successions between them
        order them; then every machine until none can move, messages going to the machines that
        accept them."""
        for obj in self.objects:
            for action in self._ordered(obj.actions):
                self._perform(obj, action)
        for obj in self.objects:
            for machine in obj.machines:
                self.ctx.trace.flush_left(f"run: exhibited state machine {machine.element.name} of #{obj.ref.id}")
                machine.run_to_end()
                self._route(machine)
        moved = True
        while moved:
            moved = False
            for machine in self.machines:
                if machine.pool or machine.completions:
                    machine.run_to_end()
                    self._route(machine)
                    moved = True
        return self.ctx.trace.lines

    def _route(self, sender: MachineRun) -> None:
        bus = self.ctx.bus
        for message in list(bus):
            name = signal_name(message.payload, self.ctx)
            for machine in self.machines:
                if machine is not sender and machine.accepts(name):
                    machine.post(message.payload)
        bus.clear()

    def slots(self, obj: InstanceObject) -> dict[str, str]:
        return {k: spell(v) for k, v in self.ctx.objects[obj.ref.id].values.items()}
