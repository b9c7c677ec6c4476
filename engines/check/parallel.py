"""The check partitioned over workers on Ray: the same answers as the sequential search, its states
spread over processes (and machines, on a Ray cluster).

The fingerprint space is split by hash over N Ray actors. Each rebuilds the model once from its source
text and lowers the action flat (engines/runtime/actions/flat.py); a state travels as that form's
tuple of token places and values, never as pickled runtime objects. Each actor owns its share of the
visited set, with every state's shallowest depth and the move and state it was first reached from.
The search runs breadth first in synchronous rounds (bulk-synchronous parallel): in a round each
actor expands the states it owns at the current depth and sends each successor to its owner in one
batch per owner; at the barrier the owners keep the successors they had not seen. Termination is
that barrier's: a round after which no actor holds a new state ends the search, which no message can
outlive (every batch of a round is delivered before the round's barrier is passed).

Where two states reach one successor in a round, its owner keeps the one first in a fixed order (the
predecessor's fingerprint, then the move), so what is kept, and so every witness and its token
numbers, is the same at any worker count. Reduction is by persistent sets alone, computed per state
from the state (they need no search order); the sleep sets of the sequential search need its depth-first
order and are left out, which keeps every final state and deadlock (a persistent set of a state holds
a move of every schedule to a final state from it) and may search more states than the sequential
reduced search, never more than the unreduced one. Every claim's schedule is rebuilt from the parent
links of the partitions and replayed in the interpreter before it is reported, as the sequential
search's are.

Fingerprints hash strings, so every actor hashes with one seed (PYTHONHASHSEED in its environment).
"""

from __future__ import annotations

import gc
import importlib.util
import logging
import marshal
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from engines.errors import EngineError, RunError
from engines.framework import Bounds, Result, Status
from engines.runtime import Behavior, Program

EXTRA = "pip install -e '.[ray]' (or pip install ray)"
_SEED = "0"  # the hash seed every actor's process starts with


class ParallelUnavailable(EngineError):
    """A parallel search asked for where it cannot run: no Ray, or a behavior it does not cover."""


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
            ray.init(runtime_env=env, include_dashboard=False, num_cpus=max(os.cpu_count() or 1, 1), **quiet)
    return ray


@dataclass(frozen=True)
class Figures:
    """What one partition did: states it owns, moves it made, bytes it sent, its resident memory."""

    states: int
    moves: int
    sent: int
    memory: int
    busy: float  # seconds spent expanding, receiving and keeping states


# ---------------------------------------------------------------- one partition

# a successor sent to its owner: its fingerprint, its predecessor's, the move's place among the moves
# enabled there, and the state as the flat form holds it
Message = tuple[bytes, bytes, int, tuple[Any, ...]]


def pack(batch: list[Message]) -> bytes | list[Message]:
    """A batch as marshal's bytes where its values allow (numbers, strings, Booleans: several times
    quicker to write and read than pickle's), else as it is (a Real value is a Fraction)."""
    try:
        return marshal.dumps(batch)
    except ValueError:
        return batch


def unpack(batch: bytes | list[Message]) -> list[Message]:
    return marshal.loads(batch) if isinstance(batch, bytes) else batch


