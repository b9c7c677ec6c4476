"""An instance as one behavior for check and explore: every object's state machines and the actions it
performs, members of one ensemble on one world (one clock, one bus), each message a move sends
routed at once as the instance routes it (instances.py: to the object it names, over a connection,
or to every other machine that accepts its signal; one no machine there accepts stays on the bus for
an action performed there to accept). The environment (driven.py) drives it as it
drives one machine: an event it sends goes to every machine of the instance that accepts its signal
(to the first machine where none does, which then refuses or drops it as a machine does).

Performed actions interleave with the machines from the start, each starting once the performed
actions a succession puts before it have ended (the fixed run of `run --instantiate` runs each
until it ends or waits at an accept, then the machines).

Dependence (engines/check/reduce.py): a member's moves touch what they touch as members of any
ensemble do; a move that sends also writes the pool of every machine of the instance (routing may
put its message there), and the environment's moves touch what a send to, and time passing in,
every machine does. Two objects exhibiting one machine share its footprint names: conservative.
"""

from __future__ import annotations

from fractions import Fraction

from engines.runtime.behavior import Actor, Behavior, Move, Summary, Travelled
from engines.runtime.ensemble import Ensemble
from engines.runtime.evaluate import Frame
from engines.runtime.lowered import LoweredModel
from engines.runtime.states.core import MachineError
from engines.runtime.states.environment import EnvEvent, EnvironmentInputError
from engines.runtime.states.footprints import ENVIRONMENT
from engines.runtime.states.instances import InstanceObject, Instantiation
from engines.runtime.states.machine import MachineRun
from engines.runtime.states.moves import Reported
from engines.runtime.values import Value
from engines.runtime.world import Context
from ir.graphs import Footprint


