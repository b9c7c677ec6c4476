"""Generated action models: structured action graphs printed as SysML v2 text.

A model is a sequence of parts between `start` and `done`, each one of:
- a leaf action whose body holds one or two statements (`assign`, `if ... else`, a `while`, a `for`,
  a `loop ... until` or a `while ... until` over a counter of its own), unordered or ordered by `then`;
- one such statement standing in the flow itself, between two empty action nodes;
- a leaf reached through a guarded succession (`first g if x > 0 then a;`);
- a leaf or a statement in the flow reached twice through a merge (two performances at once);
- a leaf with a multiplicity (`action a[2] { ... }`: its performances begun together, the last to end
  going on; `[0]`: none), between two merges;
- a fork into two or three branches and the join after them;
- a decision with a guard (`decide d; if g then a; else b;`) and the merge after it;
- a merge loop with a counter bound (`merge l; ... decide c; if k < n then l; else x; merge x;`);
- a send/accept pair on two branches of a fork, the received value kept by an assignment;
- a lone accept that nothing feeds (every schedule deadlocks on it);
- a wait of `accept after 0..3` seconds on the clock;
- a leaf's statements as the body of an action def of their own, performed by a step typed by it, its
  `x`, `y` and `b` parameters bound to the shared features, to each other's (x from y, y from x) or to
  nothing (the same-named features), and its `y` read by a chain after it;
- a step followed both by what comes next and by a `terminate;` of the whole action, which races the rest;
  and among a body's statements an `if` whose branch ends with `terminate;` (the performance the body is,
  or, standing in the flow itself, the action);
- two steps joined by a flow from one's output pin to the other's input (the second after the first, or
  both at once behind a fork, the writes streaming into the second under way), or by a succession flow;
  or a step whose pin is bound to a shared feature (read as it starts, written back as it ends).
Every branch writes the shared features `x`, `y` and `b`, so the schedules race. Loop counters and
`while` counters are the loop's own, so every model terminates.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from hypothesis import strategies as st

SHARED = (("x", "Integer", "0"), ("y", "Integer", "1"), ("b", "Boolean", "false"))

# Updates that keep x and y non-negative, and those that may make them negative: Python hashes -1 and
# -2 alike, and the check's fingerprint once did too (test_graphs.py keeps that apart).
_INT_UPDATES = ("{v} + 1", "{v} * 2", "{w} + 2", "{v} + {w}", "{v} * {w} + 1", "{v} ** 2",
                "(if {v} > {w} ? {v} - {w} else {w} + 1)", "IntegerFunctions::max({v}, {w}) + 1")
_NEGATIVE_UPDATES = ("{v} - {w}", "3 - {v}", "{v} * {w} - 1", "{w} - 3", "-{v} - 1",
                     "IntegerFunctions::min({v}, 1 - {w})")
_BOOL_UPDATES = ("not b", "x > y", "x == y", "b xor x > 0", "true")
_GUARDS = ("x > 0", "b", "x == y", "y < x + 1", "not b", "x + y > 2")


@dataclass
class Graph:
    """The declarations and successions printed so far, and the counters used for fresh names."""

    nodes: list[str] = field(default_factory=list)
    definitions: list[str] = field(default_factory=list)  # the action defs typed steps perform
    successions: list[str] = field(default_factory=list)
    attributes: list[tuple[str, str, str]] = field(default_factory=lambda: list(SHARED))
    counter: int = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def succession(self, first: str, then: str) -> None:
        self.successions.append(f"succession first {first} then {then};")

    def text(self) -> str:
        lines = ["package g {", "\tprivate import ScalarValues::*;", *(f"\t{d}" for d in self.definitions), "\taction m {"]
        lines += [f"\t\tattribute {n} : {t} := {v};" for n, t, v in self.attributes]
        lines.append("\t\tfirst start;")
        lines += [f"\t\t{n}" for n in self.nodes]
        lines.append("\t\tdone;")
        lines += [f"\t\t{s}" for s in self.successions]
        lines += ["\t}", "}"]
        return "\n".join(lines) + "\n"

    @property
    def features(self) -> tuple[str, ...]:
        return tuple(sorted(n for n, _, _ in self.attributes))


@st.composite
def _assign(draw: st.DrawFn, negatives: bool) -> str:
    target = draw(st.sampled_from(["x", "y", "b"]))
    if target == "b":
        return f"assign b := {draw(st.sampled_from(_BOOL_UPDATES))};"
    other = "y" if target == "x" else "x"
    updates = _INT_UPDATES + (_NEGATIVE_UPDATES if negatives else ())
    update = draw(st.sampled_from(updates)).format(v=target, w=other)
    return f"assign {target} := {update};"


@st.composite
def _statement(draw: st.DrawFn, graph_counter: list[int], negatives: bool, ifs: bool,
               fors: bool, untils: bool = False, halts: bool = False) -> tuple[str, str | None]:
    """A statement and, for a loop with a counter, the counter feature it needs declared; with `untils`,
    also an action usage among the statements, of one or two assignments (or none); with `halts`, an `if`
    ending what it stands in."""
    kind = draw(st.sampled_from(["assign", "assign", "while"] + (["if"] if ifs else []) + (["for"] if fors else [])
                                + (["until", "action"] if untils else []) + (["halt"] if halts else [])))
    if kind == "assign":
        return draw(_assign(negatives)), None
    if kind == "halt":
        return f"if {draw(st.sampled_from(_GUARDS))} {{ {draw(_assign(negatives))} terminate; }}", None
    if kind == "action":
        graph_counter[0] += 1
        inner = " ".join(draw(st.lists(_assign(negatives), max_size=2)))
        if inner and draw(st.booleans()):  # a feature of its own, read at its start shot
            inner = f"attribute t : Integer := {draw(st.sampled_from(['x', 'y + 1']))}; assign x := t + 1; {inner}"
        return f"action u{graph_counter[0]} {{ {inner} }}" if inner else f"action u{graph_counter[0]};", None
    if kind == "for":
        # the range is read once, at the loop's first test: a body writing x does not change it
        low = draw(st.sampled_from(["1", "x"]))
        target = draw(st.sampled_from(["x", "y"]))
        # over a range, or over a sequence written out (its elements read at the first test too)
        collection = draw(st.sampled_from([f"{low}..2", f"({low}, 2)", "(y, x + 1, 3)"]))
        return f"for i in {collection} {{ assign {target} := {target} + i; {draw(_assign(negatives))} }}", None
    if kind == "if":
        guard = draw(st.sampled_from(_GUARDS))
        return f"if {guard} {{ {draw(_assign(negatives))} }} else {{ {draw(_assign(negatives))} }}", None
    graph_counter[0] += 1
    counter = f"w{graph_counter[0]}"
    bound = draw(st.integers(1, 2))
    step = f"assign {counter} := {counter} + 1; {draw(_assign(negatives))}"
    if kind == "until":  # a loop tested after its passes: `loop ... until`, or a `while` that also has one
        if draw(st.booleans()):
            return f"loop {{ {step} }} until {counter} >= {bound};", counter
        return f"while {counter} < {bound} {{ {step} }} until {draw(st.sampled_from(_GUARDS))};", counter
    return f"while {counter} < {bound} {{ {step} }}", counter


@dataclass(frozen=True)
class Leaf:
    statements: tuple[str, ...]
    ordered: bool
    counters: tuple[str, ...]


@dataclass(frozen=True)
class InFlow:
    """A statement standing in the flow itself (`then while ...`), between two empty action nodes (a
    statement has no name a succession could name)."""

    statement: str
    counters: tuple[str, ...]


@dataclass(frozen=True)
class Guarded:
    """A leaf reached through a guarded succession from an empty action node: where the guard fails
    there, the token is consumed (what comes after waits for it in vain, or the action ends)."""

    guard: str
    leaf: Leaf


@dataclass(frozen=True)
class Merged:
    """A leaf or a statement standing in the flow that two tokens reach through a merge (a fork into
    two empty action nodes merging there): two performances of it may run at once, and both tokens go
    on through what follows."""

    part: Leaf | InFlow


@dataclass(frozen=True)
class Crew:
    """A leaf with a multiplicity: `times` performances begun together, the last to end going on (none
    where 0); a merge before and after it, as a succession between such a step and an action names the
    ends it means (ir/lower/actions.py `_check_repeated_ends`)."""

    leaf: Leaf
    times: int


@dataclass(frozen=True)
class Fork:
    branches: tuple[Seq, ...]
    meets: bool = False  # the branches meet at an action node of their own, no join written before it


@dataclass(frozen=True)
class Decide:
    guard: str
    yes: Seq
    no: Seq
    meets: bool = False  # the branches meet at an action node of their own, no merge written before it


@dataclass(frozen=True)
class Loop:
    bound: int
    body: Seq


@dataclass(frozen=True)
class SendAccept:
    payload: str


@dataclass(frozen=True)
class LoneAccept:
    pass


@dataclass(frozen=True)
class Wait:
    """`accept after` a few seconds: time passes to it once nothing else can move."""

    seconds: int


@dataclass(frozen=True)
class Seq:
    parts: tuple[AnyPart, ...]


@dataclass(frozen=True)
class Typed:
    """A leaf's statements as the body of an action def of their own (its loop counters the def's own
    features), performed by a step typed by it whose x, y and b are bound as `binding` says (`same`: to
    the shared features; `crossed`: x from y and y from x; `none`: to nothing, so to the same-named
    features), its output y then read by a chain."""

    leaf: Leaf
    binding: str


@dataclass(frozen=True)
class Halt:
    """A step writing `feature`, followed both by what comes next and by a `terminate;` of the whole action."""

    feature: str


@dataclass(frozen=True)
class Piped:
    """A producer writing its output pin twice (from `feature`) and a consumer adding its input pin to y:
    `after`, the consumer after the producer, a flow between them; `beside`, both at once behind a fork,
    the flow streaming into the consumer under way; `tied`, so, the two pins bound to each other; `handed`,
    a succession flow. Or `bound`: one step whose pin is bound to `feature`."""

    shape: str
    feature: str


AnyPart = Leaf | InFlow | Guarded | Merged | Crew | Fork | Decide | Loop | SendAccept | LoneAccept | Wait | Typed | Halt \
    | Piped


@st.composite
def _leaf(draw: st.DrawFn, negatives: bool, ifs: bool, fors: bool, untils: bool = False, halts: bool = False) -> Leaf:
    counter = [0]
    drawn = draw(st.lists(_statement(counter, negatives, ifs, fors, untils, halts), min_size=1, max_size=2))
    counters = tuple(dict.fromkeys(c for _, c in drawn if c is not None))
    return Leaf(tuple(s for s, _ in drawn), draw(st.booleans()), counters)


@st.composite
def _in_flow(draw: st.DrawFn, negatives: bool, ifs: bool, fors: bool, untils: bool, halts: bool = False) -> InFlow:
    statement, counter = draw(_statement([0], negatives, ifs, fors, untils, halts))
    return InFlow(statement, () if counter is None else (counter,))


def _seq(part: st.SearchStrategy[AnyPart],
         max_size: int) -> st.SearchStrategy[Seq]:
    return st.lists(part, min_size=1, max_size=max_size).map(lambda ps: Seq(tuple(ps)))


@dataclass(frozen=True)
class Kinds:
    """Which constructs a strategy draws besides leaves, forks, decisions and loops."""

    messages: bool = True  # send/accept pairs
    lone_accepts: bool = False  # accepts nothing feeds: deadlocks
    negatives: bool = False  # updates that may make x or y negative
    ifs: bool = False  # `if` statements in bodies
    fors: bool = False  # `for` loops over a range in bodies
    timers: bool = False  # waits of `accept after` on the clock
    in_flow: bool = False  # statements standing in the flow itself
    untils: bool = False  # loops with `until` (`loop ... until`, `while ... until`)
    guards: bool = False  # guarded successions
    merges: bool = False  # a leaf or a statement in the flow performed twice, behind a merge
    converging: bool = False  # forks' and decisions' branches meeting at an action node (`meets`)
    crews: bool = False  # leaves with a multiplicity
    typed: bool = False  # steps typed by an action def of their own, and a chain reading their output
    halts: bool = False  # terminates: of the whole action after a step, and in an `if` among a body's statements
    flows: bool = False  # flows and bindings between steps' pins


@functools.cache
def parts(depth: int, kinds: Kinds) -> st.SearchStrategy[AnyPart]:
    negatives, ifs, fors, untils, halts = kinds.negatives, kinds.ifs, kinds.fors, kinds.untils, kinds.halts
    simple: list[st.SearchStrategy[AnyPart]] = [_leaf(negatives, ifs, fors, untils, halts), _leaf(negatives, ifs, fors, untils, halts)]
    if kinds.messages:
        simple.append(st.builds(SendAccept, st.sampled_from(["x", "y + 1", "7"])))
    if kinds.lone_accepts:
        simple.append(st.just(LoneAccept()))
    if kinds.timers:
        simple.append(st.builds(Wait, st.integers(0, 3)))
    if kinds.in_flow:
        simple.append(_in_flow(negatives, ifs, fors, untils, halts))
    if kinds.guards:
        simple.append(st.builds(Guarded, st.sampled_from(_GUARDS), _leaf(negatives, ifs, fors, untils, halts)))
    if kinds.merges:
        twice: list[st.SearchStrategy[Leaf | InFlow]] = [_leaf(negatives, ifs, fors, untils, halts)]
        if kinds.in_flow:
            twice.append(_in_flow(negatives, ifs, fors, untils, halts))
        simple.append(st.builds(Merged, st.one_of(twice)))
    if kinds.crews:
        simple.append(st.builds(Crew, _leaf(negatives, ifs, fors, untils, halts), st.sampled_from([0, 2, 3])))
    if kinds.typed:
        simple.append(st.builds(Typed, _leaf(negatives, ifs, fors, untils, halts), st.sampled_from(["same", "crossed", "none"])))
    if halts:
        simple.append(st.builds(Halt, st.sampled_from(["x", "y", "b"])))
    if kinds.flows:
        simple.append(st.builds(Piped, st.sampled_from(["after", "beside", "tied", "handed", "bound"]),
                                st.sampled_from(["x", "y"])))
    if depth == 0:
        return st.one_of(simple)
    inner = parts(depth - 1, kinds)
    meets = st.booleans() if kinds.converging else st.just(False)
    return st.one_of(
        *simple,
        st.builds(Fork, st.lists(_seq(inner, 2), min_size=2, max_size=3).map(tuple), meets),
        st.builds(Decide, st.sampled_from(_GUARDS), _seq(inner, 1), _seq(inner, 1), meets),
        st.builds(Loop, st.integers(1, 2), _seq(inner, 1)),
    )


def models(kinds: Kinds | None = None, depth: int = 2) -> st.SearchStrategy[Seq]:
    """Models of one or two parts, nesting `depth` deep, drawing the `kinds` of constructs."""
    return _seq(parts(depth, kinds or Kinds()), 2)


# ------------------------------------------------------------------ printing


def build(seq: Seq) -> Graph:
    graph = Graph()
    entry, exit_ = _emit_seq(graph, seq)
    graph.succession("start", entry)
    graph.succession(exit_, "done")
    return graph


def render(seq: Seq) -> str:
    return build(seq).text()


def _emit_seq(graph: Graph, seq: Seq) -> tuple[str, str]:
    entry = exit_ = ""
    for part in seq.parts:
        first, last = _emit(graph, part)
        if exit_:
            graph.succession(exit_, first)
        else:
            entry = first
        exit_ = last
    return entry, exit_


def _renamed(graph: Graph, name: str, counters: tuple[str, ...], statements: list[str]) -> list[str]:
    """`statements` with their loop counters made features of the action's own, one per node `name`."""
    for counter in counters:
        graph.attributes.append((f"{counter}_{name}", "Integer", "0"))
    out = []
    for statement in statements:
        for counter in counters:
            statement = statement.replace(f"{counter} ", f"{counter}_{name} ")
        out.append(statement)
    return out


