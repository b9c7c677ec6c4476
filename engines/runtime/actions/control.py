"""A statement's parts as a fine run performs them, and the ends of performances: an `if` branch and
each pass of a loop entered as a clause of its statement, a terminate dropping the tokens of the
performance it ends."""

from __future__ import annotations

from engines.runtime.actions.core import RunCore
from engines.runtime.actions.statements import for_elements
from engines.runtime.actions.tokens import Flow, FlowKind, LoopPass, Token
from engines.runtime.evaluate import Frame, block_steps
from engines.runtime.values import Value
from ir import syntax as s
from ir.graphs import ActionGraph, Node, NodeKind


class Clauses(RunCore):
    """See the module docstring."""

    def _terminate_node(self, token: Token, node: Node) -> None:
        """A `terminate;` standing as a node of a flow ends the performance that flow is: every other
        token of it is dropped where it stands, whatever the branch it moves in has reached."""
        flow = token.flow
        self.ctx.trace.at(flow.depth, "stmt terminate")
        dropped = sorted((t for t in self.all_tokens(flow) if t is not token), key=lambda t: t.id)
        listed = ", ".join(f"token {t.id}@{t.flow.node_label(t)}" for t in dropped)
        owner = {FlowKind.ROOT: f"action {self.element.name}", FlowKind.PERFORMED: f"action {flow.label}",
                 FlowKind.ENTERED: f"action node {flow.label}"}.get(flow.kind, flow.label)
        self.ctx.trace.flush_left(f"terminate {owner}: " + (f"dropped {listed}" if dropped else "no token dropped"))
        self._terminated(token, node)

    def _drop_all(self, flow: Flow) -> None:
        """Every token of `flow` and of the subflows they entered is gone (a performance ended)."""
        for t in flow.tokens:
            if t.inside is not None:
                self._drop_all(t.inside)
        self.ctx.journal.touch(flow)
        flow.tokens.clear()

    def _terminated(self, token: Token, node: Node) -> None:
        """A `terminate;` standing as a node of a flow ends that flow; in a node's body, the node."""
        if node.kind is NodeKind.STATEMENT and token.flow.kind is FlowKind.ROOT:
            self._drop_all(token.flow)
            self.ctx.journal.touch(self.displayed)
            self.displayed.clear()
            return
        if node.kind is NodeKind.STATEMENT and token.flow.kind is FlowKind.BLOCK:
            self._drop_all(token.flow)
            token.flow.terminated = True  # an `if` branch's or a loop pass's: its statement ends too
            return
        if node.kind is NodeKind.STATEMENT and token.flow.clause and token.flow.parent_token is not None:
            # in an `if` branch or a loop pass of a fine run, as in the statement's own body: the
            # performance the statement is part of ends
            flow = token.flow
            parent = flow.parent_token
            assert parent is not None
            self._drop_all(flow)
            self.ctx.journal.touch(parent)
            parent.inside = None
            parent.loop = None
            self._terminated(parent, parent.flow.graph.nodes[parent.node])
            return
        if node.kind is NodeKind.STATEMENT and token.flow.kind is not FlowKind.ROOT:
            flow = token.flow
            self._drop_all(flow)
            if flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
                self._leave(flow)
            return
        self._completed(token, node)

    def _terminate_all(self, flow: Flow) -> None:
        """A terminate action usage ends the performance it is a step of: through the blocks it
        stands in, up to the action node (or the action) whose performance that is."""
        while flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
            parent = flow.parent_token
            if parent.flow.graph.nodes[parent.node].kind is not NodeKind.STATEMENT:
                break
            self.ctx.journal.touch(parent)
            self._drop_all(flow)
            parent.inside = None
            flow = parent.flow
        self._drop_all(flow)
        if flow.kind is FlowKind.ENTERED and flow.parent_token is not None:
            self._leave(flow)

    def _fine_if(self, token: Token, node: Node, stmt: s.If) -> None:
        """A fine run reads an `if`'s guard as one move; the branch's statements are moves after it, in an
        open order (a declaration keeps its place)."""
        flow = token.flow
        cond = self._condition("if", stmt.condition, flow.frame, flow.depth)
        block = stmt.then if cond else stmt.otherwise
        if block is None or not block.members:
            self._completed(token, node)
            return
        assert flow.frame.scope is not None
        graph = self.ctx.program.clause_flow(flow.frame.scope, block, node.name)
        frame = Frame(flow.frame.label, flow.frame.scope, flow.frame, block=True, steps=block_steps(block.members))
        self._enter_clause(token, node, graph, frame)
        if token.inside is not None:
            token.inside.branch = "then" if cond else "else"

    def _enter_clause(self, token: Token, node: Node, graph: ActionGraph, frame: Frame) -> None:
        # the features a branch or pass declares take their values at its start, as a coarse run's do
        self.init_attributes(graph.attributes, frame, token.flow.depth)
        self._enter(token, node, graph, frame)
        if token.inside is not None:
            token.inside.clause = True

    def _fine_loop(self, token: Token, node: Node, stmt: s.While | s.For | s.LoopUntil) -> None:
        """A fine run performs a loop pass by pass (LoopAction: each iteration a performance after the
        last): reading its condition, or taking a `for` loop's next element, is one move, and the pass's
        statements are moves after it, in an open order as an `if` branch's are. So a sibling branch
        may act between two passes, and between a pass's test and its statements."""
        flow = token.flow
        state = token.loop
        self.ctx.journal.touch(token)
        if isinstance(stmt, s.For):
            if state is None:
                items = for_elements(self.evaluator, self.ctx.trace, stmt.collection, flow.frame, flow.depth)
                state = LoopPass(True, 0, items)
            # (a range walked lazily may hold more elements than Python can count with len: its bounds say)
            left = state.items.stop - state.items.start if isinstance(state.items, range) else len(state.items)
            if state.passes >= left:
                token.loop = None
                self._completed(token, node)
                return
            self.ctx.charge_step()
            token.loop = LoopPass(True, state.passes + 1, state.items)
            bound = {stmt.variable: state.items[state.passes]}
            self._enter_pass(token, node, stmt.body, bound)
            return
        if isinstance(stmt, s.While) and stmt.until is not None and state is not None \
                and self._condition("until", stmt.until, flow.frame, flow.depth):
            # `while c { ... } until u;`: after a pass, u is read first and ends the loop when it holds
            token.loop = None
            self._completed(token, node)
            return
        if isinstance(stmt, s.While) or (state is not None and state.test):
            keyword, condition = ("while", stmt.condition) if isinstance(stmt, s.While) else ("until", stmt.until)
            holds = condition is not None and self._condition(keyword, condition, flow.frame, flow.depth)
            if holds is not isinstance(stmt, s.While):  # a while ends when its test fails, an until when it holds
                token.loop = None
                self._completed(token, node)
                return
        self.ctx.charge_step()
        token.loop = LoopPass(True, (state.passes if state is not None else 0) + 1)
        self._enter_pass(token, node, stmt.body, {})

    def _enter_pass(self, token: Token, node: Node, body: s.Block, bound: dict[str, Value]) -> None:
        flow = token.flow
        assert flow.frame.scope is not None
        graph = self.ctx.program.clause_flow(flow.frame.scope, body, node.name)
        frame = Frame(flow.frame.label, flow.frame.scope, flow.frame, dict(bound), block=True,
                      steps=block_steps(body.members))
        self._enter_clause(token, node, graph, frame)
