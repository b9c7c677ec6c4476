"""One move at a time: the moves a schedule chooses among, readiness probes that change nothing,
applying one move, letting time pass, and telling a deadlock."""

from __future__ import annotations

from fractions import Fraction
from typing import cast

from engines.errors import RunError
from engines.runtime.actions.core import RunCore
from engines.runtime.actions.footprints import Footprints, place
from engines.runtime.actions.state import state_key
from engines.runtime.actions.tokens import Flow, Token
from engines.runtime.behavior import Actor, ChoiceKind, Move, MoveKind, Summary
from engines.runtime.bus import available
from ir import syntax as s
from ir.graphs import Node, NodeKind


def _number(token: Token) -> int:
    return token.id


def token_move(token: int, at: str, branch: str | None = None) -> Move:
    """The move of a token standing at `at` (`2@heat`), or taking a decision's branch (`2@d to b`)."""
    label = f"{token}@{at}" if branch is None else f"{token}@{at} to {branch}"
    choice = ChoiceKind.TOKEN_ORDER if branch is None else ChoiceKind.DECISION_BRANCH
    return Move(MoveKind.TOKEN, token, label, at, branch, choice)


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
    """The move-level surface of a run: the behavior protocol (engines/runtime/behavior.py) as token
    flow implements it (explore, check and the debugger drive runs through it)."""

    footprints: Footprints

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
                    moves.extend(token_move(token.id, label, b) for b in branches)
                    continue
            known = self._token_moves.get((token.id, label))
            if known is None:
                known = self._token_moves[(token.id, label)] = token_move(token.id, label)
            moves.append(known)
        return moves

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        """Advance the one token the move names; returns the trace lines the move wrote."""
        mark = self.ctx.trace.mark()
        for token in self.live_tokens():
            if token.id == move.actor:
                break
        else:
            raise RunError(f"no token {move.actor} to move", move.at)
        self.moves_taken.append(move)
        self._live = None
        with self.failing(lambda: f"move {move.at}"):
            self.ctx.charge_step()
            flow = token.flow
            self.ctx.journal.touch(flow)
            flow.round += 1
            outer = self.mover_token
            self.mover_token = token
            self.mover = token.id
            self.branch_wanted = move.option
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
        if trigger.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT):
            return token.wake is None or self.ctx.clock.now >= token.wake
        if trigger.kind is s.TriggerKind.WHEN:
            assert trigger.expression is not None
            with self.ctx.trace.quiet():
                try:
                    return self.evaluator.eval(trigger.expression, flow.frame, 0) is True
                except RunError:
                    return True  # taking the move raises the error, which is reported on its schedule
        return available(self.ctx, trigger, node.name, self.performing, flow.steps_within())

    def _flow_ready(self, flow: Flow) -> bool:
        return any(self.can_act(t) for t in self.all_tokens(flow))

    def _bus_nonempty(self) -> bool:
        return bool(self.ctx.bus)

    def next_wake(self) -> Fraction | None:
        """The earliest end of a token's wait that is still to come, or None."""
        now = self.ctx.clock.now
        wakes = [t.wake for t in self.all_tokens(self.root) if t.wake is not None and t.wake > now]
        return min(wakes) if wakes else None

    def let_time_pass(self) -> bool:
        """With no move enabled, the clock moves to the earliest wait's end; False when none waits."""
        wake = self.next_wake()
        if wake is None:
            return False
        self.ctx.clock.advance_to(wake)
        return True

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        return state_key(self, readable)  # type: ignore[arg-type]

    def actors(self) -> list[Actor]:
        """The live tokens, each at its place."""
        return [Actor(t.id, place(t)) for t in self.live_tokens()]

    def footprint(self, move: Move) -> Summary:
        """The move's token's next move (a decision's branches alike)."""
        token = self.token(move.actor)
        return self.footprints.at(token, place(token))[0]

    def future(self, actor: Actor) -> Summary:
        token = self.token(actor.id)
        return self.footprints.at(token, actor.place)[1]  # type: ignore[arg-type]

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

    # ------------------------------------------------------------ what a snapshot needs

    def inside_move(self) -> bool:
        return bool(self.mover)

    def unjournaled(self) -> str | None:
        """Why the run's state cannot be journaled here (a body paused mid-statement), or None."""
        if self.displayed:
            return "a block is paused mid-statement: its state cannot be snapshot"
        for t in self.live_tokens():
            if t.body is not None:
                return (f"token {t.id} is paused mid-statement at {t.flow.node_label(t)}: "
                        "a body paused inside a move cannot be snapshot")
        return None

    def movers(self) -> list[object]:
        self._live = None  # a restored run finds its tokens again
        return [self]

    def history(self) -> object:
        return tuple(self.moves_taken), self.step_number

    def rewind(self, history: object) -> None:
        """Back to the start, then the moves (a fine run) or the rounds (a stepping run) of `history`."""
        moves, steps = cast("tuple[tuple[Move, ...], int]", history)
        self.reset()
        if self.fine:
            for move in moves:
                self.apply(move)
        else:
            for _ in range(steps):
                self.step()
