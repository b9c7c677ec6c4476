"""The action as the encoding sees it: every place a token of a fine run can stand at (a node of the
root flow, or of a flow a node's token enters: a body's unordered statements, an `if` branch, a
`while` pass), what a move there does, and the features it reads and writes. Built from the graphs
the runtime enters (the same Program, so a place names the interpreter's node exactly).

Anything the encoding does not cover is refused here, naming the node and the construct, before any
query exists (`NotCovered`). This module needs no solver."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from fractions import Fraction

from engines.errors import EngineError
from engines.runtime import Program
from engines.runtime.objects import declared_parts, feature_sources, object_path
from engines.runtime.types import rule_for
from engines.runtime.values import SCALAR_TYPES
from ir import syntax as s
from ir.connections import Connection, ConnectionKind, End
from ir.graphs import ActionGraph, Attribute, Node, NodeKind
from ir.lower.flows import IMPLICIT_TERMINATE
from ir.model import Element
from ir.resolve import lookup

MAX_GROUP = 6  # performances of one step a place counts (its count then stays under the overflow of 8)


class NotCovered(EngineError):
    """A construct the encoding does not express: the whole question is refused before any query."""

    def __init__(self, node: str, construct: str) -> None:
        self.node = node
        self.construct = construct
        super().__init__(f"not covered: {construct} at node '{node}'")


class Act(Enum):
    """What a move of a token standing at a place does."""

    FOLLOW = "follow"  # start, merge, an action with nothing to run: take the successions
    DONE = "done"  # the token is consumed
    FORK = "fork"  # one token per outgoing succession, guards not read
    JOIN = "join"  # every awaited arrival collected, one token follows
    DECIDE = "decide"  # exactly one branch: the first holding guard, else `else`
    ASSIGN = "assign"  # one assignment, then the successions
    ENTER = "enter"  # the body's features set, its statements entered as unordered performances
    IF = "if"  # the condition read; the branch's statements entered one after another
    WHILE = "while"  # the condition read; a pass's statements entered, the test again after it
    UNTIL = "loop until"  # a pass's statements entered; after each, the condition read: it ends the loop when it holds
    FOR = "for"  # the range read at the first move; each pass's statements entered with the next element
    SEND = "send"  # the payload read and put on the bus, last
    ACCEPT = "accept"  # the oldest message on the bus the trigger takes, its payload held; waits while none
    WHEN = "accept when"  # waits until the condition holds
    AFTER = "accept after"  # (or at) its first move sets when it wakes; it goes on once the clock reaches that
    TERMINATE = "terminate"  # `terminate;`: every token of the performance its flow is dropped; it ends


@dataclass(frozen=True)
class Sort:
    """A feature's value domain: Boolean, Integer (optionally >= low), Real, or an enumeration."""

    kind: str  # "bool", "int", "real", "str", "enum"
    low: int | None = None  # Natural 0, Positive 1
    enum: str = ""  # the enumeration's name, as EnumValue spells it
    literals: tuple[str, ...] = ()
    type_text: str = ""


@dataclass
class Feature:
    """A scalar the state holds: an attribute of the action (`owner` None) or a node's own feature,
    kept on its pin once the node has run (`owner` the ENTER place)."""

    index: int
    name: str  # as run.outputs() keys it: `x`, or `node.t`
    local: str  # the name the model's text reads it by
    sort: Sort
    owner: int | None
    decl: Attribute
    hidden: bool = False  # a `for` loop's variable: read by the pass, no output of the run
    payload: bool = False  # an accept's payload: read by its bare name from around it, the latest held
    constant: bool = False  # declared `constant`: an assignment to it is a run error
    part: int | None = None  # a feature of a part's object (Net.parts): reported once the run has made it
    instance: bool = False  # an accept's payload of a signal: the number of the object the send made
    slot: str = ""  # a signal payload's feature: the bus slot part its value comes in (no output of the run)

    @property
    def of_action(self) -> bool:
        """A feature of the action itself (what `--input` may release), not a node's or a part's."""
        return self.owner is None and self.part is None


@dataclass
class FlowCtx:
    """A flow a token of the run moves in: the root flow, or one a place's token enters."""

    index: int
    graph: ActionGraph
    parent: int | None  # the place whose token entered it
    role: str  # "root", "body", "then", "else", "pass"
    places: dict[int, int] = field(default_factory=dict)  # graph node index -> place


@dataclass(frozen=True)
class Matcher:
    """What an accept takes: a number (of a type nesting in Real: integral, at least `low`), a Boolean,
    a String, a signal by its definition's short name (as the interpreter matches it), or anything."""

    kind: str  # "number", "bool", "str", "signal", "any"
    integral: bool = False
    low: int | None = None
    signal: str = ""


@dataclass
class Part:
    """A part usage whose object a run reads or writes by a chain (`counter.c`): its features, held as
    the object holds them (as written, no type check), reported from the move that first touches it
    (or from the start, for a part the action declares)."""

    index: int
    element: Element
    path: str  # as outputs name it: `counter`, `plant.pump`
    declared: bool
    features: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Start:
    """How a performed action's feature starts, in the order the interpreter sets them: `bound` by the
    usage (`in x = 3;`, read around the node), its `value` (read in the performance), the `same`-named
    feature around the node (an unbound parameter with no value), or `unset`."""

    how: str
    expr: s.Expr | None = None
    same: int | None = None


@dataclass(frozen=True)
class Return:
    """A performed action's output written when its performance ends: to the feature a usage binds it to
    (`out r = last;`, type-checked, failing when the output has no value), else copied to the same-named
    feature around the node."""

    inner: int
    outer: int
    bound: bool


@dataclass
class Place:
    index: int
    flow: int
    node: Node
    act: Act
    label: str
    joinlike: bool  # a token here waits for the successions it awaits (a join, or many reaching it)
    statement: s.Member | None = None  # the ASSIGN's assignment, the IF's or WHILE's statement
    collection: s.SequenceExpr | None = None  # FOR over literals: the literals (written, or a fixed feature's)
    children: tuple[int, ...] = ()  # ENTER: (body,); IF: (then, else) with -1 for an empty branch; WHILE: (pass,)
    locals: tuple[int, ...] = ()  # ENTER: the features its body declares, in order
    # IF, WHILE, UNTIL, FOR: the features a branch or a pass declares, by the flow that declares them;
    # each set as the flow is entered (a branch's or pass's features take their values as it starts)
    clause_locals: tuple[tuple[int, tuple[int, ...]], ...] = ()
    performs: Element | None = None  # ENTER of a performed action: the action, whose features `locals` are
    starts: tuple[Start, ...] = ()  # ...how each of them starts (with `locals`)
    returns: tuple[Return, ...] = ()  # ...what its end writes around the node
    signal: str | None = None  # SEND: the signal it sends, None for a value
    receiver: str | None = None  # SEND: the name it is addressed to (`to counter`), None for anyone
    touches: tuple[int, ...] = ()  # the parts (Net.parts) whose features a move here reads or writes
    multiplicity: int = 1  # a step `a[3]`: its first move starts the performances, each then a move
    # ...of a step whose body is a flow of its own: the performances, each an ENTER place with its own
    # copy of the flow and of the body's features; the first move puts a token at each, and the last to
    # end goes on. The step's features, which a run reports, are those of the performance begun last.
    members: tuple[int, ...] = ()
    group: int | None = None  # a performance of such a step: the step's place...
    # ...and (its feature, the step's) copied as it starts: the pin shows the latest performance begun
    pinned: tuple[tuple[int, int], ...] = ()
    matcher: Matcher | None = None  # ACCEPT: what it takes; its payload feature, if named, in `locals`
    duration: Fraction = Fraction(0)  # AFTER: how long it waits, in seconds (a constant)...
    absolute: bool = False  # ...or (`accept at`) the instant it waits for
    encloses: bool = True  # ENTER: names its flow does not hold are read around the node (not so for a
    # performed action, unless the usage states statements of its own)
    # ENTER: its pins given as its performance starts, before its features' own values, in the order
    # the connections are declared: (pin, what gives it, by a flow): a flow's source pin gives what it
    # holds once it was written or its node ended with it (else the pin takes its own value); the
    # feature a binding ties it to gives what it holds
    given: tuple[tuple[int, int, bool], ...] = ()


