"""The check partitioned over workers on Ray: the same answers as the sequential search, its states
spread over processes (and machines, on a Ray cluster), for every behavior the check searches.

The fingerprint space is split by hash over N Ray actors. Each rebuilds the model once from its source
text and makes the behavior by a `Recipe` (plain data: an action, a machine with its environment, a
part's instance; properties, performer, compared features). A state travels as a compact encoding,
never as pickled runtime objects: an action the flat form covers (engines/runtime/actions/flat.py)
as that form's tuple of token places and values; anything else as its schedule from the start (each
move's place among the moves enabled where it was taken), which its owner replays in the interpreter.
An owner replays its states in the schedules' order from the nearest snapshot of the steps they share
(a machine partway through a firing has none: the steps from the last settled state are made again),
and a state with exactly one move, whose successor a snapshot could hold, is walked through by the
worker that reached it (examined there, its successor sent on), so that a chain of such states is not
replayed from the start once per state.

Each actor owns its share of the visited set, with every state's level (its steps from the start) and
the move and state it was first reached from. The search runs breadth first by level in synchronous
rounds (bulk-synchronous parallel): in a round each actor expands the states it owns at the lowest
level any actor still holds and sends each successor to its owner, one batch per owner; at the barrier
the owners keep the successors they had not seen, or had only at a deeper level. Termination is that
barrier's: a round after which no actor holds a state to expand ends the search, which no message can
outlive (every batch of a round is delivered before the round's barrier is passed). A walked state
arrives before its level's round: states of one level arrive no later than the round before it.

Where two states reach one successor, its owner keeps the one first in a fixed order: flat, the
predecessor's fingerprint, then the move; as schedules, the schedule itself (a move's place among the
moves enabled is decided by numbering, which the canonical state leaves out, so the same place may
name different moves after two schedules to one state). So what is kept, and every witness, is the
same at any worker count. Reduction is by persistent sets alone, computed per state from the state
(they need no search order); the sleep sets of the sequential search need its depth-first order and
are left out, which keeps every final state and deadlock (a persistent set of a state holds a move of
every schedule to a final state from it) and may search more states than the sequential reduced
search, never more than the unreduced one. Every claim's schedule (rebuilt from the parent links of
the partitions, or carried by the claim) is replayed in the interpreter before it is reported, as the
sequential search's are.

The interrupt and the timeout reach a round under way: the driver looks at them every POLL seconds
while the workers run it and cancels the round's calls; a worker looks at its task's cancel flag (and
at its memory, against its share of the memory bound) every LOOK states, and inside an interpreter's
move at the cadence of engines/runtime/watch.py. It stops there, the states it did not expand held.

Fingerprints hash strings, so every actor hashes with one seed (PYTHONHASHSEED in its environment), and
an interpreter's state is fingerprinted by bytes that write its values alike in every process (canon.py
`portable_fingerprint`).
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import inspect
import itertools
import logging
import marshal
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, TypeVar, cast

from engines.check.canon import portable_fingerprint
from engines.check.search import final_values
from engines.errors import EngineError, RunError
from engines.framework import Bounds, Progress, Result, Status, WorkerFigures, imbalance
from engines.runtime import Behavior, NotFlat, Program, Script
from engines.runtime.behavior import Move
from engines.runtime.snapshot import Snapshot, SnapshotError
from engines.runtime.watch import BoundReached, Watch, resident_memory, watching
from ir.model import Element

EXTRA = "pip install -e '.[ray]' (or pip install ray)"
_SEED = "0"  # the hash seed every actor's process starts with


class ParallelUnavailable(EngineError):
    """A parallel search asked for where it cannot run: no Ray, or a behavior no recipe makes."""


def status() -> Status:
    """Whether the parallel search can run here: Ray importable."""
    if importlib.util.find_spec("ray") is None:
        return Status(False, f"Ray is not installed: {EXTRA}")
    return Status(True, "ready")


def _ray() -> Any:
    if importlib.util.find_spec("ray") is None:
        raise ParallelUnavailable(f"--workers needs Ray, which is not installed: {EXTRA}")
    import ray

    return ray


def connect(address: str | None = None) -> Any:
    """Ray, started here (or joined at `address`, else $RAY_ADDRESS) once per process."""
    ray = _ray()
    if not ray.is_initialized():
        target = address or os.environ.get("RAY_ADDRESS") or None
        env = {"env_vars": {"PYTHONHASHSEED": _SEED}}
        quiet = {"log_to_driver": False, "logging_level": logging.ERROR}  # a report, not Ray's start-up lines
        if target:
            ray.init(address=target, runtime_env=env, **quiet)
        else:
            # Ray starts its workers at niceness 15, behind its own processes, the driver and whatever else
            # runs: a check is the modeler's foreground work, searched at the priority the sequential search
            # has (read by the raylet this starts; a cluster joined keeps its own setting)
            os.environ.setdefault("RAY_worker_niceness", "0")
            ray.init(runtime_env=env, include_dashboard=False, num_cpus=max(os.cpu_count() or 1, 1), **quiet)
    return ray


# ---------------------------------------------------------------- one partition

class SubjectKind(Enum):
    """What a check searches: an action's performance, a machine with its environment, a part's instance."""

    ACTION = "action"
    MACHINE = "machine"
    PART = "part"


@dataclass(frozen=True)
class Recipe:
    """How a worker makes the searched behavior afresh from the model's source text: plain data, no
    runtime object. `flat`: the action's flat form covers it, and states travel as its tuples; else
    they travel as their schedules from the start, which a worker replays in the interpreter."""

    kind: SubjectKind
    subject: str  # qualified
    performer: str | None = None
    script: Script | None = None  # a machine's or an instance's environment
    properties: tuple[str, ...] = ()
    features: tuple[str, ...] | None = None  # the compared features (None: the behavior's own)
    readable: frozenset[str] | None = None
    flat: bool = False
    max_steps: int = 0

    def element(self, program: Program) -> Element:
        """Where the properties are looked up."""
        if self.kind is SubjectKind.ACTION:
            return program.action(self.subject)
        return program.state(self.subject) if self.kind is SubjectKind.MACHINE else program.part(self.subject)

    def start(self, program: Program) -> Behavior:
        """The behavior before its first move, as the sequential search starts it."""
        if self.kind is SubjectKind.ACTION:
            return program.start_action(self.subject, self.performer, fine=True)
        script = self.script or Script()
        if self.kind is SubjectKind.MACHINE:
            return program.start_driven(self.subject, script)
        return program.start_instance(self.subject, script)


# a state sent to its owner: its fingerprint; its predecessor's; the move's place among the moves enabled
# there (TIME: the clock moved, no move); its level (the steps from the start: the round its owner
# expands it in); whether it is a state the check counts (settled: no machine's firing stands partway);
# whether its sender examined it already (a state with one move, walked through: engines/check/parallel.py
# `_walk`); and the state: the flat form's tuple, or the schedule from the start
Message = tuple[bytes, bytes, int, int, bool, bool, tuple[Any, ...]]
# a state as a claim names it: its level, fingerprint and, where states travel as schedules, the schedule
# to it (the first in the order of these three is the one reported)
Where = tuple[int, bytes, tuple[Any, ...]]
TIME = -1  # a schedule's step where no move was enabled and the clock moved to the next wait's end
NO_MOVE = -2  # a failure found at a state, not by a move from it


BATCH = 65_536  # messages gathered (to send) or received (to keep) before they are sent or kept: a
# round's memory is bounded by the states kept, not by the messages in flight
LOOK = 1_024  # states a worker expands between two looks at its task's cancel flag and its memory


def pack(batch: list[Message], shared: bool) -> bytes | list[Message]:
    """A batch as bytes. `shared`: a flat search's, whose states share their tokens and values (a move
    remakes what it changes and keeps the rest), written by pickle, which writes an object met again as
    a reference to it: each is written and read back once (on racy 4x3, half marshal's bytes, written
    and read a quarter quicker). Else a batch of schedules (tuples of numbers), by marshal, the quicker
    there, where its values allow (a Real value is a Fraction: the batch is sent as it is)."""
    if shared:
        return pickle.dumps(batch, pickle.HIGHEST_PROTOCOL)
    try:
        return marshal.dumps(batch)
    except ValueError:
        return batch


def unpack(batch: bytes | list[Message], shared: bool) -> list[Message]:
    if not isinstance(batch, bytes):
        return batch
    return cast("list[Message]", pickle.loads(batch) if shared else marshal.loads(batch))


def _cancellation() -> Callable[[], bool]:
    """Whether the driver has cancelled the Ray task running (a round cut short by an interrupt or the
    timeout); never, where the partition is driven in this process, not by Ray."""
    try:
        import ray

        if not ray.is_initialized():  # (asking for the context would start Ray here)
            return lambda: False
        context = ray.get_runtime_context()
        context.is_canceled()
    except (ImportError, RuntimeError):  # not a Ray worker: this process drives the partitions
        return lambda: False
    return context.is_canceled


@dataclass(frozen=True)
class Settled:
    """A worker's round, kept: its new states, how many of those the check counts, the lowest level it
    still holds to expand (-1: none), its figures, and why its round stopped short (None: it did not)."""

    fresh: int
    counted: int
    lowest: int
    figures: WorkerFigures
    stopped: str | None


class Partition:
    """One worker's share of the search: the states whose fingerprints hash to it (a Ray actor, kept for
    the next search: `load` gives it each search's model and share)."""

    def __init__(self) -> None:
        self.sources: list[tuple[str, str]] = []
        self.program: Program | None = None

    def load(self, sources: list[tuple[str, str]], recipe: Recipe, reduce: bool, index: int, count: int,
             search: int = 0, memory: int | None = None) -> None:
        import ir
        from engines.check.properties import resolve_properties
        from engines.check.reduce import Reducer

        # A flat state holds no reference cycle, and the collector's passes would walk the visited set
        # again and again as it grows (a third of the time on racy 4x3): off in the worker for a flat
        # search, its leftovers collected once here, between searches. An interpreter's run is made
        # afresh for each replay from the start (a machine partway through its first firing has no
        # snapshot), and the run it replaces holds reference cycles, which only the collector frees: on
        # there, with what the worker holds before the search frozen out of its passes (as the sequential
        # search has it). Its states are schedules, tuples of numbers, which the collector stops tracking.
        gc.unfreeze()
        gc.collect()
        if recipe.flat:
            gc.disable()
        else:
            gc.enable()
        if self.program is None or sources != self.sources:
            self.program = Program(ir.resolve([ir.parse(text, path) for path, text in sources]))
            self.sources = sources
        program = self.program
        self.recipe = recipe
        if recipe.flat:
            # an error a move meets is worded by the driver, which replays its schedule in the interpreter
            self.flat = program.flat_action(recipe.subject, recipe.readable, lambda moves: "", recipe.max_steps)
            self.run: Any = self.flat.start()
            self.listed = False
        else:
            self._fresh()
            self.listed = "listed" in inspect.signature(self.run.apply).parameters
            # the snapshots of the schedule the run stands at: snapshots[i] after its first i steps
            self.snapshots: list[Snapshot | None] = []
            self.at: tuple[int, ...] = ()
            # the fingerprints of the states after the schedule's first i steps, where found (a replay gives
            # each move the fingerprint of where it is made, as the first run of it did)
            self.prints: list[bytes | None] = []
        self.properties = resolve_properties(program, recipe.element(program), recipe.properties) \
            if recipe.properties else []
        gc.freeze()
        self.reduce = reduce and not self.properties
        self.reducer = Reducer()
        self.index = index
        self.count = count
        # which search of the driver's this is: a batch a peer sent in a search given up (the flat form
        # refused partway, the pool kept for the interpreter's search) may arrive after this load
        self.search = search
        # where a round stops short: the driver cancels it (an interrupt, the timeout), or the worker's
        # memory passes its share of the memory bound (`memory`: the bound over the worker count)
        self.memory_share = memory
        self.cancelled = _cancellation()
        self.stopped: str | None = None
        # fingerprint -> (level, the fingerprint it was first reached from, the move's place among the
        # moves enabled there: the interpreter, which lists the same moves in the same order, takes it)
        self.visited: dict[bytes, tuple[int, bytes, int]] = {}
        # the states it owns still to expand, by level (the round that expands them)
        self.pending: dict[int, dict[bytes, tuple[Any, ...]]] = {}
        # a state with one move is walked through by the worker that reached it (not sent to be expanded
        # a round later): where the states of a schedule travel as the schedule, a chain of such states
        # would be replayed from the start again for each of its states
        self.walks = not recipe.flat
        self.inbox: list[Message] = []
        # a flat search's successors for each other worker, gathered for the next batch it is sent: the
        # message from the first predecessor in the fixed order, by fingerprint
        self.boxes: list[dict[bytes, Message]] = [{} for _ in range(count)] if recipe.flat else []
        self.fresh = self.counted = 0  # the round's new states so far, and those the check counts
        self.moves = 0
        self.sent = 0
        self.sent_bytes = 0
        self.deepest = 0  # the most moves to a state it examined
        # what the states it expanded showed: outcomes (final values and the properties false there),
        # violated properties, deadlocks, failing moves, each at the first state in the fixed order
        # (round, fingerprint); a property that cannot be evaluated, where first met
        self.finals: dict[Any, list[Any]] = {}
        self.violations: dict[str, Where] = {}
        self.deadlocks: dict[str, Where] = {}
        self.failures: dict[tuple[bytes, int], Where] = {}
        self.unevaluable: tuple[Where, str] | None = None
        self.depth_hit = False
        self.busy = 0.0

    def _owner(self, fp: bytes) -> int:
        return int.from_bytes(fp, "little") % self.count

    def _fresh(self) -> None:
        """The run made afresh by the recipe, at the start (an interpreter's, its trace off)."""
        self.run = self.recipe.start(cast("Program", self.program))
        self.run.world.trace.enabled = False

    def _fingerprint(self) -> bytes:
        if self.recipe.flat:
            return cast("bytes", self.run.fingerprint())
        return portable_fingerprint(self.run, self.recipe.readable)

    def start(self) -> int:
        """The first state, kept by the partition that owns it: 1 there, else 0."""
        if self.recipe.flat:
            self.run = self.flat.start()
            state: tuple[Any, ...] = self.run.state()
        else:
            self._fresh()
            self.snapshots = [self._snapshot()]
            self.prints = []
            self.at = state = ()
        fp = self._fingerprint()
        if self._owner(fp) != self.index:
            return 0
        self.visited[fp] = (0, b"", -1)
        self.pending = {0: {fp: state}}
        return 1 if self.run.settled() else 0

    # ------------------------------------------------------------ states restored

    def _goto(self, state: tuple[Any, ...], again: bool = False) -> None:
        """The run put at `state`: a flat state loaded, or a schedule replayed from where the run's
        schedule and it part (the frontier is visited in the schedules' order, so most steps are
        shared); `again`: back at the state the run was last put at, before a move from it."""
        if self.recipe.flat:
            self.run.restore(state)
            return
        at, shared = self.at, 0
        if again:
            shared = len(state)
        else:
            limit = min(len(at), len(state))
            while shared < limit and at[shared] == state[shared]:
                shared += 1
        # the states after the steps the two schedules share are the same: their fingerprints are kept
        prints = self.prints
        del prints[shared + 1:]
        # the nearest point back that a snapshot holds: partway through a machine's firing none can
        # (where its units stand is not journaled), and the steps from the point before are made again
        point = shared
        while point > 0 and self.snapshots[point] is None:
            point -= 1
        del self.snapshots[point + 1:]  # (closed by the restore below)
        first = self.snapshots[0] if point == 0 else None
        if point == 0 and first is None:
            self._fresh()
        else:
            cast("Snapshot", self.snapshots[point]).restore()
        run = self.run
        for i in range(point, len(state)):
            step = state[i]
            if step == TIME:
                run.let_time_pass()
            else:
                known = prints[i] if i < len(prints) else None
                if known is None:
                    known = self._fingerprint()
                    prints.extend([None] * (i + 1 - len(prints)))
                    prints[i] = known
                self._apply(run.enabled_moves()[step], known)
            self.snapshots.append(self._snapshot())
        self.at = state

    def _apply(self, move: Move, at: bytes) -> None:
        """A move enabled where the run stands, whose fingerprint is `at`: a machine keys a firing the move
        leaves in progress by it, so every move is given it, replayed or not (else one state would be
        keyed two ways), and a machine's move is not looked up again."""
        if self.listed:
            self.run.apply(move, at=at, listed=True)
        else:
            self.run.apply(move, at=at)

    def _snapshot(self) -> Snapshot | None:
        try:
            return Snapshot(self.run)
        except SnapshotError:
            return None

    def _back(self, state: tuple[Any, ...]) -> None:
        """Back at `state`, where the run stood before a move from it."""
        if self.recipe.flat:
            self.run.restore(state)
        else:
            self._goto(state, again=True)

    def _child(self, state: tuple[Any, ...], step: int) -> tuple[Any, ...]:
        return cast("tuple[Any, ...]", self.run.state()) if self.recipe.flat else (*state, step)

    # ------------------------------------------------------------ a round

    def receive(self, batch: bytes | list[Message], search: int) -> None:
        if search != self.search:
            return  # sent in a search given up
        started = time.perf_counter()
        self.inbox.extend(unpack(batch, self.recipe.flat))
        if len(self.inbox) >= BATCH:
            self._keep()
        self.busy += time.perf_counter() - started

    def settle(self) -> Settled:
        """The round's states kept (`_keep`), with the worker's figures."""
        started = time.perf_counter()
        self._keep()
        pending = self.pending
        for level in [lv for lv, states in pending.items() if not states]:
            del pending[level]
        fresh, counted = self.fresh, self.counted
        self.fresh = self.counted = 0
        self.busy += time.perf_counter() - started
        return Settled(fresh, counted, min(pending, default=-1), self.figures(), self.stopped)

    def figures(self) -> WorkerFigures:
        return WorkerFigures(len(self.visited), sum(map(len, self.pending.values())), self.moves, self.sent,
                             self.sent_bytes, resident_memory(), self.busy)

    def _keep(self) -> None:
        """Keep the states received not seen before, or seen only from a predecessor later in the fixed
        order (level, predecessor's fingerprint, move) and not yet expanded, counting the new ones for the
        round. The first in that order wins whichever arrives first, so the inbox is kept in batches as it
        fills (a round's walked chains would otherwise all wait in it)."""
        visited = self.visited
        for fp, parent, index, level, settled, examined, state in self.inbox:
            seen = visited.get(fp)
            if seen is None or self._better((level, parent, index), examined, state, seen, fp):
                self._take(fp, (level, parent, index), seen, settled, examined, state)
        self.inbox = []

    def _take(self, fp: bytes, key: tuple[int, bytes, int], seen: tuple[int, bytes, int] | None, settled: bool,
              examined: bool, state: tuple[Any, ...]) -> None:
        """A state kept, first reached or reached first in the fixed order (`key`: its level, predecessor's
        fingerprint and move; `seen`: what was held of it before), to be expanded unless `examined`."""
        if seen is None:
            self.fresh += 1
            self.counted += settled
        else:
            # (a state expanded already has a level below any still arriving: it is never replaced)
            self.pending.get(seen[0], {}).pop(fp, None)
        self.visited[fp] = key
        if not examined:
            self.pending.setdefault(key[0], {})[fp] = state

    def _better(self, key: tuple[int, bytes, int], examined: bool, state: tuple[Any, ...],
                seen: tuple[int, bytes, int], fp: bytes) -> bool:
        """Whether a state received again replaces what its owner holds of it: the first in the fixed order.
        Flat, that is (level, predecessor's fingerprint, move). A schedule's move is its place among the
        moves enabled where it is taken, which numbering decides, and the canonical state leaves numbering
        out: two schedules to one state may name one move differently, so the schedule itself is kept,
        the first by (level, examined by its sender first, schedule)."""
        if self.recipe.flat:
            return key < seen
        if key[0] != seen[0]:
            return key[0] < seen[0]
        held = self.pending.get(seen[0], {}).get(fp)
        if held is None:
            return False  # examined already: nothing is left to decide
        return examined or state < held

    def _where(self, fp: bytes, level: int, state: tuple[Any, ...]) -> Where:
        """A state as a claim names it: its level, fingerprint and (a schedule's) the schedule to it."""
        return (level, fp, () if self.recipe.flat else state)

    def _examine(self, fp: bytes, level: int, state: tuple[Any, ...]) -> list[str] | None:
        """What the state the run stands at shows (properties, failure, end, deadlock): the properties
        false there, or None where it has no move to search."""
        run = self.run
        violated: list[str] = []
        if not self.properties and run.error is None and not run.finished:
            return violated
        where = self._where(fp, level, state)
        if self.properties and run.settled():
            for prop in self.properties:
                holds, error = prop.holds(run)
                if error is not None:
                    if self.unevaluable is None or (where, error) < self.unevaluable:
                        self.unevaluable = (where, error)
                    continue
                if not holds:
                    violated.append(prop.name)
                    seen = self.violations.get(prop.name)
                    if seen is None or where < seen:
                        self.violations[prop.name] = where
        if run.error is not None:
            self._failed(where, NO_MOVE)
            return None
        if run.finished:
            values = final_values(run, self.recipe.features)
            key = (tuple(sorted(values.items())), tuple(sorted(set(violated))))
            known = self.finals.get(key)
            if known is None:
                self.finals[key] = [1, where]
            else:
                known[0] += 1
                known[1] = min(known[1], where)
            return None
        return violated

    def expand(self, peers: list[Any], round_: int, bound: int) -> list[Any]:
        """Every state of this round's level: what it shows, and its successors sent to their owners; the
        sends, for the driver to wait on."""
        started = time.perf_counter()
        out: list[list[Message]] = [[] for _ in range(self.count)]
        frontier = list(self.pending.pop(round_, {}).items())
        if not self.recipe.flat:
            frontier.sort(key=lambda item: item[1])  # schedules in order: the replays share their steps
        sends: list[Any] = []
        boxes = self.boxes
        # an interpreter's move may run long (a loop): inside it the run looks at the cancel flag and the
        # memory as the sequential search's looks at the interrupt (a flat run's moves are short)
        watch = contextlib.nullcontext() if self.recipe.flat else \
            watching(Watch(None, self.cancelled, self.memory_share))
        held: int | None = None  # where the round stopped short: the states from there on are left to expand
        with watch:
            for n, (fp, state) in enumerate(frontier):
                if n and not n % LOOK and self._stopping():
                    held = n
                    break
                try:
                    self._goto(state)
                    self._expand(fp, state, round_, bound, out)
                except BoundReached as reached:
                    self.stopped = "memory" if reached.kind == "memory" else "cancelled"
                    self.at, self.snapshots, self.prints = (), [None], []  # the run, stopped mid-move: made afresh
                    held = n
                    break
                if sum(map(len, out)) + sum(map(len, boxes)) >= BATCH:
                    self._send(out, peers, sends)
        if held is not None:
            self.pending.setdefault(round_, {}).update(frontier[held:])
        self._send(out, peers, sends)
        self.busy += time.perf_counter() - started
        return sends

    def _stopping(self) -> bool:
        """Whether the round stops short here (looked at every LOOK states): the driver cancelled it, or the
        worker holds more than its share of the memory bound."""
        if self.cancelled():
            self.stopped = "cancelled"
        elif self.memory_share is not None and resident_memory() > self.memory_share:
            self.stopped = "memory"
        return self.stopped is not None

    def _send(self, out: list[list[Message]], peers: list[Any], sends: list[Any]) -> None:
        """The successors gathered so far sent to their owners (its own kept here), `out` (and a flat
        search's boxes) emptied."""
        for owner, box in enumerate(self.boxes):
            if box:
                out[owner].extend(box.values())
                box.clear()
        for owner, batch in enumerate(out):
            if not batch:
                continue
            if owner == self.index:
                self.inbox.extend(batch)
                if len(self.inbox) >= BATCH:
                    self._keep()
            else:
                packed = pack(batch, self.recipe.flat)
                self.sent += len(batch)
                self.sent_bytes += len(packed) if isinstance(packed, bytes) else len(pickle.dumps(packed))
                sends.append(peers[owner].receive.remote(packed, self.search))
            out[owner] = []

    def _moved(self, state: tuple[Any, ...], level: int) -> int:
        """The moves made to reach a state (a flat run's level is its moves; a schedule may let time pass)."""
        return level if self.recipe.flat else len(state) - state.count(TIME)

    def _expand(self, fp: bytes, state: tuple[Any, ...], level: int, bound: int, out: list[list[Message]]) -> None:
        """The state the run stands at: what it shows, and its successors (walked through, or sent)."""
        run = self.run
        moved = level if self.recipe.flat else self._moved(state, level)
        if moved > self.deepest:
            self.deepest = moved
        if self._examine(fp, level, state) is None:
            return
        moves = run.enabled_moves()
        if not moves:
            if not self.recipe.flat and run.let_time_pass():
                # time is no choice: the clock moves to the next wait's end, a state of its own
                self._reached(self._fingerprint(), fp, TIME, level + 1, self._child(state, TIME), bound, out)
                return
            text = (run.stuck() or "deadlock").removeprefix("deadlock: ")
            where = self._where(fp, level, state)
            seen = self.deadlocks.get(text)
            if seen is None or where < seen:
                self.deadlocks[text] = where
            return
        if moved >= bound:
            self.depth_hit = True
            return
        taken = list(enumerate(moves))
        if self.reduce and len(moves) > 1:
            chosen = {id(m) for m in self.reducer.persistent(cast("Behavior", run), moves, run.actors())}
            taken = [(i, m) for i, m in taken if id(m) in chosen]
        fresh = True  # the run still stands at the state: the first move needs no load
        if self.recipe.flat:
            # the inner loop of an action's flat form, where every call counts: nothing is walked, a
            # successor its own worker owns is kept at once, and one another owns is sent once a batch,
            # from the predecessor first in the fixed order (a state reached from several predecessors
            # is sent, marshalled and kept once, not once per predecessor)
            count, mine, boxes, visited = self.count, self.index, self.boxes, self.visited
            below = level + 1
            for index, move in taken:
                if not fresh:
                    run.restore(state)
                fresh = False
                self.moves += 1
                try:
                    run.apply(move)
                except RunError:
                    self._failed(self._where(fp, level, state), index)
                    continue
                child = run.fingerprint()
                key = (below, fp, index)
                owner = int.from_bytes(child, "little") % count
                if owner == mine:
                    kept = visited.get(child)
                    if kept is None or key < kept:
                        self._take(child, key, kept, True, False, run.state())
                    continue
                box = boxes[owner]
                held = box.get(child)
                if held is None or key < (held[3], held[1], held[2]):
                    box[child] = (child, fp, index, below, True, False, run.state())
            return
        for index, move in taken:
            if not fresh:
                self._back(state)
            fresh = False
            self.moves += 1
            try:
                self._apply(move, fp)
            except RunError:
                self._failed(self._where(fp, level, state), index)
                continue
            self._reached(self._fingerprint(), fp, index, level + 1, self._child(state, index), bound, out)

    def _reached(self, fp: bytes, parent: bytes, index: int, level: int, state: tuple[Any, ...], bound: int,
                 out: list[list[Message]]) -> None:
        """A successor the run stands at, sent to its owner; where it has one move (and no end, failure or
        bound stops it there) to a state a snapshot could hold, examined and walked through here, on to
        the first state that is not."""
        while True:
            run = self.run
            message = (fp, parent, index, level, run.settled())
            moves = run.enabled_moves() if self.walks and not run.finished and self._walkable() else None
            where = self._where(fp, level, state)
            moved = self._moved(state, level)
            if moves is None or len(moves) != 1 or moved >= bound:
                out[self._owner(fp)].append((*message, False, state))
                return
            self.deepest = max(self.deepest, moved)
            if self._examine(fp, level, state) is None:
                out[self._owner(fp)].append((*message, False, state))
                return
            try:
                self._apply(moves[0], fp)
            except RunError:
                self.moves += 1
                self._failed(where, 0)
                out[self._owner(fp)].append((*message, True, ()))
                return
            if not self._walkable():
                # past it, the canonical state names the moves that led there: the state is the owner's to
                # expand, along the schedule it keeps (what it finds there it finds again: the same claims)
                out[self._owner(fp)].append((*message, False, state))
                return
            self.moves += 1
            out[self._owner(fp)].append((*message, True, ()))  # (examined: its owner needs no schedule to it)
            fp, parent, index, level, state = self._fingerprint(), fp, 0, level + 1, self._child(state, 0)

    def _walkable(self) -> bool:
        """Whether the run stands where a snapshot holds its state. Partway through a machine's firing or a
        paused do behavior the canonical state names the moves that led there, so which of two schedules
        to a state before it is kept (the owner's choice, in the fixed order) decides the states after: a
        walk from a schedule not kept would add states the search keeping one schedule does not have."""
        return bool(self.run.unjournaled() is None)

    def _failed(self, where: Where, index: int) -> None:
        """A move (index NO_MOVE: none) that fails from the state `where` names."""
        seen = self.failures.get((where[1], index))
        if seen is None or where < seen:
            self.failures[(where[1], index)] = where

    def parents(self, fps: list[bytes]) -> dict[bytes, tuple[int, bytes, int]]:
        return {fp: self.visited[fp] for fp in fps if fp in self.visited}

    def report(self) -> Report:
        return Report(self.finals, self.violations, self.deadlocks, self.failures, self.depth_hit, self.deepest,
                      self.figures())

    def refused(self) -> tuple[Where, str] | None:
        """A property that could not be evaluated at a state of the rounds so far: where first met."""
        return self.unevaluable


