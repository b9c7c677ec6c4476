"""Token flow: one move is one token advancing one node (its body run to completion, its enabled
successions followed); a fixed policy steps every steppable token once per round."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING

from engines.errors import (
    AcceptDeadlock,
    ActionDeadlock,
    EvaluationError,
    GuardNotBoolean,
    RunError,
)
from engines.runtime.context import IMPLICIT_TERMINATE, Context, Message
from engines.runtime.evaluate import Evaluator, Frame
from engines.runtime.schedule import ChoiceKind, Move
from engines.runtime.values import (
    UNSET,
    Deferred,
    ObjectRef,
    Quantity,
    Sequence,
    Signal,
    Value,
    coerce_to,
    spell,
    type_name,
    with_article,
)
from ir import syntax as s
from ir.lower import ActionGraph, Attribute, Body, Node, NodeKind, states_a_flow
from ir.model import Element
from ir.resolve import lookup

if TYPE_CHECKING:
    from engines.runtime.snapshot import Snapshot


@dataclass(frozen=True)
class Wait:
    """Why a body cannot go on now, and a probe that tells, without changing anything, whether it could."""

    reason: str
    ready: Callable[[], bool] = field(default=lambda: True, compare=False)


class _Terminated(Exception):
    """A `terminate;` ending the performance of the node whose body states it."""


BodyRun = Generator[Wait, None, None]


class FlowKind(Enum):
    ROOT = "root"  # the action run: its steps are the run's steps
    PERFORMED = "performed"  # an action performed in an executor of its own: its own step lines
    ENTERED = "entered"  # a node's subflow its token entered: moves are the run's moves
    BLOCK = "block"  # a branch or loop body stating a flow: run within the statement


@dataclass(eq=False)
class Token:
    id: int
    node: int
    flow: Flow
    body: BodyRun | None = None
    arrived_round: int = 0
    via: int | None = None  # the node it came from (joins count arrivals per incoming edge)
    inside: Flow | None = None  # the subflow this token entered
    group: list[Token] | None = None  # the performances of a node with multiplicity
    waiting_accept: bool = False
    wake: Fraction | None = None
    resumed: bool = False  # its body waited during this move: the node after it goes on at once
    wait: Wait | None = None  # what its paused body waits for
    repeats: int | None = None  # performances still to go of a node with multiplicity, one after another


@dataclass
class _Write:
    token: int
    feature: str
    value: Value
    order: int


class Flow:
    """One performance's tokens over one graph, and its step counter."""

    def __init__(self, run: Run, graph: ActionGraph, frame: Frame, kind: FlowKind, depth: int,
                 label: str, parent_token: Token | None = None) -> None:
        self.run = run
        self.graph = graph
        self.frame = frame
        self.kind = kind
        self.depth = depth
        self.label = label
        self.parent_token = parent_token
        self.outer: Flow | None = parent_token.flow if parent_token is not None else run.current_flow
        self.tokens: list[Token] = []
        self.step_no = 0
        self.round = 0
        self.returns: tuple[Element, Frame] | None = None  # a performed action's outputs go back on leaving
        self.implicit = False  # a fine run's flow of a node's statements, which the text states no flow for
        # Tokens are numbered per executor: a performed action numbers its own from 1.
        self.ids: list[int] = [1] if parent_token is None and kind in (FlowKind.ROOT, FlowKind.PERFORMED) else []

    def new_token_id(self) -> int:
        flow: Flow | None = self
        while flow is not None and not flow.ids:
            flow = flow.outer
        assert flow is not None
        token = flow.ids[0]
        flow.ids[0] += 1
        return token

    @property
    def ctx(self) -> Context:
        return self.run.ctx

    def start(self, first_id: int | None = None) -> None:
        for i, index in enumerate(self.graph.initial):
            token_id = first_id if (i == 0 and first_id is not None) else self.new_token_id()
            self.tokens.append(Token(token_id, index, self))

    @property
    def finished(self) -> bool:
        return not self.tokens

    def node_label(self, token: Token) -> str:
        node = self.graph.nodes[token.node]
        if node.kind is NodeKind.STATEMENT and self.kind is FlowKind.ENTERED and isinstance(node.decl, s.Assign) \
                and not self.implicit and not self.run.fine:
            # the reference executor's trace names such a node by its syntax type
            return "*ast.AssignmentActionNode"
        return node.name