class Partition:
    """One worker's share of the search: the states whose fingerprints hash to it (a Ray actor, kept for
    the next search: `load` gives it each search's model and share)."""

    def __init__(self) -> None:
        self.sources: list[tuple[str, str]] = []
        self.program: Program | None = None

    def load(self, sources: list[tuple[str, str]], subject: str, readable: frozenset[str] | None,
             features: tuple[str, ...] | None, reduce: bool, index: int, count: int, max_steps: int) -> None:
        import ir
        from engines.check.reduce import Reducer

        # A flat state holds no reference cycle, and the collector's passes would walk the visited set
        # again and again as it grows (a third of the time on racy 4x3): off in the worker, whose own
        # leftovers are collected once here, between searches.
        gc.disable()
        gc.collect()
        if self.program is None or sources != self.sources:
            self.program = Program(ir.resolve([ir.parse(text, path) for path, text in sources]))
            self.sources = sources
        # an error a move meets is worded by the driver, which replays its schedule in the interpreter
        self.flat = self.program.flat_action(subject, readable, lambda moves: "", max_steps)
        self.run = self.flat.start()
        self.features = features
        self.reduce = reduce
        self.reducer = Reducer()
        self.index = index
        self.count = count
        # fingerprint -> (depth, the fingerprint it was first reached from, the move's place among the
        # moves enabled there: the interpreter, which lists the same moves in the same order, takes it)
        self.visited: dict[bytes, tuple[int, bytes, int]] = {}
        self.frontier: list[tuple[bytes, tuple[Any, ...]]] = []
        self.inbox: list[Message] = []
        self.moves = 0
        self.sent = 0
        # what the states it expanded showed: final values, deadlocks, failing moves, each at the first
        # state in the fixed order (depth, fingerprint)
        self.finals: dict[tuple[tuple[str, str], ...], list[Any]] = {}
        self.deadlocks: dict[str, tuple[int, bytes]] = {}
        self.failures: dict[tuple[bytes, int], int] = {}
        self.depth_hit = False
        self.busy = 0.0

    def _owner(self, fp: bytes) -> int:
        return int.from_bytes(fp, "little") % self.count

    def start(self) -> int:
        """The first state, kept by the partition that owns it: 1 there, else 0."""
        self.run = self.flat.start()
        fp = self.run.fingerprint()
        if self._owner(fp) != self.index:
            return 0
        self.visited[fp] = (0, b"", -1)
        self.frontier = [(fp, self.run.state())]
        return 1

    def receive(self, batch: bytes | list[Message]) -> None:
        started = time.perf_counter()
        self.inbox.extend(unpack(batch))
        self.busy += time.perf_counter() - started

    def settle(self, depth: int) -> int:
        """Keep the successors not seen before (of each, the one first in the fixed order): the states of
        the next round; how many."""
        started = time.perf_counter()
        visited = self.visited
        kept: dict[bytes, tuple[Any, ...]] = {}
        for fp, parent, index, state in self.inbox:
            seen = visited.get(fp)
            if seen is None or (seen[0] == depth and (parent, index) < seen[1:]):
                # unseen, or seen only in this round from a predecessor later in the fixed order
                visited[fp] = (depth, parent, index)
                kept[fp] = state
        self.inbox = []
        self.frontier = list(kept.items())
        self.busy += time.perf_counter() - started
        return len(kept)

    def expand(self, peers: list[Any], depth: int, bound: int) -> list[Any]:
        """Every state of this round's frontier: what it shows, and its successors sent to their owners;
        the sends, for the driver to wait on."""
        started = time.perf_counter()
        run = self.run
        out: list[list[Message]] = [[] for _ in range(self.count)]
        for fp, state in self.frontier:
            run.restore(state)
            if run.finished:
                values = run.outputs() if self.features is None else \
                    {f: run.outputs().get(f, "<unset>") for f in self.features}
                key = tuple(sorted(values.items()))
                known = self.finals.get(key)
                if known is None:
                    self.finals[key] = [1, depth, fp]
                else:
                    known[0] += 1
                    if (depth, fp) < (known[1], known[2]):
                        known[1], known[2] = depth, fp
                continue
            moves = run.enabled_moves()
            if not moves:
                text = (run.stuck() or "deadlock").removeprefix("deadlock: ")
                seen = self.deadlocks.get(text)
                if seen is None or (depth, fp) < seen:
                    self.deadlocks[text] = (depth, fp)
                continue
            if depth >= bound:
                self.depth_hit = True
                continue
            taken = list(enumerate(moves))
            if self.reduce and len(moves) > 1:
                chosen = {id(m) for m in self.reducer.persistent(cast("Behavior", run), moves, run.actors())}
                taken = [(i, m) for i, m in taken if id(m) in chosen]
            fresh = True  # the run still stands at the state: the first move needs no load
            for index, move in taken:
                if not fresh:
                    run.restore(state)
                fresh = False
                self.moves += 1
                try:
                    run.apply(move)
                except RunError:
                    self.failures.setdefault((fp, index), depth)
                    continue
                child = run.fingerprint()
                out[self._owner(child)].append((child, fp, index, run.state()))
        self.frontier = []
        sends = []
        for owner, batch in enumerate(out):
            if not batch:
                continue
            if owner == self.index:
                self.inbox.extend(batch)
            else:
                self.sent += len(batch)
                sends.append(peers[owner].receive.remote(pack(batch)))
        self.busy += time.perf_counter() - started
        return sends

    def parents(self, fps: list[bytes]) -> dict[bytes, tuple[int, bytes, int]]:
        return {fp: self.visited[fp] for fp in fps if fp in self.visited}

    def report(self) -> tuple[dict[Any, list[Any]], dict[str, tuple[int, bytes]], dict[tuple[bytes, int], int],
                              bool, Figures]:
        from engines.runtime.watch import resident_memory

        return (self.finals, self.deadlocks, self.failures, self.depth_hit,
                Figures(len(self.visited), self.moves, self.sent, resident_memory(), self.busy))


# ---------------------------------------------------------------- the driver


@dataclass(frozen=True)
class Balance:
    """How the search spread: per worker, the figures it reported."""

    workers: tuple[Figures, ...]
    searched: float  # seconds of the rounds (the workers' search)
    total: float  # seconds in all: the rounds, then the witnesses rebuilt and replayed in the interpreter

    @property
    def states(self) -> int:
        return sum(w.states for w in self.workers)

    def imbalance(self) -> float:
        """The most states one worker owns over the mean (1.0: perfectly even)."""
        mean = self.states / len(self.workers)
        return max(w.states for w in self.workers) / mean if mean else 1.0


