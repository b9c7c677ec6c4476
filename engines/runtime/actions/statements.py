"""Statements of a body: assign, if, while, for, loop-until, send, accept, terminate, nested nodes
and calc usages, each writing its trace lines; blocks run inline or as nodes of their own; and the
writes they make, recorded for the step's write-conflict line."""

from __future__ import annotations

import contextlib
from collections.abc import Generator

from engines.errors import EvaluationError
from engines.runtime.actions.connections import pin_path
from engines.runtime.actions.core import RunCore
from engines.runtime.actions.tokens import BodyRun, Flow, FlowKind, Terminated, Wait, Write
from engines.runtime.bus import Message, available, take
from engines.runtime.clock import wake_time
from engines.runtime.evaluate import Evaluator, Frame, block_steps
from engines.runtime.objects import OBJECT_KINDS
from engines.runtime.operators import MAX_SEQUENCE
from engines.runtime.trace import Trace
from engines.runtime.values import (
    UNSET,
    ObjectRef,
    Sequence,
    Value,
    spell,
    type_name,
    with_article,
)
from ir import syntax as s
from ir.footprint import chain_path
from ir.lower import (
    BLOCK_STATEMENTS,
    is_feature,
    may_hold_none,
    parameter_bindings,
    performances,
    statement_label,
    states_a_flow,
    then_after,
)
from ir.resolve import lookup, member_of


