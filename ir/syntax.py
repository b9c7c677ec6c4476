"""The syntax tree: what the text says, as frozen dataclasses, every node with its source span.

Nothing here is resolved: names are the text the modeler wrote (`ISQ::mass`, `counter.c`).
`ir.resolve` turns a tree into a model; `ir.lower` turns behaviors into graphs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


@dataclass(frozen=True)
class Span:
    """Where a node stands in its document: 1-based line and column of its first and last character."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __str__(self) -> str:
        return f"{self.line}:{self.column}"


NO_SPAN = Span(0, 0, 0, 0)


# ---------------------------------------------------------------- expressions


@dataclass(frozen=True)
class Expr:
    span: Span = field(compare=False, repr=False)


@dataclass(frozen=True)
class Literal(Expr):
    """A literal as written: `kind` is integer, real, string, boolean or null; `text` its spelling."""

    kind: str
    text: str


@dataclass(frozen=True)
class Name(Expr):
    """A (possibly qualified) name: `x`, `VerdictKind::pass`."""

    name: str


@dataclass(frozen=True)
class SelfRef(Expr):
    pass


@dataclass(frozen=True)
class Chain(Expr):
    """A feature chain `base.feature`."""

    base: Expr
    feature: str


@dataclass(frozen=True)
class Call(Expr):
    """An invocation `f(args)`; keyword arguments as (name, expr). `x->f(a)` is `f(x, a)` with
    `arrow` set (its name may be a library function the scope does not import)."""

    callee: Expr
    args: tuple[Expr, ...]
    named: tuple[tuple[str, Expr], ...] = ()
    arrow: bool = False


@dataclass(frozen=True)
class New(Expr):
    """Instance construction `new T(args)`."""

    type_name: str
    args: tuple[Expr, ...]
    named: tuple[tuple[str, Expr], ...] = ()


@dataclass(frozen=True)
class Index(Expr):
    """`base [index]`: a quantity with its unit (`5 [s]`) or an element of a sequence; `base#(index)`
    (`positional`): the element at a 1-based position."""

    base: Expr
    index: Expr
    positional: bool = False


@dataclass(frozen=True)
class Unary(Expr):
    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Conditional(Expr):
    """`if c ? a else b`."""

    condition: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class Lambda(Expr):
    """A body expression `{in x; x > 0}` passed after `->` (`xs->select {in x; x > 0}`)."""

    params: tuple[str, ...]
    body: Expr


@dataclass(frozen=True)
class SequenceExpr(Expr):
    """`(a, b, c)`; `()` is the empty sequence."""

    elements: tuple[Expr, ...]


# ---------------------------------------------------------------- members


@dataclass(frozen=True)
class Member:
    span: Span = field(compare=False, repr=False)


@dataclass(frozen=True)
class Import(Member):
    """`import A::B::*;` (wildcard), `import A::B;` (member), `::**` recursive."""

    target: str
    wildcard: bool
    recursive: bool = False
    visibility: str = "private"


@dataclass(frozen=True)
class Package(Member):
    name: str
    members: tuple[Member, ...]
    short_name: str | None = None


class FeatureValueKind(Enum):
    BOUND = "="
    INITIAL = ":="
    DEFAULT = "default"


@dataclass(frozen=True)
class Multiplicity:
    """`[lower..upper]`; `upper` None means `*`. A bound written as a feature's name (`[three]`) is
    named by `lower_ref` / `upper_ref`; its number is the feature's value, found when lowering."""

    lower: int
    upper: int | None
    text: str
    lower_ref: str | None = None
    upper_ref: str | None = None


@dataclass(frozen=True)
class Definition(Member):
    """`<kind> def Name ... { ... }`: part, action, state, attribute, item, port, calc, constraint, ..."""

    kind: str
    name: str
    short_name: str | None
    specializes: tuple[str, ...]
    members: tuple[Member, ...]
    parallel: bool = False
    abstract: bool = False
    result: Expr | None = None  # a calc or constraint body's result expression


@dataclass(frozen=True)
class Usage(Member):
    """A feature or usage: `attribute x : T = 0;`, `part p : P;`, `action a[2] { ... }`, `in x : T;`, ...

    `kind` is the keyword (`attribute`, `part`, `action`, `state`, `calc`, `item`, `port`, `ref`,
    `verification`, `subject`, `return`, `enum`, ...) or `feature` for a bare `in x : T;`.
    `action_body` holds the statement an action usage is written as (`action s assign x := 1;`).
    """

    kind: str
    name: str | None
    short_name: str | None = None
    direction: str | None = None
    types: tuple[str, ...] = ()
    subsets: tuple[str, ...] = ()
    redefines: tuple[str, ...] = ()
    multiplicity: Multiplicity | None = None
    ordered: bool = False
    value: Expr | None = None
    value_kind: FeatureValueKind | None = None
    members: tuple[Member, ...] = ()
    has_body: bool = False
    parallel: bool = False
    action_body: Statement | None = None
    result: Expr | None = None
    performed: bool = False  # `perform action ...` / `perform Name;`
    exhibited: bool = False  # `exhibit state ...`
    constant: bool = False  # `constant attribute x = 1;`: no assignment may change it
    references: tuple[str, ...] = ()  # `::> a.b` / `references A::b`: the feature it refers to
    conjugated: bool = False  # `port p : ~T;`: typed by T's conjugate (directions of T's features swapped)
    reference: bool = False  # `ref part t;` (or `ref t;`): refers to an object another feature makes


@dataclass(frozen=True)
class Metadata(Member):
    """`@Name { p = 0.3; }` or `@Name;`."""

    name: str
    members: tuple[Member, ...]


@dataclass(frozen=True)
class Doc(Member):
    text: str


