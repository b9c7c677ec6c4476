"""One move at a time: the moves a schedule chooses among, readiness probes that change nothing,
applying one move, letting time pass, and telling a deadlock."""

from __future__ import annotations

from engines.errors import RunError
from engines.runtime.actions.core import RunCore
from engines.runtime.actions.tokens import Flow, Token
from engines.runtime.bus import available
from engines.runtime.schedule import ChoiceKind, Move
from ir import syntax as s
from ir.graphs import Node, NodeKind


def _number(token: Token) -> int:
    return token.id


def awaited(flow: Flow, node: Node) -> set[int]:
    """The sources of `node`'s successions its performance waits for. A join awaits every one
    (JoinAction: source multiplicity 1..1). A plain node awaits a succession once it has delivered,
    or while another token of the flow can still reach its source without passing through the node:
    the branch a decision did not take, or a loop back over the node, orders nothing before this
    performance (the oracle's reading; `action_node_loop_back_reperforms`)."""
    sources = {e.source for e in flow.graph.incoming(node.index)}
    if node.kind is NodeKind.JOIN:
        return sources
    arrived = {t.via for t in flow.tokens if t.node == node.index}
    others = [t.node for t in flow.tokens if t.node != node.index]
    return {s for s in sources
            if s in arrived or any(flow.graph.reaches(at, s, node.index) for at in others)}


class MoveProbes(RunCore):
    """The move-level surface of a run (explore and check drive runs through it)."""

    def enabled_moves(self) -> list[Move]:
        """The tokens that can advance now, in token order: the moves a schedule chooses among."""
        if self.finished:
            return []
        moves: list[Move] = []
        live = self.live_tokens()
        for token in sorted(live, key=_number) if len(live) > 1 else live:
            flow = token.flow
            if (token.body is not None or token.node in flow.graph.waiting) and not self.can_act(token):
                continue
            label = flow.node_label(token)
            node = flow.graph.nodes[token.node]
            if node.kind is NodeKind.DECIDE and token.body is None:
                branches = self.decision_branches(token)
                if len(branches) > 1:
                    moves.extend(Move(ChoiceKind.DECISION_BRANCH, token.id, label, b) for b in branches)
                    continue
            known = self._token_moves.get((token.id, label))
            if known is None:
                known = self._token_moves[(token.id, label)] = Move(ChoiceKind.TOKEN_ORDER, token.id, label)
            moves.append(known)
        return moves

    def apply(self, move: Move) -> list[str]:
        """Advance the one token the move names; returns the trace lines the move wrote."""
        mark = self.ctx.trace.mark()
        for token in self.live_tokens():
            if token.id == move.token:
                break
        else:
            raise RunError(f"no token {move.token} to move", move.node)
        self.moves_taken.append(move)
        self._live = None
        with self.failing(lambda: f"move {move.node}"):
            self.ctx.charge_step()
            flow = token.flow
            self.ctx.journal.touch(flow)
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
            return awaited(flow, node) <= arrived
        accept = flow.graph.accepts[node.index]
        if accept is None:
            return True
        trigger = accept.trigger
        if trigger.kind is s.TriggerKind.AFTER:
            return token.wake is None or self.ctx.clock.now >= token.wake
        if trigger.kind is s.TriggerKind.WHEN:
            assert trigger.expression is not None
            with self.ctx.trace.quiet():
                try:
                    return self.evaluator.eval(trigger.expression, flow.frame, 0) is True
                except RunError:
                    return True  # taking the move raises the error, which is reported on its schedule
        return available(self.ctx, trigger, node.name)

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

    def stuck(self) -> str | None:
        """Why a run with tokens left and no enabled move cannot go on (a deadlock), or None."""
        if self.finished or self.enabled_moves():
            return None
        waiters = [t for t in self.all_tokens(self.root) if t.wake is not None]
        if waiters:
            return None
        tokens = sorted(self.all_tokens(self.root), key=lambda t: t.id)
        return "deadlock: " + ", ".join(f"token {t.id}@{t.flow.model_label(t)}" for t in tokens) + " wait"

    def decision_branches(self, token: Token) -> list[str]:
        """The successors a decision token may take now (guards read quietly); one unless they overlap."""
        flow = token.flow
        node = flow.graph.nodes[token.node]
        holding = []
        with self.ctx.trace.quiet():
            for edge in flow.graph.outgoing(node.index):
                if edge.is_else:
                    continue
                try:
                    if edge.guard is None or self._guard(edge.guard, flow):
                        holding.append(flow.graph.nodes[edge.target].name)
                except RunError:
                    return []
        return holding