class StatementRunner(RunCore):
    """Runs the statements of bodies and blocks (generators: a body waiting on a message yields)."""

    def statements(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str) -> BodyRun:
        for stmt in stmts:
            yield from self.statement(stmt, frame, depth, owner)

    def statement(self, stmt: s.Member, frame: Frame, depth: int, owner: str) -> BodyRun:
        if isinstance(stmt, s.Assign):
            self.assign_statement(stmt, frame, depth)
            return
        self.work += 1
        trace = self.ctx.trace
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
                if iteration > 1:
                    yield from self._statement_step()
                self.ctx.charge_step()
                trace.at(depth + 1, f"iteration {iteration}")
                if not self._condition("while", stmt.condition, frame, depth + 2):
                    break
                yield from self.block(stmt.body, frame, depth + 2, "loop body", owner)
                if stmt.until is not None and self._condition("until", stmt.until, frame, depth + 2):
                    break
            return
        if isinstance(stmt, s.For):
            trace.at(depth, f"stmt for {stmt.variable}")
            elements = for_elements(self.evaluator, self.ctx.trace, stmt.collection, frame, depth + 1)
            for iteration, element in enumerate(elements, start=1):
                if iteration > 1:
                    yield from self._statement_step()
                self.ctx.charge_step()
                trace.at(depth + 1, f"iteration {iteration}")
                names = {stmt.variable: element}
                if stmt.short_name is not None:
                    names[stmt.short_name] = element
                inner = Frame(frame.label, frame.scope, frame, names, block=True)
                yield from self.block(stmt.body, inner, depth + 2, "loop body", owner)
            return
        if isinstance(stmt, s.LoopUntil):
            trace.at(depth, "stmt loop until")
            iteration = 0
            while True:
                iteration += 1
                if iteration > 1:
                    yield from self._statement_step()
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
            self.ctx.journal.touch(self.ctx.bus)
            self.ctx.bus.append(Message(payload, to, self.mover, stmt.via))
            return
        if isinstance(stmt, s.Accept):
            yield from self._accept_statement(stmt, frame)
            return
        if isinstance(stmt, s.Terminate):
            trace.at(depth, "stmt terminate")
            trace.flush_left(f"terminate {owner}: no token dropped")
            raise Terminated()
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

    def assign_statement(self, stmt: s.Assign, frame: Frame, depth: int) -> None:
        """`assign target := value`, which never waits: what `statement` runs for it."""
        self.work += 1
        trace = self.ctx.trace
        if trace.enabled:
            trace.at(depth, f"stmt assign {stmt.target}")
        value = self.evaluator.eval(stmt.value, frame, depth + 1)
        if value is UNSET:
            self._assigning_no_value(stmt, frame)
        self._assign(stmt.target, value, frame, depth + 1)

    def _assigning_no_value(self, stmt: s.Assign, frame: Frame) -> None:
        """`assign seen := handle.t` where `handle.t` holds no value (its step not yet performed, or a
        feature not yet written): a feature of multiplicity [1] given no value, which the run reports
        as the typed error it is (the oracle: an order that reads the unset output fails), unless the
        feature is declared to hold none (`[0..1]`) or is another's (`a.x`, judged where it is)."""
        read = chain_path(stmt.value)
        if read is None or "." in stmt.target:
            return
        name = frame.feature_name(stmt.target)
        holder = frame.holder_of(name)
        declared = holder.scope.members.get(name) if holder is not None and holder.scope is not None else None
        if may_hold_none(declared.decl if declared is not None else None):
            return
        raise EvaluationError(f"assign {stmt.target}: '{read}' holds no value here (not yet written, or its "
                              "step not yet performed)")

    def _condition(self, keyword: str, expr: s.Expr, frame: Frame, depth: int) -> bool:
        """A statement's condition, which must be a Boolean."""
        cond = self.evaluator.eval(expr, frame, depth)
        if not isinstance(cond, bool):
            raise EvaluationError(f"the condition of '{keyword}' must be Boolean, got {type_name(cond)}")
        return cond

    def _accept_statement(self, stmt: s.Accept, frame: Frame) -> BodyRun:
        trigger = stmt.trigger
        if trigger.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT):
            assert trigger.expression is not None
            when = self.evaluator.eval(trigger.expression, frame, 0)
            due = wake_time(trigger.kind, when, self.ctx.clock.now)
            token = self.mover_token
            if token is None and self.waits_for_time:
                # a machine's do behavior: it waits on the machine's clock, which moves where nothing
                # else can (or a check draws what else is due then against its next statement)
                clock = self.ctx.clock
                if due > clock.now:
                    yield Wait("waits for time", lambda: clock.now >= due, wake=due)
                return
            if token is None:  # an entry, exit or effect (run to completion): the clock moves on at once
                self.ctx.clock.advance_to(due)
                return
            yield from self._token_waits(token, due)
            return
        while True:
            message = take(self.ctx, trigger, None, self.performing)
            if message is not None:
                if trigger.payload:
                    self.ctx.journal.touch(frame)
                    frame.values[trigger.payload] = message.payload
                return
            yield Wait("message", lambda: available(self.ctx, trigger, None, self.performing))

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
        self._pin(frame.pin_holder(), stmt.name or "", pin, frame)

    def _nested_node(self, usage: s.Usage, frame: Frame, depth: int, owner: str) -> BodyRun:
        """A step declared among statements: performed as many times as its multiplicity names, one
        performance after another (`[0]`: never)."""
        count = 1
        if usage.multiplicity is not None and frame.scope is not None:
            count = performances(self.ctx.program.model, usage, frame.scope)
        for _ in range(count):
            yield from self._nested_once(usage, frame, depth, owner)

    def _nested_once(self, usage: s.Usage, frame: Frame, depth: int, owner: str) -> BodyRun:
        trace = self.ctx.trace
        scope = frame.scope
        performs = lookup(self.ctx.program.model, scope, usage.types[0]) \
            if usage.types and scope is not None else None
        name = usage.name or (usage.types[0].rsplit("::", 1)[-1] if usage.types else "action")
        if performs is not None and usage.action_body is None and all(is_feature(m) for m in usage.members) \
                and (not usage.has_body or performs.base_kind == "action"):
            # a typed usage whose body only binds parameters performs the action it is typed by
            ins, outs, _ = parameter_bindings(self.ctx.program.model, performs, usage.members,
                                              scope.path if scope is not None else "")
            if usage.performed and usage.name:
                trace.at(depth, "stmt perform")
            else:
                trace.at(depth, f"stmt node {name}")
            flow = yield from self._perform_action(performs, frame, ins, depth + 1, frame, name, outs)
            if flow is not None:
                self._judge_performed(flow, performs)
            performed = frame.pin_holder().pins.get(name)
            if performed is not None:
                self._connect_out(performed)
            return
        own = tuple(m for m in usage.members if not is_feature(m))
        if performs is not None and performs.base_kind == "action" and usage.action_body is None and own:
            # a typed usage stating statements of its own: the action it performs, its statements
            # beside that action's steps (unordered with them), its outputs returned as it ends
            ins, outs, _ = parameter_bindings(self.ctx.program.model, performs, usage.members,
                                              scope.path if scope is not None else "")
            trace.at(depth, f"stmt node {name}")
            graph = self.ctx.program.typed_usage_flow(usage, performs, own, name)
            flow = yield from self._perform_action(performs, frame, ins, depth + 1, frame, name, outs, graph)
            if flow is not None:
                self._judge_performed(flow, performs)
            return
        trace.at(depth, f"stmt node {name}")
        node_scope = scope.members.get(name, scope) if scope is not None else None
        anonymous = not usage.name and not usage.types
        inner = Frame(name, node_scope, frame, anonymous=anonymous)
        # an anonymous node's pin gets a key of its own, so two of them in one body are two pins
        self._pin(frame.pin_holder(), f"{name}#{usage.span.line}:{usage.span.column}" if anonymous else name,
                  inner, frame)
        bindings = [m for m in usage.members if isinstance(m, s.Usage) and m.direction == "in" and m.value is not None]
        rest = tuple(m for m in usage.members if not (isinstance(m, s.Usage) and m.kind in (
            "attribute", "feature", "item", "ref")))
        if usage.action_body is not None and not isinstance(usage.action_body, s.Terminate):
            # `action tell send x to this;` / `action w accept E;`: the usage is that statement
            rest = (*rest, usage.action_body)
        for m in usage.members:
            if isinstance(m, s.Usage) and m.direction and m.name:
                inner.directions[m.name] = m.direction
        given = self._connect_in(inner, depth + 1)
        for m in usage.members:
            if isinstance(m, s.Usage) and m.kind in ("attribute", "feature") and m.name and m.name not in given:
                inner.values[m.name] = self.evaluator.eval(m.value, inner, depth + 1) if m.value is not None else UNSET
        has_accept = any(isinstance(m, s.Accept) for m in rest)
        if bindings or has_accept:
            trace.at(depth + 1, "stmt action body")
            if has_accept:
                yield from self._entered_statements(rest, inner, depth + 2, name, f"action node {name}")
            else:
                yield from self.statements(rest, inner, depth + 2, f"action node {name}")
            self._connect_out(inner)
            self._judge_statement_step(usage, inner)
            return
        ends_owner = isinstance(usage.action_body, s.Terminate) and usage.action_body.target is None
        if states_a_flow(rest):
            yield from self._block_flow(rest, inner, depth + 1, f"action node {name}", name)
        else:
            with contextlib.suppress(Terminated):  # `terminate;` in its own body ends this usage only
                yield from self.statements(rest, inner, depth + 1, f"action node {name}")
        self._connect_out(inner)
        self._judge_statement_step(usage, inner)
        if ends_owner:
            # A terminate action usage ends the performance it is a step of once it is done.
            raise Terminated()

    def block(self, block: s.Block, frame: Frame, depth: int, role: str, owner: str) -> BodyRun:
        """A branch or loop body: inline, or entered as a node of its own when it states a flow or waits."""
        members = block.members
        label = f"{role} of {owner}"
        inner = Frame(frame.label, frame.scope, frame, block=True, steps=block_steps(members))
        if states_a_flow(members):
            flow = yield from self._block_flow(members, inner, depth, label, label, block)
            if flow.terminated:
                # a `terminate;` in a branch or a pass ends the performance the statement is part of, as
                # one written inline does (and as a fine run's clause does)
                raise Terminated()
            return
        self._declare(inner, self.ctx.program.block_connections(block))
        if waits_or_chains(members):
            yield from self._entered_statements(members, inner, depth, label, label)
            return
        self.start_block_features(members, inner, depth)
        for i, stmt in enumerate(members):
            if i:
                yield from self._statement_step()
            yield from self.statement(stmt, inner, depth, owner)

    def start_block_features(self, members: tuple[s.Member, ...], inner: Frame, depth: int) -> None:
        """A branch's or pass's features take their values as it starts (initial values)."""
        for m in members:
            if isinstance(m, s.Usage) and m.kind in ("attribute", "feature") and m.name:
                inner.values[m.name] = self.evaluator.eval(m.value, inner, depth) if m.value is not None else UNSET

    def _statement_step(self) -> BodyRun:
        """Under check, a machine's do behavior given as statements yields between the statements of a
        nested block and between a loop's passes: each is a do step, a dispatch or the other regions'
        steps may come between (the oracle's state_concurrent_inline_do_bodies)."""
        if self.step_statements:
            yield Wait("nested step", lambda: True)

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
                    inner = next(run)
                except StopIteration:
                    break
                self.ctx.journal.touch(self.displayed)
                self.displayed[token_id] = (statement_label(stmt), [label])
                # a wait for time stays one (a machine's clock wakes it); any other waits for a message
                yield inner if inner.wake is not None else Wait("nested body waits", lambda: self._bus_nonempty())
                self.ctx.journal.touch(self.displayed)
                self.displayed.pop(token_id, None)
        self.ctx.journal.touch(self.displayed)
        self.displayed.pop(token_id, None)
        trace.flush_left(f"leave action node: {label}")

    def _block_flow(self, members: tuple[s.Member, ...], frame: Frame, depth: int, label: str, name: str,
                    block: s.Block | None = None) -> Generator[Wait, None, Flow]:
        """The members as a flow of their own, driven to its end: the flow."""
        scope = frame.scope
        assert scope is not None
        if block is None:
            block = s.Block(members, s.NO_SPAN)
        graph = self.ctx.program.block_graph(scope, block, name)
        self.ctx.trace.flush_left(f"enter action node: {label}")
        flow = Flow(self, graph, frame, FlowKind.BLOCK, depth, label)
        flow.performer = (self.mover_token, "" if frame.block else frame.label)  # an `if` or a pass: no step
        self.init_attributes(graph.attributes, frame, depth)
        flow.start()
        if not any(isinstance(m, s.FirstMember) and m.target is None for m in members):
            flow.step_no = 1  # a block with no initial node named starts as if from a start node
        yield from self._drive(flow)
        self.ctx.trace.flush_left(f"leave action node: {label}")
        return flow

    # ------------------------------------------------------------ writes

    def _assign(self, target: str, value: Value, frame: Frame, depth: int) -> None:
        if "." in target:
            base_name, _, feature = target.rpartition(".")
            base = self.evaluator.this(frame, feature) if base_name == "this" else \
                self._target_base(base_name, frame, depth)
            if isinstance(base, ObjectRef) and base.id in self.ctx.objects:
                obj = self.ctx.objects[base.id]
                self.ctx.journal.touch(obj)
                obj.values[feature] = value
                self._record(f"{base_name}.{feature}", value)
                return
            if isinstance(base, Frame):
                self._write(base, feature, value)
                return
            raise EvaluationError(f"cannot assign to {target}: {base_name} is no object")
        target = frame.feature_name(target)
        holder = frame.holder_of(target)
        if holder is None:
            performer = self.evaluator.performer_holding(frame, target)
            if performer is not None:
                obj = self.ctx.objects[performer.id]
                self.ctx.journal.touch(obj)
                obj.values[target] = value
                self._record(f"this.{target}", value)
                return
            raise EvaluationError(f"assignment to {target}: no feature '{target}' in {frame.label}"
                                  + self._on_no_object(frame, target))
        self._write(holder, target, value)

    def _on_no_object(self, frame: Frame, target: str) -> str:
        """Where `target` is a feature of the part (definition) whose machine or action this is, run on
        no object of it: what to do instead."""
        *_, root = frame.chain()
        scope = root.scope
        owner = scope.owner if scope is not None else None
        while owner is not None and owner.base_kind in ("action", "state"):
            owner = owner.owner
        if scope is None or owner is None or owner.base_kind not in OBJECT_KINDS \
                or member_of(self.ctx.program.model, owner, target) is None:
            return ""
        return (f": {target} is a feature of {owner.kind} {owner.qualified_name}, and {scope.name} runs on no"
                f" object of it here: run it on one (--on <part>, %state {scope.name} on <part>, or"
                f" --instantiate <part>)")

    def _target_base(self, path: str, frame: Frame, depth: int) -> object:
        expr: s.Expr = s.Name(s.NO_SPAN, path.split(".")[0])
        for part in path.split(".")[1:]:
            expr = s.Chain(s.NO_SPAN, expr, part)
        return self.evaluator._chain_base(expr, frame, depth)

    def _write(self, holder: Frame, name: str, value: Value) -> None:
        if self.ctx.program.is_constant(holder.scope, name):
            raise EvaluationError(f"feature is read-only: {name} is constant")
        type_text = holder.types.get(name, "")
        if type_text:
            value = self.evaluator.store(holder, name, type_text, value, "assignment to")
        self.ctx.journal.touch(holder)
        holder.values[name] = value
        # a node's pin by its path (`left.v`), so two nodes' same-named pins are two features
        self._record(name if holder.host is None else ".".join((*pin_path(holder), name)), holder.values[name])
        if holder.host is not None or holder.block:
            self._stream(holder, name, holder.values[name])

    def _record(self, feature: str, value: Value) -> None:
        if self.writes is not None and self.mover:
            self.writes.append(Write(self.mover, feature, value, len(self.writes)))


