"""How a node's body is performed: the frame holding its features and their initial values, a
verification case, an action performed in an executor of its own, and the nested flows a body
drives to their end within one move."""

from __future__ import annotations

from collections.abc import Generator

from engines.errors import ActionDeadlock, RunError
from engines.runtime.actions.core import RunCore
from engines.runtime.actions.tokens import BodyRun, Flow, FlowKind, Token, Wait
from engines.runtime.evaluate import Frame
from engines.runtime.limits import MAX_PERFORMANCE_DEPTH, performances_too_deep
from engines.runtime.values import UNSET, Deferred, Value, spell
from ir import syntax as s
from ir.graphs import ActionGraph, Attribute, Node, NodeKind
from ir.model import Element

Bindings = tuple[tuple[str, s.Expr], ...]


def _target_path(expr: s.Expr) -> str:
    """The feature an output parameter is bound to, as a dotted path (lowering admits only names and chains)."""
    if isinstance(expr, s.Chain):
        return f"{_target_path(expr.base)}.{expr.feature}"
    assert isinstance(expr, s.Name)
    return expr.name


def is_anonymous(node: Node) -> bool:
    """Whether the model names no node here: an accept statement, or an action usage with neither a
    name nor a type (a typed one is named after its action, `perform Halve;` as `Halve`, as the
    corpus reports it)."""
    if node.kind is NodeKind.STATEMENT:
        return True
    decl = node.decl
    return node.kind is NodeKind.ACTION and isinstance(decl, s.Usage) and not decl.name and not decl.types


def node_paths(graph: ActionGraph, prefix: str = "") -> set[str]:
    """Dotted paths of the features a node's performance may hold (known before any schedule ran),
    as Run.outputs names them: an anonymous node's under the path around it."""
    out: set[str] = set()
    for node in graph.nodes:
        inner = prefix if is_anonymous(node) else f"{prefix}{node.name}."
        accept = graph.accepts[node.index]
        if accept is not None and accept.trigger.payload:
            out.add(f"{inner}{accept.trigger.payload}")
        body = node.body
        if body is None:
            continue
        for attr in body.attributes:
            out.add(f"{inner}{attr.name}")
        if body.performs is not None:
            for m in body.performs.members.values():
                out.add(f"{inner}{m.name}")
        if body.flow is not None:
            out |= node_paths(body.flow, inner)
    return out


def pin_key(node: Node) -> str:
    """The key a node's performance keeps its pin under: its name, or for a node the model names not,
    one of its own (two anonymous accepts of one flow are two pins, not one)."""
    return f"{node.name}#{node.index}" if is_anonymous(node) else node.name


