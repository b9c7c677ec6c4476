"""From a bound to a proof: k-induction over the same one-move relation the bounded query unrolls.

The bounded query (the base) showed that no schedule of at most k moves breaks P: the properties, a
run error, a deadlock. The step asks, from an *arbitrary* state, whether j moves that keep P can be
followed by one that breaks it; unsat for some j <= k proves P of every schedule of any length.

The step is sound only over states a run could be in, so its first state carries a structural
invariant I, itself proved before it is used: I holds initially and every move keeps it (I ∧ T ⇒ I'),
else the step is refused, never run over an antecedent it cannot justify. I says what the token game
of the graph allows: no place counts two tokens, no counter overflowed, a node whose token is inside
a flow holds none besides and that flow holds tokens exactly then, and within a flow's *regions* (its
fork nesting: a fork's branches are regions of the fork's region; a node many paths reach lies in the
region they share) one token at most stands in a region, and none while its subregions hold one. A
fork on a cycle whose branches are never collected grows the population, so I fails there, and the
refusal names the fork.

The body loops of this encoding are moves (a fine run performs a `while` pass by pass, its progress is
state), so unlike an unrolled loop they are no cut and need no refusal. A send on a cycle (of its
flow, or in a loop's pass) can fill the bus without bound, so the step is refused there; elsewhere I
bounds the messages on the bus by its slots."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import z3

from engines.smt.encode import Builder, State, at_most_one
from engines.smt.net import Act, Net, Place
from engines.smt.unroll import Unrolled, names_read

Region = tuple[int, ...]


@dataclass(frozen=True)
class Induction:
    """What the induction found: closed at `j`, or why not (said in the report, never a proof)."""

    closed: int | None  # the j at which the step was unsat
    why: str | None = None
    notes: tuple[str, ...] = ()


MAX_STEP = 12  # the longest step asked (the base covers k moves; a loop invariant closes in a few)


def regions(net: Net, flow: int) -> dict[int, Region]:
    """Each node of the flow's graph -> its region: the path of fork branches from the flow's start
    (see the module docstring); a node reached from several regions lies in their common prefix."""
    graph = net.flows[flow].graph
    out: dict[int, Region] = {}
    starts = list(graph.initial)
    work: list[tuple[int, Region]] = [(n, (i,) if len(starts) > 1 else ()) for i, n in enumerate(starts)]
    while work:
        node, region = work.pop()
        known = out.get(node)
        if known is not None:
            shared = _prefix(known, region)
            if shared == known:
                continue
            region = shared
        out[node] = region
        place = net.places[net.flows[flow].places[node]] if node in net.flows[flow].places else None
        edges = graph.outgoing(node)
        for number, e in enumerate(edges):
            child = (*region, node * 1000 + number) if place is not None and place.act is Act.FORK else region
            work.append((e.target, child))
    return out


def _prefix(a: Region, b: Region) -> Region:
    shared = []
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared.append(x)
    return tuple(shared)


def fork_on_cycle(net: Net) -> Place | None:
    """A fork that its own successions lead back to (its population may grow each round)."""
    return next((p for p in net.places if p.act is Act.FORK and net.on_cycle(p)), None)


def send_on_cycle(net: Net) -> Place | None:
    """A send its own flow leads back to, or one inside a loop's pass or a node on a cycle (each round
    may add a message)."""
    for place in net.places:
        if place.act is Act.SEND and (net.on_cycle(place) or any(
                owner.act in (Act.WHILE, Act.FOR, Act.UNTIL) or net.on_cycle(owner)
                for owner in net.owners(place.flow))):
            return place
    return None


class Step:
    """The step query's states t0..tj on one solver, their count layout free of the base's shortcuts."""

    def __init__(self, un: Unrolled) -> None:
        self.un = un
        self.net = un.net
        self.b = Builder(un.net, un.k)  # no place is held to one token by a Boolean: I says it, proved
        self.b.enums = un.builder.enums
        self.solver = z3.Solver()
        self.states: list[State] = [self.b.state(0, "ind")]
        self._regions = {flow: regions(self.net, flow) for flow in range(len(self.net.flows))}
        # features that hold a value from the start and, as far as I is shown inductive, keep one: without
        # it the step starts where a feature never unset has no value and its first read fails
        self.valued = un.valued()

    # -- the structural invariant

    def _slot(self, st: State, place: Place) -> Any:
        """The place holds a token of its own region: at it, or inside the flow it entered."""
        parts = [self.b.some(st, ("cnt", place.index))]
        if ("in", place.index) in st:
            parts.append(st[("in", place.index)])
        return z3.Or(parts)

    def invariant(self, st: State) -> Any:
        b, net = self.b, self.net
        out = [z3.Not(st["ovf"]), *(st[("has", i)] for i in self.valued)]
        if net.messages:  # the messages stand in the first slots
            out.extend(z3.Implies(st[("occ", i + 1)], st[("occ", i)]) for i in range(net.bus_slots() - 1))
        for key in b.keys:
            if isinstance(key, tuple) and key[0] in ("cnt", "via"):
                group = net.places[key[1]].multiplicity if key[0] == "cnt" else 1
                members = net.places[key[1]].members if key[0] == "cnt" else ()
                if members:
                    # performances under way, each at its place or inside its flow: as many as are left
                    left = st[("grp", key[1])]
                    busy = [z3.Or(b.some(st, ("cnt", m)), st[("in", m)]) for m in members]
                    out.extend([left == z3.Sum([z3.If(x, 1, 0) for x in busy]),
                                z3.Implies(left > 0, st[key] == 0), z3.ULE(st[key], 1)])
                elif group > 1:
                    # a step of multiplicity: one token before its performances start, then one each
                    left = st[("grp", key[1])]
                    out.extend([left >= 0, left <= group, z3.Implies(left == 0, z3.ULE(st[key], 1)),
                                z3.Implies(left > 0, st[key] == z3.Int2BV(left, st[key].size()))])
                else:
                    out.append(z3.ULE(st[key], 1))
        for place in net.places:
            key = ("in", place.index)
            if key not in st:
                continue
            out.append(z3.Implies(st[key], st[("cnt", place.index)] == 0))
            inside = [c for c in place.children if c >= 0]
            busy = [z3.Or([b.occupied(st, p) for p in net.flow_places(c)] or [z3.BoolVal(False)])
                    for c in inside]
            out.append(st[key] == (z3.Or(busy) if busy else z3.BoolVal(False)))
            out.append(at_most_one(busy))
        for flow, ctx in enumerate(net.flows):
            where = self._regions[flow]
            slots: dict[Region, list[Any]] = {}
            for node, index in ctx.places.items():
                place = net.places[index]
                if node not in where:
                    out.extend(z3.Not(b.occupied(st, p)) for p in net.at_node(flow, node))  # no token reaches it
                    continue
                # a step of multiplicity's performances stand for its one token (the last to end goes on)
                slots.setdefault(where[node], []).append(
                    z3.Or(self._slot(st, place), *(self._slot(st, net.places[m]) for m in place.members)))
                if place.joinlike:
                    for src in net.sources(place):
                        region = where.get(src, where[node])
                        slots.setdefault(region, []).append(b.some(st, ("via", index, src)))
            for region, held in slots.items():
                below = [z3.Or(h) for r, h in slots.items() if len(r) > len(region) and r[:len(region)] == region]
                out.append(at_most_one([*held, z3.Or(below)] if below else held))
        return z3.And(out)

    def initial_holds(self, un: Unrolled) -> Any:
        """sat, unsat or unknown of initial ∧ ¬I: I must hold where every run starts."""
        solver = z3.Solver()
        init = self.b.state(0, "init")
        solver.add(*self.b.initial(init, un.values, un.free))
        return self.check(solver, z3.Not(self.invariant(init)))

    def invariant_kept(self) -> Any:
        """sat, unsat or unknown of I ∧ T ∧ ¬I': every move keeps I. A feature some move may leave with no
        value is dropped from `valued` (I weakened, never assumed) and the question asked again."""
        before, after = self.b.state(0, "inv"), self.b.state(1, "inv")
        taken = [z3.Bool(f"invtake#{j}") for j in range(len(self.b.choices))]
        while True:
            solver = z3.Solver()
            solver.add(self.invariant(before), *self.b.transitions(before, after, taken))
            answer = self.check(solver, z3.Not(self.invariant(after)))
            if answer != z3.sat or not self.valued:
                return answer
            model = solver.model()
            lost = {i for i in self.valued if z3.is_false(model.eval(after[("has", i)], model_completion=True))}
            if not lost:
                return answer
            self.valued = [i for i in self.valued if i not in lost]

    def check(self, solver: Any, *assumptions: Any) -> Any:
        """One query within the time the question has left (OutOfTime once it has none)."""
        left = self.un.left_ms()
        if left is not None:
            solver.set("timeout", left)
        return solver.check(*assumptions)

    # -- the step

    def extend(self) -> None:
        """One more move from the last state."""
        i = len(self.states)
        nxt = self.b.state(i, "ind")
        taken = [z3.Bool(f"indtake@{i}#{j}") for j in range(len(self.b.choices))]
        self.solver.add(*self.b.transitions(self.states[-1], nxt, taken))
        self.states.append(nxt)


Ending = tuple[int, Any, Any]  # a feature (its index) a completed run ends holding (or not) and with what value


def good(step: Step, properties: Sequence[tuple[str, Callable[[State], Any]]],
         ends: Sequence[Ending] = ()) -> Callable[[State], Any]:
    """P over one state: no run error, no deadlock, every property holds; or, given `ends`, a completed
    run holds those features as they say (and nothing else: a schedule failing or deadlocking past k
    moves ends with no value, so it bears on no sensitivity)."""
    b = step.b

    def holds(st: State) -> Any:
        if ends:
            return z3.And([z3.Implies(b.complete(st), z3.And(st[("has", i)] == has,
                                                              z3.Implies(has, st[("val", i)] == value)))
                           for i, has, value in ends])
        ended = z3.Not(z3.Or([b.enabled(st, ch) for ch in b.choices]))
        deadlocked = z3.And(ended, z3.Not(b.complete(st)), st["err"] == 0)
        return z3.And(st["err"] == 0, z3.Not(deadlocked), *(term(st) for _, term in properties))

    return holds


def read_only(net: Net, names: Sequence[str]) -> bool:
    """No move writes any of these features (an assumption over them holds in every state)."""
    written = set()
    for place in net.places:
        stmt = place.statement
        target = getattr(stmt, "target", None)
        if isinstance(target, str):
            written.add(target)
        written.update(net.features[i].local for i in place.locals)
        written.update(net.features[i].local for _, declared in place.clause_locals for i in declared)
        written.update(net.features[r.outer].local for r in place.returns)
    return not written.intersection(names)


def assumption_names(conditions: Sequence[Any]) -> list[str]:
    return [name for c in conditions for name in names_read(c)]


def prove(un: Unrolled, program: Any, action: Any, properties: Sequence[tuple[str, Callable[[State], Any]]],
          assumptions: Sequence[str], ends: Sequence[Ending] = (), fixed: Sequence[Ending] = ()) -> Induction:
    """The step after the base (a bounded `no violation within k moves`), for j = 1 .. min(k, MAX_STEP).
    With `ends`, P also says a completed run ends with those values: non-sensitivity, where the base
    showed every completed schedule of at most k moves ends with them. `fixed`: inputs the base held
    to these values; those no move writes hold them in every state, so the step starts from them too."""
    from engines.check.properties import resolve_properties

    send = send_on_cycle(un.net)
    if send is not None:
        return Induction(None, f"send '{send.node.name}' on a cycle can fill the bus without bound, not inductive")
    step = Step(un)
    fork = fork_on_cycle(un.net)
    if step.initial_holds(un) != z3.unsat:  # unknown included: I is then not shown to hold
        return Induction(None, "the structural invariant does not hold initially, not inductive")
    kept = step.invariant_kept()
    if kept == z3.unknown:
        return Induction(None, "the solver did not decide whether the structural invariant is inductive")
    if kept == z3.sat:
        if fork is not None:
            return Induction(None, f"fork '{fork.node.name}' on a cycle can grow the token population without"
                                   " bound, not inductive")
        return Induction(None, "the structural invariant is not inductive")
    first = step.states[0]
    step.solver.add(step.invariant(first))
    notes = []
    # an assumption over features no move writes holds in every state, so the step may assume it too
    for prop in resolve_properties(program, action, tuple(assumptions)) if assumptions else ():
        if not read_only(un.net, assumption_names(prop.conditions)):
            notes.append(f"k-induction: the assumption {prop.name} is about features the action writes,"
                         " so the step does not assume it")
            continue
        for condition in prop.conditions:
            term, err = step.b.translate(first, 0, condition, prop.name)
            step.solver.add(z3.Not(err), term.value)
    for i, has, value in fixed:
        if read_only(un.net, [un.net.features[i].local]):
            step.solver.add(first[("has", i)] == has, z3.Implies(has, first[("val", i)] == value))
    p = good(step, properties, ends)
    for j in range(1, min(un.k, MAX_STEP) + 1):
        step.solver.add(p(step.states[-1]))
        step.extend()
        answer = step.check(step.solver, z3.Not(p(step.states[-1])))
        if answer == z3.unsat:
            moves = f"{j} moves that keep" if j > 1 else "a move that keeps"
            what = "the properties (no run error, no deadlock)" if not ends else \
                "a completed run's final values"
            return Induction(j, notes=(*notes, f"k-induction closed at {j}: from any state the structural"
                                       f" invariant allows, {moves} {what} cannot be followed by one that"
                                       " breaks them"))
        if answer == z3.unknown:
            return Induction(None, f"the solver did not decide the step at {j}", tuple(notes))
    last = min(un.k, MAX_STEP)
    if ends:
        return Induction(None, f"the step did not close up to {last} moves: the final values are not inductive"
                               " (from a state no run may reach, or one past k moves, a schedule completes"
                               " otherwise; the check engine searches every schedule of the inputs fixed)",
                         tuple(notes))
    return Induction(None, f"the step did not close up to {last} moves: the property is not inductive"
                           " (a state no run may reach breaks it after moves that keep it; strengthen it"
                           " with an invariant)", tuple(notes))
