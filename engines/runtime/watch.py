"""Bounds that hold inside a move: the wall clock, the interrupt and the memory, checked cooperatively.

An engine asking a question installs a `Watch` for its duration (`watching`); the run calls `tick()`
at every unit of work that can repeat without end (a token move, a loop iteration, a step of the
reducer's search), and the watch looks at the clock, the interrupt flag and the process's resident
memory every CADENCE seconds. A bound reached raises `BoundReached`, which is no run error: the
engine stops where it is and reports what it found so far as incomplete.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

CADENCE = 0.01  # seconds between two looks at the interrupt flag and the memory
MEMORY_FRACTION = 0.5  # the default memory bound: this share of the machine's physical memory


class BoundReached(Exception):
    """A bound reached inside a move: `kind` is "time", "interrupted" or "memory"."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class Watch:
    """The bounds one engine call keeps: a deadline (monotonic seconds), an interrupt flag, a memory cap."""

    def __init__(self, deadline: float | None = None, interrupted: Callable[[], bool] | None = None,
                 memory: int | None = None) -> None:
        if _command_deadline:
            deadline = min(deadline, _command_deadline[-1]) if deadline is not None else _command_deadline[-1]
        self.deadline = deadline
        self.interrupted = interrupted
        self.memory = memory
        self._next = 0.0

    def check(self) -> None:
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise BoundReached("time")
        if now < self._next:
            return
        self._next = now + CADENCE
        if self.interrupted is not None and self.interrupted():
            raise BoundReached("interrupted")
        if self.memory is not None and resident_memory() > self.memory:
            raise BoundReached("memory")


_current: list[Watch] = []
_command_deadline: list[float] = []


@contextmanager
def command_deadline(deadline: float | None) -> Iterator[None]:
    """Every watch made in the block also keeps `deadline` (monotonic seconds): a command's own time
    bound, so that several engine calls, and what the command did before them, share one budget."""
    if deadline is None:
        yield
        return
    _command_deadline.append(deadline)
    try:
        yield
    finally:
        _command_deadline.pop()


def process_started() -> float:
    """When this process started, on time.monotonic()'s clock (imports and start-up included); where
    the system does not say, when this module was first imported."""
    try:
        with open("/proc/self/stat", "rb") as handle:
            ticks = int(handle.read().rsplit(b")", 1)[1].split()[19])  # field 22: start time, clock ticks after boot
        with open("/proc/uptime", "rb") as handle:
            uptime = float(handle.read().split()[0])
        age = uptime - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return _IMPORTED
    return time.monotonic() - max(age, 0.0)


_IMPORTED = time.monotonic()


@contextmanager
def watching(watch: Watch) -> Iterator[Watch]:
    """`watch` is the one `tick()` consults until the block ends (engine calls may nest)."""
    _current.append(watch)
    try:
        yield watch
    finally:
        _current.pop()


def tick() -> None:
    """One unit of work that may repeat without end: raises BoundReached when a bound is reached."""
    if _current:
        _current[-1].check()


def resident_memory() -> int:
    """The process's resident memory in bytes (its peak where the current figure cannot be read)."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def default_memory_bound() -> int | None:
    """MEMORY_FRACTION of the machine's physical memory, or no bound where it cannot be read."""
    try:
        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") * MEMORY_FRACTION)
    except (OSError, ValueError, AttributeError):
        return None


def spell_bytes(count: int) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.3g} {unit}"
    return f"{count} B"


def parse_bytes(text: str) -> int:
    """`2G`, `500M`, `1.5GiB`, `800MB`, `1048576`: a memory size in bytes (powers of 1024)."""
    raw = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(raw[-1:], 1)
    number = raw[:-1] if scale != 1 else raw
    try:
        value = float(number)
    except ValueError:
        raise ValueError(f"'{text}' is no memory size: write e.g. 2G, 500M or 1.5GiB") from None
    if value <= 0:
        raise ValueError(f"'{text}' is no memory size: it must be positive")
    return int(value * scale)