@dataclass(frozen=True)
class Report:
    """What one partition found, each claim at the first state in the fixed order (round, fingerprint)."""

    finals: dict[Any, list[Any]]  # outcome -> [times reached, where first]
    violations: dict[str, Where]  # property -> where it is first false
    deadlocks: dict[str, Where]
    failures: dict[tuple[bytes, int], Where]  # (fingerprint, move's place or NO_MOVE) -> where first
    depth_hit: bool
    deepest: int  # the most moves to a state it examined
    figures: WorkerFigures


# ---------------------------------------------------------------- the driver


@dataclass(frozen=True)
class Balance:
    """How the search spread: per worker, the figures it reported."""

    workers: tuple[WorkerFigures, ...]
    searched: float  # seconds of the rounds (the workers' search)
    total: float  # seconds in all: the rounds, then the witnesses rebuilt and replayed in the interpreter

    @property
    def states(self) -> int:
        return sum(w.states for w in self.workers)

    def imbalance(self) -> float:
        """The most states one worker owns over the mean (1.0: perfectly even)."""
        return imbalance(self.workers)


LAST_BALANCE: list[Balance] = []  # the last parallel search's spread, for benchmarks/check_parallel.py


def check_parallel(program: Program, recipe: Recipe, bounds: Bounds, reduce: bool, workers: int, model: str,
                   replayer: Callable[[], Any], interrupted: Callable[[], bool] | None = None,
                   progress: Progress | None = None,
                   address: str | None = None) -> Result:
    """The check of the behavior `recipe` makes over `workers` Ray actors; see the module docstring."""
    from engines.check import search as sequential
    from engines.check.properties import resolve_properties

    ray = connect(address)
    sources = [(doc.path, doc.source) for doc in program.model.documents]
    props = resolve_properties(program, recipe.element(program), recipe.properties) if recipe.properties else []
    started = time.monotonic()
    parts = _partitions(ray, workers)
    search_id = next(_SEARCHES)
    memory = bounds.memory_limit
    share = memory // workers if memory is not None else None
    ray.get([p.load.remote(sources, recipe, reduce, i, workers, search_id, share) for i, p in enumerate(parts)])
    calls: list[Any] = []  # the round's calls still running on the workers

    def stop() -> str | None:
        """Why the search stops now, if it does: the interrupt, or the timeout."""
        if interrupted is not None and interrupted():
            return "interrupted"
        if bounds.timeout is not None and time.monotonic() - started > bounds.timeout:
            return "time"
        return None

    try:
        states = sum(ray.get([p.start.remote() for p in parts]))
        round_ = 0
        stopped: str | None = None
        while True:
            stopped = stop()
            if stopped is not None:
                break
            calls = [p.expand.remote(parts, round_, bounds.depth) for p in parts]
            stopped = _waited(ray, calls, stop)
            if stopped is not None:
                break
            calls = [s for batch in ray.get(calls) for s in batch]
            stopped = _waited(ray, calls, stop)
            if stopped is not None:
                break
            ray.get(calls)  # (a batch a worker could not keep raises here)
            calls = []
            if props:
                _refuse_unevaluable(ray, parts, workers, replayer, recipe.flat)
            settled: list[Settled] = ray.get([p.settle.remote() for p in parts])
            states += sum(s.counted for s in settled)
            figures = tuple(s.figures for s in settled)
            if any(s.stopped == "memory" for s in settled) or \
                    (memory is not None and sum(f.memory for f in figures) > memory):
                stopped = "memory"
                break
            if states > bounds.states:
                stopped = "states"
                break
            levels = [s.lowest for s in settled if s.lowest >= 0]
            if not levels:
                break
            round_ = min(levels)
            if progress is not None:
                progress(states, sum(f.moves for f in figures), round_, figures)
        hits = {stopped} if stopped is not None and stopped != "interrupted" else set()
        _drain(ray, calls)  # a round cut short: its calls cancelled, each ended before the reports are asked
        reports: list[Report] = ray.get([p.report.remote() for p in parts])
        searched = time.monotonic() - started
        search = sequential.parallel_search(recipe.subject, bounds, recipe.features, reduce, props, recipe.readable,
                                            model, recipe.performer, replayer)
        _gather(ray, parts, reports, search, workers, recipe.flat)
        search.states = states
        search.moves = sum(r.figures.moves for r in reports)
        search.deepest = max(r.deepest for r in reports)
        search.hits |= hits | ({"depth"} if any(r.depth_hit for r in reports) else set())
        search.stopped = stopped
        search.fingerprint_bits = 64 if recipe.flat else 128
        result = sequential.parallel_result(search, time.monotonic() - started)
        LAST_BALANCE[:] = [Balance(tuple(r.figures for r in reports), searched, time.monotonic() - started)]
        return result
    except NotFlat:
        # the flat form met, partway, what it does not cover, and the interpreter searches next: the workers
        # are kept for it once the round's other calls are done (the batches they sent are the given-up
        # search's, which `receive` leaves unkept), sparing the start of a new pool
        _drain(ray, calls)
        raise
    except BaseException:
        # a search cut short (an interrupt, a failure) leaves its workers mid-round: they are not reused
        for p in parts:
            ray.kill(p)
        _POOL.clear()
        raise