@dataclass
class Net:
    program: Program
    action: Element
    flows: list[FlowCtx]
    places: list[Place]
    features: list[Feature]
    signals: list[str] = field(default_factory=list)  # the signals sent or accepted (short names), tagged by index
    receivers: list[str] = field(default_factory=list)  # the names sends address (`send 5 to counter`), by index
    parts: list[Part] = field(default_factory=list)
    # an untyped feature bound to literals (`attribute steps = (1.0, 2.0, 3.5);`): no state of its own,
    # walked by a `for` as the literals themselves, reported as the run spells it
    fixed: dict[str, tuple[s.SequenceExpr, str]] = field(default_factory=dict)
    # the features of each signal sent or accepted that has some (`attribute def SetPoint { attribute
    # celsius : Integer; }`), in the order a construction binds them, each with its domain
    signal_fields: dict[str, tuple[tuple[str, Sort], ...]] = field(default_factory=dict)
    # an accepted signal's definition -> the sent ones an accept of it takes: itself and those that
    # specialize it (`accept w : Warning` takes an `Alarm :> Warning`, as engines/runtime/bus.matches does)
    taken: dict[str, tuple[str, ...]] = field(default_factory=dict)
    first_object: int = 1  # the number the interpreter gives the first object the run makes

    @property
    def numbers_objects(self) -> bool:
        """Some accept holds a signal's payload, which the run reports by its object's number: the state
        counts the objects the sends make (`instance#2` is the second)."""
        return any(f.instance for f in self.features)

    @property
    def clocked(self) -> bool:
        """Some place waits on the clock (`accept after`): the state holds the time and each wait's wake."""
        return any(p.act is Act.AFTER for p in self.places)

    @property
    def messages(self) -> bool:
        return any(p.act in (Act.SEND, Act.ACCEPT) for p in self.places)

    def bus_slots(self) -> int:
        """The messages the bus holds at once: one per place that sends (a send on a cycle may need
        more, which sets the overflow flag: the bound reached, never a wrong answer)."""
        return min(8, max(1, sum(1 for p in self.places if p.act is Act.SEND)))

    def at_node(self, flow: int, node: int) -> list[int]:
        """The places a token of `flow` at `node` may stand at: the node's own, and the performances of
        a step of multiplicity (Place.members)."""
        index = self.flows[flow].places[node]
        return [index, *self.places[index].members]

    def on_cycle(self, place: Place) -> bool:
        """The place's own successions lead back to it (a loop performs it again)."""
        graph = self.flows[place.flow].graph
        return any(graph.reaches(e.target, place.node.index, -1) for e in graph.outgoing(place.node.index))

    def flow_places(self, flow: int) -> list[int]:
        """Every place a token of the flow may stand at (at_node over its nodes)."""
        return [p for node in self.flows[flow].places for p in self.at_node(flow, node)]

    def feature(self, name: str) -> Feature:
        return next(f for f in self.features if f.name == name)

    def sources(self, place: Place) -> tuple[int, ...]:
        """The nodes whose successions reach the place, once each, in order."""
        graph = self.flows[place.flow].graph
        seen: list[int] = []
        for e in graph.incoming(place.node.index):
            if e.source not in seen:
                seen.append(e.source)
        return tuple(seen)

    def scope_chain(self, flow: int) -> list[int | None]:
        """The owners whose features a name in `flow` may read, innermost first (None: the action)."""
        out: list[int | None] = []
        at: int | None = flow
        while at is not None:
            ctx = self.flows[at]
            if ctx.parent is None:
                break
            owner = self.places[ctx.parent]
            if owner.act in (Act.ENTER, Act.FOR) or owner.clause_locals:
                out.append(owner.index)
                if not owner.encloses:
                    return out  # a performed action reads its own features, not the ones around it
            at = owner.flow
        out.append(None)
        return out

    def owners(self, flow: int) -> Iterator[Place]:
        """The places whose tokens entered the flows around `flow`, innermost first."""
        at = self.flows[flow]
        while at.parent is not None:
            owner = self.places[at.parent]
            yield owner
            at = self.flows[owner.flow]

    def visible_flows(self, flow: int) -> list[int]:
        """The flows whose nodes' features a name in `flow` may read by their path: its own and the
        ones around it, up to a performed action's (which reads nothing around it)."""
        out = [flow]
        for owner in self.owners(flow):
            if owner.act is Act.ENTER and not owner.encloses:
                break
            out.append(owner.flow)
        return out

    def pin(self, path: str, flow: int) -> Feature | None:
        """A node's feature named by its path (`r.n`, `reader.r.n`) from `flow`: the path read from any
        node whose features `flow` may read (visible_flows), so relative to the node around that flow."""
        for at in self.visible_flows(flow):
            holder = self.holder(at)
            prefix = "" if holder is None else self.pin_path(holder) + "."
            for f in self.features:
                # a node in a branch or a pass (hidden: no run reports it) is read by its path from
                # within that branch or pass, where its latest performance is the current one
                if f.owner is not None and (not f.hidden or self.places[f.owner].flow == at) \
                        and f.name == prefix + path:
                    return f
        return None

    def payloads_within(self, flow: int) -> list[Feature]:
        """The payloads of the accepts in the flow and the flows inside it: a run entering the flow
        anew holds none of them (the frames holding them are made anew)."""
        flows = set(self.flows_within(flow))
        return [f for f in self.features if f.payload and f.owner is not None and self.places[f.owner].flow in flows]

    def flows_within(self, flow: int) -> list[int]:
        """The flow and every flow a token of it may enter, at any depth."""
        flows = [flow]
        for ctx in self.flows[flow + 1:]:
            if ctx.parent is not None and self.places[ctx.parent].flow in flows:
                flows.append(ctx.index)
        return flows

    def holder(self, flow: int) -> Place | None:
        """The node whose body the flow is in (its anonymous statements report under its path)."""
        return next((owner for owner in self.owners(flow) if owner.act is Act.ENTER), None)

    def pin_path(self, place: Place) -> str:
        """The name a node's features are reported under: the nodes whose bodies it is in, then its own."""
        names = [place.node.name, *(owner.node.name for owner in self.owners(place.flow) if owner.act is Act.ENTER)]
        return ".".join(reversed(names))

    def move_expressions(self, place: Place) -> list[s.Expr]:
        """The expressions a move at the place may evaluate: its statement's, its features' values, a
        performance's starts, the guards of its successions, an `accept when`'s condition."""
        exprs: list[s.Expr | None] = []
        stmt = place.statement
        if isinstance(stmt, s.Assign):
            exprs.append(stmt.value)
        elif isinstance(stmt, s.If):
            exprs.append(stmt.condition)
        elif isinstance(stmt, s.While):
            exprs.extend((stmt.condition, stmt.until))
        elif isinstance(stmt, s.LoopUntil):
            exprs.append(stmt.until)
        elif isinstance(stmt, s.For):
            exprs.append(stmt.collection)
        elif isinstance(stmt, s.Send):
            exprs.append(stmt.payload)
        exprs.extend(self.features[i].decl.value for i in place.locals)
        exprs.extend(self.features[i].decl.value for _, declared in place.clause_locals for i in declared)
        exprs.extend(start.expr for start in place.starts)
        graph = self.flows[place.flow].graph
        exprs.extend(e.guard for e in graph.outgoing(place.node.index))
        accept = graph.accepts[place.node.index]
        if accept is not None:
            exprs.append(accept.trigger.expression)
        return [e for e in exprs if e is not None]

    def resolve(self, name: str, flow: int) -> Feature | None:
        for owner in self.scope_chain(flow):
            for f in self.features:
                if f.owner == owner and f.local == name and f.part is None:
                    return f
        return None

    def part_feature(self, path: str) -> Feature | None:
        """A part's feature by the chain naming it (`counter.c`)."""
        head, _, name = path.partition(".")
        found = [p for p in self.parts if p.element.name == head and name in p.features]
        if len(found) != 1:
            return None
        return self.features[found[0].features[name]]


