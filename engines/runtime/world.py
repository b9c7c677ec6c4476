"""The world every behavior runs in: objects, bus, clock, trace, the undo journal, the scheduler and the
step budget. It knows no behavior; behaviors (engines/runtime/actions/, states/) act on it."""

from __future__ import annotations

import os

from engines.errors import StepBudgetExceeded
from engines.runtime.bus import Message
from engines.runtime.canon import Canon
from engines.runtime.clock import Clock
from engines.runtime.evaluate import Evaluator, Frame
from engines.runtime.journal import Journal
from engines.runtime.lowered import LoweredModel
from engines.runtime.objects import Instance, feature_sources
from engines.runtime.schedule import Scheduler
from engines.runtime.trace import Trace
from engines.runtime.values import UNSET, ObjectRef, Signal, Value
from engines.runtime.watch import tick
from ir import syntax as s
from ir.lower import may_hold_none
from ir.model import Element
from ir.resolve import member_of

DEFAULT_MAX_STEPS = 10_000
MAX_STEPS_VARIABLE = "OPENSYSML_MAX_ACTION_STEPS"


class Context:
    """The run-derived state: tokens live in the flows, everything else here. Cheap to create."""

    def __init__(self, program: LoweredModel, scheduler: Scheduler, max_steps: int | None = None) -> None:
        self.program = program
        self.scheduler = scheduler
        self.trace = Trace()
        self.journal = Journal()  # what snapshots of the run roll back: every change goes through `touch`
        self.objects: dict[int, Instance] = {}
        self.usage_objects: dict[str, ObjectRef] = {}
        # the part usage each usage object is made for: where the parts it holds are declared
        self.part_usages: dict[int, Element] = {}
        self.clocks: set[int] = set()
        self.clock = Clock()
        self.bus: list[Message] = []
        # whether several behaviors act on it and one of them may send (an ensemble says): a behavior
        # that takes what is on the bus then depends on their sends
        self.shared_bus = False
        self.next_object_id = 1
        self.next_token_id = 1
        env = os.environ.get(MAX_STEPS_VARIABLE, "")
        self.max_steps = max_steps or (int(env) if env.isdigit() else DEFAULT_MAX_STEPS)
        self.steps_spent = 0

    def state_key(self) -> tuple[object, ...]:
        """The world's canonical state (objects of part usages, bus, clock), ids excluded."""
        return Canon(self).world_key()

    def charge_step(self) -> None:
        """One unit of the run's step budget: a token move or a loop iteration."""
        self.steps_spent += 1
        tick()
        if self.steps_spent > self.max_steps:
            raise StepBudgetExceeded(
                f"step limit exceeded: the run spent its {self.max_steps} steps (raise {MAX_STEPS_VARIABLE} "
                "to allow more); a loop that never ends?")

    def new_token_id(self) -> int:
        token = self.next_token_id
        self.next_token_id += 1
        return token

    def materialize(self, name: str, type_name: str, values: dict[str, Value] | None = None) -> ObjectRef:
        oid = self.next_object_id
        self.next_object_id += 1
        self.journal.touch(self.objects)
        self.objects[oid] = Instance(oid, type_name, name, dict(values or {}))
        self.trace.flush_left(f"materialize: {name} #{oid}")
        return ObjectRef(oid)

    def object_for_usage(self, qualified_name: str, depth: int) -> ObjectRef:
        """The object a part (or item) usage denotes, materialized the first time it is read."""
        ref = self.usage_objects.get(qualified_name)
        if ref is not None:
            return ref
        el = self.program.model.element(qualified_name)
        short = qualified_name.rsplit("::", 1)[-1]
        values: dict[str, Value] = {}
        type_name = ""
        if el is not None and isinstance(el.decl, s.Usage) and el.decl.types:
            type_name = el.decl.types[0]
        ref = self.materialize(short, type_name, values)
        self.journal.touch(self.usage_objects)
        self.usage_objects[qualified_name] = ref
        if qualified_name == "Time::universalClock":
            self.journal.touch(self.clocks)
            self.clocks.add(ref.id)
        elif el is not None:
            self.journal.touch(self.part_usages)
            self.part_usages[ref.id] = el
            self._initialize_features(el, ref)
        return ref

    def nested_part(self, owner: ObjectRef, feature: str) -> ObjectRef | None:
        """The object of a part a part's object holds (`plant.pump`, declared by the part usage or its
        definition), made the first time it is read; None when `feature` names no such part."""
        usage = self.part_usages.get(owner.id)
        member = member_of(self.program.model, usage, feature) if usage is not None else None
        if member is None or member.kind not in ("part", "item") or not isinstance(member.decl, s.Usage):
            return None
        key = next((k for k, ref in self.usage_objects.items() if ref.id == owner.id), None)
        if key is None:
            return None
        ref = self.materialize(feature, member.decl.types[0] if member.decl.types else "", {})
        self.journal.touch(self.usage_objects)
        self.usage_objects[f"{key}.{feature}"] = ref
        self.journal.touch(self.part_usages)
        self.part_usages[ref.id] = member
        self._initialize_features(member, ref)
        holder = self.objects[owner.id]
        self.journal.touch(holder)
        holder.values[feature] = ref
        return ref

    def _initialize_features(self, el: Element, ref: ObjectRef) -> None:
        self.objects[ref.id].values.update(self.feature_values(el))

    def feature_values(self, el: Element) -> dict[str, Value]:
        """The values a part usage's object starts with, from its `feature_sources`."""
        values: dict[str, Value] = {}
        evaluator = Evaluator(self)
        sources = feature_sources(self.program.model, el)
        for source in sources:
            for member in source.members.values():
                decl = member.decl
                # a reference, and an item that may hold none (`ref item last : A[0..1];`), start
                # empty and take a value when assigned; a required item is an object made when read
                if not isinstance(decl, s.Usage):
                    continue
                optional = decl.kind == "item" and may_hold_none(decl)
                if decl.kind in ("attribute", "feature", "ref") or optional:
                    frame = Frame(source.qualified_name, source)
                    if decl.value is not None:
                        with self.trace.quiet():
                            values[member.name] = evaluator.eval(decl.value, frame, 0)
                    elif member.name not in values:
                        values[member.name] = UNSET
        return values

    def new_signal(self, type_name: str, frame: object) -> Value:
        return Signal(type_name)