POLL = 0.05  # seconds between two looks at the interrupt and the clock while the workers run a round


def _waited(ray: Any, calls: list[Any], stop: Callable[[], str | None]) -> str | None:
    """The calls waited for, looking at `stop` every POLL seconds: where it says to stop, every call still
    running is cancelled (a worker looks at its task's flag every LOOK states) and its word returned."""
    running = list(calls)
    while running:
        _, running = ray.wait(running, num_returns=len(running), timeout=POLL)
        if running:
            why = stop()
            if why is not None:
                for call in running:
                    ray.cancel(call)
                return why
    return None


def _drain(ray: Any, calls: list[Any]) -> None:
    """Each call done, whatever it answered (another worker may meet what the flat form refuses too)."""
    for call in calls:
        with contextlib.suppress(Exception):  # the search is given up: what the call answered is not read
            ray.get(call)


def _refuse_unevaluable(ray: Any, parts: list[Any], count: int, replayer: Callable[[], Any], flat: bool) -> None:
    """A property that could not be evaluated at a state of the round refuses the check, as the
    sequential search refuses it: with the schedule to that state."""
    from engines.check.search import PropertyNotEvaluable, schedule_text

    found = [r for r in ray.get([p.refused.remote() for p in parts]) if r is not None]
    if not found:
        return
    where, error = min(found)
    steps = _schedules(ray, parts, [where], count, flat)(where)
    moves = schedule_text(replayer, steps)
    raise PropertyNotEvaluable(f"{error} (at a state reached after {len(moves)} moves, by the schedule "
                               f"{', '.join(moves) or 'of no move'}); the check is refused, not answered")


