"""What a run is made of between moves: tokens, the flows they move in, what a paused body waits on."""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from enum import Enum
from fractions import Fraction
from typing import TYPE_CHECKING

from engines.runtime.evaluate import Frame
from engines.runtime.journal import current_epoch
from engines.runtime.values import Value
from ir import syntax as s
from ir.graphs import ActionGraph, NodeKind
from ir.lower import statement_label
from ir.model import Element

if TYPE_CHECKING:
    from engines.runtime.actions.core import RunCore
    from engines.runtime.world import Context


@dataclass(frozen=True)
class Wait:
    """Why a body cannot go on now, and a probe that tells, without changing anything, whether it could."""

    reason: str
    ready: Callable[[], bool] = field(default=lambda: True, compare=False)
    wake: Fraction | None = None  # a wait for time: the instant it ends


class Terminated(Exception):
    """A `terminate;` ending the performance of the node whose body states it."""


BodyRun = Generator[Wait, None, None]


class FlowKind(Enum):
    ROOT = "root"  # the action run: its steps are the run's steps
    PERFORMED = "performed"  # an action performed in an executor of its own: its own step lines
    ENTERED = "entered"  # a node's subflow its token entered: moves are the run's moves
    BLOCK = "block"  # a branch or loop body stating a flow: run within the statement


@dataclass(eq=False)
class Token:
    id: int
    node: int
    flow: Flow
    body: BodyRun | None = None
    arrived_round: int = 0
    via: int | None = None  # the node it came from (joins count arrivals per incoming edge)
    inside: Flow | None = None  # the subflow this token entered
    group: list[Token] | None = None  # the performances of a node with multiplicity
    waiting_accept: bool = False
    wake: Fraction | None = None
    resumed: bool = False  # its body waited during this move: the node after it goes on at once
    wait: Wait | None = None  # what its paused body waits for
    repeats: int | None = None  # performances still to go of a node with multiplicity, one after another
    loop: LoopPass | None = None  # a fine run's loop statement between two of its passes (see LoopPass)
    # the frame its node's performance pinned as it started: where the node is performed twice at once,
    # the pin its flow's frame holds under the node's name may be the other performance's
    performance: Frame | None = None
    born: int = field(default_factory=current_epoch, compare=False)  # see engines/runtime/journal.py


@dataclass(frozen=True)
class LoopPass:
    """Where a loop a fine run performs pass by pass stands: `test` when its next move reads the
    condition (`until` after a pass of `loop ... until`), else the body comes next; a `for` loop's
    elements, read once, and how many passes have started."""

    test: bool
    passes: int = 0
    items: tuple[Value, ...] | range = ()  # a long range is walked, never built


@dataclass
class Write:
    token: int
    feature: str
    value: Value
    order: int


class Flow:
    """One performance's tokens over one graph, and its step counter."""

    def __init__(self, run: RunCore, graph: ActionGraph, frame: Frame, kind: FlowKind, depth: int,
                 label: str, parent_token: Token | None = None) -> None:
        run._declare(frame, graph.connections)
        self.born = current_epoch()
        self.run = run
        self.graph = graph
        self.frame = frame
        self.kind = kind
        self.depth = depth
        self.label = label
        self.parent_token = parent_token
        self.outer: Flow | None = parent_token.flow if parent_token is not None else run.current_flow
        self.tokens: list[Token] = []
        self.step_no = 0
        self.round = 0
        # a performed action's outputs go back on leaving: the action, the caller's frame, the bound outputs
        self.returns: tuple[Element, Frame, tuple[tuple[str, s.Expr], ...]] | None = None
        self.implicit = False  # a fine run's flow of a node's statements, which the text states no flow for
        self.clause = False  # a fine run's flow of an `if` branch or a loop pass: a part of its statement
        # a flow PERFORMED in an executor of its own, or a BLOCK a move runs within: the token whose move
        # runs it and the step's name ("" for an `if` branch or a loop pass)
        self.performer: tuple[Token | None, str] | None = None
        self.terminated = False  # a `terminate;` standing in it ended it
        self.branch = ""  # which block of its `if` such a flow runs ("then", "else"): part of the state
        # Tokens are numbered per executor: a performed action numbers its own from 1.
        self.ids: list[int] = [1] if parent_token is None and kind in (FlowKind.ROOT, FlowKind.PERFORMED) else []

    def new_token_id(self) -> int:
        flow: Flow | None = self
        while flow is not None and not flow.ids:
            flow = flow.outer
        assert flow is not None
        self.run.ctx.journal.touch_part(flow, flow.ids)
        token = flow.ids[0]
        flow.ids[0] += 1
        return token

    def steps_within(self) -> tuple[str, ...]:
        """The steps whose performances the flow runs within, innermost first (an `if` branch's or a
        loop pass's flow is part of the step around it)."""
        names: list[str] = []
        flow: Flow | None = self
        while flow is not None:
            token, name = flow.performer if flow.performer is not None else (flow.parent_token, "")
            if token is not None:
                name = name or token.flow.graph.nodes[token.node].name  # the node entered, or whose move runs it
                flow = token.flow
            else:
                flow = flow.outer
            if name:
                names.append(name)
        return tuple(names)

    @property
    def ctx(self) -> Context:
        return self.run.ctx

    def start(self, first_id: int | None = None) -> None:
        for i, index in enumerate(self.graph.initial):
            token_id = first_id if (i == 0 and first_id is not None) else self.new_token_id()
            self.tokens.append(Token(token_id, index, self))

    @property
    def finished(self) -> bool:
        return not self.tokens

    def node_label(self, token: Token) -> str:
        node = self.graph.nodes[token.node]
        if node.kind is NodeKind.STATEMENT and self.kind in _NAMED_BY_TYPE and not self.implicit \
                and not self.run.fine:
            # the reference executor's trace names such a node by its syntax type
            return _SYNTAX_TYPE.get(type(node.decl), node.name)
        return node.name

    def model_label(self, token: Token) -> str:
        """Where a token stands as the model writes it (what an error or `%tokens` says; the step
        lines keep node_label, as the corpus's goldens do): a named node by its name, a statement
        node by its statement (`while`, `accept c`), never by the tool's or the reference's labels."""
        node = self.graph.nodes[token.node]
        if node.kind is not NodeKind.STATEMENT:
            return node.name
        if isinstance(node.decl, s.Accept):
            payload = node.decl.trigger.payload
            return f"accept {payload}" if payload else "accept"
        return statement_label(node.decl) if node.decl is not None else node.name


# How the reference executor's trace names a statement node of the run's own flow or of an entered
# one (not of a block's flow, where the corpus's goldens keep `if`): by its syntax type.
_NAMED_BY_TYPE = (FlowKind.ROOT, FlowKind.ENTERED)
_SYNTAX_TYPE: dict[type, str] = {
    s.Assign: "*ast.AssignmentActionNode",
    s.If: "*ast.IfActionNode",
    s.While: "*ast.WhileLoopActionNode",
    s.LoopUntil: "*ast.WhileLoopActionNode",
    s.For: "*ast.WhileLoopActionNode",
}


@dataclass(frozen=True)
class TokenView:
    """Where one token stands, for `%tokens` and the step lines."""

    id: int
    node: str
    path: str
    waiting: str | None = None