@dataclass(frozen=True)
class ConstraintMember(Member):
    """`require constraint { e }`, `assume constraint { e }`, `assert constraint ...`, or a bare expression."""

    kind: str  # require, assume, assert, expression
    name: str | None
    expression: Expr | None
    members: tuple[Member, ...] = ()


# ---------------------------------------------------------------- action flow members


@dataclass(frozen=True)
class FirstMember(Member):
    """`first start;` names the initial node; with `then` it is a succession (`first a then b;`)."""

    source: str
    guard: Expr | None = None
    target: str | None = None
    members: tuple[Member, ...] = ()
    ends: tuple[Multiplicity | None, Multiplicity | None] = (None, None)  # as written: `first [*] a then [1] b`


@dataclass(frozen=True)
class SuccessionMember(Member):
    """`succession [name] [first] [m] A [if G] then [m] B;`."""

    name: str | None
    source: str
    target: str
    guard: Expr | None = None
    members: tuple[Member, ...] = ()
    ends: tuple[Multiplicity | None, Multiplicity | None] = (None, None)  # the multiplicities written


@dataclass(frozen=True)
class ThenMember(Member):
    """`then X;` or `then <member>`: a succession from the previous member to X or to the member.
    `then [3] X;` states the multiplicity of the succession's target end."""

    target: str | None
    member: Member | None
    multiplicity: Multiplicity | None = None


@dataclass(frozen=True)
class ControlNode(Member):
    """`fork f;`, `join j;`, `merge m;`, `decide d;`, `done;`, `start;` (kind names which)."""

    kind: str
    name: str | None
    members: tuple[Member, ...] = ()


@dataclass(frozen=True)
class DecisionBranch(Member):
    """`if G then X;` after a decide node, or `else X;`."""

    guard: Expr | None
    target: str


@dataclass(frozen=True)
class FlowMember(Member):
    """`flow [name from] a.b to c.d;`; `succession flow ...` hands over when the source ends."""

    name: str | None
    source: str
    target: str
    succession: bool = False


@dataclass(frozen=True)
class BindMember(Member):
    """`bind a.b = c;`."""

    left: str
    right: str


@dataclass(frozen=True)
class ConnectMember(Member):
    """`connect a to b;`."""

    source: str
    target: str


# ---------------------------------------------------------------- statements


@dataclass(frozen=True)
class Statement(Member):
    pass


@dataclass(frozen=True)
class Assign(Statement):
    target: str
    value: Expr


@dataclass(frozen=True)
class Block:
    """The `{ ... }` of an if branch or loop."""

    members: tuple[Member, ...]
    span: Span = field(compare=False, repr=False)


@dataclass(frozen=True)
class If(Statement):
    condition: Expr
    then: Block
    otherwise: Block | None  # an `else if` is a block holding one If


@dataclass(frozen=True)
class While(Statement):
    condition: Expr
    body: Block
    until: Expr | None = None  # `while c { ... } until d;`: also ends after a pass at which d holds


@dataclass(frozen=True)
class For(Statement):
    variable: str  # the loop variable's name, or its short name when it has only that (`for <s> in ...`)
    collection: Expr
    body: Block
    short_name: str | None = None  # `for <i> index in ...`: the short name also names the variable


@dataclass(frozen=True)
class LoopUntil(Statement):
    body: Block
    until: Expr | None


@dataclass(frozen=True)
class Send(Statement):
    payload: Expr
    via: str | None
    to: Expr | None


class TriggerKind(Enum):
    SIGNAL = "signal"  # accept x : T / accept T / accept :> item
    AFTER = "after"  # accept after 5 [s]
    AT = "at"
    WHEN = "when"  # accept when condition
    CALL = "call"  # accept op()


@dataclass(frozen=True)
class Trigger:
    """What an accept or transition waits for."""

    kind: TriggerKind
    payload: str | None = None  # accept n : Integer -> n
    signal: str | None = None  # the type: accept n : Integer -> Integer; accept Tick -> Tick
    subsets: str | None = None  # accept :> shutDown
    expression: Expr | None = None  # after / at / when
    via: str | None = None
    span: Span = field(default=Span(0, 0, 0, 0), compare=False, repr=False)


@dataclass(frozen=True)
class Accept(Statement):
    trigger: Trigger
    members: tuple[Member, ...] = ()


@dataclass(frozen=True)
class Terminate(Statement):
    target: str | None


@dataclass(frozen=True)
class Return(Statement):
    value: Expr


# ---------------------------------------------------------------- state machines


@dataclass(frozen=True)
class EntryMember(Member):
    """`entry;` (initial marker), `entry { ... }`, `entry action ...`, `entry <statement>`."""

    kind: str  # entry, exit, do
    behavior: Member | None  # a Usage (action), a Statement, or None for the bare marker
    block: Block | None = None


@dataclass(frozen=True)
class Transition(Member):
    name: str | None
    source: str
    trigger: Trigger | None
    guard: Expr | None
    effect: Member | Block | None
    target: str


@dataclass(frozen=True)
class StateTriggerShorthand(Member):
    """`accept after 5 [s] then Done;` in a state's body: a transition from that state."""

    trigger: Trigger
    guard: Expr | None
    effect: Member | Block | None
    target: str


@dataclass(frozen=True)
class Pseudostate(Member):
    """`choice c;`, `junction j;`, `history h;`, `deep history h;` (fork/join are ControlNode)."""

    kind: str
    name: str


@dataclass(frozen=True)
class Defer(Member):
    signal: str


@dataclass(frozen=True)
class Document:
    """One parsed text."""

    path: str
    members: tuple[Member, ...]
    source: str = field(compare=False, repr=False, default="")
