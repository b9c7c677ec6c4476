"""The transformer's state machines: entry/do/exit behaviors, transitions, pseudostates, defer."""

from __future__ import annotations

from typing import Any

from lark import Token, Transformer, v_args

from ir import syntax as s
from ir.parse.common import Tail, is_token, span, usage_node


@v_args(meta=True)
class States(Transformer[Token, Any]):
    """Rules inside a state's body."""

    # ---------------------------------------------------------------- state machines

    def entry_marker(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(span(meta), "entry", None)

    def behavior_block(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(span(meta), str(c[0]), None, c[1])

    def behavior_action(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(span(meta), str(c[0]), usage_node(meta, "action", None, c[2], c[3]))

    def behavior_action_stmt(self, meta: Any, c: list[Any]) -> s.EntryMember:
        statement, tail = c[3]
        return s.EntryMember(span(meta), str(c[0]),
                             usage_node(meta, "action", None, c[2], tail, action_body=statement))

    def behavior_perform(self, meta: Any, c: list[Any]) -> s.EntryMember:
        usage = s.Usage(span(meta), "action", None, types=(c[2],), performed=True)
        return s.EntryMember(span(meta), str(c[0]), usage)

    def behavior_stmt(self, meta: Any, c: list[Any]) -> s.EntryMember:
        return s.EntryMember(span(meta), str(c[0]), c[1])

    def trans_trigger(self, meta: Any, c: list[Any]) -> s.Trigger:
        return c[1]

    def when_signal(self, meta: Any, c: list[Any]) -> s.Trigger:
        return s.Trigger(s.TriggerKind.SIGNAL, signal=c[1], span=span(meta))

    def trans_guard(self, meta: Any, c: list[Any]) -> tuple[str, s.Expr]:
        return ("guard", c[1])

    def trans_effect(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return ("effect", c[1])

    def effect_action(self, meta: Any, c: list[Any]) -> s.Usage:
        block: s.Block = c[2]
        return usage_node(meta, "action", None, c[1], Tail(True, block.members))

    @staticmethod
    def _transition_parts(c: list[Any]) -> tuple[s.Trigger | None, s.Expr | None, Any]:
        trigger = next((x for x in c if isinstance(x, s.Trigger)), None)
        guard = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "guard"), None)
        effect = next((x[1] for x in c if isinstance(x, tuple) and x[0] == "effect"), None)
        return trigger, guard, effect

    def transition(self, meta: Any, c: list[Any]) -> s.Transition:
        first = next(i for i, x in enumerate(c) if is_token(x, "FIRST"))
        name = c[1] if first == 2 else None
        trigger, guard, effect = self._transition_parts(c)
        return s.Transition(span(meta), name, c[first + 1], trigger, guard, effect, c[-1])

    def state_trigger(self, meta: Any, c: list[Any]) -> s.StateTriggerShorthand:
        _, guard, effect = self._transition_parts(c)
        return s.StateTriggerShorthand(span(meta), c[1], guard, effect, c[-1])

    def choice_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(span(meta), "choice", c[1])

    def junction_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(span(meta), "junction", c[1])

    def history_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(span(meta), "history", c[1])

    def deep_history_node(self, meta: Any, c: list[Any]) -> s.Pseudostate:
        return s.Pseudostate(span(meta), "deep history", c[2])

    def defer_member(self, meta: Any, c: list[Any]) -> s.Defer:
        return s.Defer(span(meta), c[1])