def _body(graph: Graph, name: str, leaf: Leaf) -> str:
    """The statements of the leaf node `name`, its counters its own, each after the one before where ordered."""
    statements = _renamed(graph, name, leaf.counters, list(leaf.statements))
    return " ".join(("then " if leaf.ordered and i else "") + s for i, s in enumerate(statements))


def _emit(graph: Graph, part: AnyPart) -> tuple[str, str]:
    if isinstance(part, Leaf):
        name = graph.fresh("a")
        graph.nodes.append(f"action {name} {{ {_body(graph, name, part)} }}")
        return name, name
    if isinstance(part, Typed):
        name, read = graph.fresh("t"), graph.fresh("h")
        own = "".join(f" attribute {c} : Integer := 0;" for c in part.leaf.counters)
        statements = " ".join(("then " if part.leaf.ordered and i else "") + s for i, s in enumerate(part.leaf.statements))
        graph.definitions.append(f"action def T{name} {{ inout x : Integer; inout y : Integer; inout b : Boolean;{own} "
                                 f"{statements} }}")
        bound = {"same": " { inout x = x; inout y = y; inout b = b; }", "crossed": " { inout x = y; inout y = x; "
                 "inout b = b; }", "none": ";"}[part.binding]
        graph.nodes += [f"action {name} : T{name}{bound}", f"action {read} {{ assign x := x + {name}.y; }}"]
        graph.succession(name, read)
        return name, read
    if isinstance(part, Crew):
        before, name, after = graph.fresh("cb"), graph.fresh("c"), graph.fresh("ca")
        graph.nodes += [f"merge {before};", f"action {name}[{part.times}] {{ {_body(graph, name, part.leaf)} }}",
                        f"merge {after};"]
        graph.succession(before, name)
        graph.succession(name, after)
        return before, after
    if isinstance(part, Merged):
        fork, left, right, merge = graph.fresh("f"), graph.fresh("l"), graph.fresh("r"), graph.fresh("m")
        graph.nodes += [f"fork {fork};", f"action {left};", f"action {right};", f"merge {merge};"]
        first, last = _emit(graph, part.part)
        for step in (left, right):
            graph.succession(fork, step)
            graph.succession(step, merge)
        graph.succession(merge, first)
        return fork, last
    if isinstance(part, Guarded):
        gate = graph.fresh("g")
        graph.nodes.append(f"action {gate};")
        _, name = _emit(graph, part.leaf)
        graph.successions.append(f"first {gate} if {part.guard} then {name};")
        return gate, name
    if isinstance(part, InFlow):
        before, after = graph.fresh("p"), graph.fresh("q")
        (statement,) = _renamed(graph, before, part.counters, [part.statement.replace("action u", f"action {before}u")])
        graph.nodes.append(f"action {before}; then {statement} then action {after};")
        return before, after
    if isinstance(part, Fork):
        fork, join = graph.fresh("f"), graph.fresh("j")
        graph.nodes.append(f"fork {fork};")
        for branch in part.branches:
            first, last = _emit_seq(graph, branch)
            graph.succession(fork, first)
            graph.succession(last, join)
        # met at an action node: performed once every branch has delivered (it awaits each, as each can
        # still reach it)
        graph.nodes.append(_meeting(join) if part.meets else f"join {join};")
        return fork, join
    if isinstance(part, Decide):
        decide, merge = graph.fresh("d"), graph.fresh("m")
        yes_first, yes_last = _emit_seq(graph, part.yes)
        no_first, no_last = _emit_seq(graph, part.no)
        # met at an action node: performed when the branch taken delivers (the other can no longer reach it)
        graph.nodes += [f"decide {decide};", f"if {part.guard} then {yes_first};", f"else {no_first};",
                        _meeting(merge) if part.meets else f"merge {merge};"]
        graph.succession(yes_last, merge)
        graph.succession(no_last, merge)
        return decide, merge
    if isinstance(part, Loop):
        loop, test, out, count = graph.fresh("l"), graph.fresh("c"), graph.fresh("e"), graph.fresh("k")
        graph.attributes.append((count, "Integer", "0"))
        step = graph.fresh("n")
        graph.nodes += [f"merge {loop};", f"action {step} {{ assign {count} := {count} + 1; }}"]
        first, last = _emit_seq(graph, part.body)
        graph.nodes += [f"decide {test};", f"if {count} < {part.bound} then {loop};", f"else {out};",
                        f"merge {out};"]
        graph.succession(loop, step)
        graph.succession(step, first)
        graph.succession(last, test)
        return loop, out
    if isinstance(part, SendAccept):
        fork, join = graph.fresh("f"), graph.fresh("j")
        send, accept, keep, got = graph.fresh("s"), graph.fresh("r"), graph.fresh("q"), graph.fresh("got")
        graph.attributes.append((got, "Integer", "0"))
        graph.nodes += [f"fork {fork};", f"action {send} send {part.payload};",
                        f"action {accept} accept v : Integer;",
                        f"action {keep} {{ assign {got} := {accept}.v; }}", f"join {join};"]
        graph.succession(fork, send)
        graph.succession(fork, accept)
        graph.succession(accept, keep)
        graph.succession(send, join)
        graph.succession(keep, join)
        return fork, join
    if isinstance(part, Piped):
        source, sink = graph.fresh("p"), graph.fresh("q")
        if part.shape == "bound":
            graph.nodes += [f"action {source} {{ inout c : Integer; assign c := c + 3; then assign c := c * 2; }}",
                            f"bind {source}.c = {part.feature};"]
            return source, source
        graph.nodes += [f"action {source} {{ out v : Integer; assign v := {part.feature} + 1; then assign v := v * 2; }}",
                        f"action {sink} {{ in w : Integer := 5; assign y := y + w; then assign x := x + w; }}"]
        if part.shape in ("beside", "tied"):
            fork, join = graph.fresh("f"), graph.fresh("j")
            connection = f"flow {source}.v to {sink}.w;" if part.shape == "beside" else f"bind {sink}.w = {source}.v;"
            graph.nodes += [f"fork {fork};", f"join {join};", connection]
            for step in (source, sink):
                graph.succession(fork, step)
                graph.succession(step, join)
            return fork, join
        if part.shape == "handed":
            graph.nodes.append(f"succession flow {source}.v to {sink}.w;")
        else:
            graph.nodes.append(f"flow {source}.v to {sink}.w;")
            graph.succession(source, sink)
        return source, sink
    if isinstance(part, Halt):
        name = graph.fresh("h")
        update = "not b" if part.feature == "b" else f"{part.feature} + 2"
        graph.nodes.append(f"action {name} {{ assign {part.feature} := {update}; }} then terminate;")
        return name, name
    if isinstance(part, Wait):
        wait = graph.fresh("w")
        graph.nodes.append(f"action {wait} accept after {part.seconds};")
        return wait, wait
    accept = graph.fresh("r")
    graph.nodes.append(f"action {accept} accept v : Integer;")
    return accept, accept


def _meeting(name: str) -> str:
    """An action node branches meet at with no join or merge written, counting its performances in y."""
    return f"action {name} {{ assign y := y + 1; }}"


def where(text: str) -> str:
    """A failure's text with the token numbers left out: a deadlock names where the tokens wait, and
    two schedules number the same tokens differently (the canonical state excludes ids too)."""
    if not text.endswith(" wait"):
        return text
    places = sorted(re.sub(r"^token \d+@", "", item) for item in text.removesuffix(" wait").split(", "))
    return ", ".join(places) + " wait"