class Run:
    """A stepping run of one action: the debugger's and the checker's unit of execution."""

    def __init__(self, ctx: Context, action: Element, performer: str | None = None, fine: bool = False) -> None:
        self.ctx = ctx
        self.performer = performer
        # Fine runs move one performance at a time: a node's direct statements, and the nodes of
        # the actions it performs, are moves of their own (explore and check range over them).
        self.fine = fine
        self.moves_taken: list[Move] = []
        self.branch_wanted: str | None = None
        self.action = action.qualified_name
        self.element = action
        self.evaluator = Evaluator(ctx)
        self.status = "running"
        self.error: RunError | None = None
        self.displayed: dict[int, tuple[str, list[str]]] = {}
        self.mover: int = 0
        self.writes: list[_Write] | None = None
        self.current_flow: Flow | None = None
        self.mover_token: Token | None = None
        self._live: list[Token] | None = None
        graph = ctx.program.graph(action)
        frame = Frame(action.name, action)
        self.root = Flow(self, graph, frame, FlowKind.ROOT, 0, action.name)
        self.current_flow = self.root
        was = ctx.trace.enabled
        ctx.trace.enabled = False  # the corpus traces begin with the first step
        try:
            self.init_attributes(graph.attributes, frame, 0)
        finally:
            ctx.trace.enabled = was
        self.root.start()

    # ------------------------------------------------------------ the stepping surface

    @property
    def finished(self) -> bool:
        return self.status != "running"

    @property
    def step_number(self) -> int:
        return self.root.step_no

    @property
    def trace(self) -> list[str]:
        return self.ctx.trace.lines

    def step(self) -> list[str]:
        """One round: every steppable token moves once; returns the trace lines it wrote."""
        if self.finished:
            return []
        mark = self.ctx.trace.mark()
        self._live = None
        try:
            progressed = self.step_flow(self.root)
            if self.root.finished:
                self.status = "completed"
            elif not progressed:
                self._stalled()
        except RunError as err:
            self.status = "failed"
            self.error = err
            raise
        finally:
            self._live = None
        return self.ctx.trace.since(mark)

    def run_to_end(self) -> list[str]:
        mark = self.ctx.trace.mark()
        while not self.finished:
            self.step()
        return self.ctx.trace.since(mark)

    # ------------------------------------------------------------ one move at a time

    def enabled_moves(self) -> list[Move]:
        """The tokens that can advance now, in token order: the moves a schedule chooses among."""
        if self.finished:
            return []
        moves: list[Move] = []
        for token in sorted(self.live_tokens(), key=lambda t: t.id):
            if not self.can_act(token):
                continue
            label = token.flow.node_label(token)
            node = token.flow.graph.nodes[token.node]
            if node.kind is NodeKind.DECIDE and token.body is None:
                branches = self.decision_branches(token)
                if len(branches) > 1:
                    moves.extend(Move(ChoiceKind.DECISION_BRANCH, token.id, label, b) for b in branches)
                    continue
            moves.append(Move(ChoiceKind.TOKEN_ORDER, token.id, label))
        return moves

    def apply(self, move: Move) -> list[str]:
        """Advance the one token the move names; returns the trace lines the move wrote."""
        mark = self.ctx.trace.mark()
        token = next((t for t in self.live_tokens() if t.id == move.token), None)
        if token is None:
            raise RunError(f"no token {move.token} to move", move.node)
        self.moves_taken.append(move)
        self._live = None
        try:
            self.ctx.charge_step()
            flow = token.flow
            flow.round += 1
            outer = self.mover_token
            self.mover_token = token
            self.mover = token.id
            self.branch_wanted = move.branch
            try:
                self.advance(token)
            finally:
                self.mover_token = outer
                self.mover = 0
                self.branch_wanted = None
                self._live = None
            if self.root.finished:
                self.status = "completed"
        except RunError as err:
            self.status = "failed"
            self.error = err
            raise
        return self.ctx.trace.since(mark)

    def token(self, token_id: int) -> Token:
        """The token a move names."""
        for t in self.live_tokens():
            if t.id == token_id:
                return t
        raise RunError(f"no token {token_id}")

    def can_act(self, token: Token) -> bool:
        """Whether advancing the token would do something (a readiness probe: it changes nothing)."""
        flow = token.flow
        node = flow.graph.nodes[token.node]
        if token.body is not None:
            return token.wait is None or token.wait.ready()
        incoming = flow.graph.incoming(node.index)
        if node.kind is NodeKind.JOIN or (len(incoming) > 1 and node.kind not in (NodeKind.MERGE, NodeKind.DONE)
                                          and token.via is not None):
            arrived = {t.via for t in flow.tokens if t.node == node.index and t.arrived_round <= flow.round}
            return {e.source for e in incoming} <= arrived
        accept = self._flow_accept(node)
        if accept is None:
            return True
        trigger = accept.trigger
        if trigger.kind is s.TriggerKind.AFTER:
            return token.wake is None or self.ctx.clock.now >= token.wake
        if trigger.kind is s.TriggerKind.WHEN:
            assert trigger.expression is not None
            was = self.ctx.trace.enabled
            self.ctx.trace.enabled = False
            try:
                return self.evaluator.eval(trigger.expression, flow.frame, 0) is True
            except RunError:
                return True  # taking the move raises the error, which is reported on its schedule
            finally:
                self.ctx.trace.enabled = was
        return self._available(trigger, node.name, flow.frame)

    def _flow_ready(self, flow: Flow) -> bool:
        return any(self.can_act(t) for t in self.all_tokens(flow))

    def _bus_nonempty(self) -> bool:
        return bool(self.ctx.bus)

    def let_time_pass(self) -> bool:
        """With no move enabled, the clock moves to the earliest wait's end; False when none waits."""
        wakes = [t.wake for t in self.all_tokens(self.root) if t.wake is not None and t.wake > self.ctx.clock.now]
        if not wakes:
            return False
        self.ctx.clock.advance_to(min(wakes))
        return True

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        """The run as it stands between two moves, to restore (repeatably) until released."""
        from engines.runtime.snapshot import Snapshot

        return Snapshot(self, allow_replay)

    def reset(self) -> None:
        """Back to the state before the first move (a fresh context over the same program)."""
        from engines.runtime.context import Context

        trace_on = self.ctx.trace.enabled
        ctx = Context(self.ctx.program, self.ctx.scheduler, self.ctx.max_steps)
        Run.__init__(self, ctx, self.element, self.performer, self.fine)
        ctx.trace.enabled = trace_on

    def stuck(self) -> str | None:
        """Why a run with tokens left and no enabled move cannot go on (a deadlock), or None."""
        if self.finished or self.enabled_moves():
            return None
        waiters = [t for t in self.all_tokens(self.root) if t.wake is not None]
        if waiters:
            return None
        tokens = sorted(self.all_tokens(self.root), key=lambda t: t.id)
        return "deadlock: " + ", ".join(f"token {t.id}@{t.flow.node_label(t)}" for t in tokens) + " wait"

    def _stalled(self) -> None:
        """A round that moved nothing: let the clock move, or report who waits on what."""
        waiters = [t for t in self.all_tokens(self.root) if t.wake is not None]
        if waiters:
            self.ctx.clock.advance_to(min(t.wake for t in waiters if t.wake is not None))
            return
        if any(t.waiting_accept or t.body is not None for t in self.all_tokens(self.root)):
            raise AcceptDeadlock(f"accept deadlock in action {self.element.name}: "
                                 + ", ".join(f"token {t.id}@{t.flow.node_label(t)}" for t in
                                             sorted(self.all_tokens(self.root), key=lambda t: t.id))
                                 + " wait for messages nothing sends")
        raise ActionDeadlock(f"action deadlock in {self.element.name}: no token can move")

    def tokens(self) -> list[TokenView]:
        views = [TokenView(t.id, t.flow.node_label(t), t.flow.label,
                           "message" if t.waiting_accept else ("clock" if t.wake is not None else None))
                 for t in self.all_tokens(self.root)]
        views += [TokenView(i, label, path[-1] if path else "", None) for i, (label, path) in self.displayed.items()]
        return sorted(views, key=lambda v: v.id)

    def outputs(self) -> dict[str, str]:
        """Every feature of the action, nested nodes' by their path, spelled as the corpus spells them."""
        out: dict[str, str] = {}
        self._collect(self.root.frame, "", out)
        return dict(sorted(out.items()))

    def _collect(self, frame: Frame, prefix: str, out: dict[str, str]) -> None:
        for name, value in frame.values.items():
            out[prefix + name] = spell(value)
        for name, pin in frame.pins.items():
            self._collect(pin, f"{prefix}{name}.", out)

    # ------------------------------------------------------------ rounds

    def all_tokens(self, flow: Flow) -> list[Token]:
        """The tokens that stand at a node of `flow` or of a subflow one of them entered."""
        out: list[Token] = []
        for t in flow.tokens:
            if t.inside is not None:
                out.extend(self.all_tokens(t.inside))
            else:
                out.append(t)
        return out

    def live_tokens(self) -> list[Token]:
        """all_tokens of the root, kept between moves (a move or a restore forgets it)."""
        cached = self._live
        if cached is None:
            cached = self._live = self.all_tokens(self.root)
        return cached

    def step_flow(self, flow: Flow) -> bool:
        """One round of `flow` (and the subflows its tokens entered); prints its step line."""
        flow.step_no += 1
        flow.round += 1
        self.ctx.charge_step()
        tokens = self.all_tokens(flow)
        moves = [Move(ChoiceKind.TOKEN_ORDER, t.id, t.flow.node_label(t)) for t in tokens]
        by_id = {t.id: t for t in tokens}
        labels = {t.id: t.flow.node_label(t) for t in tokens}
        order = self.ctx.scheduler.order(moves)
        outer_writes, outer_mover = self.writes, self.mover
        self.writes = [] if flow.kind is not FlowKind.BLOCK or outer_writes is None else outer_writes
        local_writes = self.writes
        acted: list[int] = []
        progressed = False
        try:
            for move in order:
                token = by_id[move.token]
                if token.flow.tokens.count(token) == 0:
                    continue  # consumed by a join this round
                outer_token = self.mover_token
                if flow.kind is FlowKind.ROOT:
                    self.mover_token = token
                if outer_mover == 0 or flow.kind in (FlowKind.ROOT,):
                    self.mover = token.id
                did_act, did_progress = self.advance(token)
                self.mover_token = outer_token
                if did_act:
                    acted.append(token.id)
                progressed = progressed or did_progress
        finally:
            self.mover = outer_mover
            self.writes = outer_writes
        if flow.kind is not FlowKind.BLOCK or outer_writes is None:
            self._write_conflicts(flow.step_no, local_writes)
        if len(acted) >= 2:
            listed = ", ".join(f"{i}@{labels[i]}" for i in sorted(acted))
            self.ctx.trace.flush_left(
                f"choice step {flow.step_no}: tokens {listed} (unordered; took {acted[0]}@{labels[acted[0]]} first)")
        if flow.kind in (FlowKind.ROOT, FlowKind.PERFORMED):
            self.ctx.trace.flush_left(f"step {flow.step_no}: {self._positions(flow)}")
        return progressed

    def _positions(self, flow: Flow) -> str:
        entries = [(t.id, t.flow.node_label(t)) for t in self.all_tokens(flow)]
        if flow.kind is FlowKind.ROOT:
            entries += [(i, label) for i, (label, _) in self.displayed.items()]
        if not entries:
            return "no active tokens"
        return ", ".join(f"token {i}@{label}" for i, label in sorted(entries))

    def _write_conflicts(self, step_no: int, writes: list[_Write]) -> None:
        by_feature: dict[str, list[_Write]] = {}
        for w in writes:
            by_feature.setdefault(w.feature, []).append(w)
        for feature, ws in by_feature.items():
            tokens = {w.token for w in ws}
            if len(tokens) < 2:
                continue
            last_by_token: dict[int, _Write] = {}
            for w in ws:
                last_by_token[w.token] = w
            stood = max(ws, key=lambda w: w.order)
            listed = ", ".join(f"{feature} := {spell(last_by_token[t].value)} by token {t}" for t in sorted(tokens))
            self.ctx.trace.flush_left(
                f"choice step {step_no}: writes {listed} (unordered; {feature} := {spell(stood.value)} "
                f"by token {stood.token} stood)")

    # ------------------------------------------------------------ one token, one node

    def advance(self, token: Token) -> tuple[bool, bool]:
        """Move one token one node; (acted, made progress)."""
        outer = self.current_flow
        self.current_flow = token.flow
        try:
            return self._advance(token)
        finally:
            self.current_flow = outer

    def _advance(self, token: Token) -> tuple[bool, bool]:
        flow = token.flow
        graph = flow.graph
        node = graph.nodes[token.node]
        if token.body is not None:
            return True, self._resume(token, node)
        incoming = graph.incoming(node.index)
        if node.kind is NodeKind.JOIN or (len(incoming) > 1 and node.kind not in (NodeKind.MERGE, NodeKind.DONE)
                                          and token.via is not None):
            return self._join(token, node)
        if node.kind in (NodeKind.START, NodeKind.MERGE):
            self._follow(token, node)
            return True, True
        if node.kind is NodeKind.DONE:
            self._consume(token)
            return True, True
        if node.kind is NodeKind.FORK:
            self._consume(token)
            for edge in graph.outgoing(node.index):
                self._spawn(flow, edge.target, node.index)
            return True, True
        if node.kind is NodeKind.DECIDE:
            self._decide(token, node)
            return True, True
        if node.multiplicity > 1 and token.group is None and token.repeats is None and not self.fine \
                and node.body is not None and node.body.flow is not None:
            # A stepping run performs a node with multiplicity whose body is a flow of its own once
            # after another (one of the orders a fine run explores among the others).
            token.repeats = node.multiplicity - 1
            return self._perform(token, node)
        if node.multiplicity > 1 and token.group is None and token.repeats is None:
            group = [token]
            token.group = group
            for _ in range(node.multiplicity - 1):
                twin = Token(flow.new_token_id(), node.index, flow, arrived_round=flow.round, group=group)
                group.append(twin)
                flow.tokens.append(twin)
            return False, True
        return self._perform(token, node)

    def _perform(self, token: Token, node: Node) -> tuple[bool, bool]:
        accept = self._flow_accept(node)
        if accept is not None:
            return self._accept_node(token, node, accept)
        body = node.body
        if body is not None and body.flow is not None and body.performs is None:
            flow_graph = self.ctx.program.statement_flow(node) if self.fine and body.terminate else body.flow
            self._enter(token, node, flow_graph)
            return True, True
        if isinstance(node.decl, s.Usage) and node.decl.kind == "calc":
            self._calc_usage(node.decl, token.flow.frame)
            self._completed(token, node)
            return True, True
        if body is not None and body.performs is not None and body.statements and body.flow is None \
                and body.performs.base_kind == "action":
            self._enter_performed(token, node, body.performs, self.ctx.program.merged_flow(node))
            return True, True
        if self.fine and node.kind is NodeKind.ACTION and body is not None and _splits(body):
            if body.performs is not None and not body.statements and body.performs.base_kind == "action":
                self._enter_performed(token, node, body.performs)
                return True, True
            self._enter(token, node, self.ctx.program.statement_flow(node))
            if token.inside is not None:
                token.inside.implicit = True
            return True, True
        if node.decl is IMPLICIT_TERMINATE:
            # The implicit terminate of a terminate action usage: the usage's own performance ends here.
            token.flow.tokens.clear()
            if token.flow.parent_token is not None:
                self._leave(token.flow)
            return True, True
        if self.fine and node.kind is NodeKind.STATEMENT and isinstance(node.decl, s.If):
            self._fine_if(token, node, node.decl)
            return True, True
        if body is not None and not body.attributes and len(body.statements) == 1 \
                and isinstance(body.statements[0], s.Assign) and body.performs is None:
            # One assignment and nothing else: no body run to set up (the common leaf, and a hot path).
            frame = self._node_frame(token.flow, node) if node.kind is NodeKind.ACTION else token.flow.frame
            stmt = body.statements[0]
            self.ctx.trace.at(token.flow.depth, f"stmt assign {stmt.target}")
            value = self.evaluator.eval(stmt.value, frame, token.flow.depth + 1)
            self._assign(stmt.target, value, frame, token.flow.depth + 1)
            self._completed(token, node)
            return True, True
        run = self._node_body(token, node)
        try:
            wait = next(run)
        except StopIteration:
            self._completed(token, node)
            return True, True
        except _Terminated:
            self._terminated(token, node)
            return True, True
        token.body = run
        token.resumed = not self.fine
        token.wait = wait
        return True, False

    def _resume(self, token: Token, node: Node) -> bool:
        assert token.body is not None
        try:
            token.wait = next(token.body)
        except StopIteration:
            token.wait = None
            token.body = None
            self._completed(token, node)
            return True
        except _Terminated:
            token.wait = None
            token.body = None
            self._terminated(token, node)
            return True
        return False

    def _terminated(self, token: Token, node: Node) -> None:
        """A `terminate;` standing as a node of a flow ends that flow; in a node's body, the node."""
        if node.kind is NodeKind.STATEMENT and token.flow.kind is FlowKind.BLOCK:
            flow = token.flow
            flow.tokens.clear()
            return
        if node.kind is NodeKind.STATEMENT and token.flow.kind is not FlowKind.ROOT:
            flow = token.flow
            flow.tokens.clear()
            if flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
                self._leave(flow)
            return
        self._completed(token, node)

    def _completed(self, token: Token, node: Node) -> None:
        self._bind_outputs(token.flow, node)
        pin = token.flow.frame.pins.get(node.name)
        if pin is not None and not pin.values and not pin.pins:
            del token.flow.frame.pins[node.name]  # a performance that held nothing leaves no pins
        elif pin is not None and pin.calc is None and not any(isinstance(v, Deferred) for v in pin.values.values()):
            _seal(pin)
        if node.body is not None and node.body.terminate:
            self._terminate_all(token.flow)
            return
        if token.repeats:
            token.repeats -= 1
            return  # the next performance of the node starts at the token's next move
        if token.group is not None:
            # The performances of a node with multiplicity: the last one to end goes on.
            token.group.remove(token)
            if token.group:
                self._consume(token)
                return
        self._follow(token, node)

    def _terminate_all(self, flow: Flow) -> None:
        """A terminate action usage ends the performance it is a step of: through the blocks it
        stands in, up to the action node (or the action) whose performance that is."""
        while flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
            parent = flow.parent_token
            if parent.flow.graph.nodes[parent.node].kind is not NodeKind.STATEMENT:
                break
            flow.tokens.clear()
            parent.inside = None
            flow = parent.flow
        flow.tokens.clear()
        if flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
            self._leave(flow)

    def _bind_outputs(self, flow: Flow, node: Node) -> None:
        """`bind node.pin = feature;`: what the node left in its pin reaches the bound feature."""
        for bind in flow.graph.binds:
            for near, far in ((bind.left, bind.right), (bind.right, bind.left)):
                head, _, pin = near.partition(".")
                if head != node.name or not pin:
                    continue
                frame = flow.frame.pins.get(node.name)
                holder = flow.frame.holder_of(far)
                if frame is not None and holder is not None and pin in frame.values:
                    if frame.values[pin] is UNSET:
                        raise RunError(f"assignment to {far}: multiplicity violation: 0 value(s) bound to a "
                                       "feature with multiplicity lower bound 1", node.name)
                    self._write(holder, far, frame.values[pin])

    def _consume(self, token: Token) -> None:
        flow = token.flow
        if token in flow.tokens:
            flow.tokens.remove(token)
        if flow.finished and flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
            self._leave(flow)

    def _spawn(self, flow: Flow, target: int, via: int | None) -> Token:
        token = Token(flow.new_token_id(), target, flow, arrived_round=flow.round, via=via)
        flow.tokens.append(token)
        return token

    def _follow(self, token: Token, node: Node) -> None:
        """Take every enabled succession out of `node`: one keeps the token, several fork it."""
        flow = token.flow
        edges = flow.graph.outgoing(node.index)
        enabled = [e for e in edges if e.guard is None or self._guard(e.guard, flow)]
        if not enabled:
            self._consume(token)
            return
        if len(enabled) == 1:
            self._move(token, enabled[0].target, node.index)
            if token.resumed:
                # A body that waited and went on within this move hands its token straight on:
                # the node after it is performed in the same step, as the reference executor does.
                token.resumed = False
                target = flow.graph.nodes[token.node]
                if target.kind in (NodeKind.ACTION, NodeKind.STATEMENT) and len(flow.graph.incoming(target.index)) <= 1:
                    self._perform(token, target)
            return
        self._consume(token)
        for edge in enabled:
            self._spawn(flow, edge.target, node.index)

    def _move(self, token: Token, target: int, via: int) -> None:
        token.node = target
        token.via = via
        token.arrived_round = token.flow.round
        token.group = None
        token.repeats = None

    def _guard(self, guard: s.Expr, flow: Flow) -> bool:
        value = self.evaluator.eval(guard, flow.frame, flow.depth)
        if not isinstance(value, bool):
            raise GuardNotBoolean(f"guard must evaluate to boolean, got {type_name(value)} {spell(value)}")
        return value

    def _decide(self, token: Token, node: Node) -> None:
        """Take the branch the move names (a fine run); else, of the branches whose guards hold, the one
        the scheduler picks (the first under reverse and declared); else `else`."""
        flow = token.flow
        edges = flow.graph.outgoing(node.index)
        wanted = self.branch_wanted
        holding = []
        for edge in edges:
            if edge.is_else:
                continue
            if wanted is not None and flow.graph.nodes[edge.target].name != wanted:
                continue
            if edge.guard is None or self._guard(edge.guard, flow):
                holding.append(edge)
                if wanted is not None or self.fine:
                    break
        chosen = None
        if len(holding) > 1:
            names = [flow.graph.nodes[e.target].name for e in holding]
            chosen = holding[self.ctx.scheduler.pick(ChoiceKind.DECISION_BRANCH, names)]
            self.ctx.trace.flush_left(
                f"choice step {self.root.step_no}: decision {node.name} branches {', '.join(names)} "
                f"(overlapping guards; took {flow.graph.nodes[chosen.target].name})")
        elif holding:
            chosen = holding[0]
        if chosen is None:
            chosen = next((e for e in edges if e.is_else), None)
        if chosen is None:
            raise RunError(f"no branch of decision {node.name} holds and it has no else", node.name)
        self._move(token, chosen.target, node.index)

    def decision_branches(self, token: Token) -> list[str]:
        """The successors a decision token may take now (guards read quietly); one unless they overlap."""
        flow = token.flow
        node = flow.graph.nodes[token.node]
        was = self.ctx.trace.enabled
        self.ctx.trace.enabled = False
        try:
            holding = []
            for edge in flow.graph.outgoing(node.index):
                if edge.is_else:
                    continue
                try:
                    if edge.guard is None or self._guard(edge.guard, flow):
                        holding.append(flow.graph.nodes[edge.target].name)
                except RunError:
                    return []
            return holding
        finally:
            self.ctx.trace.enabled = was

    def _join(self, token: Token, node: Node) -> tuple[bool, bool]:
        flow = token.flow
        waiting = [t for t in flow.tokens if t.node == node.index and t.arrived_round < flow.round]
        arrived = {t.via for t in waiting}
        needed = {e.source for e in flow.graph.incoming(node.index)}
        if not needed <= arrived:
            return False, False
        for t in [t for t in flow.tokens if t.node == node.index]:
            flow.tokens.remove(t)
        joined = Token(flow.new_token_id(), node.index, flow, arrived_round=flow.round)
        flow.tokens.append(joined)
        if node.kind is NodeKind.JOIN:
            self._follow(joined, node)
            return True, True
        return self._perform(joined, node)

    # ------------------------------------------------------------ entering a node's subflow

    def _enter(self, token: Token, node: Node, graph: ActionGraph, frame: Frame | None = None) -> None:
        """The token goes into the node's subflow; entering is the start shot (its features' values)."""
        assert node.body is not None
        self.ctx.trace.flush_left(f"enter action node: {node.name}")
        if frame is None:
            frame = self._node_frame(token.flow, node)
            self.init_attributes(node.body.attributes, frame, token.flow.depth)
        child = Flow(self, graph, frame, FlowKind.ENTERED, token.flow.depth, node.name, token)
        token.inside = child
        child.round = token.flow.round
        child.start(first_id=token.id)
        for t in child.tokens:
            t.arrived_round = child.round
        if child.finished:
            self._leave(child)

    def _fine_if(self, token: Token, node: Node, stmt: s.If) -> None:
        """A fine run reads an `if`'s guard as one move; the branch's statements are moves after it."""
        flow = token.flow
        cond = self._condition("if", stmt.condition, flow.frame, flow.depth)
        block = stmt.then if cond else stmt.otherwise
        if block is None or not block.members:
            self._completed(token, node)
            return
        assert flow.frame.scope is not None
        graph = self.ctx.program.sequence_flow(flow.frame.scope, block, node.name)
        frame = Frame(flow.frame.label, flow.frame.scope, flow.frame, block=True)
        self._enter(token, node, graph, frame)

    def _enter_performed(self, token: Token, node: Node, action: Element,
                         graph: ActionGraph | None = None) -> None:
        """The performed action's flow entered as a subflow of the node (a fine run's, or a usage
        that adds statements of its own to the action it performs)."""
        assert node.body is not None
        inner = self._callee_frame(action, token.flow.frame, node.body.bindings, token.flow.frame,
                                   node.name, token.flow.depth)
        self._enter(token, node, graph or self.ctx.program.graph(action), inner)
        child = token.inside
        if child is not None:
            child.returns = (action, token.flow.frame)

    def _leave(self, child: Flow) -> None:
        token = child.parent_token
        assert token is not None
        self.ctx.trace.flush_left(f"leave action node: {token.flow.graph.nodes[token.node].name}")
        if child.returns is not None:
            action, caller = child.returns
            self._return_outputs(self.ctx.program.graph(action), child.frame, caller)
        token.inside = None
        self._completed(token, token.flow.graph.nodes[token.node])

    # ------------------------------------------------------------ accept nodes

    @staticmethod
    def _flow_accept(node: Node) -> s.Accept | None:
        if node.kind is NodeKind.STATEMENT and isinstance(node.decl, s.Accept):
            return node.decl
        if node.kind is NodeKind.ACTION and isinstance(node.decl, s.Usage) \
                and isinstance(node.decl.action_body, s.Accept) and not node.decl.members:
            return node.decl.action_body
        return None

    def _accept_node(self, token: Token, node: Node, accept: s.Accept) -> tuple[bool, bool]:
        flow = token.flow
        trigger = accept.trigger
        if trigger.kind is s.TriggerKind.AFTER:
            if token.wake is None:
                assert trigger.expression is not None
                duration = self.evaluator.eval(trigger.expression, flow.frame, flow.depth)
                token.wake = self.ctx.clock.now + _seconds(duration)
                if not self.fine and len(self.all_tokens(self.root)) <= 1:
                    self.ctx.clock.advance_to(token.wake)  # nothing else can move: time does
                    if flow.kind is FlowKind.PERFORMED and self.mover_token is not None:
                        self.mover_token.resumed = True
            if self.ctx.clock.now >= token.wake:
                token.wake = None
                self._follow(token, node)
                return True, True
            return False, False
        if trigger.kind is s.TriggerKind.WHEN:
            assert trigger.expression is not None
            holds = self.evaluator.eval(trigger.expression, flow.frame, flow.depth)
            if holds is True:
                self._follow(token, node)
                return True, True
            token.waiting_accept = True
            return False, False
        message = self._take(trigger, node.name, flow.frame)
        if message is None:
            token.waiting_accept = True
            return False, False
        token.waiting_accept = False
        frame = self._node_frame(flow, node)
        if trigger.payload:
            frame.values[trigger.payload] = message.payload
        self._follow(token, node)
        return True, True

    def _available(self, trigger: s.Trigger, receiver: str | None, frame: Frame) -> bool:
        """Whether a message the trigger would take is on the bus (nothing is taken)."""
        return any((m.to is None or receiver is None or m.to == receiver) and self._matches(trigger, m, frame)
                   for m in self.ctx.bus)

    def _take(self, trigger: s.Trigger, receiver: str | None, frame: Frame) -> Message | None:
        """The oldest message on the bus the trigger matches, taken off it; None when there is none."""
        for i, message in enumerate(self.ctx.bus):
            if message.to is not None and receiver is not None and message.to != receiver:
                continue
            if self._matches(trigger, message, frame):
                del self.ctx.bus[i]
                return message
        return None

    def _matches(self, trigger: s.Trigger, message: Message, frame: Frame) -> bool:
        payload = message.payload
        if trigger.subsets is not None:
            return isinstance(payload, ObjectRef) and self.ctx.objects[payload.id].name == trigger.subsets
        expected = trigger.signal
        if expected is None:
            return True
        short = expected.rsplit("::", 1)[-1]
        if short in ("Integer", "Natural", "Positive"):
            return isinstance(payload, int) and not isinstance(payload, bool)
        if short in ("Real", "Rational", "Number"):
            return isinstance(payload, (int, Fraction)) and not isinstance(payload, bool)
        if short == "String":
            return isinstance(payload, str)
        if short == "Boolean":
            return isinstance(payload, bool)
        if isinstance(payload, Signal):
            return payload.type_name.rsplit("::", 1)[-1] == short
        if isinstance(payload, ObjectRef):
            obj = self.ctx.objects.get(payload.id)
            return obj is not None and obj.type_name.rsplit("::", 1)[-1] == short
        return False

    # ------------------------------------------------------------ node bodies

    def _node_frame(self, flow: Flow, node: Node) -> Frame:
        scope = node.body.scope if node.body is not None else flow.frame.scope
        frame = Frame(node.name, scope, flow.frame)
        flow.frame.pins[node.name] = frame
        return frame

    def init_attributes(self, attributes: tuple[Attribute, ...], frame: Frame, depth: int) -> None:
        for attr in attributes:
            decl = attr.decl
            if isinstance(decl, s.Usage):
                if decl.short_name:
                    frame.aliases[decl.short_name] = attr.name
                for redefined in decl.redefines:
                    if redefined.rsplit("::", 1)[-1] != attr.name:
                        frame.aliases[redefined.rsplit("::", 1)[-1]] = attr.name
            if attr.is_item:
                continue
            if attr.value is None:
                frame.values[attr.name] = UNSET
            else:
                frame.values[attr.name] = coerce_to(attr.type_text, self.evaluator.eval(attr.value, frame, depth))
            if attr.type_text:
                frame.types[attr.name] = attr.type_text

    def _node_body(self, token: Token, node: Node) -> BodyRun:
        flow = token.flow
        body = node.body
        if body is None or node.kind is NodeKind.START:
            return
        frame = self._node_frame(flow, node) if node.kind is NodeKind.ACTION else flow.frame
        depth = flow.depth
        if node.kind is NodeKind.ACTION:
            self.init_attributes(body.attributes, frame, depth)
            if body.performs is not None and body.performs.base_kind in ("verification", "analysis", "case"):
                yield from self._perform_case(body.performs, node, flow, frame)
                return
            if body.performs is not None and not body.statements and body.flow is None:
                yield from self._perform_action(body.performs, frame, body.bindings, depth, flow.frame, node.name)
                return
        yield from self.statements(body.statements, frame, depth, f"action node {node.name}")

    def _perform_case(self, case: Element, node: Node, flow: Flow, frame: Frame) -> BodyRun:
        """A verification or analysis case performed as a step: its subject bound, its body's steps
        run as a flow of their own, its result (`return`) kept as the node's pin."""
        assert node.body is not None
        trace = self.ctx.trace
        depth = flow.depth
        name = f"{flow.frame.scope.qualified_name}::{node.name}" if flow.frame.scope is not None else node.name
        trace.flush_left(f"enter verification {name}")
        inner = Frame(node.name, case, frame)
        flow.frame.pin_holder().pins[node.name] = inner
        for pname, expr in node.body.bindings:
            value = self.evaluator.eval(expr, frame, depth + 1)
            inner.values[pname] = value
            trace.at(depth + 1, f"bind {pname} = {spell(value)} [default]")
        trace.at(depth + 1, "stmt action body")
        decl = case.decl
        members = decl.members if isinstance(decl, (s.Definition, s.Usage)) else ()
        returns = [m for m in members if isinstance(m, s.Usage) and m.kind == "return"]
        steps = tuple(m for m in members if not (isinstance(m, s.Usage) and m.kind in ("return", "subject")))
        graph = self.ctx.program.block_graph(case, s.Block(steps, decl.span if decl else s.NO_SPAN), name)
        trace.flush_left(f"enter action node: verification {name}")
        case_flow = Flow(self, graph, inner, FlowKind.BLOCK, depth + 2, name)
        case_flow.start()
        yield from self._drive(case_flow)
        trace.flush_left(f"leave action node: verification {name}")
        result: Value = UNSET
        for r in returns:
            trace.at(depth + 1, "stmt return")
            result = self.evaluator.eval(r.value, inner, depth + 2) if r.value is not None else UNSET
            inner.values[r.name or "result"] = result
        trace.flush_left(f"exit verification {name} -> {spell(result)}")

    def _perform_action(self, action: Element, frame: Frame, bindings: tuple[tuple[str, s.Expr], ...],
                        depth: int, caller: Frame, name: str) -> BodyRun:
        """An action performed in an executor of its own: its steps are written with its step lines."""
        if action.base_kind != "action":
            return
        graph = self.ctx.program.graph(action)
        inner = self._callee_frame(action, frame, bindings, caller, name, depth)
        performed = Flow(self, graph, inner, FlowKind.PERFORMED, depth, action.name)
        performed.start()
        yield from self._drive(performed)
        self._return_outputs(graph, inner, caller)

    def _callee_frame(self, action: Element, frame: Frame, bindings: tuple[tuple[str, s.Expr], ...],
                      caller: Frame, name: str, depth: int) -> Frame:
        """The features a performance of `action` starts with: bound inputs, then its own values."""
        graph = self.ctx.program.graph(action)
        inner = Frame(action.name, action, None)
        for pname, expr in bindings:
            inner.values[pname] = self.evaluator.eval(expr, frame, depth)
        for attr in graph.attributes:
            if attr.name in inner.values:
                continue
            if attr.direction in ("in", "inout", "out") and attr.value is None:
                holder = caller.holder_of(attr.name)
                inner.values[attr.name] = holder.values[attr.name] if holder is not None else UNSET
                continue
            if attr.direction == "in" and attr.value_kind is not s.FeatureValueKind.INITIAL:
                inner.values[attr.name] = Deferred(attr.value)  # evaluated when first read
                continue
            if attr.is_item:
                continue
            inner.values[attr.name] = UNSET if attr.value is None else coerce_to(
                attr.type_text, self.evaluator.eval(attr.value, inner, depth))
        caller.pin_holder().pins[name] = inner
        return inner

    def _return_outputs(self, graph: ActionGraph, inner: Frame, caller: Frame) -> None:
        """A performed action's outputs return to the same-named features around the node."""
        for attr in graph.attributes:
            if attr.direction in ("out", "inout"):
                holder = caller.holder_of(attr.name)
                if holder is not None and attr.name in inner.values:
                    self._write(holder, attr.name, inner.values[attr.name])

    def _drive(self, flow: Flow) -> BodyRun:
        """Run a nested flow to its end within the current move, pausing while it waits.

        A retry that moves nothing writes nothing and spends no step of the flow's counter."""
        waiting = False
        while not flow.finished:
            mark = self.ctx.trace.mark()
            step_no = flow.step_no
            progressed = self._step_within(flow)
            if waiting and not progressed:
                del self.ctx.trace.lines[mark:]
                flow.step_no = step_no
                yield Wait("nested flow waits", lambda: self._flow_ready(flow))
                continue
            if progressed:
                waiting = False
                self._hide(flow)
            if flow.finished:
                break
            if not progressed:
                if any(t.waiting_accept or t.body is not None for t in self.all_tokens(flow)):
                    waiting = True
                    self._show(flow)
                    yield Wait("nested flow waits", lambda: self._flow_ready(flow))
                    continue
                waiters = [t.wake for t in self.all_tokens(flow) if t.wake is not None]
                if waiters:
                    self.ctx.clock.advance_to(min(w for w in waiters if w is not None))
                    if flow.kind is FlowKind.PERFORMED and self.mover_token is not None:
                        self.mover_token.resumed = True
                    continue
                raise ActionDeadlock(f"action deadlock in {flow.label}: no token can move")
        self._hide(flow)

    def _step_within(self, flow: Flow) -> bool:
        outer = self.current_flow
        self.current_flow = flow
        try:
            return self.step_flow(flow)
        finally:
            self.current_flow = outer

    def _show(self, flow: Flow) -> None:
        if flow.kind is FlowKind.BLOCK:
            for t in self.all_tokens(flow):
                self.displayed[t.id] = (t.flow.node_label(t), [flow.label])

    def _hide(self, flow: Flow) -> None:
        for t in list(self.displayed):
            if self.displayed[t][1] == [flow.label]:
                del self.displayed[t]

    # ------------------------------------------------------------ statements

    def statements(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str) -> BodyRun:
        for stmt in stmts:
            yield from self.statement(stmt, frame, depth, owner)

    def statement(self, stmt: s.Member, frame: Frame, depth: int, owner: str) -> BodyRun:
        trace = self.ctx.trace
        if isinstance(stmt, s.Assign):
            trace.at(depth, f"stmt assign {stmt.target}")
            value = self.evaluator.eval(stmt.value, frame, depth + 1)
            self._assign(stmt.target, value, frame, depth + 1)
            return
        if isinstance(stmt, s.If):
            trace.at(depth, "stmt if")
            cond = self._condition("if", stmt.condition, frame, depth + 1)
            block = stmt.then if cond else stmt.otherwise
            if block is not None:
                yield from self.block(block, frame, depth + 1, "branch body", owner)
            return
        if isinstance(stmt, s.While):
            trace.at(depth, "stmt while")
            iteration = 0
            while True:
                iteration += 1
                self.ctx.charge_step()
                trace.at(depth + 1, f"iteration {iteration}")
                if not self._condition("while", stmt.condition, frame, depth + 2):
                    break
                yield from self.block(stmt.body, frame, depth + 2, "loop body", owner)
            return
        if isinstance(stmt, s.For):
            trace.at(depth, f"stmt for {stmt.variable}")
            collection = self.evaluator.eval(stmt.collection, frame, depth + 1)
            if not isinstance(collection, Sequence):
                raise EvaluationError(f"'for' iterates a collection, and {with_article(type_name(collection))} is not one")
            for iteration, element in enumerate(collection.elements, start=1):
                self.ctx.charge_step()
                trace.at(depth + 1, f"iteration {iteration}")
                inner = Frame(frame.label, frame.scope, frame, {stmt.variable: element}, block=True)
                yield from self.block(stmt.body, inner, depth + 2, "loop body", owner)
            return
        if isinstance(stmt, s.LoopUntil):
            trace.at(depth, "stmt loop until")
            iteration = 0
            while True:
                iteration += 1
                self.ctx.charge_step()
                trace.at(depth + 1, f"iteration {iteration}")
                yield from self.block(stmt.body, frame, depth + 2, "loop body", owner)
                if stmt.until is not None and self._condition("until", stmt.until, frame, depth + 2):
                    break
            return
        if isinstance(stmt, s.Send):
            trace.at(depth, "stmt send")
            payload = self.evaluator.eval(stmt.payload, frame, depth + 1)
            to = _target_text(stmt.to)
            self.ctx.bus.append(Message(payload, to, self.mover))
            return
        if isinstance(stmt, s.Accept):
            yield from self._accept_statement(stmt, frame)
            return
        if isinstance(stmt, s.Terminate):
            trace.at(depth, "stmt terminate")
            trace.flush_left(f"terminate {owner}: no token dropped")
            raise _Terminated()
        if isinstance(stmt, s.Usage) and stmt.kind == "calc":
            self._calc_usage(stmt, frame)
            return
        if isinstance(stmt, s.Usage) and stmt.kind == "action":
            yield from self._nested_node(stmt, frame, depth, owner)
            return
        if isinstance(stmt, s.Usage):
            return  # a feature declared among statements: held by the frame already
        if isinstance(stmt, s.ThenMember) and stmt.member is not None:
            yield from self.statement(stmt.member, frame, depth, owner)
            return

    def _condition(self, keyword: str, expr: s.Expr, frame: Frame, depth: int) -> bool:
        """A statement's condition, which must be a Boolean."""
        cond = self.evaluator.eval(expr, frame, depth)
        if not isinstance(cond, bool):
            raise EvaluationError(f"the condition of '{keyword}' must be Boolean, got {type_name(cond)}")
        return cond

    def _accept_statement(self, stmt: s.Accept, frame: Frame) -> BodyRun:
        trigger = stmt.trigger
        if trigger.kind is s.TriggerKind.AFTER:
            assert trigger.expression is not None
            duration = self.evaluator.eval(trigger.expression, frame, 0)
            self.ctx.clock.advance_to(self.ctx.clock.now + _seconds(duration))
            return
        while True:
            message = self._take(trigger, None, frame)
            if message is not None:
                if trigger.payload:
                    frame.values[trigger.payload] = message.payload
                return
            yield Wait("message", lambda: self._available(trigger, None, frame))

    def _calc_usage(self, stmt: s.Usage, frame: Frame) -> None:
        """A calc usage computes when its result is read, from its inputs' values then."""
        scope = frame.scope
        calc = lookup(self.ctx.program.model, scope, stmt.types[0]) if stmt.types and scope is not None else None
        if calc is None:
            return
        bindings = tuple((m.name, m.value) for m in stmt.members
                         if isinstance(m, s.Usage) and m.value is not None and m.name)
        pin = Frame(stmt.name or "", calc, None)
        pin.calc = (calc, bindings, frame)
        frame.pin_holder().pins[stmt.name or ""] = pin

    def _nested_node(self, usage: s.Usage, frame: Frame, depth: int, owner: str) -> BodyRun:
        trace = self.ctx.trace
        scope = frame.scope
        performs = lookup(self.ctx.program.model, scope, usage.types[0]) \
            if usage.types and scope is not None else None
        name = usage.name or (usage.types[0].rsplit("::", 1)[-1] if usage.types else "action")
        if performs is not None and not usage.has_body:
            if usage.performed and usage.name:
                trace.at(depth, "stmt perform")
            else:
                trace.at(depth, f"stmt node {name}")
            yield from self._perform_action(performs, frame, (), depth + 1, frame, name)
            return
        trace.at(depth, f"stmt node {name}")
        node_scope = scope.members.get(name, scope) if scope is not None else None
        inner = Frame(name, node_scope, frame)
        frame.pin_holder().pins[name] = inner
        bindings = [m for m in usage.members if isinstance(m, s.Usage) and m.direction == "in" and m.value is not None]
        rest = tuple(m for m in usage.members if not (isinstance(m, s.Usage) and m.kind in (
            "attribute", "feature", "item", "ref")))
        for m in usage.members:
            if isinstance(m, s.Usage) and m.kind in ("attribute", "feature") and m.name:
                inner.values[m.name] = self.evaluator.eval(m.value, inner, depth + 1) if m.value is not None else UNSET
        has_accept = any(isinstance(m, s.Accept) for m in rest)
        if bindings or has_accept:
            trace.at(depth + 1, "stmt action body")
            if has_accept:
                yield from self._entered_statements(rest, inner, depth + 2, name, f"action node {name}")
            else:
                yield from self.statements(rest, inner, depth + 2, f"action node {name}")
            return
        ends_owner = isinstance(usage.action_body, s.Terminate) and usage.action_body.target is None
        if states_a_flow(rest):
            yield from self._block_flow(rest, inner, depth + 1, f"action node {name}", name)
        else:
            with contextlib.suppress(_Terminated):  # `terminate;` in its own body ends this usage only
                yield from self.statements(rest, inner, depth + 1, f"action node {name}")
        if ends_owner:
            # A terminate action usage ends the performance it is a step of once it is done.
            raise _Terminated()

    def block(self, block: s.Block, frame: Frame, depth: int, role: str, owner: str) -> BodyRun:
        """A branch or loop body: inline, or entered as a node of its own when it states a flow or waits."""
        members = block.members
        label = f"{role} of {owner}"
        inner = Frame(frame.label, frame.scope, frame, block=True)
        if states_a_flow(members):
            yield from self._block_flow(members, inner, depth, label, label, block)
            return
        if _waits_or_chains(members):
            yield from self._entered_statements(members, inner, depth, label, label)
            return
        for m in members:
            if isinstance(m, s.Usage) and m.kind in ("attribute", "feature") and m.name:
                inner.values[m.name] = self.evaluator.eval(m.value, inner, depth) if m.value is not None else UNSET
        yield from self.statements(members, inner, depth, owner)

    def _entered_statements(self, members: tuple[s.Member, ...], frame: Frame, depth: int, label: str,
                            owner: str) -> BodyRun:
        """Statements run as a nested node with a token of its own, shown while they wait."""
        trace = self.ctx.trace
        trace.flush_left(f"enter action node: {label}")
        assert self.current_flow is not None
        token_id = self.current_flow.new_token_id()
        for stmt in members:
            run = self.statement(stmt, frame, depth, owner)
            while True:
                try:
                    next(run)
                except StopIteration:
                    break
                self.displayed[token_id] = (_statement_label(stmt), [label])
                yield Wait("nested body waits", lambda: self._bus_nonempty())
                self.displayed.pop(token_id, None)
        self.displayed.pop(token_id, None)
        trace.flush_left(f"leave action node: {label}")

    def _block_flow(self, members: tuple[s.Member, ...], frame: Frame, depth: int, label: str, name: str,
                    block: s.Block | None = None) -> BodyRun:
        scope = frame.scope
        assert scope is not None
        if block is None:
            block = s.Block(members, s.NO_SPAN)
        graph = self.ctx.program.block_graph(scope, block, name)
        self.ctx.trace.flush_left(f"enter action node: {label}")
        flow = Flow(self, graph, frame, FlowKind.BLOCK, depth, label)
        self.init_attributes(graph.attributes, frame, depth)
        flow.start()
        if not any(isinstance(m, s.FirstMember) and m.target is None for m in members):
            flow.step_no = 1  # a block with no initial node named starts as if from a start node
        yield from self._drive(flow)
        self.ctx.trace.flush_left(f"leave action node: {label}")

    # ------------------------------------------------------------ writes

    def _assign(self, target: str, value: Value, frame: Frame, depth: int) -> None:
        if "." in target:
            base_name, _, feature = target.rpartition(".")
            base = self._target_base(base_name, frame, depth)
            if isinstance(base, ObjectRef) and base.id in self.ctx.objects:
                self.ctx.objects[base.id].values[feature] = value
                self._record(f"{base_name}.{feature}", value)
                return
            if isinstance(base, Frame):
                self._write(base, feature, value)
                return
            raise EvaluationError(f"cannot assign to {target}: {base_name} is no object")
        target = frame.feature_name(target)
        holder = frame.holder_of(target)
        if holder is None:
            raise EvaluationError(f"assignment to {target}: no feature '{target}' in {frame.label}")
        self._write(holder, target, value)

    def _target_base(self, path: str, frame: Frame, depth: int) -> object:
        expr: s.Expr = s.Name(s.NO_SPAN, path.split(".")[0])
        for part in path.split(".")[1:]:
            expr = s.Chain(s.NO_SPAN, expr, part)
        return self.evaluator._chain_base(expr, frame, depth)

    def _write(self, holder: Frame, name: str, value: Value) -> None:
        type_text = holder.types.get(name, "")
        holder.values[name] = coerce_to(type_text, value) if type_text else value
        self._record(name if holder.parent is None else f"{name}", holder.values[name])

    def _record(self, feature: str, value: Value) -> None:
        if self.writes is not None and self.mover:
            self.writes.append(_Write(self.mover, feature, value, len(self.writes)))