class InstanceRun(Reported):
    """A part materialized with its parts, its machines and performed actions moving one move at a time."""

    def __init__(self, program: LoweredModel, part: str) -> None:
        self.instance = Instantiation(program, part, units=True)
        self.ctx: Context = self.instance.ctx
        self.element = self.instance.element
        members: list[tuple[str, Behavior]] = []
        self._owners: list[tuple[InstanceObject, MachineRun | None]] = []
        after: dict[int, list[int]] = {}
        for obj in self.instance.objects:
            started: dict[str, int] = {}
            for action in self.instance.ordered(obj.actions):
                started[action.name] = len(members)
                run = self.instance.performed(obj, action, fine=True)
                members.append((f"{self.name_of(obj)}.{action.name}", run))
                self._owners.append((obj, None))
            for action_name, index in started.items():
                after[index] = sorted(started[b] for b in self.instance.before(obj.actions)[action_name])
            for machine in obj.machines:
                members.append((f"{self.name_of(obj)}.{machine.element.name}", machine))
                self._owners.append((obj, machine))
        if not members:
            raise MachineError(f"{self.element.qualified_name} exhibits no state machine and performs no action,"
                               " nor do its parts: nothing of it moves")
        for obj in self.instance.objects:
            # the world's state (engines/runtime/canon.py `world_key`) holds the objects' features, each
            # named by its path (no qualified name has a space)
            self.ctx.usage_objects[f"instance {self.name_of(obj)}"] = obj.ref
        for machine in self.machines:  # what the machines sent as they started (their initial entries)
            self.instance.route(machine)
        self.ensemble = Ensemble(self.ctx, members, self._routed, after)
        # every machine's pool: what a message routed at the end of a move may write
        self._pools: Summary = Footprint(writes=frozenset(m.footprints().key("pool") for m in self.machines))
        self.visits: tuple[str, ...] = ()
        self._seen: tuple[int, ...] = (0,) * len(self.machines)
        self._visited()

    @property
    def machines(self) -> list[MachineRun]:
        return self.instance.machines

    def name_of(self, obj: InstanceObject) -> str:
        return self.instance.name_of(obj)

    def _routed(self, index: int) -> None:
        obj, machine = self._owners[index]
        self.instance.route(machine, own=obj)
        self._visited()

    def _visited(self) -> None:
        """The states each machine entered since, in the order the machines are listed: the instance's
        `stateVisits` (each named by its object)."""
        added = [f"{self.name_of(self.instance.object_of(machine))}.{v}"
                 for machine, seen in zip(self.machines, self._seen, strict=True) for v in machine.visits[seen:]]
        if added:
            self.visits = (*self.visits, *added)
            self._seen = tuple(len(m.visits) for m in self.machines)

    # ------------------------------------------------------------ what the environment drives

    @property
    def error(self):  # type: ignore[no-untyped-def]
        return self.ensemble.error

    @property
    def finished(self) -> bool:
        return self.ensemble.error is not None or all(m.finished for m in self.ensemble.members)

    @property
    def broken_assertions(self) -> tuple[str, ...]:
        """The step assertions its machines' behaviors and performed actions found false."""
        return self.ensemble.broken_assertions

    @property
    def front(self) -> object | None:
        """A firing in progress in some machine: the environment waits for it to end."""
        return next((m.front for m in self.machines if m.front is not None), None)

    def surely_moves(self) -> bool:
        """Never answered without listing the moves (see MachineMoves.surely_moves)."""
        return False

    def enabled_moves(self) -> list[Move]:
        return self.ensemble.enabled_moves()

    def apply(self, move: Move, *, at: bytes | None = None, listed: bool = False) -> list[str]:
        return self.ensemble.apply(move, at=at)  # (the ensemble finds the member's move, listed or not)

    @property
    def moves_taken(self) -> list[Move]:
        return self.ensemble.moves_taken

    def takers(self, event: EnvEvent) -> list[MachineRun]:
        """The machines an event the environment sends goes to: those of the object it is sent to, or
        else every machine that accepts its signal (the first machine where none does)."""
        live = [m for m in self.machines if not m.finished]
        if event.to is not None:
            return [m for m in self.addressed(event.to).machines if not m.finished]
        name = event.name.rsplit("::", 1)[-1]
        return [m for m in live if m.accepts(name)] or live[:1]

    def addressed(self, to: str) -> InstanceObject:
        """The object `to` names (its path, or the root by the part's name) that exhibits a machine."""
        found = next((o for o in self.instance.objects if to in (o.path, self.name_of(o)) and o.machines), None)
        if found is None:
            known = ", ".join(self.name_of(o) for o in self.instance.objects if o.machines)
            raise EnvironmentInputError(f"an event sent to '{to}': no object of {self.element.qualified_name} of"
                                        f" that path exhibits a state machine (objects with machines: {known})")
        return found

    def send(self, event: EnvEvent) -> None:
        for machine in self.takers(event):
            machine.send(event)

    def check_signal(self, event: EnvEvent) -> None:
        """An event to an object of the instance, whose signal some machine accepts or the model declares
        (else EnvironmentInputError, UnknownSignalError)."""
        machines = self.addressed(event.to).machines if event.to is not None else self.machines
        if not machines:
            raise EnvironmentInputError(f"an event sent to {self.element.qualified_name}: none of its objects"
                                        " exhibits a state machine to take it (they only perform actions)")
        name = event.name.rsplit("::", 1)[-1]
        if not any(m.accepts(name) for m in machines):
            machines[0].check_signal(event)

    def next_wake(self) -> Fraction | None:
        return self.ensemble.next_wake()

    def let_time_pass(self) -> bool:
        return self.ensemble.let_time_pass()

    def pass_time_to(self, instant: Fraction) -> None:
        self.ensemble.pass_time_to(instant)

    @property
    def program(self) -> LoweredModel:
        return self.instance.program

    def stuck(self) -> str | None:
        return self.ensemble.stuck()

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        return self.ensemble.state_key(readable)

    def actors(self) -> list[Actor]:
        return self.ensemble.actors()

    def environment_place(self) -> tuple[object, ...]:
        return ("environment",)

    def footprint(self, move: Move) -> Summary:
        if move.actor == ENVIRONMENT:
            return self._every(lambda m: m.footprint(move))
        return self._with_pools(self.ensemble.footprint(move))

    def future(self, actor: Actor) -> Summary:
        if actor.id == ENVIRONMENT:
            return self._every(lambda m: m.future(actor))
        return self._with_pools(self.ensemble.future(actor))

    def _every(self, of: object) -> Summary:
        out: Summary = Footprint()
        for machine in self.machines:
            out = out | of(machine)  # type: ignore[operator]
        return out

    def _with_pools(self, footprint: Summary) -> Summary:
        return footprint | self._pools if footprint.sends else footprint

    def enablers(self, actor: Actor) -> list[int] | None:
        if actor.id == ENVIRONMENT:
            return None  # waits for every firing in progress to end: no one actor enables it
        return self.ensemble.enablers(actor)

    def machine_outputs(self) -> dict[str, str]:
        """Every object's features (`pinger.sent`) and each machine's configuration, named by its object
        (`pinger.pinging = idle`; `(terminated)` once a terminate ended it)."""
        out: dict[str, str] = {}
        for obj in self.instance.objects:
            prefix = f"{obj.path}." if obj.path else ""
            out.update({prefix + k: v for k, v in self.instance.slots(obj).items()})
            for machine in obj.machines:
                out[f"{self.name_of(obj)}.{machine.element.name}"] = machine.final_configuration()
        return dict(sorted(out.items()))

    def settled(self) -> bool:
        return self.ensemble.settled()

    def travelled(self) -> Travelled | None:
        """The states entered, each named by its object, and each object exhibiting a machine where it
        stands."""
        return Travelled(self.visits, tuple(self.instance.end_of(o) for o in self.instance.objects if o.machines))

    def scope(self) -> Frame:
        """Where a property is read: the root object's features, and its parts by name (`pinger.sent`)."""
        root = self.instance.objects[0]
        parts: dict[str, Value] = {obj.path: obj.ref for obj in self.instance.objects if obj.path and "." not in obj.path}
        return Frame("instance", self.element, None, parts, performer=root.ref)

    # ------------------------------------------------------------ what a snapshot needs

    def unjournaled(self) -> str | None:
        return self.ensemble.unjournaled()

    def movers(self) -> list[object]:
        return [self, *self.ensemble.movers()]