SIGNAL_KINDS = ("item def", "attribute def", "part def", "occurrence def")  # what a message may instantiate
_LITERAL_SORTS = {"integer": Sort("int", type_text="Integer"), "real": Sort("real", type_text="Real"),
                  "boolean": Sort("bool", type_text="Boolean"), "string": Sort("str", type_text="String")}


def _literal_sort(collection: s.SequenceExpr, where: str) -> Sort:
    """The sort of a `for` over literals of one kind (`(18, 25, 19)`, `(1.5, -2.0)`), else NotCovered."""
    kinds = set()
    for e in collection.elements:
        literal = e.operand if isinstance(e, s.Unary) and e.op == "-" else e
        if not isinstance(literal, s.Literal) or literal.kind not in _LITERAL_SORTS \
                or (literal is not e and literal.kind not in ("integer", "real")):
            raise NotCovered(where, "a for loop over a collection that is no range a..b nor literals")
        kinds.add(literal.kind)
    if len(kinds) != 1:
        raise NotCovered(where, "a for loop over literals of more than one kind" if kinds else "a for loop over ()")
    return _LITERAL_SORTS[kinds.pop()]


_KINDS = {"integer": "int", "real": "real", "boolean": "bool", "string": "str"}
_ARITHMETIC = frozenset({"+", "-", "*", "%"})
_TRUTH = frozenset({"and", "or", "xor", "implies", "&", "|", "not", "==", "!=", "===", "!==", "<", ">", "<=", ">="})


def _value_sort(expr: s.Expr | None, known: Callable[[str], Sort | None]) -> Sort | None:
    """The kind of value an expression gives as the interpreter computes it, where its form shows it: a
    literal's, a feature's by its name, an operator's over those (`/` a Rational, a comparison a
    Boolean); None where it does not (a call, a chain, a conditional)."""
    if isinstance(expr, s.Literal):
        kind = _KINDS.get(expr.kind)
        return Sort(kind) if kind is not None else None
    if isinstance(expr, s.Name):
        found = known(expr.name)
        return Sort(found.kind) if found is not None and found.kind != "enum" else found
    if isinstance(expr, s.Unary):
        inner = _value_sort(expr.operand, known)
        if expr.op == "not":
            return Sort("bool") if inner is not None and inner.kind == "bool" else None
        return Sort(inner.kind) if inner is not None and inner.kind in ("int", "real") else None
    if isinstance(expr, s.Binary):
        left, right = _value_sort(expr.left, known), _value_sort(expr.right, known)
        if left is None or right is None:
            return None
        if expr.op in _TRUTH:
            return Sort("bool")
        if expr.op == "+" and left.kind == right.kind == "str":
            return Sort("str")
        if {left.kind, right.kind} <= {"int", "real"}:
            if expr.op == "/":
                return Sort("real")
            if expr.op in _ARITHMETIC:
                return Sort("int" if left.kind == right.kind == "int" else "real")
    return None


_NUMERIC = {"Integer": ("int", None), "Natural": ("int", 0), "Positive": ("int", 1), "Real": ("real", None),
            "Rational": ("real", None), "Boolean": ("bool", None), "String": ("str", None)}


def sort_of(program: Program, scope: Element | None, attr: Attribute, where: str,
            known: Callable[[str], Sort | None] = lambda name: None) -> Sort:
    """The domain a declared type gives a feature, or NotCovered naming the type; an untyped feature's
    the kind of the value it starts with, where its expression shows it (`known`: the sort of a
    feature read by its name there)."""
    text = attr.type_text
    if not text:
        # an untyped feature holds what it is given: its value's kind is its sort (a write of another
        # kind is refused where it is written)
        found = _value_sort(attr.value, known)
        if found is None:
            raise NotCovered(where, f"feature '{attr.name}' with no declared type")
        return found
    rule = rule_for(program.model, scope, text, program.type_rules)
    if rule is None:
        raise NotCovered(where, f"feature '{attr.name}' of type {text}")
    if rule.enumeration:
        from ir.resolve import lookup

        el = lookup(program.model, scope, text) if scope is not None else program.model.element(text)
        literals = tuple(m.name for m in el.members.values() if m.kind == "enum") if el is not None else ()
        if not literals:
            raise NotCovered(where, f"enumeration {text} with no literal")
        return Sort("enum", enum=rule.name, literals=literals, type_text=text)
    numeric = _NUMERIC.get(rule.name)
    if numeric is None:
        raise NotCovered(where, f"feature '{attr.name}' of type {text}")
    return Sort(numeric[0], numeric[1], type_text=text)


