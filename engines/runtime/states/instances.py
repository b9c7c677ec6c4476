"""An instance: a part materialized with the parts it holds, and the state machines each object
exhibits started on one world (one clock, one bus) and run until none can move; a message one
machine sends is delivered to the machines whose transitions accept its signal."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from engines.errors import UnknownBehaviorError
from engines.runtime.actions import Run
from engines.runtime.behavior import ObjectEnd
from engines.runtime.bus import Message
from engines.runtime.lowered import LoweredModel
from engines.runtime.schedule import make_scheduler
from engines.runtime.states.core import MachineError, signal_name
from engines.runtime.states.environment import EnvEvent
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
    parts: set[str] = field(default_factory=set)  # its features that hold its parts' objects
    runs: list[tuple[str, Run]] = field(default_factory=list)  # its actions' performances, by name


class Instantiation:
    def __init__(self, program: LoweredModel, name: str, schedule: str = "reverse", units: bool = False) -> None:
        """The part `name` materialized, its machines started; with `units`, each machine's firings are
        moves of their units (a check's machines, engines/runtime/states/moves.py)."""
        model = program.model
        el = model.element(name)
        if el is None or el.base_kind != "part":
            raise UnknownBehaviorError(name, "part", [q for q in model.qualified_names()])
        self.program = program
        self.element = el
        self.units = units
        self.ctx = Context(program, make_scheduler(schedule))
        self.objects: list[InstanceObject] = []
        # the performed actions waiting at an accept, each with the actions of its object after it
        self.waiting: list[tuple[InstanceObject, Run, list[Element]]] = []
        # each `connect a.p to b.q` of a part, its ends as (object path, port): a message sent via
        # one end goes to the object at the other
        self.links: list[tuple[tuple[str, str], tuple[str, str]]] = []
        self.made: dict[str, ObjectRef] = {}  # each part usage's object, by the usage's qualified name
        self.made_from: dict[int, Element] = {}  # ...and the other way: an object's usage, by its id
        # `ref part target = door;`: (the holder's object, the feature, the usage it is bound to)
        self.referring: list[tuple[ObjectRef, str, Element]] = []
        self._make(el, "")
        self._refer()
        self.machines = [m for o in self.objects for m in o.machines]
        self._ended_broken: frozenset[str] = frozenset()  # what the performed actions that ended found false

    def _definition(self, el: Element) -> Element | None:
        if isinstance(el.decl, s.Usage) and el.decl.types and el.owner is not None:
            return lookup(self.program.model, el.owner, el.decl.types[0])
        return el if el.is_definition else None

    def _make(self, el: Element, path: str) -> ObjectRef:
        definition = self._definition(el)
        short = el.name if not path else path.rsplit(".", 1)[-1]
        type_name = definition.qualified_name if definition is not None else ""
        ref = self.ctx.materialize(short, type_name, self.ctx.feature_values(el))
        self.made[el.qualified_name] = ref
        self.made_from[ref.id] = el
        obj = InstanceObject(path, ref)
        self.objects.append(obj)
        sources = [d for d in (definition, el) if d is not None]
        seen: set[str] = set()
        parts: list[Element] = []
        for source in dict.fromkeys(sources):
            for member in effective_members(self.program.model, source):
                if isinstance(member, s.ConnectMember):
                    self.links.append((_end(path, member.source), _end(path, member.target)))
                    continue
                if isinstance(member, s.BindMember) and self._is_port(source, member.left):
                    # `bind toM1 = peas.toM1;`: the part's port delegates to its part's
                    self.links.append((_end(path, member.left), _end(path, member.right)))
                    continue
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
                elif member.kind in ("part", "ref") and member.reference:
                    self._referring(ref, el, child)
                elif member.kind == "part":
                    parts.append(child)
        for child in parts:
            # the part feature holds its object: `room.lamp.lit` reads through it
            held = self._make(child, f"{path}.{child.name}" if path else child.name)
            self.ctx.objects[ref.id].values[child.name] = held
            obj.parts.add(child.name)
        return ref

    def _referring(self, holder: ObjectRef, el: Element, declared: Element) -> None:
        """A reference part makes no object: bound to a part (`ref part :>> target = door;`, the value
        as the most specific usage states it), it holds that part's object once every object is made."""
        name = declared.name
        feature = member_of(self.program.model, el, name) or declared
        value = feature.decl.value if isinstance(feature.decl, s.Usage) else None
        if isinstance(value, s.Name) and feature.owner is not None:
            bound = lookup(self.program.model, feature.owner, value.name)
            if bound is not None:
                self.referring.append((holder, name, bound))

    def _refer(self) -> None:
        for holder, name, bound in self.referring:
            target = self.made.get(bound.qualified_name)
            if target is not None:
                self.ctx.objects[holder.id].values[name] = target

    def _exhibit(self, obj: InstanceObject, machine: Element) -> None:
        trace = self.ctx.trace
        trace.flush_left(f"start: exhibited state machine {machine.name} of #{obj.ref.id}")
        self.ctx.materialize(machine.name, machine.qualified_name)
        obj.machines.append(MachineRun(self.program, machine, ctx=self.ctx, on=obj.ref, units=self.units))

    def before(self, actions: list[Element]) -> dict[str, set[str]]:
        """Per performed action, those a succession puts before it (`first g then m`, owned by their type
        or by a package, its ends named by chain or qualified name)."""
        names = {a.name for a in actions}
        before: dict[str, set[str]] = {a.name: set() for a in actions}
        for el in self.program.model.walk():
            members = getattr(el.decl, "members", ()) or ()
            for m in members:
                if isinstance(m, (s.FirstMember, s.SuccessionMember)) and m.target is not None:
                    first = m.source.replace("::", ".").rsplit(".", 1)[-1]
                    then = m.target.replace("::", ".").rsplit(".", 1)[-1]
                    if first in names and then in names and first != then:
                        before[then].add(first)
        return before

    def ordered(self, actions: list[Element]) -> list[Element]:
        """The performed actions in an order every succession between two of them allows; declaration
        order where none orders them."""
        before = self.before(actions)
        out: list[Element] = []
        left = list(actions)
        while left:
            ready = next((a for a in left if before[a.name] <= {o.name for o in out}), left[0])
            out.append(ready)
            left.remove(ready)
        return out

    def performed(self, obj: InstanceObject, action: Element, fine: bool = False) -> Run:
        """A performance of `action` by the object `obj`, started (its features read with `this` the
        object); `fine`, moving one performance at a time (a check's)."""
        self.ctx.trace.flush_left(f"start: performed action {action.name} of #{obj.ref.id}")
        self.ctx.materialize(action.name, action.qualified_name)
        run = Run(self.ctx, action, fine=fine)
        run.holds_time = not fine  # the fixed run's clock moves where nothing else can (`wake_actions`)
        run.root.frame.performer = obj.ref
        obj.runs.append((action.name, run))
        with self.ctx.trace.quiet():  # its features again, now that `this` is the object performing it
            run.init_attributes(self.program.graph(action).attributes, run.root.frame, 0)
        return run

    def perform_all(self) -> None:
        """The actions each object performs, one after another as the successions between them order
        them, each until it ends or waits at an accept for a message (then it and those after it wait:
        `resume`), what they send routed."""
        for obj in self.objects:
            self._perform_from(obj, list(self.ordered(obj.actions)))

    def _perform_from(self, obj: InstanceObject, actions: list[Element], run: Run | None = None) -> None:
        while run is not None or actions:
            if run is None:
                action, actions = actions[0], actions[1:]
                run = self.performed(obj, action)
                self.ctx.trace.flush_left(f"run: performed action {action.name} of #{obj.ref.id}")
            ended = run.run_until_waiting()
            self.route(own=obj)
            if not ended:
                self.waiting.append((obj, run, actions))
                return
            self._ended_broken |= frozenset(run.broken_assertions)
            run = None

    def resume(self) -> bool:
        """Every waiting action a message has come for goes on (as `perform_all`); whether one moved."""
        moved = False
        for obj, run, rest in list(self.waiting):
            before = run.step_number
            self.waiting.remove((obj, run, rest))
            self._perform_from(obj, rest, run)
            moved = moved or run.finished or run.step_number != before
        return moved

    def next_wake(self) -> Fraction | None:
        """The earliest instant a waiting performed action waits for, or None."""
        wakes = [w for _, run, _ in self.waiting if (w := run.wake()) is not None]
        return min(wakes) if wakes else None

    def wake_actions(self, horizon: Fraction | None = None) -> bool:
        """The clock to the earliest wake of a waiting action (not past `horizon`), and the actions due
        then go on; whether the clock moved."""
        when = self.next_wake()
        if when is None or (horizon is not None and when > horizon):
            return False
        self.ctx.clock.advance_to(when)
        self.resume()
        return True

    @property
    def broken_assertions(self) -> tuple[str, ...]:
        """The step assertions found false where a performance ended: of the machines' entry, do and exit
        behaviors and effects, and of the steps of the actions the objects perform (each named by the
        machine or action usage, so two objects exhibiting one usage share its names)."""
        found = set(self._ended_broken)
        for machine in self.machines:
            found.update(machine.host.broken_assertions)
        for _, run, _ in self.waiting:
            found.update(run.broken_assertions)
        return tuple(sorted(found))

    def stuck_actions(self) -> None:
        """An action still waiting once nothing else can move: its accept deadlock, raised."""
        for _, run, _ in self.waiting:
            run.run_to_end()

    def run(self) -> list[str]:
        """The actions each object performs (`perform_all`); then every machine until none can move,
        messages going to the machines that accept them, and the waiting actions going on as messages
        come for them."""
        self.perform_all()
        for obj in self.objects:
            for machine in obj.machines:
                self.ctx.trace.flush_left(f"run: exhibited state machine {machine.element.name} of #{obj.ref.id}")
                machine.run_to_end()
                self.route(machine)
        moved = True
        while moved:
            moved = self.resume()
            for machine in self.machines:
                if machine.pool or machine.completions:
                    machine.run_to_end()
                    self.route(machine)
                    moved = True
            # where nothing else can move, time passes to the earliest wait of a performed action
            moved = moved or self.wake_actions()
        self.stuck_actions()
        return self.ctx.trace.lines

    def send(self, path: str, event: EnvEvent) -> None:
        """The environment sends an event to the machine of the object at `path` (`""`: the root)."""
        obj = next((o for o in self.objects if o.path == path), None)
        if obj is None:
            raise MachineError(f"no object of the instance is at {path!r} (objects: "
                               f"{', '.join(o.path or '(root)' for o in self.objects)})")
        if not obj.machines:
            raise MachineError(f"{path or 'the instance'} exhibits no state machine to send {event.name} to")
        obj.machines[0].send(event)

    def route(self, sender: MachineRun | None = None, own: InstanceObject | None = None) -> None:
        """The messages a machine (or an action the object `own` performs) sent: one addressed (`to
        this`, `to peer`) to the machines of the object it names, whatever they accept (what none
        takes is unmatched there); one sent via a connected port over the connection, to the machines
        of the objects at its far ends; one addressed to no one to every other machine whose
        transitions accept its signal. A message that reaches an object none of whose machines accepts
        it stays on the bus for the actions that object performs (and only theirs: `Message.holder`);
        one addressed to no one that no machine accepts stays for any action of the instance."""
        if own is None:
            assert sender is not None
            own = self.object_of(sender)
        bus = self.ctx.bus
        kept: list[Message] = []
        for message in list(bus):
            if message.holder is not None:  # delivered to an object's actions by an earlier move: theirs
                kept.append(message)
                continue
            name = signal_name(message.payload, self.ctx)
            if message.to is not None or message.via is not None:
                targets = ([self._addressed(own, sender, message.to)] if message.to is not None
                           else self._linked(own, message.via or ""))
                if targets:
                    for target in targets:
                        if target.actions and not any(m.accepts(name) for m in target.machines):
                            kept.append(Message(message.payload, "this", message.sender, message.via, target.ref))
                            continue
                        for machine in target.machines:
                            machine.post(message.payload)
                    continue
            takers = [m for m in self.machines if m is not sender and m.accepts(name)]
            if not takers and any(o.actions for o in self.objects):
                kept.append(message)
            for machine in takers:
                machine.post(message.payload)
        if bus:
            self.ctx.journal.touch(bus)  # a check restores the bus a move left messages on
            bus[:] = kept

    def _linked(self, own: InstanceObject, via: str) -> list[InstanceObject]:
        """The objects with a machine or a performed action at the far ends of the connections (through the bindings that
        delegate one port to another) from the port `via` names: a port of `own`, or of the object a
        feature of `own` names (`context.toM1`, `context` bound to the part performing)."""
        holder, _, port = via.rpartition(".")
        start = own
        if holder:
            held = self.ctx.objects[own.ref.id].values.get(holder)
            by_path = next((o for o in self.objects if o.path == (f"{own.path}.{holder}" if own.path else holder)), None)
            if by_path is not None:
                start = by_path
            elif isinstance(held, ObjectRef):
                start = next((o for o in self.objects if o.ref.id == held.id), own)
        seen = {(start.path, port)}
        todo = [(start.path, port)]
        while todo:
            here = todo.pop()
            for a, b in self.links:
                for x, y in ((a, b), (b, a)):
                    if x == here and y not in seen:
                        seen.add(y)
                        todo.append(y)
        paths = {p for p, _ in seen if p != start.path}
        return [o for o in self.objects if o.path in paths and (o.machines or o.actions)]

    def _is_port(self, owner: Element, written: str) -> bool:
        name = written.replace("::", ".").split(".")[0]
        el = member_of(self.program.model, owner, name)
        return el is not None and el.base_kind == "port"

    def _addressed(self, own: InstanceObject, sender: MachineRun | None, to: str) -> InstanceObject:
        """The object a send's `to` names, read from the sending object: `this` (or the sending
        machine's own name), a feature of that object holding an object, or one of the instance's
        objects by its path (from the root, or from the sender's object or its owner)."""
        if to in ("this", "self") or (sender is not None and to == sender.element.name):
            return own
        by_id = {o.ref.id: o for o in self.objects}
        held = self.ctx.objects[own.ref.id].values.get(to)
        if isinstance(held, ObjectRef) and held.id in by_id:
            return by_id[held.id]
        made_from = self.made_from.get(own.ref.id)
        declared = member_of(self.program.model, made_from, to) if made_from is not None else None
        if declared is not None and isinstance(declared.decl, s.Usage) and declared.decl.reference:
            raise MachineError(f"{own.path or 'the instance'}: send ... to {to}: {to} is a reference part bound"
                               f" to no part, so it holds no object; bind it where the part is used"
                               f" (`ref part :>> {to} = <a part>;`)")
        owner = own.path.rsplit(".", 1)[0] if "." in own.path else ""
        for path in (f"{own.path}.{to}" if own.path else to, f"{owner}.{to}" if owner else to, to):
            found = next((o for o in self.objects if o.path == path), None)
            if found is not None:
                return found
        raise MachineError(
            f"{own.path or 'the instance'}: send ... to {to}: "
            f"no object of the instance is named {to!r} (objects: "
            f"{', '.join(o.path or '(root)' for o in self.objects)}); send to this, a part, or a feature holding one")

    def name_of(self, obj: InstanceObject) -> str:
        """An object as reports name it: its path, the root by the part's own name."""
        return obj.path or self.element.name

    def object_of(self, machine: MachineRun) -> InstanceObject:
        """The object exhibiting `machine`."""
        return next(o for o in self.objects if machine in o.machines)

    def slots(self, obj: InstanceObject) -> dict[str, str]:
        """The object's features and their values, its parts (objects of their own) left out; then the
        features its machines declare and its performed actions hold, each by the machine's or the
        action's name (`heater.level`, `stock.trays`). A reference to an object of the instance (a `ref`
        part bound to a part) is spelled by that object's path (`ctl.elem = element`)."""
        paths = {o.ref.id: self.name_of(o) for o in self.objects}
        out = {k: paths[v.id] if isinstance(v, ObjectRef) and v.id in paths else spell(v)
               for k, v in self.ctx.objects[obj.ref.id].values.items() if k not in obj.parts}
        for machine in obj.machines:
            out.update({f"{machine.element.name}.{k}": v for k, v in machine.host.frame_outputs().items()
                        if k not in out})
        for name, run in obj.runs:  # the features of the actions it performs, by the action's name
            out.update({f"{name}.{k}": v for k, v in run.frame_outputs().items() if f"{name}.{k}" not in out})
        return out

    def end_of(self, obj: InstanceObject) -> ObjectEnd:
        """Where the object stands: its machines' configuration (of several, each named: `life: bright,
        watch: on`), the states they entered (of several, each named, machine by machine), its features."""
        if len(obj.machines) == 1:
            state, visits = obj.machines[0].final_state(), tuple(obj.machines[0].visits)
        else:
            state = ", ".join(f"{m.element.name}: {m.final_state()}" for m in obj.machines)
            visits = tuple(f"{m.element.name}.{v}" for m in obj.machines for v in m.visits)
        return ObjectEnd(obj.path, state, visits, tuple(self.slots(obj).items()))


def _end(path: str, written: str) -> tuple[str, str]:
    """A connection end written in the part at `path` (`a.outp`, or `outp` of the part itself), as
    (object path, port)."""
    owner, _, port = written.replace("::", ".").rpartition(".")
    if not owner:
        return path, port
    return (f"{path}.{owner}" if path else owner), port