class Performances(RunCore):
    """The performance of a node's body (see the module docstring)."""

    def _node_frame(self, flow: Flow, node: Node) -> Frame:
        scope = node.body.scope if node.body is not None else flow.frame.scope
        frame = Frame(node.name, scope, flow.frame, anonymous=is_anonymous(node))
        self._pin(flow.frame, pin_key(node), frame, flow.frame)
        return frame

    def _start_frame(self, attributes: tuple[Attribute, ...], frame: Frame, depth: int) -> None:
        """A node's performance starts: the flows and bindings reaching its pins, then its features'
        own values (a bound or delivered pin keeps what it was given)."""
        for attr in attributes:
            if attr.direction:
                frame.directions[attr.name] = attr.direction
        given = self._connect_in(frame, depth)
        self.init_attributes(attributes, frame, depth, given)

    def init_attributes(self, attributes: tuple[Attribute, ...], frame: Frame, depth: int,
                        given: frozenset[str] = frozenset()) -> None:
        self.ctx.journal.touch(frame)
        for attr in attributes:
            if attr.name in given:
                continue
            decl = attr.decl
            if isinstance(decl, s.Usage):
                if decl.short_name:
                    self.ctx.journal.touch_part(frame, frame.aliases)
                    frame.aliases[decl.short_name] = attr.name
                for redefined in decl.redefines:
                    if redefined.rsplit("::", 1)[-1] != attr.name:
                        self.ctx.journal.touch_part(frame, frame.aliases)
                        frame.aliases[redefined.rsplit("::", 1)[-1]] = attr.name
            if attr.is_item:
                continue
            if attr.value is None:
                frame.values[attr.name] = UNSET
            else:
                value = self.evaluator.eval(attr.value, frame, depth)
                frame.values[attr.name] = self.evaluator.store(frame, attr.name, attr.type_text, value,
                                                               "initial value of")
            if attr.type_text:
                self.ctx.journal.touch_part(frame, frame.types)
                frame.types[attr.name] = attr.type_text

    def _node_body(self, token: Token, node: Node) -> BodyRun:
        flow = token.flow
        body = node.body
        if body is None or node.kind is NodeKind.START:
            return
        frame = self._node_frame(flow, node) if node.kind is NodeKind.ACTION else flow.frame
        depth = flow.depth
        if node.kind is NodeKind.ACTION:
            if body.performs is None:
                self._start_frame(body.attributes, frame, depth)
            else:
                self.init_attributes(body.attributes, frame, depth)
            if body.performs is not None and body.performs.base_kind in ("verification", "analysis", "case"):
                yield from self._perform_case(body.performs, node, flow, frame)
                return
            if body.performs is not None and not body.statements and body.flow is None:
                yield from self._perform_action(body.performs, frame, body.bindings, depth, flow.frame, node.name,
                                                body.outputs)
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
        self._pin(flow.frame.pin_holder(), node.name, inner, flow.frame)
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
        case_flow.performer = (self.mover_token, name)
        case_flow.start()
        yield from self._drive(case_flow)
        trace.flush_left(f"leave action node: verification {name}")
        result: Value = UNSET
        for r in returns:
            trace.at(depth + 1, "stmt return")
            result = self.evaluator.eval(r.value, inner, depth + 2) if r.value is not None else UNSET
            inner.values[r.name or "result"] = result
        trace.flush_left(f"exit verification {name} -> {spell(result)}")

    def _perform_action(self, action: Element, frame: Frame, bindings: Bindings, depth: int, caller: Frame,
                        name: str, outputs: Bindings = (), graph: ActionGraph | None = None
                        ) -> Generator[Wait, None, Flow | None]:
        """An action performed in an executor of its own: its steps are written with its step lines
        (`graph`: its flow with the usage's own statements beside it, when the usage states some); the
        flow it performed (None: not an action)."""
        if action.base_kind != "action":
            return None
        own_statements = graph is not None
        graph = graph or self.ctx.program.graph(action)
        chain = self._performance_chain(action.name)
        if len(chain) > MAX_PERFORMANCE_DEPTH:
            raise performances_too_deep(chain)
        inner = self._callee_frame(action, frame, bindings, caller, name, depth, outputs,
                                   enclosing=caller if own_statements else None)
        performed = Flow(self, graph, inner, FlowKind.PERFORMED, depth, action.name)
        performed.performer = (self.mover_token, name)
        performed.start()
        yield from self._drive(performed)
        self._return_outputs(graph, inner, caller, outputs)
        return performed

    def _performance_chain(self, name: str) -> list[str]:
        """The performed actions around the current flow, outermost first, ending with `name`."""
        names = [name]
        flow = self.current_flow
        while flow is not None:
            if flow.kind is FlowKind.PERFORMED:
                names.append(flow.label)
            flow = flow.outer
        names.append(self.root.label)
        names.reverse()
        return names

    def _callee_frame(self, action: Element, frame: Frame, bindings: Bindings, caller: Frame, name: str,
                      depth: int, outputs: Bindings = (), enclosing: Frame | None = None) -> Frame:
        """The features a performance of `action` starts with: bound inputs, then its own values.

        `enclosing`: the frame around a typed usage that states statements of its own; those statements
        are written in the usage's scope, so a name the performance does not hold is read from there."""
        graph = self.ctx.program.graph(action)
        inner = Frame(action.name, action, enclosing)
        holder = caller.pin_holder()
        self._place(inner, holder, name, caller)
        for attr in graph.attributes:
            if attr.direction:
                inner.directions[attr.name] = attr.direction
        for pname, expr in bindings:
            inner.values[pname] = self.evaluator.eval(expr, frame, depth)
        given = self._connect_in(inner, depth)
        bound_out = {pname for pname, _ in outputs}
        for attr in graph.attributes:
            if attr.name in inner.values:
                continue
            if attr.direction in ("in", "inout", "out") and attr.value is None:
                # an output bound to a feature starts unset; an unbound one reads the same-named feature
                same = caller.holder_of(attr.name) if attr.name not in bound_out else None
                inner.values[attr.name] = same.values[attr.name] if same is not None else UNSET
                continue
            if attr.direction == "in" and attr.value_kind is not s.FeatureValueKind.INITIAL:
                # evaluated when first read (a literal's value known at once, for a run that never reads it)
                known = (self.evaluator.literal(attr.value),) if isinstance(attr.value, s.Literal) else ()
                inner.values[attr.name] = Deferred(attr.value, known)
                continue
            if attr.is_item:
                continue
            inner.values[attr.name] = UNSET if attr.value is None else self.evaluator.store(
                inner, attr.name, attr.type_text, self.evaluator.eval(attr.value, inner, depth), "initial value of")
        bound_in = {pname for pname, _ in bindings} | given
        for attr in graph.attributes:
            if attr.type_text and not attr.is_item:
                inner.types[attr.name] = attr.type_text  # the performance's own writes are checked too
                if attr.name in bound_in:
                    inner.values[attr.name] = self.evaluator.store(inner, attr.name, attr.type_text,
                                                                   inner.values[attr.name], "binding of")
        self._pin(holder, name, inner, caller)
        return inner

    def _return_outputs(self, graph: ActionGraph, inner: Frame, caller: Frame, outputs: Bindings = ()) -> None:
        """A performed action's outputs return when it ends: a bound one (`inout acc = total;`) to the
        feature it is bound to, the others to the same-named features around the node."""
        bound = dict(outputs)
        for pname, target in outputs:
            value = inner.values.get(pname, UNSET)
            path = _target_path(target)
            if value is UNSET:
                raise RunError(f"assignment to {path}: multiplicity violation: 0 value(s) bound to a feature "
                               f"with multiplicity lower bound 1 ({inner.label}'s {pname} ended with no value)",
                               path)
            self._assign(path, value, caller, 0)
        for attr in graph.attributes:
            if attr.direction in ("out", "inout") and attr.name not in bound:
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
                self.ctx.journal.touch(flow)
                flow.step_no = step_no
                yield Wait("nested flow waits", lambda: self._flow_ready(flow))
                continue
            if progressed:
                self.work += 1
                waiting = False
                self._hide(flow)
            if flow.finished:
                break
            if progressed and self.step_nested:
                yield Wait("nested step", lambda: True)  # each step of it one move of the do behavior
                continue
            if not progressed:
                if any(t.waiting_accept or t.body is not None for t in self.all_tokens(flow)):
                    waiting = True
                    self._show(flow)
                    yield Wait("nested flow waits", lambda: self._flow_ready(flow))
                    continue
                waiters = [t.wake for t in self.all_tokens(flow) if t.wake is not None]
                if waiters:
                    due = min(w for w in waiters if w is not None)
                    token = self.mover_token
                    if token is not None and self.ctx.clock.now < due:
                        yield from self._token_waits(token, due)
                    else:
                        self.ctx.clock.advance_to(due)
                    if flow.kind is FlowKind.PERFORMED and self.mover_token is not None:
                        self.ctx.journal.touch(self.mover_token)
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
            self.ctx.journal.touch(self.displayed)
            for t in self.all_tokens(flow):
                self.displayed[t.id] = (t.flow.node_label(t), [flow.label])

    def _hide(self, flow: Flow) -> None:
        for t in list(self.displayed):
            if self.displayed[t][1] == [flow.label]:
                self.ctx.journal.touch(self.displayed)
                del self.displayed[t]


