"""The lean-Python floor of the check: a plain depth-first search over the state graphs of the
../shared/bench/gen_scaling.py families, each state a tuple, each move a function from tuple to
tuple, a set of the tuples visited. No interpreter, journal, snapshot or reduction: what any
Python search of these graphs must spend per state, against which benchmarks/check_scaling.py's
microseconds per state are read.

The graph is the unreduced one our check searches: the start, the fork, each leaf (a racy leaf is
two moves: its attribute `t := c`, then `c := t + 1`; a finished leaf's `t` is dropped, as our
compared state drops what nothing reads again; the last leaf's move arrives at the join), the join
and `done`. The state counts equal our unreduced check's.

    python benchmarks/lean_floor.py                         # the issue's rows
    python benchmarks/lean_floor.py shared:6:4 racy:4:3     # chosen rows
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator

DEFAULT_ROWS = ["indep:6:4", "shared:5:4", "shared:6:4", "shared:7:4", "racy:3:3", "racy:4:3"]

# a state: (phase, positions, values, locals); phase 0 before the start, 1 at the fork, 2 branching,
# 3 joined, 4 done. positions[i] counts branch i's leaves done (k: its last leaf arrives at the join as it ends);
# values is (c,) or the x_i; locals[i] is branch i's `t` while its leaf is half done, else None.
State = tuple[int, tuple[int, ...], tuple[int, ...], tuple[int | None, ...]]


def successors(mode: str, n: int, k: int) -> Callable[[State], Iterator[State]]:
    def step(state: State) -> Iterator[State]:
        phase, pos, vals, loc = state
        if phase < 2:
            yield (phase + 1, pos, vals, loc)
            return
        if phase == 3:
            yield (4, pos, vals, loc)
            return
        if phase == 4:
            return
        if all(p == k for p in pos):
            yield (3, pos, vals, loc)
            return
        for i in range(n):
            p = pos[i]
            if p == k:
                continue
            moved = (*pos[:i], p + 1, *pos[i + 1:])
            if mode == "indep":
                yield (2, moved, (*vals[:i], vals[i] + 1, *vals[i + 1:]), loc)
            elif mode == "shared":
                yield (2, moved, (vals[0] + 1,), loc)
            elif (t := loc[i]) is None:  # racy: the leaf's attribute first
                yield (2, pos, vals, (*loc[:i], vals[0], *loc[i + 1:]))
            else:
                yield (2, moved, (t + 1,), (*loc[:i], None, *loc[i + 1:]))
    return step


def search(mode: str, n: int, k: int) -> tuple[int, int, float]:
    """States, moves and seconds of the plain DFS."""
    step = successors(mode, n, k)
    start: State = (0, (0,) * n, (0,) * (n if mode == "indep" else 1), (None,) * n)
    started = time.perf_counter()
    seen = {start}
    stack = [start]
    moves = 0
    while stack:
        state = stack.pop()
        for nxt in step(state):
            moves += 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return len(seen), moves, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rows", nargs="*", default=DEFAULT_ROWS, help="mode:n:k")
    args = parser.parse_args()
    print(f"{'model':<12}{'states':>10}{'moves':>10}{'wall s':>9}{'us/state':>10}{'us/move':>9}")
    for row in args.rows:
        mode, n, k = row.split(":")
        states, moves, seconds = search(mode, int(n), int(k))
        print(f"{mode + ' ' + n + 'x' + k:<12}{states:>10}{moves:>10}{seconds:>9.2f}"
              f"{seconds * 1e6 / states:>10.2f}{seconds * 1e6 / max(moves, 1):>9.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
