"""What the parts of a run share: its state, and the moves of it that each part asks of another."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Generator, Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import TYPE_CHECKING

from engines.errors import RunError
from engines.runtime.actions.tokens import BodyRun, Flow, Token, Wait, Write
from engines.runtime.behavior import Move
from engines.runtime.evaluate import Evaluator, Frame
from engines.runtime.limits import stack_exhausted
from engines.runtime.values import ObjectRef, Value
from engines.runtime.world import Context
from ir import syntax as s
from ir.connections import Connection
from ir.model import Element

if TYPE_CHECKING:
    from ir.graphs import ActionGraph, Attribute, Node


class RunCore(ABC):
    """The state of a run (set up by Run) and the operations its parts call across one another."""

    ctx: Context
    evaluator: Evaluator
    fine: bool
    status: str
    error: RunError | None
    root: Flow
    current_flow: Flow | None
    mover: int
    mover_token: Token | None
    starting: tuple[Token, str] | None
    step_nested: bool  # a checked machine's do step: a nested performance pauses after each step
    step_statements: bool  # ...and, given as statements, between a block's statements and a loop's passes
    waits_for_time: bool  # a machine's do step: a body's wait for time waits on the machine's clock
    writes: list[Write] | None
    displayed: dict[int, tuple[str, list[str]]]
    branch_wanted: str | None
    moves_taken: list[Move]
    _token_moves: dict[tuple[int, str], Move]  # the token-order moves made so far, made once each
    _live: list[Token] | None
    # statements begun and nested rounds that moved: a stepping run's round in which only bodies
    # moved (and paused again) is no deadlock
    work: int = 0

    element: Element

    @contextmanager
    def failing(self, where: Callable[[], str]) -> Iterator[None]:
        """A run error raised inside fails the run with it; a Python stack overflow fails it with
        NestingTooDeep at `where` (asked only then)."""
        try:
            yield
        except RunError as err:
            self.status = "failed"
            self.error = err
            raise
        except RecursionError:
            self.status = "failed"
            self.error = stack_exhausted(where())
            raise self.error from None

    def _token_waits(self, token: Token, due: Fraction) -> BodyRun:
        """The move's token waits till the clock reads `due`, the others moving meanwhile: time passes
        only where nothing can move, as at a timed node (a body's wait once moved the clock at once)."""
        self.ctx.journal.touch(token)
        token.wake = due
        while self.ctx.clock.now < due:
            yield Wait("time", self._clock_at(due))
        self.ctx.journal.touch(token)
        token.wake = None

    def _clock_at(self, due: Fraction) -> Callable[[], bool]:
        """Whether the clock has come to `due` (a wait's probe)."""
        return lambda: self.ctx.clock.now >= due

    @property
    @abstractmethod
    def finished(self) -> bool: ...

    @abstractmethod
    def _completed(self, token: Token, node: Node) -> None: ...

    @abstractmethod
    def _enter(self, token: Token, node: Node, graph: ActionGraph, frame: Frame | None = None) -> None: ...

    @abstractmethod
    def _leave(self, child: Flow) -> None: ...

    @abstractmethod
    def _condition(self, keyword: str, expr: s.Expr, frame: Frame, depth: int) -> bool: ...

    performer: str | None

    @property
    def performing(self) -> ObjectRef | None:
        """The object performing the action (an instance's), whose messages its accepts may take."""
        return self.root.frame.performer

    @property
    @abstractmethod
    def step_number(self) -> int: ...

    @abstractmethod
    def step(self) -> list[str]: ...

    @abstractmethod
    def reset(self) -> None: ...

    @abstractmethod
    def outputs(self) -> dict[str, str]: ...

    @abstractmethod
    def apply(self, move: Move, *, at: bytes | None = None) -> list[str]: ...

    @abstractmethod
    def advance(self, token: Token) -> tuple[bool, bool]: ...

    @abstractmethod
    def all_tokens(self, flow: Flow) -> list[Token]: ...

    @abstractmethod
    def live_tokens(self) -> list[Token]: ...

    @abstractmethod
    def init_attributes(self, attributes: tuple[Attribute, ...], frame: Frame, depth: int) -> None: ...

    @abstractmethod
    def _guard(self, guard: s.Expr, flow: Flow) -> bool: ...

    @abstractmethod
    def step_flow(self, flow: Flow) -> bool: ...

    @abstractmethod
    def statements(self, stmts: tuple[s.Member, ...], frame: Frame, depth: int, owner: str) -> BodyRun: ...

    @abstractmethod
    def _flow_ready(self, flow: Flow) -> bool: ...

    @abstractmethod
    def _drive(self, flow: Flow) -> BodyRun: ...

    @abstractmethod
    def _perform_action(self, action: Element, frame: Frame, bindings: tuple[tuple[str, s.Expr], ...],
                        depth: int, caller: Frame, name: str,
                        outputs: tuple[tuple[str, s.Expr], ...] = (), graph: ActionGraph | None = None
                        ) -> Generator[Wait, None, Flow | None]: ...

    @abstractmethod
    def _judge_performed(self, flow: Flow, action: Element) -> None: ...

    @abstractmethod
    def _judge_statement_step(self, usage: s.Usage, frame: Frame) -> None: ...

    @abstractmethod
    def _assign(self, target: str, value: Value, frame: Frame, depth: int) -> None: ...

    @abstractmethod
    def _assigning_no_value(self, stmt: s.Assign, frame: Frame) -> None: ...

    @abstractmethod
    def _pin(self, holder: Frame, name: str, frame: Frame, started_in: Frame | None) -> None: ...

    @abstractmethod
    def _place(self, frame: Frame, holder: Frame, name: str, started_in: Frame | None) -> None: ...

    @abstractmethod
    def _declare(self, frame: Frame, connections: tuple[Connection, ...]) -> None: ...

    @abstractmethod
    def _connect_in(self, frame: Frame, depth: int) -> frozenset[str]: ...

    @abstractmethod
    def _connect_out(self, frame: Frame) -> None: ...

    @abstractmethod
    def _stream(self, holder: Frame, name: str, value: Value) -> None: ...

    @abstractmethod
    def _write(self, holder: Frame, name: str, value: Value) -> None: ...

    @abstractmethod
    def _bus_nonempty(self) -> bool: ...