def waits_or_chains(members: tuple[s.Member, ...]) -> bool:
    """Whether a block runs as a node of its own: it waits on a message itself, or orders a block
    statement before the next with `then`."""
    if any(isinstance(m, s.Accept) for m in members):
        return True
    return any(isinstance(p, BLOCK_STATEMENTS) for p in then_after(members))


def _target_text(e: s.Expr | None) -> str | None:
    if e is None:
        return None
    if isinstance(e, s.Name):
        return e.name
    if isinstance(e, s.Chain):
        base = _target_text(e.base)
        return f"{base}.{e.feature}" if base else e.feature
    return None


def for_elements(evaluator: Evaluator, trace: Trace, collection: s.Expr, frame: Frame,
                 depth: int) -> tuple[Value, ...] | range:
    """What a `for` walks: a range of more than MAX_SEQUENCE elements lazily (never built), any other
    collection as its elements."""
    if isinstance(collection, s.Binary) and collection.op == "..":
        with trace.quiet():
            low = evaluator.eval(collection.left, frame, depth)
            high = evaluator.eval(collection.right, frame, depth)
        if _is_integer(low) and _is_integer(high) and high - low >= MAX_SEQUENCE:  # type: ignore[operator]
            trace.at(depth, f"eval range {spell(low)}..{spell(high)} (walked, not built)")
            return range(low, high + 1)  # type: ignore[arg-type,operator]
    value = evaluator.eval(collection, frame, depth)
    if not isinstance(value, Sequence):
        raise EvaluationError(f"'for' iterates a collection, and {with_article(type_name(value))} is not one")
    return value.elements


def _is_integer(value: Value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
