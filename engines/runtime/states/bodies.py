"""What runs in the machine's frame on the action runtime: guards, effects, entry/exit behaviors
(a body as one anonymous action, a typed action as a flow), do behaviors stepped one member a
round, and the messages they send, taken into the pool."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from fractions import Fraction

from engines.errors import GuardNotBoolean
from engines.runtime.actions.statements import waits_or_chains
from engines.runtime.actions.tokens import BodyRun, Flow, FlowKind, Terminated, Wait
from engines.runtime.evaluate import Frame
from engines.runtime.states.core import DoRun, Event, MachineCore, MachineError, signal_name
from engines.runtime.states.layout import Behavior, Transition, Vertex, derive
from engines.runtime.states.units import UNIT, Chain, Par, Step, Steps
from engines.runtime.values import Signal, Value, spell
from engines.runtime.world import Context
from ir import syntax as s
from ir.assertions import step_label, usage_assertions
from ir.graphs import NodeKind
from ir.inherit import effective_members
from ir.lower.members import declares, is_feature, statement_label, states_a_flow, unwrapped
from ir.resolve import lookup

STILL = "do flow waits"  # the reason a do flow's round that moved nothing gives


class Bodies(MachineCore):
    def _guard(self, t: Transition, quiet: bool = False, frame: Frame | None = None) -> bool:
        """The transition's guard, read in `frame` (the machine's, or one binding the accepted
        payload: the trigger's acceptance precedes the guard)."""
        if t.guard is None:
            return True
        frame = frame or self.frame
        if quiet:
            with self.ctx.trace.quiet():
                value = self.host.evaluator.eval(t.guard, frame, 0)
        else:
            value = self.host.evaluator.eval(t.guard, frame, 0)
        if not isinstance(value, bool):
            raise GuardNotBoolean(f"the guard of transition {t.label()} must be Boolean, got {spell(value)}")
        return value

    def _payload_frame(self, t: Transition, event: Event | None) -> Frame:
        """The frame a transition's guard and effect read: the machine's, with the accepted
        occurrence bound to the trigger's payload name (`accept o : Order if o.qty > 0`)."""
        if t.trigger is not None and t.trigger.payload and event is not None:
            return Frame(self.frame.label, self.frame.scope, self.frame, {t.trigger.payload: event.payload},
                         block=True)
        return self.frame

    def _effect(self, t: Transition, frame: Frame) -> Iterable[Step]:
        """The effect's steps, as `_statement_steps` gives them (its callers `yield from` them at once)."""
        if not t.effect:
            return ()
        owner = derive(t, "owner", lambda: f"transition {t.label()}")
        if t.effect_body:
            self.ctx.trace.at(0, "stmt action body")
            return self._statement_steps(t.effect, frame, 1, owner, t)
        return self._statement_steps(t.effect, frame, 0, owner, t)

    def _behavior(self, b: Behavior, state: Vertex) -> Steps:
        owner = f"state {state.name}"
        if b.action is not None:
            self.ctx.trace.at(0, "stmt action body")
            name = b.action.name or (b.action.types[0].rsplit("::", 1)[-1] if b.action.types else "action")
            self._drain(self._flow(self._action_members(b.action), 1, f"state behavior {name}", name), owner)
        elif b.wrapped:
            self.ctx.trace.at(0, "stmt action body")
            yield from self._statement_steps(b.statements, self.frame, 1, owner, state)
        else:
            yield from self._statement_steps(b.statements, self.frame, 0, owner, state)
        if b.usage is not None and (b.action is not None or b.wrapped):
            self._judge_behavior(b.usage)  # a typed usage run as itself is judged as its performance ends

    def _statement_steps(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str,
                         what: Vertex | Transition) -> Iterable[Step]:
        """An entry, exit or effect given as statements. Under check and explore its statements are
        unordered, as an action body's are (the oracle's "Direct statements of one body ..."): each is
        a chain of a firing's units, an `if` reads its guard as one unit and its branch's statements
        are chains again; `then` orders a statement after the one before it, and what is written after
        a declaration (a local usage, an accept naming its payload) starts once it has ended. A
        `terminate;` among them ends the behavior: chains not yet begun do nothing. The fixed policies
        perform them in the order written, as one unit. A chain's footprint is its statements' own
        (engines/runtime/states/footprints.py `chain_work`).

        Performed at once where it is one unit (its callers `yield from` what it returns at once, so
        the same work is done at the same point as by a generator), else the generator of its chains."""
        chains, assigns = chains_of(stmts, what)
        if not self.units or len(chains) < 2:
            self._run(stmts, frame, depth, owner, assigns)
            return ()
        return self._unordered(chains, frame, depth, owner, [False], what)

    def _unordered(self, chains: list[list[s.Member]], frame: Frame, depth: int, owner: str,
                   ended: list[bool], what: Vertex | Transition) -> Steps:
        """The chains started together, but for those written after a declaration, which the
        declaration's chain starts once it has ended."""
        cut = next((i for i, chain in enumerate(chains) if declares(chain[-1])), len(chains))
        after = chains[cut + 1:]
        yield Par(tuple((statement_label(unwrapped(chain[0])),
                         self._chain(chain, after if i == cut else [], frame, depth, owner, ended, what),
                         Chain(what, tuple(chain))) for i, chain in enumerate(chains[:cut + 1])))

    def _chain(self, chain: list[s.Member], after: list[list[s.Member]], frame: Frame, depth: int, owner: str,
               ended: list[bool], what: Vertex | Transition) -> Steps:
        for stmt in chain:
            yield UNIT
            if ended[0]:
                return
            try:
                plain = unwrapped(stmt)
                if isinstance(plain, s.If) and _plain_block(plain):
                    yield from self._if(plain, frame, depth, owner, ended, what)
                else:
                    self._drain(self.host.statement(stmt, frame, depth, owner), owner)
            except Terminated:
                ended[0] = True
                self._deliver()
                return
        if after:
            yield from self._unordered(after, frame, depth, owner, ended, what)

    def _if(self, stmt: s.If, frame: Frame, depth: int, owner: str, ended: list[bool],
            what: Vertex | Transition) -> Steps:
        """An `if` among unordered statements: its guard now, its branch's statements as chains after it."""
        self.ctx.trace.at(depth, "stmt if")
        block = stmt.then if self.host._condition("if", stmt.condition, frame, depth + 1) else stmt.otherwise
        if block is None or not block.members:
            return
        inner = Frame(frame.label, frame.scope, frame, block=True)
        self.host.start_block_features(block.members, inner, depth + 1)
        statements = tuple(m for m in block.members if not is_feature(m))
        chains = _chains(statements)
        if len(chains) < 2:
            self._drain(self.host.statements(statements, inner, depth + 1, owner), owner)
            return
        yield from self._unordered(chains, inner, depth + 1, owner, ended, what)

    def _flow(self, members: tuple[s.Member, ...], depth: int, label: str, name: str) -> BodyRun:
        """A behavior given as an action: its flow run from its start, in the machine's frame."""
        graph = self.program.block_graph(self.element, self.program.members_block(members), name)
        self.ctx.trace.flush_left(f"enter action node: {label}")
        flow = Flow(self.host, graph, self.frame, FlowKind.BLOCK, depth, label)
        self.host.init_attributes(graph.attributes, self.frame, depth)
        flow.start()
        yield from self.host._drive(flow)
        self.ctx.trace.flush_left(f"leave action node: {label}")

    def _do_flow(self, run: DoRun, members: tuple[s.Member, ...], label: str, name: str) -> BodyRun:
        """A do behavior given as a named action stating a flow: its flow, one round (each steppable
        token once) a do step; between rounds the machine may dispatch, and a dispatch that leaves
        the state cuts the flow wherever it stands."""
        host = self.host
        graph = self.program.block_graph(self.element, self.program.members_block(members), name)
        self.ctx.trace.flush_left(f"enter action node: {label}")
        flow = Flow(host, graph, self.frame, FlowKind.BLOCK, 1, label)
        run.flow = flow
        host.init_attributes(graph.attributes, self.frame, 1)
        flow.start()
        if not any(isinstance(m, s.FirstMember) and m.target is None for m in members):
            flow.step_no = 1  # no initial node named: it starts as if from a start node
        moved = False  # within the present do step
        while not flow.finished:
            routing = self._routes_only(flow)
            if moved and not routing and len(self.lone_tokens(run)) > 1:
                # under check, a round of several tokens after routing ones is a move of its own, so
                # each token may go alone (the fixed policies' run goes on as one step: see `split`)
                run.split = True
                yield Wait("do round", lambda: True)
                moved = False
                continue
            if host._step_within(flow):
                moved = True
                if not flow.finished and not routing:
                    yield Wait("do round", lambda: host._flow_ready(flow))
                    moved = False
                continue
            if not any(t.waiting_accept or (t.body is not None and t.wake is None) for t in host.all_tokens(flow)):
                wakes = [t.wake for t in host.all_tokens(flow) if t.wake is not None]
                if wakes:
                    # only time can move it: under check it waits for the machine's clock, so what else
                    # is due when it wakes (the machine's timers) is drawn against its next steps
                    run.wake = min(wakes)
                    yield Wait("do flow waits for time", _at(self.ctx, run.wake))
                    run.wake = None
                    moved = False
                    continue
                yield from host._drive(flow)  # only time can move it: the nested run's clock rule
                break
            yield Wait("do flow parked" if moved else STILL, lambda: host._flow_ready(flow))
            moved = False
        self.ctx.trace.flush_left(f"leave action node: {label}")
        if run.usage is not None:
            self._judge_behavior(run.usage)

    def _end_do(self, state: Vertex, run: DoRun) -> None:
        """A do behavior that has run to its end: judged (one written as statements, stepped one a round;
        a flow is judged as it leaves), then the state's completion."""
        if run.usage is not None and run.action is None and run.wrapped:
            self._judge_behavior(run.usage)
        del self.dos[state]
        self._completed(state)

    def _judge_behavior(self, usage: s.Usage) -> None:
        """An entry, do or exit behavior given as an action usage, ended: its `assert constraint`s (its
        own and its definition's) judged in the machine's frame, named by the usage (`warm.low`), as an
        action's step is judged where its performance ends."""
        conditions = usage_assertions(self.program.model, self.element, usage)
        if conditions:
            self.host.judge_step(step_label(usage), conditions, self.frame, step_label(usage))

    def _routes_only(self, flow: Flow) -> bool:
        """Whether a round of the flow performs nothing another move could observe: each token stands
        at a start, a merge or a fork or join with no body (they only route control), or at an accept
        (taking its occurrence is the dispatch's part), so the do step goes on to the next round."""
        for token in self.host.all_tokens(flow):
            if token.flow is not flow:
                return False
            node = flow.graph.nodes[token.node]
            if flow.graph.accepts[node.index] is not None:
                continue
            if node.kind in (NodeKind.START, NodeKind.MERGE, NodeKind.FORK, NodeKind.JOIN) and node.body is None:
                continue
            return False
        return True

    def _action_members(self, usage: s.Usage) -> tuple[s.Member, ...]:
        """A typed behavior's flow: the steps of the action it is typed by, then its own (unordered
        with them unless a succession orders them)."""
        own = usage.members or ((usage.action_body,) if usage.action_body is not None else ())
        if usage.types:
            performs = lookup(self.program.model, self.element, usage.types[0])
            if performs is not None:
                return tuple(effective_members(self.program.model, performs)) + own
        return own

    def _run(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str, assigns: bool = False) -> None:
        """An entry, exit or effect given as statements; a `terminate;` among them ends that behavior's
        performance (as it ends the node holding it in an action, and as `then terminate;` ends a
        behavior given as a flow), not the machine. `assigns`: every statement is an `assign` (none
        waits: each is run as `statement` runs it, without a generator)."""
        try:
            if assigns:
                host = self.host
                for stmt in stmts:
                    host.assign_statement(stmt, frame, depth)  # type: ignore[arg-type]
                self._deliver()
            else:
                self._drain(self.host.statements(stmts, frame, depth, owner), owner)
        except Terminated:
            self._deliver()

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

    def take_addressed(self) -> bool:
        """Messages another behavior of the world sent to this machine by name (`send Go() to
        receiver`): into the pool at once, in the order sent, as the sender's move ends (a machine at
        rest has no move of its own to collect them by). Whether any were taken."""
        bus = self.ctx.bus
        if self.shared or not bus:
            return False
        names = {self.element.name, self.element.qualified_name}
        mine = [m for m in bus if m.to in names]
        if not mine:
            return False
        self.ctx.journal.touch(bus)
        for message in mine:
            self.pool.append(Event("signal", signal_name(message.payload, self.ctx), message.payload))
            bus.remove(message)
        return True

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
                self._end_do(state, run)
            if self.finished:
                break
        self._deliver()
        return moved

    def lone_tokens(self, run: DoRun) -> list[int]:
        """Under check, the tokens of a do flow that may each move alone (where two or more may move:
        one token move is one move of the behavior, the fixed policies' round moving them all)."""
        flow = run.flow
        if not self.units or flow is None or run.current is None:
            return []
        host = self.host
        ids = [t.id for t in host.all_tokens(flow) if host.can_act(t)]  # type: ignore[arg-type]
        return ids if len(ids) > 1 else []

    def _do_once(self, run: DoRun, token: int | None = None) -> None:
        trace = self.ctx.trace
        mark = trace.mark()
        split, run.split = run.split, False
        retry = run.action is not None and run.started
        if run.action is not None:
            # a flow of its own: one do step is one round of it (see _do_flow)
            if run.wake is None and not split:  # a flow woken by time, or split before a round of
                trace.flush_left(f"do: {run.state.name}")  # several tokens, goes on in the step that began it
            if not run.started:
                run.started = True
                trace.at(0, "stmt action body")
                name = run.action.name or "action"
                run.current = self._do_flow(run, self._action_members(run.action), f"state behavior {name}", name)
            self._materialize_handed()
        elif run.current is None:
            if run.wrapped and not run.started:
                trace.at(0, "stmt action body")
            run.started = True
            stmt = run.statements[run.index]
            run.index += 1
            run.current = self.host.statement(stmt, run.frame, 1 if run.wrapped else 0, f"state {run.state.name}")
        if run.current is None:
            return  # a flow cut off already (a dispatch left its state)
        self.host.only_token = token
        self.host.step_nested = self.units and run.action is None  # a do flow's performs step in its rounds
        self.host.step_statements = self.host.step_nested
        self.host.waits_for_time = True
        try:
            run.waiting = next(run.current)
        except StopIteration:
            run.current = None
            run.waiting = None
        finally:
            self.host.only_token = None
            self.host.step_nested = False
            self.host.step_statements = False
            self.host.waits_for_time = False
        if run.action is None:  # statements waiting for time wake on the machine's clock (a flow sets its own)
            run.wake = run.waiting.wake if run.waiting is not None else None
        if run.waiting is not None and run.waiting.reason == "nested step":
            run.split = True  # the fixed policies' step goes on: first, and with no header of its own
        if retry and run.waiting is not None and run.waiting.reason == STILL:
            del trace.lines[mark:]  # a do step that moved nothing writes nothing

    def _materialize_handed(self) -> None:
        """An item occurrence the environment sent, handed to a do behavior's accept: an occurrence
        has an identity, so the performance takes it as an object of the run (`materialize: T #n`),
        as it does one made by `new`; an attribute value has none and is taken as it is."""
        bus = self.ctx.bus
        for i, message in enumerate(bus):
            payload = message.payload
            if message.to is not None or message.sender != 0:
                continue  # not one the machine handed over from its pool (_to_waiting_do)
            if not isinstance(payload, Signal) or payload.object_id is not None:
                continue
            el = lookup(self.program.model, self.element, payload.type_name)
            if el is None or el.kind != "item def":
                continue
            self.ctx.journal.touch(bus)
            ref = self.ctx.materialize(el.name, el.qualified_name, dict(payload.fields))
            bus[i] = replace(message, payload=ref)

    def accepts(self, name: str) -> bool:
        """Whether some transition of the machine is triggered by the signal `name`."""
        return name in self.shape.signals()

    def post(self, payload: Value) -> None:
        """A message another behavior of the world sent to this machine: into its pool."""
        self.pool.append(Event("signal", signal_name(payload, self.ctx), payload))


