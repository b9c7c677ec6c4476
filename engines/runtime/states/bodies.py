"""What runs in the machine's frame on the action runtime: guards, effects, entry/exit behaviors
(a body as one anonymous action, a typed action as a flow), do behaviors stepped one member a
round, and the messages they send, taken into the pool."""

from __future__ import annotations

from collections.abc import Iterator

from engines.errors import GuardNotBoolean
from engines.runtime.actions.tokens import BodyRun, Flow, FlowKind, Wait
from engines.runtime.evaluate import Frame
from engines.runtime.states.core import DoRun, Event, MachineCore, MachineError, signal_name
from engines.runtime.states.layout import Behavior, Transition, Vertex
from engines.runtime.values import Value, spell
from ir import syntax as s
from ir.inherit import effective_members
from ir.resolve import lookup


class Bodies(MachineCore):
    def _guard(self, t: Transition, quiet: bool = False) -> bool:
        if t.guard is None:
            return True
        if quiet:
            with self.ctx.trace.quiet():
                value = self.host.evaluator.eval(t.guard, self.frame, 0)
        else:
            value = self.host.evaluator.eval(t.guard, self.frame, 0)
        if not isinstance(value, bool):
            raise GuardNotBoolean(f"the guard of transition {t.label()} must be Boolean, got {spell(value)}")
        return value

    def _effect(self, t: Transition, frame: Frame) -> None:
        if t.effect and t.effect_body:
            self.ctx.trace.at(0, "stmt action body")
            self._run(t.effect, frame, 1, f"transition {t.label()}")
        elif t.effect:
            self._run(t.effect, frame, 0, f"transition {t.label()}")

    def _behavior(self, b: Behavior, state: Vertex) -> None:
        owner = f"state {state.name}"
        if b.action is not None:
            self.ctx.trace.at(0, "stmt action body")
            name = b.action.name or (b.action.types[0].rsplit("::", 1)[-1] if b.action.types else "action")
            self._drain(self._flow(self._action_members(b.action), 1, f"state behavior {name}", name), owner)
        elif b.wrapped:
            self.ctx.trace.at(0, "stmt action body")
            self._run(b.statements, self.frame, 1, owner)
        else:
            self._run(b.statements, self.frame, 0, owner)

    def _flow(self, members: tuple[s.Member, ...], depth: int, label: str, name: str) -> BodyRun:
        """A behavior given as an action: its flow run from its start, in the machine's frame."""
        graph = self.program.block_graph(self.element, s.Block(members, s.NO_SPAN), name)
        self.ctx.trace.flush_left(f"enter action node: {label}")
        flow = Flow(self.host, graph, self.frame, FlowKind.BLOCK, depth, label)
        self.host.init_attributes(graph.attributes, self.frame, depth)
        flow.start()
        yield from self.host._drive(flow)
        self.ctx.trace.flush_left(f"leave action node: {label}")

    def _action_members(self, usage: s.Usage) -> tuple[s.Member, ...]:
        """A typed behavior's flow: the steps of the action it is typed by, then its own (unordered
        with them unless a succession orders them)."""
        own = usage.members or ((usage.action_body,) if usage.action_body is not None else ())
        if usage.types:
            performs = lookup(self.program.model, self.element, usage.types[0])
            if performs is not None:
                return tuple(effective_members(self.program.model, performs)) + own
        return own

    def _run(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str) -> None:
        self._drain(self.host.statements(stmts, frame, depth, owner), owner)

    def _drain(self, body: Iterator[Wait], owner: str) -> None:
        for _ in body:
            raise MachineError(f"{owner}: an entry, exit or effect that waits is not run yet")
        self._deliver()

    def _deliver(self) -> None:
        """Messages the bodies sent: into the pool, in the order sent (in a world shared with other
        machines, the world routes them)."""
        bus = self.ctx.bus
        if bus and not self.shared:
            for message in list(bus):
                self.pool.append(Event("signal", signal_name(message.payload, self.ctx), message.payload))
            self.ctx.journal.touch(bus)
            bus.clear()

    def _do_round(self) -> bool:
        """Every active do behavior with a statement due performs one, in region declaration order."""
        moved = False
        for state in sorted(self.dos, key=lambda v: v.order):
            run = self.dos.get(state)
            if run is None or state not in self.active or run.done:
                continue
            if run.waiting is not None and not run.waiting.ready():
                continue
            moved = True
            self._do_once(run)
            if run.done and state in self.dos:
                del self.dos[state]
                self._completed(state)
            if self.finished:
                break
        self._deliver()
        return moved

    def _do_once(self, run: DoRun) -> None:
        trace = self.ctx.trace
        if run.current is None:
            if run.wrapped and not run.started:
                trace.at(0, "stmt action body")
            run.started = True
            stmt = run.statements[run.index]
            run.index += 1
            run.current = self.host.statement(stmt, run.frame, 1 if run.wrapped else 0, f"state {run.state.name}")
        try:
            run.waiting = next(run.current)
        except StopIteration:
            run.current = None
            run.waiting = None

    def accepts(self, name: str) -> bool:
        """Whether some transition of the machine is triggered by the signal `name`."""
        return name in self.shape.signals()

    def post(self, payload: Value) -> None:
        """A message another behavior of the world sent to this machine: into its pool."""
        self.pool.append(Event("signal", signal_name(payload, self.ctx), payload))