class _Builder:
    def __init__(self, program: Program, action: Element) -> None:
        self.program = program
        self.action = action
        self.net = Net(program, action, [], [], [])
        self._before: dict[int, dict[int, frozenset[int]]] = {}  # per flow: _ended_before, once asked

    def build(self) -> Net:
        graph = self.program.graph(self.action)
        for attr in graph.attributes:
            if isinstance(attr.decl, s.Usage) and attr.decl.kind == "part":
                continue  # a part the action declares: its object's features, below
            if self._fixed(attr):
                continue
            self._attribute(attr, None, self.action.name, self.action)
        for el in declared_parts(self.action):
            if el.kind == "part":
                self._register(el, self.action.name)
        self._flow(graph, None, "root")
        for place in self.net.places:
            self._parts_touched(place)
        self._specializations()
        if self.net.numbers_objects:
            if self.net.parts:
                payload = next(f for f in self.net.features if f.instance)
                raise NotCovered(self.action.name, f"the signal payload '{payload.name}' where parts are made too "
                                                   "(the numbers of the objects both make)")
            run = self.program.start_action(self.action.qualified_name, fine=True)
            self.net.first_object = run.ctx.next_object_id
        return self.net

    def _specializations(self) -> None:
        """Net.taken: each accepted signal with the sent signals that specialize it. A specialization's
        message carries the accepted signal's features in slots of its own, so each feature must be one
        the specialization's construction binds, in the same domain."""
        from ir.resolve import lineage

        sent = {p.signal for p in self.net.places if p.act is Act.SEND and p.signal is not None}
        for place in self.net.places:
            matcher = place.matcher
            if place.act is not Act.ACCEPT or matcher is None or matcher.kind != "signal" \
                    or matcher.signal in self.net.taken:
                continue
            taken = [matcher.signal]
            for name in sorted(sent - {matcher.signal}):
                el = lookup(self.program.model, self.action, name)
                if el is None or not any(a.name == matcher.signal for a in lineage(self.program.model, el)):
                    continue
                fields = dict(self.net.signal_fields.get(name, ()))
                for field_name, sort in self.net.signal_fields.get(matcher.signal, ()):
                    if fields.get(field_name) != sort:
                        raise NotCovered(place.node.name, f"an accept of {matcher.signal} taking the sent {name},"
                                                          f" whose feature '{field_name}' is redefined")
                taken.append(name)
            self.net.taken[matcher.signal] = tuple(taken)

    def _parts_touched(self, place: Place) -> None:
        """The part features a move at the place names by a chain (`counter.c`), each part made known."""
        exprs = self.net.move_expressions(place)
        stmt = place.statement
        if isinstance(stmt, s.Assign) and "." in stmt.target:
            head, _, rest = stmt.target.partition(".")
            exprs.append(s.Chain(s.NO_SPAN, s.Name(s.NO_SPAN, head), rest))
        touched: list[int] = []
        for expr in exprs:
            for chain in _chains(expr):
                part = self._part(chain, place)
                if part is not None and part.index not in touched:
                    touched.append(part.index)
        place.touches = tuple(touched)

    def _part(self, chain: s.Chain, place: Place) -> Part | None:
        """The part a chain's base names, when it is no feature, node or payload the flow holds."""
        if not isinstance(chain.base, s.Name):
            return None
        head = chain.base.name
        if self.net.resolve(head, place.flow) is not None or self.net.pin(f"{head}.{chain.feature}", place.flow):
            return None
        el = lookup(self.program.model, self._scope(self.net.flows[place.flow]), head)
        if el is None or el.kind != "part":
            return None
        return self._register(el, place.node.name)

    def _register(self, el: Element, where: str) -> Part:
        """The part usage's object as the net holds it: every feature it starts with (as the world's
        feature_values gives them), its sort its value's."""
        for known in self.net.parts:
            if known.element is el:
                return known
        part = Part(len(self.net.parts), el, object_path(el.qualified_name, self.action, self.program.model),
                    el in declared_parts(self.action))
        for source in feature_sources(self.program.model, el):
            for member in source.members.values():
                decl = member.decl
                if not isinstance(decl, s.Usage) or decl.kind not in ("attribute", "feature", "ref", "item", "part"):
                    continue
                if decl.kind in ("item", "part", "ref"):
                    raise NotCovered(where, f"the {decl.kind} '{member.name}' of part {el.name}")
                attr = Attribute(member.name, "", decl.value, None, None)
                # a part's object holds a feature as written: its sort is its value's, as an untyped one's
                sort = sort_of(self.program, source, attr, where)
                index = part.features.get(member.name)
                if index is None:
                    feature = Feature(len(self.net.features), f"{part.path}.{member.name}", member.name, sort, None,
                                      attr, part=part.index)
                    self.net.features.append(feature)
                    part.features[member.name] = feature.index
                elif decl.value is not None:  # (a redefinition stating no value keeps the one it redefines)
                    self.net.features[index] = replace(self.net.features[index], sort=sort, decl=attr)
        self.net.parts.append(part)
        return part
    def _fixed(self, attr: Attribute) -> bool:
        """An untyped feature bound (`=`) to literals of one kind: kept as its literals (`Net.fixed`)."""
        value = attr.value
        if attr.type_text or attr.value_kind is not s.FeatureValueKind.BOUND or not isinstance(value, s.SequenceExpr):
            return False
        try:
            _literal_sort(value, attr.name)
        except NotCovered:
            return False
        run = self.program.start_action(self.action.qualified_name, fine=True)
        self.net.fixed[attr.name] = (value, run.outputs().get(attr.name, "<unset>"))
        return True

    def _attribute(self, attr: Attribute, owner: int | None, where: str, scope: Element | None,
                   hidden: bool = False) -> int:
        if attr.is_item:
            raise NotCovered(where, f"item '{attr.name}'")
        sort = sort_of(self.program, scope, attr, where, lambda name: self._sort_read(name, owner))
        prefix = "" if owner is None else self.net.pin_path(self.net.places[owner]) + "."
        feature = Feature(len(self.net.features), prefix + attr.name, attr.name, sort, owner, attr,
                          constant=self.program.is_constant(scope, attr.name), hidden=hidden)
        self.net.features.append(feature)
        return feature.index

    def _sort_read(self, name: str, owner: int | None) -> Sort | None:
        """The sort of the feature a name in a feature's value reads (`owner`'s, or the action's)."""
        if owner is None:
            found = next((f for f in self.net.features if f.of_action and f.local == name), None)
        else:
            # the node's own features declared before it (`in x : Real; out result = x * 2.0;`), else
            # what the node reads around it
            found = next((f for f in self.net.features if f.owner == owner and f.local == name), None) \
                or self.net.resolve(name, self.net.places[owner].flow)
        return found.sort if found is not None else None

    def _flow(self, graph: ActionGraph, parent: int | None, role: str) -> int:
        ctx = FlowCtx(len(self.net.flows), graph, parent, role)
        self.net.flows.append(ctx)
        for node in graph.nodes:
            ctx.places[node.index] = len(self.net.places)
            self.net.places.append(Place(len(self.net.places), ctx.index, node, Act.FOLLOW, node.name, False))
        for node in graph.nodes:
            self._place(ctx, node)
        for conn in graph.connections:
            self._connection(ctx, conn)
        return ctx.index

    def _connection(self, ctx: FlowCtx, conn: Connection) -> None:
        """A flow between the pins of two nodes of the flow, the source's performance ended before the
        target's begins on every schedule (so what it delivers is what its pin ended with: no value
        streams into a performance running beside it), neither performed again; or a binding of a
        node's pin to a feature around it (read as the node starts, written back as it ends). Any other
        connection is refused."""
        where = conn.target.text if conn.target.pin else conn.source.text
        if conn.kind is ConnectionKind.BIND and conn.source.pin and conn.target.pin:
            self._pins_bound(ctx, conn, where)
            return
        if conn.kind is ConnectionKind.BIND:
            pins = [e for e in (conn.source, conn.target) if e.pin]
            if not pins:
                raise NotCovered(where, "a binding between features")
            (pin_end,) = pins
            feature_end = conn.target if pin_end is conn.source else conn.source
            place, pin = self._pin_end(ctx, pin_end)
            outer = self.net.resolve(feature_end.path[0], ctx.index) if len(feature_end.path) == 1 else None
            if outer is None:
                raise NotCovered(where, f"a binding to '{feature_end.text}', which is no feature around the node")
            direction = self.net.features[pin].decl.direction
            if direction != "out":
                place.given = (*place.given, (pin, outer.index, False))
            if direction != "in":
                place.returns = (*place.returns, Return(pin, outer.index, True))
            return
        if not (conn.source.pin and conn.target.pin):
            raise NotCovered(where, "a flow from or to a feature that is no node's pin")
        source_place, source = self._pin_end(ctx, conn.source)
        target_place, target = self._pin_end(ctx, conn.target)
        if not self._ordered(ctx, source_place, target_place, "a flow", where):
            raise NotCovered(where, f"a flow from '{source_place.node.name}' to '{target_place.node.name}', which "
                                    "may be performed at once (its values stream)")
        self._deliver(source, target_place, target, where)

    def _pins_bound(self, ctx: FlowCtx, conn: Connection, where: str) -> None:
        """Two pins bound of steps one of which has ended before the other begins: the later one's pin
        (unless an `out`) starts with what the earlier one's holds, its writes reaching no ended one."""
        (one, a), (two, b) = self._pin_end(ctx, conn.source), self._pin_end(ctx, conn.target)
        if self._ordered(ctx, one, two, "a binding", where):
            earlier, later, pin = a, two, b
        elif self._ordered(ctx, two, one, "a binding", where):
            earlier, later, pin = b, one, a
        else:
            raise NotCovered(where, f"a binding between pins of '{one.node.name}' and '{two.node.name}', which "
                                    "may be performed at once")
        if self.net.features[pin].decl.direction != "out":
            self._deliver(earlier, later, pin, where)

    def _ordered(self, ctx: FlowCtx, first: Place, then: Place, what: str, where: str) -> bool:
        """Whether `first`'s performance has ended before `then`'s begins on every schedule; a step a
        loop may perform again is refused."""
        for p in (first, then):
            if self.net.on_cycle(p):
                raise NotCovered(where, f"{what} from or to '{p.node.name}', which a loop may perform again")
        before = self._before.get(ctx.index)
        if before is None:
            joinlike = frozenset(n for n, p in ctx.places.items() if self.net.places[p].joinlike)
            before = self._before[ctx.index] = _ended_before(ctx.graph, joinlike)
        return first.node.index in before[then.node.index]

    def _deliver(self, source: int, place: Place, pin: int, where: str) -> None:
        if self.net.features[source].sort.kind != self.net.features[pin].sort.kind:
            raise NotCovered(where, "a connection between pins of different types")
        place.given = (*place.given, (pin, source, True))

    def _pin_end(self, ctx: FlowCtx, end: End) -> tuple[Place, int]:
        """The node of the flow whose pin a connection's end names (`read.v`), and the pin's feature."""
        node = next((n for n in ctx.graph.nodes if n.name == end.path[0]), None)
        if len(end.path) != 2 or node is None:
            raise NotCovered(end.text, "a connection end that is no pin of a node of its flow")
        place = self.net.places[ctx.places[node.index]]
        if place.act is not Act.ENTER or place.multiplicity != 1:
            raise NotCovered(end.text, f"a connection to '{node.name}', whose body is no action of its own")
        pin = next((i for i in place.locals if self.net.features[i].local == end.path[1]), None)
        if pin is None:
            raise NotCovered(end.text, f"a connection end naming no feature of '{node.name}'")
        return place, pin

    def _place(self, ctx: FlowCtx, node: Node) -> None:
        place = self.net.places[ctx.places[node.index]]
        graph = ctx.graph
        incoming = graph.incoming(node.index)
        place.joinlike = node.kind is NodeKind.JOIN or (
            len(incoming) > 1 and node.kind not in (NodeKind.MERGE, NodeKind.DONE))
        if place.joinlike and node.index in graph.initial:
            raise NotCovered(node.name, "a start node many successions also reach")
        accept = graph.accepts[node.index]
        if node.multiplicity != 1 and (accept is not None or place.joinlike):
            raise NotCovered(node.name, f"a step of multiplicity {node.multiplicity} that waits")
        if accept is not None:
            self._accept(ctx, place, accept)
            return
        if node.multiplicity == 0:
            place.act, place.multiplicity = Act.FOLLOW, 0  # names no performance: its successions follow
            return
        kind = node.kind
        if kind in (NodeKind.START, NodeKind.MERGE):
            place.act = Act.FOLLOW
        elif kind is NodeKind.DONE:
            place.act = Act.DONE
        elif kind is NodeKind.FORK:
            place.act = Act.FORK
        elif kind is NodeKind.JOIN:
            place.act = Act.JOIN
        elif kind is NodeKind.DECIDE:
            place.act = Act.DECIDE
        elif kind is NodeKind.STATEMENT:
            self._statement(ctx, place, node.decl)
        elif node.multiplicity > 1:
            self._performances(ctx, place, node)
        else:
            self._action(ctx, place, node)
        if node.multiplicity > 1:
            # its performances start together, the last to end going on: counted at the place, or, for
            # a body with a flow of its own, one ENTER place each (Place.members)
            if not place.members and place.act not in (Act.ASSIGN, Act.FOLLOW):
                raise NotCovered(node.name, f"a step of multiplicity {node.multiplicity} with a body of its own")
            place.multiplicity = node.multiplicity

    def _performances(self, ctx: FlowCtx, step: Place, node: Node) -> None:
        """A step of multiplicity: built as one performance would be; where that is a flow of its own,
        one ENTER place per performance (Place.members), each built alike, its features hidden and
        numbered (`a.t#2`) and copied to the step's own (its pin: `a.t`) as it begins, as the interpreter's
        pin is the frame of the performance begun last (a body writing its own features is refused)."""
        if node.multiplicity > MAX_GROUP:
            raise NotCovered(node.name, f"a step of multiplicity {node.multiplicity} (more than {MAX_GROUP})")
        first = Place(len(self.net.places), ctx.index, node, Act.FOLLOW, node.name, False, group=step.index)
        self.net.places.append(first)
        known = (len(self.net.features), len(self.net.flows))
        self._action(ctx, first, node)
        if first.act is not Act.ENTER:  # one move a performance, counted at the step's own place
            assert (len(self.net.features), len(self.net.flows)) == known and self.net.places[-1] is first
            self.net.places.pop()
            self._action(ctx, step, node)
            return
        if first.performs is not None:
            raise NotCovered(node.name, f"a step of multiplicity {node.multiplicity} performing an action")
        for i in first.locals:  # the pin
            f = self.net.features[i]
            self.net.features.append(Feature(len(self.net.features), f.name, f.local, f.sort, step.index, f.decl,
                                             hidden=f.hidden, constant=f.constant))
        pins = {self.net.features[i].local: i for i in range(known[0] + len(first.locals), len(self.net.features))}
        members = [first]
        for _ in range(2, node.multiplicity + 1):
            member = Place(len(self.net.places), ctx.index, node, Act.FOLLOW, node.name, False, group=step.index)
            self.net.places.append(member)
            self._action(ctx, member, node)
            members.append(member)
        number = {m.index: k for k, m in enumerate(members, start=1)}
        inside = {f for m in members for child in m.children if child >= 0 for f in self.net.flows_within(child)}
        for i, f in enumerate(self.net.features):
            if f.owner in number:
                self.net.features[i] = replace(f, name=f"{f.name}#{number[f.owner]}", hidden=True)
            elif f.owner is not None and self.net.places[f.owner].flow in inside:
                raise NotCovered(node.name, f"a step of multiplicity {node.multiplicity} whose body's steps have"
                                            f" features of their own ('{f.local}')")
        for member in members:
            member.pinned = tuple((i, pins[self.net.features[i].local]) for i in member.locals)
        for place in self.net.places[first.index:]:
            target = getattr(place.statement, "target", None)
            written = self.net.resolve(target, place.flow) if isinstance(target, str) else None
            if written is not None and written.owner in number:
                raise NotCovered(node.name, f"a step of multiplicity {node.multiplicity} whose body writes its"
                                            f" own feature '{written.local}'")
        step.members = tuple(m.index for m in members)

    def _statement(self, ctx: FlowCtx, place: Place, stmt: s.Member | None) -> None:
        name = place.node.name
        if isinstance(stmt, s.Assign):
            place.act, place.statement = Act.ASSIGN, stmt
            self._assign_target(stmt, name)
            return
        if isinstance(stmt, s.If):
            place.act, place.statement = Act.IF, stmt
            scope = self._scope(ctx)
            then = self._block(stmt.then, scope, name, place.index, "then")
            other = self._block(stmt.otherwise, scope, name, place.index, "else") if stmt.otherwise else -1
            place.children = (then, other)
            return
        if isinstance(stmt, s.While):
            place.act, place.statement = Act.WHILE, stmt
            place.children = (self._block(stmt.body, self._scope(ctx), name, place.index, "pass"),)
            return
        if isinstance(stmt, s.For):
            collection = stmt.collection
            sort = Sort("int", type_text="Integer")
            if isinstance(collection, s.Name) and collection.name in self.net.fixed \
                    and self.net.resolve(collection.name, ctx.index) is None:
                collection = self.net.fixed[collection.name][0]
            if isinstance(collection, s.SequenceExpr):
                sort = _literal_sort(collection, name)  # each element its pass's value, as a range's is
                place.collection = collection
            elif not (isinstance(collection, s.Binary) and collection.op == ".."):
                raise NotCovered(name, "a for loop over a collection that is no range a..b nor literals")
            if stmt.short_name is not None and stmt.short_name != stmt.variable:
                raise NotCovered(name, "a for loop variable with a short name")
            place.act, place.statement = Act.FOR, stmt
            variable = Attribute(stmt.variable, sort.type_text, None, None, None)
            place.locals = (self._statement_feature(place.index, name, variable, sort),)
            place.children = (self._block(stmt.body, self._scope(ctx), name, place.index, "pass"),)
            return
        if isinstance(stmt, s.LoopUntil):
            place.act, place.statement = Act.UNTIL, stmt
            place.children = (self._block(stmt.body, self._scope(ctx), name, place.index, "pass"),)
            return
        if isinstance(stmt, s.Send):
            self._send(place, stmt)
            return
        if isinstance(stmt, s.Terminate) and (stmt.target is None or stmt is IMPLICIT_TERMINATE):
            place.act, place.statement = Act.TERMINATE, stmt
            return
        construct = {s.Accept: "accept",
                     s.Terminate: "terminate", s.Return: "return"}.get(type(stmt), type(stmt).__name__.lower())
        raise NotCovered(name, construct)

    def _send(self, place: Place, stmt: s.Send) -> None:
        if stmt.via is not None or (stmt.to is not None and not isinstance(stmt.to, s.Name)):
            raise NotCovered(place.node.name, "a send through a port or to a feature chain")
        place.act, place.statement = Act.SEND, stmt
        if isinstance(stmt.to, s.Name) and stmt.to.name != "this":
            place.receiver = stmt.to.name
            if place.receiver not in self.net.receivers:
                self.net.receivers.append(place.receiver)
        place.signal = self.signal_of(stmt.payload, place.node.name)
        if place.signal is not None and place.signal not in self.net.signals:
            self.net.signals.append(place.signal)

    def signal_of(self, payload: s.Expr, where: str) -> str | None:
        """The definition a sent signal instantiates (`Go()`, `new Go()`, `SetPoint(22, urgent = true)`: its
        features given by the arguments), or None for a value the expression computes."""
        if isinstance(payload, s.New):
            name = payload.type_name
        elif isinstance(payload, s.Call) and isinstance(payload.callee, s.Name):
            name = payload.callee.name
        else:
            return None
        el = lookup(self.program.model, self.action, name)
        if el is None or el.kind not in SIGNAL_KINDS:
            if isinstance(payload, s.Call):
                return None  # a calculation's invocation: the value it computes is sent
            raise NotCovered(where, f"a send of {name}()")
        fields = self._signal_fields(el, where)
        given = signal_arguments(payload, fields)
        if isinstance(given, str):
            raise NotCovered(where, f"a send of {el.name} {given}")
        return el.name  # the interpreter matches a signal by its definition's short name

    def _signal_fields(self, el: Element, where: str) -> tuple[tuple[str, Sort], ...]:
        """The features a construction of the signal binds, each with its domain (Net.signal_fields)."""
        from engines.runtime.calls import constructor_features

        known = self.net.signal_fields.get(el.name)
        if known is not None:
            return known
        fields: list[tuple[str, Sort]] = []
        for member in constructor_features(self.program.model, el):
            decl = member.decl
            assert isinstance(decl, s.Usage)
            if decl.kind != "attribute" or decl.value is not None:
                raise NotCovered(where, f"the signal {el.name}'s {decl.kind} '{member.name}'"
                                 + (" with a value of its own" if decl.value is not None else ""))
            attr = Attribute(member.name, decl.types[0] if decl.types else "", None, None, None)
            sort = sort_of(self.program, member.owner, attr, where)
            if sort.kind == "enum" or sort.low is not None:
                # a Natural's or an enumeration's argument is checked as the object is made: not encoded
                raise NotCovered(where, f"the signal {el.name}'s feature '{member.name}' of type {attr.type_text}")
            fields.append((member.name, sort))
        self.net.signal_fields[el.name] = tuple(fields)
        return self.net.signal_fields[el.name]

    def _accept(self, ctx: FlowCtx, place: Place, accept: s.Accept) -> None:
        name = place.node.name
        trigger = accept.trigger
        if place.joinlike:
            raise NotCovered(name, "an accept many successions reach")
        if accept.members:
            raise NotCovered(name, "an accept with a body")
        if trigger.kind is s.TriggerKind.WHEN:
            place.act = Act.WHEN
            return
        if trigger.kind in (s.TriggerKind.AFTER, s.TriggerKind.AT):
            place.act = Act.AFTER
            place.absolute = trigger.kind is s.TriggerKind.AT
            place.duration = self._duration(trigger, name, place)
            return
        if trigger.kind is not s.TriggerKind.SIGNAL or trigger.subsets is not None or trigger.via is not None:
            raise NotCovered(name, f"accept {trigger.kind.value}" if trigger.kind is not s.TriggerKind.SIGNAL
                             else "an accept of a part's message or through a port")
        place.act = Act.ACCEPT
        place.matcher, sort = self._matcher(trigger, name)
        if trigger.payload is None:
            return
        if sort is None and place.matcher.kind != "signal":
            raise NotCovered(name, f"the payload '{trigger.payload}' of a signal")
        hidden = self._in_block(ctx)  # a run reports no payload an accept in a branch or loop body took
        if hidden:
            prefix = f"{name}#{place.index}."
        elif place.node.kind is NodeKind.STATEMENT:
            owner = self.net.holder(ctx.index)
            prefix = "" if owner is None else self.net.pin_path(owner) + "."
        else:
            prefix = self.net.pin_path(place) + "."
        if sort is None:
            # a signal: its object reported by number, its features read by path (`sp.celsius`), each
            # as it came in the message's slot
            el = lookup(self.program.model, self.action, trigger.signal or "")
            assert el is not None
            fields = self._signal_fields(el, name)
            number = self._payload(place, prefix + trigger.payload, trigger.payload, Sort("int"), hidden, name,
                                   instance=True)
            parts = [self._payload(place, f"{prefix}{trigger.payload}.{field}", f"{trigger.payload}.{field}", fsort,
                                   hidden, name, slot=signal_slot(el.name, field)) for field, fsort in fields]
            place.locals = (number, *parts)
            return
        place.locals = (self._payload(place, prefix + trigger.payload, trigger.payload, sort, hidden, name),)

    def _payload(self, place: Place, path: str, local: str, sort: Sort, hidden: bool, where: str,
                 instance: bool = False, slot: str = "") -> int:
        """An accept's payload (or one feature of a signal's) as a feature of the net."""
        attr = Attribute(local, sort.type_text, None, None, None)
        feature = Feature(len(self.net.features), path, local, sort, place.index, attr, hidden=hidden, payload=True,
                          instance=instance, slot=slot)
        if any(f.name == feature.name for f in self.net.features):
            raise NotCovered(where, f"the payload '{local}', a name another feature reports")
        self.net.features.append(feature)
        return feature.index

    def _duration(self, trigger: s.Trigger, where: str, place: Place) -> Fraction:
        """An `accept after`'s wait (or an `accept at`'s instant) in seconds, as the interpreter counts it
        (engines/runtime/clock.py): one that reads no feature, so every token waits as long (a body
        statement's too: the interpreter's token waits there as at a node)."""
        from engines.errors import RunError
        from engines.runtime.clock import time_named

        kind = trigger.kind.value
        expr = trigger.expression
        magnitude = expr.base if isinstance(expr, s.Index) and isinstance(expr.index, s.Name) else expr  # `5 [s]`
        if expr is None or any(True for _ in names_read(magnitude)):
            raise NotCovered(where, f"accept {kind} a time that reads a feature")
        run = self.program.start_action(self.action.qualified_name, fine=True)
        try:
            with run.ctx.trace.quiet():
                value = run.evaluator.eval(expr, run.root.frame, 0)
            return time_named(trigger.kind, value)
        except RunError as bad:
            raise NotCovered(where, f"accept {kind} a time the interpreter refuses ({bad})") from None

    def _matcher(self, trigger: s.Trigger, where: str) -> tuple[Matcher, Sort | None]:
        if trigger.signal is None:
            if trigger.payload is not None:
                raise NotCovered(where, f"the untyped payload '{trigger.payload}'")
            return Matcher("any"), None
        short = trigger.signal.rsplit("::", 1)[-1]
        if short == "Boolean":
            return Matcher("bool"), Sort("bool", type_text="Boolean")
        if short == "String":
            return Matcher("str"), Sort("str", type_text="String")
        if short in ("Integer", "Natural", "Positive"):
            low = {"Natural": 0, "Positive": 1}.get(short)
            return Matcher("number", True, low), Sort("int", low, type_text=short)
        if short in ("Real", "Rational"):
            return Matcher("number"), Sort("real", type_text=short)
        if short in SCALAR_TYPES:
            raise NotCovered(where, f"an accept of {short}")
        el = lookup(self.program.model, self.action, trigger.signal)
        if el is None or el.kind not in SIGNAL_KINDS:
            raise NotCovered(where, f"an accept of {trigger.signal}")
        if el.name not in self.net.signals:
            self.net.signals.append(el.name)
        return Matcher("signal", signal=el.name), None

    def _performing(self, ctx: FlowCtx) -> list[Element]:
        """The actions whose performances a place of `ctx` is in."""
        return [self.action, *(owner.performs for owner in self.net.owners(ctx.index) if owner.performs is not None)]

    def _in_block(self, ctx: FlowCtx) -> bool:
        at: FlowCtx | None = ctx
        while at is not None and at.parent is not None:
            if at.role in ("then", "else", "pass"):
                return True
            at = self.net.flows[self.net.places[at.parent].flow]
        return False

    def _scope(self, ctx: FlowCtx) -> Element:
        at: FlowCtx | None = ctx
        while at is not None and at.parent is not None:
            owner = self.net.places[at.parent]
            if owner.performs is not None:
                return owner.performs
            if owner.node.body is not None and owner.node.body.scope is not None and owner.act is Act.ENTER:
                return owner.node.body.scope
            at = self.net.flows[owner.flow]
        return self.action

    def _statement_feature(self, owner: int, where: str, attr: Attribute, sort: Sort) -> int:
        """A feature a statement owns (a `for` loop's variable, a branch's or pass's declaration): read by
        the statements inside it, reported by no run."""
        feature = Feature(len(self.net.features), f"{where}#{owner}.{attr.name}", attr.name, sort, owner, attr,
                          hidden=True)
        self.net.features.append(feature)
        return feature.index

    def _block(self, block: s.Block, scope: Element, name: str, parent: int, role: str) -> int:
        if not block.members and role != "pass":
            return -1
        flow = self._flow(self.program.clause_flow(scope, block, name), parent, role)
        declared = self.net.flows[flow].graph.attributes
        if declared:
            # the features a branch or pass declares: one slot each, owned by the statement, set as the
            # flow is entered; a run reports none of them
            owner = self.net.places[parent]
            taken = {self.net.features[i].local for _, features in owner.clause_locals for i in features}
            indices = []
            for attr in declared:
                if attr.name in taken:
                    raise NotCovered(name, f"'{attr.name}' declared in both branches")
                if attr.is_item or attr.direction is not None:
                    raise NotCovered(name, f"the {'item' if attr.is_item else 'parameter'} '{attr.name}' of a "
                                           f"{'loop' if role == 'pass' else 'branch'} body")
                indices.append(self._statement_feature(parent, name, attr, sort_of(self.program, scope, attr, name)))
            owner.clause_locals = (*owner.clause_locals, (flow, tuple(indices)))
        return flow

    def _assign_target(self, stmt: s.Assign, where: str) -> None:
        if stmt.target.count(".") > 1:
            raise NotCovered(where, f"assignment to the feature chain {stmt.target}")

    def _action(self, ctx: FlowCtx, place: Place, node: Node) -> None:
        body = node.body
        name = node.name
        if isinstance(node.decl, s.Usage) and node.decl.kind == "calc" and node.decl.types \
                and not any(isinstance(m, s.Usage) and m.value is None and m.direction == "in"
                            for m in node.decl.members):
            place.act = Act.FOLLOW  # it only names its invocation; its result is computed where it is read
            return
        if isinstance(node.decl, s.Usage) and node.decl.kind != "action":
            raise NotCovered(name, f"a {node.decl.kind} usage")
        if body is None:
            place.act = Act.FOLLOW
            return
        if body.performs is not None:
            self._performed(ctx, place, node, body.performs)
            return
        if body.bindings or body.outputs:
            raise NotCovered(name, "parameter bindings")
        if body.flow is None and not body.splits():
            statements = body.statements
            if len(statements) == 1 and isinstance(statements[0], s.Assign) and not body.attributes:
                place.act, place.statement = Act.ASSIGN, statements[0]
                self._assign_target(statements[0], name)
                return
            if not statements and not body.attributes:
                place.act = Act.FOLLOW
                return
            if len(statements) == 1 and isinstance(statements[0], s.Send) and not body.attributes:
                self._send(place, statements[0])
                return
            if statements:
                raise NotCovered(name, f"a body of {type(statements[0]).__name__.lower()}")
        # the body's features set, its statements (or its flow) entered as performances of their own
        place.act = Act.ENTER
        if body.attributes and isinstance(node.decl, s.Usage) and not node.decl.name:
            raise NotCovered(name, "features of an anonymous action")
        # a parameter of the node's own body starts as an attribute does, from its value or unset, unless
        # a flow or binding gives it one (Place.given, set once the flow's places are built)
        # a node in an `if` branch is performed at most once; a run reports none of its features
        hidden = self._in_block(ctx)
        place.locals = tuple(self._attribute(a, place.index, name, body.scope, hidden) for a in body.attributes)
        if body.terminate:
            # a terminate action usage: its statements and its implicit terminate, unordered
            place.children = (self._flow(self.program.statement_flow(node), place.index, "body"),)
        elif body.flow is not None:
            place.children = (self._flow(body.flow, place.index, "body"),)
        elif body.statements:
            child = self._flow(self.program.statement_flow(node), place.index, "body")
            place.children = (child,)


    def _performed(self, ctx: FlowCtx, place: Place, node: Node, action: Element) -> None:
        """A node performing an action as a fine run does: the performance's features started (bound
        inputs, then its own values), its flow entered (beside the usage's own statements, which read
        around the node), its outputs written around the node when it ends."""
        body = node.body
        name = node.name
        assert body is not None
        if action.base_kind != "action":
            raise NotCovered(name, f"a {action.base_kind} performed")
        if action in self._performing(ctx):
            raise NotCovered(name, f"a performance of {action.name} within one of its own")
        if body.terminate or body.attributes or body.flow is not None:
            raise NotCovered(name, f"an action performing {action.name} with a body of its own")
        if body.statements:
            graph = self.program.merged_flow(node)
        elif body.splits():
            graph = self.program.graph(action)
        else:
            raise NotCovered(name, f"an action performing {action.name} in one move")
        inner = self.program.graph(action)
        place.act, place.performs, place.encloses = Act.ENTER, action, bool(body.statements)
        bound = dict(body.bindings)
        bound_out = {p for p, _ in body.outputs}
        known = {a.name for a in inner.attributes}
        for pname in [*bound, *bound_out]:
            if pname not in known:
                raise NotCovered(name, f"a binding of '{pname}', which is no parameter of {action.name}")
        locals_: list[int] = []
        starts: list[Start] = []
        for attr in inner.attributes:
            if attr.is_item:
                raise NotCovered(name, f"item '{attr.name}' of {action.name}")
            index = self._attribute(attr, place.index, name, action)
            locals_.append(index)
            if attr.name in bound:
                starts.append(Start("bound", bound[attr.name]))
            elif attr.direction in ("in", "inout", "out") and attr.value is None:
                same = None if attr.name in bound_out else self.net.resolve(attr.name, ctx.index)
                if same is not None and same.sort.kind != self.net.features[index].sort.kind:
                    raise NotCovered(name, f"the parameter '{attr.name}' read from a feature of another type")
                starts.append(Start("same", same=same.index) if same is not None else Start("unset"))
            elif attr.direction == "in" and attr.value_kind is not s.FeatureValueKind.INITIAL:
                # evaluated when first read (a literal at once, as it reads nothing)
                if not isinstance(attr.value, s.Literal):
                    raise NotCovered(name, f"the parameter '{attr.name}' whose default is evaluated when first read")
                starts.append(Start("value", attr.value))
            else:
                starts.append(Start("value", attr.value) if attr.value is not None else Start("unset"))
        place.locals, place.starts = tuple(locals_), tuple(starts)
        returns: list[Return] = []
        for pname, target in body.outputs:
            outer = self.net.resolve(target.name, ctx.index) if isinstance(target, s.Name) else None
            if outer is None:
                raise NotCovered(name, f"the output '{pname}' bound to something other than a feature")
            returns.append(Return(locals_[[a.name for a in inner.attributes].index(pname)], outer.index, True))
        for attr, index in zip(inner.attributes, locals_, strict=True):
            if attr.direction in ("out", "inout") and attr.name not in bound_out:
                outer = self.net.resolve(attr.name, ctx.index)
                if outer is not None:
                    if outer.sort.kind != self.net.features[index].sort.kind:
                        raise NotCovered(name, f"the output '{attr.name}' written to a feature of another type")
                    returns.append(Return(index, outer.index, False))
        place.returns = tuple(returns)
        place.children = (self._flow(graph, place.index, "body"),)