def _at(ctx: Context, wake: Fraction) -> Callable[[], bool]:
    """Whether the clock has reached `wake`."""
    return lambda: ctx.clock.now >= wake


def chains_of(stmts: tuple[s.Member, ...], what: Vertex | Transition) -> tuple[list[list[s.Member]], bool]:
    """`_chains` of a behavior of `what` (its effect, entry or exit), and whether its statements are all
    `assign`s; made once per behavior (its readers never change it)."""
    # keyed by the statements' identity: each is a behavior `what` holds for its life
    return derive(what, f"chains {id(stmts)}", lambda: (_chains(stmts), all(type(m) is s.Assign for m in stmts)))


def _chains(stmts: tuple[s.Member, ...]) -> list[list[s.Member]]:
    """The statements as chains: each with the statements `then` orders after it."""
    chains: list[list[s.Member]] = []
    for m in stmts:
        if is_feature(unwrapped(m)):
            continue
        if isinstance(m, s.ThenMember) and chains:
            chains[-1].append(m)
        else:
            chains.append([m])
    return chains


def _plain_block(stmt: s.If) -> bool:
    """Whether both of an `if`'s blocks are statements only (no flow of their own, nothing that waits
    or chains blocks with `then`): such a branch's statements are unordered chains."""
    return all(block is None or (not states_a_flow(block.members) and not waits_or_chains(block.members))
               for block in (stmt.then, stmt.otherwise))


def interleaves(stmts: tuple[s.Member, ...]) -> bool:
    """Whether a behavior's statements may be performed in more than one order under check (two chains
    or more, at its top or in a branch of an `if`)."""
    if len(_chains(stmts)) > 1:
        return True
    return any(isinstance(p, s.If) and _plain_block(p) and any(
        block is not None and interleaves(block.members) for block in (p.then, p.otherwise))
        for p in (unwrapped(m) for m in stmts))
