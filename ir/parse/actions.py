"""The transformer's action language: successions, control nodes, flows, bindings, statements and triggers."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from ir import syntax as s
from ir.parse.common import is_token, members_of, span


@v_args(meta=True)
class Actions(Transformer[Token, Any]):
    """Rules inside an action's body: what flows, what follows what, and the statements of a body."""

    # ---------------------------------------------------------------- flow

    def succ_end(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return members_of(c)

    def first_member(self, meta: Any, c: list[Any]) -> s.FirstMember:
        ends = _ends(c)
        c = [x for x in c if not isinstance(x, s.Multiplicity)]
        source = c[1]
        if len(c) == 2:
            return s.FirstMember(span(meta), source)
        guard = c[3] if is_token(c[2], "IF") else None
        target = c[-2]
        return s.FirstMember(span(meta), source, guard, target, c[-1], ends)

    def succession_member(self, meta: Any, c: list[Any]) -> s.SuccessionMember:
        ends = _ends(c)
        items = [x for x in c[1:] if not isinstance(x, s.Multiplicity)]
        name = None
        if len(items) > 1 and is_token(items[1], "FIRST"):
            name, items = items[0], items[2:]
        elif is_token(items[0], "FIRST"):
            items = items[1:]
        source = items[0]
        guard = items[2] if is_token(items[1], "IF") else None
        return s.SuccessionMember(span(meta), name, source, items[-2], guard, items[-1], ends)

    def then_target(self, meta: Any, c: list[Any]) -> s.ThenMember:
        multiplicity = c[1] if isinstance(c[1], s.Multiplicity) else None
        return s.ThenMember(span(meta), c[-1], None, multiplicity)

    def then_element(self, meta: Any, c: list[Any]) -> s.ThenMember:
        return s.ThenMember(span(meta), None, c[1])

    def control_tail(self, meta: Any, c: list[Any]) -> tuple[s.Member, ...]:
        return members_of(c)

    def control_node(self, meta: Any, c: list[Any]) -> s.ControlNode:
        name = c[1] if len(c) == 3 else None
        return s.ControlNode(span(meta), str(c[0]), name, c[-1])

    def done_node(self, meta: Any, c: list[Any]) -> s.ControlNode:
        return s.ControlNode(span(meta), "done", "done")

    def decision_branch(self, meta: Any, c: list[Any]) -> s.DecisionBranch:
        return s.DecisionBranch(span(meta), c[1], c[3])

    def else_branch(self, meta: Any, c: list[Any]) -> s.DecisionBranch:
        return s.DecisionBranch(span(meta), None, c[1])

    def flow_member(self, meta: Any, c: list[Any]) -> s.FlowMember:
        succession = isinstance(c[0], Token) and c[0].type == "SUCCESSION"
        head = next((x for x in c if isinstance(x, tuple)), ())
        ends = [x for x in c if isinstance(x, str) and not isinstance(x, Token)]
        return s.FlowMember(span(meta), head[0] if head else None, ends[-2], ends[-1], succession)

    def flow_head(self, meta: Any, c: list[Any]) -> tuple[str | None]:
        # the flow's name, if any (its type and payload type say nothing a run needs)
        named = [x for x in c if isinstance(x, list)]
        return (named[0][0] if named else None,)

    def flow_name(self, meta: Any, c: list[Any]) -> list[str]:
        return [c[0]]

    def flow_end(self, meta: Any, c: list[Any]) -> None:
        return None

    def bind_member(self, meta: Any, c: list[Any]) -> s.BindMember:
        return s.BindMember(span(meta), c[1], c[2])

    def connect_member(self, meta: Any, c: list[Any]) -> s.ConnectMember:
        return s.ConnectMember(span(meta), c[1], c[3])

    # ---------------------------------------------------------------- statements

    def assign_clause(self, meta: Any, c: list[Any]) -> s.Assign:
        return s.Assign(span(meta), c[1], c[2])

    def assign_stmt(self, meta: Any, c: list[Any]) -> s.Assign:
        a: s.Assign = c[0]
        return s.Assign(span(meta), a.target, a.value)

    def block(self, meta: Any, c: list[Any]) -> s.Block:
        return s.Block(members_of(c), span(meta))

    def if_stmt(self, meta: Any, c: list[Any]) -> s.If:
        otherwise: s.Block | None = None
        if len(c) > 3:
            last = c[4]
            otherwise = last if isinstance(last, s.Block) else s.Block((last,), last.span)
        return s.If(span(meta), c[1], c[2], otherwise)

    def while_stmt(self, meta: Any, c: list[Any]) -> s.While:
        return s.While(span(meta), c[1], c[2], c[4] if len(c) > 3 else None)

    def for_stmt(self, meta: Any, c: list[Any]) -> s.For:
        short = c[1][1] if isinstance(c[1], tuple) else None
        name = next((x for x in c[1:] if isinstance(x, str) and not isinstance(x, Token)), short)
        assert name is not None
        return s.For(span(meta), name, c[-2], c[-1], short)

    def loop_stmt(self, meta: Any, c: list[Any]) -> s.LoopUntil:
        return s.LoopUntil(span(meta), c[1], c[3] if len(c) > 2 else None)

    def send_clause(self, meta: Any, c: list[Any]) -> s.Send:
        payload = c[1]
        via = to = None
        i = 2
        while i < len(c):
            if is_token(c[i], "VIA"):
                via = c[i + 1]
            elif is_token(c[i], "TO"):
                to = c[i + 1]
            i += 2
        return s.Send(span(meta), payload, via, to)

    def send_stmt(self, meta: Any, c: list[Any]) -> s.Send:
        x: s.Send = c[0]
        return s.Send(span(meta), x.payload, x.via, x.to)

    def accept_clause(self, meta: Any, c: list[Any]) -> s.Trigger:
        return c[1]

    def accept_stmt(self, meta: Any, c: list[Any]) -> s.Accept:
        return s.Accept(span(meta), c[0])

    def terminate_stmt(self, meta: Any, c: list[Any]) -> s.Terminate:
        return s.Terminate(span(meta), c[1] if len(c) > 1 else None)

    def via(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("via", c[1])

    @staticmethod
    def _via(c: list[Any]) -> str | None:
        for x in c:
            if isinstance(x, tuple) and x[0] == "via":
                return x[1]
        return None

    def after_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.AFTER, expression=c[1], span=span(meta))

    def at_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.AT, expression=c[1], span=span(meta))

    def when_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.WHEN, expression=c[1], span=span(meta))

    def payload_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, payload=c[0], signal=c[1], via=self._via(c), span=span(meta))

    def subsets_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, subsets=c[0], via=self._via(c), span=span(meta))

    def named_subsets_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, payload=c[0], subsets=c[1], via=self._via(c), span=span(meta))

    def call_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.CALL, signal=c[0], via=self._via(c), span=span(meta))

    def signal_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, signal=c[0], via=self._via(c), span=span(meta))


def _ends(c: list[Any]) -> tuple[s.Multiplicity | None, s.Multiplicity | None]:
    """The multiplicities written at a succession's source end (before `then`) and target end."""
    at = next(i for i, x in enumerate(c) if is_token(x, "THEN")) if any(is_token(x, "THEN") for x in c) else len(c)
    before = [x for x in c[:at] if isinstance(x, s.Multiplicity)]
    after = [x for x in c[at:] if isinstance(x, s.Multiplicity)]
    return (before[0] if before else None, after[0] if after else None)