LAST_BALANCE: list[Balance] = []  # the last parallel search's spread, for benchmarks/check_parallel.py


def check_parallel(program: Program, subject: str, bounds: Bounds, diverge: tuple[str, ...] | None,
                   reduce: bool, workers: int, readable: frozenset[str] | None, model: str,
                   replayer: Callable[[], Any], max_steps: int, interrupted: Callable[[], bool] | None = None,
                   progress: Callable[[int, int, int], None] | None = None,
                   address: str | None = None) -> Result:
    """The check of `subject`, an action the flat form covers (engines/check/search.py asks), over
    `workers` Ray actors; see the module docstring."""
    from engines.check import search as sequential

    ray = connect(address)
    sources = [(doc.path, doc.source) for doc in program.model.documents]
    started = time.monotonic()
    parts = _partitions(ray, workers)
    ray.get([p.load.remote(sources, subject, readable, diverge, reduce, i, workers, max_steps)
             for i, p in enumerate(parts)])
    try:
        states = sum(ray.get([p.start.remote() for p in parts]))
        depth = 0
        stopped: str | None = None
        hits: set[str] = set()
        while True:
            if interrupted is not None and interrupted():
                stopped = "interrupted"
                break
            if bounds.timeout is not None and time.monotonic() - started > bounds.timeout:
                stopped = "time"
                hits.add("time")
                break
            sends = ray.get([p.expand.remote(parts, depth, bounds.depth) for p in parts])
            ray.get([s for batch in sends for s in batch])
            depth += 1
            fresh = sum(ray.get([p.settle.remote(depth) for p in parts]))
            if fresh == 0:
                break
            states += fresh
            if states > bounds.states:
                stopped = "states"
                hits.add("states")
                break
            if progress is not None:
                progress(states, 0, depth)
        reports = ray.get([p.report.remote() for p in parts])
        searched = time.monotonic() - started
        search = sequential.parallel_search(subject, bounds, diverge, reduce, readable, model, replayer)
        _gather(ray, parts, reports, search, workers)
        search.states = states
        search.moves = sum(r[4].moves for r in reports)
        # the deepest round examined: a search that ran out found nothing new past its last round
        search.deepest = depth - 1 if stopped is None else depth
        search.hits |= hits | ({"depth"} if any(r[3] for r in reports) else set())
        search.stopped = stopped
        search.fingerprint_bits = 64
        result = sequential.parallel_result(search, time.monotonic() - started)
        LAST_BALANCE[:] = [Balance(tuple(r[4] for r in reports), searched, time.monotonic() - started)]
        return result
    except BaseException:
        # a search cut short (an interrupt, a failure) leaves its workers mid-round: they are not reused
        for p in parts:
            ray.kill(p)
        _POOL.clear()
        raise


_POOL: list[Any] = []  # the workers of this process's searches, started once and kept


def _partitions(ray: Any, count: int) -> list[Any]:
    while len(_POOL) < count:
        _POOL.append(ray.remote(Partition).remote())
    return _POOL[:count]


def _gather(ray: Any, parts: list[Any], reports: list[Any], search: Any, count: int) -> None:
    """The claims of every partition, in the fixed order, each with its schedule rebuilt and replayed."""
    from engines.check import search as sequential

    finals: dict[Any, list[Any]] = {}
    for r in reports:
        for key, (n, depth, fp) in r[0].items():
            known = finals.get(key)
            if known is None:
                finals[key] = [n, depth, fp]
            else:
                known[0] += n
                if (depth, fp) < (known[1], known[2]):
                    known[1], known[2] = depth, fp
    deadlocks: dict[str, tuple[int, bytes]] = {}
    failures: dict[tuple[bytes, int], int] = {}
    for r in reports:
        for text, at in r[1].items():
            if text not in deadlocks or at < deadlocks[text]:
                deadlocks[text] = at
        failures.update(r[2])
    wanted = {fp for _, _, fp in finals.values()} | {fp for _, fp in deadlocks.values()} | {fp for fp, _ in failures}
    paths = _paths(ray, parts, wanted, count)
    for _, fp in sorted(deadlocks.values()):
        sequential.record_schedule(search, paths[fp])
    for (fp, index), _ in sorted(failures.items(), key=lambda item: (item[1], item[0])):
        sequential.record_schedule(search, [*paths[fp], index])
    for n, _, fp in sorted(finals.values(), key=lambda item: (item[1], item[2])):
        sequential.record_schedule(search, paths[fp], n)


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


__all__ = ["EXTRA", "Balance", "Figures", "ParallelUnavailable", "Partition", "check_parallel", "connect", "status"]
