"""The units of one firing and the order they may take.

A firing (a dispatch's selected transitions, a join, the machine's start) is written as a generator
of steps (configuration.py, dispatch.py): it yields `UNIT` just before each unit the semantics
orders on its own (a state's entry, a state's exit behavior, a transition's effect), and `Par(...)`
where it starts chains no succession orders against each other (the regions of a parallel state
entered or left, the transitions one occurrence selects in several regions, the branches of a fork,
the segments into a join fired together); the generator goes on once every chain has ended.

Two drivers run them:
- `run_whole` (the fixed policies): every chain whole, in declaration order, as one move;
- `Front` (check, explore): a firing in progress, whose runnable chains each offer their next unit as
  a move (task order = declaration order, so the first one each time is the fixed run). A chain that
  is the only thing that may move goes on without a choice.

A chain about to leave a state yields `Leaving(state)` first: a transition another chain of the
firing has begun inside that state is part of the state's performance, which ends before the state's
exit (`StatePerformances.kerml`: `succession [*] middle then [1] exit`), so the leaving chain waits
until that transition has ended (a transition not begun is dropped when its turn comes, its source
left).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engines.runtime.states.layout import Transition
from ir import syntax as s

if TYPE_CHECKING:
    from engines.runtime.states.layout import Vertex

UNIT = "unit"  # yielded just before a unit
HELD = "held"  # yielded where a dispatch may come before the rest (an entry not run to completion)


@dataclass(frozen=True)
class Leaving:
    """Yielded just before a chain leaves `state` (and everything below it)."""

    state: Vertex


@dataclass(frozen=True, eq=False)
class Pick:
    """Yielded where a choice has two branches or more whose guards hold, named in `options`: the
    driver puts the one taken in `taken` before going on (the fixed policies take the first)."""

    vertex: Vertex
    options: tuple[str, ...]
    taken: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Chain:
    """What a chain of a behavior's statements works on: those statements (as written), of the
    behavior of `owner` (the state whose entry or exit it is, the transition whose effect)."""

    owner: Vertex | Transition
    statements: tuple[s.Member, ...]


def worked_on(what: Vertex | Transition | Chain | None) -> Vertex | Transition | None:
    """The state or transition a chain's work belongs to."""
    return what.owner if isinstance(what, Chain) else what


@dataclass(frozen=True)
class Par:
    """Chains that start together and are ordered against nothing but what follows them all."""

    # (what a move names the chain by, its steps, what it works on: a region entered or left, a
    # transition fired, a fork's branch, a segment into a join, a behavior's statements)
    chains: tuple[tuple[str, Steps, Vertex | Transition | Chain], ...]


Step = str | Par | Leaving | Pick  # what a firing's generator yields: UNIT, HELD, a Par, a Leaving or a Pick
Steps = Generator[Step, None, None]


def run_whole(steps: Generator[Step, None, object]) -> object:
    """Every unit of `steps` in order, each chain of a `Par` whole before the next starts."""
    while True:
        try:
            item = next(steps)
        except StopIteration as stop:
            return stop.value
        if isinstance(item, Par):
            for _, chain, _ in item.chains:
                run_whole(chain)
        elif isinstance(item, Pick):
            item.taken.append(item.options[0])


@dataclass(eq=False)
class Task:
    """One chain of a firing in progress: its steps, who waits for it, and whether it stands at a
    unit (primed) or has not started."""

    name: str
    steps: Steps
    parent: Task | None
    number: int
    what: Vertex | Transition | Chain | None  # what the chain works on (None: the firing itself)
    taken: int = 0  # units it has performed
    waiting: int = 0  # chains of a Par this task waits for
    primed: bool = False
    held: bool = False  # stands where a dispatch may come first
    leaving: Vertex | None = None  # stands before leaving this state, until no other chain is under way in it
    left: Vertex | None = None  # the state it has begun to leave: a transition inside it not begun is dropped
    pick: Pick | None = None  # stands at a choice: each branch it may take is a move of its own