def _ended_before(graph: ActionGraph, joinlike: frozenset[int]) -> dict[int, frozenset[int]]:
    """Per node of a flow, the nodes whose performance has ended before it begins on every schedule: a
    node waiting for every succession reaching it (a join, or many reaching a node) follows all its
    sources; any other follows one of them, so only what all of them follow. The greatest solution (as
    for dominators), so that a loop's back edge takes nothing away from what precedes the loop."""
    everything = frozenset(n.index for n in graph.nodes)
    out = {n.index: everything if graph.incoming(n.index) else frozenset() for n in graph.nodes}
    changed = True
    while changed:
        changed = False
        for node in graph.nodes:
            sources = sorted({e.source for e in graph.incoming(node.index)})
            if not sources:
                continue
            each = [out[src] | {src} for src in sources]
            found = frozenset().union(*each) if node.index in joinlike else frozenset.intersection(*each)
            if found != out[node.index]:
                out[node.index], changed = found, True
    return out


def _walk(expr: s.Expr | None) -> Iterator[s.Expr]:
    """The expression and every expression inside it."""
    if expr is None:
        return
    yield expr
    for value in vars(expr).values():
        if isinstance(value, s.Expr):
            yield from _walk(value)
        elif isinstance(value, tuple):
            for item in value:
                if isinstance(item, s.Expr):
                    yield from _walk(item)