@dataclass(frozen=True)
class TokenView:
    """Where one token stands, for `%tokens` and the step lines."""

    id: int
    node: str
    path: str
    waiting: str | None = None


def _waits_or_chains(members: tuple[s.Member, ...]) -> bool:
    """Whether a block runs as a node of its own: it waits on a message itself, or orders a block
    statement before the next with `then`."""
    previous: s.Member | None = None
    for m in members:
        if isinstance(m, s.Accept):
            return True
        if isinstance(m, s.ThenMember) and isinstance(previous, (s.If, s.While, s.For, s.LoopUntil)):
            return True
        previous = m.member if isinstance(m, s.ThenMember) and m.member is not None else m
    return False


def _statement_label(stmt: s.Member) -> str:
    from ir.lower import statement_label

    return statement_label(stmt)


def _seal(frame: Frame) -> None:
    frame.sealed = True
    for pin in frame.pins.values():
        if pin.calc is None and not any(isinstance(v, Deferred) for v in pin.values.values()):
            _seal(pin)


def _splits(body: Body) -> bool:
    """Whether a fine run performs a node's body as several moves: a start shot of its features
    before its statements, or statements no succession orders; one statement alone is one move."""
    if body.performs is not None and not body.statements:
        return True
    if body.terminate:
        return True
    count = len(body.statements)
    if count == 1 and not body.attributes:
        return not isinstance(body.statements[0], (s.Assign, s.Send))
    return count >= 1


def _target_text(e: s.Expr | None) -> str | None:
    if e is None:
        return None
    if isinstance(e, s.Name):
        return e.name
    if isinstance(e, s.Chain):
        base = _target_text(e.base)
        return f"{base}.{e.feature}" if base else e.feature
    return None


def _seconds(duration: Value) -> Fraction:
    if isinstance(duration, Quantity):
        duration = duration.magnitude
    if isinstance(duration, (int, Fraction)) and not isinstance(duration, bool):
        return Fraction(duration)
    if isinstance(duration, float):
        return Fraction(duration)
    raise EvaluationError(f"'accept after' needs a duration, got {type_name(duration)}")


__all__ = ["Flow", "FlowKind", "Run", "Token", "TokenView"]
