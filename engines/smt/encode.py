"""The transition relation over k moves: the state of a fine run as solver variables per move, the
choice of move as a variable, and one move's effect written by a guarded walk that mirrors the
executor (engines/runtime/actions): each operation applies under a path condition, so the branches
of one move compose, and a run error ends the move where the executor raises it.

The state: per place the tokens standing there (at a join-like place, per succession that reached
it) and whether its token is inside the flow it entered; per feature its value and whether it has
one; the error the run failed with (0: none) and the overflow flag (a second token entering a
place whose token is still inside, which the slots do not hold)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import z3

from engines.runtime.calls import CALCULATIONS
from engines.smt.net import Act, Feature, Matcher, Net, NotCovered, Place, Sort, signal_arguments, signal_slot
from engines.smt.terms import INT64, LIBRARY_SCALAR, Enums, Term, Translator, kind_of, variable
from ir import syntax as s
from ir.graphs import NodeKind
from ir.lower import may_hold_none
from ir.model import Element
from ir.resolve import lookup


@dataclass(frozen=True)
class Choice:
    """A move the schedule may take: the token at `place` (a decision's `branch` when its guards overlap),
    or (`place` CLOCK) time passing to the earliest wake of an `accept after`, as a run lets it pass
    where no move is enabled (no move of the interpreter's: a replay lets time pass itself)."""

    place: int
    branch: str | None = None

    @property
    def clock(self) -> bool:
        return self.place == CLOCK


CLOCK = -1


@dataclass
class ErrorSite:
    place: int
    what: str


@dataclass
class Free:
    """A feature the question leaves open: its domain, and (optional) the value the model gives it."""

    feature: Feature


State = dict[Any, Any]
COUNT_BITS = 4  # tokens at one place: a move that would make 8 sets the overflow flag
ERR_BITS = 12  # error sites
TAG_BITS = 8  # a message's tag (its kind, or its signal) and its address
TAGS = {"int": 1, "real": 2, "bool": 3, "str": 4}  # a message's tag by its value's kind; signals from 5 on
SLOT_VALUE = {"int": "int", "real": "real", "bool": "flag", "str": "text"}  # the slot part holding a kind's value


def slot_zero(part: str) -> Any:
    """What a bus slot's part holds before any message: also what a send leaves in the parts its
    message does not use."""
    if part in ("tag", "to"):
        return z3.BitVecVal(0, TAG_BITS)
    return {"int": z3.IntVal(0), "real": z3.RealVal(0), "flag": z3.BoolVal(False), "text": z3.StringVal(""),
            "occ": z3.BoolVal(False)}[part]


def at_most_one(conditions: Sequence[Any]) -> Any:
    return z3.And([z3.Not(z3.And(a, b)) for i, a in enumerate(conditions) for b in conditions[i + 1:]])




@dataclass
class Encoding:
    net: Net
    k: int
    enums: Enums
    choices: list[Choice]
    errors: list[ErrorSite]
    free: list[Feature]
    initial: dict[int, Any]  # feature -> a python value (int, Fraction, bool, enum literal name) or None
    keys: list[Any] = field(default_factory=list)
    constraints: list[Any] = field(default_factory=list)


def _adds_to(update: Any, var: Any) -> bool:
    """Whether the update of `var` only adds to it, whatever the state: `var + t` or `var - t` (a number),
    `var ∨ t` or true (a Boolean), under conditions, with t and the conditions free of var."""
    if update.eq(var):
        return True
    if z3.is_app_of(update, z3.Z3_OP_ITE):
        cond, then, other = update.children()
        return not _mentions(cond, var) and _adds_to(then, var) and _adds_to(other, var)
    if z3.is_bool(var) and z3.is_true(update):
        return True
    if z3.is_add(update) or z3.is_or(update) or z3.is_sub(update):
        kids = update.children()
        own = [i for i, kid in enumerate(kids) if _mentions(kid, var)]
        if len(own) != 1 or (z3.is_sub(update) and own[0] != 0):
            return False
        return _adds_to(kids[own[0]], var)
    return False


SIMPLIFIED = 2_000  # the most terms a condition is simplified with: past it, it is taken as it stands


def _true_given(expr: Any, true: list[tuple[Any, Any]]) -> bool:
    """Whether `expr` is true once the `true` flags are (False where it is too large to simplify)."""
    return _small(expr) and bool(z3.is_true(z3.simplify(z3.substitute(expr, *true)) if true else z3.simplify(expr)))


def _small(expr: Any) -> bool:
    stack, seen = [expr], set()
    while stack:
        e = stack.pop()
        if e.get_id() in seen:
            continue
        seen.add(e.get_id())
        if len(seen) > SIMPLIFIED:
            return False
        stack.extend(e.children())
    return True


def _mentions(expr: Any, var: Any) -> bool:
    stack, seen = [expr], set()
    while stack:
        e = stack.pop()
        if e.eq(var):
            return True
        if e.get_id() not in seen:
            seen.add(e.get_id())
            stack.extend(e.children())
    return False


class _Move:
    """One move written as guarded updates of a state (see the module docstring)."""

    def __init__(self, enc: Builder, state: State, place: Place) -> None:
        self.b = enc
        self.net = enc.net
        self.st = dict(state)
        self.where = place
        self.fails = 0

    # -- tokens

    def add(self, pc: Any, key: Any, delta: int) -> None:
        if z3.is_false(pc):
            return
        if key in self.b.safe:
            self.st[key] = z3.If(pc, z3.BoolVal(delta > 0), self.st[key])
            return
        self.st[key] = z3.If(pc, self.st[key] + z3.BitVecVal(delta, COUNT_BITS), self.st[key])

    def set(self, pc: Any, key: Any, value: Any) -> None:
        self.st[key] = z3.If(pc, value, self.st[key])

    def fail(self, pc: Any, err: Any, what: str) -> Any:
        """The run fails under pc ∧ err; the rest of the move goes on under pc ∧ ¬err."""
        if z3.is_false(z3.simplify(err)):
            return pc
        self.fails += 1
        site = self.b.site((self.where.index, self.fails), what)
        self.set(z3.And(pc, err, self.st["err"] == 0), "err", z3.BitVecVal(site, ERR_BITS))
        return z3.And(pc, z3.Not(err))

    def arrive(self, pc: Any, flow: int, node: int, via: int | None) -> None:
        target = self.net.places[self.net.flows[flow].places[node]]
        if target.act is Act.AFTER:
            # each token waits from its own arrival, which the place's one wake cannot count apart
            self.set(z3.And(pc, self.b.some(self.st, ("cnt", target.index))), "ovf", z3.BoolVal(True))
        if target.multiplicity > 1:
            # a token reaching a step whose performances are under way would start a group of its own,
            # which the place does not count apart: the bound reached, never a wrong answer
            self.set(z3.And(pc, self.st[("grp", target.index)] > 0), "ovf", z3.BoolVal(True))
        if target.joinlike and via is not None:
            self.add(pc, ("via", target.index, via), 1)
        else:
            self.add(pc, ("cnt", target.index), 1)

    def flow_empty(self, flow: int) -> Any:
        return z3.Not(z3.Or([self.b.occupied(self.st, p) for p in self.net.flow_places(flow)]))

    def maybe_leave(self, pc: Any, flow: int) -> None:
        """A flow entered by a node's token that has no token left: the token comes out and goes on."""
        ctx = self.net.flows[flow]
        if ctx.parent is None:
            return
        self.come_out(z3.And(pc, self.flow_empty(flow)), self.net.places[ctx.parent])

    def come_out(self, pc: Any, parent: Place) -> None:
        """The token that entered a flow comes out of it (a performance writing its outputs back) and
        goes on, or (a loop's) stands for the loop's next move."""
        if parent.returns:
            pc = self.end_performance(pc, parent)
        self.set(pc, ("in", parent.index), z3.BoolVal(False))
        if parent.group is not None:  # a performance of a step of multiplicity: the last to end goes on
            key = ("grp", parent.group)
            left = self.st[key]
            self.set(pc, key, left - 1)
            pc = z3.And(pc, left == 1)
        self.add(pc, ("cnt", parent.index), 1)
        if parent.act not in (Act.WHILE, Act.FOR, Act.UNTIL):
            self.follow(pc, parent)

    def terminate(self, pc: Any, flow: int) -> None:
        """`terminate;` in `flow`: every token of it (and of the flows they entered) is dropped. The
        run ends in the root flow; a node whose body it is ends and goes on; in an `if` branch or a
        loop pass, the performance the statement is part of ends as if it stood there, and in a
        terminate action usage's body (its implicit terminate among them) the performance the usage
        is a step of ends."""
        for inner in self.net.flows_within(flow):
            for index in self.net.flow_places(inner):
                for key, cleared in self.b.tokens_of(index):
                    self.set(pc, key, cleared)
        ctx = self.net.flows[flow]
        if ctx.parent is None:
            return
        parent = self.net.places[ctx.parent]
        body = parent.node.body
        if parent.act in (Act.IF, Act.WHILE, Act.FOR, Act.UNTIL) or (body is not None and body.terminate):
            # a branch or pass: the performance the statement is part of ends; a terminate action
            # usage (its implicit terminate, or a `terminate;` in its body): the one it is a step of,
            # once the usage has completed with its pins (a pin bound out is written back first)
            if parent.returns:
                pc = self.end_performance(pc, parent)
            self.terminate(pc, parent.flow)
            return
        self.come_out(pc, parent)

    # -- one node

    def perform(self, pc: Any, place: Place, branch: str | None) -> None:
        for part in place.touches:
            self.set(pc, ("made", part), z3.BoolVal(True))  # the object is made where a move first reads it
        if place.multiplicity > 1:
            self.group(pc, place)
            return
        if place.joinlike:
            # one token over each succession that delivered: a second over one waits for the next
            for src in self.net.sources(place):
                came = ("via", place.index, src)
                self.add(z3.And(pc, self.b.some(self.st, came)), came, -1)
            self.add(pc, ("cnt", place.index), 1)
            if place.act is Act.JOIN:
                self.follow(pc, place)
                return
        act = place.act
        if act is Act.FOLLOW or act is Act.JOIN:
            self.follow(pc, place)
        elif act is Act.DONE:
            self.add(pc, ("cnt", place.index), -1)
            self.maybe_leave(pc, place.flow)
        elif act is Act.FORK:
            self.add(pc, ("cnt", place.index), -1)
            graph = self.net.flows[place.flow].graph
            outgoing = graph.outgoing(place.node.index)
            if not outgoing:
                self.maybe_leave(pc, place.flow)
            # the branches' tokens arrive as the fork's goes: a branch or pass it is in goes on
            for e in outgoing:
                self.arrive(pc, place.flow, e.target, place.node.index)
        elif act is Act.DECIDE:
            self.decide(pc, place, branch)
        elif act is Act.ASSIGN:
            stmt = place.statement
            assert isinstance(stmt, s.Assign)
            pc = self.assign(pc, place.flow, stmt)
            self.follow(pc, place)
        elif act is Act.ENTER:
            self.enter(pc, place)
        elif act is Act.IF:
            stmt = place.statement
            assert isinstance(stmt, s.If)
            pc, cond = self.condition(pc, place.flow, stmt.condition)
            then, other = place.children
            for taken, child in ((z3.And(pc, cond), then), (z3.And(pc, z3.Not(cond)), other)):
                if child < 0:
                    self.follow(taken, place)
                else:
                    self.go_inside(taken, place, child)
        elif act is Act.UNTIL:
            stmt = place.statement
            assert isinstance(stmt, s.LoopUntil)
            key = ("started", place.index)
            first = z3.And(pc, z3.Not(self.st[key]))
            later = z3.And(pc, self.st[key])
            if stmt.until is None:
                holds: Any = z3.BoolVal(False)
            else:
                later, holds = self.condition(later, place.flow, stmt.until)
            self.set(first, key, z3.BoolVal(True))
            self.set(z3.And(later, holds), key, z3.BoolVal(False))
            self.follow(z3.And(later, holds), place)
            self.go_inside(z3.Or(first, z3.And(later, z3.Not(holds))), place, place.children[0])
        elif act is Act.FOR:
            self.for_pass(pc, place)
        elif act is Act.SEND:
            self.send(pc, place)
        elif act is Act.ACCEPT:
            self.accept(pc, place)
        elif act is Act.WHEN:
            pc, _ = self.condition(pc, place.flow, self.b.when_of(place))
            self.follow(pc, place)
        elif act is Act.AFTER:
            self.wait(pc, place)
        elif act is Act.TERMINATE:
            self.terminate(pc, place.flow)
        elif act is Act.WHILE:
            stmt = place.statement
            assert isinstance(stmt, s.While)
            if stmt.until is not None:
                # `while c { ... } until u;`: after a pass u is read first and ends the loop when it holds,
                # then c as before every pass
                started = self.st[("started", place.index)]
                later, ends = self.condition(z3.And(pc, started), place.flow, stmt.until)
                self.follow(z3.And(later, ends), place)
                pc = z3.Or(z3.And(pc, z3.Not(started)), z3.And(later, z3.Not(ends)))
            pc, cond = self.condition(pc, place.flow, stmt.condition)
            if stmt.until is not None:
                self.set(z3.And(later, ends), ("started", place.index), z3.BoolVal(False))
                self.set(pc, ("started", place.index), cond)
            self.follow(z3.And(pc, z3.Not(cond)), place)
            self.go_inside(z3.And(pc, cond), place, place.children[0])

    def wait(self, pc: Any, place: Place) -> None:
        """An `accept after` (`at`): its first move sets the wake (now + the duration, or the instant) and
        goes on at once if that is not later than now; a later move (enabled once the clock reaches the
        wake) goes on."""
        now, armed, wake = self.st["now"], self.st[("armed", place.index)], self.st[("wake", place.index)]
        due = z3.If(armed, wake, z3.RealVal(place.duration) if place.absolute else now + z3.RealVal(place.duration))
        goes = z3.And(pc, now >= due)
        self.set(pc, ("wake", place.index), due)
        self.set(pc, ("armed", place.index), z3.Not(now >= due))
        self.follow(goes, place)

    def group(self, pc: Any, place: Place) -> None:
        """A step of multiplicity m: the first move puts m performances at the place; each then performs
        the body, and the last to end goes on (the others end there)."""
        key = ("grp", place.index)
        left = self.st[key]
        start = z3.And(pc, left == 0)
        self.set(start, key, z3.IntVal(place.multiplicity))
        if place.members:  # each a flow of its own: a token at each, which comes out in come_out
            self.add(start, ("cnt", place.index), -1)
            for member in place.members:
                self.add(start, ("cnt", member), 1)
            return
        self.add(start, ("cnt", place.index), place.multiplicity - 1)
        pc = z3.And(pc, left > 0)
        stmt = place.statement
        if place.act is Act.ASSIGN:
            assert isinstance(stmt, s.Assign)
            pc = self.assign(pc, place.flow, stmt)
        self.set(pc, key, left - 1)
        self.follow(z3.And(pc, left == 1), place)
        self.add(z3.And(pc, left > 1), ("cnt", place.index), -1)

    def condition(self, pc: Any, flow: int, expr: s.Expr) -> tuple[Any, Any]:
        """The statement's condition read: the path condition past its error, and its value."""
        term, err = self.b.translate(self.st, flow, expr, self.where.node.name)
        if term.kind != "bool":
            raise NotCovered(self.where.node.name, "a condition that is not Boolean")
        return self.fail(pc, err, "condition"), term.value

    def send(self, pc: Any, place: Place) -> None:
        """The payload put on the bus behind the messages already there (past its slots: overflow)."""
        stmt = place.statement
        assert isinstance(stmt, s.Send)
        written = {part: self.b.slot_zero(part) for part in self.b.slot_parts}
        if place.signal is not None:
            tag = self.b.tag_of("signal:" + place.signal)
            fields = self.net.signal_fields.get(place.signal, ())
            given = signal_arguments(stmt.payload, fields)
            assert not isinstance(given, str)  # refused when the net was built
            for (field, sort), expr in zip(fields, given, strict=True):
                # the arguments read in order as the interpreter constructs the signal's object
                term, err = self.b.translate(self.st, place.flow, expr, place.node.name)
                pc = self.fail(pc, err, "send")
                if term.kind != sort.kind and not (sort.kind == "real" and term.kind == "int"):
                    raise NotCovered(place.node.name, f"a send of {place.signal} giving '{field}' a {term.kind} value")
                value = z3.ToReal(term.value) if sort.kind == "real" and term.kind == "int" else term.value
                written[signal_slot(place.signal, field)] = value
            if "objs" in self.st:
                # the object the construction makes: numbered in the order the run makes objects
                written["obj"] = self.st["objs"]
                self.set(pc, "objs", self.st["objs"] + 1)
        else:
            term, err = self.b.translate(self.st, place.flow, stmt.payload, place.node.name)
            pc = self.fail(pc, err, "send")
            if term.kind not in TAGS:
                raise NotCovered(place.node.name, f"a send of a {term.kind} value")
            tag = self.b.tag_of(term.kind)
            written[SLOT_VALUE[term.kind]] = term.value
        written["tag"] = z3.BitVecVal(tag, TAG_BITS)
        if "to" in written:
            to = 0 if place.receiver is None else 1 + self.net.receivers.index(place.receiver)
            written["to"] = z3.BitVecVal(to, TAG_BITS)
        slots = self.net.bus_slots()
        occupied = [self.st[("occ", i)] for i in range(slots)]
        self.set(z3.And(pc, occupied[-1]), "ovf", z3.BoolVal(True))
        for i in range(slots):
            # the messages stand in the first slots, oldest first: the first free one takes it
            here = z3.And(pc, z3.Not(occupied[i]), occupied[i - 1]) if i else z3.And(pc, z3.Not(occupied[0]))
            for part in self.b.slot_parts:
                self.set(here, (part, i), written[part])
            self.set(here, ("occ", i), z3.BoolVal(True))
        self.follow(pc, place)

    def accept(self, pc: Any, place: Place) -> None:
        """The oldest message the trigger matches taken off the bus (the ones behind it move up), its
        payload held by the accept's feature."""
        assert place.matcher is not None
        slots = self.net.bus_slots()
        before = {key: self.st[key] for key in self.st if key[0] == "occ" or key[0] in self.b.slot_parts}
        earlier: Any = z3.BoolVal(False)
        taken_by: list[Any] = []
        for i in range(slots):
            first = z3.And(before[("occ", i)], self.b.takes(before, place, i), z3.Not(earlier))
            taken_by.append(first)
            earlier = z3.Or(earlier, first)
        if place.locals and self.net.features[place.locals[0]].instance:
            for i, first in enumerate(taken_by):
                here = z3.And(pc, first)
                for index in place.locals:
                    feature = self.net.features[index]
                    value = before.get(("obj", i)) if feature.instance else \
                        self.b.field_at(before, place.matcher, feature.slot, i)
                    if value is None:
                        break  # no send puts this signal on the bus: the accept never takes one
                    self.set(here, ("val", index), value)
                    self.set(here, ("has", index), z3.BoolVal(True))
                    self.set(here, ("frac", index), z3.BoolVal(False))
        elif place.locals:
            feature = self.net.features[place.locals[0]]
            for i, first in enumerate(taken_by):
                here = z3.And(pc, first)
                tag = before[("tag", i)]
                value = self.payload_value(before, feature.sort.kind, i)
                if value is None:
                    continue  # no send puts such a value on the bus: the accept never takes one
                self.set(here, ("val", feature.index), value)
                self.set(here, ("has", feature.index), z3.BoolVal(True))
                self.set(here, ("frac", feature.index), tag == TAGS["real"])
        shifted: Any = z3.BoolVal(False)
        for i in range(slots - 1):
            shifted = z3.Or(shifted, taken_by[i])
            for part in (*self.b.slot_parts, "occ"):
                self.set(z3.And(pc, shifted), (part, i), before[(part, i + 1)])
        self.set(pc, ("occ", slots - 1), z3.BoolVal(False))  # enabled, so some message was taken
        self.follow(pc, place)

    @staticmethod
    def payload_value(slot: State, kind: str, i: int) -> Any:
        """The value in slot i an accept's payload of this kind holds (None when no send puts one
        there): a number as sent, converted to the payload's sort."""
        if kind in ("bool", "str"):
            return slot.get((SLOT_VALUE[kind], i))
        whole, real = slot.get(("int", i)), slot.get(("real", i))
        if kind == "int":
            whole, real = whole, None if real is None else z3.ToInt(real)
        else:
            whole, real = None if whole is None else z3.ToReal(whole), real
        if whole is None or real is None:
            return whole if real is None else real
        return z3.If(slot[("tag", i)] == TAGS["int"], whole, real)

    def for_pass(self, pc: Any, place: Place) -> None:
        """A `for` over a..b: the bounds read at its first move; each move after a pass starts the next
        (the variable the next element) or, past the last, completes. Over literals, the element of each
        pass is the literal there (no bound is read)."""
        stmt = place.statement
        assert isinstance(stmt, s.For)
        key = place.index
        first = z3.And(pc, z3.Not(self.st[("started", key)]))
        elements: list[Any] = []
        if place.collection is not None:
            for e in place.collection.elements:
                term, _ = self.b.translate(self.st, place.flow, e, place.node.name)  # a literal: no error
                elements.append(term.value)
            self.set(first, ("lo", key), z3.IntVal(0))
            self.set(first, ("n", key), z3.IntVal(len(elements)))
        else:
            assert isinstance(stmt.collection, s.Binary)
            lo, err_lo = self.b.translate(self.st, place.flow, stmt.collection.left, place.node.name)
            hi, err_hi = self.b.translate(self.st, place.flow, stmt.collection.right, place.node.name)
            if lo.kind != "int" or hi.kind != "int":
                raise NotCovered(place.node.name, "a range whose bounds are not Integers")
            pc = self.fail(pc, z3.And(first, z3.Or(err_lo, err_hi)), "range")
            first = z3.And(pc, z3.Not(self.st[("started", key)]))
            self.set(first, ("lo", key), lo.value)
            self.set(first, ("n", key), z3.If(hi.value >= lo.value, hi.value - lo.value + 1, 0))
        self.set(first, ("pass", key), z3.IntVal(0))
        self.set(first, ("started", key), z3.BoolVal(True))
        passes = self.st[("pass", key)]
        over = z3.And(pc, passes >= self.st[("n", key)])
        self.set(over, ("started", key), z3.BoolVal(False))
        self.follow(over, place)
        more = z3.And(pc, passes < self.st[("n", key)])
        (variable,) = place.locals
        element = self.st[("lo", key)] + passes
        for i in reversed(range(len(elements))):  # over literals: the one at this pass
            element = elements[i] if i == len(elements) - 1 else z3.If(passes == i, elements[i], element)
        self.set(more, ("val", variable), element)
        self.set(more, ("has", variable), z3.BoolVal(True))
        self.set(more, ("pass", key), passes + 1)
        self.go_inside(more, place, place.children[0])

    def go_inside(self, pc: Any, place: Place, child: int) -> None:
        key = ("in", place.index)
        self.set(z3.And(pc, self.st[key]), "ovf", z3.BoolVal(True))
        self.add(pc, ("cnt", place.index), -1)
        self.set(pc, key, z3.BoolVal(True))
        for flow, declared in place.clause_locals:
            if flow == child:  # a branch's or pass's features, as it starts
                pc = self.start_features(pc, place, child, declared)
        for payload in self.net.payloads_within(child):
            self.set(pc, ("has", payload.index), z3.BoolVal(False))
        graph = self.net.flows[child].graph
        for node in graph.initial:
            self.arrive(pc, child, node, None)
        if not graph.initial:
            self.maybe_leave(pc, child)

    def enter(self, pc: Any, place: Place) -> None:
        if place.performs is not None:
            # its features are reported from its first start on, a feature with no value as unset
            self.set(pc, ("begun", place.index), z3.BoolVal(True))
            pc = self.start_performance(pc, place)
            self.go_inside(pc, place, place.children[0])
            return
        if place.locals:
            # reported from its first start on, a feature with no value as unset
            self.set(pc, ("begun", place.index), z3.BoolVal(True))
        pc, given = self.give(pc, place)
        pc = self.start_features(pc, place, place.flow, place.locals, given)
        for own, pin in place.pinned:
            self.set(pc, ("val", pin), self.st[("val", own)])
            self.set(pc, ("has", pin), self.st[("has", own)])
        if place.children:
            self.go_inside(pc, place, place.children[0])
        else:
            if place.returns:
                pc = self.end_performance(pc, place)
            self.follow(pc, place)

    def give(self, pc: Any, place: Place, checked: bool = False) -> tuple[Any, dict[int, Any]]:
        """The pins flows and bindings give as the node's performance starts (Place.given), each with
        the condition under which it was given one; `checked` (a performed action's parameters): each
        value checked against the parameter's declared type as the interpreter checks a binding (a
        mismatch a run error), else copied as it is."""
        given: dict[int, Any] = {}
        for pin, source, by_flow in place.given:
            held = self.st[("has", source)] if by_flow else z3.BoolVal(True)
            if checked:
                value = Term(self.st[("val", source)], kind_of(self.net.features[source].sort),
                             unset=z3.Not(self.st[("has", source)]))
                pc = z3.Or(z3.And(pc, z3.Not(held)), self.store(z3.And(pc, held), self.net.features[pin], value))
            else:
                self.set(z3.And(pc, held), ("val", pin), self.st[("val", source)])
                self.set(z3.And(pc, held), ("has", pin), self.st[("has", source)])
            given[pin] = z3.Or(given[pin], held) if pin in given else held
        return pc, given

    def start_features(self, pc: Any, place: Place, flow: int, indices: tuple[int, ...],
                       given: dict[int, Any] | None = None) -> Any:
        """The features `place` owns set from their initial values, in order: each reads the ones set
        before it and the names `flow` sees (a node's body around it, a branch's or pass's statement);
        a pin `given` a value keeps it where it was given one."""
        for index in indices:
            feature = self.net.features[index]
            if given and index in given:
                own = z3.And(pc, z3.Not(given[index]))
                rest = self.start_features(own, place, flow, (index,))
                pc = z3.Or(z3.And(pc, given[index]), rest)
                continue
            if feature.decl.value is None:
                # unset until written, as the interpreter starts it (reading it before fails)
                self.set(pc, ("has", feature.index), z3.BoolVal(False))
                continue
            term, err = self.b.translate(self.st, flow, feature.decl.value, place.node.name, owner=place.index,
                                         upto=index)
            pc = self.fail(pc, err, f"initial value of {feature.local}")
            pc = self.store(pc, feature, term)
        return pc

    def start_performance(self, pc: Any, place: Place) -> Any:
        """A performed action's features started as the interpreter starts them: every binding (read
        around the node, checked against its type), then what flows and bindings give its parameters
        (checked against their types), then each other feature in order."""
        ready: set[int] = set()
        for i, start in enumerate(place.starts):
            if start.how == "bound":
                pc = self.start_one(pc, place, i, ready)
                ready.add(place.locals[i])
        pc, given = self.give(pc, place, checked=True)
        ready |= given.keys()
        for i, start in enumerate(place.starts):
            if start.how == "bound":
                continue
            index = place.locals[i]
            if index in given:
                rest = self.start_one(z3.And(pc, z3.Not(given[index])), place, i, ready)
                pc = z3.Or(z3.And(pc, given[index]), rest)
            else:
                pc = self.start_one(pc, place, i, ready)
            ready.add(index)
        return pc

    def start_one(self, pc: Any, place: Place, i: int, ready: Collection[int]) -> Any:
        """One feature of a performed action started by its `Start`."""
        start, feature = place.starts[i], self.net.features[place.locals[i]]
        where = place.node.name
        if start.how == "bound":
            assert start.expr is not None
            term, err = self.b.translate(self.st, place.flow, start.expr, where)
            pc = self.fail(pc, err, f"binding of {feature.local}")
            return self.store(pc, feature, term)
        if start.how == "value":
            assert start.expr is not None
            term, err = self.b.translate(self.st, place.flow, start.expr, where, owner=place.index,
                                         ready=frozenset(ready))
            pc = self.fail(pc, err, f"initial value of {feature.local}")
            return self.store(pc, feature, term)
        if start.how == "same":
            assert start.same is not None
            self.set(pc, ("val", feature.index), self.st[("val", start.same)])
            self.set(pc, ("has", feature.index), self.st[("has", start.same)])
            return pc
        self.set(pc, ("has", feature.index), z3.BoolVal(False))
        return pc

    def end_performance(self, pc: Any, place: Place) -> Any:
        """A performed action's outputs written around the node as its performance ends."""
        for r in place.returns:
            inner, outer = self.net.features[r.inner], self.net.features[r.outer]
            value, has = self.st[("val", inner.index)], self.st[("has", inner.index)]
            if r.bound:
                pc = self.fail(pc, z3.Not(has), f"output {inner.local} with no value")
                pc = self.store(pc, outer, Term(value, kind_of(inner.sort)))
            else:
                self.set(pc, ("val", outer.index), value)
                self.set(pc, ("has", outer.index), has)
        return pc

    def store(self, pc: Any, feature: Feature, term: Term) -> Any:
        """A value written to a feature, checked against its declared type as the evaluator checks it; a
        copied feature with no value leaves it with none."""
        if term.unset is not None:
            self.set(z3.And(pc, term.unset), ("has", feature.index), z3.BoolVal(False))
            written = self.store(z3.And(pc, z3.Not(term.unset)), feature, Term(term.value, term.kind))
            return z3.Or(z3.And(pc, term.unset), written)
        sort = feature.sort
        value = term.value
        if (sort.kind in ("int", "real") and term.kind not in ("int", "real")) or \
                (sort.kind in ("bool", "str") and term.kind != sort.kind) or \
                (sort.kind == "enum" and term.kind != kind_of(sort)):
            raise NotCovered(self.where.node.name, f"a {term.kind} value stored into {feature.name}")
        if not sort.type_text and sort.kind != term.kind:
            # an untyped feature holds the value as it is: its sort would change
            raise NotCovered(self.where.node.name, f"a {term.kind} value stored into the untyped {feature.name}")
        if sort.kind == "int":
            if term.kind == "real":
                pc = self.fail(pc, z3.Not(z3.IsInt(value)), f"type of {feature.name}")
                value = z3.ToInt(value)
            if sort.low is not None:
                pc = self.fail(pc, value < sort.low, f"type of {feature.name}")
        elif sort.kind == "real" and term.kind == "int":
            value = z3.ToReal(value)
        self.set(pc, ("val", feature.index), value)
        self.set(pc, ("has", feature.index), z3.BoolVal(True))
        return pc

    def assign(self, pc: Any, flow: int, stmt: s.Assign) -> Any:
        name = self.where.node.name
        if stmt.target.startswith("this."):  # a free action is its own context: `this.c` is c around
            stmt = replace(stmt, target=stmt.target.removeprefix("this."))
        term, err = self.b.translate(self.st, flow, stmt.value, name)
        # a feature copied as it is (`r := p.v`) into one that may hold none (`[0..1]`) copies having no
        # value too, as the interpreter does; into any other, and an operator over it, it fails
        copy = term.unset is not None and isinstance(stmt.value, (s.Name, s.Chain)) and "." not in stmt.target
        target = self.net.resolve(stmt.target, flow) if copy else None
        if not (target is not None and may_hold_none(target.decl.decl)):
            pc = self.fail(pc, z3.Or(err, term.unset) if copy else err, f"assign {stmt.target}")
        if "." in stmt.target:
            part = self.net.part_feature(stmt.target)
            if part is None:
                raise NotCovered(name, f"assignment to the feature chain {stmt.target}")
            if part.sort.kind != term.kind or (part.sort.kind == "enum" and term.kind != kind_of(part.sort)):
                raise NotCovered(name, f"a {term.kind} value stored into {part.name}")
            # a part's object holds what is written, no type check
            self.set(pc, ("val", part.index), term.value)
            return pc
        feature = self.net.resolve(stmt.target, flow)
        if feature is None:
            raise NotCovered(name, f"assignment to '{stmt.target}', which is no feature of the action")
        if feature.constant:
            return self.fail(pc, z3.BoolVal(True), f"assign {stmt.target}: read-only")
        return self.store(pc, feature, term)

    def guards(self, pc: Any, place: Place, edges: Sequence[Any]) -> tuple[Any, list[Any]]:
        """The edges' guards read in order (an error in one fails the move there)."""
        out = []
        for e in edges:
            if e.guard is None:
                out.append(z3.BoolVal(True))
                continue
            term, err = self.b.translate(self.st, place.flow, e.guard, place.node.name)
            if term.kind != "bool":
                raise NotCovered(place.node.name, "a guard that is not Boolean")
            pc = self.fail(pc, err, "guard")
            out.append(term.value)
        return pc, out

    def follow(self, pc: Any, place: Place) -> None:
        """Every succession whose guard holds: one keeps the token, several fork it, none consumes it."""
        graph = self.net.flows[place.flow].graph
        edges = graph.outgoing(place.node.index)
        pc, holds = self.guards(pc, place, edges)
        self.add(pc, ("cnt", place.index), -1)
        none = z3.Not(z3.Or(holds)) if holds else z3.BoolVal(True)
        self.maybe_leave(z3.And(pc, none), place.flow)
        for e, h in zip(edges, holds, strict=True):
            self.arrive(z3.And(pc, h), place.flow, e.target, place.node.index)

    def decide(self, pc: Any, place: Place, branch: str | None) -> None:
        graph = self.net.flows[place.flow].graph
        edges = [e for e in graph.outgoing(place.node.index) if not e.is_else]
        if branch is not None:
            edges = [e for e in edges if graph.nodes[e.target].name == branch]
        taken = z3.BoolVal(False)
        self.add(pc, ("cnt", place.index), -1)
        for e in edges:
            if e.guard is None:
                h = z3.BoolVal(True)
            else:
                term, err = self.b.translate(self.st, place.flow, e.guard, place.node.name)
                # guards are read in order until one holds: an error past that one is never raised
                pc = self.fail(pc, z3.And(z3.Not(taken), err), "guard")
                h = term.value
            self.arrive(z3.And(pc, z3.Not(taken), h), place.flow, e.target, place.node.index)
            taken = z3.Or(taken, h)
        else_edges = [e for e in graph.outgoing(place.node.index) if e.is_else]
        if branch is None:
            if else_edges:
                self.arrive(z3.And(pc, z3.Not(taken)), place.flow, else_edges[0].target, place.node.index)
            else:
                self.add(z3.And(pc, z3.Not(taken)), ("cnt", place.index), 1)
                self.fail(z3.And(pc, z3.Not(taken)), z3.BoolVal(True), "no branch holds")


class Builder:
    """Builds the Encoding of a net over k moves, one copy of the state per move."""

    def __init__(self, net: Net, k: int, free: Sequence[str] = (), safe: frozenset[Any] = frozenset()) -> None:
        self.net = net
        self.k = k
        self.enums = Enums()
        self.errors: list[ErrorSite] = []
        self.site_ids: dict[tuple[int, int], int] = {}
        self.choices = self._choices()
        self.field_sorts: dict[str, Sort] = {}  # a signal feature's slot part -> its domain
        self.slot_parts = self._slot_parts()
        self.keys = self._keys()
        # a place no run can hold two tokens at (net.move_bound): its counts are Booleans
        self.safe = frozenset(key for key in self.keys if key in safe)
        self.free_names = set(free)

    def site(self, key: tuple[int, int], what: str) -> int:
        """The number of an error site: the n-th place a move at one place may fail, the same every move."""
        if key not in self.site_ids:
            self.errors.append(ErrorSite(key[0], what))
            self.site_ids[key] = len(self.errors)
        return self.site_ids[key]

    # -- layout

    def _choices(self) -> list[Choice]:
        out: list[Choice] = []
        for place in self.net.places:
            out.append(Choice(place.index))
            if place.act is Act.DECIDE:
                graph = self.net.flows[place.flow].graph
                names: list[str] = []
                for e in graph.outgoing(place.node.index):
                    name = graph.nodes[e.target].name
                    if not e.is_else and name not in names:
                        names.append(name)
                out.extend(Choice(place.index, n) for n in names)
        if self.net.clocked:
            out.append(Choice(CLOCK))
        return out

    def _slot_parts(self) -> tuple[str, ...]:
        """What a bus slot holds: its tag, and only the values some send can put there (an Integer, a
        Rational, a Boolean) and its address if any send has one, so the query carries no real
        arithmetic a model never sends."""
        sends = [p for p in self.net.places if p.act is Act.SEND]
        if not sends:
            return ("tag",) if self.net.messages else ()  # accepts only: the bus stays empty
        probe: State = {}
        for f in self.net.features:
            probe[("val", f.index)] = variable(f"probe{f.index}", f.sort, self.enums)
            probe[("has", f.index)] = z3.Bool(f"probe_has{f.index}")
        kinds = set()
        fields: list[str] = []
        for place in sends:
            if place.signal is None:
                assert isinstance(place.statement, s.Send)
                kinds.add(self.translate(probe, place.flow, place.statement.payload, place.node.name)[0].kind)
            else:
                for field, sort in self.net.signal_fields.get(place.signal, ()):
                    part = signal_slot(place.signal, field)
                    if part not in fields:
                        fields.append(part)
                        self.field_sorts[part] = sort
        parts = ["tag"] + [SLOT_VALUE[kind] for kind in TAGS if kind in kinds] + fields
        if self.net.numbers_objects:
            parts.append("obj")  # the number of the signal's object, which an accept's payload reports
        return tuple(parts + (["to"] if self.net.receivers else []))

    def slot_zero(self, part: str) -> Any:
        """`slot_zero`, for a signal's feature the zero of its domain, for an object's number 0."""
        if part == "obj":
            return z3.IntVal(0)
        sort = self.field_sorts.get(part)
        return default_of(sort, self.enums) if sort is not None else slot_zero(part)

    def _keys(self) -> list[Any]:
        keys: list[Any] = ["err", "ovf"]
        for place in self.net.places:
            keys.append(("cnt", place.index))
            if place.joinlike:
                keys.extend(("via", place.index, src) for src in self.net.sources(place))
            if place.act in (Act.ENTER, Act.IF, Act.WHILE, Act.FOR, Act.UNTIL):
                keys.append(("in", place.index))
            if place.act is Act.UNTIL or (place.act is Act.WHILE and isinstance(place.statement, s.While)
                                          and place.statement.until is not None):
                keys.append(("started", place.index))
            if place.performs is not None or place.locals:
                keys.append(("begun", place.index))
            if place.multiplicity > 1:
                keys.append(("grp", place.index))
            if place.act is Act.FOR:
                keys.extend((("started", place.index), ("pass", place.index), ("lo", place.index),
                             ("n", place.index)))
            if place.act is Act.AFTER:
                keys.extend((("armed", place.index), ("wake", place.index)))
        for f in self.net.features:
            keys.extend((("val", f.index), ("has", f.index)))
            if f.payload:
                keys.append(("frac", f.index))
        keys.extend(("made", part.index) for part in self.net.parts)
        if self.net.clocked:
            keys.append("now")
        if self.net.numbers_objects:
            keys.append("objs")  # the number the next object the run makes gets
        if self.net.messages:
            for i in range(self.net.bus_slots()):
                keys.extend((part, i) for part in (*self.slot_parts, "occ"))
        return keys

    def var(self, key: Any, step: int, copy: str = "") -> Any:
        name = f"{copy}{key}@{step}"
        if key == "err":
            return z3.BitVec(name, ERR_BITS)
        if key == "now":
            return z3.Real(name)
        if key == "objs":
            return z3.Int(name)
        if key[0] in ("tag", "to"):
            return z3.BitVec(name, TAG_BITS)
        if key[0] == "int":
            return z3.Int(name)
        if key[0] in ("real", "wake"):
            return z3.Real(name)
        if key[0] == "text":
            return z3.String(name)
        if key[0] in ("cnt", "via"):
            return z3.Bool(name) if key in self.safe else z3.BitVec(name, COUNT_BITS)
        if key[0] in ("pass", "lo", "n", "grp", "obj"):
            return z3.Int(name)
        if key[0] in self.field_sorts:
            return variable(name, self.field_sorts[key[0]], self.enums)
        if key == "ovf" or key[0] in ("in", "has", "started", "begun", "frac", "flag", "made", "occ", "armed"):
            return z3.Bool(name)
        feature = self.net.features[key[1]]
        return variable(name, feature.sort, self.enums)

    def state(self, step: int, copy: str = "") -> State:
        return {key: self.var(key, step, copy) for key in self.keys}

    # -- reading the state

    def some(self, st: State, key: Any) -> Any:
        """At least one token is counted under `key`."""
        return st[key] if key in self.safe else st[key] != 0

    def none(self, key: Any) -> Any:
        return z3.BoolVal(False) if key in self.safe else z3.BitVecVal(0, COUNT_BITS)

    def occupied(self, st: State, place_index: int) -> Any:
        """Some token stands at the place (or is inside the flow its token entered)."""
        place = self.net.places[place_index]
        parts = [self.some(st, ("cnt", place.index))]
        if place.joinlike:
            parts.extend(self.some(st, ("via", place.index, src)) for src in self.net.sources(place))
        if ("in", place.index) in st:
            parts.append(st[("in", place.index)])
        return z3.Or(parts) if len(parts) > 1 else parts[0]

    def translate(self, st: State, flow: int, expr: s.Expr, where: str, owner: int | None = None,
                  upto: int | None = None, ready: frozenset[int] | None = None) -> tuple[Term, Any]:
        """The expression's term read in `flow`; `owner` with `upto`: a node's features being set, those
        before `upto` readable; with `ready`: a performance's features being started, those in `ready`
        readable and nothing around the node unless the performance reads around it."""
        net = self.net

        def read(name: str) -> Term | None:
            feature = None
            if name == "localClock.currentTime":
                # the run's one clock, read as the Rational the interpreter's clock holds (0 where no wait
                # ever lets time pass)
                return Term(st["now"] if "now" in st else z3.RealVal(0), "real")
            if "." in name:
                # a node's feature read by its path from around the node: failing while it has none
                if net.resolve(name.split(".")[0], flow) is not None:
                    return None
                pin = net.pin(name, flow)
                if pin is None:
                    part = net.part_feature(name)
                    if part is None:
                        return payload(name)  # a signal payload's feature by the payload's name (`sp.celsius`)
                    return Term(st[("val", part.index)], kind_of(part.sort))
                if pin.instance:
                    raise NotCovered(where, f"the signal '{name}' read whole (its features are encoded, not the object)")
                return Term(st[("val", pin.index)], kind_of(pin.sort), z3.Not(st[("has", pin.index)]))
            if owner is not None and ready is not None:
                place = net.places[owner]
                feature = next((net.features[i] for i in place.locals
                                if net.features[i].local == name and i in ready), None)
                if feature is None and place.encloses:
                    feature = net.resolve(name, flow)
                return None if feature is None else Term(st[("val", feature.index)], kind_of(feature.sort))
            if owner is not None:
                feature = next((net.features[i] for i in net.places[owner].locals
                                if net.features[i].local == name and upto is not None and i < upto), None)
            if feature is None:
                feature = net.resolve(name, flow)
            if feature is None:
                return payload(name)
            if owner is not None and feature.owner == owner and upto is not None and feature.index >= upto:
                return None
            # reading a feature with no value fails, as the interpreter's Null operand does
            return Term(st[("val", feature.index)], kind_of(feature.sort), z3.Not(st[("has", feature.index)]))

        def payload(name: str) -> Term | None:
            """An accept's payload read by its bare name from around the accept (the interpreter reads
            the latest node holding it, so two accepts that could hold it are refused): failing while
            the accept has taken nothing."""
            visible = net.visible_flows(flow)
            held = [f for f in net.features if f.payload and f.local == name and f.owner is not None
                    and net.places[f.owner].flow in visible]
            if len(held) > 1:
                raise NotCovered(where, f"the name '{name}', the payload of {len(held)} accepts")
            if not held:
                return None
            f = held[0]
            if f.instance:
                raise NotCovered(where, f"the signal '{name}' read whole (its features are encoded, not the object)")
            return Term(st[("val", f.index)], kind_of(f.sort), z3.Not(st[("has", f.index)]))

        def literal(name: str) -> tuple[str, str] | None:
            el = lookup(net.program.model, net.action, name)
            if el is None or el.kind != "enum" or el.owner is None:
                return None
            literals = tuple(m.name for m in el.owner.members.values() if m.kind == "enum")
            self.enums.sort(Sort("enum", enum=el.owner.name, literals=literals))
            return el.owner.name, el.name

        def calc(scope: Element | None, name: str) -> Element | None:
            el = lookup(net.program.model, scope or net.action, name)
            if el is not None and el.library and el.qualified_name in LIBRARY_SCALAR:
                return el  # a numeric function the encoding states (terms.ENCODED_FUNCTIONS): Translator._library
            if el is None or el.library or el.base_kind not in CALCULATIONS:
                return None
            return el

        def usage(name: str) -> s.Call | None:
            scope = net.flows[flow].graph.scope or net.action
            el = lookup(net.program.model, scope, name)
            if el is None and any(isinstance(node.decl, s.Usage) and node.decl.kind == "calc" and node.name == name
                                  for at in net.visible_flows(flow) for node in net.flows[at].graph.nodes):
                # declared in a branch or a pass: the interpreter reads it only once its statement has run
                raise NotCovered(where, f"the calc usage '{name}' of a branch or loop body read by its path")
            if el is None or el.kind != "calc" or not isinstance(el.decl, s.Usage) or not el.decl.types:
                return None
            bindings = tuple((m.name, m.value) for m in el.decl.members
                             if isinstance(m, s.Usage) and m.value is not None and m.name)
            return s.Call(el.decl.span, s.Name(el.decl.span, el.decl.types[0]), (), bindings)

        def constant(name: str) -> tuple[s.Expr, str] | None:
            # resolved where the flow was written (a performed action's body reads its declarer's scope)
            el = lookup(net.program.model, net.flows[flow].graph.scope or net.action, name)
            if el is None or el.kind != "attribute" or el.owner is None or el.owner.kind != "package":
                return None
            decl = el.decl
            if not isinstance(decl, s.Usage) or decl.value_kind is not s.FeatureValueKind.BOUND or decl.value is None:
                return None
            value = decl.value.operand if isinstance(decl.value, s.Unary) and decl.value.op == "-" else decl.value
            if not isinstance(value, s.Literal):
                return None
            return decl.value, decl.types[0] if decl.types else ""

        return Translator(self.enums, read, literal, where, calc, usages=usage, constants=constant).eval(expr)

    # -- what may move

    def awaited_ok(self, st: State, place: Place) -> Any:
        graph = self.net.flows[place.flow].graph
        sources = self.net.sources(place)
        arrived = {src: self.some(st, ("via", place.index, src)) for src in sources}
        if place.node.kind is NodeKind.JOIN:
            return z3.And(list(arrived.values()))
        conds = []
        flow = self.net.flows[place.flow]
        for src in sources:
            others = [self.occupied(st, p) for n in flow.places for p in self.net.at_node(flow.index, n)
                      if n != place.node.index and graph.reaches(n, src, place.node.index)]
            conds.append(z3.Or(arrived[src], z3.Not(z3.Or(others))) if others else z3.BoolVal(True))
        return z3.And(conds)

    def enabled(self, st: State, choice: Choice) -> Any:
        live = st["err"] == 0
        if choice.clock:
            # time passes only where nothing can move and something waits for a later instant
            others = [self.enabled(st, ch) for ch in self.choices if not ch.clock]
            waiting = [z3.And(st[("armed", p.index)], st[("wake", p.index)] > st["now"])
                       for p in self.net.places if p.act is Act.AFTER]
            return z3.And(live, z3.Not(z3.Or(others)), z3.Or(waiting))
        place = self.net.places[choice.place]
        if place.joinlike:
            anyone = z3.Or([self.some(st, ("via", place.index, src)) for src in self.net.sources(place)])
            return z3.And(live, anyone, self.awaited_ok(st, place))
        here = self.some(st, ("cnt", place.index))
        if place.act is Act.ACCEPT:
            assert place.matcher is not None
            return z3.And(live, here, z3.Or([z3.And(st[("occ", i)], self.takes(st, place, i))
                                             for i in range(self.net.bus_slots())]))
        if place.act is Act.AFTER:
            armed, wake = st[("armed", place.index)], st[("wake", place.index)]
            return z3.And(live, here, z3.Or(z3.Not(armed), st["now"] >= wake))
        if place.act is Act.WHEN:
            trigger = self.when_of(place)
            term, err = self.translate(st, place.flow, trigger, place.node.name)
            if term.kind != "bool":
                raise NotCovered(place.node.name, "an accept when whose condition is not Boolean")
            return z3.And(live, here, z3.Or(err, term.value))
        if place.act is not Act.DECIDE:
            return z3.And(live, here)
        graph = self.net.flows[place.flow].graph
        edges = [e for e in graph.outgoing(place.node.index) if not e.is_else]
        holds, errs = [], []
        for e in edges:
            if e.guard is None:
                holds.append(z3.BoolVal(True))
                errs.append(z3.BoolVal(False))
                continue
            term, err = self.translate(st, place.flow, e.guard, place.node.name)
            holds.append(term.value)
            errs.append(err)
        any_err = z3.Or(errs) if errs else z3.BoolVal(False)
        if choice.branch is None:
            return z3.And(live, here, z3.Or(any_err, at_most_one(holds)))
        mine = z3.Or([h for e, h in zip(edges, holds, strict=True) if graph.nodes[e.target].name == choice.branch])
        return z3.And(live, here, z3.Not(any_err), z3.Not(at_most_one(holds)), mine)

    def when_of(self, place: Place) -> s.Expr:
        """The condition an `accept when` waits for."""
        accept = self.net.flows[place.flow].graph.accepts[place.node.index]
        assert accept is not None and accept.trigger.expression is not None
        return accept.trigger.expression

    def tokens_of(self, place: int) -> list[tuple[Any, Any]]:
        """The keys counting the place's tokens and what it holds of a loop or a step's performances,
        each with its value when it holds nothing (a `terminate;` drops them)."""
        out = []
        for key in self.keys:
            if isinstance(key, tuple) and key[1] == place and key[0] in ("cnt", "via", "in", "started", "grp",
                                                                         "armed"):
                out.append((key, self.none(key) if key[0] in ("cnt", "via") else
                            z3.IntVal(0) if key[0] == "grp" else z3.BoolVal(False)))
        return out

    def tag_of(self, kind: str) -> int:
        """The tag a message carries: 1 an Integer, 2 a Rational or Real, 3 a Boolean, 4 a String, then
        the signals."""
        if kind.startswith("signal:"):
            return len(TAGS) + 1 + self.net.signals.index(kind.removeprefix("signal:"))
        return TAGS[kind]

    def taken(self, matcher: Matcher) -> tuple[str, ...]:
        """The sent signals an accept of the matcher's signal takes: itself and its specializations."""
        return self.net.taken.get(matcher.signal or "", (matcher.signal or "",))

    def field_at(self, st: State, matcher: Matcher, slot: str, i: int) -> Any:
        """The value in bus slot i of the accepted signal's feature that travels in `slot`, from
        whichever taken signal the message is (None when no send puts one there)."""
        field = slot.partition(".")[2]
        value = None
        for name in reversed(self.taken(matcher)):
            held = st.get((signal_slot(name, field), i))
            if held is not None:
                value = held if value is None else \
                    z3.If(st[("tag", i)] == self.tag_of("signal:" + name), held, value)
        return value

    def takes(self, st: State, place: Place, slot: int) -> Any:
        """Whether the accept at the place takes the message in the slot: addressed to no one, to the
        accept or a step it is within by name, and matched by its trigger."""
        assert place.matcher is not None
        if ("to", slot) not in st:
            return self.matches(st, place.matcher, slot)
        to = st[("to", slot)]
        mine = [to == 0]
        for name in (place.node.name, *self.within(place)):
            if name in self.net.receivers:
                mine.append(to == 1 + self.net.receivers.index(name))
        return z3.And(z3.Or(mine), self.matches(st, place.matcher, slot))

    def within(self, place: Place) -> list[str]:
        """The nodes whose flows the place stands in, innermost first: a message addressed to a step is
        for the accepts within its performance too (as engines/runtime/bus decides)."""
        names: list[str] = []
        at: int | None = self.net.flows[place.flow].parent
        while at is not None:
            owner = self.net.places[at]
            names.append(owner.node.name)
            at = self.net.flows[owner.flow].parent
        return names

    def matches(self, st: State, matcher: Matcher, slot: int) -> Any:
        """Whether the accept takes the message in the slot (as engines/runtime/bus.matches decides)."""
        tag, whole, real = st[("tag", slot)], st.get(("int", slot)), st.get(("real", slot))
        if matcher.kind == "any":
            return z3.BoolVal(True)
        if matcher.kind in ("bool", "str"):
            return tag == TAGS[matcher.kind]
        if matcher.kind == "signal":
            return z3.Or([tag == self.tag_of("signal:" + name) for name in self.taken(matcher)])
        # an Integer and a Rational apart, so a model sending only Integers stays in integer arithmetic
        cases = []
        if whole is not None:
            is_int = tag == TAGS["int"]
            cases.append(z3.And(is_int, whole >= matcher.low) if matcher.low is not None else is_int)
        if real is not None:
            as_real = [tag == TAGS["real"]]
            if matcher.integral:
                as_real.append(z3.IsInt(real))
            if matcher.low is not None:
                as_real.append(real >= matcher.low)
            cases.append(z3.And(as_real))
        return z3.Or(cases) if cases else z3.BoolVal(False)

    def complete(self, st: State) -> Any:
        root = self.net.flows[0]
        return z3.And(st["err"] == 0, z3.Not(z3.Or([self.occupied(st, p) for p in self.net.flow_places(root.index)])))

    # -- the relation

    def step(self, st: State, choice: Choice) -> State:
        if choice.clock:
            return self.pass_time(st)
        place = self.net.places[choice.place]
        move = _Move(self, st, place)
        move.perform(z3.BoolVal(True), place, choice.branch)
        counters = [key for key in self.keys if key != "err" and key != "ovf" and key[0] in ("cnt", "via")
                    and key not in self.safe]
        full = z3.Or([z3.UGE(move.st[key], 8) for key in counters if not move.st[key].eq(st[key])])
        move.st["ovf"] = z3.Or(move.st["ovf"], full)
        return move.st

    def pass_time(self, st: State) -> State:
        """The clock moved to the earliest wake still to come (the choice is enabled only where no move
        is, and some wait is armed); nothing else changes."""
        now = st["now"]
        earliest, found = now, z3.BoolVal(False)
        for place in self.net.places:
            if place.act is not Act.AFTER:
                continue
            armed, wake = st[("armed", place.index)], st[("wake", place.index)]
            later = z3.And(armed, wake > now)
            earliest = z3.If(z3.And(later, z3.Or(z3.Not(found), wake < earliest)), wake, earliest)
            found = z3.Or(found, later)
        return {**st, "now": earliest}

    def transitions(self, before: State, after: State, taken: Sequence[Any]) -> list[Any]:
        """`taken[i]`: the move is choices[i]; none taken is a stutter (no move enabled, or the run
        ended). One Boolean per choice, so an enabled set of one forces its move by propagation alone.
        Each state variable is written once, as the choice selects among the moves that change it."""
        enabled = [self.enabled(before, ch) for ch in self.choices]
        out = [z3.Or(taken) == z3.Or(enabled) if enabled else z3.BoolVal(True)]
        out.extend(z3.Implies(sel, en) for sel, en in zip(taken, enabled, strict=True))
        out.extend(z3.Or(z3.Not(a), z3.Not(b)) for i, a in enumerate(taken) for b in taken[i + 1:])
        changes: dict[Any, list[tuple[int, Any]]] = {key: [] for key in self.keys}
        for i, ch in enumerate(self.choices):
            nxt = self.step(before, ch)
            for key in self.keys:
                value = nxt[key]
                if not value.eq(before[key]):
                    changes[key].append((i, value))
        for key in self.keys:
            value = before[key]
            for i, changed in reversed(changes[key]):
                value = z3.If(taken[i], changed, value)
            out.append(after[key] == value)
        return out

    def independent(self, before: State, valued: set[int], tick: Callable[[], Any] = lambda: None) -> list[tuple[int, int]]:
        """The pairs (a, b) of choices, a < b, that commute wherever both are enabled: neither writes a
        state variable the other reads (its enabledness included), and a variable both write each only
        adds to (a number: `c := c + 1` and `c := c + step` end alike in either order; the overflow flag
        or a Boolean: set, never cleared). Read off the moves as the encoding writes them, over the
        symbolic state `before`: every move reads the error flag, so one that may fail commutes with
        none, and time passing reads what every move's enabledness reads. `valued`: the features
        holding a value at the start; those no move can leave without one hold one in every state, so a
        read of them cannot fail for want of a value. `tick` is called as it goes (the question's deadline:
        it raises once that has passed)."""
        moves = []
        for ch in self.choices:
            tick()
            moves.append(self.step(before, ch))
        written = [{key for key in self.keys if not nxt[key].eq(before[key])} for nxt in moves]
        kept = set(valued)
        while True:  # the features every move leaves with a value, given that the others keep one
            true = [(before[("has", i)], z3.BoolVal(True)) for i in sorted(kept)]
            lost = {key[1] for nxt, keys in zip(moves, written, strict=True) for key in keys
                    if key[0] == "has" and key[1] in kept and not _true_given(nxt[key], true)}
            if not lost:
                break
            kept -= lost
        keyed = {before[key].get_id(): key for key in self.keys}
        reads: list[set[Any]] = []
        writes: list[set[Any]] = []
        adds: list[set[Any]] = []  # the variables written that the move only adds to
        for ch, nxt, keys in zip(self.choices, moves, written, strict=True):
            tick()
            # a kept feature's value flag is true throughout, and a failure it alone guards never comes
            keys = {key for key in keys if not (key[0] == "has" and key[1] in kept)}
            if "err" in keys and _true_given(nxt["err"] == before["err"], true):
                keys.discard("err")
            added = {key for key in keys if _adds_to(nxt[key], before[key])}
            read: set[Any] = set()
            roots = [(self.enabled(before, ch), None),
                     *((nxt[key], before[key] if key in added else None) for key in keys if key != "err")]
            for root, own in roots:  # an addition's own variable is no read: what it adds is
                stack, seen = [root], set()
                while stack:
                    e = stack.pop()
                    if e.get_id() in seen or (own is not None and e.eq(own)):
                        continue
                    seen.add(e.get_id())
                    key = keyed.get(e.get_id())
                    if key is not None:
                        read.add(key)
                    stack.extend(e.children())
            reads.append(read)
            writes.append(keys)
            adds.append(added)
        return [(a, b) for a in range(len(self.choices)) for b in range(a + 1, len(self.choices))
                if not writes[a] & reads[b] and not writes[b] & reads[a]
                and writes[a] & writes[b] <= adds[a] & adds[b]]

    def initial(self, st: State, values: dict[int, Any], free: Sequence[Feature]) -> list[Any]:
        out = [st["err"] == z3.BitVecVal(0, ERR_BITS), st["ovf"] == z3.BoolVal(False)]
        free_ids = {f.index for f in free}
        for place in self.net.places:
            flow = self.net.flows[place.flow]
            start = 1 if flow.parent is None and place.group is None and place.node.index in flow.graph.initial else 0
            key = ("cnt", place.index)
            out.append(st[key] == (z3.BoolVal(start > 0) if key in self.safe else z3.BitVecVal(start, COUNT_BITS)))
            if place.joinlike:
                out.extend(st[("via", place.index, src)] == self.none(("via", place.index, src))
                           for src in self.net.sources(place))
            if ("in", place.index) in st:
                out.append(st[("in", place.index)] == z3.BoolVal(False))
            for flag in ("started", "begun"):
                if (flag, place.index) in st:
                    out.append(st[(flag, place.index)] == z3.BoolVal(False))
            if ("grp", place.index) in st:
                out.append(st[("grp", place.index)] == 0)
            if ("pass", place.index) in st:
                out.extend([st[("pass", place.index)] == 0, st[("lo", place.index)] == 0, st[("n", place.index)] == 0])
            if ("armed", place.index) in st:
                out.extend([st[("armed", place.index)] == z3.BoolVal(False), st[("wake", place.index)] == 0])
        out.extend(st[("made", part.index)] == z3.BoolVal(part.declared) for part in self.net.parts)
        if "now" in st:
            out.append(st["now"] == 0)
        if "objs" in st:
            out.append(st["objs"] == self.net.first_object)
        if self.net.messages:
            for i in range(self.net.bus_slots()):
                out.extend(st[(part, i)] == self.slot_zero(part) for part in (*self.slot_parts, "occ"))
        for f in self.net.features:
            if ("frac", f.index) in st:
                out.append(st[("frac", f.index)] == z3.BoolVal(False))
            val, has = st[("val", f.index)], st[("has", f.index)]
            if f.index in free_ids:
                out.append(has == z3.BoolVal(True))
                out.extend(domain(f.sort, val))
            elif f.owner is None and values.get(f.index) is not None:  # a part's feature included
                out.append(has == z3.BoolVal(True))
                out.append(val == constant(values[f.index], f.sort, self.enums))
            else:
                out.append(has == z3.BoolVal(False))
                out.append(val == default_of(f.sort, self.enums))
        return out


def domain(sort: Sort, val: Any) -> list[Any]:
    """A released input's values: an Integer in the interpreter's 64-bit range; a Real or Rational of
    magnitude in that range too, and zero or at least its reciprocal. Unbounded, the solver breaks any
    product with a number of thousands of digits the interpreter refuses (NumberTooLarge), a witness
    that says nothing of the model; within it, a product of a few inputs is nowhere near that bound."""
    if sort.kind == "int":
        out = [val > -INT64, val < INT64]
        if sort.low is not None:
            out.append(val >= sort.low)
        return out
    if sort.kind == "real":
        tiny = z3.RealVal(1) / INT64
        return [val > -INT64, val < INT64, z3.Or(val == 0, val >= tiny, val <= -tiny)]
    return []


def default_of(sort: Sort, enums: Enums) -> Any:
    if sort.kind == "bool":
        return z3.BoolVal(False)
    if sort.kind == "int":
        return z3.IntVal(0)
    if sort.kind == "real":
        return z3.RealVal(0)
    if sort.kind == "str":
        return z3.StringVal("")
    return enums.literal(sort.enum, sort.literals[0])


def constant(value: Any, sort: Sort, enums: Enums) -> Any:
    from fractions import Fraction

    if sort.kind == "bool":
        return z3.BoolVal(bool(value))
    if sort.kind == "int":
        return z3.IntVal(int(value))
    if sort.kind == "real":
        f = Fraction(value)
        return z3.RealVal(f"{f.numerator}/{f.denominator}")
    if sort.kind == "str":
        return z3.StringVal(value)
    return enums.literal(sort.enum, value)