_POOL: list[Any] = []  # the workers of this process's searches, started once and kept
_SEARCHES = itertools.count(1)  # each search's number, given to its workers with the model


def _partitions(ray: Any, count: int) -> list[Any]:
    while len(_POOL) < count:
        # Out of order: an interrupt cancels a round's calls, and one cancelled before the driver had sent it
        # leaves a gap in the numbers an in-order actor runs its calls by, so the next call (the report) waited
        # 30 s for it and failed (ActorUnavailableError). The driver waits for each call before the next it
        # depends on, and a worker keeps what it receives by a fixed order, not by arrival, so no order is lost.
        _POOL.append(ray.remote(allow_out_of_order_execution=True)(Partition).remote())
    return _POOL[:count]


def _gather(ray: Any, parts: list[Any], reports: list[Report], search: Any, count: int, flat: bool) -> None:
    """The claims of every partition, in the fixed order, each with its schedule rebuilt and replayed."""
    from engines.check import search as sequential

    finals: dict[Any, list[Any]] = {}
    violations: dict[str, Where] = {}
    deadlocks: dict[str, Where] = {}
    failures: dict[tuple[bytes, int], Where] = {}
    for r in reports:
        for key, (n, where) in r.finals.items():
            known = finals.setdefault(key, [0, where])
            known[0] += n
            known[1] = min(known[1], where)
        _earliest(violations, r.violations)
        _earliest(deadlocks, r.deadlocks)
        _earliest(failures, r.failures)
    schedule = _schedules(ray, parts, [*(w for _, w in finals.values()), *violations.values(), *deadlocks.values(),
                                       *failures.values()], count, flat)
    for name, where in sorted(violations.items(), key=lambda item: (item[1], item[0])):
        sequential.record_violation(search, schedule(where), name)
    for where in sorted(deadlocks.values()):
        sequential.record_schedule(search, schedule(where))
    for (_, index), where in sorted(failures.items(), key=lambda item: (item[1], item[0][1])):
        sequential.record_schedule(search, schedule(where) if index == NO_MOVE else [*schedule(where), index])
    for n, where in sorted(finals.values(), key=lambda item: item[1]):
        sequential.record_schedule(search, schedule(where), n)