@dataclass(eq=False)
class Front:
    """A firing in progress: its chains in declaration order (a Par's chains in place of their
    parent, ahead of it), and the moves taken since it began (with the state it began in: its key)."""

    key: tuple[object, ...]
    quiet: bool
    tasks: list[Task] = field(default_factory=list)
    taken: list[str] = field(default_factory=list)
    made: int = 0  # chains begun so far: each one's number

    @classmethod
    def begin(cls, steps: Steps, name: str, key: tuple[object, ...], quiet: bool) -> Front:
        front = cls(key, quiet)
        front.tasks.append(front._task(name, steps, None, None))
        return front

    def _task(self, name: str, steps: Steps, parent: Task | None, what: Vertex | Transition | Chain | None) -> Task:
        self.made += 1
        return Task(name, steps, parent, self.made, what)

    @property
    def done(self) -> bool:
        return not self.tasks

    def runnable(self) -> list[Task]:
        return [t for t in self.tasks if t.waiting == 0 and (t.leaving is None or not self._kept(t))]

    def any_runnable(self) -> bool:
        """Whether `runnable()` lists a chain."""
        return any(t.waiting == 0 and (t.leaving is None or not self._kept(t)) for t in self.tasks)

    def _kept(self, task: Task) -> bool:
        """Whether the task stands before leaving a state inside which another chain's transition is
        under way (begun, not ended)."""
        state = task.leaving
        if state is None:
            return False
        mine = set()
        at: Task | None = task
        while at is not None:
            mine.add(id(at))
            at = at.parent
        for other in self.tasks:
            owner = worked_on(other.what)
            if other.taken and id(other) not in mine and isinstance(owner, Transition) \
                    and owner.source.is_within(state):
                return True
        return False

    def being_left(self, state: Vertex) -> bool:
        """Whether a chain has begun to leave `state` or a state around it."""
        return any(t.left is not None and state.is_within(t.left) for t in self.tasks)

    def held(self) -> bool:
        return any(t.held for t in self.tasks)

    def labels(self) -> list[tuple[Task, str, str | None]]:
        """Each runnable chain, the label of its move (`unit left`; `unit left#2` where two alike) and
        its option: a chain at a choice has a move per branch (`unit go [pick->high]`)."""
        out: list[tuple[Task, str, str | None]] = []
        seen: dict[str, int] = {}
        for task in self.runnable():
            n = seen.get(task.name, 0) + 1
            seen[task.name] = n
            label = f"unit {task.name}" + (f"#{n}" if n > 1 else "")
            if task.pick is not None:
                out.extend((task, f"{label} [{option}]", option) for option in task.pick.options)
            else:
                out.append((task, label, None))
        return out

    def advance(self, task: Task, option: str | None = None) -> None:
        """Perform the task's next unit and what follows it up to its next unit (or its end, where the
        chain it ends lets its parent go on to its next unit); at a choice, by the branch `option`."""
        if task.pick is not None:
            assert option in task.pick.options
            task.pick.taken.append(option)
            task.pick = None
        task.held = False
        if task.leaving is not None:  # kept before leaving a state, and now let go: it leaves it
            task.leaving, task.left = None, task.leaving
        task.taken += 1
        self._run(task, unit=not task.primed)

    def _run(self, task: Task, unit: bool) -> None:
        while True:
            try:
                item = next(task.steps)
            except StopIteration:
                self._finish(task)
                return
            if item is HELD:  # the step markers are yielded as these very strings
                task.primed = False  # going on from here performs the next unit
                task.held = True
                return
            if isinstance(item, Pick):
                task.pick = item
                task.primed = False  # the branch taken and its first unit are the next move
                return
            if isinstance(item, Leaving):
                task.leaving = item.state
                if self._kept(task):
                    task.primed = False  # going on from here performs the next unit
                    return
                task.leaving, task.left = None, item.state
                continue
            if item is UNIT:
                if unit:
                    unit = False  # what follows is the unit this move performs
                    continue
                task.primed = True
                return
            assert isinstance(item, Par)
            task.primed = False
            chains = [self._task(name, steps, task, what) for name, steps, what in item.chains]
            if not chains:
                continue
            task.waiting = len(chains)
            at = self.tasks.index(task)
            self.tasks[at:at] = chains
            return  # which chain goes first is the next move's

    def _finish(self, task: Task) -> None:
        self.tasks.remove(task)
        parent = task.parent
        if parent is None:
            return
        parent.waiting -= 1
        if parent.waiting == 0:
            self._run(parent, unit=False)


@dataclass(eq=False, slots=True)
class _Lone:
    """A chain of a firing driven by `Alone`: what its `Task` would hold while it alone may move."""

    name: str
    steps: Steps
    what: Vertex | Transition | Chain | None
    number: int
    taken: int = 0
    left: Vertex | None = None
    primed: bool = False


class Alone:
    """A firing begun, driven as `Front` drives it while one chain alone may move (each chain it is part
    of waits for it alone): the same units in the same order, without a `Front`'s bookkeeping. Where
    the firing may take another order (a `Par` of several chains, a `Pick`, a `HELD` entry) or `pause`
    says it may (a do behavior the firing started), it hands over the `Front` that would stand there.

    In one such chain no `Leaving` is ever kept (every other chain under way is one it is part of)."""

    __slots__ = ("made", "stack")

    def __init__(self, steps: Steps, name: str) -> None:
        self.stack = [_Lone(name, steps, None, 1)]
        self.made = 1

    def being_left(self, state: Vertex) -> bool:
        return any(t.left is not None and state.is_within(t.left) for t in self.stack)

    def run(self, pause: Callable[[], bool], key: tuple[object, ...], quiet: bool) -> Front | None:
        """Go on to the firing's end (None), or to where the `Front` it returns takes over."""
        stack = self.stack
        while True:
            if pause():
                return self.front(key, quiet)
            task = stack[-1]
            task.taken += 1
            unit = not task.primed
            while True:
                try:
                    item = next(task.steps)
                except StopIteration:
                    stack.pop()
                    if not stack:
                        return None
                    task, unit = stack[-1], False
                    continue
                if item is UNIT:
                    if unit:
                        unit = False
                        continue
                    task.primed = True
                    break
                if isinstance(item, Leaving):
                    task.left = item.state
                    continue
                task.primed = False
                if item is HELD:
                    front = self.front(key, quiet)
                    front.tasks[0].held = True
                    return front
                if isinstance(item, Pick):
                    front = self.front(key, quiet)
                    front.tasks[0].pick = item
                    return front
                assert isinstance(item, Par)
                chains = item.chains
                if not chains:
                    continue
                if len(chains) == 1:
                    self.made += 1
                    name, steps, what = chains[0]
                    stack.append(_Lone(name, steps, what, self.made))
                    break
                front = self.front(key, quiet)
                front.tasks[0].waiting = len(chains)
                front.tasks[0:0] = [front._task(name, steps, front.tasks[0], what) for name, steps, what in chains]
                return front

    def front(self, key: tuple[object, ...], quiet: bool) -> Front:
        """The `Front` standing where this firing stands."""
        front = Front(key, quiet, made=self.made)
        parent: Task | None = None
        for lone in self.stack:
            parent = Task(lone.name, lone.steps, parent, lone.number, lone.what, taken=lone.taken, waiting=1,
                          primed=lone.primed, left=lone.left)
            front.tasks.insert(0, parent)
        if front.tasks:
            front.tasks[0].waiting = 0
        return front