def _chains(expr: s.Expr | None) -> Iterator[s.Chain]:
    """The feature chains an expression reads."""
    return (e for e in _walk(expr) if isinstance(e, s.Chain))


def names_read(expr: s.Expr | None) -> Iterator[str]:
    """The plain names an expression reads (what decides whether a feature with no value is an input)."""
    return (e.name for e in _walk(expr) if isinstance(e, s.Name))


def signal_slot(signal: str, field: str) -> str:
    """The bus slot part a signal's feature travels in."""
    return f"sf:{signal}.{field}"


def signal_arguments(payload: s.Expr, fields: Sequence[tuple[str, Sort]]) -> tuple[s.Expr, ...] | str:
    """The expressions a send's construction of a signal gives its features, in their order (as
    engines/runtime/calls.construct binds them: positional first, then by name), or why the encoding
    does not cover it: a feature left with no value or its default."""
    args: tuple[s.Expr, ...] = ()
    named: tuple[tuple[str, s.Expr], ...] = ()
    if isinstance(payload, (s.New, s.Call)):
        args, named = payload.args, payload.named
    names = [name for name, _ in fields]
    if len(args) > len(names):
        return f"with {len(args)} arguments for {len(names)} features"
    given = dict(zip(names, args, strict=False))
    for name, expr in named:
        if name not in names or name in given:
            return f"giving '{name}' {'twice' if name in given else 'which it has no feature for'}"
        given[name] = expr
    missing = [name for name in names if name not in given]
    if missing:
        return f"leaving {', '.join(missing)} with no value"
    return tuple(given[name] for name in names)


