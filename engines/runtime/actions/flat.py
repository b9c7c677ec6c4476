"""The flat form of an action, for the check's inner loop: the action's flow lowered once to moves over
an immutable state (token places and live values, a tuple that is its own canonical key), so that a
move is a function from state to state with no journal, snapshot or re-canonicalization.

It covers the flows people write most (start, done, fork, join, merge, decisions with guards, action
nodes whose bodies declare Integer, Real, Rational, Boolean and String attributes and assign them
with arithmetic, comparisons, concatenation, Boolean operators, conditional expressions and the
library's functions whose declaration gives their result's type, unordered or ordered by `then`,
with `if`, `while`, `loop ... until` and `for` (over an Integer range) statements and action usages
among them, and those statements standing in the flow itself; action nodes with a multiplicity, whose
performances begin together and the last to end goes on; bodies with a start and a done of their own;
`terminate;` among a body's statements, ending its performance, and in the action's own flow, standing
there, in a statement there or as a terminate action usage's end, ending the action; flows and
succession flows between the pins of the action's own steps, and those pins bound to its features) and
moves exactly as the interpreter's fine run does: the same moves, labels and token numbers, the same
states told apart, the same footprints. Anything else is refused by name when lowering
(`NotFlat`) and the interpreter searches; the interpreter stays the reference, replays every witness,
and words every error a flat move meets (its move is replayed there, so the text is the
interpreter's own). tests/engines/check/test_flat.py and tests/property/test_flat_graphs.py run both
over the corpus, our models and generated graphs and require the same results.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from engines.errors import RunError
from engines.runtime import operators
from engines.runtime.actions.connections import same_value
from engines.runtime.actions.footprints import Footprints, touch_now
from engines.runtime.behavior import Actor, ChoiceKind, Move, MoveKind, Summary, Travelled
from engines.runtime.calls import calc_inputs, calc_result, call_library
from engines.runtime.evaluate import Evaluator
from engines.runtime.limits import MAX_CALC_DEPTH
from engines.runtime.values import conforms, spell
from ir import syntax as s
from ir.assertions import usage_assertions
from ir.connections import ConnectionKind
from ir.graphs import ActionGraph, Attribute, Node, NodeKind
from ir.library import BODY, FUNCTION_BY_NAME
from ir.lower.flows import IMPLICIT_TERMINATE
from ir.model import Element, Model
from ir.resolve import lookup

Value = Any
Slots = tuple[Value, ...]
Eval = Callable[[Slots], Value]
# a token: (number, root node, the node it came from where its node converges else -1 (_MEMBER: one of the
# performances begun at a node with a multiplicity, yet to be performed), the statement it
# stands at inside its node's body else -1 (its place among all the body's statements, those of its `if`
# branches included), the numbers of the tokens that entered the flows it stands in, innermost first: the
# node's, then each `if` or loop whose branch or pass it runs in (empty at a root node))
Token = tuple[int, int, int, int, tuple[int, ...]]
# a run's whole state: its tokens, its slots, the mask of ended performances, the next token number, the
# steps of its budget spent (a move each, and each pass of a loop; no part of its key, as the interpreter's),
# the messages in flight
FlatState = tuple[tuple[Token, ...], Slots, int, int, int, tuple[tuple[Any, str], ...]]

_TYPES: dict[str, type] = {"Integer": int, "Boolean": bool, "Real": Fraction, "Rational": Fraction, "String": str}
_TYPES.update({f"ScalarValues::{name}": kind for name, kind in list(_TYPES.items())})
_LITERALS: dict[str, type] = {"integer": int, "boolean": bool, "real": Fraction, "string": str}
_NUMBERS = (int, Fraction)
_ARITHMETIC = frozenset(("+", "-", "*"))
_COMPARE = frozenset(("<", ">", "<=", ">="))
_EQUAL = frozenset(("==", "!="))
_LOGIC = frozenset(("and", "or", "xor", "implies"))


# where a token stands at an action node with multiplicity, one of the performances begun there (its `came`)
_MEMBER = -2

# a local slot no performance holds now: the empty tuple, which equals no value and hashes alike in every
# process (None hashes by its address before Python 3.12, so two processes would key one state apart)
UNSET: tuple[()] = ()
# what a flow has delivered to a pin: nothing yet (ABSENT), or taken by a performance of its node (UNSET: the
# interpreter's entry stays, so a source ending does not deliver its value again), or the value itself
ABSENT: tuple[tuple[()]] = ((),)

# what a move of a token at a node does (_STATEMENT: an `if` or a loop standing in the flow itself, whose
# token stands at that statement)
_FOLLOW, _ASSIGN, _ENTER, _JOIN, _DONE, _FORK, _DECIDE, _STATEMENT, _SEND, _ACCEPT, _HALT = range(11)
_CODES = {NodeKind.START: _FOLLOW, NodeKind.MERGE: _FOLLOW, NodeKind.JOIN: _JOIN, NodeKind.DONE: _DONE,
          NodeKind.FORK: _FORK, NodeKind.DECIDE: _DECIDE}


class NotFlat(Exception):
    """What the flat form does not cover (the interpreter searches instead): the construct and where."""


@dataclass(frozen=True)
class _Delivery:
    """Where a flow takes a value: the slot holding what it delivered (ABSENT, UNSET once taken, or the
    value), the target pin's slot, and the target's node (a performance of it under way takes it at once)."""

    staged: int
    pin: int
    node: int


@dataclass(frozen=True)
class _Assign:
    slot: int
    value: Eval


@dataclass(frozen=True)
class _Send:
    """`send payload [to name]`: the payload read, and the message put on the bus (payload, to: "" for no
    one, as None hashes by its address before Python 3.12 and two workers would key one bus apart)."""

    payload: Eval
    to: str


@dataclass(frozen=True)
class _Accept:
    """An accept node taking a scalar (`action r accept v : Integer;`): the type it takes and the slot it
    holds the payload in (a chain `r.v` reads it)."""

    scalar: str
    slot: int
    anywhere: bool  # an accept statement's: it takes a message sent to any name (the bus's receiver None)


@dataclass(frozen=True)
class _Statement:
    """A statement of a body, at its place among all the body's statements: an assignment, an `if`
    (reading its condition is a move; the branch taken is entered as a flow of its own, its statements
    moves after it, unordered but for the successions between them, as the body's are), a `while` or a
    `for` over an Integer range (each test, or element taken, a move, each pass entered as an `if`
    branch is; after a pass its token stands at the loop again, at a place of its own: the interpreter's
    state tells the loop's phase apart)."""

    assign: _Assign | None
    successors: tuple[int, ...]  # those a succession orders after it, in its flow
    owner: int = -1  # the `if` or loop whose branch or pass it stands in (-1: the body's own statements)
    test: Eval | None = None  # an `if`'s or a `while`'s condition
    then: tuple[int, ...] = ()  # where its branches (a loop's pass) start (empty: no statement there)
    otherwise: tuple[int, ...] = ()
    again: int = -1  # a loop's: where its token stands after a pass
    items: tuple[Eval, Eval] | None = None  # a `for` loop's range: its bounds
    elements: tuple[Eval, ...] | None = None  # a `for` loop's sequence written out: its elements
    slot: int = -1  # a `for` loop's: its range and passes made, three slots from here (lower, upper, passes),
    # or its elements' values and passes made, one slot each, while it runs, else UNSET
    var: int = -1  # a `for` loop's variable: the pass's element while a pass runs, else UNSET
    until: Eval | None = None  # a loop's `until` condition, read after each pass (before a `while`'s)
    # an action usage's among the statements: its features' slots and values set at its start shot, its place
    # in the mask of ended performances, the slots no expression reads once it ended
    locals: tuple[tuple[int, Eval], ...] = ()
    bit: int = 0
    drop: tuple[int, ...] = ()
    returns: tuple[tuple[int, int, bool], ...] = ()  # a typed step's among the statements: see _Body.returns
    ends: bool = False  # a `terminate;` among the body's statements: its performance ends there
    halts: bool = False  # a `terminate;` in a statement standing in the action's own flow: the whole action ends
    send: _Send | None = None  # a `send` among the statements


@dataclass(frozen=True)
class _Body:
    """An action node's performance: one move (`single`), or a start shot setting `locals` and then
    its statements, each a move of its own, unordered but for the successions between them."""

    single: _Assign | None
    locals: tuple[tuple[int, Eval], ...]
    statements: tuple[_Statement, ...]
    labels: tuple[str, ...]
    sealed_drop: tuple[int, ...]  # the locals no expression reads once it ended (left out of the state)
    bit: int  # its place in the mask of ended performances (0: it keeps no feature a chain reads once it ended)
    initial: tuple[int, ...] = ()  # the statements no succession orders after another
    owns: bool = False  # it has slots of its own (its features', a `for` loop's), one per node, not per performance
    # a typed step's outputs, written as its performance ends: (its parameter's slot, the slot of the feature
    # around the node it returns to, whether a binding names that feature: then it must end with a value)
    returns: tuple[tuple[int, int, bool], ...] = ()
    send: _Send | None = None  # a node performing one `send` (`action alice send 1;`): that move
    # a `terminate;` standing in the action's own flow (a move with no statement), or a terminate action usage
    # (`action stop terminate { ... }`): its performance's end is the whole action's
    halts: bool = False
    # the flows into its pins, taken at its start shot: (the pin's slot, the delivery's, and for a binding
    # between two pins the other pin's, whose value it takes where nothing was delivered, else -1); a pin
    # given one keeps it, its own value not read
    takes: tuple[tuple[int, int, int], ...] = ()
    # the flows out of its pins, as it ends: (the pin's slot, _Delivery, whether a succession flow: it hands
    # the value over always; a flow only where it has delivered nothing before, the source never written)
    delivers: tuple[tuple[int, _Delivery, bool], ...] = ()
    # its pins bound to the action's own features (`bind adjust.l = level`): (the pin's slot, the feature's),
    # each read into the pin at its start shot (not an `out`), and written back as it ends (not an `in`; one
    # ending with no value a run error)
    reads: tuple[tuple[int, int], ...] = ()
    writes: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class _Node:
    name: str
    targets: tuple[int, ...]  # the successions' targets, in declaration order
    converging: bool
    sources: frozenset[int]  # of a join: the nodes it awaits
    guards: tuple[tuple[str, int, Eval | None], ...] = ()  # of a decision: (target's name, target, guard)
    otherwise: int = -1  # of a decision: its else branch's target
    body: _Body | None = None
    code: int = 0  # what a move there does (_FOLLOW ... _STATEMENT)
    conditions: tuple[Eval | None, ...] = ()  # where a succession out of it is guarded: each one's guard
    # of an action node successions from several nodes reach: per source, the nodes a token can still come
    # to it from without passing this one (moves.awaited: the node awaits a source that has delivered, or
    # that such a token can still reach); its performance waits for every source it awaits
    awaits: tuple[tuple[int, frozenset[int]], ...] = ()
    times: int = 1  # an action node's multiplicity (`action a[2]`): its performances begun together
    accept: _Accept | None = None


@dataclass
class FlatAction:
    """An action lowered flat; `start()` makes a fresh run of it."""

    nodes: tuple[_Node, ...]
    initial: tuple[int, ...]
    slots: Slots  # the root attributes' initial values, then every local slot UNSET
    outputs: tuple[tuple[str, int], ...]  # the root attributes: name, slot
    max_steps: int
    replay: Callable[[list[Move]], str]  # the interpreter's wording of the error a schedule ends in
    now: dict[tuple[int, int], Summary] = field(default_factory=dict)
    future: dict[tuple[int, int], Summary] = field(default_factory=dict)
    grouped: bool = False  # whether a node has a multiplicity (its performances' count is in the key)
    # whether a node may be performed twice at once (a multiplicity, a merge, a node several nodes reach):
    # only then may the key need to say which places stand in one performance (`_performances`)
    repeats: bool = False
    # the slots of every `for` loop (what it iterates, the passes made, its variable), held while it runs: a
    # terminate of the whole action empties them, as the interpreter's loop state goes with its token
    loops: tuple[int, ...] = ()
    # the flows (not succession flows) out of each pin, by its slot: each value written there streams on
    streams: dict[int, tuple[_Delivery, ...]] = field(default_factory=dict)

    def start(self) -> FlatRun:
        return FlatRun(self)


class _Trace:
    enabled = False


class _World:
    """The world a flat run acts on holds nothing of its own: no object, message or clock moves."""

    trace = _Trace()

    @staticmethod
    def state_key() -> tuple[object, ...]:
        return ()


_WORLD = _World()


class _Snapshot:
    __slots__ = ("released", "run", "state", "taken")

    def __init__(self, run: FlatRun) -> None:
        self.run = run
        self.state = run.state()
        self.taken = len(run.moves_taken)
        self.released = False

    def restore(self, last: bool = False) -> None:
        self.run.restore(self.state, self.taken)

    def release(self) -> None:
        self.released = True


class FlatRun:
    """A run of a flat action: the behavior protocol (engines/runtime/behavior.py) as the check uses it."""

    error: RunError | None = None
    acyclic = True  # its states are tuples of values: no reference cycle for the collector to find

    def __init__(self, action: FlatAction) -> None:
        self.action = action
        self.tokens: tuple[Token, ...] = tuple((i, n, -1, -1, ()) for i, n in enumerate(action.initial, start=1))
        self.next_id = len(action.initial) + 1
        self.slots: Slots = action.slots
        self.ended = 0
        self.spent = 0
        # the messages in flight, oldest first: (payload, the name it is sent to, or "" for no one)
        self.bus: tuple[tuple[Value, str], ...] = ()
        self.moves_taken: list[Move] = []
        self._moves: dict[tuple[int, int, int, str | None], Move] = {}
        self._actors: dict[tuple[int, int, int], Actor] = {}
        self._now: dict[int, Summary] = {}  # by a made move's id: what it touches

    # ------------------------------------------------------------ what the search reads

    @property
    def world(self) -> _World:
        return _WORLD

    @property
    def finished(self) -> bool:
        return not self.tokens

    def settled(self) -> bool:
        return True

    def let_time_pass(self) -> bool:
        return False

    def next_wake(self) -> None:
        return None

    def travelled(self) -> Travelled | None:
        return None

    def state_key(self, readable: frozenset[str] | None = None) -> tuple[object, ...]:
        tokens = self.tokens
        if self.action.grouped:
            key: tuple[object, ...] = (_performances(tokens, self._grouped_places()), self.slots, self.ended)
        elif len(tokens) < 2:
            key = (tuple(t[1:4] for t in tokens), self.slots, self.ended)
        elif not self.action.repeats:
            key = (tuple(sorted([t[1:4] for t in tokens])), self.slots, self.ended)
        else:
            key = (_performances(tokens, [t[1:4] for t in tokens]), self.slots, self.ended)
        if self.bus:
            # (a Boolean told from the Integer it equals, as the interpreter's key tags it)
            return (*key, tuple((p.__class__ is bool, p, to) for p, to in self.bus))
        return key

    def _grouped_places(self) -> list[tuple[int, ...]]:
        """The tokens' places where a node has a multiplicity: a performance yet to begin there says how many
        of its group have not ended (those yet to begin, and those running, each named by the token that
        entered it, the last of its tokens' chains), as the interpreter's key does."""
        tokens = self.tokens
        unended: dict[int, int] = {}
        places: list[tuple[int, ...]] = []
        for t in tokens:
            if t[2] != _MEMBER or t[3] >= 0:
                places.append(t[1:4])
                continue
            at = t[1]
            count = unended.get(at)
            if count is None:
                waiting = sum(1 for u in tokens if u[1] == at and u[2] == _MEMBER and u[3] < 0)
                count = unended[at] = waiting + len({u[4][-1] for u in tokens if u[1] == at and u[3] >= 0 and u[4]})
            places.append((*t[1:4], count))
        return places

    def fingerprint(self) -> bytes:
        """8 bytes standing for the state (engines/check/canon.py words the interpreter's 16): one 64-bit
        hash of the key, which holds everything the world would add. Python hashes -1 as it hashes -2
        (and Fraction(-1) alike), so where a value is -1 the key says where: no two states differing
        only in -1 against -2 share a fingerprint (as engines/runtime/canon.py's `_hashable_int` keeps)."""
        key = self.state_key()
        slots, bus = self.slots, self.bus
        if -1 in slots or (bus and any(p == -1 for p, _ in bus)):
            # where in the slots and where on the bus, each in a place of its own: a -1 moved from a slot to a
            # message as a -2 moves back would otherwise leave the marks as they were
            key = (key, tuple(i for i, v in enumerate(slots) if v == -1),
                   tuple(i for i, (p, _) in enumerate(bus) if p == -1))
        return hash(key).to_bytes(8, "little", signed=True)

    def snapshot(self, allow_replay: bool = False) -> _Snapshot:
        return _Snapshot(self)

    def state(self) -> FlatState:
        """Where the run stands, as a tuple of plain values: what a snapshot keeps and a worker sends."""
        return (self.tokens, self.slots, self.ended, self.next_id, self.spent, self.bus)

    def restore(self, state: FlatState, taken: int = 0) -> None:
        """Back to `state`, with the moves taken before it left at the first `taken`."""
        self.tokens, self.slots, self.ended, self.next_id, self.spent, self.bus = state
        del self.moves_taken[taken:]

    def outputs(self) -> dict[str, str]:
        return {name: spell(self.slots[slot]) for name, slot in self.action.outputs}

    def own_outputs(self) -> dict[str, str]:
        return self.outputs()

    def stuck(self) -> str | None:
        if not self.tokens or self.enabled_moves():
            return None
        nodes = self.action.nodes
        return "deadlock: " + ", ".join(f"token {t[0]}@{nodes[t[1]].name}" for t in self.tokens) + " wait"

    def actors(self) -> list[Actor]:
        known = self._actors
        out = []
        for t in self.tokens:
            key = (t[0], t[1], t[3])
            actor = known.get(key)
            if actor is None:
                actor = known[key] = Actor(t[0], (t[1], t[3]))
            out.append(actor)
        return out

    def footprint(self, move: Move) -> Summary:
        return self._now[id(move)]

    def future(self, actor: Actor) -> Summary:
        return self.action.future[actor.place]  # type: ignore[index]

    def _move(self, number: int, at: int, inside: int, label: str, option: str | None = None) -> Move:
        """The move of token `number` at its place (a decision's branch `option`), made once."""
        key = (number, at, inside, option)
        known = self._moves.get(key)
        if known is None:
            text = f"{number}@{label}" if option is None else f"{number}@{label} to {option}"
            choice = ChoiceKind.TOKEN_ORDER if option is None else ChoiceKind.DECISION_BRANCH
            known = self._moves[key] = Move(MoveKind.TOKEN, number, text, label, option, choice)
            self._now[id(known)] = self.action.now[(at, inside)]  # the cache keeps the move, and its id
        return known

    # ------------------------------------------------------------ moves

    def enabled_moves(self) -> list[Move]:
        nodes = self.action.nodes
        moves: list[Move] = []
        known = self._moves
        for t in self.tokens:
            number, at, via, inside, _ = t
            plain = known.get((number, at, inside, None))
            node = nodes[at]
            code = node.code
            if inside < 0 and via >= 0 and node.awaits and not self._all_arrived(at, node):
                continue
            if inside < 0 and code == _ACCEPT and self._message(node) < 0:
                continue  # (waiting for a message it takes)
            if inside < 0 and code == _JOIN:
                arrived = {u[2] for u in self.tokens if u[1] == at and u[3] < 0} if node.converging \
                    else node.sources
                if not node.sources <= arrived:
                    continue
            elif inside < 0 and code == _DECIDE:
                branches = self._branches(node)
                if len(branches) > 1:
                    moves.extend(self._move(number, at, inside, node.name, b) for b in branches)
                    continue
            if plain is None:
                label = node.name if inside < 0 else node.body.labels[inside]  # type: ignore[union-attr]
                plain = self._move(number, at, inside, label)
            moves.append(plain)
        return moves

    def _message(self, node: _Node) -> int:
        """The oldest message on the bus the accept node takes (its place there), or -1 (the bus's `take`:
        one addressed to no one, to `this` or to the node by name, of the type it accepts)."""
        accept = node.accept
        assert accept is not None
        for i, (payload, to) in enumerate(self.bus):
            if (accept.anywhere or not to or to == "this" or to == node.name) and conforms(accept.scalar, payload):
                return i
        return -1

    def _all_arrived(self, at: int, node: _Node) -> bool:
        """Whether every source the action node at `at` awaits has delivered there (moves.awaited)."""
        tokens = self.tokens
        arrived = {u[2] for u in tokens if u[1] == at}
        for source, reachers in node.awaits:
            if source not in arrived and any(u[1] != at and u[1] in reachers for u in tokens):
                return False
        return True

    def _branches(self, node: _Node) -> list[str]:
        holding = []
        try:
            for name, _, guard in node.guards:
                if guard is None or guard(self.slots) is True:
                    holding.append(name)
        except RunError:
            return []
        return holding

    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]:
        if self.spent >= self.action.max_steps:
            self._fail(move)
        number = move.actor
        for token in self.tokens:
            if token[0] == number:
                break
        else:
            raise RunError(f"no token {number}")
        self.moves_taken.append(move)
        self.spent += 1
        try:
            self._advance(token, move.option)
        except RunError:
            self.moves_taken.pop()
            self._fail(move)
        return []

    def _fail(self, move: Move) -> None:
        """A move the flat form found failing: the interpreter replays it and words the error."""
        raise RunError(self.action.replay([*self.moves_taken, move]))

    def _advance(self, token: Token, option: str | None) -> None:
        nodes = self.action.nodes
        number, at, via, inside, parent = token
        node = nodes[at]
        body = node.body
        if inside < 0 and via >= 0 and node.awaits:
            number = self._joined(number, at)
        if inside < 0 and node.code == _STATEMENT:
            self._alone(at, body)  # type: ignore[arg-type]
            inside = 0  # (the statement the node is: its branches' and passes' tokens stand inside it)
        if inside >= 0:
            assert body is not None
            statement = body.statements[inside]
            if statement.ends:
                if statement.halts:
                    self._halt()
                else:
                    self._terminate(at, parent[-1])
                return
            assign, send = statement.assign, statement.send
            if assign is not None or send is not None:
                if assign is not None:
                    value = assign.value(self.slots)
                    self._set(assign.slot, value)
                    if self.action.streams:
                        self._streamed(assign.slot, value)
                elif send is not None:
                    self._post(send)
                after = statement.successors
                if len(after) == 1:  # (the common case, first: the token moves on to the one after it)
                    self._put(number, (number, at, -1, after[0], parent))
                    return
            elif statement.items is not None or statement.elements is not None:
                self._for(number, at, inside, parent, statement)
                return
            else:
                if inside == statement.again and statement.until is not None \
                        and _boolean(statement.until(self.slots)):
                    branch: tuple[int, ...] = ()  # after a pass, `until` holds: the loop ends
                elif statement.test is None:
                    branch = statement.then  # `loop ... until`: no test but its `until`, after a pass
                else:
                    branch = statement.then if _boolean(statement.test(self.slots)) else statement.otherwise
                if branch:
                    if statement.again >= 0:
                        self._pass()
                    for slot, value in statement.locals:  # (an action usage's start shot)
                        self._set(slot, value(self.slots))
                    self.ended &= ~statement.bit
                    self._branch(number, at, branch, (number, *parent))
                    return
            self._went_on(number, at, inside, parent)
            return
        code = node.code
        if node.times > 1 and via != _MEMBER:
            self._group(number, at, node.times)
            return
        if code == _FOLLOW:
            self._follow(number, at)
        elif code == _ASSIGN:
            single = body.single  # type: ignore[union-attr]
            assert single is not None
            self._set(single.slot, single.value(self.slots))
            self._follow(number, at)
        elif code == _ENTER:
            self._enter(number, at, body)  # type: ignore[arg-type]
        elif code == _SEND:
            self._post(body.send)  # type: ignore[union-attr,arg-type]
            self._follow(number, at)
        elif code == _ACCEPT:
            taken = self._message(node)
            bus = self.bus
            assert node.accept is not None and taken >= 0
            self._set(node.accept.slot, bus[taken][0])
            self.bus = (*bus[:taken], *bus[taken + 1:])
            self._follow(number, at)
        elif code == _JOIN:
            joined = self.next_id
            self.next_id += 1
            self.tokens = (*self._untaken(number, at), (joined, at, -1, -1, ()))
            self._follow(joined, at)
        elif code == _DONE:
            self._remove(number)
        elif code == _HALT:
            self._halt()
        elif code == _FORK:
            for target in node.targets:
                self._spawn(target, at)
            self._remove(number)
        else:
            self._decide(number, node, at, option)

    def _halt(self) -> None:
        """A `terminate;` in the action's own flow: every token of its performance dropped wherever it stands,
        and the loops they ran with them (the features of a step cut short stay, as its frame does)."""
        self.tokens = ()
        self._clear(self.action.loops)

    def _post(self, send: _Send) -> None:
        """A message put on the bus, last."""
        self.bus = (*self.bus, (send.payload(self.slots), send.to))

    def _set(self, slot: int, value: Value) -> None:
        slots = self.slots
        self.slots = (*slots[:slot], value, *slots[slot + 1:])

    def _write(self, slot: int, value: Value) -> None:
        """A write a step makes: where the slot is a pin flows leave, the value streams on."""
        self._set(slot, value)
        self._streamed(slot, value)

    def _streamed(self, slot: int, value: Value) -> None:
        """The value just written to `slot` carried by the flows leaving it, where it is such a pin."""
        for delivery in self.action.streams.get(slot, ()):
            self._deliver(delivery, value)

    def _deliver(self, delivery: _Delivery, value: Value) -> None:
        """A value a flow carries to its target: kept for the target's next performance and, where one is under
        way and holds another value, written to its pin (streaming on from there)."""
        self._set(delivery.staged, value)
        if not same_value(self.slots[delivery.pin], value) \
                and any(t[1] == delivery.node and t[3] >= 0 for t in self.tokens):
            self._write(delivery.pin, value)

    def _taken(self, takes: tuple[tuple[int, int, int], ...]) -> set[int]:
        """A performance starting takes what the flows delivered to its pins (or, bound to another pin, what
        that one holds now): the pins given a value."""
        given: set[int] = set()
        for pin, staged, other in takes:
            value = self.slots[staged]
            if value != UNSET and value != ABSENT:
                self._set(staged, UNSET)
            elif other >= 0:
                value = self.slots[other]
                if value == UNSET:
                    continue
            else:
                continue
            self._set(pin, value)
            given.add(pin)
        return given

    def _remove(self, number: int) -> None:
        self.tokens = tuple(t for t in self.tokens if t[0] != number)

    def _arrived(self, number: int, target: int, via: int) -> Token:
        """Token `number` at `target`, come from `via` (kept only where successions converge there)."""
        return (number, target, via if self.action.nodes[target].converging else -1, -1, ())

    def _place(self, number: int, target: int, via: int) -> None:
        """The token moves on to `target`, keeping its number and its place in token order."""
        self._put(number, self._arrived(number, target, via))

    def _put(self, number: int, token: Token) -> None:
        """Token `number` replaced by `token`, in its place in token order."""
        self.tokens = tuple(token if t[0] == number else t for t in self.tokens)

    def _spawn(self, target: int, via: int) -> None:
        self.tokens = (*self.tokens, self._arrived(self.next_id, target, via))
        self.next_id += 1

    def _group(self, number: int, at: int, times: int) -> None:
        """Token `number`, arrived at an action node of multiplicity `times`, begins its performances: it and
        `times - 1` tokens more stand there, each to perform it at a move of its own (the interpreter's
        group, each new token a unit of the step budget)."""
        if any(t[1] == at for t in self.tokens if t[0] != number):
            raise self._second_group(at)
        twins = []
        for _ in range(times - 1):
            self._pass()
            twins.append((self.next_id, at, _MEMBER, -1, ()))
            self.next_id += 1
        self._put(number, (number, at, _MEMBER, -1, ()))
        self.tokens = (*self.tokens, *twins)

    def _second_group(self, at: int) -> NotFlat:
        """A token at the node of multiplicity at `at` while the performances an earlier arrival began there
        still run: the flat form keeps one group a node, and the interpreter searches."""
        return NotFlat(f"node {self.action.nodes[at].name}: a token arrived where the performances of an earlier "
                       "arrival still run")

    def _follow(self, number: int, at: int) -> None:
        node = self.action.nodes[at]
        if node.times > 1:
            # the performances of a node with multiplicity: the last one to end goes on
            others = [t for t in self.tokens if t[1] == at and t[0] != number]
            if any(t[3] < 0 and t[2] != _MEMBER for t in others):
                raise self._second_group(at)
            if others:
                self._remove(number)
                return
        targets = node.targets
        if node.conditions:  # each guard read, in order: the successions whose guards hold are taken
            targets = tuple([target for target, guard in zip(targets, node.conditions, strict=True)
                             if guard is None or _boolean(guard(self.slots))])
            if not targets:
                self._remove(number)  # none: the token is consumed there
                return
        if len(targets) == 1:
            self._place(number, targets[0], at)
            return
        for target in targets:
            self._spawn(target, at)
        self._remove(number)

    def _untaken(self, number: int, at: int) -> list[Token]:
        """The tokens left when token `number` joins those waiting at `at`: it is taken, and for each other
        succession that delivered there the first token come over it (a second waits for the next
        performance or firing: the interpreter's `_join`)."""
        came = {u[2] for u in self.tokens if u[0] == number}
        left = []
        for u in self.tokens:
            if u[0] == number:
                continue
            if u[1] == at and u[3] < 0 and u[2] not in came:
                came.add(u[2])
                continue
            left.append(u)
        return left

    def _joined(self, number: int, at: int) -> int:
        """The token that performs the action node at `at` once every source it awaits has delivered: the one
        arrived, where no other succession has delivered there; else a new one, taking one token per
        succession that delivered (the interpreter's `_join`)."""
        left = self._untaken(number, at)
        if len(left) == len(self.tokens) - 1:
            self._put(number, (number, at, -1, -1, ()))
            return number
        joined = self.next_id
        self.next_id += 1
        self.tokens = (*left, (joined, at, -1, -1, ()))
        return joined

    def _decide(self, number: int, node: _Node, at: int, option: str | None) -> None:
        chosen = -1
        for name, target, guard in node.guards:
            if option is not None and name != option:
                continue
            if guard is None or _boolean(guard(self.slots)):
                chosen = target
                break
        if chosen < 0:
            chosen = node.otherwise
        if chosen < 0:
            raise RunError(f"no branch of decision {node.name} holds")
        self._place(number, chosen, at)

    def _enter(self, number: int, at: int, body: _Body) -> None:
        self._alone(at, body)
        if body.takes or body.reads:
            given = self._taken(body.takes)
            for pin, feature in body.reads:
                self._set(pin, self.slots[feature])
                given.add(pin)
            for slot, value in body.locals:
                if slot not in given:
                    self._set(slot, value(self.slots))
        else:
            for slot, value in body.locals:
                self._set(slot, value(self.slots))
        self.ended &= ~body.bit
        if not body.initial:
            self._completed(number, at)  # (declarations alone: its performance ends with its start shot)
            return
        self._branch(number, at, body.initial, (number,))

    def _alone(self, at: int, body: _Body) -> None:
        """A performance of the node at `at` begins: where another runs there still (two tokens merged into
        it) and the body has slots of its own (its features, a `for` loop's range and variable), each
        performance would need its own where the flat form has one; the interpreter searches."""
        if body.owns:
            for t in self.tokens:
                if t[1] == at and t[3] >= 0:
                    raise NotFlat(f"node {self.action.nodes[at].name}: two performances at once, each with "
                                  "features or a loop of its own")

    def _for(self, number: int, at: int, inside: int, chain: tuple[int, ...], loop: _Statement) -> None:
        """A `for` loop's next element taken, and its pass entered; or, with none left, the loop ended. What it
        iterates is read at its first test (a range's bounds, or the elements of a sequence written out, `(a,
        b, c)`: the collection is read once) and held in its slots beside the passes made."""
        reads = loop.items if loop.items is not None else loop.elements
        assert reads is not None
        slot, slots, width = loop.slot, self.slots, len(reads)
        if inside == loop.again:
            held, made = slots[slot:slot + width], slots[slot + width]
        else:
            held, made = tuple(read(slots) for read in reads), 0
            if loop.elements is not None and any(v == UNSET or v is None for v in held):
                # an element with no value is no element (the sequence is shorter): the interpreter searches
                raise NotFlat(f"node {self.action.nodes[at].name}: a for loop's element with no value")
        if loop.items is not None:
            element, more = held[0] + made, held[0] + made <= held[1]
        else:
            element, more = (held[made] if made < width else UNSET), made < width
        if not more:
            self.slots = (*slots[:slot], *(UNSET,) * (width + 1), *slots[slot + width + 1:])
            self._went_on(number, at, inside, chain)
            return
        self._pass()
        # (each number a slot of its own: -1 and -2, which Python hashes alike, told apart in the fingerprint)
        self.slots = (*slots[:slot], *held, made + 1, *slots[slot + width + 1:])
        self._set(loop.var, element)
        self._branch(number, at, loop.then, (number, *chain))

    def _pass(self) -> None:
        """A loop's pass begins: a unit of the step budget, as each move is."""
        self.spent += 1
        if self.spent > self.action.max_steps:
            raise RunError("step limit exceeded")

    def _branch(self, number: int, at: int, initial: tuple[int, ...], chain: tuple[int, ...]) -> None:
        """Token `number` enters a flow of statements at `initial` (the body's, a branch's or a pass's): the
        first of its tokens keeps its number, the others take new ones (the highest)."""
        inner = [(number, at, -1, initial[0], chain)]
        for i in initial[1:]:
            inner.append((self.next_id, at, -1, i, chain))
            self.next_id += 1
        kept = [t for t in self.tokens if t[0] != number]
        # the inner tokens stand where the entering one stood in token order; new numbers are the highest
        position = next(i for i, t in enumerate(self.tokens) if t[0] == number)
        self.tokens = (*kept[:position], inner[0], *kept[position:], *inner[1:])

    def _went_on(self, number: int, at: int, inside: int, chain: tuple[int, ...]) -> None:
        """The statement at `inside` is done: token `number` goes on to those ordered after it; where none
        is, and no other token stands in its flow, the flow ends, and the token that entered it goes on
        (an `if`'s from its statement, the node's from the node)."""
        body = self.action.nodes[at].body
        assert body is not None
        statement = body.statements[inside]
        after = statement.successors
        if len(after) == 1:  # the statement a succession orders after it: the token moves on to it
            self._put(number, (number, at, -1, after[0], chain))
            return
        if after:  # several: a token for each, this one gone
            for target in after:
                self.tokens = (*self.tokens, (self.next_id, at, -1, target, chain))
                self.next_id += 1
            self._remove(number)
            return
        if not chain:  # an `if` or a loop standing in the flow itself ended: its token goes on from the node
            self._completed(number, at)
            return
        if len(body.statements) > 1:
            # another token in its flow (or in a branch entered there), whose chain ends with this one's:
            # this one gone, that one goes on
            # (a token of another performance of a statement standing in the flow may stand at that statement,
            # its chain empty: no suffix of it is this one's)
            depth = len(chain)
            for t in self.tokens:
                if t[1] == at and t[0] != number and t[3] >= 0 and t[4][-depth:] == chain:
                    self._remove(number)
                    return
        # the flow ends: the token that entered it stands where it stood again, in its number's place (a
        # loop's after a pass, its next test a move of its own)
        entered, around, owner = chain[0], chain[1:], statement.owner
        again = body.statements[owner].again if owner >= 0 else -1
        if again >= 0 and body.statements[owner].var >= 0:
            self._set(body.statements[owner].var, UNSET)  # (a `for` pass's element, bound in it alone)
        back = (entered, at, -1, owner if again < 0 else again, around)
        if number == entered:
            self._put(number, back)
        else:
            self.tokens = tuple(sorted((*(t for t in self.tokens if t[0] != number), back)))
        if owner < 0:
            self._completed(entered, at)
        elif again < 0:
            self._ended(body.statements[owner])
            self._went_on(entered, at, owner, around)  # the branch ended, and its `if` with it

    def _terminate(self, at: int, entered: int) -> None:
        """A `terminate;` in the body of the node at `at` ends the performance token `entered` began: every
        token of it is dropped wherever it stands (its `if` branches' and loop passes' too), and the token
        that entered it stands at the node again and goes on (the interpreter's `_terminated`)."""
        back: Token = (entered, at, -1, -1, ())
        standing = any(t[0] == entered for t in self.tokens)  # (then one of the performance's own)
        left = [back if t[0] == entered else t for t in self.tokens
                if t[0] == entered or not (t[1] == at and t[3] >= 0 and t[4] and t[4][-1] == entered)]
        self.tokens = tuple(left) if standing else tuple(sorted((*left, back)))
        self._completed(entered, at)

    def _completed(self, number: int, at: int) -> None:
        """The performance at `at` ended and its token `number`, standing there, goes on."""
        body = self.action.nodes[at].body
        assert body is not None
        if body.returns:
            self._return(body.returns)
        for pin, delivery, always in body.delivers:
            value = self.slots[pin]
            if value != UNSET and (always or self.slots[delivery.staged] == ABSENT):
                self._deliver(delivery, value)
        for pin, feature in body.writes:
            value = self.slots[pin]
            if value == UNSET:
                raise RunError("a pin bound to a feature ended with no value")  # (worded by the interpreter)
            self._write(feature, value)
        self._sealed(body.sealed_drop, body.bit)
        if body.halts:
            self._halt()
            return
        self._follow(number, at)

    def _return(self, returns: tuple[tuple[int, int, bool], ...]) -> None:
        """A typed step's performance ended: its outputs written to the features they return to."""
        for param, feature, bound in returns:
            value = self.slots[param]
            if bound and value == UNSET:
                raise RunError("an output bound to a feature ended with no value")  # (worded by the interpreter)
            self._write(feature, value)

    def _ended(self, statement: _Statement) -> None:
        """A statement whose statements all ended: an action usage's performance ends (an `if` holds none)."""
        if statement.returns:
            self._return(statement.returns)
        if statement.bit or statement.drop:
            self._sealed(statement.drop, statement.bit)

    def _sealed(self, drop: tuple[int, ...], bit: int) -> None:
        """A performance ended: what no expression reads again left out, and the end marked."""
        self._clear(drop)
        self.ended |= bit

    def _clear(self, slots: tuple[int, ...]) -> None:
        """These slots hold no value."""
        if slots:
            held = list(self.slots)
            for slot in slots:
                held[slot] = UNSET
            self.slots = tuple(held)


def _performances(tokens: tuple[Token, ...], places: list[tuple[int, ...]]) -> tuple[object, ...]:
    """The tokens' places (`places[i]` token i's) as a multiset; and where two performances have one path
    (their tokens at one node, as deep: a node performed twice at once), which places stand in one
    performance, as the interpreter's key groups its tokens by flow (engines/runtime/actions/state.py):
    each performance its places and the performances inside it, sorted."""
    shapes: dict[tuple[int, ...], tuple[int, int]] = {}  # each performance (a chain, and those around it)
    for t in tokens:
        chain = t[4]
        while chain and chain not in shapes:
            shapes[chain] = (t[1], len(chain))
            chain = chain[1:]
    if len(set(shapes.values())) == len(shapes):  # no two performances alike: the multiset says all
        return tuple(sorted(places))
    own: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    inside: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for t, place in zip(tokens, places, strict=True):
        own.setdefault(t[4], []).append(place)
    for chain in shapes:
        inside.setdefault(chain[1:], []).append(chain)

    def tree(chain: tuple[int, ...]) -> tuple[object, ...]:
        return (tuple(sorted(own.get(chain, ()))), tuple(sorted(tree(c) for c in inside.get(chain, ()))))
    return ("grouped", tree(()))


def _boolean(value: Value) -> bool:
    if not isinstance(value, bool):
        raise RunError("guard is not Boolean")
    return value


# ---------------------------------------------------------------- lowering


def _type_of(attr: Attribute, where: str, own: bool = False, pin: bool = False) -> type:
    """An attribute's declared type, where the flat form covers the attribute; `own`: one of the searched
    action's own, or of a step's body, where a direction (`out attribute total : Integer = 0`) changes
    nothing: no performance binds it, and its value is read and written as any other's; `pin`: a step's
    directed feature with no value (`out v : Integer;`), which holds none until written or given by a flow."""
    kind = _TYPES.get(attr.type_text)
    decl = attr.decl
    if kind is None:
        raise NotFlat(f"{where}: attribute {attr.name} of type {attr.type_text or '(none)'}")
    if (attr.value is None and not pin) or (attr.direction and not own and not pin) or attr.is_item:
        raise NotFlat(f"{where}: attribute {attr.name} has no value, a direction, or is an item")
    if isinstance(decl, s.Usage) and (decl.short_name or decl.redefines or decl.constant or decl.members):
        raise NotFlat(f"{where}: attribute {attr.name} has a short name, redefines, is constant or has members")
    return kind


def _declared(attr: Attribute, scope: _Scope, where: str, own: bool = False) -> tuple[Eval, type]:
    """An attribute's initial value, of its declared type, and that type (`own`: see `_type_of`)."""
    kind = _type_of(attr, where, own)
    assert attr.value is not None
    value, given = _expr(attr.value, scope)
    if given is not kind:
        raise NotFlat(f"{where}: the initial value of {attr.name} is not of its type")
    return value, kind


class _Scope:
    """The slots names find, innermost first; and where a name invoked is looked up in the model (the
    elements of the frames the interpreter would hold there, innermost first)."""

    def __init__(self, slots: dict[str, tuple[int, type]], outer: _Scope | None = None,
                 element: Element | None = None, model: Model | None = None, calling: tuple[str, ...] = ()) -> None:
        self.slots = slots
        self.outer = outer
        self.element = element
        self.unset: set[int] = set()  # the slots that may hold no value where read (`may_be_unset`)
        # of the searched action's scope: the features of its action nodes a chain (`plan.target`) reads, by
        # node and feature: the node's element, and each feature's slot (given as its body is lowered) and type
        self.steps: dict[str, tuple[Element | None, dict[str, tuple[list[int], type]]]] = {}
        self.cells: list[list[int]] = []  # of the searched action's scope: the cells the chains lowered read
        self.model: Model | None = model if model is not None or outer is None else outer.model
        # the calculations whose result this scope's expressions are part of, outermost first
        self.calling: tuple[str, ...] = calling if calling or outer is None else outer.calling

    def around(self) -> Iterator[_Scope]:
        """This scope and those around it, innermost first."""
        at: _Scope | None = self
        while at is not None:
            yield at
            at = at.outer

    def invoked(self, name: str) -> Element | None:
        """The element an invocation of `name` names, as the interpreter's frames look it up."""
        if self.model is None:
            return None
        for at in self.around():
            if at.element is not None:
                found = lookup(self.model, at.element, name)
                if found is not None:
                    return found
        return None

    def find(self, name: str) -> tuple[int, type] | None:
        for at in self.around():
            found = at.slots.get(name)
            if found is not None:
                return found
        return None

    def step_feature(self, step: str, feature: str) -> tuple[list[int], type] | None:
        """The slot (a cell filled as the step's body is lowered) and type of the feature a chain `step.feature`
        reads, where `step` names an action node of the searched action from here, as the interpreter's
        frames find its pin: no feature of that name is nearer, and the name finds the node's element."""
        if self.find(step) is not None:
            return None
        for at in self.around():
            held = at.steps.get(step)
            if held is not None:
                element, features = held
                if element is None or self.invoked(step) is not element:
                    return None
                return features.get(feature)
        return None

    def may_be_unset(self, slot: int) -> bool:
        """Whether the slot may hold no value where it is read (a typed step's parameter bound to nothing)."""
        return any(slot in at.unset for at in self.around())


def _expr(e: s.Expr, scope: _Scope) -> tuple[Eval, type]:
    if isinstance(e, s.Literal):
        kind = _LITERALS.get(e.kind)
        if kind is None or len(e.text) > operators.MAX_DIGITS:
            raise NotFlat(f"a {e.kind} literal")
        constant = _told_apart(Evaluator.literal(e))
        return (lambda _: constant), kind
    if isinstance(e, s.Name):
        found = scope.find(e.name)
        if found is None:
            raise NotFlat(f"the name {e.name}")
        slot, kind = found
        if scope.may_be_unset(slot):
            return _read_held([slot], e.name), kind
        return (lambda v: v[slot]), kind
    if isinstance(e, s.Chain) and isinstance(e.base, s.Name):
        held = scope.step_feature(e.base.name, e.feature)
        if held is None:
            raise NotFlat(f"the chain {e.base.name}.{e.feature}")
        cell, kind = held
        scope.cells.append(cell)
        return _read_held(cell, f"{e.base.name}.{e.feature}"), kind
    if isinstance(e, s.Unary) and e.op in ("-", "+", "not"):
        inner, kind = _expr(e.operand, scope)
        if (kind is bool) != (e.op == "not") or kind is str:
            raise NotFlat(f"operator {e.op} on a {kind.__name__}")
        op = e.op
        return (lambda v: _told_apart(operators.unary(op, inner(v)))), kind
    if isinstance(e, s.Binary):
        left, lk = _expr(e.left, scope)
        right, rk = _expr(e.right, scope)
        op = e.op
        if lk is not rk:
            raise NotFlat(f"operator {op} over {lk.__name__} and {rk.__name__}")
        if op in _ARITHMETIC and lk is int:
            return _integer(op, left, right), int
        if op == "+" and lk is str:
            return (lambda v: operators.binary(op, left(v), right(v))), str
        if (op in _ARITHMETIC and lk in _NUMBERS) or (op == "%" and lk in _NUMBERS) or (op == "/" and lk is Fraction):
            return (lambda v: _told_apart(operators.binary(op, left(v), right(v)))), lk
        if op == "/" and lk is int:  # two Integers divide to a Real (Fraction: 7 / 2 is 3.5)
            return (lambda v: _told_apart(operators.binary(op, left(v), right(v)))), Fraction
        if op in _COMPARE and lk is not bool:
            return (lambda v: operators.binary(op, left(v), right(v))), bool
        if op in _EQUAL:
            return (lambda v: operators.binary(op, left(v), right(v))), bool
        if op in ("**", "^") and lk in _NUMBERS and _whole_literal(e.right):
            # a power whose exponent is written as a whole number: of the base's type (a negative or
            # computed exponent may make an Integer's power a Rational, a type known only when it runs)
            return (lambda v: _told_apart(operators.binary(op, left(v), right(v)))), lk
        if op in _LOGIC and lk is bool:
            if op == "and":
                return (lambda v: left(v) and right(v)), bool
            if op == "or":
                return (lambda v: left(v) or right(v)), bool
            if op == "implies":
                return (lambda v: (not left(v)) or right(v)), bool
            return (lambda v: left(v) != right(v)), bool
        raise NotFlat(f"operator {op}")
    if isinstance(e, s.Call):
        return _call(e, scope)
    if isinstance(e, s.Conditional):  # `if c ? a else b`: only the branch the condition picks is read
        test, ck = _expr(e.condition, scope)
        then, tk = _expr(e.then, scope)
        otherwise, ok = _expr(e.otherwise, scope)
        if ck is not bool or tk is not ok:
            raise NotFlat("a conditional expression whose condition is not Boolean or whose branches differ in type")
        return (lambda v: then(v) if test(v) else otherwise(v)), tk
    raise NotFlat(f"the expression {type(e).__name__}")


# what a library function's declared result is, where the flat form knows its values' type from it alone
_RESULTS: dict[str, type] = {"Integer": int, "Natural": int, "Boolean": bool, "String": str}
_OF_ITS_ARGUMENTS = frozenset(("abs", "max", "min"))  # numeric: of their arguments' one type


def _call(e: s.Call, scope: _Scope) -> tuple[Eval, type]:
    """A library function invoked with plain values (`ToString(n)`, `abs(x - y)`, `max(a, b)`,
    `floor(r)`): the interpreter's own function applied, its arguments checked as there; or a model's
    calculation (`_calculation`)."""
    callee = e.callee
    if not isinstance(callee, s.Name) or e.arrow or any(isinstance(a, s.Lambda) for a in e.args):
        raise NotFlat("the expression Call")
    element = scope.invoked(callee.name)
    if element is not None and not element.library and element.base_kind == "calc":
        return _calculation(element, e, scope)
    if e.named:
        raise NotFlat("the expression Call")
    function = FUNCTION_BY_NAME.get(element.qualified_name) if element is not None and element.library else None
    if function is None or any(p.many or p.type == BODY for p in function.params):
        raise NotFlat(f"an invocation of {callee.name}")
    args = [_expr(a, scope) for a in e.args]
    kinds = {kind for _, kind in args}
    result = _RESULTS.get(function.result)
    if result is None and function.name in _OF_ITS_ARGUMENTS and len(kinds) == 1 and kinds <= set(_NUMBERS):
        (result,) = kinds
    if result is None:
        raise NotFlat(f"an invocation of {callee.name}, whose result's type the flat form does not know")
    reads = tuple(read for read, _ in args)

    def value(v: Slots) -> Value:
        return _told_apart(call_library(function, [read(v) for read in reads], {}))
    return value, result


def _calculation(calc: Element, e: s.Call, scope: _Scope) -> tuple[Eval, type]:
    """A model's calculation invoked (`Twice(v)`, `Cost(qty = n)`), as the interpreter invokes one: every
    argument read (by place, then by name, as written), then each input bound in its order (by name, else
    by place, else to its default, which sees the inputs before it), each of the type its value has, and
    the result read with the inputs alone in scope (the caller's features are not). Refused: an input left
    unbound, an argument no input takes, a calculation invoked within itself (the interpreter's nesting
    limit), a result that reads anything but the inputs, library functions and other calculations."""
    name = calc.qualified_name
    if name in scope.calling or len(scope.calling) >= MAX_CALC_DEPTH:
        raise NotFlat(f"the calculation {calc.name} invoked within itself")
    inputs = calc_inputs(calc)
    names = [m.name for m in inputs]
    if len(e.args) > len(inputs) or any(n not in names for n, _ in e.named):
        raise NotFlat(f"an invocation of {calc.name} with an argument none of its inputs takes")
    placed = [_expr(a, scope) for a in e.args]
    named = {n: _expr(v, scope) for n, v in e.named}
    reads = tuple(read for read, _ in placed) + tuple(read for read, _ in named.values())
    order = {n: len(placed) + i for i, n in enumerate(named)}  # where a named argument's value stands
    inner = _Scope({}, None, element=calc, model=scope.model, calling=(*scope.calling, name))
    # how each input is bound, in order: the place of a value read above, or a default over the inputs before
    binding: list[int | Eval] = []
    for i, (attr, decl) in enumerate((m, m.decl) for m in inputs):
        assert isinstance(decl, s.Usage)
        if attr.name in named:
            binding.append(order[attr.name])
            kind = named[attr.name][1]
        elif i < len(placed):
            binding.append(i)
            kind = placed[i][1]
        elif decl.value is not None:
            default, kind = _expr(decl.value, inner)
            binding.append(default)
        else:
            raise NotFlat(f"an invocation of {calc.name} leaving its input {attr.name} unbound")
        inner.slots[attr.name] = (i, kind)
    given = calc_result(calc)
    if given is None:
        raise NotFlat(f"the calculation {calc.name}, which states no result")
    result, kind = _expr(given, inner)

    def value(v: Slots) -> Value:
        values = [read(v) for read in reads]
        frame: list[Value] = []
        for b in binding:
            frame.append(values[b] if isinstance(b, int) else b(tuple(frame)))
        return result(tuple(frame))
    return value, kind


def _whole_literal(e: s.Expr) -> bool:
    """Whether `e` is an Integer literal (not negative: a literal carries no sign)."""
    return isinstance(e, s.Literal) and e.kind == "integer"


# Python hashes an Integer modulo the prime 2**61 - 1 (2**62 as 2, a Fraction a/b as a times b's inverse
# there), so the fingerprint, one hash of the state's tuple, would take two states apart by such values alone
# for one (found: a loop doubling past 2**61 stopped at a state it had "seen"). Integers below it hash apart
# (but -1 and -2, see `fingerprint`), and so do Fractions whose parts are below 2**30 (a cross product below
# the prime); a number beyond them hands the search to the interpreter, whose fingerprint hashes the bytes.
_SMALL = (1 << 61) - 1
_PART = 1 << 30


def _told_apart(value: Value) -> Value:
    """A number the fingerprint tells apart from every other (above), or NotFlat."""
    if type(value) is int:
        if -_SMALL < value < _SMALL:
            return value
    elif type(value) is not Fraction or (-_PART < value.numerator < _PART and value.denominator < _PART):
        return value
    raise NotFlat("a number too large for the flat form's fingerprint to tell apart")



def _integer(op: str, left: Eval, right: Eval) -> Eval:
    """`+ - *` on two Integers, as operators.binary computes them: a result past _SMALL is bounded there (a
    number too large to hold refused as the interpreter words it, one it holds refused by `_told_apart`)."""
    apply = {"+": operator.add, "-": operator.sub, "*": operator.mul}[op]

    def value(v: Slots) -> Value:
        result = apply(left(v), right(v))
        return result if -_SMALL < result < _SMALL else _told_apart(operators.bounded(result, op))
    return value


def _assign(stmt: s.Member, scope: _Scope) -> _Assign:
    if not isinstance(stmt, s.Assign):
        raise NotFlat(f"the statement {type(stmt).__name__}")
    found = scope.find(stmt.target)
    if found is None:
        raise NotFlat(f"an assignment to {stmt.target}")
    value, kind = _expr(stmt.value, scope)
    if kind is not found[1]:
        raise NotFlat(f"an assignment of a {kind.__name__} to {stmt.target}")
    return _Assign(found[0], value)


def lower(program: Any, subject: str, readable: frozenset[str] | None, replay: Callable[[list[Move]], str],
          max_steps: int) -> FlatAction:
    """The action flat, or NotFlat naming what it does not cover."""
    action = program.action(subject)
    graph: ActionGraph = program.graph(action)
    if (graph.flows or graph.binds) and not graph.connections:
        raise NotFlat("flows or bindings")
    if not graph.initial:
        raise NotFlat("an action with no node to start at")
    names: dict[str, tuple[int, type]] = {}
    scope = _Scope(names, element=graph.scope, model=program.model)
    initial: list[Value] = []
    for attr in graph.attributes:
        value, kind = _declared(attr, scope, subject, own=True)
        initial.append(value(tuple(initial)))
        names[attr.name] = (len(initial) - 1, kind)
    # (after the action's own values, read before any step begins: a chain there reads no step)
    scope.steps = _steps(program, graph)
    outputs = tuple(sorted((name, slot) for name, (slot, _) in names.items()))
    bits = 0
    nodes: list[_Node] = []
    places: dict[int, list[_Place]] = {}
    for node in graph.nodes:
        accept = _accept(graph, node, scope, initial)
        if accept is not None:
            body, places[node.index] = None, []
        else:
            body, bits_used, places[node.index] = _body(program, graph, node, scope, initial, readable, bits)
            bits += bits_used
        nodes.append(_node(graph, node, scope, body, accept))
    if any(cell[0] < 0 for cell in scope.cells):
        raise NotFlat("a chain to a feature its step gives no slot")
    streams = _connected(program, graph, nodes, scope, names, initial)
    grouped = any(n.times > 1 for n in nodes)
    repeats = grouped or any(n.kind is NodeKind.MERGE or (n.kind not in (NodeKind.JOIN, NodeKind.DONE) and len(
        {e.source for e in graph.incoming(n.index)}) > 1) for n in graph.nodes)
    halts = any(n.body is not None and (n.body.halts or any(st.halts for st in n.body.statements)) for n in nodes)
    if halts and any(value is _unset for n in nodes if n.body is not None
                     for _, value in (*n.body.locals, *(local for st in n.body.statements for local in st.locals))):
        # a step cut short keeps its frame, and lists a feature it holds no value in, where one never begun
        # lists none: the flat form holds no value alike for both
        raise NotFlat("a terminate of the whole action beside a step whose features may start with no value")
    loops = tuple(sorted({slot for n in nodes if halts and n.body is not None
                          for st in n.body.statements for slot in _loop_slots(st)}))
    flat = FlatAction(tuple(nodes), graph.initial, tuple(initial), outputs, max_steps, replay, grouped=grouped,
                      repeats=repeats, loops=loops, streams=streams)
    _footprints(graph, places, flat)
    return flat


def _connected(program: Any, graph: ActionGraph, nodes: list[_Node], scope: _Scope, own: dict[str, tuple[int, type]],
               initial: list[Value]) -> dict[int, tuple[_Delivery, ...]]:
    """The flows between the pins of the action's own steps (`flow read.v to scale.x`, `succession flow ...`),
    as the interpreter runs them (engines/runtime/actions/connections.py): each target pin given a slot for
    what was delivered to it (part of the state, as the interpreter's staged deliveries are), taken by its
    node's start shot; a flow's source streaming each value written to its pin, and handing over, as it
    ends, what it ended with where it delivered nothing before; a succession flow handing it over as its
    source ends; a pin bound to one of the action's own features (`own`) reading it at the start shot and
    writing it back as it ends. `nodes` get their bodies' `takes`, `delivers`, `reads` and `writes`;
    returns each pin's streams."""
    index = {n.name: n.index for n in graph.nodes}
    staged: dict[tuple[int, str], int] = {}
    takes: dict[int, list[tuple[int, int, int]]] = {}
    delivers: dict[int, list[tuple[int, _Delivery, bool]]] = {}
    streams: dict[int, list[_Delivery]] = {}
    reads: dict[int, list[tuple[int, int]]] = {}
    writes: dict[int, list[tuple[int, int]]] = {}
    targeted: set[int] = set()  # the pins a connection gives a value (one connection each)

    def pin(text: tuple[str, ...], target: bool) -> tuple[int, int, type]:
        at = index.get(text[0], -1) if len(text) == 2 else -1
        node = nodes[at] if at >= 0 else None
        step = scope.steps.get(text[0])
        feature = step[1].get(text[1]) if step is not None else None
        body = graph.nodes[at].body if at >= 0 else None
        if node is None or node.code != _ENTER or node.times != 1 or feature is None or feature[0][0] < 0 \
                or (target and body is not None and text[1] in dict(body.bindings)):
            raise NotFlat(f"a flow between {'.'.join(text)} and what the flat form does not hold as a step's pin")
        return at, feature[0][0], feature[1]

    for connection in graph.connections:
        source, target = connection.source, connection.target
        if connection.kind is ConnectionKind.BIND and source.pin != target.pin:
            end, feature = (source, target) if source.pin else (target, source)
            at, slot, kind = pin(end.path, True)
            held = own.get(feature.path[0]) if len(feature.path) == 1 else None
            if held is None or held[1] is not kind or slot in targeted:
                raise NotFlat(f"a binding of {end.text} to what the flat form does not hold as the action's feature, "
                              "or to a pin another connection gives a value")
            targeted.add(slot)
            direction = _direction(program, graph.nodes[at], end.path[1])
            if direction != "out":
                reads.setdefault(at, []).append((slot, held[0]))
            if direction != "in":
                writes.setdefault(at, []).append((slot, held[0]))
            continue
        if not source.pin or not target.pin:
            raise NotFlat("a flow from or to what is no step's pin")
        bound = connection.kind is ConnectionKind.BIND
        # (a binding between two pins carries each one's writes to the other, as a flow each way does)
        for near, far in connection.ends():
            at, slot, kind = pin(near.path, False)
            into, pin_slot, pin_kind = pin(far.path, True)
            if kind is not pin_kind or (bound and at == into):
                raise NotFlat(f"a flow from a {kind.__name__} to a {pin_kind.__name__}, or a binding within one step")
            key = (into, far.path[1])
            if key in staged or pin_slot in targeted:
                raise NotFlat(f"a pin, {far.text}, given a value by two connections")
            targeted.add(pin_slot)
            staged[key] = len(initial)
            initial.append(ABSENT)
            if not (bound and _direction(program, graph.nodes[into], far.path[1]) == "out"):
                takes.setdefault(into, []).append((pin_slot, staged[key], slot if bound else -1))
            delivery = _Delivery(staged[key], pin_slot, into)
            succession = connection.kind is ConnectionKind.SUCCESSION_FLOW
            delivers.setdefault(at, []).append((slot, delivery, succession))
            if not succession:
                streams.setdefault(slot, []).append(delivery)
    for at, node in enumerate(nodes):
        if at in takes or at in delivers or at in reads or at in writes:
            assert node.body is not None
            nodes[at] = replace(node, body=replace(node.body, takes=tuple(takes.get(at, ())),
                                                   delivers=tuple(delivers.get(at, ())),
                                                   reads=tuple(reads.get(at, ())), writes=tuple(writes.get(at, ()))))
    return {slot: tuple(out) for slot, out in streams.items()}


def _direction(program: Any, node: Node, name: str) -> str | None:
    """The direction of a step's feature."""
    assert node.body is not None
    return next((a.direction for a in _step_attributes(program, node.body) if a.name == name), None)


def _step_attributes(program: Any, body: Any) -> tuple[Attribute, ...]:
    """A step's features: its own, or, typed by an action def, the def's."""
    if body.performs is not None and body.performs.base_kind == "action":
        return tuple(program.graph(body.performs).attributes)
    return tuple(body.attributes)


def _loop_slots(statement: _Statement) -> range:
    """The slots a `for` loop holds while it runs, its variable the last (none for any other statement)."""
    return range(statement.slot, statement.var + 1) if statement.slot >= 0 else range(0)


def _send(stmt: s.Send, scope: _Scope) -> _Send:
    """`send payload` or `send payload to name`: a scalar payload, addressed by a name (as the interpreter
    addresses it: by the name's text) or to no one."""
    if stmt.via is not None:
        raise NotFlat("a send via a port")
    to = ""
    if stmt.to is not None:
        if not isinstance(stmt.to, s.Name):
            raise NotFlat("a send to what is not a name")
        to = stmt.to.name
    payload, kind = _expr(stmt.payload, scope)
    if kind not in _MESSAGES.values():
        raise NotFlat("a send of a Real (the flat form carries Integers, Booleans and Strings)")
    return _Send(payload, to)


# the payloads a message carries in the flat form: `conforms` tells them apart by their Python type alone
_MESSAGES: dict[str, type] = {"Integer": int, "Boolean": bool, "String": str}


def _accepted(graph: ActionGraph, node: Node) -> tuple[s.Accept, bool] | None:
    """The accept a node takes a message by, and whether it takes one sent to any name: an accept node (an
    accept standing in the flow, or an action usage that is one accept: addressed to it, to `this` or to
    no one), or an action node whose body is one accept statement (any address)."""
    stmt = graph.accepts[node.index]
    if stmt is not None:
        return stmt, False
    body = node.body
    if node.kind is NodeKind.ACTION and body is not None and body.flow is None and not body.attributes \
            and body.performs is None and not body.bindings and not body.outputs and not body.terminate \
            and len(body.statements) == 1 and isinstance(body.statements[0], s.Accept):
        return body.statements[0], True
    return None


def _accept(graph: ActionGraph, node: Node, scope: _Scope, initial: list[Value]) -> _Accept | None:
    """A node taking one message of a scalar type (`action desk accept n : Integer;`), its payload given a
    slot (a chain `desk.n` reads it); None where the node takes none."""
    found = _accepted(graph, node)
    if found is None:
        return None
    stmt, anywhere = found
    trigger = stmt.trigger
    short = (trigger.signal or "").rsplit("::", 1)[-1]
    if trigger.kind is not s.TriggerKind.SIGNAL or trigger.via or trigger.subsets or not trigger.payload \
            or short not in _MESSAGES or stmt.members or node.multiplicity != 1:
        raise NotFlat(f"node {node.name}: an accept of what is no Integer, Boolean or String, via a port, with a "
                      "body or a multiplicity")
    slot = len(initial)
    initial.append(UNSET)
    _laid_out(scope, node.name, {trigger.payload: (slot, _MESSAGES[short])})
    return _Accept(short, slot, anywhere)


def _node(graph: ActionGraph, node: Node, scope: _Scope, body: _Body | None, accept: _Accept | None = None) -> _Node:
    where = f"node {node.name}"
    incoming = graph.incoming(node.index)
    outgoing = graph.outgoing(node.index)
    if graph.accepts[node.index] is not None and accept is None:
        raise NotFlat(f"{where}: an accept")
    sources = sorted({e.source for e in incoming})
    if node.multiplicity != 1 and (node.index in graph.converging or len(sources) > 1):
        raise NotFlat(f"{where}: a multiplicity on a node successions from several nodes reach")
    awaits: tuple[tuple[int, frozenset[int]], ...] = ()
    if node.kind not in (NodeKind.JOIN, NodeKind.MERGE, NodeKind.DONE) and len(sources) > 1:
        if node.kind not in (NodeKind.ACTION, NodeKind.STATEMENT):
            raise NotFlat(f"{where}: successions from several nodes into a fork or a decision")
        awaits = tuple((source, frozenset(n.index for n in graph.nodes if graph.reaches(n.index, source, node.index)))
                       for source in sources)
    if node.kind not in (NodeKind.ACTION, NodeKind.STATEMENT) and node.body is not None \
            and (node.body.statements or node.body.attributes):
        raise NotFlat(f"{where}: a control node's body")
    guards: list[tuple[str, int, Eval | None]] = []
    conditions: list[Eval | None] = []
    otherwise = -1
    for edge in outgoing:
        if node.kind is NodeKind.DECIDE:
            if edge.is_else:
                otherwise = edge.target
                continue
            guard = None
            if edge.guard is not None:
                guard, kind = _expr(edge.guard, scope)
                if kind is not bool:
                    raise NotFlat(f"{where}: a guard that is not Boolean")
            guards.append((graph.nodes[edge.target].name, edge.target, guard))
        elif edge.is_else or (edge.guard is not None and node.kind is NodeKind.FORK):
            raise NotFlat(f"{where}: a guarded succession out of a fork, or an else out of no decision")
        else:
            conditions.append(None if edge.guard is None else _condition(edge.guard, scope, f"{where}: a guard"))
    code = _CODES.get(node.kind, _FOLLOW)
    if body is not None and node.multiplicity != 0:  # (`a[0]` names no performance: its successions follow)
        code = _ASSIGN if body.single is not None else _SEND if body.send is not None else _HALT if body.halts and not body.statements \
            else _STATEMENT if node.kind is NodeKind.STATEMENT else _ENTER
    if accept is not None:
        code = _ACCEPT
    return _Node(node.name, tuple(e.target for e in outgoing), node.index in graph.converging,
                 frozenset(e.source for e in incoming), tuple(guards), otherwise, body, code,
                 tuple(conditions) if any(c is not None for c in conditions) else (), awaits, max(node.multiplicity, 1),
                 accept)


# where a body's statement stands, for its footprints: its flow, its node there, and the nodes whose flows it
# stands inside, innermost first
_Place = tuple[ActionGraph, int, list[tuple[ActionGraph, int]]]


def _body(program: Any, graph: ActionGraph, node: Node, outer: _Scope, initial: list[Value], readable: frozenset[str] | None,
          bits: int) -> tuple[_Body | None, int, list[_Place]]:
    """An action node's body flat (None: a node with none, or a control node), the bits it used, and
    where each of its statements stands; a statement standing in the flow itself (`then assign ...`,
    `then if ...`, `then while ...`, `then for ...`) as a body of that one statement."""
    where = f"node {node.name}"
    if node.kind is NodeKind.STATEMENT:
        return _statement_node(program, graph, node, outer, initial, readable, bits, where)
    if node.kind is not NodeKind.ACTION:
        return None, 0, []
    decl = node.decl
    body = node.body
    if not isinstance(decl, s.Usage) or decl.kind != "action" or (decl.types and (body is None or body.performs is None)):
        raise NotFlat(f"{where}: not a plain action usage")
    if usage_assertions(program.model, graph.scope, decl):
        raise NotFlat(f"{where}: an assertion")
    if body is not None and body.performs is not None:
        return _typed(program, graph, node, outer, initial, readable, bits, where)
    if body is None:
        return None, 0, []
    if body.performs is not None or body.bindings or body.outputs:
        raise NotFlat(f"{where}: a body performing an action, or with bindings")
    if body.flow is None and not body.terminate:
        if not body.attributes and not body.statements:
            return None, 0, []
        if not body.attributes and len(body.statements) == 1 and isinstance(body.statements[0], s.Assign):
            return _Body(_assign(body.statements[0], _Scope({}, outer, element=body.scope)), (), (), (), (), 0), 0, []
        if not body.attributes and len(body.statements) == 1 and isinstance(body.statements[0], s.Send):
            return _Body(None, (), (), (), (), 0, send=_send(body.statements[0], _Scope({}, outer, element=body.scope))), 0, []
        if any(isinstance(stmt, (s.Send, s.Accept)) for stmt in body.statements):
            raise NotFlat(f"{where}: a send or an accept among other statements")
        if body.statements and not node.starts_with_a_shot():
            raise NotFlat(f"{where}: a body the interpreter performs in one move")
    first = len(initial)
    scope = _Scope({}, outer, element=body.scope)
    local_slots, drop = _features(body.attributes, scope, initial, readable, where)
    _laid_out(outer, node.name, scope.slots)
    keeps = _keeps(len(body.attributes), drop)
    bit = 1 << bits if keeps else 0
    if body.flow is None and not body.terminate and not body.statements:
        # declarations alone (`action probe { out p : Integer; }`): set and ended in one move, as the
        # interpreter's start shot with nothing after it
        return _Body(None, tuple(local_slots), (), (), tuple(drop), bit, (), True), keeps, []
    lowering = _Statements(program, body.scope, initial, where, readable, bits + keeps)
    starts = lowering.flow(program.statement_flow(node), -1, [(graph, node.index)], scope)
    if any(st.ends for st in lowering.statements) and (len(initial) > first or any(st.bit for st in lowering.statements)):
        # what a terminate drops would leave values behind in the slots of the features, loops or steps it ends
        raise NotFlat(f"{where}: a terminate in a body holding features, `for` loops or steps of its own")
    # (a terminate action usage, `action stop terminate { ... }`: its statements and its implicit terminate,
    # unordered, and its end ends the whole action)
    return (_Body(None, tuple(local_slots), tuple(lowering.statements), tuple(lowering.labels), tuple(drop), bit,
                  starts, len(initial) > first, halts=body.terminate), lowering.bits - bits, lowering.places)


def _typed(program: Any, graph: ActionGraph, node: Node, outer: _Scope, initial: list[Value],
           readable: frozenset[str] | None, bits: int, where: str) -> tuple[_Body, int, list[_Place]]:
    """An action node typed by an action def whose usage only binds its parameters (`action plan : Plan { in
    desired = 20; out target = goal; }`), as the interpreter's fine run performs it: the def's statements
    or flow entered as the node's body (`_performance`)."""
    assert node.body is not None
    first = len(initial)
    performed = _performance(program, node.body, outer, initial, readable, where, ())
    _laid_out(outer, node.name, performed.scope.slots)
    holds = _keeps(len(performed.graph.attributes), performed.drop)
    lowering = _Statements(program, performed.action, initial, where, readable, bits + holds, (performed.action,))
    starts = lowering.flow(performed.graph, -1, [(graph, node.index)], performed.scope, features=True)
    if any(st.ends for st in lowering.statements) and any(st.slot >= 0 or st.locals for st in lowering.statements):
        # what a terminate drops would leave values behind in the slots of the loops or steps it ends (its
        # parameters are ended as at any end: copied out, then what no chain reads left out)
        raise NotFlat(f"{where}: a terminate in a performance holding `for` loops or steps of its own")
    return (_Body(None, performed.locals, tuple(lowering.statements), tuple(lowering.labels), performed.drop,
                  1 << bits if holds else 0, starts, len(initial) > first, performed.returns),
            lowering.bits - bits, lowering.places)


@dataclass(frozen=True)
class _Performed:
    """A typed step's performance of the action def it is typed by (`_performance`)."""

    action: Element
    graph: ActionGraph
    scope: _Scope  # the def's features, and nothing around the step: its statements' names are its own
    locals: tuple[tuple[int, Eval], ...]  # its start shot: each feature's slot and value
    returns: tuple[tuple[int, int, bool], ...]  # as it ends: each output's slot, its feature's, whether bound
    drop: tuple[int, ...]  # the features no chain reads once it ended


def _performance(program: Any, body: Any, outer: _Scope, initial: list[Value], readable: frozenset[str] | None,
                 where: str, performing: tuple[Element, ...]) -> _Performed:
    """A typed step (its `body`, standing where `outer`'s names are found) performing the action def it is
    typed by, as the interpreter's fine run does: the def's statements or flow entered, their names found
    among the def's features alone. Its start shot sets those features in the interpreter's order: the
    bound ones from their bindings, read around the step; an unbound parameter without a value from the
    same-named feature around the step (an output a binding names starts with none); the others from
    their own values. As it ends, each output is written to the feature bound to it (with none there, a
    run error), an unbound one to the same-named feature around the step."""
    action = body.performs
    if action.base_kind != "action" or action.library or body.statements or body.flow is not None \
            or body.attributes or body.terminate:
        raise NotFlat(f"{where}: a typed step stating features or statements of its own, or performing what is "
                      "not an action of the model")
    if action in performing:
        raise NotFlat(f"{where}: the action {action.name} performed within itself")  # (the interpreter's nesting limit)
    performed: ActionGraph = program.graph(action)
    if not performed.initial:
        raise NotFlat(f"{where}: the action {action.name} it performs, with no node to start at")
    slots: dict[str, tuple[int, type]] = {}
    own = _Scope(slots, None, element=action, model=outer.model)
    kinds: dict[str, type] = {}
    for attr in performed.attributes:
        kind = _TYPES.get(attr.type_text)
        decl = attr.decl
        if kind is None or attr.is_item or (isinstance(decl, s.Usage) and (
                decl.short_name or decl.redefines or decl.constant or decl.members)):
            raise NotFlat(f"{where}: the feature {attr.name} of {action.name}, of a type the flat form does not "
                          "cover, an item, or with a short name, a redefinition, constant or members")
        kinds[attr.name] = kind
    bound_in = dict(body.bindings)
    bound_out = {name for name, _ in body.outputs}
    if any(name not in kinds for name in (*bound_in, *bound_out)):
        raise NotFlat(f"{where}: a binding of what {action.name} does not declare")
    first = len(initial)
    initial.extend([UNSET] * len(performed.attributes))
    place = {attr.name: first + i for i, attr in enumerate(performed.attributes)}
    locals_: list[tuple[int, Eval]] = []

    def start(name: str, value: Eval, kind: type, held: bool = True) -> None:
        if kind is not kinds[name]:
            raise NotFlat(f"{where}: {name} of {action.name} given a {kind.__name__}")
        locals_.append((place[name], value))
        slots[name] = (place[name], kinds[name])
        if not held:
            own.unset.add(place[name])

    for name, expr in body.bindings:
        start(name, *_expr(expr, outer))
    for attr in performed.attributes:
        if attr.name in bound_in:
            continue
        if attr.direction in ("in", "inout", "out") and attr.value is None:
            same = outer.find(attr.name) if attr.name not in bound_out else None
            if same is None:
                start(attr.name, _unset, kinds[attr.name], held=False)
            else:
                start(attr.name, _read(same[0]), same[1], held=not outer.may_be_unset(same[0]))
        elif attr.direction == "in" and attr.value_kind is not s.FeatureValueKind.INITIAL:
            raise NotFlat(f"{where}: the input {attr.name} of {action.name} left to its default")  # (read when first read)
        elif attr.value is None:
            start(attr.name, _unset, kinds[attr.name], held=False)
        else:
            start(attr.name, *_expr(attr.value, own))
    returns: list[tuple[int, int, bool]] = []
    for name, target in body.outputs:
        found = outer.find(target.name) if isinstance(target, s.Name) else None
        if found is None or found[1] is not kinds[name]:
            raise NotFlat(f"{where}: the output {name} of {action.name} bound to what the flat form does not hold")
        returns.append((place[name], found[0], True))
    for attr in performed.attributes:
        if attr.direction in ("out", "inout") and attr.name not in bound_out:
            found = outer.find(attr.name)
            if found is not None:
                if found[1] is not kinds[attr.name]:
                    raise NotFlat(f"{where}: the output {attr.name} of {action.name} returned to a feature of "
                                  "another type")
                returns.append((place[attr.name], found[0], False))
    drop = tuple(place[a.name] for a in performed.attributes if readable is not None and a.name not in readable)
    return _Performed(action, performed, own, tuple(locals_), tuple(returns), drop)


def _keeps(features: int, drop: Any) -> bool:
    """Whether a performance of this many features, `drop` of them left out once it ended, keeps one: only
    then is its end part of the state (the interpreter's key lists an ended performance by what a chain may
    read of it, and one holding nothing readable as one never begun)."""
    return features > len(drop)


def _unset(_: Slots) -> Value:
    return UNSET


def _read(slot: int) -> Eval:
    return lambda v: v[slot]


def _steps(program: Any, graph: ActionGraph) -> dict[str, tuple[Element | None, dict[str, tuple[list[int], type]]]]:
    """The searched action's action nodes that hold features, by name: the node's element and, per feature of a
    type the flat form holds, an empty cell for its slot and its type (`_Scope.steps`)."""
    out: dict[str, tuple[Element | None, dict[str, tuple[list[int], type]]]] = {}
    for node in graph.nodes:
        body = node.body
        accepted = _accepted(graph, node)
        if accepted is not None:
            trigger = accepted[0].trigger
            kind = _MESSAGES.get((trigger.signal or "").rsplit("::", 1)[-1])
            if trigger.payload and kind is not None:
                out[node.name] = (lookup(program.model, graph.scope, node.name), {trigger.payload: ([-1], kind)})
            continue
        if node.kind is not NodeKind.ACTION or body is None:
            continue
        attributes = _step_attributes(program, body)
        features = {a.name: ([-1], kind) for a in attributes if (kind := _TYPES.get(a.type_text)) is not None}
        if features:
            out[node.name] = (lookup(program.model, graph.scope, node.name), features)
    return out


def _laid_out(scope: _Scope, step: str, slots: dict[str, tuple[int, type]]) -> None:
    """The slots a step's features were given, for the chains that read them (`_Scope.steps`)."""
    held = scope.steps.get(step)
    if held is not None:
        for name, (cell, _) in held[1].items():
            if name in slots:
                cell[0] = slots[name][0]


def _read_held(cell: list[int], name: str) -> Eval:
    """A read of a slot that may hold no value (its number in `cell`: a chain's is given once its step's body
    is lowered): where it holds none (a parameter bound to nothing, a chain's step not yet begun), what the
    interpreter does with no value (an error, or a comparison or copy that goes on) is left to it, and it
    searches from the start."""
    def read(v: Slots) -> Value:
        value = v[cell[0]]
        if value == UNSET:
            raise NotFlat(f"a read of {name}, which holds no value there")
        return value
    return read


def _features(attributes: tuple[Attribute, ...], scope: _Scope, initial: list[Value], readable: frozenset[str] | None,
              where: str) -> tuple[list[tuple[int, Eval]], list[int]]:
    """A performance's features, each given a slot of its own in `initial` and its name in `scope` (its value
    read at the start shot, seeing the features before it): (slot, value) each, and the slots no expression
    reads once the performance ended."""
    values: list[tuple[int, Eval]] = []
    drop: list[int] = []
    for attr in attributes:
        pin = bool(attr.direction) and attr.value is None
        # (a directed feature, `in x : Integer;`, a flow may give: with no value of its own it holds none)
        value, kind = (_unset, _type_of(attr, where, pin=True)) if pin \
            else _declared(attr, scope, where, own=bool(attr.direction))
        slot = len(initial)
        initial.append(UNSET)
        scope.slots[attr.name] = (slot, kind)
        if pin:
            scope.unset.add(slot)
        values.append((slot, value))
        if readable is not None and attr.name not in readable:
            drop.append(slot)
    return values, drop


def _statement_node(program: Any, graph: ActionGraph, node: Node, scope: _Scope, initial: list[Value],
                    readable: frozenset[str] | None, bits: int, where: str) -> tuple[_Body, int, list[_Place]]:
    """A statement standing in the flow: an assignment, one move (as a body of that assignment alone);
    an `if` or a loop, its token standing at it, as the only statement of a body that holds nothing of
    its own and has no start shot (the interpreter reads its condition, or takes its element, as the
    token's first move there, in the flow's own frame)."""
    stmt = node.decl
    body = node.body
    if body is None or body.attributes or body.performs is not None or body.bindings or body.outputs \
            or body.terminate or body.flow is not None or tuple(body.statements) != (stmt,):
        raise NotFlat(f"{where}: a statement in the flow")
    if isinstance(stmt, s.Assign):
        return _Body(_assign(stmt, scope), (), (), (), (), 0), 0, []
    if isinstance(stmt, s.Send):
        return _Body(None, (), (), (), (), 0, send=_send(stmt, scope)), 0, []
    if isinstance(stmt, s.Terminate) and stmt.target is None:
        return _Body(None, (), (), (), (), 0, halts=True), 0, []
    if not isinstance(stmt, (s.If, s.While, s.For, s.LoopUntil)):
        raise NotFlat(f"{where}: the statement {type(stmt).__name__} in the flow")
    first = len(initial)
    lowering = _Statements(program, graph.scope, initial, where, readable, bits)
    lowering.alone(graph, node, scope)
    return (_Body(None, (), tuple(lowering.statements), tuple(lowering.labels), (), 0, (0,), len(initial) > first),
            lowering.bits - bits, lowering.places)


_CONTROL_STATEMENTS = frozenset((NodeKind.START, NodeKind.DONE))  # the control nodes a body's flow may hold


class _Statements:
    """A body's statements lowered, its branches' and loop passes' with them, each given its place among
    them all (a `for` loop also a slot for where it stands and one for its variable, in `initial`)."""

    def __init__(self, program: Any, owner: Any, initial: list[Value], where: str,
                 readable: frozenset[str] | None, bits: int, performing: tuple[Element, ...] = ()) -> None:
        self.program = program
        self.performing = performing  # the action defs typed steps around these statements perform
        self.owner = owner  # the element the branches' names resolve in, as the interpreter's frame's
        self.initial = initial
        self.where = where
        self.readable = readable
        self.bits = bits  # the next place in the mask of ended performances
        self.statements: list[_Statement] = []
        self.labels: list[str] = []
        self.places: list[_Place] = []
        self.whole = False  # the statements stand in the action's own flow: a terminate there ends it all
        self.owners: dict[int, int] = {}  # each statement's `owner`
        self.steps: set[int] = set()  # the places of the action usages among them

    def flow(self, graph: ActionGraph, owner: int, around: list[tuple[ActionGraph, int]],
             scope: _Scope, features: bool = False) -> tuple[int, ...]:
        """The statements of `graph` (the body's, or the branch or pass of the statement at `owner`),
        standing inside the nodes `around`, their names found in `scope`; where they start. `features`: the
        graph's own features are in `scope` already (a typed step's performed action)."""
        if not graph.initial or graph.converging or (graph.attributes and not features) or graph.flows or graph.binds \
                or graph.connections or any(e.guard is not None or e.is_else for e in graph.edges) \
                or not all(n.kind in _CONTROL_STATEMENTS or (n.kind in (NodeKind.STATEMENT, NodeKind.ACTION)
                                                             and n.decl is not None) for n in graph.nodes):
            raise NotFlat(f"{self.where}: statements joined or guarded by successions, or declared in a branch")
        base = len(self.statements)
        self.statements.extend([_Statement(None, ())] * len(graph.nodes))  # (each set below: its place is kept)
        self.labels.extend(n.name for n in graph.nodes)
        self.places.extend((graph, n.index, around) for n in graph.nodes)
        for n in graph.nodes:
            successors = tuple(base + e.target for e in graph.outgoing(n.index))
            self.statements[base + n.index] = self._statement(graph, n, base + n.index, successors, owner, around, scope)
        return tuple(base + i for i in graph.initial)

    def alone(self, graph: ActionGraph, node: Node, scope: _Scope) -> None:
        """The statement at `node` of the flow `graph` itself, as the first and only one (its branches' and
        passes' after it): no succession in the flow orders anything after it within the statements."""
        self.statements.append(_Statement(None, ()))
        self.labels.append(node.name)
        self.places.append((graph, node.index, []))
        self.whole = True
        self.statements[0] = self._statement(graph, node, 0, (), -1, [], scope)

    def _statement(self, graph: ActionGraph, n: Node, at: int, successors: tuple[int, ...], owner: int,
                   around: list[tuple[ActionGraph, int]], scope: _Scope) -> _Statement:
        """The statement at node `n` of `graph`, at place `at`, in the branch or pass of the statement at
        `owner` (-1: none), standing inside the nodes `around`."""
        stmt = n.decl
        inside = [(graph, n.index), *around]
        self.owners[at] = owner
        if n.kind in _CONTROL_STATEMENTS:
            # a body's own flow (`action a { first start then a1; then a2; then done; }`): its start is a move
            # that follows its successions, its done one that ends its token, as any statement with none after
            # it ends (the flow ends with its last token)
            if n.body is not None and (n.body.statements or n.body.attributes):
                raise NotFlat(f"{self.where}: a control node's body")
            return _Statement(None, successors if n.kind is NodeKind.START else (), owner)
        if n.kind is NodeKind.ACTION:
            return self._nested(graph, n, at, successors, owner, inside, scope)
        if isinstance(stmt, s.If):
            test = _condition(stmt.condition, scope, f"{self.where}: an if")
            then, otherwise = (self._branch(block, at, n.name, inside, scope)
                               for block in (stmt.then, stmt.otherwise))
            lowered = _Statement(None, successors, owner, test, then, otherwise)
        elif isinstance(stmt, (s.While, s.LoopUntil)) and stmt.body.members:
            # a `while` reads its condition before each pass; a `loop` passes first; after a pass either
            # reads its `until` first, which ends it where it holds
            reads = _condition(stmt.condition, scope, f"{self.where}: a while") if isinstance(stmt, s.While) else None
            until = None if stmt.until is None else _condition(stmt.until, scope, f"{self.where}: an until")
            passes = self._branch(stmt.body, at, n.name, inside, scope)
            lowered = self._loop(_Statement(None, successors, owner, reads, passes, until=until), graph, n, around)
        elif isinstance(stmt, s.For) and stmt.short_name is None and stmt.body.members \
                and isinstance(stmt.collection, s.Binary) and stmt.collection.op == "..":
            bounds = [_expr(e, scope) for e in (stmt.collection.left, stmt.collection.right)]
            if any(kind is not int for _, kind in bounds):
                raise NotFlat(f"{self.where}: a for loop over a range whose bounds are not Integers")
            slot, var = len(self.initial), len(self.initial) + 3
            self.initial.extend((UNSET, UNSET, UNSET, UNSET))
            passes = self._branch(stmt.body, at, n.name, inside,
                                  _Scope({stmt.variable: (var, int)}, scope))
            lowered = self._loop(_Statement(None, successors, owner, then=passes, items=(bounds[0][0], bounds[1][0]),
                                            slot=slot, var=var), graph, n, around)
        elif isinstance(stmt, s.For) and stmt.short_name is None and stmt.body.members \
                and isinstance(stmt.collection, s.SequenceExpr) and stmt.collection.elements:
            elements = [_expr(e, scope) for e in stmt.collection.elements]
            kinds = {kind for _, kind in elements}
            if len(kinds) != 1:
                raise NotFlat(f"{self.where}: a for loop over a sequence whose elements differ in kind")
            count = len(elements)
            slot, var = len(self.initial), len(self.initial) + count + 1
            self.initial.extend((UNSET,) * (count + 2))
            passes = self._branch(stmt.body, at, n.name, inside, _Scope({stmt.variable: (var, kinds.pop())}, scope))
            lowered = self._loop(_Statement(None, successors, owner, then=passes, elements=tuple(e for e, _ in elements),
                                            slot=slot, var=var), graph, n, around)
        elif isinstance(stmt, s.Terminate):
            # it ends the performance its body is (through the `if` branches and loop passes it stands in), or,
            # in a statement standing in the action's own flow, the action
            implicit = stmt is IMPLICIT_TERMINATE  # (a terminate action usage's own, ending its performance)
            if (stmt.target is not None and not implicit) or self._in_step(owner):
                raise NotFlat(f"{self.where}: a terminate in a step among statements, or naming what it ends")
            lowered = _Statement(None, (), owner, ends=True, halts=self.whole)
        elif isinstance(stmt, s.Send):
            lowered = _Statement(None, successors, owner, send=_send(stmt, scope))
        else:
            assert stmt is not None
            lowered = _Statement(_assign(stmt, scope), successors, owner)
        return lowered

    def _in_step(self, owner: int) -> bool:
        """Whether the branch or pass of the statement at `owner` stands inside an action usage among the
        statements (whose own performance a terminate there would end, where the flat form ends the body's)."""
        while owner >= 0:
            if owner in self.steps:
                return True
            owner = self.owners[owner]
        return False

    def _nested(self, graph: ActionGraph, n: Node, at: int, successors: tuple[int, ...], owner: int,
                inside: list[tuple[ActionGraph, int]], scope: _Scope) -> _Statement:
        """An action usage among a body's statements (`action outer { action a { ... } action b { ... } }`):
        with one assignment and no feature, that move; else its start shot (its features' values set) is a
        move and its statements moves after it, entered as an `if` whose test always holds enters its
        branch (with none, the start shot alone); as it ends, it is marked ended as a root body is."""
        where = f"{self.where}: the action {n.name} in it"
        self.steps.add(at)
        decl, body = n.decl, n.body
        typed = body is not None and body.performs is not None
        if not isinstance(decl, s.Usage) or decl.kind != "action" or (decl.types and not typed) or n.multiplicity != 1 \
                or graph.accepts[n.index] is not None or usage_assertions(self.program.model, graph.scope, decl):
            raise NotFlat(f"{where}: not a plain action usage")
        if typed:
            # a step typed by an action def among the statements: entered as its node at the root is
            assert body is not None
            performed = _performance(self.program, body, scope, self.initial, self.readable, where, self.performing)
            bit = 0
            if _keeps(len(performed.graph.attributes), performed.drop):
                bit = 1 << self.bits
                self.bits += 1
            around, self.performing = self.performing, (*self.performing, performed.action)
            try:
                then = self.flow(performed.graph, at, inside, performed.scope, features=True)
            finally:
                self.performing = around
            return _Statement(None, successors, owner, _always, then, locals=performed.locals, bit=bit,
                              drop=performed.drop, returns=performed.returns)
        if body is None or (not body.statements and not body.attributes and body.flow is None):
            return _Statement(None, successors, owner, _always)
        if body.performs is not None or body.bindings or body.outputs or body.terminate or body.flow is not None:
            raise NotFlat(f"{where}: a body with a flow, bindings or a terminate, or performing an action")
        own = _Scope({}, scope, element=body.scope)
        if len(body.statements) == 1 and isinstance(body.statements[0], s.Assign) and not body.attributes:
            return _Statement(_assign(body.statements[0], own), successors, owner)
        if not n.starts_with_a_shot():
            raise NotFlat(f"{where}: a body the interpreter performs in one move")
        locals_, drop = _features(body.attributes, own, self.initial, self.readable, where)
        bit = 0
        if _keeps(len(body.attributes), drop):
            bit = 1 << self.bits
            self.bits += 1
        then = self.flow(self.program.statement_flow(n), at, inside, own)
        return _Statement(None, successors, owner, _always, then, locals=tuple(locals_), bit=bit, drop=tuple(drop))

    def _loop(self, loop: _Statement, graph: ActionGraph, node: Node, around: list[tuple[ActionGraph, int]]) -> _Statement:
        """A loop given its place after a pass: its own, the same statement's."""
        loop = replace(loop, again=len(self.statements))
        self.statements.append(loop)
        self.labels.append(node.name)
        self.places.append((graph, node.index, around))
        return loop

    def _branch(self, block: s.Block | None, at: int, label: str, around: list[tuple[ActionGraph, int]],
                scope: _Scope) -> tuple[int, ...]:
        if block is None or not block.members:
            return ()  # the `if` ends at its test
        return self.flow(self.program.clause_flow(self.owner, block, label), at, around, scope)


def _always(_: Slots) -> bool:
    return True


def _condition(e: s.Expr, scope: _Scope, where: str) -> Eval:
    test, kind = _expr(e, scope)
    if kind is not bool:
        raise NotFlat(f"{where} whose condition is not Boolean")
    return test


def _footprints(graph: ActionGraph, places: dict[int, list[_Place]], flat: FlatAction) -> None:
    """What each place's next move and future touch, as the interpreter's footprints say."""
    footprints = Footprints()
    for node in graph.nodes:
        flat.now[(node.index, -1)] = touch_now(graph, node.index, True, [])
        flat.future[(node.index, -1)] = footprints.future_from(graph, node.index, [])
        for i, (inner, index, around) in enumerate(places[node.index]):
            flat.now[(node.index, i)] = touch_now(inner, index, True, around)
            flat.future[(node.index, i)] = footprints.future_from(inner, index, around)
