"""Token flow: one move is one token advancing one node (its body run to completion, its enabled
successions followed); a fixed policy steps every steppable token once per round."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from engines.errors import AcceptDeadlock, ActionDeadlock, EvaluationError, GuardNotBoolean, RunError
from engines.runtime.actions.connections import Connections
from engines.runtime.actions.control import Clauses
from engines.runtime.actions.footprints import Footprints
from engines.runtime.actions.moves import MoveProbes, awaited, token_move
from engines.runtime.actions.outputs import Outputs
from engines.runtime.actions.performances import Performances, pin_key
from engines.runtime.actions.statements import StatementRunner
from engines.runtime.actions.tokens import Flow, FlowKind, Terminated, Token, TokenView, Write
from engines.runtime.behavior import ChoiceKind, Move
from engines.runtime.bus import take
from engines.runtime.clock import wake_time
from engines.runtime.evaluate import Evaluator, Frame
from engines.runtime.values import UNSET, Deferred, spell, type_name, with_article
from engines.runtime.world import Context
from ir import syntax as s
from ir.assertions import behavior_assertions, usage_assertions
from ir.graphs import ActionGraph, Edge, Node, NodeKind
from ir.lower.flows import IMPLICIT_TERMINATE
from ir.model import Element

if TYPE_CHECKING:
    from engines.runtime.snapshot import Snapshot


class WaitsForTime(Exception):
    """A run that holds time (`Run.holds_time`) has nothing to do until the clock moves: its world moves it."""


class Run(MoveProbes, Outputs, Performances, StatementRunner, Clauses, Connections):
    """A stepping run of one action: the debugger's and the checker's unit of execution, and the
    behavior protocol (engines/runtime/behavior.py) for an action's performance."""

    # A run among other behaviors of its world (an instance's performed action) lets no time pass of
    # its own: where only a wait for time is left it stops (WaitsForTime), and the world moves the clock
    # where nothing else can move, to the earliest wake of any member.
    holds_time: bool = False

    def __init__(self, ctx: Context, action: Element, performer: str | None = None, fine: bool = False,
                 footprints: Footprints | None = None) -> None:
        self.ctx = ctx
        self.footprints = footprints or Footprints()
        self.performer = performer
        # Fine runs move one performance at a time: a node's direct statements, and the nodes of
        # the actions it performs, are moves of their own (explore and check range over them).
        self.fine = fine
        self.moves_taken: list[Move] = []
        self._token_moves: dict[tuple[int, str], Move] = {}
        self._first_scheduler = ctx.scheduler.fork()  # what a reset starts again from
        self.branch_wanted: str | None = None
        self.action = action.qualified_name
        self.element = action
        self.evaluator = Evaluator(ctx)
        self.status = "running"
        self.error: RunError | None = None
        # the assertions of steps found false where a performance of the step ended (`_judge_assertions`)
        self.broken_assertions: tuple[str, ...] = ()
        self._assertions: dict[tuple[int, int], tuple[tuple[tuple[str, s.Expr], ...], object]] = {}
        self.displayed: dict[int, tuple[str, list[str]]] = {}
        self.mover: int = 0
        self.writes: list[Write] | None = None
        self.current_flow: Flow | None = None
        self.mover_token: Token | None = None
        self.starting: tuple[Token, str] | None = None  # a token starting its node, and its pin's key (`_pin`)
        self.only_token: int | None = None  # a round that moves this token alone (a machine's do step, checked)
        self.waits_on_clock = False  # a checked machine's bodies: a time wait waits for the machine's clock
        self.step_nested = False  # a checked machine's do step: a nested performance pauses after each step
        self.step_statements = False  # ...and, given as statements, between a block's statements and passes
        self.waits_for_time = False  # a machine's do step: a body's wait for time waits on the machine's clock
        self._live: list[Token] | None = None
        graph = ctx.program.graph(action)
        frame = Frame(action.name, action)
        self.root = Flow(self, graph, frame, FlowKind.ROOT, 0, action.name)
        self.current_flow = self.root
        with ctx.trace.quiet():  # the corpus traces begin with the first step
            if performer is not None:
                frame.performer = ctx.object_for_usage(ctx.program.performer(performer).qualified_name, 0)
            self.init_attributes(graph.attributes, frame, 0)
        self.root.start()

    # ------------------------------------------------------------ the stepping surface

    @property
    def world(self) -> Context:
        return self.ctx

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
            with self.failing(lambda: f"step {self.root.step_no}"):
                work = self.work
                progressed = self.step_flow(self.root)
                if self.root.finished:
                    self.status = "completed"
                elif not progressed and self.work == work:
                    # no token moved and no body began a statement or moved a nested round (a body
                    # that sent and paused again at an accept has moved: another body may take it)
                    self._stalled()
        finally:
            self._live = None
        return self.ctx.trace.since(mark)

    def run_to_end(self) -> list[str]:
        mark = self.ctx.trace.mark()
        while not self.finished:
            self.step()
        return self.ctx.trace.since(mark)

    def run_until_waiting(self) -> bool:
        """Step until the run ends (True) or every token left waits at an accept no message on the bus
        answers, or (with `holds_time`) for time to pass (False, the run still running: in an instance
        a machine may yet send it one, and time passes for every member of the world at once)."""
        while not self.finished:
            if self.holds_time and self._only_time_left():
                return False  # no round: nothing it could do would move before the clock does
            try:
                self.step()
            except AcceptDeadlock:
                self.status, self.error = "running", None  # the round that found it moved nothing
                return False
            except WaitsForTime:
                return False
        return True

    def _only_time_left(self) -> bool:
        now = self.ctx.clock.now
        tokens = self.all_tokens(self.root)
        return bool(tokens) and all(t.wake is not None and t.wake > now for t in tokens)

    def wake(self) -> Fraction | None:
        """The earliest instant a token of the run waits for, or None."""
        wakes = [t.wake for t in self.all_tokens(self.root) if t.wake is not None]
        return min(wakes) if wakes else None

    def snapshot(self, allow_replay: bool = False) -> Snapshot:
        """The run as it stands between two moves, to restore (repeatably) until released."""
        from engines.runtime.snapshot import Snapshot

        return Snapshot(self, allow_replay)

    def reset(self) -> None:
        """Back to the state before the first move (a fresh context over the same program)."""
        from engines.runtime.world import Context

        trace_on = self.ctx.trace.enabled
        ctx = Context(self.ctx.program, self._first_scheduler.fork(), self.ctx.max_steps)
        Run.__init__(self, ctx, self.element, self.performer, self.fine, self.footprints)
        ctx.trace.enabled = trace_on

    def _stalled(self) -> None:
        """A round that moved nothing: let the clock move, or report who waits on what."""
        waiters = [t for t in self.all_tokens(self.root) if t.wake is not None]
        if waiters:
            if self.holds_time:
                raise WaitsForTime
            self.ctx.clock.advance_to(min(t.wake for t in waiters if t.wake is not None))
            return
        if any(t.waiting_accept or t.body is not None for t in self.all_tokens(self.root)):
            raise AcceptDeadlock(f"accept deadlock in action {self.element.name}: "
                                 + ", ".join(f"token {t.id}@{t.flow.model_label(t)}" for t in
                                             sorted(self.all_tokens(self.root), key=lambda t: t.id))
                                 + " wait for messages nothing sends")
        raise ActionDeadlock(f"action deadlock in {self.element.name}: no token can move")

    def tokens(self) -> list[TokenView]:
        views = [TokenView(t.id, t.flow.node_label(t), t.flow.label,
                           "message" if t.waiting_accept else ("clock" if t.wake is not None else None))
                 for t in self.all_tokens(self.root)]
        views += [TokenView(i, label, path[-1] if path else "", None) for i, (label, path) in self.displayed.items()]
        return sorted(views, key=lambda v: v.id)

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
        self.ctx.journal.touch(flow)
        flow.step_no += 1
        flow.round += 1
        self.ctx.charge_step()
        tokens = self.all_tokens(flow)
        if self.only_token is not None:
            tokens = [t for t in tokens if t.id == self.only_token]
        for entered in {id(t.flow): t.flow for t in tokens if t.flow is not flow}.values():
            # a subflow a token entered moves in its owner's rounds: a token that arrived at one of
            # its joins in an earlier round counts there as arrived
            self.ctx.journal.touch(entered)
            entered.round += 1
        moves = [token_move(t.id, t.flow.node_label(t)) for t in tokens]
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
                token = by_id[move.actor]
                if token.flow.tokens.count(token) == 0:
                    continue  # consumed by a join this round
                outer_token = self.mover_token
                if flow.kind is FlowKind.ROOT or outer_token is None:  # a machine's do flow too: its token waits
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

    def _write_conflicts(self, step_no: int, writes: list[Write]) -> None:
        by_feature: dict[str, list[Write]] = {}
        for w in writes:
            by_feature.setdefault(w.feature, []).append(w)
        for feature, ws in by_feature.items():
            tokens = {w.token for w in ws}
            if len(tokens) < 2:
                continue
            last_by_token: dict[int, Write] = {}
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
            self._control_body(flow, node)
            self._follow(token, node)
            return True, True
        if node.kind is NodeKind.DONE:
            self._consume(token)
            return True, True
        if node.kind is NodeKind.FORK:
            self._control_body(flow, node)
            # the branches' tokens before the fork's goes: an entered flow (a branch, a pass) left
            # with no token would be left, its branches never run
            for edge in graph.outgoing(node.index):
                self._spawn(flow, edge.target, node.index)
            self._consume(token)
            return True, True
        if node.kind is NodeKind.DECIDE:
            self._control_body(flow, node)
            self._decide(token, node)
            return True, True
        if node.multiplicity == 0:
            # `a[0]` names no performance: nothing of its body runs, its successions still follow.
            self._follow(token, node)
            return True, True
        if node.multiplicity > 1 and token.group is None and token.repeats is None and not self.fine \
                and node.body is not None and node.body.flow is not None and token.via is not None:
            # A stepping run performs a node with multiplicity whose body is a flow of its own, reached
            # by a succession, once after another (one of the orders a fine run explores among the
            # others); an unordered start's performances begin together, as a leaf's do.
            self.ctx.journal.touch(token)
            token.repeats = node.multiplicity - 1
            return self._perform(token, node)
        if node.multiplicity > 1 and token.group is None and token.repeats is None:
            group = [token]
            self.ctx.journal.touch(token)
            self.ctx.journal.touch(flow)
            token.group = group
            for _ in range(node.multiplicity - 1):
                self.ctx.charge_step()  # each performance a unit of the budget: `a[2 ** 40]` stops, not grows
                twin = Token(flow.new_token_id(), node.index, flow, arrived_round=flow.round, group=group)
                group.append(twin)
                flow.tokens.append(twin)
            return True, True
        return self._perform(token, node)

    def _perform(self, token: Token, node: Node) -> tuple[bool, bool]:
        starting, self.starting = self.starting, (token, pin_key(node))  # the pin it makes is its own
        try:
            return self._perform_node(token, node)
        finally:
            self.starting = starting

    def _perform_node(self, token: Token, node: Node) -> tuple[bool, bool]:
        accept = token.flow.graph.accepts[node.index]
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
        if self.fine and node.kind is NodeKind.ACTION and body is not None and body.splits():
            if body.performs is not None and not body.statements and body.performs.base_kind == "action":
                self._enter_performed(token, node, body.performs)
                return True, True
            self._enter(token, node, self.ctx.program.statement_flow(node))
            if token.inside is not None:
                token.inside.implicit = True
            return True, True
        if node.decl is IMPLICIT_TERMINATE:
            # The implicit terminate of a terminate action usage: the usage's own performance ends here.
            self.ctx.journal.touch(token.flow)
            token.flow.tokens.clear()
            if token.flow.parent_token is not None:
                self._leave(token.flow)
            return True, True
        if node.kind is NodeKind.STATEMENT and isinstance(node.decl, s.Terminate) and node.decl.target is None:
            self._terminate_node(token, node)
            return True, True
        if self.fine and node.kind is NodeKind.STATEMENT and isinstance(node.decl, s.If):
            self._fine_if(token, node, node.decl)
            return True, True
        if self.fine and node.kind is NodeKind.STATEMENT and isinstance(node.decl, (s.While, s.For, s.LoopUntil)):
            self._fine_loop(token, node, node.decl)
            return True, True
        if body is not None and not body.attributes and len(body.statements) == 1 \
                and isinstance(body.statements[0], s.Assign) and body.performs is None:
            # One assignment and nothing else: no body run to set up (the common leaf, and a hot path).
            # The node holds no feature, so it leaves no pin: its frame only resolves names.
            flow_frame = token.flow.frame
            frame = Frame(node.name, body.scope, flow_frame) \
                if node.kind is NodeKind.ACTION else flow_frame
            stmt = body.statements[0]
            self.ctx.trace.at(token.flow.depth, f"stmt assign {stmt.target}")
            value = self.evaluator.eval(stmt.value, frame, token.flow.depth + 1)
            if value is UNSET:
                self._assigning_no_value(stmt, frame)
            self._assign(stmt.target, value, frame, token.flow.depth + 1)
            self._completed(token, node)
            return True, True
        run = self._node_body(token, node)
        try:
            wait = next(run)
        except StopIteration:
            self._completed(token, node)
            return True, True
        except Terminated:
            self._terminated(token, node)
            return True, True
        self.ctx.journal.touch(token)
        token.body = run
        token.resumed = not self.fine and token.flow.kind is not FlowKind.PERFORMED
        token.wait = wait
        return True, False

    def _resume(self, token: Token, node: Node) -> bool:
        assert token.body is not None
        self.ctx.journal.touch(token)
        try:
            token.wait = next(token.body)
        except StopIteration:
            token.wait = None
            token.body = None
            self._completed(token, node)
            return True
        except Terminated:
            token.wait = None
            token.body = None
            self._terminated(token, node)
            return True
        return False

    def _completed(self, token: Token, node: Node) -> None:
        pin = token.performance
        if pin is not None:
            self.ctx.journal.touch(token)
            token.performance = None
        if node.kind is NodeKind.ACTION:
            self._judge_assertions(token, node, pin)
        if pin is not None and node.kind is not NodeKind.STATEMENT:
            self._connect_out(pin)
        if pin is not None and not pin.values and not pin.pins:
            pins, key = token.flow.frame.pins, pin_key(node)
            if pins.get(key) is pin:  # (not where a performance begun since holds the pin)
                self.ctx.journal.touch_part(token.flow.frame, pins)
                del pins[key]  # a performance that held nothing leaves no pins
        elif pin is not None and pin.calc is None and not any(isinstance(v, Deferred) for v in pin.values.values()):
            self._seal(pin)
        if node.body is not None and node.body.terminate:
            self._terminate_all(token.flow)
            return
        if token.repeats:
            self.ctx.journal.touch(token)
            token.repeats -= 1
            return  # the next performance of the node starts at the token's next move
        if token.group is not None:
            # The performances of a node with multiplicity: the last one to end goes on.
            self.ctx.journal.touch_part(token, token.group)
            token.group.remove(token)
            if token.group:
                self._consume(token)
                return
        self._follow(token, node)


    def _judge_assertions(self, token: Token, node: Node, pin: Frame | None) -> None:
        """A step's `assert constraint`s, judged as its performance ends, in its frame (its features, and
        those around it, as they stand then), named by the step's path (ir/assertions.py: the steps
        performing it, an `if` or a loop around it left out)."""
        graph = token.flow.graph
        key = (id(graph), node.index)
        conditions = self._assertions[key][0] if key in self._assertions else self._remember(
            key, graph, usage_assertions(self.ctx.program.model, graph.scope, node.decl))
        if conditions:
            frame = pin if pin is not None else Frame(node.name, graph.scope, token.flow.frame)
            self._judge(".".join(reversed(_step_names(token.flow, [node.name]))), conditions, frame, node.name)

    def _judge_performed(self, flow: Flow, action: Element) -> None:
        """An action a `perform` statement performed in an executor of its own (`flow`): its definition's
        assertions, judged as the performance ends, named by the path of the step that performed it (a
        node typed by the action is judged as the node ends, `_judge_assertions`)."""
        key = (id(action), -1)
        conditions = self._assertions[key][0] if key in self._assertions else self._remember(
            key, action, behavior_assertions(self.ctx.program.model, action))
        if conditions:
            self._judge(".".join(reversed(_step_names(flow, []))), conditions, flow.frame, action.name)

    def _judge_statement_step(self, usage: s.Usage, frame: Frame) -> None:
        """A step declared among statements (an `if` branch's, a loop body's, a node body's, performed
        within one move): its assertions as it ends, named by the steps its frame is a pin of."""
        key = (id(usage), -2)
        if key in self._assertions:
            conditions = self._assertions[key][0]
        else:
            around = frame.parent.scope if frame.parent is not None else None  # where its type's name is read
            conditions = self._remember(key, usage, usage_assertions(self.ctx.program.model, around, usage))
        if not conditions:
            return
        names: list[str] = []
        at: Frame | None = frame
        while at is not None and at.parent is not None:
            if not at.block:
                names.append(at.label)
            at = at.parent
        self._judge(".".join(reversed(names)), conditions, frame, frame.label)

    def _remember(self, key: tuple[int, int], holder: object,
                  conditions: tuple[tuple[str, s.Expr], ...]) -> tuple[tuple[str, s.Expr], ...]:
        """What a step or action asserts, kept by the id of what holds it (kept alive: its id stays its own)."""
        self._assertions[key] = (conditions, holder)
        return conditions

    def judge_step(self, path: str, conditions: tuple[tuple[str, s.Expr], ...], frame: Frame, where: str) -> None:
        """A step's assertions judged by a behavior this run hosts (a machine's entry, do or exit)."""
        self._judge(path, conditions, frame, where)

    def _judge(self, path: str, conditions: tuple[tuple[str, s.Expr], ...], frame: Frame, where: str) -> None:
        """Each false condition recorded as broken, by the step's path and the assertion's name."""
        broken = set(self.broken_assertions)
        with self.ctx.trace.quiet():
            for name, condition in conditions:
                value = self.evaluator.eval(condition, frame, 0)
                if not isinstance(value, bool):
                    raise EvaluationError(f"the assertion {path}.{name} cannot be evaluated: its condition is "
                                          f"{with_article(type_name(value))} {spell(value)}, not a Boolean", where)
                if not value:
                    broken.add(f"{self.action}::{path}.{name}")
        if len(broken) != len(self.broken_assertions):
            self.broken_assertions = tuple(sorted(broken))

    def _consume(self, token: Token) -> None:
        flow = token.flow
        if token in flow.tokens:
            self.ctx.journal.touch(flow)
            flow.tokens.remove(token)
        if flow.finished and flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
            self._leave(flow)

    def _spawn(self, flow: Flow, target: int, via: int | None) -> Token:
        token = Token(flow.new_token_id(), target, flow, arrived_round=flow.round, via=via)
        self.ctx.journal.touch(flow)
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
                self.ctx.journal.touch(token)
                token.resumed = False
                target = flow.graph.nodes[token.node]
                if target.kind in (NodeKind.ACTION, NodeKind.STATEMENT) and len(flow.graph.incoming(target.index)) <= 1:
                    self._perform(token, target)
            return
        # the new tokens before the old one goes: an entered flow left with no token would be left
        # (the tokens end in the same order either way)
        for edge in enabled:
            self._spawn(flow, edge.target, node.index)
        self._consume(token)

    def _move(self, token: Token, target: int, via: int) -> None:
        self.ctx.journal.touch(token)
        token.node = target
        token.via = via
        token.arrived_round = token.flow.round
        token.group = None
        token.repeats = None
        token.loop = None

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
        holding: list[Edge] = []
        for edge in edges:
            if edge.is_else:
                continue
            if wanted is not None and flow.graph.nodes[edge.target].name != wanted:
                continue
            if holding:
                # the guards after the first that holds are read only to tell an overlap (a choice),
                # quietly: the reference executor's trace stops at the branch it takes
                with self.ctx.trace.quiet():
                    if edge.guard is None or self._guard(edge.guard, flow):
                        holding.append(edge)
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

    def _join(self, token: Token, node: Node) -> tuple[bool, bool]:
        flow = token.flow
        waiting = [t for t in flow.tokens if t.node == node.index and t.arrived_round < flow.round]
        arrived = {t.via for t in waiting}
        if not waiting or not awaited(flow, node) <= arrived:
            return False, False
        # one token per succession that delivered: a second over the same succession satisfies it for the
        # node's next performance, not this one (the oracle's action_join_same_succession_twice), the moving
        # token first for its own
        taken = [token] if token in waiting else []
        for t in waiting:
            if all(t.via != u.via for u in taken):
                taken.append(t)
        if node.kind is not NodeKind.JOIN and taken == [token]:
            # one arrival and nothing else awaited (a pass of a loop back over the node): the token
            # itself performs the node, as the reference executor's trace shows
            self.ctx.journal.touch(token)
            token.via = None
            return self._perform(token, node)
        self.ctx.journal.touch(flow)
        for t in taken:
            flow.tokens.remove(t)
        joined = Token(flow.new_token_id(), node.index, flow, arrived_round=flow.round)
        flow.tokens.append(joined)
        if node.kind is NodeKind.JOIN:
            self._control_body(flow, node)
            self._follow(joined, node)
            return True, True
        return self._perform(joined, node)

    def _control_body(self, flow: Flow, node: Node) -> None:
        """A control node's body (`fork split { assign n := n + 1; }`): a step the token passing
        through performs, before it is routed on."""
        if node.body is None or not node.body.statements:
            return
        for _ in self.statements(node.body.statements, flow.frame, flow.depth, node.name):
            raise RunError(f"{node.kind.value} {node.name}: a control node's body that waits is not run")

    # ------------------------------------------------------------ entering a node's subflow

    def _enter(self, token: Token, node: Node, graph: ActionGraph, frame: Frame | None = None) -> None:
        """The token goes into the node's subflow; entering is the start shot (its features' values)."""
        assert node.body is not None
        self.ctx.trace.flush_left(f"enter action node: {node.name}")
        if frame is None:
            frame = self._node_frame(token.flow, node)
            self._start_frame(node.body.attributes, frame, token.flow.depth)
        child = Flow(self, graph, frame, FlowKind.ENTERED, token.flow.depth, node.name, token)
        self.ctx.journal.touch(token)
        token.inside = child
        child.round = token.flow.round
        child.start(first_id=token.id)
        for t in child.tokens:
            t.arrived_round = child.round
        if child.finished:
            self._leave(child)

    def _enter_performed(self, token: Token, node: Node, action: Element,
                         graph: ActionGraph | None = None) -> None:
        """The performed action's flow entered as a subflow of the node (a fine run's, or a usage
        that adds statements of its own to the action it performs)."""
        assert node.body is not None
        inner = self._callee_frame(action, token.flow.frame, node.body.bindings, token.flow.frame,
                                   node.name, token.flow.depth, node.body.outputs,
                                   enclosing=token.flow.frame if graph is not None else None)
        self._enter(token, node, graph or self.ctx.program.graph(action), inner)
        child = token.inside
        if child is not None:
            child.returns = (action, token.flow.frame, node.body.outputs)

    def _leave(self, child: Flow) -> None:
        token = child.parent_token
        assert token is not None
        self.ctx.trace.flush_left(f"leave action node: {token.flow.graph.nodes[token.node].name}")
        if child.returns is not None:
            action, caller, outputs = child.returns
            self._return_outputs(self.ctx.program.graph(action), child.frame, caller, outputs)
        self.ctx.journal.touch(token)
        token.inside = None
        if token.loop is not None:
            return  # a pass of a fine run's loop ended: the loop's next test is a move of its own
        self._completed(token, token.flow.graph.nodes[token.node])

    def _seal(self, frame: Frame) -> None:
        """A finished performance's pins are never written again (the canonical state caches them)."""
        self.ctx.journal.touch(frame)
        frame.sealed = True
        for pin in frame.pins.values():
            if pin.calc is None and not any(isinstance(v, Deferred) for v in pin.values.values()):
                self._seal(pin)

    # ------------------------------------------------------------ accept nodes

    def _accept_node(self, token: Token, node: Node, accept: s.Accept) -> tuple[bool, bool]:
        flow = token.flow
        trigger = accept.trigger
        self.ctx.journal.touch(token)
        if trigger.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT):
            if token.wake is None:
                assert trigger.expression is not None
                when = self.evaluator.eval(trigger.expression, flow.frame, flow.depth)
                token.wake = wake_time(trigger.kind, when, self.ctx.clock.now)
                if not self.fine and not self.waits_on_clock and not self.holds_time \
                        and len(self.all_tokens(self.root)) <= 1:
                    self.ctx.clock.advance_to(token.wake)  # nothing else can move: time does
                    if flow.kind is FlowKind.PERFORMED and self.mover_token is not None:
                        self.ctx.journal.touch(self.mover_token)
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
        message = take(self.ctx, trigger, node.name, self.performing, flow.steps_within())
        if message is None:
            token.waiting_accept = True
            return False, False
        token.waiting_accept = False
        frame = self._node_frame(flow, node)
        if trigger.payload:
            frame.values[trigger.payload] = message.payload
        self._follow(token, node)
        return True, True


__all__ = ["Flow", "FlowKind", "Run", "Token", "TokenView"]


def _step_names(flow: Flow, names: list[str]) -> list[str]:
    """`names` and the steps around `flow`, innermost first: the action nodes whose tokens entered the
    flows around it, and the steps whose move runs a flow of its own (an action performed in an executor
    of its own, a body or an `if` or a pass stating a flow; a `perform` statement or a step among a node's
    statements named after that node)."""
    while True:
        if flow.parent_token is not None:
            parent = flow.parent_token
            owner = parent.flow.graph.nodes[parent.node]
            if owner.kind is NodeKind.ACTION:
                names.append(owner.name)
            flow = parent.flow
        elif flow.performer is not None:
            host, name = flow.performer
            if name:
                names.append(name)
            if host is None:
                return names
            owner = host.flow.graph.nodes[host.node]
            if owner.kind is NodeKind.ACTION and owner.name != name:
                names.append(owner.name)  # a `perform` statement in the body of the node `owner`
            flow = host.flow
        else:
            return names