def build(program: Program, action: Element) -> Net:
    """The action's places, or NotCovered naming the first node and construct the encoding lacks."""
    return _Builder(program, action).build()


def move_bound(net: Net) -> tuple[int | None, frozenset[tuple[str, int] | tuple[str, int, int]]]:
    """An upper bound on the moves of any schedule, when no flow has a cycle and every loop is a `for`
    over a range of literals (None otherwise): each place performs at most once per token that can
    reach it (a join once per full set of arrivals, a `for` once per pass and once more to leave); and
    the token counts that never exceed one (`("cnt", place)` and `("via", place, source)` keys), which
    the encoding holds as Booleans."""
    if any(p.act in (Act.WHILE, Act.UNTIL) or (p.act is Act.FOR and literal_passes(p) is None) for p in net.places):
        return None, frozenset()
    safe: set[tuple[str, int] | tuple[str, int, int]] = set()
    bound = _flow_moves(net, 0, safe, 1)
    return bound, frozenset(safe) if bound is not None else frozenset()


def literal_passes(place: Place) -> int | None:
    """The passes of a `for` over a range of Integer literals (`for m in 1..3`: 3), else None."""
    stmt = place.statement
    if not isinstance(stmt, s.For) or not isinstance(stmt.collection, s.Binary):
        return None
    ends = [_integer_literal(e) for e in (stmt.collection.left, stmt.collection.right)]
    if ends[0] is None or ends[1] is None:
        return None
    return max(0, ends[1] - ends[0] + 1)