K = TypeVar("K")


def _earliest(mine: dict[K, Where], theirs: dict[K, Where]) -> None:
    """Each claim where it is first in the fixed order, mine or theirs."""
    for key, where in theirs.items():
        if key not in mine or where < mine[key]:
            mine[key] = where


def _schedules(ray: Any, parts: list[Any], claimed: list[Where], count: int,
               flat: bool) -> Callable[[Where], list[int]]:
    """Each claimed state's schedule from the start: the one a schedule's claim carries, or (flat) the one
    rebuilt from the partitions' parent links."""
    if not flat:
        return lambda where: list(where[2])
    paths = _paths(ray, parts, {fp for _, fp, _ in claimed}, count)
    return lambda where: paths[where[1]]


def _paths(ray: Any, parts: list[Any], fps: set[bytes], count: int) -> dict[bytes, list[int]]:
    """Each fingerprint's schedule from the start, as each move's place among the moves enabled where it
    was taken, from the partitions' parent links (asked of all owners at once, a depth a round)."""
    links: dict[bytes, tuple[int, bytes, int]] = {}
    todo = set(fps)
    while todo:
        asked: list[list[bytes]] = [[] for _ in range(count)]
        for fp in todo:
            asked[int.from_bytes(fp, "little") % count].append(fp)
        for answer in ray.get([p.parents.remote(a) for p, a in zip(parts, asked, strict=True)]):
            links.update(answer)
        todo = {links[fp][1] for fp in todo if links[fp][1] and links[fp][1] not in links}
    out: dict[bytes, list[int]] = {}
    for fp in fps:
        steps: list[int] = []
        at = fp
        while links[at][1]:
            steps.append(links[at][2])
            at = links[at][1]
        out[fp] = list(reversed(steps))
    return out


__all__ = ["EXTRA", "Balance", "ParallelUnavailable", "Partition", "Recipe", "SubjectKind", "check_parallel",
           "connect", "status"]