def _integer_literal(expr: s.Expr) -> int | None:
    if isinstance(expr, s.Unary) and expr.op == "-":
        inner = _integer_literal(expr.operand)
        return None if inner is None else -inner
    if isinstance(expr, s.Literal) and expr.kind == "integer":
        return int(expr.text)
    return None


def _flow_moves(net: Net, flow: int, safe: set[tuple[str, int] | tuple[str, int, int]], entries: int) -> int | None:
    ctx = net.flows[flow]
    graph = ctx.graph
    order: list[int] = []
    marks: dict[int, int] = {}

    def visit(n: int) -> bool:
        if marks.get(n) == 1:
            return False  # a cycle
        if marks.get(n) == 2:
            return True
        marks[n] = 1
        for e in graph.outgoing(n):
            if not visit(e.target):
                return False
        marks[n] = 2
        order.append(n)
        return True

    for node in graph.nodes:
        if not visit(node.index):
            return None
    arrivals = {n.index: (1 if n.index in graph.initial else 0) for n in graph.nodes}
    arrived_from: dict[tuple[int, int], int] = {}
    total = 0
    for n in reversed(order):
        place = net.places[ctx.places[n]]
        count = arrivals[n]
        if place.joinlike:
            per_source = [arrived_from.get((n, src), 0) for src in net.sources(place)]
            for src, arrived in zip(net.sources(place), per_source, strict=True):
                if arrived * entries <= 1:
                    safe.add(("via", place.index, src))
            if place.node.kind is NodeKind.JOIN:
                count = min(per_source) if per_source else 0
        passes = literal_passes(place) if place.act is Act.FOR else None
        inner = 0
        for child in place.children:
            if child >= 0:
                moves = _flow_moves(net, child, safe, entries * count * (passes if passes is not None else 1))
                if moves is None:
                    return None
                inner = max(inner, moves)
        group = place.multiplicity if place.multiplicity > 1 else 0  # the move starting them, then each
        if place.members:  # ...or, each a flow of its own: the move starting them, then each one's
            group = 0
            for member in place.members:
                own = 0
                for child in net.places[member].children:
                    moves = _flow_moves(net, child, safe, entries * count) if child >= 0 else 0
                    if moves is None:
                        return None
                    own = max(own, moves)
                group += 1 + own
                if count * entries <= 1:
                    safe.add(("cnt", member))
        waits = 2 if place.act is Act.AFTER else 0  # an accept after: its wake set, time passing, then on
        if passes is not None:  # a move per pass entered, one to leave; each pass's moves
            total += count * (1 + passes + passes * inner)
        else:
            total += count * (1 + inner + group + waits)
        if count * entries <= 1 and not group:
            safe.add(("cnt", place.index))
        for e in graph.outgoing(n):
            arrivals[e.target] += count
            arrived_from[(e.target, n)] = arrived_from.get((e.target, n), 0) + count
    return total
